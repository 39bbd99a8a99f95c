/* SPDX-License-Identifier: MIT */
/*
 * The OAuth client's flow and the transport's hooks: what a 401 or a 403
 * leads to, which tokens a request carries, when they are refreshed.
 *
 * Bounds, so that no server can make the client spin: a request is sent
 * again at most MCP__HTTP_AUTH_TRIES times (the transport); a 403
 * insufficient_scope leads to a new authorization when it names a scope
 * not asked before, and once more for scopes already asked (a user may
 * have granted fewer), at most STEP_UPS_MAX times in all; a 401 to
 * credentials that never worked leads to UNPROVEN_MAX flows at most before
 * the client gives up; a registration the server no longer knows
 * (invalid_client) is renewed once per flow; after a flow that failed, the
 * next one waits FLOW_BACKOFF_MS, doubled after each failure up to
 * FLOW_BACKOFF_MAX_MS (a request meanwhile fails at once with the same
 * error), so that a refusing or broken authorization server is not asked
 * again for every request.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/auth/oauth.h"
#include "json/writer.h"
#include "runtime/internal.h"
#include "transport/http_auth.h"

#define STEP_UPS_MAX 8
#define UNPROVEN_MAX 2
#define FLOW_BACKOFF_MS 1000
#define FLOW_BACKOFF_MAX_MS 60000
/* Tokens are refreshed this long before they expire. */
#define REFRESH_AHEAD_S 30

struct mcp__oauth {
    mcp_oauth_options o;
    char *copies[16]; /* o's strings, owned */
    char *server_url, *ca_file;
    mcp__auth_http h;
    void (*log)(void *ud, mcp_log_level level, const char *text);
    void *log_ud;
    mcp__http_client_auth hooks;

    mcp__auth_prm prm;
    bool have_prm;
    mcp__auth_server as;
    bool have_as;
    mcp__auth_client client;
    bool have_client;
    mcp__auth_tokens tokens;
    bool have_tokens;
    char *resource; /* what the tokens were asked for (the PRM's resource), or NULL */
    char *token_issuer; /* loaded tokens: the server they came from */
    char *asked;    /* the scopes asked last */

    unsigned generation; /* bumped with every new access token */
    unsigned proven;     /* the last generation a server accepted */
    unsigned obtained;   /* the last generation a grant or refresh of this engine gave */
    unsigned unproven_flows;
    unsigned step_ups;
    bool repeated_ask; /* a step up asked only scopes asked before */
    mcp__auth_dpop dpop;
    /* A grant whose refusal is final (an assertion given once): why. */
    char *final_error;
    char error[512];
    uint64_t retry_at_ms, backoff_ms; /* after a failed flow */
};

static int64_t now_s(void)
{
    return (int64_t)time(NULL);
}

