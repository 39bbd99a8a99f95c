/* SPDX-License-Identifier: MIT */
/*
 * resources/read: a resource by its URI, else the first template that
 * matches it; the revision's not-found error; the ways a read is answered
 * and the shape a read's result must have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "server/methods/methods.h"

/* The longest URI read. */
#define MAX_READ_URI 65536

/* params.uri: a string of UTF-8 without NUL, at most MAX_READ_URI bytes;
 * else h is answered -32602 and NULL returned. */
const char *mcp__uri_param(mcp_session *ss, mcp_handle h, const mcp_message *msg, size_t *n)
{
    const char *uri = mcp_json_string(mcp_json_object_get(msg->params, "uri"), n);
    const char *why = !uri                    ? "Invalid params: params.uri must be a string"
                      : !*n                   ? "Invalid params: params.uri is empty"
                      : *n > MAX_READ_URI     ? "Invalid params: params.uri is over 64 KiB"
                      : strlen(uri) != *n     ? "Invalid params: params.uri has a NUL character"
                                              : NULL;
    if (why) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS, why, NULL);
        return NULL;
    }
    return uri;
}

/* resources/read ------------------------------------------------------------------- */

static void resources_read(conn *cn, mcp_handle h, const mcp_message *msg, void *state)
{
    mcp_session *ss = cn->driver.session;
    size_t n;
    const char *uri = mcp__uri_param(ss, h, msg, &n);
    if (!uri)
        return;
    registry *snap = mcp__server_snapshot(cn->server);
    if (!snap) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory",
                                NULL);
        return;
    }
    mcp_json_doc *vars = NULL;
    bool nomem;
    const entry *e = mcp__registry_read_entry(snap, uri, n, &vars, &nomem);
    if (!e) {
        mcp__registry_unref(snap);
        mcp__reply_not_found(ss, h, mcp_json_object_get(msg->params, "uri"));
        return;
    }
    mcp_call *c = mcp__call_new(cn, h, msg, snap, CALL_READ);
    if (!c) {
        mcp_json_doc_free(vars);
        return;
    }
    c->entry = e;
    c->flags = e->flags;
    if (vars) {
        c->own_args = vars;
        c->args = mcp_json_doc_root(vars);
    }
    mcp__call_run(c);
}

int mcp__read_hints(const mcp_call *c, bool comma, mcp_buf *b)
{
    const mcp_server *s = c->req.conn->server;
    char hints[96];
    int n = snprintf(hints, sizeof hints, "%s\"ttlMs\":%llu,\"cacheScope\":\"%s\"",
                     comma ? "," : "",
                     (unsigned long long)(s->opts.cache_ttl_ms > INT64_MAX ? INT64_MAX
                                                                         : s->opts.cache_ttl_ms),
                     s->opts.cache_scope == MCP_CACHE_PRIVATE ? "private" : "public");
    return mcp_buf_append(b, hints, (size_t)n);
}

/* One content of the URI read: {"contents":[{"uri","mimeType",<key>}]},
 * the value already JSON (a string) in v. */
static int one_content(mcp_call *c, const char *mime_type, const char *key, const char *v,
                       size_t vn, mcp_buf *b)
{
    if (mime_type && mcp_utf8_validate(mime_type, strlen(mime_type), NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    const char *uri = mcp_call_uri(c);
    int rc = mcp_buf_append(b, MCP_LITERAL("{\"contents\":[{\"uri\":"));
    if (rc == MCP_OK)
        rc = mcp_json_write_string(uri, strlen(uri), b);
    if (rc == MCP_OK && mime_type) {
        rc = mcp_buf_append(b, MCP_LITERAL(",\"mimeType\":"));
        if (rc == MCP_OK)
            rc = mcp_json_write_string(mime_type, strlen(mime_type), b);
    }
    if (rc == MCP_OK) {
        char head[16];
        int hn = snprintf(head, sizeof head, ",\"%s\":", key);
        rc = mcp_buf_append(b, head, (size_t)hn);
    }
    if (rc == MCP_OK)
        rc = mcp_buf_append(b, v, vn);
    if (rc == MCP_OK)
        rc = mcp_buf_append(b, MCP_LITERAL("}]"));
    if (rc == MCP_OK && mcp__call_modern(c))
        rc = mcp__read_hints(c, true, b);
    if (rc == MCP_OK)
        rc = mcp_buf_append(b, MCP_LITERAL("}"));
    return rc;
}

int mcp_call_reply_resource_text(mcp_call *c, const char *mime_type, const char *text,
                                 size_t text_len)
{
    if (c->kind != CALL_READ)
        return MCP_ERR_STATE;
    mcp_buf v, b;
    mcp_buf_init(&v, 0, NULL);
    mcp_buf_init(&b, 0, NULL);
    int rc = !text || mcp_utf8_validate(text, text_len, NULL) != MCP_OK
                 ? MCP_ERR_INVALID_ARG
                 : mcp_json_write_string(text, text_len, &v);
    if (rc == MCP_OK)
        rc = one_content(c, mime_type, "text", v.data, v.len, &b);
    mcp_buf_free(&v);
    return mcp__call_end_buffer(c, rc, &b);
}

int mcp_call_reply_resource_blob(mcp_call *c, const char *mime_type, const void *data, size_t len)
{
    if (c->kind != CALL_READ)
        return MCP_ERR_STATE;
    mcp_buf v, b;
    mcp_buf_init(&v, 0, NULL);
    mcp_buf_init(&b, 0, NULL);
    int rc = !data && len ? MCP_ERR_INVALID_ARG : mcp_buf_append(&v, MCP_LITERAL("\""));
    if (rc == MCP_OK)
        rc = mcp__base64_encode(&v, data, len);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&v, MCP_LITERAL("\""));
    if (rc == MCP_OK)
        rc = one_content(c, mime_type, "blob", v.data, v.len, &b);
    mcp_buf_free(&v);
    return mcp__call_end_buffer(c, rc, &b);
}

int mcp_call_reply_resource_not_found(mcp_call *c)
{
    if (c->kind != CALL_READ)
        return MCP_ERR_STATE;
    return mcp__request_end(&c->req, ANSWER_NOT_FOUND, 0, NULL, 0);
}

const char *mcp__read_result_problem(const mcp_json *result)
{
    const mcp_json *contents = mcp_json_object_get(result, "contents");
    if (mcp_json_typeof(contents) != MCP_JSON_ARRAY)
        return "no contents array";
    for (size_t i = 0; i < mcp_json_array_size(contents); i++) {
        const mcp_json *one = mcp_json_array_at(contents, i);
        if (!mcp_json_string(mcp_json_object_get(one, "uri"), NULL))
            return "a content without a uri";
        const char *blob = mcp_json_string(mcp_json_object_get(one, "blob"), NULL);
        if (!mcp_json_string(mcp_json_object_get(one, "text"), NULL) && !blob)
            return "a content with neither text nor blob";
        size_t bn;
        blob = mcp_json_string(mcp_json_object_get(one, "blob"), &bn);
        if (blob && !mcp__base64_valid(blob, bn))
            return "a blob that is not Base64";
    }
    return NULL;
}

static const mcp__method methods[] = {{"resources/read", resources_read, MCP__ERAS_ALL, 0, NULL}};

const mcp__feature mcp__resources_read_feature = {
    .name = "resources/read", .methods = methods, .nmethods = 1};
