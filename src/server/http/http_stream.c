/* SPDX-License-Identifier: MIT */
/*
 * What the engine sends on a route, turned into the HTTP answer: a JSON body
 * when the response comes first, else an event stream. A 2025 stream is
 * resumable (basic/transports.mdx of 2025-06-18 and 2025-11-25): each event
 * has an id `<route>-<n>` and is kept, up to a cap, so that a client whose
 * connection dropped gets, through GET with Last-Event-ID, exactly the
 * events of that stream it missed, and the response when it comes: in 2025
 * a dropped connection is not a cancel, so the call runs on and its answer
 * waits. 2026-07-28 streams are neither: the disconnect has cancelled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/scan.h"
#include "server/http/http.h"
#include "transport/sse.h"

/* What one stream keeps for a resume (the oldest events go first), what all
 * of a server's streams keep (past it, events are not kept: a resume then
 * misses them), and how long a stream whose client went waits for it. */
#define REPLAY_MAX_BYTES ((size_t)256 << 10)
#define REPLAY_TOTAL_MAX ((size_t)64 << 20)
#define RESUME_WINDOW_MS 60000u

typedef struct replay_head {
    uint64_t seq;
    size_t len;
} replay_head;

/* Whether a line we wrote is a response (no "method" member; or an array,
 * a batch's responses), and its error code (0 for a result). */
static bool is_response(const char *line, size_t len, int64_t *error_code)
{
    mcp__scan sc;
    mcp__span k, v;
    *error_code = 0;
    size_t lead = 0;
    while (lead < len && (line[lead] == ' ' || line[lead] == '\t'))
        lead++;
    if (lead < len && line[lead] == '[')
        return true; /* a batch's answer (2025-03-26): all of it at once */
    if (!mcp__scan_open(&sc, line, len))
        return false;
    while (mcp__scan_key(&sc, &k) == MCP__SCAN_MEMBER) {
        if (mcp__span_is_key(k, "method"))
            return false;
        /* A result makes a response: its value, most of the line, need
         * not be read through. */
        if (mcp__span_is_key(k, "result"))
            return true;
        if (mcp__scan_value(&sc, &v) != MCP__SCAN_MEMBER)
            break;
        if (mcp__span_is_key(k, "error")) {
            mcp__scan inner;
            mcp__span ik, iv;
            if (!mcp__scan_open(&inner, v.p, v.n))
                continue;
            while (mcp__scan_next(&inner, &ik, &iv) == MCP__SCAN_MEMBER)
                if (mcp__span_is_key(ik, "code"))
                    *error_code = strtoll(iv.p, NULL, 10);
        }
    }
    return true;
}

/* 2026-07-28 gives some errors their own status; a 2025 session answers
 * every JSON-RPC message with 200. */
static unsigned status_of(const hpeer *p, int64_t code)
{
    if (p->legacy || !code)
        return 200;
    switch (code) {
    case MCP_WIRE_METHOD_NOT_FOUND:
        return 404;
    case MCP_WIRE_PARSE_ERROR:
    case MCP_WIRE_INVALID_REQUEST:
    case MCP_WIRE_INVALID_PARAMS:
    case MCP_WIRE_HEADER_MISMATCH:
    case MCP_WIRE_MISSING_CAPABILITY:
    case MCP_WIRE_UNSUPPORTED_VERSION:
        return 400;
    default:
        return 200;
    }
}

/* Routes -------------------------------------------------------------------------- */

