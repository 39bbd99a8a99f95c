/* SPDX-License-Identifier: MIT */
/*
 * The gateway (mcp_server_options.upstream_argv; src/server/gateway),
 * served over a socketpair, its child tests/integration/gateway_child.py:
 * a 2025 session's own child, initialized with the session's revision,
 * answering; a cancel reaching the child with the child's id and the
 * client's reason, and no answer after it; a child that dies answering at
 * once with its status; 2026-07-28 requests sharing one child, their
 * answers in that revision's shape (resultType, caching hints); a 2025
 * child's question asked of the client and its answer carried back; a
 * command that cannot start; the session's end ending its child; every
 * send of the client's side failing in turn, each run returning and
 * freeing all (ASan, valgrind) with no child left.
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
#include <sys/socket.h>
#include <unistd.h>

#include "fault_serve.h"
#include "serve_harness.h"

static char child_log[64];

static unsigned max_children;
static uint64_t state_ttl_ms;
/* The server's capabilities, as the proxy's probe would find them. */
static const char *server_caps = "{\"tools\":{}}";

/* The gateway's own log, when a test keeps it (log_kept): the records of
 * "gateway:" with their levels. */
static bool log_kept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static char kept[8192];
static mcp_log_level kept_level[64];
static size_t kept_n;

static void keep_log(void *ud, const mcp_log_record *r)
{
    (void)ud;
    if (strncmp(r->message, "gateway:", 8) != 0)
        return;
    pthread_mutex_lock(&kept_lock);
    size_t used = strlen(kept);
    if (kept_n < 64 && used + strlen(r->message) + 2 < sizeof kept) {
        kept_level[kept_n++] = r->level;
        snprintf(kept + used, sizeof kept - used, "%s\n", r->message);
    }
    pthread_mutex_unlock(&kept_lock);
}

static mcp_server *gateway(const char *const *argv)
{
    mcp_json_doc *caps;
    assert_int_equal(mcp_json_parse(server_caps, strlen(server_caps), NULL, NULL, &caps, NULL),
                     MCP_OK);
    mcp_server_options o = {.size = sizeof o, .log_level = MCP_LOG_ERROR,
                            .shutdown_grace_ms = 500, .capabilities = mcp_json_doc_root(caps),
                            .upstream_argv = argv, .upstream_max_children = max_children,
                            .request_state_ttl_ms = state_ttl_ms};
    if (log_kept) {
        o.log = keep_log;
        o.log_level = MCP_LOG_DEBUG;
    }
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    mcp_json_doc_free(caps); /* copied */
    return s;
}

static mcp_server *child_gateway(const char *mode)
{
    const char *argv[] = {"python3", GATEWAY_CHILD, child_log, mode, NULL};
    return gateway(argv);
}

/* The child's log, whole (caller frees), or "" before it has one. */
static char *log_text(void)
{
    FILE *f = fopen(child_log, "r");
    char *t = calloc(1, 65536);
    assert_non_null(t);
    if (f) {
        size_t n = fread(t, 1, 65535, f);
        t[n] = '\0';
        fclose(f);
    }
    return t;
}

static int log_count(const char *needle)
{
    char *t = log_text();
    int n = 0;
    for (const char *p = strstr(t, needle); p; p = strstr(p + 1, needle))
        n++;
    free(t);
    return n;
}

/* Until the child's log has n lines with needle (10 s at most). */
static void wait_log(const char *needle, int n)
{
    for (int i = 0; i < 1000 && log_count(needle) < n; i++)
        usleep(10000);
    if (log_count(needle) < n) {
        char *t = log_text();
        fail_msg("no %d x '%s' in the child's log:\n%s", n, needle, t);
    }
}

/* The id the child's last "call NAME ID" line gives (its own request id). */
static long last_call_id(const char *name)
{
    char *t = log_text();
    char needle[40];
    snprintf(needle, sizeof needle, "call %s ", name);
    long id = -1;
    for (const char *p = strstr(t, needle); p; p = strstr(p + 1, needle))
        id = strtol(p + strlen(needle), NULL, 10);
    free(t);
    return id;
}

static int setup(void **state)
{
    (void)state;
    snprintf(child_log, sizeof child_log, "/tmp/mcp-test-gateway-XXXXXX");
    int fd = mkstemp(child_log);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(child_log); /* the child's first start makes it */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(child_log);
    return 0;
}

/* Every child that started has ended (10 s at most). */
static void wait_children_gone(void)
{
    char *t = log_text();
    for (const char *p = strstr(t, "start "); p; p = strstr(p + 1, "start ")) {
        pid_t pid = (pid_t)strtol(p + 6, NULL, 10);
        int i = 0;
        while (kill(pid, 0) == 0 && i++ < 1000)
            usleep(10000);
        if (kill(pid, 0) == 0)
            fail_msg("child %d outlived its end", (int)pid);
    }
    free(t);
}

static void a_2025_session_gets_its_own_child(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), "2025-06-18", NULL, NULL);
    harness_expect_in(harness_req(&h, 1, "tools/list", ""), "\"hang\"");
    harness_expect_in(harness_req(&h, 2, "tools/call", "\"name\":\"echo\",\"arguments\":"
                                                      "{\"text\":\"through\"}"),
                      "\"text\":\"through\"");
    /* Spoken to in the session's own revision. */
    assert_int_equal(log_count("initialize 2025-06-18"), 1);
    assert_int_equal(log_count("start "), 1);
    harness_stop(&h);
    wait_log("stdin closed", 1); /* ended by its input, with the session */
    wait_children_gone();
}

