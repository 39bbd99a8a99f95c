/* SPDX-License-Identifier: MIT */
/* Session engine: initialize, version negotiation, ping, and the "only ping
 * before initialized" rules, in both roles, under a fake clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "peer.h"
#include "torture.h"

#define INIT(v)                                                                    \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"         \
    "\"protocolVersion\":\"" v "\",\"capabilities\":{},\"clientInfo\":{\"name\":"  \
    "\"c\",\"version\":\"1\"}}}"

static const char *negotiated(const char *init)
{
    static char version[32];
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    assert_int_equal(peer_feed(&p, init), MCP_OK);
    const mcp_message *r = peer_next(&p);
    assert_true(msg_is_result_for(r, 1));
    size_t n;
    const char *v = mcp_json_string(mcp_json_object_get(r->result, "protocolVersion"), &n);
    assert_non_null(v);
    snprintf(version, sizeof version, "%.*s", (int)n, v);
    assert_string_equal(mcp_session_protocol_version(p.s), version);
    peer_free(&p);
    return version;
}

static void server_answers_a_supported_requested_version(void **state)
{
    assert_string_equal(negotiated(INIT("2025-06-18")), "2025-06-18");
    assert_string_equal(negotiated(INIT("2025-11-25")), "2025-11-25");
}

static void server_answers_its_latest_for_an_unknown_version(void **state)
{
    assert_string_equal(negotiated(INIT("1999-01-01")), MCP_PROTOCOL_LATEST_LEGACY);
    /* initialize is the legacy handshake: asked for a modern revision, a
     * dual-era server answers with its newest legacy one. */
    assert_string_equal(negotiated(INIT("2026-07-28")), MCP_PROTOCOL_LATEST_LEGACY);
}

static void server_accepts_older_peers_in_their_version(void **state)
{
    assert_string_equal(negotiated(INIT("2025-03-26")), "2025-03-26");
    assert_string_equal(negotiated(INIT("2024-11-05")), "2024-11-05");
}

static void initialize_result_carries_capabilities_and_server_info(void **state)
{
    mcp_json_doc *caps;
    assert_int_equal(mcp_json_parse("{\"tools\":{\"listChanged\":false}}", 31, NULL, NULL,
                                    &caps, NULL), MCP_OK);
    mcp_session_options o = {.size = sizeof o, .name = "demo", .version = "9.9", .instructions = "be nice",
                             .capabilities = mcp_json_doc_root(caps)};
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, &o);
    mcp_json_doc_free(caps); /* copied by the session */
    peer_feed(&p, INIT("2025-11-25"));
    const mcp_message *r = peer_next(&p);
    const mcp_json *res = r->result;
    assert_non_null(mcp_json_object_get(mcp_json_object_get(res, "capabilities"), "tools"));
    const mcp_json *info = mcp_json_object_get(res, "serverInfo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(info, "name"), NULL), "demo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(info, "version"), NULL), "9.9");
    assert_string_equal(mcp_json_string(mcp_json_object_get(res, "instructions"), NULL), "be nice");
    /* The client's initialize params are kept for the application. */
    const mcp_json *client = mcp_json_object_get(mcp_session_peer_info(p.s), "clientInfo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(client, "name"), NULL), "c");
    peer_free(&p);
}

static void initialize_with_bad_params_gets_invalid_params(void **state)
{
    const char *bad[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,"
        "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        "\"2025-11-25\",\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\"}}}",
    };
    for (size_t i = 0; i < 4; i++) {
        peer p;
        peer_init(&p, MCP_ROLE_SERVER, NULL);
        peer_feed(&p, bad[i]);
        const mcp_message *r = peer_next(&p);
        assert_true(msg_is_error_for(r, 1, MCP_WIRE_INVALID_PARAMS));
        assert_false(mcp_session_ready(p.s));
        peer_free(&p);
    }
}

static void second_initialize_is_rejected(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-06-18");
    peer_feed(&p, INIT("2025-11-25"));
    assert_true(msg_is_error_for(peer_next(&p), 1, MCP_WIRE_INVALID_REQUEST));
    assert_string_equal(mcp_session_protocol_version(p.s), "2025-06-18");
    peer_free(&p);
}

static void requests_before_initialize_are_rejected_except_ping(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}");
    assert_true(msg_is_error_for(peer_next(&p), 5, MCP_WIRE_INVALID_REQUEST));
    assert_int_equal(p.nrequests, 0);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
    assert_true(msg_is_result_for(peer_next(&p), 6));
    peer_free(&p);
}

