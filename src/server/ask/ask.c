/* SPDX-License-Identifier: MIT */
/*
 * A handler asking the client (sampling, elicitation, roots) in the middle
 * of its call, under the 2025 revisions: a request of the server's on the
 * call's route, which lives exactly as long as the call. The handler's
 * thread waits; the loop sends, hears the answer, and cancels the request
 * on the wire when the call settles first (the client's cancel, a session
 * end, a stop), so the client's own handler is told too. The official
 * servers leave such a request running when the call is cancelled.
 *
 * Also the feature itself (at the end): the hooks through which the core
 * tells asking the client that a call settled or a connection ends, and
 * through which a call's 2026-07-28 questions go out.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/opts.h"
#include "server/ask/ask.h"
#include "session/revision.h"

/* How many of one connection's calls may wait on its client at once. */
#define MAX_ASKS_PER_CONN 64

typedef struct ask {
    mcp__post post; /* first: posted to the loop to be sent */
    atomic_uint refs; /* the asker's and the loop's */
    mcp__request *req; /* a reference, dropped with the loop's */
    ask_state *state;  /* its connection's */
    char *method;
    char *params; /* JSON text, or NULL */
    uint64_t timeout_ms;
    mcp_handle handle; /* loop thread: the request once sent */
    struct ask *next;  /* loop thread: the connection's asks in flight */
    const char *cancel_reason; /* loop: why the call cancelled it */
    /* A 2026-07-28 task's question (the call detached, its destination
     * keeps it: no request goes out): its key, params and the question. */
    char *key;
    mcp_json_doc *params_doc;
    mcp__question question;
    mcp__post give_up; /* the asker's timeout, posted to the loop */
    bool posed;        /* loop: in its connection's posed list */
    bool held;         /* loop: in its connection's held list */
    const char *tag;   /* loop: the task it names (held: the task's, alive
                          while the run is) */
    bool finished;             /* loop: finish ran (it runs once) */
    bool asked;                /* loop: a detached call's sink was told it asks */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int outcome;
    mcp_ask_answer answer;
} ask;

static void ask_unref(ask *a)
{
    if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a->method);
    free(a->params);
    free(a->key);
    mcp_json_doc_free(a->params_doc);
    mcp_ask_answer_release(&a->answer);
    free(a);
}

/* Loop thread: the answer (or the ending) reaches the asker; the loop's
 * reference goes. */
static void finish(ask *a, int outcome)
{
    /* Once: a send that fails closes the session, whose ending may reach
     * this ask (asks_cancel) before the send returns its error. */
    if (a->finished)
        return;
    a->finished = true;
    mcp__request *r = a->req;
    /* A detached call's destination (a task) hears the question ended,
     * unless the call has settled (its task ended with it). */
    if (r->sink && a->asked && !r->settled)
        r->sink->asking(r, false, NULL);
    pthread_mutex_lock(&a->mu);
    a->outcome = outcome;
    a->done = true;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    mcp__request_unref(r);
    ask_unref(a);
}

/* Take a out of its connection's list: false when it was not there
 * (answered or ended already). */
static bool unlink_ask(ask *a)
{
    ask **list = a->posed ? &a->state->posed : a->held ? &a->state->held : &a->state->in_flight;
    for (ask **p = list; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            return true;
        }
    return false;
}

/* The answer's result, copied for the asker: MCP_OK or MCP_ERR_NOMEM. */
static int take_result(ask *a, const mcp_json *result)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *copy = d ? mcp_json_copy(d, result) : NULL;
    if (copy)
        mcp_json_doc_set_root(d, copy);
    if (!copy || mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        return MCP_ERR_NOMEM;
    }
    a->answer.result = d;
    return MCP_OK;
}

