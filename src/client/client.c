/* SPDX-License-Identifier: MIT */
/*
 * The client: a session in client role on the driver, over whatever
 * transport carries it, on a libuv loop the caller drives (synchronous
 * calls, mcp_client_run). Calls, subscriptions, waiting and cancelling
 * live here; what the results of each method must look like, and the
 * lists, resources, prompts and completion, in features.c; the server's
 * questions and the rounds of a 2026-07-28 call in handlers.c; the server
 * process (spawning it, its stderr, its exit, stopping it) in stdio.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "core/opts.h"
#include "jsonrpc/internal.h"
#include "session/entry.h"
#include "session/revision.h"

#define STDERR_CAP ((size_t)1 << 20)

/* Errors and logging ------------------------------------------------------------ */

void mcp__client_set_error(mcp_client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
}

static bool gone(const mcp_client *c)
{
    return !c->driver_open || mcp_session_closed(c->driver.session);
}

/* Why a call cannot start: MCP_ERR_CLOSED once the server went away (the
 * error says how: it died, closed its output, a write failed), with
 * MCP_ERR_STATE kept for a client that never connected or was closed. */
int mcp__client_not_ready(mcp_client *c)
{
    if (c->state == CL_READY && gone(c)) {
        if (!c->error[0])
            mcp__client_set_error(c, c->driver_open && c->driver.failure
                                         ? "cannot write to the server"
                                         : "the server closed the connection");
        return MCP_ERR_CLOSED;
    }
    if (c->state == CL_READY && c->driver_open)
        return MCP_OK;
    mcp__client_set_error(c, c->state == CL_CLOSED ? "the client is closed"
                                                   : "the client is not connected");
    return MCP_ERR_STATE;
}

/* A send that failed inside a session call: the driver tells the client
 * only once the caller is out of the way (runtime/driver.c), but the call
 * that saw MCP_ERR_CLOSED must already be able to say why. */
int mcp__client_note_send_failure(mcp_client *c, int rc)
{
    if (rc != MCP_OK && !c->error[0] && c->driver_open && c->driver.failure)
        c->link->write_failed(c, c->driver.failure);
    return rc;
}

const char *mcp_client_error(const mcp_client *c)
{
    return c->error;
}

static void log_to_client(void *ud, const mcp_log_record *r)
{
    mcp__client_log(ud, r);
}

void mcp__client_say(mcp_client *c, mcp_log_level level, mcp_log_event event, const char *fmt,
                     ...)
{
    va_list ap;
    va_start(ap, fmt);
    mcp__log_vsay(log_to_client, c, level, event, fmt, ap);
    va_end(ap);
}

void mcp__client_log(mcp_client *c, const mcp_log_record *r)
{
    if (c->opts.log) {
        if (r->level >= c->opts.log_level)
            c->opts.log(c->opts.log_user_data, r);
    } else {
        mcp__stderr_log(&c->default_logger, r);
    }
}

/* Creation ------------------------------------------------------------------------ */

char **mcp__client_copy_strings(const char *const *v)
{
    if (!v)
        return NULL;
    size_t n = 0;
    while (v[n])
        n++;
    char **copy = calloc(n + 1, sizeof *copy);
    if (!copy)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(copy[i] = strdup(v[i]))) {
            while (i--)
                free(copy[i]);
            free(copy);
            return NULL;
        }
    return copy;
}

mcp_json_doc *mcp__client_copy_json(const mcp_json *v)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *copy = d ? (v ? mcp_json_copy(d, v) : mcp_json_new_object(d)) : NULL;
    if (!copy || mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        return NULL;
    }
    mcp_json_doc_set_root(d, copy);
    return d;
}

void mcp__client_free_strings(char **v)
{
    if (!v)
        return;
    for (char **e = v; *e; e++)
        free(*e);
    free(v);
}

