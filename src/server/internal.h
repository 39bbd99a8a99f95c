/* Server internals, shared by the files of src/server. */
#ifndef MCP_SERVER_INTERNAL_H
#define MCP_SERVER_INTERNAL_H

#include <stdatomic.h>
#include <uv.h>

#include "core/u64map.h"
#include "mcp/server.h"
#include "runtime/internal.h"
#include "runtime/log.h"
#include "transport/conn.h"

typedef struct tool {
    char *name, *title, *description;
    mcp_json_doc *input_schema, *output_schema;
    mcp_tool_fn handler;
    void *user_data;
    unsigned flags;
} tool;

struct mcp_call {
    mcp__job job;           /* first: a pool job is a call */
    atomic_uint refs;       /* the server's (until settled) + the handler's */
    atomic_bool ended;      /* the handler ended the call */
    mcp_server *server;
    mcp_handle handle;
    mcp_message *msg;       /* one reference */
    const mcp_json *args;
    const tool *tool;
    mcp_cancel_token *token;
    double last_progress;
    bool sent_progress;
    bool settled;           /* loop thread: answered or cancelled */
};

struct mcp_server {
    mcp_server_options opts; /* strings below are our copies */
    mcp_mem mem;             /* the C library allocator, for internal tables */
    char *name, *version, *instructions;
    mcp__stderr_logger default_logger;

    tool *tools;
    size_t ntools, tools_cap;
    char *tools_list; /* serialized tools/list result */
    mcp_json_doc *empty_args; /* {} for calls without arguments */
    size_t tools_list_len;

    bool serving;
    bool timers_started;
    uv_loop_t loop;
    mcp__conn *conn;
    mcp_session *session;
    mcp__pool *pool;
    mcp__pool *abandoned_pool; /* workers still running abandoned handlers */
    mcp__poster poster;
    uv_timer_t session_timer, shutdown_timer;
    mcp__u64map calls; /* handle -> call, loop thread only */
    atomic_size_t live_calls; /* calls not yet freed */
    bool input_ended;
    uint64_t shutdown_deadline;
};

/* tools.c */
const tool *mcp__server_find_tool(const mcp_server *s, const char *name, size_t len);
int mcp__server_build_tools_list(mcp_server *s);
void mcp__server_free_tools(mcp_server *s);

/* call.c */
void mcp__server_tools_call(mcp_server *s, mcp_handle h, const mcp_message *msg);
void mcp__server_call_cancelled(mcp_server *s, mcp_handle h, const char *reason);
void mcp__server_calls_free(mcp_server *s);

/* server.c */
void mcp__server_log(mcp_server *s, mcp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mcp__server_rearm(mcp_server *s);

#endif
