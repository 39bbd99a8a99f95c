/* SPDX-License-Identifier: MIT */
/*
 * completion/complete: suggestions for a prompt's argument or a resource
 * template's variable, by their handlers; an empty completion when they
 * have none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/methods/methods.h"

/* The most values one completion carries (server/utilities/completion.mdx). */
#define MAX_COMPLETION_VALUES 100

/* Whether template e has a variable of that name. */
static bool has_variable(const entry *e, const char *name, size_t n)
{
    size_t count = mcp_uri_template_variable_count(e->tmpl);
    for (size_t i = 0; i < count; i++) {
        size_t vn;
        const char *v = mcp_uri_template_variable_name(e->tmpl, i, &vn);
        if (vn == n && !memcmp(v, name, n))
            return true;
    }
    return false;
}

/* context (CompleteRequestParams): absent, null, or an object whose
 * optional arguments is an object of strings. */
static bool context_ok(const mcp_json *context)
{
    if (!context || mcp_json_typeof(context) == MCP_JSON_NULL)
        return true;
    if (mcp_json_typeof(context) != MCP_JSON_OBJECT)
        return false;
    const mcp_json *args = mcp_json_object_get(context, "arguments");
    if (!args)
        return true;
    if (mcp_json_typeof(args) != MCP_JSON_OBJECT)
        return false;
    for (size_t i = 0; i < mcp_json_object_size(args); i++)
        if (mcp_json_typeof(mcp_json_object_at(args, i, NULL, NULL)) != MCP_JSON_STRING)
            return false;
    return true;
}

static void completion_complete(conn *cn, mcp_handle h, const mcp_message *msg,
                                void *state)
{
    mcp_session *ss = cn->driver.session;
    const mcp_json *ref = mcp_json_object_get(msg->params, "ref");
    const mcp_json *argument = mcp_json_object_get(msg->params, "argument");
    const char *type = mcp_json_string(mcp_json_object_get(ref, "type"), NULL);
    bool prompt = type && !strcmp(type, "ref/prompt");
    bool resource = type && !strcmp(type, "ref/resource");
    size_t kn, an;
    const char *key = mcp_json_string(mcp_json_object_get(ref, prompt ? "name" : "uri"), &kn);
    const char *arg = mcp_json_string(mcp_json_object_get(argument, "name"), &an);
    const mcp_json *context = mcp_json_object_get(msg->params, "context");
    const char *bad = !prompt && !resource ? "params.ref.type must be ref/prompt or ref/resource"
                      : !key ? (prompt ? "params.ref.name must be a string"
                                       : "params.ref.uri must be a string")
                      : !arg ? "params.argument.name must be a string"
                      : !mcp_json_string(mcp_json_object_get(argument, "value"), NULL)
                          ? "params.argument.value must be a string"
                      : !context_ok(context) ? "params.context.arguments must be an object of strings"
                          : NULL;
    char why[600];
    if (bad) {
        snprintf(why, sizeof why, "Invalid params: %s", bad);
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS, why, NULL);
        return;
    }
    registry *snap = mcp__server_snapshot(cn->server);
    const entry *e =
        snap ? mcp__registry_entry(snap, prompt ? LIST_PROMPTS : LIST_TEMPLATES, key, kn) : NULL;
    char s[300], a[300];
    mcp__show_string(s, sizeof s, key, kn, 128, 300);
    mcp__show_string(a, sizeof a, arg, an, 128, 300);
    if (!e)
        snprintf(why, sizeof why, "Invalid params: unknown %s %s",
                 prompt ? "prompt" : "resource template", s);
    else if (prompt ? mcp__prompt_argument(e, arg, an) == e->nargs : !has_variable(e, arg, an))
        snprintf(why, sizeof why, "Invalid params: %s %.200s has no %s %.200s",
                 prompt ? "prompt" : "resource template", s, prompt ? "argument" : "variable", a);
    else
        why[0] = '\0';
    if (why[0] || !snap) {
        mcp_session_reply_error(ss, h, snap ? MCP_WIRE_INVALID_PARAMS : MCP_WIRE_INTERNAL_ERROR,
                                snap ? why : "Internal error: out of memory", NULL);
        mcp__registry_unref(snap);
        return;
    }
    if (!e->complete) {
        /* Nothing to suggest: an empty completion, not an error. */
        mcp__registry_unref(snap);
        static const char empty[] = "{\"completion\":{\"values\":[],\"hasMore\":false}}";
        mcp_session_reply_raw(ss, h, empty, sizeof empty - 1);
        return;
    }
    mcp_call *c = mcp__call_new(cn, h, msg, snap, CALL_COMPLETE);
    if (!c)
        return;
    c->entry = e;
    c->flags = e->flags;
    c->args = msg->params;
    mcp__call_run(c);
}

int mcp_call_reply_completion(mcp_call *c, const char *const *values, size_t count,
                              int64_t total, bool has_more)
{
    if (c->kind != CALL_COMPLETE)
        return MCP_ERR_STATE;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "completion");
    mcp__jw_object(&w);
    mcp__jw_key(&w, "values");
    mcp__jw_array(&w);
    int rc = count && !values ? MCP_ERR_INVALID_ARG : MCP_OK;
    size_t n = count > MAX_COMPLETION_VALUES ? MAX_COMPLETION_VALUES : count;
    for (size_t i = 0; i < n && rc == MCP_OK; i++) {
        if (!values[i] || mcp_utf8_validate(values[i], strlen(values[i]), NULL) != MCP_OK)
            rc = MCP_ERR_INVALID_ARG;
        else
            mcp__jw_string(&w, values[i]);
    }
    mcp__jw_array_end(&w);
    if (total >= 0) {
        mcp__jw_key(&w, "total");
        mcp__jw_int(&w, total);
    }
    mcp__jw_key(&w, "hasMore");
    mcp__jw_bool(&w, has_more || count > n);
    mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    int frc = mcp__jw_finish(&w);
    return mcp__call_end_buffer(c, rc == MCP_OK ? frc : rc, &b);
}

const char *mcp__completion_result_problem(const mcp_json *result)
{
    const mcp_json *values = mcp_json_object_get(mcp_json_object_get(result, "completion"),
                                                 "values");
    if (mcp_json_typeof(values) != MCP_JSON_ARRAY)
        return "no completion.values array";
    if (mcp_json_array_size(values) > MAX_COMPLETION_VALUES)
        return "more than 100 completion values";
    for (size_t i = 0; i < mcp_json_array_size(values); i++)
        if (!mcp_json_string(mcp_json_array_at(values, i), NULL))
            return "a completion value that is not a string";
    return NULL;
}

static const mcp__method methods[] = {
    {"completion/complete", completion_complete, MCP__ERAS_ALL, 0, NULL}};

const mcp__feature mcp__completion_feature = {
    .name = "completion/complete", .methods = methods, .nmethods = 1};
