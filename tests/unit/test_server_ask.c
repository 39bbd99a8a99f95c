/* SPDX-License-Identifier: MIT */
/*
 * A tool asking the client mid-call (mcp_call_ask), 2025 revisions: the
 * request goes out, its answer comes back to the handler; when the call is
 * cancelled the request is cancelled on the wire too, with the call's
 * reason; a timeout, an error answer, an undeclared capability, a late
 * answer and the connection's end each end the ask clearly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/base64.h"
#include "serve_harness.h"

static atomic_int ask_outcome;
static atomic_int asks_done;

/* Asks for a sampling (timeout in arguments.timeout_ms) and answers with
 * the text the client's model gave, or says how the ask ended. */
static void tool_sample(void *ud, mcp_call *c)
{
    int64_t timeout = 0;
    mcp_json_get_int64(mcp_json_object_get(mcp_call_arguments(c), "timeout_ms"), &timeout);
    static const char p[] = "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                            "\"text\":\"2+2?\"}}],\"maxTokens\":10}";
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(p, sizeof p - 1, NULL, NULL, &d, NULL), MCP_OK);
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, NULL, "sampling/createMessage", mcp_json_doc_root(d), (uint64_t)timeout,
                          &a);
    mcp_json_doc_free(d);
    atomic_store(&ask_outcome, rc);
    atomic_fetch_add(&asks_done, 1);
    char text[300];
    if (rc == MCP_OK) {
        const mcp_json *content = mcp_json_object_get(mcp_json_doc_root(a.result), "content");
        snprintf(text, sizeof text, "model said %s",
                 mcp_json_string(mcp_json_object_get(content, "text"), NULL));
        mcp_call_reply_text(c, text);
    } else if (rc == MCP_ERR_CANCELLED) {
        mcp_call_finish(c);
    } else {
        snprintf(text, sizeof text, "ask failed: %s (%lld %s)", mcp_strerror(rc),
                 (long long)a.error_code, a.error_message ? a.error_message : "");
        mcp_call_reply_tool_error(c, text);
    }
    mcp_ask_answer_release(&a);
}

static void tool_roots(void *ud, mcp_call *c)
{
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, NULL, "roots/list", NULL, 0, &a);
    char text[300];
    snprintf(text, sizeof text, "%s: %d roots", mcp_strerror(rc),
             rc == MCP_OK ? (int)mcp_json_array_size(
                                mcp_json_object_get(mcp_json_doc_root(a.result), "roots"))
                          : -1);
    mcp_call_reply_text(c, text);
    mcp_ask_answer_release(&a);
}

/* On the loop thread an ask cannot wait: refused, and bad methods too. */
static void tool_inline(void *ud, mcp_call *c)
{
    mcp_ask_answer a = {.size = sizeof a};
    int state = mcp_call_ask(c, NULL, "roots/list", NULL, 0, &a);
    int bad = mcp_call_ask(c, NULL, "tools/call", NULL, 0, &a);
    /* An answer whose size was not set: refused first, nothing written. */
    mcp_ask_answer unsized = {.error_code = 7};
    int zero = mcp_call_ask(c, NULL, "roots/list", NULL, 0, &unsized);
    bool untouched = unsized.size == 0 && unsized.error_code == 7;
    mcp_call_reply_text(c, state == MCP_ERR_STATE && bad == MCP_ERR_INVALID_ARG &&
                                   zero == MCP_ERR_INVALID_ARG && untouched
                               ? "refused"
                               : "asked?");
}


/* 2026-07-28 ------------------------------------------------------------------------ */

static const char form[] = "{\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\","
                           "\"properties\":{\"name\":{\"type\":\"string\"}}}}";

/* The name an elicitation answer accepted, or NULL. */
static const char *accepted(const mcp_ask_answer *a, const char *field)
{
    const mcp_json *r = mcp_json_doc_root(a->result);
    const char *action = mcp_json_string(mcp_json_object_get(r, "action"), NULL);
    if (!action || strcmp(action, "accept"))
        return NULL;
    return mcp_json_string(mcp_json_object_get(mcp_json_object_get(r, "content"), field), NULL);
}

/* Asks step1 (a name), then step2 (a colour), one round each; with
 * arguments.together both in one round. The same code in both eras. */
