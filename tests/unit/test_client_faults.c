/* SPDX-License-Identifier: MIT */
/*
 * The client when its writes fail (design.md, "Re-entrancy"): a conversation
 * with the demo server (`mcp serve`) in both eras, run once for each of its
 * sends, that send failing (a fault-injecting transport under the client).
 * The conversation includes a question (the demo's confirm tool asks for
 * an elicitation: the server's request under 2025, a round under
 * 2026-07-28, whose retry is one of the sends that fail in turn).
 * Whatever fails, every call that was accepted ends exactly once, every call
 * that was refused never does, later calls are refused, the error says
 * why, nothing leaks, and a reconnect brings the client back. Then a server
 * that stops reading: the output cap drops the connection, not the process.
 * MCP_BINARY and FAKE_SERVER are set by the build.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/internal.h"
#include "fault_transport.h"
#include "mcp/mcp.h"

static const char *const serve_argv[] = {MCP_BINARY, "serve", NULL};

/* The first transport fails its fail_at-th send; later ones (reconnects)
 * never fail. */
typedef struct scenario {
    int fail_at;
    int wraps;
    fault_record first;
} scenario;

static mcp__transport *wrap(void *ud, mcp__transport *inner)
{
    scenario *sc = ud;
    bool first = sc->wraps++ == 0;
    return fault_transport_new(inner, first ? sc->fail_at : 0, first ? &sc->first : NULL);
}

/* How a call or a subscription ended: how often, and with what. */
#define NOT_TRIED 1 /* not an MCP code: never started */
typedef struct ending {
    int rc;     /* what starting it returned, or NOT_TRIED */
    int count;  /* endings seen */
    int outcome;
} ending;

static void call_done(void *ud, const mcp_client_call_result *r)
{
    ending *e = ud;
    e->count++;
    e->outcome = r->outcome;
}

static void listen_event(void *ud, mcp_handle h, const mcp_listen_event *ev)
{
    ending *e = ud;
    if (ev->kind == MCP_LISTEN_ENDED) {
        e->count++;
        e->outcome = ev->outcome;
    }
}

static mcp_json_doc *args(const char *json)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(json, strlen(json), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static int call_sync(mcp_client *c, const char *tool, const char *json)
{
    mcp_json_doc *a = args(json);
    mcp_client_call_result r = {.size = sizeof r};
    int rc = mcp_client_call_tool(c, tool, mcp_json_doc_root(a), NULL, &r);
    mcp_json_doc_free(a);
    if (rc == MCP_OK)
        assert_false(r.is_error);
    mcp_client_call_result_release(&r);
    return rc;
}

static void call_async(mcp_client *c, const char *tool, const char *json, ending *e,
                       mcp_handle *h)
{
    mcp_json_doc *a = args(json);
    e->rc = mcp_client_call_tool_async(c, tool, mcp_json_doc_root(a), NULL, call_done, e, h);
    mcp_json_doc_free(a);
}

/* An API result after the failure (or not): before it, everything works;
 * after it, the client refuses. */
static void check_rc(const scenario *sc, int rc, const char *what)
{
    if (!sc->first.fired && rc != MCP_OK)
        fail_msg("%s gave %d with no failure yet (fail_at %d)", what, rc, sc->fail_at);
    if (sc->first.fired && rc == MCP_OK)
        fail_msg("%s succeeded after send %d failed", what, sc->fail_at);
}

/* Started calls end once, refused ones never. */
static void check_ending(const ending *e, const char *what, int fail_at)
{
    if (e->rc == MCP_OK && e->count != 1)
        fail_msg("%s: accepted, ended %d times (send %d failing)", what, e->count, fail_at);
    if (e->rc != MCP_OK && e->count != 0)
        fail_msg("%s: refused (%d), ended %d times (send %d failing)", what, e->rc, e->count,
                 fail_at);
}

/* The user says yes, at once. */
static void confirm_yes(void *ud, mcp_question *q)
{
    static const char yes[] = "{\"action\":\"accept\",\"content\":{\"ok\":true}}";
    mcp_json_doc *d = args(yes);
    mcp_question_answer(q, mcp_json_doc_root(d), NULL, 0); /* may be withdrawn: dropped */
    mcp_json_doc_free(d);
}

/* One conversation; true when the failure happened during it. */
static bool converse(mcp_connect_mode mode, int fail_at)
{
    scenario sc = {.fail_at = fail_at};
    mcp_client_options o = {.size = sizeof o,
                            .close_grace_ms = 2000,
                            .connect_mode = mode,
                            .capture_stderr = true,
                            .on_elicitation = confirm_yes};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    c->wrap_transport = wrap;
    c->wrap_ud = &sc;
    bool modern = mode != MCP_CONNECT_LEGACY;

    ending a = {.rc = NOT_TRIED}, b = {.rc = NOT_TRIED}, sub = {.rc = NOT_TRIED};
    mcp_handle ha = 0, hb = 0, hs = 0;
    int rc = mcp_client_connect_stdio(c, serve_argv);
    check_rc(&sc, rc, "connect");
    bool connected = rc == MCP_OK;
    if (connected) {
        mcp_json_doc *tools = NULL;
        rc = mcp_client_list_tools(c, NULL, &tools, NULL);
        check_rc(&sc, rc, "tools/list");
        if (rc == MCP_OK)
            assert_true(mcp_json_array_size(mcp_json_doc_root(tools)) >= 5);
        mcp_json_doc_free(tools);

        call_async(c, "sleep", "{\"seconds\":30}", &a, &ha);
        check_rc(&sc, a.rc, "async call a");
        call_async(c, "sleep", "{\"seconds\":30}", &b, &hb);
        check_rc(&sc, b.rc, "async call b");
        if (modern) {
            mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS};
            sub.rc = mcp_client_listen(c, &f, listen_event, &sub, &hs);
            check_rc(&sc, sub.rc, "listen");
        } else {
            sub.rc = MCP_ERR_STATE; /* no subscriptions in 2025 */
        }
        check_rc(&sc, call_sync(c, "echo", "{\"text\":\"hi\"}"), "echo");
        check_rc(&sc, call_sync(c, "confirm", "{\"question\":\"go?\"}"), "confirm");
        if (a.rc == MCP_OK && !sc.first.fired) {
            /* The cancel's own send may be the failing one: the call then
             * ends with the connection, still once. */
            rc = mcp_client_cancel(c, ha, "test");
            assert_true(rc == MCP_OK || sc.first.fired);
            assert_int_equal(a.count, 1);
            if (!sc.first.fired)
                assert_int_equal(a.outcome, MCP_ERR_ABORTED);
        }
        check_rc(&sc, call_sync(c, "add_tool", "{\"name\":\"more\"}"), "add_tool");
        if (sub.rc == MCP_OK && !sc.first.fired)
            mcp_client_cancel(c, hs, NULL);
        if (b.rc == MCP_OK && !sc.first.fired)
            mcp_client_cancel(c, hb, NULL);
        rc = mcp_client_run(c);
        check_rc(&sc, rc, "run");
        assert_int_equal(mcp_client_pending(c), 0);
    }
    check_ending(&a, "call a", fail_at);
    check_ending(&b, "call b", fail_at);
    check_ending(&sub, "subscription", fail_at);
    if (sc.first.fired) {
        /* The error says what happened, and the client comes back: by a
         * reconnect, or a new connect when the first never completed. */
        const char *why = mcp_client_error(c);
        /* The injected failure closes the server's input, so the server
         * may have exited by the time the client looks: then its exit is
         * what the client reports (as for a real failed write). */
        if (!strstr(why, "cannot write to the server") &&
            !strstr(why, "the server exited with status 0"))
            fail_msg("send %d failed; the error says: %s", fail_at, why);
        assert_int_equal(connected ? mcp_client_reconnect(c)
                                   : mcp_client_connect_stdio(c, serve_argv),
                         MCP_OK);
        assert_int_equal(call_sync(c, "echo", "{\"text\":\"again\"}"), MCP_OK);
    }
    mcp_client_free(c);
    /* Free ends nothing twice. */
    check_ending(&a, "call a after free", fail_at);
    check_ending(&b, "call b after free", fail_at);
    check_ending(&sub, "subscription after free", fail_at);
    return sc.first.fired;
}

