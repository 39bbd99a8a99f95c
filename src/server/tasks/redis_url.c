/* SPDX-License-Identifier: MIT */
/*
 * Redis URLs (redis_link.h): redis://[[USER]:PASS@]HOST[:PORT][/DB] read
 * into the address a link connects to, every malformed form said why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/tasks/redis_link.h"

static bool fail(char *why, size_t n, const char *what)
{
    if (why && n)
        snprintf(why, n, "%s", what);
    return false;
}

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Percent-decode s (n bytes) into out (cap bytes with its NUL): NULL, or
 * what is wrong. Any byte but NUL (AUTH takes a C string). */
static const char *decode(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '%') {
            int hi = i + 2 < n ? hex(s[i + 1]) : -1, lo = i + 2 < n ? hex(s[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                return "a '%' not followed by two hex digits";
            ch = (char)(hi * 16 + lo);
            if (!ch)
                return "a NUL (%00)";
            i += 2;
        }
        if (k + 1 >= cap)
            return "too long";
        out[k++] = ch;
    }
    out[k] = '\0';
    return NULL;
}

/* Digits only (at most 10), as a value: -1 when not that. */
static long long digits(const char *s, size_t n)
{
    if (n == 0 || n > 10)
        return -1;
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

bool mcp__redis_url_parse(const char *url, mcp__redis_address *out, char *why, size_t n)
{
    if (!url || !out)
        return fail(why, n, "no URL");
    if (strncasecmp(url, "redis://", 8) != 0) {
        if (!strncasecmp(url, "rediss://", 9))
            return fail(why, n, "rediss:// (TLS) is not supported");
        return fail(why, n, "not a redis:// URL");
    }
    mcp__redis_address a;
    memset(&a, 0, sizeof a);
    a.port = 6379;
    const char *s = url + 8;
    size_t auth_len = strcspn(s, "/?#");
    const char *end = s + auth_len;
    const char *at = NULL; /* the last '@': a raw '@' in a password stays its own */
    for (const char *q = s; q < end; q++)
        if (*q == '@')
            at = q;
    const char *host = s;
    if (at) {
        const char *colon = memchr(s, ':', (size_t)(at - s));
        if (!colon)
            return fail(why, n,
                        "no ':' before the password (redis://:password@host or "
                        "redis://user:password@host)");
        const char *bad = decode(s, (size_t)(colon - s), a.user, sizeof a.user);
        if (bad) {
            if (why && n)
                snprintf(why, n, "the user: %s", bad);
            return false;
        }
        bad = decode(colon + 1, (size_t)(at - colon - 1), a.password, sizeof a.password);
        if (bad) {
            if (why && n)
                snprintf(why, n, "the password: %s", bad);
            return false;
        }
        if (a.user[0] && !a.password[0])
            return fail(why, n, "a user without a password");
        host = at + 1;
    }
    const char *port = NULL;
    if (*host == '[') {
        const char *close = memchr(host, ']', (size_t)(end - host));
        if (!close)
            return fail(why, n, "an IPv6 address without its ']'");
        size_t len = (size_t)(close - host - 1);
        if (len == 0)
            return fail(why, n, "an empty host");
        if (len >= sizeof a.host)
            return fail(why, n, "the host is too long");
        memcpy(a.host, host + 1, len);
        a.host[len] = '\0';
        unsigned char bin[16];
        if (inet_pton(AF_INET6, a.host, bin) != 1)
            return fail(why, n, "not an IPv6 address between '[' and ']'");
        if (close + 1 < end && close[1] != ':')
            return fail(why, n, "something after the IPv6 address's ']' but a port");
        port = close + 1 < end ? close + 1 : NULL;
    } else {
        const char *colon = memchr(host, ':', (size_t)(end - host));
        size_t len = (size_t)((colon ? colon : end) - host);
        if (len == 0)
            return fail(why, n, "an empty host");
        if (len >= sizeof a.host)
            return fail(why, n, "the host is too long");
        for (size_t i = 0; i < len; i++) {
            char ch = host[i];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '.' || ch == '-' || ch == '_'))
                return fail(why, n,
                            "the host has a character a host name cannot have (an IPv6 address "
                            "goes in [ ])");
        }
        memcpy(a.host, host, len);
        a.host[len] = '\0';
        port = colon;
    }
    if (port) {
        long long v = digits(port + 1, (size_t)(end - port - 1));
        if (v < 1 || v > 65535)
            return fail(why, n, "the port is not a number in 1..65535");
        a.port = (int)v;
    }
    if (*end == '?' || *end == '#')
        return fail(why, n, "a query or fragment (not supported: the db goes in the path)");
    if (*end == '/' && end[1]) {
        long long v = digits(end + 1, strlen(end + 1));
        if (v < 0 || v > INT_MAX)
            return fail(why, n, "the db is not a whole number in 0..2147483647");
        a.db = (int)v;
    }
    *out = a;
    if (why && n)
        why[0] = '\0';
    return true;
}
