/*
 * The peer's requests. Each lives in a slab slot from registration (before
 * any handler runs) to its single settle: a reply, or a cancel. Settling
 * bumps the slot's generation, so every later reply, error or progress for
 * the old handle finds nothing and sends nothing: "nothing after a cancel"
 * is a property of the data structure, not of the callers' care.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "json/value.h"
#include "session/internal.h"

/* Slab ------------------------------------------------------------------- */

static inbound *slot_at(const mcp_session *s, uint32_t index)
{
    return &s->chunks[index / INBOUND_CHUNK][index % INBOUND_CHUNK];
}

static mcp_handle handle_of(const inbound *in, uint32_t index)
{
    return ((uint64_t)in->gen << 32) | (uint64_t)(index + 1);
}

/* The in-flight entry for handle h, or NULL. */
static inbound *lookup(const mcp_session *s, mcp_handle h, uint32_t *index_out)
{
    uint32_t index = (uint32_t)(h & 0xffffffffu);
    uint32_t gen = (uint32_t)(h >> 32);
    if (index == 0 || index - 1 >= s->nchunks * INBOUND_CHUNK)
        return NULL;
    inbound *in = slot_at(s, index - 1);
    if (in->state == IN_FREE || in->gen != gen)
        return NULL;
    if (index_out)
        *index_out = index - 1;
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

static void free_slot(mcp_session *s, uint32_t index)
{
    inbound *in = slot_at(s, index);
    in->state = IN_FREE;
    in->gen++;
    in->msg = NULL;
    in->next_free = s->free_head;
    s->free_head = index + 1;
}

/* Id index ------------------------------------------------------------------ */

static int idmap_grow(mcp_session *s)
{
    uint32_t size = s->in_ids.size ? s->in_ids.size * 2 : 64;
    uint32_t *slots = mcp__calloc(&s->mem, size, sizeof *slots);
    if (!slots)
        return MCP_ERR_NOMEM;
    for (uint32_t i = 0; i < s->in_ids.size; i++) {
        uint32_t v = s->in_ids.slots[i];
        if (!v)
            continue;
        uint32_t h = slot_at(s, v - 1)->hash & (size - 1);
        while (slots[h])
            h = (h + 1) & (size - 1);
        slots[h] = v;
    }
    mcp__free(&s->mem, s->in_ids.slots);
    s->in_ids.slots = slots;
    s->in_ids.size = size;
    return MCP_OK;
}

/* Position of id in the index (its slot, or the empty slot where it would
 * go); found tells which. */
static uint32_t idmap_find(const mcp_session *s, const mcp_id *id, uint32_t hash,
                           bool *found)
{
    uint32_t mask = s->in_ids.size - 1, h = hash & mask;
    for (;;) {
        uint32_t v = s->in_ids.slots[h];
        if (!v) {
            *found = false;
            return h;
        }
        inbound *in = slot_at(s, v - 1);
        if (in->hash == hash && mcp_id_equal(&in->msg->id, id)) {
            *found = true;
            return h;
        }
        h = (h + 1) & mask;
    }
}

/* Remove the entry at position pos, shifting later entries of the cluster
 * back so that lookups never need tombstones. */
static void idmap_remove_at(mcp_session *s, uint32_t pos)
{
    uint32_t mask = s->in_ids.size - 1;
    uint32_t *slots = s->in_ids.slots;
    uint32_t hole = pos, i = pos;
    for (;;) {
        i = (i + 1) & mask;
        uint32_t v = slots[i];
        if (!v)
            break;
        uint32_t home = slot_at(s, v - 1)->hash & mask;
        /* Move v into the hole if its home is not cyclically in (hole, i]. */
        bool between = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
        if (!between) {
            slots[hole] = v;
            hole = i;
        }
    }
    slots[hole] = 0;
    s->in_ids.count--;
}

static inbound *find_by_id(const mcp_session *s, const mcp_id *id, uint32_t *pos)
{
    if (!s->in_ids.size)
        return NULL;
    bool found;
    uint32_t p = idmap_find(s, id, (uint32_t)mcp_id_hash(id), &found);
    if (!found)
        return NULL;
    if (pos)
        *pos = p;
    return slot_at(s, s->in_ids.slots[p] - 1);
}

/* Settling -------------------------------------------------------------------- */

/* Remove the entry from both indexes; the caller releases its message. */
static mcp_message *unregister(mcp_session *s, inbound *in, uint32_t index)
{
    uint32_t pos;
    if (find_by_id(s, &in->msg->id, &pos))
        idmap_remove_at(s, pos);
    mcp_message *msg = in->msg;
    free_slot(s, index);
    s->in_count--;
    return msg;
}

/* Cancel: mark it settled first, then tell the application, then release:
 * a reply attempted inside on_cancel already finds nothing. */
static void settle_cancelled(mcp_session *s, uint64_t now, inbound *in,
                             uint32_t index, const char *reason, bool closing)
{
    mcp_handle h = handle_of(in, index);
    if (closing)
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CLOSED, &in->msg->id, in->msg->method,
                 "inbound", reason, mcp__age(now, in->start), "request cancelled:");
    else
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_CANCEL_RECEIVED, &in->msg->id,
                 in->msg->method, "inbound", reason, mcp__age(now, in->start),
                 "cancel received:");
    mcp_message *msg = unregister(s, in, index);
    if (s->cb.on_cancel)
        s->cb.on_cancel(s->cb.user_data, h, reason);
    mcp_message_free(msg); /* reason may point into it until now */
}

