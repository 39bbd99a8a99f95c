/* SPDX-License-Identifier: MIT */
#include "transport/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/buf.h"
#include "transport/http_headers.h"
#include "mcp/common.h"
#include "mcp/jsonrpc.h"
#include "runtime/internal.h"

#define DEFAULT_MAX_BODY ((size_t)4 << 20)
#define DEFAULT_MAX_QUEUE ((size_t)16 << 20)
#define DEFAULT_CONNECTIONS 1024u
/* Connections beyond the cap are still accepted, as many again (at least
 * 64), to be told 503 rather than wait unaccepted; past that the kernel's
 * backlog holds them. */
#define CAP_SLACK(cap) ((cap) > 64u ? (cap) : 64u)
#define SSE_BLOCK (2u * 1024u)
/* Each connection's buffer for headers and I/O, resident for as long as the
 * connection lives (libmicrohttpd's default is 32 KiB): a server holding
 * thousands of listen streams pays it for each. Request headers beyond it
 * are refused (431). */
#define CONN_MEMORY ((size_t)6 * 1024)

/* Each connection's clock for the request on its way in: libmicrohttpd's
 * idle timeout restarts at every byte, so a client trickling a header line
 * a second (slowloris) would hold a connection for ever. */
typedef struct conn_clock {
    struct conn_clock *next; /* the server's */
    uint64_t since; /* when it began to wait for a request */
    int fd;
    /* Bits, so that the flags share the fd's word: 24 bytes a clock. */
    bool receiving : 1;   /* a request is (or may be) on its way in */
    bool cut : 1;         /* shut down for being too slow */
    bool hup_watched : 1; /* in the server's hup set */
    bool hup_pending : 1; /* the peer closed; libmicrohttpd has yet to read */
    bool closed : 1;      /* its connection is gone: freed by the next check (a
                             singly linked list, and 32 bytes a connection, where
                             ten thousand streams are held) */
} conn_clock;
_Static_assert(sizeof(conn_clock) <= 24, "a clock per connection stays small");

struct mcp__http_exchange {
    mcp__http_server *server;
    struct MHD_Connection *conn;
    mcp__http_exchange *next, *prev; /* the server's */
    mcp__http_method method;
    mcp_buf body;
    void *user;
    char *principal, *scope; /* who it is from, what it may: authorize's word */
    bool delivered;  /* handed to the owner's request callback */
    bool notified;   /* the owner's closed callback ran */
    bool responded;  /* a response (or a stream) was given */
    bool suspended;
    bool watched;    /* in the hang-up set */
    bool hung_up;
    bool aborted;
    bool no_watch;   /* the owner does not want hang-ups reported */
    bool probed;     /* no_watch, its client's FIN seen: watched for a reset */
    bool keep_body;  /* the owner reads the body again later */
    struct MHD_Response *pending; /* given while parked: queued on resume */
    unsigned pending_status;
    /* An event stream. */
    bool sse, sse_ended, reader_waiting;
    mcp_buf out;
    size_t out_off;
    uint64_t last_write;
};

struct mcp__http_server {
    uv_loop_t *loop;
    struct MHD_Daemon *daemon;
    mcp__http_handler h;
    mcp__http_server_config cfg; /* strings below are our copies */
    char *path, *cert, *key, *doc_path, *doc_path2, *doc_json;
    char **origins, **hosts;
    bool loopback;
    uint16_t port;
    uv_poll_t mhd_poll;   /* libmicrohttpd's epoll descriptor */
    uv_timer_t mhd_timer; /* its next timeout */
    uv_timer_t kick;      /* runs it after a resume */
    unsigned zero_runs;   /* runs in a row that asked for another at once */
    uint64_t body_bytes;  /* request body bytes taken so far (a run's progress) */
    int watch_fd;         /* parked sockets, for hang-up */
    uv_poll_t watch_poll;
    int hup_fd;           /* every connection's socket, for the peer's FIN */
    uv_poll_t hup_poll;
    size_t hup_pending;   /* clocks with hup_pending set */
    uv_timer_t keepalive;
    uv_timer_t deadline;  /* cuts requests slower than request_timeout_s */
    uv_timer_t drain;     /* a closing server's wait for its streams' last bytes */
    uint64_t drain_until;
    conn_clock *clocks;
    mcp__http_exchange *exchanges;
    mcp__http_exchange *in_access; /* the exchange whose access call runs */
    int open_handles;
    bool closing;
    void (*done)(void *ud);
    void *done_ud;
};

/* Driving libmicrohttpd -------------------------------------------------- */

static void run_mhd(mcp__http_server *s);
static void kick(mcp__http_server *s);

/* A peer whose bytes and FIN arrive together: libmicrohttpd (0.9.75,
 * edge-triggered epoll) reads the bytes and waits for an edge that never
 * comes, the socket in CLOSE_WAIT holding its slot until the request
 * timeout (a filled cap: 503 for everyone). Shutting our reading side down
 * takes nothing the peer can still send but is a new edge: the next read
 * sees the end, an unfinished request is closed, a finished one answered.
 * The edge must follow libmicrohttpd's read of the bytes (it would be spent
 * on it): while bytes are unread, it waits for a run that reads them. */
static void hup(mcp__http_server *s, conn_clock *k)
{
    int unread = 0;
    if (ioctl(k->fd, FIONREAD, &unread) == 0 && unread > 0) {
        s->hup_pending += !k->hup_pending;
        k->hup_pending = true;
        return;
    }
    s->hup_pending -= k->hup_pending;
    k->hup_pending = false;
    shutdown(k->fd, SHUT_RD);
}

