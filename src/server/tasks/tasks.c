/* SPDX-License-Identifier: MIT */
/*
 * The tasks feature: tools/call taken over (a call with params.task becomes
 * a task), tasks/get, tasks/result, tasks/list and tasks/cancel, the
 * capabilities, and a task's run: the call detached from its request,
 * whose answer ends the task.
 *
 * Under 2026-07-28 the same, as the io.modelcontextprotocol/tasks extension
 * (ext-tasks, specification/draft/tasks.md): declared under extensions, a
 * call becomes a task when the request declares the extension and the tool
 * may run as one (a tool that must, for a request that does not declare
 * it: -32021), CreateTaskResult is the flat task with resultType "task",
 * tasks/get carries the result or error, tasks/update and tasks/cancel are
 * acknowledgments, tasks/result and tasks/list do not exist.
 *
 * Choices the spec leaves open:
 * - tasks/result of a cancelled task is the error -32602 "Task <id> was
 *   cancelled" with data {"taskId", "status": "cancelled"}: the call has
 *   no result, and the request names a task whose result cannot be had.
 * - A task-augmented call past the caps (per client, in all) is refused
 *   -32603 with a message that names the cap.
 * - A task that no longer exists (expired, its session ended) answers its
 *   waiting tasks/result -32602, as an unknown id would be answered.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/writer.h"
#include "server/tasks/store.h"
#include "session/entry.h"
#include "session/revision.h"


static bool modern_request(mcp_session *ss, mcp_handle h)
{
    return mcp_protocol_modern(mcp_session_inbound_version(ss, h));
}

/* Whether request h declares the tasks extension (2026-07-28: per request,
 * in its envelope's clientCapabilities). */
static bool declares_extension(mcp_session *ss, mcp_handle h)
{
    const mcp_json *caps = mcp_session_inbound_client_capabilities(ss, h);
    return mcp_json_object_get(mcp_json_object_get(caps, "extensions"), MCP__TASKS_EXTENSION) != NULL;
}

/* Answer h -32603 for memory that could not be had. */
static void reply_nomem(mcp_session *ss, mcp_handle h)
{
    mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory", NULL);
}

/* Answer h with the result b holds, when writing it succeeded (rc); else
 * -32603. Returns the reply's code. */
static int reply_written(mcp_session *ss, mcp_handle h, int rc, const mcp_buf *b)
{
    if (rc == MCP_OK)
        return mcp_session_reply_raw(ss, h, b->data, b->len);
    reply_nomem(ss, h);
    return rc;
}

/* -32021 with data.requiredCapabilities naming the extension. */
static void missing_extension(mcp_session *ss, mcp_handle h)
{
    static const char need[] = "{\"extensions\":{\"" MCP__TASKS_EXTENSION "\":{}}}";
    mcp_json_doc *d = NULL;
    if (mcp_json_parse(need, sizeof need - 1, NULL, NULL, &d, NULL) == MCP_OK)
        mcp_session_reply_missing_capability(ss, h, mcp_json_doc_root(d));
    else
        reply_nomem(ss, h);
    mcp_json_doc_free(d);
}

/* Whether a request of this revision has tasks in the core protocol:
 * 2025-11-25 (2026-07-28 has them as the extension, handled apart). */
static bool tasks_revision(const char *version)
{
    return mcp__revision_has(version, MCP__HAS_TASKS);
}

static task_store *store_of(conn *c)
{
    return mcp__server_state(c->server, &mcp__tasks_feature);
}

/* Writing ------------------------------------------------------------------------ */

/* {<the task's members>} in b, or its CreateTaskResult (created): under
 * 2025 {"task":{...}}, under 2026 the task itself with resultType "task". */
static int task_object(mcp_buf *b, const task *t, bool created)
{
    bool nested = created && !t->modern;
    mcp__jw w;
    mcp__jw_begin(&w, b);
    mcp__jw_object(&w);
    if (created && t->modern) {
        mcp__jw_key(&w, "resultType");
        mcp__jw_string(&w, "task");
    }
    if (nested) {
        mcp__jw_key(&w, "task");
        mcp__jw_object(&w);
    }
    task_write(&w, t);
    if (nested)
        mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    return mcp__jw_finish(&w);
}

static void reply_task(mcp_session *ss, mcp_handle h, const task *t)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    reply_written(ss, h, task_object(&b, t, false), &b);
    mcp_buf_free(&b);
}

/* What tasks/result answers for ended t: the kind and code of the answer,
 * and in b its text as mcp__request_end takes it (a result object, or
 * {"message":...,"data":...}). */
static int task_answer(const task *t, answer_kind *kind, int64_t *code, mcp_buf *b)
{
    if (t->status == MCP__TASK_CANCELLED) {
        mcp__jw w;
        mcp__jw_begin(&w, b);
        mcp__jw_object(&w);
        mcp__jw_key(&w, "message");
        char text[80];
        snprintf(text, sizeof text, "Task %s was cancelled", t->id);
        mcp__jw_string(&w, text);
        mcp__jw_key(&w, "data");
        mcp__jw_object(&w);
        mcp__jw_key(&w, "taskId");
        mcp__jw_string(&w, t->id);
        mcp__jw_key(&w, "status");
        mcp__jw_string(&w, "cancelled");
        mcp__jw_object_end(&w);
        mcp__jw_object_end(&w);
        *kind = ANSWER_ERROR_DATA;
        *code = MCP_WIRE_INVALID_PARAMS;
        return mcp__jw_finish(&w);
    }
    if (t->outcome_is_error) {
        *kind = ANSWER_ERROR_DATA;
        *code = t->outcome_code;
        return mcp_buf_append(b, t->outcome, t->outcome_len);
    }
    *kind = ANSWER_RESULT;
    *code = 0;
    /* As the call made it, with the task named in its _meta (tasks.mdx:
     * MUST). */
    return mcp__task_result_with_meta(t->outcome, t->outcome_len, t->id, b);
}

