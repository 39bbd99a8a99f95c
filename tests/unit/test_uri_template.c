/* SPDX-License-Identifier: MIT */
/*
 * URI templates (mcp/uri_template.h): every expansion example of RFC 6570
 * section 3.2 with the RFC's variables; matching as MCP servers use it
 * (round trips through expansion, the query part, non-matches, decoding,
 * invalid UTF-8 and percent sequences); refused templates and their
 * reasons; the caps; no backtracking blow-up; and every allocation
 * failing in turn in parse, match and expand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "failmalloc.h"
#include "mcp/mcp.h"

static mcp_json_doc *json(const char *text)
{
    mcp_json_doc *d = NULL;
    if (mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL) != MCP_OK)
        fail_msg("test JSON does not parse: %s", text);
    return d;
}

static mcp_uri_template *parse(const char *tmpl)
{
    mcp_uri_template *t = NULL;
    char why[200];
    int rc = mcp_uri_template_parse(tmpl, strlen(tmpl), NULL, NULL, &t, why, sizeof why);
    if (rc != MCP_OK)
        fail_msg("template %s refused (%d): %s", tmpl, rc, why);
    return t;
}

/* The expansion of tmpl with vars (JSON text), as a new string. */
static char *expand(const char *tmpl, const mcp_json *vars)
{
    mcp_uri_template *t = parse(tmpl);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = mcp_uri_template_expand(t, vars, &b);
    if (rc != MCP_OK)
        fail_msg("expanding %s failed: %d", tmpl, rc);
    char *s = strdup(b.len ? b.data : "");
    mcp_buf_free(&b);
    mcp_uri_template_free(t);
    return s;
}

/* Match uri against tmpl: the code, and on MCP_OK the values as JSON text. */
static int match(const char *tmpl, const char *uri, char *values, size_t size)
{
    mcp_uri_template *t = parse(tmpl);
    mcp_json_doc *d = (mcp_json_doc *)1;
    int rc = mcp_uri_template_match(t, uri, strlen(uri), &d);
    values[0] = '\0';
    if (rc == MCP_OK) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        assert_int_equal(mcp_json_write(mcp_json_doc_root(d), &b), MCP_OK);
        snprintf(values, size, "%s", b.data);
        mcp_buf_free(&b);
        mcp_json_doc_free(d);
    } else {
        assert_null(d);
    }
    mcp_uri_template_free(t);
    return rc;
}

/* RFC 6570 section 3.2 ------------------------------------------------------ */

/* The variables of section 3.2, keys in the RFC's order. */
static const char *RFC_VARS =
    "{\"count\":[\"one\",\"two\",\"three\"],\"dom\":[\"example\",\"com\"],\"dub\":\"me/too\","
    "\"hello\":\"Hello World!\",\"half\":\"50%\",\"var\":\"value\",\"who\":\"fred\","
    "\"base\":\"http://example.com/home/\",\"path\":\"/foo/bar\","
    "\"list\":[\"red\",\"green\",\"blue\"],"
    "\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"},\"v\":\"6\",\"x\":\"1024\","
    "\"y\":\"768\",\"empty\":\"\",\"empty_keys\":{},\"undef\":null}";

