/* SPDX-License-Identifier: MIT */
/*
 * Redis URLs (src/server/tasks/redis_url.c): every part read, and each
 * malformed form refused with why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "mcp/common.h"
#include "server/tasks/redis_link.h"

static void urls_parse_and_bad_ones_say_why(void **state)
{
    mcp__redis_address a;
    char why[128];
    assert_true(mcp__redis_url_parse("redis://localhost", &a, why, sizeof why));
    assert_string_equal(a.host, "localhost");
    assert_int_equal(a.port, 6379);
    assert_int_equal(a.db, 0);
    assert_string_equal(a.password, "");
    assert_string_equal(a.user, "");
    assert_true(mcp__redis_url_parse("REDIS://10.0.0.1:7000/5", &a, why, sizeof why));
    assert_string_equal(a.host, "10.0.0.1");
    assert_int_equal(a.port, 7000);
    assert_int_equal(a.db, 5);
    assert_true(mcp__redis_url_parse("redis://:s3cret@h:1/", &a, why, sizeof why));
    assert_string_equal(a.password, "s3cret");
    assert_string_equal(a.user, "");
    assert_int_equal(a.port, 1);
    assert_int_equal(a.db, 0);
    assert_true(mcp__redis_url_parse("redis://alice:p%40ss%3Aw@ord@[::1]:65535/2147483647", &a,
                                     why, sizeof why));
    assert_string_equal(a.user, "alice");
    assert_string_equal(a.password, "p@ss:w@ord"); /* the last '@' ends it */
    assert_string_equal(a.host, "::1");
    assert_int_equal(a.port, 65535);
    assert_int_equal(a.db, 2147483647);
    assert_true(mcp__redis_url_parse("redis://[fe80::1]", &a, why, sizeof why));
    assert_string_equal(a.host, "fe80::1");
    assert_true(mcp__redis_url_parse("redis://redis_1.internal-net", &a, why, sizeof why));

    char host[300], pass[300];
    memset(host, 'h', 255);
    host[255] = '\0';
    memset(pass, 'p', 255);
    pass[255] = '\0';
    char url[700];
    snprintf(url, sizeof url, "redis://:%s@%s", pass, host);
    assert_true(mcp__redis_url_parse(url, &a, why, sizeof why));
    assert_int_equal(strlen(a.host), 255);
    assert_int_equal(strlen(a.password), 255);

    static const struct {
        const char *url, *why;
    } bad[] = {
        {"http://localhost", "not a redis:// URL"},
        {"redis:/localhost", "not a redis:// URL"},
        {"", "not a redis:// URL"},
        {"rediss://localhost", "TLS"},
        {"redis://", "empty host"},
        {"redis:///0", "empty host"},
        {"redis://:6379", "empty host"},
        {"redis://:pw@", "empty host"},
        {"redis://[]:1", "empty host"},
        {"redis://h:0", "port is not a number in 1..65535"},
        {"redis://h:65536", "port is not a number in 1..65535"},
        {"redis://h:", "port is not a number in 1..65535"},
        {"redis://h:-1", "port is not a number in 1..65535"},
        {"redis://h:12ab", "port is not a number in 1..65535"},
        {"redis://h:99999999999", "port is not a number in 1..65535"},
        {"redis://h/x", "db is not a whole number"},
        {"redis://h/-1", "db is not a whole number"},
        {"redis://h/2147483648", "db is not a whole number"},
        {"redis://h/1/2", "db is not a whole number"},
        {"redis://h/99999999999", "db is not a whole number"},
        {"redis://h?db=1", "query or fragment"},
        {"redis://h/1#x", "db is not a whole number"},
        {"redis://h#x", "query or fragment"},
        {"redis://pw@h", "no ':' before the password"},
        {"redis://alice:@h", "a user without a password"},
        {"redis://:p%zzw@h", "the password: a '%' not followed by two hex digits"},
        {"redis://:pw%4@h", "the password: a '%' not followed by two hex digits"},
        {"redis://:pw%@h", "the password: a '%' not followed by two hex digits"},
        {"redis://:p%00w@h", "the password: a NUL"},
        {"redis://a%2:pw@h", "the user: a '%' not followed"},
        {"redis://[::1:6379", "without its ']'"},
        {"redis://[nothost]:1", "not an IPv6 address"},
        {"redis://[::1]x", "after the IPv6 address"},
        {"redis://ho st", "a character a host name cannot have"},
        {"redis://::1", "empty host"},
        {"redis://h\x01", "a character a host name cannot have"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        a.port = 42;
        if (mcp__redis_url_parse(bad[i].url, &a, why, sizeof why))
            fail_msg("%s was accepted", bad[i].url);
        if (!strstr(why, bad[i].why))
            fail_msg("%s: said \"%s\", not \"%s\"", bad[i].url, why, bad[i].why);
        assert_int_equal(a.port, 42); /* untouched */
    }
    /* Too long: each part at its cap plus one. */
    memset(host, 'h', 256);
    host[256] = '\0';
    snprintf(url, sizeof url, "redis://%s", host);
    assert_false(mcp__redis_url_parse(url, &a, why, sizeof why));
    assert_non_null(strstr(why, "host is too long"));
    memset(pass, 'p', 256);
    pass[256] = '\0';
    snprintf(url, sizeof url, "redis://:%s@h", pass);
    assert_false(mcp__redis_url_parse(url, &a, why, sizeof why));
    assert_non_null(strstr(why, "the password: too long"));
    memset(pass, 'u', 128);
    pass[128] = '\0';
    snprintf(url, sizeof url, "redis://%s:pw@h", pass);
    assert_false(mcp__redis_url_parse(url, &a, why, sizeof why));
    assert_non_null(strstr(why, "the user: too long"));
    /* No room for why, or none at all: still refused. */
    assert_false(mcp__redis_url_parse("redis://h:0", &a, NULL, 0));
    assert_false(mcp__redis_url_parse("redis://h:0", &a, why, 1));
    assert_string_equal(why, "");
    assert_false(mcp__redis_url_parse(NULL, &a, why, sizeof why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(urls_parse_and_bad_ones_say_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
