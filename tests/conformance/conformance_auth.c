/* SPDX-License-Identifier: MIT */
/*
 * The auth/ client scenarios: what an application gives the library's
 * OAuth client (mcp_oauth_options), taken from MCP_CONFORMANCE_CONTEXT
 * where the scenario gives credentials. The user's step is played without
 * a browser: the suite's authorization endpoint redirects at once, so the
 * authorization URL is fetched without following the redirect and its
 * Location is the URL the browser would have been sent to. Everything
 * else (discovery, registration, the grant, the checks) is the library's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "conformance.h"

/* What basic-cimd expects this client to be published at (the suite has
 * it hard-coded, as its own client does). */
#define CIMD_URL "https://conformance-test.local/client-metadata.json"
/* Nothing listens there: the redirect is read, not followed. */
#define REDIRECT_URI "http://localhost:3000/callback"

static size_t drop_body(char *p, size_t size, size_t nmemb, void *ud)
{
    (void)p;
    (void)ud;
    return size * nmemb;
}

static int follow_once(void *ud, const char *authorization_url, const char *redirect_uri,
                       char **redirected, char *why, size_t why_len)
{
    (void)ud;
    (void)redirect_uri;
    CURL *e = curl_easy_init();
    if (!e)
        return MCP_ERR_NOMEM;
    curl_easy_setopt(e, CURLOPT_URL, authorization_url);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, drop_body);
    CURLcode code = curl_easy_perform(e);
    char *location = NULL;
    if (code == CURLE_OK)
        curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &location);
    if (location)
        *redirected = strdup(location);
    else
        snprintf(why, why_len, "the authorization endpoint did not redirect (%s)",
                 code == CURLE_OK ? "no Location" : curl_easy_strerror(code));
    curl_easy_cleanup(e);
    return *redirected ? MCP_OK : MCP_ERR_IO;
}

static char *context_text(const mcp_json *ctx, const char *name)
{
    size_t n;
    const char *s = mcp_json_string(mcp_json_object_get(ctx, name), &n);
    return s && !memchr(s, '\0', n) ? strdup(s) : NULL;
}

void conformance_auth_free(conformance_auth *a)
{
    free(a->client_id);
    free(a->client_secret);
    free(a->issuer);
    free(a->private_key);
    free(a->assertion);
    free(a->identity_token);
    free(a->idp_token_endpoint);
    free(a->idp_client_id);
    memset(a, 0, sizeof *a);
}

int conformance_auth_options(const char *scenario, conformance_auth *a)
{
    memset(a, 0, sizeof *a);
    a->o = (mcp_oauth_options){.size = sizeof a->o,
                               .client_metadata_url = CIMD_URL,
                               .client_name = "libmcp conformance client",
                               .redirect_uri = REDIRECT_URI,
                               .offline_access = true,
                               .dpop = true,
                               .authorize = follow_once};
    const char *text = getenv("MCP_CONFORMANCE_CONTEXT");
    mcp_json_doc *d = NULL;
    if (!text)
        return MCP_OK;
    if (mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL) != MCP_OK) {
        fprintf(stderr, "mcp-conformance client: MCP_CONFORMANCE_CONTEXT is not JSON\n");
        return MCP_ERR_INVALID_ARG;
    }
    const mcp_json *ctx = mcp_json_doc_root(d);
    a->client_id = context_text(ctx, "client_id");
    a->client_secret = context_text(ctx, "client_secret");
    a->issuer = context_text(ctx, "issuer");
    a->private_key = context_text(ctx, "private_key_pem");
    /* wif-jwt-bearer gives three assertions: the valid one is this
     * workload's (the others are for the suite's broken clients). */
    a->assertion = context_text(ctx, "valid_jwt");
    a->identity_token = context_text(ctx, "idp_id_token");
    a->idp_token_endpoint = context_text(ctx, "idp_token_endpoint");
    a->idp_client_id = context_text(ctx, "idp_client_id");
    mcp_json_doc_free(d);
    a->o.client_id = a->client_id;
    a->o.client_secret = a->client_secret;
    a->o.client_issuer = a->issuer;
    a->o.client_private_key_pem = a->private_key;
    a->o.assertion = a->assertion;
    a->o.identity_token = a->identity_token;
    a->o.idp_token_endpoint = a->idp_token_endpoint;
    a->o.idp_client_id = a->idp_client_id;
    if (!strncmp(scenario, "auth/client-credentials-", 24))
        a->o.grant = MCP_OAUTH_CLIENT_CREDENTIALS;
    else if (a->assertion)
        a->o.grant = MCP_OAUTH_JWT_BEARER;
    else if (a->identity_token)
        a->o.grant = MCP_OAUTH_ENTERPRISE;
    return MCP_OK;
}
