/* SPDX-License-Identifier: MIT */
/*
 * mcp serve: the demo server on stdio, for clients of every revision, with
 * tools that show the lifecycle: echo (instant), sleep (returns early when
 * cancelled), count (progress and log messages, cancellable between steps),
 * fail (a tool error) and add_tool (changes the tool list while serving:
 * subscribers hear tools/list_changed), confirm, connect, summarize and roots (each
 * asks the client: a form, a URL, sampling, roots), a few resources, a resource template
 * and a prompt with completion. With --conformance, the fixtures of
 * the official conformance suite instead (conformance_server.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
    /* Any client may call it: the demo keeps at most this many. */
    static atomic_int added;
    if (atomic_fetch_add(&added, 1) >= 100) {
        atomic_fetch_sub(&added, 1);
        mcp_call_reply_tool_error(call, "add_tool: the demo adds at most 100 tools");
        return;
    }
    mcp_tool t = {.size = sizeof t,
                  .name = name,
                  .description = "A tool added while serving, by add_tool.",
                  .handler = tool_added};
    int rc = mcp_server_add_tool(the_server, &t);
    if (rc != MCP_OK)
        atomic_fetch_sub(&added, 1);
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

/* --http and its companions, and --conformance. */
typedef struct http_args {
    bool conformance;   /* the conformance suite's fixtures, not the demo tools */
    const char *listen; /* [HOST:]PORT, NULL without --http */
    const char *path, *cert_file, *key_file, *poll, *request_timeout, *per_address, *max_conns;
    const char *origins[17], *hosts[17], *tokens[17];
    size_t norigins, nhosts, ntokens;
    mcp_http_response_mode mode;
} http_args;

/* A token a client can send in `Authorization: Bearer` (RFC 6750, 2.1:
 * b64token), and short enough to fit a request's headers. */
static bool token_ok(const char *v)
{
    size_t n = strlen(v), i = 0;
    while (i < n && (isalnum((unsigned char)v[i]) || strchr("-._~+/", v[i])))
        i++;
    if (!i)
        return false;
    while (i < n && v[i] == '=')
        i++;
    return i == n && n <= 4096;
}

/* Whether a and b are equal, in a time that depends only on their
 * lengths: how far a guess matches does not show in the answer's delay. */
