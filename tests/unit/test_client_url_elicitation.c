/* SPDX-License-Identifier: MIT */
/*
 * URL-mode elicitation on the client (src/client/url_elicitation.c),
 * against a server the test plays on the wire (tests/support/scripted.h):
 * - notifications/elicitation/complete reaches on_elicitation_complete
 *   once for an id the application accepted, never for one it declined or
 *   cancelled, an unknown one, a repeat or a malformed notification; it
 *   never reaches on_notification;
 * - the ids of a URLElicitationRequiredError (-32042), whose data the
 *   caller reaches through the response, are waited for as well;
 * - at most MCP_CLIENT_MAX_OPEN_ELICITATIONS ids, the oldest forgotten;
 * - what a URL-mode elicitation/create must carry under each revision;
 * - mcp_elicitation_url_host.
 * Each notification's fate is known once the client has answered a ping
 * the test sends after it: the client reads in order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "scripted.h"

static struct {
    char completed[8][80]; /* the hook's ids, in order */
    int count;
    int notifications;     /* on_notification calls */
    int asked;             /* URL-mode questions handed to the application */
    char log[4096];        /* the client's debug log */
} t;

static void reset(void)
{
    memset(&t, 0, sizeof t);
}

static void says(const char *text, const char *needle)
{
    if (!text || !strstr(text, needle))
        fail_msg("\"%s\" does not say \"%s\"", text ? text : "(null)", needle);
}

static void on_complete(void *ud, const char *id)
{
    assert_ptr_equal(ud, &t);
    assert_true(t.count < 8);
    snprintf(t.completed[t.count++], sizeof t.completed[0], "%s", id);
}

static void on_notification(void *ud, const mcp_message *m)
{
    t.notifications++;
}

static void on_log(void *ud, const mcp_log_record *r)
{
    size_t n = strlen(t.log);
    snprintf(t.log + n, sizeof t.log - n, "%s\n", r->message);
}

/* The user's answer, by the id's start: dec... declines, can... cancels,
 * anything else (no id under 2026-07-28 included) is accepted. */
static void on_question(void *ud, mcp_question *q)
{
    assert_true(mcp_question_url_mode(q));
    t.asked++;
    const char *id = mcp_json_string(mcp_json_object_get(mcp_question_params(q), "elicitationId"),
                                     NULL);
    if (id && !strncmp(id, "dec", 3)) {
        assert_int_equal(mcp_question_decline(q), MCP_OK);
        return;
    }
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *r = mcp_json_new_object(d);
    mcp_json_object_set(d, r, "action",
                        mcp_json_new_string(d, id && !strncmp(id, "can", 3) ? "cancel" : "accept"));
    assert_int_equal(mcp_question_answer(q, r, NULL, 0), MCP_OK);
    mcp_json_doc_free(d);
}

static mcp_client_options options(void)
{
    mcp_client_options o = {.size = sizeof o,
                            .log = on_log,
                            .log_level = MCP_LOG_DEBUG,
                            .on_notification = on_notification,
                            .on_elicitation = on_question,
                            .elicitation_url = true,
                            .on_elicitation_complete = on_complete,
                            .elicitation_complete_user_data = &t};
    return o;
}

/* The server asks (request id n) for the URL-mode elicitation params; the
 * client's answer. */
static char *ask(scripted *s, int n, const char *params)
{
    char line[1024], want[32];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"elicitation/create\",\"params\":%s}", n,
             params);
    wire_send(&s->w, line);
    snprintf(want, sizeof want, "\"id\":%d,", n);
    return scripted_next_line(s, want);
}

static void ask_url(scripted *s, int n, const char *id, const char *want)
{
    char params[300];
    snprintf(params, sizeof params,
             "{\"mode\":\"url\",\"message\":\"Sign in\",\"url\":\"https://example.com/a\","
             "\"elicitationId\":\"%s\"}",
             id);
    char *l = ask(s, n, params);
    says(l, want);
    free(l);
}

static void complete(scripted *s, const char *params)
{
    char line[300];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/elicitation/complete\"%s%s}",
             params ? ",\"params\":" : "", params ? params : "");
    wire_send(&s->w, line);
}

