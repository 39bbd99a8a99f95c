/* SPDX-License-Identifier: MIT */
/* JSON-RPC internals shared with the session engine. */
#ifndef MCP_JSONRPC_INTERNAL_H
#define MCP_JSONRPC_INTERNAL_H

#include <string.h>

#include "json/writer.h"
#include "mcp/jsonrpc.h"

/* Whether msg's method is the string literal lit (mcp_message_method_is
 * for a literal: its length is the compiler's, so a method of another
 * length costs one comparison; the engine asks this several times a
 * request). */
#define MCP__METHOD_IS(msg, lit)                                                  \
    ((msg)->method && (msg)->method_len == sizeof(lit) - 1 &&                     \
     memcmp((msg)->method, lit, sizeof(lit) - 1) == 0)

/* An id as a value of the writer (`null` for MCP_ID_NONE). */
static inline void mcp__jw_id(mcp__jw *w, const mcp_id *id)
{
    switch (id ? id->kind : MCP_ID_NONE) {
    case MCP_ID_INT: mcp__jw_int(w, id->num); break;
    case MCP_ID_STRING: mcp__jw_stringn(w, id->str, id->len); break;
    default: mcp__jw_null(w); break;
    }
}

/* The start of every message: `{"jsonrpc":"2.0"`, with the object open. */
static inline void mcp__jw_envelope(mcp__jw *w)
{
    mcp__jw_object(w);
    mcp__jw_key(w, "jsonrpc");
    mcp__jw_raw(w, MCP_LITERAL("\"2.0\""));
}

/* A response up to its member's value: `{"jsonrpc":"2.0","id":<id>,"<member>":`
 * with member "result" or "error"; the caller writes the value. */
static inline void mcp__jw_response_start(mcp__jw *w, mcp_buf *out, const mcp_id *id,
                                          const char *member)
{
    mcp__jw_begin(w, out);
    mcp__jw_envelope(w);
    mcp__jw_key(w, "id");
    mcp__jw_id(w, id);
    mcp__jw_key(w, member);
}

/* A notification up to its params, open: `{"jsonrpc":"2.0","method":<method>,"params":{`;
 * the caller writes the members and closes params. */
static inline void mcp__jw_notification_start(mcp__jw *w, mcp_buf *out, const char *method)
{
    mcp__jw_begin(w, out);
    mcp__jw_envelope(w);
    mcp__jw_key(w, "method");
    mcp__jw_string(w, method);
    mcp__jw_key(w, "params");
    mcp__jw_object(w);
}

/* Close the message object and end the NDJSON line. */
static inline int mcp__jw_envelope_end(mcp__jw *w)
{
    mcp__jw_object_end(w);
    mcp__jw_bytes(w, MCP_LITERAL("\n"));
    return mcp__jw_finish(w);
}

#endif
