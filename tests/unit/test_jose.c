/* SPDX-License-Identifier: MIT */
/*
 * JOSE (src/jose): key sets read, tokens of each algorithm checked, and
 * every way a token can be wrong refused with the verdict that names it:
 * "none", HS256 signed with the public key, an algorithm that is not the
 * key's, an embedded key, an unknown kid, tampered parts, times, issuer,
 * audience, RFC 9068's type and claims, malformed forms; keys no one
 * should accept (short RSA, other curves, points off the curve, "use":"enc",
 * an encrypted PEM, which must never prompt). The keys are made here with
 * OpenSSL, the tokens with the module's own signer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include "core/base64.h"
#include "jose/jose.h"

#define NOW 1800000000
#define ISS "https://as.example"
#define AUD "https://mcp.example/mcp"

static char *rsa_pem, *ec_pem, *rsa1024_pem, *p384_pem;
static mcp__jose_key *rsa, *ec;

static char *pem_of(EVP_PKEY *k, const EVP_CIPHER *cipher)
{
    BIO *b = BIO_new(BIO_s_mem());
    assert_non_null(b);
    assert_int_equal(PEM_write_bio_PrivateKey(b, k, cipher, NULL, 0, NULL,
                                              cipher ? (void *)"secret" : NULL),
                     1);
    char *data;
    long n = BIO_get_mem_data(b, &data);
    char *s = strndup(data, (size_t)n);
    BIO_free(b);
    return s;
}

static mcp__jose_key *key_of(const char *pem)
{
    mcp__jose_key *k;
    char why[200];
    if (mcp__jose_key_from_pem(pem, strlen(pem), &k, why, sizeof why) != MCP_OK)
        fail_msg("key: %s", why);
    return k;
}

static int setup(void **state)
{
    (void)state;
    EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    rsa_pem = pem_of(k, NULL);
    EVP_PKEY_free(k);
    k = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
    rsa1024_pem = pem_of(k, NULL);
    EVP_PKEY_free(k);
    k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    ec_pem = pem_of(k, NULL);
    EVP_PKEY_free(k);
    k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
    p384_pem = pem_of(k, NULL);
    EVP_PKEY_free(k);
    rsa = key_of(rsa_pem);
    ec = key_of(ec_pem);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mcp__jose_key_free(rsa);
    mcp__jose_key_free(ec);
    free(rsa_pem);
    free(ec_pem);
    free(rsa1024_pem);
    free(p384_pem);
    return 0;
}

/* {"keys":[<rsa as kid r1, with extra members>, <ec as kid e1>]} */
static char *jwks_text(const char *rsa_extra, const char *ec_extra)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_buf_append(&b, "{\"keys\":[", 9), MCP_OK);
    assert_int_equal(mcp__jose_key_public_jwk(rsa, "r1", &b), MCP_OK);
    if (rsa_extra) {
        b.len--; /* the closing brace */
        assert_int_equal(mcp_buf_append(&b, rsa_extra, strlen(rsa_extra)), MCP_OK);
        assert_int_equal(mcp_buf_append(&b, "}", 1), MCP_OK);
    }
    assert_int_equal(mcp_buf_append(&b, ",", 1), MCP_OK);
    assert_int_equal(mcp__jose_key_public_jwk(ec, "e1", &b), MCP_OK);
    if (ec_extra) {
        b.len--;
        assert_int_equal(mcp_buf_append(&b, ec_extra, strlen(ec_extra)), MCP_OK);
        assert_int_equal(mcp_buf_append(&b, "}", 1), MCP_OK);
    }
    assert_int_equal(mcp_buf_append(&b, "]}", 2), MCP_OK);
    return b.data;
}

static mcp__jwks *jwks(const char *rsa_extra, const char *ec_extra)
{
    char *text = jwks_text(rsa_extra, ec_extra);
    mcp__jwks *k;
    char why[200];
    if (mcp__jwks_parse(text, strlen(text), &k, why, sizeof why) != MCP_OK)
        fail_msg("jwks: %s", why);
    free(text);
    return k;
}

/* A signed token (caller frees). */
static char *token(const mcp__jose_key *key, mcp__jose_alg alg, const char *header,
                   const char *claims)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__jws_sign(key, alg, header, claims, strlen(claims), &b), MCP_OK);
    return b.data;
}

static const char good_claims[] =
    "{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\",\"client_id\":\"c1\","
    "\"scope\":\"tools:read tools:call\",\"iat\":1799999990,\"exp\":1800000300,"
    "\"jti\":\"j1\"}";

