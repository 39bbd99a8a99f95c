/* SPDX-License-Identifier: MIT */
/*
 * A 2026-07-28 requestState of this server's (basic/patterns/mrtr.mdx):
 * attacker-controlled input that must come back unchanged, to the same
 * request, from the same caller, in time. It is base64(payload) "."
 * base64(HMAC-SHA256 of the payload under the server's key); the payload
 * is JSON with an expiry ("x"), a digest of the request it belongs to
 * ("d": method, name or URI, arguments) and, over HTTP, of the credential
 * it came with ("p": the Authorization value, MACed, for the library knows
 * no principal beyond it), then what its user carries (the asking
 * feature's answers, the gateway's held call). Two users share it: what
 * one seals the other never takes, for each asks for its own members.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "core/base64.h"
#include "server/core/core.h"
#include "session/revision.h"

#define DIGEST_LEN 32

/* The request the state belongs to, as hex: SHA-256 of the method, the
 * name or URI, and the arguments as sent. */
static int request_digest(const mcp_message *msg, char hex[2 * DIGEST_LEN + 1])
{
    const mcp_json *params = msg->params;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = mcp_buf_append(&b, msg->method, msg->method_len + 1);
    size_t n;
    bool read = !strcmp(msg->method, "resources/read");
    const char *subject = mcp_json_string(mcp_json_object_get(params, read ? "uri" : "name"), &n);
    if (rc == MCP_OK && subject)
        rc = mcp_buf_append(&b, subject, n + 1);
    const mcp_json *args = mcp_json_object_get(params, "arguments");
    if (rc == MCP_OK && args)
        rc = mcp_json_write(args, &b);
    unsigned char md[DIGEST_LEN];
    unsigned mdn = 0;
    if (rc == MCP_OK && !EVP_Digest(b.data, b.len, md, &mdn, EVP_sha256(), NULL))
        rc = MCP_ERR_NOMEM;
    mcp_buf_free(&b);
    for (unsigned i = 0; rc == MCP_OK && i < DIGEST_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return rc;
}

static bool mac(const mcp_server *s, const char *data, size_t n, unsigned char out[DIGEST_LEN])
{
    unsigned len = 0;
    return HMAC(EVP_sha256(), s->state_key, (int)s->state_key_len, (const unsigned char *)data, n,
                out, &len) != NULL &&
           len == DIGEST_LEN;
}

/* Who the state is for: keyed with the server's key, so the state (which
 * the client reads) tells nothing about the credential. Empty without one
 * (stdio, HTTP without Authorization). The credential is the client's
 * text: after "p\n" it can never pass for a payload (which begins with
 * '{'), else a client could have its Authorization value MACed for it. */
static bool principal_of(const conn *c, char hex[2 * DIGEST_LEN + 1])
{
    const char *credential = c->credential;
    hex[0] = '\0';
    if (!credential)
        return true;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    unsigned char tag[DIGEST_LEN];
    bool ok = mcp_buf_append(&b, MCP_LITERAL("p\n")) == MCP_OK &&
              mcp_buf_append(&b, credential, strlen(credential)) == MCP_OK &&
              mac(c->server, b.data, b.len, tag);
    mcp_buf_free(&b);
    for (unsigned i = 0; ok && i < DIGEST_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", tag[i]);
    return ok;
}

const char *mcp__request_state_open(const conn *c, const mcp_message *msg, const char *state,
                                    size_t n, mcp_json_doc **out)
{
    *out = NULL;
    const mcp_server *s = c->server;
    const char *dot = memchr(state, '.', n); /* never in Base64 */
    if (!dot)
        return "requestState is not one this server gave";
    mcp_buf payload, tag;
    mcp_buf_init(&payload, n, NULL);
    mcp_buf_init(&tag, 64, NULL);
    unsigned char want[DIGEST_LEN];
    const char *why = NULL;
    if (mcp__base64_decode(&payload, state, (size_t)(dot - state)) != MCP_OK ||
        mcp__base64_decode(&tag, dot + 1, n - (size_t)(dot - state) - 1) != MCP_OK ||
        tag.len != DIGEST_LEN || !mac(s, payload.data, payload.len, want) ||
        CRYPTO_memcmp(want, tag.data, DIGEST_LEN) != 0)
        why = "requestState failed its integrity check";
    mcp_json_doc *d = NULL;
    if (!why && mcp_json_parse(payload.data, payload.len, NULL, NULL, &d, NULL) != MCP_OK)
        why = "requestState failed its integrity check";
    const mcp_json *root = d ? mcp_json_doc_root(d) : NULL;
    int64_t expiry = 0;
    char digest[2 * DIGEST_LEN + 1];
    const char *sealed_for = mcp_json_string(mcp_json_object_get(root, "d"), NULL);
    if (!why && (mcp_json_get_int64(mcp_json_object_get(root, "x"), &expiry) != MCP_OK ||
                 !sealed_for))
        why = "requestState failed its integrity check";
    else if (!why && (uint64_t)expiry < mcp__wall_ms())
        why = "requestState has expired: send the request again without it";
    else if (!why && (request_digest(msg, digest) != MCP_OK || strcmp(digest, sealed_for) != 0))
        why = "requestState belongs to another request";
    const char *sealed_to = mcp_json_string(mcp_json_object_get(root, "p"), NULL);
    if (!why && (!principal_of(c, digest) || strcmp(digest, sealed_to ? sealed_to : "") != 0))
        why = "requestState was given for other credentials (Authorization)";
    mcp_buf_free(&payload);
    mcp_buf_free(&tag);
    if (why)
        mcp_json_doc_free(d);
    else
        *out = d;
    return why;
}

int mcp__request_state_seal(const conn *c, const mcp_message *msg, const char *members,
                            size_t members_len, mcp_buf *out)
{
    const mcp_server *s = c->server;
    char digest[2 * DIGEST_LEN + 1], principal[2 * DIGEST_LEN + 1];
    int rc = request_digest(msg, digest);
    if (rc == MCP_OK && !principal_of(c, principal))
        rc = MCP_ERR_NOMEM;
    mcp_buf payload;
    mcp_buf_init(&payload, 0, NULL);
    if (rc == MCP_OK) {
        char head[240];
        int n = snprintf(head, sizeof head, "{\"v\":1,\"x\":%llu,\"d\":\"%s\",%s%s%s",
                         (unsigned long long)(mcp__wall_ms() + s->opts.request_state_ttl_ms), digest,
                         principal[0] ? "\"p\":\"" : "", principal, principal[0] ? "\"," : "");
        rc = mcp_buf_append(&payload, head, (size_t)n);
    }
    if (rc == MCP_OK)
        rc = mcp_buf_append(&payload, members, members_len);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&payload, MCP_LITERAL("}"));
    unsigned char tag[DIGEST_LEN];
    if (rc == MCP_OK && !mac(s, payload.data, payload.len, tag))
        rc = MCP_ERR_NOMEM;
    if (rc == MCP_OK)
        rc = mcp__base64_encode(out, payload.data, payload.len);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, MCP_LITERAL("."));
    if (rc == MCP_OK)
        rc = mcp__base64_encode(out, tag, sizeof tag);
    mcp_buf_free(&payload);
    return rc;
}

