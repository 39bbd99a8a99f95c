/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for src/server: a real server (serve_fds) in a thread, driven
 * over a socketpair by the test, which reads and writes the wire itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "runtime/internal.h"
#include "wire.h"

typedef struct harness {
    mcp_server *server;
    wire w;          /* our end */
    int server_fd;   /* the server's end */
    pthread_t thread;
    int serve_rc;
} harness;

/* What the tools saw, for assertions. */
static atomic_int handler_runs, cancels_seen;
static char last_reason[128];
static pthread_mutex_t reason_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int late_reply_rc;

static void *serve_thread(void *arg)
{
    harness *h = arg;
    h->serve_rc = mcp_server_serve_fds(h->server, h->server_fd, h->server_fd);
    return NULL;
}

static void send_line(harness *h, const char *line)
{
    wire_send(&h->w, line);
}

static char *read_line(harness *h, int timeout_ms)
{
    return wire_read(&h->w, timeout_ms);
}

static char *expect_line(harness *h, const char *needle)
{
    return wire_expect(&h->w, needle);
}

/* Tools ------------------------------------------------------------------------ */

static void tool_echo(void *ud, mcp_call *c)
{
    atomic_fetch_add(&handler_runs, 1);
    const char *t = mcp_json_string(mcp_json_object_get(mcp_call_arguments(c), "text"), NULL);
    mcp_call_reply_text(c, t ? t : "(none)");
}

static void tool_structured(void *ud, mcp_call *c)
{
    const char *t = "{\"temperature\":22.5,\"conditions\":\"cloudy\"}";
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(t, strlen(t), NULL, NULL, &d, NULL), MCP_OK);
    assert_int_equal(mcp_call_reply_structured(c, mcp_json_doc_root(d)), MCP_OK);
    mcp_json_doc_free(d);
}

static void tool_wait(void *ud, mcp_call *c)
{
    /* Blocking: wait for the cancel, note the reason, try to reply anyway. */
    atomic_fetch_add(&handler_runs, 1);
    mcp_cancel_token *t = mcp_call_cancel_token(c);
    if (mcp_cancel_token_wait(t, 20000)) {
        pthread_mutex_lock(&reason_mu);
        snprintf(last_reason, sizeof last_reason, "%s",
                 mcp_cancel_token_reason(t) ? mcp_cancel_token_reason(t) : "");
        pthread_mutex_unlock(&reason_mu);
        atomic_fetch_add(&cancels_seen, 1);
        assert_int_equal(mcp_call_progress(c, 1, NAN, NULL), MCP_ERR_CANCELLED);
        atomic_store(&late_reply_rc, mcp_call_reply_text(c, "too late"));
        return;
    }
    mcp_call_reply_text(c, "not cancelled");
}

static void tool_progress(void *ud, mcp_call *c)
{
    for (int i = 1; i <= 3; i++)
        assert_int_equal(mcp_call_progress(c, i, 3, "step"), MCP_OK);
    assert_int_equal(mcp_call_progress(c, 2, 3, NULL), MCP_ERR_INVALID_ARG);
    mcp_call_reply_text(c, "done");
}

static void *reply_later(void *arg)
{
    usleep(20000);
    mcp_call_reply_tool_error(arg, "from another thread");
    return NULL;
}

static void tool_async(void *ud, mcp_call *c)
{
    /* Non-blocking: returns at once, answers later from its own thread. */
    pthread_t th;
    pthread_create(&th, NULL, reply_later, c);
    pthread_detach(th);
}

static void tool_forgets(void *ud, mcp_call *c)
{
    /* A blocking handler that returns without ending its call. */
}

static void tool_stubborn(void *ud, mcp_call *c)
{
    /* Ignores cancellation for longer than the shutdown grace. */
    usleep(800 * 1000);
    mcp_call_finish(c);
}

static atomic_int too_long_logged;
static void count_log(void *ud, const mcp_log_record *r)
{
    if (r->level == MCP_LOG_WARNING && strstr(r->message, "request dropped: message exceeds"))
        atomic_fetch_add(&too_long_logged, 1);
}

