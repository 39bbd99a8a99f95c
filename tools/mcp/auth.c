/* SPDX-License-Identifier: MIT */
/*
 * mcp auth login|status|logout, and the stored authorization every other
 * command with --url uses.
 *
 * login runs the library's OAuth flow with a loopback redirect (RFC 8252):
 * a listener on 127.0.0.1 whose /callback the browser is sent back to. The
 * authorization URL is printed with its host apart (as a page an
 * elicitation names) and opened only with --open, by xdg-open run without
 * a shell. What the flow gives is kept by auth_store.c.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

extern char **environ;

#define LOGIN_SECONDS 300
#define REQUEST_CAP 8192

typedef struct login {
    int fd;       /* the loopback listener */
    int port;
    bool open;    /* --open: hand the URL to xdg-open */
    uint64_t deadline_ms;
} login;

/* The listener: the port of an earlier registration when it is free (the
 * server knows that redirect URI), else any. */
static bool listen_loopback(login *l, int port, char *why, size_t n)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            break;
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)(attempt ? 0 : port)),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof a;
        if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 8) == 0 &&
            getsockname(fd, (struct sockaddr *)&a, &len) == 0) {
            l->fd = fd;
            l->port = ntohs(a.sin_port);
            return true;
        }
        close(fd);
        if (!port)
            break;
    }
    snprintf(why, n, "cannot listen on 127.0.0.1 for the browser's return: %s", strerror(errno));
    return false;
}

static void answer(int fd, const char *status, const char *text)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n",
                     status, strlen(text));
    if (write(fd, head, (size_t)n) == n)
        (void)!write(fd, text, strlen(text));
}

/* One request read (its first line), bounded in size and time. */
static bool read_request_line(int fd, uint64_t deadline_ms, char *line, size_t size)
{
    size_t got = 0;
    while (got + 1 < size) {
        uint64_t now = mcp_monotonic_ms();
        if (now >= deadline_ms)
            return false;
        struct pollfd p = {fd, POLLIN, 0};
        int ready = poll(&p, 1, (int)(deadline_ms - now < 5000 ? deadline_ms - now : 5000));
        if (ready <= 0)
            continue;
        ssize_t r = read(fd, line + got, size - 1 - got);
        if (r <= 0)
            return false;
        got += (size_t)r;
        line[got] = '\0';
        char *end = strstr(line, "\r\n");
        if (end) {
            *end = '\0';
            return true;
        }
    }
    return false;
}

/* The browser's return to /callback: its URL, or NULL at the deadline. */
static char *await_callback(login *l, char *why, size_t n)
{
    while (mcp_monotonic_ms() < l->deadline_ms) {
        struct pollfd p = {l->fd, POLLIN, 0};
        if (poll(&p, 1, 1000) <= 0)
            continue;
        int c = accept(l->fd, NULL, NULL);
        if (c < 0)
            continue;
        char line[REQUEST_CAP];
        uint64_t limit = mcp_monotonic_ms() + 10000;
        char *url = NULL;
        if (read_request_line(c, limit < l->deadline_ms ? limit : l->deadline_ms, line,
                              sizeof line) &&
            !strncmp(line, "GET /callback", 13) && (line[13] == '?' || line[13] == ' ')) {
            char *sp = strchr(line + 4, ' ');
            if (sp)
                *sp = '\0';
            size_t len = strlen(line + 4) + 64;
            url = malloc(len);
            if (url)
                snprintf(url, len, "http://127.0.0.1:%d%s", l->port, line + 4);
            answer(c, "200 OK", "mcp has the authorization: you can close this page.\n");
        } else {
            answer(c, "404 Not Found", "not here\n");
        }
        close(c);
        if (url)
            return url;
    }
    snprintf(why, n, "the browser did not come back within the time allowed");
    return NULL;
}

