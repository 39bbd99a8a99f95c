/* SPDX-License-Identifier: MIT */
/*
 * libmcp server: tools served over stdio (and any byte stream), to clients
 * of every revision at once (2025-06-18, 2025-11-25 through initialize;
 * 2026-07-28 per request), with the request lifecycle done right: a
 * cancelled call's token fires and nothing more is ever sent for it,
 * whatever the handler does afterwards.
 *
 * Registry and connections. What the server offers (its tools) is a
 * registry: an immutable snapshot shared by every connection. Adding or
 * removing a tool while serving publishes a new snapshot and tells the
 * clients that listen for it (tools/list_changed); a call in flight keeps
 * the snapshot it started with. A connection is one client: its session,
 * its calls, its transport. One server serves any number of connections at
 * once, on one loop thread.
 *
 * Threads. mcp_server_new, mcp_server_attach_fds, the serve and run
 * functions and mcp_server_free are called from one thread (the run call's
 * thread runs the event loop: the "loop thread"). Tool handlers run on the
 * loop thread (non-blocking tools) or on a worker thread
 * (MCP_TOOL_BLOCKING). mcp_server_add_tool, mcp_server_remove_tool,
 * mcp_server_publish and mcp_server_stop may be called from any thread at
 * any time until mcp_server_free (not concurrently with it), every
 * mcp_call_* function from any thread until the call is ended.
 *
 * A call's life. The handler gets an mcp_call and must end it exactly once
 * with one of the mcp_call_reply_* functions or mcp_call_finish, from any
 * thread, now or later. After that the call pointer is invalid. A blocking
 * handler that returns without ending its call has it ended for it (with an
 * internal error, unless it was cancelled).
 */
#ifndef MCP_SERVER_H
#define MCP_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/json.h"
#include "mcp/runtime.h"
#include "mcp/session.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_server mcp_server;
typedef struct mcp_call mcp_call;

/* A tool handler. Runs on the loop thread, where it must not block, or on a
 * worker thread when the tool is MCP_TOOL_BLOCKING; a blocking call
 * cancelled while queued is ended without running its handler. */
typedef void (*mcp_tool_fn)(void *user_data, mcp_call *call);

enum mcp_tool_flags {
    MCP_TOOL_BLOCKING = 1, /* run on the worker pool; may block */
    /* 2026-07-28, a tool that may run as a task: its call becomes one only
     * when its handler calls mcp_call_become_task, so that it can ask its
     * questions first as input-required rounds (ext-tasks: those are
     * resolved before the task is made). Under 2025-11-25 a task-augmented
     * call is a task from the start, as without the flag. */
    MCP_TOOL_TASK_DEFERRED = 2
};

/* Whether a tool runs as a task (2025-11-25 execution.taskSupport): a
 * client may ask a task of an OPTIONAL tool, must of a REQUIRED one, and
 * may not of a FORBIDDEN one (each refused with -32601 otherwise). The
 * handler is the same either way: the library makes the call a task,
 * answers CreateTaskResult at once, and keeps what the handler answers
 * for tasks/result. */
typedef enum mcp_task_support {
    MCP_TASK_FORBIDDEN = 0,
    MCP_TASK_OPTIONAL = 1,
    MCP_TASK_REQUIRED = 2
} mcp_task_support;

typedef struct mcp_tool {
    size_t size;               /* sizeof(mcp_tool) */
    const char *name;          /* required; 1-128 of [A-Za-z0-9_.-] */
    const char *title;         /* optional */
    const char *description;   /* optional */
    const char *input_schema;  /* JSON Schema text; NULL: {"type":"object"} */
    const char *output_schema; /* JSON Schema text or NULL */
    mcp_tool_fn handler;       /* required */
    void *user_data;
    unsigned flags;
    /* Client capabilities the tool needs (JSON object text, such as
     * {"elicitation":{}}), or NULL. A call from a client that did not
     * declare them is refused: -32021 with data.requiredCapabilities under
     * 2026-07-28, -32602 under a legacy revision. */
    const char *required_client_capabilities;
    /* Listed as they are (JSON text, or NULL): annotations (an object:
     * readOnlyHint, destructiveHint, ...), icons (an array of Icon
     * objects), meta (the item's _meta object). */
    const char *annotations, *icons, *meta;
    /* Listed as execution.taskSupport unless FORBIDDEN (the default). */
    mcp_task_support task_support;
    /* OAuth scopes a call of this tool needs beyond the server-wide
     * auth_scopes (NULL-terminated; NULL: none). Each is a scope-token of
     * RFC 6749 section 3.3 (printable ASCII without space, '"' or '\\');
     * copied at registration. Checked only where the HTTP listener is a
     * resource server (mcp_server_http_options.auth_issuer): a tools/call
     * naming the tool with a token that lacks one is refused 403
     * insufficient_scope, before the handler runs and before the response
     * starts, the challenge naming every scope the call needs (the
     * server-wide ones and these). Ignored without auth_issuer (stdio, an
     * authorize callback, no auth). Listing is not filtered: tools/list
     * shows the tool to any token. */
    const char *const *scopes;
} mcp_tool;

/*
 * Resources, resource templates and prompts. Each is registered like a
 * tool (copied; any thread; a change while serving publishes a new
 * snapshot and the list_changed of its kind), listed in registration
 * order, and served by a handler that gets an mcp_call and ends it with a
 * reply function, like a tool's (MCP_TOOL_BLOCKING in flags runs it on a
 * worker thread). In the handler, mcp_call_method() says which request it
 * answers and mcp_call_arguments() holds its input:
 *
 * - resources/read of a resource: {}; mcp_call_uri() is its URI.
 * - resources/read through a template: the template's variables as the
 *   URI gave them, decoded: {"id":"42"}, a list variable ({/path*}) as an
 *   array of strings.
 * - prompts/get: the arguments, an object of strings (checked: every
 *   required argument is present, every value a string, no undeclared
 *   argument).
 * - completion/complete: the request's params, {"ref":..., "argument":
 *   {"name":..., "value":...}, "context":{"arguments":{...}}}; answered
 *   with mcp_call_reply_completion.
 */
typedef struct mcp_resource {
    size_t size;             /* sizeof(mcp_resource) */
    const char *uri;         /* required: UTF-8, 1 to 8192 bytes, with a scheme */
    const char *name;        /* required: UTF-8 */
    const char *title;       /* optional, as the rest */
    const char *description;
    const char *mime_type;
    const char *annotations, *icons, *meta; /* JSON text, as a tool's */
    bool size_known;          /* size_bytes is listed as "size" */
    uint64_t size_bytes;
    mcp_tool_fn read;         /* required: answers resources/read */
    void *user_data;
    unsigned flags;           /* MCP_TOOL_BLOCKING */
    const char *const *scopes; /* a read's scopes, as mcp_tool's (resources/read) */
} mcp_resource;

