/* SPDX-License-Identifier: MIT */
/* A Task on the wire (2025-11-25 tasks.mdx; the 2026-07-28 extension's
 * names), for whichever role receives task-augmented requests: the server
 * (src/server/tasks/) and the client hosting its questions as tasks
 * (src/client/task_receiver.c). Any thread: nothing here keeps state, reads
 * a clock or makes an id (mcp__wall_ms, mcp__random_hex: the runtime's). */
#ifndef MCP_SESSION_TASK_WIRE_H
#define MCP_SESSION_TASK_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "json/writer.h"

#define MCP__RELATED_TASK "io.modelcontextprotocol/related-task"
/* The 2026-07-28 tasks extension's name (ext-tasks). */
#define MCP__TASKS_EXTENSION "io.modelcontextprotocol/tasks"
/* 128 random bits, as hex. */
#define MCP__TASK_ID_LEN 32

typedef enum {
    MCP__TASK_WORKING,
    MCP__TASK_INPUT_REQUIRED,
    MCP__TASK_COMPLETED,
    MCP__TASK_FAILED,
    MCP__TASK_CANCELLED
} mcp__task_status;

static inline bool mcp__task_terminal(mcp__task_status s)
{
    return s == MCP__TASK_COMPLETED || s == MCP__TASK_FAILED || s == MCP__TASK_CANCELLED;
}
const char *mcp__task_status_name(mcp__task_status s);

/* What a Task object says. */
typedef struct mcp__task_view {
    const char *id;
    mcp__task_status status;
    const char *status_message; /* NULL: none */
    int64_t created_ms, updated_ms; /* wall clock */
    uint64_t ttl_ms, poll_ms;
    bool modern; /* the extension's names: ttlMs, pollIntervalMs */
} mcp__task_view;

/* The Task object's members (taskId, status, ...) written by w. */
void mcp__task_write(mcp__jw *w, const mcp__task_view *v);
/* result (len bytes of a result object) as tasks/result gives it: its
 * members, with _meta naming task id (io.modelcontextprotocol/related-task:
 * tasks.mdx MUST), in out. MCP_OK, or a parse or buffer error. */
int mcp__task_result_with_meta(const char *result, size_t len, const char *id, mcp_buf *out);

#endif
