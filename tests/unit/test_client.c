/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/client: the client against real server processes: the
 * demo server (`mcp serve`) and a scripted misbehaving one (fake_server).
 * MCP_BINARY and FAKE_SERVER are the paths of both, set by the build.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "stderr_wait.h"

static const char *const serve_argv[] = {MCP_BINARY, "serve", NULL};

/* Count log events of one kind through the client's log hook. */
typedef struct log_counts {
    int dropped, cancel_sent;
    char last_reason[128];
} log_counts;

static void count_logs(void *ud, const mcp_log_record *r)
{
    log_counts *lc = ud;
    if (r->event == MCP_LOG_EVENT_DROPPED)
        lc->dropped++;
    if (r->event == MCP_LOG_EVENT_CANCEL_SENT) {
        lc->cancel_sent++;
        snprintf(lc->last_reason, sizeof lc->last_reason, "%s", r->reason ? r->reason : "");
    }
}

static mcp_client *connect_to(const char *const *argv, log_counts *lc, bool capture)
{
    mcp_client_options o = {.size = sizeof o, .capture_stderr = capture, .close_grace_ms = 300};
    if (lc) {
        memset(lc, 0, sizeof *lc);
        o.log = count_logs;
        o.log_user_data = lc;
        o.log_level = MCP_LOG_DEBUG;
    }
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    int rc = mcp_client_connect_stdio(c, argv);
    if (rc != MCP_OK)
        fail_msg("connect failed: %s", mcp_client_error(c));
    return c;
}

static mcp_json_doc *args(const char *json)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(json, strlen(json), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static int call(mcp_client *c, const char *tool, const char *json, const mcp_client_call_options *o,
                mcp_client_call_result *r)
{
    mcp_json_doc *a = args(json);
    int rc = mcp_client_call_tool(c, tool, mcp_json_doc_root(a), o, r);
    mcp_json_doc_free(a);
    return rc;
}


static const char *first_text(const mcp_client_call_result *r)
{
    return mcp_json_string(mcp_json_object_get(mcp_json_array_at(
                               mcp_json_object_get(r->result, "content"), 0), "text"), NULL);
}

/* Against mcp serve -------------------------------------------------------------- */

static void connect_negotiates_and_lists_tools(void **state)
{
    mcp_client *c = connect_to(serve_argv, NULL, false);
    assert_string_equal(mcp_client_protocol_version(c), MCP_PROTOCOL_LATEST);
    const mcp_json *info = mcp_client_server_implementation(c);
    assert_string_equal(mcp_json_string(mcp_json_object_get(info, "name"), NULL), "mcp serve");
    mcp_json_doc *tools;
    mcp_cache_hint hint = {.size = sizeof hint};
    assert_int_equal(mcp_client_list_tools(c, NULL, &tools, &hint), MCP_OK);
    assert_int_equal(mcp_json_array_size(mcp_json_doc_root(tools)), 10); /* the demo tools, job included */
    assert_true(hint.present); /* 2026-07-28 lists carry caching hints */
    mcp_json_doc_free(tools);
    mcp_client_free(c);
}

static void a_call_returns_the_result(void **state)
{
    mcp_client *c = connect_to(serve_argv, NULL, false);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "echo", "{\"text\":\"héllo\"}", NULL, &r), MCP_OK);
    assert_false(r.is_error);
    assert_string_equal(first_text(&r), "héllo");
    mcp_client_call_result_release(&r);
    assert_int_equal(call(c, "fail", "{\"message\":\"nope\"}", NULL, &r), MCP_OK);
    assert_true(r.is_error);
    assert_string_equal(first_text(&r), "nope");
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

static void an_unknown_tool_is_a_remote_error(void **state)
{
    mcp_client *c = connect_to(serve_argv, NULL, false);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "nope", "{}", NULL, &r), MCP_ERR_REMOTE);
    assert_int_equal(r.error_code, MCP_WIRE_INVALID_PARAMS);
    assert_non_null(strstr(r.error_message, "Unknown tool"));
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

