/* SPDX-License-Identifier: MIT */
/*
 * What a client asks of a server's features, and what it accepts back:
 * the shape each result must have (checked as it arrives, for the typed
 * calls and mcp_client_request alike), lists followed page by page, and
 * resources, prompts and completion.
 *
 * A result is checked as far as a client relies on it: what the schema
 * requires, and the type of what the CLI and applications show. A server
 * that sends something else gets MCP_ERR_PROTOCOL naming the place, rather
 * than an application finding a NULL where the spec promised a string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "core/base64.h"
#include "core/opts.h"

/* Shapes ---------------------------------------------------------------------------------- */

/* A peer's text in a message is cut after max bytes, between characters. */
static int clip(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return (int)n;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return (int)max;
}

/* "list[i] ("name") " naming an item, by its name or else its uri. */
static void item_label(char *out, size_t len, const char *list, size_t i, const mcp_json *item)
{
    size_t n = 0;
    const char *name = mcp_json_string(mcp_json_object_get(item, "name"), &n);
    if (!name)
        name = mcp_json_string(mcp_json_object_get(item, "uri"), &n);
    if (name)
        snprintf(out, len, "%s[%zu] (\"%.*s\")", list, i, clip(name, n, 60), name);
    else
        snprintf(out, len, "%s[%zu]", list, i);
}

typedef struct field {
    const char *key;
    mcp_json_type type;
    bool required;
} field;

static const char *type_name(mcp_json_type t)
{
    switch (t) {
    case MCP_JSON_BOOL: return "a boolean";
    case MCP_JSON_NUMBER: return "a number";
    case MCP_JSON_STRING: return "a string";
    case MCP_JSON_ARRAY: return "an array";
    default: return "an object";
    }
}

/* Whether obj (called what) is an object with the fields' types; else false
 * with why. A field may be absent unless required, never of another type. */
static bool fields_ok(const mcp_json *obj, const char *what, const field *f, char *why,
                      size_t why_len)
{
    if (mcp_json_typeof(obj) != MCP_JSON_OBJECT) {
        snprintf(why, why_len, "%s is not an object", what);
        return false;
    }
    for (; f->key; f++) {
        const mcp_json *v = mcp_json_object_get(obj, f->key);
        if (!v && !f->required)
            continue;
        if (mcp_json_typeof(v) != f->type) {
            if (v)
                snprintf(why, why_len, "%s has a \"%s\" that is not %s", what, f->key,
                         type_name(f->type));
            else
                snprintf(why, why_len, "%s has no \"%s\" (%s)", what, f->key,
                         type_name(f->type));
            return false;
        }
    }
    return true;
}

/* What each item of a list must be: its fields, and what else (NULL:
 * nothing). */
typedef struct item_shape {
    const char *key; /* the array's name in its parent */
    const field *fields;
    bool (*more)(const mcp_json *item, const char *label, char *why, size_t why_len);
} item_shape;

/* Every item of parent[shape->key] (an array) has the shape. */
static bool items_ok(const mcp_json *parent, const item_shape *shape, char *why,
                     size_t why_len)
{
    const mcp_json *list = mcp_json_object_get(parent, shape->key);
    if (mcp_json_typeof(list) != MCP_JSON_ARRAY) {
        snprintf(why, why_len, "there is no \"%s\" array", shape->key);
        return false;
    }
    for (size_t i = 0; i < mcp_json_array_size(list); i++) {
        const mcp_json *item = mcp_json_array_at(list, i);
        char label[128];
        item_label(label, sizeof label, shape->key, i, item);
        if (!fields_ok(item, label, shape->fields, why, why_len) ||
            (shape->more && !shape->more(item, label, why, why_len)))
            return false;
    }
    return true;
}

#define END {NULL, 0, false}
#define OPTIONAL_TEXT(key) {key, MCP_JSON_STRING, false}

static const field tool_fields[] = {{"name", MCP_JSON_STRING, true}, END};
static const field resource_fields[] = {
    {"uri", MCP_JSON_STRING, true}, {"name", MCP_JSON_STRING, true}, OPTIONAL_TEXT("title"),
    OPTIONAL_TEXT("description"), OPTIONAL_TEXT("mimeType"), {"size", MCP_JSON_NUMBER, false},
    END};
