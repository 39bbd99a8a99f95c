/* SPDX-License-Identifier: MIT */
/*
 * A server with one cancellable tool. Build against libmcp and run it with
 * an MCP client over stdio, e.g.:
 *     mcp call --cancel-after 1 countdown '{"from":10}' -- ./example_server
 */
#include <stdio.h>

#include <mcp/mcp.h>

/* Counts down one second per step, reporting progress; stops as soon as the
 * client cancels. Blocking is fine: the tool is registered as blocking, so
 * it runs on a worker thread. */
static void countdown(void *user_data, mcp_call *call)
{
    int64_t from = 5;
    mcp_json_get_int64(mcp_json_object_get(mcp_call_arguments(call), "from"), &from);
    if (from < 0 || from > 3600) {
        mcp_call_reply_tool_error(call, "countdown: 'from' must be between 0 and 3600");
        return;
    }
    mcp_cancel_token *token = mcp_call_cancel_token(call);
    for (int64_t left = from; left > 0; left--) {
        char msg[32];
        snprintf(msg, sizeof msg, "%lld to go", (long long)left);
        mcp_call_progress(call, (double)(from - left), (double)from, msg);
        /* A sleep that returns early, and true, when the call is cancelled. */
        if (mcp_cancel_token_wait(token, 1000)) {
            mcp_call_log(call, MCP_LOG_INFO, "stopped at %lld: %s", (long long)left,
                         mcp_cancel_token_reason(token));
            mcp_call_finish(call); /* nothing is sent for a cancelled call */
            return;
        }
    }
    mcp_call_reply_text(call, "liftoff");
}

int main(void)
{
    mcp_server_options opts = {.size = sizeof opts, .name = "example-server", .version = "1.0"};
    mcp_server *server;
    if (mcp_server_new(&opts, &server) != MCP_OK)
        return 1;
    mcp_tool tool = {
        .size = sizeof tool,
        .name = "countdown",
        .description = "Counts down from 'from' (default 5), one step per second.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"from\":{\"type\":\"integer\"}}}",
        .handler = countdown,
        .flags = MCP_TOOL_BLOCKING,
    };
    if (mcp_server_add_tool(server, &tool) != MCP_OK)
        return 1;
    /* Serves until stdin ends; calls in flight are then cancelled. */
    int rc = mcp_server_serve_stdio(server);
    mcp_server_free(server);
    return rc == MCP_OK ? 0 : 1;
}
