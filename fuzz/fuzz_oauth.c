/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for what the OAuth client reads from servers (src/client/auth):
 * the first byte picks the reader, the rest is its input.
 *   0: Protected Resource Metadata for https://mcp.example/a/mcp
 *   1: authorization server metadata for https://as.example/t
 *   2: a token endpoint's answer
 *   3: a redirect's query (state "s1", issuer https://as.example/t)
 *   4: a registration record as the client keeps it
 * - What a reader accepts meets its promises: a resource naming this
 *   server, every authorization server an http(s) URL; the issuer the one
 *   asked; an access token an Authorization header carries as it is; a
 *   code only with the right state and iss; a record with its members.
 * - Nothing leaks, whatever the verdict.
 */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/auth/oauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c))                                                                              \
            abort();                                                                           \
    } while (0)

static bool header_safe(const char *s)
{
    for (; *s; s++)
        if (*s <= ' ' || *s > '~' || *s == ',' || *s == '"' || *s == '\\')
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *in = (const char *)data + 1;
    size_t n = size - 1;
    char why[256];
    switch (data[0] % 5) {
    case 0: {
        mcp__auth_prm p;
        if (mcp__auth_prm_read(in, n, "https://mcp.example/a/mcp", &p, why, sizeof why) ==
            MCP_OK) {
            /* A scheme and a host are case-insensitive (RFC 3986 6.2.2.1). */
            CHECK(p.resource && !strncasecmp(p.resource, "https://mcp.example", 19));
            CHECK(p.nservers >= 1);
            for (size_t i = 0; i < p.nservers; i++)
                CHECK(!strncasecmp(p.servers[i], "http", 4));
            mcp__auth_prm_free(&p);
        }
        break;
    }
    case 1: {
        mcp__auth_server s;
        if (mcp__auth_server_read(in, n, "https://as.example/t", &s, why, sizeof why) == MCP_OK) {
            CHECK(!strcmp(s.issuer, "https://as.example/t"));
            CHECK(s.authorization_endpoint && s.token_endpoint);
            mcp__auth_server_free(&s);
        }
        break;
    }
    case 2: {
        mcp__auth_tokens t;
        if (mcp__auth_token_response_read(in, n, 1000, &t, why, sizeof why) ==
            MCP__AUTH_TOKEN_OK) {
            CHECK(t.access_token && header_safe(t.access_token));
            CHECK(t.expires_at == 0 || t.expires_at >= 1000);
            mcp__auth_tokens_free(&t);
        } else {
            CHECK(!t.access_token && !t.refresh_token && !t.scope);
        }
        break;
    }
    case 3: {
        char *code = NULL;
        if (mcp__auth_callback_read(in, n, "s1", "https://as.example/t", true, &code, why,
                                    sizeof why) == MCP_OK) {
            CHECK(code);
            CHECK(memmem(in, n, "state=s1", 8) && memmem(in, n, "iss=", 4));
        } else {
            CHECK(!code);
        }
        free(code);
        break;
    }
    default: {
        mcp__auth_client c;
        if (mcp__auth_client_read(in, n, &c) == MCP_OK) {
            CHECK(c.issuer && c.client_id && c.method);
            mcp__auth_client_free(&c);
        }
        break;
    }
    }
    return 0;
}
