/* SPDX-License-Identifier: MIT */
/*
 * libmcp client: connect to a server command over stdio or to a Streamable
 * HTTP endpoint, find its protocol era (2026-07-28, or 2025-06-18/2025-11-25
 * through initialize), list and call tools with timeouts, progress and
 * cancellation, list and read resources, get prompts, complete arguments,
 * listen for changes, close. Every call works the same over
 * both; where HTTP differs, the function says so.
 *
 * Threads. A client belongs to the thread that created it (its loop
 * thread): every function except mcp_client_cancel must be called from it,
 * and every callback runs on it, while that thread is inside a client call
 * (a synchronous call, mcp_client_run or mcp_client_run_once). Synchronous
 * functions must not be called from inside a client callback.
 * mcp_client_cancel may be called from any thread (not concurrently with
 * mcp_client_free).
 *
 * Endings. Every call ends exactly once with one outcome: MCP_OK (a
 * result, possibly with isError), MCP_ERR_REMOTE (a JSON-RPC error from the
 * server), MCP_ERR_HTTP (over HTTP, the exchange failed: an HTTP error
 * status, or the network; see mcp_client_call_result.http_status),
 * MCP_ERR_ABORTED (mcp_client_cancel; under 2026-07-28 also an
 * application that answered a question of the call with an error, see
 * "Questions from the server"), MCP_ERR_TIMED_OUT (no answer or progress
 * within the idle timeout), MCP_ERR_MAX_TIME (the total limit),
 * MCP_ERR_CLOSED (the server went away), MCP_ERR_TOO_LARGE (the answer
 * exceeded max_message) or MCP_ERR_PROTOCOL (an answer this client cannot
 * use). An abort or a timeout puts notifications/cancelled with the reason
 * on the wire (on 2026-07-28 HTTP: closes the request's stream instead, and
 * nothing is posted); writing it never blocks. Under 2026-07-28 a call may
 * take several rounds (an InputRequiredResult, answered, then the request
 * again): it is still one call, with one handle, one ending and one budget.
 */
#ifndef MCP_CLIENT_H
#define MCP_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/json.h"
#include "mcp/jsonrpc.h"
#include "mcp/runtime.h"
#include "mcp/session.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_client mcp_client;

/* A question of the server's for the application (sampling, elicitation,
 * roots): see "Questions from the server" below. */
typedef struct mcp_question mcp_question;

/* A handler of questions: called on the loop thread with q, which the
 * application now holds and must end exactly once, at once or later, from
 * any thread (mcp_question_answer, _answer_error or _decline). It must not
 * block the loop: a person's answer or a model's is given from elsewhere. */
typedef void (*mcp_question_fn)(void *user_data, mcp_question *q);

typedef struct mcp_client_options {
    size_t size;         /* sizeof(mcp_client_options) */
    const char *name;    /* clientInfo; NULL: "libmcp" */
    const char *version; /* NULL: the library version */
    uint64_t timeout_ms;          /* default idle timeout of calls; 0: 60 s */
    uint64_t max_time_ms;         /* default total limit of calls; 0: 30 min */
    uint64_t connect_timeout_ms;  /* the whole connect: probe and handshake; 0: 30 s */
    uint64_t close_grace_ms;      /* each wait of close: 0 means 2000 */
    size_t max_message;           /* bytes per message read; 0: 4 MiB */
    size_t max_output;            /* bytes waiting to be written; 0: 64 MiB */
    const char *const *env; /* child environment ("K=V", NULL-terminated);
                               NULL: inherit ours */
    const char *cwd;        /* child working directory; NULL: ours */
    /* The child's stderr is passed through to ours unless captured; then
     * it is kept (up to 1 MiB) for mcp_client_stderr(). */
    bool capture_stderr;
    /* NULL: lines on stderr at log_level (default warning; MCP_LOG_LEVEL=
     * debug|info|warn|warning|error in the environment overrides it, an
     * unknown value is reported once on stderr). A hook gets the records at
     * log_level and above (MCP_LOG_DEFAULT: all of them). */
    mcp_log_fn log;
    void *log_user_data;
    mcp_log_level log_level;
    /* Every message, both directions, as it crosses (loop thread): line is
     * len bytes (no newline; not NUL-terminated), borrowed for the call. */
    void (*trace)(void *user_data, bool outgoing, const char *line, size_t len);
    void *trace_user_data;
    /* Which era to speak: MCP_CONNECT_AUTO (default: probe with
     * server/discover, fall back to initialize), _LEGACY or _MODERN, and
     * the revision (NULL: the newest of that era). Copied. */
    mcp_connect_mode connect_mode;
    const char *protocol_version;
    /* AUTO: how long a silent server gets to answer the probe; 0: 3 s. */
    uint64_t probe_timeout_ms;
    /* Notifications the client does not consume itself (a legacy server's
     * list_changed, notifications/resources/updated for a resource
     * subscribed to with mcp_client_subscribe_resource, log messages):
     * loop thread, borrowed for the call. Nothing is checked but that the
     * message is a notification: params.uri of resources/updated is the
     * server's word. (2026-07-28 brings them on a subscription instead:
     * mcp_client_listen.) notifications/elicitation/complete is the
     * library's, never passed here: see on_elicitation_complete. */
    void (*on_notification)(void *user_data, const mcp_message *msg);
    void *notification_user_data;
    /* What the client answers when the server asks ("Questions from the
     * server" below). Each one set declares its capability, in initialize
     * (2025) and in every request's clientCapabilities (2026-07-28); a
     * question for one not set is refused (2025: -32601, or -32602 for an
     * elicitation mode not declared; 2026-07-28: the call ends with
     * MCP_ERR_PROTOCOL). user_data are kept until mcp_client_free. */
    mcp_question_fn on_sampling;    /* sampling/createMessage: "sampling" */
    void *sampling_user_data;
    mcp_question_fn on_elicitation; /* elicitation/create: "elicitation" with
                                       "form", and "url" too when elicitation_url */
    void *elicitation_user_data;
    bool elicitation_url;           /* the handler also takes URL mode */
    /* roots/list: "roots" (listChanged: true). Either a handler, or a fixed
     * list the library answers with itself: roots, an array of Root objects
     * ({"uri": "file://...", "name": ...}), copied and checked by
     * mcp_client_new; changed with mcp_client_roots_changed. The handler
     * wins when both are given. */
    mcp_question_fn on_roots;
    void *roots_user_data;
    const mcp_json *roots;
    /* notifications/elicitation/complete (2025-11-25): the server says the
     * out-of-band interaction of a URL-mode elicitation is over (the user
     * finished in the browser). Called on the loop thread, elicitation_id
     * (NUL-terminated) borrowed for the call, once for each id the client
     * is waiting for, which is then forgotten. The client waits for the
     * elicitationId of each URL-mode elicitation/create the application
     * answered "accept" (once the answer is sent), and for each one listed
     * in data.elicitations (entries with "mode" "url") of a
     * URLElicitationRequiredError (-32042) that ended a call. Any other
     * id (unknown, declined, already completed or forgotten) and a
     * notification without an elicitationId string are ignored, logged at
     * debug (client/elicitation.mdx: the client MUST ignore them). At most
     * MCP_CLIENT_MAX_OPEN_ELICITATIONS ids are waited for: one more
     * forgets the oldest. An id over MCP_CLIENT_MAX_ELICITATION_ID bytes or
     * with a NUL character is not waited for. Ids outlive
     * mcp_client_reconnect (the interaction is in the browser, not on the
     * connection). NULL: no id is kept, every such notification ignored.
     * 2026-07-28 has neither the notification nor the ids (the server
     * finds out on the retry): nothing is kept. user_data is kept until
     * mcp_client_free. */
    void (*on_elicitation_complete)(void *user_data, const char *elicitation_id);
    void *elicitation_complete_user_data;
    /* 2025-11-25 (basic/utilities/tasks.mdx, the client as receiver): the
     * server may run the sampling and elicitation questions it asks as
     * tasks (declared as capabilities.tasks.requests.sampling.createMessage
     * and .elicitation.create, for the handlers set, with tasks.list and
     * tasks.cancel). Such a question (its request carries params.task) is
     * answered CreateTaskResult at once and goes to the same handler as
     * any; its answer is kept for the server's tasks/result (tasks/get,
     * tasks/list and tasks/cancel served too: a cancel withdraws the
     * question, whose token fires). At most 64 tasks, each kept for its ttl
     * (at most an hour), all ended with the connection. Other revisions:
     * no such tasks, nothing declared. */
    bool question_tasks;
} mcp_client_options;

