/* SPDX-License-Identifier: MIT */
/*
 * Our tools/call as a task, the requestor's side, inside the engine: one
 * request handle for the whole life of the task, whose wire ids change as
 * it goes. Two revisions, one path:
 * - 2025-11-25 (basic/utilities/tasks.mdx): params.task asks for the task;
 *   CreateTaskResult nests it ({"task":{...}}); the end is fetched with
 *   tasks/result, where the server also asks its questions.
 * - 2026-07-28 (the io.modelcontextprotocol/tasks extension, ext-tasks):
 *   the request declares the extension in its clientCapabilities (so does
 *   each of our tasks/ requests) and the server decides; CreateTaskResult
 *   is the flat Task with resultType "task"; tasks/get carries the end
 *   (result, error) and the questions (inputRequests), answered through
 *   the call's rounds (rounds.c: the same hook as an InputRequiredResult)
 *   and sent with tasks/update, each key once in the task's life.
 *
 *   creating  tools/call is on the wire (2026: with its MRTR rounds)
 *   waiting   CreateTaskResult came: nothing on the wire until the next
 *             poll (the server's poll interval) or a status notification
 *             (2025) that says the task ended or needs input
 *   polling   tasks/get is on the wire
 *   fetching  tasks/result is on the wire (2025: the task ended, or needs
 *             input: the server asks its questions while tasks/result waits)
 *   answering 2026: the task's questions are the caller's; nothing on the
 *             wire until every one is answered
 *   updating  2026: tasks/update is on the wire with the answers
 *
 * The caller's callback is called once, with the task's end as a plain
 * call's. A cancel of any kind (the caller's, the idle timeout, the total
 * limit) is tasks/cancel, never notifications/cancelled (2025
 * cancellation.mdx; ext-tasks: "MUST NOT be used for task cancellation"):
 * while the task's id is not known, the caller is told at once and the
 * request waits, as a ghost nobody can reach, for CreateTaskResult, to
 * cancel the task it names.
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "session/entry.h"
#include "session/internal.h"

/* How long a ghost waits for the id of the task it must cancel. */
#define GHOST_WAIT_MS 60000u
/* The poll interval honoured, whatever the server says: not faster than
 * this, not slower than that. */
#define POLL_MIN_MS 10u
#define POLL_MAX_MS 60000u
#define POLL_DEFAULT_MS 1000u

typedef enum {
    PHASE_CREATING,
    PHASE_WAITING,
    PHASE_POLLING,
    PHASE_FETCHING,
    PHASE_ANSWERING,
    PHASE_UPDATING
} task_phase;

struct mcp__task_call {
    task_phase phase;
    bool start_only; /* the call ends with CreateTaskResult */
    bool modern;     /* 2026-07-28: the tasks extension */
    char *id;        /* the task's, once known */
    uint64_t poll_ms;
    /* 2026: the inputRequests keys handed to the caller so far (the
     * members of an object), never handed out again: keys are unique over
     * a task's life (ext-tasks), and a later tasks/get may still list one
     * whose answer the server has not taken yet. NULL: none yet. */
    mcp_json_doc *asked;
    void (*on_task)(void *user_data, mcp_handle h, const mcp_json *task);
};

int mcp__task_capture(mcp_session *s, outbound *e, const mcp_request_options *o)
{
    e->task = mcp__calloc(&s->mem, 1, sizeof *e->task);
    if (!e->task)
        return MCP_ERR_NOMEM;
    /* Before the connect ends: the revision asked for. */
    const mcp__era *era = s->era ? s->era : s->connect.want;
    e->task->modern = era && era->task_extension;
    e->task->poll_ms = POLL_DEFAULT_MS;
    e->task->start_only = o->task_start_only;
    e->task->on_task = o->on_task;
    return MCP_OK;
}

void mcp__task_free(mcp_session *s, struct mcp__task_call *t)
{
    if (!t)
        return;
    mcp_json_doc_free(t->asked);
    mcp__free(&s->mem, t->id);
    mcp__free(&s->mem, t);
}

