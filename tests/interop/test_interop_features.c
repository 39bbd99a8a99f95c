/* SPDX-License-Identifier: MIT */
/*
 * libmcp's client against the resources, prompts and completion of the
 * official TypeScript SDK (ts_features.mjs): v1 over stdio (ts_server.mjs,
 * 2025-11-25 and 2025-06-18) and over Streamable HTTP (ts_http_server.mjs,
 * 2025-11-25 with a session and a GET stream), and v2 under 2026-07-28 over
 * stdio (ts2_server.mjs), where resources/subscribe is no more.
 * MCP_INTEROP_NODE names node, MCP_INTEROP_DIR the directory of the
 * scripts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http_peer.h"
#include "missing.h"
#include "mcp/mcp.h"
#include "updates.h"
#include "stderr_wait.h"

static const char *script(const char *name)
{
    static char path[512];
    const char *dir = getenv("MCP_INTEROP_DIR");
    assert_non_null(dir);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static mcp_client *new_client(resource_updates *h, const char *version)
{
    mcp_client_options o = {.size = sizeof o, .capture_stderr = true, .close_grace_ms = 2000,
                            .on_notification = resource_updates_hook, .notification_user_data = h,
                            .connect_mode = version ? MCP_CONNECT_LEGACY : MCP_CONNECT_AUTO,
                            .protocol_version = version};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    return c;
}

static mcp_client *over_stdio(resource_updates *h, const char *name, const char *version)
{
    const char *node = getenv("MCP_INTEROP_NODE");
    assert_non_null(node);
    const char *const argv[] = {node, script(name), NULL};
    mcp_client *c = new_client(h, version);
    if (mcp_client_connect_stdio(c, argv) != MCP_OK)
        fail_msg("cannot start the TypeScript server: %s\n%s", mcp_client_error(c),
                 mcp_client_stderr(c, NULL));
    return c;
}

static mcp_json_doc *json(const char *text)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static const char *str(const mcp_json *v, const char *key)
{
    const char *s = mcp_json_string(mcp_json_object_get(v, key), NULL);
    return s ? s : "(absent)";
}

/* modern: 2026-07-28, whose lists carry caching hints. */
static void lists(mcp_client *c, bool modern)
{
    mcp_json_doc *d;
    mcp_cache_hint hint = {.size = sizeof hint};
    assert_int_equal(mcp_client_list_resources(c, NULL, &d, &hint), MCP_OK);
    const mcp_json *l = mcp_json_doc_root(d);
    assert_int_equal(mcp_json_array_size(l), 2);
    assert_string_equal(str(mcp_json_array_at(l, 0), "uri"), "file:///greeting.txt");
    assert_string_equal(str(mcp_json_array_at(l, 0), "title"), "Greeting");
    assert_string_equal(str(mcp_json_array_at(l, 1), "name"), "logo");
    assert_int_equal(hint.present, modern);
    mcp_json_doc_free(d);

    assert_int_equal(mcp_client_list_resource_templates(c, NULL, &d, NULL), MCP_OK);
    l = mcp_json_doc_root(d);
    assert_int_equal(mcp_json_array_size(l), 1);
    assert_string_equal(str(mcp_json_array_at(l, 0), "uriTemplate"), "file:///docs/{name}");
    mcp_json_doc_free(d);

    assert_int_equal(mcp_client_list_prompts(c, NULL, &d, NULL), MCP_OK);
    l = mcp_json_doc_root(d);
    assert_int_equal(mcp_json_array_size(l), 1);
    const mcp_json *args = mcp_json_object_get(mcp_json_array_at(l, 0), "arguments");
    assert_int_equal(mcp_json_array_size(args), 3);
    assert_string_equal(str(mcp_json_array_at(args, 0), "name"), "code");
    bool required = false;
    assert_int_equal(mcp_json_get_bool(mcp_json_object_get(mcp_json_array_at(args, 0), "required"),
                                       &required),
                     MCP_OK);
    assert_true(required);
    mcp_json_doc_free(d);
}

