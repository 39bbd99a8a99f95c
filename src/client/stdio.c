/* SPDX-License-Identifier: MIT */
/*
 * The server process of a stdio client: spawning it with pipes (in a
 * session of its own), keeping its stderr, hearing its exit, and stopping it
 * the way the spec says: close its stdin, wait, SIGTERM, wait, SIGKILL,
 * reading (and tracing) whatever it still says meanwhile.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "transport/ndjson_stream.h"

/* After end of output, the exit status usually follows within moments: wait
 * for it (at most EOF_WAIT_MS) so the error can say why the server went
 * away. Nothing can arrive any more, so only the report waits. */
#define EOF_WAIT_MS 100

static void connection_lost(mcp_client *c)
{
    uv_timer_stop(&c->eof_timer);
    if (!c->error[0])
        mcp__client_set_error(c, "the server closed its output");
    mcp__client_end(c);
}

static void eof_waited(uv_timer_t *t)
{
    connection_lost(t->data);
}

static void write_failed(mcp_client *c, const char *why)
{
    /* A write fails when the server has gone: say how, even before the
     * loop has handled its exit (it may not run again). */
    int status;
    if (mcp__child_peek_exit(c->child, &status))
        mcp__client_set_error(c, status >= 128 ? "the server was killed by signal %d"
                                               : "the server exited with status %d",
                              status >= 128 ? status - 128 : status);
    else
        mcp__client_set_error(c, "cannot write to the server: %s", why);
}

static void transport_down(mcp_client *c, bool input, const char *why)
{
    if (!input) {
        if (c->state != CL_CLOSING)
            write_failed(c, why);
        mcp__client_end(c);
        return;
    }
    c->input_ended = true;
    if (c->child_exited || !c->child)
        connection_lost(c);
    else
        uv_timer_start(&c->eof_timer, eof_waited, EOF_WAIT_MS, 0);
}

static void on_child_exit(void *ud, int status)
{
    mcp_client *c = ud;
    c->child_exited = true;
    c->child_status = status;
    uv_stop(&c->loop); /* a wait for the exit is over */
    /* After a failed write the first cause stands: the server may well
     * exit because its input was closed by that failure. */
    bool write_failed = c->driver_open && c->driver.failure;
    if (c->state != CL_CLOSING && !write_failed)
        mcp__client_set_error(c, status >= 128 ? "the server was killed by signal %d"
                                               : "the server exited with status %d",
                              status >= 128 ? status - 128 : status);
    /* Its output pipe reports end of file once drained, which ends the
     * session, so responses written just before the exit are still read. */
    if (c->input_ended)
        connection_lost(c);
}

static void on_child_stderr(void *ud, const char *data, size_t len)
{
    mcp_client *c = ud;
    size_t room = c->stderr_buf.limit - c->stderr_buf.len;
    mcp_buf_append(&c->stderr_buf, data, len < room ? len : room);
}

static void on_trace(void *ud, bool outgoing, const char *line, size_t len)
{
    mcp_client *c = ud;
    c->opts.trace(c->opts.trace_user_data, outgoing, line, len);
}

/* Start the command and connect over its pipes. */
static int start(mcp_client *c)
{
    c->error[0] = '\0';
    c->child_exited = false;
    c->input_ended = false;
    mcp__ignore_sigpipe();
    mcp__ndjson_options no = {.max_line = c->opts.max_message,
                              .max_queued = c->opts.max_output,
                              .trace = c->opts.trace ? on_trace : NULL,
                              .trace_ud = c};
    mcp__transport *inner = mcp__ndjson_new(&c->loop, &no);
    mcp__transport *t = inner && c->wrap_transport ? c->wrap_transport(c->wrap_ud, inner) : inner;
    if (!t)
        return MCP_ERR_NOMEM;
    int rc = mcp__client_open(c, t);
    if (rc != MCP_OK)
        return rc;
    mcp__child_options co = {(const char *const *)c->argv, (const char *const *)c->env, c->cwd,
                             c->opts.capture_stderr, on_child_exit, on_child_stderr, c};
    uv_stream_t *in, *out;
    if (mcp__child_spawn(&c->loop, &co, &c->child, &in, &out, c->error, sizeof c->error) != 0) {
        char why[sizeof c->error];
        memcpy(why, c->error, sizeof why);
        c->child = NULL;
        mcp__client_end(c);
        mcp__client_release_driver(c);
        memcpy(c->error, why, sizeof why);
        return MCP_ERR_SPAWN;
    }
    mcp__ndjson_adopt(inner, out, in); /* the sink is in place: reading starts */
    rc = mcp__client_connect(c);
    if (rc != MCP_OK)
        mcp__client_teardown(c); /* no server left running after a failed connect */
    return rc;
}

