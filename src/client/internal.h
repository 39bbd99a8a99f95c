/* SPDX-License-Identifier: MIT */
/* Client internals, shared by the files of src/client. */
#ifndef MCP_CLIENT_INTERNAL_H
#define MCP_CLIENT_INTERNAL_H

#include "client/tools.h"
#include "mcp/client.h"
#include "runtime/driver.h"
#include "runtime/internal.h"
#include "runtime/log.h"
#include "transport/child.h"

typedef enum { CL_NEW, CL_CONNECTING, CL_READY, CL_CLOSING, CL_CLOSED } client_state;

/* How a client reaches its server: a child process over stdio (stdio.c) or
 * an HTTP endpoint (http.c). */
typedef struct mcp__client_link {
    /* A new transport on the driver, connected (in the era remembered);
     * after a failure nothing is left running and the client is as new. */
    int (*start)(mcp_client *c);
    /* End the conversation politely: end the server's input and wait for
     * it to exit (stdio), or end the session (HTTP DELETE); bounded by
     * close_grace_ms at each step. */
    void (*stop)(mcp_client *c);
    /* The driver's on_transport_down. */
    void (*transport_down)(mcp_client *c, bool input, const char *why);
    /* Set the error for a failed send. */
    void (*write_failed)(mcp_client *c, const char *why);
} mcp__client_link;

extern const mcp__client_link mcp__client_stdio_link;
extern const mcp__client_link mcp__client_http_link;

/* http.c: the OAuth engine freed (mcp_client_free). */
void mcp__client_oauth_free(mcp_client *c);

/* features.c: the shape the results of a method must have (the spec's
 * schema, as far as a client relies on it). */
typedef struct mcp__result_check {
    const char *method;
    /* true when result has that shape; else false, with why saying what
     * breaks it (naming the item, for a list). */
    bool (*fn)(const mcp_json *result, char *why, size_t why_len);
} mcp__result_check;
/* The check of method's results; NULL for a method whose results the
 * client passes on unread. */
const mcp__result_check *mcp__client_result_check(const char *method);

/* A call in flight (client.c), possibly over several 2026-07-28 rounds
 * (the session engine keeps them; handlers.c takes their questions). Loop
 * thread. */
typedef struct mcp__call {
    mcp_client *client;
    mcp_client_call_done_fn done;
    void *user_data;
    mcp_progress_fn on_progress;
    void *progress_user_data;
    void (*on_task)(void *user_data, mcp_handle h, const mcp_json *task);
    const mcp__result_check *check; /* the shape its result must have, or NULL */
    bool tool_call; /* its result is checked against the tool's outputSchema */
    bool tool_list; /* its result's outputSchemas are learned */
    char *tool;     /* tool_call: the tool's name */
    mcp_handle handle; /* the call's handle: its first request's (0 until known) */
    mcp_handle request; /* the session's request in flight for it (the first,
                           its tools/list, its retry) */
    const char *method; /* a literal: a method that may have rounds, or NULL */
    unsigned rounds;    /* InputRequiredResults so far */
    size_t open;        /* its questions waiting for the application */
    int busy;           /* code of ours holds it across application code or a
                           send (mcp__call_release) */
    bool finished;      /* ended meanwhile: freed when the last holder lets go */
    /* retry.c: a 2026-07-28 tools/call over HTTP (params kept) sent again
     * once after a HeaderMismatch, the tools listed first. */
    mcp_json_doc *params;
    mcp_request_options ro;
    uint64_t started; /* when it was first sent: its total limit runs from then */
    bool refreshed;
    unsigned pages;
    struct mcp__call *next_refresh;
} mcp__call;

struct mcp_client {
    mcp_client_options opts;
    char *name, *version, *cwd, *protocol;
    char **env;
    mcp__stderr_logger default_logger;

