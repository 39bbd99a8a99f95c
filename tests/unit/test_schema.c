/* SPDX-License-Identifier: MIT */
/*
 * JSON Schema, what the draft7 suite (test_schema_suite) does not cover:
 * the 2020-12 keywords (prefixItems, $defs, $anchor, dependentRequired,
 * dependentSchemas, minContains/maxContains, unevaluatedProperties and
 * unevaluatedItems through applicators), the error's path and keyword,
 * refusals of bad schemas, remote references, a $ref loop, ECMA-262 `$`,
 * and that uniqueItems on a long array is not quadratic. And that what
 * makes validation fast changes no answer: patterns run without PCRE2
 * agree with it, a schema compiled without the fast paths answers alike,
 * and the step and depth bounds count exactly what they did.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "schema/internal.h"

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

/* A $ref that names an embedded document by its $id is resolved in the
 * schema, nothing fetched: by the absolute URI, relative to the root's
 * base, with a pointer into that document (not into the root), and a
 * pointer inside it resolved against its own base. */
static void a_ref_finds_an_embedded_document_by_its_id(void **state)
{
    mcp_schema *s = compile(
        "{\"$id\":\"https://example.com/root.json\","
        "\"$defs\":{"
        "\"item\":{\"$id\":\"https://example.com/item.json\",\"type\":\"object\","
        "\"required\":[\"n\"],\"properties\":{\"n\":{\"$ref\":\"#/$defs/count\"}},"
        "\"$defs\":{\"count\":{\"type\":\"integer\",\"minimum\":0}}},"
        "\"rel\":{\"$id\":\"folder/rel.json\",\"type\":\"string\"},"
        "\"count\":{\"type\":\"string\"}},"
        "\"properties\":{"
        "\"a\":{\"$ref\":\"https://example.com/item.json\"},"
        "\"b\":{\"$ref\":\"item.json#/$defs/count\"},"
        "\"c\":{\"$ref\":\"https://example.com/folder/rel.json\"},"
        "\"d\":{\"$ref\":\"folder/rel.json\"}}}");
    valid(s, "{\"a\":{\"n\":1},\"b\":2,\"c\":\"x\",\"d\":\"y\"}");
    /* item.json's own #/$defs/count (an integer), not the root's (a string). */
    invalid(s, "{\"a\":{\"n\":\"1\"}}", "/a/n", "type");
    invalid(s, "{\"a\":{\"n\":-1}}", "/a/n", "minimum");
    invalid(s, "{\"a\":{}}", "/a", "required");
    invalid(s, "{\"b\":\"2\"}", "/b", "type");
    invalid(s, "{\"c\":1}", "/c", "type");
    invalid(s, "{\"d\":1}", "/d", "type");
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


/* The same schema compiled with and without the fast paths (patterns
 * outside PCRE2, properties by hash, integer and whole-part comparisons)
 * gives the same answer and the same error for each instance. */
static void same_as_plain(const char *schema, const char *const *instances, size_t n)
{
    mcp_json_doc *d = parse(schema);
    mcp_schema *fast = NULL, *plain = NULL;
    assert_int_equal(mcp__schema_compile(mcp_json_doc_root(d), NULL, false, &fast, NULL, 0), MCP_OK);
    assert_int_equal(mcp__schema_compile(mcp_json_doc_root(d), NULL, true, &plain, NULL, 0), MCP_OK);
    mcp_json_doc_free(d);
    for (size_t i = 0; i < n; i++) {
        mcp_schema_error a, b;
        int ra = run(fast, instances[i], &a), rb = run(plain, instances[i], &b);
        if (ra != rb || memcmp(&a, &b, sizeof a) != 0)
            fail_msg("%s on %s: %s %s '%s' (fast) vs %s %s '%s' (plain)", schema, instances[i],
                     mcp_strerror(ra), a.keyword, a.instance_path, mcp_strerror(rb), b.keyword,
                     b.instance_path);
    }
    mcp_schema_free(fast);
    mcp_schema_free(plain);
}

static void fast_paths_answer_as_the_plain_ones(void **state)
{
    static const char *const numbers[] = {
        "0", "1", "0.5", "0.75", "-0.5", "-0", "-0.0", "1.0", "1.5", "2", "100", "100.0000001",
        "99.9999999", "1e2", "1E-2", "-1e400", "1e400", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "123456789012345678.5", "1234567890123456789.5", "0.0001", "0.00015", "7", "-7", "21",
        "-21", "4.2e1", "\"7\""};
    same_as_plain("{\"minimum\":0,\"maximum\":100}", numbers, sizeof numbers / sizeof *numbers);
    same_as_plain("{\"exclusiveMinimum\":-1,\"exclusiveMaximum\":1}", numbers,
                  sizeof numbers / sizeof *numbers);
    same_as_plain("{\"minimum\":0.5,\"maximum\":99.99999995}", numbers,
                  sizeof numbers / sizeof *numbers);
    same_as_plain("{\"maximum\":9223372036854775807,\"minimum\":-9223372036854775808}", numbers,
                  sizeof numbers / sizeof *numbers);
    same_as_plain("{\"multipleOf\":7}", numbers, sizeof numbers / sizeof *numbers);
    same_as_plain("{\"multipleOf\":0.0001}", numbers, sizeof numbers / sizeof *numbers);
    same_as_plain("{\"type\":\"integer\",\"multipleOf\":1e2}", numbers,
                  sizeof numbers / sizeof *numbers);
    static const char *const strings[] = {
        "\"finance\"", "\"Finance\"", "\"\"", "\"de-DE\"", "\"de-de\"", "\"2025-09-10\"",
        "\"2025-9-10\"", "\"https://x\"", "\"http://x\"", "\"a\\nb\"", "\"abc\\n\"",
        "\"\\u00e9t\\u00e9\"", "\"caf\\u00e9\"", "\"a\\u0000b\"", "\"x-y_z.1\"", "\"a-\"", "\"-\"",
        "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""};
    static const char *const patterns[] = {
        "^[a-z]+$", "^[a-z]{2}-[A-Z]{2}$", "^https://", "^\\\\d{4}-\\\\d{2}-\\\\d{2}$", "[a-c]",
        "^$", "", "^[\\\\w.-]*$", "b$", "^[a-z]{0,3}x?[a-f]*$", "^[ -~]{1,70}$", "a{2,}",
        "^[^a]$", "^(a|b)+$", "^\\\\s*$", "^.$", "\\\\u00e9", "^[a-z]+?$", "^\\\\S+$"};
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
        char schema[200];
        snprintf(schema, sizeof schema, "{\"pattern\":\"%s\"}", patterns[i]);
        same_as_plain(schema, strings, sizeof strings / sizeof *strings);
        snprintf(schema, sizeof schema, "{\"patternProperties\":{\"%s\":false}}", patterns[i]);
        char objects[sizeof strings / sizeof *strings][120];
        const char *list[sizeof strings / sizeof *strings];
        for (size_t k = 0; k < sizeof strings / sizeof *strings; k++) {
            snprintf(objects[k], sizeof objects[k], "{%s:1}", strings[k]);
            list[k] = objects[k];
        }
        same_as_plain(schema, list, sizeof list / sizeof *list);
    }
    static const char *const objects[] = {
        "{\"query\":\"q\",\"limit\":5}", "{\"limit\":5}", "{\"query\":1}",
        "{\"query\":\"q\",\"extra\":true}", "{\"query\":\"q\",\"p7\":1,\"p8\":\"x\"}",
        "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"query\":\"\"}",
        "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9,\"limit\":1}",
        "{\"query\":\"q\",\"\":0}", "[]", "null"};
    same_as_plain("{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"},"
                  "\"limit\":{\"type\":\"integer\",\"maximum\":10},\"p7\":{},\"p8\":{\"const\":\"x\"},"
                  "\"a\":true,\"b\":true,\"c\":true,\"d\":true,\"e\":true,\"f\":true,\"g\":true,"
                  "\"h\":true,\"i\":{\"minimum\":9}},\"required\":[\"query\"],"
                  "\"additionalProperties\":false}",
                  objects, sizeof objects / sizeof *objects);
}

