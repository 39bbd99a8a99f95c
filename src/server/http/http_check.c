/* SPDX-License-Identifier: MIT */
/*
 * 2026-07-28 mirrors body values into headers so that intermediaries can
 * route without parsing; a server that trusted one source while a proxy
 * trusted the other would be open to smuggling, so every mirrored header
 * must agree with the body (basic/transports/streamable-http.mdx, "Server
 * Validation"). Values that may be Base64-wrapped are decoded first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/http/http.h"
#include "transport/http_headers.h"

/* Whether header `name` decodes to exactly the len bytes at want. The
 * value is decoded into the listener's scratch buffer (loop thread). */
static bool header_equals(mcp__http_exchange *x, http_listener *l, const char *name,
                          const char *want, size_t len, char *why, size_t n)
{
    size_t vlen;
    const char *v = mcp__http_exchange_header_n(x, name, &vlen);
    if (!v) {
        snprintf(why, n, "Header mismatch: the %s header is required", name);
        return false;
    }
    mcp_buf *b = &l->scratch;
    mcp_buf_reset(b);
    int rc = mcp__http_value_decode(b, v, vlen);
    bool same = rc == MCP_OK && b->len == len && (!len || memcmp(b->data, want, len) == 0);
    if (rc != MCP_OK)
        snprintf(why, n, "Header mismatch: the %s header is not a valid value", name);
    else if (!same)
        snprintf(why, n, "Header mismatch: the %s header does not match the body", name);
    return same;
}

/* The header form of a parameter's value, copied so that a number can be
 * read with strtod (NUL-terminated). */
static bool header_form(const mcp_json *v, mcp_buf *out, bool *integer)
{
    const char *text;
    size_t len;
    return mcp__http_param_text(v, &text, &len, integer) &&
           mcp_buf_append(out, text, len) == MCP_OK;
}

/* Integers compare by value ("42.0" and "42" agree), the rest by bytes. */
static bool values_agree(const char *header, size_t hlen, const char *body, size_t blen,
                         bool integer)
{
    if (!integer)
        return hlen == blen && memcmp(header, body, hlen) == 0;
    char *end1, *end2;
    double a = strtod(header, &end1), b = strtod(body, &end2);
    return end1 == header + hlen && end2 == body + blen && a == b;
}

typedef struct header_count {
    const char *name;
    unsigned count;
} header_count;

static bool count_header(void *ud, const char *name, const char *value)
{
    (void)value;
    header_count *c = ud;
    if (strcasecmp(name, c->name) == 0)
        c->count++;
    return c->count < 2;
}

typedef struct param_walk {
    mcp__http_exchange *x;
    char *why;
    size_t n;
    bool ok;
} param_walk;

/* Visit the properties of schema (reachable only through `properties`),
 * with the matching part of the arguments (NULL when absent). */
