/* SPDX-License-Identifier: MIT */
/*
 * Hostile tests of a 2026-07-28 task's questions (tasks/update,
 * inputRequests) and of MCP_TOOL_TASK_DEFERRED / mcp_call_become_task:
 * races of an answer with a timeout and with a cancel, answers of every
 * wrong shape, many questions at once, become_task called where it should
 * not be, a stop while it waits, a write failing at a deferred task's
 * CreateTaskResult.
 *
 * Expected to FAIL on 11c41dd (defects): an_automatic_key_never_clashes_with_
 * an_explicit_one, become_task_after_the_reply. The rest held.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fault_serve.h"
#include "server/core/core.h"
#include "task_harness.h"

static const char form[] = "{\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\","
                           "\"properties\":{\"name\":{\"type\":\"string\"}}}}";
static const char accept_ada[] = "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}";

static atomic_int rc1, rc2, rc3, ended, ok_count, timed_count, other_count, go, started;

static mcp_json_doc *form_doc(void)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(form, sizeof form - 1, NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static uint64_t arg_u64(mcp_call *c, const char *name)
{
    uint64_t v = 0;
    mcp_json_get_uint64(mcp_json_object_get(mcp_call_arguments(c), name), &v);
    return v;
}

/* Tools ------------------------------------------------------------------------------ */

/* Asks key k<i> for i < arguments.n, each within arguments.timeout_ms: counts
 * the outcomes (ok, timed out, other). */
static void tool_race(void *ud, mcp_call *c)
{
    (void)ud;
    uint64_t n = arg_u64(c, "n"), timeout = arg_u64(c, "timeout_ms");
    mcp_json_doc *d = form_doc();
    for (uint64_t i = 0; i < n; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%llu", (unsigned long long)i);
        mcp_ask_answer a = {.size = sizeof a};
        int rc = mcp_call_ask(c, key, "elicitation/create", mcp_json_doc_root(d), timeout, &a);
        if (rc == MCP_OK)
            atomic_fetch_add(&ok_count, 1);
        else if (rc == MCP_ERR_TIMED_OUT)
            atomic_fetch_add(&timed_count, 1);
        else
            atomic_fetch_add(&other_count, 1);
        if (rc == MCP_OK && !a.result)
            atomic_fetch_add(&other_count, 1000); /* an OK without its answer */
        mcp_ask_answer_release(&a);
        if (rc == MCP_ERR_CANCELLED)
            break;
    }
    mcp_json_doc_free(d);
    char text[100];
    snprintf(text, sizeof text, "ok=%d timed=%d other=%d", atomic_load(&ok_count),
             atomic_load(&timed_count), atomic_load(&other_count));
    mcp_call_reply_text(c, text);
    atomic_fetch_add(&ended, 1);
}

/* Asks "k" within arguments.timeout_ms (0: none, 1: UINT64_MAX). */
static void tool_ask(void *ud, mcp_call *c)
{
    (void)ud;
    uint64_t timeout = arg_u64(c, "timeout_ms");
    if (timeout == 1)
        timeout = UINT64_MAX;
    mcp_json_doc *d = form_doc();
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, "k", "elicitation/create", mcp_json_doc_root(d), timeout, &a);
    atomic_store(&rc1, rc);
    mcp_ask_answer_release(&a);
    mcp_json_doc_free(d);
    if (rc == MCP_ERR_CANCELLED)
        mcp_call_finish(c);
    else
        mcp_call_reply_text(c, mcp_strerror(rc));
    atomic_fetch_add(&ended, 1);
}

/* Asks two questions under the same key at once. */
static void tool_dup_keys(void *ud, mcp_call *c)
{
    (void)ud;
    mcp_json_doc *d = form_doc();
    const mcp_ask_question qs[2] = {{"same", "elicitation/create", mcp_json_doc_root(d)},
                                    {"same", "elicitation/create", mcp_json_doc_root(d)}};
    mcp_ask_answer a[2] = {{.size = sizeof a[0]}, {.size = sizeof a[1]}};
    int outcomes[2];
    int rc = mcp_call_ask_all(c, qs, 2, 0, a, outcomes);
    atomic_store(&rc1, outcomes[0]);
    atomic_store(&rc2, outcomes[1]);
    atomic_store(&rc3, rc);
    mcp_ask_answer_release(&a[0]);
    mcp_ask_answer_release(&a[1]);
    mcp_json_doc_free(d);
    mcp_call_reply_text(c, "done");
    atomic_fetch_add(&ended, 1);
}

