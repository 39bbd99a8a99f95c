/* SPDX-License-Identifier: MIT */
/* Unit tests for src/json: one test per rule of the parser, readers,
 * builder and writer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failmalloc.h"
#include "missing.h"
#include "mcp/json.h"

/* Helpers ---------------------------------------------------------------- */

static mcp_json_doc *parse_ok(const char *text, size_t len)
{
    mcp_json_doc *doc = NULL;
    mcp_json_error err;
    int rc = mcp_json_parse(text, len, NULL, NULL, &doc, &err);
    if (rc != MCP_OK)
        fail_msg("expected '%.*s' to parse, got %d: %s", (int)len, text, rc,
                 err.message);
    return doc;
}

#define PARSE(s) parse_ok((s), sizeof(s) - 1)

/* Parse text expecting failure with `code` at `offset`. */
static void expect_error(const char *text, size_t len, int code, size_t offset)
{
    mcp_json_doc *doc = (mcp_json_doc *)1;
    mcp_json_error err;
    int rc = mcp_json_parse(text, len, NULL, NULL, &doc, &err);
    if (rc != code || err.offset != offset)
        fail_msg("'%.*s': expected %d at %zu, got %d at %zu (%s)", (int)len,
                 text, code, offset, rc, err.offset, err.message);
    assert_null(doc);
    assert_int_equal(err.code, code);
    /* Every message names the byte offset. */
    char where[40];
    snprintf(where, sizeof where, "at byte %zu", offset);
    assert_non_null(strstr(err.message, where));
}

#define REJECT(s, code, offset) expect_error((s), sizeof(s) - 1, (code), (offset))

/* Write v compactly into a fresh string owned by the caller. */
static char *write_str(const mcp_json *v)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_json_write(v, &b), MCP_OK);
    char *s = strdup(b.data ? b.data : "");
    mcp_buf_free(&b);
    return s;
}

/* Parse, write, compare with the expected text. */
static void expect_round_trip(const char *in, const char *out)
{
    mcp_json_doc *doc = parse_ok(in, strlen(in));
    char *w = write_str(mcp_json_doc_root(doc));
    assert_string_equal(w, out);
    free(w);
    mcp_json_doc_free(doc);
}

/* Accepting -------------------------------------------------------------- */

static void parses_every_value_type(void **state)
{
    mcp_json_doc *doc = PARSE(" {\"n\":null,\"t\":true,\"f\":false,\"i\":-12,"
                              "\"r\":1.5e3,\"s\":\"x\",\"a\":[1,[]],\"o\":{}} ");
    mcp_json *root = mcp_json_doc_root(doc);
    assert_int_equal(mcp_json_typeof(root), MCP_JSON_OBJECT);
    assert_int_equal(mcp_json_object_size(root), 8);
    assert_int_equal(mcp_json_typeof(mcp_json_object_get(root, "n")), MCP_JSON_NULL);
    bool b = false;
    assert_int_equal(mcp_json_get_bool(mcp_json_object_get(root, "t"), &b), MCP_OK);
    assert_true(b);
    assert_int_equal(mcp_json_get_bool(mcp_json_object_get(root, "f"), &b), MCP_OK);
    assert_false(b);
    int64_t i;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(root, "i"), &i), MCP_OK);
    assert_int_equal(i, -12);
    double d;
    assert_int_equal(mcp_json_get_double(mcp_json_object_get(root, "r"), &d), MCP_OK);
    assert_true(d == 1500.0);
    assert_string_equal(mcp_json_string(mcp_json_object_get(root, "s"), NULL), "x");
    mcp_json *a = mcp_json_object_get(root, "a");
    assert_int_equal(mcp_json_array_size(a), 2);
    assert_int_equal(mcp_json_typeof(mcp_json_array_at(a, 1)), MCP_JSON_ARRAY);
    assert_null(mcp_json_array_at(a, 2));
    assert_int_equal(mcp_json_typeof(mcp_json_object_get(root, "o")), MCP_JSON_OBJECT);
    mcp_json_doc_free(doc);
}

static void scalar_documents_are_accepted(void **state)
{
    expect_round_trip("7", "7");
    expect_round_trip(" \"s\" ", "\"s\"");
    expect_round_trip("null", "null");
}

static void int64_max_and_min_are_exact(void **state)
{
    mcp_json_doc *doc = PARSE("[9223372036854775807,-9223372036854775808]");
    int64_t v;
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(mcp_json_doc_root(doc), 0), &v), MCP_OK);
    assert_true(v == INT64_MAX);
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(mcp_json_doc_root(doc), 1), &v), MCP_OK);
    assert_true(v == INT64_MIN);
    mcp_json_doc_free(doc);
    expect_round_trip("[9223372036854775807,-9223372036854775808]",
                      "[9223372036854775807,-9223372036854775808]");
}

static void two_pow_53_plus_one_is_exact(void **state)
{
    mcp_json_doc *doc = PARSE("9007199254740993");
    int64_t v;
    assert_int_equal(mcp_json_get_int64(mcp_json_doc_root(doc), &v), MCP_OK);
    assert_true(v == INT64_C(9007199254740993));
    mcp_json_doc_free(doc);
    expect_round_trip("9007199254740993", "9007199254740993");
}

static void int64_max_plus_one_round_trips_unchanged(void **state)
{
    expect_round_trip("9223372036854775808", "9223372036854775808");
    mcp_json_doc *doc = PARSE("9223372036854775808");
    int64_t i;
    uint64_t u;
    assert_int_equal(mcp_json_get_int64(mcp_json_doc_root(doc), &i), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_uint64(mcp_json_doc_root(doc), &u), MCP_OK);
    assert_true(u == UINT64_C(9223372036854775808));
    mcp_json_doc_free(doc);
}

static void thirty_digit_integer_round_trips_unchanged(void **state)
{
    expect_round_trip("123456789012345678901234567890",
                      "123456789012345678901234567890");
    expect_round_trip("-123456789012345678901234567890",
                      "-123456789012345678901234567890");
    mcp_json_doc *doc = PARSE("123456789012345678901234567890");
    int64_t i;
    uint64_t u;
    double d;
    assert_int_equal(mcp_json_get_int64(mcp_json_doc_root(doc), &i), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_uint64(mcp_json_doc_root(doc), &u), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_double(mcp_json_doc_root(doc), &d), MCP_OK);
    assert_true(fabs(d - 1.2345678901234568e29) < 1e14);
    assert_true(mcp_json_is_integer_literal(mcp_json_doc_root(doc)));
    mcp_json_doc_free(doc);
}

