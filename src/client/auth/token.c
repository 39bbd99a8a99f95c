/* SPDX-License-Identifier: MIT */
/*
 * Token requests (RFC 6749 section 3.2) with the client's authentication:
 * client_secret_basic, client_secret_post, none, and private_key_jwt (an
 * assertion of RFC 7523 section 2.2, signed with the client's key).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "client/auth/oauth.h"
#include "core/base64.h"
#include "jose/jose.h"
#include "json/writer.h"
#include "transport/http_auth.h"

/* How long a client assertion is good for. */
#define ASSERTION_SECONDS 300

/* A JWT asserting that this client (iss, sub: its id) talks to as
 * (aud: its issuer), signed with the client's key (RS256 or ES256, as the
 * key is). */
static int client_assertion(const mcp__auth_token_request *r, mcp_buf *out, char *why, size_t n)
{
    const mcp_oauth_options *o = r->o;
    mcp__jose_key *key = NULL;
    int rc = mcp__jose_key_from_pem(o->client_private_key_pem, strlen(o->client_private_key_pem),
                                    &key, why, n);
    if (rc != MCP_OK)
        return rc;
    mcp__jose_alg alg = mcp__jose_key_fits(key, MCP__JOSE_ES256) ? MCP__JOSE_ES256
                                                                 : MCP__JOSE_RS256;
    unsigned char id[16];
    mcp_buf jti, header, claims;
    mcp_buf_init(&jti, 64, NULL);
    mcp_buf_init(&header, 1024, NULL);
    mcp_buf_init(&claims, MCP__AUTH_DOC_MAX, NULL);
    if (RAND_bytes(id, sizeof id) != 1)
        rc = MCP_ERR_IO;
    if (rc == MCP_OK)
        rc = mcp__base64url_encode(&jti, id, sizeof id);
    mcp__jw w;
    if (rc == MCP_OK) {
        mcp__jw_begin(&w, &header);
        mcp__jw_object(&w);
        mcp__jw_key(&w, "typ");
        mcp__jw_string(&w, "JWT");
        if (o->client_key_id) {
            mcp__jw_key(&w, "kid");
            mcp__jw_string(&w, o->client_key_id);
        }
        mcp__jw_object_end(&w);
        rc = mcp__jw_finish(&w);
    }
    if (rc == MCP_OK) {
        mcp__jw_begin(&w, &claims);
        mcp__jw_object(&w);
        mcp__jw_key(&w, "iss");
        mcp__jw_string(&w, r->client->client_id);
        mcp__jw_key(&w, "sub");
        mcp__jw_string(&w, r->client->client_id);
        mcp__jw_key(&w, "aud");
        mcp__jw_string(&w, r->as->issuer);
        mcp__jw_key(&w, "iat");
        mcp__jw_int(&w, r->now_s);
        mcp__jw_key(&w, "exp");
        mcp__jw_int(&w, r->now_s + ASSERTION_SECONDS);
        mcp__jw_key(&w, "jti");
        mcp__jw_string(&w, jti.data);
        mcp__jw_object_end(&w);
        rc = mcp__jw_finish(&w);
    }
    if (rc == MCP_OK)
        rc = mcp__jws_sign(key, alg, header.data, claims.data, claims.len, out);
    if (rc != MCP_OK && !why[0])
        snprintf(why, n, "the client assertion could not be signed");
    mcp_buf_free(&jti);
    mcp_buf_free(&header);
    mcp_buf_free(&claims);
    mcp__jose_key_free(key);
    return rc;
}

/* "Authorization: Basic " and base64 of the form-encoded id ":" secret
 * (RFC 6749 section 2.3.1). */
static int basic_header(const mcp__auth_client *c, mcp_buf *out)
{
    mcp_buf pair, tmp;
    mcp_buf_init(&pair, 8192, NULL);
    mcp_buf_init(&tmp, 8192, NULL);
    int rc = mcp__auth_form_add(&tmp, "i", c->client_id);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&pair, tmp.data + 2, tmp.len - 2); /* the value of i= */
    if (rc == MCP_OK)
        rc = mcp_buf_append(&pair, ":", 1);
    mcp__buf_rewind(&tmp, 0);
    if (rc == MCP_OK)
        rc = mcp__auth_form_add(&tmp, "s", c->client_secret ? c->client_secret : "");
    if (rc == MCP_OK)
        rc = mcp_buf_append(&pair, tmp.data + 2, tmp.len - 2);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, "Authorization: Basic ", 21);
    if (rc == MCP_OK)
        rc = mcp__base64_encode(out, pair.data, pair.len);
    mcp_buf_free(&pair);
    mcp_buf_free(&tmp);
    return rc;
}

