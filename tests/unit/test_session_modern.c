/* SPDX-License-Identifier: MIT */
/* Session engine: revision 2026-07-28 beside the legacy ones. The era per
 * request, the envelope checked on every request, server/discover, result
 * decoration, who may cancel and send what, per-request logging, caching
 * hints, lost routes, and the client's dual-era connect. One test per
 * rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "failmalloc.h"
#include "peer.h"
#include "torture.h"

#define ENV "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
            "\"io.modelcontextprotocol/clientCapabilities\":{}"
/* A 2026-07-28 tools/call with id `id` and extra _meta members `meta`. */
#define MCALL(id, meta)                                                                    \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"," \
    "\"_meta\":{" ENV meta "}}}"
#define MREQ(id, method) \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"" method "\",\"params\":{\"_meta\":{" ENV "}}}"
#define CANCEL(id) \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" id "}}"

static const mcp_json *meta_of(const mcp_json *result)
{
    return mcp_json_object_get(result, "_meta");
}

static bool is_complete(const mcp_json *result)
{
    const char *t = mcp_json_string(mcp_json_object_get(result, "resultType"), NULL);
    return t && !strcmp(t, "complete");
}

/* Server ------------------------------------------------------------------------ */

static void a_modern_request_needs_no_initialize_and_its_result_is_decorated(void **state)
{
    mcp_session_options o = {.size = sizeof o, .name = "srv", .version = "3.1"};
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, &o);
    peer_feed(&p, MCALL("1", ""));
    assert_int_equal(p.nrequests, 1);
    assert_string_equal(mcp_session_inbound_version(p.s, p.requests[0]), "2026-07-28");
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_OK);
    const mcp_message *r = peer_next(&p);
    assert_true(msg_is_result_for(r, 1));
    assert_true(is_complete(r->result));
    const mcp_json *info = mcp_json_object_get(meta_of(r->result),
                                               "io.modelcontextprotocol/serverInfo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(info, "name"), NULL), "srv");
    assert_string_equal(mcp_json_string(mcp_json_object_get(info, "version"), NULL), "3.1");
    assert_false(mcp_session_ready(p.s)); /* no legacy handshake happened */
    peer_free(&p);
}

static void the_envelope_is_checked_on_every_request(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, MCALL("1", ""));
    assert_int_equal(p.nrequests, 1);
    /* The second request of the connection is checked as the first was. */
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"_meta\":"
                  "{\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"_meta\":"
                  "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"_meta\":"
                  "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                  "\"io.modelcontextprotocol/clientCapabilities\":[]}}}");
    peer_feed(&p, MCALL("5", ",\"io.modelcontextprotocol/clientInfo\":{\"name\":1}"));
    peer_feed(&p, MCALL("6", ",\"io.modelcontextprotocol/logLevel\":\"loud\""));
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"_meta\":"
                  "{\"io.modelcontextprotocol/protocolVersion\":7,"
                  "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    for (int id = 2; id <= 7; id++)
        assert_true(msg_is_error_for(peer_next(&p), id, MCP_WIRE_INVALID_PARAMS));
    assert_int_equal(p.nrequests, 1);
    peer_free(&p);
}

static void an_unsupported_version_names_the_supported_ones(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":\"u\",\"method\":\"tools/list\",\"params\":{\"_meta\":"
                  "{\"io.modelcontextprotocol/protocolVersion\":\"1900-01-01\","
                  "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    const mcp_message *e = peer_next(&p);
    assert_true(e && e->kind == MCP_MESSAGE_ERROR && e->id.kind == MCP_ID_STRING);
    assert_int_equal(e->error_code, MCP_WIRE_UNSUPPORTED_VERSION);
    const mcp_json *supported = mcp_json_object_get(e->error_data, "supported");
    assert_int_equal(mcp_json_array_size(supported), 3);
    assert_string_equal(mcp_json_string(mcp_json_array_at(supported, 0), NULL), "2026-07-28");
    assert_string_equal(mcp_json_string(mcp_json_object_get(e->error_data, "requested"), NULL),
                        "1900-01-01");
    /* A legacy revision in the envelope is no modern request either. */
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                  "{\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\","
                  "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
    assert_true(msg_is_error_for(peer_next(&p), 2, MCP_WIRE_UNSUPPORTED_VERSION));
    assert_int_equal(p.nrequests, 0);
    peer_free(&p);
}

