/* SPDX-License-Identifier: MIT */
/*
 * The server's registry and connections: one registry serving two clients
 * at once (a legacy one and a 2026-07-28 one), changes published to both,
 * the tools' capability needs, log messages, caching hints, a graceful stop,
 * and the transport failing under the server: every send failing in turn
 * (a fault-injecting transport), and an output cap so small that the first
 * reply passes it. Real server, real loop, driven over socketpairs.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fault_transport.h"
#include "mcp/mcp.h"
#include "server/core/core.h"
#include "transport/ndjson_stream.h"
#include "wire.h"

#define ENV "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
            "\"io.modelcontextprotocol/clientCapabilities\":{}"
#define INIT                                                                              \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":{\"sampling\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":" \
    "\"1\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"

/* Tools --------------------------------------------------------------------------- */

static atomic_int running, ended, cancelled;
static char cancel_reason[64]; /* the last cancelled call's, written before cancelled */

/* Waits for its cancel or for `release` (a blocking tool). */
static atomic_int release;
static void tool_wait(void *ud, mcp_call *c)
{
    atomic_fetch_add(&running, 1);
    mcp_cancel_token *t = mcp_call_cancel_token(c);
    while (!atomic_load(&release) && !mcp_cancel_token_wait(t, 5))
        ;
    if (mcp_call_is_cancelled(c)) {
        const char *why = mcp_cancel_token_reason(t);
        snprintf(cancel_reason, sizeof cancel_reason, "%s", why ? why : "");
        atomic_fetch_add(&cancelled, 1);
        mcp_call_finish(c);
    } else {
        mcp_call_reply_text(c, mcp_call_protocol_version(c));
    }
    atomic_fetch_add(&ended, 1);
}

static mcp_server *the_server;
static void tool_add(void *ud, mcp_call *c)
{
    mcp_tool t = {.size = sizeof t, .name = "added", .handler = tool_wait,
                  .flags = MCP_TOOL_BLOCKING};
    mcp_call_reply_text(c, mcp_server_add_tool(the_server, &t) == MCP_OK ? "added" : "not");
}

static void tool_logs(void *ud, mcp_call *c)
{
    mcp_call_send_log(c, MCP_LOG_DEBUG, "a debug line");
    mcp_call_send_log(c, MCP_LOG_ERROR, "an error line");
    mcp_call_reply_text(c, "logged");
}

/* Asks the client for a sampling and waits (a blocking tool). */
static void tool_asks(void *ud, mcp_call *c)
{
    atomic_fetch_add(&running, 1);
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, NULL, "sampling/createMessage", NULL, 0, &a);
    if (rc == MCP_OK)
        mcp_call_reply_text(c, "answered");
    else
        mcp_call_finish(c);
    mcp_ask_answer_release(&a);
    atomic_fetch_add(&ended, 1);
}

static void read_note(void *ud, mcp_call *c)
{
    mcp_call_reply_resource_text(c, NULL, "note", 4);
}

static void tool_big(void *ud, mcp_call *c)
{
    static char text[20000];
    memset(text, 'x', sizeof text - 1);
    mcp_call_reply_text(c, text);
}

/* The same on the pool (its replies come after every request was read),
 * each call with its own text: they run at once. */
static void tool_big_later(void *ud, mcp_call *c)
{
    atomic_fetch_add(&running, 1);
    char *text = malloc(20000);
    assert_non_null(text);
    memset(text, 'x', 19999);
    text[19999] = '\0';
    mcp_call_reply_text(c, text);
    free(text);
    atomic_fetch_add(&ended, 1);
}

/* The next server's listen kinds (0: the default, all), and its log hook
 * (NULL: stderr). */
static unsigned next_listen_kinds;
static mcp_log_fn next_log;

