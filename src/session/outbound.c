/*
 * Our requests: the table keyed by our integer id (which is also the
 * handle), the timer heap, cancels on the wire, and the responses and
 * progress that come back.
 *
 * Two clocks per request: an idle timeout that progress resets and a hard
 * total limit. The heap orders requests by the earlier of the two deadlines.
 * Every ending removes the request from the table and the heap before its
 * callback runs, so a late response or progress finds nothing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "session/internal.h"

/* Heap ------------------------------------------------------------------------ */

static uint64_t due(const outbound *o)
{
    return o->idle_deadline < o->max_deadline ? o->idle_deadline : o->max_deadline;
}

static void heap_set(timer_heap *t, size_t i, outbound *o)
{
    t->items[i] = o;
    o->heap_index = i;
}

static void heap_up(timer_heap *t, size_t i)
{
    outbound *o = t->items[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (due(t->items[parent]) <= due(o))
            break;
        heap_set(t, i, t->items[parent]);
        i = parent;
    }
    heap_set(t, i, o);
}

static void heap_down(timer_heap *t, size_t i)
{
    outbound *o = t->items[i];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        uint64_t best = due(o);
        if (l < t->count && due(t->items[l]) < best)
            m = l, best = due(t->items[l]);
        if (r < t->count && due(t->items[r]) < best)
            m = r;
        if (m == i)
            break;
        heap_set(t, i, t->items[m]);
        i = m;
    }
    heap_set(t, i, o);
}

static int heap_push(mcp_session *s, outbound *o)
{
    timer_heap *t = &s->timers;
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        outbound **items = mcp__realloc(&s->mem, t->items, cap * sizeof *items);
        if (!items)
            return MCP_ERR_NOMEM;
        t->items = items;
        t->cap = cap;
    }
    t->items[t->count] = o;
    heap_up(t, t->count++);
    return MCP_OK;
}

static void heap_remove(timer_heap *t, outbound *o)
{
    size_t i = o->heap_index;
    outbound *last = t->items[--t->count];
    if (i == t->count)
        return;
    heap_set(t, i, last);
    heap_up(t, i);
    heap_down(t, last->heap_index);
}

/* Entries ------------------------------------------------------------------------ */

static void entry_free(mcp_session *s, outbound *o)
{
    mcp__free(&s->mem, o->method);
    mcp__free(&s->mem, o);
}

/* Take the request out of the table and the heap: from here on nothing can
 * reach it but the caller, which ends it. */
static void detach(mcp_session *s, outbound *o)
{
    mcp__u64map_take(&s->out_ids, (uint64_t)o->id);
    heap_remove(&s->timers, o);
}

static void finish(mcp_session *s, outbound *o, int outcome, const mcp_message *msg)
{
    if (o->internal_init)
        mcp__client_init_done(s, (mcp_handle)o->id, outcome, msg);
    else
        o->cb(o->user_data, (mcp_handle)o->id, outcome, msg);
    entry_free(s, o);
}

/* Sending ------------------------------------------------------------------------- */

/* params with our progress token merged into its _meta (the caller's
 * progressToken, if any, is replaced). */
static int put_params(mcp_buf *b, const mcp_json *params, bool token, int64_t id)
{
    int rc = MCP_OK;
    if (!params && !token)
        return MCP_OK;
    rc = mcp__put(b, ",\"params\":{");
    const mcp_json *meta = NULL;
    bool first = true;
    for (size_t i = 0; !rc && i < mcp_json_object_size(params); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(params, i, &k, &kn);
        if (kn == 5 && memcmp(k, "_meta", 5) == 0) {
            meta = v;
            continue;
        }
        if (!first)
            rc = mcp__put(b, ",");
        first = false;
        if (!rc) rc = mcp_json_write_string(k, kn, b);
        if (!rc) rc = mcp__put(b, ":");
        if (!rc) rc = mcp_json_write(v, b);
    }
    if (!rc && (meta || token)) {
        if (!first)
            rc = mcp__put(b, ",");
        if (!rc && !token) {
            rc = mcp__put(b, "\"_meta\":");
            if (!rc) rc = mcp_json_write(meta, b);
        } else if (!rc) {
            rc = mcp__put(b, "\"_meta\":{");
            for (size_t i = 0; !rc && i < mcp_json_object_size(meta); i++) {
                const char *k;
                size_t kn;
                const mcp_json *v = mcp_json_object_at(meta, i, &k, &kn);
                if (kn == 13 && memcmp(k, "progressToken", 13) == 0)
                    continue;
                rc = mcp_json_write_string(k, kn, b);
                if (!rc) rc = mcp__put(b, ":");
                if (!rc) rc = mcp_json_write(v, b);
                if (!rc) rc = mcp__put(b, ",");
            }
            if (!rc) rc = mcp__put(b, "\"progressToken\":");
            if (!rc) rc = mcp_id_write(&(mcp_id){MCP_ID_INT, id, NULL, 0}, b);
            if (!rc) rc = mcp__put(b, "}");
        }
    }
    if (!rc) rc = mcp__put(b, "}");
    return rc;
}

