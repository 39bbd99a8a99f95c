/* SPDX-License-Identifier: MIT */
/*
 * The client answering the server's questions (src/client/handlers.c):
 * sampling, elicitation and roots, in both eras.
 *
 * Against a real mcp_server in this process (serve_fds on a thread, the
 * client on the other end of a socket pair) whose blocking tools call
 * mcp_call_ask: under 2025-11-25 the question is the server's request and
 * the answer its response; under 2026-07-28 it comes in an
 * InputRequiredResult and the answer in the retry. The same handlers and
 * tools run in both eras: an answer, a decline, an error, a form answer
 * that breaks its schema, defaults, a question held until it is
 * withdrawn (the server's cancel, the caller's cancel, a timeout, the
 * connection's end: the token fires, the late answer is not sent), the
 * bound on rounds.
 *
 * Against a server the test plays itself on the wire (scripted.h): what cannot
 * be had from a well-behaved one: the capabilities declared in both eras,
 * a question for a capability not declared, a malformed InputRequiredResult,
 * requestState echoed byte for byte or left out, the retry's new id, roots
 * changing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/internal.h"
#include "mcp/mcp.h"
#include "scripted.h"
#include "wire.h"

static mcp_json_doc *json(const char *text)
{
    mcp_json_doc *d;
    if (mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL) != MCP_OK)
        fail_msg("not JSON: %s", text);
    return d;
}

static char *to_text(const mcp_json *v)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_json_write(v, &b), MCP_OK);
    return b.data;
}

static void says(const char *text, const char *needle)
{
    if (!text || !strstr(text, needle))
        fail_msg("\"%s\" does not say \"%s\"", text ? text : "(null)", needle);
}

/* The server: tools that ask ------------------------------------------------------------ */

#define FORM_SCHEMA                                                                         \
    "{\"type\":\"object\",\"properties\":{"                                                 \
    "\"name\":{\"type\":\"string\",\"title\":\"Name\",\"default\":\"Ann\"},"               \
    "\"age\":{\"type\":\"integer\",\"minimum\":18,\"default\":30},"                         \
    "\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\",\"name\"]}"

static atomic_int server_outcome; /* the last ask's outcome, in the tool */

/* Ask (key, method, params text or NULL, timeout) and say what came back:
 * the answer as JSON, or "ask failed: ..." as a tool error. The call is
 * finished when the ask says so (2026 round, cancelled). */
static void ask_and_tell(mcp_call *c, const char *key, const char *method, const char *params,
                         uint64_t timeout_ms)
{
    mcp_json_doc *p = params ? json(params) : NULL;
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, key, method, p ? mcp_json_doc_root(p) : NULL, timeout_ms, &a);
    mcp_json_doc_free(p);
    atomic_store(&server_outcome, rc);
    if (rc == MCP_ERR_INPUT_REQUIRED || rc == MCP_ERR_CANCELLED) {
        mcp_call_finish(c);
    } else if (rc == MCP_OK) {
        char *t = to_text(mcp_json_doc_root(a.result));
        mcp_call_reply_text(c, t);
        free(t);
    } else {
        char text[400];
        snprintf(text, sizeof text, "ask failed: %s (%lld %s)", mcp_strerror(rc),
                 (long long)a.error_code, a.error_message ? a.error_message : "");
        mcp_call_reply_tool_error(c, text);
    }
    mcp_ask_answer_release(&a);
}

static void tool_form(void *ud, mcp_call *c)
{
    ask_and_tell(c, "form", "elicitation/create",
                 "{\"message\":\"Who are you?\",\"requestedSchema\":" FORM_SCHEMA "}", 0);
}

static void tool_url(void *ud, mcp_call *c)
{
    ask_and_tell(c, "url", "elicitation/create",
                 "{\"mode\":\"url\",\"message\":\"Sign in\",\"url\":\"https://example.com/x\","
                 "\"elicitationId\":\"e1\"}",
                 0);
}

static void tool_sample(void *ud, mcp_call *c)
{
    ask_and_tell(c, "s", "sampling/createMessage",
                 "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
                 "\"2+2?\"}}],\"maxTokens\":10}",
                 0);
}

static void tool_roots(void *ud, mcp_call *c)
{
    ask_and_tell(c, "r", "roots/list", NULL, 0);
}

/* 2025: the server gives up on its question after 300 ms and cancels it. */
static void tool_impatient(void *ud, mcp_call *c)
{
    ask_and_tell(c, "form", "elicitation/create",
                 "{\"message\":\"Quick!\",\"requestedSchema\":{\"type\":\"object\"}}", 300);
}

/* Two questions: in one round under 2026-07-28, one after the other under
 * 2025. */
static void tool_both(void *ud, mcp_call *c)
{
    mcp_json_doc *f = json("{\"message\":\"Name?\",\"requestedSchema\":" FORM_SCHEMA "}");
    mcp_json_doc *s = json("{\"messages\":[],\"maxTokens\":5}");
    mcp_ask_answer a = {.size = sizeof a}, b = {.size = sizeof b};
    int ra = mcp_call_ask(c, "e", "elicitation/create", mcp_json_doc_root(f), 0, &a);
    int rb = ra == MCP_OK || ra == MCP_ERR_INPUT_REQUIRED
                 ? mcp_call_ask(c, "s", "sampling/createMessage", mcp_json_doc_root(s), 0, &b)
                 : ra;
    mcp_json_doc_free(f);
    mcp_json_doc_free(s);
    atomic_store(&server_outcome, ra != MCP_OK ? ra : rb);
    if (ra == MCP_ERR_INPUT_REQUIRED || rb == MCP_ERR_INPUT_REQUIRED || ra == MCP_ERR_CANCELLED ||
        rb == MCP_ERR_CANCELLED) {
        mcp_call_finish(c);
    } else if (ra != MCP_OK || rb != MCP_OK) {
        mcp_call_reply_tool_error(c, "ask failed");
    } else {
        char *ta = to_text(mcp_json_doc_root(a.result)), *tb = to_text(mcp_json_doc_root(b.result));
        char text[1200];
        snprintf(text, sizeof text, "e=%s s=%s", ta, tb);
        mcp_call_reply_text(c, text);
        free(ta);
        free(tb);
    }
    mcp_ask_answer_release(&a);
    mcp_ask_answer_release(&b);
}

