/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "mcp/common.h"

/* The escape for the character at p (n bytes left), or 0 when it is shown
 * as is; *used gets its byte count. */
static size_t escape_of(const unsigned char *p, size_t n, char esc[8], size_t *used)
{
    *used = 1;
    unsigned char c = p[0];
    if (c == '\n' || c == '\r' || c == '\t') {
        esc[0] = '\\';
        esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        return 2;
    }
    if (c < 0x20 || c == 0x7f) {
        snprintf(esc, 8, "\\x%02x", c);
        return 4;
    }
    if (c == 0xc2 && n >= 2 && p[1] >= 0x80 && p[1] <= 0x9f) { /* C1, as UTF-8 */
        *used = 2;
        snprintf(esc, 8, "\\u%04x", p[1]);
        return 6;
    }
    /* Bidirectional controls reorder what a reader sees ("Trojan Source"):
     * U+061C, U+200E-200F, U+202A-202E, U+2066-2069. */
    unsigned cp = 0;
    if (c == 0xd8 && n >= 2 && p[1] == 0x9c)
        cp = 0x061c, *used = 2;
    else if (c == 0xe2 && n >= 3 && p[1] == 0x80 &&
             ((p[2] >= 0x8e && p[2] <= 0x8f) || (p[2] >= 0xaa && p[2] <= 0xae)))
        cp = 0x2000u + (p[2] - 0x80u), *used = 3;
    else if (c == 0xe2 && n >= 3 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
        cp = 0x2040u + (p[2] - 0x80u), *used = 3;
    if (cp) {
        snprintf(esc, 8, "\\u%04x", cp);
        return 6;
    }
    return 0;
}

/* The bytes of the character at p shown as is: one, or a UTF-8 sequence
 * kept whole so that a cut never splits it. */
static size_t plain_length(const unsigned char *p, size_t n)
{
    size_t k = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 1;
    if (k > n)
        return 1;
    for (size_t i = 1; i < k; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 1; /* not a sequence: byte by byte */
    return k;
}

size_t mcp_text_escape_controls(const char *text, size_t len, char *out, size_t size)
{
    if (!size)
        return 0;
    const unsigned char *p = (const unsigned char *)text;
    size_t at = 0;
    for (size_t i = 0; i < len;) {
        char esc[8];
        size_t used, k = escape_of(p + i, len - i, esc, &used);
        const char *piece = esc;
        if (!k) {
            k = used = plain_length(p + i, len - i);
            piece = text + i;
        }
        if (k >= size - at)
            break;
        memcpy(out + at, piece, k);
        at += k;
        i += used;
    }
    out[at] = '\0';
    return at;
}

int mcp_text_escape_controls_buf(const char *text, size_t len, mcp_buf *out)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t plain = 0; /* a run of bytes shown as is, appended at once */
    for (size_t i = 0; i < len;) {
        char esc[8];
        size_t used, k = escape_of(p + i, len - i, esc, &used);
        if (!k) {
            i++;
            plain++;
            continue;
        }
        int rc = mcp_buf_append(out, text + i - plain, plain);
        if (rc == MCP_OK)
            rc = mcp_buf_append(out, esc, k);
        if (rc != MCP_OK)
            return rc;
        plain = 0;
        i += used;
    }
    return mcp_buf_append(out, text + len - plain, plain);
}
