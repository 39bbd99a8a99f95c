/* SPDX-License-Identifier: MIT */
/*
 * A blocking, bounded GET, or form POST (http_fetch.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "core/buf.h"
#include "transport/http_fetch.h"

typedef struct fetch {
    mcp_buf *body;
    size_t start;
    bool oversized, nomem;
    const atomic_bool *abort;
} fetch;

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    fetch *f = ud;
    size_t n = size * nmemb;
    int rc = mcp_buf_append(f->body, p, n);
    f->oversized = rc == MCP_ERR_LIMIT;
    f->nomem = rc == MCP_ERR_NOMEM;
    return rc == MCP_OK ? n : 0; /* 0 ends the transfer */
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    fetch *f = ud;
    return f->abort && atomic_load(f->abort) ? 1 : 0;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void init_curl(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static int say(char *why, size_t n, int rc, const char *a, const char *b)
{
    if (why && n)
        snprintf(why, n, "%s%s", a, b);
    return rc;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    const mcp__http_request *r = ud;
    r->header(r->header_ud, p, size * nmemb);
    return size * nmemb;
}

int mcp__http_request_make(const mcp__http_request *r, mcp_buf *body, long *status, char *why,
                           size_t n)
{
    *status = 0;
    pthread_once(&curl_once, init_curl);
    if (curl_init_rc != CURLE_OK)
        return say(why, n, MCP_ERR_IO, "libcurl could not start: ",
                   curl_easy_strerror(curl_init_rc));
    CURL *c = curl_easy_init();
    struct curl_slist *headers = NULL;
    bool nomem = !c;
    for (size_t i = 0; r->headers && r->headers[i] && !nomem; i++) {
        struct curl_slist *l = curl_slist_append(headers, r->headers[i]);
        if (l)
            headers = l;
        else
            nomem = true;
    }
    if (nomem) {
        curl_easy_cleanup(c);
        curl_slist_free_all(headers);
        return say(why, n, MCP_ERR_NOMEM, "out of memory", "");
    }
    size_t old_limit = body->limit;
    fetch f = {.body = body, .start = body->len, .abort = r->abort};
    body->limit = body->len + r->max;
    char err[CURL_ERROR_SIZE] = "";
    unsigned connect = r->connect_timeout_ms && r->connect_timeout_ms < r->timeout_ms
                           ? r->connect_timeout_ms
                           : r->timeout_ms;
    curl_easy_setopt(c, CURLOPT_URL, r->url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)r->timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)connect);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &f);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &f);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "libmcp");
    if (r->header) {
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, (void *)r);
    }
    if (r->tls_no_verify) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (r->ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, r->ca_file);
    if (!strcmp(r->method, "POST")) { /* the default type: a form */
        curl_easy_setopt(c, CURLOPT_POST, 1L);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, r->body ? r->body : "");
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)(r->body ? r->body_len : 0));
    } else {
        curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    }
    if (r->user) {
        curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(c, CURLOPT_USERNAME, r->user);
        curl_easy_setopt(c, CURLOPT_PASSWORD, r->password ? r->password : "");
    }
    if (r->max < (size_t)1 << 30)
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE, (long)r->max);
    CURLcode cc = curl_easy_perform(c);
    if (cc == CURLE_OK || cc == CURLE_WRITE_ERROR || cc == CURLE_FILESIZE_EXCEEDED)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(c);
    curl_slist_free_all(headers);
    body->limit = old_limit;
    int rc = MCP_OK;
    if (f.nomem)
        rc = say(why, n, MCP_ERR_NOMEM, "out of memory", "");
    else if (f.oversized || cc == CURLE_FILESIZE_EXCEEDED)
        rc = say(why, n, MCP_ERR_LIMIT, "the answer is larger than the cap", "");
    else if (cc == CURLE_ABORTED_BY_CALLBACK)
        rc = say(why, n, MCP_ERR_IO, "aborted", "");
    else if (cc != CURLE_OK)
        rc = say(why, n, MCP_ERR_IO, err[0] ? err : curl_easy_strerror(cc), "");
    if (rc != MCP_OK)
        mcp__buf_rewind(body, f.start);
    return rc;
}

/* The server's exchanges: JSON asked for, 5 s to connect, the URL named
 * in why. */
static int transfer(const char *url, const char *form, const char *user, const char *password,
                    size_t max, unsigned timeout_ms, const atomic_bool *abort, mcp_buf *body,
                    long *status, char *why, size_t n)
{
    static const char *const accept[] = {"Accept: application/json", NULL};
    mcp__http_request r = {.method = form ? "POST" : "GET",
                           .url = url,
                           .headers = accept,
                           .body = form,
                           .body_len = form ? strlen(form) : 0,
                           .user = user,
                           .password = password,
                           .max = max,
                           .timeout_ms = timeout_ms,
                           .connect_timeout_ms = 5000,
                           .abort = abort};
    char w[CURL_ERROR_SIZE + 64] = "";
    int rc = mcp__http_request_make(&r, body, status, w, sizeof w);
    if (rc != MCP_OK && rc != MCP_ERR_NOMEM && why && n)
        snprintf(why, n, "%s: %s", url, w);
    return rc;
}

int mcp__http_fetch(const char *url, size_t max, unsigned timeout_ms, const atomic_bool *abort,
                    mcp_buf *body, long *status, char *why, size_t n)
{
    return transfer(url, NULL, NULL, NULL, max, timeout_ms, abort, body, status, why, n);
}

int mcp__http_post_form(const char *url, const char *form, const char *user,
                        const char *password, size_t max, unsigned timeout_ms,
                        const atomic_bool *abort, mcp_buf *body, long *status, char *why,
                        size_t n)
{
    return transfer(url, form, user, password, max, timeout_ms, abort, body, status, why, n);
}