static const field template_fields[] = {
    {"uriTemplate", MCP_JSON_STRING, true}, {"name", MCP_JSON_STRING, true},
    OPTIONAL_TEXT("title"), OPTIONAL_TEXT("description"), OPTIONAL_TEXT("mimeType"), END};
static const field prompt_fields[] = {{"name", MCP_JSON_STRING, true}, OPTIONAL_TEXT("title"),
                                      OPTIONAL_TEXT("description"),
                                      {"arguments", MCP_JSON_ARRAY, false}, END};
static const field argument_fields[] = {{"name", MCP_JSON_STRING, true}, OPTIONAL_TEXT("title"),
                                        OPTIONAL_TEXT("description"),
                                        {"required", MCP_JSON_BOOL, false}, END};
static const field contents_fields[] = {{"uri", MCP_JSON_STRING, true},
                                        OPTIONAL_TEXT("mimeType"), OPTIONAL_TEXT("text"),
                                        OPTIONAL_TEXT("blob"), END};
static const field message_fields[] = {{"role", MCP_JSON_STRING, true},
                                       {"content", MCP_JSON_OBJECT, true}, END};
static const field content_fields[] = {{"type", MCP_JSON_STRING, true}, END};
static const field completion_fields[] = {{"values", MCP_JSON_ARRAY, true},
                                          {"total", MCP_JSON_NUMBER, false},
                                          {"hasMore", MCP_JSON_BOOL, false}, END};
static const field prompt_result_fields[] = {OPTIONAL_TEXT("description"), END};

static bool arguments_ok(const mcp_json *prompt, const char *label, char *why, size_t why_len)
{
    static const item_shape arguments = {"arguments", argument_fields, NULL};
    char inner[160];
    if (!mcp_json_object_get(prompt, "arguments") ||
        items_ok(prompt, &arguments, inner, sizeof inner))
        return true;
    snprintf(why, why_len, "%s: %s", label, inner);
    return false;
}

/* A ResourceContents item: text, or a blob that decodes. */
static bool text_or_blob(const mcp_json *item, const char *label, char *why, size_t why_len)
{
    bool text = mcp_json_object_get(item, "text") != NULL;
    const mcp_json *blob = mcp_json_object_get(item, "blob");
    if (!text && !blob) {
        snprintf(why, why_len, "%s has neither \"text\" nor \"blob\"", label);
        return false;
    }
    size_t n;
    const char *b64 = mcp_json_string(blob, &n);
    if (b64 && !mcp__base64_valid(b64, n)) {
        snprintf(why, why_len, "%s has a \"blob\" that is not base64", label);
        return false;
    }
    return true;
}

/* A PromptMessage: a role the spec knows, content with its type. */
static bool message_ok(const mcp_json *m, const char *label, char *why, size_t why_len)
{
    const char *role = mcp_json_string(mcp_json_object_get(m, "role"), NULL);
    if (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0) {
        snprintf(why, why_len, "%s has a role other than \"user\" or \"assistant\"", label);
        return false;
    }
    const mcp_json *c = mcp_json_object_get(m, "content");
    char what[160];
    snprintf(what, sizeof what, "%s's content", label);
    if (!fields_ok(c, what, content_fields, why, why_len))
        return false;
    if (!strcmp(mcp_json_string(mcp_json_object_get(c, "type"), NULL), "text") &&
        mcp_json_typeof(mcp_json_object_get(c, "text")) != MCP_JSON_STRING) {
        snprintf(why, why_len, "%s is text without a \"text\" string", what);
        return false;
    }
    return true;
}

static const item_shape tools_shape = {"tools", tool_fields, NULL},
                        resources_shape = {"resources", resource_fields, NULL},
                        templates_shape = {"resourceTemplates", template_fields, NULL},
                        prompts_shape = {"prompts", prompt_fields, arguments_ok},
                        contents_shape = {"contents", contents_fields, text_or_blob},
                        messages_shape = {"messages", message_fields, message_ok};

static bool tools_page_ok(const mcp_json *r, char *why, size_t n)
{
    return items_ok(r, &tools_shape, why, n);
}

static bool resources_page_ok(const mcp_json *r, char *why, size_t n)
{
    return items_ok(r, &resources_shape, why, n);
}

static bool templates_page_ok(const mcp_json *r, char *why, size_t n)
{
    return items_ok(r, &templates_shape, why, n);
}

static bool prompts_page_ok(const mcp_json *r, char *why, size_t n)
{
    return items_ok(r, &prompts_shape, why, n);
}

