/* SPDX-License-Identifier: MIT */
/*
 * Streamable HTTP, client side: the transport vtable over libcurl's multi
 * interface, driven by the libuv loop (curl's sockets watched with
 * uv_poll, its timeouts with a uv_timer). Every message the session sends
 * becomes its own POST; what comes back (a JSON body, or an SSE stream
 * decoded as it arrives) is handed to the sink as messages on route 0.
 *
 * Both eras, told apart by what the session sends: a request carrying the
 * 2026-07-28 `_meta` envelope goes out with MCP-Protocol-Version, Mcp-Method,
 * Mcp-Name and Mcp-Param-* headers, and its cancel (notifications/cancelled,
 * emitted by the session as on stdio) closes that request's stream instead
 * of being posted. After `initialize` (2025), the session id and the
 * negotiated version travel on every request, a GET stream carries what the
 * server sends on its own, a broken stream is resumed with Last-Event-ID,
 * and a cancel is posted.
 *
 * HTTP failures of a request's POST reach the session as a JSON-RPC error
 * response for that request (code MCP__HTTP_ERROR_CODE, the status and body
 * in the message, data.httpStatus and, for a network or stream failure,
 * data.httpError), so every call ends with a clear error and the session's
 * era logic sees the answer to its server/discover probe; a JSON-RPC error
 * body the server sent is passed on as it is. The client tells the two
 * apart with mcp__http_client_made_up and ends a call that failed so with
 * MCP_ERR_HTTP and the status (src/client/http.c).
 *
 * Session expiry (2025: 404 to a request carrying the session id): every
 * request in flight ends with such an error ("the server ended the
 * session"), the GET stream closes, and the owner hears it
 * (session_expired). From then on only an initialize goes out (a new
 * session from scratch, whose id the transport takes from its answer):
 * another request fails at once, a notification is dropped.
 *
 * Loop thread only. No curl call is ever made from inside a curl callback:
 * messages decoded there wait in an inbox delivered once curl returns.
 */
#ifndef MCP_TRANSPORT_HTTP_CLIENT_H
#define MCP_TRANSPORT_HTTP_CLIENT_H

#include <stdbool.h>
#include <uv.h>

#include "mcp/session.h"
#include "transport/transport.h"

/* The JSON-RPC code of the errors the transport makes up for HTTP failures. */
#define MCP__HTTP_ERROR_CODE (-32603)

typedef struct mcp__http_client_options {
    const char *url; /* copied */
    /* Extra header lines "Name: value" (Authorization, ...), NULL-terminated;
     * copied. */
    const char *const *headers;
    bool tls_no_verify;      /* skip TLS peer and host checks */
    const char *ca_file;     /* PEM bundle; NULL: the system's; copied */
    uint64_t connect_timeout_ms; /* each connection; 0: 10 s */
    size_t max_message;      /* per message (JSON body, SSE event); 0: 4 MiB */
    /* Every message, both directions, as it crosses (optional). */
    void (*trace)(void *ud, bool outgoing, const char *line, size_t len);
    void *trace_ud;
    /* Warnings and debug records of the transport (optional). */
    void (*log)(void *ud, const mcp_log_record *r);
    void *log_ud;
    /* 2026-07-28: the Mcp-Param-{Name} header lines (no CRLF) of a
     * tools/call with params (its params object, borrowed for the call),
     * each passed to add (which takes a copy); MCP_OK or an error, which
     * fails the send. The tools' x-mcp-header parameters are the client's
     * knowledge (its tool cache), not the transport's. Optional. */
    int (*param_headers)(void *ud, const mcp_json *params,
                         int (*add)(void *add_ud, const char *line), void *add_ud);
    void *param_headers_ud;
    /* 2025: the server ended the session (HTTP 404 to a request that
     * carried its id); what was in flight has failed. Called on the loop
     * thread from inside the transport's work: note it, act later.
     * Optional. */
    void (*session_expired)(void *ud);
    void *session_expired_ud;
    /* Authorization (optional: client/auth): consulted on every launch and
     * on every refusal; see mcp__http_client_auth. Borrowed: it outlives
     * the transport. */
    const struct mcp__http_client_auth *auth;
} mcp__http_client_options;

