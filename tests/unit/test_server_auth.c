/* SPDX-License-Identifier: MIT */
/*
 * The resource server's decisions (src/server/auth/resource.c): the status
 * and challenge for every kind of request (none, another scheme, a
 * malformed header, a bad token of each kind, a token for another
 * audience, a missing scope, a tool's own scope), read back with the
 * client's challenge reader; the metadata document and its path; where
 * the authorization server's metadata is looked for and what of it is used
 * (issuer.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "mcp/json.h"
#include "server/auth/auth.h"
#include "server/offer/offer.h"
#include "transport/http_auth.h"

#define NOW 1800000000
#define ISS "https://as.example/t1"
#define RES "https://mcp.example/mcp"
#define META "https://mcp.example/.well-known/oauth-protected-resource/mcp"

static mcp__jose_key *key;
static mcp__jwks *keys;
static const char *const scopes[] = {"mcp:tools", NULL};
static const mcp__resource_config config = {
    .resource = RES, .issuer = ISS, .scopes = scopes, .metadata_url = META};

static int setup(void **state)
{
    (void)state;
    EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    BIO *b = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
    char *pem;
    long n = BIO_get_mem_data(b, &pem);
    assert_int_equal(mcp__jose_key_from_pem(pem, (size_t)n, &key, NULL, 0), MCP_OK);
    BIO_free(b);
    EVP_PKEY_free(k);
    mcp_buf set;
    mcp_buf_init(&set, 0, NULL);
    assert_int_equal(mcp_buf_append(&set, "{\"keys\":[", 9), MCP_OK);
    assert_int_equal(mcp__jose_key_public_jwk(key, "k1", &set), MCP_OK);
    assert_int_equal(mcp_buf_append(&set, "]}", 2), MCP_OK);
    assert_int_equal(mcp__jwks_parse(set.data, set.len, &keys, NULL, 0), MCP_OK);
    mcp_buf_free(&set);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mcp__jwks_free(keys);
    mcp__jose_key_free(key);
    return 0;
}

/* "Bearer <token>" for claims (caller frees). */
static char *bearer(const char *header, const char *claims)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_buf_append(&b, "Bearer ", 7), MCP_OK);
    assert_int_equal(mcp__jws_sign(key, MCP__JOSE_ES256, header, claims, strlen(claims), &b),
                     MCP_OK);
    return b.data;
}

#define CLAIMS(aud, scope)                                                                         \
    "{\"iss\":\"" ISS "\",\"aud\":\"" aud "\",\"sub\":\"alice\",\"client_id\":\"c1\","         \
    "\"iat\":1799999990,\"exp\":1800000300,\"jti\":\"j1\",\"scope\":\"" scope "\"}"

#define AT "{\"typ\":\"at+jwt\",\"kid\":\"k1\"}"

/* The verdict's challenge, read as a client reads it. */
static void expect_challenge(const mcp__resource_verdict *v, const char *error, const char *scope)
{
    mcp__auth_challenges c;
    char why[200] = "";
    if (mcp__auth_challenges_parse(v->challenge, strlen(v->challenge), &c, why, sizeof why) !=
        MCP_OK)
        fail_msg("%s: %s", v->challenge, why);
    const mcp__auth_challenge *b = mcp__auth_challenge_find(&c, "Bearer");
    assert_non_null(b);
    assert_string_equal(mcp__auth_param_get(b, "resource_metadata"), META);
    if (error) {
        assert_string_equal(mcp__auth_param_get(b, "error"), error);
        assert_non_null(mcp__auth_param_get(b, "error_description"));
    } else {
        assert_null(mcp__auth_param_get(b, "error"));
    }
    if (scope)
        assert_string_equal(mcp__auth_param_get(b, "scope"), scope);
    mcp__auth_challenges_free(&c);
}

