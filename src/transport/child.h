/* SPDX-License-Identifier: MIT */
/*
 * A server process spawned with pipes for stdin and stdout, in a session of
 * its own (a terminal's Ctrl-C goes to the client, which cancels on the
 * wire, rather than killing the server). Loop thread only.
 */
#ifndef MCP_TRANSPORT_CHILD_H
#define MCP_TRANSPORT_CHILD_H

#include <stdbool.h>
#include <uv.h>

typedef struct mcp__child mcp__child;

typedef struct mcp__child_options {
    const char *const *argv;
    const char *const *env; /* NULL: inherit */
    const char *cwd;
    bool capture_stderr;
    void (*on_exit)(void *ud, int status); /* exit code, or 128 + signal */
    void (*on_stderr)(void *ud, const char *data, size_t len);
    void *ud;
} mcp__child_options;

/* Spawn. On success the child's stdin and stdout pipes are returned for a
 * connection to adopt. On failure, err gets a sentence and the libuv error
 * is returned. */
int mcp__child_spawn(uv_loop_t *loop, const mcp__child_options *o, mcp__child **out,
                     uv_stream_t **child_stdin, uv_stream_t **child_stdout,
                     char *err, size_t errlen);

bool mcp__child_running(const mcp__child *c);
/* Whether the process has exited though its exit was not handled yet (the
 * loop has not run since): true and *status (exit code, or 128 + signal).
 * Leaves it to be reaped as usual. */
bool mcp__child_peek_exit(const mcp__child *c, int *status);
/* The process id while it runs (not yet reaped), else 0. */
int mcp__child_pid(const mcp__child *c);
void mcp__child_kill(mcp__child *c, int signum);
/* The signal to its whole process group (what it started too), or to it
 * alone when that fails. */
void mcp__child_kill_group(mcp__child *c, int signum);
/* Close the handles; the child struct is freed once they are closed. */
void mcp__child_close(mcp__child *c);

#endif
