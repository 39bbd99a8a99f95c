/* SPDX-License-Identifier: MIT */
/*
 * tools/call: the tool found in the request's snapshot, the capabilities
 * it needs declared by the client, its arguments checked against its
 * inputSchema before its handler runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/methods/methods.h"

/* Whether `have` declares everything `need` lists: each key present, and
 * for object values, recursively. */
static bool declares(const mcp_json *have, const mcp_json *need)
{
    for (size_t i = 0; i < mcp_json_object_size(need); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(need, i, &k, &kn);
        const mcp_json *h = mcp_json_object_getn(have, k, kn);
        if (!h || (mcp_json_typeof(v) == MCP_JSON_OBJECT && !declares(h, v)))
            return false;
    }
    return true;
}

/* Arguments that break the tool's inputSchema: the handler never sees them.
 * From 2025-11-25 on a tool error, which the model reads and can correct
 * (server/tools.mdx); before, a protocol error. */
static void refuse_arguments(mcp_call *c, int rc, const mcp_schema_error *e)
{
    char text[700];
    if (rc == MCP_ERR_SCHEMA_MISMATCH || rc == MCP_ERR_LIMIT)
        snprintf(text, sizeof text, "Invalid arguments for tool %s: %s%s %s (%s)", c->tool->name,
                 e->instance_path[0] ? "arguments" : "the arguments", e->instance_path,
                 e->message, e->keyword);
    else
        snprintf(text, sizeof text, "Internal error: the arguments could not be validated: %s",
                 mcp_strerror(rc));
    bool tool_error = c->req.version && strcmp(c->req.version, "2025-11-25") >= 0;
    if (rc == MCP_ERR_NOMEM)
        mcp_call_reply_error(c, MCP_WIRE_INTERNAL_ERROR, text);
    else if (tool_error)
        mcp_call_reply_tool_error(c, text);
    else {
        char params[760];
        snprintf(params, sizeof params, "Invalid params: %s", text);
        mcp_call_reply_error(c, MCP_WIRE_INVALID_PARAMS, params);
    }
}

const tool *mcp__tools_call_find(conn *cn, mcp_handle h, const mcp_message *msg,
                                 registry **snap_out, const mcp_json **args_out)
{
    *snap_out = NULL;
    mcp_session *ss = cn->driver.session;
    size_t nlen;
    const char *name = mcp_json_string(mcp_json_object_get(msg->params, "name"), &nlen);
    const mcp_json *args = mcp_json_object_get(msg->params, "arguments");
    if (!name) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: tools/call needs params.name, a string", NULL);
        return NULL;
    }
    if (args && mcp_json_typeof(args) != MCP_JSON_OBJECT) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: tools/call params.arguments must be an object",
                                NULL);
        return NULL;
    }
    registry *snap = mcp__server_snapshot(cn->server);
    const tool *t = snap ? mcp__registry_find(snap, name, nlen) : NULL;
    if (!t) {
        char text[200], shown[200];
        mcp__show_string(shown, sizeof shown, name, nlen, 128, 300);
        snprintf(text, sizeof text, "Unknown tool: %.185s", shown);
        mcp_session_reply_error(ss, h, snap ? MCP_WIRE_INVALID_PARAMS : MCP_WIRE_INTERNAL_ERROR,
                                snap ? text : "Internal error: out of memory", NULL);
        mcp__registry_unref(snap);
        return NULL;
    }
    if (t->required_caps &&
        !declares(mcp_session_inbound_client_capabilities(ss, h),
                  mcp_json_doc_root(t->required_caps))) {
        mcp_session_reply_missing_capability(ss, h, mcp_json_doc_root(t->required_caps));
        mcp__registry_unref(snap);
        return NULL;
    }
    *snap_out = snap;
    *args_out = args;
    return t;
}

void mcp__tools_call_start(conn *cn, mcp_handle h, const mcp_message *msg, registry *snap,
                           const tool *t, const mcp_json *args,
                           bool (*made)(mcp_call *c, void *arg), void *arg)
{
    mcp_call *c = mcp__call_new(cn, h, msg, snap, CALL_TOOL);
    if (!c)
        return;
    c->tool = t;
    c->flags = t->flags;
    if (args)
        c->args = args;
    if (made && !made(c, arg)) {
        mcp__request_end(&c->req, ANSWER_NONE, 0, NULL, 0);
        return;
    }
    mcp_schema_error e;
    int vr = mcp_schema_validate(t->input_check, c->args, &e);
    if (vr != MCP_OK) {
        refuse_arguments(c, vr, &e);
        return;
    }
    mcp__call_run(c);
}

static void tools_call(conn *cn, mcp_handle h, const mcp_message *msg, void *state)
{
    (void)state;
    registry *snap;
    const mcp_json *args;
    const tool *t = mcp__tools_call_find(cn, h, msg, &snap, &args);
    if (t)
        mcp__tools_call_start(cn, h, msg, snap, t, args, NULL, NULL);
}

static const mcp__method methods[] = {{"tools/call", tools_call, MCP__ERAS_ALL, 0, NULL}};

const mcp__feature mcp__tools_call_feature = {
    .name = "tools/call", .methods = methods, .nmethods = 1};