static void check_params(param_walk *w, const mcp_json *schema, const mcp_json *args, int depth)
{
    const mcp_json *props = schema ? mcp_json_object_get(schema, "properties") : NULL;
    if (!props || mcp_json_typeof(props) != MCP_JSON_OBJECT || depth > 32)
        return;
    for (size_t i = 0; w->ok && i < mcp_json_object_size(props); i++) {
        const char *key;
        size_t klen;
        const mcp_json *sub = mcp_json_object_at(props, i, &key, &klen);
        const mcp_json *value =
            args && mcp_json_typeof(args) == MCP_JSON_OBJECT ? mcp_json_object_getn(args, key, klen)
                                                             : NULL;
        const mcp_json *mark = mcp_json_object_get(sub, "x-mcp-header");
        size_t mlen;
        const char *name = mark ? mcp_json_string(mark, &mlen) : NULL;
        if (name && mcp__http_token_valid(name, mlen) && mlen < 200) {
            char header[224];
            snprintf(header, sizeof header, "Mcp-Param-%.*s", (int)mlen, name);
            size_t got_len;
            const char *got = mcp__http_exchange_header_n(w->x, header, &got_len);
            header_count twice = {header, 0};
            mcp__http_exchange_headers(w->x, count_header, &twice);
            bool present = value && mcp_json_typeof(value) != MCP_JSON_NULL;
            if (twice.count > 1) {
                snprintf(w->why, w->n, "Header mismatch: %s appears more than once", header);
                w->ok = false;
            } else if (!present && got) {
                snprintf(w->why, w->n, "Header mismatch: %s is sent but the argument is absent",
                         header);
                w->ok = false;
            } else if (present) {
                mcp_buf want, have;
                bool integer;
                mcp_buf_init(&want, 0, NULL);
                mcp_buf_init(&have, 0, NULL);
                if (!got) {
                    snprintf(w->why, w->n, "Header mismatch: the %s header is required", header);
                    w->ok = false;
                } else if (!header_form(value, &want, &integer) ||
                           mcp__http_value_decode(&have, got, got_len) != MCP_OK ||
                           !values_agree(have.data ? have.data : "", have.len,
                                         want.data ? want.data : "", want.len, integer)) {
                    snprintf(w->why, w->n, "Header mismatch: the %s header does not match the body",
                             header);
                    w->ok = false;
                }
                mcp_buf_free(&want);
                mcp_buf_free(&have);
            }
        }
        check_params(w, sub, value, depth + 1);
    }
}

bool mcp__http_headers_match(mcp__http_exchange *x, const mcp_message *m, const char *bv,
                             size_t vlen, http_listener *l, char *why, size_t n)
{
    size_t hlen;
    const char *version = mcp__http_exchange_header_n(x, "MCP-Protocol-Version", &hlen);
    if (!version) {
        snprintf(why, n, "Header mismatch: the MCP-Protocol-Version header is required");
        return false;
    }
    /* A body without the envelope is the engine's to refuse (-32602). */
    if (bv && (hlen != vlen || memcmp(version, bv, vlen) != 0)) {
        /* The peer's bytes go into a JSON string: printable ASCII only (a
         * cut or invalid UTF-8 sequence made the whole answer empty). */
        char shown[41];
        size_t k = 0;
        for (size_t i = 0; i < hlen && k < sizeof shown - 1; i++)
            shown[k++] = version[i] >= 0x20 && version[i] < 0x7f ? version[i] : '?';
        shown[k] = '\0';
        snprintf(why, n, "Header mismatch: MCP-Protocol-Version %s does not match the "
                         "body's protocolVersion",
                 shown);
        return false;
    }
    if (!header_equals(x, l, "Mcp-Method", m->method, m->method_len, why, n))
        return false;
    /* The tasks extension routes its methods by the task's id (ext-tasks:
     * the client MUST set Mcp-Name to params.taskId). */
    const char *field = mcp_message_method_is(m, "tools/call") ||
                                mcp_message_method_is(m, "prompts/get")
                            ? "name"
                        : mcp_message_method_is(m, "resources/read") ? "uri"
                        : mcp_message_method_is(m, "tasks/get") ||
                                mcp_message_method_is(m, "tasks/update") ||
                                mcp_message_method_is(m, "tasks/cancel")
                            ? "taskId"
                            : NULL;
    if (!field)
        return true;
    const mcp_json *v = m->params ? mcp_json_object_get(m->params, field) : NULL;
    size_t len = 0;
    const char *want = v ? mcp_json_string(v, &len) : NULL;
    if (!want)
        return true; /* the engine answers the missing name */
    if (!header_equals(x, l, "Mcp-Name", want, len, why, n))
        return false;
    if (!mcp_message_method_is(m, "tools/call"))
        return true;
    registry *r = mcp__server_snapshot(l->server);
    const tool *t = r ? mcp__registry_find(r, want, len) : NULL;
    param_walk w = {x, why, n, true};
    if (t && t->input_schema && t->param_headers)
        check_params(&w, mcp_json_doc_root(t->input_schema),
                     mcp_json_object_get(m->params, "arguments"), 0);
    mcp__registry_unref(r);
    return w.ok;
}
