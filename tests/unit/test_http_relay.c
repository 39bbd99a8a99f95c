/* SPDX-License-Identifier: MIT */
/*
 * The HTTP relay (mcp_http_relay_*, client.h: the client's HTTP transport
 * with no session, under mcp proxy --url) against the scripted peer of the
 * HTTP client's tests (tests/integration/hostile_http_server.py,
 * HOSTILE_HTTP names it): what it refuses before anything is sent (never
 * repeating a header's value), messages carried as they are in both eras,
 * a 2026-07-28 cancel that closes the stream and a 2025 one that is posted,
 * the DELETE that ends a session, errors made up (and flagged) for an
 * unreachable server, a response over the cap handed over with its head,
 * the Mcp-Param-* headers of a tools/call learned from the tools/list
 * results that passed, and a close with exchanges in flight (nothing delivered after it, nothing
 * left behind: the valgrind variant).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "http_peer.h"
#include "mcp/mcp.h"

typedef struct got {
    int messages, made_up, oversized;
    char last[4096];
    char head[256];
} got;

static void on_message(void *ud, const char *data, size_t len, bool made_up)
{
    got *g = ud;
    g->messages++;
    g->made_up += made_up;
    snprintf(g->last, sizeof g->last, "%.*s", (int)len, data);
}

static void on_oversized(void *ud, const char *head, size_t head_len, size_t limit)
{
    got *g = ud;
    (void)limit;
    g->oversized++;
    snprintf(g->head, sizeof g->head, "%.*s", (int)head_len, head ? head : "");
}

static mcp_http_relay *relay(uv_loop_t *loop, const char *url, got *g, size_t max_message)
{
    mcp_http_relay_options o = {.size = sizeof o, .message = on_message,
                                .oversized = on_oversized, .max_message = max_message,
                                .user_data = g};
    mcp_http_relay *r = NULL;
    char err[256];
    if (mcp_http_relay_new(loop, url, &o, &r, err, sizeof err) != MCP_OK)
        fail_msg("relay: %s", err);
    return r;
}

static void send_line(mcp_http_relay *r, const char *line)
{
    assert_int_equal(mcp_http_relay_send(r, line, strlen(line)), MCP_OK);
}

/* Run the loop until pred (g's messages reaching n, or the peer's log
 * saying needle) or ms pass. */
static bool run_until(uv_loop_t *loop, got *g, int n, http_peer *p, const char *needle, int ms)
{
    for (int i = 0; i < ms / 2; i++) {
        if (g && g->messages >= n)
            return true;
        if (needle && http_peer_count(p, needle) > 0)
            return true;
        uv_run(loop, UV_RUN_NOWAIT);
        usleep(2000);
    }
    return needle ? http_peer_says(p, NULL, needle, 0) : g->messages >= n;
}

/* Whether message's id is the JSON text id. */
static bool id_is(const char *message, const char *id)
{
    mcp_message *m = NULL;
    bool same = false;
    if (mcp_message_decode(message, strlen(message), NULL, NULL, &m, NULL) == MCP_OK) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        same = mcp_id_write(&m->id, &b) == MCP_OK && b.len == strlen(id) &&
               !memcmp(b.data, id, b.len);
        mcp_buf_free(&b);
    }
    mcp_message_free(m);
    return same;
}

/* Close r and run the loop until its handles are gone. */
static void close_relay(uv_loop_t *loop, mcp_http_relay *r)
{
    mcp_http_relay_close(r);
    while (uv_run(loop, UV_RUN_DEFAULT) != 0)
        ;
}

static void start(http_peer *p, const char *mode)
{
    const char *const argv[] = {"python3", HOSTILE_HTTP, mode, NULL};
    assert_true(http_peer_start(p, argv));
}

/* A 2025-11-25 initialize through r, answered (the first message). */
static void initialize_2025(uv_loop_t *loop, mcp_http_relay *r, got *g)
{
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                 "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{"
                 "\"name\":\"t\",\"version\":\"1\"}}}");
    assert_true(run_until(loop, g, 1, NULL, NULL, 10000));
}

