/* SPDX-License-Identifier: MIT */
/*
 * The server's core: the server and its loop, connections, the request
 * context, the method table through which every request is dispatched,
 * and the hooks and per-connection state through which features take part
 * (methods/, ask/ and the ones to come). Bindings (http/, stdio/) open
 * connections over their transports and plug in as listeners. The core
 * knows no feature and no binding: it includes offer/ and the layers below
 * src/server only.
 *
 * Threads: loop thread unless a function says otherwise.
 */
#ifndef MCP_SERVER_CORE_H
#define MCP_SERVER_CORE_H

#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <uv.h>

#include "core/map.h"
#include "mcp/server.h"
#include "runtime/driver.h"
#include "runtime/internal.h"
#include "runtime/log.h"
#include "server/offer/offer.h"
#include "transport/transport.h"

/* The shortest requestState key an application may give. */
#define MCP__STATE_KEY_MIN 32

/* The method table and the features (features.c) ------------------------------ */

typedef struct conn conn;

/* Where a method exists: the 2025 revisions (chosen by initialize) and
 * 2026-07-28 (chosen per request by its envelope). */
#define MCP__ERA_2025 1u
#define MCP__ERA_2026 2u
#define MCP__ERAS_ALL (MCP__ERA_2025 | MCP__ERA_2026)

/* Loop thread: answer request h (msg: borrowed for the call) on c, now or
 * later. state: c's state of the feature that registered the method. */
typedef void (*mcp__method_fn)(conn *c, mcp_handle h, const mcp_message *msg, void *state);

/* One row of the method table. */
typedef struct mcp__method {
    const char *name;
    mcp__method_fn handle;
    unsigned eras;          /* MCP__ERA_*: elsewhere -32601 */
    /* The server capability the method needs, a path in the capabilities
     * the server declares ("resources.subscribe"; NULL: none): a server
     * that does not declare it (absent, false or null) answers -32601 with
     * not_offered. Decided once per server. */
    const char *capability;
    const char *not_offered;
} mcp__method;

/* The rows a method table has room for. */
#define MCP__METHOD_SLOTS 128

typedef struct mcp__request mcp__request;

/* How a request settled, as its settle hooks are told. */
typedef struct mcp__settle {
    bool cancelled;     /* by the client, its session's end or a stop */
    const char *reason; /* why, when cancelled; NULL when answered */
    int64_t error_code; /* answered with an error: its code; else 0 */
    const mcp_json *error_data; /* that error's data, when it has some */
} mcp__settle;

/* A feature of the server: the methods it answers, what it keeps per
 * connection, and the hooks through which it takes part in the life of
 * connections and requests without the core knowing it. Every member
 * but name may be 0 or NULL. */
