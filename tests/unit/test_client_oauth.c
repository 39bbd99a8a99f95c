/* SPDX-License-Identifier: MIT */
/*
 * The OAuth client's parts with I/O taken out of the way (src/client/auth:
 * dpop.c, register.c's records, fetch.c's limits): a DPoP proof verifies
 * with the key it carries and says what RFC 9449 wants; each proof is
 * fresh; a kept registration reads back as written; a fetch bounded by a
 * flow's deadline refuses to start once it passed. The flows themselves
 * run against real servers (the conformance suite, oidc-provider, the
 * hostile server of the integration tests).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "client/auth/oauth.h"
#include "core/base64.h"
#include "jose/jose.h"
#include "mcp/json.h"
#include "runtime/internal.h"

/* The header and claims of a compact JWS, parsed; the signature checked
 * against the header's own jwk. */
static void open_proof(const char *proof, mcp_json_doc **header, mcp_json_doc **claims)
{
    const char *dot1 = strchr(proof, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
    assert_non_null(dot2);
    mcp_buf h, c;
    mcp_buf_init(&h, 0, NULL);
    mcp_buf_init(&c, 0, NULL);
    assert_int_equal(mcp__base64url_decode(&h, proof, (size_t)(dot1 - proof)), MCP_OK);
    assert_int_equal(mcp__base64url_decode(&c, dot1 + 1, (size_t)(dot2 - dot1 - 1)), MCP_OK);
    assert_int_equal(mcp_json_parse(h.data, h.len, NULL, NULL, header, NULL), MCP_OK);
    assert_int_equal(mcp_json_parse(c.data, c.len, NULL, NULL, claims, NULL), MCP_OK);
    mcp_buf_free(&h);
    mcp_buf_free(&c);
    /* The key the proof carries verifies it (as a server checks it). */
    mcp_buf set;
    mcp_buf_init(&set, 0, NULL);
    mcp_buf_append(&set, "{\"keys\":[", 9);
    assert_int_equal(mcp_json_write(mcp_json_object_get(mcp_json_doc_root(*header), "jwk"), &set),
                     MCP_OK);
    mcp_buf_append(&set, "]}", 2);
    mcp__jwks *keys = NULL;
    char why[200];
    assert_int_equal(mcp__jwks_parse(set.data, set.len, &keys, why, sizeof why), MCP_OK);
    mcp_buf sig;
    mcp_buf_init(&sig, 0, NULL);
    assert_int_equal(mcp__base64url_decode(&sig, dot2 + 1, strlen(dot2 + 1)), MCP_OK);
    assert_true(mcp__jwks_verify(keys, 0, MCP__JOSE_ES256, proof, (size_t)(dot2 - proof),
                                 (const unsigned char *)sig.data, sig.len));
    /* One byte of the claims changed: it verifies no more. */
    char *bad = strdup(proof);
    bad[dot1 - proof + 3] ^= 1;
    assert_false(mcp__jwks_verify(keys, 0, MCP__JOSE_ES256, bad, (size_t)(dot2 - proof),
                                  (const unsigned char *)sig.data, sig.len));
    free(bad);
    mcp_buf_free(&sig);
    mcp_buf_free(&set);
    mcp__jwks_free(keys);
}

static const char *text(mcp_json_doc *d, const char *name)
{
    return mcp_json_string(mcp_json_object_get(mcp_json_doc_root(d), name), NULL);
}

static void a_dpop_proof_says_what_rfc_9449_wants(void **state)
{
    (void)state;
    mcp__auth_dpop d = {0};
    mcp_buf p1, p2;
    mcp_buf_init(&p1, 0, NULL);
    mcp_buf_init(&p2, 0, NULL);
    assert_int_equal(mcp__auth_dpop_proof(&d, "POST", "https://mcp.example/mcp?x=1#f", "tok",
                                          "n1", 1000, &p1),
                     MCP_OK);
    mcp_json_doc *h, *c;
    open_proof(p1.data, &h, &c);
    assert_string_equal(text(h, "typ"), "dpop+jwt");
    assert_string_equal(text(h, "alg"), "ES256");
    const mcp_json *jwk = mcp_json_object_get(mcp_json_doc_root(h), "jwk");
    assert_string_equal(mcp_json_string(mcp_json_object_get(jwk, "kty"), NULL), "EC");
    assert_null(mcp_json_object_get(jwk, "d")); /* never the private part */
    assert_string_equal(text(c, "htm"), "POST");
    assert_string_equal(text(c, "htu"), "https://mcp.example/mcp"); /* no query, no fragment */
    assert_string_equal(text(c, "nonce"), "n1");
    int64_t iat = 0;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(mcp_json_doc_root(c), "iat"), &iat),
                     MCP_OK);
    assert_int_equal(iat, 1000);
    /* ath: base64url of the token's SHA-256. */
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)"tok", 3, md);
    mcp_buf ath;
    mcp_buf_init(&ath, 0, NULL);
    mcp__base64url_encode(&ath, md, sizeof md);
    assert_string_equal(text(c, "ath"), ath.data);
    char *jti1 = strdup(text(c, "jti"));
    mcp_json_doc_free(h);
    mcp_json_doc_free(c);

    /* The token request's proof: no ath, no nonce; the same key, a new jti. */
    assert_int_equal(mcp__auth_dpop_proof(&d, "POST", "https://as.example/token", NULL, NULL, 1001,
                                          &p2),
                     MCP_OK);
    open_proof(p2.data, &h, &c);
    assert_null(mcp_json_object_get(mcp_json_doc_root(c), "ath"));
    assert_null(mcp_json_object_get(mcp_json_doc_root(c), "nonce"));
    assert_string_not_equal(text(c, "jti"), jti1);
    mcp_json_doc_free(h);
    mcp_json_doc_free(c);
    free(jti1);
    mcp_buf_free(&ath);
    mcp_buf_free(&p1);
    mcp_buf_free(&p2);

    /* Nonces: kept up to 1 KiB, the last one wins. */
    assert_int_equal(mcp__auth_dpop_set_nonce(&d.rs_nonce, "a"), MCP_OK);
    assert_int_equal(mcp__auth_dpop_set_nonce(&d.rs_nonce, "b"), MCP_OK);
    assert_string_equal(d.rs_nonce, "b");
    char big[1100];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(mcp__auth_dpop_set_nonce(&d.rs_nonce, big), MCP_ERR_INVALID_ARG);
    assert_string_equal(d.rs_nonce, "b");
    mcp__auth_dpop_free(&d);
    mcp__auth_dpop_free(&d); /* again: nothing left to free */
}