/* Answer request h of the session now with what t ended with. */
static void reply_ended(mcp_session *ss, mcp_handle h, const task *t)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    answer_kind kind;
    int64_t code;
    if (task_answer(t, &kind, &code, &b) != MCP_OK) {
        reply_nomem(ss, h);
    } else if (kind == ANSWER_RESULT) {
        mcp_session_reply_raw(ss, h, b.data, b.len);
    } else {
        mcp_json_doc *d = NULL;
        if (mcp_json_parse(b.data, b.len, NULL, NULL, &d, NULL) == MCP_OK) {
            const mcp_json *root = mcp_json_doc_root(d);
            mcp_session_reply_error(ss, h, code,
                                    mcp_json_string(mcp_json_object_get(root, "message"), NULL),
                                    mcp_json_object_get(root, "data"));
        } else {
            reply_nomem(ss, h);
        }
        mcp_json_doc_free(d);
    }
    mcp_buf_free(&b);
}

/* Telling ------------------------------------------------------------------------ */

/* The store's answer to a change of t's: t follows a record that ended
 * otherwise. */
static void record_changed(void *arg, const store_result *r)
{
    task *t = arg;
    if (r->status == STORE_OK && mcp__task_terminal(r->task_status) &&
        r->task_status == t->status) {
        t->record_final = true;
    } else if (r->status == STORE_ENDED) {
        tasks_follow_record(t, r->task_status);
    } else if (r->status == STORE_UNAVAILABLE && !t->gone) {
        /* Written again, as it is then, once the store is back. */
        t->record_stale = true;
        mcp__server_log(t->store->server, MCP_LOG_WARNING,
                        "task %s: its record could not be updated (again once the store is "
                        "back): %s", t->id, r->why);
    }
    task_release(t);
}

static void modern_changed(task *t, bool announce)
{
    if (t->gone)
        return;
    t->record_stale = false;
    task_backend *b = t->store->backend;
    task_hold(t);
    b->ops->changed(b, t, announce, record_changed, t);
}

void tasks_record_again(task *t)
{
    modern_changed(t, true);
}

void tasks_inputs_changed(task *t)
{
    if (t->modern)
        modern_changed(t, false);
}

void tasks_notify_status(task *t)
{
    if (t->modern) {
        modern_changed(t, true);
        return;
    }
    if (t->gone || !t->owner || t->owner->down)
        return;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_json_doc *d = NULL;
    if (task_object(&b, t, false) == MCP_OK &&
        mcp_json_parse(b.data, b.len, NULL, NULL, &d, NULL) == MCP_OK)
        mcp_session_notify(t->owner->driver.session, "notifications/tasks/status",
                           mcp_json_doc_root(d));
    mcp_json_doc_free(d);
    mcp_buf_free(&b);
}

void tasks_ended(task *t)
{
    task_hold(t);
    while (t->waiters && !t->gone) {
        task_waiter *w = t->waiters;
        t->waiters = w->next;
        w->task = NULL;
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        answer_kind kind;
        int64_t code;
        if (task_answer(t, &kind, &code, &b) == MCP_OK)
            mcp__request_end(&w->req, kind, code, b.data, b.len);
        else
            mcp__request_end(&w->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR,
                             MCP_LITERAL("Internal error: out of memory"));
        mcp_buf_free(&b);
    }
    tasks_notify_status(t);
    task_release(t);
}

/* The run: the tool's call as the task ------------------------------------------- */

static task *task_of(mcp__request *r)
{
    return (task *)(void *)(uintptr_t)r->sink;
}

/* Whether a tool's result says isError: a failed task (tasks.mdx). */
static bool is_error_result(const char *text, size_t len)
{
    mcp_json_doc *d;
    bool yes = false;
    if (mcp_json_parse(text, len, NULL, NULL, &d, NULL) == MCP_OK) {
        mcp_json_get_bool(mcp_json_object_get(mcp_json_doc_root(d), "isError"), &yes);
        mcp_json_doc_free(d);
    }
    return yes;
}

/* {"message":message} as an error's text (n bytes of message). */
static char *error_text(const char *message, size_t n, size_t *len)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "message");
    mcp__jw_stringn(&w, message, n);
    mcp__jw_object_end(&w);
    if (mcp__jw_finish(&w) != MCP_OK) {
        mcp_buf_free(&b);
        return NULL;
    }
    *len = b.len;
    return b.data;
}