/* Tools with schemas: arguments checked before the handler, results after. */
static atomic_int typed_runs, broken_reply_rc;

static void tool_typed(void *ud, mcp_call *c)
{
    atomic_fetch_add(&typed_runs, 1);
    mcp_call_reply_text(c, "typed ok");
}

static void tool_breaks_output(void *ud, mcp_call *c)
{
    const char *t = "{\"y\":1}";
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(t, strlen(t), NULL, NULL, &d, NULL), MCP_OK);
    atomic_store(&broken_reply_rc, mcp_call_reply_structured(c, mcp_json_doc_root(d)));
    mcp_json_doc_free(d);
}

static void tool_text_despite_output(void *ud, mcp_call *c)
{
    atomic_store(&broken_reply_rc, mcp_call_reply_text(c, "no structure"));
}

static void start_with(harness *h, uint64_t grace_ms, unsigned workers, size_t max_message,
                       const char *version);

static void start(harness *h, uint64_t grace_ms, unsigned workers)
{
    start_with(h, grace_ms, workers, 0, "2025-11-25");
}

static void start_with(harness *h, uint64_t grace_ms, unsigned workers, size_t max_message,
                       const char *version)
{
    memset(h, 0, sizeof *h);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    h->w.fd = sv[0];
    h->server_fd = sv[1];
    mcp_server_options o = {.size = sizeof o, .name = "test", .shutdown_grace_ms = grace_ms,
                            .worker_threads = workers, .log_level = MCP_LOG_WARNING,
                            .log = count_log, .max_message = max_message};
    assert_int_equal(mcp_server_new(&o, &h->server), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool),
         .name = "echo",
         .description = "echo",
         .handler = tool_echo},
        {.size = sizeof(mcp_tool),
         .name = "wait",
         .description = "waits for cancel",
         .handler = tool_wait,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "progress",
         .handler = tool_progress,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "async",
         .handler = tool_async},
        {.size = sizeof(mcp_tool),
         .name = "forgets",
         .handler = tool_forgets,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "stubborn",
         .handler = tool_stubborn,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "structured",
         .output_schema = "{\"type\":\"object\"}",
         .handler = tool_structured,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "typed",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":1}},"
         "\"required\":[\"n\"]}",
         .handler = tool_typed},
        {.size = sizeof(mcp_tool),
         .name = "breaks_output",
         .output_schema = "{\"type\":\"object\",\"required\":[\"x\"]}",
         .handler = tool_breaks_output},
        {.size = sizeof(mcp_tool),
         .name = "text_despite_output",
         .output_schema = "{\"type\":\"object\"}",
         .handler = tool_text_despite_output,
         .flags = MCP_TOOL_BLOCKING},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(h->server, &tools[i]), MCP_OK);
    atomic_store(&handler_runs, 0);
    atomic_store(&cancels_seen, 0);
    atomic_store(&typed_runs, 0);
    last_reason[0] = 0;
    pthread_create(&h->thread, NULL, serve_thread, h);
    char init[300];
    snprintf(init, sizeof init,
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
             "{\"protocolVersion\":\"%s\",\"capabilities\":{},"
             "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
             version);
    send_line(h, init);
    free(expect_line(h, "\"id\":0"));
    send_line(h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

/* End input and wait for serve to return. */
static void stop(harness *h)
{
    shutdown(h->w.fd, SHUT_WR);
    pthread_join(h->thread, NULL);
    assert_int_equal(h->serve_rc, MCP_OK);
    close(h->w.fd);
    close(h->server_fd);
    mcp_server_free(h->server);
}

/* Tests ---------------------------------------------------------------------------- */

static void tools_list_describes_every_tool(void **state)
{
    harness h;
    start(&h, 0, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    char *l = expect_line(&h, "\"id\":1");
    mcp_message *m;
    assert_int_equal(mcp_message_decode(l, strlen(l), NULL, NULL, &m, NULL), MCP_OK);
    const mcp_json *tools = mcp_json_object_get(m->result, "tools");
    assert_int_equal(mcp_json_array_size(tools), 10);
    assert_non_null(mcp_json_object_get(mcp_json_array_at(tools, 6), "outputSchema"));
    const mcp_json *echo = mcp_json_array_at(tools, 0);
    assert_string_equal(mcp_json_string(mcp_json_object_get(echo, "name"), NULL), "echo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(
                            mcp_json_object_get(echo, "inputSchema"), "type"), NULL), "object");
    mcp_message_free(m);
    free(l);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"cursor\":\"x\"}}");
    l = expect_line(&h, "\"id\":2");
    assert_non_null(strstr(l, "-32602"));
    free(l);
    stop(&h);
}