mcp__auth_token_outcome mcp__auth_token_post(const mcp__auth_token_request *r,
                                             mcp__auth_tokens *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    why[0] = '\0';
    const mcp__auth_client *c = r->client;
    mcp_buf auth, assertion;
    mcp_buf_init(&auth, 16384, NULL);
    mcp_buf_init(&assertion, 16384, NULL);
    int rc = MCP_OK;
    switch (c->method) {
    case MCP__AUTH_METHOD_BASIC:
        rc = basic_header(c, &auth);
        break;
    case MCP__AUTH_METHOD_POST:
        rc = mcp__auth_form_add(r->form, "client_id", c->client_id);
        if (rc == MCP_OK)
            rc = mcp__auth_form_add(r->form, "client_secret",
                                    c->client_secret ? c->client_secret : "");
        break;
    case MCP__AUTH_METHOD_KEY_JWT:
        if (!r->o->client_private_key_pem) {
            snprintf(why, n, "the server wants private_key_jwt and no private key was given");
            rc = MCP_ERR_INVALID_ARG;
            break;
        }
        rc = client_assertion(r, &assertion, why, n);
        if (rc == MCP_OK)
            rc = mcp__auth_form_add(r->form, "client_id", c->client_id);
        if (rc == MCP_OK)
            rc = mcp__auth_form_add(r->form, "client_assertion_type",
                                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
        if (rc == MCP_OK)
            rc = mcp__auth_form_add(r->form, "client_assertion", assertion.data);
        break;
    default:
        rc = mcp__auth_form_add(r->form, "client_id", c->client_id);
        break;
    }
    mcp__auth_token_outcome outcome = MCP__AUTH_TOKEN_ERROR;
    /* With DPoP, a server that wants a nonce says so once (400
     * use_dpop_nonce with DPoP-Nonce): the request goes again with a new
     * proof carrying it. */
    for (int attempt = 0; rc == MCP_OK && attempt < 2; attempt++) {
        mcp_buf proof;
        mcp_buf_init(&proof, 16384, NULL);
        if (r->dpop) {
            rc = mcp_buf_append(&proof, "DPoP: ", 6);
            if (rc == MCP_OK)
                rc = mcp__auth_dpop_proof(r->dpop, "POST", r->as->token_endpoint, NULL,
                                          r->dpop->as_nonce, r->now_s, &proof);
        }
        const char *headers[] = {"Content-Type: application/x-www-form-urlencoded",
                                 "Accept: application/json", auth.len ? auth.data : NULL, NULL,
                                 NULL};
        headers[auth.len ? 3 : 2] = proof.len ? proof.data : NULL;
        mcp__auth_reply reply;
        if (rc == MCP_OK)
            rc = mcp__auth_fetch(r->h, "POST", r->as->token_endpoint, headers, r->form->data,
                                 r->form->len, &reply, why, n);
        mcp_buf_free(&proof);
        if (rc != MCP_OK)
            break;
        bool nonce_asked = r->dpop && reply.status == 400 && reply.dpop_nonce &&
                           reply.body.data && strstr(reply.body.data, "use_dpop_nonce");
        if (r->dpop && reply.dpop_nonce)
            mcp__auth_dpop_set_nonce(&r->dpop->as_nonce, reply.dpop_nonce);
        if (nonce_asked && attempt == 0) {
            mcp__auth_reply_free(&reply);
            continue;
        }
        outcome = mcp__auth_token_response_read(reply.body.data ? reply.body.data : "",
                                                reply.body.len, r->now_s, out, why, n);
        if (outcome == MCP__AUTH_TOKEN_OK && reply.status != 200) {
            mcp__auth_tokens_free(out);
            snprintf(why, n, "the token endpoint answered HTTP %ld", reply.status);
            outcome = MCP__AUTH_TOKEN_ERROR;
        }
        mcp__auth_reply_free(&reply);
        break;
    }
    if (rc != MCP_OK && !why[0])
        snprintf(why, n, "%s", rc == MCP_ERR_NOMEM ? "out of memory" : "the token request failed");
    mcp_buf_free(&auth);
    mcp_buf_free(&assertion);
    return outcome;
}