bool mcp__task_known(const outbound *o)
{
    return o->task && o->task->id;
}

void mcp__task_write_param(mcp__jw *w, const mcp_request_options *o)
{
    mcp__jw_key(w, "task");
    mcp__jw_object(w);
    if (o->task_ttl_ms) {
        mcp__jw_key(w, "ttl");
        mcp__jw_int(w, o->task_ttl_ms > INT64_MAX ? INT64_MAX : (int64_t)o->task_ttl_ms);
    }
    mcp__jw_object_end(w);
}

/* {"taskId":"<id>"}'s members, for the task's own requests. */
static char *task_members(mcp_session *s, const char *id, size_t *len)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, &s->mem);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "taskId");
    mcp__jw_string(&w, id);
    mcp__jw_object_end(&w);
    if (mcp__jw_finish(&w) != MCP_OK || b.len < 2) {
        mcp_buf_free(&b);
        return NULL;
    }
    /* The members, without the braces. */
    memmove(b.data, b.data + 1, b.len - 2);
    *len = b.len - 2;
    return b.data;
}

static void cancel_answered(void *ud, mcp_handle h, int outcome, const mcp_message *msg)
{
    (void)ud, (void)h, (void)outcome, (void)msg; /* the task is ours no more */
}

/* tasks/cancel for task id, whose answer nobody waits for: the caller was
 * told already. */
static void send_task_cancel(mcp_session *s, uint64_t now, const outbound *o, const char *id,
                             const char *reason)
{
    mcp_id wid = mcp_id_from_int(o->id);
    mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_SENT, &wid, o->method, "outbound", reason,
             mcp__age(now, o->start), "tasks/cancel sent for task %s:", id);
    size_t len;
    char *members = task_members(s, id, &len);
    if (!members)
        return;
    mcp_request_options ro = {.size = sizeof ro, .progress = MCP_PROGRESS_NONE};
    outbound_spec sp = {.method = "tasks/cancel",
                        .params_raw = members,
                        .params_raw_len = len,
                        .opts = &ro,
                        .kind = OUT_CALL,
                        .cancellable = false,
                        .envelope = o->task->modern,
                        .declare_tasks = o->task->modern,
                        .cb = cancel_answered};
    mcp__outbound_send(s, now, &sp, NULL);
    mcp__free(&s->mem, members);
}

/* The task's next request (tasks/get or tasks/result) as o's round on the
 * wire (o held by the caller). */
static void send_step(mcp_session *s, uint64_t now, outbound *o, task_phase phase)
{
    struct mcp__task_call *t = o->task;
    size_t len;
    char *members = task_members(s, t->id, &len);
    mcp_request_options ro = {.size = sizeof ro, .progress = MCP_PROGRESS_NONE};
    outbound_spec sp = {.method = phase == PHASE_POLLING ? "tasks/get" : "tasks/result",
                        .params_raw = members,
                        .params_raw_len = len,
                        .opts = &ro,
                        .kind = OUT_CALL,
                        .cancellable = true,
                        .envelope = t->modern,
                        .declare_tasks = t->modern};
    t->phase = phase;
    o->step_deadline = UINT64_MAX;
    /* The last step's id answers nothing any more. */
    if (o->wire && o->wire != o->id)
        mcp__map_take(&s->out_ids, (uint64_t)o->wire);
    o->wire = 0;
    /* The call's progress goes on across its rounds. */
    bool got = o->got_progress;
    int rc = members ? mcp__outbound_resend(s, now, o, &sp) : MCP_ERR_NOMEM;
    o->got_progress = got;
    mcp__free(&s->mem, members);
    if (rc != MCP_OK && !o->ended) {
        mcp_id id = mcp_id_from_int(o->id);
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_GENERAL, &id, o->method, "outbound", NULL,
                 mcp__age(now, o->start), "%s for task %s could not be sent (%s):", sp.method,
                 t->id, mcp_strerror(rc));
        mcp__outbound_take(s, o);
        send_task_cancel(s, now, o, t->id, "its next request could not be sent");
        mcp__outbound_end(s, o, rc, NULL);
    }
}