static void a_call_gets_its_result(void **state)
{
    harness h;
    start(&h, 0, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":\"e\",\"method\":\"tools/call\",\"params\":"
                  "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\\nthere\"}}}");
    char *l = expect_line(&h, "\"id\":\"e\"");
    assert_non_null(strstr(l, "\"text\":\"hi\\nthere\""));
    free(l);
    /* No arguments: the handler sees {}. */
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}");
    l = expect_line(&h, "\"id\":3");
    assert_non_null(strstr(l, "(none)"));
    free(l);
    stop(&h);
}

static void structured_content_comes_with_its_text_copy(void **state)
{
    harness h;
    start(&h, 0, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"structured\"}}");
    char *l = expect_line(&h, "\"id\":1");
    mcp_message *m;
    assert_int_equal(mcp_message_decode(l, strlen(l), NULL, NULL, &m, NULL), MCP_OK);
    const mcp_json *sc = mcp_json_object_get(m->result, "structuredContent");
    double t;
    assert_int_equal(mcp_json_get_double(mcp_json_object_get(sc, "temperature"), &t), MCP_OK);
    assert_true(t == 22.5);
    const char *text = mcp_json_string(mcp_json_object_get(mcp_json_array_at(
                           mcp_json_object_get(m->result, "content"), 0), "text"), NULL);
    mcp_json_doc *copy;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &copy, NULL), MCP_OK);
    assert_true(mcp_json_equal(mcp_json_doc_root(copy), sc));
    mcp_json_doc_free(copy);
    mcp_message_free(m);
    free(l);
    stop(&h);
}

static void bad_calls_get_the_right_json_rpc_errors(void **state)
{
    harness h;
    start(&h, 0, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}");
    char *l = expect_line(&h, "\"id\":1");
    assert_non_null(strstr(l, "-32602"));
    assert_non_null(strstr(l, "Unknown tool: \\\"nope\\\"")); /* shown as JSON */
    free(l);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[1]}}");
    l = expect_line(&h, "\"id\":2");
    assert_non_null(strstr(l, "-32602"));
    free(l);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{}}");
    l = expect_line(&h, "\"id\":3");
    assert_non_null(strstr(l, "-32602"));
    free(l);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/unknown\"}");
    l = expect_line(&h, "\"id\":4");
    assert_non_null(strstr(l, "-32601"));
    free(l);
    send_line(&h, "this is not json");
    l = expect_line(&h, "-32700");
    free(l);
    /* Still usable. */
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"ok\"}}}");
    l = expect_line(&h, "\"id\":5");
    assert_non_null(strstr(l, "\"ok\""));
    free(l);
    stop(&h);
}

static void a_cancel_fires_the_token_and_nothing_is_sent_after_it(void **state)
{
    harness h;
    start(&h, 0, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                  "{\"name\":\"wait\",\"_meta\":{\"progressToken\":1}}}");
    while (atomic_load(&handler_runs) == 0)
        usleep(1000);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                  "{\"requestId\":7,\"reason\":\"user pressed stop\"}}");
    while (atomic_load(&cancels_seen) == 0)
        usleep(1000);
    pthread_mutex_lock(&reason_mu);
    assert_string_equal(last_reason, "user pressed stop");
    pthread_mutex_unlock(&reason_mu);
    assert_int_equal(atomic_load(&late_reply_rc), MCP_ERR_CANCELLED);
    /* A ping answered after the cancel proves the server kept going, and
     * nothing for id 7 came before it. */
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}");
    char *l = read_line(&h, 10000);
    assert_non_null(l);
    assert_non_null(strstr(l, "\"id\":99"));
    free(l);
    stop(&h);
    assert_null(read_line(&h, 0));
}