/* The most elicitationIds a client waits to hear are complete, and the
 * longest it keeps (see on_elicitation_complete). */
#define MCP_CLIENT_MAX_OPEN_ELICITATIONS 64
#define MCP_CLIENT_MAX_ELICITATION_ID 1024

/* mcp_client_new: MCP_OK and *out (free with mcp_client_free),
 * MCP_ERR_INVALID_ARG (bad options size, name or version not UTF-8,
 * connect_mode out of range, protocol_version given with MCP_CONNECT_AUTO
 * or of the other era, elicitation_url without on_elicitation, roots not
 * an array of Root objects with file:// URIs) or MCP_ERR_NOMEM. No I/O, except that a closed
 * stdin, stdout or stderr is reserved (/dev/null, opened so that using it
 * still fails) before the loop is made: no descriptor of the client's may
 * take its number. opts may be NULL; strings are copied; the user_data of
 * log, trace and on_notification are kept until mcp_client_free. Call it
 * on the thread that will drive the client: that thread is its loop
 * thread for good. */
MCP_EXTERN int mcp_client_new(const mcp_client_options *opts, mcp_client **out);

/*
 * mcp_client_connect_stdio: start argv (argv[0] searched in PATH) with
 * pipes for stdin and stdout, in its own session (so a Ctrl-C at the
 * terminal reaches us, not the server), and connect (the era probe and
 * handshake). Blocks until done, at most connect_timeout_ms. Returns MCP_OK;
 * MCP_ERR_SPAWN (could not start), MCP_ERR_CLOSED (the server exited or
 * closed stdout first), MCP_ERR_TIMED_OUT, MCP_ERR_PROTOCOL (no revision
 * in common), MCP_ERR_REMOTE (the server refused), MCP_ERR_TOO_LARGE (an
 * answer exceeded max_message), MCP_ERR_INVALID_ARG (argv NULL or empty, or
 * a protocol_version this library does not speak), MCP_ERR_NOMEM or
 * MCP_ERR_STATE (already connected, or closed). mcp_client_error() says
 * more. After a failure the server is stopped and the client is as new:
 * connect again, with this command or another. argv is copied. SIGPIPE is
 * ignored from here on unless the application set its own disposition: a
 * server that exits must not kill the client.
 */
MCP_EXTERN int mcp_client_connect_stdio(mcp_client *c, const char *const *argv);

/* HTTP ------------------------------------------------------------------- */

typedef struct mcp_http_client_options {
    size_t size; /* sizeof(mcp_http_client_options) */
    /* Extra header lines sent with every HTTP request, "Name: value"
     * (Authorization, ...), NULL-terminated; copied. NULL: none. A name the
     * transport writes itself (Content-Type, Accept, Mcp-Session-Id,
     * MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*,
     * Last-Event-ID, Accept-Encoding (the response would not be decoded),
     * ...) or a value with a control character other than tab is refused;
     * "Name:" sends the header with an empty value. Messages name a
     * refused header, never repeat its value. */
    const char *const *headers;
    /* TLS: the server's certificate and name are checked against the
     * system's CAs unless ca_file names a PEM bundle to use instead (copied;
     * read when the client connects, so one that cannot be read is refused
     * then; NULL: the system's). tls_no_verify skips both checks (testing
     * only). */
    const char *ca_file;
    bool tls_no_verify;
    /* How long one TCP (and TLS) connection may take to open; 0: 10 s. */
    uint64_t connect_timeout_ms;
    /* Authorization (oauth.h): copied; NULL: none. The client then answers
     * the server's 401 and 403 insufficient_scope itself and sends the
     * request again with a token; an Authorization header in headers is
     * refused with it. A call whose authorization failed ends with
     * MCP_ERR_HTTP, its message saying why ("authorization failed: ..."),
     * as does a connect. */
    const struct mcp_oauth_options *oauth;
} mcp_http_client_options;

/* A call that an HTTP failure ended has outcome MCP_ERR_HTTP, its status
 * in http_status (0 for the network's failure or a stream that broke) and
 * error_message naming the status and the start of the body, or the
 * network failure (see mcp_client_call_result). A JSON-RPC error the
 * server sent as the body of its HTTP error is passed on as it is instead
 * (MCP_ERR_REMOTE). What remains of this code: a subscription's
 * MCP_LISTEN_ENDED event for a failed exchange carries an error message
 * with this code, error data {"httpStatus": N} plus "httpError" (a text)
 * for a network or stream failure. */
#define MCP_CLIENT_HTTP_ERROR (-32603)

