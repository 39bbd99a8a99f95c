/* SPDX-License-Identifier: MIT */
/* Session engine: the peer's requests. Registration before dispatch, one
 * settle per request, nothing after a cancel, cancel routing, progress we
 * send, and bad input. One test per rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peer.h"
#include "torture.h"

#define CALL(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}"
#define CALL_TOKEN(id, tok)                                                           \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"," \
    "\"_meta\":{\"progressToken\":" tok "}}}"
#define CANCEL(id) \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" id "}}"
#define CANCEL_R(id, r)                                                                 \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" id \
    ",\"reason\":\"" r "\"}}"

static void ready_server(peer *p)
{
    peer_init(p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(p, "2025-11-25");
}

/* Registration -------------------------------------------------------------- */

static int nested_cancel_seen;
static void cancel_from_inside_handler(peer *p, mcp_handle h, const mcp_message *m)
{
    /* A cancel arriving while the handler is being started finds it. */
    peer_feed(p, CANCEL("1"));
    nested_cancel_seen = p->ncancels;
}

static void request_is_registered_before_its_handler_runs(void **state)
{
    peer p;
    ready_server(&p);
    p.on_request_hook = cancel_from_inside_handler;
    nested_cancel_seen = 0;
    peer_feed(&p, CALL("1"));
    assert_int_equal(p.nrequests, 1);
    assert_int_equal(nested_cancel_seen, 1);
    assert_int_equal(p.cancels[0], p.requests[0]);
    assert_false(mcp_session_inbound_active(p.s, p.requests[0]));
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void duplicate_in_flight_id_is_rejected_without_disturbing_the_first(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("7"));
    peer_feed(&p, CALL("7"));
    assert_int_equal(p.nrequests, 1);
    assert_true(msg_is_error_for(peer_next(&p), 7, MCP_WIRE_INVALID_REQUEST));
    assert_true(mcp_session_inbound_active(p.s, p.requests[0]));
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_OK);
    assert_true(msg_is_result_for(peer_next(&p), 7));
    peer_free(&p);
}

static void requests_answered_at_once_check_the_id_too(void **state)
{
    /* ping, logging/setLevel, initialize and a 2026-07-28 server/discover
     * are answered without being registered; with 7 in flight each is
     * still refused, or the peer would get two responses for id 7. */
    static const char *const lines[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server/discover\",\"params\":{\"_meta\":{"
        "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        "\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
    };
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("7"));
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        peer_feed(&p, lines[i]);
        assert_true(msg_is_error_for(peer_next(&p), 7, MCP_WIRE_INVALID_REQUEST));
    }
    assert_int_equal(peer_unread(&p), 0);
    /* Another id is answered, and 7 ends once, with its own result. */
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
    assert_true(msg_is_result_for(peer_next(&p), 8));
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_OK);
    assert_true(msg_is_result_for(peer_next(&p), 7));
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void ids_of_different_json_types_are_different_requests(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("7"));
    peer_feed(&p, CALL("\"7\""));
    assert_int_equal(p.nrequests, 2);
    peer_feed(&p, CANCEL("\"7\""));
    assert_int_equal(p.ncancels, 1);
    assert_int_equal(p.cancels[0], p.requests[1]);
    assert_true(mcp_session_inbound_active(p.s, p.requests[0]));
    peer_free(&p);
}

static void id_zero_and_empty_string_are_cancellable(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("0"));
    peer_feed(&p, CALL("\"\""));
    peer_feed(&p, CANCEL("0"));
    peer_feed(&p, CANCEL("\"\""));
    assert_int_equal(p.ncancels, 2);
    assert_int_equal(mcp_session_inbound_count(p.s), 0);
    peer_free(&p);
}

