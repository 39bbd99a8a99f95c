/* SPDX-License-Identifier: MIT */
/*
 * mcp-conformance server, beyond its tools: the resources, the resource
 * template and the prompts that the conformance suite's
 * resources-*, prompts-*, completion-complete and caching scenarios ask
 * for by URI or name, with the contents their descriptions give (the
 * reference server's), and completions for the prompt's arguments and
 * the template's variable.
 *
 * What the library does by itself is left to it, so that the scenarios
 * test it rather than this file: the not-found error of a URI nothing
 * matches (sep-2164), resources/subscribe and unsubscribe (the 2025 ones),
 * the required prompt arguments, and the caching hints of the lists and
 * reads (2026-07-28).
 *
 * And the two tools that change them: test_trigger_prompt_change, which adds or removes
 * a prompt (server-stateless listens for the prompts list change), and
 * test_update_watched_resource: test://watched-resource changes when it is
 * called, which publishes the update: a client subscribed to it (2025) or
 * listening for resource updates (2026-07-28) hears
 * notifications/resources/updated. The scenarios only subscribe and
 * unsubscribe; the tool lets a person (or a test) see the update arrive,
 * and stop arriving after the unsubscribe.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "conformance.h"

/* The same PNG as CONFORMANCE_PNG_1X1, as bytes: the library encodes a
 * blob itself (mcp_call_reply_resource_blob). */
static const unsigned char png_1x1[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
    0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
    0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8,
    0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

#define WATCHED_URI "test://watched-resource"
#define STATIC_TEXT "This is the content of the static text resource."

/* How many times test_update_watched_resource ran: the watched resource's
 * text says it. Read and written from any thread (reads run on the loop,
 * the tool too, but nothing here should rely on that). */
static atomic_uint watched_version;

/* Reply with a result built in d (root: result), or the out-of-memory
 * error when building it failed. */
static void reply_built(mcp_call *call, mcp_json_doc *d, const mcp_json *result)
{
    if (d && mcp_json_doc_error(d) == MCP_OK)
        mcp_call_reply_result(call, result);
    else
        mcp_call_reply_error(call, -32603, "conformance fixture: out of memory");
    mcp_json_doc_free(d);
}

/* Resources ---------------------------------------------------------------------------- */

static void read_static_text(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_reply_resource_text(call, "text/plain", STATIC_TEXT, sizeof STATIC_TEXT - 1);
}

static void read_static_binary(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_call_reply_resource_blob(call, "image/png", png_1x1, sizeof png_1x1);
}

static void read_watched(void *ud, mcp_call *call)
{
    (void)ud;
    unsigned v = atomic_load(&watched_version);
    char text[96];
    int n = v ? snprintf(text, sizeof text, "Watched resource content (update %u)", v)
              : snprintf(text, sizeof text, "Watched resource content");
    mcp_call_reply_resource_text(call, "text/plain", text, (size_t)n);
}

/* test://template/{id}/data: the library matched the URI and decoded id;
 * the text is JSON naming it ({"id":"123","templateTest":true,...}),
 * written with the JSON writer since id is the client's text. */
static void read_template(void *ud, mcp_call *call)
{
    (void)ud;
    size_t n;
    const char *id = mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "id"), &n);
    if (!id) { /* the template has one simple variable: always a string */
        mcp_call_reply_resource_not_found(call);
        return;
    }
    char data[200];
    snprintf(data, sizeof data, "Data for ID: %.*s", n > 150 ? 150 : (int)n, id);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *o = NULL;
    if (d) {
        o = mcp_json_new_object(d);
        mcp_json_object_set(d, o, "id", mcp_json_new_stringn(d, id, n));
        mcp_json_object_set(d, o, "templateTest", mcp_json_new_bool(d, true));
        mcp_json_object_set(d, o, "data", mcp_json_new_string(d, data));
    }
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = d && mcp_json_doc_error(d) == MCP_OK ? mcp_json_write(o, &b) : MCP_ERR_NOMEM;
    if (rc == MCP_OK)
        mcp_call_reply_resource_text(call, "application/json", b.data, b.len);
    else
        mcp_call_reply_error(call, -32603, "conformance fixture: out of memory");
    mcp_buf_free(&b);
    mcp_json_doc_free(d);
}

