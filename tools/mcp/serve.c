/* SPDX-License-Identifier: MIT */
/*
 * mcp serve: the demo server on stdio, for clients of every revision, with
 * tools that show the lifecycle: echo (instant), sleep (returns early when
 * cancelled), count (progress and log messages, cancellable between steps),
 * fail (a tool error) and add_tool (changes the tool list while serving:
 * subscribers hear tools/list_changed), confirm, connect, summarize and roots (each
 * asks the client: a form, a URL, sampling, roots), a few resources, a resource template
 * and a prompt with completion. The serving itself (options, HTTP,
 * signals) is serve_host.c's, shared with the conformance fixtures'
 * program (tests/conformance).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

static mcp_server *the_server;

static void tool_echo(void *ud, mcp_call *call)
{
    size_t n;
    const char *text = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "text"), &n);
    if (!text) {
        mcp_call_reply_tool_error(call, "echo: argument 'text' (a string) is required");
        return;
    }
    mcp_call_reply_text_n(call, text, n); /* all of it, NUL characters included */
}

/* A number argument within [lo, hi], or an error message. */
static const char *number_arg(mcp_call *call, const char *name, double lo, double hi,
                              double *out)
{
    static _Thread_local char why[128];
    if (mcp_json_get_double(mcp_json_object_get(mcp_call_arguments(call), name), out) != MCP_OK ||
        !(*out >= lo && *out <= hi)) {
        snprintf(why, sizeof why, "%s: argument '%s' must be a number from %g to %g",
                 mcp_call_tool_name(call), name, lo, hi);
        return why;
    }
    return NULL;
}

static void tool_sleep(void *ud, mcp_call *call)
{
    double seconds;
    const char *bad = number_arg(call, "seconds", 0, 86400, &seconds);
    if (bad) {
        mcp_call_reply_tool_error(call, bad);
        return;
    }
    mcp_cancel_token *t = mcp_call_cancel_token(call);
    uint64_t start = mcp_monotonic_ms();
    if (mcp_cancel_token_wait(t, (uint64_t)(seconds * 1000))) {
        mcp_call_log(call, MCP_LOG_INFO, "cancelled after %llu ms (%s)",
                     (unsigned long long)(mcp_monotonic_ms() - start),
                     mcp_cancel_token_reason(t) ? mcp_cancel_token_reason(t) : "no reason");
        mcp_call_finish(call);
        return;
    }
    char text[64];
    snprintf(text, sizeof text, "slept %g seconds", seconds);
    mcp_call_reply_text(call, text);
}

static void tool_count(void *ud, mcp_call *call)
{
    double n, delay;
    const char *bad = number_arg(call, "n", 0, 1000000, &n);
    if (!bad)
        bad = number_arg(call, "delay_ms", 0, 3600000, &delay);
    if (bad || n != floor(n)) {
        mcp_call_reply_tool_error(call, bad ? bad : "count: argument 'n' must be an integer");
        return;
    }
    mcp_cancel_token *t = mcp_call_cancel_token(call);
    for (long i = 1; i <= (long)n; i++) {
        if (mcp_cancel_token_wait(t, (uint64_t)delay)) {
            mcp_call_log(call, MCP_LOG_INFO, "cancelled at step %ld of %ld (%s)", i - 1, (long)n,
                         mcp_cancel_token_reason(t) ? mcp_cancel_token_reason(t) : "no reason");
            mcp_call_finish(call);
            return;
        }
        char msg[64];
        snprintf(msg, sizeof msg, "step %ld of %ld", i, (long)n);
        int rc = mcp_call_progress(call, (double)i, n, msg);
        if (rc != MCP_OK && rc != MCP_ERR_STATE) /* STATE: no progress asked for */
            break;
        mcp_call_send_log(call, MCP_LOG_DEBUG, msg); /* sent if the client asked */
    }
    char text[64];
    snprintf(text, sizeof text, "counted to %ld", (long)n);
    mcp_call_reply_text(call, text);
}

