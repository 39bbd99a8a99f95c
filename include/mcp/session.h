/*
 * libmcp session engine: one MCP peer (client or server role), sans-I/O.
 *
 * The engine does no I/O, reads no clock and starts no thread. Messages go in
 * through mcp_session_receive(); bytes to send come out through the `send`
 * callback; time comes in as `now` (milliseconds on any monotonic clock) and
 * the engine says when it next needs to be called (mcp_session_next_deadline).
 * This makes every race deterministic under a fake clock and lets the engine
 * live in any event loop (src/runtime drives it with libuv).
 *
 * Threads. A session belongs to one thread (its "loop thread"): every
 * function here must be called from it, and every callback runs on it,
 * synchronously, inside the session function that caused it.
 *
 * Reentrancy. Callbacks may call any session function, including
 * mcp_session_free() (the free is then deferred until the outermost session
 * call returns, hiredis style).
 *
 * Request lifecycle, as the engine enforces it:
 * - Inbound (the peer's requests): registered in the inbound table before
 *   on_request runs; settled exactly once, by a reply or by a cancel. After a
 *   cancel nothing more is sent for it: no result, no error, no progress; a
 *   late reply returns MCP_ERR_NOT_FOUND and sends nothing.
 * - Outbound (our requests): ends exactly once with one of MCP_OK (result),
 *   MCP_ERR_REMOTE (error response), MCP_ERR_ABORTED, MCP_ERR_TIMED_OUT,
 *   MCP_ERR_MAX_TIME or MCP_ERR_CLOSED. An abort or a timeout puts
 *   notifications/cancelled on the wire (never for initialize). Late
 *   responses and progress are dropped silently.
 */
#ifndef MCP_SESSION_H
#define MCP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/common.h"
#include "mcp/json.h"
#include "mcp/jsonrpc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_session mcp_session;

/* A request handle: identifies one inbound or outbound request for the life
 * of the session. Never 0, never reused. */
typedef uint64_t mcp_handle;

typedef enum mcp_role { MCP_ROLE_CLIENT = 1, MCP_ROLE_SERVER = 2 } mcp_role;

/* Disables a timeout when given as timeout_ms or max_time_ms. */
#define MCP_NO_TIMEOUT UINT64_MAX
#define MCP_DEFAULT_TIMEOUT_MS 60000u
#define MCP_DEFAULT_MAX_TIME_MS 1800000u
#define MCP_DEFAULT_MAX_INBOUND 65536u

/* Protocol revisions this library speaks, newest first. */
#define MCP_PROTOCOL_LATEST "2025-11-25"

/* ------------------------------------------------------------------------ */
/* Logging                                                                   */

typedef enum mcp_log_level {
    MCP_LOG_DEFAULT = 0, /* in options: the component's default level */
    MCP_LOG_DEBUG,
    MCP_LOG_INFO,
    MCP_LOG_WARN,
    MCP_LOG_ERROR
} mcp_log_level;

typedef enum mcp_log_event {
    MCP_LOG_EVENT_GENERAL = 0,
    MCP_LOG_EVENT_CANCEL_RECEIVED, /* the peer cancelled its request */
    MCP_LOG_EVENT_CANCEL_SENT,     /* we cancelled ours (abort or timeout) */
    MCP_LOG_EVENT_CANCEL_IGNORED,  /* unknown, finished, malformed, initialize */
    MCP_LOG_EVENT_CLOSED,          /* a request ended because the connection closed */
    MCP_LOG_EVENT_DROPPED,         /* late response, progress or reply dropped */
    MCP_LOG_EVENT_BAD_INPUT        /* the peer sent something invalid */
} mcp_log_event;

/* One structured log record. Every pointer is borrowed for the duration of
 * the log callback only; fields that do not apply are NULL or -1. */
typedef struct mcp_log_record {
    mcp_log_level level;
    mcp_log_event event;
    const char *message; /* complete human-readable line, no newline */
    const mcp_id *id;    /* the request's JSON-RPC id */
    const char *method;
    const char *direction; /* "inbound" (the peer's request) or "outbound" */
    const char *reason;    /* cancellation reason */
    int64_t age_ms;        /* time since the request started */
} mcp_log_record;