static void a_timeout_cancels_on_the_wire_and_the_handler_sees_it(void **state)
{
    log_counts lc;
    mcp_client *c = connect_to(serve_argv, &lc, true);
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 300};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "sleep", "{\"seconds\":30}", &o, &r), MCP_ERR_TIMED_OUT);
    assert_null(r.response);
    assert_int_equal(lc.cancel_sent, 1);
    assert_string_equal(lc.last_reason, "timed out after 300 ms");
    assert_true(server_stderr_says(c, "reason=\"timed out after 300 ms\"", 2000));
    assert_true(server_stderr_says(c, "sleep: cancelled after", 2000));
    mcp_client_free(c);
}

static void the_maximum_time_ends_a_call_that_keeps_progressing(void **state)
{
    log_counts lc;
    mcp_client *c = connect_to(serve_argv, &lc, true);
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 1000, .max_time_ms = 400};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "count", "{\"n\":100,\"delay_ms\":50}", &o, &r), MCP_ERR_MAX_TIME);
    assert_string_equal(lc.last_reason, "maximum total time 400 ms exceeded");
    assert_true(server_stderr_says(c, "count: cancelled at step", 2000));
    mcp_client_free(c);
}

static int progress_seen;
static void on_progress(void *ud, mcp_handle h, double p, double total, const char *m)
{
    progress_seen++;
}

static void progress_keeps_a_long_call_alive(void **state)
{
    mcp_client *c = connect_to(serve_argv, NULL, false);
    progress_seen = 0;
    /* 10 steps of 100 ms: 1 s in all, 3 times the idle timeout. */
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 300, .on_progress = on_progress};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "count", "{\"n\":10,\"delay_ms\":100}", &o, &r), MCP_OK);
    assert_string_equal(first_text(&r), "counted to 10");
    assert_int_equal(progress_seen, 10);
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

typedef struct canceller {
    mcp_client *client;
    mcp_handle handle;
} canceller;

static void *cancel_from_thread(void *arg)
{
    canceller *k = arg;
    usleep(200 * 1000);
    /* A reason that cannot be sent is refused here, not lost on the way. */
    assert_int_equal(mcp_client_cancel(k->client, k->handle, "bad \xff"), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_client_cancel(k->client, k->handle, "stop from a thread"), MCP_OK);
    return NULL;
}

static int async_outcome;
static void async_done(void *ud, const mcp_client_call_result *r)
{
    async_outcome = r->outcome;
}

static void a_cancel_from_another_thread_aborts_the_call(void **state)
{
    mcp_client *c = connect_to(serve_argv, NULL, true);
    mcp_json_doc *a = args("{\"seconds\":30}");
    canceller k = {c, 0};
    async_outcome = 1;
    assert_int_equal(mcp_client_call_tool_async(c, "sleep", mcp_json_doc_root(a), NULL, async_done,
                                                NULL, &k.handle), MCP_OK);
    mcp_json_doc_free(a);
    assert_int_equal(mcp_client_pending(c), 1);
    pthread_t th;
    pthread_create(&th, NULL, cancel_from_thread, &k);
    assert_int_equal(mcp_client_run(c), MCP_OK);
    pthread_join(th, NULL);
    assert_int_equal(async_outcome, MCP_ERR_ABORTED);
    assert_true(server_stderr_says(c, "reason=\"stop from a thread\"", 2000));
    /* Cancelling it again, on the loop thread, finds nothing. */
    assert_int_equal(mcp_client_cancel(c, k.handle, NULL), MCP_ERR_NOT_FOUND);
    mcp_client_free(c);
}

/* Tasks, 2025-11-25 ------------------------------------------------------------- */

static mcp_client *connect_2025(bool capture)
{
    mcp_client_options o = {.size = sizeof o, .capture_stderr = capture, .close_grace_ms = 300,
                            .connect_mode = MCP_CONNECT_LEGACY,
                            .protocol_version = "2025-11-25"};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    if (mcp_client_connect_stdio(c, serve_argv) != MCP_OK)
        fail_msg("connect failed: %s", mcp_client_error(c));
    return c;
}

