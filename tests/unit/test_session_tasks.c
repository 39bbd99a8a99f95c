/* SPDX-License-Identifier: MIT */
/*
 * Session engine: a tools/call run as a task (2025-11-25,
 * basic/utilities/tasks.mdx), the requestor's side (src/session/task_call.c),
 * under the fake clock:
 * - params.task sent; CreateTaskResult, then tasks/get at the server's
 *   pollInterval (sooner on a status notification), then tasks/result,
 *   whose answer is the call's, once, on the call's handle; progress keeps
 *   the first request's token;
 * - every cancel is tasks/cancel, never notifications/cancelled: the
 *   caller's, the idle timeout, the total limit, and one that comes before
 *   the task's id is known (the caller told at once, tasks/cancel sent when
 *   CreateTaskResult brings the id);
 * - a server that made no task, errors at each step, malformed answers;
 * - the option refused where there are no tasks; nothing leaked.
 * Built again as a torture test (each send failing in turn).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "peer.h"
#include "torture.h"

static const mcp_session_options client_options = {
    .size = sizeof(mcp_session_options), .timeout_ms = 1000, .max_time_ms = 60000};

static void client(peer *p)
{
    peer_init(p, MCP_ROLE_CLIENT, &client_options);
    peer_client_ready(p);
}

static void answer(peer *p, int64_t id, const char *result)
{
    char line[700];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}", (long long)id,
             result);
    peer_feed(p, line);
}

static void answer_error(peer *p, int64_t id, int code, const char *message)
{
    char line[300];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":%d,\"message\":\"%s\"}}",
             (long long)id, code, message);
    peer_feed(p, line);
}

#define CREATED(status, poll)                                                                  \
    "{\"task\":{\"taskId\":\"t1\",\"status\":\"" status "\",\"createdAt\":"                   \
    "\"2026-11-27T00:00:00Z\",\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\",\"ttl\":5000,"        \
    "\"pollInterval\":" #poll "}}"
#define TASK(status, poll)                                                                     \
    "{\"taskId\":\"t1\",\"status\":\"" status "\",\"createdAt\":\"2026-11-27T00:00:00Z\","    \
    "\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\",\"ttl\":5000,\"pollInterval\":" #poll "}"

static const mcp_request_options task_opts = {.size = sizeof(mcp_request_options),
                                              .task = true,
                                              .task_ttl_ms = 5000};

/* Start a task call of tool "t": its handle, and the tools/call sent. */
static mcp_handle start(peer *p, const mcp_request_options *o)
{
    mcp_handle h = 0;
    PEER_EXPECT(peer_request(p, "tools/call", "{\"name\":\"t\",\"arguments\":{}}", o, &h) ==
                MCP_OK);
    const mcp_message *m = peer_next(p);
    PEER_EXPECT(msg_is_method(m, "tools/call"));
    return h;
}

/* The next message sent: method with params.taskId "t1"; its id. */
static int64_t expect_step(peer *p, const char *method)
{
    const mcp_message *m = peer_next(p);
    PEER_EXPECT(msg_is_method(m, method));
    PEER_EXPECT(m && m->params &&
                !strcmp(mcp_json_string(mcp_json_object_get(m->params, "taskId"), NULL) ?: "",
                        "t1"));
    return m ? m->id.num : 0;
}

/* Whether the session ever sent notifications/cancelled. */
static bool sent_cancelled_notification(const peer *p)
{
    for (int i = 0; i < p->nsent; i++)
        if (msg_is_method(peer_sent(p, i), "notifications/cancelled"))
            return true;
    return false;
}

