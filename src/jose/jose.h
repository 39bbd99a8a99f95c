/* SPDX-License-Identifier: MIT */
/*
 * JOSE for OAuth, sans-I/O: JSON Web Keys (RFC 7517) and key sets read into
 * OpenSSL keys, and JSON Web Tokens (RFC 7519) in the compact JWS form
 * (RFC 7515) checked and made. What the MCP authorization specification
 * needs of it and no more: a resource server checking JWT access tokens
 * (RFC 9068) against its authorization server's JWKS, and a client signing
 * its own assertions (private_key_jwt, DPoP proofs).
 *
 * Three algorithms only, RS256, PS256 and ES256 (P-256). The key decides
 * the algorithm, never the token: an RSA key verifies RS256 or PS256 (only
 * the one its "alg" names when it names one), an EC key ES256; "none", the
 * HMAC algorithms and every other name are refused, so a token signed with
 * HS256 using the public key as the secret is refused like an unsigned one.
 * Keys named by the token itself ("jwk", "jku", "x5u", "x5c") are never
 * used. RSA keys under 2048 bits are refused (RFC 7518 section 3.3).
 *
 * Nothing here reads a clock, opens a socket or keeps state between calls:
 * the caller passes the time and the key set, and fetches a new key set
 * when told the token's key is unknown.
 *
 * Threads: every function may be called from any thread; a key set, once
 * read, is immutable and may be shared by threads checking tokens at once.
 */
#ifndef MCP_JOSE_JOSE_H
#define MCP_JOSE_JOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/common.h"

/* Caps on what a peer sends: a token, a key set's text and its keys. */
#define MCP__JWT_MAX_BYTES ((size_t)16 * 1024)
#define MCP__JWKS_MAX_BYTES ((size_t)256 * 1024)
#define MCP__JWKS_MAX_KEYS 64

typedef enum {
    MCP__JOSE_RS256 = 1,
    MCP__JOSE_PS256,
    MCP__JOSE_ES256,
} mcp__jose_alg;

/* The name of alg ("RS256"...), or NULL; and back (0 for any other name). */
const char *mcp__jose_alg_name(mcp__jose_alg alg);
mcp__jose_alg mcp__jose_alg_named(const char *name, size_t len);

/* Key sets --------------------------------------------------------------- */

typedef struct mcp__jwks mcp__jwks;

/*
 * Read a JWKS document ({"keys":[...]}, len bytes, at most
 * MCP__JWKS_MAX_BYTES and MCP__JWKS_MAX_KEYS keys). Keys that cannot sign
 * with an algorithm above (another kty or curve, "use" not "sig",
 * "key_ops" without "verify", an "alg" not ours, RSA under 2048 bits, a
 * malformed member) are skipped, each said in why when none is left.
 * Returns MCP_OK with *out set (the caller frees it with mcp__jwks_free; at
 * least one key), MCP_ERR_INVALID_ARG (not a key set, or no usable key: why
 * says which), MCP_ERR_LIMIT (over a cap) or MCP_ERR_NOMEM. why (n bytes,
 * may be NULL) gets a sentence on error. The text is not kept.
 */
int mcp__jwks_parse(const char *text, size_t len, mcp__jwks **out, char *why, size_t n);

/* The usable keys read (at least one). */
size_t mcp__jwks_count(const mcp__jwks *keys);

/* Free keys (NULL: nothing). */
void mcp__jwks_free(mcp__jwks *keys);

/* Checking tokens -------------------------------------------------------- */

typedef enum {
    MCP__JWT_OK = 0,
    MCP__JWT_MALFORMED,     /* not a compact JWS with a JSON header and claims */
    MCP__JWT_ALGORITHM,     /* an algorithm not ours, or not the key's */
    MCP__JWT_UNKNOWN_KEY,   /* no key of the set has its kid (fetch the set again) */
    MCP__JWT_SIGNATURE,     /* the signature does not verify */
    MCP__JWT_TYPE,          /* typ is not the one expected ("at+jwt") */
    MCP__JWT_EXPIRED,       /* exp passed (beyond the skew), or no exp */
    MCP__JWT_NOT_YET,       /* nbf or iat in the future (beyond the skew) */
    MCP__JWT_ISSUER,        /* iss is not the issuer expected */
    MCP__JWT_AUDIENCE,      /* aud does not name the audience expected */
    MCP__JWT_CLAIMS,        /* a claim required is missing or of the wrong type */
    MCP__JWT_NOMEM,
} mcp__jwt_verdict;

