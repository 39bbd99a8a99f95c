/* SPDX-License-Identifier: MIT */
/* Unit tests for tools/mcp/form_field.c: one field of a form filled in on
 * the terminal, its hint and the checks of what the user typed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "form_field.h"

static mcp_json_doc *parse(const char *json)
{
    mcp_json_doc *d = NULL;
    assert_int_equal(mcp_json_parse(json, strlen(json), NULL, NULL, &d, NULL), MCP_OK);
    return d;
}

/* The hint of the field whose schema is json, as a C string in out. */
static const char *hint_of(mcp_buf *out, const char *json)
{
    mcp_json_doc *p = parse(json);
    mcp_buf_reset(out);
    form_field_hint(out, mcp_json_doc_root(p));
    mcp_buf_append(out, "", 1);
    mcp_json_doc_free(p);
    return out->data;
}

static void hints_name_what_to_type(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_string_equal(hint_of(&b, "{\"type\":\"boolean\"}"), "y/n");
    assert_string_equal(hint_of(&b, "{\"type\":\"integer\"}"), "integer");
    assert_string_equal(hint_of(&b, "{\"type\":\"string\",\"format\":\"email\"}"),
                        "email address, like name@example.com");
    assert_string_equal(hint_of(&b, "{\"type\":\"string\",\"format\":\"date-time\"}"),
                        "date and time, like 2025-12-31T23:59:00Z");
    /* A format mcp does not check is an annotation: the type. */
    assert_string_equal(hint_of(&b, "{\"type\":\"string\",\"format\":\"ipv4\"}"), "string");
    assert_string_equal(hint_of(&b, "{\"type\":\"string\",\"enum\":[\"a\",\"b\"]}"),
                        "one of: a, b");
    /* The legacy enumNames, beside the values they name. */
    assert_string_equal(hint_of(&b, "{\"type\":\"string\",\"enum\":[\"s\",\"l\"],"
                                    "\"enumNames\":[\"Small\",\"Large\"]}"),
                        "one of: s (Small), l (Large)");
    /* ... but not when they do not pair up with the values. */
    assert_string_equal(hint_of(&b, "{\"type\":\"string\",\"enum\":[\"s\",\"l\"],"
                                    "\"enumNames\":[\"Small\"]}"),
                        "one of: s, l");
    assert_string_equal(hint_of(&b, "{\"type\":\"string\",\"oneOf\":[{\"const\":\"#f00\","
                                    "\"title\":\"Red\"},{\"const\":\"#0f0\",\"title\":\"Gr\\u001b[2Jeen\"}]}"),
                        "one of: #f00 (Red), #0f0 (Gr\\x1b[2Jeen)");
    assert_string_equal(hint_of(&b, "{\"type\":\"array\",\"items\":{\"anyOf\":[{\"const\":\"a\","
                                    "\"title\":\"A\"},{\"const\":\"b\",\"title\":\"B\"}]}}"),
                        "any of: a (A), b (B)");
    mcp_buf_free(&b);
}

/* Type text into the field json: NULL and why, or the value as JSON in
 * value. */
static bool typed(const char *json, const char *text, mcp_buf *value, mcp_buf *why)
{
    mcp_json_doc *p = parse(json);
    mcp_schema *checker = NULL;
    assert_int_equal(mcp_schema_compile(mcp_json_doc_root(p), NULL, &checker, NULL, 0), MCP_OK);
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *v = form_field_value(d, mcp_json_doc_root(p), checker, text, why);
    mcp_buf_reset(value);
    if (v)
        assert_int_equal(mcp_json_write(v, value), MCP_OK);
    else
        assert_true(why->len > 0);
    mcp_json_doc_free(d);
    mcp_schema_free(checker);
    mcp_json_doc_free(p);
    return v != NULL;
}

#define ACCEPTS(schema, text, json)                                                             \
    do {                                                                                        \
        assert_true(typed(schema, text, &value, &why));                                         \
        assert_int_equal(value.len, strlen(json));                                              \
        assert_memory_equal(value.data, json, value.len);                                       \
    } while (0)
