/* SPDX-License-Identifier: MIT */
/* Unit tests for src/json/scan.c: members read without a DOM. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "json/scan.h"

static mcp__span span_of(const char *s)
{
    return (mcp__span){s, strlen(s)};
}

/* A key is compared as the parser reads it: escapes decoded, quotes
 * required, nothing shorter or longer. */
static void keys_are_compared_as_read(void **state)
{
    assert_true(mcp__span_is_key(span_of("\"result\""), "result"));
    assert_true(mcp__span_is_key(span_of("\"\\u0069d\""), "id"));
    assert_true(mcp__span_is_key(span_of("\"\\u005fmeta\""), "_meta"));
    assert_true(mcp__span_is_key(span_of("\"\""), ""));
    assert_false(mcp__span_is_key(span_of("\"resul\""), "result"));
    assert_false(mcp__span_is_key(span_of("\"results\""), "result"));
    assert_false(mcp__span_is_key(span_of("\"Result\""), "result"));
    assert_false(mcp__span_is_key(span_of("result"), "result"));
    assert_false(mcp__span_is_key(span_of("\"result"), "result"));
    assert_false(mcp__span_is_key(span_of("\""), ""));
    /* As long as the name but escaped: it reads as something shorter. */
    assert_false(mcp__span_is_key(span_of("\"\\u0069\""), "\\u0069"));
    assert_false(mcp__span_is_key(span_of("\"\\u0069dx\""), "id"));
    assert_false(mcp__span_is_key(span_of("\"\\q\""), "q"));
}

/* Members come in order with their text; the end, a truncation and a
 * broken structure are told apart. */
static void members_are_read_in_order(void **state)
{
    const char *text = " {\"a\":1,\"b\":{\"c\":[1,\"}\"]},\"d\":\"x\\\"y\"} ";
    mcp__scan sc;
    mcp__span k, v;
    assert_true(mcp__scan_open(&sc, text, strlen(text)));
    assert_int_equal(mcp__scan_next(&sc, &k, &v), MCP__SCAN_MEMBER);
    assert_true(mcp__span_is_key(k, "a"));
    assert_int_equal(v.n, 1);
    assert_int_equal(mcp__scan_next(&sc, &k, &v), MCP__SCAN_MEMBER);
    assert_true(mcp__span_is_key(k, "b"));
    assert_int_equal(v.n, strlen("{\"c\":[1,\"}\"]}"));
    assert_memory_equal(v.p, "{\"c\":[1,\"}\"]}", v.n);
    assert_int_equal(mcp__scan_key(&sc, &k), MCP__SCAN_MEMBER);
    assert_true(mcp__span_is_key(k, "d"));
    assert_int_equal(mcp__scan_value(&sc, &v), MCP__SCAN_MEMBER);
    assert_memory_equal(v.p, "\"x\\\"y\"", v.n);
    assert_int_equal(mcp__scan_next(&sc, &k, &v), MCP__SCAN_END);

    const char *cut = "{\"a\":[1,2";
    assert_true(mcp__scan_open(&sc, cut, strlen(cut)));
    assert_int_equal(mcp__scan_next(&sc, &k, &v), MCP__SCAN_TRUNCATED);
    assert_true(mcp__span_is_key(k, "a"));
    const char *bad = "{\"a\" 1}";
    assert_true(mcp__scan_open(&sc, bad, strlen(bad)));
    assert_int_equal(mcp__scan_next(&sc, &k, &v), MCP__SCAN_BAD);
    assert_false(mcp__scan_open(&sc, "[1]", 3));
}

/* Backward: the last members first, strings with escaped quotes skipped
 * whole. */
static void the_last_members_are_read_backward(void **state)
{
    const char *tail = "x\",\"s\":\"a\\\"}\",\"id\":7}";
    mcp__rscan sc;
    mcp__span k, v;
    assert_true(mcp__rscan_open(&sc, tail, strlen(tail)));
    assert_int_equal(mcp__rscan_next(&sc, &k, &v), MCP__SCAN_MEMBER);
    assert_true(mcp__span_is_key(k, "id"));
    assert_memory_equal(v.p, "7", v.n);
    assert_int_equal(mcp__rscan_next(&sc, &k, &v), MCP__SCAN_MEMBER);
    assert_true(mcp__span_is_key(k, "s"));
    assert_memory_equal(v.p, "\"a\\\"}\"", v.n);
    assert_int_equal(mcp__rscan_next(&sc, &k, &v), MCP__SCAN_TRUNCATED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_are_compared_as_read),
        cmocka_unit_test(members_are_read_in_order),
        cmocka_unit_test(the_last_members_are_read_backward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
