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
 * - the option refused where there are no tasks; nothing leaked;
 * - 2026-07-28, the io.modelcontextprotocol/tasks extension: declared in
 *   the clientCapabilities of the task call's requests only (tools/call,
 *   tasks/get, tasks/update, tasks/cancel), never params.task; a "task"
 *   result refused where not declared; the end read from tasks/get
 *   (result, error, cancelled); the questions of inputRequests through the
 *   call's on_input_required, each key once, answered by tasks/update;
 *   cancels as tasks/cancel, and before the id, the tools/call cancelled
 *   as an ordinary request, the task once its id comes.
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

/* 2026-07-28: the tasks extension ------------------------------------------------------------ */

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)h, (void)m;
    *(int *)ud = outcome;
}

/* A client connected in 2026-07-28 to a server that declares the tasks
 * extension. */
static void modern_client(peer *p)
{
    peer_init(p, MCP_ROLE_CLIENT, &client_options);
    int outcome = 1;
    mcp_connect_options co = {.size = sizeof co, .mode = MCP_CONNECT_MODERN};
    PEER_EXPECT(mcp_session_connect(p->s, p->now, &co, connected, &outcome) == MCP_OK);
    const mcp_message *discover = peer_next(p);
    answer(p, discover ? discover->id.num : 0,
           "{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],"
           "\"capabilities\":{\"tools\":{},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}},"
           "\"ttlMs\":0,\"cacheScope\":\"public\"}");
    PEER_EXPECT(outcome == MCP_OK);
}

#define CREATED26(status, poll)                                                                \
    "{\"resultType\":\"task\",\"taskId\":\"t1\",\"status\":\"" status "\",\"createdAt\":"     \
    "\"2026-11-27T00:00:00Z\",\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\",\"ttlMs\":5000,"      \
    "\"pollIntervalMs\":" #poll "}"
/* A DetailedTask, as tasks/get answers: status, then its members. */
#define TASK26(status, more)                                                                   \
    "{\"resultType\":\"complete\",\"taskId\":\"t1\",\"status\":\"" status "\",\"createdAt\":" \
    "\"2026-11-27T00:00:00Z\",\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\",\"ttlMs\":5000,"      \
    "\"pollIntervalMs\":100" more "}"

static const mcp_json *params_of(const mcp_message *m)
{
    return m ? m->params : NULL;
}

/* Whether m's clientCapabilities declare the tasks extension. */
static bool declares_tasks(const mcp_message *m)
{
    const mcp_json *caps = mcp_json_object_get(
        mcp_json_object_get(params_of(m), "_meta"), "io.modelcontextprotocol/clientCapabilities");
    return mcp_json_typeof(mcp_json_object_get(mcp_json_object_get(caps, "extensions"),
                                               "io.modelcontextprotocol/tasks")) ==
           MCP_JSON_OBJECT;
}

/* The next message: method for task t1, declaring the extension; its id. */
static int64_t expect_step26(peer *p, const char *method)
{
    const mcp_message *m = peer_next(p);
    PEER_EXPECT(msg_is_method(m, method));
    PEER_EXPECT(!strcmp(mcp_json_string(mcp_json_object_get(params_of(m), "taskId"), NULL) ?: "",
                        "t1"));
    PEER_EXPECT(declares_tasks(m));
    return m ? m->id.num : 0;
}

static int count_sent(const peer *p, const char *method)
{
    int n = 0;
    for (int i = 0; i < p->nsent; i++)
        n += msg_is_method(peer_sent(p, i), method);
    return n;
}

static int outcome_of(const peer *p, mcp_handle h)
{
    int k = peer_response_index(p, h);
    return k < 0 ? 1 : p->outcomes[k];
}