static void settle_hups(mcp__http_server *s)
{
    for (conn_clock *k = s->clocks; k && s->hup_pending; k = k->next)
        if (k->hup_pending && !k->closed)
            hup(s, k);
}

static void on_mhd_timer(uv_timer_t *t)
{
    run_mhd(t->data);
}

static void run_mhd(mcp__http_server *s)
{
    if (!s->daemon)
        return;
    size_t before = mcp__http_server_connections(s);
    uint64_t taken = s->body_bytes;
    MHD_run(s->daemon);
    if (s->hup_pending)
        settle_hups(s);
    /* At its connection limit libmicrohttpd takes the listening socket out
     * of its epoll set and puts it back only at the start of a later run;
     * when the run that closed connections was the last thing to happen,
     * nothing would ever run it again and the server would accept no one
     * (the attack round's F-A). One more run, at once. */
    if (mcp__http_server_connections(s) < before)
        kick(s);
    MHD_UNSIGNED_LONG_LONG ms;
    if (MHD_get_timeout(s->daemon, &ms) == MHD_YES) {
        /* libmicrohttpd 0.9.75 answers 0 for as long as a TLS connection
         * sits in the middle of its handshake (it stays on the ready list
         * though the socket has nothing): a 0 ms timer started from its
         * own callback never lets libuv 1.44 leave its timer phase, so the
         * loop froze and no request clock ran (attack round 3, F4). After
         * two such runs in a row, 1 ms, growing to 10 (the CPU it costs):
         * the loop turns, the clocks cut. Sockets with bytes still run the
         * daemon at once through its poll. */
        /* A run that took body bytes made progress: a large body arrives
         * a pool's worth per run, each asking for the next at once, and a
         * backoff there had capped uploads near 300 KB/s. */
        s->zero_runs = ms || s->body_bytes != taken ? 0 : s->zero_runs + 1;
        if (s->zero_runs > 2)
            ms = s->zero_runs - 2 < 10 ? s->zero_runs - 2 : 10;
        /* A timer that fires no later than needed stays: an early run
         * finds nothing due and arms the next (restarting it on every run
         * cost two timer-heap updates per request). */
        if (!uv_is_active((uv_handle_t *)&s->mhd_timer) ||
            uv_timer_get_due_in(&s->mhd_timer) > ms)
            uv_timer_start(&s->mhd_timer, on_mhd_timer, ms, 0);
    }
    else
        uv_timer_stop(&s->mhd_timer);
}

static void on_mhd_poll(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    run_mhd(p->data);
}

/* A resumed connection is processed by the next run, and the runs it
 * takes after that (a response written, the next request read) follow at
 * once: the backoff of runs asked for at once is for a daemon that asks
 * with nothing to do, not for one that was just given work. */
static void kick(mcp__http_server *s)
{
    s->zero_runs = 0;
    if (!uv_is_closing((uv_handle_t *)&s->kick))
        uv_timer_start(&s->kick, on_mhd_timer, 0, 0);
}

/* Parking, and watching the parked ----------------------------------------- */

static void unwatch(mcp__http_exchange *x)
{
    if (!x->watched)
        return;
    x->watched = false;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(x->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ci)
        epoll_ctl(x->server->watch_fd, EPOLL_CTL_DEL, ci->connect_fd, NULL);
}

static void watch(mcp__http_exchange *x)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(x->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return;
    /* Hang-up only, never EPOLLIN: the data on the socket is
     * libmicrohttpd's (a pipelined request) and must not wake us. Once a
     * no_watch client's FIN came (on_watch), only the reset a closed
     * client answers a write with (EPOLLERR, EPOLLHUP: always reported). */
    struct epoll_event ev = {.events = (x->probed ? 0u : EPOLLRDHUP) | EPOLLONESHOT,
                             .data.ptr = x};
    if (epoll_ctl(x->server->watch_fd, EPOLL_CTL_ADD, ci->connect_fd, &ev) == 0)
        x->watched = true;
}

static void park(mcp__http_exchange *x)
{
    MHD_suspend_connection(x->conn);
    x->suspended = true;
    watch(x);
}

static void unpark(mcp__http_exchange *x)
{
    if (!x->suspended)
        return;
    /* Out of the set before the socket can be closed and its number
     * reused by another connection. */
    unwatch(x);
    x->suspended = false;
    x->reader_waiting = false;
    MHD_resume_connection(x->conn);
    kick(x->server);
}

static void notify(mcp__http_exchange *x, mcp__http_end how)
{
    if (!x->delivered || x->notified)
        return;
    x->notified = true;
    mcp__http_server *s = x->server;
    if (s->h.closed)
        s->h.closed(s->h.ud, x, how);
}

static void on_watch(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    mcp__http_server *s = p->data;
    struct epoll_event ev[64];
    int n = epoll_wait(s->watch_fd, ev, 64, 0);
    for (int i = 0; i < n; i++) {
        mcp__http_exchange *x = ev[i].data.ptr;
        /* Earlier exchanges' closed callbacks may have unparked this one
         * (an aborted stream): its event is stale then. */
        if (!x->watched)
            continue;
        unwatch(x);
        if (x->no_watch && !(ev[i].events & (EPOLLERR | EPOLLHUP))) {
            /* Its FIN: half-closed (it still gets its answer) or gone. A
             * stream is written a comment, which a closed client resets
             * (a stream held until the keep-alive found it kept the
             * client's next GET out, 409, for half a minute). */
            x->probed = true;
            if (!x->sse || mcp__http_sse_write(x, ":\n\n", 3) != MCP_OK)
                watch(x);
            continue;
        }
        x->hung_up = true;
        notify(x, MCP__HTTP_DISCONNECTED);
        unpark(x); /* libmicrohttpd closes it and frees x */
    }
}

