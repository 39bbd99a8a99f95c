/* SPDX-License-Identifier: MIT */
/*
 * Keys (jose.h): JWKs read into OpenSSL public keys, private keys read from
 * PEM, and what a key does, verify and sign, for the three algorithms.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

#include "core/base64.h"
#include "core/buf.h"
#include "jose/jose.h"
#include "mcp/json.h"

#define RSA_MIN_BITS 2048
#define RSA_MAX_BITS 16384
#define P256_BYTES 32

struct mcp__jose_key {
    EVP_PKEY *pkey;
    bool ec; /* P-256; else RSA */
};

typedef struct jwk {
    EVP_PKEY *pkey;
    char *kid;
    bool ec;
    mcp__jose_alg only; /* the JWK's own "alg", 0: any of its kind's */
} jwk;

/* Signatures this set has verified, by a digest of what was checked (the
 * key, the algorithm, the signed bytes and the signature): a token sent
 * again (a client sends the same one with every request until it expires)
 * costs a hash, not a verification. Direct-mapped, so bounded; only a
 * verified signature gets in, so tokens that fail cannot push good ones
 * out faster than good ones come. A new key set starts empty: a key
 * withdrawn takes its memo with it. */
#define MEMO_SLOTS 1024
struct mcp__jwks {
    jwk *keys;
    size_t count;
    pthread_mutex_t memo_lock; /* readers on several threads share a set */
    unsigned char (*memo)[SHA256_DIGEST_LENGTH]; /* MEMO_SLOTS, or NULL */
};

static void say(char *why, size_t n, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
}

const char *mcp__jose_alg_name(mcp__jose_alg alg)
{
    switch (alg) {
    case MCP__JOSE_RS256:
        return "RS256";
    case MCP__JOSE_PS256:
        return "PS256";
    case MCP__JOSE_ES256:
        return "ES256";
    }
    return NULL;
}

mcp__jose_alg mcp__jose_alg_named(const char *name, size_t len)
{
    for (mcp__jose_alg a = MCP__JOSE_RS256; a <= MCP__JOSE_ES256; a++)
        if (name && len == 5 && !memcmp(name, mcp__jose_alg_name(a), 5))
            return a;
    return 0;
}

static bool kind_fits(bool ec, mcp__jose_alg alg)
{
    return ec ? alg == MCP__JOSE_ES256 : alg == MCP__JOSE_RS256 || alg == MCP__JOSE_PS256;
}

/* Reading JWKs ----------------------------------------------------------- */

/* A base64url member of o decoded into out (at most max bytes): false when
 * absent, not a string, not canonical base64url, or too long. */
static bool member_bytes(const mcp_json *o, const char *name, mcp_buf *out, size_t max)
{
    size_t len;
    const char *s = mcp_json_string(mcp_json_object_get(o, name), &len);
    out->limit = max;
    return s && len && mcp__base64url_decode(out, s, len) == MCP_OK && out->len;
}

static EVP_PKEY *from_params(const char *type, OSSL_PARAM_BLD *bld)
{
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = params ? EVP_PKEY_CTX_new_from_name(NULL, type, NULL) : NULL;
    if (!ctx || EVP_PKEY_fromdata_init(ctx) != 1 ||
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1)
        pkey = NULL;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pkey;
}

static EVP_PKEY *rsa_of(const mcp_json *o, const char **bad)
{
    mcp_buf n, e; /* both freed whichever member fails first */
    mcp_buf_init(&n, 0, NULL);
    mcp_buf_init(&e, 0, NULL);
    EVP_PKEY *pkey = NULL;
    bool ok = member_bytes(o, "n", &n, RSA_MAX_BITS / 8 + 1) && member_bytes(o, "e", &e, 8);
    BIGNUM *bn = ok ? BN_bin2bn((unsigned char *)n.data, (int)n.len, NULL) : NULL;
    BIGNUM *be = ok ? BN_bin2bn((unsigned char *)e.data, (int)e.len, NULL) : NULL;
    OSSL_PARAM_BLD *bld = bn && be ? OSSL_PARAM_BLD_new() : NULL;
    *bad = "its n or e is missing or not base64url";
    if (bld && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) == 1 &&
        OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be) == 1) {
        *bad = "OpenSSL refused it";
        pkey = from_params("RSA", bld);
    }
    if (pkey && (EVP_PKEY_get_bits(pkey) < RSA_MIN_BITS || !BN_is_odd(be) || BN_is_one(be))) {
        *bad = EVP_PKEY_get_bits(pkey) < RSA_MIN_BITS ? "an RSA key under 2048 bits"
                                                      : "its exponent is not an odd number above 1";
        EVP_PKEY_free(pkey);
        pkey = NULL;
    }
    OSSL_PARAM_BLD_free(bld);
    BN_free(bn);
    BN_free(be);
    mcp_buf_free(&n);
    mcp_buf_free(&e);
    return pkey;
}

