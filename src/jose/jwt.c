/* SPDX-License-Identifier: MIT */
/*
 * JWTs in the compact JWS form (jose.h): checked against a key set and an
 * expectation, and made.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base64.h"
#include "core/buf.h"
#include "jose/jose.h"
#include "mcp/json.h"

const char *mcp__jwt_verdict_name(mcp__jwt_verdict v)
{
    switch (v) {
    case MCP__JWT_OK:
        return "ok";
    case MCP__JWT_MALFORMED:
        return "malformed";
    case MCP__JWT_ALGORITHM:
        return "algorithm";
    case MCP__JWT_UNKNOWN_KEY:
        return "unknown key";
    case MCP__JWT_SIGNATURE:
        return "signature";
    case MCP__JWT_TYPE:
        return "type";
    case MCP__JWT_EXPIRED:
        return "expired";
    case MCP__JWT_NOT_YET:
        return "not yet valid";
    case MCP__JWT_ISSUER:
        return "issuer";
    case MCP__JWT_AUDIENCE:
        return "audience";
    case MCP__JWT_CLAIMS:
        return "claims";
    case MCP__JWT_NOMEM:
        return "out of memory";
    }
    return "unknown";
}

void mcp__jwt_claims_free(mcp__jwt_claims *c)
{
    if (!c)
        return;
    free(c->sub);
    free(c->client_id);
    free(c->scope);
    free(c->jti);
    memset(c, 0, sizeof *c);
}

/* One check's state: the parts of the token and what was decoded. */
typedef struct parsed {
    const char *part[3];
    size_t len[3];
    mcp_json_doc *header, *payload;
    mcp_buf sig;
} parsed;

static mcp__jwt_verdict verdict(char *why, size_t n, mcp__jwt_verdict v, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
    return v;
}

/* A base64url part holding a JSON object: its document, or NULL (*nomem
 * set when memory ran out). */
static mcp_json_doc *object_part(const char *text, size_t len, bool *nomem)
{
    mcp_buf b;
    mcp_buf_init(&b, MCP__JWT_MAX_BYTES, NULL);
    mcp_json_doc *d = NULL;
    int rc = mcp__base64url_decode(&b, text, len);
    if (rc == MCP_OK)
        rc = mcp_json_parse(b.data, b.len, NULL, NULL, &d, NULL);
    if (rc == MCP_ERR_NOMEM)
        *nomem = true;
    if (d && mcp_json_typeof(mcp_json_doc_root(d)) != MCP_JSON_OBJECT) {
        mcp_json_doc_free(d);
        d = NULL;
    }
    mcp_buf_free(&b);
    return d;
}

static mcp__jwt_verdict split(parsed *p, const char *token, size_t len, char *why, size_t n)
{
    if (!token || len > MCP__JWT_MAX_BYTES)
        return verdict(why, n, MCP__JWT_MALFORMED, "the token is longer than 16 KiB");
    const char *start = token, *end = token + len;
    for (int i = 0; i < 3; i++) {
        const char *dot = i < 2 ? memchr(start, '.', (size_t)(end - start)) : end;
        if (!dot)
            return verdict(why, n, MCP__JWT_MALFORMED, "the token is not three dot-separated parts");
        p->part[i] = start;
        p->len[i] = (size_t)(dot - start);
        start = dot + 1;
    }
    if (memchr(p->part[2], '.', p->len[2]))
        return verdict(why, n, MCP__JWT_MALFORMED, "the token has more than three parts");
    if (!p->len[0] || !p->len[1])
        return verdict(why, n, MCP__JWT_MALFORMED, "the token's header or claims are empty");
    return MCP__JWT_OK;
}

/* A NumericDate claim (RFC 7519 section 2): absent (false, *present
 * false), a number (true), or something else (false, *present true). */
static bool numeric_date(const mcp_json *claims, const char *name, double *out, bool *present)
{
    const mcp_json *v = mcp_json_object_get(claims, name);
    *present = v != NULL;
    return v && mcp_json_get_double(v, out) == MCP_OK && isfinite(*out);
}