static bool read_ok(const mcp_json *r, char *why, size_t n)
{
    return items_ok(r, &contents_shape, why, n);
}

static bool get_prompt_ok(const mcp_json *r, char *why, size_t n)
{
    return fields_ok(r, "the result", prompt_result_fields, why, n) &&
           items_ok(r, &messages_shape, why, n);
}

static bool complete_ok(const mcp_json *r, char *why, size_t n)
{
    const mcp_json *c = mcp_json_object_get(r, "completion");
    if (!fields_ok(c, "\"completion\"", completion_fields, why, n))
        return false;
    const mcp_json *values = mcp_json_object_get(c, "values");
    size_t count = mcp_json_array_size(values);
    if (count > MCP_COMPLETION_MAX_VALUES) {
        snprintf(why, n, "\"completion\" has %zu values, more than the %d allowed", count,
                 MCP_COMPLETION_MAX_VALUES);
        return false;
    }
    for (size_t i = 0; i < count; i++)
        if (mcp_json_typeof(mcp_json_array_at(values, i)) != MCP_JSON_STRING) {
            snprintf(why, n, "\"completion\" values[%zu] is not a string", i);
            return false;
        }
    uint64_t total;
    const mcp_json *t = mcp_json_object_get(c, "total");
    if (t && mcp_json_get_uint64(t, &total) != MCP_OK) {
        snprintf(why, n, "\"completion\" has a \"total\" that is not a whole number >= 0");
        return false;
    }
    return true;
}

/* The CallToolResult fields a client reads. A missing content is taken as
 * empty, as other clients do; anything present must have its type. */
static bool tool_result_ok(const mcp_json *r, char *why, size_t n)
{
    static const field f[] = {{"content", MCP_JSON_ARRAY, false},
                              {"isError", MCP_JSON_BOOL, false},
                              {"structuredContent", MCP_JSON_OBJECT, false}, END};
    if (!fields_ok(r, "the result", f, why, n))
        return false;
    const mcp_json *content = mcp_json_object_get(r, "content");
    for (size_t i = 0; i < mcp_json_array_size(content); i++) {
        const mcp_json *item = mcp_json_array_at(content, i);
        const char *type = mcp_json_string(mcp_json_object_get(item, "type"), NULL);
        if (!type) {
            snprintf(why, n, "content[%zu] has no \"type\" string", i);
            return false;
        }
        if (!strcmp(type, "text") &&
            mcp_json_typeof(mcp_json_object_get(item, "text")) != MCP_JSON_STRING) {
            snprintf(why, n, "content[%zu] is text without a \"text\" string", i);
            return false;
        }
    }
    return true;
}

static const mcp__result_check checks[] = {
    {"tools/call", tool_result_ok},
    {"tools/list", tools_page_ok},
    {"resources/list", resources_page_ok},
    {"resources/templates/list", templates_page_ok},
    {"resources/read", read_ok},
    {"prompts/list", prompts_page_ok},
    {"prompts/get", get_prompt_ok},
    {"completion/complete", complete_ok},
};

const mcp__result_check *mcp__client_result_check(const char *method)
{
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (!strcmp(checks[i].method, method))
            return &checks[i];
    return NULL;
}

int mcp_resource_blob_decode(const mcp_json *item, mcp_buf *out)
{
    size_t n;
    const char *blob = mcp_json_string(mcp_json_object_get(item, "blob"), &n);
    if (!blob || !out)
        return MCP_ERR_INVALID_ARG;
    return mcp__base64_decode(out, blob, n);
}

/* Pages ------------------------------------------------------------------------------------ */

/* The page's caching hints, folded into *hint: the smallest freshness, and
 * the scope of the first page (a server must keep it for every page). */
static void fold_hint(mcp_cache_hint *hint, const mcp_json *result, bool first)
{
    int64_t ttl;
    size_t n;
    const char *scope = mcp_json_string(mcp_json_object_get(result, "cacheScope"), &n);
    bool has = mcp_json_get_int64(mcp_json_object_get(result, "ttlMs"), &ttl) == MCP_OK;
    if (!has) {
        hint->present = false;
        return;
    }
    uint64_t t = ttl < 0 ? 0 : (uint64_t)ttl; /* negative: treat as 0 */
    if (first) {
        hint->present = true;
        hint->ttl_ms = t;
        hint->scope = scope && n == 7 && !memcmp(scope, "private", 7) ? MCP_CACHE_PRIVATE
                                                                      : MCP_CACHE_PUBLIC;
    } else if (hint->present && t < hint->ttl_ms) {
        hint->ttl_ms = t;
    }
}