static bool same_secret(const char *a, const char *b)
{
    size_t n = strlen(a);
    if (n != strlen(b))
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static bool check_token(void *ud, const char *authorization)
{
    const http_args *a = ud;
    /* The scheme is case-insensitive (RFC 9110, 11.1); the token is not. */
    if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
        return false;
    bool ok = false;
    for (size_t i = 0; i < a->ntokens; i++)
        ok |= same_secret(authorization + 7, a->tokens[i]);
    return ok;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mcp serve: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\ntry 'mcp serve --help'\n", stderr);
    return EXIT_USAGE;
}

/* 0 when parsed, else the exit status (usage printed). */
static int parse_args(int argc, char **argv, http_args *a)
{
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            cli_usage("serve", true);
            return -1;
        }
        if (!strcmp(o, "--conformance")) {
            a->conformance = true;
            continue;
        }
        const char **value = !strcmp(o, "--http")       ? &a->listen
                             : !strcmp(o, "--path")     ? &a->path
                             : !strcmp(o, "--tls-cert") ? &a->cert_file
                             : !strcmp(o, "--tls-key")  ? &a->key_file
                             : !strcmp(o, "--poll-retry") ? &a->poll
                             : !strcmp(o, "--request-timeout") ? &a->request_timeout
                             : !strcmp(o, "--max-per-address") ? &a->per_address
                             : !strcmp(o, "--max-connections") ? &a->max_conns
                                                        : NULL;
        bool list = !strcmp(o, "--allow-origin") || !strcmp(o, "--allow-host") ||
                    !strcmp(o, "--token");
        bool mode = !strcmp(o, "--response");
        if (!value && !list && !mode)
            return usage_error("unexpected argument '%s'", cli_safe(o));
        if (i + 1 >= argc || !strncmp(argv[i + 1], "--", 2))
            return usage_error("%s needs a value", cli_safe(o));
        const char *v = argv[++i];
        if (value) {
            *value = v;
        } else if (mode) {
            if (!strcmp(v, "auto"))
                a->mode = MCP_HTTP_RESPONSE_AUTO;
            else if (!strcmp(v, "json"))
                a->mode = MCP_HTTP_RESPONSE_JSON;
            else if (!strcmp(v, "sse"))
                a->mode = MCP_HTTP_RESPONSE_SSE;
            else
                return usage_error("--response takes auto, json or sse, not '%s'", cli_safe(v));
        } else {
            bool origin = !strcmp(o, "--allow-origin"), token = !strcmp(o, "--token");
            size_t *n = origin ? &a->norigins : token ? &a->ntokens : &a->nhosts;
            if (*n == 16)
                return usage_error("at most 16 of %s", o);
            (origin ? a->origins : token ? a->tokens : a->hosts)[(*n)++] = v;
            if (token && !token_ok(v))
                return usage_error("%s", "--token takes a bearer token a client can send: 1 to "
                                         "4096 of A-Z a-z 0-9 - . _ ~ + /, then any '=' "
                                         "(RFC 6750)");
        }
    }
    if (a->poll && (strspn(a->poll, "0123456789") != strlen(a->poll) || strlen(a->poll) > 9))
        return usage_error("--poll-retry takes milliseconds (digits), not '%s'", cli_safe(a->poll));
    if (a->request_timeout && (strspn(a->request_timeout, "0123456789") !=
                                   strlen(a->request_timeout) ||
                               strlen(a->request_timeout) > 5 ||
                               strtoul(a->request_timeout, NULL, 10) == 0))
        return usage_error("--request-timeout takes seconds (1 to 99999), not '%s'",
                           cli_safe(a->request_timeout));
    const char *counts[][2] = {{"--max-per-address", a->per_address},
                               {"--max-connections", a->max_conns}};
    for (size_t i = 0; i < 2; i++) {
        const char *v = counts[i][1];
        if (v && (strspn(v, "0123456789") != strlen(v) || strlen(v) > 6 ||
                  strtoul(v, NULL, 10) == 0))
            return usage_error("%s takes a number of connections (1 to 999999), not '%s'",
                               counts[i][0], cli_safe(v));
    }
    if (!a->listen && (a->path || a->ntokens || a->cert_file || a->key_file || a->poll ||
                       a->request_timeout || a->per_address || a->max_conns || a->norigins ||
                       a->nhosts || a->mode))
        return usage_error("%s", "HTTP options need --http [HOST:]PORT");
    if (!a->cert_file != !a->key_file)
        return usage_error("%s", "--tls-cert and --tls-key go together");
    if (a->path && a->path[0] != '/')
        return usage_error("--path must start with '/', not '%s'", cli_safe(a->path));
    return 0;
}

/* [HOST:]PORT, HOST numeric (IPv6 in brackets). */
static bool split_listen(const char *spec, char *host, size_t size, unsigned *port)
{
    const char *colon = strrchr(spec, ':');
    const char *digits = colon ? colon + 1 : spec;
    if (!*digits || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 5)
        return false;
    *port = (unsigned)atoi(digits);
    if (*port > 65535)
        return false;
    host[0] = '\0';
    if (colon) {
        size_t n = (size_t)(colon - spec);
        const char *h = spec;
        if (n >= 2 && h[0] == '[' && h[n - 1] == ']')
            h++, n -= 2;
        if (!n || n >= size)
            return false;
        memcpy(host, h, n);
        host[n] = '\0';
    }
    return true;
}