static void discover_describes_the_server_and_is_never_registered(void **state)
{
    mcp_json_doc *caps;
    assert_int_equal(mcp_json_parse("{\"tools\":{}}", 12, NULL, NULL, &caps, NULL), MCP_OK);
    mcp_session_options o = {.size = sizeof o, .capabilities = mcp_json_doc_root(caps),
                             .instructions = "be kind", .discover_ttl_ms = 60000,
                             .discover_cache_scope = MCP_CACHE_PRIVATE};
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, &o);
    mcp_json_doc_free(caps);
    peer_feed(&p, MREQ("9", "server/discover"));
    assert_int_equal(p.nrequests, 0);
    assert_int_equal(mcp_session_inbound_count(p.s), 0);
    const mcp_message *r = peer_next(&p);
    assert_true(msg_is_result_for(r, 9));
    assert_true(is_complete(r->result));
    const mcp_json *v = mcp_json_object_get(r->result, "supportedVersions");
    assert_string_equal(mcp_json_string(mcp_json_array_at(v, 0), NULL), "2026-07-28");
    assert_non_null(mcp_json_object_get(mcp_json_object_get(r->result, "capabilities"), "tools"));
    assert_string_equal(mcp_json_string(mcp_json_object_get(r->result, "instructions"), NULL),
                        "be kind");
    int64_t ttl;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(r->result, "ttlMs"), &ttl), MCP_OK);
    assert_int_equal(ttl, 60000);
    assert_string_equal(mcp_json_string(mcp_json_object_get(r->result, "cacheScope"), NULL),
                        "private");
    assert_non_null(mcp_json_object_get(meta_of(r->result), "io.modelcontextprotocol/serverInfo"));
    peer_feed(&p, CANCEL("9")); /* nothing to cancel */
    assert_int_equal(p.ncancels, 0);
    peer_free(&p);
}

static void legacy_only_methods_do_not_exist_in_2026(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    const char *methods[] = {"ping", "initialize", "logging/setLevel", "resources/subscribe"};
    for (int i = 0; i < 4; i++) {
        char line[400];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{\"_meta\":{" ENV
                 "}}}",
                 i + 1, methods[i]);
        peer_feed(&p, line);
        assert_true(msg_is_error_for(peer_next(&p), i + 1, MCP_WIRE_METHOD_NOT_FOUND));
    }
    assert_false(mcp_session_ready(p.s));
    peer_free(&p);
}

static void eras_mix_on_one_connection(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    /* Before initialize: a request without the envelope is refused, one
     * with it is served. */
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    assert_true(msg_is_error_for(peer_next(&p), 1, MCP_WIRE_INVALID_REQUEST));
    peer_feed(&p, MCALL("2", ""));
    assert_int_equal(p.nrequests, 1);
    /* After a legacy initialize, both kinds, each in its own revision. */
    peer_server_ready(&p, "2025-06-18");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\"}");
    assert_int_equal(p.nrequests, 2);
    assert_string_equal(mcp_session_inbound_version(p.s, p.requests[1]), "2025-06-18");
    mcp_session_reply(p.s, p.requests[1], NULL);
    mcp_session_reply(p.s, p.requests[0], NULL);
    const mcp_message *legacy = peer_next(&p), *modern = peer_next(&p);
    assert_true(msg_is_result_for(legacy, 3));
    assert_null(mcp_json_object_get(legacy->result, "resultType"));
    assert_true(msg_is_result_for(modern, 2));
    assert_true(is_complete(modern->result));
    peer_free(&p);
}