static void requests_beyond_the_in_flight_cap_get_an_error(void **state)
{
    mcp_session_options o = {.size = sizeof o, .max_inbound = 2};
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, &o);
    peer_server_ready(&p, "2025-11-25");
    peer_feed(&p, CALL("1"));
    peer_feed(&p, CALL("2"));
    peer_feed(&p, CALL("3"));
    assert_int_equal(p.nrequests, 2);
    const mcp_message *e = peer_next(&p);
    assert_true(msg_is_error_for(e, 3, MCP_WIRE_INTERNAL_ERROR));
    assert_non_null(strstr(e->error_message, "limit 2"));
    mcp_session_reply(p.s, p.requests[0], NULL);
    peer_next(&p);
    peer_feed(&p, CALL("3")); /* room again */
    assert_int_equal(p.nrequests, 3);
    peer_free(&p);
}

static void many_requests_in_flight_are_all_found(void **state)
{
    peer p;
    mcp_session_options o = {.size = sizeof o, .max_inbound = 5000};
    peer_init(&p, MCP_ROLE_SERVER, &o);
    peer_server_ready(&p, "2025-11-25");
    p.nrequests = 0;
    /* More than one slab chunk and several index growths. */
    for (int i = 0; i < 3000; i++) {
        char line[128];
        snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":\"r%d\",\"method\":\"x\"}", i);
        peer_feed(&p, line);
        if (p.nrequests == PEER_MAX) { /* keep the recorder small */
            for (int k = 0; k < p.nrequests; k++)
                mcp_message_free(p.request_msgs[k]);
            p.nrequests = 0;
        }
    }
    assert_int_equal(mcp_session_inbound_count(p.s), 3000);
    for (int i = 0; i < 3000; i += 2) {
        char line[128];
        snprintf(line, sizeof line, CANCEL("\"r%d\""), i);
        peer_feed(&p, line);
        if (p.ncancels == PEER_MAX)
            p.ncancels = 0;
    }
    assert_int_equal(mcp_session_inbound_count(p.s), 1500);
    peer_feed(&p, CANCEL("\"r2999\""));
    assert_int_equal(mcp_session_inbound_count(p.s), 1499);
    peer_feed(&p, CANCEL("\"r2998\"")); /* already cancelled: ignored */
    assert_int_equal(mcp_session_inbound_count(p.s), 1499);
    peer_free(&p);
}

/* One settle ----------------------------------------------------------------- */

