/* SPDX-License-Identifier: MIT */
/*
 * One blocking HTTP exchange: a GET for a document a server needs from
 * elsewhere (its authorization server's metadata and key set), a form POST
 * (a token introspection), and the OAuth client's exchanges
 * (client/auth/fetch.c): one libcurl easy handle,
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

/* One exchange, whatever its caller needs of it. */
typedef struct mcp__http_request {
    const char *method;          /* "GET" or "POST" */
    const char *url;
    const char *const *headers;  /* lines "Name: value", NULL-terminated; NULL: none */
    const char *body;            /* POST: body_len bytes (NULL: empty) */
    size_t body_len;
    const char *user, *password; /* HTTP Basic, or NULL */
    const char *ca_file;         /* PEM bundle; NULL: the system's */
    bool tls_no_verify;
    size_t max;                  /* the answer's body cap */
    unsigned timeout_ms;         /* the whole exchange */
    unsigned connect_timeout_ms; /* the connection, within timeout_ms */
    const atomic_bool *abort;    /* NULL, or once true the transfer ends */
    /* Each header line of the answer as it comes (with its CRLF; a status
     * line "HTTP/..." starts each response, a 100 Continue's too), or
     * NULL. */
    void (*header)(void *ud, const char *line, size_t len);
    void *header_ud;
} mcp__http_request;

/*
 * Make r, its answer's body appended to body (NUL-terminated; rewound to
 * where it was on error) and its HTTP status in *status (0 when none came).
 * MCP_OK for an HTTP answer of any status; MCP_ERR_IO (no answer: why
 * gets libcurl's words, "aborted" when abort ended it); MCP_ERR_LIMIT (the
 * body over r->max); MCP_ERR_NOMEM. why (n bytes, may be NULL) names no
 * URL: the caller says which exchange failed. Blocks, as below.
 */
int mcp__http_request_make(const mcp__http_request *r, mcp_buf *body, long *status, char *why,
                           size_t n);

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
