/* SPDX-License-Identifier: MIT */
/*
 * Choosing an era. Server: the legacy handshake (initialize, its result,
 * notifications/initialized, logging/setLevel); 2026-07-28 requests need
 * none of it (modern.c). Client: mcp_session_connect, which probes with
 * server/discover and falls back to initialize as the 2026-07-28 stdio
 * binding says: on any error that is not a recognised modern one, or on no
 * answer, never keyed to one error code.
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "core/opts.h"
#include "session/entry.h"
#include "session/internal.h"

/* Server ------------------------------------------------------------------- */

static const char *check_initialize_params(const mcp_json *p)
{
    if (mcp_json_typeof(mcp_json_object_get(p, "protocolVersion")) != MCP_JSON_STRING)
        return "initialize: params.protocolVersion must be a string";
    if (mcp_json_typeof(mcp_json_object_get(p, "capabilities")) != MCP_JSON_OBJECT)
        return "initialize: params.capabilities must be an object";
    const mcp_json *info = mcp_json_object_get(p, "clientInfo");
    if (mcp_json_typeof(info) != MCP_JSON_OBJECT ||
        mcp_json_typeof(mcp_json_object_get(info, "name")) != MCP_JSON_STRING ||
        mcp_json_typeof(mcp_json_object_get(info, "version")) != MCP_JSON_STRING)
        return "initialize: params.clientInfo must be an object with string name and version";
    return NULL;
}

void mcp__server_initialize(mcp_session *s, uint64_t route, const mcp_message *msg)
{
    if (s->lifecycle == LC_READY) {
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INVALID_REQUEST,
                        "Invalid request: initialize was already received", NULL);
        return;
    }
    const char *bad = check_initialize_params(msg->params);
    if (bad) {
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &msg->id, "initialize",
                 "inbound", NULL, -1, "%s:", bad);
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INVALID_PARAMS, bad, NULL);
        return;
    }
    size_t vlen;
    const char *requested =
        mcp_json_string(mcp_json_object_get(msg->params, "protocolVersion"), &vlen);
    /* A revision we speak or accept, answered in kind; anything else (a
     * modern one included: initialize is the legacy handshake) gets our
     * newest legacy revision. */
    const mcp__era *era = mcp__era_find(requested, vlen);
    if (!era || era->modern)
        era = mcp__era_latest(false);

    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    mcp__jw w;
    mcp__jw_response_start(&w, b, &msg->id, "result");
    mcp__jw_object(&w);
    mcp__jw_key(&w, "protocolVersion");
    mcp__jw_string(&w, era->version);
    mcp__jw_key(&w, "capabilities");
    mcp__write_caps(s, &w, era);
    mcp__jw_key(&w, "serverInfo");
    mcp__write_implementation(s, &w);
    if (s->instructions) {
        mcp__jw_key(&w, "instructions");
        mcp__jw_string(&w, s->instructions);
    }
    mcp__jw_object_end(&w);
    int rc = mcp__jw_envelope_end(&w);
    if (rc) {
        mcp__scratch_done(s, b, &local);
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INTERNAL_ERROR,
                        rc == MCP_ERR_UTF8 ? "Internal error: server info is not valid UTF-8"
                                           : "Internal error: out of memory",
                        NULL);
        return;
    }
    s->era = era;
    s->lifecycle = LC_READY;
    s->peer_msg = mcp_message_retain((mcp_message *)msg);
    s->peer_info = msg->params;
    s->peer_caps = mcp_json_object_get(msg->params, "capabilities");
    mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL, NULL, NULL, NULL, NULL, -1,
             "initialized: client asked for %.*s, speaking %s", (int)vlen, requested,
             era->version);
    mcp__emit_response(s, route, s->collecting, b);
    mcp__scratch_done(s, b, &local);
}

int mcp__log_level_parse(const mcp_json *v)
{
    size_t n;
    const char *name = mcp_json_string(v, &n);
    for (int l = MCP_LOG_DEBUG; name && l <= MCP_LOG_EMERGENCY; l++) {
        const char *k = mcp_log_level_name((mcp_log_level)l);
        if (strlen(k) == n && memcmp(k, name, n) == 0)
            return l;
    }
    return -1;
}