static mcp_server *new_server(size_t max_output)
{
    mcp_server_options o = {.size = sizeof o, .name = "conns", .shutdown_grace_ms = 3000,
                            .listen_kinds = next_listen_kinds, .log = next_log,
                            .log_level = MCP_LOG_ERROR, .max_output = max_output,
                            .cache_ttl_ms = 5000, .cache_scope = MCP_CACHE_PRIVATE};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "wait", .handler = tool_wait,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool), .name = "add", .handler = tool_add},
        {.size = sizeof(mcp_tool), .name = "logs", .handler = tool_logs},
        {.size = sizeof(mcp_tool), .name = "big", .handler = tool_big},
        {.size = sizeof(mcp_tool), .name = "big_later", .handler = tool_big_later,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool), .name = "needs_elicitation", .handler = tool_logs,
         .required_client_capabilities = "{\"elicitation\":{}}"},
        {.size = sizeof(mcp_tool), .name = "asks", .handler = tool_asks,
         .flags = MCP_TOOL_BLOCKING},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    const mcp_resource_template t = {.size = sizeof t, .uri_template = "note://{id}", .name = "note",
                                     .read = read_note};
    assert_int_equal(mcp_server_add_resource_template(s, &t), MCP_OK);
    atomic_store(&running, 0);
    atomic_store(&ended, 0);
    atomic_store(&cancelled, 0);
    atomic_store(&release, 0);
    the_server = s;
    return s;
}

/* Serving on a thread: n connections over socketpairs, the first one over
 * a fault-injecting transport when fail_at is set. */
typedef struct serving {
    mcp_server *server;
    int nconn;
    int fail_at;
    size_t max_output;
    int server_fd[2];
    wire w[2];
    pthread_t thread;
    int rc;
    fault_record faults; /* what the fault transport saw */
} serving;

static void *serve_thread(void *arg)
{
    serving *sv = arg;
    mcp_server *s = sv->server;
    sv->rc = mcp__server_open_loop(s);
    for (int i = 0; i < sv->nconn && sv->rc == MCP_OK; i++) {
        mcp__ndjson_options o = {.max_queued = sv->max_output};
        mcp__transport *inner = mcp__ndjson_new(&s->loop, &o);
        mcp__transport *t = inner;
        if (i == 0 && sv->fail_at)
            t = fault_transport_new(inner, sv->fail_at, &sv->faults);
        sv->rc = mcp__server_attach(s, t);
        if (sv->rc == MCP_OK)
            sv->rc = mcp__ndjson_open_fds(inner, sv->server_fd[i], sv->server_fd[i]);
    }
    if (sv->rc == MCP_OK)
        sv->rc = mcp_server_run(s);
    return NULL;
}

