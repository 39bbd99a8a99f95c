/*
 * mcp tools and mcp call: the client side of the command.
 *
 * Cancelling: the first Ctrl-C (or --cancel-after) sends
 * notifications/cancelled with the reason "cancelled by user", waits until
 * it is written, then closes the connection the way the spec says (end the
 * server's stdin, wait, TERM, KILL), still printing what arrives when
 * tracing. A second Ctrl-C exits at once.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "cli.h"
#include "mcp/mcp.h"

typedef struct call_args {
    double timeout, max_time, cancel_after; /* seconds; < 0: not given */
    bool json, trace;
    const char *tool, *args_json;
    char **command;
} call_args;

static bool parse_seconds(const char *opt, const char *v, bool allow_zero, double *out)
{
    char *end;
    double d = v ? strtod(v, &end) : NAN;
    if (!v || *end || !isfinite(d) || d < 0 || (!allow_zero && d == 0) || d > 1e9) {
        fprintf(stderr, "mcp: %s needs a number of seconds%s, not '%s'\n", opt,
                allow_zero ? "" : " above 0", v ? v : "");
        return false;
    }
    *out = d;
    return true;
}

/* Split "[options] [positionals] -- COMMAND..." Returns false after printing
 * the usage problem. */
static bool parse(int argc, char **argv, bool is_call, call_args *a)
{
    memset(a, 0, sizeof *a);
    a->timeout = a->max_time = a->cancel_after = -1;
    int i = 0, npos = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--json")) {
            a->json = true;
        } else if (is_call && !strcmp(s, "--trace")) {
            a->trace = true;
        } else if (is_call && (!strcmp(s, "--timeout") || !strcmp(s, "--max-time") ||
                               !strcmp(s, "--cancel-after"))) {
            double *dst = !strcmp(s, "--timeout") ? &a->timeout
                          : !strcmp(s, "--max-time") ? &a->max_time : &a->cancel_after;
            if (!parse_seconds(s, i + 1 < argc ? argv[i + 1] : NULL, dst == &a->cancel_after, dst))
                return false;
            i++;
        } else if (s[0] == '-' && s[1] == '-') {
            fprintf(stderr, "mcp: unknown option '%s'\n", s);
            return false;
        } else if (is_call && npos == 0) {
            a->tool = s;
            npos++;
        } else if (is_call && npos == 1) {
            a->args_json = s;
            npos++;
        } else {
            fprintf(stderr, "mcp: unexpected argument '%s' (the server command goes after --)\n", s);
            return false;
        }
    }
    if (is_call && !a->tool) {
        fputs("mcp: call needs a TOOL name\n", stderr);
        return false;
    }
    if (i >= argc || i + 1 >= argc) {
        fputs("mcp: missing '-- COMMAND [ARG...]': the server to start\n", stderr);
        return false;
    }
    a->command = argv + i + 1;
    return true;
}

static void usage_hint(void)
{
    fputs("try 'mcp --help'\n", stderr);
}

static uint64_t ms_or_default(double seconds)
{
    return seconds < 0 ? 0 : (uint64_t)llround(seconds * 1000);
}

static void trace_cb(void *ud, bool outgoing, const char *line, size_t len)
{
    cli_trace_line(NULL, outgoing, line, len);
}

/* Connect, or print why not and return the exit code. */
static int connect_client(const call_args *a, mcp_client **out)
{
    mcp_client_options o = {.name = "mcp", .version = mcp_version(),
                            .timeout_ms = ms_or_default(a->timeout),
                            .max_time_ms = ms_or_default(a->max_time)};
    if (a->trace)
        o.trace = trace_cb;
    mcp_client *c;
    if (mcp_client_new(&o, &c) != MCP_OK) {
        fputs("mcp: out of memory\n", stderr);
        return EXIT_CONNECTION;
    }
    int rc = mcp_client_connect_stdio(c, (const char *const *)a->command);
    if (rc != MCP_OK) {
        fprintf(stderr, "mcp: %s\n", mcp_client_error(c)[0] ? mcp_client_error(c)
                                                             : mcp_strerror(rc));
        mcp_client_free(c);
        return rc == MCP_ERR_TIMED_OUT ? EXIT_TIMEOUT : EXIT_CONNECTION;
    }
    *out = c;
    return 0;
}

/* mcp tools ----------------------------------------------------------------- */