static void progress_from_a_worker_reaches_the_wire_in_order(void **state)
{
    harness h;
    start(&h, 0, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                  "{\"name\":\"progress\",\"_meta\":{\"progressToken\":\"p\"}}}");
    for (int i = 1; i <= 3; i++) {
        char *l = read_line(&h, 10000);
        char want[64];
        snprintf(want, sizeof want, "\"progress\":%d,", i);
        assert_non_null(l);
        assert_non_null(strstr(l, "\"progressToken\":\"p\""));
        assert_non_null(strstr(l, want));
        free(l);
    }
    char *l = read_line(&h, 10000);
    assert_non_null(strstr(l, "\"done\""));
    free(l);
    stop(&h);
}

static void a_reply_from_another_thread_is_delivered(void **state)
{
    harness h;
    start(&h, 0, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"async\"}}");
    char *l = expect_line(&h, "\"id\":1");
    assert_non_null(strstr(l, "\"isError\":true"));
    assert_non_null(strstr(l, "from another thread"));
    free(l);
    stop(&h);
}

static void a_handler_that_forgets_to_answer_gets_an_internal_error(void **state)
{
    harness h;
    start(&h, 0, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"forgets\"}}");
    char *l = expect_line(&h, "\"id\":1");
    assert_non_null(strstr(l, "-32603"));
    free(l);
    stop(&h);
}

static void a_queued_call_cancelled_before_it_starts_never_runs(void **state)
{
    harness h;
    start(&h, 0, 1); /* one worker: the second call waits in the queue */
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"wait\"}}");
    while (atomic_load(&handler_runs) == 0)
        usleep(1000);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"wait\"}}");
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}");
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}");
    while (atomic_load(&cancels_seen) == 0)
        usleep(1000);
    stop(&h);
    assert_int_equal(atomic_load(&handler_runs), 1);
}

static void end_of_input_cancels_calls_with_connection_closed(void **state)
{
    harness h;
    start(&h, 2000, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"wait\"}}");
    while (atomic_load(&handler_runs) == 0)
        usleep(1000);
    uint64_t t0 = mcp__now_ms();
    stop(&h); /* EOF: the handler must see the cancel and serve return */
    assert_int_equal(atomic_load(&cancels_seen), 1);
    assert_string_equal(last_reason, "connection closed");
    assert_true(mcp__now_ms() - t0 < 2000); /* did not need the grace */
}

static void a_handler_ignoring_cancel_is_abandoned_after_the_grace(void **state)
{
    harness h;
    start(&h, 100, 2);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"stubborn\"}}");
    usleep(50 * 1000);
    shutdown(h.w.fd, SHUT_WR);
    pthread_join(h.thread, NULL);
    assert_int_equal(h.serve_rc, MCP_OK); /* returned after the grace */
    close(h.w.fd);
    close(h.server_fd);
    /* The handler still runs: free returns at once, and the handler's
     * thread frees the server once it returns (its answer refused). Were
     * it not freed, or its pool's threads neither joined nor detached, the
     * leak checks (ASan, valgrind) and TSan's thread-leak check fail the
     * run; and the pool would stay counted. */
    mcp_server_free(h.server);
    assert_int_equal(mcp__pools_alive(), 1); /* the handler still runs */
    for (int i = 0; i < 500 && mcp__pools_alive(); i++)
        usleep(10 * 1000);
    assert_int_equal(mcp__pools_alive(), 0);
    usleep(20 * 1000); /* its last thread's own end */
}