static void a_cancel_reaches_the_child_with_its_id(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), "2025-11-25", NULL, NULL);
    harness_send_req(&h, 41, "tools/call", "\"name\":\"hang\",\"arguments\":{}");
    wait_log("call hang", 1);
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                    "{\"requestId\":41,\"reason\":\"changed my mind\"}}");
    char want[80];
    snprintf(want, sizeof want, "cancelled %ld changed my mind", last_call_id("hang"));
    wait_log(want, 1);
    assert_int_not_equal(last_call_id("hang"), 41); /* the child's id, not the client's */
    /* Nothing answers the cancelled request; the session goes on. */
    harness_expect_in(harness_req(&h, 42, "tools/call", "\"name\":\"echo\",\"arguments\":"
                                                       "{\"text\":\"after\"}"),
                      "after");
    char *stray = wire_read(&h.w, 200);
    assert_true(!stray || !strstr(stray, "\"id\":41"));
    free(stray);
    harness_stop(&h);
    wait_children_gone();
}

static void a_dead_child_answers_at_once(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), "2025-11-25", NULL, NULL);
    harness_send_req(&h, 1, "tools/call", "\"name\":\"hang\",\"arguments\":{}");
    wait_log("call hang", 1);
    uint64_t t0 = mcp_monotonic_ms();
    harness_send_req(&h, 2, "tools/call", "\"name\":\"die\",\"arguments\":{}");
    /* Both answered, in either order: the call that died, and the one it
     * held, not left waiting. */
    for (int answered = 0; answered != 3;) {
        char *a = wire_expect(&h.w, "\"error\"");
        assert_non_null(strstr(a, "-32603"));
        assert_non_null(strstr(a, "exited with status 7"));
        answered |= strstr(a, "\"id\":1,") ? 1 : strstr(a, "\"id\":2,") ? 2 : 0;
        free(a);
    }
    assert_true(mcp_monotonic_ms() - t0 < 3000);
    /* Over stdio the conversation is the session, which no client can
     * initialize again: the child's end is said to each request (over
     * HTTP the session ends, integration_proxy_http). */
    harness_expect_in(harness_req(&h, 3, "tools/list", ""), "exited with status 7");
    harness_stop(&h);
    wait_children_gone();
}

static void modern_requests_share_a_child(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    char *list = harness_req(&h, 1, "tools/list", "");
    assert_non_null(strstr(list, "\"resultType\":\"complete\""));
    assert_non_null(strstr(list, "\"ttlMs\":0"));
    assert_non_null(strstr(list, "\"cacheScope\":\"public\""));
    free(list);
    harness_expect_in(harness_req(&h, 2, "tools/call", "\"name\":\"echo\",\"arguments\":"
                                                      "{\"text\":\"one\"}"),
                      "one");
    harness_expect_in(harness_req(&h, 3, "tools/call", "\"name\":\"echo\",\"arguments\":"
                                                      "{\"text\":\"two\"}"),
                      "two");
    assert_int_equal(log_count("start "), 1);
    /* A 2026 request's envelope does not reach the 2025 child. */
    char *t = log_text();
    assert_null(strstr(t, "io.modelcontextprotocol"));
    free(t);
    /* Killed, it is replaced for the next request. */
    harness_expect_in(harness_req(&h, 4, "tools/call", "\"name\":\"killed\",\"arguments\":{}"),
                      "killed by signal 9");
    harness_expect_in(harness_req(&h, 5, "tools/call", "\"name\":\"echo\",\"arguments\":"
                                                      "{\"text\":\"three\"}"),
                      "three");
    assert_int_equal(log_count("start "), 2);
    harness_stop(&h);
    wait_children_gone();
}

static void a_2025_childs_question_is_asked_of_the_client(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), "2025-11-25", "{\"elicitation\":{}}", NULL);
    harness_send_req(&h, 7, "tools/call", "\"name\":\"ask\",\"arguments\":{}");
    char *q;
    long long qid = harness_server_request(&h, "elicitation/create", &q);
    assert_non_null(strstr(q, "Who?"));
    free(q);
    char answer[200];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"accept\","
             "\"content\":{\"name\":\"Ada\"}}}",
             qid);
    wire_send(&h.w, answer);
    harness_expect_in(wire_expect(&h.w, "\"id\":7,"), "answer: accept");
    harness_stop(&h);
    wait_children_gone();
}

/* The 2026-07-28 envelope of a client that declared elicitation. */
#define HARNESS_ENV_ASKING                                                                     \
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                                 \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}"

/* A 2026-07-28 tools/call of "ask" (arguments: args, JSON text; extra:
 * more params, each after a comma) from a client that declared
 * elicitation: its answer (caller frees). */
static void send_asking_call(harness *h, int id, const char *tool, const char *args,
                             const char *extra)
{
    char line[4096];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"%s\",\"arguments\":%s%s,\"_meta\":{" HARNESS_ENV_ASKING "}}}",
             id, tool, args, extra);
    wire_send(&h->w, line);
}

static char *asking_call(harness *h, int id, const char *args, const char *extra)
{
    send_asking_call(h, id, "ask", args, extra);
    char want[32];
    snprintf(want, sizeof want, "\"id\":%d,", id);
    return wire_expect(&h->w, want);
}

/* Request id of method with params (members, without braces) and the
 * envelope env: its answer (caller frees). */
static char *req_env(harness *h, int id, const char *method, const char *params, const char *env)
{
    char line[4096], want[32];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s%s\"_meta\":{%s}}}", id,
             method, params, *params ? "," : "", env);
    wire_send(&h->w, line);
    snprintf(want, sizeof want, "\"id\":%d,", id);
    return wire_expect(&h->w, want);
}

static const char ADA[] = "\"inputResponses\":{\"q1\":{\"action\":\"accept\",\"content\":"
                          "{\"name\":\"Ada\"}}}";

/* A 2026-07-28 client cannot be asked by the child: the call is held
 * across rounds. The child's question ends the request as input_required
 * under the gateway's key, and the retry's answer reaches the child's
 * call, which was not run again. The state is checked (altered, another
 * request's, replayed after the call moved on: -32602), an unanswered
 * question is asked again, and the asking child serves the next call of
 * the same capabilities; a client that declared nothing goes to the
 * shared child. */
