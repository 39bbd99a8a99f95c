/* SPDX-License-Identifier: MIT */
#include "runtime/driver.h"

#include <string.h>

#include "runtime/internal.h"
#include "session/entry.h"

/* Session callbacks --------------------------------------------------------- */

static void report_down(mcp__driver *d, bool input, const char *why)
{
    bool *reported = input ? &d->input_reported : &d->output_reported;
    if (*reported || !d->ev.on_transport_down)
        return;
    *reported = true;
    d->ev.on_transport_down(d->ev.ud, input, why);
}

static void deferred_down(uv_timer_t *t)
{
    mcp__driver *d = t->data;
    report_down(d, false, d->failure);
}

static int on_send(void *ud, uint64_t route, const char *data, size_t len)
{
    mcp__driver *d = ud;
    if (!d->transport)
        return MCP_ERR_STATE;
    int rc = d->transport->ops->send(d->transport, route, data, len);
    if (rc != MCP_OK && route == 0 && !d->failure) {
        /* The engine closes the session when this returns; the owner hears
         * of it once the caller that was sending is out of the way. */
        d->failure = rc == MCP_ERR_LIMIT ? "output queue over its cap: the peer is not reading"
                     : rc == MCP_ERR_NOMEM ? "out of memory for the output queue"
                                           : "the peer closed its input";
        uv_timer_start(&d->defer, deferred_down, 0, 0);
    }
    /* A new request may have brought the next deadline forward. */
    mcp__driver_rearm(d);
    return rc;
}

static void on_request(void *ud, mcp_handle h, const mcp_message *m)
{
    mcp__driver *d = ud;
    if (d->ev.on_request)
        d->ev.on_request(d->ev.ud, h, m);
}

static void on_cancel(void *ud, mcp_handle h, const char *reason)
{
    mcp__driver *d = ud;
    if (d->ev.on_cancel)
        d->ev.on_cancel(d->ev.ud, h, reason);
}

static void on_notification(void *ud, const mcp_message *m)
{
    mcp__driver *d = ud;
    if (d->ev.on_notification)
        d->ev.on_notification(d->ev.ud, m);
}

static void on_initialized(void *ud)
{
    mcp__driver *d = ud;
    if (d->ev.on_initialized)
        d->ev.on_initialized(d->ev.ud);
}

static void on_log(void *ud, const mcp_log_record *r)
{
    mcp__driver *d = ud;
    if (d->ev.on_log)
        d->ev.on_log(d->ev.ud, r);
}

static void on_listen(void *ud, mcp_handle h, const mcp_json *uris, bool open)
{
    mcp__driver *d = ud;
    if (d->ev.on_listen)
        d->ev.on_listen(d->ev.ud, h, uris, open);
}

static void on_route_ended(void *ud, uint64_t route)
{
    mcp__driver *d = ud;
    if (d->transport && d->transport->ops->close_route)
        d->transport->ops->close_route(d->transport, route);
}

/* Time --------------------------------------------------------------------------- */

static void timer_cb(uv_timer_t *t)
{
    mcp__driver *d = t->data;
    d->armed = UINT64_MAX;
    mcp_session_tick(d->session, mcp__now_ms());
    mcp__driver_rearm(d);
}

void mcp__driver_rearm(mcp__driver *d)
{
    if (!d->session || uv_is_closing((uv_handle_t *)&d->timer))
        return;
    uint64_t due = mcp_session_next_deadline(d->session);
    if (due == d->armed)
        return;
    d->armed = due;
    if (due == UINT64_MAX) {
        uv_timer_stop(&d->timer);
        return;
    }
    uint64_t now = mcp__now_ms();
    uv_timer_start(&d->timer, timer_cb, due > now ? due - now : 0, 0);
}

/* Transport events ------------------------------------------------------------------ */

static int sink_message(void *ud, uint64_t route, const char *data, size_t len)
{
    mcp__driver *d = ud;
    int rc = mcp_session_receive(d->session, mcp__now_ms(), route, data, len);
    mcp__driver_rearm(d);
    return rc;
}

int mcp__driver_receive(mcp__driver *d, uint64_t route, mcp_message *m)
{
    int rc = mcp__session_receive_message(d->session, mcp__now_ms(), route, m);
    mcp__driver_rearm(d);
    return rc;
}

static void sink_oversized(void *ud, uint64_t route, const char *head, size_t head_len,
                           const char *tail, size_t tail_len, size_t limit)
{
    mcp__driver *d = ud;
    mcp_session_receive_oversized(d->session, mcp__now_ms(), route, head, head_len, tail,
                                  tail_len, limit);
    mcp__driver_rearm(d);
}

static void sink_route_closed(void *ud, uint64_t route)
{
    mcp__driver *d = ud;
    mcp_session_route_closed(d->session, mcp__now_ms(), route);
}

static void sink_input_ended(void *ud, const char *why, bool failed)
{
    mcp__driver *d = ud;
    d->input_down = true;
    d->input_failed = failed;
    report_down(d, true, why);
}