static void say(mcp__oauth *e, mcp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(mcp__oauth *e, mcp_log_level level, const char *fmt, ...)
{
    if (!e->log)
        return;
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    e->log(e->log_ud, level, text);
}

/* Storage --------------------------------------------------------------------------- */

static void store_save(mcp__oauth *e, const char *kind, const char *name, const char *value)
{
    if (!e->o.save)
        return;
    size_t n = strlen(kind) + strlen(name) + 2;
    char *key = malloc(n);
    if (!key)
        return;
    snprintf(key, n, "%s %s", kind, name);
    if (e->o.save(e->o.store_user_data, key, value) != MCP_OK)
        say(e, MCP_LOG_WARNING, "OAuth: could not save the %s record for %s", kind, name);
    free(key);
}

static char *store_load(mcp__oauth *e, const char *kind, const char *name)
{
    if (!e->o.load)
        return NULL;
    size_t n = strlen(kind) + strlen(name) + 2;
    char *key = malloc(n), *value = NULL;
    if (!key)
        return NULL;
    snprintf(key, n, "%s %s", kind, name);
    if (e->o.load(e->o.store_user_data, key, &value) != MCP_OK)
        value = NULL;
    free(key);
    return value;
}

static void tokens_save(mcp__oauth *e)
{
    /* A DPoP-bound token (and its refresh token) is of no use without the
     * key, which never leaves this process: kept in memory only. */
    if (!e->have_tokens || e->tokens.dpop) {
        store_save(e, "tokens", e->server_url, NULL);
        return;
    }
    mcp_buf b;
    mcp_buf_init(&b, MCP__AUTH_DOC_MAX, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "access_token");
    mcp__jw_string(&w, e->tokens.access_token);
    if (e->tokens.refresh_token) {
        mcp__jw_key(&w, "refresh_token");
        mcp__jw_string(&w, e->tokens.refresh_token);
    }
    if (e->tokens.scope) {
        mcp__jw_key(&w, "scope");
        mcp__jw_string(&w, e->tokens.scope);
    }
    mcp__jw_key(&w, "expires_at");
    mcp__jw_int(&w, e->tokens.expires_at);
    mcp__jw_key(&w, "issued_at");
    mcp__jw_int(&w, e->tokens.issued_at);
    if (e->have_as) {
        mcp__jw_key(&w, "issuer");
        mcp__jw_string(&w, e->as.issuer);
    }
    if (e->resource) {
        mcp__jw_key(&w, "resource");
        mcp__jw_string(&w, e->resource);
    }
    mcp__jw_object_end(&w);
    if (mcp__jw_finish(&w) == MCP_OK)
        store_save(e, "tokens", e->server_url, b.data);
    mcp_buf_free(&b);
}

static void tokens_drop(mcp__oauth *e)
{
    if (!e->have_tokens)
        return;
    mcp__auth_tokens_free(&e->tokens);
    e->have_tokens = false;
    tokens_save(e);
}

/* The tokens storage holds, with what they were for and from. */
static bool tokens_stored(mcp__oauth *e, mcp__auth_tokens *t, char **resource, char **issuer)
{
    memset(t, 0, sizeof *t);
    *resource = *issuer = NULL;
    char *text = store_load(e, "tokens", e->server_url);
    mcp_json_doc *d = NULL;
    if (!text || mcp__auth_parse_object(text, strlen(text), &d, "stored tokens", NULL, 0)) {
        free(text);
        return false;
    }
    const mcp_json *root = mcp_json_doc_root(d);
    const char *at = mcp__auth_text(root, "access_token");
    const char *rt = mcp__auth_text(root, "refresh_token");
    const char *scope = mcp__auth_text(root, "scope");
    const char *res = mcp__auth_text(root, "resource");
    const char *iss = mcp__auth_text(root, "issuer");
    mcp_json_get_int64(mcp_json_object_get(root, "expires_at"), &t->expires_at);
    mcp_json_get_int64(mcp_json_object_get(root, "issued_at"), &t->issued_at);
    /* A file edited by hand (or by another program) must not put a line
     * break, or anything else, into a header. */
    bool ok = at && mcp__auth_b64token(at) && (t->access_token = strdup(at)) != NULL;
    if (ok) {
        t->refresh_token = rt ? strdup(rt) : NULL;
        t->scope = scope ? strdup(scope) : NULL;
        *resource = res ? strdup(res) : NULL;
        *issuer = iss ? strdup(iss) : NULL;
    }
    mcp_json_doc_free(d);
    free(text);
    return ok;
}

static void tokens_load(mcp__oauth *e)
{
    if (tokens_stored(e, &e->tokens, &e->resource, &e->token_issuer)) {
        e->have_tokens = true;
        e->generation++;
    }
}

/* After invalid_grant on a refresh: another client sharing the storage (a
 * second mcp process) may have spent the refresh token first, rotating
 * it. Its tokens are taken when they are newer than the one spent. */
static bool tokens_taken_from_storage(mcp__oauth *e, const char *spent)
{
    mcp__auth_tokens t;
    char *res, *iss;
    if (!tokens_stored(e, &t, &res, &iss))
        return false;
    bool newer = t.refresh_token && spent && strcmp(t.refresh_token, spent) != 0;
    free(iss);
    if (!newer) {
        mcp__auth_tokens_free(&t);
        free(res);
        return false;
    }
    mcp__auth_tokens_free(&e->tokens);
    e->tokens = t;
    free(e->resource);
    e->resource = res;
    e->generation++;
    say(e, MCP_LOG_INFO, "OAuth: took the tokens another client refreshed meanwhile");
    return true;
}

/* Discovery ------------------------------------------------------------------------- */

static int get_json(mcp__oauth *e, const char *url, mcp__auth_reply *r, char *why, size_t n)
{
    static const char *const headers[] = {"Accept: application/json", NULL};
    say(e, MCP_LOG_DEBUG, "OAuth: GET %s", url);
    return mcp__auth_fetch(&e->h, "GET", url, headers, NULL, 0, r, why, n);
}

/* The Protected Resource Metadata: at resource_metadata when the challenge
 * named it (and only there), else at the well-known URLs in order.
 * MCP_OK; MCP_ERR_NOT_FOUND when no URL served one; else why. */
static int find_prm(mcp__oauth *e, const char *resource_metadata, char *why, size_t n)
{
    mcp__auth_urls urls = {0};
    int rc;
    if (resource_metadata) {
        urls.url[0] = strdup(resource_metadata);
        urls.count = 1;
        rc = urls.url[0] ? MCP_OK : MCP_ERR_NOMEM;
    } else {
        rc = mcp__auth_prm_urls(e->server_url, &urls, why, n);
    }
    bool found = false;
    for (size_t i = 0; rc == MCP_OK && !found && i < urls.count; i++) {
        mcp__auth_reply r;
        rc = get_json(e, urls.url[i], &r, why, n);
        if (rc != MCP_OK)
            break;
        if (r.status != 200 && (resource_metadata || r.status < 400 || r.status >= 500)) {
            /* The URL the server named, or a server error: an answer, not
             * "there is none" (which alone leads to the 2025-03-26 way). */
            snprintf(why, n, "the protected resource metadata at %s answered HTTP %ld",
                     urls.url[i], r.status);
            rc = MCP_ERR_REMOTE;
        } else if (r.status == 200) {
            mcp__auth_prm prm;
            rc = mcp__auth_prm_read(r.body.data ? r.body.data : "", r.body.len, e->server_url,
                                    &prm, why, n);
            if (rc == MCP_OK) {
                if (e->have_prm)
                    mcp__auth_prm_free(&e->prm);
                e->prm = prm;
                e->have_prm = found = true;
            }
        }
        mcp__auth_reply_free(&r);
    }
    mcp__auth_urls_free(&urls);
    if (rc == MCP_OK && !found)
        rc = MCP_ERR_NOT_FOUND;
    return rc;
}

static void as_drop(mcp__oauth *e)
{
    if (e->have_as)
        mcp__auth_server_free(&e->as);
    e->have_as = false;
    if (e->have_client)
        mcp__auth_client_free(&e->client);
    e->have_client = false;
}

/* The authorization server named issuer: its metadata at the URLs of the
 * spec's order; a document naming another issuer stops the search. */
static int find_as(mcp__oauth *e, const char *issuer, char *why, size_t n)
{
    if (e->have_as && !strcmp(e->as.issuer, issuer))
        return MCP_OK;
    as_drop(e); /* credentials of one server are never shown another */
    mcp__auth_urls urls;
    int rc = mcp__auth_as_metadata_urls(issuer, &urls, why, n);
    bool found = false;
    for (size_t i = 0; rc == MCP_OK && !found && i < urls.count; i++) {
        mcp__auth_reply r;
        rc = get_json(e, urls.url[i], &r, why, n);
        if (rc != MCP_OK)
            break;
        if (r.status == 200) {
            rc = mcp__auth_server_read(r.body.data ? r.body.data : "", r.body.len, issuer, &e->as,
                                       why, n);
            found = e->have_as = rc == MCP_OK;
        }
        mcp__auth_reply_free(&r);
    }
    mcp__auth_urls_free(&urls);
    if (rc == MCP_OK && !found) {
        snprintf(why, n, "the authorization server %s serves no metadata (RFC 8414, OpenID "
                 "Connect discovery)", issuer);
        rc = MCP_ERR_NOT_FOUND;
    }
    return rc;
}

/* The 2025-03-26 fallbacks: no Protected Resource Metadata anywhere, so
 * the authorization server is the MCP server's origin. */
static int find_legacy_as(mcp__oauth *e, char *why, size_t n)
{
    char *origin = NULL;
    int rc = mcp__auth_legacy_base(e->server_url, &origin, why, n);
    if (rc != MCP_OK)
        return rc;
    if (e->have_as && e->as.legacy) {
        free(origin);
        return MCP_OK;
    }
    as_drop(e);
    size_t len = strlen(origin) + 48;
    char *url = malloc(len);
    rc = url ? MCP_OK : MCP_ERR_NOMEM;
    mcp__auth_reply r = {0};
    if (rc == MCP_OK) {
        snprintf(url, len, "%s/.well-known/oauth-authorization-server", origin);
        rc = get_json(e, url, &r, why, n);
    }
    bool renamed = false;
    if (rc == MCP_OK && r.status == 200)
        rc = mcp__auth_legacy_server_read(r.body.data ? r.body.data : "", r.body.len, origin,
                                          &e->as, &renamed, why, n);
    else if (rc == MCP_OK)
        rc = mcp__auth_legacy_server_default(origin, &e->as);
    e->have_as = rc == MCP_OK;
    if (rc == MCP_OK)
        say(e, MCP_LOG_INFO, "OAuth: %s serves no protected resource metadata: using the "
            "authorization server at its origin (the 2025-03-26 way)%s", e->server_url,
            renamed ? ", known as its origin: its metadata names another issuer" : "");
    mcp__auth_reply_free(&r);
    free(url);
    free(origin);
    return rc;
}

/* Registration ---------------------------------------------------------------------- */

static int find_client(mcp__oauth *e, char *why, size_t n)
{
    if (e->have_client)
        return MCP_OK;
    /* Credentials the application gives for this server come first; a
     * registration kept from an earlier run only stands in for none. */
    bool given = e->o.client_id && (!e->o.client_issuer || !strcmp(e->o.client_issuer,
                                                                    e->as.issuer));
    char *text = given ? NULL : store_load(e, "client", e->as.issuer);
    if (text) {
        mcp__auth_client c;
        if (mcp__auth_client_read(text, strlen(text), &c) == MCP_OK) {
            bool usable = !strcmp(c.issuer, e->as.issuer) &&
                          (!c.registered || !e->o.redirect_uri ||
                           (c.redirect_uri && !strcmp(c.redirect_uri, e->o.redirect_uri)));
            if (usable) {
                e->client = c;
                e->have_client = true;
            } else {
                say(e, MCP_LOG_INFO, "OAuth: the registration kept for %s is for another "
                    "redirect URI: registering again", e->as.issuer);
                mcp__auth_client_free(&c);
            }
        }
        free(text);
        if (e->have_client)
            return MCP_OK;
    }
    int rc = mcp__auth_client_get(&e->o, &e->h, &e->as, &e->client, why, n);
    if (rc != MCP_OK)
        return rc;
    e->have_client = true;
    if (e->client.registered) {
        say(e, MCP_LOG_INFO, "OAuth: registered at %s as %s", e->as.issuer, e->client.client_id);
        mcp_buf b;
        mcp_buf_init(&b, MCP__AUTH_DOC_MAX, NULL);
        if (mcp__auth_client_write(&e->client, &b) == MCP_OK)
            store_save(e, "client", e->as.issuer, b.data);
        mcp_buf_free(&b);
    }
    return MCP_OK;
}

static void client_drop(mcp__oauth *e)
{
    if (!e->have_client)
        return;
    if (e->client.registered)
        store_save(e, "client", e->as.issuer, NULL);
    mcp__auth_client_free(&e->client);
    e->have_client = false;
}

/* Grants ---------------------------------------------------------------------------- */

/* The resource tokens are asked for (RFC 8707): as the Protected Resource
 * Metadata gives it, sent as is; without one (the 2025-03-26 fallback),
 * the server's URL, the canonical URI the later revisions name. */
static const char *resource_of(const mcp__oauth *e)
{
    return e->have_prm && e->prm.resource ? e->prm.resource : e->server_url;
}

static int take_tokens(mcp__oauth *e, mcp__auth_tokens *t, const char *asked)
{
    if (e->have_tokens && !t->refresh_token && e->tokens.refresh_token) {
        /* RFC 6749 section 6: no new refresh token, the old one stays. */
        t->refresh_token = e->tokens.refresh_token;
        e->tokens.refresh_token = NULL;
    }
    if (e->have_tokens)
        mcp__auth_tokens_free(&e->tokens);
    e->tokens = *t;
    e->have_tokens = true;
    e->obtained = ++e->generation;
    if (asked != e->asked) {
        free(e->asked);
        e->asked = asked ? strdup(asked) : NULL;
    }
    free(e->resource);
    e->resource = strdup(resource_of(e));
    tokens_save(e);
    return MCP_OK;
}

/* The query of a redirect URL (after '?', before '#'). */
static const char *query_of(const char *url, size_t *len)
{
    const char *q = strchr(url, '?');
    if (!q) {
        *len = 0;
        return "";
    }
    q++;
    const char *hash = strchr(q, '#');
    *len = hash ? (size_t)(hash - q) : strlen(q);
    return q;
}

/* The user's step: the authorization URL out, the code back. */
static int authorization_code(mcp__oauth *e, const char *scope, mcp_buf *form, char *why,
                              size_t n)
{
    if (!e->o.authorize || !e->o.redirect_uri) {
        snprintf(why, n, "the server needs a user's authorization, and this client has no way "
                 "to ask one (no authorize callback or redirect URI)");
        return MCP_ERR_INVALID_ARG;
    }
    mcp__auth_pkce pkce;
    if (mcp__auth_pkce_new(&pkce) != MCP_OK) {
        snprintf(why, n, "no random bytes for PKCE");
        return MCP_ERR_IO;
    }
    mcp__auth_request req = {.client_id = e->client.client_id,
                             .redirect_uri = e->o.redirect_uri,
                             .resource = resource_of(e),
                             .scope = scope,
                             .pkce = &pkce,
                             .without_s256 = e->o.without_s256};
    mcp_buf url;
    mcp_buf_init(&url, MCP__AUTH_DOC_MAX, NULL);
    int rc = mcp__auth_authorize_url(&e->as, &req, &url, why, n);
    char *redirected = NULL;
    if (rc == MCP_OK) {
        say(e, MCP_LOG_INFO, "OAuth: asking for authorization at %s", e->as.authorization_endpoint);
        char ask_why[256] = "";
        rc = e->o.authorize(e->o.authorize_user_data, url.data, e->o.redirect_uri, &redirected,
                            ask_why, sizeof ask_why);
        if (rc != MCP_OK || !redirected) {
            snprintf(why, n, "the authorization was not given%s%s", ask_why[0] ? ": " : "",
                     ask_why);
            rc = rc != MCP_OK ? rc : MCP_ERR_ABORTED;
        }
    }
    mcp_buf_free(&url);
    char *code = NULL;
    if (rc == MCP_OK) {
        size_t qlen;
        const char *q = query_of(redirected, &qlen);
        rc = mcp__auth_callback_read(q, qlen, pkce.state, e->as.issuer, e->as.iss_advertised,
                                     &code, why, n);
    }
    free(redirected);
    if (rc == MCP_OK)
        rc = mcp__auth_form_add(form, "grant_type", "authorization_code");
    if (rc == MCP_OK)
        rc = mcp__auth_form_add(form, "code", code);
    if (rc == MCP_OK)
        rc = mcp__auth_form_add(form, "redirect_uri", e->o.redirect_uri);
    if (rc == MCP_OK)
        rc = mcp__auth_form_add(form, "code_verifier", pkce.verifier);
    free(code);
    return rc;
}

/* The DPoP state when proofs are used with this server: asked for, and
 * offered (ES256). */
static mcp__auth_dpop *dpop_for(mcp__oauth *e)
{
    return e->o.dpop && e->have_as && e->as.dpop_es256 ? &e->dpop : NULL;
}

/* Enterprise-managed authorization's first step: the user's identity
 * assertion exchanged at the identity provider (RFC 8693) for an identity
 * assertion grant naming this server's authorization server and resource. */
static int identity_grant(mcp__oauth *e, char **jag, char *why, size_t n)
{
    *jag = NULL;
    mcp_buf form;
    mcp_buf_init(&form, MCP__AUTH_DOC_MAX, NULL);
    const char *names[] = {"grant_type", "subject_token", "subject_token_type",
                           "requested_token_type", "audience", "resource", "client_id",
                           "client_secret"};
    const char *values[] = {"urn:ietf:params:oauth:grant-type:token-exchange",
                            e->o.identity_token,
                            "urn:ietf:params:oauth:token-type:id_token",
                            "urn:ietf:params:oauth:token-type:id-jag",
                            e->as.issuer,
                            resource_of(e),
                            e->o.idp_client_id,
                            e->o.idp_client_secret};
    int rc = MCP_OK;
    for (size_t i = 0; rc == MCP_OK && i < 8; i++)
        if (values[i])
            rc = mcp__auth_form_add(&form, names[i], values[i]);
    static const char *const headers[] = {"Content-Type: application/x-www-form-urlencoded",
                                          "Accept: application/json", NULL};
    mcp__auth_reply r = {0};
    if (rc == MCP_OK)
        rc = mcp__auth_fetch(&e->h, "POST", e->o.idp_token_endpoint, headers, form.data, form.len,
                             &r, why, n);
    mcp_buf_free(&form);
    if (rc != MCP_OK)
        return rc;
    mcp_json_doc *d = NULL;
    rc = mcp__auth_parse_object(r.body.data ? r.body.data : "", r.body.len, &d,
                                "identity provider's answer", why, n);
    if (rc == MCP_OK) {
        const mcp_json *root = mcp_json_doc_root(d);
        const char *token = mcp__auth_text(root, "access_token");
        const char *type = mcp__auth_text(root, "issued_token_type");
        const char *error = mcp__auth_text(root, "error");
        if (r.status != 200 || !token || !type ||
            strcmp(type, "urn:ietf:params:oauth:token-type:id-jag")) {
            snprintf(why, n, "the identity provider gave no identity assertion grant (HTTP %ld%s%s)",
                     r.status, error ? ": " : "", error ? error : "");
            rc = MCP_ERR_REMOTE;
        } else if (!(*jag = strdup(token))) {
            rc = MCP_ERR_NOMEM;
        }
    }
    mcp_json_doc_free(d);
    mcp__auth_reply_free(&r);
    return rc;
}

/* The grant's own members of the token request. */
static int grant_form(mcp__oauth *e, const char *scope, mcp_buf *form, char *why, size_t n)
{
    char *jag = NULL;
    int rc;
    switch (e->o.grant) {
    case MCP_OAUTH_CLIENT_CREDENTIALS:
        rc = mcp__auth_form_add(form, "grant_type", "client_credentials");
        break;
    case MCP_OAUTH_JWT_BEARER:
    case MCP_OAUTH_ENTERPRISE:
        rc = e->o.grant == MCP_OAUTH_ENTERPRISE ? identity_grant(e, &jag, why, n) : MCP_OK;
        if (rc == MCP_OK)
            rc = mcp__auth_form_add(form, "grant_type",
                                    "urn:ietf:params:oauth:grant-type:jwt-bearer");
        if (rc == MCP_OK)
            rc = mcp__auth_form_add(form, "assertion", jag ? jag : e->o.assertion);
        free(jag);
        break;
    default:
        return authorization_code(e, scope, form, why, n);
    }
    if (rc == MCP_OK && scope)
        rc = mcp__auth_form_add(form, "scope", scope);
    return rc;
}

/* One grant, then the token request; an unknown client (invalid_client)
 * is registered again once. An assertion's refusal is final: the same
 * assertion is not presented again (nor another grant tried instead). */
static int obtain(mcp__oauth *e, const char *scope, char *why, size_t n)
{
    if (e->final_error) {
        snprintf(why, n, "%s", e->final_error);
        return MCP_ERR_REMOTE;
    }
    for (int attempt = 0;; attempt++) {
        int rc = find_client(e, why, n);
        if (rc != MCP_OK)
            return rc;
        mcp_buf form;
        mcp_buf_init(&form, MCP__AUTH_DOC_MAX, NULL);
        rc = grant_form(e, scope, &form, why, n);
        if (rc == MCP_OK)
            rc = mcp__auth_form_add(&form, "resource", resource_of(e));
        if (rc != MCP_OK) {
            mcp_buf_free(&form);
            return rc;
        }
        mcp__auth_token_request tr = {&e->o,  &e->h,    &e->as,     &e->client,
                                      &form, now_s(), dpop_for(e)};
        mcp__auth_tokens t;
        mcp__auth_token_outcome out = mcp__auth_token_post(&tr, &t, why, n);
        mcp_buf_free(&form);
        if (out == MCP__AUTH_TOKEN_OK) {
            say(e, MCP_LOG_INFO, "OAuth: got a token from %s", e->as.issuer);
            return take_tokens(e, &t, scope);
        }
        if (e->o.grant == MCP_OAUTH_JWT_BEARER || e->o.grant == MCP_OAUTH_ENTERPRISE)
            e->final_error = strdup(why);
        if (out == MCP__AUTH_TOKEN_INVALID_CLIENT && e->client.registered && attempt == 0) {
            say(e, MCP_LOG_INFO, "OAuth: %s no longer knows this client: registering again",
                e->as.issuer);
            client_drop(e);
            continue;
        }
        if (out == MCP__AUTH_TOKEN_INVALID_CLIENT)
            client_drop(e);
        return MCP_ERR_REMOTE;
    }
}

static int refresh_unlocked(mcp__oauth *e, char *why, size_t n);

/* A refresh (RFC 6749 section 6), one at a time among the clients of the
 * storage: under its lock, the record is read again first, and another
 * client's fresh tokens taken instead of refreshing. */
static int refresh(mcp__oauth *e, char *why, size_t n)
{
    if (!e->o.lock || !e->have_tokens || !e->tokens.refresh_token)
        return refresh_unlocked(e, why, n);
    size_t kn = strlen(e->server_url) + 8;
    char *key = malloc(kn);
    if (!key)
        return MCP_ERR_NOMEM;
    snprintf(key, kn, "tokens %s", e->server_url);
    bool held = e->o.lock(e->o.store_user_data, key, true) == MCP_OK;
    char *mine = strdup(e->tokens.refresh_token);
    int rc = mine && held && tokens_taken_from_storage(e, mine) ? MCP_OK
                                                                : refresh_unlocked(e, why, n);
    if (held)
        e->o.lock(e->o.store_user_data, key, false);
    free(mine);
    free(key);
    return rc;
}

static int refresh_unlocked(mcp__oauth *e, char *why, size_t n)
{
    if (e->have_tokens && e->tokens.refresh_token && !e->have_as && e->token_issuer &&
        find_as(e, e->token_issuer, why, n) == MCP_OK)
        find_client(e, why, n); /* the tokens' client, as stored */
    if (!e->have_tokens || !e->tokens.refresh_token || !e->have_as || !e->have_client) {
        snprintf(why, n, "no refresh token");
        return MCP_ERR_STATE;
    }
    mcp_buf form;
    mcp_buf_init(&form, MCP__AUTH_DOC_MAX, NULL);
    int rc = mcp__auth_form_add(&form, "grant_type", "refresh_token");
    if (rc == MCP_OK)
        rc = mcp__auth_form_add(&form, "refresh_token", e->tokens.refresh_token);
    if (rc == MCP_OK && e->resource)
        rc = mcp__auth_form_add(&form, "resource", e->resource);
    if (rc != MCP_OK) {
        mcp_buf_free(&form);
        return rc;
    }
    mcp__auth_token_request tr = {&e->o, &e->h, &e->as, &e->client, &form, now_s(), dpop_for(e)};
    mcp__auth_tokens t;
    mcp__auth_token_outcome out = mcp__auth_token_post(&tr, &t, why, n);
    mcp_buf_free(&form);
    if (out == MCP__AUTH_TOKEN_OK) {
        say(e, MCP_LOG_INFO, "OAuth: refreshed the token at %s", e->as.issuer);
        return take_tokens(e, &t, e->asked);
    }
    char *spent = strdup(e->tokens.refresh_token);
    rc = MCP_ERR_REMOTE;
    if (out == MCP__AUTH_TOKEN_INVALID_GRANT && tokens_taken_from_storage(e, spent))
        rc = MCP_OK;
    else if (out == MCP__AUTH_TOKEN_INVALID_GRANT)
        tokens_drop(e); /* the refresh token is spent or revoked */
    else if (out == MCP__AUTH_TOKEN_INVALID_CLIENT)
        client_drop(e);
    free(spent);
    return rc;
}

/* The whole flow for a challenge: discovery from scratch (the server may
 * have moved to another authorization server), then a grant. */
static int authorize_now(mcp__oauth *e, const char *resource_metadata,
                         const char *scope_wanted, bool step_up, char *why, size_t n);

static int authorize(mcp__oauth *e, const char *resource_metadata, const char *scope_wanted,
                     bool step_up, char *why, size_t n)
{
    uint64_t now = mcp__now_ms();
    if (now < e->retry_at_ms) {
        snprintf(why, n, "%s (not asked again for %llu ms)", e->error,
                 (unsigned long long)(e->retry_at_ms - now));
        return MCP_ERR_BUSY;
    }
    int rc = authorize_now(e, resource_metadata, scope_wanted, step_up, why, n);
    if (rc == MCP_OK) {
        e->backoff_ms = 0;
        e->retry_at_ms = 0;
    } else {
        e->backoff_ms = e->backoff_ms ? e->backoff_ms * 2 : FLOW_BACKOFF_MS;
        if (e->backoff_ms > FLOW_BACKOFF_MAX_MS)
            e->backoff_ms = FLOW_BACKOFF_MAX_MS;
        e->retry_at_ms = mcp__now_ms() + e->backoff_ms;
        snprintf(e->error, sizeof e->error, "%s", why);
    }
    return rc;
}

static int authorize_now(mcp__oauth *e, const char *resource_metadata, const char *scope_wanted,
                         bool step_up, char *why, size_t n)
{
    int rc = MCP_OK;
    if (!step_up || !e->have_as) {
        rc = find_prm(e, resource_metadata, why, n);
        if (rc == MCP_ERR_NOT_FOUND) {
            if (e->have_prm)
                mcp__auth_prm_free(&e->prm);
            e->have_prm = false;
            rc = find_legacy_as(e, why, n);
        } else if (rc == MCP_OK) {
            rc = find_as(e, e->prm.servers[0], why, n);
        }
        if (rc != MCP_OK)
            return rc;
    }
    char *before = NULL;
    if (step_up) {
        /* The union of what was asked and granted, and what is wanted now
         * (2026-07-28): a step up never loses a scope. */
        mcp_buf b;
        mcp_buf_init(&b, MCP__AUTH_DOC_MAX, NULL);
        const char *parts[] = {e->asked, e->have_tokens ? e->tokens.scope : NULL};
        for (size_t i = 0; i < 2; i++)
            if (parts[i] && *parts[i] && (!b.len || mcp_buf_append(&b, " ", 1) == MCP_OK))
                mcp_buf_append(&b, parts[i], strlen(parts[i]));
        before = b.len ? strdup(b.data) : NULL;
        mcp_buf_free(&b);
    }
    char *scope = NULL, *own = NULL;
    /* offline_access asks for a refresh token, which only a user's grant
     * gets: a machine's (client credentials, RFC 6749 section 4.4.3) or a
     * workload's asks for a new token instead, and an authorization server
     * may refuse the scope to it. */
    bool want_refresh = e->o.offline_access && e->o.grant == MCP_OAUTH_AUTHORIZATION_CODE;
    rc = mcp__auth_scopes_to_ask(scope_wanted, e->have_prm ? e->prm.scopes : NULL, e->as.scopes,
                                 before, want_refresh, &scope);
    free(before);
    /* The application's own scopes, besides (a union, as a step up). */
    if (rc == MCP_OK && e->o.scope && *e->o.scope &&
        (rc = mcp__auth_scopes_to_ask(e->o.scope, NULL, NULL, scope, false, &own)) == MCP_OK) {
        free(scope);
        scope = own;
    }
    if (rc == MCP_OK)
        rc = obtain(e, scope, why, n);
    free(scope);
    return rc;
}

/* The transport's hooks ----------------------------------------------------------- */

static int add_line(int (*add)(void *, const char *), void *add_ud, const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *line = malloc(n);
    if (!line)
        return MCP_ERR_NOMEM;
    snprintf(line, n, "%s%s", a, b);
    int rc = add(add_ud, line);
    free(line);
    return rc;
}

/* The time one hook's work may take in all (its exchanges share it; the
 * user's step is the application's to bound). */
static void flow_begins(mcp__oauth *e)
{
    e->h.deadline_ms = mcp__now_ms() + (e->h.timeout_ms ? e->h.timeout_ms : 30000);
}

static void on_headers(void *ud, const char *http_method, const char *url,
                       int (*add)(void *, const char *), void *add_ud, unsigned *generation)
{
    mcp__oauth *e = ud;
    flow_begins(e);
    /* Ahead of the expiry by REFRESH_AHEAD_S, or a quarter of the token's
     * life when that is shorter (a token good for 3 s is not refreshed at
     * every request). */
    int64_t life = e->tokens.expires_at - e->tokens.issued_at;
    int64_t ahead = life > 0 && life / 4 < REFRESH_AHEAD_S ? life / 4 : REFRESH_AHEAD_S;
    if (e->have_tokens && e->tokens.expires_at && now_s() >= e->tokens.expires_at - ahead) {
        char why[256];
        if (e->tokens.refresh_token && refresh(e, why, sizeof why) != MCP_OK)
            say(e, MCP_LOG_INFO, "OAuth: the refresh failed: %s", why);
        /* A machine has no refresh token (RFC 6749 section 4.4.3) and
         * no user to wait for: it asks for a new token, the whole flow
         * (the server may have moved), keeping the old one until then. A
         * server's clock skew may still take the old one; ours is not
         * bet on. */
        else if (!e->tokens.refresh_token && e->o.grant == MCP_OAUTH_CLIENT_CREDENTIALS &&
                 authorize(e, NULL, NULL, false, why, sizeof why) != MCP_OK)
            say(e, MCP_LOG_INFO, "OAuth: a new token could not be had: %s", why);
    }
    *generation = e->generation;
    if (!e->have_tokens)
        return;
    if (!e->tokens.dpop) {
        add_line(add, add_ud, "Authorization: Bearer ", e->tokens.access_token);
        return;
    }
    /* A token bound to the key: presented with a fresh proof of it. */
    mcp_buf proof;
    mcp_buf_init(&proof, 16384, NULL);
    if (mcp__auth_dpop_proof(&e->dpop, http_method, url, e->tokens.access_token,
                             e->dpop.rs_nonce, now_s(), &proof) == MCP_OK) {
        add_line(add, add_ud, "Authorization: DPoP ", e->tokens.access_token);
        add_line(add, add_ud, "DPoP: ", proof.data);
    }
    mcp_buf_free(&proof);
}

static void on_accepted(void *ud, unsigned generation)
{
    mcp__oauth *e = ud;
    if (generation == e->generation && e->proven != generation) {
        e->proven = generation;
        e->unproven_flows = 0;
        e->step_ups = 0;
        e->repeated_ask = false;
    }
}

/* Whether every scope of wanted was asked before. */
static bool asked_all(const mcp__oauth *e, const char *wanted)
{
    for (const char *p = wanted; p && *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len && !mcp__auth_scope_listed(e->asked, p, len))
            return false;
        p += len;
    }
    return true;
}

