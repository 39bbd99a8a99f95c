/* SPDX-License-Identifier: MIT */
/*
 * What came back to the HTTP client transport (see http_client.h): curl's
 * header and body callbacks (the status, the session id, a JSON body or an
 * SSE stream decoded as it arrives), the messages found there, and how a
 * finished transfer ends: its answer passed on, or an error made up in
 * words that say what failed. Loop thread only; the callbacks only record
 * (http_client.c delivers once curl has returned).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/http_client_internal.h"
#include "transport/http_headers.h"

static bool span_equal(mcp__span a, const char *b, size_t bn)
{
    return a.p && a.n == bn && memcmp(a.p, b, bn) == 0;
}

/* What came back ---------------------------------------------------------------------- */

/* One message from x's response (a JSON body or an SSE event's data). */
static void message_from(xfer *x, const char *p, size_t n)
{
    http_client *t = x->t;
    shape sh;
    bool shaped = mcp__hc_read_shape(p, n, &sh);
    bool answer = shaped && x->id && (sh.result.p || sh.error.p) && !sh.method.p &&
                  span_equal(sh.id, x->id, x->id_len);
    if (!answer) {
        mcp__hc_queue(t, NOTE_MESSAGE, p, n);
        return;
    }
    bool initialize = x->method && !strcmp(x->method, "initialize");
    if (initialize && sh.result.p && x->session_bad) {
        mcp__hc_fail_request(t, x, true, "the server's Mcp-Session-Id cannot be sent back "
                             "(%s): no session can be used", x->session_bad);
        return;
    }
    x->answered = true;
    if (initialize && sh.result.p) {
        mcp_buf v;
        mcp_buf_init(&v, 64, NULL);
        if (mcp__hc_span_string(mcp__hc_member(sh.result, "protocolVersion"), &v)) {
            free(t->lversion);
            t->lversion = strdup(v.data);
        }
        mcp_buf_free(&v);
        free(t->session_id);
        t->session_id = x->session_header;
        t->session_gen++;
        x->session_header = NULL;
    }
    mcp__hc_queue(t, NOTE_MESSAGE, p, n);
}

/* The stream's last event id becomes id: one that cannot travel back in a
 * Last-Event-ID header as it is (a control character, which curl or a
 * proxy would drop or refuse, an edge space HTTP trims, or longer than
 * MAX_EVENT_ID) is not sent cut or changed, which would resume the wrong
 * place: the stream just cannot be resumed, and its end says why. An
 * empty id is the SSE way to forget the last one. */
static void take_event_id(xfer *x, const char *id, size_t n)
{
    bool usable = n > 0 && n <= MAX_EVENT_ID && id[0] != ' ' && id[n - 1] != ' ';
    for (size_t i = 0; i < n && usable; i++)
        usable = (unsigned char)id[i] >= 0x20 && (unsigned char)id[i] < 0x7f;
    char *copy = usable ? strndup(id, n) : NULL;
    free(x->last_id);
    x->last_id = copy;
    x->has_last_id = copy != NULL;
    x->unusable_id = n > 0 && !usable;
}

static bool on_event(void *ud, const mcp__sse_event *ev)
{
    xfer *x = ud;
    if (ev->has_id)
        take_event_id(x, ev->id, ev->id_len);
    x->got_event = true;
    x->attempts = 0;
    bool message = !ev->type_len || (ev->type_len == 7 && !memcmp(ev->type, "message", 7));
    if (message && ev->data_len)
        message_from(x, ev->data, ev->data_len);
    return true;
}

static void on_retry(void *ud, uint64_t ms)
{
    xfer *x = ud;
    x->retry_ms = ms;
    x->has_retry = true;
}

static void response_started(xfer *x)
{
    http_client *t = x->t;
    x->started = true;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
    if (x->status)
        t->unreachable[0] = '\0';
    char *ct = NULL;
    curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ct);
    bool ok = x->status >= 200 && x->status < 300;
    mcp_buf_init(&x->in, ok ? t->o.max_message : ERROR_BODY_CAP, NULL);
    /* The media type exactly (parameters may follow): text/event-streamX
     * is not a stream. */
    x->sse = ok && ct && mcp__http_media_is(ct, MCP_LITERAL("text/event-stream"), "");
    x->json = ok && ct && mcp__http_media_is(ct, MCP_LITERAL("application/json"), "");
    size_t i = 0;
    for (; ct && ct[i] && i < sizeof x->ctype - 1; i++)
        x->ctype[i] = (unsigned char)ct[i] >= 0x20 && ct[i] != 0x7f ? ct[i] : '?';
    x->ctype[i] = '\0';
    if (x->sse) {
        mcp__sse_callbacks cb = {on_event, on_retry, x};
        mcp__sse_decoder_init(&x->dec, t->o.max_message, &cb);
        x->dec_open = true;
    }
}