#define ENVELOPE                                                                                   \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                       \
    "\"io.modelcontextprotocol/clientCapabilities\":{},"                                           \
    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"

static void refuses_before_sending(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    mcp_http_relay *r = (mcp_http_relay *)1;
    char err[256];
    mcp_http_relay_options o = {.size = sizeof o};
    assert_int_equal(mcp_http_relay_new(&loop, NULL, &o, &r, err, sizeof err), MCP_ERR_INVALID_ARG);
    assert_null(r);
    mcp_http_relay_options unsized = {.size = 0};
    assert_int_equal(mcp_http_relay_new(&loop, "http://127.0.0.1:9/mcp", &unsized, &r, err, sizeof err),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_http_relay_new(&loop, "ftp://127.0.0.1/mcp", &o, &r, err, sizeof err),
                     MCP_ERR_INVALID_ARG);
    assert_non_null(strstr(err, "http://"));
    /* A header the transport writes itself: named. */
    const char *reserved[] = {"Mcp-Session-Id: abc", NULL};
    o.headers = reserved;
    assert_int_equal(mcp_http_relay_new(&loop, "http://127.0.0.1:9/mcp", &o, &r, err, sizeof err),
                     MCP_ERR_INVALID_ARG);
    assert_non_null(strstr(err, "Mcp-Session-Id"));
    /* A control character in a value: refused, the value never repeated. */
    const char *forged[] = {"X-Token: s3cret\r\nX-Evil: 1", NULL};
    o.headers = forged;
    assert_int_equal(mcp_http_relay_new(&loop, "http://127.0.0.1:9/mcp", &o, &r, err, sizeof err),
                     MCP_ERR_INVALID_ARG);
    assert_null(strstr(err, "s3cret"));
    assert_non_null(strstr(err, "X-Token"));
    /* Authorization given twice: by a header and by OAuth. */
    const char *auth[] = {"Authorization: Bearer s3cret", NULL};
    mcp_oauth_options oo = {.size = sizeof oo};
    o.headers = auth;
    o.oauth = &oo;
    assert_int_equal(mcp_http_relay_new(&loop, "http://127.0.0.1:9/mcp", &o, &r, err, sizeof err),
                     MCP_ERR_INVALID_ARG);
    assert_null(strstr(err, "s3cret"));
    o.headers = NULL;
    o.oauth = NULL;
    o.ca_file = "/nonexistent/ca.pem";
    assert_int_equal(mcp_http_relay_new(&loop, "https://127.0.0.1:9/mcp", &o, &r, err, sizeof err),
                     MCP_ERR_INVALID_ARG);
    assert_non_null(strstr(err, "/nonexistent/ca.pem"));
    assert_null(r);
    /* What send refuses: a newline inside, what is not a JSON-RPC object. */
    got g = {0};
    r = relay(&loop, "http://127.0.0.1:9/mcp", &g, 0);
    assert_int_equal(mcp_http_relay_send(r, "{}\n{}", 5), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_http_relay_send(r, "nonsense", 8), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_http_relay_unsettled(r), 0);
    close_relay(&loop, r);
    assert_int_equal(g.messages, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void carries_2026_and_closes_the_stream_on_cancel(void **state)
{
    (void)state;
    http_peer p;
    start(&p, "modern");
    uv_loop_t loop;
    uv_loop_init(&loop);
    got g = {0};
    mcp_http_relay *r = relay(&loop, p.url, &g, 0);
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"echo\",\"arguments\":{\"text\":\"relayed\"}," ENVELOPE "}}");
    assert_true(run_until(&loop, &g, 1, NULL, NULL, 10000));
    assert_true(id_is(g.last, "\"a\""));
    assert_non_null(strstr(g.last, "relayed"));
    assert_int_equal(g.made_up, 0);
    assert_true(http_peer_says(&p, NULL, "version=2026-07-28", 0));
    /* A call that never ends, then its cancel: the stream closes, nothing
     * is posted, no answer comes. */
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"hang\"," ENVELOPE "}}");
    assert_true(run_until(&loop, NULL, 0, &p, "hang: holding", 10000));
    send_line(r, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                 "{\"requestId\":7,\"reason\":\"stop\"}}");
    assert_true(run_until(&loop, NULL, 0, &p, "hang: client went away", 10000));
    run_until(&loop, &g, 99, NULL, NULL, 300);
    assert_int_equal(g.messages, 1);
    assert_int_equal(http_peer_count(&p, "notifications/cancelled"), 0);
    assert_int_equal(mcp_http_relay_unsettled(r), 0);
    close_relay(&loop, r);
    assert_int_equal(uv_loop_close(&loop), 0);
    http_peer_stop(&p);
}

