/* SPDX-License-Identifier: MIT */
/*
 * The OAuth client's discovery (src/client/auth/discovery.c): the
 * well-known URLs in the order of authorization-server-discovery.mdx
 * (2026-07-28) and basic/authorization.mdx (2025-11-25), its examples
 * among them, and the documents found there refused when they name
 * another resource or another issuer, before anything of them is used.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "client/auth/auth.h"
#include "core/base64.h"

static void expect_urls(int (*fn)(const char *, mcp__auth_urls *, char *, size_t), const char *in,
                        const char *a, const char *b, const char *c)
{
    mcp__auth_urls u;
    char why[200] = "";
    if (fn(in, &u, why, sizeof why) != MCP_OK)
        fail_msg("%s: %s", in, why);
    const char *want[] = {a, b, c};
    size_t n = c ? 3 : b ? 2 : 1;
    if (u.count != n)
        fail_msg("%s: %zu URLs, not %zu", in, u.count, n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(u.url[i], want[i]))
            fail_msg("%s: URL %zu is %s, not %s", in, i, u.url[i], want[i]);
    mcp__auth_urls_free(&u);
}

static void protected_resource_metadata_is_looked_for_at_the_path_then_the_root(void **state)
{
    (void)state;
    expect_urls(mcp__auth_prm_urls, "https://example.com/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource", NULL);
    expect_urls(mcp__auth_prm_urls, "https://example.com/mcp/#frag",
                "https://example.com/.well-known/oauth-protected-resource/mcp",
                "https://example.com/.well-known/oauth-protected-resource", NULL);
    expect_urls(mcp__auth_prm_urls, "http://127.0.0.1:8080/mcp?tenant=a",
                "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp?tenant=a",
                "http://127.0.0.1:8080/.well-known/oauth-protected-resource", NULL);
    expect_urls(mcp__auth_prm_urls, "https://example.com",
                "https://example.com/.well-known/oauth-protected-resource", NULL, NULL);
    expect_urls(mcp__auth_prm_urls, "https://example.com/",
                "https://example.com/.well-known/oauth-protected-resource", NULL, NULL);
    mcp__auth_urls u;
    char why[200];
    assert_int_equal(mcp__auth_prm_urls("ftp://example.com/mcp", &u, why, sizeof why),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__auth_prm_urls("not a url", &u, why, sizeof why), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__auth_prm_urls(NULL, &u, why, sizeof why), MCP_ERR_INVALID_ARG);
}

static void authorization_server_metadata_in_the_spec_order(void **state)
{
    (void)state;
    expect_urls(mcp__auth_as_metadata_urls, "https://auth.example.com/tenant1",
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration");
    expect_urls(mcp__auth_as_metadata_urls, "https://auth.example.com/tenant1/",
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration");
    expect_urls(mcp__auth_as_metadata_urls, "https://auth.example.com",
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration", NULL);
    expect_urls(mcp__auth_as_metadata_urls, "http://localhost:9000",
                "http://localhost:9000/.well-known/oauth-authorization-server",
                "http://localhost:9000/.well-known/openid-configuration", NULL);
    const char *bad[] = {"http://auth.example.com", "https://auth.example.com/?a=b",
                         "https://auth.example.com/#x", "file:///etc/passwd", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mcp__auth_urls u;
        char why[200] = "";
        if (mcp__auth_as_metadata_urls(bad[i], &u, why, sizeof why) != MCP_ERR_INVALID_ARG ||
            !why[0])
            fail_msg("%s was taken", bad[i]);
    }
}

#define SERVER "https://mcp.example.com/mcp"

static int prm(const char *json, mcp__auth_prm *p, char *why)
{
    return mcp__auth_prm_read(json, strlen(json), SERVER, p, why, 200);
}

static void protected_resource_metadata_must_name_this_server(void **state)
{
    (void)state;
    mcp__auth_prm p;
    char why[200] = "";
    assert_int_equal(prm("{\"resource\":\"https://mcp.example.com/mcp\","
                         "\"authorization_servers\":[\"https://auth.example.com/t1\","
                         "\"http://127.0.0.1:9000\"],\"scopes_supported\":[\"files:read\","
                         "\"files:write\"],\"bearer_methods_supported\":[\"header\"]}",
                         &p, why),
                     MCP_OK);
    assert_string_equal(p.resource, "https://mcp.example.com/mcp");
    assert_int_equal(p.nservers, 2);
    assert_string_equal(p.servers[0], "https://auth.example.com/t1");
    assert_string_equal(p.scopes, "files:read files:write");
    mcp__auth_prm_free(&p);
    /* A parent of the server's path names it too, kept as given. */
    assert_int_equal(prm("{\"resource\":\"https://MCP.example.com\","
                         "\"authorization_servers\":[\"https://a.example\"]}", &p, why),
                     MCP_OK);
    assert_string_equal(p.resource, "https://MCP.example.com");
    assert_null(p.scopes);
    mcp__auth_prm_free(&p);
    struct {
        const char *json, *why;
    } bad[] = {
        {"{\"resource\":\"https://evil.example/mcp\",\"authorization_servers\":[\"https://a.example\"]}",
         "another resource"},
        {"{\"resource\":\"https://mcp.example.com:8443/mcp\",\"authorization_servers\":[\"https://a.example\"]}",
         "another resource"},
        {"{\"resource\":\"http://mcp.example.com/mcp\",\"authorization_servers\":[\"https://a.example\"]}",
         "another resource"},
        {"{\"resource\":\"https://mcp.example.com/mc\",\"authorization_servers\":[\"https://a.example\"]}",
         "another resource"},
        {"{\"resource\":\"https://mcp.example.com/mcp/x\",\"authorization_servers\":[\"https://a.example\"]}",
         "another resource"},
        /* curl reads three slashes as two; the resource goes on as written */
        {"{\"resource\":\"https:///mcp.example.com/mcp\",\"authorization_servers\":[\"https://a.example\"]}",
         "another resource"},
        {"{\"authorization_servers\":[\"https://a.example\"]}", "no resource"},
        {"{\"resource\":\"https://mcp.example.com/mcp\",\"authorization_servers\":[]}",
         "no authorization server"},
        {"{\"resource\":\"https://mcp.example.com/mcp\"}", "no authorization server"},
        {"{\"resource\":\"https://mcp.example.com/mcp\",\"authorization_servers\":[\"http://a.example\"]}",
         "not an https URL"},
        {"{\"resource\":\"https://mcp.example.com/mcp\",\"authorization_servers\":[7]}",
         "not an https URL"},
        {"{\"resource\":\"https://mcp.example.com/mcp\",\"authorization_servers\":[\"https://a.example\"],"
         "\"scopes_supported\":\"a b\"}",
         "scopes_supported"},
        {"{\"resource\":\"https://mcp.example.com/mcp\",\"authorization_servers\":[\"https://a.example\"],"
         "\"scopes_supported\":[\"a b\"]}",
         "scopes_supported"},
        {"[]", "not a JSON object"},
        {"{\"resource\":", "not a JSON object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = '\0';
        if (prm(bad[i].json, &p, why) == MCP_OK || !strstr(why, bad[i].why))
            fail_msg("%s: %s", bad[i].json, why);
        assert_null(p.resource);
        assert_int_equal(p.nservers, 0);
    }
}