static int tasks_seen;
static void count_tasks(void *ud, mcp_handle h, const mcp_json *task)
{
    (void)ud, (void)h, (void)task;
    tasks_seen++;
}

/* A tool that must run as a task (mcp serve's job) is run as one, once the
 * listing said so, and returns as a call does, progress included. */
static void a_call_of_a_task_tool_runs_as_a_task_and_returns_as_a_call(void **state)
{
    mcp_client *c = connect_2025(false);
    mcp_client_call_result r = {.size = sizeof r};
    /* Before any listing the client cannot know: a plain call, refused. */
    assert_int_equal(call(c, "job", "{\"n\":1,\"delay_ms\":0}", NULL, &r), MCP_ERR_REMOTE);
    assert_non_null(strstr(r.error_message, "runs only as a task"));
    mcp_client_call_result_release(&r);
    mcp_json_doc *tools;
    assert_int_equal(mcp_client_list_tools(c, NULL, &tools, NULL), MCP_OK);
    mcp_json_doc_free(tools);
    progress_seen = 0;
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 300, .on_progress = on_progress};
    assert_int_equal(call(c, "job", "{\"n\":5,\"delay_ms\":100}", &o, &r), MCP_OK);
    assert_string_equal(first_text(&r), "counted to 5");
    assert_int_equal(progress_seen, 5); /* the call's token, after CreateTaskResult */
    mcp_client_call_result_release(&r);
    /* Always: the task param goes even to a tool that refuses it. */
    o.task = MCP_CALL_TASK_ALWAYS;
    assert_int_equal(call(c, "echo", "{\"text\":\"x\"}", &o, &r), MCP_ERR_REMOTE);
    assert_non_null(strstr(r.error_message, "does not run as a task"));
    mcp_client_call_result_release(&r);
    o.task = MCP_CALL_TASK_NEVER;
    assert_int_equal(call(c, "job", "{\"n\":1,\"delay_ms\":0}", &o, &r), MCP_ERR_REMOTE);
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
    /* Under 2026-07-28 mcp serve declares the tasks extension: ALWAYS
     * declares it on the call, the server makes a task of it, and its end
     * comes back as a call's; AUTO does not, but job (which the server runs
     * only as a task: -32021 naming the extension) is sent again as a task
     * call, whose end is the call's; NEVER keeps the refusal. */
    c = connect_to(serve_argv, NULL, false);
    o.task = MCP_CALL_TASK_ALWAYS;
    o.on_task = count_tasks;
    tasks_seen = 0;
    assert_int_equal(call(c, "job", "{\"n\":2,\"delay_ms\":20}", &o, &r), MCP_OK);
    assert_string_equal(first_text(&r), "counted to 2");
    assert_true(tasks_seen >= 2); /* CreateTaskResult, then tasks/get's */
    mcp_client_call_result_release(&r);
    o.task = MCP_CALL_TASK_AUTO;
    tasks_seen = 0;
    assert_int_equal(call(c, "job", "{\"n\":1,\"delay_ms\":0}", &o, &r), MCP_OK);
    assert_string_equal(first_text(&r), "counted to 1");
    assert_true(tasks_seen >= 1);
    mcp_client_call_result_release(&r);
    /* A tool that may run as a task stays a plain call under AUTO. */
    tasks_seen = 0;
    assert_int_equal(call(c, "count", "{\"n\":1,\"delay_ms\":0}", &o, &r), MCP_OK);
    assert_int_equal(tasks_seen, 0);
    mcp_client_call_result_release(&r);
    o.task = MCP_CALL_TASK_NEVER;
    assert_int_equal(call(c, "job", "{\"n\":1,\"delay_ms\":0}", &o, &r), MCP_ERR_REMOTE);
    assert_int_equal(r.error_code, -32021);
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

