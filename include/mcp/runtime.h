/* SPDX-License-Identifier: MIT */
/*
 * libmcp runtime helpers for tool authors: cancel tokens and a subprocess
 * runner that makes cancellation real.
 *
 * Every function here may be called from any thread.
 */
#ifndef MCP_RUNTIME_H
#define MCP_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A cancel token: fires once, when the peer cancels the request it belongs
 * to, or when its connection closes or the server stops (reason "connection
 * closed"). A handler gets a borrowed pointer, valid until it finishes its
 * call.
 */
typedef struct mcp_cancel_token mcp_cancel_token;

/* Whether the token has fired. Lock-free; any thread. */
MCP_EXTERN bool mcp_cancel_token_is_cancelled(const mcp_cancel_token *t);

/* The reason given with the cancel ("connection closed" when the peer went
 * away), or NULL before the token fires or when no reason was given.
 * Borrowed from the token. Any thread. */
MCP_EXTERN const char *mcp_cancel_token_reason(const mcp_cancel_token *t);

/*
 * A file descriptor that becomes readable when the token fires, for poll()
 * based code. Created on first use and owned by the token: do not read or
 * close it. Returns -1 (errno set) if it could not be created. Any thread.
 */
MCP_EXTERN int mcp_cancel_token_fd(mcp_cancel_token *t);

/*
 * Wait up to timeout_ms (MCP_WAIT_FOREVER: no limit) for the token to fire.
 * Returns true if it fired (at once if it already had), false on timeout:
 * a sleep that returns early when the call is cancelled. Any thread.
 */
#define MCP_WAIT_FOREVER UINT64_MAX
MCP_EXTERN bool mcp_cancel_token_wait(mcp_cancel_token *t, uint64_t timeout_ms);

/*
 * Register fn(user_data) to run once when the token fires, on the thread that
 * fires it (the server's loop thread), or at once on the calling thread if it
 * has already fired. No callback runs after the call was ended: ending it
 * drops those not yet run, and an ending on another thread waits for one
 * that is running, so fn must not block, nor wait for the handler's thread
 * (deadlock). user_data is kept until fn runs or the call ends. Returns
 * MCP_OK, MCP_ERR_INVALID_ARG (fn NULL), MCP_ERR_STATE (the call was already
 * ended) or MCP_ERR_NOMEM.
 */
typedef void (*mcp_cancel_fn)(void *user_data);
MCP_EXTERN int mcp_cancel_token_on_cancel(mcp_cancel_token *t, mcp_cancel_fn fn,
                                          void *user_data);

/* Milliseconds on the monotonic clock the library uses for timeouts. Any
 * thread. */
MCP_EXTERN uint64_t mcp_monotonic_ms(void);

/* ------------------------------------------------------------------------ */
/* Subprocesses that die with the call                                       */

typedef struct mcp_process_options {
    size_t size;             /* sizeof(mcp_process_options) */
    const char *const *argv; /* argv[0] is searched in PATH; NULL-terminated */
    const char *const *env;  /* NULL: inherit the environment */
    const char *cwd;         /* NULL: inherit */
    uint64_t grace_ms;       /* SIGTERM to SIGKILL; 0 means 2000 */
    mcp_buf *output;         /* capture stdout here, up to the buffer's
                                cap (see MCP_ERR_LIMIT below); NULL:
                                inherit */
    const void *input;       /* input_len bytes written to the command's
                                stdin, which then ends (a command may exit
                                without reading it all: no error, no
                                SIGPIPE). NULL: stdin is inherited */
    size_t input_len;
} mcp_process_options;

/*
 * mcp_process_run: run a command in its own process group and wait for it.
 * When `token` fires first, the whole group gets SIGTERM, then SIGKILL after
 * the grace period, and the call returns MCP_ERR_CANCELLED once the process
 * is gone. Blocks the calling thread: use it from blocking (worker pool)
 * tool handlers. token may be NULL. opts and everything it points to are
 * borrowed for the call (output is appended to; input is only read). The
 * pipes are close-on-exec: a process another thread starts meanwhile does
 * not inherit them (and cannot hold the command's stdin open). Any thread.
 *
 * Returns MCP_OK with *exit_status set (the exit code, or 128 + signal
 * number; 0 when someone else reaped the process); MCP_ERR_LIMIT or
 * MCP_ERR_NOMEM: the command ran to its end (*exit_status set) but its
 * output did not fit in output (past the buffer's cap, or memory ran out):
 * output holds what fit, the rest was read and dropped, never to be taken
 * for the whole; MCP_ERR_CANCELLED (*exit_status: the killed process's
 * status, untouched when the token had fired before the start);
 * MCP_ERR_SPAWN (could not start: errno set); MCP_ERR_INVALID_ARG (opts
 * NULL or of a bad size, argv missing, input NULL with input_len > 0,
 * exit_status NULL). cwd needs glibc 2.29 or later (ignored before).
 */
MCP_EXTERN int mcp_process_run(const mcp_process_options *opts,
                               mcp_cancel_token *token, int *exit_status);

#ifdef __cplusplus
}
#endif
#endif /* MCP_RUNTIME_H */