static void tool_steps(void *ud, mcp_call *c)
{
    bool together = false;
    mcp_json_get_bool(mcp_json_object_get(mcp_call_arguments(c), "together"), &together);
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(form, sizeof form - 1, NULL, NULL, &d, NULL), MCP_OK);
    mcp_ask_answer a1 = {.size = sizeof a1}, a2 = {.size = sizeof a2};
    int rc1 = mcp_call_ask(c, "step1", "elicitation/create", mcp_json_doc_root(d), 0, &a1);
    int rc2 = MCP_OK;
    if (rc1 == MCP_OK || together)
        rc2 = mcp_call_ask(c, "step2", "elicitation/create", mcp_json_doc_root(d), 0, &a2);
    mcp_json_doc_free(d);
    atomic_store(&ask_outcome, rc1 != MCP_OK ? rc1 : rc2);
    if (rc1 == MCP_ERR_INPUT_REQUIRED || rc2 == MCP_ERR_INPUT_REQUIRED ||
        rc1 == MCP_ERR_CANCELLED || rc2 == MCP_ERR_CANCELLED) {
        mcp_call_finish(c);
    } else if (rc1 != MCP_OK || rc2 != MCP_OK) {
        mcp_call_reply_tool_error(c, mcp_strerror(rc1 != MCP_OK ? rc1 : rc2));
    } else {
        char text[200];
        const char *who = accepted(&a1, "name"), *what = accepted(&a2, "name");
        snprintf(text, sizeof text, "%s likes %s", who ? who : "(declined)",
                 what ? what : "(declined)");
        mcp_call_reply_text(c, text);
    }
    mcp_ask_answer_release(&a1);
    mcp_ask_answer_release(&a2);
}

static void tool_quick(void *ud, mcp_call *c)
{
    mcp_call_reply_text(c, "quick");
}

static mcp_server *new_server_with(unsigned workers)
{
    mcp_server_options o = {.size = sizeof o, .name = "ask", .log_level = MCP_LOG_ERROR,
                            .worker_threads = workers};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "sample", .handler = tool_sample,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool), .name = "roots", .handler = tool_roots,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool), .name = "inline", .handler = tool_inline},
        {.size = sizeof(mcp_tool), .name = "steps", .handler = tool_steps,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool), .name = "quick", .handler = tool_quick,
         .flags = MCP_TOOL_BLOCKING},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    atomic_store(&asks_done, 0);
    atomic_store(&ask_outcome, 1);
    return s;
}

static mcp_server *new_server(void)
{
    return new_server_with(0);
}

#define CAPS "{\"sampling\":{},\"roots\":{}}"

static void wait_asks(int n)
{
    for (int i = 0; i < 1000 && atomic_load(&asks_done) < n; i++)
        usleep(5000);
    assert_int_equal(atomic_load(&asks_done), n);
}

static void the_answer_reaches_the_handler(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", CAPS, NULL);
    harness_send_req(&h, 1, "tools/call", "\"name\":\"sample\"");
    char *line;
    long long id = harness_server_request(&h, "sampling/createMessage", &line);
    assert_non_null(strstr(line, "\"maxTokens\":10"));
    free(line);
    char answer[300];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"role\":\"assistant\",\"content\":"
             "{\"type\":\"text\",\"text\":\"4\"},\"model\":\"m\"}}",
             id);
    wire_send(&h.w, answer);
    harness_expect_in(wire_expect(&h.w, "\"id\":1,"), "model said 4");
    /* An error answer is the handler's to read. */
    harness_send_req(&h, 2, "tools/call", "\"name\":\"sample\"");
    id = harness_server_request(&h, "sampling/createMessage", NULL);
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-1,\"message\":\"User "
             "rejected\"}}",
             id);
    wire_send(&h.w, answer);
    harness_expect_in(wire_expect(&h.w, "\"id\":2,"),
                      "ask failed: the peer answered with an error (-1 User rejected)");
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_REMOTE);
    harness_send_req(&h, 3, "tools/call", "\"name\":\"roots\"");
    id = harness_server_request(&h, "roots/list", NULL);
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"roots\":[{\"uri\":\"file:///a\"}]}}",
             id);
    wire_send(&h.w, answer);
    harness_expect_in(wire_expect(&h.w, "\"id\":3,"), ": 1 roots");
    harness_expect_in(harness_req(&h, 4, "tools/call", "\"name\":\"inline\""), "refused");
    harness_stop(&h);
}

/* The chain: the client cancels its call, and the server cancels what the
 * call asked, with the same reason; the call gets no answer; an answer the
 * client sends late changes nothing. */