int mcp_client_new(const mcp_client_options *opts, mcp_client **out)
{
    *out = NULL;
    mcp_client_options o;
    if (mcp__opts_copy(&o, sizeof o, opts) != MCP_OK || o.connect_mode > MCP_CONNECT_MODERN ||
        (o.name && mcp_utf8_validate(o.name, strlen(o.name), NULL)) ||
        (o.version && mcp_utf8_validate(o.version, strlen(o.version), NULL)) ||
        (o.protocol_version && o.connect_mode == MCP_CONNECT_AUTO) ||
        (o.protocol_version &&
         (mcp_protocol_modern(o.protocol_version) != (o.connect_mode == MCP_CONNECT_MODERN))))
        return MCP_ERR_INVALID_ARG;
    mcp_client *c = calloc(1, sizeof *c);
    if (!c)
        return MCP_ERR_NOMEM;
    mcp__poster_init(&c->poster);
    c->opts = o;
    c->name = strdup(o.name ? o.name : "libmcp");
    c->version = strdup(o.version ? o.version : mcp_version());
    c->cwd = o.cwd ? strdup(o.cwd) : NULL;
    c->protocol = o.protocol_version ? strdup(o.protocol_version) : NULL;
    c->env = mcp__client_copy_strings(o.env);
    mcp_buf_init(&c->stderr_buf, STDERR_CAP, NULL);
    int qrc = mcp__questions_init(c, &o);
    if (qrc == MCP_ERR_INVALID_ARG) {
        free(c->name);
        free(c->version);
        free(c->cwd);
        free(c->protocol);
        mcp__client_free_strings(c->env);
        mcp__poster_destroy(&c->poster);
        free(c);
        return MCP_ERR_INVALID_ARG;
    }
    mcp__reserve_std_fds();
    if (!c->name || !c->version || (o.cwd && !c->cwd) || (o.env && !c->env) ||
        (o.protocol_version && !c->protocol) || qrc != MCP_OK || uv_loop_init(&c->loop) != 0) {
        mcp__questions_free(c);
        free(c->name);
        free(c->version);
        free(c->cwd);
        free(c->protocol);
        mcp__client_free_strings(c->env);
        mcp__poster_destroy(&c->poster);
        free(c);
        return MCP_ERR_NOMEM;
    }
    c->opts.protocol_version = c->protocol;
    if (!c->opts.close_grace_ms)
        c->opts.close_grace_ms = 2000;
    if (!c->opts.connect_timeout_ms)
        c->opts.connect_timeout_ms = 30000;
    c->era_mode = o.connect_mode;
    c->era_version = NULL;
    c->default_logger.prefix = "mcp";
    c->default_logger.level =
        mcp__log_level_from_env(c->opts.log_level ? c->opts.log_level : MCP_LOG_WARNING);
    uv_timer_init(&c->loop, &c->wake_timer);
    uv_timer_init(&c->loop, &c->eof_timer);
    c->wake_timer.data = c->eof_timer.data = c;
    if (mcp__poster_open(&c->poster, &c->loop) != MCP_OK) {
        c->state = CL_CLOSED;
        mcp_client_free(c);
        return MCP_ERR_NOMEM;
    }
    *out = c;
    return MCP_OK;
}

/* Waiting ---------------------------------------------------------------------------- */

/* A wait may be over: have the loop return from the iteration it is in
 * rather than block in its next poll. */
static void wake_waiters(mcp_client *c)
{
    uv_stop(&c->loop);
}

static void wake(uv_timer_t *t)
{
    (void)t; /* only there to end a wait in uv_run(UV_RUN_ONCE) */
}

static void flush_output(mcp_client *c)
{
    mcp__transport *t = c->driver_open ? c->driver.transport : NULL;
    if (t && t->ops->flush)
        t->ops->flush(t);
}

void mcp__client_run_until(mcp_client *c, mcp__until_fn done, void *arg, uint64_t deadline)
{
    while (!done(c, arg)) {
        /* Output waits for the end of the loop iteration; send it before
         * blocking in one, or a wait that only our output can end (a
         * flush, a cancel with no answer) would never wake. */
        flush_output(c);
        if (done(c, arg))
            break;
        uint64_t now = mcp__now_ms();
        if (deadline != UINT64_MAX) {
            if (now >= deadline)
                break;
            /* Repeating: if it fires in the timers uv_run runs before it
             * polls (a slow moment, valgrind), a one-shot timer would leave
             * that poll without a timeout, blocked until some I/O came (a
             * server ignoring SIGTERM sends none: CI hung 15 minutes). */
            uv_timer_start(&c->wake_timer, wake, deadline - now, deadline - now);
        }
        if (uv_run(&c->loop, UV_RUN_ONCE) == 0 && !done(c, arg))
            break; /* nothing left that could change anything */
    }
    uv_timer_stop(&c->wake_timer);
}

/* Connection events ---------------------------------------------------------------------- */

static void on_request(void *ud, mcp_handle h, const mcp_message *msg)
{
    /* Sampling, elicitation and roots: to the application's handlers
     * (handlers.c), or refused when it offers none. */
    mcp__questions_request(ud, h, msg);
}

static void on_cancel(void *ud, mcp_handle h, const char *reason)
{
    mcp__questions_cancelled(ud, h, reason);
}

static void on_notification(void *ud, const mcp_message *msg)
{
    mcp_client *c = ud;
    if (mcp__client_url_notification(c, msg))
        return;
    if (c->opts.on_notification)
        c->opts.on_notification(c->opts.notification_user_data, msg);
}

static void on_log(void *ud, const mcp_log_record *r)
{
    mcp__client_log(ud, r);
}

static void on_transport_down(void *ud, bool input, const char *why)
{
    mcp_client *c = ud;
    c->link->transport_down(c, input, why);
    wake_waiters(c);
}

void mcp__client_end(mcp_client *c)
{
    uv_timer_stop(&c->eof_timer);
    if (c->driver_open)
        mcp__driver_end(&c->driver, NULL);
    /* The calls waiting for the application's answers have no request on
     * the wire for the session to end: they end here, and every question
     * still open is withdrawn. */
    mcp__questions_end_all(c, "connection closed");
}