size_t mcp__hc_on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (!x->started)
        response_started(x);
    if (x->sse) {
        int rc = mcp__sse_decoder_feed(&x->dec, p, n);
        if (rc == MCP_OK)
            return n;
        x->oversized = rc == MCP_ERR_LIMIT;
        x->nomem = rc != MCP_ERR_LIMIT;
        return 0; /* ends the transfer */
    }
    if (x->status >= 200 && x->status < 300) {
        int rc = mcp_buf_append(&x->in, p, n);
        if (rc == MCP_OK)
            return n;
        x->oversized = rc == MCP_ERR_LIMIT;
        x->nomem = rc != MCP_ERR_LIMIT;
        return 0;
    }
    size_t room = x->in.limit - x->in.len;
    mcp_buf_append(&x->in, p, n < room ? n : room);
    return n;
}

size_t mcp__hc_on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    while (n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
        n--;
    if (n == 0 && x->role == X_LISTEN)
        x->t->listen_answered = true; /* the end of its headers */
    if (n == 0 && x->role == X_REQUEST && !x->heard) {
        long status = 0;
        curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
        x->heard = status >= 200 && status < 300;
        if (x->heard && x->held_cancel) /* its cancel may go now */
            uv_timer_start(&x->t->soon_timer, x->t->soon, 0, 0);
    }
    if (n > 5 && !strncmp(p, "HTTP/", 5)) {
        /* A new response (after a 100 Continue, say): its reason phrase. */
        const char *sp = memchr(p, ' ', n);
        const char *sp2 = sp ? memchr(sp + 1, ' ', n - (size_t)(sp + 1 - p)) : NULL;
        size_t rn = sp2 ? n - (size_t)(sp2 + 1 - p) : 0;
        if (rn >= sizeof x->reason)
            rn = sizeof x->reason - 1;
        for (size_t i = 0; i < rn; i++)
            x->reason[i] = (unsigned char)sp2[1 + i] >= 0x20 && sp2[1 + i] != 0x7f ? sp2[1 + i] : '?';
        x->reason[rn] = '\0';
        free(x->session_header);
        x->session_header = NULL;
        x->session_bad = NULL;
        free(x->location);
        x->location = NULL;
        free(x->www_authenticate);
        free(x->dpop_nonce);
        x->www_authenticate = x->dpop_nonce = NULL;
        return size * nmemb;
    }
    static const char name[] = "mcp-session-id:";
    if (n > sizeof name - 1 && !strncasecmp(p, name, sizeof name - 1)) {
        const char *v = p + sizeof name - 1, *end = p + n;
        while (v < end && (*v == ' ' || *v == '\t'))
            v++;
        while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        /* The id is echoed on every request: one that could not be sent
         * back as it is (visible ASCII only, the spec says) fails the
         * initialize rather than leave a session nobody can address. */
        x->session_bad = end == v ? "it is empty" : end - v > MAX_SESSION_ID ? "over 1024 bytes" : NULL;
        for (const char *c = v; c < end && !x->session_bad; c++)
            if (*c < 0x21 || *c > 0x7e)
                x->session_bad = *c == ' ' || *c == '\t' ? "a space in it"
                                 : (unsigned char)*c >= 0x80 ? "a byte that is not ASCII"
                                                              : "a control character in it";
        free(x->session_header);
        x->session_header = x->session_bad ? NULL : strndup(v, (size_t)(end - v));
    } else if (n > 9 && !strncasecmp(p, "location:", 9)) {
        const char *v = p + 9;
        while (v < p + n && (*v == ' ' || *v == '\t'))
            v++;
        size_t len = (size_t)(p + n - v);
        free(x->location);
        x->location = strndup(v, len < 2048 ? len : 2048);
    } else if (x->t->o.auth && n > 17 && !strncasecmp(p, "www-authenticate:", 17)) {
        mcp__http_header_keep(&x->www_authenticate, p + 17, n - 17, true);
    } else if (x->t->o.auth && n > 11 && !strncasecmp(p, "dpop-nonce:", 11)) {
        free(x->dpop_nonce);
        x->dpop_nonce = NULL;
        mcp__http_header_keep(&x->dpop_nonce, p + 11, n - 11, false);
    }
    return size * nmemb;
}

/* Finishing transfers ----------------------------------------------------------------------------- */

/* An error response the server sent with its HTTP error: passed on, with
 * our request's id when it left it out (an id-less error is allowed). */
