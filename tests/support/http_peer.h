/* SPDX-License-Identifier: MIT */
/* A scripted HTTP server process for the HTTP client's tests: started with
 * its stdout on a pipe (it prints "listening PORT" first), its stderr in a
 * log file the tests search. */
#ifndef MCP_TEST_HTTP_PEER_H
#define MCP_TEST_HTTP_PEER_H

#include <stdbool.h>
#include <sys/types.h>

#include "mcp/client.h"

typedef struct http_peer {
    pid_t pid;
    int port;
    char url[128];
    char log[128];
} http_peer;

/* Start argv (argv[0] searched in PATH); true once it listens (url is
 * http://127.0.0.1:PORT/mcp), false after printing why not. */
bool http_peer_start(http_peer *p, const char *const *argv);

/* SIGTERM, wait, remove the log. */
void http_peer_stop(http_peer *p);

/* Whether the log contains needle within timeout_ms, driving c (may be
 * NULL) meanwhile; on failure the log is printed. */
bool http_peer_says(http_peer *p, mcp_client *c, const char *needle, int timeout_ms);

/* Drive c (may be NULL) for about ms milliseconds. */
void http_peer_idle(mcp_client *c, int ms);

/* How many times needle is in the log now. */
int http_peer_count(http_peer *p, const char *needle);

#endif