typedef struct release_wait {
    bool done;
} release_wait;

static void driver_released(void *ud)
{
    ((release_wait *)ud)->done = true; /* the close callbacks end the iteration */
}

static bool released(mcp_client *c, void *arg)
{
    return ((release_wait *)arg)->done;
}

void mcp__client_release_driver(mcp_client *c)
{
    if (!c->driver_open)
        return;
    release_wait w = {false};
    /* The next session's ids go on from this one's: a handle of this
     * connection never names a request of the next. */
    c->next_request_id = mcp_session_next_request_id(c->driver.session);
    mcp__driver_release(&c->driver, driver_released, &w);
    uv_stop(&c->loop);
    mcp__client_run_until(c, released, &w, UINT64_MAX);
    c->driver_open = false;
}

void mcp__client_teardown(mcp_client *c)
{
    c->state = CL_CLOSING;
    if (c->link)
        c->link->stop(c);
    mcp__client_end(c);
    mcp__client_release_driver(c);
    c->state = CL_NEW;
}

int mcp_client_reconnect(mcp_client *c)
{
    if (!c->connected_once || c->state == CL_CLOSED || c->state == CL_CLOSING) {
        mcp__client_set_error(c, c->state == CL_CLOSED ? "the client is closed"
                                 : c->state == CL_CLOSING
                                     ? "the client is closing"
                                     : "the client never connected: nothing to reconnect");
        return MCP_ERR_STATE;
    }
    mcp__client_teardown(c);
    int rc = c->link->start(c);
    if (rc != MCP_OK && rc != MCP_ERR_SPAWN && c->era_mode == MCP_CONNECT_MODERN &&
        !c->opts.protocol_version && c->opts.connect_mode == MCP_CONNECT_AUTO) {
        /* The remembered era no longer holds (a different server now):
         * probe again. */
        c->era_mode = MCP_CONNECT_AUTO;
        c->era_version = NULL;
        rc = c->link->start(c);
    }
    return rc;
}

/* Connecting ---------------------------------------------------------------------------- */

typedef struct connect_wait {
    mcp_client *client;
    bool done;
    int outcome;
} connect_wait;

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    connect_wait *w = ud;
    mcp_client *c = w->client;
    w->done = true;
    uv_stop(&c->loop);
    /* An HTTP failure is told as one, as for calls (the message names the
     * status or the network's failure). */
    if (outcome == MCP_ERR_REMOTE && mcp__client_http_status(c, m) >= 0)
        outcome = MCP_ERR_HTTP;
    w->outcome = outcome;
    if (outcome == MCP_ERR_REMOTE || outcome == MCP_ERR_HTTP)
        mcp__client_set_error(c, "the server refused the connection: %.*s",
                              (int)m->error_message_len, m->error_message);
    else if (outcome == MCP_ERR_PROTOCOL)
        mcp__client_set_error(c, c->opts.connect_mode == MCP_CONNECT_MODERN
                                     ? "the server does not speak protocol version %s"
                                     : "the server answered with a protocol version this "
                                       "client does not speak%s",
                              c->opts.connect_mode == MCP_CONNECT_MODERN
                                  ? (c->protocol ? c->protocol : MCP_PROTOCOL_LATEST)
                                  : "");
    else if (outcome == MCP_ERR_TIMED_OUT)
        mcp__client_set_error(c, "the server did not finish connecting within %llu ms",
                              (unsigned long long)c->opts.connect_timeout_ms);
}

static bool connect_finished(mcp_client *c, void *arg)
{
    return ((connect_wait *)arg)->done;
}

/* The options of every session of the client; ids go on from first_id. */
static mcp_session_options session_options(const mcp_client *c, int64_t first_id)
{
    return (mcp_session_options){.size = sizeof(mcp_session_options),
                                 .role = MCP_ROLE_CLIENT,
                                 .name = c->name,
                                 .version = c->version,
                                 .timeout_ms = c->opts.timeout_ms,
                                 .max_time_ms = c->opts.max_time_ms,
                                 .max_message = c->opts.max_message,
                                 .first_request_id = first_id,
                                 .capabilities = mcp_json_doc_root(c->caps)};
}

static void renewed(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    mcp_client *c = ud;
    if (outcome == MCP_OK) {
        mcp__client_say(c, MCP_LOG_INFO, MCP_LOG_EVENT_GENERAL, "a new session started");
        return;
    }
    if (outcome == MCP_ERR_REMOTE && m)
        mcp__client_set_error(c, "cannot start a new session: the server refused it: %.*s",
                              (int)m->error_message_len, m->error_message);
    else
        mcp__client_set_error(c, "cannot start a new session: %s", mcp_strerror(outcome));
    c->session_expired = true; /* the next call tries again */
}

