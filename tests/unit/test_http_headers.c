/* SPDX-License-Identifier: MIT */
/* Unit tests for src/transport/http_headers.c and src/core/base64.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "failmalloc.h"
#include "transport/http_headers.h"

static void expect_encoding(const char *value, size_t n, const char *header)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__http_value_encode(&b, value, n), MCP_OK);
    assert_int_equal(b.len, strlen(header));
    assert_memory_equal(b.data, header, b.len);
    /* And back. */
    mcp_buf d;
    mcp_buf_init(&d, 0, NULL);
    assert_int_equal(mcp__http_value_decode(&d, b.data, b.len), MCP_OK);
    assert_int_equal(d.len, n);
    if (n)
        assert_memory_equal(d.data, value, n);
    mcp_buf_free(&b);
    mcp_buf_free(&d);
}

/* The specification's own table (streamable-http.mdx, Value Encoding). */
static void values_are_encoded_as_the_specification_shows(void **state)
{
    (void)state;
    expect_encoding("us-west1", 8, "us-west1");
    expect_encoding("Hello, \xe4\xb8\x96\xe7\x95\x8c", 13, "=?base64?SGVsbG8sIOS4lueVjA==?=");
    expect_encoding(" padded ", 8, "=?base64?IHBhZGRlZCA=?=");
    expect_encoding("line1\nline2", 11, "=?base64?bGluZTEKbGluZTI=?=");
    expect_encoding("=?base64?literal?=", 18, "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
}

static void edges_and_controls_force_the_sentinel(void **state)
{
    (void)state;
    expect_encoding("a b\tc", 5, "a b\tc"); /* inner blanks are fine */
    expect_encoding("\ta", 2, "=?base64?CWE=?=");
    expect_encoding("a\t", 2, "=?base64?YQk=?=");
    expect_encoding("a\x7f", 2, "=?base64?YX8=?=");
    expect_encoding("a\0b", 3, "=?base64?YQBi?=");
    expect_encoding("", 0, "");
    /* Only the full pattern is ambiguous. */
    expect_encoding("=?base64?", 9, "=?base64?");
    expect_encoding("?=", 2, "?=");
}

static int decode(const char *header, mcp_buf *out)
{
    mcp_buf_init(out, 0, NULL);
    return mcp__http_value_decode(out, header, strlen(header));
}

static void bad_header_values_are_refused(void **state)
{
    (void)state;
    mcp_buf b;
    const char *bad[] = {
        "=?base64?SGVsbG8?=",   /* not a multiple of four */
        "=?base64?SGVsbG9=?=",  /* pad bits not zero ("Hello" is SGVsbG8=) */
        "=?base64?SGV sbG8=?=", /* a blank inside */
        "=?base64?SGVs=G8=?=",  /* padding inside */
        "=?base64?====?=",      /* only padding */
        "caf\xc3\xa9",          /* raw non-ASCII */
        "a\rb",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(decode(bad[i], &b), MCP_ERR_INVALID_ARG);
        assert_int_equal(b.len, 0);
        mcp_buf_free(&b);
    }
    assert_int_equal(decode("=?base64?" "?=", &b), MCP_OK); /* the empty value */
    assert_int_equal(b.len, 0);
    mcp_buf_free(&b);
}

static void base64_round_trips_every_length(void **state)
{
    (void)state;
    unsigned char bytes[64];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 37 + 11);
    for (size_t n = 0; n <= sizeof bytes; n++) {
        mcp_buf e, d;
        mcp_buf_init(&e, 0, NULL);
        mcp_buf_init(&d, 0, NULL);
        assert_int_equal(mcp__base64_encode(&e, bytes, n), MCP_OK);
        assert_int_equal(e.len, (n + 2) / 3 * 4);
        assert_int_equal(mcp__base64_decode(&d, e.data ? e.data : "", e.len), MCP_OK);
        assert_int_equal(d.len, n);
        if (n)
            assert_memory_equal(d.data, bytes, n);
        mcp_buf_free(&e);
        mcp_buf_free(&d);
    }
}

/* Base64url without padding (JOSE): every length round trips, the RFC 7515
 * appendix C example decodes, and only the canonical spelling is taken. */