static void ping_is_answered_in_both_roles_at_any_time(void **state)
{
    peer c;
    peer_init(&c, MCP_ROLE_CLIENT, NULL);
    peer_feed(&c, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
    const mcp_message *r = peer_next(&c);
    assert_int_equal(r->kind, MCP_MESSAGE_RESULT);
    assert_int_equal(r->id.kind, MCP_ID_STRING);
    assert_int_equal(mcp_json_object_size(r->result), 0);
    assert_int_equal(c.nrequests, 0); /* the engine answered it */
    peer_free(&c);

    peer s;
    peer_init(&s, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&s, "2025-11-25");
    peer_feed(&s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"_meta\":{}}}");
    assert_true(msg_is_result_for(peer_next(&s), 9));
    peer_free(&s);
}

static void server_sends_only_ping_before_initialized_notification(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, INIT("2025-11-25"));
    peer_next(&p);
    mcp_handle h;
    assert_int_equal(peer_request(&p, "sampling/createMessage", "{}", NULL, &h), MCP_ERR_STATE);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(peer_request(&p, "ping", NULL, NULL, &h), MCP_OK);
    assert_true(msg_is_method(peer_next(&p), "ping"));
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assert_int_equal(peer_request(&p, "roots/list", NULL, NULL, &h), MCP_OK);
    peer_free(&p);
}

static void client_sends_only_ping_before_the_initialize_result(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    mcp_handle h;
    assert_int_equal(peer_request(&p, "tools/list", NULL, NULL, &h), MCP_ERR_STATE);
    assert_int_equal(peer_request(&p, "ping", NULL, NULL, &h), MCP_OK);
    /* initialize has a function of its own (mcp_session_connect). */
    assert_int_equal(peer_request(&p, "initialize", "{}", NULL, &h), MCP_ERR_INVALID_ARG);
    peer_free(&p);
}

