/* SPDX-License-Identifier: MIT */
#include "json/scan.h"

#include <string.h>

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && is_ws(*p))
        p++;
    return p;
}

/* Past the string whose opening quote is at p; NULL when it does not end
 * before `end`. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\') {
            if (++p == end)
                break;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

static bool is_scalar_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-' || c == '+' || c == '.';
}

/* Past the value at p: MCP__SCAN_MEMBER with *after set, or TRUNCATED, or
 * BAD. */
static int skip_value(const char *p, const char *end, const char **after)
{
    if (p >= end)
        return MCP__SCAN_TRUNCATED;
    if (*p == '"') {
        const char *q = skip_string(p, end);
        if (!q)
            return MCP__SCAN_TRUNCATED;
        *after = q;
        return MCP__SCAN_MEMBER;
    }
    if (*p == '{' || *p == '[') {
        size_t depth = 0;
        while (p < end) {
            char c = *p;
            if (c == '"') {
                p = skip_string(p, end);
                if (!p)
                    return MCP__SCAN_TRUNCATED;
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    *after = p + 1;
                    return MCP__SCAN_MEMBER;
                }
            }
            p++;
        }
        return MCP__SCAN_TRUNCATED;
    }
    const char *q = p;
    while (q < end && is_scalar_char(*q))
        q++;
    if (q == p)
        return MCP__SCAN_BAD;
    if (q == end)
        return MCP__SCAN_TRUNCATED; /* the number may go on */
    *after = q;
    return MCP__SCAN_MEMBER;
}

bool mcp__scan_open(mcp__scan *sc, const char *text, size_t len)
{
    sc->end = text + len;
    sc->p = skip_ws(text, sc->end);
    sc->first = true;
    if (sc->p >= sc->end || *sc->p != '{')
        return false;
    sc->p++;
    return true;
}

int mcp__scan_key(mcp__scan *sc, mcp__span *key)
{
    key->p = NULL;
    key->n = 0;
    const char *p = skip_ws(sc->p, sc->end);
    if (p >= sc->end)
        return MCP__SCAN_TRUNCATED;
    if (*p == '}')
        return MCP__SCAN_END;
    if (!sc->first) {
        if (*p != ',')
            return MCP__SCAN_BAD;
        p = skip_ws(p + 1, sc->end);
        if (p >= sc->end)
            return MCP__SCAN_TRUNCATED;
    }
    if (*p != '"')
        return MCP__SCAN_BAD;
    const char *k = p;
    p = skip_string(p, sc->end);
    if (!p)
        return MCP__SCAN_TRUNCATED;
    key->p = k;
    key->n = (size_t)(p - k);
    p = skip_ws(p, sc->end);
    if (p >= sc->end)
        return MCP__SCAN_TRUNCATED;
    if (*p != ':')
        return MCP__SCAN_BAD;
    sc->p = skip_ws(p + 1, sc->end);
    return MCP__SCAN_MEMBER;
}

int mcp__scan_value(mcp__scan *sc, mcp__span *value)
{
    const char *after;
    int rc = skip_value(sc->p, sc->end, &after);
    if (rc != MCP__SCAN_MEMBER)
        return rc;
    value->p = sc->p;
    value->n = (size_t)(after - sc->p);
    sc->p = after;
    sc->first = false;
    return MCP__SCAN_MEMBER;
}

int mcp__scan_next(mcp__scan *sc, mcp__span *key, mcp__span *value)
{
    int rc = mcp__scan_key(sc, key);
    return rc == MCP__SCAN_MEMBER ? mcp__scan_value(sc, value) : rc;
}

/* Backward ---------------------------------------------------------------- */

static const char *rskip_ws(const char *begin, const char *p)
{
    while (p > begin && is_ws(p[-1]))
        p--;
    return p;
}

/* The opening quote of the string whose closing quote is at q[-1]: the
 * first quote before it that is not escaped (preceded by an even number of
 * backslashes). NULL when the text begins inside the string. */
static const char *rskip_string(const char *begin, const char *q)
{
    for (const char *p = q - 1; p > begin;) {
        p--;
        if (*p != '"')
            continue;
        size_t backslashes = 0;
        for (const char *b = p; b > begin && b[-1] == '\\'; b--)
            backslashes++;
        if (backslashes % 2 == 0)
            return p;
    }
    return NULL;
}

/* The opening bracket of the object or array whose closing bracket is at
 * end[-1]: brackets counted, strings skipped whole (so their brackets and
 * escaped quotes do not count). NULL when the text begins inside it. */