static bool pass_error_body(http_client *t, xfer *x)
{
    mcp_json_doc *d = NULL;
    if (!x->in.len || mcp_json_parse(x->in.data, x->in.len, NULL, NULL, &d, NULL) != MCP_OK)
        return false;
    const mcp_json *root = mcp_json_doc_root(d), *err = mcp_json_object_get(root, "error");
    int64_t code;
    bool ok = mcp_json_typeof(err) == MCP_JSON_OBJECT &&
              mcp_json_get_int64(mcp_json_object_get(err, "code"), &code) == MCP_OK &&
              mcp_json_typeof(mcp_json_object_get(err, "message")) == MCP_JSON_STRING;
    const mcp_json *id = mcp_json_object_get(root, "id");
    if (ok && id && mcp_json_typeof(id) != MCP_JSON_NULL) {
        mcp__hc_queue(t, NOTE_MESSAGE, x->in.data, x->in.len);
    } else if (ok) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp__jw w;
        mcp__hc_error_start(&w, &b, x->id, x->id_len);
        for (size_t i = 0; i < mcp_json_object_size(err); i++) {
            const char *k;
            size_t kn;
            const mcp_json *v = mcp_json_object_at(err, i, &k, &kn);
            mcp__jw_keyn(&w, k, kn);
            mcp__jw_value(&w, v);
        }
        mcp__jw_object_end(&w);
        if (mcp__hc_message_end(&w) == MCP_OK)
            mcp__hc_queue(t, NOTE_MESSAGE, b.data, b.len);
        mcp_buf_free(&b);
    }
    mcp_json_doc_free(d);
    if (ok)
        x->answered = true;
    return ok;
}

/* The body of an HTTP error, as a short phrase for a message. */
static const char *body_snippet(xfer *x, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i < x->in.len && n + 1 < size && n < 300; i++) {
        char ch = x->in.data[i];
        if (ch == '\n' || ch == '\r' || ch == '\t')
            ch = ' ';
        if (ch == ' ' && n && out[n - 1] == ' ')
            continue;
        out[n++] = ch;
    }
    out[n] = '\0';
    return out;
}

/* Why curl ended x with code, in words; *reached: the server was reached
 * (it may have answered nothing, or something curl could not take). */
static const char *curl_failure(const xfer *x, CURLcode code, bool *reached, char *buf,
                                size_t size)
{
    *reached = x->status != 0;
    if (x->not_resent) {
        *reached = true;
        return "the server closed the connection without answering; the request was not sent "
               "again, as the server may have run it";
    }
    if (x->sends && !x->status && code == CURLE_COULDNT_CONNECT) {
        /* Sent on a kept-alive connection that closed unanswered; curl's
         * new connection for sending it again failed (a server that
         * stopped): it was reached, and may have run the request. */
        *reached = true;
        snprintf(buf, size, "the server closed the connection without answering, then could not "
                 "be reached again (%s); the request may have run",
                 x->errbuf[0] ? x->errbuf : curl_easy_strerror(code));
        return buf;
    }
    switch (code) {
    case CURLE_GOT_NOTHING:
        *reached = true;
        return "the server closed the connection without answering";
    case CURLE_OUT_OF_MEMORY:
        /* What curl says when a header line passes its 100 KB limit. */
        *reached = true;
        return "the response could not be taken: a header line over curl's 100 KB limit, "
               "or out of memory";
    default:
        return x->errbuf[0] ? x->errbuf : curl_easy_strerror(code);
    }
}

/* Why a broken stream of x cannot be resumed, when that is the reason. */
static const char *not_resumable(const xfer *x)
{
    return x->sse && !x->answered && x->unusable_id && !x->t->modern
               ? "; it cannot be resumed: the server's event id cannot be sent back in "
                 "Last-Event-ID (a control character, an edge space, or over 1024 bytes)"
               : "";
}

