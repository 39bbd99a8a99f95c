/* SPDX-License-Identifier: MIT */
/*
 * mcp-conformance server: the tools the tasks scenarios (the
 * io.modelcontextprotocol/tasks extension, 2026-07-28) call, as the suite's
 * reference fixtures behave: greet answers at once and never runs as a
 * task; slow_compute may run as one (seconds of work, stopped by a cancel);
 * failing_job must (its tool error comes after a second: a completed task
 * whose result says isError); protocol_error_job may, and ends with a
 * JSON-RPC error (a failed task). The handlers are plain tool handlers:
 * the library makes the calls tasks.
 */
#include <stdio.h>
#include <string.h>

#include "conformance.h"

static void greet(void *ud, mcp_call *call)
{
    const char *name = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "name"), NULL);
    char text[300];
    snprintf(text, sizeof text, "Hello, %s!", name ? name : "World");
    mcp_call_reply_text(call, text);
}

/* Waits `seconds`, or until the call (the task) is cancelled. */
static void slow_compute(void *ud, mcp_call *call)
{
    double seconds = 0;
    mcp_json_get_double(mcp_json_object_get(mcp_call_arguments(call), "seconds"), &seconds);
    const char *label = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "label"),
                                        NULL);
    if (seconds < 0 || seconds > 3600)
        seconds = 0;
    if (mcp_cancel_token_wait(mcp_call_cancel_token(call), (uint64_t)(seconds * 1000))) {
        mcp_call_finish(call);
        return;
    }
    char text[300];
    snprintf(text, sizeof text, "Computed %s after %g s", label ? label : "the result", seconds);
    mcp_call_reply_text(call, text);
}

static void failing_job(void *ud, mcp_call *call)
{
    if (mcp_cancel_token_wait(mcp_call_cancel_token(call), 1000)) {
        mcp_call_finish(call);
        return;
    }
    mcp_call_reply_tool_error(call, "The job failed");
}

static void protocol_error_job(void *ud, mcp_call *call)
{
    mcp_call_reply_error(call, -32603, "The job could not run");
}

#define NAME_ARG "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}"

int conformance_tasks(mcp_server *s)
{
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool),
         .name = "greet",
         .description = "Greets by name, at once.",
         .input_schema = NAME_ARG,
         .handler = greet},
        {.size = sizeof(mcp_tool),
         .name = "slow_compute",
         .description = "Computes for the given seconds; may run as a task.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\"},"
                         "\"label\":{\"type\":\"string\"}}}",
         .handler = slow_compute,
         .flags = MCP_TOOL_BLOCKING,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool),
         .name = "failing_job",
         .description = "Runs only as a task; ends with a tool error after a second.",
         .input_schema = "{\"type\":\"object\"}",
         .handler = failing_job,
         .flags = MCP_TOOL_BLOCKING,
         .task_support = MCP_TASK_REQUIRED},
        {.size = sizeof(mcp_tool),
         .name = "protocol_error_job",
         .description = "May run as a task; ends with a JSON-RPC error.",
         .input_schema = "{\"type\":\"object\"}",
         .handler = protocol_error_job,
         .task_support = MCP_TASK_OPTIONAL},
    };
    return conformance_add_tools(s, tools, sizeof tools / sizeof tools[0]);
}