/* Runs on the loop thread (or, for runtime records, the thread named by the
 * record's message). Must not block. */
typedef void (*mcp_log_fn)(void *user_data, const mcp_log_record *record);

/* ------------------------------------------------------------------------ */
/* Creation                                                                  */

typedef struct mcp_session_callbacks {
    /* Required. Write `len` bytes (one or more complete NDJSON lines) to the
     * peer on `route` (0 is the connection's main channel; transports with a
     * stream per request, such as HTTP, pass their own route ids to
     * mcp_session_receive). The bytes are borrowed for the call: copy or
     * write them before returning. Must not block. */
    void (*send)(void *user_data, uint64_t route, const char *data, size_t len);

    /* A request from the peer for the application. The engine answers
     * initialize and ping itself. The request is already registered: answer
     * it later (or inside this callback) with mcp_session_reply*() or let a
     * cancel settle it. `msg` is borrowed for this call; mcp_message_retain()
     * it to keep it longer. When NULL, every such request gets -32601. */
    void (*on_request)(void *user_data, mcp_handle handle, const mcp_message *msg);

    /* The request `handle` was cancelled: by the peer (reason as sent, or
     * NULL), or because the session closed (reason "connection closed").
     * From now on replies and progress for it return MCP_ERR_NOT_FOUND.
     * `reason` is borrowed for this call. */
    void (*on_cancel)(void *user_data, mcp_handle handle, const char *reason);

    /* A notification the engine does not consume itself (it consumes
     * initialized, cancelled and progress). Borrowed for this call. */
    void (*on_notification)(void *user_data, const mcp_message *msg);

    /* Server: the client sent notifications/initialized. Client: not used
     * (the initialize callback reports completion). */
    void (*on_initialized)(void *user_data);

    mcp_log_fn log;
    void *user_data;
} mcp_session_callbacks;

typedef struct mcp_session_options {
    mcp_role role;
    /* Implementation info sent in initialize (clientInfo / serverInfo).
     * Copied. NULL gives "libmcp" and the library version. */
    const char *name;
    const char *version;
    /* Our capabilities object (copied); NULL means {}. */
    const mcp_json *capabilities;
    /* Server: instructions for the client (copied); may be NULL. */
    const char *instructions;
    /* Defaults for outbound requests; 0 means the MCP_DEFAULT_* value. */
    uint64_t timeout_ms;
    uint64_t max_time_ms;
    /* Cap on the peer's requests in flight; 0 means MCP_DEFAULT_MAX_INBOUND.
     * Requests beyond it are answered -32603 and not registered. */
    unsigned max_inbound;
    /* Largest message accepted; 0 means MCP_JSON_DEFAULT_MAX_SIZE. */
    size_t max_message;
    /* Lowest level passed to the log callback; MCP_LOG_DEFAULT passes
     * everything (the callback filters). */
    mcp_log_level log_level;
    const mcp_mem *mem;
} mcp_session_options;

/*
 * mcp_session_new: a new session in its initial state (server: waiting for
 * initialize; client: call mcp_session_initialize). Returns MCP_OK and *out
 * (owned by the caller; free with mcp_session_free), MCP_ERR_INVALID_ARG
 * (missing send callback, bad role, capabilities not an object) or
 * MCP_ERR_NOMEM. The callbacks struct is copied.
 */
MCP_EXTERN int mcp_session_new(const mcp_session_options *opts,
                               const mcp_session_callbacks *cb,
                               mcp_session **out);

/*
 * mcp_session_free: free the session. Requests still in flight end without
 * any callback (use mcp_session_close first to end them with callbacks).
 * Inside a callback the free is deferred until the outermost session call
 * returns. NULL is a no-op.
 */
MCP_EXTERN void mcp_session_free(mcp_session *s);

/* ------------------------------------------------------------------------ */
/* Input, time and closing                                                   */

