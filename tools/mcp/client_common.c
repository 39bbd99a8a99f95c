/* SPDX-License-Identifier: MIT */
/* Options, budgets and connecting: what mcp tools, call and watch share. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

bool cli_parse_seconds(const char *opt, const char *v, bool allow_zero, uint64_t *ms,
                       double *seconds)
{
    /* The library's own number grammar (JSON's), the whole argument and
     * nothing else, so 0x10, " 5", "inf" and "1e3" are refused instead of
     * being read some surprising way. */
    mcp_json_doc *doc = NULL;
    double d = NAN;
    size_t n = 0;
    bool number = v && *v && !strpbrk(v, "eE") &&
                  mcp_json_parse(v, strlen(v), NULL, NULL, &doc, NULL) == MCP_OK &&
                  mcp_json_number_text(mcp_json_doc_root(doc), &n) && n == strlen(v) &&
                  mcp_json_get_double(mcp_json_doc_root(doc), &d) == MCP_OK && d >= 0;
    mcp_json_doc_free(doc);
    if (number && !(d <= 1e9)) { /* also a number too large for a double */
        fprintf(stderr, "mcp: %s takes at most 1000000000 seconds (about 31 years), not '%s'\n",
                opt, cli_safe(v));
        return false;
    }
    if (!number || (!allow_zero && d == 0)) {
        fprintf(stderr, "mcp: %s needs a number of seconds%s (like 2 or 0.5), not '%s'\n", opt,
                allow_zero ? "" : " above 0", cli_safe(v));
        return false;
    }
    uint64_t m = (uint64_t)llround(d * 1000);
    if (m == 0 && d > 0)
        m = 1;
    *ms = m;
    if (seconds)
        *seconds = d;
    return true;
}

const char *cli_option_value(int argc, char **argv, int i, const char *what)
{
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v || !strcmp(v, "--")) {
        fprintf(stderr, "mcp: %s needs %s\n", argv[i], what);
        return NULL;
    }
    return v;
}

int cli_client_option(int argc, char **argv, int *i, cli_client_args *a)
{
    const char *s = argv[*i];
    const char *value;
    uint64_t ms;
    if (!strcmp(s, "--trace")) {
        a->trace = true;
        return 1;
    }
    if (!strcmp(s, "--timeout") || !strcmp(s, "--max-time")) {
        double *dst = !strcmp(s, "--timeout") ? &a->timeout : &a->max_time;
        value = cli_option_value(argc, argv, *i, "a number of seconds (like 2 or 0.5)");
        if (!value || !cli_parse_seconds(s, value, false, &ms, dst))
            return -1;
        ++*i;
        return 1;
    }
    if (!strcmp(s, "--url")) {
        value = cli_option_value(argc, argv, *i, "the server's URL (http://... or https://...)");
        if (!value)
            return -1;
        if (strncasecmp(value, "http://", 7) && strncasecmp(value, "https://", 8)) {
            fprintf(stderr, "mcp: --url takes an http:// or https:// URL, not '%s'\n",
                    cli_safe(value));
            return -1;
        }
        a->url = value;
        ++*i;
        return 1;
    }
    if (!strcmp(s, "--header")) {
        value = cli_option_value(argc, argv, *i, "a header line, like 'Authorization: Bearer X'");
        if (!value)
            return -1;
        const char *colon = strchr(value, ':');
        if (!colon || colon == value) {
            fprintf(stderr, "mcp: --header takes 'Name: value', not '%s'\n", cli_safe(value));
            return -1;
        }
        if (a->header_count == sizeof a->headers / sizeof a->headers[0] - 1) {
            fprintf(stderr, "mcp: at most %zu --header options\n", a->header_count);
            return -1;
        }
        a->headers[a->header_count++] = value;
        ++*i;
        return 1;
    }
    if (!strcmp(s, "--ca-file")) {
        value = cli_option_value(argc, argv, *i, "a PEM file of certificates to trust");
        if (!value)
            return -1;
        a->ca_file = value;
        ++*i;
        return 1;
    }
    if (!strcmp(s, "--protocol")) {
        value = cli_option_value(argc, argv, *i,
                                 "a revision: 2025-06-18, 2025-11-25, 2026-07-28 or auto");
        if (!value)
            return -1;
        if (!strcmp(value, "auto")) {
            a->mode = MCP_CONNECT_AUTO;
            a->version = NULL;
        } else if (!strcmp(value, "2025-06-18") || !strcmp(value, "2025-11-25")) {
            a->mode = MCP_CONNECT_LEGACY;
            a->version = value;
        } else if (!strcmp(value, "2026-07-28")) {
            a->mode = MCP_CONNECT_MODERN;
            a->version = value;
        } else {
            fprintf(stderr, "mcp: --protocol takes 2025-06-18, 2025-11-25, 2026-07-28 or auto, "
                            "not '%s'\n", cli_safe(value));
            return -1;
        }
        ++*i;
        return 1;
    }
    return 0;
}

