/* SPDX-License-Identifier: MIT */
/*
 * The authorization code flow's pieces (auth.h), sans-I/O: PKCE and state,
 * the authorization URL, the redirect read (RFC 9207 before anything
 * else), token responses, the scopes to ask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/rand.h>
#include <openssl/sha.h>

#include "client/auth/auth.h"
#include "core/base64.h"
#include "core/buf.h"
#include "mcp/json.h"
#include "transport/http_auth.h"

static int say(char *why, size_t n, int rc, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
    return rc;
}

/* base64url of len bytes into out (room for it and a NUL). */
static int b64url_into(char *out, size_t room, const unsigned char *bytes, size_t len)
{
    mcp_buf b;
    mcp_buf_init(&b, room - 1, NULL);
    int rc = mcp__base64url_encode(&b, bytes, len);
    if (rc == MCP_OK)
        memcpy(out, b.data, b.len + 1);
    mcp_buf_free(&b);
    return rc;
}

int mcp__auth_pkce_new(mcp__auth_pkce *p)
{
    unsigned char v[32], s[16], h[SHA256_DIGEST_LENGTH];
    if (RAND_bytes(v, sizeof v) != 1 || RAND_bytes(s, sizeof s) != 1)
        return MCP_ERR_IO;
    int rc = b64url_into(p->verifier, sizeof p->verifier, v, sizeof v);
    SHA256((const unsigned char *)p->verifier, strlen(p->verifier), h);
    if (rc == MCP_OK)
        rc = b64url_into(p->challenge, sizeof p->challenge, h, sizeof h);
    if (rc == MCP_OK)
        rc = b64url_into(p->state, sizeof p->state, s, sizeof s);
    return rc;
}

int mcp__auth_authorize_url(const mcp__auth_server *as, const mcp__auth_request *r, mcp_buf *out,
                            char *why, size_t n)
{
    if (!as->authorization_endpoint || !r->client_id || !r->redirect_uri || !r->resource ||
        !r->pkce)
        return say(why, n, MCP_ERR_INVALID_ARG,
                   "an authorization request needs an endpoint, a client_id, a redirect_uri, "
                   "the resource and PKCE");
    if (!as->s256 && !r->without_s256)
        return say(why, n, MCP_ERR_INVALID_ARG,
                   "the authorization server does not advertise PKCE with S256 "
                   "(code_challenge_methods_supported): refused, unless asked to proceed");
    if (strchr(as->authorization_endpoint, '#'))
        return say(why, n, MCP_ERR_INVALID_ARG, "the authorization endpoint has a fragment");
    mcp_buf q;
    mcp_buf_init(&q, out->limit, NULL);
    const char *names[] = {"response_type", "client_id", "redirect_uri", "code_challenge",
                           "code_challenge_method", "state", "resource", "scope"};
    const char *values[] = {"code", r->client_id, r->redirect_uri, r->pkce->challenge, "S256",
                            r->pkce->state, r->resource,
                            r->scope && *r->scope ? r->scope : NULL};
    int rc = MCP_OK;
    for (size_t i = 0; rc == MCP_OK && i < 8; i++)
        if (values[i])
            rc = mcp__auth_form_add(&q, names[i], values[i]);
    size_t start = out->len;
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, as->authorization_endpoint, strlen(as->authorization_endpoint));
    if (rc == MCP_OK)
        rc = mcp__buf_putc(out, strchr(as->authorization_endpoint, '?') ? '&' : '?');
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, q.data, q.len);
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    mcp_buf_free(&q);
    return rc;
}

/* The redirect's parameters ----------------------------------------------- */

#define FORM_MAX 16

typedef struct form {
    char *name[FORM_MAX], *value[FORM_MAX];
    size_t count;
} form;