static void on_answer(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    ask *a = ud;
    unlink_ask(a);
    if (outcome == MCP_OK && m && m->result) {
        outcome = take_result(a, m->result);
    } else if (outcome == MCP_ERR_REMOTE && m) {
        a->answer.error_code = m->error_code;
        a->answer.error_message = strndup(m->error_message ? m->error_message : "",
                                          m->error_message_len);
        if (!a->answer.error_message)
            outcome = MCP_ERR_NOMEM;
    } else if (outcome == MCP_ERR_ABORTED) {
        /* We cancelled it: because the call was (its reason), or because
         * the wait timed out. */
        outcome = a->cancel_reason ? MCP_ERR_CANCELLED : MCP_ERR_TIMED_OUT;
    } else if (outcome == MCP_ERR_MAX_TIME) {
        outcome = MCP_ERR_TIMED_OUT;
    }
    finish(a, outcome);
}

/* The question's params (*d, made when NULL) with _meta naming the task it
 * is asked for (io.modelcontextprotocol/related-task). False when out of
 * memory. */
static bool tag_question(mcp_json_doc **d, const char *task_id)
{
    if (!*d) {
        *d = mcp_json_doc_new(NULL);
        if (!*d)
            return false;
        mcp_json_doc_set_root(*d, mcp_json_new_object(*d));
    }
    mcp_json *root = mcp_json_doc_root(*d);
    mcp_json *meta = mcp_json_object_get(root, "_meta");
    if (mcp_json_typeof(meta) != MCP_JSON_OBJECT) {
        meta = mcp_json_new_object(*d);
        mcp_json_object_set(*d, root, "_meta", meta);
    }
    mcp_json *related = mcp_json_new_object(*d);
    mcp_json_object_set(*d, related, "taskId", mcp_json_new_string(*d, task_id));
    mcp_json_object_set(*d, meta, "io.modelcontextprotocol/related-task", related);
    return mcp_json_doc_error(*d) == MCP_OK;
}

/* Loop thread: the client answered a task's question (tasks/update); its
 * destination let go of it already. The handler asking it again gets the
 * same answer (as a 2026 round's handler does). */
static void question_answered(mcp__question *q, const mcp_json *result)
{
    ask *a = (ask *)(void *)((char *)q - offsetof(ask, question));
    unlink_ask(a);
    int rc = take_result(a, result);
    if (rc == MCP_OK)
        rc = mcp__answer_keep(mcp__call_of(a->req), a->key, result);
    finish(a, rc);
}

/* Loop thread: a 2026-07-28 task's question goes to its destination (no
 * request: the client finds it in tasks/get and answers by tasks/update). */
static void pose(ask *a)
{
    mcp__request *r = a->req;
    a->question = (mcp__question){.key = a->key,
                                  .method = a->method,
                                  .params = a->params_doc ? mcp_json_doc_root(a->params_doc) : NULL,
                                  .answered = question_answered};
    a->posed = true;
    a->next = a->state->posed;
    a->state->posed = a;
    int rc = r->sink->pose(r, &a->question);
    if (rc != MCP_OK) {
        unlink_ask(a);
        finish(a, rc);
    }
}

/* Loop thread: the asker's wait timed out: the question is withdrawn,
 * unless it was answered meanwhile. */
static void give_up_posted(mcp__post *post)
{
    ask *a = (ask *)(void *)((char *)post - offsetof(ask, give_up));
    /* A question sent has its request's own timeout. */
    if (!a->finished && (a->posed || a->held) && unlink_ask(a)) {
        mcp__request *r = a->req;
        if (a->posed && r->sink && !r->settled)
            r->sink->withdraw(r, &a->question);
        finish(a, MCP_ERR_TIMED_OUT);
    }
    ask_unref(a); /* the post's */
}

static void send_now(ask *a, mcp_json_doc *d, mcp_handle related);

/* Loop thread: send the asked request for its call, unless the call has
 * settled meanwhile. */
