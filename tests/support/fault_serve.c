/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fault_serve.h"
#include "server/core/core.h"
#include "transport/ndjson_stream.h"

static void *serve(void *arg)
{
    fault_serve *f = arg;
    mcp_server *s = f->server;
    f->rc = mcp__server_open_loop(s);
    mcp__ndjson_options o = {0};
    mcp__transport *inner = f->rc == MCP_OK ? mcp__ndjson_new(&s->loop, &o) : NULL;
    if (inner) {
        mcp__transport *t = fault_transport_new(inner, f->fail_at, &f->faults);
        f->rc = mcp__server_attach(s, t);
        if (f->rc == MCP_OK)
            f->rc = mcp__ndjson_open_fds(inner, f->server_fd, f->server_fd);
    }
    if (f->rc == MCP_OK)
        f->rc = mcp_server_run(s);
    return NULL;
}

void fault_serve_start(fault_serve *f, mcp_server *s, int fail_at)
{
    memset(f, 0, sizeof *f);
    f->server = s;
    f->fail_at = fail_at;
    int p[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
    f->w.fd = p[0];
    f->server_fd = p[1];
    assert_int_equal(pthread_create(&f->thread, NULL, serve, f), 0);
}

void fault_serve_stop(fault_serve *f)
{
    shutdown(f->w.fd, SHUT_WR);
    pthread_join(f->thread, NULL);
}

void fault_serve_free(fault_serve *f)
{
    close(f->w.fd);
    close(f->server_fd);
    mcp_server_free(f->server);
}
