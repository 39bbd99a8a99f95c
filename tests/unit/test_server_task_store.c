/* SPDX-License-Identifier: MIT */
/*
 * The Redis task store (mcp_server_options.task_store), against a real
 * redis-server the test starts (tests/support/redis_server): records as
 * Redis keeps them, two servers sharing one Redis (a cancel through one
 * stops the handler on the other, answers through one reach the question
 * on the other, exactly one terminal status when a cancel races the end),
 * Redis paused (task requests fail within the timeout, plain calls go on),
 * Redis gone while a task ends (its record written once Redis is back), a
 * request gone before its task was given out, and every send of a task's
 * life failing in turn.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fault_serve.h"
#include "missing.h"
#include "redis_server.h"
#include "server/core/core.h"
#include "task_harness.h"

/* An acknowledgment (tasks/update, tasks/cancel): an empty result. */
#define ACK "\"result\":{\"resultType\":\"complete\",\"_meta\""

static redis_server redis;
static char store_url[400];
static atomic_int started, ended, released;
static pthread_mutex_t reason_mu = PTHREAD_MUTEX_INITIALIZER;
static char reason[200];

/* Tools ------------------------------------------------------------------------------ */

/* Waits for its cancel (10 s at most): the reason kept. */
static void tool_hold(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_fetch_add(&started, 1);
    mcp_cancel_token *t = mcp_call_cancel_token(c);
    if (mcp_cancel_token_wait(t, 10000)) {
        pthread_mutex_lock(&reason_mu);
        snprintf(reason, sizeof reason, "%s",
                 mcp_cancel_token_reason(t) ? mcp_cancel_token_reason(t) : "");
        pthread_mutex_unlock(&reason_mu);
        mcp_call_finish(c);
    } else {
        mcp_call_reply_text(c, "not cancelled");
    }
    atomic_fetch_add(&ended, 1);
}

/* Answers "done" once released (or ends when cancelled). */
static void tool_gate(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_fetch_add(&started, 1);
    mcp_cancel_token *t = mcp_call_cancel_token(c);
    while (!atomic_load(&released) && !mcp_cancel_token_is_cancelled(t))
        usleep(1000);
    if (mcp_cancel_token_is_cancelled(t))
        mcp_call_finish(c);
    else
        mcp_call_reply_text(c, "done");
    atomic_fetch_add(&ended, 1);
}

/* Asks a name (elicitation), answers "hello <name>". */
static void tool_ask(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_fetch_add(&started, 1);
    static const char form[] = "{\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\","
                               "\"properties\":{\"name\":{\"type\":\"string\"}}}}";
    mcp_json_doc *d;
    mcp_json_parse(form, sizeof form - 1, NULL, NULL, &d, NULL);
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, "who", "elicitation/create", mcp_json_doc_root(d), 5000, &a);
    mcp_json_doc_free(d);
    const mcp_json *content =
        rc == MCP_OK ? mcp_json_object_get(mcp_json_doc_root(a.result), "content") : NULL;
    const char *name = mcp_json_string(mcp_json_object_get(content, "name"), NULL);
    char text[100];
    snprintf(text, sizeof text, "hello %s", name ? name : "(no answer)");
    if (rc == MCP_ERR_CANCELLED)
        mcp_call_finish(c);
    else
        mcp_call_reply_text(c, text);
    mcp_ask_answer_release(&a);
    atomic_fetch_add(&ended, 1);
}

static void tool_plain(void *ud, mcp_call *c)
{
    (void)ud;
    mcp_call_reply_text(c, "plain");
}

/* The store's timeout 1 s unless a test needs it short: under valgrind,
 * which runs one thread at a time, a 300 ms deadline on Redis's answers is
 * missed, and the link goes down under the test. */
/* Under valgrind (its preload in LD_PRELOAD), which runs one thread at a
 * time, a short deadline on Redis's answers is missed when the machine is
 * busy: the short ones asked for are stretched. */
