/* SPDX-License-Identifier: MIT */
/*
 * The Redis link (src/server/tasks/redis_link.c) against a real
 * redis-server (tests/support/redis_server.h), started per test on a
 * private port: round trips, order, an 8 MB value, deadlines with Redis
 * paused, loss with Redis killed, reconnection with backoff, nobody
 * listening, AUTH (right, wrong, with a user), SELECT, subscriptions and
 * their return after a restart, the heartbeat of an idle subscriber, and
 * close, command and subscribe from inside every callback. Timings are
 * bounded loosely (valgrind on a busy machine): a deadline is never met
 * early, and met within ten times itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "mcp/common.h"
#include "missing.h"
#include "redis_server.h"
#include "server/tasks/redis_link.h"

/* Allocation failures on demand (glibc): malloc, calloc and realloc fail
 * the nth call after oom_arm(n), in this program and in hiredis alike.
 * Not under the sanitizers, whose runtimes own malloc. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NO_OOM
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GLIBC__)
#define NO_OOM
#endif

static volatile long oom_left; /* volatile: GCC takes malloc to touch no global, and drops a store before it */
static volatile bool oom_failed;

static void oom_arm(long n)
{
    oom_left = n;
    oom_failed = false;
}

#ifndef NO_OOM
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);

static bool oom_now(void)
{
    if (oom_left > 0 && --oom_left == 0) {
        oom_failed = true;
        return true;
    }
    return false;
}

void *malloc(size_t n)
{
    return oom_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    return oom_now() ? NULL : __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
    return oom_now() ? NULL : __libc_realloc(p, n);
}
#endif

/* Whether the failures happen where they matter (not under valgrind or a
 * sanitizer, whose runtimes own the libraries' malloc). */
static bool oom_works(void)
{
#ifdef NO_OOM
    return false;
#else
    /* A library's allocation must fail too: under valgrind this program's
     * own calls reach the malloc above, but hiredis's reach valgrind's. */
    oom_arm(1);
    char *cmd = NULL;
    int n = redisFormatCommand(&cmd, "PING");
    oom_arm(0);
    if (n >= 0)
        redisFreeCommand(cmd);
    return n < 0;
#endif
}

static uint64_t now_ms(void)
{
    return uv_hrtime() / 1000000u;
}

/* The loop and what the links told ------------------------------------------------ */

typedef struct env {
    uv_loop_t loop;
    uv_timer_t tick;
    mcp__redis_link *link;
    int ups, downs;
    bool up;
    char why[256];
    int messages;
    char channel[64], data[64];
    int closed;
    bool in_call;         /* inside mcp__redis_link_command or _subscribe */
    bool close_on_up;     /* the state callback closes the link */
    bool close_on_down;
    bool close_on_message;
    bool subscribe_on_message;
    bool after_close;     /* a state or message callback came after close */
    bool closing;
} env;

static void tick(uv_timer_t *t)
{
    (void)t;
}

static void env_init(env *e)
{
    memset(e, 0, sizeof *e);
    assert_int_equal(uv_loop_init(&e->loop), 0);
    uv_timer_init(&e->loop, &e->tick);
    uv_timer_start(&e->tick, tick, 10, 10); /* uv_run(ONCE) returns often */
}

static void run_ms(env *e, uint64_t ms)
{
    uint64_t until = now_ms() + ms;
    while (now_ms() < until)
        uv_run(&e->loop, UV_RUN_ONCE);
}

#define EVENTUALLY(e, cond, ms)                                                                    \
    do {                                                                                           \
        uint64_t until_ = now_ms() + (ms);                                                         \
        while (!(cond) && now_ms() < until_)                                                       \
            uv_run(&(e)->loop, UV_RUN_ONCE);                                                       \
        if (!(cond))                                                                               \
            fail_msg("not within %d ms: %s (why: %s)", (int)(ms), #cond, (e)->why);                \
    } while (0)

static void on_closed(void *arg)
{
    ((env *)arg)->closed++;
}

static void on_state(void *arg, bool up, const char *why)
{
    env *e = arg;
    if (e->closing)
        e->after_close = true;
    assert_false(e->in_call);
    e->up = up;
    if (up)
        e->ups++;
    else
        e->downs++;
    snprintf(e->why, sizeof e->why, "%s", why);
    if ((up && e->close_on_up) || (!up && e->close_on_down)) {
        e->closing = true;
        mcp__redis_link_close(e->link, on_closed, e);
    }
}

static void on_message(void *arg, const char *channel, size_t channel_len, const char *data,
                       size_t len)
{
    env *e = arg;
    if (e->closing)
        e->after_close = true;
    assert_false(e->in_call);
    e->messages++;
    snprintf(e->channel, sizeof e->channel, "%.*s", (int)channel_len, channel);
    snprintf(e->data, sizeof e->data, "%.*s", (int)len, data);
    if (e->subscribe_on_message)
        assert_int_equal(mcp__redis_link_subscribe(e->link, "late"), MCP_OK);
    if (e->close_on_message) {
        e->closing = true;
        mcp__redis_link_close(e->link, on_closed, e);
    }
}

/* Close every link given, run the loop until each said closed, then the
 * loop must close (no handle of theirs left). */
static void env_done(env *e, mcp__redis_link **links, int n)
{
    int want = e->closed + n;
    for (int i = 0; i < n; i++)
        mcp__redis_link_close(links[i], on_closed, e);
    EVENTUALLY(e, e->closed == want, 10000);
    uv_close((uv_handle_t *)&e->tick, NULL);
    uv_run(&e->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&e->loop), 0);
}

static void env_finish(env *e)
{
    uv_close((uv_handle_t *)&e->tick, NULL);
    uv_run(&e->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&e->loop), 0);
}

static mcp__redis_link *link_to(env *e, const char *url, uint64_t timeout_ms, bool subscriber)
{
    mcp__redis_link_options o = {.timeout_ms = timeout_ms,
                                 .backoff_min_ms = 20,
                                 .backoff_max_ms = 400,
                                 .state = on_state,
                                 .message = subscriber ? on_message : NULL,
                                 .arg = e};
    char why[128];
    if (!mcp__redis_url_parse(url, &o.address, why, sizeof why))
        fail_msg("%s: %s", url, why);
    mcp__redis_link *l;
    assert_int_equal(mcp__redis_link_new(&e->loop, &o, &l), MCP_OK);
    e->link = l;
    return l;
}

