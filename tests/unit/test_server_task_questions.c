/* SPDX-License-Identifier: MIT */
/*
 * A 2026-07-28 task's questions (the io.modelcontextprotocol/tasks
 * extension): a handler's mcp_call_ask waits in its task, which is
 * input_required while any does, listed by key in tasks/get's
 * inputRequests, answered by tasks/update (stale keys ignored, partial
 * sets accepted), withdrawn by a cancel or a timeout; and a deferred
 * tool's questions asked first, as input-required rounds, before
 * mcp_call_become_task makes the call a task; notifications/tasks on a
 * listen that names the task.
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

static const char form[] = "{\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\","
                           "\"properties\":{\"name\":{\"type\":\"string\"}}}}";

static atomic_int ask_rc, second_rc, become_rc, handlers_ended;

/* The name an accepted form gave, or "?". */
static const char *name_in(const mcp_ask_answer *a)
{
    const char *name = mcp_json_string(
        mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(a->result), "content"), "name"),
        NULL);
    return name ? name : "?";
}

/* Asks a name (key q1, automatic) within arguments.timeout_ms (0: none);
 * answers with it. With arguments.again, asks the same key once more. */
static void tool_ask_name(void *ud, mcp_call *c)
{
    uint64_t timeout = 0;
    mcp_json_get_uint64(mcp_json_object_get(mcp_call_arguments(c), "timeout_ms"), &timeout);
    mcp_json_doc *d;
    mcp_json_parse(form, sizeof form - 1, NULL, NULL, &d, NULL);
    mcp_ask_answer a = {.size = sizeof a};
    const char *key = mcp_json_object_get(mcp_call_arguments(c), "key") ? "k" : NULL;
    int rc = mcp_call_ask(c, key, "elicitation/create", mcp_json_doc_root(d), timeout, &a);
    atomic_store(&ask_rc, rc);
    char text[200];
    snprintf(text, sizeof text, "the name is %s (%s)", name_in(&a), mcp_strerror(rc));
    mcp_ask_answer_release(&a);
    if (mcp_json_object_get(mcp_call_arguments(c), "again")) {
        /* The same key again: its answer at once, or (withdrawn) refused. */
        atomic_store(&second_rc, mcp_call_ask(c, key, "elicitation/create",
                                              mcp_json_doc_root(d), timeout, &a));
        mcp_ask_answer_release(&a);
    }
    mcp_json_doc_free(d);
    if (rc == MCP_ERR_CANCELLED)
        mcp_call_finish(c);
    else
        mcp_call_reply_text(c, text);
    atomic_fetch_add(&handlers_ended, 1);
}

/* Asks two names at once ("first", "second"). */
static void tool_ask_two(void *ud, mcp_call *c)
{
    mcp_json_doc *d;
    mcp_json_parse(form, sizeof form - 1, NULL, NULL, &d, NULL);
    const mcp_ask_question qs[2] = {{"first", "elicitation/create", mcp_json_doc_root(d)},
                                    {"second", "elicitation/create", mcp_json_doc_root(d)}};
    mcp_ask_answer a[2] = {{.size = sizeof a[0]}, {.size = sizeof a[1]}};
    int outcomes[2];
    int rc = mcp_call_ask_all(c, qs, 2, 0, a, outcomes);
    char text[200];
    snprintf(text, sizeof text, "first=%s second=%s (%s)", name_in(&a[0]), name_in(&a[1]),
             mcp_strerror(rc));
    mcp_ask_answer_release(&a[0]);
    mcp_ask_answer_release(&a[1]);
    mcp_json_doc_free(d);
    mcp_call_reply_text(c, text);
    atomic_fetch_add(&handlers_ended, 1);
}

/* Asks user_name as a round first, then becomes a task and greets. */
static void tool_greet_later(void *ud, mcp_call *c)
{
    mcp_json_doc *d;
    mcp_json_parse(form, sizeof form - 1, NULL, NULL, &d, NULL);
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, "user_name", "elicitation/create", mcp_json_doc_root(d), 0, &a);
    mcp_json_doc_free(d);
    if (rc == MCP_ERR_INPUT_REQUIRED || rc == MCP_ERR_CANCELLED) {
        mcp_ask_answer_release(&a);
        mcp_call_finish(c);
        return;
    }
    atomic_store(&become_rc, mcp_call_become_task(c));
    char text[200];
    snprintf(text, sizeof text, "Hello, %s!", name_in(&a));
    mcp_ask_answer_release(&a);
    mcp_call_reply_text(c, text);
    atomic_fetch_add(&handlers_ended, 1);
}