static uint64_t stretched(uint64_t ms)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "vgpreload") ? ms * 4 : ms;
}

static mcp_server *new_server(uint64_t timeout_ms)
{
    mcp_server_options o = {.size = sizeof o, .log_level = MCP_LOG_ERROR,
                            .shutdown_grace_ms = 500, .task_store = store_url,
                            .task_store_timeout_ms = timeout_ms ? stretched(timeout_ms) : 1000,
                            .task_lease_ms = 2000};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "hold", .handler = tool_hold,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "gate", .handler = tool_gate,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "ask", .handler = tool_ask,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "plain", .handler = tool_plain}};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    return s;
}

/* Until h's store answers (a task no one has: "no task", not unavailable). */
static void wait_store(harness *h)
{
    for (int i = 0; i < 500; i++) {
        char *a = ext_on_task(h, 900, "tasks/get", "00000000000000000000000000000000");
        bool up = strstr(a, "no task") != NULL;
        free(a);
        if (up)
            return;
        usleep(20000);
    }
    fail_msg("the task store never came up");
}

static void start(harness *h, uint64_t timeout_ms)
{
    harness_start(h, new_server(timeout_ms), NULL, NULL, NULL);
    wait_store(h);
}

static char *make_task(harness *h, int id, const char *tool_name, char task[33])
{
    char params[100];
    snprintf(params, sizeof params, "\"name\":\"%s\",\"arguments\":{}", tool_name);
    char *a = ext_req(h, id, "tools/call", params);
    assert_non_null(strstr(a, "\"resultType\":\"task\""));
    task_id_of(a, task);
    return a;
}

/* A field of the record Redis holds for task (caller frees), or NULL. */
static char *record_field(const char task[33], const char *field)
{
    redisContext *r = redis_server_connect(&redis);
    assert_non_null(r);
    redisReply *rep = redisCommand(r, "HGET mcp:task:%s %s", task, field);
    char *v = rep && rep->type == REDIS_REPLY_STRING ? strdup(rep->str) : NULL;
    freeReplyObject(rep);
    redisFree(r);
    return v;
}

static long long record_ttl(const char task[33])
{
    redisContext *r = redis_server_connect(&redis);
    assert_non_null(r);
    redisReply *rep = redisCommand(r, "PTTL mcp:task:%s", task);
    long long v = rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer : -9;
    freeReplyObject(rep);
    redisFree(r);
    return v;
}

/* Until the record's status is want (5 s at most). */
static void wait_record(const char task[33], const char *want)
{
    char *s = NULL;
    for (int i = 0; i < 500; i++) {
        free(s);
        s = record_field(task, "s");
        if (s && !strcmp(s, want))
            break;
        usleep(10000);
    }
    if (!s || strcmp(s, want))
        fail_msg("record %s: status %s, not %s", task, s ? s : "(none)", want);
    free(s);
}

/* Until at least want handlers started and every one started ended (10 s
 * at most). A task is given out before its handler's thread need have run:
 * counting only the ended against the started had passed with none
 * started yet, and the reason read was still empty. */
static void wait_ended(int want)
{
    for (int i = 0; i < 2000 && (atomic_load(&started) < want ||
                                 atomic_load(&ended) < atomic_load(&started));
         i++)
        usleep(5000);
    if (atomic_load(&started) < want || atomic_load(&ended) != atomic_load(&started)) {
        char why[sizeof reason];
        pthread_mutex_lock(&reason_mu);
        memcpy(why, reason, sizeof why);
        pthread_mutex_unlock(&reason_mu);
        fail_msg("handlers: %d started (%d wanted), %d ended; last reason \"%s\"",
                 atomic_load(&started), want, atomic_load(&ended), why);
    }
}

static void reset(void)
{
    atomic_store(&started, 0);
    atomic_store(&ended, 0);
    atomic_store(&released, 0);
    reason[0] = '\0';
}

/* Tests ------------------------------------------------------------------------------ */