/* A key given explicitly ("q2"), then an automatic one (which is "q2" too). */
static void tool_auto_collides(void *ud, mcp_call *c)
{
    (void)ud;
    mcp_json_doc *d = form_doc();
    const mcp_ask_question qs[2] = {{"q2", "elicitation/create", mcp_json_doc_root(d)},
                                    {NULL, "elicitation/create", mcp_json_doc_root(d)}};
    mcp_ask_answer a[2] = {{.size = sizeof a[0]}, {.size = sizeof a[1]}};
    int outcomes[2];
    int rc = mcp_call_ask_all(c, qs, 2, 0, a, outcomes);
    atomic_store(&rc1, outcomes[0]);
    atomic_store(&rc2, outcomes[1]);
    atomic_store(&rc3, rc);
    mcp_ask_answer_release(&a[0]);
    mcp_ask_answer_release(&a[1]);
    mcp_json_doc_free(d);
    mcp_call_reply_text(c, "done");
    atomic_fetch_add(&ended, 1);
}

/* Deferred tools: how each calls mcp_call_become_task
 * (arguments.how): "twice", "after_reply", "never", "after_cancel",
 * "after_stop". */
static void tool_become(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_fetch_add(&started, 1);
    const char *how = mcp_json_string(mcp_json_object_get(mcp_call_arguments(c), "how"), NULL);
    how = how ? how : "";
    if (!strcmp(how, "twice")) {
        atomic_store(&rc1, mcp_call_become_task(c));
        atomic_store(&rc2, mcp_call_become_task(c));
        mcp_call_reply_text(c, "twice");
    } else if (!strcmp(how, "after_reply")) {
        mcp_call_reply_text(c, "replied");
        atomic_store(&rc1, mcp_call_become_task(c));
    } else if (!strcmp(how, "never")) {
        mcp_call_reply_text(c, "never a task");
    } else if (!strcmp(how, "after_cancel") || !strcmp(how, "after_stop")) {
        atomic_store(&go, 1);
        for (int i = 0; i < 4000 && !mcp_call_is_cancelled(c); i++)
            usleep(1000);
        atomic_store(&rc1, mcp_call_become_task(c));
        mcp_call_finish(c);
    } else if (!strcmp(how, "then_ask")) {
        atomic_store(&rc1, mcp_call_become_task(c));
        mcp_json_doc *d = form_doc();
        mcp_ask_answer a = {.size = sizeof a};
        atomic_store(&rc2, mcp_call_ask(c, "later", "elicitation/create", mcp_json_doc_root(d), 0, &a));
        mcp_ask_answer_release(&a);
        mcp_json_doc_free(d);
        mcp_call_reply_text(c, "asked in the task");
    } else {
        atomic_store(&rc1, mcp_call_become_task(c));
        mcp_call_reply_text(c, "became");
    }
    atomic_fetch_add(&ended, 1);
}

/* A deferred tool that is not blocking: its handler runs on the loop. */
static void tool_become_on_loop(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_store(&rc1, mcp_call_become_task(c));
    mcp_call_reply_text(c, "became on the loop");
    atomic_fetch_add(&ended, 1);
}

static void tool_echo(void *ud, mcp_call *c)
{
    (void)ud;
    mcp_call_reply_text(c, "echo");
}

static uint64_t next_ttl_ms;

static mcp_server *new_server(unsigned max_per_client)
{
    mcp_server_options o = {.size = sizeof o, .name = "attack", .log_level = MCP_LOG_ERROR, .shutdown_grace_ms = 300,
                            .task_max_per_client = max_per_client, .task_max_ttl_ms = next_ttl_ms};
    next_ttl_ms = 0;
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "race", .handler = tool_race,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "ask", .handler = tool_ask,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "dup_keys", .handler = tool_dup_keys,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "auto_collides", .handler = tool_auto_collides,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "become", .handler = tool_become,
         .flags = MCP_TOOL_BLOCKING | MCP_TOOL_TASK_DEFERRED, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "become_on_loop", .handler = tool_become_on_loop,
         .flags = MCP_TOOL_TASK_DEFERRED, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "echo", .handler = tool_echo},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    atomic_store(&rc1, 1);
    atomic_store(&rc2, 1);
    atomic_store(&rc3, 1);
    atomic_store(&ended, 0);
    atomic_store(&ok_count, 0);
    atomic_store(&timed_count, 0);
    atomic_store(&other_count, 0);
    atomic_store(&go, 0);
    atomic_store(&started, 0);
    ext_caps = "\"elicitation\":{},";
    return s;
}

