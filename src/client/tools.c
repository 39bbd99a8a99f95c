/* SPDX-License-Identifier: MIT */
/*
 * The client's one tool cache: what the tools it has listed declared, read
 * by the two things that depend on it.
 * - outputSchema: a tool that declares one must answer with
 *   structuredContent that satisfies it (server/tools.mdx), and a client
 *   SHOULD check. Compiled once; a schema the client cannot compile (or one
 *   referring to another document) is not enforced: the server's fault
 *   should not make its results unusable.
 * - x-mcp-header (2026-07-28 Streamable HTTP, "Custom Headers from Tool
 *   Parameters"): which parameters of a tools/call travel as
 *   Mcp-Param-{Name} headers, which the HTTP transport asks for each call
 *   (mcp__tools_headers_for_call). A tool whose annotations break the rules
 *   is left out of the list the application sees.
 * Learned from every tools/list result that reaches the client (a call of
 * the application, a listing after a HeaderMismatch); a tool listed again
 * replaces what was known of it. Loop thread.
 *
 * x-mcp-header rules (server/tools.mdx): the value is a non-empty HTTP
 * token, unique without regard to case within the schema, on a property of
 * type string, integer or boolean, reachable from the root through
 * `properties` keys alone. An annotation anywhere else (under items,
 * oneOf, $defs, ...) makes the whole tool invalid, so the walk visits every
 * subschema, not only the reachable ones, and tells schema keywords from
 * the names of properties (a parameter may well be called "x-mcp-header").
 * A tool's mirrored parameters are a JSON document: [[header, [key, ...]],
 * ...].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/tools.h"
#include "mcp/schema.h"
#include "transport/http_headers.h"

/* Tools remembered; past it, new ones go unchecked and unmirrored. */
#define MAX_TOOLS 4096

typedef struct tool {
    char *name;
    mcp_schema *schema;    /* outputSchema compiled; NULL: none, or unusable */
    mcp_json_doc *headers; /* its mirrored parameters, or NULL */
    int task_support;      /* execution.taskSupport: 0 forbidden, 1 optional, 2 required */
} tool;

struct mcp__tools {
    tool *items;
    size_t count, cap;
};

mcp__tools *mcp__tools_new(void)
{
    return calloc(1, sizeof(mcp__tools));
}

static void forget(mcp__tools *c, tool *e)
{
    free(e->name);
    mcp_schema_free(e->schema);
    mcp_json_doc_free(e->headers);
    *e = c->items[--c->count];
}

void mcp__tools_free(mcp__tools *c)
{
    if (!c)
        return;
    while (c->count)
        forget(c, &c->items[0]);
    free(c->items);
    free(c);
}

static tool *find(const mcp__tools *c, const char *name, size_t n)
{
    for (size_t i = 0; i < c->count; i++)
        if (strlen(c->items[i].name) == n && !memcmp(c->items[i].name, name, n))
            return &c->items[i];
    return NULL;
}

/* Checking -------------------------------------------------------------------- */

#define MAX_HEADERS 64
#define MAX_DEPTH 64
/* The longest x-mcp-header name: it becomes part of a header of every call
 * (Mcp-Param-{name}), and no real parameter needs a name this long. */
#define MAX_NAME 128
/* The property names leading to one annotated parameter, in all: a path
 * is copied for every annotation, and a hostile schema of long names 60
 * deep would make each page of tools/list cost a hundred times its size. */
#define MAX_PATH_BYTES 1024

typedef struct found {
    const char *name;
    size_t len;
} found;

typedef struct walk {
    found seen[MAX_HEADERS];
    size_t count;
    size_t bytes; /* of the annotations collected */
    const char *why;
    /* When collecting: where the annotations go. */
    mcp_json_doc *doc;
    mcp_json *out;
    const char *path[MAX_DEPTH];
    size_t path_len[MAX_DEPTH];
} walk;

static bool is(const char *k, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(k, word, n) == 0;
}

static void schema(walk *w, const mcp_json *s, bool reachable, size_t depth);

