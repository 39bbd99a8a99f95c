/* SPDX-License-Identifier: MIT */
/*
 * mcp watch: open a subscription and print what it carries until Ctrl-C
 * (or SIGTERM), which cancels it on the wire. A server that exits is started
 * again and the subscription opened again (2026-07-28 servers keep no
 * subscriptions across restarts). Against a legacy server, the list_changed
 * notifications asked for are printed as they come, and --resource URIs are
 * subscribed to with resources/subscribe. Output that cannot be written (a
 * full disk, the reader of a pipe gone) ends the watch; so do a subscription
 * the server does not acknowledge within --timeout, one that offers none of
 * what was asked for, and one the server refuses.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "cli.h"
#include "text.h"

#define MAX_URIS 64
/* Attempts in a row to start the server again (stdio: a crash loop is not
 * worth more) or reach it again (HTTP: about four minutes, for a deploy),
 * waiting 0, 1, 2, 4 ... 60 s between them. A subscription that lived
 * SETTLED_MS after its acknowledgment starts the count afresh. */
#define STDIO_ATTEMPTS 5
#define HTTP_ATTEMPTS 10
#define MAX_PAUSE_MS 60000
#define SETTLED_MS 30000

typedef struct watch_state {
    mcp_client *client;
    const cli_client_args *args;
    mcp_listen_filter filter;
    mcp_handle handle;
    bool listening;
    int ended;       /* 0, or the listen's ending outcome + 1 */
    int stop_code;   /* set by a signal */
    int give_up;     /* 0, or the exit code to end with (the reason is printed) */
    const char *give_up_reason; /* the cancel's reason on the wire */
    uv_signal_t sigint, sigterm;
    uv_poll_t out_poll; /* stdout, when a pipe: its reader going away */
    bool out_polled;
    uv_timer_t ack_timer; /* bounds the wait for the acknowledgment */
    uint64_t ack_ms;
    double ack_seconds;
    char ack_reason[64];
    char *refusal; /* the error response ending the listen: message, sanitized */
    long long refusal_code;
    int refusal_http; /* the HTTP status that refused it, else 0 */
    bool stream_broke; /* HTTP: the listen's stream broke */
    bool lost_in_setup; /* the server went away while subscribed to (2025) */
    int blocking;       /* blocking steps under way (blocking_begin) */
    uint64_t acked_at;  /* monotonic ms of the last acknowledgment (2025: of
                           watching), or 0 */
    uv_timer_t pause;   /* the wait before reaching the server again */
    bool paused;
    cli_asker asker; /* the server's questions and logs */
} watch_state;

static void give_up(watch_state *st, int code, const char *reason)
{
    if (!st->give_up) {
        st->give_up = code;
        st->give_up_reason = reason;
    }
    uv_stop(mcp_client_loop(st->client));
}

static void on_signal(uv_signal_t *s, int signum);

/* Blocking steps: the library's (mcp_client_reconnect, a 2025 server's
 * resources/subscribe) run the loop until they end, and a write to stdout
 * blocks while its reader does not read (a full pipe): a signal caught on
 * the loop cannot cut them short. While one runs, a Ctrl-C or SIGTERM ends
 * mcp at once (killing the server it started), as while connecting the
 * first time; then signals are caught again, unless one already came (the
 * next one exits at once). They nest (a notification printed during a
 * subscribe). */
static void blocking_begin(watch_state *st)
{
    if (st->blocking++ == 0)
        cli_exit_at_once(st->client, &st->sigint, &st->sigterm);
}

static void blocking_end(watch_state *st)
{
    if (--st->blocking == 0 && !st->stop_code) {
        uv_signal_start(&st->sigint, on_signal, SIGINT);
        uv_signal_start(&st->sigterm, on_signal, SIGTERM);
    }
}

static void print_notification(watch_state *st, const mcp_message *m)
{
    blocking_begin(st);
    if (st->args->json) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp_json_write(m->root, &b);
        printf("%s\n", b.data);
        mcp_buf_free(&b);
    } else {
        const char *name = m->method;
        if (!strncmp(name, "notifications/", 14))
            name += 14;
        size_t uri_len;
        const char *uri = mcp_json_string(mcp_json_object_get(m->params, "uri"), &uri_len);
        printf("%s%s%s\n", cli_safe(name), uri ? " " : "", uri ? cli_safe_n(uri, uri_len) : "");
    }
    bool ok = cli_output_ok(); /* flushes: each notification as it comes */
    blocking_end(st);
    if (!ok)
        give_up(st, EXIT_OUTPUT, "the output could not be written");
}

