/* SPDX-License-Identifier: MIT */
/* Session engine: our requests. Two clocks (idle reset by progress, hard
 * total), cancels on the wire with their reason, distinct endings, progress
 * tokens, late responses and progress dropped quietly. Fake clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peer.h"
#include "torture.h"

static void ready_client(peer *p, const mcp_session_options *o)
{
    peer_init(p, MCP_ROLE_CLIENT, o);
    peer_client_ready(p);
}

/* Issue tools/call and return the request as sent. */
static const mcp_message *call(peer *p, const mcp_request_options *o, mcp_handle *h)
{
    assert_int_equal(peer_request(p, "tools/call", "{\"name\":\"slow\",\"arguments\":{}}", o, h),
                     MCP_OK);
    const mcp_message *m = peer_next(p);
    assert_true(msg_is_method(m, "tools/call"));
    assert_int_equal(m->id.kind, MCP_ID_INT);
    assert_int_equal((mcp_handle)m->id.num, *h);
    return m;
}

static void feed_progress(peer *p, mcp_handle h, double v)
{
    char line[200];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
             "{\"progressToken\":%llu,\"progress\":%g,\"total\":100}}",
             (unsigned long long)h, v);
    peer_feed(p, line);
}

static void feed_result(peer *p, mcp_handle h)
{
    char line[128];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"result\":{\"content\":[]}}",
             (unsigned long long)h);
    peer_feed(p, line);
}

/* The cancel the session sent for h, checked, with its reason (or NULL). */
static const char *expect_cancel(peer *p, mcp_handle h)
{
    const mcp_message *c = peer_next(p);
    assert_true(msg_is_method(c, "notifications/cancelled"));
    int64_t rid;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(c->params, "requestId"), &rid), MCP_OK);
    assert_int_equal((mcp_handle)rid, h);
    return mcp_json_string(mcp_json_object_get(c->params, "reason"), NULL);
}

static int outcome_of(const peer *p, mcp_handle h)
{
    int i = peer_response_index(p, h);
    return i < 0 ? 1 : p->outcomes[i];
}

/* Endings -------------------------------------------------------------------- */

static void a_result_ends_the_request_with_ok(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    feed_result(&p, h);
    assert_int_equal(outcome_of(&p, h), MCP_OK);
    assert_non_null(mcp_json_object_get(peer_response_msg(&p, h)->result, "content"));
    assert_int_equal(mcp_session_outbound_count(p.s), 0);
    assert_int_equal(mcp_session_next_deadline(p.s), UINT64_MAX);
    peer_free(&p);
}

static void an_error_response_ends_the_request_with_remote(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    char line[160];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"error\":{\"code\":-32602,\"message\":\"Unknown tool\"}}",
             (unsigned long long)h);
    peer_feed(&p, line);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_REMOTE);
    assert_int_equal(peer_response_msg(&p, h)->error_code, -32602);
    peer_free(&p);
}

/* An answer the session cannot use must end its request at once: waiting
 * for the timeout (60 s by default) for a reply that has already come was
 * the bug. Each is answered on a fresh request; the session stays usable. */