static void wait_ended(int n)
{
    for (int i = 0; i < 2000 && atomic_load(&ended) < n; i++)
        usleep(5000);
    assert_int_equal(atomic_load(&ended), n);
}

static void make_task(harness *h, int rid, const char *name, const char *args, char id[33])
{
    char params[300];
    snprintf(params, sizeof params, "\"name\":\"%s\",\"arguments\":{%s}", name, args);
    char *created = ext_req(h, rid, "tools/call", params);
    if (!strstr(created, "\"resultType\":\"task\""))
        fail_msg("no task: %s", created);
    task_id_of(created, id);
    free(created);
}

/* The line of a tasks/update, not waited for. */
static void send_update(harness *h, int rid, const char id[33], const char *responses)
{
    size_t n = strlen(responses) + 600;
    char *line = malloc(n);
    assert_non_null(line);
    snprintf(line, n,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tasks/update\",\"params\":{\"taskId\":"
             "\"%s\",\"inputResponses\":{%s},\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},\"extensions\":"
             "{\"io.modelcontextprotocol/tasks\":{}}}}}}",
             rid, id, responses);
    wire_send(&h->w, line);
    free(line);
}

/* Races ------------------------------------------------------------------------------- */

/* Answers racing each question's timeout (1 ms): every ask ends once, OK
 * with its answer or timed out, and the task completes. */
static void answers_race_the_timeouts(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "race", "\"n\":200,\"timeout_ms\":1", id);
    char all[200 * 64];
    size_t at = 0;
    for (int i = 0; i < 200; i++)
        at += (size_t)snprintf(all + at, sizeof all - at, "%s\"k%d\":%s", i ? "," : "", i,
                               accept_ada);
    for (int i = 0; i < 300 && atomic_load(&ended) == 0; i++) {
        send_update(&h, 100 + i, id, all);
        free(wire_expect(&h.w, "\"result\":{\"resultType\":\"complete\""));
    }
    wait_ended(1);
    assert_int_equal(atomic_load(&other_count), 0);
    assert_int_equal(atomic_load(&ok_count) + atomic_load(&timed_count), 200);
    harness_expect_in(ext_until(&h, 2, id, "\"completed\""), "ok=");
    harness_stop(&h);
}

/* tasks/update and tasks/cancel in the same write, many times. */
static void answers_race_the_cancel(void **state)
{
    (void)state;
    for (int round = 0; round < 30; round++) {
        harness h;
        harness_start(&h, new_server(0), NULL, NULL, NULL);
        char id[33];
        make_task(&h, 1, "ask", "", id);
        free(ext_until(&h, 2, id, "input_required"));
        char update[700], cancel[600], both[1400];
        snprintf(update, sizeof update,
                 "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/update\",\"params\":{"
                 "\"taskId\":\"%s\",\"inputResponses\":{\"k\":%s},\"_meta\":{"
                 "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                 "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},"
                 "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}}}",
                 id, accept_ada);
        snprintf(cancel, sizeof cancel,
                 "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/cancel\",\"params\":{"
                 "\"taskId\":\"%s\",\"_meta\":{"
                 "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                 "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},"
                 "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}}}",
                 id);
        /* Both in one write, in either order. */
        snprintf(both, sizeof both, "%s\n%s", round % 2 ? cancel : update,
                 round % 2 ? update : cancel);
        wire_send(&h.w, both);
        free(wire_expect(&h.w, "\"id\":3,"));
        wait_ended(1);
        int rc = atomic_load(&rc1);
        assert_true(rc == MCP_OK || rc == MCP_ERR_CANCELLED);
        char *got = ext_on_task(&h, 5, "tasks/get", id);
        assert_null(strstr(got, "inputRequests"));
        free(got);
        harness_stop(&h);
    }
}

/* An answer of every wrong shape: the handler gets MCP_ERR_PROTOCOL or a
 * schema mismatch, never a crash; answers that are no object are ignored. */