/* The task id of a CreateTaskResult (2025 nested, 2026 flat), copied. */
static void started_id(const mcp_client_call_result *r, char id[64])
{
    const mcp_json *t = mcp_json_object_get(r->result, "task");
    const char *s = mcp_json_string(mcp_json_object_get(t ? t : r->result, "taskId"), NULL);
    assert_non_null(s);
    snprintf(id, 64, "%s", s);
}

/* The task API: a task started, then reached by its id alone. */
static void the_task_api_reaches_a_task_by_its_id(void **state)
{
    mcp_client *c = connect_2025(false);
    mcp_client_call_options start = {.size = sizeof start, .task = MCP_CALL_TASK_START};
    mcp_client_call_result r = {.size = sizeof r};
    char id[64];
    assert_int_equal(call(c, "count", "{\"n\":1,\"delay_ms\":0}", &start, &r), MCP_OK);
    started_id(&r, id);
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_result(c, id, NULL, &r), MCP_OK); /* waits for the end */
    assert_string_equal(first_text(&r), "counted to 1");
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_get(c, id, NULL, &r), MCP_OK);
    assert_string_equal(mcp_json_string(mcp_json_object_get(r.result, "status"), NULL), "completed");
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_list(c, NULL, NULL, &r), MCP_OK);
    const mcp_json *first = mcp_json_array_at(mcp_json_object_get(r.result, "tasks"), 0);
    assert_string_equal(mcp_json_string(mcp_json_object_get(first, "taskId"), NULL), id);
    mcp_client_call_result_release(&r);
    /* Ended: no cancel; an unknown id; a method of the other revision. */
    assert_int_equal(mcp_client_task_cancel(c, id, NULL, &r), MCP_ERR_REMOTE);
    assert_int_equal(r.error_code, -32602);
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_get(c, "nope", NULL, &r), MCP_ERR_REMOTE);
    mcp_client_call_result_release(&r);
    mcp_json_doc *answers = args("{}");
    assert_int_equal(mcp_client_task_update(c, id, mcp_json_doc_root(answers), NULL, &r),
                     MCP_ERR_STATE);
    assert_int_equal(mcp_client_task_get(c, NULL, NULL, &r), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_client_task_get(c, "", NULL, &r), MCP_ERR_INVALID_ARG);
    mcp_client_free(c);
    /* 2026-07-28: get, update and cancel; no result, no list. */
    c = connect_to(serve_argv, NULL, false);
    assert_int_equal(call(c, "sleep", "{\"seconds\":30}", &start, &r), MCP_OK);
    started_id(&r, id);
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_get(c, id, NULL, &r), MCP_OK);
    assert_string_equal(mcp_json_string(mcp_json_object_get(r.result, "status"), NULL), "working");
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_update(c, id, mcp_json_doc_root(answers), NULL, &r), MCP_OK);
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_cancel(c, id, NULL, &r), MCP_OK);
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_get(c, id, NULL, &r), MCP_OK);
    assert_string_equal(mcp_json_string(mcp_json_object_get(r.result, "status"), NULL),
                        "cancelled");
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_task_result(c, id, NULL, &r), MCP_ERR_STATE);
    assert_int_equal(mcp_client_task_list(c, NULL, NULL, &r), MCP_ERR_STATE);
    mcp_json_doc_free(answers);
    mcp_client_free(c);
}

/* The seeds' rule: a task call is cancelled with tasks/cancel, and the
 * server's handler stops; under 2026-07-28 too. */
static void cancelled_task_call(mcp_client *c);
static void a_cancelled_task_call_stops_the_servers_handler(void **state)
{
    cancelled_task_call(connect_2025(true));
    cancelled_task_call(connect_to(serve_argv, NULL, true));
}

