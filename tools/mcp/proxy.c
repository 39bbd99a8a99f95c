/* SPDX-License-Identifier: MIT */
/*
 * mcp proxy --url URL: a Streamable HTTP server offered on stdio, for
 * clients that only spawn processes. Each line of stdin goes to the server
 * through the library's HTTP relay (mcp_http_relay_*, the client's own
 * transport without its session), which tells the eras apart by what the
 * client sends; each message of the server's is one line on stdout.
 *
 * The proxy reads what crosses only to keep the rules a gateway must: a
 * line that is not JSON is answered with -32700 (id null), one over the cap
 * with an error for its id when its head names one; the requests still
 * unanswered are remembered, so that the end of stdin, a reader of stdout
 * that went away, SIGINT, SIGTERM or SIGHUP cancel each of them through the
 * relay (closing a 2026-07-28 request's stream, posting a 2025 cancel)
 * before the proxy exits, once the HTTP side has settled or 2 s have
 * passed. initialize is never cancelled, by the proxy or for its client,
 * and a request still waiting for initialize's answer was never sent.
 *
 * One libuv loop, one thread. stdin and stdout are libuv streams when they
 * are pipes, sockets or terminals; a regular file is read with uv_fs_read
 * and written with write(2). When stdout is a pipe, its reader going away
 * is seen at once (POLLERR on the write end), not only at the next write.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

#define END_WAIT_MS 2000          /* the HTTP side's time to settle at the end */
#define MAX_IN_FLIGHT 4096        /* requests of the client's unanswered */
#define MAX_UNSETTLED 1024        /* posts unanswered before stdin waits */
#define MAX_OUT_QUEUED (16u << 20) /* stdout bytes queued: the client stopped reading */
#define TICK_MS 10

typedef struct flight {
    mcp_id id; /* a copy */
    struct flight *next;
} flight;

typedef enum { RUNNING, ENDING, DONE } phase;

/* A line waiting for the answer to initialize. */
typedef struct held {
    struct held *next;
    size_t len;
    char line[];
} held;

#define MAX_HELD 1024             /* lines waiting for initialize's answer */
#define MAX_HELD_BYTES (16u << 20)

typedef struct proxy {
    uv_loop_t loop;
    mcp_http_relay *relay;
    const char *url;
    const char *version; /* --protocol, or NULL */
    bool trace;
    size_t max_message;
    /* stdin */
    union {
        uv_pipe_t pipe;
        uv_tty_t tty;
    } in;
    bool in_stream, in_open, in_reading, in_fs_busy, in_eof;
    uv_fs_t in_fs;
    char in_buf[65536];
    mcp_line_reader *lines;
    /* stdout */
    union {
        uv_pipe_t pipe;
        uv_tty_t tty;
    } out;
    bool out_stream, out_open, out_failed;
    size_t out_queued;
    /* A pipe's reader that goes away is seen at once, not at the next
     * write: the write end reports an error (POLLERR), watched on a copy
     * of the descriptor (the stream has its own watcher on 1). */
    uv_poll_t hangup;
    int hangup_fd; /* -1: not watched */
    /* the rest */
    uv_signal_t sigint, sigterm, sighup;
    uv_timer_t tick;
    flight *flights;
    size_t in_flight;
    /* A 2025 initialize unanswered: what the client sends meanwhile waits
     * (in order) for its answer, which brings the session id every later
     * request needs; posted at once, they would race it. */
    bool initializing;
    mcp_id init_id; /* a copy, while initializing */
    struct held *held, *held_tail;
    size_t held_count, held_bytes;
    phase phase;
    int exit_code;
    uint64_t deadline;
    bool session_ended;
} proxy;

static uint64_t now_ms(void)
{
    return mcp_monotonic_ms();
}

/* One line on stderr: "mcp proxy: " and what (made safe). */
static void say(const char *what)
{
    fprintf(stderr, "mcp proxy: %s\n", cli_safe(what));
}

/* The same, with one detail in place of %s. */
static void say2(const char *before, const char *detail, const char *after)
{
    char line[1200];
    snprintf(line, sizeof line, "%s%.1000s%s", before, detail, after);
    say(line);
}

/* stdout ---------------------------------------------------------------------------- */

static void begin_end(proxy *p, int code, const char *why);
static void on_tick(uv_timer_t *t);

typedef struct out_req {
    uv_write_t req;
    proxy *p;
    size_t len;
    char data[];
} out_req;

static void output_failed(proxy *p, const char *why)
{
    if (p->out_failed)
        return;
    p->out_failed = true;
    if (p->phase != RUNNING && p->exit_code == 0)
        p->exit_code = EXIT_CONNECTION; /* ending already (stdin ended): still a failure */
    say2("stdout failed (", why, "): ending, cancelling what is in flight");
    begin_end(p, EXIT_CONNECTION, "the client's reader went away");
}