static void a_good_token_is_allowed_and_bound_to_its_subject(void **state)
{
    (void)state;
    char *h = bearer(AT, CLAIMS(RES, "mcp:tools files:read"));
    mcp__resource_verdict v;
    assert_int_equal(mcp__resource_check(&config, keys, h, NOW, NULL, &v), MCP_OK);
    assert_int_equal(v.status, 0);
    assert_string_equal(v.claims.sub, "alice");
    assert_string_equal(v.challenge, "");
    mcp__jwt_claims_free(&v.claims);
    /* "bearer" is the same scheme (RFC 9110: case-insensitive). */
    memcpy(h, "bEaReR", 6);
    assert_int_equal(mcp__resource_check(&config, keys, h, NOW, NULL, &v), MCP_OK);
    assert_int_equal(v.status, 0);
    mcp__jwt_claims_free(&v.claims);
    free(h);
}

static void no_token_asks_for_one_with_where_to_learn_how(void **state)
{
    (void)state;
    const char *values[] = {NULL, "Basic dXNlcjpwYXNz", "Bearerx abc", "Token abc"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        mcp__resource_verdict v;
        assert_int_equal(mcp__resource_check(&config, keys, values[i], NOW, NULL, &v), MCP_OK);
        assert_int_equal(v.status, 401);
        expect_challenge(&v, NULL, "mcp:tools");
    }
}

static void a_malformed_header_is_400(void **state)
{
    (void)state;
    const char *values[] = {"Bearer", "Bearer ", "Bearer a b", "Bearer a,b", "Bearer \"abc\"",
                            "Bearer =abc", "Bearer abc=d"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        mcp__resource_verdict v;
        assert_int_equal(mcp__resource_check(&config, keys, values[i], NOW, NULL, &v), MCP_OK);
        if (v.status != 400)
            fail_msg("%s: %d", values[i], v.status);
        expect_challenge(&v, "invalid_request", NULL);
    }
}

static void bad_tokens_are_401_invalid_token_and_say_why(void **state)
{
    (void)state;
    struct {
        const char *header, *claims, *why;
        bool refetch;
    } bad[] = {
        {AT, CLAIMS("https://other.example/mcp", "mcp:tools"), "another audience", false},
        {AT, CLAIMS("https://mcp.example/mcp/", "mcp:tools"), "another audience", false},
        {"{\"typ\":\"at+jwt\",\"kid\":\"k2\"}", CLAIMS(RES, "mcp:tools"), "kid", true},
        {"{\"typ\":\"JWT\",\"kid\":\"k1\"}", CLAIMS(RES, "mcp:tools"), "typ", false},
        {AT,
         "{\"iss\":\"https://as.example/t2\",\"aud\":\"" RES "\",\"sub\":\"a\",\"client_id\":\"c\","
         "\"iat\":1799999990,\"exp\":1800000300,\"jti\":\"j\"}",
         "another issuer", false},
        {AT,
         "{\"iss\":\"" ISS "\",\"aud\":\"" RES "\",\"sub\":\"a\",\"client_id\":\"c\","
         "\"iat\":1799990000,\"exp\":1799999000,\"jti\":\"j\"}",
         "expired", false},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *h = bearer(bad[i].header, bad[i].claims);
        mcp__resource_verdict v;
        assert_int_equal(mcp__resource_check(&config, keys, h, NOW, NULL, &v), MCP_OK);
        if (v.status != 401 || !strstr(v.why, bad[i].why) || v.refetch_keys != bad[i].refetch)
            fail_msg("case %zu: %d %s", i, v.status, v.why);
        expect_challenge(&v, "invalid_token", "mcp:tools");
        assert_null(v.claims.sub);
        assert_null(strstr(v.challenge, h + 7)); /* the token is never echoed */
        free(h);
    }
    /* A tampered token. */
    char *h = bearer(AT, CLAIMS(RES, "mcp:tools"));
    char *dot = strchr(h, '.');
    dot[3] = dot[3] == 'A' ? 'Q' : 'A';
    mcp__resource_verdict v;
    assert_int_equal(mcp__resource_check(&config, keys, h, NOW, NULL, &v), MCP_OK);
    assert_int_equal(v.status, 401);
    free(h);
}

