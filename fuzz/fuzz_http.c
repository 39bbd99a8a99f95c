/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for the HTTP server's request validation, driven end to end: a real
 * mcp_server (a few tools, one with x-mcp-header parameters) listens on
 * 127.0.0.1 on a thread of its own, started once; each input becomes one
 * raw HTTP request on a new connection, and the answer is read back.
 *
 * Input (text, lines ending in LF; a CR before it is dropped):
 *   line 1     METHOD TARGET [FLAG...]   METHOD and TARGET are looked up in
 *              the tables below (an unknown word picks an entry by its
 *              bytes, so every mutation is a request); FLAGs:
 *                nohost     no Host header is added
 *                noprefix   none of the usual headers are added
 *                http10     HTTP/1.0 instead of HTTP/1.1
 *                keepalive  no "Connection: close"
 *                second     to the second server (see serve: allow-lists,
 *                           a bearer token, always streams, polling)
 *   lines      header lines, sent as they are (any bytes) up to an empty
 *              line; @SID@, @EID@ and @PORT@ in them become the last
 *              Mcp-Session-Id answered, the last event id seen and the port
 *   the rest   the body, as it is
 * Unless the input names them itself (or says noprefix), Host, Content-Type
 * (application/json), Accept (JSON and event streams), Connection: close
 * and, for the second server, its bearer token come first, so that most
 * inputs get past the transport's checks into the JSON and header-against-
 * body validation; Content-Length is added unless the input gives
 * Content-Length or Transfer-Encoding (then the framing is the input's own:
 * a chunked body, a length that lies).
 *
 * Checks, for every input:
 * - an answer comes: a status line, or the server closes the connection
 *   (after our half-close, for a request still waiting for its body), within
 *   HANG_MS; what comes starts with a well-formed HTTP/1.x status line;
 * - a JSON answer read in full is one JSON-RPC response (result or error),
 *   and so is every data line of an event stream;
 * - both server threads are still running; ASan/UBSan watch every thread.
 *
 * State carries over between inputs (2025 sessions, a few per server, the
 * oldest evicted), as it would for a real server: a crash found after a
 * long run may need the inputs before it to reproduce. Each input's answer
 * is waited for, so the coverage it causes is its own. For the same reason
 * libFuzzer's per-input leak check is off (LLVMFuzzerInitialize): the
 * servers keep what they allocate for later inputs, and the check would
 * run every input twice against a server the first run changed.
 */
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"
#include "mcp/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define CHECK(c, what)                                                                         \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            fprintf(stderr, "fuzz_http: %s\n", what);                                          \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

/* How long an answer (or a close) may take before it is a hang: generous,
 * for sanitizers and valgrind. */
#define HANG_MS 10000
/* Silence after which a connection that got its status line, or whose
 * request may be incomplete, is given up (then half-closed). */
#define QUIET_MS 40