static void on_written(uv_write_t *req, int status)
{
    out_req *w = (out_req *)req;
    proxy *p = w->p;
    p->out_queued -= w->len;
    free(w);
    if (status < 0 && status != UV_ECANCELED)
        output_failed(p, uv_strerror(status));
}

/* One line (data without its newline) to stdout. */
static void put_line(proxy *p, const char *data, size_t len)
{
    if (p->out_failed || !p->out_open)
        return;
    if (p->trace)
        cli_trace_line("mcp proxy stdio", true, data, len);
    if (!p->out_stream) {
        const char *parts[2] = {data, "\n"};
        size_t lens[2] = {len, 1};
        for (int i = 0; i < 2; i++)
            for (size_t done = 0; done < lens[i];) {
                ssize_t n = write(STDOUT_FILENO, parts[i] + done, lens[i] - done);
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0) {
                    output_failed(p, n < 0 ? strerror(errno) : "nothing written");
                    return;
                }
                done += (size_t)n;
            }
        return;
    }
    /* Past 16 MiB already queued the client is not reading; below that,
     * any one message goes (up to --max-message, which may pass 16 MiB). */
    if (p->out_queued >= MAX_OUT_QUEUED) {
        output_failed(p, "the client stopped reading: 16 MiB are queued for it");
        return;
    }
    out_req *w = malloc(sizeof *w + len + 1);
    if (!w) {
        output_failed(p, "out of memory");
        return;
    }
    w->p = p;
    w->len = len + 1;
    memcpy(w->data, data, len);
    w->data[len] = '\n';
    uv_buf_t b = uv_buf_init(w->data, (unsigned)(len + 1));
    int rc = uv_write(&w->req, (uv_stream_t *)&p->out, &b, 1, on_written);
    if (rc < 0) {
        free(w);
        output_failed(p, uv_strerror(rc));
        return;
    }
    p->out_queued += len + 1;
}

/* An error response of the proxy's own for id (NULL: null). */
static void put_error(proxy *p, const mcp_id *id, int64_t code, const char *message)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    /* A message made of what the client sent may not be UTF-8: escaped. */
    mcp_buf safe;
    mcp_buf_init(&safe, 0, NULL);
    if (mcp_text_escape_controls_buf(message, strlen(message), &safe) == MCP_OK &&
        mcp_encode_error(&b, id, code, safe.data ? safe.data : "", NULL) == MCP_OK && b.len)
        put_line(p, b.data, b.len - 1);
    mcp_buf_free(&safe);
    mcp_buf_free(&b);
}

/* The requests in flight ----------------------------------------------------------- */

static bool track(proxy *p, const mcp_id *id)
{
    flight *f = calloc(1, sizeof *f);
    if (!f || mcp_id_copy(&f->id, id, NULL) != MCP_OK) {
        free(f);
        return false;
    }
    f->next = p->flights;
    p->flights = f;
    p->in_flight++;
    return true;
}

/* Forget request id; whether it was in flight. */
static bool untrack(proxy *p, const mcp_id *id)
{
    for (flight **at = &p->flights; *at; at = &(*at)->next)
        if (mcp_id_equal(&(*at)->id, id)) {
            flight *f = *at;
            *at = f->next;
            mcp_id_release(&f->id, NULL);
            free(f);
            p->in_flight--;
            return true;
        }
    return false;
}

/* Cancel every request in flight through the relay: each era's rule.
 * initialize is never cancelled (the spec forbids it): left to end. */
static void cancel_all(proxy *p, const char *why)
{
    while (p->flights) {
        flight *f = p->flights;
        p->flights = f->next;
        p->in_flight--;
        if (p->initializing && mcp_id_equal(&f->id, &p->init_id)) {
            mcp_id_release(&f->id, NULL);
            free(f);
            continue;
        }
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp_buf_append(&b, MCP_LITERAL("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                                       "\"params\":{\"requestId\":"));
        mcp_id_write(&f->id, &b);
        mcp_buf_append(&b, MCP_LITERAL(",\"reason\":"));
        mcp_json_write_string(why, strlen(why), &b);
        if (mcp_buf_append(&b, MCP_LITERAL("}}")) == MCP_OK && p->relay) {
            if (p->trace)
                cli_trace_line("mcp proxy http", true, b.data, b.len);
            mcp_http_relay_send(p->relay, b.data, b.len);
        }
        mcp_buf_free(&b);
        mcp_id_release(&f->id, NULL);
        free(f);
    }
}

/* From the server ------------------------------------------------------------------ */

