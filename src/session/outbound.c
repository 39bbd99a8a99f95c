/* SPDX-License-Identifier: MIT */
/*
 * Our requests: the table keyed by our integer id (which is also the
 * handle), the timer heap, cancels on the wire, and the responses and
 * progress that come back.
 *
 * Two clocks per request: an idle timeout that progress resets and a hard
 * total limit. The heap orders requests by the earlier of the two deadlines.
 * Every ending removes the request from the table and the heap before its
 * callback runs, so a late response or progress finds nothing.
 *
 * Sending is the one place where a request can end before its caller has
 * its handle: the write may fail and close the session. Such a request is
 * marked while it is being sent; an ending during the send leaves it for
 * the sender, which reports MCP_ERR_CLOSED and never calls its callback.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "core/opts.h"
#include "session/internal.h"

/* Heap ------------------------------------------------------------------------ */

/* When the request times out. */
static uint64_t expires(const outbound *o)
{
    return o->idle_deadline < o->max_deadline ? o->idle_deadline : o->max_deadline;
}

/* When something must happen to it: it times out, or a task's next poll. */
static uint64_t due(const outbound *o)
{
    uint64_t e = expires(o);
    return o->step_deadline < e ? o->step_deadline : e;
}

uint64_t mcp__outbound_due(const outbound *o)
{
    return due(o);
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

static int heap_reserve(mcp_session *s)
{
    timer_heap *t = &s->timers;
    if (t->count < t->cap)
        return MCP_OK;
    size_t cap = t->cap ? t->cap * 2 : 64;
    outbound **items = mcp__realloc(&s->mem, t->items, cap * sizeof *items);
    if (!items)
        return MCP_ERR_NOMEM;
    t->items = items;
    t->cap = cap;
    return MCP_OK;
}

static void heap_push(timer_heap *t, outbound *o)
{
    t->items[t->count] = o;
    heap_up(t, t->count++);
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
    if (o->kind == OUT_GHOST)
        s->nghosts--;
    mcp__rounds_free(s, o->rounds);
    mcp__task_free(s, o->task);
    mcp__listen_want_free(s, o->want);
    mcp__free(&s->mem, o->queued);
    mcp__free(&s->mem, o->method);
    mcp__free(&s->mem, o);
}

/* Take the request out of the table and the heap: from here on nothing can
 * reach it but the caller, which ends it. */
static void unqueue(mcp_session *s, outbound *o)
{
    for (outbound **p = &s->queued_head, *prev = NULL; *p; prev = *p, p = &(*p)->next_queued)
        if (*p == o) {
            *p = o->next_queued;
            if (s->queued_tail == o)
                s->queued_tail = prev;
            o->next_queued = NULL;
            return;
        }
}

static void detach(mcp_session *s, outbound *o)
{
    if (o->queued)
        unqueue(s, o);
    mcp__map_take(&s->out_ids, (uint64_t)o->id);
    if (o->wire && o->wire != o->id)
        mcp__map_take(&s->out_ids, (uint64_t)o->wire);
    heap_remove(&s->timers, o);
}

outbound *mcp__outbound_get(const mcp_session *s, int64_t id)
{
    outbound *o = id > 0 ? mcp__map_get(&s->out_ids, (uint64_t)id) : NULL;
    return o && o->id == id && o->kind != OUT_GHOST ? o : NULL;
}

outbound *mcp__outbound_on_wire(const mcp_session *s, int64_t id)
{
    outbound *o = id > 0 ? mcp__map_get(&s->out_ids, (uint64_t)id) : NULL;
    return o && o->wire == id ? o : NULL;
}

void mcp__outbound_rearm(mcp_session *s, outbound *o)
{
    heap_down(&s->timers, o->heap_index);
    heap_up(&s->timers, o->heap_index);
}

static void deliver(mcp_session *s, outbound *o, int outcome, const mcp_message *msg)
{
    /* A peer's answer has no local reason, even when it is fed in from
     * inside another request's local ending. */
    const char *before = s->end_reason;
    if (msg)
        s->end_reason = NULL;
    switch (o->kind) {
    case OUT_GHOST: break; /* its caller was told when it was cancelled */
    case OUT_CONNECT: mcp__connect_answered(s, o, outcome, msg); break;
    case OUT_LISTEN: {
        mcp_listen_event ev = {MCP_LISTEN_ENDED, outcome, msg, 0, 0};
        o->listen_cb(o->user_data, (mcp_handle)o->id, &ev);
        break;
    }
    default: o->cb(o->user_data, (mcp_handle)o->id, outcome, msg); break;
    }
    s->end_reason = before;
}

static void end(mcp_session *s, outbound *o, int outcome, const mcp_message *msg)
{
    if (o->held) {
        /* Its holder frees it once it is back (mcp__outbound_release). */
        o->ended = true;
        if (!s->doomed)
            deliver(s, o, outcome, msg);
        return;
    }
    if (s->doomed && !o->sending) {
        entry_free(s, o); /* freed inside a callback: no more callbacks */
        return;
    }
    if (o->sending) {
        /* The sender still holds it: it frees it, and for a close (the send
         * failed) reports MCP_ERR_CLOSED instead of calling back. */
        o->ended = true;
        if (outcome == MCP_ERR_CLOSED)
            o->silent = true;
        else
            deliver(s, o, outcome, msg);
        return;
    }
    deliver(s, o, outcome, msg);
    entry_free(s, o);
}

void mcp__outbound_take(mcp_session *s, outbound *o)
{
    detach(s, o);
}

void mcp__outbound_end(mcp_session *s, outbound *o, int outcome, const mcp_message *msg)
{
    end(s, o, outcome, msg);
}

void mcp__outbound_release(mcp_session *s, outbound *o)
{
    o->held = false;
    if (o->ended)
        entry_free(s, o);
}

/* An ending that is not the peer's answer, with why (mcp_session_end_reason). */
static void end_locally(mcp_session *s, outbound *o, int outcome, const char *reason)
{
    const char *before = s->end_reason;
    s->end_reason = reason;
    end(s, o, outcome, NULL);
    s->end_reason = before;
}

/* Sending ------------------------------------------------------------------------- */

/* Where a request's params object stands in its message, if it has one. */
typedef struct params_span {
    size_t at, len;
} params_span;

/* The params object with what we add to its _meta: the progress token, and
 * on a 2026-07-28 connection the request envelope (a caller's own entries
 * under those keys are replaced). */
static void write_params(mcp_session *s, mcp__jw *w, const outbound_spec *sp,
                         const mcp_request_options *o, int64_t id, params_span *span)
{
    bool token = o->progress != MCP_PROGRESS_NONE;
    bool logs = sp->envelope && o->want_logs;
    if (!sp->params && !sp->params_raw && !token && !sp->envelope && !sp->round && !o->task)
        return;
    mcp__jw_key(w, "params");
    span->at = w->out->len;
    mcp__jw_object(w);
    const mcp_json *meta = NULL;
    for (size_t i = 0; i < mcp_json_object_size(sp->params); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(sp->params, i, &k, &kn);
        if (kn == 5 && memcmp(k, "_meta", 5) == 0) {
            meta = v;
            continue;
        }
        /* A later round: what the server asked for replaces anything the
         * caller put under these names. */
        if (sp->round && ((kn == 14 && memcmp(k, "inputResponses", 14) == 0) ||
                          (kn == 12 && memcmp(k, "requestState", 12) == 0)))
            continue;
        if (o->task && kn == 4 && memcmp(k, "task", 4) == 0)
            continue; /* ours replaces it */
        mcp__jw_keyn(w, k, kn);
        mcp__jw_value(w, v);
    }
    if (sp->params_raw)
        mcp__jw_raw_members(w, sp->params_raw, sp->params_raw_len);
    if (sp->round)
        mcp__rounds_write_members(w, sp->round);
    /* 2025-11-25 asks for a task in params.task; 2026-07-28 has no such
     * member (the server decides): the envelope declares the extension. */
    if (o->task && !sp->envelope)
        mcp__task_write_param(w, o);
    if (meta || token || sp->envelope) {
        mcp__jw_key(w, "_meta");
        mcp__jw_object(w);
        for (size_t i = 0; i < mcp_json_object_size(meta); i++) {
            const char *k;
            size_t kn;
            const mcp_json *v = mcp_json_object_at(meta, i, &k, &kn);
            if ((token && kn == 13 && memcmp(k, "progressToken", 13) == 0) ||
                (sp->envelope && kn > 24 &&
                 memcmp(k, "io.modelcontextprotocol/", 24) == 0))
                continue;
            mcp__jw_keyn(w, k, kn);
            mcp__jw_value(w, v);
        }
        if (token) {
            mcp__jw_key(w, "progressToken");
            mcp__jw_int(w, id);
        }
        if (sp->envelope)
            mcp__write_envelope(s, w, sp->declare_tasks || o->task);
        if (logs) {
            mcp__jw_key(w, META_LOG_LEVEL);
            mcp__jw_string(w, mcp_log_level_name(o->log_level ? o->log_level : MCP_LOG_DEBUG));
        }
        mcp__jw_object_end(w);
    }
    mcp__jw_object_end(w);
    span->len = w->out->len - span->at;
}

/* The request message of a round (id) of method into b; span (may be NULL)
 * gets where its params are in b. */
static int write_request(mcp_session *s, mcp_buf *b, const char *method, int64_t id,
                         const outbound_spec *sp, const mcp_request_options *o,
                         params_span *span)
{
    params_span unused;
    span = span ? span : &unused;
    *span = (params_span){0, 0};
    mcp__jw w;
    mcp__jw_begin(&w, b);
    mcp__jw_envelope(&w);
    mcp__jw_key(&w, "id");
    mcp__jw_int(&w, id);
    mcp__jw_key(&w, "method");
    mcp__jw_string(&w, method);
    write_params(s, &w, sp, o, id, span);
    int rc = mcp__jw_envelope_end(&w);
    return rc == MCP_ERR_UTF8 ? MCP_ERR_INVALID_ARG : rc;
}

int mcp__outbound_send(mcp_session *s, uint64_t now, const outbound_spec *sp,
                       mcp_handle *out)
{
    if (s->closed)
        return MCP_ERR_STATE;
    mcp_request_options o;
    if (mcp__opts_copy(&o, sizeof o, sp->opts) != MCP_OK || !sp->method ||
        (!sp->cb && sp->kind == OUT_CALL) || (sp->kind == OUT_LISTEN && !sp->listen_cb) ||
        (sp->params && mcp_json_typeof(sp->params) != MCP_JSON_OBJECT) ||
        mcp_utf8_validate(sp->method, strlen(sp->method), NULL) != MCP_OK ||
        (o.want_logs && o.log_level && !mcp_log_level_name(o.log_level)))
        return MCP_ERR_INVALID_ARG;
    s->now = now;
    outbound *e = mcp__calloc(&s->mem, 1, sizeof *e);
    if (!e)
        return MCP_ERR_NOMEM;
    e->method = mcp__strndup(&s->mem, sp->method, strlen(sp->method));
    if (!e->method) {
        mcp__free(&s->mem, e);
        return MCP_ERR_NOMEM;
    }
    if (o.related) {
        const inbound *in = mcp__inbound_lookup(s, o.related);
        if (!in) {
            mcp__free(&s->mem, e->method);
            mcp__free(&s->mem, e);
            return MCP_ERR_NOT_FOUND;
        }
        e->route = in->route;
        e->related = o.related;
    }
    e->id = e->wire = s->next_id;
    e->kind = (uint8_t)sp->kind;
    e->cancellable = sp->cancellable;
    e->progress = o.progress;
    e->start = now;
    e->idle_ms = o.timeout_ms ? o.timeout_ms : s->timeout_ms;
    e->max_ms = o.max_time_ms ? o.max_time_ms : s->max_time_ms;
    e->idle_deadline = mcp__deadline(now, e->idle_ms);
    e->max_deadline = mcp__deadline(now, e->max_ms);
    e->step_deadline = UINT64_MAX;
    e->cb = sp->cb;
    e->progress_cb = sp->progress_cb;
    e->listen_cb = sp->listen_cb;
    e->user_data = sp->user_data;
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    params_span span;
    int rc = write_request(s, b, sp->method, e->id, sp, &o, &span);
    if (rc == MCP_OK && o.on_input_required)
        rc = mcp__rounds_capture(s, e, sp, &o, b->data + span.at, span.len);
    if (rc == MCP_OK && o.task)
        rc = mcp__task_capture(s, e, &o);
    /* Room in both tables first: once the request is on the wire,
     * registering it cannot fail. */
    if (rc == MCP_OK)
        rc = mcp__map_reserve(&s->out_ids, &s->mem, 1);
    if (rc == MCP_OK)
        rc = heap_reserve(s);
    if (rc != MCP_OK) {
        mcp__scratch_done(s, b, &local);
        entry_free(s, e);
        return rc;
    }
    if (s->lifecycle != LC_READY && sp->kind == OUT_CALL && s->role == MCP_ROLE_CLIENT &&
        strcmp(sp->method, "ping") != 0) {
        /* Made while connecting (queue_requests): it waits, its clocks
         * running; nothing of it is on the wire yet. */
        e->queued = mcp__malloc(&s->mem, b->len ? b->len : 1);
        if (!e->queued) {
            mcp__scratch_done(s, b, &local);
            entry_free(s, e);
            return MCP_ERR_NOMEM;
        }
        memcpy(e->queued, b->data, b->len);
        e->queued_len = b->len;
        mcp__scratch_done(s, b, &local);
        e->wire = 0;
        s->next_id++;
        mcp__map_put(&s->out_ids, &s->mem, (uint64_t)e->id, e);
        heap_push(&s->timers, e);
        if (s->queued_tail)
            s->queued_tail->next_queued = e;
        else
            s->queued_head = e;
        s->queued_tail = e;
        if (out)
            *out = (mcp_handle)e->id;
        return MCP_OK;
    }
    s->next_id++;
    mcp__map_put(&s->out_ids, &s->mem, (uint64_t)e->id, e);
    heap_push(&s->timers, e);
    /* Registered before it is sent: a response can only find it. */
    e->sending = true;
    mcp__emit(s, e->route, b);
    mcp__scratch_done(s, b, &local);
    e->sending = false;
    if (e->ended) {
        /* It ended during the send: by a close (silent, the callback was
         * not called) or by an answer that came back at once. */
        rc = e->silent ? MCP_ERR_CLOSED : MCP_OK;
        mcp_handle h = (mcp_handle)e->id;
        entry_free(s, e);
        if (rc == MCP_OK && out)
            *out = h;
        return rc;
    }
    if (out)
        *out = (mcp_handle)e->id;
    return MCP_OK;
}

int mcp__outbound_resend(mcp_session *s, uint64_t now, outbound *o, const outbound_spec *sp)
{
    mcp_request_options ro;
    if (mcp__opts_copy(&ro, sizeof ro, sp->opts) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int64_t id = s->next_id;
    int rc = write_request(s, b, sp->method, id, sp, &ro, NULL);
    if (rc == MCP_OK)
        rc = mcp__map_reserve(&s->out_ids, &s->mem, 1);
    if (rc != MCP_OK) {
        mcp__scratch_done(s, b, &local);
        return rc;
    }
    s->next_id++;
    o->wire = id;
    mcp__map_put(&s->out_ids, &s->mem, (uint64_t)id, o);
    /* A round of its own: fresh progress, a fresh idle timeout; the total
     * limit runs on from the first round. */
    o->got_progress = false;
    o->idle_deadline = mcp__deadline(now, o->idle_ms);
    mcp__outbound_rearm(s, o);
    mcp__emit(s, o->route, b);
    mcp__scratch_done(s, b, &local);
    return MCP_OK;
}

int mcp_session_request(mcp_session *s, uint64_t now, const char *method,
                        const mcp_json *params, const mcp_request_options *opts,
                        mcp_response_fn cb, mcp_progress_fn progress_cb,
                        void *user_data, mcp_handle *out)
{
    if (!method || strcmp(method, "initialize") == 0 ||
        strcmp(method, "server/discover") == 0 ||
        strcmp(method, "subscriptions/listen") == 0)
        return MCP_ERR_INVALID_ARG; /* each has a function of its own */
    if (s->closed)
        return MCP_ERR_STATE;
    if (!mcp__may_request(s, method))
        return s->era && s->era->modern && strcmp(method, "ping") == 0 ? MCP_ERR_INVALID_ARG
                                                                       : MCP_ERR_STATE;
    /* Read in place (the copy is mcp__outbound_send's): the field, when the
     * caller's struct has it. */
    bool task = opts && opts->size >= offsetof(mcp_request_options, task) + sizeof opts->task &&
                opts->task;
    const mcp__era *era = s->era ? s->era : s->connect.want;
    if (task) {
        /* A task is asked of tools/call, of a server whose revision has
         * them (before the connect ends: the one asked for). */
        if (s->role != MCP_ROLE_CLIENT || strcmp(method, "tools/call") != 0)
            return MCP_ERR_INVALID_ARG;
        if (!era || !(era->tasks || era->task_extension))
            return MCP_ERR_STATE;
    }
    bool envelope = s->role == MCP_ROLE_CLIENT && s->era && s->era->modern;
    mcp__session_enter(s);
    outbound_spec sp = {.method = method,
                        .params = params,
                        .opts = opts,
                        .kind = OUT_CALL,
                        .cancellable = true,
                        .envelope = envelope,
                        /* The extension's own methods are refused (-32021)
                         * to a request that does not declare it. */
                        .declare_tasks = envelope && era->task_extension &&
                                         !strncmp(method, "tasks/", 6),
                        .cb = cb,
                        .progress_cb = progress_cb,
                        .user_data = user_data};
    int rc = mcp__outbound_send(s, now, &sp, out);
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
    if (rc == MCP_OK && !mcp__emit(s, 0, b))
        rc = MCP_ERR_CLOSED;
    mcp__scratch_done(s, b, &local);
    mcp__session_leave(s);
    return rc;
}

/* Put notifications/cancelled for o on the wire (or, for a request that
 * must never be cancelled, only log that it is abandoned locally). o is
 * already out of the tables, or held. */
static void send_cancel(mcp_session *s, uint64_t now, outbound *o, const char *reason)
{
    mcp_id id = mcp_id_from_int(o->wire ? o->wire : o->id);
    if (!o->cancellable) {
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_SENT, &id, o->method, "outbound",
                 reason, mcp__age(now, o->start),
                 "request abandoned locally (never cancelled on the wire):");
        return;
    }
    if (!o->wire) {
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_SENT, &id, o->method, "outbound",
                 reason, mcp__age(now, o->start),
                 o->queued ? "request ended before it was sent (it waited for the connect):"
                           : "call ended while its questions were answered (nothing on the "
                             "wire):");
        return;
    }
    mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_SENT, &id, o->method, "outbound",
             reason, mcp__age(now, o->start), "cancel sent:");
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    mcp__jw w;
    mcp__jw_notification_start(&w, b, "notifications/cancelled");
    mcp__jw_key(&w, "requestId");
    mcp__jw_id(&w, &id);
    if (reason) {
        mcp__jw_key(&w, "reason");
        mcp__jw_string(&w, reason);
    }
    mcp__jw_object_end(&w);
    /* The request it was made for may have ended first (its cancel is
     * why this one goes): its route is closing then (an HTTP stream ends
     * with its request), so the cancel takes the general one. */
    uint64_t route = o->related && mcp__inbound_lookup(s, o->related) ? o->route : 0;
    if (mcp__jw_envelope_end(&w) == MCP_OK)
        mcp__emit(s, route, b);
    mcp__scratch_done(s, b, &local);
}

