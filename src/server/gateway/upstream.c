/* SPDX-License-Identifier: MIT */
/*
 * A gateway's child: the process, the client-role session that speaks to
 * it over its pipes (on the server's loop, through the driver), the
 * requests forwarded to it and the questions it asks. See gateway.h.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/gateway/gateway.h"
#include "session/entry.h"
#include "session/revision.h"
#include "session/task_wire.h"
#include "transport/ndjson_stream.h"

/* How long an ended child is given to exit on its own (its input closed),
 * then after SIGTERM, before SIGKILL. */
#define END_GRACE_MS 2000
/* How long a child is given to answer initialize. */
#define CONNECT_TIMEOUT_MS 30000
/* How long the output of a child that exited is read for before what it
 * had in flight is answered. */
#define EXIT_WAIT_MS 500

struct question {
    upstream *up;
    mcp_handle child_handle;  /* the child's request */
    mcp_handle client_handle; /* ours, to the owner's client */
    question *next, *prev;
};

/* Lists ------------------------------------------------------------------------- */

static void forward_unlink(forward *f)
{
    upstream *up = f->up;
    if (f->prev)
        f->prev->next = f->next;
    else
        up->requests = f->next;
    if (f->next)
        f->next->prev = f->prev;
    f->next = f->prev = NULL;
    f->up = NULL;
}

static void question_unlink(question *q)
{
    if (q->prev)
        q->prev->next = q->next;
    else
        q->up->questions = q->next;
    if (q->next)
        q->next->prev = q->prev;
}

/* Why the child serves no more, as an answer says it (the first reason
 * stands). */
__attribute__((format(printf, 2, 3))) static void set_gone(upstream *up, const char *fmt, ...)
{
    if (up->gone)
        return;
    up->gone = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(up->why, sizeof up->why, fmt, ap);
    va_end(ap);
}

static void say_exit(upstream *up)
{
    char text[80];
    if (up->status >= 128)
        snprintf(text, sizeof text, "was killed by signal %d", up->status - 128);
    else
        snprintf(text, sizeof text, "exited with status %d", up->status);
    set_gone(up, "the server process %s", text);
}

/* The end ------------------------------------------------------------------------
 *
 * Three things end, in any order: the conversation (the child's output
 * ended, a write to it failed, or we closed it), the process (its exit,
 * after a grace, SIGTERM and SIGKILL once we closed it) and the owner's
 * claim (its session's end, the server's stop). Once all three are over,
 * the handles are closed and the upstream is freed with the last. */

static void upstream_free(upstream *up)
{
    gateway *gw = up->gw;
    if (up->prev)
        up->prev->next = up->next;
    else
        gw->all = up->next;
    if (up->next)
        up->next->prev = up->prev;
    if (gw->shared == up)
        gw->shared = NULL;
    mcp_json_doc_free(up->caps);
    free(up->caller);
    free(up);
}

static void maybe_free(upstream *up)
{
    if (up->torn && !up->child && !up->driver_open && !up->timer_open)
        upstream_free(up);
}

static void driver_released(void *ud)
{
    upstream *up = ud;
    up->driver_open = false;
    maybe_free(up);
}

static void timer_closed(uv_handle_t *h)
{
    upstream *up = h->data;
    up->timer_open = false;
    maybe_free(up);
}

static void teardown(upstream *up)
{
    if (up->torn)
        return;
    up->torn = true;
    if (up->child) {
        mcp__child_close(up->child);
        up->child = NULL;
    }
    if (up->timer_open && !uv_is_closing((uv_handle_t *)&up->kill_timer))
        uv_close((uv_handle_t *)&up->kill_timer, timer_closed);
    if (up->driver_open && !up->released) {
        up->released = true;
        mcp__driver_release(&up->driver, driver_released, up);
    }
    maybe_free(up);
}

static void check_done(upstream *up)
{
    if (!up->owner && up->over && (!up->child || up->reaped))
        teardown(up);
}

/* The conversation is over: what was forwarded is answered (the session's
 * end ends each request, with why), what the child asked is withdrawn,
 * and the child is no longer the one new requests go to. Each answer may
 * write, and a write may end a connection: the question list is read
 * again after each cancel. */
static void conversation_over(upstream *up, const char *why)
{
    if (up->over)
        return;
    up->over = true;
    if (up->gw->shared == up)
        up->gw->shared = NULL;
    if (up->driver_open)
        mcp__driver_end(&up->driver, why);
    /* The client's side of each question ends through its session, whose
     * callback (question_answered) unlinks and frees it: freed here first,
     * the session's own end would call back with it later. */
    while (up->questions) {
        question *q = up->questions;
        conn *c = up->owner;
        int rc = c ? mcp_session_cancel(c->driver.session, mcp__now_ms(), q->client_handle, why)
                   : MCP_ERR_NOT_FOUND;
        if (rc == MCP_ERR_INVALID_ARG) /* a reason it would not send */
            rc = mcp_session_cancel(c->driver.session, mcp__now_ms(), q->client_handle, NULL);
        if (rc == MCP_OK) {
            mcp__driver_rearm(&c->driver);
            continue;
        }
        question_unlink(q); /* its session knows it no more: no callback comes */
        free(q);
    }
}

static void kill_due(uv_timer_t *t)
{
    upstream *up = t->data;
    if (!up->child || up->exited)
        return;
    mcp__child_kill_group(up->child, up->kills++ ? SIGKILL : SIGTERM);
    if (up->kills < 2)
        uv_timer_start(&up->kill_timer, kill_due, END_GRACE_MS, 0);
}

