/* SPDX-License-Identifier: MIT */
/*
 * Reading the members of a JSON object without building a DOM: for text we
 * wrote ourselves (splicing members into a result) and for the first and
 * last bytes of a message too large to parse (finding its id). The scanner
 * checks structure (strings, nesting, separators), not every byte: it is
 * never a substitute for the parser on untrusted input that is used as JSON.
 */
#ifndef MCP_JSON_SCAN_H
#define MCP_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mcp__span {
    const char *p;
    size_t n;
} mcp__span;

/* What a scan of members ended on. */
enum mcp__scan_status {
    MCP__SCAN_MEMBER = 1,    /* *key and *value are the next member */
    MCP__SCAN_END = 0,       /* the object closed (forward) or its first
                                member was passed (backward) */
    MCP__SCAN_TRUNCATED = -1, /* the text ran out inside the object */
    MCP__SCAN_BAD = -2        /* not the expected structure */
};

/* Forward over an object's members. */
typedef struct mcp__scan {
    const char *p, *end;
    bool first;
} mcp__scan;

/* Start at the object that opens text (after whitespace). False when text
 * does not start an object. */
bool mcp__scan_open(mcp__scan *sc, const char *text, size_t len);
/* The next member: key is the key with its quotes, value the value's text.
 * When the text runs out inside a member's value (MCP__SCAN_TRUNCATED),
 * key is that member's key (key.p NULL when it ran out before one). */
int mcp__scan_next(mcp__scan *sc, mcp__span *key, mcp__span *value);
/* The same in two steps, for a reader that may stop at a key without
 * passing its value (a large one): the next member's key, then its value.
 * Each mcp__scan_key that returns MCP__SCAN_MEMBER is followed by
 * mcp__scan_value before the next key. */
int mcp__scan_key(mcp__scan *sc, mcp__span *key);
int mcp__scan_value(mcp__scan *sc, mcp__span *value);

/* Backward over the last members of the object that closes text: yields
 * members from the last one back, any value (a string or a container is
 * skipped whole: a quote is told from an escaped one by the backslashes
 * before it), until the text runs out (MCP__SCAN_TRUNCATED) or the first
 * member was passed. Sound for the tail of a well-formed message: the last
 * '}' of a JSON text closes its top-level object. */
typedef struct mcp__rscan {
    const char *begin, *p; /* p: one past the next byte to read backward */
    bool done;
} mcp__rscan;

bool mcp__rscan_open(mcp__rscan *sc, const char *text, size_t len);
int mcp__rscan_next(mcp__rscan *sc, mcp__span *key, mcp__span *value);

/* Whether key (with its quotes) is exactly "name". */
bool mcp__span_is_key(mcp__span key, const char *name);

#endif