static bool audience_has(const mcp_json *aud, const char *want)
{
    const char *s = mcp_json_string(aud, NULL);
    if (s)
        return !strcmp(s, want);
    for (size_t i = 0; i < mcp_json_array_size(aud); i++) {
        const char *a = mcp_json_string(mcp_json_array_at(aud, i), NULL);
        if (a && !strcmp(a, want))
            return true;
    }
    return false;
}

/* A string claim copied (true), absent (true, *out NULL) or not a string
 * (false). *nomem set when the copy failed. */
static bool copy_string(const mcp_json *claims, const char *name, char **out, bool *nomem)
{
    const mcp_json *v = mcp_json_object_get(claims, name);
    *out = NULL;
    if (!v)
        return true;
    size_t len;
    const char *s = mcp_json_string(v, &len);
    if (!s || memchr(s, '\0', len))
        return false;
    if (!(*out = strdup(s)))
        *nomem = true;
    return true;
}

/* The signature: key by kid (or each fitting key when the token names
 * none), verified over "header.claims". */
static mcp__jwt_verdict verify(const parsed *p, mcp__jose_alg alg, const mcp__jwks *keys,
                               char *why, size_t n)
{
    const mcp_json *kid_v = mcp_json_object_get(mcp_json_doc_root(p->header), "kid");
    const char *kid = mcp_json_string(kid_v, NULL);
    if (kid_v && !kid)
        return verdict(why, n, MCP__JWT_MALFORMED, "the token's kid is not a string");
    size_t signed_len = p->len[0] + 1 + p->len[1];
    /* A kid may name more than one key (RFC 7517 section 4.5: keys of
     * different types as alternatives; a set mid-rotation): each that fits
     * the algorithm is tried, not only the first named. */
    bool any = false, named = false;
    for (size_t i = 0; i < mcp__jwks_count(keys); i++) {
        const char *k = mcp__jwks_kid(keys, i);
        if (kid && (!k || strcmp(k, kid)))
            continue;
        named = true;
        if (!mcp__jwks_fits(keys, i, alg))
            continue;
        any = true;
        if (mcp__jwks_verify(keys, i, alg, p->part[0], signed_len,
                             (const unsigned char *)p->sig.data, p->sig.len))
            return MCP__JWT_OK;
    }
    if (!any && kid && named)
        return verdict(why, n, MCP__JWT_ALGORITHM,
                       "the token's algorithm is not the one its key is for");
    if (!any)
        return verdict(why, n, MCP__JWT_UNKNOWN_KEY,
                       kid ? "no key of the key set has the token's kid"
                           : "no key of the key set is for the token's algorithm");
    return verdict(why, n, MCP__JWT_SIGNATURE, "the token's signature does not verify");
}

static mcp__jwt_verdict times(const mcp_json *c, const mcp__jwt_expect *e, mcp__jwt_claims *out,
                              char *why, size_t n)
{
    double exp, nbf, iat, now = (double)e->now_s, skew = (double)e->skew_s;
    bool present;
    if (!numeric_date(c, "exp", &exp, &present))
        return verdict(why, n, present ? MCP__JWT_CLAIMS : MCP__JWT_EXPIRED,
                       present ? "the token's exp is not a number" : "the token has no exp");
    if (now >= exp + skew)
        return verdict(why, n, MCP__JWT_EXPIRED, "the token has expired");
    bool has_nbf = numeric_date(c, "nbf", &nbf, &present);
    if (present && !has_nbf)
        return verdict(why, n, MCP__JWT_CLAIMS, "the token's nbf is not a number");
    if (has_nbf && now + skew < nbf)
        return verdict(why, n, MCP__JWT_NOT_YET, "the token is not valid yet (nbf)");
    bool has_iat = numeric_date(c, "iat", &iat, &present);
    if (present && !has_iat)
        return verdict(why, n, MCP__JWT_CLAIMS, "the token's iat is not a number");
    if (has_iat && now + skew < iat)
        return verdict(why, n, MCP__JWT_NOT_YET, "the token was issued in the future (iat)");
    out->exp = exp > 9e15 ? (int64_t)9e15 : (int64_t)exp;
    out->iat = has_iat ? (iat < 0 ? 0 : iat > 9e15 ? (int64_t)9e15 : (int64_t)iat) : 0;
    return MCP__JWT_OK;
}

