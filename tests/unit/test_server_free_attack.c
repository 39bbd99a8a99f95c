/* SPDX-License-Identifier: MIT */
/*
 * Attacks on mcp_server_free while handlers abandoned after the shutdown
 * grace still run (the last of them frees the server on its own thread,
 * its pool released rather than joined), and on the poster's drain at the
 * loop's close (src/runtime/post.c): every post accepted runs exactly once,
 * posted by flooding threads or by a post run during the close's first drain.
 *
 * Each handler here ignores its cancellation and waits on a gate the test
 * opens when it chooses: before or after the run returned, before or after
 * mcp_server_free, during a later run of the same server, or racing free.
 * What they check: every late call (reply, progress, log, ask)
 * is refused or harmless and nothing is touched once freed (ASan,
 * valgrind), every server and pool is freed in the end (mcp__pools_alive
 * back to where it was, the leak checks), no data race (TSan), no hang.
 *
 * On the current code every test here passes, natively and under valgrind,
 * ASan+UBSan and TSan: none of these attacks found a defect. They would
 * fail if the last reference were dropped twice or never (a double free,
 * or a pool left counted), if a released pool were freed while one of its
 * threads still ran a handler, or if a late answer reached a later run's
 * client.
 *
 * Debugging: ATTACK_ONLY=<test> runs one test, ATTACK_DEBUG=1 prints the
 * server's log and the lines skipped, ATTACK_TIMEOUT_MS the wait per line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "runtime/internal.h"
#include "wire.h"

/* Gates ------------------------------------------------------------------------- */

typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open;
    int entered; /* handlers that reached the gate */
} gate;

#define NGATES 4
static gate gates[NGATES];

static void gates_reset(void)
{
    for (int i = 0; i < NGATES; i++) {
        pthread_mutex_init(&gates[i].mu, NULL);
        pthread_cond_init(&gates[i].cv, NULL);
        gates[i].open = false;
        gates[i].entered = 0;
    }
}

static void gate_open(int i)
{
    pthread_mutex_lock(&gates[i].mu);
    gates[i].open = true;
    pthread_cond_broadcast(&gates[i].cv);
    pthread_mutex_unlock(&gates[i].mu);
}

static void gate_pass(int i)
{
    pthread_mutex_lock(&gates[i].mu);
    gates[i].entered++;
    pthread_cond_broadcast(&gates[i].cv);
    while (!gates[i].open)
        pthread_cond_wait(&gates[i].cv, &gates[i].mu);
    pthread_mutex_unlock(&gates[i].mu);
}

static void gate_wait_entered(int i, int n)
{
    pthread_mutex_lock(&gates[i].mu);
    while (gates[i].entered < n)
        pthread_cond_wait(&gates[i].cv, &gates[i].mu);
    pthread_mutex_unlock(&gates[i].mu);
}

/* What late handlers got back. */
static atomic_int late_progress_rc, late_log_calls, late_reply_rc, late_ask_rc, late_done;
/* Log records seen: the callback's user_data must live until the server
 * is freed, which may be after mcp_server_free returned (server.h). */
typedef struct log_sink {
    atomic_int records;
} log_sink;
static log_sink sink;

static void on_log(void *ud, const mcp_log_record *r)
{
    log_sink *l = ud;
    atomic_fetch_add(&l->records, 1);
    if (getenv("ATTACK_DEBUG") && r->level >= MCP_LOG_INFO)
        fprintf(stderr, "log: %s\n", r->message);
}

/* Tools: arguments {"gate":N}. */
static int gate_of(mcp_call *c)
{
    const mcp_json *g = mcp_json_object_get(mcp_call_arguments(c), "gate");
    int64_t n = 0;
    if (g)
        mcp_json_get_int64(g, &n);
    return (int)n;
}

