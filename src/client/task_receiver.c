/* SPDX-License-Identifier: MIT */
/*
 * The server's questions run as tasks (2025-11-25, basic/utilities/
 * tasks.mdx, the client as receiver): a sampling/createMessage or
 * elicitation/create that carries params.task, of a kind the client
 * declared (mcp_client_options.question_tasks), is answered
 * CreateTaskResult at once, and the question goes to the same handler as
 * any other; its answer becomes the task's result. The server reaches the
 * task with tasks/get, tasks/result (which waits for the end), tasks/list
 * and tasks/cancel (which withdraws the question: its token fires, a later
 * answer is dropped).
 *
 * The tasks are the session's (the client's one server): the connection's
 * end ends them all. At most MAX_TASKS are kept; a task is forgotten once
 * its ttl (at most MAX_TTL_MS) is over, checked whenever the server asks
 * about tasks or makes one. Loop thread, all of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "session/task_wire.h"

#define MAX_TASKS 64
#define MAX_TTL_MS 3600000u
#define POLL_MS 1000u
/* tasks/result requests waiting for one task's end. */
#define MAX_WAITERS 8

struct mcp__held_task {
    char id[MCP__TASK_ID_LEN + 1];
    mcp__task_status status;
    char *status_message; /* a literal, or NULL */
    int64_t created_ms, updated_ms;
    uint64_t ttl_ms, expires; /* expires: loop clock */
    mcp_question *question;   /* while the application has it */
    /* The end: the result object, or the error (code and message). */
    mcp_json_doc *result;
    int64_t error_code;
    char *error_message;
    mcp_handle waiters[MAX_WAITERS];
    unsigned nwaiters;
    mcp__held_task *next;
};

static void view_of(const mcp__held_task *t, mcp__task_view *v)
{
    *v = (mcp__task_view){t->id,         t->status, t->status_message, t->created_ms,
                          t->updated_ms, t->ttl_ms, POLL_MS,           false};
}

/* {<the task's members>}, or {"task":{...}} (created), as a document. */
static mcp_json_doc *task_doc(const mcp__held_task *t, bool created)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    if (created) {
        mcp__jw_key(&w, "task");
        mcp__jw_object(&w);
    }
    mcp__task_view v;
    view_of(t, &v);
    mcp__task_write(&w, &v);
    if (created)
        mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    mcp_json_doc *d = NULL;
    if (mcp__jw_finish(&w) == MCP_OK)
        mcp_json_parse(b.data, b.len, NULL, NULL, &d, NULL);
    mcp_buf_free(&b);
    return d;
}

static int reply_doc(mcp_session *s, mcp_handle h, mcp_json_doc *d)
{
    int rc = d ? mcp_session_reply(s, h, mcp_json_doc_root(d))
               : mcp_session_reply_error(s, h, MCP_WIRE_INTERNAL_ERROR, "Internal error", NULL);
    mcp_json_doc_free(d);
    return rc;
}

static void set_status(mcp__held_task *t, mcp__task_status to, char *message)
{
    t->status = to;
    t->status_message = message;
    int64_t now = (int64_t)mcp__wall_ms();
    t->updated_ms = now > t->updated_ms ? now : t->updated_ms;
}

/* What tasks/result answers for ended t. */
static void reply_end(mcp_session *s, mcp_handle h, const mcp__held_task *t)
{
    if (t->status == MCP__TASK_CANCELLED) {
        char text[80];
        snprintf(text, sizeof text, "Task %s was cancelled", t->id);
        mcp_session_reply_error(s, h, MCP_WIRE_INVALID_PARAMS, text, NULL);
        return;
    }
    if (!t->result) {
        mcp_session_reply_error(s, h, t->error_code,
                                t->error_message ? t->error_message : "Internal error", NULL);
        return;
    }
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf text;
    mcp_buf_init(&text, 0, NULL);
    int rc = mcp_json_write(mcp_json_doc_root(t->result), &text);
    if (rc == MCP_OK)
        rc = mcp__task_result_with_meta(text.data, text.len, t->id, &b);
    if (rc == MCP_OK)
        mcp_session_reply_raw(s, h, b.data, b.len);
    else
        mcp_session_reply_error(s, h, MCP_WIRE_INTERNAL_ERROR, "Internal error", NULL);
    mcp_buf_free(&text);
    mcp_buf_free(&b);
}

static void task_free(mcp__held_task *t)
{
    mcp_json_doc_free(t->result);
    free(t->error_message);
    free(t);
}

