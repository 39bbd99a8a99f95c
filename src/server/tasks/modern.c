/* SPDX-License-Identifier: MIT */
/*
 * 2026-07-28 tasks (the io.modelcontextprotocol/tasks extension) through
 * the task store (store.h): tasks/get, tasks/update and tasks/cancel ask
 * the store, which may answer later (Redis); a task made here is given out
 * (CreateTaskResult) once the store has kept it; and what the store tells
 * (a cancel or answers for a task running here, a record changed) reaches
 * the process's table and its listens.
 *
 * A request waiting for the store is a request of its own (a store call,
 * as a tasks/result waiting is): the client's cancel or its connection's
 * end settles it, and the store's late answer is then dropped. With the
 * memory store, which answers before its call returns, none is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/writer.h"
#include "server/tasks/store.h"
#include "session/entry.h"

static task_store *store_of(conn *c)
{
    return mcp__server_state(c->server, &mcp__tasks_feature);
}

/* Writing the detailed task ----------------------------------------------------- */

void tasks_write_inputs(mcp__jw *w, const task *t)
{
    mcp__jw_object(w);
    for (const mcp__question *q = t->inputs; q; q = q->next) {
        mcp__jw_key(w, q->key);
        mcp__jw_object(w);
        mcp__jw_key(w, "method");
        mcp__jw_string(w, q->method);
        mcp__jw_key(w, "params");
        if (q->params)
            mcp__jw_value(w, q->params);
        else
            mcp__jw_raw(w, "{}", 2);
        mcp__jw_object_end(w);
    }
    mcp__jw_object_end(w);
}

void tasks_record_of(const task *t, task_record *rec)
{
    *rec = (task_record){
        .view = {t->id, t->status, t->status_message, t->created_ms, t->updated_ms, t->ttl_ms,
                 t->store->poll_ms, true},
        .local = t,
        .outcome = t->outcome,
        .outcome_len = t->outcome_len,
        .outcome_code = t->outcome_code,
        .outcome_is_error = t->outcome_is_error,
    };
}

/* The result as the call would have answered it: under 2026-07-28 a
 * result says resultType "complete" (the ext-tasks SDK refuses one that
 * does not). */
static void write_result(mcp__jw *w, const task_record *rec)
{
    mcp_json_doc *done = NULL;
    if (mcp_json_parse(rec->outcome, rec->outcome_len, NULL, NULL, &done, NULL) != MCP_OK) {
        mcp__jw_raw(w, rec->outcome, rec->outcome_len);
        return;
    }
    const mcp_json *r = mcp_json_doc_root(done);
    mcp__jw_object(w);
    for (size_t i = 0; i < mcp_json_object_size(r); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(r, i, &k, &kn);
        if (kn == 10 && !memcmp(k, "resultType", 10))
            continue;
        mcp__jw_keyn(w, k, kn);
        mcp__jw_value(w, v);
    }
    mcp__jw_key(w, "resultType");
    mcp__jw_string(w, "complete");
    mcp__jw_object_end(w);
    mcp_json_doc_free(done);
}

/* The error a failed task's call ended with: {code, message[, data]}. */
static void write_error(mcp__jw *w, const task_record *rec, const mcp_json *e)
{
    mcp__jw_key(w, "error");
    mcp__jw_object(w);
    mcp__jw_key(w, "code");
    mcp__jw_int(w, rec->outcome_code);
    /* Only the members an outcome has ({message[, data]}): another "code"
     * (a record someone else wrote) would be a second member of that name. */
    for (size_t i = 0; i < mcp_json_object_size(e); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(e, i, &k, &kn);
        if ((kn == 7 && !memcmp(k, "message", 7)) || (kn == 4 && !memcmp(k, "data", 4))) {
            mcp__jw_keyn(w, k, kn);
            mcp__jw_value(w, v);
        }
    }
    mcp__jw_object_end(w);
}

/* The task, its questions outstanding (ext-tasks: MUST, every one, by its
 * key), and its result (completed) or error (failed), inline. */
