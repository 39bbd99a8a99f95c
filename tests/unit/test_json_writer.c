/* SPDX-License-Identifier: MIT */
/*
 * The streaming envelope writer (json/writer.c): strings on the fast path
 * (printable ASCII) and the slow one (escapes, UTF-8) give the same text as
 * mcp_json_write_string; keys, commas and nesting; the sticky error and the
 * rollback that make a message written whole or not at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "json/writer.h"

/* `{"k":<s>}` through the writer, and the same string by the reference. */
static void same_as_reference(const char *s, size_t len)
{
    mcp_buf got, want;
    mcp_buf_init(&got, 0, NULL);
    mcp_buf_init(&want, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &got);
    mcp__jw_object(&w);
    mcp__jw_keyn(&w, s, len); /* a key is a string too */
    mcp__jw_stringn(&w, s, len);
    mcp__jw_object_end(&w);
    assert_int_equal(mcp__jw_finish(&w), MCP_OK);
    assert_int_equal(mcp_buf_append(&want, "{", 1), MCP_OK);
    assert_int_equal(mcp_json_write_string(s, len, &want), MCP_OK);
    assert_int_equal(mcp_buf_append(&want, ":", 1), MCP_OK);
    assert_int_equal(mcp_json_write_string(s, len, &want), MCP_OK);
    assert_int_equal(mcp_buf_append(&want, "}", 1), MCP_OK);
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.data, want.data, got.len);
    mcp_buf_free(&got);
    mcp_buf_free(&want);
}

static void strings_on_either_path_are_written_as_the_reference_writes_them(void **state)
{
    /* Every single byte that is valid UTF-8 on its own (0x00-0x7f), at
     * the start, the middle and the end of a plain string. */
    for (int c = 0; c < 0x80; c++) {
        char s[5] = {(char)c, 'a', (char)c, 'b', (char)c};
        same_as_reference(s, 1);
        same_as_reference(s, 5);
    }
    same_as_reference("", 0);
    same_as_reference("plain text, no escapes: ~!@#$%^&*()", 36);
    same_as_reference("caf\xc3\xa9 \xf0\x9f\x98\x80", 10);
}

static void invalid_utf8_fails_and_rolls_back(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_buf_append(&b, "kept", 4), MCP_OK);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "a");
    mcp__jw_stringn(&w, "ok", 2);
    mcp__jw_key(&w, "b");
    mcp__jw_stringn(&w, "bad \xff", 5);
    mcp__jw_key(&w, "c"); /* ignored: the error is sticky */
    mcp__jw_int(&w, 1);
    mcp__jw_object_end(&w);
    assert_int_equal(mcp__jw_finish(&w), MCP_ERR_UTF8);
    assert_int_equal(b.len, 4);
    assert_string_equal(b.data, "kept");
    mcp_buf_free(&b);
}

static void members_and_elements_get_their_commas(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "a");
    mcp__jw_array(&w);
    mcp__jw_int(&w, 1);
    mcp__jw_object(&w);
    mcp__jw_object_end(&w);
    mcp__jw_string(&w, "x");
    mcp__jw_array_end(&w);
    mcp__jw_key(&w, "b");
    mcp__jw_bool(&w, true);
    mcp__jw_raw_members(&w, "\"c\":null", 8);
    mcp__jw_object_end(&w);
    assert_int_equal(mcp__jw_finish(&w), MCP_OK);
    assert_string_equal(b.data, "{\"a\":[1,{},\"x\"],\"b\":true,\"c\":null}");
    mcp_buf_free(&b);
}

static void a_capped_buffer_fails_whole(void **state)
{
    /* The cap is met on the fast path too: nothing half written. */
    mcp_buf b;
    mcp_buf_init(&b, 12, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "key");
    mcp__jw_string(&w, "a long plain value");
    mcp__jw_object_end(&w);
    assert_int_equal(mcp__jw_finish(&w), MCP_ERR_LIMIT);
    assert_int_equal(b.len, 0);
    mcp_buf_free(&b);
}

static void misuse_is_reported(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &b);
    mcp__jw_object(&w);
    mcp__jw_key(&w, "a");
    mcp__jw_key(&w, "b"); /* a key after a key */
    assert_int_equal(mcp__jw_finish(&w), MCP_ERR_STATE);
    mcp__jw_begin(&w, &b);
    mcp__jw_array(&w); /* never closed */
    assert_int_equal(mcp__jw_finish(&w), MCP_ERR_STATE);
    mcp__jw_begin(&w, &b);
    for (int i = 0; i <= MCP__JW_MAX_DEPTH; i++)
        mcp__jw_array(&w);
    assert_int_equal(mcp__jw_finish(&w), MCP_ERR_LIMIT);
    assert_int_equal(b.len, 0);
    mcp_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_on_either_path_are_written_as_the_reference_writes_them),
        cmocka_unit_test(invalid_utf8_fails_and_rolls_back),
        cmocka_unit_test(members_and_elements_get_their_commas),
        cmocka_unit_test(a_capped_buffer_fails_whole),
        cmocka_unit_test(misuse_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
