/* SPDX-License-Identifier: MIT */
/*
 * mcp-conformance server: the fixtures that ask the client something
 * (sampling, elicitation, roots), for the suite's tools-call-sampling,
 * tools-call-elicitation, elicitation-sep1034-defaults and
 * elicitation-sep1330-enums (2025: the server sends the request on the
 * call's stream) and its input-required-result-* scenarios (2026-07-28: the
 * call ends with an InputRequiredResult and the client retries with the
 * answers, SEP-2322). The tool names, question keys, messages and schemas
 * are those of the scenarios' descriptions.
 *
 * Every question goes through mcp_call_ask, the same handler code in both
 * eras, so that the scenarios test the library rather than this file: the
 * InputRequiredResult, its requestState (sealed, checked on the retry, a
 * tampered one refused with -32602 before the handler runs), answers from
 * inputResponses or from an earlier round's state, answers that are not
 * objects ignored (the question is asked again), and questions the client
 * did not declare it can answer never asked (mcp_call_ask says
 * MCP_ERR_STATE). The handlers only build questions and read answers.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "conformance.h"

/* Asking ------------------------------------------------------------------------------- */

/* The questions of one run of a handler. Under 2026-07-28 every question
 * of a round must be asked before the call ends, so an unanswered one
 * (MCP_ERR_INPUT_REQUIRED) does not stop the handler: it goes on asking,
 * and asking_done ends the call with the questions noted. Under 2025 each
 * ask waits for its answer and that never happens. */
typedef struct asking {
    mcp_call *call;
    bool pending; /* a question awaits the client's retry (2026-07-28) */
    bool ended;   /* the call was ended (cancelled, or the ask failed) */
} asking;

/* End the call with a failure: a tool error for a tool (the model can act
 * on it), a JSON-RPC error for a prompt. */
static void fail(mcp_call *call, const char *why)
{
    if (!strcmp(mcp_call_method(call), "tools/call"))
        mcp_call_reply_tool_error(call, why);
    else
        mcp_call_reply_error(call, -32603, why);
}

/* Ask one question. True with a->result set when the client answered;
 * false otherwise, with q->pending or q->ended set, or (skip_undeclared)
 * when the client did not declare it can answer: that question is left
 * out rather than failing the call. a is zeroed in every case, so it may
 * be released whatever happened. */
static bool ask(asking *q, const char *key, const char *method, const mcp_json *params,
                bool skip_undeclared, mcp_ask_answer *a)
{
    *a = (mcp_ask_answer){.size = sizeof *a};
    if (q->ended)
        return false;
    int rc = params || !strcmp(method, "roots/list")
                 ? mcp_call_ask(q->call, key, method, params, 0, a)
                 : MCP_ERR_NOMEM; /* the params could not be built */
    if (rc == MCP_OK)
        return true;
    if (rc == MCP_ERR_INPUT_REQUIRED) {
        q->pending = true;
        return false;
    }
    if (rc == MCP_ERR_STATE && skip_undeclared)
        return false;
    q->ended = true;
    if (rc == MCP_ERR_CANCELLED) {
        mcp_call_finish(q->call); /* nothing goes out for a cancelled call */
        return false;
    }
    char why[300];
    if (rc == MCP_ERR_REMOTE)
        snprintf(why, sizeof why, "%s: the client refused %s: %s", mcp_call_tool_name(q->call),
                 method, a->error_message);
    else if (rc == MCP_ERR_STATE)
        snprintf(why, sizeof why, "%s: the client did not declare that it can answer %s",
                 mcp_call_tool_name(q->call), method);
    else
        snprintf(why, sizeof why, "%s: cannot ask the client (%s): %s",
                 mcp_call_tool_name(q->call), method, mcp_strerror(rc));
    fail(q->call, why);
    return false;
}

/* After the questions: true when the handler is to answer; false when the
 * call is ended here (its questions sent as an InputRequiredResult) or
 * was already ended. */
static bool asking_done(asking *q)
{
    if (q->ended)
        return false;
    if (q->pending) {
        mcp_call_finish(q->call);
        return false;
    }
    return true;
}

/* Questions -------------------------------------------------------------------------------- */

/* A constant JSON object copied into d (NULL when out of memory). */
static mcp_json *constant(mcp_json_doc *d, const char *json)
{
    mcp_json_doc *c = NULL;
    if (mcp_json_parse(json, strlen(json), NULL, NULL, &c, NULL) != MCP_OK)
        return NULL;
    mcp_json *v = mcp_json_copy(d, mcp_json_doc_root(c));
    mcp_json_doc_free(c);
    return v;
}