static EVP_PKEY *ec_of(const mcp_json *o, const char **bad)
{
    const char *crv = mcp_json_string(mcp_json_object_get(o, "crv"), NULL);
    if (!crv || strcmp(crv, "P-256")) {
        *bad = "an EC key on another curve than P-256";
        return NULL;
    }
    mcp_buf x, y; /* both freed whichever member fails first */
    mcp_buf_init(&x, 0, NULL);
    mcp_buf_init(&y, 0, NULL);
    EVP_PKEY *pkey = NULL;
    bool ok = member_bytes(o, "x", &x, P256_BYTES) && member_bytes(o, "y", &y, P256_BYTES) &&
              x.len == P256_BYTES && y.len == P256_BYTES;
    *bad = "its x or y is missing or not 32 bytes of base64url";
    if (ok) {
        unsigned char point[1 + 2 * P256_BYTES];
        point[0] = 0x04; /* uncompressed */
        memcpy(point + 1, x.data, P256_BYTES);
        memcpy(point + 1 + P256_BYTES, y.data, P256_BYTES);
        OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
        *bad = "its point is not on the curve";
        if (bld &&
            OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ==
                1 &&
            OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point) ==
                1)
            pkey = from_params("EC", bld);
        OSSL_PARAM_BLD_free(bld);
    }
    if (pkey) {
        EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
        if (!check || EVP_PKEY_public_check(check) != 1) {
            EVP_PKEY_free(pkey);
            pkey = NULL;
        }
        EVP_PKEY_CTX_free(check);
    }
    mcp_buf_free(&x);
    mcp_buf_free(&y);
    return pkey;
}

/* Whether "key_ops", when present, allows verify. */
static bool ops_verify(const mcp_json *ops)
{
    if (!ops)
        return true;
    for (size_t i = 0; i < mcp_json_array_size(ops); i++) {
        const char *op = mcp_json_string(mcp_json_array_at(ops, i), NULL);
        if (op && !strcmp(op, "verify"))
            return true;
    }
    return false;
}

/* Key o into k: NULL, or why it is not usable. */
static const char *read_jwk(const mcp_json *o, jwk *k)
{
    if (mcp_json_typeof(o) != MCP_JSON_OBJECT)
        return "a key that is not an object";
    const char *kty = mcp_json_string(mcp_json_object_get(o, "kty"), NULL);
    if (!kty || (strcmp(kty, "RSA") && strcmp(kty, "EC")))
        return "a key of another type than RSA or EC";
    const mcp_json *use = mcp_json_object_get(o, "use");
    if (use && (!mcp_json_string(use, NULL) || strcmp(mcp_json_string(use, NULL), "sig")))
        return "a key whose use is not sig";
    if (!ops_verify(mcp_json_object_get(o, "key_ops")))
        return "a key whose key_ops has no verify";
    k->ec = !strcmp(kty, "EC");
    const mcp_json *alg = mcp_json_object_get(o, "alg");
    if (alg) {
        size_t len;
        const char *name = mcp_json_string(alg, &len);
        k->only = mcp__jose_alg_named(name, name ? len : 0);
        if (!k->only || !kind_fits(k->ec, k->only))
            return "a key whose alg is not one of RS256, PS256 and ES256 for its type";
    }
    const mcp_json *kid = mcp_json_object_get(o, "kid");
    if (kid && !mcp_json_string(kid, NULL))
        return "a key whose kid is not a string";
    const char *bad = NULL;
    k->pkey = k->ec ? ec_of(o, &bad) : rsa_of(o, &bad);
    if (!k->pkey)
        return bad;
    if (kid && !(k->kid = strdup(mcp_json_string(kid, NULL)))) {
        EVP_PKEY_free(k->pkey);
        k->pkey = NULL;
        return "out of memory";
    }
    return NULL;
}