static void form_free(form *f)
{
    for (size_t i = 0; i < f->count; i++) {
        free(f->name[i]);
        free(f->value[i]);
    }
    f->count = 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* s (len bytes) form-decoded: malloc'd, NULL when malformed (*bad) or out
 * of memory. A decoded NUL is malformed. */
static char *decode(const char *s, size_t len, bool *bad)
{
    char *out = malloc(len + 1);
    size_t k = 0;
    for (size_t i = 0; out && i < len; i++) {
        char c = s[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            if (len - i < 3 || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0) {
                *bad = true;
                free(out);
                return NULL;
            }
            c = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
            i += 2;
        }
        if (c == '\0') {
            *bad = true;
            free(out);
            return NULL;
        }
        out[k++] = c;
    }
    if (out)
        out[k] = '\0';
    return out;
}

/* query parsed into f: MCP_OK, MCP_ERR_INVALID_ARG (malformed, a name
 * twice: RFC 6749 section 3.1), MCP_ERR_LIMIT, MCP_ERR_NOMEM. */
static int form_read(const char *query, size_t len, form *f)
{
    memset(f, 0, sizeof *f);
    const char *p = query, *end = query + len;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *e = amp ? amp : end;
        if (e > p) {
            if (f->count == FORM_MAX)
                return MCP_ERR_LIMIT;
            const char *eq = memchr(p, '=', (size_t)(e - p));
            bool bad = false;
            char *name = decode(p, (size_t)((eq ? eq : e) - p), &bad);
            char *value = name ? decode(eq ? eq + 1 : e, eq ? (size_t)(e - eq - 1) : 0, &bad)
                               : NULL;
            if (!name || !value) {
                free(name);
                free(value);
                return bad ? MCP_ERR_INVALID_ARG : MCP_ERR_NOMEM;
            }
            for (size_t i = 0; i < f->count; i++)
                if (!strcmp(f->name[i], name)) {
                    free(name);
                    free(value);
                    return MCP_ERR_INVALID_ARG;
                }
            f->name[f->count] = name;
            f->value[f->count++] = value;
        }
        p = e + 1;
    }
    return MCP_OK;
}

static const char *form_get(const form *f, const char *name)
{
    for (size_t i = 0; i < f->count; i++)
        if (!strcmp(f->name[i], name))
            return f->value[i];
    return NULL;
}

int mcp__auth_callback_read(const char *query, size_t len, const char *state,
                            const char *issuer, bool iss_advertised, char **code, char *why,
                            size_t n)
{
    *code = NULL;
    if (len > 8192)
        return say(why, n, MCP_ERR_INVALID_ARG, "the redirect's query is over 8 KiB");
    form f;
    int rc = form_read(query, len, &f);
    if (rc != MCP_OK) {
        form_free(&f);
        return rc == MCP_ERR_NOMEM ? rc
                                   : say(why, n, MCP_ERR_INVALID_ARG,
                                         "the redirect's query is malformed (or names a "
                                         "parameter twice)");
    }
    const char *iss = form_get(&f, "iss");
    if (iss ? strcmp(iss, issuer) != 0 : iss_advertised) {
        /* Nothing else of it is acted on or shown: it may not be from
         * the server this request went to (a mix-up attack). */
        form_free(&f);
        return say(why, n, MCP_ERR_INVALID_ARG,
                   iss ? "the redirect names another issuer than the one asked (RFC 9207): "
                         "ignored"
                       : "the redirect lacks the iss its server advertises (RFC 9207): ignored");
    }
    const char *st = form_get(&f, "state");
    if (!st || strcmp(st, state)) {
        form_free(&f);
        return say(why, n, MCP_ERR_INVALID_ARG,
                   "the redirect's state is not this request's: ignored");
    }
    const char *error = form_get(&f, "error");
    if (error) {
        if (why && n) {
            const char *d = form_get(&f, "error_description");
            snprintf(why, n, "the authorization server refused: %.60s%s%.200s", error,
                     d ? ": " : "", d ? d : "");
            for (char *c = why; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = '?'; /* shown to a user: no control characters */
        }
        form_free(&f);
        return MCP_ERR_REMOTE;
    }
    const char *c = form_get(&f, "code");
    if (!c || !*c) {
        form_free(&f);
        return say(why, n, MCP_ERR_INVALID_ARG, "the redirect carries no code");
    }
    *code = strdup(c);
    form_free(&f);
    return *code ? MCP_OK : MCP_ERR_NOMEM;
}

/* Token responses --------------------------------------------------------- */

void mcp__auth_tokens_free(mcp__auth_tokens *t)
{
    free(t->access_token);
    free(t->refresh_token);
    free(t->scope);
    memset(t, 0, sizeof *t);
}

static char *dup_string(const mcp_json *o, const char *name, bool *bad)
{
    const mcp_json *v = mcp_json_object_get(o, name);
    if (!v)
        return NULL;
    size_t len;
    const char *s = mcp_json_string(v, &len);
    if (!s || !len || memchr(s, '\0', len)) {
        *bad = true;
        return NULL;
    }
    return strdup(s);
}

/* RFC 6750 section 2.1's b64token: what an Authorization header can carry
 * as it is (a token with a space, a CR or a comma would forge headers or
 * parameters). */
bool mcp__auth_b64token(const char *s)
{
    size_t i = 0;
    while (s[i] && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                    (s[i] >= '0' && s[i] <= '9') || strchr("-._~+/", s[i])))
        i++;
    if (i == 0)
        return false;
    while (s[i] == '=')
        i++;
    return s[i] == '\0' && i <= 16384;
}