    client_state state;
    uv_loop_t loop;
    mcp__poster poster;
    uv_timer_t wake_timer, eof_timer;
    mcp__driver driver;
    bool driver_open;
    /* 2025 over HTTP: the server ended the MCP session; the next call
     * starts a new one (mcp__client_renew_session). */
    bool session_expired;
    size_t pending;
    int64_t next_request_id; /* the first id of the next session (0: 1) */
    char error[512];
    mcp__tools *tools; /* tools.c: what the tools listed declared (NULL until a listing) */
    /* client.c: whether the server's discover result (task_ext_of, by
     * address) declares the tasks extension */
    const mcp_json *task_ext_of;
    bool task_ext;
    /* The era found by the first connect, kept for reconnects. */
    mcp_connect_mode era_mode;
    const char *era_version;
    /* A test seam, NULL in production: wraps each new transport (the
     * tests' fault-injecting one). Returns the wrapper, which owns inner. */
    mcp__transport *(*wrap_transport)(void *ud, mcp__transport *inner);
    void *wrap_ud;

    const mcp__client_link *link; /* NULL until a connect */
    bool connected_once; /* mcp_client_reconnect may start it again */

    /* stdio.c: the server process */
    char **argv;
    mcp__child *child;
    bool child_exited;
    int child_status;
    bool input_ended;
    mcp_buf stderr_buf;

    /* http.c: the endpoint */
    char *url, *ca_file;
    char **http_headers;
    bool tls_no_verify;
    uint64_t http_connect_timeout_ms;
    mcp__transport *http; /* the HTTP transport under any test wrapper */
    struct mcp__oauth *oauth; /* client/auth: the OAuth engine, or NULL */

    /* handlers.c: the server's questions */
    mcp_json_doc *caps;   /* the capabilities declared (root: an object) */
    mcp_json_doc *roots;  /* the fixed roots (root: an array), or NULL */
    mcp_question *questions;  /* open questions, newest first */
    /* task_receiver.c: the questions the server runs as tasks (2025-11-25) */
    struct mcp__held_task *held_tasks; /* newest first */
    unsigned nheld;
    mcp__call *refreshing;    /* retry.c: calls listed again after a HeaderMismatch */

    /* url_elicitation.c: the elicitationIds the server may say are
     * complete, oldest first. */
    struct mcp__open_elicitation {
        char *id; /* NUL-terminated (ids with a NUL are not kept) */
        size_t len;
    } elicitations[MCP_CLIENT_MAX_OPEN_ELICITATIONS];
    size_t elicitation_count;
};

/* client.c */
/* NULL-terminated string arrays: a copy (NULL for NULL or out of memory)
 * and its free. */
char **mcp__client_copy_strings(const char *const *v);
/* A new document holding a copy of v (an empty object for NULL), or NULL
 * when out of memory. */
mcp_json_doc *mcp__client_copy_json(const mcp_json *v);
void mcp__client_free_strings(char **v);
void mcp__client_set_error(mcp_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mcp__client_log(mcp_client *c, const mcp_log_record *r);
/* A log record of the client's own (control characters escaped). */
void mcp__client_say(mcp_client *c, mcp_log_level level, mcp_log_event event, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));
/* Run the loop until done(c, arg) or the deadline (UINT64_MAX: none). */
typedef bool (*mcp__until_fn)(mcp_client *c, void *arg);
void mcp__client_run_until(mcp_client *c, mcp__until_fn done, void *arg, uint64_t deadline);
/* Put a new session on the driver over t (taken over: closed on failure).
 * Then start t reading, then connect. */
int mcp__client_open(mcp_client *c, mcp__transport *t);
/* Find the era and get ready; blocks. */
int mcp__client_connect(mcp_client *c);
/* End the conversation: calls in flight end with MCP_ERR_CLOSED. */
void mcp__client_end(mcp_client *c);
/* Release the driver and its transport (waits for them on the loop). */
void mcp__client_release_driver(mcp_client *c);
/* End the connection, stop the server (link->stop), keeping the error
 * that ended it: the client is as new, ready to start again. */
void mcp__client_teardown(mcp_client *c);
/* Before a call: a new session when the server ended the last one (a new
 * session of the engine on the same transport, its own initialize; the
 * call waits for it). MCP_OK (nothing to do, or started), or why not (the
 * error set). */