/* t leaves the client: its question withdrawn, its waiters told. */
static void drop(mcp_client *c, mcp__held_task *t, const char *why)
{
    if (t->question)
        mcp__questions_withdraw_task(c, t->question, why);
    t->question = NULL;
    for (unsigned i = 0; i < t->nwaiters && c->driver_open; i++) {
        char text[120];
        snprintf(text, sizeof text, "Task %s no longer exists: %s", t->id, why);
        mcp_session_reply_error(c->driver.session, t->waiters[i], MCP_WIRE_INVALID_PARAMS, text,
                                NULL);
    }
    task_free(t);
}

/* Forget the tasks whose ttl is over. */
static void expire(mcp_client *c)
{
    uint64_t now = mcp__now_ms();
    for (mcp__held_task **p = &c->held_tasks; *p;) {
        mcp__held_task *t = *p;
        if (t->expires > now) {
            p = &t->next;
            continue;
        }
        *p = t->next;
        c->nheld--;
        drop(c, t, "its ttl is over");
    }
}

/* Whether the client hosts tasks now: it offers to, and speaks 2025-11-25
 * (the 2026-07-28 client hosts none: the extension has none). */
static bool hosting(const mcp_client *c)
{
    const char *v = c->driver_open ? mcp_session_protocol_version(c->driver.session) : NULL;
    return c->opts.question_tasks && v && !strcmp(v, "2025-11-25");
}

bool mcp__receiver_wants(const mcp_client *c, const mcp_message *msg)
{
    return hosting(c) &&
           mcp_json_typeof(mcp_json_object_get(msg->params, "task")) == MCP_JSON_OBJECT;
}

void mcp__receiver_question_gone(mcp__held_task *t)
{
    t->question = NULL;
}

mcp__held_task *mcp__receiver_begin(mcp_client *c, mcp_handle h, const mcp_message *msg,
                                    mcp_question *q)
{
    mcp_session *s = c->driver.session;
    expire(c);
    const mcp_json *ttl_v = mcp_json_object_get(mcp_json_object_get(msg->params, "task"), "ttl");
    uint64_t ttl = MAX_TTL_MS;
    if (ttl_v && mcp_json_typeof(ttl_v) != MCP_JSON_NULL &&
        (mcp_json_get_uint64(ttl_v, &ttl) != MCP_OK || ttl == 0)) {
        mcp_session_reply_error(s, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: params.task.ttl must be a whole number of "
                                "milliseconds, at least 1",
                                NULL);
        return NULL;
    }
    if (ttl > MAX_TTL_MS)
        ttl = MAX_TTL_MS;
    if (c->nheld >= MAX_TASKS) {
        mcp_session_reply_error(s, h, MCP_WIRE_INTERNAL_ERROR,
                                "Too many tasks: this client holds 64, its limit; wait for some "
                                "to expire",
                                NULL);
        return NULL;
    }
    mcp__held_task *t = calloc(1, sizeof *t);
    if (!t || !mcp__random_hex(t->id, MCP__TASK_ID_LEN / 2)) {
        free(t);
        mcp_session_reply_error(s, h, MCP_WIRE_INTERNAL_ERROR, "Internal error", NULL);
        return NULL;
    }
    t->status = MCP__TASK_WORKING;
    t->created_ms = t->updated_ms = (int64_t)mcp__wall_ms();
    t->ttl_ms = ttl;
    t->expires = mcp__now_ms() + ttl;
    t->question = q;
    t->next = c->held_tasks;
    c->held_tasks = t;
    c->nheld++;
    return t;
}

void mcp__receiver_announce(mcp_client *c, mcp_handle h, const mcp__held_task *t)
{
    reply_doc(c->driver.session, h, task_doc(t, true));
}

/* The task's end, told (notifications/tasks/status: optional, useful) and
 * given to the tasks/result requests waiting for it. */
static void ended(mcp_client *c, mcp__held_task *t)
{
    if (!c->driver_open)
        return;
    mcp_session *s = c->driver.session;
    for (unsigned i = 0; i < t->nwaiters; i++)
        reply_end(s, t->waiters[i], t);
    t->nwaiters = 0;
    mcp_json_doc *d = task_doc(t, false);
    if (d)
        mcp_session_notify(s, "notifications/tasks/status", mcp_json_doc_root(d));
    mcp_json_doc_free(d);
}

void mcp__receiver_answered(mcp_client *c, mcp__held_task *t, mcp_json_doc *result,
                            int64_t code, const char *message)
{
    t->question = NULL;
    if (mcp__task_terminal(t->status)) {
        mcp_json_doc_free(result);
        return;
    }
    t->result = result;
    t->error_code = code;
    t->error_message = !result && message ? strdup(message) : NULL;
    set_status(t, result ? MCP__TASK_COMPLETED : MCP__TASK_FAILED,
               result ? NULL : "The question was answered with an error");
    ended(c, t);
}

