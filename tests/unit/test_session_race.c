/*
 * Randomized race test of the session engine, both roles at once.
 *
 * A client and a server session are wired together through two FIFO queues.
 * Each episode performs random interleavings of: calls, replies (results and
 * errors), progress, cancels (both directions: client calls and server
 * requests), timeouts (clock jumps), message deliveries in either direction,
 * bad input, and finally close. Invariants checked on every step:
 *
 * - every outbound request ends exactly once (and all have ended after
 *   close);
 * - every inbound request settles exactly once (reply or cancel);
 * - nothing is ever sent for a settled request: no second response, no
 *   response or progress after a cancel;
 * - progress on the wire strictly increases per token;
 * - the tables are empty after close (and ASan/LSan see no leak).
 *
 * MCP_RACE_EPISODES overrides the episode count (default 100,000);
 * MCP_RACE_SEED the seed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/session.h"

#define MAXQ 512
#define MAXREQ 128

typedef struct queue {
    char *lines[MAXQ];
    int head, tail;
} queue;

/* What one side knows about the other side's requests (by wire id). */
typedef struct inbound_rec {
    mcp_handle handle;
    int64_t wire_id;
    int settles;      /* replies that succeeded + cancels */
    bool cancelled;   /* on_cancel seen */
    bool replied;     /* a response went on the wire */
    bool has_token;
    double progress;  /* last progress sent */
} inbound_rec;

typedef struct side {
    const char *name;
    mcp_session *s;
    queue *out;
    inbound_rec in[MAXREQ];
    int nin;
    mcp_handle calls[MAXREQ];
    int call_endings[MAXREQ];
    int ncalls;
    /* progress seen on the wire, per token (our outbound progress) */
    double wire_progress[MAXREQ];
    int64_t wire_progress_token[MAXREQ];
    int nwire_progress;
} side;

typedef struct world {
    side client, server;
    queue c2s, s2c;
    uint64_t now;
    uint64_t rng;
    bool ready;
} world;

static uint64_t rnd(world *w)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return w->rng;
}

static unsigned pick(world *w, unsigned n)
{
    return (unsigned)(rnd(w) % n);
}

static void q_push(queue *q, const char *line, size_t len)
{
    assert_true(q->tail - q->head < MAXQ);
    q->lines[q->tail++ % MAXQ] = strndup(line, len);
}

static char *q_pop(queue *q)
{
    if (q->head == q->tail)
        return NULL;
    return q->lines[q->head++ % MAXQ];
}

static inbound_rec *find_in_by_wire(side *sd, int64_t id)
{
    for (int i = 0; i < sd->nin; i++)
        if (sd->in[i].wire_id == id)
            return &sd->in[i];
    return NULL;
}

static inbound_rec *find_in_by_handle(side *sd, mcp_handle h)
{
    for (int i = 0; i < sd->nin; i++)
        if (sd->in[i].handle == h)
            return &sd->in[i];
    return NULL;
}

/* Everything a side sends passes through here: the invariants on output. */
static int on_send(void *ud, uint64_t route, const char *data, size_t len)
{
    side *sd = ud;
    const char *p = data;
    while (p < data + len) {
        const char *nl = memchr(p, '\n', (size_t)(data + len - p));
        assert_non_null(nl);
        mcp_message *m;
        assert_int_equal(mcp_message_decode(p, (size_t)(nl - p), NULL, NULL, &m, NULL), MCP_OK);
        if ((m->kind == MCP_MESSAGE_RESULT || m->kind == MCP_MESSAGE_ERROR) &&
            m->id.kind == MCP_ID_INT) {
            inbound_rec *r = find_in_by_wire(sd, m->id.num);
            if (r) {
                if (r->cancelled || r->replied)
                    fail_msg("%s sent a response for settled request %lld", sd->name,
                             (long long)m->id.num);
                r->replied = true;
            }
        }
        if (m->kind == MCP_MESSAGE_NOTIFICATION &&
            strcmp(m->method, "notifications/progress") == 0) {
            int64_t tok;
            double v;
            assert_int_equal(mcp_json_get_int64(mcp_json_object_get(m->params, "progressToken"), &tok), MCP_OK);
            assert_int_equal(mcp_json_get_double(mcp_json_object_get(m->params, "progress"), &v), MCP_OK);
            /* Tokens in this test are the wire ids of the requests. */
            inbound_rec *r = find_in_by_wire(sd, tok);
            assert_non_null(r);
            if (r->cancelled || r->replied)
                fail_msg("%s sent progress after settle for %lld", sd->name, (long long)tok);
            int k;
            for (k = 0; k < sd->nwire_progress && sd->wire_progress_token[k] != tok; k++)
                ;
            if (k < sd->nwire_progress) {
                assert_true(v > sd->wire_progress[k]);
            } else {
                assert_true(sd->nwire_progress < MAXREQ);
                sd->wire_progress_token[k] = tok;
                sd->nwire_progress++;
            }
            sd->wire_progress[k] = v;
        }
        mcp_message_free(m);
        q_push(sd->out, p, (size_t)(nl - p));
        p = nl + 1;
    }
    return MCP_OK;
}

