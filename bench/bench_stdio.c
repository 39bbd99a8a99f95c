/* SPDX-License-Identifier: MIT */
/*
 * Request-lifecycle benchmarks over stdio, one load driver (the libmcp
 * client) against several servers in the same run:
 *
 *   stdio round trips/s (K in flight): libmcp=N ts_sdk_v1=N ratio=X raw_pipe=N
 *       echo tools/calls pipelined K at a time under 2025-11-25 (initialize),
 *       against `mcp serve`, against the TypeScript SDK v1
 *       (ts_echo_server.mjs), and against echo_peer (a process that answers
 *       with a canned response: the pipe's limit).
 *   stdio round trips/s 2026 (K in flight): libmcp=N ts_sdk_v2=N ratio=X
 *       the same under 2026-07-28 (every request carries the _meta
 *       envelope), against `mcp serve` and the TypeScript SDK v2
 *       (ts2_echo_server.mjs).
 *   cancel latency us [2026] (1000 in flight): p50=N p99=N
 *       1000 calls held by bench_server; each cancel is timed from just
 *       before the client writes it (encoding included) to the moment the
 *       handler's token fires in the server (CLOCK_MONOTONIC is shared by
 *       both processes). Under 2025-11-25, then 2026-07-28.
 *   bytes per in-flight request[ 2026]: N
 *       bench_server's resident memory growth over 100,000 calls held in
 *       flight by a handler that never replies, divided by 100,000, in each
 *       revision (a 2026-07-28 request keeps its envelope).
 *
 * usage: bench_stdio MCP BENCH_SERVER ECHO_PEER [NODE TS_ECHO_SERVER TS2_ECHO_SERVER]
 *        bench_stdio --calls 2025|2026 N COMMAND...   (for callgrind)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "mcp/mcp.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The index of the last argument: the script, for node. */
static int argc_last(const char *const *argv)
{
    int n = 0;
    while (argv[n + 1])
        n++;
    return n;
}

static mcp_client *start(const char *const *argv, mcp_connect_mode mode)
{
    mcp_client_options o = {.size = sizeof o, .timeout_ms = MCP_NO_TIMEOUT, .max_time_ms = MCP_NO_TIMEOUT,
                            .close_grace_ms = 2000, .connect_mode = mode};
    mcp_client *c;
    if (mcp_client_new(&o, &c) != MCP_OK)
        exit(1);
    if (mcp_client_connect_stdio(c, argv) != MCP_OK) {
        fprintf(stderr, "bench: cannot start %s: %s\n", argv[0], mcp_client_error(c));
        exit(1);
    }
    /* Each line compares one revision: a server that cannot speak it
     * would measure another. */
    const char *v = mcp_client_protocol_version(c);
    if ((mode == MCP_CONNECT_MODERN && strcmp(v, "2026-07-28") != 0) ||
        (mode == MCP_CONNECT_LEGACY && strcmp(v, "2026-07-28") == 0)) {
        fprintf(stderr, "bench: %s speaks %s here\n", argv[argc_last(argv)], v);
        exit(1);
    }
    return c;
}

/* Round trips ------------------------------------------------------------------- */

typedef struct load {
    mcp_client *client;
    const mcp_json *args;
    long issued, done, total;
    int failed;
} load;

static void issue(load *l);

static void one_done(void *ud, const mcp_client_call_result *r)
{
    load *l = ud;
    l->done++;
    if (r->outcome != MCP_OK)
        l->failed++;
    if (l->issued < l->total)
        issue(l);
}

static void issue(load *l)
{
    mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE};
    if (mcp_client_call_tool_async(l->client, "echo", l->args, &o, one_done, l, NULL) != MCP_OK) {
        fprintf(stderr, "bench: cannot send\n");
        exit(1);
    }
    l->issued++;
}

/* total echo calls on c, inflight at a time: the seconds they took. */
static double run_calls(mcp_client *c, const mcp_json *args, int inflight, long total,
                        const char *server, int *failed)
{
    load l = {c, args, 0, 0, total, 0};
    for (int i = 0; i < inflight && l.issued < l.total; i++)
        issue(&l);
    double t0 = now_s();
    while (l.done < l.total)
        mcp_client_run_once(c, true);
    double elapsed = now_s() - t0;
    if (l.failed)
        fprintf(stderr, "bench: %d calls failed against %s\n", l.failed, server);
    *failed += l.failed;
    return elapsed;
}

