/* SPDX-License-Identifier: MIT */
/*
 * Tasks shared through Redis (bench_cluster.sh runs it):
 *
 *   bench_cluster cancel BENCH_SERVER REDIS_URL N
 *     two bench_server processes sharing REDIS_URL; N 2026-07-28 tasks
 *     (task_cancel, held until cancelled) made on the first, each cancelled
 *     with tasks/cancel sent to the second; from just before our client
 *     writes it to the moment the first one's handler token fires
 *     (CLOCK_MONOTONIC in both processes). Prints
 *     "p50=<us> p99=<us>".
 *
 *   bench_cluster rate URL SECONDS CLIENTS [TOOL [ARGS]]
 *     CLIENTS threads, each its own client at URL: a task made (TOOL,
 *     default task_echo, with ARGS, a JSON object; 2026-07-28,
 *     CreateTaskResult) then tasks/get until it is completed (the result
 *     inline), again and again. Prints "<tasks per second>".
 */
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"
#include "mcp/mcp.h"

extern char **environ;

static mcp_client *connect_to(const char *url)
{
    mcp_client_options o = {.size = sizeof o, .connect_mode = MCP_CONNECT_MODERN,
                            .log_level = MCP_LOG_ERROR};
    mcp_client *c;
    if (mcp_client_new(&o, &c) != MCP_OK || mcp_client_connect_http(c, url, NULL) != MCP_OK) {
        fprintf(stderr, "bench_cluster: cannot reach %s\n", url);
        exit(1);
    }
    return c;
}

/* The task id of a CreateTaskResult (flat under 2026), copied. */
static char *task_id_of(const mcp_client_call_result *r)
{
    const char *id = r->outcome == MCP_OK
                         ? mcp_json_string(mcp_json_object_get(r->result, "taskId"), NULL)
                         : NULL;
    return id ? strdup(id) : NULL;
}

/* Rate --------------------------------------------------------------------------- */

typedef struct worker {
    const char *url, *tool;
    const mcp_json *args;
    unsigned long long stop_at;
    long done, failed;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    mcp_client *c = connect_to(w->url);
    mcp_client_call_options start = {.size = sizeof start, .progress = MCP_PROGRESS_NONE,
                                     .task = MCP_CALL_TASK_START};
    mcp_client_call_options plain = {.size = sizeof plain, .progress = MCP_PROGRESS_NONE};
    while (now_us() < w->stop_at) {
        mcp_client_call_result r = {.size = sizeof r};
        mcp_client_call_tool(c, w->tool, w->args, &start, &r);
        char *id = task_id_of(&r);
        mcp_client_call_result_release(&r);
        bool completed = false;
        for (int tries = 0; id && !completed && tries < 1000; tries++) {
            mcp_client_call_result g = {.size = sizeof g};
            if (mcp_client_task_get(c, id, &plain, &g) != MCP_OK) {
                mcp_client_call_result_release(&g);
                break;
            }
            const char *status =
                mcp_json_string(mcp_json_object_get(g.result, "status"), NULL);
            completed = status && !strcmp(status, "completed") &&
                        mcp_json_object_get(g.result, "result");
            mcp_client_call_result_release(&g);
        }
        free(id);
        if (completed)
            w->done++;
        else
            w->failed++;
    }
    mcp_client_free(c);
    return NULL;
}

