/* SPDX-License-Identifier: MIT */
/*
 * Tasks, 2025-11-25 (basic/utilities/tasks.mdx), served: a task-augmented
 * tools/call answered CreateTaskResult at once with the tool's own handler
 * running as the task; execution.taskSupport enforced; tasks/get,
 * tasks/result (blocking), tasks/list (paged, the session's own) and
 * tasks/cancel (final, before its answer, firing the handler's token);
 * progress and logs naming the task; ttl, caps and the session's end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "task_harness.h"

static atomic_bool gate_open;
static atomic_int handlers_ended, handlers_started;
static char cancel_reason[128];
static atomic_bool cancel_seen;

static void tool_add(void *ud, mcp_call *c)
{
    int64_t a = 0, b = 0;
    mcp_json_get_int64(mcp_json_object_get(mcp_call_arguments(c), "a"), &a);
    mcp_json_get_int64(mcp_json_object_get(mcp_call_arguments(c), "b"), &b);
    char text[64];
    snprintf(text, sizeof text, "sum %lld", (long long)(a + b));
    mcp_call_reply_text(c, text);
}

/* Waits for the gate (or its cancel); reports progress first when asked. */
static void tool_wait(void *ud, mcp_call *c)
{
    atomic_fetch_add(&handlers_started, 1);
    mcp_call_progress(c, 1, 2, "waiting");
    mcp_call_send_log(c, MCP_LOG_WARNING, "waiting for the gate");
    mcp_cancel_token *t = mcp_call_cancel_token(c);
    while (!atomic_load(&gate_open)) {
        if (mcp_cancel_token_wait(t, 5)) {
            snprintf(cancel_reason, sizeof cancel_reason, "%s",
                     mcp_cancel_token_reason(t) ? mcp_cancel_token_reason(t) : "?");
            atomic_store(&cancel_seen, true);
            /* A late answer: the cancelled task must not change. */
            mcp_call_reply_text(c, "finished anyway");
            atomic_fetch_add(&handlers_ended, 1);
            return;
        }
    }
    mcp_call_reply_text(c, "gate opened");
    atomic_fetch_add(&handlers_ended, 1);
}

static void tool_broken(void *ud, mcp_call *c)
{
    mcp_call_reply_tool_error(c, "it broke");
}

static void tool_refuse(void *ud, mcp_call *c)
{
    mcp_call_reply_error(c, -32000, "refused by the tool");
}

/* Works for arguments.us microseconds, then answers: racing a cancel. */
static void tool_race(void *ud, mcp_call *c)
{
    int64_t us = 0;
    mcp_json_get_int64(mcp_json_object_get(mcp_call_arguments(c), "us"), &us);
    if (us > 0)
        usleep((useconds_t)us);
    mcp_call_reply_text(c, "raced");
}

/* Asks the client for a name (a form), answers with it. */
static atomic_int ask_rc;
static void tool_ask_name(void *ud, mcp_call *c)
{
    static const char form[] = "{\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\","
                               "\"properties\":{\"name\":{\"type\":\"string\"}}}}";
    mcp_json_doc *d;
    mcp_json_parse(form, sizeof form - 1, NULL, NULL, &d, NULL);
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, NULL, "elicitation/create", mcp_json_doc_root(d), 0, &a);
    mcp_json_doc_free(d);
    atomic_store(&ask_rc, rc);
    char text[200];
    const char *name = mcp_json_string(mcp_json_object_get(mcp_json_object_get(
                                           mcp_json_doc_root(a.result), "content"), "name"), NULL);
    snprintf(text, sizeof text, "the name is %s (%s)", name ? name : "?", mcp_strerror(rc));
    mcp_ask_answer_release(&a);
    /* As a 2026-07-28 handler does: asked, it ends, and the round carries
     * the question. */
    if (rc == MCP_ERR_CANCELLED || rc == MCP_ERR_INPUT_REQUIRED)
        mcp_call_finish(c);
    else
        mcp_call_reply_text(c, text);
    atomic_fetch_add(&handlers_ended, 1);
}

static mcp_server *new_server_with(const mcp_server_options *extra)
{
    mcp_server_options o = {.size = sizeof o, .name = "tasks", .log_level = MCP_LOG_ERROR};
    if (extra) {
        o.task_max_ttl_ms = extra->task_max_ttl_ms;
        o.task_max_per_client = extra->task_max_per_client;
        o.task_max_total = extra->task_max_total;
        o.page_size = extra->page_size;
        o.task_poll_interval_ms = extra->task_poll_interval_ms;
    }
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "add", .handler = tool_add,
         .input_schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}",
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "wait", .handler = tool_wait,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_REQUIRED},
        {.size = sizeof(mcp_tool), .name = "plain", .handler = tool_add},
        {.size = sizeof(mcp_tool), .name = "broken", .handler = tool_broken,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "refuse", .handler = tool_refuse,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "race", .handler = tool_race,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_REQUIRED},
        {.size = sizeof(mcp_tool), .name = "ask_name", .handler = tool_ask_name,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    atomic_store(&gate_open, false);
    atomic_store(&handlers_ended, 0);
    atomic_store(&handlers_started, 0);
    atomic_store(&cancel_seen, false);
    cancel_reason[0] = '\0';
    return s;
}

static mcp_server *new_server(void)
{
    return new_server_with(NULL);
}

