/* SPDX-License-Identifier: MIT */
/*
 * mcp call: call one tool.
 *
 * Cancelling: the first Ctrl-C or SIGTERM (or --cancel-after) sends
 * notifications/cancelled with the reason "cancelled by user", waits until
 * it is written, then closes the connection the way the spec says (end the
 * server's stdin, wait, TERM, KILL), still printing what arrives when
 * tracing. A second signal exits at once, killing the server (SIGKILL): a
 * server that ignores the end of its input and SIGTERM is not left behind.
 *
 * The server's questions during the call (a form to fill in, a model's
 * answer) are answered by ask.c: on a terminal the user fills the form in,
 * or consents to a page the server names (URL mode; mcp never opens it);
 * elsewhere it is declined; sampling goes to --sampling-command, or is
 * declined; roots/list is answered with the --root URIs. Ctrl-C while a
 * question is open cancels the call as always. A call refused until the
 * user has been to some pages (-32042) names them, and exits 3.
 *
 * Tasks (2025-11-25): --task runs the call as a task (a tool whose listing
 * says it must be one runs as one without it), --ttl asks for its lifetime;
 * under 2026-07-28 --task declares the tasks extension on the call and the
 * server decides (no ttl is asked for there);
 * its status changes are shown on stderr, Ctrl-C sends tasks/cancel (never
 * notifications/cancelled) and prints the state it ended in. --detach starts
 * the task, prints its id and exits: the task is the server's to keep.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "cli.h"
#include "text.h"

typedef struct call_state {
    mcp_client *client;
    const cli_client_args *args;
    const char *tool;
    mcp_handle handle;
    bool done;
    int cancelled_by; /* 0, or the exit code of the cancel */
    mcp_client_call_result result;
    bool bar;        /* draw a progress bar on stderr */
    bool bar_drawn;
    uv_signal_t sigint, sigterm;
    uv_timer_t cancel_timer;
    cli_asker asker;
    char *task_id;          /* the task it runs as, once known (owned; a server's
                               id of any length: it is named back to it) */
    char task_status[32];   /* its last status */
} call_state;

static void clear_bar(call_state *st)
{
    if (st->bar_drawn) {
        fputs("\r\033[K", stderr);
        st->bar_drawn = false;
    }
}

static void on_progress(void *ud, mcp_handle h, double progress, double total,
                        const char *message)
{
    call_state *st = ud;
    /* Not over a question being asked on the terminal. */
    if (!st->bar || atomic_load(&st->asker.open) > 0)
        return;
    char line[200];
    if (!isnan(total) && total > 0) {
        int width = 30, filled = (int)(width * (progress > total ? 1 : progress / total));
        char bar[31];
        for (int i = 0; i < width; i++)
            bar[i] = i < filled ? '#' : '-';
        bar[width] = 0;
        snprintf(line, sizeof line, "%s [%s] %g/%g%s%s", cli_safe(st->tool), bar, progress,
                 total, message ? "  " : "", message ? cli_safe(message) : "");
    } else {
        snprintf(line, sizeof line, "%s: %g%s%s", cli_safe(st->tool), progress,
                 message ? "  " : "", message ? cli_safe(message) : "");
    }
    fprintf(stderr, "\r\033[K%s", line);
    st->bar_drawn = true;
}

/* A Task the server told about: its status changes, on stderr. */
static void on_task(void *ud, mcp_handle h, const mcp_json *task)
{
    call_state *st = ud;
    size_t n, sn;
    const char *id = mcp_json_string(mcp_json_object_get(task, "taskId"), &n);
    const char *status = mcp_json_string(mcp_json_object_get(task, "status"), &sn);
    const char *message = mcp_json_string(mcp_json_object_get(task, "statusMessage"), NULL);
    if (id && !st->task_id && !memchr(id, '\0', n))
        st->task_id = strndup(id, n); /* out of memory: shown as "?" */
    if (!status || sn >= sizeof st->task_status ||
        (strlen(st->task_status) == sn && !memcmp(st->task_status, status, sn)))
        return;
    snprintf(st->task_status, sizeof st->task_status, "%.*s", (int)sn, status);
    clear_bar(st);
    fprintf(stderr, "task %s: %s%s%s\n", st->task_id ? cli_safe(st->task_id) : "?",
            cli_safe(st->task_status),
            message ? ": " : "", message ? cli_safe(message) : "");
}

