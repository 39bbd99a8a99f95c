/* SPDX-License-Identifier: MIT */
/*
 * A Redis connection on the loop (redis_link.h). Written against hiredis
 * 0.14.1, whose async API has no timeouts and some sharp edges, each met
 * here:
 *
 *  - Freeing a context while hiredis is on the stack for it is a use after
 *    free, except inside a reply callback (REDIS_IN_CALLBACK), where
 *    redisAsyncFree only marks it and hiredis frees it once the callback
 *    returns. So the event hooks are ours, not adapters/libuv.h's: our poll
 *    callback counts itself on the stack (conn.depth); a context is freed
 *    at once at depth 0, marked inside a reply callback, and otherwise
 *    freed as the poll callback unwinds. Ours also let close wait for the
 *    poll handle before it says closed (the adapter frees its own unseen).
 *  - A callback hiredis failed to register (its malloc is unchecked there)
 *    or a command it failed to append pairs every later reply with the
 *    wrong callback: both are checked after each send (the reply list's
 *    tail, c.err) and such a connection is dropped unread.
 *  - Commands it treats specially ((P)SUBSCRIBE, (P)UNSUBSCRIBE, MONITOR,
 *    each also with a P before it) would pair replies wrongly too, and
 *    some change the connection under the link (SELECT, AUTH, HELLO,
 *    RESET, CLIENT REPLY): refused.
 *  - Its connect resolves a name inside the call (getaddrinfo blocks the
 *    loop): names are resolved first on libuv's thread pool and hiredis is
 *    given the address.
 *
 * A pending command is answered once, by whichever comes first: its reply,
 * the connection's loss (every one pending then, in order) or close. Its
 * struct stays allocated until hiredis lets go of it (the callback runs
 * once more without a reply when the context is freed), so hiredis never
 * holds a freed pointer.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "mcp/common.h"
#include "server/tasks/redis_link.h"

/* Caps: a channel's name, a link's channels, a command's bytes (Redis's own
 * default proto-max-bulk-len), its arguments (hiredis formats into an int
 * length), and the times (a deadline is now plus one, in 64 bits). */
#define CHANNEL_MAX 1024
#define CHANNELS_MAX 4096
#define COMMAND_BYTES_MAX ((size_t)512 << 20)
#define ARGC_MAX (1 << 20)
#define TIME_MAX_MS ((uint64_t)24 * 3600 * 1000)

/* What a subscriber link subscribes again as its heartbeat: a subscribed
 * connection answers nothing else that hiredis pairs right (a PING there
 * goes on a list that no reply ever shifts). */
static const char BEAT_CHANNEL[] = "__mcp_redis_link_heartbeat__";

typedef enum { P_USER, P_AUTH, P_SELECT, P_PING, P_SUB, P_BEAT } pending_kind;

typedef struct pending {
    struct pending *prev, *next;
    pending_kind kind;
    bool queued;    /* in the link's queue: not answered yet */
    bool handshake; /* a SUBSCRIBE that coming up waits for */
    uint64_t deadline;
    mcp__redis_reply_fn fn;
    void *arg;
} pending;

/* hiredis holds the regular commands (their privdata); a SUBSCRIBE's
 * confirmations are the link's alone. */
static bool held(const pending *p)
{
    return p->kind != P_SUB && p->kind != P_BEAT;
}

typedef struct conn {
    uv_poll_t poll;
    redisAsyncContext *ac; /* NULL once hiredis has freed it */
    mcp__redis_link *l;
    int events;       /* what hiredis asked to be polled for */
    int depth;        /* our calls into hiredis for it on the stack */
    bool attached;    /* l->conn == this */
    bool ready;       /* AUTH, SELECT and PING answered */
    bool subscribing; /* its first SUBSCRIBE (the heartbeat's with it) sent */
    bool broken;      /* its replies can no longer be paired: never read again */
    bool doomed;      /* to be freed as the poll callback unwinds */
    bool appending;   /* inside our call that appends a command */
    bool write_asked; /* hiredis asked to write while appending */
} conn;

typedef struct resolve {
    uv_getaddrinfo_t req;
    mcp__redis_link *l;
    struct resolve *next;
    unsigned attempt;
} resolve;

typedef enum { L_WAITING, L_RESOLVING, L_HANDSHAKE, L_UP } link_phase;
typedef enum { K_ANY, K_COMMAND, K_SUBSCRIBER } link_kind;

struct mcp__redis_link {
    uv_loop_t *loop;
    mcp__redis_link_options o;
    uv_timer_t timer;
    /* Commands appended in one turn of the loop, written together at its
     * end (the check phase; the idle handle keeps the poll from blocking
     * first when they were appended before it). */
    uv_check_t flush;
    uv_idle_t flush_idle;
    conn *conn;
    link_phase phase;
    link_kind kind;
    pending *head, *tail;
    size_t handshake_subs;
    uint64_t connect_deadline, retry_at, beat_due, backoff;
    bool beat_pending;
    char **channels;
    size_t nchannels, channels_cap;
    resolve *resolves;
    unsigned attempt;
    unsigned conns; /* conns whose poll handle has not closed yet */
    bool closing;
    unsigned handles; /* of timer, flush and flush_idle, not closed yet */
    void (*closed)(void *arg);
    void *closed_arg;
    char why[256];
    char broken_why[160];
};