/* Blocking, ignores its cancel: waits for its gate, then tries everything. */
static void tool_stubborn(void *ud, mcp_call *c)
{
    (void)ud;
    gate_pass(gate_of(c));
    atomic_store(&late_progress_rc, mcp_call_progress(c, 1, NAN, "late"));
    mcp_call_log(c, MCP_LOG_ERROR, "late log from an abandoned handler");
    atomic_fetch_add(&late_log_calls, 1);
    mcp_ask_answer a = {.size = sizeof a};
    atomic_store(&late_ask_rc, mcp_call_ask(c, NULL, "roots/list", NULL, 50, &a));
    mcp_ask_answer_release(&a);
    atomic_store(&late_reply_rc, mcp_call_reply_text(c, "too late"));
    atomic_fetch_add(&late_done, 1);
}

/* Not blocking: returns at once; a thread of its own answers after the gate. */
static void *async_answer(void *arg)
{
    mcp_call *c = arg;
    gate_pass(gate_of(c));
    atomic_store(&late_reply_rc, mcp_call_reply_text(c, "too late, from my thread"));
    atomic_fetch_add(&late_done, 1);
    return NULL;
}

static void tool_async(void *ud, mcp_call *c)
{
    (void)ud;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, async_answer, c), 0);
    pthread_detach(t);
}

static void tool_echo(void *ud, mcp_call *c)
{
    (void)ud;
    mcp_call_reply_text(c, "echo");
}

/* Serving ------------------------------------------------------------------------ */

/* wire_expect, saying what came instead. */
static char *expect(wire *w, const char *needle)
{
    for (;;) {
        const char *t = getenv("ATTACK_TIMEOUT_MS");
        uint64_t t0 = mcp_monotonic_ms();
        char *l = wire_read(w, t ? atoi(t) : 10000);
        if (!l)
            fail_msg("no line containing %s (end of stream or timeout)", needle);
        if (getenv("ATTACK_DEBUG") && mcp_monotonic_ms() - t0 > 2000)
            fprintf(stderr, "waited %llu ms for a line\n", (unsigned long long)(mcp_monotonic_ms() - t0));
        if (strstr(l, needle))
            return l;
        if (getenv("ATTACK_DEBUG"))
            fprintf(stderr, "skipped: %.200s\n", l);
        free(l);
    }
}

typedef struct run {
    mcp_server *server;
    wire w;
    int server_fd;
    pthread_t thread;
    int rc;
} run;

static void *serve_thread(void *arg)
{
    run *r = arg;
    r->rc = mcp_server_serve_fds(r->server, r->server_fd, r->server_fd);
    return NULL;
}

static mcp_server *new_server(unsigned workers, uint64_t grace_ms)
{
    mcp_server_options o = {.size = sizeof o, .name = "attack", .shutdown_grace_ms = grace_ms,
                            .worker_threads = workers, .log_level = MCP_LOG_DEBUG,
                            .log = on_log, .log_user_data = &sink};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "stubborn", .handler = tool_stubborn,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool), .name = "async", .handler = tool_async},
        {.size = sizeof(mcp_tool), .name = "echo", .handler = tool_echo},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    return s;
}

static void run_start(run *r, mcp_server *s)
{
    memset(r, 0, sizeof *r);
    r->server = s;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    r->w.fd = sv[0];
    r->server_fd = sv[1];
    assert_int_equal(pthread_create(&r->thread, NULL, serve_thread, r), 0);
    wire_send(&r->w, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                     "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"roots\":{}},"
                     "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    free(expect(&r->w, "\"id\":0"));
    wire_send(&r->w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

static void call(run *r, int id, const char *tool, int gate_no)
{
    char line[200];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
             "{\"name\":\"%s\",\"arguments\":{\"gate\":%d}}}",
             id, tool, gate_no);
    wire_send(&r->w, line);
}

/* End the input; the run returns after the grace, its handlers abandoned. */
static void run_end(run *r)
{
    shutdown(r->w.fd, SHUT_WR);
    pthread_join(r->thread, NULL);
    assert_int_equal(r->rc, MCP_OK);
    close(r->w.fd);
    close(r->server_fd);
}