static void run_answered(mcp__request *r, answer_kind kind, int64_t code, const char *text,
                         size_t len)
{
    task *t = task_of(r);
    t->run = NULL;
    if (t->gone || mcp__task_terminal(t->status))
        return;
    mcp__task_status to = MCP__TASK_COMPLETED;
    const char *message = NULL;
    char *outcome = NULL;
    size_t outcome_len = 0;
    bool is_error = false;
    if (kind == ANSWER_RESULT || kind == ANSWER_RESULT_PLAIN) {
        outcome = malloc(len + 1);
        if (outcome) {
            memcpy(outcome, text, len);
            outcome[len] = '\0';
            outcome_len = len;
        }
        /* 2025: a tool's isError result fails its task; 2026: the task
         * completed (failed is for JSON-RPC errors only). */
        if (is_error_result(text, len)) {
            to = t->modern ? MCP__TASK_COMPLETED : MCP__TASK_FAILED;
            message = "The tool reported an error (isError)";
        }
    } else if (kind == ANSWER_ERROR_DATA) {
        outcome = strndup(text, len);
        outcome_len = len;
        is_error = true;
        to = MCP__TASK_FAILED;
        message = "The call ended with an error";
    } else {
        if (kind != ANSWER_ERROR) {
            code = MCP_WIRE_INTERNAL_ERROR;
            text = "Internal error: the handler ended without a result";
            len = strlen(text);
        }
        message = "The call ended with an error";
        outcome = error_text(text, len, &outcome_len);
        is_error = true;
        to = MCP__TASK_FAILED;
    }
    if (!outcome) {
        /* Out of memory: the task still ends, failed, with a short error. */
        to = MCP__TASK_FAILED;
        is_error = true;
        code = MCP_WIRE_INTERNAL_ERROR;
        message = "Internal error: out of memory";
        outcome = error_text(message, strlen(message), &outcome_len);
    }
    t->outcome = outcome;
    t->outcome_len = outcome_len;
    t->outcome_is_error = is_error;
    t->outcome_code = code;
    task_transition(t, to, message);
    tasks_ended(t);
}

static void run_progress(mcp__request *r, double progress, double total, const char *message)
{
    task *t = task_of(r);
    /* 2026: tasks have no progress (ext-tasks: MUST NOT). */
    if (t->gone || !t->owner || t->owner->down)
        return;
    const mcp_json *token =
        mcp_json_object_get(mcp_json_object_get(r->msg->params, "_meta"), "progressToken");
    mcp__session_task_progress(t->owner->driver.session, token, progress, total, message, t->id);
}

static void run_log(mcp__request *r, mcp_log_level level, const char *logger, const char *text)
{
    task *t = task_of(r);
    if (t->gone || !t->owner || t->owner->down)
        return;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *data = d ? mcp_json_new_string(d, text) : NULL;
    if (data)
        mcp__session_task_log(t->owner->driver.session, level, logger, data, t->id);
    mcp_json_doc_free(d);
}

/* The run asks the client (2025): the task needs input while any question
 * is open (input_required), and is working again once none is; the
 * question goes with a waiting tasks/result (on its stream, tasks.mdx),
 * naming the task, and else waits for one (the requestor SHOULD call
 * tasks/result on input_required: the status notification says so), or
 * for a tasks/get, after which it goes on the session's own route: a
 * question sent before the client read CreateTaskResult would name a task
 * it does not know yet (ext-tasks 0.2.2 answers those "cancel"), and over
 * HTTP a tasks/result's stream is the one sure to reach the client. */
static mcp_handle run_asking(mcp__request *r, bool open, const char **tag)
{
    task *t = task_of(r);
    if (t->gone)
        return 0;
    task_hold(t);
    if (open && t->questions++ == 0 && task_transition(t, MCP__TASK_INPUT_REQUIRED,
                                                       "Waiting for the client's answer"))
        tasks_notify_status(t);
    else if (!open && t->questions && --t->questions == 0 &&
             t->status == MCP__TASK_INPUT_REQUIRED && task_transition(t, MCP__TASK_WORKING, NULL))
        tasks_notify_status(t);
    mcp_handle with = t->gone ? 0 : t->waiters ? t->waiters->req.handle : MCP__ASK_HOLD;
    if (tag)
        *tag = t->id;
    task_release(t);
    return with;
}

/* Its run's questions are none any more: working again. */
static void inputs_settled(task *t)
{
    if (!t->inputs && t->status == MCP__TASK_INPUT_REQUIRED && task_transition(t, MCP__TASK_WORKING, NULL))
        tasks_notify_status(t);
    else if (!mcp__task_terminal(t->status))
        tasks_inputs_changed(t);
}

/* The run asks (2026): the question waits in the task, for tasks/get to
 * show and tasks/update to answer; the task needs input while any does. */
static int run_pose(mcp__request *r, mcp__question *q)
{
    task *t = task_of(r);
    if (t->gone || mcp__task_terminal(t->status))
        return MCP_ERR_CANCELLED;
    for (unsigned i = 0; i < t->nkeys_used; i++)
        if (!strcmp(t->keys_used[i], q->key))
            return MCP_ERR_INVALID_ARG;
    char **keys = realloc(t->keys_used, (t->nkeys_used + 1) * sizeof *keys);
    if (!keys)
        return MCP_ERR_NOMEM;
    t->keys_used = keys;
    if (!(keys[t->nkeys_used] = strdup(q->key)))
        return MCP_ERR_NOMEM;
    t->nkeys_used++;
    mcp__question **end = &t->inputs;
    while (*end)
        end = &(*end)->next;
    q->next = NULL;
    *end = q;
    if (task_transition(t, MCP__TASK_INPUT_REQUIRED, "Waiting for the client's answer"))
        tasks_notify_status(t);
    else
        tasks_inputs_changed(t);
    return MCP_OK;
}

static void run_withdraw(mcp__request *r, mcp__question *q)
{
    task *t = task_of(r);
    for (mcp__question **p = &t->inputs; *p; p = &(*p)->next)
        if (*p == q) {
            *p = q->next;
            break;
        }
    if (!t->gone)
        inputs_settled(t);
}

