/* SPDX-License-Identifier: MIT */
/* Base64 (RFC 4648, the standard alphabet, padded): HTTP header values that
 * cannot travel as plain ASCII (2026-07-28 Streamable HTTP), resource blobs. */
#ifndef MCP_CORE_BASE64_H
#define MCP_CORE_BASE64_H

#include <stdbool.h>

#include "mcp/common.h"

/* Append the encoding of len bytes. MCP_OK, MCP_ERR_LIMIT or MCP_ERR_NOMEM
 * (nothing appended then). */
int mcp__base64_encode(mcp_buf *out, const void *data, size_t len);

/* Append the bytes of a strict encoding: padded to a multiple of four, no
 * whitespace, pad bits zero. MCP_OK, MCP_ERR_INVALID_ARG (not a canonical
 * encoding), MCP_ERR_LIMIT or MCP_ERR_NOMEM (nothing appended then). */
int mcp__base64_decode(mcp_buf *out, const char *text, size_t len);

/* Whether text is such a strict encoding. */
bool mcp__base64_valid(const char *text, size_t len);

#endif