static const mcp__jwt_expect expect = {
    .issuer = ISS, .audience = AUD, .now_s = NOW, .skew_s = 30, .access_token = true};

static mcp__jwt_verdict check_text(const char *tok, const mcp__jwks *keys,
                                   const mcp__jwt_expect *e, char *why)
{
    return mcp__jwt_check(tok, strlen(tok), keys, e, NULL, why, 200);
}

#define EXPECT_VERDICT(want, tok, keys, e)                                                         \
    do {                                                                                           \
        char why_[200] = "";                                                                       \
        mcp__jwt_verdict got_ = check_text((tok), (keys), (e), why_);                              \
        if (got_ != (want))                                                                        \
            fail_msg("line %d: %s, not %s (%s)", __LINE__, mcp__jwt_verdict_name(got_),           \
                     mcp__jwt_verdict_name(want), why_);                                           \
        if (got_ != MCP__JWT_OK && !why_[0])                                                       \
            fail_msg("line %d: no reason given", __LINE__);                                        \
    } while (0)

/* Tests ---------------------------------------------------------------------------- */

static void each_algorithm_verifies_and_the_claims_are_read(void **state)
{
    (void)state;
    mcp__jwks *keys = jwks(NULL, NULL);
    assert_int_equal(mcp__jwks_count(keys), 2);
    struct {
        const mcp__jose_key *key;
        mcp__jose_alg alg;
        const char *kid;
    } cases[] = {{rsa, MCP__JOSE_RS256, "r1"}, {rsa, MCP__JOSE_PS256, "r1"},
                 {ec, MCP__JOSE_ES256, "e1"}, {ec, MCP__JOSE_ES256, NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char header[80];
        if (cases[i].kid)
            snprintf(header, sizeof header, "{\"typ\":\"at+jwt\",\"kid\":\"%s\"}", cases[i].kid);
        else
            snprintf(header, sizeof header, "{\"typ\":\"application/at+jwt\"}");
        char *t = token(cases[i].key, cases[i].alg, header, good_claims);
        mcp__jwt_claims c;
        char why[200] = "";
        mcp__jwt_verdict v = mcp__jwt_check(t, strlen(t), keys, &expect, &c, why, sizeof why);
        if (v != MCP__JWT_OK)
            fail_msg("%s: %s (%s)", mcp__jose_alg_name(cases[i].alg), mcp__jwt_verdict_name(v),
                     why);
        assert_int_equal(c.alg, cases[i].alg);
        assert_string_equal(c.sub, "alice");
        assert_string_equal(c.client_id, "c1");
        assert_string_equal(c.scope, "tools:read tools:call");
        assert_string_equal(c.jti, "j1");
        assert_int_equal(c.exp, 1800000300);
        assert_int_equal(c.iat, 1799999990);
        mcp__jwt_claims_free(&c);
        free(t);
    }
    mcp__jwks_free(keys);
}

/* base64url of text (caller frees). */
static char *b64(const char *text, size_t len)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__base64url_encode(&b, text, len), MCP_OK);
    return b.data ? b.data : strdup("");
}

/* header.claims.signature from their texts, the signature given raw. */
static char *assemble(const char *header, const char *claims, const unsigned char *sig,
                      size_t sig_len)
{
    char *h = b64(header, strlen(header)), *c = b64(claims, strlen(claims));
    char *s = b64((const char *)sig, sig_len);
    size_t n = strlen(h) + strlen(c) + strlen(s) + 3;
    char *t = malloc(n);
    snprintf(t, n, "%s.%s.%s", h, c, s);
    free(h);
    free(c);
    free(s);
    return t;
}