static mcp_server *new_server(void)
{
    mcp_server_options o = {.size = sizeof o, .name = "questions", .log_level = MCP_LOG_ERROR};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "ask_name", .handler = tool_ask_name,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "ask_two", .handler = tool_ask_two,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "greet_later", .handler = tool_greet_later,
         .flags = MCP_TOOL_BLOCKING | MCP_TOOL_TASK_DEFERRED, .task_support = MCP_TASK_OPTIONAL},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    atomic_store(&ask_rc, 1);
    atomic_store(&second_rc, 1);
    atomic_store(&become_rc, 1);
    atomic_store(&handlers_ended, 0);
    ext_caps = "\"elicitation\":{},";
    return s;
}

static void wait_handlers(int n)
{
    for (int i = 0; i < 1000 && atomic_load(&handlers_ended) < n; i++)
        usleep(5000);
    assert_int_equal(atomic_load(&handlers_ended), n);
}

/* A task of tool (arguments: members), its id in id. */
static void make_task(harness *h, int rid, const char *tool, const char *args, char id[33])
{
    char params[200];
    snprintf(params, sizeof params, "\"name\":\"%s\",\"arguments\":{%s}", tool, args);
    char *created = ext_req(h, rid, "tools/call", params);
    assert_non_null(strstr(created, "\"resultType\":\"task\""));
    task_id_of(created, id);
    free(created);
}

/* tasks/update of task id with inputResponses (members); its answer must
 * be the empty acknowledgment. */
static void update(harness *h, int rid, const char id[33], const char *responses)
{
    char params[400];
    snprintf(params, sizeof params, "\"taskId\":\"%s\",\"inputResponses\":{%s}", id, responses);
    char *ack = ext_req(h, rid, "tasks/update", params);
    if (!strstr(ack, "\"result\":{\"resultType\":\"complete\",\"_meta\"") ||
        strstr(ack, "\"status\""))
        fail_msg("not an acknowledgment: %s", ack);
    free(ack);
}

static void a_tasks_question_waits_in_the_task_for_tasks_update(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask_name", "", id);
    char *got = ext_until(&h, 2, id, "input_required");
    /* The question under its key, as the client would get the request. */
    assert_non_null(strstr(got, "\"status\":\"input_required\""));
    assert_non_null(strstr(got, "\"inputRequests\":{\"q1\":{\"method\":\"elicitation/create\","
                                "\"params\":{\"message\":\"Who?\""));
    free(got);
    /* Keys nobody asked and answers that are no object: ignored, acked. */
    update(&h, 3, id, "\"unknown-key\":{\"ignored\":true},\"q1\":7");
    harness_expect_in(ext_on_task(&h, 4, "tasks/get", id), "\"inputRequests\":{\"q1\":");
    update(&h, 5, id, "\"q1\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
    got = ext_until(&h, 6, id, "\"completed\"");
    assert_non_null(strstr(got, "the name is Ada (success)"));
    assert_null(strstr(got, "inputRequests"));
    free(got);
    assert_int_equal(atomic_load(&ask_rc), MCP_OK);
    /* Answered again, after the end: a stale key, acked, nothing moves. */
    update(&h, 7, id, "\"q1\":{\"action\":\"accept\",\"content\":{\"name\":\"Bob\"}}");
    harness_expect_in(ext_on_task(&h, 8, "tasks/get", id), "the name is Ada");
    /* inputResponses must be an object. */
    char params[120];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_expect_in(ext_req(&h, 9, "tasks/update", params), "params.inputResponses must be an object");
    snprintf(params, sizeof params, "\"taskId\":\"%s\",\"inputResponses\":[]", id);
    harness_expect_in(ext_req(&h, 10, "tasks/update", params), "\"code\":-32602");
    harness_stop(&h);
}

static void a_partial_answer_leaves_the_rest_outstanding(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask_two", "", id);
    char *got = ext_until(&h, 2, id, "\"second\":{");
    assert_non_null(strstr(got, "\"inputRequests\":{\"first\":{"));
    free(got);
    update(&h, 3, id, "\"first\":{\"action\":\"accept\",\"content\":{\"name\":\"A\"}}");
    got = ext_on_task(&h, 4, "tasks/get", id);
    assert_non_null(strstr(got, "\"status\":\"input_required\""));
    assert_non_null(strstr(got, "\"inputRequests\":{\"second\":{"));
    assert_null(strstr(got, "\"first\""));
    free(got);
    update(&h, 5, id, "\"second\":{\"action\":\"accept\",\"content\":{\"name\":\"B\"}}");
    harness_expect_in(ext_until(&h, 6, id, "\"completed\""), "first=A second=B (success)");
    harness_stop(&h);
}

static void a_cancelled_task_withdraws_its_question(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask_name", "", id);
    free(ext_until(&h, 2, id, "input_required"));
    harness_expect_in(ext_on_task(&h, 3, "tasks/cancel", id), "\"resultType\":\"complete\"");
    wait_handlers(1);
    assert_int_equal(atomic_load(&ask_rc), MCP_ERR_CANCELLED);
    char *got = ext_on_task(&h, 4, "tasks/get", id);
    assert_non_null(strstr(got, "\"status\":\"cancelled\""));
    assert_null(strstr(got, "inputRequests"));
    free(got);
    /* An answer now finds no question. */
    update(&h, 5, id, "\"q1\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
    harness_stop(&h);
}

static void a_question_that_times_out_is_withdrawn_and_its_key_never_reused(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask_name", "\"timeout_ms\":30,\"key\":true,\"again\":true", id);
    char *got = ext_until(&h, 2, id, "\"completed\"");
    if (!strstr(got, "the name is ? (request timed out)"))
        fail_msg("%s", got);
    free(got);
    assert_int_equal(atomic_load(&ask_rc), MCP_ERR_TIMED_OUT);
    assert_int_equal(atomic_load(&second_rc), MCP_ERR_INVALID_ARG);
    harness_stop(&h);
}

/* The same key asked again after its answer: the answer, at once. */
static void a_key_answered_is_answered_again_at_once(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask_name", "\"key\":true,\"again\":true", id);
    free(ext_until(&h, 2, id, "input_required"));
    update(&h, 3, id, "\"k\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
    harness_expect_in(ext_until(&h, 4, id, "\"completed\""), "the name is Ada");
    assert_int_equal(atomic_load(&second_rc), MCP_OK);
    harness_stop(&h);
}

/* The requestState of an InputRequiredResult (caller frees). */
static char *request_state_of(const char *answer)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(answer, strlen(answer), NULL, NULL, &d, NULL), MCP_OK);
    const char *st = mcp_json_string(
        mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(d), "result"), "requestState"),
        NULL);
    assert_non_null(st);
    char *copy = strdup(st);
    mcp_json_doc_free(d);
    return copy;
}