static void reply_settles_once_and_a_second_reply_is_dropped(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    mcp_handle h = p.requests[0];
    assert_int_equal(mcp_session_reply(p.s, h, NULL), MCP_OK);
    assert_true(msg_is_result_for(peer_next(&p), 1));
    assert_int_equal(mcp_session_reply(p.s, h, NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(mcp_session_reply_error(p.s, h, -32603, "x", NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    /* A cancel after the reply is ignored. */
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(p.ncancels, 0);
    peer_free(&p);
}

static void *data_in_cancel;
static void read_data_in_cancel(peer *p, mcp_handle h)
{
    data_in_cancel = mcp_session_inbound_data(p->s, h);
}

static void a_request_carries_the_applications_data_until_it_settles(void **state)
{
    peer p;
    ready_server(&p);
    p.on_cancel_hook = read_data_in_cancel;
    data_in_cancel = NULL;
    int one, two;
    peer_feed(&p, CALL("1"));
    peer_feed(&p, CALL("2"));
    mcp_handle h1 = p.requests[0], h2 = p.requests[1];
    assert_null(mcp_session_inbound_data(p.s, h1));
    assert_int_equal(mcp_session_set_inbound_data(p.s, h1, &one), MCP_OK);
    assert_int_equal(mcp_session_set_inbound_data(p.s, h2, &two), MCP_OK);
    assert_ptr_equal(mcp_session_inbound_data(p.s, h1), &one);
    assert_ptr_equal(mcp_session_inbound_data(p.s, h2), &two);
    /* Answered: forgotten, and no data may be set any more. */
    assert_int_equal(mcp_session_reply(p.s, h1, NULL), MCP_OK);
    assert_null(mcp_session_inbound_data(p.s, h1));
    assert_int_equal(mcp_session_set_inbound_data(p.s, h1, &one), MCP_ERR_NOT_FOUND);
    /* Cancelled: its on_cancel still finds it, nothing does afterwards. */
    peer_feed(&p, CANCEL("2"));
    assert_int_equal(p.ncancels, 1);
    assert_ptr_equal(data_in_cancel, &two);
    assert_null(mcp_session_inbound_data(p.s, h2));
    /* A slot used again does not inherit the data of the one before. */
    peer_feed(&p, CALL("3"));
    assert_null(mcp_session_inbound_data(p.s, p.requests[2]));
    assert_null(mcp_session_inbound_data(p.s, 0));
    peer_free(&p);
}

static void after_a_cancel_no_result_is_sent(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    peer_feed(&p, CANCEL_R("1", "user"));
    assert_int_equal(p.ncancels, 1);
    assert_string_equal(p.cancel_reasons[0], "user");
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(mcp_session_reply_raw(p.s, p.requests[0], "{}", 2), MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_DROPPED), 2);
    peer_free(&p);
}

static void a_reason_with_control_characters_makes_one_inert_log_line(void **state)
{
    /* A reason that would retitle a terminal and forge a second line: the
     * log line shows it escaped; the handler gets it as sent. */
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    peer_feed(&p, CANCEL_R("1", "x\\u001b]0;PWN\\u0007\\ny"));
    assert_string_equal(p.cancel_reasons[0], "x\x1b]0;PWN\x07\ny");
    const mcp_log_record *r = peer_last_log(&p, MCP_LOG_EVENT_CANCEL_RECEIVED);
    assert_non_null(r->message);
    assert_non_null(strstr(r->message, "reason=\"x\\x1b]0;PWN\\x07\\ny\""));
    for (const char *c = r->message; *c; c++)
        assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
    peer_free(&p);
}

/* A peer sending nothing but bad input gets 100 warnings, the last saying
 * the rest go to debug, then debug lines only (attack round 6, G6: 20,000
 * requests of a 2026 server were 2 MB of stderr). */
static void bad_input_warnings_are_capped(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    for (int i = 0; i < 150; i++)
        peer_feed(&p, CALL("1")); /* a duplicate id in flight, each time */
    int warn = 0, debug = 0;
    const char *last_warn = NULL;
    for (int i = 0; i < p.nlogs; i++) {
        if (p.logs[i].event != MCP_LOG_EVENT_BAD_INPUT)
            continue;
        if (p.logs[i].level >= MCP_LOG_WARNING) {
            warn++;
            last_warn = p.log_texts[i];
        } else {
            debug++;
        }
    }
    assert_int_equal(warn, 100);
    assert_int_equal(debug, 50);
    assert_true(last_warn && strstr(last_warn, "logged at debug level only"));
    peer_free(&p);
}

static void after_a_cancel_no_error_is_sent(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(mcp_session_reply_error(p.s, p.requests[0], -32603, "boom", NULL),
                     MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void after_a_cancel_no_progress_is_sent(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL_TOKEN("1", "\"tok\""));
    assert_int_equal(mcp_session_progress(p.s, p.requests[0], 1, NAN, NULL), MCP_OK);
    assert_true(msg_is_method(peer_next(&p), "notifications/progress"));
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(mcp_session_progress(p.s, p.requests[0], 2, NAN, NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static int reply_rc_in_cancel;
static void reply_from_cancel_hook(peer *p, mcp_handle h)
{
    reply_rc_in_cancel = mcp_session_reply(p->s, h, NULL);
}

static void reply_inside_on_cancel_is_dropped(void **state)
{
    peer p;
    ready_server(&p);
    p.on_cancel_hook = reply_from_cancel_hook;
    reply_rc_in_cancel = 0;
    peer_feed(&p, CALL("1"));
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(reply_rc_in_cancel, MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void reply_now(peer *p, mcp_handle h, const mcp_message *m)
{
    assert_int_equal(mcp_session_reply(p->s, h, NULL), MCP_OK);
}

static void reply_within_the_handler_is_sent_at_once(void **state)
{
    peer p;
    ready_server(&p);
    p.on_request_hook = reply_now;
    peer_feed(&p, CALL("1"));
    assert_true(msg_is_result_for(peer_next(&p), 1));
    assert_int_equal(mcp_session_inbound_count(p.s), 0);
    peer_feed(&p, CANCEL("1")); /* too late: ignored */
    assert_int_equal(p.ncancels, 0);
    peer_free(&p);
}

/* Receiving cancels ---------------------------------------------------------- */

static void cancel_for_an_unknown_id_is_ignored_without_reply(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    peer_feed(&p, CANCEL("2"));
    peer_feed(&p, CANCEL("\"1\""));
    assert_int_equal(p.ncancels, 0);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_CANCEL_IGNORED), 2);
    assert_int_equal(peer_last_log(&p, MCP_LOG_EVENT_CANCEL_IGNORED)->level, MCP_LOG_DEBUG);
    peer_free(&p);
}

static void cancel_for_a_finished_request_is_ignored(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    mcp_session_reply(p.s, p.requests[0], NULL);
    peer_next(&p);
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(p.ncancels, 0);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_CANCEL_IGNORED), 1);
    peer_free(&p);
}

static void malformed_cancels_are_ignored(void **state)
{
    const char *bad[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":null}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1.0}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":[1]}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,\"reason\":5}}",
        "{\"jsonrpc\":\"1.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":[1]}",
    };
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        peer_feed(&p, bad[i]);
    assert_int_equal(p.ncancels, 0);
    assert_int_equal(peer_unread(&p), 0); /* never answered */
    assert_true(mcp_session_inbound_active(p.s, p.requests[0]));
    peer_free(&p);
}

static void cancel_referring_to_our_own_request_is_ignored(void **state)
{
    /* The server cancels "request 2": on the client that id names one of
     * the client's own requests. It must not be touched. */
    peer c;
    peer_init(&c, MCP_ROLE_CLIENT, NULL);
    peer_client_ready(&c);
    mcp_handle h;
    peer_request(&c, "tools/call", "{\"name\":\"t\"}", NULL, &h);
    const mcp_message *req = peer_next(&c);
    char cancel[160];
    snprintf(cancel, sizeof cancel, CANCEL("%lld"), (long long)req->id.num);
    peer_feed(&c, cancel);
    assert_int_equal(peer_response_index(&c, h), -1);
    assert_int_equal(mcp_session_outbound_count(c.s), 1);
    assert_int_equal(peer_unread(&c), 0);
    peer_free(&c);
}

static void cancel_is_handled_on_arrival_ahead_of_pending_work(void **state)
{
    peer p;
    ready_server(&p);
    for (int i = 1; i <= 3; i++) {
        char line[128];
        snprintf(line, sizeof line, CALL("%d"), i);
        peer_feed(&p, line);
    }
    /* Nothing has been answered; the cancel for the middle one settles it
     * during this very call. */
    peer_feed(&p, CANCEL("2"));
    assert_int_equal(p.ncancels, 1);
    assert_int_equal(p.cancels[0], p.requests[1]);
    assert_true(mcp_session_inbound_active(p.s, p.requests[0]));
    assert_true(mcp_session_inbound_active(p.s, p.requests[2]));
    peer_free(&p);
}

static void cancel_is_logged_with_id_method_direction_reason_and_age(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("\"abc\""));
    p.now += 250;
    peer_feed(&p, CANCEL_R("\"abc\"", "stop now"));
    const mcp_log_record *r = peer_last_log(&p, MCP_LOG_EVENT_CANCEL_RECEIVED);
    assert_non_null(r);
    assert_int_equal(r->level, MCP_LOG_INFO);
    assert_string_equal(r->method, "tools/call");
    assert_string_equal(r->direction, "inbound");
    assert_string_equal(r->reason, "stop now");
    assert_int_equal(r->age_ms, 250);
    assert_non_null(strstr(r->message, "id=\"abc\""));
    assert_non_null(strstr(r->message, "age=250ms"));
    peer_free(&p);
}

static void close_cancels_every_inbound_request_with_connection_closed(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    peer_feed(&p, CALL("2"));
    mcp_session_close(p.s, p.now);
    assert_int_equal(p.ncancels, 2);
    assert_string_equal(p.cancel_reasons[0], "connection closed");
    assert_string_equal(p.cancel_reasons[1], "connection closed");
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_feed(&p, CALL("3")), MCP_ERR_STATE);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_CLOSED), 2);
    mcp_session_close(p.s, p.now); /* idempotent */
    assert_int_equal(p.ncancels, 2);
    peer_free(&p);
}