bool cli_server_target(int argc, char **argv, int i, cli_client_args *a)
{
    if (a->url && i < argc) {
        fputs("mcp: give the server either as --url URL or as -- COMMAND, not both\n", stderr);
        return false;
    }
    if (a->url)
        return true;
    if (a->header_count || a->ca_file) {
        fputs("mcp: --header and --ca-file go with --url\n", stderr);
        return false;
    }
    if (i + 1 >= argc) {
        fputs("mcp: missing '-- COMMAND [ARG...]' (the server to start) or '--url URL'\n",
              stderr);
        return false;
    }
    a->command = argv + i + 1;
    return true;
}

static uint64_t ms_of(double seconds)
{
    if (seconds < 0)
        return 0;
    uint64_t m = (uint64_t)llround(seconds * 1000);
    return m ? m : 1;
}

bool cli_budget(const cli_client_args *a, uint64_t *timeout_ms, uint64_t *max_ms)
{
    *timeout_ms = ms_of(a->timeout);
    *max_ms = 0;
    if (a->max_time < 0)
        return true;
    uint64_t used = mcp_monotonic_ms() - a->start_ms, total = ms_of(a->max_time);
    if (used >= total)
        return false;
    *max_ms = total - used;
    return true;
}

/* The server's pid for exit_at_once: written on the loop thread, read in
 * the signal handler. */
static volatile sig_atomic_t server_pid;

static void exit_at_once(int sig)
{
    pid_t pid = (pid_t)server_pid;
    /* Its group (the library starts it in its own): a wrapper's server
     * goes too. kill and _exit are async-signal-safe. */
    if (pid > 0 && kill(-pid, SIGKILL) != 0)
        kill(pid, SIGKILL);
    _exit(sig == SIGTERM ? EXIT_TERMINATED : EXIT_CANCELLED);
}

void cli_note_server(mcp_client *c)
{
    server_pid = c ? mcp_client_server_pid(c) : 0;
}

void cli_catch_signals(mcp_client *c, uv_signal_t *sigint, uv_signal_t *sigterm, void *data,
                       uv_signal_cb cb)
{
    uv_loop_t *loop = mcp_client_loop(c);
    uv_signal_init(loop, sigint);
    uv_signal_init(loop, sigterm);
    sigint->data = sigterm->data = data;
    uv_signal_start(sigint, cb, SIGINT);
    uv_signal_start(sigterm, cb, SIGTERM);
}

void cli_exit_at_once(mcp_client *c, uv_signal_t *sigint, uv_signal_t *sigterm)
{
    sigset_t both, old;
    sigemptyset(&both);
    sigaddset(&both, SIGINT);
    sigaddset(&both, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &both, &old);
    /* Stopping the last libuv handle of a signal restores its default. */
    if (sigint)
        uv_signal_stop(sigint);
    if (sigterm)
        uv_signal_stop(sigterm);
    cli_note_server(c);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = exit_at_once;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL); /* one that came meanwhile: now */
}

/* The client being connected, for the trace hook, which sees every line
 * from the start (the server's pid is known from the first one). */
static struct {
    mcp_client *client;
    bool trace;      /* --trace: print the lines */
    bool probe_last; /* the last line sent was the server/discover probe */
    bool heard;      /* a line came from the server */
} tracing;

static bool has(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(s + i, needle, k))
            return true;
    return false;
}

