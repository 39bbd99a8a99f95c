/* SPDX-License-Identifier: MIT */
/* Session engine: subscriptions/listen (2026-07-28), both roles. The
 * acknowledgment first, the subscription id verbatim on everything of the
 * stream, only what was asked for and is offered, several at once, the
 * client's cancel, the server's teardown (result, then cancel), and on the
 * client the demultiplexing and the one ending. One test per rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "peer.h"
#include "torture.h"

#define ENV "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
            "\"io.modelcontextprotocol/clientCapabilities\":{}"
#define LISTEN(id, filter)                                                              \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"subscriptions/listen\",\"params\":{" \
    "\"notifications\":" filter ",\"_meta\":{" ENV "}}}"
#define CANCEL(id) \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" id "}}"

static void server(peer *p, unsigned kinds)
{
    mcp_session_options o = {.size = sizeof o, .listen_kinds = kinds};
    peer_init(p, MCP_ROLE_SERVER, &o);
}

static const mcp_json *subscription_of(const mcp_message *m)
{
    const mcp_json *holder = m->kind == MCP_MESSAGE_RESULT ? m->result : m->params;
    return mcp_json_object_get(mcp_json_object_get(holder, "_meta"),
                               "io.modelcontextprotocol/subscriptionId");
}

/* Server ------------------------------------------------------------------------ */

static void the_acknowledgment_comes_first_with_the_id_verbatim(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS);
    peer_feed(&p, LISTEN("\"listen:0\"", "{\"toolsListChanged\":true,\"promptsListChanged\":true}"));
    assert_int_equal(p.nrequests, 0); /* served by the engine */
    assert_int_equal(mcp_session_listen_count(p.s), 1);
    const mcp_message *ack = peer_next(&p);
    assert_true(msg_is_method(ack, "notifications/subscriptions/acknowledged"));
    assert_string_equal(mcp_json_string(subscription_of(ack), NULL), "listen:0");
    /* Only what the server offers: prompts are not in its kinds. */
    const mcp_json *n = mcp_json_object_get(ack->params, "notifications");
    bool on = false;
    assert_int_equal(mcp_json_get_bool(mcp_json_object_get(n, "toolsListChanged"), &on), MCP_OK);
    assert_true(on);
    assert_null(mcp_json_object_get(n, "promptsListChanged"));
    /* A numeric id stays a number. */
    peer_feed(&p, LISTEN("7", "{\"toolsListChanged\":true}"));
    ack = peer_next(&p);
    int64_t id;
    assert_int_equal(mcp_json_get_int64(subscription_of(ack), &id), MCP_OK);
    assert_int_equal(id, 7);
    peer_free(&p);
}

static void only_what_was_asked_for_is_sent(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS | MCP_LISTEN_PROMPTS | MCP_LISTEN_RESOURCE_UPDATES);
    peer_feed(&p, LISTEN("1", "{\"toolsListChanged\":true}"));
    peer_feed(&p, LISTEN("2", "{\"resourceSubscriptions\":[\"file:///a\"]}"));
    peer_next(&p);
    peer_next(&p);
    assert_int_equal(mcp_session_publish(p.s, MCP_LISTEN_PROMPTS, NULL), 0);
    assert_int_equal(mcp_session_publish(p.s, MCP_LISTEN_RESOURCE_UPDATES, "file:///b"), 0);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(mcp_session_publish(p.s, MCP_LISTEN_TOOLS, NULL), 1);
    const mcp_message *n = peer_next(&p);
    assert_true(msg_is_method(n, "notifications/tools/list_changed"));
    int64_t id;
    assert_int_equal(mcp_json_get_int64(subscription_of(n), &id), MCP_OK);
    assert_int_equal(id, 1);
    assert_int_equal(mcp_session_publish(p.s, MCP_LISTEN_RESOURCE_UPDATES, "file:///a"), 1);
    n = peer_next(&p);
    assert_true(msg_is_method(n, "notifications/resources/updated"));
    assert_string_equal(mcp_json_string(mcp_json_object_get(n->params, "uri"), NULL), "file:///a");
    assert_int_equal(mcp_json_get_int64(subscription_of(n), &id), MCP_OK);
    assert_int_equal(id, 2);
    assert_int_equal(mcp_session_publish(p.s, 99, NULL), MCP_ERR_INVALID_ARG);
    peer_free(&p);
}