static void a_cancelled_call_cancels_its_ask_on_the_wire(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", CAPS, NULL);
    harness_send_req(&h, 7, "tools/call", "\"name\":\"sample\"");
    long long id = harness_server_request(&h, "sampling/createMessage", NULL);
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                    "{\"requestId\":7,\"reason\":\"user pressed stop\"}}");
    char *cancel = wire_expect(&h.w, "notifications/cancelled");
    char want[128];
    snprintf(want, sizeof want, "\"requestId\":%lld,\"reason\":\"user pressed stop\"", id);
    if (!strstr(cancel, want))
        fail_msg("%s: no %s", cancel, want);
    free(cancel);
    wait_asks(1);
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_CANCELLED);
    char late[200];
    snprintf(late, sizeof late,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"role\":\"assistant\",\"content\":"
             "{\"type\":\"text\",\"text\":\"late\"},\"model\":\"m\"}}",
             id);
    wire_send(&h.w, late);
    /* Nothing for call 7: the next line is the ping's answer. */
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
    char *next = wire_read(&h.w, 5000);
    assert_non_null(next);
    assert_non_null(strstr(next, "\"id\":8,"));
    free(next);
    harness_stop(&h);
}

static void a_timeout_cancels_the_ask(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-06-18", CAPS, NULL);
    harness_send_req(&h, 1, "tools/call", "\"name\":\"sample\",\"arguments\":{\"timeout_ms\":200}");
    long long id = harness_server_request(&h, "sampling/createMessage", NULL);
    char *cancel = wire_expect(&h.w, "notifications/cancelled");
    char want[64];
    snprintf(want, sizeof want, "\"requestId\":%lld", id);
    assert_non_null(strstr(cancel, want));
    free(cancel);
    harness_expect_in(wire_expect(&h.w, "\"id\":1,"), "ask failed: ");
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_TIMED_OUT);
    harness_stop(&h);
}

static void an_undeclared_capability_is_not_asked(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", "{\"roots\":{}}", NULL);
    harness_expect_in(harness_req(&h, 1, "tools/call", "\"name\":\"sample\""),
                      "ask failed: operation not valid in the current state");
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_STATE);
    harness_stop(&h);
    /* Elicitation came with 2025-06-18: a 2025-03-26 client is never asked,
     * whatever capabilities it claims. */
    harness_start(&h, new_server(), "2025-03-26", "{\"elicitation\":{}}", NULL);
    harness_expect_in(harness_req(&h, 1, "tools/call", "\"name\":\"steps\""), "\"isError\":true");
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_STATE);
    harness_stop(&h);
}

/* The client's input ends while the call waits for it: the ask is
 * cancelled on the wire (the client still reads: its handler hears of it),
 * the handler returns, the server too. */
static void the_connections_end_ends_the_ask(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", CAPS, NULL);
    harness_send_req(&h, 1, "tools/call", "\"name\":\"sample\"");
    long long id = harness_server_request(&h, "sampling/createMessage", NULL);
    shutdown(h.w.fd, SHUT_WR);
    char want[64];
    snprintf(want, sizeof want, "\"requestId\":%lld,\"reason\":", id);
    bool told = false;
    for (char *l; (l = wire_read(&h.w, 5000));) {
        told = told || (strstr(l, "notifications/cancelled") && strstr(l, want));
        free(l);
    }
    assert_true(told);
    harness_stop(&h);
    assert_int_equal(atomic_load(&asks_done), 1);
    int rc = atomic_load(&ask_outcome);
    assert_true(rc == MCP_ERR_CANCELLED || rc == MCP_ERR_CLOSED);
}


/* A 2026-07-28 tools/call of "steps", with the client's capabilities and
 * the rest of params (members, may be empty). */
static char *steps(harness *h, int id, const char *caps, const char *rest)
{
    char line[8192];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"steps\",%s\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":%s}}}",
             id, rest, caps);
    wire_send(&h->w, line);
    char want[32];
    snprintf(want, sizeof want, "\"id\":%d,", id);
    return wire_expect(&h->w, want);
}

#define ELICIT "{\"elicitation\":{}}"
#define NAMED(key, v) "\"" key "\":{\"action\":\"accept\",\"content\":{\"name\":\"" v "\"}}"