static bool seen_cursor(char **seen, size_t n, const char *cursor)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(seen[i], cursor) == 0)
            return true;
    return false;
}

/* One page: its items appended to list, its hints folded, and the next
 * cursor (a copy in *next, NULL at the end). */
static int one_page(mcp_client *c, const char *method, const char *key, const char *cursor,
                    const mcp_client_call_options *opts, mcp_json_doc *out, mcp_json *list,
                    mcp_cache_hint *h, bool first, char **seen, size_t pages, char **next)
{
    *next = NULL;
    mcp_json_doc *pd = NULL;
    mcp_json *params = NULL;
    if (cursor) {
        pd = mcp_json_doc_new(NULL);
        params = pd ? mcp_json_new_object(pd) : NULL;
        mcp_json_object_set(pd, params, "cursor", mcp_json_new_string(pd, cursor));
        if (!params || mcp_json_doc_error(pd) != MCP_OK) {
            mcp_json_doc_free(pd);
            return MCP_ERR_NOMEM;
        }
    }
    mcp_client_call_result r = {.size = sizeof r};
    int rc = mcp_client_request(c, method, params, opts, &r);
    mcp_json_doc_free(pd);
    if (rc != MCP_OK) {
        if (rc == MCP_ERR_REMOTE || rc == MCP_ERR_HTTP)
            mcp__client_set_error(c, "%s failed: %s", method, r.error_message);
        mcp_client_call_result_release(&r);
        return rc;
    }
    /* The items' shapes were checked as the page arrived (call_ended). */
    const mcp_json *items = mcp_json_object_get(r.result, key);
    for (size_t i = 0; i < mcp_json_array_size(items); i++)
        mcp_json_array_append(out, list, mcp_json_copy(out, mcp_json_array_at(items, i)));
    fold_hint(h, r.result, first);
    const mcp_json *nc = mcp_json_object_get(r.result, "nextCursor");
    const char *cur = mcp_json_string(nc, NULL);
    if (nc && !cur && mcp_json_typeof(nc) != MCP_JSON_NULL) {
        mcp__client_set_error(c, "%s: nextCursor is neither a string nor null", method);
        rc = MCP_ERR_PROTOCOL;
    } else if (cur && seen_cursor(seen, pages, cur)) {
        mcp__client_set_error(c, "%s: the server sent a cursor it had sent before; the list "
                                 "would never end", method);
        rc = MCP_ERR_PROTOCOL;
    } else if (cur && !(*next = strdup(cur))) {
        rc = MCP_ERR_NOMEM;
    }
    mcp_client_call_result_release(&r);
    return rc;
}

/* Every page of a list method, its items (result[key]) into one array. */
static int list_all(mcp_client *c, const char *method, const char *key,
                    const mcp_client_call_options *opts, mcp_json_doc **result,
                    mcp_cache_hint *hint)
{
    if (!result || (hint && !mcp__out_size_ok(hint, sizeof *hint, sizeof *hint)))
        return MCP_ERR_INVALID_ARG;
    *result = NULL;
    mcp_cache_hint h = {.size = sizeof h};
    mcp_json_doc *out = mcp_json_doc_new(NULL);
    char **seen = calloc(MCP_CLIENT_MAX_PAGES, sizeof *seen);
    if (!out || !seen) {
        mcp_json_doc_free(out);
        free(seen);
        return MCP_ERR_NOMEM;
    }
    mcp_json *list = mcp_json_new_array(out);
    mcp_json_doc_set_root(out, list);
    size_t pages = 0;
    int rc = MCP_OK;
    char *cursor = NULL;
    do {
        if (pages == MCP_CLIENT_MAX_PAGES) {
            mcp__client_set_error(c, "%s: the server listed more than %d pages", method,
                                  MCP_CLIENT_MAX_PAGES);
            rc = MCP_ERR_LIMIT;
            break;
        }
        rc = one_page(c, method, key, cursor, opts, out, list, &h, pages == 0, seen, pages,
                      &cursor);
        if (rc == MCP_OK && cursor)
            seen[pages] = cursor; /* freed with seen */
        pages++;
    } while (rc == MCP_OK && cursor);
    for (size_t i = 0; i < MCP_CLIENT_MAX_PAGES && seen[i]; i++)
        free(seen[i]);
    free(seen);
    if (rc == MCP_OK)
        rc = mcp_json_doc_error(out);
    if (rc != MCP_OK) {
        mcp_json_doc_free(out);
        return rc;
    }
    if (hint)
        mcp__out_fill(hint, &h);
    *result = out;
    return MCP_OK;
}