/*
 * What the transport asks of an authorization engine. Both calls come on
 * the loop thread, outside curl's callbacks, and may block (a token
 * request, a whole authorization flow): the loop waits meanwhile.
 *
 * headers: the header lines ("Name: value") an exchange about to go out
 *     carries for its authorization (Authorization, DPoP), each passed to
 *     add (which copies it); http_method is "POST", "GET" or "DELETE", url
 *     the endpoint. *generation is set to the credentials' generation, kept
 *     with the exchange. An error of its own is not fatal: the exchange
 *     goes out with what was added, and the server's refusal decides.
 * refused: the server answered an exchange that carried generation with
 *     status (401, or 403, or 400 with a WWW-Authenticate) and these
 *     headers (each NULL when absent; several WWW-Authenticate lines
 *     joined by ", "). True: send it again now (new credentials are in
 *     place, or the server's DPoP nonce taken); false: it fails as any
 *     HTTP error, with why (when not empty) in its message. The transport
 *     asks at most MCP__HTTP_AUTH_TRIES times per exchange.
 * accepted: the server answered an exchange that carried generation with
 *     a success (2xx): those credentials work. Optional.
 */
#define MCP__HTTP_AUTH_TRIES 4
typedef struct mcp__http_client_auth {
    void (*headers)(void *ud, const char *http_method, const char *url,
                    int (*add)(void *add_ud, const char *line), void *add_ud,
                    unsigned *generation);
    bool (*refused)(void *ud, long status, const char *www_authenticate, const char *dpop_nonce,
                    unsigned generation, char *why, size_t why_len);
    void (*accepted)(void *ud, unsigned generation);
    void *ud;
} mcp__http_client_auth;

/* A new transport, or NULL (out of memory, or curl could not start; err
 * says which). Freed by its close op. */
mcp__transport *mcp__http_client_new(uv_loop_t *loop, const mcp__http_client_options *o,
                                     char *err, size_t err_len);

/* Why the last transfer that got no HTTP answer at all failed (curl's
 * words: could not connect, resolve, TLS...), or NULL while every transfer
 * got an answer. Cleared by the next answer. Borrowed. */
const char *mcp__http_client_unreachable(const mcp__transport *t);

/* Whether the message the sink's message callback is handling now is an
 * error this transport made up for a failed exchange (above), not one the
 * server sent: the owner tells an HTTP failure from a server's -32603 by it
 * (a server cannot forge it). False outside that callback. */
bool mcp__http_client_made_up(const mcp__transport *t);

/* The 2025 GET stream of what the server sends outside responses. */
typedef enum {
    MCP__HTTP_STREAM_NONE = 0,     /* 2026-07-28, or no 2025 session yet */
    MCP__HTTP_STREAM_OPEN,         /* open, or being reopened after a break */
    MCP__HTTP_STREAM_REFUSED,      /* the server answered the GET with 405 */
    MCP__HTTP_STREAM_FAILED,       /* given up after LISTEN_MAX_ATTEMPTS failures */
    MCP__HTTP_STREAM_SESSION_ENDED /* the server ended the session (404) */
} mcp__http_stream_state;
mcp__http_stream_state mcp__http_client_stream_state(const mcp__transport *t);

/* 2025: whether the server has answered the session's GET stream (or
 * refused it, or there is none to wait for: 2026-07-28, no session, the
 * transport closing). Until then a request the server makes outside any
 * response stream (a tool's elicitation the TypeScript SDK sends without a
 * related request) has nowhere to go, and servers drop it. */
bool mcp__http_client_listen_settled(const mcp__transport *t);

/* Whether a 2025 session id is held (DELETE on end_output). */
bool mcp__http_client_has_session(const mcp__transport *t);

#endif