static void a_2026_task_call_declares_the_extension_and_ends_with_the_inline_result(void **state)
{
    peer p;
    modern_client(&p);
    /* A plain call does not declare it (per request, ext-tasks). */
    mcp_handle plain = 0;
    PEER_EXPECT(peer_request(&p, "tools/call", "{\"name\":\"t\"}", NULL, &plain) == MCP_OK);
    const mcp_message *m = peer_next(&p);
    PEER_EXPECT(msg_is_method(m, "tools/call") && !declares_tasks(m));
    answer(&p, (int64_t)plain, "{\"resultType\":\"complete\",\"content\":[]}");
    PEER_EXPECT(outcome_of(&p, plain) == MCP_OK);
    /* The task call does, and asks for no task itself (the server
     * decides: no params.task, the caller's own dropped). */
    mcp_handle h = 0;
    PEER_EXPECT(peer_request(&p, "tools/call", "{\"name\":\"t\",\"task\":{\"ttl\":1}}",
                             &task_opts, &h) == MCP_OK);
    m = peer_next(&p);
    PEER_EXPECT(msg_is_method(m, "tools/call") && declares_tasks(m));
    PEER_EXPECT(mcp_json_object_get(params_of(m), "task") == NULL);
    answer(&p, (int64_t)h, CREATED26("working", 100));
    PEER_EXPECT(peer_unread(&p) == 0 && outcome_of(&p, h) == 1);
    /* Polled at pollIntervalMs. */
    PEER_EXPECT(mcp_session_next_deadline(p.s) == p.now + 100);
    peer_advance(&p, 100);
    int64_t get = expect_step26(&p, "tasks/get");
    answer(&p, get, TASK26("working", ""));
    peer_advance(&p, 100);
    get = expect_step26(&p, "tasks/get");
    /* isError is still completed (ext-tasks): the tool's result, as a
     * plain call's, under the call's handle. */
    answer(&p, get, TASK26("completed", ",\"result\":{\"resultType\":\"complete\",\"content\":"
                                        "[{\"type\":\"text\",\"text\":\"done\"}],\"isError\":true}"));
    PEER_EXPECT(outcome_of(&p, h) == MCP_OK);
    const mcp_message *r = peer_response_msg(&p, h);
    PEER_EXPECT(r && r->id.num == (int64_t)h);
    PEER_EXPECT(!strcmp(mcp_json_string(mcp_json_object_get(
                            mcp_json_array_at(mcp_json_object_get(r ? r->result : NULL,
                                                                  "content"), 0),
                            "text"), NULL) ?: "",
                        "done"));
    bool is_error = false;
    PEER_EXPECT(mcp_json_get_bool(mcp_json_object_get(r ? r->result : NULL, "isError"),
                                  &is_error) == MCP_OK && is_error);
    /* 2026 has no tasks/result, and a task is never cancelled the core way. */
    PEER_EXPECT(count_sent(&p, "tasks/result") == 0 && !sent_cancelled_notification(&p));
    peer_advance(&p, 1000);
    PEER_EXPECT(peer_unread(&p) == 0);
    peer_free(&p);
}

static void a_2026_task_ends_as_tasks_get_says(void **state)
{
    peer p;
    modern_client(&p);
    /* failed: the JSON-RPC error it carries is the call's. */
    mcp_handle h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED26("working", 10));
    peer_advance(&p, 10);
    answer(&p, expect_step26(&p, "tasks/get"),
           TASK26("failed", ",\"statusMessage\":\"x\",\"error\":{\"code\":-32000,\"message\":"
                            "\"the tool broke\"}"));
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_REMOTE);
    const mcp_message *r = peer_response_msg(&p, h);
    PEER_EXPECT(r && r->error_code == -32000 && r->error_message &&
                !strcmp(r->error_message, "the tool broke"));
    /* cancelled (by someone else): the peer cancelled it. */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED26("working", 10));
    peer_advance(&p, 10);
    answer(&p, expect_step26(&p, "tasks/get"), TASK26("cancelled", ""));
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_CANCELLED);
    /* Created already ended: tasks/get at once, not after the interval. */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED26("completed", 30000));
    /* completed without its result, failed without an error object:
     * unusable. */
    answer(&p, expect_step26(&p, "tasks/get"), TASK26("completed", ""));
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_PROTOCOL);
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED26("failed", 10));
    answer(&p, expect_step26(&p, "tasks/get"), TASK26("failed", ",\"error\":{\"message\":\"m\"}"));
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_PROTOCOL);
    /* tasks/get answered as no 2026 tasks/get may be (resultType task). */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED26("working", 10));
    peer_advance(&p, 10);
    answer(&p, expect_step26(&p, "tasks/get"), CREATED26("working", 10));
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_PROTOCOL);
    /* No task made: the plain result is the call's (resultType checked). */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, "{\"resultType\":\"complete\",\"content\":[]}");
    PEER_EXPECT(outcome_of(&p, h) == MCP_OK);
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, "{\"resultType\":\"later\",\"content\":[]}");
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_PROTOCOL);
    PEER_EXPECT(!sent_cancelled_notification(&p));
    peer_free(&p);
}

