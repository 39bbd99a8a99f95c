/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "transport/child.h"

struct mcp__child {
    uv_process_t proc;
    uv_pipe_t err_pipe;
    bool has_err_pipe;
    bool running;
    int open_handles;
    mcp__child_options o;
    char err_buf[4096];
};

static void child_closed(uv_handle_t *h)
{
    mcp__child *c = h->data;
    if (--c->open_handles == 0)
        free(c);
}

static void free_handle(uv_handle_t *h)
{
    free(h);
}

static void exit_cb(uv_process_t *p, int64_t status, int signal)
{
    mcp__child *c = p->data;
    c->running = false;
    if (c->o.on_exit)
        c->o.on_exit(c->o.ud, signal ? 128 + signal : (int)status);
}

static void err_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    mcp__child *c = h->data;
    *buf = uv_buf_init(c->err_buf, sizeof c->err_buf);
}

static void err_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    mcp__child *c = s->data;
    if (n > 0 && c->o.on_stderr)
        c->o.on_stderr(c->o.ud, buf->base, (size_t)n);
    else if (n < 0)
        uv_read_stop(s);
}

int mcp__child_spawn(uv_loop_t *loop, const mcp__child_options *o, mcp__child **out,
                     uv_stream_t **child_stdin, uv_stream_t **child_stdout, char *err,
                     size_t errlen)
{
    *out = NULL;
    mcp__child *c = calloc(1, sizeof *c);
    uv_pipe_t *in = malloc(sizeof *in), *outp = malloc(sizeof *outp);
    if (!c || !in || !outp) {
        free(c);
        free(in);
        free(outp);
        snprintf(err, errlen, "out of memory");
        return UV_ENOMEM;
    }
    c->o = *o;
    uv_pipe_init(loop, in, 0);
    uv_pipe_init(loop, outp, 0);
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
    stdio[0].data.stream = (uv_stream_t *)in;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *)outp;
    if (o->capture_stderr) {
        uv_pipe_init(loop, &c->err_pipe, 0);
        c->err_pipe.data = c;
        c->has_err_pipe = true;
        stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
        stdio[2].data.stream = (uv_stream_t *)&c->err_pipe;
    } else {
        stdio[2].flags = UV_INHERIT_FD;
        stdio[2].data.fd = 2;
    }
    uv_process_options_t po = {0};
    po.file = o->argv[0];
    po.args = (char **)o->argv;
    po.env = (char **)o->env;
    po.cwd = o->cwd;
    po.stdio = stdio;
    po.stdio_count = 3;
    po.exit_cb = exit_cb;
    po.flags = UV_PROCESS_DETACHED; /* own session: no terminal signals */
    c->proc.data = c;
    int rc = uv_spawn(loop, &c->proc, &po);
    if (rc != 0) {
        snprintf(err, errlen, "could not start '%s': %s", o->argv[0], uv_strerror(rc));
        /* Every handle, the process one included, was initialized and must
         * be closed for the loop to close; the struct goes with the last. */
        uv_close((uv_handle_t *)in, free_handle);
        uv_close((uv_handle_t *)outp, free_handle);
        c->open_handles = 1 + (c->has_err_pipe ? 1 : 0);
        if (c->has_err_pipe)
            uv_close((uv_handle_t *)&c->err_pipe, child_closed);
        uv_close((uv_handle_t *)&c->proc, child_closed);
        return rc;
    }
    c->running = true;
    c->open_handles = 1 + (c->has_err_pipe ? 1 : 0);
    if (c->has_err_pipe)
        uv_read_start((uv_stream_t *)&c->err_pipe, err_alloc, err_read);
    *child_stdin = (uv_stream_t *)in;
    *child_stdout = (uv_stream_t *)outp;
    *out = c;
    return 0;
}

bool mcp__child_running(const mcp__child *c)
{
    return c && c->running;
}

bool mcp__child_peek_exit(const mcp__child *c, int *status)
{
    if (!c || !c->running)
        return false;
    /* WNOWAIT: seen, not reaped; libuv's SIGCHLD handling still reaps it
     * and reports the exit as usual. */
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)c->proc.pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid == 0)
        return false;
    *status = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
    return true;
}

int mcp__child_pid(const mcp__child *c)
{
    return c && c->running ? c->proc.pid : 0;
}

void mcp__child_kill(mcp__child *c, int signum)
{
    if (c && c->running)
        uv_process_kill(&c->proc, signum);
}

void mcp__child_kill_group(mcp__child *c, int signum)
{
    if (!c || !c->running)
        return;
    /* Its own session and group (UV_PROCESS_DETACHED): the group is its
     * pid. A wrapper (sh -c, npx) is ended with what it started. */
    if (kill(-(pid_t)c->proc.pid, signum) != 0)
        uv_process_kill(&c->proc, signum);
}

void mcp__child_close(mcp__child *c)
{
    if (!c)
        return;
    c->o.on_exit = NULL;
    c->o.on_stderr = NULL;
    if (c->has_err_pipe && !uv_is_closing((uv_handle_t *)&c->err_pipe))
        uv_close((uv_handle_t *)&c->err_pipe, child_closed);
    if (!uv_is_closing((uv_handle_t *)&c->proc))
        uv_close((uv_handle_t *)&c->proc, child_closed);
}