static void send_posted(mcp__post *post)
{
    ask *a = (ask *)post;
    mcp__request *r = a->req;
    if (r->settled) {
        finish(a, MCP_ERR_CANCELLED);
        return;
    }
    if (a->key) {
        pose(a);
        return;
    }
    conn *c = r->conn;
    mcp_session *ss = c->driver.session;
    mcp_json_doc *d = NULL;
    if (a->params && mcp_json_parse(a->params, strlen(a->params), NULL, NULL, &d, NULL) != MCP_OK) {
        finish(a, MCP_ERR_NOMEM);
        return;
    }
    /* A detached call (a task's run) is its request no more: the client's
     * capabilities are its session's. */
    const mcp_json *caps =
        r->sink ? mcp_json_object_get(mcp_session_peer_info(ss), "capabilities")
                : mcp_session_inbound_client_capabilities(ss, r->handle);
    if (!mcp__ask_declared(caps, r->version, a->method, d ? mcp_json_doc_root(d) : NULL)) {
        mcp_json_doc_free(d);
        finish(a, MCP_ERR_STATE);
        return;
    }
    mcp_handle related = r->handle;
    if (r->sink) {
        /* Its destination says what the question goes with, and what it
         * names (a task: tasks.mdx, the related-task _meta MUST be there). */
        a->asked = true;
        related = r->sink->asking(r, true, &a->tag);
        if (r->settled) { /* the status notification's write ended it */
            mcp_json_doc_free(d);
            finish(a, MCP_ERR_CANCELLED);
            return;
        }
        if (related == MCP__ASK_HOLD) {
            /* Nothing to go with yet: held for the next tasks/result
             * (request_routed). */
            mcp_json_doc_free(d);
            a->held = true;
            a->next = a->state->held;
            a->state->held = a;
            return;
        }
    }
    send_now(a, d, related);
}

/* Loop thread: send a's request (its params d, taken), going with request
 * related (0: the session's own route). */
static void send_now(ask *a, mcp_json_doc *d, mcp_handle related)
{
    mcp__request *r = a->req;
    conn *c = r->conn;
    if (a->tag && !tag_question(&d, a->tag)) {
        mcp_json_doc_free(d);
        finish(a, MCP_ERR_NOMEM);
        return;
    }
    mcp_request_options o = {.size = sizeof o,
                             .timeout_ms = a->timeout_ms ? a->timeout_ms : MCP_NO_TIMEOUT,
                             .max_time_ms = a->timeout_ms ? a->timeout_ms : MCP_NO_TIMEOUT,
                             .progress = MCP_PROGRESS_NONE,
                             .related = related};
    /* In the list before it is sent: the send may fail and close the
     * connection, whose ending then finds it (and calls back). */
    a->next = a->state->in_flight;
    a->state->in_flight = a;
    if (!strcmp(a->method, "elicitation/create"))
        mcp__url_elicitation_note(a->state, r->version, d ? mcp_json_doc_root(d) : NULL);
    mcp_handle h = 0;
    /* Held across the send: a send that fails closes the connection, whose
     * ending finishes a (cancel_asks), and the asker, woken, may drop the
     * last other reference before we look at a again. */
    atomic_fetch_add(&a->refs, 1);
    int rc = mcp_session_request(c->driver.session, mcp__now_ms(), a->method,
                                 d ? mcp_json_doc_root(d) : NULL, &o, on_answer, NULL, a, &h);
    mcp_json_doc_free(d);
    if (rc != MCP_OK) {
        /* The callback was never called. */
        unlink_ask(a);
        finish(a, rc == MCP_ERR_NOT_FOUND ? MCP_ERR_CANCELLED : rc);
    } else {
        a->handle = h;
        mcp__driver_rearm(&c->driver);
    }
    ask_unref(a);
}

/* Loop thread: the asks in flight of request r (NULL: of every request of
 * the connection) are cancelled on the wire with reason, their askers told
 * (cancelled). */
static void cancel_asks(ask_state *st, mcp_session *ss, const mcp__request *r,
                        const char *reason)
{
    for (;;) {
        ask *a = st->in_flight;
        while (a && r && a->req != r)
            a = a->next;
        if (!a)
            return;
        a->cancel_reason = reason ? reason : "the call ended";
        /* Ends it at once (on_answer unlinks it), unless the connection
         * closed under us, which ended it already. */
        if (mcp_session_cancel(ss, mcp__now_ms(), a->handle, a->cancel_reason) != MCP_OK &&
            unlink_ask(a))
            finish(a, MCP_ERR_CLOSED);
    }
}

