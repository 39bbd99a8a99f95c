/* SPDX-License-Identifier: MIT */
/* Shared pieces of the mcp command, also linked by mcp-conformance (tests/conformance). */
#ifndef MCP_CLI_H
#define MCP_CLI_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "mcp/mcp.h"

/* Exit codes of the client commands. */
enum {
    EXIT_TOOL_ERROR = 1, /* the tool answered with isError */
    EXIT_OUTPUT = 1,     /* stdout could not be written */
    EXIT_USAGE = 2,
    EXIT_CONNECTION = 3, /* could not connect, protocol or JSON-RPC error; serve:
                            stdin or stdout failed */
    EXIT_TIMEOUT = 4,    /* idle timeout or maximum time */
    EXIT_CANCELLED = 130, /* Ctrl-C or --cancel-after */
    EXIT_TERMINATED = 143 /* SIGTERM */
};

int cli_serve(int argc, char **argv);
int cli_tools(int argc, char **argv);
int cli_tasks(int argc, char **argv);
int cli_call(int argc, char **argv);
int cli_watch(int argc, char **argv);
int cli_resources(int argc, char **argv);
int cli_templates(int argc, char **argv);
int cli_read(int argc, char **argv);
int cli_prompts(int argc, char **argv);
int cli_prompt(int argc, char **argv);
int cli_complete(int argc, char **argv);
int cli_check_cancel(int argc, char **argv);
/* mcp proxy --url (proxy.c); --http goes on to cli_proxy_http
 * (proxy_http.c). */
int cli_proxy(int argc, char **argv);
int cli_proxy_http(int argc, char **argv);

/* How mcp call answers the server's questions (ask.c): a form, or the
 * consent to a URL-mode elicitation, on a terminal, declined elsewhere;
 * sampling through --sampling-command, or declined. Every message goes to
 * stderr, made safe. */
typedef struct cli_asker {
    const char *tool;             /* the tool called, for messages */
    const char *sampling_command; /* --sampling-command, or NULL */
    const char *server;           /* how messages name the server (safe text) */
    bool interactive;             /* stdin and stderr are terminals */
    atomic_int open;              /* questions being answered or waiting */
    struct cli_job *jobs;         /* their threads, joined by cli_asker_free
                                     (and as new ones start); under mu */
    int threads;                  /* of them running (at most 16); under mu */
    struct cli_waiting *waiting;  /* the questions past 16, in order, for
                                     the threads as they finish; under mu */
    bool said_waiting;            /* that some wait was said (loop thread) */
    /* Loop thread, before a question takes the terminal or a server's log
     * is shown (the progress bar goes); NULL: nothing. */
    void (*before_asking)(void *user_data);
    void *user_data;
    /* The command's own handler of the notifications that are not logs
     * (watch's list changes), taken from the options by cli_open; NULL:
     * none. */
    void (*on_notification)(void *user_data, const mcp_message *m);
    void *notification_user_data;
    char *server_name; /* what server points to once connected, or NULL */
    /* The URL-mode elicitations the user accepted (2025-11-25): their
     * elicitationId and host (safe text), for the line that says the
     * server completed one. Under mu; the oldest dropped past the
     * library's bound. */
    pthread_mutex_t mu;
    struct cli_accepted_url {
        char *id, *host;
    } accepted[MCP_CLIENT_MAX_OPEN_ELICITATIONS];
    size_t accepted_count;
} cli_asker;

/* Set a's defaults and o's handlers (their user data: a, kept until the
 * client is freed). Loop thread. */
void cli_asker_setup(cli_asker *a, mcp_client_options *o);
/* Once the client is freed and no question is open (open is 0): their
 * threads are joined, so none outlives it. */
void cli_asker_free(cli_asker *a);

/* Append to out the lines that show a URL-mode elicitation (its params, or
 * an entry of a -32042 error's data.elicitations), each starting with
 * indent: its message, the whole url and, apart, its host, and warnings
 * (a user@ before the host, Punycode or non-ASCII letters in it, not
 * https), all made safe. Returns false (and says so in out) when it has no
 * url that mcp_elicitation_url_host takes: nothing to open. Any thread. */
bool cli_describe_url(mcp_buf *out, const mcp_json *elicitation, const char *indent);

/* A program that serves one mcp_server with the options of mcp serve
 * (serve_host.c): mcp serve (the demo), mcp-conformance server (the suite's
 * fixtures, tests/conformance). */