typedef struct mcp__feature {
    const char *name;
    const mcp__method *methods;
    size_t nmethods;
    /* Add what the feature declares to the server's capabilities (caps, an
     * object of d) when the server is made. MCP_OK or MCP_ERR_NOMEM. */
    int (*declare)(const mcp_server *s, mcp_json_doc *d, mcp_json *caps);
    /* Per server: this many bytes, zeroed, made with the server (state
     * that outlives connections: a task store); server_init and
     * server_free around them (server_free also after a failed init). */
    size_t server_state_size;
    int (*server_init)(mcp_server *s, void *state);
    void (*server_free)(mcp_server *s, void *state);
    /* Per connection: this many bytes, zeroed, allocated with the
     * connection (no allocation of their own); a hook gets them as
     * `state`, other code with mcp__conn_state. */
    size_t conn_state_size;
    /* Loop thread: c's conversation ends (its transport went, a stop):
     * called before its session closes, so the feature may still write. */
    void (*conn_ending)(conn *c, void *state, const char *why);
    /* Any thread: c's last reference went: free what state holds. */
    void (*conn_free)(conn *c, void *state);
    /* Loop thread: the server was asked to stop (mcp_server_stop): called
     * before its connections are ended, so that what the feature runs on
     * no connection stops too. */
    void (*server_stopping)(mcp_server *s, void *state);
    /* Loop thread: the server's loop opened (a run, or the first attach
     * or listen before one): open the feature's own handles on it. */
    void (*loop_opened)(mcp_server *s, void *state);
    /* Loop thread: the server's loop closes (the end of a run), after
     * every connection ended: close the feature's own handles on it. */
    void (*loop_closing)(mcp_server *s, void *state);
    /* Loop thread: request r settles, answered or cancelled, before its
     * answer is written. A write here may close r's connection. */
    void (*request_settled)(mcp__request *r, void *state, const mcp__settle *how);
    /* Loop thread: detached request r's destination has a request now that
     * r's held questions may go with (with: a tasks/result waiting). */
    void (*request_routed)(mcp__request *r, void *state, mcp_handle with);
    /* Loop thread: the server has news (mcp_server_publish, a list
     * changed) of kind (uri for MCP_LISTEN_RESOURCE_UPDATES), before its
     * connections are told; not for news heard from elsewhere
     * (mcp__server_publish_heard). */
    void (*news)(mcp_server *s, void *state, unsigned kind, const char *uri);
    /* Loop thread: the application published a change (mcp_server_publish)
     * and c's session has been told; uri for MCP_LISTEN_RESOURCE_UPDATES. */
    void (*published)(conn *c, void *state, unsigned kind, const char *uri);
    /* A request a handler answers (methods/call.c runs these): on the loop
     * thread before its handler runs (false: the feature answered it
     * instead); on the handler's thread when the handler ended it without
     * an answer (MCP_ERR_NOT_FOUND: the feature has none to give either). */
    bool (*request_starting)(mcp__request *r, void *state);
    int (*request_unanswered)(mcp__request *r, void *state);
    /* Any thread: why data is not that of an error with this code the
     * feature defines (-32042 is ask/'s), or NULL. */
    const char *(*error_problem)(mcp__request *r, int64_t code, const mcp_json *data);
    /* Loop thread: a 2026-07-28 tools/call r, still attached to its request
     * and not yet answered, is to run as a task from now on (a gateway's
     * call whose child made a task of it): the feature answers r's request
     * CreateTaskResult and takes r as the task's run (its answer, progress
     * and cancel become the task's). MCP_OK; MCP_ERR_STATE when r may not
     * be one (its request did not declare the tasks extension, say);
     * MCP_ERR_BUSY past the task caps; MCP_ERR_CANCELLED when r settled
     * meanwhile (its CreateTaskResult could not be sent); MCP_ERR_NOMEM. */
    int (*request_become_task)(mcp__request *r, void *state);
    /* Loop thread: c's client sent a notification the engine does not
     * keep itself (notifications/roots/list_changed, say); msg borrowed
     * for the call. A write here may close c. */
    void (*notification)(conn *c, void *state, const mcp_message *msg);
    /* Loop thread: a 2026-07-28 subscriptions/listen of c's opened or
     * ended (the session's on_listen: uris borrowed for the call, NULL for
     * none). Must not call into c's session. */
    void (*listen)(conn *c, void *state, const mcp_json *uris, bool open);
} mcp__feature;

/* Every feature the server is built with, in order, NULL-terminated
 * (src/server/features.c). A later feature's method of an earlier one's
 * name takes it over (mcp__method_pass_on reaches the earlier one). */
extern const mcp__feature *const mcp__server_features[];

/* Loop thread: dispatch request h by its method: -32601 for a method no
 * feature answers, or not in the request's revision, or not offered. */
void mcp__method_dispatch(conn *c, mcp_handle h, const mcp_message *msg);
/* Loop thread: hand request h to the method m took over, as if m had not
 * been registered. */
void mcp__method_pass_on(conn *c, mcp_handle h, const mcp_message *msg, const mcp__method *m);
/* Build the method table and lay out the features' states (once per
 * process; mcp_server_new). */