/* Completion: the candidates that start with the value typed so far. */
static void complete_from(mcp_call *call, const char *const *candidates, size_t count)
{
    const mcp_json *argument = mcp_json_object_get(mcp_call_arguments(call), "argument");
    size_t vn;
    const char *value = mcp_json_string(mcp_json_object_get(argument, "value"), &vn);
    const char *out[8];
    size_t n = 0;
    for (size_t i = 0; value && i < count && n < sizeof out / sizeof out[0]; i++)
        if (strlen(candidates[i]) >= vn && !memcmp(candidates[i], value, vn))
            out[n++] = candidates[i];
    mcp_call_reply_completion(call, out, n, (int64_t)n, false);
}

/* The template's only variable is id. */
static void complete_template(void *ud, mcp_call *call)
{
    (void)ud;
    static const char *const ids[] = {"1", "12", "123", "42"};
    complete_from(call, ids, sizeof ids / sizeof ids[0]);
}

/* Prompts ------------------------------------------------------------------------------ */

/* {"role":"user","content":content} appended to messages. */
static void add_user_message(mcp_json_doc *d, mcp_json *messages, mcp_json *content)
{
    mcp_json *m = mcp_json_new_object(d);
    mcp_json_object_set(d, m, "role", mcp_json_new_string(d, "user"));
    mcp_json_object_set(d, m, "content", content);
    mcp_json_array_append(d, messages, m);
}

/* {"type":"text","text":text}; n bytes (an argument may hold a NUL). */
static mcp_json *text_content(mcp_json_doc *d, const char *text, size_t n)
{
    mcp_json *c = mcp_json_new_object(d);
    mcp_json_object_set(d, c, "type", mcp_json_new_string(d, "text"));
    mcp_json_object_set(d, c, "text", mcp_json_new_stringn(d, text, n));
    return c;
}

#define TEXT(d, literal) text_content(d, literal, sizeof literal - 1)

/* A new document whose root is {"messages":[]}; *messages is the array.
 * On allocation failure the calls that follow fail quietly and
 * reply_built answers the error. */
static mcp_json_doc *new_prompt_result(mcp_json **result, mcp_json **messages)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    *result = d ? mcp_json_new_object(d) : NULL;
    *messages = d ? mcp_json_new_array(d) : NULL;
    if (d)
        mcp_json_object_set(d, *result, "messages", *messages);
    return d;
}

static void get_simple(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_json *result, *messages;
    mcp_json_doc *d = new_prompt_result(&result, &messages);
    if (d)
        add_user_message(d, messages, TEXT(d, "This is a simple prompt for testing."));
    reply_built(call, d, result);
}

/* arg1 and arg2 are required (the library refused the get without
 * them), so both are strings here. */
static void get_with_arguments(void *ud, mcp_call *call)
{
    (void)ud;
    const mcp_json *args = mcp_call_arguments(call);
    size_t n1, n2;
    const char *a1 = mcp_json_string(mcp_json_object_get(args, "arg1"), &n1);
    const char *a2 = mcp_json_string(mcp_json_object_get(args, "arg2"), &n2);
    mcp_buf text;
    mcp_buf_init(&text, 1 << 20, NULL);
    int rc = mcp_buf_append(&text, "Prompt with arguments: arg1='", 29);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&text, a1 ? a1 : "", a1 ? n1 : 0);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&text, "', arg2='", 9);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&text, a2 ? a2 : "", a2 ? n2 : 0);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&text, "'", 1);
    if (rc != MCP_OK) {
        mcp_buf_free(&text);
        mcp_call_reply_error(call, -32603, "conformance fixture: the arguments are too long");
        return;
    }
    mcp_json *result, *messages;
    mcp_json_doc *d = new_prompt_result(&result, &messages);
    if (d)
        add_user_message(d, messages, text_content(d, text.data, text.len));
    mcp_buf_free(&text);
    reply_built(call, d, result);
}

/* Completes test_prompt_with_arguments' arguments (completion-complete
 * asks for arg1 from "test": no candidate starts so, an empty list). */
static void complete_arguments(void *ud, mcp_call *call)
{
    (void)ud;
    static const char *const arg1[] = {"hello", "help", "paris", "park", "party"};
    static const char *const arg2[] = {"word", "work", "world"};
    const mcp_json *argument = mcp_json_object_get(mcp_call_arguments(call), "argument");
    const char *name = mcp_json_string(mcp_json_object_get(argument, "name"), NULL);
    if (name && !strcmp(name, "arg2"))
        complete_from(call, arg2, sizeof arg2 / sizeof arg2[0]);
    else
        complete_from(call, arg1, sizeof arg1 / sizeof arg1[0]);
}