static void release_held(proxy *p);

static void from_server(void *ud, const char *data, size_t len, bool made_up)
{
    proxy *p = ud;
    if (p->trace)
        cli_trace_line(made_up ? "mcp proxy http (made up)" : "mcp proxy http", false, data, len);
    mcp_message *m = NULL;
    mcp_message_decode(data, len, NULL, NULL, &m, NULL);
    bool init_answered = false;
    if (m && (m->kind == MCP_MESSAGE_RESULT || m->kind == MCP_MESSAGE_ERROR)) {
        untrack(p, &m->id);
        init_answered = p->initializing && mcp_id_equal(&m->id, &p->init_id);
    }
    if (made_up && m && m->kind == MCP_MESSAGE_ERROR) {
        mcp_buf id;
        mcp_buf_init(&id, 256, NULL);
        mcp_id_write(&m->id, &id);
        char line[1024];
        snprintf(line, sizeof line, "request %.*s failed: %.*s", (int)id.len,
                 id.data ? id.data : "", (int)(m->error_message_len < 800 ? m->error_message_len : 800),
                 m->error_message ? m->error_message : "");
        say(line);
        mcp_buf_free(&id);
    }
    mcp_message_free(m);
    put_line(p, data, len);
    if (init_answered) {
        p->initializing = false;
        mcp_id_release(&p->init_id, NULL);
        release_held(p);
    }
}

static bool head_id(const char *s, size_t n, mcp_id *id, char *str, size_t str_cap);

/* A message of the server's over the cap: when it answers a request (its
 * head names the id), that request gets an error instead. */
static void server_oversized(void *ud, const char *head, size_t head_len, size_t limit)
{
    proxy *p = ud;
    char msg[200], idbuf[256];
    snprintf(msg, sizeof msg, "mcp proxy: a message from the server over the cap of %zu bytes "
                              "(--max-message) was dropped", limit);
    say(msg + strlen("mcp proxy: "));
    mcp_id id;
    if (head && head_id(head, head_len, &id, idbuf, sizeof idbuf)) {
        untrack(p, &id);
        put_error(p, &id, -32603, msg);
    }
}

static void relay_log(void *ud, const mcp_log_record *r)
{
    (void)ud;
    if (r->level >= MCP_LOG_WARNING && r->message)
        say(r->message);
}

/* From the client (stdin) ---------------------------------------------------------- */

/* Why --protocol refuses request m (written to why), or false. */
static bool era_refused(proxy *p, const mcp_message *m, char *why, size_t n)
{
    if (!p->version)
        return false;
    bool modern = !strcmp(p->version, "2026-07-28");
    const mcp_json *meta = mcp_json_object_get(m->params, "_meta");
    const char *asked =
        mcp_json_string(mcp_json_object_get(meta, "io.modelcontextprotocol/protocolVersion"), NULL);
    bool refused;
    if (mcp_message_method_is(m, "initialize")) {
        /* The 2025 handshake: its revision is in its params. */
        asked = mcp_json_string(mcp_json_object_get(m->params, "protocolVersion"), NULL);
        if (!asked)
            asked = "(none)";
        refused = modern || strcmp(asked, p->version) != 0;
    } else {
        if (!asked && mcp_message_method_is(m, "server/discover"))
            asked = "2026-07-28"; /* the probe exists in that revision only */
        refused = asked && strcmp(asked, p->version) != 0;
    }
    if (!refused)
        return false;
    snprintf(why, n, "mcp proxy carries protocol revision %s only (--protocol), not %.64s",
             p->version, asked);
    return true;
}

/* The id a line's first bytes give it at the top level, for an answer to a
 * line too long to read: only from a complete "id": number or string. */
static bool head_id(const char *s, size_t n, mcp_id *id, char *str, size_t str_cap)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '"') {
            size_t j = i + 1;
            while (j < n && s[j] != '"')
                j += s[j] == '\\' ? 2 : 1;
            if (j >= n)
                return false;
            /* A key at the top level: "id" followed by ':'. */
            size_t k = j + 1;
            while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
                k++;
            if (depth == 1 && k < n && s[k] == ':' && j - i - 1 == 2 && !memcmp(s + i + 1, "id", 2)) {
                k++;
                while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
                    k++;
                mcp_json_doc *d = NULL;
                size_t e = k;
                if (e < n && s[e] == '"') {
                    e++;
                    while (e < n && s[e] != '"')
                        e += s[e] == '\\' ? 2 : 1;
                    e++;
                } else {
                    while (e < n && ((s[e] >= '0' && s[e] <= '9') || s[e] == '-'))
                        e++;
                    if (e >= n) /* the number may go on past the head */
                        return false;
                }
                if (e > n || e == k || mcp_json_parse(s + k, e - k, NULL, NULL, &d, NULL) != MCP_OK)
                    return false;
                mcp_id got;
                bool ok = mcp_id_from_json(mcp_json_doc_root(d), &got) == MCP_OK &&
                          (got.kind != MCP_ID_STRING || got.len < str_cap);
                if (ok) {
                    *id = got;
                    if (got.kind == MCP_ID_STRING) {
                        memcpy(str, got.str, got.len);
                        id->str = str;
                    }
                }
                mcp_json_doc_free(d);
                return ok;
            }
            i = j;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']')
            depth--;
        if (depth < 1 && i > 0)
            return false;
    }
    return false;
}