/* Made, kept in Redis (with its ttl), read, cancelled: the handler's token
 * fires, the record says cancelled. */
static void a_task_is_kept_in_redis(void **state)
{
    (void)state;
    reset();
    harness h;
    start(&h, 0);
    char task[33];
    free(make_task(&h, 1, "hold", task));
    char *s = record_field(task, "s");
    assert_string_equal(s, "working"); /* kept before it was given out */
    free(s);
    long long ttl = record_ttl(task);
    assert_true(ttl > 3000000 && ttl <= 3600000); /* the ttl granted (an hour) */
    char *o = record_field(task, "o");
    assert_string_equal(o, "-"); /* no credential over stdio */
    free(o);
    harness_expect_in(ext_on_task(&h, 2, "tasks/get", task), "\"status\":\"working\"");
    harness_expect_in(ext_on_task(&h, 3, "tasks/cancel", task), ACK);
    wait_record(task, "cancelled");
    wait_ended(1);
    pthread_mutex_lock(&reason_mu);
    assert_non_null(strstr(reason, "tasks/cancel"));
    pthread_mutex_unlock(&reason_mu);
    harness_expect_in(ext_on_task(&h, 4, "tasks/get", task), "\"status\":\"cancelled\"");
    /* An id no task has, and one of the wrong shape: no task either. */
    harness_expect_in(ext_on_task(&h, 5, "tasks/get", "ffffffffffffffffffffffffffffffff"),
                      "no task");
    harness_expect_in(ext_req(&h, 6, "tasks/get", "\"taskId\":\"x\\u0000y\""), "no task");
    harness_stop(&h);
}

/* Two servers, one Redis: each reads, answers and cancels the other's. */
static void two_servers_share_their_tasks(void **state)
{
    (void)state;
    reset();
    harness a, b;
    start(&a, 0);
    start(&b, 0);
    char task[33];
    free(make_task(&a, 1, "hold", task));
    harness_expect_in(ext_on_task(&b, 1, "tasks/get", task), "\"status\":\"working\"");
    /* Its handler running first (a task is given out before its handler's
     * thread need have started; one cancelled before that never runs). */
    for (int i = 0; i < 2000 && atomic_load(&started) < 1; i++)
        usleep(5000);
    harness_expect_in(ext_on_task(&b, 2, "tasks/cancel", task), ACK);
    wait_ended(1); /* a's handler: its token fired, through b */
    pthread_mutex_lock(&reason_mu);
    assert_non_null(strstr(reason, "tasks/cancel"));
    pthread_mutex_unlock(&reason_mu);
    char *got = ext_until(&a, 2, task, "\"cancelled\"");
    harness_expect_in(got, "\"status\":\"cancelled\"");

    /* b's question, answered through a. */
    ext_caps = "\"elicitation\":{},";
    char asked[33];
    free(make_task(&b, 3, "ask", asked));
    got = ext_until(&a, 3, asked, "input_required");
    assert_non_null(strstr(got, "\"inputRequests\":{\"who\":"));
    free(got);
    char params[200];
    snprintf(params, sizeof params,
             "\"taskId\":\"%s\",\"inputResponses\":{\"who\":{\"action\":\"accept\","
             "\"content\":{\"name\":\"Ada\"}}}",
             asked);
    harness_expect_in(ext_req(&a, 5, "tasks/update", params), ACK);
    got = ext_until(&b, 6, asked, "\"completed\"");
    harness_expect_in(got, "hello Ada");
    ext_caps = "";
    wait_ended(2);
    harness_stop(&a);
    harness_stop(&b);
}

/* A listen held on one server, naming a task that runs on the other,
 * hears its changes (through Redis), the result inline; and news (a tool
 * added, a resource updated) on one reaches a listen for it held on the
 * other. */