/* The whole of a small file (PEM), or NULL with the reason printed. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "mcp serve: cannot read '%s': %s\n", cli_safe(path), strerror(errno));
        return NULL;
    }
    char *data = malloc(1 << 20);
    size_t n = data ? fread(data, 1, (1 << 20) - 1, f) : 0;
    int e = ferror(f) ? errno : 0;
    bool big = data && n == (1 << 20) - 1;
    fclose(f);
    if (data)
        data[n] = '\0';
    if (!data || e || big || !n || !strstr(data, "-----BEGIN ")) {
        fprintf(stderr, "mcp serve: '%s': %s\n", cli_safe(path),
                !data ? "out of memory" : e ? strerror(e) : big ? "too large"
                : !n ? "empty" : "not a PEM file");
        free(data);
        return NULL;
    }
    return data;
}

static int serve_http(const http_args *a)
{
    char host[64];
    unsigned port;
    if (!split_listen(a->listen, host, sizeof host, &port)) {
        fprintf(stderr, "mcp serve: --http takes [HOST:]PORT (a port up to 65535), not '%s'\n",
                cli_safe(a->listen));
        return EXIT_USAGE;
    }
    char *cert = a->cert_file ? read_file(a->cert_file) : NULL;
    char *key = a->key_file ? read_file(a->key_file) : NULL;
    if ((a->cert_file && !cert) || (a->key_file && !key)) {
        free(cert);
        free(key);
        return EXIT_USAGE;
    }
    bool loopback = !host[0] || !strncmp(host, "127.", 4) || !strcmp(host, "::1");
    if (!loopback && !a->ntokens)
        fprintf(stderr, "mcp serve: warning: serving %s without --token: anyone who reaches "
                        "it may call its tools\n",
                cli_safe(host));
    mcp_server_http_options h = {.size = sizeof h,
                                 .host = host[0] ? host : NULL,
                                 .port = port,
                                 .path = a->path,
                                 .allowed_origins = a->norigins ? a->origins : NULL,
                                 .allowed_hosts = a->nhosts ? a->hosts : NULL,
                                 .response_mode = a->mode,
                                 .poll_retry_ms = a->poll ? strtoull(a->poll, NULL, 10) : 0,
                                 .request_timeout_s = a->request_timeout
                                                          ? (unsigned)strtoul(a->request_timeout,
                                                                              NULL, 10)
                                                          : 0,
                                 .max_connections =
                                     a->max_conns ? (unsigned)strtoul(a->max_conns, NULL, 10) : 0,
                                 .max_connections_per_address =
                                     a->per_address ? (unsigned)strtoul(a->per_address, NULL, 10)
                                                    : 0,
                                 .tls_cert_pem = cert,
                                 .tls_key_pem = key,
                                 .authorize = a->ntokens ? check_token : NULL,
                                 .authorize_user_data = (void *)a};
    int rc = mcp_server_listen_http(the_server, &h);
    free(cert);
    free(key);
    if (rc != MCP_OK) {
        fprintf(stderr, "mcp serve: cannot serve HTTP on %s: %s\n", cli_safe(a->listen),
                rc == MCP_ERR_INVALID_ARG ? "HOST must be a numeric address, and TLS files PEM"
                                          : mcp_strerror(rc));
        return rc == MCP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_CONNECTION;
    }
    fprintf(stderr, "mcp serve: listening on %s://%s%s%s:%u%s\n", cert ? "https" : "http",
            strchr(host, ':') ? "[" : "", host[0] ? host : "127.0.0.1", strchr(host, ':') ? "]" : "",
            mcp_server_http_port(the_server), a->path ? a->path : "/mcp");
    return mcp_server_run(the_server) == MCP_OK ? 0 : EXIT_CONNECTION;
}

/* Tools that ask the client ------------------------------------------------------ */

/* After an ask that did not answer: end the call as the outcome says.
 * True when the call is ended. */