/* The peers that closed (hup, above). */
static void on_hup(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    mcp__http_server *s = p->data;
    struct epoll_event ev[64];
    int n = epoll_wait(s->hup_fd, ev, 64, 0);
    for (int i = 0; i < n; i++) {
        conn_clock *k = ev[i].data.ptr;
        if (k->closed || !k->hup_watched)
            continue;
        k->hup_watched = false; /* one shot: the kernel disarmed it */
        hup(s, k);
    }
    if (n > 0)
        kick(s);
}

/* Responses ------------------------------------------------------------------- */

static void add_headers(struct MHD_Response *r, const char *const *headers)
{
    for (size_t i = 0; headers && headers[i] && headers[i + 1]; i += 2)
        MHD_add_response_header(r, headers[i], headers[i + 1]);
}

/* Queue now when inside x's own access call, else keep it for the access
 * call that follows the resume. */
static void give(mcp__http_exchange *x, struct MHD_Response *r, unsigned status)
{
    x->responded = true;
    if (x->server->in_access == x) {
        MHD_queue_response(x->conn, status, r);
        MHD_destroy_response(r);
        return;
    }
    x->pending = r;
    x->pending_status = status;
    unpark(x);
}

static bool can_respond(const mcp__http_exchange *x)
{
    return x->delivered && !x->notified && !x->responded && !x->aborted && !x->hung_up;
}

int mcp__http_respond(mcp__http_exchange *x, unsigned status, const char *content_type,
                      const char *body, size_t len, const char *const *headers)
{
    if (!can_respond(x))
        return MCP_ERR_STATE;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(len ? body : ""), MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MCP_ERR_NOMEM;
    if (content_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    add_headers(r, headers);
    give(x, r, status);
    return MCP_OK;
}

static ssize_t sse_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    mcp__http_exchange *x = cls;
    if (x->hung_up)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t avail = x->out.len - x->out_off;
    if (avail) {
        size_t n = avail < max ? avail : max;
        memcpy(buf, x->out.data + x->out_off, n);
        x->out_off += n;
        if (x->out_off == x->out.len)
            x->out_off = x->out.len = 0; /* keep the block for the next event */
        return (ssize_t)n;
    }
    if (x->sse_ended || x->server->closing)
        return MHD_CONTENT_READER_END_OF_STREAM;
    /* Nothing to send: park until the owner writes (the header of
     * MHD_ContentReaderCallback allows returning 0 exactly so). */
    x->reader_waiting = true;
    park(x);
    return 0;
}

int mcp__http_sse_start(mcp__http_exchange *x, const char *const *headers)
{
    if (!can_respond(x))
        return MCP_ERR_STATE;
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, SSE_BLOCK, sse_reader, x, NULL);
    if (!r)
        return MCP_ERR_NOMEM;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    /* Proxies such as nginx would otherwise hold events back. */
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    add_headers(r, headers);
    x->sse = true;
    x->last_write = mcp__now_ms();
    give(x, r, MHD_HTTP_OK);
    return MCP_OK;
}

int mcp__http_sse_write(mcp__http_exchange *x, const char *data, size_t len)
{
    if (!x->sse || x->sse_ended || x->notified || x->aborted || x->hung_up)
        return MCP_ERR_STATE;
    int rc = mcp_buf_append(&x->out, data, len);
    if (rc != MCP_OK)
        return rc;
    x->last_write = mcp__now_ms();
    if (x->reader_waiting)
        unpark(x);
    return MCP_OK;
}

void mcp__http_sse_end(mcp__http_exchange *x)
{
    if (!x->sse || x->sse_ended)
        return;
    x->sse_ended = true;
    if (x->reader_waiting)
        unpark(x);
}

void mcp__http_abort(mcp__http_exchange *x)
{
    if (x->notified || x->aborted || x->hung_up)
        return;
    x->aborted = true;
    if (x->pending) {
        MHD_destroy_response(x->pending);
        x->pending = NULL;
    }
    /* Nothing more of it reaches the client: what is queued goes too. */
    x->out.len = x->out_off = 0;
    x->sse_ended = true;
    unpark(x);
}

size_t mcp__http_sse_unwritten(const mcp__http_exchange *x)
{
    return x->out.len - x->out_off;
}

/* The exchange's request ---------------------------------------------------- */

mcp__http_method mcp__http_exchange_method(const mcp__http_exchange *x)
{
    return x->method;
}

const char *mcp__http_exchange_header(const mcp__http_exchange *x, const char *name)
{
    return MHD_lookup_connection_value(x->conn, MHD_HEADER_KIND, name);
}

const char *mcp__http_exchange_header_n(const mcp__http_exchange *x, const char *name,
                                        size_t *len)
{
    const char *v = MHD_lookup_connection_value(x->conn, MHD_HEADER_KIND, name);
    size_t n = v ? strlen(v) : 0;
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    *len = n;
    return v;
}

typedef struct {
    bool (*fn)(void *ud, const char *name, const char *value);
    void *ud;
} header_walk;

static enum MHD_Result walk_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    header_walk *w = cls;
    return w->fn(w->ud, key, value ? value : "") ? MHD_YES : MHD_NO;
}

void mcp__http_exchange_headers(const mcp__http_exchange *x,
                                bool (*fn)(void *ud, const char *name, const char *value),
                                void *ud)
{
    header_walk w = {fn, ud};
    MHD_get_connection_values(x->conn, MHD_HEADER_KIND, walk_header, &w);
}

const char *mcp__http_exchange_body(const mcp__http_exchange *x, size_t *len)
{
    *len = x->body.len;
    return x->body.data ? x->body.data : "";
}

