/* SPDX-License-Identifier: MIT */
/*
 * The server's questions (sampling/createMessage, elicitation/create,
 * roots/list), in both eras.
 *
 * A question is the same object in both eras, handed to the application's
 * handler on the loop thread and answered from any thread:
 * - 2025: the server's request; the answer is its response. The session
 *   settles the request exactly once: when the server cancels it (or the
 *   connection ends) the question is withdrawn (its token fires) and a
 *   later answer is dropped, so nothing is sent after a cancel.
 * - 2026-07-28 (basic/patterns/mrtr.mdx): an entry of the inputRequests of
 *   an InputRequiredResult. The session engine keeps the call's rounds
 *   (src/session/rounds.c): each answer goes to it under the question's
 *   key, and it sends the request again once all are in; a call that ends
 *   meanwhile (cancel, timeout, connection) withdraws the questions still
 *   open, with the engine's reason.
 *
 * Ownership: a question has two references, the application's (dropped
 * when it answers: the answer is posted to the loop and carries it) and
 * the loop's (dropped when the question leaves the client's list: answered,
 * withdrawn). q->client, under q->mu, is non-NULL exactly while the loop
 * waits for the answer; the loop clears it (under the lock) before the
 * client can go away, so an answer after mcp_client_free finds it NULL and
 * is dropped.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "mcp/schema.h"

typedef enum { Q_SAMPLING = 0, Q_ELICITATION, Q_ROOTS, Q_UNKNOWN } question_kind;

static const char *const kind_method[] = {"sampling/createMessage", "elicitation/create",
                                          "roots/list"};

struct mcp_question {
    mcp__post post; /* first: the answer, posted to the loop */
    atomic_uint refs;
    pthread_mutex_t mu;
    mcp_client *client; /* under mu: the loop waits for the answer */
    question_kind kind;
    mcp_json_doc *params; /* root: the params object */
    char *key;            /* 2026-07-28: its key in inputRequests (NUL-terminated too) */
    size_t key_len;
    bool url;             /* elicitation in URL mode */
    mcp_schema *schema;   /* elicitation form: requestedSchema, compiled */
    mcp_cancel_token *token;
    /* Loop thread. */
    mcp_handle inbound;   /* 2025: the server's request */
    mcp__call *call;      /* 2026-07-28: the call whose round asked it */
    mcp__held_task *task; /* 2025-11-25: the task it runs as (task_receiver.c) */
    mcp_question *next, *prev; /* the client's open questions */
    /* The answer, written by the thread that gives it, before it is posted. */
    mcp_json_doc *result; /* NULL: an error */
    int64_t error_code;
    char *error_message;  /* NULL: "Internal error" */
};

static question_kind kind_of(const char *method)
{
    for (int k = 0; k < Q_UNKNOWN; k++)
        if (method && !strcmp(method, kind_method[k]))
            return (question_kind)k;
    return Q_UNKNOWN;
}

/* Checking shapes ------------------------------------------------------------------------------ */

/* Why roots is not an array of Root objects (file:// URIs), or NULL. */
static const char *roots_problem(const mcp_json *roots, char *why, size_t n)
{
    if (mcp_json_typeof(roots) != MCP_JSON_ARRAY)
        return "roots must be an array";
    for (size_t i = 0; i < mcp_json_array_size(roots); i++) {
        const mcp_json *r = mcp_json_array_at(roots, i);
        size_t un;
        const char *uri = mcp_json_string(mcp_json_object_get(r, "uri"), &un);
        const mcp_json *name = mcp_json_object_get(r, "name");
        if (mcp_json_typeof(r) != MCP_JSON_OBJECT)
            snprintf(why, n, "roots[%zu] is not an object", i);
        else if (!uri || un < 7 || memcmp(uri, "file://", 7) != 0)
            snprintf(why, n, "roots[%zu] has no \"uri\" that is a file:// URI (client/roots.mdx)",
                     i);
        else if (name && mcp_json_typeof(name) != MCP_JSON_STRING)
            snprintf(why, n, "roots[%zu] has a \"name\" that is not a string", i);
        else
            continue;
        return why;
    }
    return NULL;
}

/* Why the server's question cannot go to the application, or NULL; *code
 * is the JSON-RPC error a 2025 server gets for it, *url whether it is a
 * URL-mode elicitation. */
