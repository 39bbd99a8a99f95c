/* SPDX-License-Identifier: MIT */
/*
 * The peer's requests. Each lives in a slab slot from registration (before
 * any handler runs) to its single settle: a reply, or a cancel. Settling
 * bumps the slot's generation, so every later reply, error or progress for
 * the old handle finds nothing and sends nothing: "nothing after a cancel"
 * is a property of the data structure, not of the callers' care.
 *
 * Every settle takes the request out of the tables before it writes
 * anything: a write may fail and close the whole session under the writer
 * (design.md, "Re-entrancy"), and the close must then find nothing of this
 * request left to settle a second time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "json/scan.h"
#include "json/value.h"
#include "session/entry.h"
#include "session/internal.h"

/* Slab ------------------------------------------------------------------- */

static inbound *slot_at(const mcp_session *s, uint32_t index)
{
    return &s->chunks[index / INBOUND_CHUNK][index % INBOUND_CHUNK];
}


/* A handle is the slot's generation (40 bits: a slot reused a million times
 * a second wraps in twelve days) over its index + 1 (24 bits). */
#define INDEX_BITS 24
#define GEN_MASK (((uint64_t)1 << 40) - 1)

mcp_handle mcp__inbound_handle(const mcp_session *s, const inbound *in)
{
    (void)s;
    return ((in->gen & GEN_MASK) << INDEX_BITS) | (uint64_t)(in->index + 1);
}

inbound *mcp__inbound_lookup(const mcp_session *s, mcp_handle h)
{
    uint32_t index = (uint32_t)(h & (((uint64_t)1 << INDEX_BITS) - 1));
    uint64_t gen = h >> INDEX_BITS;
    if (index == 0 || index - 1 >= s->nchunks * INBOUND_CHUNK)
        return NULL;
    inbound *in = slot_at(s, index - 1);
    if (in->state == IN_FREE || (in->gen & GEN_MASK) != gen)
        return NULL;
    return in;
}

static int alloc_slot(mcp_session *s, uint32_t *index_out)
{
    if (!s->free_head) {
        inbound **chunks = mcp__realloc(&s->mem, s->chunks,
                                        (s->nchunks + 1) * sizeof *chunks);
        if (!chunks)
            return MCP_ERR_NOMEM;
        s->chunks = chunks;
        inbound *chunk = mcp__calloc(&s->mem, INBOUND_CHUNK, sizeof *chunk);
        if (!chunk)
            return MCP_ERR_NOMEM;
        chunks[s->nchunks] = chunk;
        uint32_t base = s->nchunks * INBOUND_CHUNK;
        for (uint32_t i = INBOUND_CHUNK; i-- > 0;) {
            chunk[i].gen = 1;
            chunk[i].index = base + i;
            chunk[i].next_free = s->free_head;
            s->free_head = base + i + 1;
        }
        s->nchunks++;
    }
    uint32_t index = s->free_head - 1;
    s->free_head = slot_at(s, index)->next_free;
    *index_out = index;
    return MCP_OK;
}

/* Id index: the one map, keyed by the id's hash. ------------------------------ */

static bool same_id(const void *value, const void *ctx)
{
    return mcp_id_equal(&((const inbound *)value)->msg->id, ctx);
}

static inbound *find_by_id(const mcp_session *s, const mcp_id *id)
{
    return mcp__map_find(&s->in_ids, mcp_id_hash(id), same_id, id);
}

/* Registration ---------------------------------------------------------------- */

bool mcp__inbound_refuse_duplicate(mcp_session *s, uint64_t route, const mcp_message *msg)
{
    if (!find_by_id(s, &msg->id))
        return false;
    /* The first request with this id stays untouched; the second is
     * refused even when it would be answered at once (ping): two responses
     * with one id would let the peer take one for the other. */
    mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &msg->id, msg->method, "inbound", NULL,
             -1, "duplicate request id already in flight:");
    mcp__send_error(s, route, &msg->id, MCP_WIRE_INVALID_REQUEST,
                    "Invalid request: a request with this id is already in flight", NULL);
    return true;
}