static const char *const RFC_EXAMPLES[][2] = {
    /* 3.2.1 Variable Expansion */
    {"{count}", "one,two,three"},
    {"{count*}", "one,two,three"},
    {"{/count}", "/one,two,three"},
    {"{/count*}", "/one/two/three"},
    {"{;count}", ";count=one,two,three"},
    {"{;count*}", ";count=one;count=two;count=three"},
    {"{?count}", "?count=one,two,three"},
    {"{?count*}", "?count=one&count=two&count=three"},
    {"{&count*}", "&count=one&count=two&count=three"},
    /* 3.2.2 Simple String Expansion */
    {"{var}", "value"},
    {"{hello}", "Hello%20World%21"},
    {"{half}", "50%25"},
    {"O{empty}X", "OX"},
    {"O{undef}X", "OX"},
    {"{x,y}", "1024,768"},
    {"{x,hello,y}", "1024,Hello%20World%21,768"},
    {"?{x,empty}", "?1024,"},
    {"?{x,undef}", "?1024"},
    {"?{undef,y}", "?768"},
    {"{var:3}", "val"},
    {"{var:30}", "value"},
    {"{list}", "red,green,blue"},
    {"{list*}", "red,green,blue"},
    {"{keys}", "semi,%3B,dot,.,comma,%2C"},
    {"{keys*}", "semi=%3B,dot=.,comma=%2C"},
    /* 3.2.3 Reserved Expansion */
    {"{+var}", "value"},
    {"{+hello}", "Hello%20World!"},
    {"{+half}", "50%25"},
    {"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"},
    {"{+base}index", "http://example.com/home/index"},
    {"O{+empty}X", "OX"},
    {"O{+undef}X", "OX"},
    {"{+path}/here", "/foo/bar/here"},
    {"here?ref={+path}", "here?ref=/foo/bar"},
    {"up{+path}{var}/here", "up/foo/barvalue/here"},
    {"{+x,hello,y}", "1024,Hello%20World!,768"},
    {"{+path,x}/here", "/foo/bar,1024/here"},
    {"{+path:6}/here", "/foo/b/here"},
    {"{+list}", "red,green,blue"},
    {"{+list*}", "red,green,blue"},
    {"{+keys}", "semi,;,dot,.,comma,,"},
    {"{+keys*}", "semi=;,dot=.,comma=,"},
    /* 3.2.4 Fragment Expansion */
    {"{#var}", "#value"},
    {"{#hello}", "#Hello%20World!"},
    {"{#half}", "#50%25"},
    {"foo{#empty}", "foo#"},
    {"foo{#undef}", "foo"},
    {"{#x,hello,y}", "#1024,Hello%20World!,768"},
    {"{#path,x}/here", "#/foo/bar,1024/here"},
    {"{#path:6}/here", "#/foo/b/here"},
    {"{#list}", "#red,green,blue"},
    {"{#list*}", "#red,green,blue"},
    {"{#keys}", "#semi,;,dot,.,comma,,"},
    {"{#keys*}", "#semi=;,dot=.,comma=,"},
    /* 3.2.5 Label Expansion with Dot-Prefix */
    {"{.who}", ".fred"},
    {"{.who,who}", ".fred.fred"},
    {"{.half,who}", ".50%25.fred"},
    {"www{.dom*}", "www.example.com"},
    {"X{.var}", "X.value"},
    {"X{.var:3}", "X.val"},
    {"X{.empty}", "X."},
    {"X{.undef}", "X"},
    {"X{.list}", "X.red,green,blue"},
    {"X{.list*}", "X.red.green.blue"},
    {"X{.keys}", "X.semi,%3B,dot,.,comma,%2C"},
    {"X{.keys*}", "X.semi=%3B.dot=..comma=%2C"},
    {"X{.empty_keys}", "X"},
    {"X{.empty_keys*}", "X"},
    /* 3.2.6 Path Segment Expansion */
    {"{/who}", "/fred"},
    {"{/who,who}", "/fred/fred"},
    {"{/half,who}", "/50%25/fred"},
    {"{/who,dub}", "/fred/me%2Ftoo"},
    {"{/var}", "/value"},
    {"{/var,empty}", "/value/"},
    {"{/var,undef}", "/value"},
    {"{/var,x}/here", "/value/1024/here"},
    {"{/var:1,var}", "/v/value"},
    {"{/list}", "/red,green,blue"},
    {"{/list*}", "/red/green/blue"},
    {"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
    {"{/keys}", "/semi,%3B,dot,.,comma,%2C"},
    {"{/keys*}", "/semi=%3B/dot=./comma=%2C"},
    /* 3.2.7 Path-Style Parameter Expansion */
    {"{;who}", ";who=fred"},
    {"{;half}", ";half=50%25"},
    {"{;empty}", ";empty"},
    {"{;v,empty,who}", ";v=6;empty;who=fred"},
    {"{;v,bar,who}", ";v=6;who=fred"},
    {"{;x,y}", ";x=1024;y=768"},
    {"{;x,y,empty}", ";x=1024;y=768;empty"},
    {"{;x,y,undef}", ";x=1024;y=768"},
    {"{;hello:5}", ";hello=Hello"},
    {"{;list}", ";list=red,green,blue"},
    {"{;list*}", ";list=red;list=green;list=blue"},
    {"{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"},
    {"{;keys*}", ";semi=%3B;dot=.;comma=%2C"},
    /* 3.2.8 Form-Style Query Expansion */
    {"{?who}", "?who=fred"},
    {"{?half}", "?half=50%25"},
    {"{?x,y}", "?x=1024&y=768"},
    {"{?x,y,empty}", "?x=1024&y=768&empty="},
    {"{?x,y,undef}", "?x=1024&y=768"},
    {"{?var:3}", "?var=val"},
    {"{?list}", "?list=red,green,blue"},
    {"{?list*}", "?list=red&list=green&list=blue"},
    {"{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"},
    {"{?keys*}", "?semi=%3B&dot=.&comma=%2C"},
    /* 3.2.9 Form-Style Query Continuation */
    {"{&who}", "&who=fred"},
    {"{&half}", "&half=50%25"},
    {"?fixed=yes{&x}", "?fixed=yes&x=1024"},
    {"{&x,y,empty}", "&x=1024&y=768&empty="},
    {"{&var:3}", "&var=val"},
    {"{&list}", "&list=red,green,blue"},
    {"{&list*}", "&list=red&list=green&list=blue"},
    {"{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"},
    {"{&keys*}", "&semi=%3B&dot=.&comma=%2C"},
};

static void every_example_of_rfc_6570_section_3_2_expands(void **state)
{
    mcp_json_doc *vars = json(RFC_VARS);
    size_t n = sizeof RFC_EXAMPLES / sizeof RFC_EXAMPLES[0];
    assert_int_equal(n, 114);
    for (size_t i = 0; i < n; i++) {
        char *got = expand(RFC_EXAMPLES[i][0], mcp_json_doc_root(vars));
        if (strcmp(got, RFC_EXAMPLES[i][1]) != 0)
            fail_msg("%s: expected \"%s\", got \"%s\"", RFC_EXAMPLES[i][0], RFC_EXAMPLES[i][1], got);
        free(got);
    }
    mcp_json_doc_free(vars);
}

static void expansion_takes_numbers_booleans_and_counts_characters(void **state)
{
    mcp_json_doc *vars = json("{\"n\":-1.5e3,\"b\":true,\"f\":false,\"u\":\"\xc3\xa9\xe2\x82\xac"
                              "x\",\"k\":{\"a b\":\"c/d\"}}");
    const mcp_json *v = mcp_json_doc_root(vars);
    const char *cases[][2] = {
        {"{n}", "-1.5e3"},
        {"{?b,f}", "?b=true&f=false"},
        /* a prefix counts code points, not bytes */
        {"{u:2}", "%C3%A9%E2%82%AC"},
        {"{u:1}", "%C3%A9"},
        {"{k*}", "a%20b=c%2Fd"},
        {"{+k*}", "a%20b=c/d"},
        {"{;k*}", ";a%20b=c%2Fd"},
        /* a non-ASCII literal is percent-encoded, a triplet copied */
        {"caf\xc3\xa9/%2f{n}", "caf%C3%A9/%2f-1.5e3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = expand(cases[i][0], v);
        if (strcmp(got, cases[i][1]) != 0)
            fail_msg("%s: expected \"%s\", got \"%s\"", cases[i][0], cases[i][1], got);
        free(got);
    }
    char *got = expand("a{x}b{?y}", NULL); /* no variables: all undefined */
    assert_string_equal(got, "ab");
    free(got);
    mcp_json_doc_free(vars);
}

static void expansion_refuses_values_it_cannot_write(void **state)
{
    mcp_json_doc *vars = json("{\"nested\":[[\"a\"]],\"nullitem\":[\"a\",null],"
                              "\"deep\":{\"k\":{}},\"list\":[\"a\",\"b\"],\"keys\":{\"a\":\"b\"},"
                              "\"s\":\"0123456789\"}");
    const mcp_json *v = mcp_json_doc_root(vars);
    const char *bad[] = {"{nested}", "{nullitem*}", "{deep}", "{list:1}", "{keys:2}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mcp_uri_template *t = parse(bad[i]);
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        assert_int_equal(mcp_buf_append(&b, "keep", 4), MCP_OK);
        int rc = mcp_uri_template_expand(t, v, &b);
        if (rc != MCP_ERR_JSON_TYPE)
            fail_msg("%s: expected MCP_ERR_JSON_TYPE, got %d", bad[i], rc);
        assert_int_equal(b.len, 4); /* restored */
        assert_string_equal(b.data, "keep");
        mcp_buf_free(&b);
        mcp_uri_template_free(t);
    }
    /* vars must be an object */
    mcp_uri_template *t = parse("{s}");
    mcp_buf b;
    mcp_buf_init(&b, 8, NULL);
    assert_int_equal(mcp_uri_template_expand(t, mcp_json_object_get(v, "list"), &b),
                     MCP_ERR_JSON_TYPE);
    /* the buffer's cap: nothing half written */
    assert_int_equal(mcp_uri_template_expand(t, v, &b), MCP_ERR_LIMIT);
    assert_int_equal(b.len, 0);
    assert_int_equal(mcp_uri_template_expand(NULL, v, &b), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_uri_template_expand(t, v, NULL), MCP_ERR_INVALID_ARG);
    mcp_buf_free(&b);
    mcp_uri_template_free(t);
    mcp_json_doc_free(vars);
}

/* Matching --------------------------------------------------------------- */

/* Expand vars into the expected URI, then match it back to vars. */
static void round_trip(const char *tmpl, const char *vars_json, const char *uri)
{
    mcp_json_doc *vars = json(vars_json);
    char *got = expand(tmpl, mcp_json_doc_root(vars));
    if (strcmp(got, uri) != 0)
        fail_msg("%s: expanded to \"%s\", expected \"%s\"", tmpl, got, uri);
    mcp_uri_template *t = parse(tmpl);
    mcp_json_doc *m = NULL;
    int rc = mcp_uri_template_match(t, got, strlen(got), &m);
    if (rc != MCP_OK)
        fail_msg("%s does not match its expansion %s: %d", tmpl, got, rc);
    if (!mcp_json_equal(mcp_json_doc_root(m), mcp_json_doc_root(vars))) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp_json_write(mcp_json_doc_root(m), &b);
        fail_msg("%s on %s gave %s, expected %s", tmpl, got, b.data, vars_json);
    }
    mcp_json_doc_free(m);
    mcp_uri_template_free(t);
    mcp_json_doc_free(vars);
    free(got);
}

static void the_templates_mcp_servers_use_round_trip(void **state)
{
    round_trip("file:///{path}", "{\"path\":\"a b/c.txt\"}", "file:///a%20b%2Fc.txt");
    round_trip("users://{id}/profile", "{\"id\":\"42\"}", "users://42/profile");
    round_trip("file:///{+path}", "{\"path\":\"dir/sub dir/f.txt\"}",
               "file:///dir/sub%20dir/f.txt");
    round_trip("repo://x{/segments*}", "{\"segments\":[\"a\",\"b c\",\"d\"]}",
               "repo://x/a/b%20c/d");
    round_trip("repo://x{/segments*}", "{\"segments\":[\"only\"]}", "repo://x/only");
    round_trip("search://items{?q,lang}", "{\"q\":\"\xc3\xa9t\xc3\xa9\",\"lang\":\"fr\"}",
               "search://items?q=%C3%A9t%C3%A9&lang=fr");
    round_trip("search://items{?q,lang}", "{\"lang\":\"fr\"}", "search://items?lang=fr");
    round_trip("search://items{?q,lang}", "{}", "search://items");
    round_trip("list://all?sort=asc{&page}", "{\"page\":\"3\"}", "list://all?sort=asc&page=3");
    round_trip("list://all?sort=asc{&page}", "{}", "list://all?sort=asc");
    round_trip("db://{table}/rows{?limit}{&tag*}", "{\"table\":\"t\",\"tag\":[\"a\",\"b\"]}",
               "db://t/rows&tag=a&tag=b");
    round_trip("db://{table}/rows{?limit}{&tag*}",
               "{\"table\":\"t 1\",\"limit\":\"10\",\"tag\":[\"x\"]}",
               "db://t%201/rows?limit=10&tag=x");
    round_trip("mail://{user}/{+folder}{#msg}",
               "{\"user\":\"me\",\"folder\":\"in/box\",\"msg\":\"a,b\"}",
               "mail://me/in/box#a,b");
    round_trip("x{;a,b}{.ext}", "{\"a\":\"1\",\"b\":\"\",\"ext\":\"tar\"}", "x;a=1;b.tar");
}

typedef struct match_case {
    const char *tmpl, *uri;
    int rc;
    const char *values; /* on MCP_OK */
} match_case;

static void check_matches(const match_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char values[512];
        int rc = match(cases[i].tmpl, cases[i].uri, values, sizeof values);
        if (rc != cases[i].rc || (rc == MCP_OK && strcmp(values, cases[i].values) != 0))
            fail_msg("%s against %s: expected %d %s, got %d %s", cases[i].tmpl, cases[i].uri,
                     cases[i].rc, cases[i].values ? cases[i].values : "", rc, values);
    }
}

