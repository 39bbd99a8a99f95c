/* SPDX-License-Identifier: MIT */
/*
 * One blocking HTTP GET for a document a server needs from elsewhere (its
 * authorization server's metadata and key set), or one form POST (a token
 * introspection): one libcurl easy handle,
 * bounded in time and in size, redirects never followed (a document that
 * moves is an answer, not an instruction), no cookies, no proxy from the
 * environment's defaults beyond libcurl's own.
 *
 * Blocks the calling thread: never call it on a loop thread that serves.
 * Any thread; abort may be set from another thread to end it early.
 */
#ifndef MCP_TRANSPORT_HTTP_FETCH_H
#define MCP_TRANSPORT_HTTP_FETCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "mcp/common.h"

/*
 * GET url with Accept: application/json, within timeout_ms (connecting
 * within the lesser of it and 5 s), its body (at most max bytes) appended
 * to body (NUL-terminated) and the HTTP status in *status. abort (may be
 * NULL), once true, ends the transfer. MCP_OK (an HTTP answer of any
 * status: the caller judges it), MCP_ERR_IO (no answer: why says why,
 * "aborted" when abort ended it), MCP_ERR_LIMIT (the body is over max) or
 * MCP_ERR_NOMEM. why (n bytes, may be NULL) gets a sentence on error.
 */
int mcp__http_fetch(const char *url, size_t max, unsigned timeout_ms, const atomic_bool *abort,
                    mcp_buf *body, long *status, char *why, size_t n);

/*
 * The same as a POST of form (application/x-www-form-urlencoded, already
 * encoded) with HTTP Basic authentication as user and password when user
 * is not NULL (the caller form-encodes them first for client_secret_basic,
 * RFC 6749 section 2.3.1): a token introspection (RFC 7662). Same
 * results; blocks likewise.
 */
int mcp__http_post_form(const char *url, const char *form, const char *user,
                        const char *password, size_t max, unsigned timeout_ms,
                        const atomic_bool *abort, mcp_buf *body, long *status, char *why,
                        size_t n);

#endif