int mcp__jwks_parse(const char *text, size_t len, mcp__jwks **out, char *why, size_t n)
{
    *out = NULL;
    if (len > MCP__JWKS_MAX_BYTES) {
        say(why, n, "the key set is larger than 256 KiB");
        return MCP_ERR_LIMIT;
    }
    mcp_json_doc *d = NULL;
    mcp_json_error err = {0};
    int rc = mcp_json_parse(text, len, NULL, NULL, &d, &err);
    if (rc == MCP_ERR_NOMEM)
        return rc;
    if (rc != MCP_OK) {
        if (why && n)
            snprintf(why, n, "not a key set: not JSON (%s at byte %zu)", err.message, err.offset);
        return MCP_ERR_INVALID_ARG;
    }
    const mcp_json *keys = mcp_json_object_get(mcp_json_doc_root(d), "keys");
    if (mcp_json_typeof(keys) != MCP_JSON_ARRAY) {
        mcp_json_doc_free(d);
        say(why, n, "not a key set: no \"keys\" array");
        return MCP_ERR_INVALID_ARG;
    }
    size_t count = mcp_json_array_size(keys);
    if (count > MCP__JWKS_MAX_KEYS) {
        mcp_json_doc_free(d);
        say(why, n, "the key set has more than 64 keys");
        return MCP_ERR_LIMIT;
    }
    mcp__jwks *set = calloc(1, sizeof *set);
    if (!set || (count && !(set->keys = calloc(count, sizeof *set->keys)))) {
        free(set);
        mcp_json_doc_free(d);
        return MCP_ERR_NOMEM;
    }
    pthread_mutex_init(&set->memo_lock, NULL);
    set->memo = calloc(MEMO_SLOTS, sizeof *set->memo); /* NULL: every check verifies */
    const char *last_bad = "the key set is empty";
    for (size_t i = 0; i < count; i++) {
        jwk k = {0};
        const char *bad = read_jwk(mcp_json_array_at(keys, i), &k);
        if (bad && !strcmp(bad, "out of memory")) {
            mcp_json_doc_free(d);
            mcp__jwks_free(set);
            return MCP_ERR_NOMEM;
        }
        if (bad)
            last_bad = bad;
        else
            set->keys[set->count++] = k;
    }
    mcp_json_doc_free(d);
    if (!set->count) {
        mcp__jwks_free(set);
        if (why && n)
            snprintf(why, n, "no usable key in the key set (the last: %s)", last_bad);
        return MCP_ERR_INVALID_ARG;
    }
    *out = set;
    return MCP_OK;
}

size_t mcp__jwks_count(const mcp__jwks *keys)
{
    return keys ? keys->count : 0;
}

void mcp__jwks_free(mcp__jwks *keys)
{
    if (!keys)
        return;
    for (size_t i = 0; i < keys->count; i++) {
        EVP_PKEY_free(keys->keys[i].pkey);
        free(keys->keys[i].kid);
    }
    free(keys->keys);
    free(keys->memo);
    pthread_mutex_destroy(&keys->memo_lock);
    free(keys);
}

const char *mcp__jwks_kid(const mcp__jwks *keys, size_t i)
{
    return keys->keys[i].kid;
}

bool mcp__jwks_fits(const mcp__jwks *keys, size_t i, mcp__jose_alg alg)
{
    const jwk *k = &keys->keys[i];
    return kind_fits(k->ec, alg) && (!k->only || k->only == alg);
}

/* Verifying and signing ------------------------------------------------- */

/* The digest context for alg on pkey, to sign or verify. */
static EVP_MD_CTX *digest_for(EVP_PKEY *pkey, mcp__jose_alg alg, bool sign)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int ok = md && (sign ? EVP_DigestSignInit(md, &pctx, EVP_sha256(), NULL, pkey)
                         : EVP_DigestVerifyInit(md, &pctx, EVP_sha256(), NULL, pkey)) == 1;
    if (ok && alg == MCP__JOSE_PS256) /* RFC 7518 section 3.5: MGF1 SHA-256, salt of 32 */
        ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha256()) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1;
    if (!ok) {
        EVP_MD_CTX_free(md);
        return NULL;
    }
    return md;
}

static bool verify(const mcp__jwks *keys, size_t i, mcp__jose_alg alg, const void *data,
                   size_t len, const unsigned char *sig, size_t sig_len);

