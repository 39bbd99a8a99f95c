/* SPDX-License-Identifier: MIT */
/*
 * The conformance fixtures' program, mcp-conformance (main.c), test code
 * built beside mcp and never installed: what its parts share. The server's
 * fixtures: the tools (conformance_server.c), the resources, templates and
 * prompts (conformance_offers.c) and the tools and prompt that ask the
 * client (conformance_asks.c); the suite's client (conformance_client.c).
 */
#ifndef MCP_TEST_CONFORMANCE_H
#define MCP_TEST_CONFORMANCE_H

#include "mcp/mcp.h"

/* A 1x1 PNG, Base64, as in the reference server: a tool, a prompt and a
 * resource (as its bytes) show it. */
#define CONFORMANCE_PNG_1X1                                                                        \
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

/* Register the n tools on s: MCP_OK, or the first failure (printed). */
int conformance_add_tools(mcp_server *s, const mcp_tool *tools, size_t n);

/* Register every fixture of the server scenarios on s (conformance_server.c,
 * then the two below): MCP_OK, or the failure (printed). */
int conformance_server(mcp_server *s);

/* mcp-conformance client [--trace] URL (conformance_client.c): plays the
 * scenario MCP_CONFORMANCE_SCENARIO names against URL; the exit status. */
int conformance_client(int argc, char **argv);

/* Register the resources, the resource template, the prompts and the tool
 * that updates the watched resource: MCP_OK, or the failure (printed). */
int conformance_offers(mcp_server *s);

/* Register the tools and the prompt that ask the client (sampling,
 * elicitation, roots; input-required results under 2026-07-28): MCP_OK,
 * or the failure (printed). */
int conformance_asks(mcp_server *s);
/* The tools of the tasks scenarios (conformance_tasks.c). */
int conformance_tasks(mcp_server *s);

/* The auth/ scenarios (conformance_auth.c): the OAuth options an
 * application would give, from MCP_CONFORMANCE_CONTEXT (credentials) and
 * the scenario's name. MCP_OK, or MCP_ERR_INVALID_ARG (said). */
typedef struct conformance_auth {
    mcp_oauth_options o;
    char *client_id, *client_secret, *issuer, *private_key;
    char *assertion, *identity_token, *idp_token_endpoint, *idp_client_id;
} conformance_auth;
int conformance_auth_options(const char *scenario, conformance_auth *a);
void conformance_auth_free(conformance_auth *a);

#endif