static void reads(mcp_client *c)
{
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_read_resource(c, "file:///greeting.txt", NULL, &r), MCP_OK);
    const mcp_json *item = mcp_json_array_at(mcp_json_object_get(r.result, "contents"), 0);
    assert_string_equal(str(item, "text"), "Hello, world!\nsecond line \xc3\xa9\n");
    assert_string_equal(str(item, "mimeType"), "text/plain");
    mcp_client_call_result_release(&r);

    assert_int_equal(mcp_client_read_resource(c, "file:///logo.bin", NULL, &r), MCP_OK);
    item = mcp_json_array_at(mcp_json_object_get(r.result, "contents"), 0);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_resource_blob_decode(item, &b), MCP_OK);
    assert_int_equal(b.len, 9);
    assert_memory_equal(b.data, "\x00\xff\x10\x89PNG\n\x00", 9);
    mcp_buf_free(&b);
    mcp_client_call_result_release(&r);

    assert_int_equal(mcp_client_read_resource(c, "file:///docs/beta", NULL, &r), MCP_OK);
    item = mcp_json_array_at(mcp_json_object_get(r.result, "contents"), 0);
    assert_string_equal(str(item, "uri"), "file:///docs/beta");
    assert_string_equal(str(item, "text"), "doc beta");
    mcp_client_call_result_release(&r);

    assert_int_equal(mcp_client_read_resource(c, "file:///nope", NULL, &r), MCP_ERR_REMOTE);
    assert_int_equal(r.error_code, MCP_WIRE_INVALID_PARAMS);
    assert_non_null(strstr(mcp_client_error(c), "resources/read failed: "));
    assert_non_null(strstr(mcp_client_error(c), "file:///nope")); /* as each SDK words it */
    mcp_client_call_result_release(&r);
}

static void prompts(mcp_client *c)
{
    mcp_client_call_result r = {.size = sizeof r};
    mcp_json_doc *a = json("{\"code\":\"x = 1\",\"language\":\"python\"}");
    assert_int_equal(mcp_client_get_prompt(c, "review", mcp_json_doc_root(a), NULL, &r), MCP_OK);
    mcp_json_doc_free(a);
    assert_string_equal(str(r.result, "description"), "A review request");
    const mcp_json *m = mcp_json_array_at(mcp_json_object_get(r.result, "messages"), 0);
    assert_string_equal(str(m, "role"), "user");
    assert_string_equal(str(mcp_json_object_get(m, "content"), "text"),
                        "Review this python:\nx = 1");
    mcp_client_call_result_release(&r);
    /* The required argument missing: the server's refusal. */
    assert_int_equal(mcp_client_get_prompt(c, "review", NULL, NULL, &r), MCP_ERR_REMOTE);
    assert_int_equal(r.error_code, MCP_WIRE_INVALID_PARAMS);
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_get_prompt(c, "nope", NULL, NULL, &r), MCP_ERR_REMOTE);
    mcp_client_call_result_release(&r);
}

/* The completion's values, joined with commas. */
static const char *joined(const mcp_completion *comp)
{
    static char out[256];
    out[0] = 0;
    for (size_t i = 0; i < comp->count; i++) {
        size_t n = strlen(out);
        snprintf(out + n, sizeof out - n, "%s%s", i ? "," : "",
                 mcp_json_string(mcp_json_array_at(comp->values, i), NULL));
    }
    return out;
}

static void completions(mcp_client *c)
{
    mcp_client_call_result r = {.size = sizeof r};
    mcp_completion comp = {.size = sizeof comp};
    assert_int_equal(mcp_client_complete(c, MCP_COMPLETE_PROMPT, "review", "language", "p", NULL,
                                         NULL, &r, &comp),
                     MCP_OK);
    assert_string_equal(joined(&comp), "perl,php,python");
    assert_true(comp.has_total);
    assert_int_equal(comp.total, 3);
    assert_false(comp.has_more);
    mcp_client_call_result_release(&r);

    mcp_json_doc *ctx = json("{\"language\":\"python\"}");
    assert_int_equal(mcp_client_complete(c, MCP_COMPLETE_PROMPT, "review", "style", "",
                                         mcp_json_doc_root(ctx), NULL, &r, &comp),
                     MCP_OK);
    assert_string_equal(joined(&comp), "pep8,black");
    mcp_client_call_result_release(&r);
    mcp_json_doc_free(ctx);
    assert_int_equal(mcp_client_complete(c, MCP_COMPLETE_PROMPT, "review", "style", "", NULL,
                                         NULL, &r, &comp),
                     MCP_OK);
    assert_string_equal(joined(&comp), "plain");
    mcp_client_call_result_release(&r);

    assert_int_equal(mcp_client_complete(c, MCP_COMPLETE_RESOURCE_TEMPLATE, "file:///docs/{name}",
                                         "name", "al", NULL, NULL, &r, &comp),
                     MCP_OK);
    assert_string_equal(joined(&comp), "alpha,alpine");
    mcp_client_call_result_release(&r);
}