static bool ask_ended(mcp_call *call, int rc, const mcp_ask_answer *a)
{
    if (rc == MCP_OK)
        return false;
    if (rc == MCP_ERR_INPUT_REQUIRED || rc == MCP_ERR_CANCELLED) {
        mcp_call_finish(call); /* 2026: the questions go out; cancelled: nothing */
        return true;
    }
    char why[300];
    if (rc == MCP_ERR_REMOTE)
        snprintf(why, sizeof why, "%s: the client refused: %s", mcp_call_tool_name(call),
                 a->error_message);
    else
        snprintf(why, sizeof why, "%s: cannot ask the client: %s", mcp_call_tool_name(call),
                 rc == MCP_ERR_STATE ? "it did not declare that it can answer (or its protocol "
                                       "revision has no such request)"
                                     : mcp_strerror(rc));
    mcp_call_reply_tool_error(call, why);
    return true;
}

/* confirm {question}: asks the user (elicitation, a form with one boolean). */
static void tool_confirm(mcp_call *call, void *ud)
{
    const char *q = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "question"), NULL);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = mcp_json_new_object(d);
    mcp_json_object_set(d, params, "message", mcp_json_new_string(d, q ? q : "Go ahead?"));
    static const char schema[] = "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":"
                                 "\"boolean\",\"title\":\"Go ahead\"}},\"required\":[\"ok\"]}";
    mcp_json_doc *sd = NULL;
    mcp_json_parse(schema, sizeof schema - 1, NULL, NULL, &sd, NULL);
    mcp_json_object_set(d, params, "requestedSchema", sd ? mcp_json_copy(d, mcp_json_doc_root(sd)) : NULL);
    mcp_json_doc_free(sd);
    mcp_ask_answer a;
    int rc = mcp_json_doc_error(d) == MCP_OK
                 ? mcp_call_ask(call, "confirm", "elicitation/create", params, 0, &a)
                 : MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    if (!ask_ended(call, rc, &a)) {
        const mcp_json *r = mcp_json_doc_root(a.result);
        const char *action = mcp_json_string(mcp_json_object_get(r, "action"), NULL);
        bool ok = false;
        mcp_json_get_bool(mcp_json_object_get(mcp_json_object_get(r, "content"), "ok"), &ok);
        mcp_call_reply_text(call, !action                      ? "no answer"
                                  : strcmp(action, "accept")   ? action
                                  : ok                         ? "confirmed"
                                                               : "not confirmed");
    }
    mcp_ask_answer_release(&a);
}

/* connect {url}: sends the user to a page (URL mode elicitation, from
 * 2025-11-25). A demo has no page to be done at: once the user accepts,
 * the interaction is said complete at once (2025-11-25: the client gets
 * notifications/elicitation/complete), as a service would when its page
 * is done. */
static void tool_connect(mcp_call *call, void *ud)
{
    static atomic_uint made;
    size_t url_len = 0;
    const char *url =
        mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "url"), &url_len);
    if (url && memchr(url, '\0', url_len)) {
        /* Sent as a C string it would be another URL than the one given. */
        mcp_call_reply_tool_error(call, "connect: url must not contain NUL");
        return;
    }
    char id[64];
    snprintf(id, sizeof id, "demo-%ld-%u", (long)getpid(), atomic_fetch_add(&made, 1) + 1);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = mcp_json_new_object(d);
    mcp_json_object_set(d, params, "mode", mcp_json_new_string(d, "url"));
    mcp_json_object_set(d, params, "message",
                        mcp_json_new_string(d, "Open this page to connect your account."));
    mcp_json_object_set(d, params, "url",
                        mcp_json_new_string(d, url ? url : "https://example.com/connect"));
    bool ids = !strcmp(mcp_call_protocol_version(call), "2025-11-25");
    if (ids)
        mcp_json_object_set(d, params, "elicitationId", mcp_json_new_string(d, id));
    mcp_ask_answer a;
    int rc = mcp_json_doc_error(d) == MCP_OK
                 ? mcp_call_ask(call, "connect", "elicitation/create", params, 0, &a)
                 : MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    if (rc == MCP_ERR_INVALID_ARG) {
        mcp_call_reply_tool_error(call, "connect: url must be scheme://host... without spaces");
    } else if (!ask_ended(call, rc, &a)) {
        const char *action =
            mcp_json_string(mcp_json_object_get(mcp_json_doc_root(a.result), "action"), NULL);
        bool accepted = action && !strcmp(action, "accept");
        if (accepted && ids)
            mcp_server_elicitation_complete(the_server, id);
        mcp_call_reply_text(call, accepted ? "connected" : action ? action : "no answer");
    }
    mcp_ask_answer_release(&a);
}

