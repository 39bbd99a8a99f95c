/* SPDX-License-Identifier: MIT */
/*
 * Showing what a server sent: tool names and descriptions, error and
 * progress messages, URIs, wire lines. A server is not trusted with the
 * terminal, so nothing it sends may reach it as a control sequence (clear
 * the screen, set the title, write the clipboard, forge a line).
 */
#ifndef MCP_CLI_TEXT_H
#define MCP_CLI_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/mcp.h"

/*
 * cli_sanitize: append s[0..n) to b with every character a terminal acts on
 * made visible, as the library's log lines show them
 * (mcp_text_escape_controls): C0 controls and DEL as \xHH, newline, CR and
 * tab as \n \r \t, C1 controls (U+0080..U+009F) as \u0080..\u009f; and
 * bytes that are not UTF-8 as \xHH (raw 8-bit controls on some terminals).
 * With keep_lines, newline and tab are kept as they are (a multi-line
 * text). A backslash is kept: this is for reading, not for decoding back.
 * Stops early only when b is full or out of memory. Any thread.
 */
void cli_sanitize(mcp_buf *b, const char *s, size_t n, bool keep_lines);

/* s (NULL as "") made safe as one line (cli_sanitize), in one of 8 static
 * buffers used in turn: valid until 8 more calls. The client commands'
 * thread only. */
const char *cli_safe(const char *s);
const char *cli_safe_n(const char *s, size_t n);

/* Write s[0..n) to stdout, the payload itself (a tool's text result): byte
 * for byte when stdout is a file or a pipe; on a terminal, sanitized but
 * keeping newlines and tabs. */
void cli_write_payload(const char *s, size_t n);

/* Flush stdout; false (after saying "mcp: cannot write the output: ..." on
 * stderr, once per process) if anything written to it was lost. */
bool cli_output_ok(void);

#endif