void mcp__outbound_send_cancel(mcp_session *s, uint64_t now, outbound *o, const char *reason)
{
    send_cancel(s, now, o, reason);
}

int mcp_session_cancel(mcp_session *s, uint64_t now, mcp_handle h, const char *reason)
{
    if (h > (mcp_handle)INT64_MAX)
        return MCP_ERR_NOT_FOUND;
    outbound *o = mcp__outbound_get(s, (int64_t)h);
    if (!o)
        return MCP_ERR_NOT_FOUND;
    if (reason && mcp_utf8_validate(reason, strlen(reason), NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    mcp__session_enter(s);
    s->now = now;
    if (o->task) {
        mcp__task_cancel(s, now, o, MCP_ERR_ABORTED, reason);
    } else {
        detach(s, o);
        send_cancel(s, now, o, reason);
        end_locally(s, o, MCP_ERR_ABORTED, reason);
    }
    mcp__session_leave(s);
    return MCP_OK;
}

/* Time -------------------------------------------------------------------------- */

void mcp_session_tick(mcp_session *s, uint64_t now)
{
    mcp__session_enter(s);
    s->now = now;
    while (s->timers.count && due(s->timers.items[0]) <= now && !s->doomed) {
        outbound *o = s->timers.items[0];
        if (expires(o) > now) { /* a task's next poll */
            mcp__task_step(s, now, o);
            continue;
        }
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
        if (o->task) {
            mcp__task_cancel(s, now, o, outcome, reason);
            continue;
        }
        detach(s, o);
        if (!s->closed)
            send_cancel(s, now, o, reason);
        end_locally(s, o, outcome, reason);
    }
    mcp__session_leave(s);
}

/* Received -------------------------------------------------------------------------- */

/* A 2026-07-28 result must say what it is: absent means "complete" (an older
 * server); "complete" is what we handle; "input_required" is handed to the
 * caller for the three methods that may carry it (basic/patterns/mrtr.mdx:
 * the client answers and sends the request again); anything else we
 * cannot use: "task" too, which only a tools/call that declared the tasks
 * extension takes (task_call.c reads it before this; ext-tasks: a
 * CreateTaskResult to any other request is an invalid response). */
int mcp__result_outcome(mcp_session *s, const outbound *o, const mcp_message *msg)
{
    if (mcp_json_typeof(msg->result) != MCP_JSON_OBJECT) {
        /* Every MCP result is an object; 5 or null is no answer to act on. */
        mcp_id id = mcp_id_from_int(o->id);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &id, o->method, "outbound", NULL,
                 -1, "unusable result: not an object");
        return MCP_ERR_PROTOCOL;
    }
    if (!s->era || !s->era->modern || o->kind == OUT_CONNECT)
        return MCP_OK;
    size_t n;
    const mcp_json *t = mcp_json_object_get(msg->result, "resultType");
    const char *type = mcp_json_string(t, &n);
    if (!t || (type && n == 8 && memcmp(type, "complete", 8) == 0))
        return MCP_OK;
    if (type && n == 14 && !memcmp(type, "input_required", 14) &&
        (!strcmp(o->method, "tools/call") || !strcmp(o->method, "resources/read") ||
         !strcmp(o->method, "prompts/get")))
        return MCP_OK;
    mcp_id id = mcp_id_from_int(o->id);
    mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &id, o->method, "outbound", NULL, -1,
             "unusable result: resultType %.*s%s", type ? (int)(n > 40 ? 40 : n) : 9,
             type ? type : "not text",
             type && n == 14 && !memcmp(type, "input_required", 14)
                 ? " (mrtr.mdx allows it only for tools/call, resources/read and prompts/get)"
             : type && n == 4 && !memcmp(type, "task", 4)
                 ? " (only a tools/call that declared the tasks extension takes it)"
                 : "");
    return MCP_ERR_PROTOCOL;
}

