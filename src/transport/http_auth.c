/* SPDX-License-Identifier: MIT */
/*
 * WWW-Authenticate read and written (http_auth.h), as RFC 9110 section 11
 * gives its grammar:
 *
 *   WWW-Authenticate = #challenge
 *   challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
 *   auth-param = token BWS "=" BWS ( token / quoted-string )
 *   token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
 *
 * The list's commas separate both challenges and a challenge's parameters:
 * an element that is a token followed by "=" is a parameter of the
 * challenge before it, any other starts a challenge. Empty elements are
 * allowed (the list rule, section 5.6.1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "transport/http_auth.h"
#include "transport/http_headers.h"

typedef struct lexer {
    const char *start, *p, *end;
    char *why;
    size_t n;
} lexer;

static int fail(lexer *lx, const char *what)
{
    if (lx->why && lx->n)
        snprintf(lx->why, lx->n, "%s at offset %zu", what, (size_t)(lx->p - lx->start));
    return MCP_ERR_INVALID_ARG;
}

static bool tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool t68char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("-._~+/", c));
}

static void skip_ows(lexer *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
        lx->p++;
}

static bool at_end_of_element(lexer *lx)
{
    skip_ows(lx);
    return lx->p == lx->end || *lx->p == ',';
}

/* A token's length at p (0: none). */
static size_t token_at(const lexer *lx, const char *p)
{
    const char *q = p;
    while (q < lx->end && tchar((unsigned char)*q))
        q++;
    return (size_t)(q - p);
}

/* A quoted-string at lx->p (its opening quote), unquoted into *out. */
static int quoted(lexer *lx, char **out)
{
    mcp_buf b;
    mcp_buf_init(&b, MCP__AUTH_HEADER_MAX, NULL);
    lx->p++;
    int rc = MCP_OK;
    for (;;) {
        if (lx->p == lx->end) {
            rc = fail(lx, "a quoted-string without its closing quote");
            break;
        }
        unsigned char c = (unsigned char)*lx->p;
        if (c == '"') {
            lx->p++;
            break;
        }
        if (c == '\\') {
            lx->p++;
            if (lx->p == lx->end) {
                rc = fail(lx, "a quoted-string without its closing quote");
                break;
            }
            c = (unsigned char)*lx->p;
            if (c != '\t' && (c < 0x20 || c == 0x7f)) {
                rc = fail(lx, "a control character in a quoted-string");
                break;
            }
        } else if (c != '\t' && (c < 0x20 || c == 0x7f)) {
            rc = fail(lx, "a control character in a quoted-string");
            break;
        }
        if ((rc = mcp__buf_putc(&b, (char)c)) != MCP_OK)
            break;
        lx->p++;
    }
    if (rc == MCP_OK && !(*out = strndup(b.data ? b.data : "", b.len)))
        rc = MCP_ERR_NOMEM;
    mcp_buf_free(&b);
    return rc;
}

/* The auth-param whose name (len bytes) was read, lx->p at its "=". */
static int param(lexer *lx, mcp__auth_challenge *ch, const char *name, size_t len)
{
    for (size_t i = 0; i < ch->nparams; i++)
        if (strlen(ch->params[i].name) == len && !strncasecmp(ch->params[i].name, name, len))
            return fail(lx, "a parameter named twice in one challenge");
    if (ch->nparams == MCP__AUTH_PARAMS_MAX)
        return MCP_ERR_LIMIT;
    lx->p++; /* '=' */
    skip_ows(lx);
    char *value = NULL;
    int rc = MCP_OK;
    if (lx->p < lx->end && *lx->p == '"') {
        rc = quoted(lx, &value);
    } else {
        size_t vlen = token_at(lx, lx->p);
        if (!vlen)
            return fail(lx, "a parameter without a value (a token or a quoted-string)");
        if (!(value = strndup(lx->p, vlen)))
            return MCP_ERR_NOMEM;
        lx->p += vlen;
    }
    if (rc != MCP_OK)
        return rc;
    char *n = strndup(name, len);
    if (!n) {
        free(value);
        return MCP_ERR_NOMEM;
    }
    ch->params[ch->nparams].name = n;
    ch->params[ch->nparams++].value = value;
    if (!at_end_of_element(lx))
        return fail(lx, "something after a parameter's value");
    return MCP_OK;
}