static void several_subscriptions_each_hear_it_under_their_own_id(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS);
    peer_feed(&p, LISTEN("1", "{\"toolsListChanged\":true}"));
    peer_feed(&p, LISTEN("\"b\"", "{\"toolsListChanged\":true}"));
    peer_next(&p);
    peer_next(&p);
    assert_int_equal(mcp_session_publish(p.s, MCP_LISTEN_TOOLS, NULL), 2);
    bool saw_int = false, saw_str = false;
    for (int i = 0; i < 2; i++) {
        const mcp_json *sid = subscription_of(peer_next(&p));
        saw_int |= mcp_json_typeof(sid) == MCP_JSON_NUMBER;
        saw_str |= mcp_json_typeof(sid) == MCP_JSON_STRING;
    }
    assert_true(saw_int && saw_str);
    peer_free(&p);
}

static void the_clients_cancel_ends_it_and_nothing_follows(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS);
    peer_feed(&p, LISTEN("1", "{\"toolsListChanged\":true}"));
    peer_next(&p);
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(mcp_session_listen_count(p.s), 0);
    assert_int_equal(mcp_session_inbound_count(p.s), 0);
    assert_int_equal(p.ncancels, 0); /* the application never saw it */
    assert_int_equal(mcp_session_publish(p.s, MCP_LISTEN_TOOLS, NULL), 0);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void the_servers_teardown_is_a_result_then_a_cancel(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS);
    peer_feed(&p, LISTEN("\"s1\"", "{\"toolsListChanged\":true}"));
    const char on_route[] = LISTEN("9", "{\"toolsListChanged\":true}");
    mcp_session_receive(p.s, p.now, 4, on_route, sizeof on_route - 1);
    peer_next(&p);
    peer_next(&p);
    assert_int_equal(mcp_session_end_listens(p.s, p.now, "shutting down"), 2);
    assert_int_equal(mcp_session_listen_count(p.s), 0);
    /* Route 0 (a stream shared by every request): result, then cancel. On a
     * stream of its own (route 4): the result alone. */
    int results = 0, cancels = 0;
    for (int i = 0; i < p.nsent; i++) {
        const mcp_message *m = p.sent[i].msg;
        if (m->kind == MCP_MESSAGE_RESULT) {
            results++;
            assert_true(mcp_json_typeof(subscription_of(m)) != MCP_JSON_NULL);
            const char *t = mcp_json_string(mcp_json_object_get(m->result, "resultType"), NULL);
            assert_true(t && !strcmp(t, "complete"));
        }
        if (msg_is_method(m, "notifications/cancelled")) {
            cancels++;
            assert_int_equal(p.sent[i].route, 0);
            assert_true(i > 0 && p.sent[i - 1].msg->kind == MCP_MESSAGE_RESULT);
            assert_string_equal(mcp_json_string(mcp_json_object_get(m->params, "requestId"), NULL),
                                "s1");
        }
    }
    assert_int_equal(results, 2);
    assert_int_equal(cancels, 1);
    peer_free(&p);
}

static void a_bad_filter_is_invalid_params(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS);
    peer_feed(&p, LISTEN("1", "[]"));
    peer_feed(&p, LISTEN("2", "{\"toolsListChanged\":\"yes\"}"));
    peer_feed(&p, LISTEN("3", "{\"resourceSubscriptions\":[1]}"));
    for (int id = 1; id <= 3; id++)
        assert_true(msg_is_error_for(peer_next(&p), id, MCP_WIRE_INVALID_PARAMS));
    assert_int_equal(mcp_session_listen_count(p.s), 0);
    peer_free(&p);
}

static void a_legacy_client_hears_list_changes_the_2025_way(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS);
    peer_server_ready(&p, "2025-11-25");
    assert_int_equal(mcp_session_publish(p.s, MCP_LISTEN_TOOLS, NULL), 1);
    const mcp_message *n = peer_next(&p);
    assert_true(msg_is_method(n, "notifications/tools/list_changed"));
    assert_null(n->params);
    peer_free(&p);
}

