/* SPDX-License-Identifier: MIT */
/*
 * 2026-07-28 calls whose child asks the client (basic/patterns/mrtr.mdx).
 * The child speaks a 2025 revision: it asks with a request of its own
 * and waits for the answer in the middle of its call. The 2026-07-28
 * client is never asked directly: its request ends with an
 * InputRequiredResult, and its retry (a new request) brings the answer.
 * So the child's call is held across the rounds: the question goes out
 * under a key of ours ("q1", "q2", ... in the order the child asked), the
 * requestState names the call held, sealed for the request and its caller
 * with an expiry (server/core/request_state.c), and the retry's answers
 * go to the child as its questions' responses; the call then runs on, to
 * its result or its next question. A question the child asks while no
 * round is open waits for the next retry.
 *
 * Because a 2025 child does not say which call a question belongs to, a
 * call that may ask runs on a child of its own: one told the client's
 * capabilities (sampling, elicitation, roots), running one call at a
 * time, and kept for the next call of a client that declared the same
 * ones until it has been idle a while. Calls of clients that declared no
 * question they can answer go to the shared child, which asks nothing.
 *
 * A held call ends with its result, its client's cancel (its request's
 * stream gone), or when no retry came within the state's time (the call
 * is cancelled on the child then). A state is good for one retry at a
 * time and names a call only while it is held: replayed after the call
 * moved on, it is refused (-32602), and the client starts again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/gateway/gateway.h"
#include "session/entry.h"

/* How long an asking child with no call is kept for the next one. */
#define IDLE_MS 30000
/* The questions a call may have open at once (a child asking on without
 * waiting is held to it: its further questions are refused). */
#define MAX_OPEN 64
/* How long a call waits for its client's retry before, when every child
 * is taken, its child may be given to another call: a minute, or a
 * quarter of the state's time when that is shorter. */
#define GIVE_UP_MS 60000

/* A question of a call that became a task, kept by the task as one of
 * its inputRequests until tasks/update answers it (the task's memory
 * points here: it does not move with the array). */
typedef struct posed {
    mcp__question q;
    char key[16];
    held *call;
} posed;

/* A question of the child's, not yet answered. */
typedef struct asked {
    char key[16];
    mcp_handle child_handle;
    mcp_json_doc *request; /* {"method":...,"params":...}, as the client gets it */
    posed *posed;          /* a task's question; NULL for a round's */
} asked;

struct held {
    gateway *gw;
    upstream *up;            /* its child while the call runs there */
    mcp_handle child_handle; /* the call on the child */
    char method[16];         /* tools/call, prompts/get, resources/read */
    forward *now;            /* this round's request; NULL between rounds */
    uint64_t id;
    asked *asked;
    size_t nasked, capasked;
    unsigned keys;           /* keys given out */
    unsigned rounds;         /* input_required answers given: a state names its round */
    bool done;               /* the child answered between rounds: */
    upstream_answer answer;  /* that answer, for the retry */
    bool cancelling;         /* the child's call being cancelled by us */
    /* Tasks (upstream.c's rule): sent as a task call, the child made a
     * task of it, the other form tried; the request that became a task of
     * ours (its run, r->now from then on: the call has no rounds). */
    bool as_task, made_task, other_tried;
    forward *task_run;
    uv_timer_t expiry;       /* between rounds */
    uint64_t waiting_since;  /* loop time the last round ended */
    held *next, *prev;
};

static const char *const ASKING[] = {"sampling", "elicitation", "roots"};

bool rounds_wanted(const mcp_message *msg)
{
    if (strcmp(msg->method, "tools/call") && strcmp(msg->method, "prompts/get") &&
        strcmp(msg->method, "resources/read"))
        return false;
    if (mcp_json_object_get(msg->params, "requestState"))
        return true;
    const mcp_json *caps = mcp__request_client_caps(msg);
    for (size_t i = 0; i < sizeof ASKING / sizeof ASKING[0]; i++)
        if (mcp_json_typeof(mcp_json_object_get(caps, ASKING[i])) == MCP_JSON_OBJECT)
            return true;
    return false;
}

/* Ending --------------------------------------------------------------------------- */

static void expiry_closed(uv_handle_t *h)
{
    held *r = h->data;
    mcp_buf_free(&r->answer.text);
    free(r);
}