/* summarize {text}: asks the client's model (sampling). */
static void tool_summarize(mcp_call *call, void *ud)
{
    const char *text = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "text"), NULL);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = mcp_json_new_object(d);
    mcp_json *messages = mcp_json_new_array(d);
    mcp_json *m = mcp_json_new_object(d);
    mcp_json *content = mcp_json_new_object(d);
    mcp_json_object_set(d, content, "type", mcp_json_new_string(d, "text"));
    mcp_json_object_set(d, content, "text", mcp_json_new_string(d, text ? text : ""));
    mcp_json_object_set(d, m, "role", mcp_json_new_string(d, "user"));
    mcp_json_object_set(d, m, "content", content);
    mcp_json_array_append(d, messages, m);
    mcp_json_object_set(d, params, "messages", messages);
    mcp_json_object_set(d, params, "systemPrompt", mcp_json_new_string(d, "Summarize in one line."));
    mcp_json_object_set(d, params, "maxTokens", mcp_json_new_int(d, 100));
    mcp_ask_answer a;
    int rc = mcp_json_doc_error(d) == MCP_OK
                 ? mcp_call_ask(call, "summary", "sampling/createMessage", params, 0, &a)
                 : MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    if (!ask_ended(call, rc, &a)) {
        const mcp_json *c = mcp_json_object_get(mcp_json_doc_root(a.result), "content");
        size_t n;
        const char *said = mcp_json_string(mcp_json_object_get(c, "text"), &n);
        if (said)
            mcp_call_reply_text_n(call, said, n);
        else
            mcp_call_reply_tool_error(call, "summarize: the model's answer has no text");
    }
    mcp_ask_answer_release(&a);
}

/* roots: the client's roots, one URI a line. */
static void tool_roots(mcp_call *call, void *ud)
{
    mcp_ask_answer a;
    int rc = mcp_call_ask(call, "roots", "roots/list", NULL, 0, &a);
    if (!ask_ended(call, rc, &a)) {
        const mcp_json *roots = mcp_json_object_get(mcp_json_doc_root(a.result), "roots");
        mcp_buf b;
        mcp_buf_init(&b, 1 << 20, NULL);
        for (size_t i = 0; i < mcp_json_array_size(roots); i++) {
            size_t n;
            const char *uri = mcp_json_string(mcp_json_object_get(mcp_json_array_at(roots, i), "uri"),
                                              &n);
            if (uri && mcp_buf_append(&b, uri, n) == MCP_OK)
                mcp_buf_append(&b, MCP_LITERAL("\n"));
        }
        mcp_call_reply_text_n(call, b.data ? b.data : "", b.len);
        mcp_buf_free(&b);
    }
    mcp_ask_answer_release(&a);
}