static int rate(const char *url, double seconds, int clients, const char *tool,
                const char *args_json)
{
    mcp_json_doc *args = NULL;
    if (args_json && mcp_json_parse(args_json, strlen(args_json), NULL, NULL, &args, NULL) != MCP_OK) {
        fprintf(stderr, "bench_cluster: ARGS is not JSON\n");
        return 2;
    }
    worker *w = calloc((size_t)clients, sizeof *w);
    pthread_t *t = calloc((size_t)clients, sizeof *t);
    unsigned long long t0 = now_us();
    for (int i = 0; i < clients; i++) {
        w[i] = (worker){url, tool, args ? mcp_json_doc_root(args) : NULL,
                        t0 + (unsigned long long)(seconds * 1e6), 0, 0};
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    long done = 0, failed = 0;
    for (int i = 0; i < clients; i++) {
        pthread_join(t[i], NULL);
        done += w[i].done;
        failed += w[i].failed;
    }
    double elapsed = (double)(now_us() - t0) / 1e6;
    free(w);
    free(t);
    mcp_json_doc_free(args);
    if (failed) {
        fprintf(stderr, "bench_cluster: %ld of %ld tasks did not complete\n", failed,
                done + failed);
        return 1;
    }
    printf("%.0f\n", (double)done / elapsed);
    return 0;
}

/* Cancel latency ---------------------------------------------------------------- */


static int tasks_known;
static char **ids;

/* A task made (its CreateTaskResult; it runs on, held until cancelled). */
static void made(void *ud, const mcp_client_call_result *r)
{
    ids[(intptr_t)ud] = task_id_of(r);
    tasks_known++;
}

static int cancel(const char *bench_server, const char *store, int n)
{
    char log_path[] = "/tmp/mcp-bench-cluster-cancel-XXXXXX";
    int fd = mkstemp(log_path);
    close(fd);
    setenv("BENCH_CANCEL_LOG", log_path, 1); /* the first one's alone: the log is its */
    bench_http_server a = bench_server_spawn(bench_server, store);
    unsetenv("BENCH_CANCEL_LOG");
    bench_http_server b = bench_server_spawn(bench_server, store);
    usleep(300 * 1000); /* both connected to Redis (a task made earlier is refused) */
    mcp_client *ca = connect_to(a.url), *cb = connect_to(b.url);
    ids = calloc((size_t)n, sizeof *ids);
    unsigned long long *written = calloc((size_t)n, sizeof *written);
    tasks_known = 0;
    for (long i = 0; i < n; i++) {
        char json[32];
        snprintf(json, sizeof json, "{\"id\":%ld}", i);
        mcp_json_doc *args;
        mcp_json_parse(json, strlen(json), NULL, NULL, &args, NULL);
        mcp_client_call_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE,
                                     .task = MCP_CALL_TASK_START};
        mcp_client_call_tool_async(ca, "task_cancel", mcp_json_doc_root(args), &o, made,
                                   (void *)(intptr_t)i, NULL);
        mcp_json_doc_free(args);
        while (mcp_client_pending(ca) > 64)
            mcp_client_run_once(ca, true);
    }
    while (tasks_known < n)
        mcp_client_run_once(ca, true);
    mcp_client_call_options plain = {.size = sizeof plain, .progress = MCP_PROGRESS_NONE};
    for (int i = 0; i < n; i++) {
        mcp_client_call_result r = {.size = sizeof r};
        written[i] = now_us();
        if (!ids[i] || mcp_client_task_cancel(cb, ids[i], &plain, &r) != MCP_OK)
            fprintf(stderr, "bench_cluster: a cancel through the second process failed\n");
        mcp_client_call_result_release(&r);
        /* Paced, each measured on its own; sleeping, not spinning. */
        usleep(500);
    }
    usleep(200 * 1000);
    bench_server_stop(&a); /* it writes the times its tokens fired */
    bench_server_stop(&b);
    mcp_client_free(ca);
    mcp_client_free(cb);
    latency out = cancel_latencies(log_path, written, n, "cluster cancels");
    for (int i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    free(written);
    printf("p50=%llu p99=%llu\n", out.p50, out.p99);
    return out.p99 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "cancel"))
        return cancel(argv[2], argv[3], atoi(argv[4]));
    if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "rate"))
        return rate(argv[2], atof(argv[3]), atoi(argv[4]), argc > 5 ? argv[5] : "task_echo",
                    argc > 6 ? argv[6] : NULL);
    fprintf(stderr, "usage: %s cancel BENCH_SERVER REDIS_URL N\n"
                    "       %s rate URL SECONDS CLIENTS [TOOL [ARGS]]\n",
            argv[0], argv[0]);
    return 2;
}