static void a_2026_childs_question_crosses_in_rounds(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    char *a = asking_call(&h, 1, "{}", "");
    assert_non_null(strstr(a, "\"resultType\":\"input_required\""));
    assert_non_null(strstr(a, "\"q1\":{\"method\":\"elicitation/create\""));
    assert_non_null(strstr(a, "Who?"));
    char *st = harness_request_state(a);
    free(a);
    char extra[2048];
    /* Unanswered: asked again, under the same key. */
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",\"inputResponses\":{}", st);
    a = asking_call(&h, 2, "{}", extra);
    assert_non_null(strstr(a, "\"q1\":{\"method\":\"elicitation/create\""));
    char *first = st;
    st = harness_request_state(a);
    free(a);
    /* The first round's state names a round that is over. */
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",%s", first, ADA);
    harness_expect_in(asking_call(&h, 20, "{}", extra), "an earlier round");
    free(first);
    /* Altered, and for other arguments: refused, the call still held. */
    char *bad = strdup(st);
    bad[3] = bad[3] == 'A' ? 'B' : 'A';
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",%s", bad, ADA);
    harness_expect_in(asking_call(&h, 3, "{}", extra), "integrity");
    free(bad);
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",%s", st, ADA);
    harness_expect_in(asking_call(&h, 4, "{\"x\":1}", extra), "belongs to another request");
    a = asking_call(&h, 5, "{}", extra);
    assert_non_null(strstr(a, "answer: accept"));
    assert_non_null(strstr(a, "\"resultType\":\"complete\""));
    free(a);
    assert_int_equal(log_count("call ask"), 1);
    harness_expect_in(asking_call(&h, 6, "{}", extra), "no longer held");
    free(st);
    /* The same capabilities: the same child. */
    harness_expect_in(asking_call(&h, 7, "{}", ""), "input_required");
    assert_int_equal(log_count("start "), 1);
    harness_expect_in(harness_req(&h, 8, "tools/call", "\"name\":\"echo\",\"arguments\":"
                                                      "{\"text\":\"plain\"}"),
                      "plain");
    assert_int_equal(log_count("start "), 2);
    harness_stop(&h);
    wait_children_gone();
}

/* The log message of the call in flight, read until the call's answer:
 * whether each of the two the child logs was heard (as a log message, at
 * its level). */
static void heard_logs(harness *h, int id, bool *quiet, bool *loud)
{
    char want[16];
    snprintf(want, sizeof want, "\"id\":%d,", id);
    *quiet = *loud = false;
    for (;;) {
        char *l = wire_read(&h->w, 10000);
        if (!l)
            fail_msg("no answer to %d", id);
        bool answer = strstr(l, want) != NULL;
        if (strstr(l, "quiet detail"))
            *quiet = strstr(l, "notifications/message") && strstr(l, "\"level\":\"debug\"");
        if (strstr(l, "loud trouble"))
            *loud = strstr(l, "notifications/message") && strstr(l, "\"level\":\"error\"");
        if (answer)
            assert_non_null(strstr(l, "logged"));
        free(l);
        if (answer)
            return;
    }
}

/* The client cancels a round whose call runs on: the call is cancelled
 * on the child, with the client's reason, and the child is not reused
 * (it may still ask for that call); the next call is served. A
 * call the child answers between rounds gives the retry that answer; the
 * child's logs reach the round's request. */
static void a_cancelled_round_cancels_the_childs_call(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    send_asking_call(&h, 1, "ask-hang", "{}", "");
    char *a = wire_expect(&h.w, "\"id\":1,");
    char *st = harness_request_state(a);
    free(a);
    char extra[2048];
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",%s", st, ADA);
    free(st);
    send_asking_call(&h, 2, "ask-hang", "{}", extra);
    wait_log("answered", 1);
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                    "{\"requestId\":2,\"reason\":\"changed my mind\"}}");
    wait_log("changed my mind", 1);
    /* That child may still run the call and ask for it: closed, not
     * given to the next call. */
    harness_expect_in(asking_call(&h, 3, "{}", ""), "input_required");
    assert_int_equal(log_count("start "), 2);
    /* The child answers its call between rounds, its question open: the
     * retry gets that answer, whatever it brings. */
    send_asking_call(&h, 4, "ask-go", "{}", "");
    a = wire_expect(&h.w, "\"id\":4,");
    assert_non_null(strstr(a, "input_required"));
    st = harness_request_state(a);
    free(a);
    wait_log("answered", 2); /* our error to its question, once it answered */
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",%s", st, ADA);
    free(st);
    send_asking_call(&h, 5, "ask-go", "{}", extra);
    harness_expect_in(wire_expect(&h.w, "\"id\":5,"), "went on");
    /* The retry's answer cannot be written (the child closed its input,
     * running on): the retry is answered with the child's end, once. */
    send_asking_call(&h, 7, "ask-deaf", "{}", "");
    a = wire_expect(&h.w, "\"id\":7,");
    st = harness_request_state(a);
    free(a);
    wait_log("deaf", 1);
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",%s", st, ADA);
    free(st);
    send_asking_call(&h, 8, "ask-deaf", "{}", extra);
    harness_expect_in(wire_expect(&h.w, "\"id\":8,"), "Internal error");
    /* Its logs during a round go to the round's request, at the level
     * its envelope asked. */
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{"
                    "\"name\":\"log\",\"arguments\":{},\"_meta\":{" HARNESS_ENV_ASKING ","
                    "\"io.modelcontextprotocol/logLevel\":\"error\"}}}");
    bool quiet, loud;
    heard_logs(&h, 6, &quiet, &loud);
    assert_false(quiet);
    assert_true(loud);
    harness_stop(&h);
    wait_children_gone();
}

/* No retry within the state's time: the call is cancelled on the child,
 * and the state is refused after. */
static void a_held_call_ends_when_no_retry_comes(void **state)
{
    (void)state;
    state_ttl_ms = 300;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    char *a = asking_call(&h, 1, "{}", "");
    char *st = harness_request_state(a);
    free(a);
    wait_log("did not continue the call in time", 1);
    char extra[2048];
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",%s", st, ADA);
    harness_expect_in(asking_call(&h, 2, "{}", extra), "-32602");
    free(st);
    harness_stop(&h);
    state_ttl_ms = 0;
    wait_children_gone();
}