static void tool_fail(void *ud, mcp_call *call)
{
    size_t n;
    const char *m = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "message"), &n);
    if (!m || !memchr(m, '\0', n)) {
        mcp_call_reply_tool_error(call, m ? m : "failed as asked");
        return;
    }
    /* All of it, NUL characters included (as echo does): the result built
     * by hand, since reply_tool_error takes a C string. */
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    if (!d) {
        mcp_call_reply_tool_error(call, "fail: out of memory");
        return;
    }
    mcp_json *result = mcp_json_new_object(d), *content = mcp_json_new_array(d);
    mcp_json *item = mcp_json_new_object(d);
    mcp_json_object_set(d, item, "type", mcp_json_new_string(d, "text"));
    mcp_json_object_set(d, item, "text", mcp_json_new_stringn(d, m, n));
    mcp_json_array_append(d, content, item);
    mcp_json_object_set(d, result, "content", content);
    mcp_json_object_set(d, result, "isError", mcp_json_new_bool(d, true));
    if (mcp_json_doc_error(d) == MCP_OK)
        mcp_call_reply_result(call, result);
    else
        mcp_call_reply_tool_error(call, "fail: out of memory");
    mcp_json_doc_free(d);
}

/* The tools add_tool creates: echo under another name. */
static void tool_added(void *ud, mcp_call *call)
{
    char text[200];
    snprintf(text, sizeof text, "%s was added by add_tool", mcp_call_tool_name(call));
    mcp_call_reply_text(call, text);
}

static void tool_add(void *ud, mcp_call *call)
{
    size_t n;
    const char *name = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "name"), &n);
    if (!name) {
        mcp_call_reply_tool_error(call, "add_tool: argument 'name' (a string) is required");
        return;
    }
    if (memchr(name, '\0', n)) { /* would be cut there: "a\u0000b" would add "a" */
        mcp_call_reply_tool_error(call, "add_tool: the name must not contain NUL characters");
        return;
    }
    /* Any client may call it: the demo keeps at most this many. */
    static atomic_int added;
    if (atomic_fetch_add(&added, 1) >= 100) {
        atomic_fetch_sub(&added, 1);
        mcp_call_reply_tool_error(call, "add_tool: the demo adds at most 100 tools");
        return;
    }
    mcp_tool t = {.size = sizeof t,
                  .name = name,
                  .description = "A tool added while serving, by add_tool.",
                  .handler = tool_added};
    int rc = mcp_server_add_tool(the_server, &t);
    if (rc != MCP_OK)
        atomic_fetch_sub(&added, 1);
    if (rc != MCP_OK) {
        char why[200];
        snprintf(why, sizeof why, "add_tool: cannot add '%.100s': %s", name,
                 rc == MCP_ERR_INVALID_ARG ? "an invalid or existing name" : mcp_strerror(rc));
        mcp_call_reply_tool_error(call, why);
        return;
    }
    char text[200];
    snprintf(text, sizeof text, "added %.100s; tools/list_changed published", name);
    mcp_call_reply_text(call, text);
}


/* Tools that ask the client ------------------------------------------------------ */

/* After an ask that did not answer: end the call as the outcome says.
 * True when the call is ended. */
static bool ask_ended(mcp_call *call, int rc, const mcp_ask_answer *a)
{
    if (rc == MCP_OK)
        return false;
    if (rc == MCP_ERR_INPUT_REQUIRED || rc == MCP_ERR_CANCELLED) {
        mcp_call_finish(call); /* 2026: the questions go out; cancelled: nothing */
        return true;
    }
    char why[300];
    if (rc == MCP_ERR_REMOTE)
        snprintf(why, sizeof why, "%s: the client refused: %s", mcp_call_tool_name(call),
                 a->error_message);
    else
        snprintf(why, sizeof why, "%s: cannot ask the client: %s", mcp_call_tool_name(call),
                 rc == MCP_ERR_STATE ? "it did not declare that it can answer (or its protocol "
                                       "revision has no such request)"
                                     : mcp_strerror(rc));
    mcp_call_reply_tool_error(call, why);
    return true;
}

