/* SPDX-License-Identifier: MIT */
/*
 * The 2025 side of the HTTP client transport: the GET stream of what the
 * server sends on its own, resuming a broken stream with Last-Event-ID after
 * the server's retry, and a session the server ended (404): what was in
 * flight fails, and the client hears of it (see http_client.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h"
#include "transport/http_client_internal.h"

/* A GET on the endpoint: the 2025 stream, or resuming a broken one. */
int mcp__hc_launch_get(http_client *t, xfer *x)
{
    curl_slist_free_all(x->hdrs);
    x->hdrs = NULL;
    int rc = mcp__hc_add_header(x, "Accept: text/event-stream");
    if (rc == MCP_OK)
        rc = mcp__hc_common_headers(t, x);
    if (rc == MCP_OK)
        rc = mcp__hc_legacy_headers(t, x);
    if (rc == MCP_OK && x->has_last_id)
        rc = mcp__hc_add_headerf(x, "Last-Event-ID: %s", x->last_id);
    return rc == MCP_OK ? mcp__hc_launch(t, x, true) : rc;
}

/* Later: resumes and the GET stream's reopening ---------------------------------------------- */

static void resume_due(uv_timer_t *h);

static void arm_resumes(http_client *t)
{
    uint64_t next = UINT64_MAX;
    for (xfer *x = t->xfers; x; x = x->next)
        if (x->waiting && x->due < next)
            next = x->due;
    if (next == UINT64_MAX) {
        uv_timer_stop(&t->resume_timer);
        return;
    }
    uint64_t now = mcp__now_ms();
    uv_timer_start(&t->resume_timer, resume_due, next > now ? next - now : 0, 0);
}

static void wait_then_get(http_client *t, xfer *x, uint64_t delay)
{
    mcp__hc_detach(x);
    x->waiting = true;
    x->due = mcp__now_ms() + delay;
    arm_resumes(t);
}

static void resume_due(uv_timer_t *h)
{
    http_client *t = h->data;
    uint64_t now = mcp__now_ms();
    for (xfer *x = t->xfers, *next; x; x = next) {
        next = x->next;
        if (!x->waiting || x->due > now || t->closing)
            continue;
        x->waiting = false;
        if (x->role == X_LISTEN) {
            mcp__hc_start_listen(t, x);
        } else if (mcp__hc_launch_get(t, x) != MCP_OK) {
            mcp__hc_fail_request(t, x, true, "cannot resume the response stream: out of memory");
            mcp__hc_xfer_free(x);
        }
    }
    arm_resumes(t);
    mcp__hc_after(t);
}

bool mcp__hc_can_resume(http_client *t, xfer *x)
{
    return !t->modern && x->has_last_id && !t->closing && !t->input_stopped &&
           x->attempts < RESUME_MAX_ATTEMPTS;
}

void mcp__hc_resume(http_client *t, xfer *x)
{
    x->attempts++;
    uint64_t delay = x->has_retry ? x->retry_ms : RESUME_DEFAULT_MS;
    mcp__hc_say(t, MCP_LOG_DEBUG, "%s: the response stream broke; resuming after event %s in %llu ms",
        x->method ? x->method : "request", x->last_id, (unsigned long long)delay);
    wait_then_get(t, x, delay);
}

/* The GET stream (2025): opened once the session is initialized, reopened
 * when it ends, with a growing wait while it brings nothing. */
void mcp__hc_start_listen(http_client *t, xfer *reuse)
{
    if (t->modern || t->listen_off || t->closing || t->input_stopped || t->expired) {
        if (reuse)
            mcp__hc_xfer_free(reuse);
        return;
    }
    xfer *x = reuse;
    if (!x) {
        for (xfer *y = t->xfers; y; y = y->next)
            if (y->role == X_LISTEN)
                return; /* one is enough */
        x = mcp__hc_xfer_new(t, X_LISTEN);
    }
    if (!x || mcp__hc_launch_get(t, x) != MCP_OK) {
        mcp__hc_say(t, MCP_LOG_WARNING, "cannot open the GET stream: out of memory");
        if (x)
            mcp__hc_xfer_free(x);
    }
}

void mcp__hc_listen_ended(http_client *t, xfer *x, CURLcode code)
{
    t->listen_answered = true;
    if (t->ending || t->input_stopped) {
        mcp__hc_xfer_free(x); /* the session is being ended: its stream with it */
        return;
    }
    if (x->status == 404 && mcp__hc_current_session(t, x)) {
        mcp__hc_expire(t, x);
        return;
    }
    if (x->status == 404 && x->with_session) {
        mcp__hc_xfer_free(x); /* the stream of a session already replaced */
        return;
    }
    if (x->status == 405) {
        mcp__hc_say(t, MCP_LOG_DEBUG, "the server offers no GET stream (HTTP 405)");
        t->listen_off = true;
        mcp__hc_xfer_free(x);
        return;
    }
    bool streamed = x->sse && x->status >= 200 && x->status < 300;
    if (!streamed && code != CURLE_OK)
        mcp__hc_say(t, MCP_LOG_WARNING, "the GET stream failed: %s", x->errbuf);
    else if (!streamed)
        mcp__hc_say(t, MCP_LOG_WARNING, "the GET stream failed: HTTP %ld %s", x->status, x->reason);
    t->listen_attempts = x->got_event ? 1 : t->listen_attempts + 1;
    if (t->listen_attempts > LISTEN_MAX_ATTEMPTS) {
        mcp__hc_say(t, MCP_LOG_WARNING, "the GET stream failed %d times in a row: given up",
            LISTEN_MAX_ATTEMPTS);
        t->listen_given_up = true;
        mcp__hc_xfer_free(x);
        return;
    }
    uint64_t delay = x->has_retry ? x->retry_ms : RESUME_DEFAULT_MS;
    for (int i = 1; i < t->listen_attempts && delay < LISTEN_MAX_DELAY_MS; i++)
        delay *= 2;
    if (delay > LISTEN_MAX_DELAY_MS)
        delay = LISTEN_MAX_DELAY_MS;
    wait_then_get(t, x, delay);
}

/* Session expiry and the new session (2025) ----------------------------------------------------- */

void mcp__hc_expire(http_client *t, xfer *cause)
{
    /* The engine starts a new session by itself (session_expired); a
     * relay's client has to send initialize. */
    const char *next_one = t->o.session_expired ? "the next request starts a new session"
                                                : "a new session starts with initialize";
    mcp__hc_say(t, MCP_LOG_WARNING, "the server ended the session (HTTP 404 to a request that carried "
                         "its id); %s", next_one);
    free(t->session_id);
    t->session_id = NULL;
    t->expired = t->lversion != NULL;
    for (xfer *x = t->xfers, *next; x; x = next) {
        next = x->next;
        if (x->role == X_REQUEST) {
            if (x == cause)
                mcp__hc_fail_request(t, x, false, "the server ended the MCP session (HTTP 404 %s): this "
                             "request was lost; %s", x->reason, next_one);
            else
                mcp__hc_fail_request(t, x, false, "the server ended the MCP session: this request "
                             "was lost; %s", next_one);
            mcp__hc_xfer_free(x);
        } else if (x->role == X_LISTEN || x == cause) {
            mcp__hc_xfer_free(x);
        }
    }
    /* Whose session it was decides what comes next. */
    if (t->expired && t->o.session_expired)
        t->o.session_expired(t->o.session_expired_ud);
}


