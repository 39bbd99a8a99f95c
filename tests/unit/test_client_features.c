/* SPDX-License-Identifier: MIT */
/*
 * The client's resources, prompts and completion (src/client/features.c)
 * against servers that misbehave on purpose (fake_server: a repeated
 * cursor, an item without its uri, a blob that is not base64, too many
 * completion values) and against mcp serve for what 2026-07-28 refuses.
 * What a well-behaved server gives is tested against the TypeScript SDK
 * (tests/interop/test_interop_features.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "updates.h"
#include "stderr_wait.h"

static mcp_client *fake(const char *mode, resource_updates *h)
{
    const char *const argv[] = {FAKE_SERVER, mode, NULL};
    mcp_client_options o = {.size = sizeof o, .capture_stderr = true, .close_grace_ms = 300,
                            .on_notification = resource_updates_hook, .notification_user_data = h};
    mcp_client *c = NULL;
    if (mcp_client_new(&o, &c) != MCP_OK || mcp_client_connect_stdio(c, argv) != MCP_OK)
        fail_msg("cannot connect to fake_server %s: %s", mode, c ? mcp_client_error(c) : "");
    return c;
}

static mcp_json_doc *json(const char *text)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static void error_says(mcp_client *c, const char *needle)
{
    if (!strstr(mcp_client_error(c), needle))
        fail_msg("the error \"%s\" does not say \"%s\"", mcp_client_error(c), needle);
}

typedef int (*list_fn)(mcp_client *, const mcp_client_call_options *, mcp_json_doc **,
                       mcp_cache_hint *);

static const struct {
    list_fn fn;
    const char *method;
} lists[] = {{mcp_client_list_tools, "tools/list"},
             {mcp_client_list_resources, "resources/list"},
             {mcp_client_list_resource_templates, "resources/templates/list"},
             {mcp_client_list_prompts, "prompts/list"}};

/* Each list method, from lists[first], against fake_server mode: rc and an
 * error that says `says` and names the method. */
static void every_list_fails(size_t first, const char *mode, int rc, const char *says)
{
    for (size_t i = first; i < sizeof lists / sizeof lists[0]; i++) {
        mcp_client *c = fake(mode, NULL);
        mcp_json_doc *out = (mcp_json_doc *)1;
        assert_int_equal(lists[i].fn(c, NULL, &out, NULL), rc);
        assert_null(out);
        error_says(c, lists[i].method);
        error_says(c, says);
        mcp_client_free(c);
    }
}

static void every_list_refuses_a_repeated_cursor(void **state)
{
    every_list_fails(0, "cursor", MCP_ERR_PROTOCOL, "a cursor it had sent before");
}

static void every_list_stops_at_the_page_limit(void **state)
{
    /* tools/list is test_client's. */
    every_list_fails(1, "pages", MCP_ERR_LIMIT, "more than 1000 pages");
}

static void an_empty_cursor_is_a_cursor(void **state)
{
    mcp_client *c = fake("emptycursor", NULL);
    mcp_json_doc *out;
    mcp_cache_hint hint = {.size = sizeof hint};
    assert_int_equal(mcp_client_list_resources(c, NULL, &out, &hint), MCP_OK);
    const mcp_json *list = mcp_json_doc_root(out);
    assert_int_equal(mcp_json_array_size(list), 2);
    assert_string_equal(mcp_json_string(mcp_json_object_get(mcp_json_array_at(list, 1), "uri"),
                                        NULL),
                        "file:///2");
    assert_false(hint.present); /* a 2025 server gives no caching hints */
    mcp_json_doc_free(out);
    mcp_client_free(c);
}