int mcp__outbound_send(mcp_session *s, uint64_t now, const char *method,
                       const mcp_json *params, const mcp_request_options *opts,
                       bool cancellable, bool internal_init, mcp_response_fn cb,
                       mcp_progress_fn progress_cb, void *user_data, mcp_handle *out)
{
    if (s->closed)
        return MCP_ERR_STATE;
    if (!method || (!cb && !internal_init) ||
        (params && mcp_json_typeof(params) != MCP_JSON_OBJECT) ||
        mcp_utf8_validate(method, strlen(method), NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    mcp_request_options o = opts ? *opts : (mcp_request_options){0};
    outbound *e = mcp__calloc(&s->mem, 1, sizeof *e);
    if (!e)
        return MCP_ERR_NOMEM;
    e->method = mcp__strndup(&s->mem, method, strlen(method));
    if (!e->method) {
        mcp__free(&s->mem, e);
        return MCP_ERR_NOMEM;
    }
    e->id = s->next_id;
    e->cancellable = cancellable;
    e->internal_init = internal_init;
    e->progress = o.progress;
    e->start = now;
    e->idle_ms = o.timeout_ms ? o.timeout_ms : s->timeout_ms;
    e->max_ms = o.max_time_ms ? o.max_time_ms : s->max_time_ms;
    e->idle_deadline = mcp__deadline(now, e->idle_ms);
    e->max_deadline = mcp__deadline(now, e->max_ms);
    e->cb = cb;
    e->progress_cb = progress_cb;
    e->user_data = user_data;

    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    mcp_id id = {MCP_ID_INT, e->id, NULL, 0};
    int rc = mcp__put(b, "{\"jsonrpc\":\"2.0\",\"id\":");
    if (!rc) rc = mcp_id_write(&id, b);
    if (!rc) rc = mcp__put(b, ",\"method\":");
    if (!rc) rc = mcp_json_write_string(method, strlen(method), b);
    if (!rc) rc = put_params(b, params, o.progress != MCP_PROGRESS_NONE, e->id);
    if (!rc) rc = mcp__put(b, "}\n");
    if (!rc) rc = mcp__u64map_put(&s->out_ids, &s->mem, (uint64_t)e->id, e);
    if (!rc && (rc = heap_push(s, e)) != MCP_OK)
        mcp__u64map_take(&s->out_ids, (uint64_t)e->id);
    if (rc) {
        mcp__scratch_done(s, b, &local);
        entry_free(s, e);
        return rc;
    }
    s->next_id++;
    /* Registered before it is sent: a response can only find it. */
    mcp__emit(s, 0, b);
    mcp__scratch_done(s, b, &local);
    if (out)
        *out = (mcp_handle)e->id;
    return MCP_OK;
}

int mcp_session_request(mcp_session *s, uint64_t now, const char *method,
                        const mcp_json *params, const mcp_request_options *opts,
                        mcp_response_fn cb, mcp_progress_fn progress_cb,
                        void *user_data, mcp_handle *out)
{
    if (method && !mcp__may_request(s, method))
        return MCP_ERR_STATE;
    if (method && strcmp(method, "initialize") == 0)
        return MCP_ERR_INVALID_ARG; /* use mcp_session_initialize */
    mcp__session_enter(s);
    int rc = mcp__outbound_send(s, now, method, params, opts, true, false, cb,
                                progress_cb, user_data, out);
    mcp__session_leave(s);
    return rc;
}

int mcp_session_notify(mcp_session *s, const char *method, const mcp_json *params)
{
    if (s->closed)
        return MCP_ERR_STATE;
    mcp__session_enter(s);
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int rc = mcp_encode_notification(b, method, params);
    if (rc == MCP_OK)
        mcp__emit(s, 0, b);
    mcp__scratch_done(s, b, &local);
    mcp__session_leave(s);
    return rc;
}

/* Put notifications/cancelled for o on the wire (or, for a request that
 * must never be cancelled, only log that it is abandoned locally). */
static void send_cancel(mcp_session *s, uint64_t now, outbound *o, const char *reason)
{
    mcp_id id = {MCP_ID_INT, o->id, NULL, 0};
    if (!o->cancellable) {
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_SENT, &id, o->method, "outbound",
                 reason, mcp__age(now, o->start),
                 "request abandoned locally (never cancelled on the wire):");
        return;
    }
    mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_SENT, &id, o->method, "outbound",
             reason, mcp__age(now, o->start), "cancel sent:");
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int rc = mcp__put(b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                         "\"params\":{\"requestId\":");
    if (!rc) rc = mcp_id_write(&id, b);
    if (!rc && reason) {
        rc = mcp__put(b, ",\"reason\":");
        if (!rc) rc = mcp_json_write_string(reason, strlen(reason), b);
    }
    if (!rc) rc = mcp__put(b, "}}\n");
    if (!rc)
        mcp__emit(s, 0, b);
    mcp__scratch_done(s, b, &local);
}