void mcp__features_init(void);
/* The bytes the connection struct carries for every feature's state. */
size_t mcp__features_state_size(void);
/* c's state of feature f (which must be in mcp__server_features). */
void *mcp__conn_state(conn *c, const mcp__feature *f);
/* s's state of feature f. */
void *mcp__server_state(mcp_server *s, const mcp__feature *f);
/* Making the server: the features declare their capabilities, the
 * methods s does not offer are noted, the features' server states are
 * made. MCP_OK or MCP_ERR_NOMEM (free with mcp__features_server_free). */
int mcp__features_server_init(mcp_server *s);
void mcp__features_server_free(mcp_server *s);
/* Run the hooks of that name of every feature that has one. */
void mcp__features_conn_ending(conn *c, const char *why);
void mcp__features_conn_free(conn *c);
void mcp__features_loop_opened(mcp_server *s);
/* Whether spec (mcp_server_options.task_store) names a task store. */
bool mcp__task_store_valid(const char *spec);
void mcp__features_loop_closing(mcp_server *s);
void mcp__features_server_stopping(mcp_server *s);
void mcp__features_request_settled(mcp__request *r, const mcp__settle *how);
/* The first feature's request_become_task for r; MCP_ERR_NOT_FOUND when
 * no feature makes tasks. */
int mcp__features_request_become_task(mcp__request *r);
void mcp__features_published(conn *c, unsigned kind, const char *uri);
void mcp__features_notification(conn *c, const mcp_message *msg);
void mcp__features_listen(conn *c, mcp_handle h, const mcp_json *uris, bool open);
void mcp__features_news(mcp_server *s, unsigned kind, const char *uri);
/* Loop thread: news of kind (uri: MCP_LISTEN_RESOURCE_UPDATES) heard from
 * another process sharing this one's task store: the connections told, as
 * for the server's own (not passed on again). */
void mcp__server_publish_heard(mcp_server *s, unsigned kind, const char *uri);
void mcp__features_request_routed(mcp__request *r, mcp_handle with);
bool mcp__features_request_starting(mcp__request *r);
int mcp__features_request_unanswered(mcp__request *r);
const char *mcp__features_error_problem(mcp__request *r, int64_t code, const mcp_json *data);

/* The request context (request.c) ------------------------------------------------ */

/* An inbound request being handled: refcounted, answerable from any thread.
 * Two references while it runs: the connection's, dropped on the loop thread
 * when the request settles (answered or cancelled), and the handler's,
 * dropped when the handler ends it. Answers from other threads are posted to
 * the loop, where a settled request drops them: "nothing after a cancel"
 * holds whatever the handler does. */
struct mcp__request {
    mcp__job job;      /* first: a pool job is a request */
    atomic_uint refs;
    atomic_bool ended; /* the handler ended it */
    bool settled;      /* loop thread: answered or cancelled */
    conn *conn;        /* a reference on the connection */
    mcp_handle handle;
    mcp_message *msg;  /* one reference */
    registry *snapshot; /* the registry it started with */
    const char *version; /* the revision it is served under (a literal) */
    mcp_cancel_token token; /* its own (a request in flight costs no allocation for it) */
    void (*destroy)(struct mcp__request *r); /* frees what embeds it */
    /* Where its answer, progress and logs go once it is no longer its
     * session handle's to answer (mcp__request_detach); NULL until then. */
    const struct mcp__request_sink *sink;
};

/* ANSWER_NOT_FOUND: "Resource not found" for the request's params.uri, with
 * the code given (the revision's). */
/* ANSWER_ERROR_DATA: the text is {"message":...,"data":...}. */
/* ANSWER_RESULT_PLAIN: a result written by the server itself, with no
 * whitespace, _meta or resultType (mcp__session_reply_plain). */
typedef enum {
    ANSWER_RESULT,
    ANSWER_RESULT_PLAIN,
    ANSWER_ERROR,
    ANSWER_ERROR_DATA,
    ANSWER_NONE,
    ANSWER_NOT_FOUND
} answer_kind;

