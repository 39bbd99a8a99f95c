/* SPDX-License-Identifier: MIT */
/*
 * JSON Schema, what the draft7 suite (test_schema_suite) does not cover:
 * the 2020-12 keywords (prefixItems, $defs, $anchor, dependentRequired,
 * dependentSchemas, minContains/maxContains, unevaluatedProperties and
 * unevaluatedItems through applicators), the error's path and keyword,
 * refusals of bad schemas, remote references, a $ref loop, ECMA-262 `$`,
 * and that uniqueItems on a long array is not quadratic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"

static mcp_json_doc *parse(const char *text)
{
    mcp_json_doc *d = NULL;
    if (mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL) != MCP_OK)
        fail_msg("test JSON does not parse: %s", text);
    return d;
}

static mcp_schema *compile(const char *text)
{
    mcp_json_doc *d = parse(text);
    mcp_schema *s = NULL;
    char why[200];
    int rc = mcp_schema_compile(mcp_json_doc_root(d), NULL, &s, why, sizeof why);
    mcp_json_doc_free(d); /* the schema keeps its own copy */
    if (rc != MCP_OK)
        fail_msg("schema refused (%s): %s", why, text);
    return s;
}

/* MCP_OK or the error of validating instance, with err filled. */
static int run(const mcp_schema *s, const char *instance, mcp_schema_error *err)
{
    mcp_json_doc *d = parse(instance);
    int rc = mcp_schema_validate(s, mcp_json_doc_root(d), err);
    mcp_json_doc_free(d);
    return rc;
}

static void valid(const mcp_schema *s, const char *instance)
{
    mcp_schema_error err;
    int rc = run(s, instance, &err);
    if (rc != MCP_OK)
        fail_msg("%s should be valid: %s at '%s': %s", instance, err.keyword, err.instance_path,
                 err.message);
}

static void invalid(const mcp_schema *s, const char *instance, const char *path,
                    const char *keyword)
{
    mcp_schema_error err;
    int rc = run(s, instance, &err);
    if (rc != MCP_ERR_SCHEMA_MISMATCH)
        fail_msg("%s should be invalid (%s at '%s'), got %s", instance, keyword, path,
                 mcp_strerror(rc));
    assert_string_equal(err.instance_path, path);
    assert_string_equal(err.keyword, keyword);
    assert_true(err.message[0] != '\0');
}

static void prefix_items_and_items_after_them(void **state)
{
    mcp_schema *s = compile("{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],"
                            "\"items\":false}");
    valid(s, "[\"a\",1]");
    valid(s, "[\"a\"]");
    invalid(s, "[\"a\",\"b\"]", "/1", "type");
    invalid(s, "[\"a\",1,true]", "/2", "false");
    mcp_schema_free(s);
}

static void defs_anchor_and_ref_with_siblings(void **state)
{
    /* 2020-12: $ref's siblings apply (draft-07 ignored them). */
    mcp_schema *s = compile("{\"$defs\":{\"pos\":{\"$anchor\":\"positive\",\"minimum\":1}},"
                            "\"properties\":{\"a\":{\"$ref\":\"#/$defs/pos\",\"maximum\":9},"
                            "\"b\":{\"$ref\":\"#positive\"}}}");
    valid(s, "{\"a\":5,\"b\":100}");
    invalid(s, "{\"a\":0}", "/a", "minimum");
    invalid(s, "{\"a\":10}", "/a", "maximum");
    invalid(s, "{\"b\":0}", "/b", "minimum");
    mcp_schema_free(s);
}

static void dependent_required_and_dependent_schemas(void **state)
{
    mcp_schema *s = compile("{\"dependentRequired\":{\"card\":[\"billing\"]},"
                            "\"dependentSchemas\":{\"vip\":{\"required\":[\"level\"]}}}");
    valid(s, "{}");
    valid(s, "{\"card\":1,\"billing\":2}");
    invalid(s, "{\"card\":1}", "", "dependentRequired");
    invalid(s, "{\"vip\":true}", "", "required");
    mcp_schema_free(s);
}

static void min_and_max_contains(void **state)
{
    mcp_schema *s = compile("{\"contains\":{\"const\":1},\"minContains\":2,\"maxContains\":3}");
    valid(s, "[1,1,2]");
    invalid(s, "[1,2]", "", "minContains");
    invalid(s, "[1,1,1,1]", "", "maxContains");
    mcp_schema_free(s);
    s = compile("{\"contains\":{\"const\":1},\"minContains\":0}");
    valid(s, "[]"); /* 0: contains cannot fail */
    mcp_schema_free(s);
}