/* Nothing on the wire until the next poll. */
static void wait_for_poll(mcp_session *s, uint64_t now, outbound *o)
{
    if (o->wire && o->wire != o->id)
        mcp__map_take(&s->out_ids, (uint64_t)o->wire);
    o->wire = 0;
    o->task->phase = PHASE_WAITING;
    o->step_deadline = mcp__deadline(now, o->task->poll_ms);
    /* The idle timeout is the server's silence while it owes an answer:
     * none is owed until the poll, which starts it again (a poll interval
     * longer than the idle timeout would otherwise end every task call;
     * 2026 tasks have no progress to keep one alive). The total limit
     * runs on. */
    o->idle_deadline = UINT64_MAX;
    mcp__outbound_rearm(s, o);
}

static bool is_status(const char *status, size_t n, const char *name)
{
    return status && n == strlen(name) && !memcmp(status, name, n);
}

/* The task says it ended or needs input: time for tasks/result. */
static bool time_to_fetch(const mcp_json *task)
{
    size_t n;
    const char *st = mcp_json_string(mcp_json_object_get(task, "status"), &n);
    return is_status(st, n, "completed") || is_status(st, n, "failed") ||
           is_status(st, n, "cancelled") || is_status(st, n, "input_required");
}

static void note_poll_interval(struct mcp__task_call *t, const mcp_json *task)
{
    uint64_t ms;
    /* ext-tasks renamed it (pollIntervalMs); the bounds are ours either way. */
    if (mcp_json_get_uint64(mcp_json_object_get(task, t->modern ? "pollIntervalMs"
                                                                : "pollInterval"),
                            &ms) == MCP_OK)
        t->poll_ms = ms < POLL_MIN_MS ? POLL_MIN_MS : ms > POLL_MAX_MS ? POLL_MAX_MS : ms;
}

/* The task's end as the response to the call (o held, in the tables): a
 * completed task's result or a failed one's error (2026: tasks/get carries
 * them, "exactly what the original request would have returned"), as if
 * the tools/call had been answered with it. */
static void end_as_answered(mcp_session *s, outbound *o, const mcp_json *value, bool error)
{
    mcp_message *m = NULL;
    int rc = MCP_ERR_PROTOCOL;
    if (value) {
        mcp_buf b;
        mcp_buf_init(&b, 0, &s->mem);
        mcp__jw w;
        mcp_id id = mcp_id_from_int(o->id);
        mcp__jw_response_start(&w, &b, &id, error ? "error" : "result");
        mcp__jw_value(&w, value);
        mcp__jw_object_end(&w);
        rc = mcp__jw_finish(&w);
        /* Read back as any answer is: an error without its code or
         * message is no error to report. */
        if (rc == MCP_OK)
            rc = mcp_message_decode(b.data, b.len, &s->parse, &s->mem, &m, NULL);
        mcp_buf_free(&b);
        if (rc != MCP_OK && rc != MCP_ERR_NOMEM)
            rc = MCP_ERR_PROTOCOL;
    }
    mcp__outbound_take(s, o);
    if (rc == MCP_OK && !error)
        rc = mcp__result_outcome(s, o, m); /* an object, resultType complete */
    else if (rc != MCP_OK) {
        mcp_id wid = mcp_id_from_int(o->id);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &wid, o->method, "outbound", NULL,
                 -1, "unusable %s task: %s", error ? "failed" : "completed",
                 rc == MCP_ERR_NOMEM ? "out of memory"
                 : error             ? "its error is no JSON-RPC error object"
                                     : "it has no result");
    }
    mcp__outbound_end(s, o, rc != MCP_OK ? rc : error ? MCP_ERR_REMOTE : MCP_OK,
                      rc == MCP_OK ? m : NULL);
    mcp_message_free(m);
}

