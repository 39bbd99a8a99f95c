/* SPDX-License-Identifier: MIT */
/*
 * Byte scripts into the session engine: a client and a server session wired
 * together, driven by the fuzzer's bytes (calls, replies, progress, cancels,
 * clock jumps, deliveries, raw bytes from the "peer", subscriptions opened,
 * published to and torn down, lost routes, oversized messages, a send that
 * fails, close), in either era. Invariants, checked with abort():
 *   - everything a session sends is one valid JSON-RPC message per line;
 *   - no response or progress for a request after it settled;
 *   - every inbound request settles exactly once, every outbound request
 *     ends exactly once (all of them by the close at the end);
 *   - the tables are empty after close (and nothing leaks: ASan).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/session.h"

#define MAXQ 64
#define MAXR 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct side {
    mcp_session *s;
    int sends, fail_at; /* the send that fails, 0 for none */
    char *queue[MAXQ]; /* what this side sent, not yet delivered */
    int qhead, qtail;
    struct { mcp_handle h; int64_t id; int settles; bool token; double progress; } in[MAXR];
    int nin;
    struct { mcp_handle h; int endings; } out[MAXR];
    int nout;
} side;

typedef struct script {
    const uint8_t *p;
    size_t left;
} script;

static unsigned next(script *sc, unsigned n)
{
    if (!sc->left)
        return 0;
    sc->left--;
    return *sc->p++ % n;
}

static int find_in(side *sd, int64_t id)
{
    for (int i = 0; i < sd->nin; i++)
        if (sd->in[i].id == id)
            return i;
    return -1;
}

static int on_send(void *ud, uint64_t route, const char *data, size_t len)
{
    side *sd = ud;
    if (++sd->sends == sd->fail_at)
        return MCP_ERR_IO; /* closes the session under whatever was writing */
    for (const char *p = data; p < data + len;) {
        const char *nl = memchr(p, '\n', (size_t)(data + len - p));
        if (!nl)
            abort(); /* always whole lines */
        mcp_message *m;
        if (mcp_message_decode(p, (size_t)(nl - p), NULL, NULL, &m, NULL) != MCP_OK)
            abort(); /* never an invalid message */
        int i = -1;
        if ((m->kind == MCP_MESSAGE_RESULT || m->kind == MCP_MESSAGE_ERROR) &&
            m->id.kind == MCP_ID_INT)
            i = find_in(sd, m->id.num);
        if (m->kind == MCP_MESSAGE_NOTIFICATION && !strcmp(m->method, "notifications/progress")) {
            int64_t tok;
            if (mcp_json_get_int64(mcp_json_object_get(m->params, "progressToken"), &tok) == MCP_OK)
                i = find_in(sd, tok);
        }
        if (i >= 0 && sd->in[i].settles > 0 &&
            !(m->kind == MCP_MESSAGE_RESULT || m->kind == MCP_MESSAGE_ERROR))
            abort(); /* progress after settle */
        mcp_message_free(m);
        if (sd->qtail - sd->qhead < MAXQ)
            sd->queue[sd->qtail++ % MAXQ] = strndup(p, (size_t)(nl - p));
        p = nl + 1;
    }
    return MCP_OK;
}

static void on_request(void *ud, mcp_handle h, const mcp_message *m)
{
    side *sd = ud;
    if (sd->nin == MAXR || m->id.kind != MCP_ID_INT) {
        /* Not tracked (a string id from raw bytes): answer at once. */
        mcp_session_reply(sd->s, h, NULL);
        return;
    }
    int i = sd->nin++;
    sd->in[i].h = h;
    sd->in[i].id = m->id.num;
    sd->in[i].settles = 0;
    sd->in[i].progress = 0;
    sd->in[i].token = mcp_json_object_get(mcp_json_object_get(m->params, "_meta"),
                                          "progressToken") != NULL;
}

static void on_cancel(void *ud, mcp_handle h, const char *reason)
{
    side *sd = ud;
    for (int i = 0; i < sd->nin; i++)
        if (sd->in[i].h == h && ++sd->in[i].settles != 1)
            abort();
}

static void on_response(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    side *sd = ud;
    for (int i = 0; i < sd->nout; i++)
        if (sd->out[i].h == h && ++sd->out[i].endings != 1)
            abort();
}

static void on_listen(void *ud, mcp_handle h, const mcp_listen_event *ev)
{
    if (ev->kind == MCP_LISTEN_ENDED)
        on_response(ud, h, ev->outcome, ev->message);
}

static void make(side *sd, mcp_role role)
{
    memset(sd, 0, sizeof *sd);
    mcp_session_options o = {.size = sizeof o, .role = role, .timeout_ms = 500, .max_time_ms = 2000,
                             .max_inbound = 32, .listen_kinds = MCP_LISTEN_TOOLS};
    mcp_session_callbacks cb = {.size = sizeof(mcp_session_callbacks),
                                .send = on_send,
                                .on_request = on_request,
                                .on_cancel = on_cancel,
                                .user_data = sd};
    if (mcp_session_new(&o, &cb, &sd->s) != MCP_OK)
        abort();
}

static void deliver(side *from, side *to, uint64_t now)
{
    if (from->qhead == from->qtail)
        return;
    char *line = from->queue[from->qhead++ % MAXQ];
    mcp_session_receive(to->s, now, 0, line, strlen(line));
    free(line);
}

