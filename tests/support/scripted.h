/* SPDX-License-Identifier: MIT */
/*
 * A client whose server the test plays on the wire (tests of src/client):
 * the handshake answered, then lines read and written by hand, so that a
 * test can send what a well-behaved server never would.
 */
#ifndef MCP_TEST_SCRIPTED_H
#define MCP_TEST_SCRIPTED_H

#include "mcp/client.h"
#include "wire.h"

typedef struct scripted {
    mcp_client *client;
    wire w;
} scripted;

/* A client made with o, connected to the test speaking version
 * ("2026-07-28": answers server/discover; a 2025 one: initialize, then
 * reads notifications/initialized); *hello gets the client's first request
 * (caller frees). The handshake's answer is written before the connect
 * starts: the request (id 1) is registered before the client reads
 * anything. */
void scripted_open(scripted *s, const char *version, mcp_client_options o, char **hello);
/* The same, the handshake's answer declaring caps (a JSON object's text)
 * as the server's capabilities. */
void scripted_open_caps(scripted *s, const char *version, const char *caps,
                        mcp_client_options o, char **hello);
/* Free the client, close the test's end. */
void scripted_close(scripted *s);
/* Drive the client until the test reads a line containing needle (fails
 * the test after 10 s). Caller frees. */
char *scripted_next_line(scripted *s, const char *needle);
/* Drive the client for ms: fails the test if it writes a line containing
 * needle. */
void scripted_no_line(scripted *s, const char *needle, int ms);

#endif