#define REFUSES(schema, text, message)                                                          \
    do {                                                                                        \
        assert_false(typed(schema, text, &value, &why));                                        \
        assert_string_equal(why.data, message);                                                 \
    } while (0)

/* Each format mcp checks: what it takes (value: the JSON made) and what
 * it refuses (value NULL: why says so). */
static void formats_are_checked(void **state)
{
#define EMAIL "{\"type\":\"string\",\"format\":\"email\"}"
#define URI "{\"type\":\"string\",\"format\":\"uri\"}"
#define DATE "{\"type\":\"string\",\"format\":\"date\"}"
#define WHEN "{\"type\":\"string\",\"format\":\"date-time\"}"
#define NO_EMAIL "not an email address: type one like name@example.com"
#define NO_URI "not a URI: type one like https://example.com/page"
#define NO_DATE "not a date: type one like 2025-12-31"
#define NO_WHEN "not a date and time: type one like 2025-12-31T23:59:00Z"
    static const struct {
        const char *schema, *text, *value, *why;
    } cases[] = {
        {EMAIL, "me@example.com", "\"me@example.com\"", NULL},
        {EMAIL, "me", NULL, NO_EMAIL},
        {EMAIL, "@example.com", NULL, NO_EMAIL},
        {EMAIL, "me@localhost", NULL, NO_EMAIL},
        {EMAIL, "me@exa..mple.com", NULL, NO_EMAIL},
        {EMAIL, "me@x@example.com", NULL, NO_EMAIL},
        {EMAIL, "me @example.com", NULL, NO_EMAIL},
        /* Letters beyond ASCII are an address's (RFC 6531); a C1 or a
         * bidirectional control is not (it was taken). */
        {EMAIL, "jos\xc3\xa9@example.com", "\"jos\xc3\xa9@example.com\"", NULL},
        {EMAIL, "me\xc2\x85@example.com", NULL, NO_EMAIL},
        {EMAIL, "me@exa\xe2\x80\xaemple.com", NULL, NO_EMAIL},
        {EMAIL, "me\xe2\x81\xa6@example.com", NULL, NO_EMAIL},
        {URI, "https://example.com/a?b", "\"https://example.com/a?b\"", NULL},
        {URI, "urn:isbn:0451450523", "\"urn:isbn:0451450523\"", NULL},
        {URI, "example.com", NULL, NO_URI},
        {URI, "1http://example.com", NULL, NO_URI},
        {URI, "https://exa mple.com", NULL, NO_URI},
        {URI, "https:", NULL, NO_URI},
        {URI, "https://example.com/\xe2\x80\xae" "fdp.exe", NULL, NO_URI},
        {URI, "https://example.com/\xc2\x9b" "1m", NULL, NO_URI},
        {DATE, "2024-02-29", "\"2024-02-29\"", NULL},
        {DATE, "2000-02-29", "\"2000-02-29\"", NULL},
        {DATE, "2025-02-29", NULL, NO_DATE},
        {DATE, "1900-02-29", NULL, NO_DATE},
        {DATE, "2025-04-31", NULL, NO_DATE},
        {DATE, "2025-13-01", NULL, NO_DATE},
        {DATE, "2025-1-01", NULL, NO_DATE},
        {DATE, "2025-01-01T00:00:00Z", NULL, NO_DATE},
        {WHEN, "2025-12-31T23:59:60Z", "\"2025-12-31T23:59:60Z\"", NULL},
        /* A leap second is the last second of a UTC day, whatever the
         * offset (it was taken at any hour). */
        {WHEN, "2026-01-01T01:29:60+01:30", "\"2026-01-01T01:29:60+01:30\"", NULL},
        {WHEN, "2025-12-31T18:59:60-05:00", "\"2025-12-31T18:59:60-05:00\"", NULL},
        {WHEN, "2025-12-31T22:59:60Z", NULL, NO_WHEN},
        {WHEN, "2025-12-31T23:58:60Z", NULL, NO_WHEN},
        {WHEN, "2025-12-31T23:59:60+01:00", NULL, NO_WHEN},
        {WHEN, "2025-12-31T12:00:60.5Z", NULL, NO_WHEN},
        {WHEN, "2025-12-31t08:00:00.125+05:30", "\"2025-12-31t08:00:00.125+05:30\"", NULL},
        {WHEN, "2025-12-31", NULL, NO_WHEN},
        {WHEN, "2025-12-31T24:00:00Z", NULL, NO_WHEN},
        {WHEN, "2025-12-31T23:59:00", NULL, NO_WHEN},
        {WHEN, "2025-12-31T23:59:00.Z", NULL, NO_WHEN},
        {WHEN, "2025-12-31 23:59:00Z", NULL, NO_WHEN},
        {WHEN, "2025-12-31T23:59:00+5:30", NULL, NO_WHEN},
        /* A format mcp does not know: no check. */
        {"{\"type\":\"string\",\"format\":\"hostname\"}", "not a host!", "\"not a host!\"", NULL},
    };
    mcp_buf value, why;
    mcp_buf_init(&value, 0, NULL);
    mcp_buf_init(&why, 0, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].value)
            ACCEPTS(cases[i].schema, cases[i].text, cases[i].value);
        else
            REFUSES(cases[i].schema, cases[i].text, cases[i].why);
    }
    mcp_buf_free(&value);
    mcp_buf_free(&why);
}