/* Asks k1, k2, k3, ...: one more every round, never done (2026-07-28). */
static void tool_forever(void *ud, mcp_call *c)
{
    mcp_json_doc *p = json("{\"message\":\"Again?\",\"requestedSchema\":{\"type\":\"object\"}}");
    for (int i = 1;; i++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        mcp_ask_answer a = {.size = sizeof a};
        int rc = mcp_call_ask(c, key, "elicitation/create", mcp_json_doc_root(p), 0, &a);
        mcp_ask_answer_release(&a);
        if (rc != MCP_OK) {
            if (rc == MCP_ERR_INPUT_REQUIRED || rc == MCP_ERR_CANCELLED)
                mcp_call_finish(c);
            else
                mcp_call_reply_tool_error(c, mcp_strerror(rc));
            break;
        }
    }
    mcp_json_doc_free(p);
}

typedef struct served {
    mcp_server *server;
    pthread_t thread;
    int fd;
    int rc;
} served;

static void *serve_thread(void *arg)
{
    served *sv = arg;
    sv->rc = mcp_server_serve_fds(sv->server, sv->fd, sv->fd);
    return NULL;
}

static void serve(served *sv, int fd)
{
    mcp_server_options o = {.size = sizeof o, .name = "asker", .log_level = MCP_LOG_ERROR};
    assert_int_equal(mcp_server_new(&o, &sv->server), MCP_OK);
    static const struct {
        const char *name;
        mcp_tool_fn fn;
    } tools[] = {{"form", tool_form},     {"url", tool_url},   {"sample", tool_sample},
                 {"roots", tool_roots},   {"both", tool_both}, {"forever", tool_forever},
                 {"impatient", tool_impatient}};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        mcp_tool t = {.size = sizeof t, .name = tools[i].name, .handler = tools[i].fn,
                      .flags = MCP_TOOL_BLOCKING};
        assert_int_equal(mcp_server_add_tool(sv->server, &t), MCP_OK);
    }
    sv->fd = fd;
    assert_int_equal(pthread_create(&sv->thread, NULL, serve_thread, sv), 0);
}

/* The client: handlers driven by the test ---------------------------------------------- */

typedef enum { ANSWER, DECLINE, FAIL, HOLD, LATER } behaviour;

static struct {
    behaviour how;
    const char *elicit_answer; /* JSON of the elicitation answer */
    atomic_int asked;          /* handler calls */
    mcp_question *held;        /* HOLD: kept here */
    char last_key[64];
    char last_method[64];
    int answer_rc;             /* the first answer's return */
    char why[256];             /* its why */
    atomic_int outgoing_answers; /* responses the client wrote */
} h;

static const char *answer_for(const char *method)
{
    if (!strcmp(method, "sampling/createMessage"))
        return "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"4\"},"
               "\"model\":\"m\"}";
    if (!strcmp(method, "roots/list"))
        return "{\"roots\":[{\"uri\":\"file:///from/handler\",\"name\":\"h\"}]}";
    return h.elicit_answer;
}

static int answer_with(mcp_question *q, const char *text, char *why, size_t n)
{
    mcp_json_doc *d = json(text);
    int rc = mcp_question_answer(q, mcp_json_doc_root(d), why, n);
    mcp_json_doc_free(d);
    return rc;
}

static void *answer_later(void *arg)
{
    mcp_question *q = arg;
    usleep(30000);
    /* From another thread than the loop's. */
    assert_int_equal(answer_with(q, answer_for(mcp_question_method(q)), NULL, 0), MCP_OK);
    return NULL;
}

static void on_question(void *ud, mcp_question *q)
{
    assert_ptr_equal(ud, &h);
    atomic_fetch_add(&h.asked, 1);
    size_t kn;
    const char *key = mcp_question_key(q, &kn);
    snprintf(h.last_key, sizeof h.last_key, "%s", key ? key : "");
    snprintf(h.last_method, sizeof h.last_method, "%s", mcp_question_method(q));
    switch (h.how) {
    case ANSWER:
        h.answer_rc = answer_with(q, answer_for(mcp_question_method(q)), h.why, sizeof h.why);
        if (h.answer_rc != MCP_OK && h.answer_rc != MCP_ERR_CANCELLED) {
            /* Still open: a good answer now. */
            assert_int_equal(answer_with(q,
                                         mcp_question_url_mode(q)
                                             ? "{\"action\":\"accept\"}"
                                             : "{\"action\":\"accept\",\"content\":{\"ok\":true}}",
                                         NULL, 0),
                             MCP_OK);
        }
        break;
    case DECLINE:
        assert_int_equal(mcp_question_decline(q), MCP_OK);
        break;
    case FAIL:
        assert_int_equal(mcp_question_answer_error(q, -32603, "no model here"), MCP_OK);
        break;
    case HOLD:
        assert_null(h.held);
        h.held = q;
        break;
    case LATER: {
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, answer_later, q), 0);
        pthread_detach(t);
        break;
    }
    }
}

static void count_answers(void *ud, bool outgoing, const char *line, size_t len)
{
    /* A response of ours: "result" or "error" with no "method". */
    char *l = strndup(line, len);
    if (outgoing && !strstr(l, "\"method\"") && (strstr(l, "\"result\"") || strstr(l, "\"error\"")))
        atomic_fetch_add(&h.outgoing_answers, 1);
    free(l);
}