static void reset_counters(void)
{
    gates_reset();
    atomic_store(&late_progress_rc, 12345);
    atomic_store(&late_log_calls, 0);
    atomic_store(&late_reply_rc, 12345);
    atomic_store(&late_ask_rc, 12345);
    atomic_store(&late_done, 0);
    atomic_store(&sink.records, 0);
}

/* Every pool freed, within 10 s; then its last thread's own end. */
static void wait_pools_gone(unsigned base)
{
    for (int i = 0; i < 1000 && mcp__pools_alive() > base; i++)
        usleep(10 * 1000);
    assert_int_equal(mcp__pools_alive(), base);
    usleep(30 * 1000);
}

static void wait_done(int n)
{
    for (int i = 0; i < 1000 && atomic_load(&late_done) < n; i++)
        usleep(10 * 1000);
    assert_int_equal(atomic_load(&late_done), n);
}

/* A server of `workers` workers and a `grace_ms` shutdown grace whose run
 * ended with one call of `tool` (gate 0) still running: abandoned. */
static mcp_server *serve_and_abandon(unsigned workers, uint64_t grace_ms, const char *tool)
{
    mcp_server *s = new_server(workers, grace_ms);
    run r;
    run_start(&r, s);
    call(&r, 1, tool, 0);
    gate_wait_entered(0, 1);
    run_end(&r);
    return s;
}

/* Tests ---------------------------------------------------------------------------- */

/* One worker; the handler returns after mcp_server_free: each late call is
 * refused, and its thread frees the server and its own pool. */
static void late_calls_after_free_are_refused_on_one_worker(void **state)
{
    (void)state;
    reset_counters();
    unsigned base = mcp__pools_alive();
    mcp_server *s = serve_and_abandon(1, 50, "stubborn");
    mcp_server_free(s);
    assert_int_equal(mcp__pools_alive(), base + 1);
    int records = atomic_load(&sink.records);
    gate_open(0);
    wait_done(1);
    wait_pools_gone(base);
    /* mcp_call_log after free still reached the log callback */
    assert_true(atomic_load(&sink.records) > records);
    assert_int_equal(atomic_load(&late_progress_rc), MCP_ERR_CANCELLED);
    assert_int_equal(atomic_load(&late_log_calls), 1);
    assert_int_not_equal(atomic_load(&late_ask_rc), MCP_OK);
    assert_int_equal(atomic_load(&late_reply_rc), MCP_ERR_CANCELLED);
}

/* The same, the handler returning between the run's end and free. */
static void late_calls_before_free_are_refused(void **state)
{
    (void)state;
    reset_counters();
    unsigned base = mcp__pools_alive();
    mcp_server *s = serve_and_abandon(1, 50, "stubborn");
    gate_open(0);
    wait_done(1);
    usleep(20 * 1000);
    mcp_server_free(s); /* joins the pool: its handler returned */
    assert_int_equal(mcp__pools_alive(), base);
    assert_int_equal(atomic_load(&late_reply_rc), MCP_ERR_CANCELLED);
}

/* A non-blocking handler's own thread answers after free: that thread (not
 * a pool's) drops the last reference and frees the server. */
static void an_answer_from_a_user_thread_after_free_frees_the_server(void **state)
{
    (void)state;
    reset_counters();
    unsigned base = mcp__pools_alive();
    mcp_server *s = serve_and_abandon(2, 50, "async");
    mcp_server_free(s);
    gate_open(0);
    wait_done(1);
    wait_pools_gone(base);
    assert_int_equal(atomic_load(&late_reply_rc), MCP_ERR_CANCELLED);
}

/* Three runs of one server, each abandoning handlers; one free; then the
 * handlers return, the oldest run's last (order given). */
static void several_runs_then_one_free(const int order[3])
{
    reset_counters();
    unsigned base = mcp__pools_alive();
    mcp_server *s = new_server(2, 30);
    for (int k = 0; k < 3; k++) {
        run r;
        run_start(&r, s);
        call(&r, 1, "stubborn", k);
        call(&r, 2, "stubborn", k);
        call(&r, 3, "async", k);
        gate_wait_entered(k, 3);
        /* a call that completes, on this run's loop */
        call(&r, 4, "echo", 0);
        free(expect(&r.w, "\"id\":4"));
        run_end(&r);
    }
    mcp_server_free(s);
    for (int k = 0; k < 3; k++) {
        gate_open(order[k]);
        usleep(20 * 1000);
    }
    wait_done(9);
    wait_pools_gone(base);
}