void mcp__outbound_response(mcp_session *s, uint64_t now, const mcp_message *msg)
{
    outbound *o = msg->id.kind == MCP_ID_INT ? mcp__outbound_on_wire(s, msg->id.num) : NULL;
    if (!o) {
        if (msg->id.kind == MCP_ID_NONE && msg->kind == MCP_MESSAGE_ERROR)
            mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, NULL, NULL, -1,
                     "peer reported an error without a request id: %lld %.*s",
                     (long long)msg->error_code, (int)msg->error_message_len,
                     msg->error_message);
        else
            mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, &msg->id, NULL, "outbound",
                     NULL, -1, "response dropped: no such request in flight (late or unknown):");
        return;
    }
    /* A task call's rounds are its tools/call's (mrtr.mdx, before any
     * task); a cancelled one (a ghost) has none. */
    if (o->rounds && msg->kind == MCP_MESSAGE_RESULT && (!o->task || !mcp__task_known(o)) &&
        mcp__is_input_required(msg->result)) {
        mcp__rounds_input_required(s, now, o, msg); /* another round */
        return;
    }
    if (o->task) {
        mcp__task_response(s, now, o, msg);
        return;
    }
    if (o->rounds && msg->kind == MCP_MESSAGE_ERROR && mcp__rounds_task_upgrade(s, now, o, msg))
        return;
    /* Out of the tables before anything is logged: the log is application
     * code. */
    detach(s, o);
    int outcome = MCP_ERR_REMOTE;
    if (msg->kind == MCP_MESSAGE_RESULT) {
        outcome = mcp__result_outcome(s, o, msg);
        if (outcome != MCP_OK)
            msg = NULL;
    }
    if (o->kind == OUT_LISTEN) {
        mcp_id id = mcp_id_from_int(o->id);
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_LISTEN, &id, o->method, "outbound", NULL,
                 mcp__age(now, o->start), "subscription ended by the server:");
    }
    end(s, o, outcome, msg);
}