/* A task's question a is taken back from the task (the call ended, or
 * the child gave it up). */
static void unpose(held *r, asked *a)
{
    if (!a->posed)
        return;
    mcp__request *run = &r->task_run->req;
    run->sink->withdraw(run, &a->posed->q);
    free(a->posed);
    a->posed = NULL;
}

/* The child's questions left unanswered are answered with an error (the
 * call they were for ended). */
static void drop_questions(held *r, const char *why)
{
    upstream *up = r->up;
    for (size_t i = 0; i < r->nasked; i++) {
        unpose(r, &r->asked[i]);
        if (up && up->driver_open && !up->over)
            mcp_session_reply_error(up->driver.session, r->asked[i].child_handle,
                                    MCP_WIRE_INTERNAL_ERROR, why, NULL);
        mcp_json_doc_free(r->asked[i].request);
    }
    r->nasked = 0;
    if (up && up->driver_open)
        mcp__driver_rearm(&up->driver);
}

/* Whether up may take a call. Not one whose exit or output end was seen:
 * its kill timer waits for the other half then (wait_over), and must not
 * be taken for the idle timer; nor one whose session closed (a write
 * failed) before its end was noted. */
static bool usable(const upstream *up)
{
    return !up->gone && !up->over && !up->closed && !up->exited && !up->input_ended &&
           up->driver_open && !mcp_session_closed(up->driver.session);
}

static void idle_over(uv_timer_t *t)
{
    upstream *up = t->data;
    if (!up->held)
        upstream_close(up, "the server process was idle");
}

/* The child runs no call of r's any more: free for the next when the
 * call ended with its answer; else (cancelled, expired) it may still run
 * the call and ask for it, and another client must never get those
 * questions: it is closed. */
static void let_go(held *r, bool reuse)
{
    upstream *up = r->up;
    r->up = NULL;
    if (!up)
        return;
    up->held = NULL;
    if (usable(up) && reuse)
        uv_timer_start(&up->kill_timer, idle_over, IDLE_MS, 0);
    else if (usable(up))
        upstream_close(up, "its call ended without its answer");
}

static void round_free(held *r)
{
    gateway *gw = r->gw;
    drop_questions(r, "Internal error: the call this question was for ended");
    free(r->asked);
    r->task_run = NULL;
    let_go(r, false);
    if (r->now)
        r->now->held = NULL;
    if (r->prev)
        r->prev->next = r->next;
    else
        gw->rounds = r->next;
    if (r->next)
        r->next->prev = r->prev;
    uv_close((uv_handle_t *)&r->expiry, expiry_closed);
}

/* Cancel r's call on its child, with reason (its callback runs within,
 * and is told it is ours). */
static void cancel_call(held *r, const char *reason)
{
    upstream *up = r->up;
    if (!up || !up->driver_open || !r->child_handle)
        return;
    r->cancelling = true;
    if (mcp_session_cancel(up->driver.session, mcp__now_ms(), r->child_handle, reason) ==
        MCP_ERR_INVALID_ARG) /* a reason it would not send */
        mcp_session_cancel(up->driver.session, mcp__now_ms(), r->child_handle, NULL);
    r->child_handle = 0;
    mcp__driver_rearm(&up->driver);
}

static void expired(uv_timer_t *t)
{
    held *r = t->data;
    cancel_call(r, "the client did not continue the call in time");
    round_free(r);
}

/* Rounds ---------------------------------------------------------------------------- */

/* f's request ends with the questions open: an InputRequiredResult whose
 * state names r; r waits for the retry. */
