/* SPDX-License-Identifier: MIT */
/*
 * The HTTP endpoint of a client: a Streamable HTTP transport
 * (transport/http_client.c) under the same session and calls as stdio.
 *
 * The era is remembered per origin (scheme://host:port) for the life of
 * the process, so a second client of the same server, or a reconnect,
 * skips the probe; when the remembered era fails to connect it is
 * forgotten and the server probed again (an upgraded server).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "client/auth/oauth.h"
#include "client/internal.h"
#include "core/opts.h"
#include "transport/http_client.h"
#include "transport/http_headers.h"

/* The era per origin ------------------------------------------------------------ */

#define ORIGINS 32

static pthread_mutex_t origins_lock = PTHREAD_MUTEX_INITIALIZER;

/* The longest a connect waits for the server to answer the 2025 GET
 * stream (a server that holds it without headers is not waited for). */
#define LISTEN_WAIT_MS 2000
static struct {
    char *origin;
    mcp_connect_mode mode;
    const char *version; /* a literal of the session's era table */
} origins[ORIGINS];
static unsigned origins_next;

/* scheme://host:port of url (the port spelled out), or NULL. */
static char *origin_of(const char *url)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL, *out = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
        size_t n = strlen(scheme) + strlen(host) + strlen(port) + 5;
        out = malloc(n);
        if (out) {
            snprintf(out, n, "%s://%s:%s", scheme, host, port);
            for (char *p = out; *p; p++)
                *p = (char)tolower((unsigned char)*p);
        }
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return out;
}

static bool era_recalled(const char *origin, mcp_connect_mode *mode, const char **version)
{
    bool found = false;
    pthread_mutex_lock(&origins_lock);
    for (unsigned i = 0; i < ORIGINS && !found; i++)
        if (origins[i].origin && !strcmp(origins[i].origin, origin)) {
            *mode = origins[i].mode;
            *version = origins[i].version;
            found = true;
        }
    pthread_mutex_unlock(&origins_lock);
    return found;
}

/* Remember (mode != AUTO) or forget (AUTO) the era of an origin. */
static void era_note(const char *origin, mcp_connect_mode mode, const char *version)
{
    pthread_mutex_lock(&origins_lock);
    unsigned slot = ORIGINS;
    for (unsigned i = 0; i < ORIGINS; i++)
        if (origins[i].origin && !strcmp(origins[i].origin, origin))
            slot = i;
    if (mode == MCP_CONNECT_AUTO) {
        if (slot < ORIGINS) {
            free(origins[slot].origin);
            origins[slot].origin = NULL;
        }
    } else {
        char *copy = slot < ORIGINS ? origins[slot].origin : strdup(origin);
        if (slot == ORIGINS && copy) {
            slot = origins_next++ % ORIGINS; /* the oldest makes room */
            free(origins[slot].origin);
        }
        if (copy) {
            origins[slot].origin = copy;
            origins[slot].mode = mode;
            origins[slot].version = version;
        }
    }
    pthread_mutex_unlock(&origins_lock);
}

/* The link ------------------------------------------------------------------------- */

static void on_trace(void *ud, bool outgoing, const char *line, size_t len)
{
    mcp_client *c = ud;
    c->opts.trace(c->opts.trace_user_data, outgoing, line, len);
}

static void on_log(void *ud, const mcp_log_record *r)
{
    mcp__client_log(ud, r);
}

static void write_failed(mcp_client *c, const char *why)
{
    char shown[256];
    mcp__client_set_error(c, "cannot send to %s: %s", mcp__http_url_shown(c->url, shown, sizeof shown),
                          why);
}

static void transport_down(mcp_client *c, bool input, const char *why)
{
    if (!c->error[0] && c->state != CL_CLOSING)
        mcp__client_set_error(c, "the HTTP transport stopped: %s", why);
    mcp__client_end(c);
}

static bool output_done(mcp_client *c, void *arg)
{
    mcp__transport *t = c->driver_open ? c->driver.transport : NULL;
    return !t || !t->ops->unwritten || t->ops->unwritten(t) == 0;
}

/* What was posted (a cancel) is delivered, then the session ends with
 * DELETE, each wait bounded by close_grace_ms. */
