/* SPDX-License-Identifier: MIT */
/*
 * The checker's side of a Streamable HTTP conversation with a server it
 * did not write. The library's HTTP client is no use here: it does what a
 * client should, and the checker must do what a client may (drop a
 * response stream's connection mid-call and come back with GET and
 * Last-Event-ID) or should not (post cancels of unknown ids, of the other
 * id type). So each message is its own POST on its own connection (libcurl,
 * one multi handle, never a connection reused: dropping a stream then
 * closes that connection and nothing else), and each response, JSON or an
 * event stream (read with the library's SSE decoder), hands its messages to
 * check_peer_keep with the time they came.
 *
 * The headers a message needs are read from the message itself:
 * Mcp-Method and Mcp-Name (2026-07-28), MCP-Protocol-Version (the
 * envelope's version, else the revision spoken), Mcp-Session-Id once a
 * response gave one (2025). Every buffer is capped: a JSON body and an
 * event at 4 MiB, a header value at 8 KiB, the streams kept at 2^20.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check_cancel.h"
#include "transport/http_headers.h"
#include "transport/sse.h"

#define BODY_CAP ((size_t)4 << 20)
#define STREAMS_MAX ((size_t)1 << 20)
#define SESSION_ID_MAX 256

typedef struct stream {
    check_http *h;
    int index;
    CURL *easy;
    struct curl_slist *headers;
    char *body;        /* what was posted (curl reads it in place) */
    mcp_buf json;      /* a JSON response, until it ends */
    mcp__sse_decoder sse;
    bool typed, is_sse, ended;
    long status;
    char last_id[256];
} stream;

struct check_http {
    check_peer *peer;
    CURLM *multi;
    char *url;
    char *const *user_headers;
    size_t nuser;
    bool trace;
    char version[32];
    char session[SESSION_ID_MAX + 1];
    stream **streams;
    size_t count, cap;
    size_t running;
    bool connected; /* some response came: the server is there */
    char error[CURL_ERROR_SIZE];
};

static int curl_users;

/* The event stream's events: a message each (the priming event's empty
 * data is none). */
static bool on_event(void *ud, const mcp__sse_event *ev)
{
    stream *s = ud;
    size_t n = ev->id_len < sizeof s->last_id - 1 ? ev->id_len : sizeof s->last_id - 1;
    if (ev->has_id) {
        memcpy(s->last_id, ev->id, n);
        s->last_id[n] = '\0';
    }
    if (ev->data_len)
        check_peer_keep(s->h->peer, s->index, ev->data, ev->data_len);
    return true;
}

static size_t on_header(char *b, size_t size, size_t nitems, void *ud)
{
    stream *s = ud;
    size_t n = size * nitems;
    static const char name[] = "mcp-session-id:";
    if (n > sizeof name - 1 && !strncasecmp(b, name, sizeof name - 1) && !s->h->session[0]) {
        char *kept = NULL;
        mcp__http_header_keep(&kept, b + sizeof name - 1, n - (sizeof name - 1), false);
        if (kept && strlen(kept) <= SESSION_ID_MAX)
            strcpy(s->h->session, kept);
        free(kept);
    }
    return n;
}

static size_t on_body(char *b, size_t size, size_t nmemb, void *ud)
{
    stream *s = ud;
    size_t n = size * nmemb;
    s->h->connected = true;
    if (!s->typed) {
        char *type = NULL;
        curl_easy_getinfo(s->easy, CURLINFO_CONTENT_TYPE, &type);
        s->is_sse = type && !strncasecmp(type, "text/event-stream", 17);
        curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &s->status);
        s->typed = true;
    }
    if (s->is_sse) {
        if (mcp__sse_decoder_feed(&s->sse, b, n) != MCP_OK)
            return 0; /* an event over the cap: the stream is given up */
    } else if (mcp_buf_append(&s->json, b, n) != MCP_OK) {
        return 0; /* a body over the cap */
    }
    return n;
}

static stream *add(check_http *h)
{
    if (h->count == STREAMS_MAX)
        return NULL;
    if (h->count == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        stream **v = realloc(h->streams, cap * sizeof *v);
        if (!v)
            return NULL;
        h->streams = v;
        h->cap = cap;
    }
    stream *s = calloc(1, sizeof *s);
    CURL *e = s ? curl_easy_init() : NULL;
    if (!e) {
        free(s);
        return NULL;
    }
    s->h = h;
    s->index = (int)h->count;
    s->easy = e;
    mcp_buf_init(&s->json, BODY_CAP, NULL);
    mcp__sse_callbacks cb = {.event = on_event, .ud = s};
    mcp__sse_decoder_init(&s->sse, BODY_CAP, &cb);
    h->streams[h->count++] = s;
    curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)s);
    curl_easy_setopt(e, CURLOPT_URL, h->url);
    curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L); /* its own connection */
    curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, s);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, h->error);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    return s;
}