static int add_demo_tools(void)
{
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool),
         .name = "echo",
         .title = "Echo",
         .description = "Returns the text it is given.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
         .handler = tool_echo},
        {.size = sizeof(mcp_tool),
         .name = "sleep",
         .title = "Sleep",
         .description = "Sleeps for the given seconds; returns early when cancelled.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\",\"minimum\":0}},"
         "\"required\":[\"seconds\"]}",
         .handler = tool_sleep,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "count",
         .title = "Count",
         .description = "Counts to n, one step every delay_ms, reporting progress.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0},"
         "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"n\",\"delay_ms\"]}",
         .handler = tool_count,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "fail",
         .title = "Fail",
         .description = "Always fails, with the given message (an isError result).",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}",
         .handler = tool_fail},
        {.size = sizeof(mcp_tool),
         .name = "add_tool",
         .title = "Add a tool",
         .description = "Adds a tool with the given name while serving: clients listening for tool list "
         "changes are told.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
         "\"required\":[\"name\"]}",
         .handler = tool_add},
        {.size = sizeof(mcp_tool),
         .name = "confirm",
         .title = "Confirm",
         .description = "Asks the user to confirm (elicitation): confirmed, not confirmed, "
                        "decline or cancel.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}}}",
         .handler = tool_confirm,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "connect",
         .title = "Connect",
         .description = "Sends the user to a page (URL mode elicitation): connected, decline or "
                        "cancel. A demo: the page is not checked.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"}}}",
         .handler = tool_connect,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "summarize",
         .title = "Summarize",
         .description = "Asks the client's model for a one-line summary of the text (sampling).",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                         "\"required\":[\"text\"]}",
         .handler = tool_summarize,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "roots",
         .title = "Roots",
         .description = "Lists the client's roots (roots/list).",
         .handler = tool_roots,
         .flags = MCP_TOOL_BLOCKING},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        int rc = mcp_server_add_tool(the_server, &tools[i]);
        if (rc != MCP_OK) {
            fprintf(stderr, "mcp serve: cannot register tool %s\n", tools[i].name);
            return rc;
        }
    }
    return MCP_OK;
}

/* Demo resources and a prompt -------------------------------------------------------- */

static const char demo_readme[] =
    "mcp serve: a demo server.\n"
    "Tools: echo, sleep, count, fail, add_tool.\n"
    "Resources: demo://readme (this text), demo://logo (a few bytes of PNG),\n"
    "demo://echo/{text} (any text, read back).\n"
    "Prompt: greet (name, and a style completed from formal, casual, pirate).\n";

static void read_readme(mcp_call *call, void *ud)
{
    mcp_call_reply_resource_text(call, "text/plain", demo_readme, sizeof demo_readme - 1);
}

static void read_logo(mcp_call *call, void *ud)
{
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    mcp_call_reply_resource_blob(call, "image/png", png, sizeof png);
}

static void read_echo(mcp_call *call, void *ud)
{
    size_t n;
    const char *text = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "text"), &n);
    mcp_call_reply_resource_text(call, "text/plain", text ? text : "", text ? n : 0);
}

static const char *const greet_styles[] = {"formal", "casual", "pirate"};

static void get_greet(mcp_call *call, void *ud)
{
    const mcp_json *args = mcp_call_arguments(call);
    size_t n;
    const char *name = mcp_json_string(mcp_json_object_get(args, "name"), &n);
    const char *style = mcp_json_string(mcp_json_object_get(args, "style"), NULL);
    const char *how = !style || !strcmp(style, "casual") ? "Say hi to "
                      : !strcmp(style, "pirate")          ? "Hail, the pirate way, "
                                                          : "Greet formally ";
    /* The whole name, whatever its length, NUL characters included. */
    mcp_buf text;
    mcp_buf_init(&text, 0, NULL);
    mcp_buf_append(&text, how, strlen(how));
    mcp_buf_append(&text, name, n);
    mcp_buf_append(&text, MCP_LITERAL("."));
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *result = mcp_json_new_object(d);
    mcp_json *messages = mcp_json_new_array(d);
    mcp_json *message = mcp_json_new_object(d);
    mcp_json *content = mcp_json_new_object(d);
    mcp_json_object_set(d, content, "type", mcp_json_new_string(d, "text"));
    mcp_json_object_set(d, content, "text",
                        text.data ? mcp_json_new_stringn(d, text.data, text.len) : NULL);
    mcp_json_object_set(d, message, "role", mcp_json_new_string(d, "user"));
    mcp_json_object_set(d, message, "content", content);
    mcp_json_array_append(d, messages, message);
    mcp_json_object_set(d, result, "messages", messages);
    if (text.data && mcp_json_doc_error(d) == MCP_OK)
        mcp_call_reply_result(call, result);
    else
        mcp_call_reply_error(call, -32603, "Internal error: out of memory");
    mcp_json_doc_free(d);
    mcp_buf_free(&text);
}

