/* SPDX-License-Identifier: MIT */
/*
 * URL-mode elicitation, server side: what a handler may ask in each
 * revision, the -32042 error with its elicitations, and the completion
 * notification (2025-11-25) sent once to the client that holds the id,
 * after its call ended too, and never for an id no client holds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_harness.h"

static atomic_int outcome;
static atomic_int done;

#define URL_ASK(id, url) "{\"mode\":\"url\",\"message\":\"Connect your account\",\"url\":\"" url \
                         "\"" id "}"

/* Asks the URL elicitation arguments.params (an object), says how it went. */
static void tool_url(void *ud, mcp_call *c)
{
    (void)ud;
    const mcp_json *params = mcp_json_object_get(mcp_call_arguments(c), "params");
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, "connect", "elicitation/create", params, 0, &a);
    atomic_store(&outcome, rc);
    atomic_fetch_add(&done, 1);
    if (rc == MCP_ERR_INPUT_REQUIRED || rc == MCP_ERR_CANCELLED) {
        mcp_call_finish(c);
    } else if (rc != MCP_OK) {
        mcp_call_reply_tool_error(c, mcp_strerror(rc));
    } else {
        const char *action =
            mcp_json_string(mcp_json_object_get(mcp_json_doc_root(a.result), "action"), NULL);
        char text[100];
        snprintf(text, sizeof text, "user said %s", action ? action : "?");
        mcp_call_reply_text(c, text);
    }
    mcp_ask_answer_release(&a);
}

/* Fails with arguments.code and arguments.data; replies how that went
 * (the reply is the call's only answer: a refused one became -32603). */
static void tool_fail(void *ud, mcp_call *c)
{
    (void)ud;
    int64_t code = 0;
    mcp_json_get_int64(mcp_json_object_get(mcp_call_arguments(c), "code"), &code);
    int rc = mcp_call_reply_error_data(c, code, "Connect your account first",
                                       mcp_json_object_get(mcp_call_arguments(c), "data"));
    atomic_store(&outcome, rc);
    atomic_fetch_add(&done, 1);
}

static mcp_server *new_server(void)
{
    mcp_server_options o = {.size = sizeof o, .name = "url", .log_level = MCP_LOG_ERROR};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "url", .handler = tool_url,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool), .name = "fail", .handler = tool_fail},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    atomic_store(&outcome, 1);
    atomic_store(&done, 0);
    return s;
}

#define URL_CAPS "{\"elicitation\":{\"form\":{},\"url\":{}}}"

/* The next line the server writes after a ping, which must be the ping's
 * answer: nothing else came first. */
static void nothing_more(harness *h, int ping_id)
{
    char ping[80], want[32];
    snprintf(ping, sizeof ping, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}", ping_id);
    wire_send(&h->w, ping);
    char *next = wire_read(&h->w, 5000);
    assert_non_null(next);
    snprintf(want, sizeof want, "\"id\":%d,", ping_id);
    if (!strstr(next, want))
        fail_msg("expected only the ping's answer, got %s", next);
    free(next);
}

static void a_url_elicitation_is_asked_and_completed_once(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(), "2025-11-25", URL_CAPS, NULL);
    harness_send_req(&h, 1, "tools/call",
                     "\"name\":\"url\",\"arguments\":{\"params\":" URL_ASK(
                         ",\"elicitationId\":\"e-1\"", "https://example.com/connect") "}");
    char *line;
    long long id = harness_server_request(&h, "elicitation/create", &line);
    assert_non_null(strstr(line, "\"mode\":\"url\""));
    assert_non_null(strstr(line, "\"elicitationId\":\"e-1\""));
    free(line);
    char answer[160];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"accept\"}}", id);
    wire_send(&h.w, answer);
    harness_expect_in(wire_expect(&h.w, "\"id\":1,"), "user said accept");
    /* An answer with content: what happens at a URL never crosses the
     * client, so data in the answer is refused. */
    harness_send_req(&h, 3, "tools/call",
                     "\"name\":\"url\",\"arguments\":{\"params\":" URL_ASK(
                         ",\"elicitationId\":\"e-2\"", "https://example.com/connect") "}");
    id = harness_server_request(&h, "elicitation/create", NULL);
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"accept\","
             "\"content\":{\"apiKey\":\"sk-1\"}}}",
             id);
    wire_send(&h.w, answer);
    harness_expect_in(wire_expect(&h.w, "\"id\":3,"), "\"isError\":true");
    assert_int_equal(atomic_load(&outcome), MCP_ERR_PROTOCOL);
    /* After the call: the client that holds e-1 is told, once. */
    assert_int_equal(mcp_server_elicitation_complete(h.server, "e-1"), MCP_OK);
    harness_expect_in(wire_expect(&h.w, "notifications/elicitation/complete"),
                      "\"params\":{\"elicitationId\":\"e-1\"}");
    assert_int_equal(mcp_server_elicitation_complete(h.server, "e-1"), MCP_OK);
    assert_int_equal(mcp_server_elicitation_complete(h.server, "unknown"), MCP_OK);
    nothing_more(&h, 2);
    assert_int_equal(mcp_server_elicitation_complete(h.server, ""), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_server_elicitation_complete(h.server, NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_server_elicitation_complete(h.server, "\xff"), MCP_ERR_INVALID_ARG);
    harness_stop(&h);
}

