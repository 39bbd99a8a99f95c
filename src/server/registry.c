/* SPDX-License-Identifier: MIT */
/*
 * The registry: tools as registered, and the immutable snapshots served
 * from them. A snapshot serializes its tools/list answers once, so
 * answering one costs a copy of bytes, not a document build; a new snapshot
 * replaces it when the tools change, while requests that started with the
 * old one keep it until they end.
 */
#include <stdio.h>
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
    free(t->title);
    free(t->description);
    mcp_json_doc_free(t->input_schema);
    mcp_json_doc_free(t->output_schema);
    mcp_schema_free(t->input_check);
    mcp_schema_free(t->output_check);
    mcp_json_doc_free(t->required_caps);
    free(t);
}

int mcp__tool_new(const mcp_tool *spec_in, tool **out, uint64_t seq)
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
    if (rc == MCP_OK)
        rc = tool_item(t, &spec);
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
    t->l.seq = seq;
    t->handler = spec.handler;
    t->user_data = spec.user_data;
    t->flags = spec.flags;
    *out = t;
    return MCP_OK;
}

/* Lists and pages ------------------------------------------------------------------- */

static const struct {
    const char *key;    /* the result's array */
    char cursor;        /* the cursor's mark: a cursor of one list is no other's */
} lists_info[LIST_KINDS] = {{"tools", 't'}, {"resources", 'r'}, {"resourceTemplates", 'u'},
                            {"prompts", 'p'}};

static const listed *listed_of(int k, const void *item)
{
    return k == LIST_TOOLS ? &((const tool *)item)->l : &((const entry *)item)->l;
}

/* The page of list k from index `from`: {"<key>":[...],"nextCursor":...}
 * and, for 2026-07-28, the caching hints. */
static int write_page(const registry *r, int k, size_t from, bool modern, mcp_buf *b)
{
    const item_list *l = &r->lists[k];
    size_t end = l->n - from > r->page_size ? from + r->page_size : l->n;
    mcp__jw w;
    mcp__jw_begin(&w, b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, lists_info[k].key);
    mcp__jw_array(&w);
    for (size_t i = from; i < end; i++) {
        const listed *it = listed_of(k, l->v[i]);
        mcp__jw_raw(&w, it->item, it->item_len);
    }
    mcp__jw_array_end(&w);
    if (end < l->n) {
        char cursor[32];
        snprintf(cursor, sizeof cursor, "%c.%llu", lists_info[k].cursor,
                 (unsigned long long)listed_of(k, l->v[end])->seq);
        mcp__jw_key(&w, "nextCursor");
        mcp__jw_string(&w, cursor);
    }
    if (modern) {
        mcp__jw_key(&w, "ttlMs");
        mcp__jw_int(&w, r->ttl_ms > INT64_MAX ? INT64_MAX : (int64_t)r->ttl_ms);
        mcp__jw_key(&w, "cacheScope");
        mcp__jw_string(&w, r->scope == MCP_CACHE_PRIVATE ? "private" : "public");
    }
    mcp__jw_object_end(&w);
    return mcp__jw_finish(&w);
}

/* The index a cursor of list k names: the first item registered at or
 * after the one it named (which may have gone since). False for a string
 * this server never gave: "<mark>.<decimal>", no sign, no leading zero. */
static bool cursor_index(const registry *r, int k, const char *c, size_t n, size_t *index)
{
    if (n < 3 || n > 22 || c[0] != lists_info[k].cursor || c[1] != '.' ||
        (c[2] == '0' && n > 3))
        return false;
    uint64_t seq = 0;
    for (size_t i = 2; i < n; i++) {
        if (c[i] < '0' || c[i] > '9' || seq > (UINT64_MAX - 9) / 10)
            return false;
        seq = seq * 10 + (uint64_t)(c[i] - '0');
    }
    /* Registration order is seq order: the first at or after it. */
    const item_list *l = &r->lists[k];
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (listed_of(k, l->v[mid])->seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    *index = lo;
    return true;
}

void mcp__registry_reply_list(const registry *r, int k, mcp_session *ss, mcp_handle h,
                              const mcp_message *msg)
{
    bool modern = mcp_protocol_modern(mcp_session_inbound_version(ss, h));
    const mcp_json *cursor = mcp_json_object_get(msg->params, "cursor");
    if (!cursor || mcp_json_typeof(cursor) == MCP_JSON_NULL) {
        mcp_session_reply_raw(ss, h, r->first[k][modern], r->first_len[k][modern]);
        return;
    }
    size_t n, from;
    const char *c = mcp_json_string(cursor, &n);
    if (!c || !cursor_index(r, k, c, n, &from)) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: the cursor is not one this server gave for this "
                                "list (list again without one)",
                                NULL);
        return;
    }
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    if (write_page(r, k, from, modern, &b) == MCP_OK)
        mcp_session_reply_raw(ss, h, b.data, b.len);
    else
        mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory",
                                NULL);
    mcp_buf_free(&b);
}

registry *mcp__registry_build(const item_list lists[LIST_KINDS], size_t page_size,
                              uint64_t ttl_ms, mcp_cache_scope scope)
{
    registry *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    atomic_init(&r->refs, 1);
    r->page_size = page_size;
    r->ttl_ms = ttl_ms;
    r->scope = scope;
    bool ok = true;
    for (int k = 0; k < LIST_KINDS && ok; k++) {
        size_t n = lists[k].n;
        r->lists[k].v = n ? calloc(n, sizeof *r->lists[k].v) : NULL;
        ok = !n || r->lists[k].v;
        for (size_t i = 0; ok && i < n; i++) {
            void *it = lists[k].v[i];
            if (k == LIST_TOOLS)
                atomic_fetch_add(&((tool *)it)->refs, 1);
            else
                atomic_fetch_add(&((entry *)it)->refs, 1);
            r->lists[k].v[r->lists[k].n++] = it;
        }
        for (int m = 0; ok && m < 2; m++) {
            mcp_buf b;
            mcp_buf_init(&b, 0, NULL);
            ok = write_page(r, k, 0, m, &b) == MCP_OK;
            r->first[k][m] = b.data; /* the buffer's allocation is plain malloc */
            r->first_len[k][m] = b.len;
            if (!ok)
                mcp_buf_free(&b);
        }
    }
    if (!ok) {
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
    for (int k = 0; k < LIST_KINDS; k++) {
        for (size_t i = 0; i < r->lists[k].n; i++)
            mcp__item_unref(k, r->lists[k].v[i]);
        free(r->lists[k].v);
        free(r->first[k][0]);
        free(r->first[k][1]);
    }
    free(r);
}

void mcp__item_unref(int k, void *item)
{
    if (k == LIST_TOOLS)
        mcp__tool_unref(item);
    else
        mcp__entry_unref(item);
}

const char *mcp__item_key(int k, const void *item)
{
    return k == LIST_TOOLS ? ((const tool *)item)->name : ((const entry *)item)->key;
}

const tool *mcp__registry_find(const registry *r, const char *name, size_t len)
{
    const item_list *l = &r->lists[LIST_TOOLS];
    for (size_t i = 0; i < l->n; i++) {
        const tool *t = l->v[i];
        if (strlen(t->name) == len && memcmp(t->name, name, len) == 0)
            return t;
    }
    return NULL;
}

const entry *mcp__registry_entry(const registry *r, int k, const char *key, size_t len)
{
    const item_list *l = &r->lists[k];
    for (size_t i = 0; i < l->n; i++) {
        const entry *e = l->v[i];
        if (strlen(e->key) == len && memcmp(e->key, key, len) == 0)
            return e;
    }
    return NULL;
}