/* The end of the child's side is settled: up is freed once all is over;
 * and a 2025 HTTP session whose child serves no more ends with it, so
 * that its client's next request finds no session (404) and initializes
 * again, which brings a new child (basic/transports.mdx, session
 * management). Ending the session closes up (conn_ending), which may free
 * it. Not while up is being opened: its session does not hold it yet
 * (upstream_for closes a child gone at once). Not on a transport without
 * HTTP's refusals (stdio): there the conversation is the session, and no
 * client can initialize again; its requests are answered why instead. */
static void end_settled(upstream *up)
{
    conn *c = up->closed || up->opening ? NULL : up->owner;
    mcp__transport *t = c ? c->driver.transport : NULL;
    if (!t || !t->ops->unavailable)
        c = NULL;
    if (!c) {
        check_done(up);
        return;
    }
    char why[sizeof up->why];
    snprintf(why, sizeof why, "%s", up->why);
    mcp__conn_end(c, why);
}

/* The child's conversation ended on its side (why: a write failed; NULL:
 * its output ended, or it exited): said, the conversation over, and a
 * process still running ended. */
static void finish(upstream *up, const char *why)
{
    if (up->over) {
        check_done(up);
        return;
    }
    uv_timer_stop(&up->kill_timer); /* a wait for the other half, now moot */
    int status;
    if (!up->exited && up->child && mcp__child_peek_exit(up->child, &status)) {
        up->status = status;
        up->exited = true; /* its exit callback still comes */
    }
    if (up->exited)
        say_exit(up);
    else if (why)
        set_gone(up, "cannot write to the server process: %s", why);
    else
        set_gone(up, "the server process closed its output");
    if (!up->closed)
        mcp__server_log(up->gw->server, MCP_LOG_WARNING, "gateway: %s", up->why);
    conversation_over(up, up->why);
    if (up->child && !up->exited && !up->kills) {
        mcp__child_kill_group(up->child, SIGTERM);
        up->kills = 1;
        uv_timer_start(&up->kill_timer, kill_due, END_GRACE_MS, 0);
    }
    end_settled(up);
}

/* The other half of the end did not come in time: an output that ended
 * without an exit (it closed stdout and runs on), an exit whose output
 * does not end (a process of its own holds it). */
static void wait_over(uv_timer_t *t)
{
    finish(t->data, NULL);
}

static void on_child_exit(void *ud, int status)
{
    upstream *up = ud;
    bool seen = up->exited; /* peeked at by finish */
    up->exited = true;
    up->reaped = true;
    /* Ended by us: what it started goes with it (a wrapper's server that
     * ignored SIGTERM, say). Its group's id is not given out again while
     * a member lives. */
    if ((up->closed || up->kills) && up->pgid > 0)
        kill(-up->pgid, SIGKILL);
    up->status = status;
    up->gw->children--;
    uv_timer_stop(&up->kill_timer);
    if (up->over) {
        check_done(up);
    } else if (up->input_ended) {
        finish(up, NULL);
    } else if (!seen) {
        /* Its output is read to its end first: answers written just
         * before the exit still count. */
        uv_timer_start(&up->kill_timer, wait_over, EXIT_WAIT_MS, 0);
    }
}

void upstream_close(upstream *up, const char *why)
{
    if (up->closed) {
        up->owner = NULL;
        check_done(up);
        return;
    }
    up->closed = true;
    set_gone(up, "%s", why);
    /* What is in flight is cancelled on the wire, and the child's input
     * ends only once that is written: a cancel the client posted just
     * before ending its session still reaches the child. */
    while (up->requests && up->driver_open && !up->over) {
        forward *f = up->requests;
        upstream_cancel(f, why);
        if (up->requests == f)
            forward_unlink(f); /* its session knew it no more */
    }
    if (up->held)
        round_closing(up->held, why);
    conversation_over(up, why); /* the questions withdrawn while the owner is known */
    up->owner = NULL;
    mcp__transport *t = up->driver_open && !up->released ? up->driver.transport : NULL;
    if (t && t->ops->end_output)
        t->ops->end_output(t);
    else if (up->driver_open && !up->released) {
        up->released = true;
        mcp__driver_release(&up->driver, driver_released, up); /* its input closed */
    }
    if (up->child && !up->exited && !up->kills && up->timer_open)
        uv_timer_start(&up->kill_timer, kill_due, END_GRACE_MS, 0);
    check_done(up);
}

void upstream_close_all(gateway *gw)
{
    upstream *up = gw->all;
    while (up) {
        upstream *next = up->next; /* up may be freed within */
        upstream_close(up, "the server stops");
        up = next;
    }
}

/* The child's session --------------------------------------------------------------- */

static void on_transport_down(void *ud, bool input, const char *why)
{
    upstream *up = ud;
    if (up->over) {
        check_done(up);
        return;
    }
    if (!input) {
        finish(up, why);
        return;
    }
    up->input_ended = true;
    int status;
    if (up->child && !up->exited && !mcp__child_peek_exit(up->child, &status)) {
        /* Its exit is usually a moment behind (the pipe closes as it
         * dies): waited for, to say how it ended. */
        uv_timer_start(&up->kill_timer, wait_over, EXIT_WAIT_MS, 0);
        return;
    }
    finish(up, NULL);
}

static void on_log(void *ud, const mcp_log_record *r)
{
    upstream *up = ud;
    if (r->level >= MCP_LOG_WARNING)
        mcp__server_log(up->gw->server, r->level, "gateway: the server process: %s", r->message);
}

static const char LOG_DROPPED[] =
    "gateway: a log message of the server process without a known level or data, dropped";