/* Loop thread: r's held questions (none sent) end with outcome. */
static void end_held(ask_state *st, const mcp__request *r, int outcome)
{
    for (ask **p = &st->held; *p;) {
        ask *a = *p;
        if (a->req != r) {
            p = &a->next;
            continue;
        }
        *p = a->next;
        a->held = false;
        finish(a, outcome);
    }
}

/* Loop thread: r settled: its task questions are withdrawn, their askers
 * told the call was cancelled (an answer can no longer be used). */
static void withdraw_posed(ask_state *st, mcp__request *r)
{
    for (ask **p = &st->posed; *p;) {
        ask *a = *p;
        if (a->req != r) {
            p = &a->next;
            continue;
        }
        *p = a->next;
        if (r->sink)
            r->sink->withdraw(r, &a->question);
        finish(a, MCP_ERR_CANCELLED);
    }
}

/* The answer must be the result its method defines; an accepted form must
 * satisfy the requested schema (client/elicitation.mdx: servers SHOULD
 * validate what they receive). MCP_OK, or the code with why. */
static int check_answer(const char *method, const mcp_json *params, const mcp_schema *form,
                        const mcp_json *result, char *why, size_t n)
{
    if (!strcmp(method, "sampling/createMessage")) {
        const char *role = mcp_json_string(mcp_json_object_get(result, "role"), NULL);
        mcp_json_type ct = mcp_json_typeof(mcp_json_object_get(result, "content"));
        if (!role || (strcmp(role, "assistant") && strcmp(role, "user")) ||
            (ct != MCP_JSON_OBJECT && ct != MCP_JSON_ARRAY) ||
            !mcp_json_string(mcp_json_object_get(result, "model"), NULL)) {
            snprintf(why, n, "the client's answer is not a CreateMessageResult (a role, a "
                             "content and a model)");
            return MCP_ERR_PROTOCOL;
        }
        return MCP_OK;
    }
    if (!strcmp(method, "roots/list")) {
        const mcp_json *roots = mcp_json_object_get(result, "roots");
        bool ok = mcp_json_typeof(roots) == MCP_JSON_ARRAY;
        for (size_t i = 0; ok && i < mcp_json_array_size(roots); i++)
            ok = mcp_json_string(mcp_json_object_get(mcp_json_array_at(roots, i), "uri"), NULL);
        if (!ok) {
            snprintf(why, n, "the client's answer is not a ListRootsResult (roots, each with a uri)");
            return MCP_ERR_PROTOCOL;
        }
        return MCP_OK;
    }
    const char *action = mcp_json_string(mcp_json_object_get(result, "action"), NULL);
    if (!action || (strcmp(action, "accept") && strcmp(action, "decline") && strcmp(action, "cancel"))) {
        snprintf(why, n, "the client's answer has no action of accept, decline or cancel");
        return MCP_ERR_PROTOCOL;
    }
    const mcp_json *content = mcp_json_object_get(result, "content");
    const char *mode = mcp_json_string(mcp_json_object_get(params, "mode"), NULL);
    bool url = mode && !strcmp(mode, "url");
    if (url && content) {
        /* What the user does at the URL never crosses the client: an
         * answer that carries data anyway is not one to act on. */
        snprintf(why, n, "the client's answer to a URL elicitation carries content");
        return MCP_ERR_PROTOCOL;
    }
    if (strcmp(action, "accept") || url)
        return MCP_OK;
    if (mcp_json_typeof(content) != MCP_JSON_OBJECT) {
        snprintf(why, n, "the client accepted the form without its content");
        return MCP_ERR_PROTOCOL;
    }
    mcp_schema_error e;
    if (form && mcp_schema_validate(form, content, &e) != MCP_OK) {
        snprintf(why, n, "the form the client accepted breaks the requested schema: content%.200s "
                         "%.200s (%.31s)",
                 e.instance_path, e.message, e.keyword);
        return MCP_ERR_SCHEMA_MISMATCH;
    }
    return MCP_OK;
}