int cli_tools(int argc, char **argv)
{
    call_args a;
    if (!parse(argc, argv, false, &a)) {
        usage_hint();
        return EXIT_USAGE;
    }
    mcp_client *c;
    int code = connect_client(&a, &c);
    if (code)
        return code;
    mcp_json_doc *tools;
    int rc = mcp_client_list_tools(c, &tools);
    if (rc != MCP_OK) {
        fprintf(stderr, "mcp: tools/list failed: %s\n",
                mcp_client_error(c)[0] ? mcp_client_error(c) : mcp_strerror(rc));
        mcp_client_free(c);
        return rc == MCP_ERR_TIMED_OUT || rc == MCP_ERR_MAX_TIME ? EXIT_TIMEOUT : EXIT_CONNECTION;
    }
    const mcp_json *list = mcp_json_doc_root(tools);
    if (a.json) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp_json_write(list, &b);
        printf("%s\n", b.data);
        mcp_buf_free(&b);
    } else {
        for (size_t i = 0; i < mcp_json_array_size(list); i++) {
            const mcp_json *t = mcp_json_array_at(list, i);
            const char *name = mcp_json_string(mcp_json_object_get(t, "name"), NULL);
            const char *desc = mcp_json_string(mcp_json_object_get(t, "description"), NULL);
            printf("%-20s %s\n", name ? name : "?", desc ? desc : "");
        }
    }
    mcp_json_doc_free(tools);
    mcp_client_free(c);
    return 0;
}

/* mcp call ------------------------------------------------------------------- */

typedef struct call_state {
    mcp_client *client;
    const call_args *args;
    mcp_handle handle;
    bool done, user_cancelled;
    mcp_call_result result;
    bool bar;        /* draw a progress bar on stderr */
    bool bar_drawn;
    uv_signal_t sigint;
    uv_timer_t cancel_timer;
} call_state;

static void clear_bar(call_state *st)
{
    if (st->bar_drawn) {
        fputs("\r\033[K", stderr);
        st->bar_drawn = false;
    }
}

static void on_progress(void *ud, mcp_handle h, double progress, double total, const char *message)
{
    call_state *st = ud;
    if (!st->bar)
        return;
    char line[200];
    if (!isnan(total) && total > 0) {
        int width = 30, filled = (int)(width * (progress > total ? 1 : progress / total));
        char bar[31];
        for (int i = 0; i < width; i++)
            bar[i] = i < filled ? '#' : '-';
        bar[width] = 0;
        snprintf(line, sizeof line, "%s [%s] %g/%g%s%s", st->args->tool, bar, progress, total,
                 message ? "  " : "", message ? message : "");
    } else {
        snprintf(line, sizeof line, "%s: %g%s%s", st->args->tool, progress, message ? "  " : "",
                 message ? message : "");
    }
    fprintf(stderr, "\r\033[K%s", line);
    st->bar_drawn = true;
}

static void on_done(void *ud, const mcp_call_result *r)
{
    call_state *st = ud;
    st->result = *r;
    mcp_message_retain(r->response);
    st->done = true;
}

static void second_interrupt(int sig)
{
    (void)sig;
    _exit(EXIT_CANCELLED); /* async-signal-safe: nothing else */
}