/* Round trips per second with `inflight` calls outstanding for ~seconds. */
static double round_trips(const char *const *argv, mcp_connect_mode mode, int inflight,
                          double seconds)
{
    mcp_client *c = start(argv, mode);
    mcp_json_doc *args;
    mcp_json_parse("{\"text\":\"x\"}", 12, NULL, NULL, &args, NULL);
    /* Calibrate the count on a short run, then measure. */
    int failed = 0;
    double rate = 2000 / run_calls(c, mcp_json_doc_root(args), inflight, 2000, argv[0], &failed);
    long total = (long)(rate * seconds) + inflight;
    double elapsed = run_calls(c, mcp_json_doc_root(args), inflight, total, argv[0], &failed);
    mcp_json_doc_free(args);
    mcp_client_free(c);
    return total / elapsed;
}

/* Cancel latency ----------------------------------------------------------------- */

static latency cancel_latency(const char *bench_server, mcp_connect_mode mode, int n)
{
    char log_path[] = "/tmp/mcp-bench-cancel-XXXXXX";
    int fd = mkstemp(log_path);
    close(fd);
    setenv("BENCH_CANCEL_LOG", log_path, 1);
    const char *const argv[] = {bench_server, NULL};
    mcp_client *c = start(argv, mode);
    mcp_handle *h = calloc((size_t)n, sizeof *h);
    unsigned long long *written = calloc((size_t)n, sizeof *written);
    mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE};
    for (int i = 0; i < n; i++) {
        char json[32];
        snprintf(json, sizeof json, "{\"id\":%d}", i);
        mcp_json_doc *a;
        mcp_json_parse(json, strlen(json), NULL, NULL, &a, NULL);
        mcp_client_call_tool_async(c, "wait_cancel", mcp_json_doc_root(a), &o, ignore, NULL, &h[i]);
        mcp_json_doc_free(a);
    }
    /* The server reads in order: an answer to a call sent after them
     * means every call before it is registered (ping would do, but does
     * not exist in 2026-07-28). */
    server_rss(c);
    for (int i = 0; i < n; i++) {
        /* The clock starts just before the cancel is encoded and written
         * (libuv writes at once into an idle pipe), so the figure includes
         * our own send path, and can never be negative. */
        written[i] = now_us();
        mcp_client_cancel(c, h[i], "bench");
        mcp_client_flush(c); /* in the pipe now */
        /* Pace the cancels so each is measured on its own, not behind a
         * queue of the others. */
        unsigned long long until = written[i] + 200;
        while (now_us() < until)
            mcp_client_run_once(c, false);
    }
    mcp_client_free(c); /* the server exits and writes its log */
    unsetenv("BENCH_CANCEL_LOG");
    latency out = cancel_latencies(log_path, written, n, "cancels");
    free(h);
    free(written);
    return out;
}

/* Three runs; the one with the median p99 is reported, so one run disturbed
 * by the machine does not decide the figure. */
static void report_cancel_latency(const char *bench_server, mcp_connect_mode mode, int n)
{
    latency runs[3];
    usleep(300 * 1000); /* let the previous servers finish exiting */
    for (int i = 0; i < 3; i++)
        runs[i] = cancel_latency(bench_server, mode, n);
    latency med = median_run(runs);
    printf("cancel latency us%s (%d in flight): p50=%llu p99=%llu\n",
           mode == MCP_CONNECT_MODERN ? " 2026" : "", n, med.p50, med.p99);
}

/* Memory per held request ---------------------------------------------------------- */


static long bytes_per_request(const char *bench_server, mcp_connect_mode mode, int n)
{
    const char *const argv[] = {bench_server, NULL};
    mcp_client *c = start(argv, mode);
    long before = server_rss(c);
    mcp_json_doc *a;
    mcp_json_parse("{\"note\":\"held\"}", 15, NULL, NULL, &a, NULL);
    mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE};
    for (int i = 0; i < n; i++) {
        if (mcp_client_call_tool_async(c, "hold", mcp_json_doc_root(a), &o, ignore, NULL, NULL) != MCP_OK) {
            fprintf(stderr, "bench: cannot send\n");
            exit(1);
        }
        if (i % 1000 == 999)
            mcp_client_run_once(c, false); /* keep the pipe moving */
    }
    mcp_json_doc_free(a);
    /* The server reads in order: its answer comes after every hold was
     * registered. */
    long after = server_rss(c);
    mcp_client_free(c);
    return (after - before) / n;
}