int mcp__client_renew_session(mcp_client *c)
{
    if (!c->session_expired || c->state != CL_READY || !c->driver_open)
        return MCP_OK;
    c->session_expired = false;
    mcp_session_options so =
        session_options(c, mcp_session_next_request_id(c->driver.session));
    mcp_session *old;
    int rc = mcp__driver_renew(&c->driver, &so, &old);
    if (rc == MCP_OK) {
        /* The era the first connect found; what is asked meanwhile waits
         * for the handshake. */
        mcp_connect_options co = {.size = sizeof co,
                                  .mode = MCP_CONNECT_LEGACY,
                                  .version = c->era_version,
                                  .timeout_ms = c->opts.connect_timeout_ms,
                                  .queue_requests = true};
        c->task_ext_of = NULL;
        rc = mcp__client_note_send_failure(
            c, mcp_session_connect(c->driver.session, mcp__now_ms(), &co, renewed, c));
        mcp__driver_rearm(&c->driver);
        /* The old one ends what it still held (requests whose failure the
         * transport has yet to deliver): a callback that calls again
         * meanwhile finds the new session connecting, and waits in it. */
        mcp__driver_retire(&c->driver, old);
    }
    if (rc != MCP_OK) {
        c->session_expired = true;
        if (!c->error[0])
            mcp__client_set_error(c, "cannot start a new session: %s", mcp_strerror(rc));
        return rc == MCP_ERR_STATE ? MCP_ERR_CLOSED : rc;
    }
    return MCP_OK;
}

int mcp__client_open(mcp_client *c, mcp__transport *t)
{
    mcp_session_options so = session_options(c, c->next_request_id);
    c->session_expired = false;
    mcp__driver_events ev = {.on_request = on_request,
                             .on_cancel = on_cancel,
                             .on_notification = on_notification,
                             .on_log = on_log,
                             .on_transport_down = on_transport_down,
                             .ud = c};
    int rc = mcp__driver_init(&c->driver, &c->loop, &so, &ev);
    if (rc != MCP_OK) {
        t->ops->close(t, NULL, NULL);
        return rc;
    }
    c->driver_open = true;
    mcp__driver_attach(&c->driver, t);
    return MCP_OK;
}

int mcp__client_connect(mcp_client *c)
{
    c->state = CL_CONNECTING;
    mcp_connect_options co = {.size = sizeof co,
                              .mode = c->era_mode,
                              .version = c->era_version ? c->era_version : c->protocol,
                              .timeout_ms = c->opts.connect_timeout_ms,
                              .probe_timeout_ms = c->opts.probe_timeout_ms};
    connect_wait w = {c, false, 0};
    c->task_ext_of = NULL; /* another discover result comes */
    int rc = mcp_session_connect(c->driver.session, mcp__now_ms(), &co, connected, &w);
    if (rc == MCP_OK) {
        mcp__driver_rearm(&c->driver);
        mcp__client_run_until(c, connect_finished, &w, UINT64_MAX);
        /* The loop ran dry: the connection is gone and the attempt was
         * ended by the close (or never will be). */
        rc = w.done ? w.outcome : MCP_ERR_CLOSED;
    }
    mcp__client_note_send_failure(c, rc);
    if (rc == MCP_ERR_CLOSED && !c->error[0])
        mcp__client_set_error(c, "the server closed the connection while connecting");
    if (rc != MCP_OK) {
        c->state = CL_NEW;
        return rc;
    }
    /* The era is a property of the server: remember it for reconnects. */
    c->era_version = mcp_session_protocol_version(c->driver.session);
    c->era_mode = mcp_session_modern(c->driver.session) ? MCP_CONNECT_MODERN
                                                        : MCP_CONNECT_LEGACY;
    c->state = CL_READY;
    return MCP_OK;
}

const mcp_json *mcp_client_server_info(const mcp_client *c)
{
    return c->driver_open && mcp_session_ready(c->driver.session)
               ? mcp_session_peer_info(c->driver.session)
               : NULL;
}

const mcp_json *mcp_client_server_implementation(const mcp_client *c)
{
    const mcp_json *r = mcp_client_server_info(c);
    const mcp_json *legacy = mcp_json_object_get(r, "serverInfo");
    return legacy ? legacy
                  : mcp_json_object_get(mcp_json_object_get(r, "_meta"),
                                        "io.modelcontextprotocol/serverInfo");
}

const char *mcp_client_protocol_version(const mcp_client *c)
{
    return c->driver_open ? mcp_session_protocol_version(c->driver.session) : NULL;
}

/* Calls ---------------------------------------------------------------------------------------- */