/* Every child taken by calls held for their clients' retries: a call
 * that has waited past a quarter of the state's time gives its child up
 * when another call finds none (cancelled on it, the child closed), and
 * that call's next try is served; one that has not waited so long keeps
 * it. */
static void a_long_held_call_gives_its_child_up_under_pressure(void **state)
{
    (void)state;
    state_ttl_ms = 4000;
    max_children = 1;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    char *a = asking_call(&h, 1, "{}", "");
    char *st = harness_request_state(a);
    free(a);
    /* At once: the held call keeps its child. */
    harness_expect_in(asking_call(&h, 2, "{\"y\":1}", ""), "too many server processes");
    assert_int_equal(log_count("cancelled "), 0);
    usleep(1200 * 1000);
    harness_expect_in(asking_call(&h, 3, "{\"y\":1}", ""), "too many server processes");
    wait_log("its server process was wanted by another call", 1);
    char *got = NULL;
    for (int i = 0; i < 100; i++) { /* until the child has exited */
        free(got);
        got = asking_call(&h, 4 + i, "{\"y\":1}", "");
        if (strstr(got, "input_required"))
            break;
        usleep(50000);
    }
    harness_expect_in(got, "input_required");
    char extra[2048];
    snprintf(extra, sizeof extra, ",\"requestState\":\"%s\",%s", st, ADA);
    harness_expect_in(asking_call(&h, 200, "{}", extra), "no longer held");
    free(st);
    harness_stop(&h);
    state_ttl_ms = 0;
    max_children = 0;
    wait_children_gone();
}

/* The answer of call id (a tools/call of tool with args by env) once it
 * is not refused for want of a child (5 s at most; ids from *id on): a
 * refusal closes an idle child, which takes a moment to exit. */
static char *call_until_served(harness *h, int *id, const char *tool, const char *args,
                               const char *env)
{
    char params[512];
    snprintf(params, sizeof params, "\"name\":\"%s\",\"arguments\":%s", tool, args);
    for (int i = 0; i < 100; i++) {
        char *a = req_env(h, (*id)++, "tools/call", params, env);
        if (!strstr(a, "too many server processes"))
            return a;
        free(a);
        usleep(50000);
    }
    fail_msg("%s was refused for 5 s", tool);
    return NULL;
}

/* One child allowed: an asking call finds the idle shared child in its
 * way and has it closed (its first try refused), and a plain call then
 * has the idle asking child closed: neither kind locks the other out. */
static void the_bound_makes_room_for_the_other_kind(void **state)
{
    (void)state;
    max_children = 1;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    int id = 1;
    harness_expect_in(req_env(&h, id++, "tools/call",
                              "\"name\":\"echo\",\"arguments\":{\"text\":\"plain\"}",
                              HARNESS_ENV),
                      "plain");
    harness_expect_in(call_until_served(&h, &id, "echo", "{\"text\":\"asking\"}",
                                        HARNESS_ENV_ASKING),
                      "asking");
    harness_expect_in(call_until_served(&h, &id, "echo", "{\"text\":\"plain again\"}",
                                        HARNESS_ENV),
                      "plain again");
    assert_int_equal(log_count("start "), 3);
    harness_stop(&h);
    max_children = 0;
    wait_children_gone();
}

/* The session ends (here its input; a stop takes the same path) while
 * the child's question waits for the client: withdrawn through the
 * client's session, freed once (this crashed the proxy on SIGTERM). */
static void a_session_ending_with_a_question_open(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), "2025-11-25", "{\"elicitation\":{}}", NULL);
    harness_send_req(&h, 7, "tools/call", "\"name\":\"ask\",\"arguments\":{}");
    free(wire_expect(&h.w, "elicitation/create"));
    harness_stop(&h);
    wait_log("stdin closed", 1);
    wait_children_gone();
}


/* logging/setLevel is the session's (the engine answers it): the child's
 * log messages below it do not reach the client. */
static void a_2025_childs_logs_keep_the_clients_level(void **state)
{
    (void)state;
    server_caps = "{\"tools\":{},\"logging\":{}}";
    harness h;
    harness_start(&h, child_gateway(NULL), "2025-11-25", NULL, NULL);
    server_caps = "{\"tools\":{}}";
    bool quiet, loud;
    harness_send_req(&h, 1, "tools/call", "\"name\":\"log\",\"arguments\":{}");
    heard_logs(&h, 1, &quiet, &loud);
    assert_true(quiet && loud); /* no level set: all of them */
    harness_expect_in(harness_req(&h, 2, "logging/setLevel", "\"level\":\"error\""),
                      "\"result\"");
    harness_send_req(&h, 3, "tools/call", "\"name\":\"log\",\"arguments\":{}");
    heard_logs(&h, 3, &quiet, &loud);
    assert_false(quiet);
    assert_true(loud);
    harness_stop(&h);
    wait_children_gone();
}

/* The shared child's log messages have no client to go to: they are the
 * gateway's log's, at their level; the request hears none. */
static void the_shared_childs_logs_go_to_the_gateways_log(void **state)
{
    (void)state;
    log_kept = true;
    kept[0] = '\0';
    kept_n = 0;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    log_kept = false;
    harness_send_req(&h, 1, "tools/call", "\"name\":\"log\",\"arguments\":{}");
    for (char *l; (l = wire_read(&h.w, 10000));) {
        if (strstr(l, "trouble") || strstr(l, "detail"))
            fail_msg("the shared child's log reached a request: %s", l);
        bool answer = strstr(l, "\"id\":1,") != NULL;
        if (answer)
            assert_non_null(strstr(l, "logged"));
        free(l);
        if (answer)
            break;
    }
    harness_stop(&h);
    pthread_mutex_lock(&kept_lock);
    const char *loud = strstr(kept, "loud trouble");
    const char *quiet = strstr(kept, "quiet detail");
    bool loud_at_error = false, quiet_at_debug = false;
    size_t line = 0;
    for (const char *p = kept; *p; p = strchr(p, '\n') + 1, line++) {
        const char *end = strchr(p, '\n');
        loud_at_error |= loud >= p && loud < end && kept_level[line] == MCP_LOG_ERROR;
        quiet_at_debug |= quiet >= p && quiet < end && kept_level[line] == MCP_LOG_DEBUG;
    }
    pthread_mutex_unlock(&kept_lock);
    if (!loud_at_error || !quiet_at_debug)
        fail_msg("the child's logs, at their levels, not in the gateway's log:\n%s", kept);
    assert_non_null(strstr(kept, "as \"child\""));
    wait_children_gone();
}

