/* SPDX-License-Identifier: MIT */
/*
 * Resources, resource templates and prompts as registered: checked and
 * copied once, each with its list item serialized once (the lists and
 * their pages are registry.c's). Immutable once built, shared by the
 * snapshots that list them and the requests that use them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"
#include "server/offer/offer.h"

/* The longest URI a resource may be registered with. */
#define MAX_URI 8192

static bool utf8_or_null(const char *s)
{
    return !s || mcp_utf8_validate(s, strlen(s), NULL) == MCP_OK;
}

/* One member from JSON text that must be of type want. */
static int extra(mcp__jw *w, const char *key, const char *text, mcp_json_type want)
{
    if (!text)
        return MCP_OK;
    mcp_json_doc *d = NULL;
    int rc = mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL);
    if (rc == MCP_OK && mcp_json_typeof(mcp_json_doc_root(d)) != want)
        rc = MCP_ERR_INVALID_ARG;
    if (rc == MCP_OK) {
        mcp__jw_key(w, key);
        mcp__jw_value(w, mcp_json_doc_root(d));
    }
    mcp_json_doc_free(d);
    return rc == MCP_ERR_NOMEM ? rc : rc != MCP_OK ? MCP_ERR_INVALID_ARG : MCP_OK;
}

int mcp__catalog_extras(mcp__jw *w, const char *annotations, const char *icons,
                        const char *meta)
{
    int rc = extra(w, "annotations", annotations, MCP_JSON_OBJECT);
    if (rc == MCP_OK)
        rc = extra(w, "icons", icons, MCP_JSON_ARRAY);
    if (rc == MCP_OK)
        rc = extra(w, "_meta", meta, MCP_JSON_OBJECT);
    return rc;
}

/* "name", "title", "description" as given (NULL ones left out). */
static void texts(mcp__jw *w, const char *const keys[], const char *const values[], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (values[i]) {
            mcp__jw_key(w, keys[i]);
            mcp__jw_string(w, values[i]);
        }
}

/* A URI with a scheme (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
 * then ':'), UTF-8, no control characters. */
static bool uri_ok(const char *uri)
{
    size_t n = strlen(uri);
    if (!n || n > MAX_URI || mcp_utf8_validate(uri, n, NULL) != MCP_OK)
        return false;
    size_t i = 0;
    while (i < n && ((uri[i] >= 'a' && uri[i] <= 'z') || (uri[i] >= 'A' && uri[i] <= 'Z') ||
                     (i && ((uri[i] >= '0' && uri[i] <= '9') || strchr("+-.", uri[i])))))
        i++;
    if (!i || i == n || uri[i] != ':')
        return false;
    for (i = 0; i < n; i++)
        if ((unsigned char)uri[i] < 0x20 || uri[i] == 0x7f)
            return false;
    return true;
}

/* RFC 6749 section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
static bool scope_token(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x21 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
            return false;
    return n && n <= 256;
}

int mcp__scopes_copy(const char *const *in, char ***out)
{
    *out = NULL;
    size_t n = 0;
    while (in && in[n]) {
        if (n == 64 || !scope_token(in[n]))
            return MCP_ERR_INVALID_ARG;
        n++;
    }
    if (!n)
        return MCP_OK;
    char **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        if (!(v[i] = strdup(in[i]))) {
            mcp__scopes_free(v);
            v = NULL;
        }
    if (!v)
        return MCP_ERR_NOMEM;
    *out = v;
    return MCP_OK;
}

/* Whether mcp__scopes_copy would take them (so that a failing entry_begin
 * means no memory). */
static bool scopes_ok(const char *const *scopes)
{
    size_t n = 0;
    while (scopes && scopes[n])
        if (n == 64 || !scope_token(scopes[n++]))
            return false;
    return true;
}

void mcp__scopes_free(char **scopes)
{
    for (size_t i = 0; scopes && scopes[i]; i++)
        free(scopes[i]);
    free(scopes);
}

size_t mcp__prompt_argument(const entry *e, const char *name, size_t n)
{
    size_t i = 0;
    while (i < e->nargs && !(strlen(e->arg_names[i]) == n && !memcmp(e->arg_names[i], name, n)))
        i++;
    return i;
}

