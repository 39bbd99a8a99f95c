/* SPDX-License-Identifier: MIT */
/*
 * Discovery (auth.h): the well-known URLs in the spec's order, and the
 * documents found there read and checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "client/auth/auth.h"
#include "mcp/json.h"
#include "transport/http_auth.h"
#include "transport/http_headers.h"

static int say(char *why, size_t n, int rc, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
    return rc;
}

/* A URL's parts (curl's, freed by url_free). */
typedef struct url {
    CURLU *u;
    char *scheme, *host, *port, *path, *query, *fragment;
} url;

static void url_free(url *x)
{
    curl_free(x->scheme);
    curl_free(x->host);
    curl_free(x->port);
    curl_free(x->path);
    curl_free(x->query);
    curl_free(x->fragment);
    curl_url_cleanup(x->u);
    memset(x, 0, sizeof *x);
}

/* s read as an absolute http(s) URL: MCP_OK, MCP_ERR_INVALID_ARG or
 * MCP_ERR_NOMEM. */
static int url_read(const char *s, url *x)
{
    memset(x, 0, sizeof *x);
    if (!s || !(x->u = curl_url()))
        return s ? MCP_ERR_NOMEM : MCP_ERR_INVALID_ARG;
    if (curl_url_set(x->u, CURLUPART_URL, s, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
        curl_url_get(x->u, CURLUPART_SCHEME, &x->scheme, 0) != CURLUE_OK ||
        curl_url_get(x->u, CURLUPART_HOST, &x->host, 0) != CURLUE_OK ||
        curl_url_get(x->u, CURLUPART_PORT, &x->port, CURLU_DEFAULT_PORT) != CURLUE_OK ||
        curl_url_get(x->u, CURLUPART_PATH, &x->path, 0) != CURLUE_OK ||
        (strcasecmp(x->scheme, "https") && strcasecmp(x->scheme, "http"))) {
        url_free(x);
        return MCP_ERR_INVALID_ARG;
    }
    curl_url_get(x->u, CURLUPART_QUERY, &x->query, 0);
    curl_url_get(x->u, CURLUPART_FRAGMENT, &x->fragment, 0);
    return MCP_OK;
}

static bool secure_enough(const url *x)
{
    return !strcasecmp(x->scheme, "https") ||
           mcp__http_loopback_name(x->host, strlen(x->host));
}

/* x with its path set to path and query as given (NULL: none), no
 * fragment: the URL text, malloc'd, or NULL. */
static char *url_with(url *x, const char *path, const char *query)
{
    char *out = NULL, *text = NULL;
    if (curl_url_set(x->u, CURLUPART_PATH, path, 0) == CURLUE_OK &&
        curl_url_set(x->u, CURLUPART_QUERY, query, 0) == CURLUE_OK &&
        curl_url_set(x->u, CURLUPART_FRAGMENT, NULL, 0) == CURLUE_OK &&
        curl_url_get(x->u, CURLUPART_URL, &text, 0) == CURLUE_OK)
        out = strdup(text);
    curl_free(text);
    return out;
}

/* The path without its terminating slashes ("" for the root). */
static size_t path_len(const char *path)
{
    size_t n = strlen(path);
    while (n && path[n - 1] == '/')
        n--;
    return n;
}

void mcp__auth_urls_free(mcp__auth_urls *u)
{
    for (size_t i = 0; i < u->count; i++)
        free(u->url[i]);
    memset(u, 0, sizeof *u);
}

/* Add suffix + path (and path + suffix when appended) to out. */
static int add(mcp__auth_urls *out, url *x, const char *before, const char *path, size_t plen,
               const char *after, const char *query)
{
    size_t n = strlen(before) + plen + strlen(after) + 1;
    char *p = malloc(n);
    if (!p)
        return MCP_ERR_NOMEM;
    snprintf(p, n, "%s%.*s%s", before, (int)plen, path, after);
    char *u = url_with(x, p, query);
    free(p);
    if (!u)
        return MCP_ERR_NOMEM;
    out->url[out->count++] = u;
    return MCP_OK;
}

int mcp__auth_prm_urls(const char *server_url, mcp__auth_urls *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    url x;
    int rc = url_read(server_url, &x);
    if (rc != MCP_OK)
        return say(why, n, rc, "the server's URL is not an http or https URL");
    size_t plen = path_len(x.path);
    char *query = x.query ? strdup(x.query) : NULL;
    if (x.query && !query)
        rc = MCP_ERR_NOMEM;
    if (rc == MCP_OK && plen)
        rc = add(out, &x, "/.well-known/oauth-protected-resource", x.path, plen, "", query);
    if (rc == MCP_OK)
        rc = add(out, &x, "/.well-known/oauth-protected-resource", "", 0, "", NULL);
    free(query);
    url_free(&x);
    if (rc != MCP_OK)
        mcp__auth_urls_free(out);
    return rc;
}

int mcp__auth_as_metadata_urls(const char *issuer, mcp__auth_urls *out, char *why, size_t n)
{
    /* The resource server looks for its issuer's key set the same way:
     * one rule, in transport/http_auth.c. */
    memset(out, 0, sizeof *out);
    return mcp__auth_issuer_metadata_urls(issuer, out->url, &out->count, why, n);
}

/* Documents ---------------------------------------------------------------- */

int mcp__auth_parse_object(const char *json, size_t len, mcp_json_doc **d, const char *what,
                        char *why, size_t n)
{
    if (len > MCP__AUTH_DOC_MAX) {
        if (why && n)
            snprintf(why, n, "the %s is larger than 64 KiB", what);
        return MCP_ERR_LIMIT;
    }
    int rc = mcp_json_parse(json, len, NULL, NULL, d, NULL);
    if (rc == MCP_ERR_NOMEM)
        return rc;
    if (rc != MCP_OK || mcp_json_typeof(mcp_json_doc_root(*d)) != MCP_JSON_OBJECT) {
        mcp_json_doc_free(*d);
        *d = NULL;
        if (why && n)
            snprintf(why, n, "the %s is not a JSON object", what);
        return MCP_ERR_INVALID_ARG;
    }
    return MCP_OK;
}

/* A string member without NUL bytes, or NULL. */
const char *mcp__auth_text(const mcp_json *o, const char *name)
{
    size_t len;
    const char *s = mcp_json_string(mcp_json_object_get(o, name), &len);
    return s && !memchr(s, '\0', len) ? s : NULL;
}

/* An array of strings joined by spaces (*out NULL when absent): false when
 * present but not an array of strings without spaces. */
static bool joined(const mcp_json *o, const char *name, char **out, bool *nomem)
{
    const mcp_json *a = mcp_json_object_get(o, name);
    *out = NULL;
    if (!a)
        return true;
    if (mcp_json_typeof(a) != MCP_JSON_ARRAY || mcp_json_array_size(a) > MCP__AUTH_LIST_MAX * 4)
        return false;
    mcp_buf b;
    mcp_buf_init(&b, MCP__AUTH_DOC_MAX, NULL);
    bool ok = true;
    for (size_t i = 0; ok && i < mcp_json_array_size(a); i++) {
        size_t len;
        const char *s = mcp_json_string(mcp_json_array_at(a, i), &len);
        ok = s && len && !memchr(s, '\0', len) && !strpbrk(s, " \t\r\n");
        if (ok && ((i && mcp_buf_append(&b, " ", 1) != MCP_OK) ||
                   mcp_buf_append(&b, s, len) != MCP_OK))
            *nomem = true;
    }
    if (ok && !*nomem && !(*out = strdup(b.data ? b.data : "")))
        *nomem = true;
    mcp_buf_free(&b);
    return ok;
}

bool mcp__auth_listed(const mcp_json *o, const char *name, const char *want)
{
    const mcp_json *a = mcp_json_object_get(o, name);
    for (size_t i = 0; i < mcp_json_array_size(a); i++) {
        const char *s = mcp_json_string(mcp_json_array_at(a, i), NULL);
        if (s && !strcmp(s, want))
            return true;
    }
    return false;
}

/* Whether resource names the server at server_url: the same origin, and a
 * path that is the server's or a parent of it (at a '/'). */
static bool names_server(const char *resource, const char *server_url)
{
    url r, s;
    /* An authority right after "scheme://": curl would take
     * "https:///host" for "https://host", and the resource is sent on as
     * it is written. */
    const char *sep = strstr(resource, "://");
    if (!sep || sep[3] == '/' || sep[3] == '\0' || url_read(resource, &r) != MCP_OK)
        return false;
    bool ok = false;
    if (url_read(server_url, &s) == MCP_OK) {
        size_t rl = path_len(r.path), sl = path_len(s.path);
        ok = !strcasecmp(r.scheme, s.scheme) && !strcasecmp(r.host, s.host) &&
             !strcmp(r.port, s.port) && rl <= sl && !strncmp(r.path, s.path, rl) &&
             (rl == sl || s.path[rl] == '/') && !r.fragment;
        url_free(&s);
    }
    url_free(&r);
    return ok;
}

static bool endpoint_ok(const char *s)
{
    url x;
    if (url_read(s, &x) != MCP_OK)
        return false;
    bool ok = secure_enough(&x) && !x.fragment;
    url_free(&x);
    return ok;
}

void mcp__auth_prm_free(mcp__auth_prm *p)
{
    free(p->resource);
    for (size_t i = 0; i < p->nservers; i++)
        free(p->servers[i]);
    free(p->scopes);
    memset(p, 0, sizeof *p);
}

int mcp__auth_prm_read(const char *json, size_t len, const char *server_url, mcp__auth_prm *out,
                       char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    mcp_json_doc *d = NULL;
    int rc = mcp__auth_parse_object(json, len, &d, "protected resource metadata", why, n);
    if (rc != MCP_OK)
        return rc;
    const mcp_json *o = mcp_json_doc_root(d);
    const char *resource = mcp__auth_text(o, "resource");
    const mcp_json *servers = mcp_json_object_get(o, "authorization_servers");
    bool nomem = false;
    if (!resource)
        rc = say(why, n, MCP_ERR_INVALID_ARG, "the protected resource metadata has no resource");
    else if (!names_server(resource, server_url))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "the protected resource metadata is for another resource than this server: "
                 "no token is asked for it");
    else if (!mcp_json_array_size(servers))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "the protected resource metadata lists no authorization server");
    else if (mcp_json_array_size(servers) > MCP__AUTH_LIST_MAX)
        rc = say(why, n, MCP_ERR_LIMIT, "the protected resource metadata lists over 64 servers");
    else if (!joined(o, "scopes_supported", &out->scopes, &nomem))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "scopes_supported is not an array of scopes (strings without spaces)");
    for (size_t i = 0; rc == MCP_OK && !nomem && i < mcp_json_array_size(servers); i++) {
        const char *s = mcp_json_string(mcp_json_array_at(servers, i), NULL);
        if (!s || !endpoint_ok(s))
            rc = say(why, n, MCP_ERR_INVALID_ARG,
                     "an authorization server that is not an https URL (http only on a "
                     "loopback host)");
        else if (!(out->servers[out->nservers++] = strdup(s)))
            nomem = true;
    }
    if (rc == MCP_OK && !nomem && !(out->resource = strdup(resource)))
        nomem = true;
    mcp_json_doc_free(d);
    if (nomem && rc == MCP_OK)
        rc = MCP_ERR_NOMEM;
    if (rc != MCP_OK)
        mcp__auth_prm_free(out);
    return rc;
}