/* Progress we send ------------------------------------------------------------ */

static void progress_is_sent_only_when_the_request_carried_a_token(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    assert_int_equal(mcp_session_progress(p.s, p.requests[0], 1, 10, "x"), MCP_ERR_STATE);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void progress_values_must_increase(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL_TOKEN("1", "5"));
    mcp_handle h = p.requests[0];
    assert_int_equal(mcp_session_progress(p.s, h, 0.5, 2, NULL), MCP_OK);
    assert_int_equal(mcp_session_progress(p.s, h, 0.5, 2, NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_session_progress(p.s, h, 0.25, 2, NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_session_progress(p.s, h, NAN, 2, NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_session_progress(p.s, h, 1.5, INFINITY, NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_session_progress(p.s, h, 1.5, NAN, "\xFF"), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_session_progress(p.s, h, 1.5, NAN, "more"), MCP_OK);
    assert_int_equal(peer_unread(&p), 2);
    peer_free(&p);
}

static void progress_echoes_the_token_with_its_json_type(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL_TOKEN("1", "\"7\""));
    peer_feed(&p, CALL_TOKEN("2", "7"));
    mcp_session_progress(p.s, p.requests[0], 1, 3, "step one");
    mcp_session_progress(p.s, p.requests[1], 1, NAN, NULL);
    const mcp_message *a = peer_next(&p), *b = peer_next(&p);
    mcp_id ta, tb;
    assert_int_equal(mcp_id_from_json(mcp_json_object_get(a->params, "progressToken"), &ta), MCP_OK);
    assert_int_equal(mcp_id_from_json(mcp_json_object_get(b->params, "progressToken"), &tb), MCP_OK);
    assert_int_equal(ta.kind, MCP_ID_STRING);
    assert_int_equal(tb.kind, MCP_ID_INT);
    double total;
    assert_int_equal(mcp_json_get_double(mcp_json_object_get(a->params, "total"), &total), MCP_OK);
    assert_true(total == 3);
    assert_string_equal(mcp_json_string(mcp_json_object_get(a->params, "message"), NULL), "step one");
    assert_null(mcp_json_object_get(b->params, "total"));
    assert_null(mcp_json_object_get(b->params, "message"));
    peer_free(&p);
}

/* Bad input --------------------------------------------------------------------- */

static void invalid_json_gets_a_parse_error_with_null_id(void **state)
{
    peer p;
    ready_server(&p);
    assert_int_equal(peer_feed(&p, "{\"jsonrpc\":"), MCP_ERR_RPC_PARSE);
    const mcp_message *e = peer_next(&p);
    assert_int_equal(e->kind, MCP_MESSAGE_ERROR);
    assert_int_equal(e->id.kind, MCP_ID_NONE);
    assert_int_equal(e->error_code, MCP_WIRE_PARSE_ERROR);
    assert_non_null(strstr(e->error_message, "at byte"));
    peer_free(&p);
}

static void invalid_request_gets_invalid_request_with_its_id(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"x\",\"params\":[1]}");
    assert_true(msg_is_error_for(peer_next(&p), 4, MCP_WIRE_INVALID_REQUEST));
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}");
    const mcp_message *e = peer_next(&p);
    assert_int_equal(e->error_code, MCP_WIRE_INVALID_REQUEST);
    assert_int_equal(e->id.kind, MCP_ID_NONE);
    peer_free(&p);
}

static void bad_notifications_and_responses_are_never_answered(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":5}");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}"); /* unknown id */
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/unknown\"}");
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(p.notifications, 1);
    peer_free(&p);
}