static void the_algorithm_is_the_keys_never_the_tokens(void **state)
{
    (void)state;
    mcp__jwks *keys = jwks(NULL, NULL);
    /* Unsigned. */
    char *t = assemble("{\"alg\":\"none\",\"typ\":\"at+jwt\"}", good_claims, NULL, 0);
    EXPECT_VERDICT(MCP__JWT_ALGORITHM, t, keys, &expect);
    free(t);
    /* HS256 with the public key (its JWK, and its PEM) as the secret. */
    mcp_buf jwk;
    mcp_buf_init(&jwk, 0, NULL);
    assert_int_equal(mcp__jose_key_public_jwk(rsa, "r1", &jwk), MCP_OK);
    const char *secrets[] = {jwk.data, rsa_pem};
    for (int i = 0; i < 2; i++) {
        static const char hs[] = "{\"alg\":\"HS256\",\"typ\":\"at+jwt\",\"kid\":\"r1\"}";
        char *h = b64(hs, sizeof hs - 1);
        char *c = b64(good_claims, strlen(good_claims));
        char input[2048];
        snprintf(input, sizeof input, "%s.%s", h, c);
        unsigned char mac[32];
        unsigned int mac_len = 0;
        HMAC(EVP_sha256(), secrets[i], (int)strlen(secrets[i]), (unsigned char *)input,
             strlen(input), mac, &mac_len);
        char *s = b64((char *)mac, mac_len);
        char tok[4096];
        snprintf(tok, sizeof tok, "%s.%s", input, s);
        EXPECT_VERDICT(MCP__JWT_ALGORITHM, tok, keys, &expect);
        free(h);
        free(c);
        free(s);
    }
    mcp_buf_free(&jwk);
    /* Signed well, but with an algorithm that is not its key's. */
    t = token(rsa, MCP__JOSE_RS256, "{\"typ\":\"at+jwt\",\"kid\":\"e1\"}", good_claims);
    EXPECT_VERDICT(MCP__JWT_ALGORITHM, t, keys, &expect);
    free(t);
    /* The JWK says RS256 only: a PS256 token by the same key is refused. */
    mcp__jwks *rs_only = jwks(",\"alg\":\"RS256\"", NULL);
    t = token(rsa, MCP__JOSE_PS256, "{\"typ\":\"at+jwt\",\"kid\":\"r1\"}", good_claims);
    EXPECT_VERDICT(MCP__JWT_OK, t, keys, &expect);
    EXPECT_VERDICT(MCP__JWT_ALGORITHM, t, rs_only, &expect);
    free(t);
    mcp__jwks_free(rs_only);
    /* Its own key in its header (and a URL for one): never used. */
    EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    char *pem = pem_of(k, NULL);
    EVP_PKEY_free(k);
    mcp__jose_key *attacker = key_of(pem);
    mcp_buf h;
    mcp_buf_init(&h, 0, NULL);
    assert_int_equal(mcp_buf_append(&h, "{\"typ\":\"at+jwt\",\"kid\":\"x9\",\"jku\":\"https://evil/\","
                                        "\"jwk\":", 55), MCP_OK);
    assert_int_equal(mcp__jose_key_public_jwk(attacker, "x9", &h), MCP_OK);
    assert_int_equal(mcp_buf_append(&h, "}", 1), MCP_OK);
    t = token(attacker, MCP__JOSE_ES256, h.data, good_claims);
    EXPECT_VERDICT(MCP__JWT_UNKNOWN_KEY, t, keys, &expect);
    free(t);
    /* The same without a kid: tried against the set's EC key, which did
     * not sign it. */
    t = token(attacker, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\"}", good_claims);
    EXPECT_VERDICT(MCP__JWT_SIGNATURE, t, keys, &expect);
    free(t);
    mcp_buf_free(&h);
    mcp__jose_key_free(attacker);
    free(pem);
    /* Names close to ours. */
    const char *names[] = {"rs256", "RS384", "ES256K", "EdDSA", "PS256 ", "", "HS256"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char header[80];
        snprintf(header, sizeof header, "{\"alg\":\"%s\",\"typ\":\"at+jwt\"}", names[i]);
        t = assemble(header, good_claims, (const unsigned char *)"sig", 3);
        EXPECT_VERDICT(MCP__JWT_ALGORITHM, t, keys, &expect);
        free(t);
    }
    mcp__jwks_free(keys);
}

/* One kid, more than one key (RFC 7517 section 4.5: keys of different
 * types as alternatives; a set mid-rotation): a token is checked against
 * each key of its kid that fits its algorithm, not refused by the first. */
