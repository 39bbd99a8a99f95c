/* SPDX-License-Identifier: MIT */
/*
 * Tool parameters mirrored into HTTP headers (2026-07-28 Streamable HTTP,
 * "Custom Headers from Tool Parameters"; server/tools.mdx "x-mcp-header").
 * A client learns which parameters a tool mirrors from tools/list, must
 * leave out of that list every tool whose annotations break the rules, and
 * then sends `Mcp-Param-{Name}` with each tools/call. Sans-I/O: the HTTP
 * client transport feeds it the messages it carries. Loop thread (one
 * cache belongs to one transport).
 */
#ifndef MCP_TRANSPORT_HTTP_PARAMS_H
#define MCP_TRANSPORT_HTTP_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/common.h"
#include "mcp/json.h"

typedef struct mcp__tool_headers mcp__tool_headers;

/* An empty cache, or NULL when out of memory. */
mcp__tool_headers *mcp__tool_headers_new(void);
void mcp__tool_headers_free(mcp__tool_headers *c);

/* Why a tool's inputSchema breaks the x-mcp-header rules, as a sentence
 * (a literal), or NULL when it keeps them (or has no annotation). */
const char *mcp__tool_headers_check(const mcp_json *input_schema);

/*
 * Learn from one tools/list response (the whole JSON-RPC message, len
 * bytes). Tools that keep the rules are remembered (a tool listed again
 * replaces what was known of it); each tool that breaks them is forgotten,
 * reported to warn (tool name and reason, borrowed for the call; warn may
 * be NULL) and left out of the list: then *out receives the message
 * without it (the caller owns it: mcp_buf_free) and *changed is true. A
 * message that is not a successful tools/list result is left alone.
 * MCP_OK or MCP_ERR_NOMEM (nothing rewritten then).
 */
int mcp__tool_headers_learn(mcp__tool_headers *c, const char *msg, size_t len, mcp_buf *out,
                            bool *changed,
                            void (*warn)(void *ud, const char *tool, const char *why),
                            void *ud);

/*
 * The `Mcp-Param-{Name}: value` header lines (no CRLF) of a tools/call with
 * these params (the params object of the request), each passed to add:
 * values encoded as the spec says, null and absent values left out, a
 * value of another type than string, integer or boolean left out too.
 * Nothing for a tool the cache does not know. MCP_OK, or the first error
 * add returned, or MCP_ERR_NOMEM.
 */
int mcp__tool_headers_for_call(const mcp__tool_headers *c, const mcp_json *params,
                               int (*add)(void *ud, const char *line), void *ud);

#endif
