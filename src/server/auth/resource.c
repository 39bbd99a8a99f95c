/* SPDX-License-Identifier: MIT */
/*
 * The resource server's decisions (auth.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "mcp/json.h"
#include "server/auth/auth.h"
#include "transport/http_auth.h"

/* RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" /
 * "~" / "+" / "/" ) *"=" */
static bool b64token(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == '-' || s[i] == '.' || s[i] == '_' || s[i] == '~' || s[i] == '+' ||
                     s[i] == '/' || (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
                     (s[i] >= 'A' && s[i] <= 'Z')))
        i++;
    if (!i)
        return false;
    while (i < n && s[i] == '=')
        i++;
    return i == n;
}

static bool has_scope(const char *list, const char *word)
{
    return mcp__auth_scope_listed(list, word, strlen(word));
}

/* Every scope needed, space-separated, into out (each once). */
static int needed(const mcp__resource_config *c, const char *const *more, mcp_buf *out)
{
    const char *const *lists[] = {c->scopes, more};
    int rc = MCP_OK;
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; rc == MCP_OK && lists[l] && lists[l][i]; i++) {
            if (has_scope(out->data, lists[l][i]))
                continue;
            if (out->len)
                rc = mcp_buf_append(out, " ", 1);
            if (rc == MCP_OK)
                rc = mcp_buf_append(out, lists[l][i], strlen(lists[l][i]));
        }
    return rc;
}

/* v's status and challenge: Bearer [error, error_description],
 * resource_metadata, scope. */
static int refuse(mcp__resource_verdict *v, int status, const mcp__resource_config *c,
                  const char *error, const char *description, const char *scopes)
{
    v->status = status;
    snprintf(v->why, sizeof v->why, "%s", description ? description : "no bearer token given");
    mcp_buf b;
    mcp_buf_init(&b, sizeof v->challenge - 1, NULL);
    int rc = mcp_buf_append(&b, "Bearer", 6);
    bool first = true;
    const char *names[] = {"error", "error_description", "resource_metadata", "scope"};
    const char *values[] = {error, error ? description : NULL, c->metadata_url,
                            scopes && *scopes ? scopes : NULL};
    for (int i = 0; rc == MCP_OK && i < 4; i++) {
        if (!values[i])
            continue;
        rc = mcp__auth_param_write(&b, first, names[i], values[i]);
        /* A value the header cannot carry is left out, not the challenge. */
        if (rc == MCP_ERR_INVALID_ARG)
            rc = MCP_OK;
        else
            first = false;
    }
    if (rc == MCP_OK)
        snprintf(v->challenge, sizeof v->challenge, "%s", b.data);
    else
        snprintf(v->challenge, sizeof v->challenge, "Bearer");
    mcp_buf_free(&b);
    return rc == MCP_ERR_NOMEM ? rc : MCP_OK;
}

/* The token of a Bearer header (n bytes), or NULL with v filled: no
 * header or another scheme, 401; not one b64token, 400. */
static const char *bearer_token(const mcp__resource_config *c, const char *a, const char *all,
                                size_t *n, mcp__resource_verdict *v, int *rc)
{
    if (!a || strncasecmp(a, "Bearer", 6) || (a[6] != ' ' && a[6] != '\0')) {
        *rc = refuse(v, 401, c, NULL, NULL, all);
        return NULL;
    }
    const char *token = a + 6;
    while (*token == ' ')
        token++;
    *n = strlen(token);
    while (*n && (token[*n - 1] == ' ' || token[*n - 1] == '\t'))
        (*n)--;
    if (!b64token(token, *n)) {
        *rc = refuse(v, 400, c, "invalid_request",
                     "the Authorization header is not one bearer token (RFC 6750)", all);
        return NULL;
    }
    *rc = MCP_OK;
    return token;
}

