/* SPDX-License-Identifier: MIT */
/*
 * Tasks (2025-11-25) over stdio, against bench_server:
 *   tasks create+result round trips/s (stdio, 16 in flight): libmcp=N ts_sdk_v1=N ratio=X
 *     a task call of ours (tools/call with params.task, CreateTaskResult,
 *     the status notification, tasks/result) against the same with the
 *     TypeScript SDK v1's client and server (bench/ts_task_bench.mjs), in
 *     the same run
 *   memory per finished task kept: N bytes (its result: N bytes)
 *     bench_server's resident set size over 20,000 finished tasks
 *   tasks/cancel to handler token us (1000 tasks): p50=N p99=N
 *     from just before our client writes tasks/cancel to the moment the
 *     handler's token fires (CLOCK_MONOTONIC in both processes)
 * usage: bench_tasks BENCH_SERVER [NODE TS_TASK_BENCH]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "mcp/mcp.h"

static mcp_client *start(const char *bench_server)
{
    const char *const argv[] = {bench_server, NULL};
    mcp_client_options o = {.size = sizeof o, .connect_mode = MCP_CONNECT_LEGACY,
                            .protocol_version = "2025-11-25", .log_level = MCP_LOG_ERROR};
    mcp_client *c;
    if (mcp_client_new(&o, &c) != MCP_OK || mcp_client_connect_stdio(c, argv) != MCP_OK) {
        fprintf(stderr, "bench: cannot start %s\n", bench_server);
        exit(1);
    }
    return c;
}

/* Round trips ------------------------------------------------------------------- */

typedef struct load {
    mcp_client *client;
    long issued, done, failed;
    unsigned long long stop_at;
} load;

static void issue(load *l);

static void one_done(void *ud, const mcp_client_call_result *r)
{
    load *l = ud;
    l->done++;
    if (r->outcome != MCP_OK)
        l->failed++;
    if (now_us() < l->stop_at)
        issue(l);
}

static void issue(load *l)
{
    mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE,
                                 .task = MCP_CALL_TASK_ALWAYS};
    if (mcp_client_call_tool_async(l->client, "task_echo", NULL, &o, one_done, l, NULL) != MCP_OK) {
        fprintf(stderr, "bench: cannot send\n");
        exit(1);
    }
    l->issued++;
}

/* Task round trips per second, 16 in flight, for ~2 s after a warm-up. */
static double round_trips(const char *bench_server)
{
    mcp_client *c = start(bench_server);
    double rate = 0;
    for (int pass = 0; pass < 2; pass++) {
        load l = {c, 0, 0, 0, now_us() + (pass ? 2000000ull : 300000ull)};
        unsigned long long t0 = now_us();
        for (int i = 0; i < 16; i++)
            issue(&l);
        while (l.done < l.issued)
            mcp_client_run_once(c, true);
        if (l.failed) {
            fprintf(stderr, "bench: %ld task calls failed\n", l.failed);
            exit(1);
        }
        rate = (double)l.done / ((double)(now_us() - t0) / 1e6);
    }
    mcp_client_free(c);
    return rate;
}

/* The TypeScript SDK v1's figure: its script prints the rate on stdout. */
static double ts_round_trips(const char *node, const char *script)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s'", node, script);
    FILE *p = popen(cmd, "r");
    double rate = 0;
    if (!p || fscanf(p, "%lf", &rate) != 1)
        rate = 0;
    if (p)
        pclose(p);
    return rate;
}

/* Memory per finished task --------------------------------------------------------- */

