/* SPDX-License-Identifier: MIT */
/*
 * Streamable HTTP client transport (see http_client.h for what it does).
 *
 * A transfer (xfer) is one HTTP exchange and what it carries: a request's
 * POST (and, in 2025, the GETs that resume its broken stream: the same
 * xfer, so a cancel finds it wherever it is), a notification's POST, the
 * GET stream, the DELETE. curl's callbacks only record: bytes go to the
 * xfer's buffer or SSE decoder, decoded messages to the inbox; everything
 * that may call curl again (the sink, whose session may send or cancel;
 * finishing a transfer) runs after curl returned, in mcp__hc_after().
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/internal.h"
#include "transport/http_client_internal.h"
#include "transport/http_headers.h"

/* Headers mirrored from the body, and finding transfers ---------------------------------------- */

static xfer *find_request(http_client *t, const char *id, size_t n)
{
    for (xfer *x = t->xfers; x; x = x->next)
        if (x->role == X_REQUEST && x->id && x->id_len == n && memcmp(x->id, id, n) == 0)
            return x;
    return NULL;
}

static size_t count_role(const http_client *t, xrole a, xrole b)
{
    size_t n = 0;
    for (const xfer *x = t->xfers; x; x = x->next)
        n += x->role == a || x->role == b;
    return n;
}

/* A header that mirrors a value of the body, which may be empty: libcurl
 * takes "Name:" with nothing after it as "remove this header" (our own
 * "Expect:" relies on that), and sends "Name;" as the header with an empty
 * value. */
static int add_mirrored_header(void *ud, const char *line)
{
    const char *colon = strchr(line, ':');
    if (!colon || colon[1 + strspn(colon + 1, " \t")] != '\0')
        return mcp__hc_add_header(ud, line);
    size_t n = (size_t)(colon - line);
    char *empty = malloc(n + 2);
    if (!empty)
        return MCP_ERR_NOMEM;
    memcpy(empty, line, n);
    memcpy(empty + n, ";", 2);
    int rc = mcp__hc_add_header(ud, empty);
    free(empty);
    return rc;
}

/* A header whose value comes from the body: plain, or the Base64 form. */
static int add_value_header(xfer *x, const char *name, const char *v, size_t n)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = mcp_buf_append(&b, name, strlen(name));
    if (rc == MCP_OK)
        rc = mcp_buf_append(&b, MCP_LITERAL(": "));
    if (rc == MCP_OK)
        rc = mcp__http_value_encode(&b, v, n);
    if (rc == MCP_OK)
        rc = add_mirrored_header(x, b.data);
    mcp_buf_free(&b);
    return rc;
}

/* curl on the loop ------------------------------------------------------------------------------- */

static void handle_closed(uv_handle_t *h)
{
    http_client *t = h->data;
    if (h->type == UV_POLL)
        free(h);
    if (--t->open_handles == 0) {
        void (*done)(void *) = t->done;
        void *ud = t->done_ud;
        free(t);
        if (done)
            done(ud);
    }
}

static void close_sock(http_client *t, sock_ctx *sc)
{
    if (sc->prev)
        sc->prev->next = sc->next;
    else
        t->socks = sc->next;
    if (sc->next)
        sc->next->prev = sc->prev;
    uv_poll_stop(&sc->poll);
    sc->poll.data = t;
    uv_close((uv_handle_t *)&sc->poll, handle_closed);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    sock_ctx *sc = (sock_ctx *)p;
    http_client *t = sc->t;
    /* libuv reports a socket error (a reset) as UV_EBADF and stops the
     * handle; CURL_CSELECT_ERR would make curl say "select/poll returned
     * error". Telling it the socket is ready lets its recv or connect
     * check find the real cause ("Connection reset by peer"). */
    int flags = status < 0 ? CURL_CSELECT_IN | CURL_CSELECT_OUT
                           : ((events & UV_READABLE ? CURL_CSELECT_IN : 0) |
                              (events & UV_WRITABLE ? CURL_CSELECT_OUT : 0));
    int running;
    curl_multi_socket_action(t->multi, sc->fd, flags, &running);
    /* Still wanted by curl after an error: watch it again (libuv stopped it). */
    if (status < 0 && !uv_is_closing((uv_handle_t *)&sc->poll))
        uv_poll_start(&sc->poll, sc->events, on_poll);
    mcp__hc_after(t);
}