typedef struct mcp_resource_template {
    size_t size;              /* sizeof(mcp_resource_template) */
    const char *uri_template; /* required: RFC 6570 (mcp/uri_template.h) */
    const char *name;         /* required */
    const char *title;
    const char *description;
    const char *mime_type;
    const char *annotations, *icons, *meta;
    mcp_tool_fn read;         /* required: reads any URI the template matches */
    mcp_tool_fn complete;     /* optional: completes the template's variables */
    void *user_data;
    unsigned flags;
    const char *const *scopes; /* as mcp_tool's, for a read of a URI it matches
                                  (the template that serves the read) */
} mcp_resource_template;

typedef struct mcp_prompt_argument {
    const char *name;         /* required */
    const char *title;
    const char *description;
    bool required;
} mcp_prompt_argument;

typedef struct mcp_prompt {
    size_t size;              /* sizeof(mcp_prompt) */
    const char *name;         /* required: UTF-8, 1 to 128 bytes */
    const char *title;
    const char *description;
    const mcp_prompt_argument *arguments; /* argument_count of them (copied) */
    size_t argument_count;
    const char *icons, *meta;
    mcp_tool_fn get;          /* required: answers prompts/get */
    mcp_tool_fn complete;     /* optional: completes its arguments */
    void *user_data;
    unsigned flags;
    const char *const *scopes; /* as mcp_tool's, for prompts/get (completion
                                  and prompts/list are not checked) */
} mcp_prompt;

/*
 * mcp_server_add_resource, _add_resource_template, _add_prompt: register
 * (copied). Any thread, before or while serving. MCP_OK; MCP_ERR_INVALID_ARG
 * (bad size; a required field missing; a string that is not UTF-8; a URI
 * without a scheme or over 8192 bytes; a template that does not parse, the
 * reason logged; annotations, icons or meta that are not JSON of the right
 * type; a prompt argument without a name or named twice; a URI, template
 * or prompt name already registered; scopes as mcp_server_add_tool's);
 * MCP_ERR_NOMEM.
 *
 * A read is matched first against the resources (the URI exactly), then
 * against the templates in registration order. A URI that matches nothing
 * is answered "Resource not found" with data {"uri"}: -32002 under the
 * 2025 revisions, -32602 under 2026-07-28 (server/resources.mdx of each).
 */
MCP_EXTERN int mcp_server_add_resource(mcp_server *s, const mcp_resource *r);
MCP_EXTERN int mcp_server_add_resource_template(mcp_server *s, const mcp_resource_template *t);
MCP_EXTERN int mcp_server_add_prompt(mcp_server *s, const mcp_prompt *p);

/* Unregister by URI (a resource), URI template (a template) or name (a
 * prompt); requests in flight keep it until they end. Any thread. MCP_OK
 * or MCP_ERR_NOT_FOUND. */
MCP_EXTERN int mcp_server_remove_resource(mcp_server *s, const char *uri_or_template);
MCP_EXTERN int mcp_server_remove_prompt(mcp_server *s, const char *name);