int mcp__resource_bearer(const mcp__resource_config *c, const char *authorization,
                         const char **token, size_t *n, mcp__resource_verdict *v)
{
    memset(v, 0, sizeof *v);
    mcp_buf scopes;
    mcp_buf_init(&scopes, 4096, NULL);
    int rc = needed(c, NULL, &scopes);
    if (rc == MCP_OK)
        *token = bearer_token(c, authorization, scopes.data, n, v, &rc);
    else
        v->status = 401;
    mcp_buf_free(&scopes);
    return rc;
}

int mcp__resource_refused(const mcp__resource_config *c, const char *why,
                          mcp__resource_verdict *v)
{
    memset(v, 0, sizeof *v);
    mcp_buf scopes;
    mcp_buf_init(&scopes, 4096, NULL);
    int rc = needed(c, NULL, &scopes);
    if (rc == MCP_OK)
        rc = refuse(v, 401, c, "invalid_token", why, scopes.data);
    v->status = 401;
    mcp_buf_free(&scopes);
    return rc;
}

int mcp__resource_introspected(const mcp__resource_config *c, const char *json, size_t len,
                               int64_t now_s, unsigned ttl_s, mcp__resource_verdict *v,
                               char **principal, char **scope, int64_t *until_s)
{
    memset(v, 0, sizeof *v);
    *principal = *scope = NULL;
    *until_s = now_s + MCP__INTROSPECT_INACTIVE_S;
    mcp_json_doc *d = NULL;
    int rc = mcp_json_parse(json, len, NULL, NULL, &d, NULL);
    const mcp_json *o = rc == MCP_OK ? mcp_json_doc_root(d) : NULL;
    if (rc == MCP_ERR_NOMEM || mcp_json_typeof(o) != MCP_JSON_OBJECT) {
        mcp_json_doc_free(d);
        snprintf(v->why, sizeof v->why, "the introspection answer is not a JSON object");
        return rc == MCP_ERR_NOMEM ? rc : MCP_ERR_INVALID_ARG;
    }
    const char *audience = c->audience ? c->audience : c->resource;
    unsigned skew = c->skew_s ? c->skew_s : 60;
    int64_t exp = 0, nbf = 0;
    const mcp_json *jexp = mcp_json_object_get(o, "exp"), *jnbf = mcp_json_object_get(o, "nbf");
    bool has_exp = jexp && mcp_json_get_int64(jexp, &exp) == MCP_OK;
    bool has_nbf = jnbf && mcp_json_get_int64(jnbf, &nbf) == MCP_OK;
    bool active = false;
    if (mcp_json_get_bool(mcp_json_object_get(o, "active"), &active) != MCP_OK)
        active = false;
    size_t il = 0, sl = 0, ul = 0, scl = 0;
    const mcp_json *jiss = mcp_json_object_get(o, "iss"), *jaud = mcp_json_object_get(o, "aud");
    const char *iss = mcp_json_string(jiss, &il);
    const char *sub = mcp_json_string(mcp_json_object_get(o, "sub"), &sl);
    /* Not username: a display name, not unique (RFC 7662 section 2.2),
     * whose principal could be another user's sub. */
    const char *sc = mcp_json_string(mcp_json_object_get(o, "scope"), &scl);
    /* Absent, nothing says the token is for this server: refused (an
     * opaque token's audience is checked here or nowhere). */
    bool aud_ok = false;
    if (mcp_json_typeof(jaud) == MCP_JSON_STRING) {
        const char *a = mcp_json_string(jaud, &ul);
        aud_ok = ul == strlen(audience) && !memcmp(a, audience, ul);
    }
    for (size_t i = 0; mcp_json_typeof(jaud) == MCP_JSON_ARRAY && i < mcp_json_array_size(jaud);
         i++) {
        const char *a = mcp_json_string(mcp_json_array_at(jaud, i), &ul);
        aud_ok |= a && ul == strlen(audience) && !memcmp(a, audience, ul);
    }
    const char *bad =
        !active ? "the authorization server says the token is not active"
        : jexp && !has_exp                  ? "the token's exp is not a number"
        : has_exp && exp < now_s - (int64_t)skew ? "the token has expired"
        : jnbf && !has_nbf                  ? "the token's nbf is not a number"
        : has_nbf && nbf > now_s + (int64_t)skew ? "the token is not valid yet (nbf)"
        : jiss && (!iss || il != strlen(c->issuer) || memcmp(iss, c->issuer, il))
            ? "the token is from another issuer"
        : !aud_ok                            ? "the token is for another audience"
        : !sub || !sl || memchr(sub, '\0', sl) ? "the token names no subject (sub)"
        : sc && memchr(sc, '\0', scl)        ? "the token's scope has a NUL character"
                                             : NULL;
    if (bad) {
        mcp_json_doc_free(d);
        return mcp__resource_refused(c, bad, v);
    }
    *until_s = now_s + (ttl_s ? ttl_s : 60);
    if (has_exp && exp < *until_s)
        *until_s = exp; /* kept no longer than the token is good */
    size_t pn = strlen(c->issuer) + sl + 2;
    *principal = malloc(pn);
    *scope = sc ? strndup(sc, scl) : NULL;
    if (!*principal || (sc && !*scope)) {
        free(*principal);
        free(*scope);
        *principal = *scope = NULL;
        mcp_json_doc_free(d);
        v->status = 401;
        return MCP_ERR_NOMEM;
    }
    snprintf(*principal, pn, "%s %.*s", c->issuer, (int)sl, sub);
    mcp_json_doc_free(d);
    rc = mcp__resource_scope_check(c, *scope, NULL, v);
    return rc;
}

