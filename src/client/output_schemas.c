/* SPDX-License-Identifier: MIT */
/*
 * The output schemas of the tools a client has listed: a tool that declares
 * one must answer with structuredContent that satisfies it
 * (server/tools.mdx), and a client SHOULD check. Learned from every
 * tools/list result that passes through the client, compiled once, replaced
 * when the tool is listed again, forgotten when it is listed without one.
 * A schema the client cannot compile (or one referring to another
 * document) is not enforced: the server's fault should not make its results
 * unusable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "mcp/schema.h"

#define MAX_TOOLS 4096 /* schemas kept; past it, new tools go unchecked */

typedef struct output_schema {
    char *tool;
    mcp_schema *schema; /* NULL: declared but not usable */
} output_schema;

static output_schema *find(const mcp__output_schemas *o, const char *tool, size_t n)
{
    for (size_t i = 0; i < o->count; i++)
        if (strlen(o->items[i].tool) == n && !memcmp(o->items[i].tool, tool, n))
            return &o->items[i];
    return NULL;
}

static void forget(mcp__output_schemas *o, output_schema *e)
{
    free(e->tool);
    mcp_schema_free(e->schema);
    *e = o->items[--o->count];
}

void mcp__output_schemas_learn(mcp__output_schemas *o, const mcp_json *result)
{
    const mcp_json *tools = mcp_json_object_get(result, "tools");
    for (size_t i = 0; i < mcp_json_array_size(tools); i++) {
        const mcp_json *t = mcp_json_array_at(tools, i);
        size_t n;
        const char *name = mcp_json_string(mcp_json_object_get(t, "name"), &n);
        if (!name || memchr(name, '\0', n))
            continue;
        output_schema *e = find(o, name, n);
        const mcp_json *declared = mcp_json_object_get(t, "outputSchema");
        if (e)
            forget(o, e);
        if (!declared || o->count == MAX_TOOLS)
            continue;
        if (o->count == o->cap) {
            size_t cap = o->cap ? o->cap * 2 : 16;
            output_schema *items = realloc(o->items, cap * sizeof *items);
            if (!items)
                return;
            o->items = items;
            o->cap = cap;
        }
        char *copy = malloc(n + 1);
        if (!copy)
            return;
        memcpy(copy, name, n);
        copy[n] = '\0';
        mcp_schema *s = NULL;
        if (mcp_schema_compile(declared, NULL, &s, NULL, 0) != MCP_OK)
            s = NULL;
        o->items[o->count++] = (output_schema){copy, s};
    }
}

bool mcp__output_schemas_check(const mcp__output_schemas *o, const char *tool,
                               const mcp_json *result, char *why, size_t why_len)
{
    output_schema *e = tool ? find(o, tool, strlen(tool)) : NULL;
    bool is_error = false;
    mcp_json_get_bool(mcp_json_object_get(result, "isError"), &is_error);
    if (!e || !e->schema || is_error)
        return true;
    const mcp_json *structured = mcp_json_object_get(result, "structuredContent");
    if (!structured) {
        snprintf(why, why_len, "no structuredContent, though the tool declares an outputSchema");
        return false;
    }
    mcp_schema_error err;
    int rc = mcp_schema_validate(e->schema, structured, &err);
    if (rc == MCP_OK)
        return true;
    snprintf(why, why_len, "structuredContent%s %s (%s)", err.instance_path, err.message,
             err.keyword);
    return false;
}

void mcp__output_schemas_free(mcp__output_schemas *o)
{
    while (o->count)
        forget(o, &o->items[0]);
    free(o->items);
    memset(o, 0, sizeof *o);
}