/* What follows a scheme and its space: a token68 or the first parameter. */
static int after_scheme(lexer *lx, mcp__auth_challenge *ch)
{
    size_t len = token_at(lx, lx->p);
    const char *q = lx->p + len;
    while (q < lx->end && (*q == ' ' || *q == '\t'))
        q++;
    if (len && q < lx->end && *q == '=') {
        /* name=value, unless what follows the '='s ends the element: a
         * token68's padding ("abc==") */
        const char *r = q;
        while (r < lx->end && *r == '=')
            r++;
        const char *s = r;
        while (s < lx->end && (*s == ' ' || *s == '\t'))
            s++;
        bool padding = r - q > 1 || s == lx->end || *s == ',';
        if (!padding) {
            const char *name = lx->p;
            lx->p = q;
            return param(lx, ch, name, len);
        }
    }
    const char *t = lx->p;
    while (t < lx->end && t68char((unsigned char)*t))
        t++;
    if (t == lx->p)
        return fail(lx, "neither a token68 nor a parameter after a scheme");
    while (t < lx->end && *t == '=')
        t++;
    if (!(ch->token68 = strndup(lx->p, (size_t)(t - lx->p))))
        return MCP_ERR_NOMEM;
    lx->p = t;
    if (!at_end_of_element(lx))
        return fail(lx, "something after a token68");
    return MCP_OK;
}

static int parse(lexer *lx, mcp__auth_challenges *out)
{
    mcp__auth_challenge *ch = NULL;
    bool token68_last = false;
    for (;;) {
        while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == ','))
            lx->p++;
        if (lx->p == lx->end)
            return out->count ? MCP_OK : fail(lx, "no challenge");
        size_t len = token_at(lx, lx->p);
        if (!len)
            return fail(lx, "a byte that is not a token's");
        const char *name = lx->p;
        const char *q = lx->p + len;
        while (q < lx->end && (*q == ' ' || *q == '\t'))
            q++;
        int rc;
        if (q < lx->end && *q == '=') {
            if (!ch || token68_last)
                return fail(lx, ch ? "a parameter after a token68" : "a parameter before any scheme");
            lx->p = q;
            rc = param(lx, ch, name, len);
        } else {
            if (out->count == MCP__AUTH_CHALLENGES_MAX)
                return MCP_ERR_LIMIT;
            ch = &out->list[out->count++];
            if (!(ch->scheme = strndup(name, len)))
                return MCP_ERR_NOMEM;
            lx->p = name + len;
            bool space = lx->p < lx->end && *lx->p == ' ';
            rc = at_end_of_element(lx) ? MCP_OK
                 : space               ? after_scheme(lx, ch)
                                       : fail(lx, "a byte that is not a token's");
            token68_last = ch->token68 != NULL;
        }
        if (rc != MCP_OK)
            return rc;
    }
}

int mcp__auth_challenges_parse(const char *value, size_t len, mcp__auth_challenges *out,
                               char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    if (len > MCP__AUTH_HEADER_MAX) {
        if (why && n)
            snprintf(why, n, "the header is longer than %d bytes", MCP__AUTH_HEADER_MAX);
        return MCP_ERR_LIMIT;
    }
    lexer lx = {value, value, value + len, why, n};
    int rc = parse(&lx, out);
    if (rc == MCP_ERR_LIMIT && why && n)
        snprintf(why, n, "more than %d challenges or %d parameters in one",
                 MCP__AUTH_CHALLENGES_MAX, MCP__AUTH_PARAMS_MAX);
    return rc;
}

void mcp__auth_challenges_free(mcp__auth_challenges *c)
{
    for (size_t i = 0; i < c->count; i++) {
        mcp__auth_challenge *ch = &c->list[i];
        free(ch->scheme);
        free(ch->token68);
        for (size_t k = 0; k < ch->nparams; k++) {
            free(ch->params[k].name);
            free(ch->params[k].value);
        }
    }
    memset(c, 0, sizeof *c);
}

const mcp__auth_challenge *mcp__auth_challenge_find(const mcp__auth_challenges *c,
                                                    const char *scheme)
{
    for (size_t i = 0; i < c->count; i++)
        if (!strcasecmp(c->list[i].scheme, scheme))
            return &c->list[i];
    return NULL;
}

const char *mcp__auth_param_get(const mcp__auth_challenge *ch, const char *name)
{
    for (size_t i = 0; ch && i < ch->nparams; i++)
        if (!strcasecmp(ch->params[i].name, name))
            return ch->params[i].value;
    return NULL;
}

bool mcp__auth_scope_listed(const char *list, const char *word, size_t wl)
{
    for (const char *p = list; p && *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n && n == wl && !memcmp(p, word, wl))
            return true;
        p += n;
    }
    return false;
}