static void before_asking(void *ud)
{
    clear_bar(ud);
}

static void on_done(void *ud, const mcp_client_call_result *r)
{
    call_state *st = ud;
    st->result = *r;
    mcp_message_retain(r->response);
    st->done = true;
}

static void cancel_by_user(call_state *st, int code)
{
    if (st->cancelled_by || st->done)
        return;
    st->cancelled_by = code;
    clear_bar(st);
    fprintf(stderr, "cancelling %s (request %llu)...\n", cli_safe(st->tool),
            (unsigned long long)st->handle);
    /* From now on a Ctrl-C or SIGTERM exits at once. */
    cli_exit_at_once(st->client, &st->sigint, &st->sigterm);
    mcp_client_cancel(st->client, st->handle, "cancelled by user");
}

static void on_signal(uv_signal_t *s, int signum)
{
    cancel_by_user(s->data, signum == SIGTERM ? EXIT_TERMINATED : EXIT_CANCELLED);
}

static void on_cancel_timer(uv_timer_t *t)
{
    cancel_by_user(t->data, EXIT_CANCELLED);
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
            cli_write_payload(text, n); /* the result itself: as it is, but not to a terminal */
            fputc('\n', stdout);
        } else {
            /* A resource link (or an embedded resource) is its URI: what
             * the user reads or fetches next. */
            const mcp_json *resource = mcp_json_object_get(item, "resource");
            const mcp_json *where = resource ? resource : item;
            size_t uri_len;
            const char *uri = mcp_json_string(mcp_json_object_get(where, "uri"), &uri_len);
            const char *mime = mcp_json_string(mcp_json_object_get(where, "mimeType"), NULL);
            printf("[%s%s%s]%s%s\n", type ? cli_safe(type) : "content", mime ? " " : "",
                   mime ? cli_safe(mime) : "", uri ? " " : "", uri ? cli_safe_n(uri, uri_len) : "");
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

/* URLElicitationRequiredError (-32042, 2025-11-25): the call can be made
 * only once the user has been to these pages. mcp opens none of them. */
static int report_url_required(call_state *st)
{
    const mcp_message *m = st->result.response;
    const mcp_json *list = mcp_json_object_get(m->error_data, "elicitations");
    fprintf(stderr, "mcp: %s needs you to open %s first: %s (JSON-RPC error %lld)\n",
            cli_safe(st->tool), mcp_json_array_size(list) == 1 ? "a web page" : "web pages",
            cli_safe_n(m->error_message, m->error_message_len), (long long)m->error_code);
    size_t usable = 0;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    for (size_t i = 0; i < mcp_json_array_size(list); i++) {
        const mcp_json *e = mcp_json_array_at(list, i);
        const char *mode = mcp_json_string(mcp_json_object_get(e, "mode"), NULL);
        b.len = 0;
        if (mode && !strcmp(mode, "url") && cli_describe_url(&b, e, "  "))
            usable++;
        else if (!mode || strcmp(mode, "url"))
            {
            const char *skip = "  (an entry that is not a URL-mode elicitation: skipped)\n";
            mcp_buf_append(&b, skip, strlen(skip));
        }
        fprintf(stderr, "%s%.*s", i ? "\n" : "", (int)b.len, b.data ? b.data : "");
    }
    mcp_buf_free(&b);
    if (usable)
        fprintf(stderr, "mcp: mcp does not open %s: open %s in a browser yourself, finish "
                        "there, then call %s again\n",
                usable == 1 ? "it" : "them", usable == 1 ? "it" : "each", cli_safe(st->tool));
    else
        fputs("mcp: the server named no page that can be opened\n", stderr);
    return EXIT_CONNECTION;
}

static int report(call_state *st)
{
    const cli_client_args *a = st->args;
    mcp_client_call_result *r = &st->result;
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
            fprintf(stderr, "mcp: %s reported an error\n", cli_safe(st->tool));
            return EXIT_TOOL_ERROR;
        }
        return 0;
    case MCP_ERR_REMOTE:
        if (r->error_code == MCP_WIRE_URL_ELICITATION_REQUIRED && r->response)
            return report_url_required(st);
        fprintf(stderr, "mcp: %s failed: %s (JSON-RPC error %lld)\n", cli_safe(st->tool),
                r->response ? cli_safe_n(r->response->error_message,
                                         r->response->error_message_len)
                            : cli_safe(r->error_message),
                (long long)r->error_code);
        return EXIT_CONNECTION;
    case MCP_ERR_HTTP: /* the message names the status, or the network's failure */
        fprintf(stderr, "mcp: %s failed: %s\n", cli_safe(st->tool),
                r->response ? cli_safe_n(r->response->error_message,
                                         r->response->error_message_len)
                            : cli_safe(r->error_message));
        return EXIT_CONNECTION;
    case MCP_ERR_TIMED_OUT:
        fprintf(stderr, "mcp: %s timed out after %g s without an answer or progress; cancelled\n",
                cli_safe(st->tool), a->timeout < 0 ? 60 : a->timeout);
        return EXIT_TIMEOUT;
    case MCP_ERR_MAX_TIME:
        fprintf(stderr, "mcp: %s exceeded the maximum time of %g s; cancelled\n", cli_safe(st->tool),
                a->max_time < 0 ? 1800 : a->max_time);
        return EXIT_TIMEOUT;
    case MCP_ERR_TOO_LARGE:
        fprintf(stderr, "mcp: %s: the response was too large (over the message size limit)\n",
                cli_safe(st->tool));
        return EXIT_CONNECTION;
    case MCP_ERR_ABORTED:
        /* Not the user's cancel (that is reported before): under 2026-07-28
         * a question answered with an error (a declined sampling) ends the
         * call here, as the tool would have under 2025. */
        fprintf(stderr, "mcp: %s: %s\n", cli_safe(st->tool),
                mcp_client_error(st->client)[0] ? cli_safe(mcp_client_error(st->client))
                                                : mcp_strerror(r->outcome));
        return EXIT_TOOL_ERROR;
    default:
        fprintf(stderr, "mcp: %s: %s\n", cli_safe(st->tool),
                mcp_client_error(st->client)[0] ? cli_safe(mcp_client_error(st->client))
                                                : mcp_strerror(r->outcome));
        return EXIT_CONNECTION;
    }
}