static void an_unusable_answer_ends_its_request_at_once_with_protocol(void **state)
{
    static const char *const answers[] = {
        "{\"id\":@,\"result\":{\"content\":[]}}",                  /* no "jsonrpc" */
        "{\"jsonrpc\":\"1.0\",\"id\":@,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":@,\"result\":{},\"error\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":@,\"error\":{\"code\":\"x\",\"message\":5}}",
        "{\"jsonrpc\":\"2.0\",\"id\":@,\"error\":{\"code\":1e400,\"message\":\"m\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":@,\"result\":5}",           /* results are objects */
        "{\"jsonrpc\":\"2.0\",\"id\":@,\"result\":null}",
        "{\"jsonrpc\":\"2.0\",\"id\":@,\"result\":[]}",
        "{\"jsonrpc\":\"2.0\",\"id\":@,\"result\":{\"t\":\"\xff\"}}", /* not UTF-8 */
        "{\"jsonrpc\":\"2.0\",\"id\":@,\"result\":{\"t\":\"a\tb\"}}", /* raw tab */
    };
    peer p;
    ready_client(&p, NULL);
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
        mcp_handle h, other;
        call(&p, NULL, &h);
        call(&p, NULL, &other);
        char line[200];
        const char *at = strchr(answers[i], '@');
        snprintf(line, sizeof line, "%.*s%llu%s", (int)(at - answers[i]), answers[i],
                 (unsigned long long)h, at + 1);
        peer_feed(&p, line);
        assert_int_equal(outcome_of(&p, h), MCP_ERR_PROTOCOL);
        assert_int_equal(outcome_of(&p, other), 1); /* still waiting */
        assert_null(peer_next(&p));                 /* a response is never answered */
        feed_result(&p, other);
        assert_int_equal(outcome_of(&p, other), MCP_OK);
    }
    assert_int_equal(mcp_session_outbound_count(p.s), 0);
    assert_false(mcp_session_closed(p.s));
    peer_free(&p);
}

static void the_four_local_endings_are_distinct_codes(void **state)
{
    const int codes[] = {MCP_ERR_ABORTED, MCP_ERR_TIMED_OUT, MCP_ERR_MAX_TIME, MCP_ERR_CLOSED,
                         MCP_ERR_REMOTE, MCP_OK};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < i; j++)
            assert_int_not_equal(codes[i], codes[j]);
    /* And none is a JSON-RPC wire code. */
    for (int i = 0; i < 5; i++)
        assert_true(codes[i] > -1000);
}

/* Idle timeout ----------------------------------------------------------------- */

static void idle_timeout_sends_a_cancel_with_its_reason_and_ends_timed_out(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    assert_int_equal(mcp_session_next_deadline(p.s), p.now + MCP_DEFAULT_TIMEOUT_MS);
    peer_advance(&p, MCP_DEFAULT_TIMEOUT_MS - 1);
    assert_int_equal(outcome_of(&p, h), 1);
    peer_advance(&p, 1);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_TIMED_OUT);
    assert_string_equal(expect_cancel(&p, h), "timed out after 60000 ms");
    const mcp_log_record *r = peer_last_log(&p, MCP_LOG_EVENT_CANCEL_SENT);
    assert_string_equal(r->direction, "outbound");
    assert_string_equal(r->method, "tools/call");
    assert_int_equal(r->age_ms, MCP_DEFAULT_TIMEOUT_MS);
    peer_free(&p);
}

static void progress_resets_the_idle_timeout(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = 1000};
    call(&p, &o, &h);
    for (int i = 1; i <= 5; i++) {
        peer_advance(&p, 900);
        feed_progress(&p, h, i);
    }
    assert_int_equal(outcome_of(&p, h), 1); /* 4500 ms, still alive */
    assert_int_equal(p.nprogress, 5);
    assert_int_equal(mcp_session_next_deadline(p.s), p.now + 1000);
    peer_advance(&p, 1000);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_TIMED_OUT);
    assert_string_equal(expect_cancel(&p, h), "timed out after 1000 ms");
    peer_free(&p);
}

static void progress_does_not_reset_when_only_delivered(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = 1000, .progress = MCP_PROGRESS_DELIVER_ONLY};
    call(&p, &o, &h);
    peer_advance(&p, 900);
    feed_progress(&p, h, 1);
    assert_int_equal(p.nprogress, 1);
    peer_advance(&p, 100);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_TIMED_OUT);
    peer_free(&p);
}

/* Maximum total time ------------------------------------------------------------- */

static void max_time_ends_the_request_despite_progress(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = 1000, .max_time_ms = 3000};
    call(&p, &o, &h);
    for (int i = 1; i <= 3; i++) {
        peer_advance(&p, 900);
        feed_progress(&p, h, i);
    }
    assert_int_equal(outcome_of(&p, h), 1);
    assert_int_equal(mcp_session_next_deadline(p.s), p.now + 300);
    peer_advance(&p, 300);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_MAX_TIME);
    assert_string_equal(expect_cancel(&p, h), "maximum total time 3000 ms exceeded");
    peer_free(&p);
}