static uint64_t now_ms(void)
{
    return uv_hrtime() / 1000000u;
}

static void on_timer(uv_timer_t *t);
static void on_poll(uv_poll_t *h, int status, int events);

/* The queue: answered in order, so its head has the first deadline. */

static void enqueue(mcp__redis_link *l, pending *p)
{
    p->queued = true;
    p->next = NULL;
    p->prev = l->tail;
    if (l->tail)
        l->tail->next = p;
    else
        l->head = p;
    l->tail = p;
}

static void dequeue(mcp__redis_link *l, pending *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        l->head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    else
        l->tail = p->prev;
    p->prev = p->next = NULL;
    p->queued = false;
}

static uint64_t deadline_now(const mcp__redis_link *l)
{
    return l->phase == L_UP ? now_ms() + l->o.timeout_ms : l->connect_deadline;
}

static bool link_up(const mcp__redis_link *l)
{
    return !l->closing && l->phase == L_UP && l->conn && !l->conn->broken;
}

static void arm(mcp__redis_link *l)
{
    if (l->closing)
        return;
    uint64_t due = UINT64_MAX;
    if (l->conn && l->conn->broken) {
        due = 0;
    } else if (l->phase == L_WAITING) {
        due = l->retry_at;
    } else if (l->phase != L_UP) {
        due = l->connect_deadline;
    } else {
        if (l->head)
            due = l->head->deadline;
        if (l->conn->subscribing && !l->beat_pending && l->beat_due < due)
            due = l->beat_due;
    }
    if (due == UINT64_MAX) {
        uv_timer_stop(&l->timer);
        return;
    }
    uint64_t now = now_ms();
    uv_timer_start(&l->timer, on_timer, due > now ? due - now : 0, 0);
}

/* A connection whose replies can no longer be paired with their commands
 * (or that cannot be polled): never read again, and lost from the timer, so
 * that no callback runs inside the call that found it (a command, a
 * subscribe) and none while hiredis is mid-way. */
static void break_conn(mcp__redis_link *l, const char *why)
{
    conn *c = l->conn;
    if (!c || c->broken)
        return;
    c->broken = true;
    snprintf(l->broken_why, sizeof l->broken_why, "%s", why);
    if (c->ac)
        uv_poll_stop(&c->poll);
    arm(l);
}

/* The event hooks ----------------------------------------------------------------- */

/* libuv's uv_poll_start removes the descriptor from epoll and adds it again
 * whatever it is asked, and hiredis asks for reads again after every read
 * and write: asked for what is watched already, nothing is done (two
 * epoll_ctl calls saved each time). */
static void watch(conn *c, int bit, bool on)
{
    int events = on ? (c->events | bit) : (c->events & ~bit);
    bool same = events == c->events && uv_is_active((uv_handle_t *)&c->poll) == (events != 0);
    c->events = events;
    if (!c->ac || c->broken || same)
        return;
    int rc = c->events ? uv_poll_start(&c->poll, c->events, on_poll) : uv_poll_stop(&c->poll);
    if (rc < 0 && c->attached) {
        char why[96];
        snprintf(why, sizeof why, "polling the connection failed: %s", uv_strerror(rc));
        break_conn(c->l, why);
    }
}

static void ev_add_read(void *c)
{
    watch(c, UV_READABLE, true);
}

static void ev_del_read(void *c)
{
    watch(c, UV_READABLE, false);
}

static void ev_add_write(void *arg)
{
    conn *c = arg;
    if (c->appending)
        c->write_asked = true; /* written at the turn's end (write_now) */
    else
        watch(c, UV_WRITABLE, true);
}

static void ev_del_write(void *c)
{
    watch(c, UV_WRITABLE, false);
}

static void finish_close(mcp__redis_link *l)
{
    if (!l->closing || l->handles || l->conns || l->resolves)
        return;
    void (*closed)(void *) = l->closed;
    void *arg = l->closed_arg;
    for (size_t i = 0; i < l->nchannels; i++)
        free(l->channels[i]);
    free(l->channels);
    free(l);
    if (closed)
        closed(arg);
}

static void on_poll_closed(uv_handle_t *h)
{
    conn *c = h->data;
    mcp__redis_link *l = c->l;
    free(c);
    l->conns--;
    finish_close(l);
}

/* Why a context hiredis is tearing down went: its own words. */
static void loss_why(const redisAsyncContext *ac, char *why, size_t n)
{
    const char *what = ac->c.err && ac->c.errstr[0] ? ac->c.errstr : "closed by Redis";
    snprintf(why, n, "%s: %s", ac->c.flags & REDIS_CONNECTED ? "connection lost" : "connect failed",
             what);
}