static void base64url_round_trips_and_takes_only_the_canonical_form(void **state)
{
    (void)state;
    unsigned char bytes[64];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 53 + 250);
    for (size_t n = 0; n <= sizeof bytes; n++) {
        mcp_buf e, d;
        mcp_buf_init(&e, 0, NULL);
        mcp_buf_init(&d, 0, NULL);
        assert_int_equal(mcp__base64url_encode(&e, bytes, n), MCP_OK);
        assert_int_equal(e.len, n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0));
        if (e.len)
            assert_null(strpbrk(e.data, "+/="));
        assert_int_equal(mcp__base64url_decode(&d, e.data ? e.data : "", e.len), MCP_OK);
        assert_int_equal(d.len, n);
        if (n)
            assert_memory_equal(d.data, bytes, n);
        mcp_buf_free(&e);
        mcp_buf_free(&d);
    }
    mcp_buf d;
    mcp_buf_init(&d, 0, NULL);
    /* RFC 7515 appendix C: the bytes 3, 236, 255, 224, 193. */
    assert_int_equal(mcp__base64url_decode(&d, "A-z_4ME", 7), MCP_OK);
    assert_int_equal(d.len, 5);
    assert_memory_equal(d.data, "\x03\xec\xff\xe0\xc1", 5);
    static const char *const bad[] = {
        "A-z_4ME=", /* padding */
        "A+z/4ME",  /* the other alphabet */
        "A-z_4MF",  /* unused bits set */
        "AQ",       /* fine: the byte 1 */
        "AB",       /* the same byte, unused bits set */
        "A",        /* one char left over */
        "AB C",     /* whitespace */
        "QQ==",
    };
    const bool ok[] = {false, false, false, true, false, false, false, false};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t before = d.len;
        int rc = mcp__base64url_decode(&d, bad[i], strlen(bad[i]));
        if ((rc == MCP_OK) != ok[i])
            fail_msg("%s: %d", bad[i], rc);
        if (rc != MCP_OK)
            assert_int_equal(d.len, before); /* nothing appended */
    }
    mcp_buf_free(&d);
}

static void base64_appends_nothing_past_the_cap(void **state)
{
    (void)state;
    mcp_buf b;
    mcp_buf_init(&b, 6, NULL);
    assert_int_equal(mcp_buf_append(&b, "xy", 2), MCP_OK);
    assert_int_equal(mcp__base64_encode(&b, "abcd", 4), MCP_ERR_LIMIT); /* 8 more */
    assert_int_equal(b.len, 2);
    assert_int_equal(mcp__http_value_encode(&b, "\x01", 1), MCP_ERR_LIMIT);
    assert_int_equal(b.len, 2);
    assert_string_equal(b.data, "xy");
    mcp_buf_free(&b);

    failmalloc fm;
    failmalloc_init(&fm, 1);
    mcp_buf_init(&b, 0, &fm.mem);
    assert_int_equal(mcp__base64_decode(&b, "YWJj", 4), MCP_ERR_NOMEM);
    assert_int_equal(b.len, 0);
    mcp_buf_free(&b);
    assert_int_equal(fm.live, 0);
}

static void header_names_are_tokens(void **state)
{
    (void)state;
    assert_true(mcp__http_token_valid("Region", 6));
    assert_true(mcp__http_token_valid("x-Tenant_1.~!#$%&'*+^`|", 23));
    assert_false(mcp__http_token_valid("", 0));
    assert_false(mcp__http_token_valid("a b", 3));
    assert_false(mcp__http_token_valid("a:b", 3));
    assert_false(mcp__http_token_valid("a\0b", 3));
    assert_false(mcp__http_token_valid("caf\xc3\xa9", 5));
    assert_false(mcp__http_token_valid("a\r\n", 3));
}

