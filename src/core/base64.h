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

/* Base64url without padding (RFC 4648 section 5, as JOSE uses it, RFC 7515
 * section 2): the same contracts as above. The decoder takes only the
 * canonical form: no '=', no whitespace, no length of 1 modulo 4, unused
 * bits zero (a token's bytes have one spelling: a signature is checked
 * over exactly what was sent). */
int mcp__base64url_encode(mcp_buf *out, const void *data, size_t len);
int mcp__base64url_decode(mcp_buf *out, const char *text, size_t len);

#endif