bool mcp__jwks_verify(const mcp__jwks *keys, size_t i, mcp__jose_alg alg, const void *data,
                      size_t len, const unsigned char *sig, size_t sig_len)
{
    mcp__jwks *set = (mcp__jwks *)keys; /* the memo changes; the keys do not */
    unsigned char all[2 + SHA256_DIGEST_LENGTH + 1024], md[SHA256_DIGEST_LENGTH];
    if (!set->memo || sig_len > 1024)
        return verify(keys, i, alg, data, len, sig, sig_len);
    all[0] = (unsigned char)i;
    all[1] = (unsigned char)alg;
    SHA256(data, len, all + 2);
    memcpy(all + 2 + SHA256_DIGEST_LENGTH, sig, sig_len);
    SHA256(all, 2 + SHA256_DIGEST_LENGTH + sig_len, md);
    size_t slot = ((size_t)md[0] << 8 | md[1]) % MEMO_SLOTS;
    pthread_mutex_lock(&set->memo_lock);
    bool known = !memcmp(set->memo[slot], md, sizeof md);
    pthread_mutex_unlock(&set->memo_lock);
    if (known)
        return true;
    if (!verify(keys, i, alg, data, len, sig, sig_len))
        return false;
    pthread_mutex_lock(&set->memo_lock);
    memcpy(set->memo[slot], md, sizeof md);
    pthread_mutex_unlock(&set->memo_lock);
    return true;
}

static bool verify(const mcp__jwks *keys, size_t i, mcp__jose_alg alg, const void *data,
                   size_t len, const unsigned char *sig, size_t sig_len)
{
    const jwk *k = &keys->keys[i];
    unsigned char *der = NULL;
    int der_len = 0;
    if (alg == MCP__JOSE_ES256) {
        /* JWS carries r and s side by side (RFC 7518 section 3.4); OpenSSL
         * wants them in DER. */
        if (sig_len != 2 * P256_BYTES)
            return false;
        ECDSA_SIG *es = ECDSA_SIG_new();
        BIGNUM *r = BN_bin2bn(sig, P256_BYTES, NULL), *s = BN_bin2bn(sig + P256_BYTES, P256_BYTES, NULL);
        if (!es || !r || !s || ECDSA_SIG_set0(es, r, s) != 1) {
            BN_free(r);
            BN_free(s);
            ECDSA_SIG_free(es);
            return false;
        }
        der_len = i2d_ECDSA_SIG(es, &der);
        ECDSA_SIG_free(es);
        if (der_len <= 0)
            return false;
        sig = der;
        sig_len = (size_t)der_len;
    }
    EVP_MD_CTX *md = digest_for(k->pkey, alg, false);
    bool ok = md && EVP_DigestVerify(md, sig, sig_len, data, len) == 1;
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    return ok;
}

int mcp__jose_key_sign(const mcp__jose_key *key, mcp__jose_alg alg, const void *data, size_t len,
                       mcp_buf *sig)
{
    if (!mcp__jose_key_fits(key, alg))
        return MCP_ERR_INVALID_ARG;
    EVP_MD_CTX *md = digest_for(key->pkey, alg, true);
    size_t n = 0;
    unsigned char *raw = NULL;
    int rc = MCP_ERR_NOMEM;
    if (md && EVP_DigestSign(md, NULL, &n, data, len) == 1 && (raw = malloc(n)) &&
        EVP_DigestSign(md, raw, &n, data, len) == 1) {
        if (alg != MCP__JOSE_ES256) {
            rc = mcp_buf_append(sig, raw, n);
        } else {
            const unsigned char *p = raw;
            ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)n);
            unsigned char rs[2 * P256_BYTES];
            if (es && BN_bn2binpad(ECDSA_SIG_get0_r(es), rs, P256_BYTES) == P256_BYTES &&
                BN_bn2binpad(ECDSA_SIG_get0_s(es), rs + P256_BYTES, P256_BYTES) == P256_BYTES)
                rc = mcp_buf_append(sig, rs, sizeof rs);
            ECDSA_SIG_free(es);
        }
    }
    free(raw);
    EVP_MD_CTX_free(md);
    return rc;
}

/* Private keys ---------------------------------------------------------- */

/* An encrypted PEM is refused, never asked a passphrase for (OpenSSL's
 * default would read one from the terminal). */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

int mcp__jose_key_new_p256(mcp__jose_key **out)
{
    *out = NULL;
    EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    if (!pkey)
        return MCP_ERR_IO;
    mcp__jose_key *k = calloc(1, sizeof *k);
    if (!k) {
        EVP_PKEY_free(pkey);
        return MCP_ERR_NOMEM;
    }
    k->pkey = pkey;
    k->ec = true;
    *out = k;
    return MCP_OK;
}