void mcp__server_set_level(mcp_session *s, uint64_t route, const mcp_message *msg)
{
    if (!mcp_json_object_get(mcp_json_doc_root(s->caps_doc), "logging")) {
        mcp__send_error(s, route, &msg->id, MCP_WIRE_METHOD_NOT_FOUND,
                        "Method not found: this server does not offer logging", NULL);
        return;
    }
    int level = mcp__log_level_parse(mcp_json_object_get(msg->params, "level"));
    if (level < 0) {
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INVALID_PARAMS,
                        "Invalid params: level must be one of debug, info, notice, warning, "
                        "error, critical, alert, emergency",
                        NULL);
        return;
    }
    s->legacy_log_level = level;
    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    if (mcp_encode_result(b, &msg->id, NULL) == MCP_OK)
        mcp__emit_response(s, route, s->collecting, b);
    mcp__scratch_done(s, b, &local);
}

/* Client ------------------------------------------------------------------------ */

static uint64_t remaining(const mcp_session *s, uint64_t now)
{
    return s->connect.deadline > now ? s->connect.deadline - now : 0;
}

/* method with params_raw: the params' members, without braces (may be
 * NULL: none). */
static int send_connect_request(mcp_session *s, uint64_t now, const char *method,
                                const char *params_raw, size_t params_len, uint64_t timeout_ms)
{
    uint64_t left = remaining(s, now);
    if (!left)
        return MCP_ERR_TIMED_OUT;
    mcp_request_options o = {.size = sizeof o,
                             .timeout_ms = timeout_ms < left ? timeout_ms : left,
                             .max_time_ms = left,
                             .progress = MCP_PROGRESS_NONE};
    outbound_spec sp = {.method = method,
                        .params_raw = params_raw,
                        .params_raw_len = params_len,
                        .opts = &o,
                        .kind = OUT_CONNECT,
                        .cancellable = false, /* never cancelled: settled locally */
                        .envelope = strcmp(method, "server/discover") == 0};
    return mcp__outbound_send(s, now, &sp, NULL);
}

static int send_initialize(mcp_session *s, uint64_t now, const mcp__era *era)
{
    /* The params' members, written once: the capabilities as the revision
     * asked for defines them. */
    mcp_buf b;
    mcp_buf_init(&b, 0, &s->mem);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "protocolVersion");
    mcp__jw_string(&w, era->version);
    mcp__jw_key(&w, "capabilities");
    mcp__write_caps(s, &w, era);
    mcp__jw_key(&w, "clientInfo");
    mcp__write_implementation(s, &w);
    mcp__jw_object_end(&w);
    int rc = mcp__jw_finish(&w);
    if (rc == MCP_ERR_UTF8)
        rc = MCP_ERR_INVALID_ARG;
    if (rc == MCP_OK) {
        s->connect.want = era;
        rc = send_connect_request(s, now, "initialize", b.data + 1, b.len - 2, UINT64_MAX);
    }
    mcp_buf_free(&b);
    return rc;
}

