/* SPDX-License-Identifier: MIT */
/*
 * Streamable HTTP under 2026-07-28: the server runs on a thread of this
 * process, the clients are plain sockets in a child process (so that the
 * two sides' descriptors do not share one limit, and the server's memory is
 * its own).
 *
 *   http disconnect to cancel us: p50=<n> p99=<n>
 *     a client POSTs a call, waits until the handler runs, closes its
 *     connection: the time until the handler's cancel callback runs (the
 *     goal: p99 <= 10000).
 *   http open listen streams: <n> rss_per_stream=<bytes>
 *     n clients each hold a subscriptions/listen stream, acknowledged: the
 *     server's resident memory per stream (the goal: 10000 streams, at
 *     most 16 KiB each).
 *
 *   bench_http_streams [CANCELS [STREAMS]]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcp/mcp.h"

static mcp_server *server;
/* Pipes: the handler ran; it was cancelled (the time); the child's ports,
 * results and steps. */
static int started[2], cancelled[2], to_child[2], from_child[2];

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_cancel(void *ud)
{
    mcp_call *c = ud;
    uint64_t t = now_ns();
    if (write(cancelled[1], &t, sizeof t) != sizeof t)
        abort();
    mcp_call_finish(c);
}

/* Runs until its client goes away. */
static void tool_wait(void *ud, mcp_call *c)
{
    (void)ud;
    if (mcp_cancel_token_on_cancel(mcp_call_cancel_token(c), on_cancel, c) != MCP_OK)
        abort();
    if (write(started[1], "s", 1) != 1)
        abort();
}

static void *serve(void *arg)
{
    (void)arg;
    mcp_server_run(server);
    return NULL;
}

static int dial(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        perror("bench_http_streams: connect");
        exit(1);
    }
    return fd;
}

static void post(int fd, unsigned port, const char *method, const char *name, const char *body)
{
    char req[2048];
    int n = snprintf(req, sizeof req,
                     "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                     "Mcp-Method: %s\r\n%s%s%sContent-Length: %zu\r\n\r\n%s",
                     port, method, name ? "Mcp-Name: " : "", name ? name : "", name ? "\r\n" : "",
                     strlen(body), body);
    if (write(fd, req, (size_t)n) != n) {
        perror("bench_http_streams: write");
        exit(1);
    }
}

static void read_all(int fd, void *p, size_t n)
{
    if (read(fd, p, n) != (ssize_t)n) {
        perror("bench_http_streams: read");
        exit(1);
    }
}

static void wait_byte(int fd)
{
    char b;
    read_all(fd, &b, 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
             "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static void disconnects(unsigned port, int n)
{
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"wait\",\"arguments\":{}," META "}}";
    uint64_t *lat = calloc((size_t)n, sizeof *lat);
    for (int i = 0; i < n; i++) {
        int fd = dial(port);
        post(fd, port, "tools/call", "wait", body);
        wait_byte(started[0]);
        uint64_t t0 = now_ns(), t1;
        close(fd);
        read_all(cancelled[0], &t1, sizeof t1);
        lat[i] = (t1 - t0) / 1000;
    }
    qsort(lat, (size_t)n, sizeof *lat, cmp_u64);
    printf("http disconnect to cancel us: p50=%llu p99=%llu\n",
           (unsigned long long)lat[n / 2], (unsigned long long)lat[(size_t)n * 99 / 100]);
    free(lat);
}

static long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * sysconf(_SC_PAGESIZE);
}

/* Read until the acknowledgement of the listen arrives on fd. */
static void wait_ack(int fd)
{
    char buf[4096];
    size_t have = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 10000) != 1) {
            fputs("bench_http_streams: no acknowledgement\n", stderr);
            exit(1);
        }
        ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
        if (r <= 0) {
            fputs("bench_http_streams: a listen stream closed\n", stderr);
            exit(1);
        }
        have += (size_t)r;
        buf[have] = '\0';
        if (strstr(buf, "subscriptions/acknowledged"))
            return;
        if (have == sizeof buf - 1)
            have = 0;
    }
}

/* The child: n listen streams, acknowledged, then held until told. */
static void streams(unsigned port, int n)
{
    const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":"
                       "{\"notifications\":{\"toolsListChanged\":true}," META "}}";
    int *fds = calloc((size_t)n, sizeof *fds);
    for (int i = 0; i < n; i++) {
        fds[i] = dial(port);
        post(fds[i], port, "subscriptions/listen", NULL, body);
        wait_ack(fds[i]);
    }
    if (write(from_child[1], "h", 1) != 1)
        exit(1);
    wait_byte(to_child[0]);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    free(fds);
}

static void child(int cancels, int nstreams)
{
    unsigned port;
    read_all(to_child[0], &port, sizeof port);
    disconnects(port, cancels);
    fflush(stdout);
    streams(port, nstreams);
    exit(0);
}

int main(int argc, char **argv)
{
    int cancels = argc > 1 ? atoi(argv[1]) : 1000;
    int nstreams = argc > 2 ? atoi(argv[2]) : 10000;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < (rlim_t)nstreams + 100)
            nstreams = (int)(rl.rlim_cur - 100);
    }
    if (pipe(started) || pipe(cancelled) || pipe(to_child) || pipe(from_child))
        return 1;
    fflush(stdout);
    pid_t kid = fork();
    if (kid < 0)
        return 1;
    if (kid == 0)
        child(cancels, nstreams);
    mcp_server_options so = {.size = sizeof so, .log_level = MCP_LOG_ERROR,
                             .max_in_flight = 100000};
    mcp_tool t = {.size = sizeof t, .name = "wait", .handler = tool_wait};
    if (mcp_server_new(&so, &server) != MCP_OK || mcp_server_add_tool(server, &t) != MCP_OK)
        return 1;
    mcp_server_http_options ho = {.size = sizeof ho, .max_connections = (unsigned)nstreams + 100,
                                  .keepalive_ms = 600000};
    if (mcp_server_listen_http(server, &ho) != MCP_OK)
        return 1;
    unsigned port = mcp_server_http_port(server);
    pthread_t th;
    pthread_create(&th, NULL, serve, NULL);
    long before = rss_bytes();
    if (write(to_child[1], &port, sizeof port) != sizeof port)
        return 1;
    wait_byte(from_child[0]); /* the disconnects are done, the streams held */
    long after = rss_bytes();
    printf("http open listen streams: %d rss_per_stream=%ld\n", nstreams,
           nstreams ? (after - before) / nstreams : 0);
    if (write(to_child[1], "x", 1) != 1)
        return 1;
    waitpid(kid, NULL, 0);
    mcp_server_stop(server);
    pthread_join(th, NULL);
    mcp_server_free(server);
    return 0;
}