static void serve(serving *sv, int nconn, int fail_at, size_t max_output)
{
    memset(sv, 0, sizeof *sv);
    sv->server = new_server(max_output);
    sv->nconn = nconn;
    sv->fail_at = fail_at;
    sv->max_output = max_output;
    for (int i = 0; i < nconn; i++) {
        int p[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
        sv->w[i].fd = p[0];
        sv->server_fd[i] = p[1];
    }
    pthread_create(&sv->thread, NULL, serve_thread, sv);
}

/* End every input, wait for the run to return, free everything. */
static void finish(serving *sv)
{
    for (int i = 0; i < sv->nconn; i++)
        shutdown(sv->w[i].fd, SHUT_WR);
    atomic_store(&release, 1);
    pthread_join(sv->thread, NULL);
    assert_int_equal(sv->rc, MCP_OK);
    for (int i = 0; i < sv->nconn; i++) {
        close(sv->w[i].fd);
        close(sv->server_fd[i]);
    }
    mcp_server_free(sv->server);
}

static void wait_until(atomic_int *v, int want)
{
    for (int i = 0; i < 10000 && atomic_load(v) < want; i++)
        usleep(1000);
    assert_true(atomic_load(v) >= want);
}

/* Tests ----------------------------------------------------------------------------- */

static void one_registry_serves_two_clients_at_once(void **state)
{
    serving sv;
    serve(&sv, 2, 0, 0);
    wire *legacy = &sv.w[0], *modern = &sv.w[1];
    wire_send(legacy, INIT);
    free(wire_expect(legacy, "\"id\":0"));
    wire_send(legacy, INITIALIZED);
    wire_send(modern, "{\"jsonrpc\":\"2.0\",\"id\":\"L\",\"method\":\"subscriptions/listen\","
                      "\"params\":{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{" ENV
                      "}}}");
    free(wire_expect(modern, "notifications/subscriptions/acknowledged"));
    /* A call on each, running at the same time. */
    wire_send(legacy, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                      "{\"name\":\"wait\"}}");
    wire_send(modern, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                      "{\"name\":\"wait\",\"_meta\":{" ENV "}}}");
    wait_until(&running, 2);
    /* The same id on the other connection is another request: cancelling
     * the legacy one leaves the modern one running. */
    wire_send(legacy, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                      "{\"requestId\":1}}");
    wait_until(&ended, 1); /* counted after its cancel was */
    assert_int_equal(atomic_load(&cancelled), 1);
    /* A change published from a handler reaches both, each its way. */
    wire_send(legacy, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                      "{\"name\":\"add\"}}");
    char *l = wire_expect(legacy, "notifications/tools/list_changed");
    assert_null(strstr(l, "subscriptionId"));
    free(l);
    l = wire_expect(modern, "notifications/tools/list_changed");
    assert_non_null(strstr(l, "\"io.modelcontextprotocol/subscriptionId\":\"L\""));
    free(l);
    /* Both see the new snapshot; the modern list carries the caching hints. */
    wire_send(modern, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                      ENV "}}}");
    l = wire_expect(modern, "\"id\":3");
    assert_non_null(strstr(l, "\"name\":\"added\""));
    assert_non_null(strstr(l, "\"ttlMs\":5000,\"cacheScope\":\"private\""));
    free(l);
    wire_send(legacy, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
    l = wire_expect(legacy, "\"id\":3");
    assert_non_null(strstr(l, "\"name\":\"added\""));
    assert_null(strstr(l, "ttlMs"));
    free(l);
    atomic_store(&release, 1);
    l = wire_expect(modern, "\"id\":1");
    assert_non_null(strstr(l, "2026-07-28")); /* served under its own revision */
    free(l);
    finish(&sv);
}

static void capability_needs_and_log_messages_follow_the_era(void **state)
{
    serving sv;
    serve(&sv, 1, 0, 0);
    wire *w = &sv.w[0];
    wire_send(w, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                 "{\"name\":\"needs_elicitation\",\"_meta\":{" ENV "}}}");
    char *l = wire_expect(w, "\"id\":1");
    assert_non_null(strstr(l, "-32021"));
    assert_non_null(strstr(l, "\"requiredCapabilities\":{\"elicitation\":{}}"));
    free(l);
    wire_send(w, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                 "{\"name\":\"needs_elicitation\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                 "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}},"
                 "\"io.modelcontextprotocol/logLevel\":\"warning\"}}}");
    /* Declared: served, with only the error line (at or above warning),
     * on the request's stream, before its result. */
    l = wire_read(w, 5000);
    assert_non_null(l);
    assert_non_null(strstr(l, "notifications/message"));
    assert_non_null(strstr(l, "an error line"));
    assert_non_null(strstr(l, "\"logger\":\"needs_elicitation\""));
    free(l);
    l = wire_read(w, 5000);
    assert_non_null(strstr(l, "\"id\":2"));
    assert_non_null(strstr(l, "logged"));
    free(l);
    /* A name with a NUL inside is no registered tool. */
    wire_send(w, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                 "{\"name\":\"logs\\u0000x\",\"_meta\":{" ENV "}}}");
    l = wire_expect(w, "\"id\":3");
    assert_non_null(strstr(l, "Unknown tool: \\\"logs\\\\u0000x\\\""));
    free(l);
    finish(&sv);
}