static void reset(behaviour how)
{
    h.how = how;
    h.elicit_answer = "{\"action\":\"accept\",\"content\":{\"ok\":true}}";
    atomic_store(&h.asked, 0);
    h.held = NULL;
    h.last_key[0] = h.last_method[0] = h.why[0] = '\0';
    h.answer_rc = 1;
    atomic_store(&h.outgoing_answers, 0);
    atomic_store(&server_outcome, 1);
}

static mcp_client_options handler_options(void)
{
    mcp_client_options o = {.size = sizeof o,
                            .close_grace_ms = 500,
                            .log_level = MCP_LOG_ERROR,
                            .trace = count_answers,
                            .on_sampling = on_question,
                            .sampling_user_data = &h,
                            .on_elicitation = on_question,
                            .elicitation_user_data = &h,
                            .on_roots = on_question,
                            .roots_user_data = &h};
    return o;
}

typedef struct pair {
    mcp_client *client;
    served server;
    bool modern;
} pair;

static const char *era_name(bool modern)
{
    return modern ? "2026-07-28" : "2025-11-25";
}

static void connect_pair(pair *p, bool modern, mcp_client_options o)
{
    memset(p, 0, sizeof *p);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    serve(&p->server, sv[1]);
    o.connect_mode = modern ? MCP_CONNECT_MODERN : MCP_CONNECT_LEGACY;
    o.protocol_version = era_name(modern);
    assert_int_equal(mcp_client_new(&o, &p->client), MCP_OK);
    if (mcp__client_connect_fds(p->client, sv[0], dup(sv[0])) != MCP_OK)
        fail_msg("connect: %s", mcp_client_error(p->client));
    assert_string_equal(mcp_client_protocol_version(p->client), era_name(modern));
    p->modern = modern;
}

/* The server's serve_fds returns want, or MCP_OK. */
static void close_pair_allowing(pair *p, int want)
{
    mcp_client_free(p->client); /* the server sees the end of its input */
    pthread_join(p->server.thread, NULL);
    if (p->server.rc != MCP_OK)
        assert_int_equal(p->server.rc, want);
    close(p->server.fd);
    mcp_server_free(p->server.server);
}

static void close_pair(pair *p)
{
    close_pair_allowing(p, MCP_OK);
}

/* Call tool; the outcome; *text (may be NULL) the first text of the result
 * (caller frees), or of the error for MCP_ERR_REMOTE. */
static int call(pair *p, const char *tool, const mcp_client_call_options *o, char **text)
{
    mcp_client_call_result r = {.size = sizeof r};
    int rc = mcp_client_call_tool(p->client, tool, NULL, o, &r);
    if (text) {
        const char *t = rc == MCP_OK ? mcp_json_string(
                                           mcp_json_object_get(
                                               mcp_json_array_at(
                                                   mcp_json_object_get(r.result, "content"), 0),
                                               "text"),
                                           NULL)
                                     : r.error_message;
        *text = t ? strdup(t) : NULL;
    }
    mcp_client_call_result_release(&r);
    return rc;
}

static void each_era(void (*fn)(bool modern))
{
    fn(false);
    fn(true);
}

/* Answered ------------------------------------------------------------------------------- */

static void answers_reach_the_tool(bool modern)
{
    pair p;
    connect_pair(&p, modern, handler_options());
    char *text;
    reset(ANSWER);
    /* The form: the content given, and the defaults of what was left out. */
    assert_int_equal(call(&p, "form", NULL, &text), MCP_OK);
    says(text, "\"action\":\"accept\"");
    says(text, "\"content\":{\"ok\":true,\"name\":\"Ann\",\"age\":30}");
    assert_int_equal(h.answer_rc, MCP_OK);
    assert_int_equal(atomic_load(&h.asked), 1);
    assert_string_equal(h.last_key, modern ? "form" : "");
    free(text);
    /* Sampling, answered from another thread. */
    reset(LATER);
    assert_int_equal(call(&p, "sample", NULL, &text), MCP_OK);
    says(text, "\"model\":\"m\"");
    says(text, "\"text\":\"4\"");
    free(text);
    reset(ANSWER);
    assert_int_equal(call(&p, "roots", NULL, &text), MCP_OK);
    says(text, "file:///from/handler");
    free(text);
    /* Two questions at once (one round under 2026-07-28). */
    reset(ANSWER);
    assert_int_equal(call(&p, "both", NULL, &text), MCP_OK);
    says(text, "e={\"action\":\"accept\"");
    says(text, "s={\"role\":\"assistant\"");
    assert_int_equal(atomic_load(&h.asked), 2);
    assert_int_equal(atomic_load(&server_outcome), MCP_OK);
    free(text);
    close_pair(&p);
}

static void answered_in_both_eras(void **state)
{
    each_era(answers_reach_the_tool);
}

static void fixed_roots_are_answered_by_the_library(bool modern)
{
    mcp_json_doc *roots = json("[{\"uri\":\"file:///work\",\"name\":\"work\"},"
                               "{\"uri\":\"file:///tmp\"}]");
    mcp_client_options o = handler_options();
    o.on_roots = NULL;
    o.roots = mcp_json_doc_root(roots);
    pair p;
    connect_pair(&p, modern, o);
    mcp_json_doc_free(roots); /* copied */
    reset(ANSWER);
    char *text;
    assert_int_equal(call(&p, "roots", NULL, &text), MCP_OK);
    says(text, "{\"roots\":[{\"uri\":\"file:///work\",\"name\":\"work\"},{\"uri\":\"file:///tmp\"}]}");
    assert_int_equal(atomic_load(&h.asked), 0);
    free(text);
    /* A new list is the next answer. */
    mcp_json_doc *next = json("[{\"uri\":\"file:///new\"}]");
    assert_int_equal(mcp_client_roots_changed(p.client, mcp_json_doc_root(next)), MCP_OK);
    mcp_json_doc_free(next);
    assert_int_equal(call(&p, "roots", NULL, &text), MCP_OK);
    says(text, "{\"roots\":[{\"uri\":\"file:///new\"}]}");
    free(text);
    close_pair(&p);
}