static void a_bad_item_is_a_protocol_error_naming_it(void **state)
{
    static const struct {
        list_fn fn;
        const char *says;
    } bad[] = {
        {mcp_client_list_resources, "resources/list result is malformed: resources[1] "
                                    "(\"nouri\") has no \"uri\""},
        {mcp_client_list_resource_templates, "resourceTemplates[0] (\"t\") has a "
                                             "\"uriTemplate\" that is not a string"},
        {mcp_client_list_prompts, "prompts[0] (\"p\"): arguments[0] has no \"name\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mcp_client *c = fake("malformed", NULL);
        mcp_json_doc *out = (mcp_json_doc *)1;
        assert_int_equal(bad[i].fn(c, NULL, &out, NULL), MCP_ERR_PROTOCOL);
        assert_null(out);
        error_says(c, bad[i].says);
        mcp_client_free(c);
    }
}

static void a_blob_that_is_not_base64_is_refused(void **state)
{
    mcp_client *c = fake("malformed", NULL);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_read_resource(c, "file:///b", NULL, &r), MCP_ERR_PROTOCOL);
    assert_int_equal(r.outcome, MCP_ERR_PROTOCOL);
    assert_null(r.result);
    error_says(c, "contents[0] (\"file:///b\") has a \"blob\" that is not base64");
    mcp_client_call_result_release(&r);
    /* The same check for a request made by hand. */
    mcp_json_doc *p = json("{\"uri\":\"file:///b\"}");
    assert_int_equal(mcp_client_request(c, "resources/read", mcp_json_doc_root(p), NULL, &r),
                     MCP_ERR_PROTOCOL);
    mcp_json_doc_free(p);
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

static void a_prompt_message_with_a_foreign_role_is_refused(void **state)
{
    mcp_client *c = fake("malformed", NULL);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_get_prompt(c, "p", NULL, NULL, &r), MCP_ERR_PROTOCOL);
    error_says(c, "messages[0] has a role other than");
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

static void completion_values_stop_at_100(void **state)
{
    mcp_client *c = fake("late", NULL);
    mcp_client_call_result r = {.size = sizeof r};
    mcp_completion comp = {.size = sizeof comp};
    assert_int_equal(mcp_client_complete(c, MCP_COMPLETE_PROMPT, "p", "a", "100", NULL, NULL, &r,
                                         &comp),
                     MCP_OK);
    assert_int_equal(comp.count, 100);
    assert_string_equal(mcp_json_string(mcp_json_array_at(comp.values, 99), NULL), "v99");
    assert_true(comp.has_more);
    assert_false(comp.has_total);
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_complete(c, MCP_COMPLETE_RESOURCE_TEMPLATE, "file:///{x}", "x",
                                         "101", NULL, NULL, &r, &comp),
                     MCP_ERR_PROTOCOL);
    assert_int_equal(comp.count, 0);
    assert_null(comp.values);
    error_says(c, "has 101 values, more than the 100 allowed");
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

static bool server_got(mcp_client *c, const char *method);

/* Output structs the caller allocates carry its size (common.h): one it
 * did not set, or one larger than this library knows, is refused before
 * anything is sent, and nothing is written into it. */
static void output_structs_of_a_bad_size_are_refused_untouched(void **state)
{
    mcp_client *c = fake("late", NULL);
    mcp_completion comp;
    memset(&comp, 0xAA, sizeof comp);
    comp.size = 0;
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_complete(c, MCP_COMPLETE_PROMPT, "p", "a", "1", NULL, NULL, &r,
                                         &comp),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(comp.size, 0);
    assert_int_equal(comp.count, (size_t)0xAAAAAAAAAAAAAAAAull);
    mcp_client_call_result_release(&r);
    mcp_client_call_result big = {.size = sizeof big + 1, .outcome = 7};
    assert_int_equal(mcp_client_get_prompt(c, "p", NULL, NULL, &big), MCP_ERR_INVALID_ARG);
    assert_int_equal(big.outcome, 7);
    mcp_client_call_result_release(&big); /* a size no call accepts: left alone */
    assert_int_equal(big.outcome, 7);
    mcp_cache_hint hint = {.size = 0, .ttl_ms = 7};
    mcp_json_doc *out = NULL;
    assert_int_equal(mcp_client_list_prompts(c, NULL, &out, &hint), MCP_ERR_INVALID_ARG);
    assert_null(out);
    assert_int_equal(hint.ttl_ms, 7);
    assert_false(server_got(c, "completion/complete"));
    assert_false(server_got(c, "prompts/get"));
    assert_false(server_got(c, "prompts/list"));
    mcp_client_free(c);
}

/* Whether the fake server has logged a request of method (it logs each
 * line it receives before answering it). */
static bool server_got(mcp_client *c, const char *method)
{
    char needle[80];
    snprintf(needle, sizeof needle, "\"method\":\"%s\"", method);
    return strstr(mcp_client_stderr(c, NULL), needle) != NULL;
}

static void arguments_that_are_not_strings_are_refused_before_sending(void **state)
{
    mcp_client *c = fake("late", NULL);
    mcp_client_call_result r = {.size = sizeof r};
    mcp_json_doc *args = json("{\"code\":\"x\",\"n\":1}");
    assert_int_equal(mcp_client_get_prompt(c, "p", mcp_json_doc_root(args), NULL, &r),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(r.outcome, MCP_ERR_INVALID_ARG);
    error_says(c, "the argument \"n\" is not a string");
    assert_int_equal(mcp_client_complete(c, MCP_COMPLETE_PROMPT, "p", "a", "", mcp_json_doc_root(args),
                                         NULL, &r, NULL),
                     MCP_ERR_INVALID_ARG);
    error_says(c, "the context argument \"n\" is not a string");
    mcp_json_doc_free(args);
    args = json("[\"x\"]");
    assert_int_equal(mcp_client_get_prompt(c, "p", mcp_json_doc_root(args), NULL, &r),
                     MCP_ERR_INVALID_ARG);
    mcp_json_doc_free(args);
    assert_int_equal(mcp_client_read_resource(c, "file:///\xff", NULL, &r), MCP_ERR_INVALID_ARG);
    error_says(c, "not valid UTF-8");
    assert_int_equal(mcp_client_complete(c, 0, "p", "a", "", NULL, NULL, &r, NULL),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_client_read_resource(c, NULL, NULL, &r), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_client_subscribe_resource(c, NULL, NULL), MCP_ERR_INVALID_ARG);
    /* A request that does go out, so that the server's log is known to be
     * complete up to it. */
    assert_int_equal(mcp_client_request(c, "ping", NULL, NULL, &r), MCP_OK);
    mcp_client_call_result_release(&r);
    assert_true(server_stderr_says(c, "\"method\":\"ping\"", 5000));
    assert_false(server_got(c, "prompts/get"));
    assert_false(server_got(c, "resources/read"));
    assert_false(server_got(c, "completion/complete"));
    mcp_client_free(c);
}

static void updates_of_a_subscribed_resource_reach_on_notification(void **state)
{
    resource_updates h = {0};
    mcp_client *c = fake("late", &h);
    assert_int_equal(mcp_client_subscribe_resource(c, "file:///watched", NULL), MCP_OK);
    for (int i = 0; i < 500 && h.count == 0; i++)
        mcp_client_run_once(c, true);
    assert_int_equal(h.count, 1);
    assert_string_equal(h.uri, "file:///watched");
    assert_int_equal(mcp_client_unsubscribe_resource(c, "file:///watched", NULL), MCP_OK);
    assert_true(server_stderr_says(c, "\"method\":\"resources/unsubscribe\"", 5000));
    mcp_client_free(c);
}

static void subscribing_is_refused_under_2026(void **state)
{
    const char *const argv[] = {MCP_BINARY, "serve", NULL};
    mcp_client_options o = {.size = sizeof o, .close_grace_ms = 300};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    /* Not connected: nothing to subscribe on. */
    assert_int_equal(mcp_client_subscribe_resource(c, "file:///x", NULL), MCP_ERR_STATE);
    assert_int_equal(mcp_client_connect_stdio(c, argv), MCP_OK);
    assert_string_equal(mcp_client_protocol_version(c), "2026-07-28");
    assert_int_equal(mcp_client_subscribe_resource(c, "file:///x", NULL), MCP_ERR_STATE);
    error_says(c, "resources/subscribe does not exist in protocol version 2026-07-28");
    error_says(c, "mcp_client_listen");
    assert_int_equal(mcp_client_unsubscribe_resource(c, "file:///x", NULL), MCP_ERR_STATE);
    error_says(c, "resources/unsubscribe does not exist");
    mcp_client_free(c);
}

static void blobs_decode_strictly(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_json_doc *d = json("{\"uri\":\"u\",\"blob\":\"AP8QiQ==\"}");
    assert_int_equal(mcp_resource_blob_decode(mcp_json_doc_root(d), &b), MCP_OK);
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "\x00\xff\x10\x89", 4);
    mcp_json_doc_free(d);
    static const char *const bad[] = {"{\"blob\":\"AP8QiQ\"}", "{\"blob\":\"AP8Q iQ==\"}",
                                      "{\"blob\":\"AP9=\"}", "{\"text\":\"AP8=\"}",
                                      "{\"blob\":5}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = json(bad[i]);
        assert_int_equal(mcp_resource_blob_decode(mcp_json_doc_root(d), &b), MCP_ERR_INVALID_ARG);
        assert_int_equal(b.len, 4); /* nothing appended */
        mcp_json_doc_free(d);
    }
    assert_int_equal(mcp_resource_blob_decode(NULL, &b), MCP_ERR_INVALID_ARG);
    mcp_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_list_refuses_a_repeated_cursor),
        cmocka_unit_test(every_list_stops_at_the_page_limit),
        cmocka_unit_test(an_empty_cursor_is_a_cursor),
        cmocka_unit_test(a_bad_item_is_a_protocol_error_naming_it),
        cmocka_unit_test(a_blob_that_is_not_base64_is_refused),
        cmocka_unit_test(a_prompt_message_with_a_foreign_role_is_refused),
        cmocka_unit_test(completion_values_stop_at_100),
        cmocka_unit_test(output_structs_of_a_bad_size_are_refused_untouched),
        cmocka_unit_test(arguments_that_are_not_strings_are_refused_before_sending),
        cmocka_unit_test(updates_of_a_subscribed_resource_reach_on_notification),
        cmocka_unit_test(subscribing_is_refused_under_2026),
        cmocka_unit_test(blobs_decode_strictly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