/* After a cancel: the state the task ended in, as the server says. */
static void report_task_end(call_state *st)
{
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 5000, .max_time_ms = 5000};
    mcp_client_call_result r = {.size = sizeof r};
    if (mcp_client_task_get(st->client, st->task_id, &o, &r) == MCP_OK) {
        const char *status = mcp_json_string(mcp_json_object_get(r.result, "status"), NULL);
        fprintf(stderr, "task %s: %s\n", cli_safe(st->task_id),
                status ? cli_safe(status) : "(no status)");
    } else {
        fprintf(stderr, "task %s: its state could not be read: %s\n", cli_safe(st->task_id),
                r.error_message ? cli_safe(r.error_message) : mcp_strerror(r.outcome));
    }
    mcp_client_call_result_release(&r);
}

/* --detach: the task's id on stdout (its whole Task with --json). */
static int report_detached(call_state *st)
{
    /* 2025-11-25 nests the Task; 2026-07-28's CreateTaskResult is it. */
    const mcp_json *task = mcp_json_object_get(st->result.result, "task");
    if (!task && mcp_json_object_get(st->result.result, "taskId"))
        task = st->result.result;
    size_t n;
    const char *id = mcp_json_string(mcp_json_object_get(task, "taskId"), &n);
    if (!id) {
        fprintf(stderr, "mcp: %s: the server answered without a task\n", cli_safe(st->tool));
        return EXIT_CONNECTION;
    }
    if (st->args->json) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp_json_write(task, &b);
        printf("%s\n", b.data);
        mcp_buf_free(&b);
    } else {
        cli_write_payload(id, n);
        fputc('\n', stdout);
    }
    return 0;
}