static void closing_ends_subscriptions_silently(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS);
    peer_feed(&p, LISTEN("1", "{\"toolsListChanged\":true}"));
    peer_next(&p);
    mcp_session_close(p.s, p.now);
    assert_int_equal(mcp_session_listen_count(p.s), 0);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

/* on_listen: each listen told open once it is acknowledged, with the URIs
 * it receives updates for, and its end once, however it ends; a refused
 * one neither. */
static void the_application_is_told_each_listen_and_its_end_once(void **state)
{
    peer p;
    server(&p, MCP_LISTEN_TOOLS | MCP_LISTEN_RESOURCE_UPDATES);
    peer_feed(&p, LISTEN("1", "{\"resourceSubscriptions\":[\"file:///a\",\"file:///b\"]}"));
    assert_int_equal(p.listens_opened, 1);
    assert_int_equal(p.listen_last_uris, 2);
    mcp_handle first = p.listen_last;
    peer_feed(&p, LISTEN("2", "{\"toolsListChanged\":true}"));
    assert_int_equal(p.listens_opened, 2);
    assert_int_equal(p.listen_last_uris, 0);
    peer_feed(&p, LISTEN("3", "{\"resourceSubscriptions\":[1]}"));
    assert_int_equal(p.listens_opened, 2); /* refused: -32602 */
    assert_int_equal(p.listens_ended, 0);
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(p.listens_ended, 1);
    assert_true(p.listen_last == first);
    assert_int_equal(p.listen_last_uris, 2);
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(p.listens_ended, 1); /* once */
    mcp_session_close(p.s, p.now);
    assert_int_equal(p.listens_ended, 2); /* the session's end ends the other */
    peer_free(&p);
    assert_int_equal(p.listens_ended, 2);
    /* A session freed without a close tells its listens' end too. */
    server(&p, MCP_LISTEN_TOOLS);
    peer_feed(&p, LISTEN("1", "{\"toolsListChanged\":true}"));
    assert_int_equal(p.listens_opened, 1);
    peer_free(&p);
    assert_int_equal(p.listens_ended, 1);
}

/* Client -------------------------------------------------------------------------- */

typedef struct events {
    int acks, notes, ends, outcome;
    unsigned kinds;
    char last[64];
} events;

static void on_listen(void *ud, mcp_handle h, const mcp_listen_event *ev)
{
    events *e = ud;
    assert_int_equal(e->ends, 0); /* nothing after the end */
    if (ev->kind == MCP_LISTEN_ACKNOWLEDGED) {
        e->acks++;
        e->kinds = ev->kinds;
    } else if (ev->kind == MCP_LISTEN_NOTIFICATION) {
        assert_true(e->acks == 1);
        e->notes++;
        snprintf(e->last, sizeof e->last, "%s", ev->message->method);
    } else {
        e->ends++;
        e->outcome = ev->outcome;
    }
}

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    *(int *)ud = outcome;
}

static void modern_client(peer *p)
{
    peer_init(p, MCP_ROLE_CLIENT, NULL);
    int outcome = 1;
    mcp_connect_options o = {.size = sizeof o, .mode = MCP_CONNECT_MODERN};
    mcp_session_connect(p->s, p->now, &o, connected, &outcome);
    const mcp_message *d = peer_next(p);
    char line[300];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"resultType\":\"complete\","
             "\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}}}",
             (long long)d->id.num);
    peer_feed(p, line);
    assert_int_equal(outcome, MCP_OK);
}

static mcp_handle listen_for_tools(peer *p, events *e)
{
    memset(e, 0, sizeof *e);
    mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS};
    mcp_handle h = 0;
    assert_int_equal(mcp_session_listen(p->s, p->now, &f, on_listen, e, &h), MCP_OK);
    const mcp_message *req = peer_next(p);
    assert_true(msg_is_method(req, "subscriptions/listen"));
    bool on = false;
    mcp_json_get_bool(mcp_json_object_get(mcp_json_object_get(req->params, "notifications"),
                                          "toolsListChanged"),
                      &on);
    assert_true(on);
    assert_non_null(mcp_json_object_get(mcp_json_object_get(req->params, "_meta"),
                                        "io.modelcontextprotocol/protocolVersion"));
    return h;
}

