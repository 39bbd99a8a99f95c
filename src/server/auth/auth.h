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

/*
 * Whether granted (a token's scope claim, space-separated; NULL: none)
 * holds every scope of c->scopes and of more (NULL-terminated, or NULL:
 * an item's own, mcp_tool.scopes). Fills v's status, challenge and why
 * only: 0 when it does, else 403 with Bearer error="insufficient_scope",
 * error_description, resource_metadata and scope naming every scope
 * needed (the server's and more, each once: RFC 6750 section 3.1, the
 * MCP authorization spec's scope challenge). MCP_OK, or MCP_ERR_NOMEM
 * (v->status 403 then).
 */
int mcp__resource_scope_check(const mcp__resource_config *c, const char *granted,
                              const char *const *more, mcp__resource_verdict *v);

/* Token introspection (RFC 7662) ---------------------------------------- */

/* How long an answer saying a token is not active is remembered: long
 * enough that a flood of bad tokens costs the authorization server one
 * introspection each per this many seconds, short enough that a token
 * just issued (or a blip of the AS) is not refused for long. */
#define MCP__INTROSPECT_INACTIVE_S 10

/* The bearer token of authorization into *token (n bytes, within
 * authorization), or v filled as mcp__resource_check would (401 without a
 * Bearer header, 400 invalid_request for one that is not one token) and
 * *token left alone. MCP_OK or MCP_ERR_NOMEM. For the introspecting
 * server, which judges the header before it asks about the token. */
int mcp__resource_bearer(const mcp__resource_config *c, const char *authorization,
                         const char **token, size_t *n, mcp__resource_verdict *v);

/* v filled for a token refused for why (a remembered refusal): 401
 * invalid_token, error_description why, resource_metadata and scope.
 * MCP_OK or MCP_ERR_NOMEM (the challenge plain "Bearer" then). */
int mcp__resource_refused(const mcp__resource_config *c, const char *why,
                          mcp__resource_verdict *v);

/*
 * Judge an introspection answer (json, len bytes: RFC 7662 section 2.2)
 * for this server at now_s. Refused, 401 invalid_token with the reason
 * (*until_s: now_s + MCP__INTROSPECT_INACTIVE_S): active not true; exp
 * present and past, or nbf present and ahead (with c's skew; either not a
 * number); iss present and not c->issuer; aud
 * absent, or (a string or an array) without this server's audience
 * (c->audience, or c->resource); no sub (username, a display name, is not one). Else *principal
 * "<c->issuer> <sub>" and *scope (the scope member, or NULL), malloc'd,
 * *until_s min(exp, now_s + ttl_s (0: 60)), and the
 * server-wide scopes checked (403 insufficient_scope in v; principal and
 * scope are given all the same). MCP_OK; MCP_ERR_INVALID_ARG (not a JSON
 * object: the authorization server failed, v->why says so); MCP_ERR_NOMEM.
 */
int mcp__resource_introspected(const mcp__resource_config *c, const char *json, size_t len,
                               int64_t now_s, unsigned ttl_s, mcp__resource_verdict *v,
                               char **principal, char **scope, int64_t *until_s);

/* Tokens judged, remembered (token_cache.c): the same Authorization
 * header on a later request is answered from here before until_s (an
 * accepted JWT: its exp and the check's skew, the first second the check
 * refuses it; an introspected token:
 * min(exp, now + the cache's time to live); a token the authorization
 * server called inactive: a short while) and while the key set is the one
 * it was checked with (keys: the set's generation, which its owner bumps
 * whenever it replaces the set; 0 where there is none). Any thread (a
 * mutex). Bounded: 512 slots, direct-mapped.
 * get: 1, accepted: *principal and *scope (each malloc'd; *scope NULL when
 * the token had none); -1, refused (remembered as inactive); 0, not known
 * (or no memory). put: principal NULL remembers a refusal; remembered, or
 * not (no memory: it is checked again next time). */
typedef struct mcp__token_cache mcp__token_cache;
mcp__token_cache *mcp__token_cache_new(void);
void mcp__token_cache_free(mcp__token_cache *c);
int mcp__token_cache_get(mcp__token_cache *c, uint64_t keys, const char *header, int64_t now_s,
                         char **principal, char **scope);
void mcp__token_cache_put(mcp__token_cache *c, uint64_t keys, const char *header,
                          int64_t until_s, const char *principal, const char *scope);

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