static mcp__jwt_verdict claims_of(const mcp_json *c, const mcp__jwt_expect *e,
                                  mcp__jwt_claims *out, char *why, size_t n)
{
    mcp__jwt_verdict v = times(c, e, out, why, n);
    if (v != MCP__JWT_OK)
        return v;
    const char *iss = mcp_json_string(mcp_json_object_get(c, "iss"), NULL);
    if (e->issuer && (!iss || strcmp(iss, e->issuer)))
        return verdict(why, n, MCP__JWT_ISSUER, "the token was issued by another issuer");
    if (e->audience && !audience_has(mcp_json_object_get(c, "aud"), e->audience))
        return verdict(why, n, MCP__JWT_AUDIENCE, "the token is for another audience");
    bool nomem = false;
    if (!copy_string(c, "sub", &out->sub, &nomem) ||
        !copy_string(c, "client_id", &out->client_id, &nomem) ||
        !copy_string(c, "scope", &out->scope, &nomem) || !copy_string(c, "jti", &out->jti, &nomem))
        return verdict(why, n, MCP__JWT_CLAIMS,
                       "one of the token's sub, client_id, scope and jti is not a string");
    if (nomem)
        return verdict(why, n, MCP__JWT_NOMEM, "out of memory");
    if (e->access_token && (!out->sub || !out->client_id || !out->jti || !out->iat))
        return verdict(why, n, MCP__JWT_CLAIMS,
                       "the access token lacks one of sub, client_id, iat and jti (RFC 9068)");
    return MCP__JWT_OK;
}

static mcp__jwt_verdict check(parsed *p, const char *token, size_t len, const mcp__jwks *keys,
                              const mcp__jwt_expect *e, mcp__jwt_claims *out, char *why, size_t n)
{
    mcp__jwt_verdict v = split(p, token, len, why, n);
    if (v != MCP__JWT_OK)
        return v;
    bool nomem = false;
    if (!(p->header = object_part(p->part[0], p->len[0], &nomem)))
        return nomem ? verdict(why, n, MCP__JWT_NOMEM, "out of memory")
                     : verdict(why, n, MCP__JWT_MALFORMED,
                               "the token's header is not a base64url JSON object");
    const mcp_json *h = mcp_json_doc_root(p->header);
    size_t alg_len;
    const char *alg_name = mcp_json_string(mcp_json_object_get(h, "alg"), &alg_len);
    mcp__jose_alg alg = mcp__jose_alg_named(alg_name, alg_name ? alg_len : 0);
    if (!alg)
        return verdict(why, n, MCP__JWT_ALGORITHM,
                       "the token's algorithm is not one of RS256, PS256 and ES256");
    if (mcp_json_object_get(h, "crit"))
        return verdict(why, n, MCP__JWT_MALFORMED, "the token has critical header parameters");
    mcp_buf_init(&p->sig, 1024, NULL);
    int rc = mcp__base64url_decode(&p->sig, p->part[2], p->len[2]);
    if (rc != MCP_OK || !p->sig.len)
        return rc == MCP_ERR_NOMEM ? verdict(why, n, MCP__JWT_NOMEM, "out of memory")
                                   : verdict(why, n, MCP__JWT_MALFORMED,
                                             "the token's signature is not base64url");
    if ((v = verify(p, alg, keys, why, n)) != MCP__JWT_OK)
        return v;
    if (!(p->payload = object_part(p->part[1], p->len[1], &nomem)))
        return nomem ? verdict(why, n, MCP__JWT_NOMEM, "out of memory")
                     : verdict(why, n, MCP__JWT_MALFORMED,
                               "the token's claims are not a base64url JSON object");
    if (e->access_token) {
        const char *typ = mcp_json_string(mcp_json_object_get(h, "typ"), NULL);
        if (!typ || (strcasecmp(typ, "at+jwt") && strcasecmp(typ, "application/at+jwt")))
            return verdict(why, n, MCP__JWT_TYPE, "the token's typ is not at+jwt (RFC 9068)");
    }
    out->alg = alg;
    return claims_of(mcp_json_doc_root(p->payload), e, out, why, n);
}

