/* SPDX-License-Identifier: MIT */
/*
 * The registry: immutable snapshots of what is offered, and their pages. A
 * snapshot serializes its first pages once, so answering a list costs a
 * copy of bytes, not a document build; a new snapshot replaces it when the
 * lists change, while requests that started with the old one keep it until
 * they end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/writer.h"
#include "server/offer/offer.h"

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

const char *mcp__registry_first_page(const registry *r, int k, bool modern, size_t *len)
{
    *len = r->first_len[k][modern];
    return r->first[k][modern];
}

int mcp__registry_page(const registry *r, int k, const char *cursor, size_t n, bool modern,
                       mcp_buf *out)
{
    size_t from;
    if (!cursor_index(r, k, cursor, n, &from))
        return MCP_ERR_NOT_FOUND;
    return write_page(r, k, from, modern, out) == MCP_OK ? MCP_OK : MCP_ERR_NOMEM;
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

const entry *mcp__registry_read_entry(const registry *r, const char *uri, size_t n,
                                      mcp_json_doc **vars, bool *nomem)
{
    *nomem = false;
    if (vars)
        *vars = NULL;
    const entry *e = mcp__registry_entry(r, LIST_RESOURCES, uri, n);
    const item_list *tl = &r->lists[LIST_TEMPLATES];
    for (size_t i = 0; !e && i < tl->n; i++) {
        const entry *t = tl->v[i];
        mcp_json_doc *got = NULL;
        /* Not matching, or matching with a value that is not UTF-8: the
         * next template may take it. */
        int rc = mcp_uri_template_match(t->tmpl, uri, n, &got);
        if (rc == MCP_OK) {
            e = t;
            if (vars)
                *vars = got;
            else
                mcp_json_doc_free(got);
        } else if (rc == MCP_ERR_NOMEM) {
            *nomem = true;
            break;
        }
    }
    return e;
}

int mcp__registry_needs(const registry *r, const char *method, size_t mlen,
                        const mcp_json *params, const char *const **out)
{
    *out = NULL;
    bool call = mlen == 10 && !memcmp(method, "tools/call", 10);
    bool get = mlen == 11 && !memcmp(method, "prompts/get", 11);
    bool read = mlen == 14 && !memcmp(method, "resources/read", 14);
    if (!call && !get && !read)
        return MCP_OK;
    size_t n;
    const char *key = mcp_json_string(mcp_json_object_get(params, read ? "uri" : "name"), &n);
    if (!key || memchr(key, '\0', n))
        return MCP_OK; /* the method says what is wrong with it */
    if (call) {
        const tool *t = mcp__registry_find(r, key, n);
        *out = t ? (const char *const *)t->scopes : NULL;
        return MCP_OK;
    }
    bool nomem = false;
    const entry *e = get ? mcp__registry_entry(r, LIST_PROMPTS, key, n)
                         : mcp__registry_read_entry(r, key, n, NULL, &nomem);
    *out = e ? (const char *const *)e->scopes : NULL;
    return nomem ? MCP_ERR_NOMEM : MCP_OK;
}
