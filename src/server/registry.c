/* SPDX-License-Identifier: MIT */
/*
 * The registry: tools as registered, and the immutable snapshots served
 * from them. A snapshot serializes its tools/list answers once, so
 * answering one costs a copy of bytes, not a document build; a new snapshot
 * replaces it when the tools change, while requests that started with the
 * old one keep it until they end.
 */
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"
#include "json/writer.h"
#include "server/internal.h"

static bool valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 128)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return false;
    }
    return true;
}

static char *dup_opt(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Parse JSON text that must be an object. */
static int parse_object(const char *text, mcp_json_doc **out)
{
    *out = NULL;
    if (!text)
        return MCP_OK;
    int rc = mcp_json_parse(text, strlen(text), NULL, NULL, out, NULL);
    if (rc == MCP_ERR_NOMEM)
        return rc;
    if (rc != MCP_OK || mcp_json_typeof(mcp_json_doc_root(*out)) != MCP_JSON_OBJECT) {
        mcp_json_doc_free(*out);
        *out = NULL;
        return MCP_ERR_INVALID_ARG;
    }
    return MCP_OK;
}

void mcp__tool_unref(tool *t)
{
    if (!t || atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
        return;
    free(t->name);
    free(t->title);
    free(t->description);
    mcp_json_doc_free(t->input_schema);
    mcp_json_doc_free(t->output_schema);
    mcp_schema_free(t->input_check);
    mcp_schema_free(t->output_check);
    mcp_json_doc_free(t->required_caps);
    free(t);
}

int mcp__tool_new(const mcp_tool *spec_in, tool **out)
{
    *out = NULL;
    mcp_tool spec;
    if (!spec_in || mcp__opts_copy(&spec, sizeof spec, spec_in) != MCP_OK || !spec.name ||
        !spec.handler || !valid_name(spec.name) ||
        (spec.title && mcp_utf8_validate(spec.title, strlen(spec.title), NULL)) ||
        (spec.description &&
         mcp_utf8_validate(spec.description, strlen(spec.description), NULL)))
        return MCP_ERR_INVALID_ARG;
    tool *t = calloc(1, sizeof *t);
    if (!t)
        return MCP_ERR_NOMEM;
    atomic_init(&t->refs, 1);
    int rc = parse_object(spec.input_schema ? spec.input_schema : "{\"type\":\"object\"}",
                          &t->input_schema);
    if (rc == MCP_OK)
        rc = parse_object(spec.output_schema, &t->output_schema);
    if (rc == MCP_OK)
        rc = mcp_schema_compile(mcp_json_doc_root(t->input_schema), NULL, &t->input_check,
                                NULL, 0);
    if (rc == MCP_OK && t->output_schema)
        rc = mcp_schema_compile(mcp_json_doc_root(t->output_schema), NULL, &t->output_check,
                                NULL, 0);
    if (rc == MCP_OK)
        rc = parse_object(spec.required_client_capabilities, &t->required_caps);
    if (rc == MCP_OK) {
        t->name = strdup(spec.name);
        t->title = dup_opt(spec.title);
        t->description = dup_opt(spec.description);
        if (!t->name || (spec.title && !t->title) || (spec.description && !t->description))
            rc = MCP_ERR_NOMEM;
    }
    if (rc != MCP_OK) {
        mcp__tool_unref(t);
        return rc;
    }
    t->handler = spec.handler;
    t->user_data = spec.user_data;
    t->flags = spec.flags;
    *out = t;
    return MCP_OK;
}

/* {"tools":[...]} and, for 2026-07-28, the caching hints. */
static int serialize(registry *r, bool modern, uint64_t ttl_ms, mcp_cache_scope scope,
                     char **text, size_t *len)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "tools");
    mcp__jw_array(&w);
    for (size_t i = 0; i < r->ntools; i++) {
        const tool *t = r->tools[i];
        mcp__jw_object(&w);
        mcp__jw_key(&w, "name");
        mcp__jw_string(&w, t->name);
        if (t->title) {
            mcp__jw_key(&w, "title");
            mcp__jw_string(&w, t->title);
        }
        if (t->description) {
            mcp__jw_key(&w, "description");
            mcp__jw_string(&w, t->description);
        }
        mcp__jw_key(&w, "inputSchema");
        mcp__jw_value(&w, mcp_json_doc_root(t->input_schema));
        if (t->output_schema) {
            mcp__jw_key(&w, "outputSchema");
            mcp__jw_value(&w, mcp_json_doc_root(t->output_schema));
        }
        mcp__jw_object_end(&w);
    }
    mcp__jw_array_end(&w);
    if (modern) {
        mcp__jw_key(&w, "ttlMs");
        mcp__jw_int(&w, ttl_ms > INT64_MAX ? INT64_MAX : (int64_t)ttl_ms);
        mcp__jw_key(&w, "cacheScope");
        mcp__jw_string(&w, scope == MCP_CACHE_PRIVATE ? "private" : "public");
    }
    mcp__jw_object_end(&w);
    int rc = mcp__jw_finish(&w);
    if (rc != MCP_OK) {
        mcp_buf_free(&b);
        return rc;
    }
    *text = b.data; /* the buffer's allocation is plain malloc */
    *len = b.len;
    return MCP_OK;
}

registry *mcp__registry_build(tool *const *tools, size_t n, uint64_t ttl_ms,
                              mcp_cache_scope scope)
{
    registry *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    atomic_init(&r->refs, 1);
    r->tools = n ? calloc(n, sizeof *r->tools) : NULL;
    if (n && !r->tools) {
        free(r);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        atomic_fetch_add(&tools[i]->refs, 1);
        r->tools[r->ntools++] = tools[i];
    }
    if (serialize(r, false, ttl_ms, scope, &r->list_legacy, &r->list_legacy_len) != MCP_OK ||
        serialize(r, true, ttl_ms, scope, &r->list_modern, &r->list_modern_len) != MCP_OK) {
        mcp__registry_unref(r);
        return NULL;
    }
    return r;
}

void mcp__registry_ref(registry *r)
{
    atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}

void mcp__registry_unref(registry *r)
{
    if (!r || atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (size_t i = 0; i < r->ntools; i++)
        mcp__tool_unref(r->tools[i]);
    free(r->tools);
    free(r->list_legacy);
    free(r->list_modern);
    free(r);
}

const tool *mcp__registry_find(const registry *r, const char *name, size_t len)
{
    for (size_t i = 0; i < r->ntools; i++)
        if (strlen(r->tools[i]->name) == len && memcmp(r->tools[i]->name, name, len) == 0)
            return r->tools[i];
    return NULL;
}
