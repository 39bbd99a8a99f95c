/* SPDX-License-Identifier: MIT */
/*
 * mcp-conformance client URL: our client for the client scenarios of the
 * official conformance suite (@modelcontextprotocol/conformance, pinned in
 * tests/interop). The suite starts a mock server, runs this command with the
 * mock's URL as the last argument and names the scenario in
 * MCP_CONFORMANCE_SCENARIO (0.2.0 adds MCP_CONFORMANCE_PROTOCOL_VERSION, the
 * revision to speak, and MCP_CONFORMANCE_CONTEXT, a scenario's inputs); the
 * mock judges what arrives on the wire.
 *
 * Each scenario does what an application would (connect, list, call) through
 * the public client API alone: the headers, the era fallback, the resume of a
 * broken stream and the tool filtering being checked are the library's, not
 * this file's. A scenario this client cannot play yet (OAuth, the skills
 * extension) is refused with exit status 2 and says why, so the suite counts
 * it as failed (tests/interop/conformance-expected-failures.txt lists those).
 * The server's questions are answered through the library's handlers, as an
 * application would: an elicitation is accepted with nothing filled in, so
 * what reaches the mock is the form's defaults, which the library adds
 * (SEP-1034); under 2026-07-28 the library carries input-required results
 * (the retry with requestState) itself.
 *
 * Exit status: 0 when the scenario ran through and every answer was what the
 * scenario's mock serves; 1 when an answer was wrong (a tool error, a
 * missing result); 2 an unknown scenario or bad usage; 3 a connection or
 * protocol failure; 4 timed out; 143 SIGTERM (the suite's timeout).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conformance.h"
#include "text.h"

/* The suite stops a client after 30 s (its --timeout default): end before
 * that with our own message rather than be killed without one. */
#define SCENARIO_SECONDS 25

typedef struct scenario_run {
    mcp_client *c;
    cli_client_args *args;
    int status; /* the worst exit status so far */
} scenario_run;

static void fail(scenario_run *r, int status, const char *what)
{
    const char *why = mcp_client_error(r->c);
    fprintf(stderr, "mcp-conformance client: %s%s%s\n", what, why[0] ? ": " : "",
            why[0] ? cli_safe(why) : "");
    if (status > r->status)
        r->status = status;
}

static int status_of(int rc)
{
    return rc == MCP_ERR_TIMED_OUT || rc == MCP_ERR_MAX_TIME ? EXIT_TIMEOUT : EXIT_CONNECTION;
}

static mcp_client_call_options call_options(scenario_run *r)
{
    uint64_t idle, left;
    if (!cli_budget(r->args, &idle, &left))
        left = 1; /* used up: the call ends at once as MCP_ERR_MAX_TIME */
    mcp_client_call_options co = {.size = sizeof co, .timeout_ms = idle, .max_time_ms = left};
    return co;
}

/* Every tool the server lists, or NULL (said why). */
static mcp_json_doc *list_tools(scenario_run *r)
{
    mcp_client_call_options co = call_options(r);
    mcp_json_doc *tools = NULL;
    int rc = mcp_client_list_tools(r->c, &co, &tools, NULL);
    if (rc != MCP_OK) {
        fail(r, status_of(rc), "tools/list failed");
        return NULL;
    }
    return tools;
}

/* Names are compared and sent as JSON strings, whole: a name with a NUL
 * in it ("nul\u0000x") is not the name "nul". */
static const mcp_json *find_tool_n(const mcp_json *tools, const char *want, size_t n)
{
    for (size_t i = 0; i < mcp_json_array_size(tools); i++) {
        const mcp_json *t = mcp_json_array_at(tools, i);
        size_t tn;
        const char *s = mcp_json_string(mcp_json_object_get(t, "name"), &tn);
        if (s && tn == n && !memcmp(s, want, n))
            return t;
    }
    return NULL;
}

static const mcp_json *find_tool(const mcp_json *tools, const char *name)
{
    return find_tool_n(tools, name, strlen(name));
}

/* Send a request and say how it ended; a result that is a tool error counts
 * as a wrong answer. On success *out (may be NULL) keeps the result for
 * the caller to release. */