/*
 * mcp_client_connect_http: connect to the Streamable HTTP endpoint at url
 * (http:// or https://; copied), finding the era as over stdio: the
 * server/discover probe, falling back to initialize when the answer (an
 * HTTP 400, 404 or 405 included) is not a recognised 2026-07-28 one. The
 * era found is remembered for the origin (scheme://host:port) in this
 * process: later connects to it skip the probe (and probe again if the
 * remembered era fails). opts may be NULL (defaults). Blocks until done, at
 * most connect_timeout_ms of mcp_client_options.
 *
 * Over HTTP each message is its own POST. 2025 revisions: the session id
 * the server gives is sent with every request, a GET stream carries what
 * the server sends on its own (a 405 means it offers none), a stream that
 * breaks is resumed with Last-Event-ID after the server's retry, and
 * mcp_client_close ends the session with DELETE. The connect returns once
 * the server has answered the GET too (at most 2 s more): a request the
 * server sends on that stream right away (a tool's elicitation that names
 * no request of ours) would find no stream and be lost. When the server
 * ends the session (HTTP 404 to a request carrying its id), every call in
 * flight ends with MCP_ERR_HTTP ("the server ended the MCP session ...";
 * http_status 404 for the request answered so, 0 for the others lost with
 * it) and the next call first starts a new session (the
 * same initialize, then notifications/initialized), transparently; state
 * the server kept for the old session (resources/subscribe, the log level)
 * is gone. 2026-07-28: no session; a cancel or a timeout closes the
 * request's stream; a tools/call the server refuses with HeaderMismatch
 * (-32020: the tool's x-mcp-header parameters changed since it was listed)
 * lists the tools again and is sent once more, whose answer is the call's.
 * HTTP failures end calls with MCP_ERR_HTTP (see MCP_CLIENT_HTTP_ERROR). Redirects are not
 * followed (the error names the Location). A request that may have run is
 * never sent twice: when a kept-alive connection closes before any answer,
 * only requests known to change nothing when repeated (ping, lists, reads,
 * prompts/get, completion/complete, initialize, subscriptions) are sent
 * again; a tools/call (or any other method) ends with "the request was not
 * sent again, as the server may have run it" (RFC 9110, 9.2.2). A session id the server gives
 * that could not be sent back as it is (not visible ASCII, empty, over
 * 1024 bytes) fails initialize; an SSE event id that could not be (control
 * characters, edge spaces, over 1024 bytes) makes its stream not
 * resumable, rather than resumed at a wrong place. URLs in messages and
 * logs show "***" for a password.
 *
 * Returns MCP_OK; MCP_ERR_IO (no HTTP answer at all: the server cannot be
 * reached, the name does not resolve, TLS failed), MCP_ERR_HTTP (an HTTP
 * error status answered, or the exchange broke: mcp_client_error() names
 * the status and the start of the body), MCP_ERR_REMOTE (the server
 * refused with a JSON-RPC error, mcp_client_error() has it),
 * MCP_ERR_TIMED_OUT, MCP_ERR_PROTOCOL, MCP_ERR_TOO_LARGE, MCP_ERR_INVALID_ARG
 * (nothing was sent: url NULL, not http(s) or not a URL curl can use, a bad
 * options size or header, a ca_file that cannot be read, or a
 * protocol_version this library does not speak), MCP_ERR_NOMEM or
 * MCP_ERR_STATE (already connected, or closed). After a failure the client
 * is as new. mcp_client_reconnect connects to the same URL again.
 * mcp_client_stderr, mcp_client_child_exited and mcp_client_server_pid have
 * nothing to say about an HTTP server ("", false, 0).
 */
MCP_EXTERN int mcp_client_connect_http(mcp_client *c, const char *url,
                                       const mcp_http_client_options *opts);

/*
 * mcp_client_reconnect: after the server went away (or at any time), end
 * the connection (calls and subscriptions in flight end with
 * MCP_ERR_CLOSED), start the same command again (or open the same URL)
 * and connect, speaking the era found the first time (probing again if
 * that fails). Blocks. Returns as mcp_client_connect_stdio or
 * mcp_client_connect_http; MCP_ERR_STATE when nothing ever connected or the
 * client is closed. A failed reconnect may be retried.
 */
MCP_EXTERN int mcp_client_reconnect(mcp_client *c);

/* The last failure, as a sentence; borrowed, valid until the next client
 * call. "" when none. */
MCP_EXTERN const char *mcp_client_error(const mcp_client *c);

/* The server's DiscoverResult (2026-07-28) or initialize result
 * (serverInfo, capabilities, ...); NULL before connect. Borrowed: valid
 * until mcp_client_reconnect, mcp_client_close or mcp_client_free
 * (mcp_json_copy it to keep it). */
MCP_EXTERN const mcp_json *mcp_client_server_info(const mcp_client *c);

/* The server's implementation info, {"name":..,"version":..}, whichever the
 * era (a DiscoverResult carries it in _meta). Borrowed as
 * mcp_client_server_info; NULL before connect or when the server gave none. */
MCP_EXTERN const mcp_json *mcp_client_server_implementation(const mcp_client *c);

/* The protocol revision in use; borrowed (a literal); NULL before connect. */
MCP_EXTERN const char *mcp_client_protocol_version(const mcp_client *c);

/* The channel of a 2025 Streamable HTTP session for what the server sends
 * outside responses (list changes, resource updates): the GET stream. */
typedef enum mcp_client_stream_state {
    MCP_CLIENT_STREAM_NONE = 0, /* not a 2025 HTTP connection (stdio carries
                                   everything; 2026-07-28 uses subscriptions),
                                   or not connected */
    MCP_CLIENT_STREAM_OPEN,     /* open, or being reopened after a break (the
                                   wait grows from 1 s to 60 s) */
    MCP_CLIENT_STREAM_REFUSED,  /* the server answered the GET with 405: it
                                   sends nothing outside responses */
    MCP_CLIENT_STREAM_FAILED,   /* the GET failed 10 times in a row (about 5
                                   minutes): no longer tried */
    MCP_CLIENT_STREAM_SESSION_ENDED /* the server ended the session (404); the
                                   next request starts a new one, and the
                                   stream with it */
} mcp_client_stream_state;

/* The state of that stream. Changes only inside the client's loop runs
 * (a call, mcp_client_run_once): check it after each. Loop thread. */
MCP_EXTERN mcp_client_stream_state mcp_client_server_stream(const mcp_client *c);

/* ------------------------------------------------------------------------ */
/* Calls                                                                     */

/* A call's ending. Its first version has the fields up to and including
 * response; http_status came after (common.h: output structs grow). */
typedef struct mcp_client_call_result {
    size_t size;          /* set by the caller of a synchronous call (sizeof) */
    int outcome;          /* see "Endings" above */
    mcp_handle handle;    /* also the request's JSON-RPC id (of its first
                             round, for a 2026-07-28 call sent again) */
    bool is_error;        /* outcome MCP_OK and result.isError is true */
    const mcp_json *result;      /* outcome MCP_OK: the result object */
    int64_t error_code;          /* outcome MCP_ERR_REMOTE */
    const char *error_message;   /* outcome MCP_ERR_REMOTE: the server's
                                    message; MCP_ERR_HTTP: the failure in
                                    words (the status line and the start
                                    of the body, or the network's error) */
    mcp_message *response; /* the response (NULL for local endings); the
                              fields above point into it. The error's
                              data, when it has any, is
                              response->error_data: for
                              MCP_WIRE_URL_ELICITATION_REQUIRED (-32042,
                              2025-11-25) data.elicitations, the URL-mode
                              elicitations (mode, message, url,
                              elicitationId) to complete before calling
                              again, as the server sent them (unchecked:
                              mcp_elicitation_url_host checks a url).
                              MCP_ERR_HTTP: the error this library made
                              up for the failure (holds error_message) */
    int http_status; /* outcome MCP_ERR_HTTP: the HTTP status that failed
                        the call (404, 503...), 0 when there was none (the
                        server could not be reached, the connection or
                        the stream broke); 0 for every other outcome */
} mcp_client_call_result;

/* Release a result filled by a synchronous call (drops its response); the
 * fields within its size are zeroed, except size, kept for the next call.
 * A result whose size is not one a call accepts is left alone. Any thread
 * (it touches no client). */
MCP_EXTERN void mcp_client_call_result_release(mcp_client_call_result *r);

/* Whether a tools/call runs as a task (2025-11-25, basic/utilities/tasks;
 * 2026-07-28, the io.modelcontextprotocol/tasks extension: the call
 * declares the extension and the server decides). */