static int on_socket(CURL *e, curl_socket_t s, int what, void *userp, void *socketp)
{
    http_client *t = userp;
    sock_ctx *sc = socketp;
    if (what == CURL_POLL_REMOVE) {
        if (sc) {
            curl_multi_assign(t->multi, s, NULL);
            close_sock(t, sc);
        }
        return 0;
    }
    if (!sc) {
        sc = calloc(1, sizeof *sc);
        if (!sc || uv_poll_init_socket(t->loop, &sc->poll, s) != 0) {
            free(sc);
            return -1;
        }
        t->open_handles++;
        sc->fd = s;
        sc->t = t;
        sc->poll.data = sc;
        sc->next = t->socks;
        if (t->socks)
            t->socks->prev = sc;
        t->socks = sc;
        curl_multi_assign(t->multi, s, sc);
    }
    int ev = (what & CURL_POLL_IN ? UV_READABLE : 0) | (what & CURL_POLL_OUT ? UV_WRITABLE : 0);
    sc->events = ev;
    uv_poll_start(&sc->poll, ev, on_poll);
    return 0;
}

static void on_curl_timeout(uv_timer_t *h)
{
    http_client *t = h->data;
    int running;
    curl_multi_socket_action(t->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    mcp__hc_after(t);
}

static int on_timer(CURLM *m, long ms, void *userp)
{
    http_client *t = userp;
    if (ms < 0)
        uv_timer_stop(&t->curl_timer);
    else
        uv_timer_start(&t->curl_timer, on_curl_timeout, (uint64_t)ms, 0);
    return 0;
}

/* Sending ---------------------------------------------------------------------------------------- */

/* The 2026-07-28 headers of a request: they mirror its body. */
static int modern_headers(http_client *t, xfer *x, const shape *sh)
{
    int rc = mcp__hc_add_headerf(x, "MCP-Protocol-Version: %s", t->mversion);
    if (rc == MCP_OK && x->method)
        rc = add_value_header(x, "Mcp-Method", x->method, strlen(x->method));
    bool by_name = x->method && (!strcmp(x->method, "tools/call") || !strcmp(x->method, "prompts/get"));
    bool by_uri = x->method && !strcmp(x->method, "resources/read");
    /* The tasks extension's methods: by the task's id. */
    bool by_task = x->method && (!strcmp(x->method, "tasks/get") ||
                                 !strcmp(x->method, "tasks/update") ||
                                 !strcmp(x->method, "tasks/cancel"));
    if (rc == MCP_OK && (by_name || by_uri || by_task)) {
        mcp_buf v;
        mcp_buf_init(&v, 0, NULL);
        if (mcp__hc_span_string(mcp__hc_member(sh->params, by_uri    ? "uri"
                                                          : by_task ? "taskId"
                                                                    : "name"),
                                &v))
            rc = add_value_header(x, "Mcp-Name", v.data, v.len);
        mcp_buf_free(&v);
    }
    if (rc == MCP_OK && x->method && !strcmp(x->method, "tools/call") && t->o.param_headers) {
        mcp_json_doc *d = NULL;
        if (mcp_json_parse(sh->params.p, sh->params.n, NULL, NULL, &d, NULL) == MCP_OK)
            rc = t->o.param_headers(t->o.param_headers_ud, mcp_json_doc_root(d),
                                    add_mirrored_header, x);
        mcp_json_doc_free(d);
    }
    return rc;
}

/* The headers of x's POST, from its body: the era's, and the caller's. */
static int post_headers(http_client *t, xfer *x)
{
    shape sh;
    if (!mcp__hc_read_shape(x->body, x->body_len, &sh))
        return MCP_ERR_INVALID_ARG;
    int rc = mcp__hc_add_header(x, "Content-Type: application/json");
    if (rc == MCP_OK)
        rc = mcp__hc_add_header(x, "Accept: application/json, text/event-stream");
    if (rc == MCP_OK)
        rc = mcp__hc_add_header(x, "Expect:"); /* no 100-continue round trip */
    if (rc == MCP_OK)
        rc = mcp__hc_common_headers(t, x);
    if (rc == MCP_OK && t->modern)
        rc = modern_headers(t, x, &sh);
    else if (rc == MCP_OK && !(x->method && x->id && !strcmp(x->method, "initialize")))
        rc = mcp__hc_legacy_headers(t, x);
    return rc;
}

static xfer *cancelled_request(http_client *t, const shape *sh)
{
    mcp__span rid = mcp__hc_member(sh->params, "requestId");
    return rid.p ? find_request(t, rid.p, rid.n) : NULL;
}

static void cancel_request(http_client *t, const shape *sh, bool posted)
{
    xfer *x = cancelled_request(t, sh);
    if (!x)
        return;
    mcp__hc_say(t, MCP_LOG_DEBUG, "%s: its stream is closed%s", x->method ? x->method : "request",
        posted ? " (the cancel is posted)" : " (the cancel, as 2026-07-28 HTTP wants)");
    x->answered = true; /* ended by the session already */
    mcp__hc_xfer_free(x);
}

/* 2025: a cancel is posted only once its request has reached the
 * server. The two POSTs travel on two connections, and the server may
 * read the later one first: a cancel read before its request names an id
 * the server does not know yet (ignored, as the spec lets it), and the
 * request then runs to its end. Reached: the server answered the POST's
 * headers (a stream, or its answer), or curl sent it CANCEL_GRACE_MS ago
 * (a server that says nothing before its answer), or it waits to resume a
 * stream the server opened. */
#define CANCEL_GRACE_MS 100
#define CANCEL_CHECK_MS 5

static bool cancel_reached(const xfer *x, uint64_t now)
{
    return x->heard || !x->easy || (x->sends && now >= x->sent_ms + CANCEL_GRACE_MS);
}

static int send_one(http_client *t, const char *p, size_t n, bool traced);

/* soon_timer: the held cancels whose requests reached the server are
 * posted, then what the inbox holds is delivered (a made-up error for a
 * request sent after its session ended has no curl callback to carry
 * it). */
static void on_soon(uv_timer_t *h)
{
    http_client *t = h->data;
    uint64_t now = mcp__now_ms();
    bool holding = false;
    for (xfer *x = t->xfers; x && !t->closing;) {
        if (x->role != X_REQUEST || !x->held_cancel) {
            x = x->next;
            continue;
        }
        if (!cancel_reached(x, now)) {
            holding = true;
            x = x->next;
            continue;
        }
        char *cancel = x->held_cancel;
        size_t len = x->held_cancel_len;
        x->held_cancel = NULL;
        /* Posted now; x is freed with it and the list changes: again
         * from the start. */
        if (send_one(t, cancel, len, true) != MCP_OK)
            mcp__hc_say(t, MCP_LOG_WARNING, "a cancel could not be posted");
        free(cancel);
        x = t->xfers;
    }
    if (t->closing)
        return;
    if (holding)
        uv_timer_start(&t->soon_timer, on_soon, CANCEL_CHECK_MS, 0);
    mcp__hc_after(t);
}

/* Hold a 2025 cancel (p) of x until x reaches the server. */
static int hold_cancel(http_client *t, xfer *x, const char *p, size_t n)
{
    char *copy = malloc(n);
    if (!copy)
        return MCP_ERR_NOMEM;
    memcpy(copy, p, n);
    free(x->held_cancel); /* a second cancel of it: the latest goes */
    x->held_cancel = copy;
    x->held_cancel_len = n;
    if (!uv_is_active((uv_handle_t *)&t->soon_timer))
        uv_timer_start(&t->soon_timer, on_soon, CANCEL_CHECK_MS, 0);
    mcp__hc_say(t, MCP_LOG_DEBUG, "%s: its cancel waits until the server has the request",
        x->method ? x->method : "request");
    return MCP_OK;
}

/* Send one message of the session's (traced: by the caller already). */
static int send_one(http_client *t, const char *p, size_t n, bool traced)
{
    shape sh;
    if (!mcp__hc_read_shape(p, n, &sh))
        return MCP_ERR_INVALID_ARG;
    mcp_buf method;
    mcp_buf_init(&method, 0, NULL);
    bool has_method = mcp__hc_span_string(sh.method, &method);
    bool request = has_method && sh.id.p;
    bool cancel = has_method && !request && !strcmp(method.data, "notifications/cancelled");
    if (t->o.trace && !traced && !(cancel && t->modern))
        t->o.trace(t->o.trace_ud, true, p, n);
    mcp__span ver = mcp__hc_member(mcp__hc_member(sh.params, "_meta"), "io.modelcontextprotocol/protocolVersion");
    mcp_buf v;
    mcp_buf_init(&v, sizeof t->mversion - 1, NULL);
    if (request && mcp__hc_span_string(ver, &v)) {
        t->modern = true;
        memcpy(t->mversion, v.data, v.len + 1);
    }
    mcp_buf_free(&v);
    if (cancel && t->modern) {
        /* 2026-07-28: closing the stream is the cancel; nothing is posted. */
        cancel_request(t, &sh, false);
        mcp_buf_free(&method);
        return MCP_OK;
    }
    if (request && !strcmp(method.data, "initialize")) {
        /* A new 2025 session from scratch (after a probe, or ours before). */
        t->modern = false;
        free(t->lversion);
        free(t->session_id);
        t->lversion = t->session_id = NULL;
        t->expired = false;
        t->listen_given_up = false;
        t->listen_attempts = 0;
        for (xfer *x = t->xfers, *next; x; x = next) {
            next = x->next;
            if (x->role == X_REQUEST && x->method && !strcmp(x->method, "server/discover"))
                mcp__hc_xfer_free(x); /* the probe's answer is no longer wanted */
        }
    } else if (t->expired && !t->modern) {
        /* The session ended: only a new initialize starts another (the
         * client's, with a new session of the engine). */
        if (request) {
            xfer fake = {.t = t, .id = (char *)sh.id.p, .id_len = sh.id.n};
            mcp__hc_fail_request(t, &fake, false, "the server ended the MCP session: start a "
                                                  "new one (initialize) first");
            /* No curl callback will deliver it: the loop's next turn. */
            uv_timer_start(&t->soon_timer, on_soon, 0, 0);
        } else {
            mcp__hc_say(t, MCP_LOG_DEBUG, "%s dropped: its session has ended",
                has_method ? method.data : "a response");
        }
        mcp_buf_free(&method);
        return MCP_OK;
    }
    xfer *target = cancel && !t->modern ? cancelled_request(t, &sh) : NULL;
    if (target && !cancel_reached(target, mcp__now_ms())) {
        int rc = hold_cancel(t, target, p, n);
        mcp_buf_free(&method);
        return rc;
    }
    xfer *x = mcp__hc_xfer_new(t, request ? X_REQUEST : X_OUTPUT);
    int rc = x ? MCP_OK : MCP_ERR_NOMEM;
    if (rc == MCP_OK && has_method && !(x->method = strdup(method.data)))
        rc = MCP_ERR_NOMEM;
    if (rc == MCP_OK && request && !(x->id = strndup(sh.id.p, sh.id.n)))
        rc = MCP_ERR_NOMEM;
    if (x)
        x->id_len = sh.id.n;
    if (rc == MCP_OK && !(x->body = malloc(n ? n : 1)))
        rc = MCP_ERR_NOMEM;
    if (rc == MCP_OK) {
        memcpy(x->body, p, n);
        x->body_len = n;
        rc = post_headers(t, x);
    }
    if (rc == MCP_OK)
        rc = mcp__hc_launch(t, x, false);
    if (rc != MCP_OK && x)
        mcp__hc_xfer_free(x);
    if (rc == MCP_OK && cancel)
        cancel_request(t, &sh, true); /* 2025: posted, and its stream closed */
    mcp_buf_free(&method);
    return rc == MCP_ERR_LIMIT ? MCP_ERR_NOMEM : rc;
}

static int op_send(mcp__transport *bt, uint64_t route, const char *data, size_t len)
{
    http_client *t = (http_client *)bt;
    if (t->closing)
        return MCP_ERR_STATE;
    while (len) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (n) {
            int rc = send_one(t, data, n, false);
            if (rc != MCP_OK)
                return rc;
        }
        data += nl ? n + 1 : n;
        len -= nl ? n + 1 : n;
    }
    return MCP_OK;
}

