/* SPDX-License-Identifier: MIT */
/*
 * One connection: a client's session on the driver, its requests, and what
 * happens when its transport goes. When the input ends, every request in
 * flight is cancelled ("connection closed"); the connection then drains,
 * waiting up to the shutdown grace for its handlers to return and for as
 * long as the client reads for its replies to be written, and is released.
 * A client whose output failed (it read nothing past the output cap) is
 * released without waiting for what is stuck in its pipe.
 */
#include <stdlib.h>
#include <string.h>

#include "server/core/core.h"

void mcp__conn_ref(conn *c)
{
    atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
}

void mcp__conn_unref(conn *c)
{
    if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
        return;
    mcp__features_conn_free(c);
    free(c->credential);
    free(c);
}

/* Session events ------------------------------------------------------------------ */

static void on_request(void *ud, mcp_handle h, const mcp_message *msg)
{
    mcp__method_dispatch(ud, h, msg);
}

static void on_cancel(void *ud, mcp_handle h, const char *reason)
{
    mcp__request_cancelled(ud, h, reason);
}

static void on_notification(void *ud, const mcp_message *msg)
{
    conn *c = ud;
    mcp__server_log(c->server, MCP_LOG_DEBUG, "notification %s heard", msg->method);
    mcp__features_notification(c, msg);
}

static void on_listen(void *ud, mcp_handle h, const mcp_json *uris, bool open)
{
    mcp__features_listen(ud, h, uris, open);
}

static void on_log(void *ud, const mcp_log_record *r)
{
    conn *c = ud;
    mcp__server_log_record(c->server, r);
}

static void on_transport_down(void *ud, bool input, const char *why)
{
    conn *c = ud;
    mcp_server *s = c->server;
    size_t n = mcp_session_inbound_count(c->driver.session);
    if (c->down && input)
        return; /* ended already: nothing was in flight to cancel */
    if (input && c->driver.input_failed) {
        s->io_failed = true;
        mcp__server_log(s, MCP_LOG_ERROR, "cannot read from the client: %s; cancelling %zu call(s) in flight", why, n);
    } else if (input) {
        mcp__server_log(s, n ? MCP_LOG_INFO : MCP_LOG_DEBUG,
                        "%s: cancelling %zu call(s) in flight", why, n);
    } else {
        /* Also after the input ended: replies still due are lost. */
        s->io_failed = true;
        mcp__server_log(s, MCP_LOG_ERROR, "cannot write to the client: %s", why);
    }
    mcp__conn_end(c, why);
}

/* Life ------------------------------------------------------------------------------ */

/* A connection as calloc and mcp__driver_init make it, on s's loop. */
static int conn_new(mcp_server *s, conn **out)
{
    *out = NULL;
    conn *c = calloc(1, sizeof *c + mcp__features_state_size());
    if (!c)
        return MCP_ERR_NOMEM;
    c->server = s;
    atomic_init(&c->refs, 1); /* the server's */
    atomic_init(&c->outliving, 0);
    mcp_session_options so = {
        .size = sizeof so,
        .role = MCP_ROLE_SERVER,
        .name = s->name,
        .version = s->version,
        .instructions = s->instructions,
        .capabilities = mcp_json_doc_root(s->caps),
        .max_inbound = s->opts.max_in_flight,
        .max_message = s->opts.max_message,
        .listen_kinds = s->opts.listen_kinds,
        .discover_ttl_ms = s->opts.cache_ttl_ms,
        .discover_cache_scope = s->opts.cache_scope,
    };
    mcp__driver_events ev = {.on_request = on_request,
                             .on_cancel = on_cancel,
                             .on_notification = on_notification,
                             .on_log = on_log,
                             .on_transport_down = on_transport_down,
                             .ud = c,
                             .on_listen = on_listen};
    int rc = mcp__driver_init(&c->driver, &s->loop, &so, &ev);
    if (rc != MCP_OK) {
        free(c);
        return rc;
    }
    *out = c;
    return MCP_OK;
}

bool mcp__same_credential(const char *a, const char *b)
{
    return !a ? !b : b && !strcmp(a, b);
}

int mcp__conn_open(mcp_server *s, mcp__transport *t, conn **out)
{
    *out = NULL;
    conn *c = s->spares;
    if (c) {
        s->spares = c->next;
        s->nspares--;
    } else {
        int rc = conn_new(s, &c);
        if (rc != MCP_OK)
            return rc;
    }
    mcp__driver_attach(&c->driver, t);
    c->prev = NULL;
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    *out = c;
    return MCP_OK;
}

static void sweep_cb(uv_timer_t *t)
{
    mcp_server *s = t->data;
    /* Every connection has ended: the run is over, unless a listener may
     * bring more. */
    if (mcp__conns_sweep(s, false) && !s->listeners)
        uv_stop(&s->loop);
}