static void fill_result(mcp_client_call_result *r, mcp_handle h, int outcome,
                        const mcp_message *m)
{
    memset(r, 0, sizeof *r);
    r->size = sizeof *r; /* the library's: a callback's */
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

void mcp__call_free(mcp__call *cc)
{
    mcp_json_doc_free(cc->params);
    free(cc->tool);
    free(cc);
}

bool mcp__call_release(mcp__call *cc)
{
    if (--cc->busy || !cc->finished)
        return false;
    mcp__call_free(cc);
    return true;
}

void mcp__call_ended(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    mcp__call *cc = ud;
    mcp_client *c = cc->client;
    if (!cc->handle)
        cc->handle = h;
    /* Questions of its rounds still open are withdrawn first, with the
     * session's reason. */
    mcp__questions_call_ended(cc, outcome,
                              c->driver_open ? mcp_session_end_reason(c->driver.session) : NULL);
    /* 2026-07-28 over HTTP: its x-mcp-header parameters were stale. */
    if (outcome == MCP_ERR_REMOTE && m && m->error_code == MCP_WIRE_HEADER_MISMATCH &&
        mcp__call_refresh(cc))
        return;
    mcp__call_refresh_forget(cc);
    c->pending--;
    wake_waiters(c);
    /* What it lists is learned first: the list may lose tools there. */
    mcp_message *kept = NULL;
    if (cc->tool_list && outcome == MCP_OK && m) {
        mcp__client_learn_tools(c, m, &kept);
        if (kept)
            m = kept;
    }
    char why[400];
    if (cc->check && outcome == MCP_OK && m && !cc->check->fn(m->result, why, sizeof why)) {
        mcp__client_set_error(c, "the server's %s result is malformed: %s", cc->check->method,
                              why);
        outcome = MCP_ERR_PROTOCOL;
        m = NULL;
    } else if (cc->tool_call && !cc->ro.task_start_only && outcome == MCP_OK && m &&
               !mcp__tools_check_output(c->tools, cc->tool, m->result, why, sizeof why)) {
        mcp__client_set_error(c, "the server's result breaks the tool's outputSchema: %s", why);
        outcome = MCP_ERR_PROTOCOL;
        m = NULL;
    }
    if (outcome == MCP_ERR_REMOTE)
        mcp__client_url_required(c, m);
    mcp_client_call_result r;
    fill_result(&r, cc->handle, outcome, m);
    if (outcome == MCP_ERR_REMOTE)
        mcp__client_http_failure(c, &r);
    cc->done(cc->user_data, &r);
    mcp_message_free(kept); /* the application retained it if it keeps it */
    if (cc->busy)
        cc->finished = true; /* its holder frees it */
    else
        mcp__call_free(cc);
}

static void left_out(void *ud, const char *tool, const char *why)
{
    mcp__client_say(ud, MCP_LOG_WARNING, MCP_LOG_EVENT_GENERAL, "tool '%s' left out of tools/list: %s",
                    tool, why);
}

void mcp__client_learn_tools(mcp_client *c, const mcp_message *m, mcp_message **kept)
{
    *kept = NULL;
    if (!c->tools && !(c->tools = mcp__tools_new()))
        return; /* out of memory: nothing checked, nothing mirrored */
    /* x-mcp-header belongs to 2026-07-28 Streamable HTTP. */
    bool headers = c->http && c->driver_open && mcp_session_modern(c->driver.session);
    mcp_json_doc *d = NULL;
    if (mcp__tools_learn(c->tools, m->result, headers, &d, left_out, c) != MCP_OK || !d)
        return;
    /* The answer as if the server had listed only the others. */
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_response_start(&w, &b, &m->id, "result");
    mcp__jw_value(&w, mcp_json_doc_root(d));
    mcp__jw_object_end(&w);
    if (mcp__jw_finish(&w) == MCP_OK)
        mcp_message_decode(b.data, b.len, NULL, NULL, kept, NULL);
    mcp_buf_free(&b);
    mcp_json_doc_free(d);
}

void mcp__call_progress(void *ud, mcp_handle h, double progress, double total,
                        const char *message)
{
    mcp__call *cc = ud;
    /* Every round's progress is the call's: under its handle. */
    if (cc->on_progress)
        cc->on_progress(cc->progress_user_data, cc->handle ? cc->handle : h, progress, total,
                        message);
}

/* Whether the call to tool is to be a task call: 2025-11-25, the server
 * runs tools as tasks (capabilities tasks.requests.tools.call) and the
 * tool must or the caller wants it; 2026-07-28, the server declares the
 * tasks extension (server/discover) and the caller asks for it (ALWAYS,
 * START): the call then declares the extension, and the server decides.
 * AUTO does not declare it under 2026-07-28: a server may then make a
 * task of any call it likes (mcp serve does, of every tool that may run
 * as one), and a task has no progress and is cancelled with tasks/cancel
 * rather than the call's own cancel, which changes what a plain call
 * does; 2026 lists no tool as needing a task either: the call is sent
 * again as a task when the server refuses it for want of the extension
 * (task_if_required). */
/* Whether the server (2026-07-28) declares the tasks extension: asked of
 * every AUTO call, so kept for the discover result it was read from (a
 * reconnect brings another). */
static bool offers_task_extension(mcp_client *c)
{
    mcp_session *ss = c->driver.session;
    const mcp_json *info = mcp_session_peer_info(ss);
    if (info != c->task_ext_of) {
        const mcp_json *caps = mcp_json_object_get(info, "capabilities");
        c->task_ext_of = info;
        c->task_ext = mcp__revision_has(mcp_session_protocol_version(ss), MCP__HAS_TASK_EXTENSION) &&
                      mcp_json_object_get(mcp_json_object_get(caps, "extensions"),
                                          "io.modelcontextprotocol/tasks") != NULL;
    }
    return c->task_ext;
}

static bool as_task(mcp_client *c, const char *tool, const mcp_client_call_options *o)
{
    if (o->task == MCP_CALL_TASK_NEVER)
        return false;
    mcp_session *ss = c->driver.session;
    bool modern = mcp_session_modern(ss);
    /* AUTO, under 2026 or for a tool not listed as required (most
     * calls): no more to ask. */
    if (o->task == MCP_CALL_TASK_AUTO && (modern || mcp__tools_task_support(c->tools, tool) != 2))
        return false;
    if (modern)
        return offers_task_extension(c);
    const mcp_json *caps = mcp_json_object_get(mcp_session_peer_info(ss), "capabilities");
    const mcp_json *tools = mcp_json_object_get(
        mcp_json_object_get(mcp_json_object_get(caps, "tasks"), "requests"), "tools");
    if (!mcp_json_object_get(tools, "call") ||
        !mcp__revision_has(mcp_session_protocol_version(ss), MCP__HAS_TASKS))
        return false;
    return true;
}

static void call_task(void *ud, mcp_handle h, const mcp_json *task)
{
    mcp__call *cc = ud;
    if (cc->on_task)
        cc->on_task(cc->progress_user_data, cc->handle ? cc->handle : h, task);
}

static int request_async(mcp_client *c, const char *method, const mcp_json *params,
                         const mcp_client_call_options *opts_in,
                         mcp_client_call_done_fn done, void *ud, mcp_handle *handle)
{
    mcp_client_call_options opts;
    if (mcp__opts_copy(&opts, sizeof opts, opts_in) != MCP_OK || !done)
        return MCP_ERR_INVALID_ARG;
    int ready = mcp__client_renew_session(c);
    if (ready == MCP_OK)
        ready = mcp__client_not_ready(c);
    if (ready != MCP_OK)
        return ready;
    mcp__call *cc = calloc(1, sizeof *cc);
    if (!cc)
        return MCP_ERR_NOMEM;
    cc->client = c;
    cc->done = done;
    cc->user_data = ud;
    cc->on_progress = opts.on_progress;
    cc->progress_user_data = opts.progress_user_data;
    cc->check = mcp__client_result_check(method);
    cc->tool_call = !strcmp(method, "tools/call");
    cc->tool_list = !strcmp(method, "tools/list");
    const char *tool = cc->tool_call ? mcp_json_string(mcp_json_object_get(params, "name"), NULL)
                                     : NULL;
    if (tool && !(cc->tool = strdup(tool))) {
        free(cc);
        return MCP_ERR_NOMEM;
    }
    /* 2026-07-28: these three may be answered with an InputRequiredResult
     * (basic/patterns/mrtr.mdx): the session keeps the call's rounds, its
     * questions come to the hook. */
    static const char *const round_methods[] = {"tools/call", "resources/read", "prompts/get"};
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(method, round_methods[i]))
            cc->method = round_methods[i];
    cc->ro = (mcp_request_options){.size = sizeof cc->ro,
                                   .timeout_ms = opts.timeout_ms,
                                   .max_time_ms = opts.max_time_ms,
                                   .progress = opts.progress,
                                   .on_input_required =
                                       cc->method ? mcp__questions_input_required : NULL,
                                   .task = cc->tool_call && as_task(c, tool, &opts),
                                   .task_ttl_ms = opts.task_ttl_ms,
                                   .task_start_only = opts.task == MCP_CALL_TASK_START,
                                   .on_task = call_task};
    /* AUTO under 2026-07-28: a plain call, but one the server runs only as
     * a task (-32021 naming the extension) is sent again as one: AUTO's
     * "a task when the tool needs it", which 2026 lists nowhere. */
    cc->ro.task_if_required = cc->tool_call && !cc->ro.task && opts.task == MCP_CALL_TASK_AUTO &&
                              mcp_session_modern(c->driver.session) && offers_task_extension(c);
    cc->on_task = opts.on_task;
    if (cc->ro.task_start_only)
        cc->check = NULL; /* a CreateTaskResult, not the tool's result */
    if (cc->tool_call &&
        (opts.task == MCP_CALL_TASK_ALWAYS || opts.task == MCP_CALL_TASK_START) &&
        !cc->ro.task) {
        mcp__call_free(cc);
        return MCP_ERR_STATE; /* the server runs no tool as a task */
    }
    /* Over 2026-07-28 HTTP a tools/call may be refused for its mirrored
     * headers and sent again (retry.c): its params are kept. */
    if (cc->tool_call && c->http && mcp_session_modern(c->driver.session) &&
        !(cc->params = mcp__client_copy_json(params))) {
        mcp__call_free(cc);
        return MCP_ERR_NOMEM;
    }
    cc->started = mcp__now_ms();
    /* Counted first: the call may end before the send returns. */
    c->pending++;
    mcp_handle h;
    cc->busy++;
    int rc = mcp__client_note_send_failure(
        c, mcp_session_request(c->driver.session, mcp__now_ms(), method, params, &cc->ro,
                               mcp__call_ended, mcp__call_progress, cc, &h));
    if (rc == MCP_OK && !cc->finished)
        cc->handle = cc->request = h;
    if (rc != MCP_OK) {
        c->pending--;
        mcp__call_free(cc); /* never sent: its callback never ran */
        return rc;
    }
    mcp__call_release(cc);
    if (handle)
        *handle = h;
    mcp__driver_rearm(&c->driver);
    return MCP_OK;
}