typedef struct mcp_server_options {
    size_t size;              /* sizeof(mcp_server_options) */
    const char *name;         /* serverInfo; NULL: "libmcp" */
    const char *version;      /* NULL: the library version */
    const char *instructions; /* optional */
    unsigned worker_threads;  /* for blocking tools; 0 means 8 */
    unsigned max_in_flight;   /* requests in flight per connection; 0 means 65536 */
    size_t max_message;       /* bytes per message read; 0 means 4 MiB */
    size_t max_output;        /* bytes waiting to be written per connection
                                 (a client that stops reading is dropped
                                 past it, at once: what is already in its
                                 pipe is not waited for); 0 means 64 MiB */
    /* After end of input or a stop: how long handlers get to return, and,
     * after a stop, how long a client may take nothing before the replies
     * still queued are given up; 0 means 2000. */
    uint64_t shutdown_grace_ms;
    /* Log records (including every cancellation). Called from the loop
     * thread and, for mcp_call_log, from handler threads: must be
     * thread-safe. NULL: lines on stderr. */
    mcp_log_fn log;
    void *log_user_data;
    /* Lowest level logged. MCP_LOG_DEFAULT: everything for a log hook, INFO
     * for the stderr default, where MCP_LOG_LEVEL=debug|info|warn|warning|
     * error in the environment overrides log_level (an unknown value is
     * reported once on stderr). */
    mcp_log_level log_level;
    /* Every message, both directions (optional; loop thread): line is len
     * bytes (no newline; not NUL-terminated), borrowed for the call. */
    void (*trace)(void *user_data, bool outgoing, const char *line, size_t len);
    void *trace_user_data;
    /* What subscriptions (2026-07-28), legacy list_changed and legacy
     * resources/subscribe can carry (enum mcp_listen_kinds), declared in
     * the capabilities; 0 means all five. List changes are published by
     * the registry itself; resource updates by the application
     * (mcp_server_publish); a task's changes (MCP_LISTEN_TASKS:
     * notifications/tasks on a listen that names the task in taskIds, with
     * the caller's credential) by the tasks themselves. */
    unsigned listen_kinds;
    /* Caching hints (2026-07-28) of server/discover, the lists and
     * resources/read results that carry none of their own: how long a
     * client may keep them (0: not at all) and who may share them. */
    uint64_t cache_ttl_ms;
    mcp_cache_scope cache_scope;
    /* The key of requestState's HMAC (2026-07-28 input-required results),
     * request_state_key_len bytes (at least 32; copied). Every instance
     * behind one address must share it, so that any of them takes another's
     * state. NULL: random, for this process only. */
    const void *request_state_key;
    size_t request_state_key_len;
    /* How long a requestState is honoured; 0: 10 minutes. */
    uint64_t request_state_ttl_ms;
    /* Items per page of tools/list, resources/list,
     * resources/templates/list and prompts/list; 0: 100. A cursor names
     * the next item, not a position: a page read after the list changed
     * neither repeats nor skips what stayed. */
    size_t page_size;
    /* Tasks (2025-11-25 task-augmented tools/call; mcp_task_support): the
     * longest a task is kept from its creation (a longer ttl asked for, or
     * none, gets this: the ttl reported is the one granted; 0: one hour),
     * the pollInterval suggested (0: 1000 ms), how many tasks, finished or
     * not, one client may hold (0: 64) and the server holds in all (0:
     * 4096): past either, a task-augmented call is refused (-32603). A
     * 2025-11-25 client's tasks are its session's: they end with it; a
     * 2026-07-28 task (the io.modelcontextprotocol/tasks extension) outlives
     * the request that made it and belongs to its Authorization value
     * (the same value, not only the same user: a refreshed token reaches
     * them no more), or without one to whoever has its id; "one client"
     * is then one such value. */
    uint64_t task_max_ttl_ms;
    uint64_t task_poll_interval_ms;
    unsigned task_max_per_client;
    unsigned task_max_total;
    /* Where 2026-07-28 tasks' records live, so that every process behind
     * one address serves them: NULL or "memory" (this process only), or
     * "redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]" (copied): a task is
     * given out once Redis has kept it; tasks/get, tasks/update and
     * tasks/cancel reach it from any process sharing that Redis; a cancel
     * reaches the process running it (its handler's token fires); a
     * process that stops (or dies: its lease, task_lease_ms, runs out)
     * has its running tasks failed. Redis unreachable: task requests are
     * answered -32603 within task_store_timeout_ms (0: 1000), other
     * requests are served as ever, and the store reconnects. 2025-11-25
     * tasks stay in the process of their session. */
    const char *task_store;
    uint64_t task_store_timeout_ms;
    /* 0: 3000; at least 500 and twice task_store_timeout_ms (a renewal
     * that takes the whole timeout lands before the lease runs out), at
     * most two days; task_store_timeout_ms at most a day. A process that
     * comes back to Redis having outlived its own lease (Redis restarted
     * or paused for everyone, say) declares no other dead for the lease
     * plus 2 s plus twice the timeout, so that the live ones may renew
     * theirs first; a new process waits the same. */
    uint64_t task_lease_ms;
    /* The capabilities the server declares, as given (an object, copied),
     * in place of the ones it builds (tools, prompts, resources, logging,
     * completions); features still add theirs (tasks). NULL: built. A
     * gateway declares its upstream server's this way. */
    const mcp_json *capabilities;
    /* A gateway (mcp proxy --http): the server forwards every request for
     * tools, resources, prompts and completions to a stdio MCP server it
     * runs as a child process, upstream_argv (NULL-terminated, argv[0]
     * looked up in PATH; copied), and registered items are not served. A
     * 2025 session gets a child of its own, started at its first such
     * request (initialized with the session's revision, and the client's
     * info and capabilities, so that the child's questions are asked of
     * that client) and ended with the session: its input closed, SIGTERM
     * after 2 s, SIGKILL 2 s later. 2026-07-28 requests share one child,
     * started at the first and again after it dies, but for the calls that
     * may ask (tools/call, prompts/get, resources/read from a client that
     * declared sampling, elicitation or roots): each runs on a child told
     * those capabilities, one call at a time (kept 30 s idle for the next
     * call declaring the same with the same Authorization), and is held
     * across input-required rounds:
     * the child's question ends the request with an InputRequiredResult
     * whose requestState (sealed as request_state_key says, honoured
     * request_state_ttl_ms) names the call, and the retry's answers go to
     * the child as its question's responses. A 2026-07-28 tools/call of
     * a request that declared the tasks extension goes to a child that
     * runs tasks (tasks.requests.tools.call) as a 2025-11-25 task call, and
     * becomes a task of this server's once the child made one (its
     * questions the task's inputRequests, tasks/cancel sent on as
     * tasks/cancel); a tool the child refuses -32601 in one form is sent
     * once in the other. A cancelled request
     * (the client's cancel, a 2026-07-28 client's disconnect) is cancelled
     * on the child; progress comes back when the client gave a token; a
     * child that dies answers what it had in flight at once (-32603,
     * naming its exit status), and a 2025 HTTP session whose child serves
     * no more ends with it (its next request gets 404 and the client
     * initializes again; on stdio, where the conversation is the session,
     * its requests are answered with the child's end). A 2026-07-28 listen of resources has the shared child
     * subscribed to them while it lasts. At most upstream_max_children
     * children run at once (0: 64): past it, or when the child cannot be
     * started, a request is answered -32603, over HTTP with status 503 and
     * Retry-After (but for a 2025 request whose event stream the response
     * mode opened already), and the next tries again. NULL: not a
     * gateway. */
    const char *const *upstream_argv;
    unsigned upstream_max_children;
    /* What the stderr default's lines begin with (copied; NULL: name): a
     * gateway declares its upstream's name but logs as itself. */
    const char *log_name;
} mcp_server_options;

/* Whether spec names a task store mcp_server_options.task_store takes:
 * true, or false with why (n bytes, NUL-terminated) saying what is wrong
 * (a redis:// URL's part). Any thread; spec and why are the caller's. */
MCP_EXTERN bool mcp_server_task_store_valid(const char *spec, char *why, size_t n);

/* mcp_server_new: MCP_OK and *out (free with mcp_server_free),
 * MCP_ERR_INVALID_ARG (bad options size, name/version/instructions not
 * UTF-8, max_in_flight over MCP__MAX_INBOUND, capabilities not an object,
 * upstream_argv with no command) or MCP_ERR_NOMEM. opts may be
 * NULL. Strings are copied; the log and trace user_data are kept until
 * mcp_server_free. */
MCP_EXTERN int mcp_server_new(const mcp_server_options *opts, mcp_server **out);

/*
 * mcp_server_add_tool: register a tool (copied). Any thread, before or
 * while serving; while serving, clients listening for tool list changes are
 * told. Returns MCP_OK, MCP_ERR_INVALID_ARG (bad size, missing name or
 * handler, a name with characters outside [A-Za-z0-9_.-] or longer than 128,
 * a schema or capability list that is not a JSON object, a duplicate name,
 * a scope that is not an RFC 6749 scope-token or more than 64 of them),
 * MCP_ERR_SCHEMA (a schema that is no valid JSON Schema: a keyword of the
 * wrong type, a bad pattern, a $ref to nothing), MCP_ERR_SCHEMA_REMOTE (a
 * $ref to another document) or MCP_ERR_NOMEM.
 *
 * The schemas are compiled here, once (mcp/schema.h: 2020-12 unless their
 * $schema names draft-07). Every call's arguments are validated against
 * input_schema before the handler runs; a call that fails never reaches
 * it, and is answered as its revision says: -32602 under 2025-06-18 (and
 * 2025-03-26), a tool error (isError, its text naming the failing path and
 * keyword, so that a model can correct itself) from 2025-11-25 on. With an
 * output_schema, every successful result must carry structuredContent that
 * satisfies it: one that does not is answered with -32603 instead (and
 * logged), and the reply function returns MCP_ERR_SCHEMA_MISMATCH.
 */