/* Send m (whose text is line) to the server now. */
static void send_now(proxy *p, const mcp_message *m, const char *line, size_t len)
{
    mcp_id copy;
    if (m->kind == MCP_MESSAGE_REQUEST && mcp_message_method_is(m, "initialize") &&
        mcp_id_copy(&copy, &m->id, NULL) == MCP_OK) {
        if (p->initializing)
            mcp_id_release(&p->init_id, NULL); /* (held meanwhile: not reached) */
        p->init_id = copy;
        p->initializing = true;
    }
    if (p->trace)
        cli_trace_line("mcp proxy http", true, line, len);
    int rc = mcp_http_relay_send(p->relay, line, len);
    if (rc != MCP_OK && m->kind == MCP_MESSAGE_REQUEST) {
        if (p->initializing && mcp_id_equal(&m->id, &p->init_id)) {
            p->initializing = false;
            mcp_id_release(&p->init_id, NULL);
        }
        untrack(p, &m->id);
        char why[200];
        snprintf(why, sizeof why, "mcp proxy: the request could not be sent: %s", mcp_strerror(rc));
        put_error(p, &m->id, -32603, why);
    } else if (rc != MCP_OK) {
        say2("a message could not be sent: ", mcp_strerror(rc), "");
    }
}

/* Keep m (line) until initialize is answered; past the caps a request is
 * answered with an error, anything else dropped (said). */
static void hold(proxy *p, const mcp_message *m, const char *line, size_t len)
{
    held *h = p->held_count < MAX_HELD && p->held_bytes + len <= MAX_HELD_BYTES
                  ? malloc(sizeof *h + len)
                  : NULL;
    if (!h) {
        const char *why = "mcp proxy: too many messages wait for the answer to initialize";
        if (m->kind == MCP_MESSAGE_REQUEST) {
            untrack(p, &m->id);
            put_error(p, &m->id, -32603, why);
        } else {
            say(why + strlen("mcp proxy: "));
        }
        return;
    }
    h->next = NULL;
    h->len = len;
    memcpy(h->line, line, len);
    if (p->held_tail)
        p->held_tail->next = h;
    else
        p->held = h;
    p->held_tail = h;
    p->held_count++;
    p->held_bytes += len;
}

/* A cancel while initialize is unanswered is handled on arrival, never
 * queued: a request still held is dropped with it (it never reaches the
 * server); one already sent gets the cancel now. */
static void cancel_held(proxy *p, const mcp_message *cancel, const char *line, size_t len)
{
    mcp_id target;
    bool named = mcp_id_from_json(mcp_json_object_get(cancel->params, "requestId"), &target) ==
                 MCP_OK;
    for (held **at = &p->held; named && *at; at = &(*at)->next) {
        mcp_message *m = NULL;
        bool it = mcp_message_decode((*at)->line, (*at)->len, NULL, NULL, &m, NULL) == MCP_OK &&
                  m->kind == MCP_MESSAGE_REQUEST && mcp_id_equal(&m->id, &target);
        mcp_message_free(m);
        if (it) {
            held *h = *at;
            *at = h->next;
            if (p->held_tail == h) {
                p->held_tail = p->held;
                while (p->held_tail && p->held_tail->next)
                    p->held_tail = p->held_tail->next;
            }
            p->held_count--;
            p->held_bytes -= h->len;
            free(h);
            return;
        }
    }
    send_now(p, cancel, line, len);
}

/* Drop what waits for initialize's answer: never sent, its requests are
 * no longer in flight (nothing to cancel). */
static void drop_held(proxy *p)
{
    while (p->held) {
        held *h = p->held;
        p->held = h->next;
        mcp_message *m = NULL;
        if (mcp_message_decode(h->line, h->len, NULL, NULL, &m, NULL) == MCP_OK &&
            m->kind == MCP_MESSAGE_REQUEST)
            untrack(p, &m->id);
        mcp_message_free(m);
        free(h);
    }
    p->held_tail = NULL;
    p->held_count = p->held_bytes = 0;
}

