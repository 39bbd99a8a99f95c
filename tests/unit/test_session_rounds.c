/* SPDX-License-Identifier: MIT */
/*
 * Session engine: the rounds of a 2026-07-28 call (src/session/rounds.c,
 * basic/patterns/mrtr.mdx), client role, under the fake clock:
 * - the request sent again with a new id, the caller's params, the answers
 *   under the server's keys and requestState echoed exactly; the caller's
 *   own members under those names replaced; answers checked per key;
 * - one handle and one budget across rounds: the idle timeout restarts
 *   with each round, progress resets it, the total limit runs from the
 *   first round, on the engine's timer heap; a cancel or a timeout between
 *   rounds puts nothing on the wire, one during a later round names that
 *   round's id; the reason of a local ending (mcp_session_end_reason);
 * - late answers and progress naming an earlier round are dropped;
 * - the hook refusing, cancelling, or answering at once;
 * - every allocation failure survived, nothing leaked.
 * Built again as a torture test (each send failing in turn).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "failmalloc.h"
#include "peer.h"
#include "torture.h"

static const mcp_json *meta_of(const mcp_json *v)
{
    return mcp_json_object_get(v, "_meta");
}

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    *(int *)ud = outcome;
}

#define DISCOVER_OK                                                                         \
    "{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}," \
    "\"ttlMs\":0,\"cacheScope\":\"public\"}"

static void answer(peer *p, int64_t id, const char *result)
{
    char line[700];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}", (long long)id,
             result);
    peer_feed(p, line);
}

/* The server's progress for token. */
static void progress(peer *p, int64_t token)
{
    char line[160];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
             "{\"progressToken\":%lld,\"progress\":1}}",
             (long long)token);
    peer_feed(p, line);
}

/* Connect p, a new client peer, in 2026-07-28: the connect's outcome. */
static int connect_modern(peer *p)
{
    int outcome = 1;
    mcp_connect_options co = {.size = sizeof co, .mode = MCP_CONNECT_MODERN};
    int rc = mcp_session_connect(p->s, p->now, &co, connected, &outcome);
    if (rc != MCP_OK)
        return rc;
    answer(p, peer_next(p)->id.num, DISCOVER_OK);
    return outcome;
}

static const mcp_session_options client_options = {
    .size = sizeof(mcp_session_options), .timeout_ms = 1000, .max_time_ms = 60000};

static void modern_client(peer *p)
{
    peer_init(p, MCP_ROLE_CLIENT, &client_options);
    assert_int_equal(connect_modern(p), MCP_OK);
}

/* What the hook saw and does. */
static struct {
    int calls;
    mcp_handle handle;
    int verdict;        /* returned */
    bool cancel;        /* cancels the call from inside */
    bool answer_now;    /* answers every question from inside */
    int answer_rc;
} hook;

static const char accept[] = "{\"action\":\"accept\",\"content\":{}}";

static int on_input_required(void *ud, mcp_handle h, const mcp_message *m)
{
    peer_req *r = ud;
    peer *p = r->p;
    assert_false(r->called); /* never after its end */
    hook.calls++;
    hook.handle = h;
    if (hook.cancel)
        assert_int_equal(mcp_session_cancel(p->s, p->now, h, "from the hook"), MCP_OK);
    if (hook.answer_now) {
        const mcp_json *reqs = mcp_json_object_get(m->result, "inputRequests");
        mcp_json_doc *d;
        assert_int_equal(mcp_json_parse(accept, strlen(accept), NULL, NULL, &d, NULL), MCP_OK);
        for (size_t i = 0; i < mcp_json_object_size(reqs); i++) {
            const char *k;
            size_t kn;
            mcp_json_object_at(reqs, i, &k, &kn);
            hook.answer_rc = mcp_session_input_response(p->s, p->now, h, k, kn,
                                                        mcp_json_doc_root(d));
        }
        mcp_json_doc_free(d);
    }
    return hook.verdict;
}

static int respond(peer *p, mcp_handle h, const char *key, const char *json)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(json, strlen(json), NULL, NULL, &d, NULL), MCP_OK);
    int rc = mcp_session_input_response(p->s, p->now, h, key, strlen(key), mcp_json_doc_root(d));
    mcp_json_doc_free(d);
    return rc;
}

static void reset_hook(void)
{
    memset(&hook, 0, sizeof hook);
}