static void fixed_roots_in_both_eras(void **state)
{
    each_era(fixed_roots_are_answered_by_the_library);
}

/* Declined, error ---------------------------------------------------------------------------- */

static void declines(bool modern)
{
    pair p;
    connect_pair(&p, modern, handler_options());
    char *text;
    reset(DECLINE);
    /* An elicitation has a decline of its own: an answer in both eras. */
    assert_int_equal(call(&p, "form", NULL, &text), MCP_OK);
    assert_string_equal(text, "{\"action\":\"decline\"}");
    free(text);
    /* Sampling has none: error -1, which 2026-07-28 cannot carry. */
    reset(DECLINE);
    int rc = call(&p, "sample", NULL, &text);
    if (modern) {
        assert_int_equal(rc, MCP_ERR_ABORTED);
        says(mcp_client_error(p.client), "\"s\" (sampling/createMessage) was answered with error "
                                         "-1: The user declined");
    } else {
        assert_int_equal(rc, MCP_OK);
        says(text, "ask failed: the peer answered with an error (-1 The user declined)");
    }
    free(text);
    close_pair(&p);
}

static void declined_in_both_eras(void **state)
{
    each_era(declines);
}

static void errors(bool modern)
{
    pair p;
    connect_pair(&p, modern, handler_options());
    char *text;
    reset(FAIL);
    int rc = call(&p, "form", NULL, &text);
    if (modern) {
        assert_int_equal(rc, MCP_ERR_ABORTED);
        says(mcp_client_error(p.client), "the call was abandoned: the question \"form\" "
                                         "(elicitation/create) was answered with error -32603: "
                                         "no model here");
        /* Nothing went out after the InputRequiredResult: no retry. */
        assert_int_equal(atomic_load(&server_outcome), MCP_ERR_INPUT_REQUIRED);
    } else {
        assert_int_equal(rc, MCP_OK);
        says(text, "(-32603 no model here)");
        assert_int_equal(atomic_load(&server_outcome), MCP_ERR_REMOTE);
    }
    free(text);
    /* The connection goes on. */
    reset(ANSWER);
    assert_int_equal(call(&p, "roots", NULL, &text), MCP_OK);
    free(text);
    close_pair(&p);
}

static void an_error_answer_in_both_eras(void **state)
{
    each_era(errors);
}

/* Checked answers -------------------------------------------------------------------------- */

