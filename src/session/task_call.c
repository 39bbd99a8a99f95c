/* SPDX-License-Identifier: MIT */
/*
 * Our tools/call as a task (2025-11-25, basic/utilities/tasks.mdx), the
 * requestor's side, inside the engine: one request handle for the whole
 * life of the task, whose wire ids change as it goes.
 *
 *   creating  tools/call with params.task is on the wire
 *   waiting   CreateTaskResult came: nothing on the wire until the next
 *             poll (the server's pollInterval) or a status notification
 *             that says the task ended or needs input
 *   polling   tasks/get is on the wire
 *   fetching  tasks/result is on the wire (the task ended, or needs input:
 *             the server asks its questions while tasks/result waits)
 *
 * The caller's callback is called once, with what tasks/result gave, as a
 * plain call's. A cancel of any kind (the caller's, the idle timeout, the
 * total limit) is tasks/cancel, never notifications/cancelled
 * (cancellation.mdx): while the task's id is not known, the caller is told
 * at once and the request waits, as a ghost nobody can reach, for
 * CreateTaskResult, to cancel the task it names.
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "session/internal.h"

/* How long a ghost waits for the id of the task it must cancel. */
#define GHOST_WAIT_MS 60000u
/* The poll interval honoured, whatever the server says: not faster than
 * this, not slower than that. */
#define POLL_MIN_MS 10u
#define POLL_MAX_MS 60000u
#define POLL_DEFAULT_MS 1000u

typedef enum { PHASE_CREATING, PHASE_WAITING, PHASE_POLLING, PHASE_FETCHING } task_phase;

struct mcp__task_call {
    task_phase phase;
    bool start_only; /* the call ends with CreateTaskResult */
    char *id;        /* the task's, once known */
    uint64_t poll_ms;
    void (*on_task)(void *user_data, mcp_handle h, const mcp_json *task);
};

int mcp__task_capture(mcp_session *s, outbound *e, const mcp_request_options *o)
{
    e->task = mcp__calloc(&s->mem, 1, sizeof *e->task);
    if (!e->task)
        return MCP_ERR_NOMEM;
    e->task->poll_ms = POLL_DEFAULT_MS;
    e->task->start_only = o->task_start_only;
    e->task->on_task = o->on_task;
    return MCP_OK;
}

void mcp__task_free(mcp_session *s, struct mcp__task_call *t)
{
    if (!t)
        return;
    mcp__free(&s->mem, t->id);
    mcp__free(&s->mem, t);
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
                        .cancellable = true};
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
    if (mcp_json_get_uint64(mcp_json_object_get(task, "pollInterval"), &ms) == MCP_OK)
        t->poll_ms = ms < POLL_MIN_MS ? POLL_MIN_MS : ms > POLL_MAX_MS ? POLL_MAX_MS : ms;
}

/* A Task the server sent: where the call goes from here (o held). */
static void on_task(mcp_session *s, uint64_t now, outbound *o, const mcp_json *task)
{
    if (o->task->on_task) {
        o->task->on_task(o->user_data, (mcp_handle)o->id, task);
        if (o->ended || s->doomed)
            return; /* cancelled from the callback */
    }
    note_poll_interval(o->task, task);
    /* The server answered about the task: it is alive. */
    o->idle_deadline = mcp__deadline(now, o->idle_ms);
    if (time_to_fetch(task))
        send_step(s, now, o, PHASE_FETCHING);
    else
        wait_for_poll(s, now, o);
}

/* The answer to tools/call: CreateTaskResult, or (a server that made no
 * task of it) the call's own result. */