/* The entries of requests (an object) whose keys were never handed out,
 * recorded as handed out now. *fresh: msg itself when all are new, else a
 * message of its own (the caller's) whose result is msg's with only
 * those; NULL when there are none. */
static int fresh_questions(mcp_session *s, struct mcp__task_call *t, const mcp_message *msg,
                           const mcp_json *requests, mcp_message **fresh)
{
    *fresh = NULL;
    if (!t->asked) {
        if (!(t->asked = mcp_json_doc_new(&s->mem)))
            return MCP_ERR_NOMEM;
        mcp_json_doc_set_root(t->asked, mcp_json_new_object(t->asked));
    }
    mcp_json *asked = mcp_json_doc_root(t->asked);
    size_t n = mcp_json_object_size(requests), news = 0;
    for (size_t i = 0; i < n; i++) {
        const char *k;
        size_t kn;
        mcp_json_object_at(requests, i, &k, &kn);
        news += !mcp_json_object_getn(asked, k, kn);
    }
    if (news == 0)
        return MCP_OK;
    mcp_buf b;
    mcp_buf_init(&b, 0, &s->mem);
    if (news < n) {
        mcp__jw w;
        mcp__jw_response_start(&w, &b, &msg->id, "result");
        mcp__jw_object(&w);
        for (size_t i = 0; i < mcp_json_object_size(msg->result); i++) {
            const char *k;
            size_t kn;
            const mcp_json *v = mcp_json_object_at(msg->result, i, &k, &kn);
            if (kn == 13 && !memcmp(k, "inputRequests", 13))
                continue;
            mcp__jw_keyn(&w, k, kn);
            mcp__jw_value(&w, v);
        }
        mcp__jw_key(&w, "inputRequests");
        mcp__jw_object(&w);
        for (size_t i = 0; i < n; i++) {
            const char *k;
            size_t kn;
            const mcp_json *v = mcp_json_object_at(requests, i, &k, &kn);
            if (mcp_json_object_getn(asked, k, kn))
                continue;
            mcp__jw_keyn(&w, k, kn);
            mcp__jw_value(&w, v);
        }
        mcp__jw_object_end(&w);
        mcp__jw_object_end(&w);
        mcp__jw_object_end(&w);
        int rc = mcp__jw_finish(&w);
        if (rc == MCP_OK)
            rc = mcp_message_decode(b.data, b.len, &s->parse, &s->mem, fresh, NULL);
        mcp_buf_free(&b);
        if (rc != MCP_OK)
            return rc == MCP_ERR_NOMEM ? rc : MCP_ERR_PROTOCOL;
    } else {
        *fresh = mcp_message_retain((mcp_message *)msg);
    }
    for (size_t i = 0; i < n; i++) {
        const char *k;
        size_t kn;
        mcp_json_object_at(requests, i, &k, &kn);
        if (!mcp_json_object_getn(asked, k, kn))
            mcp_json_object_setn(t->asked, asked, k, kn, mcp_json_new_bool(t->asked, true));
    }
    if (mcp_json_doc_error(t->asked) != MCP_OK) {
        mcp_message_free(*fresh);
        *fresh = NULL;
        return MCP_ERR_NOMEM;
    }
    return MCP_OK;
}

/* 2026: the task needs input (o held). The questions not asked before go
 * to the call's rounds (*ask, for the caller to hand over once o is no
 * longer held: rounds.c holds it itself); none new: the next poll. */