static void form_answers_are_checked(bool modern)
{
    pair p;
    connect_pair(&p, modern, handler_options());
    char *text;
    /* Too young: refused before anything is sent, the question stays open,
     * the good answer that follows is the one the tool gets. */
    reset(ANSWER);
    h.elicit_answer = "{\"action\":\"accept\",\"content\":{\"ok\":true,\"age\":3}}";
    assert_int_equal(call(&p, "form", NULL, &text), MCP_OK);
    assert_int_equal(h.answer_rc, MCP_ERR_SCHEMA_MISMATCH);
    assert_string_equal(h.why, "content/age must be >= 18 (minimum)");
    says(text, "{\"ok\":true,\"name\":\"Ann\",\"age\":30}");
    free(text);
    /* A required property without default, missing. */
    reset(ANSWER);
    h.elicit_answer = "{\"action\":\"accept\",\"content\":{}}";
    assert_int_equal(call(&p, "form", NULL, &text), MCP_OK);
    assert_int_equal(h.answer_rc, MCP_ERR_SCHEMA_MISMATCH);
    says(h.why, "ok");
    says(h.why, "(required)");
    free(text);
    /* Shapes: no action, an object where a primitive goes, not an object. */
    static const struct {
        const char *answer, *why;
    } bad[] = {{"{\"content\":{}}", "\"action\": accept, decline or cancel"},
               {"{\"action\":\"maybe\"}", "\"action\": accept, decline or cancel"},
               {"{\"action\":\"accept\",\"content\":{\"ok\":{}}}",
                "content.ok must be a string, number, boolean or array of strings"},
               {"{\"action\":\"accept\",\"content\":[1]}", "\"content\" must be an object"},
               {"[]", "the answer must be an object"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        reset(ANSWER);
        h.elicit_answer = bad[i].answer;
        assert_int_equal(call(&p, "form", NULL, &text), MCP_OK);
        assert_int_equal(h.answer_rc, MCP_ERR_INVALID_ARG);
        says(h.why, bad[i].why);
        says(text, "\"ok\":true"); /* the good answer after it */
        free(text);
    }
    close_pair(&p);
}

static void a_schema_invalid_form_answer_is_refused(void **state)
{
    each_era(form_answers_are_checked);
}

/* URL mode is offered only when asked for: a form-only client is not
 * asked (the server sees no such capability); one that takes it answers
 * without content. */
static void url_mode(bool modern)
{
    pair p;
    connect_pair(&p, modern, handler_options());
    reset(ANSWER);
    char *text;
    assert_int_equal(call(&p, "url", NULL, &text), MCP_OK);
    says(text, "ask failed: operation not valid in the current state");
    assert_int_equal(atomic_load(&h.asked), 0);
    free(text);
    close_pair(&p);
    mcp_client_options o = handler_options();
    o.elicitation_url = true;
    connect_pair(&p, modern, o);
    reset(ANSWER);
    h.elicit_answer = "{\"action\":\"accept\",\"content\":{}}";
    assert_int_equal(call(&p, "url", NULL, &text), MCP_OK);
    assert_int_equal(h.answer_rc, MCP_ERR_INVALID_ARG);
    says(h.why, "a URL-mode answer carries no content");
    assert_string_equal(text, "{\"action\":\"accept\"}");
    free(text);
    close_pair(&p);
}

static void url_mode_only_when_declared(void **state)
{
    each_era(url_mode);
}

/* Withdrawn ----------------------------------------------------------------------------------- */

typedef struct pending_call {
    bool done;
    int outcome;
    char text[512];
} pending_call;

static void call_done(void *ud, const mcp_client_call_result *r)
{
    pending_call *pc = ud;
    pc->done = true;
    pc->outcome = r->outcome;
    const char *t = r->outcome == MCP_OK
                        ? mcp_json_string(mcp_json_object_get(
                                              mcp_json_array_at(
                                                  mcp_json_object_get(r->result, "content"), 0),
                                              "text"),
                                          NULL)
                        : NULL;
    snprintf(pc->text, sizeof pc->text, "%s", t ? t : "");
}

static void start(pair *p, const char *tool, const mcp_client_call_options *o, pending_call *pc,
                  mcp_handle *hd)
{
    memset(pc, 0, sizeof *pc);
    assert_int_equal(mcp_client_call_tool_async(p->client, tool, NULL, o, call_done, pc, hd),
                     MCP_OK);
}

/* Drive the client until cond or 10 s. */
static void drive(pair *p, bool (*cond)(void *), void *arg)
{
    uint64_t end = mcp_monotonic_ms() + 10000;
    while (!cond(arg)) {
        if (mcp_monotonic_ms() > end)
            fail_msg("timed out driving the client");
        mcp_client_run_once(p->client, false);
        usleep(1000);
    }
}

static bool held(void *arg)
{
    return h.held != NULL;
}

static bool ended(void *arg)
{
    return ((pending_call *)arg)->done;
}

static bool token_fired(void *arg)
{
    return mcp_cancel_token_is_cancelled(mcp_question_token(arg));
}

/* Answer the held question after it was withdrawn: dropped. */
static void late_answer_is_dropped(void)
{
    int before = atomic_load(&h.outgoing_answers);
    assert_int_equal(answer_with(h.held, "{\"action\":\"accept\",\"content\":{\"ok\":true}}", NULL,
                                 0),
                     MCP_ERR_CANCELLED);
    h.held = NULL;
    assert_int_equal(atomic_load(&h.outgoing_answers), before);
}

/* 2025: the server cancels its question (its own 300 ms limit): the token
 * fires with the server's reason, and the answer given afterwards is not
 * sent. */
static void the_servers_cancel_fires_the_token(void **state)
{
    pair p;
    connect_pair(&p, false, handler_options());
    reset(HOLD);
    pending_call pc;
    start(&p, "impatient", NULL, &pc, NULL);
    drive(&p, held, NULL);
    mcp_cancel_token *t = mcp_question_token(h.held);
    drive(&p, token_fired, h.held);
    says(mcp_cancel_token_reason(t), "300 ms"); /* the server's reason */
    drive(&p, ended, &pc);
    assert_int_equal(pc.outcome, MCP_OK);
    says(pc.text, "ask failed: request timed out");
    late_answer_is_dropped();
    /* Driven a while longer: still nothing written for it. */
    for (int i = 0; i < 50; i++) {
        mcp_client_run_once(p.client, false);
        usleep(1000);
    }
    assert_int_equal(atomic_load(&h.outgoing_answers), 0);
    close_pair(&p);
}

/* Our cancel of the call: under 2025 the server cancels its question with
 * our reason; under 2026-07-28 the call ends at once (nothing on the wire
 * between rounds) and the token fires with our reason. */
static void our_cancel(bool modern)
{
    pair p;
    connect_pair(&p, modern, handler_options());
    reset(HOLD);
    pending_call pc;
    mcp_handle hd;
    start(&p, "form", NULL, &pc, &hd);
    drive(&p, held, NULL);
    assert_int_equal(mcp_client_cancel(p.client, hd, "user pressed stop"), MCP_OK);
    if (modern)
        assert_true(pc.done); /* at once: no request in flight */
    drive(&p, ended, &pc);
    assert_int_equal(pc.outcome, MCP_ERR_ABORTED);
    drive(&p, token_fired, h.held);
    assert_string_equal(mcp_cancel_token_reason(mcp_question_token(h.held)), "user pressed stop");
    late_answer_is_dropped();
    assert_int_equal(mcp_client_cancel(p.client, hd, NULL), MCP_ERR_NOT_FOUND);
    close_pair(&p);
}

static void the_callers_cancel_fires_the_token(void **state)
{
    each_era(our_cancel);
}

/* 2026-07-28: the idle timeout runs while the questions are answered, the
 * total limit from the start. */
static void the_budget_covers_the_answering(void **state)
{
    pair p;
    connect_pair(&p, true, handler_options());
    reset(HOLD);
    pending_call pc;
    mcp_client_call_options o = {.size = sizeof o, .timeout_ms = 200};
    uint64_t t0 = mcp_monotonic_ms();
    start(&p, "form", &o, &pc, NULL);
    drive(&p, ended, &pc);
    assert_int_equal(pc.outcome, MCP_ERR_TIMED_OUT);
    assert_true(mcp_monotonic_ms() - t0 >= 200);
    assert_true(mcp_cancel_token_is_cancelled(mcp_question_token(h.held)));
    says(mcp_cancel_token_reason(mcp_question_token(h.held)), "timed out after 200 ms");
    says(mcp_client_error(p.client), "while the server's questions were being answered");
    late_answer_is_dropped();
    reset(HOLD);
    mcp_client_call_options m = {.size = sizeof m, .timeout_ms = MCP_NO_TIMEOUT,
                                 .max_time_ms = 250};
    start(&p, "form", &m, &pc, NULL);
    drive(&p, ended, &pc);
    assert_int_equal(pc.outcome, MCP_ERR_MAX_TIME);
    says(mcp_cancel_token_reason(mcp_question_token(h.held)), "maximum total time 250 ms");
    late_answer_is_dropped();
    close_pair(&p);
}

/* The connection ends with a question open: its token fires; answering
 * after the client is gone is safe and dropped. */
static void connection_end(bool modern)
{
    pair p;
    connect_pair(&p, modern, handler_options());
    reset(HOLD);
    pending_call pc;
    start(&p, "form", NULL, &pc, NULL);
    drive(&p, held, NULL);
    mcp_question *q = h.held;
    /* Under 2025 the server, at the end of its input, cancels its question
     * on the wire: the client has closed its end by then, so that write
     * may fail (MCP_ERR_IO). */
    close_pair_allowing(&p, modern ? MCP_OK : MCP_ERR_IO);
    assert_true(pc.done);
    assert_int_equal(pc.outcome, MCP_ERR_CLOSED);
    assert_true(mcp_cancel_token_is_cancelled(mcp_question_token(q)));
    assert_string_equal(mcp_cancel_token_reason(mcp_question_token(q)), "connection closed");
    assert_int_equal(mcp_question_decline(q), MCP_ERR_CANCELLED);
    h.held = NULL;
}

static void the_connections_end_fires_the_token(void **state)
{
    each_era(connection_end);
}

static void the_rounds_are_bounded(void **state)
{
    pair p;
    connect_pair(&p, true, handler_options());
    reset(ANSWER);
    h.elicit_answer = "{\"action\":\"accept\",\"content\":{}}";
    char *text;
    assert_int_equal(call(&p, "forever", NULL, &text), MCP_ERR_PROTOCOL);
    assert_int_equal(atomic_load(&h.asked), MCP_CLIENT_MAX_INPUT_ROUNDS);
    assert_string_equal(h.last_key, "k10");
    says(mcp_client_error(p.client), "the server still asked for input after 10 rounds");
    free(text);
    close_pair(&p);
}

/* On the wire: a server played by the test ------------------------------------------------ */

static void capabilities_are_declared_in_both_eras(void **state)
{
    scripted s;
    char *hello;
    mcp_client_options o = handler_options();
    o.elicitation_url = true;
    scripted_open(&s, era_name(false), o, &hello);
    says(hello, "\"capabilities\":{\"sampling\":{},\"elicitation\":{\"form\":{},\"url\":{}},"
                "\"roots\":{\"listChanged\":true}}");
    free(hello);
    scripted_close(&s);
    o.on_sampling = NULL;
    o.elicitation_url = false;
    o.on_roots = NULL;
    scripted_open(&s, era_name(true), o, &hello);
    says(hello, "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}}}");
    free(hello);
    /* Every request carries them. */
    pending_call pc;
    memset(&pc, 0, sizeof pc);
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, NULL, call_done, &pc, NULL),
                     MCP_OK);
    char *l = scripted_next_line(&s, "tools/call");
    says(l, "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}}}");
    free(l);
    scripted_close(&s);
    /* None offered: none declared, as before. */
    mcp_client_options none = {.size = sizeof none};
    scripted_open(&s, era_name(false), none, &hello);
    says(hello, "\"capabilities\":{}");
    free(hello);
    scripted_close(&s);
    /* Options the library refuses. */
    mcp_client *c;
    mcp_client_options bad = {.size = sizeof bad, .elicitation_url = true};
    assert_int_equal(mcp_client_new(&bad, &c), MCP_ERR_INVALID_ARG);
    mcp_json_doc *roots = json("[{\"uri\":\"https://x\"}]");
    mcp_client_options bad2 = {.size = sizeof bad2, .roots = mcp_json_doc_root(roots)};
    assert_int_equal(mcp_client_new(&bad2, &c), MCP_ERR_INVALID_ARG);
    mcp_json_doc_free(roots);
}