/* A value that holds subschemas: an object of them (keyed by names), an
 * array of them, or one. */
static void schemas_in(walk *w, const char *k, size_t kn, const mcp_json *v, size_t depth)
{
    if (is(k, kn, "const") || is(k, kn, "enum") || is(k, kn, "default") ||
        is(k, kn, "examples") || is(k, kn, "required"))
        return; /* instance data, not schemas */
    if (mcp_json_typeof(v) == MCP_JSON_ARRAY) {
        for (size_t i = 0; i < mcp_json_array_size(v) && !w->why; i++)
            schema(w, mcp_json_array_at(v, i), false, depth + 1);
    } else if (mcp_json_typeof(v) == MCP_JSON_OBJECT) {
        bool named = is(k, kn, "$defs") || is(k, kn, "definitions") ||
                     is(k, kn, "patternProperties") || is(k, kn, "dependentSchemas") ||
                     is(k, kn, "properties");
        if (!named) {
            schema(w, v, false, depth + 1);
            return;
        }
        for (size_t i = 0; i < mcp_json_object_size(v) && !w->why; i++)
            schema(w, mcp_json_object_at(v, i, NULL, NULL), false, depth + 1);
    }
}

static bool primitive_type(const mcp_json *s)
{
    size_t n;
    const char *t = mcp_json_string(mcp_json_object_get(s, "type"), &n);
    return t && (is(t, n, "string") || is(t, n, "integer") || is(t, n, "boolean"));
}

static void annotation(walk *w, const mcp_json *s, const mcp_json *v, bool reachable,
                       size_t depth)
{
    size_t n;
    const char *name = mcp_json_string(v, &n);
    if (!reachable) {
        w->why = "x-mcp-header on a property not reachable from the root through "
                 "`properties` alone";
        return;
    }
    if (depth == 0) {
        w->why = "x-mcp-header on the schema root, not on a parameter";
        return;
    }
    if (!name || n == 0 || !mcp__http_token_valid(name, n)) {
        w->why = "x-mcp-header is not a non-empty HTTP token";
        return;
    }
    if (n > MAX_NAME) {
        w->why = "x-mcp-header is longer than 128 bytes";
        return;
    }
    if (!primitive_type(s)) {
        w->why = "x-mcp-header on a parameter whose type is not string, integer or boolean";
        return;
    }
    for (size_t i = 0; i < w->count; i++)
        if (w->seen[i].len == n && strncasecmp(w->seen[i].name, name, n) == 0) {
            w->why = "two x-mcp-header values differ only in case (or not at all)";
            return;
        }
    if (w->count == MAX_HEADERS) {
        w->why = "more x-mcp-header annotations than this client takes (64)";
        return;
    }
    size_t path_bytes = 0;
    for (size_t i = 0; i < depth; i++)
        path_bytes += w->path_len[i];
    if (path_bytes > MAX_PATH_BYTES) {
        w->why = "an x-mcp-header parameter whose path of property names is over 1 KiB";
        return;
    }
    w->bytes += path_bytes + n;
    w->seen[w->count++] = (found){name, n};
    if (!w->doc)
        return;
    mcp_json *entry = mcp_json_new_array(w->doc);
    mcp_json *keys = mcp_json_new_array(w->doc);
    mcp_json_array_append(w->doc, entry, mcp_json_new_stringn(w->doc, name, n));
    for (size_t i = 0; i < depth; i++)
        mcp_json_array_append(w->doc, keys, mcp_json_new_stringn(w->doc, w->path[i], w->path_len[i]));
    mcp_json_array_append(w->doc, entry, keys);
    mcp_json_array_append(w->doc, w->out, entry);
}

