/* SPDX-License-Identifier: MIT */
/*
 * Who this client is at an authorization server, in the order of the
 * specification (2025-11-25 and 2026-07-28, client registration): the
 * credentials given in advance, a Client ID Metadata Document URL where
 * the server takes them, dynamic registration (RFC 7591), else an error
 * that says what the server would need.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/auth/oauth.h"
#include "json/writer.h"

void mcp__auth_client_free(mcp__auth_client *c)
{
    free(c->issuer);
    free(c->client_id);
    free(c->client_secret);
    free(c->redirect_uri);
    memset(c, 0, sizeof *c);
}

static char *dup_or_null(const char *s, bool *nomem)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *nomem = true;
    return d;
}

/* The method to authenticate with: the one registered when the server
 * takes it, else the best the server lists for what the client holds. */
static unsigned method_for(const mcp__auth_server *as, bool secret, bool key, unsigned registered)
{
    if (registered && (as->auth_methods & registered))
        return registered;
    if (key && (as->auth_methods & MCP__AUTH_METHOD_KEY_JWT))
        return MCP__AUTH_METHOD_KEY_JWT;
    if (secret && (as->auth_methods & MCP__AUTH_METHOD_BASIC))
        return MCP__AUTH_METHOD_BASIC;
    if (secret && (as->auth_methods & MCP__AUTH_METHOD_POST))
        return MCP__AUTH_METHOD_POST;
    if (!secret && !key)
        return MCP__AUTH_METHOD_NONE;
    /* Credentials the server lists no method for: the registered one, or
     * what RFC 6749 says every server takes for a secret. */
    return registered ? registered : key ? MCP__AUTH_METHOD_KEY_JWT : MCP__AUTH_METHOD_BASIC;
}

static unsigned method_named(const char *name)
{
    static const char *const names[] = {"client_secret_basic", "client_secret_post", "none",
                                        "private_key_jwt"};
    for (unsigned i = 0; name && i < 4; i++)
        if (!strcmp(name, names[i]))
            return 1u << i;
    return 0;
}

static const char *method_name(unsigned m)
{
    return m == MCP__AUTH_METHOD_POST      ? "client_secret_post"
           : m == MCP__AUTH_METHOD_NONE    ? "none"
           : m == MCP__AUTH_METHOD_KEY_JWT ? "private_key_jwt"
                                           : "client_secret_basic";
}

/* Dynamic registration: a native client (loopback redirect, RFC 8252)
 * asking for the code grant and refresh tokens, public unless the
 * server lists no "none". */
static int register_dynamically(const mcp_oauth_options *o, const mcp__auth_http *h,
                                const mcp__auth_server *as, mcp__auth_client *out, char *why,
                                size_t n)
{
    mcp_buf body;
    mcp_buf_init(&body, MCP__AUTH_DOC_MAX, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &body);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "client_name");
    mcp__jw_string(&w, o->client_name ? o->client_name : "libmcp");
    mcp__jw_key(&w, "application_type");
    mcp__jw_string(&w, "native");
    bool code = o->grant == MCP_OAUTH_AUTHORIZATION_CODE;
    if (code) {
        mcp__jw_key(&w, "redirect_uris");
        mcp__jw_array(&w);
        mcp__jw_string(&w, o->redirect_uri);
        mcp__jw_array_end(&w);
        mcp__jw_key(&w, "response_types");
        mcp__jw_array(&w);
        mcp__jw_string(&w, "code");
        mcp__jw_array_end(&w);
    }
    mcp__jw_key(&w, "grant_types");
    mcp__jw_array(&w);
    mcp__jw_string(&w, code ? "authorization_code" : "client_credentials");
    if (code)
        mcp__jw_string(&w, "refresh_token");
    mcp__jw_array_end(&w);
    mcp__jw_key(&w, "token_endpoint_auth_method");
    /* Public when the server takes that (a native client keeps no secret
     * safe), else the secret method it lists. */
    mcp__jw_string(&w, code && (as->auth_methods & MCP__AUTH_METHOD_NONE) ? "none"
                       : !(as->auth_methods & MCP__AUTH_METHOD_BASIC) &&
                               (as->auth_methods & MCP__AUTH_METHOD_POST)
                           ? "client_secret_post"
                           : "client_secret_basic");
    mcp__jw_object_end(&w);
    int rc = mcp__jw_finish(&w);
    if (rc != MCP_OK) {
        mcp_buf_free(&body);
        return rc;
    }
    static const char *const headers[] = {"Content-Type: application/json",
                                          "Accept: application/json", NULL};
    mcp__auth_reply r;
    rc = mcp__auth_fetch(h, "POST", as->registration_endpoint, headers, body.data, body.len, &r,
                         why, n);
    mcp_buf_free(&body);
    if (rc != MCP_OK)
        return rc;
    mcp_json_doc *d = NULL;
    if (r.status != 200 && r.status != 201) {
        /* The server's words (the first 200 bytes), control bytes escaped. */
        char said[804];
        mcp_text_escape_controls(r.body.data ? r.body.data : "", r.body.len < 200 ? r.body.len : 200,
                                 said, sizeof said);
        snprintf(why, n, "dynamic registration at %s was refused: HTTP %ld %s",
                 as->registration_endpoint, r.status, said);
        mcp__auth_reply_free(&r);
        return MCP_ERR_REMOTE;
    }
    rc = mcp__auth_parse_object(r.body.data, r.body.len, &d, "registration answer", why, n);
    mcp__auth_reply_free(&r);
    if (rc != MCP_OK)
        return rc;
    const mcp_json *root = mcp_json_doc_root(d);
    const char *id = mcp__auth_text(root, "client_id");
    bool nomem = false;
    if (!id || !*id) {
        snprintf(why, n, "the registration answer has no client_id");
        rc = MCP_ERR_PROTOCOL;
    } else {
        out->client_id = dup_or_null(id, &nomem);
        out->client_secret = dup_or_null(mcp__auth_text(root, "client_secret"), &nomem);
        out->redirect_uri = dup_or_null(o->redirect_uri, &nomem);
        out->registered = true;
        out->method = method_for(as, out->client_secret != NULL, false,
                                 method_named(mcp__auth_text(root, "token_endpoint_auth_method")));
    }
    mcp_json_doc_free(d);
    return nomem ? MCP_ERR_NOMEM : rc;
}