/* What a token must be. issuer and audience: compared byte for byte (NULL:
 * not checked); now_s: seconds since the epoch; skew_s: allowed on exp,
 * nbf and iat; access_token: RFC 9068's rules too (typ "at+jwt" or
 * "application/at+jwt", and sub, client_id, iat and jti present). */
typedef struct mcp__jwt_expect {
    const char *issuer;
    const char *audience;
    int64_t now_s;
    unsigned skew_s;
    bool access_token;
} mcp__jwt_expect;

/* What a checked token says, each member owned by the struct (free with
 * mcp__jwt_claims_free): NULL when the token has no such claim. */
typedef struct mcp__jwt_claims {
    char *sub;
    char *client_id;
    char *scope; /* space-separated, as sent */
    char *jti;
    int64_t exp, iat; /* 0: absent */
    mcp__jose_alg alg;
} mcp__jwt_claims;

void mcp__jwt_claims_free(mcp__jwt_claims *c);

/*
 * Check token (len bytes) against keys and e. MCP__JWT_OK fills *claims
 * (may be NULL); any other verdict leaves it zeroed, and why (n bytes, may
 * be NULL) says what was wrong in a sentence that never quotes the token.
 * The checks run in this order, so the verdict names the first that
 * failed: form, algorithm, key, signature, type, time, issuer, audience,
 * claims. A token over MCP__JWT_MAX_BYTES is MALFORMED.
 */
mcp__jwt_verdict mcp__jwt_check(const char *token, size_t len, const mcp__jwks *keys,
                                const mcp__jwt_expect *e, mcp__jwt_claims *claims, char *why,
                                size_t n);

/* A short name for a verdict ("expired"...), for logs and challenges. */
const char *mcp__jwt_verdict_name(mcp__jwt_verdict v);

/* Making tokens ---------------------------------------------------------- */

typedef struct mcp__jose_key mcp__jose_key;

/* A private key from PEM (PKCS#8 or the traditional forms; RSA of 2048
 * bits or more, or EC P-256), for signing. MCP_OK and *out (free with
 * mcp__jose_key_free), MCP_ERR_INVALID_ARG (why says why) or
 * MCP_ERR_NOMEM. */
int mcp__jose_key_from_pem(const char *pem, size_t len, mcp__jose_key **out, char *why,
                           size_t n);
void mcp__jose_key_free(mcp__jose_key *key);

/* A new EC P-256 key from OpenSSL's generator (a DPoP proof's key, which
 * lives as long as the tokens bound to it). MCP_OK, MCP_ERR_IO (no key
 * could be made) or MCP_ERR_NOMEM. */
int mcp__jose_key_new_p256(mcp__jose_key **out);

/* The public half as a JWK object ({"kty":...}), appended to out, with kid
 * when not NULL. MCP_OK, MCP_ERR_LIMIT or MCP_ERR_NOMEM. */
int mcp__jose_key_public_jwk(const mcp__jose_key *key, const char *kid, mcp_buf *out);

/* Whether key can sign with alg (RSA: RS256, PS256; EC P-256: ES256). */
bool mcp__jose_key_fits(const mcp__jose_key *key, mcp__jose_alg alg);

/*
 * Append the compact JWS of header (a JSON object without "alg", which is
 * added first; NULL: {}) and payload (any bytes, a JSON object for a JWT),
 * signed by key with alg. MCP_OK, MCP_ERR_INVALID_ARG (the key does not fit
 * alg, header not an object), MCP_ERR_LIMIT or MCP_ERR_NOMEM (nothing
 * appended then).
 */
int mcp__jws_sign(const mcp__jose_key *key, mcp__jose_alg alg, const char *header,
                  const char *payload, size_t payload_len, mcp_buf *out);

/* Between the files of this folder ---------------------------------------- */

/* Key i of keys (i < count): its kid (NULL: none), whether it verifies alg,
 * and whether sig (sig_len bytes, as JWS carries it) signs data with it. */
const char *mcp__jwks_kid(const mcp__jwks *keys, size_t i);
bool mcp__jwks_fits(const mcp__jwks *keys, size_t i, mcp__jose_alg alg);
bool mcp__jwks_verify(const mcp__jwks *keys, size_t i, mcp__jose_alg alg, const void *data,
                      size_t len, const unsigned char *sig, size_t sig_len);

/* The signature of data (len bytes) by key with alg, as JWS carries it,
 * appended to sig. MCP_OK, MCP_ERR_INVALID_ARG (the key does not fit alg),
 * MCP_ERR_LIMIT or MCP_ERR_NOMEM. */
int mcp__jose_key_sign(const mcp__jose_key *key, mcp__jose_alg alg, const void *data, size_t len,
                       mcp_buf *sig);

#endif