/* confirm {question}: asks the user (elicitation, a form with one boolean). */
static void tool_confirm(void *ud, mcp_call *call)
{
    const char *q = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "question"), NULL);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = mcp_json_new_object(d);
    mcp_json_object_set(d, params, "message", mcp_json_new_string(d, q ? q : "Go ahead?"));
    static const char schema[] = "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":"
                                 "\"boolean\",\"title\":\"Go ahead\"}},\"required\":[\"ok\"]}";
    mcp_json_doc *sd = NULL;
    mcp_json_parse(schema, sizeof schema - 1, NULL, NULL, &sd, NULL);
    mcp_json_object_set(d, params, "requestedSchema", sd ? mcp_json_copy(d, mcp_json_doc_root(sd)) : NULL);
    mcp_json_doc_free(sd);
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_json_doc_error(d) == MCP_OK
                 ? mcp_call_ask(call, "confirm", "elicitation/create", params, 0, &a)
                 : MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    if (!ask_ended(call, rc, &a)) {
        const mcp_json *r = mcp_json_doc_root(a.result);
        const char *action = mcp_json_string(mcp_json_object_get(r, "action"), NULL);
        bool ok = false;
        mcp_json_get_bool(mcp_json_object_get(mcp_json_object_get(r, "content"), "ok"), &ok);
        mcp_call_reply_text(call, !action                      ? "no answer"
                                  : strcmp(action, "accept")   ? action
                                  : ok                         ? "confirmed"
                                                               : "not confirmed");
    }
    mcp_ask_answer_release(&a);
}

/* connect {url}: sends the user to a page (URL mode elicitation, from
 * 2025-11-25). A demo has no page to be done at: once the user accepts,
 * the interaction is said complete at once (2025-11-25: the client gets
 * notifications/elicitation/complete), as a service would when its page
 * is done. */
static void tool_connect(void *ud, mcp_call *call)
{
    static atomic_uint made;
    size_t url_len = 0;
    const char *url =
        mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "url"), &url_len);
    if (url && memchr(url, '\0', url_len)) {
        /* Sent as a C string it would be another URL than the one given. */
        mcp_call_reply_tool_error(call, "connect: url must not contain NUL");
        return;
    }
    char id[64];
    snprintf(id, sizeof id, "demo-%ld-%u", (long)getpid(), atomic_fetch_add(&made, 1) + 1);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = mcp_json_new_object(d);
    mcp_json_object_set(d, params, "mode", mcp_json_new_string(d, "url"));
    mcp_json_object_set(d, params, "message",
                        mcp_json_new_string(d, "Open this page to connect your account."));
    mcp_json_object_set(d, params, "url",
                        mcp_json_new_string(d, url ? url : "https://example.com/connect"));
    bool ids = !strcmp(mcp_call_protocol_version(call), "2025-11-25");
    if (ids)
        mcp_json_object_set(d, params, "elicitationId", mcp_json_new_string(d, id));
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_json_doc_error(d) == MCP_OK
                 ? mcp_call_ask(call, "connect", "elicitation/create", params, 0, &a)
                 : MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    if (rc == MCP_ERR_INVALID_ARG) {
        mcp_call_reply_tool_error(call, "connect: url must be scheme://host... without spaces");
    } else if (!ask_ended(call, rc, &a)) {
        const char *action =
            mcp_json_string(mcp_json_object_get(mcp_json_doc_root(a.result), "action"), NULL);
        bool accepted = action && !strcmp(action, "accept");
        if (accepted && ids)
            mcp_server_elicitation_complete(the_server, id);
        mcp_call_reply_text(call, accepted ? "connected" : action ? action : "no answer");
    }
    mcp_ask_answer_release(&a);
}

