/* SPDX-License-Identifier: MIT */
/*
 * prompts/get: the arguments checked against the prompt's declaration
 * before its handler runs, and the shape its result must have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/methods/methods.h"

/* The most values one completion carries (server/utilities/completion.mdx). */

/* Why args do not fit prompt e (written to why), or NULL: an object of
 * strings, every required argument there, none it does not declare. */
static bool arguments_fit(const entry *e, const mcp_json *args, char *why, size_t size)
{
    char name[300];
    for (size_t i = 0; i < mcp_json_object_size(args); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(args, i, &k, &kn);
        size_t j = mcp__prompt_argument(e, k, kn);
        mcp__show_string(name, sizeof name, k, kn, 128, 300);
        if (j == e->nargs) {
            snprintf(why, size, "Invalid params: prompt %s has no argument %s", e->key, name);
            return false;
        }
        if (mcp_json_typeof(v) != MCP_JSON_STRING) {
            snprintf(why, size, "Invalid params: argument %s of prompt %s must be a string",
                     name, e->key);
            return false;
        }
    }
    for (size_t j = 0; j < e->nargs; j++)
        if (e->arg_required[j] && !mcp_json_object_get(args, e->arg_names[j])) {
            snprintf(why, size, "Invalid params: prompt %s needs the argument %s", e->key,
                     e->arg_names[j]);
            return false;
        }
    return true;
}

static void prompts_get(conn *cn, mcp_handle h, const mcp_message *msg, void *state)
{
    mcp_session *ss = cn->driver.session;
    size_t n;
    const char *name = mcp_json_string(mcp_json_object_get(msg->params, "name"), &n);
    const mcp_json *args = mcp_json_object_get(msg->params, "arguments");
    if (!name) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: prompts/get needs params.name, a string", NULL);
        return;
    }
    if (args && mcp_json_typeof(args) != MCP_JSON_OBJECT) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: prompts/get params.arguments must be an object",
                                NULL);
        return;
    }
    registry *snap = mcp__server_snapshot(cn->server);
    const entry *e = snap ? mcp__registry_entry(snap, LIST_PROMPTS, name, n) : NULL;
    char why[600];
    if (!e) {
        char s[300];
        mcp__show_string(s, sizeof s, name, n, 128, 300);
        snprintf(why, sizeof why, "Invalid params: unknown prompt %s", s);
    }
    if (!e || !arguments_fit(e, args, why, sizeof why)) {
        mcp_session_reply_error(ss, h, snap ? MCP_WIRE_INVALID_PARAMS : MCP_WIRE_INTERNAL_ERROR,
                                snap ? why : "Internal error: out of memory", NULL);
        mcp__registry_unref(snap);
        return;
    }
    mcp_call *c = mcp__call_new(cn, h, msg, snap, CALL_PROMPT);
    if (!c)
        return;
    c->entry = e;
    c->flags = e->flags;
    if (args)
        c->args = args;
    mcp__call_run(c);
}

const char *mcp__prompt_result_problem(const mcp_json *result)
{
    const mcp_json *messages = mcp_json_object_get(result, "messages");
    if (mcp_json_typeof(messages) != MCP_JSON_ARRAY)
        return "no messages array";
    for (size_t i = 0; i < mcp_json_array_size(messages); i++) {
        const mcp_json *m = mcp_json_array_at(messages, i);
        const char *role = mcp_json_string(mcp_json_object_get(m, "role"), NULL);
        if (!role || (strcmp(role, "user") && strcmp(role, "assistant")))
            return "a message whose role is not user or assistant";
        const mcp_json *content = mcp_json_object_get(m, "content");
        if (!mcp_json_string(mcp_json_object_get(content, "type"), NULL))
            return "a message without a content of a type";
    }
    return NULL;
}

static const mcp__method methods[] = {{"prompts/get", prompts_get, MCP__ERAS_ALL, 0, NULL}};

const mcp__feature mcp__prompts_get_feature = {
    .name = "prompts/get", .methods = methods, .nmethods = 1};