/* The rest of the vtable ------------------------------------------------------------------------------ */

static void op_close_route(mcp__transport *bt, uint64_t route)
{
    (void)bt;
    (void)route;
}

static void op_close(mcp__transport *bt, void (*done)(void *ud), void *ud)
{
    http_client *t = (http_client *)bt;
    if (t->closing)
        return;
    t->closing = true;
    t->done = done;
    t->done_ud = ud;
    while (t->xfers)
        mcp__hc_xfer_free(t->xfers);
    mcp__hc_free_inbox(t);
    curl_multi_cleanup(t->multi); /* may close sockets through on_socket */
    t->multi = NULL;
    while (t->socks)
        close_sock(t, t->socks);
    free(t->url);
    free(t->ca_file);
    for (char **h = t->headers; h && *h; h++)
        free(*h);
    free(t->headers);
    free(t->lversion);
    free(t->session_id);
    uv_close((uv_handle_t *)&t->curl_timer, handle_closed);
    uv_close((uv_handle_t *)&t->resume_timer, handle_closed);
    uv_close((uv_handle_t *)&t->soon_timer, handle_closed);
}

static size_t op_unwritten(const mcp__transport *bt)
{
    const http_client *t = (const http_client *)bt;
    size_t held = 0; /* cancels waiting for their requests: unwritten too */
    for (const xfer *x = t->xfers; x; x = x->next)
        held += x->held_cancel != NULL;
    return count_role(t, X_OUTPUT, X_DELETE) + held;
}