static bool request(scenario_run *r, const char *method, const mcp_json *params,
                    mcp_client_call_result *out)
{
    mcp_client_call_options co = call_options(r);
    mcp_client_call_result res = {.size = sizeof res};
    int rc = mcp_client_request(r->c, method, params, &co, &res);
    char what[160];
    size_t nn;
    const char *name = mcp_json_string(mcp_json_object_get(params, "name"), &nn);
    snprintf(what, sizeof what, "%s%s%s", method, name ? " " : "", name ? cli_safe_n(name, nn) : "");
    bool ok = rc == MCP_OK && !res.is_error;
    if (rc == MCP_ERR_REMOTE) {
        fprintf(stderr, "mcp-conformance client: %s: error %lld: %s\n", what,
                (long long)res.error_code, cli_safe(res.error_message ? res.error_message : ""));
        if (r->status < EXIT_TOOL_ERROR)
            r->status = EXIT_TOOL_ERROR;
    } else if (rc != MCP_OK) {
        snprintf(what + strlen(what), sizeof what - strlen(what), " failed");
        fail(r, status_of(rc), what);
    } else if (res.is_error) {
        fprintf(stderr, "mcp-conformance client: %s: the tool answered with an error\n", what);
        if (r->status < EXIT_TOOL_ERROR)
            r->status = EXIT_TOOL_ERROR;
    }
    if (ok && out)
        *out = res;
    else
        mcp_client_call_result_release(&res);
    return ok;
}

/* tools/call name with arguments; the text of its first content block is
 * printed on stdout (the suite keeps it in stdout.txt). */
static bool call_tool_n(scenario_run *r, const char *name, size_t nn, const mcp_json *arguments)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *params = mcp_json_new_object(d);
    mcp_json_object_set(d, params, "name", mcp_json_new_stringn(d, name, nn));
    mcp_json_object_set(d, params, "arguments",
                        arguments ? mcp_json_copy(d, arguments) : mcp_json_new_object(d));
    if (mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        fail(r, EXIT_CONNECTION, "out of memory");
        return false;
    }
    mcp_client_call_result res = {.size = sizeof res};
    bool ok = request(r, "tools/call", params, &res);
    mcp_json_doc_free(d);
    if (!ok)
        return false;
    const mcp_json *first = mcp_json_array_at(mcp_json_object_get(res.result, "content"), 0);
    size_t n;
    const char *text = mcp_json_string(mcp_json_object_get(first, "text"), &n);
    printf("%s: ", cli_safe_n(name, nn));
    printf("%s\n", text ? cli_safe_n(text, n) : "(no text)");
    mcp_client_call_result_release(&res);
    return true;
}

static bool call_tool(scenario_run *r, const char *name, const mcp_json *arguments)
{
    return call_tool_n(r, name, strlen(name), arguments);
}

/* Arguments that fit a tool's inputSchema: each declared property with a
 * value of its type (the first of an enum). Enough for the mocks' tools,
 * which check headers, not values. */
static mcp_json *sample_arguments(mcp_json_doc *d, const mcp_json *tool)
{
    const mcp_json *props = mcp_json_object_get(mcp_json_object_get(tool, "inputSchema"),
                                                "properties");
    mcp_json *args = mcp_json_new_object(d);
    for (size_t i = 0; i < mcp_json_object_size(props); i++) {
        const char *key;
        size_t kn;
        const mcp_json *p = mcp_json_object_at(props, i, &key, &kn);
        const mcp_json *en = mcp_json_array_at(mcp_json_object_get(p, "enum"), 0);
        const char *type = mcp_json_string(mcp_json_object_get(p, "type"), NULL);
        mcp_json *v;
        if (en)
            v = mcp_json_copy(d, en);
        else if (!type || !strcmp(type, "string"))
            v = mcp_json_new_string(d, "test");
        else if (!strcmp(type, "integer"))
            v = mcp_json_new_int(d, 1);
        else if (!strcmp(type, "number"))
            v = mcp_json_new_double(d, 1.5);
        else if (!strcmp(type, "boolean"))
            v = mcp_json_new_bool(d, true);
        else if (!strcmp(type, "array"))
            v = mcp_json_new_array(d);
        else
            v = mcp_json_new_object(d);
        mcp_json_object_setn(d, args, key, kn, v);
    }
    return args;
}

/* Call every tool the server lists (those the client kept: a tool whose
 * x-mcp-header annotations are invalid is dropped from the list, so it is
 * never called) with sample arguments. */