static bool on_refused(void *ud, long status, const char *www_authenticate, const char *dpop_nonce,
                       unsigned generation, char *why, size_t n)
{
    mcp__oauth *e = ud;
    if (generation != e->generation && e->have_tokens)
        return true; /* credentials newer than the request's: those first */
    flow_begins(e);
    mcp__auth_challenges ch = {0};
    const mcp__auth_challenge *bearer = NULL;
    if (www_authenticate &&
        mcp__auth_challenges_parse(www_authenticate, strlen(www_authenticate), &ch, NULL, 0) ==
            MCP_OK) {
        /* The scheme of the token held first: a server may offer both. */
        const mcp__auth_challenge *dpop = mcp__auth_challenge_find(&ch, "DPoP");
        bearer = mcp__auth_challenge_find(&ch, "Bearer");
        if (dpop && (!bearer || (e->have_tokens && e->tokens.dpop)))
            bearer = dpop;
    }
    const char *error = bearer ? mcp__auth_param_get(bearer, "error") : NULL;
    const char *scope = bearer ? mcp__auth_param_get(bearer, "scope") : NULL;
    const char *metadata = bearer ? mcp__auth_param_get(bearer, "resource_metadata") : NULL;
    int rc = MCP_ERR_STATE;
    why[0] = '\0';
    if (error && !strcmp(error, "use_dpop_nonce") && dpop_nonce && e->have_tokens &&
        e->tokens.dpop) {
        /* RFC 9449 section 9: the same request, a new proof with the nonce. */
        bool same = e->dpop.rs_nonce && !strcmp(e->dpop.rs_nonce, dpop_nonce);
        if (!same && mcp__auth_dpop_set_nonce(&e->dpop.rs_nonce, dpop_nonce) == MCP_OK)
            rc = MCP_OK;
        else
            snprintf(why, n, "the server asks again for the DPoP nonce it was given");
    } else if (status == 403) {
        bool repeat = asked_all(e, scope);
        if (!error || strcmp(error, "insufficient_scope")) {
            snprintf(why, n, "the server forbids it%s%s", error ? ": " : "", error ? error : "");
        } else if (e->step_ups >= STEP_UPS_MAX || (repeat && e->repeated_ask)) {
            snprintf(why, n, "the server still wants scope \"%s\" after %u authorizations for it",
                     scope ? scope : "", e->step_ups);
        } else {
            e->step_ups++;
            e->repeated_ask = e->repeated_ask || repeat;
            say(e, MCP_LOG_INFO, "OAuth: the server wants scope \"%s\": authorizing again",
                scope ? scope : "");
            rc = authorize(e, metadata, scope, true, why, n);
        }
    } else if (status == 401) {
        char rwhy[256];
        /* A refresh first, unless the token refused is one just got here
         * that never worked (a refresh would give the same kind). */
        bool fresh_dud = e->obtained == generation && e->proven != generation;
        if (e->have_tokens && e->tokens.refresh_token && !fresh_dud &&
            refresh(e, rwhy, sizeof rwhy) == MCP_OK) {
            rc = MCP_OK;
        } else if (e->proven != e->generation && e->have_tokens &&
                   e->unproven_flows >= UNPROVEN_MAX) {
            snprintf(why, n, "the server refuses the tokens %s just gave (%u times)",
                     e->have_as ? e->as.issuer : "the authorization server", e->unproven_flows);
        } else {
            if (e->have_tokens && e->proven != e->generation)
                e->unproven_flows++;
            tokens_drop(e);
            rc = authorize(e, metadata, scope, false, why, n);
        }
    } else {
        snprintf(why, n, "HTTP %ld with a challenge this client does not answer", status);
    }
    mcp__auth_challenges_free(&ch);
    if (rc != MCP_OK && why[0])
        snprintf(e->error, sizeof e->error, "%s", why);
    if (rc != MCP_OK)
        say(e, MCP_LOG_WARNING, "OAuth: %s", why[0] ? why : "no authorization");
    return rc == MCP_OK;
}