/* mcp_oauth_authorize_fn for login: show the URL, maybe open it, wait. */
static int authorize_in_browser(void *ud, const char *url, const char *redirect_uri,
                                char **redirected, char *why, size_t n)
{
    (void)redirect_uri;
    login *l = ud;
    const char *host;
    size_t host_len;
    if (mcp_elicitation_url_host(url, strlen(url), &host, &host_len) != MCP_OK ||
        (strncasecmp(url, "https://", 8) && strncasecmp(url, "http://", 7))) {
        snprintf(why, n, "the authorization URL is not an http(s) URL with a host");
        return MCP_ERR_INVALID_ARG;
    }
    mcp_buf out;
    mcp_buf_init(&out, 0, NULL);
    mcp_buf_append(&out, MCP_LITERAL("Open this page to authorize mcp:\n  "));
    cli_sanitize(&out, url, strlen(url), false);
    mcp_buf_append(&out, MCP_LITERAL("\n  host: "));
    cli_sanitize(&out, host, host_len, false);
    mcp_buf_append(&out, MCP_LITERAL("\n"));
    fputs(out.data, stderr);
    fflush(stderr);
    mcp_buf_free(&out);
    if (l->open) {
        char *argv[] = {"xdg-open", (char *)url, NULL};
        pid_t pid;
        if (posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ) == 0)
            waitpid(pid, NULL, 0);
        else
            fputs("mcp: could not run xdg-open: open the page yourself\n", stderr);
    }
    *redirected = await_callback(l, why, n);
    return *redirected ? MCP_OK : MCP_ERR_TIMED_OUT;
}

/* For --url commands: no user is asked outside login. */
static int authorize_refused(void *ud, const char *url, const char *redirect_uri,
                             char **redirected, char *why, size_t n)
{
    (void)url;
    (void)redirect_uri;
    (void)redirected;
    snprintf(why, n, "the stored authorization for %s no longer works: run 'mcp auth login %s'",
             (const char *)ud, (const char *)ud);
    return MCP_ERR_STATE;
}

/* Stored authorization for --url commands ---------------------------------------------- */

/* The first record of a kept file's records whose key starts with prefix
 * ("tokens ", "machine "), or NULL. */
static const mcp_json *record_with(const mcp_json *records, const char *prefix)
{
    size_t pn = strlen(prefix);
    for (size_t i = 0; i < mcp_json_object_size(records); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(records, i, &k, &kn);
        if (kn > pn && !memcmp(k, prefix, pn))
            return v;
    }
    return NULL;
}

static struct {
    cli_auth_store store;
    mcp_oauth_options o;
    char *redirect_uri;
    char *client_id, *client_secret, *scope; /* a machine login's */
    bool used;
} stored;

static char *read_secret(const char *path);

/* A machine login (--client-credentials) is kept as the key "machine URL":
 * its client_id, where its secret is (the file's absolute path: the secret
 * stays where its owner keeps and rotates it, never copied) and the scope
 * asked. With it a --url command gets a new token by itself once the one
 * kept expires, as a machine client must: there is no refresh token and no
 * user to ask. */
#define MACHINE_KEY "machine "

static void machine_login(const mcp_json_doc *d)
{
    const mcp_json *m =
        record_with(mcp_json_object_get(mcp_json_doc_root(d), "records"), MACHINE_KEY);
    const char *id = mcp_json_string(mcp_json_object_get(m, "client_id"), NULL);
    const char *file = mcp_json_string(mcp_json_object_get(m, "client_secret_file"), NULL);
    const char *scope = mcp_json_string(mcp_json_object_get(m, "scope"), NULL);
    if (!id || !file)
        return;
    /* Unreadable now (said): the command goes on with what is kept, and
     * names the login to run if a new token is needed. */
    if (!(stored.client_secret = read_secret(file)))
        return;
    stored.client_id = strdup(id);
    stored.scope = scope ? strdup(scope) : NULL;
}

static int machine_keep(const mcp_oauth_options *o, const char *url, const char *secret_file)
{
    char *path = realpath(secret_file, NULL);
    size_t kn = strlen(url) + strlen(MACHINE_KEY) + 1;
    char *key = malloc(kn);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *r = d ? mcp_json_new_object(d) : NULL;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = path && key && r ? MCP_OK : MCP_ERR_NOMEM;
    if (rc == MCP_OK) {
        snprintf(key, kn, "%s%s", MACHINE_KEY, url);
        mcp_json_object_set(d, r, "client_id", mcp_json_new_string(d, o->client_id));
        mcp_json_object_set(d, r, "client_secret_file", mcp_json_new_string(d, path));
        if (o->scope)
            mcp_json_object_set(d, r, "scope", mcp_json_new_string(d, o->scope));
        rc = mcp_json_doc_error(d);
    }
    if (rc == MCP_OK)
        rc = mcp_json_write(r, &b);
    if (rc == MCP_OK)
        rc = o->save(o->store_user_data, key, b.data);
    mcp_buf_free(&b);
    mcp_json_doc_free(d);
    free(key);
    free(path);
    return rc;
}

/* The redirect URI the kept registration was made with, or NULL: a client
 * known by another would register again (engine.c). */