/* summarize {text}: asks the client's model (sampling). */
static void tool_summarize(void *ud, mcp_call *call)
{
    const char *text = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "text"), NULL);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = mcp_json_new_object(d);
    mcp_json *messages = mcp_json_new_array(d);
    mcp_json *m = mcp_json_new_object(d);
    mcp_json *content = mcp_json_new_object(d);
    mcp_json_object_set(d, content, "type", mcp_json_new_string(d, "text"));
    mcp_json_object_set(d, content, "text", mcp_json_new_string(d, text ? text : ""));
    mcp_json_object_set(d, m, "role", mcp_json_new_string(d, "user"));
    mcp_json_object_set(d, m, "content", content);
    mcp_json_array_append(d, messages, m);
    mcp_json_object_set(d, params, "messages", messages);
    mcp_json_object_set(d, params, "systemPrompt", mcp_json_new_string(d, "Summarize in one line."));
    mcp_json_object_set(d, params, "maxTokens", mcp_json_new_int(d, 100));
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_json_doc_error(d) == MCP_OK
                 ? mcp_call_ask(call, "summary", "sampling/createMessage", params, 0, &a)
                 : MCP_ERR_NOMEM;
    mcp_json_doc_free(d);
    if (!ask_ended(call, rc, &a)) {
        const mcp_json *c = mcp_json_object_get(mcp_json_doc_root(a.result), "content");
        size_t n;
        const char *said = mcp_json_string(mcp_json_object_get(c, "text"), &n);
        if (said)
            mcp_call_reply_text_n(call, said, n);
        else
            mcp_call_reply_tool_error(call, "summarize: the model's answer has no text");
    }
    mcp_ask_answer_release(&a);
}

/* roots: the client's roots, one URI a line. */
static void tool_roots(void *ud, mcp_call *call)
{
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(call, "roots", "roots/list", NULL, 0, &a);
    if (!ask_ended(call, rc, &a)) {
        const mcp_json *roots = mcp_json_object_get(mcp_json_doc_root(a.result), "roots");
        mcp_buf b;
        mcp_buf_init(&b, 1 << 20, NULL);
        for (size_t i = 0; i < mcp_json_array_size(roots); i++) {
            size_t n;
            const char *uri = mcp_json_string(mcp_json_object_get(mcp_json_array_at(roots, i), "uri"),
                                              &n);
            if (uri && mcp_buf_append(&b, uri, n) == MCP_OK)
                mcp_buf_append(&b, MCP_LITERAL("\n"));
        }
        mcp_call_reply_text_n(call, b.data ? b.data : "", b.len);
        mcp_buf_free(&b);
    }
    mcp_ask_answer_release(&a);
}

static int add_demo_tools(void)
{
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool),
         .name = "echo",
         .title = "Echo",
         .description = "Returns the text it is given.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
         .handler = tool_echo},
        {.size = sizeof(mcp_tool),
         .name = "sleep",
         .title = "Sleep",
         .description = "Sleeps for the given seconds; returns early when cancelled.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\",\"minimum\":0}},"
         "\"required\":[\"seconds\"]}",
         .handler = tool_sleep,
         .flags = MCP_TOOL_BLOCKING,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool),
         .name = "count",
         .title = "Count",
         .description = "Counts to n, one step every delay_ms, reporting progress.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0},"
         "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"n\",\"delay_ms\"]}",
         .handler = tool_count,
         .flags = MCP_TOOL_BLOCKING,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool),
         .name = "job",
         .title = "Job",
         .description = "Counts to n, one step every delay_ms, reporting progress: as a task "
                        "only (2025-11-25 execution.taskSupport \"required\").",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0},"
         "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"n\",\"delay_ms\"]}",
         .handler = tool_count,
         .flags = MCP_TOOL_BLOCKING,
         .task_support = MCP_TASK_REQUIRED},
        {.size = sizeof(mcp_tool),
         .name = "fail",
         .title = "Fail",
         .description = "Always fails, with the given message (an isError result).",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}",
         .handler = tool_fail,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool),
         .name = "add_tool",
         .title = "Add a tool",
         .description = "Adds a tool with the given name while serving: clients listening for tool list "
         "changes are told.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
         "\"required\":[\"name\"]}",
         .handler = tool_add},
        {.size = sizeof(mcp_tool),
         .name = "confirm",
         .title = "Confirm",
         .description = "Asks the user to confirm (elicitation): confirmed, not confirmed, "
                        "decline or cancel.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}}}",
         .handler = tool_confirm,
         .flags = MCP_TOOL_BLOCKING,
         .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool),
         .name = "connect",
         .title = "Connect",
         .description = "Sends the user to a page (URL mode elicitation): connected, decline or "
                        "cancel. A demo: the page is not checked.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\"}}}",
         .handler = tool_connect,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "summarize",
         .title = "Summarize",
         .description = "Asks the client's model for a one-line summary of the text (sampling).",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                         "\"required\":[\"text\"]}",
         .handler = tool_summarize,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "roots",
         .title = "Roots",
         .description = "Lists the client's roots (roots/list).",
         .handler = tool_roots,
         .flags = MCP_TOOL_BLOCKING},
    };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        mcp_tool t = tools[i];
        const char *scopes[33];
        t.scopes = cli_serve_item_scopes(t.name, scopes, 33) ? scopes : NULL;
        int rc = mcp_server_add_tool(the_server, &t);
        if (rc != MCP_OK) {
            fprintf(stderr, "mcp serve: cannot register tool %s\n", tools[i].name);
            return rc;
        }
    }
    return MCP_OK;
}