static void needs_input(mcp_session *s, uint64_t now, outbound *o, const mcp_message *msg,
                        mcp_message **ask)
{
    struct mcp__task_call *t = o->task;
    const mcp_json *requests = mcp_json_object_get(msg->result, "inputRequests");
    const char *bad = !o->rounds ? "the call takes no questions (no on_input_required)"
                      : mcp_json_typeof(requests) != MCP_JSON_OBJECT
                          ? "its inputRequests is not an object"
                          : NULL;
    int rc = bad ? MCP_ERR_INPUT_REQUIRED : fresh_questions(s, t, msg, requests, ask);
    if (rc == MCP_OK && !*ask) {
        wait_for_poll(s, now, o);
        return;
    }
    if (rc != MCP_OK) {
        /* The task would wait for answers that never come. */
        mcp_id wid = mcp_id_from_int(o->id);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &wid, o->method, "outbound", NULL,
                 -1, "task %s needs input that cannot be given: %s", t->id,
                 bad ? bad : mcp_strerror(rc));
        if (!o->ended)
            mcp__task_cancel(s, now, o, bad && o->rounds ? MCP_ERR_PROTOCOL : rc,
                             "its questions cannot be answered");
        return;
    }
    t->phase = PHASE_ANSWERING;
    o->step_deadline = UINT64_MAX;
}

static bool status_is(const mcp_json *task, const char *name)
{
    size_t n;
    const char *st = mcp_json_string(mcp_json_object_get(task, "status"), &n);
    return is_status(st, n, name);
}

/* A Task the server sent: where the call goes from here (o held). msg:
 * 2026, the tasks/get answer that is the task (a DetailedTask), or NULL
 * for CreateTaskResult, which has no end and no questions in it. */
static void on_task(mcp_session *s, uint64_t now, outbound *o, const mcp_json *task,
                    const mcp_message *msg, mcp_message **ask)
{
    struct mcp__task_call *t = o->task;
    if (t->on_task) {
        t->on_task(o->user_data, (mcp_handle)o->id, task);
        if (o->ended || s->doomed)
            return; /* cancelled from the callback */
    }
    note_poll_interval(t, task);
    /* The server answered about the task: it is alive. */
    o->idle_deadline = mcp__deadline(now, o->idle_ms);
    if (!t->modern) {
        if (time_to_fetch(task))
            send_step(s, now, o, PHASE_FETCHING);
        else
            wait_for_poll(s, now, o);
        return;
    }
    if (!msg) {
        /* Created: tasks/get says more, at once when it is not just
         * working. */
        if (status_is(task, "working"))
            wait_for_poll(s, now, o);
        else
            send_step(s, now, o, PHASE_POLLING);
    } else if (status_is(task, "completed") || status_is(task, "failed")) {
        bool failed = status_is(task, "failed");
        end_as_answered(s, o, mcp_json_object_get(task, failed ? "error" : "result"), failed);
    } else if (status_is(task, "cancelled")) {
        mcp__outbound_take(s, o);
        mcp__outbound_end(s, o, MCP_ERR_CANCELLED, msg);
    } else if (status_is(task, "input_required")) {
        needs_input(s, now, o, msg, ask);
    } else {
        /* working, or a status this revision does not name: not an end,
         * so the task goes on as far as we can tell. */
        wait_for_poll(s, now, o);
    }
}

/* 2026: result itself when it is a CreateTaskResult (resultType "task",
 * the Task's members beside it), else NULL. */
static const mcp_json *created_2026(const mcp_json *result)
{
    size_t n;
    const char *type = mcp_json_string(mcp_json_object_get(result, "resultType"), &n);
    return type && n == 4 && !memcmp(type, "task", 4) ? result : NULL;
}

/* The answer to tools/call: CreateTaskResult, or (a server that made no
 * task of it) the call's own result. */