static const char *end_reason;
static char end_reason_copy[120];
static void keep_reason(peer *p, mcp_handle h, int outcome)
{
    end_reason = mcp_session_end_reason(p->s);
    snprintf(end_reason_copy, sizeof end_reason_copy, "%s", end_reason ? end_reason : "");
}

static int outcome_of(const peer *p, mcp_handle h)
{
    int k = peer_response_index(p, h);
    return k < 0 ? 1 : p->outcomes[k];
}

#define TWO_QUESTIONS(state)                                                                  \
    "{\"resultType\":\"input_required\",\"inputRequests\":{\"a\":{\"method\":"                \
    "\"elicitation/create\",\"params\":{\"message\":\"m\"}},\"b c\":{\"method\":"             \
    "\"roots/list\"}}" state "}"

static void a_round_is_sent_again_with_the_answers_and_the_state(void **state)
{
    reset_hook();
    peer p;
    modern_client(&p);
    mcp_request_options o = {.size = sizeof o, .progress = MCP_PROGRESS_RESET_TIMEOUT,
                             .on_input_required = on_input_required};
    mcp_handle h = 0;
    assert_int_equal(peer_request(&p, "tools/call",
                                  "{\"name\":\"t\",\"arguments\":{\"x\":1},\"requestState\":"
                                  "\"mine\",\"inputResponses\":5}",
                                  &o, &h),
                     MCP_OK);
    const mcp_message *first = peer_next(&p);
    assert_int_equal(first->id.num, (int64_t)h);
    /* The first round carries the caller's params as given. */
    assert_string_equal(mcp_json_string(mcp_json_object_get(first->params, "requestState"), NULL),
                        "mine");
    answer(&p, (int64_t)h, TWO_QUESTIONS(",\"requestState\":\"s\\\"\\u00e9\\n\""));
    assert_int_equal(hook.calls, 1);
    assert_int_equal(hook.handle, h);
    assert_int_equal(peer_response_index(&p, h), -1); /* not over */
    assert_int_equal(mcp_session_outbound_count(p.s), 1);
    /* Answers, checked per key. */
    assert_int_equal(respond(&p, h, "a", accept), MCP_OK);
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(respond(&p, h, "a", accept), MCP_ERR_INVALID_ARG);  /* twice */
    assert_int_equal(respond(&p, h, "zz", accept), MCP_ERR_INVALID_ARG); /* not asked */
    assert_int_equal(respond(&p, h, "b c", "[1]"), MCP_ERR_INVALID_ARG); /* not an object */
    assert_int_equal(respond(&p, h + 1000, "a", accept), MCP_ERR_NOT_FOUND);
    assert_int_equal(respond(&p, h, "b c", "{\"roots\":[]}"), MCP_OK);
    const mcp_message *second = peer_next(&p);
    assert_true(msg_is_method(second, "tools/call"));
    assert_true(second->id.num > (int64_t)h);
    const mcp_json *params = second->params;
    assert_string_equal(mcp_json_string(mcp_json_object_get(params, "name"), NULL), "t");
    assert_non_null(mcp_json_object_get(mcp_json_object_get(params, "arguments"), "x"));
    const mcp_json *ir = mcp_json_object_get(params, "inputResponses");
    assert_int_equal(mcp_json_object_size(ir), 2);
    assert_string_equal(mcp_json_string(mcp_json_object_get(mcp_json_object_get(ir, "a"),
                                                            "action"),
                                        NULL),
                        "accept");
    assert_non_null(mcp_json_object_get(ir, "b c"));
    assert_string_equal(mcp_json_string(mcp_json_object_get(params, "requestState"), NULL),
                        "s\"\xc3\xa9\n");
    /* Its own progress token and the envelope. */
    int64_t token = 0;
    mcp_json_get_int64(mcp_json_object_get(meta_of(params), "progressToken"), &token);
    assert_int_equal(token, second->id.num);
    assert_non_null(mcp_json_object_get(meta_of(params), "io.modelcontextprotocol/protocolVersion"));
    /* No more answers while a round is on the wire. */
    assert_int_equal(respond(&p, h, "a", accept), MCP_ERR_NOT_FOUND);
    /* An answer or progress naming the first round is late: dropped. */
    answer(&p, (int64_t)h, "{\"content\":[]}");
    assert_int_equal(peer_response_index(&p, h), -1);
    progress(&p, (int64_t)h);
    assert_int_equal(p.nprogress, 0);
    /* A round with only a state: sent again at once, no inputResponses. */
    answer(&p, second->id.num, "{\"resultType\":\"input_required\",\"requestState\":\"two\"}");
    assert_int_equal(hook.calls, 2);
    const mcp_message *third = peer_next(&p);
    assert_true(third->id.num > second->id.num);
    assert_null(mcp_json_object_get(third->params, "inputResponses"));
    assert_string_equal(mcp_json_string(mcp_json_object_get(third->params, "requestState"), NULL),
                        "two");
    /* The final result ends the call under its handle. */
    answer(&p, third->id.num, "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}");
    assert_int_equal(outcome_of(&p, h), MCP_OK);
    assert_int_equal(mcp_session_outbound_count(p.s), 0);
    peer_free(&p);
}