static void stop(mcp_client *c)
{
    mcp__transport *t = c->driver_open ? c->driver.transport : NULL;
    if (!t)
        return;
    mcp__client_run_until(c, output_done, NULL, mcp__now_ms() + c->opts.close_grace_ms);
    if (t->ops->end_output)
        t->ops->end_output(t);
    mcp__client_run_until(c, output_done, NULL, mcp__now_ms() + c->opts.close_grace_ms);
    c->http = NULL;
}

static bool listen_settled(mcp_client *c, void *arg)
{
    (void)arg;
    return !c->driver_open || !c->http || mcp_session_closed(c->driver.session) ||
           mcp__http_client_listen_settled(c->http);
}

/* The transport asks, for each 2026-07-28 tools/call, which parameters
 * its tool mirrors into headers: the client's tool cache knows. */
static int param_headers(void *ud, const mcp_json *params, int (*add)(void *, const char *),
                         void *add_ud)
{
    mcp_client *c = ud;
    return mcp__tools_headers_for_call(c->tools, params, add, add_ud);
}

/* The server ended the 2025 session: the next call starts a new one. */
static void session_expired(void *ud)
{
    ((mcp_client *)ud)->session_expired = true;
}

static int start_once(mcp_client *c)
{
    c->error[0] = '\0';
    mcp__http_client_options ho = {.url = c->url,
                                   .headers = (const char *const *)c->http_headers,
                                   .tls_no_verify = c->tls_no_verify,
                                   .ca_file = c->ca_file,
                                   .connect_timeout_ms = c->http_connect_timeout_ms,
                                   .max_message = c->opts.max_message,
                                   .trace = c->opts.trace ? on_trace : NULL,
                                   .trace_ud = c,
                                   .log = on_log,
                                   .log_ud = c,
                                   .param_headers = param_headers,
                                   .param_headers_ud = c,
                                   .session_expired = session_expired,
                                   .session_expired_ud = c,
                                   .auth = c->oauth ? mcp__oauth_hooks(c->oauth) : NULL};
    char why[256];
    mcp__transport *inner = mcp__http_client_new(&c->loop, &ho, why, sizeof why);
    if (!inner) {
        mcp__client_set_error(c, "%s", why);
        return MCP_ERR_NOMEM;
    }
    mcp__transport *t = c->wrap_transport ? c->wrap_transport(c->wrap_ud, inner) : inner;
    if (!t) {
        inner->ops->close(inner, NULL, NULL);
        return MCP_ERR_NOMEM;
    }
    int rc = mcp__client_open(c, t);
    if (rc != MCP_OK)
        return rc;
    c->http = inner;
    uint64_t started = mcp__now_ms();
    rc = mcp__client_connect(c);
    if (rc == MCP_OK) {
        /* 2025: connected once the GET stream is answered too (at most
         * LISTEN_WAIT_MS more, within the connect timeout): a request the
         * server sends on it right after (a tool's elicitation, with no
         * related request) would otherwise find no stream and be lost, as
         * it was 1 run in 7 in the conformance suite's sep1034 scenario. */
        uint64_t end = started + c->opts.connect_timeout_ms, now = mcp__now_ms();
        if (end > now + LISTEN_WAIT_MS)
            end = now + LISTEN_WAIT_MS;
        mcp__client_run_until(c, listen_settled, NULL, end);
    }
    if (rc != MCP_OK) {
        const char *unreachable = mcp__http_client_unreachable(inner);
        if (unreachable) {
            /* No HTTP answer at all: say so, not "the server refused". */
            char shown[256];
            mcp__client_set_error(c, "cannot reach %s: %s",
                                  mcp__http_url_shown(c->url, shown, sizeof shown), unreachable);
            if (rc == MCP_ERR_REMOTE || rc == MCP_ERR_HTTP)
                rc = MCP_ERR_IO;
        }
        mcp__client_teardown(c);
    }
    return rc;
}

static int start(mcp_client *c)
{
    char *origin = origin_of(c->url);
    bool recalled = false;
    if (origin && c->opts.connect_mode == MCP_CONNECT_AUTO && c->era_mode == MCP_CONNECT_AUTO)
        recalled = era_recalled(origin, &c->era_mode, &c->era_version);
    int rc = start_once(c);
    if (rc != MCP_OK && recalled && rc != MCP_ERR_IO) {
        era_note(origin, MCP_CONNECT_AUTO, NULL);
        c->era_mode = MCP_CONNECT_AUTO;
        c->era_version = NULL;
        rc = start_once(c);
    }
    if (rc == MCP_OK && origin && c->opts.connect_mode == MCP_CONNECT_AUTO)
        era_note(origin, c->era_mode, c->era_version);
    free(origin);
    return rc;
}