static void a_kept_registration_reads_back_as_written(void **state)
{
    (void)state;
    mcp__auth_client c = {.issuer = "https://as.example",
                          .client_id = "c-1",
                          .client_secret = "s\"e\\c",
                          .redirect_uri = "http://127.0.0.1:5000/callback",
                          .method = MCP__AUTH_METHOD_POST,
                          .registered = true};
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__auth_client_write(&c, &b), MCP_OK);
    mcp__auth_client r;
    assert_int_equal(mcp__auth_client_read(b.data, b.len, &r), MCP_OK);
    assert_string_equal(r.issuer, c.issuer);
    assert_string_equal(r.client_id, c.client_id);
    assert_string_equal(r.client_secret, c.client_secret);
    assert_string_equal(r.redirect_uri, c.redirect_uri);
    assert_int_equal(r.method, MCP__AUTH_METHOD_POST);
    assert_true(r.registered);
    mcp__auth_client_free(&r);
    mcp_buf_free(&b);
    /* What is not a record: refused, nothing kept. */
    static const char *const bad[] = {
        "{}", "[]", "{\"issuer\":\"x\",\"client_id\":\"c\"}", /* no method */
        "{\"issuer\":\"x\",\"client_id\":\"c\",\"token_endpoint_auth_method\":\"magic\"}",
        "{\"issuer\":7,\"client_id\":\"c\",\"token_endpoint_auth_method\":\"none\"}", "{"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_not_equal(mcp__auth_client_read(bad[i], strlen(bad[i]), &r), MCP_OK);
        assert_null(r.client_id);
    }
}

static void a_fetch_past_the_flows_deadline_does_not_start(void **state)
{
    (void)state;
    /* Nothing listens at port 9, and nothing is tried: the deadline passed. */
    mcp__auth_http h = {.timeout_ms = 30000, .deadline_ms = mcp__now_ms() - 1};
    mcp__auth_reply r;
    char why[256];
    assert_int_equal(mcp__auth_fetch(&h, "GET", "http://127.0.0.1:9/x", NULL, NULL, 0, &r, why,
                                     sizeof why),
                     MCP_ERR_TIMED_OUT);
    assert_non_null(strstr(why, "time ran out"));
    /* With time left, an unreachable server is an I/O error that says so. */
    h.deadline_ms = mcp__now_ms() + 5000;
    assert_int_equal(mcp__auth_fetch(&h, "GET", "http://127.0.0.1:9/x", NULL, NULL, 0, &r, why,
                                     sizeof why),
                     MCP_ERR_IO);
    assert_non_null(strstr(why, "GET http://127.0.0.1:9/x failed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_dpop_proof_says_what_rfc_9449_wants),
        cmocka_unit_test(a_kept_registration_reads_back_as_written),
        cmocka_unit_test(a_fetch_past_the_flows_deadline_does_not_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
