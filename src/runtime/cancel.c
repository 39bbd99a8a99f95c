/* SPDX-License-Identifier: MIT */
/*
 * Cancel tokens. The flag is an atomic read without locking, so checking it
 * in a hot loop costs nothing; waiting uses a condition variable on the
 * monotonic clock; the file descriptor (an eventfd) is only created for
 * handlers that poll.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/eventfd.h>
#else
#include <fcntl.h>
#endif

#include "runtime/internal.h"

typedef struct callback {
    struct callback *next;
    mcp_cancel_fn fn;
    void *user_data;
} callback;

/* Under t->mu, before a wait: the condition variable, on the monotonic
 * clock. False when it cannot be made (the wait then polls). */
static bool make_cv(mcp_cancel_token *t)
{
    if (t->cv)
        return true;
    pthread_cond_t *cv = malloc(sizeof *cv);
    pthread_condattr_t ca;
    if (!cv || pthread_condattr_init(&ca) != 0) {
        free(cv);
        return false;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(cv, &ca) == 0)
        t->cv = cv;
    else
        free(cv);
    pthread_condattr_destroy(&ca);
    return t->cv != NULL;
}

/* Under t->mu: wait for a broadcast, until deadline (NULL: none);
 * ETIMEDOUT once it passed. Without a condition variable (out of
 * resources), poll every millisecond. */