/* elicitation/create params {"message":..., "requestedSchema":<schema>}
 * in d; NULL when out of memory. */
static mcp_json *elicit_params(mcp_json_doc *d, const char *message, size_t n, const char *schema)
{
    mcp_json *p = mcp_json_new_object(d);
    mcp_json_object_set(d, p, "message", mcp_json_new_stringn(d, message, n));
    mcp_json_object_set(d, p, "requestedSchema", constant(d, schema));
    return mcp_json_doc_error(d) == MCP_OK ? p : NULL;
}

#define ELICIT(d, message, schema) elicit_params(d, message, sizeof message - 1, schema)

/* sampling/createMessage params: one user message, max_tokens. */
static mcp_json *sampling_params(mcp_json_doc *d, const char *text, size_t n, int max_tokens)
{
    mcp_json *p = mcp_json_new_object(d);
    mcp_json *messages = mcp_json_new_array(d);
    mcp_json *m = mcp_json_new_object(d);
    mcp_json *content = mcp_json_new_object(d);
    mcp_json_object_set(d, content, "type", mcp_json_new_string(d, "text"));
    mcp_json_object_set(d, content, "text", mcp_json_new_stringn(d, text, n));
    mcp_json_object_set(d, m, "role", mcp_json_new_string(d, "user"));
    mcp_json_object_set(d, m, "content", content);
    mcp_json_array_append(d, messages, m);
    mcp_json_object_set(d, p, "messages", messages);
    mcp_json_object_set(d, p, "maxTokens", mcp_json_new_int(d, max_tokens));
    return mcp_json_doc_error(d) == MCP_OK ? p : NULL;
}

#define SAMPLE(d, text, max_tokens) sampling_params(d, text, sizeof text - 1, max_tokens)

/* The schemas of the scenarios' questions. */
#define NAME_SCHEMA                                                                                \
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}"
#define OK_SCHEMA                                                                                  \
    "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}"

/* Answers -------------------------------------------------------------------------------------- */

/* Text appended to b (a fixture's reply, built piece by piece). */
static void add(mcp_buf *b, const char *text, size_t n)
{
    mcp_buf_append(b, text, n);
}

#define ADD(b, literal) add(b, literal, sizeof literal - 1)

/* Reply with the text built in b (an append that ran out of memory left
 * it short: a fixture's reply is small), and free it. */
static void reply_buf(mcp_call *call, mcp_buf *b)
{
    mcp_call_reply_text_n(call, b->data ? b->data : "", b->len);
    mcp_buf_free(b);
}

/* An elicitation's answer: "action=<action>, content=<content as JSON>". */
static void add_elicited(mcp_buf *b, const mcp_ask_answer *a)
{
    const mcp_json *r = mcp_json_doc_root(a->result);
    size_t n = 0;
    const char *action = mcp_json_string(mcp_json_object_get(r, "action"), &n);
    ADD(b, "action=");
    if (action)
        add(b, action, n);
    else
        ADD(b, "(none)");
    const mcp_json *content = mcp_json_object_get(r, "content");
    if (content) {
        ADD(b, ", content=");
        mcp_json_write(content, b);
    }
}

/* A string field of an accepted form, or NULL (declined, cancelled, or
 * not the answer asked for). */
static const char *accepted(const mcp_ask_answer *a, const char *field, size_t *n)
{
    const mcp_json *r = mcp_json_doc_root(a->result);
    const char *action = mcp_json_string(mcp_json_object_get(r, "action"), NULL);
    if (!action || strcmp(action, "accept"))
        return NULL;
    return mcp_json_string(mcp_json_object_get(mcp_json_object_get(r, "content"), field), n);
}

/* The model's text in a sampling answer: content is one block, or (from
 * 2025-11-25) an array of them; the first text block. NULL if none. */
static const char *sampled(const mcp_ask_answer *a, size_t *n)
{
    const mcp_json *c = mcp_json_object_get(mcp_json_doc_root(a->result), "content");
    size_t count = mcp_json_typeof(c) == MCP_JSON_ARRAY ? mcp_json_array_size(c) : 1;
    for (size_t i = 0; i < count; i++) {
        const mcp_json *block = mcp_json_typeof(c) == MCP_JSON_ARRAY ? mcp_json_array_at(c, i) : c;
        const char *type = mcp_json_string(mcp_json_object_get(block, "type"), NULL);
        if (type && !strcmp(type, "text"))
            return mcp_json_string(mcp_json_object_get(block, "text"), n);
    }
    return NULL;
}

