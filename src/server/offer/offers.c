/* SPDX-License-Identifier: MIT */
/*
 * What is registered now, changed from any thread. Each change makes a new
 * snapshot when one is being served (else the first request that asks
 * makes it), so a request never sees a list half changed.
 */
#include <stdlib.h>
#include <string.h>

#include "server/offer/offer.h"

void mcp__offers_init(mcp__offers *o, size_t page_size, uint64_t ttl_ms, mcp_cache_scope scope)
{
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->mu, NULL);
    o->page_size = page_size;
    o->ttl_ms = ttl_ms;
    o->scope = scope;
}

void mcp__offers_destroy(mcp__offers *o)
{
    for (int k = 0; k < LIST_KINDS; k++) {
        for (size_t i = 0; i < o->lists[k].n; i++)
            mcp__item_unref(k, o->lists[k].v[i]);
        free(o->lists[k].v);
    }
    mcp__registry_unref(o->current);
    pthread_mutex_destroy(&o->mu);
}

/* Under o->mu: a new snapshot of what is registered. */
static int rebuild(mcp__offers *o)
{
    registry *r = mcp__registry_build(o->lists, o->page_size, o->ttl_ms, o->scope);
    if (!r)
        return MCP_ERR_NOMEM;
    mcp__registry_unref(o->current);
    o->current = r;
    return MCP_OK;
}

registry *mcp__offers_snapshot(mcp__offers *o)
{
    pthread_mutex_lock(&o->mu);
    if (!o->current)
        rebuild(o);
    registry *r = o->current;
    if (r)
        mcp__registry_ref(r);
    pthread_mutex_unlock(&o->mu);
    return r;
}

/* Under o->mu: where key is in list k, or SIZE_MAX. */
static size_t find_index(const mcp__offers *o, int k, const char *key)
{
    for (size_t i = 0; i < o->lists[k].n; i++)
        if (strcmp(mcp__item_key(k, o->lists[k].v[i]), key) == 0)
            return i;
    return SIZE_MAX;
}

/* Under o->mu: the lists changed: a new snapshot now if one is served.
 * On failure the served one stays. */
static int changed(mcp__offers *o)
{
    int rc = MCP_OK;
    if (o->current) {
        registry *old = o->current;
        o->current = NULL;
        rc = rebuild(o);
        if (rc != MCP_OK)
            o->current = old;
        else
            mcp__registry_unref(old);
    }
    return rc;
}

int mcp__offers_add(mcp__offers *o, int k, void *item)
{
    item_list *l = &o->lists[k];
    int rc = MCP_OK;
    pthread_mutex_lock(&o->mu);
    if (find_index(o, k, mcp__item_key(k, item)) != SIZE_MAX) {
        rc = MCP_ERR_INVALID_ARG;
    } else if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        void **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            rc = MCP_ERR_NOMEM;
        } else {
            l->v = v;
            l->cap = cap;
        }
    }
    if (rc == MCP_OK) {
        l->v[l->n++] = item;
        rc = changed(o);
        if (rc != MCP_OK)
            l->n--; /* the served snapshot stays as it was */
    }
    pthread_mutex_unlock(&o->mu);
    if (rc != MCP_OK)
        mcp__item_unref(k, item);
    return rc;
}

int mcp__offers_remove(mcp__offers *o, int k, const char *key)
{
    if (!key)
        return MCP_ERR_NOT_FOUND;
    item_list *l = &o->lists[k];
    void *item = NULL;
    pthread_mutex_lock(&o->mu);
    size_t i = find_index(o, k, key);
    if (i != SIZE_MAX) {
        item = l->v[i];
        memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof *l->v);
        l->n--;
        /* No memory for the new snapshot: the old one, with the item, is
         * served until the next change. */
        changed(o);
    }
    pthread_mutex_unlock(&o->mu);
    if (!item)
        return MCP_ERR_NOT_FOUND;
    mcp__item_unref(k, item);
    return MCP_OK;
}

uint64_t mcp__offers_next_seq(mcp__offers *o)
{
    pthread_mutex_lock(&o->mu);
    uint64_t seq = ++o->next_seq;
    pthread_mutex_unlock(&o->mu);
    return seq;
}

size_t mcp__offers_count(mcp__offers *o, int k)
{
    pthread_mutex_lock(&o->mu);
    size_t n = o->lists[k].n;
    pthread_mutex_unlock(&o->mu);
    return n;
}