int tasks_detailed_object(mcp_buf *b, const task_record *rec)
{
    mcp_json_doc *err = NULL;
    mcp__jw w;
    mcp__jw_begin(&w, b);
    mcp__jw_object(&w);
    mcp__task_write(&w, &rec->view);
    if (rec->view.status == MCP__TASK_INPUT_REQUIRED) {
        mcp__jw_key(&w, "inputRequests");
        if (rec->local)
            tasks_write_inputs(&w, rec->local);
        else if (rec->inputs && rec->inputs_len)
            mcp__jw_raw(&w, rec->inputs, rec->inputs_len);
        else
            mcp__jw_raw(&w, "{}", 2);
    }
    if (rec->outcome && rec->view.status == MCP__TASK_COMPLETED) {
        mcp__jw_key(&w, "result");
        write_result(&w, rec);
    } else if (rec->outcome && rec->view.status == MCP__TASK_FAILED && rec->outcome_is_error &&
               mcp_json_parse(rec->outcome, rec->outcome_len, NULL, NULL, &err, NULL) == MCP_OK) {
        write_error(&w, rec, mcp_json_doc_root(err));
    }
    mcp__jw_object_end(&w);
    mcp_json_doc_free(err);
    return mcp__jw_finish(&w);
}

/* What the store tells ------------------------------------------------------------ */

void tasks_store_changed(task_store *ts, const char *id, const mcp_json *detailed,
                         const task_record *rec,
                         bool (*credential_matches)(const char *credential, const void *ctx),
                         const void *ctx)
{
    bool anyone = false;
    for (conn *c = ts->server->conns; c && !anyone; c = c->next)
        anyone = !c->down && mcp__session_listening(c->driver.session) &&
                 credential_matches(c->credential, ctx);
    if (!anyone)
        return; /* nobody here listens: nothing to write */
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_json_doc *d = NULL;
    if (!detailed && rec && tasks_detailed_object(&b, rec) == MCP_OK &&
        mcp_json_parse(b.data, b.len, NULL, NULL, &d, NULL) == MCP_OK)
        detailed = mcp_json_doc_root(d);
    if (detailed)
        for (conn *c = ts->server->conns; c; c = c->next)
            if (!c->down && credential_matches(c->credential, ctx))
                mcp_session_publish_task(c->driver.session, id, detailed);
    mcp_json_doc_free(d);
    mcp_buf_free(&b);
}

void tasks_cancel_local(task *t, const char *via)
{
    if (t->gone || mcp__task_terminal(t->status))
        return;
    /* One step: cancelled before anything is written (tasks.mdx: the task
     * is cancelled before the response), then the run stops. */
    task_hold(t);
    mcp__request *run = t->run;
    t->run = NULL;
    task_transition(t, MCP__TASK_CANCELLED, "Cancelled by the client");
    if (run) {
        mcp__server_log(t->store->server, MCP_LOG_INFO, "task %s cancelled (%s): its call stops",
                        t->id, via);
        mcp__request_cancel(run, "the task was cancelled (tasks/cancel)");
    }
    if (!t->gone)
        tasks_ended(t);
    task_release(t);
}

void tasks_answer_local(task *t, const mcp_json *responses)
{
    task_hold(t);
    bool changed = false;
    for (size_t i = 0; i < mcp_json_object_size(responses) && !t->gone; i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(responses, i, &k, &kn);
        if (mcp_json_typeof(v) != MCP_JSON_OBJECT)
            continue;
        for (mcp__question **p = &t->inputs; *p; p = &(*p)->next) {
            mcp__question *q = *p;
            if (strlen(q->key) == kn && !memcmp(q->key, k, kn)) {
                *p = q->next;
                q->answered(q, v);
                changed = true;
                break;
            }
        }
    }
    if (!t->gone && changed) {
        if (!t->inputs && t->status == MCP__TASK_INPUT_REQUIRED &&
            task_transition(t, MCP__TASK_WORKING, NULL))
            tasks_notify_status(t);
        else
            tasks_inputs_changed(t);
    }
    task_release(t);
}

void tasks_follow_record(task *t, mcp__task_status to)
{
    if (t->gone || t->status == to || !mcp__task_terminal(to))
        return;
    task_hold(t);
    mcp__request *run = t->run;
    t->run = NULL;
    /* The record decides: a status the local table would call no
     * transition (from one terminal status to another) is taken as is. */
    t->status = to;
    if (run) {
        mcp__server_log(t->store->server, MCP_LOG_INFO, "task %s is %s in the store: its call stops",
                        t->id, mcp__task_status_name(to));
        mcp__request_cancel(run, to == MCP__TASK_CANCELLED ? "the task was cancelled (tasks/cancel)"
                                                           : "the task ended in the task store");
    }
    task_release(t);
}

void tasks_store_cancelled(task_store *ts, const char *id)
{
    task *t = task_find_modern(ts, NULL, true, id, strlen(id));
    if (t)
        tasks_cancel_local(t, "tasks/cancel, through the task store");
}