typedef enum mcp_call_task_mode {
    MCP_CALL_TASK_AUTO = 0, /* 2025-11-25: when the tool requires it (its
                               execution.taskSupport in the last tools/list) and
                               the server runs tools as tasks. 2026-07-28: a
                               plain call (a server may make a task of any call
                               that declares the extension: no progress then,
                               and tasks/cancel instead of the call's cancel),
                               sent again as a task call when the server refuses
                               it -32021 naming the extension (the tool runs
                               only as a task: task_if_required) */
    MCP_CALL_TASK_ALWAYS,   /* always: MCP_ERR_STATE when the server's revision or
                               capabilities (2026: its discover result's
                               extensions) have no tasks */
    MCP_CALL_TASK_NEVER,
    MCP_CALL_TASK_START     /* as ALWAYS, but the call ends with CreateTaskResult
                               (2025 result: {"task":{...}}; 2026: the flat Task,
                               resultType "task"): the task is the caller's, to
                               name in tasks/get, tasks/result (2025),
                               tasks/update (2026), tasks/cancel */
} mcp_call_task_mode;

typedef struct mcp_client_call_options {
    size_t size;          /* sizeof(mcp_client_call_options) */
    uint64_t timeout_ms;  /* 0: the client default; MCP_NO_TIMEOUT: none */
    uint64_t max_time_ms; /* 0: the client default; MCP_NO_TIMEOUT: none */
    mcp_progress_mode progress; /* default: token attached, resets timeout */
    mcp_progress_fn on_progress; /* may be NULL; handle is the call's */
    void *progress_user_data;
    /* tools/call only. A call run as a task ends as a plain call does,
     * once, with what the task gave (the client polls tasks/get at the
     * server's pollInterval, sooner on its status notifications, then
     * fetches tasks/result; 2026-07-28: tasks/get carries the result or
     * the error, and the task's questions (inputRequests) go to the same
     * handlers as any question, each once, answered by tasks/update); its
     * answers about the task reset the idle timeout, and none runs while
     * the client waits to poll. A cancel, the idle timeout or the total
     * limit sends tasks/cancel, never notifications/cancelled: also when
     * the task's id is not known yet, then as soon as it is (the call ends
     * at once either way; 2026: the tools/call itself is cancelled as an
     * ordinary request then too). task_ttl_ms: the ttl asked for (0: the
     * server's; 2025 only). */
    mcp_call_task_mode task;
    uint64_t task_ttl_ms;
    /* A call run as a task: each Task the server tells about
     * (CreateTaskResult's, tasks/get's answers, status notifications: its
     * taskId, status, statusMessage...), borrowed for the call, with
     * progress_user_data; loop thread; may be NULL. */
    void (*on_task)(void *user_data, mcp_handle h, const mcp_json *task);
} mcp_client_call_options;

/* Called once when an asynchronous call ends, possibly inside the _async
 * call itself, mcp_client_reconnect, mcp_client_close or mcp_client_free.
 * The result and everything in it are borrowed for the callback:
 * mcp_message_retain(result->response) to keep the response. Loop thread. */
typedef void (*mcp_client_call_done_fn)(void *user_data,
                                        const mcp_client_call_result *result);

/*
 * mcp_client_call_tool_async: send tools/call for `name` (NUL-terminated)
 * with `arguments` (an object or NULL, borrowed for the call). done is
 * called once when the call ends. *handle (may be NULL) receives the handle
 * for cancelling. Returns MCP_OK (done will be called, or was already if
 * the answer came during the send), MCP_ERR_STATE (never connected, or
 * closed), MCP_ERR_INVALID_ARG, MCP_ERR_LIMIT, MCP_ERR_CLOSED (the server
 * has gone, before or while sending; mcp_client_error() says why) or
 * MCP_ERR_NOMEM. On any error, done is never called.
 */
MCP_EXTERN int mcp_client_call_tool_async(mcp_client *c, const char *name,
                                          const mcp_json *arguments,
                                          const mcp_client_call_options *opts,
                                          mcp_client_call_done_fn done, void *user_data,
                                          mcp_handle *handle);

/*
 * mcp_client_call_tool: the same, blocking until the call ends. *result is
 * filled (release it with mcp_client_call_result_release) and the outcome
 * is also returned; errors that prevent sending are returned with
 * result->outcome set to the same code and nothing to release. A NULL
 * result, or one whose size the caller did not set to a size this library
 * accepts (common.h), is MCP_ERR_INVALID_ARG with nothing written.
 */
MCP_EXTERN int mcp_client_call_tool(mcp_client *c, const char *name,
                                    const mcp_json *arguments,
                                    const mcp_client_call_options *opts,
                                    mcp_client_call_result *result);

/* Any request (tools/list, ping, ...): like mcp_client_call_tool, with
 * params an object or NULL. */
MCP_EXTERN int mcp_client_request(mcp_client *c, const char *method,
                                  const mcp_json *params,
                                  const mcp_client_call_options *opts,
                                  mcp_client_call_result *result);

/*
 * A task's own requests, for an application that keeps a task across
 * calls or restarts (start one with mcp_client_call_tool and task
 * MCP_CALL_TASK_START: the result is its CreateTaskResult). Each is
 * mcp_client_request of the method with params {"taskId": task_id}
 * (borrowed; tasks/update adds input_responses, an object of answers by
 * key, borrowed; tasks/list takes cursor, NULL for the first page), the
 * same blocking, options, result and returns, and first refused with
 * MCP_ERR_STATE, nothing sent, when the connection's revision has no such
 * method: tasks/get and tasks/cancel in 2025-11-25 and 2026-07-28 (the
 * tasks extension, declared on the request), tasks/result and tasks/list
 * in 2025-11-25 only, tasks/update in 2026-07-28 only. MCP_ERR_INVALID_ARG
 * for c or task_id NULL, task_id empty, input_responses not an object.
 * The answers are the server's: 2025 tasks/get and tasks/cancel a Task,
 * tasks/result what the call gave (its result, or its error as
 * MCP_ERR_REMOTE), tasks/list {"tasks":[...],"nextCursor":...}; 2026
 * tasks/get the detailed Task (its result or error inline), tasks/update
 * and tasks/cancel an acknowledgment.
 */
MCP_EXTERN int mcp_client_task_get(mcp_client *c, const char *task_id,
                                   const mcp_client_call_options *opts,
                                   mcp_client_call_result *result);
MCP_EXTERN int mcp_client_task_result(mcp_client *c, const char *task_id,
                                      const mcp_client_call_options *opts,
                                      mcp_client_call_result *result);
MCP_EXTERN int mcp_client_task_cancel(mcp_client *c, const char *task_id,
                                      const mcp_client_call_options *opts,
                                      mcp_client_call_result *result);
MCP_EXTERN int mcp_client_task_update(mcp_client *c, const char *task_id,
                                      const mcp_json *input_responses,
                                      const mcp_client_call_options *opts,
                                      mcp_client_call_result *result);
MCP_EXTERN int mcp_client_task_list(mcp_client *c, const char *cursor,
                                    const mcp_client_call_options *opts,
                                    mcp_client_call_result *result);

/* Caching hints of a list (2026-07-28, SEP-2549). Filled in the caller's
 * memory: set size (common.h; the first version has every field below). */