static void created(mcp_session *s, uint64_t now, outbound *o, const mcp_message *msg)
{
    struct mcp__task_call *t = o->task;
    const mcp_json *task = msg->kind != MCP_MESSAGE_RESULT ? NULL
                           : t->modern ? created_2026(msg->result)
                                       : mcp_json_object_get(msg->result, "task");
    size_t n;
    const char *id = mcp_json_string(mcp_json_object_get(task, "taskId"), &n);
    mcp_id wid = mcp_id_from_int(o->id);
    if (o->kind == OUT_GHOST) {
        mcp__outbound_take(s, o);
        if (id && !memchr(id, '\0', n))
            send_task_cancel(s, now, o, id, "the call was cancelled before its task was known");
        else
            mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, &wid, o->method, "outbound", NULL,
                     mcp__age(now, o->start), "answer of a cancelled call dropped (no task):");
        mcp__outbound_end(s, o, MCP_ERR_ABORTED, NULL);
        return;
    }
    if (!task) {
        /* An error, or a plain result: the call's answer as it is (a
         * result that is no object is none; 2026: nor is one of a
         * resultType a plain call cannot take). */
        mcp__outbound_take(s, o);
        int outcome = msg->kind == MCP_MESSAGE_RESULT ? mcp__result_outcome(s, o, msg)
                                                      : MCP_ERR_REMOTE;
        mcp__outbound_end(s, o, outcome, outcome == MCP_ERR_PROTOCOL ? NULL : msg);
        return;
    }
    bool usable = id && n > 0 && !memchr(id, '\0', n);
    if (!usable || !(t->id = mcp__strndup(&s->mem, id, n))) {
        mcp__outbound_take(s, o);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &wid, o->method, "outbound", NULL,
                 -1, "unusable CreateTaskResult: %s",
                 !id      ? "its task has no taskId string"
                 : !usable ? "its taskId is empty or has a NUL in it"
                           : "out of memory");
        mcp__outbound_end(s, o, usable ? MCP_ERR_NOMEM : MCP_ERR_PROTOCOL, NULL);
        return;
    }
    mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL, &wid, o->method, "outbound", NULL,
             mcp__age(now, o->start), "runs as task %s", t->id);
    if (t->start_only) {
        mcp__outbound_take(s, o);
        mcp__outbound_end(s, o, MCP_OK, msg);
        return;
    }
    on_task(s, now, o, task, NULL, NULL);
}

/* 2026: an answer to tasks/get or tasks/update must be a result of
 * resultType complete (ext-tasks), or absent. */
static bool complete_result(mcp_session *s, const outbound *o, const mcp_message *msg)
{
    size_t n;
    const mcp_json *t = mcp_json_object_get(msg->result, "resultType");
    const char *type = mcp_json_string(t, &n);
    if (mcp_json_typeof(msg->result) == MCP_JSON_OBJECT &&
        (!t || (type && n == 8 && !memcmp(type, "complete", 8))))
        return true;
    mcp_id id = mcp_id_from_int(o->id);
    mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &id, o->method, "outbound", NULL, -1,
             "unusable answer about task %s: %s", o->task->id,
             mcp_json_typeof(msg->result) != MCP_JSON_OBJECT ? "not an object"
                                                             : "its resultType is not complete");
    return false;
}

/* tasks/get's Task is about our task: its taskId, when it has one, is
 * ours (else its status, and 2026 its inline result, are another's). */
static bool same_task(mcp_session *s, const outbound *o, const mcp_json *task)
{
    const mcp_json *v = mcp_json_object_get(task, "taskId");
    size_t n;
    const char *id = mcp_json_string(v, &n);
    if (!v || (id && n == strlen(o->task->id) && !memcmp(id, o->task->id, n)))
        return true;
    mcp_id wid = mcp_id_from_int(o->id);
    mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &wid, o->method, "outbound", NULL, -1,
             "unusable answer about task %s: it is about another task", o->task->id);
    return false;
}