/* Demo resources and a prompt -------------------------------------------------------- */

static const char demo_readme[] =
    "mcp serve: a demo server.\n"
    "Tools: echo, sleep, count, fail, add_tool.\n"
    "Resources: demo://readme (this text), demo://logo (a few bytes of PNG),\n"
    "demo://echo/{text} (any text, read back).\n"
    "Prompt: greet (name, and a style completed from formal, casual, pirate).\n";

static void read_readme(void *ud, mcp_call *call)
{
    mcp_call_reply_resource_text(call, "text/plain", demo_readme, sizeof demo_readme - 1);
}

static void read_logo(void *ud, mcp_call *call)
{
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    mcp_call_reply_resource_blob(call, "image/png", png, sizeof png);
}

static void read_echo(void *ud, mcp_call *call)
{
    size_t n;
    const char *text = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "text"), &n);
    mcp_call_reply_resource_text(call, "text/plain", text ? text : "", text ? n : 0);
}

static const char *const greet_styles[] = {"formal", "casual", "pirate"};

static void get_greet(void *ud, mcp_call *call)
{
    const mcp_json *args = mcp_call_arguments(call);
    size_t n;
    const char *name = mcp_json_string(mcp_json_object_get(args, "name"), &n);
    const char *style = mcp_json_string(mcp_json_object_get(args, "style"), NULL);
    const char *how = !style || !strcmp(style, "casual") ? "Say hi to "
                      : !strcmp(style, "pirate")          ? "Hail, the pirate way, "
                                                          : "Greet formally ";
    /* The whole name, whatever its length, NUL characters included. */
    mcp_buf text;
    mcp_buf_init(&text, 0, NULL);
    mcp_buf_append(&text, how, strlen(how));
    mcp_buf_append(&text, name, n);
    mcp_buf_append(&text, MCP_LITERAL("."));
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *result = mcp_json_new_object(d);
    mcp_json *messages = mcp_json_new_array(d);
    mcp_json *message = mcp_json_new_object(d);
    mcp_json *content = mcp_json_new_object(d);
    mcp_json_object_set(d, content, "type", mcp_json_new_string(d, "text"));
    mcp_json_object_set(d, content, "text",
                        text.data ? mcp_json_new_stringn(d, text.data, text.len) : NULL);
    mcp_json_object_set(d, message, "role", mcp_json_new_string(d, "user"));
    mcp_json_object_set(d, message, "content", content);
    mcp_json_array_append(d, messages, message);
    mcp_json_object_set(d, result, "messages", messages);
    if (text.data && mcp_json_doc_error(d) == MCP_OK)
        mcp_call_reply_result(call, result);
    else
        mcp_call_reply_error(call, -32603, "Internal error: out of memory");
    mcp_json_doc_free(d);
    mcp_buf_free(&text);
}