static void complete_greet(mcp_call *call, void *ud)
{
    const mcp_json *arg = mcp_json_object_get(mcp_call_arguments(call), "argument");
    const char *name = mcp_json_string(mcp_json_object_get(arg, "name"), NULL);
    const char *value = mcp_json_string(mcp_json_object_get(arg, "value"), NULL);
    const char *out[3];
    size_t n = 0;
    for (size_t i = 0; !strcmp(name, "style") && i < 3; i++)
        if (!strncmp(greet_styles[i], value, strlen(value)))
            out[n++] = greet_styles[i];
    mcp_call_reply_completion(call, out, n, (int64_t)n, false);
}

static int add_demo_offers(void)
{
    const mcp_resource resources[] = {
        {.size = sizeof(mcp_resource), .uri = "demo://readme", .name = "readme",
         .title = "What this server offers", .mime_type = "text/plain", .size_known = true,
         .size_bytes = sizeof demo_readme - 1, .read = read_readme},
        {.size = sizeof(mcp_resource), .uri = "demo://logo", .name = "logo",
         .mime_type = "image/png", .read = read_logo},
    };
    int rc = MCP_OK;
    for (size_t i = 0; i < sizeof resources / sizeof resources[0] && rc == MCP_OK; i++)
        rc = mcp_server_add_resource(the_server, &resources[i]);
    const mcp_resource_template echo = {.size = sizeof echo, .uri_template = "demo://echo/{text}",
                                        .name = "echo", .title = "Any text, read back",
                                        .mime_type = "text/plain", .read = read_echo};
    if (rc == MCP_OK)
        rc = mcp_server_add_resource_template(the_server, &echo);
    const mcp_prompt_argument args[] = {
        {.name = "name", .description = "Who to greet", .required = true},
        {.name = "style", .description = "formal, casual or pirate"}};
    const mcp_prompt greet = {.size = sizeof greet, .name = "greet", .title = "Greet someone",
                              .arguments = args, .argument_count = 2, .get = get_greet,
                              .complete = complete_greet};
    if (rc == MCP_OK)
        rc = mcp_server_add_prompt(the_server, &greet);
    if (rc != MCP_OK)
        fprintf(stderr, "mcp serve: cannot register the demo resources: %s\n", mcp_strerror(rc));
    return rc;
}

int cli_serve(int argc, char **argv)
{
    http_args args = {0};
    int bad = parse_args(argc, argv, &args);
    if (bad)
        return bad < 0 ? 0 : bad;
    mcp_server_options o = {
        .size = sizeof o,
        .name = args.conformance ? "mcp serve --conformance" : "mcp serve",
        .version = mcp_version(),
        .instructions = args.conformance
                            ? "The fixtures of the MCP conformance suite's server scenarios."
                            : "A demo server: the tools echo, sleep, count, fail, add_tool, "
                              "confirm, connect, summarize and roots; "
                              "resources (demo://readme) and a prompt (greet).",
        /* The demo's tools change (add_tool), its prompts and resources
         * never: only what can change is declared. The fixtures declare
         * everything the suite checks. */
        .listen_kinds = args.conformance ? 0 : MCP_LISTEN_TOOLS};
    const char *trace = getenv("MCP_TRACE");
    if (trace && *trace && strcmp(trace, "0") != 0)
        o.trace = trace_stderr;
    if (mcp_server_new(&o, &the_server) != MCP_OK) {
        fputs("mcp serve: out of memory\n", stderr);
        return EXIT_CONNECTION;
    }
    if ((args.conformance ? cli_conformance_tools(the_server)
                          : add_demo_tools() || add_demo_offers()) != MCP_OK) {
        mcp_server_free(the_server);
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
    if (args.listen) {
        int status = serve_http(&args);
        if (have_waiter) {
            pthread_cancel(waiter);
            pthread_join(waiter, NULL);
        }
        mcp_server_free(the_server);
        return status;
    }
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