static void lose(mcp__redis_link *l, const char *why);

/* hiredis is freeing the context (after its pending callbacks ran). */
static void ev_cleanup(void *arg)
{
    conn *c = arg;
    redisAsyncContext *ac = c->ac;
    c->ac = NULL;
    uv_close((uv_handle_t *)&c->poll, on_poll_closed);
    if (c->attached) {
        char why[200];
        loss_why(ac, why, sizeof why);
        lose(c->l, why);
    }
}

/* Free c's context as soon as hiredis allows (see the top of the file). */
static void free_context(conn *c)
{
    redisAsyncContext *ac = c->ac;
    /* DISCONNECTING (we never ask for a clean disconnect) or FREEING:
     * hiredis is freeing it already, or will once its callback returns. */
    if (!ac || (ac->c.flags & (REDIS_DISCONNECTING | REDIS_FREEING)))
        return;
    if (c->depth == 0) {
        c->depth++;
        redisAsyncFree(ac);
        c->depth--;
    } else if (ac->c.flags & REDIS_IN_CALLBACK) {
        redisAsyncFree(ac); /* marked: freed, nothing more read, as the callback returns */
    } else {
        c->doomed = true;
    }
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    conn *c = h->data;
    if (!c->ac)
        return;
    if (c->broken) {
        uv_poll_stop(h);
        return;
    }
    c->depth++;
    if (status < 0) {
        /* libuv says UV_EBADF for POLLERR (a refused connect, a reset) and
         * stops the handle: hiredis reads the socket's own error (SO_ERROR
         * while connecting, read's after) and tears the context down. */
        if (c->ac->c.flags & REDIS_CONNECTED)
            redisAsyncHandleRead(c->ac);
        else
            redisAsyncHandleWrite(c->ac);
        if (c->ac && c->attached) {
            char why[96];
            snprintf(why, sizeof why, "connection lost: %s", uv_strerror(status));
            lose(c->l, why);
        }
        c->depth--;
        free_context(c);
        return;
    }
    if (events & UV_READABLE)
        redisAsyncHandleRead(c->ac);
    if (c->ac && !c->doomed && !c->broken && (events & UV_WRITABLE))
        redisAsyncHandleWrite(c->ac);
    c->depth--;
    if (c->ac && c->doomed)
        free_context(c);
}

/* Losing the connection -------------------------------------------------------------- */

/* Answer every command pending with why, in order. A callback may close
 * the link: close answers the rest "closed", and this finds none left. */
static void answer_all(mcp__redis_link *l, const char *why)
{
    pending *p;
    while ((p = l->head)) {
        dequeue(l, p);
        mcp__redis_reply_fn fn = p->kind == P_USER ? p->fn : NULL;
        void *arg = p->arg;
        if (!held(p))
            free(p);
        if (fn)
            fn(arg, NULL, why);
    }
}

/* The connection (or the attempt) is gone: answer what was pending, free
 * the context, wait the backoff, then try again. */
static void lose(mcp__redis_link *l, const char *why)
{
    char msg[sizeof l->why];
    snprintf(msg, sizeof msg, "%s", why);
    conn *c = l->conn;
    l->conn = NULL;
    if (c)
        c->attached = false;
    l->phase = L_WAITING;
    l->beat_pending = false;
    l->handshake_subs = 0;
    memcpy(l->why, msg, sizeof msg);
    l->retry_at = now_ms() + l->backoff;
    l->backoff = l->backoff * 2 < l->o.backoff_max_ms ? l->backoff * 2 : l->o.backoff_max_ms;
    answer_all(l, msg);
    if (c)
        free_context(c);
    if (l->closing)
        return;
    arm(l);
    if (l->o.state)
        l->o.state(l->o.arg, false, msg);
}

static void come_up(mcp__redis_link *l)
{
    l->phase = L_UP;
    l->why[0] = '\0';
    l->backoff = l->o.backoff_min_ms;
    l->beat_due = now_ms() + l->o.timeout_ms;
    arm(l);
    if (l->o.state)
        l->o.state(l->o.arg, true, "");
}

/* Sending ------------------------------------------------------------------------------- */

static void on_reply(redisAsyncContext *ac, void *r, void *privdata);
static void on_sub(redisAsyncContext *ac, void *r, void *privdata);

/* cmd appended to c's output, nothing written yet (write_now writes). */
static int append(conn *c, redisCallbackFn *fn, void *privdata, const char *cmd, size_t len)
{
    c->appending = true;
    int rc = redisAsyncFormattedCommand(c->ac, fn, privdata, cmd, len);
    c->appending = false;
    return rc;
}

/* What was appended, written at the end of the loop's turn rather than
 * when epoll says the socket is writable: no wait for the next turn, one
 * write for the commands of a turn (a task's create and its end: Redis
 * reads both at once), and no epoll_ctl to watch for writability and
 * another to stop (libuv's uv_poll_start costs two). Only what does not fit
 * is left to a watch. hiredis's own write calls nothing back: a failure
 * breaks the connection, answered from the timer. */