/* Answers -------------------------------------------------------------------------- */

typedef struct answer {
    env *e;
    int calls;
    int type; /* REDIS_REPLY_*, or 0 for an error */
    long long integer;
    char str[256];
    size_t len;
    char error[256];
    uint64_t sent, at;
    uint64_t turn;         /* the loop's time: the same for answers given at once */
    bool close_link;       /* this answer closes e->link */
    struct answer *chain;  /* the next one sent from inside this one */
    int chain_left;
} answer;

static int send_cmd(env *e, mcp__redis_link *l, answer *a, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void on_answer(void *arg, const struct redisReply *r, const char *error)
{
    answer *a = arg;
    assert_false(a->e->in_call);
    assert_true((r == NULL) != (error == NULL));
    a->calls++;
    a->at = now_ms();
    a->turn = uv_now(&a->e->loop);
    if (r) {
        a->type = r->type;
        a->integer = r->integer;
        a->len = r->len;
        if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS ||
            r->type == REDIS_REPLY_ERROR)
            snprintf(a->str, sizeof a->str, "%.*s", (int)r->len, r->str);
    } else {
        a->type = 0;
        snprintf(a->error, sizeof a->error, "%s", error);
    }
    if (a->close_link) {
        a->e->closing = true;
        mcp__redis_link_close(a->e->link, on_closed, a->e);
    }
    if (a->chain && a->chain_left > 0) {
        int left = a->chain_left - 1;
        a->chain_left = 0;
        a->chain->chain = a->chain;
        a->chain->chain_left = left;
        assert_int_equal(send_cmd(a->e, a->e->link, a->chain, "INCR chained"), MCP_OK);
    }
}

/* Send a command of space-separated words. */
static int send_cmd(env *e, mcp__redis_link *l, answer *a, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    const char *argv[16];
    size_t len[16];
    int argc = 0;
    for (char *w = strtok(line, " "); w && argc < 16; w = strtok(NULL, " ")) {
        argv[argc] = w;
        len[argc++] = strlen(w);
    }
    a->e = e;
    a->sent = now_ms();
    e->in_call = true;
    int rc = mcp__redis_link_command(l, on_answer, a, argc, argv, len);
    e->in_call = false;
    return rc;
}

/* One command, answered (or failed) within ms. */
static void round_trip(env *e, mcp__redis_link *l, answer *a, int ms, const char *cmd)
{
    memset(a, 0, sizeof *a);
    assert_int_equal(send_cmd(e, l, a, "%s", cmd), MCP_OK);
    assert_int_equal(a->calls, 0); /* never inside the call */
    EVENTUALLY(e, a->calls == 1, ms);
}

static void start(redis_server *s, const redis_server_options *o)
{
    assert_true(redis_server_start(s, o));
    assert_int_not_equal(s->port, 6379);
}

/* Commands ---------------------------------------------------------------------------- */

static void commands_round_trip_and_an_error_reply_is_a_reply(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 5000, false);
    assert_false(mcp__redis_link_up(l));
    answer a;
    /* Down (not yet up): refused, and fn never called. */
    memset(&a, 0, sizeof a);
    assert_int_equal(send_cmd(&e, l, &a, "PING"), MCP_ERR_CLOSED);
    EVENTUALLY(&e, e.up, 10000);
    assert_int_equal(a.calls, 0);
    assert_true(mcp__redis_link_up(l));
    assert_string_equal(mcp__redis_link_why(l), "");

    round_trip(&e, l, &a, 10000, "SET k hello");
    assert_int_equal(a.type, REDIS_REPLY_STATUS);
    assert_string_equal(a.str, "OK");
    round_trip(&e, l, &a, 10000, "GET k");
    assert_int_equal(a.type, REDIS_REPLY_STRING);
    assert_string_equal(a.str, "hello");
    round_trip(&e, l, &a, 10000, "GET missing");
    assert_int_equal(a.type, REDIS_REPLY_NIL);
    round_trip(&e, l, &a, 10000, "INCR k");
    assert_int_equal(a.type, REDIS_REPLY_ERROR);
    assert_non_null(strstr(a.str, "not an integer"));
    round_trip(&e, l, &a, 10000, "NOSUCHCOMMAND x");
    assert_int_equal(a.type, REDIS_REPLY_ERROR);
    /* The link is still up after error replies. */
    assert_true(mcp__redis_link_up(l));

    /* Binary arguments, an empty one included, and a NULL of length 0. */
    const char bin[] = {'a', '\0', '\r', '\n', 'b'};
    const char *argv[] = {"SET", "bin", bin};
    size_t len[] = {3, 3, sizeof bin};
    memset(&a, 0, sizeof a);
    a.e = &e;
    assert_int_equal(mcp__redis_link_command(l, on_answer, &a, 3, argv, len), MCP_OK);
    EVENTUALLY(&e, a.calls == 1, 10000);
    const char *argv2[] = {"SET", "empty", NULL};
    size_t len2[] = {3, 5, 0};
    memset(&a, 0, sizeof a);
    a.e = &e;
    assert_int_equal(mcp__redis_link_command(l, on_answer, &a, 3, argv2, len2), MCP_OK);
    EVENTUALLY(&e, a.calls == 1, 10000);
    assert_string_equal(a.str, "OK");
    round_trip(&e, l, &a, 10000, "STRLEN bin");
    assert_int_equal(a.integer, 5);
    round_trip(&e, l, &a, 10000, "STRLEN empty");
    assert_int_equal(a.type, REDIS_REPLY_INTEGER);
    assert_int_equal(a.integer, 0);

    /* What the link refuses, whatever its state. */
    memset(&a, 0, sizeof a);
    static const char *const refusals[] = {
        "SUBSCRIBE ch", "psubscribe ch", "Unsubscribe", "PUNSUBSCRIBE", "MONITOR", "pmonitor",
        "SSUBSCRIBE ch", "SELECT 1", "AUTH pw", "HELLO 3", "RESET", "QUIT", "client reply off",
    };
    for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
        if (send_cmd(&e, l, &a, "%s", refusals[i]) != MCP_ERR_INVALID_ARG)
            fail_msg("%s was not refused", refusals[i]);
    const char *crlf[] = {"GET\r\nX"};
    size_t crlf_len[] = {6};
    assert_int_equal(mcp__redis_link_command(l, on_answer, &a, 1, crlf, crlf_len),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__redis_link_command(l, on_answer, &a, 0, argv, len), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__redis_link_command(l, NULL, &a, 3, argv, len), MCP_ERR_INVALID_ARG);
    size_t huge[] = {3, 3, (size_t)600 << 20};
    assert_int_equal(mcp__redis_link_command(l, on_answer, &a, 3, argv, huge), MCP_ERR_LIMIT);
    /* A command link cannot subscribe. */
    assert_int_equal(mcp__redis_link_subscribe(l, "ch"), MCP_ERR_INVALID_ARG);
    /* CLIENT without REPLY is fine. */
    round_trip(&e, l, &a, 10000, "CLIENT GETNAME");
    assert_int_equal(a.type, REDIS_REPLY_NIL);
    run_ms(&e, 50);
    assert_int_equal(a.calls, 1);

    assert_int_equal(e.ups, 1);
    assert_int_equal(e.downs, 0);
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