static const char *const methods[] = {"POST", "GET", "DELETE", "PUT", "OPTIONS", "HEAD", "PATCH", "post"};
static const char *const targets[] = {"/mcp", "/mcp?x=1", "/", "/other", "/mcp/", "/MCP",
                                      "*", "/mcp/../mcp", "/%6Dcp", "http://127.0.0.1/mcp"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The server ---------------------------------------------------------------------- */

/* Two servers: the default configuration, and one with every option the
 * checks read (allow-lists, a bearer token, always-stream answers, 2025
 * streams closed after their priming event so that clients resume them). */
typedef struct server {
    mcp_server *server;
    pthread_t thread;
    unsigned port;
    bool started;
    atomic_bool gone;
    char sid[128]; /* the last Mcp-Session-Id it answered */
    char eid[128]; /* the last event id it sent */
    const char *host; /* the Host header that passes */
} server;

static server servers[2] = {{.host = NULL}, {.host = "fuzz.example"}};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;

static void quiet(void *ud, const mcp_log_record *r)
{
    (void)ud;
    if (getenv("FUZZ_HTTP_LOG"))
        fprintf(stderr, "server: %s\n", r->message);
}

static bool authorize(void *ud, const char *value)
{
    (void)ud;
    return value && strcmp(value, "Bearer fuzz") == 0;
}

static void echo(void *ud, mcp_call *c)
{
    (void)ud;
    const mcp_json *t = mcp_json_object_get(mcp_call_arguments(c), "text");
    size_t n = 0;
    const char *s = t ? mcp_json_string(t, &n) : NULL;
    mcp_call_reply_text_n(c, s ? s : "", s ? n : 0);
}

static void progress(void *ud, mcp_call *c)
{
    (void)ud;
    mcp_call_progress(c, 1, 2, "half way"); /* an event stream, when asked */
    mcp_call_reply_text(c, "done");
}

static void failing(void *ud, mcp_call *c)
{
    (void)ud;
    mcp_call_reply_tool_error(c, "it failed");
}

static void *serve(void *arg)
{
    server *t = arg;
    bool second = t == &servers[1];
    mcp_server_options o = {.size = sizeof o, .name = "fuzz", .log = quiet, .worker_threads = 1};
    mcp_server *s;
    CHECK(mcp_server_new(&o, &s) == MCP_OK, "mcp_server_new");
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "echo", .handler = echo,
         .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}"},
        /* Parameters mirrored into Mcp-Param-* headers, one nested. */
        {.size = sizeof(mcp_tool), .name = "route", .handler = echo,
         .input_schema = "{\"type\":\"object\",\"properties\":{"
                         "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
                         "\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"},"
                         "\"f\":{\"type\":\"boolean\",\"x-mcp-header\":\"F\"},"
                         "\"o\":{\"type\":\"object\",\"properties\":{"
                         "\"deep\":{\"type\":\"string\",\"x-mcp-header\":\"Deep\"}}},"
                         "\"text\":{\"type\":\"string\"}}}"},
        {.size = sizeof(mcp_tool), .name = "progress", .handler = progress},
        {.size = sizeof(mcp_tool), .name = "work", .handler = failing, .flags = MCP_TOOL_BLOCKING},
    };
    for (size_t i = 0; i < COUNT(tools); i++)
        CHECK(mcp_server_add_tool(s, &tools[i]) == MCP_OK, "mcp_server_add_tool");
    static const char *const hosts[] = {"fuzz.example", "fuzz.example:443", NULL};
    static const char *const origins[] = {"https://fuzz.example", NULL};
    mcp_server_http_options h = {.size = sizeof h, .host = "127.0.0.1", .port = 0,
                                 .max_body = 64 * 1024, .max_sessions = 4};
    if (second) {
        h.allowed_hosts = hosts;
        h.allowed_origins = origins;
        h.authorize = authorize;
        h.response_mode = MCP_HTTP_RESPONSE_SSE;
        h.poll_retry_ms = 5;
        h.max_body = 2048;
        h.max_sessions = 2;
    }
    CHECK(mcp_server_listen_http(s, &h) == MCP_OK, "mcp_server_listen_http");
    pthread_mutex_lock(&lock);
    t->server = s;
    t->port = mcp_server_http_port(s);
    t->started = true;
    pthread_cond_broadcast(&ready);
    pthread_mutex_unlock(&lock);
    mcp_server_run(s); /* returns only after stop_servers stopped it */
    atomic_store(&t->gone, true);
    return NULL;
}

/* At exit: both servers stopped and freed, so that valgrind and LeakSanitizer
 * see every allocation of theirs released. */
static void stop_servers(void)
{
    for (size_t i = 0; i < COUNT(servers); i++) {
        mcp_server_stop(servers[i].server);
        pthread_join(servers[i].thread, NULL);
        mcp_server_free(servers[i].server);
    }
}

static void start_servers(void)
{
    for (size_t i = 0; i < COUNT(servers); i++) {
        CHECK(pthread_create(&servers[i].thread, NULL, serve, &servers[i]) == 0,
              "pthread_create");
        pthread_mutex_lock(&lock);
        while (!servers[i].started)
            pthread_cond_wait(&ready, &lock);
        pthread_mutex_unlock(&lock);
        CHECK(servers[i].port, "no port");
    }
    atexit(stop_servers);
}

/* Building the request -------------------------------------------------------------- */

typedef struct bytes {
    char *p;
    size_t len, cap;
} bytes;

static void put(bytes *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        CHECK(b->p, "out of memory");
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_(bytes *b, const char *s)
{
    put(b, s, strlen(s));
}

/* The table entry `word` names, or one its bytes pick. */
static const char *pick(const char *const *table, size_t n, const char *word, size_t len)
{
    unsigned sum = 0;
    for (size_t k = 0; k < n; k++)
        if (strlen(table[k]) == len && memcmp(table[k], word, len) == 0)
            return table[k];
    for (size_t i = 0; i < len; i++)
        sum += (unsigned char)word[i];
    return table[sum % n];
}

static bool has_word(const char *line, size_t len, const char *w)
{
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= len; i++)
        if ((i == 0 || line[i - 1] == ' ') && memcmp(line + i, w, k) == 0 &&
            (i + k == len || line[i + k] == ' '))
            return true;
    return false;
}