static void stop_ends_subscriptions_gracefully_and_returns(void **state)
{
    serving sv;
    serve(&sv, 1, 0, 0);
    wire *w = &sv.w[0];
    wire_send(w, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"subscriptions/listen\",\"params\":"
                 "{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{" ENV "}}}");
    free(wire_expect(w, "acknowledged"));
    wire_send(w, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":"
                 "{\"name\":\"wait\",\"_meta\":{" ENV "}}}");
    wait_until(&running, 1);
    mcp_server_stop(sv.server); /* from another thread than the loop's */
    char *l = wire_expect(w, "\"id\":7");
    assert_non_null(strstr(l, "\"result\":{\"resultType\":\"complete\""));
    free(l);
    l = wire_expect(w, "notifications/cancelled");
    assert_non_null(strstr(l, "\"requestId\":7"));
    free(l);
    wait_until(&cancelled, 1); /* the call in flight was cancelled, saying why */
    assert_string_equal(cancel_reason, "server shutting down");
    pthread_join(sv.thread, NULL);
    assert_int_equal(sv.rc, MCP_OK);
    close(sv.w[0].fd);
    close(sv.server_fd[0]);
    mcp_server_free(sv.server);
}

/* A conversation that makes the server write in every way it can: the
 * handshake, results, errors, progress is not asked, a log message, a list,
 * a subscription with its acknowledgment and a published change, a
 * cancelled call, and a long answer. */
static void conversation(wire *w)
{
    static const char *const lines[] = {
        INIT,
        INITIALIZED,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"logs\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"subscriptions/listen\",\"params\":"
        "{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{" ENV "}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"wait\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"add\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"big\","
        "\"_meta\":{" ENV "}}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5}}",
        /* A tool asking: its sampling request written, then (its call
         * cancelled) that request's cancel. */
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"asks\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\",\"params\":{\"uri\":\"note://1\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/templates/list\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"resources/read\",\"params\":{\"uri\":\"x:1\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":8}}",
        "not json",
    };
    /* The server may end the connection early (a failed send, the output
     * cap): the rest then goes nowhere. */
    for (size_t i = 0; i < sizeof lines / sizeof lines[0] && wire_try_send(w, lines[i]); i++)
        ;
}

static void every_failing_send_ends_the_connection_cleanly(void **state)
{
    /* For each n, the nth send of the server fails: the connection ends,
     * its calls are cancelled, every handler that ran ends, the run
     * returns, nothing leaks (valgrind, ASan). */
    int n = 1;
    for (;; n++) {
        serving sv;
        serve(&sv, 1, n, 0);
        conversation(&sv.w[0]);
        char *l;
        while ((l = wire_read(&sv.w[0], 300)))
            free(l);
        shutdown(sv.w[0].fd, SHUT_WR);
        atomic_store(&release, 1);
        pthread_join(sv.thread, NULL);
        assert_int_equal(sv.rc, MCP_OK);
        assert_int_equal(atomic_load(&running), atomic_load(&ended));
        close(sv.w[0].fd);
        close(sv.server_fd[0]);
        bool fired = sv.faults.fired;
        mcp_server_free(sv.server);
        if (!fired)
            break; /* the conversation made fewer than n sends */
    }
    assert_true(n > 8);
    print_message("%d conversations, each with one of its sends failing\n", n - 1);
}

static void a_tiny_output_cap_drops_the_client_not_the_server(void **state)
{
    serving sv;
    serve(&sv, 2, 0, 64);
    /* Both clients send, neither reads: every reply passes the cap. */
    conversation(&sv.w[0]);
    conversation(&sv.w[1]);
    atomic_store(&release, 1);
    shutdown(sv.w[0].fd, SHUT_WR);
    shutdown(sv.w[1].fd, SHUT_WR);
    pthread_join(sv.thread, NULL);
    assert_int_equal(sv.rc, MCP_OK);
    assert_int_equal(atomic_load(&running), atomic_load(&ended));
    for (int i = 0; i < 2; i++) {
        close(sv.w[i].fd);
        close(sv.server_fd[i]);
    }
    mcp_server_free(sv.server);
}

/* The method table: every method reaches its handler, in each revision it
 * exists in; the others are -32601, each with its message. */