static void decimal_point_one_round_trips(void **state)
{
    expect_round_trip("0.1", "0.1");
    mcp_json_doc *doc = PARSE("0.1");
    double d;
    assert_int_equal(mcp_json_get_double(mcp_json_doc_root(doc), &d), MCP_OK);
    assert_true(d == 0.1);
    assert_false(mcp_json_is_integer_literal(mcp_json_doc_root(doc)));
    mcp_json_doc_free(doc);
}

static void real_precision_is_never_lost(void **state)
{
    expect_round_trip("3.14159265358979323846264338327950288",
                      "3.14159265358979323846264338327950288");
    expect_round_trip("[1E400,-2.5e-400,0.000000000000000000001]",
                      "[1E400,-2.5e-400,0.000000000000000000001]");
}

static void string_with_escaped_nul_has_length_three(void **state)
{
    mcp_json_doc *doc = PARSE("\"a\\u0000b\"");
    size_t n = 0;
    const char *s = mcp_json_string(mcp_json_doc_root(doc), &n);
    assert_int_equal(n, 3);
    assert_memory_equal(s, "a\0b", 3);
    assert_int_equal(s[3], '\0');
    char *w = write_str(mcp_json_doc_root(doc));
    assert_string_equal(w, "\"a\\u0000b\"");
    free(w);
    mcp_json_doc_free(doc);
}

static void escapes_decode_to_their_characters(void **state)
{
    mcp_json_doc *doc = PARSE("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00\"");
    size_t n;
    const char *s = mcp_json_string(mcp_json_doc_root(doc), &n);
    const char expect[] = "\"\\/\b\f\n\r\t\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
    assert_int_equal(n, sizeof expect - 1);
    assert_memory_equal(s, expect, n);
    mcp_json_doc_free(doc);
}

static void valid_multibyte_utf8_is_accepted(void **state)
{
    /* 2, 3 and 4 byte forms, the largest code point, and U+FFFF. */
    mcp_json_doc *doc = PARSE("\"\xC2\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\xEF\xBF\xBF\"");
    size_t n;
    mcp_json_string(mcp_json_doc_root(doc), &n);
    assert_int_equal(n, 16);
    mcp_json_doc_free(doc);
}

/* Rejecting -------------------------------------------------------------- */

static void invalid_utf8_is_rejected(void **state)
{
    REJECT("\"\x80\"", MCP_ERR_JSON_UTF8, 1);             /* lone continuation */
    REJECT("\"\xC0\xAF\"", MCP_ERR_JSON_UTF8, 1);         /* overlong 2-byte */
    REJECT("\"\xC1\xBF\"", MCP_ERR_JSON_UTF8, 1);         /* overlong 2-byte */
    REJECT("\"\xE0\x80\xAF\"", MCP_ERR_JSON_UTF8, 1);     /* overlong 3-byte */
    REJECT("\"\xF0\x80\x80\xAF\"", MCP_ERR_JSON_UTF8, 1); /* overlong 4-byte */
    REJECT("\"\xED\xA0\x80\"", MCP_ERR_JSON_UTF8, 1);     /* U+D800 encoded */
    REJECT("\"\xED\xBF\xBF\"", MCP_ERR_JSON_UTF8, 1);     /* U+DFFF encoded */
    REJECT("\"\xF4\x90\x80\x80\"", MCP_ERR_JSON_UTF8, 1); /* above U+10FFFF */
    REJECT("\"\xF5\x80\x80\x80\"", MCP_ERR_JSON_UTF8, 1); /* never valid */
    REJECT("\"\xFF\"", MCP_ERR_JSON_UTF8, 1);
    REJECT("\"ab\xE2\x82\"", MCP_ERR_JSON_UTF8, 3);       /* truncated */
    REJECT("\"\xE2\x82", MCP_ERR_JSON_UTF8, 1);           /* truncated at end */
    REJECT("\"\xC3\x28\"", MCP_ERR_JSON_UTF8, 1);         /* bad continuation */
}

static void invalid_utf8_reason_is_named(void **state)
{
    mcp_json_doc *doc;
    mcp_json_error err;
    assert_int_equal(mcp_json_parse("\"\xC0\xAF\"", 4, NULL, NULL, &doc, &err),
                     MCP_ERR_JSON_UTF8);
    assert_non_null(strstr(err.message, "overlong"));
    assert_int_equal(mcp_json_parse("\"\xED\xA0\x80\"", 5, NULL, NULL, &doc, &err),
                     MCP_ERR_JSON_UTF8);
    assert_non_null(strstr(err.message, "surrogate"));
}

static void lone_and_mismatched_surrogate_escapes_are_rejected(void **state)
{
    REJECT("\"\\ud800\"", MCP_ERR_JSON_ESCAPE, 1);          /* lone high */
    REJECT("\"\\udc00\"", MCP_ERR_JSON_ESCAPE, 1);          /* lone low */
    REJECT("\"x\\ud800\\ud800\"", MCP_ERR_JSON_ESCAPE, 2);  /* high + high */
    REJECT("\"\\ud800\\u0041\"", MCP_ERR_JSON_ESCAPE, 1);   /* high + BMP */
    REJECT("\"\\ud800x\"", MCP_ERR_JSON_ESCAPE, 1);         /* high + char */
    REJECT("\"\\ude00\\ud83d\"", MCP_ERR_JSON_ESCAPE, 1);   /* reversed pair */
}

static void bad_escapes_are_rejected(void **state)
{
    REJECT("\"\\x\"", MCP_ERR_JSON_ESCAPE, 1);
    REJECT("\"\\u12\"", MCP_ERR_JSON_ESCAPE, 1);
    REJECT("\"\\u12G4\"", MCP_ERR_JSON_ESCAPE, 1);
    REJECT("\"\\U0041\"", MCP_ERR_JSON_ESCAPE, 1);
}