static void a_kid_naming_several_keys_tries_each(void **state)
{
    (void)state;
    EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    char *pem = pem_of(k, NULL);
    EVP_PKEY_free(k);
    mcp__jose_key *other = key_of(pem);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_buf_append(&b, "{\"keys\":[", 9), MCP_OK);
    assert_int_equal(mcp__jose_key_public_jwk(rsa, "same", &b), MCP_OK);
    assert_int_equal(mcp_buf_append(&b, ",", 1), MCP_OK);
    assert_int_equal(mcp__jose_key_public_jwk(other, "same", &b), MCP_OK);
    assert_int_equal(mcp_buf_append(&b, ",", 1), MCP_OK);
    assert_int_equal(mcp__jose_key_public_jwk(ec, "same", &b), MCP_OK);
    assert_int_equal(mcp_buf_append(&b, "]}", 2), MCP_OK);
    mcp__jwks *keys;
    char why[200];
    assert_int_equal(mcp__jwks_parse(b.data, b.len, &keys, why, sizeof why), MCP_OK);
    mcp_buf_free(&b);
    const char *h = "{\"typ\":\"at+jwt\",\"kid\":\"same\"}";
    char *t = token(ec, MCP__JOSE_ES256, h, good_claims); /* the third key's */
    EXPECT_VERDICT(MCP__JWT_OK, t, keys, &expect);
    free(t);
    t = token(rsa, MCP__JOSE_RS256, h, good_claims);
    EXPECT_VERDICT(MCP__JWT_OK, t, keys, &expect);
    free(t);
    k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    char *pem2 = pem_of(k, NULL);
    EVP_PKEY_free(k);
    mcp__jose_key *stranger = key_of(pem2);
    t = token(stranger, MCP__JOSE_ES256, h, good_claims); /* no key of the kid signed it */
    EXPECT_VERDICT(MCP__JWT_SIGNATURE, t, keys, &expect);
    free(t);
    mcp__jwks_free(keys);
    /* A kid whose only key is of another type: still the algorithm's fault. */
    keys = jwks(NULL, NULL);
    t = token(ec, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\",\"kid\":\"r1\"}", good_claims);
    EXPECT_VERDICT(MCP__JWT_ALGORITHM, t, keys, &expect);
    free(t);
    mcp__jwks_free(keys);
    mcp__jose_key_free(stranger);
    mcp__jose_key_free(other);
    free(pem);
    free(pem2);
}

/* The signature memo is a set's own: a token a set verified (and so
 * remembers) is checked afresh by another set whose key at the same index,
 * with the same kid, is another key; and the memo never answers for the
 * same signed bytes with another signature, or other bytes with the same. */
static void a_remembered_signature_counts_only_in_its_set(void **state)
{
    (void)state;
    EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    char *pem = pem_of(pk, NULL);
    EVP_PKEY_free(pk);
    mcp__jose_key *other = key_of(pem);
    mcp__jwks *sets[2];
    const mcp__jose_key *ks[2] = {ec, other};
    for (int i = 0; i < 2; i++) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        assert_int_equal(mcp_buf_append(&b, "{\"keys\":[", 9), MCP_OK);
        assert_int_equal(mcp__jose_key_public_jwk(ks[i], "k", &b), MCP_OK);
        assert_int_equal(mcp_buf_append(&b, "]}", 2), MCP_OK);
        char why[200];
        assert_int_equal(mcp__jwks_parse(b.data, b.len, &sets[i], why, sizeof why), MCP_OK);
        mcp_buf_free(&b);
    }
    char *t = token(ec, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\",\"kid\":\"k\"}", good_claims);
    EXPECT_VERDICT(MCP__JWT_OK, t, sets[0], &expect);
    EXPECT_VERDICT(MCP__JWT_OK, t, sets[0], &expect); /* from the memo */
    EXPECT_VERDICT(MCP__JWT_SIGNATURE, t, sets[1], &expect);
    /* The remembered token with its claims changed (same signature), and
     * with its signature's last byte changed (same claims). */
    char *dot1 = strchr(t, '.'), *dot2 = strchr(dot1 + 1, '.');
    char *c2 = b64("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"mallory\","
                   "\"client_id\":\"c1\",\"iat\":1799999990,\"exp\":1800000300,\"jti\":\"j1\"}",
                   strlen("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"mallory\","
                          "\"client_id\":\"c1\",\"iat\":1799999990,\"exp\":1800000300,\"jti\":\"j1\"}"));
    char forged[4096];
    snprintf(forged, sizeof forged, "%.*s.%s%s", (int)(dot1 - t), t, c2, dot2);
    EXPECT_VERDICT(MCP__JWT_SIGNATURE, forged, sets[0], &expect);
    snprintf(forged, sizeof forged, "%s", t);
    size_t n = strlen(forged);
    forged[n - 2] = forged[n - 2] == 'A' ? 'B' : 'A';
    EXPECT_VERDICT(MCP__JWT_SIGNATURE, forged, sets[0], &expect);
    free(c2);
    free(t);
    mcp__jwks_free(sets[0]);
    mcp__jwks_free(sets[1]);
    mcp__jose_key_free(other);
    free(pem);
}