static void ask(held *r, forward *f)
{
    r->now = NULL;
    f->held = NULL;
    mcp__request *req = &f->req;
    mcp_buf b, members;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_init(&members, 0, NULL);
    char named[80];
    int n = snprintf(named, sizeof named, "\"g\":\"%s-%llu-%u\"", r->gw->epoch,
                     (unsigned long long)r->id, ++r->rounds);
    int rc = mcp_buf_append(&members, named, (size_t)n);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&b, MCP_LITERAL("{\"resultType\":\"input_required\",\"inputRequests\":{"));
    for (size_t i = 0; rc == MCP_OK && i < r->nasked; i++) {
        if (i)
            rc = mcp_buf_append(&b, MCP_LITERAL(","));
        if (rc == MCP_OK)
            rc = mcp_json_write_string(r->asked[i].key, strlen(r->asked[i].key), &b);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&b, MCP_LITERAL(":"));
        if (rc == MCP_OK)
            rc = mcp_json_write(mcp_json_doc_root(r->asked[i].request), &b);
    }
    if (rc == MCP_OK)
        rc = mcp_buf_append(&b, MCP_LITERAL("},\"requestState\":\""));
    if (rc == MCP_OK)
        rc = mcp__request_state_seal(req->conn, req->msg, members.data, members.len, &b);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&b, MCP_LITERAL("\"}"));
    mcp_buf_free(&members);
    if (rc != MCP_OK) {
        mcp_buf_free(&b);
        cancel_call(r, "the gateway ran out of memory");
        round_free(r);
        mcp__request_end(req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR,
                         MCP_LITERAL("Internal error: out of memory"));
        return;
    }
    uint64_t ttl = r->gw->server->opts.request_state_ttl_ms;
    uv_timer_start(&r->expiry, expired, ttl, 0);
    r->waiting_since = uv_now(&r->gw->server->loop);
    mcp__request_end(req, ANSWER_RESULT, 0, b.data, b.len);
    mcp_buf_free(&b);
}

static void refuse(forward *f, int64_t code, const char *head, const char *why);
static void call_answered(void *ud, mcp_handle h, int outcome, const mcp_message *m);
static void call_progressed(void *ud, mcp_handle h, double progress, double total,
                            const char *message);

/* The child made a task of r's call (first: CreateTaskResult's task): so
 * does the gateway, for a client that declared the extension; its
 * questions are the task's from then on. */
static void call_task_told(void *ud, mcp_handle h, const mcp_json *task)
{
    (void)h;
    (void)task;
    held *r = ud;
    forward *f = r->now;
    if (r->made_task)
        return;
    r->made_task = true;
    gateway *gw = r->gw;
    if (!f) /* between rounds: the call is followed to its end, a plain one */
        return;
    if (upstream_become_task(&f->req) != MCP_OK)
        return;
    /* Read r only while it is held: a write failing within ends it. */
    for (held *k = gw->rounds; k; k = k->next)
        if (k == r && r->now == f)
            r->task_run = f;
}

/* Send f's call to r's child, in r's form. */
static void send_call(held *r, forward *f)
{
    gateway *gw = r->gw;
    upstream *up = r->up;
    mcp_handle sent = 0;
    int rc = upstream_send(up, f->req.msg, true, true, call_answered, call_progressed,
                           r->as_task ? call_task_told : NULL, r, &sent);
    /* Answered within (its child gone), r is freed: read only while held. */
    for (held *k = gw->rounds; rc == MCP_OK && k; k = k->next)
        if (k == r && r->up == up)
            r->child_handle = sent;
    if (rc != MCP_OK) {
        f->held = NULL;
        r->now = NULL;
        round_free(r);
        refuse(f, MCP_WIRE_INTERNAL_ERROR, "Internal error: the request could not be forwarded: ",
               mcp_strerror(rc));
    }
}

/* The child answered the call (or its session ended). */
static void call_answered(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)h;
    held *r = ud;
    if (r->cancelling)
        return; /* ours: r is being ended by who cancelled */
    r->child_handle = 0;
    forward *f = r->now;
    /* The other form, once, for a call that has asked nothing yet (one
     * that did ran: sent again it would start over). */
    if (f && outcome == MCP_ERR_REMOTE && m->error_code == MCP_WIRE_METHOD_NOT_FOUND &&
        !r->made_task && !r->other_tried && !r->keys && !strcmp(r->method, "tools/call") &&
        upstream_runs_tasks(r->up)) {
        r->other_tried = true;
        r->as_task = !r->as_task;
        send_call(r, f);
        return;
    }
    /* Between rounds there is no request: the call's own method says
     * what the answer needs (2026-07-28 throughout). */
    upstream_asked q = {r->gw->server, r->method, MCP_PROTOCOL_LATEST, r->as_task};
    upstream_outcome(&q, r->up, outcome, m, &r->answer);
    drop_questions(r, "Internal error: the call this question was for ended");
    let_go(r, true);
    if (!f) { /* kept for the retry, until the state expires */
        r->done = true;
        return;
    }
    r->now = NULL;
    f->held = NULL;
    upstream_answer a = r->answer;
    mcp_buf_init(&r->answer.text, 0, NULL);
    round_free(r);
    upstream_answer_give(&f->req, &a);
}