static void answers_of_the_wrong_shape(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "{}",
        "{\"action\":7}",
        "{\"action\":\"accept\"}",
        "{\"action\":\"accept\",\"content\":[]}",
        "{\"action\":\"accept\",\"content\":{\"name\":5}}",
        "{\"action\":\"maybe\"}",
        "{\"action\":\"accept\",\"content\":{\"name\":\"\\u0000\"}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        harness h;
        harness_start(&h, new_server(0), NULL, NULL, NULL);
        char id[33];
        make_task(&h, 1, "ask", "", id);
        free(ext_until(&h, 2, id, "input_required"));
        /* Not objects: ignored, the question stays. */
        send_update(&h, 3, id, "\"k\":null");
        free(wire_expect(&h.w, "\"id\":3,"));
        send_update(&h, 3, id, "\"k\":[]");
        free(wire_expect(&h.w, "\"id\":3,"));
        send_update(&h, 3, id, "\"k\":\"x\"");
        free(wire_expect(&h.w, "\"id\":3,"));
        harness_expect_in(ext_on_task(&h, 5, "tasks/get", id), "\"inputRequests\":{\"k\":");
        char responses[300];
        snprintf(responses, sizeof responses, "\"k\":%s", bad[i]);
        send_update(&h, 4, id, responses);
        free(wire_expect(&h.w, "\"id\":4,"));
        wait_ended(1);
        int rc = atomic_load(&rc1);
        if (i == 6) {
            assert_int_equal(rc, MCP_OK);
        } else if (rc != MCP_ERR_PROTOCOL && rc != MCP_ERR_SCHEMA_MISMATCH) {
            fail_msg("answer %s: %s", bad[i], mcp_strerror(rc));
        }
        harness_stop(&h);
    }
}

/* 10,000 keys, long keys and keys with NUL in one tasks/update: acked, the
 * question still waits; then answered. */
static void a_huge_update(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask", "", id);
    free(ext_until(&h, 2, id, "input_required"));
    size_t cap = 10000 * 40 + 300000;
    char *all = malloc(cap);
    size_t at = 0;
    for (int i = 0; i < 10000; i++)
        at += (size_t)snprintf(all + at, cap - at, "\"x%d\":{},", i);
    at += (size_t)snprintf(all + at, cap - at, "\"k\\u0000\":%s,\"\":%s,\"", accept_ada, accept_ada);
    memset(all + at, 'k', 200000);
    at += 200000;
    snprintf(all + at, cap - at, "\":{}");
    send_update(&h, 3, id, all);
    free(all);
    free(wire_expect(&h.w, "\"id\":3,"));
    harness_expect_in(ext_on_task(&h, 4, "tasks/get", id), "\"inputRequests\":{\"k\":");
    send_update(&h, 5, id, "\"k\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
    free(wire_expect(&h.w, "\"id\":5,"));
    harness_expect_in(ext_until(&h, 6, id, "\"completed\""), "success");
    harness_stop(&h);
}

/* A timeout of UINT64_MAX is no timeout: the question waits. */
static void the_longest_timeout_waits(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask", "\"timeout_ms\":1", id);
    free(ext_until(&h, 2, id, "input_required"));
    usleep(200000);
    char *got = ext_on_task(&h, 3, "tasks/get", id);
    if (!strstr(got, "input_required"))
        fail_msg("the question did not wait: %s", got);
    free(got);
    send_update(&h, 4, id, "\"k\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
    free(wire_expect(&h.w, "\"id\":4,"));
    wait_ended(1);
    assert_int_equal(atomic_load(&rc1), MCP_OK);
    harness_stop(&h);
}

/* Two questions of one ask_all under one key: one waits, the other is
 * refused (a key is never asked twice in a task). */
static void duplicate_keys_in_one_ask_all(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "dup_keys", "", id);
    char *got = ext_until(&h, 2, id, "input_required");
    assert_non_null(strstr(got, "\"inputRequests\":{\"same\":"));
    free(got);
    send_update(&h, 3, id, "\"same\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
    free(wire_expect(&h.w, "\"id\":3,"));
    wait_ended(1);
    assert_int_equal(atomic_load(&rc1), MCP_OK);
    assert_int_equal(atomic_load(&rc2), MCP_ERR_INVALID_ARG);
    harness_stop(&h);
}

/* An explicit key, then an automatic one that the counter makes the same:
 * the handler did not choose the clash. FAILS on 11c41dd: the automatic
 * key is refused MCP_ERR_INVALID_ARG. */
static void an_automatic_key_never_clashes_with_an_explicit_one(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "auto_collides", "", id);
    free(ext_until(&h, 2, id, "input_required"));
    usleep(50000);
    char *got = ext_on_task(&h, 3, "tasks/get", id);
    /* Both questions listed, under two keys. */
    const char *p = strstr(got, "\"inputRequests\":{");
    assert_non_null(p);
    int n = 0;
    for (const char *q = p; (q = strstr(q, "\"method\":")); q++)
        n++;
    free(got);
    send_update(&h, 4, id, "\"q1\":{\"action\":\"accept\",\"content\":{\"name\":\"A\"}},"
                           "\"q2\":{\"action\":\"accept\",\"content\":{\"name\":\"B\"}},"
                           "\"q3\":{\"action\":\"accept\",\"content\":{\"name\":\"C\"}}");
    free(wire_expect(&h.w, "\"id\":4,"));
    wait_ended(1);
    assert_int_equal(atomic_load(&rc1), MCP_OK);
    assert_int_equal(atomic_load(&rc2), MCP_OK);
    assert_int_equal(n, 2);
    harness_stop(&h);
}

