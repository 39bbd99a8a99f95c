/* SPDX-License-Identifier: MIT */
/* Binding the server to byte streams: stdio, or any pair of descriptors. */
#include <unistd.h>

#include "server/core/core.h"
#include "transport/ndjson_stream.h"

static void on_trace(void *ud, bool outgoing, const char *line, size_t len)
{
    mcp_server *s = ud;
    s->opts.trace(s->opts.trace_user_data, outgoing, line, len);
}

int mcp_server_attach_fds(mcp_server *s, int in_fd, int out_fd)
{
    int rc = mcp__server_open_loop(s);
    if (rc != MCP_OK)
        return rc;
    /* Requests are read as fast as the client takes the replies: a slow
     * reader is waited for, only one that stops reading meets the cap. */
    size_t cap = s->opts.max_output ? s->opts.max_output : MCP__NDJSON_MAX_QUEUED;
    size_t pause = cap / 4 < ((size_t)1 << 20) ? cap / 4 : (size_t)1 << 20;
    mcp__ndjson_options o = {.max_line = s->opts.max_message,
                             .max_queued = s->opts.max_output,
                             .pause_input_above = pause ? pause : 1,
                             .trace = s->opts.trace ? on_trace : NULL,
                             .trace_ud = s};
    mcp__transport *t = mcp__ndjson_new(&s->loop, &o);
    if (!t)
        return MCP_ERR_NOMEM;
    rc = mcp__server_attach(s, t);
    if (rc != MCP_OK)
        return rc;
    /* Reading starts now: the connection is attached, its sink set. */
    rc = mcp__ndjson_open_fds(t, in_fd, out_fd);
    if (rc != MCP_OK) {
        mcp__server_log(s, MCP_LOG_ERROR, "cannot serve on descriptors %d/%d", in_fd, out_fd);
        for (conn *c = s->conns; c; c = c->next)
            if (c->driver.transport == t)
                mcp__conn_end(c, "cannot use the descriptors");
    }
    return rc;
}

int mcp_server_serve_fds(mcp_server *s, int in_fd, int out_fd)
{
    if (s->running)
        return MCP_ERR_STATE;
    s->io_failed = false;
    int rc = mcp_server_attach_fds(s, in_fd, out_fd);
    int run = mcp_server_run(s);
    if (rc == MCP_OK && run == MCP_OK && s->io_failed)
        rc = MCP_ERR_IO; /* logged when it happened */
    return rc != MCP_OK ? rc : run;
}

int mcp_server_serve_stdio(mcp_server *s)
{
    return mcp_server_serve_fds(s, STDIN_FILENO, STDOUT_FILENO);
}
