/* SPDX-License-Identifier: MIT */
/*
 * The HTTP server under Streamable HTTP: libmicrohttpd driven from the libuv
 * loop (its epoll descriptor polled by the loop, its timeout on a loop
 * timer), so that every callback here and above runs on the loop thread,
 * like the sessions and the registry it serves. A thread per request would
 * cost two wakeups per call for nothing: the engine answers most calls in
 * microseconds, and slow handlers already run on the worker pool.
 *
 * It knows HTTP, not MCP: one endpoint path, the checks every request must
 * pass before its body is read (Host and Origin allow-lists, Content-Type,
 * Accept, the body cap, the connection cap, an optional authorization
 * callback), and exchanges: one request and its response, which is either
 * a complete body or an event stream written piece by piece.
 *
 * An exchange waiting for its answer is parked (suspended). libmicrohttpd
 * does not notice that a parked client went away, so its socket joins a
 * private epoll set watching for hang-up only (EPOLLRDHUP): a client that
 * closes its connection is reported within the loop's next turn, which is
 * what makes a 2026-07-28 disconnect a cancellation in milliseconds.
 *
 * Threads: loop thread only. Lifetimes: an exchange handed to `request` is
 * valid until `closed` returns for it, called exactly once, never from
 * inside a call the owner made into this module.
 */
#ifndef MCP_TRANSPORT_HTTP_SERVER_H
#define MCP_TRANSPORT_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct mcp__http_server mcp__http_server;
typedef struct mcp__http_exchange mcp__http_exchange;

typedef enum {
    MCP__HTTP_POST = 1,
    MCP__HTTP_GET,
    MCP__HTTP_DELETE,
} mcp__http_method;

typedef enum {
    MCP__HTTP_COMPLETED = 0, /* the response was sent in full */
    MCP__HTTP_DISCONNECTED,  /* the client went away (or timed out) first */
    MCP__HTTP_ABORTED,       /* the owner aborted it */
    MCP__HTTP_SHUTDOWN,      /* the server closed */
} mcp__http_end;

typedef struct mcp__http_auth_answer {
    char challenge[1024];
    char message[256];
    char *principal; /* malloc'd or NULL: who the request is from */
    char *scope;     /* malloc'd or NULL: what its credential grants */
} mcp__http_auth_answer;

typedef struct mcp__http_handler {
    /* A request to the endpoint that passed every check, with its whole
     * body. Respond now or later (mcp__http_respond, mcp__http_sse_start),
     * or abort it. */
    void (*request)(void *ud, mcp__http_exchange *x);
    /* The exchange is over: how. Drop every pointer to it. */
    void (*closed)(void *ud, mcp__http_exchange *x, mcp__http_end how);
    /* Optional: judge a request by its Authorization header (NULL when
     * absent). Returns 0 to serve it, or 400, 401 or 403 to refuse it with
     * a->challenge as WWW-Authenticate (empty: "Bearer") and a->message in
     * the JSON-RPC error; a->principal and a->scope (malloc'd, or NULL),
     * who the request is from and what its credential grants, are kept
     * with the exchange (mcp__http_exchange_principal, _scope), refused or
     * not. */
    int (*authorize)(void *ud, const char *authorization, mcp__http_auth_answer *a);
    void *ud;
} mcp__http_handler;

typedef struct mcp__http_server_config {
    const char *host;          /* numeric address to bind; NULL: 127.0.0.1 */
    uint16_t port;             /* 0: any free port (mcp__http_server_port) */
    const char *path;          /* the endpoint; NULL: "/mcp" */
    /* A public document served to GET at its own path, and at a second
     * one when not NULL (without the checks of the endpoint but Host's:
     * anyone may read it), or NULL: the Protected Resource Metadata of an
     * endpoint that wants tokens, at the endpoint's well-known path and at
     * the root's. */
    const char *document_path, *document_path2, *document_json;
    /* NULL-terminated lists; "*" in one allows anything. A request
     * without Origin (no browser) passes the origin check. NULL lists:
     * bound to loopback, the loopback names (localhost, 127.0.0.1, [::1],
     * any port) are the allowed hosts and origins; bound elsewhere, any
     * host and no origin. */
    const char *const *allowed_origins; /* "http://localhost:3000" */
    const char *const *allowed_hosts;   /* "example.com", "example.com:8080" */
    size_t max_body;           /* 0: 4 MiB */
    size_t max_stream_queue;   /* bytes queued on one stream; 0: 16 MiB */
    unsigned max_connections;  /* 0: 1024; beyond it 503 */
    unsigned max_per_address;  /* connections from one address; 0: any */
    unsigned idle_timeout_s;   /* a connection silent this long is closed
                                  (never one that waits for us); 0: 60 */
    unsigned keepalive_ms;     /* a comment on quiet streams; 0: 15000 */
    unsigned request_timeout_s; /* a request (headers and body) must be in
                                   this long after its connection began to
                                   wait for it, or the connection is closed;
                                   0: 30 */
    const char *tls_cert_pem, *tls_key_pem; /* both, or neither */
    /* Each connection's buffer for the request's headers and I/O; 0: 6 KiB.
     * Headers beyond it are refused (431): an OAuth resource server wants
     * room for access tokens (some identity providers' run past 5 KiB). */
    size_t connection_memory;
} mcp__http_server_config;