static void what_matches_and_what_does_not(void **state)
{
    static const match_case cases[] = {
        /* a simple variable: no '/', '?' or '#', never empty */
        {"users://{id}/profile", "users://42/settings", MCP_ERR_NOT_FOUND, NULL},
        {"users://{id}/profile", "users:///profile", MCP_ERR_NOT_FOUND, NULL},
        {"users://{id}/profile", "users://a/b/profile", MCP_ERR_NOT_FOUND, NULL},
        {"users://{id}/profile", "users://a?b/profile", MCP_ERR_NOT_FOUND, NULL},
        {"users://{id}/profile", "users://a/profile/", MCP_ERR_NOT_FOUND, NULL},
        {"file:///{path}", "file:///a/b", MCP_ERR_NOT_FOUND, NULL},
        {"file:///{path}", "file:///a,b", MCP_ERR_NOT_FOUND, NULL},
        /* + and # take reserved characters */
        {"file:///{+path}", "file:///a/b?c,d", MCP_OK, "{\"path\":\"a/b?c,d\"}"},
        {"doc{#section}", "doc#a/b", MCP_OK, "{\"section\":\"a/b\"}"},
        {"doc{#section}", "doc#", MCP_OK, "{\"section\":\"\"}"},
        {"doc{#section}", "doc", MCP_ERR_NOT_FOUND, NULL},
        /* the earlier variable is the longer */
        {"{a}-{b}", "x-y-z", MCP_OK, "{\"a\":\"x-y\",\"b\":\"z\"}"},
        {"{+a}/{b}", "x/y/z", MCP_OK, "{\"a\":\"x/y\",\"b\":\"z\"}"},
        {"docs://{name}.md", "docs://read.me.md", MCP_OK, "{\"name\":\"read.me\"}"},
        {"{+a}{+b}{+c}", "abcd", MCP_OK, "{\"a\":\"ab\",\"b\":\"c\",\"c\":\"d\"}"},
        {"{+a}{+b}{+c}", "ab", MCP_ERR_NOT_FOUND, NULL},
        /* lists */
        {"x{/s*}", "x/a//b", MCP_OK, "{\"s\":[\"a\",\"\",\"b\"]}"},
        {"x{/s*}", "x", MCP_ERR_NOT_FOUND, NULL},
        {"{list*}", "a,b", MCP_OK, "{\"list\":[\"a\",\"b\"]}"},
        {"www{.dom*}", "www.example.com", MCP_OK, "{\"dom\":[\"example\",\"com\"]}"},
        {"{;x*}", ";x=1;x;x=", MCP_OK, "{\"x\":[\"1\",\"\",\"\"]}"},
        {"{;x*}", ";x=1;y=2", MCP_ERR_NOT_FOUND, NULL},
        {"{x,y}", "1,2", MCP_OK, "{\"x\":\"1\",\"y\":\"2\"}"},
        {"{x,y}", "1", MCP_ERR_NOT_FOUND, NULL},
        /* prefixes: the value is what the URI shows */
        {"{var:3}", "val", MCP_OK, "{\"var\":\"val\"}"},
        {"{var:3}", "valu", MCP_ERR_NOT_FOUND, NULL},
        {"{var:2}", "%C3%A9\xe2\x82\xac", MCP_OK, "{\"var\":\"\xc3\xa9\xe2\x82\xac\"}"},
        /* a name twice: one value */
        {"{x}/{x}", "a/a", MCP_OK, "{\"x\":\"a\"}"},
        {"{x}/{x}", "a/b", MCP_ERR_NOT_FOUND, NULL},
        {"{x:2}/{x}", "ab/abc", MCP_OK, "{\"x\":\"abc\"}"},
        {"{x:2}/{x}", "ac/abc", MCP_ERR_NOT_FOUND, NULL},
        {"{x:2}/{x}", "a/a", MCP_OK, "{\"x\":\"a\"}"},
        /* ? and & not at the end are in place, every variable present */
        {"x{?a,b}/y", "x?a=1&b=2/y", MCP_OK, "{\"a\":\"1\",\"b\":\"2\"}"},
        {"x{?a,b}/y", "x?b=2&a=1/y", MCP_ERR_NOT_FOUND, NULL},
        {"x{?a,b}/y", "x?a=1/y", MCP_ERR_NOT_FOUND, NULL},
        {"", "", MCP_OK, "{}"},
        {"", "x", MCP_ERR_NOT_FOUND, NULL},
    };
    check_matches(cases, sizeof cases / sizeof cases[0]);
}

