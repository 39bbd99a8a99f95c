/* SPDX-License-Identifier: MIT */
/*
 * Header values of 2026-07-28 Streamable HTTP (basic/transports/
 * streamable-http.mdx, "Value Encoding"): `Mcp-Name` and `Mcp-Param-{Name}`
 * carry body values, as plain ASCII when that is safe and as
 * `=?base64?<Base64 of the UTF-8>?=` otherwise. Shared by the server, which
 * decodes before comparing with the body, and the client, which encodes.
 * Also the request header values the server checks. Pure functions: any
 * thread.
 */
#ifndef MCP_TRANSPORT_HTTP_HEADERS_H
#define MCP_TRANSPORT_HTTP_HEADERS_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/common.h"
#include "mcp/json.h"

/* Append the header form of the n bytes at v: as is when every byte is
 * visible ASCII, space or tab, the first and last are neither space nor tab,
 * and the whole does not look like the sentinel; else the sentinel form.
 * MCP_OK, MCP_ERR_LIMIT or MCP_ERR_NOMEM (nothing appended then). */
int mcp__http_value_encode(mcp_buf *out, const char *v, size_t n);

/* Append the value a header carries: the decoded bytes of a sentinel form,
 * or the plain value. MCP_OK; MCP_ERR_INVALID_ARG when the plain value has a
 * byte outside visible ASCII, space and tab, or the sentinel's Base64 is not
 * canonical; MCP_ERR_LIMIT or MCP_ERR_NOMEM. Nothing appended on error. */
int mcp__http_value_decode(mcp_buf *out, const char *v, size_t n);

/* The text a Mcp-Param-{Name} header carries for a tool parameter's value
 * (before value encoding): a string as it is, a boolean as true or false,
 * a number as written (*number set: integers compare by value, and only
 * integer literals are mirrored). False for any other type (null, arrays,
 * objects): no header. *text is borrowed from v's document, not
 * NUL-terminated. */
bool mcp__http_param_text(const mcp_json *v, const char **text, size_t *len, bool *number);

/* True when s is an HTTP field-name token (RFC 9110 `1*tchar`). */
bool mcp__http_token_valid(const char *s, size_t n);

/* The header line curl is given for a caller's "Name: value": the same,
 * or "Name;" when the value is empty (curl reads "Name:" as "remove the
 * header Name" and would send nothing). Malloc'd; NULL: out of memory. */
char *mcp__http_header_for_curl(const char *line);

/* url as it may be shown in a message or a log: a password in it replaced
 * by "***", control characters and non-ASCII bytes by '?', cut with "..."
 * to fit size (at least 4). Returns out. */
const char *mcp__http_url_shown(const char *url, char *out, size_t size);

/* Request headers the server checks (RFC 9110). */

/* v (n bytes) equals a name of list (NULL-terminated; "*" matches all),
 * case-insensitively. */
bool mcp__http_name_in_list(char *const *list, const char *v, size_t n);

/* v (n bytes) is "localhost", "127.0.0.1" or "[::1]", with a port or none. */
bool mcp__http_loopback_name(const char *v, size_t n);

/* A response header's value (v, n bytes after the colon, CR LF allowed at
 * its end), trimmed, into *kept (malloc'd): set when *kept is NULL; when
 * combine, appended after ", " (RFC 9110 section 5.3: the lines of one
 * field combine so), else the first kept. At most 8 KiB in all: a value
 * that would pass it is dropped, as one that cannot be copied. */
void mcp__http_header_keep(char **kept, const char *v, size_t n, bool combine);

/* The media type that value starts with (blanks before it skipped,
 * parameters after it ignored) is the first k bytes of type followed by
 * tail ("*": a major type's wildcard), case-insensitively. */
bool mcp__http_media_is(const char *value, const char *type, size_t k, const char *tail);

/* An Accept value (NULL: none) lists type, or a wildcard covering it. */
bool mcp__http_accepts(const char *accept, const char *type);

/* The last coding of a Transfer-Encoding value is chunked (blanks aside). */
bool mcp__http_chunked_last(const char *te);

#endif
