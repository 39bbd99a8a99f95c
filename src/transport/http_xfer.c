/* SPDX-License-Identifier: MIT */
/*
 * The HTTP client transport's transfers (see http_client.c): logging, what
 * a message looks like, the inbox of what the server sent, the errors the
 * transport writes itself, a transfer's life in curl (headers, launch,
 * finish). This file calls no other of the transport's: what curl hands
 * back goes through the function pointers the transport was made with
 * (http_response.c's), so the files depend one way: http_client.c on all,
 * http_response.c on http_legacy.c and this, http_legacy.c on this.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"
#include "runtime/log.h"
#include "transport/http_client_internal.h"

/* Logging -------------------------------------------------------------------- */

void mcp__hc_say(http_client *t, mcp_log_level level, const char *fmt, ...)
{
    if (!t->o.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    mcp__log_vsay(t->o.log, t->o.log_ud, level, MCP_LOG_EVENT_GENERAL, fmt, ap);
    va_end(ap);
}

/* Scanning messages ------------------------------------------------------------ */

bool mcp__hc_read_shape(const char *p, size_t n, shape *sh)
{
    memset(sh, 0, sizeof *sh);
    mcp__scan sc;
    mcp__span k, v;
    if (!mcp__scan_open(&sc, p, n))
        return false;
    int rc;
    while ((rc = mcp__scan_next(&sc, &k, &v)) == MCP__SCAN_MEMBER) {
        if (mcp__span_is_key(k, "method"))
            sh->method = v;
        else if (mcp__span_is_key(k, "id"))
            sh->id = v;
        else if (mcp__span_is_key(k, "params"))
            sh->params = v;
        else if (mcp__span_is_key(k, "result"))
            sh->result = v;
        else if (mcp__span_is_key(k, "error"))
            sh->error = v;
    }
    return rc == MCP__SCAN_END;
}

mcp__span mcp__hc_member(mcp__span obj, const char *name)
{
    mcp__scan sc;
    mcp__span k, v;
    if (obj.p && mcp__scan_open(&sc, obj.p, obj.n))
        while (mcp__scan_next(&sc, &k, &v) == MCP__SCAN_MEMBER)
            if (mcp__span_is_key(k, name))
                return v;
    return (mcp__span){NULL, 0};
}

bool mcp__hc_span_string(mcp__span v, mcp_buf *out)
{
    mcp_buf_reset(out);
    if (!v.p || v.n < 2 || v.p[0] != '"')
        return false;
    const char *s = v.p + 1;
    size_t n = v.n - 2;
    mcp_json_doc *d = NULL;
    if (memchr(v.p, '\\', v.n)) { /* escapes: let the parser read them */
        if (mcp_json_parse(v.p, v.n, NULL, NULL, &d, NULL) != MCP_OK ||
            !(s = mcp_json_string(mcp_json_doc_root(d), &n))) {
            mcp_json_doc_free(d);
            return false;
        }
    }
    bool ok = mcp_buf_append(out, s, n) == MCP_OK && mcp_buf_append(out, "", 1) == MCP_OK;
    if (ok)
        out->len--; /* the NUL stays, even for an empty string */
    mcp_json_doc_free(d);
    return ok;
}


/* The inbox ---------------------------------------------------------------------- */

void mcp__hc_queue(http_client *t, note_kind kind, const char *data, size_t len)
{
    note *m = malloc(sizeof *m + len + 1);
    if (!m) {
        mcp__hc_say(t, MCP_LOG_ERROR, "out of memory: a message from the server was dropped");
        return;
    }
    m->next = NULL;
    m->kind = kind;
    m->len = len;
    memcpy(m->data, data, len);
    m->data[len] = '\0';
    if (t->in_tail)
        t->in_tail->next = m;
    else
        t->in_head = m;
    t->in_tail = m;
}

void mcp__hc_free_inbox(http_client *t)
{
    for (note *m = t->in_head, *next; m; m = next) {
        next = m->next;
        free(m);
    }
    t->in_head = t->in_tail = NULL;
}

static void drain(http_client *t)
{
    if (t->delivering)
        return;
    t->delivering = true;
    while (t->in_head && !t->closing && !t->input_stopped) {
        note *m = t->in_head;
        t->in_head = m->next;
        if (!t->in_head)
            t->in_tail = NULL;
        const mcp__transport_sink *k = &t->base.sink;
        if (m->kind != NOTE_OVERSIZED) {
            /* The trace is the wire: an error made up here was not on it. */
            if (t->o.trace && m->kind == NOTE_MESSAGE)
                t->o.trace(t->o.trace_ud, false, m->data, m->len);
            t->delivering_made_up = m->kind == NOTE_MADE_UP;
            k->message(k->ud, 0, m->data, m->len);
            t->delivering_made_up = false;
        } else {
            k->oversized(k->ud, 0, m->data, m->len, NULL, 0, t->o.max_message);
        }
        free(m);
    }
    t->delivering = false;
}

/* A response made up for a request the server did not answer: the session
 * ends the call with it as with any error response. */
static void made_up_error(http_client *t, const char *id, size_t id_len, long status,
                          bool transport, const char *text)
{
    size_t bad, n = strlen(text);
    if (mcp_utf8_validate(text, n, &bad) != MCP_OK)
        n = bad; /* a body cut inside a character, or not UTF-8 at all */
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__hc_error_start(&w, &b, id, id_len);
    mcp__jw_key(&w, "code");
    mcp__jw_int(&w, MCP__HTTP_ERROR_CODE);
    mcp__jw_key(&w, "message");
    mcp__jw_stringn(&w, text, n);
    mcp__jw_key(&w, "data");
    mcp__jw_object(&w);
    mcp__jw_key(&w, "httpStatus");
    mcp__jw_int(&w, status);
    if (transport) {
        mcp__jw_key(&w, "httpError");
        mcp__jw_stringn(&w, text, n);
    }
    mcp__jw_object_end(&w);
    mcp__jw_object_end(&w);
    if (mcp__hc_message_end(&w) == MCP_OK)
        mcp__hc_queue(t, NOTE_MADE_UP, b.data, b.len);
    else
        mcp__hc_say(t, MCP_LOG_ERROR, "out of memory: an HTTP failure could not be reported");
    mcp_buf_free(&b);
}

void mcp__hc_error_start(mcp__jw *w, mcp_buf *out, const char *id, size_t id_len)
{
    mcp__jw_begin(w, out);
    mcp__jw_envelope(w);
    mcp__jw_key(w, "id");
    mcp__jw_raw(w, id, id_len);
    mcp__jw_key(w, "error");
    mcp__jw_object(w);
}

int mcp__hc_message_end(mcp__jw *w)
{
    mcp__jw_object_end(w);
    return mcp__jw_finish(w);
}

void mcp__hc_fail_request(http_client *t, xfer *x, bool transport, const char *fmt, ...)
{
    if (x->answered || !x->id)
        return;
    x->answered = true;
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    made_up_error(t, x->id, x->id_len, x->status, transport, text);
}

/* Transfers ----------------------------------------------------------------------------- */

void mcp__hc_detach(xfer *x)
{
    if (x->easy) {
        curl_multi_remove_handle(x->t->multi, x->easy);
        curl_easy_cleanup(x->easy);
        x->easy = NULL;
    }
    curl_slist_free_all(x->hdrs);
    x->hdrs = NULL;
    if (x->dec_open)
        mcp__sse_decoder_free(&x->dec);
    x->dec_open = false;
    mcp_buf_free(&x->in);
    free(x->session_header);
    x->session_header = NULL;
    x->session_bad = NULL;
    free(x->location);
    x->location = NULL;
    curl_slist_free_all(x->launch_hdrs);
    x->launch_hdrs = NULL;
    free(x->www_authenticate);
    free(x->dpop_nonce);
    x->www_authenticate = x->dpop_nonce = NULL;
}

void mcp__hc_xfer_free(xfer *x)
{
    http_client *t = x->t;
    mcp__hc_detach(x);
    if (x->prev)
        x->prev->next = x->next;
    else
        t->xfers = x->next;
    if (x->next)
        x->next->prev = x->prev;
    free(x->method);
    free(x->id);
    free(x->body);
    free(x->last_id);
    free(x->held_cancel);
    free(x);
}

xfer *mcp__hc_xfer_new(http_client *t, xrole role)
{
    xfer *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->t = t;
    x->role = role;
    mcp_buf_init(&x->in, 0, NULL);
    x->next = t->xfers;
    if (t->xfers)
        t->xfers->prev = x;
    t->xfers = x;
    return x;
}

/* Starting transfers ------------------------------------------------------------------------ */

int mcp__hc_add_header(xfer *x, const char *line)
{
    struct curl_slist *l = curl_slist_append(x->hdrs, line);
    if (!l)
        return MCP_ERR_NOMEM;
    x->hdrs = l;
    return MCP_OK;
}

int mcp__hc_add_headerf(xfer *x, const char *fmt, ...)
{
    char line[MAX_SESSION_ID + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= sizeof line ? MCP_ERR_LIMIT : mcp__hc_add_header(x, line);
}

/* The 2025 session's headers: after initialize, its version and id. */
int mcp__hc_legacy_headers(http_client *t, xfer *x)
{
    int rc = MCP_OK;
    if (t->lversion && rc == MCP_OK)
        rc = mcp__hc_add_headerf(x, "MCP-Protocol-Version: %s", t->lversion);
    if (t->session_id && rc == MCP_OK) {
        rc = mcp__hc_add_headerf(x, "Mcp-Session-Id: %s", t->session_id);
        x->with_session = true;
        x->session_gen = t->session_gen;
    }
    return rc;
}

int mcp__hc_common_headers(http_client *t, xfer *x)
{
    int rc = MCP_OK;
    for (char **h = t->headers; h && *h && rc == MCP_OK; h++)
        rc = mcp__hc_add_header(x, *h);
    return rc;
}

/* Requests that change nothing when applied twice (RFC 9110, 9.2.2: only
 * these may be sent again without asking). Notifications and responses
 * (no method) are too: a duplicate is ignored or changes nothing. */
static bool repeatable(const xfer *x)
{
    static const char *const safe[] = {
        "ping", "server/discover", "initialize", "tools/list", "resources/list",
        "resources/templates/list", "prompts/list", "resources/read", "prompts/get",
        "completion/complete", "logging/setLevel", "resources/subscribe",
        "resources/unsubscribe",
    };
    if (!x->method)
        return true;
    for (size_t i = 0; i < sizeof safe / sizeof safe[0]; i++)
        if (!strcmp(x->method, safe[i]))
            return true;
    return false;
}

/* libcurl sends a request again, on a new connection, when the reused one
 * closed before any answer (a server that stopped, or crashed, while
 * running it): a tools/call would run twice. Its second sending is
 * stopped; the caller hears that the request may have run. */
static int on_prereq(void *ud, char *primary_ip, char *local_ip, int primary_port,
                     int local_port)
{
    (void)primary_ip;
    (void)local_ip;
    (void)primary_port;
    (void)local_port;
    xfer *x = ud;
    if (!x->sends)
        x->sent_ms = mcp__now_ms();
    if (x->sends++ && !repeatable(x)) {
        x->not_resent = true;
        return CURL_PREREQFUNC_ABORT;
    }
    return CURL_PREREQFUNC_OK;
}

/* The authorization engine's lines, after x's own. */
static int add_auth_line(void *ud, const char *line)
{
    xfer *x = ud;
    struct curl_slist *l = curl_slist_append(x->launch_hdrs, line);
    if (!l)
        return MCP_ERR_NOMEM;
    x->launch_hdrs = l;
    return MCP_OK;
}

static int auth_headers(http_client *t, xfer *x, bool get)
{
    curl_slist_free_all(x->launch_hdrs);
    x->launch_hdrs = NULL;
    for (struct curl_slist *l = x->hdrs; l; l = l->next)
        if (add_auth_line(x, l->data) != MCP_OK)
            return MCP_ERR_NOMEM;
    const char *method = x->role == X_DELETE ? "DELETE" : get ? "GET" : "POST";
    t->o.auth->headers(t->o.auth->ud, method, t->url, add_auth_line, x, &x->auth_gen);
    return MCP_OK;
}

int mcp__hc_launch(http_client *t, xfer *x, bool get)
{
    x->was_get = get;
    if (t->o.auth && auth_headers(t, x, get) != MCP_OK)
        return MCP_ERR_NOMEM;
    x->started = x->sse = x->json = x->oversized = x->nomem = x->got_event = false;
    x->ctype[0] = '\0';
    x->sends = 0;
    x->not_resent = false;
    x->status = 0;
    x->reason[0] = '\0';
    x->errbuf[0] = '\0';
    CURL *e = curl_easy_init();
    if (!e)
        return MCP_ERR_NOMEM;
    x->easy = e;
    curl_easy_setopt(e, CURLOPT_URL, t->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, x);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)t->o.connect_timeout_ms);
    if (t->o.tls_no_verify) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (t->ca_file)
        curl_easy_setopt(e, CURLOPT_CAINFO, t->ca_file);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, t->on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, t->on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->launch_hdrs ? x->launch_hdrs : x->hdrs);
    curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(e, CURLOPT_PREREQDATA, x);
    if (x->role == X_DELETE) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
    } else if (get) {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body_len);
    }
    if (x->role == X_OUTPUT || x->role == X_DELETE)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)OUTPUT_TIMEOUT_MS);
    if (curl_multi_add_handle(t->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        x->easy = NULL;
        return MCP_ERR_NOMEM;
    }
    return MCP_OK;
}