int mcp_client_connect_stdio(mcp_client *c, const char *const *argv)
{
    if (c->state != CL_NEW) {
        mcp__client_set_error(c, c->state == CL_CLOSED ? "the client is closed"
                                                       : "the client is already connected");
        return MCP_ERR_STATE;
    }
    if (!argv || !argv[0])
        return MCP_ERR_INVALID_ARG;
    char **copy = mcp__client_copy_strings(argv);
    if (!copy)
        return MCP_ERR_NOMEM;
    /* After a failed connect: another command, or the same one again. */
    mcp__client_free_strings(c->argv);
    c->argv = copy;
    c->link = &mcp__client_stdio_link;
    c->era_mode = c->opts.connect_mode;
    c->era_version = NULL;
    int rc = start(c);
    c->connected_once = rc == MCP_OK;
    return rc;
}

int mcp__client_connect_fds(mcp_client *c, int in_fd, int out_fd)
{
    if (c->state != CL_NEW)
        return MCP_ERR_STATE;
    /* The stdio link without a child: stopping ends our output and closes,
     * and the end of input ends the conversation at once. Not started
     * again by mcp_client_reconnect: there is no command. */
    c->link = &mcp__client_stdio_link;
    c->era_mode = c->opts.connect_mode;
    c->era_version = NULL;
    c->error[0] = '\0';
    c->child_exited = false;
    c->input_ended = false;
    mcp__ignore_sigpipe();
    mcp__ndjson_options no = {.max_line = c->opts.max_message,
                              .max_queued = c->opts.max_output,
                              .trace = c->opts.trace ? on_trace : NULL,
                              .trace_ud = c};
    mcp__transport *t = mcp__ndjson_new(&c->loop, &no);
    if (!t)
        return MCP_ERR_NOMEM;
    int rc = mcp__client_open(c, t);
    if (rc != MCP_OK)
        return rc;
    if (mcp__ndjson_open_fds(t, in_fd, out_fd) != MCP_OK) {
        mcp__client_set_error(c, "cannot use descriptors %d and %d", in_fd, out_fd);
        mcp__client_end(c);
        mcp__client_release_driver(c);
        return MCP_ERR_IO;
    }
    rc = mcp__client_connect(c);
    if (rc != MCP_OK)
        mcp__client_teardown(c);
    return rc;
}

/* Stopping the process -------------------------------------------------------------- */

static bool child_gone(mcp_client *c, void *arg)
{
    return !c->child || c->child_exited;
}

static void stop_child(mcp_client *c)
{
    uint64_t grace = c->opts.close_grace_ms;
    int group = mcp__child_pid(c->child); /* its own (a session of its own) */
    mcp__transport *t = c->driver_open ? c->driver.transport : NULL;
    if (t && t->ops->end_output)
        t->ops->end_output(t); /* the server sees end of input */
    mcp__client_run_until(c, child_gone, NULL, mcp__now_ms() + grace);
    bool signalled = !child_gone(c, NULL);
    if (!child_gone(c, NULL)) {
        mcp__child_kill_group(c->child, SIGTERM);
        mcp__client_run_until(c, child_gone, NULL, mcp__now_ms() + grace);
    }
    if (!child_gone(c, NULL)) {
        mcp__child_kill_group(c->child, SIGKILL);
        mcp__client_run_until(c, child_gone, NULL, mcp__now_ms() + grace);
    }
    /* A wrapper (sh -c, npx) that went on SIGTERM leaves what it started,
     * which may ignore it: the group goes too. Its id is not given out
     * again while a member lives. */
    if (signalled && group > 0)
        kill(-group, SIGKILL);
    mcp__child_close(c->child);
    c->child = NULL;
}

const mcp__client_link mcp__client_stdio_link = {start, stop_child, transport_down,
                                                   write_failed};

const char *mcp_client_stderr(const mcp_client *c, size_t *len)
{
    if (len)
        *len = c->stderr_buf.len;
    return c->stderr_buf.data ? c->stderr_buf.data : "";
}

int mcp_client_server_pid(const mcp_client *c)
{
    return mcp__child_pid(c->child);
}

bool mcp_client_child_exited(const mcp_client *c, int *status)
{
    if (c->child_exited && status)
        *status = c->child_status;
    return c->child_exited;
}