int mcp_client_call_tool_async(mcp_client *c, const char *name, const mcp_json *arguments,
                               const mcp_client_call_options *opts,
                               mcp_client_call_done_fn done, void *ud, mcp_handle *handle)
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
    mcp_client_call_result *result;
} sync_wait;

static void sync_done(void *ud, const mcp_client_call_result *r)
{
    sync_wait *w = ud;
    mcp__out_fill(w->result, r); /* within the caller's size: response is */
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
        mcp__call_result_refused(w->result, rc);
        return rc;
    }
    mcp__client_run_until(c, sync_finished, w, UINT64_MAX);
    if (!w->done) /* cannot happen while the session is open: ended by close */
        mcp__call_result_refused(w->result, MCP_ERR_CLOSED);
    return w->result->outcome;
}

int mcp_client_call_tool(mcp_client *c, const char *name, const mcp_json *arguments,
                         const mcp_client_call_options *opts, mcp_client_call_result *result)
{
    if (!result || !mcp__call_result_ok(result))
        return MCP_ERR_INVALID_ARG;
    sync_wait w = {false, result};
    return wait_sync(c, &w,
                     mcp_client_call_tool_async(c, name, arguments, opts, sync_done, &w, NULL));
}

int mcp_client_request(mcp_client *c, const char *method, const mcp_json *params,
                       const mcp_client_call_options *opts, mcp_client_call_result *result)
{
    if (!result || !mcp__call_result_ok(result))
        return MCP_ERR_INVALID_ARG;
    sync_wait w = {false, result};
    return wait_sync(c, &w, request_async(c, method, params, opts, sync_done, &w, NULL));
}