static void get_with_embedded_resource(void *ud, mcp_call *call)
{
    (void)ud;
    size_t n = 0;
    const char *uri =
        mcp_json_string(mcp_json_object_get(mcp_call_arguments(call), "resourceUri"), &n);
    mcp_json *result, *messages;
    mcp_json_doc *d = new_prompt_result(&result, &messages);
    if (d) {
        mcp_json *resource = mcp_json_new_object(d);
        mcp_json_object_set(d, resource, "uri", mcp_json_new_stringn(d, uri ? uri : "", n));
        mcp_json_object_set(d, resource, "mimeType", mcp_json_new_string(d, "text/plain"));
        mcp_json_object_set(d, resource, "text",
                            mcp_json_new_string(d, "Embedded resource content for testing."));
        mcp_json *content = mcp_json_new_object(d);
        mcp_json_object_set(d, content, "type", mcp_json_new_string(d, "resource"));
        mcp_json_object_set(d, content, "resource", resource);
        add_user_message(d, messages, content);
        add_user_message(d, messages,
                         TEXT(d, "Please process the embedded resource above."));
    }
    reply_built(call, d, result);
}

static void get_with_image(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_json *result, *messages;
    mcp_json_doc *d = new_prompt_result(&result, &messages);
    if (d) {
        mcp_json *image = mcp_json_new_object(d);
        mcp_json_object_set(d, image, "type", mcp_json_new_string(d, "image"));
        mcp_json_object_set(d, image, "data", mcp_json_new_string(d, CONFORMANCE_PNG_1X1));
        mcp_json_object_set(d, image, "mimeType", mcp_json_new_string(d, "image/png"));
        add_user_message(d, messages, image);
        add_user_message(d, messages, TEXT(d, "Please analyze the image above."));
    }
    reply_built(call, d, result);
}

static void get_dynamic(void *ud, mcp_call *call)
{
    (void)ud;
    mcp_json *result, *messages;
    mcp_json_doc *d = new_prompt_result(&result, &messages);
    if (d)
        add_user_message(d, messages,
                         TEXT(d, "test_dynamic_prompt was added by test_trigger_prompt_change."));
    reply_built(call, d, result);
}

/* Changes the prompt list, as test_trigger_tool_change does the tool list:
 * removes test_dynamic_prompt when it is there, adds it when it is not.
 * server-stateless (2026-07-28) calls it while listening for
 * promptsListChanged: the server declares prompts.listChanged, so the
 * scenario expects the notification on the listen stream. */
static void trigger_prompt_change(void *ud, mcp_call *call)
{
    mcp_server *s = ud;
    int rc = mcp_server_remove_prompt(s, "test_dynamic_prompt");
    if (rc == MCP_ERR_NOT_FOUND) {
        mcp_prompt p = {.size = sizeof p,
                        .name = "test_dynamic_prompt",
                        .description = "Added and removed in turn by test_trigger_prompt_change.",
                        .get = get_dynamic};
        rc = mcp_server_add_prompt(s, &p);
    }
    if (rc != MCP_OK) {
        mcp_call_reply_tool_error(call, mcp_strerror(rc));
        return;
    }
    mcp_call_reply_text(call, "The prompt list changed (test_dynamic_prompt added or removed).");
}

/* The watched resource's update -------------------------------------------------------- */

static void update_watched(void *ud, mcp_call *call)
{
    mcp_server *s = ud;
    unsigned v = atomic_fetch_add(&watched_version, 1) + 1;
    int rc = mcp_server_publish(s, MCP_LISTEN_RESOURCE_UPDATES, WATCHED_URI);
    if (rc != MCP_OK) {
        mcp_call_reply_tool_error(call, mcp_strerror(rc));
        return;
    }
    char text[96];
    snprintf(text, sizeof text, WATCHED_URI " changed (update %u): subscribers are told.", v);
    mcp_call_reply_text(call, text);
}

/* Registration ------------------------------------------------------------------------- */

static int failed(const char *what, const char *name, int rc)
{
    fprintf(stderr, "mcp-conformance server: cannot register %s %s: %s\n", what, name, mcp_strerror(rc));
    return rc;
}

