/* SPDX-License-Identifier: MIT */
/*
 * 2026-07-28 over HTTP: a tools/call the server refused with
 * HeaderMismatch (-32020) because this client's idea of the tool's
 * x-mcp-header parameters is stale (the tool changed since tools/list).
 * The client lists the tools again, then sends the call once more
 * (basic/transports/streamable-http.mdx: "the client SHOULD call
 * tools/list ..., then retry"); a second refusal is the call's answer.
 * The listing is an ordinary request of the session: what it lists is
 * learned on its way (the transport's header mirror, the client's output
 * schemas), and the call's handle stays the caller's throughout: a cancel
 * or a timeout of the listing ends the call.
 */
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"

/* Pages of tools/list read looking for the tool, at most. */
#define REFRESH_MAX_PAGES 16

static void unlist(mcp_client *c, mcp__call *cc)
{
    for (mcp__call **p = &c->refreshing; *p; p = &(*p)->next_refresh)
        if (*p == cc) {
            *p = cc->next_refresh;
            break;
        }
}

/* The call's total limit spans its first send, the listing and the retry
 * (one budget, as the engine keeps for rounds): what is left of it for the
 * next request, MCP_NO_TIMEOUT when it has none, 0 when it is spent. */
static uint64_t time_left(const mcp__call *cc)
{
    const mcp_client *c = cc->client;
    uint64_t max = cc->ro.max_time_ms      ? cc->ro.max_time_ms
                   : c->opts.max_time_ms ? c->opts.max_time_ms
                                         : MCP_DEFAULT_MAX_TIME_MS;
    if (max == MCP_NO_TIMEOUT)
        return MCP_NO_TIMEOUT;
    uint64_t spent = mcp__now_ms() - cc->started;
    return spent < max ? max - spent : 0;
}

/* Send the call again (it ends there when it cannot be sent). */
static void send_again(mcp__call *cc)
{
    mcp_client *c = cc->client;
    uint64_t left = time_left(cc);
    if (!left) {
        mcp__call_ended(cc, 0, MCP_ERR_MAX_TIME, NULL);
        return;
    }
    mcp_request_options ro = cc->ro;
    ro.max_time_ms = left;
    mcp__client_say(c, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL,
                    "tools/call: sent again after tools/list");
    mcp_handle h = 0;
    int rc = mcp__client_not_ready(c);
    cc->busy++; /* an answer inside the send may end it */
    if (rc == MCP_OK)
        rc = mcp__client_note_send_failure(
            c, mcp_session_request(c->driver.session, mcp__now_ms(), "tools/call",
                                   mcp_json_doc_root(cc->params), &ro, mcp__call_ended,
                                   mcp__call_progress, cc, &h));
    if (rc == MCP_OK && !cc->finished)
        cc->request = h;
    if (mcp__call_release(cc))
        return;
    if (rc != MCP_OK) /* never sent: its callback will not come */
        mcp__call_ended(cc, 0, rc == MCP_ERR_STATE ? MCP_ERR_CLOSED : rc, NULL);
    else
        mcp__driver_rearm(&c->driver);
}

static void page_done(void *ud, mcp_handle h, int outcome, const mcp_message *m);

/* The next page of tools/list (cursor NULL: the first). */
static bool list_page(mcp__call *cc, const mcp_json *cursor)
{
    mcp_client *c = cc->client;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = d ? mcp_json_new_object(d) : NULL;
    if (params && cursor)
        mcp_json_object_set(d, params, "cursor", mcp_json_copy(d, cursor));
    int rc = params ? mcp_json_doc_error(d) : MCP_ERR_NOMEM;
    mcp_request_options ro = {.size = sizeof ro,
                              .timeout_ms = cc->ro.timeout_ms,
                              .max_time_ms = time_left(cc),
                              .progress = MCP_PROGRESS_NONE};
    if (!ro.max_time_ms) {
        mcp_json_doc_free(d);
        return false; /* the caller's send_again ends it */
    }
    mcp_handle page = 0;
    cc->pages++;
    cc->busy++; /* an answer inside the send may end the call */
    if (rc == MCP_OK)
        rc = mcp__client_note_send_failure(
            c, mcp_session_request(c->driver.session, mcp__now_ms(), "tools/list", params, &ro,
                                   page_done, NULL, cc, &page));
    mcp_json_doc_free(d);
    if (rc == MCP_OK && !cc->finished)
        cc->request = page;
    if (!mcp__call_release(cc) && rc == MCP_OK)
        mcp__driver_rearm(&c->driver);
    return rc == MCP_OK;
}

static void page_done(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    mcp__call *cc = ud;
    mcp_client *c = cc->client;
    if (outcome == MCP_ERR_ABORTED || outcome == MCP_ERR_TIMED_OUT ||
        outcome == MCP_ERR_MAX_TIME || outcome == MCP_ERR_CLOSED) {
        /* The call's own ending: cancelled, out of time, or no connection. */
        mcp__call_ended(cc, 0, outcome, NULL);
        return;
    }
    bool found = false;
    const mcp_json *cursor = NULL;
    if (outcome == MCP_OK) {
        mcp_message *kept = NULL;
        mcp__client_learn_tools(c, m, &kept);
        mcp_message_free(kept);
        const mcp_json *tools = mcp_json_object_get(m->result, "tools");
        for (size_t i = 0; cc->tool && i < mcp_json_array_size(tools) && !found; i++) {
            const char *n =
                mcp_json_string(mcp_json_object_get(mcp_json_array_at(tools, i), "name"), NULL);
            found = n && !strcmp(n, cc->tool);
        }
        cursor = mcp_json_object_get(m->result, "nextCursor");
        if (mcp_json_typeof(cursor) != MCP_JSON_STRING)
            cursor = NULL;
    }
    /* Not listed yet: the next page; otherwise (found, the end of the
     * list, or a listing that failed) the call once more: the server will
     * say it again, and that is the answer. */
    if (!found && cursor && cc->pages < REFRESH_MAX_PAGES && list_page(cc, cursor))
        return;
    send_again(cc);
}

bool mcp__call_refresh(mcp__call *cc)
{
    mcp_client *c = cc->client;
    if (!cc->params || cc->refreshed || mcp__client_not_ready(c) != MCP_OK)
        return false;
    cc->refreshed = true;
    mcp__client_say(c, MCP_LOG_INFO, MCP_LOG_EVENT_GENERAL,
                    "tools/call: the server found its headers do not match (HeaderMismatch); "
                    "listing the tools again, then once more");
    cc->next_refresh = c->refreshing;
    c->refreshing = cc;
    if (!list_page(cc, NULL))
        send_again(cc);
    return true;
}

bool mcp__call_refresh_cancel(mcp_client *c, mcp_handle h, const char *reason)
{
    for (mcp__call *cc = c->refreshing; cc; cc = cc->next_refresh)
        if (cc->handle == h) {
            if (c->driver_open)
                mcp_session_cancel(c->driver.session, mcp__now_ms(), cc->request, reason);
            return true;
        }
    return false;
}

void mcp__call_refresh_forget(mcp__call *cc)
{
    if (cc->refreshed)
        unlist(cc->client, cc);
}
