/* SPDX-License-Identifier: MIT */
/*
 * The OAuth client's discovery, sans-I/O (basic/authorization of 2025-06-18
 * and 2025-11-25, basic/authorization/authorization-server-discovery.mdx of
 * 2026-07-28): the URLs to try, in the spec's order, and the documents
 * found there read and checked before anything of them is used.
 *
 * One order serves every revision: 2025-06-18 names only RFC 8414, and the
 * later ones try OpenID Connect discovery after it; trying more than the
 * older revision names breaks none of its rules.
 *
 * Pure functions: any thread. Every string out is malloc'd and freed by the
 * matching _free.
 */
#ifndef MCP_CLIENT_AUTH_AUTH_H
#define MCP_CLIENT_AUTH_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/common.h"

/* Caps on the documents read. */
#define MCP__AUTH_DOC_MAX ((size_t)64 * 1024)
#define MCP__AUTH_LIST_MAX 64

typedef struct mcp__auth_urls {
    char *url[3];
    size_t count;
} mcp__auth_urls;

void mcp__auth_urls_free(mcp__auth_urls *u);

/*
 * Where a server's Protected Resource Metadata may be (RFC 9728 section
 * 3.1), when its 401 named none: at the path of its endpoint
 * (https://h/.well-known/oauth-protected-resource/mcp), then at the root
 * (the one URL when the endpoint is the root). Its query is kept, its
 * fragment and a terminating slash dropped. MCP_OK, MCP_ERR_INVALID_ARG
 * (not an http(s) URL: why says so) or MCP_ERR_NOMEM.
 */
int mcp__auth_prm_urls(const char *server_url, mcp__auth_urls *out, char *why, size_t n);

/*
 * Where an authorization server's metadata may be, in the spec's order: for
 * an issuer with a path, RFC 8414 with the path inserted, OpenID Connect
 * with the path inserted, OpenID Connect with the path appended; for one
 * without, RFC 8414 then OpenID Connect. MCP_ERR_INVALID_ARG for an issuer
 * that is not https (http only on a loopback host) or has a query or a
 * fragment (RFC 8414 section 2).
 */
int mcp__auth_as_metadata_urls(const char *issuer, mcp__auth_urls *out, char *why, size_t n);

/* Protected Resource Metadata, read. */
typedef struct mcp__auth_prm {
    char *resource; /* as the document gives it: sent as is (RFC 8707) */
    char *servers[MCP__AUTH_LIST_MAX]; /* authorization_servers, in order */
    size_t nservers;
    char *scopes; /* scopes_supported joined by spaces; NULL: none given */
} mcp__auth_prm;

/*
 * Read a Protected Resource Metadata document (len bytes, at most
 * MCP__AUTH_DOC_MAX) fetched for server_url: its "resource" must name this
 * server (the same scheme, host and port, and a path that is the server's
 * or one of its parents: else a client would ask tokens for another
 * resource), and it must list at least one authorization server, each an
 * https URL (http on a loopback host). MCP_OK fills *out (free with
 * mcp__auth_prm_free); MCP_ERR_INVALID_ARG with why; MCP_ERR_LIMIT;
 * MCP_ERR_NOMEM.
 */
int mcp__auth_prm_read(const char *json, size_t len, const char *server_url, mcp__auth_prm *out,
                       char *why, size_t n);
void mcp__auth_prm_free(mcp__auth_prm *p);

/* Authorization server metadata, read (RFC 8414, OpenID Connect). */
typedef struct mcp__auth_server {
    char *issuer;
    char *authorization_endpoint, *token_endpoint; /* never NULL */
    char *registration_endpoint, *jwks_uri, *introspection_endpoint; /* NULL: none */
    char *scopes; /* scopes_supported joined by spaces; NULL: none given */
    bool s256;    /* code_challenge_methods_supported lists S256 */
    bool client_id_metadata_documents; /* client_id_metadata_document_supported */
    unsigned auth_methods; /* MCP__AUTH_METHOD_* of token_endpoint_auth_methods_supported */
} mcp__auth_server;

#define MCP__AUTH_METHOD_BASIC 1u   /* client_secret_basic (the default when none listed) */
#define MCP__AUTH_METHOD_POST 2u    /* client_secret_post */
#define MCP__AUTH_METHOD_NONE 4u    /* none (public clients) */
#define MCP__AUTH_METHOD_KEY_JWT 8u /* private_key_jwt */

/*
 * Read an authorization server's metadata fetched for issuer: its "issuer"
 * must be identical to the one the URL was made from (RFC 8414 section
 * 3.3; a document that names another issuer is not used), the
 * authorization and token endpoints present, every endpoint https (http
 * on a loopback host), and "code" among response_types_supported when
 * that is given. MCP_OK fills *out (free with mcp__auth_server_free);
 * MCP_ERR_INVALID_ARG with why; MCP_ERR_LIMIT; MCP_ERR_NOMEM.
 */
int mcp__auth_server_read(const char *json, size_t len, const char *issuer,
                          mcp__auth_server *out, char *why, size_t n);
void mcp__auth_server_free(mcp__auth_server *s);

#endif
