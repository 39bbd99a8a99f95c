/*
 * Session engine: creation, reentrancy-safe free, output, logging and the
 * dispatch of every received message. Inbound and outbound requests live in
 * inbound.c and outbound.c, the initialize handshake in lifecycle.c.
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "session/internal.h"

static const char *const version_default = MCP_VERSION_STRING;

/* Creation and destruction ------------------------------------------------- */

int mcp_session_new(const mcp_session_options *opts,
                    const mcp_session_callbacks *cb, mcp_session **out)
{
    *out = NULL;
    if (!opts || !cb || !cb->send ||
        (opts->role != MCP_ROLE_CLIENT && opts->role != MCP_ROLE_SERVER) ||
        (opts->capabilities && mcp_json_typeof(opts->capabilities) != MCP_JSON_OBJECT))
        return MCP_ERR_INVALID_ARG;
    mcp_mem mem;
    mcp__mem_init(&mem, opts->mem);
    mcp_session *s = mcp__calloc(&mem, 1, sizeof *s);
    if (!s)
        return MCP_ERR_NOMEM;
    s->mem = mem;
    mcp_buf_init(&s->out, 0, &mem); /* first: the failure path frees it */
    s->role = opts->role;
    s->cb = *cb;
    s->log_level = opts->log_level;
    s->timeout_ms = opts->timeout_ms ? opts->timeout_ms : MCP_DEFAULT_TIMEOUT_MS;
    s->max_time_ms = opts->max_time_ms ? opts->max_time_ms : MCP_DEFAULT_MAX_TIME_MS;
    s->max_inbound = opts->max_inbound ? opts->max_inbound : MCP_DEFAULT_MAX_INBOUND;
    s->parse.max_size = opts->max_message;
    s->next_id = 1;
    const char *name = opts->name ? opts->name : "libmcp";
    const char *version = opts->version ? opts->version : version_default;
    s->name = mcp__strndup(&mem, name, strlen(name));
    s->version = mcp__strndup(&mem, version, strlen(version));
    if (opts->instructions)
        s->instructions = mcp__strndup(&mem, opts->instructions, strlen(opts->instructions));
    s->caps_doc = mcp_json_doc_new(&mem);
    mcp_json *caps = NULL;
    if (s->caps_doc)
        caps = opts->capabilities ? mcp_json_copy(s->caps_doc, opts->capabilities)
                                  : mcp_json_new_object(s->caps_doc);
    if (!s->name || !s->version || (opts->instructions && !s->instructions) || !caps) {
        mcp_session_free(s);
        return MCP_ERR_NOMEM;
    }
    mcp_json_doc_set_root(s->caps_doc, caps);
    *out = s;
    return MCP_OK;
}

static void destroy(mcp_session *s)
{
    mcp__inbound_free_all(s);
    mcp__outbound_free_all(s);
    mcp_message_free(s->peer_msg);
    mcp_json_doc_free(s->caps_doc);
    mcp__free(&s->mem, s->name);
    mcp__free(&s->mem, s->version);
    mcp__free(&s->mem, s->instructions);
    mcp_buf_free(&s->out);
    mcp_mem mem = s->mem;
    mcp__free(&mem, s);
}

void mcp_session_free(mcp_session *s)
{
    if (!s)
        return;
    if (s->depth > 0) {
        s->doomed = true; /* inside a callback: free on the way out */
        return;
    }
    destroy(s);
}

void mcp__session_enter(mcp_session *s)
{
    s->depth++;
}

void mcp__session_leave(mcp_session *s)
{
    if (--s->depth == 0 && s->doomed)
        destroy(s);
}

/* Output ------------------------------------------------------------------- */

mcp_buf *mcp__scratch(mcp_session *s, mcp_buf *local)
{
    if (!s->emitting) {
        s->emitting = true;
        mcp_buf_reset(&s->out);
        return &s->out;
    }
    mcp_buf_init(local, 0, &s->mem);
    return local;
}

void mcp__scratch_done(mcp_session *s, mcp_buf *b, mcp_buf *local)
{
    if (b == &s->out) {
        s->emitting = false;
        mcp_buf_reset(&s->out);
        /* Do not keep a huge scratch allocation after a big message. */
        if (s->out.alloc > ((size_t)1 << 20))
            mcp_buf_free(&s->out);
    } else {
        mcp_buf_free(local);
    }
}

void mcp__emit(mcp_session *s, uint64_t route, mcp_buf *buf)
{
    if (buf->len && !s->closed)
        s->cb.send(s->cb.user_data, route, buf->data, buf->len);
}

void mcp__send_error(mcp_session *s, uint64_t route, const mcp_id *id,
                     int64_t code, const char *message)
{
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    if (mcp_encode_error(b, id, code, message, NULL) == MCP_OK)
        mcp__emit(s, route, b);
    mcp__scratch_done(s, b, &local);
}