/* What a handler may not ask: refused before anything is sent. */
static void incomplete_or_untimely_url_asks_are_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        /* 2025-11-25 needs the id */
        URL_ASK("", "https://example.com/"),
        URL_ASK(",\"elicitationId\":\"\"", "https://example.com/"),
        /* not an absolute URL, or one with a space or a control */
        URL_ASK(",\"elicitationId\":\"e\"", "example.com/x"),
        URL_ASK(",\"elicitationId\":\"e\"", "https://example.com/a b"),
        URL_ASK(",\"elicitationId\":\"e\"", "https://example.com/\\u001b[2J"),
        URL_ASK(",\"elicitationId\":\"e\"", "https:"),
        URL_ASK(",\"elicitationId\":\"e\"", "urn:isbn:123"),
        URL_ASK(",\"elicitationId\":\"e\"", "file:///etc/passwd"),
        "{\"mode\":\"url\",\"url\":\"https://example.com/\",\"elicitationId\":\"e\"}",
        "{\"mode\":\"popup\",\"message\":\"m\"}",
        "{\"mode\":7,\"message\":\"m\"}",
    };
    harness h;
    harness_start(&h, new_server(), "2025-11-25", URL_CAPS, NULL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char params[400];
        snprintf(params, sizeof params, "\"name\":\"url\",\"arguments\":{\"params\":%s}", bad[i]);
        char *a = harness_req(&h, (int)i + 1, "tools/call", params);
        if (!strstr(a, "invalid argument"))
            fail_msg("%s: %s", bad[i], a);
        free(a);
        assert_int_equal(atomic_load(&outcome), MCP_ERR_INVALID_ARG);
    }
    harness_stop(&h);
    /* Clients that may not be asked for a URL: one that declared form mode
     * only; one whose "url" is true (a capability is an object); and a
     * 2025-06-18 one, whatever it declares (URL mode came with 2025-11-25),
     * whose elicitationId is not kept either. */
    static const char *const refused[][2] = {
        {"2025-11-25", "{\"elicitation\":{\"form\":{}}}"},
        {"2025-11-25", "{\"elicitation\":{\"url\":true}}"},
        {"2025-06-18", URL_CAPS},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        harness_start(&h, new_server(), refused[i][0], refused[i][1], NULL);
        harness_expect_in(harness_req(&h, 1, "tools/call",
                                      "\"name\":\"url\",\"arguments\":{\"params\":" URL_ASK(
                                          ",\"elicitationId\":\"e\"", "https://example.com/") "}"),
                          "\"isError\":true");
        assert_int_equal(atomic_load(&outcome), MCP_ERR_STATE);
        assert_int_equal(mcp_server_elicitation_complete(h.server, "e"), MCP_OK);
        nothing_more(&h, 2);
        harness_stop(&h);
    }
}

#define REQUIRED(id) "{\"elicitations\":[" URL_ASK(",\"elicitationId\":\"" id "\"", \
                                                   "https://example.com/connect") "]}"