void mcp__task_response(mcp_session *s, uint64_t now, outbound *o, const mcp_message *msg)
{
    struct mcp__task_call *t = o->task;
    mcp_message *ask = NULL;
    o->held = true;
    switch (t->phase) {
    case PHASE_CREATING: created(s, now, o, msg); break;
    case PHASE_POLLING:
        if (msg->kind == MCP_MESSAGE_RESULT && mcp_json_typeof(msg->result) == MCP_JSON_OBJECT &&
            (!t->modern || complete_result(s, o, msg)) && same_task(s, o, msg->result)) {
            on_task(s, now, o, msg->result, t->modern ? msg : NULL, &ask);
            break;
        }
        /* tasks/get failed (the task expired, say): so does the call. */
        mcp__outbound_take(s, o);
        mcp__outbound_end(s, o, msg->kind == MCP_MESSAGE_RESULT ? MCP_ERR_PROTOCOL : MCP_ERR_REMOTE,
                          msg->kind == MCP_MESSAGE_RESULT ? NULL : msg);
        break;
    case PHASE_UPDATING:
        /* The answers were taken (an acknowledgment, eventually
         * consistent): the next poll tells what came of them. */
        if (msg->kind == MCP_MESSAGE_RESULT && complete_result(s, o, msg)) {
            o->idle_deadline = mcp__deadline(now, o->idle_ms);
            wait_for_poll(s, now, o);
            break;
        }
        /* Refused: the task would wait for them forever. */
        mcp__outbound_take(s, o);
        if (!s->closed)
            send_task_cancel(s, now, o, t->id, "its answers were refused");
        mcp__outbound_end(s, o, msg->kind == MCP_MESSAGE_RESULT ? MCP_ERR_PROTOCOL : MCP_ERR_REMOTE,
                          msg->kind == MCP_MESSAGE_RESULT ? NULL : msg);
        break;
    default: /* fetching: what tasks/result gives is the call's answer */
        mcp__outbound_take(s, o);
        if (msg->kind == MCP_MESSAGE_RESULT && mcp_json_typeof(msg->result) != MCP_JSON_OBJECT)
            mcp__outbound_end(s, o, MCP_ERR_PROTOCOL, NULL);
        else
            mcp__outbound_end(s, o, msg->kind == MCP_MESSAGE_RESULT ? MCP_OK : MCP_ERR_REMOTE, msg);
        break;
    }
    if (ask && (o->ended || s->doomed)) {
        mcp_message_free(ask);
        ask = NULL;
    }
    mcp__outbound_release(s, o);
    if (ask) {
        /* The questions, as an InputRequiredResult's: the same hook and
         * answers; once all are in, rounds.c has them sent
         * (mcp__task_send_answers). o is not held here: the rounds hold
         * it, and may end it. */
        mcp__rounds_input_required(s, now, o, ask);
        mcp_message_free(ask);
    }
}

int mcp__task_send_answers(mcp_session *s, uint64_t now, outbound *o,
                           const struct mcp__rounds *answers)
{
    struct mcp__task_call *t = o->task;
    size_t len;
    char *members = task_members(s, t->id, &len);
    if (!members)
        return MCP_ERR_NOMEM;
    mcp_request_options ro = {.size = sizeof ro, .progress = MCP_PROGRESS_NONE};
    /* {"taskId":..,"inputResponses":{..}}: the rounds write the answers. */
    outbound_spec sp = {.method = "tasks/update",
                        .params_raw = members,
                        .params_raw_len = len,
                        .opts = &ro,
                        .kind = OUT_CALL,
                        .cancellable = true,
                        .envelope = true,
                        .declare_tasks = true,
                        .round = answers};
    t->phase = PHASE_UPDATING;
    o->step_deadline = UINT64_MAX;
    bool got = o->got_progress;
    int rc = mcp__outbound_resend(s, now, o, &sp);
    o->got_progress = got;
    mcp__free(&s->mem, members);
    return rc;
}

void mcp__task_step(mcp_session *s, uint64_t now, outbound *o)
{
    o->held = true;
    send_step(s, now, o, PHASE_POLLING);
    mcp__outbound_release(s, o);
}

bool mcp__task_status_heard(mcp_session *s, uint64_t now, const mcp_message *m)
{
    size_t n;
    const char *id = mcp_json_string(mcp_json_object_get(m->params, "taskId"), &n);
    if (!id)
        return false;
    for (size_t i = 0; i < s->timers.count; i++) {
        outbound *o = s->timers.items[i];
        struct mcp__task_call *t = o->task;
        if (!t || !t->id || t->modern || o->kind == OUT_GHOST || strlen(t->id) != n ||
            memcmp(t->id, id, n))
            continue;
        /* Waiting for the next poll: the notification saves it. Else the
         * answer on the wire decides; the caller hears the news anyway. */
        o->held = true;
        if (t->phase == PHASE_WAITING)
            on_task(s, now, o, m->params, NULL, NULL);
        else if (t->on_task)
            t->on_task(o->user_data, (mcp_handle)o->id, m->params);
        mcp__outbound_release(s, o);
        return true;
    }
    return false;
}