/* What the fast paths decide by themselves, at their edges: a string's
 * length in bytes, an integer between integer bounds. */
static void fast_paths_at_their_edges(void **state)
{
    mcp_schema *s = compile("{\"properties\":{\"p\":{\"pattern\":\"^[a-z]+$\"},"
                            "\"min\":{\"minLength\":2},\"max\":{\"maxLength\":2},"
                            "\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3},"
                            "\"x\":{\"maximum\":3}}}");
    invalid(s, "{\"p\":\"\"}", "/p", "pattern");
    valid(s, "{\"p\":\"a\"}");
    invalid(s, "{\"min\":\"\"}", "/min", "minLength");
    invalid(s, "{\"min\":\"\\u00e9\"}", "/min", "minLength"); /* 2 bytes, 1 character */
    valid(s, "{\"min\":\"ab\"}");
    valid(s, "{\"min\":\"\\u00e9\\u00e9\"}");
    invalid(s, "{\"max\":\"abc\"}", "/max", "maxLength");
    invalid(s, "{\"max\":\"\\u00e9\\u00e9\\u00e9\"}", "/max", "maxLength");
    valid(s, "{\"max\":\"\\u00e9\\u00e9\"}"); /* 4 bytes, 2 characters */
    valid(s, "{\"max\":\"\"}");
    invalid(s, "{\"n\":0}", "/n", "minimum");
    invalid(s, "{\"n\":4}", "/n", "maximum");
    invalid(s, "{\"n\":-9223372036854775808}", "/n", "minimum");
    invalid(s, "{\"n\":3.5}", "/n", "type");
    valid(s, "{\"n\":1}");
    valid(s, "{\"n\":3.0}");
    valid(s, "{\"n\":30e-1}");
    invalid(s, "{\"n\":4e0}", "/n", "maximum");
    invalid(s, "{\"x\":3.5}", "/x", "maximum");
    invalid(s, "{\"x\":3.0000000000000000001}", "/x", "maximum");
    valid(s, "{\"x\":-1e400}");
    valid(s, "{\"x\":2.9999999999999999999}");
    mcp_schema_free(s);
}