static void request_ended(http_client *t, xfer *x, CURLcode code)
{
    bool ok_status = x->status >= 200 && x->status < 300;
    if (x->oversized || x->nomem) {
        if (!x->answered && x->id) {
            x->answered = true;
            if (x->oversized) {
                char head[128];
                int n = snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":",
                                 (int)(x->id_len < 64 ? x->id_len : 0), x->id);
                mcp__hc_queue(t, NOTE_OVERSIZED, head, (size_t)n);
            } else {
                x->answered = false;
                mcp__hc_fail_request(t, x, true, "out of memory for the response");
            }
        }
    } else if (code == CURLE_OK && ok_status && !x->sse && x->in.len && !x->json) {
        /* An HTML page from a proxy in the way, say: not taken as JSON. */
        mcp__hc_fail_request(t, x, false, "the server answered HTTP %ld with %s%s, neither "
                             "application/json nor text/event-stream", x->status,
                             x->ctype[0] ? "Content-Type " : "no Content-Type", x->ctype);
    } else if (code == CURLE_OK && ok_status) {
        if (!x->sse && x->in.len)
            message_from(x, x->in.data, x->in.len);
        if (!x->answered && x->sse && mcp__hc_can_resume(t, x)) {
            mcp__hc_resume(t, x);
            return;
        }
        if (x->status == 202)
            mcp__hc_fail_request(t, x, false, "the server accepted the request without answering it "
                         "(HTTP 202)");
        else
            mcp__hc_fail_request(t, x, true, "the server ended its response without answering "
                         "(HTTP %ld)%s", x->status, not_resumable(x));
    } else if (code != CURLE_OK) {
        bool reached;
        char text[CURL_ERROR_SIZE + 128];
        const char *why = curl_failure(x, code, &reached, text, sizeof text);
        if (!reached) {
            snprintf(t->unreachable, sizeof t->unreachable, "%s", why);
            mcp__hc_fail_request(t, x, true, "cannot reach the server: %s", why);
        } else if (ok_status && x->sse && !x->answered && mcp__hc_can_resume(t, x)) {
            mcp__hc_resume(t, x);
            return;
        } else if (!x->status || code == CURLE_OUT_OF_MEMORY) {
            mcp__hc_fail_request(t, x, true, "%s", why);
        } else {
            mcp__hc_fail_request(t, x, true, "the connection broke before the response ended "
                         "(HTTP %ld): %s%s", x->status, why, not_resumable(x));
        }
    } else if (x->status == 404 && mcp__hc_current_session(t, x) && !t->modern) {
        mcp__hc_expire(t, x); /* frees x */
        return;
    } else if (x->status == 404 && x->with_session && !t->modern) {
        mcp__hc_fail_request(t, x, false, "the server ended the MCP session this request "
                             "was sent in (a newer one has begun): it was lost");
    } else if (x->status >= 300 && x->status < 400 && x->location) {
        char shown[256];
        mcp__hc_fail_request(t, x, false, "HTTP %ld%s%s: the server sends the request to %s "
                             "(redirects are not followed: give that URL if it is trusted)",
                             x->status, x->reason[0] ? " " : "", x->reason,
                             mcp__http_url_shown(x->location, shown, sizeof shown));
    } else if (x->auth_why[0]) {
        mcp__hc_fail_request(t, x, false, "HTTP %ld%s%s: authorization failed: %s", x->status,
                             x->reason[0] ? " " : "", x->reason, x->auth_why);
    } else if (!pass_error_body(t, x)) {
        char snippet[320];
        body_snippet(x, snippet, sizeof snippet);
        mcp__hc_fail_request(t, x, false, "HTTP %ld%s%s%s%s", x->status, x->reason[0] ? " " : "",
                     x->reason, snippet[0] ? ": " : "", snippet);
    }
    mcp__hc_xfer_free(x);
}

static void output_ended(http_client *t, xfer *x, CURLcode code)
{
    bool ok = code == CURLE_OK && x->status >= 200 && x->status < 300;
    if (!ok && x->status == 404 && mcp__hc_current_session(t, x) && !t->modern &&
        x->role == X_OUTPUT) {
        mcp__hc_expire(t, x);
        return;
    }
    if (!ok && x->role == X_OUTPUT)
        mcp__hc_say(t, MCP_LOG_WARNING, "the server did not take %s: %s%s%ld %s",
            x->method ? x->method : "a message", code != CURLE_OK ? x->errbuf : "",
            code != CURLE_OK ? " " : "HTTP ", x->status, x->reason);
    if (ok && x->method && !strcmp(x->method, "notifications/initialized"))
        mcp__hc_start_listen(t, NULL);
    mcp__hc_xfer_free(x);
}

void mcp__hc_transfer_done(http_client *t, xfer *x, CURLcode code)
{
    if (!x->started)
        response_started(x); /* a response without a body, or none */
    if (x->dec_open) {
        mcp__sse_decoder_finish(&x->dec);
        /* An id can come in an event without data (a bare priming
         * event): the decoder knows it, no callback told us. */
        size_t n;
        const char *id = mcp__sse_decoder_last_id(&x->dec, &n);
        if (id && n)
            take_event_id(x, id, n);
    }
    if (mcp__hc_auth_retry(t, x, code))
        return;
    if (t->o.auth && t->o.auth->accepted && x->status >= 200 && x->status < 300)
        t->o.auth->accepted(t->o.auth->ud, x->auth_gen);
    if (x->role == X_REQUEST)
        request_ended(t, x, code);
    else if (x->role == X_LISTEN)
        mcp__hc_listen_ended(t, x, code);
    else
        output_ended(t, x, code);
}