/* initialize was answered: what waited goes, in order, until another
 * initialize among it waits again. */
static void release_held(proxy *p)
{
    while (p->held && !p->initializing && p->phase == RUNNING) {
        held *h = p->held;
        p->held = h->next;
        if (!p->held)
            p->held_tail = NULL;
        p->held_count--;
        p->held_bytes -= h->len;
        mcp_message *m = NULL;
        if (mcp_message_decode(h->line, h->len, NULL, NULL, &m, NULL) == MCP_OK)
            send_now(p, m, h->line, h->len);
        mcp_message_free(m);
        free(h);
    }
}

static void from_client(proxy *p, const char *line, size_t len)
{
    if (p->phase != RUNNING)
        return;
    if (p->trace)
        cli_trace_line("mcp proxy stdio", false, line, len);
    mcp_message *m = NULL;
    mcp_decode_error err;
    memset(&err, 0, sizeof err);
    int rc = mcp_message_decode(line, len, NULL, NULL, &m, &err);
    if (rc == MCP_ERR_RPC_PARSE || rc == MCP_ERR_NOMEM || rc == MCP_ERR_RPC_BATCH ||
        (rc == MCP_ERR_RPC_INVALID && m && m->kind == MCP_MESSAGE_INVALID)) {
        char msg[256];
        if (rc == MCP_ERR_RPC_BATCH)
            snprintf(msg, sizeof msg, "mcp proxy: a batch (a JSON array) is not carried; send "
                                      "each message on its own line");
        else
            snprintf(msg, sizeof msg, "mcp proxy: %s", err.message[0] ? err.message : mcp_strerror(rc));
        int code = rc == MCP_ERR_RPC_PARSE || rc == MCP_ERR_NOMEM ? -32700 : -32600;
        if (rc == MCP_ERR_RPC_INVALID && err.wire_code == 0)
            say2("dropped a line that is not a valid message: ", err.message, "");
        else
            put_error(p, m ? &m->id : NULL, code, msg);
        mcp_message_free(m);
        return;
    }
    if (rc != MCP_OK) {
        mcp_message_free(m);
        return;
    }
    char why[200];
    if (m->kind == MCP_MESSAGE_REQUEST) {
        if (era_refused(p, m, why, sizeof why)) {
            put_error(p, &m->id, -32602, why);
            mcp_message_free(m);
            return;
        }
        if (p->in_flight >= MAX_IN_FLIGHT) {
            put_error(p, &m->id, -32603, "mcp proxy: 4096 requests are in flight already");
            mcp_message_free(m);
            return;
        }
        if (!track(p, &m->id)) {
            put_error(p, &m->id, -32603, "mcp proxy: out of memory");
            mcp_message_free(m);
            return;
        }
    } else if (mcp_message_method_is(m, "notifications/cancelled")) {
        /* The relay closes the 2026-07-28 stream or posts the 2025 cancel:
         * no answer is coming for it. A cancel naming no request, or
         * initialize (which the spec forbids cancelling: forwarded, it
         * would leave the 2025 handshake unanswered), is not sent. */
        mcp_id id;
        if (mcp_id_from_json(mcp_json_object_get(m->params, "requestId"), &id) != MCP_OK) {
            say("dropped a cancel without a requestId (a number or a string)");
            mcp_message_free(m);
            return;
        }
        if (p->initializing && mcp_id_equal(&id, &p->init_id)) {
            say("dropped a cancel of initialize: initialize is never cancelled");
            mcp_message_free(m);
            return;
        }
        /* A request not in flight (never sent, answered, cancelled
         * already): nothing to cancel, and nothing posted; a storm of them
         * would otherwise cost a connection each. */
        if (!untrack(p, &id)) {
            mcp_message_free(m);
            return;
        }
    }
    if (p->initializing && mcp_message_method_is(m, "notifications/cancelled"))
        cancel_held(p, m, line, len);
    else if (p->initializing)
        hold(p, m, line, len);
    else
        send_now(p, m, line, len);
    mcp_message_free(m);
}

static void on_line(void *ud, int status, const char *line, size_t len)
{
    proxy *p = ud;
    if (status == MCP_OK) {
        from_client(p, line, len);
        return;
    }
    if (p->phase != RUNNING)
        return;
    mcp_line_reader *r = p->lines;
    char msg[256], idbuf[256];
    snprintf(msg, sizeof msg, "mcp proxy: a message of %zu bytes is over the cap of %zu bytes "
                              "(--max-message): not sent",
             mcp_line_reader_skipped(r), p->max_message);
    mcp_id id = {MCP_ID_NONE, 0, NULL, 0};
    bool has_id = status == MCP_ERR_LINE_TOO_LONG && head_id(line, len, &id, idbuf, sizeof idbuf);
    say(msg + strlen("mcp proxy: "));
    put_error(p, has_id ? &id : NULL, -32600, msg);
}