/*
 * mcp_session_receive: process one message (`len` bytes of JSON, without
 * the newline) that arrived on `route`. Bad input is answered as JSON-RPC
 * requires (or not at all, for notifications and responses) and logged; the
 * session stays usable. Returns MCP_OK, or the MCP_ERR_RPC_* / MCP_ERR_JSON_*
 * code describing bad input (already answered), or MCP_ERR_STATE after
 * close.
 */
MCP_EXTERN int mcp_session_receive(mcp_session *s, uint64_t now, uint64_t route,
                                   const char *data, size_t len);

/* The earliest time at which mcp_session_tick must be called, or UINT64_MAX
 * when nothing is scheduled. */
MCP_EXTERN uint64_t mcp_session_next_deadline(const mcp_session *s);

/* mcp_session_tick: expire the timeouts that are due at `now`: each sends its
 * cancel (except for initialize) and ends its request. */
MCP_EXTERN void mcp_session_tick(mcp_session *s, uint64_t now);

/*
 * mcp_session_close: the connection is gone. Every inbound request is
 * cancelled (on_cancel, reason "connection closed"), every outbound one ends
 * with MCP_ERR_CLOSED. Nothing is sent. Later calls that would send return
 * MCP_ERR_STATE. Idempotent.
 */
MCP_EXTERN void mcp_session_close(mcp_session *s, uint64_t now);

/* ------------------------------------------------------------------------ */
/* Lifecycle                                                                 */

/* Called when an outbound request ends. `outcome` is MCP_OK (response is the
 * result message), MCP_ERR_REMOTE (response is the error message) or a local
 * ending (response is NULL). The response is borrowed for the call;
 * mcp_message_retain() it to keep it. */
typedef void (*mcp_response_fn)(void *user_data, mcp_handle handle, int outcome,
                                const mcp_message *response);

/* Progress for an outbound request. total is NAN when absent; message may be
 * NULL. Delivered only for strictly increasing progress values. */
typedef void (*mcp_progress_fn)(void *user_data, mcp_handle handle,
                                double progress, double total,
                                const char *message);

/*
 * mcp_session_initialize (client role): send initialize with our latest
 * protocol version. When the server answers with a version we speak, the
 * engine sends notifications/initialized and cb gets MCP_OK; an unsupported
 * version gives MCP_ERR_PROTOCOL (disconnect). A timeout settles it locally
 * with MCP_ERR_TIMED_OUT: initialize is never cancelled on the wire.
 * timeout_ms 0 means the session default. Returns MCP_OK, MCP_ERR_STATE (not
 * a client, or already initialized) or MCP_ERR_NOMEM.
 */
MCP_EXTERN int mcp_session_initialize(mcp_session *s, uint64_t now,
                                      uint64_t timeout_ms, mcp_response_fn cb,
                                      void *user_data);

/* True once initialize completed (client: result received; server:
 * initialize answered). */
MCP_EXTERN bool mcp_session_ready(const mcp_session *s);

/* The negotiated protocol version, or NULL before. Borrowed from the
 * session. */
MCP_EXTERN const char *mcp_session_protocol_version(const mcp_session *s);

/* The peer's initialize data (client: the server's result; server: the
 * client's params), or NULL before. Borrowed from the session, valid until
 * it is freed. */
MCP_EXTERN const mcp_json *mcp_session_peer_info(const mcp_session *s);

/* ------------------------------------------------------------------------ */
/* Outbound requests                                                         */

typedef enum mcp_progress_mode {
    /* Attach a progress token; progress resets the idle timeout. */
    MCP_PROGRESS_RESET_TIMEOUT = 0,
    /* Attach a token; progress is delivered but does not reset the timeout. */
    MCP_PROGRESS_DELIVER_ONLY,
    /* No token at all. */
    MCP_PROGRESS_NONE
} mcp_progress_mode;

typedef struct mcp_request_options {
    uint64_t timeout_ms;  /* idle timeout; 0 = default, MCP_NO_TIMEOUT = none */
    uint64_t max_time_ms; /* hard total; 0 = default, MCP_NO_TIMEOUT = none */
    mcp_progress_mode progress;
} mcp_request_options;