static void call_progressed(void *ud, mcp_handle h, double progress, double total,
                            const char *message)
{
    (void)h;
    held *r = ud;
    if (r->now) /* between rounds there is no one to tell */
        mcp__request_progress(&r->now->req, progress, total, message);
}

bool round_log(held *r, const mcp_json *params)
{
    forward *f = r->now;
    int level = mcp__log_level_parse(mcp_json_object_get(params, "level"));
    const mcp_json *data = mcp_json_object_get(params, "data");
    /* A task's run has no stream to log on (ext-tasks: no
     * notifications/message for a task). */
    if (!f || f->req.sink || level < 0 || !data)
        return false;
    /* Sent when the request's envelope asked for this level (2026-07-28
     * logs are the request's, on its stream), else dropped. */
    conn *c = f->req.conn;
    mcp_session_log_message(c->driver.session, f->req.handle, (mcp_log_level)level,
                            mcp_json_string(mcp_json_object_get(params, "logger"), NULL), data);
    mcp__driver_rearm(&c->driver);
    return true;
}

/* The question as a 2026-07-28 client is asked it: a URL elicitation
 * without the 2025-11-25 elicitationId (whose completion notice has no
 * 2026-07-28 counterpart), a task's without the child's related-task
 * (the task the client knows is the gateway's). */
static mcp_json_doc *question_for_client(const mcp_message *msg)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    if (!d)
        return NULL;
    mcp_json *q = mcp_json_new_object(d);
    mcp_json_object_set(d, q, "method", mcp_json_new_string(d, msg->method));
    mcp_json *params = upstream_copy_unrelated(d, msg->params, "elicitationId");
    mcp_json_object_set(d, q, "params", params);
    mcp_json_doc_set_root(d, q);
    if (mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        return NULL;
    }
    return d;
}

/* The client answered a task's question (tasks/update): to the child. */
static void posed_answered(mcp__question *q, const mcp_json *result)
{
    posed *p = (posed *)q;
    held *r = p->call;
    for (size_t i = 0; i < r->nasked; i++) {
        if (r->asked[i].posed != p)
            continue;
        /* Out of r before the write, which may end the child's session
         * (and r's questions with it). */
        asked a = r->asked[i];
        r->asked[i] = r->asked[--r->nasked];
        free(p);
        upstream *up = r->up;
        if (up && up->driver_open && !up->over) {
            mcp_session_reply(up->driver.session, a.child_handle, result);
            mcp__driver_rearm(&up->driver);
        }
        mcp_json_doc_free(a.request);
        return;
    }
}

/* a, asked during r's task, becomes one of the task's inputRequests. */
static void pose(held *r, asked *a)
{
    mcp__request *run = &r->task_run->req;
    const mcp_json *q = mcp_json_doc_root(a->request);
    posed *p = calloc(1, sizeof *p);
    int rc = p ? MCP_OK : MCP_ERR_NOMEM;
    if (p) {
        snprintf(p->key, sizeof p->key, "%s", a->key);
        p->call = r;
        p->q.key = p->key;
        p->q.method = mcp_json_string(mcp_json_object_get(q, "method"), NULL);
        p->q.params = mcp_json_object_get(q, "params");
        p->q.answered = posed_answered;
        a->posed = p;
        rc = run->sink->pose(run, &p->q);
    }
    if (rc == MCP_OK)
        return;
    a->posed = NULL;
    free(p);
    upstream *up = r->up;
    asked gone = *a;
    *a = r->asked[--r->nasked];
    if (up && up->driver_open && !up->over) {
        mcp_session_reply_error(up->driver.session, gone.child_handle, MCP_WIRE_INTERNAL_ERROR,
                                "Internal error: the task could not take the question", NULL);
        mcp__driver_rearm(&up->driver);
    }
    mcp_json_doc_free(gone.request);
}