static int server(const char *json, const char *issuer, mcp__auth_server *s, char *why)
{
    return mcp__auth_server_read(json, strlen(json), issuer, s, why, 200);
}

static void authorization_server_metadata_must_name_the_issuer_asked(void **state)
{
    (void)state;
    mcp__auth_server s;
    char why[200] = "";
    static const char good[] =
        "{\"issuer\":\"https://auth.example.com/t1\","
        "\"authorization_endpoint\":\"https://auth.example.com/t1/authorize\","
        "\"token_endpoint\":\"https://auth.example.com/t1/token\","
        "\"registration_endpoint\":\"https://auth.example.com/t1/register\","
        "\"jwks_uri\":\"https://auth.example.com/t1/jwks\","
        "\"response_types_supported\":[\"code\"],"
        "\"code_challenge_methods_supported\":[\"plain\",\"S256\"],"
        "\"token_endpoint_auth_methods_supported\":[\"none\",\"private_key_jwt\"],"
        "\"client_id_metadata_document_supported\":true,"
        "\"scopes_supported\":[\"openid\",\"offline_access\"]}";
    assert_int_equal(server(good, "https://auth.example.com/t1", &s, why), MCP_OK);
    assert_string_equal(s.token_endpoint, "https://auth.example.com/t1/token");
    assert_string_equal(s.registration_endpoint, "https://auth.example.com/t1/register");
    assert_null(s.introspection_endpoint);
    assert_true(s.s256);
    assert_true(s.client_id_metadata_documents);
    assert_int_equal(s.auth_methods, MCP__AUTH_METHOD_NONE | MCP__AUTH_METHOD_KEY_JWT);
    assert_string_equal(s.scopes, "openid offline_access");
    mcp__auth_server_free(&s);
    /* The spec's example: a document from the attacker naming the honest
     * issuer is not used; nor one differing by a slash or a case. */
    const char *asked[] = {"https://attacker.example", "https://auth.example.com/t1/",
                           "https://AUTH.example.com/t1"};
    for (size_t i = 0; i < sizeof asked / sizeof *asked; i++) {
        assert_int_equal(server(good, asked[i], &s, why), MCP_ERR_INVALID_ARG);
        assert_non_null(strstr(why, "another issuer"));
    }
    /* Nothing said of PKCE or methods: no S256, client_secret_basic. */
    assert_int_equal(server("{\"issuer\":\"http://127.0.0.1:9000\",\"authorization_endpoint\":"
                            "\"http://127.0.0.1:9000/a\",\"token_endpoint\":\"http://127.0.0.1:9000/t\"}",
                            "http://127.0.0.1:9000", &s, why),
                     MCP_OK);
    assert_false(s.s256);
    assert_int_equal(s.auth_methods, MCP__AUTH_METHOD_BASIC);
    mcp__auth_server_free(&s);
    struct {
        const char *json, *why;
    } bad[] = {
        {"{\"issuer\":\"https://a.example\",\"token_endpoint\":\"https://a.example/t\"}",
         "lacks its authorization or token endpoint"},
        {"{\"issuer\":\"https://a.example\",\"authorization_endpoint\":\"http://a.example/a\","
         "\"token_endpoint\":\"https://a.example/t\"}",
         "not an https URL"},
        {"{\"issuer\":\"https://a.example\",\"authorization_endpoint\":\"https://a.example/a\","
         "\"token_endpoint\":\"https://a.example/t\",\"jwks_uri\":5}",
         "not an https URL"},
        {"{\"issuer\":\"https://a.example\",\"authorization_endpoint\":\"https://a.example/a\","
         "\"token_endpoint\":\"https://a.example/t\",\"response_types_supported\":[\"token\"]}",
         "authorization code flow"},
        {"{\"authorization_endpoint\":\"https://a.example/a\",\"token_endpoint\":\"https://a.example/t\"}",
         "another issuer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = '\0';
        if (server(bad[i].json, "https://a.example", &s, why) == MCP_OK ||
            !strstr(why, bad[i].why))
            fail_msg("%s: %s", bad[i].json, why);
        assert_null(s.issuer);
        assert_null(s.token_endpoint);
    }
    char *big = calloc(1, MCP__AUTH_DOC_MAX + 2);
    memset(big, ' ', MCP__AUTH_DOC_MAX + 1);
    assert_int_equal(mcp__auth_server_read(big, MCP__AUTH_DOC_MAX + 1, "https://a.example", &s,
                                           why, sizeof why),
                     MCP_ERR_LIMIT);
    free(big);
}

/* The flow ------------------------------------------------------------------------ */

static void pkce_secrets_are_fresh_and_s256_of_the_verifier(void **state)
{
    (void)state;
    mcp__auth_pkce a, b;
    assert_int_equal(mcp__auth_pkce_new(&a), MCP_OK);
    assert_int_equal(mcp__auth_pkce_new(&b), MCP_OK);
    assert_int_equal(strlen(a.verifier), 43); /* RFC 7636: 43 to 128 */
    assert_int_equal(strspn(a.verifier, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                        "0123456789-_"),
                     43);
    assert_int_equal(strlen(a.state), 22);
    assert_string_not_equal(a.verifier, b.verifier);
    assert_string_not_equal(a.state, b.state);
    unsigned char h[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)a.verifier, 43, h);
    mcp_buf e;
    mcp_buf_init(&e, 0, NULL);
    assert_int_equal(mcp__base64url_encode(&e, h, sizeof h), MCP_OK);
    assert_string_equal(a.challenge, e.data);
    mcp_buf_free(&e);
}