static const mcp__request_sink run_sink = {run_answered, run_progress, run_log,
                                           run_asking,   run_pose,     run_withdraw};

typedef struct start {
    task *task;
    mcp_handle handle;
    bool started;
} start;

/* Call r becomes t's run, and its request h is answered CreateTaskResult
 * before anything of the run can end the task. Whether the run goes on. */
static bool run_as_task(task *t, mcp__request *r, mcp_handle h)
{
    mcp__server_log(t->store->server, MCP_LOG_DEBUG, "task %s: runs here (%s)", t->id,
                    r->msg->method);
    t->run = r;
    mcp__request_detach(r, &t->sink);
    /* A store that answers later: h waits for it (the run goes on
     * meanwhile; what it does is written after the task, in order). */
    if (t->modern && t->store->backend->ops->async)
        return tasks_modern_create(t, r, h) && !r->settled;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = task_object(&b, t, true);
    task_hold(t);
    mcp_session *ss = r->conn->driver.session;
    rc = reply_written(ss, h, rc, &b);
    mcp_buf_free(&b);
    /* Written, or the write ended the connection (and a 2025 task with
     * it; a 2026 task whose id nobody got is removed here). A result that
     * could not even be encoded leaves the request unanswered: it gets the
     * error. */
    if (rc == MCP_ERR_INVALID_ARG)
        mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR,
                                "Internal error: the task could not be written", NULL);
    if (rc != MCP_OK && (rc != MCP_ERR_CLOSED || t->modern))
        task_remove(t, "its CreateTaskResult could not be sent");
    bool running = !t->gone && !r->settled;
    task_release(t);
    return running;
}

/* The call is made: it is the task's run from the start. */
static bool task_started(mcp_call *c, void *arg)
{
    start *st = arg;
    st->started = true;
    return run_as_task(st->task, &c->req, st->handle);
}

/* The methods -------------------------------------------------------------------- */

static void not_in_revision(mcp_session *ss, mcp_handle h, const mcp_message *msg)
{
    char text[160];
    snprintf(text, sizeof text, "Method not found: %.*s is not part of protocol revision %s",
             (int)msg->method_len, msg->method, mcp_session_inbound_version(ss, h));
    mcp_session_reply_error(ss, h, MCP_WIRE_METHOD_NOT_FOUND, text, NULL);
}

/* params.taskId of request h, in *id (n bytes), and whether h is of the
 * 2026 extension (*modern); false with h answered: under 2026 a request
 * that does not declare the extension -32021, a revision without tasks
 * -32601, no string -32602. */
static bool task_id_param(conn *c, mcp_handle h, const mcp_message *msg, bool *modern,
                          const char **id, size_t *n)
{
    mcp_session *ss = c->driver.session;
    *modern = modern_request(ss, h);
    if (*modern && !declares_extension(ss, h)) {
        missing_extension(ss, h);
        return false;
    }
    if (!*modern && !tasks_revision(mcp_session_inbound_version(ss, h))) {
        not_in_revision(ss, h, msg);
        return false;
    }
    *id = mcp_json_string(mcp_json_object_get(msg->params, "taskId"), n);
    if (!*id) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: params.taskId must be a string", NULL);
        return false;
    }
    return true;
}

/* The 2025 task params.taskId names, if c may reach it; else h is
 * answered -32602 (the same for an unknown id and another's: nothing
 * tells them apart). NULL too for a 2026 request: *modern, id and n say
 * which task it names (the store finds it). */
static task *named_task(conn *c, mcp_handle h, const mcp_message *msg, bool *modern,
                        const char **id, size_t *n)
{
    *modern = false;
    if (!task_id_param(c, h, msg, modern, id, n) || *modern)
        return NULL;
    task *t = task_find(store_of(c), c, false, *id, *n);
    if (!t) {
        char text[200], shown[120];
        mcp__show_string(shown, sizeof shown, *id, *n, 64, 100);
        snprintf(text, sizeof text, "Invalid params: no task %s", shown);
        mcp_session_reply_error(c->driver.session, h, MCP_WIRE_INVALID_PARAMS, text, NULL);
    }
    return t;
}

static void tasks_get(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    (void)state;
    bool modern;
    const char *id = NULL;
    size_t n = 0;
    task *t = named_task(c, h, msg, &modern, &id, &n);
    if (modern && id) {
        tasks_modern_get(c, h, msg, id, n);
    } else if (t) {
        task_hold(t);
        reply_task(c->driver.session, h, t);
        /* The client has the task's id now: questions held for a
         * tasks/result go on the session's own route (a requestor that
         * polls tasks/get alone still hears them, and can tell whose they
         * are). */
        if (!t->gone && t->run && t->questions)
            mcp__features_request_routed(t->run, 0);
        task_release(t);
    }
}

/* 2026: answers to a task's questions, each handed to the question
 * waiting for it (tasks_answer_local, on the process running it). A key
 * not outstanding (never asked, answered already, given up) and an answer
 * that is no object are ignored (ext-tasks: SHOULD); a partial set leaves
 * the task needing the rest. Acknowledged either way: what the task does
 * next, tasks/get tells. */