/*
 * mcp_session_request: send a request. params (an object, or NULL) is
 * borrowed for the call; a progress token is added to its _meta unless the
 * mode is MCP_PROGRESS_NONE. cb is required and is called exactly once;
 * progress_cb may be NULL. opts NULL means defaults. *out receives the
 * handle (which is also the request's integer JSON-RPC id).
 * Returns MCP_OK, MCP_ERR_STATE (closed, or not initialized for anything but
 * ping), MCP_ERR_INVALID_ARG (bad params or method; initialize, which only
 * mcp_session_initialize sends), MCP_ERR_LIMIT (message too large) or
 * MCP_ERR_NOMEM; on error cb is never called.
 */
MCP_EXTERN int mcp_session_request(mcp_session *s, uint64_t now,
                                   const char *method, const mcp_json *params,
                                   const mcp_request_options *opts,
                                   mcp_response_fn cb, mcp_progress_fn progress_cb,
                                   void *user_data, mcp_handle *out);

/*
 * mcp_session_cancel: cancel our request. Sends notifications/cancelled with
 * `reason` (NULL: none) unless the request is initialize, then ends it with
 * MCP_ERR_ABORTED (cb runs before this returns). Never blocks.
 * Returns MCP_OK or MCP_ERR_NOT_FOUND (it already ended).
 */
MCP_EXTERN int mcp_session_cancel(mcp_session *s, uint64_t now, mcp_handle h,
                                  const char *reason);

/* mcp_session_notify: send a notification. params as mcp_session_request.
 * MCP_OK, MCP_ERR_STATE, MCP_ERR_INVALID_ARG, MCP_ERR_LIMIT, MCP_ERR_NOMEM. */
MCP_EXTERN int mcp_session_notify(mcp_session *s, const char *method,
                                  const mcp_json *params);

/* Number of our requests in flight. */
MCP_EXTERN size_t mcp_session_outbound_count(const mcp_session *s);

/* ------------------------------------------------------------------------ */
/* Answering the peer's requests                                             */

/*
 * mcp_session_reply: answer request h with `result` (an object; NULL sends
 * {}), borrowed for the call. mcp_session_reply_raw takes the result as
 * already-serialized JSON text (trusted: not validated).
 * mcp_session_reply_error answers with a JSON-RPC error (data may be NULL).
 * Returns MCP_OK; MCP_ERR_NOT_FOUND when h is no longer in flight (already
 * answered, or cancelled): nothing is sent; MCP_ERR_INVALID_ARG. A result
 * too large to send is replaced by a -32603 error, and MCP_ERR_LIMIT is
 * returned (the request is settled either way).
 */
MCP_EXTERN int mcp_session_reply(mcp_session *s, mcp_handle h,
                                 const mcp_json *result);
MCP_EXTERN int mcp_session_reply_raw(mcp_session *s, mcp_handle h,
                                     const char *json, size_t len);
MCP_EXTERN int mcp_session_reply_error(mcp_session *s, mcp_handle h,
                                       int64_t code, const char *message,
                                       const mcp_json *data);

/*
 * mcp_session_progress: send progress for request h. Only when the request
 * carried a progress token (else MCP_ERR_STATE, nothing sent), only for a
 * value strictly greater than the last one sent (else MCP_ERR_INVALID_ARG),
 * never after settle (MCP_ERR_NOT_FOUND). total NAN omits it; message may be
 * NULL.
 */
MCP_EXTERN int mcp_session_progress(mcp_session *s, mcp_handle h,
                                    double progress, double total,
                                    const char *message);

/* Whether inbound request h is still in flight. */
MCP_EXTERN bool mcp_session_inbound_active(const mcp_session *s, mcp_handle h);

/* The inbound request's message, borrowed while it is in flight; NULL when
 * h is not in flight. */
MCP_EXTERN const mcp_message *mcp_session_inbound_message(const mcp_session *s,
                                                          mcp_handle h);

/* Number of the peer's requests in flight. */
MCP_EXTERN size_t mcp_session_inbound_count(const mcp_session *s);

#ifdef __cplusplus
}
#endif
#endif /* MCP_SESSION_H */
