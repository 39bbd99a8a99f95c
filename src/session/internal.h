/* SPDX-License-Identifier: MIT */
/* Session engine internals, shared by the files of src/session. */
#ifndef MCP_SESSION_INTERNAL_H
#define MCP_SESSION_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/map.h"
#include "json/writer.h"
#include "jsonrpc/internal.h"
#include "mcp/session.h"
#include "session/task_wire.h"

/* ------------------------------------------------------------------------ */
/* Eras: what each protocol revision allows, as data (see era.c).           */

typedef struct mcp__era {
    const char *version;
    bool speaks;             /* fully supported; otherwise accepted from an older peer */
    bool modern;             /* per-request _meta envelope; no initialize, no ping */
    bool batches;            /* JSON-RPC batches must be received (2025-03-26) */
    bool server_requests;    /* the server may send requests to the client */
    bool server_cancels;     /* the server may cancel its own requests; otherwise
                                it cancels only to end a subscription */
    bool disconnect_cancels; /* a lost response stream cancels its request */
    bool elicitation;        /* elicitation/create exists */
    bool url_elicitation;    /* ... in URL mode too */
    bool elicitation_ids;    /* URL elicitations have an elicitationId, -32042 and
                                notifications/elicitation/complete */
    bool tasks;              /* task-augmented requests and the tasks methods (2025-11-25;
                                2026-07-28 has them as an extension) */
    bool task_extension;     /* the io.modelcontextprotocol/tasks extension: declared per
                                request, resultType "task", tasks/get carries the end,
                                tasks/update (2026-07-28) */
} mcp__era;

/* The era of `version` (exact match), or NULL for a revision we neither
 * speak nor accept. */
const mcp__era *mcp__era_find(const char *version, size_t len);
/* The newest revision we speak, modern or legacy. */
const mcp__era *mcp__era_latest(bool modern);
/* Write the revisions we speak, newest first, as a JSON array. */
void mcp__era_write_supported(mcp__jw *w);

/* Our capabilities object as revision era defines it. A client's
 * elicitation modes follow the era table: all of them where the revision
 * has URL mode, an empty object (form) where it has elicitation without
 * URL mode, nothing where it has no elicitation. A server's as given. */
void mcp__write_caps(const mcp_session *s, mcp__jw *w, const mcp__era *era);
/* The same, with extensions[extension] = {} added (NULL: none), for a
 * request that declares an extension of its own (2026-07-28). */
void mcp__write_caps_with(const mcp_session *s, mcp__jw *w, const mcp__era *era,
                          const char *extension);

/* The reserved _meta keys of 2026-07-28. */
#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CLIENT_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_CLIENT_INFO "io.modelcontextprotocol/clientInfo"
#define META_LOG_LEVEL "io.modelcontextprotocol/logLevel"
#define META_SERVER_INFO "io.modelcontextprotocol/serverInfo"
#define META_SUBSCRIPTION "io.modelcontextprotocol/subscriptionId"
/* The tasks extension's name (ext-tasks, 2026-07-28). */

/* ------------------------------------------------------------------------ */
/* Inbound requests: a slab of entries addressed by generation-checked
 * handles, so a handle of a settled request can never reach a new one.     */

enum inbound_state {
    IN_FREE = 0,
    IN_RUNNING /* registered and in flight */
};

enum inbound_kind {
    IN_CALL = 0, /* handed to on_request */
    IN_LISTEN    /* a subscription the engine serves itself */
};

struct mcp__batch;

typedef struct inbound {
    uint64_t gen;       /* bumped on every release (40 bits used) */
    uint8_t state;
    uint8_t kind;
    uint8_t sent_progress;
    int8_t log_level;   /* modern: lowest level wanted, or -1 for none */
    uint8_t listen_kinds; /* IN_LISTEN: what the subscription gets */
    uint32_t next_free; /* free list link (index + 1), 0 = end */
    uint32_t index;     /* its own place in the slab */
    const mcp__era *era; /* the revision the request is handled under */
    mcp_message *msg;   /* one reference held while in flight */
    const mcp_json *token; /* its progress token (a string or an integer), in msg */
    double last_progress;
    uint64_t route;
    uint64_t start;
    struct mcp__batch *batch; /* 2025-03-26: the array that answers it */
    const mcp_json *caps;     /* modern: the envelope's clientCapabilities */
    void *data;               /* the application's (mcp_session_set_inbound_data) */
    const mcp_json *uris;     /* IN_LISTEN: resourceSubscriptions honoured */
    struct inbound *listen_next, *listen_prev; /* IN_LISTEN: all of them */
} inbound;