static void in_stop(proxy *p)
{
    if (p->in_reading && p->in_stream)
        uv_read_stop((uv_stream_t *)&p->in);
    p->in_reading = false;
}

static void in_eof(proxy *p)
{
    if (p->in_eof)
        return;
    p->in_eof = true;
    in_stop(p);
    mcp_line_reader_finish(p->lines, on_line, p);
    begin_end(p, 0, "the client's input ended");
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    proxy *p = h->data;
    (void)suggested;
    *buf = uv_buf_init(p->in_buf, sizeof p->in_buf);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    proxy *p = s->data;
    if (n > 0) {
        mcp_line_reader_feed(p->lines, buf->base, (size_t)n, on_line, p);
        if (p->phase == RUNNING && mcp_http_relay_unsettled(p->relay) > MAX_UNSETTLED) {
            in_stop(p); /* resumed by the tick */
            uv_timer_start(&p->tick, on_tick, TICK_MS, TICK_MS);
        }
    } else if (n == UV_EOF) {
        in_eof(p);
    } else if (n < 0) {
        say2("stdin failed (", uv_strerror((int)n), "): ending");
        in_eof(p);
    }
}

static void fs_read_next(proxy *p);

static void on_fs_read(uv_fs_t *req)
{
    proxy *p = req->data;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    p->in_fs_busy = false;
    if (n > 0) {
        mcp_line_reader_feed(p->lines, p->in_buf, (size_t)n, on_line, p);
        fs_read_next(p);
    } else {
        if (n < 0)
            say2("stdin failed (", uv_strerror((int)n), "): ending");
        in_eof(p);
    }
}

static void fs_read_next(proxy *p)
{
    if (p->phase != RUNNING || p->in_fs_busy || p->in_eof)
        return;
    if (mcp_http_relay_unsettled(p->relay) > MAX_UNSETTLED) {
        p->in_reading = false; /* resumed by the tick */
        uv_timer_start(&p->tick, on_tick, TICK_MS, TICK_MS);
        return;
    }
    p->in_reading = true;
    p->in_fs_busy = true;
    p->in_fs.data = p;
    uv_buf_t b = uv_buf_init(p->in_buf, sizeof p->in_buf);
    if (uv_fs_read(&p->loop, &p->in_fs, STDIN_FILENO, &b, 1, -1, on_fs_read) < 0) {
        p->in_fs_busy = false;
        in_eof(p);
    }
}

static void in_start(proxy *p)
{
    if (p->in_reading || p->in_eof || p->phase != RUNNING)
        return;
    if (!p->in_stream) {
        fs_read_next(p);
        return;
    }
    if (uv_read_start((uv_stream_t *)&p->in, on_alloc, on_read) == 0)
        p->in_reading = true;
    else
        in_eof(p);
}

/* The end --------------------------------------------------------------------------- */

static void on_closed(uv_handle_t *h)
{
    (void)h;
}

static void finish(proxy *p)
{
    if (p->phase == DONE)
        return;
    p->phase = DONE;
    mcp_http_relay_close(p->relay);
    p->relay = NULL;
    uv_close((uv_handle_t *)&p->tick, on_closed);
    uv_close((uv_handle_t *)&p->sigint, on_closed);
    uv_close((uv_handle_t *)&p->sigterm, on_closed);
    uv_close((uv_handle_t *)&p->sighup, on_closed);
    if (p->in_open)
        uv_close((uv_handle_t *)&p->in, on_closed);
    if (p->out_open && p->out_stream)
        uv_close((uv_handle_t *)&p->out, on_closed);
    if (p->hangup_fd >= 0)
        uv_close((uv_handle_t *)&p->hangup, on_closed);
    p->in_open = p->out_open = false;
}

static void on_tick(uv_timer_t *t)
{
    proxy *p = t->data;
    if (p->phase == RUNNING) {
        if (!p->in_reading && mcp_http_relay_unsettled(p->relay) <= MAX_UNSETTLED / 2)
            in_start(p);
        if (p->in_reading)
            uv_timer_stop(&p->tick);
        return;
    }
    if (p->phase != ENDING)
        return;
    bool late = now_ms() >= p->deadline;
    bool settled = mcp_http_relay_unsettled(p->relay) == 0;
    if (settled && !p->session_ended) {
        p->session_ended = true;
        mcp_http_relay_end_session(p->relay); /* 2025: DELETE */
        return;
    }
    bool flushed = p->out_failed || p->out_queued == 0;
    if ((settled && flushed && !p->in_fs_busy) || late) {
        if (late && !settled)
            say("the server had not settled after 2 s: leaving");
        finish(p);
    }
}

