/*
 * The server: a session in server role on a byte-stream connection, with
 * tools/list and tools/call, driven by a libuv loop on the serving thread.
 *
 * End of input: the session closes, which cancels every call in flight
 * (reason "connection closed", the tokens fire); the server then waits, up
 * to the shutdown grace, for handlers to return and for queued output to
 * drain, and returns. Handlers still running after that are abandoned: their
 * threads are not joined and the memory they can reach is not freed.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/mem.h"
#include "server/internal.h"

/* Logging ------------------------------------------------------------------- */

static void log_record(mcp_server *s, const mcp_log_record *r)
{
    if (s->opts.log)
        s->opts.log(s->opts.log_user_data, r);
    else
        mcp__stderr_log(&s->default_logger, r);
}

void mcp__server_log(mcp_server *s, mcp_log_level level, const char *fmt, ...)
{
    mcp_log_level min = s->opts.log ? s->opts.log_level : s->default_logger.level;
    if (level < min)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mcp_log_record r = {level, MCP_LOG_EVENT_GENERAL, text, NULL, NULL, NULL, NULL, -1};
    log_record(s, &r);
}

/* Creation -------------------------------------------------------------------- */

int mcp_server_new(const mcp_server_options *opts, mcp_server **out)
{
    *out = NULL;
    mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return MCP_ERR_NOMEM;
    if (opts)
        s->opts = *opts;
    mcp__mem_init(&s->mem, NULL);
    s->name = strdup(s->opts.name ? s->opts.name : "libmcp");
    s->version = strdup(s->opts.version ? s->opts.version : mcp_version());
    s->instructions = s->opts.instructions ? strdup(s->opts.instructions) : NULL;
    if (!s->name || !s->version || (s->opts.instructions && !s->instructions)) {
        mcp_server_free(s);
        return MCP_ERR_NOMEM;
    }
    s->opts.name = s->name;
    s->opts.version = s->version;
    s->opts.instructions = s->instructions;
    s->default_logger.prefix = s->name;
    s->default_logger.level = mcp__log_level_from_env(
        s->opts.log_level ? s->opts.log_level : MCP_LOG_INFO);
    atomic_init(&s->live_calls, 0);
    *out = s;
    return MCP_OK;
}

void mcp_server_free(mcp_server *s)
{
    if (!s || s->serving)
        return;
    if (atomic_load(&s->live_calls) > 0) {
        /* Abandoned handlers may still reach the server: free nothing they
         * can touch; a later call, once they are done, frees it all. */
        return;
    }
    if (s->abandoned_pool) {
        mcp__pool_join(s->abandoned_pool); /* its last handler has returned */
        mcp__poster_destroy(&s->poster);
    }
    mcp__server_free_tools(s);
    mcp_json_doc_free(s->empty_args);
    free(s->name);
    free(s->version);
    free(s->instructions);
    free(s);
}

/* Session callbacks ---------------------------------------------------------------- */

static void on_send(void *ud, uint64_t route, const char *data, size_t len)
{
    mcp_server *s = ud;
    mcp__conn_write(s->conn, data, len);
}


static void on_request(void *ud, mcp_handle h, const mcp_message *msg)
{
    mcp_server *s = ud;
    if (mcp_message_method_is(msg, "tools/call")) {
        mcp__server_tools_call(s, h, msg);
    } else if (mcp_message_method_is(msg, "tools/list")) {
        /* One page: a cursor can only be one we never issued. */
        if (mcp_json_object_get(msg->params, "cursor"))
            mcp_session_reply_error(s->session, h, MCP_WIRE_INVALID_PARAMS,
                                    "Invalid params: unknown cursor", NULL);
        else
            mcp_session_reply_raw(s->session, h, s->tools_list, s->tools_list_len);
    } else {
        char text[160];
        snprintf(text, sizeof text, "Method not found: %.*s",
                 msg->method_len > 100 ? 100 : (int)msg->method_len, msg->method);
        mcp_session_reply_error(s->session, h, MCP_WIRE_METHOD_NOT_FOUND, text, NULL);
    }
}