inbound *mcp__inbound_register(mcp_session *s, uint64_t now, uint64_t route,
                               mcp_message *msg, const mcp__era *era, int kind)
{
    /* Its id was checked on arrival (mcp__inbound_refuse_duplicate, for
     * every request), and nothing registers between that and here. */
    if (s->in_count >= s->max_inbound) {
        char text[96];
        snprintf(text, sizeof text, "Too many requests in flight (limit %u)", s->max_inbound);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &msg->id, msg->method,
                 "inbound", NULL, -1, "%s:", text);
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INTERNAL_ERROR, text, NULL);
        return NULL;
    }
    uint32_t index;
    if (mcp__map_reserve(&s->in_ids, &s->mem, 1) != MCP_OK ||
        alloc_slot(s, &index) != MCP_OK) {
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_GENERAL, &msg->id, msg->method, "inbound",
                 NULL, -1, "out of memory registering request:");
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INTERNAL_ERROR,
                        "Internal error: out of memory", NULL);
        return NULL;
    }
    inbound *in = slot_at(s, index);
    uint64_t gen = in->gen;
    memset(in, 0, sizeof *in);
    in->gen = gen;
    in->index = index;
    in->state = IN_RUNNING;
    in->kind = (uint8_t)kind;
    in->era = era;
    in->log_level = -1;
    in->msg = mcp_message_retain(msg);
    in->route = route;
    in->start = now;
    mcp_id token;
    in->token = mcp_json_object_get(mcp_json_object_get(msg->params, "_meta"), "progressToken");
    if (mcp_id_from_json(in->token, &token) != MCP_OK)
        in->token = NULL; /* not a token: no progress for it */
    mcp__map_put(&s->in_ids, &s->mem, mcp_id_hash(&msg->id), in); /* reserved */
    s->in_count++;
    if (s->collecting) {
        in->batch = s->collecting;
        in->batch->pending++;
    }
    return in;
}

void mcp__inbound_request(mcp_session *s, uint64_t now, uint64_t route,
                          mcp_message *msg, const mcp__era *era, const mcp_json *caps,
                          int log_level)
{
    if (!s->cb.on_request) {
        mcp__send_error(s, route, &msg->id, MCP_WIRE_METHOD_NOT_FOUND, "Method not found",
                        NULL);
        return;
    }
    inbound *in = mcp__inbound_register(s, now, route, msg, era, IN_CALL);
    if (!in)
        return;
    in->caps = caps;
    in->log_level = (int8_t)log_level;
    /* Registered: a cancel arriving from now on finds it. */
    s->cb.on_request(s->cb.user_data, mcp__inbound_handle(s, in), msg);
}

/* Take the entry out of every index and free its slot; its message
 * reference passes to the caller, which releases it once done with it. */
void mcp__inbound_unregister(mcp_session *s, inbound *in)
{
    mcp__map_remove(&s->in_ids, mcp_id_hash(&in->msg->id), in);
    if (in->kind == IN_LISTEN)
        mcp__listen_unlink(s, in);
    uint32_t index = in->index;
    in->state = IN_FREE;
    in->gen++;
    in->msg = NULL;
    in->batch = NULL;
    in->data = NULL;
    in->next_free = s->free_head;
    s->free_head = index + 1;
    s->in_count--;
}

/* Settling by cancel ------------------------------------------------------------ */

/* Out of the tables first, then tell the application, then release: a reply
 * attempted inside on_cancel already finds nothing. */
/* route_lost: the cancel is the loss of the request's route, which needs
 * no ending then. */