/* A log message of the shared child: there is no client to give it to
 * (2026-07-28 logs go only on the stream of a request that asked, and
 * the child does not say which request it logs for), so it is the
 * gateway's own log's, at its level. */
static void log_shared(upstream *up, const mcp_json *params)
{
    int level = mcp__log_level_parse(mcp_json_object_get(params, "level"));
    const mcp_json *data = mcp_json_object_get(params, "data");
    if (level < 0 || !data) {
        mcp__server_log(up->gw->server, MCP_LOG_WARNING, "%s", LOG_DROPPED);
        return;
    }
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    size_t n;
    const char *text = mcp_json_string(data, &n);
    if (!text && mcp_json_write(data, &b) == MCP_OK)
        text = b.data, n = b.len;
    /* Its first 200 bytes, cut at a character's start, escaped (6 bytes
     * at most each). */
    char shown[1300];
    size_t cut = n;
    if (text && cut > 200)
        for (cut = 200; cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80; cut--)
            ;
    if (text)
        mcp__show_string(shown, sizeof shown, text, cut, cut, sizeof shown - 1);
    const char *logger = mcp_json_string(mcp_json_object_get(params, "logger"), NULL);
    char who[80] = "";
    if (logger)
        mcp__show_string(who, sizeof who, logger, strlen(logger), 60, sizeof who - 1);
    mcp__server_log(up->gw->server, (mcp_log_level)level, "gateway: the server process logs%s%s: %s",
                    logger ? " as " : "", who, text ? shown : "(unreadable)");
    mcp_buf_free(&b);
}

/* The child's notifications: to a 2025 session's client as they are, but
 * for log messages below the level the client set (logging/setLevel is
 * the session's: the engine answers it); an asking child's logs during a
 * round to that round's request (at the level its envelope asked); the
 * shared child's list changes and resource updates to the listens, its
 * logs (and an asking child's between rounds) to the gateway's log. */
static void on_notification(void *ud, const mcp_message *msg)
{
    upstream *up = ud;
    bool log = !strcmp(msg->method, "notifications/message");
    if (up->owner && log) {
        int level = mcp__log_level_parse(mcp_json_object_get(msg->params, "level"));
        const mcp_json *data = mcp_json_object_get(msg->params, "data");
        if (level >= 0 && data) {
            mcp__session_task_log(up->owner->driver.session, (mcp_log_level)level,
                                  mcp_json_string(mcp_json_object_get(msg->params, "logger"), NULL),
                                  data, NULL);
            mcp__driver_rearm(&up->owner->driver);
        } else {
            mcp__server_log(up->gw->server, MCP_LOG_WARNING, "%s", LOG_DROPPED);
        }
        return;
    }
    if (up->owner) {
        mcp_session_notify(up->owner->driver.session, msg->method, msg->params);
        mcp__driver_rearm(&up->owner->driver);
        return;
    }
    if (log && up->held && round_log(up->held, msg->params))
        return;
    if (log) {
        log_shared(up, msg->params);
        return;
    }
    static const struct {
        const char *method;
        unsigned kind;
    } news[] = {{"notifications/tools/list_changed", MCP_LISTEN_TOOLS},
                {"notifications/prompts/list_changed", MCP_LISTEN_PROMPTS},
                {"notifications/resources/list_changed", MCP_LISTEN_RESOURCES},
                {"notifications/resources/updated", MCP_LISTEN_RESOURCE_UPDATES}};
    for (size_t i = 0; i < sizeof news / sizeof news[0]; i++)
        if (!strcmp(msg->method, news[i].method)) {
            const char *uri = mcp_json_string(mcp_json_object_get(msg->params, "uri"), NULL);
            if (news[i].kind != MCP_LISTEN_RESOURCE_UPDATES || uri)
                mcp__server_publish_heard(up->gw->server, news[i].kind, uri);
            return;
        }
}

static void question_answered(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)h;
    question *q = ud;
    upstream *up = q->up;
    question_unlink(q);
    mcp_handle child_handle = q->child_handle;
    free(q);
    if (!up->driver_open || up->gone || up->over)
        return;
    mcp_session *cs = up->driver.session;
    if (outcome == MCP_OK)
        mcp_session_reply(cs, child_handle, m->result);
    else if (outcome == MCP_ERR_REMOTE)
        mcp_session_reply_error(cs, child_handle, m->error_code, m->error_message, m->error_data);
    else
        mcp_session_reply_error(cs, child_handle, MCP_WIRE_INTERNAL_ERROR,
                                "Internal error: the client did not answer", NULL);
    mcp__driver_rearm(&up->driver);
}

/* The child asks: a 2025 session's client is asked in turn, on the stream
 * of the call in flight when there is one alone (the child does not say
 * which call it asks for). The shared child was told of no client
 * capability: it has no one to ask. */
