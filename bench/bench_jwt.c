/* SPDX-License-Identifier: MIT */
/*
 * How fast a resource server checks an access token: the whole check of a
 * JWT (RFC 9068: form, key by kid, ES256 signature, type, time, issuer,
 * audience, claims) against a key set already read, for a token seen
 * before (a client sends the same token with every request until it
 * expires: the key set remembers signatures it verified) and, as the
 * reference in the same run, for tokens each seen once (the signature
 * verified every time). The repeated check runs for SECONDS (default 2).
 *
 *   bench_jwt [SECONDS]
 *
 * Prints
 *   jwt validations/s (ES256, cached JWKS): <n> first_seen=<n> ratio=<x>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "jose/jose.h"

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 2;
    if (seconds <= 0)
        seconds = 2;
    mcp__jose_key *key = NULL;
    mcp_buf jwks, token;
    mcp_buf_init(&jwks, 0, NULL);
    mcp_buf_init(&token, 0, NULL);
    if (mcp__jose_key_new_p256(&key) != MCP_OK || mcp_buf_append(&jwks, "{\"keys\":[", 9) ||
        mcp__jose_key_public_jwk(key, "k1", &jwks) || mcp_buf_append(&jwks, "]}", 2)) {
        fputs("bench_jwt: no key\n", stderr);
        return 1;
    }
    long long now = (long long)time(NULL);
    char claims[512];
    int cn = snprintf(claims, sizeof claims,
                      "{\"iss\":\"https://as.example\",\"aud\":\"https://mcp.example/mcp\","
                      "\"sub\":\"alice\",\"client_id\":\"c1\",\"iat\":%lld,\"exp\":%lld,"
                      "\"jti\":\"j1\",\"scope\":\"mcp:tools\"}",
                      now, now + 3600);
    mcp__jwks *keys = NULL;
    char why[256];
    if (mcp__jws_sign(key, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\",\"kid\":\"k1\"}", claims,
                      (size_t)cn, &token) ||
        mcp__jwks_parse(jwks.data, jwks.len, &keys, why, sizeof why)) {
        fputs("bench_jwt: no token\n", stderr);
        return 1;
    }
    mcp__jwt_expect e = {.issuer = "https://as.example",
                         .audience = "https://mcp.example/mcp",
                         .now_s = now,
                         .skew_s = 60,
                         .access_token = true};

    /* The whole check. */
    unsigned long long start = now_us(), end = start + (unsigned long long)(seconds * 1e6);
    unsigned long long checks = 0, t;
    while ((t = now_us()) < end) {
        for (int i = 0; i < 64; i++) {
            mcp__jwt_claims c;
            if (mcp__jwt_check(token.data, token.len, keys, &e, &c, why, sizeof why) !=
                MCP__JWT_OK) {
                fprintf(stderr, "bench_jwt: the token was refused: %s\n", why);
                return 1;
            }
            mcp__jwt_claims_free(&c);
        }
        checks += 64;
    }
    double full = checks / ((t - start) / 1e6);

    /* Tokens each seen once: the signature verified every time. */
    enum { FRESH = 4000 };
    mcp_buf *fresh = calloc(FRESH, sizeof *fresh);
    for (int i = 0; fresh && i < FRESH; i++) {
        mcp_buf_init(&fresh[i], 0, NULL);
        cn = snprintf(claims, sizeof claims,
                      "{\"iss\":\"https://as.example\",\"aud\":\"https://mcp.example/mcp\","
                      "\"sub\":\"alice\",\"client_id\":\"c1\",\"iat\":%lld,\"exp\":%lld,"
                      "\"jti\":\"f%d\",\"scope\":\"mcp:tools\"}",
                      now, now + 3600, i);
        if (mcp__jws_sign(key, MCP__JOSE_ES256, "{\"typ\":\"at+jwt\",\"kid\":\"k1\"}", claims,
                          (size_t)cn, &fresh[i])) {
            fputs("bench_jwt: could not sign\n", stderr);
            return 1;
        }
    }
    start = now_us();
    for (int i = 0; fresh && i < FRESH; i++) {
        mcp__jwt_claims c;
        if (mcp__jwt_check(fresh[i].data, fresh[i].len, keys, &e, &c, why, sizeof why) !=
            MCP__JWT_OK) {
            fprintf(stderr, "bench_jwt: a fresh token was refused: %s\n", why);
            return 1;
        }
        mcp__jwt_claims_free(&c);
    }
    double first = FRESH / ((now_us() - start) / 1e6);
    printf("jwt validations/s (ES256, cached JWKS): %.0f first_seen=%.0f ratio=%.1f\n", full, first,
           full / first);
    for (int i = 0; fresh && i < FRESH; i++)
        mcp_buf_free(&fresh[i]);
    free(fresh);
    mcp_buf_free(&jwks);
    mcp_buf_free(&token);
    mcp__jwks_free(keys);
    mcp__jose_key_free(key);
    return 0;
}