static long bytes_per_task(const char *bench_server, long n)
{
    mcp_client *c = start(bench_server);
    /* One first, so that what every task brings is in place. */
    mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE,
                                 .task = MCP_CALL_TASK_START};
    mcp_client_call_result r = {.size = sizeof r};
    mcp_client_call_tool(c, "task_echo", NULL, &o, &r);
    mcp_client_call_result_release(&r);
    long before = server_rss(c);
    for (long i = 0; i < n; i++) {
        if (mcp_client_call_tool_async(c, "task_echo", NULL, &o, ignore, NULL, NULL) != MCP_OK) {
            fprintf(stderr, "bench: cannot send\n");
            exit(1);
        }
        if (i % 500 == 499)
            while (mcp_client_pending(c) > 256)
                mcp_client_run_once(c, true);
    }
    while (mcp_client_pending(c) > 0)
        mcp_client_run_once(c, true);
    long after = server_rss(c);
    mcp_client_free(c);
    return (after - before) / n;
}

/* tasks/cancel to the handler's token ------------------------------------------------ */

static int tasks_known;
static void on_task(void *ud, mcp_handle h, const mcp_json *task)
{
    (void)ud, (void)h, (void)task;
    tasks_known++;
}

static latency cancel_latency(const char *bench_server, int n)
{
    char log_path[] = "/tmp/mcp-bench-task-cancel-XXXXXX";
    int fd = mkstemp(log_path);
    close(fd);
    setenv("BENCH_CANCEL_LOG", log_path, 1);
    mcp_client *c = start(bench_server);
    mcp_handle *h = calloc((size_t)n, sizeof *h);
    unsigned long long *written = calloc((size_t)n, sizeof *written);
    mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE,
                                 .task = MCP_CALL_TASK_ALWAYS, .timeout_ms = MCP_NO_TIMEOUT,
                                 .on_task = on_task};
    tasks_known = 0;
    for (int i = 0; i < n; i++) {
        char json[32];
        snprintf(json, sizeof json, "{\"id\":%d}", i);
        mcp_json_doc *a;
        mcp_json_parse(json, strlen(json), NULL, NULL, &a, NULL);
        mcp_client_call_tool_async(c, "task_cancel", mcp_json_doc_root(a), &o, ignore, NULL,
                                   &h[i]);
        mcp_json_doc_free(a);
    }
    /* Every task known (its CreateTaskResult in): each cancel is then a
     * tasks/cancel at once. */
    while (tasks_known < n)
        mcp_client_run_once(c, true);
    for (int i = 0; i < n; i++) {
        written[i] = now_us();
        mcp_client_cancel(c, h[i], "bench");
        mcp_client_flush(c);
        /* Paced, each measured on its own; sleeping, not spinning: on two
         * cores a spinning client takes the server's turn. */
        usleep(200);
        mcp_client_run_once(c, false);
    }
    mcp_client_free(c);
    unsetenv("BENCH_CANCEL_LOG");
    latency out = cancel_latencies(log_path, written, n, "task cancels");
    free(h);
    free(written);
    return out;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s BENCH_SERVER [NODE TS_TASK_BENCH]\n", argv[0]);
        return 2;
    }
    double mine = round_trips(argv[1]);
    if (argc >= 4 && access(argv[2], X_OK) == 0) {
        double theirs = ts_round_trips(argv[2], argv[3]);
        printf("tasks create+result round trips/s (stdio, 16 in flight): libmcp=%.0f "
               "ts_sdk_v1=%.0f ratio=%.1f\n", mine, theirs, theirs > 0 ? mine / theirs : 0);
    } else {
        printf("tasks create+result round trips/s (stdio, 16 in flight): libmcp=%.0f "
               "ts_sdk_v1=n/a (run make interop-deps)\n", mine);
    }
    fflush(stdout);
    printf("memory per finished task kept: %ld bytes (its result: %zu bytes)\n",
           bytes_per_task(argv[1], 20000),
           strlen("{\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}"));
    fflush(stdout);
    /* Three runs; the one with the median p99 is reported. */
    latency runs[3];
    for (int i = 0; i < 3; i++) {
        usleep(300 * 1000); /* let the previous servers finish exiting */
        runs[i] = cancel_latency(argv[1], 1000);
    }
    latency med = median_run(runs);
    printf("tasks/cancel to handler token us (1000 tasks): p50=%llu p99=%llu\n", med.p50,
           med.p99);
    return 0;
}