/* 2025: end the session with DELETE (the server may answer 405). */
static void op_end_output(mcp__transport *bt)
{
    http_client *t = (http_client *)bt;
    if (t->closing || t->modern || !t->session_id || count_role(t, X_DELETE, X_DELETE))
        return;
    xfer *x = mcp__hc_xfer_new(t, X_DELETE);
    if (!x || mcp__hc_common_headers(t, x) != MCP_OK || mcp__hc_legacy_headers(t, x) != MCP_OK ||
        mcp__hc_launch(t, x, true) != MCP_OK) {
        if (x)
            mcp__hc_xfer_free(x);
        return;
    }
    free(t->session_id);
    t->session_id = NULL;
    t->ending = true;
}

static void op_stop_input(mcp__transport *bt)
{
    http_client *t = (http_client *)bt;
    if (t->closing)
        return;
    t->input_stopped = true;
    for (xfer *x = t->xfers, *next; x; x = next) {
        next = x->next;
        if (x->role == X_REQUEST || x->role == X_LISTEN)
            mcp__hc_xfer_free(x);
    }
    mcp__hc_free_inbox(t);
}

static const mcp__transport_ops ops = {
    .send = op_send,
    .close_route = op_close_route,
    .close = op_close,
    .unwritten = op_unwritten,
    .end_output = op_end_output,
    .stop_input = op_stop_input,
};

