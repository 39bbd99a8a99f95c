/* SPDX-License-Identifier: MIT */
/*
 * The application changes what the server offers, from any thread
 * (offer/offers.c keeps it), or publishes news of its own (a resource
 * updated), and the clients that listen for it are told, each the way of
 * its revision (and the features' way: mcp__feature.published).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/core/core.h"

/* Publishing from any thread ------------------------------------------------------- */

typedef struct publish_post {
    mcp__post post;
    mcp_server *server;
    unsigned kind;
    char *uri;
} publish_post;

static void tell_conns(mcp_server *s, unsigned kind, const char *uri)
{
    for (conn *c = s->conns; c; c = c->next)
        if (!c->down) {
            mcp_session_publish(c->driver.session, kind, uri);
            mcp__features_published(c, kind, uri);
        }
}

static void publish_now(mcp_server *s, unsigned kind, const char *uri)
{
    mcp__features_news(s, kind, uri);
    tell_conns(s, kind, uri);
}

void mcp__server_publish_heard(mcp_server *s, unsigned kind, const char *uri)
{
    if ((kind != MCP_LISTEN_TOOLS && kind != MCP_LISTEN_PROMPTS && kind != MCP_LISTEN_RESOURCES &&
         kind != MCP_LISTEN_RESOURCE_UPDATES) ||
        (kind == MCP_LISTEN_RESOURCE_UPDATES) != (uri != NULL) ||
        (uri && mcp_utf8_validate(uri, strlen(uri), NULL) != MCP_OK) ||
        !(s->opts.listen_kinds & kind))
        return;
    tell_conns(s, kind, uri);
}

static void publish_posted(mcp__post *post)
{
    publish_post *p = (publish_post *)post;
    publish_now(p->server, p->kind, p->uri);
    free(p->uri);
    free(p);
}

int mcp_server_publish(mcp_server *s, unsigned kind, const char *uri)
{
    if ((kind != MCP_LISTEN_TOOLS && kind != MCP_LISTEN_PROMPTS && kind != MCP_LISTEN_RESOURCES &&
         kind != MCP_LISTEN_RESOURCE_UPDATES) ||
        (kind == MCP_LISTEN_RESOURCE_UPDATES) != (uri != NULL) ||
        (uri && mcp_utf8_validate(uri, strlen(uri), NULL) != MCP_OK))
        return MCP_ERR_INVALID_ARG;
    if (!(s->opts.listen_kinds & kind) || !atomic_load(&s->loop_open))
        return MCP_OK;
    if (mcp__on_loop_thread(&s->poster)) {
        publish_now(s, kind, uri);
        return MCP_OK;
    }
    publish_post *p = calloc(1, sizeof *p);
    if (!p || (uri && !(p->uri = strdup(uri)))) {
        free(p);
        return MCP_ERR_NOMEM;
    }
    p->post.run = publish_posted;
    p->server = s;
    p->kind = kind;
    if (!mcp__server_post(s, &p->post)) {
        free(p->uri);
        free(p);
    }
    return MCP_OK;
}

/* Which list_changed each list publishes. */
static const unsigned list_news[LIST_KINDS] = {MCP_LISTEN_TOOLS, MCP_LISTEN_RESOURCES,
                                               MCP_LISTEN_RESOURCES, MCP_LISTEN_PROMPTS};

registry *mcp__server_snapshot(mcp_server *s)
{
    return mcp__offers_snapshot(&s->offers);
}

static int add_item(mcp_server *s, int k, void *item)
{
    int rc = mcp__offers_add(&s->offers, k, item);
    if (rc == MCP_OK)
        mcp_server_publish(s, list_news[k], NULL);
    return rc;
}

static int remove_item(mcp_server *s, int k, const char *key)
{
    int rc = mcp__offers_remove(&s->offers, k, key);
    if (rc == MCP_OK)
        mcp_server_publish(s, list_news[k], NULL);
    return rc;
}

int mcp_server_add_tool(mcp_server *s, const mcp_tool *spec)
{
    tool *t;
    int rc = mcp__tool_new(spec, &t, mcp__offers_next_seq(&s->offers));
    return rc == MCP_OK ? add_item(s, LIST_TOOLS, t) : rc;
}

int mcp_server_remove_tool(mcp_server *s, const char *name)
{
    return remove_item(s, LIST_TOOLS, name);
}

int mcp_server_add_resource(mcp_server *s, const mcp_resource *spec)
{
    entry *e;
    int rc = mcp__resource_new(spec, &e, mcp__offers_next_seq(&s->offers));
    return rc == MCP_OK ? add_item(s, LIST_RESOURCES, e) : rc;
}

int mcp_server_add_resource_template(mcp_server *s, const mcp_resource_template *spec)
{
    entry *e;
    char why[200] = "";
    int rc = mcp__template_new(spec, &e, mcp__offers_next_seq(&s->offers), why, sizeof why);
    if (rc == MCP_ERR_INVALID_ARG && why[0])
        mcp__server_log(s, MCP_LOG_ERROR, "resource template '%.200s' refused: %s",
                        spec->uri_template, why);
    return rc == MCP_OK ? add_item(s, LIST_TEMPLATES, e) : rc;
}

int mcp_server_add_prompt(mcp_server *s, const mcp_prompt *spec)
{
    entry *e;
    int rc = mcp__prompt_new(spec, &e, mcp__offers_next_seq(&s->offers));
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