static void settle_cancelled(mcp_session *s, uint64_t now, inbound *in, const char *reason,
                             mcp_log_event event, bool route_lost)
{
    mcp_handle h = mcp__inbound_handle(s, in);
    mcp_message *msg = in->msg;
    mcp__batch *batch = in->batch;
    bool call = in->kind == IN_CALL;
    int64_t age = mcp__age(now, in->start);
    uint64_t route = route_lost ? 0 : in->route;
    void *data = in->data;
    /* Out of the tables before any user code runs, the log included. */
    mcp__inbound_unregister(s, in);
    mcp__log(s, MCP_LOG_INFO, event, &msg->id, msg->method, "inbound", reason, age,
             event == MCP_LOG_EVENT_CANCEL_RECEIVED ? "cancel received:"
                                                    : "request cancelled:");
    if (call && s->cb.on_cancel) {
        mcp_handle outer = s->cancelling;
        void *outer_data = s->cancelling_data;
        s->cancelling = h;
        s->cancelling_data = data;
        s->cb.on_cancel(s->cb.user_data, h, reason);
        s->cancelling = outer; /* a cancel inside a cancel: the outer one again */
        s->cancelling_data = outer_data;
    }
    if (route && !batch && s->cb.on_route_ended)
        s->cb.on_route_ended(s->cb.user_data, route);
    if (batch)
        mcp__batch_settled(s, batch);
    mcp_message_free(msg); /* reason may point into it until now */
}

void mcp__inbound_cancelled(mcp_session *s, uint64_t now, const mcp_message *msg)
{
    const mcp_json *rid = mcp_json_object_get(msg->params, "requestId");
    const mcp_json *reason_v = mcp_json_object_get(msg->params, "reason");
    mcp_id id;
    if (mcp_id_from_json(rid, &id) != MCP_OK ||
        (reason_v && mcp_json_typeof(reason_v) != MCP_JSON_STRING)) {
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_CANCEL_IGNORED, NULL, NULL, "inbound",
                 NULL, -1, "ignored malformed cancel notification");
        return;
    }
    const char *reason = mcp_json_string(reason_v, NULL);
    if (s->role == MCP_ROLE_CLIENT && mcp__listen_cancelled_by_server(s, rid))
        return;
    inbound *in = find_by_id(s, &id);
    /* Who may cancel what is the request's era: clients cancel their
     * requests in every revision; a server cancels its own requests only
     * in a legacy one (in 2026-07-28 it cancels nothing but its
     * subscriptions, which are not in this table). */
    if (in && s->role == MCP_ROLE_CLIENT && !(in->era && in->era->server_cancels))
        in = NULL;
    if (!in) {
        /* Unknown, finished or never cancellable (initialize is never in
         * the table), or one of ours named in the wrong direction. */
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_CANCEL_IGNORED, &id, NULL, "inbound",
                 reason, -1, "ignored cancel for an unknown or finished request:");
        return;
    }
    settle_cancelled(s, now, in, reason, MCP_LOG_EVENT_CANCEL_RECEIVED, false);
}

/* Replies ------------------------------------------------------------------------- */

static int late(mcp_session *s, mcp_handle h, const char *what)
{
    mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, NULL, NULL, "inbound", NULL, -1,
             "%s dropped: request %llu is no longer in flight", what,
             (unsigned long long)h);
    return MCP_ERR_NOT_FOUND;
}

/* The result's _meta: ours (serverInfo, the subscription id) merged with
 * the caller's (its text or DOM). A serverInfo of the caller's wins (a
 * proxy passing on its upstream's); the subscription id is always ours. */
static void write_meta(mcp_session *s, mcp__jw *w, const mcp_id *subscription,
                       const mcp_json *meta_dom, mcp__span meta_raw)
{
    bool theirs_info = mcp_json_object_get(meta_dom, META_SERVER_INFO) != NULL;
    mcp__scan sc;
    mcp__span key, value;
    int rc;
    if (meta_raw.n && mcp__scan_open(&sc, meta_raw.p, meta_raw.n))
        while ((rc = mcp__scan_next(&sc, &key, &value)) == MCP__SCAN_MEMBER)
            theirs_info |= mcp__span_is_key(key, META_SERVER_INFO);
    mcp__jw_key(w, "_meta");
    mcp__jw_object(w);
    if (!s->omit_server_info && !theirs_info) {
        mcp__jw_key(w, META_SERVER_INFO);
        mcp__write_implementation(s, w);
    }
    if (subscription) {
        mcp__jw_key(w, META_SUBSCRIPTION);
        mcp__jw_id(w, subscription);
    }
    for (size_t i = 0; i < mcp_json_object_size(meta_dom); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(meta_dom, i, &k, &kn);
        if (subscription && kn == strlen(META_SUBSCRIPTION) && !memcmp(k, META_SUBSCRIPTION, kn))
            continue;
        mcp__jw_keyn(w, k, kn);
        mcp__jw_value(w, v);
    }
    if (meta_raw.n) {
        if (!mcp__scan_open(&sc, meta_raw.p, meta_raw.n)) {
            w->err = w->err ? w->err : MCP_ERR_INVALID_ARG;
        } else {
            while ((rc = mcp__scan_next(&sc, &key, &value)) == MCP__SCAN_MEMBER)
                if (!(subscription && mcp__span_is_key(key, META_SUBSCRIPTION)))
                    mcp__jw_raw_members(w, key.p, (size_t)(value.p + value.n - key.p));
            if (rc != MCP__SCAN_END)
                w->err = w->err ? w->err : MCP_ERR_INVALID_ARG;
        }
    }
    mcp__jw_object_end(w);
}

