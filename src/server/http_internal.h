/* SPDX-License-Identifier: MIT */
/* The Streamable HTTP binding's internals, shared by src/server/http*.c. */
#ifndef MCP_SERVER_HTTP_INTERNAL_H
#define MCP_SERVER_HTTP_INTERNAL_H

#include "server/internal.h"
#include "transport/http_server.h"

struct hpeer;

struct http_listener {
    mcp_server *server;
    mcp__http_server *http;
    mcp_server_http_options opts; /* its strings are not kept */
    uint64_t next_route;
    struct hpeer *sessions; /* 2025 sessions */
    size_t nsessions;
    struct hpeer *finished; /* peers whose connection ends next turn */
    uv_timer_t reaper, expiry;
    int open_handles;
    bool closing;
};

/* http_check.c: whether the headers of a 2026-07-28 request agree with its
 * body (streamable-http.mdx, "Server Validation"): MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name, and Mcp-Param-{Name} for the tool's parameters
 * marked x-mcp-header. False with the reason in why (for a -32020). */
bool mcp__http_headers_match(mcp__http_exchange *x, const mcp_message *m, http_listener *l,
                             char *why, size_t why_size);

#endif