static void the_authorization_url_carries_pkce_state_and_the_resource_as_given(void **state)
{
    (void)state;
    mcp__auth_pkce p = {.verifier = "v", .challenge = "CH_al-lenge", .state = "st"};
    mcp__auth_server as = {.authorization_endpoint = "https://as.example/authorize?tenant=1",
                           .s256 = true};
    mcp__auth_request r = {.client_id = "client 1",
                           .redirect_uri = "http://127.0.0.1:8123/callback",
                           .resource = "https://mcp.example.com",
                           .scope = "files:read offline_access",
                           .pkce = &p};
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    char why[200] = "";
    assert_int_equal(mcp__auth_authorize_url(&as, &r, &b, why, sizeof why), MCP_OK);
    assert_string_equal(b.data,
                        "https://as.example/authorize?tenant=1&response_type=code&client_id="
                        "client%201&redirect_uri=http%3A%2F%2F127.0.0.1%3A8123%2Fcallback&"
                        "code_challenge=CH_al-lenge&code_challenge_method=S256&state=st&"
                        "resource=https%3A%2F%2Fmcp.example.com&scope=files%3Aread%20"
                        "offline_access");
    b.len = 0;
    /* No S256 advertised: refused unless asked to proceed. */
    as.s256 = false;
    assert_int_equal(mcp__auth_authorize_url(&as, &r, &b, why, sizeof why), MCP_ERR_INVALID_ARG);
    assert_non_null(strstr(why, "S256"));
    assert_int_equal(b.len, 0);
    r.without_s256 = true;
    r.scope = NULL;
    as.authorization_endpoint = "https://as.example/authorize";
    assert_int_equal(mcp__auth_authorize_url(&as, &r, &b, why, sizeof why), MCP_OK);
    assert_non_null(strstr(b.data, "https://as.example/authorize?response_type=code&"));
    assert_null(strstr(b.data, "scope="));
    mcp_buf_free(&b);
    r.resource = NULL;
    assert_int_equal(mcp__auth_authorize_url(&as, &r, &b, why, sizeof why), MCP_ERR_INVALID_ARG);
}