/* ext-tasks: a CreateTaskResult to a request that did not declare the
 * extension, or to another method, is an invalid response. */
static void a_task_result_where_none_was_declared_is_invalid(void **state)
{
    peer p;
    modern_client(&p);
    mcp_handle h = 0;
    PEER_EXPECT(peer_request(&p, "tools/call", "{\"name\":\"t\"}", NULL, &h) == MCP_OK);
    peer_next(&p);
    answer(&p, (int64_t)h, CREATED26("working", 10));
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_PROTOCOL);
    const mcp_log_record *warning = peer_last_log(&p, MCP_LOG_EVENT_BAD_INPUT);
    PEER_EXPECT(warning && warning->message && strstr(warning->message, "resultType task"));
    PEER_EXPECT(peer_request(&p, "resources/read", "{\"uri\":\"a:b\"}", NULL, &h) == MCP_OK);
    peer_next(&p);
    answer(&p, (int64_t)h, CREATED26("working", 10));
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_PROTOCOL);
    /* Nothing polled, nothing cancelled: there is no task of ours. */
    peer_advance(&p, 100);
    PEER_EXPECT(peer_unread(&p) == 0);
    /* The extension's methods declare it whoever sends them. */
    PEER_EXPECT(peer_request(&p, "tasks/get", "{\"taskId\":\"t1\"}", NULL, &h) == MCP_OK);
    PEER_EXPECT(declares_tasks(peer_next(&p)));
    peer_free(&p);
}

static void cancelling_a_2026_task_sends_tasks_cancel(void **state)
{
    peer p;
    modern_client(&p);
    mcp_handle h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED26("working", 100));
    PEER_EXPECT(mcp_session_cancel(p.s, p.now, h, "user pressed stop") == MCP_OK);
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_ABORTED);
    answer(&p, expect_step26(&p, "tasks/cancel"), "{\"resultType\":\"complete\"}");
    peer_advance(&p, 1000);
    PEER_EXPECT(peer_unread(&p) == 0);
    /* The idle timeout, while tasks/get is on the wire: the same. */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED26("working", 100));
    peer_advance(&p, 100);
    expect_step26(&p, "tasks/get");
    peer_advance(&p, 1000);
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_TIMED_OUT);
    expect_step26(&p, "tasks/cancel");
    PEER_EXPECT(!sent_cancelled_notification(&p));
    peer_free(&p);
}

/* Before CreateTaskResult the tools/call is an ordinary request (the
 * server may not make a task of it): cancelled the core way
 * (notifications/cancelled on stdio), and a task that comes of it anyway
 * gets tasks/cancel. */
static void a_2026_cancel_before_the_id_cancels_the_request_then_the_task(void **state)
{
    peer p;
    modern_client(&p);
    mcp_handle h = start(&p, &task_opts);
    PEER_EXPECT(mcp_session_cancel(p.s, p.now, h, "user pressed stop") == MCP_OK);
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_ABORTED); /* told at once */
    const mcp_message *n = peer_next(&p);
    PEER_EXPECT(msg_is_method(n, "notifications/cancelled"));
    int64_t named = 0;
    mcp_json_get_int64(mcp_json_object_get(params_of(n), "requestId"), &named);
    PEER_EXPECT(named == (int64_t)h);
    answer(&p, (int64_t)h, CREATED26("working", 100));
    expect_step26(&p, "tasks/cancel");
    PEER_EXPECT(count_sent(&p, "notifications/cancelled") == 1);
    peer_advance(&p, 5000);
    PEER_EXPECT(peer_unread(&p) == 0);
    peer_free(&p);
}

