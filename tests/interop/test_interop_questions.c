/* SPDX-License-Identifier: MIT */
/*
 * libmcp's client answering the questions of servers on the official
 * TypeScript SDK, over stdio:
 * - v1 (@modelcontextprotocol/sdk 1.32.2, ts_ask_server.mjs) under
 *   2025-11-25: elicitInput, createMessage and listRoots from a tool are
 *   requests our handlers answer; the SDK checks our capabilities before it
 *   asks and the form's content against its schema after (the defaults we
 *   add included); a decline reaches the tool as the SDK's error; when our
 *   cancel of the call makes the SDK cancel its question, or its own
 *   timeout does, our question's token fires and our late answer is
 *   dropped.
 * - v2 (@modelcontextprotocol/server 2.4.0, ts2_ask_server.mjs) under
 *   2026-07-28: the same tools answer with input-required results; our
 *   client answers and retries with the state the SDK gave (checked by
 *   the tool), in one round or several.
 * MCP_INTEROP_NODE and MCP_INTEROP_DIR name node and the scripts' directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "missing.h"
#include "mcp/mcp.h"
#include "stderr_wait.h"

typedef enum { ANSWER, DECLINE, HOLD, LATER } behaviour;

static struct {
    behaviour how;
    int asked;
    mcp_question *held;
    const char *form_answer;
} h;

static mcp_json_doc *json(const char *text)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static void says(const char *text, const char *needle)
{
    if (!text || !strstr(text, needle))
        fail_msg("\"%s\" does not say \"%s\"", text ? text : "(null)", needle);
}

static int answer(mcp_question *q)
{
    const char *m = mcp_question_method(q);
    /* No form answer set: "not yet" twice, then yes. */
    const char *form = h.form_answer ? h.form_answer
                       : h.asked < 3 ? "{\"action\":\"accept\",\"content\":{\"ok\":false}}"
                                     : "{\"action\":\"accept\",\"content\":{\"ok\":true}}";
    mcp_json_doc *d = json(!strcmp(m, "sampling/createMessage")
                               ? "{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
                                 "\"text\":\"4\"},\"model\":\"m\"}"
                               : form);
    char why[200];
    int rc = mcp_question_answer(q, mcp_json_doc_root(d), why, sizeof why);
    mcp_json_doc_free(d);
    return rc;
}

static void *later(void *arg)
{
    usleep(20000);
    assert_int_equal(answer(arg), MCP_OK);
    return NULL;
}

static void on_question(void *ud, mcp_question *q)
{
    h.asked++;
    if (h.how == ANSWER) {
        assert_int_equal(answer(q), MCP_OK);
    } else if (h.how == DECLINE) {
        assert_int_equal(mcp_question_decline(q), MCP_OK);
    } else if (h.how == HOLD) {
        h.held = q;
    } else {
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, later, q), 0);
        pthread_detach(t);
    }
}

static void reset(behaviour how)
{
    h.how = how;
    h.asked = 0;
    h.held = NULL;
    h.form_answer = "{\"action\":\"accept\",\"content\":{\"ok\":true}}";
}

static mcp_client *connect_script(const char *script, bool modern)
{
    const char *node = getenv("MCP_INTEROP_NODE"), *dir = getenv("MCP_INTEROP_DIR");
    assert_non_null(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, script);
    const char *const argv[] = {node, path, NULL};
    mcp_json_doc *roots = json("[{\"uri\":\"file:///work\",\"name\":\"work\"}]");
    mcp_client_options o = {.size = sizeof o,
                            .capture_stderr = true,
                            .close_grace_ms = 2000,
                            .connect_mode = modern ? MCP_CONNECT_MODERN : MCP_CONNECT_LEGACY,
                            .protocol_version = modern ? "2026-07-28" : "2025-11-25",
                            .on_sampling = on_question,
                            .on_elicitation = on_question,
                            .roots = mcp_json_doc_root(roots)};
    mcp_client *c;
    assert_int_equal(mcp_client_new(&o, &c), MCP_OK);
    mcp_json_doc_free(roots);
    if (mcp_client_connect_stdio(c, argv) != MCP_OK)
        fail_msg("cannot connect to %s: %s\n%s", script, mcp_client_error(c),
                 mcp_client_stderr(c, NULL));
    return c;
}

/* The tool's first text (caller frees), and whether it is an error. */
static int call(mcp_client *c, const char *tool, char **text, bool *is_error)
{
    mcp_client_call_result r = {.size = sizeof r};
    int rc = mcp_client_call_tool(c, tool, NULL, NULL, &r);
    const char *t = mcp_json_string(
        mcp_json_object_get(mcp_json_array_at(mcp_json_object_get(r.result, "content"), 0),
                            "text"),
        NULL);
    *text = t ? strdup(t) : NULL;
    if (is_error)
        *is_error = r.is_error;
    mcp_client_call_result_release(&r);
    return rc;
}

static void the_v1_server_gets_our_answers_under_2025(void **state)
{
    mcp_client *c = connect_script("ts_ask_server.mjs", false);
    char *text;
    bool err;
    reset(ANSWER);
    /* Its schema check passes only with the defaults we added. */
    assert_int_equal(call(c, "form", &text, &err), MCP_OK);
    assert_false(err);
    says(text, "\"action\":\"accept\"");
    says(text, "\"ok\":true");
    says(text, "\"name\":\"Ann\"");
    says(text, "\"age\":30");
    free(text);
    reset(LATER);
    assert_int_equal(call(c, "sample", &text, &err), MCP_OK);
    assert_string_equal(text, "model m said 4");
    free(text);
    assert_int_equal(call(c, "roots", &text, &err), MCP_OK);
    assert_string_equal(text, "file:///work");
    free(text);
    /* A decline: the SDK's error reaches the tool, which reports it. */
    reset(DECLINE);
    assert_int_equal(call(c, "sample", &text, &err), MCP_OK);
    assert_true(err);
    says(text, "The user declined");
    free(text);
    reset(DECLINE);
    assert_int_equal(call(c, "form", &text, &err), MCP_OK);
    says(text, "\"action\":\"decline\"");
    free(text);
    mcp_client_free(c);
}