void mcp__entry_unref(entry *e)
{
    if (!e || atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) != 1)
        return;
    free(e->l.item);
    free(e->key);
    mcp_uri_template_free(e->tmpl);
    for (size_t i = 0; i < e->nargs; i++)
        free(e->arg_names[i]);
    free(e->arg_names);
    free(e->arg_required);
    mcp__scopes_free(e->scopes);
    free(e);
}

/* An entry with its handlers, and its list item begun in b (an object,
 * written with w). NULL when out of memory. */
static entry *entry_begin(entry_kind kind, const char *key, uint64_t seq, mcp_tool_fn handler,
                          mcp_tool_fn complete, void *user_data, unsigned flags,
                          const char *const *scopes, mcp__jw *w, mcp_buf *b)
{
    entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    atomic_init(&e->refs, 1);
    e->kind = kind;
    e->l.seq = seq;
    e->key = strdup(key);
    if (!e->key || mcp__scopes_copy(scopes, &e->scopes) != MCP_OK) {
        free(e->key);
        free(e);
        return NULL;
    }
    e->handler = handler;
    e->complete = complete;
    e->user_data = user_data;
    e->flags = flags;
    mcp_buf_init(b, 0, NULL);
    mcp__jw_begin(w, b);
    mcp__jw_object(w);
    return e;
}

/* Finish w into e's list item, or free e. */
static int entry_done(entry *e, mcp__jw *w, mcp_buf *b, int rc, entry **out)
{
    int frc = mcp__jw_finish(w);
    if (rc == MCP_OK)
        rc = frc;
    if (rc != MCP_OK) {
        mcp_buf_free(b);
        mcp__entry_unref(e);
        return rc;
    }
    e->l.item = b->data;
    e->l.item_len = b->len;
    *out = e;
    return MCP_OK;
}

int mcp__resource_new(const mcp_resource *spec_in, entry **out, uint64_t seq)
{
    *out = NULL;
    mcp_resource spec;
    if (!spec_in || mcp__opts_copy(&spec, sizeof spec, spec_in) != MCP_OK || !spec.uri ||
        !spec.name || !spec.read || !uri_ok(spec.uri) || !utf8_or_null(spec.name) ||
        !utf8_or_null(spec.title) || !utf8_or_null(spec.description) ||
        !utf8_or_null(spec.mime_type) || !scopes_ok(spec.scopes))
        return MCP_ERR_INVALID_ARG;
    mcp_buf b;
    mcp__jw w;
    entry *e = entry_begin(ENTRY_RESOURCE, spec.uri, seq, spec.read, NULL, spec.user_data,
                           spec.flags, spec.scopes, &w, &b);
    if (!e)
        return MCP_ERR_NOMEM;
    static const char *const keys[] = {"uri", "name", "title", "description", "mimeType"};
    const char *const values[] = {spec.uri, spec.name, spec.title, spec.description,
                                  spec.mime_type};
    texts(&w, keys, values, 5);
    if (spec.size_known) {
        mcp__jw_key(&w, "size");
        mcp__jw_int(&w, spec.size_bytes > INT64_MAX ? INT64_MAX : (int64_t)spec.size_bytes);
    }
    int rc = mcp__catalog_extras(&w, spec.annotations, spec.icons, spec.meta);
    mcp__jw_object_end(&w);
    return entry_done(e, &w, &b, rc, out);
}