/* The public lists: one method each, and the key of its items. */
#define LIST(function, method, key)                                                        \
    int function(mcp_client *c, const mcp_client_call_options *opts, mcp_json_doc **out,    \
                 mcp_cache_hint *hint)                                                     \
    {                                                                                      \
        return list_all(c, method, key, opts, out, hint);                                  \
    }
LIST(mcp_client_list_tools, "tools/list", "tools")
LIST(mcp_client_list_resources, "resources/list", "resources")
LIST(mcp_client_list_resource_templates, "resources/templates/list", "resourceTemplates")
LIST(mcp_client_list_prompts, "prompts/list", "prompts")
#undef LIST

/* Requests -------------------------------------------------------------------------------- */

/* Whether v is NULL or an object of strings; else false, with the error
 * naming the first member that is not (what: "argument"). */
static bool strings_object(mcp_client *c, const mcp_json *v, const char *what)
{
    if (!v)
        return true;
    if (mcp_json_typeof(v) != MCP_JSON_OBJECT) {
        mcp__client_set_error(c, "the %ss are not a JSON object", what);
        return false;
    }
    for (size_t i = 0; i < mcp_json_object_size(v); i++) {
        const char *key;
        size_t n;
        if (mcp_json_typeof(mcp_json_object_at(v, i, &key, &n)) != MCP_JSON_STRING) {
            mcp__client_set_error(c, "the %s \"%.*s\" is not a string (every value must be)",
                                  what, clip(key, n, 60), key);
            return false;
        }
    }
    return true;
}

/* Send method with params (built in doc) and wait; the error of a refusal
 * says what was refused. Frees doc. */
static int send_built(mcp_client *c, const char *method, mcp_json_doc *doc, mcp_json *params,
                      const mcp_client_call_options *opts, mcp_client_call_result *result)
{
    int rc = doc ? mcp_json_doc_error(doc) : MCP_ERR_NOMEM;
    if (rc == MCP_OK) {
        rc = mcp_client_request(c, method, params, opts, result);
        if (rc == MCP_ERR_REMOTE || rc == MCP_ERR_HTTP)
            mcp__client_set_error(c, "%s failed: %s", method, result->error_message);
    } else {
        if (rc == MCP_ERR_UTF8) {
            mcp__client_set_error(c, "%s: a string given is not valid UTF-8", method);
            rc = MCP_ERR_INVALID_ARG;
        }
        mcp__call_result_refused(result, rc);
    }
    mcp_json_doc_free(doc);
    return rc;
}

/* A new document with params {"uri": uri}. */
static mcp_json_doc *uri_params(const char *uri, mcp_json **params)
{
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    *params = doc ? mcp_json_new_object(doc) : NULL;
    mcp_json_object_set(doc, *params, "uri", mcp_json_new_string(doc, uri));
    return doc;
}

/* An argument check that failed before anything was sent. */
static int refuse(mcp_client_call_result *result, int rc)
{
    if (result && mcp__call_result_ok(result))
        mcp__call_result_refused(result, rc);
    return rc;
}

int mcp_client_read_resource(mcp_client *c, const char *uri, const mcp_client_call_options *opts,
                             mcp_client_call_result *result)
{
    if (!uri || !result || !mcp__call_result_ok(result))
        return refuse(result, MCP_ERR_INVALID_ARG);
    mcp_json *params;
    mcp_json_doc *doc = uri_params(uri, &params);
    return send_built(c, "resources/read", doc, params, opts, result);
}