static void a_cancel_with_an_envelope_cancels(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, MCALL("\"x\"", ""));
    /* Some clients put the request envelope on notifications: accepted. */
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                  "{\"requestId\":\"x\",\"reason\":\"r\",\"_meta\":{" ENV "}}}");
    assert_int_equal(p.ncancels, 1);
    assert_string_equal(p.cancel_reasons[0], "r");
    /* Nothing after the cancel: no result, no error, no progress. */
    assert_int_equal(mcp_session_reply(p.s, p.requests[0], NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void a_modern_server_sends_no_requests(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, MCALL("1", ""));
    mcp_handle h;
    assert_int_equal(peer_request(&p, "roots/list", NULL, NULL, &h), MCP_ERR_STATE);
    assert_int_equal(peer_request(&p, "ping", NULL, NULL, &h), MCP_ERR_STATE);
    peer_free(&p);
}

static void progress_flows_to_a_modern_request_until_it_settles(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, MCALL("1", ",\"progressToken\":\"tok\""));
    assert_int_equal(mcp_session_progress(p.s, p.requests[0], 1, 2, "half"), MCP_OK);
    const mcp_message *n = peer_next(&p);
    assert_true(msg_is_method(n, "notifications/progress"));
    assert_string_equal(mcp_json_string(mcp_json_object_get(n->params, "progressToken"), NULL),
                        "tok");
    peer_feed(&p, CANCEL("1"));
    assert_int_equal(mcp_session_progress(p.s, p.requests[0], 2, 2, NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static int log_at(peer *p, mcp_handle h, mcp_log_level level)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *data = mcp_json_new_string(d, "text");
    int rc = mcp_session_log_message(p->s, h, level, "lg", data);
    mcp_json_doc_free(d);
    return rc;
}

static void log_messages_follow_the_request_level_in_2026(void **state)
{
    mcp_json_doc *caps;
    assert_int_equal(mcp_json_parse("{\"logging\":{}}", 14, NULL, NULL, &caps, NULL), MCP_OK);
    mcp_session_options o = {.size = sizeof o, .capabilities = mcp_json_doc_root(caps)};
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, &o);
    mcp_json_doc_free(caps);
    peer_feed(&p, MCALL("1", ",\"io.modelcontextprotocol/logLevel\":\"warning\""));
    peer_feed(&p, MCALL("2", ""));
    /* Below the level, or without one: nothing is sent. */
    assert_int_equal(log_at(&p, p.requests[0], MCP_LOG_INFO), MCP_ERR_STATE);
    assert_int_equal(log_at(&p, p.requests[1], MCP_LOG_EMERGENCY), MCP_ERR_STATE);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(log_at(&p, p.requests[0], MCP_LOG_ERROR), MCP_OK);
    const mcp_message *n = peer_next(&p);
    assert_true(msg_is_method(n, "notifications/message"));
    assert_string_equal(mcp_json_string(mcp_json_object_get(n->params, "level"), NULL), "error");
    assert_string_equal(mcp_json_string(mcp_json_object_get(n->params, "logger"), NULL), "lg");
    assert_null(meta_of(n->params)); /* request-scoped: no subscription id */
    /* Never after the request settled. */
    mcp_session_reply(p.s, p.requests[0], NULL);
    peer_next(&p);
    assert_int_equal(log_at(&p, p.requests[0], MCP_LOG_ERROR), MCP_ERR_NOT_FOUND);
    peer_free(&p);
}

/* One set of levels: each of the eight goes on the wire by its RFC 5424
 * name, a request's logLevel admits its own level and those above, never
 * the one below; MCP_LOG_DEFAULT is no level to send. */
static void every_log_level_round_trips_by_its_wire_name(void **state)
{
    static const char *const names[] = {"debug", "info",     "notice", "warning",
                                        "error", "critical", "alert",  "emergency"};
    assert_null(mcp_log_level_name(MCP_LOG_DEFAULT));
    assert_null(mcp_log_level_name((mcp_log_level)(MCP_LOG_EMERGENCY + 1)));
    mcp_json_doc *caps;
    assert_int_equal(mcp_json_parse("{\"logging\":{}}", 14, NULL, NULL, &caps, NULL), MCP_OK);
    mcp_session_options o = {.size = sizeof o, .capabilities = mcp_json_doc_root(caps)};
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, &o);
    mcp_json_doc_free(caps);
    for (int l = MCP_LOG_DEBUG; l <= MCP_LOG_EMERGENCY; l++) {
        const char *name = names[l - MCP_LOG_DEBUG];
        assert_string_equal(mcp_log_level_name((mcp_log_level)l), name);
        char call[400];
        snprintf(call, sizeof call, MCALL("%d", ",\"io.modelcontextprotocol/logLevel\":\"%s\""),
                 l, name);
        int before = p.nrequests;
        peer_feed(&p, call);
        assert_int_equal(p.nrequests, before + 1);
        mcp_handle h = p.requests[before];
        assert_int_equal(log_at(&p, h, MCP_LOG_DEFAULT), MCP_ERR_INVALID_ARG);
        if (l > MCP_LOG_DEBUG)
            assert_int_equal(log_at(&p, h, (mcp_log_level)(l - 1)), MCP_ERR_STATE);
        assert_int_equal(peer_unread(&p), 0);
        assert_int_equal(log_at(&p, h, (mcp_log_level)l), MCP_OK);
        const mcp_message *n = peer_next(&p);
        assert_true(msg_is_method(n, "notifications/message"));
        assert_string_equal(mcp_json_string(mcp_json_object_get(n->params, "level"), NULL), name);
        mcp_session_reply(p.s, h, NULL);
        peer_next(&p);
    }
    peer_free(&p);
}