static void several_runs_oldest_last(void **state)
{
    (void)state;
    static const int order[3] = {2, 1, 0};
    several_runs_then_one_free(order);
}

static void several_runs_newest_last(void **state)
{
    (void)state;
    static const int order[3] = {0, 1, 2};
    several_runs_then_one_free(order);
}

/* An abandoned handler of the first run returns while the second serves:
 * its late calls meet the second run's loop (open again), which must drop
 * them, not answer on the first run's ended connection. The second run
 * still serves its own client. */
static void a_handler_of_an_earlier_run_returns_during_the_next(void **state)
{
    (void)state;
    reset_counters();
    unsigned base = mcp__pools_alive();
    mcp_server *s = new_server(1, 30);
    run r1, r2;
    run_start(&r1, s);
    call(&r1, 1, "stubborn", 0);
    call(&r1, 2, "async", 0);
    gate_wait_entered(0, 2);
    run_end(&r1);
    run_start(&r2, s);
    call(&r2, 7, "echo", 0);
    free(expect(&r2.w, "\"id\":7"));
    gate_open(0);
    wait_done(2);
    /* Nothing of run 1 reaches run 2's client: the next line is id 8. */
    call(&r2, 8, "echo", 0);
    char *l = expect(&r2.w, "\"id\":");
    assert_non_null(strstr(l, "\"id\":8"));
    free(l);
    assert_int_equal(atomic_load(&late_reply_rc), MCP_ERR_CANCELLED);
    run_end(&r2);
    mcp_server_free(s);
    wait_pools_gone(base);
}

/* The handler returns while mcp_server_free runs: exactly one of them
 * frees the server, once. Many tries, a hundred microseconds apart. */
typedef struct opener {
    int gate_no;
    unsigned delay_us;
} opener;

static void *open_later(void *arg)
{
    opener *o = arg;
    if (o->delay_us)
        usleep(o->delay_us);
    gate_open(o->gate_no);
    return NULL;
}

static void handler_returns_while_free_runs(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 24; i++) {
        reset_counters();
        unsigned base = mcp__pools_alive();
        mcp_server *s = serve_and_abandon(i % 2 + 1, 10, i % 3 == 2 ? "async" : "stubborn");
        opener o = {0, (i % 8) * 100};
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, open_later, &o), 0);
        mcp_server_free(s);
        pthread_join(t, NULL);
        wait_done(1);
        wait_pools_gone(base);
    }
}

/* Another thread publishes and adds tools without pause through runs that
 * abandon handlers, and between them; the runs still end and serve. */
typedef struct churn {
    mcp_server *s;
    atomic_bool stop;
    atomic_int publishes;
} churn;

static void *churner(void *arg)
{
    churn *c = arg;
    int n = 0;
    while (!atomic_load(&c->stop)) {
        /* posted to the loop without pause, nothing written (nobody
         * subscribed): the client need not read meanwhile */
        assert_int_equal(mcp_server_publish(c->s, MCP_LISTEN_RESOURCE_UPDATES, "file:///x"),
                         MCP_OK);
        if (n < 20) {
            char name[32];
            snprintf(name, sizeof name, "t%d", n++);
            mcp_tool t = {.size = sizeof t, .name = name, .handler = tool_echo};
            assert_int_equal(mcp_server_add_tool(c->s, &t), MCP_OK);
        }
        atomic_fetch_add(&c->publishes, 1);
        /* valgrind runs one thread at a time: without a yield the loop
         * gets a time slice per hand-off (test_server_conns does the same) */
        sched_yield();
    }
    return NULL;
}