static void sink_output_failed(void *ud, const char *why)
{
    mcp__driver *d = ud;
    if (!d->failure)
        d->failure = why;
    mcp_session_close(d->session, mcp__now_ms());
    report_down(d, false, why);
}

/* Life ------------------------------------------------------------------------------ */

/* A session whose callbacks are the driver's. */
static int new_session(mcp__driver *d, const mcp_session_options *so, mcp_session **out)
{
    mcp_session_callbacks cb = {.size = sizeof cb,
                                .send = on_send,
                                .on_request = on_request,
                                .on_cancel = on_cancel,
                                .on_notification = on_notification,
                                .on_initialized = on_initialized,
                                .log = on_log,
                                .user_data = d,
                                .on_route_ended = on_route_ended,
                                .on_listen = on_listen};
    return mcp_session_new(so, &cb, out);
}

int mcp__driver_init(mcp__driver *d, uv_loop_t *loop, const mcp_session_options *so,
                     const mcp__driver_events *ev)
{
    memset(d, 0, sizeof *d);
    d->loop = loop;
    d->ev = *ev;
    d->armed = UINT64_MAX;
    int rc = new_session(d, so, &d->session);
    if (rc != MCP_OK)
        return rc;
    uv_timer_init(loop, &d->timer);
    uv_timer_init(loop, &d->defer);
    d->timer.data = d->defer.data = d;
    d->open_handles = 2;
    return MCP_OK;
}

int mcp__driver_renew(mcp__driver *d, const mcp_session_options *so, mcp_session **old)
{
    mcp_session *fresh;
    *old = NULL;
    int rc = new_session(d, so, &fresh);
    if (rc != MCP_OK)
        return rc;
    *old = d->session;
    d->session = fresh;
    d->armed = 0; /* re-armed for the new session, whatever the old one had */
    mcp__driver_rearm(d);
    return MCP_OK;
}

void mcp__driver_retire(mcp__driver *d, mcp_session *old)
{
    /* Its callbacks are the driver's: its endings reach the owner as any,
     * and what they ask for goes to the session in its place. A closed
     * session sends nothing. */
    mcp_session_close(old, mcp__now_ms());
    mcp_session_free(old); /* deferred when inside one of its callbacks */
    mcp__driver_rearm(d);
}

void mcp__driver_attach(mcp__driver *d, mcp__transport *t)
{
    d->transport = t;
    t->sink = (mcp__transport_sink){sink_message, sink_oversized, sink_route_closed,
                                    sink_input_ended, sink_output_failed, d};
}

void mcp__driver_end(mcp__driver *d, const char *reason)
{
    if (d->transport && d->transport->ops->stop_input)
        d->transport->ops->stop_input(d->transport);
    if (d->session && !mcp_session_closed(d->session)) {
        if (reason)
            mcp_session_close_reason(d->session, mcp__now_ms(), reason);
        else
            mcp_session_close(d->session, mcp__now_ms());
        mcp__driver_rearm(d);
    }
}

static void maybe_done(mcp__driver *d)
{
    if (d->open_handles || d->transport)
        return;
    mcp_session_free(d->session);
    d->session = NULL;
    if (d->done)
        d->done(d->done_ud);
}

static void handle_closed(uv_handle_t *h)
{
    mcp__driver *d = h->data;
    d->open_handles--;
    maybe_done(d);
}

static void transport_closed(void *ud)
{
    mcp__driver *d = ud;
    d->transport = NULL;
    maybe_done(d);
}

void mcp__driver_release(mcp__driver *d, void (*done)(void *ud), void *ud)
{
    mcp__driver_end(d, NULL);
    d->done = done;
    d->done_ud = ud;
    uv_close((uv_handle_t *)&d->timer, handle_closed);
    uv_close((uv_handle_t *)&d->defer, handle_closed);
    if (d->transport)
        d->transport->ops->close(d->transport, transport_closed, d);
}

static void detached(void *ud)
{
    mcp__driver *d = ud;
    void (*done)(void *ud) = d->done;
    d->transport = NULL;
    d->done = NULL;
    if (done)
        done(d->done_ud);
}

void mcp__driver_detach(mcp__driver *d, void (*done)(void *ud), void *ud)
{
    mcp__driver_end(d, NULL);
    uv_timer_stop(&d->timer);
    uv_timer_stop(&d->defer);
    d->done = done;
    d->done_ud = ud;
    if (d->transport)
        d->transport->ops->close(d->transport, detached, d);
    else
        detached(d);
}

int mcp__driver_reuse(mcp__driver *d)
{
    if (d->transport || d->open_handles != 2 || mcp__session_reset(d->session) != MCP_OK)
        return MCP_ERR_STATE;
    d->armed = UINT64_MAX;
    d->failure = NULL;
    d->input_reported = d->output_reported = d->input_down = d->input_failed = false;
    d->done_ud = NULL;
    return MCP_OK;
}