/* What a 2025 client tells its session reaches the session's child. */
static void a_2025_clients_roots_change_reaches_its_child(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), "2025-11-25", "{\"roots\":{\"listChanged\":true}}",
                  NULL);
    harness_expect_in(harness_req(&h, 1, "tools/list", ""), "\"log\"");
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
    wait_log("roots changed", 1);
    harness_stop(&h);
    wait_children_gone();
}

/* Lines of the child's log that begin with text (never inside another:
 * "subscribe X" is not counted in "unsubscribe X"). */
static int log_lines(const char *text)
{
    char needle[200];
    snprintf(needle, sizeof needle, "\n%s\n", text);
    return log_count(needle);
}

static void wait_log_lines(const char *text, int n)
{
    for (int i = 0; i < 1000 && log_lines(text) < n; i++)
        usleep(10000);
    if (log_lines(text) != n) {
        char *t = log_text();
        fail_msg("not %d x '%s' in the child's log:\n%s", n, text, t);
    }
}

/* 2026-07-28 listens of a resource: the shared child is subscribed to it
 * while any listen names it (once, however many do), its updates reach
 * the listen, and the last listen's end unsubscribes. */
static void a_listens_resources_are_subscribed_on_the_shared_child(void **state)
{
    (void)state;
    server_caps = "{\"tools\":{},\"resources\":{\"subscribe\":true}}";
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    server_caps = "{\"tools\":{}}";
    static const char filter[] = "\"notifications\":{\"resourceSubscriptions\":[\"test://a\"]}";
    harness_send_req(&h, 1, "subscriptions/listen", filter);
    free(wire_expect(&h.w, "notifications/subscriptions/acknowledged"));
    wait_log_lines("subscribe test://a", 1); /* a listen alone starts the child */
    harness_send_req(&h, 2, "subscriptions/listen", filter);
    free(wire_expect(&h.w, "notifications/subscriptions/acknowledged"));
    harness_send_req(&h, 3, "tools/call", "\"name\":\"touch\",\"arguments\":{\"uri\":\"test://a\"}");
    int updates = 0;
    bool answered = false;
    while (!answered || updates < 2) {
        char *l = wire_read(&h.w, 10000);
        if (!l)
            fail_msg("%d updates, answered %d", updates, answered);
        if (strstr(l, "\"id\":3,")) {
            assert_non_null(strstr(l, "touched"));
            answered = true;
        } else if (strstr(l, "notifications/resources/updated")) {
            assert_non_null(strstr(l, "test://a"));
            assert_non_null(strstr(l, "subscriptionId"));
            updates++; /* one per listen */
        }
        free(l);
    }
    assert_int_equal(log_lines("subscribe test://a"), 1);
    /* One listen ends: the other still wants the updates. */
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                    "{\"requestId\":1}}");
    harness_expect_in(harness_req(&h, 4, "tools/call", "\"name\":\"touch\",\"arguments\":"
                                                      "{\"uri\":\"test://a\"}"),
                      "touched");
    assert_int_equal(log_lines("unsubscribe test://a"), 0);
    /* The last one ends: no more. */
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                    "{\"requestId\":2}}");
    wait_log_lines("unsubscribe test://a", 1);
    harness_expect_in(harness_req(&h, 5, "tools/call", "\"name\":\"touch\",\"arguments\":"
                                                      "{\"uri\":\"test://a\"}"),
                      "not subscribed");
    assert_int_equal(log_count("start "), 1);
    harness_stop(&h);
    wait_children_gone();
}

/* Past upstream_max_children a request is refused, and nothing is kept of
 * the refusal: once a child has ended, the next request is served. Here
 * one connection sends 2026-07-28 requests (the shared child's, the one
 * allowed) and holds a 2025 session, whose child must wait for a slot:
 * its refusal closes the idle shared child, the next 2026 call's new
 * shared child dies, and then the session is served. */
static void the_bound_refuses_and_recovers(void **state)
{
    (void)state;
    max_children = 1;
    harness h;
    harness_start(&h, child_gateway(NULL), "2025-11-25", NULL, NULL);
    static const char modern[] =
        "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/%s\",\"params\":{%s\"_meta\":{"
        HARNESS_ENV "}}}";
    char line[400];
    snprintf(line, sizeof line, modern, 1, "list", "");
    wire_send(&h.w, line);
    harness_expect_in(wire_expect(&h.w, "\"id\":1,"), "\"hang\"");
    /* Refused, and the idle shared child closed to make room. */
    harness_expect_in(harness_req(&h, 2, "tools/list", ""), "too many server processes: 1 run");
    int id = 300;
    harness_expect_in(call_until_served(&h, &id, "die", "{}", HARNESS_ENV),
                      "exited with status 7");
    for (int i = 0; i < 200 && log_count("start ") < 3; i++) {
        char *a = harness_req(&h, 4 + i, "tools/list", "");
        bool served = strstr(a, "\"hang\"") != NULL;
        bool refused = strstr(a, "too many server processes") != NULL;
        free(a);
        assert_true(served || refused); /* refused until the dead child is reaped */
        if (served)
            break;
        usleep(20000);
    }
    assert_int_equal(log_count("start "), 3);
    harness_stop(&h);
    max_children = 0;
    wait_children_gone();
}