void round_question(upstream *up, mcp_handle h, const mcp_message *msg)
{
    mcp_session *cs = up->driver.session;
    held *r = up->held;
    const char *refused = NULL;
    int code = MCP_WIRE_INTERNAL_ERROR;
    if (strcmp(msg->method, "elicitation/create") && strcmp(msg->method, "sampling/createMessage") &&
        strcmp(msg->method, "roots/list")) {
        code = MCP_WIRE_METHOD_NOT_FOUND;
        refused = "Method not found: a 2026-07-28 client is asked only for elicitation, sampling "
                  "and roots";
    } else if (!r) {
        refused = "Internal error: the gateway asks its client only for a call in flight";
    } else if (!mcp__ask_declared(mcp_json_doc_root(up->caps), NULL, msg->method, msg->params)) {
        code = MCP_WIRE_METHOD_NOT_FOUND;
        refused = "Method not found: the client did not declare the capability this question "
                  "needs";
    } else if (r->nasked >= MAX_OPEN) {
        refused = "Internal error: too many questions open for one call";
    } else if (r->nasked == r->capasked) {
        size_t cap = r->capasked ? 2 * r->capasked : 4;
        asked *v = realloc(r->asked, cap * sizeof *v);
        if (v) {
            r->asked = v;
            r->capasked = cap;
        } else {
            refused = "Internal error: out of memory";
        }
    }
    mcp_json_doc *q = refused ? NULL : question_for_client(msg);
    if (!refused && !q)
        refused = "Internal error: out of memory";
    if (refused) {
        mcp_session_reply_error(cs, h, code, refused, NULL);
        mcp__driver_rearm(&up->driver);
        return;
    }
    asked *a = &r->asked[r->nasked++];
    snprintf(a->key, sizeof a->key, "q%u", ++r->keys);
    a->child_handle = h;
    a->request = q;
    a->posed = NULL;
    r->waiting_since = uv_now(&r->gw->server->loop);
    if (r->task_run)
        pose(r, a);
    else if (r->now)
        ask(r, r->now);
}

void round_question_withdrawn(upstream *up, mcp_handle h)
{
    held *r = up->held;
    for (size_t i = 0; r && i < r->nasked; i++)
        if (r->asked[i].child_handle == h) {
            unpose(r, &r->asked[i]);
            mcp_json_doc_free(r->asked[i].request);
            r->asked[i] = r->asked[--r->nasked];
            return;
        }
}

/* The retry f brings answers for r's questions: each given goes to the
 * child; then r's kept answer, the questions still open, or the call
 * running on. */
static void resume(held *r, forward *f)
{
    uv_timer_stop(&r->expiry);
    const mcp_json *responses = mcp_json_object_get(f->req.msg->params, "inputResponses");
    upstream *up = r->up;
    /* The answered questions are moved past the open ones and taken out
     * of r before any is sent: a failed write to the child ends its
     * session within, whose end drops what r still holds. */
    size_t n = r->nasked, kept = 0;
    for (size_t i = 0; i < n; i++) {
        const mcp_json *v = mcp_json_object_get(responses, r->asked[i].key);
        if (mcp_json_typeof(v) != MCP_JSON_OBJECT) { /* unanswered: asked again */
            asked open = r->asked[i];
            r->asked[i] = r->asked[kept];
            r->asked[kept++] = open;
        }
    }
    r->nasked = kept;
    for (size_t i = kept; i < n; i++) {
        const mcp_json *v = mcp_json_object_get(responses, r->asked[i].key);
        if (up && up->driver_open && !up->over)
            mcp_session_reply(up->driver.session, r->asked[i].child_handle, v);
        mcp_json_doc_free(r->asked[i].request);
    }
    if (up && up->driver_open)
        mcp__driver_rearm(&up->driver);
    if (r->done) {
        upstream_answer a = r->answer;
        mcp_buf_init(&r->answer.text, 0, NULL);
        round_free(r);
        upstream_answer_give(&f->req, &a);
        return;
    }
    r->now = f;
    f->held = r;
    if (r->nasked)
        ask(r, f);
}

/* f answered an error: head (a static text) and why. */
static void refuse(forward *f, int64_t code, const char *head, const char *why)
{
    char text[320];
    snprintf(text, sizeof text, "%s%s", head, why);
    mcp__request_end(&f->req, ANSWER_ERROR, code, text, strlen(text));
}

