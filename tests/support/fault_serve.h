/* SPDX-License-Identifier: MIT */
/*
 * A server on a thread whose connection's nth send fails
 * (fault_transport), driven by the test over a socketpair: for walking
 * every send of a conversation failing in turn.
 *
 *     fault_serve f;
 *     fault_serve_start(&f, server, at);   the server taken
 *     ... wire_try_send(&f.w, ...), wire_read(&f.w, ...) ...
 *     fault_serve_stop(&f);                its input ended, run returned
 *     ... f.rc, f.faults.fired ...
 *     fault_serve_free(&f);                descriptors closed, server freed
 */
#ifndef MCP_TEST_FAULT_SERVE_H
#define MCP_TEST_FAULT_SERVE_H

#include <pthread.h>

#include "fault_transport.h"
#include "mcp/mcp.h"
#include "wire.h"

typedef struct fault_serve {
    mcp_server *server;
    int fail_at, server_fd, rc;
    wire w;
    pthread_t thread;
    fault_record faults;
} fault_serve;

void fault_serve_start(fault_serve *f, mcp_server *s, int fail_at);
/* End the input and wait for the run to return (f->rc: its result). */
void fault_serve_stop(fault_serve *f);
/* Close both ends and free the server (after fault_serve_stop). */
void fault_serve_free(fault_serve *f);

#endif