typedef struct mcp_cache_hint {
    size_t size;         /* sizeof(mcp_cache_hint), set by the caller */
    bool present;        /* the server gave them */
    uint64_t ttl_ms;     /* fresh for this long (the smallest of all pages) */
    mcp_cache_scope scope;
} mcp_cache_hint;

/* The most pages a list (mcp_client_list_tools, _resources, ...) follows. */
#define MCP_CLIENT_MAX_PAGES 1000

/*
 * mcp_client_list_tools: every tool the server lists (following
 * nextCursor), as a new document whose root is an array of Tool objects.
 * opts applies to each page (NULL: defaults); hint (may be NULL; its size
 * set by the caller) gets the caching hints, on success only. Blocks. Returns MCP_OK and *tools (free with
 * mcp_json_doc_free); the failing page's outcome; MCP_ERR_PROTOCOL when a
 * page has no tools array, a tool has no name string, nextCursor is
 * neither a string nor null, or the server sends a cursor again (it would
 * never end); MCP_ERR_LIMIT past MCP_CLIENT_MAX_PAGES pages;
 * MCP_ERR_INVALID_ARG (tools NULL, a hint of a bad size) or MCP_ERR_NOMEM. *tools is set only on
 * success. mcp_client_error() says which (naming the item, for a bad
 * one). An empty string is a cursor like any other, not the end.
 */
MCP_EXTERN int mcp_client_list_tools(mcp_client *c, const mcp_client_call_options *opts,
                                     mcp_json_doc **tools, mcp_cache_hint *hint);

/* ------------------------------------------------------------------------ */
/* Resources, prompts, completion                                           */

/*
 * mcp_client_list_resources, mcp_client_list_resource_templates,
 * mcp_client_list_prompts: every Resource (resources/list), ResourceTemplate
 * (resources/templates/list) or Prompt (prompts/list) the server lists, all
 * pages, as mcp_client_list_tools does, into *out: a new document whose
 * root is the array of them (free with mcp_json_doc_free). Each item is
 * checked: a Resource has "uri" and "name" strings, a ResourceTemplate
 * "uriTemplate" and "name", a Prompt "name", and its "arguments", when
 * present, are objects with a "name" string and a boolean "required" if
 * any; "title", "description" and "mimeType" are strings where present.
 * An item that breaks this is MCP_ERR_PROTOCOL, mcp_client_error() naming
 * it ("resources[3] (\"x\") has no \"uri\" (a string)"). Blocks; loop thread.
 * Returns as mcp_client_list_tools (MCP_ERR_INVALID_ARG: out NULL); a
 * server without the capability answers MCP_ERR_REMOTE (method not found).
 */
MCP_EXTERN int mcp_client_list_resources(mcp_client *c, const mcp_client_call_options *opts,
                                         mcp_json_doc **out, mcp_cache_hint *hint);
MCP_EXTERN int mcp_client_list_resource_templates(mcp_client *c,
                                                  const mcp_client_call_options *opts,
                                                  mcp_json_doc **out, mcp_cache_hint *hint);
MCP_EXTERN int mcp_client_list_prompts(mcp_client *c, const mcp_client_call_options *opts,
                                       mcp_json_doc **out, mcp_cache_hint *hint);

/*
 * mcp_client_read_resource: resources/read of uri (UTF-8, NUL-terminated;
 * copied into the request). Blocks; loop thread. Fills *result as
 * mcp_client_call_tool does (release it with
 * mcp_client_call_result_release): on MCP_OK result->result is the
 * ReadResourceResult, whose "contents" array has been checked: each item
 * an object with a "uri" string and either a "text" string or a "blob"
 * string that is canonical padded base64 (mcp_resource_blob_decode gives
 * its bytes), "mimeType" a string where present. Returns the outcome (see
 * "Endings"; a result that breaks the shape is MCP_ERR_PROTOCOL, saying
 * which item), MCP_ERR_INVALID_ARG (uri or result NULL, a result of a bad size (see
 * mcp_client_call_tool), uri not UTF-8;
 * nothing sent), or the errors of mcp_client_call_tool_async. A resource
 * the server does not have is MCP_ERR_REMOTE, code -32002 (2025) or -32602
 * (2026-07-28), as the server says.
 */
MCP_EXTERN int mcp_client_read_resource(mcp_client *c, const char *uri,
                                        const mcp_client_call_options *opts,
                                        mcp_client_call_result *result);

/*
 * mcp_resource_blob_decode: append the bytes of a resource contents item's
 * "blob" (an item of a ReadResourceResult's "contents", or an embedded
 * resource's "resource") to out. Returns MCP_OK; MCP_ERR_INVALID_ARG (item
 * NULL, no "blob" string, or not canonical padded base64) or
 * MCP_ERR_LIMIT / MCP_ERR_NOMEM (out's cap; nothing appended on any
 * error). No client needed; any thread.
 */
MCP_EXTERN int mcp_resource_blob_decode(const mcp_json *item, mcp_buf *out);

/*
 * mcp_client_get_prompt: prompts/get of the prompt `name` with `arguments`
 * (NULL, or an object whose every value is a string, as the spec requires;
 * borrowed for the call). Blocks; loop thread. Fills *result as
 * mcp_client_call_tool does; on MCP_OK result->result is the
 * GetPromptResult, checked: "messages" an array of objects with role
 * "user" or "assistant" and a "content" object with a "type" string (and
 * a "text" string when the type is "text"); "description" a string where
 * present. Returns the outcome (see "Endings"; a result of another shape
 * is MCP_ERR_PROTOCOL), MCP_ERR_INVALID_ARG (name or result NULL, a
 * result of a bad size,
 * arguments not an object or with a value that is not a string, text not
 * UTF-8; nothing sent, mcp_client_error() names the argument), or the
 * errors of mcp_client_call_tool_async. A missing required argument or an
 * unknown prompt is the server's MCP_ERR_REMOTE (-32602).
 */
MCP_EXTERN int mcp_client_get_prompt(mcp_client *c, const char *name, const mcp_json *arguments,
                                     const mcp_client_call_options *opts,
                                     mcp_client_call_result *result);

/* What a completion completes an argument of. */
typedef enum mcp_complete_ref {
    MCP_COMPLETE_PROMPT = 1,            /* ref/prompt: a prompt, by name */
    MCP_COMPLETE_RESOURCE_TEMPLATE = 2  /* ref/resource: a resource template, by
                                           its URI template (or a URI) */
} mcp_complete_ref;

/* The most values a completion may carry (server/utilities/completion). */
#define MCP_COMPLETION_MAX_VALUES 100

/* A completion's answer. Points into the call's response: valid until the
 * mcp_client_call_result it came with is released. Filled in the caller's
 * memory: set size (common.h; the first version has every field below). */
typedef struct mcp_completion {
    size_t size;            /* sizeof(mcp_completion), set by the caller */
    const mcp_json *values; /* array of strings, at most
                               MCP_COMPLETION_MAX_VALUES, in the server's
                               order (most relevant first) */
    size_t count;           /* mcp_json_array_size(values) */
    bool has_total;         /* the server said how many there are */
    uint64_t total;
    bool has_more;          /* the server said there are more than these */
} mcp_completion;