/* The roots in a roots/list answer, "uri (name)" separated by ", ". */
static void add_roots(mcp_buf *b, const mcp_ask_answer *a)
{
    const mcp_json *roots = mcp_json_object_get(mcp_json_doc_root(a->result), "roots");
    size_t count = mcp_json_array_size(roots);
    if (!count)
        ADD(b, "(none)");
    for (size_t i = 0; i < count; i++) {
        const mcp_json *root = mcp_json_array_at(roots, i);
        size_t n;
        const char *uri = mcp_json_string(mcp_json_object_get(root, "uri"), &n);
        if (i)
            ADD(b, ", ");
        if (uri)
            add(b, uri, n);
        const char *name = mcp_json_string(mcp_json_object_get(root, "name"), &n);
        if (name) {
            ADD(b, " (");
            add(b, name, n);
            ADD(b, ")");
        }
    }
}

/* Tools of one question ------------------------------------------------------------------ */

/* A tool that asks one question and shows the answer after a prefix:
 * test_sampling and test_elicitation (2025: the question text is the
 * argument "prompt" or "message", key NULL), and the 2026-07-28 fixtures
 * whose question is fixed (key as the scenario names it). */
typedef struct one_question {
    const char *key;
    const char *text;   /* the prompt or message; NULL: the tool's argument */
    const char *schema; /* elicitation: the requestedSchema */
    const char *prefix;
} one_question;

/* The question's text: fixed, or the argument (which the tool's schema
 * requires; the library checked). */
static const char *question_text(mcp_call *call, const one_question *f, const char *arg, size_t *n)
{
    if (f->text) {
        *n = strlen(f->text);
        return f->text;
    }
    const char *t = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), arg), n);
    if (!t)
        *n = 0;
    return t ? t : "";
}

/* Sampling: the prompt to the client's model, at most 100 tokens back. */
static void sampling(void *ud, mcp_call *call)
{
    const one_question *f = ud;
    size_t n;
    const char *prompt = question_text(call, f, "prompt", &n);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    asking q = {.call = call};
    mcp_ask_answer a = {.size = sizeof a};
    bool answered = ask(&q, f->key, "sampling/createMessage",
                        d ? sampling_params(d, prompt, n, 100) : NULL, false, &a);
    if (asking_done(&q) && answered) {
        const char *text = sampled(&a, &n);
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        add(&b, f->prefix, strlen(f->prefix));
        if (text)
            add(&b, text, n);
        else
            ADD(&b, "(no text)");
        reply_buf(call, &b);
    }
    mcp_ask_answer_release(&a);
    mcp_json_doc_free(d);
}

/* Elicitation: a form of the fixture's schema; the answer shown whole. */
static void elicitation(void *ud, mcp_call *call)
{
    const one_question *f = ud;
    size_t n;
    const char *message = question_text(call, f, "message", &n);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    asking q = {.call = call};
    mcp_ask_answer a = {.size = sizeof a};
    bool answered = ask(&q, f->key, "elicitation/create",
                        d ? elicit_params(d, message, n, f->schema) : NULL, false, &a);
    if (asking_done(&q) && answered) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        add(&b, f->prefix, strlen(f->prefix));
        add_elicited(&b, &a);
        reply_buf(call, &b);
    }
    mcp_ask_answer_release(&a);
    mcp_json_doc_free(d);
}

static const one_question llm = {.prefix = "LLM response: "};

static const one_question user_info = {
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
              "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"}},"
              "\"required\":[\"username\",\"email\"]}",
    .prefix = "User response: "};

/* SEP-1034: a default for every primitive type. */
static const one_question with_defaults = {
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"name\":{\"type\":\"string\",\"title\":\"Name\",\"default\":\"John Doe\"},"
              "\"age\":{\"type\":\"integer\",\"title\":\"Age\",\"default\":30},"
              "\"score\":{\"type\":\"number\",\"title\":\"Score\",\"default\":95.5},"
              "\"status\":{\"type\":\"string\",\"title\":\"Status\","
              "\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
              "\"verified\":{\"type\":\"boolean\",\"title\":\"Verified\",\"default\":true}}}",
    .prefix = "Elicitation completed: ",
    .text = "Please review and update the form fields with defaults"};