typedef struct line {
    const char *p;
    size_t len;
} line;

static bool names(line l, const char *name)
{
    size_t k = strlen(name);
    return l.len > k && l.p[k] == ':' && strncasecmp(l.p, name, k) == 0;
}

static bool input_has(const line *h, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (names(h[i], name))
            return true;
    return false;
}

static void put_substituted(bytes *b, line l, const server *t)
{
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%u", t->port);
    const struct {
        const char *from, *to;
    } subs[] = {{"@SID@", t->sid}, {"@EID@", t->eid}, {"@PORT@", portbuf}};
    for (size_t i = 0; i < l.len;) {
        bool done = false;
        for (size_t k = 0; k < COUNT(subs) && !done; k++) {
            size_t fl = strlen(subs[k].from);
            if (l.len - i >= fl && memcmp(l.p + i, subs[k].from, fl) == 0) {
                puts_(b, subs[k].to);
                i += fl;
                done = true;
            }
        }
        if (!done)
            put(b, l.p + i++, 1);
    }
}

#define MAX_HEADERS 64

/* The request the input describes. */
static server *build(const uint8_t *data, size_t size, bytes *req)
{
    const char *p = (const char *)data, *end = p + size;
    line lines[MAX_HEADERS + 1];
    size_t n = 0;
    const char *body = end;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        size_t len = (size_t)(stop - p);
        if (len && p[len - 1] == '\r')
            len--;
        if (n > 0 && len == 0) { /* the blank line: the body follows */
            body = nl ? nl + 1 : end;
            break;
        }
        if (n <= MAX_HEADERS)
            lines[n++] = (line){p, len};
        p = nl ? nl + 1 : end;
        if (!nl)
            body = end;
    }
    line first = n ? lines[0] : (line){"", 0};
    line *h = lines + (n ? 1 : 0);
    size_t nh = n ? n - 1 : 0;
    size_t mlen = 0;
    while (mlen < first.len && first.p[mlen] != ' ')
        mlen++;
    const char *target_p = first.p + (mlen < first.len ? mlen + 1 : mlen);
    size_t tlen = 0;
    while (target_p + tlen < first.p + first.len && target_p[tlen] != ' ')
        tlen++;
    const char *method = pick(methods, COUNT(methods), first.p, mlen);
    const char *target = pick(targets, COUNT(targets), target_p, tlen);
    bool noprefix = has_word(first.p, first.len, "noprefix");
    server *t = &servers[has_word(first.p, first.len, "second") ? 1 : 0];

    puts_(req, method);
    puts_(req, " ");
    puts_(req, target);
    puts_(req, has_word(first.p, first.len, "http10") ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
    if (!noprefix) {
        char host[64];
        if (t->host)
            snprintf(host, sizeof host, "Host: %s\r\n", t->host);
        else
            snprintf(host, sizeof host, "Host: 127.0.0.1:%u\r\n", t->port);
        if (!has_word(first.p, first.len, "nohost") && !input_has(h, nh, "Host"))
            puts_(req, host);
        if (!input_has(h, nh, "Content-Type"))
            puts_(req, "Content-Type: application/json\r\n");
        if (!input_has(h, nh, "Accept"))
            puts_(req, "Accept: application/json, text/event-stream\r\n");
        if (!has_word(first.p, first.len, "keepalive") && !input_has(h, nh, "Connection"))
            puts_(req, "Connection: close\r\n");
        if (t == &servers[1] && !input_has(h, nh, "Authorization"))
            puts_(req, "Authorization: Bearer fuzz\r\n");
    }
    for (size_t i = 0; i < nh; i++) {
        put_substituted(req, h[i], t);
        puts_(req, "\r\n");
    }
    size_t blen = (size_t)(end - body);
    if (!input_has(h, nh, "Content-Length") && !input_has(h, nh, "Transfer-Encoding") &&
        (blen || strcmp(method, "POST") == 0)) {
        char cl[48];
        snprintf(cl, sizeof cl, "Content-Length: %zu\r\n", blen);
        puts_(req, cl);
    }
    puts_(req, "\r\n");
    put(req, body, blen);
    return t;
}

/* The exchange ---------------------------------------------------------------------- */

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The answer so far: where its head ends (0: not yet), and its framing. */
typedef struct answer {
    bytes raw;
    size_t head_end;
    long long length; /* Content-Length, or -1 */
    bool chunked;
    bool closed;      /* the server closed (or reset) the connection */
} answer;

