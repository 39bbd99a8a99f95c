/* SPDX-License-Identifier: MIT */
/*
 * mcp proxy --http in front of a stdio server (bench_server), against the
 * same server serving HTTP itself (bench_server --http), in the same run:
 * what the gateway costs an HTTP client.
 *
 *   proxy --http 2026 tools/call/s (K in flight): proxied=N direct=N share=P%
 *       echo calls (task_echo, answered at once) pipelined K at a time
 *       under 2026-07-28 for a fixed time by a libmcp HTTP client: to
 *       `mcp proxy --http 127.0.0.1:0 -- bench_server`, and to
 *       `bench_server --http 0`.
 *   proxy --http 2025 tools/call/s (K in flight): proxied=N direct=N share=P%
 *       [supergateway=N]
 *       the same in a 2025-11-25 session; supergateway (npm, pinned;
 *       --stdio bench_server --outputTransport streamableHttp --stateful,
 *       the same direction, a child per session as ours) measured the same
 *       way when given. It speaks the 2025 revisions only.
 *   proxy --http cancel latency us [2026|2025] (N in flight): proxied p50=N
 *       p99=N, direct p50=N p99=N, added p50=N p99=N
 *       N calls held by wait_cancel; each cancel is timed from just before
 *       the client writes it to the moment the handler's token fires in
 *       bench_server (CLOCK_MONOTONIC is shared by the processes); a
 *       2026-07-28 cancel closes the call's stream, a 2025 one is posted
 *       (the calls sent 150 ms before). The median run of three for each.
 *
 * usage: bench_gateway MCP BENCH_SERVER [NODE SUPERGATEWAY_JS]
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"
#include "mcp/mcp.h"

#define IN_FLIGHT 16
#define RATE_SECONDS 3.0
#define HELD 500

/* A gateway: argv run with stdout and stderr to a file of its own.
 * fixed_port 0: mcp proxy on port 0, its port read from the line of its
 * stderr that names its URL; else the port given, waited for until it
 * takes a connection (supergateway, quiet). */
typedef struct gateway_proc {
    pid_t pid;
    char url[64];
    char log[40];
} gateway_proc;

static bool port_open(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

static unsigned port_in_log(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    unsigned port = 0;
    static const char said[] = "listening on http://127.0.0.1:";
    while (f && !port && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, said);
        if (at)
            port = (unsigned)strtoul(at + sizeof said - 1, NULL, 10);
    }
    if (f)
        fclose(f);
    return port;
}

static gateway_proc gateway_spawn(char *const argv[], unsigned fixed_port)
{
    extern char **environ;
    gateway_proc g = {0};
    snprintf(g.log, sizeof g.log, "/tmp/mcp-bench-gw-XXXXXX");
    int fd = mkstemp(g.log);
    if (fd < 0)
        exit(1);
    close(fd);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, g.log, O_WRONLY | O_APPEND, 0);
    if (posix_spawn(&g.pid, argv[0], &fa, NULL, argv, environ) != 0) {
        fprintf(stderr, "bench_gateway: cannot start %s\n", argv[0]);
        exit(1);
    }
    posix_spawn_file_actions_destroy(&fa);
    unsigned port = 0;
    for (int i = 0; i < 3000 && !port; i++) {
        if (fixed_port)
            port = port_open(fixed_port) ? fixed_port : 0;
        else
            port = port_in_log(g.log);
        if (!port)
            usleep(10000);
    }
    if (!port) {
        fprintf(stderr, "bench_gateway: %s did not start (see %s)\n", argv[0], g.log);
        exit(1);
    }
    snprintf(g.url, sizeof g.url, "http://127.0.0.1:%u/mcp", port);
    return g;
}

static void gateway_stop(gateway_proc *g)
{
    kill(g->pid, SIGTERM);
    waitpid(g->pid, NULL, 0);
    unlink(g->log);
}

static gateway_proc proxy_spawn(const char *mcp, const char *bench_server)
{
    char *const argv[] = {(char *)mcp, "proxy", "--http", "127.0.0.1:0", "--",
                          (char *)bench_server, NULL};
    return gateway_spawn(argv, 0);
}