static char last_sent[512];
static int capture_send(void *ud, uint64_t route, const char *data, size_t len)
{
    snprintf(last_sent, sizeof last_sent, "%.*s", (int)len, data);
    return MCP_OK;
}

static void method_without_a_handler_is_method_not_found(void **state)
{
    /* A client with no on_request answers every server request -32601. */
    mcp_session_options o = {.size = sizeof o, .role = MCP_ROLE_CLIENT};
    mcp_session_callbacks cb = {.size = sizeof cb, .send = capture_send};
    mcp_session *s;
    assert_int_equal(mcp_session_new(&o, &cb, &s), MCP_OK);
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"roots/list\"}";
    last_sent[0] = 0;
    mcp_session_receive(s, 0, 0, req, strlen(req));
    assert_non_null(strstr(last_sent, "\"id\":3"));
    assert_non_null(strstr(last_sent, "-32601"));
    assert_int_equal(mcp_session_inbound_count(s), 0);
    mcp_session_free(s);
}

static void batches_are_rejected_outside_2025_03_26(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}]");
    const mcp_message *e = peer_next(&p);
    assert_int_equal(e->error_code, MCP_WIRE_INVALID_REQUEST);
    assert_non_null(strstr(e->error_message, "2025-11-25"));
    assert_int_equal(p.nrequests, 0);
    peer_free(&p);
}

