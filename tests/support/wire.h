/* SPDX-License-Identifier: MIT */
/* The test's side of a byte stream to a server: lines out, lines in. */
#ifndef MCP_TEST_WIRE_H
#define MCP_TEST_WIRE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct wire {
    int fd;
    char buf[1 << 16];
    size_t len;
} wire;

/* Write line and its newline (asserts the write). */
void wire_send(wire *w, const char *line);
/* Write line and its newline to a peer that may have gone away (no
 * SIGPIPE): false when it had. */
bool wire_try_send(wire *w, const char *line);
/* The next line, or NULL after timeout_ms or at end of stream. Caller
 * frees. */
char *wire_read(wire *w, int timeout_ms);
/* Read lines until one contains needle (fails the test after 10 s). Caller
 * frees. */
char *wire_expect(wire *w, const char *needle);

#endif