static void a_missing_scope_is_403_with_every_scope_needed(void **state)
{
    (void)state;
    char *h = bearer(AT, CLAIMS(RES, "files:read"));
    mcp__resource_verdict v;
    assert_int_equal(mcp__resource_check(&config, keys, h, NOW, NULL, &v), MCP_OK);
    assert_int_equal(v.status, 403);
    expect_challenge(&v, "insufficient_scope", "mcp:tools");
    assert_null(v.claims.sub);
    free(h);
    /* A tool's own scope on top of the server's: both named. */
    h = bearer(AT, CLAIMS(RES, "mcp:tools"));
    const char *const own[] = {"files:write", "mcp:tools", NULL};
    assert_int_equal(mcp__resource_check(&config, keys, h, NOW, own, &v), MCP_OK);
    assert_int_equal(v.status, 403);
    expect_challenge(&v, "insufficient_scope", "mcp:tools files:write");
    assert_non_null(strstr(v.why, "files:write"));
    free(h);
    /* A scope's prefix is not the scope. */
    h = bearer(AT, CLAIMS(RES, "mcp:tool mcp:toolsx"));
    assert_int_equal(mcp__resource_check(&config, keys, h, NOW, NULL, &v), MCP_OK);
    assert_int_equal(v.status, 403);
    free(h);
}

/* get: 1 and the principal and scope, -1 for a refusal remembered, 0 for
 * nothing; the principal (or NULL) into *p, freed by the caller. */
static int got(mcp__token_cache *c, uint64_t gen, const char *header, int64_t now, char **p,
               char **scope)
{
    return mcp__token_cache_get(c, gen, header, now, p, scope);
}

/* An accepted token is remembered for its key set until its end, with its
 * scope; another header, another key set or a later time finds nothing; a
 * refusal is remembered too (an introspected token that is not active). */
static void accepted_tokens_are_remembered_until_their_end(void **state)
{
    (void)state;
    mcp__token_cache *c = mcp__token_cache_new();
    assert_non_null(c);
    uint64_t keys1 = 1, keys2 = 2;
    char *p, *sc;
    assert_int_equal(got(c, keys1, "Bearer abc", 100, &p, &sc), 0);
    assert_null(p);
    mcp__token_cache_put(c, keys1, "Bearer abc", 200, "https://as alice", "mcp:tools files:read");
    assert_int_equal(got(c, keys1, "Bearer abc", 150, &p, &sc), 1);
    assert_string_equal(p, "https://as alice");
    assert_string_equal(sc, "mcp:tools files:read");
    free(p);
    free(sc);
    assert_int_equal(got(c, keys2, "Bearer abc", 150, &p, &sc), 0); /* another key set */
    assert_int_equal(got(c, keys1, "Bearer abd", 150, &p, &sc), 0); /* another token */
    assert_int_equal(got(c, keys1, "Bearer ab", 150, &p, &sc), 0);  /* a prefix */
    assert_int_equal(got(c, keys1, NULL, 150, &p, &sc), 0);
    assert_int_equal(got(c, keys1, "Bearer abc", 199, &p, &sc), 1); /* good up to its end */
    free(p);
    free(sc);
    /* then gone: until is exp + skew, the first second jwt.c refuses the
     * token (now >= exp + skew), so the cache refuses it then too */
    assert_int_equal(got(c, keys1, "Bearer abc", 200, &p, &sc), 0);
    assert_int_equal(got(c, keys1, "Bearer abc", 150, &p, &sc), 0); /* dropped, not kept */
    /* No scope: NULL. A refusal: -1 until its end, nothing handed out. */
    mcp__token_cache_put(c, keys1, "Bearer noscope", 200, "https://as bob", NULL);
    assert_int_equal(got(c, keys1, "Bearer noscope", 150, &p, &sc), 1);
    assert_string_equal(p, "https://as bob");
    assert_null(sc);
    free(p);
    mcp__token_cache_put(c, 0, "Bearer bad", 110, NULL, "ignored");
    assert_int_equal(got(c, 0, "Bearer bad", 105, &p, &sc), -1);
    assert_null(p);
    assert_null(sc);
    assert_int_equal(got(c, 0, "Bearer bad", 110, &p, &sc), 0);
    /* Many tokens: bounded, the newest of a slot wins, every answer right. */
    char header[64], want[64];
    for (int i = 0; i < 5000; i++) {
        snprintf(header, sizeof header, "Bearer t%d", i);
        snprintf(want, sizeof want, "p%d", i);
        mcp__token_cache_put(c, keys1, header, 1000, want, want);
    }
    int found = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(header, sizeof header, "Bearer t%d", i);
        snprintf(want, sizeof want, "p%d", i);
        if (got(c, keys1, header, 500, &p, &sc) == 1) {
            assert_string_equal(p, want);
            assert_string_equal(sc, want);
            found++;
        }
        free(p);
        free(sc);
    }
    assert_true(found > 0 && found <= 512);
    mcp__token_cache_free(c);
    mcp__token_cache_free(NULL);
}