static void query_parameters_come_in_any_order_and_unknown_ones_are_refused(void **state)
{
    static const match_case cases[] = {
        {"s{?q,lang}", "s?lang=en&q=hi", MCP_OK, "{\"q\":\"hi\",\"lang\":\"en\"}"},
        {"s{?q,lang}", "s?q=hi", MCP_OK, "{\"q\":\"hi\"}"},
        {"s{?q,lang}", "s", MCP_OK, "{}"},
        {"s{?q,lang}", "s?q=", MCP_OK, "{\"q\":\"\"}"},
        {"s{?q,lang}", "s?q", MCP_OK, "{\"q\":\"\"}"},
        {"s{?q,lang}", "s&q=1", MCP_OK, "{\"q\":\"1\"}"},
        {"s{?q,lang}", "s?q=1&x=2", MCP_ERR_NOT_FOUND, NULL},      /* unknown */
        {"s{?q,lang}", "s?q=1&q=2", MCP_ERR_NOT_FOUND, NULL},      /* twice */
        {"s{?q,lang}", "s?", MCP_ERR_NOT_FOUND, NULL},             /* empty */
        {"s{?q,lang}", "s?q=1&", MCP_ERR_NOT_FOUND, NULL},         /* empty */
        {"s{?q,lang}", "s?q=1&&lang=2", MCP_ERR_NOT_FOUND, NULL},  /* empty */
        {"s{?q,lang}", "s?q=a/b", MCP_ERR_NOT_FOUND, NULL},        /* '/' unencoded */
        {"s{?q,lang}", "s?q=a%2Fb", MCP_OK, "{\"q\":\"a/b\"}"},
        {"s{?q,lang}", "s?q=1#f", MCP_ERR_NOT_FOUND, NULL},
        {"s{?q:2}", "s?q=ab", MCP_OK, "{\"q\":\"ab\"}"},
        {"s{?q:2}", "s?q=abc", MCP_ERR_NOT_FOUND, NULL},
        {"s{?tag*}", "s?tag=a&tag=b", MCP_OK, "{\"tag\":[\"a\",\"b\"]}"},
        {"s{?a}{&b*}", "s&b=1&a=2&b=3", MCP_OK, "{\"a\":\"2\",\"b\":[\"1\",\"3\"]}"},
        /* the query starts where the rest reads as parameters */
        {"r://{+path}{?q}", "r://a?q=1", MCP_OK, "{\"path\":\"a\",\"q\":\"1\"}"},
        {"r://{+path}{?q}", "r://a?x=1", MCP_OK, "{\"path\":\"a?x=1\"}"},
        {"r://{+path}{?q}", "r://a%3Fq=1", MCP_OK, "{\"path\":\"a?q=1\"}"},
        {"r://{+path}{&q}", "r://&q=1?q=2", MCP_OK, "{\"path\":\"&q=1\",\"q\":\"2\"}"},
        {"r://{+path}{&q}", "r://?q=1&q=2", MCP_OK, "{\"path\":\"?q=1\",\"q\":\"2\"}"},
    };
    check_matches(cases, sizeof cases / sizeof cases[0]);
}

