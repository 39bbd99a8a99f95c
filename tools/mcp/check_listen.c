/* SPDX-License-Identifier: MIT */
/*
 * mcp check-cancel: a cancelled subscriptions/listen, as 2026-07-28 says
 * (basic/patterns/subscriptions, basic/patterns/cancellation). A listen
 * for toolsListChanged is opened, then cancelled as the client's teardown:
 * notifications/cancelled naming it on stdio, its stream closed over HTTP.
 *
 *   listen.acknowledged-first  the first message carrying the listen's
 *                              subscription id is
 *                              notifications/subscriptions/acknowledged
 *                              (MUST)
 *   listen.cancel-ends         after the cancel nothing more carries that
 *                              id (stdio; over HTTP the closed stream was
 *                              the only place it would show: SKIP)
 *   listen.server-cancel       a notifications/cancelled of the server's
 *                              names the listen only (MUST NOT for anything
 *                              else)
 *   listen.usable-after        a request after the cancel is answered
 *
 * A server that refuses the method (an error to the listen) offers no
 * listens: SKIP, saying so.
 */
#include <stdio.h>
#include <string.h>

#include "check_cancel.h"

#define RULE "2026-07-28 basic/patterns/subscriptions"
#define RULE_CANCEL "2026-07-28 basic/patterns/cancellation"
#define WAIT_MS 5000
#define QUIET_MS 1500

/* The subscription id a message carries in its _meta (a number here: the
 * listen's id is ours), or -1. */
static int64_t subscription_of(const mcp_json *root)
{
    const mcp_json *params = mcp_json_object_get(root, "params");
    if (!params)
        params = mcp_json_object_get(root, "result");
    const mcp_json *v = mcp_json_object_get(mcp_json_object_get(params, "_meta"),
                                            "io.modelcontextprotocol/subscriptionId");
    int64_t id;
    return mcp_json_typeof(v) == MCP_JSON_NUMBER && mcp_json_get_int64(v, &id) == MCP_OK ? id : -1;
}

static const char *method_of(const mcp_json *root)
{
    return mcp_json_string(mcp_json_object_get(root, "method"), NULL);
}

typedef struct listen_seen {
    int64_t id;
} listen_seen;

/* The first message about the listen: one carrying its subscription id,
 * or the response to it. */
static bool about_listen(const check_msg *m, void *ud)
{
    const listen_seen *l = ud;
    return m->root && (subscription_of(m->root) == l->id || check_response_to(m->root, l->id));
}

