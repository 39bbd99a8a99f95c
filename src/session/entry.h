/* SPDX-License-Identifier: MIT */
/* Entry points of the engine for the layers above it that run many short
 * sessions (the HTTP server: a session per 2026-07-28 request): a message
 * decoded once, by whoever had to read it first, and a session used again
 * rather than made anew. Loop thread, as the rest of the session. */
#ifndef MCP_SESSION_ENTRY_H
#define MCP_SESSION_ENTRY_H

#include <stdint.h>

#include "mcp/session.h"

/* What mcp_session_receive does with bytes that decode (mcp_message_decode,
 * under the session's own limits: its max_message, the default depth and
 * duplicate policy) to m without error: a request, notification or
 * response, never a batch. The session takes references of m as it needs
 * them; the caller keeps its own. MCP_OK, or MCP_ERR_STATE when closed. */
int mcp__session_receive_message(mcp_session *s, uint64_t now, uint64_t route,
                                 mcp_message *m);

/* mcp_session_reply_raw for a result the caller wrote itself as one
 * object with no whitespace and neither "_meta" nor "resultType" among its
 * members: under 2026-07-28 its members are copied without being read for
 * those two (a result is merged with the revision's own). Same returns. */
int mcp__session_reply_plain(mcp_session *s, mcp_handle h, const char *json, size_t len);

/* A 2025-11-25 task's progress and log messages, once its request was
 * answered (CreateTaskResult): notifications on the session's own route
 * (stdio: the connection; HTTP: the session's GET stream), with the task
 * named in _meta (io.modelcontextprotocol/related-task). Progress needs the
 * request's progressToken (else MCP_ERR_STATE); a log message is sent only
 * at or above the level the client set (else MCP_ERR_STATE). MCP_OK,
 * MCP_ERR_INVALID_ARG (not encodable), MCP_ERR_CLOSED (the write closed
 * the session), MCP_ERR_STATE (closed), MCP_ERR_LIMIT, MCP_ERR_NOMEM. */
int mcp__session_task_progress(mcp_session *s, const mcp_json *token, double progress,
                               double total, const char *message, const char *task_id);
/* The level a log level's name (a JSON string: "debug" .. "emergency")
 * names, or -1 when v names none. Any thread: it only reads v. */
int mcp__log_level_parse(const mcp_json *v);
int mcp__session_task_log(mcp_session *s, mcp_log_level level, const char *logger,
                          const mcp_json *data, const char *task_id);

/* The server's peer is known by nothing but this session (2025 over HTTP
 * without credentials): its initialize declares no tasks.list
 * (tasks.mdx: receivers that cannot identify requestors SHOULD NOT).
 * Before initialize is answered; reset clears it. */
void mcp__session_set_anonymous(mcp_session *s);
bool mcp__session_anonymous(const mcp_session *s);

/* Whether s holds any listen (subscriptions/listen) open: a change only
 * listens hear need not be written for a session that holds none. */
bool mcp__session_listening(const mcp_session *s);

/* How many task calls cancelled before their task's id came wait for it,
 * to cancel the task (a client closing waits for them a while). */
size_t mcp__session_ghosts(const mcp_session *s);

/* Make a closed session that holds nothing any more as new, with the same
 * options and callbacks, keeping its memory (request tables, scratch):
 * what mcp_session_free then mcp_session_new would give, for less. Handles
 * of its past requests stay dead (their slots' generations go on). MCP_OK,
 * or MCP_ERR_STATE (nothing changed) unless it is closed, outside every
 * call into it, with no request in flight either way and no subscription. */
int mcp__session_reset(mcp_session *s);

#endif