/* What the hook was given and answers. */
static struct {
    int calls;
    char keys[8][16]; /* every key handed out, in order */
    int nkeys;
    bool answer;      /* answers each at once */
} asked;

static int on_questions(void *ud, mcp_handle h, const mcp_message *m)
{
    peer *p = ((peer_req *)ud)->p;
    asked.calls++;
    const mcp_json *reqs = mcp_json_object_get(m->result, "inputRequests");
    mcp_json_doc *d = NULL;
    static const char accept[] = "{\"action\":\"accept\",\"content\":{}}";
    assert_int_equal(mcp_json_parse(accept, strlen(accept), NULL, NULL, &d, NULL), MCP_OK);
    for (size_t i = 0; i < mcp_json_object_size(reqs); i++) {
        const char *k;
        size_t kn;
        mcp_json_object_at(reqs, i, &k, &kn);
        if (asked.nkeys < 8)
            snprintf(asked.keys[asked.nkeys++], sizeof asked.keys[0], "%.*s", (int)kn, k);
        if (asked.answer)
            mcp_session_input_response(p->s, p->now, h, k, kn, mcp_json_doc_root(d));
    }
    mcp_json_doc_free(d);
    return MCP_OK;
}

#define QUESTION(key) "\"" key "\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"?\"}}"

/* The inputResponses keys of tasks/update m, "a,b," style. */
static void response_keys(const mcp_message *m, char *out, size_t n)
{
    const mcp_json *ir = mcp_json_object_get(params_of(m), "inputResponses");
    out[0] = '\0';
    for (size_t i = 0; i < mcp_json_object_size(ir); i++) {
        const char *k;
        size_t kn;
        mcp_json_object_at(ir, i, &k, &kn);
        snprintf(out + strlen(out), n - strlen(out), "%.*s,", (int)kn, k);
    }
}

static void a_2026_tasks_questions_are_answered_once_per_key_by_tasks_update(void **state)
{
    memset(&asked, 0, sizeof asked);
    asked.answer = true;
    peer p;
    modern_client(&p);
    mcp_request_options o = task_opts;
    o.on_input_required = on_questions;
    mcp_handle h = start(&p, &o);
    /* An MRTR round of the tools/call first (mrtr.mdx: before any task):
     * sent again, declaring the extension still. */
    answer(&p, (int64_t)h, "{\"resultType\":\"input_required\",\"inputRequests\":{" QUESTION("r")
                           "}}");
    const mcp_message *again = peer_next(&p);
    PEER_EXPECT(msg_is_method(again, "tools/call") && declares_tasks(again));
    answer(&p, again ? again->id.num : 0, CREATED26("working", 100));
    peer_advance(&p, 100);
    answer(&p, expect_step26(&p, "tasks/get"),
           TASK26("input_required", ",\"inputRequests\":{" QUESTION("a") "}"));
    const mcp_message *update = peer_next(&p);
    PEER_EXPECT(msg_is_method(update, "tasks/update") && declares_tasks(update));
    PEER_EXPECT(!strcmp(mcp_json_string(mcp_json_object_get(params_of(update), "taskId"), NULL)
                            ?: "", "t1"));
    char keys[64];
    response_keys(update, keys, sizeof keys);
    PEER_EXPECT(!strcmp(keys, "a,"));
    PEER_EXPECT(!strcmp(mcp_json_string(mcp_json_object_get(mcp_json_object_get(
                            mcp_json_object_get(params_of(update), "inputResponses"), "a"),
                            "action"), NULL) ?: "", "accept"));
    /* Acknowledged: the next poll; a, not taken yet, is listed again
     * beside a new b: only b is asked and sent. */
    answer(&p, update ? update->id.num : 0, "{\"resultType\":\"complete\"}");
    PEER_EXPECT(peer_unread(&p) == 0);
    peer_advance(&p, 100);
    answer(&p, expect_step26(&p, "tasks/get"),
           TASK26("input_required", ",\"inputRequests\":{" QUESTION("a") "," QUESTION("b") "}"));
    update = peer_next(&p);
    PEER_EXPECT(msg_is_method(update, "tasks/update"));
    response_keys(update, keys, sizeof keys);
    PEER_EXPECT(!strcmp(keys, "b,"));
    answer(&p, update ? update->id.num : 0, "{\"resultType\":\"complete\"}");
    /* Nothing new: no question, no update, the next poll. */
    peer_advance(&p, 100);
    answer(&p, expect_step26(&p, "tasks/get"),
           TASK26("input_required", ",\"inputRequests\":{" QUESTION("b") "}"));
    PEER_EXPECT(peer_unread(&p) == 0);
    peer_advance(&p, 100);
    answer(&p, expect_step26(&p, "tasks/get"),
           TASK26("completed", ",\"result\":{\"content\":[]}"));
    PEER_EXPECT(outcome_of(&p, h) == MCP_OK);
    PEER_EXPECT(asked.calls == 3 && asked.nkeys == 3 && !strcmp(asked.keys[0], "r") &&
                !strcmp(asked.keys[1], "a") && !strcmp(asked.keys[2], "b"));
    PEER_EXPECT(count_sent(&p, "tasks/update") == 2);
    peer_free(&p);
}