static void values_are_percent_decoded_and_literals_compare_normalised(void **state)
{
    static const match_case cases[] = {
        {"file:///{path}", "file:///a%2Fb", MCP_OK, "{\"path\":\"a/b\"}"},
        {"file:///{path}", "file:///a%2fb", MCP_OK, "{\"path\":\"a/b\"}"},
        {"file:///{path}", "file:///%2E%2E", MCP_OK, "{\"path\":\"..\"}"},
        {"file:///{path}", "file:///%41b", MCP_OK, "{\"path\":\"Ab\"}"},
        {"file:///{+path}", "file:///a%20b", MCP_OK, "{\"path\":\"a b\"}"},
        /* hex case, unreserved and non-ASCII octets in the literal */
        {"a%2fb/{x}", "a%2Fb/1", MCP_OK, "{\"x\":\"1\"}"},
        {"a%2Fb/{x}", "a/b/1", MCP_ERR_NOT_FOUND, NULL},
        {"%7Euser/{x}", "~user/1", MCP_OK, "{\"x\":\"1\"}"},
        {"caf\xc3\xa9/{x}", "caf%c3%a9/1", MCP_OK, "{\"x\":\"1\"}"},
        {"caf%C3%A9/{x}", "caf\xc3\xa9/\xc3\xa9", MCP_OK, "{\"x\":\"\xc3\xa9\"}"},
        {"A/{x}", "a/1", MCP_ERR_NOT_FOUND, NULL},
    };
    check_matches(cases, sizeof cases / sizeof cases[0]);
}

static void invalid_utf8_and_percent_sequences(void **state)
{
    static const match_case cases[] = {
        {"{x}", "%FF", MCP_ERR_UTF8, NULL},            /* decodes to invalid UTF-8 */
        {"{x}", "%C3", MCP_ERR_UTF8, NULL},            /* a truncated sequence */
        {"{x}", "%C0%AF", MCP_ERR_UTF8, NULL},         /* overlong '/' */
        {"{x}", "a%00b", MCP_ERR_UTF8, NULL},          /* NUL */
        {"{x}", "\xff", MCP_ERR_UTF8, NULL},           /* the URI itself */
        {"x/{y}", "y/\xc3", MCP_ERR_UTF8, NULL},       /* before anything is compared */
        {"{x}", "%C3%A9", MCP_OK, "{\"x\":\"\xc3\xa9\"}"},
        {"{x}", "50%", MCP_ERR_NOT_FOUND, NULL},       /* a bare '%' */
        {"{x}", "a%zzb", MCP_ERR_NOT_FOUND, NULL},
        {"{x}", "a%2", MCP_ERR_NOT_FOUND, NULL},
        {"{+x}", "a%G1", MCP_ERR_NOT_FOUND, NULL},
        {"{x}", "a b", MCP_ERR_NOT_FOUND, NULL},
        {"{x}", "a\nb", MCP_ERR_NOT_FOUND, NULL},
    };
    check_matches(cases, sizeof cases / sizeof cases[0]);

    /* a template that is not UTF-8 */
    mcp_uri_template *t = (mcp_uri_template *)1;
    char why[100];
    assert_int_equal(mcp_uri_template_parse("ab\xc3(", 4, NULL, NULL, &t, why, sizeof why),
                     MCP_ERR_UTF8);
    assert_null(t);
    assert_string_equal(why, "invalid UTF-8 at byte 2");
}

/* Templates ---------------------------------------------------------------- */

