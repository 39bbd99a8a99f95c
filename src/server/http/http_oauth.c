/* SPDX-License-Identifier: MIT */
/*
 * The HTTP binding as an OAuth resource server (mcp_server_http_options'
 * auth_*): the configuration copied and checked at listen, the key set
 * read (auth_jwks) or fetched from the authorization server (http_keys.c),
 * the metadata document made, and each request judged by server/auth's
 * rules; a token naming a key the set lacks asks http_keys.c for a new
 * set (the request itself is refused: the client tries again). A request allowed is from "<iss> <sub>": what a
 * session, a task or a requestState is bound to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "server/auth/auth.h"
#include "server/http/http.h"

struct http_oauth {
    mcp__jwks *keys;    /* auth_jwks's, or NULL: */
    http_keys *fetched; /* the authorization server's, or NULL: */
    http_introspect *introspect; /* tokens asked about (RFC 7662) */
    mcp__resource_config rc;
    char *issuer, *resource, *audience, *metadata_url;
    char **scopes;
    mcp_buf doc_path, doc;
    mcp__token_cache *accepted;
};

void mcp__http_oauth_free(http_oauth *o)
{
    if (!o)
        return;
    mcp__jwks_free(o->keys);
    mcp__http_keys_free(o->fetched);
    mcp__http_introspect_free(o->introspect);
    free(o->issuer);
    free(o->resource);
    free(o->audience);
    free(o->metadata_url);
    for (size_t i = 0; o->scopes && o->scopes[i]; i++)
        free(o->scopes[i]);
    free(o->scopes);
    mcp_buf_free(&o->doc_path);
    mcp_buf_free(&o->doc);
    mcp__token_cache_free(o->accepted);
    free(o);
}

static char *copy(const char *s, bool *nomem)
{
    char *c = s ? strdup(s) : NULL;
    if (s && !c)
        *nomem = true;
    return c;
}

int mcp__http_oauth_open(mcp_server *s, const mcp_server_http_options *opts,
                         void (*serve)(void *ud, mcp__http_exchange *x), void *serve_ud,
                         http_oauth **out)
{
    *out = NULL;
    if (!opts->auth_issuer && !opts->auth_introspection_url)
        return MCP_OK;
    const char *bad = !opts->auth_issuer
                          ? "auth_introspection_url needs auth_issuer (whose tokens it asks about)"
                      : opts->authorize ? "auth_issuer and authorize cannot be used together"
                      : !opts->auth_resource ? "auth_issuer needs auth_resource (this server's URL)"
                                             : NULL;
    if (bad) {
        mcp__server_log(s, MCP_LOG_ERROR, "cannot serve HTTP: %s", bad);
        return MCP_ERR_INVALID_ARG;
    }
    http_oauth *o = calloc(1, sizeof *o);
    if (!o)
        return MCP_ERR_NOMEM;
    mcp_buf_init(&o->doc_path, 0, NULL);
    mcp_buf_init(&o->doc, 0, NULL);
    o->accepted = mcp__token_cache_new(); /* NULL: every token is checked */
    bool nomem = false;
    o->issuer = copy(opts->auth_issuer, &nomem);
    o->resource = copy(opts->auth_resource, &nomem);
    o->audience = copy(opts->auth_audience, &nomem);
    size_t n = 0;
    while (opts->auth_scopes && opts->auth_scopes[n])
        n++;
    o->scopes = calloc(n + 1, sizeof *o->scopes);
    nomem = nomem || !o->scopes;
    for (size_t i = 0; !nomem && i < n; i++)
        o->scopes[i] = copy(opts->auth_scopes[i], &nomem);
    int rc = nomem ? MCP_ERR_NOMEM : MCP_OK;
    char why[200] = "";
    if (rc == MCP_OK && opts->auth_jwks && !opts->auth_introspection_url) {
        rc = mcp__jwks_parse(opts->auth_jwks, strlen(opts->auth_jwks), &o->keys, why, sizeof why);
        if (rc != MCP_OK && rc != MCP_ERR_NOMEM) {
            mcp__server_log(s, MCP_LOG_ERROR, "cannot serve HTTP: auth_jwks: %s", why);
            rc = MCP_ERR_INVALID_ARG;
        }
    }
    o->rc = (mcp__resource_config){.resource = o->resource,
                                   .audience = o->audience,
                                   .issuer = o->issuer,
                                   .scopes = (const char *const *)o->scopes};
    mcp_buf url;
    mcp_buf_init(&url, 0, NULL);
    if (rc == MCP_OK && (rc = mcp__resource_metadata_url(&o->rc, &url)) == MCP_ERR_INVALID_ARG)
        mcp__server_log(s, MCP_LOG_ERROR,
                        "cannot serve HTTP: auth_resource is not an absolute URL without a "
                        "query or fragment");
    if (rc == MCP_OK && !(o->metadata_url = copy(url.data, &nomem)))
        rc = MCP_ERR_NOMEM;
    mcp_buf_free(&url);
    o->rc.metadata_url = o->metadata_url;
    if (rc == MCP_OK)
        rc = mcp__resource_metadata_path(&o->rc, &o->doc_path);
    if (rc == MCP_OK)
        rc = mcp__resource_metadata(&o->rc, &o->doc);
    if (rc == MCP_OK && opts->auth_introspection_url)
        rc = mcp__http_introspect_open(s, opts, &o->rc, o->accepted, serve, serve_ud,
                                       &o->introspect);
    /* Last: the options are checked before anything is fetched. */
    else if (rc == MCP_OK && !opts->auth_jwks)
        rc = mcp__http_keys_open(s, o->issuer, opts->auth_jwks_refetch_s, &o->fetched);
    if (rc != MCP_OK) {
        mcp__http_oauth_free(o);
        return rc;
    }
    *out = o;
    return MCP_OK;
}