static void write_now(mcp__redis_link *l)
{
    conn *c = l->conn;
    if (!c || c->broken || !c->ac || !c->write_asked)
        return;
    c->write_asked = false;
    redisContext *rc = &c->ac->c;
    int done = 0;
    if (!(rc->flags & REDIS_CONNECTED)) {
        watch(c, UV_WRITABLE, true); /* the connect's end is seen as writability */
    } else if (redisBufferWrite(rc, &done) != REDIS_OK) {
        char why[160];
        snprintf(why, sizeof why, "sending failed: %s", rc->errstr);
        break_conn(l, why);
    } else {
        watch(c, UV_READABLE, true);
        if (!done)
            watch(c, UV_WRITABLE, true);
    }
}

static void on_flush(uv_check_t *h)
{
    mcp__redis_link *l = h->data;
    uv_check_stop(&l->flush);
    uv_idle_stop(&l->flush_idle);
    write_now(l);
}

static void on_flush_idle(uv_idle_t *h)
{
    (void)h; /* only there to keep the poll from blocking */
}

/* Whether hiredis took cmd whole: appended (no c.err) and, for a regular
 * command, its callback registered last. Otherwise the connection breaks. */
static bool took(mcp__redis_link *l, const void *privdata)
{
    redisAsyncContext *ac = l->conn->ac;
    if (ac->c.err) {
        char why[160];
        snprintf(why, sizeof why, "sending failed: %s", ac->c.errstr);
        break_conn(l, why);
        return false;
    }
    if (privdata && (!ac->replies.tail || ac->replies.tail->privdata != privdata)) {
        break_conn(l, "sending failed: out of memory");
        return false;
    }
    if (l->conn->write_asked && !uv_is_active((uv_handle_t *)&l->flush)) {
        uv_check_start(&l->flush, on_flush);
        uv_idle_start(&l->flush_idle, on_flush_idle);
    }
    return true;
}

/* A regular command on the attached connection: MCP_OK (queued), or an
 * error with p freed or left to hiredis (it calls back once more). */
static int send_regular(mcp__redis_link *l, pending *p, int argc, const char *const *argv,
                        const size_t *len)
{
    conn *c = l->conn;
    if (!c || c->broken || !c->ac || c->ac->c.err) {
        free(p);
        return MCP_ERR_CLOSED;
    }
    char *cmd;
    int n = redisFormatCommandArgv(&cmd, argc, (const char **)argv, len);
    if (n < 0) {
        free(p);
        return MCP_ERR_NOMEM;
    }
    int rc = append(c, on_reply, p, cmd, (size_t)n);
    redisFreeCommand(cmd);
    if (rc != REDIS_OK) {
        free(p);
        return MCP_ERR_CLOSED;
    }
    redisCallback *tail = c->ac->replies.tail;
    bool registered = tail && tail->privdata == p;
    if (!took(l, p)) {
        if (!registered)
            free(p);
        return MCP_ERR_NOMEM;
    }
    p->deadline = deadline_now(l);
    enqueue(l, p);
    return MCP_OK;
}

static int send_internal(mcp__redis_link *l, pending_kind kind, int argc, const char *const *argv)
{
    size_t len[3];
    for (int i = 0; i < argc; i++)
        len[i] = strlen(argv[i]);
    pending *p = calloc(1, sizeof *p);
    if (!p)
        return MCP_ERR_NOMEM;
    p->kind = kind;
    p->arg = l;
    return send_regular(l, p, argc, argv, len);
}

/* SUBSCRIBE the channels from..to (and the heartbeat's first), one command,
 * a confirmation awaited for each. */
static int send_subscribe(mcp__redis_link *l, size_t from, size_t to, bool beat, bool handshake)
{
    conn *c = l->conn;
    if (!c || c->broken || !c->ac || c->ac->c.err)
        return MCP_ERR_CLOSED;
    size_t argc = 1 + (beat ? 1 : 0) + (to - from);
    const char **argv = malloc(argc * sizeof *argv);
    size_t *len = calloc(argc, sizeof *len);
    pending **ps = calloc(argc, sizeof *ps);
    bool ok = argv && len && ps;
    for (size_t i = 1; ok && i < argc; i++)
        ok = (ps[i] = calloc(1, sizeof **ps)) != NULL;
    char *cmd = NULL;
    int n = -1;
    if (ok) {
        size_t k = 0;
        argv[k++] = "SUBSCRIBE";
        if (beat)
            argv[k++] = BEAT_CHANNEL;
        for (size_t i = from; i < to; i++)
            argv[k++] = l->channels[i];
        for (k = 0; k < argc; k++)
            len[k] = strlen(argv[k]);
        n = redisFormatCommandArgv(&cmd, (int)argc, argv, len);
    }
    int rc = MCP_ERR_NOMEM;
    if (n >= 0) {
        rc = MCP_ERR_CLOSED;
        if (append(c, on_sub, c, cmd, (size_t)n) == REDIS_OK)
            rc = took(l, NULL) ? MCP_OK : MCP_ERR_NOMEM;
        redisFreeCommand(cmd);
    } else {
        /* Nothing was sent, but the link must not come up without them. */
        break_conn(l, "subscribing failed: out of memory");
    }
    for (size_t i = 1; ps && i < argc; i++) {
        if (rc != MCP_OK) {
            free(ps[i]);
            continue;
        }
        ps[i]->kind = P_SUB;
        ps[i]->handshake = handshake;
        ps[i]->deadline = deadline_now(l);
        if (handshake)
            l->handshake_subs++;
        enqueue(l, ps[i]);
    }
    if (rc == MCP_OK)
        c->subscribing = true;
    free(ps);
    free(len);
    free(argv);
    return rc;
}