static int cv_wait(mcp_cancel_token *t, const struct timespec *deadline)
{
    if (make_cv(t))
        return deadline ? pthread_cond_timedwait(t->cv, &t->mu, deadline)
                        : pthread_cond_wait(t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    pthread_mutex_lock(&t->mu);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return deadline && (now.tv_sec > deadline->tv_sec ||
                        (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec))
               ? ETIMEDOUT
               : 0;
}

int mcp__token_init(mcp_cancel_token *t)
{
    memset(t, 0, sizeof *t);
    atomic_init(&t->refs, 1);
    atomic_init(&t->cancelled, false);
    if (pthread_mutex_init(&t->mu, NULL) != 0)
        return MCP_ERR_NOMEM;
    t->fd = t->fd_write = -1;
    return MCP_OK;
}

void mcp__token_fini(mcp_cancel_token *t)
{
    for (callback *c = t->callbacks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    if (t->fd >= 0)
        close(t->fd);
    if (t->fd_write >= 0 && t->fd_write != t->fd)
        close(t->fd_write);
    pthread_mutex_destroy(&t->mu);
    if (t->cv) {
        pthread_cond_destroy(t->cv);
        free(t->cv);
    }
    free(t->reason);
}

mcp_cancel_token *mcp__token_new(void)
{
    mcp_cancel_token *t = malloc(sizeof *t);
    if (!t || mcp__token_init(t) != MCP_OK) {
        free(t);
        return NULL;
    }
    return t;
}

void mcp__token_ref(mcp_cancel_token *t)
{
    atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

void mcp__token_unref(mcp_cancel_token *t)
{
    if (!t || atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
        return;
    mcp__token_fini(t);
    free(t);
}

static void signal_fd(int fd)
{
#if defined(__linux__)
    uint64_t one = 1;
    ssize_t n;
    do
        n = write(fd, &one, sizeof one);
    while (n < 0 && errno == EINTR);
#else
    char one = 1;
    ssize_t n;
    do
        n = write(fd, &one, 1);
    while (n < 0 && errno == EINTR);
#endif
    (void)n;
}

bool mcp__token_cancel(mcp_cancel_token *t, const char *reason)
{
    pthread_mutex_lock(&t->mu);
    if (atomic_load_explicit(&t->cancelled, memory_order_relaxed)) {
        pthread_mutex_unlock(&t->mu);
        return false;
    }
    t->reason = reason ? strdup(reason) : NULL;
    atomic_store_explicit(&t->cancelled, true, memory_order_release);
    if (t->fd_write >= 0)
        signal_fd(t->fd_write);
    callback *list = t->callbacks;
    t->callbacks = NULL;
    t->running = list != NULL;
    t->runner = pthread_self();
    if (t->cv)
        pthread_cond_broadcast(t->cv);
    pthread_mutex_unlock(&t->mu);
    bool ran = list != NULL;
    /* Registration order: reverse the stack. */
    callback *ordered = NULL;
    while (list) {
        callback *next = list->next;
        list->next = ordered;
        ordered = list;
        list = next;
    }
    while (ordered) {
        callback *next = ordered->next;
        ordered->fn(ordered->user_data);
        free(ordered);
        ordered = next;
    }
    if (ran) {
        pthread_mutex_lock(&t->mu);
        t->running = false;
        if (t->cv)
            pthread_cond_broadcast(t->cv); /* a detach waits for this */
        pthread_mutex_unlock(&t->mu);
    }
    return true;
}

void mcp__token_detach(mcp_cancel_token *t)
{
    pthread_mutex_lock(&t->mu);
    t->detached = true;
    for (callback *c = t->callbacks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    t->callbacks = NULL;
    /* A callback running on another thread may still use what the ending
     * caller is about to free: wait for it (not for one that is running
     * here, which is the caller itself, ending the call from inside). */
    while (t->running && !pthread_equal(t->runner, pthread_self()))
        cv_wait(t, NULL);
    pthread_mutex_unlock(&t->mu);
}

bool mcp_cancel_token_is_cancelled(const mcp_cancel_token *t)
{
    return atomic_load_explicit(&((mcp_cancel_token *)t)->cancelled, memory_order_acquire);
}

const char *mcp_cancel_token_reason(const mcp_cancel_token *t)
{
    return mcp_cancel_token_is_cancelled(t) ? t->reason : NULL;
}

int mcp_cancel_token_fd(mcp_cancel_token *t)
{
    pthread_mutex_lock(&t->mu);
    if (t->fd < 0) {
        bool fired = atomic_load_explicit(&t->cancelled, memory_order_relaxed);
#if defined(__linux__)
        t->fd = t->fd_write = eventfd(fired ? 1 : 0, EFD_CLOEXEC | EFD_NONBLOCK);
#else
        int fds[2];
        if (pipe(fds) == 0) {
            fcntl(fds[0], F_SETFD, FD_CLOEXEC);
            fcntl(fds[1], F_SETFD, FD_CLOEXEC);
            fcntl(fds[0], F_SETFL, O_NONBLOCK);
            t->fd = fds[0];
            t->fd_write = fds[1];
            if (fired)
                signal_fd(t->fd_write);
        }
#endif
    }
    int fd = t->fd;
    pthread_mutex_unlock(&t->mu);
    return fd;
}

bool mcp_cancel_token_wait(mcp_cancel_token *t, uint64_t timeout_ms)
{
    if (mcp_cancel_token_is_cancelled(t))
        return true;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (timeout_ms != MCP_WAIT_FOREVER) {
        uint64_t ns = (uint64_t)deadline.tv_nsec + (timeout_ms % 1000) * 1000000u;
        deadline.tv_sec += (time_t)(timeout_ms / 1000 + ns / 1000000000u);
        deadline.tv_nsec = (long)(ns % 1000000000u);
    }
    pthread_mutex_lock(&t->mu);
    while (!atomic_load_explicit(&t->cancelled, memory_order_relaxed)) {
        if (cv_wait(t, timeout_ms == MCP_WAIT_FOREVER ? NULL : &deadline) == ETIMEDOUT)
            break;
    }
    bool fired = atomic_load_explicit(&t->cancelled, memory_order_relaxed);
    pthread_mutex_unlock(&t->mu);
    return fired;
}

int mcp_cancel_token_on_cancel(mcp_cancel_token *t, mcp_cancel_fn fn, void *user_data)
{
    if (!fn)
        return MCP_ERR_INVALID_ARG;
    pthread_mutex_lock(&t->mu);
    if (t->detached) {
        pthread_mutex_unlock(&t->mu);
        return MCP_ERR_STATE; /* the call ended: nothing to be told of */
    }
    if (atomic_load_explicit(&t->cancelled, memory_order_relaxed)) {
        pthread_mutex_unlock(&t->mu);
        fn(user_data);
        return MCP_OK;
    }
    callback *c = malloc(sizeof *c);
    if (!c) {
        pthread_mutex_unlock(&t->mu);
        return MCP_ERR_NOMEM;
    }
    c->fn = fn;
    c->user_data = user_data;
    c->next = t->callbacks;
    t->callbacks = c;
    pthread_mutex_unlock(&t->mu);
    return MCP_OK;
}