/* tools/call of tool as a task (task: the task param's members). */
static char *call_task(harness *h, int id, const char *tool, const char *args, const char *task,
                       char task_id[33])
{
    char params[400];
    snprintf(params, sizeof params, "\"name\":\"%s\",\"arguments\":{%s},\"task\":{%s}", tool, args,
             task);
    char *answer = harness_req(h, id, "tools/call", params);
    if (task_id)
        task_id_of(answer, task_id);
    return answer;
}

static char *on_task(harness *h, int id, const char *method, const char task_id[33])
{
    char params[80];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", task_id);
    return harness_req(h, id, method, params);
}

/* A blocking call cancelled while queued never runs its handler: the
 * tests that cancel wait for it to run first. */
static void wait_started(int n)
{
    for (int i = 0; i < 1000 && atomic_load(&handlers_started) < n; i++)
        usleep(5000);
    assert_int_equal(atomic_load(&handlers_started), n);
}

static void wait_handlers(int n)
{
    for (int i = 0; i < 1000 && atomic_load(&handlers_ended) < n; i++)
        usleep(5000);
    assert_int_equal(atomic_load(&handlers_ended), n);
}

static void the_capabilities_and_the_tools_say_what_runs_as_a_task(void **state)
{
    harness h;
    char *init;
    harness_start(&h, new_server(), "2025-11-25", NULL, &init);
    harness_expect_in(init, "\"tasks\":{\"list\":{},\"cancel\":{},\"requests\":{\"tools\":"
                            "{\"call\":{}}}}");
    char *list = harness_req(&h, 1, "tools/list", "");
    assert_non_null(strstr(list, "\"name\":\"add\",\"inputSchema\":{\"type\":\"object\","
                                 "\"properties\":{\"a\":{\"type\":\"integer\"}}},\"execution\":"
                                 "{\"taskSupport\":\"optional\"}"));
    assert_non_null(strstr(list, "\"execution\":{\"taskSupport\":\"required\"}"));
    /* forbidden is the default, and not written. */
    char *plain = strstr(list, "\"name\":\"plain\"");
    assert_non_null(plain);
    char *next = strstr(plain, "{\"name\"");
    if (next)
        *next = '\0';
    assert_null(strstr(plain, "execution"));
    free(list);
    harness_stop(&h);
}

/* The same handler, as a call and as a task: CreateTaskResult at once,
 * then the result from tasks/result with the task in its _meta. */
static void a_task_runs_the_tools_own_handler(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", NULL, NULL);
    harness_expect_in(harness_req(&h, 1, "tools/call", "\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3}"),
                      "sum 5");
    char id[33];
    char *created = call_task(&h, 2, "add", "\"a\":2,\"b\":40", "\"ttl\":60000", id);
    assert_non_null(strstr(created, "\"result\":{\"task\":{\"taskId\":\""));
    assert_non_null(strstr(created, "\"status\":\"working\""));
    assert_non_null(strstr(created, "\"ttl\":60000,\"pollInterval\":1000"));
    assert_non_null(strstr(created, "\"createdAt\":\"20"));
    assert_non_null(strstr(created, "Z\",\"lastUpdatedAt\":\""));
    free(created);
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "\"status\":\"completed\"");
    char *result = on_task(&h, 3, "tasks/result", id);
    char want[200];
    snprintf(want, sizeof want,
             "\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"sum 42\"}],\"_meta\":"
             "{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"%s\"}}}",
             id);
    if (!strstr(result, want))
        fail_msg("%s: no %s", result, want);
    free(result);
    harness_expect_in(on_task(&h, 4, "tasks/get", id), "\"status\":\"completed\"");
    /* An isError result is a failed task whose result is still the call's. */
    char *failed = call_task(&h, 5, "broken", "", "", id);
    free(failed);
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "\"status\":\"failed\"");
    harness_expect_in(on_task(&h, 6, "tasks/result", id), "\"isError\":true");
    /* An error answer is the task's error, told by tasks/result as it was. */
    free(call_task(&h, 7, "refuse", "", "", id));
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "\"status\":\"failed\"");
    harness_expect_in(on_task(&h, 8, "tasks/result", id),
                      "\"error\":{\"code\":-32000,\"message\":\"refused by the tool\"}");
    /* Arguments the schema refuses are the task's answer, as the call's. */
    free(call_task(&h, 9, "add", "\"a\":\"two\"", "", id));
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "\"status\":\"failed\"");
    harness_expect_in(on_task(&h, 10, "tasks/result", id), "Invalid arguments for tool add");
    harness_stop(&h);
}

