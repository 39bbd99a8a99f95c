/* SPDX-License-Identifier: MIT */
/*
 * The relay (mcp_http_relay_*, client.h): the Streamable HTTP transport
 * (transport/http_client.c) with no session above it, for a gateway that
 * carries another client's messages (mcp proxy --url). The transport
 * already tells the eras apart by what is sent, closes a 2026-07-28
 * request's stream on its cancel, posts a 2025 one and makes up an error
 * for a request whose exchange failed: the relay only owns it, with the
 * client's checks of a URL and headers, optionally its OAuth engine, and a
 * tool cache learned from the 2026-07-28 tools/list results that pass, for
 * the Mcp-Param-* headers of the tools/call that follow.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/auth/oauth.h"
#include "client/internal.h"
#include "client/tools.h"
#include "core/opts.h"
#include "transport/http_client.h"

/* The 2026-07-28 tools/list requests unanswered whose results the relay
 * reads (at most this many; the oldest forgotten). */
#define LISTS 16

struct mcp_http_relay {
    mcp_http_relay_options o; /* headers and ca_file: the copies below */
    mcp__transport *t;
    mcp__oauth *oauth;
    char **headers;
    char *ca_file;
    /* What the tools the server listed mirror into Mcp-Param-* headers
     * (2026-07-28): learned from the tools/list results that pass, asked
     * by the transport for each tools/call. */
    mcp__tools *tools;
    mcp_id lists[LISTS]; /* copies; MCP_ID_NONE: free */
    unsigned next_list;
    bool closing;
};

/* Remember a 2026-07-28 tools/list request's id, to read its result. */
static void note_list(mcp_http_relay *r, const char *data, size_t len)
{
    mcp_message *m = NULL;
    if (mcp_message_decode(data, len, NULL, NULL, &m, NULL) == MCP_OK &&
        m->kind == MCP_MESSAGE_REQUEST && mcp_message_method_is(m, "tools/list") &&
        mcp_json_object_get(mcp_json_object_get(m->params, "_meta"),
                            "io.modelcontextprotocol/protocolVersion")) {
        mcp_id *slot = &r->lists[r->next_list++ % LISTS];
        mcp_id_release(slot, NULL);
        if (mcp_id_copy(slot, &m->id, NULL) != MCP_OK)
            slot->kind = MCP_ID_NONE;
    }
    mcp_message_free(m);
}

/* A response to a noted tools/list: what its tools mirror is learned. */
static void read_list(mcp_http_relay *r, const char *data, size_t len)
{
    bool any = false;
    for (unsigned i = 0; i < LISTS && !any; i++)
        any = r->lists[i].kind != MCP_ID_NONE;
    if (!any)
        return;
    mcp_message *m = NULL;
    if (mcp_message_decode(data, len, NULL, NULL, &m, NULL) == MCP_OK &&
        (m->kind == MCP_MESSAGE_RESULT || m->kind == MCP_MESSAGE_ERROR)) {
        for (unsigned i = 0; i < LISTS; i++) {
            if (r->lists[i].kind == MCP_ID_NONE || !mcp_id_equal(&r->lists[i], &m->id))
                continue;
            mcp_id_release(&r->lists[i], NULL);
            mcp_json_doc *kept = NULL;
            if (m->kind == MCP_MESSAGE_RESULT)
                mcp__tools_learn(r->tools, m->result, true, &kept, NULL, NULL);
            mcp_json_doc_free(kept); /* the client gets the server's list as it is */
            break;
        }
    }
    mcp_message_free(m);
}

static int param_headers(void *ud, const mcp_json *params, int (*add)(void *, const char *),
                         void *add_ud)
{
    mcp_http_relay *r = ud;
    return mcp__tools_headers_for_call(r->tools, params, add, add_ud);
}

static int on_message(void *ud, uint64_t route, const char *data, size_t len)
{
    mcp_http_relay *r = ud;
    (void)route;
    if (!r->closing)
        read_list(r, data, len);
    if (!r->closing && r->o.message)
        r->o.message(r->o.user_data, data, len, mcp__http_client_made_up(r->t));
    return MCP_OK;
}

static void on_oversized(void *ud, uint64_t route, const char *head, size_t head_len,
                         const char *tail, size_t tail_len, size_t limit)
{
    mcp_http_relay *r = ud;
    (void)route, (void)tail, (void)tail_len;
    if (!r->closing && r->o.oversized)
        r->o.oversized(r->o.user_data, head, head_len, limit);
}

static void on_route_closed(void *ud, uint64_t route)
{
    (void)ud, (void)route;
}

static void on_input_ended(void *ud, const char *why, bool failed)
{
    (void)ud, (void)why, (void)failed;
}

static void on_output_failed(void *ud, const char *why)
{
    (void)ud, (void)why;
}

static void on_log(void *ud, const mcp_log_record *rec)
{
    mcp_http_relay *r = ud;
    if (r->o.log)
        r->o.log(r->o.user_data, rec);
}

static void oauth_log(void *ud, mcp_log_level level, const char *text)
{
    char escaped[1024];
    mcp_text_escape_controls(text, strlen(text), escaped, sizeof escaped);
    mcp_log_record rec = {.level = level, .message = escaped};
    on_log(ud, &rec);
}

static void relay_free(mcp_http_relay *r)
{
    for (unsigned i = 0; i < LISTS; i++)
        mcp_id_release(&r->lists[i], NULL);
    mcp__tools_free(r->tools);
    mcp__oauth_free(r->oauth);
    mcp__client_free_strings(r->headers);
    free(r->ca_file);
    free(r);
}

