/* SPDX-License-Identifier: MIT */
/* Receiving a message its caller has decoded already, for the layers above
 * the engine that must read a message before they know which session it
 * goes to (the HTTP server routes a POST by its body): the bytes are parsed
 * once. */
#ifndef MCP_SESSION_RECEIVE_H
#define MCP_SESSION_RECEIVE_H

#include <stdint.h>

#include "mcp/session.h"

/* What mcp_session_receive does with bytes that decode (mcp_message_decode,
 * under the session's own limits: its max_message, the default depth and
 * duplicate policy) to m without error: a request, notification or
 * response, never a batch. The session takes references of m as it needs
 * them; the caller keeps its own. MCP_OK, or MCP_ERR_STATE when closed. */
int mcp__session_receive_message(mcp_session *s, uint64_t now, uint64_t route,
                                 mcp_message *m);

#endif