static void tasks_update(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    (void)state;
    bool modern;
    const char *id = NULL;
    size_t n = 0;
    named_task(c, h, msg, &modern, &id, &n);
    if (!id)
        return;
    const mcp_json *responses = mcp_json_object_get(msg->params, "inputResponses");
    if (mcp_json_typeof(responses) != MCP_JSON_OBJECT) {
        mcp_session_reply_error(c->driver.session, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: params.inputResponses must be an object", NULL);
        return;
    }
    tasks_modern_update(c, h, msg, id, n, responses);
}

static void waiter_destroy(mcp__request *r)
{
    free(r);
}

static void tasks_result(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    (void)state;
    bool modern;
    const char *id;
    size_t n;
    task *t = named_task(c, h, msg, &modern, &id, &n);
    if (!t)
        return;
    mcp_session *ss = c->driver.session;
    if (mcp__task_terminal(t->status)) {
        reply_ended(ss, h, t);
        return;
    }
    /* Blocks until the end (tasks.mdx: MUST): the request waits, answered
     * when the task ends, or cancelled like any other. */
    task_waiter *w = calloc(1, sizeof *w);
    if (!w || mcp__request_start(&w->req, c, h, msg, NULL) != MCP_OK) {
        free(w);
        reply_nomem(ss, h);
        return;
    }
    w->req.destroy = waiter_destroy;
    w->task = t;
    w->next = t->waiters;
    t->waiters = w;
    /* Its questions waiting for a stream go on this one. */
    if (t->run && t->questions)
        mcp__features_request_routed(t->run, h);
}

static void unlink_waiter(task_waiter *w)
{
    for (task_waiter **p = &w->task->waiters; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    w->task = NULL;
}

/* A tasks/result cancelled while it waits (by the client, its session's
 * end): out of its task's list, and its own reference dropped. */
static void request_settled(mcp__request *r, void *state, const mcp__settle *how)
{
    (void)state;
    if (tasks_store_call_settled(r, how) || r->destroy != waiter_destroy || !how->cancelled)
        return;
    task_waiter *w = (task_waiter *)r;
    if (w->task)
        unlink_waiter(w);
    mcp__request_end(r, ANSWER_NONE, 0, NULL, 0);
}

static void tasks_cancel(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    (void)state;
    bool modern;
    const char *id = NULL;
    size_t n = 0;
    task *t = named_task(c, h, msg, &modern, &id, &n);
    if (modern && id) {
        tasks_modern_cancel(c, h, msg, id, n);
        return;
    }
    if (!t)
        return;
    mcp_session *ss = c->driver.session;
    if (mcp__task_terminal(t->status)) {
        char text[120];
        snprintf(text, sizeof text,
                 "Invalid params: task %s cannot be cancelled: it is already %s", t->id,
                 mcp__task_status_name(t->status));
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS, text, NULL);
        return;
    }
    /* One step: cancelled before anything is written (tasks.mdx: the task
     * is cancelled before the response), then the run stops; the answer
     * goes before the status notification. */
    task_hold(t);
    mcp__request *run = t->run;
    t->run = NULL;
    task_transition(t, MCP__TASK_CANCELLED, "Cancelled by the client");
    if (run) {
        mcp__server_log(c->server, MCP_LOG_INFO, "task %s cancelled (tasks/cancel): its call stops",
                        t->id);
        mcp__request_cancel(run, "the task was cancelled (tasks/cancel)");
    }
    reply_task(ss, h, t);
    if (!t->gone)
        tasks_ended(t);
    task_release(t);
}

/* A tasks/list cursor: the sequence of the last task listed, in decimal. */
static bool read_cursor(const mcp_json *v, uint64_t *after)
{
    *after = 0;
    if (!v || mcp_json_typeof(v) == MCP_JSON_NULL) /* null: none, as the other lists take it */
        return true;
    size_t n;
    const char *s = mcp_json_string(v, &n);
    if (!s || n == 0 || n > 19)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *after = x;
    return true;
}

static void tasks_list(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    (void)state;
    mcp_session *ss = c->driver.session;
    if (!tasks_revision(mcp_session_inbound_version(ss, h))) {
        not_in_revision(ss, h, msg);
        return;
    }
    if (mcp__session_anonymous(ss)) {
        /* Not declared to it (tasks.mdx: SHOULD NOT without a way to
         * identify the requestor). */
        mcp_session_reply_error(ss, h, MCP_WIRE_METHOD_NOT_FOUND,
                                "Method not found: tasks/list is not offered to a client without "
                                "credentials (Authorization): its tasks are reached by id",
                                NULL);
        return;
    }
    uint64_t after;
    if (!read_cursor(mcp_json_object_get(msg->params, "cursor"), &after)) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS, "Invalid params: unknown cursor",
                                NULL);
        return;
    }
    task_store *ts = store_of(c);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "tasks");
    mcp__jw_array(&w);
    size_t shown = 0;
    task *t = task_next_of(ts, c, after);
    for (; t && shown < ts->page_size; t = task_owned_after(t, c)) {
        mcp__jw_object(&w);
        task_write(&w, t);
        mcp__jw_object_end(&w);
        after = t->seq;
        shown++;
    }
    mcp__jw_array_end(&w);
    if (t) {
        char cursor[24];
        snprintf(cursor, sizeof cursor, "%llu", (unsigned long long)after);
        mcp__jw_key(&w, "nextCursor");
        mcp__jw_string(&w, cursor);
    }
    mcp__jw_object_end(&w);
    reply_written(ss, h, mcp__jw_finish(&w), &b);
    mcp_buf_free(&b);
}

/* params.task.ttl: absent or null, the longest; else a whole number of
 * milliseconds, at least 1, cut to the longest. False: not one. */
