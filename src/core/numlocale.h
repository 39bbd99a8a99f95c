/* SPDX-License-Identifier: MIT */
/*
 * JSON numbers use '.' whatever the program's locale. strtod and snprintf
 * follow LC_NUMERIC, which an application may change, so number conversion
 * switches the calling thread to the "C" locale for the duration of the call.
 */
#ifndef MCP_CORE_NUMLOCALE_H
#define MCP_CORE_NUMLOCALE_H

#include <stddef.h>

/* strtod of len bytes of text (need not be NUL-terminated) in the C locale.
 * Returns 0 and *out, or -1 when the text could not be copied (no memory). */
int mcp__strtod_c(const char *text, size_t len, double *out);

/* snprintf("%.*g", precision, d) in the C locale. */
int mcp__format_g_c(char *buf, size_t size, int precision, double d);

#endif