static void a_task_call_polls_and_returns_the_tasks_result(void **state)
{
    peer p;
    client(&p);
    mcp_request_options o = task_opts;
    o.progress = MCP_PROGRESS_RESET_TIMEOUT;
    mcp_handle h = 0;
    PEER_EXPECT(peer_request(&p, "tools/call",
                             "{\"name\":\"t\",\"arguments\":{},\"task\":{\"ttl\":1}}", &o, &h) ==
                MCP_OK);
    const mcp_message *call = peer_next(&p);
    const mcp_json *task = mcp_json_object_get(call->params, "task");
    int64_t ttl = 0;
    mcp_json_get_int64(mcp_json_object_get(task, "ttl"), &ttl);
    PEER_EXPECT(ttl == 5000); /* ours, not the caller's own member */
    answer(&p, (int64_t)h, CREATED("working", 100));
    PEER_EXPECT(p.nresponses == 1 && peer_unread(&p) == 0); /* initialize's answer only */
    /* The loop sleeps until the poll, not until the idle timeout. */
    PEER_EXPECT(mcp_session_next_deadline(p.s) == p.now + 100);
    peer_advance(&p, 99);
    PEER_EXPECT(peer_unread(&p) == 0);
    peer_advance(&p, 1);
    int64_t get = expect_step(&p, "tasks/get");
    PEER_EXPECT(get != (int64_t)h);
    /* Progress keeps the call's token, whatever is on the wire. */
    char line[200];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
             "{\"progressToken\":%llu,\"progress\":1,\"total\":2}}",
             (unsigned long long)h);
    peer_feed(&p, line);
    PEER_EXPECT(p.nprogress == 1 && p.progress_handles[0] == h);
    answer(&p, get, TASK("working", 100));
    peer_advance(&p, 100);
    get = expect_step(&p, "tasks/get");
    answer(&p, get, TASK("completed", 100));
    int64_t result = expect_step(&p, "tasks/result");
    PEER_EXPECT(p.nresponses == 1);
    /* A late answer to the first tasks/get is nobody's. */
    answer(&p, get, TASK("working", 100));
    answer(&p, result, "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}],\"_meta\":"
                       "{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t1\"}}}");
    PEER_EXPECT(p.nresponses == 2 && p.responses[1] == h && p.outcomes[1] == MCP_OK);
    const mcp_message *r = peer_response_msg(&p, h);
    PEER_EXPECT(r && strstr(mcp_json_string(mcp_json_object_get(mcp_json_array_at(
                                               mcp_json_object_get(r->result, "content"), 0),
                                               "text"), NULL) ?: "", "done"));
    PEER_EXPECT(!sent_cancelled_notification(&p));
    peer_free(&p);
}

static void a_status_notification_saves_a_poll(void **state)
{
    peer p;
    client(&p);
    mcp_handle h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED("working", 30000));
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\"params\":"
                  TASK("input_required", 30000) "}");
    int64_t result = expect_step(&p, "tasks/result");
    answer_error(&p, result, -32000, "the tool failed");
    PEER_EXPECT(p.nresponses == 2 && p.outcomes[1] == MCP_ERR_REMOTE);
    /* Another task's status changes nothing; so does a late one. */
    PEER_EXPECT(p.notifications == 0);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\",\"params\":"
                  "{\"taskId\":\"other\",\"status\":\"completed\"}}");
    PEER_EXPECT(p.notifications == 1 && peer_unread(&p) == 0);
    peer_free(&p);
}

static void a_cancel_sends_tasks_cancel_not_notifications_cancelled(void **state)
{
    peer p;
    client(&p);
    mcp_handle h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED("working", 100));
    PEER_EXPECT(mcp_session_cancel(p.s, p.now, h, "user pressed stop") == MCP_OK);
    PEER_EXPECT(p.nresponses == 2 && p.outcomes[1] == MCP_ERR_ABORTED);
    int64_t cancel = expect_step(&p, "tasks/cancel");
    answer(&p, cancel, TASK("cancelled", 100));
    PEER_EXPECT(p.nresponses == 2);
    PEER_EXPECT(mcp_session_cancel(p.s, p.now, h, "again") == MCP_ERR_NOT_FOUND);
    peer_advance(&p, 1000);
    PEER_EXPECT(peer_unread(&p) == 0);
    PEER_EXPECT(!sent_cancelled_notification(&p));
    peer_free(&p);
}