static void on_request(void *ud, mcp_handle h, const mcp_message *msg)
{
    side *sd = ud;
    assert_true(sd->nin < MAXREQ);
    assert_int_equal(msg->id.kind, MCP_ID_INT);
    assert_null(find_in_by_wire(sd, msg->id.num)); /* ids are never reused */
    inbound_rec *r = &sd->in[sd->nin++];
    memset(r, 0, sizeof *r);
    r->handle = h;
    r->wire_id = msg->id.num;
    r->has_token = mcp_json_object_get(mcp_json_object_get(msg->params, "_meta"),
                                       "progressToken") != NULL;
}

static void on_cancel(void *ud, mcp_handle h, const char *reason)
{
    side *sd = ud;
    inbound_rec *r = find_in_by_handle(sd, h);
    assert_non_null(r);
    assert_false(r->cancelled);
    assert_false(r->replied);
    r->cancelled = true;
    r->settles++;
    assert_int_equal(r->settles, 1);
}

/* How often the interesting races happened, so the test proves its
 * generator reaches them. */
static long stats[8];
enum { ST_CANCEL_RECEIVED, ST_CANCEL_IGNORED, ST_DROPPED, ST_TIMED_OUT, ST_MAX_TIME,
       ST_CLOSED, ST_REFUSED_REPLY };

static void on_log(void *ud, const mcp_log_record *r)
{
    switch (r->event) {
    case MCP_LOG_EVENT_CANCEL_RECEIVED: stats[ST_CANCEL_RECEIVED]++; break;
    case MCP_LOG_EVENT_CANCEL_IGNORED: stats[ST_CANCEL_IGNORED]++; break;
    case MCP_LOG_EVENT_DROPPED: stats[ST_DROPPED]++; break;
    case MCP_LOG_EVENT_CLOSED: stats[ST_CLOSED]++; break;
    case MCP_LOG_EVENT_CANCEL_SENT:
        if (r->reason && strstr(r->reason, "timed out"))
            stats[ST_TIMED_OUT]++;
        if (r->reason && strstr(r->reason, "maximum total time"))
            stats[ST_MAX_TIME]++;
        break;
    default: break;
    }
}

static void on_response(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    side *sd = ud;
    for (int i = 0; i < sd->ncalls; i++)
        if (sd->calls[i] == h) {
            sd->call_endings[i]++;
            assert_int_equal(sd->call_endings[i], 1);
            if (outcome == MCP_OK || outcome == MCP_ERR_REMOTE)
                assert_non_null(m);
            else
                assert_null(m);
            return;
        }
    /* initialize, not recorded as a call */
}

static void make_side(world *w, side *sd, const char *name, mcp_role role, queue *out)
{
    memset(sd, 0, sizeof *sd);
    sd->name = name;
    sd->out = out;
    mcp_session_options o = {.size = sizeof o, .role = role, .timeout_ms = 3000, .max_time_ms = 8000};
    mcp_session_callbacks cb = {sizeof(mcp_session_callbacks), on_send, on_request, on_cancel, NULL, NULL, on_log, sd};
    assert_int_equal(mcp_session_new(&o, &cb, &sd->s), MCP_OK);
}

static void deliver_one(world *w, queue *q, side *to)
{
    char *line = q_pop(q);
    if (!line)
        return;
    mcp_session_receive(to->s, w->now, 0, line, strlen(line));
    free(line);
}