/* A granted scope string judged against the server's scopes and an
 * item's: 403 insufficient_scope naming every scope needed, once each. */
static void an_items_scopes_are_checked_against_the_granted_ones(void **state)
{
    (void)state;
    mcp__resource_verdict v;
    const char *const item[] = {"files:write", "mcp:tools", NULL};
    assert_int_equal(mcp__resource_scope_check(&config, "mcp:tools files:write", item, &v),
                     MCP_OK);
    assert_int_equal(v.status, 0);
    assert_string_equal(v.challenge, "");
    assert_int_equal(mcp__resource_scope_check(&config, "mcp:tools", NULL, &v), MCP_OK);
    assert_int_equal(v.status, 0);
    assert_int_equal(mcp__resource_scope_check(&config, "mcp:tools files:read", item, &v),
                     MCP_OK);
    assert_int_equal(v.status, 403);
    expect_challenge(&v, "insufficient_scope", "mcp:tools files:write");
    assert_non_null(strstr(v.why, "files:write"));
    assert_non_null(strstr(v.challenge, "resource_metadata=\"" META "\""));
    /* No scope claim at all: the server's own scope is lacking. */
    assert_int_equal(mcp__resource_scope_check(&config, NULL, item, &v), MCP_OK);
    assert_int_equal(v.status, 403);
    expect_challenge(&v, "insufficient_scope", "mcp:tools files:write");
    /* A server without scopes of its own: the item's alone. */
    mcp__resource_config bare = config;
    bare.scopes = NULL;
    const char *const write[] = {"files:write", NULL};
    assert_int_equal(mcp__resource_scope_check(&bare, "files:writex", write, &v), MCP_OK);
    assert_int_equal(v.status, 403);
    expect_challenge(&v, "insufficient_scope", "files:write");
    assert_int_equal(mcp__resource_scope_check(&bare, "", NULL, &v), MCP_OK);
    assert_int_equal(v.status, 0);
}

static void noop(void *ud, mcp_call *c)
{
    (void)ud;
    (void)c;
}

static const char *const *needs_of(const registry *r, const char *method, const char *params)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(params, strlen(params), NULL, NULL, &d, NULL), MCP_OK);
    const char *const *out = (const char *const *)1;
    assert_int_equal(
        mcp__registry_needs(r, method, strlen(method), mcp_json_doc_root(d), &out), MCP_OK);
    mcp_json_doc_free(d);
    return out;
}

/* The scopes a request needs are those of the item it names: a tool by
 * name, a prompt by name, a resource by URI, else the template a URI
 * matches; nothing for other methods, unknown items, or items without. */
