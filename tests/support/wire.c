/* SPDX-License-Identifier: MIT */
#include "wire.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
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

/* Whether fd has input within timeout_ms. A signal is no timeout: a
 * server's children exiting send SIGCHLD, which may land on the test's
 * thread and cut its poll short (EINTR, read as "no line" before). */
static bool readable(int fd, int timeout_ms)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long long spent = (t.tv_sec - t0.tv_sec) * 1000LL + (t.tv_nsec - t0.tv_nsec) / 1000000;
        int left = timeout_ms - (int)spent;
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, left > 0 ? left : 0);
        if (n > 0)
            return true;
        if (n == 0 || errno != EINTR || left <= 0)
            return false;
    }
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
        if (w->len == sizeof w->buf || !readable(w->fd, timeout_ms))
            return NULL;
        ssize_t r = read(w->fd, w->buf + w->len, sizeof w->buf - w->len);
        if (r < 0 && errno == EINTR)
            continue;
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