static bool granted_ttl(const task_store *ts, const mcp_json *task_param, uint64_t *ttl)
{
    const mcp_json *v = mcp_json_object_get(task_param, "ttl");
    *ttl = ts->max_ttl_ms;
    if (!v || mcp_json_typeof(v) == MCP_JSON_NULL)
        return true;
    uint64_t asked;
    if (mcp_json_get_uint64(v, &asked) != MCP_OK || asked == 0)
        return false;
    if (asked < *ttl)
        *ttl = asked;
    return true;
}

/* A task of tool tl (snap taken over) for request h, with ttl; the
 * caps checked first. */
/* Whether a task of c's client is past the caps (per client, in all):
 * then text says which. Finished and cancelled tasks count until their
 * ttl ends: only that frees room (tasks/cancel does not). */
static bool past_caps(conn *c, bool modern, char *text, size_t n)
{
    task_owner *own = mcp__conn_state(c, &mcp__tasks_feature);
    task_store *ts = store_of(c);
    size_t held = modern ? task_held_by(ts, c->credential) : own->count;
    bool mine = held >= ts->max_per_client;
    if (!mine && ts->count < ts->max_total)
        return false;
    snprintf(text, n, "Too many tasks: %s %zu, the server's limit; wait for some to expire%s",
             mine ? "this client holds" : "the server holds", mine ? held : ts->count,
             modern ? "" : " (a shorter params.task.ttl frees room sooner)");
    return true;
}

static void start_task(conn *c, mcp_handle h, const mcp_message *msg, registry *snap,
                       const tool *tl, const mcp_json *args, uint64_t ttl, bool modern)
{
    task_store *ts = store_of(c);
    mcp_session *ss = c->driver.session;
    char text[260];
    if (past_caps(c, modern, text, sizeof text)) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR, text, NULL);
        mcp__registry_unref(snap);
        return;
    }
    task *t = task_create(ts, modern ? NULL : c, modern ? c->credential : NULL, ttl);
    if (!t) {
        reply_nomem(ss, h);
        mcp__registry_unref(snap);
        return;
    }
    t->sink = run_sink;
    start st = {t, h, false};
    task_hold(t);
    mcp__tools_call_start(c, h, msg, snap, tl, args, task_started, &st);
    if (!st.started) /* the call could not be made: h was answered -32603 */
        task_remove(t, "its call could not be made");
    task_release(t);
}

/* 2026-07-28: the server decides. A tool that may run as a task runs as one
 * for a request that declares the extension; one that must, for a request
 * that does not, is refused -32021; params.task is a member like any
 * unknown one (SEP-2663: ignored). */
static void modern_tools_call(conn *c, mcp_handle h, const mcp_message *msg)
{
    mcp_session *ss = c->driver.session;
    registry *snap;
    const mcp_json *args;
    const tool *tl = mcp__tools_call_find(c, h, msg, &snap, &args);
    if (!tl)
        return;
    /* A tool that never runs as a task (most) needs no look at the
     * request's capabilities. */
    bool declared = tl->task_support != MCP_TASK_FORBIDDEN && declares_extension(ss, h);
    if (tl->task_support == MCP_TASK_FORBIDDEN || (!declared && tl->task_support == MCP_TASK_OPTIONAL)) {
        mcp__tools_call_start(c, h, msg, snap, tl, args, NULL, NULL);
        return;
    }
    if (!declared) {
        missing_extension(ss, h);
        mcp__registry_unref(snap);
        return;
    }
    /* A tool that asks its questions first (as input-required rounds,
     * ext-tasks: resolved before the task) becomes a task when its
     * handler says (mcp_call_become_task). */
    if (tl->flags & MCP_TOOL_TASK_DEFERRED)
        mcp__tools_call_start(c, h, msg, snap, tl, args, NULL, NULL);
    else
        start_task(c, h, msg, snap, tl, args, store_of(c)->max_ttl_ms, true);
}

static int request_become_task(mcp__request *r, void *state);

/* Loop thread: mcp_call_become_task. */
static int become_task(mcp_call *c)
{
    mcp__request *r = &c->req;
    if (r->sink)
        return MCP_OK; /* a task from the start */
    /* Ended by its handler: its answer settles the request (a cancel
     * says nothing then). */
    if (atomic_load(&r->ended))
        return MCP_ERR_STATE;
    if (r->settled || mcp_cancel_token_is_cancelled(&r->token))
        return MCP_ERR_CANCELLED;
    /* Only a call that may be a task, with no question left for a round
     * to answer. */
    if (c->kind != CALL_TOOL || c->tool->task_support == MCP_TASK_FORBIDDEN ||
        (c->asked && mcp_json_object_size(mcp_json_doc_root(c->asked))))
        return MCP_ERR_STATE;
    return request_become_task(r, NULL);
}

/* The feature's hook, and the common part of mcp_call_become_task: r, a
 * 2026 call still attached to a request that declares the extension,
 * becomes a task's run. */
static int request_become_task(mcp__request *r, void *state)
{
    (void)state;
    conn *cn = r->conn;
    mcp_session *ss = cn->driver.session;
    if (r->sink)
        return MCP_OK; /* a task already */
    if (r->settled || !r->handle)
        return MCP_ERR_CANCELLED;
    if (!mcp_protocol_modern(r->version) || !declares_extension(ss, r->handle))
        return MCP_ERR_STATE;
    char text[260];
    if (past_caps(cn, true, text, sizeof text)) {
        /* The name as the client gave it (a gateway's call names no tool
         * of ours): shown escaped. */
        size_t n;
        const char *name = mcp_json_string(mcp_json_object_get(r->msg->params, "name"), &n);
        char shown[96];
        mcp__show_string(shown, sizeof shown, name ? name : "", name ? n : 0, 64,
                         sizeof shown - 1);
        mcp__server_log(cn->server, MCP_LOG_WARNING, "%s: tool %s runs as a plain call", text,
                        shown);
        return MCP_ERR_BUSY;
    }
    task_store *ts = store_of(cn);
    task *t = task_create(ts, NULL, cn->credential, ts->max_ttl_ms);
    if (!t)
        return MCP_ERR_NOMEM;
    t->sink = run_sink;
    return run_as_task(t, r, r->handle) ? MCP_OK : MCP_ERR_CANCELLED;
}

