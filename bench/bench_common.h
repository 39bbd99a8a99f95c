/* SPDX-License-Identifier: MIT */
/*
 * What bench_stdio and bench_tasks both measure with: the clock, bench_server's
 * resident set size (its rss tool), and the cancel latencies bench_server
 * logs ("id microseconds" lines in $BENCH_CANCEL_LOG) against the times the
 * cancels were written; and bench_server started over HTTP.
 */
#ifndef MCP_BENCH_COMMON_H
#define MCP_BENCH_COMMON_H

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcp/mcp.h"

static inline unsigned long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

/* bench_server's resident set size, by its rss tool; -1 when it failed. */
static inline long server_rss(mcp_client *c)
{
    mcp_client_call_result r = {.size = sizeof r};
    long v = -1;
    if (mcp_client_call_tool(c, "rss", NULL, NULL, &r) == MCP_OK) {
        const char *t = mcp_json_string(mcp_json_object_get(mcp_json_array_at(
                            mcp_json_object_get(r.result, "content"), 0), "text"), NULL);
        if (t)
            v = atol(t);
    }
    mcp_client_call_result_release(&r);
    return v;
}

static inline void ignore(void *ud, const mcp_client_call_result *r)
{
    (void)ud;
    (void)r;
}

static inline int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

typedef struct latency {
    unsigned long long p50, p99;
} latency;

/* The latencies of the n cancels written at written[id] (us), from the log
 * bench_server left at log_path (removed): p50 and p99, and the tail on
 * stderr when BENCH_VERBOSE is set. what names them in messages. */
static inline latency cancel_latencies(const char *log_path, const unsigned long long *written,
                                       int n, const char *what)
{
    FILE *f = fopen(log_path, "r");
    unsigned long long *lat = calloc((size_t)n, sizeof *lat);
    int m = 0;
    long id;
    unsigned long long us;
    while (f && lat && fscanf(f, "%ld %llu", &id, &us) == 2)
        if (id >= 0 && id < n && us >= written[id] && m < n)
            lat[m++] = us - written[id];
    if (f)
        fclose(f);
    unlink(log_path);
    if (m < n)
        fprintf(stderr, "bench: only %d of %d %s recorded\n", m, n, what);
    latency out = {0, 0};
    if (m) {
        qsort(lat, (size_t)m, sizeof *lat, cmp_ull);
        out = (latency){lat[m / 2], lat[(m * 99) / 100]};
        if (getenv("BENCH_VERBOSE"))
            fprintf(stderr, "%s latency us: p90=%llu p95=%llu p98=%llu p99.9=%llu max=%llu\n",
                    what, lat[(m * 90) / 100], lat[(m * 95) / 100], lat[(m * 98) / 100],
                    lat[(m * 999) / 1000], lat[m - 1]);
    }
    free(lat);
    return out;
}

/* Three runs; the one with the median p99. */
static inline latency median_run(latency runs[3])
{
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (runs[j].p99 < runs[i].p99) {
                latency t = runs[i];
                runs[i] = runs[j];
                runs[j] = t;
            }
    return runs[1];
}

/* A rate: calls of tool (no arguments, answered at once) pipelined
 * in_flight at a time on c for seconds; calls per second. Exits when one
 * fails (who names the path measured). c is freed. */
typedef struct bench_load {
    mcp_client *c;
    const char *tool;
    const mcp_json *args;
    unsigned long long stop_at;
    long done, failed, outstanding;
} bench_load;

static void bench_issue(bench_load *l);

static inline void bench_one_done(void *ud, const mcp_client_call_result *r)
{
    bench_load *l = ud;
    l->outstanding--;
    if (r->outcome == MCP_OK)
        l->done++;
    else
        l->failed++;
    if (now_us() < l->stop_at)
        bench_issue(l);
}

static inline void bench_issue(bench_load *l)
{
    mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE};
    if (mcp_client_call_tool_async(l->c, l->tool, l->args, &o, bench_one_done, l, NULL) == MCP_OK)
        l->outstanding++;
    else
        l->failed++;
}

static inline double bench_rate(mcp_client *c, const char *tool, int in_flight, double seconds,
                                const char *who)
{
    mcp_json_doc *args;
    mcp_json_parse("{}", 2, NULL, NULL, &args, NULL);
    unsigned long long t0 = now_us();
    bench_load l = {c, tool, mcp_json_doc_root(args),
                    t0 + (unsigned long long)(seconds * 1e6), 0, 0, 0};
    for (int i = 0; i < in_flight; i++)
        bench_issue(&l);
    while (l.outstanding > 0)
        mcp_client_run_once(c, true);
    double elapsed = (double)(now_us() - t0) / 1e6;
    mcp_client_free(c);
    mcp_json_doc_free(args);
    if (l.failed) {
        fprintf(stderr, "bench: %ld of %ld calls failed (%s)\n", l.failed, l.done + l.failed, who);
        exit(1);
    }
    return (double)l.done / elapsed;
}