static void a_2026_question_ends_the_call_and_the_retry_brings_the_answer(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char *r1 = steps(&h, 1, ELICIT, "");
    assert_non_null(strstr(r1, "\"resultType\":\"input_required\",\"inputRequests\":{\"step1\":"
                               "{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Who?\""));
    assert_null(strstr(r1, "step2"));
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_INPUT_REQUIRED);
    char *s1 = harness_request_state(r1);
    free(r1);
    /* Round 2: step1 answered; step2 asked, the state now holding step1. */
    char rest[4096];
    snprintf(rest, sizeof rest, "\"inputResponses\":{" NAMED("step1", "Ann") "},\"requestState\":\"%s\",", s1);
    char *r2 = steps(&h, 2, ELICIT, rest);
    assert_non_null(strstr(r2, "\"inputRequests\":{\"step2\""));
    char *s2 = harness_request_state(r2);
    assert_string_not_equal(s1, s2);
    free(r2);
    /* Round 3: only step2 in inputResponses; step1 comes from the state. */
    snprintf(rest, sizeof rest, "\"inputResponses\":{" NAMED("step2", "teal") "},\"requestState\":\"%s\",", s2);
    harness_expect_in(steps(&h, 3, ELICIT, rest), "\"text\":\"Ann likes teal\"");
    /* Tampered, or another request's: refused before the handler runs. */
    s2[strlen(s2) / 2] ^= 1;
    snprintf(rest, sizeof rest, "\"inputResponses\":{" NAMED("step2", "teal") "},\"requestState\":\"%s\",", s2);
    harness_expect_in(steps(&h, 4, ELICIT, rest),
                      "\"code\":-32602,\"message\":\"Invalid params: requestState failed its "
                      "integrity check\"");
    snprintf(rest, sizeof rest,
             "\"arguments\":{\"together\":false},\"inputResponses\":{" NAMED("step2", "x")
             "},\"requestState\":\"%s\",", s1);
    harness_expect_in(steps(&h, 5, ELICIT, rest), "requestState belongs to another request");
    harness_expect_in(steps(&h, 6, ELICIT, "\"requestState\":7,"), "requestState must be a string");
    free(s1);
    free(s2);
    harness_stop(&h);
}

static void questions_of_one_round_go_together_and_answers_need_no_state(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char *r = steps(&h, 1, ELICIT, "\"arguments\":{\"together\":true},");
    assert_non_null(strstr(r, "\"step1\":{"));
    assert_non_null(strstr(r, "\"step2\":{"));
    free(r);
    /* Answers without a state, extra keys ignored. */
    harness_expect_in(steps(&h, 2, ELICIT,
                            "\"arguments\":{\"together\":true},\"inputResponses\":{" NAMED("step1", "Bo")
                            "," NAMED("step2", "red") ",\"extra\":{\"action\":\"accept\"}},"),
                      "Bo likes red");
    /* A missing answer is asked again, not an error. */
    harness_expect_in(steps(&h, 3, ELICIT,
                            "\"arguments\":{\"together\":true},\"inputResponses\":{" NAMED("step1", "Bo") "},"),
                      "\"inputRequests\":{\"step2\"");
    /* No elicitation declared: nothing is asked of it. */
    harness_expect_in(steps(&h, 4, "{\"sampling\":{}}", ""), "\"isError\":true");
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_STATE);
    harness_stop(&h);
}

/* What the client answers is checked before the handler sees it: the
 * shape of each result, and an accepted form against its schema. */
static void answers_are_checked_before_the_handler_sees_them(void **state)
{
    harness h;
    harness_start(&h, new_server(), "2025-11-25", "{\"elicitation\":{}}", NULL);
    static const char *const bad[][2] = {
        {"{\"content\":{\"name\":\"x\"}}", "no action of accept, decline or cancel"},
        {"{\"action\":\"accept\"}", "accepted the form without its content"},
        {"{\"action\":\"accept\",\"content\":{\"name\":5}}",
         "breaks the requested schema: content/name must be string (type)"}};
    for (int i = 0; i < 3; i++) {
        harness_send_req(&h, 10 + i, "tools/call", "\"name\":\"steps\"");
        long long id = harness_server_request(&h, "elicitation/create", NULL);
        char answer[300];
        snprintf(answer, sizeof answer, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}", id,
                 bad[i][0]);
        wire_send(&h.w, answer);
        char want[32];
        snprintf(want, sizeof want, "\"id\":%d,", 10 + i);
        char *r = wire_expect(&h.w, want);
        if (!strstr(r, "\"isError\":true"))
            fail_msg("%s: %s", bad[i][0], r);
        free(r);
        assert_int_equal(atomic_load(&ask_outcome), i < 2 ? MCP_ERR_PROTOCOL : MCP_ERR_SCHEMA_MISMATCH);
    }
    /* A decline needs no content: both questions declined, the call ends. */
    harness_send_req(&h, 20, "tools/call", "\"name\":\"steps\"");
    for (int q = 0; q < 2; q++) {
        long long id = harness_server_request(&h, "elicitation/create", NULL);
        char answer[200];
        snprintf(answer, sizeof answer,
                 "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"action\":\"decline\"}}", id);
        wire_send(&h.w, answer);
    }
    harness_expect_in(wire_expect(&h.w, "\"id\":20,"), "(declined) likes (declined)");
    assert_int_equal(atomic_load(&ask_outcome), MCP_OK);
    harness_stop(&h);
}