static void complete_greet(void *ud, mcp_call *call)
{
    const mcp_json *arg = mcp_json_object_get(mcp_call_arguments(call), "argument");
    const char *name = mcp_json_string(mcp_json_object_get(arg, "name"), NULL);
    const char *value = mcp_json_string(mcp_json_object_get(arg, "value"), NULL);
    const char *out[3];
    size_t n = 0;
    for (size_t i = 0; !strcmp(name, "style") && i < 3; i++)
        if (!strncmp(greet_styles[i], value, strlen(value)))
            out[n++] = greet_styles[i];
    mcp_call_reply_completion(call, out, n, (int64_t)n, false);
}

static int add_demo_offers(void)
{
    const mcp_resource resources[] = {
        {.size = sizeof(mcp_resource), .uri = "demo://readme", .name = "readme",
         .title = "What this server offers", .mime_type = "text/plain", .size_known = true,
         .size_bytes = sizeof demo_readme - 1, .read = read_readme},
        {.size = sizeof(mcp_resource), .uri = "demo://logo", .name = "logo",
         .mime_type = "image/png", .read = read_logo},
    };
    int rc = MCP_OK;
    const char *scopes[33];
    for (size_t i = 0; i < sizeof resources / sizeof resources[0] && rc == MCP_OK; i++) {
        mcp_resource r = resources[i];
        r.scopes = cli_serve_item_scopes(r.uri, scopes, 33) ? scopes : NULL;
        rc = mcp_server_add_resource(the_server, &r);
    }
    mcp_resource_template echo = {.size = sizeof echo, .uri_template = "demo://echo/{text}",
                                  .name = "echo", .title = "Any text, read back",
                                  .mime_type = "text/plain", .read = read_echo};
    echo.scopes = cli_serve_item_scopes(echo.uri_template, scopes, 33) ? scopes : NULL;
    if (rc == MCP_OK)
        rc = mcp_server_add_resource_template(the_server, &echo);
    const mcp_prompt_argument args[] = {
        {.name = "name", .description = "Who to greet", .required = true},
        {.name = "style", .description = "formal, casual or pirate"}};
    const char *greet_scopes[33];
    const mcp_prompt greet = {
        .size = sizeof greet, .name = "greet", .title = "Greet someone", .arguments = args,
        .argument_count = 2, .get = get_greet, .complete = complete_greet,
        .scopes = cli_serve_item_scopes("greet", greet_scopes, 33) ? greet_scopes : NULL};
    if (rc == MCP_OK)
        rc = mcp_server_add_prompt(the_server, &greet);
    if (rc != MCP_OK)
        fprintf(stderr, "mcp serve: cannot register the demo resources: %s\n", mcp_strerror(rc));
    return rc;
}

/* SIGUSR1 adds a tool (added_1, added_2, ...): a list change to watch from
 * outside (kill -USR1). On the signal thread. */
static void add_tool_on_signal(mcp_server *s)
{
    static int added;
    char name[32];
    snprintf(name, sizeof name, "added_%d", ++added);
    mcp_tool t = {.size = sizeof t,
                  .name = name,
                  .description = "A tool added while serving, by SIGUSR1.",
                  .handler = tool_added};
    int rc = mcp_server_add_tool(s, &t);
    fprintf(stderr, "mcp serve: SIGUSR1: %s %s\n", rc == MCP_OK ? "added" : "could not add", name);
}

static int add_demo(mcp_server *s)
{
    the_server = s;
    int rc = add_demo_tools();
    return rc == MCP_OK ? add_demo_offers() : rc;
}

int cli_serve(int argc, char **argv)
{
    static const cli_served demo = {
        .prog = "mcp serve",
        .usage_command = "serve",
        .options = {.name = "mcp serve",
                    .instructions = "A demo server: the tools echo, sleep, count, job, fail, "
                                    "add_tool, confirm, connect, summarize and roots (sleep, "
                                    "count, fail and confirm may run as tasks, job only as "
                                    "one); "
                                    "resources (demo://readme) and a prompt (greet).",
                    /* The demo's tools change (add_tool), its prompts and
                     * resources never: only what can change is declared. */
                    .listen_kinds = MCP_LISTEN_TOOLS | MCP_LISTEN_TASKS},
        .add = add_demo,
        .on_sigusr1 = add_tool_on_signal};
    return cli_serve_host(&demo, argc, argv);
}