void mcp__write_result(mcp_session *s, mcp__jw *w, const mcp__era *era,
                       const mcp_json *result, const char *raw, size_t raw_len,
                       bool raw_plain, const mcp_id *subscription)
{
    if (!era || !era->modern) {
        if (raw)
            mcp__jw_raw(w, raw, raw_len);
        else if (result)
            mcp__jw_value(w, result);
        else {
            mcp__jw_object(w);
            mcp__jw_object_end(w);
        }
        return;
    }
    /* 2026-07-28: resultType, and serverInfo in _meta, merged with the
     * members the result has. */
    bool has_type = false;
    const mcp_json *meta_dom = NULL;
    mcp__span meta_raw = {NULL, 0};
    mcp__jw_object(w);
    if (raw && raw_plain) {
        /* Our own writer's object, without spaces, _meta or resultType:
         * its members as they are, unread. */
        if (raw_len < 2 || raw[0] != '{' || raw[raw_len - 1] != '}')
            w->err = w->err ? w->err : MCP_ERR_INVALID_ARG;
        else
            mcp__jw_raw_members(w, raw + 1, raw_len - 2);
    } else if (raw) {
        mcp__scan sc;
        mcp__span key, value;
        if (!mcp__scan_open(&sc, raw, raw_len)) {
            w->err = w->err ? w->err : MCP_ERR_INVALID_ARG;
            return;
        }
        int rc;
        while ((rc = mcp__scan_next(&sc, &key, &value)) == MCP__SCAN_MEMBER) {
            if (mcp__span_is_key(key, "_meta")) {
                if (value.p[0] != '{')
                    w->err = w->err ? w->err : MCP_ERR_INVALID_ARG; /* _meta is an object */
                meta_raw = value;
                continue;
            }
            has_type |= mcp__span_is_key(key, "resultType");
            mcp__jw_raw_members(w, key.p, (size_t)(value.p + value.n - key.p));
        }
        if (rc != MCP__SCAN_END)
            w->err = w->err ? w->err : MCP_ERR_INVALID_ARG;
    } else {
        for (size_t i = 0; i < mcp_json_object_size(result); i++) {
            const char *k;
            size_t kn;
            const mcp_json *v = mcp_json_object_at(result, i, &k, &kn);
            if (kn == 5 && memcmp(k, "_meta", 5) == 0) {
                if (mcp_json_typeof(v) != MCP_JSON_OBJECT)
                    w->err = w->err ? w->err : MCP_ERR_INVALID_ARG; /* _meta is an object */
                meta_dom = v;
                continue;
            }
            has_type |= kn == 10 && memcmp(k, "resultType", 10) == 0;
            mcp__jw_keyn(w, k, kn);
            mcp__jw_value(w, v);
        }
    }
    if (!has_type && !meta_dom && !meta_raw.n && !subscription && s->result_tail) {
        mcp__jw_raw_members(w, s->result_tail, s->result_tail_len);
        mcp__jw_object_end(w);
        return;
    }
    if (!has_type) {
        mcp__jw_key(w, "resultType");
        mcp__jw_string(w, "complete");
    }
    write_meta(s, w, subscription, meta_dom, meta_raw);
    mcp__jw_object_end(w);
}

