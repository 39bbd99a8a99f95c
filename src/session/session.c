/* SPDX-License-Identifier: MIT */
/*
 * Session engine: creation, reentrancy-safe free, output, logging and the
 * dispatch of every received message. Inbound and outbound requests live in
 * inbound.c and outbound.c, the legacy handshake in lifecycle.c, 2026-07-28
 * requests in modern.c, subscriptions in listen.c.
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "core/opts.h"
#include "session/internal.h"
#include "session/entry.h"

/* Creation and destruction ------------------------------------------------- */

char *mcp__write_once(const mcp_mem *mem, void (*write)(mcp__jw *w, const void *arg),
                      const void *arg, bool members, size_t *len)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, mem);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    write(&w, arg);
    mcp__jw_object_end(&w);
    char *kept = NULL;
    *len = 0;
    if (mcp__jw_finish(&w) == MCP_OK) {
        /* An object is at least "{}": its members are what the braces hold. */
        size_t skip = members ? 1 : 0;
        kept = mcp__strndup(mem, b.data + skip, b.len - 2 * skip);
        *len = kept ? b.len - 2 * skip : 0;
    }
    mcp_buf_free(&b);
    return kept;
}

/* {"name":..,"version":..} (strings checked for UTF-8 already). */
static void implementation_members(mcp__jw *w, const void *arg)
{
    const mcp_session *s = arg;
    mcp__jw_key(w, "name");
    mcp__jw_string(w, s->name);
    mcp__jw_key(w, "version");
    mcp__jw_string(w, s->version);
}

/* What a 2026-07-28 result without resultType or _meta ends with (server). */
static void result_tail_members(mcp__jw *w, const void *arg)
{
    const mcp_session *s = arg;
    mcp__jw_key(w, "resultType");
    mcp__jw_string(w, "complete");
    mcp__jw_key(w, "_meta");
    mcp__jw_object(w);
    if (!s->omit_server_info) {
        mcp__jw_key(w, META_SERVER_INFO);
        mcp__jw_raw(w, s->impl_json, s->impl_len);
    }
    mcp__jw_object_end(w);
}