void mcp__http_exchange_watch_hangup(mcp__http_exchange *x, bool on)
{
    x->no_watch = !on;
}

const char *mcp__http_exchange_principal(const mcp__http_exchange *x)
{
    return x->principal;
}

const char *mcp__http_exchange_scope(const mcp__http_exchange *x)
{
    return x->scope;
}

void mcp__http_exchange_set_auth(mcp__http_exchange *x, char *principal, char *scope)
{
    free(x->principal);
    free(x->scope);
    x->principal = principal;
    x->scope = scope;
}

void mcp__http_exchange_keep_body(mcp__http_exchange *x)
{
    x->keep_body = true;
}

void mcp__http_exchange_set_user(mcp__http_exchange *x, void *user)
{
    x->user = user;
}

void *mcp__http_exchange_user(const mcp__http_exchange *x)
{
    return x->user;
}

/* Checks before the body ---------------------------------------------------- */

/* An error answered by the transport itself: an id-less JSON-RPC error, as
 * the specification allows for these statuses. */
static void refuse(mcp__http_exchange *x, unsigned status, int64_t code, const char *message,
                   const char *const *headers)
{
    mcp_buf body;
    mcp_buf_init(&body, 0, NULL);
    mcp_id none = {0};
    mcp_encode_error(&body, &none, code, message, NULL); /* id null, one line */
    size_t n = body.len && body.data[body.len - 1] == '\n' ? body.len - 1 : body.len;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(n, body.data ? body.data : "", MHD_RESPMEM_MUST_COPY);
    mcp_buf_free(&body);
    x->responded = true;
    if (!r)
        return;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    add_headers(r, headers);
    MHD_queue_response(x->conn, status, r);
    MHD_destroy_response(r);
}

static bool host_allowed(const mcp__http_server *s, const char *host)
{
    if (!host)
        return false; /* HTTP/1.1 requires it */
    size_t n = strlen(host);
    if (s->hosts)
        return mcp__http_name_in_list(s->hosts, host, n);
    return !s->loopback || mcp__http_loopback_name(host, n);
}

static bool origin_allowed(const mcp__http_server *s, const char *origin)
{
    if (!origin)
        return true; /* not a browser */
    size_t n = strlen(origin);
    if (s->origins)
        return mcp__http_name_in_list(s->origins, origin, n);
    if (!s->loopback)
        return false;
    const char *rest = strncmp(origin, "http://", 7) == 0    ? origin + 7
                       : strncmp(origin, "https://", 8) == 0 ? origin + 8
                                                             : NULL;
    return rest && mcp__http_loopback_name(rest, strlen(rest));
}

/* Headers that must not come twice: a proxy that reads the other copy
 * would route, frame or authorize another request than the one we serve
 * (request smuggling). */
typedef struct dup_scan {
    const char *twice; /* the first name seen twice */
    unsigned seen;     /* a bit per name below */
    bool has_length, has_encoding;
} dup_scan;

#define NAMED(s) {s, sizeof(s) - 1} /* the length rules most headers out */
static const struct { const char *name; size_t len; } single[] = {
    NAMED("Host"), NAMED("Content-Length"), NAMED("Content-Type"), NAMED("Transfer-Encoding"),
    NAMED("Authorization"), NAMED("Mcp-Session-Id"), NAMED("MCP-Protocol-Version"),
    NAMED("Mcp-Method"), NAMED("Mcp-Name"), NAMED("Last-Event-ID"),
};

static bool scan_header(void *ud, const char *name, const char *value)
{
    (void)value;
    dup_scan *d = ud;
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
        if (single[i].len == n && strcasecmp(name, single[i].name) == 0) {
            if (d->seen & (1u << i)) {
                d->twice = single[i].name;
                return false;
            }
            d->seen |= 1u << i;
            d->has_length |= i == 1;
            d->has_encoding |= i == 3;
        }
    return true;
}

/* The public document: GET (or HEAD) only, after the Host check (a page
 * of another site must not read a local server's, DNS rebinding), and
 * readable by any origin (a browser client discovers it, RFC 9728). */
static void give_document(mcp__http_exchange *x, const char *method)
{
    mcp__http_server *s = x->server;
    if (!host_allowed(s, mcp__http_exchange_header(x, MHD_HTTP_HEADER_HOST))) {
        refuse(x, MHD_HTTP_FORBIDDEN, MCP_WIRE_INVALID_REQUEST, "Forbidden: Host not allowed", NULL);
        return;
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        static const char *const allow[] = {"Allow", "GET, HEAD", NULL};
        refuse(x, MHD_HTTP_METHOD_NOT_ALLOWED, MCP_WIRE_INVALID_REQUEST, "Method Not Allowed",
               allow);
        return;
    }
    x->responded = true;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(s->doc_json), s->doc_json,
                                                             MHD_RESPMEM_PERSISTENT);
    if (!r)
        return;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "max-age=300");
    MHD_queue_response(x->conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
}