static const char *refusal(const mcp_client *c, question_kind k, const mcp_json *params,
                           bool *url, int64_t *code, char *why, size_t n)
{
    *url = false;
    *code = MCP_WIRE_INVALID_PARAMS;
    if (k == Q_UNKNOWN) {
        *code = MCP_WIRE_METHOD_NOT_FOUND;
        return "not a request a server may make of a client";
    }
    bool offered = k == Q_SAMPLING      ? c->opts.on_sampling != NULL
                   : k == Q_ELICITATION ? c->opts.on_elicitation != NULL
                                        : c->opts.on_roots || c->roots;
    if (!offered) {
        *code = MCP_WIRE_METHOD_NOT_FOUND;
        return k == Q_SAMPLING      ? "this client does not offer sampling"
               : k == Q_ELICITATION ? "this client does not offer elicitation"
                                    : "this client does not offer roots";
    }
    if (params && mcp_json_typeof(params) != MCP_JSON_OBJECT)
        return "params must be an object";
    if (k == Q_ROOTS)
        return NULL;
    if (!params)
        return "params are missing";
    if (k == Q_SAMPLING) {
        if (mcp_json_typeof(mcp_json_object_get(params, "messages")) != MCP_JSON_ARRAY)
            return "params.messages must be an array";
        if (mcp_json_typeof(mcp_json_object_get(params, "maxTokens")) != MCP_JSON_NUMBER)
            return "params.maxTokens must be a number";
        return NULL;
    }
    if (mcp_json_typeof(mcp_json_object_get(params, "message")) != MCP_JSON_STRING)
        return "params.message must be a string";
    const mcp_json *mode_v = mcp_json_object_get(params, "mode");
    const char *mode = mcp_json_string(mode_v, NULL);
    if (mode_v && !mode)
        return "params.mode must be a string";
    /* No mode is form mode (client/elicitation.mdx). */
    if (!mode || !strcmp(mode, "form")) {
        if (mcp_json_typeof(mcp_json_object_get(params, "requestedSchema")) != MCP_JSON_OBJECT)
            return "params.requestedSchema must be an object";
        return NULL;
    }
    if (strcmp(mode, "url") != 0) {
        snprintf(why, n, "elicitation mode \"%.40s\" is not one of form, url", mode);
        return why;
    }
    *url = true;
    /* The spec's code for a mode not declared. */
    if (!c->opts.elicitation_url)
        return "this client does not take URL-mode elicitation";
    return mcp__client_url_problem(c, params, why, n);
}

/* Questions ---------------------------------------------------------------------------------------- */