int mcp__template_new(const mcp_resource_template *spec_in, entry **out, uint64_t seq,
                      char *why, size_t why_len)
{
    *out = NULL;
    mcp_resource_template spec;
    if (!spec_in || mcp__opts_copy(&spec, sizeof spec, spec_in) != MCP_OK ||
        !spec.uri_template || !spec.name || !spec.read || !utf8_or_null(spec.uri_template) ||
        !utf8_or_null(spec.name) || !utf8_or_null(spec.title) ||
        !utf8_or_null(spec.description) || !utf8_or_null(spec.mime_type) ||
        !scopes_ok(spec.scopes))
        return MCP_ERR_INVALID_ARG;
    mcp_buf b;
    mcp__jw w;
    entry *e = entry_begin(ENTRY_TEMPLATE, spec.uri_template, seq, spec.read, spec.complete,
                           spec.user_data, spec.flags, spec.scopes, &w, &b);
    if (!e)
        return MCP_ERR_NOMEM;
    int rc = mcp_uri_template_parse(spec.uri_template, strlen(spec.uri_template), NULL, NULL,
                                    &e->tmpl, why, why_len);
    if (rc != MCP_OK) {
        mcp_buf_free(&b);
        mcp__entry_unref(e);
        return rc == MCP_ERR_NOMEM ? rc : MCP_ERR_INVALID_ARG;
    }
    static const char *const keys[] = {"uriTemplate", "name", "title", "description", "mimeType"};
    const char *const values[] = {spec.uri_template, spec.name, spec.title, spec.description,
                                  spec.mime_type};
    texts(&w, keys, values, 5);
    rc = mcp__catalog_extras(&w, spec.annotations, spec.icons, spec.meta);
    mcp__jw_object_end(&w);
    return entry_done(e, &w, &b, rc, out);
}

static bool prompt_name_ok(const char *name)
{
    size_t n = strlen(name);
    return n && n <= 128 && mcp_utf8_validate(name, n, NULL) == MCP_OK;
}

int mcp__prompt_new(const mcp_prompt *spec_in, entry **out, uint64_t seq)
{
    *out = NULL;
    mcp_prompt spec;
    if (!spec_in || mcp__opts_copy(&spec, sizeof spec, spec_in) != MCP_OK || !spec.name ||
        !spec.get || !prompt_name_ok(spec.name) || !utf8_or_null(spec.title) ||
        !utf8_or_null(spec.description) || (spec.argument_count && !spec.arguments) ||
        spec.argument_count > 1024 || !scopes_ok(spec.scopes))
        return MCP_ERR_INVALID_ARG;
    for (size_t i = 0; i < spec.argument_count; i++) {
        const mcp_prompt_argument *a = &spec.arguments[i];
        if (!a->name || !*a->name || !utf8_or_null(a->name) || !utf8_or_null(a->title) ||
            !utf8_or_null(a->description))
            return MCP_ERR_INVALID_ARG;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(spec.arguments[j].name, a->name))
                return MCP_ERR_INVALID_ARG;
    }
    mcp_buf b;
    mcp__jw w;
    entry *e = entry_begin(ENTRY_PROMPT, spec.name, seq, spec.get, spec.complete, spec.user_data,
                           spec.flags, spec.scopes, &w, &b);
    if (!e)
        return MCP_ERR_NOMEM;
    size_t n = spec.argument_count;
    e->arg_names = n ? calloc(n, sizeof *e->arg_names) : NULL;
    e->arg_required = n ? calloc(n, sizeof *e->arg_required) : NULL;
    bool ok = !n || (e->arg_names && e->arg_required);
    for (; ok && e->nargs < n; e->nargs++) {
        e->arg_names[e->nargs] = strdup(spec.arguments[e->nargs].name);
        e->arg_required[e->nargs] = spec.arguments[e->nargs].required;
        ok = e->arg_names[e->nargs] != NULL;
    }
    if (!ok) {
        mcp_buf_free(&b);
        mcp__entry_unref(e);
        return MCP_ERR_NOMEM;
    }
    static const char *const keys[] = {"name", "title", "description"};
    const char *const values[] = {spec.name, spec.title, spec.description};
    texts(&w, keys, values, 3);
    if (n) {
        mcp__jw_key(&w, "arguments");
        mcp__jw_array(&w);
        for (size_t i = 0; i < n; i++) {
            const mcp_prompt_argument *a = &spec.arguments[i];
            mcp__jw_object(&w);
            static const char *const akeys[] = {"name", "title", "description"};
            const char *const avalues[] = {a->name, a->title, a->description};
            texts(&w, akeys, avalues, 3);
            if (a->required) {
                mcp__jw_key(&w, "required");
                mcp__jw_bool(&w, true);
            }
            mcp__jw_object_end(&w);
        }
        mcp__jw_array_end(&w);
    }
    int rc = mcp__catalog_extras(&w, NULL, spec.icons, spec.meta);
    mcp__jw_object_end(&w);
    return entry_done(e, &w, &b, rc, out);
}