/* A question a detached request's handler asks that its destination keeps
 * for the client to answer later (2026-07-28: a task's inputRequests,
 * answered by tasks/update). The asker's memory, valid until the
 * destination calls answered or the asker withdraws it. */
typedef struct mcp__question {
    const char *key;        /* unique among its destination's questions */
    const char *method;     /* sampling/createMessage, elicitation/create, roots/list */
    const mcp_json *params; /* NULL: none */
    /* Loop thread: the client's answer (an object, borrowed for the call),
     * given once; the destination has forgotten q before it calls this. */
    void (*answered)(struct mcp__question *q, const mcp_json *result);
    struct mcp__question *next; /* the destination's */
} mcp__question;

/* A detached request's destination (a task's run: the request itself was
 * answered CreateTaskResult). Loop thread, each once the request is
 * detached and until it settles. A feature embeds the sink in what it
 * keeps for the request and finds that from the pointer. Each may write,
 * and a write may end r's connection. */
typedef struct mcp__request_sink {
    /* r settled with this answer (as mcp__request_end was given it, the
     * settle hooks already run); after it, r is the sink's no more. */
    void (*answered)(mcp__request *r, answer_kind kind, int64_t code, const char *text,
                     size_t len);
    /* r's handler reported progress (checked as mcp_call_progress does) or
     * a log message. */
    void (*progress)(mcp__request *r, double progress, double total, const char *message);
    void (*log)(mcp__request *r, mcp_log_level level, const char *logger, const char *text);
    /* r's handler asks the client something (open), or such a question
     * ended (!open): its destination's state follows (a task: input_required,
     * then working again). With open: the handle of the request the
     * question goes with (its route; 0: the session's own), and in *tag an
     * id to name in the question's _meta (a task's, as
     * io.modelcontextprotocol/related-task; NULL: none). */
    mcp_handle (*asking)(mcp__request *r, bool open, const char **tag);
#define MCP__ASK_HOLD ((mcp_handle)UINT64_MAX) /* asking: no request to go with
                                                  yet: held until request_routed */
    /* 2026-07-28: r's handler asks q, which the destination keeps until the
     * client answers it (q->answered) or the asker withdraws it. MCP_OK;
     * MCP_ERR_CANCELLED (the destination ended), MCP_ERR_INVALID_ARG (its
     * key was used before), MCP_ERR_NOMEM: q not taken. */
    int (*pose)(mcp__request *r, mcp__question *q);
    /* q is given up (timed out, r settled): forgotten, if still kept. */
    void (*withdraw)(mcp__request *r, mcp__question *q);
} mcp__request_sink;

/* Loop thread: register r (refs 2) with its connection: it becomes the
 * session's data of request h (mcp_session_set_inbound_data), how a cancel
 * naming h finds it. MCP_OK, MCP_ERR_NOMEM or MCP_ERR_STATE (h is not in
 * flight); r untouched on error. */
int mcp__request_start(mcp__request *r, conn *c, mcp_handle h, const mcp_message *msg,
                       registry *snapshot);
/* Any thread: end the request with an answer (a result's JSON text, or an
 * error message), copied when it must travel to the loop. MCP_OK,
 * MCP_ERR_CANCELLED, MCP_ERR_STATE (ended before), MCP_ERR_NOMEM. */
int mcp__request_end(mcp__request *r, answer_kind kind, int64_t code, const char *text,
                     size_t len);
/* Any thread: progress and log messages for the request, before it ends. */
int mcp__request_progress(mcp__request *r, double progress, double total,
                          const char *message);
int mcp__request_log(mcp__request *r, mcp_log_level level, const char *logger,
                     const char *text);
void mcp__request_ref(mcp__request *r);
void mcp__request_unref(mcp__request *r);
/* Loop thread: the session cancelled request h of c. */
void mcp__request_cancelled(conn *c, mcp_handle h, const char *reason);
/* Loop thread: settle r as cancelled, its token fired with reason (a
 * detached request, whose session knows it no more). */
