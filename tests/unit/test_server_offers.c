/* SPDX-License-Identifier: MIT */
/*
 * What a server offers besides tools, each in both eras: resources and
 * templates (list, read, not-found, subscribe), prompts (list, get and its
 * argument checks), completion, and pagination of every list. A real
 * server (serve_fds) on a thread, driven over a socketpair.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "serve_harness.h"

/* Handlers ------------------------------------------------------------------------- */

static void read_readme(void *ud, mcp_call *c)
{
    assert_string_equal(mcp_call_method(c), "resources/read");
    /* Not this request's answers: refused, nothing ended. */
    assert_int_equal(mcp_call_reply_completion(c, NULL, 0, -1, false), MCP_ERR_STATE);
    assert_int_equal(mcp_call_reply_text(c, "x"), MCP_ERR_STATE);
    mcp_call_reply_resource_text(c, "text/markdown", "# Hello", 7);
}

static void read_logo(void *ud, mcp_call *c)
{
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', 0, 0xff};
    mcp_call_reply_resource_blob(c, "image/png", png, sizeof png);
}

/* users://{id}/profile: the variable, echoed; "missing" is not there. */
static void read_user(void *ud, mcp_call *c)
{
    const char *id = mcp_json_string(mcp_json_object_get(mcp_call_arguments(c), "id"), NULL);
    if (id && !strcmp(id, "missing")) {
        mcp_call_reply_resource_not_found(c);
        return;
    }
    char text[128];
    snprintf(text, sizeof text, "user %s at %s", id ? id : "?", mcp_call_uri(c));
    mcp_call_reply_resource_text(c, NULL, text, strlen(text));
}

/* files:///{+path}: two contents, given whole. */
static void read_files(void *ud, mcp_call *c)
{
    static const char r[] = "{\"contents\":[{\"uri\":\"files:///a\",\"text\":\"A\"},"
                            "{\"uri\":\"files:///b\",\"blob\":\"Qg==\"}]}";
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(r, sizeof r - 1, NULL, NULL, &d, NULL), MCP_OK);
    mcp_call_reply_result(c, mcp_json_doc_root(d));
    mcp_json_doc_free(d);
}

/* A handler whose answer breaks the shape of resources/read. */
static int bad_rc;
static void read_bad(void *ud, mcp_call *c)
{
    static const char r[] = "{\"contents\":[{\"text\":\"no uri\"}]}";
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(r, sizeof r - 1, NULL, NULL, &d, NULL), MCP_OK);
    bad_rc = mcp_call_reply_result(c, mcp_json_doc_root(d));
    mcp_json_doc_free(d);
}

static void get_greet(void *ud, mcp_call *c)
{
    const char *who = mcp_json_string(mcp_json_object_get(mcp_call_arguments(c), "name"), NULL);
    char r[256];
    snprintf(r, sizeof r,
             "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
             "\"Hello %s\"}}]}",
             who);
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(r, strlen(r), NULL, NULL, &d, NULL), MCP_OK);
    mcp_call_reply_result(c, mcp_json_doc_root(d));
    mcp_json_doc_free(d);
}

/* Completes the language argument (or any variable) from a fixed list,
 * filtered by the prefix typed; 150 values for "many". */
static void complete_any(void *ud, mcp_call *c)
{
    assert_string_equal(mcp_call_method(c), "completion/complete");
    const mcp_json *arg = mcp_json_object_get(mcp_call_arguments(c), "argument");
    const char *value = mcp_json_string(mcp_json_object_get(arg, "value"), NULL);
    if (!strcmp(value, "many")) {
        static char names[150][8];
        const char *v[150];
        for (int i = 0; i < 150; i++) {
            snprintf(names[i], sizeof names[i], "v%d", i);
            v[i] = names[i];
        }
        mcp_call_reply_completion(c, v, 150, 150, false);
        return;
    }
    /* The context's other arguments reach the handler. */
    const char *ctx = mcp_json_string(
        mcp_json_object_get(
            mcp_json_object_get(mcp_json_object_get(mcp_call_arguments(c), "context"),
                                "arguments"),
            "name"),
        NULL);
    static const char *const all[] = {"python", "pytorch", "perl", "go"};
    const char *out[5];
    size_t n = 0;
    for (size_t i = 0; i < 4; i++)
        if (!strncmp(all[i], value, strlen(value)))
            out[n++] = all[i];
    if (ctx && !strcmp(ctx, "ada"))
        out[n++] = "ada-lang";
    mcp_call_reply_completion(c, out, n, (int64_t)n, false);
}