static void many_commands_in_flight_answer_in_order(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 5000, false);
    EVENTUALLY(&e, e.up, 10000);
    enum { N = 2000 };
    answer *a = calloc(N, sizeof *a);
    assert_non_null(a);
    for (int i = 0; i < N; i++)
        assert_int_equal(send_cmd(&e, l, &a[i], "INCR counter"), MCP_OK);
    EVENTUALLY(&e, a[N - 1].calls == 1, 60000);
    for (int i = 0; i < N; i++) {
        assert_int_equal(a[i].calls, 1);
        assert_int_equal(a[i].type, REDIS_REPLY_INTEGER);
        assert_int_equal(a[i].integer, i + 1);
    }
    free(a);
    /* A chain: each answer sends the next from inside its callback. */
    answer c;
    memset(&c, 0, sizeof c);
    c.chain = &c;
    c.chain_left = 50;
    assert_int_equal(send_cmd(&e, l, &c, "INCR chained"), MCP_OK);
    EVENTUALLY(&e, c.calls == 51, 30000);
    assert_int_equal(c.integer, 51);
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

/* A command sent from a timer's callback, before the loop polls, is written
 * in that turn: were the write left to the end of the turn with nothing to
 * stop the poll from blocking first, the poll would sleep until the only
 * thing due, the command's own deadline, and the command would time out
 * unanswered. Several sent in one callback go out together, in order. */
typedef struct from_timer {
    env *e;
    mcp__redis_link *l;
    answer a[3];
} from_timer;

static void send_from_timer(uv_timer_t *t)
{
    from_timer *ft = t->data;
    assert_int_equal(send_cmd(ft->e, ft->l, &ft->a[0], "SET turn 1"), MCP_OK);
    assert_int_equal(send_cmd(ft->e, ft->l, &ft->a[1], "INCR turn"), MCP_OK);
    assert_int_equal(send_cmd(ft->e, ft->l, &ft->a[2], "GET turn"), MCP_OK);
}

static void a_command_sent_from_a_timer_is_written_in_its_turn(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 1500, false);
    EVENTUALLY(&e, e.up, 10000);
    uv_timer_stop(&e.tick); /* nothing else wakes the loop */
    from_timer ft = {.e = &e, .l = l};
    uv_timer_t t;
    uv_timer_init(&e.loop, &t);
    t.data = &ft;
    uv_timer_start(&t, send_from_timer, 1, 0);
    EVENTUALLY(&e, ft.a[2].calls == 1, 10000);
    for (int i = 0; i < 3; i++)
        if (ft.a[i].type == 0)
            fail_msg("command %d: %s", i, ft.a[i].error);
    assert_string_equal(ft.a[2].str, "2");
    assert_int_equal(e.downs, 0);
    uv_close((uv_handle_t *)&t, NULL);
    uv_timer_start(&e.tick, tick, 10, 10);
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

/* The 8 MB value compared whole inside its callback (the reply is borrowed). */
typedef struct big_answer {
    env *e;
    int calls;
    bool same;
    const char *want;
    size_t n;
} big_answer;

static void on_big(void *arg, const struct redisReply *r, const char *error)
{
    big_answer *b = arg;
    b->calls++;
    if (!r)
        fail_msg("GET big: %s", error);
    b->same = r->type == REDIS_REPLY_STRING && r->len == b->n && !memcmp(r->str, b->want, b->n);
}

static void an_8_mb_value_round_trips(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 60000, false);
    EVENTUALLY(&e, e.up, 10000);
    size_t n = (size_t)8 << 20;
    char *big = malloc(n);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)(i * 7 + (i >> 13));
    const char *argv[] = {"SET", "big", big};
    size_t len[] = {3, 3, n};
    answer a;
    memset(&a, 0, sizeof a);
    a.e = &e;
    assert_int_equal(mcp__redis_link_command(l, on_answer, &a, 3, argv, len), MCP_OK);
    big_answer b = {&e, 0, false, big, n};
    const char *get[] = {"GET", "big"};
    assert_int_equal(mcp__redis_link_command(l, on_big, &b, 2, get, len), MCP_OK);
    EVENTUALLY(&e, b.calls == 1, 120000);
    assert_int_equal(a.calls, 1);
    assert_string_equal(a.str, "OK");
    assert_true(b.same);
    assert_int_equal(e.downs, 0);
    free(big);
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

/* Deadlines, loss, reconnection -------------------------------------------------------- */

static void a_paused_redis_times_out_and_the_link_comes_back_by_itself(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    const uint64_t timeout = 500;
    mcp__redis_link *l = link_to(&e, s.url, timeout, false);
    EVENTUALLY(&e, e.up, 10000);
    int d0 = e.downs, u0 = e.ups; /* a busy machine may have cost an attempt */
    redis_server_pause(&s);
    answer a[3];
    memset(a, 0, sizeof a);
    for (int i = 0; i < 3; i++)
        assert_int_equal(send_cmd(&e, l, &a[i], "SET k%d v", i), MCP_OK);
    EVENTUALLY(&e, a[2].calls == 1, 10 * timeout);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(a[i].calls, 1);
        assert_int_equal(a[i].type, 0);
        assert_string_equal(a[i].error, "timed out after 500 ms");
    }
    /* Never before the deadline; all at once. */
    assert_true(a[0].at - a[0].sent >= timeout);
    assert_int_equal(a[0].turn, a[2].turn);
    assert_false(e.up);
    assert_int_equal(e.downs, d0 + 1);
    assert_string_equal(e.why, "timed out after 500 ms");
    assert_false(mcp__redis_link_up(l));
    assert_string_equal(mcp__redis_link_why(l), "timed out after 500 ms");
    /* Down: refused. */
    answer r;
    memset(&r, 0, sizeof r);
    assert_int_equal(send_cmd(&e, l, &r, "GET k0"), MCP_ERR_CLOSED);
    /* Attempts meanwhile time out on the connect (a stopped Redis still
     * accepts: its kernel does). */
    EVENTUALLY(&e, e.downs >= d0 + 2, 20 * timeout);
    assert_non_null(strstr(e.why, "connect timed out after 500 ms"));
    redis_server_resume(&s);
    EVENTUALLY(&e, e.up, 30000);
    assert_int_equal(e.ups, u0 + 1);
    round_trip(&e, l, &r, 10000, "SET k v");
    assert_string_equal(r.str, "OK");
    assert_int_equal(r.calls, 1);
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