MCP_EXTERN int mcp_server_add_tool(mcp_server *s, const mcp_tool *tool);

/* mcp_server_remove_tool: unregister a tool by name (calls in flight keep
 * it until they end). Any thread. MCP_OK or MCP_ERR_NOT_FOUND. */
MCP_EXTERN int mcp_server_remove_tool(mcp_server *s, const char *name);

/*
 * mcp_server_publish: tell every connected client that listens for it (and
 * legacy clients, for list changes) that `kind` changed: one of
 * MCP_LISTEN_TOOLS, _PROMPTS, _RESOURCES (uri NULL) or
 * MCP_LISTEN_RESOURCE_UPDATES (uri: the resource, copied). Only kinds in
 * the options' listen_kinds are published. Any thread; delivered from the
 * loop thread. MCP_OK (queued, or nobody serving), MCP_ERR_INVALID_ARG or
 * MCP_ERR_NOMEM.
 */
MCP_EXTERN int mcp_server_publish(mcp_server *s, unsigned kind, const char *uri);

/*
 * mcp_server_elicitation_complete: the interaction at the URL of a URL
 * mode elicitation is over (2025-11-25, client/elicitation.mdx): the
 * client that was given elicitation_id, in an elicitation/create of
 * mcp_call_ask or a -32042 of mcp_call_reply_error_data, gets
 * notifications/elicitation/complete once, even after the call ended; a
 * client may retry the call that failed with -32042 then. Each connection
 * keeps its last 64 such ids; an id no connected client holds (unknown,
 * completed already, forgotten, its client gone, or of a revision without
 * ids) is ignored, logged at debug. elicitation_id is copied. Any thread;
 * delivered from the loop thread. MCP_OK (queued, or nobody serving),
 * MCP_ERR_INVALID_ARG (NULL, empty, over 256 bytes or not UTF-8) or
 * MCP_ERR_NOMEM.
 */
MCP_EXTERN int mcp_server_elicitation_complete(mcp_server *s, const char *elicitation_id);

/*
 * mcp_server_serve_stdio: serve on stdin/stdout until stdin ends (or
 * mcp_server_stop). stdout carries only protocol messages; logs go to
 * stderr. At end of input every call in flight is cancelled with reason
 * "connection closed"; the server waits up to the shutdown grace for
 * handlers to return, and writes every reply for as long as the client
 * reads them, however slowly; after mcp_server_stop it gives up on a
 * client that took nothing for the grace (MCP_ERR_IO, logged with the
 * bytes lost). Requests are read only as fast as the client takes the
 * replies (past a quarter of max_output, at most 1 MiB, unwritten, reading
 * pauses), so only a client that stops reading meets the cap. SIGPIPE is ignored
 * unless the application set its own disposition. A closed stdin, stdout
 * or stderr is first reserved (/dev/null, opened so that using it still
 * fails), so that no descriptor of the server's takes its number. Blocks; one call at a time
 * per server. Returns MCP_OK; MCP_ERR_IO when the conversation ended in a
 * failure, each logged: stdin or stdout cannot be used, reading failed
 * (not at end of input), writing failed (the reader went away, the output
 * cap), or replies were left unwritten; MCP_ERR_NOMEM (nothing served);
 * MCP_ERR_STATE when already running.
 */
MCP_EXTERN int mcp_server_serve_stdio(mcp_server *s);

/* The same on any pair of file descriptors (pipe, socket, tty, file, or
 * anything readable with read(2)). The descriptors are not closed. */
MCP_EXTERN int mcp_server_serve_fds(mcp_server *s, int in_fd, int out_fd);

/* mcp_server_attach_fds: add a connection on in_fd/out_fd, served by the
 * next (or the running) mcp_server_run. Loop thread. MCP_OK, MCP_ERR_IO,
 * MCP_ERR_NOMEM. The descriptors are not closed. */
MCP_EXTERN int mcp_server_attach_fds(mcp_server *s, int in_fd, int out_fd);

/* ------------------------------------------------------------------------ */
/* Streamable HTTP                                                           */

typedef enum mcp_http_response_mode {
    MCP_HTTP_RESPONSE_AUTO = 0, /* JSON, or an event stream from the first
                                   message a call sends before its result */
    MCP_HTTP_RESPONSE_JSON,     /* always JSON: messages before the result
                                   are dropped */
    MCP_HTTP_RESPONSE_SSE       /* always an event stream */
} mcp_http_response_mode;