static void cancel_by_user(call_state *st)
{
    if (st->user_cancelled || st->done)
        return;
    st->user_cancelled = true;
    clear_bar(st);
    fprintf(stderr, "cancelling %s (request %llu)...\n", st->args->tool,
            (unsigned long long)st->handle);
    /* From now on a Ctrl-C exits at once. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = second_interrupt;
    sigaction(SIGINT, &sa, NULL);
    mcp_client_cancel(st->client, st->handle, "cancelled by user");
}

static void on_sigint(uv_signal_t *s, int signum)
{
    cancel_by_user(s->data);
}

static void on_cancel_timer(uv_timer_t *t)
{
    cancel_by_user(t->data);
}

static void print_content(const mcp_json *result)
{
    const mcp_json *content = mcp_json_object_get(result, "content");
    bool printed = false;
    for (size_t i = 0; i < mcp_json_array_size(content); i++) {
        const mcp_json *item = mcp_json_array_at(content, i);
        const char *type = mcp_json_string(mcp_json_object_get(item, "type"), NULL);
        size_t n;
        const char *text = mcp_json_string(mcp_json_object_get(item, "text"), &n);
        if (type && !strcmp(type, "text") && text) {
            fwrite(text, 1, n, stdout);
            fputc('\n', stdout);
        } else {
            const char *mime = mcp_json_string(mcp_json_object_get(item, "mimeType"), NULL);
            printf("[%s%s%s]\n", type ? type : "content", mime ? " " : "", mime ? mime : "");
        }
        printed = true;
    }
    const mcp_json *structured = mcp_json_object_get(result, "structuredContent");
    if (!printed && structured) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp_json_write(structured, &b);
        printf("%s\n", b.data);
        mcp_buf_free(&b);
    }
}

static int report(call_state *st)
{
    const call_args *a = st->args;
    mcp_call_result *r = &st->result;
    switch (r->outcome) {
    case MCP_OK:
        if (a->json) {
            mcp_buf b;
            mcp_buf_init(&b, 0, NULL);
            mcp_json_write(r->result, &b);
            printf("%s\n", b.data);
            mcp_buf_free(&b);
        } else {
            print_content(r->result);
        }
        if (r->is_error) {
            fprintf(stderr, "mcp: %s reported an error\n", a->tool);
            return EXIT_TOOL_ERROR;
        }
        return 0;
    case MCP_ERR_REMOTE:
        fprintf(stderr, "mcp: %s failed: %s (JSON-RPC error %lld)\n", a->tool, r->error_message,
                (long long)r->error_code);
        return EXIT_CONNECTION;
    case MCP_ERR_TIMED_OUT:
        fprintf(stderr, "mcp: %s timed out after %g s without an answer or progress; cancelled\n",
                a->tool, a->timeout < 0 ? 60 : a->timeout);
        return EXIT_TIMEOUT;
    case MCP_ERR_MAX_TIME:
        fprintf(stderr, "mcp: %s exceeded the maximum time of %g s; cancelled\n", a->tool,
                a->max_time < 0 ? 1800 : a->max_time);
        return EXIT_TIMEOUT;
    case MCP_ERR_ABORTED:
        return EXIT_CANCELLED;
    default:
        fprintf(stderr, "mcp: %s: %s\n", a->tool,
                mcp_client_error(st->client)[0] ? mcp_client_error(st->client)
                                                : mcp_strerror(r->outcome));
        return EXIT_CONNECTION;
    }
}

int cli_call(int argc, char **argv)
{
    call_args a;
    if (!parse(argc, argv, true, &a)) {
        usage_hint();
        return EXIT_USAGE;
    }
    mcp_json_doc *args = NULL;
    if (a.args_json) {
        mcp_json_error err;
        if (mcp_json_parse(a.args_json, strlen(a.args_json), NULL, NULL, &args, &err) != MCP_OK) {
            fprintf(stderr, "mcp: ARGS_JSON is not valid JSON: %s\n", err.message);
            return EXIT_USAGE;
        }
        if (mcp_json_typeof(mcp_json_doc_root(args)) != MCP_JSON_OBJECT) {
            fputs("mcp: ARGS_JSON must be a JSON object, like '{\"text\":\"hi\"}'\n", stderr);
            mcp_json_doc_free(args);
            return EXIT_USAGE;
        }
    }
    call_state st;
    memset(&st, 0, sizeof st);
    st.args = &a;
    st.bar = isatty(STDERR_FILENO) && !a.trace;
    int code = connect_client(&a, &st.client);
    if (code) {
        mcp_json_doc_free(args);
        return code;
    }
    uv_loop_t *loop = mcp_client_loop(st.client);
    uv_signal_init(loop, &st.sigint);
    st.sigint.data = &st;
    uv_signal_start(&st.sigint, on_sigint, SIGINT);
    uv_timer_init(loop, &st.cancel_timer);
    st.cancel_timer.data = &st;

    mcp_call_options co = {.timeout_ms = ms_or_default(a.timeout),
                           .max_time_ms = ms_or_default(a.max_time),
                           .on_progress = on_progress,
                           .progress_user_data = &st};
    int rc = mcp_client_call_tool_async(st.client, a.tool, mcp_json_doc_root(args), &co, on_done,
                                        &st, &st.handle);
    mcp_json_doc_free(args);
    if (rc != MCP_OK) {
        fprintf(stderr, "mcp: cannot call %s: %s\n", a.tool, mcp_strerror(rc));
        code = EXIT_CONNECTION;
    } else {
        if (a.cancel_after >= 0)
            uv_timer_start(&st.cancel_timer, on_cancel_timer, ms_or_default(a.cancel_after), 0);
        while (!st.done)
            mcp_client_run_once(st.client, true);
        clear_bar(&st);
        if (st.user_cancelled)
            mcp_client_flush(st.client); /* the cancel is on the wire */
        code = st.user_cancelled ? EXIT_CANCELLED : report(&st);
    }
    /* Our handles first: the client's close runs the loop until it is
     * empty. */
    uv_close((uv_handle_t *)&st.sigint, NULL);
    uv_close((uv_handle_t *)&st.cancel_timer, NULL);
    mcp_client_free(st.client);
    mcp_call_result_release(&st.result);
    fflush(stdout);
    return code;
}
