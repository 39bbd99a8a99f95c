/* SPDX-License-Identifier: MIT */
/*
 * The OAuth client's own HTTP exchanges (metadata, registration, tokens):
 * blocking, transport/http_fetch.c's exchange each, bounded in time and
 * size, the headers the flow reads kept, redirects never followed (a metadata document or a token endpoint that
 * moves is an answer, not an instruction: RFC 8414 and RFC 9728 give the
 * URLs, and a token request must not be replayed elsewhere).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/auth/oauth.h"
#include "runtime/internal.h"
#include "transport/http_fetch.h"
#include "transport/http_headers.h"

void mcp__auth_reply_free(mcp__auth_reply *r)
{
    mcp_buf_free(&r->body);
    free(r->location);
    free(r->www_authenticate);
    free(r->dpop_nonce);
    memset(r, 0, sizeof *r);
}

static void on_header(void *ud, const char *p, size_t n)
{
    mcp__auth_reply *r = ud;
    if (n > 5 && !strncmp(p, "HTTP/", 5)) {
        /* A new response (after 100 Continue): what came before is not its. */
        free(r->location);
        free(r->www_authenticate);
        free(r->dpop_nonce);
        r->location = r->www_authenticate = r->dpop_nonce = NULL;
    } else if (n > 9 && !strncasecmp(p, "location:", 9)) {
        mcp__http_header_keep(&r->location, p + 9, n - 9, false);
    } else if (n > 17 && !strncasecmp(p, "www-authenticate:", 17)) {
        mcp__http_header_keep(&r->www_authenticate, p + 17, n - 17, true);
    } else if (n > 11 && !strncasecmp(p, "dpop-nonce:", 11)) {
        mcp__http_header_keep(&r->dpop_nonce, p + 11, n - 11, false);
    }
}

int mcp__auth_fetch(const mcp__auth_http *h, const char *method, const char *url,
                    const char *const *headers, const char *body, size_t body_len,
                    mcp__auth_reply *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    uint64_t timeout = h->timeout_ms ? h->timeout_ms : 30000;
    if (h->deadline_ms) {
        /* Each exchange gets what is left of the flow's time, not a time
         * of its own: a server slow at every step cannot add them up. */
        uint64_t now = mcp__now_ms();
        if (now >= h->deadline_ms) {
            snprintf(why, n, "the authorization's time ran out before %s %s", method, url);
            return MCP_ERR_TIMED_OUT;
        }
        if (h->deadline_ms - now < timeout)
            timeout = h->deadline_ms - now;
    }
    size_t max = h->max_body ? h->max_body : MCP__AUTH_DOC_MAX;
    mcp_buf_init(&out->body, 0, NULL);
    mcp__http_request r = {.method = method,
                           .url = url,
                           .headers = headers,
                           .body = body,
                           .body_len = body_len,
                           .ca_file = h->ca_file,
                           .tls_no_verify = h->tls_no_verify,
                           .max = max,
                           .timeout_ms = (unsigned)timeout,
                           .connect_timeout_ms = 10000,
                           .header = on_header,
                           .header_ud = out};
    char w[512] = "";
    int rc = mcp__http_request_make(&r, &out->body, &out->status, w, sizeof w);
    out->body.limit = max;
    if (rc == MCP_ERR_LIMIT)
        snprintf(why, n, "the answer from %s is over %zu bytes", url, max);
    else if (rc == MCP_ERR_NOMEM)
        snprintf(why, n, "out of memory");
    else if (rc != MCP_OK)
        snprintf(why, n, "%s %s failed: %s", method, url, w);
    if (rc != MCP_OK) {
        mcp__auth_reply_free(out);
        return rc == MCP_ERR_LIMIT || rc == MCP_ERR_NOMEM ? rc : MCP_ERR_IO;
    }
    return MCP_OK;
}