static void an_unknown_kid_asks_for_the_set_again(void **state)
{
    (void)state;
    mcp__jwks *keys = jwks(NULL, NULL);
    char *t = token(ec, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\",\"kid\":\"rotated\"}", good_claims);
    EXPECT_VERDICT(MCP__JWT_UNKNOWN_KEY, t, keys, &expect);
    free(t);
    t = token(ec, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\",\"kid\":7}", good_claims);
    EXPECT_VERDICT(MCP__JWT_MALFORMED, t, keys, &expect);
    free(t);
    mcp__jwks_free(keys);
}

static void a_tampered_token_does_not_verify(void **state)
{
    (void)state;
    mcp__jwks *keys = jwks(NULL, NULL);
    const mcp__jose_key *ks[] = {rsa, ec};
    mcp__jose_alg algs[] = {MCP__JOSE_RS256, MCP__JOSE_ES256};
    const char *kids[] = {"{\"typ\":\"at+jwt\",\"kid\":\"r1\"}", "{\"typ\":\"at+jwt\",\"kid\":\"e1\"}"};
    for (int i = 0; i < 2; i++) {
        char *t = token(ks[i], algs[i], kids[i], good_claims);
        char *other = token(ks[i], algs[i], kids[i],
                            "{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"mallory\","
                            "\"client_id\":\"c1\",\"iat\":1799999990,\"exp\":1800000300,"
                            "\"jti\":\"j2\"}");
        EXPECT_VERDICT(MCP__JWT_OK, t, keys, &expect);
        char *dot1 = strchr(t, '.'), *dot2 = strchr(dot1 + 1, '.');
        /* A byte of the claims changed (kept canonical base64url). */
        char *m = strdup(t);
        m[dot1 - t + 5] = m[dot1 - t + 5] == 'A' ? 'Q' : 'A';
        EXPECT_VERDICT(MCP__JWT_SIGNATURE, m, keys, &expect);
        free(m);
        /* A byte of the signature changed. */
        m = strdup(t);
        m[dot2 - t + 3] = m[dot2 - t + 3] == 'A' ? 'Q' : 'A';
        EXPECT_VERDICT(MCP__JWT_SIGNATURE, m, keys, &expect);
        free(m);
        /* Another token's claims under this one's signature. */
        char *o1 = strchr(other, '.'), *o2 = strchr(o1 + 1, '.');
        size_t n = strlen(t) + strlen(other);
        m = malloc(n);
        snprintf(m, n, "%.*s%.*s%s", (int)(dot1 - t), t, (int)(o2 - o1), o1, dot2);
        EXPECT_VERDICT(MCP__JWT_SIGNATURE, m, keys, &expect);
        free(m);
        /* The signature a byte short. */
        mcp_buf sig;
        mcp_buf_init(&sig, 0, NULL);
        assert_int_equal(mcp__base64url_decode(&sig, dot2 + 1, strlen(dot2 + 1)), MCP_OK);
        char *cut = b64(sig.data, sig.len - 1);
        n = strlen(t) + 1;
        m = malloc(n);
        snprintf(m, n, "%.*s.%s", (int)(dot2 - t), t, cut);
        EXPECT_VERDICT(MCP__JWT_SIGNATURE, m, keys, &expect);
        free(m);
        free(cut);
        mcp_buf_free(&sig);
        free(other);
        free(t);
    }
    mcp__jwks_free(keys);
}

static mcp__jwt_verdict with_claims(const mcp__jwks *keys, const char *claims,
                                    const mcp__jwt_expect *e)
{
    char *t = token(ec, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\",\"kid\":\"e1\"}", claims);
    char why[200] = "";
    mcp__jwt_verdict v = check_text(t, keys, e, why);
    if (v != MCP__JWT_OK && !why[0])
        fail_msg("no reason given for %s", claims);
    free(t);
    return v;
}

#define CLAIMS(extra)                                                                              \
    "{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"a\",\"client_id\":\"c\",\"jti\":\"j\"," extra "}"

