/* SPDX-License-Identifier: MIT */
/*
 * libmcp: the OAuth client of an HTTP connection (the authorization of the
 * MCP specification, basic/authorization of 2025-06-18 and 2025-11-25,
 * basic/authorization/ of 2026-07-28).
 *
 * Give mcp_http_client_options.oauth and the client answers a server's 401
 * by itself: it finds the server's Protected Resource Metadata (the
 * challenge's resource_metadata, else the well-known URLs), checks that it
 * names this server, finds the authorization server's metadata (RFC 8414
 * and OpenID Connect discovery, in the spec's order; the issuer must be
 * the one asked), registers (pre-registered credentials, else a Client ID
 * Metadata Document URL when the server supports them, else dynamic
 * registration), runs the grant (authorization code with PKCE S256, state
 * and RFC 9207's iss checked; or client credentials), and sends the
 * refused request again with the token. A 403 insufficient_scope asks
 * again with the union of the scopes (a bounded number of times). Tokens
 * are refreshed before they expire and on a 401; a rotated refresh token
 * is kept at once.
 *
 * Threads: every callback below is called on the thread driving the client
 * (inside mcp_client_connect_http, a call, or mcp_client_run), and the
 * client waits while it runs: the authorization flow blocks that thread,
 * the user's step included. A callback must not call into the client.
 */
#ifndef MCP_OAUTH_H
#define MCP_OAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mcp_oauth_grant {
    /* A user authorizes in a browser: the authorize callback is needed. */
    MCP_OAUTH_AUTHORIZATION_CODE = 0,
    /* A machine client with credentials of its own (the
     * io.modelcontextprotocol/oauth-client-credentials extension):
     * client_id with client_secret or client_private_key_pem. */
    MCP_OAUTH_CLIENT_CREDENTIALS = 1,
    /* A workload with an assertion of its platform (RFC 7523's JWT bearer
     * grant): assertion, presented once; a refusal is final. */
    MCP_OAUTH_JWT_BEARER = 2,
    /* Enterprise-managed authorization: the user's identity assertion
     * (identity_token, an ID token of the enterprise's identity provider)
     * exchanged at idp_token_endpoint (RFC 8693) for an identity assertion
     * grant (ID-JAG) for the MCP server's authorization server, which is
     * then presented there as a JWT bearer grant by this client (its
     * client_id and client_secret). */
    MCP_OAUTH_ENTERPRISE = 3
} mcp_oauth_grant;

/*
 * The user's step of the authorization code grant: show (or open, when the
 * user asked) authorization_url, and return in *redirected the URL the
 * authorization server redirected the browser to (malloc'd, freed by the
 * library): redirect_uri with the answer in its query. MCP_OK, or an error
 * code (the flow stops; why, of why_len bytes, may say why).
 */
typedef int (*mcp_oauth_authorize_fn)(void *user_data, const char *authorization_url,
                                      const char *redirect_uri, char **redirected, char *why,
                                      size_t why_len);

/*
 * Storage of what the client keeps between runs. key names a record
 * ("tokens " and the resource, "client " and the issuer); value is JSON
 * text. load: MCP_OK with *value (malloc'd, freed by the library) or NULL
 * when there is none. save: value NULL erases. Errors from either are
 * reported in the flow's message and otherwise ignored: the client goes on
 * with what it holds in memory.
 */
typedef int (*mcp_oauth_load_fn)(void *user_data, const char *key, char **value);
typedef int (*mcp_oauth_save_fn)(void *user_data, const char *key, const char *value);
/*
 * Optional: one refresh at a time among the clients sharing the storage
 * (processes too). Called with held true before a refresh of key's
 * tokens, blocking until no other holder has it, and with held false once
 * the new tokens are saved (or the refresh failed). Between the two, the
 * client reads the record again: when another client refreshed meanwhile,
 * its tokens are taken and no refresh is made, so a rotating refresh token
 * is never spent twice. MCP_OK, or an error (the refresh goes on unlocked).
 */
typedef int (*mcp_oauth_lock_fn)(void *user_data, const char *key, bool held);

typedef struct mcp_oauth_options {
    size_t size; /* sizeof(mcp_oauth_options) */
    mcp_oauth_grant grant;
    /* A pre-registered client (copied): used with every authorization server
     * unless client_issuer names the one it belongs to. client_secret:
     * client_secret_basic or client_secret_post as the server supports;
     * client_private_key_pem (an unencrypted PEM private key, RSA or P-256):
     * private_key_jwt (RFC 7523), signed RS256 or ES256 as the key is, with
     * client_key_id as its kid when given. Neither: a public client. */
    const char *client_id, *client_secret, *client_issuer;
    const char *client_private_key_pem, *client_key_id;
    /* A Client ID Metadata Document URL (https, with a path) this client is
     * published at, used as its client_id where the server supports them. */
    const char *client_metadata_url;
    /* Dynamic registration's client_name; NULL: "libmcp". */
    const char *client_name;
    /* Where the authorization server sends the browser back (a loopback
     * URL of the application, RFC 8252); needed for the authorization code
     * grant. */
    const char *redirect_uri;
    /* Scopes asked besides those the server names (space-separated); for
     * client credentials, the only ones asked when the server names none. */
    const char *scope;
    /* Ask for a refresh token (offline_access where the server lists it),
     * with the authorization code grant only: the others get a new token
     * instead of a refresh. */
    bool offline_access;
    /* Proceed with an authorization server that does not advertise PKCE
     * S256 (some omit it from their metadata and support it); false: such a
     * server is refused, as the spec says. */
    bool without_s256;
    /* Proof of possession (RFC 9449) where the authorization server
     * offers it (ES256): tokens bound to a key this client makes, each
     * request with a fresh proof, servers' nonces honoured. */
    bool dpop;
    /* MCP_OAUTH_JWT_BEARER: the assertion. */
    const char *assertion;
    /* MCP_OAUTH_ENTERPRISE: the identity assertion, the identity
     * provider's token endpoint, and this client there (secret optional). */
    const char *identity_token, *idp_token_endpoint, *idp_client_id, *idp_client_secret;
    mcp_oauth_authorize_fn authorize;
    void *authorize_user_data;
    mcp_oauth_load_fn load; /* NULL: nothing is kept between runs */
    mcp_oauth_save_fn save;
    mcp_oauth_lock_fn lock; /* NULL: refreshes are not coordinated */
    void *store_user_data;
} mcp_oauth_options;

#ifdef __cplusplus
}
#endif

#endif