static void question_unref(mcp_question *q)
{
    if (atomic_fetch_sub_explicit(&q->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_mutex_destroy(&q->mu);
    mcp_json_doc_free(q->params);
    mcp_json_doc_free(q->result);
    mcp_schema_free(q->schema);
    mcp__token_unref(q->token);
    free(q->key);
    free(q->error_message);
    free(q);
}

static void answer_posted(mcp__post *post);
static bool withdrawn(mcp_question *q);

/* A new question (two references), or NULL with why (MCP_ERR_NOMEM, or a
 * requestedSchema that does not compile: MCP_ERR_SCHEMA). */
static mcp_question *question_new(question_kind k, const mcp_json *params, bool url,
                                  const char *key, size_t key_len, int *rc, char *why,
                                  size_t why_len)
{
    *rc = MCP_ERR_NOMEM;
    mcp_question *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    atomic_init(&q->refs, 2);
    pthread_mutex_init(&q->mu, NULL);
    q->post.run = answer_posted;
    q->kind = k;
    q->url = url;
    q->token = mcp__token_new();
    q->params = mcp__client_copy_json(params);
    const mcp_json *p = mcp_json_doc_root(q->params);
    if (key) {
        q->key = malloc(key_len + 1);
        if (q->key) {
            memcpy(q->key, key, key_len);
            q->key[key_len] = '\0';
            q->key_len = key_len;
        }
    }
    bool ok = q->token && p && mcp_json_doc_error(q->params) == MCP_OK && (!key || q->key);
    if (ok && k == Q_ELICITATION && !url) {
        /* Compiled once here: every answer is checked against it, on
         * whichever thread gives it. */
        int src = mcp_schema_compile(mcp_json_object_get(p, "requestedSchema"), NULL, &q->schema,
                                     why, why_len);
        if (src != MCP_OK) {
            ok = false;
            *rc = src == MCP_ERR_NOMEM ? MCP_ERR_NOMEM : MCP_ERR_SCHEMA;
            if (src == MCP_ERR_SCHEMA_REMOTE)
                snprintf(why, why_len, "it refers to another document ($ref)");
            else if (src == MCP_ERR_LIMIT)
                snprintf(why, why_len, "it is too large");
        }
    }
    if (!ok) {
        atomic_store(&q->refs, 1);
        question_unref(q);
        return NULL;
    }
    *rc = MCP_OK;
    return q;
}

static void link_question(mcp_client *c, mcp_question *q)
{
    pthread_mutex_lock(&q->mu);
    q->client = c;
    pthread_mutex_unlock(&q->mu);
    q->prev = NULL;
    q->next = c->questions;
    if (c->questions)
        c->questions->prev = q;
    c->questions = q;
}

static void unlink_question(mcp_client *c, mcp_question *q)
{
    if (q->prev)
        q->prev->next = q->next;
    else if (c->questions == q)
        c->questions = q->next;
    if (q->next)
        q->next->prev = q->prev;
    q->next = q->prev = NULL;
}

/* Loop thread: nothing waits for q's answer any more: out of the list,
 * its token fired with reason, the loop's reference dropped. */
static void withdraw(mcp_client *c, mcp_question *q, const char *reason)
{
    if (q->task) {
        mcp__receiver_question_gone(q->task);
        q->task = NULL;
    }
    pthread_mutex_lock(&q->mu);
    q->client = NULL;
    pthread_mutex_unlock(&q->mu);
    unlink_question(c, q);
    mcp__token_cancel(q->token, reason);
    question_unref(q);
}

static void dispatch(mcp_client *c, mcp_question *q)
{
    const mcp_client_options *o = &c->opts;
    if (q->kind == Q_SAMPLING)
        o->on_sampling(o->sampling_user_data, q);
    else if (q->kind == Q_ELICITATION)
        o->on_elicitation(o->elicitation_user_data, q);
    else
        o->on_roots(o->roots_user_data, q);
}

/* {"roots": [the fixed list]} in a new document, or NULL. */
static mcp_json_doc *fixed_roots(const mcp_client *c)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *r = d ? mcp_json_new_object(d) : NULL;
    if (r) {
        mcp_json_object_set(d, r, "roots", mcp_json_copy(d, mcp_json_doc_root(c->roots)));
        mcp_json_doc_set_root(d, r);
    }
    if (!r || mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        return NULL;
    }
    return d;
}

/* Options ------------------------------------------------------------------------------------------ */

int mcp__questions_init(mcp_client *c, const mcp_client_options *o)
{
    char why[160];
    if ((o->elicitation_url && !o->on_elicitation) ||
        (o->roots && roots_problem(o->roots, why, sizeof why)))
        return MCP_ERR_INVALID_ARG;
    c->caps = mcp_json_doc_new(NULL);
    mcp_json_doc *d = c->caps;
    mcp_json *caps = d ? mcp_json_new_object(d) : NULL;
    if (caps && o->on_sampling)
        mcp_json_object_set(d, caps, "sampling", mcp_json_new_object(d));
    if (caps && o->on_elicitation) {
        mcp_json *e = mcp_json_new_object(d);
        mcp_json_object_set(d, e, "form", mcp_json_new_object(d));
        if (o->elicitation_url)
            mcp_json_object_set(d, e, "url", mcp_json_new_object(d));
        mcp_json_object_set(d, caps, "elicitation", e);
    }
    if (caps && (o->on_roots || o->roots)) {
        /* listChanged: mcp_client_roots_changed tells a 2025 server. */
        mcp_json *r = mcp_json_new_object(d);
        mcp_json_object_set(d, r, "listChanged", mcp_json_new_bool(d, true));
        mcp_json_object_set(d, caps, "roots", r);
    }
    if (caps && o->question_tasks && (o->on_sampling || o->on_elicitation)) {
        /* The session writes it under 2025-11-25 alone. */
        mcp_json *tasks = mcp_json_new_object(d), *requests = mcp_json_new_object(d);
        mcp_json_object_set(d, tasks, "list", mcp_json_new_object(d));
        mcp_json_object_set(d, tasks, "cancel", mcp_json_new_object(d));
        if (o->on_sampling) {
            mcp_json *kind = mcp_json_new_object(d);
            mcp_json_object_set(d, kind, "createMessage", mcp_json_new_object(d));
            mcp_json_object_set(d, requests, "sampling", kind);
        }
        if (o->on_elicitation) {
            mcp_json *kind = mcp_json_new_object(d);
            mcp_json_object_set(d, kind, "create", mcp_json_new_object(d));
            mcp_json_object_set(d, requests, "elicitation", kind);
        }
        mcp_json_object_set(d, tasks, "requests", requests);
        mcp_json_object_set(d, caps, "tasks", tasks);
    }
    if (caps)
        mcp_json_doc_set_root(d, caps);
    if (o->roots) {
        c->roots = mcp_json_doc_new(NULL);
        mcp_json *copy = c->roots ? mcp_json_copy(c->roots, o->roots) : NULL;
        if (copy)
            mcp_json_doc_set_root(c->roots, copy);
    }
    c->opts.roots = NULL; /* the caller's: the copy is used */
    if (!caps || mcp_json_doc_error(d) != MCP_OK ||
        (o->roots && (!c->roots || mcp_json_doc_error(c->roots) != MCP_OK ||
                      !mcp_json_doc_root(c->roots)))) {
        mcp__questions_free(c);
        return MCP_ERR_NOMEM;
    }
    return MCP_OK;
}

void mcp__questions_free(mcp_client *c)
{
    mcp_json_doc_free(c->caps);
    mcp_json_doc_free(c->roots);
    c->caps = c->roots = NULL;
}

int mcp_client_roots_changed(mcp_client *c, const mcp_json *roots)
{
    char why[160];
    if (!c->opts.on_roots && !c->roots)
        return MCP_ERR_STATE;
    if (roots && roots_problem(roots, why, sizeof why))
        return MCP_ERR_INVALID_ARG;
    if (roots) {
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *copy = d ? mcp_json_copy(d, roots) : NULL;
        if (!copy || mcp_json_doc_error(d) != MCP_OK) {
            mcp_json_doc_free(d);
            return MCP_ERR_NOMEM;
        }
        mcp_json_doc_set_root(d, copy);
        mcp_json_doc_free(c->roots);
        c->roots = d;
    }
    /* 2026-07-28 removed the notification: the server asks when it needs
     * them (changelog.mdx). */
    if (c->state != CL_READY || !c->driver_open || mcp_session_modern(c->driver.session))
        return MCP_OK;
    int rc = mcp__client_note_send_failure(
        c, mcp_session_notify(c->driver.session, "notifications/roots/list_changed", NULL));
    return rc == MCP_ERR_NOMEM ? rc : rc != MCP_OK ? MCP_ERR_CLOSED : MCP_OK;
}

/* 2025: the server's requests ---------------------------------------------------------------------- */

void mcp__questions_withdraw_task(mcp_client *c, mcp_question *q, const char *reason)
{
    withdraw(c, q, reason);
}

void mcp__questions_request(mcp_client *c, mcp_handle h, const mcp_message *msg)
{
    if (mcp__receiver_request(c, h, msg))
        return;
    mcp_session *s = c->driver.session;
    question_kind k = kind_of(msg->method);
    bool url;
    int64_t code;
    char why[300], text[400];
    const char *no = refusal(c, k, msg->params, &url, &code, why, sizeof why);
    if (no) {
        snprintf(text, sizeof text, "%s: %s",
                 code == MCP_WIRE_METHOD_NOT_FOUND ? "Method not found" : "Invalid params", no);
        mcp_session_reply_error(s, h, code, text, NULL);
        return;
    }
    if (k == Q_ROOTS && !c->opts.on_roots) {
        mcp_json_doc *d = fixed_roots(c);
        if (d)
            mcp_session_reply(s, h, mcp_json_doc_root(d));
        else
            mcp_session_reply_error(s, h, MCP_WIRE_INTERNAL_ERROR, "Internal error", NULL);
        mcp_json_doc_free(d);
        return;
    }
    int rc;
    mcp_question *q = question_new(k, msg->params, url, NULL, 0, &rc, why, sizeof why);
    if (!q) {
        if (rc == MCP_ERR_SCHEMA) {
            snprintf(text, sizeof text, "Invalid params: requestedSchema is not a schema: %s",
                     why);
            mcp_session_reply_error(s, h, MCP_WIRE_INVALID_PARAMS, text, NULL);
        } else {
            mcp_session_reply_error(s, h, MCP_WIRE_INTERNAL_ERROR, "Internal error", NULL);
        }
        return;
    }
    q->inbound = h;
    link_question(c, q);
    if (k != Q_ROOTS && mcp__receiver_wants(c, msg)) {
        /* A task: answered CreateTaskResult now, the question's answer
         * kept for tasks/result. */
        q->task = mcp__receiver_begin(c, h, msg, q);
        if (!q->task) {
            withdraw(c, q, "refused"); /* the loop's reference */
            question_unref(q);         /* the application's: it never had it */
            return;
        }
        mcp__receiver_announce(c, h, q->task);
        if (withdrawn(q)) { /* the answer's write ended the connection */
            question_unref(q);
            return;
        }
    }
    dispatch(c, q);
}

void mcp__questions_cancelled(mcp_client *c, mcp_handle h, const char *reason)
{
    mcp__receiver_cancelled(c, h);
    for (mcp_question *q = c->questions; q; q = q->next)
        if (!q->call && q->inbound == h) {
            withdraw(c, q, reason ? reason : "cancelled by the server");
            return;
        }
}

/* 2026-07-28: the questions of a call's rounds ------------------------------------------------ */

/* The call's hook (mcp_input_required_fn): the server answered it with the
 * InputRequiredResult m. Every question is checked before any handler
 * runs: a call the client cannot finish is not half asked. */
int mcp__questions_input_required(void *ud, mcp_handle h, const mcp_message *m)
{
    mcp__call *cc = ud;
    mcp_client *c = cc->client;
    if (!cc->handle)
        cc->handle = h;
    cc->request = h;
    const mcp_json *res = m->result;
    const mcp_json *reqs = mcp_json_object_get(res, "inputRequests");
    const mcp_json *state = mcp_json_object_get(res, "requestState");
    const char *bad = NULL;
    char why[400];
    if (++cc->rounds > MCP_CLIENT_MAX_INPUT_ROUNDS) {
        snprintf(why, sizeof why,
                 "the server still asked for input after %d rounds (MCP_CLIENT_MAX_INPUT_ROUNDS)",
                 MCP_CLIENT_MAX_INPUT_ROUNDS);
        bad = why;
    } else if (reqs && mcp_json_typeof(reqs) != MCP_JSON_OBJECT)
        bad = "its inputRequests is not an object";
    else if (state && mcp_json_typeof(state) != MCP_JSON_STRING)
        bad = "its requestState is not a string";
    else if (!reqs && !state)
        bad = "it has neither inputRequests nor requestState (mrtr.mdx: at least one)";
    for (size_t i = 0; !bad && i < mcp_json_object_size(reqs); i++) {
        const char *key;
        size_t kn;
        const mcp_json *ir = mcp_json_object_at(reqs, i, &key, &kn);
        const char *method = mcp_json_string(mcp_json_object_get(ir, "method"), NULL);
        const mcp_json *params = mcp_json_object_get(ir, "params");
        bool url;
        int64_t code;
        char detail[300];
        const char *no = mcp_json_typeof(ir) != MCP_JSON_OBJECT ? "it is not an object"
                         : !method ? "it has no method"
                                   : refusal(c, kind_of(method), params, &url, &code, detail,
                                             sizeof detail);
        if (no) {
            snprintf(why, sizeof why, "inputRequests[\"%.*s\"] (%.40s): %s",
                     (int)(kn > 60 ? 60 : kn), key, method ? method : "?", no);
            bad = why;
        }
    }
    if (bad) {
        mcp__client_set_error(c, "the server's input-required answer to %s cannot be used: %s",
                              cc->method, bad);
        return MCP_ERR_PROTOCOL;
    }
    /* Every question made first (none handed out yet), then the handlers;
     * roots from the fixed list are answered at once. */
    size_t n = mcp_json_object_size(reqs);
    mcp_question **made = n ? calloc(n, sizeof *made) : NULL;
    if (n && !made) {
        mcp__client_set_error(c, "out of memory taking the server's questions");
        return MCP_ERR_NOMEM;
    }
    int rc = MCP_OK;
    for (size_t i = 0; i < n && rc == MCP_OK; i++) {
        const char *key;
        size_t kn;
        const mcp_json *ir = mcp_json_object_at(reqs, i, &key, &kn);
        const mcp_json *params = mcp_json_object_get(ir, "params");
        question_kind k = kind_of(mcp_json_string(mcp_json_object_get(ir, "method"), NULL));
        if (k == Q_ROOTS && !c->opts.on_roots)
            continue;
        const char *mode = mcp_json_string(mcp_json_object_get(params, "mode"), NULL);
        made[i] = question_new(k, params, mode && !strcmp(mode, "url"), key, kn, &rc, why,
                               sizeof why);
        if (rc == MCP_ERR_SCHEMA) {
            mcp__client_set_error(c,
                                  "the server's input-required answer to %s cannot be used: "
                                  "inputRequests[\"%.*s\"] has a requestedSchema that is not "
                                  "a schema: %s",
                                  cc->method, (int)(kn > 60 ? 60 : kn), key, why);
            rc = MCP_ERR_PROTOCOL;
        } else if (rc != MCP_OK) {
            mcp__client_set_error(c, "out of memory taking the server's questions");
        }
    }
    if (rc != MCP_OK) {
        for (size_t i = 0; i < n; i++)
            if (made[i]) {
                atomic_store(&made[i]->refs, 1);
                question_unref(made[i]);
            }
        free(made);
        return rc;
    }
    for (size_t i = 0; i < n; i++)
        if (made[i]) {
            made[i]->call = cc;
            link_question(c, made[i]);
            cc->open++;
            atomic_fetch_add_explicit(&made[i]->refs, 1, memory_order_relaxed); /* dispatching */
        }
    /* Handlers and the fixed roots may end the call (an answer that
     * cannot be kept, a handler that cancels it): its memory stays until
     * this returns. */
    cc->busy++;
    for (size_t i = 0; i < n; i++) {
        const char *key;
        size_t kn;
        mcp_json_object_at(reqs, i, &key, &kn);
        if (made[i]) {
            if (!cc->finished)
                dispatch(c, made[i]);
            else
                question_unref(made[i]); /* the application's: never handed over */
            question_unref(made[i]);
        } else if (!cc->finished) {
            mcp_json_doc *d = fixed_roots(c);
            int arc = d ? mcp_session_input_response(c->driver.session, mcp__now_ms(), h, key,
                                                     kn, mcp_json_doc_root(d))
                        : MCP_ERR_NOMEM;
            mcp_json_doc_free(d);
            if (arc != MCP_OK && !cc->finished) {
                mcp__client_set_error(c, "out of memory answering roots/list");
                mcp_session_cancel(c->driver.session, mcp__now_ms(), h, "out of memory");
            }
        }
    }
    free(made);
    mcp__call_release(cc);
    return MCP_OK;
}

/* The loop has q's answer for the call cc (which has not ended: it would
 * have withdrawn q). */
static void round_answered(mcp__call *cc, mcp_question *q)
{
    mcp_client *c = cc->client;
    cc->open--;
    if (!c->driver_open)
        return;
    mcp_session *s = c->driver.session;
    if (!q->result) {
        /* Nowhere to send an error under 2026-07-28 (client/sampling.mdx:
         * the server is not waiting for one): the call is abandoned. */
        mcp__client_set_error(c,
                              "the call was abandoned: the question \"%s\" (%s) was answered "
                              "with error %lld: %s",
                              q->key, kind_method[q->kind], (long long)q->error_code,
                              q->error_message ? q->error_message : "Internal error");
        mcp_session_cancel(s, mcp__now_ms(), cc->request, "the call ended");
    } else if (mcp_session_input_response(s, mcp__now_ms(), cc->request, q->key, q->key_len,
                                          mcp_json_doc_root(q->result)) == MCP_ERR_NOMEM) {
        mcp__client_set_error(c, "out of memory gathering the answers");
    }
    mcp__driver_rearm(&c->driver);
    mcp__client_note_send_failure(c, mcp_session_closed(s) ? MCP_ERR_CLOSED : MCP_OK);
}

void mcp__questions_call_ended(mcp__call *cc, int outcome, const char *reason)
{
    mcp_client *c = cc->client;
    if (!cc->open)
        return;
    if (!reason)
        reason = "the call ended";
    if (outcome == MCP_ERR_TIMED_OUT || outcome == MCP_ERR_MAX_TIME)
        mcp__client_set_error(c, "%s while the server's questions were being answered", reason);
    else if (outcome == MCP_ERR_CLOSED && !c->error[0])
        mcp__client_set_error(c, "the connection ended while the server's questions were "
                                 "being answered");
    for (mcp_question *q = c->questions, *next; q && cc->open; q = next) {
        next = q->next;
        if (q->call == cc) {
            cc->open--;
            withdraw(c, q, reason);
        }
    }
}

void mcp__questions_end_all(mcp_client *c, const char *reason)
{
    while (c->questions)
        withdraw(c, c->questions, reason);
    mcp__receiver_end(c, reason);
}

/* Answers (any thread) -------------------------------------------------------------------------- */

/* Loop thread: the answer of q, which nothing had withdrawn when it was
 * given. */
static void answer_posted(mcp__post *post)
{
    mcp_question *q = (mcp_question *)post;
    pthread_mutex_lock(&q->mu);
    mcp_client *c = q->client;
    q->client = NULL;
    pthread_mutex_unlock(&q->mu);
    if (c) {
        unlink_question(c, q);
        if (q->task) {
            mcp__held_task *t = q->task;
            q->task = NULL;
            mcp_json_doc *result = q->result;
            q->result = NULL;
            mcp__receiver_answered(c, t, result, q->error_code,
                                   q->error_message ? q->error_message : "Internal error");
            mcp__driver_rearm(&c->driver);
        } else if (q->call) {
            round_answered(q->call, q);
        } else if (c->driver_open) {
            /* The session drops it (MCP_ERR_NOT_FOUND) if the server's
             * cancel settled the request first. */
            if (q->result) {
                int rc = mcp_session_reply(c->driver.session, q->inbound,
                                           mcp_json_doc_root(q->result));
                if (rc == MCP_OK && q->url) /* an accept: its completion is awaited */
                    mcp__client_url_answered(c, mcp_question_params(q),
                                                  mcp_json_doc_root(q->result));
            } else {
                mcp_session_reply_error(c->driver.session, q->inbound, q->error_code,
                                        q->error_message ? q->error_message : "Internal error",
                                        NULL);
            }
            mcp__driver_rearm(&c->driver);
        }
        question_unref(q); /* the loop's */
    }
    question_unref(q); /* the application's, which the post carried */
}

/* The answer is set: to the loop, or dropped when nothing waits for it.
 * The application's reference goes either way. */
static int hand_over(mcp_question *q)
{
    /* Its callbacks are the application's, done with now: none runs after
     * this (one running on the loop is waited for). */
    mcp__token_detach(q->token);
    /* Held across the unlock: the post may run on the loop, and drop the
     * last other reference, before this thread is out of the mutex. */
    atomic_fetch_add_explicit(&q->refs, 1, memory_order_relaxed);
    pthread_mutex_lock(&q->mu);
    bool posted = q->client && mcp__poster_post(&q->client->poster, &q->post);
    pthread_mutex_unlock(&q->mu);
    question_unref(q);
    if (!posted) {
        question_unref(q);
        return MCP_ERR_CANCELLED;
    }
    return MCP_OK;
}

static bool withdrawn(mcp_question *q)
{
    pthread_mutex_lock(&q->mu);
    bool gone = q->client == NULL;
    pthread_mutex_unlock(&q->mu);
    return gone;
}

__attribute__((format(printf, 4, 5))) static int refuse(char *why, size_t n, int rc,
                                                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (why && n)
        vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return rc;
}

/* An elicitation content value: a string, number, boolean or array of
 * strings (ElicitResult.content). */
static bool primitive(const mcp_json *v)
{
    mcp_json_type t = mcp_json_typeof(v);
    if (t == MCP_JSON_STRING || t == MCP_JSON_NUMBER || t == MCP_JSON_BOOL)
        return true;
    if (t != MCP_JSON_ARRAY)
        return false;
    for (size_t i = 0; i < mcp_json_array_size(v); i++)
        if (mcp_json_typeof(mcp_json_array_at(v, i)) != MCP_JSON_STRING)
            return false;
    return true;
}

/* The answer to send for result, checked (and for an accepted form,
 * completed with the defaults), into *out. */
static int checked_answer(mcp_question *q, const mcp_json *result, mcp_json_doc **out, char *why,
                          size_t n)
{
    *out = NULL;
    if (mcp_json_typeof(result) != MCP_JSON_OBJECT)
        return refuse(why, n, MCP_ERR_INVALID_ARG, "%s", "the answer must be an object");
    if (q->kind == Q_SAMPLING) {
        const char *role = mcp_json_string(mcp_json_object_get(result, "role"), NULL);
        const mcp_json *content = mcp_json_object_get(result, "content");
        bool content_ok = mcp_json_typeof(content) == MCP_JSON_OBJECT;
        if (mcp_json_typeof(content) == MCP_JSON_ARRAY) {
            content_ok = true;
            for (size_t i = 0; i < mcp_json_array_size(content); i++)
                content_ok &= mcp_json_typeof(mcp_json_array_at(content, i)) == MCP_JSON_OBJECT;
        }
        if (!role || (strcmp(role, "assistant") && strcmp(role, "user")))
            return refuse(why, n, MCP_ERR_INVALID_ARG, "%s",
                          "a sampling answer needs \"role\" \"assistant\" or \"user\"");
        if (!content_ok)
            return refuse(why, n, MCP_ERR_INVALID_ARG, "%s",
                          "a sampling answer needs \"content\", an object or an array of them");
        if (mcp_json_typeof(mcp_json_object_get(result, "model")) != MCP_JSON_STRING)
            return refuse(why, n, MCP_ERR_INVALID_ARG, "%s",
                          "a sampling answer needs \"model\", a string");
    } else if (q->kind == Q_ROOTS) {
        char detail[160];
        const char *no = roots_problem(mcp_json_object_get(result, "roots"), detail,
                                       sizeof detail);
        if (no)
            return refuse(why, n, MCP_ERR_INVALID_ARG, "%s", no);
    }
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *copy = d ? mcp_json_copy(d, result) : NULL;
    if (!copy || mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        return refuse(why, n, MCP_ERR_NOMEM, "%s", "out of memory");
    }
    mcp_json_doc_set_root(d, copy);
    if (q->kind == Q_ELICITATION) {
        const char *action = mcp_json_string(mcp_json_object_get(copy, "action"), NULL);
        const mcp_json *content = mcp_json_object_get(copy, "content");
        int rc = MCP_OK;
        if (!action ||
            (strcmp(action, "accept") && strcmp(action, "decline") && strcmp(action, "cancel")))
            rc = refuse(why, n, MCP_ERR_INVALID_ARG, "%s",
                        "an elicitation answer needs \"action\": accept, decline or cancel");
        else if (content && mcp_json_typeof(content) != MCP_JSON_OBJECT)
            rc = refuse(why, n, MCP_ERR_INVALID_ARG, "%s", "\"content\" must be an object");
        else if (q->url && content && !strcmp(action, "accept"))
            rc = refuse(why, n, MCP_ERR_INVALID_ARG, "%s",
                        "a URL-mode answer carries no content (client/elicitation.mdx)");
        for (size_t i = 0; rc == MCP_OK && i < mcp_json_object_size(content); i++) {
            const char *key;
            const mcp_json *v = mcp_json_object_at(content, i, &key, NULL);
            if (!primitive(v))
                rc = refuse(why, n, MCP_ERR_INVALID_ARG,
                            "content.%.60s must be a string, number, boolean or array of strings",
                            key);
        }
        if (rc == MCP_OK && !q->url && !strcmp(action, "accept")) {
            mcp_json *c = (mcp_json *)content;
            if (!c) {
                c = mcp_json_new_object(d);
                mcp_json_object_set(d, copy, "content", c);
            }
            /* SEP-1034 (2025-11-25): what the user left out takes the
             * server's default. Elicitation schemas are flat: top level. */
            const mcp_json *props = mcp_json_object_get(
                mcp_json_object_get(mcp_question_params(q), "requestedSchema"), "properties");
            for (size_t i = 0; i < mcp_json_object_size(props); i++) {
                const char *key;
                size_t kn;
                const mcp_json *p = mcp_json_object_at(props, i, &key, &kn);
                const mcp_json *def = mcp_json_object_get(p, "default");
                if (def && !mcp_json_object_getn(c, key, kn))
                    mcp_json_object_setn(d, c, key, kn, mcp_json_copy(d, def));
            }
            if (mcp_json_doc_error(d) != MCP_OK) {
                rc = refuse(why, n, MCP_ERR_NOMEM, "%s", "out of memory");
            } else {
                mcp_schema_error err;
                rc = mcp_schema_validate(q->schema, c, &err);
                if (rc != MCP_OK && why && n)
                    snprintf(why, n, "content%s %s (%s)", err.instance_path, err.message,
                             err.keyword);
            }
        }
        if (rc != MCP_OK) {
            mcp_json_doc_free(d);
            return rc;
        }
    }
    *out = d;
    return MCP_OK;
}

int mcp_question_answer(mcp_question *q, const mcp_json *result, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!q || !result)
        return refuse(why, why_len, MCP_ERR_INVALID_ARG, "%s", "no question or no answer");
    if (withdrawn(q)) {
        /* Nothing to check an answer for: it would be dropped. */
        mcp__token_detach(q->token);
        question_unref(q);
        return MCP_ERR_CANCELLED;
    }
    mcp_json_doc *d;
    int rc = checked_answer(q, result, &d, why, why_len);
    if (rc != MCP_OK)
        return rc;
    q->result = d;
    return hand_over(q);
}