static void task_support_decides_how_a_tool_may_be_called(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", NULL, NULL);
    harness_expect_in(harness_req(&h, 1, "tools/call", "\"name\":\"plain\",\"task\":{}"),
                      "\"code\":-32601,\"message\":\"Method not found: tool plain does not run "
                      "as a task");
    harness_expect_in(harness_req(&h, 2, "tools/call", "\"name\":\"wait\""),
                      "\"code\":-32601,\"message\":\"Method not found: tool wait runs only as a task");
    harness_expect_in(harness_req(&h, 3, "tools/call", "\"name\":\"nothere\",\"task\":{}"),
                      "\"code\":-32602,\"message\":\"Unknown tool: \\\"nothere\\\"\"");
    harness_stop(&h);

    /* Before 2025-11-25 there are no tasks: not declared, the param is
     * ignored, the methods are not part of the revision. */
    char *init;
    harness_start(&h, new_server(), "2025-06-18", NULL, &init);
    assert_non_null(strstr(init, "\"capabilities\":{\"tools\""));
    assert_null(strstr(init, "\"tasks\":{")); /* (the server is named "tasks") */
    free(init);
    harness_expect_in(harness_req(&h, 1, "tools/call",
                                  "\"name\":\"add\",\"arguments\":{\"a\":1},\"task\":{}"),
                      "\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"sum 1\"}]}");
    harness_expect_in(harness_req(&h, 2, "tasks/get", "\"taskId\":\"x\""),
                      "\"code\":-32601,\"message\":\"Method not found: tasks/get is not part of "
                      "protocol revision 2025-06-18\"");
    harness_expect_in(harness_req(&h, 3, "tasks/list", ""), "-32601");
    harness_stop(&h);
    /* Nor under 2026-07-28, where tasks are an extension. */
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char *discovered = harness_req(&h, 1, "server/discover", "");
    assert_non_null(strstr(discovered, "\"capabilities\":{\"tools\""));
    assert_null(strstr(discovered, "\"tasks\":{"));
    free(discovered);
    harness_stop(&h);
}

static void tasks_result_waits_for_the_end(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", NULL, NULL);
    char id[33];
    free(call_task(&h, 1, "wait", "", "", id));
    char params[80];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_send_req(&h, 2, "tasks/result", params);
    /* Still waiting: other requests are answered meanwhile. */
    harness_expect_in(on_task(&h, 3, "tasks/get", id), "\"status\":\"working\"");
    harness_expect_in(harness_req(&h, 4, "ping", ""), "\"result\":{}");
    atomic_store(&gate_open, true);
    char *answer = wire_expect(&h.w, "\"id\":2,");
    assert_non_null(strstr(answer, "gate opened"));
    assert_non_null(strstr(answer, id));
    free(answer);
    harness_stop(&h);
}

static void tasks_cancel_stops_the_handler_and_is_final(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", NULL, NULL);
    char id[33];
    free(call_task(&h, 1, "wait", "", "", id));
    char params[80];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_send_req(&h, 2, "tasks/result", params);
    wait_started(1);
    char *cancelled = on_task(&h, 3, "tasks/cancel", id);
    assert_non_null(strstr(cancelled, "\"status\":\"cancelled\""));
    assert_non_null(strstr(cancelled, id));
    free(cancelled);
    /* The waiting tasks/result learns it; the handler's token fired. */
    harness_expect_in(wire_expect(&h.w, "\"id\":2,"),
                      "\"code\":-32602,\"message\":\"Task ");
    wait_handlers(1);
    assert_true(atomic_load(&cancel_seen));
    assert_string_equal(cancel_reason, "the task was cancelled (tasks/cancel)");
    /* Its late answer changed nothing. */
    harness_expect_in(on_task(&h, 4, "tasks/get", id), "\"status\":\"cancelled\"");
    harness_expect_in(on_task(&h, 5, "tasks/result", id),
                      "\"data\":{\"taskId\":\"");
    harness_expect_in(on_task(&h, 6, "tasks/cancel", id),
                      "\"code\":-32602,\"message\":\"Invalid params: task ");
    /* A finished task cannot be cancelled either. */
    free(call_task(&h, 7, "add", "\"a\":1", "", id));
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "completed");
    harness_expect_in(on_task(&h, 8, "tasks/cancel", id), "it is already completed");
    harness_stop(&h);
}

/* notifications/cancelled names requests; once CreateTaskResult answered
 * the call, it names none: the task goes on (tasks/cancel is the way). */
static void notifications_cancelled_does_not_cancel_a_task(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", NULL, NULL);
    char id[33];
    free(call_task(&h, 1, "wait", "", "", id));
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                    "{\"requestId\":1,\"reason\":\"not like this\"}}");
    harness_expect_in(harness_req(&h, 2, "ping", ""), "\"result\":{}");
    harness_expect_in(on_task(&h, 3, "tasks/get", id), "\"status\":\"working\"");
    assert_false(atomic_load(&cancel_seen));
    atomic_store(&gate_open, true);
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "\"status\":\"completed\"");
    harness_stop(&h);
}

static void progress_and_logs_name_their_task(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", NULL, NULL);
    harness_expect_in(harness_req(&h, 1, "logging/setLevel", "\"level\":\"info\""), "\"result\"");
    char *created = harness_req(&h, 2, "tools/call",
                                "\"name\":\"wait\",\"task\":{},\"_meta\":{\"progressToken\":\"p\"}");
    char id[33];
    task_id_of(created, id);
    free(created);
    char want[120];
    snprintf(want, sizeof want, "\"_meta\":{\"io.modelcontextprotocol/related-task\":"
                                "{\"taskId\":\"%s\"}}", id);
    char *progress = wire_expect(&h.w, "notifications/progress");
    assert_non_null(strstr(progress, "\"progressToken\":\"p\",\"progress\":1,\"total\":2"));
    assert_non_null(strstr(progress, want));
    free(progress);
    char *log = wire_expect(&h.w, "notifications/message");
    assert_non_null(strstr(log, "waiting for the gate"));
    assert_non_null(strstr(log, want));
    free(log);
    atomic_store(&gate_open, true);
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "completed");
    harness_stop(&h);
}

