/* SPDX-License-Identifier: MIT */
/*
 * The checker's side of a stdio conversation with a server it did not
 * write: the server started with pipes, lines written as they are given
 * (the checker sends what no well-behaved client would: cancels of
 * unknown ids, malformed params, an id of the other JSON type), every line
 * read kept with the time it arrived, so that a check can ask what came
 * for a request, and when. Requests of the server's own are answered at
 * once (ping with {}, anything else with -32601), so that it never waits
 * on us.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_cancel.h"

extern char **environ;

#define LINE_CAP ((size_t)4 << 20)

/* What is kept of a server's messages: a server that floods (progress
 * without end, a stream of garbage) is read no further past these, and is
 * taken for gone. */
#define KEPT_MAX 200000
#define KEPT_BYTES_MAX ((size_t)32 << 20)
/* Read per turn, so that a server that never stops writing still lets
 * the checks' clocks run. */
#define READ_PER_PUMP 16

struct check_peer {
    pid_t pid;
    int in, out; /* its stdin (we write), its stdout (we read) */
    mcp_buf partial;
    check_msg *msgs;
    size_t count, cap;
    size_t kept_bytes;
    bool eof, trace, flooded;
    check_http *http; /* an HTTP conversation: no process, no pipes */
};

int check_peer_start_http(check_peer **out, const char *url, char *const *headers,
                          size_t nheaders, bool trace, char *why, size_t n)
{
    check_peer *p = calloc(1, sizeof *p);
    if (!p)
        return MCP_ERR_NOMEM;
    p->pid = -1;
    p->in = p->out = -1;
    p->trace = trace;
    mcp_buf_init(&p->partial, LINE_CAP, NULL);
    int rc = check_http_open(&p->http, p, url, headers, nheaders, trace, why, n);
    if (rc != MCP_OK) {
        mcp_buf_free(&p->partial);
        free(p);
        return rc;
    }
    *out = p;
    return MCP_OK;
}

bool check_peer_http(const check_peer *p)
{
    return p->http != NULL;
}

check_http *check_peer_http_of(check_peer *p)
{
    return p->http;
}

/* The process group of the server under check (its own), for the signal
 * handler: a checker ended by a signal ends its server first, which may
 * ignore SIGTERM and the end of its input (one did, and outlived us). */
static volatile sig_atomic_t live_group;

static void end_server_and_die(int sig)
{
    pid_t g = (pid_t)live_group;
    if (g > 0 && kill(-g, SIGTERM) == 0) {
        /* Half a second to end (it may have cleaning up to do), then
         * SIGKILL. kill, nanosleep, signal and raise are all
         * async-signal-safe. */
        struct timespec step = {0, 50 * 1000 * 1000};
        for (int i = 0; i < 10 && kill(-g, 0) == 0; i++)
            nanosleep(&step, NULL);
        kill(-g, SIGKILL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void check_peer_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) {
            struct sigaction sa = {.sa_handler = end_server_and_die};
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, NULL);
        }
    }
}

int check_peer_start(check_peer **out, char **argv, bool trace, char *why, size_t n)
{
    *out = NULL;
    int to[2], from[2];
    if (pipe(to) || pipe(from)) {
        snprintf(why, n, "pipe: %s", strerror(errno));
        return MCP_ERR_IO;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    if (!trace)
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, to[1]);
    posix_spawn_file_actions_addclose(&fa, from[0]);
    /* A group of its own: ended whole, a wrapper's server with it. */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(to[0]);
    close(from[1]);
    if (rc != 0) {
        close(to[1]);
        close(from[0]);
        snprintf(why, n, "cannot start %s: %s", argv[0], strerror(rc));
        return MCP_ERR_SPAWN;
    }
    live_group = pid;
    check_peer *p = calloc(1, sizeof *p);
    if (!p) {
        kill(-pid, SIGKILL);
        live_group = 0; /* before the reaping frees its id */
        waitpid(pid, NULL, 0);
        return MCP_ERR_NOMEM;
    }
    p->pid = pid;
    p->in = to[1];
    p->out = from[0];
    p->trace = trace;
    fcntl(p->out, F_SETFL, fcntl(p->out, F_GETFL) | O_NONBLOCK);
    mcp_buf_init(&p->partial, LINE_CAP, NULL);
    *out = p;
    return MCP_OK;
}

int check_peer_post(check_peer *p, const char *line, int *stream)
{
    if (stream)
        *stream = -1;
    if (p->http) {
        int st;
        int rc = check_http_post(p->http, line, &st);
        if (stream)
            *stream = st;
        return rc;
    }
    return check_peer_send(p, line);
}