static void cancelled_task_call(mcp_client *c)
{
    mcp_json_doc *a = args("{\"seconds\":30}");
    canceller k = {c, 0};
    async_outcome = 1;
    mcp_client_call_options o = {.size = sizeof o, .task = MCP_CALL_TASK_ALWAYS};
    assert_int_equal(mcp_client_call_tool_async(c, "sleep", mcp_json_doc_root(a), &o, async_done,
                                                NULL, &k.handle), MCP_OK);
    mcp_json_doc_free(a);
    pthread_t th;
    pthread_create(&th, NULL, cancel_from_thread, &k);
    assert_int_equal(mcp_client_run(c), MCP_OK);
    pthread_join(th, NULL);
    assert_int_equal(async_outcome, MCP_ERR_ABORTED);
    assert_true(server_stderr_says(c, "(the task was cancelled (tasks/cancel))", 2000));
    mcp_client_free(c);
}

static void closing_with_a_call_in_flight_ends_it_closed(void **state)
{
    mcp_client *c = connect_to(serve_argv, NULL, false);
    mcp_json_doc *a = args("{\"seconds\":30}");
    async_outcome = 1;
    assert_int_equal(mcp_client_call_tool_async(c, "sleep", mcp_json_doc_root(a), NULL,
                                                async_done, NULL, NULL), MCP_OK);
    mcp_json_doc_free(a);
    mcp_client_run_once(c, false);
    mcp_client_close(c);
    assert_int_equal(async_outcome, MCP_ERR_CLOSED);
    int status;
    assert_true(mcp_client_child_exited(c, &status));
    assert_int_equal(status, 0); /* exited on end of input, not killed */
    mcp_client_free(c);
}

/* Against misbehaving servers --------------------------------------------------------- */

static void a_late_answer_after_a_timeout_is_dropped_quietly(void **state)
{
    const char *const argv[] = {FAKE_SERVER, "late", NULL};
    log_counts lc;
    mcp_client *c = connect_to(argv, &lc, true);
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 100};
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "x", "{}", &o, &r), MCP_ERR_TIMED_OUT);
    /* The fake server answers anyway; the answer must be dropped, and the
     * connection must stay usable. */
    assert_int_equal(mcp_client_request(c, "ping", NULL, NULL, &r), MCP_OK);
    mcp_client_call_result_release(&r);
    for (int i = 0; i < 100 && lc.dropped == 0; i++) {
        mcp_client_run_once(c, false);
        usleep(10000);
    }
    assert_int_equal(lc.dropped, 1);
    assert_true(server_stderr_says(c, "notifications/cancelled", 2000));
    mcp_client_free(c);
}

static void a_server_that_exits_ends_calls_closed(void **state)
{
    const char *const argv[] = {FAKE_SERVER, "exit", NULL};
    mcp_client *c = connect_to(argv, NULL, true);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "x", "{}", NULL, &r), MCP_ERR_CLOSED);
    assert_non_null(strstr(mcp_client_error(c), "status 3"));
    /* The connection is gone: a new call cannot be sent, and says why. */
    assert_int_equal(call(c, "x", "{}", NULL, &r), MCP_ERR_CLOSED);
    assert_non_null(strstr(mcp_client_error(c), "status 3"));
    mcp_handle h;
    mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS};
    assert_int_equal(mcp_client_listen(c, &f, NULL, NULL, &h), MCP_ERR_CLOSED);
    mcp_client_free(c);
}

static void a_call_after_an_idle_server_died_says_how(void **state)
{
    /* Killed while nothing was in flight, the loop not run since: the
     * call's write finds it gone, and the error names the signal. */
    mcp_client *c = connect_to(serve_argv, NULL, true);
    assert_int_equal(kill(mcp_client_server_pid(c), SIGKILL), 0);
    usleep(200 * 1000);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "echo", "{\"text\":\"x\"}", NULL, &r), MCP_ERR_CLOSED);
    if (!strstr(mcp_client_error(c), "killed by signal 9"))
        fail_msg("the error says: %s", mcp_client_error(c));
    assert_int_equal(call(c, "echo", "{\"text\":\"x\"}", NULL, &r), MCP_ERR_CLOSED);
    assert_non_null(strstr(mcp_client_error(c), "killed by signal 9"));
    mcp_client_free(c);
}

