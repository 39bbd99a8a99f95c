/* SPDX-License-Identifier: MIT */
/* The Streamable HTTP binding's internals, shared by src/server/http*.c. */
#ifndef MCP_SERVER_HTTP_INTERNAL_H
#define MCP_SERVER_HTTP_INTERNAL_H

#include "jose/jose.h"
#include "server/auth/auth.h"
#include "server/core/core.h"
#include "transport/http_server.h"

typedef struct http_listener http_listener;
typedef struct http_oauth http_oauth;
typedef struct http_keys http_keys;
typedef struct http_introspect http_introspect;
typedef struct hroute hroute;
typedef struct hpeer hpeer;

/* One answer stream of a peer: the response to a POSTed request (its route
 * in the session engine), or a 2025 session's GET stream (route 0). */
struct hroute {
    hpeer *peer;
    uint64_t id;
    mcp__http_exchange *x; /* NULL while detached: a 2025 event stream whose
                              connection dropped, waiting for a resume */
    hroute *next;
    bool initialize; /* its response names the new session */
    bool streaming;  /* the answer is an event stream */
    bool resumable;  /* 2025: events carry ids and are kept for a resume */
    bool answered;   /* the response is in the stream */
    unsigned busy_retry_s; /* an error response is a 503 saying when to
                              try again (mcp__peer_unavailable); 0: not */
    uint64_t detached_at; /* when its client went (resumable, x NULL) */
    mcp_id request;       /* 2026-07-28: its request's id (owned), for the
                             error a stop answers it with */
    uint64_t seq;      /* events so far */
    uint64_t sent_seq; /* events handed to a live exchange */
    mcp_buf replay;    /* resumable: records of (seq, length, event text) */
    size_t replay_off; /* where the records still kept begin */
};

/* The transport of one connection (core/conn.c): a 2025 session, or one
 * 2026-07-28 request. */
struct hpeer {
    mcp__transport t; /* first: the connection's transport */
    struct http_listener *l;
    conn *conn;
    bool legacy;
    char sid[65];
    char *credential; /* 2025: the Authorization the session was initialized
                         with (scheme in lower case), or NULL: each of its
                         requests must bring the same (tasks.mdx: tasks are
                         bound to the authorization context) */
    hroute *routes;
    hroute *get;   /* 2025: the GET stream (route 0), once needed */
    uint64_t last_used;
    bool ended;    /* no new requests: the connection is ending */
    bool finished; /* queued for ending */
    hpeer *next, *prev; /* the listener's sessions (legacy) */
    hpeer *next_finished;
};

struct http_listener {
    mcp__listener base; /* first: the server's listener is the HTTP one */
    mcp_server *server;
    mcp__http_server *http;
    mcp_server_http_options opts; /* its strings are not kept */
    uint64_t next_route;
    size_t replay_bytes; /* kept by every stream for resumes */
    hpeer *sessions; /* 2025 sessions */
    size_t nsessions;
    hpeer *finished; /* peers whose connection ends next turn */
    uv_timer_t reaper, expiry;
    int open_handles;
    size_t npeers;       /* the listener lives until its last peer closed */
    bool closing, closed;
    mcp_buf scratch;     /* header values decoded for a check (http_check.c) */
    http_oauth *oauth;   /* the resource server's state (http_oauth.c), or NULL */
};

/* http_oauth.c: the binding as an OAuth resource server. */
/* From opts' auth_*: *out NULL when neither auth_issuer nor
 * auth_introspection_url is set. serve(serve_ud, x): a request that waited
 * for its token's introspection may go on (its principal and scope set):
 * the binding's request callback again. MCP_OK, MCP_ERR_INVALID_ARG
 * (logged with why), MCP_ERR_IO (the key set could not be had), MCP_ERR_STATE,
 * MCP_ERR_NOMEM. */
int mcp__http_oauth_open(mcp_server *s, const mcp_server_http_options *opts,
                         void (*serve)(void *ud, mcp__http_exchange *x), void *serve_ud,
                         http_oauth **out);