static void complete_id(scripted *s, const char *id)
{
    char params[120];
    snprintf(params, sizeof params, "{\"elicitationId\":\"%s\"}", id);
    complete(s, params);
}

/* Everything sent before has been read by the client. */
static void fence(scripted *s)
{
    wire_send(&s->w, "{\"jsonrpc\":\"2.0\",\"id\":\"fence\",\"method\":\"ping\"}");
    free(scripted_next_line(s, "\"id\":\"fence\""));
}

static void the_hook_hears_once_of_what_was_accepted(void **state)
{
    reset();
    scripted s;
    char *hello;
    scripted_open(&s, "2025-11-25", options(), &hello);
    says(hello, "\"elicitation\":{\"form\":{},\"url\":{}}");
    free(hello);
    ask_url(&s, 10, "acc-1", "\"result\":{\"action\":\"accept\"}");
    ask_url(&s, 11, "dec-1", "\"result\":{\"action\":\"decline\"}");
    ask_url(&s, 12, "can-1", "\"result\":{\"action\":\"cancel\"}");
    ask_url(&s, 13, "acc-2", "\"result\":{\"action\":\"accept\"}");
    assert_int_equal(t.asked, 4);
    complete_id(&s, "nobody");
    complete_id(&s, "dec-1");
    complete_id(&s, "can-1");
    complete_id(&s, "acc-2");
    complete_id(&s, "acc-2"); /* a repeat */
    complete(&s, "{}");
    complete(&s, "{\"elicitationId\":7}");
    complete(&s, NULL);
    complete_id(&s, "acc-1");
    wire_send(&s.w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
    fence(&s);
    assert_int_equal(t.count, 2);
    assert_string_equal(t.completed[0], "acc-2");
    assert_string_equal(t.completed[1], "acc-1");
    /* None reached on_notification: only the list change did. */
    assert_int_equal(t.notifications, 1);
    says(t.log, "elicitationId \"nobody\" is none this client waits for");
    says(t.log, "elicitationId \"dec-1\" is none this client waits for");
    says(t.log, "its params.elicitationId is not a string");
    /* Completed: forgotten. */
    complete_id(&s, "acc-1");
    fence(&s);
    assert_int_equal(t.count, 2);
    scripted_close(&s);
}

/* Without the hook nothing is kept, and the notification goes nowhere. */
static void without_the_hook_the_notification_is_dropped(void **state)
{
    reset();
    mcp_client_options o = options();
    o.on_elicitation_complete = NULL;
    scripted s;
    char *hello;
    scripted_open(&s, "2025-11-25", o, &hello);
    free(hello);
    ask_url(&s, 10, "acc-1", "\"action\":\"accept\"");
    complete_id(&s, "acc-1");
    fence(&s);
    assert_int_equal(t.count, 0);
    assert_int_equal(t.notifications, 0);
    scripted_close(&s);
}

typedef struct ended_call {
    bool done;
    int outcome;
    int64_t code;
    mcp_message *response;
} ended_call;

static void call_done(void *ud, const mcp_client_call_result *r)
{
    ended_call *e = ud;
    e->done = true;
    e->outcome = r->outcome;
    e->code = r->error_code;
    e->response = r->response;
    mcp_message_retain(r->response);
}

#define REQUIRED_URL(id)                                                                          \
    "{\"mode\":\"url\",\"elicitationId\":\"" id "\",\"url\":\"https://example.com/connect?e=" id \
    "\",\"message\":\"Authorize " id "\"}"

static void a_required_errors_ids_are_completed(void **state)
{
    reset();
    scripted s;
    char *hello;
    scripted_open(&s, "2025-11-25", options(), &hello);
    free(hello);
    ended_call e = {0};
    assert_int_equal(mcp_client_call_tool_async(s.client, "files", NULL, NULL, call_done, &e, NULL),
                     MCP_OK);
    char *l = scripted_next_line(&s, "tools/call");
    long long id = strtoll(strstr(l, "\"id\":") + 5, NULL, 10);
    free(l);
    char line[1200];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32042,\"message\":\"This "
             "request requires more information.\",\"data\":{\"elicitations\":[" REQUIRED_URL("r1")
             "," REQUIRED_URL("r2") ",{\"mode\":\"form\",\"elicitationId\":\"f1\"},{\"mode\":"
             "\"url\",\"url\":\"https://example.com/\"}]}}}",
             id);
    wire_send(&s.w, line);
    while (!e.done)
        mcp_client_run_once(s.client, true);
    assert_int_equal(e.outcome, MCP_ERR_REMOTE);
    assert_int_equal(e.code, MCP_WIRE_URL_ELICITATION_REQUIRED);
    /* The data, as the server sent it, through the response. */
    assert_non_null(e.response);
    const mcp_json *list = mcp_json_object_get(e.response->error_data, "elicitations");
    assert_int_equal(mcp_json_array_size(list), 4);
    assert_string_equal(mcp_json_string(mcp_json_object_get(mcp_json_array_at(list, 1), "url"),
                                        NULL),
                        "https://example.com/connect?e=r2");
    mcp_message_free(e.response);
    complete_id(&s, "f1"); /* not a URL-mode entry */
    complete_id(&s, "r2");
    complete_id(&s, "r1");
    complete_id(&s, "r1");
    fence(&s);
    assert_int_equal(t.count, 2);
    assert_string_equal(t.completed[0], "r2");
    assert_string_equal(t.completed[1], "r1");
    /* Another error code's data is not read for ids. */
    memset(&e, 0, sizeof e);
    assert_int_equal(mcp_client_call_tool_async(s.client, "files", NULL, NULL, call_done, &e, NULL),
                     MCP_OK);
    l = scripted_next_line(&s, "tools/call");
    id = strtoll(strstr(l, "\"id\":") + 5, NULL, 10);
    free(l);
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32602,\"message\":\"no\","
             "\"data\":{\"elicitations\":[" REQUIRED_URL("x1") "]}}}",
             id);
    wire_send(&s.w, line);
    while (!e.done)
        mcp_client_run_once(s.client, true);
    mcp_message_free(e.response);
    complete_id(&s, "x1");
    fence(&s);
    assert_int_equal(t.count, 2);
    scripted_close(&s);
}