static void trace_cb(void *ud, bool outgoing, const char *line, size_t len)
{
    if (tracing.client)
        cli_note_server(tracing.client); /* a new server after a reconnect too */
    if (outgoing) /* our own compact JSON */
        tracing.probe_last = has(line, len < 200 ? len : 200, "\"method\":\"server/discover\"");
    else
        tracing.heard = true;
    if (tracing.trace)
        cli_trace_line(NULL, outgoing, line, len);
}

int cli_connect(const cli_client_args *a, mcp_client_options *o, mcp_client **out)
{
    uint64_t idle, left;
    cli_budget(a, &idle, &left);
    o->size = sizeof *o;
    o->name = "mcp";
    o->version = mcp_version();
    o->timeout_ms = idle;
    o->max_time_ms = left;
    /* The handshake (and the probe) waits no longer than the command may:
     * --timeout is how long an answer may take, --max-time the whole. */
    uint64_t connect = idle ? idle : 30000;
    if (left && left < connect)
        connect = left;
    o->connect_timeout_ms = connect;
    o->connect_mode = a->mode;
    o->protocol_version = a->version;
    o->trace = trace_cb;
    tracing.trace = a->trace;
    tracing.probe_last = tracing.heard = false;
    mcp_client *c;
    if (mcp_client_new(o, &c) != MCP_OK) {
        fputs("mcp: out of memory\n", stderr);
        return EXIT_CONNECTION;
    }
    /* Until the command sets up its own handling, a signal while
     * connecting ends it at once, and the server it started with it. */
    tracing.client = c;
    cli_exit_at_once(NULL, NULL, NULL);
    int rc;
    if (a->url) {
        /* What mcp auth login kept, unless the user gives the header. */
        bool own = false;
        for (size_t i = 0; i < a->header_count; i++)
            own |= !strncasecmp(a->headers[i], "authorization:", 14);
        const mcp_oauth_options *oauth = a->oauth ? a->oauth : own ? NULL : cli_auth_stored(a->url);
        mcp_http_client_options ho = {.size = sizeof ho, .headers = a->headers,
                                      .ca_file = a->ca_file, .oauth = oauth};
        rc = mcp_client_connect_http(c, a->url, &ho);
    } else {
        rc = mcp_client_connect_stdio(c, (const char *const *)a->command);
    }
    if (rc != MCP_OK) {
        fprintf(stderr, "mcp: %s\n", mcp_client_error(c)[0] ? cli_safe(mcp_client_error(c))
                                                             : mcp_strerror(rc));
        /* Gone without a word after the probe: a 2025 server may exit on a
         * request it does not know before initialize. */
        if (rc == MCP_ERR_CLOSED && !a->url && a->mode == MCP_CONNECT_AUTO && tracing.probe_last &&
            !tracing.heard)
            fputs("mcp: if it is a 2025 server that exits on the server/discover probe,\n"
                  "     --protocol 2025-11-25 (or 2025-06-18) skips the probe\n",
                  stderr);
        const char *e = mcp_client_error(c);
        if (a->url && !a->oauth && (strstr(e, "HTTP 401") || strstr(e, "Unauthorized")) &&
            !strstr(e, "authorization failed"))
            fprintf(stderr, "mcp: the server wants authorization: 'mcp auth login %s' first\n",
                    cli_safe(a->url));
        cli_disconnect(c);
        /* Refused before anything was sent: the URL, a header or the CA
         * file the user gave. */
        if (rc == MCP_ERR_INVALID_ARG)
            return EXIT_USAGE;
        return rc == MCP_ERR_TIMED_OUT ? EXIT_TIMEOUT : EXIT_CONNECTION;
    }
    *out = c;
    return 0;
}

/* A server's log message (notifications/message): one line on stderr, at
 * the level the server gave, its logger if any, its data (a string as it
 * is, anything else as JSON), all made safe. */