static void bad_task_params_get_clear_errors(void **state)
{
    mcp_server_options o = {.task_max_ttl_ms = 5000};
    harness h;
    harness_start(&h, new_server_with(&o), "2025-11-25", NULL, NULL);
    static const char *const bad_ttls[] = {"\"ttl\":-1", "\"ttl\":0", "\"ttl\":\"60\"",
                                           "\"ttl\":1.5", "\"ttl\":{}"};
    for (int i = 0; i < 5; i++)
        harness_expect_in(call_task(&h, 10 + i, "add", "", bad_ttls[i], NULL),
                          "\"code\":-32602,\"message\":\"Invalid params: params.task.ttl");
    harness_expect_in(harness_req(&h, 20, "tools/call", "\"name\":\"add\",\"task\":\"yes\""),
                      "Invalid params: params.task must be an object");
    /* A longer ttl than the server keeps is cut, and the one granted told. */
    harness_expect_in(call_task(&h, 21, "add", "", "\"ttl\":99999999999", NULL), "\"ttl\":5000,");
    harness_expect_in(call_task(&h, 22, "add", "", "\"ttl\":null", NULL), "\"ttl\":5000,");
    harness_expect_in(call_task(&h, 23, "add", "", "\"ttl\":1200", NULL), "\"ttl\":1200,");
    harness_expect_in(harness_req(&h, 30, "tasks/get", ""),
                      "Invalid params: params.taskId must be a string");
    harness_expect_in(harness_req(&h, 31, "tasks/get", "\"taskId\":7"),
                      "Invalid params: params.taskId must be a string");
    harness_expect_in(harness_req(&h, 32, "tasks/get", "\"taskId\":\"0123456789abcdef0123456789abcdef\""),
                      "\"code\":-32602,\"message\":\"Invalid params: no task");
    harness_expect_in(harness_req(&h, 33, "tasks/result", "\"taskId\":\"\\u0000\""),
                      "Invalid params: no task \\\"\\\\u0000\\\"");
    harness_expect_in(harness_req(&h, 34, "tasks/list", "\"cursor\":\"abc\""),
                      "Invalid params: unknown cursor");
    harness_expect_in(harness_req(&h, 35, "tasks/list", "\"cursor\":7"),
                      "Invalid params: unknown cursor");
    /* And the connection serves on. */
    harness_expect_in(harness_req(&h, 40, "tools/call", "\"name\":\"add\",\"arguments\":{\"a\":1}"),
                      "sum 1");
    harness_stop(&h);
}

static void the_caps_refuse_more_tasks_and_nothing_else(void **state)
{
    mcp_server_options o = {.task_max_per_client = 2};
    harness h;
    harness_start(&h, new_server_with(&o), "2025-11-25", NULL, NULL);
    free(call_task(&h, 1, "wait", "", "", NULL));
    free(call_task(&h, 2, "wait", "", "", NULL));
    harness_expect_in(call_task(&h, 3, "wait", "", "", NULL),
                      "\"code\":-32603,\"message\":\"Too many tasks: this client holds 2");
    harness_expect_in(harness_req(&h, 4, "tools/call", "\"name\":\"add\",\"arguments\":{\"a\":4}"),
                      "sum 4");
    atomic_store(&gate_open, true);
    wait_handlers(2);
    harness_stop(&h);
}

static void tasks_list_pages_through_the_sessions_tasks(void **state)
{
    mcp_server_options o = {.page_size = 2};
    harness h;
    harness_start(&h, new_server_with(&o), "2025-11-25", NULL, NULL);
    char ids[3][33];
    for (int i = 0; i < 3; i++)
        free(call_task(&h, 1 + i, "wait", "", "", ids[i]));
    char *page = harness_req(&h, 10, "tasks/list", "");
    assert_non_null(strstr(page, ids[0]));
    assert_non_null(strstr(page, ids[1]));
    assert_null(strstr(page, ids[2]));
    char *cursor = strstr(page, "\"nextCursor\":\"");
    assert_non_null(cursor);
    char params[64];
    snprintf(params, sizeof params, "\"cursor\":\"%.*s\"",
             (int)(strchr(cursor + 14, '"') - (cursor + 14)), cursor + 14);
    free(page);
    page = harness_req(&h, 11, "tasks/list", params);
    assert_non_null(strstr(page, ids[2]));
    assert_null(strstr(page, ids[0]));
    assert_null(strstr(page, "nextCursor"));
    free(page);
    atomic_store(&gate_open, true);
    wait_handlers(3);
    harness_stop(&h);
}

/* The ttl ends a task however far it got: its run cancelled, its waiter
 * answered, its id unknown from then on. */
static void a_task_past_its_ttl_is_gone(void **state)
{
    mcp_server_options o = {.task_max_ttl_ms = 600};
    harness h;
    harness_start(&h, new_server_with(&o), "2025-11-25", NULL, NULL);
    char id[33];
    free(call_task(&h, 1, "wait", "", "", id));
    char params[80];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_send_req(&h, 2, "tasks/result", params);
    wait_started(1);
    harness_expect_in(wire_expect(&h.w, "\"id\":2,"), "no longer exists: the task expired");
    wait_handlers(1);
    assert_string_equal(cancel_reason, "the task expired");
    harness_expect_in(on_task(&h, 3, "tasks/get", id), "Invalid params: no task");
    harness_stop(&h);
}

/* The session's end ends its tasks: nobody could reach them. */
static void the_sessions_end_cancels_its_tasks(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", NULL, NULL);
    free(call_task(&h, 1, "wait", "", "", NULL));
    wait_started(1);
    harness_stop(&h);
    assert_int_equal(atomic_load(&handlers_ended), 1);
    assert_string_equal(cancel_reason, "its session ended");
}

