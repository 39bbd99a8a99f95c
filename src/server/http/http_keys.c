/* SPDX-License-Identifier: MIT */
/*
 * The resource server's key set when the application gives none
 * (mcp_server_http_options.auth_jwks NULL): found through the issuer's
 * metadata (RFC 8414, then OpenID Connect Discovery), fetched from its
 * jwks_uri, kept, and fetched again when a token names a key the set lacks
 * (at most once per refetch interval, so a flood of made-up key ids cannot
 * make us hammer the authorization server) and when it is an hour old.
 *
 * Threads. The first fetch is made by mcp_server_listen_http, on its
 * caller's thread, before the loop serves. Every later one runs as a job
 * of the server's worker pool (the fetch blocks: never on the loop), which
 * posts what it got to the loop thread (http_job.c); only the loop thread
 * reads or replaces the set, so a check never sees it change under it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "server/auth/auth.h"
#include "server/http/http.h"
#include "transport/http_fetch.h"

#define FETCH_BUDGET_MS 20000u /* a whole fetch: metadata and key set */
#define REQUEST_MS 10000u      /* one GET of it */
#define REFRESH_MS (3600u * 1000u)

typedef struct keys_job {
    http_job base; /* first */
    char *issuer;
    mcp__jwks *keys;      /* the result */
    int rc;
    char why[400];
} keys_job;

struct http_keys {
    mcp_server *s;
    char *issuer;
    mcp__jwks *keys;
    uv_timer_t *timer; /* the next fetch due; its close frees it */
    uint64_t last_start; /* when the last fetch began (monotonic ms) */
    uint64_t due;        /* when the timer fires (0: not armed) */
    uint64_t refetch_ms;
    keys_job *job;       /* the fetch in flight */
    uint64_t generation; /* bumped whenever keys is replaced */
};

/* The fetch itself (any thread; blocks) ------------------------------------- */

static unsigned left(uint64_t deadline)
{
    uint64_t now = mcp__now_ms();
    uint64_t rest = deadline > now ? deadline - now : 1;
    return (unsigned)(rest < REQUEST_MS ? rest : REQUEST_MS);
}

/* The issuer's metadata, its jwks_uri into *uri: MCP_OK, or an error with
 * why (MCP_ERR_INVALID_ARG: the issuer is no URL to fetch from; MCP_ERR_IO:
 * nothing usable found; MCP_ERR_NOMEM). A document that is not the issuer's is not used, and the next URL
 * tried; no answer at all ends the search. */
static int find_jwks_uri(const char *issuer, uint64_t deadline, const atomic_bool *abort,
                         char **uri, char *why, size_t n)
{
    char *urls[3];
    size_t count;
    int rc = mcp__auth_issuer_metadata_urls(issuer, urls, &count, why, n);
    if (rc != MCP_OK)
        return rc;
    mcp_buf body;
    mcp_buf_init(&body, 0, NULL);
    bool told = false; /* why holds a reason better than "not found" */
    rc = MCP_ERR_IO;
    for (size_t i = 0; i < count && rc != MCP_OK; i++) {
        long status;
        char w[300];
        mcp__buf_rewind(&body, 0);
        int got = mcp__http_fetch(urls[i], MCP__AS_METADATA_MAX_BYTES, left(deadline), abort,
                                  &body, &status, w, sizeof w);
        if (got == MCP_ERR_NOMEM || got == MCP_ERR_IO) {
            snprintf(why, n, "%s", w);
            rc = got;
            break;
        }
        if (got == MCP_OK && status == 200) {
            got = mcp__auth_issuer_metadata_read(body.data ? body.data : "", body.len, issuer,
                                                 uri, w, sizeof w);
            if (got == MCP_OK || got == MCP_ERR_NOMEM) {
                rc = got;
                break;
            }
            snprintf(why, n, "%s: %s", urls[i], w);
            told = true;
        } else if (got == MCP_ERR_LIMIT) {
            snprintf(why, n, "%s", w);
            told = true;
        } else if (!told) {
            snprintf(why, n, "no metadata found for the issuer (%s answered HTTP %ld)", urls[i],
                     status);
        }
    }
    for (size_t i = 0; i < count; i++)
        free(urls[i]);
    mcp_buf_free(&body);
    return rc;
}

static int fetch_keys(const char *issuer, const atomic_bool *abort, mcp__jwks **out, char *why,
                      size_t n)
{
    *out = NULL;
    uint64_t deadline = mcp__now_ms() + FETCH_BUDGET_MS;
    char *uri = NULL;
    int rc = find_jwks_uri(issuer, deadline, abort, &uri, why, n);
    if (rc != MCP_OK)
        return rc;
    mcp_buf body;
    mcp_buf_init(&body, 0, NULL);
    long status;
    char w[300];
    rc = mcp__http_fetch(uri, MCP__JWKS_MAX_BYTES, left(deadline), abort, &body, &status, w,
                         sizeof w);
    if (rc == MCP_OK && status != 200) {
        snprintf(why, n, "%s answered HTTP %ld", uri, status);
        rc = MCP_ERR_IO;
    } else if (rc == MCP_OK) {
        rc = mcp__jwks_parse(body.data ? body.data : "", body.len, out, w, sizeof w);
        if (rc != MCP_OK && rc != MCP_ERR_NOMEM) {
            snprintf(why, n, "the key set at %s: %s", uri, w);
            rc = MCP_ERR_IO;
        }
    } else if (rc != MCP_ERR_NOMEM) {
        snprintf(why, n, "%s", w);
        rc = MCP_ERR_IO;
    }
    free(uri);
    mcp_buf_free(&body);
    return rc;
}

/* Later fetches: a job of the pool, its result posted ----------------------------- */