static void a_listen_on_one_server_hears_the_other(void **state)
{
    (void)state;
    reset();
    harness a, b;
    start(&a, 0);
    start(&b, 0);
    char task[33];
    free(make_task(&a, 1, "gate", task));
    char line[700];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"subscriptions/listen\",\"params\":"
             "{\"notifications\":{\"taskIds\":[\"%s\"],\"toolsListChanged\":true,"
             "\"resourceSubscriptions\":[\"demo://shared\"]},\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{"
             "\"io.modelcontextprotocol/tasks\":{}}}}}}",
             task);
    wire_send(&b.w, line);
    free(wire_expect(&b.w, "notifications/subscriptions/acknowledged"));
    atomic_store(&released, 1);
    char *done = wire_expect(&b.w, "\"method\":\"notifications/tasks\"");
    if (!strstr(done, "\"status\":\"completed\"") || !strstr(done, "done") ||
        !strstr(done, task))
        fail_msg("%s", done);
    free(done);
    const mcp_tool extra = {.size = sizeof extra, .name = "added", .handler = tool_plain};
    assert_int_equal(mcp_server_add_tool(a.server, &extra), MCP_OK);
    free(wire_expect(&b.w, "notifications/tools/list_changed"));
    /* A resource updated, as the application on a says. */
    assert_int_equal(mcp_server_publish(a.server, MCP_LISTEN_RESOURCE_UPDATES, "demo://shared"),
                     MCP_OK);
    harness_expect_in(wire_expect(&b.w, "notifications/resources/updated"), "demo://shared");
    wait_ended(1);
    harness_stop(&a);
    harness_stop(&b);
}

/* A cancel on one server racing the end on the other: one terminal status,
 * the same everywhere, and the runner's table follows it. */
static void a_cancel_racing_the_end_leaves_one_status(void **state)
{
    (void)state;
    harness a, b;
    start(&a, 0);
    start(&b, 0);
    int completed = 0, cancelled = 0;
    for (int round = 0; round < 30; round++) {
        reset();
        char task[33];
        free(make_task(&a, 10 + round, "gate", task));
        /* The end and the cancel at once, a little apart each round. */
        atomic_store(&released, 1);
        usleep((useconds_t)(round % 5) * 200);
        harness_expect_in(ext_on_task(&b, 200 + round, "tasks/cancel", task), ACK);
        wait_ended(0); /* cancelled first, a task may never run */
        char *sa = ext_until(&a, 300 + round, task, "ed\""); /* completed or cancelled */
        char *sb = ext_on_task(&b, 400 + round, "tasks/get", task);
        char *r = record_field(task, "s");
        assert_non_null(r);
        char want[40];
        snprintf(want, sizeof want, "\"status\":\"%s\"", r);
        assert_non_null(strstr(sa, want));
        assert_non_null(strstr(sb, want));
        completed += !strcmp(r, "completed");
        cancelled += !strcmp(r, "cancelled");
        assert_int_equal(!strcmp(r, "completed") + !strcmp(r, "cancelled"), 1);
        free(sa);
        free(sb);
        free(r);
    }
    printf("race: %d completed, %d cancelled\n", completed, cancelled);
    harness_stop(&a);
    harness_stop(&b);
}

/* Redis answering nothing: a task request fails within the timeout, saying
 * so; a plain call is served; once Redis is back, tasks are made again. */
