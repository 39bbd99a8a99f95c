/* SPDX-License-Identifier: MIT */
/*
 * Token introspection (RFC 7662) for the resource server whose
 * authorization server issues opaque tokens (mcp_server_http_options'
 * auth_introspection_url): a token not remembered is asked about while
 * its request waits, parked, its body kept; the answer, judged by
 * server/auth's rules and remembered in the token cache, either lets the
 * request go on (http.c serves it again, its principal and scope set) or
 * refuses it.
 *
 * Threads. The question blocks (one form POST): it is a job of the
 * server's worker pool (http_job.c), announced as a wait so that tool
 * handlers keep their threads, and its answer is posted to the loop, which
 * alone judges it and touches exchanges.
 *
 * Bounds: at most ASKING_MAX tokens asked about at once, WAITING_MAX
 * requests waiting and WAITING_BYTES of their bodies held (a request's
 * body has been read before its token is known, unlike a JWT's, judged
 * with the headers); beyond, 503 and Retry-After. Requests with the same
 * Authorization wait on one question.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "server/auth/auth.h"
#include "server/http/http.h"
#include "transport/http_auth.h"
#include "transport/http_fetch.h"

#define ASKING_MAX 16
#define WAITING_MAX 256
#define WAITING_BYTES ((size_t)16 * 1024 * 1024)
#define ASK_MS 10000u
#define ANSWER_MAX ((size_t)64 * 1024)

typedef struct question {
    http_job base;         /* first; its owner the http_introspect */
    struct question *next; /* the owner's, loop thread */
    char *header;           /* the Authorization asked about (the cache's key) */
    char *url, *form, *user, *password;
    /* The worker's result. */
    int rc;
    long status;
    mcp_buf answer;
    char why[300];
} question;

typedef struct waiter {
    mcp__http_exchange *x;
    question *q;
    size_t bytes; /* of its body, held meanwhile */
    struct waiter *next;
} waiter;

struct http_introspect {
    mcp_server *s;
    const mcp__resource_config *rc; /* the binding's */
    mcp__token_cache *cache;        /* the binding's */
    char *url, *user, *password;    /* user and password form-encoded */
    unsigned ttl_s;
    question *asking;
    size_t nasking;
    waiter *waiting;
    size_t nwaiting, waiting_bytes;
    void (*serve)(void *ud, mcp__http_exchange *x);
    void *serve_ud;
};

static char *form_encoded(const char *s)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    /* "x=" and the value: the name's two bytes are dropped. */
    if (mcp__auth_form_add(&b, "x", s) != MCP_OK) {
        mcp_buf_free(&b);
        return NULL;
    }
    char *out = strdup(b.data + 2);
    mcp_buf_free(&b);
    return out;
}

int mcp__http_introspect_open(mcp_server *s, const mcp_server_http_options *opts,
                              const mcp__resource_config *rc, mcp__token_cache *cache,
                              void (*serve)(void *ud, mcp__http_exchange *x), void *serve_ud,
                              http_introspect **out)
{
    *out = NULL;
    const char *bad =
        !mcp__auth_url_secure(opts->auth_introspection_url)
            ? "auth_introspection_url must be an https URL (http only on a loopback host), "
              "without user information or a fragment"
        : !opts->auth_client_id || !opts->auth_client_secret
            ? "auth_introspection_url needs auth_client_id and auth_client_secret (this "
              "server's credentials at the authorization server)"
        : opts->auth_jwks ? "auth_jwks and auth_introspection_url cannot be used together"
                          : NULL;
    if (bad) {
        mcp__server_log(s, MCP_LOG_ERROR, "cannot serve HTTP: %s", bad);
        return MCP_ERR_INVALID_ARG;
    }
    http_introspect *q = calloc(1, sizeof *q);
    if (!q)
        return MCP_ERR_NOMEM;
    q->s = s;
    q->rc = rc;
    q->cache = cache;
    q->ttl_s = opts->auth_introspection_ttl_s ? opts->auth_introspection_ttl_s : 60;
    q->serve = serve;
    q->serve_ud = serve_ud;
    q->url = strdup(opts->auth_introspection_url);
    q->user = form_encoded(opts->auth_client_id);
    q->password = form_encoded(opts->auth_client_secret);
    if (!q->url || !q->user || !q->password) {
        mcp__http_introspect_free(q);
        return MCP_ERR_NOMEM;
    }
    *out = q;
    return MCP_OK;
}

