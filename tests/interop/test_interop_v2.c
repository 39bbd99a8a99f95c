/* SPDX-License-Identifier: MIT */
/*
 * libmcp's client against a server on the official TypeScript SDK v2
 * (ts2_server.mjs), under 2026-07-28 on stdio: the era is found by the
 * probe, results and progress arrive, our abort and our timeout reach the
 * TypeScript handler with our reasons, a subscription is acknowledged,
 * carries a tools/list_changed caused on the same connection and is
 * cancelled on the wire. MCP_INTEROP_NODE and MCP_INTEROP_SERVER2 name the
 * node binary and the script.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "stderr_wait.h"

static mcp_client *connect_ts2(void)
{
    const char *node = getenv("MCP_INTEROP_NODE"), *script = getenv("MCP_INTEROP_SERVER2");
    assert_non_null(node);
    assert_non_null(script);
    const char *const argv[] = {node, script, NULL};
    mcp_client_options o = {.size = sizeof o, .capture_stderr = true, .close_grace_ms = 2000};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    if (mcp_client_connect_stdio(c, argv) != MCP_OK)
        fail_msg("cannot connect to the TypeScript v2 server: %s\n%s", mcp_client_error(c),
                 mcp_client_stderr(c, NULL));
    assert_string_equal(mcp_client_protocol_version(c), "2026-07-28");
    return c;
}


static mcp_json_doc *json(const char *text)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static int progress_count;
static double last_progress;
static void on_progress(void *ud, mcp_handle h, double p, double total, const char *m)
{
    assert_true(p > last_progress);
    last_progress = p;
    progress_count++;
}

static void results_and_progress_arrive_under_2026(void **state)
{
    mcp_client *c = connect_ts2();
    mcp_json_doc *a = json("{\"text\":\"a\\u0000b \\u00e9\"}");
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_call_tool(c, "echo", mcp_json_doc_root(a), NULL, &r), MCP_OK);
    size_t n;
    const char *text = mcp_json_string(
        mcp_json_object_get(mcp_json_array_at(mcp_json_object_get(r.result, "content"), 0),
                            "text"),
        &n);
    assert_int_equal(n, 6);
    assert_memory_equal(text, "a\0b \xc3\xa9", 6);
    mcp_client_call_result_release(&r);
    mcp_json_doc_free(a);

    a = json("{\"n\":4,\"delay_ms\":20}");
    progress_count = 0;
    last_progress = 0;
    mcp_client_call_options o = {.size = sizeof o, .on_progress = on_progress};
    assert_int_equal(mcp_client_call_tool(c, "count", mcp_json_doc_root(a), &o, &r), MCP_OK);
    assert_int_equal(progress_count, 4);
    mcp_client_call_result_release(&r);
    mcp_json_doc_free(a);
    mcp_client_free(c);
}

static int abort_outcome;
static void done(void *ud, const mcp_client_call_result *r)
{
    abort_outcome = r->outcome;
}

static void our_abort_and_timeout_reach_the_typescript_handler(void **state)
{
    mcp_client *c = connect_ts2();
    mcp_json_doc *a = json("{\"seconds\":30}");
    mcp_handle h;
    abort_outcome = 1;
    assert_int_equal(mcp_client_call_tool_async(c, "sleep", mcp_json_doc_root(a), NULL, done,
                                                NULL, &h),
                     MCP_OK);
    assert_true(server_stderr_says(c, "sleep started", 5000));
    assert_int_equal(mcp_client_cancel(c, h, "cancelled by the C client"), MCP_OK);
    assert_int_equal(abort_outcome, MCP_ERR_ABORTED);
    assert_true(server_stderr_says(c, "sleep cancelled: cancelled by the C client", 5000));

    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 300};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_call_tool(c, "sleep", mcp_json_doc_root(a), &o, &r),
                     MCP_ERR_TIMED_OUT);
    assert_true(server_stderr_says(c, "sleep cancelled: timed out after 300 ms", 5000));
    mcp_json_doc_free(a);
    mcp_client_free(c);
}

typedef struct listen_log {
    int acks, changes, endings, outcome;
    unsigned kinds;
} listen_log;

static void on_listen(void *ud, mcp_handle h, const mcp_listen_event *ev)
{
    listen_log *l = ud;
    if (ev->kind == MCP_LISTEN_ACKNOWLEDGED) {
        assert_int_equal(l->changes + l->endings, 0); /* first */
        l->acks++;
        l->kinds = ev->kinds;
    } else if (ev->kind == MCP_LISTEN_NOTIFICATION) {
        assert_int_equal(l->endings, 0);
        if (mcp_message_method_is(ev->message, "notifications/tools/list_changed"))
            l->changes++;
    } else {
        l->endings++;
        l->outcome = ev->outcome;
    }
}

static bool run_until_count(mcp_client *c, const int *count, int want)
{
    for (int i = 0; i < 500 && *count < want; i++)
        mcp_client_run_once(c, true);
    return *count >= want;
}

static void a_subscription_hears_a_change_and_is_cancelled_on_the_wire(void **state)
{
    mcp_client *c = connect_ts2();
    listen_log l = {0};
    mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS};
    mcp_handle h;
    assert_int_equal(mcp_client_listen(c, &f, on_listen, &l, &h), MCP_OK);
    assert_true(run_until_count(c, &l.acks, 1));
    assert_int_equal(l.kinds, MCP_LISTEN_TOOLS);
    mcp_json_doc *a = json("{\"name\":\"from_c\"}");
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_call_tool(c, "add_tool", mcp_json_doc_root(a), NULL, &r), MCP_OK);
    mcp_client_call_result_release(&r);
    mcp_json_doc_free(a);
    assert_true(run_until_count(c, &l.changes, 1));
    assert_int_equal(mcp_client_cancel(c, h, "done listening"), MCP_OK);
    assert_int_equal(l.endings, 1);
    assert_int_equal(l.outcome, MCP_ERR_ABORTED);
    char want[64];
    snprintf(want, sizeof want, "cancel received: requestId=%llu", (unsigned long long)h);
    assert_true(server_stderr_says(c, want, 5000));
    mcp_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(results_and_progress_arrive_under_2026),
        cmocka_unit_test(our_abort_and_timeout_reach_the_typescript_handler),
        cmocka_unit_test(a_subscription_hears_a_change_and_is_cancelled_on_the_wire),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
