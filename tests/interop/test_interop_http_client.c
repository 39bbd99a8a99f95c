/* SPDX-License-Identifier: MIT */
/*
 * libmcp's HTTP client against the official TypeScript SDK servers over
 * Streamable HTTP: v1 (ts_http_server.mjs, 2025-11-25, sessions, an event
 * store) answering with JSON and with SSE, and v2 (ts2_http_server.mjs,
 * 2026-07-28, stateless). MCP_INTEROP_NODE names node; MCP_INTEROP_DIR the
 * directory of the scripts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_peer.h"
#include "mcp/mcp.h"

static void start(http_peer *p, const char *script, const char *mode)
{
    const char *node = getenv("MCP_INTEROP_NODE"), *dir = getenv("MCP_INTEROP_DIR");
    assert_non_null(node);
    assert_non_null(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, script);
    const char *const argv[] = {node, path, mode, NULL};
    assert_true(http_peer_start(p, argv));
}

static mcp_client *connected(http_peer *p, const char *version)
{
    mcp_client_options o = {.size = sizeof o, .close_grace_ms = 2000};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    if (mcp_client_connect_http(c, p->url, NULL) != MCP_OK)
        fail_msg("connect: %s", mcp_client_error(c));
    assert_string_equal(mcp_client_protocol_version(c), version);
    return c;
}

static mcp_json_doc *json(const char *text)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static const char *text_of(const mcp_client_call_result *r)
{
    const mcp_json *item = mcp_json_array_at(mcp_json_object_get(r->result, "content"), 0);
    return mcp_json_string(mcp_json_object_get(item, "text"), NULL);
}

static int call(mcp_client *c, const char *tool, const char *args, mcp_client_call_result *r)
{
    mcp_json_doc *a = args ? json(args) : NULL;
    int rc = mcp_client_call_tool(c, tool, a ? mcp_json_doc_root(a) : NULL, NULL, r);
    mcp_json_doc_free(a);
    return rc;
}

static int progress_count;
static void on_progress(void *ud, mcp_handle h, double p, double total, const char *m)
{
    progress_count++;
}

static void results_and_progress(mcp_client *c)
{
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "echo", "{\"text\":\"h\\u00e9\"}", &r), MCP_OK);
    assert_string_equal(text_of(&r), "h\xc3\xa9");
    mcp_client_call_result_release(&r);
    mcp_json_doc *a = json("{\"n\":3,\"delay_ms\":20}");
    progress_count = 0;
    mcp_client_call_options o = {.size = sizeof o, .on_progress = on_progress};
    assert_int_equal(mcp_client_call_tool(c, "count", mcp_json_doc_root(a), &o, &r), MCP_OK);
    assert_string_equal(text_of(&r), "counted to 3");
    mcp_client_call_result_release(&r);
    mcp_json_doc_free(a);
}

static int ended;
static void done(void *ud, const mcp_client_call_result *r)
{
    ended = r->outcome;
}

/* A slow call cancelled while the handler runs: the handler sees it. */
static void cancel_reaches_the_handler(http_peer *p, mcp_client *c, const char *started,
                                       const char *cancelled)
{
    mcp_json_doc *a = json("{\"seconds\":30}");
    mcp_handle h;
    ended = 1;
    assert_int_equal(mcp_client_call_tool_async(c, "sleep", mcp_json_doc_root(a), NULL, done, NULL, &h),
                     MCP_OK);
    mcp_json_doc_free(a);
    assert_true(http_peer_says(p, c, started, 5000));
    assert_int_equal(mcp_client_cancel(c, h, "cancelled by the C client"), MCP_OK);
    assert_int_equal(ended, MCP_ERR_ABORTED);
    assert_true(http_peer_says(p, c, cancelled, 5000));
}

static void v1(const char *mode)
{
    http_peer p;
    start(&p, "ts_http_server.mjs", mode);
    mcp_client *c = connected(&p, "2025-11-25");
    results_and_progress(c);
    assert_true(http_peer_says(&p, c, "POST tools/call version=2025-11-25 session=yes", 2000));
    cancel_reaches_the_handler(&p, c, "sleep started",
                               "sleep cancelled: cancelled by the C client");
    assert_true(http_peer_says(&p, c, "cancel received: requestId=", 2000));
    mcp_client_call_result r = {.size = sizeof r};
    if (!strcmp(mode, "sse")) {
        /* Their tool closes its own stream: resumed with Last-Event-ID. */
        assert_int_equal(call(c, "drop", NULL, &r), MCP_OK);
        assert_string_equal(text_of(&r), "dropped and resumed");
        mcp_client_call_result_release(&r);
        assert_int_equal(http_peer_count(&p, "GET last-event-id=-"), 1); /* the GET stream */
        assert_true(http_peer_says(&p, c, "GET last-event-id=", 2000));
        assert_true(http_peer_count(&p, "GET last-event-id=") >= 2);
    }
    /* Their session ends: the next call is told, the one after works. */
    assert_int_equal(call(c, "end_session", NULL, &r), MCP_OK);
    mcp_client_call_result_release(&r);
    assert_true(http_peer_says(&p, c, "session ended", 2000));
    assert_int_equal(call(c, "echo", "{\"text\":\"x\"}", &r), MCP_ERR_HTTP);
    assert_int_equal(r.http_status, 404);
    assert_non_null(strstr(r.error_message, "ended the MCP session"));
    mcp_client_call_result_release(&r);
    assert_int_equal(call(c, "echo", "{\"text\":\"again\"}", &r), MCP_OK);
    assert_string_equal(text_of(&r), "again");
    mcp_client_call_result_release(&r);
    assert_int_equal(http_peer_count(&p, "POST initialize"), 2);
    mcp_client_free(c);
    assert_true(http_peer_says(&p, NULL, "DELETE session", 3000));
    http_peer_stop(&p);
}

