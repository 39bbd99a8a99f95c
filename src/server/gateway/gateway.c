/* SPDX-License-Identifier: MIT */
/*
 * The gateway feature: its methods take over every method that reaches
 * what a server offers, and forward it to a child (upstream.c) when the
 * server is a gateway; otherwise they pass the request on to the method
 * they took over. See gateway.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/gateway/gateway.h"

/* A connection's child (2025 sessions only). */
typedef struct gateway_conn {
    upstream *up;
} gateway_conn;

static void forward_request(conn *c, mcp_handle h, const mcp_message *msg, void *state);

static const mcp__method methods[] = {
    {"tools/list", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"tools/call", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"resources/list", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"resources/templates/list", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"resources/read", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"resources/subscribe", forward_request, MCP__ERA_2025, NULL, NULL},
    {"resources/unsubscribe", forward_request, MCP__ERA_2025, NULL, NULL},
    {"prompts/list", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"prompts/get", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"completion/complete", forward_request, MCP__ERAS_ALL, NULL, NULL},
    /* A 2025-11-25 session's tasks are its child's; 2026-07-28 requests
     * are spoken to the child without the tasks extension, so no task of
     * theirs is made there: the tasks feature answers those. */
    {"tasks/get", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"tasks/result", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"tasks/list", forward_request, MCP__ERAS_ALL, NULL, NULL},
    {"tasks/cancel", forward_request, MCP__ERAS_ALL, NULL, NULL},
};

static void forward_destroy(mcp__request *r)
{
    free(r);
}

/* Seconds a request refused for want of a child is told to wait. */
#define BUSY_RETRY_S 2

/* The shared child, started: subscribed to every URI the listens watch. */
static upstream *open_shared(gateway *gw)
{
    upstream *up = upstream_open(gw, NULL, NULL, NULL, NULL);
    if (up && !up->gone)
        gw->shared = up;
    for (size_t i = 0; up && !up->gone && i < gw->nwatched; i++)
        upstream_subscribe(up, gw->watched[i].uri, true);
    return up;
}

/* The child request h goes to, or NULL with why (n bytes) when none can
 * run: the server stops, as many run as may, or the spawn failed. Nothing
 * is kept of a refusal: the next request tries again. */
static upstream *upstream_for(gateway *gw, conn *c, mcp_handle h, gateway_conn *gc, char *why,
                              size_t n)
{
    mcp_session *ss = c->driver.session;
    bool modern = mcp_protocol_modern(mcp_session_inbound_version(ss, h));
    upstream *have = modern ? gw->shared : gc->up;
    if (have)
        return have;
    if (gw->stopping) {
        snprintf(why, n, "Internal error: the server is stopping");
        return NULL;
    }
    if (gw->children >= gw->max_children) {
        rounds_make_room(gw);
        snprintf(why, n, "Internal error: too many server processes: %u run already, the most "
                 "this gateway runs at once; try again when a session has ended", gw->max_children);
        return NULL;
    }
    upstream *up;
    if (modern) {
        up = open_shared(gw);
    } else {
        const mcp_json *init = mcp_session_peer_info(ss);
        up = upstream_open(gw, c, mcp_session_protocol_version(ss),
                           mcp_json_object_get(init, "clientInfo"),
                           mcp_json_object_get(init, "capabilities"));
    }
    if (up && up->gone) { /* it never ran, or could not be spoken to */
        snprintf(why, n, "Internal error: %s", up->why);
        upstream_close(up, up->why);
        return NULL;
    }
    if (!modern)
        gc->up = up;
    return up;
}

/* The refusal to come for h is for want of capacity: over HTTP a 503 with
 * Retry-After, which tells the client (and any balancer) to come back. */
void gateway_refuse_busy(conn *c, mcp_handle h)
{
    mcp__transport *t = c->driver.transport;
    uint64_t route = mcp_session_inbound_route(c->driver.session, h);
    if (t && t->ops->unavailable && route)
        t->ops->unavailable(t, route, BUSY_RETRY_S);
}