static mcp_client *connect_client(const char *url, mcp_connect_mode mode)
{
    mcp_client_options o = {.size = sizeof o, .timeout_ms = MCP_NO_TIMEOUT,
                            .max_time_ms = MCP_NO_TIMEOUT, .close_grace_ms = 2000,
                            .connect_mode = mode, .log_level = MCP_LOG_ERROR};
    mcp_client *c;
    if (mcp_client_new(&o, &c) != MCP_OK)
        exit(1);
    if (mcp_client_connect_http(c, url, NULL) != MCP_OK) {
        fprintf(stderr, "bench_gateway: cannot connect to %s: %s\n", url, mcp_client_error(c));
        exit(1);
    }
    return c;
}

static double rate(const char *url, mcp_connect_mode mode)
{
    return bench_rate(connect_client(url, mode), "task_echo", IN_FLIGHT, RATE_SECONDS, url);
}

/* Cancel latency ---------------------------------------------------------------------- */

static latency cancel_once(const char *bench_server, const char *mcp, mcp_connect_mode mode,
                           bool proxied)
{
    char log_path[] = "/tmp/mcp-bench-gateway-XXXXXX";
    int fd = mkstemp(log_path);
    close(fd);
    setenv("BENCH_CANCEL_LOG", log_path, 1); /* the proxy's children inherit it */
    gateway_proc g = {0};
    bench_http_server s = {0};
    if (proxied)
        g = proxy_spawn(mcp, bench_server);
    else
        s = bench_server_spawn(bench_server, NULL);
    unsetenv("BENCH_CANCEL_LOG");
    mcp_client *c = connect_client(proxied ? g.url : s.url, mode);
    unsigned long long written[HELD];
    bench_hold_and_cancel(c, HELD, written);
    /* bench_server writes its log at exit: the proxy's child once its
     * input ends (the session's end, or the proxy's stop, which waits for
     * it). */
    if (proxied)
        gateway_stop(&g);
    else
        bench_server_stop(&s);
    return cancel_latencies(log_path, written, HELD, "cancels");
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: bench_gateway MCP BENCH_SERVER [NODE SUPERGATEWAY_JS]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    const char *mcp = argv[1], *bench_server = argv[2];
    gateway_proc g = proxy_spawn(mcp, bench_server);
    bench_http_server s = bench_server_spawn(bench_server, NULL);
    double p26 = rate(g.url, MCP_CONNECT_MODERN);
    double d26 = rate(s.url, MCP_CONNECT_MODERN);
    printf("proxy --http 2026 tools/call/s (%d in flight): proxied=%.0f direct=%.0f share=%.0f%%\n",
           IN_FLIGHT, p26, d26, 100.0 * p26 / d26);
    double p25 = rate(g.url, MCP_CONNECT_LEGACY);
    double d25 = rate(s.url, MCP_CONNECT_LEGACY);
    printf("proxy --http 2025 tools/call/s (%d in flight): proxied=%.0f direct=%.0f share=%.0f%%",
           IN_FLIGHT, p25, d25, 100.0 * p25 / d25);
    fflush(stdout);
    gateway_stop(&g);
    bench_server_stop(&s);
    if (argc == 5) {
        /* A port of its own: supergateway takes no port 0. Node's warnings
         * would bury the figures. */
        char port[16];
        snprintf(port, sizeof port, "%u", 20000u + (unsigned)(getpid() % 20000));
        char *const sg_argv[] = {argv[3], "--no-warnings", argv[4], "--stdio", (char *)bench_server,
                                 "--outputTransport", "streamableHttp", "--stateful", "--port",
                                 port, "--logLevel", "none", NULL};
        gateway_proc sg = gateway_spawn(sg_argv, (unsigned)strtoul(port, NULL, 10));
        printf(" supergateway=%.0f", rate(sg.url, MCP_CONNECT_LEGACY));
        gateway_stop(&sg);
    }
    printf("\n");
    fflush(stdout);
    bench_report_cancel("proxy --http", cancel_once, bench_server, mcp, MCP_CONNECT_MODERN, HELD);
    bench_report_cancel("proxy --http", cancel_once, bench_server, mcp, MCP_CONNECT_LEGACY, HELD);
    return 0;
}