static void issue(world *w, side *sd, const char *method)
{
    if (sd->ncalls >= MAXREQ)
        return;
    static const uint64_t timeouts[] = {0, 200, 1000, MCP_NO_TIMEOUT};
    mcp_request_options o = {.size = sizeof o, .timeout_ms = timeouts[pick(w, 4)],
                             .max_time_ms = pick(w, 2) ? 0 : 1500,
                             .progress = (mcp_progress_mode)pick(w, 3)};
    mcp_handle h;
    if (mcp_session_request(sd->s, w->now, method, NULL, &o, on_response, NULL, sd, &h) == MCP_OK) {
        sd->calls[sd->ncalls] = h;
        sd->call_endings[sd->ncalls++] = 0;
    }
}

static inbound_rec *random_active(world *w, side *sd)
{
    if (!sd->nin)
        return NULL;
    inbound_rec *r = &sd->in[pick(w, (unsigned)sd->nin)];
    return r; /* may be settled: then the engine must refuse */
}

static void answer(world *w, side *sd)
{
    inbound_rec *r = random_active(w, sd);
    if (!r)
        return;
    bool was_settled = r->settles > 0;
    int rc = pick(w, 2) ? mcp_session_reply(sd->s, r->handle, NULL)
                        : mcp_session_reply_error(sd->s, r->handle, -32603, "boom", NULL);
    if (was_settled) {
        assert_int_equal(rc, MCP_ERR_NOT_FOUND);
        stats[ST_REFUSED_REPLY]++;
    } else {
        if (rc != MCP_OK)
            fail_msg("%s: reply to wire id %lld (handle %llx) gave %d; active=%d",
                     sd->name, (long long)r->wire_id, (unsigned long long)r->handle, rc,
                     mcp_session_inbound_active(sd->s, r->handle));
        r->settles++;
        assert_int_equal(r->settles, 1);
    }
}

static void progress(world *w, side *sd)
{
    inbound_rec *r = random_active(w, sd);
    if (!r)
        return;
    double next = r->progress + 1 + (double)pick(w, 3);
    int rc = mcp_session_progress(sd->s, r->handle, next, NAN, NULL);
    if (r->settles)
        assert_int_equal(rc, MCP_ERR_NOT_FOUND);
    else if (!r->has_token)
        assert_int_equal(rc, MCP_ERR_STATE);
    else {
        assert_int_equal(rc, MCP_OK);
        r->progress = next;
    }
}

static void cancel_call(world *w, side *sd)
{
    if (!sd->ncalls)
        return;
    int i = (int)pick(w, (unsigned)sd->ncalls);
    int endings_before = sd->call_endings[i];
    int rc = mcp_session_cancel(sd->s, w->now, sd->calls[i], "race");
    if (rc != (endings_before ? MCP_ERR_NOT_FOUND : MCP_OK))
        fail_msg("%s: cancel of call %d (handle %llu, %d endings before) gave %d; %zu in flight",
                 sd->name, i, (unsigned long long)sd->calls[i], endings_before, rc,
                 mcp_session_outbound_count(sd->s));
    assert_int_equal(sd->call_endings[i], 1);
}

static void bad_input(world *w, side *to)
{
    static const char *lines[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":424242}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":3,\"progress\":1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}",
        "not json at all",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}",
    };
    /* Sent to `to` as if from its peer; answers go to the peer's queue,
     * which is fine: the peer ignores stray errors and results. */
    const char *line = lines[pick(w, 5)];
    mcp_session_receive(to->s, w->now, 0, line, strlen(line));
}

static void check_all_settled(side *sd)
{
    for (int i = 0; i < sd->ncalls; i++)
        if (sd->call_endings[i] != 1)
            fail_msg("%s call %d ended %d times", sd->name, i, sd->call_endings[i]);
    for (int i = 0; i < sd->nin; i++)
        if (sd->in[i].settles != 1)
            fail_msg("%s inbound %d settled %d times", sd->name, i, sd->in[i].settles);
    assert_int_equal(mcp_session_inbound_count(sd->s), 0);
    assert_int_equal(mcp_session_outbound_count(sd->s), 0);
}