int mcp_session_connect(mcp_session *s, uint64_t now, const mcp_connect_options *opts,
                        mcp_response_fn cb, void *user_data)
{
    mcp_connect_options o;
    if (s->role != MCP_ROLE_CLIENT || s->lifecycle != LC_NEW)
        return MCP_ERR_STATE;
    if (s->closed)
        return MCP_ERR_CLOSED;
    if (!cb || mcp__opts_copy(&o, sizeof o, opts) != MCP_OK ||
        o.mode > MCP_CONNECT_MODERN || (o.queue_requests && o.mode != MCP_CONNECT_LEGACY))
        return MCP_ERR_INVALID_ARG;
    const mcp__era *want;
    if (o.version) {
        want = mcp__era_find(o.version, strlen(o.version));
        if (!want || !want->speaks || (o.mode == MCP_CONNECT_LEGACY && want->modern) ||
            (o.mode == MCP_CONNECT_MODERN && !want->modern) || o.mode == MCP_CONNECT_AUTO)
            return MCP_ERR_INVALID_ARG;
    } else {
        want = mcp__era_latest(o.mode != MCP_CONNECT_LEGACY);
    }
    uint64_t total = o.timeout_ms ? o.timeout_ms : s->timeout_ms;
    /* A silent legacy server costs the probe's wait: leave the handshake
     * that follows at least half of the whole. */
    uint64_t probe = o.probe_timeout_ms ? o.probe_timeout_ms : 3000;
    if (total != MCP_NO_TIMEOUT && probe > total / 2)
        probe = total / 2 ? total / 2 : 1;
    s->connect = (connect_state){o.mode, want, mcp__deadline(now, total), probe, cb,
                                 user_data, false, o.queue_requests};
    mcp__session_enter(s);
    s->now = now;
    s->lifecycle = LC_CONNECTING;
    int rc = o.mode == MCP_CONNECT_LEGACY
                 ? send_initialize(s, now, want)
                 : send_connect_request(s, now, "server/discover", NULL, 0,
                                        o.mode == MCP_CONNECT_AUTO ? s->connect.probe_ms
                                                                   : UINT64_MAX);
    if (rc != MCP_OK && s->lifecycle == LC_CONNECTING)
        s->lifecycle = LC_NEW;
    mcp__session_leave(s);
    return rc;
}

int mcp_session_initialize(mcp_session *s, uint64_t now, uint64_t timeout_ms,
                           mcp_response_fn cb, void *user_data)
{
    mcp_connect_options o = {.size = sizeof o, .mode = MCP_CONNECT_LEGACY,
                             .timeout_ms = timeout_ms};
    return mcp_session_connect(s, now, &o, cb, user_data);
}

/* The newest revision in `list` (a JSON array of strings) that we speak,
 * modern or legacy as asked; NULL when none. */
static const mcp__era *pick(const mcp_json *list, bool modern)
{
    const mcp__era *best = NULL;
    for (size_t i = 0; i < mcp_json_array_size(list); i++) {
        size_t n;
        const char *v = mcp_json_string(mcp_json_array_at(list, i), &n);
        const mcp__era *e = v ? mcp__era_find(v, n) : NULL;
        if (e && e->speaks && e->modern == modern &&
            (!best || strcmp(e->version, best->version) > 0))
            best = e;
    }
    return best;
}

/* Connected (or failed): tell the caller once. */
static void connect_done(mcp_session *s, int outcome, const mcp_message *msg)
{
    mcp_response_fn cb = s->connect.cb;
    void *ud = s->connect.user_data;
    if (outcome == MCP_OK) {
        s->lifecycle = LC_READY;
        s->peer_msg = mcp_message_retain((mcp_message *)msg);
        s->peer_info = msg->result;
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL, NULL, NULL, NULL, NULL, -1,
                 "connected: speaking %s", s->era->version);
    } else {
        s->lifecycle = LC_NEW;
        s->era = NULL;
        if (outcome == MCP_ERR_MAX_TIME)
            outcome = MCP_ERR_TIMED_OUT; /* the deadline of the whole connect */
    }
    /* What waited for it (queue_requests) goes, or ends, first. */
    s->connect.queue = false;
    mcp__outbound_flush_queued(s, s->now, outcome == MCP_OK && !s->closed);
    cb(ud, 0, outcome, msg);
}