/* Subscribe: the server's notification reaches on_notification; then
 * unsubscribe, which the server logs (through log_says). */
static void subscriptions(mcp_client *c, resource_updates *h, bool (*log_says)(void *, const char *),
                          void *log)
{
    h->count = 0;
    assert_int_equal(mcp_client_subscribe_resource(c, "file:///greeting.txt", NULL), MCP_OK);
    assert_true(log_says(log, "subscribed file:///greeting.txt"));
    for (int i = 0; i < 200 && h->count == 0; i++)
        mcp_client_run_once(c, true);
    assert_int_equal(h->count, 1);
    assert_string_equal(h->uri, "file:///greeting.txt");
    assert_int_equal(mcp_client_unsubscribe_resource(c, "file:///greeting.txt", NULL), MCP_OK);
    assert_true(log_says(log, "unsubscribed file:///greeting.txt"));
}

static bool stdio_says(void *c, const char *needle)
{
    return server_stderr_says(c, needle, 5000);
}

static void everything_over_stdio(void **state)
{
    static const char *const versions[] = {NULL, "2025-06-18"};
    for (size_t v = 0; v < 2; v++) {
        resource_updates h = {0};
        mcp_client *c = over_stdio(&h, "ts_server.mjs", versions[v]);
        assert_string_equal(mcp_client_protocol_version(c),
                            versions[v] ? versions[v] : "2025-11-25");
        lists(c, false);
        reads(c);
        prompts(c);
        completions(c);
        subscriptions(c, &h, stdio_says, c);
        mcp_client_free(c);
    }
}

static void everything_under_2026_with_the_v2_sdk(void **state)
{
    resource_updates h = {0};
    mcp_client *c = over_stdio(&h, "ts2_server.mjs", NULL);
    assert_string_equal(mcp_client_protocol_version(c), "2026-07-28");
    lists(c, true);
    reads(c);
    prompts(c);
    completions(c);
    assert_int_equal(mcp_client_subscribe_resource(c, "file:///greeting.txt", NULL),
                     MCP_ERR_STATE);
    assert_non_null(strstr(mcp_client_error(c), "mcp_client_listen"));
    mcp_client_free(c);
}

typedef struct http_log {
    http_peer *peer;
    mcp_client *client;
} http_log;

static bool http_says(void *ud, const char *needle)
{
    http_log *l = ud;
    return http_peer_says(l->peer, l->client, needle, 5000);
}

static void everything_over_http(void **state)
{
    const char *node = getenv("MCP_INTEROP_NODE");
    assert_non_null(node);
    const char *const argv[] = {node, script("ts_http_server.mjs"), "json", NULL};
    http_peer p;
    assert_true(http_peer_start(&p, argv));
    resource_updates h = {0};
    mcp_client *c = new_client(&h, NULL);
    if (mcp_client_connect_http(c, p.url, NULL) != MCP_OK)
        fail_msg("connect: %s", mcp_client_error(c));
    assert_string_equal(mcp_client_protocol_version(c), "2025-11-25");
    lists(c, false);
    reads(c);
    prompts(c);
    completions(c);
    /* The update comes on the session's GET stream. */
    http_log log = {&p, c};
    assert_true(http_says(&log, "GET last-event-id=-"));
    subscriptions(c, &h, http_says, &log);
    mcp_client_free(c);
    http_peer_stop(&p);
}

int main(void)
{
    const char *node = getenv("MCP_INTEROP_NODE");
    if (!node || access(node, X_OK) != 0) {
        char what[4200];
        snprintf(what, sizeof what, "no node at %s (make interop-deps)", node ? node : "(unset)");
        return test_missing(what);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(everything_over_stdio),
        cmocka_unit_test(everything_over_http),
        cmocka_unit_test(everything_under_2026_with_the_v2_sdk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