/* The seeds' rule at its hardest: cancelled before CreateTaskResult. */
static void a_cancel_before_the_id_is_known_sends_tasks_cancel_when_it_comes(void **state)
{
    peer p;
    client(&p);
    mcp_handle h = start(&p, &task_opts);
    PEER_EXPECT(mcp_session_cancel(p.s, p.now, h, "user pressed stop") == MCP_OK);
    PEER_EXPECT(p.nresponses == 2 && p.outcomes[1] == MCP_ERR_ABORTED); /* told at once */
    PEER_EXPECT(peer_unread(&p) == 0); /* nothing to send yet */
    PEER_EXPECT(mcp_session_cancel(p.s, p.now, h, "again") == MCP_ERR_NOT_FOUND);
    answer(&p, (int64_t)h, CREATED("working", 100));
    expect_step(&p, "tasks/cancel");
    PEER_EXPECT(p.nresponses == 2);
    peer_advance(&p, 5000);
    PEER_EXPECT(peer_unread(&p) == 0);
    PEER_EXPECT(!sent_cancelled_notification(&p));

    /* The same for the idle timeout. */
    h = start(&p, &task_opts);
    peer_advance(&p, 1000);
    PEER_EXPECT(p.nresponses == 3 && p.outcomes[2] == MCP_ERR_TIMED_OUT);
    PEER_EXPECT(peer_unread(&p) == 0);
    answer(&p, (int64_t)h, CREATED("working", 100));
    expect_step(&p, "tasks/cancel");
    /* And a server that made no task of it: nothing to cancel then. */
    h = start(&p, &task_opts);
    mcp_session_cancel(p.s, p.now, h, NULL);
    answer(&p, (int64_t)h, "{\"content\":[]}");
    PEER_EXPECT(peer_unread(&p) == 0 && p.nresponses == 4);
    /* A ghost waits for its id a while, not forever: then it says so. */
    h = start(&p, &task_opts);
    mcp_session_cancel(p.s, p.now, h, NULL);
    int warnings = peer_count_logs(&p, MCP_LOG_EVENT_GENERAL);
    peer_advance(&p, 60000);
    PEER_EXPECT(peer_count_logs(&p, MCP_LOG_EVENT_GENERAL) == warnings + 1);
    answer(&p, (int64_t)h, CREATED("working", 100));
    PEER_EXPECT(peer_unread(&p) == 0);
    PEER_EXPECT(!sent_cancelled_notification(&p));
    peer_free(&p);
}

static void timeouts_cancel_the_task_and_answers_keep_it_alive(void **state)
{
    peer p;
    client(&p);
    mcp_request_options o = task_opts;
    o.max_time_ms = 2500;
    mcp_handle h = start(&p, &o);
    answer(&p, (int64_t)h, CREATED("working", 400));
    /* Each answer about the task resets the idle timeout (1000 ms). */
    for (int i = 0; i < 5; i++) {
        peer_advance(&p, 400);
        int64_t get = expect_step(&p, "tasks/get");
        answer(&p, get, TASK("working", 400));
    }
    PEER_EXPECT(p.nresponses == 1);
    peer_advance(&p, 500); /* 2,500 ms: the total limit */
    PEER_EXPECT(p.nresponses == 2 && p.outcomes[1] == MCP_ERR_MAX_TIME);
    expect_step(&p, "tasks/cancel");
    PEER_EXPECT(!sent_cancelled_notification(&p));
    PEER_EXPECT(p.nlogs > 0 && strstr(p.log_texts[p.nlogs - 1] ?: "", "tasks/cancel sent for task t1") != NULL);
    peer_free(&p);
}

static void what_the_server_answers_at_each_step_ends_the_call(void **state)
{
    peer p;
    client(&p);
    /* No task made: the plain result is the call's. */
    mcp_handle h = start(&p, &task_opts);
    answer(&p, (int64_t)h, "{\"content\":[{\"type\":\"text\",\"text\":\"at once\"}]}");
    PEER_EXPECT(p.nresponses == 2 && p.outcomes[1] == MCP_OK);
    /* An error instead of CreateTaskResult. */
    h = start(&p, &task_opts);
    answer_error(&p, (int64_t)h, -32601, "Method not found: tool t does not run as a task");
    PEER_EXPECT(p.nresponses == 3 && p.outcomes[2] == MCP_ERR_REMOTE);
    /* A task without an id: unusable. */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, "{\"task\":{\"status\":\"working\"}}");
    PEER_EXPECT(p.nresponses == 4 && p.outcomes[3] == MCP_ERR_PROTOCOL);
    /* tasks/get fails: so does the call, with that error. */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED("working", 10));
    peer_advance(&p, 10);
    answer_error(&p, expect_step(&p, "tasks/get"), -32602, "no task");
    PEER_EXPECT(p.nresponses == 5 && p.outcomes[4] == MCP_ERR_REMOTE);
    /* A result that is no object, without a task: unusable. */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, "5");
    PEER_EXPECT(p.nresponses == 6 && p.outcomes[5] == MCP_ERR_PROTOCOL);
    /* Created already ended: straight to tasks/result; a result that is
     * not an object is unusable. */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED("completed", 10));
    answer(&p, expect_step(&p, "tasks/result"), "[1]");
    PEER_EXPECT(p.nresponses == 7 && p.outcomes[6] == MCP_ERR_PROTOCOL);
    PEER_EXPECT(!sent_cancelled_notification(&p));
    peer_free(&p);
}