/* A child that asks before its initialize is answered, then refuses
 * initialize in words that, cut, would not be UTF-8: the call gets the
 * refusal, the question is withdrawn through the client's session (a
 * cancel the session refused had left it freed there), and an answer
 * that comes late finds nothing. */
static void a_child_that_refuses_initialize(void **state)
{
    (void)state;
    const char *argv[] = {"python3", GATEWAY_CHILD, child_log, "refuse-init", NULL};
    mcp_server *s = gateway(argv);
    harness h;
    harness_start(&h, s, "2025-11-25", "{\"roots\":{}}", NULL);
    harness_send_req(&h, 1, "tools/list", "");
    char *q;
    long long qid = harness_server_request(&h, "roots/list", &q);
    free(q);
    harness_expect_in(wire_expect(&h.w, "\"id\":1,"), "did not initialize");
    char late[120];
    snprintf(late, sizeof late, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"roots\":[]}}", qid);
    wire_send(&h.w, late);
    harness_expect_in(harness_req(&h, 2, "tools/list", ""), "refused initialize");
    harness_stop(&h);
    wait_children_gone();
}

/* A stop, then another run of the same server: served again (the
 * gateway's stopping is the run's, not the server's). */
static void a_run_after_a_stop(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    harness_expect_in(harness_req(&h, 1, "tools/list", ""), "\"hang\"");
    mcp_server *s = h.server;
    mcp_server_stop(s);
    pthread_join(h.thread, NULL);
    close(h.w.fd);
    close(h.server_fd);
    harness again;
    harness_start(&again, s, NULL, NULL, NULL);
    harness_expect_in(harness_req(&again, 2, "tools/list", ""), "\"hang\"");
    harness_stop(&again);
    wait_children_gone();
}

static void a_command_that_cannot_start(void **state)
{
    (void)state;
    const char *argv[] = {"/nonexistent/mcp-server", NULL};
    harness h;
    harness_start(&h, gateway(argv), "2025-11-25", NULL, NULL);
    harness_expect_in(harness_req(&h, 1, "tools/list", ""), "could not start");
    harness_stop(&h);
    harness_start(&h, gateway(argv), NULL, NULL, NULL);
    harness_expect_in(harness_req(&h, 1, "tools/list", ""), "could not start");
    harness_expect_in(harness_req(&h, 2, "tools/list", ""), "could not start");
    harness_stop(&h);
}

static void options_are_checked(void **state)
{
    (void)state;
    const char *empty[] = {NULL};
    mcp_server_options o = {.size = sizeof o, .upstream_argv = empty};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_ERR_INVALID_ARG);
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse("[]", 2, NULL, NULL, &d, NULL), MCP_OK);
    mcp_server_options c = {.size = sizeof c, .capabilities = mcp_json_doc_root(d)};
    assert_int_equal(mcp_server_new(&c, &s), MCP_ERR_INVALID_ARG);
    mcp_json_doc_free(d);
}

/* Write failures ---------------------------------------------------------------------- */

/* A 2025 session's life through the gateway (initialize, echo, a hang
 * cancelled, a question answered) with the nth send to the client
 * failing, for n = 1, 2, ... until a run fails none: each run returns,
 * its memory is freed and its child ends. */
/* The question in got, answered: a 2025 one with a decline, a 2026-07-28
 * input_required by the retry with its state (whose answer is read). */
static void answer_question(wire *w, const char *got)
{
    char line[2048];
    if (strstr(got, "elicitation/create") && !strstr(got, "input_required")) {
        const char *id = strstr(got, "\"id\":");
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{\"action\":\"decline\"}}",
                 id ? strtol(id + 5, NULL, 10) : 0);
    } else if (strstr(got, "\"requestState\":\"")) {
        char *st = harness_request_state(got);
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"ask\",\"arguments\":{},\"requestState\":\"%s\",%s,\"_meta\":{"
                 HARNESS_ENV_ASKING "}}}",
                 st, ADA);
        free(st);
    } else {
        return;
    }
    if (wire_try_send(w, line))
        free(wire_read(w, 1500));
}

/* script (n lines, each given wait_ms[i] for its answer) sent to the
 * gateway with the first, second, ... send of the client's side failing,
 * until a run in which none fails: each run returns, freeing all, with
 * no child left. */
static void every_send_failing(const char *const *script, const int *wait_ms, size_t n)
{
    for (int at = 1; at < 30; at++) {
        unlink(child_log);
        fault_serve f;
        fault_serve_start(&f, child_gateway(NULL), at);
        bool gone = false;
        for (size_t i = 0; i < n && !gone; i++) {
            gone = !wire_try_send(&f.w, script[i]);
            char *got = gone ? NULL : wire_read(&f.w, wait_ms[i]);
            if (got)
                answer_question(&f.w, got);
            free(got);
        }
        fault_serve_stop(&f);
        assert_true(f.rc == MCP_OK || f.rc == MCP_ERR_IO);
        fault_serve_free(&f);
        harness_wait_abandoned();
        wait_children_gone();
        if (!f.faults.fired) {
            printf("every send failing: %d runs, the last failing none\n", at);
            assert_true(at > 2); /* the script's answers are sends of their own */
            return;
        }
    }
    fail_msg("a run with no send failing never came");
}

static void every_send_to_the_client_failing(void **state)
{
    (void)state;
    static const char *const script[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
        "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"echo\",\"arguments\":{\"text\":\"x\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"hang\",\"arguments\":{},\"_meta\":{\"progressToken\":9}}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
        "{\"requestId\":2}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"ask\",\"arguments\":{}}}",
    };
    /* How long an answer may take: none comes for the notifications and
     * the hang. */
    static const int wait_ms[] = {1500, 20, 1500, 100, 100, 1500};
    every_send_failing(script, wait_ms, sizeof script / sizeof script[0]);
}

/* The same across 2026-07-28 rounds: the question's input_required, the
 * retry, its answer; and a call of a client that asks nothing. */