/* 2025: what the client was not made to answer. */
static void refused_questions_in_2025(void **state)
{
    scripted s;
    char *hello;
    mcp_client_options o = {.size = sizeof o, .on_elicitation = on_question,
                            .elicitation_user_data = &h, .log_level = MCP_LOG_ERROR};
    scripted_open(&s, era_name(false), o, &hello);
    free(hello);
    reset(ANSWER);
    static const struct {
        const char *request, *answer;
    } cases[] = {
        {"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"sampling/createMessage\",\"params\":"
         "{\"messages\":[],\"maxTokens\":1}}",
         "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32601,\"message\":\"Method not "
         "found: this client does not offer sampling\"}}"},
        {"{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"roots/list\"}",
         "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"error\":{\"code\":-32601,\"message\":\"Method not "
         "found: this client does not offer roots\"}}"},
        {"{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"elicitation/create\",\"params\":"
         "{\"mode\":\"url\",\"message\":\"m\",\"url\":\"https://x\",\"elicitationId\":\"1\"}}",
         "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"error\":{\"code\":-32602,\"message\":\"Invalid "
         "params: this client does not take URL-mode elicitation\"}}"},
        {"{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"elicitation/create\",\"params\":"
         "{\"message\":\"m\"}}",
         "{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"error\":{\"code\":-32602,\"message\":\"Invalid "
         "params: params.requestedSchema must be an object\"}}"},
        {"{\"jsonrpc\":\"2.0\",\"id\":\"e\",\"method\":\"elicitation/create\",\"params\":"
         "{\"message\":\"m\",\"requestedSchema\":{\"type\":7}}}",
         "{\"jsonrpc\":\"2.0\",\"id\":\"e\",\"error\":{\"code\":-32602,\"message\":\"Invalid "
         "params: requestedSchema is not a schema: "},
        {"{\"jsonrpc\":\"2.0\",\"id\":\"f\",\"method\":\"tools/list\"}",
         "{\"jsonrpc\":\"2.0\",\"id\":\"f\",\"error\":{\"code\":-32601,\"message\":\"Method not "
         "found: not a request a server may make of a client\"}}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wire_send(&s.w, cases[i].request);
        char want[16];
        snprintf(want, sizeof want, "\"id\":\"%c\"", 'a' + (int)i);
        char *l = scripted_next_line(&s, want);
        says(l, cases[i].answer);
        free(l);
    }
    assert_int_equal(atomic_load(&h.asked), 0);
    /* One it takes: answered on the wire, with the defaults. */
    wire_send(&s.w, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":"
                    "{\"message\":\"m\",\"requestedSchema\":" FORM_SCHEMA "}}");
    char *l = scripted_next_line(&s, "\"id\":9");
    assert_string_equal(l, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"action\":\"accept\","
                           "\"content\":{\"ok\":true,\"name\":\"Ann\",\"age\":30}}}");
    free(l);
    /* Roots offered by nobody: roots_changed says so. */
    assert_int_equal(mcp_client_roots_changed(s.client, NULL), MCP_ERR_STATE);
    scripted_close(&s);
}

/* Send an InputRequiredResult for the request in line (its id). */
static long long id_of(const char *line)
{
    const char *p = strstr(line, "\"id\":");
    assert_non_null(p);
    return strtoll(p + 5, NULL, 10);
}

static void answer_line(scripted *s, long long id, const char *result)
{
    char *out = malloc(strlen(result) + 64);
    sprintf(out, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}", id, result);
    wire_send(&s->w, out);
    free(out);
}

/* 2026-07-28: what the client cannot use ends the call, before any handler. */
static void unusable_input_required_results(void **state)
{
    static const struct {
        const char *result, *why;
    } cases[] = {
        {"{\"resultType\":\"input_required\",\"inputRequests\":{\"s1\":{\"method\":"
         "\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":1}}}}",
         "inputRequests[\"s1\"] (sampling/createMessage): this client does not offer sampling"},
        {"{\"resultType\":\"input_required\",\"inputRequests\":{\"ok\":{\"method\":"
         "\"elicitation/create\",\"params\":{\"message\":\"m\",\"requestedSchema\":"
         "{\"type\":\"object\"}}},\"u\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":"
         "\"url\",\"message\":\"m\",\"url\":\"https://x\"}}}}",
         "inputRequests[\"u\"] (elicitation/create): this client does not take URL-mode "
         "elicitation"},
        {"{\"resultType\":\"input_required\",\"inputRequests\":{\"x\":{\"method\":\"tools/list\"}}}",
         "inputRequests[\"x\"] (tools/list): not a request a server may make of a client"},
        {"{\"resultType\":\"input_required\",\"inputRequests\":{\"x\":5}}",
         "inputRequests[\"x\"] (?): it is not an object"},
        {"{\"resultType\":\"input_required\"}", "it has neither inputRequests nor requestState"},
        {"{\"resultType\":\"input_required\",\"inputRequests\":[]}",
         "its inputRequests is not an object"},
        {"{\"resultType\":\"input_required\",\"requestState\":5}",
         "its requestState is not a string"},
        {"{\"resultType\":\"input_required\",\"inputRequests\":{\"f\":{\"method\":"
         "\"elicitation/create\",\"params\":{\"message\":\"m\",\"requestedSchema\":"
         "{\"minimum\":\"x\"}}}}}",
         "inputRequests[\"f\"] has a requestedSchema that is not a schema"},
    };
    scripted s;
    char *hello;
    mcp_client_options o = {.size = sizeof o, .on_elicitation = on_question,
                            .elicitation_user_data = &h, .log_level = MCP_LOG_ERROR};
    scripted_open(&s, era_name(true), o, &hello);
    free(hello);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reset(HOLD);
        pending_call pc;
        memset(&pc, 0, sizeof pc);
        assert_int_equal(
            mcp_client_call_tool_async(s.client, "t", NULL, NULL, call_done, &pc, NULL), MCP_OK);
        char *l = scripted_next_line(&s, "tools/call");
        answer_line(&s, id_of(l), cases[i].result);
        free(l);
        while (!pc.done)
            mcp_client_run_once(s.client, true);
        assert_int_equal(pc.outcome, MCP_ERR_PROTOCOL);
        says(mcp_client_error(s.client), cases[i].why);
        assert_int_equal(atomic_load(&h.asked), 0);
        assert_null(h.held);
    }
    /* Nothing was sent again. */
    scripted_no_line(&s, "tools/call", 50);
    scripted_close(&s);
}

