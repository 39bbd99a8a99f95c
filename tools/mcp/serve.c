/* SPDX-License-Identifier: MIT */
/*
 * mcp serve: the demo server on stdio, for clients of every revision, with
 * tools that show the lifecycle: echo (instant), sleep (returns early when
 * cancelled), count (progress and log messages, cancellable between steps),
 * fail (a tool error) and add_tool (changes the tool list while serving:
 * subscribers hear tools/list_changed).
 */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

static mcp_server *the_server;

static void tool_echo(mcp_call *call, void *ud)
{
    size_t n;
    const char *text = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "text"), &n);
    if (!text) {
        mcp_call_reply_tool_error(call, "echo: argument 'text' (a string) is required");
        return;
    }
    mcp_call_reply_text_n(call, text, n); /* all of it, NUL characters included */
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
        mcp_call_send_log(call, MCP_LOGGING_DEBUG, msg); /* sent if the client asked */
    }
    char text[64];
    snprintf(text, sizeof text, "counted to %ld", (long)n);
    mcp_call_reply_text(call, text);
}

static void tool_fail(mcp_call *call, void *ud)
{
    size_t n;
    const char *m = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "message"), &n);
    if (!m || !memchr(m, '\0', n)) {
        mcp_call_reply_tool_error(call, m ? m : "failed as asked");
        return;
    }
    /* All of it, NUL characters included (as echo does): the result built
     * by hand, since reply_tool_error takes a C string. */
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    if (!d) {
        mcp_call_reply_tool_error(call, "fail: out of memory");
        return;
    }
    mcp_json *result = mcp_json_new_object(d), *content = mcp_json_new_array(d);
    mcp_json *item = mcp_json_new_object(d);
    mcp_json_object_set(d, item, "type", mcp_json_new_string(d, "text"));
    mcp_json_object_set(d, item, "text", mcp_json_new_stringn(d, m, n));
    mcp_json_array_append(d, content, item);
    mcp_json_object_set(d, result, "content", content);
    mcp_json_object_set(d, result, "isError", mcp_json_new_bool(d, true));
    if (mcp_json_doc_error(d) == MCP_OK)
        mcp_call_reply_result(call, result);
    else
        mcp_call_reply_tool_error(call, "fail: out of memory");
    mcp_json_doc_free(d);
}

/* The tools add_tool creates: echo under another name. */
static void tool_added(mcp_call *call, void *ud)
{
    char text[200];
    snprintf(text, sizeof text, "%s was added by add_tool", mcp_call_tool_name(call));
    mcp_call_reply_text(call, text);
}

static void tool_add(mcp_call *call, void *ud)
{
    size_t n;
    const char *name = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "name"), &n);
    if (!name) {
        mcp_call_reply_tool_error(call, "add_tool: argument 'name' (a string) is required");
        return;
    }
    if (memchr(name, '\0', n)) { /* would be cut there: "a\u0000b" would add "a" */
        mcp_call_reply_tool_error(call, "add_tool: the name must not contain NUL characters");
        return;
    }
    mcp_tool t = {.size = sizeof t,
                  .name = name,
                  .description = "A tool added while serving, by add_tool.",
                  .handler = tool_added};
    int rc = mcp_server_add_tool(the_server, &t);
    if (rc != MCP_OK) {
        char why[200];
        snprintf(why, sizeof why, "add_tool: cannot add '%.100s': %s", name,
                 rc == MCP_ERR_INVALID_ARG ? "an invalid or existing name" : mcp_strerror(rc));
        mcp_call_reply_tool_error(call, why);
        return;
    }
    char text[200];
    snprintf(text, sizeof text, "added %.100s; tools/list_changed published", name);
    mcp_call_reply_text(call, text);
}

static void trace_stderr(void *ud, bool outgoing, const char *line, size_t len)
{
    cli_trace_line("mcp serve", outgoing, line, len);
}

/* SIGTERM and Ctrl-C end the server gracefully, SIGUSR1 adds a tool (a
 * list change to watch from outside: kill -USR1): a thread waits for them
 * (they are blocked everywhere else) and acts from there. */