static void every_method_reaches_its_handler_and_no_other_does(void **state)
{
    static const struct {
        const char *request; /* after "id":N, */
        const char *answer;  /* in the answer */
    } cases[] = {
        {"\"method\":\"tools/list\"", "\"tools\":[{\"name\":\"wait\""},
        {"\"method\":\"resources/list\"", "\"resources\":[]"},
        {"\"method\":\"resources/templates/list\"", "\"resourceTemplates\":[{"},
        {"\"method\":\"prompts/list\"", "\"prompts\":[]"},
        {"\"method\":\"resources/read\",\"params\":{\"uri\":\"note://1\"}", "\"text\":\"note\""},
        {"\"method\":\"prompts/get\",\"params\":{\"name\":\"p\"}", "unknown prompt \\\"p\\\""},
        {"\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/resource\","
         "\"uri\":\"note://{id}\"},\"argument\":{\"name\":\"id\",\"value\":\"\"}}",
         "\"completion\":{\"values\":[]"},
        {"\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"note://1\"}", "\"result\":{}"},
        {"\"method\":\"resources/unsubscribe\",\"params\":{\"uri\":\"note://1\"}",
         "\"result\":{}"},
        {"\"method\":\"tools/call\",\"params\":{\"name\":\"logs\"}", "logged"},
        {"\"method\":\"tools/cal\"", "\"Method not found: \\\"tools/cal\\\"\""},
        {"\"method\":\"tools/call/\"", "\"Method not found: \\\"tools/call/\\\"\""},
        {"\"method\":\"a\\u0000b\"", "\"Method not found: \\\"a\\\\u0000b\\\"\""},
        {"\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"note://1\",\"_meta\":{" ENV "}}",
         "resources/subscribe is not part of protocol revision 2026-07-28"},
    };
    serving sv;
    serve(&sv, 1, 0, 0);
    wire *w = &sv.w[0];
    wire_send(w, INIT);
    free(wire_expect(w, "\"id\":0"));
    wire_send(w, INITIALIZED);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[600], id[32];
        snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%zu,%s}", i + 1, cases[i].request);
        snprintf(id, sizeof id, "\"id\":%zu,", i + 1);
        wire_send(w, line);
        char *l = wire_expect(w, id);
        if (!strstr(l, cases[i].answer))
            fail_msg("%s\nanswered %s\nnot %s", line, l, cases[i].answer);
        free(l);
    }
    finish(&sv);
    /* A server that offers no resource updates has no resources/subscribe. */
    next_listen_kinds = MCP_LISTEN_TOOLS;
    serve(&sv, 1, 0, 0);
    next_listen_kinds = 0;
    w = &sv.w[0];
    wire_send(w, INIT);
    free(wire_expect(w, "\"id\":0"));
    wire_send(w, INITIALIZED);
    wire_send(w, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/unsubscribe\",\"params\":"
                 "{\"uri\":\"note://1\"}}");
    char *l = wire_expect(w, "\"id\":1");
    assert_non_null(strstr(l, "\"code\":-32601,\"message\":\"Method not found: this server offers "
                              "no resource subscriptions\""));
    free(l);
    finish(&sv);
}

/* A client that stops reading: its replies fill the pipe, then the output
 * cap. It is gone then (server.h: "dropped"): the run ends with the I/O
 * failure reported, without waiting for the bytes stuck in the pipe, and
 * whether or not its input ended. */
typedef struct stuck_run {
    mcp_server *server;
    int in_fd, out_fd;
    int rc;
    atomic_bool done;
} stuck_run;

static void *stuck_serve(void *arg)
{
    stuck_run *r = arg;
    r->rc = mcp_server_serve_fds(r->server, r->in_fd, r->out_fd);
    atomic_store(&r->done, true);
    return NULL;
}

static atomic_bool cap_hit;

static void note_cap(void *ud, const mcp_log_record *r)
{
    if (r->level >= MCP_LOG_ERROR)
        fprintf(stderr, "conns: %s\n", r->message);
    if (strstr(r->message, "over its cap"))
        atomic_store(&cap_hit, true);
}