/* The heartbeat: the beat channel subscribed again, its confirmation
 * awaited like a command's reply. */
static void send_beat(mcp__redis_link *l)
{
    const char *argv[] = {"SUBSCRIBE", BEAT_CHANNEL};
    size_t len[] = {9, sizeof BEAT_CHANNEL - 1};
    pending *p = calloc(1, sizeof *p);
    char *cmd;
    int n = p ? redisFormatCommandArgv(&cmd, 2, argv, len) : -1;
    if (n < 0) {
        free(p);
        break_conn(l, "heartbeat failed: out of memory");
        return;
    }
    conn *c = l->conn;
    int rc = append(c, on_sub, c, cmd, (size_t)n);
    redisFreeCommand(cmd);
    if (rc != REDIS_OK || !took(l, NULL)) {
        free(p);
        break_conn(l, "heartbeat failed: out of memory");
        return;
    }
    p->kind = P_BEAT;
    p->deadline = now_ms() + l->o.timeout_ms;
    enqueue(l, p);
    l->beat_pending = true;
}

/* Replies ------------------------------------------------------------------------------ */

static void handshake_reply(mcp__redis_link *l, pending_kind kind, const redisReply *r)
{
    char why[sizeof l->why];
    if (r->type == REDIS_REPLY_ERROR) {
        if (kind == P_AUTH)
            snprintf(why, sizeof why, "AUTH failed: %.*s", (int)r->len, r->str);
        else if (kind == P_SELECT)
            snprintf(why, sizeof why, "SELECT %d failed: %.*s", l->o.address.db, (int)r->len,
                     r->str);
        else
            snprintf(why, sizeof why, "PING failed: %.*s", (int)r->len, r->str);
        lose(l, why);
        return;
    }
    if (kind != P_PING)
        return;
    l->conn->ready = true;
    if (l->kind == K_SUBSCRIBER && send_subscribe(l, 0, l->nchannels, true, true) != MCP_OK)
        return; /* broken: lost from the timer */
    if (l->handshake_subs == 0)
        come_up(l);
}

static void on_reply(redisAsyncContext *ac, void *r, void *privdata)
{
    pending *p = privdata;
    if (!p->queued) {
        free(p); /* answered already; hiredis lets go of it now */
        return;
    }
    conn *c = ac->data;
    mcp__redis_link *l = c->l;
    if (!r) {
        /* hiredis is freeing the context with p pending: the connection is
         * gone (had we dropped it, nothing would be queued any more). */
        char why[200];
        loss_why(ac, why, sizeof why);
        lose(l, why);
        free(p);
        return;
    }
    dequeue(l, p);
    if (p->kind == P_USER)
        p->fn(p->arg, r, NULL);
    else
        handshake_reply(l, p->kind, r);
    free(p);
    arm(l);
}

static bool is_beat(const redisReply *ch)
{
    return ch->len == sizeof BEAT_CHANNEL - 1 && !memcmp(ch->str, BEAT_CHANNEL, ch->len);
}

static void on_sub(redisAsyncContext *ac, void *r, void *privdata)
{
    conn *c = privdata;
    if (!c->attached)
        return;
    mcp__redis_link *l = c->l;
    if (!r) {
        char why[200];
        loss_why(ac, why, sizeof why);
        lose(l, why);
        return;
    }
    const redisReply *m = r;
    if (m->type != REDIS_REPLY_ARRAY || m->elements < 3 ||
        m->element[0]->type != REDIS_REPLY_STRING || m->element[1]->type != REDIS_REPLY_STRING)
        return;
    const char *what = m->element[0]->str;
    const redisReply *ch = m->element[1], *data = m->element[2];
    if (!strcasecmp(what, "message")) {
        /* Before up it is dropped: its user re-reads on up what it missed. */
        if (l->phase == L_UP && l->o.message && data->type == REDIS_REPLY_STRING && !is_beat(ch))
            l->o.message(l->o.arg, ch->str, ch->len, data->str, data->len);
        return;
    }
    if (strcasecmp(what, "subscribe") != 0)
        return;
    pending *p = l->head;
    if (!p || held(p))
        return;
    dequeue(l, p);
    bool beat = p->kind == P_BEAT, handshake = p->handshake;
    free(p);
    if (beat) {
        l->beat_pending = false;
        l->beat_due = now_ms() + l->o.timeout_ms;
    }
    if (handshake && --l->handshake_subs == 0 && l->phase == L_HANDSHAKE) {
        come_up(l);
        return;
    }
    arm(l);
}