/* The call f's requestState names, or NULL with why. */
static held *held_for(gateway *gw, forward *f, const char **why)
{
    const mcp_json *state = mcp_json_object_get(f->req.msg->params, "requestState");
    const mcp_json *responses = mcp_json_object_get(f->req.msg->params, "inputResponses");
    size_t n;
    const char *text = mcp_json_string(state, &n);
    if (!text) {
        *why = "requestState must be a string";
        return NULL;
    }
    if (responses && mcp_json_typeof(responses) != MCP_JSON_OBJECT) {
        *why = "inputResponses must be an object";
        return NULL;
    }
    mcp_json_doc *d;
    *why = mcp__request_state_open(f->req.conn, f->req.msg, text, n, &d);
    if (*why)
        return NULL;
    const char *named = mcp_json_string(mcp_json_object_get(mcp_json_doc_root(d), "g"), NULL);
    char ours[80];
    held *r = NULL;
    for (r = named ? gw->rounds : NULL; r; r = r->next) {
        snprintf(ours, sizeof ours, "%s-%llu-%u", gw->epoch, (unsigned long long)r->id,
                 r->rounds);
        if (!strcmp(ours, named))
            break;
    }
    if (!named)
        *why = "requestState is not one this server gave";
    else if (!r)
        *why = "requestState names a call that is no longer held, or an earlier round of it "
               "(it ended, its time ran out, or it went on): send the request again without it";
    else if (r->now)
        *why = "requestState names a call another request continues";
    mcp_json_doc_free(d);
    return *why ? NULL : r;
}

/* Every child is taken: the call that has waited longest for its
 * client's retry, past GIVE_UP_MS, ends (cancelled on its child, which is
 * closed), so that the next try finds room. Abandoned calls cannot keep
 * the children from the clients that come after them. */
static void give_up_longest_wait(gateway *gw)
{
    uint64_t now = uv_now(&gw->server->loop);
    uint64_t after = gw->server->opts.request_state_ttl_ms / 4;
    if (after > GIVE_UP_MS)
        after = GIVE_UP_MS;
    held *longest = NULL;
    for (held *r = gw->rounds; r; r = r->next) {
        /* Between rounds, or a task's run whose questions wait for
         * tasks/update. */
        bool waiting = !r->now || (r->task_run && r->nasked);
        if (waiting && r->up && !r->done && now - r->waiting_since >= after &&
            (!longest || r->waiting_since < longest->waiting_since))
            longest = r;
    }
    if (!longest)
        return;
    mcp__server_log(gw->server, MCP_LOG_INFO,
                    "gateway: a call waiting %llu ms for its client gives its server process up "
                    "to another call",
                    (unsigned long long)(now - longest->waiting_since));
    /* A task's run fails with it (its client is told why by tasks/get). */
    round_closing(longest, "the client did not continue the call, and its server process was "
                           "wanted by another call");
}

void rounds_make_room(gateway *gw)
{
    for (upstream *up = gw->all; up; up = up->next)
        if (up->caps && !up->held && usable(up)) {
            upstream_close(up, "its place was wanted");
            return;
        }
    upstream *shared = gw->shared;
    if (shared && !shared->requests && !gw->nwatched && usable(shared)) {
        upstream_close(shared, "its place was wanted");
        return;
    }
    give_up_longest_wait(gw);
}

/* An idle asking child told caps (taken) that served caller (a
 * credential, or NULL: what a child keeps of one client's calls is never
 * another's), or a new one; NULL with why when none can be had. */
static upstream *child_for(gateway *gw, mcp_json_doc *caps, const char *caller, char *why,
                           size_t n)
{
    for (upstream *up = gw->all; up; up = up->next) {
        if (!up->caps || up->held || !usable(up))
            continue;
        if (mcp__same_credential(up->caller, caller) &&
            mcp_json_equal(mcp_json_doc_root(up->caps), mcp_json_doc_root(caps))) {
            uv_timer_stop(&up->kill_timer);
            mcp_json_doc_free(caps);
            return up;
        }
    }
    upstream *up = NULL;
    if (gw->stopping) {
        snprintf(why, n, "Internal error: the server is stopping");
    } else if (gw->children >= gw->max_children) {
        rounds_make_room(gw);
        snprintf(why, n, "Internal error: too many server processes: %u run already, the most "
                 "this gateway runs at once; try again shortly", gw->max_children);
    } else if (!(up = upstream_open(gw, NULL, NULL, NULL, mcp_json_doc_root(caps)))) {
        snprintf(why, n, "Internal error: out of memory");
    } else if (up->gone) {
        snprintf(why, n, "Internal error: %s", up->why);
        upstream_close(up, up->why);
        up = NULL;
    } else if (caller && !(up->caller = strdup(caller))) {
        snprintf(why, n, "Internal error: out of memory");
        upstream_close(up, "out of memory");
        up = NULL;
    } else {
        up->caps = caps;
        return up;
    }
    mcp_json_doc_free(caps);
    return NULL;
}

