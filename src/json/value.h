/* SPDX-License-Identifier: MIT */
/* The JSON node layout, shared by the parser, builder, readers and writer. */
#ifndef MCP_JSON_VALUE_H
#define MCP_JSON_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "mcp/json.h"

/* Number flags */
#define NUM_INT_LITERAL 0x01u /* text has no fraction and no exponent */
#define NUM_HAS_I64 0x02u     /* x.i holds the exact value */
/* Bool flag */
#define BOOL_TRUE 0x01u

/* Objects with more members than this get a hash index. */
#define OBJECT_INDEX_MIN 8u

struct mcp_json_member {
    const char *key;
    uint32_t key_len;
    mcp_json *value;
};

struct mcp_json {
    uint8_t type; /* mcp_json_type */
    uint8_t flags;
    uint32_t len;        /* string/number-text bytes, or element count */
    uint32_t cap;        /* containers: allocated element slots */
    uint32_t index_size; /* objects: hash slots (a power of two) or 0 */
    union {
        const char *s; /* string bytes (NUL-terminated), number text */
        mcp_json **items;
        struct mcp_json_member *members;
    } u;
    union {
        int64_t i;       /* number, when NUM_HAS_I64 */
        uint32_t *index; /* objects: slot -> member index + 1, 0 = empty */
    } x;
};

struct mcp_json_doc {
    mcp__arena arena; /* first member: the doc lives in its own arena */
    mcp_json *root;
    int error; /* sticky builder error */
};

/* UTF-8: decode the sequence starting at s (avail bytes, avail >= 1, s[0] >=
 * 0x80). Returns its length (2..4), or 0 and sets *why to a static reason. */
int mcp__utf8_seq(const unsigned char *s, size_t avail, const char **why);

/* Build the hash index of an object, compacting duplicate keys: with
 * `reject`, stop at the first duplicate, store the index of the later member
 * in *dup and return 1; otherwise the earlier member takes the later value
 * and the later one is removed. Returns 0, or -1 when out of memory (the
 * object is unchanged). */
int mcp__object_index(mcp_json_doc *doc, mcp_json *obj, bool reject,
                      uint32_t *dup);

/* Look key up in obj; returns the member index or -1. */
long mcp__object_find(const mcp_json *obj, const char *key, size_t key_len);

/* Record the first builder error. */
static inline void mcp__doc_fail(mcp_json_doc *doc, int code)
{
    if (doc && doc->error == MCP_OK)
        doc->error = code;
}

/* Exact integer value of JSON number text: MCP_OK with sign and magnitude,
 * MCP_ERR_JSON_TYPE when not integral, MCP_ERR_JSON_RANGE when the magnitude
 * exceeds 2^64 - 1. */
int mcp__number_integer(const char *text, size_t len, bool *negative,
                        uint64_t *magnitude);

/* Validate JSON number syntax of exactly len bytes. */
bool mcp__number_valid(const char *text, size_t len);

/* A JSON number lexeme at the start of some text. */
typedef struct mcp__number_lexeme {
    size_t end;        /* its length; meaningful when why is NULL */
    bool negative;
    bool integer;      /* no fraction, no exponent */
    size_t int_digits; /* digits before any '.' */
    uint64_t leading;  /* value of the first (up to 19) integer digits */
    const char *why;   /* NULL, or a static reason the text is no number */
    size_t error_at;   /* where the problem is, when why is set */
} mcp__number_lexeme;

/* Scan the JSON number grammar at the start of s[0..len); stops at the
 * first byte that cannot continue the number. */
void mcp__number_scan(const char *s, size_t len, mcp__number_lexeme *out);

/* Format a finite double as the shortest JSON number text that reads back
 * as the same value; returns the length, or 0 for NaN and infinities. */
#define MCP__DOUBLE_BUF 40
size_t mcp__format_double(char *buf, double d);

/* Format an int64 / uint64 in decimal; returns the length (at most 20). */
size_t mcp__format_i64(char *buf, int64_t v);
size_t mcp__format_u64(char *buf, uint64_t v);

#endif
