/* SPDX-License-Identifier: MIT */
/*
 * WWW-Authenticate (src/transport/http_auth.c): challenges as RFC 9110 gives
 * them, the forms other SDKs misread (several challenges, commas inside
 * quotes, parameters in any order, a token68), what is refused and why,
 * the caps, and values written so that they read back the same.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/http_auth.h"

static mcp__auth_challenges parsed(const char *v)
{
    mcp__auth_challenges c;
    char why[200] = "";
    int rc = mcp__auth_challenges_parse(v, strlen(v), &c, why, sizeof why);
    if (rc != MCP_OK)
        fail_msg("%s: %d (%s)", v, rc, why);
    return c;
}

static void a_bearer_challenge_is_read_in_any_order_and_spelling(void **state)
{
    (void)state;
    const char *forms[] = {
        "Bearer resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\", "
        "scope=\"files:read files:write\", error=\"insufficient_scope\"",
        "bearer error=insufficient_scope,scope=\"files:read files:write\" ,  "
        "RESOURCE_METADATA = \"https://mcp.example/.well-known/oauth-protected-resource/mcp\"",
        /* Another challenge first, with a quoted comma and an escaped quote. */
        "Basic realm=\"a, \\\"b\\\" c\", charset=UTF-8, Bearer scope=\"files:read files:write\", "
        "error=\"insufficient_scope\", "
        "resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\"",
        /* Empty list elements. */
        ", ,Bearer  error=\"insufficient_scope\",, scope=\"files:read files:write\","
        "resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\",",
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        mcp__auth_challenges c = parsed(forms[i]);
        const mcp__auth_challenge *b = mcp__auth_challenge_find(&c, "Bearer");
        if (!b)
            fail_msg("form %zu: no Bearer", i);
        assert_string_equal(mcp__auth_param_get(b, "resource_metadata"),
                            "https://mcp.example/.well-known/oauth-protected-resource/mcp");
        assert_string_equal(mcp__auth_param_get(b, "scope"), "files:read files:write");
        assert_string_equal(mcp__auth_param_get(b, "error"), "insufficient_scope");
        assert_null(mcp__auth_param_get(b, "realm")); /* Basic's, not Bearer's */
        mcp__auth_challenges_free(&c);
    }
    mcp__auth_challenges c = parsed(forms[2]);
    assert_int_equal(c.count, 2);
    assert_string_equal(c.list[0].scheme, "Basic");
    assert_string_equal(mcp__auth_param_get(&c.list[0], "realm"), "a, \"b\" c");
    assert_string_equal(mcp__auth_param_get(&c.list[0], "charset"), "UTF-8");
    mcp__auth_challenges_free(&c);
}

static void token68_and_bare_schemes(void **state)
{
    (void)state;
    mcp__auth_challenges c = parsed("Negotiate abc+/d==, Bearer, DPoP algs=\"ES256 PS256\"");
    assert_int_equal(c.count, 3);
    assert_string_equal(c.list[0].scheme, "Negotiate");
    assert_string_equal(c.list[0].token68, "abc+/d==");
    assert_int_equal(c.list[0].nparams, 0);
    assert_string_equal(c.list[1].scheme, "Bearer");
    assert_int_equal(c.list[1].nparams, 0);
    assert_null(c.list[1].token68);
    assert_string_equal(mcp__auth_param_get(mcp__auth_challenge_find(&c, "dpop"), "algs"),
                        "ES256 PS256");
    mcp__auth_challenges_free(&c);
    c = parsed("Custom x=");
    assert_string_equal(c.list[0].token68, "x=");
    mcp__auth_challenges_free(&c);
}