static void carries_2025_posts_the_cancel_and_deletes(void **state)
{
    (void)state;
    http_peer p;
    start(&p, "legacy");
    uv_loop_t loop;
    uv_loop_init(&loop);
    got g = {0};
    mcp_http_relay *r = relay(&loop, p.url, &g, 0);
    initialize_2025(&loop, r, &g);
    assert_true(id_is(g.last, "0"));
    assert_non_null(strstr(g.last, "2025-11-25"));
    send_line(r, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"echo\",\"arguments\":{\"text\":\"in session\"}}}");
    assert_true(run_until(&loop, &g, 2, NULL, NULL, 10000));
    assert_non_null(strstr(g.last, "in session"));
    assert_true(http_peer_says(&p, NULL, "POST tools/call session=s1", 0));
    /* The cancel is posted, with the session, and the call's stream closed. */
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"hang\"}}");
    assert_true(run_until(&loop, NULL, 0, &p, "hang: holding", 10000));
    send_line(r, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                 "{\"requestId\":2,\"reason\":\"stop\"}}");
    assert_true(run_until(&loop, NULL, 0, &p, "POST notifications/cancelled session=s1", 10000));
    assert_true(run_until(&loop, NULL, 0, &p, "hang: client went away", 10000));
    /* Settled once the cancel is taken; then DELETE ends the session. */
    for (int i = 0; i < 5000 && mcp_http_relay_unsettled(r); i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        usleep(2000);
    }
    assert_int_equal(mcp_http_relay_unsettled(r), 0);
    mcp_http_relay_end_session(r);
    assert_true(run_until(&loop, NULL, 0, &p, "DELETE session=s1", 10000));
    assert_int_equal(g.messages, 2);
    close_relay(&loop, r);
    assert_int_equal(uv_loop_close(&loop), 0);
    http_peer_stop(&p);
}

/* The server ends the 2025 session (404): the request that met it and
 * every later one until a new initialize get an error at once, which says
 * what to do; none is left unanswered. */
static void after_the_session_ended_each_request_is_answered(void **state)
{
    (void)state;
    http_peer p;
    start(&p, "legacy");
    uv_loop_t loop;
    uv_loop_init(&loop);
    got g = {0};
    mcp_http_relay *r = relay(&loop, p.url, &g, 0);
    initialize_2025(&loop, r, &g);
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"end\"}}");
    assert_true(run_until(&loop, &g, 2, NULL, NULL, 10000));
    assert_true(id_is(g.last, "1"));
    assert_non_null(strstr(g.last, "initialize"));
    assert_int_equal(g.made_up, 1);
    for (int id = 2; id <= 3; id++) {
        char line[160];
        snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
                 "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}}", id);
        send_line(r, line);
        assert_true(run_until(&loop, &g, id + 1, NULL, NULL, 3000));
        snprintf(line, sizeof line, "%d", id);
        assert_true(id_is(g.last, line));
        assert_non_null(strstr(g.last, "initialize"));
    }
    assert_int_equal(g.made_up, 3);
    assert_int_equal(http_peer_count(&p, "POST tools/call"), 1);
    close_relay(&loop, r);
    assert_int_equal(uv_loop_close(&loop), 0);
    http_peer_stop(&p);
}

