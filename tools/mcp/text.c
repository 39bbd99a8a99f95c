/* SPDX-License-Identifier: MIT */
/* Server text made safe for a terminal, and checking that stdout was written. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "text.h"

void cli_sanitize(mcp_buf *b, const char *s, size_t n, bool keep_lines)
{
    size_t i = 0;
    while (i < n) {
        size_t bad;
        if (mcp_utf8_validate(s + i, n - i, &bad) == MCP_OK)
            bad = n - i;
        /* s[i, i + bad) is UTF-8: the library's escaping, with newline and
         * tab kept as they are for a multi-line text. */
        size_t end = i + bad;
        while (i < end) {
            size_t run = end - i;
            if (keep_lines)
                for (run = 0; i + run < end && s[i + run] != '\n' && s[i + run] != '\t';)
                    run++;
            if (mcp_text_escape_controls_buf(s + i, run, b) != MCP_OK)
                return;
            i += run;
            if (i < end && mcp_buf_append(b, s + i++, 1) != MCP_OK) /* the newline or tab */
                return;
        }
        if (i < n) { /* a byte that is not UTF-8 (the library copies it): visibly */
            char esc[8];
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)s[i++]);
            if (mcp_buf_append(b, esc, 4) != MCP_OK)
                return;
        }
    }
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
        cli_sanitize(b, s, n, false);
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
    cli_sanitize(&b, s, n, true);
    fwrite(b.data, 1, b.len, stdout);
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