void mcp__request_cancel(mcp__request *r, const char *reason);
/* Loop thread: r, in flight and not settled, is no longer its session
 * handle's: its handle forgets it (a cancel naming the handle finds
 * nothing), r->handle becomes 0, and what it answers, reports or logs goes
 * to sink (kept until r settles). The caller answers the handle itself. */
void mcp__request_detach(mcp__request *r, const mcp__request_sink *sink);
/* Answer h "Resource not found" for uri, with the code of its revision. */
int mcp__reply_not_found(mcp_session *ss, mcp_handle h, const mcp_json *uri);
/* A string a client sent (n bytes, any), as an answer may show it:
 * JSON-escaped, its first max bytes, "?" when the escaped text passes
 * limit bytes; cut to size. */
void mcp__show_string(char *out, size_t size, const char *s, size_t n, size_t max,
                      size_t limit);

/* requestState (request_state.c) ---------------------------------------------- */

/* A 2026-07-28 requestState for the request msg on c (its method, name or
 * URI, arguments; c's credential), carrying members (JSON object members
 * without braces, members_len bytes, beginning with a comma-less member),
 * valid for request_state_ttl_ms: appended to out (Base64 and '.', nothing
 * to escape in a JSON string). MCP_OK or MCP_ERR_NOMEM. */
int mcp__request_state_seal(const conn *c, const mcp_message *msg, const char *members,
                            size_t members_len, mcp_buf *out);
/* The state (n bytes, the client's) opened: NULL with *out its payload
 * (owned by the caller; its members as sealed, and "x", "d", "p"), or why
 * it is refused (a static text for an Invalid params error): not ours,
 * altered, expired, for another request, for other credentials. */
const char *mcp__request_state_open(const conn *c, const mcp_message *msg, const char *state,
                                    size_t n, mcp_json_doc **out);
/* The capabilities a 2026-07-28 request's envelope declares (in msg,
 * valid as long as it is), or NULL. */
const mcp_json *mcp__request_client_caps(const mcp_message *msg);
/* Whether the client declared what method needs (caps: its capabilities;
 * version: the revision it speaks, NULL for any). */
bool mcp__ask_declared(const mcp_json *caps, const char *version, const char *method,
                       const mcp_json *params);

/* Connections (conn.c) --------------------------------------------------------- */

/* One client: its session (in the driver), its requests, its transport,
 * and each feature's state. */
struct conn {
    mcp_server *server;
    mcp__driver driver;
    conn *next, *prev; /* the server's connections (or spares, next only) */
    conn *down_next;   /* the server's connections that are down */
    atomic_uint refs;  /* the server's, and one per request */
    atomic_uint outliving; /* of those, 2026-07-28 task runs: they outlive
                              the connection (not waited for as it drains) */
    bool down;         /* the transport went: draining, then released */
    uint64_t drain_deadline; /* for its handlers */
    char *credential;  /* a 2026-07-28 HTTP request's Authorization value
                          (owned), to which its requestState is bound */
    /* The output drains as long as the client reads: given up after the
     * grace without progress. */
    size_t last_unwritten;
    uint64_t last_progress;
    /* The features' states (mcp__conn_state), laid out once per process. */
    _Alignas(max_align_t) unsigned char feature_state[];
};

/* Loop thread: a connection of s over t (taken over), its session on the
 * loop: a spare one when s keeps any. */
int mcp__conn_open(mcp_server *s, mcp__transport *t, conn **out);
/* Loop thread: end c's conversation (its transport went, or a stop): the
 * features told (conn_ending), its session closed and its requests
 * cancelled; it drains and the sweep releases it. */
void mcp__conn_end(conn *c, const char *why);
/* Any thread: whether two credentials (conn.credential: an Authorization
 * value, or NULL for none) are the same caller's. Both borrowed. */
bool mcp__same_credential(const char *a, const char *b);
void mcp__conn_ref(conn *c);
void mcp__conn_unref(conn *c);
/* Loop thread: release the connections that are down and drained (or past
 * their grace). True when none remain. */