/* Many tasks each parked on a question: past the connection's 64 waiting
 * asks, the next is refused (busy) at once, and the server answers other
 * requests throughout; then every parked one is answered. */
static void many_parked_questions(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(100), NULL, NULL, NULL);
    char ids[66][33];
    for (int i = 0; i < 66; i++)
        make_task(&h, 1000 + i, "ask", "", ids[i]);
    for (int i = 0; i < 400 && atomic_load(&ended) < 2; i++)
        usleep(5000);
    /* The two past 64 ended at once (busy). */
    assert_int_equal(atomic_load(&ended), 2);
    harness_expect_in(ext_req(&h, 1, "tools/call", "\"name\":\"echo\",\"arguments\":{}"),
                      "\"text\":\"echo\"");
    int parked = 0;
    for (int i = 0; i < 66; i++) {
        char *got = ext_on_task(&h, 2000 + i, "tasks/get", ids[i]);
        parked += strstr(got, "input_required") != NULL;
        free(got);
    }
    assert_int_equal(parked, 64);
    for (int i = 0; i < 66; i++)
        send_update(&h, 3000 + i, ids[i], "\"k\":{\"action\":\"accept\",\"content\":{\"name\":\"A\"}}");
    for (int i = 0; i < 66; i++)
        free(wire_expect(&h.w, "\"result\":{\"resultType\":\"complete\""));
    wait_ended(66);
    harness_stop(&h);
}

/* become_task ------------------------------------------------------------------------- */

static char *deferred_call(harness *h, int rid, const char *how)
{
    char params[200];
    snprintf(params, sizeof params, "\"name\":\"become\",\"arguments\":{\"how\":\"%s\"}", how);
    return ext_req(h, rid, "tools/call", params);
}

static void become_task_twice(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char *created = deferred_call(&h, 1, "twice");
    assert_non_null(strstr(created, "\"resultType\":\"task\""));
    char id[33];
    task_id_of(created, id);
    free(created);
    harness_expect_in(ext_until(&h, 2, id, "\"completed\""), "twice");
    assert_int_equal(atomic_load(&rc1), MCP_OK);
    assert_int_equal(atomic_load(&rc2), MCP_OK);
    /* One answer to request 1 only: nothing more with its id. */
    char *more = wire_read(&h.w, 100);
    if (more && strstr(more, "\"id\":1,"))
        fail_msg("a second answer: %s", more);
    free(more);
    harness_stop(&h);
}

/* server.h: MCP_ERR_STATE when "the call was ended". FAILS on 11c41dd:
 * MCP_ERR_CANCELLED (the answer was delivered, so the request is settled,
 * and become_task checks settled before ended), or MCP_ERR_STATE when the
 * loop has not delivered the answer yet: which one depends on timing. */
static void become_task_after_the_reply(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    harness_expect_in(deferred_call(&h, 1, "after_reply"), "\"text\":\"replied\"");
    wait_ended(1);
    assert_int_equal(atomic_load(&rc1), MCP_ERR_STATE);
    harness_stop(&h);
}

static void a_deferred_tool_that_never_becomes_a_task(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    harness_expect_in(deferred_call(&h, 1, "never"), "\"text\":\"never a task\"");
    harness_stop(&h);
}