/* The retry: a new id, the caller's params, the answers under the server's
 * keys, requestState byte for byte; and none when the server gave none.
 * Other requests meanwhile carry neither (mrtr.mdx). */
static void the_retry_echoes_the_state(void **state)
{
    scripted s;
    char *hello;
    mcp_client_options o = {.size = sizeof o, .on_elicitation = on_question,
                            .elicitation_user_data = &h, .log_level = MCP_LOG_ERROR};
    scripted_open(&s, era_name(true), o, &hello);
    free(hello);
    reset(HOLD);
    pending_call pc;
    memset(&pc, 0, sizeof pc);
    mcp_json_doc *args = json("{\"x\":1}");
    mcp_handle hd;
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", mcp_json_doc_root(args), NULL,
                                                call_done, &pc, &hd),
                     MCP_OK);
    mcp_json_doc_free(args);
    char *l = scripted_next_line(&s, "tools/call");
    long long first = id_of(l);
    free(l);
    /* A state with escapes and non-ASCII, to be sent back exactly. */
    answer_line(&s, first,
                "{\"resultType\":\"input_required\",\"inputRequests\":{\"a key\":{\"method\":"
                "\"elicitation/create\",\"params\":{\"message\":\"m\",\"requestedSchema\":"
                "{\"type\":\"object\"}}}},\"requestState\":\"s\\\"\\u00e9\\n/\"}");
    uint64_t end = mcp_monotonic_ms() + 5000;
    while (!h.held && mcp_monotonic_ms() < end)
        mcp_client_run_once(s.client, false);
    assert_non_null(h.held);
    assert_string_equal(h.last_key, "a key");
    /* Another call meanwhile: neither inputResponses nor requestState. */
    pending_call other;
    memset(&other, 0, sizeof other);
    assert_int_equal(
        mcp_client_call_tool_async(s.client, "u", NULL, NULL, call_done, &other, NULL), MCP_OK);
    l = scripted_next_line(&s, "\"name\":\"u\"");
    assert_null(strstr(l, "inputResponses"));
    assert_null(strstr(l, "requestState"));
    answer_line(&s, id_of(l), "{\"content\":[]}");
    free(l);
    assert_int_equal(answer_with(h.held, "{\"action\":\"decline\"}", NULL, 0), MCP_OK);
    h.held = NULL;
    l = scripted_next_line(&s, "\"name\":\"t\"");
    long long second = id_of(l);
    assert_true(second != first);
    /* The same string (é is written as UTF-8, as any string). */
    says(l, "\"arguments\":{\"x\":1},\"inputResponses\":{\"a key\":{\"action\":\"decline\"}},"
            "\"requestState\":\"s\\\"\xc3\xa9\\n/\"");
    /* The handle is the call's, whatever the round. */
    assert_int_equal(hd, (mcp_handle)first);
    /* Round 2: only a state (no questions): sent again at once, no
     * inputResponses. */
    answer_line(&s, second, "{\"resultType\":\"input_required\",\"requestState\":\"two\"}");
    free(l);
    l = scripted_next_line(&s, "\"name\":\"t\"");
    long long third = id_of(l);
    assert_true(third != second);
    says(l, "\"requestState\":\"two\"");
    assert_null(strstr(l, "inputResponses"));
    free(l);
    /* Round 3: a question and no state: none sent back. */
    answer_line(&s, third,
                "{\"resultType\":\"input_required\",\"inputRequests\":{\"q\":{\"method\":"
                "\"elicitation/create\",\"params\":{\"message\":\"m\",\"requestedSchema\":"
                "{\"type\":\"object\"}}}}}");
    end = mcp_monotonic_ms() + 5000;
    while (!h.held && mcp_monotonic_ms() < end)
        mcp_client_run_once(s.client, false);
    assert_int_equal(answer_with(h.held, "{\"action\":\"cancel\"}", NULL, 0), MCP_OK);
    h.held = NULL;
    l = scripted_next_line(&s, "\"name\":\"t\"");
    says(l, "\"inputResponses\":{\"q\":{\"action\":\"cancel\"}}");
    assert_null(strstr(l, "requestState"));
    /* A result without resultType is complete. */
    answer_line(&s, id_of(l), "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}");
    free(l);
    while (!pc.done)
        mcp_client_run_once(s.client, true);
    assert_int_equal(pc.outcome, MCP_OK);
    assert_string_equal(pc.text, "done");
    /* Cancelling a round in flight cancels that round's id on the wire. */
    reset(HOLD);
    memset(&pc, 0, sizeof pc);
    assert_int_equal(mcp_client_call_tool_async(s.client, "t", NULL, NULL, call_done, &pc, &hd),
                     MCP_OK);
    l = scripted_next_line(&s, "tools/call");
    answer_line(&s, id_of(l), "{\"resultType\":\"input_required\",\"requestState\":\"x\"}");
    free(l);
    l = scripted_next_line(&s, "\"requestState\":\"x\"");
    long long round2 = id_of(l);
    free(l);
    assert_int_equal(mcp_client_cancel(s.client, hd, "stop"), MCP_OK);
    char want[80];
    snprintf(want, sizeof want, "\"requestId\":%lld,\"reason\":\"stop\"", round2);
    l = scripted_next_line(&s, "notifications/cancelled");
    says(l, want);
    free(l);
    assert_true(pc.done);
    assert_int_equal(pc.outcome, MCP_ERR_ABORTED);
    scripted_close(&s);
}