/* The race: tasks/cancel against the handler's end against ttl expiry
 * against the connection's end. What each task's messages must show, in
 * any interleaving: at most one terminal status notification, and nothing
 * about the task after it; a tasks/cancel answered "cancelled" means the
 * task ends cancelled, one refused names the status it ended in; a
 * completed task is never cancelled; every request answered exactly once.
 * MCP_RACE_EPISODES sets the number of tasks (default 100,000). */
typedef struct raced {
    char id[33];
    int terminal_notes;   /* terminal status notifications */
    char final[16];       /* the status they gave */
    char cancel[16];      /* "cancelled", the status a refusal named, or "" */
    bool after_end;       /* something about it came after its end */
} raced;

#define BATCH 64

static raced *find_raced(raced *r, int n, const char *line)
{
    for (int i = 0; i < n; i++)
        if (r[i].id[0] && strstr(line, r[i].id))
            return &r[i];
    return NULL;
}

/* Read what one line says about the batch's tasks; answers[id - base]++. */
static void note_line(const char *line, raced *r, int n, int *answers, int base)
{
    const char *idp = strstr(line, "\"id\":");
    if (idp && !strstr(line, "\"method\"")) {
        int id = atoi(idp + 5);
        if (id >= base && id < base + 3 * BATCH)
            answers[id - base]++;
        /* The answer to a tools/call: the task's id. */
        if (id >= base && id < base + BATCH && strstr(line, "\"task\":{\"taskId\":\"")) {
            const char *p = strstr(line, "\"taskId\":\"") + 10;
            memcpy(r[id - base].id, p, 32);
            r[id - base].id[32] = '\0';
        }
        /* The answer to a tasks/cancel. */
        if (id >= base + BATCH && id < base + 2 * BATCH) {
            raced *t = &r[id - base - BATCH];
            if (strstr(line, "\"status\":\"cancelled\""))
                snprintf(t->cancel, sizeof t->cancel, "cancelled");
            else if (strstr(line, "it is already completed"))
                snprintf(t->cancel, sizeof t->cancel, "completed");
            else if (strstr(line, "it is already failed"))
                snprintf(t->cancel, sizeof t->cancel, "failed");
            else if (strstr(line, "it is already cancelled"))
                snprintf(t->cancel, sizeof t->cancel, "cancelled");
        }
        return;
    }
    raced *t = find_raced(r, n, line);
    if (!t)
        return;
    if (t->terminal_notes)
        t->after_end = true;
    if (strstr(line, "notifications/tasks/status")) {
        static const char *const ends[] = {"completed", "failed", "cancelled"};
        for (int k = 0; k < 3; k++) {
            char want[40];
            snprintf(want, sizeof want, "\"status\":\"%s\"", ends[k]);
            if (strstr(line, want)) {
                t->terminal_notes++;
                snprintf(t->final, sizeof t->final, "%s", ends[k]);
            }
        }
    }
}

static void tasks_cancel_races_the_end_the_ttl_and_the_close(void **state)
{
    long episodes = 100000;
    const char *e = getenv("MCP_RACE_EPISODES");
    if (e && atol(e) > 0)
        episodes = atol(e);
    mcp_server_options o = {.task_max_per_client = 4 * BATCH, .task_max_ttl_ms = 60000};
    unsigned seed = 12345;
    long done = 0, cancelled = 0, completed = 0, closes = 0, too_late = 0;
    while (done < episodes) {
        harness h;
        harness_start(&h, new_server_with(&o), "2025-11-25", NULL, NULL);
        /* A few batches per connection; the last one ends with its close. */
        int batches = 1 + (int)(rand_r(&seed) % 8);
        bool stopped = false;
        for (int b = 0; b < batches && done < episodes; b++) {
            bool close_now = b == batches - 1;
            raced r[BATCH];
            int answers[3 * BATCH];
            memset(r, 0, sizeof r);
            memset(answers, 0, sizeof answers);
            int base = 1000 + b * 3 * BATCH;
            for (int i = 0; i < BATCH; i++) {
                char params[160];
                int ttl = rand_r(&seed) % 8 == 0 ? 1 + (int)(rand_r(&seed) % 3) : 60000;
                snprintf(params, sizeof params,
                         "\"name\":\"race\",\"arguments\":{\"us\":%u},\"task\":{\"ttl\":%d}",
                         rand_r(&seed) % 300, ttl);
                harness_send_req(&h, base + i, "tools/call", params);
            }
            /* Each CreateTaskResult, then (most of the time) its cancel at
             * once: it meets the handler's end on the way. */
            int created = 0;
            while (created < BATCH) {
                char *line = wire_read(&h.w, 10000);
                if (!line)
                    fail_msg("no answer to a tools/call");
                note_line(line, r, BATCH, answers, base);
                free(line);
                for (; created < BATCH && answers[created] > 0; created++) {
                    if (!r[created].id[0] || rand_r(&seed) % 4 == 0)
                        continue;
                    char params[80];
                    snprintf(params, sizeof params, "\"taskId\":\"%s\"", r[created].id);
                    harness_send_req(&h, base + BATCH + created, "tasks/cancel", params);
                }
            }
            if (close_now) {
                /* The connection ends with tasks running and cancels in
                 * flight: the server must end them all and return. */
                harness_stop(&h);
                stopped = true;
                closes++;
            } else {
                /* A ping after everything: its answer comes after every
                 * other answer, and the handlers have had time to end. */
                usleep(2000);
                harness_send_req(&h, base + 3 * BATCH - 1, "ping", "");
                for (;;) {
                    char *line = wire_read(&h.w, 10000);
                    if (!line)
                        fail_msg("no answer to the ping");
                    note_line(line, r, BATCH, answers, base);
                    bool last = strstr(line, "\"result\":{}") &&
                                answers[3 * BATCH - 1] > 0;
                    free(line);
                    if (last)
                        break;
                }
            }
            for (int i = 0; i < BATCH; i++) {
                raced *t = &r[i];
                if (answers[i] != 1 || answers[BATCH + i] > 1)
                    fail_msg("request answered %d times", answers[i]);
                if (t->terminal_notes > 1 || t->after_end)
                    fail_msg("task %s: %d terminal notifications, more after its end", t->id,
                             t->terminal_notes);
                if (t->terminal_notes && t->cancel[0] && strcmp(t->cancel, t->final))
                    fail_msg("task %s: tasks/cancel said %s, it ended %s", t->id, t->cancel,
                             t->final);
                cancelled += !strcmp(t->final, "cancelled");
                completed += !strcmp(t->final, "completed");
                too_late += !strcmp(t->cancel, "completed");
            }
            done += BATCH;
        }
        if (!stopped)
            harness_stop(&h);
    }
    /* Both ends were reached, and cancels that came too late. */
    assert_true(cancelled > 0 && completed > 0 && closes > 0 && too_late > 0);
    print_message("%ld tasks: %ld cancelled, %ld completed (%ld of them after a tasks/cancel "
                  "that came too late), %ld connections closed mid-race\n",
                  done, cancelled, completed, too_late, closes);
}