/* ext-tasks: input-required rounds are resolved before the task is made;
 * the task's result has what they gathered. */
static void a_deferred_tools_questions_come_first_then_the_task(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char *round = ext_req(&h, 1, "tools/call", "\"name\":\"greet_later\",\"arguments\":{}");
    assert_non_null(strstr(round, "\"resultType\":\"input_required\""));
    assert_non_null(strstr(round, "\"user_name\":{\"method\":\"elicitation/create\""));
    assert_null(strstr(round, "taskId"));
    char *st = request_state_of(round);
    free(round);
    char params[1500];
    snprintf(params, sizeof params,
             "\"name\":\"greet_later\",\"arguments\":{},\"inputResponses\":{\"user_name\":"
             "{\"action\":\"accept\",\"content\":{\"name\":\"Alice\"}}},\"requestState\":\"%s\"",
             st);
    free(st);
    char *created = ext_req(&h, 2, "tools/call", params);
    assert_non_null(strstr(created, "\"resultType\":\"task\""));
    assert_null(strstr(created, "requestState"));
    char id[33];
    task_id_of(created, id);
    free(created);
    harness_expect_in(ext_until(&h, 3, id, "\"completed\""), "Hello, Alice!");
    assert_int_equal(atomic_load(&become_rc), MCP_OK);
    harness_stop(&h);
}

/* Without the extension the call stays a call: mcp_call_become_task says
 * so, and the handler's answer is the call's. */
static void without_the_extension_a_deferred_tool_stays_a_call(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                    "\"name\":\"greet_later\",\"arguments\":{},\"inputResponses\":{\"user_name\":"
                    "{\"action\":\"accept\",\"content\":{\"name\":\"Bo\"}}},\"_meta\":{"
                    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}}");
    harness_expect_in(wire_expect(&h.w, "\"id\":1,"), "\"text\":\"Hello, Bo!\"");
    assert_int_equal(atomic_load(&become_rc), MCP_ERR_STATE);
    harness_stop(&h);
}

/* Under 2025-11-25 a task-augmented call is a task from the start: the
 * handler's mcp_call_become_task finds it one already. */