/* 2026: a state carries only the answers the handler took: one sent for a
 * question not asked yet is not kept for later rounds. */
static void a_state_keeps_only_the_answers_taken(void **state)
{
    harness h;
    harness_start(&h, new_server(), NULL, NULL, NULL);
    char *r = steps(&h, 1, ELICIT, "\"inputResponses\":{" NAMED("step2", "early") "},");
    assert_non_null(strstr(r, "\"inputRequests\":{\"step1\""));
    char *st = harness_request_state(r);
    free(r);
    char *dot = strchr(st, '.');
    assert_non_null(dot);
    mcp_buf payload;
    mcp_buf_init(&payload, 0, NULL);
    assert_int_equal(mcp__base64_decode(&payload, st, (size_t)(dot - st)), MCP_OK);
    if (strstr(payload.data, "step2") || !strstr(payload.data, "\"a\":{}"))
        fail_msg("the state keeps what nobody took: %s", payload.data);
    mcp_buf_free(&payload);
    free(st);
    /* An answer of the wrong shape: refused, not handed over. */
    harness_expect_in(steps(&h, 2, ELICIT, "\"inputResponses\":{\"step1\":{\"foo\":1}},"),
                      "\"isError\":true");
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_PROTOCOL);
    harness_stop(&h);
}

/* Every worker held by an ask nobody answers (a client that never does):
 * the other blocking calls still run, on extra threads. */
static void asks_waiting_do_not_starve_other_calls(void **state)
{
    harness h;
    harness_start(&h, new_server_with(2), "2025-11-25", CAPS, NULL);
    for (int i = 0; i < 3; i++) {
        harness_send_req(&h, 1 + i, "tools/call", "\"name\":\"sample\"");
        free(wire_expect(&h.w, "sampling/createMessage"));
    }
    harness_expect_in(harness_req(&h, 9, "tools/call", "\"name\":\"quick\""), "\"text\":\"quick\"");
    harness_stop(&h); /* the asks end with the connection */
    assert_int_equal(atomic_load(&asks_done), 3);
}

/* One client may keep 64 calls waiting on it; the next is not asked. */
static void one_client_keeps_at_most_64_calls_waiting(void **state)
{
    harness h;
    harness_start(&h, new_server_with(2), "2025-11-25", CAPS, NULL);
    for (int i = 0; i < 64; i++) {
        harness_send_req(&h, 100 + i, "tools/call", "\"name\":\"sample\"");
        free(wire_expect(&h.w, "sampling/createMessage"));
    }
    harness_expect_in(harness_req(&h, 200, "tools/call", "\"name\":\"sample\""),
                      "\"isError\":true");
    assert_int_equal(atomic_load(&ask_outcome), MCP_ERR_BUSY);
    harness_stop(&h);
    assert_int_equal(atomic_load(&asks_done), 65);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_answer_reaches_the_handler),
        cmocka_unit_test(a_cancelled_call_cancels_its_ask_on_the_wire),
        cmocka_unit_test(a_timeout_cancels_the_ask),
        cmocka_unit_test(an_undeclared_capability_is_not_asked),
        cmocka_unit_test(the_connections_end_ends_the_ask),
        cmocka_unit_test(a_2026_question_ends_the_call_and_the_retry_brings_the_answer),
        cmocka_unit_test(questions_of_one_round_go_together_and_answers_need_no_state),
        cmocka_unit_test(answers_are_checked_before_the_handler_sees_them),
        cmocka_unit_test(a_state_keeps_only_the_answers_taken),
        cmocka_unit_test(asks_waiting_do_not_starve_other_calls),
        cmocka_unit_test(one_client_keeps_at_most_64_calls_waiting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