static char *registered_redirect(const mcp_json_doc *d)
{
    const mcp_json *records = mcp_json_object_get(mcp_json_doc_root(d), "records");
    for (size_t i = 0; i < mcp_json_object_size(records); i++) {
        const char *k;
        size_t kn;
        const mcp_json *v = mcp_json_object_at(records, i, &k, &kn);
        const char *r = mcp_json_string(mcp_json_object_get(v, "redirect_uri"), NULL);
        if (kn > 7 && !memcmp(k, "client ", 7) && r)
            return strdup(r);
    }
    return NULL;
}

const mcp_oauth_options *cli_auth_stored(const char *url)
{
    char why[512];
    mcp_json_doc *d = NULL;
    if (stored.used || !cli_auth_store_open(&stored.store, url, false, why, sizeof why))
        return NULL;
    if (!cli_auth_store_read(stored.store.path, url, &d, why, sizeof why)) {
        fprintf(stderr, "mcp: warning: %s\n", cli_safe(why));
        cli_auth_store_close(&stored.store);
        return NULL;
    }
    if (!d) {
        cli_auth_store_close(&stored.store);
        return NULL;
    }
    stored.redirect_uri = registered_redirect(d);
    machine_login(d);
    mcp_json_doc_free(d);
    stored.used = true;
    stored.o = (mcp_oauth_options){.size = sizeof stored.o,
                                   .authorize = authorize_refused,
                                   .authorize_user_data = stored.store.url,
                                   .redirect_uri = stored.redirect_uri
                                                       ? stored.redirect_uri
                                                       : "http://127.0.0.1/callback"};
    if (stored.client_id) {
        stored.o.grant = MCP_OAUTH_CLIENT_CREDENTIALS;
        stored.o.client_id = stored.client_id;
        stored.o.client_secret = stored.client_secret;
        stored.o.scope = stored.scope;
        stored.o.redirect_uri = NULL;
    }
    cli_auth_store_use(&stored.store, &stored.o);
    return &stored.o;
}

void cli_auth_stored_free(void)
{
    if (stored.used)
        cli_auth_store_close(&stored.store);
    free(stored.redirect_uri);
    free(stored.client_id);
    if (stored.client_secret) /* not left in freed memory */
        explicit_bzero(stored.client_secret, strlen(stored.client_secret));
    free(stored.client_secret);
    free(stored.scope);
    stored.redirect_uri = stored.client_id = stored.client_secret = stored.scope = NULL;
    stored.used = false;
}

/* The commands ------------------------------------------------------------------------- */

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "mcp: %s%s%s\n", what, arg ? " " : "", arg ? cli_safe(arg) : "");
    cli_usage("auth", false);
    return EXIT_USAGE;
}

/* The secret in a file (its first line), or NULL (said): a file others
 * may read is refused, as the kept tokens are. */
static char *read_secret(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && (st.st_mode & 077)) {
        fprintf(stderr, "mcp: %s may be read by others (mode %03o): a client secret wants "
                        "mode 600\n",
                cli_safe(path), (unsigned)(st.st_mode & 0777));
        fclose(f);
        return NULL;
    }
    if (!f || !fgets(line, sizeof line, f)) {
        fprintf(stderr, "mcp: cannot read the secret from %s%s%s\n", cli_safe(path),
                f ? "" : ": ", f ? "" : strerror(errno));
        if (f)
            fclose(f);
        return NULL;
    }
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    char *s = strdup(line);
    explicit_bzero(line, sizeof line);
    return s;
}

/* The port of the registration kept for url, so the browser comes back
 * where the server expects it; 0: any. */
static int kept_port(cli_auth_store *s)
{
    mcp_json_doc *d = NULL;
    char why[256];
    int port = 0;
    if (cli_auth_store_read(s->path, s->url, &d, why, sizeof why) && d) {
        char *r = registered_redirect(d);
        if (r && !strncmp(r, "http://127.0.0.1:", 17))
            port = atoi(r + 17);
        free(r);
    }
    mcp_json_doc_free(d);
    return port > 0 && port < 65536 ? port : 0;
}