const mcp_json *mcp__request_client_caps(const mcp_message *msg)
{
    return mcp_json_object_get(mcp_json_object_get(msg->params, "_meta"),
                               "io.modelcontextprotocol/clientCapabilities");
}

/* The capability a client must have declared for the method. */
static bool is_object(const mcp_json *v)
{
    return v && mcp_json_typeof(v) == MCP_JSON_OBJECT;
}

bool mcp__ask_declared(const mcp_json *caps, const char *version, const char *method,
                       const mcp_json *params)
{
    /* Elicitation came with 2025-06-18, its URL mode with 2025-11-25: an
     * older client has no such request, whatever its capabilities say. */
    if (!strcmp(method, "elicitation/create") && version &&
        !mcp__revision_has(version, MCP__HAS_ELICITATION))
        return false;
    const char *mode = mcp_json_string(mcp_json_object_get(params, "mode"), NULL);
    bool url = mode && !strcmp(mode, "url");
    if (url && version && !mcp__revision_has(version, MCP__HAS_URL_ELICITATION))
        return false;
    /* A capability is an object (schema.ts); true or null declares nothing. */
    if (!strcmp(method, "sampling/createMessage"))
        return is_object(mcp_json_object_get(caps, "sampling"));
    if (!strcmp(method, "roots/list"))
        return is_object(mcp_json_object_get(caps, "roots"));
    const mcp_json *e = mcp_json_object_get(caps, "elicitation");
    if (!is_object(e))
        return false;
    /* An empty elicitation capability means form mode (client/elicitation.mdx). */
    if (url)
        return is_object(mcp_json_object_get(e, "url"));
    return mcp_json_object_size(e) == 0 || is_object(mcp_json_object_get(e, "form"));
}