/* 300 properties, and 100 whose names a hash of their ends cannot tell
 * apart (the index then gives way to the binary search). */
static void many_properties_are_found_by_name(void **state)
{
    char *schema = malloc(40000), *inst = malloc(20000);
    for (int crowded = 0; crowded < 2; crowded++) {
        size_t n = (size_t)sprintf(schema, "{\"properties\":{");
        for (int i = 0; i < 300; i++)
            n += (size_t)sprintf(schema + n, "%s\"%s%d%s\":{\"const\":%d}", i ? "," : "",
                                 crowded ? "long-common-beginning-" : "p", i,
                                 crowded ? "-and-the-same-long-end" : "", i);
        strcpy(schema + n, "},\"additionalProperties\":false}");
        mcp_schema *s = compile(schema);
        n = (size_t)sprintf(inst, "{");
        for (int i = 0; i < 300; i += 7)
            n += (size_t)sprintf(inst + n, "%s\"%s%d%s\":%d", i ? "," : "",
                                 crowded ? "long-common-beginning-" : "p", i,
                                 crowded ? "-and-the-same-long-end" : "", i);
        strcpy(inst + n, "}");
        valid(s, inst);
        strcpy(inst + n, ",\"p300\":300}");
        invalid(s, inst, "/p300", "additionalProperties");
        mcp_schema_free(s);
        const char *const one[] = {inst};
        same_as_plain(schema, one, 1);
    }
    free(schema);
    free(inst);
}