/* One call, one budget: the idle timeout restarts when a round's questions
 * arrive and when the next round goes out, progress resets it, the total
 * limit runs from the first round. */
static void one_budget_across_rounds(void **state)
{
    reset_hook();
    peer p;
    modern_client(&p);
    p.on_response_hook = keep_reason;
    uint64_t t0 = p.now;
    mcp_request_options o = {.size = sizeof o, .timeout_ms = 1000, .max_time_ms = 2500,
                             .progress = MCP_PROGRESS_RESET_TIMEOUT,
                             .on_input_required = on_input_required};
    mcp_handle h = 0;
    assert_int_equal(peer_request(&p, "tools/call", "{\"name\":\"t\"}", &o, &h), MCP_OK);
    peer_next(&p);
    assert_int_equal(mcp_session_next_deadline(p.s), t0 + 1000);
    peer_advance(&p, 900);
    answer(&p, (int64_t)h, TWO_QUESTIONS(""));
    /* Answering: the idle timeout restarted. */
    assert_int_equal(mcp_session_next_deadline(p.s), t0 + 1900);
    peer_advance(&p, 800);
    assert_int_equal(respond(&p, h, "a", accept), MCP_OK);
    assert_int_equal(respond(&p, h, "b c", "{\"roots\":[]}"), MCP_OK);
    const mcp_message *second = peer_next(&p);
    /* Sent at t0+1700: idle until t0+2700, but the total ends at t0+2500. */
    assert_int_equal(mcp_session_next_deadline(p.s), t0 + 2500);
    peer_advance(&p, 799);
    assert_int_equal(peer_response_index(&p, h), -1);
    peer_advance(&p, 1);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_MAX_TIME);
    assert_string_equal(end_reason_copy, "maximum total time 2500 ms exceeded");
    /* The cancel names the round on the wire. */
    const mcp_message *c = peer_next(&p);
    assert_true(msg_is_method(c, "notifications/cancelled"));
    int64_t named = 0;
    mcp_json_get_int64(mcp_json_object_get(c->params, "requestId"), &named);
    assert_int_equal(named, second->id.num);

    /* The idle timeout while the questions are answered: nothing on the
     * wire, the reason to the caller. */
    o.max_time_ms = 0;
    assert_int_equal(peer_request(&p, "tools/call", "{\"name\":\"t\"}", &o, &h), MCP_OK);
    answer(&p, peer_next(&p)->id.num, TWO_QUESTIONS(""));
    peer_advance(&p, 999);
    assert_int_equal(peer_response_index(&p, h), -1);
    peer_advance(&p, 1);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_TIMED_OUT);
    assert_string_equal(end_reason_copy, "timed out after 1000 ms");
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(respond(&p, h, "a", accept), MCP_ERR_NOT_FOUND);

    /* Progress during a later round resets that round's idle clock. */
    assert_int_equal(peer_request(&p, "tools/call", "{\"name\":\"t\"}", &o, &h), MCP_OK);
    answer(&p, peer_next(&p)->id.num, "{\"resultType\":\"input_required\",\"requestState\":\"x\"}");
    const mcp_message *later = peer_next(&p);
    peer_advance(&p, 900);
    progress(&p, later->id.num);
    assert_int_equal(p.nprogress, 1);
    assert_int_equal(p.progress_handles[0], h); /* under the call's handle */
    peer_advance(&p, 900);
    assert_int_equal(peer_response_index(&p, h), -1);
    peer_advance(&p, 100);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_TIMED_OUT);
    peer_free(&p);
}