static void an_items_scopes_are_found_by_the_request_naming_it(void **state)
{
    (void)state;
    static const char *const w[] = {"files:write", NULL}, *const rd[] = {"files:read", NULL},
                             *const p[] = {"prompts:read", NULL};
    item_list lists[LIST_KINDS] = {{0}};
    void *items[LIST_KINDS][2];
    tool *t1, *t2;
    mcp_tool ts = {.size = sizeof ts, .name = "write", .handler = noop, .scopes = w};
    assert_int_equal(mcp__tool_new(&ts, &t1, 1), MCP_OK);
    ts.name = "open";
    ts.scopes = NULL;
    assert_int_equal(mcp__tool_new(&ts, &t2, 2), MCP_OK);
    items[LIST_TOOLS][0] = t1;
    items[LIST_TOOLS][1] = t2;
    entry *res, *tmpl, *pr;
    mcp_resource rs = {.size = sizeof rs, .uri = "demo://exact", .name = "e", .read = noop};
    assert_int_equal(mcp__resource_new(&rs, &res, 3), MCP_OK);
    mcp_resource_template tt = {.size = sizeof tt, .uri_template = "demo://{x}", .name = "t",
                                .read = noop, .scopes = rd};
    assert_int_equal(mcp__template_new(&tt, &tmpl, 4, NULL, 0), MCP_OK);
    mcp_prompt ps = {.size = sizeof ps, .name = "greet", .get = noop, .scopes = p};
    assert_int_equal(mcp__prompt_new(&ps, &pr, 5), MCP_OK);
    items[LIST_RESOURCES][0] = res;
    items[LIST_TEMPLATES][0] = tmpl;
    items[LIST_PROMPTS][0] = pr;
    for (int k = 0; k < LIST_KINDS; k++) {
        lists[k].v = items[k];
        lists[k].n = k == LIST_TOOLS ? 2 : 1;
    }
    registry *r = mcp__registry_build(lists, 100, 0, MCP_CACHE_PUBLIC);
    assert_non_null(r);
    const char *const *n = needs_of(r, "tools/call", "{\"name\":\"write\"}");
    assert_non_null(n);
    assert_string_equal(n[0], "files:write");
    assert_null(n[1]);
    assert_null(needs_of(r, "tools/call", "{\"name\":\"open\"}"));
    assert_null(needs_of(r, "tools/call", "{\"name\":\"nope\"}"));
    assert_null(needs_of(r, "tools/call", "{\"name\":1}"));
    assert_null(needs_of(r, "tools/list", "{\"name\":\"write\"}"));
    n = needs_of(r, "prompts/get", "{\"name\":\"greet\"}");
    assert_string_equal(n[0], "prompts:read");
    /* The exact resource comes first (it has none), then the template. */
    assert_null(needs_of(r, "resources/read", "{\"uri\":\"demo://exact\"}"));
    n = needs_of(r, "resources/read", "{\"uri\":\"demo://other\"}");
    assert_string_equal(n[0], "files:read");
    assert_null(needs_of(r, "resources/read", "{\"uri\":\"else://other\"}"));
    mcp__registry_unref(r);
    for (int k = 0; k < LIST_KINDS; k++)
        for (size_t i = 0; i < lists[k].n; i++)
            mcp__item_unref(k, items[k][i]);
}

/* introspected(JSON): the verdict, principal, scope and bound, at NOW with
 * a time to live of 60 s. */
static int introspected(const char *json, mcp__resource_verdict *v, char **p, char **sc,
                        int64_t *until)
{
    return mcp__resource_introspected(&config, json, strlen(json), NOW, 0, v, p, sc, until);
}

#define ACTIVE "{\"active\":true,\"iss\":\"" ISS "\",\"sub\":\"alice\",\"aud\":\"" RES "\""

/* An introspection answer (RFC 7662) judged: active, this server's
 * audience, its issuer, not expired, a subject; scope kept; bounded by exp
 * and the time to live; inactive answers remembered briefly. */