static void numbers_say_what_they_take(void **state)
{
    mcp_buf value, why;
    mcp_buf_init(&value, 0, NULL);
    mcp_buf_init(&why, 0, NULL);
    const char *integer = "{\"type\":\"integer\",\"minimum\":1}";
    ACCEPTS(integer, "42", "42");
    ACCEPTS(integer, "2.0", "2.0"); /* 2020-12: a whole number, whatever its spelling */
    REFUSES(integer, "2.5", "type a whole number, like 42");
    REFUSES(integer, "many", "type a whole number, like 42");
    REFUSES(integer, "0", "must be >= 1 (minimum)");
    const char *number = "{\"type\":\"number\"}";
    ACCEPTS(number, "2.5", "2.5");
    REFUSES(number, "two", "type a number, like 42 or 2.5");
    REFUSES("{\"type\":\"boolean\"}", "maybe", "answer y or n");
    ACCEPTS("{\"type\":\"boolean\"}", "yes", "true");
    mcp_buf_free(&value);
    mcp_buf_free(&why);
}

static void a_wrong_choice_names_the_choices(void **state)
{
    mcp_buf value, why;
    mcp_buf_init(&value, 0, NULL);
    mcp_buf_init(&why, 0, NULL);
    const char *titled = "{\"type\":\"string\",\"oneOf\":[{\"const\":\"#f00\",\"title\":\"Red\"},"
                         "{\"const\":\"#0f0\",\"title\":\"Green\"},{\"const\":\"#00f\",\"title\":\"Blue\"}]}";
    ACCEPTS(titled, "#0f0", "\"#0f0\"");
    REFUSES(titled, "purple", "choose one of: #f00 (Red), #0f0 (Green), #00f (Blue)");
    const char *named = "{\"type\":\"string\",\"enum\":[\"s\",\"l\"],\"enumNames\":[\"Small\",\"Large\"]}";
    REFUSES(named, "Small", "choose one of: s (Small), l (Large)");
    const char *multi = "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"a\",\"b\"]}}";
    ACCEPTS(multi, " a, b ", "[\"a\",\"b\"]");
    REFUSES(multi, "a, c", "choose any of: a, b");
    /* Other rules keep their own words. */
    REFUSES("{\"type\":\"string\",\"maxLength\":2}", "abc",
            "must have at most 2 characters (maxLength)");
    mcp_buf_free(&value);
    mcp_buf_free(&why);
}