static void times_issuer_audience_and_claims_are_checked(void **state)
{
    (void)state;
    mcp__jwks *keys = jwks(NULL, NULL);
    struct {
        const char *claims;
        mcp__jwt_verdict want;
    } cases[] = {
        {CLAIMS("\"iat\":1799999000,\"exp\":1800000001"), MCP__JWT_OK},
        {CLAIMS("\"iat\":1799999000,\"exp\":1799999980"), MCP__JWT_OK}, /* within the skew */
        {CLAIMS("\"iat\":1799999000,\"exp\":1799999970"), MCP__JWT_EXPIRED},
        {CLAIMS("\"iat\":1799999000,\"exp\":1700000000.5"), MCP__JWT_EXPIRED},
        {CLAIMS("\"iat\":1799999000"), MCP__JWT_EXPIRED},
        {CLAIMS("\"iat\":1799999000,\"exp\":\"1900000000\""), MCP__JWT_CLAIMS},
        {CLAIMS("\"iat\":1799999000,\"exp\":1900000000,\"nbf\":1800000031"), MCP__JWT_NOT_YET},
        {CLAIMS("\"iat\":1799999000,\"exp\":1900000000,\"nbf\":1800000029"), MCP__JWT_OK},
        {CLAIMS("\"iat\":1800000100,\"exp\":1900000000"), MCP__JWT_NOT_YET},
        {CLAIMS("\"iat\":true,\"exp\":1900000000"), MCP__JWT_CLAIMS},
        {CLAIMS("\"exp\":1900000000"), MCP__JWT_CLAIMS}, /* RFC 9068: iat */
        {CLAIMS("\"iat\":1799999000,\"exp\":1900000000,\"scope\":[\"a\"]"), MCP__JWT_CLAIMS},
        {"{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"a\",\"jti\":\"j\",\"iat\":1799999000,"
         "\"exp\":1900000000}",
         MCP__JWT_CLAIMS},
        {"{\"iss\":\"" ISS "/\",\"aud\":\"" AUD "\",\"sub\":\"a\",\"client_id\":\"c\",\"jti\":\"j\","
         "\"iat\":1799999000,\"exp\":1900000000}",
         MCP__JWT_ISSUER},
        {"{\"aud\":\"" AUD "\",\"sub\":\"a\",\"client_id\":\"c\",\"jti\":\"j\","
         "\"iat\":1799999000,\"exp\":1900000000}",
         MCP__JWT_ISSUER},
        {"{\"iss\":\"" ISS "\",\"aud\":[\"x\",\"" AUD "\"],\"sub\":\"a\",\"client_id\":\"c\","
         "\"jti\":\"j\",\"iat\":1799999000,\"exp\":1900000000}",
         MCP__JWT_OK},
        {"{\"iss\":\"" ISS "\",\"aud\":[\"x\",\"" AUD "/\"],\"sub\":\"a\",\"client_id\":\"c\","
         "\"jti\":\"j\",\"iat\":1799999000,\"exp\":1900000000}",
         MCP__JWT_AUDIENCE},
        {"{\"iss\":\"" ISS "\",\"aud\":\"https://other.example/mcp\",\"sub\":\"a\",\"client_id\":"
         "\"c\",\"jti\":\"j\",\"iat\":1799999000,\"exp\":1900000000}",
         MCP__JWT_AUDIENCE},
        {"{\"iss\":\"" ISS "\",\"sub\":\"a\",\"client_id\":\"c\",\"jti\":\"j\","
         "\"iat\":1799999000,\"exp\":1900000000}",
         MCP__JWT_AUDIENCE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mcp__jwt_verdict v = with_claims(keys, cases[i].claims, &expect);
        if (v != cases[i].want)
            fail_msg("case %zu: %s, not %s", i, mcp__jwt_verdict_name(v),
                     mcp__jwt_verdict_name(cases[i].want));
    }
    /* Not an access token: no typ, no client_id needed; issuer and
     * audience unchecked when not given. */
    mcp__jwt_expect loose = {.now_s = NOW};
    char *t = token(ec, MCP__JOSE_ES256, NULL, "{\"exp\":1900000000}");
    EXPECT_VERDICT(MCP__JWT_OK, t, keys, &loose);
    EXPECT_VERDICT(MCP__JWT_TYPE, t, keys, &expect);
    free(t);
    t = token(ec, MCP__JOSE_ES256, "{\"typ\":\"JWT\"}", good_claims);
    EXPECT_VERDICT(MCP__JWT_TYPE, t, keys, &expect);
    free(t);
    mcp__jwks_free(keys);
}

static void malformed_tokens_are_said_so(void **state)
{
    (void)state;
    mcp__jwks *keys = jwks(NULL, NULL);
    char *t = token(ec, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\"}", good_claims);
    char *dot1 = strchr(t, '.');
    char buf[8192];
    const char *bad[] = {"", ".", "..", "a.b", "a.b.c.d", "!!!.e30.c2ln",
                         "eyJhbGciOiJFUzI1NiJ9.e30.!!!", "eyJhbGciOiJFUzI1NiJ9.e30."};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        EXPECT_VERDICT(MCP__JWT_MALFORMED, bad[i], keys, &expect);
    /* A header that is not an object, is JSON with a key twice, or says crit. */
    const char *headers[] = {"[1]", "\"x\"", "{\"alg\":\"ES256\",\"alg\":\"ES256\"}",
                             "{\"alg\":\"ES256\",\"crit\":[\"b64\"],\"b64\":false}", "{"};
    for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
        char *h = b64(headers[i], strlen(headers[i]));
        snprintf(buf, sizeof buf, "%s%s", h, dot1);
        EXPECT_VERDICT(MCP__JWT_MALFORMED, buf, keys, &expect);
        free(h);
    }
    /* Over 16 KiB. */
    char *huge = malloc(MCP__JWT_MAX_BYTES + 2);
    memset(huge, 'A', MCP__JWT_MAX_BYTES + 1);
    huge[10] = huge[20] = '.';
    huge[MCP__JWT_MAX_BYTES + 1] = '\0';
    EXPECT_VERDICT(MCP__JWT_MALFORMED, huge, keys, &expect);
    free(huge);
    /* Signed claims that are not an object. */
    char *u = token(ec, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\"}", "[\"sub\"]");
    EXPECT_VERDICT(MCP__JWT_MALFORMED, u, keys, &expect);
    free(u);
    /* No key set. */
    assert_int_equal(mcp__jwt_check(t, strlen(t), NULL, &expect, NULL, NULL, 0),
                     MCP__JWT_MALFORMED);
    free(t);
    mcp__jwks_free(keys);
}