static void begin_end(proxy *p, int code, const char *why)
{
    if (p->phase != RUNNING)
        return;
    p->phase = ENDING;
    p->exit_code = code;
    p->deadline = now_ms() + END_WAIT_MS;
    in_stop(p);
    drop_held(p); /* never sent: their requests' cancels are harmless */
    cancel_all(p, why);
    uv_timer_start(&p->tick, on_tick, 0, TICK_MS);
}

static void on_signal(uv_signal_t *s, int signum)
{
    proxy *p = s->data;
    if (p->phase != RUNNING) {
        /* A second signal, or one while ending: at once, and said in the
         * exit status. */
        if (p->exit_code == 0)
            p->exit_code = signum == SIGINT ? EXIT_CANCELLED : signum == SIGTERM ? EXIT_TERMINATED
                                                                                : 128 + signum;
        finish(p);
        return;
    }
    /* SIGHUP: the terminal or the session that ran the proxy is gone,
     * the client with it; as SIGTERM, exit 129. */
    begin_end(p, signum == SIGINT ? EXIT_CANCELLED : signum == SIGTERM ? EXIT_TERMINATED : 128 + signum,
              signum == SIGINT    ? "the proxy was interrupted"
              : signum == SIGHUP  ? "the proxy's terminal hung up"
                                  : "the proxy was terminated");
}

/* Setting up ------------------------------------------------------------------------- */

static bool open_stream(proxy *p, int fd, void *h, bool *stream)
{
    uv_handle_type type = uv_guess_handle(fd);
    int rc;
    if (type == UV_TTY)
        rc = uv_tty_init(&p->loop, h, fd, fd == STDIN_FILENO);
    else if (type == UV_NAMED_PIPE || type == UV_TCP || type == UV_UDP || type == UV_UNKNOWN_HANDLE)
    {
        rc = uv_pipe_init(&p->loop, h, 0);
        if (rc == 0)
            rc = uv_pipe_open(h, fd);
    }
    else {
        *stream = false; /* a regular file, /dev/null */
        return true;
    }
    if (rc < 0) {
        if (type != UV_TTY)
            uv_close(h, on_closed); /* initialised, not opened */
        *stream = false;
        return type == UV_UNKNOWN_HANDLE; /* a descriptor libuv cannot watch: as a file */
    }
    ((uv_handle_t *)h)->data = p;
    *stream = true;
    return true;
}

static void on_hangup(uv_poll_t *h, int status, int events)
{
    proxy *p = h->data;
    (void)status, (void)events;
    /* libuv reports POLLERR as the events asked for (or as UV_EBADF):
     * asked again, plainly. */
    struct pollfd pf = {.fd = p->hangup_fd, .events = 0};
    if (status < 0 || (poll(&pf, 1, 0) == 1 && (pf.revents & (POLLERR | POLLHUP)))) {
        uv_poll_stop(h);
        output_failed(p, "the reader went away");
    }
}

/* Watch stdout's pipe for its reader going away (best effort: nothing
 * watched when it cannot be). */
static void watch_hangup(proxy *p)
{
    struct stat st;
    if (!p->out_stream || fstat(STDOUT_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode))
        return;
    int fd = dup(STDOUT_FILENO);
    if (fd < 0)
        return;
    if (uv_poll_init(&p->loop, &p->hangup, fd) != 0) {
        close(fd);
        return;
    }
    p->hangup.data = p;
    p->hangup_fd = fd;
    /* No event of a pipe's write end but its error: POLLPRI never comes. */
    if (uv_poll_start(&p->hangup, UV_PRIORITIZED, on_hangup) != 0)
        uv_poll_stop(&p->hangup);
}

static int usage_error(void)
{
    cli_usage("proxy", false);
    return EXIT_USAGE;
}