void mcp__conn_end(conn *c, const char *why)
{
    if (c->down)
        return;
    c->down = true;
    c->down_next = c->server->down;
    c->server->down = c;
    c->last_progress = mcp__now_ms();
    c->drain_deadline = c->last_progress + c->server->opts.shutdown_grace_ms;
    c->last_unwritten = SIZE_MAX;
    /* Features end what they do on the wire while the session can still
     * write (its closing ends it silently). */
    mcp__features_conn_ending(c, why);
    /* A stop says so to the handlers; a connection that ended is "closed". */
    mcp__driver_end(&c->driver, c->server->stopping ? why : NULL);
    /* Swept on the next turn of the loop (a connection with nothing left
     * to wait for goes then), and every 10 ms while any drains. */
    uv_timer_t *sweep = &c->server->sweep_timer;
    if (!uv_is_active((uv_handle_t *)sweep) || uv_timer_get_due_in(sweep) > 0)
        uv_timer_start(sweep, sweep_cb, 0, 10);
}

static void released(void *ud)
{
    mcp__conn_unref(ud); /* the server's reference */
}

/* The transport of c closed (mcp__driver_detach): c is kept as a spare when
 * nothing else holds it (no handler, even abandoned, no answer on its way)
 * and its session can start again; else released. */
static void detached(void *ud)
{
    conn *c = ud;
    mcp_server *s = c->server;
    if (!s->keep_spares || s->stopping || s->nspares >= MCP__CONN_SPARES ||
        atomic_load_explicit(&c->refs, memory_order_acquire) != 1 ||
        mcp_session_inbound_count(c->driver.session) ||
        mcp__driver_reuse(&c->driver) != MCP_OK) {
        mcp__driver_release(&c->driver, released, c);
        return;
    }
    mcp__features_conn_free(c);
    memset(c->feature_state, 0, mcp__features_state_size());
    free(c->credential);
    c->credential = NULL;
    c->down = false;
    c->drain_deadline = c->last_progress = 0;
    c->last_unwritten = 0;
    c->down_next = c->prev = NULL;
    c->next = s->spares;
    s->spares = c;
    s->nspares++;
}

static void release(conn *c)
{
    mcp_server *s = c->server;
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    mcp__driver_detach(&c->driver, detached, c);
}

void mcp__conns_drop_spares(mcp_server *s)
{
    s->keep_spares = false;
    while (s->spares) {
        conn *c = s->spares;
        s->spares = c->next;
        s->nspares--;
        mcp__driver_release(&c->driver, released, c);
    }
}

bool mcp__conns_sweep(mcp_server *s, bool force)
{
    uint64_t now = mcp__now_ms();
    for (conn **at = &s->down, *c; (c = *at) != NULL;) {
        mcp__transport *t = c->driver.transport;
        size_t unwritten = t && t->ops->unwritten ? t->ops->unwritten(t) : 0;
        /* (A run freed on another thread drops its reference before its
         * outliving count: never below none.) */
        unsigned outliving = atomic_load(&c->outliving), refs = atomic_load(&c->refs);
        size_t handlers = refs > outliving + 1 ? refs - 1 - outliving : 0;
        uint64_t grace = s->opts.shutdown_grace_ms;
        if (unwritten < c->last_unwritten)
            c->last_progress = now; /* the client reads: keep writing */
        c->last_unwritten = unwritten;
        /* End of input says nothing about the reader of the output: every
         * reply is written, however slowly the client takes them, until it
         * closes its end. A client whose output failed (it read nothing
         * while its replies grew past the cap) is gone: the bytes stuck in
         * its pipe are not waited for. A stop (SIGTERM) also gives up on a
         * client that reads nothing for the grace. */
        bool handlers_done = handlers == 0 || now >= c->drain_deadline;
        bool output_done = unwritten == 0 || c->driver.failure ||
                           (s->stopping && now - c->last_progress >= grace);
        if (force || (handlers_done && output_done)) {
            if (handlers && !force)
                mcp__server_log(s, MCP_LOG_WARNING,
                                "%zu handler(s) still running after the %llu ms grace: "
                                "abandoned",
                                handlers, (unsigned long long)grace);
            if (unwritten) {
                s->io_failed = true;
                if (c->driver.failure)
                    mcp__server_log(s, MCP_LOG_ERROR, "%zu byte(s) of replies not written: %s",
                                    unwritten, c->driver.failure);
                else
                    mcp__server_log(s, MCP_LOG_ERROR,
                                    "%zu byte(s) of replies not written: the client read "
                                    "nothing for %llu ms",
                                    unwritten, (unsigned long long)(now - c->last_progress));
            }
            *at = c->down_next;
            release(c);
        } else {
            at = &c->down_next;
        }
    }
    if (!s->down)
        uv_timer_stop(&s->sweep_timer);
    return s->conns == NULL;
}