static void redis_paused(void **state)
{
    (void)state;
    reset();
    redisContext *c = redis_server_connect(&redis);
    freeReplyObject(redisCommand(c, "FLUSHDB"));
    redisFree(c);
    harness h;
    start(&h, 200);
    char task[33];
    free(make_task(&h, 1, "hold", task));
    redis_server_pause(&redis);
    char *a = ext_req(&h, 2, "tools/call", "\"name\":\"hold\",\"arguments\":{}");
    assert_non_null(strstr(a, "-32603"));
    assert_non_null(strstr(a, "task store"));
    free(a);
    a = ext_on_task(&h, 3, "tasks/get", task);
    assert_non_null(strstr(a, "-32603"));
    assert_non_null(strstr(a, "the task store is unavailable"));
    free(a);
    harness_expect_in(ext_req(&h, 4, "tools/call", "\"name\":\"plain\",\"arguments\":{}"),
                      "plain");
    redis_server_resume(&redis);
    wait_store(&h);
    harness_expect_in(ext_on_task(&h, 5, "tasks/get", task), "\"status\":\"working\"");
    /* The create that timed out ran once Redis woke: the refused task's
     * record, which nobody can name, is removed; only the first one is
     * left. */
    redisContext *r = redis_server_connect(&redis);
    redisReply *keys = NULL;
    for (int i = 0; i < 200; i++) {
        freeReplyObject(keys);
        keys = redisCommand(r, "KEYS mcp:task:*");
        if (keys && keys->elements == 1)
            break;
        usleep(10000);
    }
    assert_int_equal(keys->elements, 1);
    assert_non_null(strstr(keys->element[0]->str, task));
    freeReplyObject(keys);
    redisFree(r);
    harness_expect_in(ext_on_task(&h, 6, "tasks/cancel", task), ACK);
    wait_ended(1);
    harness_stop(&h);
}

/* Redis away from everyone longer than the leases: every lease ran out,
 * yet no process is dead; the first one back must not fail the others'
 * tasks (it waits until they could renew). */
static void an_outage_longer_than_the_lease_fails_no_live_task(void **state)
{
    (void)state;
    reset();
    harness a, b;
    start(&a, 0);
    start(&b, 0);
    char on_a[33], on_b[33];
    free(make_task(&a, 1, "hold", on_a));
    free(make_task(&b, 1, "hold", on_b));
    redis_server_pause(&redis);
    usleep(3000 * 1000); /* the leases are 2 s */
    redis_server_resume(&redis);
    wait_store(&a);
    wait_store(&b);
    usleep(4500 * 1000); /* past the grace (600 + 2000 + 2 x 300 ms) and a few reapings */
    harness_expect_in(ext_on_task(&a, 2, "tasks/get", on_b), "\"status\":\"working\"");
    harness_expect_in(ext_on_task(&b, 2, "tasks/get", on_a), "\"status\":\"working\"");
    assert_int_equal(atomic_load(&ended), 0);
    harness_expect_in(ext_on_task(&a, 3, "tasks/cancel", on_a), ACK);
    harness_expect_in(ext_on_task(&b, 3, "tasks/cancel", on_b), ACK);
    wait_ended(2);
    harness_stop(&a);
    harness_stop(&b);
}

/* Redis gone while a task ends: the end is written once Redis is back. */
static void an_end_while_redis_is_gone_is_written_later(void **state)
{
    (void)state;
    reset();
    harness h;
    start(&h, 200);
    char task[33];
    free(make_task(&h, 1, "gate", task));
    redis_server_kill(&redis); /* appendonly: the record survives */
    atomic_store(&released, 1);
    wait_ended(1);
    usleep(100000); /* the change tried, failed */
    assert_true(redis_server_restart(&redis));
    wait_record(task, "completed");
    wait_store(&h);
    harness_expect_in(ext_on_task(&h, 2, "tasks/get", task), "done");
    harness_stop(&h);
}

/* A task that ended on the process that ran it, its end kept by Redis:
 * the record can change no more, so that process answers tasks/get from
 * its own copy, Redis paused or not. Another process asks Redis (and says
 * it is unavailable), and a task still working is always asked for. */
