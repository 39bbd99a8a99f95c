/* SPDX-License-Identifier: MIT */
/*
 * What the parts of mcp serve --conformance share: the tools
 * (conformance_server.c), the resources, templates and prompts
 * (conformance_offers.c) and the tools and prompt that ask the client
 * (conformance_asks.c).
 */
#ifndef MCP_CLI_CONFORMANCE_H
#define MCP_CLI_CONFORMANCE_H

#include "mcp/mcp.h"

/* A 1x1 PNG, Base64, as in the reference server: a tool, a prompt and a
 * resource (as its bytes) show it. */
#define CONFORMANCE_PNG_1X1                                                                        \
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

/* Register the resources, the resource template, the prompts and the tool
 * that updates the watched resource: MCP_OK, or the failure (printed). */
int cli_conformance_offers(mcp_server *s);

/* Register the tools and the prompt that ask the client (sampling,
 * elicitation, roots; input-required results under 2026-07-28): MCP_OK,
 * or the failure (printed). */
int cli_conformance_asks(mcp_server *s);

#endif