typedef struct pending {
    bool done;
    int outcome;
} pending;

static void done(void *ud, const mcp_client_call_result *r)
{
    pending *p = ud;
    p->done = true;
    p->outcome = r->outcome;
}

static void drive_until(mcp_client *c, bool (*cond)(void *), void *arg)
{
    uint64_t end = mcp_monotonic_ms() + 10000;
    while (!cond(arg)) {
        if (mcp_monotonic_ms() > end)
            fail_msg("timed out; the server said:\n%s", mcp_client_stderr(c, NULL));
        mcp_client_run_once(c, false);
        usleep(1000);
    }
}

static bool held(void *arg)
{
    return h.held != NULL;
}

static bool fired(void *arg)
{
    return mcp_cancel_token_is_cancelled(mcp_question_token(h.held));
}

static void the_v1_servers_cancels_reach_our_question(void **state)
{
    mcp_client *c = connect_script("ts_ask_server.mjs", false);
    /* Our cancel of the call: the SDK aborts the tool, which cancels its
     * question with our reason. */
    reset(HOLD);
    pending p = {0};
    mcp_handle hd;
    assert_int_equal(mcp_client_call_tool_async(c, "held", NULL, NULL, done, &p, &hd), MCP_OK);
    drive_until(c, held, NULL);
    assert_int_equal(mcp_client_cancel(c, hd, "user pressed stop"), MCP_OK);
    drive_until(c, fired, NULL);
    assert_string_equal(mcp_cancel_token_reason(mcp_question_token(h.held)), "user pressed stop");
    assert_int_equal(mcp_question_decline(h.held), MCP_ERR_CANCELLED);
    assert_true(server_stderr_says(c, "held: ", 5000));
    /* Its own timeout. */
    reset(HOLD);
    char *text;
    memset(&p, 0, sizeof p);
    assert_int_equal(mcp_client_call_tool_async(c, "impatient", NULL, NULL, done, &p, NULL),
                     MCP_OK);
    drive_until(c, held, NULL);
    drive_until(c, fired, NULL);
    says(mcp_cancel_token_reason(mcp_question_token(h.held)), "timed out");
    assert_int_equal(mcp_question_decline(h.held), MCP_ERR_CANCELLED);
    while (!p.done)
        mcp_client_run_once(c, true);
    assert_int_equal(p.outcome, MCP_OK);
    /* The connection goes on. */
    reset(ANSWER);
    assert_int_equal(call(c, "roots", &text, NULL), MCP_OK);
    free(text);
    mcp_client_free(c);
}

static void the_v2_server_gets_our_answers_under_2026(void **state)
{
    mcp_client *c = connect_script("ts2_ask_server.mjs", true);
    assert_string_equal(mcp_client_protocol_version(c), "2026-07-28");
    char *text;
    bool err;
    reset(ANSWER);
    assert_int_equal(call(c, "form", &text, &err), MCP_OK);
    assert_false(err);
    /* The answer with our defaults, and the state the SDK gave, back. */
    says(text, "\"action\":\"accept\"");
    says(text, "\"content\":{\"ok\":true,\"name\":\"Ann\",\"age\":30}");
    says(text, "\"state\":\"form-1\"");
    assert_int_equal(h.asked, 1);
    free(text);
    reset(LATER);
    assert_int_equal(call(c, "sample", &text, NULL), MCP_OK);
    assert_string_equal(text, "model m said 4");
    free(text);
    reset(ANSWER);
    assert_int_equal(call(c, "roots", &text, NULL), MCP_OK);
    assert_string_equal(text, "file:///work");
    free(text);
    reset(ANSWER);
    assert_int_equal(call(c, "both", &text, NULL), MCP_OK);
    assert_string_equal(text, "accept {\"ok\":true,\"name\":\"Ann\",\"age\":30} / 4");
    assert_int_equal(h.asked, 2);
    free(text);
    /* Asked again while the answer does not suit it: one round each. */
    reset(ANSWER);
    h.form_answer = NULL;
    assert_int_equal(call(c, "again", &text, NULL), MCP_OK);
    assert_string_equal(text, "ok after 3 rounds");
    assert_int_equal(h.asked, 3);
    assert_true(server_stderr_says(c, "again: round 2, elicit {\"ok\":false,\"name\":\"Ann\"", 5000));
    free(text);
    /* A declined sampling cannot be sent in this era: the call ends. */
    reset(DECLINE);
    assert_int_equal(call(c, "sample", &text, NULL), MCP_ERR_ABORTED);
    says(mcp_client_error(c), "was answered with error -1: The user declined");
    free(text);
    mcp_client_free(c);
}

int main(void)
{
    const char *node = getenv("MCP_INTEROP_NODE");
    if (!node || access(node, X_OK) != 0) {
        char what[4200];
        snprintf(what, sizeof what, "no node at %s (make interop-deps)", node ? node : "(unset)");
        return test_missing(what);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_v1_server_gets_our_answers_under_2025),
        cmocka_unit_test(the_v1_servers_cancels_reach_our_question),
        cmocka_unit_test(the_v2_server_gets_our_answers_under_2026),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