static void the_ids_waited_for_are_bounded(void **state)
{
    reset();
    scripted s;
    char *hello;
    scripted_open(&s, "2025-11-25", options(), &hello);
    free(hello);
    char id[16];
    for (int i = 0; i <= MCP_CLIENT_MAX_OPEN_ELICITATIONS; i++) {
        snprintf(id, sizeof id, "acc-%d", i);
        ask_url(&s, 100 + i, id, "\"action\":\"accept\"");
    }
    complete_id(&s, "acc-0"); /* the oldest: forgotten */
    complete_id(&s, "acc-1");
    snprintf(id, sizeof id, "acc-%d", MCP_CLIENT_MAX_OPEN_ELICITATIONS);
    complete_id(&s, id);
    fence(&s);
    assert_int_equal(t.count, 2);
    assert_string_equal(t.completed[0], "acc-1");
    assert_string_equal(t.completed[1], id);
    says(t.log, "elicitationId \"acc-0\" forgotten: 64 others were waited for since");
    scripted_close(&s);
}

/* What a URL-mode request must carry, under 2025-11-25 and 2025-06-18. */
static void url_requests_are_checked(void **state)
{
    reset();
    scripted s;
    char *hello;
    scripted_open(&s, "2025-11-25", options(), &hello);
    says(hello, "\"elicitation\":{\"form\":{},\"url\":{}}");
    free(hello);
    static const struct {
        const char *params, *why;
    } bad[] = {
        {"{\"mode\":\"url\",\"message\":\"m\",\"url\":\"https://example.com/\"}",
         "params.elicitationId must be a string"},
        {"{\"mode\":\"url\",\"message\":\"m\",\"url\":\"https://example.com/\","
         "\"elicitationId\":5}",
         "params.elicitationId must be a string"},
        {"{\"mode\":\"url\",\"message\":\"m\",\"url\":7,\"elicitationId\":\"e\"}",
         "params.url must be a string"},
        {"{\"mode\":\"url\",\"message\":\"m\",\"elicitationId\":\"e\"}",
         "params.url must be a string"},
        {"{\"mode\":\"url\",\"url\":\"https://example.com/\",\"elicitationId\":\"e\"}",
         "params.message must be a string"},
        {"{\"mode\":\"url\",\"message\":\"m\",\"url\":\"example.com/x\",\"elicitationId\":\"e\"}",
         "params.url is not a URL with a scheme and a host"},
        {"{\"mode\":\"url\",\"message\":\"m\",\"url\":\"https://exa mple.com/\","
         "\"elicitationId\":\"e\"}",
         "params.url is not a URL with a scheme and a host"},
        {"{\"mode\":\"url\",\"message\":\"m\",\"url\":\"https://example.com/\\u001b[2J\","
         "\"elicitationId\":\"e\"}",
         "params.url is not a URL with a scheme and a host"},
        {"{\"mode\":\"url\",\"message\":\"m\",\"url\":\"file:///etc/passwd\","
         "\"elicitationId\":\"e\"}",
         "params.url is not a URL with a scheme and a host"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *l = ask(&s, 20 + (int)i, bad[i].params);
        says(l, "\"error\":{\"code\":-32602,\"message\":\"Invalid params: ");
        says(l, bad[i].why);
        free(l);
    }
    assert_int_equal(t.asked, 0);
    ask_url(&s, 30, "acc-1", "\"action\":\"accept\"");
    assert_int_equal(t.asked, 1);
    scripted_close(&s);
    /* 2025-06-18 has no URL mode: the client does not declare it (the
     * revision's elicitation capability is an empty object), and refuses
     * a URL-mode request all the same. */
    scripted_open(&s, "2025-06-18", options(), &hello);
    says(hello, "\"elicitation\":{}");
    free(hello);
    ask_url(&s, 40, "acc-1",
            "\"code\":-32602,\"message\":\"Invalid params: URL-mode elicitation came with "
            "protocol revision 2025-11-25, not in 2025-06-18");
    assert_int_equal(t.asked, 1);
    scripted_close(&s);
}

/* 2026-07-28: no elicitationId, no notification; the URL checked all the
 * same. */
static void url_mode_in_2026(void **state)
{
    reset();
    scripted s;
    char *hello;
    scripted_open(&s, "2026-07-28", options(), &hello);
    free(hello);
    ended_call e = {0};
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, NULL, call_done, &e, NULL),
                     MCP_OK);
    char *l = scripted_next_line(&s, "tools/call");
    long long id = strtoll(strstr(l, "\"id\":") + 5, NULL, 10);
    free(l);
    char line[600];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"resultType\":\"input_required\","
             "\"inputRequests\":{\"u\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":"
             "\"url\",\"message\":\"Sign in\",\"url\":\"https://example.com/a\"}}}}}",
             id);
    wire_send(&s.w, line);
    l = scripted_next_line(&s, "inputResponses");
    says(l, "\"inputResponses\":{\"u\":{\"action\":\"accept\"}}");
    id = strtoll(strstr(l, "\"id\":") + 5, NULL, 10);
    free(l);
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"content\":[]}}",
             id);
    wire_send(&s.w, line);
    while (!e.done)
        mcp_client_run_once(s.client, true);
    assert_int_equal(e.outcome, MCP_OK);
    mcp_message_free(e.response);
    assert_int_equal(t.asked, 1);
    /* A URL that is none: the call cannot be answered. */
    memset(&e, 0, sizeof e);
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, NULL, call_done, &e, NULL),
                     MCP_OK);
    l = scripted_next_line(&s, "tools/call");
    id = strtoll(strstr(l, "\"id\":") + 5, NULL, 10);
    free(l);
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"resultType\":\"input_required\","
             "\"inputRequests\":{\"u\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":"
             "\"url\",\"message\":\"Sign in\",\"url\":\"javascript:alert(1)\"}}}}}",
             id);
    wire_send(&s.w, line);
    while (!e.done)
        mcp_client_run_once(s.client, true);
    assert_int_equal(e.outcome, MCP_ERR_PROTOCOL);
    says(mcp_client_error(s.client), "inputRequests[\"u\"] (elicitation/create): params.url is "
                                     "not a URL with a scheme and a host");
    assert_int_equal(t.asked, 1);
    /* Nothing is waited for in this era. */
    complete_id(&s, "u");
    scripted_no_line(&s, "never", 50);
    assert_int_equal(t.count, 0);
    assert_int_equal(t.notifications, 0);
    scripted_close(&s);
}

