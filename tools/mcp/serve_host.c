/* SPDX-License-Identifier: MIT */
/*
 * What a serving program around an mcp_server shares, whatever it serves:
 * the options of mcp serve (stdio, or --http and its companions), the HTTP
 * listener they configure, the signals (SIGTERM, Ctrl-C and SIGHUP stop gracefully,
 * SIGUSR1 goes to the program) and the exit statuses. mcp serve serves the
 * demo through it (serve.c); the conformance fixtures' program,
 * mcp-conformance server (tests/conformance), serves the suite's fixtures
 * through the same code, so both take every option the same way.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "text.h"

/* The program being served, for the signal thread and the messages. */
static const cli_served *served;
static mcp_server *the_server;

static void trace_stderr(void *ud, bool outgoing, const char *line, size_t len)
{
    cli_trace_line(served->prog, outgoing, line, len);
}

/* SIGTERM, Ctrl-C and SIGHUP end the server gracefully, SIGUSR1 is the program's (a
 * change to watch from outside: kill -USR1): a thread waits for them (they
 * are blocked everywhere else) and acts from there. */
static void *signal_waiter(void *arg)
{
    sigset_t *set = arg;
    int sig;
    while (sigwait(set, &sig) == 0) {
        if (sig == SIGUSR1) {
            if (served->on_sigusr1)
                served->on_sigusr1(the_server);
            else
                fprintf(stderr, "%s: SIGUSR1: nothing to do\n", served->prog);
            continue;
        }
        fprintf(stderr, "%s: %s: stopping\n", served->prog,
                sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "interrupted");
        mcp_server_stop(the_server);
        break;
    }
    return NULL;
}

/* --http and its companions. */
typedef struct http_args {
    const char *listen; /* [HOST:]PORT, NULL without --http */
    const char *path, *cert_file, *key_file, *poll, *request_timeout, *per_address, *max_conns;
    const char *state_key_file; /* with or without --http */
    const char *task_store, *task_store_timeout, *task_lease, *page_size;
    const char *auth_issuer, *auth_resource, *auth_audience, *auth_jwks_file, *auth_refetch;
    const char *auth_introspect, *auth_client_id, *auth_secret_file, *auth_introspect_ttl;
    const char *origins[17], *hosts[17], *tokens[17], *scopes[17];
    size_t norigins, nhosts, ntokens, nscopes;
    size_t nitem_scopes; /* --auth-item-scope: in item_scopes below */
    mcp_http_response_mode mode;
} http_args;

/* --auth-item-scope ITEM=SCOPE, as given (ITEM: up to the last '='). Set
 * by parse_args before the served program registers its items. */
static const char *item_scopes[33];

size_t cli_serve_item_scopes(const char *item, const char **out, size_t max)
{
    size_t n = 0, len = strlen(item);
    for (size_t i = 0; i < 33 && item_scopes[i] && n + 1 < max; i++) {
        const char *eq = strrchr(item_scopes[i], '=');
        if ((size_t)(eq - item_scopes[i]) == len && !strncmp(item_scopes[i], item, len))
            out[n++] = eq + 1;
    }
    if (max)
        out[n] = NULL;
    return n;
}