static void max_time_is_enforced_without_any_progress(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = MCP_NO_TIMEOUT, .max_time_ms = 2000};
    call(&p, &o, &h);
    peer_advance(&p, 2000);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_MAX_TIME);
    expect_cancel(&p, h);
    peer_free(&p);
}

static void default_max_time_is_thirty_minutes(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = MCP_NO_TIMEOUT};
    call(&p, &o, &h);
    assert_int_equal(mcp_session_next_deadline(p.s), p.now + 1800000);
    peer_advance(&p, 1800000);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_MAX_TIME);
    assert_string_equal(expect_cancel(&p, h), "maximum total time 1800000 ms exceeded");
    peer_free(&p);
}

static void session_defaults_apply_and_calls_override_them(void **state)
{
    mcp_session_options so = {.size = sizeof so, .timeout_ms = 5000, .max_time_ms = 7000};
    peer p;
    ready_client(&p, &so);
    mcp_handle a, b, c;
    call(&p, NULL, &a);
    mcp_request_options o = {.size = sizeof o, .timeout_ms = 100};
    call(&p, &o, &b);
    mcp_request_options none = {.size = sizeof none, .timeout_ms = MCP_NO_TIMEOUT, .max_time_ms = MCP_NO_TIMEOUT};
    call(&p, &none, &c);
    peer_advance(&p, 100);
    assert_int_equal(outcome_of(&p, b), MCP_ERR_TIMED_OUT);
    assert_int_equal(outcome_of(&p, a), 1);
    peer_advance(&p, 4900);
    assert_int_equal(outcome_of(&p, a), MCP_ERR_TIMED_OUT);
    peer_advance(&p, 100000000);
    assert_int_equal(outcome_of(&p, c), 1); /* no timeout at all */
    assert_int_equal(mcp_session_next_deadline(p.s), UINT64_MAX);
    peer_free(&p);
}

static void next_deadline_is_the_earliest_of_all_requests(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle a, b;
    mcp_request_options oa = {.size = sizeof oa, .timeout_ms = 5000}, ob = {.size = sizeof ob, .timeout_ms = 2000};
    call(&p, &oa, &a);
    call(&p, &ob, &b);
    assert_int_equal(mcp_session_next_deadline(p.s), p.now + 2000);
    mcp_session_cancel(p.s, p.now, b, NULL);
    assert_int_equal(mcp_session_next_deadline(p.s), p.now + 5000);
    peer_free(&p);
}

/* Explicit cancel ------------------------------------------------------------------ */

