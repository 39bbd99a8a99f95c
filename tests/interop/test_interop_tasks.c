/* SPDX-License-Identifier: MIT */
/*
 * libmcp's client against a server on the official TypeScript SDK v1 with
 * its experimental tasks (ts_task_server.mjs, 2025-11-25): a tool whose
 * listing says taskSupport "required" runs as a task to its result; our
 * cancel of a task call is tasks/cancel (their store sees the task
 * cancelled) and never notifications/cancelled; a timeout that comes
 * before CreateTaskResult still cancels the task, once its id comes.
 * MCP_INTEROP_NODE and MCP_INTEROP_DIR name the node binary and the
 * scripts' folder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "stderr_wait.h"

static mcp_client *connect_ts(void)
{
    const char *node = getenv("MCP_INTEROP_NODE"), *dir = getenv("MCP_INTEROP_DIR");
    assert_non_null(node);
    assert_non_null(dir);
    char script[1024];
    snprintf(script, sizeof script, "%s/ts_task_server.mjs", dir);
    const char *const argv[] = {node, script, NULL};
    mcp_client_options o = {.size = sizeof o, .capture_stderr = true, .close_grace_ms = 2000,
                            .connect_mode = MCP_CONNECT_LEGACY,
                            .protocol_version = "2025-11-25"};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    if (mcp_client_connect_stdio(c, argv) != MCP_OK)
        fail_msg("cannot connect to the TypeScript server: %s\n%s", mcp_client_error(c),
                 mcp_client_stderr(c, NULL));
    mcp_json_doc *tools;
    assert_int_equal(mcp_client_list_tools(c, NULL, &tools, NULL), MCP_OK);
    mcp_json_doc_free(tools);
    return c;
}

static const char *first_text(const mcp_client_call_result *r)
{
    return mcp_json_string(mcp_json_object_get(mcp_json_array_at(
                               mcp_json_object_get(r->result, "content"), 0), "text"), NULL);
}

static void a_required_tool_runs_as_a_task_on_their_server(void **state)
{
    mcp_client *c = connect_ts();
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_call_tool(c, "quick", NULL, NULL, &r), MCP_OK);
    assert_string_equal(first_text(&r), "quick done");
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_call_tool(c, "plain", NULL, NULL, &r), MCP_OK);
    assert_string_equal(first_text(&r), "plain done");
    mcp_client_call_result_release(&r);
    assert_true(server_stderr_says(c, "created ", 2000));
    mcp_client_free(c);
}

static int outcome;
static void done(void *ud, const mcp_client_call_result *r)
{
    outcome = r->outcome;
}

static void our_cancel_is_tasks_cancel(void **state)
{
    mcp_client *c = connect_ts();
    outcome = 1;
    mcp_handle h;
    assert_int_equal(mcp_client_call_tool_async(c, "forever", NULL, NULL, done, NULL, &h), MCP_OK);
    assert_true(server_stderr_says(c, "created ", 5000));
    for (int i = 0; i < 20; i++) /* let CreateTaskResult in */
        mcp_client_run_once(c, false);
    assert_int_equal(mcp_client_cancel(c, h, "user pressed stop"), MCP_OK);
    assert_int_equal(outcome, MCP_ERR_ABORTED);
    assert_true(server_stderr_says(c, "cancelled ", 3000));
    assert_null(strstr(mcp_client_stderr(c, NULL), "notifications/cancelled"));
    mcp_client_free(c);
}

/* The hard case (cancellation.mdx: tasks/cancel, never
 * notifications/cancelled): our timeout comes before the server made the
 * task; the call ends at once, and the task is cancelled once its id
 * comes. The TypeScript SDK's own client sends notifications/cancelled
 * here and leaves the task running. */
static void a_timeout_before_the_task_is_known_cancels_it_when_it_is(void **state)
{
    mcp_client *c = connect_ts();
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 100};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(mcp_client_call_tool(c, "slowcreate", NULL, &o, &r), MCP_ERR_TIMED_OUT);
    mcp_client_call_result_release(&r);
    assert_null(strstr(mcp_client_stderr(c, NULL), "created "));
    assert_true(server_stderr_says(c, "created ", 3000));
    assert_true(server_stderr_says(c, "cancelled ", 3000));
    assert_null(strstr(mcp_client_stderr(c, NULL), "notifications/cancelled"));
    mcp_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_required_tool_runs_as_a_task_on_their_server),
        cmocka_unit_test(our_cancel_is_tasks_cancel),
        cmocka_unit_test(a_timeout_before_the_task_is_known_cancels_it_when_it_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
