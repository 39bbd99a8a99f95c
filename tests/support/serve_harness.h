/* SPDX-License-Identifier: MIT */
/* A real server (mcp_server_serve_fds) on a thread, driven by the test over
 * a socketpair: the test writes and reads the wire itself. */
#ifndef MCP_TEST_SERVE_HARNESS_H
#define MCP_TEST_SERVE_HARNESS_H

#include <pthread.h>
#include <stdbool.h>

#include "mcp/mcp.h"
#include "wire.h"

/* The envelope of a 2026-07-28 request's _meta. */
#define HARNESS_ENV "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                    "\"io.modelcontextprotocol/clientCapabilities\":{}"

typedef struct harness {
    mcp_server *server;
    wire w;
    int server_fd;
    pthread_t thread;
    int rc;
    bool modern;
} harness;

/* Serve s (taken: freed by harness_stop). With a version, initialize a
 * 2025 session first, declaring capabilities (JSON object text, NULL: {});
 * *init_answer (may be NULL) gets initialize's answer (caller frees).
 * Without one, requests carry the 2026-07-28 envelope (harness_req). */
void harness_start(harness *h, mcp_server *s, const char *version, const char *capabilities,
                   char **init_answer);
/* End the input, wait for the server to return MCP_OK, free it. */
/* A handler abandoned past the shutdown grace frees its server when it
 * returns, and its pool's threads end after: wait (10 s at most) until no
 * pool is left, so that the process's exit finds no thread running (the
 * leak and thread-leak checks). harness_stop does it. */
void harness_wait_abandoned(void);
void harness_stop(harness *h);
/* Send request id with method and params (the members of an object,
 * without braces), in the harness's era; return its answer (the first line
 * with that id; caller frees). */
char *harness_req(harness *h, int id, const char *method, const char *params);
/* Send the request without waiting for its answer. */
void harness_send_req(harness *h, int id, const char *method, const char *params);
/* Fail unless answer holds needle; free answer. */
void harness_expect_in(char *answer, const char *needle);
/* The server's next request with method (a line with it): its id, and the
 * line in *line when line is not NULL (caller frees). */
long long harness_server_request(harness *h, const char *method, char **line);
/* The requestState of a 2026-07-28 input_required answer (caller frees);
 * the test fails without one. */
char *harness_request_state(const char *answer);

#endif
