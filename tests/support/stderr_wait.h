/* SPDX-License-Identifier: MIT */
/* Waiting on what a spawned server writes to stderr (capture_stderr). */
#ifndef MCP_TEST_STDERR_WAIT_H
#define MCP_TEST_STDERR_WAIT_H

#include <stdbool.h>

#include "mcp/client.h"

/* Drive c until the server's captured stderr contains needle: true, or
 * false after about timeout_ms (the stderr is then printed, to explain a
 * failing test). Loop thread of c. */
bool server_stderr_says(mcp_client *c, const char *needle, int timeout_ms);

#endif
