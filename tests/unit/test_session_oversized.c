/* SPDX-License-Identifier: MIT */
/* Session engine: a message over the size cap, dropped by the transport,
 * whose first and last bytes remain. Its sender must not wait for a timeout:
 * a request gets -32600 at once, a response ends the request it answers
 * with MCP_ERR_TOO_LARGE, whichever end its id is at. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "peer.h"
#include "torture.h"

static void oversized(peer *p, const char *head, const char *tail)
{
    mcp_session_receive_oversized(p->s, p->now, 0, head, strlen(head), tail, strlen(tail), 4096);
}

static void a_request_with_its_id_first_is_answered_at_once(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-11-25");
    oversized(&p, "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"tools/call\",\"params\":{\"a\":\"xxxx",
              "xxxx\"}}");
    const mcp_message *e = peer_next(&p);
    assert_true(e && e->kind == MCP_MESSAGE_ERROR && e->error_code == MCP_WIRE_INVALID_REQUEST);
    assert_true(e->id.kind == MCP_ID_STRING && e->id.len == 3 && !memcmp(e->id.str, "big", 3));
    assert_non_null(strstr(e->error_message, "message exceeds 4096 bytes"));
    assert_int_equal(p.nrequests, 0);
    peer_free(&p);
}

static void a_request_with_its_id_last_is_answered_too(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-11-25");
    oversized(&p, "{\"params\":{\"a\":\"xxxx", "xxx\"},\"method\":\"tools/call\",\"jsonrpc\":\"2.0\",\"id\":42}");
    assert_true(msg_is_error_for(peer_next(&p), 42, MCP_WIRE_INVALID_REQUEST));
    peer_free(&p);
}

static void keys_are_read_as_the_parser_reads_them(void **state)
{
    /* "\u0069d" is "id" and "\u006dethod" is "method" to the parser, so
     * to the scan too, at either end; "i\u0064x" is not. */
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-11-25");
    oversized(&p, "{\"jsonrpc\":\"2.0\",\"\\u006dethod\":\"n\",\"params\":{\"t\":\"xx",
              "xx\"},\"\\u0069d\":68}");
    assert_true(msg_is_error_for(peer_next(&p), 68, MCP_WIRE_INVALID_REQUEST));
    oversized(&p, "{\"\\u0069\\u0064\":69,\"method\":\"n\",\"params\":{\"t\":\"xx", "xx\"}}");
    assert_true(msg_is_error_for(peer_next(&p), 69, MCP_WIRE_INVALID_REQUEST));
    int logs = peer_count_logs(&p, MCP_LOG_EVENT_BAD_INPUT);
    oversized(&p, "{\"method\":\"n\",\"params\":{\"t\":\"xx", "xx\"},\"i\\u0064x\":70}");
    oversized(&p, "{\"method\":\"n\",\"params\":{\"t\":\"xx", "xx\"},\"\\u0069\\ud800\":71}");
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_BAD_INPUT), logs + 2);
    peer_free(&p);
}

