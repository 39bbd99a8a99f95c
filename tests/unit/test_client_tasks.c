/* SPDX-License-Identifier: MIT */
/*
 * The client's task calls under 2026-07-28 (the io.modelcontextprotocol/tasks
 * extension), against a server the test plays on the wire (scripted.h):
 * - ALWAYS declares the extension in the call's clientCapabilities when
 *   the server's discover result declares it (MCP_ERR_STATE when it does
 *   not); AUTO and NEVER do not;
 * - the task's questions (tasks/get inputRequests) go to the same handler
 *   as any elicitation, each key once, and their answers go back with
 *   tasks/update; the result tasks/get carries is the call's;
 * - a failed task is the call's JSON-RPC error; a cancel is tasks/cancel.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "scripted.h"
#include "wire.h"

#define WITH_TASKS "{\"tools\":{},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}"
#define DECLARED "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}"

static long long id_of(const char *line)
{
    const char *p = strstr(line, "\"id\":");
    assert_non_null(p);
    return strtoll(p + 5, NULL, 10);
}

static void answer_line(scripted *s, long long id, const char *result)
{
    char *out = malloc(strlen(result) + 64);
    sprintf(out, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}", id, result);
    wire_send(&s->w, out);
    free(out);
}

static void says(const char *text, const char *needle)
{
    if (!text || !strstr(text, needle))
        fail_msg("\"%s\" does not say \"%s\"", text ? text : "(null)", needle);
}

/* The next line the client writes that names method: read, checked to
 * declare the extension, its id returned (the line freed). */
static long long next_declaring(scripted *s, const char *method)
{
    char needle[64];
    snprintf(needle, sizeof needle, "\"method\":\"%s\"", method);
    char *l = scripted_next_line(s, needle);
    says(l, DECLARED);
    long long id = id_of(l);
    free(l);
    return id;
}

#define CREATED                                                                                \
    "{\"resultType\":\"task\",\"taskId\":\"t1\",\"status\":\"working\",\"createdAt\":"        \
    "\"2026-11-27T00:00:00Z\",\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\",\"ttlMs\":60000,"     \
    "\"pollIntervalMs\":10}"
#define TASK(status, more)                                                                     \
    "{\"resultType\":\"complete\",\"taskId\":\"t1\",\"status\":\"" status "\",\"createdAt\":" \
    "\"2026-11-27T00:00:00Z\",\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\",\"ttlMs\":60000,"     \
    "\"pollIntervalMs\":10" more "}"
#define ELICIT(key)                                                                            \
    "\"" key "\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"" key "?\","     \
    "\"requestedSchema\":{\"type\":\"object\"}}}"

/* The elicitation handler: counts, records the messages, accepts. */
static struct {
    int asked;
    char messages[64];
} h;

static void on_elicitation(void *ud, mcp_question *q)
{
    (void)ud;
    h.asked++;
    const char *m = mcp_json_string(mcp_json_object_get(mcp_question_params(q), "message"), NULL);
    snprintf(h.messages + strlen(h.messages), sizeof h.messages - strlen(h.messages), "%s",
             m ? m : "-");
    static const char accept[] = "{\"action\":\"accept\",\"content\":{}}";
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(accept, sizeof accept - 1, NULL, NULL, &d, NULL), MCP_OK);
    assert_int_equal(mcp_question_answer(q, mcp_json_doc_root(d), NULL, 0), MCP_OK);
    mcp_json_doc_free(d);
}

typedef struct pending_call {
    bool done;
    int outcome;
    int64_t error_code;
    char text[64];
} pending_call;

static void call_done(void *ud, const mcp_client_call_result *r)
{
    pending_call *pc = ud;
    pc->done = true;
    pc->outcome = r->outcome;
    pc->error_code = r->error_code;
    const char *t = mcp_json_string(
        mcp_json_object_get(mcp_json_array_at(mcp_json_object_get(r->result, "content"), 0),
                            "text"),
        NULL);
    snprintf(pc->text, sizeof pc->text, "%s", t ? t : r->error_message ? r->error_message : "");
}

static void run_until_done(scripted *s, pending_call *pc)
{
    uint64_t end = mcp_monotonic_ms() + 5000;
    while (!pc->done && mcp_monotonic_ms() < end)
        mcp_client_run_once(s->client, false);
    assert_true(pc->done);
}

static const mcp_client_call_options always = {.size = sizeof always,
                                               .task = MCP_CALL_TASK_ALWAYS};

static mcp_client_options options(void)
{
    return (mcp_client_options){.size = sizeof(mcp_client_options),
                                .on_elicitation = on_elicitation,
                                .log_level = MCP_LOG_ERROR};
}