static const char *header_in(const answer *a, const char *name, size_t *len)
{
    size_t k = strlen(name);
    const char *p = memchr(a->raw.p, '\n', a->head_end);
    while (p && (size_t)(p - a->raw.p) + 1 < a->head_end) {
        p++;
        const char *eol = memchr(p, '\r', a->head_end - (size_t)(p - a->raw.p));
        if (!eol)
            break;
        if ((size_t)(eol - p) > k && p[k] == ':' && strncasecmp(p, name, k) == 0) {
            const char *v = p + k + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            *len = (size_t)(eol - v);
            return v;
        }
        p = eol + 1;
    }
    return NULL;
}

static void parse_head(answer *a)
{
    if (a->head_end)
        return;
    char *e = a->raw.len >= 4 ? memmem(a->raw.p, a->raw.len, "\r\n\r\n", 4) : NULL;
    if (!e)
        return;
    a->head_end = (size_t)(e - a->raw.p) + 4;
    size_t len;
    const char *v = header_in(a, "Content-Length", &len);
    a->length = v ? strtoll(v, NULL, 10) : -1;
    v = header_in(a, "Transfer-Encoding", &len);
    a->chunked = v && len >= 7 && strncasecmp(v, "chunked", 7) == 0;
}

/* The body, de-chunked; false while it is incomplete. */
static bool body_of(const answer *a, bytes *out)
{
    const char *p = a->raw.p + a->head_end, *end = a->raw.p + a->raw.len;
    if (!a->chunked) {
        size_t have = (size_t)(end - p);
        if (a->length >= 0) {
            if (have < (size_t)a->length)
                return false;
            have = (size_t)a->length;
        } else if (!a->closed) {
            return false;
        }
        put(out, p, have);
        return true;
    }
    for (;;) {
        char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
        if (!eol)
            return false;
        char *after;
        unsigned long long n = strtoull(p, &after, 16);
        CHECK(after > p, "a chunk without its size");
        p = eol + 2;
        if (n == 0)
            return true;
        if ((size_t)(end - p) < n + 2)
            return false;
        put(out, p, (size_t)n);
        CHECK(memcmp(p + n, "\r\n", 2) == 0, "a chunk not ended by CRLF");
        p += n + 2;
    }
}

static bool complete(const answer *a)
{
    if (!a->head_end)
        return false;
    bytes b = {0};
    bool done = (a->chunked || a->length >= 0) && body_of(a, &b);
    free(b.p);
    return done;
}

static void check_message(const char *p, size_t n, const char *what)
{
    mcp_message *m = NULL;
    int rc = mcp_message_decode(p, n, NULL, NULL, &m, NULL);
    if (rc != MCP_OK || (m->kind != MCP_MESSAGE_RESULT && m->kind != MCP_MESSAGE_ERROR &&
                         m->kind != MCP_MESSAGE_NOTIFICATION && m->kind != MCP_MESSAGE_REQUEST)) {
        fprintf(stderr, "fuzz_http: %s is not a JSON-RPC message: %.*s\n", what, (int)n, p);
        abort();
    }
    /* A response body is an answer, never a request of ours. */
    CHECK(strcmp(what, "the JSON body") != 0 || m->kind == MCP_MESSAGE_RESULT ||
              m->kind == MCP_MESSAGE_ERROR,
          "a JSON body that is not a response");
    mcp_message_free(m);
}