static void every_send_failing_across_rounds(void **state)
{
    (void)state;
    static const char *const script[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"ask\",\"arguments\":{},\"_meta\":{" HARNESS_ENV_ASKING "}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"echo\",\"arguments\":{\"text\":\"x\"},\"_meta\":{" HARNESS_ENV "}}}",
    };
    static const int wait_ms[] = {1500, 1500};
    every_send_failing(script, wait_ms, sizeof script / sizeof script[0]);
}

/* Tasks ---------------------------------------------------------------------------- */

#define TASKS_DECLARED "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}"
#define ENV_TASKS                                                                              \
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                                 \
    "\"io.modelcontextprotocol/clientCapabilities\":{" TASKS_DECLARED "}"
#define ENV_ASKING_TASKS                                                                       \
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                                 \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}," TASKS_DECLARED "}"
#define CHILD_RUNS_TASKS "{\"tools\":{},\"tasks\":{\"requests\":{\"tools\":{\"call\":{}}}}}"


/* The taskId of a CreateTaskResult (caller frees). */
static char *task_id_of(const char *answer)
{
    const char *p = strstr(answer, "\"taskId\":\"");
    if (!p)
        fail_msg("no taskId in %s", answer);
    p += 10;
    return strndup(p, strcspn(p, "\""));
}

/* tasks/get of tid (ids from *id on) until the task's status is status
 * (10 s at most): that answer (caller frees). */
static char *task_until(harness *h, int *id, const char *tid, const char *status, const char *env)
{
    char params[200], want[64];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", tid);
    snprintf(want, sizeof want, "\"status\":\"%s\"", status);
    for (int i = 0; i < 500; i++) {
        char *a = req_env(h, (*id)++, "tasks/get", params, env);
        if (strstr(a, want))
            return a;
        free(a);
        usleep(20000);
    }
    fail_msg("task %s never %s", tid, status);
    return NULL;
}

/* A 2025-11-25 child runs a tool as a task (one that requires it): a
 * 2026-07-28 client that declared the extension gets a task of the
 * gateway's own, whose result is the child's (without the child's task
 * named); one that did not gets the result, the child's task followed; a
 * tool that never runs as a task is called plainly; tasks/cancel reaches
 * the child as tasks/cancel. */
static void a_2026_call_runs_as_the_childs_task(void **state)
{
    (void)state;
    server_caps = CHILD_RUNS_TASKS;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    int id = 1;
    char *a = req_env(&h, id++, "tools/call", "\"name\":\"job\",\"arguments\":{}", ENV_TASKS);
    assert_non_null(strstr(a, "\"resultType\":\"task\""));
    char *tid = task_id_of(a);
    free(a);
    assert_null(strstr(tid, "child-task"));
    a = task_until(&h, &id, tid, "completed", ENV_TASKS);
    assert_non_null(strstr(a, "job done"));
    assert_null(strstr(a, "child-task"));
    assert_non_null(strstr(a, "\"example/kept\":1")); /* the rest of the child's _meta */
    free(a);
    free(tid);
    assert_int_equal(log_count("task job"), 1);

    a = req_env(&h, id++, "tools/call", "\"name\":\"job\",\"arguments\":{}", HARNESS_ENV);
    assert_non_null(strstr(a, "job done"));
    assert_non_null(strstr(a, "\"resultType\":\"complete\""));
    assert_null(strstr(a, "related-task"));
    free(a);
    assert_int_equal(log_count("refused call job"), 1);
    assert_int_equal(log_count("task job"), 2);

    a = req_env(&h, id++, "tools/call", "\"name\":\"echo\",\"arguments\":{\"text\":\"plain\"}",
                ENV_TASKS);
    assert_non_null(strstr(a, "plain"));
    assert_non_null(strstr(a, "\"resultType\":\"complete\""));
    free(a);
    assert_int_equal(log_count("refused task echo"), 1);
    /* A 2025-11-25 task member, which 2026-07-28 ignores, does not reach
     * the child: a plain call, a plain answer. */
    a = req_env(&h, id++, "tools/call",
                "\"name\":\"echo\",\"arguments\":{\"text\":\"untasked\"},\"task\":{\"ttl\":1000}",
                HARNESS_ENV);
    assert_non_null(strstr(a, "untasked"));
    assert_null(strstr(a, "taskId"));
    free(a);
    assert_int_equal(log_count("refused task echo"), 1);

    a = req_env(&h, id++, "tools/call", "\"name\":\"job\",\"arguments\":{\"hold\":true}", ENV_TASKS);
    tid = task_id_of(a);
    free(a);
    char params[200];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", tid);
    harness_expect_in(req_env(&h, id++, "tasks/cancel", params, ENV_TASKS),
                      "\"resultType\":\"complete\"");
    wait_log("task-cancel child-task-", 1);
    free(task_until(&h, &id, tid, "cancelled", ENV_TASKS));
    free(tid);
    assert_int_equal(log_count("cancelled "), 0); /* no notifications/cancelled */
    assert_int_equal(log_count("start "), 1);
    harness_stop(&h);
    wait_children_gone();
    server_caps = "{\"tools\":{}}";
}

/* A child's -32042 (URL elicitation required), which 2026-07-28 never
 * sends: its page is asked as a URL elicitation of an InputRequiredResult
 * (no requestState: the retry runs the call again); a 2025 session gets
 * the error as the child gave it. */
static void a_childs_url_error_is_asked_of_a_2026_client(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    char *a = req_env(&h, 1, "tools/call", "\"name\":\"pages\",\"arguments\":{}", HARNESS_ENV);
    assert_non_null(strstr(a, "\"resultType\":\"input_required\""));
    assert_non_null(strstr(a, "\"u1\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":"
                              "\"url\",\"message\":\"Grant access\",\"url\":"
                              "\"https://example.com/consent\"}}"));
    assert_null(strstr(a, "-32042"));
    assert_null(strstr(a, "elicitationId"));
    assert_null(strstr(a, "requestState"));
    free(a);
    a = req_env(&h, 2, "tools/call", "\"name\":\"pages\",\"arguments\":{}", HARNESS_ENV_ASKING);
    assert_non_null(strstr(a, "\"u1\":"));
    free(a);
    harness_stop(&h);
    harness_start(&h, child_gateway(NULL), "2025-11-25", NULL, NULL);
    harness_expect_in(harness_req(&h, 3, "tools/call", "\"name\":\"pages\",\"arguments\":{}"),
                      "\"code\":-32042");
    harness_stop(&h);
    wait_children_gone();
}