static void a_killed_redis_fails_what_is_pending_and_a_restart_is_found(void **state)
{
    redis_server s;
    start(&s, &(redis_server_options){.appendonly = true});
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 10000, false);
    EVENTUALLY(&e, e.up, 10000);
    answer set, pop;
    round_trip(&e, l, &set, 10000, "SET kept yes");
    memset(&pop, 0, sizeof pop);
    assert_int_equal(send_cmd(&e, l, &pop, "BLPOP nothing 0"), MCP_OK);
    run_ms(&e, 100);
    assert_int_equal(pop.calls, 0);
    redis_server_kill(&s);
    EVENTUALLY(&e, pop.calls == 1, 5000); /* well before its 10 s deadline */
    assert_int_equal(pop.type, 0);
    assert_non_null(strstr(pop.error, "connection lost: "));
    EVENTUALLY(&e, !e.up, 5000);
    assert_int_equal(e.downs, 1);
    assert_string_equal(e.why, pop.error);
    /* Retried meanwhile: refused, with backoff. */
    EVENTUALLY(&e, e.downs >= 3, 10000);
    assert_non_null(strstr(e.why, "connect failed: "));
    assert_true(redis_server_restart(&s));
    EVENTUALLY(&e, e.up, 30000);
    assert_int_equal(e.ups, 2);
    answer got;
    round_trip(&e, l, &got, 10000, "GET kept");
    assert_string_equal(got.str, "yes"); /* the AOF survived the kill */
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