static void unevaluated_properties_see_through_applicators(void **state)
{
    mcp_schema *s = compile(
        "{\"properties\":{\"kind\":{}},"
        "\"allOf\":[{\"properties\":{\"a\":{}}}],"
        "\"anyOf\":[{\"properties\":{\"b\":{\"const\":1}},\"required\":[\"b\"]},{\"required\":[\"c\"],"
        "\"properties\":{\"c\":{}}}],"
        "\"if\":{\"properties\":{\"kind\":{\"const\":\"x\"}}},\"then\":{\"properties\":{\"x\":{}}},"
        "\"unevaluatedProperties\":false}");
    valid(s, "{\"kind\":\"x\",\"a\":1,\"b\":1,\"x\":0}");
    valid(s, "{\"c\":1}");
    /* b failed its anyOf branch: not evaluated, though c's branch passed. */
    invalid(s, "{\"c\":1,\"b\":2}", "/b", "unevaluatedProperties");
    /* if failed: then's x not evaluated. */
    invalid(s, "{\"c\":1,\"kind\":\"y\",\"x\":0}", "/x", "unevaluatedProperties");
    mcp_schema_free(s);
    /* Through $ref, and nested: the inner one sees only its own. */
    s = compile("{\"$defs\":{\"base\":{\"properties\":{\"id\":{}}}},\"$ref\":\"#/$defs/base\","
                "\"properties\":{\"inner\":{\"unevaluatedProperties\":false}},"
                "\"unevaluatedProperties\":false}");
    valid(s, "{\"id\":1,\"inner\":{}}");
    invalid(s, "{\"id\":1,\"inner\":{\"id\":2}}", "/inner/id", "unevaluatedProperties");
    invalid(s, "{\"other\":1}", "/other", "unevaluatedProperties");
    mcp_schema_free(s);
}

static void unevaluated_items_after_prefix_and_contains(void **state)
{
    mcp_schema *s = compile("{\"prefixItems\":[{\"type\":\"string\"}],"
                            "\"contains\":{\"type\":\"boolean\"},\"unevaluatedItems\":{\"type\":\"null\"}}");
    valid(s, "[\"a\",true,null,false]");
    invalid(s, "[\"a\",true,3]", "/2", "type");
    mcp_schema_free(s);
    s = compile("{\"oneOf\":[{\"prefixItems\":[true,true]},{\"prefixItems\":[{\"const\":0}]}],"
                "\"unevaluatedItems\":false}");
    valid(s, "[1,2]");
    invalid(s, "[1,2,3]", "/2", "unevaluatedItems");
    mcp_schema_free(s);
}

static void the_error_names_path_keyword_and_limit(void **state)
{
    mcp_schema *s = compile("{\"type\":\"object\",\"properties\":{\"user\":{\"type\":\"object\","
                            "\"properties\":{\"age\":{\"type\":\"integer\",\"minimum\":18},"
                            "\"a/b~c\":{\"type\":\"string\"}},\"required\":[\"age\"]}}}");
    mcp_schema_error err;
    assert_int_equal(run(s, "{\"user\":{\"age\":3}}", &err), MCP_ERR_SCHEMA_MISMATCH);
    assert_string_equal(err.instance_path, "/user/age");
    assert_string_equal(err.keyword, "minimum");
    assert_non_null(strstr(err.message, "18"));
    invalid(s, "{\"user\":{}}", "/user", "required");
    invalid(s, "{\"user\":{\"age\":18.5}}", "/user/age", "type");
    invalid(s, "{\"user\":{\"age\":20,\"a/b~c\":1}}", "/user/a~1b~0c", "type"); /* RFC 6901 */
    invalid(s, "[]", "", "type");
    valid(s, "{\"user\":{\"age\":18.0}}"); /* 18.0 is an integer */
    mcp_schema_free(s);
}

static void bad_schemas_are_refused_with_a_reason(void **state)
{
    static const char *const bad[] = {
        "5", "{\"type\":\"text\"}", "{\"minimum\":\"1\"}", "{\"minLength\":-1}",
        "{\"required\":[1]}", "{\"pattern\":\"(\"}", "{\"properties\":[]}",
        "{\"$ref\":\"#/$defs/nothing\"}", "{\"allOf\":[]}", "{\"multipleOf\":0}",
        "{\"items\":5}", "{\"enum\":3}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mcp_json_doc *d = parse(bad[i]);
        mcp_schema *s = NULL;
        char why[200] = "";
        int rc = mcp_schema_compile(mcp_json_doc_root(d), NULL, &s, why, sizeof why);
        mcp_json_doc_free(d);
        if (rc != MCP_ERR_SCHEMA)
            fail_msg("%s: %s, expected MCP_ERR_SCHEMA", bad[i], mcp_strerror(rc));
        assert_null(s);
        assert_true(why[0] != '\0');
    }
}

