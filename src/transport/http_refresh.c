/* SPDX-License-Identifier: MIT */
/*
 * 2026-07-28: a tools/call the server refused with HeaderMismatch (-32020)
 * because this client's idea of the tool's x-mcp-header parameters is stale
 * (the tool changed since tools/list): list the tools again, then send the
 * call once more with the headers its schema now asks for
 * (basic/transports/streamable-http.mdx, "the client SHOULD call tools/list
 * ..., then retry"). The listing is our own request, which the session
 * never sees; a second refusal is the call's answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/http_client_internal.h"

/* Pages of tools/list read looking for the tool, at most. */
#define REFRESH_MAX_PAGES 16

bool mcp__hc_refresh_wanted(http_client *t, const xfer *x)
{
    if (!t->modern || x->role != X_REQUEST || x->refreshed || x->status != 400 || !x->method ||
        strcmp(x->method, "tools/call") != 0 || t->closing || t->input_stopped)
        return false;
    mcp_json_doc *d = NULL;
    if (!x->in.len || mcp_json_parse(x->in.data, x->in.len, NULL, NULL, &d, NULL) != MCP_OK)
        return false;
    int64_t code = 0;
    mcp_json_get_int64(
        mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(d), "error"), "code"), &code);
    mcp_json_doc_free(d);
    return code == MCP_WIRE_HEADER_MISMATCH;
}

/* The tools/list request of r: the call's envelope (_meta without its
 * progress token), and the cursor of the next page. */
static int listing(const xfer *call, unsigned serial, const mcp_json *cursor, mcp_buf *out)
{
    mcp_json_doc *in = NULL, *d = mcp_json_doc_new(NULL);
    int rc = d ? mcp_json_parse(call->body, call->body_len, NULL, NULL, &in, NULL)
               : MCP_ERR_NOMEM;
    if (rc == MCP_OK) {
        const mcp_json *meta =
            mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(in), "params"), "_meta");
        mcp_json *req = mcp_json_new_object(d), *params = mcp_json_new_object(d);
        mcp_json *envelope = mcp_json_new_object(d);
        for (size_t i = 0; i < mcp_json_object_size(meta); i++) {
            const char *k;
            size_t kn;
            const mcp_json *v = mcp_json_object_at(meta, i, &k, &kn);
            if (!(kn == 13 && !memcmp(k, "progressToken", 13)))
                mcp_json_object_setn(d, envelope, k, kn, mcp_json_copy(d, v));
        }
        char id[48];
        snprintf(id, sizeof id, "libmcp-refresh-%u", serial);
        mcp_json_object_set(d, req, "jsonrpc", mcp_json_new_string(d, "2.0"));
        mcp_json_object_set(d, req, "id", mcp_json_new_string(d, id));
        mcp_json_object_set(d, req, "method", mcp_json_new_string(d, "tools/list"));
        if (cursor)
            mcp_json_object_set(d, params, "cursor", mcp_json_copy(d, cursor));
        mcp_json_object_set(d, params, "_meta", envelope);
        mcp_json_object_set(d, req, "params", params);
        rc = mcp_json_doc_error(d);
        if (rc == MCP_OK) {
            mcp_buf_init(out, 0, NULL);
            rc = mcp_json_write(req, out);
        }
    }
    mcp_json_doc_free(in);
    mcp_json_doc_free(d);
    return rc == MCP_ERR_LIMIT ? MCP_ERR_NOMEM : rc;
}

/* Send the call again, headers made anew from the tools known now. */
static void send_again(http_client *t, xfer *x)
{
    mcp__hc_detach(x);
    mcp__hc_say(t, MCP_LOG_DEBUG, "tools/call: sent again after tools/list");
    if (mcp__hc_post_headers(t, x) != MCP_OK || mcp__hc_launch(t, x, false) != MCP_OK) {
        mcp__hc_fail_request(t, x, true, "cannot send the call again: out of memory");
        mcp__hc_xfer_free(x);
    }
}

static bool launch_page(http_client *t, xfer *call, const mcp_json *cursor, unsigned page)
{
    mcp_buf body;
    xfer *r = NULL;
    if (listing(call, ++t->refreshes, cursor, &body) != MCP_OK)
        return false;
    r = mcp__hc_xfer_new(t, X_REFRESH);
    if (!r) {
        mcp_buf_free(&body);
        return false;
    }
    r->body = body.data; /* the transfer's now */
    r->body_len = body.len;
    r->call = call;
    r->pages = page;
    if (!(r->method = strdup("tools/list")) || mcp__hc_post_headers(t, r) != MCP_OK ||
        mcp__hc_launch(t, r, false) != MCP_OK) {
        mcp__hc_xfer_free(r);
        return false;
    }
    if (t->o.trace)
        t->o.trace(t->o.trace_ud, true, r->body, r->body_len);
    call->refresh = r;
    return true;
}

void mcp__hc_refresh_start(http_client *t, xfer *x)
{
    x->refreshed = true;
    mcp__hc_say(t, MCP_LOG_INFO, "tools/call: the server found its headers do not match "
                                 "(HeaderMismatch); listing the tools again, then once more");
    mcp__hc_detach(x); /* waits out of curl; a cancel frees it as ever */
    if (!launch_page(t, x, NULL, 1))
        send_again(t, x); /* the server will say it again, and that is the answer */
}

void mcp__hc_refresh_ended(http_client *t, xfer *r, CURLcode code)
{
    xfer *call = r->call;
    const mcp_json *cursor = NULL;
    mcp_json_doc *d = NULL;
    bool found = false;
    if (code == CURLE_OK && r->status == 200 && !r->sse && r->in.len &&
        mcp_json_parse(r->in.data, r->in.len, NULL, NULL, &d, NULL) == MCP_OK) {
        mcp_buf ignored;
        bool changed;
        if (mcp__tool_headers_learn(t->tools, r->in.data, r->in.len, &ignored, &changed, NULL,
                                    NULL) == MCP_OK &&
            changed)
            mcp_buf_free(&ignored);
        const mcp_json *result = mcp_json_object_get(mcp_json_doc_root(d), "result");
        const mcp_json *tools = mcp_json_object_get(result, "tools");
        const char *want = NULL;
        mcp_json_doc *cd = NULL;
        if (call && mcp_json_parse(call->body, call->body_len, NULL, NULL, &cd, NULL) == MCP_OK)
            want = mcp_json_string(
                mcp_json_object_get(mcp_json_object_get(mcp_json_doc_root(cd), "params"), "name"),
                NULL);
        for (size_t i = 0; want && i < mcp_json_array_size(tools) && !found; i++) {
            const char *n = mcp_json_string(
                mcp_json_object_get(mcp_json_array_at(tools, i), "name"), NULL);
            found = n && !strcmp(n, want);
        }
        mcp_json_doc_free(cd);
        cursor = mcp_json_object_get(result, "nextCursor");
        if (mcp_json_typeof(cursor) != MCP_JSON_STRING)
            cursor = NULL;
    }
    unsigned pages = r->pages;
    if (call)
        call->refresh = NULL;
    r->call = NULL;
    if (call && !(!found && cursor && pages < REFRESH_MAX_PAGES &&
                  launch_page(t, call, cursor, pages + 1)))
        send_again(t, call);
    mcp_json_doc_free(d);
    mcp__hc_xfer_free(r);
}