int mcp_session_new(const mcp_session_options *opts_in,
                    const mcp_session_callbacks *cb_in, mcp_session **out)
{
    *out = NULL;
    mcp_session_options opts;
    mcp_session_callbacks cb;
    if (!opts_in || !cb_in || mcp__opts_copy(&opts, sizeof opts, opts_in) != MCP_OK ||
        mcp__opts_copy(&cb, sizeof cb, cb_in) != MCP_OK || !cb.send ||
        (opts.role != MCP_ROLE_CLIENT && opts.role != MCP_ROLE_SERVER) ||
        (opts.capabilities && mcp_json_typeof(opts.capabilities) != MCP_JSON_OBJECT) ||
        (opts.name && mcp_utf8_validate(opts.name, strlen(opts.name), NULL)) ||
        (opts.version && mcp_utf8_validate(opts.version, strlen(opts.version), NULL)) ||
        (opts.instructions &&
         mcp_utf8_validate(opts.instructions, strlen(opts.instructions), NULL)) ||
        opts.first_request_id < 0 || opts.max_inbound > MCP__MAX_INBOUND)
        return MCP_ERR_INVALID_ARG;
    mcp_mem mem;
    mcp__mem_init(&mem, opts.mem);
    mcp_session *s = mcp__calloc(&mem, 1, sizeof *s);
    if (!s)
        return MCP_ERR_NOMEM;
    s->mem = mem;
    mcp_buf_init(&s->out, 0, &mem); /* first: the failure path frees it */
    s->role = opts.role;
    s->cb = cb;
    s->log_level = opts.log_level;
    s->timeout_ms = opts.timeout_ms ? opts.timeout_ms : MCP_DEFAULT_TIMEOUT_MS;
    s->max_time_ms = opts.max_time_ms ? opts.max_time_ms : MCP_DEFAULT_MAX_TIME_MS;
    s->max_inbound = opts.max_inbound ? opts.max_inbound : MCP_DEFAULT_MAX_INBOUND;
    s->listen_kinds = opts.listen_kinds;
    s->discover_ttl_ms = opts.discover_ttl_ms;
    s->discover_scope = opts.discover_cache_scope;
    s->omit_server_info = opts.omit_server_info;
    s->parse.size = sizeof s->parse;
    s->parse.max_size = opts.max_message;
    s->legacy_log_level = MCP_LOG_DEBUG;
    s->next_id = opts.first_request_id ? opts.first_request_id : 1;
    const char *name = opts.name ? opts.name : "libmcp";
    const char *version = opts.version ? opts.version : MCP_VERSION_STRING;
    s->name = mcp__strndup(&mem, name, strlen(name));
    s->version = mcp__strndup(&mem, version, strlen(version));
    if (opts.instructions)
        s->instructions = mcp__strndup(&mem, opts.instructions, strlen(opts.instructions));
    if (s->name && s->version)
        s->impl_json = mcp__write_once(&mem, implementation_members, s, false, &s->impl_len);
    if (s->impl_json && s->role == MCP_ROLE_SERVER)
        s->result_tail =
            mcp__write_once(&mem, result_tail_members, s, true, &s->result_tail_len);
    s->caps_doc = mcp_json_doc_new(&mem);
    mcp_json *caps = NULL;
    if (s->caps_doc)
        caps = opts.capabilities ? mcp_json_copy(s->caps_doc, opts.capabilities)
                                 : mcp_json_new_object(s->caps_doc);
    if (!s->impl_json || (s->role == MCP_ROLE_SERVER && !s->result_tail) ||
        (opts.instructions && !s->instructions) || !caps) {
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
    mcp__free(&s->mem, s->impl_json);
    mcp__free(&s->mem, s->result_tail);
    mcp__free(&s->mem, s->envelope);
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

int mcp__session_reset(mcp_session *s)
{
    if (!s->closed || s->depth || s->doomed || s->in_count || s->nlistens ||
        s->out_ids.count || s->timers.count || s->collecting)
        return MCP_ERR_STATE;
    /* What one conversation leaves; the options, callbacks, request tables
     * (empty, their slots free) and the next request id stay. */
    mcp_message_free(s->peer_msg);
    s->peer_msg = NULL;
    s->peer_info = s->peer_caps = NULL;
    s->bad_input_warnings = 0;
    s->lifecycle = LC_NEW;
    s->peer_initialized = false;
    s->anonymous = false;
    s->closed = false;
    s->era = NULL;
    memset(&s->connect, 0, sizeof s->connect);
    s->legacy_log_level = MCP_LOG_DEBUG;
    mcp_buf_reset(&s->out);
    return MCP_OK;
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

bool mcp__emit(mcp_session *s, uint64_t route, const mcp_buf *buf)
{
    if (s->closed || s->doomed)
        return false; /* closed, or freed inside a callback: nothing more */
    if (!buf->len)
        return true;
    int rc = s->cb.send(s->cb.user_data, route, buf->data, buf->len);
    if (rc != MCP_OK && !s->closed && !s->doomed) {
        if (route == 0) {
            mcp__session_fail(s, "the connection failed while sending");
        } else {
            mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_GENERAL, NULL, NULL, NULL, NULL, -1,
                     "route %llu lost while sending", (unsigned long long)route);
            mcp__inbound_route_closed(s, s->now, route);
        }
    }
    return rc == MCP_OK && !s->closed && !s->doomed;
}

bool mcp__never_answer(const mcp_session *s)
{
    if (s->role != MCP_ROLE_CLIENT)
        return false;
    const mcp__era *e = s->era ? s->era
                        : s->lifecycle == LC_CONNECTING ? s->connect.want : NULL;
    return e && e->modern;
}

bool mcp__emit_response(mcp_session *s, uint64_t route, mcp__batch *batch,
                        const mcp_buf *buf)
{
    if (!batch)
        return mcp__emit(s, route, buf);
    if (s->closed || !buf->len)
        return !s->closed;
    /* One array element: the line without its newline. */
    size_t n = buf->data[buf->len - 1] == '\n' ? buf->len - 1 : buf->len;
    int rc = batch->items.len ? mcp_buf_append(&batch->items, MCP_LITERAL(",")) : MCP_OK;
    if (rc == MCP_OK)
        rc = mcp_buf_append(&batch->items, buf->data, n);
    if (rc != MCP_OK)
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_GENERAL, NULL, NULL, NULL, NULL, -1,
                 "a batch response was dropped: %s", mcp_strerror(rc));
    return true;
}

void mcp__send_error(mcp_session *s, uint64_t route, const mcp_id *id,
                     int64_t code, const char *message, const mcp_json *data)
{
    if (mcp__never_answer(s)) {
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_BAD_INPUT, id, NULL, "inbound", NULL, -1,
                 "not answered (a 2026-07-28 client sends no responses): %s", message);
        return;
    }
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    if (mcp_encode_error(b, id, code, message, data) == MCP_OK)
        mcp__emit_response(s, route, s->collecting, b);
    mcp__scratch_done(s, b, &local);
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
    /* A peer that sends nothing but bad input (20,000 requests a 2026
     * server may not send) must not scroll everything else away: past
     * MAX_BAD_INPUT_WARNINGS, the rest is logged at debug. */
    bool last_warning = false;
    if (event == MCP_LOG_EVENT_BAD_INPUT && level >= MCP_LOG_WARNING) {
        if (s->bad_input_warnings >= MCP__MAX_BAD_INPUT_WARNINGS)
            level = MCP_LOG_DEBUG;
        else
            last_warning = ++s->bad_input_warnings == MCP__MAX_BAD_INPUT_WARNINGS;
    }
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
    if (last_warning)
        append(text, &n, " (more bad input from this peer: logged at debug level only)");
    /* One line that acts on nothing: the peer's id, method and reason are
     * in it. The fields stay as received. */
    char line[1024];
    mcp_text_escape_controls(text, n, line, sizeof line);
    mcp_log_record r = {level, event, line, id, method, direction, reason, age_ms};
    s->cb.log(s->cb.user_data, &r);
}