/* The reader of stdout went away (the pipe's read end closed: POLLERR).
 * Seen at once, not at the next notification, which may be hours away. */
static void on_stdout_event(uv_poll_t *p, int status, int events)
{
    watch_state *st = p->data;
    uv_poll_stop(p);
    if (!st->give_up)
        fputs("mcp: cannot write the output: its reader went away\n", stderr);
    give_up(st, EXIT_OUTPUT, "the output's reader went away");
}

static void poll_stdout(watch_state *st)
{
    struct stat sb;
    if (fstat(STDOUT_FILENO, &sb) != 0 || !S_ISFIFO(sb.st_mode))
        return; /* a file or a terminal does not go away; a socket may half-close */
    int flags = fcntl(STDOUT_FILENO, F_GETFL);
    if (flags == -1 || uv_poll_init(mcp_client_loop(st->client), &st->out_poll, STDOUT_FILENO))
        return;
    /* uv_poll_init made it non-blocking, for every process sharing it:
     * back as it was, or a full pipe would fail our writes (EAGAIN). */
    fcntl(STDOUT_FILENO, F_SETFL, flags);
    st->out_poll.data = st;
    uv_poll_start(&st->out_poll, UV_DISCONNECT, on_stdout_event);
    st->out_polled = true;
}

static void on_ack_timeout(uv_timer_t *t)
{
    watch_state *st = t->data;
    if (!st->listening)
        return;
    fprintf(stderr, "mcp: the server did not acknowledge the subscription within %g s\n",
            st->ack_seconds);
    snprintf(st->ack_reason, sizeof st->ack_reason, "not acknowledged within %g s",
             st->ack_seconds);
    give_up(st, EXIT_TIMEOUT, st->ack_reason);
}

static bool asked_for(const watch_state *st, const mcp_message *m);

static void on_listen(void *ud, mcp_handle h, const mcp_listen_event *ev)
{
    watch_state *st = ud;
    if (ev->kind != MCP_LISTEN_NOTIFICATION)
        uv_timer_stop(&st->ack_timer);
    switch (ev->kind) {
    case MCP_LISTEN_ACKNOWLEDGED: {
        /* What the server honours of what was asked for: a kind it adds
         * unasked is not printed (asked_for), so does not count. */
        unsigned asked = st->filter.kinds |
                         (st->filter.resource_count ? MCP_LISTEN_RESOURCE_UPDATES : 0u);
        unsigned kinds = ev->kinds & asked;
        st->acked_at = mcp_monotonic_ms();
        if (kinds)
            fprintf(stderr, "listening for:%s%s%s%s (subscription %llu)\n",
                    kinds & MCP_LISTEN_TOOLS ? " tools" : "",
                    kinds & MCP_LISTEN_PROMPTS ? " prompts" : "",
                    kinds & MCP_LISTEN_RESOURCES ? " resources" : "",
                    kinds & MCP_LISTEN_RESOURCE_UPDATES ? " resource updates" : "",
                    (unsigned long long)h);
        else { /* nothing will ever come: waiting would be forever */
            fputs("mcp: the server offers none of the notifications asked for\n", stderr);
            give_up(st, EXIT_CONNECTION, "none of the notifications asked for is offered");
        }
        break;
    }
    case MCP_LISTEN_NOTIFICATION:
        /* What the user asked for, whatever the server sends on the
         * subscription (an update of another URI, a list not asked for). */
        if (asked_for(st, ev->message))
            print_notification(st, ev->message);
        break;
    case MCP_LISTEN_ENDED:
        st->listening = false;
        st->ended = ev->outcome + 1;
        /* An HTTP failure without a status: the connection or the stream. */
        st->stream_broke = ev->outcome == MCP_ERR_HTTP && ev->http_status == 0;
        if ((ev->outcome == MCP_ERR_REMOTE || ev->outcome == MCP_ERR_HTTP) && ev->message &&
            !st->refusal && !st->stream_broke) {
            const mcp_message *m = ev->message;
            st->refusal = strdup(cli_safe_n(m->error_message, m->error_message_len));
            st->refusal_code = (long long)m->error_code;
            st->refusal_http = ev->http_status;
        }
        uv_stop(mcp_client_loop(st->client));
        break;
    }
}