static void publishing_through_abandoning_runs(void **state)
{
    (void)state;
    reset_counters();
    unsigned base = mcp__pools_alive();
    mcp_server *s = new_server(1, 30);
    churn c = {.s = s};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, churner, &c), 0);
    for (int k = 0; k < 3; k++) {
        run r;
        run_start(&r, s);
        call(&r, 1, "stubborn", k);
        gate_wait_entered(k, 1);
        call(&r, 2, "echo", 0);
        free(expect(&r.w, "\"id\":2"));
        run_end(&r);
        if (k == 1)
            gate_open(0); /* returns between runs, while publishing goes on */
    }
    atomic_store(&c.stop, true);
    pthread_join(t, NULL);
    assert_true(atomic_load(&c.publishes) > 0);
    mcp_server_free(s);
    gate_open(1);
    gate_open(2);
    wait_done(3);
    wait_pools_gone(base);
}

/* Posts made while the loop closes are run, none lost: replies racing the
 * end of input from many threads (a non-blocking tool answering from its
 * own thread with no gate). Every call the server read is answered or
 * cancelled: never left with its reference held (the leak checks). */
static void *answer_now(void *arg)
{
    mcp_call *c = arg;
    int rc = mcp_call_reply_text(c, "now");
    assert_true(rc == MCP_OK || rc == MCP_ERR_CANCELLED);
    atomic_fetch_add(&late_done, 1);
    return NULL;
}

static void tool_answer_now(void *ud, mcp_call *c)
{
    (void)ud;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, answer_now, c), 0);
    pthread_detach(t);
}

static void replies_racing_the_close_are_not_lost(void **state)
{
    (void)state;
    for (int k = 0; k < 6; k++) {
        reset_counters();
        unsigned base = mcp__pools_alive();
        mcp_server *s = new_server(1, 10);
        mcp_tool t = {.size = sizeof t, .name = "now", .handler = tool_answer_now};
        assert_int_equal(mcp_server_add_tool(s, &t), MCP_OK);
        run r;
        run_start(&r, s);
        for (int i = 1; i <= 20; i++)
            call(&r, i, "now", 0);
        run_end(&r);
        mcp_server_free(s);
        wait_done(20);
        wait_pools_gone(base);
    }
}

/* A blocking handler asking its client, who never answers. */
static atomic_int ask_rc, asking;

static void tool_asker(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_fetch_add(&asking, 1);
    mcp_ask_answer a = {.size = sizeof a};
    atomic_store(&ask_rc, mcp_call_ask(c, NULL, "roots/list", NULL, 0, &a));
    mcp_ask_answer_release(&a);
    mcp_call_finish(c);
    atomic_fetch_add(&late_done, 1);
}

/* One worker, held by a handler waiting on its client: the next blocking
 * call runs on an extra thread, which ignores its cancel and is abandoned;
 * the stop ends the question; after free the extra thread's handler
 * returns, frees the server and, as the released pool's last thread, the
 * pool. */
static void an_abandoned_handler_on_an_extra_thread(bool stop_not_eof)
{
    reset_counters();
    atomic_store(&ask_rc, 12345);
    atomic_store(&asking, 0);
    unsigned base = mcp__pools_alive();
    mcp_server *s = new_server(1, 30);
    mcp_tool t = {.size = sizeof t, .name = "asker", .handler = tool_asker,
                  .flags = MCP_TOOL_BLOCKING};
    assert_int_equal(mcp_server_add_tool(s, &t), MCP_OK);
    run r;
    run_start(&r, s);
    call(&r, 1, "asker", 0);
    free(expect(&r.w, "roots/list")); /* never answered */
    call(&r, 2, "stubborn", 0);
    gate_wait_entered(0, 1); /* on an extra thread: the worker is waiting */
    if (stop_not_eof) {
        mcp_server_stop(s);
        pthread_join(r.thread, NULL);
        assert_int_equal(r.rc, MCP_OK);
        close(r.w.fd);
        close(r.server_fd);
    } else {
        run_end(&r);
    }
    wait_done(1); /* the question ended with the run */
    int rc = atomic_load(&ask_rc);
    if (rc != MCP_ERR_CLOSED && rc != MCP_ERR_CANCELLED)
        fail_msg("the pending question ended with %s", mcp_strerror(rc));
    mcp_server_free(s);
    gate_open(0);
    wait_done(2);
    wait_pools_gone(base);
    assert_int_equal(atomic_load(&late_reply_rc), MCP_ERR_CANCELLED);
}

