/* SPDX-License-Identifier: MIT */
/*
 * Authentication challenges (RFC 9110 section 11): a WWW-Authenticate value
 * read into its challenges and their parameters, and one written. The MCP
 * authorization specification has the client find `resource_metadata`,
 * `scope` and `error` in a Bearer challenge (RFC 6750, RFC 9728 section
 * 5.1); other SDKs found them with substring matches and broke on several
 * challenges, quoted commas and parameters in another order. Sans-I/O, pure
 * functions: any thread.
 */
#ifndef MCP_TRANSPORT_HTTP_AUTH_H
#define MCP_TRANSPORT_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/common.h"

/* Caps on what a server sends. */
#define MCP__AUTH_HEADER_MAX 8192
#define MCP__AUTH_CHALLENGES_MAX 16
#define MCP__AUTH_PARAMS_MAX 32

typedef struct mcp__auth_param {
    char *name;  /* as sent (compare case-insensitively) */
    char *value; /* a token as is, a quoted-string unquoted and unescaped */
} mcp__auth_param;

typedef struct mcp__auth_challenge {
    char *scheme;  /* as sent (compare case-insensitively) */
    char *token68; /* NULL unless the challenge carries one instead of parameters */
    mcp__auth_param params[MCP__AUTH_PARAMS_MAX];
    size_t nparams;
} mcp__auth_challenge;

typedef struct mcp__auth_challenges {
    mcp__auth_challenge list[MCP__AUTH_CHALLENGES_MAX];
    size_t count;
} mcp__auth_challenges;

/*
 * Read a WWW-Authenticate value (len bytes; several header fields joined
 * with ", " first). MCP_OK fills *out (free with mcp__auth_challenges_free,
 * also after an error); MCP_ERR_INVALID_ARG when it is not the grammar of
 * RFC 9110 (a parameter before any scheme, a parameter named twice in one
 * challenge, an unterminated quoted-string, a byte a token may not hold):
 * why (n bytes, may be NULL) says what and at which offset;
 * MCP_ERR_LIMIT over a cap; MCP_ERR_NOMEM.
 */
int mcp__auth_challenges_parse(const char *value, size_t len, mcp__auth_challenges *out,
                               char *why, size_t n);
void mcp__auth_challenges_free(mcp__auth_challenges *c);

/* The first challenge of scheme (case-insensitive), or NULL. Borrowed. */
const mcp__auth_challenge *mcp__auth_challenge_find(const mcp__auth_challenges *c,
                                                    const char *scheme);

/* The value of parameter name (case-insensitive) of ch, or NULL. Borrowed. */
const char *mcp__auth_param_get(const mcp__auth_challenge *ch, const char *name);

/* Whether the space-separated list (a scope parameter, RFC 6749 section
 * 3.3; NULL: empty) holds word (wl bytes), whole. */
bool mcp__auth_scope_listed(const char *list, const char *word, size_t wl);

/* Append ` name="value"` after a scheme (first) or `, name="value"` after
 * a parameter, the value quoted as RFC 9110 says (a backslash before '"'
 * and '\'). MCP_ERR_INVALID_ARG when name is not a token or value holds a
 * control byte; MCP_ERR_LIMIT or MCP_ERR_NOMEM (nothing appended then). */
int mcp__auth_param_write(mcp_buf *out, bool first, const char *name, const char *value);

/* Append name=value form-encoded (application/x-www-form-urlencoded: every
 * byte but the unreserved ones percent-encoded), with '&' before it unless
 * out is empty. MCP_OK, MCP_ERR_LIMIT, MCP_ERR_NOMEM (nothing appended).
 * Both roles: the client's token requests, the resource server's
 * introspection. */
int mcp__auth_form_add(mcp_buf *out, const char *name, const char *value);

/* What both roles of OAuth need of URLs ------------------------------------ */

/* Whether url is https, or http on a loopback host (localhost, 127.0.0.1,
 * [::1]), with a host, no user information and no fragment. */
bool mcp__auth_url_secure(const char *url);

/*
 * Where issuer's metadata may be, in the order to try (RFC 8414 section 3.1, then OpenID Connect discovery,
 * the order 2025-11-25 and 2026-07-28 give clients; the resource server
 * looks the same way): RFC 8414's well-known URL with the
 * issuer's path inserted, then OpenID Connect's with it inserted, then
 * appended (only when the issuer has a path). MCP_OK with *count URLs in
 * urls (each malloc'd: the caller frees them), MCP_ERR_INVALID_ARG (the
 * issuer is not secure as above, or has a query: why says so) or
 * MCP_ERR_NOMEM (nothing to free).
 */
int mcp__auth_issuer_metadata_urls(const char *issuer, char *urls[3], size_t *count, char *why,
                                   size_t n);

#endif