/* SEP-1330: the five kinds of enum, single and multiple choice, with and
 * without titles, and the deprecated enumNames. */
static const one_question with_enums = {
    .schema = "{\"type\":\"object\",\"properties\":{"
              "\"untitledSingle\":{\"type\":\"string\","
              "\"enum\":[\"option1\",\"option2\",\"option3\"]},"
              "\"titledSingle\":{\"type\":\"string\",\"oneOf\":["
              "{\"const\":\"value1\",\"title\":\"First Option\"},"
              "{\"const\":\"value2\",\"title\":\"Second Option\"},"
              "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
              "\"legacyEnum\":{\"type\":\"string\",\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
              "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
              "\"untitledMulti\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
              "\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
              "\"titledMulti\":{\"type\":\"array\",\"items\":{\"anyOf\":["
              "{\"const\":\"value1\",\"title\":\"First Choice\"},"
              "{\"const\":\"value2\",\"title\":\"Second Choice\"},"
              "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}}}",
    .prefix = "Elicitation completed: ",
    .text = "Please choose from each kind of list"};

/* 2026-07-28: input-required results --------------------------------------------------- */

/* test_input_required_result_elicitation: "user_name", then a greeting.
 * Also the tool of missing-input-response (an answer under another key:
 * asked again), ignore-extra-params (answers nobody asked for: ignored)
 * and validate-input (an answer that is not an object: asked again;
 * inputResponses null: -32602), all the library's doing. */
static void irr_elicitation(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    asking q = {.call = call};
    mcp_ask_answer a = {.size = sizeof a};
    bool answered = ask(&q, "user_name", "elicitation/create",
                        d ? ELICIT(d, "What is your name?", NAME_SCHEMA) : NULL, false, &a);
    if (asking_done(&q) && answered) {
        size_t n;
        const char *name = accepted(&a, "name", &n);
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        if (name) {
            ADD(&b, "Hello, ");
            add(&b, name, n);
            ADD(&b, "!");
        } else {
            ADD(&b, "No name given: ");
            add_elicited(&b, &a);
        }
        reply_buf(call, &b);
    }
    mcp_ask_answer_release(&a);
    mcp_json_doc_free(d);
}

/* test_input_required_result_sampling: "capital_question". */
static const one_question capital = {.key = "capital_question",
                                     .text = "What is the capital of France?",
                                     .prefix = "The model answered: "};

/* test_input_required_result_list_roots: "client_roots" (roots/list has no
 * params: the library sends {}). */
static void irr_list_roots(void *ud, mcp_call *call)
{
    (void)ud;
    asking q = {.call = call};
    mcp_ask_answer a = {.size = sizeof a};
    bool answered = ask(&q, "client_roots", "roots/list", NULL, false, &a);
    if (asking_done(&q) && answered) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        ADD(&b, "Client roots: ");
        add_roots(&b, &a);
        reply_buf(call, &b);
    }
    mcp_ask_answer_release(&a);
}

/* test_input_required_result_request_state and _tampered_state: "confirm".
 * The requestState of the InputRequiredResult is the library's, sealed
 * with its key; a retry whose state fails the check (tampered, expired,
 * another request's) is refused before the handler runs, so reaching the
 * answer means the state, when there was one, passed: "state-ok". */
static const one_question confirm = {
    .key = "confirm", .text = "Please confirm", .schema = OK_SCHEMA, .prefix = "state-ok: "};

/* test_input_required_result_multiple_inputs: three questions of three
 * kinds in one round ("user_name", "greeting", "client_roots"). */
static void irr_multiple(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    asking q = {.call = call};
    mcp_ask_answer name = {.size = sizeof name}, greeting = {.size = sizeof greeting},
                   roots = {.size = sizeof roots};
    ask(&q, "user_name", "elicitation/create",
        d ? ELICIT(d, "What is your name?", NAME_SCHEMA) : NULL, false, &name);
    ask(&q, "greeting", "sampling/createMessage", d ? SAMPLE(d, "Generate a greeting", 50) : NULL,
        false, &greeting);
    ask(&q, "client_roots", "roots/list", NULL, false, &roots);
    if (asking_done(&q)) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        size_t n;
        const char *who = accepted(&name, "name", &n);
        ADD(&b, "Name: ");
        if (who)
            add(&b, who, n);
        else
            ADD(&b, "(not given)");
        const char *text = sampled(&greeting, &n);
        ADD(&b, "; greeting: ");
        if (text)
            add(&b, text, n);
        else
            ADD(&b, "(no text)");
        ADD(&b, "; roots: ");
        add_roots(&b, &roots);
        reply_buf(call, &b);
    }
    mcp_ask_answer_release(&name);
    mcp_ask_answer_release(&greeting);
    mcp_ask_answer_release(&roots);
    mcp_json_doc_free(d);
}