typedef struct cli_served {
    const char *prog;          /* names it in messages and traces: "mcp serve" */
    const char *usage_command; /* its cli_usage entry, for --help */
    /* name, instructions, listen_kinds and the rest; size and trace are
     * set by cli_serve_host, and version when it is NULL. */
    mcp_server_options options;
    /* Registers what is served on s: MCP_OK, or the failure (printed);
     * NULL: nothing to register (a gateway). */
    int (*add)(mcp_server *s);
    /* SIGUSR1, on the signal thread; NULL: ignored (said). */
    void (*on_sigusr1)(mcp_server *s);
} cli_served;

/* The scopes --auth-item-scope gave item (a tool's or prompt's name, a
 * resource's URI or URI template) into out, NULL-terminated (at most
 * max - 1 of them, borrowed from argv): how many. For the served program's
 * add, which cli_serve_host calls after parsing. */
size_t cli_serve_item_scopes(const char *item, const char **out, size_t max);

/* Serve what on stdio, or on HTTP with --http and its companions, until the
 * input ends, SIGTERM or Ctrl-C: the exit status (0, EXIT_USAGE with the
 * usage said, EXIT_CONNECTION). what must outlive the call. */
int cli_serve_host(const cli_served *what, int argc, char **argv);
/* Only whether argv is what cli_serve_host takes: 0, -1 after --help
 * (said), or the exit status of a usage error (said). */
int cli_serve_check(const cli_served *what, int argc, char **argv);

/* Print one wire message to stderr with a direction arrow. */
void cli_trace_line(const char *who, bool outgoing, const char *line, size_t len);

/* What the client commands share: their options and a command deadline. */
typedef struct cli_client_args {
    double timeout, max_time, cancel_after; /* seconds; < 0: not given */
    bool json, trace;
    mcp_connect_mode mode;
    const char *version;   /* --protocol, or NULL for auto */
    char **command;        /* after --; NULL with --url */
    const char *url;       /* --url: an HTTP server */
    const char *headers[33]; /* --header lines, NULL-terminated */
    const char *ca_file;   /* --ca-file: certificates to trust over https */
    const mcp_oauth_options *oauth; /* authorization over HTTP, or NULL */
    size_t header_count;
    uint64_t start_ms;     /* when the command started */
} cli_client_args;

/* Parse a number of seconds: a plain decimal number (the JSON number
 * grammar, without an exponent), zero only when allow_zero; a positive value
 * below a millisecond is a millisecond. Prints the problem on stderr. */
bool cli_parse_seconds(const char *opt, const char *value, bool allow_zero, uint64_t *ms,
                       double *seconds);

/* The value of the option argv[i], or NULL after saying "mcp: OPTION needs
 * WHAT" when there is none: the last argument, or the "--" that starts the
 * server command, is never taken as one. */
const char *cli_option_value(int argc, char **argv, int i, const char *what);

/* Parse one of the options every client command takes (--timeout,
 * --max-time, --protocol, --trace, --url, --header); *i is advanced past
 * what it consumed.
 * Returns 1 when consumed, 0 when not one of them, -1 on a usage error
 * (printed). */
int cli_client_option(int argc, char **argv, int *i, cli_client_args *a);

/* The server to reach, once the options are parsed (argv[i] is the "--"
 * or i == argc): --url, or the command after "--", exactly one of them.
 * Returns true, or false after printing the problem. */
bool cli_server_target(int argc, char **argv, int i, cli_client_args *a);

/* The idle timeout and what is left of the maximum time, in ms, for the
 * next request; 0 = the library default. Returns false once the maximum
 * time is used up. */
bool cli_budget(const cli_client_args *a, uint64_t *timeout_ms, uint64_t *max_ms);

/* Connect to the server command within the command's budget, or print why
 * not and return the exit code (0 on success). */
int cli_connect(const cli_client_args *a, mcp_client_options *o, mcp_client **out);

/* Connect as every client command does (tools, call, watch, resources,
 * ...), so that each declares the same client capabilities: a answers the
 * server's questions (cli_asker_setup), the server's log messages are
 * shown on stderr, and a names the server as it named itself. o may carry
 * the command's own options (roots, on_notification, which gets every
 * notification but the logs). The asker's tool, before_asking and
 * user_data are the caller's, set before. Returns 0, or the exit code
 * after printing why (a is freed then). */
int cli_open(const cli_client_args *args, cli_asker *a, mcp_client_options *o,
             mcp_client **out);
/* Disconnect c (cli_disconnect), give the question threads still ending
 * the time they need (a sampling command being stopped: TERM, then KILL
 * after 2 s), and free a. */
void cli_close(mcp_client *c, cli_asker *a);

/* Close the connection (end the server's input, wait, SIGTERM, SIGKILL:
 * seconds with a stubborn server) and free c; a signal meanwhile exits at
 * once, killing the server. The command's own handles are closed first
 * (its signal handles stopped by cli_exit_at_once). */
