/* SPDX-License-Identifier: MIT */
#include "wire.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void wire_send(wire *w, const char *line)
{
    size_t n = strlen(line);
    assert_int_equal(write(w->fd, line, n), (ssize_t)n);
    assert_int_equal(write(w->fd, "\n", 1), 1);
}

bool wire_try_send(wire *w, const char *line)
{
    size_t n = strlen(line);
    return send(w->fd, line, n, MSG_NOSIGNAL) == (ssize_t)n &&
           send(w->fd, "\n", 1, MSG_NOSIGNAL) == 1;
}

char *wire_read(wire *w, int timeout_ms)
{
    for (;;) {
        char *nl = memchr(w->buf, '\n', w->len);
        if (nl) {
            size_t n = (size_t)(nl - w->buf);
            char *line = strndup(w->buf, n);
            memmove(w->buf, nl + 1, w->len - n - 1);
            w->len -= n + 1;
            return line;
        }
        struct pollfd p = {w->fd, POLLIN, 0};
        if (w->len == sizeof w->buf || poll(&p, 1, timeout_ms) <= 0)
            return NULL;
        ssize_t r = read(w->fd, w->buf + w->len, sizeof w->buf - w->len);
        if (r <= 0)
            return NULL;
        w->len += (size_t)r;
    }
}

char *wire_expect(wire *w, const char *needle)
{
    for (;;) {
        char *l = wire_read(w, 10000);
        if (!l)
            fail_msg("no line containing %s", needle);
        if (strstr(l, needle))
            return l;
        free(l);
    }
}