static void on_request(void *ud, mcp_handle h, const mcp_message *msg)
{
    upstream *up = ud;
    if (up->caps) {
        round_question(up, h, msg);
        return;
    }
    mcp_session *cs = up->driver.session;
    conn *c = up->owner;
    question *q = c ? calloc(1, sizeof *q) : NULL;
    if (!q) {
        mcp_session_reply_error(cs, h, MCP_WIRE_METHOD_NOT_FOUND,
                                c ? "Internal error: out of memory"
                                  : "Method not found: the gateway's clients are not asked",
                                NULL);
        mcp__driver_rearm(&up->driver);
        return;
    }
    q->up = up;
    q->child_handle = h;
    mcp_request_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE,
                             .timeout_ms = MCP_NO_TIMEOUT, .max_time_ms = MCP_NO_TIMEOUT};
    if (up->requests && !up->requests->next)
        o.related = up->requests->req.handle;
    q->next = up->questions;
    if (q->next)
        q->next->prev = q;
    up->questions = q;
    /* The handle comes back through a local: a request ended during its
     * own send has had its callback (q freed) before the handle is
     * written. */
    mcp_handle asked = 0;
    int rc = mcp_session_request(c->driver.session, mcp__now_ms(), msg->method, msg->params, &o,
                                 question_answered, NULL, q, &asked);
    if (rc == MCP_ERR_NOT_FOUND) { /* its call ended meanwhile: the session's route */
        o.related = 0;
        rc = mcp_session_request(c->driver.session, mcp__now_ms(), msg->method, msg->params, &o,
                                 question_answered, NULL, q, &asked);
    }
    if (rc == MCP_OK)
        for (question *k = up->questions; k; k = k->next)
            if (k == q)
                q->client_handle = asked;
    if (rc != MCP_OK) {
        question_unlink(q);
        free(q);
        char text[160];
        snprintf(text, sizeof text, "Internal error: the client could not be asked: %s",
                 mcp_strerror(rc));
        mcp_session_reply_error(cs, h, MCP_WIRE_INTERNAL_ERROR, text, NULL);
    }
    mcp__driver_rearm(&c->driver);
    mcp__driver_rearm(&up->driver);
}

/* The child cancels a question: so do we. */
static void on_cancel(void *ud, mcp_handle h, const char *reason)
{
    upstream *up = ud;
    if (up->caps) {
        round_question_withdrawn(up, h);
        return;
    }
    for (question *q = up->questions; q; q = q->next)
        if (q->child_handle == h && up->owner) {
            mcp_session *ss = up->owner->driver.session;
            mcp_session_cancel(ss, mcp__now_ms(), q->client_handle, reason);
            mcp__driver_rearm(&up->owner->driver);
            return;
        }
}

/* A child that cannot be spoken to (it refused initialize, the connect
 * failed): said, the conversation over, the process ended. */
static void end_unusable(upstream *up)
{
    mcp__server_log(up->gw->server, MCP_LOG_WARNING, "gateway: %s", up->why);
    conversation_over(up, up->why);
    if (up->child && !up->exited && !up->kills) {
        mcp__child_kill_group(up->child, SIGTERM);
        up->kills = 1;
        uv_timer_start(&up->kill_timer, kill_due, END_GRACE_MS, 0);
    }
    end_settled(up);
}

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)h;
    upstream *up = ud;
    if (outcome == MCP_OK) {
        up->connected = true;
        return;
    }
    if (up->closed || up->over)
        return; /* ended from our side, which sees to the process */
    char detail[200];
    if (outcome == MCP_ERR_REMOTE) {
        /* The child's words, shown JSON-escaped and cut whole: the reason
         * goes into cancels, which must be UTF-8. */
        char shown[140];
        mcp__show_string(shown, sizeof shown, m->error_message, m->error_message_len, 120,
                         sizeof shown - 1);
        snprintf(detail, sizeof detail, "it refused initialize: %s", shown);
    } else {
        snprintf(detail, sizeof detail, "%s", mcp_strerror(outcome));
    }
    if (!up->gone && up->exited)
        say_exit(up);
    set_gone(up, "the server process did not initialize: %s", detail);
    end_unusable(up);
}

/* A child that could not be started: gone from the start, saying why. */
static upstream *failed_start(upstream *up)
{
    mcp__server_log(up->gw->server, MCP_LOG_ERROR, "gateway: %s", up->why);
    conversation_over(up, up->why);
    check_done(up);
    up->opening = false;
    return up;
}

upstream *upstream_open(gateway *gw, conn *owner, const char *version,
                        const mcp_json *client_info, const mcp_json *client_caps)
{
    upstream *up = calloc(1, sizeof *up);
    if (!up)
        return NULL;
    mcp_server *s = gw->server;
    up->gw = gw;
    up->owner = owner;
    up->opening = true;
    up->next = gw->all;
    if (up->next)
        up->next->prev = up;
    gw->all = up;
    uv_timer_init(&s->loop, &up->kill_timer);
    up->kill_timer.data = up;
    up->timer_open = true;
    const char *name = mcp_json_string(mcp_json_object_get(client_info, "name"), NULL);
    const char *ver = mcp_json_string(mcp_json_object_get(client_info, "version"), NULL);
    mcp_session_options so = {.size = sizeof so,
                              .role = MCP_ROLE_CLIENT,
                              .name = name ? name : s->name,
                              .version = ver ? ver : s->version,
                              .capabilities = client_caps,
                              .timeout_ms = MCP_NO_TIMEOUT,
                              .max_time_ms = MCP_NO_TIMEOUT,
                              .max_message = s->opts.max_message};
    mcp__driver_events ev = {.on_request = on_request,
                             .on_cancel = on_cancel,
                             .on_notification = on_notification,
                             .on_log = on_log,
                             .on_transport_down = on_transport_down,
                             .ud = up};
    if (mcp__driver_init(&up->driver, &s->loop, &so, &ev) != MCP_OK) {
        set_gone(up, "%s", "out of memory");
        return failed_start(up);
    }
    up->driver_open = true;
    mcp__ndjson_options no = {.max_line = s->opts.max_message};
    mcp__transport *t = mcp__ndjson_new(&s->loop, &no);
    if (!t) {
        set_gone(up, "%s", "out of memory");
        return failed_start(up);
    }
    mcp__driver_attach(&up->driver, t);
    mcp__child_options co = {.argv = (const char *const *)gw->argv, .on_exit = on_child_exit,
                             .ud = up};
    uv_stream_t *in, *out;
    char err[200];
    if (mcp__child_spawn(&s->loop, &co, &up->child, &in, &out, err, sizeof err) != 0) {
        up->child = NULL;
        set_gone(up, "the server process %s", err);
        return failed_start(up);
    }
    gw->children++;
    up->pgid = mcp__child_pid(up->child);
    mcp__ndjson_adopt(t, out, in);
    mcp_connect_options cn = {.size = sizeof cn, .mode = MCP_CONNECT_LEGACY, .version = version,
                              .timeout_ms = CONNECT_TIMEOUT_MS, .queue_requests = true};
    int rc = mcp_session_connect(up->driver.session, mcp__now_ms(), &cn, connected, up);
    if (rc != MCP_OK) {
        set_gone(up, "the server process could not be spoken to: %s", mcp_strerror(rc));
        end_unusable(up);
    } else {
        mcp__driver_rearm(&up->driver);
    }
    up->opening = false;
    return up;
}