static void question_destroy(http_job *base)
{
    question *j = (question *)base;
    free(j->header);
    free(j->url);
    free(j->form);
    free(j->user);
    if (j->password) /* a secret: not left in freed memory */
        explicit_bzero(j->password, strlen(j->password));
    free(j->password);
    mcp_buf_free(&j->answer);
    free(j);
}

/* The owner lets go of j: its job may still run, and finds no one. */
static void question_drop(http_introspect *q, question *j)
{
    for (question **p = &q->asking; *p; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            q->nasking--;
            break;
        }
    mcp__http_job_detach(&j->base);
}

void mcp__http_introspect_free(http_introspect *q)
{
    if (!q)
        return;
    while (q->waiting) {
        waiter *w = q->waiting;
        q->waiting = w->next;
        free(w);
    }
    while (q->asking)
        question_drop(q, q->asking);
    free(q->url);
    free(q->user);
    if (q->password)
        explicit_bzero(q->password, strlen(q->password));
    free(q->password);
    free(q);
}

/* The verdict, given to every request waiting on j ----------------------------------- */

static void refuse(mcp__http_exchange *x, unsigned status, const char *message,
                   const char *const *headers)
{
    mcp__http_respond_error(x, status, NULL, MCP_WIRE_INVALID_REQUEST, message, headers);
}

static void settle(http_introspect *q, question *j, const mcp__resource_verdict *v,
                   const char *principal, const char *scope, unsigned status, const char *why)
{
    char message[400];
    const char *title = status == 400 ? "Bad Request"
                        : status == 403 ? "Forbidden"
                        : status == 503 ? "Service Unavailable"
                        : status == 500 ? "Internal Server Error"
                                        : "Unauthorized";
    snprintf(message, sizeof message, "%s: %s", title, why);
    const char *const challenge[] = {"WWW-Authenticate",
                                     v && v->challenge[0] ? v->challenge : "Bearer", NULL};
    static const char *const later[] = {"Retry-After", "5", NULL};
    waiter *ready = NULL;
    for (waiter **p = &q->waiting; *p;) {
        waiter *w = *p;
        if (w->q != j) {
            p = &w->next;
            continue;
        }
        *p = w->next;
        q->nwaiting--;
        q->waiting_bytes -= w->bytes;
        if (status) {
            refuse(w->x, status, message,
                   status == 503 ? later : status == 500 ? NULL : challenge);
            free(w);
            continue;
        }
        char *pr = strdup(principal), *sc = scope ? strdup(scope) : NULL;
        if (!pr || (scope && !sc)) {
            free(pr);
            free(sc);
            refuse(w->x, 500, "Internal Server Error: out of memory", NULL);
            free(w);
            continue;
        }
        mcp__http_exchange_set_auth(w->x, pr, sc);
        w->next = ready;
        ready = w;
    }
    /* Served after the list is settled: serving may close exchanges, which
     * comes back here (mcp__http_introspect_forget). */
    while (ready) {
        waiter *w = ready;
        ready = w->next;
        mcp__http_exchange *x = w->x;
        free(w);
        q->serve(q->serve_ud, x);
    }
}