static void key_sets_keep_only_keys_fit_to_verify(void **state)
{
    (void)state;
    mcp__jwks *k = NULL;
    char why[200];
    const char *bad_sets[] = {"", "[]", "{}", "{\"keys\":{}}", "{\"keys\":[]}",
                              "{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}",
                              "{\"keys\":[1,\"x\",null]}"};
    for (size_t i = 0; i < sizeof bad_sets / sizeof *bad_sets; i++) {
        why[0] = '\0';
        assert_int_equal(mcp__jwks_parse(bad_sets[i], strlen(bad_sets[i]), &k, why, sizeof why),
                         MCP_ERR_INVALID_ARG);
        assert_null(k);
        assert_true(why[0]);
    }
    /* Not JSON (a member named twice): said so, with the parser's reason. */
    static const char twice[] = "{\"keys\":[],\"keys\":[]}";
    assert_int_equal(mcp__jwks_parse(twice, sizeof twice - 1, &k, why, sizeof why),
                     MCP_ERR_INVALID_ARG);
    if (!strstr(why, "not JSON (duplicate"))
        fail_msg("%s", why);
    /* Each of these alone is no usable key, and says why. */
    struct {
        const char *extra; /* added to the EC key */
        const char *reason;
    } skipped[] = {
        {",\"use\":\"enc\"", "use is not sig"},
        {",\"key_ops\":[\"sign\"]", "key_ops has no verify"},
        {",\"alg\":\"RS256\"", "alg is not one of"},
        {",\"alg\":\"none\"", "alg is not one of"},
    };
    for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        assert_int_equal(mcp_buf_append(&b, "{\"keys\":[", 9), MCP_OK);
        assert_int_equal(mcp__jose_key_public_jwk(ec, NULL, &b), MCP_OK);
        b.len--;
        assert_int_equal(mcp_buf_append(&b, skipped[i].extra, strlen(skipped[i].extra)), MCP_OK);
        assert_int_equal(mcp_buf_append(&b, "}]}", 3), MCP_OK);
        assert_int_equal(mcp__jwks_parse(b.data, b.len, &k, why, sizeof why), MCP_ERR_INVALID_ARG);
        if (!strstr(why, skipped[i].reason))
            fail_msg("%s: %s", skipped[i].extra, why);
        mcp_buf_free(&b);
    }
    /* A point off the curve, another curve, a short coordinate. */
    const char *ec_bad[] = {
        ("{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\","
         "\"y\":\"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}]}"),
        "{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-384\",\"x\":\"AQ\",\"y\":\"AQ\"}]}",
        "{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"AQ\",\"y\":\"AQ\"}]}",
        "{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}",
        "{\"keys\":[{\"kty\":\"RSA\",\"e\":\"AQAB\"}]}",
    };
    const char *ec_why[] = {"not on the curve", "another curve", "32 bytes", "under 2048",
                            "n or e"};
    for (size_t i = 0; i < sizeof ec_bad / sizeof *ec_bad; i++) {
        assert_int_equal(mcp__jwks_parse(ec_bad[i], strlen(ec_bad[i]), &k, why, sizeof why),
                         MCP_ERR_INVALID_ARG);
        if (!strstr(why, ec_why[i]))
            fail_msg("set %zu: %s", i, why);
    }
    /* Good keys beside bad ones: the good ones kept. */
    char *set = jwks_text(NULL, ",\"use\":\"enc\"");
    assert_int_equal(mcp__jwks_parse(set, strlen(set), &k, why, sizeof why), MCP_OK);
    assert_int_equal(mcp__jwks_count(k), 1);
    mcp__jwks_free(k);
    free(set);
    /* Caps. */
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_buf_append(&b, "{\"keys\":[", 9), MCP_OK);
    for (int i = 0; i < MCP__JWKS_MAX_KEYS + 1; i++) {
        if (i)
            assert_int_equal(mcp_buf_append(&b, ",", 1), MCP_OK);
        assert_int_equal(mcp__jose_key_public_jwk(ec, NULL, &b), MCP_OK);
    }
    assert_int_equal(mcp_buf_append(&b, "]}", 2), MCP_OK);
    assert_int_equal(mcp__jwks_parse(b.data, b.len, &k, why, sizeof why), MCP_ERR_LIMIT);
    mcp_buf_free(&b);
    char *big = calloc(1, MCP__JWKS_MAX_BYTES + 2);
    memset(big, ' ', MCP__JWKS_MAX_BYTES + 1);
    assert_int_equal(mcp__jwks_parse(big, MCP__JWKS_MAX_BYTES + 1, &k, why, sizeof why),
                     MCP_ERR_LIMIT);
    free(big);
}