static void an_over_long_request_is_answered_and_the_connection_goes_on(void **state)
{
    harness h;
    atomic_store(&too_long_logged, 0);
    start_with(&h, 0, 2, 512, "2025-11-25");
    char line[2048];
    int n = snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"");
    memset(line + n, 'x', 1500);
    strcpy(line + n + 1500, "\"}}}");
    send_line(&h, line);
    send_line(&h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                  "{\"name\":\"echo\",\"arguments\":{\"text\":\"short\"}}}");
    /* Its sender does not wait for a timeout: the id is read from its
     * first bytes and answered at once. */
    char *l = read_line(&h, 10000);
    assert_non_null(l);
    assert_non_null(strstr(l, "\"id\":1"));
    assert_non_null(strstr(l, "-32600"));
    assert_non_null(strstr(l, "message exceeds 512 bytes"));
    free(l);
    l = read_line(&h, 10000);
    assert_non_null(l);
    assert_non_null(strstr(l, "\"id\":2"));
    assert_non_null(strstr(l, "short"));
    free(l);
    stop(&h);
    assert_int_equal(atomic_load(&too_long_logged), 1);
}

/* The reply to the call with id `id`, parsed; the caller frees both. */
static mcp_message *answer(harness *h, int id, char **line)
{
    char needle[32];
    snprintf(needle, sizeof needle, "\"id\":%d", id);
    *line = expect_line(h, needle);
    mcp_message *m;
    assert_int_equal(mcp_message_decode(*line, strlen(*line), NULL, NULL, &m, NULL), MCP_OK);
    return m;
}

static void call_typed(harness *h, int id, const char *args)
{
    char line[300];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
             "{\"name\":\"typed\",\"arguments\":%s}}", id, args);
    send_line(h, line);
}

static void invalid_arguments_are_a_tool_error_from_2025_11_25(void **state)
{
    harness h;
    start(&h, 0, 2);
    static const struct {
        const char *args, *says;
    } bad[] = {{"{\"n\":0}", "arguments/n must be >= 1 (minimum)"},
               {"{\"n\":\"2\"}", "arguments/n must be integer, not a string (type)"},
               {"{}", "the arguments must have the property 'n' (required)"}};
    for (int i = 0; i < 3; i++) {
        call_typed(&h, i + 1, bad[i].args);
        char *l;
        mcp_message *m = answer(&h, i + 1, &l);
        assert_int_equal(m->kind, MCP_MESSAGE_RESULT);
        bool is_error = false;
        assert_int_equal(mcp_json_get_bool(mcp_json_object_get(m->result, "isError"), &is_error),
                         MCP_OK);
        assert_true(is_error);
        const char *text = mcp_json_string(mcp_json_object_get(mcp_json_array_at(
                               mcp_json_object_get(m->result, "content"), 0), "text"), NULL);
        if (!text || !strstr(text, bad[i].says))
            fail_msg("%s: the text '%s' does not say '%s'", bad[i].args, text, bad[i].says);
        mcp_message_free(m);
        free(l);
    }
    assert_int_equal(atomic_load(&typed_runs), 0); /* the handler never saw them */
    call_typed(&h, 9, "{\"n\":1}");
    free(expect_line(&h, "typed ok"));
    assert_int_equal(atomic_load(&typed_runs), 1);
    stop(&h);
}

static void invalid_arguments_are_invalid_params_under_2025_06_18(void **state)
{
    harness h;
    start_with(&h, 0, 2, 0, "2025-06-18");
    call_typed(&h, 1, "{\"n\":0.5}");
    char *l;
    mcp_message *m = answer(&h, 1, &l);
    assert_int_equal(m->kind, MCP_MESSAGE_ERROR);
    assert_int_equal(m->error_code, -32602);
    assert_non_null(strstr(m->error_message, "arguments/n"));
    mcp_message_free(m);
    free(l);
    /* Not an object: -32602 in every revision (before any schema). */
    call_typed(&h, 2, "[1]");
    m = answer(&h, 2, &l);
    assert_int_equal(m->error_code, -32602);
    mcp_message_free(m);
    free(l);
    assert_int_equal(atomic_load(&typed_runs), 0);
    stop(&h);
}

