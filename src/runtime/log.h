/* SPDX-License-Identifier: MIT */
/* Default logging for the server and client: stderr, one write per line. */
#ifndef MCP_RUNTIME_LOG_H
#define MCP_RUNTIME_LOG_H

#include <stdarg.h>
#include <stdlib.h>

#include "mcp/session.h"

typedef struct mcp__stderr_logger {
    const char *prefix; /* e.g. "mcp serve" */
    mcp_log_level level;
} mcp__stderr_logger;

/* An mcp_log_fn; user_data is an mcp__stderr_logger. Any thread. */
void mcp__stderr_log(void *user_data, const mcp_log_record *r);

/* A record of the library's own (no id, method or age) to fn: fmt with
 * ap, cut at 512 bytes, its control characters escaped (it may quote a
 * peer's text). The thread of the caller. */
void mcp__log_vsay(mcp_log_fn fn, void *ud, mcp_log_level level, mcp_log_event event,
                   const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* MCP_LOG_LEVEL=debug|info|warn|warning|error, or fallback when unset or unknown
 * (an unknown value is reported on stderr, once per process). */
mcp_log_level mcp__log_level_from_env(mcp_log_level fallback);

#endif