static void an_abandoned_extra_thread_after_end_of_input(void **state)
{
    (void)state;
    an_abandoned_handler_on_an_extra_thread(false);
}

static void an_abandoned_extra_thread_after_a_stop(void **state)
{
    (void)state;
    an_abandoned_handler_on_an_extra_thread(true);
}

/* Tasks: a 2025-11-25 task-augmented call, and a 2026-07-28 deferred tool
 * that becomes a task, each ignoring its cancel past the run and free. */
static atomic_int become_rc;

static void tool_becomes(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_store(&become_rc, mcp_call_become_task(c));
    int g = gate_of(c);
    gate_pass(g);
    /* after the run, maybe after free: become again, ask, answer */
    mcp_ask_answer a = {.size = sizeof a};
    atomic_store(&late_ask_rc, mcp_call_ask(c, NULL, "roots/list", NULL, 50, &a));
    mcp_ask_answer_release(&a);
    atomic_store(&late_progress_rc, mcp_call_progress(c, 1, NAN, "late"));
    atomic_store(&late_reply_rc, mcp_call_reply_text(c, "task result, too late"));
    atomic_fetch_add(&late_done, 1);
}

static void abandoned_tasks(bool free_first)
{
    reset_counters();
    atomic_store(&become_rc, 12345);
    unsigned base = mcp__pools_alive();
    mcp_server *s = new_server(2, 30);
    mcp_tool t1 = {.size = sizeof t1, .name = "stubborn_task", .handler = tool_stubborn,
                   .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL};
    mcp_tool t2 = {.size = sizeof t2, .name = "becomes", .handler = tool_becomes,
                   .flags = MCP_TOOL_BLOCKING | MCP_TOOL_TASK_DEFERRED,
                   .task_support = MCP_TASK_OPTIONAL};
    assert_int_equal(mcp_server_add_tool(s, &t1), MCP_OK);
    assert_int_equal(mcp_server_add_tool(s, &t2), MCP_OK);
    run r;
    run_start(&r, s);
    wire_send(&r.w, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                    "{\"name\":\"stubborn_task\",\"arguments\":{\"gate\":0},\"task\":{}}}");
    free(expect(&r.w, "\"id\":1"));           /* CreateTaskResult */
    wire_send(&r.w, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                    "\"name\":\"becomes\",\"arguments\":{\"gate\":0},\"_meta\":{"
                    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":"
                    "{\"io.modelcontextprotocol/tasks\":{}}}}}}");
    free(expect(&r.w, "\"id\":2"));           /* CreateTaskResult */
    gate_wait_entered(0, 2);
    assert_int_equal(atomic_load(&become_rc), MCP_OK);
    run_end(&r);
    if (free_first)
        mcp_server_free(s);
    gate_open(0);
    wait_done(2);
    if (!free_first) {
        usleep(20 * 1000);
        mcp_server_free(s);
    }
    wait_pools_gone(base);
    assert_int_not_equal(atomic_load(&late_reply_rc), MCP_OK);
}

static void abandoned_tasks_return_after_free(void **state)
{
    (void)state;
    abandoned_tasks(true);
}

static void abandoned_tasks_return_before_free(void **state)
{
    (void)state;
    abandoned_tasks(false);
}

/* The poster: every post accepted runs exactly once, however the close
 * meets it: posted by threads without pause while the loop turns and
 * closes, or posted by a post run during the close's first drain. */
typedef struct counted {
    mcp__post post;
    atomic_int *runs;
    mcp__poster *poster; /* re-post a child once, from the loop thread */
    bool child;
} counted;

static atomic_int accepted, children_accepted;