void mcp__auth_server_free(mcp__auth_server *s)
{
    free(s->issuer);
    free(s->authorization_endpoint);
    free(s->token_endpoint);
    free(s->registration_endpoint);
    free(s->jwks_uri);
    free(s->introspection_endpoint);
    free(s->scopes);
    memset(s, 0, sizeof *s);
}

/* An endpoint member copied when present: false when it is present and
 * not a string, or not https (http on loopback). */
static bool endpoint(const mcp_json *o, const char *name, char **out, bool *nomem)
{
    const mcp_json *v = mcp_json_object_get(o, name);
    if (!v)
        return true;
    const char *s = mcp__auth_text(o, name);
    if (!s || !endpoint_ok(s))
        return false;
    if (!(*out = strdup(s)))
        *nomem = true;
    return true;
}

static int server_read(const char *json, size_t len, const char *issuer,
                       mcp__auth_server *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    mcp_json_doc *d = NULL;
    int rc = mcp__auth_parse_object(json, len, &d, "authorization server metadata", why, n);
    if (rc != MCP_OK)
        return rc;
    const mcp_json *o = mcp_json_doc_root(d);
    const char *iss = mcp__auth_text(o, "issuer");
    bool nomem = false;
    static const char *const methods[] = {"client_secret_basic", "client_secret_post", "none",
                                          "private_key_jwt"};
    if (!issuer && iss)
        issuer = iss; /* the 2025-03-26 fallback: nobody named it */
    if (!iss || !issuer || strcmp(iss, issuer))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "the authorization server metadata names another issuer than the one asked "
                 "(RFC 8414 section 3.3): not used");
    else if (!mcp__auth_text(o, "authorization_endpoint") || !mcp__auth_text(o, "token_endpoint"))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "the authorization server metadata lacks its authorization or token endpoint");
    else if (!endpoint(o, "authorization_endpoint", &out->authorization_endpoint, &nomem) ||
             !endpoint(o, "token_endpoint", &out->token_endpoint, &nomem) ||
             !endpoint(o, "registration_endpoint", &out->registration_endpoint, &nomem) ||
             !endpoint(o, "jwks_uri", &out->jwks_uri, &nomem) ||
             !endpoint(o, "introspection_endpoint", &out->introspection_endpoint, &nomem))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "an endpoint of the authorization server is not an https URL (http only on a "
                 "loopback host)");
    else if (mcp_json_object_get(o, "response_types_supported") &&
             !mcp__auth_listed(o, "response_types_supported", "code"))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "the authorization server does not support the authorization code flow");
    else if (!joined(o, "scopes_supported", &out->scopes, &nomem))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "scopes_supported is not an array of scopes (strings without spaces)");
    if (rc == MCP_OK && !nomem) {
        out->s256 = mcp__auth_listed(o, "code_challenge_methods_supported", "S256");
        out->dpop_es256 = mcp__auth_listed(o, "dpop_signing_alg_values_supported", "ES256");
        out->jwt_bearer = mcp__auth_listed(o, "grant_types_supported",
                                           "urn:ietf:params:oauth:grant-type:jwt-bearer");
        bool cimd = false;
        out->client_id_metadata_documents =
            mcp_json_get_bool(mcp_json_object_get(o, "client_id_metadata_document_supported"),
                              &cimd) == MCP_OK &&
            cimd;
        for (unsigned i = 0; i < 4; i++)
            if (mcp__auth_listed(o, "token_endpoint_auth_methods_supported", methods[i]))
                out->auth_methods |= 1u << i;
        if (!mcp_json_object_get(o, "token_endpoint_auth_methods_supported"))
            out->auth_methods = MCP__AUTH_METHOD_BASIC; /* RFC 8414's default */
        bool iss_param = false;
        out->iss_advertised =
            mcp_json_get_bool(mcp_json_object_get(o, "authorization_response_iss_parameter_supported"),
                              &iss_param) == MCP_OK &&
            iss_param;
        if (!(out->issuer = strdup(iss)))
            nomem = true;
    }
    mcp_json_doc_free(d);
    if (nomem && rc == MCP_OK)
        rc = MCP_ERR_NOMEM;
    if (rc != MCP_OK)
        mcp__auth_server_free(out);
    return rc;
}