static void every_failing_send(mcp_connect_mode mode, int at_least)
{
    int n = 1;
    while (converse(mode, n))
        n++;
    /* The last run made fewer than n sends: all of them were tried. */
    if (n - 1 < at_least)
        fail_msg("only %d sends in the conversation", n - 1);
    print_message("%d conversations, each with one of its sends failing\n", n - 1);
}

static void each_send_fails_in_turn_2026(void **state)
{
    every_failing_send(MCP_CONNECT_AUTO, 8);
}

static void each_send_fails_in_turn_2025(void **state)
{
    every_failing_send(MCP_CONNECT_LEGACY, 6);
}

/* A server that stops reading: writes queue up to max_output, then the
 * connection is dropped with a clear error; the calls end once each. */
static void a_server_that_stops_reading_hits_the_output_cap(void **state)
{
    static const char *const deaf[] = {FAKE_SERVER, "deaf", NULL};
    mcp_client_options o = {.size = sizeof o,
                            .close_grace_ms = 200,
                            .capture_stderr = true,
                            .max_output = 256 << 10,
                            .connect_mode = MCP_CONNECT_LEGACY};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    assert_int_equal(mcp_client_connect_stdio(c, deaf), MCP_OK);

    size_t n = 60 << 10;
    char *json = malloc(n + 32);
    int len = snprintf(json, 32, "{\"text\":\"");
    memset(json + len, 'x', n);
    strcpy(json + len + n, "\"}");
    enum { MAX = 64 };
    ending e[MAX] = {{0}};
    int i = 0;
    for (; i < MAX; i++) {
        call_async(c, "echo", json, &e[i], NULL);
        if (e[i].rc != MCP_OK)
            break;
        /* Let the loop write what the pipe takes. */
        mcp_client_run_once(c, false);
    }
    free(json);
    /* 256 KiB of queue and a 64 KiB pipe: refused well before MAX. */
    assert_true(i > 1 && i < MAX);
    assert_true(e[i].rc == MCP_ERR_CLOSED || e[i].rc == MCP_ERR_STATE);
    if (!strstr(mcp_client_error(c), "not reading"))
        fail_msg("the error says: %s", mcp_client_error(c));
    for (int k = 0; k <= i; k++)
        check_ending(&e[k], "echo", 0);
    for (int k = 0; k < i; k++)
        assert_int_equal(e[k].outcome, MCP_ERR_CLOSED);
    mcp_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_send_fails_in_turn_2026),
        cmocka_unit_test(each_send_fails_in_turn_2025),
        cmocka_unit_test(a_server_that_stops_reading_hits_the_output_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