static void introspection_answers_are_judged(void **state)
{
    (void)state;
    mcp__resource_verdict v;
    char *p, *sc;
    int64_t until;
    assert_int_equal(introspected(ACTIVE ",\"scope\":\"mcp:tools files:write\",\"exp\":"
                                  "1800000030}", &v, &p, &sc, &until), MCP_OK);
    assert_int_equal(v.status, 0);
    assert_string_equal(p, ISS " alice");
    assert_string_equal(sc, "mcp:tools files:write");
    assert_int_equal(until, 1800000030); /* exp, sooner than the ttl */
    free(p);
    free(sc);
    /* No exp, an audience array: the ttl. */
    assert_int_equal(introspected("{\"active\":true,\"sub\":\"bob\",\"aud\":[\"x\",\"" RES
                                  "\"],\"scope\":\"mcp:tools\"}", &v, &p, &sc, &until), MCP_OK);
    assert_int_equal(v.status, 0);
    assert_string_equal(p, ISS " bob");
    assert_int_equal(until, NOW + 60);
    free(p);
    free(sc);
    /* Without the server's scope: 403, the principal known. */
    assert_int_equal(introspected(ACTIVE ",\"scope\":\"files:read\"}", &v, &p, &sc, &until),
                     MCP_OK);
    assert_int_equal(v.status, 403);
    expect_challenge(&v, "insufficient_scope", "mcp:tools");
    free(p);
    free(sc);
    const char *refused[][2] = {
        {"{\"active\":false}", "not active"},
        {"{\"active\":\"true\",\"sub\":\"a\"}", "not active"},
        {ACTIVE ",\"exp\":1799999000}", "expired"},
        {ACTIVE ",\"nbf\":1800000300}", "not valid yet"},
        {ACTIVE ",\"nbf\":\"soon\"}", "nbf is not a number"},
        {"{\"active\":true,\"sub\":\"a\",\"iss\":\"https://evil\"}", "another issuer"},
        {"{\"active\":true,\"sub\":\"a\",\"aud\":\"https://other/mcp\"}", "another audience"},
        {"{\"active\":true,\"sub\":\"a\",\"aud\":[\"https://other/mcp\"]}", "another audience"},
        {"{\"active\":true,\"sub\":\"a\"}", "another audience"}, /* none named */
        {"{\"active\":true,\"username\":\"a\",\"aud\":\"" RES "\"}", "no subject"},
        {"{\"active\":true,\"aud\":\"" RES "\",\"scope\":\"mcp:tools\"}", "no subject"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(introspected(refused[i][0], &v, &p, &sc, &until), MCP_OK);
        assert_int_equal(v.status, 401);
        assert_null(p);
        assert_null(sc);
        assert_int_equal(until, NOW + MCP__INTROSPECT_INACTIVE_S);
        expect_challenge(&v, "invalid_token", "mcp:tools");
        if (!strstr(v.why, refused[i][1]))
            fail_msg("%s: %s", refused[i][0], v.why);
    }
    /* Valid from a moment ago, or within the clock skew: taken. */
    assert_int_equal(introspected(ACTIVE ",\"scope\":\"mcp:tools\",\"nbf\":1800000030}", &v, &p,
                                  &sc, &until), MCP_OK);
    assert_int_equal(v.status, 0);
    free(p);
    free(sc);
    /* The largest exp is far off, not an overflow into the past. */
    assert_int_equal(introspected(ACTIVE ",\"scope\":\"mcp:tools\",\"exp\":9223372036854775807}",
                                  &v, &p, &sc, &until), MCP_OK);
    assert_int_equal(v.status, 0);
    free(p);
    free(sc);
    assert_int_equal(introspected("[1]", &v, &p, &sc, &until), MCP_ERR_INVALID_ARG);
    assert_int_equal(introspected("<html>", &v, &p, &sc, &until), MCP_ERR_INVALID_ARG);
    /* The header is judged before anyone is asked. */
    const char *token = NULL;
    size_t n = 0;
    assert_int_equal(mcp__resource_bearer(&config, "Bearer abc.def ", &token, &n, &v), MCP_OK);
    assert_int_equal(v.status, 0);
    assert_int_equal(n, 7);
    assert_memory_equal(token, "abc.def", 7);
    token = NULL;
    assert_int_equal(mcp__resource_bearer(&config, NULL, &token, &n, &v), MCP_OK);
    assert_int_equal(v.status, 401);
    assert_null(token);
    expect_challenge(&v, NULL, "mcp:tools");
    assert_int_equal(mcp__resource_bearer(&config, "Bearer a b", &token, &n, &v), MCP_OK);
    assert_int_equal(v.status, 400);
    /* A refusal remembered is told as one. */
    assert_int_equal(mcp__resource_refused(&config, "remembered", &v), MCP_OK);
    assert_int_equal(v.status, 401);
    expect_challenge(&v, "invalid_token", "mcp:tools");
    assert_string_equal(v.why, "remembered");
}

static void the_metadata_document_and_its_path(void **state)
{
    (void)state;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__resource_metadata_path(&config, &b), MCP_OK);
    assert_string_equal(b.data, "/.well-known/oauth-protected-resource/mcp");
    b.len = 0;
    assert_int_equal(mcp__resource_metadata(&config, &b), MCP_OK);
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(b.data, b.len, NULL, NULL, &d, NULL), MCP_OK);
    const mcp_json *o = mcp_json_doc_root(d);
    assert_string_equal(mcp_json_string(mcp_json_object_get(o, "resource"), NULL), RES);
    assert_string_equal(
        mcp_json_string(mcp_json_array_at(mcp_json_object_get(o, "authorization_servers"), 0),
                        NULL),
        ISS);
    assert_string_equal(
        mcp_json_string(mcp_json_array_at(mcp_json_object_get(o, "scopes_supported"), 0), NULL),
        "mcp:tools");
    mcp_json_doc_free(d);
    mcp_buf_free(&b);
    const char *roots[] = {"https://mcp.example", "https://mcp.example/", "https://mcp.example//"};
    for (size_t i = 0; i < 3; i++) {
        mcp__resource_config c = config;
        c.resource = roots[i];
        mcp_buf_init(&b, 0, NULL);
        assert_int_equal(mcp__resource_metadata_path(&c, &b), MCP_OK);
        assert_string_equal(b.data, "/.well-known/oauth-protected-resource");
        mcp_buf_free(&b);
    }
    const char *bad[] = {"mcp.example/mcp", "https:///mcp", "https://h/mcp?x=1", "https://h/#f"};
    for (size_t i = 0; i < 4; i++) {
        mcp__resource_config c = config;
        c.resource = bad[i];
        mcp_buf_init(&b, 0, NULL);
        assert_int_equal(mcp__resource_metadata_path(&c, &b), MCP_ERR_INVALID_ARG);
        mcp_buf_free(&b);
    }
}