void mcp__http_oauth_document(const http_oauth *o, const char **path, const char **json)
{
    *path = o ? o->doc_path.data : NULL;
    *json = o ? o->doc.data : NULL;
}

static int verdict(const mcp__resource_verdict *v, mcp__http_auth_answer *a)
{
    snprintf(a->challenge, sizeof a->challenge, "%s", v->challenge);
    snprintf(a->message, sizeof a->message, "%s", v->why);
    return v->status;
}

/* With introspection: a token remembered is judged now; a header that is
 * no bearer token is refused now; else the request is served with no
 * principal yet, which tells http.c to have it wait (pending, below). */
static int authorize_introspected(http_oauth *o, const char *authorization,
                                  mcp__http_auth_answer *a)
{
    mcp__resource_verdict v;
    int got = mcp__token_cache_get(o->accepted, 0, authorization, (int64_t)time(NULL),
                                   &a->principal, &a->scope);
    if (got == 1) {
        /* Remembered with its scope, enough or not: the server's own are
         * checked here, the items' after the body is read. */
        if (mcp__resource_scope_check(&o->rc, a->scope, NULL, &v) != MCP_OK && !v.status)
            return 401;
        return verdict(&v, a);
    }
    if (got == -1) {
        mcp__resource_refused(&o->rc,
                              "the authorization server refused the token (remembered for a "
                              "few seconds)",
                              &v);
        return verdict(&v, a);
    }
    const char *token;
    size_t n;
    if (mcp__resource_bearer(&o->rc, authorization, &token, &n, &v) != MCP_OK && !v.status)
        return 401;
    return verdict(&v, a);
}

bool mcp__http_oauth_pending(const http_oauth *o, const mcp__http_exchange *x)
{
    return o && o->introspect && !mcp__http_exchange_principal(x);
}

void mcp__http_oauth_wait(http_oauth *o, mcp__http_exchange *x)
{
    const char *authorization = mcp__http_exchange_header(x, "Authorization");
    const char *token = NULL;
    size_t n = 0;
    mcp__resource_verdict v;
    /* authorize found one token in it already. */
    if (!authorization || mcp__resource_bearer(&o->rc, authorization, &token, &n, &v) != MCP_OK ||
        !token) {
        mcp__http_respond_error(x, 500, NULL, MCP_WIRE_INTERNAL_ERROR,
                                "Internal Server Error: the token could not be read again", NULL);
        return;
    }
    mcp__http_introspect_wait(o->introspect, x, authorization, token, n);
}

void mcp__http_oauth_forget(http_oauth *o, mcp__http_exchange *x)
{
    if (o && o->introspect)
        mcp__http_introspect_forget(o->introspect, x);
}

