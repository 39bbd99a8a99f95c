/* SPDX-License-Identifier: MIT */
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
 * mcp_session_close() and mcp_session_free() (the free is then deferred
 * until the outermost session call returns, hiredis style). Any send may
 * fail: when the `send` callback returns an error, or closes the session
 * itself, the session is closed on the spot, inside the call that was
 * sending. Every function below copes: it settles its own request before it
 * writes, and reports MCP_ERR_CLOSED when the connection went away under it.
 *
 * Protocol revisions. A server answers every revision at once: 2025-06-18
 * and 2025-11-25 (and older peers of 2025-03-26 and 2024-11-05) are chosen
 * for the connection by `initialize`; 2026-07-28 is chosen per request by
 * the `io.modelcontextprotocol/protocolVersion` of its `_meta`, statelessly,
 * beside a legacy connection if need be. A client speaks one era per
 * connection, chosen by mcp_session_connect (probing with server/discover).
 *
 * Request lifecycle, as the engine enforces it:
 * - Inbound (the peer's requests): registered in the inbound table before
 *   on_request runs; settled exactly once, by a reply or by a cancel. After a
 *   cancel nothing more is sent for it: no result, no error, no progress, no
 *   log message; a late reply returns MCP_ERR_NOT_FOUND and sends nothing.
 * - Outbound (our requests): end exactly once with one of MCP_OK (result),
 *   MCP_ERR_REMOTE (error response), MCP_ERR_ABORTED, MCP_ERR_TIMED_OUT,
 *   MCP_ERR_MAX_TIME, MCP_ERR_CLOSED, MCP_ERR_TOO_LARGE (the answer exceeded
 *   the message cap) or MCP_ERR_PROTOCOL (an answer we cannot use). An abort
 *   or a timeout puts notifications/cancelled on the wire (never for
 *   initialize or server/discover). Late responses and progress are dropped
 *   silently.
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
/* The largest max_inbound (handles keep 24 bits for the slot). */
#define MCP__MAX_INBOUND 16776192u

/* The newest revision this library speaks, and the newest legacy one (the
 * revision a client asks for in initialize). */
#define MCP_PROTOCOL_LATEST "2026-07-28"
#define MCP_PROTOCOL_LATEST_LEGACY "2025-11-25"

/* ------------------------------------------------------------------------ */
/* Logging: one set of levels for the library's own log and the protocol's
 * (notifications/message, logging/setLevel,
 * io.modelcontextprotocol/logLevel): the RFC 5424 severities, lowest
 * first, so a level is "at or above" another by comparing the values. The
 * library's own records use DEBUG, INFO, WARNING and ERROR. */

typedef enum mcp_log_level {
    MCP_LOG_DEFAULT = 0, /* in options: the component's default level; never
                            a record's level nor a level on the wire */
    MCP_LOG_DEBUG,
    MCP_LOG_INFO,
    MCP_LOG_NOTICE,
    MCP_LOG_WARNING,
    MCP_LOG_ERROR,
    MCP_LOG_CRITICAL,
    MCP_LOG_ALERT,
    MCP_LOG_EMERGENCY
} mcp_log_level;

/* The wire name of a level ("debug" ... "emergency"); a string literal, or
 * NULL for MCP_LOG_DEFAULT and values outside the enum. Any thread. */
MCP_EXTERN const char *mcp_log_level_name(mcp_log_level level);

typedef enum mcp_log_event {
    MCP_LOG_EVENT_GENERAL = 0,
    MCP_LOG_EVENT_CANCEL_RECEIVED, /* the peer cancelled its request */
    MCP_LOG_EVENT_CANCEL_SENT,     /* we cancelled ours (abort or timeout) */
    MCP_LOG_EVENT_CANCEL_IGNORED,  /* unknown, finished, malformed, initialize */
    MCP_LOG_EVENT_CLOSED,          /* a request ended because the connection closed */
    MCP_LOG_EVENT_DROPPED,         /* late response, progress or reply dropped */
    MCP_LOG_EVENT_BAD_INPUT,       /* the peer sent something invalid */
    MCP_LOG_EVENT_LISTEN           /* a subscription opened or ended */
} mcp_log_event;

/* One structured log record. Every pointer is borrowed for the duration of
 * the log callback only; fields that do not apply are NULL or -1. */
typedef struct mcp_log_record {
    mcp_log_level level;
    mcp_log_event event;
    /* A complete human-readable line, no newline, its control characters
     * escaped (mcp_text_escape_controls). The fields below are as received
     * from the peer: escape them before showing them. */
    const char *message;
    const mcp_id *id;    /* the request's JSON-RPC id */
    const char *method;
    const char *direction; /* "inbound" (the peer's request) or "outbound" */
    const char *reason;    /* cancellation reason */
    int64_t age_ms;        /* time since the request started */
} mcp_log_record;

/* Session: runs on the loop thread. Server: on the loop thread, and on any
 * thread that calls mcp_call_log (so it must be thread-safe). Client: on the
 * loop thread. Must not block. */
typedef void (*mcp_log_fn)(void *user_data, const mcp_log_record *record);

/* ------------------------------------------------------------------------ */
/* Creation                                                                  */

/* Progress for a request: total is NAN when absent; message may be NULL and
 * is borrowed for the call. Delivered only for strictly increasing values.
 * The one progress callback type of the library (session and client). */
typedef void (*mcp_progress_fn)(void *user_data, mcp_handle handle,
                                double progress, double total,
                                const char *message);

typedef struct mcp_session_callbacks {
    size_t size; /* sizeof(mcp_session_callbacks) */

    /* Required. Write `len` bytes (one or more complete NDJSON lines) to the
     * peer on `route` (0 is the connection's main channel; transports with a
     * stream per request, such as HTTP, pass their own route ids to
     * mcp_session_receive). The bytes are borrowed for the call: copy or
     * write them before returning. Must not block. Return MCP_OK, or an
     * error when the bytes cannot be delivered: the session then closes (on
     * route 0) or treats the route as closed (mcp_session_route_closed). */
    int (*send)(void *user_data, uint64_t route, const char *data, size_t len);

    /* A request from the peer for the application. The engine itself
     * answers initialize, ping, server/discover, logging/setLevel and
     * subscriptions/listen. The request is already registered: answer it
     * later (or inside this callback) with mcp_session_reply*() or let a
     * cancel settle it. `msg` is borrowed for this call; mcp_message_retain()
     * it to keep it longer. When NULL, every such request gets -32601. */
    void (*on_request)(void *user_data, mcp_handle handle, const mcp_message *msg);

    /* The request `handle` was cancelled: by the peer (reason as sent, or
     * NULL), because its connection or route closed ("connection closed",
     * "client disconnected"). From now on replies, progress and log
     * messages for it return MCP_ERR_NOT_FOUND. `reason` is borrowed for
     * this call. */
    void (*on_cancel)(void *user_data, mcp_handle handle, const char *reason);

    /* A notification the engine does not consume itself (it consumes
     * initialized, cancelled, progress and the notifications of our
     * subscriptions). Borrowed for this call. */
    void (*on_notification)(void *user_data, const mcp_message *msg);

    /* Server: the client sent notifications/initialized. */
    void (*on_initialized)(void *user_data);

    mcp_log_fn log;
    void *user_data;

    /* Optional. The request that arrived on `route` (never 0) was cancelled
     * and gets no response: a transport with a stream per request (HTTP)
     * ends that stream now. Not called when the route itself closed. */
    void (*on_route_ended)(void *user_data, uint64_t route);

    /* Optional (server role, 2026-07-28). The peer's subscriptions/listen h
     * opened (open true, once acknowledged) or ended (open false: its
     * cancel, a teardown, the route's or the session's end; told once, and
     * only for a listen told open). uris: the resource URIs it receives
     * updates for (a JSON array, borrowed for the call), or NULL. For an
     * application that must ask elsewhere for those updates (a gateway
     * subscribes its upstream). Must not call into this session. */
    void (*on_listen)(void *user_data, mcp_handle h, const mcp_json *uris, bool open);
} mcp_session_callbacks;

/* What a server can publish to subscriptions/listen streams (a bit set). */
enum mcp_listen_kinds {
    MCP_LISTEN_TOOLS = 1,             /* notifications/tools/list_changed */
    MCP_LISTEN_PROMPTS = 2,           /* notifications/prompts/list_changed */
    MCP_LISTEN_RESOURCES = 4,         /* notifications/resources/list_changed */
    MCP_LISTEN_RESOURCE_UPDATES = 8,  /* notifications/resources/updated */
    /* notifications/tasks, for the tasks a listen names in taskIds (the
     * io.modelcontextprotocol/tasks extension; mcp_session_publish_task) */
    MCP_LISTEN_TASKS = 16
};

typedef enum mcp_cache_scope {
    MCP_CACHE_PUBLIC = 0, /* no user-specific data: any cache may share it */
    MCP_CACHE_PRIVATE     /* only within one authorization context */
} mcp_cache_scope;

typedef struct mcp_session_options {
    size_t size; /* sizeof(mcp_session_options) */
    mcp_role role;
    /* Implementation info: clientInfo / serverInfo in initialize and in
     * 2026-07-28 envelopes. Copied. NULL gives "libmcp" and the library
     * version. */
    const char *name;
    const char *version;
    /* Our capabilities object (copied); NULL means {}. */
    const mcp_json *capabilities;
    /* Server: instructions for the client (copied); may be NULL. */
    const char *instructions;
    /* Defaults for outbound requests; 0 means the MCP_DEFAULT_* value. */
    uint64_t timeout_ms;
    uint64_t max_time_ms;
    /* Cap on the peer's requests in flight (subscriptions included); 0
     * means MCP_DEFAULT_MAX_INBOUND, at most MCP__MAX_INBOUND. Requests
     * beyond it are answered -32603 and not registered. */
    unsigned max_inbound;
    /* Largest message accepted; 0 means MCP_JSON_DEFAULT_MAX_SIZE. */
    size_t max_message;
    /* Lowest level passed to the log callback; MCP_LOG_DEFAULT passes
     * everything (the callback filters). */
    mcp_log_level log_level;
    const mcp_mem *mem;
    /* Server, 2026-07-28: which notifications subscriptions/listen streams
     * can carry (enum mcp_listen_kinds); a listen's acknowledgment names
     * the subset of its request that is in here. */
    unsigned listen_kinds;
    /* Server, 2026-07-28: the caching hints of server/discover (SEP-2549):
     * how long the client may keep the answer, and who may share it. */
    uint64_t discover_ttl_ms;
    mcp_cache_scope discover_cache_scope;
    /* Server, 2026-07-28: leave io.modelcontextprotocol/serverInfo out of
     * results (it is in every result's _meta by default). */
    bool omit_server_info;
    /* The id (and handle) of our first request; 0 means 1. A client that
     * reconnects continues where the last session stopped
     * (mcp_session_next_request_id), so an old handle never names a new
     * request. */
    int64_t first_request_id;
} mcp_session_options;

/*
 * mcp_session_new: a new session in its initial state (server: answering
 * 2026-07-28 requests and waiting for a legacy initialize; client: call
 * mcp_session_connect). opts and cb are required, unlike other options
 * (role has no default). Returns MCP_OK and *out (owned by the caller; free
 * with mcp_session_free), MCP_ERR_INVALID_ARG (opts or cb NULL or of a bad
 * size, missing send callback, bad role, capabilities not an object,
 * name/version/instructions not UTF-8, negative first_request_id,
 * max_inbound over MCP__MAX_INBOUND) or MCP_ERR_NOMEM. The callbacks struct
 * is copied; its user_data is kept until mcp_session_free.
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
 * session stays usable. Returns MCP_OK (a batch accepted under 2025-03-26
 * included); MCP_ERR_RPC_PARSE, MCP_ERR_RPC_INVALID or MCP_ERR_RPC_BATCH
 * (bad input, already answered or deliberately not); MCP_ERR_NOMEM (dropped
 * and logged; a batch gets -32603); MCP_ERR_INVALID_ARG (data NULL with
 * len > 0); or MCP_ERR_STATE after close.
 */
MCP_EXTERN int mcp_session_receive(mcp_session *s, uint64_t now, uint64_t route,
                                   const char *data, size_t len);

/*
 * mcp_session_receive_oversized: a message on `route` was longer than the
 * transport's cap (`limit` bytes) and was dropped; `head` and `tail` are its
 * first and last bytes (borrowed for the call; either may be empty). When
 * its id and kind can be read from them: a request is answered -32600
 * ("message exceeds N bytes"), and a response to one of our requests ends
 * that request at once with MCP_ERR_TOO_LARGE. Anything else is logged.
 * Returns MCP_OK or MCP_ERR_STATE after close.
 */
MCP_EXTERN int mcp_session_receive_oversized(mcp_session *s, uint64_t now,
                                             uint64_t route, const char *head,
                                             size_t head_len, const char *tail,
                                             size_t tail_len, size_t limit);

/* The earliest time at which mcp_session_tick must be called, or UINT64_MAX
 * when nothing is scheduled. */
MCP_EXTERN uint64_t mcp_session_next_deadline(const mcp_session *s);

/* mcp_session_tick: expire the timeouts that are due at `now`: each sends its
 * cancel (except for initialize and server/discover) and ends its request. */
MCP_EXTERN void mcp_session_tick(mcp_session *s, uint64_t now);

/*
 * mcp_session_route_closed: the transport lost `route` (an HTTP response
 * stream the peer closed; never route 0, which is the connection: see
 * mcp_session_close). Inbound requests on it whose revision says a
 * disconnect cancels (2026-07-28) are cancelled with reason "client
 * disconnected"; nothing more is sent on the route. Idempotent.
 */
MCP_EXTERN void mcp_session_route_closed(mcp_session *s, uint64_t now,
                                         uint64_t route);

/*
 * mcp_session_close: the connection is gone. Every inbound request is
 * cancelled (on_cancel, reason "connection closed"), every outbound one ends
 * with MCP_ERR_CLOSED. Nothing is sent. Afterwards request, notify and
 * receive return MCP_ERR_STATE; connect and listen MCP_ERR_CLOSED; replies,
 * progress, log messages and cancels MCP_ERR_NOT_FOUND; publish and
 * end_listens 0. Idempotent; safe inside any callback, `send` included.
 */
MCP_EXTERN void mcp_session_close(mcp_session *s, uint64_t now);

/* mcp_session_close_reason: mcp_session_close, with the reason the inbound
 * requests are cancelled with (borrowed for the call; NULL is "connection
 * closed"): an HTTP server ends a session with "session
 * ended", or "session expired". */
MCP_EXTERN void mcp_session_close_reason(mcp_session *s, uint64_t now,
                                         const char *reason);

/* Whether the session is closed. */
MCP_EXTERN bool mcp_session_closed(const mcp_session *s);

/* ------------------------------------------------------------------------ */
/* Connecting (client role)                                                  */

/* Called when an outbound request ends, with its handle (0 for
 * mcp_session_connect). `outcome` is MCP_OK (response is the result
 * message), MCP_ERR_REMOTE (response is the error message) or a local
 * ending (response is NULL). The response is borrowed for the call;
 * mcp_message_retain() it to keep it. */
typedef void (*mcp_response_fn)(void *user_data, mcp_handle handle, int outcome,
                                const mcp_message *response);

typedef enum mcp_connect_mode {
    /* Probe with server/discover; a modern answer (a DiscoverResult or a
     * recognised 2026-07-28 error) means 2026-07-28; any other error or no
     * answer within probe_timeout_ms means legacy: initialize. */
    MCP_CONNECT_AUTO = 0,
    MCP_CONNECT_LEGACY, /* initialize only */
    MCP_CONNECT_MODERN  /* server/discover only; a legacy server fails */
} mcp_connect_mode;

typedef struct mcp_connect_options {
    size_t size; /* sizeof(mcp_connect_options) */
    mcp_connect_mode mode;
    /* The revision to speak: for MCP_CONNECT_LEGACY the one initialize asks
     * for (NULL: MCP_PROTOCOL_LATEST_LEGACY); for MCP_CONNECT_MODERN one of
     * the modern revisions (NULL: MCP_PROTOCOL_LATEST). Copied. */
    const char *version;
    /* The whole connection, probe and handshake together; 0 means the
     * session's timeout_ms. */
    uint64_t timeout_ms;
    /* AUTO: how long a silent server is given to answer the probe before it
     * is taken for legacy; 0 means 3000 (bounded by timeout_ms). */
    uint64_t probe_timeout_ms;
    /* MCP_CONNECT_LEGACY only (else MCP_ERR_INVALID_ARG): requests made
     * while connecting (mcp_session_request) are accepted and wait: their
     * handles and deadlines start at once, they go out in order once
     * connected (after notifications/initialized), and a failed connect
     * ends them with MCP_ERR_CLOSED; a cancel or an expiry meanwhile puts
     * nothing on the wire. false: such requests are refused
     * (MCP_ERR_STATE). */
    bool queue_requests;
} mcp_connect_options;

/*
 * mcp_session_connect (client role): find the server's era and get ready.
 * cb is called once, with handle 0: MCP_OK with the DiscoverResult or
 * initialize result (after notifications/initialized went out),
 * MCP_ERR_REMOTE (refused), MCP_ERR_PROTOCOL (no revision in common),
 * MCP_ERR_TIMED_OUT (timeout_ms passed), MCP_ERR_CLOSED, MCP_ERR_TOO_LARGE
 * (the answer to initialize, or in MCP_CONNECT_MODERN to server/discover,
 * exceeded max_message), or MCP_ERR_NOMEM or MCP_ERR_LIMIT (a follow-up
 * request could not be sent). Neither initialize nor server/discover is
 * ever cancelled on the wire: an expiry settles them locally. Returns
 * MCP_OK, MCP_ERR_STATE (not a client, or already connecting or
 * connected), MCP_ERR_INVALID_ARG (bad options, cb NULL, a version unknown,
 * not spoken, of the other era, or given with MCP_CONNECT_AUTO),
 * MCP_ERR_CLOSED or MCP_ERR_NOMEM; on error cb is never called.
 */
MCP_EXTERN int mcp_session_connect(mcp_session *s, uint64_t now,
                                   const mcp_connect_options *opts,
                                   mcp_response_fn cb, void *user_data);

/* mcp_session_initialize: mcp_session_connect in MCP_CONNECT_LEGACY mode
 * with the given timeout (0: the session default). */
MCP_EXTERN int mcp_session_initialize(mcp_session *s, uint64_t now,
                                      uint64_t timeout_ms, mcp_response_fn cb,
                                      void *user_data);

/* True once connected (client) or once a legacy initialize was answered
 * (server; a server answers 2026-07-28 requests without it). */
MCP_EXTERN bool mcp_session_ready(const mcp_session *s);

/* True when this client session speaks 2026-07-28 (per-request envelopes,
 * subscriptions/listen). */
MCP_EXTERN bool mcp_session_modern(const mcp_session *s);

/* The revision in use for the connection (client: chosen by connect;
 * server: chosen by initialize), or NULL before. Borrowed from the session
 * (a string literal). */
MCP_EXTERN const char *mcp_session_protocol_version(const mcp_session *s);

/* Whether `version` is a modern revision (2026-07-28 on: stateless, the
 * envelope on every request). False for NULL and unknown ones. Any
 * thread. */
MCP_EXTERN bool mcp_protocol_modern(const char *version);

/* Whether the len bytes at version name a revision this library speaks or
 * answers (2024-11-05 through 2026-07-28). Any thread. */
MCP_EXTERN bool mcp_protocol_known(const char *version, size_t len);

/* The peer's connection data (client: the server's DiscoverResult or
 * initialize result; server: the client's initialize params), or NULL
 * before. Borrowed from the session, valid until it is freed. */
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

/*
 * Called, on the loop thread, when the server answers a request made with
 * this hook (2026-07-28, client role: tools/call, resources/read,
 * prompts/get) with an InputRequiredResult m (basic/patterns/mrtr.mdx). m
 * is borrowed: valid until the mcp_session_input_response that gives the
 * last answer returns, or the request ends (mcp_message_retain to keep
 * it longer). The request is not over: it stays in
 * flight under the same handle, its deadlines on the session's timers (the
 * idle timeout restarts now and with each round sent; the total limit runs
 * on from the first round), and mcp_session_cancel ends it. Return MCP_OK
 * to take the questions: answer each key of m's inputRequests with
 * mcp_session_input_response (now or later, in any order); once every one
 * is answered (at once when there are none) the session sends the request
 * again, with a new JSON-RPC id, the caller's params, the answers as
 * inputResponses and the requestState echoed exactly, and so on until a
 * final result ends it through its response callback. Any other return
 * ends the request with that code (its response callback runs with it,
 * before the hook's caller returns): return MCP_ERR_PROTOCOL for a result
 * the application cannot use.
 */
typedef int (*mcp_input_required_fn)(void *user_data, mcp_handle handle,
                                     const mcp_message *m);

typedef struct mcp_request_options {
    size_t size;          /* sizeof(mcp_request_options) */
    uint64_t timeout_ms;  /* idle timeout; 0 = default, MCP_NO_TIMEOUT = none */
    uint64_t max_time_ms; /* hard total; 0 = default, MCP_NO_TIMEOUT = none */
    mcp_progress_mode progress;
    /* 2026-07-28: ask the server for notifications/message at log_level
     * and above on this request (io.modelcontextprotocol/logLevel;
     * MCP_LOG_DEFAULT: debug, every level). */
    bool want_logs;
    mcp_log_level log_level;
    /* Server, 2025 revisions: the request in flight this one is made for (a
     * tool call asking for sampling, say), or 0. It goes on that request's
     * route (over HTTP, the call's own event stream), as does its cancel
     * while that request is in flight (after, the general route: an HTTP
     * stream ends with its request); the application cancels it when that
     * request ends. */
    mcp_handle related;
    /* Client, 2026-07-28: take an InputRequiredResult as a round of this
     * request (see mcp_input_required_fn), called with the request's
     * user_data; NULL: such a result ends the request with MCP_OK, as any
     * result. Only for tools/call, resources/read and prompts/get: for any
     * other method it is ignored. */
    mcp_input_required_fn on_input_required;
    /* Client, 2025-11-25, tools/call: run the call as a task (params.task;
     * task_ttl_ms, when not 0, as the ttl asked for). The handle and cb
     * stay the call's: the session waits for the task's end (tasks/get at
     * the server's pollInterval, sooner when notifications/tasks/status
     * says it ended or needs input), fetches what tasks/result gives, and
     * calls cb once with that, as for a plain call (a server that made no
     * task of it answers as for a plain call too); progress keeps its
     * token. A cancel (mcp_session_cancel, the idle timeout, which the
     * server's answers about the task reset, the total limit) sends
     * tasks/cancel, never notifications/cancelled: cb is called at once,
     * and when the task's id is not known yet tasks/cancel goes as soon as
     * CreateTaskResult brings it. While the session waits for the next
     * poll no idle timeout runs (the poll starts it again).
     * 2026-07-28 (the io.modelcontextprotocol/tasks extension): no
     * params.task (task_ttl_ms is unused); the request declares the
     * extension in its clientCapabilities and the server decides (a plain
     * result ends the call as usual; resultType "task" is taken only by a
     * request made with this option). tasks/get at the server's
     * pollIntervalMs: completed ends the call with its result (MCP_OK),
     * failed with its error (MCP_ERR_REMOTE, the message built as the
     * tools/call's answer), cancelled with MCP_ERR_CANCELLED;
     * input_required gives the inputRequests keys not given before to
     * on_input_required (as an InputRequiredResult's: answer each with
     * mcp_session_input_response; the answers go in tasks/update), or,
     * without that hook, cancels the task and ends the call with
     * MCP_ERR_INPUT_REQUIRED. A cancel before CreateTaskResult also
     * cancels the tools/call as an ordinary request (notifications/cancelled
     * on stdio). Any tasks/ request made with mcp_session_request declares
     * the extension too. */
    bool task;
    uint64_t task_ttl_ms;
    /* With task: end the call with CreateTaskResult itself (the task is the
     * caller's from then on: tasks/get, tasks/result, tasks/cancel name its
     * id; 2026-07-28: the flat Task, resultType "task"); a cancel before it
     * came still cancels the task once it comes. */
    bool task_start_only;
    /* With task: each Task the server tells about (CreateTaskResult's
     * task, tasks/get's answers (2026: the whole DetailedTask),
     * notifications/tasks/status), borrowed for
     * the call, with the request's user_data; loop thread; it may cancel
     * the request. */
    void (*on_task)(void *user_data, mcp_handle h, const mcp_json *task);
    /* 2026-07-28, a tools/call without task, with on_input_required (its
     * params are kept for its rounds): when the server refuses it -32021
     * naming the tasks extension in data.requiredCapabilities (the tool
     * runs only as a task), it is sent again, once, as a task call (as
     * with task, under the same handle and limits). */
    bool task_if_required;
} mcp_request_options;

/*
 * mcp_session_request: send a request. params (an object, or NULL) is
 * borrowed for the call; a progress token is added to its _meta unless the
 * mode is MCP_PROGRESS_NONE, and on a 2026-07-28 connection the request
 * envelope too. cb is required and is called exactly once; progress_cb may
 * be NULL. Under 2026-07-28 a result whose resultType is "input_required"
 * goes to opts->on_input_required (the request's rounds, kept by the
 * session) or, without that hook, ends the request with MCP_OK, for
 * tools/call, resources/read and prompts/get; with MCP_ERR_PROTOCOL for any
 * other method.
 * opts NULL means defaults. *out receives the handle (which is
 * also the request's integer JSON-RPC id).
 * Returns MCP_OK; MCP_ERR_STATE (not connected; for a server, no legacy
 * client to send to), MCP_ERR_NOT_FOUND (the related request is no longer
 * in flight), MCP_ERR_INVALID_ARG (bad params or method; initialize,
 * server/discover and subscriptions/listen have functions of their own;
 * ping does not exist in 2026-07-28), MCP_ERR_LIMIT (message too large),
 * MCP_ERR_CLOSED (the connection failed while sending) or MCP_ERR_NOMEM; on
 * every error cb is never called.
 */
MCP_EXTERN int mcp_session_request(mcp_session *s, uint64_t now,
                                   const char *method, const mcp_json *params,
                                   const mcp_request_options *opts,
                                   mcp_response_fn cb, mcp_progress_fn progress_cb,
                                   void *user_data, mcp_handle *out);

/*
 * mcp_session_input_response: the answer (result, an object: borrowed for
 * the call, and copied) to the question under key (key_len bytes,
 * borrowed for the call) of the
 * InputRequiredResult request h is waiting on (mcp_input_required_fn).
 * The last answer sends the request again (inside this call, unless the
 * hook is still running: then when it returns); that send may fail and
 * end the request (MCP_ERR_CLOSED to its callback) before this returns.
 * Loop thread. Returns MCP_OK, MCP_ERR_NOT_FOUND (h is not waiting for
 * answers: it ended, or a round is on the wire), MCP_ERR_INVALID_ARG (no
 * such key, already answered, result not an object) or
 * MCP_ERR_NOMEM (the request then ends with MCP_ERR_NOMEM).
 */
MCP_EXTERN int mcp_session_input_response(mcp_session *s, uint64_t now, mcp_handle h,
                                          const char *key, size_t key_len,
                                          const mcp_json *result);

/*
 * mcp_session_end_reason: inside a response callback, why the request
 * ended locally, as logged: "timed out after N ms", "maximum total time N
 * ms exceeded", the reason given to mcp_session_cancel (may be NULL),
 * "connection closed". NULL for an answer of the peer and outside a
 * response callback. Borrowed for the callback (owned by the session or
 * the canceller). The session's thread (the loop).
 */
MCP_EXTERN const char *mcp_session_end_reason(const mcp_session *s);

/*
 * mcp_session_cancel: cancel our request (or subscription). Sends
 * notifications/cancelled with `reason` (NULL: none) unless the request is
 * initialize or server/discover, or is a 2026-07-28 request between rounds
 * (its questions being answered: nothing is on the wire), then ends it
 * with MCP_ERR_ABORTED (its callback runs before this returns). Never
 * blocks.
 * Returns MCP_OK, MCP_ERR_INVALID_ARG (reason not UTF-8) or
 * MCP_ERR_NOT_FOUND (it already ended).
 */
MCP_EXTERN int mcp_session_cancel(mcp_session *s, uint64_t now, mcp_handle h,
                                  const char *reason);

/* mcp_session_notify: send a notification, in any state until close.
 * params as mcp_session_request. MCP_OK, MCP_ERR_STATE (closed),
 * MCP_ERR_INVALID_ARG (method NULL, params not an object), MCP_ERR_UTF8
 * (method not UTF-8), MCP_ERR_LIMIT, MCP_ERR_CLOSED, MCP_ERR_NOMEM. */
MCP_EXTERN int mcp_session_notify(mcp_session *s, const char *method,
                                  const mcp_json *params);

/* Number of our requests in flight (subscriptions included). */
MCP_EXTERN size_t mcp_session_outbound_count(const mcp_session *s);

/* The id (and handle) our next request will get. */
MCP_EXTERN int64_t mcp_session_next_request_id(const mcp_session *s);

/* ------------------------------------------------------------------------ */
/* Subscriptions (2026-07-28): subscriptions/listen                          */

/* What a subscription asks for, or what the server agreed to. */
typedef struct mcp_listen_filter {
    size_t size; /* sizeof(mcp_listen_filter) */
    unsigned kinds; /* enum mcp_listen_kinds, without _RESOURCE_UPDATES */
    /* Resources to hear notifications/resources/updated for (borrowed). */
    const char *const *resource_uris;
    size_t resource_count;
} mcp_listen_filter;

typedef enum mcp_listen_event_kind {
    MCP_LISTEN_ACKNOWLEDGED = 1, /* the server agreed; message is the ack */
    MCP_LISTEN_NOTIFICATION,     /* message is a notification of the stream */
    MCP_LISTEN_ENDED             /* the subscription is over: see outcome */
} mcp_listen_event_kind;

typedef struct mcp_listen_event {
    mcp_listen_event_kind kind;
    /* ENDED: MCP_OK (the server closed it gracefully, with a result or a
     * cancel), MCP_ERR_REMOTE (an error response), MCP_ERR_ABORTED (we
     * cancelled it), MCP_ERR_CLOSED (the connection went away: reconnect
     * and listen again), MCP_ERR_TOO_LARGE or MCP_ERR_PROTOCOL; through
     * mcp_client_listen over HTTP also MCP_ERR_HTTP (the exchange failed:
     * http_status below; message is the error this library made). */
    int outcome;
    /* The ack, the notification, or the closing response (NULL for local
     * endings and for a server's cancel, outcome MCP_OK). Borrowed for the
     * callback. */
    const mcp_message *message;
    /* ACKNOWLEDGED: which notifications the server will send (kinds are
     * enum mcp_listen_kinds; 0 means none of those asked for). */
    unsigned kinds;
    /* ENDED with MCP_ERR_HTTP: the HTTP status that failed (0: none, the
     * connection or the stream failed). Else 0. */
    int http_status;
} mcp_listen_event;

/* Events of one subscription, in order: at most one ACKNOWLEDGED, which
 * comes before any NOTIFICATION, then exactly one ENDED, after which
 * nothing. event and everything in it are borrowed for the callback. Loop
 * thread. */
typedef void (*mcp_listen_fn)(void *user_data, mcp_handle handle,
                              const mcp_listen_event *event);

/*
 * mcp_session_listen (client role, 2026-07-28): open a subscription. The
 * request never times out; end it with mcp_session_cancel. cb gets only
 * what filter asked for: a list change of a kind not asked for, or an
 * update of a resource not named, that the server sends anyway is dropped
 * (logged at debug); notifications of other kinds pass. Returns MCP_OK
 * and *out; MCP_ERR_STATE (not connected in 2026-07-28), MCP_ERR_INVALID_ARG
 * (bad filter: nothing asked for, URIs not UTF-8), MCP_ERR_CLOSED,
 * MCP_ERR_LIMIT or MCP_ERR_NOMEM (cb never called).
 */
MCP_EXTERN int mcp_session_listen(mcp_session *s, uint64_t now,
                                  const mcp_listen_filter *filter,
                                  mcp_listen_fn cb, void *user_data,
                                  mcp_handle *out);

/*
 * mcp_session_publish (server role): tell every subscription that asked for
 * it: `kind` is one of MCP_LISTEN_TOOLS, _PROMPTS, _RESOURCES (uri NULL) or
 * MCP_LISTEN_RESOURCE_UPDATES (the updated resource's URI, borrowed). A
 * legacy client that initialized is told too, as 2025 does it (list_changed
 * as a plain notification). Returns the number of notifications sent (0 on
 * a client session or after close; subscriptions are skipped when out of
 * memory), or MCP_ERR_INVALID_ARG (kind not exactly one MCP_LISTEN_* value,
 * uri given or missing wrongly, uri not UTF-8).
 */
MCP_EXTERN int mcp_session_publish(mcp_session *s, unsigned kind, const char *uri);

/*
 * mcp_session_publish_task (server role, 2026-07-28, the
 * io.modelcontextprotocol/tasks extension): notifications/tasks with task
 * (a DetailedTask object, borrowed: its members are the params) to every
 * subscription that named task_id in params.notifications.taskIds and was
 * acknowledged with it (the session offers MCP_LISTEN_TASKS). Whether the
 * subscriber may see the task is the caller's to decide. Returns the
 * number sent (0 on a client session or after close), or
 * MCP_ERR_INVALID_ARG (task_id NULL, task not an object). Loop thread.
 */
MCP_EXTERN int mcp_session_publish_task(mcp_session *s, const char *task_id,
                                        const mcp_json *task);

/*
 * mcp_session_end_listens (server role): end every subscription
 * gracefully: its closing result, then (on a stream shared by several
 * requests, such as stdio) notifications/cancelled naming it. Used before a
 * server shuts down. Returns how many ended.
 */
MCP_EXTERN size_t mcp_session_end_listens(mcp_session *s, uint64_t now,
                                          const char *reason);

/* Number of the peer's open subscriptions. */
MCP_EXTERN size_t mcp_session_listen_count(const mcp_session *s);

/* ------------------------------------------------------------------------ */
/* Answering the peer's requests                                             */

/*
 * mcp_session_reply: answer request h with `result` (an object; NULL sends
 * {}), borrowed for the call. mcp_session_reply_raw takes the result as
 * already-serialized JSON text (trusted to be an object; for a 2026-07-28
 * request it is scanned, and text that is not an object, or whose _meta is
 * not one, gives MCP_ERR_INVALID_ARG).
 * mcp_session_reply_error answers with a JSON-RPC error (data may be NULL).
 * A 2026-07-28 request's result gets `resultType` (unless it has one) and
 * io.modelcontextprotocol/serverInfo in its `_meta`.
 * Returns MCP_OK; MCP_ERR_NOT_FOUND when h is no longer in flight (already
 * answered, or cancelled): nothing is sent; MCP_ERR_INVALID_ARG (nothing
 * sent, still in flight); MCP_ERR_CLOSED (settled, but the connection failed
 * while sending). A result too large to send (MCP_ERR_LIMIT) or out of
 * memory (MCP_ERR_NOMEM) is replaced by a -32603 error, sent if it can be;
 * the request is settled either way.
 */
MCP_EXTERN int mcp_session_reply(mcp_session *s, mcp_handle h,
                                 const mcp_json *result);
MCP_EXTERN int mcp_session_reply_raw(mcp_session *s, mcp_handle h,
                                     const char *json, size_t len);
MCP_EXTERN int mcp_session_reply_error(mcp_session *s, mcp_handle h,
                                       int64_t code, const char *message,
                                       const mcp_json *data);

/*
 * mcp_session_reply_missing_capability: answer h with the error that says
 * the client lacks a capability the request needs: under 2026-07-28 -32021
 * with data.requiredCapabilities = `required` (an object, borrowed); under
 * a legacy revision -32602. Returns as mcp_session_reply_error, plus
 * MCP_ERR_INVALID_ARG (required not an object, under every revision) and
 * MCP_ERR_NOMEM (nothing sent, still in flight).
 */
MCP_EXTERN int mcp_session_reply_missing_capability(mcp_session *s, mcp_handle h,
                                                    const mcp_json *required);

/*
 * mcp_session_progress: send progress for request h. Only when the request
 * carried a progress token (else MCP_ERR_STATE, nothing sent), only for a
 * value strictly greater than the last one sent (else MCP_ERR_INVALID_ARG),
 * never after settle (MCP_ERR_NOT_FOUND). total NAN omits it; message may be
 * NULL. MCP_ERR_INVALID_ARG also for a non-finite progress or total, or a
 * message that is not UTF-8; MCP_ERR_LIMIT or MCP_ERR_NOMEM when it cannot
 * be encoded (nothing sent); MCP_ERR_CLOSED when the connection failed
 * while sending.
 */
MCP_EXTERN int mcp_session_progress(mcp_session *s, mcp_handle h,
                                    double progress, double total,
                                    const char *message);

/*
 * mcp_session_log_message: send notifications/message for request h on its
 * stream, before its answer: `data` (any JSON value, borrowed) at `level`,
 * `logger` optional (NULL). Sent only when the client wants that level:
 * under 2026-07-28 only when the request carried
 * io.modelcontextprotocol/logLevel at or below `level`; under a legacy
 * revision when `level` is at or above the one set by logging/setLevel (all
 * levels until it is set). Returns MCP_OK (sent), MCP_ERR_STATE (not wanted:
 * nothing sent), MCP_ERR_NOT_FOUND (settled), MCP_ERR_INVALID_ARG (a
 * level outside MCP_LOG_DEBUG..MCP_LOG_EMERGENCY, data NULL, logger or strings not UTF-8), MCP_ERR_LIMIT or
 * MCP_ERR_NOMEM (nothing sent), MCP_ERR_CLOSED.
 */
MCP_EXTERN int mcp_session_log_message(mcp_session *s, mcp_handle h,
                                       mcp_log_level level,
                                       const char *logger, const mcp_json *data);

/* Whether inbound request h is still in flight. */
MCP_EXTERN bool mcp_session_inbound_active(const mcp_session *s, mcp_handle h);

/* The inbound request's message, borrowed while it is in flight; NULL when
 * h is not in flight. */
MCP_EXTERN const mcp_message *mcp_session_inbound_message(const mcp_session *s,
                                                          mcp_handle h);

/* mcp_session_set_inbound_data: attach data (kept, never read by the
 * session) to the peer's request h while it is in flight, so that a
 * callback naming h finds what the application made for it without a
 * table of its own (nghttp2's stream user data). The session forgets it
 * when h settles; inside on_cancel for h, mcp_session_inbound_data still
 * returns it. MCP_OK, or MCP_ERR_NOT_FOUND when h is not in flight. Loop
 * thread. */
MCP_EXTERN int mcp_session_set_inbound_data(mcp_session *s, mcp_handle h, void *data);

/* The data attached to the peer's request h; NULL when there is none or h
 * is not in flight (but inside on_cancel for h). Loop thread. */
MCP_EXTERN void *mcp_session_inbound_data(const mcp_session *s, mcp_handle h);

/* The revision request h is handled under ("2026-07-28" for a request with
 * the modern envelope, else the connection's), borrowed (a literal); NULL
 * when h is not in flight. */
MCP_EXTERN const char *mcp_session_inbound_version(const mcp_session *s,
                                                   mcp_handle h);

/* The client capabilities that apply to request h: its envelope's under
 * 2026-07-28, initialize's under a legacy revision. Borrowed while h is in
 * flight; NULL when h is not in flight. */
MCP_EXTERN const mcp_json *mcp_session_inbound_client_capabilities(
    const mcp_session *s, mcp_handle h);

/* The route inbound request h arrived on (mcp_session_receive's route),
 * for a transport with a stream per request to know which stream answers
 * it; 0 when h is not in flight (or it came on route 0). Loop thread. */
MCP_EXTERN uint64_t mcp_session_inbound_route(const mcp_session *s, mcp_handle h);

/* Number of the peer's requests in flight (subscriptions included). */
MCP_EXTERN size_t mcp_session_inbound_count(const mcp_session *s);

#ifdef __cplusplus
}
#endif
#endif /* MCP_SESSION_H */