/* Forwarding ------------------------------------------------------------------------ */

/* The client's params as the child gets them: the same, but for the
 * progress token (the session gives its own), the 2026-07-28 envelope in
 * _meta and a round's requestState and inputResponses (the child is
 * spoken to in a 2025 revision, and asks its questions itself), and under
 * 2026-07-28 a task member (a 2025-11-25 field that revision ignores:
 * only the gateway makes a task call of a call). Owned by *d. */
static const mcp_json *child_params(const mcp_json *params, bool modern, mcp_json_doc **d)
{
    const mcp_json *meta = mcp_json_object_get(params, "_meta");
    *d = NULL;
    if ((!meta || mcp_json_typeof(meta) != MCP_JSON_OBJECT) &&
        !mcp_json_object_get(params, "requestState") &&
        !mcp_json_object_get(params, "inputResponses") &&
        !(modern && mcp_json_object_get(params, "task")))
        return params;
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    if (!doc)
        return NULL;
    mcp_json *copy = mcp_json_new_object(doc), *m = mcp_json_new_object(doc);
    for (size_t i = 0; i < mcp_json_object_size(params); i++) {
        const char *k;
        size_t kn;
        mcp_json *v = mcp_json_object_at(params, i, &k, &kn);
        bool mrtr = (kn == 12 && !memcmp(k, "requestState", 12)) ||
                     (kn == 14 && !memcmp(k, "inputResponses", 14)) ||
                     (modern && kn == 4 && !memcmp(k, "task", 4));
        if (v != meta && !mrtr)
            mcp_json_object_setn(doc, copy, k, kn, mcp_json_copy(doc, v));
    }
    for (size_t i = 0; i < mcp_json_object_size(meta); i++) {
        const char *k;
        size_t kn;
        mcp_json *v = mcp_json_object_at(meta, i, &k, &kn);
        static const char ours[] = "io.modelcontextprotocol/";
        if ((kn == 13 && !memcmp(k, "progressToken", 13)) ||
            (kn >= sizeof ours - 1 && !memcmp(k, ours, sizeof ours - 1)))
            continue;
        mcp_json_object_setn(doc, m, k, kn, mcp_json_copy(doc, v));
    }
    if (mcp_json_object_size(m))
        mcp_json_object_set(doc, copy, "_meta", m);
    mcp_json_doc_set_root(doc, copy);
    *d = doc;
    return mcp_json_doc_error(doc) ? NULL : copy;
}

/* The child's result as the client gets it. A 2025 child gives no
 * caching hints, which 2026-07-28 requires of the lists and of
 * resources/read (server/utilities/caching.mdx): the gateway's are added
 * where the child gave none, as the server's own are for a handler's. */
mcp_json *upstream_copy_unrelated(mcp_json_doc *d, const mcp_json *obj, const char *skip)
{
    mcp_json *copy = mcp_json_new_object(d);
    size_t skip_len = skip ? strlen(skip) : 0;
    for (size_t i = 0; i < mcp_json_object_size(obj); i++) {
        const char *k;
        size_t kn;
        mcp_json *v = mcp_json_object_at(obj, i, &k, &kn);
        if (skip && kn == skip_len && !memcmp(k, skip, kn))
            continue;
        if (!(kn == 5 && !memcmp(k, "_meta", 5) && mcp_json_object_get(v, MCP__RELATED_TASK))) {
            mcp_json_object_setn(d, copy, k, kn, mcp_json_copy(d, v));
            continue;
        }
        mcp_json *meta = mcp_json_new_object(d);
        for (size_t j = 0; j < mcp_json_object_size(v); j++) {
            const char *mk;
            size_t mn;
            mcp_json *mv = mcp_json_object_at(v, j, &mk, &mn);
            if (!(mn == sizeof MCP__RELATED_TASK - 1 && !memcmp(mk, MCP__RELATED_TASK, mn)))
                mcp_json_object_setn(d, meta, mk, mn, mcp_json_copy(d, mv));
        }
        if (mcp_json_object_size(meta))
            mcp_json_object_set(d, copy, "_meta", meta);
    }
    return copy;
}

/* result without _meta's related-task: a task the child made of a call is
 * the gateway's own business (its id is no client's). */
static int write_unrelated(const mcp_json *result, mcp_buf *b)
{
    if (!mcp_json_object_get(mcp_json_object_get(result, "_meta"), MCP__RELATED_TASK))
        return mcp_json_write(result, b);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    if (!d)
        return MCP_ERR_NOMEM;
    mcp_json *copy = upstream_copy_unrelated(d, result, NULL);
    int rc = mcp_json_doc_error(d);
    if (rc == MCP_OK)
        rc = mcp_json_write(copy, b);
    mcp_json_doc_free(d);
    return rc;
}