/* --root: the roots mcp call declares and answers roots/list with. */
#define MAX_ROOTS 16
typedef struct call_roots {
    const char *uri[MAX_ROOTS];
    size_t count;
} call_roots;

static bool root_option(int argc, char **argv, int i, call_roots *roots)
{
    const char *v = cli_option_value(argc, argv, i, "a file:// URI, like file:///home/me/project");
    if (!v)
        return false;
    /* The library's rule for a root (client/roots.mdx: file:// URIs),
     * said here before any server is started. */
    if (strncmp(v, "file://", 7) != 0) {
        fprintf(stderr, "mcp: --root takes a file:// URI (roots are file:// URIs), not '%s'\n",
                cli_safe(v));
        return false;
    }
    if (mcp_utf8_validate(v, strlen(v), NULL) != MCP_OK) {
        fprintf(stderr, "mcp: the --root URI '%s' is not valid UTF-8\n", cli_safe(v));
        return false;
    }
    if (roots->count == MAX_ROOTS) {
        fprintf(stderr, "mcp: at most %d --root options\n", MAX_ROOTS);
        return false;
    }
    roots->uri[roots->count++] = v;
    return true;
}

/* [{"uri": ...}, ...] of the --root options, or NULL when out of memory. */
static mcp_json_doc *roots_json(const call_roots *roots)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *list = d ? mcp_json_new_array(d) : NULL;
    for (size_t i = 0; list && i < roots->count; i++) {
        mcp_json *r = mcp_json_new_object(d);
        mcp_json_object_set(d, r, "uri", mcp_json_new_string(d, roots->uri[i]));
        mcp_json_array_append(d, list, r);
    }
    if (!list || mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        return NULL;
    }
    mcp_json_doc_set_root(d, list);
    return d;
}

typedef struct task_args {
    bool task, detach;
    uint64_t ttl_ms;
    double ttl;
} task_args;

