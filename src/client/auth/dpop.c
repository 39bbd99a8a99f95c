/* SPDX-License-Identifier: MIT */
/*
 * DPoP proofs (RFC 9449): a key of the client's own, made when the engine
 * first needs one and kept as long as the tokens bound to it; a proof per
 * request (a fresh jti each), with the access token's hash (ath) when one
 * is presented, and the server's nonce once it asked for one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>
#include <openssl/sha.h>

#include "client/auth/oauth.h"
#include "core/base64.h"
#include "jose/jose.h"
#include "json/writer.h"

void mcp__auth_dpop_free(mcp__auth_dpop *d)
{
    mcp__jose_key_free(d->key);
    if (d->key)
        mcp_buf_free(&d->jwk); /* made with the key */
    free(d->as_nonce);
    free(d->rs_nonce);
    memset(d, 0, sizeof *d);
}

static int ready(mcp__auth_dpop *d)
{
    if (d->key)
        return MCP_OK;
    int rc = mcp__jose_key_new_p256(&d->key);
    mcp_buf_init(&d->jwk, 1024, NULL);
    if (rc == MCP_OK)
        rc = mcp__jose_key_public_jwk(d->key, NULL, &d->jwk);
    if (rc != MCP_OK) {
        mcp__jose_key_free(d->key);
        mcp_buf_free(&d->jwk);
        d->key = NULL;
    }
    return rc;
}

int mcp__auth_dpop_set_nonce(char **slot, const char *nonce)
{
    if (!nonce || strlen(nonce) > 1024)
        return MCP_ERR_INVALID_ARG;
    char *copy = strdup(nonce);
    if (!copy)
        return MCP_ERR_NOMEM;
    free(*slot);
    *slot = copy;
    return MCP_OK;
}

int mcp__auth_dpop_proof(mcp__auth_dpop *d, const char *htm, const char *htu,
                         const char *access_token, const char *nonce, int64_t now_s,
                         mcp_buf *out)
{
    int rc = ready(d);
    if (rc != MCP_OK)
        return rc;
    unsigned char id[16], hash[SHA256_DIGEST_LENGTH];
    mcp_buf jti, ath, header, claims;
    mcp_buf_init(&jti, 64, NULL);
    mcp_buf_init(&ath, 64, NULL);
    mcp_buf_init(&header, 2048, NULL);
    mcp_buf_init(&claims, 16384, NULL);
    if (RAND_bytes(id, sizeof id) != 1)
        rc = MCP_ERR_IO;
    if (rc == MCP_OK)
        rc = mcp__base64url_encode(&jti, id, sizeof id);
    if (rc == MCP_OK && access_token) {
        SHA256((const unsigned char *)access_token, strlen(access_token), hash);
        rc = mcp__base64url_encode(&ath, hash, sizeof hash);
    }
    /* htu: the URL without its query and fragment (RFC 9449 section 4.2). */
    size_t ulen = strcspn(htu, "?#");
    mcp__jw w;
    if (rc == MCP_OK) {
        mcp__jw_begin(&w, &header);
        mcp__jw_object(&w);
        mcp__jw_key(&w, "typ");
        mcp__jw_string(&w, "dpop+jwt");
        mcp__jw_key(&w, "jwk");
        mcp__jw_raw(&w, d->jwk.data, d->jwk.len);
        mcp__jw_object_end(&w);
        rc = mcp__jw_finish(&w);
    }
    if (rc == MCP_OK) {
        mcp__jw_begin(&w, &claims);
        mcp__jw_object(&w);
        mcp__jw_key(&w, "jti");
        mcp__jw_string(&w, jti.data);
        mcp__jw_key(&w, "htm");
        mcp__jw_string(&w, htm);
        mcp__jw_key(&w, "htu");
        mcp__jw_stringn(&w, htu, ulen);
        mcp__jw_key(&w, "iat");
        mcp__jw_int(&w, now_s);
        if (access_token) {
            mcp__jw_key(&w, "ath");
            mcp__jw_string(&w, ath.data);
        }
        if (nonce) {
            mcp__jw_key(&w, "nonce");
            mcp__jw_string(&w, nonce);
        }
        mcp__jw_object_end(&w);
        rc = mcp__jw_finish(&w);
    }
    if (rc == MCP_OK)
        rc = mcp__jws_sign(d->key, MCP__JOSE_ES256, header.data, claims.data, claims.len, out);
    mcp_buf_free(&jti);
    mcp_buf_free(&ath);
    mcp_buf_free(&header);
    mcp_buf_free(&claims);
    return rc;
}