static void a_url_elicitation_required_error_is_completed_after_the_call(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(), "2025-11-25", URL_CAPS, NULL);
    char *a = harness_req(&h, 1, "tools/call",
                          "\"name\":\"fail\",\"arguments\":{\"code\":-32042,\"data\":" REQUIRED(
                              "r-1") "}");
    if (!strstr(a, "\"error\":{\"code\":-32042,\"message\":\"Connect your account first\","
                   "\"data\":{\"elicitations\":[{\"mode\":\"url\"") ||
        !strstr(a, "\"elicitationId\":\"r-1\""))
        fail_msg("%s", a);
    free(a);
    assert_int_equal(atomic_load(&outcome), MCP_OK);
    assert_int_equal(mcp_server_elicitation_complete(h.server, "r-1"), MCP_OK);
    harness_expect_in(wire_expect(&h.w, "notifications/elicitation/complete"),
                      "\"elicitationId\":\"r-1\"");
    /* Any other code carries its data as given. */
    harness_expect_in(harness_req(&h, 2, "tools/call",
                                  "\"name\":\"fail\",\"arguments\":{\"code\":-32000,"
                                  "\"data\":[1,\"two\"]}"),
                      "\"error\":{\"code\":-32000,\"message\":\"Connect your account first\","
                      "\"data\":[1,\"two\"]}");
    /* A -32042 that is not one: the call ends -32603, the handler hears why. */
    static const char *const bad[] = {
        "{}",
        "{\"elicitations\":[]}",
        "{\"elicitations\":[{\"mode\":\"form\",\"message\":\"m\"}]}",
        "{\"elicitations\":[" URL_ASK("", "https://example.com/") "]}",
        "[]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char params[400];
        snprintf(params, sizeof params,
                 "\"name\":\"fail\",\"arguments\":{\"code\":-32042,\"data\":%s}", bad[i]);
        char *r = harness_req(&h, 10 + (int)i, "tools/call", params);
        if (!strstr(r, "\"code\":-32603,\"message\":\"Internal error: "))
            fail_msg("%s: %s", bad[i], r);
        free(r);
        assert_int_equal(atomic_load(&outcome), MCP_ERR_INVALID_ARG);
    }
    harness_stop(&h);
    /* 2026-07-28 has no -32042 (nor ids to complete). */
    harness_start(&h, new_server(), NULL, NULL, NULL);
    harness_expect_in(harness_req(&h, 1, "tools/call",
                                  "\"name\":\"fail\",\"arguments\":{\"code\":-32042,\"data\":" REQUIRED(
                                      "m-1") "}"),
                      "-32042 exists only in revision 2025-11-25");
    assert_int_equal(atomic_load(&outcome), MCP_ERR_INVALID_ARG);
    harness_stop(&h);
}

/* A connection keeps its last 64 ids: the 65th forgets the first. */
static void only_the_last_64_ids_are_kept(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(), "2025-11-25", URL_CAPS, NULL);
    for (int i = 0; i < 65; i++) {
        char params[400];
        snprintf(params, sizeof params,
                 "\"name\":\"fail\",\"arguments\":{\"code\":-32042,\"data\":{\"elicitations\":["
                 "{\"mode\":\"url\",\"message\":\"m\",\"url\":\"https://x.example/\","
                 "\"elicitationId\":\"k%d\"}]}}",
                 i);
        harness_expect_in(harness_req(&h, i + 1, "tools/call", params), "\"code\":-32042");
    }
    assert_int_equal(mcp_server_elicitation_complete(h.server, "k0"), MCP_OK);
    assert_int_equal(mcp_server_elicitation_complete(h.server, "k1"), MCP_OK);
    harness_expect_in(wire_expect(&h.w, "notifications/elicitation/complete"),
                      "\"elicitationId\":\"k1\"");
    assert_int_equal(mcp_server_elicitation_complete(h.server, "k64"), MCP_OK);
    harness_expect_in(wire_expect(&h.w, "notifications/elicitation/complete"),
                      "\"elicitationId\":\"k64\"");
    nothing_more(&h, 100);
    harness_stop(&h);
}

/* 2026-07-28: the same handler's question goes out in inputRequests, no
 * id needed; the client's retry brings the answer. */
static void a_2026_url_elicitation_is_an_input_request(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    static const char call[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"url\","
        "\"arguments\":{\"params\":" URL_ASK("", "https://example.com/c") "},%s"
        "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"url\":{}}}}}}";
    char line[2048];
    snprintf(line, sizeof line, call, "");
    wire_send(&h.w, line);
    char *a = wire_expect(&h.w, "\"id\":1,");
    if (!strstr(a, "\"resultType\":\"input_required\",\"inputRequests\":{\"connect\":{\"method\":"
                   "\"elicitation/create\",\"params\":{\"mode\":\"url\""))
        fail_msg("%s", a);
    free(a);
    snprintf(line, sizeof line, call,
             "\"inputResponses\":{\"connect\":{\"action\":\"decline\"}},");
    wire_send(&h.w, line);
    harness_expect_in(wire_expect(&h.w, "\"id\":1,"), "user said decline");
    harness_stop(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_url_elicitation_is_asked_and_completed_once),
        cmocka_unit_test(incomplete_or_untimely_url_asks_are_refused),
        cmocka_unit_test(a_url_elicitation_required_error_is_completed_after_the_call),
        cmocka_unit_test(only_the_last_64_ids_are_kept),
        cmocka_unit_test(a_2026_url_elicitation_is_an_input_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
