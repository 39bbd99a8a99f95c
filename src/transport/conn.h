/*
 * A byte-stream connection carrying NDJSON: a read side split into lines,
 * and a write side that coalesces messages into as few writes as possible
 * behind a capped queue. Used for a server's own stdin/stdout and for a
 * client's pipes to a spawned server. Loop thread only.
 */
#ifndef MCP_TRANSPORT_CONN_H
#define MCP_TRANSPORT_CONN_H

#include <stdbool.h>
#include <uv.h>

#include "mcp/jsonrpc.h"

typedef struct mcp__conn mcp__conn;

typedef struct mcp__conn_handlers {
    void (*on_line)(void *ud, const char *line, size_t len);
    /* A line over the cap (status MCP_ERR_LINE_TOO_LONG) or one that could
     * not be buffered (MCP_ERR_NOMEM); it was skipped. */
    void (*on_bad_line)(void *ud, int status, size_t len);
    /* The input ended (end of file or a read error). */
    void (*on_eof)(void *ud);
    /* The output failed (the peer closed its end, or the queue passed its
     * cap because the peer stopped reading). Nothing more will be written. */
    void (*on_write_error)(void *ud, const char *why);
    /* Every message, both directions, as it crosses (optional). */
    void (*trace)(void *ud, bool outgoing, const char *line, size_t len);
    void *ud;
} mcp__conn_handlers;

/* Default cap on bytes queued for writing. */
#define MCP__CONN_MAX_QUEUED ((size_t)64 << 20)

/* Allocate a connection; max_line 0 means the default line cap. */
mcp__conn *mcp__conn_new(uv_loop_t *loop, size_t max_line,
                         const mcp__conn_handlers *h);

/* Use in_fd/out_fd (pipe, socket, tty or regular file): for stdin/stdout. */
int mcp__conn_open_fds(mcp__conn *c, int in_fd, int out_fd);

/* Use streams created elsewhere (uv_spawn's pipes). The connection takes
 * ownership and closes them. */
void mcp__conn_adopt(mcp__conn *c, uv_stream_t *in, uv_stream_t *out);

/* Queue len bytes (complete lines) for writing. Never blocks. MCP_OK,
 * MCP_ERR_STATE (output closed or failed) or MCP_ERR_LIMIT (queue full:
 * on_write_error has been called). */
int mcp__conn_write(mcp__conn *c, const char *data, size_t len);

/* Hand queued bytes to the kernel now rather than at the end of the loop
 * iteration: for callers about to block in the loop waiting for something
 * that only this output can cause. */
void mcp__conn_flush(mcp__conn *c);

/* Bytes accepted but not yet handed to the kernel. */
size_t mcp__conn_unwritten(const mcp__conn *c);

/* Stop reading (further input is ignored). */
void mcp__conn_stop_reading(mcp__conn *c);

/* Flush what is queued, then close the output (the peer sees end of
 * file). */
void mcp__conn_close_output(mcp__conn *c);

/* Close everything; `done` (may be NULL) runs once every handle is closed,
 * after which the connection is freed. */
void mcp__conn_close(mcp__conn *c, void (*done)(void *ud), void *ud);

#endif