static void raw_control_characters_in_strings_are_rejected(void **state)
{
    for (int c = 0; c < 0x20; c++) {
        char text[5] = {'"', 'a', (char)c, '"', 0};
        expect_error(text, 4, MCP_ERR_JSON_CONTROL, 2);
    }
    /* DEL is not a control character in JSON's sense. */
    mcp_json_doc_free(PARSE("\"\x7F\""));
}

static void trailing_garbage_is_rejected(void **state)
{
    REJECT("{} x", MCP_ERR_JSON_TRAILING, 3);
    REJECT("1 2", MCP_ERR_JSON_TRAILING, 2);
    REJECT("[]]", MCP_ERR_JSON_TRAILING, 2);
    REJECT("null\0", MCP_ERR_JSON_TRAILING, 4);
}

static void nan_and_infinity_are_rejected(void **state)
{
    REJECT("NaN", MCP_ERR_JSON_NUMBER, 0);
    REJECT("[Infinity]", MCP_ERR_JSON_NUMBER, 1);
    REJECT("-Infinity", MCP_ERR_JSON_NUMBER, 0);
}

static void comments_are_rejected(void **state)
{
    REJECT("// c\n1", MCP_ERR_JSON_SYNTAX, 0);
    REJECT("[1/*c*/]", MCP_ERR_JSON_SYNTAX, 2);
}

static void trailing_commas_are_rejected(void **state)
{
    REJECT("[1,]", MCP_ERR_JSON_SYNTAX, 3);
    REJECT("[1, ]", MCP_ERR_JSON_SYNTAX, 4);
    REJECT("{\"a\":1,}", MCP_ERR_JSON_SYNTAX, 7);
    REJECT("[,1]", MCP_ERR_JSON_SYNTAX, 1);
}

static void leading_zeros_are_rejected(void **state)
{
    REJECT("01", MCP_ERR_JSON_NUMBER, 0);
    REJECT("-01", MCP_ERR_JSON_NUMBER, 0);
    REJECT("[00]", MCP_ERR_JSON_NUMBER, 1);
    expect_round_trip("[0,-0,0.5,0e1]", "[0,-0,0.5,0e1]");
}

static void malformed_numbers_are_rejected(void **state)
{
    REJECT("1.", MCP_ERR_JSON_NUMBER, 2);
    REJECT(".5", MCP_ERR_JSON_SYNTAX, 0);
    REJECT("1e", MCP_ERR_JSON_NUMBER, 2);
    REJECT("1e+", MCP_ERR_JSON_NUMBER, 3);
    REJECT("+1", MCP_ERR_JSON_SYNTAX, 0);
    REJECT("-", MCP_ERR_JSON_NUMBER, 0);
    REJECT("0x10", MCP_ERR_JSON_TRAILING, 1);
}

static void byte_order_mark_is_rejected(void **state)
{
    REJECT("\xEF\xBB\xBF{}", MCP_ERR_JSON_SYNTAX, 0);
}

static void empty_document_is_rejected(void **state)
{
    REJECT("", MCP_ERR_JSON_EMPTY, 0);
    REJECT(" \n\t ", MCP_ERR_JSON_EMPTY, 4);
}

static void unterminated_values_are_rejected(void **state)
{
    REJECT("\"abc", MCP_ERR_JSON_SYNTAX, 0);
    REJECT("[1,2", MCP_ERR_JSON_SYNTAX, 4);
    REJECT("{\"a\":1", MCP_ERR_JSON_SYNTAX, 6);
    REJECT("{\"a\"", MCP_ERR_JSON_SYNTAX, 4);
    REJECT("tru", MCP_ERR_JSON_SYNTAX, 0);
    REJECT("{1:2}", MCP_ERR_JSON_SYNTAX, 1);
}

static void nesting_deeper_than_default_limit_is_rejected(void **state)
{
    char text[300];
    for (int depth = 128; depth <= 129; depth++) {
        memset(text, '[', (size_t)depth);
        memset(text + depth, ']', (size_t)depth);
        mcp_json_doc *doc;
        mcp_json_error err;
        int rc = mcp_json_parse(text, (size_t)depth * 2, NULL, NULL, &doc, &err);
        if (depth == 128) {
            assert_int_equal(rc, MCP_OK);
            mcp_json_doc_free(doc);
        } else {
            assert_int_equal(rc, MCP_ERR_JSON_DEPTH);
            assert_int_equal(err.offset, 128);
        }
    }
}

static void nesting_limit_is_configurable(void **state)
{
    mcp_json_parse_options o = {.size = sizeof o, .max_depth = 3};
    mcp_json_doc *doc;
    assert_int_equal(mcp_json_parse("[{\"a\":[]}]", 10, &o, NULL, &doc, NULL), MCP_OK);
    mcp_json_doc_free(doc);
    assert_int_equal(mcp_json_parse("[{\"a\":[[]]}]", 12, &o, NULL, &doc, NULL),
                     MCP_ERR_JSON_DEPTH);
    /* A deep limit works too: no recursion in the parser. */
    size_t depth = 200000;
    char *deep = malloc(depth * 2);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    o.max_depth = (unsigned)depth;
    o.max_size = depth * 2;
    assert_int_equal(mcp_json_parse(deep, depth * 2, &o, NULL, &doc, NULL), MCP_OK);
    char *w = write_str(mcp_json_doc_root(doc));
    assert_int_equal(strlen(w), depth * 2);
    free(w);
    mcp_json_doc_free(doc);
    free(deep);
}

static void documents_larger_than_limit_are_rejected(void **state)
{
    mcp_json_parse_options o = {.size = sizeof o, .max_size = 8};
    mcp_json_doc *doc;
    mcp_json_error err;
    assert_int_equal(mcp_json_parse("[1,2,3,4]", 9, &o, NULL, &doc, &err),
                     MCP_ERR_JSON_SIZE);
    assert_non_null(strstr(err.message, "limit of 8 bytes"));
    assert_int_equal(mcp_json_parse("[1,2,3]", 7, &o, NULL, &doc, &err), MCP_OK);
    mcp_json_doc_free(doc);
}