static void call_every_tool(scenario_run *r, const mcp_json *tools)
{
    for (size_t i = 0; i < mcp_json_array_size(tools); i++) {
        const mcp_json *t = mcp_json_array_at(tools, i);
        size_t nn;
        const char *name = mcp_json_string(mcp_json_object_get(t, "name"), &nn);
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *args = sample_arguments(d, t);
        if (!name || mcp_json_doc_error(d) != MCP_OK)
            fail(r, EXIT_CONNECTION, name ? "out of memory" : "a listed tool has no name");
        else
            call_tool_n(r, name, nn, args);
        mcp_json_doc_free(d);
    }
}

/* The user accepts every form as it is: the library fills in the defaults
 * (and checks the form) before the answer goes out. */
static void accept_as_is(void *ud, mcp_question *q)
{
    (void)ud;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *r = d ? mcp_json_new_object(d) : NULL;
    if (r)
        mcp_json_object_set(d, r, "action", mcp_json_new_string(d, "accept"));
    char why[300];
    int rc = r && mcp_json_doc_error(d) == MCP_OK ? mcp_question_answer(q, r, why, sizeof why)
                                                  : MCP_ERR_NOMEM;
    if (rc != MCP_OK && rc != MCP_ERR_CANCELLED) {
        /* The form needs what nobody filled in: said, and declined. */
        fprintf(stderr, "mcp-conformance client: cannot accept the form as it is: %s\n",
                rc == MCP_ERR_NOMEM ? "out of memory" : cli_safe(why));
        mcp_question_decline(q);
    }
    mcp_json_doc_free(d);
}

/* Scenarios ---------------------------------------------------------------------------------- */

/* Connecting is the scenario: the probe or initialize, then
 * notifications/initialized. */
static void play_initialize(scenario_run *r)
{
    (void)r;
}

static void play_tools_call(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    if (!tools)
        return;
    if (!find_tool(mcp_json_doc_root(tools), "add_numbers"))
        fail(r, EXIT_TOOL_ERROR, "the server lists no add_numbers tool");
    mcp_json_doc_free(tools);
    mcp_json_doc *args = NULL;
    static const char a[] = "{\"a\":2,\"b\":3}";
    if (mcp_json_parse(a, sizeof a - 1, NULL, NULL, &args, NULL) != MCP_OK) {
        fail(r, EXIT_CONNECTION, "out of memory");
        return;
    }
    call_tool(r, "add_numbers", mcp_json_doc_root(args));
    mcp_json_doc_free(args);
}

/* The mock ends the call's event stream after its priming event, without
 * the result: the library must come back with GET and Last-Event-ID after
 * the stream's retry, where the result waits. */
static void play_sse_retry(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    mcp_json_doc_free(tools);
    if (tools)
        call_tool(r, "test_reconnection", NULL);
}

/* The mock refuses the first POST with -32022 (unsupported version) while
 * listing the very revision sent; the library tries that revision once
 * more. */
static void play_request_metadata(scenario_run *r)
{
    mcp_json_doc_free(list_tools(r));
}

/* Every method with a standard header: Mcp-Method on each, Mcp-Name from a
 * tool's name, a prompt's name and a resource's URI, taken as listed (the
 * mock's URI has a %20 that must reach the header as it is). */
static void play_standard_headers(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    if (tools)
        call_every_tool(r, mcp_json_doc_root(tools));
    mcp_json_doc_free(tools);
    static const struct {
        const char *list, *key, *get, *param;
    } kinds[] = {{"resources/list", "resources", "resources/read", "uri"},
                 {"prompts/list", "prompts", "prompts/get", "name"}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        mcp_client_call_result res = {.size = sizeof res};
        if (!request(r, kinds[k].list, NULL, &res))
            continue;
        const mcp_json *items = mcp_json_object_get(res.result, kinds[k].key);
        for (size_t i = 0; i < mcp_json_array_size(items); i++) {
            const mcp_json *id = mcp_json_object_get(mcp_json_array_at(items, i), kinds[k].param);
            mcp_json_doc *d = mcp_json_doc_new(NULL);
            mcp_json *params = mcp_json_new_object(d);
            mcp_json_object_set(d, params, kinds[k].param, mcp_json_copy(d, id));
            if (id && mcp_json_doc_error(d) == MCP_OK)
                request(r, kinds[k].get, params, NULL);
            mcp_json_doc_free(d);
        }
        mcp_client_call_result_release(&res);
    }
}

/* The tools and arguments come from MCP_CONFORMANCE_CONTEXT; the headers
 * they must produce come from the x-mcp-header annotations of tools/list. */
