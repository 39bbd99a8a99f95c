/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for JOSE (src/jose): byte 0 picks what the rest is.
 *  - even: a token, checked against a fixed key set (one P-256 key, kid
 *    "f1", whose tokens are in the corpus) as an access token.
 *  - odd: a key set, read.
 * Properties, besides no crash, leak or undefined behaviour:
 *  - a verdict other than OK comes with a reason and leaves no claims;
 *  - an OK token is one of the key's: it still verifies when checked again,
 *    and any byte of it changed is no longer OK (the signature covers it
 *    all, and the base64url taken is only the canonical form);
 *  - a key set read has 1..64 keys.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jose/jose.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c))                                                                              \
            abort();                                                                           \
    } while (0)

static const char key_set[] =
    "{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"f1\","
    "\"x\":\"wt4lxr4EIe3MSJjk2HVawFZ-EPhj2XwxAdKI7WhExXk\","
    "\"y\":\"QC4_VH30wFk50DuE2XRkREhOIoOQjhAkBAcDKjNWicE\"}]}";

static const mcp__jwt_expect expect = {.issuer = "https://as.example",
                                       .audience = "https://mcp.example/mcp",
                                       .now_s = 1800000000,
                                       .skew_s = 60,
                                       .access_token = true};

static mcp__jwks *keys(void)
{
    static mcp__jwks *k;
    if (!k)
        CHECK(mcp__jwks_parse(key_set, sizeof key_set - 1, &k, NULL, 0) == MCP_OK);
    return k;
}

static void one_token(const char *t, size_t n)
{
    mcp__jwt_claims c;
    char why[200] = "";
    mcp__jwt_verdict v = mcp__jwt_check(t, n, keys(), &expect, &c, why, sizeof why);
    if (v != MCP__JWT_OK) {
        CHECK(why[0]);
        CHECK(!c.sub && !c.client_id && !c.scope && !c.jti && !c.exp);
        return;
    }
    CHECK(c.alg == MCP__JOSE_ES256 && c.sub && c.client_id && c.jti && c.exp);
    mcp__jwt_claims_free(&c);
    char *copy = malloc(n);
    CHECK(copy);
    memcpy(copy, t, n);
    CHECK(mcp__jwt_check(copy, n, keys(), &expect, NULL, NULL, 0) == MCP__JWT_OK);
    for (size_t i = 0; i < n; i++) {
        char was = copy[i];
        copy[i] = (char)(was ^ 0x01);
        CHECK(mcp__jwt_check(copy, n, keys(), &expect, NULL, NULL, 0) != MCP__JWT_OK);
        copy[i] = was;
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *rest = (const char *)data + 1;
    if (data[0] & 1) {
        mcp__jwks *k = NULL;
        char why[200];
        if (mcp__jwks_parse(rest, size - 1, &k, why, sizeof why) == MCP_OK) {
            CHECK(mcp__jwks_count(k) >= 1 && mcp__jwks_count(k) <= MCP__JWKS_MAX_KEYS);
            mcp__jwks_free(k);
        } else {
            CHECK(!k);
        }
        return 0;
    }
    one_token(rest, size - 1);
    return 0;
}