static void an_ended_task_is_answered_by_its_runner_alone(void **state)
{
    (void)state;
    reset();
    harness a, b;
    start(&a, 200);
    start(&b, 200);
    char ended_task[33], working[33];
    atomic_store(&released, 1);
    free(make_task(&a, 1, "gate", ended_task));
    free(make_task(&a, 2, "hold", working));
    wait_record(ended_task, "completed");
    /* Until a has heard Redis keep the end (its reply follows the write). */
    for (int i = 0; i < 100; i++) {
        redis_server_pause(&redis);
        char *got = ext_on_task(&a, 3, "tasks/get", ended_task);
        redis_server_resume(&redis);
        bool answered = strstr(got, "\"status\":\"completed\"") != NULL;
        free(got);
        if (answered)
            break;
        usleep(20000);
    }
    redis_server_pause(&redis);
    char *got = ext_on_task(&a, 4, "tasks/get", ended_task);
    harness_expect_in(strdup(got), "\"status\":\"completed\"");
    harness_expect_in(got, "done"); /* the result inline, as Redis holds it */
    harness_expect_in(ext_on_task(&b, 5, "tasks/get", ended_task), "task store is unavailable");
    harness_expect_in(ext_on_task(&a, 6, "tasks/get", working), "task store is unavailable");
    redis_server_resume(&redis);
    wait_store(&a);
    wait_store(&b);
    harness_expect_in(ext_on_task(&b, 7, "tasks/get", ended_task), "done");
    harness_expect_in(ext_on_task(&b, 8, "tasks/cancel", working), ACK);
    wait_ended(2);
    harness_stop(&a);
    harness_stop(&b);
}

/* A Redis that comes back from an older file (appendfsync everysec loses
 * the last second: an end confirmed, then lost), here the record set back
 * to working and the connections cut: once the store is back the runner
 * writes the end again, and both processes and the record agree on it
 * (the runner answers from its own copy: it must not be alone in that). */
static void an_end_redis_lost_is_written_again(void **state)
{
    (void)state;
    reset();
    harness a, b;
    start(&a, 0);
    start(&b, 0);
    char task[33];
    atomic_store(&released, 1);
    free(make_task(&a, 1, "gate", task));
    wait_record(task, "completed");
    wait_ended(1);
    usleep(200000); /* a heard Redis keep the end */
    redisContext *r = redis_server_connect(&redis);
    assert_non_null(r);
    freeReplyObject(redisCommand(r, "HSET mcp:task:%s s working", task));
    freeReplyObject(redisCommand(r, "CLIENT KILL TYPE normal"));
    freeReplyObject(redisCommand(r, "CLIENT KILL TYPE pubsub"));
    redisFree(r);
    usleep(500000);
    wait_store(&a);
    wait_store(&b);
    wait_record(task, "completed");
    harness_expect_in(ext_on_task(&a, 2, "tasks/get", task), "\"status\":\"completed\"");
    harness_expect_in(ext_on_task(&b, 3, "tasks/get", task), "\"status\":\"completed\"");
    harness_stop(&a);
    harness_stop(&b);
}

/* A task-augmented request cancelled while Redis keeps its task: no
 * CreateTaskResult, the handler stopped, the record cancelled. */
static void a_request_gone_before_its_task_was_given_out(void **state)
{
    (void)state;
    reset();
    redisContext *r = redis_server_connect(&redis);
    freeReplyObject(redisCommand(r, "FLUSHDB")); /* only this test's records below */
    harness h;
    start(&h, 2000);
    redis_server_pause(&redis);
    char line[600];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"hold\","
             "\"arguments\":{},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
             "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{"
             "\"io.modelcontextprotocol/tasks\":{}}}}}}");
    wire_send(&h.w, line);
    for (int i = 0; i < 400 && atomic_load(&started) < 1; i++)
        usleep(5000);
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                    "\"requestId\":7,\"reason\":\"changed my mind\"}}");
    wait_ended(0); /* likewise, when the cancel came first */
    redis_server_resume(&redis);
    wait_store(&h);
    /* Nothing answered request 7 (a cancelled request gets no answer). */
    char *stray = wire_read(&h.w, 200);
    assert_true(!stray || !strstr(stray, "\"id\":7,"));
    free(stray);
    /* Its record, if Redis kept it, is cancelled. */
    redisReply *keys = redisCommand(r, "KEYS mcp:task:*");
    for (size_t i = 0; keys && i < keys->elements; i++) {
        redisReply *s = redisCommand(r, "HGET %s s", keys->element[i]->str);
        assert_true(s && s->type == REDIS_REPLY_STRING);
        assert_true(strcmp(s->str, "working") && strcmp(s->str, "input_required"));
        freeReplyObject(s);
    }
    freeReplyObject(keys);
    redisFree(r);
    harness_stop(&h);
}

