/* SPDX-License-Identifier: MIT */
/*
 * Randomized race test of the session engine, both roles at once.
 *
 * A client and a server session are wired together through two FIFO queues.
 * Each episode performs random interleavings of: calls, replies (results and
 * errors), progress, cancels (both directions in legacy episodes: client
 * calls and server requests), timeouts (clock jumps), message deliveries in
 * either direction, bad input, and finally close. Half the episodes speak
 * 2026-07-28 and add subscriptions: the client opens and cancels them, the
 * server publishes to them and tears them down, the transport closes under
 * them. Some of the client's 2026-07-28 calls take rounds (mrtr.mdx): the
 * server answers them with an InputRequiredResult, the client's hook
 * refuses it, cancels from inside or takes it, its questions are answered
 * (at once or later, a wrong key now and then) and the call is sent again
 * under the same handle, while timeouts, cancels and the close race with
 * it. In some episodes one send of one side fails, closing that side under
 * whatever was writing. Invariants checked on every step:
 *
 * - every outbound request ends exactly once (and all have ended after
 *   close), and never when its request call reported an error;
 * - every inbound request settles exactly once (reply or cancel);
 * - nothing is ever sent for a settled request: no second response, no
 *   response or progress after a cancel;
 * - progress on the wire strictly increases per token;
 * - a call's hook runs only while the call is in flight, one round at a
 *   time; answers are taken only between rounds, once per key asked; a
 *   round sent again echoes the state the server gave, exactly;
 * - a subscription is acknowledged before anything else names it, ends
 *   exactly once on the client (whichever of cancel, teardown and close
 *   comes first), and the server sends nothing naming it after its end;
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
    bool tool_call;   /* a 2026-07-28 tools/call: may be asked for input */
    int settles;      /* replies that succeeded + cancels */
    bool cancelled;   /* on_cancel seen */
    bool replied;     /* a response went on the wire */
    bool has_token;
    double progress;  /* last progress sent */
} inbound_rec;

struct side;

/* One of our requests (a call or a subscription): its callbacks come with
 * it, so a callback for one whose request call failed is caught. */
typedef struct call_rec {
    struct side *sd;
    mcp_handle handle;
    bool listen;
    bool failed;   /* the request call returned an error */
    int endings;
    bool acked;    /* listen: the acknowledgment came */
    bool cancelling; /* inside mcp_session_cancel for it */
    bool rounds;     /* made with a hook (on_input_required) */
    bool answering;  /* its hook took a round: its questions are open */
    int keys;        /* questions asked in that round */
    unsigned answered; /* bit k: question "k<k>" answered */
} call_rec;

typedef struct side {
    const char *name;
    mcp_session *s;
    queue *out;
    inbound_rec in[MAXREQ];
    int nin;
    call_rec calls[MAXREQ];
    int ncalls;
    /* progress seen on the wire, per token (our outbound progress) */
    double wire_progress[MAXREQ];
    int64_t wire_progress_token[MAXREQ];
    int nwire_progress;
    /* server: the subscription ids it acknowledged, and those it ended */
    int64_t acked_ids[MAXREQ], ended_ids[MAXREQ];
    int nacked, nended;
    int sends, fail_at, fail_mode; /* fault injection */
} side;

