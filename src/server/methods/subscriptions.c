/* SPDX-License-Identifier: MIT */
/*
 * The 2025 resources/subscribe and resources/unsubscribe: a connection's
 * URIs, told of the updates the application publishes. (2026-07-28 has no
 * subscribe: its listens carry the same updates, session/listen.c.)
 */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "server/methods/methods.h"

/* The longest URI subscribed to (what a resource may be registered with)
 * and how many subscriptions one connection may hold: a client cannot make
 * the server keep more than 8 MiB. */
#define MAX_SUBSCRIBED_URI 8192
#define MAX_SUBSCRIPTIONS 1024

/* A subscription's URI follows its hash and length in one block, so the
 * scan compares hashes (a keyed hash: a client cannot make them collide)
 * and touches a URI only on a match. */
typedef struct subscription {
    uint64_t hash;
    size_t len;
    char uri[];
} subscription;

/* A connection's subscriptions (its feature state), loop thread. */
typedef struct subscriptions {
    subscription **v;
    size_t n;
} subscriptions;

static size_t subscription_index(const subscriptions *subs, const char *uri, size_t n,
                                 uint64_t hash)
{
    for (size_t i = 0; i < subs->n; i++) {
        const subscription *s = subs->v[i];
        if (s->hash == hash && s->len == n && !memcmp(s->uri, uri, n))
            return i;
    }
    return SIZE_MAX;
}

static void subscribe(conn *c, subscriptions *subs, mcp_handle h, const mcp_message *msg,
                      bool on)
{
    mcp_session *ss = c->driver.session;
    size_t n;
    const char *uri = mcp__uri_param(ss, h, msg, &n);
    if (!uri)
        return;
    if (n > MAX_SUBSCRIBED_URI) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: a subscribed URI is at most 8192 bytes", NULL);
        return;
    }
    uint64_t hash = mcp__hash_bytes(uri, n);
    size_t i = subscription_index(subs, uri, n, hash);
    if (on && i == SIZE_MAX) {
        if (subs->n == MAX_SUBSCRIPTIONS) {
            mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                    "Invalid params: too many subscriptions (1024): unsubscribe "
                                    "from some first",
                                    NULL);
            return;
        }
        subscription **v = realloc(subs->v, (subs->n + 1) * sizeof *v);
        subscription *s = malloc(sizeof *s + n + 1);
        if (v)
            subs->v = v;
        if (!v || !s) {
            free(s);
            mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR,
                                    "Internal error: out of memory", NULL);
            return;
        }
        s->hash = hash;
        s->len = n;
        memcpy(s->uri, uri, n + 1);
        subs->v[subs->n++] = s;
    } else if (!on && i != SIZE_MAX) {
        free(subs->v[i]);
        subs->v[i] = subs->v[--subs->n];
    }
    mcp_session_reply_raw(ss, h, "{}", 2);
}

static void resources_subscribe(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    subscribe(c, state, h, msg, true);
}

static void resources_unsubscribe(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    subscribe(c, state, h, msg, false);
}

/* Tell c's legacy session that uri changed, if it subscribed. */
static void published(conn *c, void *state, unsigned kind, const char *uri)
{
    const subscriptions *subs = state;
    if (kind != MCP_LISTEN_RESOURCE_UPDATES || !subs->n)
        return;
    size_t n = strlen(uri);
    if (subscription_index(subs, uri, n, mcp__hash_bytes(uri, n)) == SIZE_MAX)
        return;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = d ? mcp_json_new_object(d) : NULL;
    if (params)
        mcp_json_object_set(d, params, "uri", mcp_json_new_string(d, uri));
    if (params && !mcp_json_doc_error(d))
        mcp_session_notify(c->driver.session, "notifications/resources/updated", params);
    else
        mcp__server_log(c->server, MCP_LOG_ERROR, "out of memory: an update of %s was not sent",
                        uri);
    mcp_json_doc_free(d);
}

static void conn_free(conn *c, void *state)
{
    subscriptions *subs = state;
    for (size_t i = 0; i < subs->n; i++)
        free(subs->v[i]);
    free(subs->v);
}

/* 2026-07-28 has no subscribe (the session refuses it as removed): its
 * listens carry the updates. */
static const char not_offered[] = "Method not found: this server offers no resource subscriptions";

static const mcp__method methods[] = {
    {"resources/subscribe", resources_subscribe, MCP__ERA_2025, "resources.subscribe",
     not_offered},
    {"resources/unsubscribe", resources_unsubscribe, MCP__ERA_2025, "resources.subscribe",
     not_offered},
};

const mcp__feature mcp__subscriptions_feature = {
    .name = "resources/subscribe",
    .methods = methods,
    .nmethods = 2,
    .conn_state_size = sizeof(subscriptions),
    .conn_free = conn_free,
    .published = published,
};