void check_listen(check_run *r)
{
    if (!r->modern)
        return;
    size_t from = check_peer_count(r->p);
    int64_t id = check_request(r, -1, "subscriptions/listen",
                               "{\"notifications\":{\"toolsListChanged\":true}}", NULL);
    int stream = r->stream;
    listen_seen l = {id};
    const check_msg *first = check_peer_wait(r->p, from, about_listen, &l, WAIT_MS, NULL);
    bool http = check_peer_http(r->p);
    int status = http ? check_http_status(check_peer_http_of(r->p), stream) : 0;
    /* Refused, with a JSON-RPC error or (over HTTP) an error status. */
    char refusal[40] = "";
    if (!first && status >= 300)
        snprintf(refusal, sizeof refusal, "HTTP %d", status);
    else if (first && check_response_to(first->root, id) &&
             mcp_json_object_get(first->root, "error"))
        snprintf(refusal, sizeof refusal, "an error");
    if (refusal[0]) {
        static const char *const ids[] = {"listen.acknowledged-first", "listen.cancel-ends",
                                           "listen.server-cancel", "listen.usable-after"};
        for (size_t i = 0; i < 4; i++)
            check_report(r, ids[i], "-", RULE, CHECK_SKIP,
                         "the server answered subscriptions/listen with %s: it offers no "
                         "listens", refusal);
        return;
    }
    const char *m = first ? method_of(first->root) : NULL;
    bool acked = m && !strcmp(m, "notifications/subscriptions/acknowledged");
    if (acked)
        check_report(r, "listen.acknowledged-first", "MUST", RULE, CHECK_PASS,
                     "the first message of the listen was its acknowledgment");
    else if (!first && check_peer_gone(r->p))
        check_report(r, "listen.acknowledged-first", "MUST", RULE, CHECK_FAIL,
                     "the server was gone before it acknowledged the listen");
    else if (!first)
        check_report(r, "listen.acknowledged-first", "MUST", RULE, CHECK_FAIL,
                     "nothing carrying the listen's subscription id came within %d s",
                     WAIT_MS / 1000);
    else if (m)
        check_report(r, "listen.acknowledged-first", "MUST", RULE, CHECK_FAIL,
                     "the first message of the listen was %.80s, not its acknowledgment", m);
    else
        check_report(r, "listen.acknowledged-first", "MUST", RULE, CHECK_FAIL,
                     "the listen was answered before any acknowledgment");

    /* The client's teardown. */
    uint64_t cancel_at = check_now_us();
    size_t after = check_peer_count(r->p);
    if (http) {
        check_http_drop(check_peer_http_of(r->p), stream);
    } else {
        char line[200];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                 "{\"requestId\":%lld,\"reason\":\"mcp check-cancel\"}}",
                 (long long)id);
        check_peer_send(r->p, line);
    }
    check_peer_drain(r->p, QUIET_MS);
    /* The server's cancels from the listen's start (before it, the rule
     * is cancel.server-sends-none's); the listen's messages after its
     * cancel, its response among them (a cancelled request SHOULD get
     * none). */
    size_t late = 0, foreign = 0;
    for (size_t i = from; i < check_peer_count(r->p); i++) {
        const check_msg *x = check_peer_msg(r->p, i);
        if (!x->root)
            continue;
        const char *xm = method_of(x->root);
        if (xm && !strcmp(xm, "notifications/cancelled")) {
            int64_t named = -2;
            const mcp_json *rid = mcp_json_object_get(mcp_json_object_get(x->root, "params"),
                                                      "requestId");
            if (mcp_json_typeof(rid) != MCP_JSON_NUMBER ||
                mcp_json_get_int64(rid, &named) != MCP_OK || named != id)
                foreign++;
            continue; /* naming the listen: a teardown, allowed */
        }
        if (i >= after && x->at_us >= cancel_at &&
            (subscription_of(x->root) == id || check_response_to(x->root, id)))
            late++;
    }
    if (!acked)
        check_report(r, "listen.cancel-ends", "SHOULD", RULE_CANCEL, CHECK_SKIP,
                     "no listen was acknowledged: nothing to end");
    else if (http)
        check_report(r, "listen.cancel-ends", "SHOULD", RULE, CHECK_SKIP,
                     "the listen's stream was closed: what the server then does with it is not "
                     "observable from outside");
    else
        check_report(r, "listen.cancel-ends", "SHOULD", RULE_CANCEL, late ? CHECK_WARN : CHECK_PASS,
                     late ? "%zu message(s) of the listen (or its answer) came after its cancel"
                          : "nothing of the listen came in the %zu ms after its cancel",
                     late ? late : (size_t)QUIET_MS);
    if (foreign)
        check_report(r, "listen.server-cancel", "MUST NOT", RULE_CANCEL, CHECK_FAIL,
                     "the server sent %zu notifications/cancelled naming something other than "
                     "the listen", foreign);
    else
        check_report(r, "listen.server-cancel", "MUST NOT", RULE_CANCEL, CHECK_PASS,
                     "no notifications/cancelled of the server's named anything but the listen");
    size_t probe_from = check_peer_count(r->p);
    int64_t probe = check_request(r, -1, "tools/list", "{}", NULL);
    check_want w = {.id = probe};
    bool ok = check_peer_wait(r->p, probe_from, check_wanted, &w, WAIT_MS, NULL) != NULL;
    check_report(r, "listen.usable-after", "MUST", "JSON-RPC 2.0 (every request answered)",
                 ok ? CHECK_PASS : CHECK_FAIL,
                 ok ? "a tools/list after the listen's cancel was answered"
                 : check_peer_gone(r->p) ? "the server was gone after the listen's cancel"
                                         : "a tools/list after the listen's cancel was not "
                                           "answered within 5 s");
}