static void a_result_that_breaks_the_output_schema_is_an_internal_error(void **state)
{
    harness h;
    start(&h, 0, 2);
    const char *const tools[] = {"breaks_output", "text_despite_output"};
    for (int i = 0; i < 2; i++) {
        atomic_store(&broken_reply_rc, 1);
        char line[200];
        snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
                                    "\"params\":{\"name\":\"%s\"}}", i + 1, tools[i]);
        send_line(&h, line);
        char *l;
        mcp_message *m = answer(&h, i + 1, &l);
        assert_int_equal(m->kind, MCP_MESSAGE_ERROR);
        assert_int_equal(m->error_code, -32603);
        assert_non_null(strstr(m->error_message, "outputSchema"));
        mcp_message_free(m);
        free(l);
        for (int k = 0; k < 2000 && atomic_load(&broken_reply_rc) == 1; k++)
            usleep(1000);
        assert_int_equal(atomic_load(&broken_reply_rc), MCP_ERR_SCHEMA_MISMATCH);
    }
    stop(&h);
}

static void tool_registration_is_validated(void **state)
{
    mcp_server *s;
    assert_int_equal(mcp_server_new(NULL, &s), MCP_OK);
    mcp_tool t = {.size = sizeof(mcp_tool),
                  .name = "ok.name-1_x",
                  .handler = tool_echo};
    assert_int_equal(mcp_server_add_tool(s, &t), MCP_OK);
    assert_int_equal(mcp_server_add_tool(s, &t), MCP_ERR_INVALID_ARG); /* duplicate */
    mcp_tool bad_name = {.size = sizeof(mcp_tool),
                         .name = "has space",
                         .handler = tool_echo};
    assert_int_equal(mcp_server_add_tool(s, &bad_name), MCP_ERR_INVALID_ARG);
    mcp_tool bad_schema = {.size = sizeof(mcp_tool),
                           .name = "x",
                           .input_schema = "[1]",
                           .handler = tool_echo};
    assert_int_equal(mcp_server_add_tool(s, &bad_schema), MCP_ERR_INVALID_ARG);
    mcp_tool no_handler = {.size = sizeof(mcp_tool),
                           .name = "y"};
    assert_int_equal(mcp_server_add_tool(s, &no_handler), MCP_ERR_INVALID_ARG);
    mcp_tool not_a_schema = {.size = sizeof(mcp_tool),
                             .name = "z",
                             .input_schema = "{\"type\":\"text\"}",
                             .handler = tool_echo};
    assert_int_equal(mcp_server_add_tool(s, &not_a_schema), MCP_ERR_SCHEMA);
    mcp_tool remote = {.size = sizeof(mcp_tool),
                       .name = "z",
                       .output_schema = "{\"$ref\":\"https://example.com/out.json\"}",
                       .handler = tool_echo};
    assert_int_equal(mcp_server_add_tool(s, &remote), MCP_ERR_SCHEMA_REMOTE);
    mcp_server_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tools_list_describes_every_tool),
        cmocka_unit_test(a_call_gets_its_result),
        cmocka_unit_test(structured_content_comes_with_its_text_copy),
        cmocka_unit_test(bad_calls_get_the_right_json_rpc_errors),
        cmocka_unit_test(invalid_arguments_are_a_tool_error_from_2025_11_25),
        cmocka_unit_test(invalid_arguments_are_invalid_params_under_2025_06_18),
        cmocka_unit_test(a_result_that_breaks_the_output_schema_is_an_internal_error),
        cmocka_unit_test(a_cancel_fires_the_token_and_nothing_is_sent_after_it),
        cmocka_unit_test(progress_from_a_worker_reaches_the_wire_in_order),
        cmocka_unit_test(a_reply_from_another_thread_is_delivered),
        cmocka_unit_test(a_handler_that_forgets_to_answer_gets_an_internal_error),
        cmocka_unit_test(a_queued_call_cancelled_before_it_starts_never_runs),
        cmocka_unit_test(end_of_input_cancels_calls_with_connection_closed),
        cmocka_unit_test(a_handler_ignoring_cancel_is_abandoned_after_the_grace),
        cmocka_unit_test(an_over_long_request_is_answered_and_the_connection_goes_on),
        cmocka_unit_test(tool_registration_is_validated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