void tasks_store_answers(task_store *ts, const char *id, const mcp_json *responses)
{
    task *t = task_find_modern(ts, NULL, true, id, strlen(id));
    if (t && !mcp__task_terminal(t->status))
        tasks_answer_local(t, responses);
}

/* Store calls ------------------------------------------------------------------------ */

typedef enum { STORE_CALL_GET, STORE_CALL_UPDATE, STORE_CALL_CANCEL, STORE_CALL_CREATE } store_call_kind;

/* A request asking the store. */
typedef struct store_call {
    mcp__request req; /* first; started only when the store is async */
    bool waiting;     /* req started: the answer goes through it */
    conn *conn;
    mcp_handle handle;
    store_call_kind kind;
    task *task;       /* STORE_CALL_CREATE: held until the store answers */
    char shown[120];  /* the task id as an error message shows it */
} store_call;

static void store_call_destroy(mcp__request *r)
{
    free(r);
}

static void call_reply_raw(store_call *sc, const char *text, size_t len)
{
    if (sc->waiting)
        mcp__request_end(&sc->req, ANSWER_RESULT, 0, text, len);
    else
        mcp_session_reply_raw(sc->conn->driver.session, sc->handle, text, len);
}

static void call_reply_error(store_call *sc, int64_t code, const char *message)
{
    if (sc->waiting)
        mcp__request_end(&sc->req, ANSWER_ERROR, code, message, strlen(message));
    else
        mcp_session_reply_error(sc->conn->driver.session, sc->handle, code, message, NULL);
}

/* The answers every call shares: an unknown task, the store unreachable. */
static bool call_failed(store_call *sc, const store_result *r)
{
    char text[400];
    if (r->status == STORE_NOT_FOUND) {
        snprintf(text, sizeof text, "Invalid params: no task %s", sc->shown);
        call_reply_error(sc, MCP_WIRE_INVALID_PARAMS, text);
        return true;
    }
    if (r->status == STORE_MALFORMED) {
        snprintf(text, sizeof text,
                 "Internal error: the record of task %s in the task store is malformed: %s",
                 sc->shown, r->why ? r->why : "no reason given");
        call_reply_error(sc, MCP_WIRE_INTERNAL_ERROR, text);
        return true;
    }
    if (r->status == STORE_REFUSED) {
        snprintf(text, sizeof text, "Internal error: the task store refused it: %s",
                 r->why ? r->why : "no reason given");
        call_reply_error(sc, MCP_WIRE_INTERNAL_ERROR, text);
        return true;
    }
    if (r->status == STORE_UNAVAILABLE) {
        snprintf(text, sizeof text, "Internal error: the task store is unavailable: %s",
                 r->why ? r->why : "no reason given");
        call_reply_error(sc, MCP_WIRE_INTERNAL_ERROR, text);
        return true;
    }
    return false;
}

/* A call for request h of c about task id (n bytes): on the stack (sync
 * store) or made (async), or NULL with h answered. */
static store_call *call_begin(conn *c, mcp_handle h, const mcp_message *msg, store_call_kind kind,
                              const char *id, size_t n, store_call *on_stack)
{
    store_call *sc = on_stack;
    if (store_of(c)->backend->ops->async) {
        sc = calloc(1, sizeof *sc);
        if (!sc || mcp__request_start(&sc->req, c, h, msg, NULL) != MCP_OK) {
            free(sc);
            mcp_session_reply_error(c->driver.session, h, MCP_WIRE_INTERNAL_ERROR,
                                    "Internal error: out of memory", NULL);
            return NULL;
        }
        sc->req.destroy = store_call_destroy;
        sc->waiting = true;
    } else {
        memset(sc, 0, sizeof *sc);
    }
    sc->conn = c;
    sc->handle = h;
    sc->kind = kind;
    if (id)
        mcp__show_string(sc->shown, sizeof sc->shown, id, n, 64, 100);
    return sc;
}

