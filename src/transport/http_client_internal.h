/* SPDX-License-Identifier: MIT */
/* The HTTP client transport's insides, shared by http_client.c (the
 * vtable, sending, curl on the loop), http_response.c (what came back, and
 * how a transfer ends), http_legacy.c (what only 2025 has) and
 * http_xfer.c (transfers, the inbox, the errors it writes). The calls go
 * one way: http_client.c to the three others, http_response.c to
 * http_legacy.c and http_xfer.c, http_legacy.c to http_xfer.c; curl's
 * callbacks reach http_response.c through the function pointers below.
 * Loop thread only. */
#ifndef MCP_TRANSPORT_HTTP_CLIENT_INTERNAL_H
#define MCP_TRANSPORT_HTTP_CLIENT_INTERNAL_H

#include <curl/curl.h>

#include "json/scan.h"
#include "jsonrpc/internal.h"
#include "transport/http_client.h"
#include "transport/sse.h"

#define DEFAULT_MAX ((size_t)4 << 20)
#define DEFAULT_CONNECT_MS 10000
/* What is kept of an error response's body: enough for any JSON-RPC error. */
#define ERROR_BODY_CAP ((size_t)64 << 10)
/* Notifications and responses are answered at once (202): a server that
 * holds one longer is not answering it. */
#define OUTPUT_TIMEOUT_MS 30000
/* The wait before resuming a broken stream when the server named none. */
#define RESUME_DEFAULT_MS 1000
/* Consecutive resumes of one stream that bring no event, before giving up. */
#define RESUME_MAX_ATTEMPTS 5
#define LISTEN_MAX_ATTEMPTS 10
#define LISTEN_MAX_DELAY_MS 60000
#define MAX_SESSION_ID 1024
/* The longest SSE event id kept for Last-Event-ID. */
#define MAX_EVENT_ID 1024

typedef enum {
    X_REQUEST, /* a request's POST, or a GET resuming its stream */
    X_OUTPUT,  /* a notification's or a response's POST */
    X_LISTEN,  /* 2025: the GET stream of server-initiated messages */
    X_DELETE   /* 2025: ending the session */
} xrole;

typedef struct http_client http_client;

typedef struct xfer {
    struct xfer *next, *prev;
    http_client *t;
    CURL *easy; /* NULL while waiting to resume */
    struct curl_slist *hdrs;
    xrole role;
    char *method;
    char *id; /* the request's id as JSON text */
    size_t id_len;
    char *body;
    size_t body_len;
    bool with_session;
    unsigned session_gen; /* with_session: which of the client's sessions */
    /* The response in progress. */
    bool started, sse, json, oversized, nomem;
    char ctype[64]; /* the response's Content-Type, printable, cut */
    long status;
    char reason[64];
    char *session_header;
    const char *session_bad; /* why the Mcp-Session-Id header is unusable */
    char *location;          /* a redirect's Location, as sent (capped) */
    /* Authorization (t->o.auth): the lines added at launch, the
     * credentials' generation they carried, the refusals so far, and what
     * a refusal came with (capped). */
    struct curl_slist *launch_hdrs;
    bool was_get;
    unsigned auth_gen, auth_tries;
    char *www_authenticate, *dpop_nonce;
    char auth_why[256];
    mcp_buf in;
    mcp__sse_decoder dec;
    bool dec_open;
    /* The stream, across resumes. */
    char *last_id;
    bool has_last_id, has_retry, answered, got_event, waiting;
    bool unusable_id; /* the last event id could not be sent back */
    unsigned sends;   /* times curl began to send this launch (on_prereq) */
    uint64_t sent_ms; /* when curl first began to send this launch */
    /* 2025: the server has answered this request's POST with a 2xx status
     * line and its headers, so it has read the request. */
    bool heard;
    /* 2025: a cancel of this request waiting for it to reach the server
     * (http_client.c, cancel_reached), as the session sent it. */
    char *held_cancel;
    size_t held_cancel_len;
    bool not_resent;  /* curl's retry of it was stopped: it may have run */
    uint64_t retry_ms, due;
    int attempts;
    char errbuf[CURL_ERROR_SIZE];
} xfer;

/* NOTE_MADE_UP: an error response the transport wrote for a request the
 * server did not answer (not traced: it was never on the wire). */
typedef enum { NOTE_MESSAGE, NOTE_OVERSIZED, NOTE_MADE_UP } note_kind;

typedef struct note {
    struct note *next;
    note_kind kind;
    size_t len;
    char data[];
} note;

typedef struct sock_ctx {
    uv_poll_t poll;
    curl_socket_t fd;
    int events; /* the UV_READABLE|UV_WRITABLE curl last asked for */
    http_client *t;
    struct sock_ctx *next, *prev;
} sock_ctx;