/* RFC 6749 section 3.3's scope-token. */
static bool scope_ok(const char *v)
{
    return *v && !strpbrk(v, " \t\"\\") &&
           strspn(v, "!#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "[]^_`abcdefghijklmnopqrstuvwxyz{|}~") == strlen(v);
}

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
    fprintf(stderr, "%s: ", served->prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry '%s --help'\n", served->prog);
    return EXIT_USAGE;
}

/* 0 when parsed, else the exit status (usage printed). */
static int parse_args(int argc, char **argv, http_args *a)
{
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            cli_usage(served->usage_command, true);
            return -1;
        }
        const char **value = !strcmp(o, "--http")       ? &a->listen
                             : !strcmp(o, "--path")     ? &a->path
                             : !strcmp(o, "--tls-cert") ? &a->cert_file
                             : !strcmp(o, "--tls-key")  ? &a->key_file
                             : !strcmp(o, "--poll-retry") ? &a->poll
                             : !strcmp(o, "--request-timeout") ? &a->request_timeout
                             : !strcmp(o, "--max-per-address") ? &a->per_address
                             : !strcmp(o, "--max-connections") ? &a->max_conns
                             : !strcmp(o, "--state-key-file") ? &a->state_key_file
                             : !strcmp(o, "--task-store") ? &a->task_store
                             : !strcmp(o, "--task-store-timeout") ? &a->task_store_timeout
                             : !strcmp(o, "--task-lease") ? &a->task_lease
                             : !strcmp(o, "--page-size") ? &a->page_size
                             : !strcmp(o, "--auth-issuer") ? &a->auth_issuer
                             : !strcmp(o, "--auth-resource") ? &a->auth_resource
                             : !strcmp(o, "--auth-audience") ? &a->auth_audience
                             : !strcmp(o, "--auth-jwks") ? &a->auth_jwks_file
                             : !strcmp(o, "--auth-jwks-refetch") ? &a->auth_refetch
                             : !strcmp(o, "--auth-introspect") ? &a->auth_introspect
                             : !strcmp(o, "--auth-client-id") ? &a->auth_client_id
                             : !strcmp(o, "--auth-client-secret-file") ? &a->auth_secret_file
                             : !strcmp(o, "--auth-introspect-ttl") ? &a->auth_introspect_ttl
                                                        : NULL;
        bool list = !strcmp(o, "--allow-origin") || !strcmp(o, "--allow-host") ||
                    !strcmp(o, "--token") || !strcmp(o, "--auth-scope");
        if (!strcmp(o, "--auth-item-scope") && i + 1 < argc) {
            const char *v = argv[++i], *eq = strrchr(v, '=');
            if (a->nitem_scopes == 32)
                return usage_error("%s", "at most 32 of --auth-item-scope");
            if (!eq || eq == v || !scope_ok(eq + 1))
                return usage_error("--auth-item-scope takes ITEM=SCOPE (a tool's or prompt's "
                                   "name, or a resource's URI or URI template, then one "
                                   "scope: RFC 6749 3.3), not '%s'",
                                   cli_safe(v));
            item_scopes[a->nitem_scopes++] = v;
            continue;
        }
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
            bool scope = !strcmp(o, "--auth-scope");
            size_t *n = origin ? &a->norigins : token ? &a->ntokens : scope ? &a->nscopes : &a->nhosts;
            if (*n == 16)
                return usage_error("at most 16 of %s", o);
            (origin ? a->origins : token ? a->tokens : scope ? a->scopes : a->hosts)[(*n)++] = v;
            if (scope && !scope_ok(v))
                return usage_error("--auth-scope takes one scope (printable ASCII, no space, "
                                   "quote or backslash: RFC 6749 3.3), not '%s'",
                                   cli_safe(v));
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
    const char *millis[][2] = {{"--task-store-timeout", a->task_store_timeout},
                               {"--task-lease", a->task_lease}};
    for (size_t i = 0; i < 2; i++) {
        const char *v = millis[i][1];
        if (v && (strspn(v, "0123456789") != strlen(v) || strlen(v) > 7 ||
                  strtoul(v, NULL, 10) == 0))
            return usage_error("%s takes milliseconds (1 to 9999999), not '%s'", millis[i][0],
                               cli_safe(v));
    }
    if (a->page_size && (strspn(a->page_size, "0123456789") != strlen(a->page_size) ||
                         strlen(a->page_size) > 6 || strtoul(a->page_size, NULL, 10) == 0))
        return usage_error("--page-size takes a number of items (1 to 999999), not '%s'",
                           cli_safe(a->page_size));
    if (a->auth_refetch && (strspn(a->auth_refetch, "0123456789") != strlen(a->auth_refetch) ||
                            strlen(a->auth_refetch) > 5 || strtoul(a->auth_refetch, NULL, 10) == 0))
        return usage_error("--auth-jwks-refetch takes seconds (1 to 99999), not '%s'",
                           cli_safe(a->auth_refetch));
    char why[200];
    if (a->task_store && !mcp_server_task_store_valid(a->task_store, why, sizeof why))
        return usage_error("--task-store '%s': %s", cli_safe(a->task_store), why);
    if (!a->listen && (a->task_store || a->task_store_timeout || a->task_lease))
        return usage_error("%s", "a task store is shared by HTTP servers: --task-store needs "
                                 "--http [HOST:]PORT");
    if (!a->task_store && (a->task_store_timeout || a->task_lease))
        return usage_error("%s", "--task-store-timeout and --task-lease need --task-store");
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
    bool introspect = a->auth_introspect || a->auth_client_id || a->auth_secret_file ||
                      a->auth_introspect_ttl;
    bool auth = a->auth_issuer || a->auth_resource || a->auth_audience || a->auth_jwks_file ||
                a->auth_refetch || a->nscopes || a->nitem_scopes || introspect;
    if (auth && !a->listen)
        return usage_error("%s", "--auth-* options need --http [HOST:]PORT");
    if (auth && (!a->auth_issuer || !a->auth_resource))
        return usage_error("%s", "a resource server needs --auth-issuer URL and --auth-resource "
                                 "URL (this server's, as clients reach it)");
    if (introspect && (!a->auth_introspect || !a->auth_client_id || !a->auth_secret_file))
        return usage_error("%s", "token introspection needs --auth-introspect URL, "
                                 "--auth-client-id ID and --auth-client-secret-file FILE");
    if (introspect && (a->auth_jwks_file || a->auth_refetch))
        return usage_error("%s", "--auth-introspect asks about every token: no key set "
                                 "(--auth-jwks, --auth-jwks-refetch) with it");
    if (a->auth_introspect_ttl &&
        (strspn(a->auth_introspect_ttl, "0123456789") != strlen(a->auth_introspect_ttl) ||
         strlen(a->auth_introspect_ttl) > 5 || strtoul(a->auth_introspect_ttl, NULL, 10) == 0 ||
         strtoul(a->auth_introspect_ttl, NULL, 10) > 86400))
        return usage_error("--auth-introspect-ttl takes seconds from 1 to 86400, not '%s'",
                           cli_safe(a->auth_introspect_ttl));
    if (a->auth_jwks_file && a->auth_refetch)
        return usage_error("%s", "--auth-jwks-refetch is for a key set fetched from the "
                                 "authorization server, not one read from --auth-jwks");
    if (auth && a->ntokens)
        return usage_error("%s", "--token and --auth-issuer cannot be used together");
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

/* The key that signs 2026-07-28 requestState, from a file: every process
 * serving one endpoint behind a balancer must have the same one, or a
 * round's answer landing on another process is refused. Its whole bytes
 * (32 to 1024: `head -c 32 /dev/urandom`); false with the reason printed. */
static bool read_state_key(const char *path, unsigned char *key, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: --state-key-file: cannot read '%s': %s\n", served->prog,
                cli_safe(path), strerror(errno));
        return false;
    }
    struct stat st;
    bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    size_t n = regular ? fread(key, 1, 1025, f) : 0;
    int e = ferror(f) ? errno : 0;
    fclose(f);
    const char *why = !regular ? "not a regular file"
                      : e      ? strerror(e)
                      : n < 32 ? "shorter than 32 bytes (make one: head -c 32 /dev/urandom > FILE)"
                      : n > 1024 ? "longer than 1024 bytes"
                                 : NULL;
    if (why) {
        fprintf(stderr, "%s: --state-key-file '%s': %s\n", served->prog, cli_safe(path), why);
        return false;
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        fprintf(stderr, "%s: warning: --state-key-file '%s' is open to other users (chmod 600 "
                        "it): whoever reads it can forge requestState\n",
                served->prog, cli_safe(path));
    *len = n;
    return true;
}

/* The whole of a small file (PEM, else JSON), or NULL with the reason
 * printed. */
static char *read_file(const char *path, bool pem)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot read '%s': %s\n", served->prog, cli_safe(path), strerror(errno));
        return NULL;
    }
    char *data = malloc(1 << 20);
    size_t n = data ? fread(data, 1, (1 << 20) - 1, f) : 0;
    int e = ferror(f) ? errno : 0;
    bool big = data && n == (1 << 20) - 1;
    fclose(f);
    if (data)
        data[n] = '\0';
    if (!data || e || big || !n || (pem && !strstr(data, "-----BEGIN "))) {
        fprintf(stderr, "%s: '%s': %s\n", served->prog, cli_safe(path),
                !data ? "out of memory" : e ? strerror(e) : big ? "too large"
                : !n ? "empty" : "not a PEM file");
        free(data);
        return NULL;
    }
    return data;
}

/* The client secret of --auth-client-secret-file: the file's first line,
 * from a file no one else may read (a secret is not a setting). */
static char *read_secret(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && (st.st_mode & 077)) {
        fprintf(stderr, "%s: '%s' may be read by others (mode %03o): a client secret wants "
                        "mode 600\n",
                served->prog, cli_safe(path), (unsigned)(st.st_mode & 0777));
        return NULL;
    }
    char *s = read_file(path, false);
    if (!s)
        return NULL;
    s[strcspn(s, "\r\n")] = '\0';
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            fprintf(stderr, "%s: '%s': a control character in the client secret\n",
                    served->prog, cli_safe(path));
            free(s);
            return NULL;
        }
    if (!*s) {
        fprintf(stderr, "%s: '%s': the first line is empty\n", served->prog, cli_safe(path));
        free(s);
        return NULL;
    }
    return s;
}

static int serve_http(const http_args *a)
{
    char host[64];
    unsigned port;
    if (!split_listen(a->listen, host, sizeof host, &port)) {
        fprintf(stderr, "%s: --http takes [HOST:]PORT (a port up to 65535), not '%s'\n",
                served->prog, cli_safe(a->listen));
        return EXIT_USAGE;
    }
    char *cert = a->cert_file ? read_file(a->cert_file, true) : NULL;
    char *key = a->key_file ? read_file(a->key_file, true) : NULL;
    char *jwks = a->auth_jwks_file ? read_file(a->auth_jwks_file, false) : NULL;
    char *secret = a->auth_secret_file ? read_secret(a->auth_secret_file) : NULL;
    if ((a->cert_file && !cert) || (a->key_file && !key) || (a->auth_jwks_file && !jwks) ||
        (a->auth_secret_file && !secret)) {
        free(cert);
        free(key);
        free(jwks);
        free(secret);
        return EXIT_USAGE;
    }
    bool loopback = !host[0] || !strncmp(host, "127.", 4) || !strcmp(host, "::1");
    if (!loopback && !a->ntokens && !a->auth_issuer)
        fprintf(stderr, "%s: warning: serving %s without --token: anyone who reaches "
                        "it may call its tools\n",
                served->prog, cli_safe(host));
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
                                 .authorize_user_data = (void *)a,
                                 .auth_issuer = a->auth_issuer,
                                 .auth_resource = a->auth_resource,
                                 .auth_audience = a->auth_audience,
                                 .auth_jwks = jwks,
                                 .auth_scopes = a->nscopes ? a->scopes : NULL,
                                 .auth_jwks_refetch_s =
                                     a->auth_refetch ? (unsigned)strtoul(a->auth_refetch, NULL, 10)
                                                     : 0,
                                 .auth_introspection_url = a->auth_introspect,
                                 .auth_client_id = a->auth_client_id,
                                 .auth_client_secret = secret,
                                 .auth_introspection_ttl_s =
                                     a->auth_introspect_ttl
                                         ? (unsigned)strtoul(a->auth_introspect_ttl, NULL, 10)
                                         : 0};
    int rc = mcp_server_listen_http(the_server, &h);
    free(cert);
    free(key);
    free(jwks);
    if (secret) /* not left in freed memory */
        explicit_bzero(secret, strlen(secret));
    free(secret);
    if (rc != MCP_OK) {
        fprintf(stderr, "%s: cannot serve HTTP on %s: %s\n", served->prog, cli_safe(a->listen),
                rc == MCP_ERR_INVALID_ARG
                    ? a->auth_issuer ? "the --auth-* options were refused (the reason is above)"
                                     : "HOST must be a numeric address, and TLS files PEM"
                : rc == MCP_ERR_IO && a->auth_issuer && !a->auth_jwks_file && !a->auth_introspect
                    ? "the port could not be bound, or the authorization server's key set "
                      "could not be had (the reason is above)"
                    : mcp_strerror(rc));
        return rc == MCP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_CONNECTION;
    }
    fprintf(stderr, "%s: listening on %s://%s%s%s:%u%s\n", served->prog, cert ? "https" : "http",
            strchr(host, ':') ? "[" : "", host[0] ? host : "127.0.0.1", strchr(host, ':') ? "]" : "",
            mcp_server_http_port(the_server), a->path ? a->path : "/mcp");
    return mcp_server_run(the_server) == MCP_OK ? 0 : EXIT_CONNECTION;
}

int cli_serve_check(const cli_served *what, int argc, char **argv)
{
    served = what;
    http_args args = {0};
    int bad = parse_args(argc, argv, &args);
    return bad < 0 ? -1 : bad;
}

int cli_serve_host(const cli_served *what, int argc, char **argv)
{
    served = what;
    http_args args = {0};
    int bad = parse_args(argc, argv, &args);
    if (bad)
        return bad < 0 ? 0 : bad;
    mcp_server_options o = what->options;
    o.size = sizeof o;
    if (!o.version)
        o.version = mcp_version();
    static unsigned char state_key[1025];
    if (args.state_key_file) {
        if (!read_state_key(args.state_key_file, state_key, &o.request_state_key_len))
            return EXIT_USAGE;
        o.request_state_key = state_key;
    }
    o.task_store = args.task_store;
    if (args.page_size)
        o.page_size = strtoul(args.page_size, NULL, 10);
    if (args.task_store_timeout)
        o.task_store_timeout_ms = strtoull(args.task_store_timeout, NULL, 10);
    if (args.task_lease)
        o.task_lease_ms = strtoull(args.task_lease, NULL, 10);
    const char *trace = getenv("MCP_TRACE");
    if (trace && *trace && strcmp(trace, "0") != 0)
        o.trace = trace_stderr;
    if (mcp_server_new(&o, &the_server) != MCP_OK) {
        fprintf(stderr, "%s: out of memory\n", what->prog);
        return EXIT_CONNECTION;
    }
    if (what->add && what->add(the_server) != MCP_OK) {
        mcp_server_free(the_server);
        return EXIT_CONNECTION;
    }
    static sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP); /* its terminal gone: a stop too, never a death */
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
        fprintf(stderr, "%s: stopped: the connection failed (stdin or stdout; see above): "
                        "replies may be lost\n", what->prog);
        return EXIT_CONNECTION;
    }
    if (rc != MCP_OK) {
        fprintf(stderr, "%s: stopped: %s\n", what->prog, mcp_strerror(rc));
        return EXIT_CONNECTION;
    }
    return 0;
}
