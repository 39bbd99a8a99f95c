/* SPDX-License-Identifier: MIT */
/*
 * mcp proxy --url in front of a Streamable HTTP server (bench_server
 * --http), against the same server reached directly, in the same run: what
 * the gateway costs a stdio client.
 *
 *   proxy 2026 tools/call/s (K in flight): proxied=N direct=N share=P%
 *       echo calls (task_echo, answered at once) pipelined K at a time
 *       under 2026-07-28 for a fixed time: by a libmcp client over stdio
 *       spawning `mcp proxy --url URL`, and by the same client over HTTP.
 *   proxy 2025 tools/call/s (K in flight): proxied=N direct=N share=P%
 *       [supergateway=N]
 *       the same in a 2025-11-25 session; supergateway (npm, pinned;
 *       --streamableHttp URL, the same direction) measured the same way
 *       when given. It speaks the 2025 revisions only.
 *   proxy cancel latency us [2026|2025] (N in flight): proxied p50=N
 *       p99=N, direct p50=N p99=N, added p50=N p99=N
 *       N calls held by wait_cancel; each cancel is timed from just
 *       before the client writes it to the moment the handler's token
 *       fires in the server (CLOCK_MONOTONIC is shared by the processes);
 *       a 2026-07-28 cancel closes the call's stream, a 2025 one is posted
 *       (the calls sent 150 ms before: the hold of a 2025 cancel until
 *       its request reached the server is not what is timed).
 *       The median run of three for each.
 *
 * usage: bench_proxy MCP BENCH_SERVER [NODE SUPERGATEWAY_JS]
 */
#include <fcntl.h>
#include <signal.h>
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


/* The client: over stdio when argv is given (the gateway), else over HTTP
 * to url. */
static mcp_client *connect_client(const char *const *argv, const char *url, mcp_connect_mode mode)
{
    mcp_client_options o = {.size = sizeof o, .timeout_ms = MCP_NO_TIMEOUT,
                            .max_time_ms = MCP_NO_TIMEOUT, .close_grace_ms = 2000,
                            .connect_mode = mode, .log_level = MCP_LOG_ERROR};
    mcp_client *c;
    if (mcp_client_new(&o, &c) != MCP_OK)
        exit(1);
    int rc = argv ? mcp_client_connect_stdio(c, argv) : mcp_client_connect_http(c, url, NULL);
    if (rc != MCP_OK) {
        fprintf(stderr, "bench_proxy: cannot connect (%s): %s\n", argv ? argv[0] : url,
                mcp_client_error(c));
        exit(1);
    }
    return c;
}

static double rate(const char *const *argv, const char *url, mcp_connect_mode mode)
{
    return bench_rate(connect_client(argv, url, mode), "task_echo", IN_FLIGHT, RATE_SECONDS,
                      argv ? argv[0] : url);
}

/* Cancel latency ---------------------------------------------------------------------- */

static latency cancel_once(const char *bench_server, const char *mcp, mcp_connect_mode mode,
                           bool proxied)
{
    char log_path[] = "/tmp/mcp-bench-proxy-XXXXXX";
    int fd = mkstemp(log_path);
    close(fd);
    setenv("BENCH_CANCEL_LOG", log_path, 1);
    bench_http_server s = bench_server_spawn(bench_server, NULL);
    unsetenv("BENCH_CANCEL_LOG");
    const char *const argv[] = {mcp, "proxy", "--url", s.url, NULL};
    mcp_client *c = connect_client(proxied ? argv : NULL, s.url, mode);
    unsigned long long written[HELD];
    bench_hold_and_cancel(c, HELD, written);
    bench_server_stop(&s); /* it writes its log at exit */
    return cancel_latencies(log_path, written, HELD, "cancels");
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: bench_proxy MCP BENCH_SERVER [NODE SUPERGATEWAY_JS]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    const char *mcp = argv[1], *bench_server = argv[2];
    bench_http_server s = bench_server_spawn(bench_server, NULL);
    const char *const proxy[] = {mcp, "proxy", "--url", s.url, NULL};
    double p26 = rate(proxy, s.url, MCP_CONNECT_MODERN);
    double d26 = rate(NULL, s.url, MCP_CONNECT_MODERN);
    printf("proxy 2026 tools/call/s (%d in flight): proxied=%.0f direct=%.0f share=%.0f%%\n",
           IN_FLIGHT, p26, d26, 100.0 * p26 / d26);
    double p25 = rate(proxy, s.url, MCP_CONNECT_LEGACY);
    double d25 = rate(NULL, s.url, MCP_CONNECT_LEGACY);
    printf("proxy 2025 tools/call/s (%d in flight): proxied=%.0f direct=%.0f share=%.0f%%", IN_FLIGHT,
           p25, d25, 100.0 * p25 / d25);
    if (argc == 5) {
        /* Node's warnings (supergateway adds an abort listener per
         * request) would bury the figures. */
        const char *const sg[] = {argv[3], "--no-warnings", argv[4], "--streamableHttp",
                                  s.url, "--logLevel", "none", NULL};
        printf(" supergateway=%.0f", rate(sg, s.url, MCP_CONNECT_LEGACY));
    }
    printf("\n");
    fflush(stdout);
    bench_server_stop(&s);
    bench_report_cancel("proxy", cancel_once, bench_server, mcp, MCP_CONNECT_MODERN, HELD);
    bench_report_cancel("proxy", cancel_once, bench_server, mcp, MCP_CONNECT_LEGACY, HELD);
    return 0;
}
