/* SPDX-License-Identifier: MIT */
/*
 * The one way the library writes a JSON envelope: a streaming writer with a
 * sticky error. The writer places the commas and colons; the first failing
 * call (a cap reached, no memory, a string that is not UTF-8, a double that
 * is not finite) is remembered, every later call does nothing, and
 * mcp__jw_finish returns that error with the buffer rolled back to where the
 * writer started. So a message is written completely or not at all, and a
 * caller checks one return value instead of twenty.
 */
#ifndef MCP_JSON_WRITER_H
#define MCP_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/json.h"

#define MCP__JW_MAX_DEPTH 62

typedef struct mcp__jw {
    mcp_buf *out;
    size_t start;
    int err;
    unsigned depth;
    uint64_t has_items; /* bit d: the container at depth d has a member */
    bool after_key;     /* a key was written: the next value takes no comma */
} mcp__jw;

/* Start writing at the end of out. */
void mcp__jw_begin(mcp__jw *w, mcp_buf *out);
/* MCP_OK, or the first error (out rolled back). Unclosed containers are a
 * programming error reported as MCP_ERR_STATE. */
int mcp__jw_finish(mcp__jw *w);

void mcp__jw_object(mcp__jw *w);
void mcp__jw_object_end(mcp__jw *w);
void mcp__jw_array(mcp__jw *w);
void mcp__jw_array_end(mcp__jw *w);

/* A member name. key: one the library spells itself (printable ASCII
 * needing no escape: written as is, checked in debug builds). keyn: any
 * name (checked and escaped as a string value). */
void mcp__jw_key(mcp__jw *w, const char *key);
void mcp__jw_keyn(mcp__jw *w, const char *key, size_t len);

/* Values. Strings are checked for UTF-8 (MCP_ERR_UTF8) and escaped. */
void mcp__jw_string(mcp__jw *w, const char *s);
void mcp__jw_stringn(mcp__jw *w, const char *s, size_t len);
void mcp__jw_int(mcp__jw *w, int64_t v);
void mcp__jw_double(mcp__jw *w, double v); /* NaN, inf: MCP_ERR_INVALID_ARG */
void mcp__jw_bool(mcp__jw *w, bool v);
void mcp__jw_null(mcp__jw *w);
/* A DOM value (borrowed for the call). */
void mcp__jw_value(mcp__jw *w, const mcp_json *v);
/* Trusted, already serialized JSON text as one value. */
void mcp__jw_raw(mcp__jw *w, const char *json, size_t len);
/* Trusted, already serialized members of an object ("a":1,"b":2), without
 * the braces, spliced into the object being written. len 0 writes nothing. */
void mcp__jw_raw_members(mcp__jw *w, const char *members, size_t len);
/* Literal bytes outside the JSON grammar (the NDJSON newline). */
void mcp__jw_bytes(mcp__jw *w, const char *bytes, size_t len);

/* Whether the writer has failed so far. */
static inline bool mcp__jw_failed(const mcp__jw *w)
{
    return w->err != MCP_OK;
}

#endif