typedef struct becoming {
    mcp__post post; /* first */
    mcp_call *call;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int rc;
} becoming;

static void become_posted(mcp__post *post)
{
    becoming *b = (becoming *)post;
    int rc = become_task(b->call);
    pthread_mutex_lock(&b->mu);
    b->rc = rc;
    b->done = true;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

int mcp_call_become_task(mcp_call *c)
{
    if (!c)
        return MCP_ERR_INVALID_ARG;
    mcp_server *s = c->req.conn->server;
    if (mcp__on_loop_thread(&s->poster))
        return become_task(c);
    becoming b = {.post.run = become_posted, .call = c};
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    int rc = MCP_ERR_CLOSED; /* the loop is gone */
    if (mcp__server_post(s, &b.post)) {
        pthread_mutex_lock(&b.mu);
        while (!b.done)
            pthread_cond_wait(&b.cv, &b.mu);
        rc = b.rc;
        pthread_mutex_unlock(&b.mu);
    }
    pthread_mutex_destroy(&b.mu);
    pthread_cond_destroy(&b.cv);
    return rc;
}

static void tasks_tools_call(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    (void)state;
    mcp_session *ss = c->driver.session;
    const char *version = mcp_session_inbound_version(ss, h);
    if (mcp_protocol_modern(version)) {
        modern_tools_call(c, h, msg);
        return;
    }
    /* Before 2025-11-25 a task param is a member like any unknown one:
     * ignored. */
    bool tasks = tasks_revision(version);
    const mcp_json *param = tasks ? mcp_json_object_get(msg->params, "task") : NULL;
    bool as_task = param != NULL;
    if (as_task && mcp_json_typeof(param) != MCP_JSON_OBJECT) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: params.task must be an object", NULL);
        return;
    }
    uint64_t ttl = 0;
    if (as_task && !granted_ttl(store_of(c), param, &ttl)) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: params.task.ttl must be a whole number of "
                                "milliseconds, at least 1",
                                NULL);
        return;
    }
    registry *snap;
    const mcp_json *args;
    const tool *tl = mcp__tools_call_find(c, h, msg, &snap, &args);
    if (!tl)
        return;
    /* tasks.mdx: -32601 for a task of a tool that forbids them, and for a
     * plain call of one that requires them. */
    bool refused = as_task ? tl->task_support == MCP_TASK_FORBIDDEN
                           : tl->task_support == MCP_TASK_REQUIRED && tasks;
    if (refused) {
        char text[260];
        snprintf(text, sizeof text,
                 as_task ? "Method not found: tool %s does not run as a task (its "
                           "execution.taskSupport is \"forbidden\"): call it without params.task"
                         : "Method not found: tool %s runs only as a task (its "
                           "execution.taskSupport is \"required\"): call it with params.task",
                 tl->name);
        mcp_session_reply_error(ss, h, MCP_WIRE_METHOD_NOT_FOUND, text, NULL);
        mcp__registry_unref(snap);
    } else if (as_task) {
        start_task(c, h, msg, snap, tl, args, ttl, false);
    } else {
        mcp__tools_call_start(c, h, msg, snap, tl, args, NULL, NULL);
    }
}

/* The feature -------------------------------------------------------------------- */

static int declare(const mcp_server *s, mcp_json_doc *d, mcp_json *caps)
{
    (void)s;
    mcp_json *tasks = mcp_json_new_object(d), *requests = mcp_json_new_object(d),
             *tools = mcp_json_new_object(d);
    mcp_json_object_set(d, tasks, "list", mcp_json_new_object(d));
    mcp_json_object_set(d, tasks, "cancel", mcp_json_new_object(d));
    mcp_json_object_set(d, tools, "call", mcp_json_new_object(d));
    mcp_json_object_set(d, requests, "tools", tools);
    mcp_json_object_set(d, tasks, "requests", requests);
    mcp_json_object_set(d, caps, "tasks", tasks);
    /* 2026-07-28: the extension (the session writes each under its era). */
    mcp_json *extensions = mcp_json_object_get(caps, "extensions");
    if (!extensions) {
        extensions = mcp_json_new_object(d);
        mcp_json_object_set(d, caps, "extensions", extensions);
    }
    mcp_json_object_set(d, extensions, MCP__TASKS_EXTENSION, mcp_json_new_object(d));
    return mcp_json_doc_error(d) ? MCP_ERR_NOMEM : MCP_OK;
}