static bool parse(int argc, char **argv, cli_client_args *a, const char **tool,
                  const char **args_json, uint64_t *cancel_ms, const char **sampling,
                  call_roots *roots, task_args *t, int *code)
{
    int i = 0, npos = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *s = argv[i];
        int used = cli_client_option(argc, argv, &i, a);
        if (used < 0)
            return false;
        if (used)
            continue;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            cli_usage("call", true);
            *code = 0;
            return false;
        } else if (!strcmp(s, "--json")) {
            a->json = true;
        } else if (!strcmp(s, "--cancel-after")) {
            const char *v = cli_option_value(argc, argv, i, "a number of seconds (like 2 or 0.5)");
            if (!v || !cli_parse_seconds(s, v, true, cancel_ms, &a->cancel_after))
                return false;
            i++;
        } else if (!strcmp(s, "--sampling-command")) {
            const char *v = cli_option_value(argc, argv, i, "a command (run with sh -c)");
            if (!v)
                return false;
            if (!*v) {
                fputs("mcp: --sampling-command needs a command, not ''\n", stderr);
                return false;
            }
            *sampling = v;
            i++;
        } else if (!strcmp(s, "--root")) {
            if (!root_option(argc, argv, i, roots))
                return false;
            i++;
        } else if (!strcmp(s, "--task")) {
            t->task = true;
        } else if (!strcmp(s, "--detach")) {
            t->task = t->detach = true;
        } else if (!strcmp(s, "--ttl")) {
            const char *v = cli_option_value(argc, argv, i, "a number of seconds (like 60)");
            if (!v || !cli_parse_seconds(s, v, false, &t->ttl_ms, &t->ttl))
                return false;
            t->task = true;
            i++;
        } else if (s[0] == '-' && s[1] == '-') {
            fprintf(stderr, "mcp: unknown option '%s'\n", cli_safe(s));
            return false;
        } else if (npos == 0) {
            *tool = s;
            npos++;
        } else if (npos == 1) {
            *args_json = s;
            npos++;
        } else {
            fprintf(stderr, "mcp: unexpected argument '%s' (the server command goes after --)\n",
                    cli_safe(s));
            return false;
        }
    }
    if (!*tool) {
        fputs("mcp: call needs a TOOL name\n", stderr);
        return false;
    }
    if (!**tool) {
        fputs("mcp: the TOOL name is empty\n", stderr);
        return false;
    }
    if (mcp_utf8_validate(*tool, strlen(*tool), NULL) != MCP_OK) {
        fprintf(stderr, "mcp: the TOOL name '%s' is not valid UTF-8\n", cli_safe(*tool));
        return false;
    }
    return cli_server_target(argc, argv, i, a);
}

