/* SPDX-License-Identifier: MIT */
/*
 * A tool as registered: its spec checked and copied once, its schemas
 * compiled once, its tools/list item serialized once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"
#include "json/writer.h"
#include "server/offer/offer.h"

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

/* The tool as tools/list shows it. */
static int tool_item(tool *t, const mcp_tool *spec)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "name");
    mcp__jw_string(&w, spec->name);
    if (spec->title) {
        mcp__jw_key(&w, "title");
        mcp__jw_string(&w, spec->title);
    }
    if (spec->description) {
        mcp__jw_key(&w, "description");
        mcp__jw_string(&w, spec->description);
    }
    mcp__jw_key(&w, "inputSchema");
    mcp__jw_value(&w, mcp_json_doc_root(t->input_schema));
    if (t->output_schema) {
        mcp__jw_key(&w, "outputSchema");
        mcp__jw_value(&w, mcp_json_doc_root(t->output_schema));
    }
    static const char *const support[] = {NULL, "optional", "required"};
    if (spec->task_support != MCP_TASK_FORBIDDEN) {
        mcp__jw_key(&w, "execution");
        mcp__jw_object(&w);
        mcp__jw_key(&w, "taskSupport");
        mcp__jw_string(&w, support[spec->task_support]);
        mcp__jw_object_end(&w);
    }
    int rc = mcp__catalog_extras(&w, spec->annotations, spec->icons, spec->meta);
    mcp__jw_object_end(&w);
    int frc = mcp__jw_finish(&w);
    if (rc == MCP_OK)
        rc = frc;
    if (rc != MCP_OK) {
        mcp_buf_free(&b);
        return rc;
    }
    t->l.item = b.data;
    t->l.item_len = b.len;
    return MCP_OK;
}

void mcp__tool_unref(tool *t)
{
    if (!t || atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
        return;
    free(t->l.item);
    free(t->name);
    mcp_json_doc_free(t->input_schema);
    mcp_json_doc_free(t->output_schema);
    mcp_schema_free(t->input_check);
    mcp_schema_free(t->output_check);
    mcp_json_doc_free(t->required_caps);
    mcp__scopes_free(t->scopes);
    free(t);
}

/* Whether a member of v, at any depth, is named key. */
static bool has_member(const mcp_json *v, const char *key, size_t len)
{
    if (mcp_json_typeof(v) == MCP_JSON_ARRAY) {
        for (size_t i = 0; i < mcp_json_array_size(v); i++)
            if (has_member(mcp_json_array_at(v, i), key, len))
                return true;
    } else if (mcp_json_typeof(v) == MCP_JSON_OBJECT) {
        for (size_t i = 0; i < mcp_json_object_size(v); i++) {
            const char *k;
            size_t n;
            const mcp_json *m = mcp_json_object_at(v, i, &k, &n);
            if ((n == len && memcmp(k, key, len) == 0) || has_member(m, key, len))
                return true;
        }
    }
    return false;
}

int mcp__tool_new(const mcp_tool *spec_in, tool **out, uint64_t seq)
{
    *out = NULL;
    mcp_tool spec;
    if (!spec_in || mcp__opts_copy(&spec, sizeof spec, spec_in) != MCP_OK || !spec.name ||
        !spec.handler || !valid_name(spec.name) ||
        (spec.title && mcp_utf8_validate(spec.title, strlen(spec.title), NULL)) ||
        (spec.description &&
         mcp_utf8_validate(spec.description, strlen(spec.description), NULL)) ||
        (unsigned)spec.task_support > MCP_TASK_REQUIRED)
        return MCP_ERR_INVALID_ARG;
    tool *t = calloc(1, sizeof *t);
    if (!t)
        return MCP_ERR_NOMEM;
    atomic_init(&t->refs, 1);
    int rc = parse_object(spec.input_schema ? spec.input_schema : "{\"type\":\"object\"}",
                          &t->input_schema);
    if (rc == MCP_OK)
        t->param_headers = has_member(mcp_json_doc_root(t->input_schema),
                                      MCP_LITERAL("x-mcp-header"));
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
    if (rc == MCP_OK)
        rc = mcp__scopes_copy(spec.scopes, &t->scopes);
    if (rc == MCP_OK)
        rc = tool_item(t, &spec);
    if (rc == MCP_OK) {
        t->name = strdup(spec.name);
        if (!t->name)
            rc = MCP_ERR_NOMEM;
    }
    if (rc != MCP_OK) {
        mcp__tool_unref(t);
        return rc;
    }
    t->l.seq = seq;
    t->handler = spec.handler;
    t->user_data = spec.user_data;
    t->flags = spec.flags;
    t->task_support = spec.task_support;
    *out = t;
    return MCP_OK;
}

