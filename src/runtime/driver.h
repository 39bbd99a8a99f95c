/* SPDX-License-Identifier: MIT */
/*
 * The driver: one session on a libuv loop over one transport, written once
 * for both roles. It re-arms the session's timer, feeds it what the
 * transport reads (messages, oversized ones, lost routes), hands what it
 * sends to the transport, and closes both. What the connection means to its
 * owner (a server connection, a client) stays with the owner, which it hears
 * through mcp__driver_events.
 *
 * Loop thread only. The driver lives inside its owner's struct.
 *
 * Re-entrancy: a send that fails closes the session on the spot (the engine
 * copes with that, see session.h), and the owner hears about it afterwards,
 * from the loop, never inside the call that was sending.
 */
#ifndef MCP_RUNTIME_DRIVER_H
#define MCP_RUNTIME_DRIVER_H

#include <stdbool.h>
#include <uv.h>

#include "mcp/session.h"
#include "transport/transport.h"

typedef struct mcp__driver_events {
    /* The session's callbacks, with the owner's user data. */
    void (*on_request)(void *ud, mcp_handle h, const mcp_message *msg);
    void (*on_cancel)(void *ud, mcp_handle h, const char *reason);
    void (*on_notification)(void *ud, const mcp_message *msg);
    void (*on_initialized)(void *ud);
    void (*on_log)(void *ud, const mcp_log_record *r);
    /* The transport cannot carry the conversation any more: its input
     * ended (input true), or its output failed. The session is still open
     * when input ended (the owner decides when to end it, with
     * mcp__driver_end); an output failure has already closed it. Each
     * direction is told once, the output also after the input ended
     * (replies still due were lost). */
    void (*on_transport_down)(void *ud, bool input, const char *why);
    void *ud;
    /* The session's on_listen. */
    void (*on_listen)(void *ud, mcp_handle h, const mcp_json *uris, bool open);
} mcp__driver_events;

typedef struct mcp__driver {
    uv_loop_t *loop;
    mcp_session *session;
    mcp__transport *transport;
    mcp__driver_events ev;
    uv_timer_t timer;  /* the session's next deadline */
    uv_timer_t defer;  /* reports a send failure after the send returned */
    uint64_t armed;    /* the deadline the timer is set for */
    const char *failure; /* why the output failed, NULL while it works */
    bool input_reported, output_reported; /* each told once */
    bool input_down;
    bool input_failed;   /* the input ended in a read error, not at its end */
    int open_handles;
    void (*done)(void *ud);
    void *done_ud;
} mcp__driver;

/* Create the session (options as mcp_session_new; the driver supplies the
 * callbacks) and the driver's timers. MCP_OK, or the error of
 * mcp_session_new (nothing to release then). */
int mcp__driver_init(mcp__driver *d, uv_loop_t *loop, const mcp_session_options *so,
                     const mcp__driver_events *ev);

/* Carry the session over t (its sink is set here; t is closed with the
 * driver). Call before the transport starts reading. */
void mcp__driver_attach(mcp__driver *d, mcp__transport *t);

/* A new session (options as mcp__driver_init) over the same transport, in
 * place of the old one, which is handed back in *old for
 * mcp__driver_retire. For an owner whose peer ended the conversation but
 * not the connection (2025 HTTP: the server ended the MCP session). The
 * owner starts the new session first, then retires the old: what the old
 * one's endings call meanwhile (a callback making a new request) reaches
 * the new one. MCP_OK, or the error of mcp_session_new (the old session is
 * left as it was, *old NULL). */
int mcp__driver_renew(mcp__driver *d, const mcp_session_options *so, mcp_session **old);
/* Close the session renew handed back (its requests end with their
 * callbacks; inbound ones are cancelled) and free it. */
void mcp__driver_retire(mcp__driver *d, mcp_session *old);

/* Hand the session a message its owner decoded already (as the transport's
 * message callback would hand it the bytes; see session/receive.h). */
int mcp__driver_receive(mcp__driver *d, uint64_t route, mcp_message *m);

/* Re-arm the timer for the session's next deadline: after any call into the
 * session that is not made through the driver (requests, replies). */
void mcp__driver_rearm(mcp__driver *d);

/* The conversation is over: stop reading, close the session (requests end
 * with their callbacks; inbound ones are cancelled with reason, NULL:
 * "connection closed"). Idempotent. */
void mcp__driver_end(mcp__driver *d, const char *reason);

/* Release everything: end, close the transport and the timers, free the
 * session. done(ud) runs (from the loop) once all is closed; the driver's
 * memory may then be reused. Also after mcp__driver_detach. */
void mcp__driver_release(mcp__driver *d, void (*done)(void *ud), void *ud);

/* As mcp__driver_release, but the session and the timers stay, to carry
 * another conversation: end, stop the timers, close the transport; done(ud)
 * runs once it is closed (maybe within). Then mcp__driver_reuse, or
 * mcp__driver_release. */
void mcp__driver_detach(mcp__driver *d, void (*done)(void *ud), void *ud);

/* After mcp__driver_detach: the driver as mcp__driver_init left it, its
 * session as new (session/entry.h, mcp__session_reset), ready for
 * mcp__driver_attach. MCP_OK, or MCP_ERR_STATE when the session still
 * holds something (release it then). */
int mcp__driver_reuse(mcp__driver *d);

#endif
