/*
 * The client: a session in client role over a spawned server's pipes, on a
 * libuv loop the caller drives (synchronous calls, mcp_client_run).
 *
 * Shutdown follows the spec for stdio: close the server's stdin, wait, then
 * SIGTERM, wait, then SIGKILL, reading (and tracing) whatever the server
 * still says meanwhile; calls in flight end with MCP_ERR_CLOSED.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"
#include "runtime/log.h"
#include "transport/child.h"
#include "transport/conn.h"
#include "mcp/client.h"

#define STDERR_CAP ((size_t)1 << 20)

typedef enum { CL_NEW, CL_CONNECTING, CL_READY, CL_CLOSING, CL_CLOSED } client_state;

struct mcp_client {
    mcp_client_options opts;
    char *name, *version, *cwd;
    char **env;
    mcp__stderr_logger default_logger;

    client_state state;
    uv_loop_t loop;
    bool loop_open;
    mcp__poster poster;
    uv_timer_t session_timer, wake_timer, eof_timer;
    mcp_session *session;
    mcp__conn *conn;
    mcp__child *child;
    bool child_exited;
    int child_status;
    bool input_ended;
    size_t pending;
    char error[512];
    mcp_buf stderr_buf;
};

typedef struct client_call {
    mcp_client *client;
    mcp_call_done_fn done;
    void *user_data;
    mcp_client_progress_fn on_progress;
    void *progress_user_data;
} client_call;

/* Errors and logging ------------------------------------------------------------ */

__attribute__((format(printf, 2, 3)))
static void set_error(mcp_client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
}

const char *mcp_client_error(const mcp_client *c)
{
    return c->error;
}

static void on_session_log(void *ud, const mcp_log_record *r)
{
    mcp_client *c = ud;
    if (c->opts.log) {
        if (r->level >= c->opts.log_level)
            c->opts.log(c->opts.log_user_data, r);
    } else {
        mcp__stderr_log(&c->default_logger, r);
    }
}

/* Creation ------------------------------------------------------------------------ */

static char **copy_env(const char *const *env)
{
    if (!env)
        return NULL;
    size_t n = 0;
    while (env[n])
        n++;
    char **copy = calloc(n + 1, sizeof *copy);
    if (!copy)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(copy[i] = strdup(env[i]))) {
            while (i--)
                free(copy[i]);
            free(copy);
            return NULL;
        }
    return copy;
}

int mcp_client_new(const mcp_client_options *opts, mcp_client **out)
{
    *out = NULL;
    mcp_client *c = calloc(1, sizeof *c);
    if (!c)
        return MCP_ERR_NOMEM;
    if (opts)
        c->opts = *opts;
    c->name = strdup(c->opts.name ? c->opts.name : "libmcp");
    c->version = strdup(c->opts.version ? c->opts.version : mcp_version());
    c->cwd = c->opts.cwd ? strdup(c->opts.cwd) : NULL;
    c->env = copy_env(c->opts.env);
    if (!c->name || !c->version || (c->opts.cwd && !c->cwd) || (c->opts.env && !c->env)) {
        mcp_client_free(c);
        return MCP_ERR_NOMEM;
    }
    if (!c->opts.close_grace_ms)
        c->opts.close_grace_ms = 2000;
    if (!c->opts.connect_timeout_ms)
        c->opts.connect_timeout_ms = 30000;
    c->default_logger.prefix = "mcp";
    c->default_logger.level =
        mcp__log_level_from_env(c->opts.log_level ? c->opts.log_level : MCP_LOG_WARN);
    mcp_buf_init(&c->stderr_buf, STDERR_CAP, NULL);
    *out = c;
    return MCP_OK;
}

/* Time ------------------------------------------------------------------------------ */

static void rearm(mcp_client *c);

static void session_timer_cb(uv_timer_t *t)
{
    mcp_client *c = t->data;
    mcp_session_tick(c->session, mcp__now_ms());
    rearm(c);
}