typedef enum { REPLY_JSON, REPLY_RAW, REPLY_RAW_PLAIN, REPLY_ERROR } reply_kind;

typedef struct reply_args {
    reply_kind kind;
    const mcp_json *result;
    const char *raw;
    size_t raw_len;
    int64_t code;
    const char *message;
    const mcp_json *data;
} reply_args;

static int encode_reply(mcp_session *s, mcp_buf *b, const inbound *in, const reply_args *a)
{
    const mcp_id *id = &in->msg->id;
    if (a->kind == REPLY_ERROR)
        return mcp_encode_error(b, id, a->code, a->message, a->data);
    mcp__jw w;
    mcp__jw_response_start(&w, b, id, "result");
    mcp__write_result(s, &w, in->era, a->kind == REPLY_JSON ? a->result : NULL,
                      a->kind != REPLY_JSON ? a->raw : NULL, a->raw_len,
                      a->kind == REPLY_RAW_PLAIN, NULL);
    return mcp__jw_envelope_end(&w);
}

static int reply(mcp_session *s, mcp_handle h, const reply_args *a)
{
    inbound *in = mcp__inbound_lookup(s, h);
    if (!in || in->kind != IN_CALL)
        return late(s, h, a->kind == REPLY_ERROR ? "error reply" : "reply");
    if ((a->kind == REPLY_JSON && a->result &&
         mcp_json_typeof(a->result) != MCP_JSON_OBJECT) ||
        (a->kind == REPLY_ERROR && !a->message) ||
        ((a->kind == REPLY_RAW || a->kind == REPLY_RAW_PLAIN) && !a->raw))
        return MCP_ERR_INVALID_ARG;
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int rc = encode_reply(s, b, in, a);
    if (rc == MCP_ERR_UTF8)
        rc = MCP_ERR_INVALID_ARG;
    int ret = rc;
    if (rc == MCP_ERR_LIMIT || rc == MCP_ERR_NOMEM) {
        /* Still settle the request: tell the peer why it gets no result. */
        rc = mcp_encode_error(b, &in->msg->id, MCP_WIRE_INTERNAL_ERROR,
                              ret == MCP_ERR_LIMIT ? "Internal error: result too large to send"
                                                   : "Internal error: out of memory",
                              NULL);
    }
    if (rc != MCP_OK && ret == MCP_OK)
        ret = rc;
    if (rc != MCP_OK && ret != MCP_ERR_LIMIT && ret != MCP_ERR_NOMEM) {
        mcp__scratch_done(s, b, &local);
        return ret; /* invalid arguments: nothing sent, still in flight */
    }
    /* Settled before the write: the write may close the session. */
    uint64_t route = in->route;
    mcp__batch *batch = in->batch;
    mcp_message *msg = in->msg;
    mcp__inbound_unregister(s, in);
    bool open = rc != MCP_OK || mcp__emit_response(s, route, batch, b);
    mcp__scratch_done(s, b, &local);
    if (batch)
        mcp__batch_settled(s, batch);
    mcp_message_free(msg);
    return open ? ret : MCP_ERR_CLOSED;
}

int mcp_session_reply(mcp_session *s, mcp_handle h, const mcp_json *result)
{
    mcp__session_enter(s);
    reply_args a = {REPLY_JSON, result, NULL, 0, 0, NULL, NULL};
    int rc = reply(s, h, &a);
    mcp__session_leave(s);
    return rc;
}

int mcp_session_reply_raw(mcp_session *s, mcp_handle h, const char *json, size_t len)
{
    mcp__session_enter(s);
    reply_args a = {REPLY_RAW, NULL, json, len, 0, NULL, NULL};
    int rc = reply(s, h, &a);
    mcp__session_leave(s);
    return rc;
}

int mcp__session_reply_plain(mcp_session *s, mcp_handle h, const char *json, size_t len)
{
    mcp__session_enter(s);
    reply_args a = {REPLY_RAW_PLAIN, NULL, json, len, 0, NULL, NULL};
    int rc = reply(s, h, &a);
    mcp__session_leave(s);
    return rc;
}