static void play_custom_headers(scenario_run *r)
{
    const char *ctx = getenv("MCP_CONFORMANCE_CONTEXT");
    mcp_json_doc *d = NULL;
    if (!ctx || mcp_json_parse(ctx, strlen(ctx), NULL, NULL, &d, NULL) != MCP_OK) {
        fprintf(stderr, "mcp-conformance client: MCP_CONFORMANCE_CONTEXT is %s\n",
                ctx ? "not JSON" : "not set");
        r->status = EXIT_USAGE;
        return;
    }
    const mcp_json *calls = mcp_json_object_get(mcp_json_doc_root(d), "toolCalls");
    mcp_json_doc *tools = list_tools(r);
    for (size_t i = 0; tools && i < mcp_json_array_size(calls); i++) {
        const mcp_json *one = mcp_json_array_at(calls, i);
        size_t nn;
        const char *name = mcp_json_string(mcp_json_object_get(one, "name"), &nn);
        if (!name)
            fail(r, EXIT_USAGE, "a toolCalls entry of MCP_CONFORMANCE_CONTEXT has no name");
        else if (!find_tool_n(mcp_json_doc_root(tools), name, nn))
            fail(r, EXIT_TOOL_ERROR, "a tool of MCP_CONFORMANCE_CONTEXT is not listed");
        else
            call_tool_n(r, name, nn, mcp_json_object_get(one, "arguments"));
    }
    mcp_json_doc_free(tools);
    mcp_json_doc_free(d);
}

/* Tools whose x-mcp-header annotations break the rules (empty, on an
 * object, duplicated, bad characters) must never be called: the library
 * drops them from the list, and the valid one is called. */
static void play_invalid_tool_headers(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    if (tools)
        call_every_tool(r, mcp_json_doc_root(tools));
    mcp_json_doc_free(tools);
}

/* A $ref to a URL in a tool's schema is data: listing the tools must not
 * fetch it (nothing here ever does). The mock serves only tools/list. */
static void play_ref_no_deref(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    if (tools && !find_tool(mcp_json_doc_root(tools), "lookup_user"))
        fail(r, EXIT_TOOL_ERROR, "the server lists no lookup_user tool");
    mcp_json_doc_free(tools);
}

/* The inputSchema of json_schema_2020_12_tool goes back to the server
 * exactly as listed: the mock checks that no keyword was lost. */
static void play_schema_preservation(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    if (!tools)
        return;
    const mcp_json *tool = find_tool(mcp_json_doc_root(tools), "json_schema_2020_12_tool");
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *args = mcp_json_new_object(d);
    mcp_json_object_set(d, args, "schema",
                        mcp_json_copy(d, mcp_json_object_get(tool, "inputSchema")));
    if (!tool)
        fail(r, EXIT_TOOL_ERROR, "the server lists no json_schema_2020_12_tool");
    else if (mcp_json_doc_error(d) != MCP_OK)
        fail(r, EXIT_CONNECTION, "out of memory");
    else
        call_tool(r, "json_schema_echo", args);
    mcp_json_doc_free(d);
    mcp_json_doc_free(tools);
}

/* The mock's tool asks for a form whose every field has a default and
 * none is required: accepted as it is, the answer carries the defaults. */
static void play_elicitation_defaults(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    if (tools && !find_tool(mcp_json_doc_root(tools), "test_client_elicitation_defaults"))
        fail(r, EXIT_TOOL_ERROR, "the server lists no test_client_elicitation_defaults tool");
    else if (tools)
        call_tool(r, "test_client_elicitation_defaults", NULL);
    mcp_json_doc_free(tools);
}

/* Input-required results (2026-07-28): each tool, in the order listed:
 * one whose state must come back exactly, one without state (none must),
 * one called between rounds (it must carry neither), one whose result
 * has no resultType (complete). */
static void play_request_state(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    if (tools)
        call_every_tool(r, mcp_json_doc_root(tools));
    mcp_json_doc_free(tools);
}

/* Every auth/ scenario: what an application does once connected (the
 * authorization happens on the way, wherever the server asks for it): the
 * tools listed, and the mock's test-tool called (the step-up scenario
 * wants more scope for the call). */
static void play_auth(scenario_run *r)
{
    mcp_json_doc *tools = list_tools(r);
    if (tools && find_tool(mcp_json_doc_root(tools), "test-tool"))
        call_tool(r, "test-tool", NULL);
    mcp_json_doc_free(tools);
}