/* Slots come in chunks: small, because a 2026-07-28 HTTP request has a
 * session of its own for one request, whose first chunk is zeroed for it. */
#define INBOUND_CHUNK 8u

/* A JSON-RPC batch of 2025-03-26 being answered: the responses gather in
 * one array, sent when the last request in it settles. */
typedef struct mcp__batch {
    uint64_t route;
    uint32_t pending; /* requests of the batch still in flight */
    bool dispatching; /* its items are still being read */
    mcp_buf items;    /* the responses so far, comma separated, no brackets */
} mcp__batch;

/* ------------------------------------------------------------------------ */
/* Outbound requests                                                         */

enum outbound_kind {
    OUT_CALL = 0,  /* an application request */
    OUT_CONNECT,   /* initialize or server/discover, for mcp_session_connect */
    OUT_LISTEN,    /* a subscription of ours */
    OUT_GHOST      /* a task call cancelled before its task's id came: waits
                      for it, to cancel the task (task_call.c); nobody's */
};

struct mcp__rounds;
struct mcp__listen_want;

typedef struct outbound {
    int64_t id;   /* the handle: the JSON-RPC id of its first round */
    int64_t wire; /* the id of the round on the wire (id, but for a later
                     round of a 2026-07-28 call); 0 while its questions are
                     answered. Both are keys of out_ids. */
    char *method;
    uint8_t kind;
    bool cancellable; /* false for initialize and server/discover */
    bool sending;     /* inside the send that put it on the wire */
    bool ended;       /* ended while sending: freed when the send returns */
    bool silent;      /* ended by a close while sending: no callback */
    bool acked;       /* OUT_LISTEN: the acknowledgment arrived */
    bool held;        /* the engine holds it across application code or a
                         send of a later round: an ending calls back and
                         leaves it to the holder to free */
    mcp_progress_mode progress;
    bool got_progress;
    double last_progress;
    uint64_t route; /* where it and its cancel go: 0, or a related request's */
    mcp_handle related; /* that request, while it is in flight */
    uint64_t start;
    uint64_t idle_ms, max_ms;
    uint64_t idle_deadline, max_deadline;
    size_t heap_index;
    mcp_response_fn cb;
    mcp_progress_fn progress_cb;
    mcp_listen_fn listen_cb;
    void *user_data;
    struct mcp__rounds *rounds; /* a call that may take several rounds, or NULL */
    struct mcp__task_call *task; /* a call run as a task (task_call.c), or NULL */
    uint64_t step_deadline; /* a task's next poll; UINT64_MAX: none */
    struct mcp__listen_want *want; /* OUT_LISTEN: what it asked for (listen.c) */
    char *queued;     /* made while connecting: its message, not sent yet */
    size_t queued_len;
    struct outbound *next_queued;
} outbound;

typedef struct timer_heap {
    outbound **items;
    size_t count, cap;
} timer_heap;

/* ------------------------------------------------------------------------ */

enum lifecycle {
    LC_NEW = 0,      /* server: no legacy initialize yet; client: not started */
    LC_CONNECTING,   /* client: discover or initialize sent */
    LC_READY,        /* server: initialize answered; client: connected */
};

/* A client's connection attempt (mcp_session_connect). */
typedef struct connect_state {
    mcp_connect_mode mode;
    const mcp__era *want;   /* the revision to ask for */
    uint64_t deadline;      /* the whole attempt */
    uint64_t probe_ms;
    mcp_response_fn cb;
    void *user_data;
    bool asked_again; /* the refused version, retried once (lifecycle.c) */
    bool queue;       /* requests made meanwhile wait (queue_requests) */
} connect_state;

/* Warnings of bad input a session logs before the rest go to debug. */
#define MCP__MAX_BAD_INPUT_WARNINGS 100

