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
#include "transport/http_auth.h"

static int say(char *why, size_t n, int rc, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
    return rc;
}

int mcp__auth_issuer_metadata_read(const char *json, size_t len, const char *issuer,
                                   char **jwks_uri, char *why, size_t n)
{
    *jwks_uri = NULL;
    if (len > MCP__AS_METADATA_MAX_BYTES)
        return say(why, n, MCP_ERR_LIMIT, "the metadata is larger than 64 KiB");
    mcp_json_doc *d = NULL;
    mcp_json_error err = {0};
    int rc = mcp_json_parse(json, len, NULL, NULL, &d, &err);
    if (rc == MCP_ERR_NOMEM)
        return rc;
    if (rc != MCP_OK) {
        if (why && n)
            snprintf(why, n, "the metadata is not JSON (%s at byte %zu)", err.message, err.offset);
        return MCP_ERR_INVALID_ARG;
    }
    const mcp_json *root = mcp_json_doc_root(d);
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