/*
 * mcp_client_complete: completion/complete: suggestions for the argument
 * `argument` of the prompt named ref (kind MCP_COMPLETE_PROMPT) or of the
 * resource template ref (MCP_COMPLETE_RESOURCE_TEMPLATE), whose value so
 * far is `value` (may be ""). context_arguments (may be NULL) are the
 * arguments already chosen, an object of strings (borrowed). All strings
 * NUL-terminated UTF-8. Blocks; loop thread. Fills *result as
 * mcp_client_call_tool does, and on MCP_OK *completion (may be NULL),
 * pointing into result->response. The result is checked: "completion" an
 * object whose "values" is an array of at most MCP_COMPLETION_MAX_VALUES
 * strings, "total" a non-negative integer and "hasMore" a boolean where
 * present; more values is MCP_ERR_PROTOCOL (never cut silently), as is
 * any other shape. Returns the outcome (see "Endings"),
 * MCP_ERR_INVALID_ARG (kind unknown, ref, argument, value or result NULL,
 * a result or completion of a bad size (nothing written to that one),
 * context_arguments not an object of strings, text not UTF-8; nothing
 * sent), or the errors of mcp_client_call_tool_async. A server without
 * the completions capability answers MCP_ERR_REMOTE (-32601).
 */
MCP_EXTERN int mcp_client_complete(mcp_client *c, mcp_complete_ref kind, const char *ref,
                                   const char *argument, const char *value,
                                   const mcp_json *context_arguments,
                                   const mcp_client_call_options *opts,
                                   mcp_client_call_result *result,
                                   mcp_completion *completion);

/*
 * mcp_client_subscribe_resource, mcp_client_unsubscribe_resource:
 * resources/subscribe and resources/unsubscribe of uri (2025 revisions
 * only). After a subscribe the server sends notifications/resources/updated
 * ({"uri": ...}) when the resource changes, delivered to
 * mcp_client_options.on_notification (over 2025 HTTP, on the session's GET
 * stream: mcp_client_server_stream says whether there is one). The server
 * keeps the subscription for its session: a new session (a reconnect,
 * or an HTTP session the server ended) has none. Blocks; loop thread.
 * Returns MCP_OK; the call's ending (see "Endings"; the server's refusal,
 * when it did not declare resources.subscribe for instance, is
 * MCP_ERR_REMOTE with mcp_client_error() saying it); MCP_ERR_STATE under
 * 2026-07-28, where the method does not exist (listen with
 * mcp_client_listen, the URIs in mcp_listen_filter.resource_uris), or when
 * not connected; MCP_ERR_INVALID_ARG (uri NULL or not UTF-8) or the errors
 * of mcp_client_call_tool_async.
 */
MCP_EXTERN int mcp_client_subscribe_resource(mcp_client *c, const char *uri,
                                             const mcp_client_call_options *opts);
MCP_EXTERN int mcp_client_unsubscribe_resource(mcp_client *c, const char *uri,
                                               const mcp_client_call_options *opts);

/*
 * mcp_client_cancel: cancel call (or subscription) h with `reason` (copied;
 * NULL: none). Sends notifications/cancelled and ends it with
 * MCP_ERR_ABORTED. A 2026-07-28 call past its first round is cancelled in
 * the round it is in: its request in flight (under its own id), or, while
 * the server's questions are being answered, nothing is sent: the
 * questions' tokens fire with reason and the call ends at once. Any thread; from another thread the cancel is queued for
 * the loop thread and takes effect there (nothing happens if h has ended
 * by then), and must not run concurrently with mcp_client_free. Never
 * blocks. Returns MCP_OK, MCP_ERR_NOT_FOUND (on the loop thread: it already
 * ended), MCP_ERR_INVALID_ARG (reason not UTF-8, checked on every thread),
 * MCP_ERR_STATE (closed; on the loop thread also not connected) or
 * MCP_ERR_NOMEM.
 */
MCP_EXTERN int mcp_client_cancel(mcp_client *c, mcp_handle h, const char *reason);

/* Number of calls in flight (subscriptions not included). */
MCP_EXTERN size_t mcp_client_pending(const mcp_client *c);

/* ------------------------------------------------------------------------ */
/* Subscriptions (2026-07-28)                                                */

/*
 * mcp_client_listen: open a subscription (subscriptions/listen): cb gets
 * the acknowledgment, the notifications asked for, and one ending (see
 * mcp_listen_fn; over HTTP a failed exchange ends it MCP_ERR_HTTP with
 * the event's http_status, as calls end). End it with mcp_client_cancel.
 * Returns MCP_OK and *handle;
 * MCP_ERR_STATE (not connected, or the server is not 2026-07-28),
 * MCP_ERR_INVALID_ARG, MCP_ERR_CLOSED, MCP_ERR_LIMIT or MCP_ERR_NOMEM (cb
 * never called).
 */
MCP_EXTERN int mcp_client_listen(mcp_client *c, const mcp_listen_filter *filter,
                                 mcp_listen_fn cb, void *user_data, mcp_handle *handle);

/* ------------------------------------------------------------------------ */
/* Questions from the server (sampling, elicitation, roots)                  */
/*
 * A server may ask the client for a model's answer (sampling/createMessage),
 * for the user's input (elicitation/create) or for the client's roots
 * (roots/list) while it handles a call. The application answers through the
 * handlers of mcp_client_options, which declare the capabilities; each
 * question reaches its handler as an mcp_question, the same in both eras:
 *
 * - 2025 revisions: the server sends a request. Its answer (or error) goes
 *   back as the response. When the server cancels that request
 *   (notifications/cancelled), or the connection ends, the question's token
 *   fires with the reason, and an answer given afterwards is dropped:
 *   nothing is sent for a cancelled question.
 * - 2026-07-28 (basic/patterns/mrtr.mdx): a tools/call, resources/read or
 *   prompts/get answered with an InputRequiredResult is not over: the
 *   library checks every question it carries (a method this client did not
 *   declare, an elicitation mode not declared, a form whose requestedSchema
 *   is not a schema: the call ends with MCP_ERR_PROTOCOL before any handler
 *   runs), hands each to its handler (the question's key is the key of
 *   inputRequests), gathers the answers and sends the request again with a
 *   new id, the same params plus inputResponses and the requestState echoed
 *   byte for byte (left out when the server gave none). At most
 *   MCP_CLIENT_MAX_INPUT_ROUNDS such rounds: one more InputRequiredResult
 *   ends the call with MCP_ERR_PROTOCOL. An answer with an error cannot be
 *   sent in this era: it ends the call with MCP_ERR_ABORTED (nothing is on
 *   the wire meanwhile), mcp_client_error() naming the question and the
 *   error. The call's budget covers every round and the time the handlers
 *   take: the idle timeout runs from the InputRequiredResult while they
 *   answer (as it runs under 2025 while the server waits for an answer),
 *   the total limit from the start; mcp_client_cancel works at any point.
 *   Either ending, a timeout, a cancel or the connection's end, fires the
 *   tokens of the questions still open.
 *
 * Elicitation answers: an "accept" of a form gets its content (an empty
 * object when none is given) completed with the defaults of requestedSchema
 * (SEP-1034, 2025-11-25: each top-level property absent from the content
 * that has a "default" gets it), then checked against requestedSchema
 * (mcp/schema.h) before anything is sent; an answer that fails is refused
 * (MCP_ERR_SCHEMA_MISMATCH) and the question stays open for another
 * answer.
 *
 * Threads: handlers run on the loop thread. The question is the
 * application's until it ends it with one of mcp_question_answer,
 * mcp_question_answer_error or mcp_question_decline (each returning
 * MCP_OK or MCP_ERR_CANCELLED frees it); those, and the accessors, may be
 * called from any thread, one at a time for one question, and also after
 * mcp_client_free (the answer is then dropped), but not concurrently with
 * mcp_client_close or mcp_client_free. The answer reaches the server from
 * the loop, while the client's thread is inside a client call.
 */