static void forward_request(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    gateway *gw = mcp__server_state(c->server, &mcp__gateway_feature);
    mcp_session *ss = c->driver.session;
    if (!gw->argv || (!strncmp(msg->method, "tasks/", 6) &&
                      mcp_protocol_modern(mcp_session_inbound_version(ss, h)))) {
        for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
            if (!strcmp(methods[i].name, msg->method)) {
                mcp__method_pass_on(c, h, msg, &methods[i]);
                return;
            }
    }
    forward *f = calloc(1, sizeof *f);
    if (!f || mcp__request_start(&f->req, c, h, msg, NULL) != MCP_OK) {
        free(f);
        mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory",
                                NULL);
        return;
    }
    f->req.destroy = forward_destroy;
    if (mcp_protocol_modern(mcp_session_inbound_version(ss, h)) && rounds_wanted(msg)) {
        round_request(gw, c, h, f);
        return;
    }
    char why[300] = "Internal error: out of memory";
    upstream *up = upstream_for(gw, c, h, state, why, sizeof why);
    if (!up) {
        gateway_refuse_busy(c, h);
        mcp__request_end(&f->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, why, strlen(why));
        return;
    }
    upstream_forward(up, f);
}

/* Hooks --------------------------------------------------------------------------- */

static void request_settled(mcp__request *r, void *state, const mcp__settle *how)
{
    (void)state;
    forward *f = (forward *)r;
    if (r->destroy != forward_destroy || !how->cancelled)
        return;
    if (f->held)
        round_cancelled(f, how->reason);
    else
        upstream_cancel(f, how->reason);
}

static void conn_ending(conn *c, void *state, const char *why)
{
    (void)c;
    gateway_conn *gc = state;
    if (gc->up) {
        upstream *up = gc->up;
        gc->up = NULL;
        upstream_close(up, why ? why : "the session ended");
    }
}

/* What a 2025 client tells its session (its roots changed, say) is told
 * to the session's child; before it has one there is no one to tell (a
 * child asks for roots when it starts). */
static void notification(conn *c, void *state, const mcp_message *msg)
{
    gateway_conn *gc = state;
    upstream *up = gc->up;
    if (up && up->connected && !up->over && up->driver_open) {
        /* (Before its initialize is answered nothing may be told; a child
         * asks for roots when it starts.) */
        mcp_session_notify(up->driver.session, msg->method, msg->params);
        mcp__driver_rearm(&up->driver);
    }
    (void)c;
}

/* 2026-07-28 listens -------------------------------------------------------------- */

static size_t watched_index(const gateway *gw, const char *uri, size_t n)
{
    for (size_t i = 0; i < gw->nwatched; i++)
        if (strlen(gw->watched[i].uri) == n && !memcmp(gw->watched[i].uri, uri, n))
            return i;
    return SIZE_MAX;
}

static void watch(gateway *gw, const char *uri, size_t n)
{
    size_t i = watched_index(gw, uri, n);
    if (i != SIZE_MAX) {
        gw->watched[i].listens++;
        return;
    }
    /* Not a C string: never watched (its end finds nothing either). The
     * URIs are as many as the listens' filters name, which the server's
     * bounds on connections and messages bound. */
    if (memchr(uri, '\0', n)) {
        mcp__server_log(gw->server, MCP_LOG_WARNING,
                        "gateway: a listen's resource URI with a NUL is not watched");
        return;
    }
    if (gw->nwatched == gw->capwatched) {
        size_t cap = gw->capwatched ? 2 * gw->capwatched : 16;
        watched *v = realloc(gw->watched, cap * sizeof *v);
        if (!v)
            return;
        gw->watched = v;
        gw->capwatched = cap;
    }
    char *copy = strndup(uri, n);
    if (!copy)
        return;
    gw->watched[gw->nwatched++] = (watched){copy, 1};
    if (gw->shared)
        upstream_subscribe(gw->shared, copy, true);
}