static void a_2026_tasks_questions_left_open_or_refused_end_the_call(void **state)
{
    memset(&asked, 0, sizeof asked);
    peer p;
    modern_client(&p);
    mcp_request_options o = task_opts;
    o.on_input_required = on_questions;
    /* A cancel while the caller answers: tasks/cancel, nothing else. */
    mcp_handle h = start(&p, &o);
    answer(&p, (int64_t)h, CREATED26("input_required", 100));
    answer(&p, expect_step26(&p, "tasks/get"),
           TASK26("input_required", ",\"inputRequests\":{" QUESTION("a") "}"));
    PEER_EXPECT(asked.calls == 1 && peer_unread(&p) == 0);
    PEER_EXPECT(mcp_session_cancel(p.s, p.now, h, NULL) == MCP_OK);
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_ABORTED);
    expect_step26(&p, "tasks/cancel");
    /* tasks/update refused: the call ends with that error, and the task,
     * which would wait for the answers forever, is cancelled. */
    asked.answer = true;
    h = start(&p, &o);
    answer(&p, (int64_t)h, CREATED26("input_required", 100));
    answer(&p, expect_step26(&p, "tasks/get"),
           TASK26("input_required", ",\"inputRequests\":{" QUESTION("a") "}"));
    answer_error(&p, expect_step26(&p, "tasks/update"), -32602, "no such task");
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_REMOTE);
    expect_step26(&p, "tasks/cancel");
    /* A call without the hook cannot answer: the task is cancelled. */
    h = start(&p, &task_opts);
    answer(&p, (int64_t)h, CREATED26("input_required", 100));
    answer(&p, expect_step26(&p, "tasks/get"),
           TASK26("input_required", ",\"inputRequests\":{" QUESTION("a") "}"));
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_INPUT_REQUIRED);
    expect_step26(&p, "tasks/cancel");
    PEER_EXPECT(!sent_cancelled_notification(&p));
    peer_free(&p);
}

/* task_start_only: the call ends with CreateTaskResult itself. */
/* -32021 naming the tasks extension, for request id. */
static void refuse_for_tasks(peer *p, int64_t id, const char *extension)
{
    char line[400];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32021,\"message\":"
             "\"Missing required client capability\",\"data\":{\"requiredCapabilities\":"
             "{\"extensions\":{\"%s\":{}}}}}}",
             (long long)id, extension);
    peer_feed(p, line);
}

/* task_if_required: a call the server runs only as a task is sent again,
 * once, as a task call, under the same handle; another capability, a
 * second refusal, or the option off: the refusal is the answer. */