int check_peer_send(check_peer *p, const char *line)
{
    if (p->http)
        return check_http_post(p->http, line, NULL);
    if (p->trace)
        fprintf(stderr, "check-cancel -> %s\n", line);
    size_t len = strlen(line);
    struct piece {
        const char *b;
        size_t n;
    } parts[2] = {{line, len}, {"\n", 1}};
    for (int i = 0; i < 2; i++)
        for (size_t off = 0; off < parts[i].n;) {
            ssize_t w = write(p->in, parts[i].b + off, parts[i].n - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return MCP_ERR_CLOSED;
            off += (size_t)w;
        }
    return MCP_OK;
}

/* The server's own request answered, so that it never waits on us. */
static void answer(check_peer *p, const mcp_json *root)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    const char *method = mcp_json_string(mcp_json_object_get(root, "method"), NULL);
    mcp_buf_append(&b, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
    mcp_json_write(mcp_json_object_get(root, "id"), &b);
    if (method && !strcmp(method, "ping"))
        mcp_buf_append(&b, ",\"result\":{}}", 13);
    else
        mcp_buf_append(&b, ",\"error\":{\"code\":-32601,\"message\":\"the checker answers nothing\"}}",
                       66);
    check_peer_send(p, b.data);
    mcp_buf_free(&b);
}

void check_peer_keep(check_peer *p, int stream, const char *line, size_t len)
{
    if (p->flooded)
        return;
    p->kept_bytes += len + sizeof(check_msg);
    if (p->count >= KEPT_MAX || p->kept_bytes > KEPT_BYTES_MAX) {
        p->flooded = p->eof = true;
        fprintf(stderr, "mcp check-cancel: the server sent over %zu messages or %zu MiB: it is "
                        "read no further, as if gone\n",
                (size_t)KEPT_MAX, KEPT_BYTES_MAX >> 20);
        return;
    }
    if (p->trace)
        fprintf(stderr, "check-cancel <- %.*s\n", (int)(len < 2000 ? len : 2000), line);
    mcp_json_doc *d = NULL;
    if (mcp_json_parse(line, len, NULL, NULL, &d, NULL) != MCP_OK) {
        mcp_json_doc_free(d);
        d = NULL;
    }
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        check_msg *m = realloc(p->msgs, cap * sizeof *m);
        if (!m) {
            mcp_json_doc_free(d);
            return;
        }
        p->msgs = m;
        p->cap = cap;
    }
    check_msg *m = &p->msgs[p->count++];
    m->at_us = check_now_us();
    m->doc = d;
    m->root = d ? mcp_json_doc_root(d) : NULL;
    m->stream = stream;
    const mcp_json *id = mcp_json_object_get(m->root, "id");
    if (m->root && id && mcp_json_object_get(m->root, "method"))
        answer(p, m->root);
}

/* What is there to read, read; false at the end of its output. */
static bool pump(check_peer *p, int timeout_ms)
{
    if (p->http) {
        p->eof = !check_http_pump(p->http, timeout_ms) || p->flooded;
        return !p->eof;
    }
    if (p->eof)
        return false;
    struct pollfd pf = {p->out, POLLIN, 0};
    if (poll(&pf, 1, timeout_ms) <= 0)
        return true;
    char chunk[65536];
    for (int reads = 0; reads < READ_PER_PUMP && !p->flooded; reads++) {
        ssize_t r = read(p->out, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return true; /* EAGAIN: all read */
        if (r == 0) {
            p->eof = true;
            return false;
        }
        for (ssize_t i = 0, start = 0; i <= r; i++) {
            if (i == r || chunk[i] == '\n') {
                size_t piece = (size_t)(i - start);
                if (i == r) {
                    if (mcp_buf_append(&p->partial, chunk + start, piece) != MCP_OK)
                        mcp_buf_reset(&p->partial); /* a line over the cap is dropped */
                    break;
                }
                if (p->partial.len) {
                    if (mcp_buf_append(&p->partial, chunk + start, piece) == MCP_OK)
                        check_peer_keep(p, -1, p->partial.data, p->partial.len);
                    mcp_buf_reset(&p->partial);
                } else if (piece) {
                    check_peer_keep(p, -1, chunk + start, piece);
                }
                start = i + 1;
            }
        }
    }
    return !p->eof;
}

const check_msg *check_peer_wait(check_peer *p, size_t from, check_match match, void *ud,
                                 uint64_t timeout_ms, size_t *index)
{
    uint64_t end = check_now_us() + timeout_ms * 1000;
    for (size_t i = from;;) {
        for (; i < p->count; i++)
            if (p->msgs[i].root && match(&p->msgs[i], ud)) {
                if (index)
                    *index = i;
                return &p->msgs[i];
            }
        uint64_t now = check_now_us();
        if (now >= end || p->eof)
            return NULL;
        uint64_t left = (end - now) / 1000;
        pump(p, (int)(left < 50 ? (left ? left : 1) : 50));
    }
}

void check_peer_drain(check_peer *p, uint64_t ms)
{
    uint64_t end = check_now_us() + ms * 1000;
    for (uint64_t now; (now = check_now_us()) < end && pump(p, (int)((end - now) / 1000 + 1));)
        ;
}

size_t check_peer_count(const check_peer *p)
{
    return p->count;
}

const check_msg *check_peer_msg(const check_peer *p, size_t i)
{
    return i < p->count ? &p->msgs[i] : NULL;
}

bool check_peer_gone(const check_peer *p)
{
    return p->eof;
}

bool check_peer_flooded(const check_peer *p)
{
    return p->flooded;
}

void check_peer_stop(check_peer *p)
{
    if (!p)
        return;
    if (p->http) {
        check_http_close(p->http);
        goto reaped;
    }
    close(p->in);
    /* A second to end on its own, then TERM, then KILL: its exit seen
     * without reaping it (WNOWAIT), so that its group's id is still ours
     * when what it left behind there is killed. */
    siginfo_t si;
    for (int i = 0; i < 40; i++) {
        if (i == 20)
            kill(-p->pid, SIGTERM);
        si.si_pid = 0;
        if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
            break;
        usleep(50000);
    }
    kill(-p->pid, SIGKILL);
    live_group = 0;
    waitpid(p->pid, NULL, 0);
reaped:
    if (p->out >= 0)
        close(p->out);
    for (size_t i = 0; i < p->count; i++)
        mcp_json_doc_free(p->msgs[i].doc);
    free(p->msgs);
    mcp_buf_free(&p->partial);
    free(p);
}