/* A value given otherwise (the server's default) is checked as a typed one. */
static void defaults_are_checked(void **state)
{
    static const struct {
        const char *schema, *value, *why;
    } cases[] = {
        {"{\"type\":\"string\",\"format\":\"email\"}", "\"me@example.com\"", NULL},
        {"{\"type\":\"string\",\"format\":\"email\"}", "\"not-an-email\"",
         "not an email address: type one like name@example.com"},
        {"{\"type\":\"string\",\"format\":\"email\"}", "\"me@example.com\\u0000x\"",
         "not an email address: type one like name@example.com"},
        {"{\"type\":\"string\",\"format\":\"date\"}", "20250101",
         "not a date: type one like 2025-12-31"},
        {"{\"type\":\"integer\"}", "7", NULL},
        {"{\"type\":\"integer\"}", "\"many\"", "must be integer, not a string (type)"},
        {"{\"type\":\"string\",\"enum\":[\"a\",\"b\"]}", "\"c\"", "choose one of: a, b"},
    };
    mcp_buf why;
    mcp_buf_init(&why, 0, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mcp_json_doc *p = parse(cases[i].schema), *v = parse(cases[i].value);
        mcp_schema *checker = NULL;
        assert_int_equal(mcp_schema_compile(mcp_json_doc_root(p), NULL, &checker, NULL, 0), MCP_OK);
        bool ok = form_field_fits(mcp_json_doc_root(p), checker, mcp_json_doc_root(v), &why);
        assert_int_equal(ok, cases[i].why == NULL);
        if (cases[i].why) {
            mcp_buf_append(&why, "", 1);
            assert_string_equal(why.data, cases[i].why);
        }
        mcp_schema_free(checker);
        mcp_json_doc_free(p);
        mcp_json_doc_free(v);
    }
    mcp_buf_free(&why);
}

/* A list of choices too long to read is shown up to 100, the rest counted
 * (a server's 200,000 choices made each prompt a line of 2 MB). */
static void a_long_list_of_choices_is_counted(void **state)
{
    mcp_buf schema, b, value, why;
    mcp_buf_init(&schema, 0, NULL);
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_init(&value, 0, NULL);
    mcp_buf_init(&why, 0, NULL);
    const char *head = "{\"type\":\"string\",\"enum\":[";
    mcp_buf_append(&schema, head, strlen(head));
    for (int i = 0; i < 150; i++) {
        char v[16];
        int n = snprintf(v, sizeof v, "%s\"v%d\"", i ? "," : "", i);
        mcp_buf_append(&schema, v, (size_t)n);
    }
    mcp_buf_append(&schema, "]}", 3); /* with the NUL */
    const char *hint = hint_of(&b, schema.data);
    assert_int_equal(strncmp(hint, "one of: v0, v1, v2,", 19), 0);
    assert_non_null(strstr(hint, ", v99, ... and 50 more"));
    assert_null(strstr(hint, "v100"));
    ACCEPTS(schema.data, "v149", "\"v149\"");
    assert_false(typed(schema.data, "v150", &value, &why));
    assert_non_null(strstr((const char *)why.data, ", v99, ... and 50 more"));
    mcp_buf_free(&schema);
    mcp_buf_free(&b);
    mcp_buf_free(&value);
    mcp_buf_free(&why);
}

static void askable_fields(void **state)
{
    static const struct {
        const char *schema;
        bool askable;
    } cases[] = {
        {"{\"type\":\"string\"}", true},
        {"{\"type\":\"integer\"}", true},
        {"{\"type\":\"array\",\"items\":{\"enum\":[\"a\"]}}", true},
        {"{\"type\":\"array\",\"items\":{\"type\":\"string\"}}", false},
        {"{\"type\":\"object\"}", false},
        {"{}", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mcp_json_doc *p = parse(cases[i].schema);
        assert_int_equal(form_field_askable(mcp_json_doc_root(p)), cases[i].askable);
        mcp_json_doc_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hints_name_what_to_type),
        cmocka_unit_test(formats_are_checked),
        cmocka_unit_test(numbers_say_what_they_take),
        cmocka_unit_test(a_wrong_choice_names_the_choices),
        cmocka_unit_test(a_long_list_of_choices_is_counted),
        cmocka_unit_test(defaults_are_checked),
        cmocka_unit_test(askable_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