hroute *mcp__route_find(hpeer *p, uint64_t id)
{
    if (id == 0)
        return p->get;
    for (hroute *r = p->routes; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

hroute *mcp__route_open(hpeer *p, mcp__http_exchange *x, uint64_t id)
{
    hroute *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->peer = p;
    r->x = x;
    r->id = id;
    mcp_buf_init(&r->replay, 0, NULL);
    r->next = p->routes;
    p->routes = r;
    if (id == 0)
        p->get = r;
    if (x) {
        mcp__http_exchange_set_user(x, r);
        /* 2025: a disconnect cancels nothing, and a half-closed client
         * still wants its answer: found gone only by writing to it. */
        mcp__http_exchange_watch_hangup(x, !p->legacy);
    }
    return r;
}

void mcp__route_drop(hroute *r)
{
    hpeer *p = r->peer;
    for (hroute **q = &p->routes; *q; q = &(*q)->next)
        if (*q == r) {
            *q = r->next;
            break;
        }
    if (p->get == r)
        p->get = NULL;
    if (r->x)
        mcp__http_exchange_set_user(r->x, NULL);
    p->l->replay_bytes -= r->replay.len - r->replay_off;
    mcp_buf_free(&r->replay);
    mcp_id_release(&r->request, NULL);
    free(r);
    if (!p->legacy && !p->routes)
        mcp__peer_finish(p); /* a 2026 peer lives for its one request */
}

/* Events ------------------------------------------------------------------------- */

/* Keep an event for a resume, dropping the oldest past the cap. */
static void keep(hroute *r, const char *text, size_t len)
{
    replay_head h = {r->seq, len};
    size_t *total = &r->peer->l->replay_bytes;
    if (sizeof h + len > REPLAY_MAX_BYTES)
        return;
    /* The oldest go by moving the start; the buffer is compacted only once
     * half of it is dead, so a chatty stream costs O(1) per event (a
     * memmove per event stalled the loop: the attack round's F2). */
    while (r->replay.len - r->replay_off + sizeof h + len > REPLAY_MAX_BYTES) {
        replay_head old;
        memcpy(&old, r->replay.data + r->replay_off, sizeof old);
        size_t cut = sizeof old + old.len;
        r->replay_off += cut;
        *total -= cut;
    }
    if (r->replay_off && r->replay_off >= r->replay.len / 2) {
        memmove(r->replay.data, r->replay.data + r->replay_off, r->replay.len - r->replay_off);
        r->replay.len -= r->replay_off;
        r->replay_off = 0;
    }
    if (*total + sizeof h + len > REPLAY_TOTAL_MAX)
        return;
    size_t mark = r->replay.len;
    if (mcp_buf_append(&r->replay, (const char *)&h, sizeof h) != MCP_OK ||
        mcp_buf_append(&r->replay, text, len) != MCP_OK)
        r->replay.len = mark;
    *total += r->replay.len - mark;
}

/* One event of r's stream: numbered and kept when resumable, written when
 * a client is attached. */
static int event(hroute *r, const char *data, size_t len)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    char id[48];
    int idlen = 0;
    if (r->resumable)
        idlen = snprintf(id, sizeof id, "%llu-%llu", (unsigned long long)r->id,
                         (unsigned long long)++r->seq);
    int rc = mcp__sse_append_event(&b, r->resumable ? id : NULL, (size_t)idlen, NULL, 0, data, len);
    if (rc == MCP_OK && r->resumable)
        keep(r, b.data, b.len);
    if (rc == MCP_OK && r->x) {
        rc = mcp__http_sse_write(r->x, b.data, b.len);
        if (rc == MCP_OK) {
            r->sent_seq = r->seq;
        } else if (r->resumable) {
            /* The client reads slower than the call talks: its connection
             * is cut rather than the stream thinned, and it resumes from
             * the last event it got (the replay keeps the rest). */
            mcp__http_abort(r->x);
            mcp__http_exchange_set_user(r->x, NULL);
            r->x = NULL;
            r->detached_at = mcp__now_ms();
            rc = MCP_OK;
        }
    }
    mcp_buf_free(&b);
    return rc;
}

static const char *const *session_headers(hroute *r, const char *pair[3])
{
    if (!r->initialize)
        return NULL;
    pair[0] = "Mcp-Session-Id";
    pair[1] = r->peer->sid;
    pair[2] = NULL;
    return pair;
}

/* Open r's answer as an event stream. 2025-11-25 streams start with a
 * priming event (an id, no data) so that even a stream cut before its
 * first message can be resumed; with polling the server then closes the
 * connection at once, and the client comes back after `retry`. */
static int start_stream(hroute *r)
{
    hpeer *p = r->peer;
    const char *pair[3];
    int rc = mcp__http_sse_start(r->x, session_headers(r, pair));
    if (rc != MCP_OK)
        return rc;
    r->streaming = true;
    r->resumable = p->legacy;
    const char *version = mcp_session_protocol_version(p->conn->driver.session);
    if (!p->legacy || r->id == 0 || !version || strcmp(version, "2025-11-25") < 0)
        return MCP_OK;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    char id[48];
    int n = snprintf(id, sizeof id, "%llu-0", (unsigned long long)r->id);
    uint64_t poll = p->l->opts.poll_retry_ms;
    rc = mcp__sse_append_event(&b, id, (size_t)n, NULL, 0, "", 0);
    if (rc == MCP_OK && poll)
        rc = mcp__sse_append_retry(&b, poll);
    if (rc == MCP_OK)
        rc = mcp__http_sse_write(r->x, b.data, b.len);
    mcp_buf_free(&b);
    if (rc == MCP_OK && poll) {
        mcp__http_sse_end(r->x);
        mcp__http_exchange_set_user(r->x, NULL);
        r->x = NULL; /* the rest waits for the client's GET */
        r->detached_at = mcp__now_ms();
    }
    return rc;
}

void mcp__route_stream_now(hroute *r)
{
    mcp_server_http_options *o = &r->peer->l->opts;
    if (!r->streaming && r->x && r->peer->legacy &&
        (o->response_mode == MCP_HTTP_RESPONSE_SSE || o->poll_retry_ms))
        start_stream(r);
}

int mcp__route_deliver(hroute *r, const char *line, size_t len)
{
    hpeer *p = r->peer;
    mcp_http_response_mode mode = p->l->opts.response_mode;
    int64_t code;
    bool response = is_response(line, len, &code);
    if (!r->streaming) {
        if (!r->x) {
            /* A JSON answer whose connection dropped has nowhere to go. */
            if (response)
                mcp__route_drop(r);
            return MCP_OK;
        }
        if (response && code && r->busy_retry_s) {
            /* A refusal for want of capacity: whatever the response mode,
             * a status the client and any proxy between act on. */
            char after[16];
            snprintf(after, sizeof after, "%u", r->busy_retry_s);
            const char *const retry[] = {"Retry-After", after, NULL};
            int rc = mcp__http_respond(r->x, 503, "application/json", line, len, retry);
            mcp__route_drop(r);
            return rc;
        }
        if (response && mode != MCP_HTTP_RESPONSE_SSE) {
            const char *pair[3];
            int rc = mcp__http_respond(r->x, status_of(p, code), "application/json", line, len,
                                       session_headers(r, pair));
            mcp__route_drop(r);
            return rc;
        }
        if (!response && mode == MCP_HTTP_RESPONSE_JSON)
            return MCP_OK; /* nowhere to put it: the result comes alone */
        int rc = start_stream(r);
        if (rc != MCP_OK)
            return rc;
    }
    int rc = event(r, line, len);
    if (response && r->id != 0) {
        r->answered = true;
        if (r->x) {
            mcp__http_sse_end(r->x);
            /* A resumable stream stays until its client has it all: a
             * connection lost before that leaves it for a resume. */
            if (!r->resumable)
                mcp__route_drop(r);
        }
    }
    return rc;
}

int mcp__route_attach(hroute *r, mcp__http_exchange *x, uint64_t after)
{
    int rc = mcp__http_sse_start(x, NULL);
    if (rc != MCP_OK)
        return rc;
    r->x = x;
    r->streaming = true;
    mcp__http_exchange_set_user(x, r);
    mcp__http_exchange_watch_hangup(x, !r->peer->legacy);
    for (size_t at = r->replay_off; at < r->replay.len && rc == MCP_OK;) {
        replay_head h;
        memcpy(&h, r->replay.data + at, sizeof h);
        if (h.seq > after)
            rc = mcp__http_sse_write(x, r->replay.data + at + sizeof h, h.len);
        at += sizeof h + h.len;
    }
    r->sent_seq = r->seq;
    if (r->answered)
        mcp__http_sse_end(x); /* the route goes once the client has it all */
    return rc;
}

void mcp__route_exchange_closed(hroute *r, mcp__http_end how)
{
    hpeer *p = r->peer;
    r->x = NULL;
    /* The engine decides by era whether the loss cancels (2026) or not:
     * told before the route goes, which may end a 2026 peer. */
    if (how != MCP__HTTP_COMPLETED && r->id && !p->ended)
        p->t.sink.route_closed(p->t.sink.ud, r->id);
    /* A 2025 stream not wholly delivered waits for its client to come
     * back, for the resume window. */
    if (!r->resumable || how == MCP__HTTP_COMPLETED || p->ended)
        mcp__route_drop(r);
    else
        r->detached_at = mcp__now_ms();
}

bool mcp__routes_expire(hpeer *p, uint64_t now)
{
    bool attached = false;
    for (hroute *r = p->routes, *next; r; r = next) {
        next = r->next;
        if (r->x)
            attached = true;
        else if (r->resumable && now - r->detached_at >= RESUME_WINDOW_MS)
            mcp__route_drop(r); /* its call runs on; what it sends is dropped */
    }
    return attached;
}

/* The transport's send and close_route ------------------------------------------- */

int mcp__peer_send(mcp__transport *t, uint64_t route, const char *data, size_t len)
{
    hpeer *p = (hpeer *)t;
    int rc = MCP_OK;
    /* The engine hands over complete lines, one message each. */
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(data + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (data + at)) : len - at;
        hroute *r = mcp__route_find(p, route);
        if (!r && route == 0 && p->legacy) {
            /* The GET stream before its GET: events wait for it. */
            r = mcp__route_open(p, NULL, 0);
            if (r) {
                r->streaming = r->resumable = true;
                r->detached_at = mcp__now_ms();
            }
        }
        if (r)
            rc = mcp__route_deliver(r, data + at, n);
        else if (route)
            rc = MCP_ERR_STATE; /* the route is gone */
        at += n + 1;
    }
    return route ? rc : MCP_OK;
}