/* Element i of a batch answer, decoded (free it). */
static mcp_message *batch_item(const mcp_message *batch, size_t i)
{
    mcp_message *item = NULL;
    assert_int_equal(batch->kind, MCP_MESSAGE_BATCH);
    assert_int_equal(mcp_message_decode_batch_item(batch, i, NULL, &item, NULL), MCP_OK);
    return item;
}

static void batches_are_answered_with_one_array_under_2025_03_26(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-03-26");
    peer_feed(&p, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"},"
                  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},"
                  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"},"
                  "{\"jsonrpc\":\"2.0\",\"id\":3}]");
    assert_int_equal(p.nrequests, 1);
    /* Nothing until the last request of the batch settles... */
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_OK);
    /* ...then one array with every answer, in the order they came. */
    const mcp_message *batch = peer_next(&p);
    assert_non_null(batch);
    assert_int_equal(mcp_json_array_size(batch->batch), 3);
    mcp_message *a = batch_item(batch, 0), *b = batch_item(batch, 1), *c = batch_item(batch, 2);
    assert_true(msg_is_result_for(a, 2));
    assert_true(msg_is_error_for(b, 3, MCP_WIRE_INVALID_REQUEST));
    assert_true(msg_is_result_for(c, 1));
    mcp_message_free(a);
    mcp_message_free(b);
    mcp_message_free(c);
    assert_int_equal(peer_unread(&p), 0);
    /* A cancelled request of a batch has no answer in it; a batch of only
     * notifications gets no answer at all. */
    peer_feed(&p, "[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\"},"
                  "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}]");
    peer_feed(&p, CANCEL("4"));
    batch = peer_next(&p);
    assert_non_null(batch);
    assert_int_equal(mcp_json_array_size(batch->batch), 1);
    a = batch_item(batch, 0);
    assert_true(msg_is_result_for(a, 5));
    mcp_message_free(a);
    peer_feed(&p, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]");
    assert_int_equal(peer_unread(&p), 0);
    /* A batch on a route of its own whose every request is cancelled: no
     * array, and the route is ended (an HTTP POST must not wait for one);
     * a batch answered ends its route by its array alone. */
    const char both[] = "[{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\"},"
                        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}]";
    mcp_session_receive(p.s, p.now, 9, both, sizeof both - 1);
    peer_feed(&p, CANCEL("6"));
    assert_int_equal(p.nroutes_ended, 0); /* 7 still runs */
    peer_feed(&p, CANCEL("7"));
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(p.nroutes_ended, 1);
    assert_int_equal(p.routes_ended[0], 9);
    peer_feed(&p, "[]");
    const mcp_message *e = peer_next(&p);
    assert_true(e && e->kind == MCP_MESSAGE_ERROR && e->error_code == MCP_WIRE_INVALID_REQUEST);
    peer_free(&p);
}