static void legacy_logging_follows_set_level(void **state)
{
    mcp_json_doc *caps;
    assert_int_equal(mcp_json_parse("{\"logging\":{}}", 14, NULL, NULL, &caps, NULL), MCP_OK);
    mcp_session_options o = {.size = sizeof o, .capabilities = mcp_json_doc_root(caps)};
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, &o);
    mcp_json_doc_free(caps);
    peer_server_ready(&p, "2025-11-25");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}");
    assert_int_equal(log_at(&p, p.requests[0], MCP_LOG_DEBUG), MCP_OK); /* all, until set */
    peer_next(&p);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\",\"params\":"
                  "{\"level\":\"error\"}}");
    assert_true(msg_is_result_for(peer_next(&p), 2));
    assert_int_equal(log_at(&p, p.requests[0], MCP_LOG_WARNING), MCP_ERR_STATE);
    assert_int_equal(log_at(&p, p.requests[0], MCP_LOG_CRITICAL), MCP_OK);
    peer_next(&p);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"logging/setLevel\",\"params\":"
                  "{\"level\":\"verbose\"}}");
    assert_true(msg_is_error_for(peer_next(&p), 3, MCP_WIRE_INVALID_PARAMS));
    peer_free(&p);
}

static void a_raw_result_keeps_its_meta_and_type(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, MCALL("1", ""));
    const char raw[] = "{\"content\":[],\"_meta\":{\"x\":{\"y\":[1,\"}\"]}},\"resultType\":\"complete\"}";
    assert_int_equal(mcp_session_reply_raw(p.s, p.requests[0], raw, sizeof raw - 1), MCP_OK);
    const mcp_message *r = peer_next(&p);
    assert_true(msg_is_result_for(r, 1)); /* and valid JSON: no duplicate keys */
    assert_true(is_complete(r->result));
    assert_non_null(mcp_json_object_get(meta_of(r->result), "x"));
    assert_non_null(mcp_json_object_get(meta_of(r->result), "io.modelcontextprotocol/serverInfo"));
    assert_non_null(mcp_json_object_get(r->result, "content"));
    peer_free(&p);
}

static void a_callers_server_info_wins_and_meta_must_be_an_object(void **state)
{
    /* A proxy passing on its upstream's result: one serverInfo, theirs. */
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, MCALL("1", ""));
    peer_feed(&p, MCALL("2", ""));
    const char raw[] = "{\"content\":[],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":"
                       "{\"name\":\"up\",\"version\":\"1\"}}}";
    assert_int_equal(mcp_session_reply_raw(p.s, p.requests[0], raw, sizeof raw - 1), MCP_OK);
    const mcp_message *r = peer_next(&p); /* parsed strictly: no duplicate key */
    const mcp_json *info = mcp_json_object_get(meta_of(r->result),
                                               "io.modelcontextprotocol/serverInfo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(info, "name"), NULL), "up");
    const char bad[] = "{\"content\":[],\"_meta\":null}";
    assert_int_equal(mcp_session_reply_raw(p.s, p.requests[1], bad, sizeof bad - 1),
                     MCP_ERR_INVALID_ARG);
    assert_true(mcp_session_inbound_active(p.s, p.requests[1])); /* nothing sent */
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void server_info_can_be_left_out(void **state)
{
    mcp_session_options o = {.size = sizeof o, .omit_server_info = true};
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, &o);
    peer_feed(&p, MCALL("1", ""));
    mcp_session_reply(p.s, p.requests[0], NULL);
    const mcp_message *r = peer_next(&p);
    assert_true(is_complete(r->result));
    assert_null(mcp_json_object_get(meta_of(r->result), "io.modelcontextprotocol/serverInfo"));
    peer_free(&p);
}

static void a_missing_capability_gets_the_error_of_its_era(void **state)
{
    mcp_json_doc *need;
    assert_int_equal(mcp_json_parse("{\"elicitation\":{}}", 18, NULL, NULL, &need, NULL), MCP_OK);
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_feed(&p, MCALL("1", ""));
    assert_int_equal(mcp_session_reply_missing_capability(p.s, p.requests[0],
                                                          mcp_json_doc_root(need)),
                     MCP_OK);
    const mcp_message *e = peer_next(&p);
    assert_true(msg_is_error_for(e, 1, MCP_WIRE_MISSING_CAPABILITY));
    assert_non_null(mcp_json_object_get(mcp_json_object_get(e->error_data, "requiredCapabilities"),
                                        "elicitation"));
    peer_server_ready(&p, "2025-11-25");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}");
    mcp_session_reply_missing_capability(p.s, p.requests[1], mcp_json_doc_root(need));
    assert_true(msg_is_error_for(peer_next(&p), 2, MCP_WIRE_INVALID_PARAMS));
    mcp_json_doc_free(need);
    peer_free(&p);
}

