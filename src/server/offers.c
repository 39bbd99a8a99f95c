/* SPDX-License-Identifier: MIT */
/*
 * What the server offers, as registered: its tools, resources, resource
 * templates and prompts, changed from any thread. Each change makes a new
 * snapshot (registry.c) when one is being served, and tells the clients
 * that listen for that list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/internal.h"

/* Which list_changed each list publishes. */
static const unsigned list_news[LIST_KINDS] = {MCP_LISTEN_TOOLS, MCP_LISTEN_RESOURCES,
                                               MCP_LISTEN_RESOURCES, MCP_LISTEN_PROMPTS};

/* Under s->mu: a new snapshot of what is registered. */
static int rebuild(mcp_server *s)
{
    registry *r = mcp__registry_build(s->lists, s->opts.page_size, s->opts.cache_ttl_ms,
                                      s->opts.cache_scope);
    if (!r)
        return MCP_ERR_NOMEM;
    mcp__registry_unref(s->current);
    s->current = r;
    return MCP_OK;
}

registry *mcp__server_snapshot(mcp_server *s)
{
    pthread_mutex_lock(&s->mu);
    if (!s->current)
        rebuild(s);
    registry *r = s->current;
    if (r)
        mcp__registry_ref(r);
    pthread_mutex_unlock(&s->mu);
    return r;
}

/* Under s->mu: where key is in list k, or SIZE_MAX. */
static size_t find_index(const mcp_server *s, int k, const char *key)
{
    for (size_t i = 0; i < s->lists[k].n; i++)
        if (strcmp(mcp__item_key(k, s->lists[k].v[i]), key) == 0)
            return i;
    return SIZE_MAX;
}

/* Under s->mu: the registry changed: a new snapshot now if one is served
 * (else when the first request asks). On failure the served one stays. */
static int changed(mcp_server *s)
{
    int rc = MCP_OK;
    if (s->current) {
        registry *old = s->current;
        s->current = NULL;
        rc = rebuild(s);
        if (rc != MCP_OK)
            s->current = old;
        else
            mcp__registry_unref(old);
    }
    return rc;
}

/* Register item (ours now, released on failure) in list k. */
static int add_item(mcp_server *s, int k, void *item)
{
    item_list *l = &s->lists[k];
    int rc = MCP_OK;
    pthread_mutex_lock(&s->mu);
    if (find_index(s, k, mcp__item_key(k, item)) != SIZE_MAX) {
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
        rc = changed(s);
        if (rc != MCP_OK)
            l->n--; /* the served snapshot stays as it was */
    }
    pthread_mutex_unlock(&s->mu);
    if (rc != MCP_OK) {
        mcp__item_unref(k, item);
        return rc;
    }
    mcp_server_publish(s, list_news[k], NULL);
    return MCP_OK;
}

static int remove_item(mcp_server *s, int k, const char *key)
{
    if (!key)
        return MCP_ERR_NOT_FOUND;
    item_list *l = &s->lists[k];
    void *item = NULL;
    pthread_mutex_lock(&s->mu);
    size_t i = find_index(s, k, key);
    if (i != SIZE_MAX) {
        item = l->v[i];
        memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof *l->v);
        l->n--;
        /* No memory for the new snapshot: the old one, with the item, is
         * served until the next change. */
        changed(s);
    }
    pthread_mutex_unlock(&s->mu);
    if (!item)
        return MCP_ERR_NOT_FOUND;
    mcp__item_unref(k, item);
    mcp_server_publish(s, list_news[k], NULL);
    return MCP_OK;
}

/* A number for the item about to be registered: its place in every list's
 * order, and what a cursor names. */
static uint64_t next_seq(mcp_server *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t seq = ++s->next_seq;
    pthread_mutex_unlock(&s->mu);
    return seq;
}

int mcp_server_add_tool(mcp_server *s, const mcp_tool *spec)
{
    tool *t;
    int rc = mcp__tool_new(spec, &t, next_seq(s));
    return rc == MCP_OK ? add_item(s, LIST_TOOLS, t) : rc;
}

int mcp_server_remove_tool(mcp_server *s, const char *name)
{
    return remove_item(s, LIST_TOOLS, name);
}

int mcp_server_add_resource(mcp_server *s, const mcp_resource *spec)
{
    entry *e;
    int rc = mcp__resource_new(spec, &e, next_seq(s));
    return rc == MCP_OK ? add_item(s, LIST_RESOURCES, e) : rc;
}

int mcp_server_add_resource_template(mcp_server *s, const mcp_resource_template *spec)
{
    entry *e;
    char why[200] = "";
    int rc = mcp__template_new(spec, &e, next_seq(s), why, sizeof why);
    if (rc == MCP_ERR_INVALID_ARG && why[0])
        mcp__server_log(s, MCP_LOG_ERROR, "resource template '%.200s' refused: %s",
                        spec->uri_template, why);
    return rc == MCP_OK ? add_item(s, LIST_TEMPLATES, e) : rc;
}

int mcp_server_add_prompt(mcp_server *s, const mcp_prompt *spec)
{
    entry *e;
    int rc = mcp__prompt_new(spec, &e, next_seq(s));
    return rc == MCP_OK ? add_item(s, LIST_PROMPTS, e) : rc;
}

int mcp_server_remove_resource(mcp_server *s, const char *uri_or_template)
{
    int rc = remove_item(s, LIST_RESOURCES, uri_or_template);
    return rc == MCP_ERR_NOT_FOUND ? remove_item(s, LIST_TEMPLATES, uri_or_template) : rc;
}

int mcp_server_remove_prompt(mcp_server *s, const char *name)
{
    return remove_item(s, LIST_PROMPTS, name);
}