bool mcp__outbound_reject(mcp_session *s, const mcp_id *id, const char *why)
{
    outbound *o = id->kind == MCP_ID_INT ? mcp__outbound_on_wire(s, id->num) : NULL;
    if (!o)
        return false;
    mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, id, o->method, "outbound", NULL,
             mcp__age(s->now, o->start), "unusable answer: %s", why);
    detach(s, o);
    end(s, o, MCP_ERR_PROTOCOL, NULL);
    return true;
}

void mcp__outbound_progress(mcp_session *s, uint64_t now, const mcp_message *msg)
{
    const mcp_json *p = msg->params;
    mcp_id token;
    outbound *o = NULL;
    if (mcp_id_from_json(mcp_json_object_get(p, "progressToken"), &token) == MCP_OK &&
        token.kind == MCP_ID_INT) {
        o = mcp__outbound_on_wire(s, token.num);
        /* A task's token is its first request's id, whatever is on the
         * wire now (progress.mdx: the same token for the task's life). */
        if (!o && (o = mcp__outbound_get(s, token.num)) != NULL && !o->task)
            o = NULL;
    }
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
        mcp__outbound_rearm(s, o);
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
        mcp_id id = mcp_id_from_int(o->id);
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CLOSED, &id, o->method, "outbound",
                 "connection closed", mcp__age(now, o->start), "request ended:");
        end_locally(s, o, MCP_ERR_CLOSED, "connection closed");
    }
}