/* Write failures ---------------------------------------------------------------------- */

static void send_ext(wire *w, int id, const char *method, const char *params)
{
    char line[800];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s,\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},\"extensions\":{"
             "\"io.modelcontextprotocol/tasks\":{}}}}}}",
             id, method, params);
    wire_try_send(w, line);
}

/* A task's life (made, read, answered, read, cancelled) with its nth send
 * failing, for n = 1, 2, ... until a run fails none: each run returns, its
 * handlers end, its memory is freed (ASan, valgrind), and no record it
 * made is left working. */
static void every_send_of_a_task_failing(void **state)
{
    (void)state;
    for (int at = 1; at < 20; at++) {
        reset();
        fault_serve f;
        fault_serve_start(&f, new_server(1000), at);
        char id[33] = "";
        for (int tries = 0; tries < 100 && !id[0]; tries++) {
            send_ext(&f.w, 1, "tools/call", "\"name\":\"ask\",\"arguments\":{}");
            char *created = wire_read(&f.w, 300);
            if (created && strstr(created, "\"taskId\":\""))
                task_id_of(created, id);
            bool gone = !created && f.faults.fired;
            free(created);
            if (gone)
                break;
            if (!id[0])
                usleep(20000); /* the store coming up */
        }
        if (id[0]) {
            char params[300];
            snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
            send_ext(&f.w, 2, "tasks/get", params);
            free(wire_read(&f.w, 200));
            snprintf(params, sizeof params,
                     "\"taskId\":\"%s\",\"inputResponses\":{\"who\":{\"action\":\"accept\","
                     "\"content\":{\"name\":\"Bo\"}}}",
                     id);
            send_ext(&f.w, 3, "tasks/update", params);
            free(wire_read(&f.w, 200));
            snprintf(params, sizeof params, "\"taskId\":\"%s\"", id);
            send_ext(&f.w, 4, "tasks/get", params);
            free(wire_read(&f.w, 200));
            send_ext(&f.w, 5, "tasks/cancel", params);
            free(wire_read(&f.w, 200));
        }
        fault_serve_stop(&f);
        assert_int_equal(f.rc, MCP_OK);
        wait_ended(0);
        fault_serve_free(&f);
        harness_wait_abandoned();
        if (id[0]) {
            /* Ended one way or another: the stop fails what still ran. */
            char *s = record_field(id, "s");
            assert_non_null(s);
            assert_true(strcmp(s, "working") && strcmp(s, "input_required"));
            free(s);
        }
        if (!f.faults.fired)
            break;
    }
}

static int setup(void **state)
{
    (void)state;
    redis_server_options o = {.appendonly = true};
    if (!redis_server_start(&redis, &o))
        return -1;
    snprintf(store_url, sizeof store_url, "%s", redis.url); /* db 0: its own Redis */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    redis_server_destroy(&redis);
    return 0;
}

int main(void)
{
    const char *missing = redis_server_missing();
    if (missing)
        return test_missing(missing);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_task_is_kept_in_redis),
        cmocka_unit_test(two_servers_share_their_tasks),
        cmocka_unit_test(a_listen_on_one_server_hears_the_other),
        cmocka_unit_test(a_cancel_racing_the_end_leaves_one_status),
        cmocka_unit_test(redis_paused),
        cmocka_unit_test(an_end_while_redis_is_gone_is_written_later),
        cmocka_unit_test(an_outage_longer_than_the_lease_fails_no_live_task),
        cmocka_unit_test(an_ended_task_is_answered_by_its_runner_alone),
        cmocka_unit_test(an_end_redis_lost_is_written_again),
        cmocka_unit_test(a_request_gone_before_its_task_was_given_out),
        cmocka_unit_test(every_send_of_a_task_failing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