bool mcp__call_result_ok(const mcp_client_call_result *r)
{
    return mcp__out_size_ok(r, MCP__CALL_RESULT_FIRST, sizeof *r);
}

void mcp__call_result_refused(mcp_client_call_result *r, int rc)
{
    mcp__out_zero(r);
    r->outcome = rc;
}

void mcp_client_call_result_release(mcp_client_call_result *r)
{
    if (!r || !mcp__call_result_ok(r))
        return;
    mcp_message_free(r->response);
    mcp__out_zero(r);
}

/* Subscriptions ---------------------------------------------------------------------------------- */

/* Over HTTP a listen's ending passes through the client, which tells an
 * HTTP failure (MCP_ERR_HTTP, its status) from a server's error, as for
 * calls. Freed at the ending, which comes exactly once. */
typedef struct listen_relay {
    mcp_client *client;
    mcp_listen_fn cb;
    void *user_data;
} listen_relay;

static void relay_listen(void *ud, mcp_handle h, const mcp_listen_event *ev)
{
    listen_relay *r = ud;
    if (ev->kind != MCP_LISTEN_ENDED) {
        r->cb(r->user_data, h, ev);
        return;
    }
    mcp_listen_event ended = *ev;
    int status = ev->outcome == MCP_ERR_REMOTE ? mcp__client_http_status(r->client, ev->message)
                                               : -1;
    if (status >= 0) {
        ended.outcome = MCP_ERR_HTTP;
        ended.http_status = status;
    }
    listen_relay done = *r;
    free(r);
    done.cb(done.user_data, h, &ended);
}

int mcp_client_listen(mcp_client *c, const mcp_listen_filter *filter, mcp_listen_fn cb,
                      void *user_data, mcp_handle *handle)
{
    int ready = mcp__client_not_ready(c);
    if (ready != MCP_OK)
        return ready;
    listen_relay *r = NULL;
    if (c->http && cb) {
        if (!(r = malloc(sizeof *r)))
            return MCP_ERR_NOMEM;
        *r = (listen_relay){c, cb, user_data};
    }
    int rc = mcp__client_note_send_failure(
        c, mcp_session_listen(c->driver.session, mcp__now_ms(), filter, r ? relay_listen : cb,
                              r ? (void *)r : user_data, handle));
    if (rc != MCP_OK)
        free(r); /* cb never called */
    mcp__driver_rearm(&c->driver);
    return rc;
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
    mcp_client *c = p->client;
    if (mcp__call_refresh_cancel(c, p->handle, p->reason)) {
        /* a call listed or sent again after a HeaderMismatch */
    } else if (c->driver_open) {
        mcp_session_cancel(c->driver.session, mcp__now_ms(), p->handle, p->reason);
        mcp__driver_rearm(&c->driver);
        mcp__client_note_send_failure(c, gone(c) ? MCP_ERR_CLOSED : MCP_OK);
    }
    free(p->reason);
    free(p);
}