static void got(void *arg, const store_result *r)
{
    store_call *sc = arg;
    if (call_failed(sc, r))
        return;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    if (tasks_detailed_object(&b, r->record) == MCP_OK)
        call_reply_raw(sc, b.data, b.len);
    else
        call_reply_error(sc, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory");
    mcp_buf_free(&b);
}

/* tasks/update and tasks/cancel: acknowledgments, whatever the task's
 * state (what it does next, tasks/get tells). */
static void acknowledged(void *arg, const store_result *r)
{
    store_call *sc = arg;
    if (!call_failed(sc, r))
        call_reply_raw(sc, "{}", 2);
}

void tasks_modern_get(conn *c, mcp_handle h, const mcp_message *msg, const char *id, size_t n)
{
    /* A task that ended here, its end kept by the store: the record can
     * change no more and this copy is it. Answered at once, without asking
     * a store that is a round trip away. */
    task *t = task_find_modern(store_of(c), c->credential, false, id, n);
    if (t && !t->gone && t->record_final) {
        task_record rec;
        tasks_record_of(t, &rec);
        store_result r = {.status = STORE_OK, .task_status = rec.view.status, .record = &rec};
        store_call sc = {.conn = c, .handle = h, .kind = STORE_CALL_GET};
        got(&sc, &r);
        return;
    }
    store_call on_stack, *sc = call_begin(c, h, msg, STORE_CALL_GET, id, n, &on_stack);
    if (sc) {
        task_backend *b = store_of(c)->backend;
        b->ops->get(b, id, n, c->credential, got, sc);
    }
}

void tasks_modern_update(conn *c, mcp_handle h, const mcp_message *msg, const char *id, size_t n,
                         const mcp_json *responses)
{
    store_call on_stack, *sc = call_begin(c, h, msg, STORE_CALL_UPDATE, id, n, &on_stack);
    if (sc) {
        task_backend *b = store_of(c)->backend;
        b->ops->update(b, id, n, c->credential, responses, acknowledged, sc);
    }
}

void tasks_modern_cancel(conn *c, mcp_handle h, const mcp_message *msg, const char *id, size_t n)
{
    store_call on_stack, *sc = call_begin(c, h, msg, STORE_CALL_CANCEL, id, n, &on_stack);
    if (sc) {
        task_backend *b = store_of(c)->backend;
        b->ops->cancel(b, id, n, c->credential, acknowledged, sc);
    }
}

/* Giving a task out once it is kept ------------------------------------------------ */

/* The task's CreateTaskResult, or the error saying why it was not kept. */
static void kept(void *arg, const store_result *r)
{
    store_call *sc = arg;
    task *t = sc->task;
    sc->task = NULL;
    if (r->status != STORE_OK) {
        char text[400];
        snprintf(text, sizeof text, "Internal error: the task store could not keep the task: %s",
                 r->why ? r->why : "no reason given");
        if (!t->gone)
            mcp__server_log(t->store->server, MCP_LOG_WARNING, "task %s not made: %s", t->id,
                            text);
        task_remove(t, "the task store could not keep it");
        call_reply_error(sc, MCP_WIRE_INTERNAL_ERROR, text);
    } else if (sc->req.settled) {
        /* Its request went (the client cancelled, or its connection
         * ended) while the store kept it: the settle hook ended it. */
        mcp__request_end(&sc->req, ANSWER_NONE, 0, NULL, 0);
    } else {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp__jw w;
        mcp__jw_begin(&w, &b);
        mcp__jw_object(&w);
        mcp__jw_key(&w, "resultType");
        mcp__jw_string(&w, "task");
        task_write(&w, t);
        mcp__jw_object_end(&w);
        if (mcp__jw_finish(&w) == MCP_OK)
            call_reply_raw(sc, b.data, b.len);
        else
            call_reply_error(sc, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory");
        mcp_buf_free(&b);
    }
    task_release(t);
}

/* Only for an async store (call_begin makes the call). */
bool tasks_modern_create(task *t, mcp__request *r, mcp_handle h)
{
    store_call *sc = call_begin(r->conn, h, r->msg, STORE_CALL_CREATE, NULL, 0, NULL);
    if (!sc) {
        task_remove(t, "its CreateTaskResult could not be sent");
        return false;
    }
    task_hold(t); /* the call's, dropped when the store answers */
    sc->task = t;
    task_hold(t); /* ours: that answer may come before create returns */
    task_backend *b = t->store->backend;
    b->ops->create(b, t, kept, sc);
    bool alive = !t->gone;
    task_release(t);
    return alive;
}

bool tasks_store_call_settled(mcp__request *r, const mcp__settle *how)
{
    if (r->destroy != store_call_destroy)
        return false;
    store_call *sc = (store_call *)r;
    if (how->cancelled && sc->kind == STORE_CALL_CREATE && sc->task && !sc->task->gone) {
        /* Nobody can have its id: the task ends now (the store keeps it
         * cancelled if it kept it at all). */
        task *t = sc->task;
        task_hold(t);
        tasks_cancel_local(t, "its request went before the task was given out");
        task_remove(t, "its request went before the task was given out");
        task_release(t);
    }
    return true;
}