void mcp__http_oauth_free(http_oauth *o);
/* The metadata document and the path it is served at (NULL, NULL without). */
void mcp__http_oauth_document(const http_oauth *o, const char **path, const char **json);
/* The transport's authorize hook's answer for a request. */
int mcp__http_oauth_authorize(http_oauth *o, const char *authorization, mcp__http_auth_answer *a);
/* Whether x, served by the transport, still waits for its token to be
 * introspected (o NULL: false); then wait has it wait (x answered at once
 * when it cannot: 503 past the bounds), and forget drops x closed while it
 * waited. Loop thread. */
bool mcp__http_oauth_pending(const http_oauth *o, const mcp__http_exchange *x);
void mcp__http_oauth_wait(http_oauth *o, mcp__http_exchange *x);
void mcp__http_oauth_forget(http_oauth *o, mcp__http_exchange *x);
/* Whether m (x's body: a request, or a 2025-03-26 batch) may reach the
 * engine: each tools/call, prompts/get and resources/read in it names an
 * item (of the server's snapshot now) whose own scopes x's token holds,
 * with the server's (o NULL: no resource server, true). Else x is
 * answered, before anything else was sent on it: 403 with the
 * insufficient_scope challenge naming every scope the item needs (500 when
 * out of memory), and false. */
bool mcp__http_oauth_item_allowed(http_oauth *o, mcp_server *s, mcp__http_exchange *x,
                                  const mcp_message *m);

/* http_keys.c: the key set fetched from the authorization server (when
 * auth_jwks is not given). open makes the first fetch on the caller's
 * thread (blocks: refused while the server runs, MCP_ERR_STATE) and
 * logs why it failed: MCP_OK, MCP_ERR_INVALID_ARG (the issuer is not a
 * URL to fetch from), MCP_ERR_IO (the metadata or the key set could not
 * be had or used), MCP_ERR_NOMEM. Then loop thread: get is the set to
 * check with now (replaced between turns of the loop, never during a
 * check); unknown says a token named a key the set lacks (a fetch, at most
 * one per refetch_s, 0: 30). */
int mcp__http_keys_open(mcp_server *s, const char *issuer, unsigned refetch_s, http_keys **out);
void mcp__http_keys_free(http_keys *k);
const mcp__jwks *mcp__http_keys_get(const http_keys *k);
/* Bumped whenever the set is replaced (what accepted tokens are
 * remembered for); loop thread, as get. */
uint64_t mcp__http_keys_generation(const http_keys *k);
void mcp__http_keys_unknown(http_keys *k);

/* http_job.c: blocking work of the binding (a fetch, a question to the
 * authorization server) as a job of the worker pool whose result is posted
 * to the loop. The caller embeds http_job first in its record, sets work
 * (worker thread: the blocking part; abort, once set, asks it to end
 * early), done (loop thread, only while an owner holds the job: takes the
 * result; must end with mcp__http_job_detach), destroy (any thread: the
 * last count went; frees the record) and waits (announce the work as a
 * wait: mcp__pool_wait_begin), then start: false (nothing started, the
 * record still the caller's) when the server has no pool. detach: the
 * owner lets go (loop thread); the job may still run, and then finds no
 * one. */
typedef struct http_job http_job;
struct http_job {
    mcp__job job; /* first: a pool job */
    mcp__post post;
    void (*work)(http_job *j);
    void (*done)(http_job *j);
    void (*destroy)(http_job *j);
    bool waits;
    atomic_bool abort;
    /* Private. */
    atomic_uint refs;   /* the owner's, the worker's, its post's while posted */
    pthread_mutex_t mu; /* guards s */
    mcp_server *s;      /* NULL once the owner went */
    void *owner;        /* loop thread only; NULL once it went */
};
bool mcp__http_job_start(http_job *j, mcp_server *s, void *owner);
void mcp__http_job_detach(http_job *j);