struct mcp_session {
    mcp_mem mem;
    mcp_role role;
    mcp_session_callbacks cb;
    mcp_log_level log_level;
    unsigned bad_input_warnings; /* logged at warn so far (mcp__log) */
    char *name, *version, *instructions;
    /* {"name":..,"version":..} written once: a 2026-07-28 result carries it
     * in every _meta (serverInfo), a request in every envelope (clientInfo). */
    char *impl_json;
    size_t impl_len;
    /* Server: the members a 2026-07-28 result that has neither resultType
     * nor _meta ends with ("resultType":"complete","_meta":{serverInfo}),
     * also written once: that is nearly every result. */
    char *result_tail;
    size_t result_tail_len;
    /* Client: the envelope's members for envelope_era (version, our
     * capabilities as that revision has them, clientInfo), written by the
     * first 2026-07-28 request: every request carries it. */
    char *envelope;
    size_t envelope_len;
    const struct mcp__era *envelope_era;
    mcp_json_doc *caps_doc; /* our capabilities (a copy) */
    uint64_t timeout_ms, max_time_ms;
    unsigned max_inbound;
    unsigned listen_kinds;
    uint64_t discover_ttl_ms;
    mcp_cache_scope discover_scope;
    bool omit_server_info;
    /* The peer is known by nothing but its session (HTTP without
     * credentials): tasks.list is not declared (mcp__session_anonymous). */
    bool anonymous;
    mcp_json_parse_options parse;

    /* From here to legacy_log_level, one conversation's state (with
     * bad_input_warnings): mcp__session_reset (session.c) resets each, and
     * must learn of a field added here. */
    enum lifecycle lifecycle;
    bool peer_initialized; /* server: notifications/initialized received */
    bool closed;
    uint64_t now;            /* the latest time a caller gave us */
    const mcp__era *era;     /* the connection's revision, once chosen */
    mcp_message *peer_msg;   /* initialize params (server) or the answer (client) */
    const mcp_json *peer_info;
    const mcp_json *peer_caps; /* server: the legacy client's capabilities */
    connect_state connect;
    int legacy_log_level;    /* server, legacy: set by logging/setLevel */

    inbound **chunks;
    uint32_t nchunks;
    uint32_t free_head; /* index + 1 */
    uint32_t in_count;
    /* The request whose on_cancel runs, out of the tables already, and its
     * data: mcp_session_inbound_data still answers for it there. */
    mcp_handle cancelling;
    void *cancelling_data;
    mcp__map in_ids;    /* hash of the peer's id -> inbound */
    inbound *listens;   /* the peer's subscriptions */
    size_t nlistens;
    size_t nghosts; /* outbound OUT_GHOST: task calls cancelled before their task's id */
    mcp__batch *collecting; /* the batch whose items are being read */

    int64_t next_id;
    mcp__map out_ids; /* our ids (handles, and later rounds') -> outbound */
    timer_heap timers;
    const char *end_reason; /* while a local ending calls back (mcp_session_end_reason) */
    outbound *queued_head, *queued_tail; /* requests waiting for the connect */

    mcp_buf out;   /* encoding scratch for one message */
    bool emitting; /* out is in use (a callback re-entered) */
    int depth;     /* session calls in progress on the stack */
    bool doomed;   /* mcp_session_free was called inside a callback */
};

/* Every public entry point brackets its work so a free from inside a
 * callback is deferred to the outermost return. */
void mcp__session_enter(mcp_session *s);
void mcp__session_leave(mcp_session *s);

/* A scratch buffer for encoding one message (the session's own, or a fresh
 * one when a callback re-entered during a send); release with
 * mcp__scratch_done. */
mcp_buf *mcp__scratch(mcp_session *s, mcp_buf *local);
void mcp__scratch_done(mcp_session *s, mcp_buf *b, mcp_buf *local);

/* Send one encoded message (in buf) on route. The send may fail and close
 * the session (or lose the route) before this returns: callers settle their
 * request before they emit and touch nothing of it afterwards. Returns
 * false when the session is closed once the send returns. */
bool mcp__emit(mcp_session *s, uint64_t route, const mcp_buf *buf);

/* A response (to a request of `batch`, or to a lone request when NULL):
 * into the batch's array, or straight out. */
bool mcp__emit_response(mcp_session *s, uint64_t route, mcp__batch *batch,
                        const mcp_buf *buf);

/* Encode and send an error response; id may be NULL (null id); data may be
 * NULL. Goes into the batch being read, if any. */
void mcp__send_error(mcp_session *s, uint64_t route, const mcp_id *id,
                     int64_t code, const char *message, const mcp_json *data);
/* -32021 for a request (not registered) that needs the extension
 * declared: data.requiredCapabilities names it. */