typedef struct mcp_server_http_options {
    size_t size;          /* sizeof(mcp_server_http_options) */
    const char *host;     /* numeric address to bind; NULL: 127.0.0.1 */
    unsigned port;        /* 0: any free port (see mcp_server_http_port) */
    const char *path;     /* the MCP endpoint; NULL: "/mcp" */
    /* NULL-terminated lists ("*" allows any). NULL: bound to loopback,
     * the loopback names (localhost, 127.0.0.1, [::1], any port) are the
     * hosts and origins allowed; bound elsewhere, any Host and no Origin.
     * A request without Origin (not a browser) passes. Refused: 403. */
    const char *const *allowed_origins;
    const char *const *allowed_hosts;
    size_t max_body;          /* bytes of a POST body; 0: 4 MiB (413) */
    unsigned max_connections; /* 0: 1024; past it 503 */
    unsigned max_sessions;    /* 2025 sessions at once; 0: 1024 (503) */
    uint64_t session_idle_ms; /* a 2025 session unused this long ends
                                 (its calls cancelled, "session expired");
                                 0: 30 minutes */
    unsigned idle_timeout_s;  /* a connection that sends nothing this long
                                 while we wait for it is closed; 0: 60 */
    unsigned keepalive_ms;    /* a comment on quiet streams; 0: 15000 */
    mcp_http_response_mode response_mode;
    /* 2025-11-25 sessions: an event stream answering a POST is closed right
     * after its priming event, with this reconnection delay; the client
     * polls with GET and Last-Event-ID, and gets the rest (the response
     * included) there. 0: streams stay open until their response. */
    uint64_t poll_retry_ms;
    /* HTTPS: PEM text of the certificate (chain) and its key; both or
     * neither. Copied. */
    const char *tls_cert_pem, *tls_key_pem;
    /* Optional: the Authorization header's value (NULL when absent) ->
     * true to serve the request, false for 401 with
     * `WWW-Authenticate: Bearer`. Loop thread. Whether or not it is set, a
     * 2026-07-28 requestState is bound to the Authorization value of the
     * request it was given on: presented with another (or none) it is
     * refused (-32602) before the handler runs, so one user cannot replay
     * another's answers. A client whose credential changes between rounds
     * starts the call again without the state. */
    bool (*authorize)(void *user_data, const char *authorization);
    void *authorize_user_data;
    /* A request's headers and body must all arrive within this many
     * seconds of its connection opening (or finishing its previous
     * request), however steadily they trickle; else the connection is
     * closed. So an idle keep-alive connection lasts this long too.
     * 0: 30. */
    unsigned request_timeout_s;
    /* Connections from one IP address at once; a further one is closed
     * as it opens. 0: no limit. Of no use where every client comes from
     * one address (bound to loopback, behind a proxy). Past three quarters
     * of max_connections, request_timeout_s is cut to a fifth (at least
     * 1 s), so a flood of slow connections is renewed five times as
     * often; a limit per address is what keeps one client from filling
     * the cap. */
    unsigned max_connections_per_address;
    /* OAuth 2.1 resource server (the MCP authorization specification).
     * With auth_issuer set, every request to the endpoint needs a bearer
     * access token: a JWT (RFC 9068, typ at+jwt) signed with RS256, PS256
     * or ES256 by a key of the authorization server's key set (below),
     * whose iss is auth_issuer, whose aud
     * holds auth_audience (NULL: auth_resource; a token issued for another
     * server is refused, never passed on), not expired (60 s of skew), and
     * whose scope holds every one of auth_scopes (NULL-terminated, or
     * NULL), and, for tools/call, prompts/get and resources/read, the
     * scopes of the item named (mcp_tool.scopes and the others'). Refused: 401 with a WWW-Authenticate challenge naming this
     * server's metadata (resource_metadata) and the scopes; 401
     * invalid_token with the reason; 400 invalid_request for a malformed
     * Authorization; 403 insufficient_scope naming every scope needed.
     * This server's Protected Resource Metadata (RFC 9728) is served to
     * anyone at /.well-known/oauth-protected-resource followed by the path
     * of auth_resource. What a request is bound to (a 2025 session, tasks,
     * a requestState) is the token's issuer and subject, not the header's
     * bytes, so a refreshed token keeps them.
     * auth_resource: this server's URL as clients reach it (its canonical
     * URI, https://host/mcp), required. Not with authorize
     * (MCP_ERR_INVALID_ARG). Strings copied.
     *
     * The key set. auth_jwks, when set, is the text of the authorization
     * server's JWKS document, read once: nothing is fetched, and a token
     * whose key the set lacks is refused. When NULL, the key set is the
     * authorization server's own: its metadata is found at auth_issuer's
     * well-known URLs (RFC 8414's oauth-authorization-server, then OpenID
     * Connect's openid-configuration, the issuer's path inserted, then
     * appended: the client's order), used only when its "issuer" is
     * auth_issuer byte for byte, and the key set fetched from its
     * jwks_uri (https, or http only on a loopback host; auth_issuer
     * likewise). Each document is one GET, never redirected, within 10 s
     * (a whole fetch within 20 s), at most 64 KiB of metadata and 256 KiB
     * of keys. That first fetch is made by mcp_server_listen_http itself,
     * on its thread, which waits for it: a server that cannot get its keys
     * does not start (it would refuse every request), and says why in its
     * log; an application that prefers to wait for the authorization
     * server calls listen again later. Later fetches run on the worker
     * pool, never on the loop thread, and replace the set between two
     * requests: when a token names a key id the set lacks (the request is
     * refused 401 invalid_token all the same; its client's retry finds the
     * new key), at most once per auth_jwks_refetch_s seconds (0: 30; one
     * asked for sooner is made when the interval ends) so a flood of
     * made-up key ids costs the authorization server one fetch per
     * interval; and every hour. A later fetch that fails keeps the
     * keys held (logged as a warning) and is tried again after
     * auth_jwks_refetch_s. */
    const char *auth_issuer, *auth_resource, *auth_audience, *auth_jwks;
    const char *const *auth_scopes;
    unsigned auth_jwks_refetch_s;
    /* Token introspection (RFC 7662) instead of JWT validation, for
     * authorization servers whose access tokens are opaque: with
     * auth_introspection_url set (https, or http on a loopback host; with
     * auth_issuer and auth_resource, not with auth_jwks), a token not known
     * yet is POSTed there (token, token_type_hint=access_token), this
     * server authenticating as auth_client_id with auth_client_secret
     * (HTTP Basic, both form-encoded first: RFC 6749 section 2.3.1; both
     * required), one POST within 10 s, at most 64 KiB of answer, never
     * redirected. The answer must say active true, a sub (username, a
     * display name, is not taken for one) and an aud holding this server's
     * audience (absent: refused), and, when present, iss auth_issuer and
     * exp not past and nbf not ahead (60 s of skew); the scopes are
     * checked as for a JWT.
     * The request waits, its connection parked, while the worker pool asks
     * (the loop never blocks); requests with the same token share one
     * question. An active token is remembered for
     * auth_introspection_ttl_s seconds (0: 60), never past its exp; an
     * inactive one for 10 s, so a flood of made-up tokens costs the
     * authorization server one question each per 10 s. A revoked token is
     * therefore honoured up to auth_introspection_ttl_s longer: the price
     * of not asking on every request. At most 16 distinct tokens are asked
     * about at once, 256 requests wait and 16 MiB of their bodies are held
     * (read before the token is known, unlike a JWT's requests); beyond,
     * 503 with Retry-After.
     * An authorization server that fails to answer (no answer, not 200,
     * not JSON) gets the waiting requests 503 with Retry-After: 5 and a
     * warning in the log; nothing is remembered of it. Strings copied. */
    const char *auth_introspection_url, *auth_client_id, *auth_client_secret;
    unsigned auth_introspection_ttl_s;
} mcp_server_http_options;