/* held wait_cancel calls on c (ids 0..held-1), then each cancelled, paced,
 * its writing time in written[id]; c is freed. Every call reaches the
 * server before any cancel (an answer to a later call came), then 150 ms
 * more: a 2025 cancel is held until its request has reached the server
 * (its headers, or 100 ms after it was sent), and what is timed is the
 * cancel's path, not that hold. */
static inline void bench_hold_and_cancel(mcp_client *c, int held, unsigned long long *written)
{
    mcp_handle *h = calloc((size_t)held, sizeof *h);
    if (!h)
        exit(1);
    mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE};
    for (int i = 0; i < held; i++) {
        char json[32];
        snprintf(json, sizeof json, "{\"id\":%d}", i);
        mcp_json_doc *a;
        mcp_json_parse(json, strlen(json), NULL, NULL, &a, NULL);
        mcp_client_call_tool_async(c, "wait_cancel", mcp_json_doc_root(a), &o, ignore, NULL, &h[i]);
        mcp_json_doc_free(a);
    }
    server_rss(c);
    for (unsigned long long until = now_us() + 150000; now_us() < until;) {
        mcp_client_run_once(c, false);
        usleep(1000);
    }
    for (int i = 0; i < held; i++) {
        written[i] = now_us();
        mcp_client_cancel(c, h[i], "bench");
        mcp_client_flush(c);
        /* Paced, so each is measured on its own; asleep, so that on two
         * cores the gateway and the server are not kept waiting by this
         * process spinning. */
        unsigned long long until = written[i] + 2000;
        while (now_us() < until) {
            mcp_client_run_once(c, false);
            usleep(200);
        }
    }
    mcp_client_free(c);
    free(h);
}

/* One cancel-latency run of a path (proxied or not); the median of three
 * for each, and the line that compares them. */
typedef latency (*bench_cancel_run)(const char *bench_server, const char *mcp,
                                    mcp_connect_mode mode, bool proxied);

static inline latency bench_cancel_median(bench_cancel_run run, const char *bench_server,
                                          const char *mcp, mcp_connect_mode mode, bool proxied)
{
    latency runs[3];
    for (int i = 0; i < 3; i++)
        runs[i] = run(bench_server, mcp, mode, proxied);
    return median_run(runs);
}

static inline void bench_report_cancel(const char *label, bench_cancel_run run,
                                       const char *bench_server, const char *mcp,
                                       mcp_connect_mode mode, int held)
{
    latency proxied = bench_cancel_median(run, bench_server, mcp, mode, true);
    latency direct = bench_cancel_median(run, bench_server, mcp, mode, false);
    printf("%s cancel latency us %s (%d in flight): proxied p50=%llu p99=%llu, direct "
           "p50=%llu p99=%llu, added p50=%lld p99=%lld\n",
           label, mode == MCP_CONNECT_MODERN ? "2026" : "2025", held, proxied.p50, proxied.p99,
           direct.p50, direct.p99, (long long)proxied.p50 - (long long)direct.p50,
           (long long)proxied.p99 - (long long)direct.p99);
}

/* bench_server --http 0 [--task-store store], its port read from its
 * stdout; its stderr (which says the same) to /dev/null. Exits on failure. */
typedef struct bench_http_server {
    pid_t pid;
    char url[64];
} bench_http_server;

static inline bench_http_server bench_server_spawn(const char *bench_server, const char *store)
{
    extern char **environ;
    int fds[2];
    if (pipe(fds) != 0)
        exit(1);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *const with_store[] = {(char *)bench_server, "--http", "0", "--task-store",
                                (char *)store, NULL};
    char *const plain[] = {(char *)bench_server, "--http", "0", NULL};
    bench_http_server s = {0};
    if (posix_spawn(&s.pid, bench_server, &fa, NULL, store ? with_store : plain, environ) != 0) {
        fprintf(stderr, "bench: cannot start %s\n", bench_server);
        exit(1);
    }
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    unsigned port = 0;
    if (!f || fscanf(f, "listening %u", &port) != 1) {
        fprintf(stderr, "bench: %s did not start\n", bench_server);
        exit(1);
    }
    fclose(f);
    snprintf(s.url, sizeof s.url, "http://127.0.0.1:%u/mcp", port);
    return s;
}

static inline void bench_server_stop(bench_http_server *s)
{
    kill(s->pid, SIGTERM);
    waitpid(s->pid, NULL, 0);
}

#endif