static void on_cancel(void *ud, mcp_handle h, const char *reason)
{
    mcp__server_call_cancelled(ud, h, reason);
}

static void on_notification(void *ud, const mcp_message *msg)
{
    mcp__server_log(ud, MCP_LOG_DEBUG, "notification %s ignored", msg->method);
}

static void on_session_log(void *ud, const mcp_log_record *r)
{
    mcp_server *s = ud;
    mcp_log_level min = s->opts.log ? s->opts.log_level : s->default_logger.level;
    if (r->level >= min)
        log_record(s, r);
}

/* Time ------------------------------------------------------------------------------ */

static void session_timer_cb(uv_timer_t *t)
{
    mcp_server *s = t->data;
    mcp_session_tick(s->session, mcp__now_ms());
    mcp__server_rearm(s);
}

void mcp__server_rearm(mcp_server *s)
{
    uint64_t due = mcp_session_next_deadline(s->session);
    if (due == UINT64_MAX) {
        uv_timer_stop(&s->session_timer);
        return;
    }
    uint64_t now = mcp__now_ms();
    uv_timer_start(&s->session_timer, session_timer_cb, due > now ? due - now : 0, 0);
}

/* Connection ------------------------------------------------------------------------- */

static void shutdown_check(uv_timer_t *t)
{
    mcp_server *s = t->data;
    size_t live = atomic_load(&s->live_calls);
    if (live == 0 && mcp__conn_unwritten(s->conn) == 0) {
        uv_stop(&s->loop);
        return;
    }
    if (mcp__now_ms() >= s->shutdown_deadline) {
        if (live)
            mcp__server_log(s, MCP_LOG_WARN,
                            "%zu handler(s) still running after the %llu ms grace: abandoned",
                            live, (unsigned long long)(s->opts.shutdown_grace_ms));
        uv_stop(&s->loop);
    }
}

static void begin_shutdown(mcp_server *s, const char *why)
{
    if (s->input_ended)
        return;
    s->input_ended = true;
    size_t n = mcp_session_inbound_count(s->session);
    mcp__server_log(s, n ? MCP_LOG_INFO : MCP_LOG_DEBUG, "%s: cancelling %zu call(s) in flight",
                    why, n);
    mcp__conn_stop_reading(s->conn);
    mcp_session_close(s->session, mcp__now_ms());
    uv_timer_stop(&s->session_timer);
    s->shutdown_deadline = mcp__now_ms() + s->opts.shutdown_grace_ms;
    uv_timer_start(&s->shutdown_timer, shutdown_check, 0, 10);
}

static void on_line(void *ud, const char *line, size_t len)
{
    mcp_server *s = ud;
    mcp_session_receive(s->session, mcp__now_ms(), 0, line, len);
    mcp__server_rearm(s);
}

static void on_bad_line(void *ud, int status, size_t len)
{
    mcp__server_log(ud, MCP_LOG_WARN,
                    status == MCP_ERR_LINE_TOO_LONG
                        ? "message of more than %zu bytes exceeds the limit: skipped"
                        : "message of %zu bytes could not be buffered: skipped",
                    len);
}

static void on_eof(void *ud)
{
    begin_shutdown(ud, "end of input");
}

static void on_write_error(void *ud, const char *why)
{
    mcp_server *s = ud;
    mcp__server_log(s, MCP_LOG_ERROR, "cannot write to the client: %s", why);
    begin_shutdown(s, "output failed");
}

static void on_trace(void *ud, bool outgoing, const char *line, size_t len)
{
    mcp_server *s = ud;
    s->opts.trace(s->opts.trace_user_data, outgoing, line, len);
}

/* Serving -------------------------------------------------------------------------------- */

