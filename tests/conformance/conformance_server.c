/* SPDX-License-Identifier: MIT */
/*
 * mcp-conformance server: the fixtures the server scenarios of the official
 * conformance suite (@modelcontextprotocol/conformance, pinned in
 * tests/interop) call by name, with the inputs and outputs those scenarios
 * and the suite's reference server use: the tools here, the resources,
 * resource template and prompts in conformance_offers.c, the tools and the
 * prompt that ask the client (sampling, elicitation, roots, input-required
 * results) in conformance_asks.c, the tools of the tasks scenarios in
 * conformance_tasks.c. The scenarios that need what the library lacks
 * (a task's questions, the skills extension, OAuth) are expected failures
 * (tests/interop/conformance-expected-failures.txt) until it has them. Built on the public API alone, as any application would be.
 *
 * The scenarios check names, content types and mimeTypes, the number and
 * order of notifications, and (2026-07-28) the error codes and HTTP
 * statuses the library gives; the texts below are the reference server's,
 * so a transcript reads the same against either.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "conformance.h"

/* A 1x1 PNG and a tiny WAV, as in the reference server. */
#define PNG_1X1 CONFORMANCE_PNG_1X1
#define WAV_TINY "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

/* Reply with a result given as JSON text (a fixture's constant). */
static void reply_json(mcp_call *call, const char *json)
{
    mcp_json_doc *d = NULL;
    if (mcp_json_parse(json, strlen(json), NULL, NULL, &d, NULL) != MCP_OK) {
        mcp_call_reply_error(call, -32603, "conformance fixture: out of memory");
        return;
    }
    mcp_call_reply_result(call, mcp_json_doc_root(d));
    mcp_json_doc_free(d);
}

/* Sleep ms unless the call is cancelled first (then it is ended here). */
static bool pause_ms(mcp_call *call, uint64_t ms)
{
    if (!mcp_cancel_token_wait(mcp_call_cancel_token(call), ms))
        return true;
    mcp_call_finish(call);
    return false;
}

static void simple_text(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_reply_text(call, "This is a simple text response for testing.");
}

static void image_content(void *ud, mcp_call *call)
{
    (void)ud;
    reply_json(call, "{\"content\":[{\"type\":\"image\",\"data\":\"" PNG_1X1
                     "\",\"mimeType\":\"image/png\"}]}");
}

static void audio_content(void *ud, mcp_call *call)
{
    (void)ud;
    reply_json(call, "{\"content\":[{\"type\":\"audio\",\"data\":\"" WAV_TINY
                     "\",\"mimeType\":\"audio/wav\"}]}");
}

static void embedded_resource(void *ud, mcp_call *call)
{
    (void)ud;
    reply_json(call, "{\"content\":[{\"type\":\"resource\",\"resource\":{"
                     "\"uri\":\"test://embedded-resource\",\"mimeType\":\"text/plain\","
                     "\"text\":\"This is an embedded resource content.\"}}]}");
}

static void multiple_content_types(void *ud, mcp_call *call)
{
    (void)ud;
    reply_json(call, "{\"content\":["
                     "{\"type\":\"text\",\"text\":\"Multiple content types test:\"},"
                     "{\"type\":\"image\",\"data\":\"" PNG_1X1 "\",\"mimeType\":\"image/png\"},"
                     "{\"type\":\"resource\",\"resource\":{"
                     "\"uri\":\"test://mixed-content-resource\",\"mimeType\":\"application/json\","
                     "\"text\":\"{\\\"test\\\":\\\"data\\\",\\\"value\\\":123}\"}}]}");
}

/* Three log messages about 50 ms apart, on the call's own stream (sent at
 * the level the client set: tools-call-with-logging sets debug first). */
static void tool_with_logging(void *ud, mcp_call *call)
{
    (void)ud;
    static const char *const steps[] = {"Tool execution started", "Tool processing data",
                                        "Tool execution completed"};
    for (size_t i = 0; i < 3; i++) {
        if (i && !pause_ms(call, 50))
            return;
        mcp_call_send_log(call, MCP_LOG_INFO, steps[i]);
    }
    mcp_call_reply_text(call, "Tool with logging completed successfully.");
}

/* Progress 0, 50, 100 of 100, about 50 ms apart, for whatever token the
 * client sent (an integer from 0.1.16's SDK client, "progress-test-1" from
 * 0.2.0: the library echoes it with its type). */