int mcp__http_oauth_authorize(http_oauth *o, const char *authorization, mcp__http_auth_answer *a)
{
    if (o->introspect)
        return authorize_introspected(o, authorization, a);
    int64_t now = (int64_t)time(NULL);
    uint64_t gen = o->keys ? 0 : mcp__http_keys_generation(o->fetched);
    if (mcp__token_cache_get(o->accepted, gen, authorization, now, &a->principal, &a->scope) == 1)
        return 0;
    mcp__resource_verdict v;
    const mcp__jwks *keys = o->keys ? o->keys : mcp__http_keys_get(o->fetched);
    int rc = mcp__resource_check(&o->rc, keys, authorization, now, NULL, &v);
    if (v.refetch_keys && o->fetched)
        mcp__http_keys_unknown(o->fetched);
    snprintf(a->challenge, sizeof a->challenge, "%s", v.challenge);
    snprintf(a->message, sizeof a->message, "%s", v.why);
    if (rc != MCP_OK || v.status) {
        mcp__jwt_claims_free(&v.claims);
        return rc != MCP_OK ? 401 : v.status;
    }
    size_t n = strlen(o->issuer) + strlen(v.claims.sub) + 2;
    a->principal = malloc(n);
    if (a->principal)
        snprintf(a->principal, n, "%s %s", o->issuer, v.claims.sub);
    /* The scope, kept with the exchange for the items' own (below). */
    a->scope = v.claims.scope;
    v.claims.scope = NULL;
    if (a->principal)
        mcp__token_cache_put(o->accepted, gen, authorization,
                             v.claims.exp + (o->rc.skew_s ? o->rc.skew_s : 60), a->principal,
                             a->scope);
    mcp__jwt_claims_free(&v.claims);
    if (!a->principal) {
        snprintf(a->message, sizeof a->message, "out of memory");
        return 401;
    }
    return 0;
}

/* Scopes per item ---------------------------------------------------------------- */

/* Whether the token of x grants what request (its method, mlen bytes,
 * and params) needs of the item it names in snapshot r; else 403 in v. */
static int item_verdict(http_oauth *o, const registry *r, const mcp__http_exchange *x,
                        const char *method, size_t mlen, const mcp_json *params,
                        mcp__resource_verdict *v)
{
    const char *const *needs = NULL;
    int rc = method ? mcp__registry_needs(r, method, mlen, params, &needs) : MCP_OK;
    if (rc != MCP_OK || !needs)
        return rc;
    return mcp__resource_scope_check(&o->rc, mcp__http_exchange_scope(x), needs, v);
}

bool mcp__http_oauth_item_allowed(http_oauth *o, mcp_server *s, mcp__http_exchange *x,
                                  const mcp_message *m)
{
    if (!o || (m->kind != MCP_MESSAGE_REQUEST && m->kind != MCP_MESSAGE_BATCH))
        return true;
    registry *r = mcp__server_snapshot(s);
    mcp__resource_verdict v = {0};
    int rc = r ? MCP_OK : MCP_ERR_NOMEM;
    if (r && m->kind == MCP_MESSAGE_REQUEST)
        rc = item_verdict(o, r, x, m->method, m->method_len, m->params, &v);
    /* A 2025-03-26 batch: refused whole when one of its requests is. */
    for (size_t i = 0; r && m->kind == MCP_MESSAGE_BATCH && rc == MCP_OK && !v.status &&
                       i < mcp_json_array_size(m->batch);
         i++) {
        const mcp_json *e = mcp_json_array_at(m->batch, i);
        size_t mlen = 0;
        const char *method = mcp_json_string(mcp_json_object_get(e, "method"), &mlen);
        if (mcp_json_object_get(e, "id"))
            rc = item_verdict(o, r, x, method, mlen, mcp_json_object_get(e, "params"), &v);
    }
    mcp__registry_unref(r);
    const mcp_id *id = m->kind == MCP_MESSAGE_REQUEST ? &m->id : NULL;
    if (rc == MCP_ERR_NOMEM && !v.status) {
        mcp__http_respond_error(x, 500, id, MCP_WIRE_INTERNAL_ERROR, "out of memory", NULL);
        return false;
    }
    if (!v.status)
        return true;
    const char *const challenge[] = {"WWW-Authenticate", v.challenge[0] ? v.challenge : "Bearer",
                                     NULL};
    char message[300];
    snprintf(message, sizeof message, "Forbidden: %s", v.why);
    mcp__server_log(s, MCP_LOG_INFO, "request refused (403): %s", v.why);
    mcp__http_respond_error(x, 403, id, MCP_WIRE_INVALID_REQUEST, message, challenge);
    return false;
}