static void become_task_after_a_cancel(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                    "\"name\":\"become\",\"arguments\":{\"how\":\"after_cancel\"},\"_meta\":{"
                    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":"
                    "{\"io.modelcontextprotocol/tasks\":{}}}}}}");
    for (int i = 0; i < 1000 && !atomic_load(&go); i++)
        usleep(2000);
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                    "\"requestId\":1,\"_meta\":{"
                    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    wait_ended(1);
    assert_int_equal(atomic_load(&rc1), MCP_ERR_CANCELLED);
    /* Nothing answers request 1 (no CreateTaskResult after the cancel). */
    char *more = wire_read(&h.w, 100);
    if (more && strstr(more, "\"id\":1,"))
        fail_msg("answered after its cancel: %s", more);
    free(more);
    harness_stop(&h);
}

/* A stop while the handler is about to become a task: become_task returns
 * (cancelled or closed), the run ends, nothing hangs. */
static void become_task_during_a_stop(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                    "\"name\":\"become\",\"arguments\":{\"how\":\"after_stop\"},\"_meta\":{"
                    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":"
                    "{\"io.modelcontextprotocol/tasks\":{}}}}}}");
    for (int i = 0; i < 1000 && !atomic_load(&go); i++)
        usleep(2000);
    mcp_server_stop(h.server);
    pthread_join(h.thread, NULL);
    assert_int_equal(h.rc, MCP_OK);
    wait_ended(1);
    int rc = atomic_load(&rc1);
    if (rc != MCP_ERR_CANCELLED && rc != MCP_ERR_CLOSED)
        fail_msg("become_task during a stop: %s", mcp_strerror(rc));
    /* The handler's own reference goes after it returns: mcp_server_free
     * frees nothing while one is live. */
    usleep(100000);
    close(h.w.fd);
    close(h.server_fd);
    mcp_server_free(h.server);
}

static void become_task_from_the_loop_thread(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char *created = ext_req(&h, 1, "tools/call", "\"name\":\"become_on_loop\",\"arguments\":{}");
    if (!strstr(created, "\"resultType\":\"task\""))
        fail_msg("not a task: %s", created);
    char id[33];
    task_id_of(created, id);
    free(created);
    harness_expect_in(ext_until(&h, 2, id, "\"completed\""), "became on the loop");
    assert_int_equal(atomic_load(&rc1), MCP_OK);
    harness_stop(&h);
}

/* After become_task, the handler's question waits in the task. */
static void a_question_after_become_task(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char *created = deferred_call(&h, 1, "then_ask");
    char id[33];
    task_id_of(created, id);
    free(created);
    harness_expect_in(ext_until(&h, 2, id, "input_required"), "\"inputRequests\":{\"later\":");
    send_update(&h, 3, id, "\"later\":{\"action\":\"decline\"}");
    free(wire_expect(&h.w, "\"id\":3,"));
    harness_expect_in(ext_until(&h, 4, id, "\"completed\""), "asked in the task");
    assert_int_equal(atomic_load(&rc2), MCP_OK);
    harness_stop(&h);
}

/* Under 2025-11-25 a plain call (no params.task) of a deferred tool:
 * become_task is refused, the call's answer is the handler's. */
static void become_task_in_a_2025_plain_call(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(0), "2025-11-25", "{}", NULL);
    harness_expect_in(harness_req(&h, 1, "tools/call", "\"name\":\"become\",\"arguments\":{}"),
                      "\"text\":\"became\"");
    wait_ended(1);
    assert_int_equal(atomic_load(&rc1), MCP_ERR_STATE);
    harness_stop(&h);
}



/* A task whose ttl ends while its question waits: the question is
 * withdrawn, the handler told cancelled, the task gone (-32602 for
 * tasks/update and tasks/get). */
static void a_task_expires_while_its_question_waits(void **state)
{
    (void)state;
    harness h;
    next_ttl_ms = 300;
    harness_start(&h, new_server(0), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask", "", id);
    free(ext_until(&h, 2, id, "input_required"));
    wait_ended(1);
    assert_int_equal(atomic_load(&rc1), MCP_ERR_CANCELLED);
    send_update(&h, 3, id, "\"k\":{\"action\":\"decline\"}");
    harness_expect_in(wire_expect(&h.w, "\"id\":3,"), "\"code\":-32602");
    harness_expect_in(ext_on_task(&h, 4, "tasks/get", id), "\"code\":-32602");
    harness_stop(&h);
}

/* Past the task caps, become_task says busy and the call goes on plain. */
static void become_task_past_the_caps(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(1), NULL, NULL, NULL);
    char id[33];
    make_task(&h, 1, "ask", "", id);
    free(ext_until(&h, 2, id, "input_required"));
    harness_expect_in(deferred_call(&h, 3, ""), "\"text\":\"became\"");
    for (int i = 0; i < 400 && atomic_load(&rc1) == 1; i++)
        usleep(5000);
    /* rc1 is shared: the deferred call wrote it last (the ask still waits). */
    assert_int_equal(atomic_load(&rc1), MCP_ERR_BUSY);
    harness_stop(&h);
    /* The stop cancelled the waiting ask: its handler ends before the
     * process may (nothing of the library runs on past the tests). */
    wait_ended(2);
}