int mcp_client_cancel(mcp_client *c, mcp_handle h, const char *reason)
{
    if (c->state == CL_CLOSED)
        return MCP_ERR_STATE;
    /* Checked here, not where the cancel is sent: from another thread that
     * would be too late to tell the caller. */
    if (reason && mcp_utf8_validate(reason, strlen(reason), NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    if (mcp__on_loop_thread(&c->poster)) {
        /* A call sent again after a HeaderMismatch: its request in flight
         * has another id. */
        if (mcp__call_refresh_cancel(c, h, reason))
            return MCP_OK;
        if (!c->driver_open)
            return MCP_ERR_STATE;
        int rc = mcp_session_cancel(c->driver.session, mcp__now_ms(), h, reason);
        mcp__driver_rearm(&c->driver);
        mcp__client_note_send_failure(c, gone(c) ? MCP_ERR_CLOSED : MCP_OK);
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
    if (c->state == CL_CLOSED)
        return MCP_ERR_STATE;
    mcp__client_run_until(c, nothing_pending, NULL, UINT64_MAX);
    return mcp__client_note_send_failure(c, gone(c) ? MCP_ERR_CLOSED : MCP_OK);
}

int mcp_client_run_once(mcp_client *c, bool wait)
{
    if (c->state == CL_CLOSED)
        return MCP_ERR_STATE;
    flush_output(c);
    uv_run(&c->loop, wait ? UV_RUN_ONCE : UV_RUN_NOWAIT);
    return mcp__client_note_send_failure(c, gone(c) ? MCP_ERR_CLOSED : MCP_OK);
}

static bool flushed(mcp_client *c, void *arg)
{
    mcp__transport *t = c->driver_open ? c->driver.transport : NULL;
    return !t || !t->ops->unwritten || t->ops->unwritten(t) == 0;
}

int mcp_client_flush(mcp_client *c)
{
    if (c->state == CL_CLOSED)
        return MCP_ERR_STATE;
    mcp__client_run_until(c, flushed, NULL, UINT64_MAX);
    return mcp__client_note_send_failure(c, flushed(c, NULL) && !gone(c) ? MCP_OK : MCP_ERR_IO);
}

struct uv_loop_s *mcp_client_loop(mcp_client *c)
{
    return c->state == CL_CLOSED ? NULL : &c->loop;
}

/* Closing ----------------------------------------------------------------------------------------- */

static bool no_ghosts(mcp_client *c, void *arg)
{
    (void)arg;
    return !c->driver_open || mcp__session_ghosts(c->driver.session) == 0;
}

void mcp_client_close(mcp_client *c)
{
    if (!c || c->state == CL_CLOSED)
        return;
    c->state = CL_CLOSING;
    /* A task call cancelled before its task's id came waits for the id, to
     * cancel the task (tasks/cancel): the connection waits for those, up
     * to the close grace (a task left running is what it avoids). */
    if (c->link && c->driver_open && mcp__session_ghosts(c->driver.session))
        mcp__client_run_until(c, no_ghosts, NULL, mcp__now_ms() + c->opts.close_grace_ms);
    if (c->link)
        c->link->stop(c); /* stdio: end of input, wait, TERM, wait, KILL; HTTP: DELETE */
    mcp__client_end(c);        /* calls still in flight end with MCP_ERR_CLOSED */
    mcp__client_release_driver(c);
    uv_close((uv_handle_t *)&c->wake_timer, NULL);
    uv_close((uv_handle_t *)&c->eof_timer, NULL);
    mcp__poster_close(&c->poster);
    uv_run(&c->loop, UV_RUN_DEFAULT);
    uv_loop_close(&c->loop);
    c->state = CL_CLOSED;
}

void mcp_client_free(mcp_client *c)
{
    if (!c)
        return;
    mcp_client_close(c);
    free(c->name);
    free(c->version);
    free(c->cwd);
    free(c->protocol);
    mcp__client_free_strings(c->env);
    mcp__client_free_strings(c->argv);
    mcp__client_free_strings(c->http_headers);
    mcp__tools_free(c->tools);
    mcp__questions_free(c);
    mcp__client_url_free(c);
    mcp__client_oauth_free(c);
    free(c->url);
    free(c->ca_file);
    mcp_buf_free(&c->stderr_buf);
    mcp__poster_destroy(&c->poster); /* no thread may use c any more */
    free(c);
}