static int login_command(int argc, char **argv)
{
    cli_client_args a = {.timeout = LOGIN_SECONDS, .max_time = -1, .cancel_after = -1,
                         .start_ms = mcp_monotonic_ms()};
    login l = {.fd = -1};
    mcp_oauth_options o = {.size = sizeof o, .offline_access = true, .dpop = false};
    char *secret = NULL, *redirect = NULL;
    const char *url = NULL, *secret_file = NULL;
    int code = 0;
    for (int i = 0; i < argc && !code; i++) {
        const char *s = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--open"))
            l.open = true;
        else if (!strcmp(s, "--dpop"))
            o.dpop = true;
        else if (!strcmp(s, "--without-s256"))
            o.without_s256 = true;
        else if (!strcmp(s, "--client-credentials"))
            o.grant = MCP_OAUTH_CLIENT_CREDENTIALS;
        else if (!strcmp(s, "--scope") && v)
            o.scope = argv[++i];
        else if (!strcmp(s, "--client-id") && v)
            o.client_id = argv[++i];
        else if (!strcmp(s, "--client-metadata-url") && v)
            o.client_metadata_url = argv[++i];
        else if (!strcmp(s, "--client-secret-file") && v) {
            free(secret);
            secret_file = argv[++i];
            if (!(secret = read_secret(secret_file)))
                code = EXIT_USAGE;
        } else if (!strcmp(s, "--ca-file") && v)
            a.ca_file = argv[++i];
        else if (!strcmp(s, "--timeout") && v) {
            uint64_t ms;
            if (!cli_parse_seconds(s, argv[++i], false, &ms, &a.timeout))
                code = EXIT_USAGE;
        } else if (s[0] == '-' || url)
            code = usage(s[0] == '-' ? "unknown option or missing value:" : "unexpected argument",
                         s);
        else
            url = s;
    }
    if (!code && !url)
        code = usage("auth login needs the server's URL", NULL);
    if (!code && strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
        code = usage("auth login takes an http:// or https:// URL, not", url);
    cli_auth_store store = {0};
    char why[512];
    if (!code && !cli_auth_store_open(&store, url, true, why, sizeof why)) {
        fprintf(stderr, "mcp: %s\n", cli_safe(why));
        code = EXIT_USAGE;
    }
    if (!code && o.grant != MCP_OAUTH_CLIENT_CREDENTIALS &&
        !listen_loopback(&l, kept_port(&store), why, sizeof why)) {
        fprintf(stderr, "mcp: %s\n", cli_safe(why));
        code = EXIT_CONNECTION;
    }
    if (!code) {
        size_t n = 64;
        redirect = malloc(n);
        if (redirect)
            snprintf(redirect, n, "http://127.0.0.1:%d/callback", l.port);
        l.deadline_ms = mcp_monotonic_ms() + (uint64_t)(a.timeout * 1000);
        o.client_secret = secret;
        o.redirect_uri = o.grant == MCP_OAUTH_CLIENT_CREDENTIALS ? NULL : redirect;
        o.authorize = authorize_in_browser;
        o.authorize_user_data = &l;
        cli_auth_store_use(&store, &o);
        a.url = url;
        a.oauth = &o;
        mcp_client_options co = {0};
        mcp_client *c = NULL;
        code = cli_connect(&a, &co, &c);
        if (!code) {
            char *tokens = NULL;
            size_t kn = strlen(url) + 8;
            char *key = malloc(kn);
            if (key)
                snprintf(key, kn, "tokens %s", url);
            bool kept = key && o.load(o.store_user_data, key, &tokens) == MCP_OK && tokens;
            if (kept && o.grant == MCP_OAUTH_CLIENT_CREDENTIALS && secret_file &&
                machine_keep(&o, url, secret_file) != MCP_OK) {
                fprintf(stderr, "mcp: cannot keep the machine login for %s in %s\n",
                        cli_safe(url), cli_safe(store.path));
                code = EXIT_CONNECTION;
            } else if (kept && o.grant == MCP_OAUTH_CLIENT_CREDENTIALS && secret_file)
                fprintf(stderr, "mcp: authorized: the tokens for %s are kept in %s, and new "
                                "ones are got with the secret in %s as they expire\n",
                        cli_safe(url), cli_safe(store.path), cli_safe(secret_file));
            else if (kept)
                fprintf(stderr, "mcp: authorized: the tokens for %s are kept in %s\n",
                        cli_safe(url), cli_safe(store.path));
            else
                fprintf(stderr, "mcp: %s did not ask for authorization: nothing kept\n",
                        cli_safe(url));
            free(tokens);
            free(key);
            cli_disconnect(c);
        }
    }
    if (l.fd >= 0)
        close(l.fd);
    cli_auth_store_close(&store);
    if (secret)
        explicit_bzero(secret, strlen(secret));
    free(secret);
    free(redirect);
    return code;
}

static void show_one(const char *path, const mcp_json *root, bool json)
{
    const char *url = mcp_json_string(mcp_json_object_get(root, "url"), NULL);
    const mcp_json *v = record_with(mcp_json_object_get(root, "records"), "tokens ");
    if (json) {
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *o = mcp_json_new_object(d);
        mcp_json_object_set(d, o, "url", mcp_json_new_string(d, url ? url : ""));
        mcp_json_object_set(d, o, "file", mcp_json_new_string(d, path));
        /* What is known of the tokens, never the tokens. */
        const char *names[] = {"issuer", "scope", "resource", "expires_at"};
        for (size_t j = 0; v && j < 4; j++)
            if (mcp_json_object_get(v, names[j]))
                mcp_json_object_set(d, o, names[j],
                                    mcp_json_copy(d, mcp_json_object_get(v, names[j])));
        if (v)
            mcp_json_object_set(d, o, "refreshable",
                                mcp_json_new_bool(d, mcp_json_object_get(v, "refresh_token") != NULL));
        cli_print_json(o);
        mcp_json_doc_free(d);
        return;
    }
    printf("%s\n", cli_safe(url ? url : "?"));
    const mcp_json *m = record_with(mcp_json_object_get(root, "records"), MACHINE_KEY);
    const char *id = mcp_json_string(mcp_json_object_get(m, "client_id"), NULL);
    const char *file = mcp_json_string(mcp_json_object_get(m, "client_secret_file"), NULL);
    if (m)
        printf("  machine login: client %s, its secret in %s\n", cli_safe(id ? id : "?"),
               cli_safe(file ? file : "?"));
    if (!v) {
        printf("  no tokens (a registration only)\n");
        return;
    }
    const char *iss = mcp_json_string(mcp_json_object_get(v, "issuer"), NULL);
    const char *scope = mcp_json_string(mcp_json_object_get(v, "scope"), NULL);
    int64_t exp = 0;
    mcp_json_get_int64(mcp_json_object_get(v, "expires_at"), &exp);
    int64_t left = exp ? exp - (int64_t)time(NULL) : 0;
    printf("  issuer: %s\n  scope: %s\n", cli_safe(iss ? iss : "?"),
           cli_safe(scope ? scope : "(as the server chose)"));
    if (!exp)
        printf("  expires: not said\n");
    else if (left > 0)
        printf("  expires: in %lld s\n", (long long)left);
    else
        printf("  expires: expired %lld s ago\n", (long long)-left);
    printf("  refresh: %s\n", mcp_json_object_get(v, "refresh_token") ? "yes" : "no");
}

static int status_command(int argc, char **argv)
{
    bool json = false;
    const char *url = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (argv[i][0] == '-' || url)
            return usage(argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
        else
            url = argv[i];
    }
    char why[512];
    cli_auth_store store;
    mcp_json_doc *d = NULL;
    if (url) {
        if (!cli_auth_store_open(&store, url, false, why, sizeof why) ||
            !cli_auth_store_read(store.path, url, &d, why, sizeof why)) {
            fprintf(stderr, "mcp: %s\n", cli_safe(why));
            if (store.path)
                cli_auth_store_close(&store);
            return EXIT_CONNECTION;
        }
        if (!d)
            fprintf(stderr, "mcp: nothing kept for %s\n", cli_safe(url));
        else
            show_one(store.path, mcp_json_doc_root(d), json);
        mcp_json_doc_free(d);
        cli_auth_store_close(&store);
        return d ? 0 : 1;
    }
    return cli_auth_store_each(show_one, json);
}

static int logout_command(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-')
        return usage("auth logout takes the server's URL", NULL);
    cli_auth_store store;
    char why[512];
    if (!cli_auth_store_open(&store, argv[0], false, why, sizeof why)) {
        fprintf(stderr, "mcp: nothing kept for %s\n", cli_safe(argv[0]));
        return 1;
    }
    int rc = unlink(store.path);
    int saved = errno;
    char lock[4400];
    snprintf(lock, sizeof lock, "%s.lock", store.path);
    unlink(lock);
    errno = saved;
    if (rc != 0 && errno != ENOENT)
        fprintf(stderr, "mcp: cannot remove %s: %s\n", cli_safe(store.path), strerror(errno));
    else
        fprintf(stderr, "mcp: %s for %s\n", rc == 0 ? "forgot the authorization" : "nothing kept",
                cli_safe(argv[0]));
    cli_auth_store_close(&store);
    return rc == 0 ? 0 : errno == ENOENT ? 1 : EXIT_CONNECTION;
}

int cli_auth(int argc, char **argv)
{
    if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
        cli_usage("auth", true);
        return 0;
    }
    if (argc >= 1 && !strcmp(argv[0], "login"))
        return login_command(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "status"))
        return status_command(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "logout"))
        return logout_command(argc - 1, argv + 1);
    return usage(argc ? "unknown auth command" : "auth needs login, status or logout",
                 argc ? argv[0] : NULL);
}