static void show_server_log(cli_asker *a, const mcp_message *m)
{
    size_t level_len = 0, logger_len = 0, data_len = 0;
    const char *level = mcp_json_string(mcp_json_object_get(m->params, "level"), &level_len);
    const char *logger = mcp_json_string(mcp_json_object_get(m->params, "logger"), &logger_len);
    const mcp_json *data = mcp_json_object_get(m->params, "data");
    const char *text = mcp_json_string(data, &data_len);
    mcp_buf json, line;
    mcp_buf_init(&json, 0, NULL);
    mcp_buf_init(&line, 0, NULL);
    if (!text && data && mcp_json_write(data, &json) == MCP_OK) {
        text = json.data;
        data_len = json.len;
    }
    mcp_buf_append(&line, a->server, strlen(a->server));
    mcp_buf_append(&line, MCP_LITERAL(" "));
    if (level)
        cli_sanitize(&line, level, level_len, false);
    else
        mcp_buf_append(&line, MCP_LITERAL("log"));
    if (logger) {
        mcp_buf_append(&line, MCP_LITERAL(" ("));
        cli_sanitize(&line, logger, logger_len, false);
        mcp_buf_append(&line, MCP_LITERAL(")"));
    }
    mcp_buf_append(&line, MCP_LITERAL(": "));
    if (text)
        cli_sanitize(&line, text, data_len, false);
    if (a->before_asking)
        a->before_asking(a->user_data); /* the progress bar goes */
    if (mcp_buf_append(&line, MCP_LITERAL("\n")) == MCP_OK)
        fwrite(line.data, 1, line.len, stderr);
    mcp_buf_free(&json);
    mcp_buf_free(&line);
}

static void on_notification(void *ud, const mcp_message *m)
{
    cli_asker *a = ud;
    if (!strcmp(m->method, "notifications/message"))
        show_server_log(a, m);
    else if (a->on_notification)
        a->on_notification(a->notification_user_data, m);
}

int cli_open(const cli_client_args *args, cli_asker *a, mcp_client_options *o,
             mcp_client **out)
{
    a->on_notification = o->on_notification;
    a->notification_user_data = o->notification_user_data;
    a->server_name = NULL;
    o->on_notification = on_notification;
    o->notification_user_data = a;
    cli_asker_setup(a, o);
    int code = cli_connect(args, o, out);
    if (code) {
        cli_asker_free(a);
        return code;
    }
    /* The questions' and logs' lines name the server as it named itself. */
    const char *name = mcp_json_string(
        mcp_json_object_get(mcp_client_server_implementation(*out), "name"), NULL);
    const char *shown = name ? cli_safe(name) : NULL;
    if (shown && (a->server_name = malloc(strlen(shown) + 3)))
        sprintf(a->server_name, "\"%s\"", shown);
    if (a->server_name)
        a->server = a->server_name;
    return 0;
}

void cli_close(mcp_client *c, cli_asker *a)
{
    cli_disconnect(c);
    /* A question thread may still be between its answer and its end (the
     * answer went out, or was dropped with the connection; a sampling
     * command being stopped: TERM, then KILL after 2 s): it uses none of
     * the client once it is freed but the asker's counter: give it the
     * time it needs, so no command outlives us. */
    for (int i = 0; i < 300 && atomic_load(&a->open) > 0; i++)
        usleep(10000);
    if (atomic_load(&a->open) == 0)
        cli_asker_free(a);
}

void cli_disconnect(mcp_client *c)
{
    cli_exit_at_once(c, NULL, NULL);
    mcp_client_free(c);
    cli_auth_stored_free();
    tracing.client = NULL;
    cli_note_server(NULL); /* reaped: its id may be reused */
}

void cli_trace_line(const char *who, bool outgoing, const char *line, size_t len)
{
    char head[64];
    int n = snprintf(head, sizeof head, "%s%s%s ", who ? who : "", who ? " " : "",
                     outgoing ? "->" : "<-");
    /* A line as received may be anything (it is traced before it is
     * parsed): made safe, cut after 8 KiB, and one write per line so
     * traces from several processes do not mix. */
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_append(&b, head, (size_t)n);
    cli_sanitize(&b, line, len < 8192 ? len : 8192, false);
    if (len > 8192)
        mcp_buf_append(&b, MCP_LITERAL("..."));
    if (mcp_buf_append(&b, MCP_LITERAL("\n")) == MCP_OK) {
        ssize_t w = write(STDERR_FILENO, b.data, b.len);
        (void)w;
    }
    mcp_buf_free(&b);
}