static int write_result(const upstream_asked *q, const mcp_json *result, mcp_buf *b)
{
    int rc = q->child_task ? write_unrelated(result, b) : mcp_json_write(result, b);
    static const char *const hinted[] = {"tools/list", "prompts/list", "resources/list",
                                         "resources/templates/list", "resources/read"};
    bool wants = false;
    for (size_t i = 0; i < sizeof hinted / sizeof hinted[0]; i++)
        wants |= !strcmp(q->method, hinted[i]);
    if (rc != MCP_OK || !wants || !mcp_protocol_modern(q->version) ||
        mcp_json_typeof(result) != MCP_JSON_OBJECT || mcp_json_object_get(result, "ttlMs"))
        return rc;
    const mcp_server_options *o = &q->server->opts;
    char hints[96];
    int n = snprintf(hints, sizeof hints, "%s\"ttlMs\":%llu,\"cacheScope\":\"%s\"}",
                     mcp_json_object_size(result) ? "," : "", (unsigned long long)o->cache_ttl_ms,
                     o->cache_scope == MCP_CACHE_PRIVATE ? "private" : "public");
    b->len--; /* the closing brace */
    return mcp_buf_append(b, hints, (size_t)n);
}

void upstream_outcome(const upstream_asked *q, const upstream *up, int outcome,
                      const mcp_message *m, upstream_answer *a)
{
    mcp_buf_init(&a->text, 0, NULL);
    a->code = 0;
    if (outcome == MCP_OK) {
        a->kind = ANSWER_RESULT;
        if (write_result(q, m->result, &a->text) == MCP_OK)
            return;
        mcp_buf_free(&a->text);
        mcp_buf_init(&a->text, 0, NULL);
        a->kind = ANSWER_ERROR;
        a->code = MCP_WIRE_INTERNAL_ERROR;
        mcp_buf_append(&a->text, MCP_LITERAL("Internal error: out of memory"));
        return;
    }
    a->kind = ANSWER_ERROR;
    if (outcome == MCP_ERR_REMOTE) {
        a->code = m->error_code;
        if (!m->error_data) {
            mcp_buf_append(&a->text, m->error_message, m->error_message_len);
            return;
        }
        /* ANSWER_ERROR_DATA's text: {"message":...,"data":...}. */
        a->kind = ANSWER_ERROR_DATA;
        mcp_buf_append(&a->text, "{\"message\":", 11);
        mcp_json_write_string(m->error_message, m->error_message_len, &a->text);
        mcp_buf_append(&a->text, ",\"data\":", 8);
        mcp_json_write(m->error_data, &a->text);
        mcp_buf_append(&a->text, "}", 1);
        return;
    }
    char text[300];
    if (up && up->gone)
        snprintf(text, sizeof text, "Internal error: %s", up->why);
    else if (up && !up->connected)
        /* Ended with its connect, before that says why (the log does). */
        snprintf(text, sizeof text, "Internal error: the server process did not initialize (%s)",
                 mcp_strerror(outcome));
    else if (outcome == MCP_ERR_CLOSED || outcome == MCP_ERR_TIMED_OUT)
        snprintf(text, sizeof text, "Internal error: the server process stopped serving: %s",
                 mcp_strerror(outcome));
    else
        snprintf(text, sizeof text, "Internal error: the server process's answer: %s",
                 mcp_strerror(outcome));
    a->code = MCP_WIRE_INTERNAL_ERROR;
    mcp_buf_append(&a->text, text, strlen(text));
}

/* The 2025-11-25 error "URL elicitation required" (-32042), which
 * 2026-07-28 reserves and never sends: for a 2026-07-28 call, its pages
 * are asked as URL elicitations in an InputRequiredResult with no
 * requestState (the child's call ended: the retry runs it again); for
 * anything else, -32603 saying so. a's text is replaced. */
static void url_pages_asked(const mcp__request *r, upstream_answer *a)
{
    mcp_json_doc *d = NULL;
    mcp_json_parse(a->text.data, a->text.len, NULL, NULL, &d, NULL);
    const mcp_json *pages =
        mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(d), "data"), "elicitations");
    bool may_ask = !strcmp(r->msg->method, "tools/call") || !strcmp(r->msg->method, "prompts/get") ||
                   !strcmp(r->msg->method, "resources/read");
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = mcp_buf_append(&b, MCP_LITERAL("{\"resultType\":\"input_required\",\"inputRequests\":{"));
    size_t n = 0;
    for (size_t i = 0; rc == MCP_OK && may_ask && i < mcp_json_array_size(pages) && i < 64; i++) {
        const mcp_json *p = mcp_json_array_at(pages, i);
        size_t un, mn;
        const char *url = mcp_json_string(mcp_json_object_get(p, "url"), &un);
        const char *message = mcp_json_string(mcp_json_object_get(p, "message"), &mn);
        if (!url || !message)
            continue;
        char key[32];
        int kn = snprintf(key, sizeof key, "%s\"u%zu\":", n ? "," : "", n + 1);
        n++;
        rc = mcp_buf_append(&b, key, (size_t)kn);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&b, MCP_LITERAL("{\"method\":\"elicitation/create\",\"params\":"
                                                "{\"mode\":\"url\",\"message\":"));
        if (rc == MCP_OK)
            rc = mcp_json_write_string(message, mn, &b);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&b, MCP_LITERAL(",\"url\":"));
        if (rc == MCP_OK)
            rc = mcp_json_write_string(url, un, &b);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&b, MCP_LITERAL("}}"));
    }
    if (rc == MCP_OK)
        rc = mcp_buf_append(&b, MCP_LITERAL("}}"));
    mcp_json_doc_free(d);
    mcp_buf_free(&a->text);
    if (rc == MCP_OK && n) {
        a->kind = ANSWER_RESULT;
        a->code = 0;
        a->text = b;
        return;
    }
    mcp_buf_free(&b);
    mcp_buf_init(&a->text, 0, NULL);
    a->kind = ANSWER_ERROR;
    a->code = MCP_WIRE_INTERNAL_ERROR;
    mcp_buf_append(&a->text, MCP_LITERAL("Internal error: the server process asks for pages to be "
                                         "visited (2025-11-25 error -32042), which this request "
                                         "cannot be told"));
}