static void created(mcp_session *s, uint64_t now, outbound *o, const mcp_message *msg)
{
    struct mcp__task_call *t = o->task;
    const mcp_json *task = msg->kind == MCP_MESSAGE_RESULT
                               ? mcp_json_object_get(msg->result, "task") : NULL;
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
         * result that is no object is none). */
        mcp__outbound_take(s, o);
        if (msg->kind == MCP_MESSAGE_RESULT && mcp_json_typeof(msg->result) != MCP_JSON_OBJECT)
            mcp__outbound_end(s, o, MCP_ERR_PROTOCOL, NULL);
        else
            mcp__outbound_end(s, o, msg->kind == MCP_MESSAGE_RESULT ? MCP_OK : MCP_ERR_REMOTE,
                              msg);
        return;
    }
    if (!id || n == 0 || memchr(id, '\0', n) || !(t->id = mcp__strndup(&s->mem, id, n))) {
        mcp__outbound_take(s, o);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &wid, o->method, "outbound", NULL,
                 -1, "unusable CreateTaskResult: %s",
                 id ? "out of memory" : "its task has no taskId string");
        mcp__outbound_end(s, o, id ? MCP_ERR_NOMEM : MCP_ERR_PROTOCOL, NULL);
        return;
    }
    mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL, &wid, o->method, "outbound", NULL,
             mcp__age(now, o->start), "runs as task %s", t->id);
    if (t->start_only) {
        mcp__outbound_take(s, o);
        mcp__outbound_end(s, o, MCP_OK, msg);
        return;
    }
    on_task(s, now, o, task);
}

void mcp__task_response(mcp_session *s, uint64_t now, outbound *o, const mcp_message *msg)
{
    o->held = true;
    switch (o->task->phase) {
    case PHASE_CREATING: created(s, now, o, msg); break;
    case PHASE_POLLING:
        if (msg->kind == MCP_MESSAGE_RESULT && mcp_json_typeof(msg->result) == MCP_JSON_OBJECT) {
            on_task(s, now, o, msg->result);
            break;
        }
        /* tasks/get failed (the task expired, say): so does the call. */
        mcp__outbound_take(s, o);
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
    mcp__outbound_release(s, o);
}

void mcp__task_step(mcp_session *s, uint64_t now, outbound *o)
{
    o->held = true;
    send_step(s, now, o, PHASE_POLLING);
    mcp__outbound_release(s, o);
}

bool mcp__task_status(mcp_session *s, uint64_t now, const mcp_message *m)
{
    size_t n;
    const char *id = mcp_json_string(mcp_json_object_get(m->params, "taskId"), &n);
    if (!id)
        return false;
    for (size_t i = 0; i < s->timers.count; i++) {
        outbound *o = s->timers.items[i];
        struct mcp__task_call *t = o->task;
        if (!t || !t->id || o->kind == OUT_GHOST || strlen(t->id) != n || memcmp(t->id, id, n))
            continue;
        /* Waiting for the next poll: the notification saves it. Else the
         * answer on the wire decides; the caller hears the news anyway. */
        o->held = true;
        if (t->phase == PHASE_WAITING)
            on_task(s, now, o, m->params);
        else if (t->on_task)
            t->on_task(o->user_data, (mcp_handle)o->id, m->params);
        mcp__outbound_release(s, o);
        return true;
    }
    return false;
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
    /* The id is not known yet: the caller is told now; the request waits
     * for CreateTaskResult to cancel the task it names (never
     * notifications/cancelled: cancellation.mdx). */
    mcp_id id = mcp_id_from_int(o->id);
    mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_SENT, &id, o->method, "outbound", reason,
             mcp__age(now, o->start),
             "task call cancelled before its task was known: tasks/cancel goes once it is:");
    mcp_response_fn cb = o->cb;
    void *ud = o->user_data;
    o->kind = OUT_GHOST;
    o->cb = NULL;
    o->progress = MCP_PROGRESS_NONE;
    o->idle_deadline = o->max_deadline = mcp__deadline(now, GHOST_WAIT_MS);
    mcp__outbound_rearm(s, o);
    const char *before = s->end_reason;
    s->end_reason = reason;
    /* Held: the callback may close the session, which frees the ghost. */
    o->held = true;
    cb(ud, (mcp_handle)o->id, outcome, NULL);
    s->end_reason = before;
    mcp__outbound_release(s, o);
    return true;
}