static int callback(const char *q, bool advertised, char **code, char *why)
{
    return mcp__auth_callback_read(q, strlen(q), "st", "https://as.example", advertised, code,
                                   why, 200);
}

static void the_redirect_is_checked_issuer_first(void **state)
{
    (void)state;
    char *code = NULL;
    char why[200];
    /* RFC 9207 as 2026-07-28 tables it. */
    assert_int_equal(callback("code=c1&state=st&iss=https%3A%2F%2Fas.example", true, &code, why),
                     MCP_OK);
    assert_string_equal(code, "c1");
    free(code);
    assert_int_equal(callback("code=c1&state=st", true, &code, why), MCP_ERR_INVALID_ARG);
    assert_non_null(strstr(why, "lacks the iss"));
    assert_int_equal(callback("code=c1&state=st&iss=https%3A%2F%2Fevil.example", false, &code, why),
                     MCP_ERR_INVALID_ARG);
    assert_non_null(strstr(why, "another issuer"));
    assert_int_equal(callback("code=c1&state=st", false, &code, why), MCP_OK);
    free(code);
    /* No normalization before comparing: a slash, a case, a port. */
    const char *near[] = {"https%3A%2F%2Fas.example%2F", "https%3A%2F%2FAS.example",
                          "https%3A%2F%2Fas.example%3A443"};
    for (int i = 0; i < 3; i++) {
        char q[200];
        snprintf(q, sizeof q, "code=c1&state=st&iss=%s", near[i]);
        assert_int_equal(callback(q, false, &code, why), MCP_ERR_INVALID_ARG);
        assert_null(code);
    }
    /* A mismatched issuer's error is neither acted on nor shown. */
    assert_int_equal(callback("error=access_denied&error_description=Click+here&state=st&"
                              "iss=https%3A%2F%2Fevil.example",
                              false, &code, why),
                     MCP_ERR_INVALID_ARG);
    assert_null(strstr(why, "Click"));
    /* The right issuer's error is, after the state. */
    assert_int_equal(callback("error=access_denied&error_description=The+user+said+no%0A&"
                              "state=st&iss=https%3A%2F%2Fas.example",
                              true, &code, why),
                     MCP_ERR_REMOTE);
    assert_non_null(strstr(why, "access_denied: The user said no?"));
    assert_int_equal(callback("error=access_denied&state=other", false, &code, why),
                     MCP_ERR_INVALID_ARG);
    assert_non_null(strstr(why, "state"));
    /* Decoding, and what is malformed. */
    assert_int_equal(callback("state=st&code=a%2Bb+c", false, &code, why), MCP_OK);
    assert_string_equal(code, "a+b c");
    free(code);
    const char *bad[] = {"state=st&code=%zz", "state=st&code=%4", "state=st&state=st&code=c",
                         "state=st&code=a%00b", "state=st", "state=st&code="};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (callback(bad[i], false, &code, why) != MCP_ERR_INVALID_ARG)
            fail_msg("%s was taken", bad[i]);
        assert_null(code);
    }
}

