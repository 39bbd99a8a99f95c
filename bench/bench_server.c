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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/mcp.h"

#define MAX_CANCELS 100000

static struct { long id; unsigned long long us; } fired[MAX_CANCELS];
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

int main(void)
{
    mcp_server_options o = {.size = sizeof o, .name = "bench", .max_in_flight = 200000, .shutdown_grace_ms = 100,
                            .log_level = MCP_LOG_ERROR, .task_max_per_client = 1000000,
                            .task_max_total = 1000000};
    mcp_server *s;
    if (mcp_server_new(&o, &s) != MCP_OK)
        return 1;
    mcp_tool tools[] = {{.size = sizeof(mcp_tool), .name = "wait_cancel", .handler = wait_cancel},
                        {.size = sizeof(mcp_tool), .name = "hold", .handler = hold},
                        {.size = sizeof(mcp_tool), .name = "rss", .handler = rss},
                        {.size = sizeof(mcp_tool), .name = "task_echo", .handler = task_echo,
                         .task_support = MCP_TASK_OPTIONAL},
                        {.size = sizeof(mcp_tool), .name = "task_cancel", .handler = wait_cancel,
                         .task_support = MCP_TASK_OPTIONAL}};
    for (int i = 0; i < 5; i++)
        mcp_server_add_tool(s, &tools[i]);
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