static void nobody_listening_is_retried_with_backoff_until_a_server_starts(void **state)
{
    int port = redis_server_free_port();
    assert_true(port > 0);
    char url[64];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", port);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, url, 1000, false); /* backoff 20..400 ms */
    EVENTUALLY(&e, e.downs >= 1, 10000);
    assert_non_null(strstr(e.why, "Connection refused"));
    assert_non_null(strstr(e.why, "connect failed: "));
    assert_string_equal(mcp__redis_link_why(l), e.why);
    uint64_t t0 = now_ms();
    int d0 = e.downs;
    run_ms(&e, 2000);
    /* Retried, but not spinning: 20+40+80+160+400+400... fits 2 s about
     * six times; a few more for the timer's slack. */
    assert_true(e.downs > d0);
    if (e.downs - d0 > 12)
        fail_msg("%d attempts in %llu ms", e.downs - d0, (unsigned long long)(now_ms() - t0));
    assert_int_equal(e.ups, 0);
    redis_server s;
    assert_true(redis_server_start_on(&s, NULL, port));
    EVENTUALLY(&e, e.up, 10000);
    answer a;
    round_trip(&e, l, &a, 10000, "PING");
    assert_string_equal(a.str, "PONG");
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

static void a_host_name_is_resolved(void **state)
{
    redis_server s;
    start(&s, NULL);
    char url[64];
    snprintf(url, sizeof url, "redis://localhost:%d", s.port);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, url, 5000, false);
    EVENTUALLY(&e, e.up, 10000);
    answer a;
    round_trip(&e, l, &a, 10000, "PING");
    assert_string_equal(a.str, "PONG");
    env_done(&e, &l, 1);
    /* A name that does not resolve: down, said so (closed while it may
     * still be resolving). */
    env_init(&e);
    l = link_to(&e, "redis://no-such-host.invalid:1", 5000, false);
    EVENTUALLY(&e, e.downs >= 1, 20000);
    assert_non_null(strstr(e.why, "no-such-host.invalid"));
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

/* AUTH and SELECT ------------------------------------------------------------------------ */

static void auth_with_a_password_and_a_user(void **state)
{
    redis_server s;
    start(&s, &(redis_server_options){.password = "t0p s3cret"});
    env e;
    env_init(&e);
    char url[128];
    snprintf(url, sizeof url, "redis://:t0p%%20s3cret@127.0.0.1:%d", s.port);
    mcp__redis_link *l = link_to(&e, url, 5000, false);
    snprintf(url, sizeof url, "redis://default:t0p%%20s3cret@127.0.0.1:%d/1", s.port);
    env e2;
    env_init(&e2);
    mcp__redis_link *l2 = link_to(&e2, url, 5000, false);
    EVENTUALLY(&e, e.up, 10000);
    EVENTUALLY(&e2, e2.up, 10000);
    answer a;
    round_trip(&e, l, &a, 10000, "SET k v");
    assert_string_equal(a.str, "OK");
    round_trip(&e2, l2, &a, 10000, "SET k v2");
    assert_string_equal(a.str, "OK");
    env_done(&e, &l, 1);
    env_done(&e2, &l2, 1);
    redis_server_destroy(&s);
}

static void a_wrong_password_is_down_with_redis_words_and_retried_calmly(void **state)
{
    redis_server s;
    start(&s, &(redis_server_options){.password = "right"});
    char url[128];
    snprintf(url, sizeof url, "redis://:wrong@127.0.0.1:%d", s.port);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, url, 5000, false);
    EVENTUALLY(&e, e.downs >= 1, 10000);
    assert_non_null(strstr(e.why, "AUTH failed: "));
    assert_non_null(strstr(e.why, "WRONGPASS"));
    int d0 = e.downs;
    run_ms(&e, 2000);
    assert_true(e.downs > d0);
    if (e.downs - d0 > 12)
        fail_msg("%d attempts in 2 s", e.downs - d0);
    assert_int_equal(e.ups, 0);
    env_done(&e, &l, 1);
    /* None at all: PING is refused, in Redis's words. */
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", s.port);
    env_init(&e);
    l = link_to(&e, url, 5000, false);
    EVENTUALLY(&e, e.downs >= 1, 10000);
    assert_non_null(strstr(e.why, "PING failed: NOAUTH"));
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

static void select_picks_the_db(void **state)
{
    redis_server s;
    start(&s, NULL);
    char url[64];
    env e;
    env_init(&e);
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/3", s.port);
    mcp__redis_link *in3 = link_to(&e, url, 5000, false);
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", s.port);
    mcp__redis_link *in0 = link_to(&e, url, 5000, false);
    EVENTUALLY(&e, e.ups == 2, 10000);
    answer a;
    round_trip(&e, in3, &a, 10000, "SET where three");
    round_trip(&e, in0, &a, 10000, "GET where");
    assert_int_equal(a.type, REDIS_REPLY_NIL);
    round_trip(&e, in3, &a, 10000, "GET where");
    assert_string_equal(a.str, "three");
    redisContext *c = redis_server_connect(&s);
    assert_non_null(c);
    redisReply *r = redisCommand(c, "SELECT 3");
    freeReplyObject(r);
    r = redisCommand(c, "GET where");
    assert_non_null(r);
    assert_int_equal(r->type, REDIS_REPLY_STRING);
    assert_string_equal(r->str, "three");
    freeReplyObject(r);
    redisFree(c);
    /* A db Redis does not have: down, in its words. */
    snprintf(url, sizeof url, "redis://127.0.0.1:%d/99", s.port);
    env e2;
    env_init(&e2);
    mcp__redis_link *bad = link_to(&e2, url, 5000, false);
    EVENTUALLY(&e2, e2.downs >= 1, 10000);
    assert_non_null(strstr(e2.why, "SELECT 99 failed: "));
    assert_non_null(strstr(e2.why, "out of range"));
    env_done(&e2, &bad, 1);
    mcp__redis_link *both[] = {in3, in0};
    env_done(&e, both, 2);
    redis_server_destroy(&s);
}

/* Subscriptions ---------------------------------------------------------------------------- */

/* PUBLISH until one subscriber heard it: a SUBSCRIBE sent on the other
 * connection may reach Redis after the PUBLISH. */
static void publish_heard(env *e, mcp__redis_link *pub, const char *cmd)
{
    uint64_t until = now_ms() + 10000;
    answer a;
    do {
        round_trip(e, pub, &a, 10000, cmd);
        assert_int_equal(a.type, REDIS_REPLY_INTEGER);
    } while (a.integer != 1 && now_ms() < until);
    assert_int_equal(a.integer, 1);
}

static void a_subscriber_gets_what_is_published_and_again_after_a_restart(void **state)
{
    redis_server s;
    start(&s, NULL);
    env ec, es;
    env_init(&ec);
    env_init(&es);
    mcp__redis_link *pub = link_to(&ec, s.url, 5000, false);
    /* On the same loop as the publisher: the subscriber's env gets its
     * callbacks, the loop is ec's. */
    mcp__redis_link_options o = {.timeout_ms = 5000,
                                 .backoff_min_ms = 20,
                                 .backoff_max_ms = 400,
                                 .state = on_state,
                                 .message = on_message,
                                 .arg = &es};
    assert_true(mcp__redis_url_parse(s.url, &o.address, NULL, 0));
    mcp__redis_link *sub;
    assert_int_equal(mcp__redis_link_new(&ec.loop, &o, &sub), MCP_OK);
    es.link = sub;
    es.in_call = true;
    assert_int_equal(mcp__redis_link_subscribe(sub, "tasks"), MCP_OK);
    assert_int_equal(mcp__redis_link_subscribe(sub, "tasks"), MCP_OK); /* once */
    es.in_call = false;
    EVENTUALLY(&ec, ec.up && es.up, 10000);
    answer a;
    round_trip(&ec, pub, &a, 10000, "PUBLISH tasks hello");
    assert_int_equal(a.type, REDIS_REPLY_INTEGER);
    assert_int_equal(a.integer, 1); /* one subscriber: ours, once */
    EVENTUALLY(&ec, es.messages == 1, 10000);
    assert_string_equal(es.channel, "tasks");
    assert_string_equal(es.data, "hello");
    /* Subscribed once up, and from inside the message callback. */
    assert_int_equal(mcp__redis_link_subscribe(sub, "more"), MCP_OK);
    es.subscribe_on_message = true;
    publish_heard(&ec, pub, "PUBLISH more m1");
    EVENTUALLY(&ec, es.messages == 2, 10000);
    assert_string_equal(es.channel, "more");
    assert_string_equal(es.data, "m1");
    es.subscribe_on_message = false;
    publish_heard(&ec, pub, "PUBLISH late l1");
    EVENTUALLY(&ec, es.messages == 3, 10000);
    assert_string_equal(es.channel, "late");
    /* Neither kind of link does the other's work. */
    memset(&a, 0, sizeof a);
    assert_int_equal(send_cmd(&es, sub, &a, "GET k"), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__redis_link_subscribe(sub, ""), MCP_ERR_INVALID_ARG);
    char longname[1100];
    memset(longname, 'c', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(mcp__redis_link_subscribe(sub, longname), MCP_ERR_INVALID_ARG);

    /* Restart: both come back; the subscriber subscribed again. */
    redis_server_stop(&s);
    EVENTUALLY(&ec, !ec.up && !es.up, 10000);
    assert_true(es.downs >= 1); /* and maybe a refused retry already */
    assert_true(redis_server_restart(&s));
    EVENTUALLY(&ec, ec.up && es.up, 30000);
    assert_int_equal(es.ups, 2);
    round_trip(&ec, pub, &a, 10000, "PUBLISH tasks again");
    assert_int_equal(a.integer, 1);
    EVENTUALLY(&ec, es.messages == 4, 10000);
    assert_string_equal(es.channel, "tasks");
    assert_string_equal(es.data, "again");
    round_trip(&ec, pub, &a, 10000, "PUBLISH late l2");
    assert_int_equal(a.integer, 1);
    EVENTUALLY(&ec, es.messages == 5, 10000);
    assert_string_equal(es.data, "l2");
    /* Nothing on the heartbeat's channel reaches the user. */
    round_trip(&ec, pub, &a, 10000, "PUBLISH __mcp_redis_link_heartbeat__ x");
    assert_int_equal(a.integer, 1);
    run_ms(&ec, 100);
    assert_int_equal(es.messages, 5);

    mcp__redis_link *both[] = {pub, sub};
    env_done(&ec, both, 2);
    env_finish(&es);
    redis_server_destroy(&s);
}

static void an_idle_subscriber_sees_a_paused_redis_by_its_heartbeat(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    const uint64_t timeout = 1000;
    mcp__redis_link *sub = link_to(&e, s.url, timeout, true);
    EVENTUALLY(&e, e.up, 10000);
    /* Up before it had a kind: the subscription (and the heartbeat) start
     * now. */
    e.in_call = true;
    assert_int_equal(mcp__redis_link_subscribe(sub, "ch"), MCP_OK);
    e.in_call = false;
    mcp__redis_link *pub = link_to(&e, s.url, 5000, false);
    EVENTUALLY(&e, e.ups == 2, 10000);
    publish_heard(&e, pub, "PUBLISH ch hi");
    EVENTUALLY(&e, e.messages == 1, 10000);
    assert_string_equal(e.data, "hi");
    mcp__redis_link_close(pub, on_closed, &e);
    EVENTUALLY(&e, e.closed == 1, 10000);
    e.link = sub;
    /* Idle and healthy: it stays up across several heartbeats. */
    run_ms(&e, 3 * timeout);
    assert_true(e.up);
    assert_int_equal(e.downs, 0);
    redis_server_pause(&s);
    /* No lower bound on when it goes down: a beat sent just before the
     * pause and never answered times out less than timeout_ms after it.
     * The reason says it was the deadline. */
    EVENTUALLY(&e, !e.up, 10 * timeout);
    assert_string_equal(e.why, "timed out after 1000 ms");
    redis_server_resume(&s);
    EVENTUALLY(&e, e.up, 30000);
    assert_int_equal(e.ups, 3);
    env_done(&e, &sub, 1);
    redis_server_destroy(&s);
}

/* Close, from everywhere ----------------------------------------------------------------- */

static void close_answers_each_pending_command_closed_at_once(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 5000, false);
    EVENTUALLY(&e, e.up, 10000);
    redis_server_pause(&s); /* so that they stay pending */
    answer a[5];
    memset(a, 0, sizeof a);
    for (int i = 0; i < 5; i++)
        assert_int_equal(send_cmd(&e, l, &a[i], "GET k"), MCP_OK);
    e.closing = true;
    mcp__redis_link_close(l, on_closed, &e);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(a[i].calls, 1);
        assert_string_equal(a[i].error, "closed");
    }
    assert_int_equal(e.closed, 0); /* later, from the loop */
    assert_false(mcp__redis_link_up(l));
    assert_string_equal(mcp__redis_link_why(l), "closed");
    answer late;
    memset(&late, 0, sizeof late);
    assert_int_equal(send_cmd(&e, l, &late, "GET k"), MCP_ERR_CLOSED);
    mcp__redis_link_close(l, on_closed, &e); /* twice: nothing more */
    EVENTUALLY(&e, e.closed == 1, 10000);
    for (int i = 0; i < 5; i++)
        assert_int_equal(a[i].calls, 1);
    assert_false(e.after_close);
    env_finish(&e);
    redis_server_resume(&s);
    redis_server_destroy(&s);
}