/* test_input_required_result_multi_round: "step1", and only once it is
 * answered "step2" (it depends on the first answer: a second round). The
 * third run finds step1's answer in the requestState of the second. */
static void irr_multi_round(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    asking q = {.call = call};
    mcp_ask_answer step1 = {.size = sizeof step1}, step2 = {.size = sizeof step2};
    if (ask(&q, "step1", "elicitation/create",
            d ? ELICIT(d, "Step 1: What is your name?", NAME_SCHEMA) : NULL, false, &step1))
        ask(&q, "step2", "elicitation/create",
            d ? ELICIT(d, "Step 2: What is your favorite color?",
                       "{\"type\":\"object\",\"properties\":{\"color\":{\"type\":\"string\"}},"
                       "\"required\":[\"color\"]}")
              : NULL,
            false, &step2);
    if (asking_done(&q)) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        size_t n;
        const char *name = accepted(&step1, "name", &n);
        if (name)
            add(&b, name, n);
        else
            ADD(&b, "(no name)");
        ADD(&b, "'s favorite color: ");
        const char *color = accepted(&step2, "color", &n);
        if (color)
            add(&b, color, n);
        else
            ADD(&b, "(not given)");
        reply_buf(call, &b);
    }
    mcp_ask_answer_release(&step1);
    mcp_ask_answer_release(&step2);
    mcp_json_doc_free(d);
}

/* test_input_required_result_capabilities: asks for a name, a sample and
 * the roots, each only if the client declared it can answer (the library
 * says MCP_ERR_STATE otherwise, and the question is left out): a client
 * with sampling alone gets the sampling question alone. */
static void irr_capabilities(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    asking q = {.call = call};
    mcp_ask_answer a[3] = {{.size = sizeof a[0]}, {.size = sizeof a[0]}, {.size = sizeof a[0]}};
    static const char *const what[] = {"elicitation", "sampling", "roots"};
    bool answered[3]; /* asked in this order (an initializer list's are not sequenced) */
    answered[0] = ask(&q, "user_name", "elicitation/create",
                      d ? ELICIT(d, "What is your name?", NAME_SCHEMA) : NULL, true, &a[0]);
    answered[1] = ask(&q, "capital_question", "sampling/createMessage",
                      d ? SAMPLE(d, "What is the capital of France?", 100) : NULL, true, &a[1]);
    answered[2] = ask(&q, "client_roots", "roots/list", NULL, true, &a[2]);
    if (asking_done(&q)) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        for (int i = 0; i < 3; i++) {
            if (i)
                ADD(&b, "; ");
            add(&b, what[i], strlen(what[i]));
            if (answered[i])
                ADD(&b, ": answered");
            else
                ADD(&b, ": not asked (the client did not declare it)");
        }
        reply_buf(call, &b);
    }
    for (int i = 0; i < 3; i++)
        mcp_ask_answer_release(&a[i]);
    mcp_json_doc_free(d);
}

/* Prompt test_input_required_result_prompt: prompts/get asks too
 * ("user_context"), and answers a GetPromptResult. */