/* Registration ---------------------------------------------------------------- */

void mcp__inbound_request(mcp_session *s, uint64_t now, uint64_t route,
                          mcp_message *msg)
{
    if (!s->cb.on_request) {
        mcp__send_error(s, route, &msg->id, MCP_WIRE_METHOD_NOT_FOUND, "Method not found");
        return;
    }
    if (find_by_id(s, &msg->id, NULL)) {
        /* The first request with this id stays untouched. */
        mcp__log(s, MCP_LOG_WARN, MCP_LOG_EVENT_BAD_INPUT, &msg->id, msg->method,
                 "inbound", NULL, -1, "duplicate request id already in flight:");
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INVALID_REQUEST,
                        "Invalid request: a request with this id is already in flight");
        return;
    }
    if (s->in_count >= s->max_inbound) {
        char text[96];
        snprintf(text, sizeof text, "Too many requests in flight (limit %u)", s->max_inbound);
        mcp__log(s, MCP_LOG_WARN, MCP_LOG_EVENT_BAD_INPUT, &msg->id, msg->method,
                 "inbound", NULL, -1, "%s:", text);
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INTERNAL_ERROR, text);
        return;
    }
    uint32_t index;
    if ((s->in_ids.count + 1) * 2 > s->in_ids.size && idmap_grow(s) != MCP_OK)
        goto nomem;
    if (alloc_slot(s, &index) != MCP_OK)
        goto nomem;

    inbound *in = slot_at(s, index);
    in->state = IN_RECEIVED;
    in->msg = mcp_message_retain(msg);
    in->hash = (uint32_t)mcp_id_hash(&msg->id);
    in->route = route;
    in->start = now;
    in->sent_progress = 0;
    in->last_progress = 0;
    in->has_token = mcp_id_from_json(
        mcp_json_object_get(mcp_json_object_get(msg->params, "_meta"), "progressToken"),
        &in->token) == MCP_OK;
    bool found;
    uint32_t pos = idmap_find(s, &msg->id, in->hash, &found);
    s->in_ids.slots[pos] = index + 1;
    s->in_ids.count++;
    s->in_count++;

    /* Registered: a cancel arriving from now on finds it. */
    in->state = IN_RUNNING;
    s->cb.on_request(s->cb.user_data, handle_of(in, index), msg);
    return;
nomem:
    mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_GENERAL, &msg->id, msg->method, "inbound",
             NULL, -1, "out of memory registering request:");
    mcp__send_error(s, route, &msg->id, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory");
}