static void *signal_waiter(void *arg)
{
    sigset_t *set = arg;
    int sig, added = 0;
    while (sigwait(set, &sig) == 0) {
        if (sig == SIGUSR1) {
            char name[32];
            snprintf(name, sizeof name, "added_%d", ++added);
            mcp_tool t = {.size = sizeof t,
                          .name = name,
                          .description = "A tool added while serving, by SIGUSR1.",
                          .handler = tool_added};
            int rc = mcp_server_add_tool(the_server, &t);
            fprintf(stderr, "mcp serve: SIGUSR1: %s %s\n", rc == MCP_OK ? "added" : "could not add",
                    name);
            continue;
        }
        fprintf(stderr, "mcp serve: %s: stopping\n", sig == SIGTERM ? "SIGTERM" : "interrupted");
        mcp_server_stop(the_server);
        break;
    }
    return NULL;
}

int cli_serve(int argc, char **argv)
{
    if (argc > 0) {
        if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
            cli_usage("serve", true);
            return 0;
        }
        fprintf(stderr, "mcp serve: unexpected argument '%s'\ntry 'mcp serve --help'\n",
                cli_safe(argv[0]));
        return EXIT_USAGE;
    }
    mcp_server_options o = {.size = sizeof o,
                            .name = "mcp serve",
                            .version = mcp_version(),
                            .instructions = "A demo server: echo, sleep, count, fail and add_tool."};
    const char *trace = getenv("MCP_TRACE");
    if (trace && *trace && strcmp(trace, "0") != 0)
        o.trace = trace_stderr;
    if (mcp_server_new(&o, &the_server) != MCP_OK) {
        fputs("mcp serve: out of memory\n", stderr);
        return EXIT_CONNECTION;
    }
    const mcp_tool tools[] = {
        {sizeof(mcp_tool), "echo", "Echo", "Returns the text it is given.",
         "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
         NULL, tool_echo, NULL, 0, NULL},
        {sizeof(mcp_tool), "sleep", "Sleep",
         "Sleeps for the given seconds; returns early when cancelled.",
         "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\",\"minimum\":0}},"
         "\"required\":[\"seconds\"]}",
         NULL, tool_sleep, NULL, MCP_TOOL_BLOCKING, NULL},
        {sizeof(mcp_tool), "count", "Count",
         "Counts to n, one step every delay_ms, reporting progress.",
         "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0},"
         "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"n\",\"delay_ms\"]}",
         NULL, tool_count, NULL, MCP_TOOL_BLOCKING, NULL},
        {sizeof(mcp_tool), "fail", "Fail",
         "Always fails, with the given message (an isError result).",
         "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}", NULL,
         tool_fail, NULL, 0, NULL},
        {sizeof(mcp_tool), "add_tool", "Add a tool",
         "Adds a tool with the given name while serving: clients listening for tool list "
         "changes are told.",
         "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
         "\"required\":[\"name\"]}",
         NULL, tool_add, NULL, 0, NULL},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (mcp_server_add_tool(the_server, &tools[i]) != MCP_OK) {
            fprintf(stderr, "mcp serve: cannot register tool %s\n", tools[i].name);
            return EXIT_CONNECTION;
        }
    static sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, NULL); /* inherited by every thread from here */
    pthread_t waiter;
    bool have_waiter = pthread_create(&waiter, NULL, signal_waiter, &set) == 0;
    int rc = mcp_server_serve_stdio(the_server);
    if (have_waiter) {
        pthread_cancel(waiter); /* sigwait is a cancellation point */
        pthread_join(waiter, NULL);
    }
    mcp_server_free(the_server);
    if (rc == MCP_ERR_IO) {
        /* stdin or stdout could not be used, reading failed, or writing did
         * (the reader went away, a write error, the output cap): replies
         * may be lost. The library logged which. */
        fputs("mcp serve: stopped: the connection failed (stdin or stdout; see above): "
              "replies may be lost\n", stderr);
        return EXIT_CONNECTION;
    }
    if (rc != MCP_OK) {
        fprintf(stderr, "mcp serve: stopped: %s\n", mcp_strerror(rc));
        return EXIT_CONNECTION;
    }
    return 0;
}