/* Receiving ------------------------------------------------------------------ */

bool mcp__may_request(const mcp_session *s, const char *method)
{
    if (s->role == MCP_ROLE_CLIENT) {
        /* ping at any time (legacy), except to a 2026-07-28 server, which
         * has none; anything else once connected. */
        if (strcmp(method, "ping") == 0)
            return !(s->era && s->era->modern);
        return (s->lifecycle == LC_READY && s->era) ||
               (s->lifecycle == LC_CONNECTING && s->connect.queue);
    }
    /* Server: only to a legacy client (2026-07-28 servers never ask), and
     * only ping before its notifications/initialized. */
    if (strcmp(method, "ping") == 0)
        return s->lifecycle == LC_READY;
    return s->lifecycle == LC_READY && s->peer_initialized && s->era->server_requests;
}

static void reply_empty(mcp_session *s, uint64_t route, const mcp_id *id)
{
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    if (mcp_encode_result(b, id, NULL) == MCP_OK)
        mcp__emit_response(s, route, s->collecting, b);
    mcp__scratch_done(s, b, &local);
}

static void on_request(mcp_session *s, uint64_t now, uint64_t route, mcp_message *m)
{
    if (mcp__inbound_refuse_duplicate(s, route, m))
        return;
    if (s->role == MCP_ROLE_SERVER && mcp__modern_request(s, now, route, m))
        return;
    if (mcp__never_answer(s)) {
        /* 2026-07-28 servers never send requests, and its clients never
         * write responses: dropped. */
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &m->id, m->method, "inbound",
                 NULL, -1, "request from a 2026-07-28 server dropped:");
        return;
    }
    if (MCP__METHOD_IS(m, "ping")) {
        reply_empty(s, route, &m->id); /* at any time, even before initialize */
        return;
    }
    if (s->role == MCP_ROLE_SERVER && MCP__METHOD_IS(m, "initialize")) {
        /* Answered here and never registered: initialize is never
         * cancellable. */
        mcp__server_initialize(s, route, m);
        return;
    }
    if (s->role == MCP_ROLE_SERVER && s->lifecycle != LC_READY) {
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &m->id, m->method,
                 "inbound", NULL, -1, "request before initialize");
        mcp__send_error(s, route, &m->id, MCP_WIRE_INVALID_REQUEST,
                        "Server not initialized: the first request must be initialize "
                        "(or carry the 2026-07-28 _meta envelope)",
                        NULL);
        return;
    }
    if (s->role == MCP_ROLE_SERVER && MCP__METHOD_IS(m, "logging/setLevel")) {
        mcp__server_set_level(s, route, m);
        return;
    }
    mcp__inbound_request(s, now, route, m, s->era, NULL, -1);
}