static void the_extension_is_declared_when_asked_where_the_server_has_it(void **state)
{
    scripted s;
    char *hello;
    scripted_open(&s, "2026-07-28", options(), &hello);
    free(hello);
    pending_call pc = {0};
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, NULL, call_done, &pc, NULL),
                     MCP_OK);
    char *l = scripted_next_line(&s, "tools/call");
    assert_null(strstr(l, "io.modelcontextprotocol/tasks"));
    answer_line(&s, id_of(l), "{\"resultType\":\"complete\",\"content\":[]}");
    free(l);
    run_until_done(&s, &pc);
    assert_int_equal(pc.outcome, MCP_OK);
    mcp_client_call_options o = {.size = sizeof o, .task = MCP_CALL_TASK_ALWAYS};
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, &o, call_done, &pc, NULL),
                     MCP_ERR_STATE);
    scripted_close(&s);
    /* A server that declares it: declared by ALWAYS; AUTO and NEVER do
     * not (client.c as_task: a plain call stays one). */
    scripted_open_caps(&s, "2026-07-28", WITH_TASKS, options(), &hello);
    free(hello);
    memset(&pc, 0, sizeof pc);
    o.task = MCP_CALL_TASK_AUTO;
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, &o, call_done, &pc, NULL),
                     MCP_OK);
    l = scripted_next_line(&s, "tools/call");
    assert_null(strstr(l, "io.modelcontextprotocol/tasks"));
    answer_line(&s, id_of(l), "{\"resultType\":\"complete\",\"content\":[]}");
    free(l);
    run_until_done(&s, &pc);
    memset(&pc, 0, sizeof pc);
    o.task = MCP_CALL_TASK_ALWAYS;
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, &o, call_done, &pc, NULL),
                     MCP_OK);
    long long call = next_declaring(&s, "tools/call");
    /* The server decides: a plain result ends the call as usual. */
    answer_line(&s, call, "{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\","
                          "\"text\":\"at once\"}]}");
    run_until_done(&s, &pc);
    assert_int_equal(pc.outcome, MCP_OK);
    assert_string_equal(pc.text, "at once");
    scripted_close(&s);
}

static void the_tasks_questions_go_to_the_handlers_once_each(void **state)
{
    memset(&h, 0, sizeof h);
    scripted s;
    char *hello;
    scripted_open_caps(&s, "2026-07-28", WITH_TASKS, options(), &hello);
    free(hello);
    pending_call pc = {0};
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, &always, call_done, &pc,
                                                NULL),
                     MCP_OK);
    answer_line(&s, next_declaring(&s, "tools/call"), CREATED);
    answer_line(&s, next_declaring(&s, "tasks/get"),
                TASK("input_required", ",\"inputRequests\":{" ELICIT("a") "}"));
    char *l = scripted_next_line(&s, "tasks/update");
    says(l, "\"taskId\":\"t1\",\"inputResponses\":{\"a\":{\"action\":\"accept\"");
    says(l, DECLARED);
    answer_line(&s, id_of(l), "{\"resultType\":\"complete\"}");
    free(l);
    /* a is listed still (not taken yet), b is new: only b is asked. */
    answer_line(&s, next_declaring(&s, "tasks/get"),
                TASK("input_required", ",\"inputRequests\":{" ELICIT("a") "," ELICIT("b") "}"));
    l = scripted_next_line(&s, "tasks/update");
    says(l, "\"inputResponses\":{\"b\":{\"action\":\"accept\"");
    assert_null(strstr(l, "\"a\":{"));
    answer_line(&s, id_of(l), "{\"resultType\":\"complete\"}");
    free(l);
    answer_line(&s, next_declaring(&s, "tasks/get"),
                TASK("completed", ",\"result\":{\"resultType\":\"complete\",\"content\":"
                                  "[{\"type\":\"text\",\"text\":\"done\"}]}"));
    run_until_done(&s, &pc);
    assert_int_equal(pc.outcome, MCP_OK);
    assert_string_equal(pc.text, "done");
    assert_int_equal(h.asked, 2);
    assert_string_equal(h.messages, "a?b?");
    scripted_close(&s);
}

static void a_failed_task_is_the_calls_error_and_a_cancel_is_tasks_cancel(void **state)
{
    scripted s;
    char *hello;
    scripted_open_caps(&s, "2026-07-28", WITH_TASKS, options(), &hello);
    free(hello);
    pending_call pc = {0};
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, &always, call_done, &pc,
                                                NULL),
                     MCP_OK);
    answer_line(&s, next_declaring(&s, "tools/call"), CREATED);
    answer_line(&s, next_declaring(&s, "tasks/get"),
                TASK("failed", ",\"error\":{\"code\":-32050,\"message\":\"it broke\"}"));
    run_until_done(&s, &pc);
    assert_int_equal(pc.outcome, MCP_ERR_REMOTE);
    assert_int_equal(pc.error_code, -32050);
    assert_string_equal(pc.text, "it broke");
    /* A cancel once the task is known: tasks/cancel, never
     * notifications/cancelled. */
    memset(&pc, 0, sizeof pc);
    mcp_handle hd;
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, &always, call_done, &pc, &hd),
                     MCP_OK);
    answer_line(&s, next_declaring(&s, "tools/call"), CREATED);
    next_declaring(&s, "tasks/get"); /* the task is known now */
    assert_int_equal(mcp_client_cancel(s.client, hd, "stop"), MCP_OK);
    run_until_done(&s, &pc);
    assert_int_equal(pc.outcome, MCP_ERR_ABORTED);
    char *l = scripted_next_line(&s, "tasks/cancel");
    says(l, "\"taskId\":\"t1\"");
    free(l);
    scripted_no_line(&s, "notifications/cancelled", 50);
    scripted_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_extension_is_declared_when_asked_where_the_server_has_it),
        cmocka_unit_test(the_tasks_questions_go_to_the_handlers_once_each),
        cmocka_unit_test(a_failed_task_is_the_calls_error_and_a_cancel_is_tasks_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
