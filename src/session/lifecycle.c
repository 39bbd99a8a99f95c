/*
 * The legacy handshake (2025-06-18, 2025-11-25 and the older revisions we
 * accept): initialize, its result, notifications/initialized. The server
 * answers the client's version when it speaks or accepts it, else its
 * latest; the client refuses a version it does not know.
 */
#include <stdio.h>
#include <string.h>

#include "session/internal.h"

/* `"key":"value"` with value checked and escaped. */
static int put_string_member(mcp_buf *b, const char *key, const char *value)
{
    int rc = mcp__put_key(b, key);
    return rc ? rc : mcp_json_write_string(value, strlen(value), b);
}

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
                        "Invalid request: initialize was already received");
        return;
    }
    const char *bad = check_initialize_params(msg->params);
    if (bad) {
        mcp__log(s, MCP_LOG_WARN, MCP_LOG_EVENT_BAD_INPUT, &msg->id, "initialize",
                 "inbound", NULL, -1, "%s:", bad);
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INVALID_PARAMS, bad);
        return;
    }
    size_t vlen;
    const char *requested =
        mcp_json_string(mcp_json_object_get(msg->params, "protocolVersion"), &vlen);
    const mcp__era *era = mcp__era_find(requested, vlen);
    if (!era)
        era = mcp__era_latest();

    mcp_buf local;
    mcp_buf *b = mcp__scratch(s, &local);
    int rc = mcp__put(b, "{\"jsonrpc\":\"2.0\",\"id\":");
    if (!rc) rc = mcp_id_write(&msg->id, b);
    if (!rc) rc = mcp__put(b, ",\"result\":{");
    if (!rc) rc = put_string_member(b, "protocolVersion", era->version);
    if (!rc) rc = mcp__put(b, ",\"capabilities\":");
    if (!rc) rc = mcp_json_write(mcp_json_doc_root(s->caps_doc), b);
    if (!rc) rc = mcp__put(b, ",\"serverInfo\":{");
    if (!rc) rc = put_string_member(b, "name", s->name);
    if (!rc) rc = mcp__put(b, ",");
    if (!rc) rc = put_string_member(b, "version", s->version);
    if (!rc) rc = mcp__put(b, "}");
    if (!rc && s->instructions) {
        rc = mcp__put(b, ",");
        if (!rc) rc = put_string_member(b, "instructions", s->instructions);
    }
    if (!rc) rc = mcp__put(b, "}}\n");
    if (rc) {
        mcp__scratch_done(s, b, &local);
        mcp__send_error(s, route, &msg->id, MCP_WIRE_INTERNAL_ERROR,
                        rc == MCP_ERR_UTF8 ? "Internal error: server info is not valid UTF-8"
                                           : "Internal error: out of memory");
        return;
    }
    s->era = era;
    s->lifecycle = LC_READY;
    s->peer_msg = mcp_message_retain((mcp_message *)msg);
    s->peer_info = msg->params;
    mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL, NULL, NULL, NULL, NULL, -1,
             "initialized: client asked for %.*s, speaking %s", (int)vlen, requested,
             era->version);
    mcp__emit(s, route, b);
    mcp__scratch_done(s, b, &local);
}

int mcp_session_initialize(mcp_session *s, uint64_t now, uint64_t timeout_ms,
                           mcp_response_fn cb, void *user_data)
{
    if (s->role != MCP_ROLE_CLIENT || s->lifecycle != LC_NEW || !cb)
        return s->role != MCP_ROLE_CLIENT || s->lifecycle != LC_NEW ? MCP_ERR_STATE
                                                                    : MCP_ERR_INVALID_ARG;
    mcp__session_enter(s);
    mcp_json_doc *doc = mcp_json_doc_new(&s->mem);
    int rc = MCP_ERR_NOMEM;
    if (doc) {
        mcp_json *p = mcp_json_new_object(doc);
        mcp_json *info = mcp_json_new_object(doc);
        mcp_json_object_set(doc, p, "protocolVersion",
                            mcp_json_new_string(doc, mcp__era_latest()->version));
        mcp_json_object_set(doc, p, "capabilities",
                            mcp_json_copy(doc, mcp_json_doc_root(s->caps_doc)));
        mcp_json_object_set(doc, info, "name", mcp_json_new_string(doc, s->name));
        mcp_json_object_set(doc, info, "version", mcp_json_new_string(doc, s->version));
        mcp_json_object_set(doc, p, "clientInfo", info);
        rc = mcp_json_doc_error(doc);
        if (rc == MCP_OK) {
            mcp_request_options o = {.timeout_ms = timeout_ms, .progress = MCP_PROGRESS_NONE};
            s->init_cb = cb;
            s->init_ud = user_data;
            /* initialize is never cancellable: a timeout settles it locally. */
            rc = mcp__outbound_send(s, now, "initialize", p, &o, false, true, NULL, NULL,
                                    NULL, NULL);
        }
        mcp_json_doc_free(doc);
    }
    if (rc == MCP_OK)
        s->lifecycle = LC_INITIALIZING;
    mcp__session_leave(s);
    return rc;
}

void mcp__client_init_done(mcp_session *s, mcp_handle h, int outcome,
                           const mcp_message *msg)
{
    mcp_response_fn cb = s->init_cb;
    void *ud = s->init_ud;
    if (outcome == MCP_OK) {
        size_t vlen = 0;
        const char *v = mcp_json_string(mcp_json_object_get(msg->result, "protocolVersion"),
                                        &vlen);
        const mcp__era *era = v ? mcp__era_find(v, vlen) : NULL;
        if (!era) {
            /* A version we do not speak: the spec says disconnect. */
            mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_BAD_INPUT, NULL, "initialize",
                     "outbound", NULL, -1, "server answered with unsupported protocol version %.*s",
                     v ? (int)vlen : 6, v ? v : "(none)");
            s->lifecycle = LC_NEW;
            cb(ud, h, MCP_ERR_PROTOCOL, msg);
            return;
        }
        s->era = era;
        s->lifecycle = LC_READY;
        s->peer_msg = mcp_message_retain((mcp_message *)msg);
        s->peer_info = msg->result;
        mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL, NULL, NULL, NULL, NULL, -1,
                 "initialized: speaking %s", era->version);
        mcp_session_notify(s, "notifications/initialized", NULL);
    } else {
        s->lifecycle = LC_NEW;
    }
    cb(ud, h, outcome, msg);
}