static void unreachable_is_an_error_made_up_and_flagged(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    got g = {0};
    mcp_http_relay *r = relay(&loop, "http://127.0.0.1:9/mcp", &g, 0);
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"echo\"," ENVELOPE "}}");
    assert_true(run_until(&loop, &g, 1, NULL, NULL, 10000));
    assert_int_equal(g.made_up, 1);
    assert_true(id_is(g.last, "3"));
    assert_non_null(strstr(g.last, "-32603"));
    assert_non_null(strstr(g.last, "httpError"));
    assert_non_null(mcp_http_relay_unreachable(r));
    close_relay(&loop, r);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void an_oversized_response_comes_with_its_head(void **state)
{
    (void)state;
    http_peer p;
    start(&p, "modern");
    uv_loop_t loop;
    uv_loop_init(&loop);
    got g = {0};
    mcp_http_relay *r = relay(&loop, p.url, &g, 64 * 1024);
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"big\"," ENVELOPE "}}");
    for (int i = 0; i < 5000 && !g.oversized && !g.messages; i++) {
        uv_run(&loop, UV_RUN_NOWAIT);
        usleep(2000);
    }
    assert_int_equal(g.oversized, 1);
    assert_int_equal(g.messages, 0);
    assert_non_null(strstr(g.head, "\"id\":41"));
    close_relay(&loop, r);
    assert_int_equal(uv_loop_close(&loop), 0);
    http_peer_stop(&p);
}

static void the_tools_listed_give_the_param_headers_of_a_call(void **state)
{
    (void)state;
    http_peer p;
    start(&p, "modern");
    uv_loop_t loop;
    uv_loop_init(&loop);
    got g = {0};
    mcp_http_relay *r = relay(&loop, p.url, &g, 0);
    static const char call_eu[] =
        "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"regional\",\"arguments\":{\"region\":\"eu\"}," ENVELOPE "}}";
    char line[1024];
    /* Not listed yet: no header, and the peer refuses (-32020), passed on. */
    snprintf(line, sizeof line, call_eu, 60);
    send_line(r, line);
    assert_true(run_until(&loop, &g, 1, NULL, NULL, 10000));
    assert_non_null(strstr(g.last, "-32020"));
    /* The peer lists regional with x-mcp-header Region from its second
     * listing on: the relay reads the lists passing, the call carries
     * Mcp-Param-Region and is answered. */
    for (int i = 0; i < 2; i++) {
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":\"list%d\",\"method\":\"tools/list\","
                 "\"params\":{" ENVELOPE "}}", i);
        send_line(r, line);
        assert_true(run_until(&loop, &g, 2 + i, NULL, NULL, 10000));
    }
    snprintf(line, sizeof line, call_eu, 61);
    send_line(r, line);
    assert_true(run_until(&loop, &g, 4, NULL, NULL, 10000));
    assert_true(id_is(g.last, "61"));
    assert_non_null(strstr(g.last, "region eu"));
    assert_true(http_peer_says(&p, NULL, "region=eu", 0));
    close_relay(&loop, r);
    assert_int_equal(uv_loop_close(&loop), 0);
    http_peer_stop(&p);
}

static void a_close_with_exchanges_in_flight_delivers_nothing_more(void **state)
{
    (void)state;
    http_peer p;
    start(&p, "modern");
    uv_loop_t loop;
    uv_loop_init(&loop);
    got g = {0};
    mcp_http_relay *r = relay(&loop, p.url, &g, 0);
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"hang\"," ENVELOPE "}}");
    send_line(r, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"hang\"," ENVELOPE "}}");
    assert_true(run_until(&loop, NULL, 0, &p, "hang: holding", 10000));
    close_relay(&loop, r); /* frees r once its handles are closed */
    assert_int_equal(g.messages, 0);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_true(http_peer_says(&p, NULL, "hang: client went away", 10000));
    http_peer_stop(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refuses_before_sending),
        cmocka_unit_test(carries_2026_and_closes_the_stream_on_cancel),
        cmocka_unit_test(carries_2025_posts_the_cancel_and_deletes),
        cmocka_unit_test(after_the_session_ended_each_request_is_answered),
        cmocka_unit_test(unreachable_is_an_error_made_up_and_flagged),
        cmocka_unit_test(an_oversized_response_comes_with_its_head),
        cmocka_unit_test(the_tools_listed_give_the_param_headers_of_a_call),
        cmocka_unit_test(a_close_with_exchanges_in_flight_delivers_nothing_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