/* Connecting ------------------------------------------------------------------------------ */

static void open_conn(mcp__redis_link *l, const char *ip)
{
    char why[200];
    conn *c = calloc(1, sizeof *c);
    redisAsyncContext *ac = c ? redisAsyncConnect(ip, l->o.address.port) : NULL;
    if (!ac) {
        free(c);
        lose(l, "connect failed: out of memory");
        return;
    }
    if (ac->err) {
        snprintf(why, sizeof why, "connect failed: %s", ac->errstr);
        redisAsyncFree(ac); /* no hooks yet, nothing pending: freed at once, quietly */
        free(c);
        lose(l, why);
        return;
    }
    int rc = uv_poll_init(l->loop, &c->poll, ac->c.fd);
    if (rc < 0) {
        snprintf(why, sizeof why, "connect failed: %s", uv_strerror(rc));
        redisAsyncFree(ac);
        free(c);
        lose(l, why);
        return;
    }
    c->poll.data = c;
    c->ac = ac;
    c->l = l;
    ac->data = c;
    ac->ev.data = c;
    ac->ev.addRead = ev_add_read;
    ac->ev.delRead = ev_del_read;
    ac->ev.addWrite = ev_add_write;
    ac->ev.delWrite = ev_del_write;
    ac->ev.cleanup = ev_cleanup;
    l->conns++;
    l->conn = c;
    c->attached = true;
    l->phase = L_HANDSHAKE;
    /* A peer gone without a word (its host down, the network cut) is seen
     * even by an idle link. */
    if (redisEnableKeepAlive(&ac->c) != REDIS_OK) {
        snprintf(why, sizeof why, "connect failed: %s", ac->c.errstr);
        lose(l, why);
        return;
    }
    const mcp__redis_address *a = &l->o.address;
    char db[16];
    snprintf(db, sizeof db, "%d", a->db);
    const char *auth_user[] = {"AUTH", a->user, a->password};
    const char *auth[] = {"AUTH", a->password};
    const char *select[] = {"SELECT", db};
    const char *ping[] = {"PING"};
    /* Pipelined; PING last proves Redis answers (a stopped one still
     * accepts connections: its kernel does). */
    rc = MCP_OK;
    if (a->password[0])
        rc = a->user[0] ? send_internal(l, P_AUTH, 3, auth_user) : send_internal(l, P_AUTH, 2, auth);
    if (rc == MCP_OK && a->db)
        rc = send_internal(l, P_SELECT, 2, select);
    if (rc == MCP_OK)
        rc = send_internal(l, P_PING, 1, ping);
    if (rc != MCP_OK && l->conn == c && !c->broken)
        break_conn(l, "connect failed: out of memory");
    arm(l);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    resolve *r = req->data;
    mcp__redis_link *l = r->l;
    for (resolve **at = &l->resolves; *at; at = &(*at)->next)
        if (*at == r) {
            *at = r->next;
            break;
        }
    bool current = !l->closing && l->phase == L_RESOLVING && r->attempt == l->attempt;
    free(r);
    if (!current) {
        uv_freeaddrinfo(res);
        finish_close(l);
        return;
    }
    /* IPv4 first, as hiredis itself prefers. */
    const struct addrinfo *v4 = NULL, *v6 = NULL;
    for (const struct addrinfo *ai = status == 0 ? res : NULL; ai; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET && !v4)
            v4 = ai;
        else if (ai->ai_family == AF_INET6 && !v6)
            v6 = ai;
    }
    char ip[64] = "";
    if (v4)
        uv_ip4_name((const struct sockaddr_in *)v4->ai_addr, ip, sizeof ip);
    else if (v6)
        uv_ip6_name((const struct sockaddr_in6 *)v6->ai_addr, ip, sizeof ip);
    uv_freeaddrinfo(res);
    if (!ip[0]) {
        char why[sizeof l->why];
        snprintf(why, sizeof why, "cannot resolve %.200s: %s", l->o.address.host,
                 status < 0 ? uv_strerror(status) : "no IPv4 or IPv6 address");
        lose(l, why);
        return;
    }
    open_conn(l, ip);
}

