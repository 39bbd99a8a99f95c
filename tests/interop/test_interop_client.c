/* SPDX-License-Identifier: MIT */
/*
 * libmcp's client against a server on the official TypeScript SDK v1
 * (ts_server.mjs): our timeout and our abort put notifications/cancelled on
 * the wire with our reason, the TypeScript handler sees its abort signal
 * with that reason, a late response is dropped quietly, and progress
 * arrives. MCP_INTEROP_NODE and MCP_INTEROP_SERVER name the node binary and
 * the script.
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

typedef struct counts {
    int dropped;
} counts;

static void on_log(void *ud, const mcp_log_record *r)
{
    if (r->event == MCP_LOG_EVENT_DROPPED)
        ((counts *)ud)->dropped++;
}

static mcp_client *connect_ts(counts *k)
{
    const char *node = getenv("MCP_INTEROP_NODE"), *script = getenv("MCP_INTEROP_SERVER");
    assert_non_null(node);
    assert_non_null(script);
    const char *const argv[] = {node, script, NULL};
    mcp_client_options o = {.size = sizeof o, .capture_stderr = true, .log = on_log, .log_user_data = k,
                            .log_level = MCP_LOG_DEBUG, .close_grace_ms = 2000};
    memset(k, 0, sizeof *k);
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    if (mcp_client_connect_stdio(c, argv) != MCP_OK)
        fail_msg("cannot connect to the TypeScript server: %s\n%s", mcp_client_error(c),
                 mcp_client_stderr(c, NULL));
    return c;
}


static void our_timeout_reaches_the_typescript_handler_with_our_reason(void **state)
{
    counts k;
    mcp_client *c = connect_ts(&k);
    assert_true(server_stderr_says(c, "ts-server: ready", 5000));
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 300};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_call_tool(c, "slow", NULL, &o, &r), MCP_ERR_TIMED_OUT);
    assert_true(server_stderr_says(c, "ts-server: slow aborted: timed out after 300 ms", 5000));
    mcp_client_free(c);
}

static int abort_outcome;
static void done(void *ud, const mcp_client_call_result *r)
{
    abort_outcome = r->outcome;
}

static void our_abort_reaches_the_typescript_handler_with_our_reason(void **state)
{
    counts k;
    mcp_client *c = connect_ts(&k);
    mcp_handle h;
    abort_outcome = 1;
    assert_int_equal(mcp_client_call_tool_async(c, "slow", NULL, NULL, done, NULL, &h), MCP_OK);
    assert_true(server_stderr_says(c, "ts-server: slow started", 5000));
    assert_int_equal(mcp_client_cancel(c, h, "cancelled by the C client"), MCP_OK);
    assert_int_equal(abort_outcome, MCP_ERR_ABORTED);
    assert_true(server_stderr_says(c, "ts-server: slow aborted: cancelled by the C client", 5000));
    mcp_client_free(c);
}

static void a_late_response_is_dropped_and_the_connection_stays_usable(void **state)
{
    counts k;
    mcp_client *c = connect_ts(&k);
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 150};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_call_tool(c, "late", NULL, &o, &r), MCP_ERR_TIMED_OUT);
    assert_true(server_stderr_says(c, "ts-server: late: answered request", 5000));
    for (int i = 0; i < 100 && k.dropped == 0; i++) {
        mcp_client_run_once(c, false);
        usleep(10000);
    }
    assert_int_equal(k.dropped, 1); /* logged at debug, never an error */
    mcp_json_doc *tools;
    assert_int_equal(mcp_client_list_tools(c, NULL, &tools, NULL), MCP_OK);
    assert_int_equal(mcp_json_array_size(mcp_json_doc_root(tools)), 3);
    mcp_json_doc_free(tools);
    mcp_client_free(c);
}

static int progress_count;
static double last_progress;
static void on_progress(void *ud, mcp_handle h, double p, double total, const char *m)
{
    assert_true(p > last_progress);
    last_progress = p;
    progress_count++;
}

static void progress_from_the_typescript_server_arrives(void **state)
{
    counts k;
    mcp_client *c = connect_ts(&k);
    mcp_json_doc *args;
    assert_int_equal(mcp_json_parse("{\"steps\":5}", 11, NULL, NULL, &args, NULL), MCP_OK);
    progress_count = 0;
    last_progress = 0;
    mcp_client_call_options o = {.size = sizeof o, .on_progress = on_progress};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_call_tool(c, "progress", mcp_json_doc_root(args), &o, &r), MCP_OK);
    assert_int_equal(progress_count, 5);
    const char *text = mcp_json_string(mcp_json_object_get(mcp_json_array_at(
                           mcp_json_object_get(r.result, "content"), 0), "text"), NULL);
    assert_string_equal(text, "progressed 5");
    mcp_client_call_result_release(&r);
    mcp_json_doc_free(args);
    mcp_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(our_timeout_reaches_the_typescript_handler_with_our_reason),
        cmocka_unit_test(our_abort_reaches_the_typescript_handler_with_our_reason),
        cmocka_unit_test(a_late_response_is_dropped_and_the_connection_stays_usable),
        cmocka_unit_test(progress_from_the_typescript_server_arrives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