static void a_cancel_between_rounds_sends_nothing(void **state)
{
    reset_hook();
    peer p;
    modern_client(&p);
    p.on_response_hook = keep_reason;
    mcp_request_options o = {.size = sizeof o, .on_input_required = on_input_required};
    mcp_handle h = 0;
    assert_int_equal(peer_request(&p, "prompts/get", "{\"name\":\"p\"}", &o, &h), MCP_OK);
    answer(&p, peer_next(&p)->id.num, TWO_QUESTIONS(""));
    assert_int_equal(mcp_session_cancel(p.s, p.now, h, "user pressed stop"), MCP_OK);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_ABORTED);
    assert_string_equal(end_reason_copy, "user pressed stop");
    assert_int_equal(peer_unread(&p), 0);
    assert_int_equal(mcp_session_cancel(p.s, p.now, h, NULL), MCP_ERR_NOT_FOUND);
    assert_int_equal(respond(&p, h, "a", accept), MCP_ERR_NOT_FOUND);
    assert_int_equal(mcp_session_outbound_count(p.s), 0);
    /* Outside a response callback there is no reason. */
    assert_null(mcp_session_end_reason(p.s));
    peer_free(&p);
}

/* A peer's answer fed in from inside another request's local ending has
 * no reason of its own: that ending's reason is not B's. */
static mcp_handle nested_b;
static int64_t nested_b_wire;
static bool nested_b_seen;
static const char *nested_b_reason;
static void answer_b_inside(peer *p, mcp_handle h, int outcome)
{
    (void)outcome;
    if (h == nested_b) {
        nested_b_seen = true;
        nested_b_reason = mcp_session_end_reason(p->s);
        return;
    }
    if (nested_b_wire) {
        int64_t id = nested_b_wire;
        nested_b_wire = 0;
        answer(p, id, "{\"content\":[]}");
    }
}

static void an_answer_inside_a_local_ending_has_no_reason(void **state)
{
    peer p;
    modern_client(&p);
    p.on_response_hook = answer_b_inside;
    mcp_handle a = 0;
    assert_int_equal(peer_request(&p, "tools/call", NULL, NULL, &a), MCP_OK);
    peer_next(&p);
    assert_int_equal(peer_request(&p, "tools/call", NULL, NULL, &nested_b), MCP_OK);
    nested_b_wire = peer_next(&p)->id.num;
    nested_b_seen = false;
    nested_b_reason = "unset";
    assert_int_equal(mcp_session_cancel(p.s, p.now, a, "user pressed stop"), MCP_OK);
    assert_true(nested_b_seen);
    assert_null(nested_b_reason);
    peer_free(&p);
}

static void the_hook_may_refuse_end_or_answer_at_once(void **state)
{
    peer p;
    modern_client(&p);
    mcp_request_options o = {.size = sizeof o, .on_input_required = on_input_required};
    mcp_handle h = 0;
    /* Refused: the call ends with the hook's code, nothing is sent. */
    reset_hook();
    hook.verdict = MCP_ERR_PROTOCOL;
    assert_int_equal(peer_request(&p, "tools/call", NULL, &o, &h), MCP_OK);
    answer(&p, peer_next(&p)->id.num, TWO_QUESTIONS(""));
    assert_int_equal(outcome_of(&p, h), MCP_ERR_PROTOCOL);
    assert_int_equal(peer_unread(&p), 0);
    /* Cancelled from inside: ended once, nothing on the wire. */
    reset_hook();
    hook.cancel = true;
    assert_int_equal(peer_request(&p, "tools/call", NULL, &o, &h), MCP_OK);
    answer(&p, peer_next(&p)->id.num, TWO_QUESTIONS(""));
    assert_int_equal(outcome_of(&p, h), MCP_ERR_ABORTED);
    assert_int_equal(peer_unread(&p), 0);
    /* Answered from inside: the next round goes out once the hook is back. */
    reset_hook();
    hook.answer_now = true;
    assert_int_equal(peer_request(&p, "resources/read", "{\"uri\":\"a:b\"}", &o, &h), MCP_OK);
    answer(&p, peer_next(&p)->id.num, TWO_QUESTIONS(""));
    assert_int_equal(hook.answer_rc, MCP_OK);
    const mcp_message *again = peer_next(&p);
    assert_true(msg_is_method(again, "resources/read"));
    assert_int_equal(mcp_json_object_size(mcp_json_object_get(again->params, "inputResponses")), 2);
    answer(&p, again->id.num, "{\"contents\":[]}");
    assert_int_equal(outcome_of(&p, h), MCP_OK);
    /* What the engine cannot use, even taken by the hook. */
    static const char *const unusable[] = {
        "{\"resultType\":\"input_required\"}",
        "{\"resultType\":\"input_required\",\"inputRequests\":[]}",
        "{\"resultType\":\"input_required\",\"requestState\":5}",
    };
    for (int i = 0; i < 3; i++) {
        reset_hook();
        assert_int_equal(peer_request(&p, "tools/call", NULL, &o, &h), MCP_OK);
        answer(&p, peer_next(&p)->id.num, unusable[i]);
        assert_int_equal(outcome_of(&p, h), MCP_ERR_PROTOCOL);
    }
    /* Without a hook, or for another method, input_required is a result
     * as before. */
    reset_hook();
    assert_int_equal(peer_request(&p, "tools/call", NULL, NULL, &h), MCP_OK);
    answer(&p, peer_next(&p)->id.num, TWO_QUESTIONS(""));
    assert_int_equal(outcome_of(&p, h), MCP_OK);
    assert_int_equal(hook.calls, 0);
    assert_int_equal(mcp_session_outbound_count(p.s), 0);
    peer_free(&p);
}