static void what_is_not_the_grammar_is_refused_with_where(void **state)
{
    (void)state;
    struct {
        const char *v;
        const char *why;
    } bad[] = {
        {"", "no challenge"},
        {" , ,", "no challenge"},
        {"realm=\"x\"", "before any scheme"},
        {"Bearer scope=\"a\", scope=\"b\"", "named twice"},
        {"Bearer scope=\"a\", SCOPE=b", "named twice"},
        {"Bearer scope=\"abc", "closing quote"},
        {"Bearer scope=\"abc\\", "closing quote"},
        {"Bearer scope=\"a\x01\"", "control character"},
        {"Bearer a=1, scope=", "without a value"}, /* ("Bearer scope=" is a token68) */
        {"Bearer scope=\"a\" b", "after a parameter"},
        {"Bearer a b", "after a token68"},
        {"Negotiate abc==, x=1", "after a token68"},
        {"Bear(er x=1", "not a token"},
        {"Bearer\tx=1", "not a token"},
        {"Bearer @", "neither a token68"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mcp__auth_challenges c;
        char why[200] = "";
        int rc = mcp__auth_challenges_parse(bad[i].v, strlen(bad[i].v), &c, why, sizeof why);
        if (rc != MCP_ERR_INVALID_ARG || !strstr(why, bad[i].why) || !strstr(why, "offset"))
            fail_msg("%s: %d (%s)", bad[i].v, rc, why);
        mcp__auth_challenges_free(&c);
    }
}

static void the_caps_hold(void **state)
{
    (void)state;
    char v[MCP__AUTH_HEADER_MAX + 2];
    mcp__auth_challenges c;
    char why[200];
    memset(v, 'a', sizeof v - 1);
    v[sizeof v - 1] = '\0';
    assert_int_equal(mcp__auth_challenges_parse(v, strlen(v), &c, why, sizeof why), MCP_ERR_LIMIT);
    mcp__auth_challenges_free(&c);
    size_t n = 0;
    for (int i = 0; i <= MCP__AUTH_CHALLENGES_MAX; i++)
        n += (size_t)snprintf(v + n, sizeof v - n, "S%d, ", i);
    assert_int_equal(mcp__auth_challenges_parse(v, n, &c, why, sizeof why), MCP_ERR_LIMIT);
    mcp__auth_challenges_free(&c);
    n = (size_t)snprintf(v, sizeof v, "Bearer");
    for (int i = 0; i <= MCP__AUTH_PARAMS_MAX; i++)
        n += (size_t)snprintf(v + n, sizeof v - n, "%sp%d=1", i ? ", " : " ", i);
    assert_int_equal(mcp__auth_challenges_parse(v, n, &c, why, sizeof why), MCP_ERR_LIMIT);
    mcp__auth_challenges_free(&c);
}

static void values_written_read_back_the_same(void **state)
{
    (void)state;
    const char *values[] = {"plain", "with space", "a \"quoted\" word", "back\\slash", "",
                            "https://x.example/.well-known/oauth-protected-resource/mcp?a=b,c"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        assert_int_equal(mcp_buf_append(&b, "Bearer", 6), MCP_OK);
        assert_int_equal(mcp__auth_param_write(&b, true, "error", "invalid_token"), MCP_OK);
        assert_int_equal(mcp__auth_param_write(&b, false, "v", values[i]), MCP_OK);
        mcp__auth_challenges c = parsed(b.data);
        assert_string_equal(mcp__auth_param_get(&c.list[0], "v"), values[i]);
        assert_string_equal(mcp__auth_param_get(&c.list[0], "error"), "invalid_token");
        mcp__auth_challenges_free(&c);
        mcp_buf_free(&b);
    }
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__auth_param_write(&b, true, "bad name", "x"), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__auth_param_write(&b, true, "n", "line\r\nInjected: 1"),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(b.len, 0);
    mcp_buf_free(&b);
}

/* Forms (RFC 6749 appendix B): every byte but the unreserved ones is
 * percent-encoded, so a value cannot add a parameter; a pair that does not
 * fit leaves the form as it was. */
static void form_pairs_are_encoded_whole_or_not_at_all(void **state)
{
    (void)state;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__auth_form_add(&b, "token", "a b&c=d+e/\xc3\xa9~-._"), MCP_OK);
    assert_int_equal(mcp__auth_form_add(&b, "token_type_hint", "access_token"), MCP_OK);
    assert_string_equal(b.data, "token=a%20b%26c%3Dd%2Be%2F%C3%A9~-._&token_type_hint=access_token");
    mcp_buf_free(&b);
    mcp_buf_init(&b, 12, NULL);
    assert_int_equal(mcp__auth_form_add(&b, "a", "b"), MCP_OK);
    assert_int_equal(mcp__auth_form_add(&b, "c", "a value too long"), MCP_ERR_LIMIT);
    assert_string_equal(b.data, "a=b");
    mcp_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bearer_challenge_is_read_in_any_order_and_spelling),
        cmocka_unit_test(token68_and_bare_schemes),
        cmocka_unit_test(what_is_not_the_grammar_is_refused_with_where),
        cmocka_unit_test(the_caps_hold),
        cmocka_unit_test(values_written_read_back_the_same),
        cmocka_unit_test(form_pairs_are_encoded_whole_or_not_at_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