static void a_request_with_an_invalid_id_is_answered_with_a_null_id(void **state)
{
    /* As at any size: null, 66.5 and an object are no ids. */
    static const char *const heads[] = {
        "{\"id\":null,\"method\":\"n\",\"params\":{\"t\":\"xx",
        "{\"id\":66.5,\"method\":\"n\",\"params\":{\"t\":\"xx",
        "{\"id\":{\"a\":1},\"method\":\"n\",\"params\":{\"t\":\"xx",
    };
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-11-25");
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        oversized(&p, heads[i], "xx\"}}");
        const mcp_message *e = peer_next(&p);
        assert_true(e && e->kind == MCP_MESSAGE_ERROR && e->error_code == MCP_WIRE_INVALID_REQUEST);
        assert_int_equal(e->id.kind, MCP_ID_NONE);
    }
    /* The same ids at the end, where the scan reads backward, containers
     * included (the TypeScript SDKs put "id" last). */
    static const char *const tails[] = {
        "xx\"},\"method\":\"n\",\"id\":null}",
        "xx\"},\"method\":\"n\",\"id\":{\"a\":[1,\"}\\\"]\"]}}",
        "xx\"},\"method\":\"n\",\"id\":[]}",
    };
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        oversized(&p, "{\"jsonrpc\":\"2.0\",\"params\":{\"t\":\"xx", tails[i]);
        const mcp_message *e = peer_next(&p);
        assert_true(e && e->kind == MCP_MESSAGE_ERROR && e->error_code == MCP_WIRE_INVALID_REQUEST);
        assert_int_equal(e->id.kind, MCP_ID_NONE);
    }
    /* A long string id is an id, not an invalid one. */
    char head[3000];
    snprintf(head, sizeof head, "{\"id\":\"%02000d\",\"method\":\"n\",\"params\":{\"t\":\"xx", 7);
    oversized(&p, head, "xx\"}}");
    const mcp_message *e = peer_next(&p);
    assert_true(e && e->kind == MCP_MESSAGE_ERROR && e->id.kind == MCP_ID_STRING && e->id.len == 2000);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void a_message_whose_id_cannot_be_read_is_only_logged(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-11-25");
    int logs = peer_count_logs(&p, MCP_LOG_EVENT_BAD_INPUT);
    oversized(&p, "{\"params\":{\"a\":\"xx", "xx\"}}");                          /* no id at all */
    oversized(&p, "{\"method\":\"notifications/x\",\"params\":{\"a\":\"", "\"}}"); /* notification */
    /* An "id" inside the body is not the message's id. */
    oversized(&p, "{\"method\":\"m\",\"params\":{\"a\":\"", "\",\"b\":{\"id\":5}}}");
    oversized(&p, "garbage", "more garbage");
    oversized(&p, "", "");
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_BAD_INPUT), logs + 5);
    peer_free(&p);
}

static void a_response_too_large_ends_its_request_at_once(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    peer_client_ready(&p);
    mcp_handle a, b;
    peer_request(&p, "tools/call", NULL, NULL, &a);
    peer_request(&p, "tools/call", NULL, NULL, &b);
    char head[200], tail[200];
    snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"result\":{\"content\":\"",
             (unsigned long long)a);
    oversized(&p, head, "yyyy\"}}");
    int i = peer_response_index(&p, a);
    assert_true(i >= 0 && p.outcomes[i] == MCP_ERR_TOO_LARGE);
    /* The other one's id at the end, as some SDKs order members. */
    snprintf(tail, sizeof tail, "\"}},\"jsonrpc\":\"2.0\",\"id\":%llu}", (unsigned long long)b);
    oversized(&p, "{\"result\":{\"content\":\"", tail);
    i = peer_response_index(&p, b);
    assert_true(i >= 0 && p.outcomes[i] == MCP_ERR_TOO_LARGE);
    /* Answered, not abandoned: no cancel went out. */
    while (peer_unread(&p))
        assert_false(msg_is_method(peer_next(&p), "notifications/cancelled"));
    assert_int_equal(mcp_session_outbound_count(p.s), 0);
    peer_free(&p);
}

static void a_peer_request_whose_method_is_hidden_ends_nothing_of_ours(void **state)
{
    /* Both sides count ids from 1: the server's request 2 is no answer to
     * our request 2, even when its method cannot be seen. */
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    peer_client_ready(&p);
    mcp_handle h;
    peer_request(&p, "tools/call", NULL, NULL, &h);
    char head[100];
    snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"params\":{\"x\":\"",
             (unsigned long long)h);
    oversized(&p, head, "\"},\"x\":{}}");
    assert_int_equal(peer_response_index(&p, h), -1);
    assert_int_equal(mcp_session_outbound_count(p.s), 1);
    peer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_request_with_its_id_first_is_answered_at_once),
        cmocka_unit_test(a_request_with_its_id_last_is_answered_too),
        cmocka_unit_test(keys_are_read_as_the_parser_reads_them),
        cmocka_unit_test(a_request_with_an_invalid_id_is_answered_with_a_null_id),
        cmocka_unit_test(a_message_whose_id_cannot_be_read_is_only_logged),
        cmocka_unit_test(a_response_too_large_ends_its_request_at_once),
        cmocka_unit_test(a_peer_request_whose_method_is_hidden_ends_nothing_of_ours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
