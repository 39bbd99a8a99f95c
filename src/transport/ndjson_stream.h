/* SPDX-License-Identifier: MIT */
/*
 * NDJSON over a byte stream: the transport of stdio (a server's own
 * stdin/stdout, a client's pipes to a spawned server), implementing the
 * transport vtable with one route (0). A read side split into lines, and a
 * write side that coalesces messages into as few writes as possible behind
 * a capped queue. Loop thread only.
 */
#ifndef MCP_TRANSPORT_NDJSON_STREAM_H
#define MCP_TRANSPORT_NDJSON_STREAM_H

#include <stdbool.h>
#include <uv.h>

#include "mcp/jsonrpc.h"
#include "transport/transport.h"

/* Default cap on bytes queued for writing. */
#define MCP__NDJSON_MAX_QUEUED ((size_t)64 << 20)

typedef struct mcp__ndjson_options {
    size_t max_line;   /* longest message read; 0: MCP_LINE_DEFAULT_MAX */
    size_t max_queued; /* bytes waiting to be written; 0: MCP__NDJSON_MAX_QUEUED */
    /* Input flow control: past this many bytes waiting to be written,
     * stop reading until half of them are written (0: never; a server's
     * setting, never a client's). */
    size_t pause_input_above;
    /* Every message, both directions, as it crosses (optional). */
    void (*trace)(void *ud, bool outgoing, const char *line, size_t len);
    void *trace_ud;
} mcp__ndjson_options;

/* A new stream transport (no descriptors yet), or NULL when out of memory.
 * Freed by its close op. */
mcp__transport *mcp__ndjson_new(uv_loop_t *loop, const mcp__ndjson_options *o);

/* Use in_fd/out_fd (pipe, socket, tty or regular file): for stdin/stdout.
 * The descriptors are not closed. Reading starts at once: set the sink
 * first. MCP_OK or MCP_ERR_IO. */
int mcp__ndjson_open_fds(mcp__transport *t, int in_fd, int out_fd);

/* Use streams created elsewhere (uv_spawn's pipes): the transport takes
 * ownership and closes them. Reading starts at once. */
void mcp__ndjson_adopt(mcp__transport *t, uv_stream_t *in, uv_stream_t *out);

/* Why the output failed, or NULL while it works. Borrowed. */
const char *mcp__ndjson_failure(const mcp__transport *t);

#endif