static void feed_ping_on_route_5(peer *p, mcp_handle h, const mcp_message *m)
{
    const char ping[] = "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\"}";
    mcp_session_receive(p->s, p->now, 5, ping, sizeof ping - 1);
}

static void a_message_received_inside_a_batch_is_not_part_of_it(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-03-26");
    p.on_request_hook = feed_ping_on_route_5;
    peer_feed(&p, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}]");
    p.on_request_hook = NULL;
    /* The ping was answered at once, on its own route, on its own. */
    assert_int_equal(p.nsent, 2); /* initialize's result, then the pong */
    const mcp_message *pong = peer_next(&p);
    assert_true(msg_is_result_for(pong, 99));
    assert_int_equal(p.sent[1].route, 5);
    mcp_session_reply(p.s, p.requests[0], NULL);
    const mcp_message *batch = peer_next(&p);
    assert_true(batch && batch->kind == MCP_MESSAGE_BATCH);
    assert_int_equal(mcp_json_array_size(batch->batch), 1);
    peer_free(&p);
}

static void connection_stays_usable_after_bad_input(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    peer_feed(&p, "garbage");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}");
    peer_feed(&p, "\"\xC0\xAF\"");
    while (peer_unread(&p))
        peer_next(&p);
    assert_true(mcp_session_inbound_active(p.s, p.requests[0]));
    peer_feed(&p, CALL("2"));
    assert_int_equal(p.nrequests, 2);
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_OK);
    assert_true(msg_is_result_for(peer_next(&p), 1));
    peer_free(&p);
}

static void result_too_large_is_replaced_by_an_internal_error(void **state)
{
    peer p;
    ready_server(&p);
    peer_feed(&p, CALL("1"));
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    mcp_json *o = mcp_json_new_object(doc);
    static char big[(64u << 20) + 16];
    memset(big, 'x', sizeof big - 1);
    mcp_json_object_set(doc, o, "text", mcp_json_new_stringn(doc, big, sizeof big - 1));
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], o), MCP_ERR_LIMIT);
    assert_true(msg_is_error_for(peer_next(&p), 1, MCP_WIRE_INTERNAL_ERROR));
    assert_false(mcp_session_inbound_active(p.s, p.requests[0]));
    mcp_json_doc_free(doc);
    peer_free(&p);
}

/* Memory and reentrancy ----------------------------------------------------------- */

static void free_session(peer *p, mcp_handle h, const mcp_message *m)
{
    mcp_session_free(p->s);
    p->s = NULL;
}

static void free_inside_a_callback_is_deferred(void **state)
{
    /* Freed from inside on_request: the engine still runs code after the
     * callback returns, so the free must wait for it (ASan and valgrind
     * catch a use after free here), and then happen (nothing stays live). */
    failmalloc fm;
    failmalloc_init(&fm, 0);
    peer p;
    peer_init_mem(&p, MCP_ROLE_SERVER, NULL, &fm.mem);
    peer_server_ready(&p, "2025-11-25");
    p.on_request_hook = free_session;
    mcp_session *s = p.s;
    assert_int_equal(mcp_session_receive(s, p.now, 0, CALL("1"), strlen(CALL("1"))), MCP_OK);
    assert_null(p.s);
    peer_free(&p); /* drops the harness's reference to the request */
    assert_int_equal(fm.live, 0);
}

/* A whole exchange: initialize, requests, progress, cancel, replies, bad
 * input, close. Nothing asserted on the way: any step may meet a failed
 * allocation; the point is that none crashes or leaks. */
static void scenario(peer *p)
{
    peer_feed(p, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                 "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    peer_feed(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    peer_feed(p, CALL_TOKEN("1", "\"t\""));
    peer_feed(p, CALL("\"two\""));
    peer_feed(p, CALL("3"));
    peer_feed(p, "not json");
    if (p->nrequests > 0)
        mcp_session_progress(p->s, p->requests[0], 1, 2, "half");
    peer_feed(p, CANCEL_R("\"two\"", "bye"));
    if (p->nrequests > 2)
        mcp_session_reply(p->s, p->requests[2], NULL);
    mcp_session_close(p->s, p->now);
}