static void token_responses_and_what_their_errors_mean(void **state)
{
    (void)state;
    mcp__auth_tokens t;
    char why[200];
    const char ok[] = "{\"access_token\":\"at\",\"token_type\":\"bearer\",\"expires_in\":3600,"
                      "\"refresh_token\":\"rt\",\"scope\":\"a b\"}";
    assert_int_equal(mcp__auth_token_response_read(ok, sizeof ok - 1, 1000, &t, why, sizeof why),
                     MCP__AUTH_TOKEN_OK);
    assert_string_equal(t.access_token, "at");
    assert_string_equal(t.refresh_token, "rt");
    assert_string_equal(t.scope, "a b");
    assert_false(t.dpop);
    assert_int_equal(t.expires_at, 4600); /* absolute */
    mcp__auth_tokens_free(&t);
    const char dpop[] = "{\"access_token\":\"at\",\"token_type\":\"DPoP\"}";
    assert_int_equal(mcp__auth_token_response_read(dpop, sizeof dpop - 1, 1000, &t, why, sizeof why),
                     MCP__AUTH_TOKEN_OK);
    assert_true(t.dpop);
    assert_int_equal(t.expires_at, 0);
    mcp__auth_tokens_free(&t);
    /* A lifetime as a string of digits (some servers), and 0 (taken as
     * not said, not as "refresh before every request"). */
    const char text[] = "{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":\"3600\"}";
    assert_int_equal(mcp__auth_token_response_read(text, sizeof text - 1, 1000, &t, why, sizeof why),
                     MCP__AUTH_TOKEN_OK);
    assert_int_equal(t.expires_at, 4600);
    mcp__auth_tokens_free(&t);
    const char zero[] = "{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":0}";
    assert_int_equal(mcp__auth_token_response_read(zero, sizeof zero - 1, 1000, &t, why, sizeof why),
                     MCP__AUTH_TOKEN_OK);
    assert_int_equal(t.expires_at, 0);
    mcp__auth_tokens_free(&t);
    struct {
        const char *json;
        mcp__auth_token_outcome want;
    } cases[] = {
        {"{\"error\":\"invalid_grant\",\"error_description\":\"spent\"}",
         MCP__AUTH_TOKEN_INVALID_GRANT},
        {"{\"error\":\"invalid_client\"}", MCP__AUTH_TOKEN_INVALID_CLIENT},
        {"{\"error\":\"temporarily_unavailable\"}", MCP__AUTH_TOKEN_ERROR},
        {"{\"access_token\":\"at\"}", MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":\"at\",\"token_type\":\"mac\"}", MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":\"36x0\"}",
         MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":\"\"}",
         MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":-1}",
         MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":7,\"token_type\":\"Bearer\"}", MCP__AUTH_TOKEN_MALFORMED},
        /* Tokens an Authorization header cannot carry as they are: a
         * CRLF would forge a header, a space or a comma a parameter. */
        {"{\"access_token\":\"at\\r\\nX-Evil: 1\",\"token_type\":\"Bearer\"}",
         MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":\"a t\",\"token_type\":\"Bearer\"}", MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":\"a,b\",\"token_type\":\"Bearer\"}", MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":\"=abc\",\"token_type\":\"Bearer\"}", MCP__AUTH_TOKEN_MALFORMED},
        {"{\"access_token\":\"\",\"token_type\":\"Bearer\"}", MCP__AUTH_TOKEN_MALFORMED},
        {"<html>", MCP__AUTH_TOKEN_MALFORMED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        why[0] = '\0';
        mcp__auth_token_outcome o =
            mcp__auth_token_response_read(cases[i].json, strlen(cases[i].json), 1000, &t, why,
                                          sizeof why);
        if (o != cases[i].want || !why[0])
            fail_msg("%s: %d (%s)", cases[i].json, o, why);
        assert_null(t.access_token);
    }
}