void mcp__send_missing_extension(mcp_session *s, uint64_t route, const mcp_id *id,
                                 const char *extension);

/* Logging with the structured fields of mcp_log_record. fmt may be NULL for
 * records whose message is built from the fields. */
void mcp__log(mcp_session *s, mcp_log_level level, mcp_log_event event,
              const mcp_id *id, const char *method, const char *direction,
              const char *reason, int64_t age_ms, const char *fmt, ...)
    __attribute__((format(printf, 9, 10)));

/* The session failed (a write, the connection): close it. */
void mcp__session_fail(mcp_session *s, const char *why);

/* Handle one decoded message (a request, notification or response). */
void mcp__dispatch(mcp_session *s, uint64_t now, uint64_t route, mcp_message *m);
/* A message that could not be used (rc from the decoder): answer it as
 * JSON-RPC says (or not at all) and log it. m may be NULL. */
void mcp__bad_message(mcp_session *s, uint64_t route, int rc, const mcp_message *m,
                      const mcp_decode_error *err);

/* A 2026-07-28 client writes no responses at all (stdio binding): it
 * drops what it would otherwise answer. */
bool mcp__never_answer(const mcp_session *s);

/* Whether method may be sent as a request in the current state. */
bool mcp__may_request(const mcp_session *s, const char *method);

/* inbound.c */
void mcp__inbound_request(mcp_session *s, uint64_t now, uint64_t route,
                          mcp_message *msg, const mcp__era *era,
                          const mcp_json *caps, int log_level);
/* A request whose id is already in flight is refused (answered -32600, and
 * true); every request goes through this, the ones answered at once too. */
bool mcp__inbound_refuse_duplicate(mcp_session *s, uint64_t route, const mcp_message *msg);
inbound *mcp__inbound_register(mcp_session *s, uint64_t now, uint64_t route,
                               mcp_message *msg, const mcp__era *era, int kind);
void mcp__inbound_unregister(mcp_session *s, inbound *in);
void mcp__inbound_cancelled(mcp_session *s, uint64_t now, const mcp_message *msg);
void mcp__inbound_close_all(mcp_session *s, uint64_t now, const char *reason);
void mcp__inbound_route_closed(mcp_session *s, uint64_t now, uint64_t route);
void mcp__inbound_free_all(mcp_session *s);
inbound *mcp__inbound_lookup(const mcp_session *s, mcp_handle h);
mcp_handle mcp__inbound_handle(const mcp_session *s, const inbound *in);
/* Write a result object of a request handled under era: the result's own
 * serialized text (raw) or a DOM object (result, NULL for {}); modern
 * requests get resultType and serverInfo, and with `subscription` the
 * subscription id in _meta. raw_plain: raw has no whitespace and neither
 * _meta nor resultType, so its members are copied unread. */
void mcp__write_result(mcp_session *s, mcp__jw *w, const mcp__era *era,
                       const mcp_json *result, const char *raw, size_t raw_len,
                       bool raw_plain, const mcp_id *subscription);

/* outbound.c */
typedef struct outbound_spec {
    const char *method;
    const mcp_json *params;          /* an object or NULL */
    const char *params_raw;          /* or serialized members (no braces) */
    size_t params_raw_len;
    const mcp_request_options *opts;
    int kind;                        /* enum outbound_kind */
    bool cancellable;
    bool envelope;                   /* add the 2026-07-28 request envelope */
    bool declare_tasks;              /* ... whose capabilities declare the tasks
                                        extension (also when opts->task) */
    mcp_response_fn cb;
    mcp_progress_fn progress_cb;
    mcp_listen_fn listen_cb;
    void *user_data;
    const struct mcp__rounds *round; /* a later round: its answers and state
                                        replace the caller's members */
} outbound_spec;
int mcp__outbound_send(mcp_session *s, uint64_t now, const outbound_spec *spec,
                       mcp_handle *out);
/* The request whose handle is id. */
outbound *mcp__outbound_get(const mcp_session *s, int64_t id);
/* The request whose round on the wire has JSON-RPC id id (what an answer,
 * progress or a cancel of the peer names). */
outbound *mcp__outbound_on_wire(const mcp_session *s, int64_t id);
/* When o needs the engine next: its earliest deadline, or a task's next
 * poll (the order of the timer heap). */