/* The first scope of c->scopes and more that granted lacks: 403
 * insufficient_scope naming all of them (all: every scope needed). */
static int lacking(const mcp__resource_config *c, const char *granted, const char *const *more,
                   const char *all, mcp__resource_verdict *v)
{
    const char *const *lists[] = {c->scopes, more};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; lists[l] && lists[l][i]; i++)
            if (!granted || !has_scope(granted, lists[l][i])) {
                char text[200];
                snprintf(text, sizeof text, "the token lacks the scope %.120s", lists[l][i]);
                return refuse(v, 403, c, "insufficient_scope", text, all);
            }
    return MCP_OK;
}

int mcp__resource_check(const mcp__resource_config *c, const mcp__jwks *keys,
                        const char *authorization, int64_t now_s, const char *const *more,
                        mcp__resource_verdict *v)
{
    memset(v, 0, sizeof *v);
    mcp_buf scopes;
    mcp_buf_init(&scopes, 4096, NULL);
    int rc = needed(c, more, &scopes);
    if (rc != MCP_OK) {
        mcp_buf_free(&scopes);
        v->status = 401;
        snprintf(v->challenge, sizeof v->challenge, "Bearer");
        return rc;
    }
    size_t n;
    const char *token = bearer_token(c, authorization, scopes.data, &n, v, &rc);
    if (!token) {
        mcp_buf_free(&scopes);
        return rc;
    }
    mcp__jwt_expect e = {.issuer = c->issuer,
                         .audience = c->audience ? c->audience : c->resource,
                         .now_s = now_s,
                         .skew_s = c->skew_s ? c->skew_s : 60,
                         .access_token = true};
    char why[200] = "";
    mcp__jwt_verdict jv = mcp__jwt_check(token, n, keys, &e, &v->claims, why, sizeof why);
    if (jv == MCP__JWT_NOMEM) {
        mcp_buf_free(&scopes);
        v->status = 401;
        snprintf(v->challenge, sizeof v->challenge, "Bearer");
        return MCP_ERR_NOMEM;
    }
    if (jv != MCP__JWT_OK) {
        v->refetch_keys = jv == MCP__JWT_UNKNOWN_KEY;
        rc = refuse(v, 401, c, "invalid_token", why, scopes.data);
        mcp_buf_free(&scopes);
        return rc;
    }
    rc = lacking(c, v->claims.scope, more, scopes.data, v);
    if (v->status)
        mcp__jwt_claims_free(&v->claims);
    mcp_buf_free(&scopes);
    return rc;
}