static void counted_run(mcp__post *post)
{
    counted *c = (counted *)post;
    atomic_fetch_add(c->runs, 1);
    if (c->poster && !c->child) {
        counted *k = calloc(1, sizeof *k);
        k->post.run = counted_run;
        k->runs = c->runs;
        k->child = true;
        if (mcp__poster_post(c->poster, &k->post))
            atomic_fetch_add(&children_accepted, 1);
        else
            free(k);
    }
    free(c);
}

typedef struct flooder {
    mcp__poster *poster;
    atomic_int *runs;
    atomic_bool stop;
} flooder;

static void *flood(void *arg)
{
    flooder *f = arg;
    for (unsigned i = 0; !atomic_load(&f->stop); i++) {
        counted *c = calloc(1, sizeof *c);
        c->post.run = counted_run;
        c->runs = f->runs;
        c->poster = i % 2 ? f->poster : NULL;
        if (mcp__poster_post(f->poster, &c->post)) {
            atomic_fetch_add(&accepted, 1);
        } else {
            /* Closed: nothing more will be taken. Spinning on the lock
             * from here only starved the close's drain on two cores (a
             * run of 300 s under load). */
            free(c);
            break;
        }
        /* Every post: two flooders must not outpace the loop thread's
         * drain for ever (under TSan, whose loop thread is slowest). */
        sched_yield();
    }
    return NULL;
}

static void stop_loop(uv_timer_t *t)
{
    uv_stop(t->loop);
}

static void every_accepted_post_runs_once_across_the_close(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        atomic_int runs;
        atomic_init(&runs, 0);
        atomic_store(&accepted, 0);
        atomic_store(&children_accepted, 0);
        uv_loop_t loop;
        assert_int_equal(uv_loop_init(&loop), 0);
        mcp__poster poster;
        mcp__poster_init(&poster);
        assert_int_equal(mcp__poster_open(&poster, &loop), MCP_OK);
        flooder f = {.poster = &poster, .runs = &runs};
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&t[i], NULL, flood, &f), 0);
        while (atomic_load(&accepted) < 100) /* the flood has begun */
            usleep(100);
        uv_timer_t timer;
        uv_timer_init(&loop, &timer);
        uv_timer_start(&timer, stop_loop, 5 + round % 5, 0);
        uv_run(&loop, UV_RUN_DEFAULT); /* the timer fires despite the flood */
        uv_close((uv_handle_t *)&timer, NULL);
        mcp__poster_close(&poster); /* the flood goes on meanwhile */
        atomic_store(&f.stop, true);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        uv_run(&loop, UV_RUN_DEFAULT);
        assert_int_equal(uv_loop_close(&loop), 0);
        mcp__poster_destroy(&poster);
        assert_true(atomic_load(&accepted) > 0);
        assert_int_equal(atomic_load(&runs),
                         atomic_load(&accepted) + atomic_load(&children_accepted));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(late_calls_after_free_are_refused_on_one_worker),
        cmocka_unit_test(late_calls_before_free_are_refused),
        cmocka_unit_test(an_answer_from_a_user_thread_after_free_frees_the_server),
        cmocka_unit_test(several_runs_oldest_last),
        cmocka_unit_test(several_runs_newest_last),
        cmocka_unit_test(a_handler_of_an_earlier_run_returns_during_the_next),
        cmocka_unit_test(handler_returns_while_free_runs),
        cmocka_unit_test(publishing_through_abandoning_runs),
        cmocka_unit_test(replies_racing_the_close_are_not_lost),
        cmocka_unit_test(an_abandoned_extra_thread_after_end_of_input),
        cmocka_unit_test(an_abandoned_extra_thread_after_a_stop),
        cmocka_unit_test(abandoned_tasks_return_after_free),
        cmocka_unit_test(abandoned_tasks_return_before_free),
        cmocka_unit_test(every_accepted_post_runs_once_across_the_close),
    };
    const char *only = getenv("ATTACK_ONLY");
    if (only) {
        for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
            if (!strcmp(tests[i].name, only))
                return _cmocka_run_group_tests("one", &tests[i], 1, NULL, NULL);
        return 2;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