static void bad_templates_are_refused_with_a_reason(void **state)
{
    static const struct {
        const char *tmpl, *why;
    } cases[] = {
        {"{/id*", "the '{' at byte 0 is never closed"},
        {"/id*}", "'}' at byte 4 closes no expression"},
        {"x{a", "the '{' at byte 1 is never closed"},
        {"{a{b}}", "'{' at byte 2 is inside the expression opened at byte 0"},
        {"{}", "empty expression at byte 0"},
        {"{x,}", "empty variable name at byte 3"},
        {"{/?id}", "'?' at byte 2 cannot start a variable name"},
        {"{??hello}", "'?' at byte 2 cannot start a variable name"},
        {"{!hello}", "operator '!' at byte 1 is reserved"},
        {"{=path}", "operator '=' at byte 1 is reserved"},
        {"{,x}", "operator ',' at byte 1 is reserved"},
        {"{@x}", "operator '@' at byte 1 is reserved"},
        {"{|var*}", "operator '|' at byte 1 is reserved"},
        {"{$var}", "'$' at byte 1 is neither an operator nor the start of a variable name"},
        {"{*keys?}", "'*' at byte 1 is neither an operator"},
        {"/people/{~thing}", "'~' at byte 9 is neither an operator"},
        {"{var:prefix}", "the prefix at byte 4 is not a length from 1 to 9999"},
        {"{var:0}", "the prefix at byte 4 is not a length from 1 to 9999"},
        {"{var:012}", "the prefix at byte 4 is not a length from 1 to 9999"},
        {"{var:10000}", "the prefix at byte 4 is over 9999"},
        {"{hello:2*}", "a variable cannot take both a prefix and '*' (byte 8)"},
        {"{?empty=default,var}", "unexpected '=' at byte 7 in the expression opened at byte 0"},
        {"{var}{-prefix|/-/|var}", "'-' at byte 6 is neither an operator"},
        {"/h{#hello+}", "unexpected '+' at byte 9"},
        {"/resolution{?x, y}", "byte 0x20 at byte 15 cannot start a variable name"},
        {"{a.}", "a variable name cannot end with '.' or hold \"..\" (byte 2)"},
        {"{a..b}", "a variable name cannot end with '.' or hold \"..\" (byte 2)"},
        {"{.}", "empty variable name at byte 2"},
        {"{a%2}", "'%' at byte 2 is not followed by two hex digits"},
        {"a%zz{b}", "'%' at byte 1 is not followed by two hex digits"},
        {"a b{x}", "byte 0x20 at byte 1 is not allowed in a literal"},
        {"a<b", "'<' at byte 1 is not allowed in a literal"},
        {"a|b", "'|' at byte 1 is not allowed in a literal"},
        {"a\"b", "'\"' at byte 1 is not allowed in a literal"},
        {"a'b", "''' at byte 1 is not allowed in a literal"},
        {"a\x01", "byte 0x01 at byte 1 is not allowed in a literal"},
        {"a\xc2\x85", "U+0085 at byte 1 is not allowed in a literal"}, /* a C1 control */
        {"\xef\xbf\xbe", "U+FFFE at byte 0 is not allowed in a literal"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mcp_uri_template *t = (mcp_uri_template *)1;
        char why[200];
        int rc = mcp_uri_template_parse(cases[i].tmpl, strlen(cases[i].tmpl), NULL, NULL, &t,
                                        why, sizeof why);
        if (rc != MCP_ERR_INVALID_ARG || !strstr(why, cases[i].why))
            fail_msg("%s: expected MCP_ERR_INVALID_ARG \"%s\", got %d \"%s\"", cases[i].tmpl,
                     cases[i].why, rc, why);
        assert_null(t);
    }
    /* what RFC 6570 allows */
    const char *good[] = {"", "plain", "{a.b_c%41}", "{x:9999}", "{a,b*,c:1}",
                          "http://x/{+p}{?a}{&b}", "\xe2\x82\xac{x}", "x!$&()*+,;=:@[]~",
                          "{/a}{.b}{;c}{#d}"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        mcp_uri_template_free(parse(good[i]));
    /* why is optional, and cut to its size */
    mcp_uri_template *t;
    assert_int_equal(mcp_uri_template_parse("{", 1, NULL, NULL, &t, NULL, 0), MCP_ERR_INVALID_ARG);
    char small[8];
    assert_int_equal(mcp_uri_template_parse("{", 1, NULL, NULL, &t, small, sizeof small),
                     MCP_ERR_INVALID_ARG);
    assert_string_equal(small, "the '{'");
}

static void variable_names_in_order_of_first_appearance(void **state)
{
    mcp_uri_template *t = parse("x{a}{/b,a}{?c*,b}");
    assert_int_equal(mcp_uri_template_variable_count(t), 3);
    size_t len = 99;
    assert_string_equal(mcp_uri_template_variable_name(t, 0, &len), "a");
    assert_int_equal(len, 1);
    assert_string_equal(mcp_uri_template_variable_name(t, 1, NULL), "b");
    assert_string_equal(mcp_uri_template_variable_name(t, 2, &len), "c");
    assert_null(mcp_uri_template_variable_name(t, 3, &len));
    assert_int_equal(len, 0);
    assert_string_equal(mcp_uri_template_text(t, &len), "x{a}{/b,a}{?c*,b}");
    assert_int_equal(len, 17);
    mcp_uri_template_free(t);
    assert_int_equal(mcp_uri_template_variable_count(NULL), 0);
    assert_null(mcp_uri_template_variable_name(NULL, 0, NULL));
    mcp_uri_template_free(NULL);
}

static void bad_arguments_are_refused(void **state)
{
    mcp_uri_template *t = (mcp_uri_template *)1;
    assert_int_equal(mcp_uri_template_parse(NULL, 1, NULL, NULL, &t, NULL, 0), MCP_ERR_INVALID_ARG);
    assert_null(t);
    assert_int_equal(mcp_uri_template_parse("x", 1, NULL, NULL, NULL, NULL, 0), MCP_ERR_INVALID_ARG);
    mcp_uri_template_options o = {.size = 0};
    assert_int_equal(mcp_uri_template_parse("x", 1, &o, NULL, &t, NULL, 0), MCP_ERR_INVALID_ARG);
    o.size = sizeof o + 8; /* a newer header */
    assert_int_equal(mcp_uri_template_parse("x", 1, &o, NULL, &t, NULL, 0), MCP_ERR_INVALID_ARG);
    mcp_uri_template_options ceilings[] = {
        {.size = sizeof o, .max_length = (64 << 10) + 1},
        {.size = sizeof o, .max_variables = 257},
        {.size = sizeof o, .max_uri_length = (1 << 20) + 1},
    };
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(mcp_uri_template_parse("x", 1, &ceilings[i], NULL, &t, NULL, 0),
                         MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_uri_template_parse(NULL, 0, NULL, NULL, &t, NULL, 0), MCP_OK);
    mcp_json_doc *d = (mcp_json_doc *)1;
    assert_int_equal(mcp_uri_template_match(t, NULL, 1, &d), MCP_ERR_INVALID_ARG);
    assert_null(d);
    assert_int_equal(mcp_uri_template_match(NULL, "x", 1, &d), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_uri_template_match(t, "x", 1, NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_uri_template_match(t, NULL, 0, &d), MCP_OK);
    mcp_json_doc_free(d);
    mcp_uri_template_free(t);
}

/* Caps and bounds ---------------------------------------------------------- */

static void templates_and_uris_over_their_caps_are_refused(void **state)
{
    char *big = malloc((64 << 10) + 2);
    assert_non_null(big);
    mcp_uri_template *t = (mcp_uri_template *)1;
    char why[120];
    /* the default template cap: 8 KiB */
    memset(big, 'a', (64 << 10) + 2);
    assert_int_equal(mcp_uri_template_parse(big, 8192, NULL, NULL, &t, why, sizeof why), MCP_OK);
    mcp_uri_template_free(t);
    assert_int_equal(mcp_uri_template_parse(big, 8193, NULL, NULL, &t, why, sizeof why),
                     MCP_ERR_LIMIT);
    assert_null(t);
    assert_string_equal(why, "the template has 8193 bytes, over the cap of 8192");
    mcp_uri_template_options o = {.size = sizeof o, .max_length = 10};
    assert_int_equal(mcp_uri_template_parse(big, 11, &o, NULL, &t, why, sizeof why), MCP_ERR_LIMIT);
    o.max_length = 64 << 10; /* the ceiling itself is allowed */
    assert_int_equal(mcp_uri_template_parse(big, 64 << 10, &o, NULL, &t, why, sizeof why), MCP_OK);
    mcp_uri_template_free(t);

    /* variable references: 64 by default, a repeated name counts */
    char refs[1024];
    size_t n = 0;
    for (int i = 0; i < 65; i++)
        n += (size_t)sprintf(refs + n, "{x}");
    assert_int_equal(mcp_uri_template_parse(refs, 64 * 3, NULL, NULL, &t, why, sizeof why), MCP_OK);
    mcp_uri_template_free(t);
    assert_int_equal(mcp_uri_template_parse(refs, n, NULL, NULL, &t, why, sizeof why), MCP_ERR_LIMIT);
    assert_string_equal(why, "more than 64 variable references");
    o = (mcp_uri_template_options){.size = sizeof o, .max_variables = 2};
    assert_int_equal(mcp_uri_template_parse("{a,b}", 5, &o, NULL, &t, why, sizeof why), MCP_OK);
    mcp_uri_template_free(t);
    assert_int_equal(mcp_uri_template_parse("{a,b}{c}", 8, &o, NULL, &t, why, sizeof why),
                     MCP_ERR_LIMIT);

    /* URIs: 64 KiB by default */
    t = parse("{+x}");
    memset(big, 'b', (64 << 10) + 1);
    mcp_json_doc *d = NULL;
    assert_int_equal(mcp_uri_template_match(t, big, 64 << 10, &d), MCP_OK);
    size_t len = 0;
    mcp_json_string(mcp_json_object_get(mcp_json_doc_root(d), "x"), &len);
    assert_int_equal(len, 64 << 10);
    mcp_json_doc_free(d);
    assert_int_equal(mcp_uri_template_match(t, big, (64 << 10) + 1, &d), MCP_ERR_LIMIT);
    assert_null(d);
    mcp_uri_template_free(t);
    o = (mcp_uri_template_options){.size = sizeof o, .max_uri_length = 4};
    assert_int_equal(mcp_uri_template_parse("{x}", 3, &o, NULL, &t, why, sizeof why), MCP_OK);
    assert_int_equal(mcp_uri_template_match(t, "abcd", 4, &d), MCP_OK);
    mcp_json_doc_free(d);
    assert_int_equal(mcp_uri_template_match(t, "abcde", 5, &d), MCP_ERR_LIMIT);
    mcp_uri_template_free(t);
    free(big);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A backtracking matcher tries every split of {+a}{+b}...: 64 variables
 * over 64 KiB is astronomically many. Bounded work answers at once. */
static void matching_does_not_backtrack(void **state)
{
    char tmpl[1024];
    size_t n = 0;
    for (int i = 0; i < 63; i++)
        n += (size_t)sprintf(tmpl + n, "{+v%d}", i);
    n += (size_t)sprintf(tmpl + n, "{;p*}x");
    size_t ulen = 64 << 10;
    char *uri = malloc(ulen);
    assert_non_null(uri);
    memset(uri, 'a', ulen);
    mcp_uri_template *t = parse(tmpl);
    mcp_json_doc *d = NULL;
    double start = seconds();
    assert_int_equal(mcp_uri_template_match(t, uri, ulen, &d), MCP_ERR_NOT_FOUND);
    memcpy(uri + ulen - 6, ";p=aax", 6);
    assert_int_equal(mcp_uri_template_match(t, uri, ulen, &d), MCP_OK);
    double took = seconds() - start;
    size_t len = 0;
    mcp_json_string(mcp_json_object_get(mcp_json_doc_root(d), "v0"), &len);
    assert_int_equal(len, ulen - 6 - 62); /* greedy: the rest get one byte */
    mcp_json_doc_free(d);
    /* Each call is about 64 sweeps of 64 KiB: milliseconds, seconds under
     * valgrind. */
    if (took > 60)
        fail_msg("matching took %.1f s", took);
    mcp_uri_template_free(t);

    /* Many '?' and '&' for the query part: one pass, not one per start. */
    t = parse("{+p}{?a,b,c*}");
    for (size_t i = 0; i + 4 <= ulen; i += 4)
        memcpy(uri + i, "&c=1", 4);
    start = seconds();
    assert_int_equal(mcp_uri_template_match(t, uri, ulen, &d), MCP_OK);
    took = seconds() - start;
    /* p takes the first, as it must not be empty */
    assert_int_equal(mcp_json_array_size(mcp_json_object_get(mcp_json_doc_root(d), "c")),
                     ulen / 4 - 1);
    assert_string_equal(mcp_json_string(mcp_json_object_get(mcp_json_doc_root(d), "p"), NULL),
                        "&c=1");
    mcp_json_doc_free(d);
    if (took > 60)
        fail_msg("matching took %.1f s", took);
    mcp_uri_template_free(t);
    free(uri);
}

/* Allocation failures ------------------------------------------------------ */

static void parse_survives_every_allocation_failure(void **state)
{
    const char *tmpl = "db://{table}/rows{/ids*}{;v,w}{?limit,offset}{&tag*}";
    bool succeeded = false;
    for (long k = 1; k < 1000 && !succeeded; k++) {
        failmalloc fm;
        failmalloc_init(&fm, k);
        mcp_uri_template *t = (mcp_uri_template *)1;
        char why[100];
        int rc = mcp_uri_template_parse(tmpl, strlen(tmpl), NULL, &fm.mem, &t, why, sizeof why);
        if (rc == MCP_OK) {
            assert_false(fm.failed);
            assert_int_equal(mcp_uri_template_variable_count(t), 7);
            mcp_uri_template_free(t);
            succeeded = true;
        } else {
            assert_int_equal(rc, MCP_ERR_NOMEM);
            assert_null(t);
            assert_string_equal(why, "");
        }
        assert_int_equal(fm.live, 0);
    }
    assert_true(succeeded);
}

static void match_survives_every_allocation_failure(void **state)
{
    const char *tmpl = "db://{table}/rows{/ids*}{;v,w}{?limit,offset}{&tag*}";
    const char *uri = "db://t/rows/1/2;v=a;w&tag=x&limit=5&tag=y";
    bool succeeded = false;
    for (long k = 1; k < 1000 && !succeeded; k++) {
        failmalloc fm;
        failmalloc_init(&fm, 0);
        mcp_uri_template *t = NULL;
        assert_int_equal(mcp_uri_template_parse(tmpl, strlen(tmpl), NULL, &fm.mem, &t, NULL, 0),
                         MCP_OK);
        fm.fail_at = fm.calls + k;
        mcp_json_doc *d = (mcp_json_doc *)1;
        int rc = mcp_uri_template_match(t, uri, strlen(uri), &d);
        if (rc == MCP_OK) {
            assert_false(fm.failed);
            mcp_buf b;
            mcp_buf_init(&b, 0, NULL);
            assert_int_equal(mcp_json_write(mcp_json_doc_root(d), &b), MCP_OK);
            assert_string_equal(b.data, "{\"table\":\"t\",\"ids\":[\"1\",\"2\"],\"v\":\"a\","
                                        "\"w\":\"\",\"limit\":\"5\",\"tag\":[\"x\",\"y\"]}");
            mcp_buf_free(&b);
            mcp_json_doc_free(d);
            succeeded = true;
        } else {
            assert_int_equal(rc, MCP_ERR_NOMEM);
            assert_null(d);
        }
        mcp_uri_template_free(t);
        assert_int_equal(fm.live, 0);
    }
    assert_true(succeeded);
}

static void expand_survives_every_allocation_failure(void **state)
{
    mcp_json_doc *vars = json(RFC_VARS);
    mcp_uri_template *t = parse("x{/list*}{;keys*}{?hello,count*}{#path}");
    bool succeeded = false;
    for (long k = 1; k < 1000 && !succeeded; k++) {
        failmalloc fm;
        failmalloc_init(&fm, k);
        mcp_buf b;
        mcp_buf_init(&b, 0, &fm.mem);
        int rc = mcp_uri_template_expand(t, mcp_json_doc_root(vars), &b);
        if (rc == MCP_OK) {
            assert_false(fm.failed);
            assert_string_equal(b.data, "x/red/green/blue;semi=%3B;dot=.;comma=%2C"
                                        "?hello=Hello%20World%21&count=one&count=two"
                                        "&count=three#/foo/bar");
            succeeded = true;
        } else {
            assert_int_equal(rc, MCP_ERR_NOMEM);
            assert_int_equal(b.len, 0);
        }
        mcp_buf_free(&b);
        assert_int_equal(fm.live, 0);
    }
    assert_true(succeeded);
    mcp_uri_template_free(t);
    mcp_json_doc_free(vars);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_example_of_rfc_6570_section_3_2_expands),
        cmocka_unit_test(expansion_takes_numbers_booleans_and_counts_characters),
        cmocka_unit_test(expansion_refuses_values_it_cannot_write),
        cmocka_unit_test(the_templates_mcp_servers_use_round_trip),
        cmocka_unit_test(what_matches_and_what_does_not),
        cmocka_unit_test(query_parameters_come_in_any_order_and_unknown_ones_are_refused),
        cmocka_unit_test(values_are_percent_decoded_and_literals_compare_normalised),
        cmocka_unit_test(invalid_utf8_and_percent_sequences),
        cmocka_unit_test(bad_templates_are_refused_with_a_reason),
        cmocka_unit_test(variable_names_in_order_of_first_appearance),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(templates_and_uris_over_their_caps_are_refused),
        cmocka_unit_test(matching_does_not_backtrack),
        cmocka_unit_test(parse_survives_every_allocation_failure),
        cmocka_unit_test(match_survives_every_allocation_failure),
        cmocka_unit_test(expand_survives_every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