int mcp_session_reply_error(mcp_session *s, mcp_handle h, int64_t code,
                            const char *message, const mcp_json *data)
{
    mcp__session_enter(s);
    reply_args a = {REPLY_ERROR, NULL, NULL, 0, code, message, data};
    int rc = reply(s, h, &a);
    mcp__session_leave(s);
    return rc;
}

int mcp_session_reply_missing_capability(mcp_session *s, mcp_handle h,
                                         const mcp_json *required)
{
    inbound *in = mcp__inbound_lookup(s, h);
    if (!in)
        return late(s, h, "error reply");
    if (mcp_json_typeof(required) != MCP_JSON_OBJECT)
        return MCP_ERR_INVALID_ARG;
    if (!in->era || !in->era->modern)
        return mcp_session_reply_error(s, h, MCP_WIRE_INVALID_PARAMS,
                                       "Invalid params: the client lacks a capability "
                                       "this request needs",
                                       NULL);
    mcp_json_doc *doc = mcp_json_doc_new(&s->mem);
    if (doc) {
        mcp_json *data = mcp_json_new_object(doc);
        mcp_json_object_set(doc, data, "requiredCapabilities", mcp_json_copy(doc, required));
        if (mcp_json_doc_error(doc) == MCP_OK) {
            int rc = mcp_session_reply_error(s, h, MCP_WIRE_MISSING_CAPABILITY,
                                             "Missing required client capability", data);
            mcp_json_doc_free(doc);
            return rc;
        }
        mcp_json_doc_free(doc);
    }
    /* Out of memory for the data: the request still ends, with the code. */
    int rc = mcp_session_reply_error(s, h, MCP_WIRE_MISSING_CAPABILITY,
                                     "Missing required client capability", NULL);
    return rc == MCP_OK ? MCP_ERR_NOMEM : rc;
}

void mcp__send_missing_extension(mcp_session *s, uint64_t route, const mcp_id *id,
                                 const char *extension)
{
    mcp_json_doc *doc = mcp_json_doc_new(&s->mem);
    mcp_json *data = doc ? mcp_json_new_object(doc) : NULL;
    if (data) {
        mcp_json *need = mcp_json_new_object(doc), *ext = mcp_json_new_object(doc);
        mcp_json_object_set(doc, ext, extension, mcp_json_new_object(doc));
        mcp_json_object_set(doc, need, "extensions", ext);
        mcp_json_object_set(doc, data, "requiredCapabilities", need);
    }
    mcp__send_error(s, route, id, MCP_WIRE_MISSING_CAPABILITY, "Missing required client capability",
                    data && mcp_json_doc_error(doc) == MCP_OK ? data : NULL);
    mcp_json_doc_free(doc);
}

/* Progress and log messages ---------------------------------------------------------- */

/* _meta naming the task a message belongs to (2025-11-25 tasks), when
 * task_id is not NULL. */
static void write_related_task(mcp__jw *w, const char *task_id)
{
    if (!task_id)
        return;
    mcp__jw_key(w, "_meta");
    mcp__jw_object(w);
    mcp__jw_key(w, "io.modelcontextprotocol/related-task");
    mcp__jw_object(w);
    mcp__jw_key(w, "taskId");
    mcp__jw_string(w, task_id);
    mcp__jw_object_end(w);
    mcp__jw_object_end(w);
}

static int encode_progress(mcp_buf *b, const mcp_id *token, double progress, double total,
                           const char *message, const char *task_id)
{
    mcp__jw w;
    mcp__jw_notification_start(&w, b, "notifications/progress");
    mcp__jw_key(&w, "progressToken");
    mcp__jw_id(&w, token);
    mcp__jw_key(&w, "progress");
    mcp__jw_double(&w, progress);
    if (!isnan(total)) {
        mcp__jw_key(&w, "total");
        mcp__jw_double(&w, total);
    }
    if (message) {
        mcp__jw_key(&w, "message");
        mcp__jw_string(&w, message);
    }
    write_related_task(&w, task_id);
    mcp__jw_object_end(&w);
    int rc = mcp__jw_envelope_end(&w);
    return rc == MCP_ERR_UTF8 ? MCP_ERR_INVALID_ARG : rc;
}