/* The engine --------------------------------------------------------------------------- */

static bool copy(mcp__oauth *e, size_t *k, const char **field)
{
    if (!*field)
        return true;
    char *c = strdup(*field);
    if (!c)
        return false;
    e->copies[(*k)++] = c;
    *field = c;
    return true;
}

mcp__oauth *mcp__oauth_new(const mcp_oauth_options *o, const char *server_url,
                           const mcp__auth_http *h,
                           void (*log)(void *ud, mcp_log_level level, const char *text),
                           void *log_ud, char *why, size_t n)
{
    mcp__oauth *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(why, n, "out of memory");
        return NULL;
    }
    size_t size = o->size < sizeof e->o ? o->size : sizeof e->o;
    memcpy(&e->o, o, size);
    e->o.size = sizeof e->o;
    size_t k = 0;
    bool ok = copy(e, &k, &e->o.client_id) && copy(e, &k, &e->o.client_secret) &&
              copy(e, &k, &e->o.client_issuer) && copy(e, &k, &e->o.client_private_key_pem) &&
              copy(e, &k, &e->o.client_key_id) && copy(e, &k, &e->o.client_metadata_url) &&
              copy(e, &k, &e->o.client_name) && copy(e, &k, &e->o.redirect_uri) &&
              copy(e, &k, &e->o.scope) && copy(e, &k, &e->o.assertion) &&
              copy(e, &k, &e->o.identity_token) && copy(e, &k, &e->o.idp_token_endpoint) &&
              copy(e, &k, &e->o.idp_client_id) && copy(e, &k, &e->o.idp_client_secret);
    const char *unusable =
        (e->o.grant == MCP_OAUTH_JWT_BEARER || e->o.grant == MCP_OAUTH_ENTERPRISE ||
         e->o.grant == MCP_OAUTH_CLIENT_CREDENTIALS) && !e->o.client_id
            ? "this grant needs the client's client_id"
        : e->o.grant == MCP_OAUTH_JWT_BEARER && !e->o.assertion ? "the JWT bearer grant needs an assertion"
        : e->o.grant == MCP_OAUTH_ENTERPRISE && (!e->o.identity_token || !e->o.idp_token_endpoint)
            ? "enterprise-managed authorization needs identity_token and idp_token_endpoint"
        : e->o.grant > MCP_OAUTH_ENTERPRISE ? "an unknown grant"
                                            : NULL;
    if (ok && unusable) {
        mcp__oauth_free(e);
        snprintf(why, n, "OAuth options: %s", unusable);
        return NULL;
    }
    e->server_url = strdup(server_url);
    e->ca_file = h->ca_file ? strdup(h->ca_file) : NULL;
    if (!ok || !e->server_url || (h->ca_file && !e->ca_file)) {
        mcp__oauth_free(e);
        snprintf(why, n, "out of memory");
        return NULL;
    }
    e->h = *h;
    e->h.ca_file = e->ca_file;
    e->log = log;
    e->log_ud = log_ud;
    e->hooks = (mcp__http_client_auth){on_headers, on_refused, on_accepted, e};
    tokens_load(e);
    return e;
}

void mcp__oauth_free(mcp__oauth *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < sizeof e->copies / sizeof e->copies[0]; i++)
        free(e->copies[i]);
    if (e->have_prm)
        mcp__auth_prm_free(&e->prm);
    as_drop(e);
    if (e->have_tokens)
        mcp__auth_tokens_free(&e->tokens);
    free(e->resource);
    free(e->token_issuer);
    free(e->final_error);
    mcp__auth_dpop_free(&e->dpop);
    free(e->asked);
    free(e->server_url);
    free(e->ca_file);
    free(e);
}

const mcp__http_client_auth *mcp__oauth_hooks(mcp__oauth *e)
{
    return &e->hooks;
}

const char *mcp__oauth_error(const mcp__oauth *e)
{
    return e->error;
}