const mcp__client_link mcp__client_http_link = {start, stop, transport_down, write_failed};

/* Connecting ------------------------------------------------------------------------------ */

/* What the OAuth engine says, as the client's log records (its texts may
 * carry what servers sent: escaped). */
static void oauth_log(void *ud, mcp_log_level level, const char *text)
{
    char escaped[1024];
    mcp_text_escape_controls(text, strlen(text), escaped, sizeof escaped);
    mcp_log_record r = {.level = level, .message = escaped};
    mcp__client_log(ud, &r);
}

void mcp__client_oauth_free(mcp_client *c)
{
    mcp__oauth_free(c->oauth);
    c->oauth = NULL;
}

static int oauth_start(mcp_client *c, const mcp_oauth_options *oo, const char *url)
{
    mcp__oauth_free(c->oauth);
    c->oauth = NULL;
    if (!oo)
        return MCP_OK;
    if (oo->size == 0 || oo->size > sizeof(mcp_oauth_options)) {
        mcp__client_set_error(c, "bad arguments: OAuth options of an unknown size");
        return MCP_ERR_INVALID_ARG;
    }
    mcp__auth_http h = {.ca_file = c->ca_file,
                        .tls_no_verify = c->tls_no_verify,
                        .timeout_ms = c->opts.connect_timeout_ms};
    char why[256];
    c->oauth = mcp__oauth_new(oo, url, &h, oauth_log, c, why, sizeof why);
    if (!c->oauth) {
        mcp__client_set_error(c, "%s", why);
        return MCP_ERR_NOMEM;
    }
    return MCP_OK;
}

/* Headers the transport writes itself: a caller's would contradict them. */
static bool reserved_header(const char *name, size_t n)
{
    static const char *const names[] = {"content-type", "accept", "mcp-session-id",
                                        "mcp-protocol-version", "mcp-method", "mcp-name",
                                        "last-event-id", "content-length", "host",
                                        "transfer-encoding", "expect",
                                        /* curl would not decode what it asks for */
                                        "accept-encoding"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && !strncasecmp(names[i], name, n))
            return true;
    return n >= 10 && !strncasecmp(name, "mcp-param-", 10);
}

const char *mcp__client_header_problem(const char *h)
{
    const char *colon = strchr(h, ':');
    if (!colon || colon == h)
        return "not 'Name: value'";
    if (!mcp__http_token_valid(h, (size_t)(colon - h)))
        return "the name is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)";
    if (reserved_header(h, (size_t)(colon - h)))
        return "the transport writes this header itself";
    for (const char *p = colon + 1; *p; p++)
        if ((unsigned char)*p < 0x20 ? *p != '\t' : *p == 0x7f)
            return "a control character in the value"; /* CR, LF: no header may be forged */
    return NULL;
}

bool mcp__client_url_usable(const char *url, char *why, size_t size)
{
    if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
        snprintf(why, size, "not an http:// or https:// URL");
        return false;
    }
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
            snprintf(why, size, "a %s at byte %zu of the URL (encode it: %%20 for a space)",
                     *p == ' ' ? "space" : "control character", (size_t)(p - url));
            return false;
        }
    CURLU *u = curl_url();
    if (!u) {
        snprintf(why, size, "out of memory");
        return false;
    }
    CURLUcode rc = curl_url_set(u, CURLUPART_URL, url, 0);
    char *host = NULL;
    if (rc == CURLUE_OK)
        rc = curl_url_get(u, CURLUPART_HOST, &host, 0);
    if (rc != CURLUE_OK)
        snprintf(why, size, "not a usable URL: %s", curl_url_strerror(rc));
    curl_free(host);
    curl_url_cleanup(u);
    return rc == CURLUE_OK;
}