static void rearm(mcp_client *c)
{
    if (!c->session)
        return;
    uint64_t due = mcp_session_next_deadline(c->session);
    if (due == UINT64_MAX) {
        uv_timer_stop(&c->session_timer);
        return;
    }
    uint64_t now = mcp__now_ms();
    uv_timer_start(&c->session_timer, session_timer_cb, due > now ? due - now : 0, 0);
}

static void wake(uv_timer_t *t)
{
    (void)t; /* only there to end a wait in uv_run(UV_RUN_ONCE) */
}

/* Run the loop until done(c, arg) or the deadline (UINT64_MAX: none). */
typedef bool (*until_fn)(mcp_client *c, void *arg);

static void run_until(mcp_client *c, until_fn done, void *arg, uint64_t deadline)
{
    while (!done(c, arg)) {
        /* Output waits for the end of the loop iteration; send it before
         * blocking in one, or a wait that only our output can end (a
         * flush, a cancel with no answer) would never wake. */
        if (c->conn)
            mcp__conn_flush(c->conn);
        if (done(c, arg))
            break;
        uint64_t now = mcp__now_ms();
        if (deadline != UINT64_MAX) {
            if (now >= deadline)
                break;
            uv_timer_start(&c->wake_timer, wake, deadline - now, 0);
        }
        if (uv_run(&c->loop, UV_RUN_ONCE) == 0 && !done(c, arg))
            break; /* nothing left that could change anything */
    }
    uv_timer_stop(&c->wake_timer);
}

/* Connection events ---------------------------------------------------------------------- */

static void end_session(mcp_client *c)
{
    if (c->session)
        mcp_session_close(c->session, mcp__now_ms());
    rearm(c);
}

static void on_line(void *ud, const char *line, size_t len)
{
    mcp_client *c = ud;
    mcp_session_receive(c->session, mcp__now_ms(), 0, line, len);
    rearm(c);
}

static void on_bad_line(void *ud, int status, size_t len)
{
    mcp_client *c = ud;
    mcp_log_record r = {MCP_LOG_WARN, MCP_LOG_EVENT_BAD_INPUT,
                        status == MCP_ERR_LINE_TOO_LONG
                            ? "a message from the server exceeded the size limit: skipped"
                            : "a message from the server could not be buffered: skipped",
                        NULL, NULL, NULL, NULL, -1};
    on_session_log(c, &r);
}

/* After end of output, the exit status usually follows within moments: wait
 * for it (at most EOF_WAIT_MS) so the error can say why the server went
 * away. Nothing can arrive any more, so only the report waits. */
#define EOF_WAIT_MS 100

static void connection_lost(mcp_client *c)
{
    uv_timer_stop(&c->eof_timer);
    if (!c->error[0])
        set_error(c, "the server closed its output");
    end_session(c);
}

static void eof_waited(uv_timer_t *t)
{
    connection_lost(t->data);
}

static void on_eof(void *ud)
{
    mcp_client *c = ud;
    c->input_ended = true;
    if (c->child_exited || !c->child)
        connection_lost(c);
    else
        uv_timer_start(&c->eof_timer, eof_waited, EOF_WAIT_MS, 0);
}

static void on_write_error(void *ud, const char *why)
{
    mcp_client *c = ud;
    set_error(c, "cannot write to the server: %s", why);
    end_session(c);
}

static void on_trace(void *ud, bool outgoing, const char *line, size_t len)
{
    mcp_client *c = ud;
    c->opts.trace(c->opts.trace_user_data, outgoing, line, len);
}