int mcp__auth_server_read(const char *json, size_t len, const char *issuer,
                          mcp__auth_server *out, char *why, size_t n)
{
    if (!issuer) {
        memset(out, 0, sizeof *out);
        return say(why, n, MCP_ERR_INVALID_ARG, "no issuer to check the metadata against");
    }
    return server_read(json, len, issuer, out, why, n);
}

int mcp__auth_legacy_server_read(const char *json, size_t len, const char *origin,
                                 mcp__auth_server *out, bool *renamed, char *why, size_t n)
{
    int rc = server_read(json, len, NULL, out, why, n);
    *renamed = false;
    if (rc != MCP_OK)
        return rc;
    /* Found at the origin, named by nobody: the server is the origin,
     * whatever issuer the document claims. A claim of another server's
     * issuer would otherwise be shown that server's credentials (a
     * client_issuer's secret, a registration kept for it) and get client
     * assertions addressed to it, replayable there; 2025-03-26's own
     * servers named a path of the origin (conformance 0.1.16: /oauth). */
    size_t ol = strlen(origin);
    *renamed = strncmp(out->issuer, origin, ol) || (out->issuer[ol] && strcmp(out->issuer + ol, "/"));
    char *mine = strdup(origin);
    if (!mine) {
        mcp__auth_server_free(out);
        return MCP_ERR_NOMEM;
    }
    free(out->issuer);
    out->issuer = mine;
    out->legacy = true;
    return MCP_OK;
}