static const struct {
    const char *name;
    void (*play)(scenario_run *r);
    bool elicitation; /* declares elicitation (answered by accept_as_is) */
} scenarios[] = {
    {"initialize", play_initialize, false},
    {"tools_call", play_tools_call, false},
    {"sse-retry", play_sse_retry, false},
    {"request-metadata", play_request_metadata, false},
    {"http-standard-headers", play_standard_headers, false},
    {"http-custom-headers", play_custom_headers, false},
    {"http-invalid-tool-headers", play_invalid_tool_headers, false},
    {"json-schema-ref-no-deref", play_ref_no_deref, false},
    {"json-schema-2020-12-preservation", play_schema_preservation, false},
    {"elicitation-sep1034-client-defaults", play_elicitation_defaults, true},
    {"sep-2322-client-request-state", play_request_state, true},
};

/* What the scenarios this client does not play need. */
static const char *missing_for(const char *scenario)
{
    if (!strncmp(scenario, "sep-2640", 8))
        return "the skills extension";
    return NULL;
}

/* A usage problem: what, then arg (quoted, made safe) when not NULL. */
static void usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "mcp-conformance client: %s%s%s%s\n", what, arg ? " '" : "",
            arg ? cli_safe(arg) : "", arg ? "'" : "");
    fputs("try 'mcp-conformance client --help'\n", stderr);
}

int conformance_client(int argc, char **argv)
{
    cli_client_args a = {.timeout = -1, .max_time = SCENARIO_SECONDS, .cancel_after = -1,
                         .start_ms = mcp_monotonic_ms()};
    const char *url = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cli_usage("client", true);
            return 0;
        }
        if (!strcmp(argv[i], "--trace"))
            a.trace = true;
        else if (argv[i][0] == '-' || url) {
            usage_error(argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
            return EXIT_USAGE;
        } else
            url = argv[i];
    }
    const char *scenario = getenv("MCP_CONFORMANCE_SCENARIO");
    if (!url || !scenario || !*scenario) {
        usage_error(url ? "MCP_CONFORMANCE_SCENARIO is not set" : "missing URL", NULL);
        return EXIT_USAGE;
    }
    void (*play)(scenario_run *) = NULL;
    bool elicitation = false;
    if (!strncmp(scenario, "auth/", 5) && !missing_for(scenario))
        play = play_auth;
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (!strcmp(scenario, scenarios[i].name)) {
            play = scenarios[i].play;
            elicitation = scenarios[i].elicitation;
        }
    if (!play) {
        const char *missing = missing_for(scenario);
        fprintf(stderr, "mcp-conformance client: scenario '%s' %s%s\n", cli_safe(scenario),
                missing ? "needs what this client does not have yet: " : "is unknown",
                missing ? missing : "");
        return EXIT_USAGE;
    }
    /* 0.2.0 names the revision to speak; 0.1.16 does not: then the library
     * finds it as an application would (probe, fall back to initialize). */
    const char *version = getenv("MCP_CONFORMANCE_PROTOCOL_VERSION");
    if (version && *version) {
        if (!strcmp(version, "2026-07-28"))
            a.mode = MCP_CONNECT_MODERN;
        else if (!strcmp(version, "2025-06-18") || !strcmp(version, "2025-11-25"))
            a.mode = MCP_CONNECT_LEGACY;
        else {
            usage_error("MCP_CONFORMANCE_PROTOCOL_VERSION is not a revision we speak:", version);
            return EXIT_USAGE;
        }
        a.version = version;
    }
    if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
        usage_error("the URL must be http:// or https://, not", url);
        return EXIT_USAGE;
    }
    a.url = url;
    scenario_run r = {.args = &a};
    mcp_client_options o = {0};
    if (elicitation)
        o.on_elicitation = accept_as_is;
    conformance_auth auth = {0};
    if (play == play_auth) {
        if (conformance_auth_options(scenario, &auth) != MCP_OK)
            return EXIT_USAGE;
        a.oauth = &auth.o;
    }
    int code = cli_connect(&a, &o, &r.c);
    conformance_auth_free(&auth); /* the client keeps copies */
    if (code)
        return code;
    cli_exit_at_once(r.c, NULL, NULL);
    play(&r);
    if (!cli_output_ok() && r.status == 0)
        r.status = EXIT_OUTPUT;
    cli_disconnect(r.c);
    return r.status;
}
