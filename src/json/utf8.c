/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "json/value.h"
#include "mcp/json.h"

int mcp__utf8_seq(const unsigned char *s, size_t avail, const char **why)
{
    unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c < 0xC2) {
        *why = c < 0xC0 ? "invalid UTF-8 (unexpected continuation byte)"
                        : "invalid UTF-8 (overlong encoding)";
        return 0;
    } else if (c < 0xE0) {
        n = 2;
    } else if (c < 0xF0) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; /* below is overlong */
        else if (c == 0xED)
            hi = 0x9F; /* above encodes U+D800..U+DFFF */
    } else if (c < 0xF5) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90; /* below is overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* above is beyond U+10FFFF */
    } else {
        *why = "invalid UTF-8 (byte never valid)";
        return 0;
    }
    if (avail < 2 || s[1] < 0x80 || s[1] > 0xBF) {
        *why = "invalid UTF-8 (truncated sequence)";
        return 0;
    }
    if (s[1] < lo || s[1] > hi) {
        if (c == 0xED)
            *why = "invalid UTF-8 (encoded surrogate)";
        else if (c == 0xF4)
            *why = "invalid UTF-8 (code point above U+10FFFF)";
        else
            *why = "invalid UTF-8 (overlong encoding)";
        return 0;
    }
    for (size_t i = 2; i < n; i++) {
        if (i >= avail || (s[i] & 0xC0) != 0x80) {
            *why = "invalid UTF-8 (truncated sequence)";
            return 0;
        }
    }
    return (int)n;
}

int mcp_utf8_validate(const char *str, size_t len, size_t *bad_offset)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        /* Eight ASCII bytes at a time: the common case. */
        while (i + 8 <= len) {
            uint64_t w;
            __builtin_memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i >= len)
            break;
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        const char *why;
        int n = mcp__utf8_seq(s + i, len - i, &why);
        if (!n) {
            if (bad_offset)
                *bad_offset = i;
            return MCP_ERR_UTF8;
        }
        i += (size_t)n;
    }
    return MCP_OK;
}