/* Whether a notification is one the user asked for: a list change of a
 * kind asked for, or an update of a URI subscribed to. A server may send
 * any of them unasked (the official everything server announces its tools
 * right after initialize; a 2026-07-28 server may carry anything on a
 * subscription). */
static bool asked_for(const watch_state *st, const mcp_message *m)
{
    static const struct {
        const char *method;
        unsigned kind;
    } lists[] = {{"notifications/tools/list_changed", MCP_LISTEN_TOOLS},
                 {"notifications/prompts/list_changed", MCP_LISTEN_PROMPTS},
                 {"notifications/resources/list_changed", MCP_LISTEN_RESOURCES}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (!strcmp(m->method, lists[i].method))
            return (st->filter.kinds & lists[i].kind) != 0;
    if (strcmp(m->method, "notifications/resources/updated") != 0)
        return false;
    size_t n;
    const char *uri = mcp_json_string(mcp_json_object_get(m->params, "uri"), &n);
    for (size_t i = 0; uri && i < st->filter.resource_count; i++)
        if (strlen(st->filter.resource_uris[i]) == n && !memcmp(st->filter.resource_uris[i], uri, n))
            return true;
    return false;
}

static void on_legacy_notification(void *ud, const mcp_message *m)
{
    watch_state *st = ud;
    if (asked_for(st, m))
        print_notification(st, m);
}

static void on_signal(uv_signal_t *s, int signum)
{
    watch_state *st = s->data;
    st->stop_code = signum == SIGTERM ? EXIT_TERMINATED : EXIT_CANCELLED;
    /* A second signal exits at once, killing the server. */
    cli_exit_at_once(st->client, &st->sigint, &st->sigterm);
    if (st->listening) {
        fprintf(stderr, "cancelling the subscription...\n");
        mcp_client_cancel(st->client, st->handle, "cancelled by user");
    }
    uv_stop(mcp_client_loop(st->client));
}

/* Whether a legacy server declares capabilities.<name>.<flag> true. */
static bool declares(const mcp_json *caps, const char *name, const char *flag)
{
    bool on = false;
    return mcp_json_get_bool(mcp_json_object_get(mcp_json_object_get(caps, name), flag), &on) ==
               MCP_OK &&
           on;
}

/* resources/subscribe of each --resource URI (a 2025 server keeps them for
 * its session: after a reconnect they are made again). MCP_OK; MCP_ERR_CLOSED
 * when the server went away meanwhile (it is started or reached again, as
 * any server gone); else one was refused or failed: said, the watch gives
 * up (MCP_ERR_REMOTE). */
static int subscribe_legacy(watch_state *st)
{
    for (size_t i = 0; i < st->filter.resource_count; i++) {
        uint64_t idle, left;
        cli_budget(st->args, &idle, &left);
        mcp_client_call_options co = {.size = sizeof co, .timeout_ms = idle};
        const char *uri = st->filter.resource_uris[i];
        int rc = mcp_client_subscribe_resource(st->client, uri, &co);
        if (rc == MCP_ERR_CLOSED)
            return rc;
        if (rc != MCP_OK) {
            fprintf(stderr, "mcp: resources/subscribe %s failed: %s\n", cli_safe(uri),
                    mcp_client_error(st->client)[0] ? cli_safe(mcp_client_error(st->client))
                                                    : mcp_strerror(rc));
            give_up(st, rc == MCP_ERR_TIMED_OUT ? EXIT_TIMEOUT : EXIT_CONNECTION,
                    "a subscription was refused");
            return MCP_ERR_REMOTE;
        }
    }
    return MCP_OK;
}

/* A legacy server: no subscriptions, but the list_changed notifications it
 * declares in its capabilities. Asked only for what it never sends, there
 * is nothing to wait for. MCP_OK (watching, or given up), or MCP_ERR_CLOSED:
 * the server went away while being subscribed to. */
static int watch_legacy(watch_state *st)
{
    const mcp_json *caps = mcp_json_object_get(mcp_client_server_info(st->client), "capabilities");
    unsigned asked = st->filter.kinds, offered = 0;
    if ((asked & MCP_LISTEN_TOOLS) && declares(caps, "tools", "listChanged"))
        offered |= MCP_LISTEN_TOOLS;
    if ((asked & MCP_LISTEN_PROMPTS) && declares(caps, "prompts", "listChanged"))
        offered |= MCP_LISTEN_PROMPTS;
    if ((asked & MCP_LISTEN_RESOURCES) && declares(caps, "resources", "listChanged"))
        offered |= MCP_LISTEN_RESOURCES;
    const char *version = mcp_client_protocol_version(st->client);
    int rc;
    if (st->filter.resource_count) {
        if (!declares(caps, "resources", "subscribe"))
            fprintf(stderr, "mcp: the server (%s) offers no resource subscriptions "
                            "(resources.subscribe)\n", version);
        else if ((rc = subscribe_legacy(st)) != MCP_OK)
            return rc == MCP_ERR_CLOSED ? rc : MCP_OK; /* gone, or said and given up */
        else
            offered |= MCP_LISTEN_RESOURCE_UPDATES;
    }
    if (!offered) {
        fprintf(stderr, "mcp: the server (%s) offers none of the notifications asked for\n",
                version);
        give_up(st, EXIT_CONNECTION, "none of the notifications asked for is offered");
        return MCP_OK;
    }
    if (offered & ~MCP_LISTEN_RESOURCE_UPDATES)
        fprintf(stderr, "the server speaks %s: no subscriptions; printing its list changes:%s%s%s\n",
                version, offered & MCP_LISTEN_TOOLS ? " tools" : "",
                offered & MCP_LISTEN_PROMPTS ? " prompts" : "",
                offered & MCP_LISTEN_RESOURCES ? " resources" : "");
    if (offered & MCP_LISTEN_RESOURCE_UPDATES)
        fprintf(stderr, "the server speaks %s: subscribed to %zu resource%s (resources/subscribe); "
                        "printing their updates\n",
                version, st->filter.resource_count, st->filter.resource_count == 1 ? "" : "s");
    /* Watching from now: what counts as a server that lived (SETTLED_MS),
     * as a 2026-07-28 acknowledgment does. */
    st->acked_at = mcp_monotonic_ms();
    return MCP_OK;
}

static int listen_now(watch_state *st)
{
    if (!mcp_protocol_modern(mcp_client_protocol_version(st->client)))
        return watch_legacy(st);
    st->ended = 0;
    int rc = mcp_client_listen(st->client, &st->filter, on_listen, st, &st->handle);
    st->listening = rc == MCP_OK;
    if (st->listening)
        uv_timer_start(&st->ack_timer, on_ack_timeout, st->ack_ms, 0);
    return rc;
}

/* A 2025 server over HTTP sends its list changes on the GET stream: one it
 * refuses (405) or that failed for minutes leaves nothing to watch; a
 * session it ended is a server gone (lost), reached again. */
static int legacy_stream_gone(watch_state *st, bool *lost)
{
    switch (mcp_client_server_stream(st->client)) {
    case MCP_CLIENT_STREAM_REFUSED:
        fputs("mcp: the server offers no stream for its notifications (its GET answered "
              "405): nothing to watch\n", stderr);
        return EXIT_CONNECTION;
    case MCP_CLIENT_STREAM_FAILED:
        fputs("mcp: the server's notification stream failed 10 times in a row (about 5 "
              "minutes); giving up\n", stderr);
        return EXIT_CONNECTION;
    case MCP_CLIENT_STREAM_SESSION_ENDED:
        *lost = true;
        return 0;
    default: return 0;
    }
}

static void on_pause_end(uv_timer_t *t)
{
    watch_state *st = t->data;
    st->paused = false;
    uv_stop(t->loop);
}

/* Wait ms on the client's loop, a signal or a gone reader cutting it short. */
static void pause_for(watch_state *st, uint64_t ms)
{
    st->paused = true;
    uv_timer_start(&st->pause, on_pause_end, ms, 0);
    while (st->paused && !st->stop_code && !st->give_up)
        uv_run(mcp_client_loop(st->client), UV_RUN_ONCE);
    uv_timer_stop(&st->pause);
    st->paused = false;
}

/* Start or reach the server again and listen, attempt after attempt with a
 * growing pause; 0 once listening (or stopped by a signal), else the exit
 * code after the last attempt. */
static int come_back(watch_state *st, int *failures, int attempts)
{
    st->listening = false;
    st->stream_broke = false;
    for (;;) {
        if (++*failures > attempts) {
            fprintf(stderr, "mcp: %d attempts in a row to %s the server again; giving up\n",
                    attempts, st->args->url ? "reach" : "start");
            return EXIT_CONNECTION;
        }
        uint64_t ms = *failures == 1 ? 0 : 1000ull << (*failures - 2);
        if (ms > MAX_PAUSE_MS)
            ms = MAX_PAUSE_MS;
        if (ms) {
            fprintf(stderr, "trying again in %llu s\n", (unsigned long long)(ms / 1000));
            pause_for(st, ms);
            if (st->stop_code)
                return 0;
            if (st->give_up)
                return st->give_up;
        }
        blocking_begin(st);
        int rc = mcp_client_reconnect(st->client);
        cli_note_server(st->client); /* a new process */
        if (rc == MCP_OK)
            rc = listen_now(st);
        blocking_end(st);
        if (rc == MCP_OK)
            return st->give_up; /* listen_now may find nothing to wait for */
        fprintf(stderr, "mcp: %s\n", mcp_client_error(st->client)[0]
                                          ? cli_safe(mcp_client_error(st->client))
                                          : mcp_strerror(rc));
    }
}

int cli_watch(int argc, char **argv)
{
    cli_client_args a = {.timeout = -1, .max_time = -1, .cancel_after = -1,
                         .start_ms = mcp_monotonic_ms()};
    watch_state st;
    memset(&st, 0, sizeof st);
    st.args = &a;
    st.asker.tool = "watch";
    st.filter.size = sizeof st.filter;
    const char *uris[MAX_URIS];
    int i = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *s = argv[i];
        int used = cli_client_option(argc, argv, &i, &a);
        if (used < 0)
            goto usage;
        if (used)
            continue;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            cli_usage("watch", true);
            return 0;
        } else if (!strcmp(s, "--json")) {
            a.json = true;
        } else if (!strcmp(s, "--tools")) {
            st.filter.kinds |= MCP_LISTEN_TOOLS;
        } else if (!strcmp(s, "--prompts")) {
            st.filter.kinds |= MCP_LISTEN_PROMPTS;
        } else if (!strcmp(s, "--resources")) {
            st.filter.kinds |= MCP_LISTEN_RESOURCES;
        } else if (!strcmp(s, "--resource")) {
            const char *uri = cli_option_value(argc, argv, i, "a URI");
            if (!uri)
                goto usage;
            if (!uri[0] || uri[0] == '-') { /* a URI starts with its scheme */
                fprintf(stderr, "mcp: --resource needs a URI%s%s%s\n", uri[0] ? ", not '" : "",
                        cli_safe(uri), uri[0] ? "'" : "");
                goto usage;
            }
            if (mcp_utf8_validate(uri, strlen(uri), NULL) != MCP_OK) {
                fprintf(stderr, "mcp: the --resource URI '%s' is not valid UTF-8\n", cli_safe(uri));
                goto usage;
            }
            if (st.filter.resource_count == MAX_URIS) {
                fprintf(stderr, "mcp: at most %d --resource options\n", MAX_URIS);
                goto usage;
            }
            uris[st.filter.resource_count++] = argv[++i];
        } else {
            fprintf(stderr, "mcp: %s '%s' (the server command goes after --)\n",
                    s[0] == '-' ? "unknown option" : "unexpected argument", cli_safe(s));
            goto usage;
        }
    }
    if (!cli_server_target(argc, argv, i, &a))
        goto usage;
    if (a.max_time >= 0) {
        fputs("mcp: watch runs until Ctrl-C: --max-time does not apply\n", stderr);
        goto usage;
    }
    st.filter.resource_uris = uris;
    if (!st.filter.kinds && !st.filter.resource_count)
        st.filter.kinds = MCP_LISTEN_TOOLS;

    mcp_client_options o = {.on_notification = on_legacy_notification,
                            .notification_user_data = &st};
    int code = cli_open(&a, &st.asker, &o, &st.client);
    if (code)
        return code;
    uv_loop_t *loop = mcp_client_loop(st.client);
    cli_catch_signals(st.client, &st.sigint, &st.sigterm, &st, on_signal);
    poll_stdout(&st);
    uv_timer_init(loop, &st.ack_timer);
    uv_timer_init(loop, &st.pause);
    st.ack_timer.data = st.pause.data = &st;
    uint64_t idle, unused;
    cli_budget(&a, &idle, &unused);
    st.ack_ms = idle ? idle : 60000; /* --timeout, or the same default as a call's */
    st.ack_seconds = a.timeout < 0 ? 60 : a.timeout;

    int failures = 0;
    blocking_begin(&st);
    int rc = listen_now(&st);
    blocking_end(&st);
    code = 0;
    st.lost_in_setup = rc == MCP_ERR_CLOSED; /* gone while subscribed to: started again */
    if (rc != MCP_OK && !st.lost_in_setup) {
        fprintf(stderr, "mcp: cannot listen: %s\n", mcp_strerror(rc));
        code = EXIT_CONNECTION;
    }
    while (!code && !st.stop_code) {
        /* A connect waits for the server's answer to the GET stream (see
         * mcp_client_connect_http): a refusal may be known before anything
         * else happens, and nothing else may ever come to end the wait. */
        mcp_client_stream_state ss = mcp_client_server_stream(st.client);
        if (ss == MCP_CLIENT_STREAM_REFUSED || ss == MCP_CLIENT_STREAM_FAILED) {
            bool gone_too = false;
            code = legacy_stream_gone(&st, &gone_too);
            break;
        }
        int run = st.lost_in_setup ? MCP_ERR_CLOSED : mcp_client_run_once(st.client, true);
        if (st.stop_code)
            break;
        if (st.give_up) {
            if (st.listening)
                mcp_client_cancel(st.client, st.handle, st.give_up_reason);
            code = st.give_up;
            break;
        }
        /* Over HTTP a listen stream that broke ends MCP_ERR_HTTP without a
         * status: the server is reached again. */
        bool lost = st.ended == MCP_ERR_CLOSED + 1 || run == MCP_ERR_CLOSED || st.stream_broke ||
                    st.lost_in_setup;
        st.lost_in_setup = false;
        if (!lost && (code = legacy_stream_gone(&st, &lost)) != 0)
            break;
        if (st.ended && !lost) {
            if (st.refusal && st.refusal_http)
                fprintf(stderr, "mcp: subscriptions/listen failed: %s (HTTP %d)\n", st.refusal,
                        st.refusal_http);
            else if (st.refusal)
                fprintf(stderr, "mcp: subscriptions/listen failed: %s (JSON-RPC error %lld)\n",
                        st.refusal, st.refusal_code);
            else
                fprintf(stderr, "the server ended the subscription (%s)\n",
                        st.ended == MCP_OK + 1 ? "gracefully" : mcp_strerror(st.ended - 1));
            code = st.ended == MCP_OK + 1 ? 0 : EXIT_CONNECTION;
            break;
        }
        if (!lost)
            continue;
        if (st.acked_at && mcp_monotonic_ms() - st.acked_at >= SETTLED_MS)
            failures = 0; /* it was back for a while: this is a new outage */
        st.acked_at = 0;
        fprintf(stderr, "the server went away (%s); %s it again\n",
                mcp_client_error(st.client)[0] ? cli_safe(mcp_client_error(st.client)) : "closed",
                a.url ? "reaching" : "starting");
        code = come_back(&st, &failures, a.url ? HTTP_ATTEMPTS : STDIO_ATTEMPTS);
    }
    if (st.stop_code)
        code = st.stop_code;
    if (st.stop_code || st.give_up)
        mcp_client_flush(st.client); /* the cancel is on the wire */
    cli_exit_at_once(st.client, &st.sigint, &st.sigterm); /* while the server stops */
    uv_close((uv_handle_t *)&st.sigint, NULL);
    uv_close((uv_handle_t *)&st.sigterm, NULL);
    if (st.out_polled)
        uv_close((uv_handle_t *)&st.out_poll, NULL);
    uv_close((uv_handle_t *)&st.ack_timer, NULL);
    uv_close((uv_handle_t *)&st.pause, NULL);
    cli_close(st.client, &st.asker);
    free(st.refusal);
    return code;
usage:
    fputs("try 'mcp watch --help'\n", stderr);
    return EXIT_USAGE;
}