int mcp__auth_param_write(mcp_buf *out, bool first, const char *name, const char *value)
{
    if (!mcp__http_token_valid(name, strlen(name)))
        return MCP_ERR_INVALID_ARG;
    for (const unsigned char *v = (const unsigned char *)value; *v; v++)
        if (*v != '\t' && (*v < 0x20 || *v == 0x7f))
            return MCP_ERR_INVALID_ARG;
    size_t start = out->len;
    int rc = mcp_buf_append(out, first ? " " : ", ", first ? 1 : 2);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, name, strlen(name));
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, "=\"", 2);
    for (const char *v = value; rc == MCP_OK && *v; v++) {
        if (*v == '"' || *v == '\\')
            rc = mcp__buf_putc(out, '\\');
        if (rc == MCP_OK)
            rc = mcp__buf_putc(out, *v);
    }
    if (rc == MCP_OK)
        rc = mcp__buf_putc(out, '"');
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    return rc;
}

/* Forms (application/x-www-form-urlencoded) ------------------------------------- */

static bool unreserved(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

static int encode(mcp_buf *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    int rc = MCP_OK;
    for (const unsigned char *p = (const unsigned char *)s; rc == MCP_OK && *p; p++) {
        if (unreserved(*p)) {
            rc = mcp__buf_putc(out, (char)*p);
        } else {
            char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            rc = mcp_buf_append(out, e, 3);
        }
    }
    return rc;
}

int mcp__auth_form_add(mcp_buf *out, const char *name, const char *value)
{
    size_t start = out->len;
    int rc = out->len ? mcp__buf_putc(out, '&') : MCP_OK;
    if (rc == MCP_OK)
        rc = encode(out, name);
    if (rc == MCP_OK)
        rc = mcp__buf_putc(out, '=');
    if (rc == MCP_OK)
        rc = encode(out, value);
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    return rc;
}

/* URLs ------------------------------------------------------------------- */

static int say(char *why, size_t n, int rc, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
    return rc;
}

/* url's authority (after "scheme://", up to the path, query or fragment),
 * its length in *len; NULL when url is not http(s) with one. *https: the
 * scheme's. */
static const char *authority(const char *url, size_t *len, bool *https)
{
    const char *a = NULL;
    if (!strncasecmp(url, "https://", 8))
        a = url + 8, *https = true;
    else if (!strncasecmp(url, "http://", 7))
        a = url + 7, *https = false;
    if (!a)
        return NULL;
    *len = strcspn(a, "/?#");
    if (!*len || memchr(a, '@', *len))
        return NULL;
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return NULL;
    return a;
}

bool mcp__auth_url_secure(const char *url)
{
    size_t len;
    bool https;
    const char *a = url ? authority(url, &len, &https) : NULL;
    return a && !strchr(url, '#') && (https || mcp__http_loopback_name(a, len));
}

int mcp__auth_issuer_metadata_urls(const char *issuer, char *urls[3], size_t *count, char *why,
                                   size_t n)
{
    *count = 0;
    size_t alen;
    bool https;
    const char *a = issuer ? authority(issuer, &alen, &https) : NULL;
    if (!mcp__auth_url_secure(issuer) || strchr(issuer, '?'))
        return say(why, n, MCP_ERR_INVALID_ARG,
                   "the issuer is not an https URL (http only on a loopback host) without a "
                   "query or fragment (RFC 8414 section 2)");
    size_t origin = (size_t)(a - issuer) + alen;
    const char *path = issuer + origin;
    size_t plen = strlen(path);
    while (plen && path[plen - 1] == '/')
        plen--;
    static const char as[] = "/.well-known/oauth-authorization-server";
    static const char oidc[] = "/.well-known/openid-configuration";
    const char *forms[3][2] = {{as, ""}, {oidc, ""}, {"", oidc}};
    size_t want = plen ? 3 : 2;
    for (size_t i = 0; i < want; i++) {
        size_t size = origin + strlen(forms[i][0]) + plen + strlen(forms[i][1]) + 1;
        if (!(urls[i] = malloc(size))) {
            for (size_t j = 0; j < i; j++)
                free(urls[j]);
            return MCP_ERR_NOMEM;
        }
        snprintf(urls[i], size, "%.*s%s%.*s%s", (int)origin, issuer, forms[i][0], (int)plen, path,
                 forms[i][1]);
    }
    *count = want;
    return MCP_OK;
}