/* Cancelling frees no room under the cap (a cancelled task is kept for
 * its ttl, as a finished one is): the refusal must not say it does. */
static void the_cap_refusal_does_not_ask_for_cancels_that_free_nothing(void **state)
{
    mcp_server_options o = {.task_max_per_client = 1};
    harness h;
    harness_start(&h, new_server_with(&o), "2025-11-25", NULL, NULL);
    char id[33];
    free(call_task(&h, 1, "wait", "", "", id));
    wait_started(1);
    harness_expect_in(on_task(&h, 2, "tasks/cancel", id), "\"status\":\"cancelled\"");
    char *refused = call_task(&h, 3, "add", "", "", NULL);
    assert_non_null(strstr(refused, "\"code\":-32603,\"message\":\"Too many tasks: this client "
                                    "holds 1"));
    assert_null(strstr(refused, "cancel some"));
    harness_expect_in(refused, "expire");
    wait_handlers(1);
    harness_stop(&h);
}

/* task_max_ttl_ms of UINT64_MAX ("keep them as long as you like"): a task
 * is kept, not expired at once by an overflowing deadline, and its ttl is
 * reported as a number a client can read. */
static void a_huge_max_ttl_neither_overflows_nor_goes_negative(void **state)
{
    mcp_server_options o = {.task_max_ttl_ms = UINT64_MAX, .task_poll_interval_ms = UINT64_MAX};
    harness h;
    harness_start(&h, new_server_with(&o), "2025-11-25", NULL, NULL);
    char id[33];
    char *created = call_task(&h, 1, "add", "\"a\":1", "", id);
    assert_null(strstr(created, "\"ttl\":-"));
    assert_null(strstr(created, "\"pollInterval\":-"));
    free(created);
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "completed");
    usleep(50000); /* the expiry timer, had it been armed for now, fired */
    harness_expect_in(on_task(&h, 2, "tasks/get", id), "\"status\":\"completed\"");
    harness_expect_in(on_task(&h, 3, "tasks/result", id), "sum 1");
    harness_stop(&h);
}

/* A null cursor is no cursor, as tools/list (and the other lists) take it:
 * the first page, not "unknown cursor". */
static void tasks_list_takes_a_null_cursor_as_none(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", NULL, NULL);
    char id[33];
    free(call_task(&h, 1, "add", "\"a\":1", "", id));
    harness_expect_in(harness_req(&h, 2, "tools/list", "\"cursor\":null"), "\"result\":{\"tools\"");
    harness_expect_in(harness_req(&h, 3, "tasks/list", "\"cursor\":null"), id);
    harness_stop(&h);
}

/* A task's handler asks the client (2025): the task needs input while the
 * question is open, the question names the task and goes with the
 * waiting tasks/result; answered, the task works on to its result; a
 * cancelled task cancels its open question on the wire. */