static void feed_note(peer *p, const char *method, const char *sid)
{
    char line[400];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"%s\",\"params\":{\"notifications\":"
             "{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%s}}}",
             method, sid);
    peer_feed(p, line);
}

static void a_client_needs_the_acknowledgment_before_anything_else(void **state)
{
    peer p;
    modern_client(&p);
    events e;
    mcp_handle h = listen_for_tools(&p, &e);
    char sid[32];
    snprintf(sid, sizeof sid, "%llu", (unsigned long long)h);
    feed_note(&p, "notifications/tools/list_changed", sid); /* before the ack: dropped */
    assert_int_equal(e.notes, 0);
    feed_note(&p, "notifications/subscriptions/acknowledged", sid);
    assert_int_equal(e.acks, 1);
    assert_int_equal(e.kinds, MCP_LISTEN_TOOLS);
    feed_note(&p, "notifications/tools/list_changed", sid);
    assert_int_equal(e.notes, 1);
    assert_string_equal(e.last, "notifications/tools/list_changed");
    assert_int_equal(p.notifications, 0); /* consumed, not handed on */
    peer_free(&p);
}

static void feed_update(peer *p, const char *uri, const char *sid)
{
    char line[400];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":"
             "{\"uri\":\"%s\",\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":%s}}}",
             uri, sid);
    peer_feed(p, line);
}

static void only_the_notifications_asked_for_reach_the_callback(void **state)
{
    peer p;
    modern_client(&p);
    events e;
    memset(&e, 0, sizeof e);
    const char *uris[] = {"file:///a", "file:///b"};
    mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS, .resource_uris = uris,
                           .resource_count = 2};
    mcp_handle h = 0;
    assert_int_equal(mcp_session_listen(p.s, p.now, &f, on_listen, &e, &h), MCP_OK);
    assert_true(msg_is_method(peer_next(&p), "subscriptions/listen"));
    char sid[32];
    snprintf(sid, sizeof sid, "%llu", (unsigned long long)h);
    feed_note(&p, "notifications/subscriptions/acknowledged", sid);
    assert_int_equal(e.acks, 1);
    /* A server that sends more than it was asked for: not passed on. */
    feed_note(&p, "notifications/prompts/list_changed", sid);
    feed_note(&p, "notifications/resources/list_changed", sid);
    feed_update(&p, "file:///other", sid);
    feed_update(&p, "file:///ab", sid);
    assert_int_equal(e.notes, 0);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_DROPPED), 4);
    /* What was asked for is. */
    feed_note(&p, "notifications/tools/list_changed", sid);
    feed_update(&p, "file:///b", sid);
    assert_int_equal(e.notes, 2);
    assert_string_equal(e.last, "notifications/resources/updated");
    peer_free(&p);
}

static void two_subscriptions_are_told_apart(void **state)
{
    peer p;
    modern_client(&p);
    events a, b;
    mcp_handle ha = listen_for_tools(&p, &a), hb = listen_for_tools(&p, &b);
    char sa[32], sb[32];
    snprintf(sa, sizeof sa, "%llu", (unsigned long long)ha);
    /* An earlier draft sent the id as a string: accepted for our ids. */
    snprintf(sb, sizeof sb, "\"%llu\"", (unsigned long long)hb);
    feed_note(&p, "notifications/subscriptions/acknowledged", sa);
    feed_note(&p, "notifications/subscriptions/acknowledged", sb);
    feed_note(&p, "notifications/tools/list_changed", sb);
    assert_int_equal(a.notes, 0);
    assert_int_equal(b.notes, 1);
    feed_note(&p, "notifications/tools/list_changed", "\"x9\"");   /* nobody's */
    feed_note(&p, "notifications/tools/list_changed", "123456"); /* nobody's */
    assert_int_equal(a.notes + b.notes, 1);
    peer_free(&p);
}