struct http_client {
    mcp__transport base;
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t curl_timer, resume_timer;
    /* Work that must not run inside the caller's send: held cancels to
     * post, made-up errors to deliver (http_client.c, soon). */
    uv_timer_t soon_timer;
    int open_handles;
    mcp__http_client_options o;
    /* What curl hands back (http_response.c's, set at creation). */
    size_t (*on_body)(char *p, size_t size, size_t nmemb, void *ud);
    size_t (*on_header)(char *p, size_t size, size_t nmemb, void *ud);
    void (*on_done)(http_client *t, xfer *x, CURLcode code);
    uv_timer_cb soon; /* soon_timer's (http_client.c's) */
    char *url, *ca_file;
    char **headers;
    xfer *xfers;
    sock_ctx *socks;
    note *in_head, *in_tail;
    bool delivering, closing, input_stopped, ending;
    bool delivering_made_up; /* the message being delivered is made up */
    void (*done)(void *ud);
    void *done_ud;
    /* The era, as the session's messages show it. */
    bool modern;
    char mversion[32];
    char *lversion;   /* 2025: negotiated by initialize */
    char *session_id; /* 2025 */
    unsigned session_gen; /* bumped with every new session id */
    bool expired;
    bool listen_off; /* the server offers no GET stream (405) */
    int listen_attempts;
    bool listen_given_up; /* LISTEN_MAX_ATTEMPTS failures in a row */
    /* The server has answered a GET of ours (its headers, or a failure):
     * from then on it has a stream to send its own requests on. */
    bool listen_answered;
    char unreachable[CURL_ERROR_SIZE];
};

typedef struct shape {
    mcp__span method, id, params, result, error;
} shape;

/* http_xfer.c */
void mcp__hc_say(http_client *t, mcp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The top-level members of a message; false when it is not an object. */
bool mcp__hc_read_shape(const char *p, size_t n, shape *sh);
/* A member of a JSON object span ({NULL, 0} when absent). */
mcp__span mcp__hc_member(mcp__span obj, const char *name);
/* The string a JSON string span holds, NUL-terminated in out (reset first). */
bool mcp__hc_span_string(mcp__span v, mcp_buf *out);
/* A message the transport writes itself (the one envelope writer): an
 * error response to id (id_len bytes of JSON: the request's id as sent),
 * with the error object open for its members; then the message closed:
 * MCP_OK or the writer's error (out rolled back). */
void mcp__hc_error_start(mcp__jw *w, mcp_buf *out, const char *id, size_t id_len);
int mcp__hc_message_end(mcp__jw *w);
/* A message for the sink, delivered once curl has returned. */
void mcp__hc_queue(http_client *t, note_kind kind, const char *data, size_t len);
/* End x's request with an error response made up here (once). transport:
 * the network or a broken stream failed, not the server's answer. */
void mcp__hc_fail_request(http_client *t, xfer *x, bool transport, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
xfer *mcp__hc_xfer_new(http_client *t, xrole role);
/* Out of curl, response state dropped; the stream state stays. */
void mcp__hc_detach(xfer *x);
void mcp__hc_xfer_free(xfer *x);
int mcp__hc_add_header(xfer *x, const char *line);
int mcp__hc_add_headerf(xfer *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mcp__hc_common_headers(http_client *t, xfer *x);
int mcp__hc_legacy_headers(http_client *t, xfer *x);
/* Start x: a GET (or the DELETE of X_DELETE), or a POST of its body. */
int mcp__hc_launch(http_client *t, xfer *x, bool get);
/* x was refused for its authorization (401, 403, 400 with a challenge):
 * true when it was sent again, with new credentials (t->o.auth's say);
 * false when it is to end as any HTTP error (x->auth_why may say why). */
bool mcp__hc_auth_retry(http_client *t, xfer *x, CURLcode code);
/* What curl finished, then the inbox to the sink. */
void mcp__hc_after(http_client *t);
/* Drop what the inbox holds. */
void mcp__hc_free_inbox(http_client *t);


/* http_response.c */
/* curl's CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION (data: the xfer). */
size_t mcp__hc_on_body(char *p, size_t size, size_t nmemb, void *ud);
size_t mcp__hc_on_header(char *p, size_t size, size_t nmemb, void *ud);
/* curl finished x (code): its answer, a resume, or a made-up error; x is
 * freed or waits to be sent again. */
void mcp__hc_transfer_done(http_client *t, xfer *x, CURLcode code);

/* http_legacy.c */
int mcp__hc_launch_get(http_client *t, xfer *x);
bool mcp__hc_can_resume(http_client *t, xfer *x);
void mcp__hc_resume(http_client *t, xfer *x);
/* The GET stream: a new one (reuse NULL) or x again. */
void mcp__hc_start_listen(http_client *t, xfer *reuse);
void mcp__hc_listen_ended(http_client *t, xfer *x, CURLcode code);
/* The server ended the session: what was in flight fails; cause is freed. */
void mcp__hc_expire(http_client *t, xfer *cause);

/* Whether x carried the session in use now: a 404 to a transfer of a
 * session already replaced (its GET stream, a late request) says nothing
 * about the new one. */
static inline bool mcp__hc_current_session(const http_client *t, const xfer *x)
{
    return x->with_session && t->session_id && x->session_gen == t->session_gen;
}

#endif