int mcp__jose_key_from_pem(const char *pem, size_t len, mcp__jose_key **out, char *why,
                           size_t n)
{
    *out = NULL;
    if (len > 64 * 1024) {
        say(why, n, "not a PEM private key: over 64 KiB");
        return MCP_ERR_INVALID_ARG;
    }
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (!bio)
        return MCP_ERR_NOMEM;
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
    BIO_free(bio);
    if (!pkey) {
        say(why, n, "not a PEM private key (or one protected by a passphrase)");
        return MCP_ERR_INVALID_ARG;
    }
    bool ec = EVP_PKEY_is_a(pkey, "EC");
    char group[32] = "";
    if (ec)
        EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                       NULL);
    const char *bad = NULL;
    if (ec && strcmp(group, "prime256v1"))
        bad = "an EC key on another curve than P-256";
    else if (!ec && !EVP_PKEY_is_a(pkey, "RSA"))
        bad = "a key of another type than RSA or EC";
    else if (!ec && (EVP_PKEY_get_bits(pkey) < RSA_MIN_BITS || EVP_PKEY_get_bits(pkey) > RSA_MAX_BITS))
        bad = "an RSA key under 2048 bits (or over 16384)";
    if (bad) {
        EVP_PKEY_free(pkey);
        say(why, n, bad);
        return MCP_ERR_INVALID_ARG;
    }
    mcp__jose_key *k = calloc(1, sizeof *k);
    if (!k) {
        EVP_PKEY_free(pkey);
        return MCP_ERR_NOMEM;
    }
    k->pkey = pkey;
    k->ec = ec;
    *out = k;
    return MCP_OK;
}

void mcp__jose_key_free(mcp__jose_key *key)
{
    if (!key)
        return;
    EVP_PKEY_free(key->pkey);
    free(key);
}

bool mcp__jose_key_fits(const mcp__jose_key *key, mcp__jose_alg alg)
{
    return key && kind_fits(key->ec, alg);
}

/* "name":"<base64url of bn, pad bytes wide (0: its own width)>" */
static int put_bn(mcp_buf *out, const char *name, const BIGNUM *bn, int pad)
{
    int width = pad ? pad : BN_num_bytes(bn);
    unsigned char *raw = malloc(width ? (size_t)width : 1);
    if (!raw)
        return MCP_ERR_NOMEM;
    int rc = BN_bn2binpad(bn, raw, width) == width ? MCP_OK : MCP_ERR_INVALID_ARG;
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, ",\"", 2);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, name, strlen(name));
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, "\":\"", 3);
    if (rc == MCP_OK)
        rc = mcp__base64url_encode(out, raw, (size_t)width);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, "\"", 1);
    free(raw);
    return rc;
}

int mcp__jose_key_public_jwk(const mcp__jose_key *key, const char *kid, mcp_buf *out)
{
    size_t start = out->len;
    BIGNUM *a = NULL, *b = NULL;
    int rc;
    if (key->ec) {
        rc = EVP_PKEY_get_bn_param(key->pkey, OSSL_PKEY_PARAM_EC_PUB_X, &a) == 1 &&
                     EVP_PKEY_get_bn_param(key->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &b) == 1
                 ? mcp_buf_append(out, "{\"kty\":\"EC\",\"crv\":\"P-256\"", 25)
                 : MCP_ERR_NOMEM;
        if (rc == MCP_OK)
            rc = put_bn(out, "x", a, P256_BYTES);
        if (rc == MCP_OK)
            rc = put_bn(out, "y", b, P256_BYTES);
    } else {
        rc = EVP_PKEY_get_bn_param(key->pkey, OSSL_PKEY_PARAM_RSA_N, &a) == 1 &&
                     EVP_PKEY_get_bn_param(key->pkey, OSSL_PKEY_PARAM_RSA_E, &b) == 1
                 ? mcp_buf_append(out, "{\"kty\":\"RSA\"", 12)
                 : MCP_ERR_NOMEM;
        if (rc == MCP_OK)
            rc = put_bn(out, "n", a, 0);
        if (rc == MCP_OK)
            rc = put_bn(out, "e", b, 0);
    }
    if (rc == MCP_OK && kid) {
        rc = mcp_buf_append(out, ",\"kid\":", 7);
        if (rc == MCP_OK)
            rc = mcp_json_write_string(kid, strlen(kid), out);
    }
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, "}", 1);
    BN_free(a);
    BN_free(b);
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    return rc;
}