static void a_call_refused_for_want_of_the_extension_is_sent_again_as_a_task(void **state)
{
    peer p;
    modern_client(&p);
    mcp_request_options o = {.size = sizeof o,
                             .task_if_required = true,
                             .on_input_required = on_questions};
    mcp_handle h = 0;
    PEER_EXPECT(peer_request(&p, "tools/call", "{\"name\":\"t\",\"arguments\":{\"a\":1}}", &o,
                             &h) == MCP_OK);
    const mcp_message *first = peer_next(&p);
    PEER_EXPECT(msg_is_method(first, "tools/call") && !declares_tasks(first));
    refuse_for_tasks(&p, (int64_t)h, "io.modelcontextprotocol/tasks");
    const mcp_message *again = peer_next(&p);
    PEER_EXPECT(msg_is_method(again, "tools/call") && declares_tasks(again));
    PEER_EXPECT(again && again->id.num != (int64_t)h);
    PEER_EXPECT(mcp_json_object_get(mcp_json_object_get(params_of(again), "arguments"), "a"));
    PEER_EXPECT(outcome_of(&p, h) == 1); /* still going */
    answer(&p, again ? again->id.num : 0, CREATED26("working", 10));
    peer_advance(&p, 10);
    int64_t get = expect_step26(&p, "tasks/get");
    answer(&p, get,
           TASK26("completed", ",\"result\":{\"resultType\":\"complete\",\"content\":[]}"));
    PEER_EXPECT(outcome_of(&p, h) == MCP_OK);
    /* A second refusal is the answer. */
    PEER_EXPECT(peer_request(&p, "tools/call", "{\"name\":\"t\"}", &o, &h) == MCP_OK);
    peer_next(&p);
    refuse_for_tasks(&p, (int64_t)h, "io.modelcontextprotocol/tasks");
    again = peer_next(&p);
    refuse_for_tasks(&p, again ? again->id.num : 0, "io.modelcontextprotocol/tasks");
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_REMOTE && peer_unread(&p) == 0);
    /* Another extension, or the option off: no second try. */
    PEER_EXPECT(peer_request(&p, "tools/call", "{\"name\":\"t\"}", &o, &h) == MCP_OK);
    peer_next(&p);
    refuse_for_tasks(&p, (int64_t)h, "example.com/other");
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_REMOTE && peer_unread(&p) == 0);
    o.task_if_required = false;
    PEER_EXPECT(peer_request(&p, "tools/call", "{\"name\":\"t\"}", &o, &h) == MCP_OK);
    peer_next(&p);
    refuse_for_tasks(&p, (int64_t)h, "io.modelcontextprotocol/tasks");
    PEER_EXPECT(outcome_of(&p, h) == MCP_ERR_REMOTE && peer_unread(&p) == 0);
    peer_free(&p);
}

static void a_2026_task_start_ends_with_the_create_task_result(void **state)
{
    peer p;
    modern_client(&p);
    mcp_request_options o = task_opts;
    o.task_start_only = true;
    mcp_handle h = start(&p, &o);
    answer(&p, (int64_t)h, CREATED26("working", 100));
    PEER_EXPECT(outcome_of(&p, h) == MCP_OK);
    const mcp_message *r = peer_response_msg(&p, h);
    PEER_EXPECT(!strcmp(mcp_json_string(mcp_json_object_get(r ? r->result : NULL, "taskId"), NULL)
                            ?: "", "t1"));
    peer_advance(&p, 1000);
    PEER_EXPECT(peer_unread(&p) == 0);
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
        cmocka_unit_test(a_2026_task_call_declares_the_extension_and_ends_with_the_inline_result),
        cmocka_unit_test(a_2026_task_ends_as_tasks_get_says),
        cmocka_unit_test(a_task_result_where_none_was_declared_is_invalid),
        cmocka_unit_test(cancelling_a_2026_task_sends_tasks_cancel),
        cmocka_unit_test(a_2026_cancel_before_the_id_cancels_the_request_then_the_task),
        cmocka_unit_test(a_2026_tasks_questions_are_answered_once_per_key_by_tasks_update),
        cmocka_unit_test(a_2026_tasks_questions_left_open_or_refused_end_the_call),
        cmocka_unit_test(a_2026_task_start_ends_with_the_create_task_result),
        cmocka_unit_test(a_call_refused_for_want_of_the_extension_is_sent_again_as_a_task),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