static void close_from_inside_a_reply_callback(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 5000, false);
    EVENTUALLY(&e, e.up, 10000);
    answer a[4];
    memset(a, 0, sizeof a);
    for (int i = 0; i < 4; i++)
        assert_int_equal(send_cmd(&e, l, &a[i], "INCR n"), MCP_OK);
    a[1].close_link = true;
    EVENTUALLY(&e, e.closed == 1, 10000);
    assert_int_equal(a[0].integer, 1);
    assert_int_equal(a[1].integer, 2);
    for (int i = 2; i < 4; i++) {
        assert_int_equal(a[i].calls, 1);
        assert_string_equal(a[i].error, "closed");
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(a[i].calls, 1);
    assert_false(e.after_close);
    env_finish(&e);
    redis_server_destroy(&s);
}

static void close_from_inside_the_state_callback(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    e.close_on_up = true;
    link_to(&e, s.url, 5000, false);
    EVENTUALLY(&e, e.closed == 1, 10000);
    assert_int_equal(e.ups, 1);
    assert_false(e.after_close);
    env_finish(&e);
    /* And from a state callback that says down (an error timed out). */
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 500, false);
    EVENTUALLY(&e, e.up, 10000);
    int d0 = e.downs;
    redis_server_pause(&s);
    answer a[2];
    memset(a, 0, sizeof a);
    assert_int_equal(send_cmd(&e, l, &a[0], "GET k"), MCP_OK);
    a[0].close_link = true; /* closes from the first error */
    assert_int_equal(send_cmd(&e, l, &a[1], "GET k"), MCP_OK);
    EVENTUALLY(&e, e.closed == 1, 10000);
    assert_string_equal(a[0].error, "timed out after 500 ms");
    assert_string_equal(a[1].error, "closed");
    assert_int_equal(e.downs, d0); /* closed before the state callback */
    env_finish(&e);
    redis_server_resume(&s);
    redis_server_destroy(&s);
}

static void close_from_inside_the_message_callback(void **state)
{
    redis_server s;
    start(&s, NULL);
    env ec, es;
    env_init(&ec);
    env_init(&es);
    mcp__redis_link *pub = link_to(&ec, s.url, 5000, false);
    mcp__redis_link_options o = {.timeout_ms = 5000, .state = on_state, .message = on_message,
                                 .arg = &es};
    assert_true(mcp__redis_url_parse(s.url, &o.address, NULL, 0));
    mcp__redis_link *sub;
    assert_int_equal(mcp__redis_link_new(&ec.loop, &o, &sub), MCP_OK);
    es.link = sub;
    assert_int_equal(mcp__redis_link_subscribe(sub, "a"), MCP_OK);
    assert_int_equal(mcp__redis_link_subscribe(sub, "b"), MCP_OK);
    EVENTUALLY(&ec, ec.up && es.up, 10000);
    es.close_on_message = true;
    /* Two messages in one read: the second never reaches the closed link. */
    answer a1, a2;
    memset(&a1, 0, sizeof a1);
    memset(&a2, 0, sizeof a2);
    assert_int_equal(send_cmd(&ec, pub, &a1, "PUBLISH a one"), MCP_OK);
    assert_int_equal(send_cmd(&ec, pub, &a2, "PUBLISH b two"), MCP_OK);
    EVENTUALLY(&ec, es.closed == 1, 10000);
    EVENTUALLY(&ec, a2.calls == 1, 10000);
    assert_int_equal(es.messages, 1);
    assert_string_equal(es.data, "one");
    assert_false(es.after_close);
    env_done(&ec, &pub, 1);
    env_finish(&es);
    redis_server_destroy(&s);
}