static void a_tasks_question_goes_with_its_tasks_result(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", "{\"elicitation\":{}}", NULL);
    char id[33];
    free(call_task(&h, 1, "ask_name", "", "", id));
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"),
                      "\"status\":\"input_required\"");
    char params[80];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_send_req(&h, 2, "tasks/result", params);
    char *line;
    long long asked = harness_server_request(&h, "elicitation/create", &line);
    char want[120];
    snprintf(want, sizeof want, "\"io.modelcontextprotocol/related-task\":{\"taskId\":\"%s\"}", id);
    if (!strstr(line, want))
        fail_msg("%s: no %s", line, want);
    free(line);
    char answer[200];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"accept\","
             "\"content\":{\"name\":\"Ada\"}}}",
             asked);
    wire_send(&h.w, answer);
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"), "\"status\":\"working\"");
    harness_expect_in(wire_expect(&h.w, "\"id\":2,"), "the name is Ada (success)");
    /* Its question waits for a tasks/result to go with (on HTTP nothing
     * else is sure to reach the client): cancelled meanwhile, nothing of
     * it ever goes out. */
    free(call_task(&h, 3, "ask_name", "", "", id));
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"),
                      "\"status\":\"input_required\"");
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_send_req(&h, 4, "tasks/cancel", params);
    harness_expect_in(wire_expect(&h.w, "\"id\":4,"), "\"status\":\"cancelled\"");
    wait_handlers(2);
    assert_int_equal(atomic_load(&ask_rc), MCP_ERR_CANCELLED);
    char *rest;
    while ((rest = wire_read(&h.w, 100))) {
        assert_null(strstr(rest, "elicitation/create"));
        free(rest);
    }
    /* Cancelled while it asks: the question is cancelled on the wire. */
    free(call_task(&h, 5, "ask_name", "", "", id));
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_send_req(&h, 6, "tasks/result", params);
    asked = harness_server_request(&h, "elicitation/create", NULL);
    harness_send_req(&h, 7, "tasks/cancel", params);
    /* The question's cancel goes first (the task is cancelled, its run
     * settles, what it asked goes with it), then the answer. */
    char *cancel = wire_expect(&h.w, "notifications/cancelled");
    snprintf(want, sizeof want, "\"requestId\":%lld", asked);
    if (!strstr(cancel, want))
        fail_msg("%s: no %s", cancel, want);
    free(cancel);
    harness_expect_in(wire_expect(&h.w, "\"id\":7,"), "\"status\":\"cancelled\"");
    harness_expect_in(wire_expect(&h.w, "\"id\":6,"), "was cancelled");
    wait_handlers(3);
    /* A requestor that polls tasks/get alone: once it has read the task,
     * the question goes on the session's own route. */
    free(call_task(&h, 8, "ask_name", "", "", id));
    harness_expect_in(wire_expect(&h.w, "notifications/tasks/status"),
                      "\"status\":\"input_required\"");
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_send_req(&h, 9, "tasks/get", params);
    harness_expect_in(wire_expect(&h.w, "\"id\":9,"), "\"status\":\"input_required\"");
    asked = harness_server_request(&h, "elicitation/create", NULL);
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"accept\","
             "\"content\":{\"name\":\"Bo\"}}}",
             asked);
    wire_send(&h.w, answer);
    wait_handlers(4);
    assert_int_equal(atomic_load(&ask_rc), MCP_OK);
    harness_stop(&h);
}

/* 2026-07-28: the io.modelcontextprotocol/tasks extension ------------------------- */

static void under_2026_the_request_declares_and_the_server_decides(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char *discovered = harness_req(&h, 1, "server/discover", "");
    assert_non_null(strstr(discovered, "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}"));
    free(discovered);
    /* Without the extension: a tool that may run as a task is a call, one
     * that must is refused -32021, and the task methods too, before any
     * id is looked at. */
    harness_expect_in(harness_req(&h, 2, "tools/call", "\"name\":\"add\",\"arguments\":{\"a\":2}"),
                      "\"content\":[{\"type\":\"text\",\"text\":\"sum 2\"}]");
    harness_expect_in(harness_req(&h, 3, "tools/call", "\"name\":\"wait\""),
                      "\"code\":-32021,\"message\":\"Missing required client capability\","
                      "\"data\":{\"requiredCapabilities\":{\"extensions\":"
                      "{\"io.modelcontextprotocol/tasks\":{}}}}");
    harness_expect_in(harness_req(&h, 4, "tasks/get", "\"taskId\":\"nope\""), "-32021");
    /* With it: the flat task, resultType "task", the extension's names. */
    char *created = ext_req(&h, 5, "tools/call", "\"name\":\"add\",\"arguments\":{\"a\":7},"
                                                 "\"task\":{\"ttl\":5}");
    assert_non_null(strstr(created, "\"result\":{\"resultType\":\"task\",\"taskId\":\""));
    assert_non_null(strstr(created, "\"ttlMs\":3600000,\"pollIntervalMs\":1000"));
    assert_null(strstr(created, "\"ttl\":"));
    assert_null(strstr(created, "\"task\":{"));
    char id[33];
    task_id_of(created, id);
    free(created);
    /* tasks/get: the result inline, no related-task _meta, resultType
     * complete. */
    char *got = ext_until(&h, 6, id, "\"completed\"");
    assert_non_null(strstr(got, "\"status\":\"completed\""));
    assert_non_null(strstr(got, "\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"sum 7\"}],\"resultType\":\"complete\"}"));
    assert_non_null(strstr(got, "\"resultType\":\"complete\""));
    assert_null(strstr(got, "related-task"));
    free(got);
    /* A tool error completes its task; a JSON-RPC error fails it, inline. */
    char *broken = ext_req(&h, 7, "tools/call", "\"name\":\"broken\"");
    task_id_of(broken, id);
    free(broken);
    harness_expect_in(ext_on_task(&h, 8, "tasks/get", id), "\"status\":\"completed\"");
    char *refused = ext_req(&h, 9, "tools/call", "\"name\":\"refuse\"");
    task_id_of(refused, id);
    free(refused);
    harness_expect_in(ext_on_task(&h, 10, "tasks/get", id),
                      "\"error\":{\"code\":-32000,\"message\":\"refused by the tool\"}");
    /* Acknowledgments, also for a task that ended; gone methods. */
    harness_expect_in(ext_on_task(&h, 11, "tasks/cancel", id), "\"result\":{\"resultType\":\"complete\"");
    harness_expect_in(ext_req(&h, 12, "tasks/update", "\"taskId\":\"x\",\"inputResponses\":{}"),
                      "\"code\":-32602");
    harness_expect_in(ext_on_task(&h, 13, "tasks/result", id), "\"code\":-32601");
    harness_expect_in(ext_req(&h, 14, "tasks/list", ""), "\"code\":-32601");
    harness_expect_in(ext_on_task(&h, 15, "tasks/get", "0123456789abcdef0123456789abcdef"),
                      "\"code\":-32602");
    harness_stop(&h);
}