static void a_remote_reference_is_refused_not_fetched(void **state)
{
    mcp_json_doc *d = parse("{\"$ref\":\"https://example.com/schema.json\"}");
    mcp_schema *s = NULL;
    assert_int_equal(mcp_schema_compile(mcp_json_doc_root(d), NULL, &s, NULL, 0),
                     MCP_ERR_SCHEMA_REMOTE);
    mcp_json_doc_free(d);
    /* The same URI as the document's own $id is no remote. */
    s = compile("{\"$id\":\"https://example.com/s.json\",\"$defs\":{\"n\":{\"type\":\"null\"}},"
                "\"properties\":{\"x\":{\"$ref\":\"https://example.com/s.json#/$defs/n\"},"
                "\"y\":{\"$ref\":\"s.json#/$defs/n\"}}}");
    valid(s, "{\"x\":null,\"y\":null}");
    invalid(s, "{\"y\":1}", "/y", "type");
    mcp_schema_free(s);
}

static void a_ref_loop_ends_at_the_depth_limit(void **state)
{
    mcp_schema *s = compile("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"$ref\":\"#/$defs/a\"}},"
                            "\"$ref\":\"#/$defs/a\"}");
    mcp_schema_error err;
    assert_int_equal(run(s, "1", &err), MCP_ERR_LIMIT);
    assert_string_equal(err.keyword, "$ref");
    mcp_schema_free(s);
    /* Recursion that consumes the instance is fine. */
    s = compile("{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#\"}},"
                "\"additionalProperties\":false}");
    valid(s, "{\"next\":{\"next\":{\"next\":{}}}}");
    invalid(s, "{\"next\":{\"next\":{\"x\":1}}}", "/next/next/x", "additionalProperties");
    mcp_schema_free(s);
}

static void patterns_are_ecmascript(void **state)
{
    mcp_schema *s = compile("{\"pattern\":\"^[a-z]+$\",\"maxLength\":4}");
    valid(s, "\"abc\"");
    invalid(s, "\"abc\\n\"", "", "pattern"); /* $ is the end, not before a final newline */
    invalid(s, "\"abcde\"", "", "maxLength");
    mcp_schema_free(s);
    s = compile("{\"pattern\":\"\\\\u00e9\",\"minLength\":2}");
    valid(s, "\"\\u00e9t\\u00e9\"");         /* \u escapes; length in characters */
    invalid(s, "\"\\u00e9\"", "", "minLength"); /* 1 character, 2 bytes */
    mcp_schema_free(s);
}

static void unique_items_on_a_long_array_is_not_quadratic(void **state)
{
    /* 200,000 distinct numbers and one repeat: n squared would be 2e10. */
    size_t n = 200000;
    char *text = malloc(n * 12 + 16);
    size_t len = 0;
    text[len++] = '[';
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%zu,", i);
    len += (size_t)sprintf(text + len, "7.0]");
    mcp_schema *s = compile("{\"uniqueItems\":true}");
    mcp_schema_error err;
    assert_int_equal(run(s, text, &err), MCP_ERR_SCHEMA_MISMATCH);
    assert_string_equal(err.keyword, "uniqueItems");
    assert_non_null(strstr(err.message, "7 and 200000"));
    text[len - 5] = ']';
    text[len - 4] = '\0';
    valid(s, text);
    free(text);
    mcp_schema_free(s);
}

/* Attack round 4: what doubles would get wrong. */
static void numbers_compare_as_their_decimal_text(void **state)
{
    char huge[460] = "-1";
    memset(huge + 2, '0', 400);
    huge[402] = '\0';
    mcp_schema *s = compile("{\"minimum\":0,\"maximum\":100}");
    invalid(s, "1e400", "", "maximum"); /* infinity, or NaN, passed every bound */
    invalid(s, "-1e400", "", "minimum");
    invalid(s, huge, "", "minimum"); /* 400 digits read as +INT64_MAX */
    valid(s, "1e-400");
    invalid(s, "-1e-400", "", "minimum");
    mcp_schema_free(s);
    s = compile("{\"maximum\":9007199254740992}");
    invalid(s, "9007199254740993", "", "maximum"); /* one more than 2^53 */
    mcp_schema_free(s);
    s = compile("{\"type\":\"integer\",\"multipleOf\":2}");
    invalid(s, "1000000001", "", "multipleOf"); /* a relative tolerance said yes */
    valid(s, "1e400");
    invalid(s, "1.5e1", "", "multipleOf");
    valid(s, "2.0");
    mcp_schema_free(s);
    s = compile("{\"multipleOf\":0.01}");
    invalid(s, "12345678.901", "", "multipleOf");
    valid(s, "12345678.9");
    mcp_schema_free(s);
    s = compile("{\"multipleOf\":0.0001}");
    valid(s, "0.0075"); /* 74.99999999999999 in binary */
    invalid(s, "0.00751", "", "multipleOf");
    mcp_schema_free(s);
}