/* The answer of an ask, checked: on a problem the result goes, and
 * error_message says why. */
static int settle(int rc, const char *method, const mcp_json *params, const mcp_schema *form,
                  mcp_ask_answer *answer)
{
    if (rc != MCP_OK)
        return rc;
    char why[600];
    rc = check_answer(method, params, form, mcp_json_doc_root(answer->result), why, sizeof why);
    if (rc != MCP_OK) {
        mcp_json_doc_free(answer->result);
        answer->result = NULL;
        answer->error_message = strdup(why);
        if (!answer->error_message)
            rc = MCP_ERR_NOMEM;
    }
    return rc;
}

/* The requested schema of a form elicitation, compiled; MCP_OK with *form
 * NULL when there is none to check. */
/* An elicitation's params: a URL mode one must be whole (the client shows
 * its URL to a person), a form's schema compiles (for checking the answer). */
static int form_schema(const char *method, const mcp_json *params, const char *version,
                       mcp_schema **form)
{
    *form = NULL;
    if (strcmp(method, "elicitation/create"))
        return MCP_OK;
    const mcp_json *mode = mcp_json_object_get(params, "mode");
    const char *m = mcp_json_string(mode, NULL);
    if (mode && (!m || (strcmp(m, "form") && strcmp(m, "url"))))
        return MCP_ERR_INVALID_ARG;
    if (m && !strcmp(m, "url"))
        return mcp__url_elicitation_check(params, version) ? MCP_ERR_INVALID_ARG : MCP_OK;
    const mcp_json *schema = mcp_json_object_get(params, "requestedSchema");
    if (!schema)
        return MCP_OK;
    int rc = mcp_schema_compile(schema, NULL, form, NULL, 0);
    return rc == MCP_ERR_NOMEM ? rc : rc != MCP_OK ? MCP_ERR_INVALID_ARG : MCP_OK;
}

/* A key of inputRequests: 1 to 64 of [A-Za-z0-9_.-]. */
static bool key_ok(const char *key)
{
    size_t n = strlen(key);
    if (!n || n > 64)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = key[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == '-' || ch == '.'))
            return false;
    }
    return true;
}

/* Free an ask that was never posted. */
static void ask_discard(ask *a)
{
    free(a->method);
    free(a->params);
    free(a->key);
    mcp_json_doc_free(a->params_doc);
    free(a);
}

/* The asker waits for the loop's finish. A task's question (no request on
 * the wire to time out) has its deadline (until, or NULL: none) waited
 * here: then the loop is asked to withdraw it, and its finish awaited
 * still. */
static void wait_answer(ask *a, mcp_server *s, const struct timespec *until)
{
    bool timed = (a->key || a->req->sink) && until; /* posed or held: no request times them */
    pthread_mutex_lock(&a->mu);
    while (!a->done) {
        if (!timed) {
            pthread_cond_wait(&a->cv, &a->mu);
        } else if (pthread_cond_timedwait(&a->cv, &a->mu, until) == ETIMEDOUT && !a->done) {
            timed = false;
            atomic_fetch_add(&a->refs, 1); /* the post's */
            a->give_up.run = give_up_posted;
            pthread_mutex_unlock(&a->mu); /* the poster has a lock of its own */
            if (!mcp__server_post(s, &a->give_up))
                ask_unref(a); /* the loop is gone: its closing ends the question */
            pthread_mutex_lock(&a->mu);
        }
    }
    pthread_mutex_unlock(&a->mu);
}

/* Whether q is a question this library asks. */
static bool question_ok(const mcp_ask_question *q)
{
    return q->method &&
           (!strcmp(q->method, "sampling/createMessage") ||
            !strcmp(q->method, "elicitation/create") || !strcmp(q->method, "roots/list")) &&
           (!q->params || mcp_json_typeof(q->params) == MCP_JSON_OBJECT) &&
           (!q->key || key_ok(q->key));
}