static void close_escalates_to_kill_for_a_server_that_ignores_eof_and_term(void **state)
{
    const char *const argv[] = {FAKE_SERVER, "stubborn", NULL};
    mcp_client *c = connect_to(argv, NULL, true);
    mcp_client_close(c);
    int status;
    assert_true(mcp_client_child_exited(c, &status));
    assert_int_equal(status, 128 + 9);
    mcp_client_free(c);
}

static void an_unsupported_version_fails_the_connect(void **state)
{
    const char *const argv[] = {FAKE_SERVER, "version", NULL};
    mcp_client *c;
    mcp_client_options o = {.size = sizeof o, .capture_stderr = true, .close_grace_ms = 300};
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    assert_int_equal(mcp_client_connect_stdio(c, argv), MCP_ERR_PROTOCOL);
    assert_non_null(strstr(mcp_client_error(c), "protocol version"));
    mcp_client_free(c);
}

static void an_unanswered_initialize_times_out_without_a_cancel(void **state)
{
    const char *const argv[] = {FAKE_SERVER, "noinit", NULL};
    mcp_client *c;
    mcp_client_options o = {.size = sizeof o, .capture_stderr = true, .connect_timeout_ms = 200,
                            .close_grace_ms = 300};
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    assert_int_equal(mcp_client_connect_stdio(c, argv), MCP_ERR_TIMED_OUT);
    mcp_client_close(c);
    /* initialize is never cancelled. */
    assert_null(strstr(mcp_client_stderr(c, NULL), "notifications/cancelled"));
    mcp_client_free(c);
}

static void garbage_from_the_server_does_not_break_the_call(void **state)
{
    const char *const argv[] = {FAKE_SERVER, "garbage", NULL};
    mcp_client *c = connect_to(argv, NULL, true);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "x", "{}", NULL, &r), MCP_OK);
    assert_string_equal(first_text(&r), "late answer");
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

static void a_command_that_does_not_exist_is_a_spawn_error(void **state)
{
    const char *const argv[] = {"/nonexistent/mcp-server", NULL};
    mcp_client *c;
    assert_int_equal(mcp_client_new(NULL, &c), MCP_OK);
    assert_int_equal(mcp_client_connect_stdio(c, argv), MCP_ERR_SPAWN);
    assert_non_null(strstr(mcp_client_error(c), "could not start"));
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "x", "{}", NULL, &r), MCP_ERR_STATE);
    assert_non_null(strstr(mcp_client_error(c), "not connected"));
    mcp_client_free(c);
}

/* The outputSchemas of the tools listed hold the server to them: a result
 * that breaks one is a protocol error, not a result. Before the listing,
 * nothing is known, so nothing is checked. */
static void a_result_is_checked_against_the_listed_output_schema(void **state)
{
    const char *const argv[] = {FAKE_SERVER, "outschema", NULL};
    mcp_client *c = connect_to(argv, NULL, false);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "bad", "{}", NULL, &r), MCP_OK); /* not listed yet */
    mcp_client_call_result_release(&r);
    mcp_json_doc *tools;
    assert_int_equal(mcp_client_list_tools(c, NULL, &tools, NULL), MCP_OK);
    mcp_json_doc_free(tools);
    assert_int_equal(call(c, "good", "{}", NULL, &r), MCP_OK);
    mcp_client_call_result_release(&r);
    assert_int_equal(call(c, "bad", "{}", NULL, &r), MCP_ERR_PROTOCOL);
    assert_non_null(strstr(mcp_client_error(c), "structuredContent/n must be integer"));
    mcp_client_call_result_release(&r);
    assert_int_equal(call(c, "nostruct", "{}", NULL, &r), MCP_ERR_PROTOCOL);
    assert_non_null(strstr(mcp_client_error(c), "no structuredContent"));
    mcp_client_call_result_release(&r);
    assert_int_equal(call(c, "good", "{}", NULL, &r), MCP_OK); /* and the client goes on */
    mcp_client_call_result_release(&r);
    mcp_client_free(c);
}