mcp__auth_token_outcome mcp__auth_token_response_read(const char *json, size_t len, int64_t now_s,
                                                      mcp__auth_tokens *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    mcp_json_doc *d = NULL;
    if (len > MCP__AUTH_DOC_MAX ||
        mcp_json_parse(json, len, NULL, NULL, &d, NULL) != MCP_OK ||
        mcp_json_typeof(mcp_json_doc_root(d)) != MCP_JSON_OBJECT) {
        mcp_json_doc_free(d);
        return say(why, n, MCP__AUTH_TOKEN_MALFORMED, "the token endpoint's answer is not a "
                                                      "JSON object");
    }
    const mcp_json *o = mcp_json_doc_root(d);
    const char *error = mcp_json_string(mcp_json_object_get(o, "error"), NULL);
    if (error) {
        const char *desc = mcp_json_string(mcp_json_object_get(o, "error_description"), NULL);
        if (why && n) {
            snprintf(why, n, "the token endpoint refused: %.60s%s%.200s", error, desc ? ": " : "",
                     desc ? desc : "");
            for (char *c = why; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = '?';
        }
        mcp__auth_token_outcome r = !strcmp(error, "invalid_grant")    ? MCP__AUTH_TOKEN_INVALID_GRANT
                                    : !strcmp(error, "invalid_client") ? MCP__AUTH_TOKEN_INVALID_CLIENT
                                                                       : MCP__AUTH_TOKEN_ERROR;
        mcp_json_doc_free(d);
        return r;
    }
    bool bad = false;
    const char *type = mcp_json_string(mcp_json_object_get(o, "token_type"), NULL);
    out->access_token = dup_string(o, "access_token", &bad);
    out->refresh_token = dup_string(o, "refresh_token", &bad);
    out->scope = dup_string(o, "scope", &bad);
    const mcp_json *ttl = mcp_json_object_get(o, "expires_in");
    double secs = 0;
    size_t tl = 0;
    const char *ttl_text = mcp_json_string(ttl, &tl);
    if (ttl_text && tl && tl < 12 && strspn(ttl_text, "0123456789") == tl)
        secs = strtod(ttl_text, NULL); /* "3600": some servers send a string */
    else if (ttl && (mcp_json_get_double(ttl, &secs) != MCP_OK || secs < 0 || secs > 1e10))
        bad = true;
    mcp__auth_token_outcome r = MCP__AUTH_TOKEN_OK;
    if (bad || !out->access_token || !type ||
        (strcasecmp(type, "Bearer") && strcasecmp(type, "DPoP"))) {
        r = say(why, n, MCP__AUTH_TOKEN_MALFORMED,
                "the token endpoint's answer lacks an access_token or a token_type of Bearer or "
                "DPoP, or has a member of the wrong type");
    } else if (!mcp__auth_b64token(out->access_token)) {
        r = say(why, n, MCP__AUTH_TOKEN_MALFORMED,
                "the access token has characters an Authorization header cannot carry (RFC 6750 "
                "b64token), or is over 16 KiB");
    } else {
        out->dpop = !strcasecmp(type, "DPoP");
        /* 0 says nothing usable (already over?): as if not said, rather
         * than a refresh before every request. */
        out->expires_at = ttl && secs >= 1 ? now_s + (int64_t)secs : 0;
        out->issued_at = now_s;
    }
    mcp_json_doc_free(d);
    if (r != MCP__AUTH_TOKEN_OK)
        mcp__auth_tokens_free(out);
    return r;
}

/* Scopes -------------------------------------------------------------------- */

static int add_words(mcp_buf *b, const char *list)
{
    int rc = MCP_OK;
    for (const char *p = list; rc == MCP_OK && p && *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n && !mcp__auth_scope_listed(b->data, p, n)) {
            if (b->len)
                rc = mcp__buf_putc(b, ' ');
            if (rc == MCP_OK)
                rc = mcp_buf_append(b, p, n);
        }
        p += n;
    }
    return rc;
}

int mcp__auth_scopes_to_ask(const char *challenge_scope, const char *prm_scopes,
                            const char *as_scopes, const char *asked_before, bool want_refresh,
                            char **out)
{
    *out = NULL;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = add_words(&b, asked_before);
    if (rc == MCP_OK)
        rc = add_words(&b, challenge_scope && *challenge_scope ? challenge_scope
                           : asked_before && *asked_before ? NULL
                                                           : prm_scopes);
    if (rc == MCP_OK && want_refresh && mcp__auth_scope_listed(as_scopes, "offline_access", 14))
        rc = add_words(&b, "offline_access");
    if (rc == MCP_OK && b.len && !(*out = strdup(b.data)))
        rc = MCP_ERR_NOMEM;
    mcp_buf_free(&b);
    return rc;
}