void cli_print_json(const mcp_json *v)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    if (mcp_json_write(v, &b) == MCP_OK)
        printf("%.*s\n", (int)b.len, b.data);
    else
        fputs("mcp: out of memory writing the JSON\n", stderr);
    mcp_buf_free(&b);
}

void cli_print_cache_hint(mcp_client *c, const mcp_cache_hint *hint)
{
    if (hint->present)
        fprintf(stderr, "(%s, cacheable for %llu ms, %s)\n", mcp_client_protocol_version(c),
                (unsigned long long)hint->ttl_ms,
                hint->scope == MCP_CACHE_PRIVATE ? "private" : "public");
}

int cli_request_failed(mcp_client *c, const char *method, int rc,
                       const mcp_client_call_result *r)
{
    if (rc == MCP_ERR_TIMED_OUT || rc == MCP_ERR_MAX_TIME) {
        fprintf(stderr, "mcp: %s %s\n", method,
                rc == MCP_ERR_TIMED_OUT ? "timed out" : "exceeded the maximum time");
        return EXIT_TIMEOUT;
    }
    if (rc == MCP_ERR_REMOTE && r && r->response)
        fprintf(stderr, "mcp: %s failed: %s (JSON-RPC error %lld)\n", method,
                cli_safe_n(r->response->error_message, r->response->error_message_len),
                (long long)r->error_code);
    else if (rc == MCP_ERR_HTTP && r && r->response) /* the message names the status */
        fprintf(stderr, "mcp: %s failed: %s\n", method,
                cli_safe_n(r->response->error_message, r->response->error_message_len));
    else
        fprintf(stderr, "mcp: %s\n", mcp_client_error(c)[0] ? cli_safe(mcp_client_error(c))
                                                             : mcp_strerror(rc));
    return EXIT_CONNECTION;
}

int cli_run_command(const cli_command *cmd, void *state, int argc, char **argv)
{
    cli_client_args a = {.timeout = -1, .max_time = -1, .cancel_after = -1,
                         .start_ms = mcp_monotonic_ms()};
    char *args[4];
    int n = 0, i = 0;
    bool ok = true;
    for (; ok && i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *s = argv[i];
        int used = cli_client_option(argc, argv, &i, &a);
        if (used == 0 && cmd->option)
            used = cmd->option(state, argc, argv, &i);
        if (used) {
            ok = used > 0;
        } else if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            cli_usage(cmd->name, true);
            return 0;
        } else if (!strcmp(s, "--json")) {
            a.json = true;
        } else if (s[0] == '-' && s[1] == '-') {
            fprintf(stderr, "mcp: unknown option '%s'\n", cli_safe(s));
            ok = false;
        } else if (n < cmd->max_args) {
            args[n++] = argv[i];
        } else {
            fprintf(stderr, "mcp: unexpected argument '%s' (the server command goes after --)\n",
                    cli_safe(s));
            ok = false;
        }
    }
    /* What the user gave is checked before any server is started. */
    if (!ok || (cmd->check && !cmd->check(state, n, args)) || !cli_server_target(argc, argv, i, &a)) {
        fprintf(stderr, "try 'mcp %s --help'\n", cmd->name);
        return EXIT_USAGE;
    }
    mcp_client *c;
    mcp_client_options o = {0};
    cli_asker asker = {.tool = cmd->name};
    int code = cli_open(&a, &asker, &o, &c);
    if (code)
        return code;
    /* Nothing worth cancelling: a Ctrl-C or SIGTERM ends it at once, the
     * server with it. */
    cli_exit_at_once(c, NULL, NULL);
    uint64_t idle, left;
    if (cli_budget(&a, &idle, &left)) {
        mcp_client_call_options co = {.size = sizeof co, .timeout_ms = idle, .max_time_ms = left};
        code = cmd->run(state, c, &co, &a);
    } else {
        code = cli_request_failed(c, cmd->name, MCP_ERR_MAX_TIME, NULL);
    }
    if (!cli_output_ok() && code == 0) /* said before the server is stopped */
        code = EXIT_OUTPUT;
    cli_close(c, &asker);
    return code;
}