static const char *rskip_container(const char *begin, const char *end)
{
    size_t depth = 0;
    for (const char *p = end; p > begin;) {
        char ch = p[-1];
        if (ch == '"') {
            p = rskip_string(begin, p);
            if (!p)
                return NULL;
            continue;
        }
        p--;
        if (ch == '}' || ch == ']')
            depth++;
        else if ((ch == '{' || ch == '[') && --depth == 0)
            return p;
    }
    return NULL;
}

bool mcp__rscan_open(mcp__rscan *sc, const char *text, size_t len)
{
    sc->begin = text;
    sc->p = rskip_ws(text, text + len);
    sc->done = false;
    if (sc->p == text || sc->p[-1] != '}')
        return false;
    sc->p--;
    return true;
}

int mcp__rscan_next(mcp__rscan *sc, mcp__span *key, mcp__span *value)
{
    if (sc->done)
        return MCP__SCAN_END;
    const char *b = sc->begin;
    const char *p = rskip_ws(b, sc->p);
    if (p == b)
        return MCP__SCAN_TRUNCATED;
    const char *vend = p, *vstart;
    char c = p[-1];
    if (c == '"') {
        vstart = rskip_string(b, p);
        if (!vstart)
            return MCP__SCAN_TRUNCATED;
    } else if (is_scalar_char(c)) {
        vstart = p;
        while (vstart > b && is_scalar_char(vstart[-1]))
            vstart--;
        if (vstart == b)
            return MCP__SCAN_TRUNCATED;
    } else if (c == '{' && p - 1 == b) {
        return MCP__SCAN_END; /* an empty object */
    } else if (c == '}' || c == ']') {
        vstart = rskip_container(b, p);
        if (!vstart)
            return MCP__SCAN_TRUNCATED;
    } else {
        return MCP__SCAN_BAD; /* not a member at all */
    }
    p = rskip_ws(b, vstart);
    if (p == b)
        return MCP__SCAN_TRUNCATED;
    if (p[-1] != ':')
        return MCP__SCAN_BAD;
    p = rskip_ws(b, p - 1);
    if (p == b)
        return MCP__SCAN_TRUNCATED;
    if (p[-1] != '"')
        return MCP__SCAN_BAD;
    const char *kstart = rskip_string(b, p);
    if (!kstart)
        return MCP__SCAN_TRUNCATED;
    key->p = kstart;
    key->n = (size_t)(p - kstart);
    value->p = vstart;
    value->n = (size_t)(vend - vstart);
    p = rskip_ws(b, kstart);
    if (p == b)
        return MCP__SCAN_TRUNCATED;
    if (p[-1] == '{')
        sc->done = true; /* that was the first member */
    else if (p[-1] != ',')
        return MCP__SCAN_BAD;
    sc->p = p - 1;
    return MCP__SCAN_MEMBER;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The next character of a string's contents at *p (before end), escapes
 * decoded, as UTF-8 into out; its length, or 0 when malformed. */
static size_t next_char(const char **p, const char *end, char out[4])
{
    const char *q = *p;
    if (*q != '\\') {
        out[0] = *q;
        *p = q + 1;
        return 1;
    }
    if (end - q < 2)
        return 0;
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *e = strchr(from, q[1]);
    if (e && q[1]) {
        out[0] = to[e - from];
        *p = q + 2;
        return 1;
    }
    if (q[1] != 'u' || end - q < 6)
        return 0;
    long cp = hex4(q + 2);
    q += 6;
    if (cp >= 0xD800 && cp < 0xDC00) { /* a pair: the low half must follow */
        int lo = end - q >= 6 && q[0] == '\\' && q[1] == 'u' ? hex4(q + 2) : -1;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return 0;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        q += 6;
    } else if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) {
        return 0;
    }
    *p = q;
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

bool mcp__span_is_key(mcp__span key, const char *name)
{
    if (key.n < 2 || key.p[0] != '"' || key.p[key.n - 1] != '"')
        return false;
    /* Compared as the parser reads it: "\u0069d" is the key "id" too. An
     * escape makes the written key longer than what it reads as: a key
     * written no longer than name is name only as the same bytes, none of
     * them an escape's. */
    const char *p = key.p + 1, *end = key.p + key.n - 1;
    size_t n = strlen(name), at = 0;
    if ((size_t)(end - p) <= n)
        return (size_t)(end - p) == n && memcmp(p, name, n) == 0 && !memchr(p, '\\', n);
    while (p < end) {
        char c[4];
        size_t k = next_char(&p, end, c);
        if (!k || k > n - at || memcmp(name + at, c, k) != 0)
            return false;
        at += k;
    }
    return at == n;
}