static void urls_are_shown_without_passwords_or_controls(void **state)
{
    char out[64];
    static const char *const cases[][2] = {
        {"http://u:pw@h/p", "http://u:***@h/p"},
        {"http://u:@h/", "http://u:***@h/"},
        {"http://u@h/", "http://u@h/"},              /* no password: nothing hidden */
        {"http://h/a@b:c", "http://h/a@b:c"},        /* an @ in the path is no userinfo */
        {"http://a:b@c@h/", "http://a:***@h/"},      /* the last @ ends the userinfo */
        {"http://h/\x01\xc3\xa9", "http://h/???"}, /* controls and non-ASCII */
        {"", ""}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(mcp__http_url_shown(cases[i][0], out, sizeof out), cases[i][1]);
    /* Cut to fit, and says so; the password is never half shown. */
    assert_string_equal(mcp__http_url_shown("http://host.example/abcdefgh", out, 16),
                        "http://host....");
    assert_string_equal(mcp__http_url_shown("http://u:secret@h/", out, 12), "http://u...");
    assert_string_equal(mcp__http_url_shown("http://x/", out, 4), "...");
}

static void an_empty_header_value_becomes_curls_semicolon_form(void **state)
{
    static const char *const cases[][2] = {{"X-A:", "X-A;"},
                                           {"X-A: \t ", "X-A;"},
                                           {"X-A: v", "X-A: v"},
                                           {"X-A:v ", "X-A:v "}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *h = mcp__http_header_for_curl(cases[i][0]);
        assert_non_null(h);
        assert_string_equal(h, cases[i][1]);
        free(h);
    }
}

/* The server's checks of Host, Origin, Accept, Content-Type and
 * Transfer-Encoding read the values these say. */
static void request_header_values_are_read_as_rfc_9110_says(void **state)
{
    assert_true(mcp__http_accepts("application/json, text/event-stream", "text/event-stream"));
    assert_true(mcp__http_accepts("text/*;q=0.5", "text/event-stream"));
    assert_true(mcp__http_accepts(" */*", "application/json"));
    assert_true(mcp__http_accepts("APPLICATION/JSON", "application/json"));
    assert_false(mcp__http_accepts("application/jsonl", "application/json"));
    assert_false(mcp__http_accepts("text/html, application/*x", "application/json"));
    assert_false(mcp__http_accepts(NULL, "application/json"));
    assert_true(mcp__http_media_is("application/json; charset=utf-8",
                                   MCP_LITERAL("application/json"), ""));
    assert_false(mcp__http_media_is("application/json-seq", MCP_LITERAL("application/json"), ""));
    static const char *const loopback[] = {"localhost", "LOCALHOST:8080", "127.0.0.1:1",
                                           "[::1]"};
    for (size_t i = 0; i < sizeof loopback / sizeof loopback[0]; i++)
        assert_true(mcp__http_loopback_name(loopback[i], strlen(loopback[i])));
    static const char *const other[] = {"localhost.evil", "localhost:", "127.0.0.1:8x",
                                        "127.0.0.10", "[::1]x", ""};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        assert_false(mcp__http_loopback_name(other[i], strlen(other[i])));
    char *names[] = {"a.example", "B.example", NULL};
    assert_true(mcp__http_name_in_list(names, "b.EXAMPLE", 9));
    assert_false(mcp__http_name_in_list(names, "a.exampl", 8));
    char *all[] = {"*", NULL};
    assert_true(mcp__http_name_in_list(all, "anything", 8));
    assert_false(mcp__http_name_in_list(NULL, "x", 1));
    assert_true(mcp__http_chunked_last("gzip, Chunked "));
    assert_true(mcp__http_chunked_last("\tchunked"));
    assert_false(mcp__http_chunked_last("chunked, gzip"));
    assert_false(mcp__http_chunked_last("xchunked"));
}

/* Response header values kept: trimmed, WWW-Authenticate's lines combined
 * with ", ", any other the first one only, 8 KiB at most in all. */
static void header_values_are_kept_trimmed_and_bounded(void **state)
{
    (void)state;
    char *kept = NULL;
    mcp__http_header_keep(&kept, " Bearer a=\"1\"\r\n", 15, true);
    assert_string_equal(kept, "Bearer a=\"1\"");
    mcp__http_header_keep(&kept, " DPoP x=2 ", 10, true);
    assert_string_equal(kept, "Bearer a=\"1\", DPoP x=2");
    mcp__http_header_keep(&kept, "   ", 3, true); /* nothing: nothing added */
    assert_string_equal(kept, "Bearer a=\"1\", DPoP x=2");
    char *big = malloc(9000);
    memset(big, 'b', 9000);
    mcp__http_header_keep(&kept, big, 9000, true); /* past the cap: dropped */
    assert_string_equal(kept, "Bearer a=\"1\", DPoP x=2");
    free(kept);
    kept = NULL;
    mcp__http_header_keep(&kept, "n1", 2, false);
    mcp__http_header_keep(&kept, "n2", 2, false); /* not combined: the first stays */
    assert_string_equal(kept, "n1");
    free(kept);
    kept = NULL;
    mcp__http_header_keep(&kept, big, 8192, false); /* the cap counts the separator */
    assert_null(kept);
    mcp__http_header_keep(&kept, big, 8190, false);
    assert_int_equal(strlen(kept), 8190);
    free(kept);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(values_are_encoded_as_the_specification_shows),
        cmocka_unit_test(edges_and_controls_force_the_sentinel),
        cmocka_unit_test(bad_header_values_are_refused),
        cmocka_unit_test(base64_round_trips_every_length),
        cmocka_unit_test(base64_appends_nothing_past_the_cap),
        cmocka_unit_test(base64url_round_trips_and_takes_only_the_canonical_form),
        cmocka_unit_test(header_names_are_tokens),
        cmocka_unit_test(urls_are_shown_without_passwords_or_controls),
        cmocka_unit_test(an_empty_header_value_becomes_curls_semicolon_form),
        cmocka_unit_test(request_header_values_are_read_as_rfc_9110_says),
        cmocka_unit_test(header_values_are_kept_trimmed_and_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