int mcp__auth_legacy_base(const char *server_url, char **origin, char *why, size_t n)
{
    url x;
    *origin = NULL;
    if (url_read(server_url, &x) != MCP_OK || !secure_enough(&x)) {
        url_free(&x);
        return say(why, n, MCP_ERR_INVALID_ARG, "the server's URL is not an https URL");
    }
    *origin = url_with(&x, "", NULL);
    url_free(&x);
    if (!*origin)
        return MCP_ERR_NOMEM;
    size_t len = strlen(*origin);
    if (len && (*origin)[len - 1] == '/')
        (*origin)[len - 1] = '\0';
    return MCP_OK;
}

int mcp__auth_legacy_server_default(const char *origin, mcp__auth_server *out)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(origin) + 16;
    out->issuer = strdup(origin);
    out->authorization_endpoint = malloc(n);
    out->token_endpoint = malloc(n);
    out->registration_endpoint = malloc(n);
    if (!out->issuer || !out->authorization_endpoint || !out->token_endpoint ||
        !out->registration_endpoint) {
        mcp__auth_server_free(out);
        return MCP_ERR_NOMEM;
    }
    snprintf(out->authorization_endpoint, n, "%s/authorize", origin);
    snprintf(out->token_endpoint, n, "%s/token", origin);
    snprintf(out->registration_endpoint, n, "%s/register", origin);
    out->s256 = true; /* PKCE is sent: nothing says the server cannot take it */
    out->auth_methods = MCP__AUTH_METHOD_BASIC | MCP__AUTH_METHOD_POST | MCP__AUTH_METHOD_NONE;
    out->legacy = true;
    return MCP_OK;
}