bool mcp__hc_auth_retry(http_client *t, xfer *x, CURLcode code)
{
    x->auth_why[0] = '\0';
    bool challenged = x->status == 401 || x->status == 403 ||
                      (x->status == 400 && x->www_authenticate);
    if (!t->o.auth || code != CURLE_OK || !challenged || x->role == X_DELETE)
        return false;
    if (x->auth_tries >= MCP__HTTP_AUTH_TRIES) {
        snprintf(x->auth_why, sizeof x->auth_why, "still refused after %u tries with new "
                 "credentials", x->auth_tries);
        return false;
    }
    x->auth_tries++;
    if (!t->o.auth->refused(t->o.auth->ud, x->status, x->www_authenticate, x->dpop_nonce,
                            x->auth_gen, x->auth_why, sizeof x->auth_why) ||
        t->closing)
        return false;
    /* Sent again as it was, with the new credentials: its headers (x->hdrs)
     * stay, what came back is dropped. */
    curl_multi_remove_handle(t->multi, x->easy);
    curl_easy_cleanup(x->easy);
    x->easy = NULL;
    if (x->dec_open)
        mcp__sse_decoder_free(&x->dec);
    x->dec_open = false;
    mcp_buf_free(&x->in);
    mcp_buf_init(&x->in, 0, NULL);
    free(x->session_header);
    free(x->location);
    free(x->www_authenticate);
    free(x->dpop_nonce);
    x->session_header = x->location = x->www_authenticate = x->dpop_nonce = NULL;
    x->session_bad = NULL;
    if (mcp__hc_launch(t, x, x->was_get) != MCP_OK) {
        snprintf(x->auth_why, sizeof x->auth_why, "out of memory to send it again");
        return false;
    }
    return true;
}

/* Finishing transfers (t->on_done: http_response.c) ------------------------------------------------------------ */

static void check_done(http_client *t)
{
    CURLMsg *m;
    int left;
    while (!t->closing && (m = curl_multi_info_read(t->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        xfer *x = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        t->on_done(t, x, m->data.result);
    }
}

void mcp__hc_after(http_client *t)
{
    if (t->closing)
        return;
    check_done(t);
    drain(t);
}