int cli_call(int argc, char **argv)
{
    cli_client_args a = {.timeout = -1, .max_time = -1, .cancel_after = -1,
                         .start_ms = mcp_monotonic_ms()};
    const char *tool = NULL, *args_json = NULL, *sampling = NULL;
    uint64_t cancel_ms = 0;
    call_roots roots = {.count = 0};
    task_args ta = {false, false, 0, 0};
    int code = EXIT_USAGE;
    if (!parse(argc, argv, &a, &tool, &args_json, &cancel_ms, &sampling, &roots, &ta, &code)) {
        if (code)
            fputs("try 'mcp call --help'\n", stderr);
        return code;
    }
    mcp_json_doc *args = NULL;
    if (args_json) {
        mcp_json_error err;
        if (mcp_json_parse(args_json, strlen(args_json), NULL, NULL, &args, &err) != MCP_OK) {
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
    st.tool = tool;
    st.bar = isatty(STDERR_FILENO) && !a.trace;
    char *safe_tool = strdup(cli_safe(tool)); /* for the question threads */
    st.asker.tool = safe_tool ? safe_tool : "the tool";
    st.asker.sampling_command = sampling;
    st.asker.before_asking = before_asking;
    st.asker.user_data = &st;
    mcp_client_options o = {0};
    /* --root: declared, and roots/list answered by the library. */
    mcp_json_doc *root_list = roots.count ? roots_json(&roots) : NULL;
    o.roots = mcp_json_doc_root(root_list);
    if (roots.count && !root_list) {
        fputs("mcp: out of memory\n", stderr);
        code = EXIT_CONNECTION;
    } else {
        code = cli_open(&a, &st.asker, &o, &st.client);
    }
    mcp_json_doc_free(root_list); /* copied by the client */
    if (!code && ta.detach && !mcp_protocol_modern(mcp_client_protocol_version(st.client))) {
        /* A 2025-11-25 task is its session's, and the session ends with
         * this command: the id printed would name a task about to end. */
        fprintf(stderr, "mcp: --detach: under protocol revision %s a task belongs to its session, "
                        "which ends with this command; detach from a 2026-07-28 server "
                        "(--protocol 2026-07-28), whose tasks outlive connections\n",
                cli_safe(mcp_client_protocol_version(st.client)));
        cli_close(st.client, &st.asker);
        code = EXIT_USAGE;
    }
    if (code) {
        free(safe_tool);
        mcp_json_doc_free(args);
        return code;
    }
    uv_loop_t *loop = mcp_client_loop(st.client);
    cli_catch_signals(st.client, &st.sigint, &st.sigterm, &st, on_signal);
    uv_timer_init(loop, &st.cancel_timer);
    st.cancel_timer.data = &st;

    uint64_t idle, left;
    int rc;
    if (!cli_budget(&a, &idle, &left)) {
        rc = MCP_ERR_MAX_TIME;
        st.result.outcome = MCP_ERR_MAX_TIME;
        st.done = true;
    } else {
        mcp_client_call_options co = {.size = sizeof co,
                                      .timeout_ms = idle,
                                      .max_time_ms = left,
                                      .on_progress = on_progress,
                                      .progress_user_data = &st,
                                      .task = ta.detach ? MCP_CALL_TASK_START
                                              : ta.task ? MCP_CALL_TASK_ALWAYS
                                                        : MCP_CALL_TASK_AUTO,
                                      .task_ttl_ms = ta.ttl_ms,
                                      .on_task = on_task};
        /* A server that runs tools as tasks: its listing says which tool
         * must run as one (AUTO reads it). */
        const mcp_json *caps = mcp_json_object_get(mcp_client_server_info(st.client),
                                                   "capabilities");
        if (!ta.task && mcp_json_object_get(mcp_json_object_get(mcp_json_object_get(
                                                mcp_json_object_get(caps, "tasks"), "requests"),
                                                "tools"), "call")) {
            mcp_json_doc *listed = NULL;
            mcp_client_list_tools(st.client, NULL, &listed, NULL);
            mcp_json_doc_free(listed);
        }
        rc = mcp_client_call_tool_async(st.client, tool, mcp_json_doc_root(args), &co, on_done,
                                        &st, &st.handle);
    }
    mcp_json_doc_free(args);
    if (rc == MCP_ERR_STATE && ta.task) {
        fprintf(stderr, "mcp: cannot call %s as a task: the server runs no tool as a task "
                        "(its protocol revision or capabilities have no tasks)\n",
                cli_safe(tool));
        code = EXIT_CONNECTION;
    } else if (rc != MCP_OK && !st.done) {
        fprintf(stderr, "mcp: cannot call %s: %s\n", cli_safe(tool),
                mcp_client_error(st.client)[0] ? cli_safe(mcp_client_error(st.client))
                                               : mcp_strerror(rc));
        code = EXIT_CONNECTION;
    } else {
        if (a.cancel_after >= 0 && !st.done)
            uv_timer_start(&st.cancel_timer, on_cancel_timer, cancel_ms, 0);
        while (!st.done)
            mcp_client_run_once(st.client, true);
        clear_bar(&st);
        if (st.cancelled_by)
            mcp_client_flush(st.client); /* the cancel is on the wire */
        /* Nothing left to cancel: a signal while the result is written (a
         * reader that stops reading blocks it, and the loop with it) ends
         * mcp at once, killing the server. */
        cli_exit_at_once(st.client, &st.sigint, &st.sigterm);
        if (st.cancelled_by && st.task_id)
            report_task_end(&st);
        if (ta.detach && st.result.outcome == MCP_OK && !st.cancelled_by) {
            code = report_detached(&st);
        } else {
            code = st.cancelled_by ? st.cancelled_by : report(&st);
        }
        /* Said now, before the server is stopped (which may take seconds). */
        if (!cli_output_ok() && code == 0)
            code = EXIT_OUTPUT;
    }
    /* Our handles first: the client's close runs the loop until it is
     * empty. */
    cli_exit_at_once(st.client, &st.sigint, &st.sigterm); /* while the server stops */
    uv_close((uv_handle_t *)&st.sigint, NULL);
    uv_close((uv_handle_t *)&st.sigterm, NULL);
    uv_close((uv_handle_t *)&st.cancel_timer, NULL);
    cli_close(st.client, &st.asker);
    mcp_client_call_result_release(&st.result);
    free(st.task_id);
    free(safe_tool);
    return code;
}