static void on_notification(mcp_session *s, uint64_t now, const mcp_message *m)
{
    if (MCP__METHOD_IS(m, "notifications/cancelled")) {
        mcp__inbound_cancelled(s, now, m);
    } else if (MCP__METHOD_IS(m, "notifications/progress")) {
        mcp__outbound_progress(s, now, m);
    } else if (s->role == MCP_ROLE_SERVER && MCP__METHOD_IS(m, "notifications/initialized")) {
        if (s->lifecycle == LC_READY && !s->peer_initialized) {
            s->peer_initialized = true;
            if (s->cb.on_initialized)
                s->cb.on_initialized(s->cb.user_data);
        }
    } else if (s->role == MCP_ROLE_CLIENT && mcp__listen_notification(s, m)) {
        /* a notification of one of our subscriptions */
    } else if (s->role == MCP_ROLE_CLIENT && MCP__METHOD_IS(m, "notifications/tasks/status") &&
               mcp__task_status_heard(s, now, m)) {
        /* about a call of ours that runs as a task */
    } else if (s->cb.on_notification) {
        s->cb.on_notification(s->cb.user_data, m);
    }
}

void mcp__dispatch(mcp_session *s, uint64_t now, uint64_t route, mcp_message *m)
{
    switch (m->kind) {
    case MCP_MESSAGE_REQUEST: on_request(s, now, route, m); break;
    case MCP_MESSAGE_NOTIFICATION: on_notification(s, now, m); break;
    case MCP_MESSAGE_RESULT:
    case MCP_MESSAGE_ERROR: mcp__outbound_response(s, now, m); break;
    default: break;
    }
}

void mcp__bad_message(mcp_session *s, uint64_t route, int rc, const mcp_message *m,
                      const mcp_decode_error *err)
{
    char text[200];
    if (rc == MCP_ERR_RPC_PARSE) {
        snprintf(text, sizeof text, "Parse error: %s", err->message);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, NULL, NULL, -1,
                 "%s", text);
        mcp__send_error(s, route, NULL, MCP_WIRE_PARSE_ERROR, text, NULL);
    } else if (rc == MCP_ERR_RPC_INVALID) {
        const mcp_id *id = m && m->id.kind ? &m->id : NULL;
        /* Shaped as an answer to a request of ours: that request is over. */
        if (id && !err->wire_code && mcp__outbound_reject(s, id, err->message))
            return;
        snprintf(text, sizeof text, "Invalid request: %s", err->message);
        mcp__log(s, err->wire_code ? MCP_LOG_WARNING : MCP_LOG_DEBUG, MCP_LOG_EVENT_BAD_INPUT,
                 id, NULL, NULL, NULL, -1, "%s%s", text,
                 err->wire_code ? "" : " (not answered)");
        if (err->wire_code)
            mcp__send_error(s, route, id, err->wire_code, text, NULL);
    } else {
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, NULL, NULL, -1,
                 "message dropped: %s", mcp_strerror(rc));
    }
}

/* Around the handling of what comes in: a free from a callback waits for
 * the end, and a message received from inside a callback while a batch is
 * being read is no part of that batch. */
static mcp__batch *input_begin(mcp_session *s, uint64_t now)
{
    mcp__session_enter(s);
    s->now = now;
    mcp__batch *outer = s->collecting;
    s->collecting = NULL;
    return outer;
}

static void input_end(mcp_session *s, mcp__batch *outer)
{
    s->collecting = outer;
    mcp__session_leave(s);
}

