/* SPDX-License-Identifier: MIT */
/*
 * The authorization server's metadata, for its key set (auth.h): where it
 * may be, and what of it is used. Sans-I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcp/json.h"
#include "server/auth/auth.h"
#include "transport/http_headers.h"

static int say(char *why, size_t n, int rc, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
    return rc;
}

/* url's authority (after "scheme://", up to the path, query or fragment),
 * its length in *len; NULL when url is not http(s) with one. *https: the
 * scheme's. */
static const char *authority(const char *url, size_t *len, bool *https)
{
    const char *a = NULL;
    if (!strncasecmp(url, "https://", 8))
        a = url + 8, *https = true;
    else if (!strncasecmp(url, "http://", 7))
        a = url + 7, *https = false;
    if (!a)
        return NULL;
    *len = strcspn(a, "/?#");
    if (!*len || memchr(a, '@', *len))
        return NULL;
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return NULL;
    return a;
}

bool mcp__auth_url_secure(const char *url)
{
    size_t len;
    bool https;
    const char *a = url ? authority(url, &len, &https) : NULL;
    return a && !strchr(url, '#') && (https || mcp__http_loopback_name(a, len));
}

int mcp__auth_issuer_metadata_urls(const char *issuer, char *urls[3], size_t *count, char *why,
                                   size_t n)
{
    *count = 0;
    size_t alen;
    bool https;
    const char *a = issuer ? authority(issuer, &alen, &https) : NULL;
    if (!mcp__auth_url_secure(issuer) || strchr(issuer, '?'))
        return say(why, n, MCP_ERR_INVALID_ARG,
                   "the issuer is not an https URL (http only on a loopback host) without a "
                   "query or fragment (RFC 8414 section 2)");
    size_t origin = (size_t)(a - issuer) + alen;
    const char *path = issuer + origin;
    size_t plen = strlen(path);
    while (plen && path[plen - 1] == '/')
        plen--;
    static const char as[] = "/.well-known/oauth-authorization-server";
    static const char oidc[] = "/.well-known/openid-configuration";
    const char *forms[3][2] = {{as, ""}, {oidc, ""}, {"", oidc}};
    size_t want = plen ? 3 : 2;
    for (size_t i = 0; i < want; i++) {
        size_t size = origin + strlen(forms[i][0]) + plen + strlen(forms[i][1]) + 1;
        if (!(urls[i] = malloc(size))) {
            for (size_t j = 0; j < i; j++)
                free(urls[j]);
            return MCP_ERR_NOMEM;
        }
        snprintf(urls[i], size, "%.*s%s%.*s%s", (int)origin, issuer, forms[i][0], (int)plen, path,
                 forms[i][1]);
    }
    *count = want;
    return MCP_OK;
}

int mcp__auth_issuer_metadata_read(const char *json, size_t len, const char *issuer,
                                   char **jwks_uri, char *why, size_t n)
{
    *jwks_uri = NULL;
    if (len > MCP__AS_METADATA_MAX_BYTES)
        return say(why, n, MCP_ERR_LIMIT, "the metadata is larger than 64 KiB");
    mcp_json_doc *d = NULL;
    int rc = mcp_json_parse(json, len, NULL, NULL, &d, NULL);
    if (rc == MCP_ERR_NOMEM)
        return rc;
    const mcp_json *root = rc == MCP_OK ? mcp_json_doc_root(d) : NULL;
    if (mcp_json_typeof(root) != MCP_JSON_OBJECT) {
        mcp_json_doc_free(d);
        return say(why, n, MCP_ERR_INVALID_ARG, "the metadata is not a JSON object");
    }
    size_t ilen = 0, ulen = 0;
    const char *iss = mcp_json_string(mcp_json_object_get(root, "issuer"), &ilen);
    const char *uri = mcp_json_string(mcp_json_object_get(root, "jwks_uri"), &ulen);
    if (!iss || ilen != strlen(issuer) || memcmp(iss, issuer, ilen)) {
        if (why && n) {
            if (iss && !memchr(iss, '\0', ilen))
                snprintf(why, n,
                         "the metadata names the issuer \"%.100s\", not \"%.100s\" (they must be "
                         "the same byte for byte: RFC 8414 section 3.3)",
                         iss, issuer);
            else
                snprintf(why, n, "the metadata names no issuer (a string)");
        }
        mcp_json_doc_free(d);
        return MCP_ERR_INVALID_ARG;
    }
    rc = MCP_OK;
    if (!uri || memchr(uri, '\0', ulen))
        rc = say(why, n, MCP_ERR_INVALID_ARG, "the metadata has no jwks_uri (a string)");
    else if (!mcp__auth_url_secure(uri))
        rc = say(why, n, MCP_ERR_INVALID_ARG,
                 "the metadata's jwks_uri is not https (http only on a loopback host)");
    else if (!(*jwks_uri = strdup(uri)))
        rc = MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    return rc;
}