static void exponential_work_ends_at_the_step_budget(void **state)
{
    /* $defs d0..d39, each an anyOf of two refs to the next: 2^40 paths. */
    char schema[8192] = "{\"$ref\":\"#/$defs/d0\",\"$defs\":{";
    for (int i = 0; i < 40; i++)
        snprintf(schema + strlen(schema), sizeof schema - strlen(schema),
                 "\"d%d\":{\"anyOf\":[{\"$ref\":\"#/$defs/d%d\"},{\"$ref\":\"#/$defs/d%d\"}]},",
                 i, i + 1, i + 1);
    strcat(schema, "\"d40\":{\"type\":\"string\"}}}");
    mcp_schema *s = compile(schema);
    mcp_schema_error err;
    assert_int_equal(run(s, "1", &err), MCP_ERR_LIMIT); /* never "valid", never forever */
    assert_non_null(strstr(err.message, "too costly"));
    valid(s, "\"x\""); /* the first path passes at once */
    mcp_schema_free(s);
}

static void unique_numbers_that_doubles_cannot_tell_apart_are_fast(void **state)
{
    /* 1e400, 1e401, ...: one double (or none) for all; hashed by value. */
    size_t n = 50000;
    char *text = malloc(n * 10 + 8);
    size_t len = 0;
    text[len++] = '[';
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s1e%zu", i ? "," : "", 400 + i);
    text[len++] = ']';
    text[len] = '\0';
    mcp_schema *s = compile("{\"uniqueItems\":true}");
    valid(s, text); /* n squared would be 1.25e9 comparisons */
    strcpy(text + len - 1, ",10e399]"); /* equal to 1e400 */
    invalid(s, text, "", "uniqueItems");
    free(text);
    mcp_schema_free(s);
}

static void a_pattern_too_costly_is_no_answer_not_a_no_match(void **state)
{
    /* (The alternative keeps PCRE2 from seeing at once that no c is there.) */
    mcp_schema *s = compile("{\"not\":{\"pattern\":\"^(a+)+c|b\"}}");
    char subject[64] = "\"";
    memset(subject + 1, 'a', 40);
    strcpy(subject + 41, "b\"");
    mcp_schema_error err;
    assert_int_equal(run(s, subject, &err), MCP_ERR_LIMIT); /* inside not: was "valid" */
    valid(s, "\"xy\"");
    invalid(s, "\"xb\"", "", "not");
    mcp_schema_free(s);
    /* A linear pattern on a long subject is within its bound. */
    s = compile("{\"pattern\":\"^(?:[A-Za-z0-9+/]{4})*$\"}");
    size_t n = 40000; /* the base64 of 30 KB, refused as "too costly" before */
    char *b64 = malloc(n + 3);
    b64[0] = '"';
    memset(b64 + 1, 'Q', n);
    strcpy(b64 + 1 + n, "\"");
    valid(s, b64);
    free(b64);
    mcp_schema_free(s);
}

static void messages_are_cut_between_characters(void **state)
{
    /* A key of 200 two-byte characters: the path is cut to its field. */
    char schema[64] = "{\"additionalProperties\":false}";
    char inst[1024] = "{\"";
    for (int i = 0; i < 200; i++)
        strcat(inst, "\u00e9");
    strcat(inst, "\":1}");
    mcp_schema *s = compile(schema);
    mcp_schema_error err;
    assert_int_equal(run(s, inst, &err), MCP_ERR_SCHEMA_MISMATCH);
    assert_int_equal(mcp_utf8_validate(err.instance_path, strlen(err.instance_path), NULL),
                     MCP_OK);
    assert_true(strlen(err.instance_path) > 100);
    mcp_schema_free(s);
}

