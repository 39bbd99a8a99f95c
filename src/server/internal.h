/* SPDX-License-Identifier: MIT */
/* Server internals, shared by the files of src/server. */
#ifndef MCP_SERVER_INTERNAL_H
#define MCP_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

#include "core/map.h"
#include "mcp/schema.h"
#include "mcp/server.h"
#include "runtime/driver.h"
#include "runtime/internal.h"
#include "runtime/log.h"
#include "transport/transport.h"

/* The Streamable HTTP listener (http.c). */
typedef struct http_listener http_listener;

/* registry.c --------------------------------------------------------------- */

/* A registered tool: immutable once built, shared by the snapshots that
 * list it and the calls that run it. */
typedef struct tool {
    atomic_uint refs;
    char *name, *title, *description;
    mcp_json_doc *input_schema, *output_schema, *required_caps;
    mcp_schema *input_check, *output_check; /* compiled once */
    mcp_tool_fn handler;
    void *user_data;
    unsigned flags;
} tool;

/* What the server offers at one moment: an immutable snapshot, shared
 * read-only by every connection and kept by each request that started
 * with it. The tools/list answers are serialized once per snapshot. */
typedef struct registry {
    atomic_uint refs;
    tool **tools;
    size_t ntools;
    char *list_legacy; /* the tools/list result of a legacy revision */
    size_t list_legacy_len;
    char *list_modern; /* of 2026-07-28: with the caching hints */
    size_t list_modern_len;
} registry;

int mcp__tool_new(const mcp_tool *spec, tool **out);
void mcp__tool_unref(tool *t);

/* A snapshot of n tools (each gains a reference), serialized. NULL when
 * out of memory. */
registry *mcp__registry_build(tool *const *tools, size_t n, uint64_t ttl_ms,
                              mcp_cache_scope scope);
void mcp__registry_ref(registry *r);
void mcp__registry_unref(registry *r);
const tool *mcp__registry_find(const registry *r, const char *name, size_t len);

/* request.c ---------------------------------------------------------------- */

typedef struct conn conn;

/* An inbound request being handled: refcounted, answerable from any thread.
 * Two references while it runs: the connection's, dropped on the loop thread
 * when the request settles (answered or cancelled), and the handler's,
 * dropped when the handler ends it. Answers from other threads are posted to
 * the loop, where a settled request drops them: "nothing after a cancel"
 * holds whatever the handler does. */
typedef struct mcp__request {
    mcp__job job;      /* first: a pool job is a request */
    atomic_uint refs;
    atomic_bool ended; /* the handler ended it */
    conn *conn;        /* a reference on the connection */
    mcp_handle handle;
    mcp_message *msg;  /* one reference */
    registry *snapshot; /* the registry it started with */
    const char *version; /* the revision it is served under (a literal) */
    mcp_cancel_token *token;
    bool settled;      /* loop thread: answered or cancelled */
    void (*destroy)(struct mcp__request *r); /* frees what embeds it */
} mcp__request;

typedef enum { ANSWER_RESULT, ANSWER_ERROR, ANSWER_NONE } answer_kind;

/* Loop thread: register r (refs 2) with its connection. MCP_OK or
 * MCP_ERR_NOMEM (r untouched). */
int mcp__request_start(mcp__request *r, conn *c, mcp_handle h, const mcp_message *msg,
                       registry *snapshot);
/* Any thread: end the request with an answer (a result's JSON text, or an
 * error message), copied when it must travel to the loop. MCP_OK,
 * MCP_ERR_CANCELLED, MCP_ERR_STATE (ended before), MCP_ERR_NOMEM. */
int mcp__request_end(mcp__request *r, answer_kind kind, int64_t code, const char *text,
                     size_t len);
/* Any thread: progress and log messages for the request, before it ends. */
int mcp__request_progress(mcp__request *r, double progress, double total,
                          const char *message);
int mcp__request_log(mcp__request *r, mcp_logging_level level, const char *logger,
                     const char *text);
void mcp__request_ref(mcp__request *r);
void mcp__request_unref(mcp__request *r);
/* Loop thread: the session cancelled request h of c. */
void mcp__request_cancelled(conn *c, mcp_handle h, const char *reason);

/* tools.c ------------------------------------------------------------------ */

void mcp__tools_list(conn *c, mcp_handle h, const mcp_message *msg);
void mcp__tools_call(conn *c, mcp_handle h, const mcp_message *msg);

/* conn.c ------------------------------------------------------------------- */

/* One client: its session (in the driver), its requests, its transport. */
struct conn {
    mcp_server *server;
    mcp__driver driver;
    conn *next, *prev; /* the server's connections */
    mcp__map requests; /* handle -> mcp__request, loop thread */
    atomic_uint refs;  /* the server's, and one per request */
    bool down;         /* the transport went: draining, then released */
    bool released;
    uint64_t drain_deadline; /* for its handlers */
    /* The output drains as long as the client reads: given up after the
     * grace without progress. */
    size_t last_unwritten;
    uint64_t last_progress;
};

int mcp__conn_open(mcp_server *s, mcp__transport *t, conn **out);
/* Loop thread: end every connection's conversation (stop) and release
 * those drained. */
void mcp__conn_end(conn *c, const char *why);
void mcp__conn_ref(conn *c);
void mcp__conn_unref(conn *c);
/* Loop thread: release the connections that are down and drained (or past
 * their grace). True when none remain. */
bool mcp__conns_sweep(mcp_server *s, bool force);

/* server.c ----------------------------------------------------------------- */

struct mcp_server {
    mcp_server_options opts; /* strings below are our copies */
    mcp_mem mem;             /* the C library allocator, for internal tables */
    char *name, *version, *instructions;
    mcp__stderr_logger default_logger;
    mcp_json_doc *caps;      /* our capabilities */

    pthread_mutex_t mu;      /* guards tools, ntools and current */
    tool **tools;            /* as registered */
    size_t ntools, tools_cap;
    registry *current;       /* the snapshot served now (NULL: build it) */

    atomic_bool loop_open;   /* the loop and the poster exist */
    bool running;
    uv_loop_t loop;
    mcp__pool *pool;
    mcp__pool *abandoned_pool; /* workers still running abandoned handlers */
    mcp__poster poster;
    uv_timer_t sweep_timer;  /* drains connections that went down */
    conn *conns;
    size_t nconns;
    http_listener *http;     /* NULL unless listening */
    atomic_size_t live;      /* requests not yet freed */
    atomic_bool stop_asked;
    bool stopping;
    bool io_failed; /* a connection's reading or writing failed, or replies
                       were left unwritten (mcp_server_serve_fds reports it) */
    uint64_t stop_deadline;
    mcp_json_doc *empty_args; /* {} for calls without arguments */
};

/* http.c: Loop thread: end every 2025 session and close the listener. */
void mcp__http_listener_stop(http_listener *l);

void mcp__server_log(mcp_server *s, mcp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mcp__server_log_record(mcp_server *s, const mcp_log_record *r);
/* The snapshot to serve a new request with, referenced. */
registry *mcp__server_snapshot(mcp_server *s);
/* Loop thread: open the loop, pool and poster (once). */
int mcp__server_open_loop(mcp_server *s);
/* Loop thread: serve a connection over t (taken over). */
int mcp__server_attach(mcp_server *s, mcp__transport *t);
/* Any thread: send r to the loop thread; false once the loop is gone. */
bool mcp__server_post(mcp_server *s, mcp__post *p);

#endif
