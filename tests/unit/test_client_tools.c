/* SPDX-License-Identifier: MIT */
/* The client's tool cache (src/client/tools.c), its x-mcp-header side:
 * which tools a client keeps, and the headers of a call. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/tools.h"

static mcp_json_doc *json(const char *text)
{
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

static const char *check(const char *schema)
{
    mcp_json_doc *d = json(schema);
    const char *why = mcp__tools_header_problem(mcp_json_doc_root(d));
    mcp_json_doc_free(d);
    return why;
}

/* A parameter two levels down whose two property names are n bytes each. */
static const char *check_long_path(size_t n)
{
    char *k = malloc(n + 1);
    memset(k, 'k', n);
    k[n] = '\0';
    char *text = malloc(2 * n + 200);
    sprintf(text, "{\"properties\":{\"%s\":{\"properties\":{\"%s\":"
                  "{\"type\":\"string\",\"x-mcp-header\":\"H\"}}}}}",
            k, k);
    const char *why = check(text);
    free(k);
    free(text);
    return why;
}

static void the_rules_of_x_mcp_header(void **state)
{
    /* Every annotation keeps its path: over 1 KiB of names is refused, so
     * that a page of tools/list cannot cost the client many times its size. */
    assert_null(check_long_path(512));
    assert_non_null(check_long_path(513));
    assert_null(check("{\"type\":\"object\",\"properties\":{\"r\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"}}}"));
    assert_null(check("{\"properties\":{\"o\":{\"properties\":{\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"}}}}}"));
    /* A parameter may be called x-mcp-header: a name, not an annotation. */
    assert_null(check("{\"properties\":{\"x-mcp-header\":{\"type\":\"string\"}}}"));
    assert_null(check("{\"properties\":{\"a\":{\"type\":\"string\",\"default\":{\"x-mcp-header\":1}}}}"));
    assert_non_null(check("{\"properties\":{\"r\":{\"type\":\"number\",\"x-mcp-header\":\"R\"}}}"));
    assert_non_null(check("{\"properties\":{\"r\":{\"x-mcp-header\":\"R\"}}}"));
    assert_non_null(check("{\"properties\":{\"r\":{\"type\":\"string\",\"x-mcp-header\":\"\"}}}"));
    assert_non_null(check("{\"properties\":{\"r\":{\"type\":\"string\",\"x-mcp-header\":\"a b\"}}}"));
    assert_non_null(check("{\"properties\":{\"r\":{\"type\":\"string\",\"x-mcp-header\":\"a\\r\\nb\"}}}"));
    assert_non_null(check("{\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"R\"},"
                          "\"b\":{\"type\":\"string\",\"x-mcp-header\":\"r\"}}}"));
    assert_non_null(check("{\"properties\":{\"l\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"x-mcp-header\":\"I\"}}}}"));
    assert_non_null(check("{\"oneOf\":[{\"properties\":{\"r\":{\"type\":\"string\",\"x-mcp-header\":\"R\"}}}]}"));
    assert_non_null(check("{\"$defs\":{\"x\":{\"type\":\"string\",\"x-mcp-header\":\"R\"}}}"));
    assert_non_null(check("{\"type\":\"string\",\"x-mcp-header\":\"Root\"}"));
}

/* A parameter whose x-mcp-header name is n bytes long. */
static const char *check_long_name(size_t n)
{
    char *text = malloc(n + 100);
    int k = sprintf(text, "{\"properties\":{\"p\":{\"type\":\"string\",\"x-mcp-header\":\"");
    memset(text + k, 'H', n);
    strcpy(text + k + n, "\"}}}");
    const char *why = check(text);
    free(text);
    return why;
}

/* The name is a header's of every call: a 1 MiB one made 1 MiB headers. */
static void an_x_mcp_header_name_is_at_most_128_bytes(void **state)
{
    assert_null(check_long_name(128));
    const char *why = check_long_name(129);
    assert_non_null(why);
    assert_non_null(strstr(why, "longer than 128 bytes"));
    assert_non_null(check_long_name((size_t)1 << 20));
}

static void warn(void *ud, const char *tool, const char *why)
{
    (*(int *)ud)++;
    assert_string_equal(tool, "bad");
}

static int collect(void *ud, const char *line)
{
    mcp_buf *b = ud;
    mcp_buf_append(b, line, strlen(line));
    mcp_buf_append(b, "|", 1);
    return MCP_OK;
}

static void a_list_loses_its_bad_tools_and_calls_get_their_headers(void **state)
{
    const char *list =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":["
        "{\"name\":\"good\",\"inputSchema\":{\"properties\":{"
        "\"r\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
        "\"o\":{\"properties\":{\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"},"
        "\"f\":{\"type\":\"boolean\",\"x-mcp-header\":\"F\"}}}}}},"
        "{\"name\":\"bad\",\"inputSchema\":{\"properties\":{\"r\":{\"type\":\"number\",\"x-mcp-header\":\"R\"}}}},"
        "{\"name\":\"plain\",\"inputSchema\":{}}]}}";
    mcp__tools *c = mcp__tools_new();
    mcp_json_doc *msg = json(list), *kept = NULL;
    mcp_buf out;
    mcp_buf_init(&out, 0, NULL);
    int warned = 0;
    assert_int_equal(mcp__tools_learn(c, mcp_json_object_get(mcp_json_doc_root(msg), "result"),
                                      true, &kept, warn, &warned),
                     MCP_OK);
    assert_non_null(kept);
    assert_int_equal(mcp_json_write(mcp_json_doc_root(kept), &out), MCP_OK);
    assert_int_equal(warned, 1);
    assert_null(strstr(out.data, "\"bad\""));
    assert_non_null(strstr(out.data, "\"plain\""));
    mcp_buf_free(&out);
    mcp_json_doc_free(kept);
    mcp_json_doc_free(msg);

    mcp_json_doc *p = json("{\"name\":\"good\",\"arguments\":{\"r\":\"Hello, \\u4e16\\u754c\","
                           "\"o\":{\"n\":-7,\"f\":false}}}");
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__tools_headers_for_call(c, mcp_json_doc_root(p), collect, &b), MCP_OK);
    assert_string_equal(b.data, "Mcp-Param-Region: =?base64?SGVsbG8sIOS4lueVjA==?=|"
                                "Mcp-Param-N: -7|Mcp-Param-F: false|");
    mcp_json_doc_free(p);
    /* null and absent values: no header. */
    mcp_buf_reset(&b);
    p = json("{\"name\":\"good\",\"arguments\":{\"r\":null}}");
    assert_int_equal(mcp__tools_headers_for_call(c, mcp_json_doc_root(p), collect, &b), MCP_OK);
    assert_int_equal(b.len, 0);
    mcp_json_doc_free(p);
    mcp_buf_free(&b);
    mcp__tools_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_rules_of_x_mcp_header),
        cmocka_unit_test(an_x_mcp_header_name_is_at_most_128_bytes),
        cmocka_unit_test(a_list_loses_its_bad_tools_and_calls_get_their_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