/* Start listening on loop. MCP_OK; MCP_ERR_INVALID_ARG (a bad address or
 * half a TLS pair); MCP_ERR_IO (cannot bind: errno kept); MCP_ERR_NOMEM.
 * The strings of cfg are copied. */
int mcp__http_server_open(uv_loop_t *loop, const mcp__http_server_config *cfg,
                          const mcp__http_handler *h, mcp__http_server **out);
uint16_t mcp__http_server_port(const mcp__http_server *s);
size_t mcp__http_server_connections(const mcp__http_server *s);
/* End every exchange (each told MCP__HTTP_SHUTDOWN at once; a stream ends
 * after what is queued on it) and refuse new requests (503); the daemon
 * stops once every exchange is done, or after grace_ms. done(ud) runs from
 * the loop once everything is released. */
void mcp__http_server_close(mcp__http_server *s, uint64_t grace_ms, void (*done)(void *ud),
                            void *ud);

/* The exchange ------------------------------------------------------------- */

mcp__http_method mcp__http_exchange_method(const mcp__http_exchange *x);
/* A request header (name case-insensitive), or NULL. Valid while x is. */
const char *mcp__http_exchange_header(const mcp__http_exchange *x, const char *name);
/* The same with its length, without the blanks that may follow a field
 * value (RFC 9110: they are not part of it; libmicrohttpd strips only the
 * leading ones). */
const char *mcp__http_exchange_header_n(const mcp__http_exchange *x, const char *name,
                                        size_t *len);
/* Calls fn for every request header in order; stops when it returns false. */
void mcp__http_exchange_headers(const mcp__http_exchange *x,
                                bool (*fn)(void *ud, const char *name, const char *value),
                                void *ud);
const char *mcp__http_exchange_body(const mcp__http_exchange *x, size_t *len);
/* Whether a parked x is watched for its client's hang-up (the default).
 * Off, a client that went is found when its answer is written: for a
 * request whose disconnect is not a cancel (2025), so that a client that
 * only half-closed its side still gets its answer. */
void mcp__http_exchange_watch_hangup(mcp__http_exchange *x, bool on);
/* Who the request is from, as the handler's authorize said (NULL: it did
 * not say, or there is no authorize). Valid while x is. */
const char *mcp__http_exchange_principal(const mcp__http_exchange *x);
/* What its credential grants (space-separated scopes), as authorize said
 * (NULL: it did not say). Valid while x is. */
const char *mcp__http_exchange_scope(const mcp__http_exchange *x);
/* Replace who the request is from and what it may (each malloc'd or NULL;
 * taken): for an owner that learns it after the request came, from an
 * authorization server it asked. */
void mcp__http_exchange_set_auth(mcp__http_exchange *x, char *principal, char *scope);
/* Called from request: the body stays readable (mcp__http_exchange_body)
 * until x closes, for an owner that judges the request later; else it is
 * freed once request returns. */
void mcp__http_exchange_keep_body(mcp__http_exchange *x);
/* The owner's pointer. */
void mcp__http_exchange_set_user(mcp__http_exchange *x, void *user);
void *mcp__http_exchange_user(const mcp__http_exchange *x);

/* Extra response headers: name/value pairs, then NULL. */

/* A complete response (body copied; len 0 for none). MCP_OK; MCP_ERR_STATE
 * when a response was already given or x is ending; MCP_ERR_NOMEM. */
int mcp__http_respond(mcp__http_exchange *x, unsigned status, const char *content_type,
                      const char *body, size_t len, const char *const *headers);
/* Open an event stream (200, text/event-stream, no caching, no proxy
 * buffering). Same errors. */
int mcp__http_sse_start(mcp__http_exchange *x, const char *const *headers);
/* Queue bytes of the stream (complete events). MCP_OK; MCP_ERR_STATE (not
 * a stream, or ended); MCP_ERR_LIMIT (the client is not reading: the
 * stream's queue cap); MCP_ERR_NOMEM. */
int mcp__http_sse_write(mcp__http_exchange *x, const char *data, size_t len);
/* End the stream once what is queued is written. */
void mcp__http_sse_end(mcp__http_exchange *x);
/* End the exchange without (the rest of) its response: a stream ends at
 * once, a request still waiting for its answer has its connection closed.
 * closed() follows later with MCP__HTTP_ABORTED. */
void mcp__http_abort(mcp__http_exchange *x);
/* Bytes queued on a stream and not yet taken by the client. */
size_t mcp__http_sse_unwritten(const mcp__http_exchange *x);

#endif