static int encode_log(mcp_buf *b, mcp_log_level level, const char *logger,
                      const mcp_json *data, const char *task_id)
{
    mcp__jw w;
    mcp__jw_notification_start(&w, b, "notifications/message");
    mcp__jw_key(&w, "level");
    mcp__jw_string(&w, mcp_log_level_name(level));
    if (logger) {
        mcp__jw_key(&w, "logger");
        mcp__jw_string(&w, logger);
    }
    mcp__jw_key(&w, "data");
    mcp__jw_value(&w, data);
    write_related_task(&w, task_id);
    mcp__jw_object_end(&w);
    int rc = mcp__jw_envelope_end(&w);
    return rc == MCP_ERR_UTF8 ? MCP_ERR_INVALID_ARG : rc;
}

static int progress_impl(mcp_session *s, mcp_handle h, double progress, double total,
                         const char *message)
{
    inbound *in = mcp__inbound_lookup(s, h);
    if (!in || in->kind != IN_CALL)
        return late(s, h, "progress");
    mcp_id token;
    if (!in->token || mcp_id_from_json(in->token, &token) != MCP_OK)
        return MCP_ERR_STATE; /* the peer did not ask for progress */
    if (!isfinite(progress) || (in->sent_progress && !(progress > in->last_progress)) ||
        (!isnan(total) && !isfinite(total)))
        return MCP_ERR_INVALID_ARG;
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int rc = encode_progress(b, &token, progress, total, message, NULL);
    if (rc == MCP_OK) {
        /* Recorded before the write, which may end the request. */
        in->sent_progress = 1;
        in->last_progress = progress;
        if (!mcp__emit(s, in->route, b))
            rc = MCP_ERR_CLOSED;
    }
    mcp__scratch_done(s, b, &local);
    return rc;
}

int mcp_session_progress(mcp_session *s, mcp_handle h, double progress, double total,
                         const char *message)
{
    mcp__session_enter(s);
    int rc = progress_impl(s, h, progress, total, message);
    mcp__session_leave(s);
    return rc;
}

static int log_impl(mcp_session *s, mcp_handle h, mcp_log_level level,
                    const char *logger, const mcp_json *data)
{
    inbound *in = mcp__inbound_lookup(s, h);
    if (!in || in->kind != IN_CALL)
        return late(s, h, "log message");
    if (!mcp_log_level_name(level) || !data)
        return MCP_ERR_INVALID_ARG;
    int wanted = in->era && in->era->modern ? in->log_level : s->legacy_log_level;
    if (wanted < 0 || (int)level < wanted)
        return MCP_ERR_STATE;
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int rc = encode_log(b, level, logger, data, NULL);
    if (rc == MCP_OK && !mcp__emit(s, in->route, b))
        rc = MCP_ERR_CLOSED;
    mcp__scratch_done(s, b, &local);
    return rc;
}

int mcp_session_log_message(mcp_session *s, mcp_handle h, mcp_log_level level,
                            const char *logger, const mcp_json *data)
{
    mcp__session_enter(s);
    int rc = log_impl(s, h, level, logger, data);
    mcp__session_leave(s);
    return rc;
}

int mcp__session_task_progress(mcp_session *s, const mcp_json *token, double progress,
                               double total, const char *message, const char *task_id)
{
    mcp_id id;
    if (mcp_id_from_json(token, &id) != MCP_OK)
        return MCP_ERR_STATE; /* the peer did not ask for progress */
    mcp__session_enter(s);
    int rc = MCP_ERR_STATE;
    if (!s->closed) {
        mcp_buf local;
        mcp_buf *b = mcp__scratch(s, &local);
        rc = encode_progress(b, &id, progress, total, message, task_id);
        if (rc == MCP_OK && !mcp__emit(s, 0, b))
            rc = MCP_ERR_CLOSED;
        mcp__scratch_done(s, b, &local);
    }
    mcp__session_leave(s);
    return rc;
}