static void scopes_follow_the_strategy_and_step_up_by_union(void **state)
{
    (void)state;
    struct {
        const char *challenge, *prm, *as, *before;
        bool refresh;
        const char *want;
    } cases[] = {
        {"files:read", "a b", NULL, NULL, false, "files:read"},
        {NULL, "a b", NULL, NULL, false, "a b"},
        {"", "a b", NULL, NULL, false, "a b"},
        {NULL, NULL, NULL, NULL, false, NULL},
        {"files:write files:read", NULL, NULL, "files:read mcp", false, "files:read mcp files:write"},
        {NULL, "a b", NULL, "files:read", false, "files:read"},
        {"x", NULL, "openid offline_access", NULL, true, "x offline_access"},
        {"x", NULL, "openid", NULL, true, "x"},
        {"x", NULL, "offline_access", NULL, false, "x"},
        {"  x   x ", NULL, NULL, NULL, false, "x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got;
        assert_int_equal(mcp__auth_scopes_to_ask(cases[i].challenge, cases[i].prm, cases[i].as,
                                                 cases[i].before, cases[i].refresh, &got),
                         MCP_OK);
        if (cases[i].want ? !got || strcmp(got, cases[i].want) : got != NULL)
            fail_msg("case %zu: %s, not %s", i, got ? got : "(none)",
                     cases[i].want ? cases[i].want : "(none)");
        free(got);
    }
}

/* The 2025-03-26 fallback reads the metadata at the MCP server's origin,
 * named by nobody: the server is known as that origin whatever issuer the
 * document claims, so a claim of another server's issuer gets none of
 * what is kept or given for that one (a client_issuer's secret, a
 * registration, assertions addressed to it). */
static void origin_metadata_is_known_as_its_origin(void **state)
{
    (void)state;
    static const char fmt[] = "{\"issuer\":\"%s\","
                              "\"authorization_endpoint\":\"https://mcp.example.com/authorize\","
                              "\"token_endpoint\":\"https://mcp.example.com/token\"}";
    static const struct {
        const char *issuer;
        bool renamed;
    } cases[] = {
        {"https://mcp.example.com", false},
        {"https://mcp.example.com/", false},
        {"https://real-as.example", true},
        {"https://mcp.example.com.evil", true},
        {"https://mcp.example.com/oauth", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char json[512], why[200] = "";
        snprintf(json, sizeof json, fmt, cases[i].issuer);
        mcp__auth_server s;
        bool renamed = !cases[i].renamed;
        assert_int_equal(mcp__auth_legacy_server_read(json, strlen(json), "https://mcp.example.com",
                                                      &s, &renamed, why, sizeof why),
                         MCP_OK);
        assert_true(s.legacy);
        assert_string_equal(s.issuer, "https://mcp.example.com");
        if (renamed != cases[i].renamed)
            fail_msg("%s: renamed %d", cases[i].issuer, renamed);
        mcp__auth_server_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(protected_resource_metadata_is_looked_for_at_the_path_then_the_root),
        cmocka_unit_test(authorization_server_metadata_in_the_spec_order),
        cmocka_unit_test(protected_resource_metadata_must_name_this_server),
        cmocka_unit_test(authorization_server_metadata_must_name_the_issuer_asked),
        cmocka_unit_test(origin_metadata_is_known_as_its_origin),
        cmocka_unit_test(pkce_secrets_are_fresh_and_s256_of_the_verifier),
        cmocka_unit_test(the_authorization_url_carries_pkce_state_and_the_resource_as_given),
        cmocka_unit_test(the_redirect_is_checked_issuer_first),
        cmocka_unit_test(token_responses_and_what_their_errors_mean),
        cmocka_unit_test(scopes_follow_the_strategy_and_step_up_by_union),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