static void duplicate_keys_are_rejected_by_default(void **state)
{
    REJECT("{\"a\":1,\"a\":2}", MCP_ERR_JSON_DUPLICATE_KEY, 7);
    /* The same key spelled with an escape is the same key. */
    REJECT("{\"a\":1,\"\\u0061\":2}", MCP_ERR_JSON_DUPLICATE_KEY, 7);
    /* Large objects go through the hash index. */
    char text[600] = "{";
    for (int i = 0; i < 40; i++)
        sprintf(text + strlen(text), "\"k%d\":%d,", i, i);
    size_t dup_at = strlen(text);
    strcat(text, "\"k17\":0}");
    expect_error(text, strlen(text), MCP_ERR_JSON_DUPLICATE_KEY, dup_at);
}

static void duplicate_keys_last_wins_when_asked(void **state)
{
    mcp_json_parse_options o = {.size = sizeof o, .duplicates = MCP_JSON_DUPLICATES_LAST_WINS};
    mcp_json_doc *doc;
    const char *t = "{\"a\":1,\"b\":2,\"a\":3}";
    assert_int_equal(mcp_json_parse(t, strlen(t), &o, NULL, &doc, NULL), MCP_OK);
    char *w = write_str(mcp_json_doc_root(doc));
    assert_string_equal(w, "{\"a\":3,\"b\":2}");
    free(w);
    mcp_json_doc_free(doc);

    char text[800] = "{";
    for (int i = 0; i < 40; i++)
        sprintf(text + strlen(text), "\"k%d\":%d,", i % 20, i);
    strcat(text, "\"z\":0}");
    assert_int_equal(mcp_json_parse(text, strlen(text), &o, NULL, &doc, NULL), MCP_OK);
    mcp_json *root = mcp_json_doc_root(doc);
    assert_int_equal(mcp_json_object_size(root), 21);
    int64_t v;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(root, "k5"), &v), MCP_OK);
    assert_int_equal(v, 25);
    const char *key;
    mcp_json_object_at(root, 5, &key, NULL);
    assert_string_equal(key, "k5");
    mcp_json_doc_free(doc);
}

/* Reading ---------------------------------------------------------------- */

static void integer_readers_accept_integral_numbers_only(void **state)
{
    mcp_json_doc *doc = PARSE("[7.0,7e0,70e-1,0.7e1,7.5,1e-1,0e5,-0]");
    mcp_json *a = mcp_json_doc_root(doc);
    int64_t v;
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(mcp_json_get_int64(mcp_json_array_at(a, i), &v), MCP_OK);
        assert_int_equal(v, 7);
    }
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(a, 4), &v), MCP_ERR_JSON_TYPE);
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(a, 5), &v), MCP_ERR_JSON_TYPE);
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(a, 6), &v), MCP_OK);
    assert_int_equal(v, 0);
    uint64_t u = 1;
    assert_int_equal(mcp_json_get_uint64(mcp_json_array_at(a, 7), &u), MCP_OK);
    assert_int_equal(u, 0);
    mcp_json_doc_free(doc);
}

static void integer_readers_say_when_value_does_not_fit(void **state)
{
    mcp_json_doc *doc = PARSE("[-9223372036854775809,18446744073709551615,"
                              "18446744073709551616,-1,1e19,1e20,"
                              "92233720368547758.08e2]");
    mcp_json *a = mcp_json_doc_root(doc);
    int64_t i = 42;
    uint64_t u = 42;
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(a, 0), &i), MCP_ERR_JSON_RANGE);
    assert_int_equal(i, 42); /* untouched */
    assert_int_equal(mcp_json_get_uint64(mcp_json_array_at(a, 1), &u), MCP_OK);
    assert_true(u == UINT64_MAX);
    assert_int_equal(mcp_json_get_uint64(mcp_json_array_at(a, 2), &u), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_uint64(mcp_json_array_at(a, 3), &u), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_uint64(mcp_json_array_at(a, 4), &u), MCP_OK);
    assert_true(u == UINT64_C(10000000000000000000));
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(a, 4), &i), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_uint64(mcp_json_array_at(a, 5), &u), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(a, 6), &i), MCP_ERR_JSON_RANGE);
    mcp_json_doc_free(doc);
}

static void double_reader_says_when_value_does_not_fit(void **state)
{
    mcp_json_doc *doc = PARSE("[1e400,-1e400,1e-400,0e-400,5e-324,1.7976931348623157e308]");
    mcp_json *a = mcp_json_doc_root(doc);
    double d = 42;
    assert_int_equal(mcp_json_get_double(mcp_json_array_at(a, 0), &d), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_double(mcp_json_array_at(a, 1), &d), MCP_ERR_JSON_RANGE);
    assert_int_equal(mcp_json_get_double(mcp_json_array_at(a, 2), &d), MCP_ERR_JSON_RANGE);
    assert_true(d == 42);
    assert_int_equal(mcp_json_get_double(mcp_json_array_at(a, 3), &d), MCP_OK);
    assert_true(d == 0);
    assert_int_equal(mcp_json_get_double(mcp_json_array_at(a, 4), &d), MCP_OK);
    assert_true(d > 0);
    assert_int_equal(mcp_json_get_double(mcp_json_array_at(a, 5), &d), MCP_OK);
    mcp_json_doc_free(doc);
}

static void readers_report_type_mismatch(void **state)
{
    mcp_json_doc *doc = PARSE("[\"7\",true,null]");
    mcp_json *a = mcp_json_doc_root(doc);
    int64_t i;
    double d;
    bool b;
    assert_int_equal(mcp_json_get_int64(mcp_json_array_at(a, 0), &i), MCP_ERR_JSON_TYPE);
    assert_int_equal(mcp_json_get_double(mcp_json_array_at(a, 1), &d), MCP_ERR_JSON_TYPE);
    assert_int_equal(mcp_json_get_bool(mcp_json_array_at(a, 2), &b), MCP_ERR_JSON_TYPE);
    assert_null(mcp_json_string(mcp_json_array_at(a, 1), NULL));
    assert_null(mcp_json_number_text(mcp_json_array_at(a, 0), NULL));
    assert_int_equal(mcp_json_array_size(mcp_json_array_at(a, 0)), 0);
    mcp_json_doc_free(doc);
}

