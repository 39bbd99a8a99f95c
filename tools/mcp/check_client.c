/* SPDX-License-Identifier: MIT */
/*
 * mcp check-cancel --client [--protocol V] [--wait S] [--json] [--strict] [--trace]
 *                  -- COMMAND [ARG...]
 *
 * The other direction: plays a stdio server of 2025-11-25 (or, with
 * --protocol 2026-07-28, of that revision: server/discover, no
 * initialize, tasks as its extension makes them) to a client under test
 * and says what the client does when it gives up on a request. COMMAND is the client; the command of the server it is to
 * start is appended to it (this program, `check-cancel --relay SOCKET`,
 * which carries the client's stdio to the checker), as the conformance
 * suite appends its URL. Each scenario is one run of the client, named in
 * its environment (MCP_CHECK_CANCEL_SCENARIO) for clients that choose what
 * to do by it:
 *   timeout     a tool that never answers: a cancel for the call, with its
 *               id, when the client gives up; the late answer then sent is
 *               ignored (not answered, no crash)
 *   initialize  initialize never answered: the client never cancels it
 *               (2025-11-25 only)
 *   task        a tool that runs as a task, never finishing: cancelled with
 *               tasks/cancel, never notifications/cancelled
 * A scenario the client gives nothing to judge (it called no tool, made no
 * task, kept waiting) is SKIP, saying so. The client's timeout is its own:
 * --wait (default 20 s) bounds how long each scenario watches.
 *
 * check-cancel --relay SOCKET: stdin to the socket, the socket to stdout,
 * until either ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_cancel.h"
#include "cli.h"
#include "text.h"

extern char **environ;

#define MSGS_MAX 4096
#define MSGS_TELLING 512 /* of those, kept for what the verdicts read */
#define LINE_MAX_BYTES ((size_t)1 << 20)
/* How long after a late answer the client is watched for a reply to it. */
#define LATE_WATCH_MS 1000

typedef struct client_run {
    const char *scenario;
    bool modern; /* playing a 2026-07-28 server: discover, no initialize */
    int fd;      /* the relay's connection */
    pid_t pid;   /* the client */
    bool exited, killed;
    bool closed; /* the client closed the server's stdio (it stopped it) */
    int status;
    bool trace;
    mcp_line_reader *lines;
    check_msg msgs[MSGS_MAX];
    size_t n;
    size_t dropped; /* messages read and served but not kept */
    /* What the script saw, in the scenario's terms. */
    mcp_json_doc *held;   /* the id of the request held (its root) */
    const char *held_method;
    uint64_t held_at_us;
    bool task_made;       /* a task-augmented tools/call was answered with a task */
    bool task_cancelled;  /* tasks/cancel named it */
} client_run;

/* The relay ------------------------------------------------------------------------------ */

/* One direction of the relay: what was read and is not written yet. The
 * relay never blocks on a write while the other direction waits: a client
 * that writes much while the checker answers much would otherwise leave
 * both stuck writing into full buffers. */
#define RELAY_BUFFER ((size_t)8 << 20)

typedef struct relay_way {
    int from, to;
    char *buf;
    size_t len;
    bool eof; /* from ended (or failed) */
} relay_way;

