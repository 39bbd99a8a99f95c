/* SPDX-License-Identifier: MIT */
/* Session engine: the entry points for the layers that run many short
 * sessions (session/entry.h): a message received already decoded, and a
 * closed session reset to serve another conversation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "peer.h"
#include "session/entry.h"

#define ENV "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
            "\"io.modelcontextprotocol/clientCapabilities\":{}"
#define MCALL(id)                                                                          \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"," \
    "\"_meta\":{" ENV "}}}"
#define CALL(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}"

static mcp_message *decoded(const char *json)
{
    mcp_message *m;
    mcp_decode_error err;
    assert_int_equal(mcp_message_decode(json, strlen(json), NULL, NULL, &m, &err), MCP_OK);
    return m;
}

static void a_decoded_message_is_handled_as_its_bytes_would_be(void **state)
{
    (void)state;
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    mcp_message *m = decoded(MCALL("1"));
    assert_int_equal(mcp__session_receive_message(p.s, p.now, 7, m), MCP_OK);
    mcp_message_free(m); /* the caller's reference: the session keeps its own */
    assert_int_equal(p.nrequests, 1);
    assert_string_equal(mcp_session_inbound_version(p.s, p.requests[0]), "2026-07-28");
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_OK);
    const mcp_message *r = peer_next(&p);
    assert_true(msg_is_result_for(r, 1));
    assert_int_equal(p.sent[0].route, 7);
    /* A notification and a response go where their bytes would. */
    m = decoded("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}");
    assert_int_equal(mcp__session_receive_message(p.s, p.now, 0, m), MCP_OK);
    mcp_message_free(m);
    assert_int_equal(p.notifications, 1);
    mcp_session_close(p.s, p.now);
    m = decoded(MCALL("2"));
    assert_int_equal(mcp__session_receive_message(p.s, p.now, 8, m), MCP_ERR_STATE);
    mcp_message_free(m);
    assert_int_equal(p.nrequests, 1);
    peer_free(&p);
}

static void a_reset_session_is_as_new_and_its_past_handles_stay_dead(void **state)
{
    (void)state;
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-06-18");
    peer_feed(&p, CALL("5"));
    assert_int_equal(p.nrequests, 1);
    mcp_handle old = p.requests[0];
    /* Open, or with a request in flight: refused, nothing changed. */
    assert_int_equal(mcp__session_reset(p.s), MCP_ERR_STATE);
    assert_true(mcp_session_ready(p.s));
    mcp_session_close(p.s, p.now);
    assert_int_equal(p.ncancels, 1);
    assert_int_equal(mcp__session_reset(p.s), MCP_OK);
    assert_false(mcp_session_closed(p.s));
    assert_false(mcp_session_ready(p.s));
    assert_null(mcp_session_protocol_version(p.s));
    /* Nothing of the last conversation: a request before initialize is
     * refused again, the handshake runs again, the same id is new. */
    while (peer_next(&p))
        ; /* what the first conversation was answered */
    peer_feed(&p, CALL("5"));
    assert_true(msg_is_error_for(peer_next(&p), 5, MCP_WIRE_INVALID_REQUEST));
    assert_int_equal(p.nrequests, 1);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                  "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                  "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    assert_true(msg_is_result_for(peer_next(&p), 0));
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assert_int_equal(p.initialized, 2);
    assert_string_equal(mcp_session_protocol_version(p.s), "2025-11-25");
    peer_feed(&p, CALL("5"));
    assert_int_equal(p.nrequests, 2);
    mcp_handle fresh = p.requests[1];
    assert_true(fresh != old);
    assert_int_not_equal(mcp_session_reply(p.s, old, NULL), MCP_OK);
    assert_int_equal(mcp_session_inbound_count(p.s), 1);
    assert_int_equal(mcp_session_reply(p.s, fresh, NULL), MCP_OK);
    assert_true(msg_is_result_for(peer_next(&p), 5));
    peer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_decoded_message_is_handled_as_its_bytes_would_be),
        cmocka_unit_test(a_reset_session_is_as_new_and_its_past_handles_stay_dead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