int mcp_session_cancel(mcp_session *s, uint64_t now, mcp_handle h, const char *reason)
{
    if (h > (mcp_handle)INT64_MAX)
        return MCP_ERR_NOT_FOUND;
    outbound *o = mcp__u64map_get(&s->out_ids, h);
    if (!o)
        return MCP_ERR_NOT_FOUND;
    if (reason && mcp_utf8_validate(reason, strlen(reason), NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    mcp__session_enter(s);
    detach(s, o);
    send_cancel(s, now, o, reason);
    finish(s, o, MCP_ERR_ABORTED, NULL);
    mcp__session_leave(s);
    return MCP_OK;
}

/* Time -------------------------------------------------------------------------- */

void mcp_session_tick(mcp_session *s, uint64_t now)
{
    mcp__session_enter(s);
    while (s->timers.count && due(s->timers.items[0]) <= now && !s->doomed) {
        outbound *o = s->timers.items[0];
        detach(s, o);
        char reason[96];
        int outcome;
        if (o->max_deadline <= now) {
            outcome = MCP_ERR_MAX_TIME;
            snprintf(reason, sizeof reason, "maximum total time %llu ms exceeded",
                     (unsigned long long)o->max_ms);
        } else {
            outcome = MCP_ERR_TIMED_OUT;
            snprintf(reason, sizeof reason, "timed out after %llu ms",
                     (unsigned long long)o->idle_ms);
        }
        send_cancel(s, now, o, reason);
        finish(s, o, outcome, NULL);
    }
    mcp__session_leave(s);
}

/* Received -------------------------------------------------------------------------- */

void mcp__outbound_response(mcp_session *s, uint64_t now, const mcp_message *msg)
{
    outbound *o = msg->id.kind == MCP_ID_INT ? mcp__u64map_get(&s->out_ids, (uint64_t)msg->id.num)
                                             : NULL;
    if (!o) {
        if (msg->id.kind == MCP_ID_NONE && msg->kind == MCP_MESSAGE_ERROR)
            mcp__log(s, MCP_LOG_WARN, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, NULL, NULL, -1,
                     "peer reported an error without a request id: %lld %.*s",
                     (long long)msg->error_code, (int)msg->error_message_len,
                     msg->error_message);
        else
            mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, &msg->id, NULL, "outbound",
                     NULL, -1, "response dropped: no such request in flight (late or unknown):");
        return;
    }
    detach(s, o);
    finish(s, o, msg->kind == MCP_MESSAGE_RESULT ? MCP_OK : MCP_ERR_REMOTE, msg);
}

void mcp__outbound_progress(mcp_session *s, uint64_t now, const mcp_message *msg)
{
    const mcp_json *p = msg->params;
    mcp_id token;
    outbound *o = NULL;
    if (mcp_id_from_json(mcp_json_object_get(p, "progressToken"), &token) == MCP_OK &&
        token.kind == MCP_ID_INT)
        o = mcp__u64map_get(&s->out_ids, (uint64_t)token.num);
    double progress, total = NAN;
    const mcp_json *tv = mcp_json_object_get(p, "total");
    const mcp_json *mv = mcp_json_object_get(p, "message");
    if (!o || o->progress == MCP_PROGRESS_NONE) {
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, NULL, NULL, "outbound", NULL, -1,
                 "progress dropped: unknown token (late or not ours)");
        return;
    }
    if (mcp_json_get_double(mcp_json_object_get(p, "progress"), &progress) != MCP_OK ||
        (tv && mcp_json_get_double(tv, &total) != MCP_OK) ||
        (mv && mcp_json_typeof(mv) != MCP_JSON_STRING)) {
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, "outbound", NULL, -1,
                 "progress dropped: malformed notification");
        return;
    }
    if (o->got_progress && !(progress > o->last_progress)) {
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, NULL, o->method, "outbound", NULL,
                 -1, "progress dropped: value did not increase");
        return;
    }
    o->got_progress = true;
    o->last_progress = progress;
    if (o->progress == MCP_PROGRESS_RESET_TIMEOUT) {
        o->idle_deadline = mcp__deadline(now, o->idle_ms);
        heap_down(&s->timers, o->heap_index);
        heap_up(&s->timers, o->heap_index);
    }
    if (o->progress_cb)
        o->progress_cb(o->user_data, (mcp_handle)o->id, progress, total,
                       mcp_json_string(mv, NULL));
}

/* Teardown ------------------------------------------------------------------------- */

void mcp__outbound_close_all(mcp_session *s, uint64_t now)
{
    while (s->timers.count && !s->doomed) {
        outbound *o = s->timers.items[0];
        detach(s, o);
        mcp_id id = {MCP_ID_INT, o->id, NULL, 0};
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CLOSED, &id, o->method, "outbound",
                 "connection closed", mcp__age(now, o->start), "request ended:");
        finish(s, o, MCP_ERR_CLOSED, NULL);
    }
}

void mcp__outbound_free_all(mcp_session *s)
{
    for (size_t i = 0; i < s->timers.count; i++)
        entry_free(s, s->timers.items[i]);
    mcp__free(&s->mem, s->timers.items);
    s->timers.items = NULL;
    s->timers.count = s->timers.cap = 0;
    mcp__u64map_free(&s->out_ids, &s->mem);
}
