/* SPDX-License-Identifier: MIT */
/*
 * The server side of bench_stdio's cancel and memory measurements.
 *   wait_cancel  holds the call; when its token fires, records the time
 *                (CLOCK_MONOTONIC, us) with the request's id
 *   hold         holds the call forever (never replies)
 *   rss          answers with this process's resident set size in bytes
 *   task_echo    answers "x" at once; may run as a task (2025-11-25)
 *   task_cancel  wait_cancel, which may run as a task
 * At exit the recorded cancel times are written to $BENCH_CANCEL_LOG as
 * "id microseconds" lines.
 *
 * usage: bench_server                        over stdio
 *        bench_server [serve] --http [127.0.0.1:]PORT [--task-store SPEC]
 *                                            Streamable HTTP on 127.0.0.1
 *                                            (PORT 0: any; "listening PORT"
 *                                            on stdout, and as mcp serve
 *                                            says it on stderr, so that the
 *                                            cluster scripts start it as
 *                                            they start mcp serve) until
 *                                            SIGTERM
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/mcp.h"

#define MAX_CANCELS 100000

static struct { long id; unsigned long long us; } fired[MAX_CANCELS];
static mcp_server *the_server;
static int nfired;

typedef struct pending {
    mcp_call *call;
    long id;
} pending;

static unsigned long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

/* Runs on the loop thread, the moment the token fires. */
static void token_fired(void *ud)
{
    pending *p = ud;
    if (nfired < MAX_CANCELS) {
        fired[nfired].id = p->id;
        fired[nfired++].us = now_us();
    }
    mcp_call_finish(p->call);
    free(p);
}

static void wait_cancel(void *ud, mcp_call *call)
{
    pending *p = malloc(sizeof *p);
    int64_t id = -1;
    mcp_json_get_int64(mcp_json_object_get(mcp_call_arguments(call), "id"), &id);
    p->call = call;
    p->id = (long)id;
    mcp_cancel_token_on_cancel(mcp_call_cancel_token(call), token_fired, p);
}

static void hold(void *ud, mcp_call *call)
{
    (void)call; /* never answered */
}

static void task_echo(void *ud, mcp_call *call)
{
    mcp_call_reply_text(call, "x");
}

static void rss(void *ud, mcp_call *call)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    char text[32];
    snprintf(text, sizeof text, "%ld", resident * 4096);
    mcp_call_reply_text(call, text);
}

static void *stop_on_signal(void *arg)
{
    sigset_t *set = arg;
    int sig;
    sigwait(set, &sig);
    mcp_server_stop(the_server);
    return NULL;
}

/* HTTP on 127.0.0.1:port until SIGTERM or SIGINT. */
static int serve_http(mcp_server *s, unsigned port)
{
    static sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_t waiter;
    pthread_create(&waiter, NULL, stop_on_signal, &set);
    mcp_server_http_options h = {.size = sizeof h, .host = "127.0.0.1", .port = port,
                                 .max_connections = 4096};
    if (mcp_server_listen_http(s, &h) != MCP_OK)
        return 1;
    printf("listening %u\n", mcp_server_http_port(s));
    fflush(stdout);
    fprintf(stderr, "bench_server: listening on http://127.0.0.1:%u/mcp\n",
            mcp_server_http_port(s));
    int rc = mcp_server_run(s);
    pthread_cancel(waiter);
    pthread_join(waiter, NULL);
    return rc == MCP_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *http = NULL, *store = NULL;
    int first = argc > 1 && !strcmp(argv[1], "serve") ? 2 : 1;
    for (int i = first; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--http"))
            http = strrchr(argv[i + 1], ':') ? strrchr(argv[i + 1], ':') + 1 : argv[i + 1];
        else if (!strcmp(argv[i], "--task-store"))
            store = argv[i + 1];
    }
    mcp_server_options o = {.size = sizeof o, .name = "bench", .max_in_flight = 200000, .shutdown_grace_ms = 100,
                            .log_level = MCP_LOG_ERROR, .task_max_per_client = 1000000,
                            .task_max_total = 1000000, .task_store = store,
                            .task_poll_interval_ms = 1};
    mcp_server *s;
    if (mcp_server_new(&o, &s) != MCP_OK)
        return 1;
    the_server = s;
    mcp_tool tools[] = {{.size = sizeof(mcp_tool), .name = "wait_cancel", .handler = wait_cancel},
                        {.size = sizeof(mcp_tool), .name = "hold", .handler = hold},
                        {.size = sizeof(mcp_tool), .name = "rss", .handler = rss},
                        {.size = sizeof(mcp_tool), .name = "task_echo", .handler = task_echo,
                         .task_support = MCP_TASK_OPTIONAL},
                        {.size = sizeof(mcp_tool), .name = "task_cancel", .handler = wait_cancel,
                         .task_support = MCP_TASK_OPTIONAL}};
    for (int i = 0; i < 5; i++)
        mcp_server_add_tool(s, &tools[i]);
    if (http)
        serve_http(s, (unsigned)strtoul(http, NULL, 10));
    else
        mcp_server_serve_stdio(s);
    const char *path = getenv("BENCH_CANCEL_LOG");
    if (path) {
        FILE *f = fopen(path, "w");
        for (int i = 0; f && i < nfired; i++)
            fprintf(f, "%ld %llu\n", fired[i].id, fired[i].us);
        if (f)
            fclose(f);
    }
    /* Held calls are never answered; exit without waiting for them. */
    return 0;
}