int mcp__put(mcp_buf *b, const char *literal)
{
    return mcp_buf_append(b, literal, strlen(literal));
}

int mcp__put_key(mcp_buf *b, const char *key)
{
    int rc = mcp_json_write_string(key, strlen(key), b);
    return rc ? rc : mcp_buf_append(b, ":", 1);
}

/* Logging ------------------------------------------------------------------ */

/* The id as it appears on the wire, shortened for a log line. */
static void format_id(char *out, size_t size, const mcp_id *id)
{
    if (!id || id->kind == MCP_ID_NONE)
        snprintf(out, size, "null");
    else if (id->kind == MCP_ID_INT)
        snprintf(out, size, "%lld", (long long)id->num);
    else
        snprintf(out, size, "\"%.*s%s\"", id->len > 40 ? 40 : (int)id->len,
                 id->str, id->len > 40 ? "..." : "");
}

/* Append to a fixed log line, truncating at its end. */
__attribute__((format(printf, 3, 4)))
static void append(char *text, size_t *n, const char *fmt, ...)
{
    const size_t size = 512;
    if (*n >= size - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(text + *n, size - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n = *n + (size_t)k < size - 1 ? *n + (size_t)k : size - 1;
}

void mcp__log(mcp_session *s, mcp_log_level level, mcp_log_event event,
              const mcp_id *id, const char *method, const char *direction,
              const char *reason, int64_t age_ms, const char *fmt, ...)
{
    if (!s->cb.log || level < s->log_level)
        return;
    char text[512];
    size_t n = 0;
    text[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        n = k < 0 ? 0 : (size_t)k < sizeof text - 1 ? (size_t)k : sizeof text - 1;
    }
    /* Append the structured fields so the line stands on its own. */
    if (id) {
        char idtext[64];
        format_id(idtext, sizeof idtext, id);
        append(text, &n, " id=%s", idtext);
    }
    if (method)
        append(text, &n, " method=%s", method);
    if (direction)
        append(text, &n, " direction=%s", direction);
    if (reason)
        append(text, &n, " reason=\"%s\"", reason);
    if (age_ms >= 0)
        append(text, &n, " age=%lldms", (long long)age_ms);
    mcp_log_record r = {level, event, text, id, method, direction, reason, age_ms};
    s->cb.log(s->cb.user_data, &r);
}

/* Receiving ------------------------------------------------------------------ */


bool mcp__may_request(const mcp_session *s, const char *method)
{
    if (strcmp(method, "ping") == 0)
        return true;
    if (s->role == MCP_ROLE_CLIENT)
        return s->lifecycle == LC_READY;
    /* Server: only ping (and logging, a notification) before the client's
     * notifications/initialized. */
    return s->lifecycle == LC_READY && s->peer_initialized;
}

static void reply_empty(mcp_session *s, uint64_t route, const mcp_id *id)
{
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    if (mcp_encode_result(b, id, NULL) == MCP_OK)
        mcp__emit(s, route, b);
    mcp__scratch_done(s, b, &local);
}

static void on_request(mcp_session *s, uint64_t now, uint64_t route, mcp_message *m)
{
    if (mcp_message_method_is(m, "ping")) {
        reply_empty(s, route, &m->id); /* at any time, even before initialize */
        return;
    }
    if (s->role == MCP_ROLE_SERVER && mcp_message_method_is(m, "initialize")) {
        /* Answered here and never registered: initialize is never
         * cancellable. */
        mcp__server_initialize(s, route, m);
        return;
    }
    if (s->role == MCP_ROLE_SERVER && s->lifecycle != LC_READY) {
        mcp__log(s, MCP_LOG_WARN, MCP_LOG_EVENT_BAD_INPUT, &m->id, m->method,
                 "inbound", NULL, -1, "request before initialize");
        mcp__send_error(s, route, &m->id, MCP_WIRE_INVALID_REQUEST,
                        "Server not initialized: the first request must be initialize");
        return;
    }
    mcp__inbound_request(s, now, route, m);
}

static void on_notification(mcp_session *s, uint64_t now, const mcp_message *m)
{
    if (mcp_message_method_is(m, "notifications/cancelled")) {
        mcp__inbound_cancelled(s, now, m);
    } else if (mcp_message_method_is(m, "notifications/progress")) {
        mcp__outbound_progress(s, now, m);
    } else if (s->role == MCP_ROLE_SERVER && mcp_message_method_is(m, "notifications/initialized")) {
        if (s->lifecycle == LC_READY && !s->peer_initialized) {
            s->peer_initialized = true;
            if (s->cb.on_initialized)
                s->cb.on_initialized(s->cb.user_data);
        }
    } else if (s->cb.on_notification) {
        s->cb.on_notification(s->cb.user_data, m);
    }
}

static void dispatch(mcp_session *s, uint64_t now, uint64_t route, mcp_message *m)
{
    switch (m->kind) {
    case MCP_MESSAGE_REQUEST: on_request(s, now, route, m); break;
    case MCP_MESSAGE_NOTIFICATION: on_notification(s, now, m); break;
    case MCP_MESSAGE_RESULT:
    case MCP_MESSAGE_ERROR: mcp__outbound_response(s, now, m); break;
    default: break;
    }
}

/* A batch: only a revision that requires receiving batches gets its items
 * processed (each answered on its own); any other answers -32600. */
static void on_batch(mcp_session *s, uint64_t now, uint64_t route,
                     mcp_message *batch, const mcp_decode_error *err)
{
    if (!s->era || !s->era->batches || mcp_json_array_size(batch->batch) == 0) {
        char text[160];
        snprintf(text, sizeof text, "%s%s%s",
                 s->era && s->era->batches ? "empty JSON-RPC batch"
                                           : "JSON-RPC batches are not supported",
                 s->era && !s->era->batches ? " in protocol revision " : "",
                 s->era && !s->era->batches ? s->era->version : "");
        mcp__log(s, MCP_LOG_WARN, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, NULL, NULL,
                 -1, "%s", text);
        mcp__send_error(s, route, NULL, err->wire_code, text);
        return;
    }
    for (size_t i = 0; i < mcp_json_array_size(batch->batch) && !s->closed; i++) {
        mcp_message *item;
        mcp_decode_error ierr;
        int rc = mcp_message_decode_batch_item(batch, i, &s->mem, &item, &ierr);
        if (rc == MCP_OK)
            dispatch(s, now, route, item);
        else if (rc == MCP_ERR_RPC_INVALID && ierr.wire_code)
            mcp__send_error(s, route, &item->id, ierr.wire_code, ierr.message);
        mcp_message_free(item);
    }
}

int mcp_session_receive(mcp_session *s, uint64_t now, uint64_t route,
                        const char *data, size_t len)
{
    if (s->closed)
        return MCP_ERR_STATE;
    mcp__session_enter(s);
    mcp_message *m;
    mcp_decode_error err;
    int rc = mcp_message_decode(data, len, &s->parse, &s->mem, &m, &err);
    switch (rc) {
    case MCP_OK: dispatch(s, now, route, m); break;
    case MCP_ERR_RPC_PARSE: {
        char text[200];
        snprintf(text, sizeof text, "Parse error: %s", err.message);
        mcp__log(s, MCP_LOG_WARN, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, NULL, NULL,
                 -1, "%s", text);
        mcp__send_error(s, route, NULL, MCP_WIRE_PARSE_ERROR, text);
        break;
    }
    case MCP_ERR_RPC_INVALID: {
        char text[200];
        snprintf(text, sizeof text, "Invalid request: %s", err.message);
        mcp__log(s, err.wire_code ? MCP_LOG_WARN : MCP_LOG_DEBUG,
                 MCP_LOG_EVENT_BAD_INPUT, m->id.kind ? &m->id : NULL, NULL, NULL,
                 NULL, -1, "%s%s", text, err.wire_code ? "" : " (not answered)");
        if (err.wire_code)
            mcp__send_error(s, route, &m->id, err.wire_code, text);
        break;
    }
    case MCP_ERR_RPC_BATCH: on_batch(s, now, route, m, &err); break;
    default:
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, NULL, NULL,
                 -1, "message dropped: %s", mcp_strerror(rc));
        break;
    }
    mcp_message_free(m);
    mcp__session_leave(s);
    return rc;
}

/* Time and closing ------------------------------------------------------------ */

uint64_t mcp_session_next_deadline(const mcp_session *s)
{
    if (!s->timers.count)
        return UINT64_MAX;
    const outbound *o = s->timers.items[0];
    return o->idle_deadline < o->max_deadline ? o->idle_deadline : o->max_deadline;
}

void mcp_session_close(mcp_session *s, uint64_t now)
{
    if (s->closed)
        return;
    mcp__session_enter(s);
    s->closed = true;
    mcp__inbound_close_all(s, now);
    mcp__outbound_close_all(s, now);
    mcp__session_leave(s);
}

/* Queries ------------------------------------------------------------------- */

bool mcp_session_ready(const mcp_session *s)
{
    return s->lifecycle == LC_READY;
}

const char *mcp_session_protocol_version(const mcp_session *s)
{
    return s->era ? s->era->version : NULL;
}

const mcp_json *mcp_session_peer_info(const mcp_session *s)
{
    return s->peer_info;
}

size_t mcp_session_inbound_count(const mcp_session *s)
{
    return s->in_count;
}

size_t mcp_session_outbound_count(const mcp_session *s)
{
    return s->out_ids.count;
}