/* Which patterns run without PCRE2, and that they answer as PCRE2 does. */
static void simple_patterns_agree_with_pcre2(void **state)
{
    static const char *const simple[] = {
        "^[a-z]+$", "^[a-z]{2}-[A-Z]{2}$", "^https://", "\\d{4}", "^[-\\w.+]{1,64}$", "a*b?c+$",
        "", "^$", "x{0}y{0,}z{1,3}", "[\\-\\]\\\\]", "^[+-,]$", "\\.\\/\\(\\)"};
    static const char *const not_simple[] = {
        "(a)", "a|b", ".", "[^a]", "\\s", "\\S", "\\W", "\\D", "\\b", "\\u00e9", "\\x41", "a*?",
        "a++", "[[:alpha:]]", "[a-\\d]", "[\\d-z]", "[a-b-c]", "a{,3}", "\\1", "^a^", "a$b", "\u00e9",
        "a{1,300}", "[]a]", "\\v", "(?i)a", "[+--]"};
    static const char *const subjects[] = {
        "", "a", "abc", "ABC", "ab-CD", "https://x", "2025", "x.y+z", "-", "]", "\\", "abcc",
        "\u00e9", "a\u00e9b", "./()", "zzz", "\n", "a\nb", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"};
    mcp__arena arena;
    mcp__arena_init(&arena, NULL, 4096);
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    for (size_t i = 0; i < sizeof simple / sizeof *simple + sizeof not_simple / sizeof *not_simple;
         i++) {
        bool is_simple = i < sizeof simple / sizeof *simple;
        const char *p = is_simple ? simple[i] : not_simple[i - sizeof simple / sizeof *simple];
        const mcp__pattern *fast = mcp__pattern_compile(&arena, p, strlen(p));
        if ((fast != NULL) != is_simple)
            fail_msg("/%s/ should %sbe run without PCRE2", p, is_simple ? "" : "not ");
        if (!fast)
            continue;
        int code;
        PCRE2_SIZE at;
        pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
        pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, strlen(p),
                                       PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_DOLLAR_ENDONLY, &code,
                                       &at, cc);
        pcre2_compile_context_free(cc);
        assert_non_null(re);
        for (size_t k = 0; k < sizeof subjects / sizeof *subjects; k++) {
            bool want = pcre2_match(re, (PCRE2_SPTR)subjects[k], strlen(subjects[k]), 0, 0, md,
                                    NULL) >= 0;
            if (mcp__pattern_match(fast, subjects[k], strlen(subjects[k])) != want)
                fail_msg("/%s/ on \"%s\": PCRE2 says %d", p, subjects[k], want);
        }
        pcre2_code_free(re);
    }
    pcre2_match_data_free(md);
    mcp__arena_release(&arena);
    /* A pattern PCRE2 would give up on has an answer here. */
    mcp_schema *s = compile("{\"pattern\":\"^a*a*a*a*a*a*a*a*a*a*a*a*$\"}");
    char subject[4100] = "\"";
    memset(subject + 1, 'a', 4000);
    strcpy(subject + 4001, "b\"");
    invalid(s, subject, "", "pattern");
    mcp_schema_free(s);
}

/* The bounds count what they counted before the fast paths: a schema
 * evaluated (not true or false), and a level for each schema that
 * evaluates others. 7 steps here: the root, a, b, d, its $ref and the two
 * items (c is true); depth 4: root, d, its $ref, an item. */