/* Setup ------------------------------------------------------------------------------ */

static mcp_server *new_server(size_t page_size)
{
    mcp_server_options o = {.size = sizeof o, .name = "offers", .log_level = MCP_LOG_ERROR,
                            .page_size = page_size, .cache_ttl_ms = 7000};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_resource rs[] = {
        {.size = sizeof(mcp_resource), .uri = "file:///readme.md", .name = "readme",
         .title = "Read me", .mime_type = "text/markdown", .size_known = true, .size_bytes = 7,
         .annotations = "{\"audience\":[\"user\"],\"priority\":0.5}", .read = read_readme},
        {.size = sizeof(mcp_resource), .uri = "file:///logo.png", .name = "logo",
         .read = read_logo, .flags = MCP_TOOL_BLOCKING},
        {.size = sizeof(mcp_resource), .uri = "file:///bad", .name = "bad", .read = read_bad},
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        assert_int_equal(mcp_server_add_resource(s, &rs[i]), MCP_OK);
    const mcp_resource_template ts[] = {
        {.size = sizeof(mcp_resource_template), .uri_template = "users://{id}/profile",
         .name = "user", .read = read_user, .complete = complete_any},
        {.size = sizeof(mcp_resource_template), .uri_template = "files:///{+path}",
         .name = "files", .mime_type = "text/plain", .read = read_files},
    };
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        assert_int_equal(mcp_server_add_resource_template(s, &ts[i]), MCP_OK);
    const mcp_prompt_argument args[] = {{.name = "name", .required = true},
                                        {.name = "language", .description = "a language"}};
    const mcp_prompt p = {.size = sizeof p, .name = "greet", .title = "Greet",
                          .arguments = args, .argument_count = 2, .get = get_greet,
                          .complete = complete_any};
    assert_int_equal(mcp_server_add_prompt(s, &p), MCP_OK);
    const mcp_prompt plain = {.size = sizeof plain, .name = "plain", .get = get_greet};
    assert_int_equal(mcp_server_add_prompt(s, &plain), MCP_OK);
    return s;
}

static void start(harness *h, mcp_server *s, const char *version)
{
    char *caps = NULL;
    harness_start(h, s, version, NULL, version ? &caps : NULL);
    if (!version)
        return;
    /* Everything is declared: lists may change while serving. */
    assert_non_null(strstr(caps, "\"prompts\":{\"listChanged\":true}"));
    assert_non_null(strstr(caps, "\"resources\":{\"listChanged\":true,\"subscribe\":true}"));
    assert_non_null(strstr(caps, "\"completions\":{}"));
    free(caps);
}

/* Tests -------------------------------------------------------------------------------- */

static void resources_are_listed_and_read_in_both_eras(void **state)
{
    for (int modern = 0; modern < 2; modern++) {
        harness h;
        start(&h, new_server(0), modern ? NULL : "2025-11-25");
        char *l = harness_req(&h, 1, "resources/list", "");
        assert_non_null(strstr(l, "{\"uri\":\"file:///readme.md\",\"name\":\"readme\",\"title\":"
                                  "\"Read me\",\"mimeType\":\"text/markdown\",\"size\":7,"
                                  "\"annotations\":{\"audience\":[\"user\"],\"priority\":0.5}}"));
        assert_null(strstr(l, "nextCursor"));
        assert_true(!modern || strstr(l, "\"ttlMs\":7000"));
        free(l);
        harness_expect_in(harness_req(&h, 2, "resources/templates/list", ""),
                  "{\"uriTemplate\":\"files:///{+path}\",\"name\":\"files\",\"mimeType\":"
                  "\"text/plain\"}");
        l = harness_req(&h, 3, "resources/read", "\"uri\":\"file:///readme.md\"");
        assert_non_null(strstr(l, "{\"contents\":[{\"uri\":\"file:///readme.md\",\"mimeType\":"
                                  "\"text/markdown\",\"text\":\"# Hello\"}]"));
        /* 2026-07-28: a read carries caching hints (the server's here). */
        assert_true(!modern == !strstr(l, "\"ttlMs\":7000,\"cacheScope\":\"public\""));
        free(l);
        harness_expect_in(harness_req(&h, 4, "resources/read", "\"uri\":\"file:///logo.png\""),
                  "\"mimeType\":\"image/png\",\"blob\":\"iVBORwD/\"");
        /* Through a template: the variable decoded, the URI as asked. */
        harness_expect_in(harness_req(&h, 5, "resources/read", "\"uri\":\"users://a%20b/profile\""),
                  "\"text\":\"user a b at users://a%20b/profile\"");
        l = harness_req(&h, 6, "resources/read", "\"uri\":\"files:///x/y\"");
        assert_non_null(strstr(l, "{\"uri\":\"files:///b\",\"blob\":\"Qg==\"}"));
        assert_true(!modern == !strstr(l, "\"ttlMs\":7000"));
        free(l);
        harness_stop(&h);
    }
}

static void a_missing_resource_gets_the_code_of_its_revision(void **state)
{
    static const struct {
        const char *version, *code;
    } eras[] = {{"2025-06-18", "-32002"}, {"2025-11-25", "-32002"}, {NULL, "-32602"}};
    for (size_t i = 0; i < 3; i++) {
        harness h;
        start(&h, new_server(0), eras[i].version);
        char want[128];
        snprintf(want, sizeof want,
                 "\"error\":{\"code\":%s,\"message\":\"Resource not found\",\"data\":{\"uri\":"
                 "\"nothing:here\"}}",
                 eras[i].code);
        harness_expect_in(harness_req(&h, 1, "resources/read", "\"uri\":\"nothing:here\""), want);
        /* A template matched, and its handler found nothing. */
        snprintf(want, sizeof want,
                 "\"error\":{\"code\":%s,\"message\":\"Resource not found\",\"data\":{\"uri\":"
                 "\"users://missing/profile\"}}",
                 eras[i].code);
        harness_expect_in(harness_req(&h, 2, "resources/read", "\"uri\":\"users://missing/profile\""), want);
        harness_stop(&h);
    }
}

static void bad_reads_are_refused_and_the_connection_goes_on(void **state)
{
    harness h;
    start(&h, new_server(0), "2025-11-25");
    harness_expect_in(harness_req(&h, 1, "resources/read", ""), "params.uri must be a string");
    harness_expect_in(harness_req(&h, 2, "resources/read", "\"uri\":\"\""), "params.uri is empty");
    harness_expect_in(harness_req(&h, 3, "resources/read", "\"uri\":\"a\\u0000b\""), "NUL");
    /* The handler's answer lacks a uri: -32603, and the handler is told. */
    harness_expect_in(harness_req(&h, 4, "resources/read", "\"uri\":\"file:///bad\""), "\"code\":-32603");
    assert_int_equal(bad_rc, MCP_ERR_INVALID_ARG);
    harness_expect_in(harness_req(&h, 5, "resources/read", "\"uri\":\"file:///readme.md\""), "# Hello");
    harness_stop(&h);
}

static void prompts_are_listed_and_their_arguments_checked(void **state)
{
    for (int modern = 0; modern < 2; modern++) {
        harness h;
        start(&h, new_server(0), modern ? NULL : "2025-06-18");
        harness_expect_in(harness_req(&h, 1, "prompts/list", ""),
                  "{\"name\":\"greet\",\"title\":\"Greet\",\"arguments\":[{\"name\":\"name\","
                  "\"required\":true},{\"name\":\"language\",\"description\":\"a language\"}]}");
        harness_expect_in(harness_req(&h, 2, "prompts/get", "\"name\":\"greet\",\"arguments\":{\"name\":\"Ann\"}"),
                  "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
                  "\"Hello Ann\"}}]");
        harness_expect_in(harness_req(&h, 3, "prompts/get", "\"name\":\"greet\""),
                  "\"code\":-32602,\"message\":\"Invalid params: prompt greet needs the argument "
                  "name\"");
        harness_expect_in(harness_req(&h, 4, "prompts/get", "\"name\":\"greet\",\"arguments\":{\"name\":1}"),
                  "argument \\\"name\\\" of prompt greet must be a string");
        harness_expect_in(harness_req(&h, 5, "prompts/get",
                      "\"name\":\"greet\",\"arguments\":{\"name\":\"a\",\"x\":\"1\"}"),
                  "prompt greet has no argument \\\"x\\\"");
        harness_expect_in(harness_req(&h, 6, "prompts/get", "\"name\":\"nope\""),
                  "\"code\":-32602,\"message\":\"Invalid params: unknown prompt \\\"nope\\\"\"");
        harness_expect_in(harness_req(&h, 7, "prompts/get", "\"name\":\"greet\",\"arguments\":[]"),
                  "params.arguments must be an object");
        harness_stop(&h);
    }
}

static void completion_serves_prompt_arguments_and_template_variables(void **state)
{
    harness h;
    start(&h, new_server(0), "2025-11-25");
    harness_expect_in(harness_req(&h, 1, "completion/complete",
                  "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                  "\"argument\":{\"name\":\"language\",\"value\":\"py\"}"),
              "{\"completion\":{\"values\":[\"python\",\"pytorch\"],\"total\":2,\"hasMore\":false}}");
    /* The context reaches the handler. */
    harness_expect_in(harness_req(&h, 2, "completion/complete",
                  "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                  "\"argument\":{\"name\":\"language\",\"value\":\"x\"},"
                  "\"context\":{\"arguments\":{\"name\":\"ada\"}}"),
              "\"values\":[\"ada-lang\"]");
    harness_expect_in(harness_req(&h, 3, "completion/complete",
                  "\"ref\":{\"type\":\"ref/resource\",\"uri\":\"users://{id}/profile\"},"
                  "\"argument\":{\"name\":\"id\",\"value\":\"p\"}"),
              "\"values\":[\"python\",\"pytorch\",\"perl\"]");
    /* 150 values: 100 sent, and hasMore says there is more. */
    char *l = harness_req(&h, 4, "completion/complete",
                  "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                  "\"argument\":{\"name\":\"language\",\"value\":\"many\"}");
    assert_non_null(strstr(l, "\"v99\"],\"total\":150,\"hasMore\":true"));
    assert_null(strstr(l, "\"v100\""));
    free(l);
    /* Nothing to complete with: empty, not an error; the whole line, so a
     * stray byte after it shows (a NUL was sent there once). */
    l = harness_req(&h, 5, "completion/complete",
                    "\"ref\":{\"type\":\"ref/resource\",\"uri\":\"files:///{+path}\"},"
                    "\"argument\":{\"name\":\"path\",\"value\":\"a\"}");
    assert_string_equal(l, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"completion\":{\"values\":[],"
                           "\"hasMore\":false}}}");
    free(l);
    /* context is optional, and so are its arguments; they are strings. */
    harness_expect_in(harness_req(&h, 30, "completion/complete",
                                  "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                                  "\"argument\":{\"name\":\"language\",\"value\":\"go\"},"
                                  "\"context\":{}"),
                      "\"values\":[\"go\"]");
    harness_expect_in(harness_req(&h, 31, "completion/complete",
                                  "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                                  "\"argument\":{\"name\":\"language\",\"value\":\"go\"},"
                                  "\"context\":{\"arguments\":{\"name\":5}}"),
                      "params.context.arguments must be an object of strings");
    harness_expect_in(harness_req(&h, 6, "completion/complete",
                  "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                  "\"argument\":{\"name\":\"nope\",\"value\":\"\"}"),
              "prompt \\\"greet\\\" has no argument \\\"nope\\\"");
    harness_expect_in(harness_req(&h, 7, "completion/complete",
                  "\"ref\":{\"type\":\"ref/resource\",\"uri\":\"users://{id}/profile\"},"
                  "\"argument\":{\"name\":\"idx\",\"value\":\"\"}"),
              "has no variable \\\"idx\\\"");
    harness_expect_in(harness_req(&h, 8, "completion/complete",
                  "\"ref\":{\"type\":\"ref/tool\",\"name\":\"x\"},"
                  "\"argument\":{\"name\":\"a\",\"value\":\"\"}"),
              "params.ref.type must be ref/prompt or ref/resource");
    harness_expect_in(harness_req(&h, 9, "completion/complete",
                  "\"ref\":{\"type\":\"ref/prompt\",\"name\":\"nope\"},"
                  "\"argument\":{\"name\":\"a\",\"value\":\"\"}"),
              "unknown prompt \\\"nope\\\"");
    harness_stop(&h);
}

/* Every list pages by page_size; a cursor names the next item, so a page
 * read after the list changed neither repeats nor skips what stayed. */
static void lists_page_and_cursors_survive_changes(void **state)
{
    mcp_server *s = new_server(2);
    for (int i = 0; i < 5; i++) {
        char uri[32], name[16];
        snprintf(uri, sizeof uri, "mem:///%d", i);
        snprintf(name, sizeof name, "m%d", i);
        mcp_resource r = {.size = sizeof r, .uri = uri, .name = name, .read = read_readme};
        assert_int_equal(mcp_server_add_resource(s, &r), MCP_OK);
    }
    harness h;
    start(&h, s, "2025-11-25");
    /* 3 + 5 resources, 2 a page: readme, logo | bad, mem0 | mem1, ... */
    char *l = harness_req(&h, 1, "resources/list", "");
    assert_non_null(strstr(l, "\"name\":\"logo\""));
    assert_null(strstr(l, "\"name\":\"bad\""));
    const char *c = strstr(l, "\"nextCursor\":\"");
    assert_non_null(c);
    char cursor[64];
    assert_int_equal(sscanf(c + 14, "%63[^\"]", cursor), 1);
    free(l);
    char params[128];
    snprintf(params, sizeof params, "\"cursor\":\"%s\"", cursor);
    l = harness_req(&h, 2, "resources/list", params);
    assert_non_null(strstr(l, "\"name\":\"bad\""));
    assert_non_null(strstr(l, "\"name\":\"m0\""));
    c = strstr(l, "\"nextCursor\":\"");
    assert_int_equal(sscanf(c + 14, "%63[^\"]", cursor), 1);
    free(l);
    /* The next page's first item goes, one before it too: the page starts
     * at what follows, nothing repeated. */
    assert_int_equal(mcp_server_remove_resource(s, "mem:///1"), MCP_OK);
    assert_int_equal(mcp_server_remove_resource(s, "mem:///0"), MCP_OK);
    free(wire_expect(&h.w, "notifications/resources/list_changed"));
    snprintf(params, sizeof params, "\"cursor\":\"%s\"", cursor);
    l = harness_req(&h, 3, "resources/list", params);
    assert_non_null(strstr(l, "\"name\":\"m2\""));
    assert_non_null(strstr(l, "\"name\":\"m3\""));
    assert_null(strstr(l, "\"name\":\"m0\""));
    free(l);
    /* A cursor of another list, or one never given: -32602. */
    static const char *const bad[] = {"\"cursor\":\"x\"", "\"cursor\":\"r.01\"",
                                      "\"cursor\":\"r.\"", "\"cursor\":\"r.99999999999999999999\"",
                                      "\"cursor\":7"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        harness_expect_in(harness_req(&h, 10 + (int)i, "resources/list", bad[i]), "\"code\":-32602");
    snprintf(params, sizeof params, "\"cursor\":\"%s\"", cursor);
    harness_expect_in(harness_req(&h, 20, "prompts/list", params), "\"code\":-32602");
    /* tools/list pages too (no tools here: one empty page). */
    harness_expect_in(harness_req(&h, 21, "tools/list", ""), "{\"tools\":[]}");
    harness_stop(&h);
}

static void a_2025_subscription_hears_its_resources_updates(void **state)
{
    harness h;
    mcp_server *s = new_server(0);
    start(&h, s, "2025-11-25");
    harness_expect_in(harness_req(&h, 1, "resources/subscribe", "\"uri\":\"file:///readme.md\""),
              "\"result\":{}");
    assert_int_equal(mcp_server_publish(s, MCP_LISTEN_RESOURCE_UPDATES, "file:///logo.png"),
                     MCP_OK);
    assert_int_equal(mcp_server_publish(s, MCP_LISTEN_RESOURCE_UPDATES, "file:///readme.md"),
                     MCP_OK);
    /* Only the subscribed one. */
    char *n = wire_expect(&h.w, "notifications/resources/updated");
    assert_non_null(strstr(n, "\"params\":{\"uri\":\"file:///readme.md\"}"));
    free(n);
    harness_expect_in(harness_req(&h, 2, "resources/unsubscribe", "\"uri\":\"file:///readme.md\""),
              "\"result\":{}");
    assert_int_equal(mcp_server_publish(s, MCP_LISTEN_RESOURCE_UPDATES, "file:///readme.md"),
                     MCP_OK);
    /* Nothing more for it: the next line is the ping's answer. */
    wire_send(&h.w, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
    n = wire_read(&h.w, 5000);
    assert_non_null(n);
    assert_non_null(strstr(n, "\"id\":3"));
    free(n);
    harness_expect_in(harness_req(&h, 4, "resources/subscribe", "\"uri\":5"), "\"code\":-32602");
    /* At most 1024 of at most 8 KiB each: a client cannot make us keep more. */
    char big[8300];
    memset(big, 'a', sizeof big);
    memcpy(big, "\"uri\":\"x:", 9);
    big[sizeof big - 2] = '"';
    big[sizeof big - 1] = '\0';
    harness_expect_in(harness_req(&h, 6, "resources/subscribe", big), "at most 8192 bytes");
    for (int i = 0; i < 1024; i++) {
        char one[64];
        snprintf(one, sizeof one, "\"uri\":\"x:%d\"", i);
        harness_expect_in(harness_req(&h, 100 + i, "resources/subscribe", one), "\"result\":{}");
    }
    harness_expect_in(harness_req(&h, 2000, "resources/subscribe", "\"uri\":\"x:again\""),
                      "too many subscriptions (1024)");
    /* One already held is no new one. */
    harness_expect_in(harness_req(&h, 2001, "resources/subscribe", "\"uri\":\"x:5\""),
                      "\"result\":{}");
    /* Registering publishes the list change. */
    const mcp_prompt p = {.size = sizeof p, .name = "later", .get = get_greet};
    assert_int_equal(mcp_server_add_prompt(s, &p), MCP_OK);
    free(wire_expect(&h.w, "notifications/prompts/list_changed"));
    harness_expect_in(harness_req(&h, 5, "prompts/list", ""), "\"name\":\"later\"");
    harness_stop(&h);
}

static void registration_refuses_what_it_cannot_serve(void **state)
{
    mcp_server *s = new_server(0);
    mcp_resource r = {.size = sizeof r, .uri = "no-scheme", .name = "x", .read = read_readme};
    assert_int_equal(mcp_server_add_resource(s, &r), MCP_ERR_INVALID_ARG);
    r.uri = "file:///readme.md"; /* already there */
    assert_int_equal(mcp_server_add_resource(s, &r), MCP_ERR_INVALID_ARG);
    r.uri = "file:///new";
    r.annotations = "[1]";
    assert_int_equal(mcp_server_add_resource(s, &r), MCP_ERR_INVALID_ARG);
    r.annotations = NULL;
    r.read = NULL;
    assert_int_equal(mcp_server_add_resource(s, &r), MCP_ERR_INVALID_ARG);
    mcp_resource_template t = {.size = sizeof t, .uri_template = "x://{a", .name = "t",
                               .read = read_user};
    assert_int_equal(mcp_server_add_resource_template(s, &t), MCP_ERR_INVALID_ARG);
    const mcp_prompt_argument twice[] = {{.name = "a"}, {.name = "a"}};
    mcp_prompt p = {.size = sizeof p, .name = "p2", .arguments = twice, .argument_count = 2,
                    .get = get_greet};
    assert_int_equal(mcp_server_add_prompt(s, &p), MCP_ERR_INVALID_ARG);
    p.argument_count = 0;
    p.name = "";
    assert_int_equal(mcp_server_add_prompt(s, &p), MCP_ERR_INVALID_ARG);
    /* Scopes that are no RFC 6749 scope-token (a challenge could not name
     * them): refused, for every kind of item. */
    static const char *const spaced[] = {"files:write", "a b", NULL};
    static const char *const quoted[] = {"a\"b", NULL};
    static const char *const empty[] = {"", NULL};
    p.name = "p3";
    p.scopes = spaced;
    assert_int_equal(mcp_server_add_prompt(s, &p), MCP_ERR_INVALID_ARG);
    r.read = read_readme;
    r.scopes = quoted;
    assert_int_equal(mcp_server_add_resource(s, &r), MCP_ERR_INVALID_ARG);
    t.uri_template = "x://{a}";
    t.scopes = empty;
    assert_int_equal(mcp_server_add_resource_template(s, &t), MCP_ERR_INVALID_ARG);
    mcp_tool tool = {.size = sizeof tool, .name = "scoped", .handler = read_readme,
                     .scopes = spaced};
    assert_int_equal(mcp_server_add_tool(s, &tool), MCP_ERR_INVALID_ARG);
    static const char *const good[] = {"files:write", "x!#$%&'()*+,-./:;<=>?@[]^_`{|}~", NULL};
    tool.scopes = good;
    assert_int_equal(mcp_server_add_tool(s, &tool), MCP_OK);
    r.scopes = good;
    assert_int_equal(mcp_server_add_resource(s, &r), MCP_OK);
    assert_int_equal(mcp_server_remove_resource(s, "users://{id}/profile"), MCP_OK);
    assert_int_equal(mcp_server_remove_resource(s, "users://{id}/profile"), MCP_ERR_NOT_FOUND);
    assert_int_equal(mcp_server_remove_prompt(s, "greet"), MCP_OK);
    assert_int_equal(mcp_server_remove_prompt(s, "greet"), MCP_ERR_NOT_FOUND);
    mcp_server_free(s);
}

static void tool_noop(void *ud, mcp_call *c)
{
    mcp_call_reply_text(c, "ok");
}

/* A tool's title, annotations, icons and _meta are listed as given; ones
 * that are not JSON of their type are refused at registration. */
static void tools_list_their_annotations_icons_and_meta(void **state)
{
    mcp_server *s = new_server(0);
    mcp_tool t = {.size = sizeof t, .name = "lookup", .title = "Look up", .handler = tool_noop,
                  .annotations = "{\"readOnlyHint\":true,\"openWorldHint\":false}",
                  .icons = "[{\"src\":\"https://example.com/i.png\",\"mimeType\":\"image/png\"}]",
                  .meta = "{\"example.com/x\":1}"};
    assert_int_equal(mcp_server_add_tool(s, &t), MCP_OK);
    mcp_tool bad = t;
    bad.name = "bad1";
    bad.annotations = "[]";
    assert_int_equal(mcp_server_add_tool(s, &bad), MCP_ERR_INVALID_ARG);
    bad.annotations = NULL;
    bad.icons = "{}";
    assert_int_equal(mcp_server_add_tool(s, &bad), MCP_ERR_INVALID_ARG);
    bad.icons = NULL;
    bad.meta = "not json";
    assert_int_equal(mcp_server_add_tool(s, &bad), MCP_ERR_INVALID_ARG);
    harness h;
    start(&h, s, "2025-11-25");
    harness_expect_in(harness_req(&h, 1, "tools/list", ""),
                      "{\"name\":\"lookup\",\"title\":\"Look up\",\"inputSchema\":{\"type\":"
                      "\"object\"},\"annotations\":{\"readOnlyHint\":true,\"openWorldHint\":false},"
                      "\"icons\":[{\"src\":\"https://example.com/i.png\",\"mimeType\":\"image/png\"}],"
                      "\"_meta\":{\"example.com/x\":1}}");
    harness_stop(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resources_are_listed_and_read_in_both_eras),
        cmocka_unit_test(a_missing_resource_gets_the_code_of_its_revision),
        cmocka_unit_test(bad_reads_are_refused_and_the_connection_goes_on),
        cmocka_unit_test(prompts_are_listed_and_their_arguments_checked),
        cmocka_unit_test(completion_serves_prompt_arguments_and_template_variables),
        cmocka_unit_test(lists_page_and_cursors_survive_changes),
        cmocka_unit_test(a_2025_subscription_hears_its_resources_updates),
        cmocka_unit_test(registration_refuses_what_it_cannot_serve),
        cmocka_unit_test(tools_list_their_annotations_icons_and_meta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