static mcp__held_task *find(mcp_client *c, const mcp_message *msg, mcp_handle h)
{
    size_t n;
    const char *id = mcp_json_string(mcp_json_object_get(msg->params, "taskId"), &n);
    for (mcp__held_task *t = c->held_tasks; id && t; t = t->next)
        if (n == MCP__TASK_ID_LEN && !memcmp(t->id, id, n))
            return t;
    mcp_session_reply_error(c->driver.session, h, MCP_WIRE_INVALID_PARAMS,
                            id ? "Invalid params: no such task"
                               : "Invalid params: params.taskId must be a string",
                            NULL);
    return NULL;
}

static void tasks_list(mcp_client *c, mcp_handle h, const mcp_message *msg)
{
    mcp_session *s = c->driver.session;
    const mcp_json *cursor = mcp_json_object_get(msg->params, "cursor");
    if (cursor && mcp_json_typeof(cursor) != MCP_JSON_NULL) {
        /* One page holds them all: no cursor was ever given. */
        mcp_session_reply_error(s, h, MCP_WIRE_INVALID_PARAMS, "Invalid params: unknown cursor",
                                NULL);
        return;
    }
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "tasks");
    mcp__jw_array(&w);
    for (const mcp__held_task *t = c->held_tasks; t; t = t->next) {
        mcp__task_view v;
        view_of(t, &v);
        mcp__jw_object(&w);
        mcp__task_write(&w, &v);
        mcp__jw_object_end(&w);
    }
    mcp__jw_array_end(&w);
    mcp__jw_object_end(&w);
    if (mcp__jw_finish(&w) == MCP_OK)
        mcp_session_reply_raw(s, h, b.data, b.len);
    else
        mcp_session_reply_error(s, h, MCP_WIRE_INTERNAL_ERROR, "Internal error", NULL);
    mcp_buf_free(&b);
}

bool mcp__receiver_request(mcp_client *c, mcp_handle h, const mcp_message *msg)
{
    static const char *const methods[] = {"tasks/get", "tasks/result", "tasks/list",
                                          "tasks/cancel"};
    int m = -1;
    for (int i = 0; i < 4; i++)
        if (msg->method_len == strlen(methods[i]) &&
            !memcmp(msg->method, methods[i], msg->method_len))
            m = i;
    if (m < 0 || !hosting(c))
        return false; /* refused as any request the client does not serve */
    mcp_session *s = c->driver.session;
    expire(c);
    if (m == 2) {
        tasks_list(c, h, msg);
        return true;
    }
    mcp__held_task *t = find(c, msg, h);
    if (!t)
        return true;
    if (m == 0) {
        reply_doc(s, h, task_doc(t, false));
    } else if (m == 1 && mcp__task_terminal(t->status)) {
        reply_end(s, h, t);
    } else if (m == 1) {
        /* Blocks until the end (tasks.mdx: MUST). */
        if (t->nwaiters == MAX_WAITERS)
            mcp_session_reply_error(s, h, MCP_WIRE_INTERNAL_ERROR,
                                    "Too many tasks/result requests wait for this task", NULL);
        else
            t->waiters[t->nwaiters++] = h;
    } else if (mcp__task_terminal(t->status)) {
        char text[120];
        snprintf(text, sizeof text,
                 "Invalid params: task %s cannot be cancelled: it is already %s", t->id,
                 mcp__task_status_name(t->status));
        mcp_session_reply_error(s, h, MCP_WIRE_INVALID_PARAMS, text, NULL);
    } else {
        /* Cancelled before anything is written; the question withdrawn
         * (the handler's token fires, its answer is dropped). */
        set_status(t, MCP__TASK_CANCELLED, "Cancelled by the server");
        mcp_question *q = t->question;
        t->question = NULL;
        if (q)
            mcp__questions_withdraw_task(c, q, "the task was cancelled (tasks/cancel)");
        reply_doc(s, h, task_doc(t, false));
        ended(c, t);
    }
    return true;
}

void mcp__receiver_cancelled(mcp_client *c, mcp_handle h)
{
    for (mcp__held_task *t = c->held_tasks; t; t = t->next)
        for (unsigned i = 0; i < t->nwaiters; i++)
            if (t->waiters[i] == h) {
                t->waiters[i] = t->waiters[--t->nwaiters];
                return;
            }
}

void mcp__receiver_end(mcp_client *c, const char *why)
{
    while (c->held_tasks) {
        mcp__held_task *t = c->held_tasks;
        c->held_tasks = t->next;
        c->nheld--;
        t->nwaiters = 0; /* the session is gone: nothing to answer */
        drop(c, t, why);
    }
}
