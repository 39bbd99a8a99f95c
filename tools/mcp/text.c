/* SPDX-License-Identifier: MIT */
/* Server text made safe for a terminal, and checking that stdout was written. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "text.h"

/* The length of the UTF-8 character at p (1 to 4) and its code point, or 0
 * when p does not start a valid one (overlong, surrogate, above U+10FFFF,
 * cut short). */
static size_t utf8_char(const unsigned char *p, size_t n, uint32_t *cp)
{
    unsigned c = p[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

size_t cli_sanitize(mcp_buf *b, const char *s, size_t n, bool keep_newlines, size_t limit)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp = 0;
        size_t len = utf8_char(p + i, n - i, &cp);
        char esc[8];
        const char *out = (const char *)p + i;
        size_t out_len = len;
        if (len == 0) { /* not UTF-8: the byte, visibly */
            snprintf(esc, sizeof esc, "\\x%02x", p[i]);
            out = esc, out_len = 4, len = 1;
        } else if (cp == '\n' && !keep_newlines) {
            out = "\\n", out_len = 2;
        } else if (cp == '\r') {
            out = "\\r", out_len = 2;
        } else if ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7F) {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned)cp);
            out = esc, out_len = 4;
        } else if (cp >= 0x80 && cp <= 0x9F) {
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
            out = esc, out_len = 6;
        }
        if (limit && b->len + out_len > limit)
            break;
        if (mcp_buf_append(b, out, out_len) != MCP_OK)
            break;
        i += len;
    }
    return i;
}

const char *cli_safe_n(const char *s, size_t n)
{
    static mcp_buf ring[8];
    static bool ready;
    static unsigned next;
    if (!ready) {
        for (int i = 0; i < 8; i++)
            mcp_buf_init(&ring[i], 0, NULL);
        ready = true;
    }
    mcp_buf *b = &ring[next++ % 8];
    mcp_buf_reset(b);
    if (s)
        cli_sanitize(b, s, n, false, 0);
    return b->len ? b->data : ""; /* NUL-terminated when not empty */
}

const char *cli_safe(const char *s)
{
    return cli_safe_n(s, s ? strlen(s) : 0);
}

void cli_write_payload(const char *s, size_t n)
{
    static int tty = -1;
    if (tty < 0)
        tty = isatty(STDOUT_FILENO);
    if (!tty) {
        fwrite(s, 1, n, stdout);
        return;
    }
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    size_t done = 0;
    while (done < n) { /* in pieces: a large text needs no large buffer */
        mcp_buf_reset(&b);
        size_t used = cli_sanitize(&b, s + done, n - done, true, 65536);
        if (used == 0)
            break; /* out of memory */
        fwrite(b.data, 1, b.len, stdout);
        done += used;
    }
    mcp_buf_free(&b);
}

bool cli_output_ok(void)
{
    static bool reported;
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return true;
    int e = errno;
    if (!reported) {
        reported = true;
        if (e)
            fprintf(stderr, "mcp: cannot write the output: %s\n", strerror(e));
        else
            fputs("mcp: cannot write the output\n", stderr);
    }
    return false;
}
