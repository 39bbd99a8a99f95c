/* SPDX-License-Identifier: MIT */
/*
 * mcp-conformance server: the tools the tasks scenarios (the
 * io.modelcontextprotocol/tasks extension, 2026-07-28) call, as the suite's
 * reference fixtures behave: greet answers at once and never runs as a
 * task; slow_compute may run as one (seconds of work, stopped by a cancel);
 * failing_job must (its tool error comes after a second: a completed task
 * whose result says isError); protocol_error_job may, and ends with a
 * JSON-RPC error (a failed task); confirm_delete asks one question and
 * multi_input two at once while running as a task (the task is
 * input_required until tasks/update answers); test_tool_with_task asks
 * user_name as an input-required round first, then becomes a task
 * (MCP_TOOL_TASK_DEFERRED) whose result greets that name. The handlers are
 * plain tool handlers: the library makes the calls tasks.
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

/* An elicitation's params: a message and a form of one field. */
static mcp_json_doc *form(const char *message, const char *field, const char *type)
{
    char text[400];
    snprintf(text, sizeof text,
             "{\"mode\":\"form\",\"message\":\"%s\",\"requestedSchema\":{\"type\":\"object\","
             "\"properties\":{\"%s\":{\"type\":\"%s\"}}}}",
             message, field, type);
    mcp_json_doc *d = NULL;
    mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL);
    return d;
}

/* What an elicitation answer said: "accept", "decline", ... or "no answer". */
static const char *action_of(const mcp_ask_answer *a)
{
    const char *action =
        mcp_json_string(mcp_json_object_get(mcp_json_doc_root(a->result), "action"), NULL);
    return action ? action : "no answer";
}

static void confirm_delete(void *ud, mcp_call *call)
{
    const char *file =
        mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "filename"), NULL);
    mcp_json_doc *d = form("Delete the file?", "confirm", "boolean");
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(call, "confirm", "elicitation/create", mcp_json_doc_root(d), 0, &a);
    mcp_json_doc_free(d);
    bool yes = false;
    mcp_json_get_bool(
        mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(a.result), "content"), "confirm"),
        &yes);
    char text[400];
    snprintf(text, sizeof text, "%s %s (%s)", yes ? "Deleted" : "Kept", file ? file : "the file",
             action_of(&a));
    mcp_ask_answer_release(&a);
    if (rc == MCP_ERR_CANCELLED || rc == MCP_ERR_INPUT_REQUIRED)
        mcp_call_finish(call);
    else
        mcp_call_reply_text(call, text);
}

static void multi_input(void *ud, mcp_call *call)
{
    mcp_json_doc *name = form("Your name?", "name", "string");
    mcp_json_doc *confirm = form("Go ahead?", "confirm", "boolean");
    const mcp_ask_question qs[2] = {
        {"name", "elicitation/create", mcp_json_doc_root(name)},
        {"confirm", "elicitation/create", mcp_json_doc_root(confirm)}};
    mcp_ask_answer a[2] = {{.size = sizeof a[0]}, {.size = sizeof a[1]}};
    int outcomes[2];
    int rc = mcp_call_ask_all(call, qs, 2, 0, a, outcomes);
    char text[200];
    snprintf(text, sizeof text, "Both answered: %s, %s", action_of(&a[0]), action_of(&a[1]));
    for (int i = 0; i < 2; i++)
        mcp_ask_answer_release(&a[i]);
    mcp_json_doc_free(name);
    mcp_json_doc_free(confirm);
    if (rc == MCP_ERR_CANCELLED || rc == MCP_ERR_INPUT_REQUIRED)
        mcp_call_finish(call);
    else
        mcp_call_reply_text(call, text);
}

static void tool_with_task(void *ud, mcp_call *call)
{
    mcp_json_doc *d = form("What is your name?", "name", "string");
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(call, "user_name", "elicitation/create", mcp_json_doc_root(d), 0, &a);
    mcp_json_doc_free(d);
    if (rc == MCP_ERR_CANCELLED || rc == MCP_ERR_INPUT_REQUIRED) {
        mcp_ask_answer_release(&a);
        mcp_call_finish(call);
        return;
    }
    /* The answer is in: the rest runs as a task. */
    mcp_call_become_task(call);
    const char *name = mcp_json_string(
        mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(a.result), "content"), "name"),
        NULL);
    char text[300];
    snprintf(text, sizeof text, "Hello, %s!", name ? name : "stranger");
    mcp_ask_answer_release(&a);
    mcp_call_reply_text(call, text);
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
        {.size = sizeof(mcp_tool),
         .name = "confirm_delete",
         .description = "Asks to confirm, as a task, then deletes the file (or not).",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"filename\":{\"type\":\"string\"}}}",
         .handler = confirm_delete,
         .flags = MCP_TOOL_BLOCKING,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool),
         .name = "multi_input",
         .description = "Asks two questions at once, as a task.",
         .input_schema = "{\"type\":\"object\"}",
         .handler = multi_input,
         .flags = MCP_TOOL_BLOCKING,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool),
         .name = "test_tool_with_task",
         .description = "Asks user_name (an input-required round), then greets as a task.",
         .input_schema = "{\"type\":\"object\"}",
         .handler = tool_with_task,
         .flags = MCP_TOOL_BLOCKING | MCP_TOOL_TASK_DEFERRED,
         .task_support = MCP_TASK_REQUIRED},
    };
    return conformance_add_tools(s, tools, sizeof tools / sizeof tools[0]);
}
