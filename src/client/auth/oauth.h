/* SPDX-License-Identifier: MIT */
/*
 * The OAuth client with its I/O (include/mcp/oauth.h): fetch.c (blocking
 * HTTP exchanges), register.c (who this client is at an authorization
 * server), token.c (token requests), engine.c (the flow, and the
 * transport's authorization hooks).
 *
 * One engine per client, used on the thread that drives the client: the
 * transport's hooks run the flow there, blocking (see oauth.h).
 */
#ifndef MCP_CLIENT_AUTH_OAUTH_H
#define MCP_CLIENT_AUTH_OAUTH_H

#include "client/auth/auth.h"
#include "core/buf.h"
#include "mcp/common.h"
#include "mcp/oauth.h"
#include "transport/http_client.h"

/* fetch.c ------------------------------------------------------------------ */

typedef struct mcp__auth_http {
    const char *ca_file; /* NULL: the system's */
    bool tls_no_verify;
    uint64_t timeout_ms; /* each exchange in all; 0: 30 s */
    uint64_t deadline_ms; /* monotonic ms the whole flow must end by; 0: none */
    size_t max_body;     /* 0: MCP__AUTH_DOC_MAX */
} mcp__auth_http;

typedef struct mcp__auth_reply {
    long status;
    mcp_buf body; /* data NULL when empty */
    char *location, *www_authenticate, *dpop_nonce; /* NULL when absent */
} mcp__auth_reply;

/* One exchange: method "GET" or "POST" (body, body_len), header lines
 * NULL-terminated (may be NULL). MCP_OK with *out filled for any HTTP
 * answer (free with mcp__auth_reply_free); MCP_ERR_IO (no answer: why
 * says why), MCP_ERR_LIMIT (the body over h->max_body), MCP_ERR_NOMEM. */
int mcp__auth_fetch(const mcp__auth_http *h, const char *method, const char *url,
                    const char *const *headers, const char *body, size_t body_len,
                    mcp__auth_reply *out, char *why, size_t n);
void mcp__auth_reply_free(mcp__auth_reply *r);

/* register.c --------------------------------------------------------------- */

/* Who this client is at one authorization server. */
typedef struct mcp__auth_client {
    char *issuer; /* the server these belong to */
    char *client_id, *client_secret; /* client_secret NULL: none */
    char *redirect_uri; /* what it was registered with (dynamic registration) */
    unsigned method;    /* the MCP__AUTH_METHOD_* to authenticate with */
    bool registered;    /* got by dynamic registration (renewable) */
} mcp__auth_client;

void mcp__auth_client_free(mcp__auth_client *c);

/* The client's identity at as, in the spec's order: the stored one (when
 * its redirect URI still matches), the pre-registered one (o->client_id,
 * when o->client_issuer is NULL or as's issuer), a Client ID Metadata
 * Document URL (when as supports them), dynamic registration (RFC 7591).
 * MCP_OK fills *out; else why. */
int mcp__auth_client_get(const mcp_oauth_options *o, const mcp__auth_http *h,
                         const mcp__auth_server *as, mcp__auth_client *out, char *why,
                         size_t n);
/* The record a client is kept as, and read back (register.c's format). */
int mcp__auth_client_write(const mcp__auth_client *c, mcp_buf *out);
int mcp__auth_client_read(const char *json, size_t len, mcp__auth_client *out);

/* dpop.c ------------------------------------------------------------------- */

typedef struct mcp__jose_key mcp__jose_key;

/* The client's DPoP key and the nonces servers gave (zeroed: none yet). */
typedef struct mcp__auth_dpop {
    mcp__jose_key *key; /* made at the first proof */
    mcp_buf jwk;        /* its public half (set with key) */
    char *as_nonce, *rs_nonce;
} mcp__auth_dpop;

void mcp__auth_dpop_free(mcp__auth_dpop *d);
/* A proof for a request (htm, htu: its method and URL; the query and
 * fragment are left out), with ath when access_token is not NULL and
 * nonce when not NULL, appended to out. MCP_OK, MCP_ERR_IO (no key could
 * be made), MCP_ERR_LIMIT, MCP_ERR_NOMEM. */
int mcp__auth_dpop_proof(mcp__auth_dpop *d, const char *htm, const char *htu,
                         const char *access_token, const char *nonce, int64_t now_s,
                         mcp_buf *out);
/* Keep a server's nonce (at most 1 KiB) in *slot. */
int mcp__auth_dpop_set_nonce(char **slot, const char *nonce);

/* token.c ------------------------------------------------------------------ */

/* A token request: grant-specific fields already in form (form-encoded,
 * without client authentication); the client's authentication is added
 * (client_secret_basic, client_secret_post, none: client_id in the body,
 * private_key_jwt: an assertion signed with o's key for as's issuer). */
typedef struct mcp__auth_token_request {
    const mcp_oauth_options *o;
    const mcp__auth_http *h;
    const mcp__auth_server *as;
    const mcp__auth_client *client;
    mcp_buf *form;
    int64_t now_s;
    mcp__auth_dpop *dpop; /* a proof with the request (RFC 9449 section 5); NULL: none */
} mcp__auth_token_request;

mcp__auth_token_outcome mcp__auth_token_post(const mcp__auth_token_request *r,
                                             mcp__auth_tokens *out, char *why, size_t n);

/* engine.c ----------------------------------------------------------------- */

typedef struct mcp__oauth mcp__oauth;

/* An engine for the MCP server at server_url (copied), with o (copied) and
 * h's TLS settings (copied); log (optional) hears what it does. NULL:
 * out of memory or o unusable (why says). */
mcp__oauth *mcp__oauth_new(const mcp_oauth_options *o, const char *server_url,
                           const mcp__auth_http *h,
                           void (*log)(void *ud, mcp_log_level level, const char *text),
                           void *log_ud, char *why, size_t n);
void mcp__oauth_free(mcp__oauth *e);

/* The transport's hooks (transport/http_client.h), for e. */
const mcp__http_client_auth *mcp__oauth_hooks(mcp__oauth *e);

/* Why the last flow failed ("" when none did). Borrowed. */
const char *mcp__oauth_error(const mcp__oauth *e);

#endif