static void under_2025_a_deferred_tool_is_a_task_from_the_start(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", "{\"elicitation\":{}}", NULL);
    char *created = harness_req(&h, 1, "tools/call",
                                "\"name\":\"greet_later\",\"arguments\":{},\"task\":{}");
    char id[33], params[80];
    task_id_of(created, id);
    free(created);
    /* Its question goes with a tasks/result. */
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
    harness_send_req(&h, 2, "tasks/result", params);
    char *line;
    long long qid = harness_server_request(&h, "elicitation/create", &line);
    assert_non_null(strstr(line, "io.modelcontextprotocol/related-task"));
    free(line);
    char answer[200];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"accept\",\"content\":"
             "{\"name\":\"Cy\"}}}",
             qid);
    wire_send(&h.w, answer);
    harness_expect_in(wire_expect(&h.w, "\"id\":2,"), "Hello, Cy!");
    wait_handlers(1);
    assert_int_equal(atomic_load(&become_rc), MCP_OK);
    harness_stop(&h);
}

/* A listen's line asking notifications/tasks for taskIds (a JSON array's
 * members), declaring the extension or not. */
static void send_listen(harness *h, int id, const char *task_ids, bool declared)
{
    char line[600];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"subscriptions/listen\",\"params\":"
             "{\"notifications\":{\"taskIds\":[%s]},\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{%s}}}}",
             id, task_ids, declared ? "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}" : "");
    wire_send(&h->w, line);
}

/* ext-tasks: notifications/tasks (the detailed task) goes on a listen that
 * named the task, on every change, and nowhere else. */
static void a_listen_naming_a_task_hears_its_changes(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char id[33], quoted[40];
    make_task(&h, 1, "ask_name", "", id);
    free(ext_until(&h, 2, id, "input_required"));
    snprintf(quoted, sizeof quoted, "\"%s\"", id);
    send_listen(&h, 3, quoted, true);
    char *ack = wire_expect(&h.w, "notifications/subscriptions/acknowledged");
    assert_non_null(strstr(ack, "\"taskIds\":["));
    assert_non_null(strstr(ack, id));
    free(ack);
    /* Sent without waiting for its answer: the change may be told first. */
    char line[700];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/update\",\"params\":{\"taskId\":"
             "\"%s\",\"inputResponses\":{\"q1\":{\"action\":\"accept\",\"content\":{\"name\":"
             "\"Ada\"}}},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{"
             "\"io.modelcontextprotocol/tasks\":{}}}}}}",
             id);
    wire_send(&h.w, line);
    /* Working again, then completed with its result inline; each names
     * the subscription. */
    char *working = wire_expect(&h.w, "\"method\":\"notifications/tasks\"");
    if (!strstr(working, "\"status\":\"working\"") ||
        !strstr(working, "\"io.modelcontextprotocol/subscriptionId\":3"))
        fail_msg("%s", working);
    free(working);
    char *done = wire_expect(&h.w, "\"method\":\"notifications/tasks\"");
    if (!strstr(done, "\"status\":\"completed\"") || !strstr(done, "the name is Ada"))
        fail_msg("%s", done);
    free(done);
    /* A listen that does not name a task hears nothing of it. */
    char other[33];
    make_task(&h, 5, "ask_name", "", other);
    free(ext_until(&h, 6, other, "input_required"));
    harness_expect_in(ext_on_task(&h, 7, "tasks/cancel", other), "\"resultType\":\"complete\"");
    free(ext_on_task(&h, 8, "tasks/get", id)); /* a marker after the cancel */
    char *rest;
    while ((rest = wire_read(&h.w, 100))) {
        assert_null(strstr(rest, other));
        free(rest);
    }
    /* Task ids without the extension declared: -32021; bad ones: -32602. */
    send_listen(&h, 9, quoted, false);
    harness_expect_in(wire_expect(&h.w, "\"id\":9,"), "\"code\":-32021");
    send_listen(&h, 10, "7", true);
    harness_expect_in(wire_expect(&h.w, "\"id\":10,"), "taskIds must be an array");
    harness_stop(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_tasks_question_waits_in_the_task_for_tasks_update),
        cmocka_unit_test(a_partial_answer_leaves_the_rest_outstanding),
        cmocka_unit_test(a_cancelled_task_withdraws_its_question),
        cmocka_unit_test(a_question_that_times_out_is_withdrawn_and_its_key_never_reused),
        cmocka_unit_test(a_key_answered_is_answered_again_at_once),
        cmocka_unit_test(a_deferred_tools_questions_come_first_then_the_task),
        cmocka_unit_test(without_the_extension_a_deferred_tool_stays_a_call),
        cmocka_unit_test(under_2025_a_deferred_tool_is_a_task_from_the_start),
        cmocka_unit_test(a_listen_naming_a_task_hears_its_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