/*
 * mcp_server_listen_http: serve Streamable HTTP on opts->host:port, from the
 * next (or the running) mcp_server_run, until mcp_server_stop; loop thread
 * (the thread that runs the server). All three revisions on one endpoint:
 * an `initialize` POST opens a 2025 session (`Mcp-Session-Id`, GET stream,
 * DELETE; a dropped connection is not a cancel there: a posted
 * notifications/cancelled is, for that session's requests only; a
 * 2025-03-26 session may POST a JSON-RPC batch, answered with one array,
 * which is 400 for any other revision); a POST
 * carrying the 2026-07-28 envelope is served statelessly, its headers
 * checked against its body (400, -32020), and a client that closes the
 * connection cancels the call (token reason "client disconnected"). The
 * strings of opts are copied. MCP_OK; MCP_ERR_INVALID_ARG (bad size, a host
 * that is not a numeric address, a port over 65535, half a TLS pair;
 * auth_issuer without auth_resource, with an auth_jwks that has no usable
 * key, with authorize, or an auth_issuer to fetch from that is not https;
 * auth_introspection_url not secure, without auth_issuer, auth_client_id
 * or auth_client_secret, or with auth_jwks: logged with the reason); MCP_ERR_IO (cannot bind; without auth_jwks, the
 * authorization server's metadata or key set could not be had or used:
 * logged with the reason); MCP_ERR_STATE (already listening; or without
 * auth_jwks while the server runs, as the first fetch would block the
 * loop); MCP_ERR_NOMEM. Without auth_jwks (and without introspection) it
 * blocks until the key set is fetched (at most 20 s).
 */
MCP_EXTERN int mcp_server_listen_http(mcp_server *s, const mcp_server_http_options *opts);

/* The port mcp_server_listen_http bound (useful with port 0), or 0 when not
 * listening. Loop thread. */
MCP_EXTERN unsigned mcp_server_http_port(const mcp_server *s);

/* mcp_server_run: serve every attached connection until all have ended (and
 * their handlers returned or the grace passed), or until mcp_server_stop;
 * with none attached and no HTTP listener it returns at once; with a
 * listener it serves until mcp_server_stop. MCP_OK, MCP_ERR_STATE (already
 * running), MCP_ERR_IO or MCP_ERR_NOMEM (the loop or worker pool could not
 * be made). */
MCP_EXTERN int mcp_server_run(mcp_server *s);

/* mcp_server_stop: end serving gracefully: subscriptions get their closing
 * result ("server shutting down"), calls in flight are cancelled (token
 * reason "server shutting down"; what they asked the client is cancelled
 * on the wire with it), HTTP streams end after what they hold, the run
 * returns once handlers are done and replies written (or the grace
 * passed). A stop while not serving makes the next run stop as
 * soon as it starts. Any thread, async-signal-unsafe. */
MCP_EXTERN void mcp_server_stop(mcp_server *s);

/* mcp_server_free: free the server (not while serving; once). While
 * handlers abandoned after the shutdown grace are still running it returns
 * at once and the last of them to return frees the server on its own
 * thread, log and trace callbacks included: their user_data must live
 * until then (a process that exits need not wait). s is not to be used
 * after this call in either case. NULL is a no-op. */
MCP_EXTERN void mcp_server_free(mcp_server *s);

/* ------------------------------------------------------------------------ */
/* Inside a call (any thread, until the call is ended)                      */

/* The tool's or prompt's name, or the resource's URI (a template's read:
 * its template); borrowed from the call. */
MCP_EXTERN const char *mcp_call_tool_name(const mcp_call *c);

/* The request the call answers: "tools/call", "resources/read",
 * "prompts/get" or "completion/complete"; a string literal. */
MCP_EXTERN const char *mcp_call_method(const mcp_call *c);

/* resources/read: the URI asked for (UTF-8); borrowed from the call. NULL
 * for the other methods. */
MCP_EXTERN const char *mcp_call_uri(const mcp_call *c);

/* The arguments object ({} when the client sent none); borrowed from the
 * call. Read with the mcp_json_* readers. */
MCP_EXTERN const mcp_json *mcp_call_arguments(const mcp_call *c);

/* The protocol revision the call is served under ("2026-07-28",
 * "2025-11-25", ...); a string literal. */
MCP_EXTERN const char *mcp_call_protocol_version(const mcp_call *c);

/* The call's cancel token; borrowed from the call. */
MCP_EXTERN mcp_cancel_token *mcp_call_cancel_token(mcp_call *c);

/* Shorthand for mcp_cancel_token_is_cancelled(mcp_call_cancel_token(c)). */
MCP_EXTERN bool mcp_call_is_cancelled(const mcp_call *c);

/*
 * mcp_call_progress: report progress (total NAN: unknown; message may be
 * NULL). Sent only when the client asked for progress, only for values
 * greater than the last one, never after the call is cancelled. Not after
 * the call was ended (the pointer is invalid then). Report a call's
 * progress from one thread at a time.
 * Returns MCP_OK (sent, or queued for the loop thread), MCP_ERR_CANCELLED,
 * MCP_ERR_STATE (the client asked for no progress), MCP_ERR_INVALID_ARG
 * (not increasing, not finite, or a message that is not UTF-8) or
 * MCP_ERR_NOMEM.
 */
MCP_EXTERN int mcp_call_progress(mcp_call *c, double progress, double total,
                                 const char *message);

/*
 * mcp_call_send_log: send the client a log message about this call
 * (notifications/message, logger = the tool's name, data = text), on the
 * call's own stream before its answer, when the client wants that level
 * (2026-07-28: io.modelcontextprotocol/logLevel on the request; legacy:
 * logging/setLevel). Returns MCP_OK (sent, queued, or not wanted by the
 * client: nothing sent), MCP_ERR_CANCELLED, MCP_ERR_INVALID_ARG (a level outside
 * MCP_LOG_DEBUG..MCP_LOG_EMERGENCY, text NULL or not UTF-8) or MCP_ERR_NOMEM. Not after the call was ended
 * (the pointer is invalid then).
 */
MCP_EXTERN int mcp_call_send_log(mcp_call *c, mcp_log_level level, const char *text);