static void absent_values_chain_through_lookups(void **state)
{
    mcp_json_doc *doc = PARSE("{\"a\":{\"b\":1},\"s\":\"x\"}");
    mcp_json *root = mcp_json_doc_root(doc);
    assert_non_null(mcp_json_object_get(mcp_json_object_get(root, "a"), "b"));
    assert_null(mcp_json_object_get(mcp_json_object_get(root, "zz"), "b"));
    assert_null(mcp_json_object_get(mcp_json_object_get(root, "s"), "b"));
    assert_int_equal(mcp_json_typeof(NULL), MCP_JSON_ABSENT);
    assert_int_equal(mcp_json_object_size(NULL), 0);
    mcp_json_doc_free(doc);
}

static void objects_iterate_in_document_order(void **state)
{
    mcp_json_doc *doc = PARSE("{\"z\":1,\"a\":2,\"m\":3}");
    const char *keys[] = {"z", "a", "m"};
    for (size_t i = 0; i < 3; i++) {
        const char *k;
        size_t n;
        mcp_json *v = mcp_json_object_at(mcp_json_doc_root(doc), i, &k, &n);
        int64_t x;
        assert_string_equal(k, keys[i]);
        assert_int_equal(n, 1);
        assert_int_equal(mcp_json_get_int64(v, &x), MCP_OK);
        assert_int_equal(x, (int64_t)i + 1);
    }
    assert_null(mcp_json_object_at(mcp_json_doc_root(doc), 3, NULL, NULL));
    mcp_json_doc_free(doc);
}

static void large_objects_find_every_key(void **state)
{
    char text[4096] = "{";
    for (int i = 0; i < 200; i++)
        sprintf(text + strlen(text), "%s\"key%d\":%d", i ? "," : "", i, i);
    strcat(text, "}");
    mcp_json_doc *doc = parse_ok(text, strlen(text));
    for (int i = 0; i < 200; i++) {
        char k[16];
        sprintf(k, "key%d", i);
        int64_t v;
        assert_int_equal(mcp_json_get_int64(mcp_json_object_get(mcp_json_doc_root(doc), k), &v), MCP_OK);
        assert_int_equal(v, i);
    }
    assert_null(mcp_json_object_get(mcp_json_doc_root(doc), "key200"));
    mcp_json_doc_free(doc);
}

static void keys_with_nul_bytes_are_found_by_length(void **state)
{
    mcp_json_doc *doc = PARSE("{\"a\\u0000b\":1,\"a\":2}");
    int64_t v;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_getn(mcp_json_doc_root(doc), "a\0b", 3), &v), MCP_OK);
    assert_int_equal(v, 1);
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(mcp_json_doc_root(doc), "a"), &v), MCP_OK);
    assert_int_equal(v, 2);
    mcp_json_doc_free(doc);
}

/* Building and writing ---------------------------------------------------- */

static void builder_works_without_a_parse(void **state)
{
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    mcp_json *o = mcp_json_new_object(doc);
    mcp_json *a = mcp_json_new_array(doc);
    mcp_json_array_append(doc, a, mcp_json_new_int(doc, 1));
    mcp_json_array_append(doc, a, mcp_json_new_int(doc, INT64_MIN));
    mcp_json_array_append(doc, a, mcp_json_new_uint(doc, UINT64_MAX));
    mcp_json_array_append(doc, a, mcp_json_new_double(doc, 1.5));
    mcp_json_array_append(doc, a, mcp_json_new_bool(doc, true));
    mcp_json_array_append(doc, a, mcp_json_new_null(doc));
    mcp_json_array_append(doc, a, mcp_json_new_number_text(doc, "1e999", 5));
    mcp_json_object_set(doc, o, "s", mcp_json_new_stringn(doc, "x\ny\0", 4));
    mcp_json_object_set(doc, o, "n", a);
    assert_int_equal(mcp_json_doc_error(doc), MCP_OK);
    mcp_json_doc_set_root(doc, o);
    char *w = write_str(mcp_json_doc_root(doc));
    assert_string_equal(w, "{\"s\":\"x\\ny\\u0000\",\"n\":[1,-9223372036854775808,"
                           "18446744073709551615,1.5,true,null,1e999]}");
    free(w);
    mcp_json_doc_free(doc);
}

static void writer_escapes_every_control_character(void **state)
{
    char raw[32];
    for (int c = 0; c < 32; c++)
        raw[c] = (char)c;
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    mcp_json *s = mcp_json_new_stringn(doc, raw, 32);
    char *w = write_str(s);
    assert_null(strchr(w, '\n'));
    assert_null(strchr(w, '\r'));
    for (const char *p = w; *p; p++)
        assert_true((unsigned char)*p >= 0x20);
    assert_string_equal(w, "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007"
                           "\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012"
                           "\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a"
                           "\\u001b\\u001c\\u001d\\u001e\\u001f\"");
    /* And it reads back as the same 32 bytes. */
    mcp_json_doc *back = parse_ok(w, strlen(w));
    size_t n;
    assert_memory_equal(mcp_json_string(mcp_json_doc_root(back), &n), raw, 32);
    assert_int_equal(n, 32);
    mcp_json_doc_free(back);
    free(w);
    mcp_json_doc_free(doc);
}

static void writer_respects_the_buffer_cap(void **state)
{
    mcp_json_doc *doc = PARSE("{\"key\":\"a long enough value\"}");
    mcp_buf b;
    mcp_buf_init(&b, 16, NULL);
    assert_int_equal(mcp_buf_append(&b, "pre", 3), MCP_OK);
    assert_int_equal(mcp_json_write(mcp_json_doc_root(doc), &b), MCP_ERR_LIMIT);
    assert_int_equal(b.len, 3); /* nothing partial left behind */
    assert_string_equal(b.data, "pre");
    mcp_buf_free(&b);
    /* The exact boundary: 29 bytes fit a cap of 29, not of 28. */
    mcp_buf_init(&b, 28, NULL);
    assert_int_equal(mcp_json_write(mcp_json_doc_root(doc), &b), MCP_ERR_LIMIT);
    mcp_buf_free(&b);
    mcp_buf_init(&b, 29, NULL);
    assert_int_equal(mcp_json_write(mcp_json_doc_root(doc), &b), MCP_OK);
    assert_int_equal(b.len, 29);
    mcp_buf_free(&b);
    mcp_json_doc_free(doc);
}