uint64_t mcp__outbound_due(const outbound *o);
/* Re-sift o after its deadlines changed. */
void mcp__outbound_rearm(mcp_session *s, outbound *o);
/* Send o again as its next round (o->rounds; o in the tables, held, not on
 * the wire): a new id, sp's params. MCP_OK (o may have ended during the
 * send: o->ended), or the error that kept it from being sent (o untouched). */
int mcp__outbound_resend(mcp_session *s, uint64_t now, outbound *o, const outbound_spec *sp);
/* End o after it was held (o->held): free it if it ended meanwhile. */
void mcp__outbound_release(mcp_session *s, outbound *o);
/* Take o out of the tables: from then on only the caller can reach it, and
 * must end it with mcp__outbound_end (after logging, if it logs: the log
 * callback may call anything). */
void mcp__outbound_take(mcp_session *s, outbound *o);
void mcp__outbound_end(mcp_session *s, outbound *o, int outcome, const mcp_message *msg);
void mcp__outbound_response(mcp_session *s, uint64_t now, const mcp_message *msg);
/* What a result msg to o means: MCP_OK, or MCP_ERR_PROTOCOL for one that
 * is no object or whose 2026-07-28 resultType o cannot take (logged). */
int mcp__result_outcome(mcp_session *s, const outbound *o, const mcp_message *msg);
/* notifications/cancelled for o's request on the wire (2026-07-28 HTTP:
 * its stream closed), logged with reason. */
void mcp__outbound_send_cancel(mcp_session *s, uint64_t now, outbound *o, const char *reason);
/* A response to one of our requests that is not valid JSON-RPC (no
 * "jsonrpc", both result and error, a malformed error): the request ends
 * with MCP_ERR_PROTOCOL now rather than waiting for its timeout. false when
 * id names no request in flight. */
bool mcp__outbound_reject(mcp_session *s, const mcp_id *id, const char *why);
void mcp__outbound_progress(mcp_session *s, uint64_t now, const mcp_message *msg);
void mcp__outbound_close_all(mcp_session *s, uint64_t now);
/* The connect ended: the requests that waited for it go out in order
 * (connected true), or end with MCP_ERR_CLOSED. */
void mcp__outbound_flush_queued(mcp_session *s, uint64_t now, bool connected);
void mcp__outbound_free_all(mcp_session *s);

/* rounds.c: the rounds of a 2026-07-28 call (basic/patterns/mrtr.mdx) */
/* Keep what e's later rounds need (a copy of its params as written: len
 * bytes, the object's text, 0 when the request has none) when sp asks for
 * rounds (o->on_input_required) on a request that may have them. */
int mcp__rounds_capture(mcp_session *s, outbound *e, const outbound_spec *sp,
                        const mcp_request_options *o, const char *params, size_t len);
/* Whether result is an InputRequiredResult. */
bool mcp__is_input_required(const mcp_json *result);
/* o (with rounds) was answered with the InputRequiredResult msg. */
/* o (a tools/call with task_if_required, not a task) was refused -32021
 * naming the tasks extension: sent again as a task call, true; false when
 * the refusal is its answer. */
bool mcp__rounds_task_upgrade(mcp_session *s, uint64_t now, outbound *o, const mcp_message *msg);
void mcp__rounds_input_required(mcp_session *s, uint64_t now, outbound *o,
                                const mcp_message *msg);
/* The members a later round adds to the caller's params: inputResponses,
 * requestState. */
void mcp__rounds_write_members(mcp__jw *w, const struct mcp__rounds *r);
void mcp__rounds_free(mcp_session *s, struct mcp__rounds *r);

/* A tools/call run as a task (task_call.c): 2025-11-25, and 2026-07-28's tasks
 * extension ------------------------------------------------------------------------ */

/* e is a task call: its record made. MCP_OK or MCP_ERR_NOMEM. */
int mcp__task_capture(mcp_session *s, outbound *e, const mcp_request_options *o);
void mcp__task_free(mcp_session *s, struct mcp__task_call *t);
/* Whether o is a task call whose task's id is known (the task exists). */
bool mcp__task_known(const outbound *o);
/* 2026: every question of the task answered (rounds.c, o held, not on the
 * wire): tasks/update with them. MCP_OK, or the error that kept it from
 * being sent (o untouched, as mcp__outbound_resend). */
int mcp__task_send_answers(mcp_session *s, uint64_t now, outbound *o,
                           const struct mcp__rounds *answers);