/* One question (question_ok), made ready: either answered at once (*out
 * NULL, the outcome returned: a 2026 round's question, an answer given
 * before, a refusal), or an ask to post and wait for (*out, MCP_OK).
 * *form: the requested schema to check the answer against, or NULL. */
static int ask_prepare(mcp_call *c, const mcp_ask_question *q, const mcp_ask_question *batch,
                       size_t n, mcp_ask_answer *answer, mcp_schema **form, ask **out)
{
    *out = NULL;
    *form = NULL;
    const char *key = q->key, *method = q->method;
    const mcp_json *params = q->params;
    mcp__request *r = &c->req;
    int rc = form_schema(method, params, r->version, form);
    if (rc != MCP_OK)
        return rc;
    bool modern = mcp__call_modern(c);
    char automatic[16];
    if (modern && !(key = mcp__ask_key(c, key, automatic, batch, n)))
        return MCP_ERR_NOMEM;
    if (modern && !r->sink)
        return mcp__mrtr_ask(c, key, method, params, answer);
    if (modern) {
        /* A 2026-07-28 task's run: the question waits in the task
         * (tasks/get's inputRequests) for tasks/update to answer it; an
         * answer given already (an earlier round's, or the same key asked
         * before) at once. */
        rc = mcp__mrtr_given(c, key, answer);
        if (rc == MCP_ERR_NOT_FOUND &&
            !mcp__ask_declared(mcp__call_client_caps(c), r->version, method, params))
            rc = MCP_ERR_STATE;
        if (rc != MCP_ERR_NOT_FOUND)
            return rc;
    }
    ask *a = calloc(1, sizeof *a);
    if (!a)
        return MCP_ERR_NOMEM;
    a->answer.size = sizeof a->answer; /* released with a, when not taken */
    mcp_buf text;
    mcp_buf_init(&text, 0, NULL);
    rc = params ? mcp_json_write(params, &text) : MCP_OK;
    a->method = strdup(method);
    a->params = text.data;
    if (modern) {
        a->key = strdup(key);
        a->params_doc = params ? mcp_json_doc_new(NULL) : NULL;
        mcp_json *copy = a->params_doc ? mcp_json_copy(a->params_doc, params) : NULL;
        if (copy)
            mcp_json_doc_set_root(a->params_doc, copy);
        if (!a->key || (params && (!copy || mcp_json_doc_error(a->params_doc) != MCP_OK)))
            rc = MCP_ERR_NOMEM;
    }
    if (rc != MCP_OK || !a->method || (params && !a->params)) {
        ask_discard(a);
        return rc == MCP_ERR_UTF8 ? MCP_ERR_INVALID_ARG : rc != MCP_OK ? rc : MCP_ERR_NOMEM;
    }
    *out = a;
    return MCP_OK;
}

/* Post a prepared ask to the loop: MCP_OK, or MCP_ERR_CLOSED (the loop is
 * gone: nothing can be asked any more; a freed). */
static int ask_post(mcp_call *c, ask *a, uint64_t timeout_ms)
{
    mcp__request *r = &c->req;
    atomic_init(&a->refs, 2);
    pthread_mutex_init(&a->mu, NULL);
    /* The monotonic clock: a task question's timeout is waited here. */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&a->cv, &ca);
    pthread_condattr_destroy(&ca);
    a->timeout_ms = timeout_ms;
    a->req = r;
    a->state = mcp__conn_state(r->conn, &mcp__ask_feature);
    mcp__request_ref(r);
    a->post.run = send_posted;
    if (mcp__server_post(r->conn->server, &a->post))
        return MCP_OK;
    mcp__request_unref(r);
    ask_unref(a);
    ask_unref(a);
    return MCP_ERR_CLOSED;
}