static void close_while_connecting_and_while_waiting(void **state)
{
    /* From the state callback that says an attempt failed. */
    {
        env e;
        env_init(&e);
        e.close_on_down = true;
        link_to(&e, "redis://127.0.0.1:1", 1000, false);
        EVENTUALLY(&e, e.closed == 1, 10000);
        run_ms(&e, 100);
        assert_int_equal(e.downs, 1);
        assert_false(e.after_close);
        env_finish(&e);
    }
    /* Closed before the first attempt ran. */
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, "redis://127.0.0.1:1", 1000, false);
    env_done(&e, &l, 1);
    assert_int_equal(e.downs, 0);
    /* Closed in its backoff. */
    env_init(&e);
    l = link_to(&e, "redis://127.0.0.1:1", 1000, false);
    EVENTUALLY(&e, e.downs >= 1, 10000);
    env_done(&e, &l, 1);
    /* Closed mid-handshake, against a paused Redis. */
    redis_server s;
    start(&s, NULL);
    redis_server_pause(&s);
    env_init(&e);
    l = link_to(&e, s.url, 5000, false);
    run_ms(&e, 200);
    assert_int_equal(e.ups + e.downs, 0);
    env_done(&e, &l, 1);
    redis_server_resume(&s);
    redis_server_destroy(&s);
}

static void subscriptions_are_capped_and_kinds_kept_apart(void **state)
{
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, "redis://127.0.0.1:1", 1000, true);
    char name[32];
    for (int i = 0; i < 4096; i++) {
        snprintf(name, sizeof name, "ch%d", i);
        assert_int_equal(mcp__redis_link_subscribe(l, name), MCP_OK);
    }
    assert_int_equal(mcp__redis_link_subscribe(l, "ch7"), MCP_OK); /* already */
    assert_int_equal(mcp__redis_link_subscribe(l, "one-more"), MCP_ERR_LIMIT);
    assert_int_equal(mcp__redis_link_subscribe(l, "__mcp_redis_link_heartbeat__"),
                     MCP_ERR_INVALID_ARG);
    char longest[1025];
    memset(longest, 'x', 1024);
    longest[1024] = '\0';
    assert_int_equal(mcp__redis_link_subscribe(l, longest), MCP_ERR_LIMIT); /* 4096 already */
    answer a;
    memset(&a, 0, sizeof a);
    assert_int_equal(send_cmd(&e, l, &a, "PING"), MCP_ERR_INVALID_ARG);
    env_done(&e, &l, 1);
    assert_int_equal(a.calls, 0);

    env_init(&e);
    l = link_to(&e, "redis://127.0.0.1:1", 1000, true);
    assert_int_equal(mcp__redis_link_subscribe(l, longest), MCP_OK); /* 1024 bytes: fine */
    mcp__redis_link_close(l, on_closed, &e);
    assert_int_equal(mcp__redis_link_subscribe(l, "late"), MCP_ERR_CLOSED);
    EVENTUALLY(&e, e.closed == 1, 10000);
    env_finish(&e);

    /* Bad options. */
    env_init(&e);
    mcp__redis_link_options o = {.address = {.host = "h", .port = 0}};
    assert_int_equal(mcp__redis_link_new(&e.loop, &o, &l), MCP_ERR_INVALID_ARG);
    o.address.port = 1;
    o.address.host[0] = '\0';
    assert_int_equal(mcp__redis_link_new(&e.loop, &o, &l), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__redis_link_new(&e.loop, NULL, &l), MCP_ERR_INVALID_ARG);
    env_finish(&e);
}

/* Each allocation inside a command failing in turn (ours, hiredis's
 * formatting, its callback list, its output buffer): MCP_ERR_NOMEM and fn
 * never called, or MCP_OK and fn called once; a connection hiredis can no
 * longer pair replies on is dropped and a new one comes up, whose replies
 * are the right ones. */
static void each_allocation_failure_in_a_command_is_survived(void **state)
{
    if (!oom_works()) {
        print_message("malloc cannot be made to fail here (valgrind, a sanitizer): skipped\n");
        skip();
    }
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 5000, false);
    EVENTUALLY(&e, e.up, 10000);
    answer a;
    round_trip(&e, l, &a, 10000, "SET k 0"); /* a command link from here */
    int broken = 0;
    for (long k = 1;; k++) {
        if (k > 50)
            fail_msg("still failing at allocation %ld", k);
        memset(&a, 0, sizeof a);
        char big[9000];
        memset(big, 'v', sizeof big - 1); /* past hiredis's output buffer's room */
        big[sizeof big - 1] = '\0';
        oom_arm(k);
        int rc = send_cmd(&e, l, &a, "SET k %s", big);
        bool failed = oom_failed;
        oom_arm(0);
        if (!failed) {
            assert_int_equal(rc, MCP_OK);
            EVENTUALLY(&e, a.calls == 1, 10000);
            assert_string_equal(a.str, "OK");
            break;
        }
        if (rc == MCP_OK) {
            EVENTUALLY(&e, a.calls == 1, 10000);
        } else {
            assert_int_equal(rc, MCP_ERR_NOMEM);
            run_ms(&e, 20);
            assert_int_equal(a.calls, 0);
        }
        if (!mcp__redis_link_up(l)) {
            broken++;
            assert_non_null(strstr(mcp__redis_link_why(l), "sending failed: "));
            EVENTUALLY(&e, e.up && mcp__redis_link_up(l), 10000);
        }
        answer p;
        round_trip(&e, l, &p, 10000, "ECHO paired");
        assert_string_equal(p.str, "paired");
    }
    /* The callback list's and the output buffer's failures break it. */
    assert_true(broken >= 1);
    assert_int_equal(e.downs, broken);
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

/* The writes at the turn's end, attacked ------------------------------------------------ */