static void the_issuer_metadata_urls_in_the_clients_order(void **state)
{
    (void)state;
    char *u[3];
    size_t n;
    assert_int_equal(mcp__auth_issuer_metadata_urls("https://as.example/t1/", u, &n, NULL, 0),
                     MCP_OK);
    assert_int_equal(n, 3);
    assert_string_equal(u[0], "https://as.example/.well-known/oauth-authorization-server/t1");
    assert_string_equal(u[1], "https://as.example/.well-known/openid-configuration/t1");
    assert_string_equal(u[2], "https://as.example/t1/.well-known/openid-configuration");
    for (size_t i = 0; i < n; i++)
        free(u[i]);
    assert_int_equal(mcp__auth_issuer_metadata_urls("http://127.0.0.1:8080", u, &n, NULL, 0),
                     MCP_OK);
    assert_int_equal(n, 2);
    assert_string_equal(u[0], "http://127.0.0.1:8080/.well-known/oauth-authorization-server");
    assert_string_equal(u[1], "http://127.0.0.1:8080/.well-known/openid-configuration");
    for (size_t i = 0; i < n; i++)
        free(u[i]);
    const char *bad[] = {"http://as.example", "https://as.example/?q=1", "https://as.example/#f",
                         "as.example",        "https:///t1",             "https://u@as.example",
                         "ftp://as.example",  "https://as example"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char why[200] = "";
        assert_int_equal(mcp__auth_issuer_metadata_urls(bad[i], u, &n, why, sizeof why),
                         MCP_ERR_INVALID_ARG);
        assert_non_null(strstr(why, "https"));
    }
    assert_true(mcp__auth_url_secure("http://[::1]:9/jwks"));
    assert_true(mcp__auth_url_secure("http://localhost/jwks?x=1"));
    assert_false(mcp__auth_url_secure("http://127.0.0.2/jwks"));
}