int mcp__client_renew_session(mcp_client *c);
/* Why a call cannot start now (MCP_ERR_CLOSED, _STATE, with the error
 * set), or MCP_OK. */
int mcp__client_not_ready(mcp_client *c);
/* rc, after setting the error for a send that failed under it. */
int mcp__client_note_send_failure(mcp_client *c, int rc);
/* The session's callbacks of a call's request (every round's). */
void mcp__call_ended(void *ud, mcp_handle h, int outcome, const mcp_message *m);
void mcp__call_progress(void *ud, mcp_handle h, double progress, double total,
                        const char *message);
/* Learn the tools/list result of m (tools.c); *kept: a message to pass
 * on instead (the list without the tools the x-mcp-header rules leave
 * out), or NULL. */
void mcp__client_learn_tools(mcp_client *c, const mcp_message *m, mcp_message **kept);
/* The call's memory (once nothing refers to it). */
void mcp__call_free(mcp__call *cc);
/* Let go of a call held (busy); true when it had ended meanwhile and is
 * freed now. */
bool mcp__call_release(mcp__call *cc);

/* retry.c */
/* A tools/call answered HeaderMismatch: list the tools again, then send
 * it once more; false when that is not for this call (answered once
 * already, no params kept, no connection): the refusal is its answer. */
bool mcp__call_refresh(mcp__call *cc);
/* mcp_client_cancel of h when h is a call being listed again or sent
 * again: its request in flight cancelled (true); false when h is not one. */
bool mcp__call_refresh_cancel(mcp_client *c, mcp_handle h, const char *reason);
/* The call ends: out of the list. */
void mcp__call_refresh_forget(mcp__call *cc);

/* stdio.c: connect over in_fd (what the server writes) and out_fd (what it
 * reads), which the transport takes over (closes): a server in this
 * process, for the tests. Returns as mcp_client_connect_stdio. */
int mcp__client_connect_fds(mcp_client *c, int in_fd, int out_fd);

/* The first version of mcp_client_call_result (common.h): up to and
 * including response. */
#define MCP__CALL_RESULT_FIRST offsetof(mcp_client_call_result, http_status)
/* client.c: whether the caller's result has a size a call accepts; a
 * result ended before anything was sent (outcome rc, nothing to release),
 * written within its size. */
bool mcp__call_result_ok(const mcp_client_call_result *r);
void mcp__call_result_refused(mcp_client_call_result *r, int rc);

/* http.c: when r (outcome MCP_ERR_REMOTE) is the error the HTTP transport
 * made up for a failed exchange, not one the server sent, it becomes
 * outcome MCP_ERR_HTTP with its http_status (0: no HTTP status, the
 * network's or a broken stream's failure) and error_code 0. Only inside
 * the response callback the transport's delivery runs. */
void mcp__client_http_failure(const mcp_client *c, mcp_client_call_result *r);
/* The same for any message m: its HTTP status (0: none), or -1 when it is
 * not such an error. */
int mcp__client_http_status(const mcp_client *c, const mcp_message *m);
/* Why h ("Name: value") cannot be sent as a caller's header (a name the
 * transport writes, not a token, a control character in the value), or
 * NULL when it can; and whether url is a usable http(s) URL (why written
 * when not). Any thread. Also used by the relay (relay.c). */
const char *mcp__client_header_problem(const char *h);
bool mcp__client_url_usable(const char *url, char *why, size_t size);

/* handlers.c */
/* The capabilities the options declare, and the fixed roots: MCP_OK,
 * MCP_ERR_INVALID_ARG or MCP_ERR_NOMEM (nothing kept). */
int mcp__questions_init(mcp_client *c, const mcp_client_options *o);
/* At mcp_client_free: the question lists are empty by then. */
void mcp__questions_free(mcp_client *c);
/* The server's request h (2025): to a handler, answered from the fixed
 * roots, or refused. */