/* The most InputRequiredResults one call may get (2026-07-28): a server
 * re-asking a form after a poor answer is served, one asking for ever is
 * stopped. */
#define MCP_CLIENT_MAX_INPUT_ROUNDS 10

/* The method: "sampling/createMessage", "elicitation/create" or
 * "roots/list" (a literal). Any thread while q is held. */
MCP_EXTERN const char *mcp_question_method(const mcp_question *q);

/* The request's params as the server sent them (under 2026-07-28: those of
 * the inputRequests entry), an object ({} when there were none). Borrowed
 * from q: valid until q is ended. Any thread while q is held. */
MCP_EXTERN const mcp_json *mcp_question_params(const mcp_question *q);

/* Under 2026-07-28 the question's key in inputRequests (len bytes, any
 * bytes; NUL-terminated too), else NULL. Borrowed from q. len may be NULL.
 * Any thread while q is held. */
MCP_EXTERN const char *mcp_question_key(const mcp_question *q, size_t *len);

/* Whether an elicitation is in URL mode (params.mode "url"); false for a
 * form (mode "form" or absent) and for other methods. Any thread.
 *
 * A URL-mode elicitation reaches the handler only when
 * mcp_client_options.elicitation_url is set, the revision is 2025-11-25 or
 * later, params.message is a string, params.url a URL that
 * mcp_elicitation_url_host takes and, under 2025-11-25, params.elicitationId
 * a string; else it is refused as any question the client cannot take
 * (2025: -32602; 2026-07-28: the call ends with MCP_ERR_PROTOCOL). The
 * client never opens or fetches the URL: showing it whole, its host apart,
 * and asking the user's consent before anyone opens it is the
 * application's (client/elicitation.mdx, Safe URL Handling). */
MCP_EXTERN bool mcp_question_url_mode(const mcp_question *q);

/*
 * mcp_elicitation_url_host: the host of url (len bytes), for showing it
 * apart from the rest (Safe URL Handling: highlight the domain, against a
 * look-alike such as https://example.com@evil.test/ or
 * https://example.com.evil.test/): the authority's host, after any
 * user information ("user@") and without the port; an IP literal keeps its
 * brackets. Returns MCP_OK with *host (pointing into url: borrowed) and
 * *host_len; MCP_ERR_INVALID_ARG when url (or host or host_len) is NULL or
 * url is not scheme://authority... with a scheme (a letter, then
 * letters, digits, + - .), a host that is not empty, a port of digits
 * only, no "%" in the host, and no space, ASCII control character or
 * backslash anywhere (a browser reads one as "/"). Bytes from 0x80
 * up are taken as they are: an internationalised name (or a Punycode one,
 * xn--) is the caller's to warn about. No client needed; any thread.
 */
MCP_EXTERN int mcp_elicitation_url_host(const char *url, size_t len, const char **host,
                                        size_t *host_len);

/* The question's cancel token: fires (loop thread) when the question is
 * withdrawn: the server cancelled it (its reason), the call it belongs to
 * ended (2026-07-28: the caller's cancel, a timeout, another question's
 * error: "the call ended"), or the connection ended ("connection closed").
 * Borrowed from q, valid until q is ended. Any thread while q is held. */
MCP_EXTERN mcp_cancel_token *mcp_question_token(mcp_question *q);

/*
 * mcp_question_answer: answer q with result (an object, borrowed for the
 * call: copied), which must have the shape of the method's result:
 * - elicitation/create: "action" "accept", "decline" or "cancel"; for an
 *   accepted form, "content" an object of strings, numbers, booleans and
 *   arrays of strings (absent: {}), completed with the defaults and checked
 *   against requestedSchema as said above; for URL mode, no "content".
 * - sampling/createMessage: "role" "assistant" or "user", "content" an
 *   object or an array of objects, "model" a string.
 * - roots/list: "roots" an array of objects whose "uri" is a file:// URI
 *   string and "name", where present, a string.
 * Any thread. Returns MCP_OK (q is ended and freed: the answer is on its
 * way); MCP_ERR_CANCELLED (q had been withdrawn, see mcp_question_token:
 * nothing is sent; q is ended and freed); and, with q still open for
 * another answer and why (may be NULL; cut to why_len, NUL-terminated)
 * saying what is wrong: MCP_ERR_INVALID_ARG (q or result NULL, a result of
 * another shape), MCP_ERR_SCHEMA_MISMATCH (the form's content breaks
 * requestedSchema; why names the property and the rule), MCP_ERR_LIMIT
 * (checking the content went past the schema validator's bounds) or
 * MCP_ERR_NOMEM.
 */
MCP_EXTERN int mcp_question_answer(mcp_question *q, const mcp_json *result, char *why,
                                   size_t why_len);

/*
 * mcp_question_answer_error: answer q with a JSON-RPC error: code and
 * message (UTF-8, copied; NULL: "Internal error"). Under 2025 it is the
 * response; under 2026-07-28 it ends q's call with MCP_ERR_ABORTED (see
 * above). Any thread. Returns MCP_OK or MCP_ERR_CANCELLED, q ended and
 * freed either way; MCP_ERR_INVALID_ARG (q NULL, message not UTF-8) with q
 * still open. Needs no memory: an answer that cannot copy the message
 * sends "Internal error".
 */
MCP_EXTERN int mcp_question_answer_error(mcp_question *q, int64_t code, const char *message);

/*
 * mcp_question_decline: the user said no: an elicitation is answered
 * {"action": "decline"}; sampling and roots, which have no such answer,
 * with error -1 "The user declined" (the code client/sampling.mdx gives
 * for a rejected sampling; under 2026-07-28 this ends the call, as an
 * error does). Any thread. Returns as mcp_question_answer_error.
 */
MCP_EXTERN int mcp_question_decline(mcp_question *q);

/*
 * mcp_client_roots_changed: the roots changed. roots (may be NULL: the
 * handler answers, or the fixed list stays) replaces the fixed list of
 * mcp_client_options.roots (copied, checked as there). Under 2025, when
 * connected, notifications/roots/list_changed is sent; under 2026-07-28
 * nothing is (the server asks each time it needs them). Loop thread.
 * Returns MCP_OK; MCP_ERR_STATE (the client offers no roots: neither
 * on_roots nor roots was given), MCP_ERR_INVALID_ARG (roots not an array
 * of Root objects), MCP_ERR_CLOSED (the server has gone; the list is
 * replaced all the same) or MCP_ERR_NOMEM (nothing changed).
 */
MCP_EXTERN int mcp_client_roots_changed(mcp_client *c, const mcp_json *roots);

/* ------------------------------------------------------------------------ */
/* Driving                                                                   */

