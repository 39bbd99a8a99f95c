/* SPDX-License-Identifier: MIT */
/*
 * The client's tool cache (tools.c): what the tools it listed declared,
 * read by the output-schema check of tools/call results and by the
 * x-mcp-header mirror of the HTTP transport. Sans-I/O. Loop thread (one
 * cache belongs to one client).
 */
#ifndef MCP_CLIENT_TOOLS_H
#define MCP_CLIENT_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/common.h"
#include "mcp/json.h"

typedef struct mcp__tools mcp__tools;

/* An empty cache (the caller owns it: mcp__tools_free), or NULL when out
 * of memory. */
mcp__tools *mcp__tools_new(void);
void mcp__tools_free(mcp__tools *c); /* NULL: nothing */

/* Why a tool's inputSchema breaks the x-mcp-header rules, as a sentence
 * (a literal), or NULL when it keeps them (or has no annotation). */
const char *mcp__tools_header_problem(const mcp_json *input_schema);

/*
 * Learn from one tools/list result (borrowed for the call): each tool's
 * outputSchema, and with headers (2026-07-28 over HTTP) its x-mcp-header
 * parameters. A tool listed again replaces what was known of it. With
 * headers, each tool that breaks the x-mcp-header rules is reported to
 * warn (its name and why, borrowed for the call; warn may be NULL) and
 * left out: *kept then receives a copy of result without it (the caller
 * owns it), else NULL. MCP_OK or MCP_ERR_NOMEM (then what was learned so
 * far is kept, and *kept is NULL).
 */
int mcp__tools_learn(mcp__tools *c, const mcp_json *result, bool headers, mcp_json_doc **kept,
                     void (*warn)(void *ud, const char *tool, const char *why), void *ud);

/* Whether a tools/call result of tool (c may be NULL) satisfies the
 * outputSchema it declared; why (why_len bytes) says what breaks it. */
/* How the last tools/list said tool (NUL-terminated) runs as a task
 * (execution.taskSupport, 2025-11-25): 0 forbidden (or not known), 1
 * optional, 2 required. */
int mcp__tools_task_support(const mcp__tools *c, const char *tool);

bool mcp__tools_check_output(const mcp__tools *c, const char *tool, const mcp_json *result,
                             char *why, size_t why_len);

/*
 * The `Mcp-Param-{Name}: value` header lines (no CRLF) of a tools/call with
 * these params (the params object of the request), each passed to add:
 * values encoded as the spec says, null and absent values left out, a
 * value of another type than string, integer or boolean left out too.
 * Nothing for a tool the cache does not know (c may be NULL). MCP_OK, or
 * the first error add returned, or MCP_ERR_NOMEM.
 */
int mcp__tools_headers_for_call(const mcp__tools *c, const mcp_json *params,
                                int (*add)(void *ud, const char *line), void *ud);

#endif