/* What a 2026-07-28 server writes, with each of the session's allocations
 * failing in turn: every request it registered still ends, nothing leaks. */
static void every_allocation_failure_in_modern_replies_is_survived(void **state)
{
    mcp_json_doc *need;
    assert_int_equal(mcp_json_parse("{\"elicitation\":{}}", 18, NULL, NULL, &need, NULL), MCP_OK);
    bool completed = false;
    for (long k = 1; k < 3000 && !completed; k++) {
        failmalloc fm;
        failmalloc_init(&fm, k);
        peer p;
        if (peer_try_init_mem(&p, MCP_ROLE_SERVER, NULL, &fm.mem) != MCP_OK) {
            p.s = NULL;
            peer_free(&p);
            assert_int_equal(fm.live, 0);
            continue;
        }
        peer_feed(&p, MCALL("1", ""));
        peer_feed(&p, MREQ("2", "server/discover"));
        peer_feed(&p, MCALL("3", ""));
        for (int i = 0; i < p.nrequests; i++) {
            if (i == 0)
                mcp_session_reply_missing_capability(p.s, p.requests[i], mcp_json_doc_root(need));
            else
                mcp_session_reply(p.s, p.requests[i], NULL);
        }
        /* Replied to or refused, never left waiting. */
        assert_int_equal(mcp_session_inbound_count(p.s), 0);
        completed = !fm.failed;
        if (completed)
            assert_int_equal(p.nrequests, 2);
        peer_free(&p);
        assert_int_equal(fm.live, 0);
    }
    assert_true(completed);
    mcp_json_doc_free(need);
}

static void a_lost_route_cancels_only_modern_requests_on_it(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-11-25");
    const char m[] = MCALL("1", "");
    const char l[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}";
    mcp_session_receive(p.s, p.now, 5, m, sizeof m - 1);
    mcp_session_receive(p.s, p.now, 5, l, sizeof l - 1);
    mcp_session_receive(p.s, p.now, 6, MCALL("3", ""), strlen(MCALL("3", "")));
    mcp_session_route_closed(p.s, p.now, 5);
    assert_int_equal(p.ncancels, 1);
    assert_int_equal(p.cancels[0], p.requests[0]);
    assert_string_equal(p.cancel_reasons[0], "client disconnected");
    assert_true(mcp_session_inbound_active(p.s, p.requests[1])); /* 2025: not a cancel */
    assert_true(mcp_session_inbound_active(p.s, p.requests[2])); /* another route */
    peer_free(&p);
}

/* A request cancelled otherwise than by the loss of its route gets that
 * route ended (an HTTP stream closed at once); one whose route was lost
 * does not, nor does a request of route 0. */
static void a_cancelled_request_ends_its_route(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_SERVER, NULL);
    peer_server_ready(&p, "2025-11-25");
    const char a[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}";
    const char b[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}";
    const char c[] = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\"}";
    mcp_session_receive(p.s, p.now, 7, a, sizeof a - 1);
    mcp_session_receive(p.s, p.now, 8, b, sizeof b - 1);
    mcp_session_receive(p.s, p.now, 0, c, sizeof c - 1);
    mcp_session_receive(p.s, p.now, 9, MCALL("4", ""), strlen(MCALL("4", "")));
    /* A posted cancel (it arrives on no route of its own). */
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                  "\"params\":{\"requestId\":1}}");
    assert_int_equal(p.nroutes_ended, 1);
    assert_int_equal(p.routes_ended[0], 7);
    /* A 2026 request whose route closed: the route needs no ending. */
    mcp_session_route_closed(p.s, p.now, 9);
    assert_int_equal(p.ncancels, 2);
    assert_int_equal(p.nroutes_ended, 1);
    /* The session ends with a reason: route 8 is ended, route 0 is not. */
    mcp_session_close_reason(p.s, p.now, "session ended");
    assert_int_equal(p.ncancels, 4);
    assert_string_equal(p.cancel_reasons[2], "session ended");
    assert_string_equal(p.cancel_reasons[3], "session ended");
    assert_int_equal(p.nroutes_ended, 2);
    assert_int_equal(p.routes_ended[1], 8);
    peer_free(&p);
}

static void known_revisions(void **state)
{
    assert_true(mcp_protocol_known("2025-03-26", 10));
    assert_true(mcp_protocol_known("2026-07-28", 10));
    assert_false(mcp_protocol_known("2026-07-2", 9));
    assert_false(mcp_protocol_known("2099-01-01", 10));
    assert_false(mcp_protocol_known(NULL, 0));
}