static void listen(side *sd, uint64_t now)
{
    if (sd->nout == MAXR)
        return;
    mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS};
    mcp_handle h;
    if (mcp_session_listen(sd->s, now, &f, on_listen, sd, &h) == MCP_OK) {
        sd->out[sd->nout].h = h;
        sd->out[sd->nout++].endings = 0;
    }
}

static void oversized(side *to, script *sc, uint64_t now)
{
    size_t n = next(sc, 64);
    size_t split = next(sc, 65);
    if (n > sc->left)
        n = sc->left;
    if (split > n)
        split = n;
    mcp_session_receive_oversized(to->s, now, 0, (const char *)sc->p, split,
                                  (const char *)sc->p + split, n - split, 100);
    sc->p += n;
    sc->left -= n;
}

static void request(side *sd, script *sc, uint64_t now)
{
    static const char *methods[] = {"tools/call", "ping", "sampling/createMessage", "x/y"};
    if (sd->nout == MAXR)
        return;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = 100 * next(sc, 8), .max_time_ms = 300 * next(sc, 8),
                             .progress = (mcp_progress_mode)next(sc, 3)};
    mcp_handle h;
    if (mcp_session_request(sd->s, now, methods[next(sc, 4)], NULL, &o, on_response, NULL, sd,
                            &h) == MCP_OK) {
        sd->out[sd->nout].h = h;
        sd->out[sd->nout++].endings = 0;
    }
}

static void answer(side *sd, script *sc)
{
    if (!sd->nin)
        return;
    int i = (int)next(sc, (unsigned)sd->nin);
    bool in_flight = sd->in[i].settles == 0;
    int rc = next(sc, 2) ? mcp_session_reply(sd->s, sd->in[i].h, NULL)
                         : mcp_session_reply_error(sd->s, sd->in[i].h, -1, "e", NULL);
    /* Accepted exactly while in flight (CLOSED: settled, then the write
     * failed). */
    bool accepted = rc == MCP_OK || rc == MCP_ERR_CLOSED;
    if (accepted != in_flight)
        abort();
    if (accepted)
        sd->in[i].settles++;
}

static void progress(side *sd, script *sc)
{
    if (!sd->nin)
        return;
    int i = (int)next(sc, (unsigned)sd->nin);
    double v = sd->in[i].progress + 1;
    bool settled = sd->in[i].settles > 0;
    int rc = mcp_session_progress(sd->s, sd->in[i].h, v, NAN, NULL);
    if ((rc == MCP_OK || rc == MCP_ERR_CLOSED) && (settled || !sd->in[i].token))
        abort();
    if (rc == MCP_OK)
        sd->in[i].progress = v;
}

static void raw(side *to, script *sc, uint64_t now)
{
    size_t n = next(sc, 64);
    if (n > sc->left)
        n = sc->left;
    mcp_session_receive(to->s, now, 0, (const char *)sc->p, n);
    sc->p += n;
    sc->left -= n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    side client, server;
    make(&client, MCP_ROLE_CLIENT);
    make(&server, MCP_ROLE_SERVER);
    script sc = {data, size};
    uint64_t now = 1000;
    bool modern = next(&sc, 2);
    mcp_connect_options co = {.size = sizeof co,
                              .mode = modern ? MCP_CONNECT_MODERN : MCP_CONNECT_LEGACY};
    mcp_session_connect(client.s, now, &co, on_response, &client);
    deliver(&client, &server, now);
    deliver(&server, &client, now);
    deliver(&client, &server, now);
    if (next(&sc, 4) == 0)
        (next(&sc, 2) ? &client : &server)->fail_at = 3 + (int)next(&sc, 40);
    while (sc.left) {
        switch (next(&sc, 18)) {
        case 0: request(&client, &sc, now); break;
        case 1: request(&server, &sc, now); break;
        case 2: answer(&server, &sc); break;
        case 3: answer(&client, &sc); break;
        case 4: progress(&server, &sc); break;
        case 5:
            if (client.nout)
                mcp_session_cancel(client.s, now, client.out[next(&sc, (unsigned)client.nout)].h,
                                   "fuzz");
            break;
        case 6: deliver(&client, &server, now); break;
        case 7: deliver(&server, &client, now); break;
        case 8:
            now += 50 * next(&sc, 40);
            mcp_session_tick(client.s, now);
            mcp_session_tick(server.s, now);
            break;
        case 9: raw(&server, &sc, now); break;
        case 10: raw(&client, &sc, now); break;
        case 11: progress(&client, &sc); break;
        case 12: listen(&client, now); break;
        case 13: mcp_session_publish(server.s, MCP_LISTEN_TOOLS, NULL); break;
        case 14: mcp_session_end_listens(server.s, now, "fuzz"); break;
        case 15: mcp_session_route_closed(server.s, now, 1 + next(&sc, 3)); break;
        case 16: oversized(&server, &sc, now); break;
        case 17: oversized(&client, &sc, now); break;
        }
    }
    mcp_session_close(server.s, now);
    mcp_session_close(client.s, now);
    side *both[2] = {&client, &server};
    for (int k = 0; k < 2; k++) {
        side *sd = both[k];
        for (int i = 0; i < sd->nin; i++)
            if (sd->in[i].settles != 1)
                abort();
        for (int i = 0; i < sd->nout; i++)
            if (sd->out[i].endings != 1)
                abort();
        if (mcp_session_inbound_count(sd->s) || mcp_session_outbound_count(sd->s))
            abort();
        mcp_session_free(sd->s);
        while (sd->qhead != sd->qtail)
            free(sd->queue[sd->qhead++ % MAXQ]);
    }
    return 0;
}