/* What the answer to server/discover says about the server. */
static void discover_answered(mcp_session *s, int outcome, const mcp_message *msg)
{
    uint64_t now = s->now;
    const mcp_json *versions = NULL;
    bool modern_server = false;
    if (outcome == MCP_OK) {
        /* Only a DiscoverResult says "modern": a result without its list of
         * versions is some legacy server answering anything with {}. */
        versions = mcp_json_object_get(msg->result, "supportedVersions");
        modern_server = mcp_json_typeof(versions) == MCP_JSON_ARRAY;
        if (!modern_server)
            outcome = MCP_ERR_PROTOCOL;
    } else if (outcome == MCP_ERR_REMOTE &&
               msg->error_code == MCP_WIRE_UNSUPPORTED_VERSION) {
        versions = mcp_json_object_get(msg->error_data, "supported");
        modern_server = true;
    } else if (outcome == MCP_ERR_REMOTE &&
               (msg->error_code == MCP_WIRE_HEADER_MISMATCH ||
                msg->error_code == MCP_WIRE_MISSING_CAPABILITY)) {
        /* A recognised modern error: a modern server that will not serve
         * us; falling back would only mislead. */
        connect_done(s, MCP_ERR_REMOTE, msg);
        return;
    }
    if (modern_server) {
        const mcp__era *m = pick(versions, true);
        /* Refused the very version it names (a server mid-deploy behind a
         * balancer, one instance answering for another): ask once more,
         * then give up rather than loop. */
        if (m && outcome != MCP_OK && m == s->connect.want && s->connect.asked_again)
            m = NULL;
        else if (m && outcome != MCP_OK && m == s->connect.want)
            s->connect.asked_again = true;
        if (m && (s->connect.mode == MCP_CONNECT_AUTO || m == s->connect.want)) {
            s->era = m;
            if (outcome == MCP_OK) {
                connect_done(s, MCP_OK, msg);
                return;
            }
            /* Refused our version but offers another we speak: ask again. */
            s->era = NULL;
            s->connect.want = m;
            int rc = send_connect_request(s, now, "server/discover", NULL, 0, UINT64_MAX);
            if (rc != MCP_OK)
                connect_done(s, rc == MCP_ERR_CLOSED ? MCP_ERR_CLOSED : rc, NULL);
            return;
        }
        const mcp__era *l = pick(versions, false);
        if (s->connect.mode == MCP_CONNECT_AUTO && l) {
            int rc = send_initialize(s, now, l);
            if (rc != MCP_OK)
                connect_done(s, rc, NULL);
            return;
        }
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_BAD_INPUT, NULL, "server/discover",
                 "outbound", NULL, -1, "the server speaks no protocol revision we speak");
        connect_done(s, MCP_ERR_PROTOCOL, msg);
        return;
    }
    /* No answer, or an error that is not a modern one: a legacy server. */
    if (s->connect.mode == MCP_CONNECT_MODERN || outcome == MCP_ERR_CLOSED ||
        outcome == MCP_ERR_MAX_TIME || outcome == MCP_ERR_ABORTED) {
        connect_done(s, outcome == MCP_ERR_REMOTE && s->connect.mode == MCP_CONNECT_MODERN
                            ? MCP_ERR_PROTOCOL
                            : outcome,
                     msg);
        return;
    }
    mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL, NULL, "server/discover", "outbound",
             NULL, -1, "no 2026-07-28 answer (%s): trying initialize", mcp_strerror(outcome));
    int rc = send_initialize(s, now, mcp__era_latest(false));
    if (rc != MCP_OK)
        connect_done(s, rc, NULL);
}

static void initialize_answered(mcp_session *s, int outcome, const mcp_message *msg)
{
    if (outcome != MCP_OK) {
        connect_done(s, outcome, msg);
        return;
    }
    size_t vlen = 0;
    const char *v = mcp_json_string(mcp_json_object_get(msg->result, "protocolVersion"), &vlen);
    const mcp__era *era = v ? mcp__era_find(v, vlen) : NULL;
    if (!era || era->modern) {
        /* A version we do not speak: the spec says disconnect. */
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_BAD_INPUT, NULL, "initialize", "outbound",
                 NULL, -1, "server answered with unsupported protocol version %.*s",
                 v ? (int)vlen : 6, v ? v : "(none)");
        connect_done(s, MCP_ERR_PROTOCOL, msg);
        return;
    }
    s->era = era;
    int rc = mcp_session_notify(s, "notifications/initialized", NULL);
    connect_done(s, rc == MCP_ERR_CLOSED || s->closed ? MCP_ERR_CLOSED : MCP_OK,
                 rc == MCP_ERR_CLOSED || s->closed ? NULL : msg);
}

void mcp__connect_answered(mcp_session *s, outbound *o, int outcome,
                           const mcp_message *msg)
{
    if (s->lifecycle != LC_CONNECTING)
        return;
    if (strcmp(o->method, "server/discover") == 0)
        discover_answered(s, outcome, msg);
    else
        initialize_answered(s, outcome, msg);
}