/* Write failures ---------------------------------------------------------------------- */

/* A deferred tool's call (how), its nth send failing, for n = 1, 2, ...
 * until a run fails none: every run's handler ends, the run returns, the
 * memory is freed (ASan, valgrind). */
static void torture_deferred(const char *how, bool answer)
{
    for (int at = 1; at < 12; at++) {
        fault_serve f;
        fault_serve_start(&f, new_server(0), at);
        char line[1200];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                 "\"name\":\"become\",\"arguments\":{\"how\":\"%s\"},\"_meta\":{"
                 "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                 "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},"
                 "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}}}",
                 how);
        wire_try_send(&f.w, line);
        char *created = wire_read(&f.w, 500);
        char id[33] = "";
        if (created && strstr(created, "\"taskId\":\""))
            task_id_of(created, id);
        free(created);
        if (id[0]) {
            for (int i = 0; i < 5; i++) {
                snprintf(line, sizeof line,
                         "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tasks/get\",\"params\":{"
                         "\"taskId\":\"%s\",\"_meta\":{"
                         "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                         "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{"
                         "\"io.modelcontextprotocol/tasks\":{}}}}}}",
                         10 + i, id);
                wire_try_send(&f.w, line);
                free(wire_read(&f.w, 50));
            }
            if (answer) {
                snprintf(line, sizeof line,
                         "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tasks/update\",\"params\":{"
                         "\"taskId\":\"%s\",\"inputResponses\":{\"later\":{\"action\":"
                         "\"decline\"}},\"_meta\":{"
                         "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                         "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{"
                         "\"io.modelcontextprotocol/tasks\":{}}}}}}",
                         id);
                wire_try_send(&f.w, line);
                free(wire_read(&f.w, 100));
            }
        }
        fault_serve_stop(&f);
        assert_int_equal(f.rc, MCP_OK);
        /* A call still queued when its connection ended never runs (a slow
         * machine, valgrind): every handler that started ends. */
        for (int i = 0; i < 2000 && atomic_load(&ended) < atomic_load(&started); i++)
            usleep(5000);
        assert_int_equal(atomic_load(&ended), atomic_load(&started));
        fault_serve_free(&f);
        harness_wait_abandoned();
        if (!f.faults.fired)
            break;
    }
}

static void write_failures_around_a_deferred_task(void **state)
{
    (void)state;
    torture_deferred("", false);
    torture_deferred("then_ask", false);
    torture_deferred("then_ask", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(answers_race_the_timeouts),
        cmocka_unit_test(answers_race_the_cancel),
        cmocka_unit_test(answers_of_the_wrong_shape),
        cmocka_unit_test(a_huge_update),
        cmocka_unit_test(the_longest_timeout_waits),
        cmocka_unit_test(duplicate_keys_in_one_ask_all),
        cmocka_unit_test(an_automatic_key_never_clashes_with_an_explicit_one),
        cmocka_unit_test(many_parked_questions),
        cmocka_unit_test(become_task_twice),
        cmocka_unit_test(become_task_after_the_reply),
        cmocka_unit_test(a_deferred_tool_that_never_becomes_a_task),
        cmocka_unit_test(become_task_after_a_cancel),
        cmocka_unit_test(become_task_during_a_stop),
        cmocka_unit_test(become_task_from_the_loop_thread),
        cmocka_unit_test(a_question_after_become_task),
        cmocka_unit_test(become_task_in_a_2025_plain_call),
        cmocka_unit_test(write_failures_around_a_deferred_task),
        cmocka_unit_test(a_task_expires_while_its_question_waits),
        cmocka_unit_test(become_task_past_the_caps),
    };
    /* ATTACK_ONLY=<name pattern>: run only those. */
    if (getenv("ATTACK_ONLY"))
        cmocka_set_test_filter(getenv("ATTACK_ONLY"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