/* Read what from has (while there is room); false at its end. */
static bool relay_read(relay_way *w)
{
    if (w->len >= RELAY_BUFFER)
        return true;
    ssize_t n = read(w->from, w->buf + w->len, RELAY_BUFFER - w->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    w->len += (size_t)n;
    return true;
}

/* Write what is held; false when to failed. */
static bool relay_write(relay_way *w)
{
    while (w->len) {
        ssize_t n = write(w->to, w->buf, w->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return true;
        if (n <= 0)
            return false;
        memmove(w->buf, w->buf + n, w->len - (size_t)n);
        w->len -= (size_t)n;
    }
    return true;
}

int check_cancel_relay(const char *path)
{
    signal(SIGPIPE, SIG_IGN);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        return EXIT_USAGE;
    memcpy(a.sun_path, path, strlen(path) + 1);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        fprintf(stderr, "mcp check-cancel --relay: cannot reach %s: %s\n", cli_safe(path),
                strerror(errno));
        return EXIT_CONNECTION;
    }
    relay_way up = {STDIN_FILENO, s, malloc(RELAY_BUFFER), 0, false};
    relay_way down = {s, STDOUT_FILENO, malloc(RELAY_BUFFER), 0, false};
    int fds[] = {STDIN_FILENO, STDOUT_FILENO, s};
    for (size_t i = 0; i < 3; i++)
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    bool failed = !up.buf || !down.buf;
    /* Until either side ends: then what is held for the other goes, and
     * the relay ends. */
    while (!failed && !(up.eof && !up.len) && !(down.eof && !down.len)) {
        struct pollfd p[4] = {
            {.fd = up.eof || up.len >= RELAY_BUFFER ? -1 : STDIN_FILENO, .events = POLLIN},
            {.fd = up.len ? s : -1, .events = POLLOUT},
            {.fd = down.eof || down.len >= RELAY_BUFFER ? -1 : s, .events = POLLIN},
            {.fd = down.len ? STDOUT_FILENO : -1, .events = POLLOUT},
        };
        if (poll(p, 4, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents && !relay_read(&up))
            up.eof = true;
        if (p[2].revents && !relay_read(&down))
            down.eof = true;
        if ((p[1].revents || up.len) && !relay_write(&up))
            failed = true;
        if ((p[3].revents || down.len) && !relay_write(&down))
            failed = true;
    }
    free(up.buf);
    free(down.buf);
    close(s);
    return 0;
}

/* The conversation ----------------------------------------------------------------------------- */

static void send_line(client_run *r, const char *line)
{
    if (r->trace)
        fprintf(stderr, "check-cancel --client <- %s\n", line);
    size_t len = strlen(line);
    char *l = malloc(len + 1);
    if (!l)
        return;
    memcpy(l, line, len);
    l[len] = '\n';
    for (size_t off = 0; off <= len;) {
        ssize_t w = write(r->fd, l + off, len + 1 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    free(l);
}

/* A response to the request whose id is id (JSON), result or error JSON. */
static void answer(client_run *r, const mcp_json *id, const char *member, const char *json)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_append(&b, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
    mcp_json_write(id, &b);
    mcp_buf_append(&b, ",\"", 2);
    mcp_buf_append(&b, member, strlen(member));
    mcp_buf_append(&b, "\":", 2);
    mcp_buf_append(&b, json, strlen(json));
    mcp_buf_append(&b, "}", 1);
    send_line(r, b.data);
    mcp_buf_free(&b);
}

static void hold(client_run *r, const mcp_json *id, const char *method)
{
    if (r->held)
        return;
    /* A copy of its own: the message's document goes with the list. */
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    if (mcp_json_write(id, &b) == MCP_OK)
        mcp_json_parse(b.data, b.len, NULL, NULL, &r->held, NULL);
    mcp_buf_free(&b);
    r->held_method = method;
    r->held_at_us = check_now_us();
}

static const mcp_json *held_id(const client_run *r)
{
    return r->held ? mcp_json_doc_root(r->held) : NULL;
}

static const char *const TASK =
    "{\"taskId\":\"check-task\",\"status\":\"%s\",\"createdAt\":\"2026-01-01T00:00:00Z\","
    "\"lastUpdatedAt\":\"2026-01-01T00:00:00Z\",\"ttl\":60000,\"pollInterval\":500}";
/* The tasks extension's (2026-07-28): the fields renamed, and every result
 * says what it is. */
static const char *const MODERN_TASK =
    "{\"resultType\":\"%s\",\"taskId\":\"check-task\",\"status\":\"%s\","
    "\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:00Z\","
    "\"ttlMs\":60000,\"pollIntervalMs\":500}";
#define TASKS_EXTENSION "io.modelcontextprotocol/tasks"

/* A 2026-07-28 request's client declared the tasks extension. */
static bool declares_tasks(const mcp_json *params)
{
    const mcp_json *caps = mcp_json_object_get(mcp_json_object_get(params, "_meta"),
                                               "io.modelcontextprotocol/clientCapabilities");
    return mcp_json_object_get(mcp_json_object_get(caps, "extensions"), TASKS_EXTENSION) != NULL;
}

/* tasks/get or tasks/cancel: of the played task, answered in the era's
 * form (2025-11-25: the task, cancelled for good by a cancel; the
 * extension: the task, and an empty acknowledgment of a cancel); of any
 * other, -32602. */
static void serve_task_request(client_run *r, const char *method, const mcp_json *id,
                               const mcp_json *params)
{
    bool cancel = !strcmp(method, "tasks/cancel");
    const char *tid = mcp_json_string(mcp_json_object_get(params, "taskId"), NULL);
    if (!r->task_made || !tid || strcmp(tid, "check-task")) {
        answer(r, id, "error", "{\"code\":-32602,\"message\":\"no such task\"}");
        return;
    }
    r->task_cancelled |= cancel;
    char buf[600];
    if (r->modern && cancel)
        snprintf(buf, sizeof buf, "{\"resultType\":\"complete\"}");
    else if (r->modern)
        snprintf(buf, sizeof buf, MODERN_TASK, "complete", "working");
    else
        snprintf(buf, sizeof buf, TASK, r->task_cancelled ? "cancelled" : "working");
    answer(r, id, "result", buf);
}

/* The 2026-07-28 side of serve(): server/discover instead of initialize,
 * resultType on every result, tasks as the extension makes them (the
 * server's choice, for a client that declared it). */
static void serve_modern(client_run *r, const char *method, const mcp_json *id,
                         const mcp_json *params)
{
    bool tasks = !strcmp(r->scenario, "task");
    char buf[600];
    if (!strcmp(method, "server/discover")) {
        snprintf(buf, sizeof buf,
                 "{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],"
                 "\"capabilities\":{\"tools\":{}%s},"
                 "\"serverInfo\":{\"name\":\"mcp-check-cancel\",\"version\":\"1\"}}",
                 tasks ? ",\"extensions\":{\"" TASKS_EXTENSION "\":{}}" : "");
        answer(r, id, "result", buf);
    } else if (!strcmp(method, "tools/list")) {
        answer(r, id, "result",
               "{\"resultType\":\"complete\",\"tools\":[{\"name\":\"slow\",\"description\":"
               "\"never answers\",\"inputSchema\":{\"type\":\"object\"}}]}");
    } else if (!strcmp(method, "tools/call")) {
        if (tasks && declares_tasks(params) && !r->task_made) {
            r->task_made = true;
            hold(r, id, "tools/call");
            snprintf(buf, sizeof buf, MODERN_TASK, "task", "working");
            answer(r, id, "result", buf);
        } else {
            hold(r, id, "tools/call"); /* never answered */
        }
    } else if (!strcmp(method, "tasks/get") || !strcmp(method, "tasks/cancel")) {
        serve_task_request(r, method, id, params);
    } else {
        /* initialize among them: a server of 2026-07-28 only. */
        answer(r, id, "error", "{\"code\":-32601,\"message\":\"Method not found\"}");
    }
}

/* The server's side of the scenario: what each request gets. */
static void serve(client_run *r, const mcp_json *root)
{
    const char *method = mcp_json_string(mcp_json_object_get(root, "method"), NULL);
    const mcp_json *id = mcp_json_object_get(root, "id");
    const mcp_json *params = mcp_json_object_get(root, "params");
    if (!method || !id)
        return; /* a notification, or a response: kept, judged later */
    if (r->modern) {
        serve_modern(r, method, id, params);
        return;
    }
    bool tasks = !strcmp(r->scenario, "task");
    char buf[600];
    if (!strcmp(method, "initialize")) {
        if (!strcmp(r->scenario, "initialize")) {
            hold(r, id, "initialize");
            return;
        }
        const char *v = mcp_json_string(mcp_json_object_get(params, "protocolVersion"), NULL);
        bool known = v && (!strcmp(v, "2025-11-25") || !strcmp(v, "2025-06-18") ||
                           !strcmp(v, "2025-03-26"));
        snprintf(buf, sizeof buf,
                 "{\"protocolVersion\":\"%s\",\"capabilities\":{\"tools\":{}%s},"
                 "\"serverInfo\":{\"name\":\"mcp-check-cancel\",\"version\":\"1\"}}",
                 known ? v : "2025-11-25",
                 tasks ? ",\"tasks\":{\"cancel\":{},\"requests\":{\"tools\":{\"call\":{}}}}" : "");
        answer(r, id, "result", buf);
    } else if (!strcmp(method, "ping")) {
        answer(r, id, "result", "{}");
    } else if (!strcmp(method, "tools/list")) {
        snprintf(buf, sizeof buf,
                 "{\"tools\":[{\"name\":\"slow\",\"description\":\"never answers\","
                 "\"inputSchema\":{\"type\":\"object\"}%s}]}",
                 tasks ? ",\"execution\":{\"taskSupport\":\"optional\"}" : "");
        answer(r, id, "result", buf);
    } else if (!strcmp(method, "tools/call")) {
        if (tasks && mcp_json_object_get(params, "task") && !r->task_made) {
            r->task_made = true;
            hold(r, id, "tools/call");
            char task[400], result[450];
            snprintf(task, sizeof task, TASK, "working");
            snprintf(result, sizeof result, "{\"task\":%s}", task);
            answer(r, id, "result", result);
        } else {
            hold(r, id, "tools/call"); /* never answered */
        }
    } else if (!strcmp(method, "tasks/get") || !strcmp(method, "tasks/cancel")) {
        serve_task_request(r, method, id, params);
    } else if (!strcmp(method, "tasks/result")) {
        /* Never ready: the task never ends by itself. */
    } else {
        answer(r, id, "error", "{\"code\":-32601,\"message\":\"Method not found\"}");
    }
}

/* What the verdicts read: responses, cancels, and the requests a scenario
 * is about (a ping is not). */
static bool telling(const mcp_json *root)
{
    const char *method = mcp_json_string(mcp_json_object_get(root, "method"), NULL);
    return !method || !strcmp(method, "notifications/cancelled") ||
           !strcmp(method, "tools/call") || !strncmp(method, "tasks/", 6) ||
           !strcmp(method, "initialize") || !strcmp(method, "server/discover");
}

static void on_line(void *ud, int status, const char *line, size_t len)
{
    client_run *r = ud;
    if (status != MCP_OK)
        return;
    if (r->trace)
        fprintf(stderr, "check-cancel --client -> %.*s\n", (int)len, line);
    mcp_json_doc *doc = NULL;
    const mcp_json *root = mcp_json_parse(line, len, NULL, NULL, &doc, NULL) == MCP_OK
                               ? mcp_json_doc_root(doc)
                               : NULL;
    /* Every request is served; past MSGS_MAX - MSGS_TELLING messages only
     * those the verdicts read are kept, so a chatty client is still read
     * (and judged) to the end of its scenario. */
    if (root)
        serve(r, root);
    bool kept = r->n < MSGS_MAX - MSGS_TELLING || (r->n < MSGS_MAX && root && telling(root));
    if (!kept) {
        mcp_json_doc_free(doc);
        r->dropped++;
        return;
    }
    check_msg *m = &r->msgs[r->n++];
    m->at_us = check_now_us();
    m->stream = -1;
    m->doc = doc;
    m->root = root;
}

static void reap(client_run *r)
{
    int st;
    if (!r->exited && r->pid > 0 && waitpid(r->pid, &st, WNOHANG) == r->pid) {
        r->exited = true;
        r->status = st;
    }
}

/* Read what the client sends for up to ms, until done (when given) says
 * enough; false once the conversation ended. */
static bool pump(client_run *r, uint64_t ms, bool (*done)(client_run *r))
{
    uint64_t until = check_now_us() + ms * 1000;
    while (r->fd >= 0 && (!done || !done(r))) {
        uint64_t now = check_now_us();
        if (now >= until)
            return true;
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        uint64_t left = (until - now) / 1000;
        int got = poll(&p, 1, (int)(left > 100 ? 100 : left + 1));
        reap(r);
        if (got <= 0)
            continue;
        char buf[65536];
        ssize_t n = read(r->fd, buf, sizeof buf);
        if (n <= 0) {
            mcp_line_reader_finish(r->lines, on_line, r);
            close(r->fd);
            r->fd = -1;
            r->closed = true;
            return false;
        }
        mcp_line_reader_feed(r->lines, buf, (size_t)n, on_line, r);
    }
    return r->fd >= 0;
}

/* The scenario's client, started with the relay's command appended, and
 * its connection once the relay made it. MCP_OK, or why. */
static int start(client_run *r, char **command, const char *self, uint64_t wait_ms, char *why,
                 size_t n)
{
    char dir[] = "/tmp/mcp-check-client-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(why, n, "cannot make a directory for the socket: %s", strerror(errno));
        return MCP_ERR_IO;
    }
    char path[64];
    snprintf(path, sizeof path, "%s/s", dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0) {
        snprintf(why, n, "cannot listen on %s: %s", path, strerror(errno));
        if (l >= 0)
            close(l);
        rmdir(dir);
        return MCP_ERR_IO;
    }
    size_t argc = 0;
    while (command[argc])
        argc++;
    char **argv = calloc(argc + 5, sizeof *argv);
    char env[64];
    snprintf(env, sizeof env, "MCP_CHECK_CANCEL_SCENARIO=%s", r->scenario);
    size_t envc = 0;
    while (environ[envc])
        envc++;
    char **envp = calloc(envc + 2, sizeof *envp);
    if (!argv || !envp) {
        free(argv);
        free(envp);
        close(l);
        unlink(path);
        rmdir(dir);
        return MCP_ERR_NOMEM;
    }
    memcpy(argv, command, argc * sizeof *argv);
    argv[argc] = (char *)self;
    argv[argc + 1] = "check-cancel";
    argv[argc + 2] = "--relay";
    argv[argc + 3] = path;
    size_t k = 0;
    for (size_t i = 0; i < envc; i++)
        if (strncmp(environ[i], "MCP_CHECK_CANCEL_SCENARIO=", 26))
            envp[k++] = environ[i];
    envp[k++] = env;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (!r->trace)
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawnp(&r->pid, command[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    free(envp);
    if (rc != 0) {
        snprintf(why, n, "cannot start %s: %s", command[0], strerror(rc));
        close(l);
        unlink(path);
        rmdir(dir);
        return MCP_ERR_SPAWN;
    }
    struct pollfd p = {.fd = l, .events = POLLIN};
    uint64_t until = check_now_us() + wait_ms * 1000;
    r->fd = -1;
    while (r->fd < 0 && check_now_us() < until && !r->exited) {
        if (poll(&p, 1, 100) > 0 && (r->fd = accept(l, NULL, NULL)) >= 0)
            fcntl(r->fd, F_SETFD, FD_CLOEXEC);
        reap(r);
    }
    close(l);
    unlink(path);
    rmdir(dir);
    if (r->fd < 0 && r->exited && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 127) {
        /* posix_spawn reports a missing program as an exit of 127 where
         * it forks first (as under valgrind). */
        snprintf(why, n, "cannot start %s: not found, or not executable", command[0]);
        return MCP_ERR_SPAWN;
    }
    if (r->fd < 0) {
        snprintf(why, n, "the client %s the server's command within %llu s",
                 r->exited ? "exited without running" : "did not run",
                 (unsigned long long)(wait_ms / 1000));
        return MCP_ERR_TIMED_OUT;
    }
    return MCP_OK;
}

/* The client ends: its connection closed, 2 s to exit, then TERM, then KILL. */
static void finish(client_run *r)
{
    if (r->fd >= 0) {
        close(r->fd);
        r->fd = -1;
    }
    for (int i = 0; i < 40 && !r->exited; i++) {
        usleep(50 * 1000);
        reap(r);
    }
    if (!r->exited && r->pid > 0) {
        r->killed = true;
        kill(r->pid, SIGTERM);
        for (int i = 0; i < 20 && !r->exited; i++) {
            usleep(50 * 1000);
            reap(r);
        }
        if (!r->exited) {
            kill(r->pid, SIGKILL);
            waitpid(r->pid, &r->status, 0);
            r->exited = true;
        }
    }
    for (size_t i = 0; i < r->n; i++)
        mcp_json_doc_free(r->msgs[i].doc);
    r->n = 0;
    mcp_json_doc_free(r->held);
    r->held = NULL;
    mcp_line_reader_free(r->lines);
    r->lines = NULL;
}

/* Judging -------------------------------------------------------------------------------------- */

static bool is_method(const mcp_json *root, const char *method)
{
    const char *m = mcp_json_string(mcp_json_object_get(root, "method"), NULL);
    return m && !strcmp(m, method);
}

/* The first notifications/cancelled from index from on, or NULL. */
static const check_msg *cancel_from(const client_run *r, size_t from)
{
    for (size_t i = from; i < r->n; i++)
        if (r->msgs[i].root && is_method(r->msgs[i].root, "notifications/cancelled"))
            return &r->msgs[i];
    return NULL;
}

/* Whether two ids are the same JSON value of the same type. */
static bool same_id(const mcp_json *a, const mcp_json *b)
{
    mcp_buf x, y;
    mcp_buf_init(&x, 0, NULL);
    mcp_buf_init(&y, 0, NULL);
    bool same = a && b && mcp_json_write(a, &x) == MCP_OK && mcp_json_write(b, &y) == MCP_OK &&
                x.len == y.len && !memcmp(x.data, y.data, x.len);
    mcp_buf_free(&x);
    mcp_buf_free(&y);
    return same;
}

static const mcp_json *cancelled_id(const check_msg *m)
{
    return mcp_json_object_get(mcp_json_object_get(m->root, "params"), "requestId");
}

static bool gave_up(client_run *r)
{
    reap(r);
    return r->exited || r->closed || cancel_from(r, 0) || (r->task_made && r->task_cancelled);
}

static bool crashed(const client_run *r)
{
    return r->exited && !r->killed && WIFSIGNALED(r->status) &&
           WTERMSIG(r->status) != SIGTERM && WTERMSIG(r->status) != SIGINT;
}

static void run_timeout(client_run *r, check_results *out, uint64_t wait_ms)
{
    pump(r, wait_ms, gave_up);
    const char *rule = r->modern ? "basic/patterns/cancellation.mdx Timeouts (2026-07-28): SHOULD "
                                   "send a cancel"
                                 : "basic/lifecycle.mdx Timeouts (2025-11-25): SHOULD issue a cancel";
    /* Kept by check_add as they are: literals. */
    const char *late_rule =
        r->modern ? "basic/patterns/cancellation.mdx: the sender SHOULD ignore a later response"
                  : "basic/utilities/cancellation.mdx: the sender SHOULD ignore a later response";
    const char *id_rule = r->modern
                              ? "basic/patterns/cancellation.mdx: requestId MUST be the request's id"
                              : "basic/utilities/cancellation.mdx: requestId MUST be the request's id";
    if (!r->held || strcmp(r->held_method, "tools/call")) {
        check_add(out, "timeout.sends-cancel", "SHOULD", rule, CHECK_SKIP,
                  "the client called no tool within %llu s", (unsigned long long)(wait_ms / 1000));
        check_add(out, "timeout.late-ignored", "SHOULD",
                  late_rule,
                  CHECK_SKIP, "no cancel to answer late");
        return;
    }
    const check_msg *c = cancel_from(r, 0);
    if (!c) {
        check_add(out, "timeout.sends-cancel", "SHOULD", rule,
                  r->exited || r->closed ? CHECK_WARN : CHECK_SKIP,
                  r->exited || r->closed
                      ? "the client gave up on the call without notifications/cancelled"
                            : "the client still waited after %llu s: nothing to judge",
                  (unsigned long long)(wait_ms / 1000));
        check_add(out, "timeout.late-ignored", "SHOULD",
                  late_rule,
                  CHECK_SKIP, "no cancel to answer late");
        return;
    }
    if (!same_id(cancelled_id(c), held_id(r))) {
        mcp_buf b;
        mcp_buf_init(&b, 200, NULL);
        mcp_json_write(cancelled_id(c) ? cancelled_id(c) : held_id(r), &b);
        check_add(out, "timeout.sends-cancel", "MUST",
                  id_rule,
                  CHECK_FAIL, "the cancel names requestId %s, not the call's id",
                  b.data ? b.data : "(none)");
        mcp_buf_free(&b);
    } else {
        check_add(out, "timeout.sends-cancel", "SHOULD", rule, CHECK_PASS,
                  "notifications/cancelled for the call %.0f ms after it was sent",
                  (double)(c->at_us - r->held_at_us) / 1000.0);
    }
    /* The answer, late: a reply to it, or a crash, is not ignoring it. */
    size_t before = r->n;
    answer(r, held_id(r), "result", "{\"content\":[{\"type\":\"text\",\"text\":\"late\"}]}");
    pump(r, LATE_WATCH_MS, NULL);
    reap(r);
    bool replied = false;
    for (size_t i = before; i < r->n; i++)
        replied |= r->msgs[i].root && !mcp_json_object_get(r->msgs[i].root, "method") &&
                   same_id(mcp_json_object_get(r->msgs[i].root, "id"), held_id(r));
    check_add(out, "timeout.late-ignored", "SHOULD",
              late_rule,
              replied || crashed(r) ? CHECK_WARN : CHECK_PASS,
              replied      ? "the client answered the late response"
              : crashed(r) ? "the client died of signal %d after the late response"
                           : "the late response was not answered and the client did not crash",
              crashed(r) ? WTERMSIG(r->status) : 0);
}

static void run_initialize(client_run *r, check_results *out, uint64_t wait_ms)
{
    pump(r, wait_ms, gave_up);
    const char *rule = "basic/utilities/cancellation.mdx: initialize MUST NOT be cancelled";
    if (!r->held) {
        check_add(out, "initialize.not-cancelled", "MUST", rule, CHECK_SKIP,
                  "the client sent no initialize (a 2026-07-28 client?)");
        return;
    }
    const check_msg *c = cancel_from(r, 0);
    if (c && same_id(cancelled_id(c), held_id(r)))
        check_add(out, "initialize.not-cancelled", "MUST", rule, CHECK_FAIL,
                  "notifications/cancelled for initialize %.0f ms after it was sent",
                  (double)(c->at_us - r->held_at_us) / 1000.0);
    else if (r->exited || r->closed || c)
        check_add(out, "initialize.not-cancelled", "MUST", rule, CHECK_PASS,
                  "the client gave up on initialize without cancelling it");
    else
        check_add(out, "initialize.not-cancelled", "MUST", rule, CHECK_SKIP,
                  "the client still waited for initialize after %llu s: nothing to judge",
                  (unsigned long long)(wait_ms / 1000));
}

static void run_task(client_run *r, check_results *out, uint64_t wait_ms)
{
    pump(r, wait_ms, gave_up);
    const char *rule = r->modern ? "the tasks extension (2026-07-28): a task is cancelled with "
                                   "tasks/cancel, never notifications/cancelled"
                                 : "basic/utilities/tasks.mdx (2025-11-25): a task is cancelled "
                                   "with tasks/cancel, never notifications/cancelled";
    if (!r->task_made) {
        check_add(out, "task.tasks-cancel", "MUST", rule, CHECK_SKIP,
                  r->modern ? "the client called no tool declaring the tasks extension"
                            : "the client made no task-augmented call");
        return;
    }
    const check_msg *wrong = NULL;
    for (size_t i = 0; i < r->n && !wrong; i++)
        if (r->msgs[i].root && is_method(r->msgs[i].root, "notifications/cancelled") &&
            same_id(cancelled_id(&r->msgs[i]), held_id(r)))
            wrong = &r->msgs[i];
    if (wrong)
        check_add(out, "task.tasks-cancel", "MUST", rule, CHECK_FAIL,
                  "notifications/cancelled for the task's tools/call%s",
                  r->task_cancelled ? " (and tasks/cancel)" : "");
    else if (r->task_cancelled)
        check_add(out, "task.tasks-cancel", "MUST", rule, CHECK_PASS,
                  "tasks/cancel named the task");
    else
        check_add(out, "task.tasks-cancel", "MUST", rule, CHECK_SKIP,
                  "the client %s without cancelling the task",
                  r->exited || r->closed ? "ended" : "kept waiting");
}

int check_cancel_client(char **argv, const char *self, const char *version, uint64_t wait_ms,
                        bool json, bool strict, bool trace)
{
    signal(SIGPIPE, SIG_IGN);
    bool modern = version && mcp_protocol_modern(version);
    if (!version)
        version = "2025-11-25";
    static const char *const scenarios[] = {"timeout", "initialize", "task"};
    void (*const runs[])(client_run *, check_results *, uint64_t) = {run_timeout,
                                                                     run_initialize, run_task};
    check_results out = {0};
    for (size_t s = 0; s < 3; s++) {
        if (modern && runs[s] == run_initialize)
            continue; /* 2026-07-28 has no initialize */
        client_run r = {.scenario = scenarios[s], .fd = -1, .trace = trace, .modern = modern};
        r.lines = mcp_line_reader_new(LINE_MAX_BYTES, NULL);
        char why[300];
        int rc = r.lines ? start(&r, argv, self, wait_ms, why, sizeof why) : MCP_ERR_NOMEM;
        if (rc != MCP_OK) {
            finish(&r);
            fprintf(stderr, "mcp check-cancel --client: %s\n", cli_safe(why));
            return rc == MCP_ERR_SPAWN ? EXIT_USAGE : EXIT_CONNECTION;
        }
        runs[s](&r, &out, wait_ms);
        finish(&r);
    }
    size_t fails, warns;
    int code = check_results_exit(&out, strict, &fails, &warns);
    if (json) {
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *root = d ? mcp_json_new_object(d) : NULL;
        if (!root) {
            mcp_json_doc_free(d);
            fputs("mcp check-cancel: out of memory for the report\n", stderr);
            return EXIT_CONNECTION;
        }
        mcp_json_object_set(d, root, "role", mcp_json_new_string(d, "client"));
        mcp_json_object_set(d, root, "protocol", mcp_json_new_string(d, version));
        mcp_json_object_set(d, root, "transport", mcp_json_new_string(d, "stdio"));
        mcp_json_object_set(d, root, "checks", check_results_json(&out, d));
        cli_print_json(root);
        mcp_json_doc_free(d);
    } else {
        printf("mcp check-cancel --client: %s, played a %s stdio server\n", cli_safe(argv[0]),
               version);
        check_results_table(&out);
        printf("%zu failed, %zu warned\n", fails, warns);
    }
    return code;
}