static void cancel_sends_the_reason_and_ends_aborted(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    p.now += 42;
    assert_int_equal(mcp_session_cancel(p.s, p.now, h, "cancelled by user"), MCP_OK);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_ABORTED);
    assert_string_equal(expect_cancel(&p, h), "cancelled by user");
    const mcp_log_record *r = peer_last_log(&p, MCP_LOG_EVENT_CANCEL_SENT);
    assert_string_equal(r->reason, "cancelled by user");
    assert_int_equal(r->age_ms, 42);
    assert_int_equal(mcp_session_cancel(p.s, p.now, h, "again"), MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void cancel_without_reason_omits_it(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    mcp_session_cancel(p.s, p.now, h, NULL);
    assert_null(expect_cancel(&p, h));
    peer_free(&p);
}

static void cancel_of_an_unknown_handle_is_not_found(void **state)
{
    peer p;
    ready_client(&p, NULL);
    assert_int_equal(mcp_session_cancel(p.s, p.now, 12345, NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(mcp_session_cancel(p.s, p.now, UINT64_MAX, NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(peer_unread(&p), 0);
    peer_free(&p);
}

static void late_response_after_a_cancel_is_dropped_quietly(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    mcp_session_cancel(p.s, p.now, h, "x");
    peer_next(&p);
    int before = p.nresponses;
    feed_result(&p, h);
    assert_int_equal(p.nresponses, before); /* no second ending */
    assert_int_equal(peer_unread(&p), 0);
    const mcp_log_record *r = peer_last_log(&p, MCP_LOG_EVENT_DROPPED);
    assert_non_null(r);
    assert_int_equal(r->level, MCP_LOG_DEBUG);
    peer_free(&p);
}

static void late_progress_after_the_end_is_dropped(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    feed_result(&p, h);
    feed_progress(&p, h, 50);
    assert_int_equal(p.nprogress, 0);
    assert_int_equal(peer_count_logs(&p, MCP_LOG_EVENT_DROPPED), 1);
    peer_free(&p);
}

/* Progress tokens -------------------------------------------------------------------- */

static void a_progress_token_is_attached_and_unique(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle a, b;
    const mcp_message *ma = call(&p, NULL, &a);
    const mcp_message *mb = call(&p, NULL, &b);
    int64_t ta, tb;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(
                         mcp_json_object_get(ma->params, "_meta"), "progressToken"), &ta), MCP_OK);
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(
                         mcp_json_object_get(mb->params, "_meta"), "progressToken"), &tb), MCP_OK);
    assert_int_not_equal(ta, tb);
    peer_free(&p);
}

static void existing_meta_is_kept_beside_the_token(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    assert_int_equal(peer_request(&p, "tools/call",
                                  "{\"name\":\"x\",\"_meta\":{\"a\":1,\"progressToken\":\"theirs\"},\"z\":[]}",
                                  NULL, &h), MCP_OK);
    const mcp_message *m = peer_next(&p);
    const mcp_json *meta = mcp_json_object_get(m->params, "_meta");
    int64_t a, tok;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(meta, "a"), &a), MCP_OK);
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(meta, "progressToken"), &tok), MCP_OK);
    assert_int_equal((mcp_handle)tok, h);
    assert_non_null(mcp_json_object_get(m->params, "z"));
    assert_string_equal(mcp_json_string(mcp_json_object_get(m->params, "name"), NULL), "x");
    peer_free(&p);
}

static void no_token_when_progress_is_off(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    mcp_request_options o = {.size = sizeof o, .progress = MCP_PROGRESS_NONE};
    const mcp_message *m = call(&p, &o, &h);
    assert_null(mcp_json_object_get(m->params, "_meta"));
    feed_progress(&p, h, 1); /* not asked for: dropped */
    assert_int_equal(p.nprogress, 0);
    peer_free(&p);
}

static void progress_with_an_unknown_token_is_dropped_never_fatal(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
                  "{\"progressToken\":\"nope\",\"progress\":1}}");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
                  "{\"progressToken\":999,\"progress\":1}}");
    peer_feed(&p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}");
    assert_int_equal(p.nprogress, 0);
    assert_int_equal(peer_unread(&p), 0);
    feed_result(&p, h); /* the session is fine */
    assert_int_equal(outcome_of(&p, h), MCP_OK);
    peer_free(&p);
}

static void malformed_or_non_increasing_progress_is_dropped(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle h;
    call(&p, NULL, &h);
    feed_progress(&p, h, 5);
    feed_progress(&p, h, 5);
    feed_progress(&p, h, 3);
    char line[200];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
             "{\"progressToken\":%llu,\"progress\":\"6\"}}", (unsigned long long)h);
    peer_feed(&p, line);
    feed_progress(&p, h, 6.5);
    assert_int_equal(p.nprogress, 2);
    assert_true(p.progress_values[0] == 5);
    assert_true(p.progress_values[1] == 6.5);
    assert_true(p.progress_totals[1] == 100);
    peer_free(&p);
}

/* Closing --------------------------------------------------------------------------- */

static void close_ends_every_request_with_closed_and_sends_nothing(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle a, b;
    call(&p, NULL, &a);
    call(&p, NULL, &b);
    mcp_session_close(p.s, p.now);
    assert_int_equal(outcome_of(&p, a), MCP_ERR_CLOSED);
    assert_int_equal(outcome_of(&p, b), MCP_ERR_CLOSED);
    assert_int_equal(peer_unread(&p), 0);
    mcp_handle c;
    assert_int_equal(peer_request(&p, "tools/list", NULL, NULL, &c), MCP_ERR_STATE);
    assert_int_equal(mcp_session_next_deadline(p.s), UINT64_MAX);
    peer_free(&p);
}

