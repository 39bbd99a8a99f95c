/* SPDX-License-Identifier: MIT */
/*
 * Run a command in its own process group and wait for it, killing the
 * whole group (TERM, then KILL after a grace period) if the cancel token
 * fires. The group matters: a shell script's children must die too.
 *
 * The wait polls the token's fd, the output and input pipes and a pidfd
 * (Linux 5.3+); without a pidfd it polls with a short timeout and
 * waitpid(WNOHANG). It reaps only its own child, so it coexists with
 * libuv's SIGCHLD handling.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/opts.h"
#include "runtime/internal.h"

extern char **environ;

static int pidfd_open_compat(pid_t pid)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Reap the child if it has exited; true when done (status stored). */
static bool reaped(pid_t pid, int *status)
{
    int st;
    pid_t r;
    do
        r = waitpid(pid, &st, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == pid) {
        *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        return true;
    }
    return r < 0; /* ECHILD: someone else reaped it; nothing to wait for */
}

/* Drain available output into buf (or nowhere once it is full: *lost
 * records why the first byte was dropped). Returns false at end of file. */
static bool read_output(int fd, mcp_buf *buf, int *lost)
{
    char chunk[4096];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n > 0) {
            size_t room = buf->limit - buf->len, take = (size_t)n < room ? (size_t)n : room;
            int rc = take ? mcp_buf_append(buf, chunk, take) : MCP_OK;
            if (!*lost && (rc != MCP_OK || take < (size_t)n))
                *lost = rc != MCP_OK ? rc : MCP_ERR_LIMIT;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
}

/* write() to the command's stdin without SIGPIPE: a command that exits
 * without reading its input must not kill the caller, whatever its
 * SIGPIPE disposition. Blocked for this thread alone while writing; one
 * the write raised is taken back before the mask is restored. */
static ssize_t write_input(int fd, const char *bytes, size_t len)
{
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    ssize_t n = write(fd, bytes, len);
    int err = errno;
    if (n < 0 && err == EPIPE && !was_pending) {
        struct timespec now = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &now) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return n;
}

/* Write what the command's stdin can take now; true while some is left. */
static bool feed_input(int fd, const mcp_process_options *o, size_t *sent)
{
    while (*sent < o->input_len) {
        ssize_t n = write_input(fd, (const char *)o->input + *sent, o->input_len - *sent);
        if (n > 0) {
            *sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK); /* else it stopped reading */
    }
    return false;
}

/* Whether argv0 names an executable, searched in PATH when it has no
 * slash: a command that cannot start is reported as such up front, rather
 * than depending on how posix_spawn reports a failed exec (emulators such
 * as valgrind turn it into exit status 127). */
static bool executable_exists(const char *argv0)
{
    if (strchr(argv0, '/'))
        return access(argv0, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char candidate[4096];
    for (const char *p = path;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        int len = snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, n ? p : ".", argv0);
        if (len > 0 && (size_t)len < sizeof candidate && access(candidate, X_OK) == 0)
            return true;
        if (!end)
            return false;
        p = end + 1;
    }
}