static struct curl_slist *header(struct curl_slist *l, const char *name, const char *v, size_t n)
{
    char line[600];
    if (n > 500)
        return l; /* a value that long is not ours to send */
    snprintf(line, sizeof line, "%s: %.*s", name, (int)n, v);
    struct curl_slist *m = curl_slist_append(l, line);
    return m ? m : l;
}

/* The headers every request carries: the caller's, the session's, the
 * revision's. */
static struct curl_slist *common_headers(check_http *h, struct curl_slist *l, const char *version)
{
    for (size_t i = 0; i < h->nuser; i++) {
        char *line = mcp__http_header_for_curl(h->user_headers[i]);
        struct curl_slist *m = line ? curl_slist_append(l, line) : NULL;
        free(line);
        if (m)
            l = m;
    }
    if (h->session[0])
        l = header(l, "Mcp-Session-Id", h->session, strlen(h->session));
    if (version && *version)
        l = header(l, "MCP-Protocol-Version", version, strlen(version));
    return l;
}

static int start(check_http *h, stream *s)
{
    curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->headers);
    if (curl_multi_add_handle(h->multi, s->easy) != CURLM_OK) {
        s->ended = true;
        return MCP_ERR_IO;
    }
    h->running++;
    return MCP_OK;
}

int check_http_post(check_http *h, const char *line, int *index)
{
    if (index)
        *index = -1;
    if (h->trace)
        fprintf(stderr, "check-cancel -> POST %s\n", line);
    stream *s = add(h);
    if (!s || !(s->body = strdup(line)))
        return MCP_ERR_NOMEM;
    if (index)
        *index = s->index;
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->body);
    struct curl_slist *l = NULL;
    l = header(l, "Content-Type", "application/json", 16);
    l = header(l, "Accept", "application/json, text/event-stream", 36);
    /* What the message says of itself: its method, its name, the envelope's
     * revision (2026-07-28 wants them as headers too). */
    mcp_json_doc *d = NULL;
    const char *version = h->version;
    size_t vn;
    if (mcp_json_parse(line, strlen(line), NULL, NULL, &d, NULL) == MCP_OK) {
        const mcp_json *root = mcp_json_doc_root(d);
        const mcp_json *params = mcp_json_object_get(root, "params");
        const char *method = mcp_json_string(mcp_json_object_get(root, "method"), NULL);
        const char *meta_version = mcp_json_string(
            mcp_json_object_get(mcp_json_object_get(params, "_meta"),
                                "io.modelcontextprotocol/protocolVersion"),
            &vn);
        if (meta_version) {
            version = meta_version;
            if (mcp_protocol_modern(meta_version) && method) {
                l = header(l, "Mcp-Method", method, strlen(method));
                size_t nn;
                const char *name = mcp_json_string(mcp_json_object_get(params, "name"), &nn);
                if (!name)
                    name = mcp_json_string(mcp_json_object_get(params, "uri"), &nn);
                if (!name) /* tasks/get, tasks/update, tasks/cancel (the extension) */
                    name = mcp_json_string(mcp_json_object_get(params, "taskId"), &nn);
                mcp_buf enc;
                mcp_buf_init(&enc, 600, NULL);
                if (name && mcp__http_value_encode(&enc, name, nn) == MCP_OK)
                    l = header(l, "Mcp-Name", enc.data, enc.len);
                mcp_buf_free(&enc);
            }
        }
    }
    s->headers = common_headers(h, l, version);
    mcp_json_doc_free(d);
    return start(h, s);
}

int check_http_resume(check_http *h, const char *last_id, int *index)
{
    *index = -1;
    if (h->trace)
        fprintf(stderr, "check-cancel -> GET Last-Event-ID: %s\n", last_id);
    stream *s = add(h);
    if (!s)
        return MCP_ERR_NOMEM;
    *index = s->index;
    curl_easy_setopt(s->easy, CURLOPT_HTTPGET, 1L);
    struct curl_slist *l = header(NULL, "Accept", "text/event-stream", 17);
    l = header(l, "Last-Event-ID", last_id, strlen(last_id));
    s->headers = common_headers(h, l, h->version);
    return start(h, s);
}

