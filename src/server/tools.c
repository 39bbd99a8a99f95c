/*
 * The tool registry. Tools are registered before serving; the tools/list
 * result is serialized once when serving starts, so answering it costs one
 * copy of bytes, not a document build.
 */
#include <stdlib.h>
#include <string.h>

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

/* Parse a schema; it must be a JSON object. */
static int parse_schema(const char *text, mcp_json_doc **out)
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

static void free_tool(tool *t)
{
    free(t->name);
    free(t->title);
    free(t->description);
    mcp_json_doc_free(t->input_schema);
    mcp_json_doc_free(t->output_schema);
}

int mcp_server_add_tool(mcp_server *s, const mcp_tool *spec)
{
    if (s->serving)
        return MCP_ERR_STATE;
    if (!spec || !spec->name || !spec->handler || !valid_name(spec->name) ||
        mcp__server_find_tool(s, spec->name, strlen(spec->name)))
        return MCP_ERR_INVALID_ARG;
    if ((spec->title && mcp_utf8_validate(spec->title, strlen(spec->title), NULL)) ||
        (spec->description &&
         mcp_utf8_validate(spec->description, strlen(spec->description), NULL)))
        return MCP_ERR_INVALID_ARG;
    tool t = {0};
    int rc = parse_schema(spec->input_schema ? spec->input_schema : "{\"type\":\"object\"}",
                          &t.input_schema);
    if (rc == MCP_OK)
        rc = parse_schema(spec->output_schema, &t.output_schema);
    if (rc != MCP_OK) {
        free_tool(&t);
        return rc;
    }
    t.name = strdup(spec->name);
    t.title = dup_opt(spec->title);
    t.description = dup_opt(spec->description);
    t.handler = spec->handler;
    t.user_data = spec->user_data;
    t.flags = spec->flags;
    if (!t.name || (spec->title && !t.title) || (spec->description && !t.description)) {
        free_tool(&t);
        return MCP_ERR_NOMEM;
    }
    if (s->ntools == s->tools_cap) {
        size_t cap = s->tools_cap ? s->tools_cap * 2 : 8;
        tool *n = realloc(s->tools, cap * sizeof *n);
        if (!n) {
            free_tool(&t);
            return MCP_ERR_NOMEM;
        }
        s->tools = n;
        s->tools_cap = cap;
    }
    s->tools[s->ntools++] = t;
    return MCP_OK;
}

const tool *mcp__server_find_tool(const mcp_server *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->ntools; i++)
        if (strlen(s->tools[i].name) == len && memcmp(s->tools[i].name, name, len) == 0)
            return &s->tools[i];
    return NULL;
}

int mcp__server_build_tools_list(mcp_server *s)
{
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    if (!doc)
        return MCP_ERR_NOMEM;
    mcp_json *result = mcp_json_new_object(doc);
    mcp_json *list = mcp_json_new_array(doc);
    for (size_t i = 0; i < s->ntools; i++) {
        const tool *t = &s->tools[i];
        mcp_json *o = mcp_json_new_object(doc);
        mcp_json_object_set(doc, o, "name", mcp_json_new_string(doc, t->name));
        if (t->title)
            mcp_json_object_set(doc, o, "title", mcp_json_new_string(doc, t->title));
        if (t->description)
            mcp_json_object_set(doc, o, "description", mcp_json_new_string(doc, t->description));
        mcp_json_object_set(doc, o, "inputSchema",
                            mcp_json_copy(doc, mcp_json_doc_root(t->input_schema)));
        if (t->output_schema)
            mcp_json_object_set(doc, o, "outputSchema",
                                mcp_json_copy(doc, mcp_json_doc_root(t->output_schema)));
        mcp_json_array_append(doc, list, o);
    }
    mcp_json_object_set(doc, result, "tools", list);
    int rc = mcp_json_doc_error(doc);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    if (rc == MCP_OK)
        rc = mcp_json_write(result, &b);
    mcp_json_doc_free(doc);
    if (rc != MCP_OK) {
        mcp_buf_free(&b);
        return rc;
    }
    free(s->tools_list);
    s->tools_list = b.data; /* the buffer's allocation is plain malloc */
    s->tools_list_len = b.len;
    return MCP_OK;
}

void mcp__server_free_tools(mcp_server *s)
{
    for (size_t i = 0; i < s->ntools; i++)
        free_tool(&s->tools[i]);
    free(s->tools);
    free(s->tools_list);
    s->tools = NULL;
    s->ntools = s->tools_cap = 0;
    s->tools_list = NULL;
}