static void a_client_stuck_at_the_output_cap_is_dropped(void **state)
{
    atomic_store(&cap_hit, false);
    next_log = note_cap;
    mcp_server *s = new_server(32768);
    next_log = NULL;
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    fcntl(out[1], F_SETPIPE_SZ, 4096); /* fills after one reply */
    stuck_run r = {.server = s, .in_fd = in[0], .out_fd = out[1]};
    atomic_init(&r.done, false);
    pthread_t t;
    pthread_create(&t, NULL, stuck_serve, &r);
    wire w = {.fd = in[1]};
    wire_send(&w, INIT);
    wire_send(&w, INITIALIZED);
    /* Six replies of 20 kB against a 32 kB cap, nothing read. */
    for (int i = 1; i <= 6; i++) {
        char line[160];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
                 "{\"name\":\"big_later\"}}",
                 i);
        wire_send(&w, line);
    }
    /* The third reply passes the cap. */
    for (int i = 0; i < 1000 && !atomic_load(&cap_hit); i++)
        usleep(10000);
    close(in[1]); /* its input ends too: it is gone either way */
    for (int i = 0; i < 1000 && !atomic_load(&r.done); i++)
        usleep(10000);
    bool dropped = atomic_load(&r.done);
    if (!dropped)
        mcp_server_stop(s); /* the grace then gives up on it */
    pthread_join(t, NULL);
    assert_true(atomic_load(&cap_hit));
    assert_true(dropped);
    assert_int_equal(r.rc, MCP_ERR_IO);
    close(in[0]);
    close(out[0]);
    close(out[1]);
    mcp_server_free(s);
}

/* Any-thread calls while runs begin and end ------------------------------------ */

static atomic_bool churning;

static void *churn(void *arg)
{
    mcp_server *s = arg;
    mcp_tool t = {.size = sizeof t, .name = "churn", .handler = tool_logs};
    while (atomic_load(&churning)) {
        mcp_server_publish(s, MCP_LISTEN_TOOLS, NULL);
        mcp_server_add_tool(s, &t);
        mcp_server_remove_tool(s, "churn");
        /* Under valgrind, which runs one thread at a time, a loop that
         * never blocks takes a whole time slice at each of the run's
         * hand-offs (eight workers started and joined per run). */
        sched_yield();
    }
    return NULL;
}

static void any_thread_calls_are_safe_while_runs_begin_and_end(void **state)
{
    /* The loop (and what posts to it) is made and torn down by every run;
     * publishing and tool changes from another thread meanwhile must find
     * either a run to post to or none (TSan, valgrind). */
    mcp_server *s = new_server(0);
    atomic_store(&churning, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, churn, s), 0);
    for (int i = 0; i < 50; i++) {
        int fds[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
        wire w = {.fd = fds[0]};
        wire_send(&w, INIT);
        shutdown(fds[0], SHUT_WR);
        assert_int_equal(mcp_server_serve_fds(s, fds[1], fds[1]), MCP_OK);
        char *l = wire_read(&w, 1000);
        assert_non_null(l);
        assert_non_null(strstr(l, "\"id\":0"));
        free(l);
        close(fds[0]);
        close(fds[1]);
    }
    atomic_store(&churning, false);
    pthread_join(t, NULL);
    /* A stop asked between runs holds for the next one. */
    mcp_server_stop(s);
    int fds[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    assert_int_equal(mcp_server_serve_fds(s, fds[1], fds[1]), MCP_OK); /* returns at once */
    close(fds[0]);
    close(fds[1]);
    mcp_server_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_registry_serves_two_clients_at_once),
        cmocka_unit_test(capability_needs_and_log_messages_follow_the_era),
        cmocka_unit_test(stop_ends_subscriptions_gracefully_and_returns),
        cmocka_unit_test(every_failing_send_ends_the_connection_cleanly),
        cmocka_unit_test(a_tiny_output_cap_drops_the_client_not_the_server),
        cmocka_unit_test(a_client_stuck_at_the_output_cap_is_dropped),
        cmocka_unit_test(every_method_reaches_its_handler_and_no_other_does),
        cmocka_unit_test(any_thread_calls_are_safe_while_runs_begin_and_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