/* Client ---------------------------------------------------------------------- */

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    *(int *)ud = outcome;
}

static int connect_client(peer *p, mcp_connect_mode mode, int *outcome)
{
    *outcome = 1;
    mcp_connect_options o = {.size = sizeof o, .mode = mode, .timeout_ms = 10000};
    return mcp_session_connect(p->s, p->now, &o, connected, outcome);
}

static void answer(peer *p, const mcp_message *req, const char *result)
{
    char line[600];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}",
             (long long)req->id.num, result);
    peer_feed(p, line);
}

static void answer_error(peer *p, const mcp_message *req, int code, const char *data)
{
    char line[600];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":%d,\"message\":\"m\"%s%s}}",
             (long long)req->id.num, code, data ? ",\"data\":" : "", data ? data : "");
    peer_feed(p, line);
}

#define DISCOVER_OK                                                                         \
    "{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}," \
    "\"ttlMs\":0,\"cacheScope\":\"public\"}"
#define INIT_OK(v)                                                                          \
    "{\"protocolVersion\":\"" v "\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}"

static void a_discover_answer_makes_the_client_modern(void **state)
{
    mcp_session_options o = {.size = sizeof o, .name = "cl", .version = "4"};
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, &o);
    int outcome;
    assert_int_equal(connect_client(&p, MCP_CONNECT_AUTO, &outcome), MCP_OK);
    const mcp_message *d = peer_next(&p);
    assert_true(msg_is_method(d, "server/discover"));
    const mcp_json *meta = meta_of(d->params);
    assert_string_equal(mcp_json_string(mcp_json_object_get(meta, "io.modelcontextprotocol/protocolVersion"), NULL),
                        "2026-07-28");
    answer(&p, d, DISCOVER_OK);
    assert_int_equal(outcome, MCP_OK);
    assert_true(mcp_session_modern(p.s));
    assert_string_equal(mcp_session_protocol_version(p.s), "2026-07-28");
    assert_non_null(mcp_json_object_get(mcp_session_peer_info(p.s), "supportedVersions"));
    /* Every request carries the envelope; ping does not exist. */
    mcp_handle h;
    assert_int_equal(peer_request(&p, "tools/list", NULL, NULL, &h), MCP_OK);
    meta = meta_of(peer_next(&p)->params);
    assert_non_null(mcp_json_object_get(meta, "io.modelcontextprotocol/clientCapabilities"));
    const mcp_json *ci = mcp_json_object_get(meta, "io.modelcontextprotocol/clientInfo");
    assert_string_equal(mcp_json_string(mcp_json_object_get(ci, "name"), NULL), "cl");
    assert_int_equal(peer_request(&p, "ping", NULL, NULL, &h), MCP_ERR_INVALID_ARG);
    peer_free(&p);
}

static void any_other_answer_falls_back_to_initialize(void **state)
{
    /* An error that is no modern one (never keyed to one code), a result
     * that is no DiscoverResult, and silence all mean legacy. */
    for (int k = 0; k < 4; k++) {
        peer p;
        peer_init(&p, MCP_ROLE_CLIENT, NULL);
        int outcome;
        assert_int_equal(connect_client(&p, MCP_CONNECT_AUTO, &outcome), MCP_OK);
        const mcp_message *d = peer_next(&p);
        assert_true(msg_is_method(d, "server/discover"));
        if (k == 0)
            answer_error(&p, d, -32601, NULL);
        else if (k == 1)
            answer_error(&p, d, -32602, NULL);
        else if (k == 2)
            answer(&p, d, "{}");
        else
            peer_advance(&p, 3000); /* the probe's wait */
        const mcp_message *init = peer_next(&p);
        assert_true(msg_is_method(init, "initialize"));
        answer(&p, init, INIT_OK("2025-11-25"));
        assert_int_equal(outcome, MCP_OK);
        assert_false(mcp_session_modern(p.s));
        assert_true(msg_is_method(peer_next(&p), "notifications/initialized"));
        /* The probe was never cancelled. */
        assert_int_equal(peer_unread(&p), 0);
        peer_free(&p);
    }
}