static void private_keys_are_refused_unless_fit(void **state)
{
    (void)state;
    mcp__jose_key *k = NULL;
    char why[200];
    /* An encrypted key: refused, and nothing is read from the terminal (a
     * prompt would hang this test). */
    EVP_PKEY *p = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    char *enc = pem_of(p, EVP_aes_256_cbc());
    EVP_PKEY_free(p);
    assert_non_null(strstr(enc, "ENCRYPTED"));
    const char *bad[] = {enc, rsa1024_pem, p384_pem, "-----BEGIN PRIVATE KEY-----\nAAAA\n", ""};
    const char *reason[] = {"passphrase", "under 2048", "another curve", "not a PEM", "not a PEM"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(mcp__jose_key_from_pem(bad[i], strlen(bad[i]), &k, why, sizeof why),
                         MCP_ERR_INVALID_ARG);
        assert_null(k);
        if (!strstr(why, reason[i]))
            fail_msg("key %zu: %s", i, why);
    }
    free(enc);
    /* Signing: the key must fit the algorithm, the header must not say alg. */
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__jws_sign(ec, MCP__JOSE_RS256, NULL, "{}", 2, &b), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__jws_sign(rsa, MCP__JOSE_ES256, NULL, "{}", 2, &b), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__jws_sign(ec, MCP__JOSE_ES256, "{\"alg\":\"none\"}", "{}", 2, &b),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__jws_sign(ec, MCP__JOSE_ES256, "[]", "{}", 2, &b), MCP_ERR_INVALID_ARG);
    assert_int_equal(b.len, 0);
    /* What it signs: alg first in the header, then the caller's members. */
    assert_int_equal(mcp__jws_sign(ec, MCP__JOSE_ES256, "{\"typ\":\"dpop+jwt\"}", "{}", 2, &b),
                     MCP_OK);
    mcp_buf h;
    mcp_buf_init(&h, 0, NULL);
    assert_int_equal(mcp__base64url_decode(&h, b.data, (size_t)(strchr(b.data, '.') - b.data)),
                     MCP_OK);
    assert_string_equal(h.data, "{\"alg\":\"ES256\",\"typ\":\"dpop+jwt\"}");
    mcp_buf_free(&h);
    mcp_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_algorithm_verifies_and_the_claims_are_read),
        cmocka_unit_test(the_algorithm_is_the_keys_never_the_tokens),
        cmocka_unit_test(a_kid_naming_several_keys_tries_each),
        cmocka_unit_test(a_remembered_signature_counts_only_in_its_set),
        cmocka_unit_test(an_unknown_kid_asks_for_the_set_again),
        cmocka_unit_test(a_tampered_token_does_not_verify),
        cmocka_unit_test(times_issuer_audience_and_claims_are_checked),
        cmocka_unit_test(malformed_tokens_are_said_so),
        cmocka_unit_test(key_sets_keep_only_keys_fit_to_verify),
        cmocka_unit_test(private_keys_are_refused_unless_fit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