size_t mcp__session_ghosts(const mcp_session *s)
{
    return s->nghosts;
}

bool mcp__task_cancel(mcp_session *s, uint64_t now, outbound *o, int outcome, const char *reason)
{
    struct mcp__task_call *t = o->task;
    if (o->kind == OUT_GHOST) {
        /* Its wait for the task's id is over: nothing more can be done. */
        mcp__outbound_take(s, o);
        mcp_id id = mcp_id_from_int(o->id);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_GENERAL, &id, o->method, "outbound", NULL,
                 mcp__age(now, o->start),
                 "no task id came for a cancelled task call: the task, if any, runs on:");
        mcp__outbound_end(s, o, MCP_ERR_ABORTED, NULL);
        return true;
    }
    if (t->id) {
        mcp__outbound_take(s, o);
        if (!s->closed)
            send_task_cancel(s, now, o, t->id, reason);
        const char *before = s->end_reason;
        s->end_reason = reason;
        mcp__outbound_end(s, o, outcome, NULL);
        s->end_reason = before;
        return true;
    }
    if (o->queued) {
        /* Never sent (it waited for the connect): nothing to cancel. */
        mcp__outbound_take(s, o);
        const char *before = s->end_reason;
        s->end_reason = reason;
        mcp__outbound_end(s, o, outcome, NULL);
        s->end_reason = before;
        return true;
    }
    if (!o->wire) {
        /* 2026, between the rounds of its tools/call: nothing on the wire,
         * no task yet; nothing to cancel. */
        mcp__outbound_take(s, o);
        const char *before = s->end_reason;
        s->end_reason = reason;
        mcp__outbound_end(s, o, outcome, NULL);
        s->end_reason = before;
        return true;
    }
    /* The id is not known yet: the caller is told now; the request waits
     * for CreateTaskResult to cancel the task it names. 2025: never
     * notifications/cancelled (cancellation.mdx: tasks/cancel is used for
     * a task-augmented request). 2026: until CreateTaskResult the
     * tools/call is an ordinary request (the server decides whether a task
     * comes of it; the extension's ban is on cancelling a *task* that way),
     * so it is cancelled the core way too (patterns/cancellation.mdx:
     * notifications/cancelled on stdio; over HTTP the transport closes its
     * stream instead); a task the server made already still gets
     * tasks/cancel when its CreateTaskResult comes. */
    mcp_id id = mcp_id_from_int(o->id);
    mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_SENT, &id, o->method, "outbound", reason,
             mcp__age(now, o->start),
             "task call cancelled before its task was known: tasks/cancel goes once it is:");
    mcp_response_fn cb = o->cb;
    void *ud = o->user_data;
    o->kind = OUT_GHOST;
    s->nghosts++;
    o->cb = NULL;
    o->progress = MCP_PROGRESS_NONE;
    /* Its rounds were the caller's: a ghost answers no questions. */
    mcp__rounds_free(s, o->rounds);
    o->rounds = NULL;
    o->idle_deadline = o->max_deadline = mcp__deadline(now, GHOST_WAIT_MS);
    mcp__outbound_rearm(s, o);
    const char *before = s->end_reason;
    s->end_reason = reason;
    /* Held: the callback may close the session, which frees the ghost. */
    o->held = true;
    cb(ud, (mcp_handle)o->id, outcome, NULL);
    s->end_reason = before;
    if (o->task->modern && !o->ended && !s->closed && !s->doomed)
        mcp__outbound_send_cancel(s, now, o, reason);
    mcp__outbound_release(s, o);
    return true;
}