static void the_servers_result_and_cancel_end_it_once(void **state)
{
    peer p;
    modern_client(&p);
    events e;
    mcp_handle h = listen_for_tools(&p, &e);
    char line[300];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"result\":{\"resultType\":\"complete\"}}",
             (unsigned long long)h);
    peer_feed(&p, line);
    snprintf(line, sizeof line, CANCEL("%llu"), (unsigned long long)h);
    peer_feed(&p, line);
    assert_int_equal(e.ends, 1);
    assert_int_equal(e.outcome, MCP_OK);
    /* Either one alone ends it too. */
    h = listen_for_tools(&p, &e);
    snprintf(line, sizeof line, CANCEL("%llu"), (unsigned long long)h);
    peer_feed(&p, line);
    assert_int_equal(e.ends, 1);
    assert_int_equal(e.outcome, MCP_OK);
    assert_int_equal(mcp_session_outbound_count(p.s), 0);
    peer_free(&p);
}

static void a_cancel_naming_it_as_a_decimal_string_ends_it(void **state)
{
    peer p;
    modern_client(&p);
    events e;
    mcp_handle h = listen_for_tools(&p, &e);
    char line[200];
    snprintf(line, sizeof line, CANCEL("\"%llu\""), (unsigned long long)h);
    peer_feed(&p, line);
    assert_int_equal(e.ends, 1);
    assert_int_equal(e.outcome, MCP_OK);
    peer_free(&p);
}

static void our_cancel_goes_on_the_wire_and_ends_it(void **state)
{
    peer p;
    modern_client(&p);
    events e;
    mcp_handle h = listen_for_tools(&p, &e);
    peer_advance(&p, 10 * 60 * 1000); /* no timeout on a subscription */
    assert_int_equal(e.ends, 0);
    assert_int_equal(mcp_session_cancel(p.s, p.now, h, "bye"), MCP_OK);
    assert_int_equal(e.ends, 1);
    assert_int_equal(e.outcome, MCP_ERR_ABORTED);
    const mcp_message *c = peer_next(&p);
    assert_true(msg_is_method(c, "notifications/cancelled"));
    int64_t rid;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(c->params, "requestId"), &rid),
                     MCP_OK);
    assert_int_equal((mcp_handle)rid, h);
    peer_free(&p);
}

static void closing_ends_it_closed(void **state)
{
    peer p;
    modern_client(&p);
    events e;
    listen_for_tools(&p, &e);
    mcp_session_close(p.s, p.now);
    assert_int_equal(e.ends, 1);
    assert_int_equal(e.outcome, MCP_ERR_CLOSED);
    peer_free(&p);
}

static void listening_needs_a_modern_connection_and_a_filter(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    peer_client_ready(&p); /* legacy */
    events e;
    mcp_listen_filter f = {.size = sizeof f, .kinds = MCP_LISTEN_TOOLS};
    mcp_handle h;
    assert_int_equal(mcp_session_listen(p.s, p.now, &f, on_listen, &e, &h), MCP_ERR_STATE);
    peer_free(&p);
    modern_client(&p);
    mcp_listen_filter none = {.size = sizeof none};
    assert_int_equal(mcp_session_listen(p.s, p.now, &none, on_listen, &e, &h),
                     MCP_ERR_INVALID_ARG);
    peer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_acknowledgment_comes_first_with_the_id_verbatim),
        cmocka_unit_test(only_what_was_asked_for_is_sent),
        cmocka_unit_test(several_subscriptions_each_hear_it_under_their_own_id),
        cmocka_unit_test(the_clients_cancel_ends_it_and_nothing_follows),
        cmocka_unit_test(the_servers_teardown_is_a_result_then_a_cancel),
        cmocka_unit_test(a_bad_filter_is_invalid_params),
        cmocka_unit_test(a_legacy_client_hears_list_changes_the_2025_way),
        cmocka_unit_test(closing_ends_subscriptions_silently),
        cmocka_unit_test(the_application_is_told_each_listen_and_its_end_once),
        cmocka_unit_test(a_client_needs_the_acknowledgment_before_anything_else),
        cmocka_unit_test(only_the_notifications_asked_for_reach_the_callback),
        cmocka_unit_test(two_subscriptions_are_told_apart),
        cmocka_unit_test(the_servers_result_and_cancel_end_it_once),
        cmocka_unit_test(a_cancel_naming_it_as_a_decimal_string_ends_it),
        cmocka_unit_test(our_cancel_goes_on_the_wire_and_ends_it),
        cmocka_unit_test(closing_ends_it_closed),
        cmocka_unit_test(listening_needs_a_modern_connection_and_a_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