static void on_child_exit(void *ud, int status)
{
    mcp_client *c = ud;
    c->child_exited = true;
    c->child_status = status;
    if (c->state != CL_CLOSING)
        set_error(c, status >= 128 ? "the server was killed by signal %d"
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

static void on_send(void *ud, uint64_t route, const char *data, size_t len)
{
    mcp_client *c = ud;
    mcp__conn_write(c->conn, data, len);
}

/* Connecting ---------------------------------------------------------------------------------- */

typedef struct init_wait {
    mcp_client *client;
    bool done;
    int outcome;
} init_wait;

static void init_done(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    init_wait *w = ud;
    mcp_client *c = w->client;
    w->done = true;
    w->outcome = outcome;
    if (outcome == MCP_ERR_REMOTE)
        set_error(c, "the server refused initialize: %.*s", (int)m->error_message_len,
                  m->error_message);
    else if (outcome == MCP_ERR_PROTOCOL)
        set_error(c, "the server answered with a protocol version this client does not speak");
    else if (outcome == MCP_ERR_TIMED_OUT)
        set_error(c, "the server did not answer initialize within %llu ms",
                  (unsigned long long)c->opts.connect_timeout_ms);
}

static bool init_finished(mcp_client *c, void *arg)
{
    return ((init_wait *)arg)->done;
}

int mcp_client_connect_stdio(mcp_client *c, const char *const *argv)
{
    if (c->state != CL_NEW)
        return MCP_ERR_STATE;
    if (!argv || !argv[0])
        return MCP_ERR_INVALID_ARG;
    c->error[0] = '\0';
    mcp__ignore_sigpipe();
    if (uv_loop_init(&c->loop) != 0)
        return MCP_ERR_IO;
    c->loop_open = true;
    uv_timer_init(&c->loop, &c->session_timer);
    uv_timer_init(&c->loop, &c->wake_timer);
    uv_timer_init(&c->loop, &c->eof_timer);
    c->session_timer.data = c->wake_timer.data = c->eof_timer.data = c;
    if (mcp__poster_init(&c->poster, &c->loop) != MCP_OK)
        return MCP_ERR_IO;
    c->state = CL_CONNECTING;

    mcp_session_options so = {.role = MCP_ROLE_CLIENT,
                              .name = c->name,
                              .version = c->version,
                              .timeout_ms = c->opts.timeout_ms,
                              .max_time_ms = c->opts.max_time_ms,
                              .max_message = c->opts.max_message};
    mcp_session_callbacks cb = {on_send, NULL, NULL, NULL, NULL, on_session_log, c};
    int rc = mcp_session_new(&so, &cb, &c->session);
    if (rc)
        return rc;
    mcp__conn_handlers h = {on_line, on_bad_line, on_eof, on_write_error,
                            c->opts.trace ? on_trace : NULL, c};
    c->conn = mcp__conn_new(&c->loop, c->opts.max_message, &h);
    if (!c->conn)
        return MCP_ERR_NOMEM;
    mcp__child_options co = {argv, (const char *const *)c->env, c->cwd, c->opts.capture_stderr,
                             on_child_exit, on_child_stderr, c};
    uv_stream_t *in, *out;
    if (mcp__child_spawn(&c->loop, &co, &c->child, &in, &out, c->error, sizeof c->error) != 0) {
        c->child = NULL;
        char why[sizeof c->error];
        memcpy(why, c->error, sizeof why);
        mcp_client_close(c); /* nothing to talk to: release everything now */
        memcpy(c->error, why, sizeof why);
        return MCP_ERR_SPAWN;
    }
    mcp__conn_adopt(c->conn, out, in);

    init_wait w = {c, false, 0};
    rc = mcp_session_initialize(c->session, mcp__now_ms(), c->opts.connect_timeout_ms,
                                init_done, &w);
    if (rc)
        return rc;
    rearm(c);
    run_until(c, init_finished, &w, UINT64_MAX);
    if (!w.done) {
        /* The loop ran dry: the connection is gone and initialize was
         * ended by the close (or never will be). */
        w.outcome = MCP_ERR_CLOSED;
    }
    if (w.outcome == MCP_ERR_CLOSED && !c->error[0])
        set_error(c, "the server closed the connection during initialize");
    if (w.outcome != MCP_OK)
        return w.outcome;
    c->state = CL_READY;
    return MCP_OK;
}

const mcp_json *mcp_client_server_info(const mcp_client *c)
{
    return c->session && mcp_session_ready(c->session) ? mcp_session_peer_info(c->session)
                                                       : NULL;
}

const char *mcp_client_protocol_version(const mcp_client *c)
{
    return c->session ? mcp_session_protocol_version(c->session) : NULL;
}

/* Calls ---------------------------------------------------------------------------------------- */

static void fill_result(mcp_call_result *r, mcp_handle h, int outcome, const mcp_message *m)
{
    memset(r, 0, sizeof *r);
    r->outcome = outcome;
    r->handle = h;
    r->response = (mcp_message *)m;
    if (outcome == MCP_OK && m) {
        r->result = m->result;
        bool is_error = false;
        r->is_error = mcp_json_get_bool(mcp_json_object_get(m->result, "isError"), &is_error) ==
                          MCP_OK && is_error;
    } else if (outcome == MCP_ERR_REMOTE && m) {
        r->error_code = m->error_code;
        r->error_message = m->error_message;
    }
}

static void call_ended(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    client_call *cc = ud;
    mcp_client *c = cc->client;
    c->pending--;
    mcp_call_result r;
    fill_result(&r, h, outcome, m);
    cc->done(cc->user_data, &r);
    free(cc);
}

static void call_progress(void *ud, mcp_handle h, double progress, double total,
                          const char *message)
{
    client_call *cc = ud;
    if (cc->on_progress)
        cc->on_progress(cc->progress_user_data, h, progress, total, message);
}

static int request_async(mcp_client *c, const char *method, const mcp_json *params,
                         const mcp_call_options *opts, mcp_call_done_fn done, void *ud,
                         mcp_handle *handle)
{
    if (c->state != CL_READY || !c->session)
        return MCP_ERR_STATE;
    if (!done)
        return MCP_ERR_INVALID_ARG;
    client_call *cc = calloc(1, sizeof *cc);
    if (!cc)
        return MCP_ERR_NOMEM;
    cc->client = c;
    cc->done = done;
    cc->user_data = ud;
    mcp_request_options ro = {0};
    if (opts) {
        cc->on_progress = opts->on_progress;
        cc->progress_user_data = opts->progress_user_data;
        ro.timeout_ms = opts->timeout_ms;
        ro.max_time_ms = opts->max_time_ms;
        ro.progress = opts->progress;
    }
    mcp_handle h;
    int rc = mcp_session_request(c->session, mcp__now_ms(), method, params, &ro, call_ended,
                                 call_progress, cc, &h);
    if (rc != MCP_OK) {
        free(cc);
        return rc;
    }
    c->pending++;
    if (handle)
        *handle = h;
    rearm(c);
    return MCP_OK;
}

int mcp_client_call_tool_async(mcp_client *c, const char *name, const mcp_json *arguments,
                               const mcp_call_options *opts, mcp_call_done_fn done, void *ud,
                               mcp_handle *handle)
{
    if (!name || (arguments && mcp_json_typeof(arguments) != MCP_JSON_OBJECT))
        return MCP_ERR_INVALID_ARG;
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    if (!doc)
        return MCP_ERR_NOMEM;
    mcp_json *params = mcp_json_new_object(doc);
    mcp_json_object_set(doc, params, "name", mcp_json_new_string(doc, name));
    if (arguments)
        mcp_json_object_set(doc, params, "arguments", mcp_json_copy(doc, arguments));
    int rc = mcp_json_doc_error(doc);
    if (rc == MCP_OK)
        rc = request_async(c, "tools/call", params, opts, done, ud, handle);
    mcp_json_doc_free(doc);
    return rc == MCP_ERR_UTF8 ? MCP_ERR_INVALID_ARG : rc;
}

typedef struct sync_wait {
    bool done;
    mcp_call_result *result;
} sync_wait;

static void sync_done(void *ud, const mcp_call_result *r)
{
    sync_wait *w = ud;
    *w->result = *r;
    mcp_message_retain(r->response);
    w->done = true;
}

static bool sync_finished(mcp_client *c, void *arg)
{
    return ((sync_wait *)arg)->done;
}

/* Wait for a synchronous call started with sync_done. */
static int wait_sync(mcp_client *c, sync_wait *w, int rc)
{
    if (rc != MCP_OK) {
        memset(w->result, 0, sizeof *w->result);
        w->result->outcome = rc;
        return rc;
    }
    run_until(c, sync_finished, w, UINT64_MAX);
    if (!w->done) { /* cannot happen while the session is open: ended by close */
        memset(w->result, 0, sizeof *w->result);
        w->result->outcome = MCP_ERR_CLOSED;
    }
    return w->result->outcome;
}

int mcp_client_call_tool(mcp_client *c, const char *name, const mcp_json *arguments,
                         const mcp_call_options *opts, mcp_call_result *result)
{
    sync_wait w = {false, result};
    return wait_sync(c, &w,
                     mcp_client_call_tool_async(c, name, arguments, opts, sync_done, &w, NULL));
}

int mcp_client_request(mcp_client *c, const char *method, const mcp_json *params,
                       const mcp_call_options *opts, mcp_call_result *result)
{
    sync_wait w = {false, result};
    return wait_sync(c, &w, request_async(c, method, params, opts, sync_done, &w, NULL));
}

void mcp_call_result_release(mcp_call_result *r)
{
    mcp_message_free(r->response);
    memset(r, 0, sizeof *r);
}

int mcp_client_list_tools(mcp_client *c, mcp_json_doc **tools)
{
    *tools = NULL;
    mcp_json_doc *out = mcp_json_doc_new(NULL);
    if (!out)
        return MCP_ERR_NOMEM;
    mcp_json *list = mcp_json_new_array(out);
    mcp_json_doc_set_root(out, list);
    char *cursor = NULL;
    int rc;
    for (int page = 0; page < 1000; page++) {
        mcp_json_doc *pd = NULL;
        mcp_json *params = NULL;
        if (cursor) {
            pd = mcp_json_doc_new(NULL);
            params = pd ? mcp_json_new_object(pd) : NULL;
            mcp_json_object_set(pd, params, "cursor", mcp_json_new_string(pd, cursor));
        }
        mcp_call_result r;
        rc = mcp_client_request(c, "tools/list", params, NULL, &r);
        mcp_json_doc_free(pd);
        free(cursor);
        cursor = NULL;
        if (rc != MCP_OK) {
            if (rc == MCP_ERR_REMOTE)
                set_error(c, "tools/list failed: %s", r.error_message);
            mcp_call_result_release(&r);
            break;
        }
        const mcp_json *page_tools = mcp_json_object_get(r.result, "tools");
        for (size_t i = 0; i < mcp_json_array_size(page_tools); i++)
            mcp_json_array_append(out, list, mcp_json_copy(out, mcp_json_array_at(page_tools, i)));
        const char *next = mcp_json_string(mcp_json_object_get(r.result, "nextCursor"), NULL);
        if (next)
            cursor = strdup(next);
        bool has_array = mcp_json_typeof(page_tools) == MCP_JSON_ARRAY;
        mcp_call_result_release(&r); /* page_tools pointed into it */
        if (!has_array) {
            set_error(c, "tools/list: the result has no tools array");
            rc = MCP_ERR_PROTOCOL;
            break;
        }
        if (!cursor)
            break;
    }
    free(cursor);
    if (rc == MCP_OK)
        rc = mcp_json_doc_error(out);
    if (rc != MCP_OK) {
        mcp_json_doc_free(out);
        return rc;
    }
    *tools = out;
    return MCP_OK;
}

/* Cancelling from any thread --------------------------------------------------------------------- */

typedef struct cancel_post {
    mcp__post post;
    mcp_client *client;
    mcp_handle handle;
    char *reason;
} cancel_post;

static void cancel_posted(mcp__post *post)
{
    cancel_post *p = (cancel_post *)post;
    if (p->client->session)
        mcp_session_cancel(p->client->session, mcp__now_ms(), p->handle, p->reason);
    rearm(p->client);
    free(p->reason);
    free(p);
}

int mcp_client_cancel(mcp_client *c, mcp_handle h, const char *reason)
{
    if (!c->loop_open)
        return MCP_ERR_STATE;
    if (mcp__on_loop_thread(&c->poster)) {
        if (!c->session)
            return MCP_ERR_STATE;
        int rc = mcp_session_cancel(c->session, mcp__now_ms(), h, reason);
        rearm(c);
        return rc;
    }
    cancel_post *p = calloc(1, sizeof *p);
    if (!p || (reason && !(p->reason = strdup(reason)))) {
        free(p);
        return MCP_ERR_NOMEM;
    }
    p->post.run = cancel_posted;
    p->client = c;
    p->handle = h;
    if (!mcp__poster_post(&c->poster, &p->post)) {
        free(p->reason);
        free(p);
        return MCP_ERR_STATE;
    }
    return MCP_OK;
}

/* Driving ----------------------------------------------------------------------------------------- */

size_t mcp_client_pending(const mcp_client *c)
{
    return c->pending;
}

static bool nothing_pending(mcp_client *c, void *arg)
{
    return c->pending == 0;
}

int mcp_client_run(mcp_client *c)
{
    if (!c->loop_open)
        return MCP_ERR_STATE;
    run_until(c, nothing_pending, NULL, UINT64_MAX);
    return c->input_ended ? MCP_ERR_CLOSED : MCP_OK;
}

int mcp_client_run_once(mcp_client *c, bool wait)
{
    if (!c->loop_open)
        return MCP_ERR_STATE;
    uv_run(&c->loop, wait ? UV_RUN_ONCE : UV_RUN_NOWAIT);
    return c->input_ended ? MCP_ERR_CLOSED : MCP_OK;
}

static bool flushed(mcp_client *c, void *arg)
{
    return !c->conn || mcp__conn_unwritten(c->conn) == 0;
}

int mcp_client_flush(mcp_client *c)
{
    if (!c->loop_open)
        return MCP_ERR_STATE;
    run_until(c, flushed, NULL, UINT64_MAX);
    return flushed(c, NULL) ? MCP_OK : MCP_ERR_IO;
}

struct uv_loop_s *mcp_client_loop(mcp_client *c)
{
    return c->loop_open ? &c->loop : NULL;
}

const char *mcp_client_stderr(const mcp_client *c, size_t *len)
{
    if (len)
        *len = c->stderr_buf.len;
    return c->stderr_buf.data ? c->stderr_buf.data : "";
}

bool mcp_client_child_exited(const mcp_client *c, int *status)
{
    if (c->child_exited && status)
        *status = c->child_status;
    return c->child_exited;
}

/* Closing --------------------------------------------------------------------------------------------- */

static bool child_gone(mcp_client *c, void *arg)
{
    return !c->child || c->child_exited;
}

void mcp_client_close(mcp_client *c)
{
    if (c->state == CL_CLOSED || !c->loop_open) {
        c->state = CL_CLOSED;
        return;
    }
    c->state = CL_CLOSING;
    uint64_t grace = c->opts.close_grace_ms;
    if (c->conn)
        mcp__conn_close_output(c->conn); /* the server sees end of input */
    run_until(c, child_gone, NULL, mcp__now_ms() + grace);
    if (!child_gone(c, NULL)) {
        mcp__child_kill(c->child, SIGTERM);
        run_until(c, child_gone, NULL, mcp__now_ms() + grace);
    }
    if (!child_gone(c, NULL)) {
        mcp__child_kill(c->child, SIGKILL);
        run_until(c, child_gone, NULL, mcp__now_ms() + grace);
    }
    end_session(c); /* calls still in flight end with MCP_ERR_CLOSED */
    if (c->conn)
        mcp__conn_close(c->conn, NULL, NULL);
    c->conn = NULL;
    mcp__child_close(c->child);
    c->child = NULL;
    uv_close((uv_handle_t *)&c->session_timer, NULL);
    uv_close((uv_handle_t *)&c->wake_timer, NULL);
    uv_close((uv_handle_t *)&c->eof_timer, NULL);
    mcp__poster_close(&c->poster);
    uv_run(&c->loop, UV_RUN_DEFAULT);
    uv_loop_close(&c->loop);
    mcp__poster_destroy(&c->poster);
    c->loop_open = false;
    c->state = CL_CLOSED;
}

void mcp_client_free(mcp_client *c)
{
    if (!c)
        return;
    mcp_client_close(c);
    mcp_session_free(c->session);
    free(c->name);
    free(c->version);
    free(c->cwd);
    if (c->env) {
        for (char **e = c->env; *e; e++)
            free(*e);
        free(c->env);
    }
    mcp_buf_free(&c->stderr_buf);
    free(c);
}