int mcp_question_answer_error(mcp_question *q, int64_t code, const char *message)
{
    if (!q || (message && mcp_utf8_validate(message, strlen(message), NULL) != MCP_OK))
        return MCP_ERR_INVALID_ARG;
    q->error_code = code;
    q->error_message = message ? strdup(message) : NULL; /* NULL: "Internal error" */
    return hand_over(q);
}

int mcp_question_decline(mcp_question *q)
{
    if (!q)
        return MCP_ERR_INVALID_ARG;
    if (q->kind != Q_ELICITATION)
        return mcp_question_answer_error(q, -1, "The user declined");
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *r = d ? mcp_json_new_object(d) : NULL;
    if (r) {
        mcp_json_object_set(d, r, "action", mcp_json_new_string(d, "decline"));
        mcp_json_doc_set_root(d, r);
    }
    if (!r || mcp_json_doc_error(d) != MCP_OK) {
        /* Out of memory: an error says no as well, without any. */
        mcp_json_doc_free(d);
        return mcp_question_answer_error(q, -1, NULL);
    }
    q->result = d;
    return hand_over(q);
}

/* Accessors -------------------------------------------------------------------------------------- */

const char *mcp_question_method(const mcp_question *q)
{
    return kind_method[q->kind];
}

const mcp_json *mcp_question_params(const mcp_question *q)
{
    return mcp_json_doc_root(q->params);
}

const char *mcp_question_key(const mcp_question *q, size_t *len)
{
    if (len)
        *len = q->key ? q->key_len : 0;
    return q->key;
}

bool mcp_question_url_mode(const mcp_question *q)
{
    return q->kind == Q_ELICITATION && q->url;
}

mcp_cancel_token *mcp_question_token(mcp_question *q)
{
    return q->token;
}
