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
#include <stdint.h>

#include "mcp/common.h"
#include "mcp/json.h"

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
    /* authorization_response_iss_parameter_supported is true (RFC 9207) */
    bool iss_advertised;
    /* dpop_signing_alg_values_supported lists ES256 (RFC 9449 section 5.1),
     * grant_types_supported the JWT bearer grant (RFC 7523) */
    bool dpop_es256, jwt_bearer;
    /* taken from where the MCP server is, not named by an issuer (the
     * 2025-03-26 fallback): its issuer is what it says */
    bool legacy;
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

/* The 2025-03-26 fallbacks, for a server that serves no Protected Resource
 * Metadata: the authorization server is at the MCP server's origin (from
 * mcp__auth_legacy_base). Its metadata, read as mcp__auth_server_read
 * does, with the origin as its issuer whatever the document claims
 * (*renamed: it claimed another; nothing is shown or addressed to that
 * one); or, when it serves none, the default endpoints /authorize, /token
 * and /register at that origin. */
int mcp__auth_legacy_base(const char *server_url, char **origin, char *why, size_t n);
int mcp__auth_legacy_server_read(const char *json, size_t len, const char *origin,
                                 mcp__auth_server *out, bool *renamed, char *why, size_t n);
int mcp__auth_legacy_server_default(const char *origin, mcp__auth_server *out);

/* The readers' pieces, shared with the registration and token code. A JSON
 * object of at most MCP__AUTH_DOC_MAX bytes (what names it in why); a
 * string member without NUL bytes or NULL; whether an array member lists
 * want. */
int mcp__auth_parse_object(const char *json, size_t len, mcp_json_doc **d, const char *what,
                           char *why, size_t n);
const char *mcp__auth_text(const mcp_json *o, const char *name);
bool mcp__auth_listed(const mcp_json *o, const char *name, const char *want);

/* The flow (flow.c) ------------------------------------------------------- */

/* One authorization request's secrets: PKCE (RFC 7636, S256) and state. */
typedef struct mcp__auth_pkce {
    char verifier[44];  /* 43 characters: base64url of 32 random bytes */
    char challenge[44]; /* base64url of its SHA-256 */
    char state[23];     /* base64url of 16 random bytes */
} mcp__auth_pkce;

/* Fresh secrets from OpenSSL's random generator. MCP_OK, or MCP_ERR_IO
 * when it has none to give. */
int mcp__auth_pkce_new(mcp__auth_pkce *p);

/* What an authorization request asks. */
typedef struct mcp__auth_request {
    const char *client_id, *redirect_uri;
    const char *resource; /* sent as is (RFC 8707): the metadata's resource */
    const char *scope;    /* space-separated; NULL or "": none asked */
    const mcp__auth_pkce *pkce;
    bool without_s256;    /* proceed with a server that does not advertise S256 */
} mcp__auth_request;

/* The authorization URL: the server's authorization endpoint with
 * response_type=code, client_id, redirect_uri, code_challenge (S256),
 * state, resource and scope, form-encoded. MCP_ERR_INVALID_ARG (why says
 * so) when the server does not advertise S256 and r->without_s256 is
 * false, or a member needed is missing; MCP_ERR_LIMIT, MCP_ERR_NOMEM. */
int mcp__auth_authorize_url(const mcp__auth_server *as, const mcp__auth_request *r, mcp_buf *out,
                            char *why, size_t n);

/* The redirect's query read (the part after '?', len bytes) for the
 * request whose state and issuer were recorded: RFC 9207's table of
 * 2026-07-28 (iss, when present or when the server advertises it, must be
 * the recorded issuer, compared byte for byte, before anything else of the
 * response is acted on), then state, then an error the server sent, then
 * the code. MCP_OK with *code (malloc'd); MCP_ERR_REMOTE when the server
 * answered an error (why holds it); MCP_ERR_INVALID_ARG otherwise (why). */
int mcp__auth_callback_read(const char *query, size_t len, const char *state,
                            const char *issuer, bool iss_advertised, char **code, char *why,
                            size_t n);

/* Tokens as a token endpoint answered them. */
typedef struct mcp__auth_tokens {
    char *access_token, *refresh_token, *scope; /* refresh_token, scope: NULL when not given */
    bool dpop;          /* token_type DPoP; else Bearer */
    int64_t expires_at; /* seconds since the epoch; 0: not said */
    int64_t issued_at;  /* when the answer came (seconds since the epoch) */
} mcp__auth_tokens;

void mcp__auth_tokens_free(mcp__auth_tokens *t);

/* What a token endpoint's error means for what the client keeps. */
typedef enum {
    MCP__AUTH_TOKEN_OK = 0,
    MCP__AUTH_TOKEN_INVALID_GRANT,  /* drop the tokens (the refresh token is spent) */
    MCP__AUTH_TOKEN_INVALID_CLIENT, /* drop the registration */
    MCP__AUTH_TOKEN_ERROR,          /* another error the server named */
    MCP__AUTH_TOKEN_MALFORMED,      /* not a token response */
} mcp__auth_token_outcome;

/* A token endpoint's answer (its body, len bytes) at now_s: tokens (Bearer
 * or DPoP, expires_in turned into an absolute time), or the error it
 * names. why says what was wrong. *out is filled only for OK (free with
 * mcp__auth_tokens_free). MCP__AUTH_TOKEN_ERROR with why "out of memory"
 * when memory ran out. */
mcp__auth_token_outcome mcp__auth_token_response_read(const char *json, size_t len, int64_t now_s,
                                                      mcp__auth_tokens *out, char *why, size_t n);

/* Whether s is RFC 6750's b64token (at most 16 KiB): what an Authorization
 * header carries as it is. */
bool mcp__auth_b64token(const char *s);

/* The scopes to ask (malloc'd, NULL: none): the challenge's scope, else
 * the metadata's scopes_supported, else none (2026-07-28's strategy); on a
 * step up, the union of what was asked before and the challenge's; with
 * offline_access added when the authorization server lists it and
 * want_refresh. MCP_OK or MCP_ERR_NOMEM. */
int mcp__auth_scopes_to_ask(const char *challenge_scope, const char *prm_scopes,
                            const char *as_scopes, const char *asked_before, bool want_refresh,
                            char **out);

/* mcp__auth_form_add (a form's name=value) is transport/http_auth.h's,
 * shared with the resource server's introspection. */

#endif