/* Creation --------------------------------------------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void init_curl(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

mcp__transport *mcp__http_client_new(uv_loop_t *loop, const mcp__http_client_options *o,
                                     char *err, size_t err_len)
{
    pthread_once(&curl_once, init_curl);
    if (curl_init_rc != CURLE_OK) {
        snprintf(err, err_len, "libcurl could not start: %s", curl_easy_strerror(curl_init_rc));
        return NULL;
    }
    http_client *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    t->base.ops = &ops;
    t->loop = loop;
    t->o = *o;
    if (!t->o.max_message)
        t->o.max_message = DEFAULT_MAX;
    if (!t->o.connect_timeout_ms)
        t->o.connect_timeout_ms = DEFAULT_CONNECT_MS;
    size_t nh = 0;
    while (o->headers && o->headers[nh])
        nh++;
    t->url = strdup(o->url);
    t->ca_file = o->ca_file ? strdup(o->ca_file) : NULL;
    t->headers = calloc(nh + 1, sizeof *t->headers);
    bool ok = t->url && (!o->ca_file || t->ca_file) && t->headers;
    for (size_t i = 0; ok && i < nh; i++)
        ok = (t->headers[i] = mcp__http_header_for_curl(o->headers[i])) != NULL;
    t->on_body = mcp__hc_on_body;
    t->on_header = mcp__hc_on_header;
    t->on_done = mcp__hc_transfer_done;
    t->soon = on_soon;
    t->multi = ok ? curl_multi_init() : NULL;
    if (!t->multi) {
        for (size_t i = 0; t->headers && i < nh; i++)
            free(t->headers[i]);
        free(t->headers);
        free(t->url);
        free(t->ca_file);
        free(t);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    curl_multi_setopt(t->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(t->multi, CURLMOPT_SOCKETDATA, t);
    curl_multi_setopt(t->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(t->multi, CURLMOPT_TIMERDATA, t);
    uv_timer_init(loop, &t->curl_timer);
    uv_timer_init(loop, &t->resume_timer);
    uv_timer_init(loop, &t->soon_timer);
    t->curl_timer.data = t->resume_timer.data = t->soon_timer.data = t;
    t->open_handles = 3;
    return &t->base;
}

const char *mcp__http_client_unreachable(const mcp__transport *bt)
{
    const http_client *t = (const http_client *)bt;
    return t->unreachable[0] ? t->unreachable : NULL;
}

bool mcp__http_client_made_up(const mcp__transport *bt)
{
    return ((const http_client *)bt)->delivering_made_up;
}

mcp__http_stream_state mcp__http_client_stream_state(const mcp__transport *bt)
{
    const http_client *t = (const http_client *)bt;
    if (t->modern || !t->lversion)
        return MCP__HTTP_STREAM_NONE;
    if (t->expired)
        return MCP__HTTP_STREAM_SESSION_ENDED;
    if (t->listen_off)
        return MCP__HTTP_STREAM_REFUSED;
    return t->listen_given_up ? MCP__HTTP_STREAM_FAILED : MCP__HTTP_STREAM_OPEN;
}

bool mcp__http_client_listen_settled(const mcp__transport *bt)
{
    const http_client *t = (const http_client *)bt;
    return t->modern || !t->session_id || t->expired || t->closing || t->listen_off ||
           t->listen_given_up || t->listen_answered;
}

bool mcp__http_client_has_session(const mcp__transport *bt)
{
    return ((const http_client *)bt)->session_id != NULL;
}