static void tool_with_progress(void *ud, mcp_call *call)
{
    (void)ud;
    for (int step = 0; step <= 2; step++) {
        if (step && !pause_ms(call, 50))
            return;
        int rc = mcp_call_progress(call, step * 50.0, 100.0, NULL);
        if (rc == MCP_ERR_CANCELLED) {
            mcp_call_finish(call);
            return;
        }
    }
    mcp_call_reply_text(call, "Tool with progress completed successfully.");
}

/* A tool execution error: a result with isError, not a JSON-RPC error
 * (tools-call-error fails on the latter). */
static void error_handling(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_reply_tool_error(call, "This tool intentionally returns an error for testing");
}

/* server-sse-polling calls it on a raw POST and reads the event stream:
 * the reference server closes that stream mid-call and delivers the result
 * to the client's GET with Last-Event-ID. The stream is the library's to
 * close (no handler can); the tool finishes a little later, as there. */
static void reconnection(void *ud, mcp_call *call)
{
    (void)ud;
    if (!pause_ms(call, 100))
        return;
    mcp_call_reply_text(call, "Reconnection test completed successfully. If you received this, "
                              "the client properly reconnected after stream closure.");
}

static void json_schema_tool(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_reply_text(call, "JSON Schema 2020-12 tool called.");
}

/* Registered with required_client_capabilities {"sampling":{}}: the
 * library refuses the call from a client that did not declare sampling
 * (server-stateless expects -32021 naming it, HTTP 400), so this handler
 * runs only for one that did. */
static void missing_capability(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_reply_text(call, "The client declared the sampling capability.");
}

/* server-stateless reads the frames of its response stream: none may be a
 * request (2026-07-28 has none on a response stream). Progress first, when
 * the client asked for it, then the result. */
static void streaming_elicitation(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_progress(call, 1, 2, "working"); /* MCP_ERR_STATE: no progress asked for */
    mcp_call_reply_text(call, "Streaming completed without any request on the stream.");
}

/* Logs only when the client asked for log messages (2026-07-28:
 * io.modelcontextprotocol/logLevel in the request's _meta): the library
 * drops it otherwise, which server-stateless checks. */
static void logging_tool(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_send_log(call, MCP_LOG_INFO, "test_logging_tool was called");
    mcp_call_reply_text(call, "Logging tool completed.");
}

static void dynamic_tool(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_reply_text(call, "test_dynamic_tool was added by test_trigger_tool_change.");
}

/* Changes the tool list, so that listeners hear tools/list_changed:
 * removes test_dynamic_tool when it is there, adds it when it is not. */
static void trigger_tool_change(void *ud, mcp_call *call)
{
    mcp_server *s = ud;
    int rc = mcp_server_remove_tool(s, "test_dynamic_tool");
    if (rc == MCP_ERR_NOT_FOUND) {
        mcp_tool t = {.size = sizeof t,
                      .name = "test_dynamic_tool",
                      .description = "Added and removed in turn by test_trigger_tool_change.",
                      .input_schema = "{\"type\":\"object\",\"properties\":{}}",
                      .handler = dynamic_tool};
        rc = mcp_server_add_tool(s, &t);
    }
    if (rc != MCP_OK) {
        mcp_call_reply_tool_error(call, mcp_strerror(rc));
        return;
    }
    mcp_call_reply_text(call, "The tool list changed (test_dynamic_tool added or removed).");
}

/* A parameter mirrored in a header (2026-07-28, SEP-2243: x-mcp-header):
 * the library checks Mcp-Param-Region against the body before the call
 * runs; http-custom-header-server-validation probes that check. */
static void custom_header(void *ud, mcp_call *call)
{
    (void)ud;
    size_t n;
    const char *region =
        mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "region"), &n);
    if (!region) {
        mcp_call_reply_tool_error(call,
                                  "test_custom_header: argument 'region' (a string) is required");
        return;
    }
    char text[160];
    snprintf(text, sizeof text, "region: %.*s", n > 100 ? 100 : (int)n, region);
    mcp_call_reply_text(call, text);
}

#define NO_ARGS "{\"type\":\"object\",\"properties\":{}}"

/* The SEP-2106 form of json_schema_2020_12_tool's input schema (0.2.0;
 * 0.1.16 checks a subset: $schema, $defs.address, additionalProperties). */