/* bench_stdio --calls 2025|2026 N CMD...: N echo calls, 64 in flight, and
 * nothing else: for callgrind (bench/stdio_instructions.sh), whose count
 * of a run with N = 0 (start, connect, close) is taken off. */
static int calls_only(char **argv)
{
    mcp_connect_mode mode = strcmp(argv[0], "2026") == 0 ? MCP_CONNECT_MODERN : MCP_CONNECT_LEGACY;
    long n = atol(argv[1]);
    mcp_client *c = start((const char *const *)argv + 2, mode);
    mcp_json_doc *args;
    mcp_json_parse("{\"text\":\"x\"}", 12, NULL, NULL, &args, NULL);
    int failed = 0;
    if (n > 0)
        run_calls(c, mcp_json_doc_root(args), 64, n, argv[2], &failed);
    mcp_json_doc_free(args);
    mcp_client_free(c);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "--calls") == 0)
        return calls_only(argv + 2);
    if (argc < 4) {
        fprintf(stderr, "usage: %s MCP BENCH_SERVER ECHO_PEER [NODE TS_ECHO_SERVER TS2_ECHO_SERVER]\n",
                argv[0]);
        return 2;
    }
    const char *const ours[] = {argv[1], "serve", NULL};
    const char *const raw[] = {argv[3], NULL};
    const char *const ts[] = {argc > 5 ? argv[4] : NULL, argc > 5 ? argv[5] : NULL, NULL};
    const char *const ts2[] = {argc > 6 ? argv[4] : NULL, argc > 6 ? argv[6] : NULL, NULL};
    bool have_ts = argc > 5 && access(argv[4], X_OK) == 0;
    bool have_ts2 = argc > 6 && have_ts;
    const int depths[] = {64, 1};
    for (int d = 0; d < 2; d++) {
        int k = depths[d];
        double mine = round_trips(ours, MCP_CONNECT_LEGACY, k, 2.0);
        double pipe = round_trips(raw, MCP_CONNECT_LEGACY, k, 2.0);
        if (have_ts) {
            double theirs = round_trips(ts, MCP_CONNECT_LEGACY, k, 2.0);
            printf("stdio round trips/s (%d in flight): libmcp=%.0f ts_sdk_v1=%.0f "
                   "ratio=%.1f raw_pipe=%.0f\n", k, mine, theirs, mine / theirs, pipe);
        } else {
            printf("stdio round trips/s (%d in flight): libmcp=%.0f ts_sdk_v1=n/a (run "
                   "make interop-deps) raw_pipe=%.0f\n", k, mine, pipe);
        }
        fflush(stdout);
        mine = round_trips(ours, MCP_CONNECT_MODERN, k, 2.0);
        if (have_ts2) {
            double theirs = round_trips(ts2, MCP_CONNECT_MODERN, k, 2.0);
            printf("stdio round trips/s 2026 (%d in flight): libmcp=%.0f ts_sdk_v2=%.0f "
                   "ratio=%.1f\n", k, mine, theirs, mine / theirs);
        } else {
            printf("stdio round trips/s 2026 (%d in flight): libmcp=%.0f ts_sdk_v2=n/a (run "
                   "make interop-deps)\n", k, mine);
        }
        fflush(stdout);
    }
    report_cancel_latency(argv[2], MCP_CONNECT_LEGACY, 1000);
    report_cancel_latency(argv[2], MCP_CONNECT_MODERN, 1000);
    fflush(stdout);
    printf("bytes per in-flight request: %ld\n",
           bytes_per_request(argv[2], MCP_CONNECT_LEGACY, 100000));
    printf("bytes per in-flight request 2026: %ld\n",
           bytes_per_request(argv[2], MCP_CONNECT_MODERN, 100000));
    return 0;
}
