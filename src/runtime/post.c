/* SPDX-License-Identifier: MIT */
/* Cross-thread posting to the loop (the uv_async_send rule: the only libuv
 * call allowed from other threads), the clocks, and random ids. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "runtime/internal.h"

/* Run what was posted before this call: what comes meanwhile waits for
 * the loop's next turn (its post woke the handle again). Were it run here
 * too, a thread posting without pause would keep the loop in this
 * callback for ever: no I/O, no timer, the run never ending (seen under
 * valgrind with mcp_server_publish in a tight loop). */
static void drain_once(mcp__poster *p)
{
    pthread_mutex_lock(&p->mu);
    mcp__post *list = p->head;
    p->head = p->tail = NULL;
    pthread_mutex_unlock(&p->mu);
    for (mcp__post *next; list; list = next) {
        next = list->next;
        list->run(list);
    }
}

static void drained(uv_async_t *a)
{
    drain_once(a->data);
}

/* Until nothing is left, or after `rounds` (0: no limit): what a post
 * posts from the loop thread runs too. */
static void drain_all(mcp__poster *p, unsigned rounds)
{
    for (unsigned i = 0; !rounds || i < rounds; i++) {
        pthread_mutex_lock(&p->mu);
        bool empty = !p->head;
        pthread_mutex_unlock(&p->mu);
        if (empty)
            return;
        drain_once(p);
    }
}

void mcp__poster_init(mcp__poster *p)
{
    p->head = p->tail = NULL;
    p->open = false;
    pthread_mutex_init(&p->mu, NULL);
}

int mcp__poster_open(mcp__poster *p, uv_loop_t *loop)
{
    if (uv_async_init(loop, &p->async, drained))
        return MCP_ERR_IO;
    p->async.data = p;
    pthread_mutex_lock(&p->mu);
    p->loop_thread = pthread_self();
    p->open = true;
    pthread_mutex_unlock(&p->mu);
    return MCP_OK;
}

bool mcp__poster_post(mcp__poster *p, mcp__post *post)
{
    post->next = NULL;
    pthread_mutex_lock(&p->mu);
    if (!p->open) {
        pthread_mutex_unlock(&p->mu);
        return false;
    }
    if (p->tail)
        p->tail->next = post;
    else
        p->head = post;
    p->tail = post;
    /* Under the lock, so close() cannot tear the handle down meanwhile. */
    uv_async_send(&p->async);
    pthread_mutex_unlock(&p->mu);
    return true;
}

bool mcp__on_loop_thread(mcp__poster *p)
{
    /* Under the lock: another loop (a later run) may be opening. */
    pthread_mutex_lock(&p->mu);
    bool on = p->open && pthread_equal(pthread_self(), p->loop_thread);
    pthread_mutex_unlock(&p->mu);
    return on;
}

void mcp__poster_close(mcp__poster *p)
{
    /* While open, a post's own posts are taken (an answer it sends on);
     * bounded, as another thread may post without pause. */
    drain_all(p, 64);
    pthread_mutex_lock(&p->mu);
    p->open = false;
    pthread_mutex_unlock(&p->mu);
    drain_all(p, 0); /* the rest: nothing more can come */
    uv_close((uv_handle_t *)&p->async, NULL);
}

void mcp__poster_destroy(mcp__poster *p)
{
    pthread_mutex_destroy(&p->mu);
}

uint64_t mcp__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t mcp__now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t mcp__wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

bool mcp__random_hex(char *out, size_t bytes)
{
    unsigned char raw[64];
    if (bytes > sizeof raw || getrandom(raw, bytes, 0) != (ssize_t)bytes)
        return false;
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < bytes; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[2 * bytes] = '\0';
    return true;
}

uint64_t mcp_monotonic_ms(void)
{
    return mcp__now_ms();
}

void mcp__reserve_std_fds(void)
{
    /* Opened with the access the descriptor does not have for its use, so
     * reading stdin or writing stdout still fails (EBADF) as it would have:
     * the descriptor is only kept from being reused. */
    static const int access_modes[3] = {O_WRONLY, O_RDONLY, O_RDONLY};
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", access_modes[fd] | O_CLOEXEC);
        if (got >= 0 && got != fd) { /* a lower one was closed too: taken above */
            dup2(got, fd);
            close(got);
        }
    }
}

void mcp__ignore_sigpipe(void)
{
    struct sigaction old;
    if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
        signal(SIGPIPE, SIG_IGN);
}