/* The questions f's client declared it can answer (NULL: out of memory). */
static mcp_json_doc *asking_caps(const mcp_message *msg)
{
    const mcp_json *caps = mcp__request_client_caps(msg);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *o = d ? mcp_json_new_object(d) : NULL;
    for (size_t i = 0; o && i < sizeof ASKING / sizeof ASKING[0]; i++) {
        const mcp_json *v = mcp_json_object_get(caps, ASKING[i]);
        if (mcp_json_typeof(v) == MCP_JSON_OBJECT)
            mcp_json_object_set(d, o, ASKING[i], mcp_json_copy(d, v));
    }
    if (o)
        mcp_json_doc_set_root(d, o);
    if (!o || mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        return NULL;
    }
    return d;
}

void round_request(gateway *gw, conn *c, mcp_handle h, forward *f)
{
    if (mcp_json_object_get(f->req.msg->params, "requestState")) {
        const char *why;
        held *r = held_for(gw, f, &why);
        if (!r) {
            refuse(f, MCP_WIRE_INVALID_PARAMS, "Invalid params: ", why);
            return;
        }
        resume(r, f);
        return;
    }
    mcp_json_doc *caps = asking_caps(f->req.msg);
    char why[300] = "Internal error: out of memory";
    upstream *up = caps ? child_for(gw, caps, c->credential, why, sizeof why) : NULL;
    held *r = up ? calloc(1, sizeof *r) : NULL;
    if (!r) {
        if (up)
            upstream_close(up, "out of memory");
        else
            gateway_refuse_busy(c, h);
        mcp__request_end(&f->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, why, strlen(why));
        return;
    }
    r->gw = gw;
    r->id = ++gw->rounds_made;
    snprintf(r->method, sizeof r->method, "%s", f->req.msg->method);
    mcp_buf_init(&r->answer.text, 0, NULL);
    uv_timer_init(&gw->server->loop, &r->expiry);
    r->expiry.data = r;
    r->next = gw->rounds;
    if (r->next)
        r->next->prev = r;
    gw->rounds = r;
    r->up = up;
    up->held = r;
    r->now = f;
    f->held = r;
    r->as_task = !strcmp(r->method, "tools/call") && upstream_runs_tasks(up) &&
                 (gateway_declares_tasks(f->req.msg) || gateway_task_only(gw, f->req.msg));
    send_call(r, f);
}

/* The child is closed once its call is cancelled (let_go): a call it
 * had not yet made a task of is left for the close, its tasks/cancel
 * (sent once the task's id comes) maybe never written. */
void round_cancelled(forward *f, const char *reason)
{
    held *r = f->held;
    r->now = NULL;
    f->held = NULL;
    cancel_call(r, reason);
    round_free(r);
    /* Ended, though nothing goes out: the request's reference let go. */
    refuse(f, MCP_WIRE_INTERNAL_ERROR, "Internal error: cancelled: ", reason ? reason : "");
}

void round_closing(held *r, const char *why)
{
    forward *f = r->now;
    r->now = NULL;
    cancel_call(r, why);
    let_go(r, false);
    if (f) {
        f->held = NULL;
        round_free(r);
        refuse(f, MCP_WIRE_INTERNAL_ERROR, "Internal error: ", why);
        return;
    }
    round_free(r);
}

void rounds_close_all(gateway *gw)
{
    while (gw->rounds)
        round_closing(gw->rounds, "the server stops");
    for (upstream *up = gw->all, *next; up; up = next) {
        next = up->next;
        if (up->caps)
            upstream_close(up, "the server stops");
    }
}