/* True when the request may go on; else it was refused. */
static bool check_request(mcp__http_exchange *x, const char *url, const char *method)
{
    mcp__http_server *s = x->server;
    /* The absolute form of a target (RFC 9112, 3.2.2), which a server must
     * accept: its path is what names the endpoint. */
    if (strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0) {
        const char *path = strchr(strchr(url, ':') + 3, '/');
        url = path ? path : "/";
    }
    if (s->doc_path && (!strcmp(url, s->doc_path) || (s->doc_path2 && !strcmp(url, s->doc_path2)))) {
        give_document(x, method);
        return false;
    }
    if (strcmp(url, s->path) != 0) {
        refuse(x, MHD_HTTP_NOT_FOUND, MCP_WIRE_INVALID_REQUEST, "Not Found: no MCP endpoint here", NULL);
        return false;
    }
    if (strcmp(method, "POST") == 0)
        x->method = MCP__HTTP_POST;
    else if (strcmp(method, "GET") == 0)
        x->method = MCP__HTTP_GET;
    else if (strcmp(method, "DELETE") == 0)
        x->method = MCP__HTTP_DELETE;
    else {
        static const char *const allow[] = {"Allow", "GET, POST, DELETE", NULL};
        refuse(x, MHD_HTTP_METHOD_NOT_ALLOWED, MCP_WIRE_INVALID_REQUEST,
               "Method Not Allowed", allow);
        return false;
    }
    dup_scan d = {0};
    mcp__http_exchange_headers(x, scan_header, &d);
    char why[96];
    if (d.twice) {
        snprintf(why, sizeof why, "Bad Request: the %s header appears more than once", d.twice);
        refuse(x, MHD_HTTP_BAD_REQUEST, MCP_WIRE_INVALID_REQUEST, why, NULL);
        return false;
    }
    if (d.has_length && d.has_encoding) {
        refuse(x, MHD_HTTP_BAD_REQUEST, MCP_WIRE_INVALID_REQUEST,
               "Bad Request: Content-Length and Transfer-Encoding together", NULL);
        return false;
    }
    /* libmicrohttpd reads only chunked bodies: any other coding would have
     * it wait for a body it cannot find the end of (RFC 9112, 6.1 and
     * 6.3: 400 when chunked is not the final coding, else 501), and the
     * connection must go, its framing unknown. */
    const char *te = mcp__http_exchange_header(x, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    /* What libmicrohttpd reads as chunked: the word alone, any case (it would
     * take "chunked " for no coding at all, and wait). */
    if (te && strcasecmp(te, "chunked") != 0) {
        static const char *const close_it[] = {"Connection", "close", NULL};
        bool final = mcp__http_chunked_last(te);
        refuse(x, final ? MHD_HTTP_NOT_IMPLEMENTED : MHD_HTTP_BAD_REQUEST,
               MCP_WIRE_INVALID_REQUEST,
               final ? "Not Implemented: a transfer coding other than chunked"
                     : "Bad Request: chunked is not the final transfer coding",
               close_it);
        return false;
    }
    if (!mcp__http_exchange_header(x, MHD_HTTP_HEADER_HOST)) {
        refuse(x, MHD_HTTP_BAD_REQUEST, MCP_WIRE_INVALID_REQUEST,
               "Bad Request: the Host header is required", NULL);
        return false;
    }
    /* DNS rebinding: a page of another site reaching a local server. */
    if (!host_allowed(s, mcp__http_exchange_header(x, MHD_HTTP_HEADER_HOST))) {
        refuse(x, MHD_HTTP_FORBIDDEN, MCP_WIRE_INVALID_REQUEST, "Forbidden: Host not allowed", NULL);
        return false;
    }
    if (!origin_allowed(s, mcp__http_exchange_header(x, "Origin"))) {
        refuse(x, MHD_HTTP_FORBIDDEN, MCP_WIRE_INVALID_REQUEST, "Forbidden: Origin not allowed", NULL);
        return false;
    }
    const union MHD_DaemonInfo *di =
        MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    if (di && di->num_connections > s->cfg.max_connections) {
        static const char *const retry[] = {"Retry-After", "1", NULL};
        refuse(x, MHD_HTTP_SERVICE_UNAVAILABLE, MCP_WIRE_INTERNAL_ERROR,
               "Service Unavailable: too many connections", retry);
        return false;
    }
    if (s->h.authorize) {
        mcp__http_auth_answer a = {.challenge = "", .message = ""};
        int status =
            s->h.authorize(s->h.ud, mcp__http_exchange_header(x, MHD_HTTP_HEADER_AUTHORIZATION), &a);
        x->principal = a.principal;
        x->scope = a.scope;
        if (status) {
            if (status != MHD_HTTP_BAD_REQUEST && status != MHD_HTTP_FORBIDDEN)
                status = MHD_HTTP_UNAUTHORIZED;
            const char *const challenge[] = {"WWW-Authenticate",
                                             a.challenge[0] ? a.challenge : "Bearer", NULL};
            char message[300];
            snprintf(message, sizeof message, "%s: %s",
                     status == MHD_HTTP_BAD_REQUEST ? "Bad Request"
                     : status == MHD_HTTP_FORBIDDEN ? "Forbidden"
                                                    : "Unauthorized",
                     a.message[0] ? a.message : "a valid bearer token is required");
            refuse(x, (unsigned)status, MCP_WIRE_INVALID_REQUEST, message, challenge);
            return false;
        }
    }
    const char *accept = mcp__http_exchange_header(x, MHD_HTTP_HEADER_ACCEPT);
    if (x->method == MCP__HTTP_POST) {
        const char *type = mcp__http_exchange_header(x, MHD_HTTP_HEADER_CONTENT_TYPE);
        if (!type || !mcp__http_media_is(type, MCP_LITERAL("application/json"), "")) {
            refuse(x, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, MCP_WIRE_INVALID_REQUEST,
                   "Unsupported Media Type: Content-Type must be application/json", NULL);
            return false;
        }
        if (!mcp__http_accepts(accept, "application/json") || !mcp__http_accepts(accept, "text/event-stream")) {
            refuse(x, MHD_HTTP_NOT_ACCEPTABLE, MCP_WIRE_INVALID_REQUEST,
                   "Not Acceptable: Accept must list application/json and text/event-stream",
                   NULL);
            return false;
        }
        const char *length = mcp__http_exchange_header(x, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (length && strtoull(length, NULL, 10) > s->cfg.max_body) {
            refuse(x, MHD_HTTP_CONTENT_TOO_LARGE, MCP_WIRE_INVALID_REQUEST,
                   "Content Too Large: the body exceeds the server's cap", NULL);
            return false;
        }
    } else if (x->method == MCP__HTTP_GET && !mcp__http_accepts(accept, "text/event-stream")) {
        refuse(x, MHD_HTTP_NOT_ACCEPTABLE, MCP_WIRE_INVALID_REQUEST,
               "Not Acceptable: Accept must list text/event-stream", NULL);
        return false;
    }
    return true;
}

/* libmicrohttpd's callbacks ----------------------------------------------------- */

static conn_clock *clock_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void clock_stop(struct MHD_Connection *c)
{
    conn_clock *k = clock_of(c);
    if (k)
        k->receiving = false;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload,
                                 size_t *upload_size, void **con_cls)
{
    (void)version;
    mcp__http_server *s = cls;
    mcp__http_exchange *x = *con_cls;
    if (!x) {
        x = calloc(1, sizeof *x);
        if (!x)
            return MHD_NO;
        x->server = s;
        x->conn = c;
        mcp_buf_init(&x->body, s->cfg.max_body, NULL);
        mcp_buf_init(&x->out, s->cfg.max_stream_queue, NULL);
        x->next = s->exchanges;
        if (s->exchanges)
            s->exchanges->prev = x;
        s->exchanges = x;
        *con_cls = x;
        s->in_access = x;
        if (s->closing)
            refuse(x, MHD_HTTP_SERVICE_UNAVAILABLE, MCP_WIRE_INTERNAL_ERROR,
                   "Service Unavailable: the server is shutting down", NULL);
        else
            check_request(x, url, method);
        s->in_access = NULL;
        if (x->responded)
            clock_stop(c); /* refused: nothing more is awaited */
        return MHD_YES;
    }
    if (*upload_size) {
        s->body_bytes += *upload_size;
        if (!x->responded) {
            int rc = mcp_buf_append(&x->body, upload, *upload_size);
            /* A body without a length (chunked) that outgrows the cap: no
             * answer can go out while it streams in (libmicrohttpd spun on
             * one), so the connection is closed. A declared length over the
             * cap got its 413 before the body. */
            if (rc != MCP_OK)
                return MHD_NO;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    /* The body is complete, or x was resumed. */
    if (x->hung_up || (x->aborted && !x->responded) || (x->aborted && !x->sse))
        return MHD_NO; /* closes the connection */
    clock_stop(c); /* all in: from here the time is ours */
    if (!x->delivered && !x->responded && s->closing) {
        /* Its body ended after the stop began: as new as any other. */
        s->in_access = x;
        refuse(x, MHD_HTTP_SERVICE_UNAVAILABLE, MCP_WIRE_INTERNAL_ERROR,
               "Service Unavailable: the server is shutting down", NULL);
        s->in_access = NULL;
    }
    if (!x->delivered && !x->responded) {
        x->delivered = true;
        s->in_access = x;
        s->h.request(s->h.ud, x);
        s->in_access = NULL;
        if (!x->keep_body)
            mcp_buf_free(&x->body); /* read by now: a long stream need not keep it */
        if (x->hung_up || (x->aborted && !x->sse))
            return MHD_NO;
    }
    if (x->pending) {
        struct MHD_Response *r = x->pending;
        x->pending = NULL;
        MHD_queue_response(c, x->pending_status, r);
        MHD_destroy_response(r);
        return MHD_YES;
    }
    if (!x->responded && !s->closing)
        park(x); /* the answer comes later */
    else if (!x->responded)
        return MHD_NO;
    return MHD_YES;
}

static void free_exchange(mcp__http_exchange *x)
{
    mcp__http_server *s = x->server;
    if (x->prev)
        x->prev->next = x->next;
    else
        s->exchanges = x->next;
    if (x->next)
        x->next->prev = x->prev;
    if (x->pending)
        MHD_destroy_response(x->pending);
    mcp_buf_free(&x->body);
    mcp_buf_free(&x->out);
    free(x->principal);
    free(x->scope);
    free(x);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    mcp__http_server *s = cls;
    mcp__http_exchange *x = *con_cls;
    if (!x)
        return;
    *con_cls = NULL;
    unwatch(x);
    conn_clock *k = clock_of(c);
    if (k) { /* keep-alive: the next request's time starts now */
        k->receiving = true;
        k->since = mcp__now_ms();
    }
    mcp__http_end how = s->closing                           ? MCP__HTTP_SHUTDOWN
                        : x->aborted                         ? MCP__HTTP_ABORTED
                        : toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? MCP__HTTP_COMPLETED
                                                             : MCP__HTTP_DISCONNECTED;
    notify(x, how);
    free_exchange(x);
}

static void on_deadline(uv_timer_t *t)
{
    mcp__http_server *s = t->data;
    uint64_t now = mcp__now_ms(), limit = (uint64_t)s->cfg.request_timeout_s * 1000;
    /* Past three quarters of the cap, a connection still sending its
     * request (or idle between requests) gets a fifth of the time, at
     * least a second: slow or idle connections held open to fill the cap
     * (slowloris) must be renewed five times as often, and an idle
     * keep-alive frees its place for someone else. */
    if (mcp__http_server_connections(s) * 4 > (size_t)s->cfg.max_connections * 3 &&
        limit / 5 >= 1000)
        limit /= 5;
    bool cut = false;
    for (conn_clock **at = &s->clocks, *k; (k = *at) != NULL;) {
        if (k->closed) {
            *at = k->next;
            free(k);
            continue;
        }
        if (k->receiving && !k->cut && now - k->since >= limit) {
            /* libmicrohttpd has no call to drop a connection it is reading:
             * the socket, shut down, reads as the end and is closed by the
             * next run. */
            k->cut = true;
            shutdown(k->fd, SHUT_RDWR);
            cut = true;
        }
        at = &k->next;
    }
    if (cut)
        kick(s);
    if (!s->clocks)
        uv_timer_stop(t);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    mcp__http_server *s = cls;
    conn_clock *k = *socket_context;
    if (code != MHD_CONNECTION_NOTIFY_STARTED) {
        if (k) {
            if (k->hup_watched) /* out of the set while the fd is still this one's */
                epoll_ctl(s->hup_fd, EPOLL_CTL_DEL, k->fd, NULL);
            s->hup_pending -= k->hup_pending;
            k->hup_watched = k->hup_pending = false;
            k->closed = true;
        }
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    k = ci ? calloc(1, sizeof *k) : NULL;
    if (!k)
        return; /* unclocked: the idle timeout still holds */
    k->fd = ci->connect_fd;
    k->since = mcp__now_ms();
    k->receiving = true;
    k->next = s->clocks;
    s->clocks = k;
    *socket_context = k;
    /* Added after the FIN already came, the socket is reported at once. */
    struct epoll_event ev = {.events = EPOLLRDHUP | EPOLLONESHOT, .data.ptr = k};
    k->hup_watched = epoll_ctl(s->hup_fd, EPOLL_CTL_ADD, k->fd, &ev) == 0;
    if (!uv_is_active((uv_handle_t *)&s->deadline) && !s->closing) {
        /* Checked a few times per timeout: a connection is cut at most a
         * quarter late (a twentieth of the timeout: under pressure, a
         * quarter of the shorter time). */
        uint64_t every = (uint64_t)s->cfg.request_timeout_s * 50;
        uv_timer_start(&s->deadline, on_deadline, every, every);
    }
}

/* Quiet streams get a comment now and then: intermediaries keep them, and
 * a client that went away is found by the write. */
static void on_keepalive(uv_timer_t *t)
{
    mcp__http_server *s = t->data;
    uint64_t now = mcp__now_ms();
    for (mcp__http_exchange *x = s->exchanges; x; x = x->next)
        if (x->sse && !x->sse_ended && !x->hung_up && now - x->last_write >= s->cfg.keepalive_ms)
            mcp__http_sse_write(x, ":\n\n", 3);
}

/* Life -------------------------------------------------------------------------- */

static char **copy_list(const char *const *v, bool *nomem)
{
    if (!v)
        return NULL;
    size_t n = 0;
    while (v[n])
        n++;
    char **out = calloc(n + 1, sizeof *out);
    if (!out) {
        *nomem = true;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!(out[i] = strdup(v[i])))
            *nomem = true;
    return out;
}

static void free_list(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static void free_server(mcp__http_server *s)
{
    while (s->clocks) {
        conn_clock *k = s->clocks;
        s->clocks = k->next;
        free(k);
    }
    free(s->path);
    free(s->doc_path);
    free(s->doc_path2);
    free(s->doc_json);
    free(s->cert);
    free(s->key);
    free_list(s->origins);
    free_list(s->hosts);
    if (s->watch_fd >= 0)
        close(s->watch_fd);
    if (s->hup_fd >= 0)
        close(s->hup_fd);
    free(s);
}

static void handle_closed(uv_handle_t *h)
{
    mcp__http_server *s = h->data;
    if (--s->open_handles)
        return;
    void (*done)(void *) = s->done;
    void *ud = s->done_ud;
    free_server(s);
    if (done)
        done(ud);
}

int mcp__http_server_open(uv_loop_t *loop, const mcp__http_server_config *cfg,
                          const mcp__http_handler *h, mcp__http_server **out)
{
    *out = NULL;
    if (!cfg || !h || !h->request || (!cfg->tls_cert_pem != !cfg->tls_key_pem))
        return MCP_ERR_INVALID_ARG;
    struct sockaddr_storage sa;
    memset(&sa, 0, sizeof sa);
    const char *host = cfg->host ? cfg->host : "127.0.0.1";
    struct sockaddr_in *v4 = (struct sockaddr_in *)&sa;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&sa;
    bool ipv6 = false, loopback;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(cfg->port);
        loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(cfg->port);
        ipv6 = true;
        loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
    } else {
        return MCP_ERR_INVALID_ARG;
    }
    mcp__http_server *s = calloc(1, sizeof *s);
    if (!s)
        return MCP_ERR_NOMEM;
    s->loop = loop;
    s->h = *h;
    s->cfg = *cfg;
    s->loopback = loopback;
    s->watch_fd = s->hup_fd = -1;
    bool nomem = false;
    s->path = strdup(cfg->path ? cfg->path : "/mcp");
    if (cfg->document_path && cfg->document_json &&
        (!(s->doc_path = strdup(cfg->document_path)) ||
         !(s->doc_json = strdup(cfg->document_json)) ||
         (cfg->document_path2 && !(s->doc_path2 = strdup(cfg->document_path2)))))
        nomem = true;
    s->cert = cfg->tls_cert_pem ? strdup(cfg->tls_cert_pem) : NULL;
    s->key = cfg->tls_key_pem ? strdup(cfg->tls_key_pem) : NULL;
    s->origins = copy_list(cfg->allowed_origins, &nomem);
    s->hosts = copy_list(cfg->allowed_hosts, &nomem);
    if (nomem || !s->path || (cfg->tls_cert_pem && (!s->cert || !s->key))) {
        free_server(s);
        return MCP_ERR_NOMEM;
    }
    if (!s->cfg.max_body)
        s->cfg.max_body = DEFAULT_MAX_BODY;
    if (!s->cfg.max_stream_queue)
        s->cfg.max_stream_queue = DEFAULT_MAX_QUEUE;
    if (!s->cfg.max_connections)
        s->cfg.max_connections = DEFAULT_CONNECTIONS;
    if (!s->cfg.idle_timeout_s)
        s->cfg.idle_timeout_s = 60;
    if (!s->cfg.keepalive_ms)
        s->cfg.keepalive_ms = 15000;
    if (!s->cfg.request_timeout_s)
        s->cfg.request_timeout_s = 30;
    s->watch_fd = epoll_create1(EPOLL_CLOEXEC);
    s->hup_fd = epoll_create1(EPOLL_CLOEXEC);
    if (s->watch_fd < 0 || s->hup_fd < 0) {
        free_server(s);
        return MCP_ERR_IO;
    }
    unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | (ipv6 ? MHD_USE_IPv6 : 0) |
                     (s->cert ? MHD_USE_TLS : 0);
    unsigned limit = s->cfg.max_connections + CAP_SLACK(s->cfg.max_connections);
    /* The TLS pair, when given, as an option array (empty otherwise). */
    struct MHD_OptionItem tls[] = {
        {s->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, s->cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, s->key},
        {MHD_OPTION_END, 0, NULL},
    };
    errno = 0;
    s->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_access, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        s, MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        s->cfg.max_per_address, MHD_OPTION_CONNECTION_TIMEOUT,
        s->cfg.idle_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        s->cfg.connection_memory ? s->cfg.connection_memory : (size_t)CONN_MEMORY,
        MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
    if (!s->daemon) {
        int e = errno;
        free_server(s);
        errno = e;
        return MCP_ERR_IO;
    }
    const union MHD_DaemonInfo *port = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = port ? port->port : cfg->port;
    const union MHD_DaemonInfo *ep = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD);
    uv_poll_init(loop, &s->mhd_poll, ep->epoll_fd);
    uv_poll_init(loop, &s->watch_poll, s->watch_fd);
    uv_poll_init(loop, &s->hup_poll, s->hup_fd);
    uv_timer_init(loop, &s->mhd_timer);
    uv_timer_init(loop, &s->kick);
    uv_timer_init(loop, &s->keepalive);
    uv_timer_init(loop, &s->deadline);
    uv_timer_init(loop, &s->drain);
    s->mhd_poll.data = s->watch_poll.data = s->hup_poll.data = s->mhd_timer.data = s->kick.data =
        s->keepalive.data = s->deadline.data = s->drain.data = s;
    s->open_handles = 8;
    uv_poll_start(&s->mhd_poll, UV_READABLE, on_mhd_poll);
    uv_poll_start(&s->watch_poll, UV_READABLE, on_watch);
    uv_poll_start(&s->hup_poll, UV_READABLE, on_hup);
    uv_timer_start(&s->keepalive, on_keepalive, s->cfg.keepalive_ms, s->cfg.keepalive_ms);
    run_mhd(s);
    *out = s;
    return MCP_OK;
}

uint16_t mcp__http_server_port(const mcp__http_server *s)
{
    return s->port;
}

size_t mcp__http_server_connections(const mcp__http_server *s)
{
    const union MHD_DaemonInfo *di =
        MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return di ? di->num_connections : 0;
}

/* The daemon goes once nothing is left to write, or at the grace's end:
 * what the owner wrote last (a stream's cancels, its closing chunk) reaches
 * clients that still read, and a client that reads nothing holds the stop
 * no longer than the grace. */
static void finish_close(mcp__http_server *s)
{
    uv_close((uv_handle_t *)&s->drain, handle_closed);
    /* Off the loop before libmicrohttpd closes its descriptor. */
    uv_close((uv_handle_t *)&s->mhd_poll, handle_closed);
    MHD_stop_daemon(s->daemon); /* completes (and frees) every exchange */
    s->daemon = NULL;
    uv_close((uv_handle_t *)&s->watch_poll, handle_closed);
    uv_close((uv_handle_t *)&s->hup_poll, handle_closed);
    uv_close((uv_handle_t *)&s->mhd_timer, handle_closed);
    uv_close((uv_handle_t *)&s->kick, handle_closed);
    uv_close((uv_handle_t *)&s->keepalive, handle_closed);
    uv_close((uv_handle_t *)&s->deadline, handle_closed);
}

static void on_drain(uv_timer_t *t)
{
    mcp__http_server *s = t->data;
    if (!s->exchanges || mcp__now_ms() >= s->drain_until)
        finish_close(s);
}

void mcp__http_server_close(mcp__http_server *s, uint64_t grace_ms, void (*done)(void *ud),
                            void *ud)
{
    if (!s || s->closing)
        return;
    s->closing = true;
    s->done = done;
    s->done_ud = ud;
    /* Every exchange is let go: a stream ends after what is queued on it,
     * a request still waiting for its answer is closed; the owner hears of
     * each now (it writes nothing more). */
    for (mcp__http_exchange *x = s->exchanges; x; x = x->next) {
        notify(x, MCP__HTTP_SHUTDOWN);
        x->sse_ended = true;
        unpark(x);
    }
    uv_timer_stop(&s->keepalive);
    run_mhd(s);
    s->drain_until = mcp__now_ms() + grace_ms;
    uv_timer_start(&s->drain, on_drain, 0, 5);
}