static void schema(walk *w, const mcp_json *s, bool reachable, size_t depth)
{
    if (mcp_json_typeof(s) != MCP_JSON_OBJECT || w->why)
        return;
    if (depth >= MAX_DEPTH) {
        w->why = "the inputSchema nests too deep to check its x-mcp-header annotations";
        return;
    }
    for (size_t i = 0; i < mcp_json_object_size(s) && !w->why; i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(s, i, &k, &kn);
        if (is(k, kn, "x-mcp-header")) {
            annotation(w, s, v, reachable, depth);
        } else if (is(k, kn, "properties") && mcp_json_typeof(v) == MCP_JSON_OBJECT &&
                   reachable) {
            for (size_t j = 0; j < mcp_json_object_size(v) && !w->why; j++) {
                const mcp_json *p = mcp_json_object_at(v, j, &w->path[depth], &w->path_len[depth]);
                schema(w, p, true, depth + 1);
            }
        } else {
            schemas_in(w, k, kn, v, depth);
        }
    }
}

const char *mcp__tools_header_problem(const mcp_json *input_schema)
{
    walk w;
    memset(&w, 0, sizeof w);
    schema(&w, input_schema, true, 0);
    return w.why;
}

/* Learning -------------------------------------------------------------------------- */

/* What the x-mcp-header walk of schema collects, as a new document (NULL:
 * no annotation); *why when the tool breaks the rules. */
static int mirrored(const mcp_json *input_schema, mcp_json_doc **out, const char **why)
{
    *out = NULL;
    walk w;
    memset(&w, 0, sizeof w);
    w.doc = mcp_json_doc_new(NULL);
    w.out = w.doc ? mcp_json_new_array(w.doc) : NULL;
    if (!w.out) {
        mcp_json_doc_free(w.doc);
        return MCP_ERR_NOMEM;
    }
    mcp_json_doc_set_root(w.doc, w.out);
    schema(&w, input_schema, true, 0);
    *why = w.why;
    int rc = mcp_json_doc_error(w.doc);
    if (rc != MCP_OK || w.why || w.count == 0)
        mcp_json_doc_free(w.doc);
    else
        *out = w.doc;
    return rc;
}

int mcp__tools_learn(mcp__tools *c, const mcp_json *result, bool headers, mcp_json_doc **kept,
                     void (*warn)(void *ud, const char *tool, const char *why), void *ud)
{
    *kept = NULL;
    const mcp_json *tools = mcp_json_object_get(result, "tools");
    size_t dropped = 0;
    int rc = MCP_OK;
    bool *out = NULL; /* the tools left out, when any is */
    for (size_t i = 0; i < mcp_json_array_size(tools) && rc == MCP_OK; i++) {
        const mcp_json *t = mcp_json_array_at(tools, i);
        size_t n;
        const char *name = mcp_json_string(mcp_json_object_get(t, "name"), &n);
        mcp_json_doc *mirror = NULL;
        const char *why = NULL;
        if (headers && (rc = mirrored(mcp_json_object_get(t, "inputSchema"), &mirror, &why)) !=
                           MCP_OK)
            break;
        if (why) {
            if (warn)
                warn(ud, name ? name : "(unnamed)", why);
            if (!out && !(out = calloc(mcp_json_array_size(tools), sizeof *out))) {
                rc = MCP_ERR_NOMEM;
                break;
            }
            out[i] = true;
            dropped++;
        }
        if (!name || memchr(name, '\0', n)) {
            mcp_json_doc_free(mirror);
            continue;
        }
        tool *e = find(c, name, n);
        if (e)
            forget(c, e);
        const mcp_json *declared = mcp_json_object_get(t, "outputSchema");
        size_t sn;
        const char *support = mcp_json_string(
            mcp_json_object_get(mcp_json_object_get(t, "execution"), "taskSupport"), &sn);
        int task_support = is(support, support ? sn : 0, "required")   ? 2
                           : is(support, support ? sn : 0, "optional") ? 1
                                                                       : 0;
        if ((!declared && !mirror && !task_support) || c->count == MAX_TOOLS) {
            mcp_json_doc_free(mirror);
            continue;
        }
        if (c->count == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 16;
            tool *items = realloc(c->items, cap * sizeof *items);
            if (!items) {
                mcp_json_doc_free(mirror);
                rc = MCP_ERR_NOMEM;
                break;
            }
            c->items = items;
            c->cap = cap;
        }
        char *copy = malloc(n + 1);
        if (!copy) {
            mcp_json_doc_free(mirror);
            rc = MCP_ERR_NOMEM;
            break;
        }
        memcpy(copy, name, n);
        copy[n] = '\0';
        mcp_schema *s = NULL;
        if (declared && mcp_schema_compile(declared, NULL, &s, NULL, 0) != MCP_OK)
            s = NULL;
        c->items[c->count++] = (tool){copy, s, mirror, task_support};
    }
    if (rc == MCP_OK && dropped) {
        /* The result without them: a copy, every other member as it was. */
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *r = d ? mcp_json_new_object(d) : NULL;
        mcp_json *list = d ? mcp_json_new_array(d) : NULL;
        for (size_t i = 0; r && i < mcp_json_object_size(result); i++) {
            const char *k;
            size_t kn;
            const mcp_json *v = mcp_json_object_at(result, i, &k, &kn);
            mcp_json_object_setn(d, r, k, kn, v == tools ? list : mcp_json_copy(d, v));
        }
        for (size_t i = 0; r && i < mcp_json_array_size(tools); i++)
            if (!out[i])
                mcp_json_array_append(d, list, mcp_json_copy(d, mcp_json_array_at(tools, i)));
        if (r)
            mcp_json_doc_set_root(d, r);
        rc = r ? mcp_json_doc_error(d) : MCP_ERR_NOMEM;
        if (rc == MCP_OK)
            *kept = d;
        else
            mcp_json_doc_free(d);
    }
    free(out);
    return rc;
}