static void client_sends_initialized_after_the_result(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    peer_client_ready(&p); /* asserts the notification follows the result */
    assert_string_equal(mcp_session_protocol_version(p.s), "2025-11-25");
    const mcp_json *info = mcp_json_object_get(mcp_session_peer_info(p.s), "serverInfo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(info, "name"), NULL), "s");
    mcp_handle h;
    assert_int_equal(peer_request(&p, "tools/list", NULL, NULL, &h), MCP_OK);
    peer_free(&p);
}

static void client_initialize_announces_latest_version_and_info(void **state)
{
    mcp_session_options o = {.size = sizeof o, .name = "cli", .version = "2.0"};
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, &o);
    assert_int_equal(mcp_session_initialize(p.s, p.now, 0, NULL, NULL), MCP_ERR_INVALID_ARG);
    peer_client_ready(&p);
    const mcp_message *init = peer_sent(&p, 0);
    assert_string_equal(mcp_json_string(mcp_json_object_get(init->params, "protocolVersion"), NULL),
                        MCP_PROTOCOL_LATEST_LEGACY);
    const mcp_json *ci = mcp_json_object_get(init->params, "clientInfo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(ci, "name"), NULL), "cli");
    assert_int_equal(mcp_json_typeof(mcp_json_object_get(init->params, "capabilities")),
                     MCP_JSON_OBJECT);
    /* No progress token on initialize. */
    assert_null(mcp_json_object_get(init->params, "_meta"));
    assert_int_equal(mcp_session_initialize(p.s, p.now, 0, NULL, NULL), MCP_ERR_STATE);
    peer_free(&p);
}

/* Record initialize endings for the tests below. */
static int init_outcome;
static int init_calls;
static void init_done(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    init_outcome = outcome;
    init_calls++;
}

static void client_refuses_unknown_version_in_the_result(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    init_calls = 0;
    assert_int_equal(mcp_session_initialize(p.s, p.now, 0, init_done, NULL), MCP_OK);
    const mcp_message *init = peer_next(&p);
    char result[200];
    snprintf(result, sizeof result,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"protocolVersion\":\"1999-01-01\","
             "\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}",
             (long long)init->id.num);
    peer_feed(&p, result);
    assert_int_equal(init_calls, 1);
    assert_int_equal(init_outcome, MCP_ERR_PROTOCOL);
    assert_false(mcp_session_ready(p.s));
    assert_int_equal(peer_unread(&p), 0); /* no initialized notification */
    peer_free(&p);
}

/* The capabilities a client declares are what the revision it asks for
 * defines (era table): 2025-06-18 has elicitation without URL mode, so
 * {"form":{},"url":{}} goes out as {}; a client that takes only URL mode
 * declares no elicitation there at all; 2025-11-25 and 2026-07-28 (the
 * envelope of every request) get the modes as given. */
static const mcp_json *declared(const char *version, const char *caps_json, mcp_json_doc **doc,
                                peer *p)
{
    assert_int_equal(mcp_json_parse(caps_json, strlen(caps_json), NULL, NULL, doc, NULL), MCP_OK);
    mcp_session_options o = {.size = sizeof o, .capabilities = mcp_json_doc_root(*doc)};
    peer_init(p, MCP_ROLE_CLIENT, &o);
    bool modern = mcp_protocol_modern(version);
    mcp_connect_options co = {.size = sizeof co,
                              .mode = modern ? MCP_CONNECT_MODERN : MCP_CONNECT_LEGACY,
                              .version = version};
    assert_int_equal(mcp_session_connect(p->s, p->now, &co, init_done, NULL), MCP_OK);
    const mcp_message *m = peer_next(p);
    assert_non_null(m);
    if (!modern)
        return mcp_json_object_get(m->params, "capabilities");
    return mcp_json_object_get(mcp_json_object_get(m->params, "_meta"),
                               "io.modelcontextprotocol/clientCapabilities");
}

static void client_capabilities_follow_the_revision(void **state)
{
    static const struct {
        const char *version, *caps, *elicitation; /* NULL: none declared */
    } cases[] = {
        {"2025-06-18", "{\"sampling\":{},\"elicitation\":{\"form\":{},\"url\":{}}}", "{}"},
        {"2025-06-18", "{\"sampling\":{},\"elicitation\":{}}", "{}"},
        {"2025-06-18", "{\"sampling\":{},\"elicitation\":{\"url\":{}}}", NULL},
        {"2025-11-25", "{\"sampling\":{},\"elicitation\":{\"form\":{},\"url\":{}}}",
         "{\"form\":{},\"url\":{}}"},
        {"2026-07-28", "{\"sampling\":{},\"elicitation\":{\"form\":{},\"url\":{}}}",
         "{\"form\":{},\"url\":{}}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        peer p;
        mcp_json_doc *doc;
        const mcp_json *caps = declared(cases[i].version, cases[i].caps, &doc, &p);
        assert_int_equal(mcp_json_typeof(caps), MCP_JSON_OBJECT);
        assert_non_null(mcp_json_object_get(caps, "sampling"));
        const mcp_json *e = mcp_json_object_get(caps, "elicitation");
        if (!cases[i].elicitation) {
            assert_null(e);
        } else {
            mcp_json_doc *want;
            assert_int_equal(mcp_json_parse(cases[i].elicitation, strlen(cases[i].elicitation), NULL,
                                            NULL, &want, NULL),
                             MCP_OK);
            assert_true(mcp_json_equal(e, mcp_json_doc_root(want)));
            mcp_json_doc_free(want);
        }
        peer_free(&p);
        mcp_json_doc_free(doc);
    }
}

/* queue_requests: requests made while connecting wait, then go out after
 * notifications/initialized, in order, under the handles they got; one
 * cancelled meanwhile never goes out; a failed connect ends the rest. */
static void requests_may_wait_for_the_connect(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    init_calls = 0;
    mcp_connect_options co = {.size = sizeof co, .mode = MCP_CONNECT_LEGACY,
                              .queue_requests = true};
    assert_int_equal(mcp_session_connect(p.s, p.now, &co, init_done, NULL), MCP_OK);
    const mcp_message *init = peer_next(&p);
    mcp_handle a = 0, b = 0, c = 0;
    assert_int_equal(peer_request(&p, "tools/call", "{\"name\":\"a\"}", NULL, &a), MCP_OK);
    assert_int_equal(peer_request(&p, "tools/call", "{\"name\":\"b\"}", NULL, &b), MCP_OK);
    assert_int_equal(peer_request(&p, "tools/list", NULL, NULL, &c), MCP_OK);
    assert_int_equal(peer_unread(&p), 0); /* nothing before the connect */
    assert_int_equal(mcp_session_cancel(p.s, p.now, b, "changed my mind"), MCP_OK);
    int k = peer_response_index(&p, b);
    assert_true(k >= 0 && p.outcomes[k] == MCP_ERR_ABORTED);
    assert_int_equal(peer_unread(&p), 0); /* no cancel for what never went */
    char result[200];
    snprintf(result, sizeof result,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"protocolVersion\":\"2025-11-25\","
             "\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}",
             (long long)init->id.num);
    peer_feed(&p, result);
    assert_int_equal(init_outcome, MCP_OK);
    assert_true(msg_is_method(peer_next(&p), "notifications/initialized"));
    const mcp_message *first = peer_next(&p), *second = peer_next(&p);
    assert_true(msg_is_method(first, "tools/call"));
    assert_int_equal(first->id.num, (int64_t)a);
    assert_true(msg_is_method(second, "tools/list"));
    assert_int_equal(second->id.num, (int64_t)c);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);

    /* A connect that fails ends what waited. */
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    assert_int_equal(mcp_session_connect(p.s, p.now, &co, init_done, NULL), MCP_OK);
    peer_next(&p);
    assert_int_equal(peer_request(&p, "tools/call", "{\"name\":\"a\"}", NULL, &a), MCP_OK);
    mcp_session_close(p.s, p.now);
    k = peer_response_index(&p, a);
    assert_true(k >= 0 && p.outcomes[k] == MCP_ERR_CLOSED);
    peer_free(&p);
    /* Only the legacy handshake waits like this. */
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    co.mode = MCP_CONNECT_AUTO;
    assert_int_equal(mcp_session_connect(p.s, p.now, &co, init_done, NULL), MCP_ERR_INVALID_ARG);
    peer_free(&p);
}

static void initialize_timeout_settles_locally_without_a_cancel(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    init_calls = 0;
    assert_int_equal(mcp_session_initialize(p.s, p.now, 500, init_done, NULL), MCP_OK);
    peer_next(&p);
    assert_int_equal(mcp_session_next_deadline(p.s), p.now + 500);
    peer_advance(&p, 499);
    assert_int_equal(init_calls, 0);
    peer_advance(&p, 1);
    assert_int_equal(init_calls, 1);
    assert_int_equal(init_outcome, MCP_ERR_TIMED_OUT);
    assert_int_equal(peer_unread(&p), 0); /* initialize is never cancelled */
    peer_free(&p);
}

static void aborting_initialize_sends_nothing(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    init_calls = 0;
    assert_int_equal(mcp_session_initialize(p.s, p.now, 0, init_done, NULL), MCP_OK);
    const mcp_message *init = peer_next(&p);
    assert_int_equal(mcp_session_cancel(p.s, p.now, (mcp_handle)init->id.num, "user"), MCP_OK);
    assert_int_equal(init_outcome, MCP_ERR_ABORTED);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void server_never_honours_a_cancel_of_initialize(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, INIT("2025-11-25"));
    peer_next(&p);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                  "{\"requestId\":1,\"reason\":\"x\"}}");
    assert_true(mcp_session_ready(p.s));
    assert_int_equal(p.ncancels, 0);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_CANCEL_IGNORED), 1);
    peer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(server_answers_a_supported_requested_version),
        cmocka_unit_test(server_answers_its_latest_for_an_unknown_version),
        cmocka_unit_test(server_accepts_older_peers_in_their_version),
        cmocka_unit_test(initialize_result_carries_capabilities_and_server_info),
        cmocka_unit_test(initialize_with_bad_params_gets_invalid_params),
        cmocka_unit_test(second_initialize_is_rejected),
        cmocka_unit_test(requests_before_initialize_are_rejected_except_ping),
        cmocka_unit_test(ping_is_answered_in_both_roles_at_any_time),
        cmocka_unit_test(server_sends_only_ping_before_initialized_notification),
        cmocka_unit_test(client_sends_only_ping_before_the_initialize_result),
        cmocka_unit_test(client_sends_initialized_after_the_result),
        cmocka_unit_test(client_initialize_announces_latest_version_and_info),
        cmocka_unit_test(client_refuses_unknown_version_in_the_result),
        cmocka_unit_test(client_capabilities_follow_the_revision),
        cmocka_unit_test(requests_may_wait_for_the_connect),
        cmocka_unit_test(initialize_timeout_settles_locally_without_a_cancel),
        cmocka_unit_test(aborting_initialize_sends_nothing),
        cmocka_unit_test(server_never_honours_a_cancel_of_initialize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