int mcp__session_task_log(mcp_session *s, mcp_log_level level, const char *logger,
                          const mcp_json *data, const char *task_id)
{
    if (!mcp_log_level_name(level) || !data)
        return MCP_ERR_INVALID_ARG;
    mcp__session_enter(s);
    int rc = MCP_ERR_STATE;
    if (!s->closed && s->legacy_log_level >= 0 && (int)level >= s->legacy_log_level) {
        mcp_buf local;
        mcp_buf *b = mcp__scratch(s, &local);
        rc = encode_log(b, level, logger, data, task_id);
        if (rc == MCP_OK && !mcp__emit(s, 0, b))
            rc = MCP_ERR_CLOSED;
        mcp__scratch_done(s, b, &local);
    }
    mcp__session_leave(s);
    return rc;
}

/* Queries and teardown ------------------------------------------------------------- */

bool mcp_session_inbound_active(const mcp_session *s, mcp_handle h)
{
    return mcp__inbound_lookup(s, h) != NULL;
}

uint64_t mcp_session_inbound_route(const mcp_session *s, mcp_handle h)
{
    inbound *in = mcp__inbound_lookup(s, h);
    return in ? in->route : 0;
}

const mcp_message *mcp_session_inbound_message(const mcp_session *s, mcp_handle h)
{
    inbound *in = mcp__inbound_lookup(s, h);
    return in ? in->msg : NULL;
}

int mcp_session_set_inbound_data(mcp_session *s, mcp_handle h, void *data)
{
    inbound *in = mcp__inbound_lookup(s, h);
    if (!in)
        return MCP_ERR_NOT_FOUND;
    in->data = data;
    return MCP_OK;
}

void *mcp_session_inbound_data(const mcp_session *s, mcp_handle h)
{
    inbound *in = mcp__inbound_lookup(s, h);
    if (in)
        return in->data;
    return h && h == s->cancelling ? s->cancelling_data : NULL;
}

const char *mcp_session_inbound_version(const mcp_session *s, mcp_handle h)
{
    inbound *in = mcp__inbound_lookup(s, h);
    return in && in->era ? in->era->version : NULL;
}

const mcp_json *mcp_session_inbound_client_capabilities(const mcp_session *s, mcp_handle h)
{
    inbound *in = mcp__inbound_lookup(s, h);
    if (!in)
        return NULL;
    return in->era && in->era->modern ? in->caps : s->peer_caps;
}

void mcp__inbound_close_all(mcp_session *s, uint64_t now, const char *reason)
{
    for (uint32_t i = 0; i < s->nchunks * INBOUND_CHUNK && s->in_count && !s->doomed; i++) {
        inbound *in = slot_at(s, i);
        if (in->state != IN_FREE)
            settle_cancelled(s, now, in, reason, MCP_LOG_EVENT_CLOSED, false);
    }
}

void mcp__inbound_route_closed(mcp_session *s, uint64_t now, uint64_t route)
{
    for (uint32_t i = 0; i < s->nchunks * INBOUND_CHUNK && s->in_count && !s->doomed; i++) {
        inbound *in = slot_at(s, i);
        if (in->state != IN_FREE && in->route == route && in->era &&
            in->era->disconnect_cancels)
            settle_cancelled(s, now, in, "client disconnected", MCP_LOG_EVENT_CLOSED,
                             true);
    }
}

void mcp__inbound_free_all(mcp_session *s)
{
    for (uint32_t c = 0; c < s->nchunks; c++) {
        for (uint32_t i = 0; i < INBOUND_CHUNK; i++) {
            inbound *in = &s->chunks[c][i];
            if (in->state == IN_FREE)
                continue;
            /* A listen still open is told ended (on_listen): a session
             * freed without a close, or doomed before it reached it. */
            if (in->kind == IN_LISTEN)
                mcp__listen_unlink(s, in);
            if (in->batch && --in->batch->pending == 0 && !in->batch->dispatching)
                mcp__batch_free(s, in->batch);
            mcp_message_free(in->msg);
        }
        mcp__free(&s->mem, s->chunks[c]);
    }
    mcp__free(&s->mem, s->chunks);
    mcp__map_free(&s->in_ids, &s->mem);
    s->chunks = NULL;
    s->nchunks = 0;
    s->in_count = 0;
    s->listens = NULL;
    s->nlistens = 0;
}