/* The connection ends between rounds: the call ends with MCP_ERR_CLOSED. */
static void a_close_between_rounds_ends_the_call(void **state)
{
    reset_hook();
    peer p;
    modern_client(&p);
    p.on_response_hook = keep_reason;
    mcp_request_options o = {.size = sizeof o, .on_input_required = on_input_required};
    mcp_handle h = 0;
    assert_int_equal(peer_request(&p, "tools/call", NULL, &o, &h), MCP_OK);
    answer(&p, peer_next(&p)->id.num, TWO_QUESTIONS(""));
    mcp_session_close(p.s, p.now);
    assert_int_equal(outcome_of(&p, h), MCP_ERR_CLOSED);
    assert_string_equal(end_reason_copy, "connection closed");
    peer_free(&p);
}

static void every_allocation_failure_in_rounds_is_survived(void **state)
{
    bool completed = false;
    for (long k = 1; k < 5000 && !completed; k++) {
        reset_hook();
        failmalloc fm;
        failmalloc_init(&fm, k);
        peer p;
        if (peer_try_init_mem(&p, MCP_ROLE_CLIENT, &client_options, &fm.mem) != MCP_OK) {
            p.s = NULL;
            peer_free(&p);
            assert_int_equal(fm.live, 0);
            continue;
        }
        if (connect_modern(&p) != MCP_OK) {
            peer_free(&p);
            assert_int_equal(fm.live, 0);
            continue;
        }
        mcp_request_options o = {.size = sizeof o, .on_input_required = on_input_required};
        mcp_handle h = 0;
        if (peer_request(&p, "tools/call", "{\"name\":\"t\",\"arguments\":{\"x\":[1,2]}}", &o,
                         &h) == MCP_OK) {
            peer_next(&p);
            answer(&p, (int64_t)h, TWO_QUESTIONS(",\"requestState\":\"st\""));
            respond(&p, h, "a", accept);
            respond(&p, h, "b c", "{\"roots\":[]}");
            const mcp_message *again = peer_unread(&p) ? peer_next(&p) : NULL;
            if (again && again->id.kind == MCP_ID_INT)
                answer(&p, again->id.num, "{\"content\":[]}");
            if (peer_response_index(&p, h) < 0)
                mcp_session_cancel(p.s, p.now, h, NULL);
            /* Ended exactly once (peer.c), whichever way. */
            assert_true(peer_response_index(&p, h) >= 0);
            completed = !fm.failed && outcome_of(&p, h) == MCP_OK;
        }
        assert_int_equal(mcp_session_outbound_count(p.s), 0);
        peer_free(&p);
        assert_int_equal(fm.live, 0);
    }
    assert_true(completed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_round_is_sent_again_with_the_answers_and_the_state),
        cmocka_unit_test(one_budget_across_rounds),
        cmocka_unit_test(a_cancel_between_rounds_sends_nothing),
        cmocka_unit_test(an_answer_inside_a_local_ending_has_no_reason),
        cmocka_unit_test(the_hook_may_refuse_end_or_answer_at_once),
        cmocka_unit_test(a_close_between_rounds_ends_the_call),
        cmocka_unit_test(every_allocation_failure_in_rounds_is_survived),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