void mcp__route_end_unanswered(hroute *r)
{
    if (r->x && !r->streaming && r->peer->legacy &&
        mcp__http_sse_start(r->x, NULL) == MCP_OK) {
        /* A 2025 POST must be answered with JSON or an event stream, and a
         * cancelled request must get no response: an event stream that
         * ends empty is both. */
        mcp__http_sse_end(r->x);
    } else if (r->x && !r->streaming && !r->peer->legacy && r->peer->l->server->stopping) {
        /* 2026-07-28: the client is still there; a closed connection
         * would say nothing of why. */
        mcp__http_respond_error(r->x, 503, &r->request, MCP_WIRE_INTERNAL_ERROR,
                                "Service Unavailable: the server is shutting down", NULL);
    } else if (r->x && r->streaming && r->peer->legacy) {
        /* What the call's stream carries already (its asks' cancels among
         * them) is still the client's: the stream ends after it. */
        mcp__http_sse_end(r->x);
    } else if (r->x) {
        mcp__http_abort(r->x); /* what was queued goes too */
    }
    mcp__route_drop(r);
}

void mcp__peer_unavailable(mcp__transport *t, uint64_t route, unsigned retry_after_s)
{
    hroute *r = route ? mcp__route_find((hpeer *)t, route) : NULL;
    if (r)
        r->busy_retry_s = retry_after_s ? retry_after_s : 1;
}

void mcp__peer_close_route(mcp__transport *t, uint64_t route)
{
    hroute *r = mcp__route_find((hpeer *)t, route);
    if (r && route)
        mcp__route_end_unanswered(r);
}