static void job_destroy(http_job *base)
{
    keys_job *j = (keys_job *)base;
    mcp__jwks_free(j->keys);
    free(j->issuer);
    free(j);
}

static void arm(http_keys *k, uint64_t in_ms);

/* Loop thread: what the job got. */
static void job_done(http_job *base)
{
    keys_job *j = (keys_job *)base;
    http_keys *k = base->owner;
    k->job = NULL;
    if (j->rc == MCP_OK) {
        mcp__jwks_free(k->keys);
        k->keys = j->keys;
        k->generation++;
        j->keys = NULL;
        mcp__server_log(k->s, MCP_LOG_INFO, "auth: the key set of %s fetched again: %zu key(s)",
                        k->issuer, mcp__jwks_count(k->keys));
        arm(k, REFRESH_MS);
    } else {
        mcp__server_log(k->s, MCP_LOG_WARNING,
                        "auth: cannot fetch the key set of %s again (the keys held are kept; "
                        "next try in %llu s): %s",
                        k->issuer, (unsigned long long)(k->refetch_ms / 1000),
                        j->rc == MCP_ERR_NOMEM ? "out of memory" : j->why);
        arm(k, k->refetch_ms);
    }
    mcp__http_job_detach(base);
}

static void job_work(http_job *base)
{
    keys_job *j = (keys_job *)base;
    j->rc = fetch_keys(j->issuer, &base->abort, &j->keys, j->why, sizeof j->why);
}

static void start(http_keys *k)
{
    if (k->job)
        return;
    k->last_start = mcp__now_ms();
    k->due = 0;
    uv_timer_stop(k->timer);
    keys_job *j = calloc(1, sizeof *j);
    if (j && !(j->issuer = strdup(k->issuer))) {
        free(j);
        j = NULL;
    }
    if (j) {
        j->base.work = job_work;
        j->base.done = job_done;
        j->base.destroy = job_destroy;
    }
    if (!j || !mcp__http_job_start(&j->base, k->s, k)) {
        if (j)
            job_destroy(&j->base);
        arm(k, k->refetch_ms);
        return;
    }
    k->job = j;
    mcp__server_log(k->s, MCP_LOG_DEBUG, "auth: fetching the key set of %s", k->issuer);
}

static void fired(uv_timer_t *t)
{
    http_keys *k = t->data;
    k->due = 0;
    start(k);
}

/* The next fetch in in_ms, unless one is due sooner or running. */
static void arm(http_keys *k, uint64_t in_ms)
{
    uint64_t at = mcp__now_ms() + in_ms;
    if (k->job || (k->due && k->due <= at))
        return;
    k->due = at;
    uv_timer_start(k->timer, fired, in_ms, 0);
}

/* The binding's side ------------------------------------------------------------------ */

static void timer_closed(uv_handle_t *h)
{
    free(h);
}

int mcp__http_keys_open(mcp_server *s, const char *issuer, unsigned refetch_s, http_keys **out)
{
    *out = NULL;
    if (s->running) {
        mcp__server_log(s, MCP_LOG_ERROR,
                        "cannot serve HTTP: without auth_jwks the key set is fetched at listen, "
                        "which must then come before mcp_server_run");
        return MCP_ERR_STATE;
    }
    http_keys *k = calloc(1, sizeof *k);
    if (!k || !(k->issuer = strdup(issuer))) {
        free(k);
        return MCP_ERR_NOMEM;
    }
    k->s = s;
    k->generation = 1;
    k->refetch_ms = (uint64_t)(refetch_s ? refetch_s : 30) * 1000u;
    char why[400] = "";
    mcp__server_log(s, MCP_LOG_DEBUG, "auth: fetching the key set of %s", issuer);
    /* Ended by mcp_server_stop (Ctrl-C in mcp serve): a server asked to
     * stop does not wait out an authorization server that does not answer. */
    int rc = fetch_keys(issuer, &s->stop_asked, &k->keys, why, sizeof why);
    if (rc == MCP_OK && !(k->timer = malloc(sizeof *k->timer)))
        rc = MCP_ERR_NOMEM;
    if (rc != MCP_OK) {
        if (rc != MCP_ERR_NOMEM)
            mcp__server_log(s, MCP_LOG_ERROR,
                            "cannot serve HTTP: cannot have the authorization server's key set "
                            "(auth_issuer %s): %s",
                            issuer, why);
        mcp__jwks_free(k->keys);
        free(k->issuer);
        free(k);
        return rc == MCP_ERR_NOMEM || rc == MCP_ERR_INVALID_ARG ? rc : MCP_ERR_IO;
    }
    mcp__server_log(s, MCP_LOG_INFO, "auth: the key set of %s fetched: %zu key(s)", issuer,
                    mcp__jwks_count(k->keys));
    uv_timer_init(&s->loop, k->timer);
    uv_unref((uv_handle_t *)k->timer); /* never what keeps the loop running */
    k->timer->data = k;
    k->last_start = mcp__now_ms();
    arm(k, REFRESH_MS);
    *out = k;
    return MCP_OK;
}

void mcp__http_keys_free(http_keys *k)
{
    if (!k)
        return;
    if (k->job)
        mcp__http_job_detach(&k->job->base);
    uv_close((uv_handle_t *)k->timer, timer_closed);
    mcp__jwks_free(k->keys);
    free(k->issuer);
    free(k);
}

uint64_t mcp__http_keys_generation(const http_keys *k)
{
    return k ? k->generation : 0;
}

const mcp__jwks *mcp__http_keys_get(const http_keys *k)
{
    return k->keys;
}

void mcp__http_keys_unknown(http_keys *k)
{
    uint64_t since = mcp__now_ms() - k->last_start;
    if (k->job)
        return;
    if (since >= k->refetch_ms)
        start(k);
    else
        arm(k, k->refetch_ms - since);
}