static void every_allocation_failure_is_survived_without_leaks(void **state)
{
    bool completed = false;
    for (long k = 1; k < 2000 && !completed; k++) {
        failmalloc fm;
        failmalloc_init(&fm, k);
        peer p;
        int rc = peer_try_init_mem(&p, MCP_ROLE_SERVER, NULL, &fm.mem);
        if (rc == MCP_OK) {
            scenario(&p);
            completed = !fm.failed;
            if (completed) /* the run without failures did everything */
                assert_int_equal(p.ncancels, 2); /* "two", then 1 at close */
        } else {
            assert_int_equal(rc, MCP_ERR_NOMEM);
            p.s = NULL;
        }
        peer_free(&p);
        /* The harness records with malloc; fm counts the session's own. */
        assert_int_equal(fm.live, 0);
    }
    assert_true(completed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(request_is_registered_before_its_handler_runs),
        cmocka_unit_test(duplicate_in_flight_id_is_rejected_without_disturbing_the_first),
        cmocka_unit_test(requests_answered_at_once_check_the_id_too),
        cmocka_unit_test(ids_of_different_json_types_are_different_requests),
        cmocka_unit_test(id_zero_and_empty_string_are_cancellable),
        cmocka_unit_test(requests_beyond_the_in_flight_cap_get_an_error),
        cmocka_unit_test(many_requests_in_flight_are_all_found),
        cmocka_unit_test(reply_settles_once_and_a_second_reply_is_dropped),
        cmocka_unit_test(a_request_carries_the_applications_data_until_it_settles),
        cmocka_unit_test(after_a_cancel_no_result_is_sent),
        cmocka_unit_test(a_reason_with_control_characters_makes_one_inert_log_line),
        cmocka_unit_test(bad_input_warnings_are_capped),
        cmocka_unit_test(after_a_cancel_no_error_is_sent),
        cmocka_unit_test(after_a_cancel_no_progress_is_sent),
        cmocka_unit_test(cancel_for_an_unknown_id_is_ignored_without_reply),
        cmocka_unit_test(cancel_for_a_finished_request_is_ignored),
        cmocka_unit_test(malformed_cancels_are_ignored),
        cmocka_unit_test(cancel_referring_to_our_own_request_is_ignored),
        cmocka_unit_test(cancel_is_handled_on_arrival_ahead_of_pending_work),
        cmocka_unit_test(cancel_is_logged_with_id_method_direction_reason_and_age),
        cmocka_unit_test(close_cancels_every_inbound_request_with_connection_closed),
        cmocka_unit_test(progress_is_sent_only_when_the_request_carried_a_token),
        cmocka_unit_test(progress_values_must_increase),
        cmocka_unit_test(progress_echoes_the_token_with_its_json_type),
        cmocka_unit_test(invalid_json_gets_a_parse_error_with_null_id),
        cmocka_unit_test(invalid_request_gets_invalid_request_with_its_id),
        cmocka_unit_test(bad_notifications_and_responses_are_never_answered),
        cmocka_unit_test(batches_are_rejected_outside_2025_03_26),
        cmocka_unit_test(batches_are_answered_with_one_array_under_2025_03_26),
        cmocka_unit_test(a_message_received_inside_a_batch_is_not_part_of_it),
        cmocka_unit_test(connection_stays_usable_after_bad_input),
        cmocka_unit_test(result_too_large_is_replaced_by_an_internal_error),
        cmocka_unit_test(reply_inside_on_cancel_is_dropped),
        cmocka_unit_test(reply_within_the_handler_is_sent_at_once),
        cmocka_unit_test(method_without_a_handler_is_method_not_found),
        cmocka_unit_test(free_inside_a_callback_is_deferred),
        cmocka_unit_test(every_allocation_failure_is_survived_without_leaks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