int mcp_client_connect_http(mcp_client *c, const char *url, const mcp_http_client_options *opts)
{
    if (c->state != CL_NEW) {
        mcp__client_set_error(c, c->state == CL_CLOSED ? "the client is closed"
                                                       : "the client is already connected");
        return MCP_ERR_STATE;
    }
    mcp_http_client_options o;
    if (!url || mcp__opts_copy(&o, sizeof o, opts) != MCP_OK) {
        mcp__client_set_error(c, "bad arguments: a URL and options of a known size");
        return MCP_ERR_INVALID_ARG;
    }
    char why[160], shown[256];
    if (!mcp__client_url_usable(url, why, sizeof why)) {
        mcp__client_set_error(c, "%s: '%s'", why, mcp__http_url_shown(url, shown, sizeof shown));
        return MCP_ERR_INVALID_ARG;
    }
    for (const char *const *h = o.headers; h && *h; h++) {
        const char *problem = mcp__client_header_problem(*h);
        if (problem) {
            /* The name only, and only when it is a token: the value may
             * be a secret, and a name that is not a token may be anything. */
            const char *colon = strchr(*h, ':');
            size_t n = colon ? (size_t)(colon - *h) : 0;
            if (n && n <= 64 && mcp__http_token_valid(*h, n))
                mcp__client_set_error(c, "cannot send the header %.*s: %s", (int)n, *h, problem);
            else
                mcp__client_set_error(c, "cannot send a header line: %s", problem);
            return MCP_ERR_INVALID_ARG;
        }
        if (o.oauth && !strncasecmp(*h, "authorization:", 14)) {
            mcp__client_set_error(c, "cannot send the header Authorization: OAuth gives it");
            return MCP_ERR_INVALID_ARG;
        }
    }
    /* A CA file that cannot be read would only show up as a TLS failure
     * ("cannot reach"), and only for https. */
    if (o.ca_file) {
        FILE *f = fopen(o.ca_file, "r");
        if (!f) {
            mcp__client_set_error(c, "cannot read the CA file %.200s: %s", o.ca_file,
                                  strerror(errno));
            return MCP_ERR_INVALID_ARG;
        }
        fclose(f);
    }
    char *u = strdup(url), *ca = o.ca_file ? strdup(o.ca_file) : NULL;
    char **headers = o.headers ? mcp__client_copy_strings(o.headers) : NULL;
    if (!u || (o.ca_file && !ca) || (o.headers && !headers)) {
        free(u);
        free(ca);
        mcp__client_free_strings(headers);
        return MCP_ERR_NOMEM;
    }
    /* After a failed connect: another endpoint, or the same one again. */
    free(c->url);
    free(c->ca_file);
    mcp__client_free_strings(c->http_headers);
    c->url = u;
    c->ca_file = ca;
    c->http_headers = headers;
    c->tls_no_verify = o.tls_no_verify;
    c->http_connect_timeout_ms = o.connect_timeout_ms;
    c->link = &mcp__client_http_link;
    c->era_mode = c->opts.connect_mode;
    c->era_version = NULL;
    int rc = oauth_start(c, o.oauth, u);
    if (rc != MCP_OK)
        return rc;
    rc = start(c);
    c->connected_once = rc == MCP_OK;
    return rc;
}

int mcp__client_http_status(const mcp_client *c, const mcp_message *m)
{
    if (!c->http || !m || m->error_code != MCP__HTTP_ERROR_CODE || !mcp__http_client_made_up(c->http))
        return -1;
    int64_t status = 0;
    if (!mcp_json_object_get(m->error_data, "httpError") &&
        (mcp_json_get_int64(mcp_json_object_get(m->error_data, "httpStatus"), &status) != MCP_OK ||
         status < 0 || status > 999))
        status = 0;
    return (int)status;
}

void mcp__client_http_failure(const mcp_client *c, mcp_client_call_result *r)
{
    int status = mcp__client_http_status(c, r->response);
    if (status < 0)
        return;
    r->outcome = MCP_ERR_HTTP;
    r->error_code = 0;
    r->http_status = status;
}

mcp_client_stream_state mcp_client_server_stream(const mcp_client *c)
{
    static const mcp_client_stream_state states[] = {
        [MCP__HTTP_STREAM_NONE] = MCP_CLIENT_STREAM_NONE,
        [MCP__HTTP_STREAM_OPEN] = MCP_CLIENT_STREAM_OPEN,
        [MCP__HTTP_STREAM_REFUSED] = MCP_CLIENT_STREAM_REFUSED,
        [MCP__HTTP_STREAM_FAILED] = MCP_CLIENT_STREAM_FAILED,
        [MCP__HTTP_STREAM_SESSION_ENDED] = MCP_CLIENT_STREAM_SESSION_ENDED};
    return c && c->http ? states[mcp__http_client_stream_state(c->http)]
                        : MCP_CLIENT_STREAM_NONE;
}