static void connect_now(mcp__redis_link *l)
{
    l->attempt++;
    l->connect_deadline = now_ms() + l->o.timeout_ms;
    const char *host = l->o.address.host;
    unsigned char addr[16];
    if (inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1) {
        open_conn(l, host);
        return;
    }
    resolve *r = calloc(1, sizeof *r);
    if (!r) {
        lose(l, "connect failed: out of memory");
        return;
    }
    r->l = l;
    r->attempt = l->attempt;
    r->req.data = r;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    int rc = uv_getaddrinfo(l->loop, &r->req, on_resolved, host, NULL, &hints);
    if (rc < 0) {
        free(r);
        char why[sizeof l->why];
        snprintf(why, sizeof why, "cannot resolve %.200s: %s", host, uv_strerror(rc));
        lose(l, why);
        return;
    }
    r->next = l->resolves;
    l->resolves = r;
    l->phase = L_RESOLVING;
    arm(l);
}

static void on_timer(uv_timer_t *t)
{
    mcp__redis_link *l = t->data;
    if (l->closing)
        return;
    uint64_t now = now_ms();
    char why[sizeof l->why];
    if (l->conn && l->conn->broken) {
        lose(l, l->broken_why);
        return;
    }
    switch (l->phase) {
    case L_WAITING:
        if (now >= l->retry_at) {
            connect_now(l);
            return;
        }
        break;
    case L_RESOLVING:
    case L_HANDSHAKE:
        if (now >= l->connect_deadline) {
            if (l->phase == L_RESOLVING)
                snprintf(why, sizeof why, "connect timed out after %llu ms resolving %.200s",
                         (unsigned long long)l->o.timeout_ms, l->o.address.host);
            else
                snprintf(why, sizeof why, "connect timed out after %llu ms",
                         (unsigned long long)l->o.timeout_ms);
            lose(l, why);
            return;
        }
        break;
    case L_UP:
        if (l->head && now >= l->head->deadline) {
            snprintf(why, sizeof why, "timed out after %llu ms",
                     (unsigned long long)l->o.timeout_ms);
            lose(l, why);
            return;
        }
        if (l->conn->subscribing && !l->beat_pending && now >= l->beat_due)
            send_beat(l);
        break;
    }
    arm(l);
}

/* The API ------------------------------------------------------------------------------------ */

static uint64_t clamp_ms(uint64_t v, uint64_t dflt)
{
    return v == 0 ? dflt : v > TIME_MAX_MS ? TIME_MAX_MS : v;
}

int mcp__redis_link_new(uv_loop_t *loop, const mcp__redis_link_options *opts,
                        mcp__redis_link **out)
{
    if (!loop || !opts || !out || !opts->address.host[0] || opts->address.port < 1 ||
        opts->address.port > 65535 || opts->address.db < 0 ||
        !memchr(opts->address.host, 0, sizeof opts->address.host) ||
        !memchr(opts->address.user, 0, sizeof opts->address.user) ||
        !memchr(opts->address.password, 0, sizeof opts->address.password))
        return MCP_ERR_INVALID_ARG;
    mcp__redis_link *l = calloc(1, sizeof *l);
    if (!l)
        return MCP_ERR_NOMEM;
    l->loop = loop;
    l->o = *opts;
    l->o.timeout_ms = clamp_ms(opts->timeout_ms, 1000);
    l->o.backoff_min_ms = clamp_ms(opts->backoff_min_ms, 50);
    l->o.backoff_max_ms = clamp_ms(opts->backoff_max_ms, 2000);
    if (l->o.backoff_max_ms < l->o.backoff_min_ms)
        l->o.backoff_max_ms = l->o.backoff_min_ms;
    l->backoff = l->o.backoff_min_ms;
    snprintf(l->why, sizeof l->why, "connecting");
    uv_timer_init(loop, &l->timer);
    l->timer.data = l;
    uv_check_init(loop, &l->flush);
    l->flush.data = l;
    uv_idle_init(loop, &l->flush_idle);
    l->flush_idle.data = l;
    l->handles = 3;
    /* The first attempt from the loop, as every later one: its failure is
     * told by the state callback, never inside this call. */
    l->phase = L_WAITING;
    l->retry_at = now_ms();
    arm(l);
    *out = l;
    return MCP_OK;
}

bool mcp__redis_link_up(const mcp__redis_link *l)
{
    return l && link_up(l);
}

const char *mcp__redis_link_why(const mcp__redis_link *l)
{
    if (!l)
        return "no link";
    if (l->closing)
        return "closed";
    if (l->conn && l->conn->broken)
        return l->broken_why;
    return l->phase == L_UP ? "" : l->why;
}

static bool is_name(const char *arg, size_t len, const char *name)
{
    return len == strlen(name) && !strncasecmp(arg, name, len);
}

/* Commands hiredis mispairs, or that change the connection under the link
 * (a reconnect would silently undo them). */