/* Log through the server's log hook, tagged with the call's tool. */
MCP_EXTERN void mcp_call_log(mcp_call *c, mcp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Ending a call. Each ends the call; the pointer is invalid afterwards (a
 * second ending is undefined, except inside a blocking handler before it
 * returns, where it gives MCP_ERR_STATE). Returns MCP_OK when the answer,
 * or the -32603 that replaces it when memory ran out off the loop thread,
 * was sent or queued; MCP_ERR_CANCELLED when the call was cancelled or the
 * server's run has ended (nothing sent; mcp_call_finish returns MCP_OK for
 * a cancelled call while the run goes on); or, with the call still ended
 * and the client given -32603: MCP_ERR_INVALID_ARG (a result that is not an
 * object, text or message NULL or not UTF-8), MCP_ERR_LIMIT (the answer
 * over the 64 MiB cap: "Internal error: the result is too large") or
 * MCP_ERR_NOMEM (off the loop thread, if even the -32603 cannot be made,
 * nothing is sent and the client's timeout ends the call).
 *
 * - reply_text: {"content":[{"type":"text","text":...}]}; reply_text_n
 *   takes the text with its length, so it may contain NUL characters
 * - reply_tool_error: the same with "isError": true (a tool execution error
 *   the model can act on)
 * - reply_structured: {"content":[{"type":"text","text":<the object as JSON>}],
 *   "structuredContent":<the object>}: structured content, with the
 *   serialized copy the spec asks for beside it (object borrowed)
 * - reply_result: a complete CallToolResult object, borrowed for the call
 * - reply_error: a JSON-RPC error response (protocol errors)
 * - reply_error_data: the same with data (any JSON value, borrowed for the
 *   call; NULL: none). MCP_WIRE_URL_ELICITATION_REQUIRED (-32042, only
 *   under 2025-11-25) must carry {"elicitations": [...]}, each a whole URL
 *   mode elicitation (mode "url", message, url, elicitationId): the call
 *   ends -32603 and MCP_ERR_INVALID_ARG is returned otherwise. Their ids
 *   are then the client's to be told of (mcp_server_elicitation_complete)
 * - finish: end without an answer: for a cancelled call; otherwise the
 *   client gets -32603 "Internal error: the handler ended without a result"
 */
MCP_EXTERN int mcp_call_reply_text(mcp_call *c, const char *text);
MCP_EXTERN int mcp_call_reply_text_n(mcp_call *c, const char *text, size_t len);
MCP_EXTERN int mcp_call_reply_tool_error(mcp_call *c, const char *text);
MCP_EXTERN int mcp_call_reply_structured(mcp_call *c, const mcp_json *structured);
MCP_EXTERN int mcp_call_reply_result(mcp_call *c, const mcp_json *result);
MCP_EXTERN int mcp_call_reply_error(mcp_call *c, int64_t code, const char *message);
MCP_EXTERN int mcp_call_reply_error_data(mcp_call *c, int64_t code, const char *message,
                                         const mcp_json *data);
MCP_EXTERN int mcp_call_finish(mcp_call *c);

/*
 * Answers of the other requests, ending the call as above.
 * - reply_result (above) takes each one's whole result object, checked for
 *   its shape: resources/read {"contents":[...]} (each with uri and text
 *   or blob), prompts/get {"messages":[...]}, completion/complete
 *   {"completion":{"values":[...]}}; a result of the wrong shape is
 *   answered -32603 and MCP_ERR_INVALID_ARG returned. Under 2026-07-28 a
 *   resources/read result without ttlMs gets the server's caching hints.
 * - reply_resource_text: one text content for the URI read (text_len
 *   bytes, UTF-8); mime_type may be NULL.
 * - reply_resource_blob: one binary content, sent as Base64.
 * - reply_resource_not_found: the revision's not-found error for the URI
 *   read (a template matched, but nothing is there).
 * - reply_completion: up to 100 values (more are cut, and hasMore set);
 *   total: how many there are in all, or -1 when unknown.
 * Each returns MCP_ERR_STATE, ending nothing, when the call is not the
 * request it answers (reply_completion in a tool call, say).
 */
MCP_EXTERN int mcp_call_reply_resource_text(mcp_call *c, const char *mime_type, const char *text,
                                            size_t text_len);
MCP_EXTERN int mcp_call_reply_resource_blob(mcp_call *c, const char *mime_type, const void *data,
                                            size_t len);
MCP_EXTERN int mcp_call_reply_resource_not_found(mcp_call *c);
MCP_EXTERN int mcp_call_reply_completion(mcp_call *c, const char *const *values, size_t count,
                                         int64_t total, bool has_more);

/* ------------------------------------------------------------------------ */
/* Asking the client, inside a call                                          */

/* The client's answer to mcp_call_ask. Filled in the caller's memory: set
 * size (common.h; the first version has every field below). */
typedef struct mcp_ask_answer {
    size_t size;          /* sizeof(mcp_ask_answer), set by the caller */
    mcp_json_doc *result; /* MCP_OK: the result object (the root); owned */
    int64_t error_code;   /* MCP_ERR_REMOTE: the client's JSON-RPC error */
    char *error_message;  /* MCP_ERR_REMOTE: owned, NUL-terminated */
} mcp_ask_answer;

/*
 * mcp_call_ask: ask the client something the call needs, and wait for the
 * answer: method is "sampling/createMessage", "elicitation/create" or
 * "roots/list", params that request's params (an object, borrowed; NULL
 * for roots/list). timeout_ms: how long the answer may take (0: no limit;
 * the call's own cancel still ends the wait: a person filling a form may
 * take long). key names the question under 2026-07-28 (the key of
 * inputRequests, 1 to 64 bytes of [A-Za-z0-9_.-]; NULL: "q1", "q2", ... in
 * the order asked); unused under 2025. Blocks: call it from a blocking
 * handler (MCP_TOOL_BLOCKING) or any thread but the loop thread. The
 * handler's code is the same in both eras:
 *
 *   rc = mcp_call_ask(c, "name", "elicitation/create", params, 0, &a);
 *   if (rc == MCP_ERR_INPUT_REQUIRED || rc == MCP_ERR_CANCELLED)
 *       return (void)mcp_call_finish(c);
 *
 * Under the 2025 revisions it is a request of the server's, sent on the
 * call's route (over HTTP, on the call's own event stream). When the call
 * is cancelled meanwhile (the client's cancel, the session's end, a stop)
 * the request is cancelled on the wire too, with the call's reason, so the
 * client's handler sees its own cancel, and this returns
 * MCP_ERR_CANCELLED. A timeout cancels the request the same way.
 *
 * Under 2026-07-28 (basic/patterns/mrtr.mdx) the server sends no request:
 * an answer the client already gave (in the request's inputResponses, or
 * an earlier round's, carried in requestState) is returned at once; else
 * the question is noted and MCP_ERR_INPUT_REQUIRED returned. Ask the
 * call's other questions too, then end it with mcp_call_finish: the client
 * gets an InputRequiredResult with every question noted and a requestState
 * (the answers so far, which request they belong to and an expiry, under
 * an HMAC-SHA256 of the server's key), answers, and retries; the handler
 * then runs again from the start and finds the answers. So a handler must
 * be repeatable up to its last question: resources/read, prompts/get and
 * tools/call may ask. A requestState that fails its check (tampered,
 * expired, another request's) is refused with -32602 before the handler
 * runs. In a call that runs as a task (the io.modelcontextprotocol/tasks
 * extension) there are no rounds: the question waits in the task, which
 * is input_required while any does (tasks/get lists them under
 * inputRequests by key), until the client answers it with tasks/update
 * (or timeout_ms passes: MCP_ERR_TIMED_OUT, the question withdrawn; a key
 * is never asked twice in a task: asking a withdrawn key again is
 * MCP_ERR_INVALID_ARG); an answer given before (the same key asked again,
 * or answered in a round before mcp_call_become_task) is returned at
 * once.
 *
 * The answer is checked before it is returned, in both eras: a sampling
 * answer must be a CreateMessageResult (role, content, model), a roots
 * answer a ListRootsResult, an elicitation answer must have an action of
 * accept, decline or cancel, and an accepted form (mode "form") content
 * that satisfies params.requestedSchema (client/elicitation.mdx: servers
 * SHOULD validate): else MCP_ERR_PROTOCOL or MCP_ERR_SCHEMA_MISMATCH, with
 * answer->error_message saying what was wrong. Under 2026-07-28 the next
 * requestState keeps only the answers the handler took.
 *
 * Returns MCP_OK (answer->result set), MCP_ERR_REMOTE (answer->error_*
 * set), MCP_ERR_PROTOCOL or MCP_ERR_SCHEMA_MISMATCH (answer->error_message
 * set), MCP_ERR_INPUT_REQUIRED, MCP_ERR_CANCELLED, MCP_ERR_TIMED_OUT,
 * MCP_ERR_CLOSED (the connection ended), MCP_ERR_BUSY (nothing asked: 64
 * calls of this connection, or 240 of the whole server, wait on their
 * clients already; a waiting call does not hold a worker thread, an extra
 * one stands in), MCP_ERR_STATE (the client did not
 * declare the capability the method needs: sampling, elicitation (with url
 * for an elicitation of mode "url") or roots; elicitation of a client older
 * than 2025-06-18, URL mode of one older than 2025-11-25; called on the
 * loop thread; or in completion/complete), MCP_ERR_INVALID_ARG (another
 * method; params not an object; a bad key; a requestedSchema that is no
 * valid schema; a mode other than form or url; URL mode without a message,
 * a url that mcp_elicitation_url_host takes (scheme://host..., no spaces
 * or controls: what the client requires) and, under 2025-11-25, an
 * elicitationId of 1 to 256 bytes) or MCP_ERR_NOMEM. A URL mode
 * elicitationId is kept for mcp_server_elicitation_complete. answer's
 * size is set by the caller (common.h): answer NULL or of a bad size is
 * MCP_ERR_INVALID_ARG with nothing written; otherwise answer is zeroed
 * first (its size kept): release it with mcp_ask_answer_release whatever
 * the outcome. Not after
 * the call was ended; one thread per call at a time.
 */
MCP_EXTERN int mcp_call_ask(mcp_call *c, const char *key, const char *method,
                            const mcp_json *params, uint64_t timeout_ms, mcp_ask_answer *answer);

/*
 * mcp_call_become_task: from here on, the call of a MCP_TOOL_TASK_DEFERRED
 * tool is a task (2026-07-28, the io.modelcontextprotocol/tasks extension):
 * its request is answered CreateTaskResult now, and what the handler
 * answers afterwards is the task's result (tasks/get). Typically after the
 * handler's questions were answered through input-required rounds:
 *
 *   rc = mcp_call_ask(c, "user_name", "elicitation/create", params, 0, &a);
 *   if (rc == MCP_ERR_INPUT_REQUIRED || rc == MCP_ERR_CANCELLED)
 *       return (void)mcp_call_finish(c);
 *   mcp_call_become_task(c);   (then the long work, then the reply)
 *
 * Any thread (from a worker it waits for the loop). Returns MCP_OK (a task
 * now, or one already: a 2025-11-25 task-augmented call); MCP_ERR_STATE
 * when the call does not become a task and goes on as a plain call: not
 * tools/call under 2026-07-28, a tool whose task_support is FORBIDDEN, a
 * request that did not declare the extension, a question of this round
 * still unanswered (mcp_call_ask returned MCP_ERR_INPUT_REQUIRED), or the
 * call was ended; MCP_ERR_BUSY (the server's task caps are reached: a
 * plain call too); MCP_ERR_CANCELLED (the call was cancelled, or its
 * CreateTaskResult could not be sent: stop); MCP_ERR_NOMEM;
 * MCP_ERR_INVALID_ARG (c NULL); MCP_ERR_CLOSED (the server stopped).
 * One thread per call at a time, as every mcp_call function.
 */
MCP_EXTERN int mcp_call_become_task(mcp_call *c);

/* One question of mcp_call_ask_all: as mcp_call_ask's key, method and
 * params (borrowed for the call). */
typedef struct mcp_ask_question {
    const char *key;
    const char *method;
    const mcp_json *params;
} mcp_ask_question;

/*
 * mcp_call_ask_all: ask count questions (1 to 64) at once and wait for
 * every answer: under 2025 the requests go out together; in a 2026-07-28
 * task they wait in the task together (inputRequests lists them all, the
 * client may answer some now and the rest later); in a 2026-07-28 round
 * they are noted together. Each is what mcp_call_ask would make of it:
 * outcomes[i] its return, answers[i] its answer (each answers[i].size
 * set to sizeof(mcp_ask_answer) by the caller; release each). timeout_ms
 * counts for all from the call. Returns MCP_OK when every outcome is,
 * else MCP_ERR_CANCELLED when one is, else MCP_ERR_INPUT_REQUIRED when one
 * is, else the first outcome that is not MCP_OK; MCP_ERR_INVALID_ARG with
 * nothing asked or written when answers or outcomes is NULL, an answer's
 * size is not sizeof(mcp_ask_answer), or count is 0 or over 64. Threads
 * and limits as mcp_call_ask (the 64 a connection's calls may keep
 * waiting count questions).
 */
MCP_EXTERN int mcp_call_ask_all(mcp_call *c, const mcp_ask_question *questions, size_t count,
                                uint64_t timeout_ms, mcp_ask_answer *answers, int *outcomes);

/* Free what an answer holds and zero it, keeping its size. NULL, or an
 * answer of a size mcp_call_ask refuses, is a no-op. Any thread (it
 * touches no call). */
MCP_EXTERN void mcp_ask_answer_release(mcp_ask_answer *answer);

#ifdef __cplusplus
}
#endif
#endif /* MCP_SERVER_H */