mcp__jwt_verdict mcp__jwt_check(const char *token, size_t len, const mcp__jwks *keys,
                                const mcp__jwt_expect *e, mcp__jwt_claims *claims, char *why,
                                size_t n)
{
    parsed p = {0};
    mcp_buf_init(&p.sig, 1024, NULL);
    mcp__jwt_claims got = {0};
    mcp__jwt_verdict v = keys && e ? check(&p, token, len, keys, e, &got, why, n)
                                   : verdict(why, n, MCP__JWT_MALFORMED, "no key set given");
    mcp_json_doc_free(p.header);
    mcp_json_doc_free(p.payload);
    mcp_buf_free(&p.sig);
    if (v != MCP__JWT_OK)
        mcp__jwt_claims_free(&got);
    if (claims)
        *claims = got;
    else
        mcp__jwt_claims_free(&got);
    return v;
}

/* Making ----------------------------------------------------------------- */

int mcp__jws_sign(const mcp__jose_key *key, mcp__jose_alg alg, const char *header,
                  const char *payload, size_t payload_len, mcp_buf *out)
{
    if (!mcp__jose_key_fits(key, alg) || (!payload && payload_len))
        return MCP_ERR_INVALID_ARG;
    mcp_json_doc *d = NULL;
    const mcp_json *h = NULL;
    if (header) {
        int rc = mcp_json_parse(header, strlen(header), NULL, NULL, &d, NULL);
        if (rc == MCP_ERR_NOMEM)
            return rc;
        h = rc == MCP_OK ? mcp_json_doc_root(d) : NULL;
        if (mcp_json_typeof(h) != MCP_JSON_OBJECT || mcp_json_object_get(h, "alg")) {
            mcp_json_doc_free(d);
            return MCP_ERR_INVALID_ARG;
        }
    }
    mcp_buf head, sig;
    mcp_buf_init(&head, 0, NULL);
    mcp_buf_init(&sig, 0, NULL);
    int rc = mcp_buf_append(&head, "{\"alg\":\"", 8);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&head, mcp__jose_alg_name(alg), 5);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&head, "\"", 1);
    for (size_t i = 0; rc == MCP_OK && i < mcp_json_object_size(h); i++) {
        const char *k;
        size_t klen;
        const mcp_json *v = mcp_json_object_at(h, i, &k, &klen);
        rc = mcp_buf_append(&head, ",", 1);
        if (rc == MCP_OK)
            rc = mcp_json_write_string(k, klen, &head);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&head, ":", 1);
        if (rc == MCP_OK)
            rc = mcp_json_write(v, &head);
    }
    if (rc == MCP_OK)
        rc = mcp_buf_append(&head, "}", 1);
    mcp_json_doc_free(d);
    size_t start = out->len;
    if (rc == MCP_OK)
        rc = mcp__base64url_encode(out, head.data, head.len);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, ".", 1);
    if (rc == MCP_OK)
        rc = mcp__base64url_encode(out, payload ? payload : "", payload_len);
    if (rc == MCP_OK)
        rc = mcp__jose_key_sign(key, alg, out->data + start, out->len - start, &sig);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, ".", 1);
    if (rc == MCP_OK)
        rc = mcp__base64url_encode(out, sig.data, sig.len);
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    mcp_buf_free(&head);
    mcp_buf_free(&sig);
    return rc;
}
