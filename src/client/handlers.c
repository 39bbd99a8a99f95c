/* SPDX-License-Identifier: MIT */
/*
 * The server's questions (sampling/createMessage, elicitation/create,
 * roots/list) and the rounds of a 2026-07-28 call.
 *
 * A question is the same object in both eras, handed to the application's
 * handler on the loop thread and answered from any thread:
 * - 2025: the server's request; the answer is its response. The session
 *   settles the request exactly once: when the server cancels it (or the
 *   connection ends) the question is withdrawn (its token fires) and a
 *   later answer is dropped, so nothing is sent after a cancel.
 * - 2026-07-28 (basic/patterns/mrtr.mdx): an entry of the inputRequests of
 *   an InputRequiredResult. The answers are gathered and the request sent
 *   again, new id, with inputResponses and the requestState echoed byte
 *   for byte; a call that ends meanwhile (cancel, timeout, connection)
 *   withdraws the questions still open.
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
    mcp__call *call;      /* 2026-07-28: the call it belongs to */
    mcp_question *next, *prev; /* the client's open questions */
    /* The answer, written by the thread that gives it, before it is posted. */
    mcp_json_doc *result; /* NULL: an error */
    int64_t error_code;
    char *error_message;  /* NULL: "Internal error" */
};

/* The rounds of one 2026-07-28 call. Loop thread. */
struct mcp__rounds {
    char *method;
    mcp_json_doc *params;     /* the caller's params (root), or NULL */
    uint64_t idle_ms;         /* as given: 0 the client's default, or MCP_NO_TIMEOUT */
    uint64_t idle_resolved;   /* UINT64_MAX: none */
    uint64_t max_deadline;    /* of the whole call; UINT64_MAX: none */
    uint64_t max_ms;
    mcp_progress_mode progress;
    unsigned count;           /* InputRequiredResults so far */
    mcp_handle current;       /* the request in flight; 0 while answering */
    uint64_t idle_deadline;   /* while answering */
    char *state;              /* requestState, byte for byte, or NULL */
    size_t state_len;
    mcp_json_doc *responses;  /* inputResponses gathered (root: an object) */
    bool asked;               /* this round had inputRequests */
    size_t outstanding;       /* questions not answered yet */
    bool listed;              /* in the client's round_calls */
    mcp__call *next;
    /* An ending asked for while the rounds' own code runs (a handler that
     * cancels, a request answered inside its send): done once it returns. */
    int busy;
    bool ended;
    int end_outcome;
    mcp_message *end_message;
    char end_reason[160];
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
    q->params = mcp_json_doc_new(NULL);
    mcp_json *p = q->params ? (params ? mcp_json_copy(q->params, params)
                                      : mcp_json_new_object(q->params))
                            : NULL;
    if (p)
        mcp_json_doc_set_root(q->params, p);
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

void mcp__questions_request(mcp_client *c, mcp_handle h, const mcp_message *msg)
{
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
    dispatch(c, q);
}

void mcp__questions_cancelled(mcp_client *c, mcp_handle h, const char *reason)
{
    for (mcp_question *q = c->questions; q; q = q->next)
        if (!q->call && q->inbound == h) {
            withdraw(c, q, reason ? reason : "cancelled by the server");
            return;
        }
}

/* 2026-07-28: the rounds of a call ----------------------------------------------------------------- */

static void rounds_answered(mcp__call *cc, mcp_question *q);
static void rounds_end(mcp__call *cc, int outcome, const mcp_message *m, const char *reason);

bool mcp__is_input_required(const mcp_json *result)
{
    size_t n;
    const char *t = mcp_json_string(mcp_json_object_get(result, "resultType"), &n);
    return t && n == 14 && !memcmp(t, "input_required", 14);
}

mcp__rounds *mcp__rounds_new(mcp_client *c, const char *method, const mcp_json *params,
                             const mcp_client_call_options *o)
{
    mcp__rounds *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->method = strdup(method);
    if (params) {
        r->params = mcp_json_doc_new(NULL);
        mcp_json *copy = r->params ? mcp_json_copy(r->params, params) : NULL;
        if (copy)
            mcp_json_doc_set_root(r->params, copy);
        if (!copy || mcp_json_doc_error(r->params) != MCP_OK) {
            mcp__rounds_free(r);
            return NULL;
        }
    }
    if (!r->method) {
        mcp__rounds_free(r);
        return NULL;
    }
    /* The budget is the call's, over every round: the total limit runs
     * from now, the idle timeout per wait (the server's, the handlers'). */
    uint64_t idle = o->timeout_ms ? o->timeout_ms
                    : c->opts.timeout_ms ? c->opts.timeout_ms : MCP_DEFAULT_TIMEOUT_MS;
    uint64_t max = o->max_time_ms ? o->max_time_ms
                   : c->opts.max_time_ms ? c->opts.max_time_ms : MCP_DEFAULT_MAX_TIME_MS;
    uint64_t now = mcp__now_ms();
    r->idle_ms = o->timeout_ms;
    r->idle_resolved = idle == MCP_NO_TIMEOUT ? UINT64_MAX : idle;
    r->max_ms = max;
    r->max_deadline = max == MCP_NO_TIMEOUT || max > UINT64_MAX - now ? UINT64_MAX : now + max;
    r->progress = o->progress;
    return r;
}

void mcp__rounds_free(mcp__rounds *r)
{
    if (!r)
        return;
    free(r->method);
    free(r->state);
    mcp_json_doc_free(r->params);
    mcp_json_doc_free(r->responses);
    mcp_message_free(r->end_message);
    free(r);
}

/* The calls whose questions are being answered: when the first of their
 * limits comes. */
static void arm_timer(mcp_client *c);

static void unlist(mcp_client *c, mcp__call *cc)
{
    if (!cc->rounds->listed)
        return;
    for (mcp__call **p = &c->round_calls; *p; p = &(*p)->rounds->next)
        if (*p == cc) {
            *p = cc->rounds->next;
            break;
        }
    cc->rounds->listed = false;
}

/* End the call: its open questions withdrawn with reason, then finished
 * with outcome (and m, a final result, for MCP_OK). Deferred while the
 * rounds' own code is running for it. */
static void rounds_end(mcp__call *cc, int outcome, const mcp_message *m, const char *reason)
{
    mcp__rounds *r = cc->rounds;
    mcp_client *c = cc->client;
    if (r->busy) {
        if (!r->ended) {
            r->ended = true;
            r->end_outcome = outcome;
            r->end_message = (mcp_message *)m;
            mcp_message_retain(r->end_message);
            snprintf(r->end_reason, sizeof r->end_reason, "%s", reason ? reason : "the call ended");
        }
        return;
    }
    for (mcp_question *q = c->questions, *next; q; q = next) {
        next = q->next;
        if (q->call == cc)
            withdraw(c, q, reason ? reason : "the call ended");
    }
    unlist(c, cc);
    mcp__call_finish(cc, outcome, m);
    arm_timer(c);
}

/* After the rounds' own code for cc: an ending it deferred. True when the
 * call has ended. */
static bool settle(mcp__call *cc)
{
    mcp__rounds *r = cc->rounds;
    if (--r->busy || !r->ended)
        return false;
    mcp_message *m = r->end_message;
    char reason[sizeof r->end_reason];
    memcpy(reason, r->end_reason, sizeof reason);
    r->end_message = NULL;
    rounds_end(cc, r->end_outcome, m, reason);
    mcp_message_free(m);
    return true;
}

static void on_answer_timer(uv_timer_t *t)
{
    mcp_client *c = t->data;
    uint64_t now = mcp__now_ms();
    for (bool again = true; again;) {
        again = false;
        for (mcp__call *cc = c->round_calls; cc; cc = cc->rounds->next) {
            mcp__rounds *r = cc->rounds;
            if (r->current || r->busy)
                continue;
            char reason[120];
            int outcome;
            if (r->max_deadline <= now) {
                outcome = MCP_ERR_MAX_TIME;
                snprintf(reason, sizeof reason, "maximum total time %llu ms exceeded",
                         (unsigned long long)r->max_ms);
            } else if (r->idle_deadline <= now) {
                outcome = MCP_ERR_TIMED_OUT;
                snprintf(reason, sizeof reason, "timed out after %llu ms",
                         (unsigned long long)r->idle_resolved);
            } else {
                continue;
            }
            mcp__client_set_error(c, "%s while the server's questions were being answered",
                                  reason);
            rounds_end(cc, outcome, NULL, reason);
            again = true; /* the list changed */
            break;
        }
    }
    arm_timer(c);
}

static void arm_timer(mcp_client *c)
{
    uint64_t first = UINT64_MAX;
    for (mcp__call *cc = c->round_calls; cc; cc = cc->rounds->next) {
        mcp__rounds *r = cc->rounds;
        if (r->current)
            continue;
        uint64_t d = r->idle_deadline < r->max_deadline ? r->idle_deadline : r->max_deadline;
        if (d < first)
            first = d;
    }
    if (c->state == CL_CLOSED)
        return;
    if (first == UINT64_MAX) {
        uv_timer_stop(&c->answer_timer);
        return;
    }
    uint64_t now = mcp__now_ms();
    uv_timer_start(&c->answer_timer, on_answer_timer, first > now ? first - now : 0, 0);
}

/* Send the request again: the caller's params, the answers, the state. */
static void retry(mcp__call *cc)
{
    mcp_client *c = cc->client;
    mcp__rounds *r = cc->rounds;
    uint64_t now = mcp__now_ms();
    if (r->max_deadline <= now) {
        char reason[100];
        snprintf(reason, sizeof reason, "maximum total time %llu ms exceeded",
                 (unsigned long long)r->max_ms);
        mcp__client_set_error(c, "%s", reason);
        rounds_end(cc, MCP_ERR_MAX_TIME, NULL, reason);
        return;
    }
    int rc = mcp__client_not_ready(c);
    if (rc != MCP_OK) {
        rounds_end(cc, rc == MCP_ERR_STATE ? MCP_ERR_CLOSED : rc, NULL, "connection closed");
        return;
    }
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *p = NULL;
    if (d) {
        p = r->params ? mcp_json_copy(d, mcp_json_doc_root(r->params)) : mcp_json_new_object(d);
        /* What the server asked for in this round, under the keys it gave;
         * the state as it gave it (mrtr.mdx: echoed exactly, absent when it
         * sent none). Anything the caller put there is replaced. */
        if (r->asked)
            mcp_json_object_set(d, p, "inputResponses",
                                mcp_json_copy(d, mcp_json_doc_root(r->responses)));
        if (r->state)
            mcp_json_object_set(d, p, "requestState",
                                mcp_json_new_stringn(d, r->state, r->state_len));
    }
    if (!p || mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        mcp__client_set_error(c, "out of memory sending %s again", r->method);
        rounds_end(cc, MCP_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    mcp_request_options ro = {.size = sizeof ro,
                              .timeout_ms = r->idle_ms,
                              .max_time_ms = r->max_deadline == UINT64_MAX
                                                 ? MCP_NO_TIMEOUT
                                                 : r->max_deadline - now,
                              .progress = r->progress};
    mcp_handle h = 0;
    r->busy++; /* an answer inside the send ends the call only once it returns */
    rc = mcp__client_note_send_failure(
        c, mcp_session_request(c->driver.session, now, r->method, p, &ro, mcp__call_ended,
                               mcp__call_progress, cc, &h));
    mcp_json_doc_free(d);
    if (rc == MCP_OK && !r->ended)
        r->current = h;
    if (rc != MCP_OK && !r->ended) {
        /* Never sent: the callback will not come. */
        r->ended = true;
        r->end_outcome = rc == MCP_ERR_STATE ? MCP_ERR_CLOSED : rc;
        snprintf(r->end_reason, sizeof r->end_reason, "%s",
                 rc == MCP_ERR_CLOSED ? "connection closed" : "the call ended");
    }
    if (!settle(cc)) {
        mcp__driver_rearm(&c->driver);
        arm_timer(c);
    }
}

bool mcp__rounds_ended(mcp__call *cc, mcp_handle h, int outcome, const mcp_message *m)
{
    mcp__rounds *r = cc->rounds;
    mcp_client *c = cc->client;
    r->current = 0;
    bool asks = outcome == MCP_OK && m && mcp__is_input_required(m->result);
    if (r->busy) {
        /* Answered inside its own send (no transport of ours does that):
         * ended once the send returns; one more round is not started from
         * in there. */
        if (asks)
            mcp__client_set_error(c, "the server asked for input again before the request "
                                     "was even sent");
        rounds_end(cc, asks ? MCP_ERR_PROTOCOL : outcome, asks ? NULL : m, NULL);
        return true;
    }
    if (!asks) {
        if (!r->listed)
            return false; /* the first round's ending: an ordinary call's */
        rounds_end(cc, outcome, m, NULL);
        return true;
    }
    (void)h;
    const mcp_json *res = m->result;
    const mcp_json *reqs = mcp_json_object_get(res, "inputRequests");
    const mcp_json *state = mcp_json_object_get(res, "requestState");
    size_t state_len = 0;
    const char *state_text = mcp_json_string(state, &state_len);
    const char *bad = NULL;
    char why[400];
    if (++r->count > MCP_CLIENT_MAX_INPUT_ROUNDS) {
        snprintf(why, sizeof why,
                 "the server still asked for input after %d rounds (MCP_CLIENT_MAX_INPUT_ROUNDS)",
                 MCP_CLIENT_MAX_INPUT_ROUNDS);
        bad = why;
    } else if (reqs && mcp_json_typeof(reqs) != MCP_JSON_OBJECT)
        bad = "its inputRequests is not an object";
    else if (state && !state_text)
        bad = "its requestState is not a string";
    else if (!reqs && !state)
        bad = "it has neither inputRequests nor requestState (mrtr.mdx: at least one)";
    /* Every question is checked before any handler runs: a call the client
     * cannot finish is not half asked. */
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
                              r->method, bad);
        rounds_end(cc, MCP_ERR_PROTOCOL, NULL, NULL);
        return true;
    }
    /* The state is kept byte for byte: mrtr.mdx forbids touching it. */
    free(r->state);
    r->state = NULL;
    r->state_len = 0;
    if (state_text && !(r->state = malloc(state_len + 1))) {
        mcp__client_set_error(c, "out of memory keeping the requestState");
        rounds_end(cc, MCP_ERR_NOMEM, NULL, NULL);
        return true;
    }
    if (state_text) {
        memcpy(r->state, state_text, state_len);
        r->state[state_len] = '\0';
        r->state_len = state_len;
    }
    mcp_json_doc_free(r->responses);
    r->responses = mcp_json_doc_new(NULL);
    if (r->responses)
        mcp_json_doc_set_root(r->responses, mcp_json_new_object(r->responses));
    if (!r->responses || !mcp_json_doc_root(r->responses)) {
        mcp__client_set_error(c, "out of memory gathering the answers");
        rounds_end(cc, MCP_ERR_NOMEM, NULL, NULL);
        return true;
    }
    r->asked = mcp_json_object_size(reqs) > 0;
    r->outstanding = 0;
    if (!r->listed) {
        r->listed = true;
        r->next = c->round_calls;
        c->round_calls = cc;
    }
    uint64_t now = mcp__now_ms();
    r->idle_deadline = r->idle_resolved == UINT64_MAX || r->idle_resolved > UINT64_MAX - now
                           ? UINT64_MAX
                           : now + r->idle_resolved;
    /* Every question made first, then the handlers, then (all answered
     * already: roots from the fixed list, or nothing asked) the retry. */
    r->busy++;
    size_t n = mcp_json_object_size(reqs);
    mcp_question **made = n ? calloc(n, sizeof *made) : NULL;
    if (n && !made)
        rounds_end(cc, MCP_ERR_NOMEM, NULL, "out of memory");
    for (size_t i = 0; made && i < n && !r->ended; i++) {
        const char *key;
        size_t kn;
        const mcp_json *ir = mcp_json_object_at(reqs, i, &key, &kn);
        const mcp_json *params = mcp_json_object_get(ir, "params");
        question_kind k = kind_of(mcp_json_string(mcp_json_object_get(ir, "method"), NULL));
        if (k == Q_ROOTS && !c->opts.on_roots) {
            mcp_json_doc *d = fixed_roots(c);
            if (!d || mcp_json_object_setn(r->responses, mcp_json_doc_root(r->responses), key, kn,
                                           mcp_json_copy(r->responses, mcp_json_doc_root(d))) !=
                          MCP_OK) {
                mcp__client_set_error(c, "out of memory answering roots/list");
                rounds_end(cc, MCP_ERR_NOMEM, NULL, "out of memory");
            }
            mcp_json_doc_free(d);
            continue;
        }
        const char *mode = mcp_json_string(mcp_json_object_get(params, "mode"), NULL);
        int rc;
        mcp_question *q = question_new(k, params, mode && !strcmp(mode, "url"), key, kn, &rc,
                                       why, sizeof why);
        if (!q) {
            if (rc == MCP_ERR_SCHEMA)
                mcp__client_set_error(c,
                                      "the server's input-required answer to %s cannot be used: "
                                      "inputRequests[\"%.*s\"] has a requestedSchema that is not "
                                      "a schema: %s",
                                      r->method, (int)(kn > 60 ? 60 : kn), key, why);
            else
                mcp__client_set_error(c, "out of memory taking the server's questions");
            rounds_end(cc, rc == MCP_ERR_SCHEMA ? MCP_ERR_PROTOCOL : MCP_ERR_NOMEM, NULL,
                       NULL);
            break;
        }
        q->call = cc;
        link_question(c, q);
        atomic_fetch_add_explicit(&q->refs, 1, memory_order_relaxed); /* while dispatching */
        made[i] = q;
        r->outstanding++;
    }
    /* Handlers are application code: an answer is posted (it arrives
     * later), a cancel of the call is deferred until they all ran. */
    for (size_t i = 0; made && i < n; i++)
        if (made[i]) {
            if (!r->ended)
                dispatch(c, made[i]);
            else
                question_unref(made[i]); /* the application's: never handed over */
            question_unref(made[i]);
        }
    free(made);
    if (settle(cc))
        return true;
    if (r->outstanding == 0)
        retry(cc);
    else
        arm_timer(c);
    return true;
}

/* The loop has q's answer for the call cc. */
static void rounds_answered(mcp__call *cc, mcp_question *q)
{
    mcp_client *c = cc->client;
    mcp__rounds *r = cc->rounds;
    if (!q->result) {
        /* Nowhere to send an error under 2026-07-28 (client/sampling.mdx:
         * the server is not waiting for one): the call is abandoned. */
        mcp__client_set_error(c,
                              "the call was abandoned: the question \"%s\" (%s) was answered "
                              "with error %lld: %s",
                              q->key, kind_method[q->kind], (long long)q->error_code,
                              q->error_message ? q->error_message : "Internal error");
        rounds_end(cc, MCP_ERR_ABORTED, NULL, "the call ended");
        return;
    }
    mcp_json_doc *d = r->responses;
    if (mcp_json_object_setn(d, mcp_json_doc_root(d), q->key, q->key_len,
                             mcp_json_copy(d, mcp_json_doc_root(q->result))) != MCP_OK) {
        mcp__client_set_error(c, "out of memory gathering the answers");
        rounds_end(cc, MCP_ERR_NOMEM, NULL, "out of memory");
        return;
    }
    if (--r->outstanding == 0)
        retry(cc);
}

bool mcp__rounds_cancel(mcp_client *c, mcp_handle h, const char *reason)
{
    for (mcp__call *cc = c->round_calls; cc; cc = cc->rounds->next) {
        if (cc->handle != h)
            continue;
        mcp__rounds *r = cc->rounds;
        if (r->current && c->driver_open) {
            /* The round in flight is cancelled on the wire, as any call. */
            mcp_session_cancel(c->driver.session, mcp__now_ms(), r->current, reason);
            mcp__driver_rearm(&c->driver);
            mcp__client_note_send_failure(c, mcp_session_closed(c->driver.session)
                                                 ? MCP_ERR_CLOSED
                                                 : MCP_OK);
        } else {
            /* Nothing on the wire: the questions are withdrawn, the call
             * ends here. */
            rounds_end(cc, MCP_ERR_ABORTED, NULL, reason ? reason : "cancelled");
        }
        return true;
    }
    return false;
}

void mcp__questions_end_all(mcp_client *c, const char *reason)
{
    for (mcp__call *cc = c->round_calls; cc;) {
        if (cc->rounds->current || cc->rounds->busy) {
            cc = cc->rounds->next; /* its request's ending comes from the session */
            continue;
        }
        if (!c->error[0])
            mcp__client_set_error(c, "the connection ended while the server's questions were "
                                     "being answered");
        rounds_end(cc, MCP_ERR_CLOSED, NULL, reason);
        cc = c->round_calls;
    }
    while (c->questions)
        withdraw(c, c->questions, reason);
    uv_timer_stop(&c->answer_timer);
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
        if (q->call) {
            rounds_answered(q->call, q);
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
    pthread_mutex_lock(&q->mu);
    bool posted = q->client && mcp__poster_post(&q->client->poster, &q->post);
    pthread_mutex_unlock(&q->mu);
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