static void roots_changes_are_told_in_2025_only(void **state)
{
    mcp_json_doc *roots = json("[{\"uri\":\"file:///a\"}]");
    mcp_client_options o = {.size = sizeof o, .roots = mcp_json_doc_root(roots)};
    for (int modern = 0; modern < 2; modern++) {
        scripted s;
        char *hello;
        scripted_open(&s, era_name(modern), o, &hello);
        free(hello);
        assert_int_equal(mcp_client_roots_changed(s.client, NULL), MCP_OK);
        if (modern) {
            scripted_no_line(&s, "roots/list_changed", 100);
        } else {
            char *l = scripted_next_line(&s, "roots/list_changed");
            assert_string_equal(l, "{\"jsonrpc\":\"2.0\",\"method\":"
                                   "\"notifications/roots/list_changed\"}");
            free(l);
        }
        mcp_json_doc *bad = json("[{\"uri\":7}]");
        assert_int_equal(mcp_client_roots_changed(s.client, mcp_json_doc_root(bad)),
                         MCP_ERR_INVALID_ARG);
        mcp_json_doc_free(bad);
        scripted_close(&s);
    }
    mcp_json_doc_free(roots);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(answered_in_both_eras),
        cmocka_unit_test(fixed_roots_in_both_eras),
        cmocka_unit_test(declined_in_both_eras),
        cmocka_unit_test(an_error_answer_in_both_eras),
        cmocka_unit_test(a_schema_invalid_form_answer_is_refused),
        cmocka_unit_test(url_mode_only_when_declared),
        cmocka_unit_test(the_servers_cancel_fires_the_token),
        cmocka_unit_test(the_callers_cancel_fires_the_token),
        cmocka_unit_test(the_budget_covers_the_answering),
        cmocka_unit_test(the_connections_end_fires_the_token),
        cmocka_unit_test(the_rounds_are_bounded),
        cmocka_unit_test(capabilities_are_declared_in_both_eras),
        cmocka_unit_test(refused_questions_in_2025),
        cmocka_unit_test(unusable_input_required_results),
        cmocka_unit_test(the_retry_echoes_the_state),
        cmocka_unit_test(roots_changes_are_told_in_2025_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