/* Loop thread: what the authorization server said about j's token. */
static void answered(http_job *base)
{
    question *j = (question *)base;
    http_introspect *q = base->owner;
    mcp__resource_verdict v = {0};
    char *principal = NULL, *scope = NULL;
    int64_t now = (int64_t)time(NULL), until = 0;
    int rc = j->rc;
    char why[400];
    if (rc == MCP_OK && j->status != 200) {
        snprintf(why, sizeof why, "the introspection endpoint answered HTTP %ld", j->status);
        rc = MCP_ERR_IO;
    } else if (rc == MCP_OK) {
        rc = mcp__resource_introspected(q->rc, j->answer.data ? j->answer.data : "",
                                        j->answer.len, now, q->ttl_s, &v, &principal, &scope,
                                        &until);
        if (rc == MCP_ERR_INVALID_ARG)
            snprintf(why, sizeof why, "%s", v.why);
    } else if (rc != MCP_ERR_NOMEM) {
        snprintf(why, sizeof why, "%s", j->why);
        rc = MCP_ERR_IO;
    }
    if (rc == MCP_ERR_NOMEM) {
        settle(q, j, NULL, NULL, NULL, 500, "out of memory");
    } else if (rc != MCP_OK) {
        mcp__server_log(q->s, MCP_LOG_WARNING,
                        "auth: cannot introspect a token at %s (its requests get 503): %s",
                        q->url, why);
        char told[512];
        snprintf(told, sizeof told, "the authorization server could not be asked about the "
                                    "token (%s)", why);
        settle(q, j, NULL, NULL, NULL, 503, told);
    } else {
        /* Remembered, accepted (with its scope: a 403 for a scope the
         * token lacks is the cache's to give again) or refused. */
        mcp__token_cache_put(q->cache, 0, j->header, until, principal, scope);
        if (v.status)
            mcp__server_log(q->s, MCP_LOG_INFO, "request refused (%d): %s", v.status, v.why);
        settle(q, j, &v, principal, scope, (unsigned)v.status, v.why);
    }
    free(principal);
    free(scope);
    question_drop(q, j);
}

/* Worker thread: the question itself. */
static void ask(http_job *base)
{
    question *j = (question *)base;
    j->rc = mcp__http_post_form(j->url, j->form, j->user, j->password, ANSWER_MAX, ASK_MS,
                                &base->abort, &j->answer, &j->status, j->why, sizeof j->why);
}

static question *question_new(http_introspect *q, const char *authorization, const char *token,
                              size_t n)
{
    question *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    mcp_buf_init(&j->answer, 0, NULL);
    mcp_buf form;
    mcp_buf_init(&form, 0, NULL);
    char *t = strndup(token, n);
    int rc = t ? mcp__auth_form_add(&form, "token", t) : MCP_ERR_NOMEM;
    if (rc == MCP_OK)
        rc = mcp__auth_form_add(&form, "token_type_hint", "access_token");
    free(t);
    j->form = rc == MCP_OK ? strdup(form.data) : NULL;
    mcp_buf_free(&form);
    j->header = strdup(authorization);
    j->url = strdup(q->url);
    j->user = strdup(q->user);
    j->password = strdup(q->password);
    j->base.work = ask;
    j->base.done = answered;
    j->base.destroy = question_destroy;
    j->base.waits = true;
    if (!j->form || !j->header || !j->url || !j->user || !j->password ||
        !mcp__http_job_start(&j->base, q->s, q)) {
        question_destroy(&j->base);
        return NULL;
    }
    j->next = q->asking;
    q->asking = j;
    q->nasking++;
    return j;
}

void mcp__http_introspect_wait(http_introspect *q, mcp__http_exchange *x,
                               const char *authorization, const char *token, size_t n)
{
    static const char *const soon[] = {"Retry-After", "1", NULL};
    question *j = q->asking;
    while (j && strcmp(j->header, authorization) != 0)
        j = j->next;
    size_t bytes = 0;
    mcp__http_exchange_body(x, &bytes);
    if (q->nwaiting >= WAITING_MAX || q->waiting_bytes + bytes > WAITING_BYTES ||
        (!j && q->nasking >= ASKING_MAX)) {
        mcp__server_log(q->s, MCP_LOG_WARNING,
                        "auth: too many requests wait for token introspection: 503");
        refuse(x, 503, "Service Unavailable: too many requests wait for their token to be "
                       "checked", soon);
        return;
    }
    waiter *w = calloc(1, sizeof *w);
    if (w && !j)
        j = question_new(q, authorization, token, n);
    if (!w || !j) {
        free(w);
        refuse(x, 500, "Internal Server Error: out of memory, or no worker pool to ask with",
               NULL);
        return;
    }
    w->x = x;
    w->q = j;
    w->bytes = bytes;
    w->next = q->waiting;
    q->waiting = w;
    q->nwaiting++;
    q->waiting_bytes += bytes;
    mcp__http_exchange_keep_body(x);
}

void mcp__http_introspect_forget(http_introspect *q, mcp__http_exchange *x)
{
    for (waiter **p = &q->waiting; *p; p = &(*p)->next)
        if ((*p)->x == x) {
            waiter *w = *p;
            *p = w->next;
            q->nwaiting--;
            q->waiting_bytes -= w->bytes;
            free(w);
            return;
        }
}