static void unwatch(gateway *gw, const char *uri, size_t n)
{
    size_t i = watched_index(gw, uri, n);
    if (i == SIZE_MAX || --gw->watched[i].listens)
        return; /* never watched, or another listen still is */
    if (gw->shared)
        upstream_subscribe(gw->shared, gw->watched[i].uri, false);
    free(gw->watched[i].uri);
    gw->watched[i] = gw->watched[--gw->nwatched];
}

/* A listen's resource URIs are watched while it lasts: the shared child
 * is subscribed to each URI while any listen names it (the updates it
 * sends go to the listens as heard news). A URI named twice in one
 * listen counts twice, and is let go twice. */
static void listen_changed(conn *c, void *state, const mcp_json *uris, bool open)
{
    (void)state;
    gateway *gw = mcp__server_state(c->server, &mcp__gateway_feature);
    if (!gw->argv)
        return;
    for (size_t i = 0; i < mcp_json_array_size(uris); i++) {
        size_t n;
        const char *uri = mcp_json_string(mcp_json_array_at(uris, i), &n);
        if (uri && open)
            watch(gw, uri, n);
        else if (uri)
            unwatch(gw, uri, n);
    }
    /* The updates must come from somewhere: without a shared child (none
     * yet, or it died) one is started, which subscribes to every URI
     * watched. A listen is no request that would start it. */
    if (open && gw->nwatched && !gw->shared && !gw->stopping &&
        gw->children < gw->max_children)
        open_shared(gw);
}

static int server_init(mcp_server *s, void *state)
{
    gateway *gw = state;
    gw->server = s;
    const char *const *argv = s->opts.upstream_argv;
    if (!argv || !argv[0])
        return MCP_OK;
    size_t n = 0;
    while (argv[n])
        n++;
    gw->argv = calloc(n + 1, sizeof *gw->argv);
    if (!gw->argv)
        return MCP_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        if (!(gw->argv[i] = strdup(argv[i])))
            return MCP_ERR_NOMEM;
    gw->max_children = s->opts.upstream_max_children ? s->opts.upstream_max_children : 64;
    /* The calls a requestState names are this run's: a state of an earlier
     * run under the same key names none of them. */
    if (!mcp__random_hex(gw->epoch, 8))
        return MCP_ERR_NOMEM;
    return MCP_OK;
}

static void server_free(mcp_server *s, void *state)
{
    (void)s;
    gateway *gw = state;
    for (size_t i = 0; gw->argv && gw->argv[i]; i++)
        free(gw->argv[i]);
    free(gw->argv);
    gw->argv = NULL;
    for (size_t i = 0; i < gw->nwatched; i++)
        free(gw->watched[i].uri);
    free(gw->watched);
    gw->watched = NULL;
    gw->nwatched = gw->capwatched = 0;
    for (size_t i = 0; i < gw->ntask_only; i++)
        free(gw->task_only[i]);
    free(gw->task_only);
    gw->task_only = NULL;
    gw->ntask_only = 0;
}

/* The shared child and the ones whose sessions are gone are ended with
 * the server; a session's own ends with its connection (conn_ending). */
static void server_stopping(mcp_server *s, void *state)
{
    (void)s;
    gateway *gw = state;
    gw->stopping = true;
    if (gw->shared)
        upstream_close(gw->shared, "the server stops");
    rounds_close_all(gw);
}

/* A run after a stop serves again. */
static void loop_opened(mcp_server *s, void *state)
{
    (void)s;
    ((gateway *)state)->stopping = false;
}

static void loop_closing(mcp_server *s, void *state)
{
    (void)s;
    rounds_close_all(state);
    upstream_close_all(state);
}

const mcp__feature mcp__gateway_feature = {
    .name = "gateway",
    .methods = methods,
    .nmethods = sizeof methods / sizeof methods[0],
    .server_state_size = sizeof(gateway),
    .server_init = server_init,
    .server_free = server_free,
    .conn_state_size = sizeof(gateway_conn),
    .conn_ending = conn_ending,
    .server_stopping = server_stopping,
    .loop_opened = loop_opened,
    .loop_closing = loop_closing,
    .request_settled = request_settled,
    .notification = notification,
    .listen = listen_changed,
};