static void a_failed_connect_leaves_a_client_that_can_connect_again(void **state)
{
    const char *const missing[] = {"/nonexistent/mcp-server", NULL};
    const char *const version[] = {FAKE_SERVER, "version", NULL};
    mcp_client *c;
    mcp_client_options o = {.size = sizeof o, .capture_stderr = true, .close_grace_ms = 300};
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    /* Nothing to reconnect yet, and no result to fill. */
    assert_int_equal(mcp_client_reconnect(c), MCP_ERR_STATE);
    assert_non_null(strstr(mcp_client_error(c), "never connected"));
    assert_int_equal(mcp_client_call_tool(c, "echo", NULL, NULL, NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_client_connect_stdio(c, missing), MCP_ERR_SPAWN);
    assert_int_equal(mcp_client_reconnect(c), MCP_ERR_STATE); /* it never connected */
    /* A server that answers with no revision in common: stopped at once. */
    assert_int_equal(mcp_client_connect_stdio(c, version), MCP_ERR_PROTOCOL);
    assert_int_equal(mcp_client_server_pid(c), 0);
    assert_non_null(strstr(mcp_client_error(c), "protocol version"));
    /* And then a good one: connected, the old error gone. */
    assert_int_equal(mcp_client_connect_stdio(c, serve_argv), MCP_OK);
    assert_string_equal(mcp_client_error(c), "");
    assert_true(mcp_client_server_pid(c) > 0);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "echo", "{\"text\":\"back\"}", NULL, &r), MCP_OK);
    assert_string_equal(first_text(&r), "back");
    mcp_client_call_result_release(&r);
    assert_int_equal(mcp_client_connect_stdio(c, serve_argv), MCP_ERR_STATE);
    assert_non_null(strstr(mcp_client_error(c), "already connected"));
    /* Reconnect starts the command that connected. */
    int old = mcp_client_server_pid(c);
    assert_int_equal(mcp_client_reconnect(c), MCP_OK);
    assert_true(mcp_client_server_pid(c) > 0 && mcp_client_server_pid(c) != old);
    mcp_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(connect_negotiates_and_lists_tools),
        cmocka_unit_test(a_call_returns_the_result),
        cmocka_unit_test(an_unknown_tool_is_a_remote_error),
        cmocka_unit_test(a_timeout_cancels_on_the_wire_and_the_handler_sees_it),
        cmocka_unit_test(the_maximum_time_ends_a_call_that_keeps_progressing),
        cmocka_unit_test(progress_keeps_a_long_call_alive),
        cmocka_unit_test(a_cancel_from_another_thread_aborts_the_call),
        cmocka_unit_test(a_call_of_a_task_tool_runs_as_a_task_and_returns_as_a_call),
        cmocka_unit_test(a_cancelled_task_call_stops_the_servers_handler),
        cmocka_unit_test(the_task_api_reaches_a_task_by_its_id),
        cmocka_unit_test(closing_with_a_call_in_flight_ends_it_closed),
        cmocka_unit_test(a_late_answer_after_a_timeout_is_dropped_quietly),
        cmocka_unit_test(a_server_that_exits_ends_calls_closed),
        cmocka_unit_test(a_call_after_an_idle_server_died_says_how),
        cmocka_unit_test(close_escalates_to_kill_for_a_server_that_ignores_eof_and_term),
        cmocka_unit_test(an_unsupported_version_fails_the_connect),
        cmocka_unit_test(an_unanswered_initialize_times_out_without_a_cancel),
        cmocka_unit_test(garbage_from_the_server_does_not_break_the_call),
        cmocka_unit_test(a_command_that_does_not_exist_is_a_spawn_error),
        cmocka_unit_test(a_failed_connect_leaves_a_client_that_can_connect_again),
        cmocka_unit_test(a_result_is_checked_against_the_listed_output_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