/* A stream that ended: a JSON body's message kept. */
static void ended(check_http *h, stream *s, CURLcode rc)
{
    if (s->ended)
        return;
    s->ended = true;
    if (!s->status)
        curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &s->status);
    if (s->status)
        h->connected = true;
    if (h->trace)
        fprintf(stderr, "check-cancel <- stream %d ended: HTTP %ld%s%s\n", s->index, s->status,
                rc ? ", " : "", rc ? curl_easy_strerror(rc) : "");
    if (!s->is_sse && s->json.len)
        check_peer_keep(h->peer, s->index, s->json.data, s->json.len);
    mcp_buf_free(&s->json);
    mcp__sse_decoder_free(&s->sse);
    curl_multi_remove_handle(h->multi, s->easy);
    curl_easy_cleanup(s->easy);
    s->easy = NULL;
    curl_slist_free_all(s->headers);
    s->headers = NULL;
    free(s->body);
    s->body = NULL;
    h->running--;
}

void check_http_drop(check_http *h, int index)
{
    if (index < 0 || (size_t)index >= h->count || h->streams[index]->ended)
        return;
    stream *s = h->streams[index];
    s->is_sse = true; /* what is half read is not a message */
    if (h->trace)
        fprintf(stderr, "check-cancel -> stream %d dropped\n", index);
    ended(h, s, CURLE_OK);
}

bool check_http_pump(check_http *h, int ms)
{
    int still;
    curl_multi_perform(h->multi, &still);
    if (ms > 0)
        curl_multi_poll(h->multi, NULL, 0, ms, NULL);
    curl_multi_perform(h->multi, &still);
    CURLMsg *m;
    while ((m = curl_multi_info_read(h->multi, &still)))
        if (m->msg == CURLMSG_DONE) {
            stream *s = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
            CURLcode rc = m->data.result;
            if (s)
                ended(h, s, rc);
        }
    return h->connected || h->running > 0;
}

static stream *at(const check_http *h, int index)
{
    return index >= 0 && (size_t)index < h->count ? h->streams[index] : NULL;
}

int check_http_status(const check_http *h, int index)
{
    stream *s = at(h, index);
    return s ? (int)s->status : 0;
}

bool check_http_sse(const check_http *h, int index)
{
    stream *s = at(h, index);
    return s && s->is_sse;
}

bool check_http_ended(const check_http *h, int index)
{
    stream *s = at(h, index);
    return !s || s->ended;
}

const char *check_http_last_id(const check_http *h, int index)
{
    stream *s = at(h, index);
    return s ? s->last_id : "";
}

bool check_http_unreachable(const check_http *h, const char **why)
{
    *why = h->error[0] ? h->error : "no answer";
    return !h->connected;
}

bool check_http_header_ok(const char *line)
{
    const char *colon = strchr(line, ':');
    return colon && strlen(line) <= 1000 && !strpbrk(line, "\r\n") &&
           mcp__http_token_valid(line, (size_t)(colon - line));
}

void check_http_set_version(check_http *h, const char *version)
{
    snprintf(h->version, sizeof h->version, "%s", version ? version : "");
}

int check_http_open(check_http **out, check_peer *p, const char *url, char *const *headers,
                    size_t nheaders, bool trace, char *why, size_t n)
{
    *out = NULL;
    if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
        snprintf(why, n, "--url takes an http:// or https:// URL");
        return MCP_ERR_INVALID_ARG;
    }
    if (curl_users++ == 0 && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        curl_users--;
        snprintf(why, n, "libcurl could not start");
        return MCP_ERR_IO;
    }
    check_http *h = calloc(1, sizeof *h);
    if (!h || !(h->url = strdup(url)) || !(h->multi = curl_multi_init())) {
        if (h)
            free(h->url);
        free(h);
        if (--curl_users == 0)
            curl_global_cleanup();
        return MCP_ERR_NOMEM;
    }
    h->peer = p;
    h->user_headers = headers;
    h->nuser = nheaders;
    h->trace = trace;
    *out = h;
    return MCP_OK;
}

void check_http_close(check_http *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->count; i++)
        ended(h, h->streams[i], CURLE_OK);
    /* A 2025 session ends with DELETE (a server MAY answer 405). */
    if (h->session[0]) {
        CURL *e = curl_easy_init();
        struct curl_slist *l = e ? common_headers(h, NULL, h->version) : NULL;
        if (e) {
            curl_easy_setopt(e, CURLOPT_URL, h->url);
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
            curl_easy_setopt(e, CURLOPT_HTTPHEADER, l);
            curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 2000L);
            curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
            curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
            curl_easy_perform(e);
            curl_easy_cleanup(e);
        }
        curl_slist_free_all(l);
    }
    for (size_t i = 0; i < h->count; i++)
        free(h->streams[i]);
    free(h->streams);
    curl_multi_cleanup(h->multi);
    free(h->url);
    free(h);
    if (--curl_users == 0)
        curl_global_cleanup();
}