/* mcp_call_ask_all into whole answers of this library's size. */
static int ask_impl(mcp_call *c, const mcp_ask_question *qs, size_t n, uint64_t timeout_ms,
                    mcp_ask_answer *answers, int *outcomes)
{
    if (!c || !qs || n == 0 || n > MAX_ASKS_PER_CONN)
        return MCP_ERR_INVALID_ARG;
    mcp__request *r = &c->req;
    mcp_server *s = r->conn->server;
    ask_state *st = mcp__conn_state(r->conn, &mcp__ask_feature);
    int common = MCP_OK;
    if (mcp__on_loop_thread(&s->poster) || c->kind == CALL_COMPLETE)
        common = MCP_ERR_STATE;
    else if (mcp_cancel_token_is_cancelled(&r->token))
        common = MCP_ERR_CANCELLED;
    ask *as[MAX_ASKS_PER_CONN] = {0};
    mcp_schema *forms[MAX_ASKS_PER_CONN] = {0};
    unsigned waiting = 0;
    for (size_t i = 0; i < n; i++) {
        outcomes[i] = !question_ok(&qs[i]) ? MCP_ERR_INVALID_ARG
                      : common != MCP_OK   ? common
                                           : ask_prepare(c, &qs[i], qs, n, &answers[i], &forms[i],
                                                         &as[i]);
        waiting += as[i] != NULL;
    }
    /* Waiting on the client is no work: the pool runs others meanwhile,
     * within bounds: one client may keep MAX_ASKS_PER_CONN questions
     * waiting, all clients together what the pool can stand in for. */
    if (waiting && (atomic_fetch_add(&st->waiting, waiting) + waiting > MAX_ASKS_PER_CONN ||
                    (c->pool && !mcp__pool_wait_begin(c->pool)))) {
        atomic_fetch_sub(&st->waiting, waiting);
        for (size_t i = 0; i < n; i++)
            if (as[i]) {
                ask_discard(as[i]);
                as[i] = NULL;
                outcomes[i] = MCP_ERR_BUSY;
            }
        waiting = 0;
    }
    if (waiting) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + (timeout_ms % 1000u) * 1000000u;
        until.tv_sec += (time_t)(timeout_ms / 1000u + ns / 1000000000u);
        until.tv_nsec = (long)(ns % 1000000000u);
        for (size_t i = 0; i < n; i++)
            if (as[i] && (outcomes[i] = ask_post(c, as[i], timeout_ms)) != MCP_OK)
                as[i] = NULL;
        for (size_t i = 0; i < n; i++) {
            ask *a = as[i];
            if (!a)
                continue;
            wait_answer(a, s, timeout_ms ? &until : NULL);
            outcomes[i] = a->outcome;
            answers[i] = a->answer;
            mcp__out_zero(&a->answer); /* taken: nothing left to release */
            ask_unref(a);
        }
        if (c->pool)
            mcp__pool_wait_end(c->pool);
        atomic_fetch_sub(&st->waiting, waiting);
    }
    /* The call's outcome: every answer, or the first reason one is missing
     * (a cancel first: nothing else matters then). */
    int rc = MCP_OK;
    for (size_t i = 0; i < n; i++) {
        outcomes[i] = settle(outcomes[i], qs[i].method, qs[i].params, forms[i], &answers[i]);
        mcp_schema_free(forms[i]);
        if (outcomes[i] == MCP_ERR_CANCELLED || rc == MCP_OK ||
            (outcomes[i] == MCP_ERR_INPUT_REQUIRED && rc != MCP_ERR_CANCELLED))
            rc = outcomes[i] == MCP_OK ? rc : outcomes[i];
    }
    return rc;
}

int mcp_call_ask_all(mcp_call *c, const mcp_ask_question *questions, size_t count,
                     uint64_t timeout_ms, mcp_ask_answer *answers, int *outcomes)
{
    if (!answers || !outcomes || count > MAX_ASKS_PER_CONN)
        return MCP_ERR_INVALID_ARG;
    for (size_t i = 0; i < count; i++)
        if (!mcp__out_size_ok(&answers[i], sizeof answers[i], sizeof answers[i]))
            return MCP_ERR_INVALID_ARG;
    mcp_ask_answer got[MAX_ASKS_PER_CONN];
    for (size_t i = 0; i < count; i++)
        got[i] = (mcp_ask_answer){.size = sizeof got[i]};
    int rc = ask_impl(c, questions, count, timeout_ms, got, outcomes);
    for (size_t i = 0; i < count; i++)
        mcp__out_fill(&answers[i], &got[i]); /* every field is in the first version */
    return rc;
}