int cli_proxy(int argc, char **argv)
{
    cli_client_args a;
    memset(&a, 0, sizeof a);
    a.timeout = a.max_time = a.cancel_after = -1;
    size_t max_message = 0;
    for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--http"))
            return cli_proxy_http(argc, argv);
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            cli_usage("proxy", true);
            return 0;
        }
        if (!strcmp(s, "--max-message")) {
            const char *v = cli_option_value(argc, argv, i, "a number of bytes");
            char *end;
            errno = 0;
            unsigned long long n = v ? strtoull(v, &end, 10) : 0;
            if (!v || errno || *end || v[0] < '0' || v[0] > '9' || n < 1024 || n > (1ull << 30)) {
                if (v)
                    fprintf(stderr, "mcp: --max-message takes a number of bytes from 1024 to "
                                    "1073741824, not '%s'\n", cli_safe(v));
                return usage_error();
            }
            max_message = (size_t)n;
            i++;
            continue;
        }
        bool ours = !strcmp(s, "--url") || !strcmp(s, "--header") || !strcmp(s, "--ca-file") ||
                    !strcmp(s, "--protocol") || !strcmp(s, "--trace");
        int rc = ours ? cli_client_option(argc, argv, &i, &a) : 0;
        if (rc < 0)
            return usage_error();
        if (rc == 0) {
            fprintf(stderr, "mcp: proxy: unexpected argument '%s'\n", cli_safe(s));
            return usage_error();
        }
    }
    if (!a.url) {
        fputs("mcp: proxy needs --url URL (the Streamable HTTP server to offer on stdio)\n",
              stderr);
        return usage_error();
    }
    signal(SIGPIPE, SIG_IGN); /* a reader that goes away is EPIPE, seen */

    static proxy px; /* the loop and its handles: one per process */
    proxy *p = &px;
    memset(p, 0, sizeof *p);
    p->hangup_fd = -1;
    p->url = a.url;
    p->version = a.version;
    p->trace = a.trace;
    p->max_message = max_message ? max_message : MCP_LINE_DEFAULT_MAX;
    if (uv_loop_init(&p->loop) != 0) {
        fputs("mcp: proxy: cannot start the event loop\n", stderr);
        return EXIT_CONNECTION;
    }
    /* What mcp auth login kept, unless the user gives the header. */
    bool own = false;
    for (size_t i = 0; i < a.header_count; i++)
        own |= !strncasecmp(a.headers[i], "authorization:", 14);
    const mcp_oauth_options *oauth = own ? NULL : cli_auth_stored(a.url);
    mcp_http_relay_options ro = {.size = sizeof ro,
                                 .headers = a.headers,
                                 .ca_file = a.ca_file,
                                 .oauth = oauth,
                                 .max_message = p->max_message,
                                 .message = from_server,
                                 .oversized = server_oversized,
                                 .log = relay_log,
                                 .user_data = p};
    char err[320];
    int rc = mcp_http_relay_new(&p->loop, a.url, &ro, &p->relay, err, sizeof err);
    int code = 0;
    if (rc != MCP_OK) {
        fprintf(stderr, "mcp: proxy: %s\n", err[0] ? cli_safe(err) : mcp_strerror(rc));
        code = rc == MCP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_CONNECTION;
    }
    p->lines = code ? NULL : mcp_line_reader_new(p->max_message, NULL);
    if (!code && !p->lines) {
        fputs("mcp: proxy: out of memory\n", stderr);
        code = EXIT_CONNECTION;
    }
    if (!code) {
        uv_timer_init(&p->loop, &p->tick);
        p->tick.data = p;
        uv_signal_init(&p->loop, &p->sigint);
        uv_signal_init(&p->loop, &p->sigterm);
        uv_signal_init(&p->loop, &p->sighup);
        p->sigint.data = p->sigterm.data = p->sighup.data = p;
        uv_signal_start(&p->sigint, on_signal, SIGINT);
        uv_signal_start(&p->sigterm, on_signal, SIGTERM);
        uv_signal_start(&p->sighup, on_signal, SIGHUP);
        bool in_ok = open_stream(p, STDIN_FILENO, &p->in, &p->in_stream);
        p->in_open = in_ok && p->in_stream;
        bool out_ok = in_ok && open_stream(p, STDOUT_FILENO, &p->out, &p->out_stream);
        p->out_open = out_ok;
        if (!out_ok) {
            fputs("mcp: proxy: cannot use stdin or stdout\n", stderr);
            code = EXIT_CONNECTION;
            p->phase = ENDING;
            finish(p);
        } else {
            watch_hangup(p);
            in_start(p);
        }
    }
    while (uv_run(&p->loop, UV_RUN_DEFAULT) != 0)
        ;
    if (!code)
        code = p->exit_code;
    if (p->relay) /* not started */
        mcp_http_relay_close(p->relay), p->relay = NULL, uv_run(&p->loop, UV_RUN_DEFAULT);
    while (p->flights) {
        flight *f = p->flights;
        p->flights = f->next;
        mcp_id_release(&f->id, NULL);
        free(f);
    }
    mcp_line_reader_free(p->lines);
    drop_held(p);
    if (p->initializing)
        mcp_id_release(&p->init_id, NULL);
    if (p->hangup_fd >= 0)
        close(p->hangup_fd); /* its handle closed with the loop's run */
    uv_loop_close(&p->loop);
    cli_auth_stored_free();
    return code;
}
