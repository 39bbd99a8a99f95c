/*
 * mcp serve: the demo server on stdio, with four tools that show the
 * lifecycle: echo (instant), sleep (returns early when cancelled), count
 * (progress, cancellable between steps) and fail (a tool error).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcp/mcp.h"

static void tool_echo(mcp_call *call, void *ud)
{
    const char *text = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "text"), NULL);
    if (!text) {
        mcp_call_reply_tool_error(call, "echo: argument 'text' (a string) is required");
        return;
    }
    mcp_call_reply_text(call, text);
}

/* A number argument within [lo, hi], or an error message. */
static const char *number_arg(mcp_call *call, const char *name, double lo, double hi,
                              double *out)
{
    static _Thread_local char why[128];
    if (mcp_json_get_double(mcp_json_object_get(mcp_call_arguments(call), name), out) != MCP_OK ||
        !(*out >= lo && *out <= hi)) {
        snprintf(why, sizeof why, "%s: argument '%s' must be a number from %g to %g",
                 mcp_call_tool_name(call), name, lo, hi);
        return why;
    }
    return NULL;
}

static void tool_sleep(mcp_call *call, void *ud)
{
    double seconds;
    const char *bad = number_arg(call, "seconds", 0, 86400, &seconds);
    if (bad) {
        mcp_call_reply_tool_error(call, bad);
        return;
    }
    mcp_cancel_token *t = mcp_call_cancel_token(call);
    uint64_t start = mcp_monotonic_ms();
    if (mcp_cancel_token_wait(t, (uint64_t)(seconds * 1000))) {
        mcp_call_log(call, MCP_LOG_INFO, "cancelled after %llu ms (%s)",
                     (unsigned long long)(mcp_monotonic_ms() - start),
                     mcp_cancel_token_reason(t) ? mcp_cancel_token_reason(t) : "no reason");
        mcp_call_finish(call);
        return;
    }
    char text[64];
    snprintf(text, sizeof text, "slept %g seconds", seconds);
    mcp_call_reply_text(call, text);
}

static void tool_count(mcp_call *call, void *ud)
{
    double n, delay;
    const char *bad = number_arg(call, "n", 0, 1000000, &n);
    if (!bad)
        bad = number_arg(call, "delay_ms", 0, 3600000, &delay);
    if (bad || n != floor(n)) {
        mcp_call_reply_tool_error(call, bad ? bad : "count: argument 'n' must be an integer");
        return;
    }
    mcp_cancel_token *t = mcp_call_cancel_token(call);
    for (long i = 1; i <= (long)n; i++) {
        if (mcp_cancel_token_wait(t, (uint64_t)delay)) {
            mcp_call_log(call, MCP_LOG_INFO, "cancelled at step %ld of %ld (%s)", i - 1, (long)n,
                         mcp_cancel_token_reason(t) ? mcp_cancel_token_reason(t) : "no reason");
            mcp_call_finish(call);
            return;
        }
        char msg[64];
        snprintf(msg, sizeof msg, "step %ld of %ld", i, (long)n);
        int rc = mcp_call_progress(call, (double)i, n, msg);
        if (rc != MCP_OK && rc != MCP_ERR_STATE) /* STATE: no progress asked for */
            break;
    }
    char text[64];
    snprintf(text, sizeof text, "counted to %ld", (long)n);
    mcp_call_reply_text(call, text);
}

static void tool_fail(mcp_call *call, void *ud)
{
    const char *m = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "message"), NULL);
    mcp_call_reply_tool_error(call, m ? m : "failed as asked");
}

static void trace_stderr(void *ud, bool outgoing, const char *line, size_t len)
{
    cli_trace_line("mcp serve", outgoing, line, len);
}

int cli_serve(int argc, char **argv)
{
    if (argc > 0) {
        if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
            fputs("usage: mcp serve\n\nThe demo server on stdin/stdout, with tools echo, sleep, "
                  "count and fail.\nLogs go to stderr (MCP_LOG_LEVEL=debug|info|warn|error); "
                  "MCP_TRACE=1 prints every message.\n", stdout);
            return 0;
        }
        fprintf(stderr, "mcp serve: unexpected argument '%s'\n", argv[0]);
        return 2;
    }
    mcp_server_options o = {.name = "mcp serve", .version = mcp_version(),
                            .instructions = "A demo server: echo, sleep, count and fail."};
    const char *trace = getenv("MCP_TRACE");
    if (trace && *trace && strcmp(trace, "0") != 0)
        o.trace = trace_stderr;
    mcp_server *s;
    if (mcp_server_new(&o, &s) != MCP_OK) {
        fputs("mcp serve: out of memory\n", stderr);
        return 3;
    }
    const mcp_tool tools[] = {
        {"echo", "Echo", "Returns the text it is given.",
         "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
         NULL, tool_echo, NULL, 0},
        {"sleep", "Sleep", "Sleeps for the given seconds; returns early when cancelled.",
         "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\",\"minimum\":0}},"
         "\"required\":[\"seconds\"]}",
         NULL, tool_sleep, NULL, MCP_TOOL_BLOCKING},
        {"count", "Count", "Counts to n, one step every delay_ms, reporting progress.",
         "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0},"
         "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"n\",\"delay_ms\"]}",
         NULL, tool_count, NULL, MCP_TOOL_BLOCKING},
        {"fail", "Fail", "Always fails, with the given message (an isError result).",
         "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}",
         NULL, tool_fail, NULL, 0},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (mcp_server_add_tool(s, &tools[i]) != MCP_OK) {
            fprintf(stderr, "mcp serve: cannot register tool %s\n", tools[i].name);
            return 3;
        }
    int rc = mcp_server_serve_stdio(s);
    mcp_server_free(s);
    return rc == MCP_OK ? 0 : 3;
}