void mcp__outbound_flush_queued(mcp_session *s, uint64_t now, bool connected)
{
    while (s->queued_head && !s->doomed) {
        outbound *o = s->queued_head;
        if (!connected || s->closed) {
            detach(s, o);
            mcp_id id = mcp_id_from_int(o->id);
            mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CLOSED, &id, o->method, "outbound",
                     "the connect failed", mcp__age(now, o->start), "request ended:");
            end_locally(s, o, MCP_ERR_CLOSED, "the connect failed");
            continue;
        }
        unqueue(s, o);
        o->wire = o->id;
        /* Held across the send: a failure closes the session and ends it,
         * with its callback, under us. */
        o->held = true;
        mcp_buf b = {.data = o->queued,
                     .len = o->queued_len,
                     .alloc = o->queued_len,
                     .limit = o->queued_len,
                     .mem = s->mem};
        o->queued = NULL;
        mcp__emit(s, o->route, &b);
        mcp__free(&s->mem, b.data);
        mcp__outbound_release(s, o);
    }
}

void mcp__outbound_free_all(mcp_session *s)
{
    for (size_t i = 0; i < s->timers.count; i++)
        entry_free(s, s->timers.items[i]);
    mcp__free(&s->mem, s->timers.items);
    s->timers.items = NULL;
    s->timers.count = s->timers.cap = 0;
    mcp__map_free(&s->out_ids, &s->mem);
}

const char *mcp_session_end_reason(const mcp_session *s)
{
    return s->end_reason;
}