static const char json_schema_2020_12[] =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
    "\"$defs\":{\"address\":{\"$anchor\":\"addressDef\",\"type\":\"object\",\"properties\":{"
    "\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
    "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},"
    "\"contactMethod\":{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},"
    "\"phone\":{\"type\":\"string\"},\"email\":{\"type\":\"string\"}},"
    "\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],"
    "\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},"
    "\"required\":[\"contactMethod\"]},"
    "\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":[\"email\"]},"
    "\"additionalProperties\":false}";

int conformance_add_tools(mcp_server *s, const mcp_tool *tools, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = mcp_server_add_tool(s, &tools[i]);
        if (rc != MCP_OK) {
            fprintf(stderr, "mcp-conformance server: cannot register tool %s: %s\n", tools[i].name,
                    mcp_strerror(rc));
            return rc;
        }
    }
    return MCP_OK;
}

int conformance_server(mcp_server *s)
{
    /* Order matters: http-header-validation calls the first listed tool
     * with {} and needs it to succeed. */
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool),
         .name = "test_simple_text",
         .description = "Returns a simple text response.",
         .input_schema = NO_ARGS,
         .handler = simple_text},
        {.size = sizeof(mcp_tool),
         .name = "test_image_content",
         .description = "Returns an image (a 1x1 PNG).",
         .input_schema = NO_ARGS,
         .handler = image_content},
        {.size = sizeof(mcp_tool),
         .name = "test_audio_content",
         .description = "Returns audio (a tiny WAV).",
         .input_schema = NO_ARGS,
         .handler = audio_content},
        {.size = sizeof(mcp_tool),
         .name = "test_embedded_resource",
         .description = "Returns an embedded text resource.",
         .input_schema = NO_ARGS,
         .handler = embedded_resource},
        {.size = sizeof(mcp_tool),
         .name = "test_multiple_content_types",
         .description = "Returns text, an image and an embedded resource.",
         .input_schema = NO_ARGS,
         .handler = multiple_content_types},
        {.size = sizeof(mcp_tool),
         .name = "test_tool_with_logging",
         .description = "Sends three log messages while it runs.",
         .input_schema = NO_ARGS,
         .handler = tool_with_logging,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "test_tool_with_progress",
         .description = "Reports progress 0, 50 and 100 of 100 while it runs.",
         .input_schema = NO_ARGS,
         .handler = tool_with_progress,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "test_error_handling",
         .description = "Always returns a tool error (isError).",
         .input_schema = NO_ARGS,
         .handler = error_handling},
        {.size = sizeof(mcp_tool),
         .name = "test_reconnection",
         .description = "Finishes after 100 ms, for the SSE polling scenario.",
         .input_schema = NO_ARGS,
         .handler = reconnection,
         .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_tool),
         .name = "json_schema_2020_12_tool",
         .description = "Has an input schema with JSON Schema 2020-12 keywords.",
         .input_schema = json_schema_2020_12,
         .handler = json_schema_tool},
        {.size = sizeof(mcp_tool),
         .name = "test_missing_capability",
         .description = "Needs the client's sampling capability (refused without it).",
         .input_schema = NO_ARGS,
         .handler = missing_capability,
         .required_client_capabilities = "{\"sampling\":{}}"},
        {.size = sizeof(mcp_tool),
         .name = "test_streaming_elicitation",
         .description = "Streams its answer; never sends a request on the response stream.",
         .input_schema = NO_ARGS,
         .handler = streaming_elicitation},
        {.size = sizeof(mcp_tool),
         .name = "test_logging_tool",
         .description = "Logs a message, sent only when the client asked for a log level.",
         .input_schema = NO_ARGS,
         .handler = logging_tool},
        {.size = sizeof(mcp_tool),
         .name = "test_trigger_tool_change",
         .description = "Adds or removes test_dynamic_tool: listeners hear tools/list_changed.",
         .input_schema = NO_ARGS,
         .handler = trigger_tool_change,
         .user_data = s},
        {.size = sizeof(mcp_tool),
         .name = "test_custom_header",
         .description = "Echoes its region, which the client mirrors in the Mcp-Param-Region header.",
         .input_schema = "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\","
         "\"x-mcp-header\":\"Region\"}},\"required\":[\"region\"]}",
         .handler = custom_header},
    };
    int rc = conformance_add_tools(s, tools, sizeof tools / sizeof tools[0]);
    if (rc != MCP_OK)
        return rc;
    rc = conformance_offers(s);
    if (rc == MCP_OK)
        rc = conformance_tasks(s);
    return rc == MCP_OK ? conformance_asks(s) : rc;
}
