/* SPDX-License-Identifier: MIT */
/* libmcp umbrella header: include this to get the whole public API. */
#ifndef MCP_MCP_H
#define MCP_MCP_H

#include "mcp/client.h"
#include "mcp/common.h"
#include "mcp/json.h"
#include "mcp/jsonrpc.h"
#include "mcp/oauth.h"
#include "mcp/runtime.h"
#include "mcp/schema.h"
#include "mcp/server.h"
#include "mcp/session.h"
#include "mcp/uri_template.h"

#endif