/* A stop ends a 2026 task's run at once (it runs on no connection: before,
 * it ran on until the stop's grace, 2 s, was over). */
static void a_stop_ends_2026_tasks_at_once(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    free(ext_req(&h, 1, "tools/call", "\"name\":\"wait\""));
    wait_started(1);
    mcp_server_stop(h.server);
    for (int i = 0; i < 100 && atomic_load(&handlers_ended) < 1; i++)
        usleep(5000); /* half a second: well within the grace */
    assert_int_equal(atomic_load(&handlers_ended), 1);
    assert_string_equal(cancel_reason, "the server stopped");
    harness_stop(&h);
}

/* 2026 tasks outlive their connections: the per-client cap counts them by
 * their credential (here none: one bucket). */
static void a_2026_client_is_capped_too(void **state)
{
    mcp_server_options o = {.task_max_per_client = 2};
    harness h;
    harness_start(&h, new_server_with(&o), NULL, NULL, NULL);
    harness_expect_in(ext_req(&h, 1, "tools/call", "\"name\":\"wait\""), "\"resultType\":\"task\"");
    harness_expect_in(ext_req(&h, 2, "tools/call", "\"name\":\"wait\""), "\"resultType\":\"task\"");
    harness_expect_in(ext_req(&h, 3, "tools/call", "\"name\":\"wait\""),
                      "\"code\":-32603,\"message\":\"Too many tasks: this client holds 2");
    atomic_store(&gate_open, true);
    wait_handlers(2);
    harness_stop(&h);
}

static void a_2026_cancel_stops_the_handler(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    /* It asks for progress and logs: a plain call would get both. */
    char *created = ext_req_meta(&h, 1, "tools/call", "\"name\":\"wait\"",
                                 "\"progressToken\":\"p\",\"io.modelcontextprotocol/logLevel\":"
                                 "\"debug\"");
    char id[33];
    task_id_of(created, id);
    free(created);
    wait_started(1);
    char *ack = ext_on_task(&h, 2, "tasks/cancel", id);
    assert_non_null(strstr(ack, "\"result\":{\"resultType\":\"complete\""));
    assert_null(strstr(ack, "taskId"));
    free(ack);
    wait_handlers(1);
    assert_string_equal(cancel_reason, "the task was cancelled (tasks/cancel)");
    harness_expect_in(ext_on_task(&h, 3, "tasks/get", id), "\"status\":\"cancelled\"");
    /* Its handler reported progress and logged (tool_wait): nothing of it
     * went out (ext-tasks: no progress or log for tasks). */
    harness_send_req(&h, 4, "tools/call", "\"name\":\"add\"");
    for (;;) {
        char *line = wire_read(&h.w, 5000);
        assert_non_null(line);
        assert_null(strstr(line, "notifications/progress"));
        assert_null(strstr(line, "notifications/message"));
        bool last = strstr(line, "\"id\":4,") != NULL;
        free(line);
        if (last)
            break;
    }
    harness_stop(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_capabilities_and_the_tools_say_what_runs_as_a_task),
        cmocka_unit_test(a_task_runs_the_tools_own_handler),
        cmocka_unit_test(task_support_decides_how_a_tool_may_be_called),
        cmocka_unit_test(tasks_result_waits_for_the_end),
        cmocka_unit_test(tasks_cancel_stops_the_handler_and_is_final),
        cmocka_unit_test(notifications_cancelled_does_not_cancel_a_task),
        cmocka_unit_test(progress_and_logs_name_their_task),
        cmocka_unit_test(bad_task_params_get_clear_errors),
        cmocka_unit_test(the_caps_refuse_more_tasks_and_nothing_else),
        cmocka_unit_test(tasks_list_pages_through_the_sessions_tasks),
        cmocka_unit_test(a_task_past_its_ttl_is_gone),
        cmocka_unit_test(the_sessions_end_cancels_its_tasks),
        cmocka_unit_test(tasks_cancel_races_the_end_the_ttl_and_the_close),
        cmocka_unit_test(the_cap_refusal_does_not_ask_for_cancels_that_free_nothing),
        cmocka_unit_test(a_huge_max_ttl_neither_overflows_nor_goes_negative),
        cmocka_unit_test(tasks_list_takes_a_null_cursor_as_none),
        cmocka_unit_test(a_tasks_question_goes_with_its_tasks_result),
        cmocka_unit_test(under_2026_the_request_declares_and_the_server_decides),
        cmocka_unit_test(a_2026_cancel_stops_the_handler),
        cmocka_unit_test(a_2026_client_is_capped_too),
        cmocka_unit_test(a_stop_ends_2026_tasks_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