/* Reentrancy ------------------------------------------------------------------------ */

static mcp_handle other;
static void cancel_other(peer *p, mcp_handle h, int outcome)
{
    if (h != other)
        mcp_session_cancel(p->s, p->now, other, "chained");
}

static void a_callback_may_end_other_requests(void **state)
{
    peer p;
    ready_client(&p, NULL);
    mcp_handle a;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = 10};
    call(&p, &o, &a);
    mcp_request_options o2 = {.size = sizeof o2, .timeout_ms = 10};
    call(&p, &o2, &other);
    p.on_response_hook = cancel_other;
    peer_advance(&p, 10); /* a times out; its callback cancels `other` */
    assert_int_equal(outcome_of(&p, a), MCP_ERR_TIMED_OUT);
    assert_int_equal(outcome_of(&p, other), MCP_ERR_ABORTED);
    peer_free(&p);
}

static void free_session(peer *p, mcp_handle h, int outcome)
{
    mcp_session_free(p->s);
    p->s = NULL;
}

static void freeing_the_session_in_a_response_callback_is_deferred(void **state)
{
    failmalloc fm;
    failmalloc_init(&fm, 0);
    peer p;
    peer_init_mem(&p, MCP_ROLE_CLIENT, NULL, &fm.mem);
    peer_client_ready(&p);
    mcp_handle a, b;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = 10};
    call(&p, &o, &a);
    call(&p, &o, &b);
    p.on_response_hook = free_session;
    mcp_session *s = p.s;
    p.now += 10;
    mcp_session_tick(s, p.now); /* the first timeout frees; no more callbacks */
    assert_null(p.s);
    assert_int_equal(p.nresponses, 2); /* initialize + one */
    peer_free(&p); /* drops the harness's reference to the init result */
    assert_int_equal(fm.live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_result_ends_the_request_with_ok),
        cmocka_unit_test(an_error_response_ends_the_request_with_remote),
        cmocka_unit_test(the_four_local_endings_are_distinct_codes),
        cmocka_unit_test(idle_timeout_sends_a_cancel_with_its_reason_and_ends_timed_out),
        cmocka_unit_test(progress_resets_the_idle_timeout),
        cmocka_unit_test(progress_does_not_reset_when_only_delivered),
        cmocka_unit_test(max_time_ends_the_request_despite_progress),
        cmocka_unit_test(max_time_is_enforced_without_any_progress),
        cmocka_unit_test(default_max_time_is_thirty_minutes),
        cmocka_unit_test(session_defaults_apply_and_calls_override_them),
        cmocka_unit_test(next_deadline_is_the_earliest_of_all_requests),
        cmocka_unit_test(cancel_sends_the_reason_and_ends_aborted),
        cmocka_unit_test(cancel_without_reason_omits_it),
        cmocka_unit_test(cancel_of_an_unknown_handle_is_not_found),
        cmocka_unit_test(late_response_after_a_cancel_is_dropped_quietly),
        cmocka_unit_test(late_progress_after_the_end_is_dropped),
        cmocka_unit_test(a_progress_token_is_attached_and_unique),
        cmocka_unit_test(existing_meta_is_kept_beside_the_token),
        cmocka_unit_test(no_token_when_progress_is_off),
        cmocka_unit_test(progress_with_an_unknown_token_is_dropped_never_fatal),
        cmocka_unit_test(malformed_or_non_increasing_progress_is_dropped),
        cmocka_unit_test(close_ends_every_request_with_closed_and_sends_nothing),
        cmocka_unit_test(a_callback_may_end_other_requests),
        cmocka_unit_test(an_unusable_answer_ends_its_request_at_once_with_protocol),
        cmocka_unit_test(freeing_the_session_in_a_response_callback_is_deferred),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
