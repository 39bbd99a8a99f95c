/* SPDX-License-Identifier: MIT */
/*
 * The transport vtable: what the driver (src/runtime/driver.c) needs from
 * any way of carrying messages, and what a transport tells it. Three
 * implement it: the ndjson stream (stdio, pipes to a spawned server), the
 * HTTP client (src/transport/http_client.c) and, on the server, each HTTP
 * peer (a 2025 session or one 2026-07-28 request, src/server). Routes: 0 is
 * the connection's main channel; a transport with a stream per request
 * (HTTP) names each stream with its own route.
 *
 * Threads: loop thread only, like the driver.
 *
 * Re-entrancy: any send may fail and end the transport under its caller; a
 * transport reports that by returning an error from send, never by freeing
 * itself: it is freed only by close, once its handles are closed.
 */
#ifndef MCP_TRANSPORT_TRANSPORT_H
#define MCP_TRANSPORT_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mcp__transport mcp__transport;

/* What the transport tells its owner (the driver). All on the loop thread. */
typedef struct mcp__transport_sink {
    /* One complete message (without its newline). Returns what the session
     * made of it (mcp_session_receive): MCP_ERR_RPC_PARSE tells a transport
     * that knows which request the bytes answer that the session could not
     * read their id. */
    int (*message)(void *ud, uint64_t route, const char *data, size_t len);
    /* A message over the cap (`limit` bytes) was dropped; head and tail are
     * its first and last bytes, borrowed for the call. */
    void (*oversized)(void *ud, uint64_t route, const char *head, size_t head_len,
                      const char *tail, size_t tail_len, size_t limit);
    /* The peer closed `route` (never 0). */
    void (*route_closed)(void *ud, uint64_t route);
    /* No more input will come: end of file (failed false), or a read
     * error (failed true). */
    void (*input_ended)(void *ud, const char *why, bool failed);
    /* Output failed after send had accepted it (the peer went away). */
    void (*output_failed)(void *ud, const char *why);
    void *ud;
} mcp__transport_sink;

typedef struct mcp__transport_ops {
    /* Queue len bytes (complete lines) on route. Never blocks. MCP_OK, or an
     * error when they cannot be delivered: MCP_ERR_STATE (closed or
     * failed), MCP_ERR_LIMIT (the output cap: the peer is not reading),
     * MCP_ERR_NOMEM, MCP_ERR_IO. */
    int (*send)(mcp__transport *t, uint64_t route, const char *data, size_t len);
    /* End one route (an HTTP response stream); no-op for transports
     * without routes. */
    void (*close_route)(mcp__transport *t, uint64_t route);
    /* Close everything; done (may be NULL) runs once it is all released,
     * after which t is freed. Safe inside any callback of t. */
    void (*close)(mcp__transport *t, void (*done)(void *ud), void *ud);
    /* Optional (may be NULL). */
    void (*flush)(mcp__transport *t);              /* hand queued bytes over now */
    size_t (*unwritten)(const mcp__transport *t);  /* bytes not yet written */
    void (*end_output)(mcp__transport *t);         /* flush, then end the output */
    void (*stop_input)(mcp__transport *t);         /* read no more */
    /* The error response to come on route refuses for want of capacity,
     * to be tried again in retry_after_s seconds (HTTP: status 503 with
     * Retry-After). Transports that cannot say so leave it NULL. */
    void (*unavailable)(mcp__transport *t, uint64_t route, unsigned retry_after_s);
} mcp__transport_ops;

struct mcp__transport {
    const mcp__transport_ops *ops;
    mcp__transport_sink sink; /* set by the owner before any I/O */
};

#endif