static void a_modern_error_never_falls_back(void **state)
{
    /* -32022 naming only legacy versions: initialize with the best of them. */
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    int outcome;
    connect_client(&p, MCP_CONNECT_AUTO, &outcome);
    answer_error(&p, peer_next(&p), MCP_WIRE_UNSUPPORTED_VERSION,
                 "{\"supported\":[\"2025-06-18\"],\"requested\":\"2026-07-28\"}");
    const mcp_message *init = peer_next(&p);
    assert_true(msg_is_method(init, "initialize"));
    assert_string_equal(mcp_json_string(mcp_json_object_get(init->params, "protocolVersion"), NULL),
                        "2025-06-18");
    peer_free(&p);
    /* -32021 is a modern server refusing: no fallback. */
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    connect_client(&p, MCP_CONNECT_AUTO, &outcome);
    answer_error(&p, peer_next(&p), MCP_WIRE_MISSING_CAPABILITY, NULL);
    assert_int_equal(outcome, MCP_ERR_REMOTE);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
    /* No version in common at all. */
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    connect_client(&p, MCP_CONNECT_AUTO, &outcome);
    answer_error(&p, peer_next(&p), MCP_WIRE_UNSUPPORTED_VERSION,
                 "{\"supported\":[\"2099-01-01\"],\"requested\":\"2026-07-28\"}");
    assert_int_equal(outcome, MCP_ERR_PROTOCOL);
    peer_free(&p);
}

static void modern_only_against_a_legacy_server_fails(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    int outcome;
    connect_client(&p, MCP_CONNECT_MODERN, &outcome);
    answer_error(&p, peer_next(&p), -32601, NULL);
    assert_int_equal(outcome, MCP_ERR_PROTOCOL);
    assert_int_equal(peer_unread(&p), 0); /* no initialize */
    assert_false(mcp_session_ready(p.s));
    peer_free(&p);
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    connect_client(&p, MCP_CONNECT_MODERN, &outcome);
    peer_next(&p);
    peer_advance(&p, 10000);
    assert_int_equal(outcome, MCP_ERR_TIMED_OUT);
    assert_int_equal(peer_unread(&p), 0); /* never cancelled */
    peer_free(&p);
}

static void the_whole_connect_is_bounded(void **state)
{
    /* A server silent to the probe and to initialize: the two waits fit in
     * the one timeout, the handshake keeping half of it. */
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    int outcome = 1;
    mcp_connect_options o = {.size = sizeof o, .mode = MCP_CONNECT_AUTO, .timeout_ms = 1000};
    assert_int_equal(mcp_session_connect(p.s, p.now, &o, connected, &outcome), MCP_OK);
    peer_next(&p);
    peer_advance(&p, 499);
    assert_int_equal(peer_unread(&p), 0);
    peer_advance(&p, 1);
    assert_true(msg_is_method(peer_next(&p), "initialize"));
    assert_int_equal(outcome, 1);
    peer_advance(&p, 500);
    assert_int_equal(outcome, MCP_ERR_TIMED_OUT);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void a_refusal_naming_the_refused_version_does_not_loop(void **state)
{
    /* Refused the version it names as supported: asked once more (the
     * same revision, a new id), then given up instead of looping. */
    peer p;
    int outcome;
    for (int twice = 0; twice < 2; twice++) {
        peer_init(&p, MCP_ROLE_CLIENT, NULL);
        connect_client(&p, twice ? MCP_CONNECT_AUTO : MCP_CONNECT_MODERN, &outcome);
        const mcp_message *first = peer_next(&p);
        int64_t first_id = first->id.num;
        answer_error(&p, first, MCP_WIRE_UNSUPPORTED_VERSION,
                     "{\"supported\":[\"2026-07-28\"],\"requested\":\"2026-07-28\"}");
        const mcp_message *again = peer_next(&p);
        assert_true(msg_is_method(again, "server/discover"));
        assert_true(again->id.num != first_id);
        assert_string_equal(mcp_json_string(mcp_json_object_get(meta_of(again->params),
                                                                "io.modelcontextprotocol/protocolVersion"),
                                            NULL),
                            "2026-07-28");
        if (twice) {
            answer_error(&p, again, MCP_WIRE_UNSUPPORTED_VERSION,
                         "{\"supported\":[\"2026-07-28\"],\"requested\":\"2026-07-28\"}");
            assert_int_equal(outcome, MCP_ERR_PROTOCOL);
            assert_int_equal(peer_unread(&p), 0);
        } else {
            answer(&p, again, DISCOVER_OK);
            assert_int_equal(outcome, MCP_OK);
        }
        peer_free(&p);
    }
}

static void a_modern_client_writes_no_responses(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    int outcome;
    connect_client(&p, MCP_CONNECT_MODERN, &outcome);
    answer(&p, peer_next(&p), DISCOVER_OK);
    peer_feed(&p, "not json");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\"}");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"id\":2}");
    mcp_session_receive_oversized(p.s, p.now, 0, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"x\"",
                                  29, "", 0, 100);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(p.nrequests, 0);
    peer_free(&p);
}