/* Received notifications/cancelled ------------------------------------------------ */

void mcp__inbound_cancelled(mcp_session *s, uint64_t now, const mcp_message *msg)
{
    const mcp_json *rid = mcp_json_object_get(msg->params, "requestId");
    const mcp_json *reason_v = mcp_json_object_get(msg->params, "reason");
    mcp_id id;
    bool peer_may = s->role == MCP_ROLE_SERVER ? (!s->era || s->era->client_cancels)
                                               : (!s->era || s->era->server_cancels);
    if (mcp_id_from_json(rid, &id) != MCP_OK ||
        (reason_v && mcp_json_typeof(reason_v) != MCP_JSON_STRING)) {
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_CANCEL_IGNORED, NULL, NULL, "inbound",
                 NULL, -1, "ignored malformed cancel notification");
        return;
    }
    const char *reason = mcp_json_string(reason_v, NULL);
    uint32_t pos;
    inbound *in = peer_may ? find_by_id(s, &id, &pos) : NULL;
    if (!in) {
        /* Unknown, finished or never cancellable (initialize is never in
         * the table); in this era's direction rules, or a request of ours. */
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_CANCEL_IGNORED, &id, NULL, "inbound",
                 reason, -1, "ignored cancel for an unknown or finished request:");
        return;
    }
    settle_cancelled(s, now, in, s->in_ids.slots[pos] - 1, reason, false);
}

/* Replies ------------------------------------------------------------------------- */

static int late(mcp_session *s, mcp_handle h, const char *what)
{
    mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_DROPPED, NULL, NULL, "inbound", NULL, -1,
             "%s dropped: request %llu is no longer in flight", what,
             (unsigned long long)h);
    return MCP_ERR_NOT_FOUND;
}

typedef enum { REPLY_JSON, REPLY_RAW, REPLY_ERROR } reply_kind;

static int reply(mcp_session *s, mcp_handle h, reply_kind kind, const mcp_json *result,
                 const char *raw, size_t raw_len, int64_t code, const char *message,
                 const mcp_json *data)
{
    uint32_t index;
    inbound *in = lookup(s, h, &index);
    if (!in)
        return late(s, h, kind == REPLY_ERROR ? "error reply" : "reply");
    if ((kind == REPLY_JSON && result && mcp_json_typeof(result) != MCP_JSON_OBJECT) ||
        (kind == REPLY_ERROR && !message) || (kind == REPLY_RAW && !raw))
        return MCP_ERR_INVALID_ARG;
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int rc;
    const mcp_id *id = &in->msg->id;
    if (kind == REPLY_ERROR) {
        rc = mcp_encode_error(b, id, code, message, data);
    } else if (kind == REPLY_JSON) {
        rc = mcp_encode_result(b, id, result);
    } else {
        rc = mcp__put(b, "{\"jsonrpc\":\"2.0\",\"id\":");
        if (!rc) rc = mcp_id_write(id, b);
        if (!rc) rc = mcp__put(b, ",\"result\":");
        if (!rc) rc = mcp_buf_append(b, raw, raw_len);
        if (!rc) rc = mcp__put(b, "}\n");
        if (rc) {
            mcp_buf_reset(b);
        }
    }
    int ret = rc;
    if (rc == MCP_ERR_LIMIT || rc == MCP_ERR_NOMEM) {
        /* Still settle the request: tell the peer why it gets no result. */
        mcp_buf_reset(b);
        rc = mcp_encode_error(b, id, MCP_WIRE_INTERNAL_ERROR,
                              ret == MCP_ERR_LIMIT ? "Internal error: result too large to send"
                                                   : "Internal error: out of memory",
                              NULL);
    }
    if (rc == MCP_OK)
        mcp__emit(s, in->route, b);
    mcp__scratch_done(s, b, &local);
    if (rc != MCP_OK && ret == MCP_OK)
        return rc; /* invalid arguments: nothing sent, still in flight */
    mcp_message_free(unregister(s, in, index));
    return ret;
}

