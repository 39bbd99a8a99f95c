/* SPDX-License-Identifier: MIT */
/*
 * Requests of 2026-07-28: the era is chosen per request by the envelope in
 * its _meta, checked on every request (not only the first of a connection,
 * since the protocol is stateless): a missing required key is -32602, a
 * revision we do not speak is -32022 naming the ones we do. server/discover
 * is answered here; initialize, ping and logging/setLevel do not exist in
 * this revision. The client side writes the same envelope on each request.
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "session/entry.h"
#include "session/internal.h"

/* The envelope's members of a request's _meta, found in one pass over it
 * (the keys share their 24-byte prefix: a lookup by name each would
 * compare it again and again). Absent members are NULL. */
typedef struct envelope {
    const mcp_json *version, *caps, *info, *log_level;
} envelope;

#define ENVELOPE_PREFIX "io.modelcontextprotocol/"
#define KEY_IS(k, kn, lit) ((kn) == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

/* True when any of the request keys of the envelope is there: a 2026-07-28
 * attempt, so that one missing key gets its own error instead of a legacy
 * "not initialized". */
static bool read_envelope(const mcp_message *msg, envelope *e)
{
    *e = (envelope){NULL, NULL, NULL, NULL};
    const mcp_json *meta = mcp_json_object_get(msg->params, "_meta");
    if (!meta)
        return false; /* the common legacy case: one lookup */
    const size_t prefix = sizeof ENVELOPE_PREFIX - 1;
    for (size_t i = 0, n = mcp_json_object_size(meta); i < n; i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(meta, i, &k, &kn);
        if (kn <= prefix || memcmp(k, ENVELOPE_PREFIX, prefix) != 0)
            continue;
        if (KEY_IS(k, kn, META_VERSION))
            e->version = v;
        else if (KEY_IS(k, kn, META_CLIENT_CAPS))
            e->caps = v;
        else if (KEY_IS(k, kn, META_CLIENT_INFO))
            e->info = v;
        else if (KEY_IS(k, kn, META_LOG_LEVEL))
            e->log_level = v;
    }
    return e->version || e->caps || e->info;
}

bool mcp__is_modern_request(const mcp_message *msg)
{
    envelope e;
    return read_envelope(msg, &e);
}

void mcp__write_implementation(mcp_session *s, mcp__jw *w)
{
    mcp__jw_raw(w, s->impl_json, s->impl_len);
}

typedef struct envelope_for {
    mcp_session *s;
    const mcp__era *era;
    bool tasks;
} envelope_for;

static void envelope_members(mcp__jw *w, const void *arg)
{
    const envelope_for *e = arg;
    mcp__jw_key(w, META_VERSION);
    mcp__jw_string(w, e->era->version);
    mcp__jw_key(w, META_CLIENT_CAPS);
    mcp__write_caps_with(e->s, w, e->era, e->tasks ? MCP__TASKS_EXTENSION : NULL);
    mcp__jw_key(w, META_CLIENT_INFO);
    mcp__write_implementation(e->s, w);
}

void mcp__write_envelope(mcp_session *s, mcp__jw *w, bool tasks)
{
    envelope_for e = {s, s->era ? s->era : s->connect.want, tasks};
    /* The tasks extension is declared per request (ext-tasks: only the
     * requests of a task call): that envelope is written each time, the
     * rest of the requests share the kept one. */
    if (tasks) {
        envelope_members(w, &e);
        return;
    }
    /* Written once per revision (the capabilities never change after
     * creation); member by member when it could not be kept. */
    if (s->envelope_era != e.era) {
        size_t len;
        char *kept = mcp__write_once(&s->mem, envelope_members, &e, true, &len);
        if (kept) {
            mcp__free(&s->mem, s->envelope);
            s->envelope = kept;
            s->envelope_len = len;
            s->envelope_era = e.era;
        }
    }
    if (s->envelope_era == e.era)
        mcp__jw_raw_members(w, s->envelope, s->envelope_len);
    else
        envelope_members(w, &e);
}

/* Methods of the legacy handshake and of features 2026-07-28 removed. */
static bool removed_method(const mcp_message *m)
{
    return MCP__METHOD_IS(m, "initialize") || MCP__METHOD_IS(m, "ping") ||
           MCP__METHOD_IS(m, "logging/setLevel") || MCP__METHOD_IS(m, "resources/subscribe") ||
           MCP__METHOD_IS(m, "resources/unsubscribe");
}

static void unsupported_version(mcp_session *s, uint64_t route, const mcp_message *m,
                                const char *requested, size_t len)
{
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    mcp__jw w;
    mcp__jw_response_start(&w, b, &m->id, "error");
    mcp__jw_object(&w);
    mcp__jw_key(&w, "code");
    mcp__jw_int(&w, MCP_WIRE_UNSUPPORTED_VERSION);
    mcp__jw_key(&w, "message");
    mcp__jw_string(&w, "Unsupported protocol version");
    mcp__jw_key(&w, "data");
    mcp__jw_object(&w);
    mcp__jw_key(&w, "supported");
    mcp__era_write_supported(&w);
    mcp__jw_key(&w, "requested");
    mcp__jw_stringn(&w, requested, len);
    mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    if (mcp__jw_envelope_end(&w) == MCP_OK)
        mcp__emit_response(s, route, s->collecting, b);
    mcp__scratch_done(s, b, &local);
}