/* The descriptor of this process's connection to 127.0.0.1:port, or -1. */
static int link_fd(int port)
{
    DIR *d = opendir("/proc/self/fd");
    int found = -1;
    for (struct dirent *de; d && (de = readdir(d));) {
        int fd = atoi(de->d_name);
        struct sockaddr_in a;
        socklen_t n = sizeof a;
        if (fd > 2 && getpeername(fd, (struct sockaddr *)&a, &n) == 0 && a.sin_family == AF_INET &&
            ntohs(a.sin_port) == port)
            found = fd;
    }
    if (d)
        closedir(d);
    return found;
}

/* write_now's redisBufferWrite fails (the socket's sending side shut):
 * what was pending is answered, the link comes back, nothing leaks. */
static void a_write_that_fails_in_the_flush(void **state)
{
    signal(SIGPIPE, SIG_IGN);
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 5000, false);
    EVENTUALLY(&e, e.up, 10000);
    int fd = link_fd(s.port);
    assert_true(fd >= 0);
    redis_server_pause(&s); /* it does not answer the shutdown with its own close */
    assert_int_equal(shutdown(fd, SHUT_WR), 0);
    answer a[3];
    memset(a, 0, sizeof a);
    for (int i = 0; i < 3; i++)
        assert_int_equal(send_cmd(&e, l, &a[i], "INCR n"), MCP_OK);
    EVENTUALLY(&e, a[2].calls == 1, 10000);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(a[i].calls, 1);
        assert_int_equal(a[i].type, 0);
        print_message("answer %d: %s\n", i, a[i].error);
        assert_non_null(strstr(a[i].error, "sending failed"));
    }
    redis_server_resume(&s);
    EVENTUALLY(&e, e.up && mcp__redis_link_up(l), 10000);
    answer r;
    round_trip(&e, l, &r, 10000, "INCR n");
    assert_int_equal(r.integer, 1);
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

/* From inside a reply callback: a command sent (a flush scheduled), then
 * the link closed. */
static answer sent_inside;
static void send_then_close(void *arg, const struct redisReply *r, const char *error)
{
    answer *a = arg;
    on_answer(arg, r, error);
    assert_int_equal(send_cmd(a->e, a->e->link, &sent_inside, "INCR n"), MCP_OK);
    a->e->closing = true;
    mcp__redis_link_close(a->e->link, on_closed, a->e);
}

static void close_inside_a_reply_with_a_flush_scheduled(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 5000, false);
    EVENTUALLY(&e, e.up, 10000);
    memset(&sent_inside, 0, sizeof sent_inside);
    answer a;
    memset(&a, 0, sizeof a);
    a.e = &e;
    const char *argv[] = {"INCR", "n"};
    size_t len[] = {4, 1};
    assert_int_equal(mcp__redis_link_command(l, send_then_close, &a, 2, argv, len), MCP_OK);
    EVENTUALLY(&e, e.closed == 1, 10000);
    assert_int_equal(a.integer, 1);
    assert_int_equal(sent_inside.calls, 1);
    assert_string_equal(sent_inside.error, "closed");
    env_finish(&e);
    redis_server_destroy(&s);
}

/* A write left half done (8 MB: the socket's buffer fills, WRITABLE
 * watched), then commands appended turn after turn: all answered, in
 * order. */
static void commands_appended_behind_a_partial_write(void **state)
{
    redis_server s;
    start(&s, NULL);
    env e;
    env_init(&e);
    mcp__redis_link *l = link_to(&e, s.url, 60000, false);
    EVENTUALLY(&e, e.up, 10000);
    size_t n = (size_t)8 << 20;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'b', n);
    const char *argv[] = {"SET", "big", big};
    size_t len[] = {3, 3, n};
    answer set;
    memset(&set, 0, sizeof set);
    set.e = &e;
    assert_int_equal(mcp__redis_link_command(l, on_answer, &set, 3, argv, len), MCP_OK);
    enum { N = 20 };
    answer a[N];
    memset(a, 0, sizeof a);
    for (int i = 0; i < N; i++) {
        uv_run(&e.loop, UV_RUN_NOWAIT);
        assert_int_equal(send_cmd(&e, l, &a[i], "INCR n"), MCP_OK);
    }
    EVENTUALLY(&e, a[N - 1].calls == 1, 60000);
    assert_string_equal(set.str, "OK");
    for (int i = 0; i < N; i++)
        assert_int_equal(a[i].integer, i + 1);
    free(big);
    env_done(&e, &l, 1);
    redis_server_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(commands_round_trip_and_an_error_reply_is_a_reply),
        cmocka_unit_test(many_commands_in_flight_answer_in_order),
        cmocka_unit_test(a_command_sent_from_a_timer_is_written_in_its_turn),
        cmocka_unit_test(an_8_mb_value_round_trips),
        cmocka_unit_test(a_paused_redis_times_out_and_the_link_comes_back_by_itself),
        cmocka_unit_test(a_killed_redis_fails_what_is_pending_and_a_restart_is_found),
        cmocka_unit_test(nobody_listening_is_retried_with_backoff_until_a_server_starts),
        cmocka_unit_test(a_host_name_is_resolved),
        cmocka_unit_test(auth_with_a_password_and_a_user),
        cmocka_unit_test(a_wrong_password_is_down_with_redis_words_and_retried_calmly),
        cmocka_unit_test(select_picks_the_db),
        cmocka_unit_test(a_subscriber_gets_what_is_published_and_again_after_a_restart),
        cmocka_unit_test(an_idle_subscriber_sees_a_paused_redis_by_its_heartbeat),
        cmocka_unit_test(close_answers_each_pending_command_closed_at_once),
        cmocka_unit_test(close_from_inside_a_reply_callback),
        cmocka_unit_test(close_from_inside_the_state_callback),
        cmocka_unit_test(close_from_inside_the_message_callback),
        cmocka_unit_test(close_while_connecting_and_while_waiting),
        cmocka_unit_test(subscriptions_are_capped_and_kinds_kept_apart),
        cmocka_unit_test(each_allocation_failure_in_a_command_is_survived),
        cmocka_unit_test(a_write_that_fails_in_the_flush),
        cmocka_unit_test(close_inside_a_reply_with_a_flush_scheduled),
        cmocka_unit_test(commands_appended_behind_a_partial_write),
    };
    if (getenv("TEST_FILTER"))
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    const char *missing = redis_server_missing();
    if (missing)
        return test_missing(missing);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