void upstream_answer_give(mcp__request *r, upstream_answer *a)
{
    if (a->code == MCP_WIRE_URL_ELICITATION_REQUIRED && mcp_protocol_modern(r->version))
        url_pages_asked(r, a);
    mcp__request_end(r, a->kind, a->code, a->text.data, a->text.len);
    mcp_buf_free(&a->text);
}

/* Tasks --------------------------------------------------------------------------
 *
 * A 2025-11-25 child may run a tools/call as a task (tasks.mdx), and a
 * tool may require it. A 2026-07-28 client has tasks only through the
 * extension, where the server decides (ext-tasks). So the shared child's
 * tools/call goes as a task call when the client declared the extension
 * (plainly otherwise), the session follows the child's task to its end
 * (tasks/get, tasks/result; a cancel is tasks/cancel), and once the child
 * made a task, the call becomes a task of the gateway's own (its id, its
 * store, its tasks/get and tasks/cancel; the child's id is never shown).
 * A child refuses a tool's wrong form -32601 (a tool that never runs as a
 * task, or only as one): the other form is sent, once, so that a client
 * without the extension still gets a task-only tool's result. */

bool upstream_runs_tasks(const upstream *up)
{
    mcp_session *cs = up->driver.session;
    const mcp_json *caps = mcp_json_doc_root(up->gw->server->caps);
    if (up->connected) {
        if (!mcp__revision_has(mcp_session_protocol_version(cs), MCP__HAS_TASKS))
            return false;
        caps = mcp_json_object_get(mcp_session_peer_info(cs), "capabilities");
    }
    const mcp_json *call = mcp_json_object_get(
        mcp_json_object_get(mcp_json_object_get(mcp_json_object_get(caps, "tasks"), "requests"),
                            "tools"),
        "call");
    return call && mcp_json_typeof(call) == MCP_JSON_OBJECT;
}

/* Whether the gateway chooses the form of f's call: a 2026-07-28
 * tools/call to the shared child, which runs tasks. */
static bool form_chosen(const forward *f, const upstream *up)
{
    return !up->owner && !up->caps && mcp_protocol_modern(f->req.version) &&
           !strcmp(f->req.msg->method, "tools/call") && upstream_runs_tasks(up);
}

bool gateway_declares_tasks(const mcp_message *msg)
{
    const mcp_json *caps = mcp__request_client_caps(msg);
    return mcp_json_object_get(mcp_json_object_get(caps, "extensions"), MCP__TASKS_EXTENSION);
}

/* The most task-only tool names kept. */
#define TASK_ONLY_MAX 1024

bool gateway_task_only(const gateway *gw, const mcp_message *msg)
{
    const char *name = mcp_json_string(mcp_json_object_get(msg->params, "name"), NULL);
    for (size_t i = 0; name && i < gw->ntask_only; i++)
        if (!strcmp(gw->task_only[i], name))
            return true;
    return false;
}

/* A tools/list page of the shared child's: which of its tools run only
 * as tasks (a child may refuse a plain call of one otherwise than with
 * -32601: the TypeScript SDK's answers an isError result). */
static void learn_task_only(gateway *gw, const mcp_json *result)
{
    const mcp_json *tools = mcp_json_object_get(result, "tools");
    for (size_t i = 0; i < mcp_json_array_size(tools); i++) {
        const mcp_json *t = mcp_json_array_at(tools, i);
        const char *name = mcp_json_string(mcp_json_object_get(t, "name"), NULL);
        const char *support = mcp_json_string(
            mcp_json_object_get(mcp_json_object_get(t, "execution"), "taskSupport"), NULL);
        if (!name)
            continue;
        bool only = support && !strcmp(support, "required");
        size_t k = 0;
        while (k < gw->ntask_only && strcmp(gw->task_only[k], name))
            k++;
        if (k < gw->ntask_only && !only) {
            free(gw->task_only[k]);
            gw->task_only[k] = gw->task_only[--gw->ntask_only];
        } else if (k == gw->ntask_only && only && k < TASK_ONLY_MAX) {
            char **v = realloc(gw->task_only, (k + 1) * sizeof *v);
            if (!v)
                return;
            gw->task_only = v;
            if ((v[k] = strdup(name)) != NULL)
                gw->ntask_only++;
        }
    }
}

int upstream_become_task(mcp__request *r)
{
    mcp_server *s = r->conn->server;
    int rc = mcp__features_request_become_task(r);
    if (rc == MCP_ERR_BUSY || rc == MCP_ERR_NOMEM)
        mcp__server_log(s, MCP_LOG_WARNING,
                        "gateway: the child's task is followed as a plain call: %s",
                        mcp_strerror(rc));
    return rc;
}

/* The child tells of its task of f's call (first: CreateTaskResult's). */
static void task_told(void *ud, mcp_handle h, const mcp_json *task)
{
    (void)h;
    (void)task;
    forward *f = ud;
    if (!f->made_task) {
        f->made_task = true;
        upstream_become_task(&f->req);
    }
}