static void closed(void *ud)
{
    relay_free(ud);
}

int mcp_http_relay_new(struct uv_loop_s *loop, const char *url, const mcp_http_relay_options *opts,
                       mcp_http_relay **out, char *err, size_t err_len)
{
    if (out)
        *out = NULL;
    if (err && err_len)
        err[0] = '\0';
    mcp_http_relay_options o;
    if (!loop || !url || !out || mcp__opts_copy(&o, sizeof o, opts) != MCP_OK) {
        snprintf(err, err ? err_len : 0, "bad arguments: a loop, a URL and options of a known size");
        return MCP_ERR_INVALID_ARG;
    }
    char why[160];
    if (!mcp__client_url_usable(url, why, sizeof why)) {
        snprintf(err, err ? err_len : 0, "%s", why);
        return MCP_ERR_INVALID_ARG;
    }
    for (const char *const *h = o.headers; h && *h; h++) {
        const char *problem = mcp__client_header_problem(*h);
        if (!problem && o.oauth && !strncasecmp(*h, "authorization:", 14))
            problem = "OAuth gives it";
        if (problem) {
            /* The name only, never the value (it may be a secret). */
            const char *colon = strchr(*h, ':');
            size_t n = colon ? (size_t)(colon - *h) : 0;
            bool printable = n && n <= 64;
            for (size_t i = 0; i < n && printable; i++)
                printable = (unsigned char)(*h)[i] > 0x20 && (unsigned char)(*h)[i] < 0x7f;
            if (printable)
                snprintf(err, err ? err_len : 0, "cannot send the header %.*s: %s", (int)n, *h,
                         problem);
            else
                snprintf(err, err ? err_len : 0, "cannot send a header line: %s", problem);
            return MCP_ERR_INVALID_ARG;
        }
    }
    if (o.ca_file) {
        FILE *f = fopen(o.ca_file, "r");
        if (!f) {
            snprintf(err, err ? err_len : 0, "cannot read the CA file %.200s: %s", o.ca_file,
                     strerror(errno));
            return MCP_ERR_INVALID_ARG;
        }
        fclose(f);
    }
    if (o.oauth && (o.oauth->size == 0 || o.oauth->size > sizeof(mcp_oauth_options))) {
        snprintf(err, err ? err_len : 0, "bad arguments: OAuth options of an unknown size");
        return MCP_ERR_INVALID_ARG;
    }
    mcp_http_relay *r = calloc(1, sizeof *r);
    if (!r)
        return MCP_ERR_NOMEM;
    r->o = o;
    r->headers = o.headers ? mcp__client_copy_strings(o.headers) : NULL;
    r->ca_file = o.ca_file ? strdup(o.ca_file) : NULL;
    r->o.headers = (const char *const *)r->headers;
    r->o.ca_file = r->ca_file;
    r->o.oauth = NULL; /* copied into the engine, not kept */
    r->tools = mcp__tools_new();
    if ((o.headers && !r->headers) || (o.ca_file && !r->ca_file) || !r->tools) {
        relay_free(r);
        return MCP_ERR_NOMEM;
    }
    if (o.oauth) {
        mcp__auth_http h = {.ca_file = r->ca_file,
                            .tls_no_verify = o.tls_no_verify,
                            .timeout_ms = o.connect_timeout_ms};
        r->oauth = mcp__oauth_new(o.oauth, url, &h, oauth_log, r, err, err ? err_len : 0);
        if (!r->oauth) {
            relay_free(r);
            return MCP_ERR_NOMEM;
        }
    }
    mcp__http_client_options ho = {.url = url,
                                   .headers = r->o.headers,
                                   .tls_no_verify = o.tls_no_verify,
                                   .ca_file = r->ca_file,
                                   .connect_timeout_ms = o.connect_timeout_ms,
                                   .max_message = o.max_message,
                                   .log = on_log,
                                   .log_ud = r,
                                   .param_headers = param_headers,
                                   .param_headers_ud = r,
                                   .auth = r->oauth ? mcp__oauth_hooks(r->oauth) : NULL};
    r->t = mcp__http_client_new(loop, &ho, why, sizeof why);
    if (!r->t) {
        snprintf(err, err ? err_len : 0, "%s", why);
        relay_free(r);
        return MCP_ERR_NOMEM;
    }
    r->t->sink = (mcp__transport_sink){on_message,      on_oversized,     on_route_closed,
                                       on_input_ended,  on_output_failed, r};
    *out = r;
    return MCP_OK;
}

int mcp_http_relay_send(mcp_http_relay *r, const char *data, size_t len)
{
    if (!r || (!data && len) || (len && memchr(data, '\n', len)))
        return MCP_ERR_INVALID_ARG;
    if (r->closing)
        return MCP_ERR_STATE;
    note_list(r, data, len);
    return r->t->ops->send(r->t, 0, data, len);
}

size_t mcp_http_relay_unsettled(const mcp_http_relay *r)
{
    return r && !r->closing ? r->t->ops->unwritten(r->t) : 0;
}

void mcp_http_relay_end_session(mcp_http_relay *r)
{
    if (r && !r->closing)
        r->t->ops->end_output(r->t);
}

const char *mcp_http_relay_unreachable(const mcp_http_relay *r)
{
    return r && !r->closing ? mcp__http_client_unreachable(r->t) : NULL;
}

void mcp_http_relay_close(mcp_http_relay *r)
{
    if (!r || r->closing)
        return;
    r->closing = true;
    r->t->ops->close(r->t, closed, r);
}
