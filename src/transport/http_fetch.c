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

/* The GET, or with form the POST (user and password: HTTP Basic). */
static int transfer(const char *url, const char *form, const char *user, const char *password,
                    size_t max, unsigned timeout_ms, const atomic_bool *abort, mcp_buf *body,
                    long *status, char *why, size_t n)
{
    *status = 0;
    pthread_once(&curl_once, init_curl);
    if (curl_init_rc != CURLE_OK)
        return say(why, n, MCP_ERR_IO, "libcurl could not start: ",
                   curl_easy_strerror(curl_init_rc));
    CURL *c = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Accept: application/json");
    if (!c || !headers) {
        curl_easy_cleanup(c);
        curl_slist_free_all(headers);
        return MCP_ERR_NOMEM;
    }
    size_t old_limit = body->limit;
    fetch f = {.body = body, .start = body->len, .abort = abort};
    body->limit = body->len + max;
    char err[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout_ms < 5000 ? timeout_ms : 5000));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &f);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &f);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "libmcp");
    if (form) { /* Content-Type: application/x-www-form-urlencoded */
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(form));
    }
    if (user) {
        curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(c, CURLOPT_USERNAME, user);
        curl_easy_setopt(c, CURLOPT_PASSWORD, password ? password : "");
    }
    if (max < (size_t)1 << 30)
        curl_easy_setopt(c, CURLOPT_MAXFILESIZE, (long)max);
    CURLcode cc = curl_easy_perform(c);
    if (cc == CURLE_OK || cc == CURLE_WRITE_ERROR || cc == CURLE_FILESIZE_EXCEEDED)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(c);
    curl_slist_free_all(headers);
    body->limit = old_limit;
    int rc = MCP_OK;
    if (f.nomem)
        rc = MCP_ERR_NOMEM;
    else if (f.oversized || cc == CURLE_FILESIZE_EXCEEDED)
        rc = say(why, n, MCP_ERR_LIMIT, url, ": the answer is larger than the cap");
    else if (cc == CURLE_ABORTED_BY_CALLBACK)
        rc = say(why, n, MCP_ERR_IO, url, ": aborted");
    else if (cc != CURLE_OK) {
        rc = MCP_ERR_IO;
        if (why && n)
            snprintf(why, n, "%s: %s", url, err[0] ? err : curl_easy_strerror(cc));
    }
    if (rc != MCP_OK)
        mcp__buf_rewind(body, f.start);
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