static void doubles_are_written_in_shortest_round_trip_form(void **state)
{
    const double values[] = {0.1, 1.0 / 3, 1e300, -2.5e-300, 5e-324, 123456789.0,
                             9007199254740993.0, -0.0};
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        mcp_json *v = mcp_json_new_double(doc, values[i]);
        assert_non_null(v);
        size_t n;
        const char *text = mcp_json_number_text(v, &n);
        double back;
        mcp_json_doc *d = parse_ok(text, n);
        assert_int_equal(mcp_json_get_double(mcp_json_doc_root(d), &back), MCP_OK);
        assert_true(back == values[i]);
        assert_true(signbit(back) == signbit(values[i]));
        mcp_json_doc_free(d);
    }
    size_t n;
    assert_string_equal(mcp_json_number_text(mcp_json_new_double(doc, 0.1), &n), "0.1");
    assert_int_equal(mcp_json_doc_error(doc), MCP_OK);
    mcp_json_doc_free(doc);
}

static void non_finite_doubles_are_refused(void **state)
{
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    assert_null(mcp_json_new_double(doc, NAN));
    assert_int_equal(mcp_json_doc_error(doc), MCP_ERR_INVALID_ARG);
    assert_null(mcp_json_new_double(doc, INFINITY));
    mcp_json_doc_free(doc);
}

/* Switch LC_NUMERIC to a locale whose decimal separator is a comma. When
 * none is installed, compile de_DE into a scratch directory (LOCPATH). */
static char locale_dir[] = "/tmp/mcp-locale-XXXXXX";

static bool use_comma_locale(void)
{
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8"))
        return true;
    char *dir = mkdtemp(locale_dir);
    if (!dir)
        return false;
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
    if (system(cmd) != 0)
        return false;
    setenv("LOCPATH", dir, 1);
    return setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL;
}

static void numbers_ignore_the_program_locale(void **state)
{
    /* main made sure the locale can be had: here it must be. */
    assert_true(use_comma_locale());
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 2.5);
    assert_string_equal(probe, "2,5"); /* the locale is really in effect */
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    size_t n;
    assert_string_equal(mcp_json_number_text(mcp_json_new_double(doc, 2.5), &n), "2.5");
    mcp_json_doc *p = PARSE("2.5");
    double d;
    assert_int_equal(mcp_json_get_double(mcp_json_doc_root(p), &d), MCP_OK);
    assert_true(d == 2.5);
    setlocale(LC_NUMERIC, "C");
    mcp_json_doc_free(p);
    mcp_json_doc_free(doc);
    if (strchr(locale_dir, 'X') == NULL) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "rm -rf %s", locale_dir);
        assert_int_equal(system(cmd), 0);
    }
}

static void builder_rejects_invalid_utf8_and_bad_numbers(void **state)
{
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    assert_null(mcp_json_new_stringn(doc, "\xC0\xAF", 2));
    assert_int_equal(mcp_json_doc_error(doc), MCP_ERR_UTF8);
    mcp_json_doc_free(doc);
    doc = mcp_json_doc_new(NULL);
    assert_null(mcp_json_new_number_text(doc, "01", 2));
    assert_int_equal(mcp_json_doc_error(doc), MCP_ERR_JSON_NUMBER);
    mcp_json_doc_free(doc);
    doc = mcp_json_doc_new(NULL);
    mcp_json *o = mcp_json_new_object(doc);
    assert_int_equal(mcp_json_object_setn(doc, o, "\xFF", 1, mcp_json_new_null(doc)), MCP_ERR_UTF8);
    mcp_json_doc_free(doc);
}

static void builder_errors_are_sticky(void **state)
{
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    mcp_json *o = mcp_json_new_object(doc);
    /* A failed constructor passes NULL on: recorded, and the first error wins. */
    assert_int_equal(mcp_json_object_set(doc, o, "a", mcp_json_new_stringn(doc, "\xFF", 1)),
                     MCP_ERR_INVALID_ARG);
    mcp_json_object_set(doc, o, "b", mcp_json_new_int(doc, 1));
    assert_int_equal(mcp_json_doc_error(doc), MCP_ERR_UTF8);
    assert_int_equal(mcp_json_object_size(o), 1);
    assert_int_equal(mcp_json_array_append(doc, o, mcp_json_new_null(doc)), MCP_ERR_INVALID_ARG);
    mcp_json_doc_free(doc);
}

static void object_set_replaces_in_place(void **state)
{
    mcp_json_doc *doc = PARSE("{\"a\":1,\"b\":2}");
    mcp_json *root = mcp_json_doc_root(doc);
    assert_int_equal(mcp_json_object_set(doc, root, "a", mcp_json_new_string(doc, "x")), MCP_OK);
    assert_int_equal(mcp_json_object_set(doc, root, "c", mcp_json_new_int(doc, 3)), MCP_OK);
    char *w = write_str(root);
    assert_string_equal(w, "{\"a\":\"x\",\"b\":2,\"c\":3}");
    free(w);
    /* Growing a parsed object and array past their parsed size. */
    mcp_json_doc_free(doc);
    doc = mcp_json_doc_new(NULL);
    mcp_json *o = mcp_json_new_object(doc);
    for (int i = 0; i < 100; i++) {
        char k[8];
        sprintf(k, "k%d", i);
        assert_int_equal(mcp_json_object_set(doc, o, k, mcp_json_new_int(doc, i)), MCP_OK);
    }
    mcp_json_object_set(doc, o, "k50", mcp_json_new_int(doc, -1));
    assert_int_equal(mcp_json_object_size(o), 100);
    int64_t v;
    for (int i = 0; i < 100; i++) {
        char k[8];
        sprintf(k, "k%d", i);
        assert_int_equal(mcp_json_get_int64(mcp_json_object_get(o, k), &v), MCP_OK);
        assert_int_equal(v, i == 50 ? -1 : i);
    }
    mcp_json_doc_free(doc);
}