static int start(mcp_server *s, int in_fd, int out_fd)
{
    if (!s->opts.shutdown_grace_ms)
        s->opts.shutdown_grace_ms = 2000;
    int rc = mcp__server_build_tools_list(s);
    if (rc)
        return rc;
    if (!s->empty_args) {
        s->empty_args = mcp_json_doc_new(NULL);
        if (!s->empty_args)
            return MCP_ERR_NOMEM;
        mcp_json_doc_set_root(s->empty_args, mcp_json_new_object(s->empty_args));
        if (mcp_json_doc_error(s->empty_args))
            return MCP_ERR_NOMEM;
    }
    s->pool = mcp__pool_new(s->opts.worker_threads);
    if (!s->pool)
        return MCP_ERR_NOMEM;
    if (mcp__poster_init(&s->poster, &s->loop) != MCP_OK)
        return MCP_ERR_IO;

    mcp_json_doc *caps;
    rc = mcp_json_parse("{\"tools\":{\"listChanged\":false}}", 31, NULL, NULL, &caps, NULL);
    if (rc)
        return rc;
    mcp_session_options so = {
        .role = MCP_ROLE_SERVER,
        .name = s->name,
        .version = s->version,
        .instructions = s->instructions,
        .capabilities = mcp_json_doc_root(caps),
        .max_inbound = s->opts.max_in_flight,
        .max_message = s->opts.max_message,
    };
    mcp_session_callbacks cb = {on_send, on_request, on_cancel, on_notification, NULL,
                                on_session_log, s};
    rc = mcp_session_new(&so, &cb, &s->session);
    mcp_json_doc_free(caps);
    if (rc)
        return rc;
    mcp__conn_handlers h = {on_line, on_bad_line, on_eof, on_write_error,
                            s->opts.trace ? on_trace : NULL, s};
    s->conn = mcp__conn_new(&s->loop, s->opts.max_message, &h);
    if (!s->conn)
        return MCP_ERR_NOMEM;
    uv_timer_init(&s->loop, &s->session_timer);
    uv_timer_init(&s->loop, &s->shutdown_timer);
    s->session_timer.data = s->shutdown_timer.data = s;
    s->timers_started = true;
    return mcp__conn_open_fds(s->conn, in_fd, out_fd);
}

int mcp_server_serve_fds(mcp_server *s, int in_fd, int out_fd)
{
    if (s->serving)
        return MCP_ERR_STATE;
    s->serving = true;
    s->input_ended = false;
    mcp__ignore_sigpipe();
    uv_loop_init(&s->loop);
    s->loop.data = s;
    int rc = start(s, in_fd, out_fd);
    if (rc == MCP_OK) {
        mcp__server_log(s, MCP_LOG_DEBUG, "serving %zu tool(s), pid %ld", s->ntools,
                        (long)getpid());
        uv_run(&s->loop, UV_RUN_DEFAULT);
    } else {
        mcp__server_log(s, MCP_LOG_ERROR, "cannot serve: %s", mcp_strerror(rc));
    }

    /* Tear down: everything on this loop, then the loop. */
    if (s->conn)
        mcp__conn_close(s->conn, NULL, NULL);
    s->conn = NULL;
    if (s->timers_started) {
        uv_close((uv_handle_t *)&s->session_timer, NULL);
        uv_close((uv_handle_t *)&s->shutdown_timer, NULL);
        s->timers_started = false;
    }
    bool abandoned = atomic_load(&s->live_calls) > 0;
    bool poster = s->poster.open;
    if (poster)
        mcp__poster_close(&s->poster);
    uv_run(&s->loop, UV_RUN_DEFAULT);
    uv_loop_close(&s->loop);
    if (poster && !abandoned)
        mcp__poster_destroy(&s->poster); /* no thread can post any more */
    if (s->pool) {
        mcp__pool_stop(s->pool);
        if (abandoned)
            s->abandoned_pool = s->pool; /* joined by mcp_server_free later */
        else
            mcp__pool_join(s->pool); /* all handlers returned: joins at once */
        s->pool = NULL;
    }
    mcp_session_free(s->session);
    s->session = NULL;
    mcp__server_calls_free(s);
    s->serving = false;
    return rc;
}

int mcp_server_serve_stdio(mcp_server *s)
{
    return mcp_server_serve_fds(s, STDIN_FILENO, STDOUT_FILENO);
}