/* params.task of the first request (2025): {} or {"ttl":N}. */
void mcp__task_write_param(mcp__jw *w, const mcp_request_options *o);
/* An answer to o's request on the wire (o in the tables, not held). */
void mcp__task_response(mcp_session *s, uint64_t now, outbound *o, const mcp_message *msg);
/* o's step_deadline came: its next tasks/get. */
void mcp__task_step(mcp_session *s, uint64_t now, outbound *o);
/* notifications/tasks/status: true when it is about a task of ours. */
bool mcp__task_status_heard(mcp_session *s, uint64_t now, const mcp_message *m);
/* o (in the tables) is cancelled with outcome and reason: tasks/cancel,
 * now or once its id is known; the caller is told now. Always true. */
bool mcp__task_cancel(mcp_session *s, uint64_t now, outbound *o, int outcome, const char *reason);

/* lifecycle.c */
void mcp__server_initialize(mcp_session *s, uint64_t route, const mcp_message *msg);
void mcp__server_set_level(mcp_session *s, uint64_t route, const mcp_message *msg);
void mcp__connect_answered(mcp_session *s, outbound *o, int outcome,
                           const mcp_message *msg);

/* modern.c */
/* Whether a request carries the 2026-07-28 envelope in its _meta. */
bool mcp__is_modern_request(const mcp_message *msg);
/* A server's request: when it carries the envelope, handle it as a
 * 2026-07-28 request and return true (the envelope read once); else false,
 * nothing done. */
bool mcp__modern_request(mcp_session *s, uint64_t now, uint64_t route, mcp_message *msg);
/* The request envelope our modern requests carry, as members of _meta;
 * with tasks, its capabilities declare the tasks extension. */
void mcp__write_envelope(mcp_session *s, mcp__jw *w, bool tasks);
/* What every message of a session repeats, written once: the object write
 * fills (given arg), kept in mem's memory as its text (*len bytes, NUL
 * after), or only its members, without the braces (members true). NULL
 * when it could not be written or kept. */
char *mcp__write_once(const mcp_mem *mem, void (*write)(mcp__jw *w, const void *arg),
                      const void *arg, bool members, size_t *len);
/* Our implementation info object {"name":..,"version":..}. */
void mcp__write_implementation(mcp_session *s, mcp__jw *w);

/* listen.c */
void mcp__listen_want_free(mcp_session *s, struct mcp__listen_want *w);
void mcp__listen_open(mcp_session *s, uint64_t now, uint64_t route, mcp_message *msg,
                      const mcp__era *era);
void mcp__listen_unlink(mcp_session *s, inbound *in);
/* Client: a notification that names a subscription of ours; true when it
 * was one (consumed). */
bool mcp__listen_notification(mcp_session *s, const mcp_message *msg);
/* Client: a cancel naming (request_id) one of our subscriptions: the server
 * ended it; true if it was one. */
bool mcp__listen_cancelled_by_server(mcp_session *s, const mcp_json *request_id);

/* batch.c */
/* MCP_OK when the batch was taken (2025-03-26), else the code it was
 * refused with (already answered). */
int mcp__batch_receive(mcp_session *s, uint64_t now, uint64_t route,
                       mcp_message *batch, const mcp_decode_error *err);
/* A request of batch b settled (answered or not). */
void mcp__batch_settled(mcp_session *s, mcp__batch *b);
void mcp__batch_free(mcp_session *s, mcp__batch *b);

/* oversized.c */
/* Bytes that are not JSON but are shaped as an answer to one of our
 * requests (an integer id, result or error, no method: invalid UTF-8 in a
 * string, a raw control character, nesting past the limit): that request
 * ends with MCP_ERR_PROTOCOL now. false when no request of ours is named. */
bool mcp__unreadable_answer(mcp_session *s, const char *data, size_t len, const char *why);
void mcp__oversized(mcp_session *s, uint64_t now, uint64_t route, const char *head,
                    size_t head_len, const char *tail, size_t tail_len, size_t limit);

/* Saturating now + ms (MCP_NO_TIMEOUT stays UINT64_MAX). */
static inline uint64_t mcp__deadline(uint64_t now, uint64_t ms)
{
    return ms == MCP_NO_TIMEOUT || now > UINT64_MAX - ms ? UINT64_MAX : now + ms;
}

static inline int64_t mcp__age(uint64_t now, uint64_t start)
{
    return now >= start ? (int64_t)(now - start) : 0;
}

#endif