int mcp_session_reply(mcp_session *s, mcp_handle h, const mcp_json *result)
{
    mcp__session_enter(s);
    int rc = reply(s, h, REPLY_JSON, result, NULL, 0, 0, NULL, NULL);
    mcp__session_leave(s);
    return rc;
}

int mcp_session_reply_raw(mcp_session *s, mcp_handle h, const char *json, size_t len)
{
    mcp__session_enter(s);
    int rc = reply(s, h, REPLY_RAW, NULL, json, len, 0, NULL, NULL);
    mcp__session_leave(s);
    return rc;
}

int mcp_session_reply_error(mcp_session *s, mcp_handle h, int64_t code,
                            const char *message, const mcp_json *data)
{
    mcp__session_enter(s);
    int rc = reply(s, h, REPLY_ERROR, NULL, NULL, 0, code, message, data);
    mcp__session_leave(s);
    return rc;
}

/* Progress ------------------------------------------------------------------------ */

static int put_double(mcp_buf *b, double d)
{
    char num[MCP__DOUBLE_BUF];
    size_t n = mcp__format_double(num, d);
    return n ? mcp_buf_append(b, num, n) : MCP_ERR_INVALID_ARG;
}

static int progress_impl(mcp_session *s, mcp_handle h, double progress, double total,
                         const char *message)
{
    inbound *in = lookup(s, h, NULL);
    if (!in)
        return late(s, h, "progress");
    if (!in->has_token)
        return MCP_ERR_STATE; /* the peer did not ask for progress */
    if (!isfinite(progress) || (in->sent_progress && !(progress > in->last_progress)) ||
        (!isnan(total) && !isfinite(total)) ||
        (message && mcp_utf8_validate(message, strlen(message), NULL) != MCP_OK))
        return MCP_ERR_INVALID_ARG;
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int rc = mcp__put(b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
                         "\"params\":{\"progressToken\":");
    if (!rc) rc = mcp_id_write(&in->token, b);
    if (!rc) rc = mcp__put(b, ",\"progress\":");
    if (!rc) rc = put_double(b, progress);
    if (!rc && !isnan(total)) {
        rc = mcp__put(b, ",\"total\":");
        if (!rc) rc = put_double(b, total);
    }
    if (!rc && message) {
        rc = mcp__put(b, ",\"message\":");
        if (!rc) rc = mcp_json_write_string(message, strlen(message), b);
    }
    if (!rc) rc = mcp__put(b, "}}\n");
    if (!rc) {
        mcp__emit(s, in->route, b);
        in->sent_progress = 1;
        in->last_progress = progress;
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

/* Queries and teardown ------------------------------------------------------------- */

bool mcp_session_inbound_active(const mcp_session *s, mcp_handle h)
{
    return lookup(s, h, NULL) != NULL;
}

const mcp_message *mcp_session_inbound_message(const mcp_session *s, mcp_handle h)
{
    inbound *in = lookup(s, h, NULL);
    return in ? in->msg : NULL;
}

void mcp__inbound_close_all(mcp_session *s, uint64_t now)
{
    for (uint32_t i = 0; i < s->nchunks * INBOUND_CHUNK && s->in_count; i++) {
        inbound *in = slot_at(s, i);
        if (in->state != IN_FREE)
            settle_cancelled(s, now, in, i, "connection closed", true);
    }
}

void mcp__inbound_free_all(mcp_session *s)
{
    for (uint32_t c = 0; c < s->nchunks; c++) {
        for (uint32_t i = 0; i < INBOUND_CHUNK; i++)
            if (s->chunks[c][i].state != IN_FREE)
                mcp_message_free(s->chunks[c][i].msg);
        mcp__free(&s->mem, s->chunks[c]);
    }
    mcp__free(&s->mem, s->chunks);
    mcp__free(&s->mem, s->in_ids.slots);
    s->chunks = NULL;
    s->nchunks = 0;
    s->in_ids.slots = NULL;
    s->in_ids.size = s->in_ids.count = 0;
    s->in_count = 0;
}