void cli_disconnect(mcp_client *c);

/* Exiting at once (a second Ctrl-C, or Ctrl-C where nothing can be
 * cancelled): from now on SIGINT and SIGTERM kill the server process (if
 * one runs) with SIGKILL and exit 130 or 143 on the spot, so no server is
 * left behind (one that ignores the end of its input and SIGTERM would live
 * on). Records c's server (NULL: none). The command's libuv signal handles
 * (NULL: none) are stopped first, signals held meanwhile, so that no signal
 * finds the default disposition in between. Loop thread. */
void cli_exit_at_once(mcp_client *c, uv_signal_t *sigint, uv_signal_t *sigterm);

/* Ctrl-C and SIGTERM on c's loop, both to cb with data: the first one of
 * a command (the second exits at once, cli_exit_at_once). Loop thread. */
void cli_catch_signals(mcp_client *c, uv_signal_t *sigint, uv_signal_t *sigterm, void *data,
                       uv_signal_cb cb);

/* Record c's server process for the exit-at-once handler: after a
 * reconnect (a new process), and with NULL once the client is freed (the
 * process is gone and its id may be reused). Loop thread. */
void cli_note_server(mcp_client *c);

/* A command that connects, asks and prints (mcp tools, resources, read,
 * ...): the options every client command takes, --json and --help are
 * parsed for it, then its own. */
typedef struct cli_command {
    const char *name; /* as typed after mcp, for --help and messages */
    int max_args;     /* positional arguments it takes (at most 4) */
    /* Its own options (NULL: none), as cli_client_option: 1 consumed
     * (*i advanced past a value), 0 not one of its, -1 a usage error
     * (printed). */
    int (*option)(void *state, int argc, char **argv, int *i);
    /* Check the n positional arguments before any server is started (NULL:
     * none): true, or false after printing the problem (exit 2). */
    bool (*check)(void *state, int n, char **args);
    /* Ask and print, each request with co: the exit code. */
    int (*run)(void *state, mcp_client *c, const mcp_client_call_options *co,
               const cli_client_args *a);
} cli_command;

/* Parse, check, connect (a signal from then on exits at once, killing a
 * started server), run, report stdout's failure, disconnect: the exit
 * code. */
int cli_run_command(const cli_command *cmd, void *state, int argc, char **argv);

/* Print why a request of `method` failed with rc (r, when the call gave a
 * result, for the JSON-RPC error), and return the exit code: 4 for a
 * timeout, else 3. */
int cli_request_failed(mcp_client *c, const char *method, int rc,
                       const mcp_client_call_result *r);

/* A list's caching hints, when it had any, on stderr. */
void cli_print_cache_hint(mcp_client *c, const mcp_cache_hint *hint);

/* v as compact JSON and a newline on stdout. */
void cli_print_json(const mcp_json *v);

/* The usage text of a command (NULL: all), for --help and errors. Each
 * program that links these pieces defines it with its own commands: mcp's
 * main.c, mcp-conformance's (tests/conformance/main.c). */
void cli_usage(const char *command, bool to_stdout);

/* mcp auth login|status|logout (auth.c). */
int cli_auth(int argc, char **argv);
/* The authorization kept for url, for a --url command: options whose
 * storage is url's file and which ask no user (a flow that needs one
 * fails, saying to log in again); NULL when nothing is kept. Valid until
 * cli_auth_stored_free. */
const mcp_oauth_options *cli_auth_stored(const char *url);
void cli_auth_stored_free(void);

/* The file of kept authorization for one server (auth_store.c). */
typedef struct cli_auth_store {
    char *path, *url;
    int lock_fd; /* held across a refresh (flock), else -1 */
    char why[512]; /* the last storage failure */
} cli_auth_store;
/* The file for url (made in a directory of mode 0700 when create);
 * false with why. */
bool cli_auth_store_open(cli_auth_store *s, const char *url, bool create, char *why, size_t n);
void cli_auth_store_close(cli_auth_store *s);
/* Its document, or NULL when there is none yet; false (why) when it cannot
 * be used (others may read it, another server's: url not NULL, not JSON). */
bool cli_auth_store_read(const char *path, const char *url, mcp_json_doc **out, char *why,
                         size_t n);
/* o's load and save over s's file (s must outlive the client). */
void cli_auth_store_use(cli_auth_store *s, mcp_oauth_options *o);
/* show for each kept file: 0, or 1 when none. */
int cli_auth_store_each(void (*show)(const char *path, const mcp_json *root, bool json), bool json);

#endif