static void discover(mcp_session *s, uint64_t route, const mcp_message *m)
{
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    mcp__jw w;
    mcp__jw_response_start(&w, b, &m->id, "result");
    mcp__jw_object(&w);
    mcp__jw_key(&w, "resultType");
    mcp__jw_string(&w, "complete");
    mcp__jw_key(&w, "supportedVersions");
    mcp__era_write_supported(&w);
    mcp__jw_key(&w, "capabilities");
    mcp__write_caps(s, &w, mcp__era_latest(true));
    if (s->instructions) {
        mcp__jw_key(&w, "instructions");
        mcp__jw_string(&w, s->instructions);
    }
    mcp__jw_key(&w, "ttlMs");
    mcp__jw_int(&w, s->discover_ttl_ms > INT64_MAX ? INT64_MAX : (int64_t)s->discover_ttl_ms);
    mcp__jw_key(&w, "cacheScope");
    mcp__jw_string(&w, s->discover_scope == MCP_CACHE_PRIVATE ? "private" : "public");
    mcp__jw_key(&w, "_meta");
    mcp__jw_object(&w);
    if (!s->omit_server_info) {
        mcp__jw_key(&w, META_SERVER_INFO);
        mcp__write_implementation(s, &w);
    }
    mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    if (mcp__jw_envelope_end(&w) == MCP_OK)
        mcp__emit_response(s, route, s->collecting, b);
    else
        mcp__send_error(s, route, &m->id, MCP_WIRE_INTERNAL_ERROR,
                        "Internal error: server info is not valid UTF-8", NULL);
    mcp__scratch_done(s, b, &local);
}

static void invalid_envelope(mcp_session *s, uint64_t route, const mcp_message *m,
                             const char *why)
{
    char text[200];
    snprintf(text, sizeof text, "Invalid params: %s", why);
    mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &m->id, m->method, "inbound", NULL,
             -1, "%s:", text);
    mcp__send_error(s, route, &m->id, MCP_WIRE_INVALID_PARAMS, text, NULL);
}

bool mcp__modern_request(mcp_session *s, uint64_t now, uint64_t route, mcp_message *m)
{
    envelope e;
    if (!read_envelope(m, &e))
        return false;
    size_t vlen;
    const char *version = mcp_json_string(e.version, &vlen);
    if (!version) {
        invalid_envelope(s, route, m,
                         "_meta." META_VERSION " is required and must be a string");
        return true;
    }
    const mcp__era *era = mcp__era_find(version, vlen);
    if (!era || !era->modern) {
        mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_BAD_INPUT, &m->id, m->method, "inbound",
                 NULL, -1, "unsupported protocol version %.*s:", vlen > 40 ? 40 : (int)vlen,
                 version);
        unsupported_version(s, route, m, version, vlen);
        return true;
    }
    const mcp_json *caps = e.caps;
    if (mcp_json_typeof(caps) != MCP_JSON_OBJECT) {
        invalid_envelope(s, route, m,
                         "_meta." META_CLIENT_CAPS " is required and must be an object");
        return true;
    }
    const mcp_json *info = e.info;
    if (info && (mcp_json_typeof(info) != MCP_JSON_OBJECT ||
                 mcp_json_typeof(mcp_json_object_get(info, "name")) != MCP_JSON_STRING ||
                 mcp_json_typeof(mcp_json_object_get(info, "version")) != MCP_JSON_STRING)) {
        invalid_envelope(s, route, m,
                         "_meta." META_CLIENT_INFO
                         " must be an object with string name and version");
        return true;
    }
    const mcp_json *level_v = e.log_level;
    int level = level_v ? mcp__log_level_parse(level_v) : -1;
    if (level_v && level < 0) {
        invalid_envelope(s, route, m,
                         "_meta." META_LOG_LEVEL " must be one of debug, info, notice, "
                         "warning, error, critical, alert, emergency");
        return true;
    }
    if (MCP__METHOD_IS(m, "server/discover")) {
        discover(s, route, m); /* never registered: never cancellable */
        return true;
    }
    if (removed_method(m)) {
        char text[160];
        snprintf(text, sizeof text, "Method not found: %s is not part of protocol revision %s",
                 m->method, era->version);
        mcp__send_error(s, route, &m->id, MCP_WIRE_METHOD_NOT_FOUND, text, NULL);
        return true;
    }
    if (MCP__METHOD_IS(m, "subscriptions/listen")) {
        mcp__listen_open(s, now, route, m, era);
        return true;
    }
    mcp__inbound_request(s, now, route, m, era, caps, level);
    return true;
}