int mcp_client_get_prompt(mcp_client *c, const char *name, const mcp_json *arguments,
                          const mcp_client_call_options *opts, mcp_client_call_result *result)
{
    if (!name || !result || !mcp__call_result_ok(result) ||
        !strings_object(c, arguments, "argument"))
        return refuse(result, MCP_ERR_INVALID_ARG);
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    mcp_json *params = doc ? mcp_json_new_object(doc) : NULL;
    mcp_json_object_set(doc, params, "name", mcp_json_new_string(doc, name));
    if (arguments)
        mcp_json_object_set(doc, params, "arguments", mcp_json_copy(doc, arguments));
    return send_built(c, "prompts/get", doc, params, opts, result);
}

int mcp_client_complete(mcp_client *c, mcp_complete_ref kind, const char *ref,
                        const char *argument, const char *value,
                        const mcp_json *context_arguments, const mcp_client_call_options *opts,
                        mcp_client_call_result *result, mcp_completion *completion)
{
    if (completion && !mcp__out_size_ok(completion, sizeof *completion, sizeof *completion))
        return refuse(result, MCP_ERR_INVALID_ARG);
    if (completion)
        mcp__out_zero(completion);
    if ((kind != MCP_COMPLETE_PROMPT && kind != MCP_COMPLETE_RESOURCE_TEMPLATE) || !ref ||
        !argument || !value || !result || !mcp__call_result_ok(result) ||
        !strings_object(c, context_arguments, "context argument"))
        return refuse(result, MCP_ERR_INVALID_ARG);
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    mcp_json *params = doc ? mcp_json_new_object(doc) : NULL;
    mcp_json *r = mcp_json_new_object(doc), *arg = mcp_json_new_object(doc);
    bool prompt = kind == MCP_COMPLETE_PROMPT;
    mcp_json_object_set(doc, r, "type", mcp_json_new_string(doc, prompt ? "ref/prompt"
                                                                        : "ref/resource"));
    mcp_json_object_set(doc, r, prompt ? "name" : "uri", mcp_json_new_string(doc, ref));
    mcp_json_object_set(doc, arg, "name", mcp_json_new_string(doc, argument));
    mcp_json_object_set(doc, arg, "value", mcp_json_new_string(doc, value));
    mcp_json_object_set(doc, params, "ref", r);
    mcp_json_object_set(doc, params, "argument", arg);
    if (context_arguments) {
        mcp_json *ctx = mcp_json_new_object(doc);
        mcp_json_object_set(doc, ctx, "arguments", mcp_json_copy(doc, context_arguments));
        mcp_json_object_set(doc, params, "context", ctx);
    }
    int rc = send_built(c, "completion/complete", doc, params, opts, result);
    if (rc == MCP_OK && completion) {
        /* The shape was checked as the result arrived (complete_ok). */
        const mcp_json *comp = mcp_json_object_get(result->result, "completion");
        mcp_completion got = {.size = sizeof got};
        got.values = mcp_json_object_get(comp, "values");
        got.count = mcp_json_array_size(got.values);
        got.has_total =
            mcp_json_get_uint64(mcp_json_object_get(comp, "total"), &got.total) == MCP_OK;
        bool more = false;
        got.has_more =
            mcp_json_get_bool(mcp_json_object_get(comp, "hasMore"), &more) == MCP_OK && more;
        mcp__out_fill(completion, &got);
    }
    return rc;
}

/* resources/subscribe or resources/unsubscribe: 2025 only. */
static int subscription(mcp_client *c, const char *method, const char *uri,
                        const mcp_client_call_options *opts)
{
    if (!uri)
        return MCP_ERR_INVALID_ARG;
    if (c->driver_open && mcp_session_ready(c->driver.session) &&
        mcp_session_modern(c->driver.session)) {
        mcp__client_set_error(c, "%s does not exist in protocol version %s: listen with "
                                 "mcp_client_listen (the URIs in the filter's resource_uris)",
                              method, mcp_session_protocol_version(c->driver.session));
        return MCP_ERR_STATE;
    }
    mcp_json *params;
    mcp_json_doc *doc = uri_params(uri, &params);
    mcp_client_call_result r = {.size = sizeof r};
    int rc = send_built(c, method, doc, params, opts, &r);
    mcp_client_call_result_release(&r);
    return rc;
}

int mcp_client_subscribe_resource(mcp_client *c, const char *uri,
                                  const mcp_client_call_options *opts)
{
    return subscription(c, "resources/subscribe", uri, opts);
}

int mcp_client_unsubscribe_resource(mcp_client *c, const char *uri,
                                    const mcp_client_call_options *opts)
{
    return subscription(c, "resources/unsubscribe", uri, opts);
}