typedef struct world {
    side client, server;
    queue c2s, s2c;
    uint64_t now;
    uint64_t rng;
    bool modern;
    bool chaos; /* the log callback calls into the session */
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

static bool listed(const int64_t *ids, int n, int64_t id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

/* How often the interesting races happened, so the test proves its
 * generator reaches them. */
static long stats[16];
enum { ST_CANCEL_RECEIVED, ST_CANCEL_IGNORED, ST_DROPPED, ST_TIMED_OUT, ST_MAX_TIME,
       ST_CLOSED, ST_REFUSED_REPLY, ST_LISTEN_ACKED, ST_LISTEN_NOTIFIED, ST_LISTEN_TEARDOWN,
       ST_LISTEN_CANCELLED, ST_FAILED_SEND, ST_ROUND_ASKED, ST_ROUND_SENT,
       ST_ROUND_ENDED_ANSWERING, ST_ROUND_REFUSED_ANSWER };

/* Server side: what names a subscription. */
static void check_stream(side *sd, const mcp_message *m)
{
    if (m->kind != MCP_MESSAGE_NOTIFICATION && m->kind != MCP_MESSAGE_RESULT)
        return;
    const mcp_json *meta = mcp_json_object_get(
        m->kind == MCP_MESSAGE_RESULT ? m->result : m->params, "_meta");
    int64_t sid;
    if (mcp_json_get_int64(mcp_json_object_get(meta, "io.modelcontextprotocol/subscriptionId"),
                           &sid) != MCP_OK)
        return;
    if (mcp_message_method_is(m, "notifications/subscriptions/acknowledged")) {
        assert_false(listed(sd->acked_ids, sd->nacked, sid));
        assert_true(sd->nacked < MAXREQ);
        sd->acked_ids[sd->nacked++] = sid;
        return;
    }
    /* The acknowledgment first; nothing after the end (the closing result
     * is what ends it, so it is checked before being recorded). */
    if (!listed(sd->acked_ids, sd->nacked, sid))
        fail_msg("%s named subscription %lld before acknowledging it", sd->name, (long long)sid);
    if (listed(sd->ended_ids, sd->nended, sid))
        fail_msg("%s named subscription %lld after it ended", sd->name, (long long)sid);
    if (m->kind == MCP_MESSAGE_RESULT) {
        assert_true(sd->nended < MAXREQ);
        sd->ended_ids[sd->nended++] = sid;
    } else {
        stats[ST_LISTEN_NOTIFIED]++;
    }
}

/* A request carrying the caller's own requestState is a first round. */
static bool first_round(const mcp_message *m)
{
    const char *st = mcp_json_string(mcp_json_object_get(m->params, "requestState"), NULL);
    return st && !strcmp(st, "caller's");
}

/* Everything a side sends passes through here: the invariants on output. */
static int on_send(void *ud, uint64_t route, const char *data, size_t len)
{
    side *sd = ud;
    if (++sd->sends == sd->fail_at) {
        stats[ST_FAILED_SEND]++;
        if (sd->fail_mode)
            mcp_session_close(sd->s, 0); /* a transport tearing down under its caller */
        return MCP_ERR_IO;
    }
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
        check_stream(sd, m);
        if (m->kind == MCP_MESSAGE_REQUEST &&
            (mcp_json_object_get(m->params, "inputResponses") ||
             mcp_json_object_get(m->params, "requestState")) &&
            !first_round(m))
            stats[ST_ROUND_SENT]++; /* a round sent again */
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
    r->tool_call = mcp_protocol_modern(mcp_session_inbound_version(sd->s, h)) &&
                   mcp_message_method_is(msg, "tools/call");
    /* A round sent again: the state is the one this side gave, exactly
     * ("s" and the wire id of the request it answered). */
    const char *st = mcp_json_string(mcp_json_object_get(msg->params, "requestState"), NULL);
    bool answers = mcp_json_object_get(msg->params, "inputResponses") != NULL;
    if (st && !strcmp(st, "caller's")) {
        /* The caller's own member: only in a first round. */
        if (answers)
            fail_msg("%s got the caller's requestState in a round sent again", sd->name);
    } else if (st) {
        long long was = 0;
        char tail;
        if (sscanf(st, "s%lld%c", &was, &tail) != 1 || !find_in_by_wire(sd, was))
            fail_msg("%s got requestState \"%s\", which it never gave", sd->name, st);
    }

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

static world *the_world; /* for the log callback's chaos */
static void answer(world *w, side *sd);
static void cancel_call(world *w, side *sd);

/* The log callback is user code too, and may call anything: in some
 * episodes it does, at random, while the engine is between states. */
/* Inside the log's chaos, a request may be half way through its ending
 * (out of the tables, its callback not yet called): the engine then says
 * NOT_FOUND, and the ending comes when the log returns. */
static int chaos_depth;

static void log_chaos(side *sd)
{
    int depth = chaos_depth;
    world *w = the_world;
    if (!w || !w->chaos || depth || pick(w, 8))
        return;
    chaos_depth++;
    switch (pick(w, 6)) {
    case 0: mcp_session_close(sd->s, w->now); break;
    case 1: answer(w, sd); break;
    case 2: cancel_call(w, sd); break;
    case 3: mcp_session_publish(sd->s, MCP_LISTEN_TOOLS, NULL); break;
    case 4: mcp_session_end_listens(sd->s, w->now, "chaos"); break;
    case 5: mcp_session_tick(sd->s, w->now + pick(w, 5000)); break;
    }
    chaos_depth--;
}

static void on_log(void *ud, const mcp_log_record *r)
{
    side *sd = ud;
    log_chaos(sd);
    switch (r->event) {
    case MCP_LOG_EVENT_CANCEL_RECEIVED:
        stats[ST_CANCEL_RECEIVED]++;
        /* A subscription the client cancelled has ended at the server. */
        if (r->method && !strcmp(r->method, "subscriptions/listen") && r->id &&
            r->id->kind == MCP_ID_INT && sd->nended < MAXREQ) {
            sd->ended_ids[sd->nended++] = r->id->num;
            stats[ST_LISTEN_CANCELLED]++;
        }
        break;
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

/* The client's hook: a round of a call with rounds. */
static int on_input_required(void *ud, mcp_handle h, const mcp_message *m)
{
    call_rec *c = ud;
    world *w = the_world;
    assert_false(c->failed);
    assert_int_equal(c->endings, 0); /* only while in flight */
    assert_false(c->answering);      /* one round at a time */
    assert_true(h == c->handle);
    stats[ST_ROUND_ASKED]++;
    c->answering = true;
    c->answered = 0;
    c->keys = (int)mcp_json_object_size(mcp_json_object_get(m->result, "inputRequests"));
    switch (pick(w, 8)) {
    case 0: return MCP_ERR_PROTOCOL;
    case 1:
        /* Cancelled from inside: ended at once, and only once. */
        c->cancelling = true;
        assert_int_equal(mcp_session_cancel(c->sd->s, w->now, h, "from the hook"), MCP_OK);
        c->cancelling = false;
        assert_int_equal(c->endings, 1);
        return MCP_OK;
    case 2:
        /* Answered from inside: the next round goes when the hook is back. */
        for (int k = 0; k < c->keys && !c->endings; k++) {
            char key[16];
            snprintf(key, sizeof key, "k%d", k);
            mcp_json_doc *d = NULL;
            mcp_json_parse("{\"action\":\"accept\"}", strlen("{\"action\":\"accept\"}"), NULL,
                           NULL, &d, NULL);
            int rc = mcp_session_input_response(c->sd->s, w->now, h, key, strlen(key),
                                                mcp_json_doc_root(d));
            mcp_json_doc_free(d);
            if (rc == MCP_OK)
                c->answered |= 1u << k;
        }
        break;
    default: break; /* answered later (answer_round) */
    }
    /* Nothing left to answer: the next round goes out as the hook returns. */
    if (c->answered == (1u << c->keys) - 1)
        c->answering = false;
    return MCP_OK;
}

static void on_response(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    call_rec *c = ud;
    assert_false(c->failed);
    if (c->answering)
        stats[ST_ROUND_ENDED_ANSWERING]++;
    c->answering = false;
    c->endings++;
    assert_int_equal(c->endings, 1);
    if (outcome == MCP_OK || outcome == MCP_ERR_REMOTE)
        assert_non_null(m);
    else
        assert_null(m);
}

static void on_listen(void *ud, mcp_handle h, const mcp_listen_event *ev)
{
    call_rec *c = ud;
    assert_false(c->failed);
    assert_int_equal(c->endings, 0); /* nothing after the end */
    if (ev->kind == MCP_LISTEN_ACKNOWLEDGED) {
        assert_false(c->acked);
        c->acked = true;
        stats[ST_LISTEN_ACKED]++;
    } else if (ev->kind == MCP_LISTEN_NOTIFICATION) {
        assert_true(c->acked); /* the acknowledgment first */
    } else {
        c->endings++;
        if (ev->outcome == MCP_OK)
            stats[ST_LISTEN_TEARDOWN]++;
    }
}

static void make_side(world *w, side *sd, const char *name, mcp_role role, queue *out)
{
    memset(sd, 0, sizeof *sd);
    sd->name = name;
    sd->out = out;
    mcp_session_options o = {.size = sizeof o, .role = role, .timeout_ms = 3000,
                             .max_time_ms = 8000, .listen_kinds = MCP_LISTEN_TOOLS};
    mcp_session_callbacks cb = {.size = sizeof(mcp_session_callbacks),
                                .send = on_send,
                                .on_request = on_request,
                                .on_cancel = on_cancel,
                                .log = on_log,
                                .user_data = sd};
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

static call_rec *new_call(side *sd, bool listen)
{
    if (sd->ncalls >= MAXREQ)
        return NULL;
    call_rec *c = &sd->calls[sd->ncalls++];
    memset(c, 0, sizeof *c);
    c->sd = sd;
    c->listen = listen;
    return c;
}

static void issue(world *w, side *sd, const char *method)
{
    call_rec *c = new_call(sd, false);
    if (!c)
        return;
    static const uint64_t timeouts[] = {0, 200, 1000, MCP_NO_TIMEOUT};
    mcp_request_options o = {.size = sizeof(mcp_request_options),
                             .timeout_ms = timeouts[pick(w, 4)],
                             .max_time_ms = pick(w, 2) ? 0 : 1500,
                             .progress = (mcp_progress_mode)pick(w, 3)};
    c->rounds = w->modern && sd == &w->client && pick(w, 4);
    if (c->rounds)
        o.on_input_required = on_input_required;
    mcp_json_doc *params = NULL;
    if (c->rounds)
    {
        static const char first[] = "{\"name\":\"t\",\"requestState\":\"caller's\"}";
        mcp_json_parse(first, sizeof first - 1, NULL, NULL, &params, NULL);
    }
    if (mcp_session_request(sd->s, w->now, method, mcp_json_doc_root(params), &o, on_response,
                            NULL, c, &c->handle) != MCP_OK)
        c->failed = true; /* refused (closed, not allowed) or failed while sending */
    mcp_json_doc_free(params);
}

/* The client answers one question of a call, or tries to. */
static void answer_round(world *w, side *sd)
{
    if (!sd->ncalls)
        return;
    /* Mostly a call whose questions are open; now and then any. */
    int at = (int)pick(w, (unsigned)sd->ncalls);
    for (int i = 0; i < sd->ncalls && pick(w, 8); i++) {
        call_rec *x = &sd->calls[(at + i) % sd->ncalls];
        if (x->answering && !x->endings) {
            at = (at + i) % sd->ncalls;
            break;
        }
    }
    call_rec *c = &sd->calls[at];
    if (c->listen || c->cancelling)
        return;
    int k = (int)pick(w, (unsigned)c->keys + 1); /* k == keys: a key never asked */
    char key[16];
    snprintf(key, sizeof key, "k%d", k);
    bool open = c->answering && !c->endings && !c->failed;
    bool again = k < c->keys && (c->answered >> k & 1);
    mcp_json_doc *d = NULL;
    mcp_json_parse("{\"action\":\"decline\"}", strlen("{\"action\":\"decline\"}"), NULL, NULL,
                   &d, NULL);
    int rc = mcp_session_input_response(sd->s, w->now, c->handle, key, strlen(key),
                                        mcp_json_doc_root(d));
    mcp_json_doc_free(d);
    if (chaos_depth)
        return;
    if (!open || c->failed) {
        /* Not between rounds (never made, ended, or a round on the wire). */
        if (rc != MCP_ERR_NOT_FOUND && !(c->rounds && c->answering))
            fail_msg("%s: an answer for call %d (ended %d, answering %d) gave %d", sd->name,
                     (int)(c - sd->calls), c->endings, c->answering, rc);
        return;
    }
    if (k == c->keys || again) {
        assert_int_equal(rc, MCP_ERR_INVALID_ARG);
        stats[ST_ROUND_REFUSED_ANSWER]++;
        return;
    }
    assert_int_equal(rc, MCP_OK);
    c->answered |= 1u << k;
    if (!c->endings && c->answered == (1u << c->keys) - 1)
        c->answering = false; /* the next round is on the wire */
}

static void open_listen(world *w, side *sd)
{
    call_rec *c = new_call(sd, true);
    if (!c)
        return;
    mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS};
    if (mcp_session_listen(sd->s, w->now, &f, on_listen, c, &c->handle) != MCP_OK)
        c->failed = true;
}

static inbound_rec *random_active(world *w, side *sd)
{
    if (!sd->nin)
        return NULL;
    inbound_rec *r = &sd->in[pick(w, (unsigned)sd->nin)];
    return r; /* may be settled: then the engine must refuse */
}

/* An InputRequiredResult for the request with wire id `id`: questions
 * (k0, k1, ...), a state naming the request, or both. */
static mcp_json_doc *input_required(world *w, int64_t id)
{
    char text[400];
    int n = snprintf(text, sizeof text, "{\"resultType\":\"input_required\"");
    unsigned shape = pick(w, 3); /* 0: questions, 1: state, 2: both */
    if (shape != 1) {
        n += snprintf(text + n, sizeof text - (size_t)n, ",\"inputRequests\":{");
        for (unsigned k = 0, keys = 1 + pick(w, 3); k < keys; k++)
            n += snprintf(text + n, sizeof text - (size_t)n,
                          "%s\"k%u\":{\"method\":\"elicitation/create\",\"params\":{}}",
                          k ? "," : "", k);
        n += snprintf(text + n, sizeof text - (size_t)n, "}");
    }
    if (shape != 0)
        n += snprintf(text + n, sizeof text - (size_t)n, ",\"requestState\":\"s%lld\"",
                      (long long)id);
    snprintf(text + n, sizeof text - (size_t)n, "}");
    mcp_json_doc *d = NULL;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static void answer(world *w, side *sd)
{
    inbound_rec *r = random_active(w, sd);
    if (!r)
        return;
    bool was_settled = r->settles > 0;
    mcp_json_doc *ask = r->tool_call && pick(w, 4) ? input_required(w, r->wire_id) : NULL;
    int rc = ask            ? mcp_session_reply(sd->s, r->handle, mcp_json_doc_root(ask))
             : pick(w, 2) ? mcp_session_reply(sd->s, r->handle, NULL)
                          : mcp_session_reply_error(sd->s, r->handle, -32603, "boom", NULL);
    mcp_json_doc_free(ask);
    if (chaos_depth && rc == MCP_ERR_NOT_FOUND)
        return; /* being settled by the call the log came from */
    if (was_settled) {
        assert_int_equal(rc, MCP_ERR_NOT_FOUND);
        stats[ST_REFUSED_REPLY]++;
    } else {
        /* Settled either way; CLOSED when the write failed under it. */
        if (rc != MCP_OK && rc != MCP_ERR_CLOSED)
            fail_msg("%s: reply to wire id %lld (handle %llx) gave %d; active=%d",
                     sd->name, (long long)r->wire_id, (unsigned long long)r->handle, rc,
                     mcp_session_inbound_active(sd->s, r->handle));
        r->settles++;
        assert_int_equal(r->settles, 1);
        assert_false(mcp_session_inbound_active(sd->s, r->handle));
    }
}

static void progress(world *w, side *sd)
{
    inbound_rec *r = random_active(w, sd);
    if (!r)
        return;
    double next = r->progress + 1 + (double)pick(w, 3);
    bool was_settled = r->settles > 0;
    int rc = mcp_session_progress(sd->s, r->handle, next, NAN, NULL);
    if (chaos_depth && rc == MCP_ERR_NOT_FOUND)
        return;
    if (was_settled)
        assert_int_equal(rc, MCP_ERR_NOT_FOUND);
    else if (!r->has_token)
        assert_int_equal(rc, MCP_ERR_STATE);
    else if (rc == MCP_ERR_CLOSED)
        assert_int_equal(r->settles, 1); /* the failed write closed it: cancelled */
    else {
        assert_int_equal(rc, MCP_OK);
        r->progress = next;
    }
}

static void cancel_call(world *w, side *sd)
{
    if (!sd->ncalls)
        return;
    call_rec *c = &sd->calls[pick(w, (unsigned)sd->ncalls)];
    int endings_before = c->endings;
    bool nested = c->cancelling; /* the log chaos, inside this very cancel */
    c->cancelling = true;
    int rc = mcp_session_cancel(sd->s, w->now, c->handle, "race");
    if (!nested)
        c->cancelling = false;
    if (nested || (chaos_depth && rc == MCP_ERR_NOT_FOUND)) {
        assert_int_equal(rc, MCP_ERR_NOT_FOUND); /* already being ended */
        return;
    }
    if (c->failed) {
        assert_int_equal(rc, MCP_ERR_NOT_FOUND);
        return;
    }
    if (rc != (endings_before ? MCP_ERR_NOT_FOUND : MCP_OK))
        fail_msg("%s: cancel of handle %llu (%d endings before, call %d of %d, listen %d) "
                 "gave %d; %zu in flight",
                 sd->name, (unsigned long long)c->handle, endings_before,
                 (int)(c - sd->calls), sd->ncalls, c->listen, rc,
                 mcp_session_outbound_count(sd->s));
    assert_int_equal(c->endings, 1);
}

static void bad_input(world *w, side *to)
{
    static const char *lines[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":424242}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":3,\"progress\":1}}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}",
        "not json at all",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}",
        ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":"
         "{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":3}}}"),
    };
    /* Sent to `to` as if from its peer; answers go to the peer's queue,
     * which is fine: the peer ignores stray errors and results. */
    const char *line = lines[pick(w, 6)];
    mcp_session_receive(to->s, w->now, 0, line, strlen(line));
}

static void check_all_settled(side *sd)
{
    for (int i = 0; i < sd->ncalls; i++)
        if (sd->calls[i].endings != (sd->calls[i].failed ? 0 : 1))
            fail_msg("%s call %d (failed %d) ended %d times", sd->name, i, sd->calls[i].failed,
                     sd->calls[i].endings);
    for (int i = 0; i < sd->nin; i++)
        if (sd->in[i].settles != 1)
            fail_msg("%s inbound %d settled %d times", sd->name, i, sd->in[i].settles);
    assert_int_equal(mcp_session_inbound_count(sd->s), 0);
    assert_int_equal(mcp_session_outbound_count(sd->s), 0);
    assert_int_equal(mcp_session_listen_count(sd->s), 0);
}

static void drain(queue *q)
{
    char *line;
    while ((line = q_pop(q)))
        free(line);
}

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
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
    w->modern = pick(w, 2);
    w->chaos = false; /* not during the handshake */
    the_world = w;
    bool ready = false;
    mcp_connect_options co = {.size = sizeof co,
                              .mode = w->modern ? MCP_CONNECT_MODERN : MCP_CONNECT_LEGACY};
    assert_int_equal(mcp_session_connect(w->client.s, w->now, &co, connected, &ready), MCP_OK);
    deliver_one(w, &w->c2s, &w->server);
    deliver_one(w, &w->s2c, &w->client);
    assert_true(ready);
    deliver_one(w, &w->c2s, &w->server); /* legacy: notifications/initialized */
    w->chaos = pick(w, 4) == 0;
    /* One in four episodes, one send of one side fails. */
    if (pick(w, 4) == 0) {
        side *victim = pick(w, 2) ? &w->client : &w->server;
        victim->fail_at = victim->sends + 1 + (int)pick(w, 40);
        victim->fail_mode = (int)pick(w, 2);
    }

    for (int i = 0; i < steps; i++) {
        switch (pick(w, 19)) {
        case 0: case 1: issue(w, &w->client, "tools/call"); break;
        case 2:
            if (!w->modern)
                issue(w, &w->server, pick(w, 2) ? "sampling/createMessage" : "ping");
            break;
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
        case 14:
            if (w->modern)
                open_listen(w, &w->client);
            break;
        case 15: mcp_session_publish(w->server.s, MCP_LISTEN_TOOLS, NULL); break;
        case 16:
            if (pick(w, 4) == 0)
                mcp_session_end_listens(w->server.s, w->now, "race teardown");
            break;
        case 17: case 18:
            if (w->modern)
                answer_round(w, &w->client);
            break;
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
           "timeouts, %ld max-time endings, %ld closed; subscriptions: %ld acknowledged, "
           "%ld notifications, %ld torn down by the server, %ld cancelled by the client; "
           "%ld sends failed; rounds: %ld asked, %ld sent again, %ld calls ended while "
           "answering, %ld answers refused\n",
           episodes, (unsigned long long)seed, stats[ST_CANCEL_RECEIVED],
           stats[ST_CANCEL_IGNORED], stats[ST_DROPPED], stats[ST_REFUSED_REPLY],
           stats[ST_TIMED_OUT], stats[ST_MAX_TIME], stats[ST_CLOSED], stats[ST_LISTEN_ACKED],
           stats[ST_LISTEN_NOTIFIED], stats[ST_LISTEN_TEARDOWN], stats[ST_LISTEN_CANCELLED],
           stats[ST_FAILED_SEND], stats[ST_ROUND_ASKED], stats[ST_ROUND_SENT],
           stats[ST_ROUND_ENDED_ANSWERING], stats[ST_ROUND_REFUSED_ANSWER]);
    /* Each race must have been reached many times (scaled to the run). */
    long floor = episodes / 20;
    for (int k = 0; k <= ST_ROUND_REFUSED_ANSWER; k++)
        if (stats[k] < floor / (k >= ST_ROUND_ASKED ? 16 : k >= ST_LISTEN_ACKED ? 4 : 1))
            fail_msg("race kind %d reached only %ld times in %ld episodes", k, stats[k], episodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_interleaving_settles_once_and_sends_nothing_after_settle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