static void ignore(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)ud, (void)h, (void)outcome, (void)m;
}

static void the_option_is_refused_where_there_are_no_tasks(void **state)
{
    peer p;
    client(&p);
    mcp_handle h;
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse("{\"name\":\"x\"}", 12, NULL, NULL, &d, NULL), MCP_OK);
    PEER_EXPECT(mcp_session_request(p.s, p.now, "prompts/get", mcp_json_doc_root(d), &task_opts,
                                    ignore, NULL, NULL, &h) == MCP_ERR_INVALID_ARG);
    peer_free(&p);
    /* A 2025-06-18 server has no tasks. */
    peer_init(&p, MCP_ROLE_CLIENT, &client_options);
    PEER_EXPECT(mcp_session_initialize(p.s, p.now, 0, ignore, NULL) == MCP_OK);
    const mcp_message *init = peer_next(&p);
    char result[256];
    snprintf(result, sizeof result,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"protocolVersion\":\"2025-06-18\","
             "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}",
             init ? (long long)init->id.num : 0LL);
    peer_feed(&p, result);
    PEER_EXPECT(!strcmp(mcp_session_protocol_version(p.s) ?: "", "2025-06-18"));
    PEER_EXPECT(mcp_session_request(p.s, p.now, "tools/call", mcp_json_doc_root(d), &task_opts,
                                    ignore, NULL, NULL, &h) == MCP_ERR_STATE);
    mcp_json_doc_free(d);
    peer_free(&p);
}

/* A task call made while connecting and cancelled before the connect
 * ends was never sent: nothing goes out, then or later. */
static void a_queued_task_call_cancelled_never_goes_out(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, &client_options);
    mcp_connect_options co = {.size = sizeof co, .mode = MCP_CONNECT_LEGACY,
                              .version = "2025-11-25", .queue_requests = true};
    PEER_EXPECT(mcp_session_connect(p.s, p.now, &co, ignore, NULL) == MCP_OK);
    const mcp_message *init = peer_next(&p);
    mcp_handle h = 0;
    PEER_EXPECT(peer_request(&p, "tools/call", "{\"name\":\"t\"}", &task_opts, &h) == MCP_OK);
    PEER_EXPECT(peer_unread(&p) == 0); /* queued */
    PEER_EXPECT(mcp_session_cancel(p.s, p.now, h, "never mind") == MCP_OK);
    PEER_EXPECT(peer_response_index(&p, h) >= 0);
    char result[256];
    snprintf(result, sizeof result,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"protocolVersion\":\"2025-11-25\","
             "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}",
             init ? (long long)init->id.num : 0LL);
    peer_feed(&p, result);
    const mcp_message *m;
    while ((m = peer_next(&p)) != NULL && m->method)
        PEER_EXPECT(strcmp(m->method, "tools/call") != 0 && strcmp(m->method, "tasks/cancel") != 0);
    peer_free(&p);
}

/* The connection's end ends a task call like any other, and frees a ghost. */
static void the_connections_end_ends_task_calls(void **state)
{
    peer p;
    client(&p);
    mcp_handle h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED("working", 100));
    mcp_handle ghost = start(&p, &task_opts);
    mcp_session_cancel(p.s, p.now, ghost, NULL);
    PEER_EXPECT(peer_response_index(&p, ghost) >= 0 &&
                p.outcomes[peer_response_index(&p, ghost)] == MCP_ERR_ABORTED);
    mcp_session_close(p.s, p.now);
    PEER_EXPECT(peer_response_index(&p, h) >= 0 &&
                p.outcomes[peer_response_index(&p, h)] == MCP_ERR_CLOSED);
    peer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_task_call_polls_and_returns_the_tasks_result),
        cmocka_unit_test(a_status_notification_saves_a_poll),
        cmocka_unit_test(a_cancel_sends_tasks_cancel_not_notifications_cancelled),
        cmocka_unit_test(a_cancel_before_the_id_is_known_sends_tasks_cancel_when_it_comes),
        cmocka_unit_test(timeouts_cancel_the_task_and_answers_keep_it_alive),
        cmocka_unit_test(what_the_server_answers_at_each_step_ends_the_call),
        cmocka_unit_test(the_option_is_refused_where_there_are_no_tasks),
        cmocka_unit_test(a_queued_task_call_cancelled_never_goes_out),
        cmocka_unit_test(the_connections_end_ends_task_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