static void drain(queue *q)
{
    char *line;
    while ((line = q_pop(q)))
        free(line);
}

static void init_done(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    *(bool *)ud = outcome == MCP_OK;
}

static void episode(world *w, int steps)
{
    memset(&w->c2s, 0, sizeof w->c2s);
    memset(&w->s2c, 0, sizeof w->s2c);
    make_side(w, &w->client, "client", MCP_ROLE_CLIENT, &w->c2s);
    make_side(w, &w->server, "server", MCP_ROLE_SERVER, &w->s2c);
    w->now = 1000;
    bool ready = false;
    assert_int_equal(mcp_session_initialize(w->client.s, w->now, 0, init_done, &ready), MCP_OK);
    deliver_one(w, &w->c2s, &w->server);
    deliver_one(w, &w->s2c, &w->client);
    assert_true(ready);
    deliver_one(w, &w->c2s, &w->server); /* notifications/initialized */

    for (int i = 0; i < steps; i++) {
        switch (pick(w, 14)) {
        case 0: case 1: issue(w, &w->client, "tools/call"); break;
        case 2: issue(w, &w->server, pick(w, 2) ? "sampling/createMessage" : "ping"); break;
        case 3: cancel_call(w, &w->client); break;
        case 4: cancel_call(w, &w->server); break;
        case 5: answer(w, &w->server); break;
        case 6: answer(w, &w->client); break;
        case 7: progress(w, &w->server); break;
        case 8: progress(w, &w->client); break;
        case 9: case 10: deliver_one(w, &w->c2s, &w->server); break;
        case 11: deliver_one(w, &w->s2c, &w->client); break;
        case 12:
            w->now += pick(w, 1200);
            mcp_session_tick(w->client.s, w->now);
            mcp_session_tick(w->server.s, w->now);
            break;
        case 13: bad_input(w, pick(w, 2) ? &w->client : &w->server); break;
        }
    }
    /* Let some in-flight messages arrive, then the connection drops. */
    for (int i = (int)pick(w, 8); i > 0; i--) {
        deliver_one(w, &w->c2s, &w->server);
        deliver_one(w, &w->s2c, &w->client);
    }
    if (pick(w, 2)) {
        mcp_session_close(w->client.s, w->now);
        mcp_session_close(w->server.s, w->now);
    } else {
        mcp_session_close(w->server.s, w->now);
        mcp_session_close(w->client.s, w->now);
    }
    check_all_settled(&w->client);
    check_all_settled(&w->server);
    /* After close nothing is sent; the replies below must be refused. */
    answer(w, &w->server);
    mcp_session_free(w->client.s);
    mcp_session_free(w->server.s);
    drain(&w->c2s);
    drain(&w->s2c);
}

static void every_interleaving_settles_once_and_sends_nothing_after_settle(void **state)
{
    long episodes = 100000;
    const char *e = getenv("MCP_RACE_EPISODES");
    if (e)
        episodes = atol(e);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    const char *sv = getenv("MCP_RACE_SEED");
    if (sv)
        seed = strtoull(sv, NULL, 0);
    world w;
    memset(&w, 0, sizeof w);
    w.rng = seed;
    memset(stats, 0, sizeof stats);
    for (long i = 0; i < episodes; i++)
        episode(&w, 20 + (int)pick(&w, 60));
    printf("race: %ld episodes, seed 0x%llx: %ld cancels received, %ld ignored, "
           "%ld late messages dropped, %ld replies refused after settle, %ld idle "
           "timeouts, %ld max-time endings, %ld closed\n",
           episodes, (unsigned long long)seed, stats[ST_CANCEL_RECEIVED],
           stats[ST_CANCEL_IGNORED], stats[ST_DROPPED], stats[ST_REFUSED_REPLY],
           stats[ST_TIMED_OUT], stats[ST_MAX_TIME], stats[ST_CLOSED]);
    /* Each race must have been reached many times (scaled to the run). */
    long floor = episodes / 20;
    for (int k = 0; k <= ST_REFUSED_REPLY; k++)
        if (stats[k] < floor)
            fail_msg("race kind %d reached only %ld times in %ld episodes", k, stats[k], episodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_interleaving_settles_once_and_sends_nothing_after_settle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