void mcp__questions_request(mcp_client *c, mcp_handle h, const mcp_message *msg);
/* The server's request h was cancelled (by it, or by the connection's end). */
void mcp__questions_cancelled(mcp_client *c, mcp_handle h, const char *reason);
/* The connection ended: every question still open is withdrawn with
 * reason (a call's own are withdrawn when the session ends the call). */
void mcp__questions_end_all(mcp_client *c, const char *reason);
/* The hook of a call that may have rounds (mcp_input_required_fn; ud: its
 * mcp__call): the InputRequiredResult m checked, its questions to the
 * application's handlers (or answered from the fixed roots); the answers
 * go to the session (mcp_session_input_response). */
int mcp__questions_input_required(void *ud, mcp_handle h, const mcp_message *m);
/* The call cc ended with outcome (reason: the session's, may be NULL):
 * its questions still open are withdrawn. */
void mcp__questions_call_ended(mcp__call *cc, int outcome, const char *reason);

/* Withdraw q, which a task holds (its tasks/cancel, its expiry, the
 * connection's end): its token fires with reason, a later answer is
 * dropped. */
void mcp__questions_withdraw_task(mcp_client *c, mcp_question *q, const char *reason);

/* task_receiver.c: the server's questions as tasks (2025-11-25, the client
 * as receiver), loop thread */
typedef struct mcp__held_task mcp__held_task;
/* Whether the server's question msg is to run as a task: it carries
 * params.task (an object), the client offers question tasks
 * (question_tasks) and speaks 2025-11-25. */
bool mcp__receiver_wants(const mcp_client *c, const mcp_message *msg);
/* A task for request h, whose question q is (q's task from now on); NULL
 * when h was answered with an error instead (a bad ttl, the cap of 64
 * tasks, out of memory). */
mcp__held_task *mcp__receiver_begin(mcp_client *c, mcp_handle h, const mcp_message *msg,
                                    mcp_question *q);
/* Answer h with t's CreateTaskResult (the write may end the connection). */
void mcp__receiver_announce(mcp_client *c, mcp_handle h, const mcp__held_task *t);
/* The application answered t's question: result (taken; NULL: the error
 * code and message, copied). */
void mcp__receiver_answered(mcp_client *c, mcp__held_task *t, mcp_json_doc *result,
                            int64_t code, const char *message);
/* t's question left it (withdrawn): t no longer points at it. */
void mcp__receiver_question_gone(mcp__held_task *t);
/* The server's tasks/get, tasks/result, tasks/list or tasks/cancel: served
 * (true), or not one (false: another's to answer). */
bool mcp__receiver_request(mcp_client *c, mcp_handle h, const mcp_message *msg);
/* The server's request h was cancelled: a tasks/result waiting stops. */
void mcp__receiver_cancelled(mcp_client *c, mcp_handle h);
/* The connection ended: every task goes (its question withdrawn). */
void mcp__receiver_end(mcp_client *c, const char *why);

/* url_elicitation.c: URL-mode elicitation (client/elicitation.mdx) */
/* Why the params of a URL-mode elicitation/create cannot go to the
 * application under the session's revision (a literal, or why: n bytes),
 * or NULL. */
const char *mcp__client_url_problem(const mcp_client *c, const mcp_json *params, char *why,
                                         size_t n);
/* The application's answer (result) to the 2025 URL-mode elicitation with
 * params is on its way: an accept makes its elicitationId one the server
 * may complete. */
void mcp__client_url_answered(mcp_client *c, const mcp_json *params, const mcp_json *result);
/* A call ended with the server's error m (may be NULL): the elicitationIds
 * of a URLElicitationRequiredError become ones the server may complete. */
void mcp__client_url_required(mcp_client *c, const mcp_message *m);
/* True when m is notifications/elicitation/complete, which it consumes
 * (the hook for an id waited for, else ignored); false for any other. */
bool mcp__client_url_notification(mcp_client *c, const mcp_message *m);
/* At mcp_client_free. */
void mcp__client_url_free(mcp_client *c);

#endif