static void copy_is_deep_and_independent(void **state)
{
    const char *t = "{\"a\":[1,{\"b\":\"c\\u0000\"}],\"n\":1.5e300,\"big\":"
                    "{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,"
                    "\"k7\":7,\"k8\":8,\"k9\":9}}";
    mcp_json_doc *src = parse_ok(t, strlen(t));
    mcp_json_doc *dst = mcp_json_doc_new(NULL);
    mcp_json *c = mcp_json_copy(dst, mcp_json_doc_root(src));
    assert_non_null(c);
    assert_true(mcp_json_equal(c, mcp_json_doc_root(src)));
    char *before = write_str(mcp_json_doc_root(src));
    mcp_json_doc_free(src);
    char *after = write_str(c);
    assert_string_equal(before, after);
    int64_t v;
    assert_int_equal(mcp_json_get_int64(mcp_json_object_get(mcp_json_object_get(c, "big"), "k9"), &v), MCP_OK);
    assert_int_equal(v, 9);
    free(before);
    free(after);
    assert_null(mcp_json_copy(dst, NULL));
    assert_int_equal(mcp_json_doc_error(dst), MCP_OK);
    mcp_json_doc_free(dst);
}

static void equality_compares_numbers_by_exact_value(void **state)
{
    mcp_json_doc *doc = PARSE("[1,1.0,1e0,10e-1,0.1e1,2,0,-0,0.0e5,"
                              "123456789012345678901234567890,"
                              "1.23456789012345678901234567890e29,"
                              "123456789012345678901234567891]");
    mcp_json *a = mcp_json_doc_root(doc);
    for (size_t i = 1; i < 5; i++)
        assert_true(mcp_json_equal(mcp_json_array_at(a, 0), mcp_json_array_at(a, i)));
    assert_false(mcp_json_equal(mcp_json_array_at(a, 0), mcp_json_array_at(a, 5)));
    assert_true(mcp_json_equal(mcp_json_array_at(a, 6), mcp_json_array_at(a, 7)));
    assert_true(mcp_json_equal(mcp_json_array_at(a, 6), mcp_json_array_at(a, 8)));
    assert_true(mcp_json_equal(mcp_json_array_at(a, 9), mcp_json_array_at(a, 10)));
    assert_false(mcp_json_equal(mcp_json_array_at(a, 9), mcp_json_array_at(a, 11)));
    mcp_json_doc_free(doc);
}

static void equality_ignores_member_order_but_not_element_order(void **state)
{
    mcp_json_doc *a = PARSE("{\"x\":[1,2],\"y\":{\"p\":null}}");
    mcp_json_doc *b = PARSE("{\"y\":{\"p\":null},\"x\":[1,2]}");
    mcp_json_doc *c = PARSE("{\"y\":{\"p\":null},\"x\":[2,1]}");
    mcp_json_doc *d = PARSE("{\"y\":{\"q\":null},\"x\":[1,2]}");
    assert_true(mcp_json_equal(mcp_json_doc_root(a), mcp_json_doc_root(b)));
    assert_false(mcp_json_equal(mcp_json_doc_root(a), mcp_json_doc_root(c)));
    assert_false(mcp_json_equal(mcp_json_doc_root(a), mcp_json_doc_root(d)));
    assert_true(mcp_json_equal(NULL, NULL));
    assert_false(mcp_json_equal(mcp_json_doc_root(a), NULL));
    mcp_json_doc_free(a);
    mcp_json_doc_free(b);
    mcp_json_doc_free(c);
    mcp_json_doc_free(d);
}

static void deep_built_documents_are_written_copied_and_compared(void **state)
{
    /* No recursion anywhere: 100,000 levels built by hand. */
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    mcp_json *root = mcp_json_new_array(doc), *cur = root;
    for (int i = 0; i < 100000; i++) {
        mcp_json *next = mcp_json_new_array(doc);
        mcp_json_array_append(doc, cur, next);
        cur = next;
    }
    char *w = write_str(root);
    assert_int_equal(strlen(w), 200002);
    mcp_json_doc *other = mcp_json_doc_new(NULL);
    mcp_json *copy = mcp_json_copy(other, root);
    assert_true(mcp_json_equal(root, copy));
    mcp_json_array_append(other, cur == root ? copy : mcp_json_array_at(copy, 0),
                          mcp_json_new_null(other));
    assert_false(mcp_json_equal(root, copy));
    free(w);
    mcp_json_doc_free(other);
    mcp_json_doc_free(doc);
}

static void parse_write_parse_gives_an_equal_value(void **state)
{
    const char *samples[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"x\","
        "\"arguments\":{\"s\":\"\\u00e9\\t\\\"q\\\"\",\"n\":-1.25e-7,\"a\":[true,false,null]}}}",
        "[\"\\ud834\\udd1e\",\"\\/\",[],{},[[[[]]]],-0.0,1E+2]",
    };
    for (size_t i = 0; i < 2; i++) {
        mcp_json_doc *a = parse_ok(samples[i], strlen(samples[i]));
        char *w = write_str(mcp_json_doc_root(a));
        mcp_json_doc *b = parse_ok(w, strlen(w));
        assert_true(mcp_json_equal(mcp_json_doc_root(a), mcp_json_doc_root(b)));
        char *w2 = write_str(mcp_json_doc_root(b));
        assert_string_equal(w, w2); /* the writer is a fixed point */
        free(w);
        free(w2);
        mcp_json_doc_free(a);
        mcp_json_doc_free(b);
    }
}

static void utf8_validator_reports_the_first_bad_byte(void **state)
{
    size_t at = 99;
    assert_int_equal(mcp_utf8_validate("plain ascii text here", 21, &at), MCP_OK);
    assert_int_equal(mcp_utf8_validate("0123456789\xE2\x82", 12, &at), MCP_ERR_UTF8);
    assert_int_equal(at, 10);
    assert_int_equal(mcp_utf8_validate("\xF0\x9F\x98\x80ok", 6, &at), MCP_OK);
}

/* Allocation failures ------------------------------------------------------ */

