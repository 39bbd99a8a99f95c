/* SPDX-License-Identifier: MIT */
/*
 * x-mcp-header: which tool parameters travel as Mcp-Param-{Name} headers.
 *
 * The rules (server/tools.mdx): the value is a non-empty HTTP token, unique
 * without regard to case within the schema, on a property of type string,
 * integer or boolean, reachable from the root through `properties` keys
 * alone. An annotation anywhere else (under items, oneOf, $defs, ...) makes
 * the whole tool invalid, so the walk visits every subschema, not only the
 * reachable ones, and tells schema keywords from the names of properties
 * (a parameter may well be called "x-mcp-header").
 *
 * The cache is a JSON document: {tool name: [[header, [key, ...]], ...]},
 * null for a tool that was rejected.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/http_headers.h"
#include "transport/http_params.h"

struct mcp__tool_headers {
    mcp_json_doc *doc;
    mcp_json *root;
    size_t bytes; /* names and paths learned into doc (its arena keeps what
                     a tool learned again replaced) */
};

/* The cache starts afresh past this (a tool whose headers are forgotten is
 * learned again by the HeaderMismatch retry): a server listing the same
 * tools again and again must not grow the client without end. */
#define CACHE_MAX_BYTES ((size_t)8 << 20)

mcp__tool_headers *mcp__tool_headers_new(void)
{
    mcp__tool_headers *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->doc = mcp_json_doc_new(NULL);
    c->root = c->doc ? mcp_json_new_object(c->doc) : NULL;
    if (!c->root) {
        mcp_json_doc_free(c->doc);
        free(c);
        return NULL;
    }
    mcp_json_doc_set_root(c->doc, c->root);
    return c;
}

void mcp__tool_headers_free(mcp__tool_headers *c)
{
    if (!c)
        return;
    mcp_json_doc_free(c->doc);
    free(c);
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

const char *mcp__tool_headers_check(const mcp_json *input_schema)
{
    walk w;
    memset(&w, 0, sizeof w);
    schema(&w, input_schema, true, 0);
    return w.why;
}

/* Learning -------------------------------------------------------------------------- */

int mcp__tool_headers_learn(mcp__tool_headers *c, const char *msg, size_t len, mcp_buf *out,
                            bool *changed,
                            void (*warn)(void *ud, const char *tool, const char *why), void *ud)
{
    *changed = false;
    mcp_json_doc *d = NULL;
    if (mcp_json_parse(msg, len, NULL, NULL, &d, NULL) != MCP_OK)
        return MCP_OK; /* the session will say what is wrong with it */
    mcp_json *result = mcp_json_object_get(mcp_json_doc_root(d), "result");
    mcp_json *tools = mcp_json_object_get(result, "tools");
    if (mcp_json_typeof(tools) != MCP_JSON_ARRAY) {
        mcp_json_doc_free(d);
        return MCP_OK;
    }
    if (c->bytes > CACHE_MAX_BYTES) {
        mcp__tool_headers *fresh = mcp__tool_headers_new();
        if (!fresh) {
            mcp_json_doc_free(d);
            return MCP_ERR_NOMEM;
        }
        mcp_json_doc_free(c->doc);
        *c = *fresh;
        free(fresh);
    }
    mcp_json *kept = mcp_json_new_array(d);
    size_t dropped = 0;
    for (size_t i = 0; i < mcp_json_array_size(tools); i++) {
        mcp_json *tool = mcp_json_array_at(tools, i);
        size_t nn;
        const char *name = mcp_json_string(mcp_json_object_get(tool, "name"), &nn);
        walk w;
        memset(&w, 0, sizeof w);
        w.doc = c->doc;
        w.out = mcp_json_new_array(c->doc);
        schema(&w, mcp_json_object_get(tool, "inputSchema"), true, 0);
        if (w.why) {
            dropped++;
            if (warn)
                warn(ud, name ? name : "(unnamed)", w.why);
            if (name)
                mcp_json_object_setn(c->doc, c->root, name, nn, mcp_json_new_null(c->doc));
            continue;
        }
        if (name)
            mcp_json_object_setn(c->doc, c->root, name, nn, w.out);
        c->bytes += w.bytes + nn;
        mcp_json_array_append(d, kept, tool);
    }
    int rc = mcp_json_doc_error(c->doc);
    if (rc == MCP_OK && dropped) {
        mcp_json_object_set(d, result, "tools", kept);
        rc = mcp_json_doc_error(d);
        if (rc == MCP_OK) {
            mcp_buf_init(out, 0, NULL);
            rc = mcp_json_write(mcp_json_doc_root(d), out);
            *changed = rc == MCP_OK;
            if (rc != MCP_OK)
                mcp_buf_free(out);
        }
    }
    mcp_json_doc_free(d);
    return rc == MCP_ERR_LIMIT ? MCP_ERR_NOMEM : rc;
}

/* Calling ------------------------------------------------------------------------------ */

int mcp__tool_headers_for_call(const mcp__tool_headers *c, const mcp_json *params,
                               int (*add)(void *ud, const char *line), void *ud)
{
    size_t nn;
    const char *name = mcp_json_string(mcp_json_object_get(params, "name"), &nn);
    const mcp_json *list = name ? mcp_json_object_getn(c->root, name, nn) : NULL;
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
        rc = mcp_buf_append(&line, "Mcp-Param-", 10);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&line, header, hn);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&line, ": ", 2);
        if (rc == MCP_OK)
            rc = mcp__http_value_encode(&line, text, tn);
        if (rc == MCP_OK)
            rc = add(ud, line.data);
        mcp_buf_free(&line);
    }
    return rc == MCP_ERR_LIMIT ? MCP_ERR_NOMEM : rc;
}