static void steps_and_depth_are_counted_exactly(void **state)
{
    const char *schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
                         "\"b\":{\"type\":\"integer\",\"minimum\":0},\"c\":true,"
                         "\"d\":{\"$ref\":\"#/$defs/x\"}},"
                         "\"$defs\":{\"x\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}";
    const char *inst = "{\"a\":\"x\",\"b\":1,\"c\":5,\"d\":[\"p\",\"q\"]}";
    mcp_json_doc *d = parse(schema);
    for (int k = 0; k < 4; k++) {
        mcp_schema_options o = {.size = sizeof o};
        if (k < 2)
            o.max_steps = 7 - (uint64_t)k;
        else
            o.max_depth = 4 - (unsigned)(k - 2);
        mcp_schema *s = NULL;
        assert_int_equal(mcp_schema_compile(mcp_json_doc_root(d), &o, &s, NULL, 0), MCP_OK);
        mcp_schema_error err;
        assert_int_equal(run(s, inst, &err), k % 2 ? MCP_ERR_LIMIT : MCP_OK);
        mcp_schema_free(s);
    }
    mcp_json_doc_free(d);
}

/* The path of a failure is written only when there is one: through
 * members and items, past a branch of anyOf that failed first, and cut
 * with "..." past 64 levels. */
static void the_path_is_that_of_the_failure(void **state)
{
    mcp_schema *s = compile("{\"properties\":{\"a\":{\"anyOf\":[{\"items\":{\"properties\":"
                            "{\"b\":{\"type\":\"string\"}}}},{\"type\":\"array\"}]},"
                            "\"c\":{\"items\":{\"properties\":{\"d/e\":{\"maximum\":1}}}}}}");
    invalid(s, "{\"a\":[{\"b\":1}],\"c\":[{},{\"d/e\":2}]}", "/c/1/d~1e", "maximum");
    mcp_schema_free(s);
    s = compile("{\"items\":{\"$ref\":\"#\"},\"type\":\"array\",\"maxItems\":1}");
    char deep[400];
    memset(deep, '[', 70);
    memcpy(deep + 70, "1,2", 3);
    memset(deep + 73, ']', 70);
    deep[143] = '\0';
    mcp_schema_error err;
    assert_int_equal(run(s, deep, &err), MCP_ERR_SCHEMA_MISMATCH);
    assert_string_equal(err.keyword, "maxItems");
    assert_int_equal(strlen(err.instance_path), 64 * 2 + 3);
    assert_non_null(strstr(err.instance_path, "/0/0/0..."));
    mcp_schema_free(s);
    /* propertyNames names the member, and needs no memory of its own */
    s = compile("{\"propertyNames\":{\"maxLength\":3}}");
    valid(s, "{\"abc\":1}");
    invalid(s, "{\"abc\":1,\"abcd\":2}", "/abcd", "maxLength");
    mcp_schema_free(s);
}

/* unevaluatedProperties over more members than fit the record kept
 * without allocating (128). */
static void unevaluated_over_many_members(void **state)
{
    char *inst = malloc(8000);
    size_t n = (size_t)sprintf(inst, "{");
    for (int i = 0; i < 300; i++)
        n += (size_t)sprintf(inst + n, "%s\"k%d\":%d", i ? "," : "", i, i);
    strcpy(inst + n, "}");
    mcp_schema *s = compile("{\"anyOf\":[{\"patternProperties\":{\"^k[0-9]$\":true}},"
                            "{\"patternProperties\":{\"^k[0-9]{3}$\":true}}],"
                            "\"properties\":{\"k42\":true},\"unevaluatedProperties\":false}");
    invalid(s, inst, "/k10", "unevaluatedProperties");
    mcp_schema_free(s);
    s = compile("{\"allOf\":[{\"patternProperties\":{\"^k\":true}}],\"unevaluatedProperties\":false}");
    valid(s, inst);
    mcp_schema_free(s);
    free(inst);
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
        cmocka_unit_test(a_ref_finds_an_embedded_document_by_its_id),
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
        cmocka_unit_test(fast_paths_answer_as_the_plain_ones),
        cmocka_unit_test(fast_paths_at_their_edges),
        cmocka_unit_test(many_properties_are_found_by_name),
        cmocka_unit_test(simple_patterns_agree_with_pcre2),
        cmocka_unit_test(steps_and_depth_are_counted_exactly),
        cmocka_unit_test(the_path_is_that_of_the_failure),
        cmocka_unit_test(unevaluated_over_many_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