static void v1_json_responses(void **state)
{
    v1("json");
}

static void v1_sse_responses(void **state)
{
    v1("sse");
}

typedef struct listen_log {
    int acks, changes, endings, outcome;
} listen_log;

static void on_listen(void *ud, mcp_handle h, const mcp_listen_event *ev)
{
    listen_log *l = ud;
    if (ev->kind == MCP_LISTEN_ACKNOWLEDGED)
        l->acks++;
    else if (ev->kind == MCP_LISTEN_NOTIFICATION &&
             mcp_message_method_is(ev->message, "notifications/tools/list_changed"))
        l->changes++;
    else if (ev->kind == MCP_LISTEN_ENDED) {
        l->endings++;
        l->outcome = ev->outcome;
    }
}

static bool run_until(mcp_client *c, const int *count, int want)
{
    for (int i = 0; i < 500 && *count < want; i++)
        mcp_client_run_once(c, true);
    return *count >= want;
}

static void v2_calls_cancels_and_listens_under_2026(void **state)
{
    http_peer p;
    start(&p, "ts2_http_server.mjs", "");
    mcp_client *c = connected(&p, "2026-07-28");
    results_and_progress(c);
    assert_true(http_peer_says(&p, c, "POST tools/call name=echo version=2026-07-28", 2000));
    /* The cancel closes the stream: no notification is posted. */
    cancel_reaches_the_handler(&p, c, "sleep started", "sleep cancelled");
    assert_int_equal(http_peer_count(&p, "POST notifications/cancelled"), 0);
    assert_true(http_peer_says(&p, c, "client went away", 2000));

    /* x-mcp-header: the list loses the broken tool, the call carries the header. */
    mcp_json_doc *tools;
    assert_int_equal(mcp_client_list_tools(c, NULL, &tools, NULL), MCP_OK);
    bool region = false, broken = false;
    for (size_t i = 0; i < mcp_json_array_size(mcp_json_doc_root(tools)); i++) {
        const char *name = mcp_json_string(
            mcp_json_object_get(mcp_json_array_at(mcp_json_doc_root(tools), i), "name"), NULL);
        region |= !strcmp(name, "region");
        broken |= !strcmp(name, "broken");
    }
    mcp_json_doc_free(tools);
    assert_true(region);
    assert_false(broken);
    mcp_client_call_result r = {.size = sizeof r};
    assert_int_equal(call(c, "region", "{\"region\":\"us-west1\",\"query\":\"q\"}", &r), MCP_OK);
    assert_string_equal(text_of(&r), "q in us-west1");
    mcp_client_call_result_release(&r);
    assert_true(http_peer_says(&p, c, "name=region version=2026-07-28 region=us-west1", 2000));

    /* A subscription hears a change, and our cancel closes it. */
    listen_log l = {0};
    mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS};
    mcp_handle h;
    assert_int_equal(mcp_client_listen(c, &f, on_listen, &l, &h), MCP_OK);
    assert_true(run_until(c, &l.acks, 1));
    assert_int_equal(call(c, "announce", NULL, &r), MCP_OK);
    mcp_client_call_result_release(&r);
    assert_true(run_until(c, &l.changes, 1));
    int gone = http_peer_count(&p, "client went away");
    assert_int_equal(mcp_client_cancel(c, h, "done listening"), MCP_OK);
    assert_int_equal(l.outcome, MCP_ERR_ABORTED);
    for (int i = 0; i < 200 && http_peer_count(&p, "client went away") == gone; i++)
        http_peer_idle(c, 10);
    if (http_peer_count(&p, "client went away") != gone + 1)
        http_peer_says(&p, NULL, "\x01 the listen's stream closed", 0); /* prints the log */
    assert_int_equal(http_peer_count(&p, "client went away"), gone + 1);

    /* Our disconnect cancels their handler. */
    mcp_json_doc *a = json("{\"seconds\":30}");
    int cancelled = http_peer_count(&p, "sleep cancelled");
    assert_int_equal(mcp_client_call_tool_async(c, "sleep", mcp_json_doc_root(a), NULL, done, NULL, &h),
                     MCP_OK);
    mcp_json_doc_free(a);
    for (int i = 0; i < 250 && http_peer_count(&p, "sleep started") < 2; i++)
        http_peer_idle(c, 10);
    assert_int_equal(http_peer_count(&p, "sleep started"), 2);
    mcp_client_free(c);
    for (int i = 0; i < 250 && http_peer_count(&p, "sleep cancelled") == cancelled; i++)
        http_peer_idle(NULL, 10);
    assert_int_equal(http_peer_count(&p, "sleep cancelled"), cancelled + 1);
    http_peer_stop(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v1_json_responses),
        cmocka_unit_test(v1_sse_responses),
        cmocka_unit_test(v2_calls_cancels_and_listens_under_2026),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