bool mcp__conns_sweep(mcp_server *s, bool force);
/* Loop thread: free the spare connections, and keep none from now on (the
 * loop closes). */
void mcp__conns_drop_spares(mcp_server *s);

/* Released connections kept for the next ones (a 2026-07-28 HTTP request is
 * a connection of its own): their session, timers and memory serve again,
 * reset. At most this many. */
#define MCP__CONN_SPARES 64

/* The server (server.c, publish.c) and its listeners --------------------------------- */

typedef struct mcp__listener mcp__listener;

struct mcp_server {
    mcp_server_options opts; /* strings below are our copies */
    mcp_mem mem;             /* the C library allocator, for internal tables */
    char *name, *version, *instructions, *log_name;
    mcp__stderr_logger default_logger;
    mcp_json_doc *caps;      /* our capabilities */
    /* Per method table row, a bit per layer: the method is not offered
     * (its capability is not declared). */
    unsigned char method_unoffered[MCP__METHOD_SLOTS];
    unsigned char *feature_state; /* the features' server states */
    size_t features_ready;   /* how many have had server_init */

    mcp__offers offers;      /* what is registered */

    atomic_bool loop_open;   /* the loop and the poster exist */
    bool running;
    uv_loop_t loop;
    mcp__pool *pool;
    mcp__pool *abandoned_pool; /* workers still running abandoned handlers */
    mcp__poster poster;
    uv_timer_t sweep_timer;  /* drains connections that went down */
    conn *conns;
    conn *down;              /* the connections that are down (down_next) */
    conn *spares;            /* released, ready for the next (next) */
    size_t nspares;
    bool keep_spares;        /* while the loop runs on */
    mcp__listener *listeners; /* those listening now */
    atomic_size_t live;      /* requests not yet freed, + 1: the owner's (server.c) */
    atomic_bool stop_asked;
    bool stopping;
    bool io_failed; /* a connection's reading or writing failed, or replies
                       were left unwritten (mcp_server_serve_fds reports it) */
    uint64_t stop_deadline;
    mcp_json_doc *empty_args; /* {} for calls without arguments */
    unsigned char *state_key; /* requestState's HMAC key */
    size_t state_key_len;
};

/* A way for clients to reach the server other than a transport attached
 * to it (http/: the Streamable HTTP listener): it opens a connection
 * (mcp__conn_open) per client as they come. The run goes on while one
 * listens. Loop thread. */
typedef struct mcp__listener_ops {
    /* Stop taking clients and end the connections made; call
     * mcp__server_listener_closed once closed (maybe later, maybe within).
     * May be called again: nothing more happens then. */
    void (*stop)(mcp__listener *l);
} mcp__listener_ops;

struct mcp__listener {
    const mcp__listener_ops *ops;
    mcp__listener *next;
};

void mcp__server_listener_add(mcp_server *s, mcp__listener *l);
/* l has closed: the server forgets it (and a run with nothing left to
 * serve returns). */
void mcp__server_listener_closed(mcp_server *s, mcp__listener *l);
/* The server's listener of that kind, or NULL. */
mcp__listener *mcp__server_listener_find(const mcp_server *s, const mcp__listener_ops *ops);

void mcp__server_log(mcp_server *s, mcp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mcp__server_log_record(mcp_server *s, const mcp_log_record *r);
/* The snapshot to serve a new request with, referenced. */
registry *mcp__server_snapshot(mcp_server *s);
/* Loop thread: open the loop, pool and poster (once). */
int mcp__server_open_loop(mcp_server *s);
/* The last request of a server mcp_server_free already left was freed:
 * free the server, on this thread. */
void mcp__server_last_request_freed(mcp_server *s);
/* Loop thread: serve a connection over t (taken over). */
int mcp__server_attach(mcp_server *s, mcp__transport *t);
/* Any thread: send r to the loop thread; false once the loop is gone. */
bool mcp__server_post(mcp_server *s, mcp__post *p);

#endif