static void check_answer(answer *a, server *t)
{
    if (!a->raw.len)
        return; /* closed without a word: a deliberate close */
    /* Whatever came starts with a status line. */
    size_t want = a->raw.len < 13 ? a->raw.len : 13;
    char status[16];
    memcpy(status, a->raw.p, want);
    status[want] = '\0';
    bool ok = want >= 12 && (memcmp(status, "HTTP/1.1 ", 9) == 0 || memcmp(status, "HTTP/1.0 ", 9) == 0) &&
              status[9] >= '1' && status[9] <= '5' && status[10] >= '0' && status[10] <= '9' &&
              status[11] >= '0' && status[11] <= '9';
    if (!ok) {
        fprintf(stderr, "fuzz_http: not a status line: %.*s\n", (int)want, a->raw.p);
        abort();
    }
    if (!a->head_end)
        return;
    size_t len;
    const char *sid = header_in(a, "Mcp-Session-Id", &len);
    if (sid && len < sizeof t->sid) {
        memcpy(t->sid, sid, len);
        t->sid[len] = '\0';
    }
    const char *type = header_in(a, "Content-Type", &len);
    bytes body = {0};
    bool whole = body_of(a, &body);
    if (type && len >= 16 && strncasecmp(type, "application/json", 16) == 0) {
        if (whole)
            check_message(body.p ? body.p : "", body.len, "the JSON body");
    } else if (type && len >= 17 && strncasecmp(type, "text/event-stream", 17) == 0 && body.p) {
        /* Complete lines only: a stream may have been cut. */
        for (char *l = body.p, *nl; (nl = memchr(l, '\n', body.len - (size_t)(l - body.p)));
             l = nl + 1) {
            size_t ll = (size_t)(nl - l);
            if (ll > 6 && memcmp(l, "data: ", 6) == 0)
                check_message(l + 6, ll - 6, "an event's data");
            else if (ll > 4 && memcmp(l, "id: ", 4) == 0 && ll - 4 < sizeof t->eid) {
                memcpy(t->eid, l + 4, ll - 4);
                t->eid[ll - 4] = '\0';
            }
        }
    }
    free(body.p);
}

/* Read until the server closes, the answer is complete, or it stays quiet
 * after its status line; a request still waiting (its body promised but not
 * sent) is half-closed, and then the server must close within HANG_MS. */
static void exchange(const bytes *req, server *t)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0, "socket");
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)t->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* Reset on close: no TIME_WAIT left behind by thousands of runs. */
    struct linger lg = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect");

    answer a = {.length = -1};
    size_t sent = 0;
    bool half_closed = false;
    uint64_t start = now_ms(), last = start;
    for (;;) {
        struct pollfd pf = {fd, POLLIN | (sent < req->len ? POLLOUT : 0), 0};
        int r = poll(&pf, 1, QUIET_MS);
        CHECK(r >= 0 || errno == EINTR, "poll");
        uint64_t now = now_ms();
        if (r > 0 && (pf.revents & POLLOUT) && sent < req->len) {
            ssize_t w = send(fd, req->p + sent, req->len - sent, MSG_NOSIGNAL);
            if (w > 0)
                sent += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EINTR)
                sent = req->len; /* the server stopped reading: its answer may follow */
            last = now;
        }
        if (r > 0 && (pf.revents & (POLLIN | POLLHUP | POLLERR))) {
            char buf[4096];
            ssize_t got = recv(fd, buf, sizeof buf, 0);
            if (got > 0) {
                put(&a.raw, buf, (size_t)got);
                parse_head(&a);
                last = now;
                if (complete(&a))
                    break;
            } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                a.closed = true;
                break;
            }
        }
        if (r == 0 || now - last >= QUIET_MS) {
            if (a.head_end)
                break; /* answered; the rest (a stream) is not waited for */
            if (sent == req->len && !half_closed) {
                shutdown(fd, SHUT_WR);
                half_closed = true;
                last = now;
            }
        }
        if (now - start > HANG_MS) {
            fprintf(stderr, "fuzz_http: no answer within %d ms (%zu of %zu bytes sent, %zu "
                            "received)\n",
                    HANG_MS, sent, req->len, a.raw.len);
            abort();
        }
    }
    close(fd);
    if (getenv("FUZZ_HTTP_SHOW"))
        fprintf(stderr, "--- answer (%s)\n%.*s\n", a.closed ? "closed by the server" : "left by us", (int)a.raw.len,
                a.raw.p ? a.raw.p : "");
    check_answer(&a, t);
    free(a.raw.p);
}

/* libFuzzer's flags may be changed here: -detect_leaks=0 unless given. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int i = 1; i < *argc; i++)
        if (strncmp((*argv)[i], "-detect_leaks=", 14) == 0)
            return 0;
    static char *args[256];
    static char flag[] = "-detect_leaks=0";
    if (*argc + 2 > (int)COUNT(args))
        return 0;
    for (int i = 0; i < *argc; i++)
        args[i] = (*argv)[i];
    args[(*argc)++] = flag;
    args[*argc] = NULL;
    *argv = args;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_servers);
    bytes req = {0};
    server *t = build(data, size, &req);
    if (getenv("FUZZ_HTTP_SHOW"))
        fprintf(stderr, "--- request\n%.*s\n", (int)req.len, req.p);
    exchange(&req, t);
    free(req.p);
    for (size_t i = 0; i < COUNT(servers); i++)
        CHECK(!atomic_load(&servers[i].gone), "a server thread ended");
    return 0;
}