static int server_init(mcp_server *s, void *state)
{
    task_store *ts = state;
    ts->server = s;
    ts->max_ttl_ms = s->opts.task_max_ttl_ms ? s->opts.task_max_ttl_ms : 3600000;
    ts->poll_ms = s->opts.task_poll_interval_ms ? s->opts.task_poll_interval_ms : 1000;
    /* At most 2^53 - 1 (a JSON number every client reads exactly, and a
     * deadline the loop clock cannot overflow): UINT64_MAX, "no limit",
     * would otherwise expire every task at once and report a negative ttl. */
    const uint64_t most = ((uint64_t)1 << 53) - 1;
    if (ts->max_ttl_ms > most)
        ts->max_ttl_ms = most;
    if (ts->poll_ms > most)
        ts->poll_ms = most;
    ts->max_per_client = s->opts.task_max_per_client ? s->opts.task_max_per_client : 64;
    ts->max_total = s->opts.task_max_total ? s->opts.task_max_total : 4096;
    ts->page_size = s->opts.page_size ? s->opts.page_size : 100;
    char why[200];
    ts->backend = task_backend_new(ts, &s->opts, why, sizeof why);
    return ts->backend ? MCP_OK : MCP_ERR_NOMEM;
}

static void server_free(mcp_server *s, void *state)
{
    task_store *ts = state;
    task_backend_free(ts->backend);
    mcp__map_free(&ts->by_id, &s->mem);
    mcp__map_free(&ts->holders, &s->mem); /* empty: every task was removed */
}

static void news(mcp_server *s, void *state, unsigned kind, const char *uri)
{
    (void)s;
    task_store *ts = state;
    if (ts->backend_open && ts->backend->ops->news)
        ts->backend->ops->news(ts->backend, kind, uri);
}

static void loop_opened(mcp_server *s, void *state)
{
    task_store *ts = state;
    if (ts->backend_open)
        return;
    /* Open even when opening failed part way: its close closes what was
     * made (a store that could not open answers every call unavailable). */
    ts->backend_open = true;
    if (ts->backend->ops->open(ts->backend) != MCP_OK)
        mcp__server_log(s, MCP_LOG_ERROR, "the %s task store could not be opened: out of memory",
                        ts->backend->ops->name);
}

static bool owned_by(const task *t, const void *c)
{
    return t->owner == c;
}

static bool any(const task *t, const void *unused)
{
    (void)t;
    (void)unused;
    return true;
}

static void conn_ending(conn *c, void *state, const char *why)
{
    (void)why;
    if (((task_owner *)state)->count)
        task_remove_matching(store_of(c), owned_by, c, "its session ended");
}

static bool modern_task(const task *t, const void *unused)
{
    (void)unused;
    return t->modern;
}

#define PROCESS_STOPPED "the server process running this task stopped"

/* A task whose record outlives the process (a shared store) fails as it
 * stops: whoever asks another process finds it ended, not working. */
static void fail_running(task *t)
{
    if (t->gone || mcp__task_terminal(t->status))
        return;
    size_t len;
    char *text = error_text(PROCESS_STOPPED, strlen(PROCESS_STOPPED), &len);
    if (!text)
        return; /* its lease running out fails it, then */
    free(t->outcome);
    t->outcome = text;
    t->outcome_len = len;
    t->outcome_is_error = true;
    t->outcome_code = MCP_WIRE_INTERNAL_ERROR;
    if (task_transition(t, MCP__TASK_FAILED, PROCESS_STOPPED))
        tasks_notify_status(t);
}

/* With a store shared by other processes, 2026 tasks still running here
 * fail as the server stops (their records would say working until the
 * lease runs out, or forever with no other process to reap them). */
static void fail_modern(task_store *ts)
{
    if (ts->backend->ops->async)
        for (task *t = ts->oldest; t; t = t->next)
            if (t->modern)
                fail_running(t);
}

/* 2026 tasks run on no connection: a stop ends them now, not after the
 * connections' grace (2025 tasks end with their connections). */
static void server_stopping(mcp_server *s, void *state)
{
    (void)s;
    fail_modern(state);
    task_remove_matching(state, modern_task, NULL, "the server stopped");
}

static void loop_closing(mcp_server *s, void *state)
{
    (void)s;
    task_store *ts = state;
    fail_modern(ts); /* the run ended without a stop: its input's end */
    task_remove_matching(ts, any, NULL, "the server stopped");
    if (ts->backend_open) {
        ts->backend->ops->close(ts->backend);
        ts->backend_open = false;
    }
    if (ts->timer_open) {
        uv_close((uv_handle_t *)&ts->expiry, NULL);
        ts->timer_open = false;
    }
}

#define NO_TASKS "Method not found: this server offers no tasks"

static const mcp__method methods[] = {
    {"tools/call", tasks_tools_call, MCP__ERAS_ALL, NULL, NULL},
    {"tasks/get", tasks_get, MCP__ERAS_ALL, "tasks", NO_TASKS},
    {"tasks/result", tasks_result, MCP__ERA_2025, "tasks", NO_TASKS},
    {"tasks/list", tasks_list, MCP__ERA_2025, "tasks.list", NO_TASKS},
    {"tasks/cancel", tasks_cancel, MCP__ERAS_ALL, "tasks.cancel", NO_TASKS},
    {"tasks/update", tasks_update, MCP__ERA_2026, "tasks", NO_TASKS},
};

const mcp__feature mcp__tasks_feature = {
    .name = "tasks",
    .methods = methods,
    .nmethods = sizeof methods / sizeof methods[0],
    .declare = declare,
    .server_state_size = sizeof(task_store),
    .server_init = server_init,
    .server_free = server_free,
    .conn_state_size = sizeof(task_owner),
    .conn_ending = conn_ending,
    .server_stopping = server_stopping,
    .loop_opened = loop_opened,
    .news = news,
    .loop_closing = loop_closing,
    .request_settled = request_settled,
    .request_become_task = request_become_task,
};