/* http_introspect.c: token introspection (RFC 7662). open checks opts'
 * auth_introspection_url, auth_client_id and auth_client_secret (logged:
 * MCP_ERR_INVALID_ARG; or MCP_ERR_NOMEM); rc and cache are the binding's,
 * borrowed. wait: x waits for the answer about token (n bytes of
 * authorization, its Authorization), asked once for every request with the
 * same header; then x is refused (401 or 403 with the challenge, 503 and
 * Retry-After when the authorization server failed) or has its principal
 * and scope set and is given to serve. x is answered at once when it
 * cannot wait (503 past the bounds, 500). forget: x closed. Loop thread. */
int mcp__http_introspect_open(mcp_server *s, const mcp_server_http_options *opts,
                              const mcp__resource_config *rc, mcp__token_cache *cache,
                              void (*serve)(void *ud, mcp__http_exchange *x), void *serve_ud,
                              http_introspect **out);
void mcp__http_introspect_free(http_introspect *q);
void mcp__http_introspect_wait(http_introspect *q, mcp__http_exchange *x,
                               const char *authorization, const char *token, size_t n);
void mcp__http_introspect_forget(http_introspect *q, mcp__http_exchange *x);

/* http_stream.c: routes and what the engine sends on them. */
/* The peer's transport operations send, close_route and unavailable. */
int mcp__peer_send(mcp__transport *t, uint64_t route, const char *data, size_t len);
void mcp__peer_close_route(mcp__transport *t, uint64_t route);
/* The transport operation unavailable: route's error response will be a
 * 503 with Retry-After. */
void mcp__peer_unavailable(mcp__transport *t, uint64_t route, unsigned retry_after_s);
hroute *mcp__route_open(hpeer *p, mcp__http_exchange *x, uint64_t id);
/* The route goes (its exchange, if any, completes by itself). A 2026 peer
 * whose last route went is finished (http.c: mcp__peer_finish). */
void mcp__route_drop(hroute *r);
hroute *mcp__route_find(hpeer *p, uint64_t id);
/* End r's exchange without its response (the request was cancelled, or
 * its session ended), and drop r. */
void mcp__route_end_unanswered(hroute *r);
/* A 2025 request whose answer will be a stream anyway (the server answers
 * with streams, or polls): the stream opens now, priming event first, not
 * with the call's first message. */
void mcp__route_stream_now(hroute *r);
/* Deliver one message line on r (JSON, or an event of its stream). */
int mcp__route_deliver(hroute *r, const char *line, size_t len);
/* Attach a resuming GET to a detached stream: events after `after` are
 * replayed, then it goes on live (and ends, when answered already). */
int mcp__route_attach(hroute *r, mcp__http_exchange *x, uint64_t after);
/* x (r's) closed: r detaches (2025 streams still due) or goes. */
void mcp__route_exchange_closed(hroute *r, mcp__http_end how);
/* Drop p's detached streams that waited past the resume window; true when
 * p has a client attached to any stream. */
bool mcp__routes_expire(hpeer *p, uint64_t now);
void mcp__peer_finish(hpeer *p);
/* http.c: answer x with status and a JSON-RPC error (id NULL: null), and
 * headers (name, value pairs, NULL-terminated; may be NULL). */
void mcp__http_respond_error(mcp__http_exchange *x, unsigned status, const mcp_id *id,
                             int64_t code, const char *message, const char *const *headers);

/* http_check.c: whether the headers of a 2026-07-28 request agree with its
 * body (streamable-http.mdx, "Server Validation"; bv: the body's
 * protocolVersion, bv_len bytes, or NULL): MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name, and Mcp-Param-{Name} for the tool's parameters
 * marked x-mcp-header. False with the reason in why (for a -32020). */
bool mcp__http_headers_match(mcp__http_exchange *x, const mcp_message *m, const char *bv,
                             size_t bv_len, http_listener *l, char *why, size_t why_size);

#endif