static int send_forward(upstream *up, forward *f);

/* The child answered f (or its session ended): so is the client. */
static void answered(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)h;
    forward *f = ud;
    upstream *up = f->up;
    if (up)
        forward_unlink(f);
    if (up && outcome == MCP_ERR_REMOTE && m->error_code == MCP_WIRE_METHOD_NOT_FOUND &&
        !f->made_task && !f->other_tried && form_chosen(f, up)) {
        f->other_tried = true;
        f->as_task = !f->as_task;
        send_forward(up, f);
        return;
    }
    if (up && outcome == MCP_OK && !up->owner && !strcmp(f->req.msg->method, "tools/list"))
        learn_task_only(up->gw, m->result);
    upstream_answer a;
    upstream_asked q = {f->req.conn->server, f->req.msg->method, f->req.version, f->as_task};
    upstream_outcome(&q, up, outcome, m, &a);
    upstream_answer_give(&f->req, &a);
}

static void progressed(void *ud, mcp_handle h, double progress, double total,
                       const char *message)
{
    (void)h;
    forward *f = ud;
    mcp__request_progress(&f->req, progress, total, message);
}

int upstream_send(upstream *up, const mcp_message *msg, bool modern, bool progress,
                  mcp_response_fn cb, mcp_progress_fn progress_cb, upstream_task_fn on_task,
                  void *ud, mcp_handle *sent)
{
    mcp_json_doc *d;
    const mcp_json *params = child_params(msg->params, modern, &d);
    bool token = progress && progress_cb;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = MCP_NO_TIMEOUT,
                             .max_time_ms = MCP_NO_TIMEOUT,
                             .progress = token ? MCP_PROGRESS_DELIVER_ONLY : MCP_PROGRESS_NONE,
                             .task = on_task != NULL, .on_task = on_task};
    int rc = params || !msg->params
                 ? mcp_session_request(up->driver.session, mcp__now_ms(), msg->method, params, &o,
                                       cb, progress_cb, ud, sent)
                 : MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    mcp__driver_rearm(&up->driver);
    return rc;
}

int upstream_forward(upstream *up, forward *f)
{
    f->as_task = form_chosen(f, up) && (gateway_declares_tasks(f->req.msg) ||
                                        gateway_task_only(up->gw, f->req.msg));
    return send_forward(up, f);
}

static int send_forward(upstream *up, forward *f)
{
    mcp__request *r = &f->req;
    if (up->gone) {
        char text[300];
        snprintf(text, sizeof text, "Internal error: %s", up->why);
        return mcp__request_end(r, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, text, strlen(text));
    }
    f->up = up;
    f->next = up->requests;
    if (f->next)
        f->next->prev = f;
    up->requests = f;
    mcp_handle sent = 0; /* as in on_request: f may be ended within */
    const mcp_json *meta = mcp_json_object_get(r->msg->params, "_meta");
    bool token = mcp_json_object_get(meta, "progressToken") != NULL;
    int rc = upstream_send(up, r->msg, mcp_protocol_modern(r->version), token, answered, progressed,
                           f->as_task ? task_told : NULL, f, &sent);
    if (rc == MCP_OK) /* f is read only while still linked: ended, it may be freed */
        for (forward *k = up->requests; k; k = k->next)
            if (k == f)
                f->child_handle = sent;
    if (rc != MCP_OK) {
        if (f->up)
            forward_unlink(f);
        char text[320];
        snprintf(text, sizeof text, "Internal error: the request could not be forwarded: %s",
                 up->gone ? up->why : mcp_strerror(rc));
        return mcp__request_end(r, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, text, strlen(text));
    }
    return MCP_OK;
}

static void subscribed(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)h;
    gateway *gw = ud;
    if (outcome == MCP_ERR_REMOTE) {
        char shown[200];
        mcp__show_string(shown, sizeof shown, m->error_message, m->error_message_len, 160,
                         sizeof shown - 1);
        mcp__server_log(gw->server, MCP_LOG_WARNING,
                        "gateway: the server process refused a resource subscription: %s", shown);
    }
}

void upstream_subscribe(upstream *up, const char *uri, bool on)
{
    if (up->gone || up->over || !up->driver_open)
        return;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = d ? mcp_json_new_object(d) : NULL;
    if (params)
        mcp_json_object_set(d, params, "uri", mcp_json_new_string(d, uri));
    mcp_request_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE,
                             .timeout_ms = CONNECT_TIMEOUT_MS, .max_time_ms = CONNECT_TIMEOUT_MS};
    mcp_handle sent;
    int rc = params && mcp_json_doc_error(d) == MCP_OK
                 ? mcp_session_request(up->driver.session, mcp__now_ms(),
                                       on ? "resources/subscribe" : "resources/unsubscribe",
                                       params, &o, subscribed, NULL, up->gw, &sent)
                 : MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    if (rc != MCP_OK)
        mcp__server_log(up->gw->server, MCP_LOG_WARNING,
                        "gateway: a resource subscription could not be sent to the server "
                        "process: %s",
                        mcp_strerror(rc));
    mcp__driver_rearm(&up->driver);
}

void upstream_cancel(forward *f, const char *reason)
{
    upstream *up = f->up;
    if (!up || !up->driver_open)
        return;
    /* Its callback runs within, ending f's side (the request is settled:
     * the answer is dropped). */
    mcp_session_cancel(up->driver.session, mcp__now_ms(), f->child_handle, reason);
    mcp__driver_rearm(&up->driver);
}