int mcp_session_receive(mcp_session *s, uint64_t now, uint64_t route,
                        const char *data, size_t len)
{
    if (s->closed)
        return MCP_ERR_STATE;
    mcp__batch *outer = input_begin(s, now);
    mcp_message *m;
    mcp_decode_error err;
    int rc = mcp_message_decode(data, len, &s->parse, &s->mem, &m, &err);
    if (rc == MCP_OK)
        mcp__dispatch(s, now, route, m);
    else if (rc == MCP_ERR_RPC_BATCH)
        rc = mcp__batch_receive(s, now, route, m, &err);
    else if (rc == MCP_ERR_RPC_PARSE && mcp__unreadable_answer(s, data, len, err.message))
        ; /* ended the request it answers: a response is never answered */
    else
        mcp__bad_message(s, route, rc, m, &err);
    mcp_message_free(m);
    input_end(s, outer);
    return rc;
}

int mcp__session_receive_message(mcp_session *s, uint64_t now, uint64_t route,
                                 mcp_message *m)
{
    if (s->closed)
        return MCP_ERR_STATE;
    mcp__batch *outer = input_begin(s, now);
    mcp__dispatch(s, now, route, m);
    input_end(s, outer);
    return MCP_OK;
}

int mcp_session_receive_oversized(mcp_session *s, uint64_t now, uint64_t route,
                                  const char *head, size_t head_len, const char *tail,
                                  size_t tail_len, size_t limit)
{
    if (s->closed)
        return MCP_ERR_STATE;
    mcp__batch *outer = input_begin(s, now);
    mcp__oversized(s, now, route, head, head_len, tail, tail_len, limit);
    input_end(s, outer);
    return MCP_OK;
}

/* Time and closing ------------------------------------------------------------ */

uint64_t mcp_session_next_deadline(const mcp_session *s)
{
    if (!s->timers.count)
        return UINT64_MAX;
    return mcp__outbound_due(s->timers.items[0]);
}

void mcp_session_close(mcp_session *s, uint64_t now)
{
    mcp_session_close_reason(s, now, NULL);
}

void mcp_session_close_reason(mcp_session *s, uint64_t now, const char *reason)
{
    if (!s || s->closed)
        return;
    mcp__session_enter(s);
    s->now = now;
    s->closed = true;
    mcp__inbound_close_all(s, now, reason ? reason : "connection closed");
    mcp__outbound_close_all(s, now);
    mcp__session_leave(s);
}

void mcp__session_fail(mcp_session *s, const char *why)
{
    if (s->closed)
        return;
    mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_GENERAL, NULL, NULL, NULL, NULL, -1,
             "closing: %s", why);
    mcp_session_close(s, s->now);
}

void mcp_session_route_closed(mcp_session *s, uint64_t now, uint64_t route)
{
    if (s->closed || route == 0)
        return;
    mcp__session_enter(s);
    s->now = now;
    mcp__inbound_route_closed(s, now, route);
    mcp__session_leave(s);
}

bool mcp_session_closed(const mcp_session *s)
{
    return s->closed;
}

/* Queries ------------------------------------------------------------------- */

bool mcp_session_ready(const mcp_session *s)
{
    return s->lifecycle == LC_READY;
}

bool mcp_session_modern(const mcp_session *s)
{
    return s->role == MCP_ROLE_CLIENT && s->lifecycle == LC_READY && s->era &&
           s->era->modern;
}

const char *mcp_session_protocol_version(const mcp_session *s)
{
    return s->lifecycle == LC_READY && s->era ? s->era->version : NULL;
}

const mcp_json *mcp_session_peer_info(const mcp_session *s)
{
    return s->peer_info;
}

size_t mcp_session_inbound_count(const mcp_session *s)
{
    return s->in_count;
}

int64_t mcp_session_next_request_id(const mcp_session *s)
{
    return s->next_id;
}

size_t mcp_session_outbound_count(const mcp_session *s)
{
    return s->out_ids.count;
}

size_t mcp_session_listen_count(const mcp_session *s)
{
    return s->nlistens;
}

const char *mcp_log_level_name(mcp_log_level level)
{
    static const char *const names[] = {NULL,    "debug", "info",  "notice",   "warning",
                                        "error", "critical", "alert", "emergency"};
    return (unsigned)level < sizeof names / sizeof names[0] ? names[level] : NULL;
}