int mcp__resource_scope_check(const mcp__resource_config *c, const char *granted,
                              const char *const *more, mcp__resource_verdict *v)
{
    v->status = 0;
    v->challenge[0] = v->why[0] = '\0';
    mcp_buf scopes;
    mcp_buf_init(&scopes, 4096, NULL);
    int rc = needed(c, more, &scopes);
    if (rc == MCP_OK)
        rc = lacking(c, granted, more, scopes.data, v);
    else {
        v->status = 403;
        snprintf(v->challenge, sizeof v->challenge, "Bearer error=\"insufficient_scope\"");
        snprintf(v->why, sizeof v->why, "out of memory");
    }
    mcp_buf_free(&scopes);
    return rc;
}

/* The path of an absolute URL without query or fragment, or NULL. */
static const char *path_of(const char *url)
{
    const char *p = url ? strstr(url, "://") : NULL;
    if (!p || p == url || strpbrk(url, "?#"))
        return NULL;
    p += 3;
    const char *slash = strchr(p, '/');
    if (slash == p)
        return NULL; /* no host */
    return slash ? slash : "";
}

int mcp__resource_metadata_path(const mcp__resource_config *c, mcp_buf *out)
{
    const char *path = path_of(c->resource);
    if (!path)
        return MCP_ERR_INVALID_ARG;
    size_t n = strlen(path);
    while (n && path[n - 1] == '/')
        n--;
    size_t start = out->len;
    int rc = mcp_buf_append(out, "/.well-known/oauth-protected-resource", 37);
    if (rc == MCP_OK && n)
        rc = mcp_buf_append(out, path, n);
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    return rc;
}

int mcp__resource_metadata_url(const mcp__resource_config *c, mcp_buf *out)
{
    const char *path = path_of(c->resource);
    if (!path)
        return MCP_ERR_INVALID_ARG;
    size_t start = out->len;
    size_t origin = (size_t)(*path ? path - c->resource : (ptrdiff_t)strlen(c->resource));
    int rc = mcp_buf_append(out, c->resource, origin);
    if (rc == MCP_OK)
        rc = mcp__resource_metadata_path(c, out);
    if (rc != MCP_OK)
        mcp__buf_rewind(out, start);
    return rc;
}

static int member(mcp_buf *out, const char *name, const char *value, bool first)
{
    int rc = mcp_buf_append(out, first ? "{" : ",", 1);
    if (rc == MCP_OK)
        rc = mcp_json_write_string(name, strlen(name), out);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, ":", 1);
    if (rc == MCP_OK && value)
        rc = mcp_json_write_string(value, strlen(value), out);
    return rc;
}

int mcp__resource_metadata(const mcp__resource_config *c, mcp_buf *out)
{
    size_t start = out->len;
    int rc = member(out, "resource", c->resource, true);
    if (rc == MCP_OK)
        rc = member(out, "authorization_servers", NULL, false);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, "[", 1);
    if (rc == MCP_OK)
        rc = mcp_json_write_string(c->issuer, strlen(c->issuer), out);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, "]", 1);
    if (rc == MCP_OK && c->scopes && c->scopes[0]) {
        rc = member(out, "scopes_supported", NULL, false);
        for (size_t i = 0; rc == MCP_OK && c->scopes[i]; i++) {
            rc = mcp_buf_append(out, i ? "," : "[", 1);
            if (rc == MCP_OK)
                rc = mcp_json_write_string(c->scopes[i], strlen(c->scopes[i]), out);
        }
        if (rc == MCP_OK)
            rc = mcp_buf_append(out, "]", 1);
    }
    if (rc == MCP_OK)
        rc = member(out, "bearer_methods_supported", NULL, false);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, "[\"header\"]}", 11);
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    return rc;
}