static void wrongly_typed_or_unsupported_keywords_are_refused(void **state)
{
    static const char *const bad[] = {
        "{\"uniqueItems\":\"true\"}", "{\"patternProperties\":[]}", "{\"dependentSchemas\":\"x\"}",
        "{\"type\":[]}", "{\"$dynamicRef\":\"#meta\"}", "{\"$defs\":5}",
        "{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"exclusiveMaximum\":true}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mcp_json_doc *d = parse(bad[i]);
        mcp_schema *s = NULL;
        int rc = mcp_schema_compile(mcp_json_doc_root(d), NULL, &s, NULL, 0);
        mcp_json_doc_free(d);
        if (rc != MCP_ERR_SCHEMA)
            fail_msg("%s: %s, expected MCP_ERR_SCHEMA", bad[i], mcp_strerror(rc));
    }
    mcp_json_doc *d = parse("{}");
    mcp_schema *s = NULL;
    mcp_schema_options o = {.size = sizeof o, .dialect = (mcp_schema_dialect)99};
    assert_int_equal(mcp_schema_compile(mcp_json_doc_root(d), &o, &s, NULL, 0),
                     MCP_ERR_INVALID_ARG);
    o = (mcp_schema_options){.size = sizeof o, .max_depth = 100000};
    assert_int_equal(mcp_schema_compile(mcp_json_doc_root(d), &o, &s, NULL, 0),
                     MCP_ERR_INVALID_ARG);
    mcp_json_doc_free(d);
}

/* A peer's schema is bounded in what it costs to compile: subschemas are
 * counted, and anchors found by hash (40,000 took 19 s in a list). */
static void a_schema_too_large_to_compile_is_a_limit(void **state)
{
    size_t n = 30000;
    char *text = malloc(n * 40 + 64);
    size_t len = (size_t)sprintf(text, "{\"allOf\":[");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s{}", i ? "," : "");
    strcpy(text + len, "]}");
    mcp_json_doc *d = parse(text);
    mcp_schema *s = NULL;
    char why[200];
    assert_int_equal(mcp_schema_compile(mcp_json_doc_root(d), NULL, &s, why, sizeof why),
                     MCP_ERR_LIMIT);
    assert_non_null(strstr(why, "subschemas"));
    mcp_json_doc_free(d);
    /* 10,000 anchors, each referred to: within the bound, and compiled. */
    n = 10000;
    len = (size_t)sprintf(text, "{\"$defs\":{");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s\"d%zu\":{\"$anchor\":\"a%zu\",\"minimum\":%zu}",
                               i ? "," : "", i, i, i);
    len += (size_t)sprintf(text + len, "},\"items\":{\"$ref\":\"#a%zu\"}}", n - 1);
    s = compile(text);
    valid(s, "[9999,10000]");
    invalid(s, "[9998]", "/0", "minimum");
    mcp_schema_free(s);
    free(text);
}

static void the_dialect_comes_from_schema_or_option(void **state)
{
    mcp_schema *s = compile("{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
                            "\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}");
    assert_int_equal(mcp_schema_dialect_of(s), MCP_SCHEMA_DIALECT_DRAFT_07);
    valid(s, "[\"a\"]");
    invalid(s, "[\"a\",1]", "/1", "false");
    mcp_schema_free(s);
    s = compile("{\"minimum\":1}");
    assert_int_equal(mcp_schema_dialect_of(s), MCP_SCHEMA_DIALECT_2020_12);
    mcp_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefix_items_and_items_after_them),
        cmocka_unit_test(defs_anchor_and_ref_with_siblings),
        cmocka_unit_test(dependent_required_and_dependent_schemas),
        cmocka_unit_test(min_and_max_contains),
        cmocka_unit_test(unevaluated_properties_see_through_applicators),
        cmocka_unit_test(unevaluated_items_after_prefix_and_contains),
        cmocka_unit_test(the_error_names_path_keyword_and_limit),
        cmocka_unit_test(bad_schemas_are_refused_with_a_reason),
        cmocka_unit_test(a_remote_reference_is_refused_not_fetched),
        cmocka_unit_test(a_ref_loop_ends_at_the_depth_limit),
        cmocka_unit_test(patterns_are_ecmascript),
        cmocka_unit_test(unique_items_on_a_long_array_is_not_quadratic),
        cmocka_unit_test(the_dialect_comes_from_schema_or_option),
        cmocka_unit_test(numbers_compare_as_their_decimal_text),
        cmocka_unit_test(exponential_work_ends_at_the_step_budget),
        cmocka_unit_test(unique_numbers_that_doubles_cannot_tell_apart_are_fast),
        cmocka_unit_test(a_pattern_too_costly_is_no_answer_not_a_no_match),
        cmocka_unit_test(messages_are_cut_between_characters),
        cmocka_unit_test(wrongly_typed_or_unsupported_keywords_are_refused),
        cmocka_unit_test(a_schema_too_large_to_compile_is_a_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