int conformance_offers(mcp_server *s)
{
    /* resources-list lists them; caching reads the first one listed. */
    const mcp_resource resources[] = {
        {.size = sizeof(mcp_resource),
         .uri = "test://static-text",
         .name = "static-text",
         .title = "Static Text Resource",
         .description = "A text resource that never changes.",
         .mime_type = "text/plain",
         .size_known = true,
         .size_bytes = sizeof STATIC_TEXT - 1,
         .read = read_static_text},
        {.size = sizeof(mcp_resource),
         .uri = "test://static-binary",
         .name = "static-binary",
         .title = "Static Binary Resource",
         .description = "A binary resource: a 1x1 PNG image.",
         .mime_type = "image/png",
         .size_known = true,
         .size_bytes = sizeof png_1x1,
         .read = read_static_binary},
        {.size = sizeof(mcp_resource),
         .uri = WATCHED_URI,
         .name = "watched-resource",
         .title = "Watched Resource",
         .description = "Changes when test_update_watched_resource is called; subscribers "
                        "are told.",
         .mime_type = "text/plain",
         .read = read_watched},
    };
    for (size_t i = 0; i < sizeof resources / sizeof resources[0]; i++) {
        int rc = mcp_server_add_resource(s, &resources[i]);
        if (rc != MCP_OK)
            return failed("resource", resources[i].uri, rc);
    }
    const mcp_resource_template tmpl = {
        .size = sizeof tmpl,
        .uri_template = "test://template/{id}/data",
        .name = "template",
        .title = "Resource Template",
        .description = "JSON naming the id the URI gives.",
        .mime_type = "application/json",
        .read = read_template,
        .complete = complete_template};
    int rc = mcp_server_add_resource_template(s, &tmpl);
    if (rc != MCP_OK)
        return failed("resource template", tmpl.uri_template, rc);

    static const mcp_prompt_argument with_arguments[] = {
        {.name = "arg1", .description = "First test argument", .required = true},
        {.name = "arg2", .description = "Second test argument", .required = true}};
    static const mcp_prompt_argument with_resource[] = {
        {.name = "resourceUri", .description = "URI of the resource to embed", .required = true}};
    const mcp_prompt prompts[] = {
        {.size = sizeof(mcp_prompt),
         .name = "test_simple_prompt",
         .title = "Simple Test Prompt",
         .description = "A prompt without arguments.",
         .get = get_simple},
        {.size = sizeof(mcp_prompt),
         .name = "test_prompt_with_arguments",
         .title = "Prompt With Arguments",
         .description = "A prompt with two required arguments, completed on request.",
         .arguments = with_arguments,
         .argument_count = sizeof with_arguments / sizeof with_arguments[0],
         .get = get_with_arguments,
         .complete = complete_arguments},
        {.size = sizeof(mcp_prompt),
         .name = "test_prompt_with_embedded_resource",
         .title = "Prompt With Embedded Resource",
         .description = "A prompt that embeds the resource it is given.",
         .arguments = with_resource,
         .argument_count = 1,
         .get = get_with_embedded_resource},
        {.size = sizeof(mcp_prompt),
         .name = "test_prompt_with_image",
         .title = "Prompt With Image",
         .description = "A prompt that shows an image.",
         .get = get_with_image},
    };
    for (size_t i = 0; i < sizeof prompts / sizeof prompts[0]; i++) {
        rc = mcp_server_add_prompt(s, &prompts[i]);
        if (rc != MCP_OK)
            return failed("prompt", prompts[i].name, rc);
    }

    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool),
         .name = "test_trigger_prompt_change",
         .description = "Adds or removes test_dynamic_prompt: listeners hear "
                        "prompts/list_changed.",
         .input_schema = "{\"type\":\"object\",\"properties\":{}}",
         .handler = trigger_prompt_change,
         .user_data = s},
        {.size = sizeof(mcp_tool),
         .name = "test_update_watched_resource",
         .description = "Changes " WATCHED_URI ": its subscribers hear "
                        "notifications/resources/updated.",
         .input_schema = "{\"type\":\"object\",\"properties\":{}}",
         .handler = update_watched,
         .user_data = s},
    };
    return conformance_add_tools(s, tools, sizeof tools / sizeof tools[0]);
}