int mcp__tools_task_support(const mcp__tools *c, const char *name)
{
    const tool *e = c && name ? find(c, name, strlen(name)) : NULL;
    return e ? e->task_support : 0;
}

bool mcp__tools_check_output(const mcp__tools *c, const char *name, const mcp_json *result,
                             char *why, size_t why_len)
{
    const tool *e = c && name ? find(c, name, strlen(name)) : NULL;
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

/* Calling ------------------------------------------------------------------------------ */

int mcp__tools_headers_for_call(const mcp__tools *c, const mcp_json *params,
                                int (*add)(void *ud, const char *line), void *ud)
{
    size_t nn;
    const char *name = mcp_json_string(mcp_json_object_get(params, "name"), &nn);
    const tool *e = c && name ? find(c, name, nn) : NULL;
    const mcp_json *list = e && e->headers ? mcp_json_doc_root(e->headers) : NULL;
    const mcp_json *args = mcp_json_object_get(params, "arguments");
    int rc = MCP_OK;
    for (size_t i = 0; i < mcp_json_array_size(list) && rc == MCP_OK; i++) {
        const mcp_json *entry = mcp_json_array_at(list, i);
        size_t hn;
        const char *header = mcp_json_string(mcp_json_array_at(entry, 0), &hn);
        const mcp_json *keys = mcp_json_array_at(entry, 1);
        const mcp_json *v = args;
        for (size_t k = 0; k < mcp_json_array_size(keys) && v; k++) {
            size_t kn;
            const char *key = mcp_json_string(mcp_json_array_at(keys, k), &kn);
            v = mcp_json_typeof(v) == MCP_JSON_OBJECT ? mcp_json_object_getn(v, key, kn) : NULL;
        }
        const char *text;
        size_t tn;
        bool number;
        if (!header || !mcp__http_param_text(v, &text, &tn, &number) ||
            (number && !mcp_json_is_integer_literal(v)))
            continue; /* null, absent or of another type: no header */
        mcp_buf line;
        mcp_buf_init(&line, 0, NULL);
        rc = mcp_buf_append(&line, MCP_LITERAL("Mcp-Param-"));
        if (rc == MCP_OK)
            rc = mcp_buf_append(&line, header, hn);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&line, MCP_LITERAL(": "));
        if (rc == MCP_OK)
            rc = mcp__http_value_encode(&line, text, tn);
        if (rc == MCP_OK)
            rc = add(ud, line.data);
        mcp_buf_free(&line);
    }
    return rc == MCP_ERR_LIMIT ? MCP_ERR_NOMEM : rc;
}
