/* SPDX-License-Identifier: MIT */
/*
 * The resource server's decisions, sans-I/O (basic/authorization of
 * 2025-06-18 and 2025-11-25, basic/authorization/ of 2026-07-28; RFC 6750,
 * RFC 9728, RFC 9068): an Authorization header value judged against this
 * server's configuration and its authorization server's key set, with the
 * status and the WWW-Authenticate challenge that tell a client what to do
 * next, and this server's Protected Resource Metadata document.
 *
 * Tokens are for this server alone: the audience checked is this server's
 * (no token passthrough), and what a request is bound to is the token's
 * issuer and subject, not the header's bytes.
 *
 * Pure functions but the token cache: any thread; the key set is only
 * read.
 */
#ifndef MCP_SERVER_AUTH_AUTH_H
#define MCP_SERVER_AUTH_AUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "jose/jose.h"
#include "mcp/common.h"
#include "transport/http_auth.h"

typedef struct mcp__resource_config {
    const char *resource; /* this server's canonical URL (RFC 9728 resource) */
    const char *audience; /* what tokens' aud must hold; NULL: resource */
    const char *issuer;   /* the authorization server's issuer identifier */
    const char *const *scopes; /* needed by every request (NULL-terminated; NULL: none) */
    const char *metadata_url;  /* where the metadata is served (for resource_metadata) */
    unsigned skew_s;           /* on exp, nbf and iat; 0: 60 */
} mcp__resource_config;

typedef struct mcp__resource_verdict {
    int status;          /* 0: allowed; 400, 401 or 403 */
    bool refetch_keys;   /* the token's key is unknown: fetch the key set again */
    char challenge[1024]; /* the WWW-Authenticate value ("" when allowed) */
    char why[200];       /* for the log and the response's message; never the token */
    mcp__jwt_claims claims; /* allowed: the token's (free with mcp__jwt_claims_free) */
} mcp__resource_verdict;

/*
 * Judge authorization (the header's value, NULL when absent) at now_s
 * (seconds since the epoch) for a request that needs c->scopes and, when
 * not NULL, more (NULL-terminated: a tool's own). Fills *v:
 *  - no header, or another scheme than Bearer: 401, a challenge without an
 *    error code (RFC 6750 section 3.1), resource_metadata and scope;
 *  - a Bearer header that is not one token: 400 invalid_request;
 *  - a token that does not check (jose.h's verdicts): 401 invalid_token,
 *    its reason in error_description (refetch_keys for an unknown kid);
 *  - a token without a scope needed: 403 insufficient_scope, with every
 *    scope needed in scope;
 *  - else allowed, the claims kept.
 * MCP_OK, or MCP_ERR_NOMEM (v->status 401 then).
 */
int mcp__resource_check(const mcp__resource_config *c, const mcp__jwks *keys,
                        const char *authorization, int64_t now_s, const char *const *more,
                        mcp__resource_verdict *v);

/* Accepted tokens remembered (token_cache.c): the same Authorization
 * header on a later request is allowed from here while its token is good
 * (before until_s: its exp and the check's skew, the first second the
 * check refuses it) and the key set is the one it
 * was checked with (keys: the set's generation, which its owner bumps
 * whenever it replaces the set). Any thread (a mutex).
 * get: the principal (malloc'd) or NULL; put: remembered, or not (no
 * memory: it is checked again next time). */
typedef struct mcp__token_cache mcp__token_cache;
mcp__token_cache *mcp__token_cache_new(void);
void mcp__token_cache_free(mcp__token_cache *c);
char *mcp__token_cache_get(mcp__token_cache *c, uint64_t keys, const char *header,
                           int64_t now_s);
void mcp__token_cache_put(mcp__token_cache *c, uint64_t keys, const char *header,
                          int64_t until_s, const char *principal);

/* The path at which c's metadata is served: /.well-known/oauth-protected-
 * resource followed by the resource's path (RFC 9728 section 3.1), appended
 * to out. MCP_OK, MCP_ERR_INVALID_ARG (resource not an absolute URL),
 * MCP_ERR_LIMIT or MCP_ERR_NOMEM. */
int mcp__resource_metadata_path(const mcp__resource_config *c, mcp_buf *out);

/* The URL of that path on the resource's origin (for resource_metadata),
 * appended to out. Same errors. */
int mcp__resource_metadata_url(const mcp__resource_config *c, mcp_buf *out);

/* The Protected Resource Metadata document (RFC 9728 section 2), appended
 * to out: resource, authorization_servers, scopes_supported (when any),
 * bearer_methods_supported ["header"]. MCP_OK, MCP_ERR_LIMIT or
 * MCP_ERR_NOMEM. */
int mcp__resource_metadata(const mcp__resource_config *c, mcp_buf *out);

/* The authorization server's key set, found (RFC 8414; OpenID Connect
 * Discovery 1.0) --------------------------------------------------------- */

/* Cap on a metadata document's bytes (the key set's is jose.h's). */
#define MCP__AS_METADATA_MAX_BYTES ((size_t)64 * 1024)

/* Whether a URL is secure enough, and where an issuer's metadata may be:
 * transport/http_auth.h (mcp__auth_url_secure,
 * mcp__auth_issuer_metadata_urls), shared with the client. */

/*
 * Read a metadata document (len bytes) found for issuer: a JSON object
 * whose "issuer" equals issuer byte for byte (else it is not used: RFC 8414
 * section 3.3), with a "jwks_uri" that is secure as above. MCP_OK and
 * *jwks_uri (malloc'd), MCP_ERR_INVALID_ARG (why says which rule failed,
 * quoting the issuer the document names), MCP_ERR_LIMIT (over
 * MCP__AS_METADATA_MAX_BYTES) or MCP_ERR_NOMEM.
 */
int mcp__auth_issuer_metadata_read(const char *json, size_t len, const char *issuer,
                                   char **jwks_uri, char *why, size_t n);

#endif