static void parse_survives_every_allocation_failure(void **state)
{
    /* Wide and deep enough to need heap scratch and frame stacks. */
    char text[8192];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        text[n++] = '[';
    text[n++] = '{';
    for (int i = 0; i < 100; i++)
        n += (size_t)sprintf(text + n, "%s\"k%d\":[%d,\"s\\n\"]", i ? "," : "", i, i);
    text[n++] = '}';
    for (int i = 0; i < 40; i++)
        text[n++] = ']';
    bool succeeded = false;
    for (long k = 1; k < 1000 && !succeeded; k++) {
        failmalloc fm;
        failmalloc_init(&fm, k);
        mcp_json_doc *doc;
        mcp_json_error err;
        int rc = mcp_json_parse(text, n, NULL, &fm.mem, &doc, &err);
        if (rc == MCP_OK) {
            assert_false(fm.failed);
            mcp_json_doc_free(doc);
            succeeded = true;
        } else {
            assert_int_equal(rc, MCP_ERR_NOMEM);
            assert_null(doc);
        }
        assert_int_equal(fm.live, 0);
    }
    assert_true(succeeded);
}

static void building_and_writing_survive_every_allocation_failure(void **state)
{
    bool succeeded = false;
    for (long k = 1; k < 1000 && !succeeded; k++) {
        failmalloc fm;
        failmalloc_init(&fm, k);
        mcp_json_doc *doc = mcp_json_doc_new(&fm.mem);
        int rc = MCP_ERR_NOMEM;
        if (doc) {
            mcp_json *o = mcp_json_new_object(doc);
            for (int i = 0; i < 50; i++) {
                char key[8];
                sprintf(key, "k%d", i);
                mcp_json_object_set(doc, o, key, mcp_json_new_string(doc, "value value value"));
            }
            mcp_json *copy = mcp_json_copy(doc, o);
            rc = mcp_json_doc_error(doc);
            if (rc == MCP_OK) {
                mcp_buf b;
                mcp_buf_init(&b, 0, &fm.mem);
                rc = mcp_json_write(copy, &b);
                if (rc == MCP_OK)
                    assert_true(b.len > 50 * 20);
                else
                    assert_int_equal(b.len, 0);
                mcp_buf_free(&b);
            }
            mcp_json_doc_free(doc);
        }
        if (rc == MCP_OK)
            succeeded = true;
        else
            assert_int_equal(rc, MCP_ERR_NOMEM);
        assert_int_equal(fm.live, 0);
    }
    assert_true(succeeded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_every_value_type),
        cmocka_unit_test(scalar_documents_are_accepted),
        cmocka_unit_test(int64_max_and_min_are_exact),
        cmocka_unit_test(two_pow_53_plus_one_is_exact),
        cmocka_unit_test(int64_max_plus_one_round_trips_unchanged),
        cmocka_unit_test(thirty_digit_integer_round_trips_unchanged),
        cmocka_unit_test(decimal_point_one_round_trips),
        cmocka_unit_test(real_precision_is_never_lost),
        cmocka_unit_test(string_with_escaped_nul_has_length_three),
        cmocka_unit_test(escapes_decode_to_their_characters),
        cmocka_unit_test(valid_multibyte_utf8_is_accepted),
        cmocka_unit_test(invalid_utf8_is_rejected),
        cmocka_unit_test(invalid_utf8_reason_is_named),
        cmocka_unit_test(lone_and_mismatched_surrogate_escapes_are_rejected),
        cmocka_unit_test(bad_escapes_are_rejected),
        cmocka_unit_test(raw_control_characters_in_strings_are_rejected),
        cmocka_unit_test(trailing_garbage_is_rejected),
        cmocka_unit_test(nan_and_infinity_are_rejected),
        cmocka_unit_test(comments_are_rejected),
        cmocka_unit_test(trailing_commas_are_rejected),
        cmocka_unit_test(leading_zeros_are_rejected),
        cmocka_unit_test(malformed_numbers_are_rejected),
        cmocka_unit_test(byte_order_mark_is_rejected),
        cmocka_unit_test(empty_document_is_rejected),
        cmocka_unit_test(unterminated_values_are_rejected),
        cmocka_unit_test(nesting_deeper_than_default_limit_is_rejected),
        cmocka_unit_test(nesting_limit_is_configurable),
        cmocka_unit_test(documents_larger_than_limit_are_rejected),
        cmocka_unit_test(duplicate_keys_are_rejected_by_default),
        cmocka_unit_test(duplicate_keys_last_wins_when_asked),
        cmocka_unit_test(integer_readers_accept_integral_numbers_only),
        cmocka_unit_test(integer_readers_say_when_value_does_not_fit),
        cmocka_unit_test(double_reader_says_when_value_does_not_fit),
        cmocka_unit_test(readers_report_type_mismatch),
        cmocka_unit_test(absent_values_chain_through_lookups),
        cmocka_unit_test(objects_iterate_in_document_order),
        cmocka_unit_test(large_objects_find_every_key),
        cmocka_unit_test(keys_with_nul_bytes_are_found_by_length),
        cmocka_unit_test(builder_works_without_a_parse),
        cmocka_unit_test(writer_escapes_every_control_character),
        cmocka_unit_test(writer_respects_the_buffer_cap),
        cmocka_unit_test(doubles_are_written_in_shortest_round_trip_form),
        cmocka_unit_test(non_finite_doubles_are_refused),
        cmocka_unit_test(numbers_ignore_the_program_locale),
        cmocka_unit_test(builder_rejects_invalid_utf8_and_bad_numbers),
        cmocka_unit_test(builder_errors_are_sticky),
        cmocka_unit_test(object_set_replaces_in_place),
        cmocka_unit_test(copy_is_deep_and_independent),
        cmocka_unit_test(equality_compares_numbers_by_exact_value),
        cmocka_unit_test(equality_ignores_member_order_but_not_element_order),
        cmocka_unit_test(deep_built_documents_are_written_copied_and_compared),
        cmocka_unit_test(parse_write_parse_gives_an_equal_value),
        cmocka_unit_test(utf8_validator_reports_the_first_bad_byte),
        cmocka_unit_test(parse_survives_every_allocation_failure),
        cmocka_unit_test(building_and_writing_survive_every_allocation_failure),
    };
    /* The comma-decimal locale, or the locale case cannot run: checked
     * before any case runs, so its absence fails the test (package
     * "locales"), never passes one case as skipped. */
    if (!use_comma_locale())
        return test_missing("no de_DE.UTF-8 locale, nor localedef and its sources (package locales)");
    setlocale(LC_NUMERIC, "C");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