int mcp__auth_client_get(const mcp_oauth_options *o, const mcp__auth_http *h,
                         const mcp__auth_server *as, mcp__auth_client *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    bool nomem = false;
    int rc = MCP_OK;
    if (!(out->issuer = dup_or_null(as->issuer, &nomem)))
        return MCP_ERR_NOMEM;
    bool mine = o->client_id && (!o->client_issuer || !strcmp(o->client_issuer, as->issuer));
    if (mine) {
        out->client_id = dup_or_null(o->client_id, &nomem);
        out->client_secret = dup_or_null(o->client_secret, &nomem);
        out->method = method_for(as, o->client_secret != NULL, o->client_private_key_pem != NULL,
                                 0);
    } else if (o->client_metadata_url && as->client_id_metadata_documents &&
               o->grant == MCP_OAUTH_AUTHORIZATION_CODE) {
        out->client_id = dup_or_null(o->client_metadata_url, &nomem);
        out->method = MCP__AUTH_METHOD_NONE;
    } else if (as->registration_endpoint) {
        rc = register_dynamically(o, h, as, out, why, n);
    } else {
        snprintf(why, n,
                 "the authorization server %s offers no dynamic registration%s: give this "
                 "client's credentials there (client_id)",
                 as->issuer,
                 o->client_metadata_url ? " and takes no client metadata document URL"
                                        : ", and no client metadata document URL was given");
        rc = MCP_ERR_INVALID_ARG;
    }
    if (rc == MCP_OK && nomem)
        rc = MCP_ERR_NOMEM;
    if (rc != MCP_OK)
        mcp__auth_client_free(out);
    return rc;
}

int mcp__auth_client_write(const mcp__auth_client *c, mcp_buf *out)
{
    mcp__jw w;
    mcp__jw_begin(&w, out);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "issuer");
    mcp__jw_string(&w, c->issuer);
    mcp__jw_key(&w, "client_id");
    mcp__jw_string(&w, c->client_id);
    if (c->client_secret) {
        mcp__jw_key(&w, "client_secret");
        mcp__jw_string(&w, c->client_secret);
    }
    if (c->redirect_uri) {
        mcp__jw_key(&w, "redirect_uri");
        mcp__jw_string(&w, c->redirect_uri);
    }
    mcp__jw_key(&w, "token_endpoint_auth_method");
    mcp__jw_string(&w, method_name(c->method));
    mcp__jw_key(&w, "registered");
    mcp__jw_bool(&w, c->registered);
    mcp__jw_object_end(&w);
    return mcp__jw_finish(&w);
}

int mcp__auth_client_read(const char *json, size_t len, mcp__auth_client *out)
{
    memset(out, 0, sizeof *out);
    mcp_json_doc *d = NULL;
    int rc = mcp__auth_parse_object(json, len, &d, "stored client", NULL, 0);
    if (rc != MCP_OK)
        return rc;
    const mcp_json *root = mcp_json_doc_root(d);
    bool nomem = false, reg = false;
    out->issuer = dup_or_null(mcp__auth_text(root, "issuer"), &nomem);
    out->client_id = dup_or_null(mcp__auth_text(root, "client_id"), &nomem);
    out->client_secret = dup_or_null(mcp__auth_text(root, "client_secret"), &nomem);
    out->redirect_uri = dup_or_null(mcp__auth_text(root, "redirect_uri"), &nomem);
    out->method = method_named(mcp__auth_text(root, "token_endpoint_auth_method"));
    out->registered =
        mcp_json_get_bool(mcp_json_object_get(root, "registered"), &reg) == MCP_OK && reg;
    mcp_json_doc_free(d);
    rc = nomem ? MCP_ERR_NOMEM : !out->issuer || !out->client_id || !out->method
                                     ? MCP_ERR_INVALID_ARG
                                     : MCP_OK;
    if (rc != MCP_OK)
        mcp__auth_client_free(out);
    return rc;
}