int mcp_process_run(const mcp_process_options *opts, mcp_cancel_token *token, int *exit_status)
{
    mcp_process_options copy;
    const mcp_process_options *o = &copy;
    if (!opts || mcp__opts_copy(&copy, sizeof copy, opts) != MCP_OK || !o->argv || !o->argv[0] ||
        !exit_status || (!o->input && o->input_len))
        return MCP_ERR_INVALID_ARG;
    if (!executable_exists(o->argv[0])) {
        errno = ENOENT;
        return MCP_ERR_SPAWN;
    }
    if (token && mcp_cancel_token_is_cancelled(token))
        return MCP_ERR_CANCELLED;
    int out[2] = {-1, -1}, in[2] = {-1, -1};
    if (o->output && pipe2(out, O_CLOEXEC) != 0)
        return MCP_ERR_SPAWN;
    if (o->input && pipe2(in, O_CLOEXEC) != 0) {
        if (o->output) {
            close(out[0]);
            close(out[1]);
        }
        return MCP_ERR_SPAWN;
    }

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0); /* a new group led by the child */
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, flags);
    /* dup2 clears close-on-exec on the copy: the command keeps only its
     * stdin and stdout of the pipes. */
    if (o->output)
        posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    if (o->input)
        posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    if (o->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
#endif
    pid_t pid;
    int rc = posix_spawnp(&pid, o->argv[0], &fa, &attr, (char *const *)o->argv,
                          o->env ? (char *const *)o->env : environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (o->output)
        close(out[1]);
    if (o->input)
        close(in[0]);
    if (rc != 0) {
        if (o->output)
            close(out[0]);
        if (o->input)
            close(in[1]);
        errno = rc;
        return MCP_ERR_SPAWN;
    }
    if (o->output)
        fcntl(out[0], F_SETFL, O_NONBLOCK);
    size_t sent = 0;
    int input_fd = -1;
    if (o->input) {
        input_fd = in[1];
        fcntl(input_fd, F_SETFL, O_NONBLOCK);
        if (!feed_input(input_fd, o, &sent)) { /* all of it at once, or it stopped reading */
            close(input_fd);
            input_fd = -1;
        }
    }

    int pidfd = pidfd_open_compat(pid);
    int cancel_fd = token ? mcp_cancel_token_fd(token) : -1;
    uint64_t grace = o->grace_ms ? o->grace_ms : 2000;
    uint64_t kill_at = 0; /* when SIGKILL is due; 0 = not cancelled yet */
    bool cancelled = false, output_open = o->output != NULL;
    int status = 0, lost = MCP_OK;
    for (;;) {
        if (reaped(pid, &status))
            break;
        if (!cancelled && token && mcp_cancel_token_is_cancelled(token)) {
            cancelled = true;
            kill(-pid, SIGTERM);
            kill_at = mcp__now_ms() + grace;
            if (input_fd >= 0) { /* nothing more for a command being stopped */
                close(input_fd);
                input_fd = -1;
            }
        }
        if (cancelled && kill_at && mcp__now_ms() >= kill_at) {
            kill(-pid, SIGKILL);
            kill_at = 0;
        }
        struct pollfd fds[4];
        nfds_t n = 0;
        if (pidfd >= 0)
            fds[n++] = (struct pollfd){pidfd, POLLIN, 0};
        if (cancel_fd >= 0 && !cancelled)
            fds[n++] = (struct pollfd){cancel_fd, POLLIN, 0};
        if (output_open)
            fds[n++] = (struct pollfd){out[0], POLLIN, 0};
        if (input_fd >= 0)
            fds[n++] = (struct pollfd){input_fd, POLLOUT, 0};
        int timeout = pidfd >= 0 ? -1 : 20;
        if (cancelled && kill_at) {
            uint64_t now = mcp__now_ms();
            int until_kill = kill_at > now ? (int)(kill_at - now) : 0;
            timeout = timeout < 0 || until_kill < timeout ? until_kill : timeout;
        }
        if (token && cancel_fd < 0 && !cancelled)
            timeout = timeout < 0 || timeout > 20 ? 20 : timeout; /* no fd: poll the flag */
        poll(fds, n, timeout);
        if (output_open)
            output_open = read_output(out[0], o->output, &lost);
        if (input_fd >= 0 && !feed_input(input_fd, o, &sent)) {
            close(input_fd); /* all written (its end of input), or it stopped reading */
            input_fd = -1;
        }
    }
    /* The group may outlive its leader (a shell's background children). */
    if (cancelled)
        kill(-pid, SIGKILL);
    if (input_fd >= 0)
        close(input_fd);
    if (output_open)
        read_output(out[0], o->output, &lost);
    if (o->output)
        close(out[0]);
    if (pidfd >= 0)
        close(pidfd);
    *exit_status = status;
    return cancelled ? MCP_ERR_CANCELLED : lost;
}