static void url_hosts(void **state)
{
    static const struct {
        const char *url, *host; /* host NULL: refused */
    } cases[] = {
        {"https://example.com/a?b#c", "example.com"},
        {"https://example.com", "example.com"},
        {"HTTPS://Example.COM?q", "Example.COM"},
        {"http://example.com:8080/", "example.com"},
        {"https://example.com@evil.test/login", "evil.test"},
        {"https://user:pw@a@evil.test:443/", "evil.test"},
        {"https://[::1]:8443/x", "[::1]"},
        {"https://[::1]/", "[::1]"},
        {"web+app://host.example/", "host.example"},
        {"https://xn--exmple-cua.com/", "xn--exmple-cua.com"},
        {"https://\xc3\xa9xample.com/", "\xc3\xa9xample.com"},
        {"https://example.com:/", "example.com"},
        {"example.com", NULL},
        {"https://", NULL},
        {"https:///path", NULL},
        {"https://user@/", NULL},
        {"https://:443/", NULL},
        {"https://example.com:44x/", NULL},
        {"https://[::1/", NULL},
        {"https://[::1]x/", NULL},
        {"mailto:a@example.com", NULL},
        {"javascript:alert(1)//", NULL},
        {"file:///etc/passwd", NULL},
        {"1http://example.com/", NULL},
        {"ht tp://example.com/", NULL},
        {"https://example.com/a b", NULL},
        {"https://example.com/\t", NULL},
        {"https://example.com/\x7f", NULL},
        /* A browser reads "\\" as "/" (it would open evil.example), RFC 3986
         * allows it nowhere; a browser decodes "%" in a host (attack round
         * 6, G2). */
        {"https://evil.example\\@good.example/login", NULL},
        {"https://good.example/a\\b", NULL},
        {"https://evil%2Eexample/", NULL},
        {"https://good.example%40evil.example/", NULL},
        {"https://user%40x@good.example/", "good.example"},
        {"", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *host = NULL;
        size_t n = 0;
        int rc = mcp_elicitation_url_host(cases[i].url, strlen(cases[i].url), &host, &n);
        if (!cases[i].host) {
            if (rc != MCP_ERR_INVALID_ARG)
                fail_msg("%s: taken, host %.*s", cases[i].url, (int)n, host);
            continue;
        }
        if (rc != MCP_OK)
            fail_msg("%s: refused", cases[i].url);
        if (n != strlen(cases[i].host) || memcmp(host, cases[i].host, n))
            fail_msg("%s: host %.*s, not %s", cases[i].url, (int)n, host, cases[i].host);
    }
    /* Its length, not a NUL, ends it. */
    const char *host;
    size_t n;
    assert_int_equal(mcp_elicitation_url_host("https://a.test/\0\x01", 17, &host, &n),
                     MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_elicitation_url_host("https://a.testXYZ", 14, &host, &n), MCP_OK);
    assert_int_equal(n, 6);
    assert_int_equal(mcp_elicitation_url_host(NULL, 0, &host, &n), MCP_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_hook_hears_once_of_what_was_accepted),
        cmocka_unit_test(without_the_hook_the_notification_is_dropped),
        cmocka_unit_test(a_required_errors_ids_are_completed),
        cmocka_unit_test(the_ids_waited_for_are_bounded),
        cmocka_unit_test(url_requests_are_checked),
        cmocka_unit_test(url_mode_in_2026),
        cmocka_unit_test(url_hosts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