static void result_types_are_checked_in_2026(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    int outcome;
    connect_client(&p, MCP_CONNECT_MODERN, &outcome);
    answer(&p, peer_next(&p), DISCOVER_OK);
    assert_int_equal(outcome, MCP_OK);
    /* input_required goes to the caller only for the methods that may
     * carry it (mrtr.mdx): tools/call, resources/read, prompts/get. */
    const char *results[] = {"{}", "{\"resultType\":\"complete\"}",
                             "{\"resultType\":\"input_required\"}", "{\"resultType\":7}",
                             "{\"resultType\":\"other\"}",
                             "{\"resultType\":\"input_required\"}",
                             "{\"resultType\":\"input_required\"}",
                             "{\"resultType\":\"input_required\"}"};
    const char *methods[] = {"tools/call", "tools/call", "tools/call", "tools/call",
                             "tools/call", "tools/list", "resources/read", "prompts/get"};
    const int want[] = {MCP_OK, MCP_OK, MCP_OK, MCP_ERR_PROTOCOL, MCP_ERR_PROTOCOL,
                        MCP_ERR_PROTOCOL, MCP_OK, MCP_OK};
    for (int i = 0; i < 8; i++) {
        mcp_handle h;
        peer_request(&p, methods[i], NULL, NULL, &h);
        answer(&p, peer_next(&p), results[i]);
        int k = peer_response_index(&p, h);
        assert_true(k >= 0 && p.outcomes[k] == want[i]);
    }
    peer_free(&p);
}

static void a_client_ignores_a_cancel_for_its_own_requests(void **state)
{
    peer p;
    peer_init(&p, MCP_ROLE_CLIENT, NULL);
    int outcome;
    connect_client(&p, MCP_CONNECT_MODERN, &outcome);
    answer(&p, peer_next(&p), DISCOVER_OK);
    mcp_handle h;
    peer_request(&p, "tools/call", NULL, NULL, &h);
    peer_next(&p);
    char line[200];
    snprintf(line, sizeof line, CANCEL("%llu"), (unsigned long long)h);
    peer_feed(&p, line);
    assert_int_equal(peer_response_index(&p, h), -1); /* still waiting */
    assert_int_equal(mcp_session_outbound_count(p.s), 1);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_CANCEL_IGNORED), 1);
    peer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_modern_request_needs_no_initialize_and_its_result_is_decorated),
        cmocka_unit_test(the_envelope_is_checked_on_every_request),
        cmocka_unit_test(an_unsupported_version_names_the_supported_ones),
        cmocka_unit_test(discover_describes_the_server_and_is_never_registered),
        cmocka_unit_test(legacy_only_methods_do_not_exist_in_2026),
        cmocka_unit_test(eras_mix_on_one_connection),
        cmocka_unit_test(a_cancel_with_an_envelope_cancels),
        cmocka_unit_test(a_modern_server_sends_no_requests),
        cmocka_unit_test(progress_flows_to_a_modern_request_until_it_settles),
        cmocka_unit_test(log_messages_follow_the_request_level_in_2026),
        cmocka_unit_test(every_log_level_round_trips_by_its_wire_name),
        cmocka_unit_test(legacy_logging_follows_set_level),
        cmocka_unit_test(a_raw_result_keeps_its_meta_and_type),
        cmocka_unit_test(a_callers_server_info_wins_and_meta_must_be_an_object),
        cmocka_unit_test(server_info_can_be_left_out),
        cmocka_unit_test(a_missing_capability_gets_the_error_of_its_era),
        cmocka_unit_test(every_allocation_failure_in_modern_replies_is_survived),
        cmocka_unit_test(a_lost_route_cancels_only_modern_requests_on_it),
        cmocka_unit_test(a_cancelled_request_ends_its_route),
        cmocka_unit_test(known_revisions),
        cmocka_unit_test(a_discover_answer_makes_the_client_modern),
        cmocka_unit_test(any_other_answer_falls_back_to_initialize),
        cmocka_unit_test(a_modern_error_never_falls_back),
        cmocka_unit_test(modern_only_against_a_legacy_server_fails),
        cmocka_unit_test(the_whole_connect_is_bounded),
        cmocka_unit_test(a_refusal_naming_the_refused_version_does_not_loop),
        cmocka_unit_test(a_modern_client_writes_no_responses),
        cmocka_unit_test(result_types_are_checked_in_2026),
        cmocka_unit_test(a_client_ignores_a_cancel_for_its_own_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