/* A client that declared elicitation and the extension: the child's
 * question during its task is one of the gateway task's inputRequests
 * (under the gateway's key, without the child's task named), tasks/update
 * answers it on the child, and the task completes with what the child
 * made of the answer. A task cancelled with its question open withdraws
 * it and cancels the child's task. */
static void a_tasks_question_is_one_of_its_input_requests(void **state)
{
    (void)state;
    server_caps = CHILD_RUNS_TASKS;
    harness h;
    harness_start(&h, child_gateway(NULL), NULL, NULL, NULL);
    int id = 1;
    char *a = req_env(&h, id++, "tools/call", "\"name\":\"job\",\"arguments\":{\"ask\":true}",
                      ENV_ASKING_TASKS);
    assert_non_null(strstr(a, "\"resultType\":\"task\""));
    char *tid = task_id_of(a);
    free(a);
    a = task_until(&h, &id, tid, "input_required", ENV_ASKING_TASKS);
    assert_non_null(strstr(a, "\"q1\":{\"method\":\"elicitation/create\""));
    assert_non_null(strstr(a, "Who?"));
    assert_null(strstr(a, "child-task"));
    free(a);
    char params[400];
    snprintf(params, sizeof params, "\"taskId\":\"%s\",%s", tid, ADA);
    harness_expect_in(req_env(&h, id++, "tasks/update", params, ENV_ASKING_TASKS),
                      "\"resultType\":\"complete\"");
    a = task_until(&h, &id, tid, "completed", ENV_ASKING_TASKS);
    assert_non_null(strstr(a, "job answer: accept"));
    assert_null(strstr(a, "child-task"));
    free(a);
    free(tid);

    a = req_env(&h, id++, "tools/call", "\"name\":\"job\",\"arguments\":{\"ask\":true}",
                ENV_ASKING_TASKS);
    tid = task_id_of(a);
    free(a);
    free(task_until(&h, &id, tid, "input_required", ENV_ASKING_TASKS));
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", tid);
    harness_expect_in(req_env(&h, id++, "tasks/cancel", params, ENV_ASKING_TASKS),
                      "\"resultType\":\"complete\"");
    wait_log("task-cancel child-task-", 1);
    a = task_until(&h, &id, tid, "cancelled", ENV_ASKING_TASKS);
    assert_null(strstr(a, "inputRequests"));
    free(a);
    free(tid);
    /* The child whose call was cancelled is not reused. */
    harness_expect_in(req_env(&h, id++, "tools/call", "\"name\":\"job\",\"arguments\":{}",
                              ENV_ASKING_TASKS),
                      "\"resultType\":\"task\"");
    assert_int_equal(log_count("start "), 2);
    harness_stop(&h);
    wait_children_gone();
    server_caps = "{\"tools\":{}}";
}

/* The same when calls become tasks: a CreateTaskResult that cannot be
 * sent (the task goes, and the child's with it), a task with its question
 * open, a task-only tool's result for a client without the extension. */
static void every_send_failing_across_tasks(void **state)
{
    (void)state;
    server_caps = CHILD_RUNS_TASKS;
    static const char *const script[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"job\",\"arguments\":{\"ask\":true},\"_meta\":{" ENV_ASKING_TASKS "}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"job\",\"arguments\":{\"hold\":true},\"_meta\":{" ENV_TASKS "}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"job\",\"arguments\":{},\"_meta\":{" HARNESS_ENV "}}}",
    };
    static const int wait_ms[] = {1500, 1500, 1500};
    every_send_failing(script, wait_ms, sizeof script / sizeof script[0]);
    server_caps = "{\"tools\":{}}";
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_2025_session_gets_its_own_child, setup, teardown),
        cmocka_unit_test_setup_teardown(a_cancel_reaches_the_child_with_its_id, setup, teardown),
        cmocka_unit_test_setup_teardown(a_dead_child_answers_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(modern_requests_share_a_child, setup, teardown),
        cmocka_unit_test_setup_teardown(a_2025_childs_question_is_asked_of_the_client, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_session_ending_with_a_question_open, setup, teardown),
        cmocka_unit_test_setup_teardown(a_2026_childs_question_crosses_in_rounds, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_held_call_ends_when_no_retry_comes, setup, teardown),
        cmocka_unit_test_setup_teardown(a_long_held_call_gives_its_child_up_under_pressure,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(the_bound_makes_room_for_the_other_kind, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_cancelled_round_cancels_the_childs_call, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_2025_childs_logs_keep_the_clients_level, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(the_shared_childs_logs_go_to_the_gateways_log, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_2025_clients_roots_change_reaches_its_child, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_listens_resources_are_subscribed_on_the_shared_child,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(the_bound_refuses_and_recovers, setup, teardown),
        cmocka_unit_test_setup_teardown(a_child_that_refuses_initialize, setup, teardown),
        cmocka_unit_test_setup_teardown(a_run_after_a_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(a_command_that_cannot_start, setup, teardown),
        cmocka_unit_test(options_are_checked),
        cmocka_unit_test_setup_teardown(every_send_to_the_client_failing, setup, teardown),
        cmocka_unit_test_setup_teardown(every_send_failing_across_rounds, setup, teardown),
        cmocka_unit_test_setup_teardown(a_2026_call_runs_as_the_childs_task, setup, teardown),
        cmocka_unit_test_setup_teardown(a_tasks_question_is_one_of_its_input_requests, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(every_send_failing_across_tasks, setup, teardown),
        cmocka_unit_test_setup_teardown(a_childs_url_error_is_asked_of_a_2026_client, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
