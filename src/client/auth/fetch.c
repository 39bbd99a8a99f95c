/* SPDX-License-Identifier: MIT */
/*
 * The OAuth client's own HTTP exchanges (metadata, registration, tokens):
 * blocking, one libcurl easy handle each, bounded in time and size,
 * redirects never followed (a metadata document or a token endpoint that
 * moves is an answer, not an instruction: RFC 8414 and RFC 9728 give the
 * URLs, and a token request must not be replayed elsewhere).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "client/auth/oauth.h"
#include "transport/http_headers.h"
#include "runtime/internal.h"

void mcp__auth_reply_free(mcp__auth_reply *r)
{
    mcp_buf_free(&r->body);
    free(r->location);
    free(r->www_authenticate);
    free(r->dpop_nonce);
    memset(r, 0, sizeof *r);
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    mcp__auth_reply *r = ud;
    size_t n = size * nmemb;
    if (r->body.len + n > r->body.limit) {
        r->oversized = true;
        return 0; /* ends the transfer */
    }
    return mcp_buf_append(&r->body, p, n) == MCP_OK ? n : 0;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    mcp__auth_reply *r = ud;
    size_t n = size * nmemb;
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
    return n;
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
    mcp_buf_init(&out->body, h->max_body ? h->max_body : MCP__AUTH_DOC_MAX, NULL);
    CURL *e = curl_easy_init();
    struct curl_slist *list = NULL;
    bool nomem = !e;
    for (size_t i = 0; headers && headers[i] && !nomem; i++) {
        struct curl_slist *l = curl_slist_append(list, headers[i]);
        if (l)
            list = l;
        else
            nomem = true;
    }
    if (nomem) {
        curl_slist_free_all(list);
        curl_easy_cleanup(e);
        snprintf(why, n, "out of memory");
        return MCP_ERR_NOMEM;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)timeout);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout < 10000 ? timeout : 10000));
    if (h->tls_no_verify) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (h->ca_file)
        curl_easy_setopt(e, CURLOPT_CAINFO, h->ca_file);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, out);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);
    if (!strcmp(method, "POST")) {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? body_len : 0));
    } else {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    }
    CURLcode code = curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &out->status);
    curl_easy_cleanup(e);
    curl_slist_free_all(list);
    if (out->oversized) {
        snprintf(why, n, "the answer from %s is over %zu bytes", url, out->body.limit);
        mcp__auth_reply_free(out);
        return MCP_ERR_LIMIT;
    }
    if (code != CURLE_OK) {
        snprintf(why, n, "%s %s failed: %s", method, url,
                 errbuf[0] ? errbuf : curl_easy_strerror(code));
        mcp__auth_reply_free(out);
        return MCP_ERR_IO;
    }
    return MCP_OK;
}