int mcp_call_ask(mcp_call *c, const char *key, const char *method, const mcp_json *params,
                 uint64_t timeout_ms, mcp_ask_answer *answer)
{
    int outcome;
    mcp_ask_question q = {.key = key, .method = method, .params = params};
    return mcp_call_ask_all(c, &q, 1, timeout_ms, answer, &outcome);
}

void mcp_ask_answer_release(mcp_ask_answer *answer)
{
    if (!answer || !mcp__out_size_ok(answer, sizeof *answer, sizeof *answer))
        return;
    mcp_json_doc_free(answer->result);
    free(answer->error_message);
    mcp__out_zero(answer);
}

/* The feature ------------------------------------------------------------------ */

/* A call that settles takes what it asked with it, on the wire too; a
 * -32042 it answered names URL elicitations to remember. */
static void request_settled(mcp__request *r, void *state, const mcp__settle *how)
{
    ask_state *st = state;
    if (st->in_flight)
        cancel_asks(st, r->conn->driver.session, r, how->cancelled ? how->reason : NULL);
    if (st->posed)
        withdraw_posed(st, r);
    if (st->held)
        end_held(st, r, MCP_ERR_CANCELLED);
    if (how->error_code == MCP_WIRE_URL_ELICITATION_REQUIRED)
        mcp__url_required_note(st, r->version, how->error_data);
}

/* What the calls asked is cancelled on the wire while the session can
 * still write (its closing ends them silently): the client's forms and
 * samplings are told. */
static void conn_ending(conn *c, void *state, const char *why)
{
    ask_state *st = state;
    if (st->in_flight)
        cancel_asks(st, c->driver.session, NULL, why);
}

static void conn_free(conn *c, void *state)
{
    mcp__url_elicitations_free(state);
}

/* A task's held questions go with the tasks/result that waits now (on its
 * stream: tasks.mdx), one at a time (a send may end the connection, and
 * with it r). */
static void request_routed(mcp__request *r, void *state, mcp_handle with)
{
    ask_state *st = state;
    while (!r->settled) {
        ask *a = st->held;
        while (a && a->req != r)
            a = a->next;
        if (!a)
            return;
        unlink_ask(a);
        a->held = false;
        mcp_json_doc *d = NULL;
        if (a->params && mcp_json_parse(a->params, strlen(a->params), NULL, NULL, &d, NULL) != MCP_OK) {
            finish(a, MCP_ERR_NOMEM);
            continue;
        }
        send_now(a, d, with);
    }
}

/* The answers a 2026-07-28 retry brings, checked before anything runs. */
static bool request_starting(mcp__request *r, void *state)
{
    mcp_call *c = mcp__call_of(r);
    return c->kind == CALL_COMPLETE || !mcp__call_modern(c) || mcp__mrtr_begin(c);
}

/* A handler that ended asking (2026-07-28): the questions go out as its
 * answer. */
static int request_unanswered(mcp__request *r, void *state)
{
    mcp_call *c = mcp__call_of(r);
    if (!c->asked || mcp_cancel_token_is_cancelled(&r->token))
        return MCP_ERR_NOT_FOUND;
    return mcp__mrtr_finish(c);
}

static const char *error_problem(mcp__request *r, int64_t code, const mcp_json *data)
{
    return code == MCP_WIRE_URL_ELICITATION_REQUIRED ? mcp__url_required_check(r->version, data)
                                                      : NULL;
}

const mcp__feature mcp__ask_feature = {
    .name = "asking the client",
    .conn_state_size = sizeof(ask_state),
    .conn_ending = conn_ending,
    .conn_free = conn_free,
    .request_settled = request_settled,
    .request_routed = request_routed,
    .request_starting = request_starting,
    .request_unanswered = request_unanswered,
    .error_problem = error_problem,
};