/*
 * Drive the client: mcp_client_run returns when no call is in flight (or
 * the client closed); mcp_client_run_once handles what is ready, waiting
 * for something to happen when `wait` is true. Both return MCP_OK,
 * MCP_ERR_CLOSED when there is no live connection (the server is gone, or
 * never connected) or MCP_ERR_STATE after mcp_client_close.
 */
MCP_EXTERN int mcp_client_run(mcp_client *c);
MCP_EXTERN int mcp_client_run_once(mcp_client *c, bool wait);

/* Block until every byte queued for the server has been written. MCP_OK,
 * MCP_ERR_IO (the connection failed, or there is none) or MCP_ERR_STATE
 * (closed). */
MCP_EXTERN int mcp_client_flush(mcp_client *c);

/* The libuv loop the client runs on, to add signal handlers or timers from
 * the loop thread. Borrowed from the client; exists from mcp_client_new
 * until mcp_client_close (NULL afterwards). */
struct uv_loop_s;
MCP_EXTERN struct uv_loop_s *mcp_client_loop(mcp_client *c);

/* What the child wrote to stderr when capture_stderr is set; borrowed, valid
 * until the next client call. "" otherwise. */
MCP_EXTERN const char *mcp_client_stderr(const mcp_client *c, size_t *len);

/* The child's exit: true and *status (the exit code, or 128 + signal) once
 * it has exited. */
MCP_EXTERN bool mcp_client_child_exited(const mcp_client *c, int *status);

/* The server process's id while it runs (it has not been reaped), else 0:
 * for a signal handler that must stop it when the program exits at once
 * (a second Ctrl-C), where no client call is allowed. Loop thread, or a
 * signal handler (it only reads: no allocation, no lock), but not while
 * mcp_client_connect_stdio (a failed connect stops the server),
 * mcp_client_reconnect, mcp_client_close or mcp_client_free runs. The id
 * changes with mcp_client_reconnect. */
MCP_EXTERN int mcp_client_server_pid(const mcp_client *c);

/*
 * mcp_client_close: shut down as the spec says for stdio: close the
 * server's stdin, wait (close_grace_ms) for it to exit, then SIGTERM, wait,
 * then SIGKILL. Messages arriving meanwhile are still read (and traced).
 * Over HTTP: wait (close_grace_ms) for posted notifications to be taken,
 * then DELETE a 2025 session and wait for that, then close every
 * connection. Calls in flight end with MCP_ERR_CLOSED. Blocks. Idempotent.
 */
MCP_EXTERN void mcp_client_close(mcp_client *c);

/* mcp_client_free: close if needed, then free. NULL is a no-op. */
MCP_EXTERN void mcp_client_free(mcp_client *c);


/* ------------------------------------------------------------------------ */
/* A relay: another client's messages to a Streamable HTTP server           */

/*
 * The HTTP transport of the client without the client's session: for a
 * gateway that carries the messages of a client it did not write (mcp proxy
 * --url). Each message handed to mcp_http_relay_send goes to the server as
 * it is; the era is told by what is sent, as for the client's own: a
 * request carrying the 2026-07-28 `_meta` envelope goes out with that
 * revision's headers, and a notifications/cancelled for it closes its
 * stream instead of being posted; after an `initialize` (2025) the session
 * id travels on every request, the server's own messages come from a GET
 * stream, a broken stream is resumed (Last-Event-ID), a cancel is posted.
 * A 2026-07-28 tools/call carries the Mcp-Param-* headers its tool
 * declares (x-mcp-header), as learned from the tools/list results the relay
 * carried (each passes unchanged).
 *
 * Everything the server sends comes to `message`. A request whose HTTP
 * exchange failed (the server unreachable, an HTTP error status, a stream
 * that broke for good, the session ended) is answered there too, with a
 * JSON-RPC error the relay made up (code -32603, the status and body in its
 * message, data.httpStatus and, for a network failure, data.httpError),
 * made_up set. So every request sent gets one answer (a response too large
 * comes to `oversized` instead), unless it is cancelled: then none.
 *
 * Threads: loop thread only (the loop given to mcp_http_relay_new, which
 * the caller runs); callbacks come from inside that loop's run. Credentials
 * (oauth) may block the loop while a token is fetched.
 */
typedef struct mcp_http_relay mcp_http_relay;

typedef struct mcp_http_relay_options {
    size_t size; /* sizeof(mcp_http_relay_options) */
    /* As mcp_http_client_options: copied, checked the same way. */
    const char *const *headers;
    const char *ca_file;
    bool tls_no_verify;
    uint64_t connect_timeout_ms;         /* each connection; 0: 10 s */
    const struct mcp_oauth_options *oauth; /* NULL: none */
    size_t max_message; /* per message from the server; 0: 4 MiB */
    /* One message (no newline), borrowed for the call; made_up: an error
     * the relay made up for a failed HTTP exchange, not the server's. */
    void (*message)(void *user_data, const char *data, size_t len, bool made_up);
    /* A message of the server's over max_message was dropped (optional):
     * head is its start (for a response, enough to read its id: the
     * request then gets no other answer), borrowed for the call. */
    void (*oversized)(void *user_data, const char *head, size_t head_len, size_t limit);
    /* The relay's warnings, and OAuth's (optional). */
    void (*log)(void *user_data, const mcp_log_record *r);
    void *user_data;
} mcp_http_relay_options;

/*
 * A relay to url on loop. MCP_OK and *out (the caller's: mcp_http_relay_close),
 * MCP_ERR_INVALID_ARG (not an http(s) URL, a header refused, a CA file that
 * cannot be read, OAuth options of an unknown size: err says which, never a
 * header's value) or MCP_ERR_NOMEM. Nothing is sent until the first send.
 */
MCP_EXTERN int mcp_http_relay_new(struct uv_loop_s *loop, const char *url,
                                  const mcp_http_relay_options *o, mcp_http_relay **out,
                                  char *err, size_t err_len);

/* Send one JSON-RPC message (one object; no newline inside; data is
 * borrowed for the call only: what goes out is a copy). MCP_OK (an
 * HTTP failure comes later, to `message`), MCP_ERR_INVALID_ARG (not a
 * JSON-RPC object), MCP_ERR_STATE (closing) or MCP_ERR_NOMEM. Never
 * blocks, but for credentials (above). */
MCP_EXTERN int mcp_http_relay_send(mcp_http_relay *r, const char *data, size_t len);

/* Posts not yet answered by the server: notifications (posted cancels),
 * responses to its requests, the session's DELETE. 0: settled. */
MCP_EXTERN size_t mcp_http_relay_unsettled(const mcp_http_relay *r);

/* 2025: end the session (DELETE; a 405 is fine); no-op without one. */
MCP_EXTERN void mcp_http_relay_end_session(mcp_http_relay *r);

/* Why the last exchange that got no HTTP answer at all failed (curl's
 * words), or NULL. Borrowed until the next loop turn. */
MCP_EXTERN const char *mcp_http_relay_unreachable(const mcp_http_relay *r);

/* Drop every exchange (nothing more is delivered) and free r once its
 * handles are closed, while the loop runs on: run it until it has no
 * handles of the relay's left (uv_run to the end). NULL is a no-op. */
MCP_EXTERN void mcp_http_relay_close(mcp_http_relay *r);

#ifdef __cplusplus
}
#endif
#endif /* MCP_CLIENT_H */