static void irr_prompt(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    asking q = {.call = call};
    mcp_ask_answer a = {.size = sizeof a};
    bool answered = ask(&q, "user_context", "elicitation/create",
                        d ? ELICIT(d, "What context should the prompt use?",
                                   "{\"type\":\"object\",\"properties\":{\"context\":{\"type\":"
                                   "\"string\"}},\"required\":[\"context\"]}")
                          : NULL,
                        false, &a);
    if (asking_done(&q) && answered) {
        size_t n;
        const char *context = accepted(&a, "context", &n);
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        ADD(&b, "Answer with this context in mind: ");
        if (context)
            add(&b, context, n);
        else
            ADD(&b, "(none given)");
        mcp_json_doc *r = mcp_json_doc_new(NULL);
        mcp_json *result = r ? mcp_json_new_object(r) : NULL;
        if (r) {
            mcp_json *messages = mcp_json_new_array(r);
            mcp_json *m = mcp_json_new_object(r);
            mcp_json *content = mcp_json_new_object(r);
            mcp_json_object_set(r, content, "type", mcp_json_new_string(r, "text"));
            mcp_json_object_set(r, content, "text",
                                mcp_json_new_stringn(r, b.data ? b.data : "", b.len));
            mcp_json_object_set(r, m, "role", mcp_json_new_string(r, "user"));
            mcp_json_object_set(r, m, "content", content);
            mcp_json_array_append(r, messages, m);
            mcp_json_object_set(r, result, "messages", messages);
        }
        if (r && mcp_json_doc_error(r) == MCP_OK)
            mcp_call_reply_result(call, result);
        else
            mcp_call_reply_error(call, -32603, "conformance fixture: out of memory");
        mcp_json_doc_free(r);
        mcp_buf_free(&b);
    }
    mcp_ask_answer_release(&a);
    mcp_json_doc_free(d);
}

/* Registration ----------------------------------------------------------------------------- */

#define NO_ARGS "{\"type\":\"object\",\"properties\":{}}"

int conformance_asks(mcp_server *s)
{
    /* Blocking, all: mcp_call_ask waits under 2025 and refuses the loop
     * thread in either era. */
#define TOOL(name_, description_, schema_, handler_, user_data_)                                  \
    {.size = sizeof(mcp_tool), .name = name_, .description = description_,                         \
     .input_schema = schema_, .handler = handler_, .user_data = (void *)(user_data_),              \
     .flags = MCP_TOOL_BLOCKING}
    const mcp_tool tools[] = {
        TOOL("test_sampling", "Asks the client's model to answer the prompt (sampling).",
             "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
             "\"description\":\"The prompt to send to the LLM\"}},\"required\":[\"prompt\"]}",
             sampling, &llm),
        TOOL("test_elicitation", "Asks the user for a username and an email address.",
             "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
             "\"description\":\"The message to show the user\"}},\"required\":[\"message\"]}",
             elicitation, &user_info),
        TOOL("test_elicitation_sep1034_defaults",
             "Asks for a form whose fields have defaults (SEP-1034).", NO_ARGS, elicitation,
             &with_defaults),
        TOOL("test_elicitation_sep1330_enums",
             "Asks for a form with every kind of enum (SEP-1330).", NO_ARGS, elicitation,
             &with_enums),
        TOOL("test_input_required_result_elicitation",
             "Asks the user's name (user_name), then greets them.", NO_ARGS, irr_elicitation, NULL),
        TOOL("test_input_required_result_sampling",
             "Asks the client's model the capital of France (capital_question).", NO_ARGS,
             sampling, &capital),
        TOOL("test_input_required_result_list_roots",
             "Asks the client's roots (client_roots) and lists them.", NO_ARGS, irr_list_roots,
             NULL),
        TOOL("test_input_required_result_request_state",
             "Asks for a confirmation (confirm); says state-ok once it has it.", NO_ARGS,
             elicitation, &confirm),
        TOOL("test_input_required_result_tampered_state",
             "Asks for a confirmation (confirm); a tampered requestState is refused.", NO_ARGS,
             elicitation, &confirm),
        TOOL("test_input_required_result_multiple_inputs",
             "Asks a name, a greeting and the roots in one round.", NO_ARGS, irr_multiple, NULL),
        TOOL("test_input_required_result_multi_round",
             "Asks a name (step1), then a favorite color (step2): two rounds.", NO_ARGS,
             irr_multi_round, NULL),
        TOOL("test_input_required_result_capabilities",
             "Asks only what the client declared it can answer.", NO_ARGS, irr_capabilities, NULL),
    };
#undef TOOL
    int rc = conformance_add_tools(s, tools, sizeof tools / sizeof tools[0]);
    if (rc != MCP_OK)
        return rc;
    const mcp_prompt prompt = {.size = sizeof prompt,
                               .name = "test_input_required_result_prompt",
                               .title = "Prompt That Asks",
                               .description = "Asks the user for the context (user_context) "
                                              "before it is given.",
                               .get = irr_prompt,
                               .flags = MCP_TOOL_BLOCKING};
    rc = mcp_server_add_prompt(s, &prompt);
    if (rc != MCP_OK)
        fprintf(stderr, "mcp-conformance server: cannot register prompt %s: %s\n", prompt.name,
                mcp_strerror(rc));
    return rc;
}