static bool refused(int argc, const char *const *argv, const size_t *len)
{
    const char *a = argv[0];
    size_t n = len[0];
    if (!a || n == 0)
        return false; /* Redis answers an error */
    if (memchr(a, '\r', n) || memchr(a, '\n', n) || memchr(a, '\0', n))
        return true; /* hiredis matches names by prefix up to "\r\n" */
    static const char *const names[] = {"select", "auth", "hello", "reset", "quit", "ssubscribe",
                                        "sunsubscribe"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (is_name(a, n, names[i]))
            return true;
    if (n && (a[0] == 'p' || a[0] == 'P')) {
        a++;
        n--;
    }
    if (is_name(a, n, "subscribe") || is_name(a, n, "unsubscribe") || is_name(a, n, "monitor"))
        return true;
    return argc > 1 && is_name(argv[0], len[0], "client") && is_name(argv[1], len[1], "reply");
}

int mcp__redis_link_command(mcp__redis_link *l, mcp__redis_reply_fn fn, void *arg, int argc,
                            const char *const *argv, const size_t *len)
{
    if (!l || !fn || argc <= 0 || !argv || !len || l->kind == K_SUBSCRIBER)
        return MCP_ERR_INVALID_ARG;
    if (argc > ARGC_MAX)
        return MCP_ERR_LIMIT;
    size_t total = 0;
    for (int i = 0; i < argc; i++) {
        if (!argv[i] && len[i])
            return MCP_ERR_INVALID_ARG;
        if (len[i] > COMMAND_BYTES_MAX - total)
            return MCP_ERR_LIMIT;
        total += len[i];
    }
    if (refused(argc, argv, len))
        return MCP_ERR_INVALID_ARG;
    if (!link_up(l))
        return MCP_ERR_CLOSED;
    pending *p = calloc(1, sizeof *p);
    if (!p)
        return MCP_ERR_NOMEM;
    p->kind = P_USER;
    p->fn = fn;
    p->arg = arg;
    /* hiredis wants no NULL argument even of length 0. */
    static const char empty[1] = "";
    const char *const *args = argv;
    const char **copy = NULL;
    for (int i = 0; i < argc && !copy; i++)
        if (!argv[i]) {
            copy = malloc((size_t)argc * sizeof *copy);
            if (!copy) {
                free(p);
                return MCP_ERR_NOMEM;
            }
            for (int j = 0; j < argc; j++)
                copy[j] = argv[j] ? argv[j] : empty;
            args = copy;
        }
    int rc = send_regular(l, p, argc, args, len);
    free(copy);
    if (rc == MCP_OK) {
        l->kind = K_COMMAND;
        arm(l);
    }
    return rc;
}

int mcp__redis_link_subscribe(mcp__redis_link *l, const char *channel)
{
    if (!l || !channel || l->kind == K_COMMAND)
        return MCP_ERR_INVALID_ARG;
    if (l->closing)
        return MCP_ERR_CLOSED;
    size_t n = strlen(channel);
    if (n == 0 || n > CHANNEL_MAX || !strcmp(channel, BEAT_CHANNEL))
        return MCP_ERR_INVALID_ARG;
    for (size_t i = 0; i < l->nchannels; i++)
        if (!strcmp(l->channels[i], channel))
            return MCP_OK;
    if (l->nchannels == CHANNELS_MAX)
        return MCP_ERR_LIMIT;
    if (l->nchannels == l->channels_cap) {
        size_t cap = l->channels_cap ? l->channels_cap * 2 : 8;
        char **bigger = realloc(l->channels, cap * sizeof *bigger);
        if (!bigger)
            return MCP_ERR_NOMEM;
        l->channels = bigger;
        l->channels_cap = cap;
    }
    char *copy = strdup(channel);
    if (!copy)
        return MCP_ERR_NOMEM;
    l->channels[l->nchannels++] = copy;
    l->kind = K_SUBSCRIBER;
    /* Sent now when the connection is past its PING (before, the PING's
     * answer sends them all); a failure breaks the connection, which comes
     * back with the channel. */
    conn *c = l->conn;
    if (c && c->ready && !c->broken) {
        bool handshake = l->phase == L_HANDSHAKE;
        send_subscribe(l, l->nchannels - 1, l->nchannels, !c->subscribing, handshake);
        if (!handshake)
            l->beat_due = now_ms() + l->o.timeout_ms;
        arm(l);
    }
    return MCP_OK;
}

static void on_handle_closed(uv_handle_t *h)
{
    mcp__redis_link *l = h->data;
    l->handles--;
    finish_close(l);
}

void mcp__redis_link_close(mcp__redis_link *l, void (*closed)(void *arg), void *arg)
{
    if (!l || l->closing)
        return;
    l->closing = true;
    l->closed = closed;
    l->closed_arg = arg;
    l->o.state = NULL;
    l->o.message = NULL;
    conn *c = l->conn;
    l->conn = NULL;
    if (c)
        c->attached = false;
    l->phase = L_WAITING;
    answer_all(l, "closed");
    if (c)
        free_context(c);
    for (resolve *r = l->resolves; r; r = r->next)
        uv_cancel((uv_req_t *)&r->req);
    uv_close((uv_handle_t *)&l->timer, on_handle_closed);
    uv_close((uv_handle_t *)&l->flush, on_handle_closed);
    uv_close((uv_handle_t *)&l->flush_idle, on_handle_closed);
}