static void only_the_issuers_own_metadata_is_used(void **state)
{
    (void)state;
    char *uri, why[300];
    const char *good = "{\"issuer\":\"" ISS "\",\"jwks_uri\":\"https://as.example/jwks\"}";
    assert_int_equal(mcp__auth_issuer_metadata_read(good, strlen(good), ISS, &uri, why, sizeof why),
                     MCP_OK);
    assert_string_equal(uri, "https://as.example/jwks");
    free(uri);
    struct {
        const char *doc, *says;
    } bad[] = {
        {"{\"issuer\":\"" ISS "/\",\"jwks_uri\":\"https://as.example/jwks\"}",
         "names the issuer \"" ISS "/\", not \"" ISS "\""},
        {"{\"issuer\":\"HTTPS://as.example/t1\",\"jwks_uri\":\"https://as.example/jwks\"}",
         "byte for byte"},
        {"{\"jwks_uri\":\"https://as.example/jwks\"}", "names no issuer"},
        {"{\"issuer\":\"" ISS "\"}", "no jwks_uri"},
        {"{\"issuer\":\"" ISS "\",\"jwks_uri\":\"http://as.example/jwks\"}", "not https"},
        {"[1]", "not a JSON object"},
        {"{\"issuer\":", "not JSON"},
        /* A member named twice: the parser's reason, not "not an object". */
        {"{\"issuer\":\"https://evil\",\"issuer\":\"" ISS "\",\"jwks_uri\":\"https://as.example/jwks\"}",
         "not JSON (duplicate"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uri = NULL;
        assert_int_equal(mcp__auth_issuer_metadata_read(bad[i].doc, strlen(bad[i].doc), ISS, &uri,
                                                        why, sizeof why),
                         MCP_ERR_INVALID_ARG);
        assert_null(uri);
        if (!strstr(why, bad[i].says))
            fail_msg("%s: %s", bad[i].doc, why);
    }
    size_t big = MCP__AS_METADATA_MAX_BYTES + 1;
    char *text = calloc(1, big + 1);
    memset(text, ' ', big);
    assert_int_equal(mcp__auth_issuer_metadata_read(text, big, ISS, &uri, why, sizeof why),
                     MCP_ERR_LIMIT);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_good_token_is_allowed_and_bound_to_its_subject),
        cmocka_unit_test(no_token_asks_for_one_with_where_to_learn_how),
        cmocka_unit_test(a_malformed_header_is_400),
        cmocka_unit_test(bad_tokens_are_401_invalid_token_and_say_why),
        cmocka_unit_test(a_missing_scope_is_403_with_every_scope_needed),
        cmocka_unit_test(the_metadata_document_and_its_path),
        cmocka_unit_test(accepted_tokens_are_remembered_until_their_end),
        cmocka_unit_test(an_items_scopes_are_checked_against_the_granted_ones),
        cmocka_unit_test(an_items_scopes_are_found_by_the_request_naming_it),
        cmocka_unit_test(introspection_answers_are_judged),
        cmocka_unit_test(the_issuer_metadata_urls_in_the_clients_order),
        cmocka_unit_test(only_the_issuers_own_metadata_is_used),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
