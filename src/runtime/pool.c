/* SPDX-License-Identifier: MIT */
/*
 * A fixed set of worker threads for blocking tool handlers. Our own rather
 * than libuv's threadpool: its size is process-global and shared with file
 * I/O, and a handler that sleeps for minutes must not starve the loop's own
 * work. Jobs are intrusive (no allocation per submit).
 *
 * A handler waiting on the client (an ask: a person filling a form may take
 * an hour) is not working: while it waits, it does not count against the
 * pool. When jobs queue and no worker is free but some are waiting so, an
 * extra thread runs the queue (at most MCP__POOL_MAX_EXTRA of them), and
 * exits once the queue is empty: one client that never answers cannot
 * starve every other client's blocking tools.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "runtime/internal.h"

struct mcp__pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_cond_t extras_done; /* extras reached 0 */
    mcp__job *head, *tail;
    bool stopping;
    unsigned nthreads;
    unsigned idle;    /* workers waiting for a job */
    unsigned waiting; /* threads inside mcp__pool_wait_begin/end */
    unsigned extras;  /* extra threads running */
    unsigned running; /* workers not yet exited */
    bool released;    /* nobody joins: the last thread out frees the pool */
    atomic_size_t busy;
    pthread_t threads[];
};

static void *extra_worker(void *arg);
static void destroy(mcp__pool *p);

/* Pools not yet freed, in the process: a released one's last thread may
 * still be running after its server is gone (mcp__pools_alive). */
static atomic_uint pools_alive;

/* Under p->mu, as a thread exits: whether it was the released pool's last. */
static bool last_out(mcp__pool *p)
{
    return p->released && p->running == 0 && p->extras == 0;
}

/* Under p->mu: a job waits, no worker is free, and some are held by
 * waits: one more thread, if the cap allows. */
static void compensate(mcp__pool *p)
{
    if (!p->head || p->idle || !p->waiting || p->extras >= MCP__POOL_MAX_EXTRA || p->stopping)
        return;
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, extra_worker, p) == 0)
        p->extras++;
    pthread_attr_destroy(&a);
}

/* An extra thread: runs what is queued, then exits. */
static void *extra_worker(void *arg)
{
    mcp__pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (mcp__job *job; (job = p->head);) {
        p->head = job->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        job->run(job);
        atomic_fetch_sub(&p->busy, 1);
        pthread_mutex_lock(&p->mu);
    }
    if (--p->extras == 0)
        pthread_cond_broadcast(&p->extras_done);
    bool last = last_out(p);
    pthread_mutex_unlock(&p->mu);
    if (last)
        destroy(p);
    return NULL;
}

bool mcp__pool_wait_begin(mcp__pool *p)
{
    pthread_mutex_lock(&p->mu);
    /* Room is kept: waits beyond it would leave queued jobs no thread. */
    bool ok = p->waiting < MCP__POOL_MAX_WAITING;
    if (ok) {
        p->waiting++;
        compensate(p);
    }
    pthread_mutex_unlock(&p->mu);
    return ok;
}

void mcp__pool_wait_end(mcp__pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->waiting--;
    pthread_mutex_unlock(&p->mu);
}

static void *worker(void *arg)
{
    mcp__pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        p->idle++;
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->cv, &p->mu);
        p->idle--;
        mcp__job *job = p->head;
        if (!job) {
            p->running--;
            bool last = last_out(p);
            pthread_mutex_unlock(&p->mu);
            if (last)
                destroy(p);
            return NULL;
        }
        p->head = job->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        job->run(job);
        atomic_fetch_sub(&p->busy, 1);
    }
}

mcp__pool *mcp__pool_new(unsigned threads)
{
    if (!threads)
        threads = 8;
    mcp__pool *p = calloc(1, sizeof *p + threads * sizeof(pthread_t));
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    pthread_cond_init(&p->extras_done, NULL);
    atomic_init(&p->busy, 0);
    atomic_fetch_add(&pools_alive, 1);
    for (unsigned i = 0; i < threads; i++) {
        pthread_mutex_lock(&p->mu);
        p->running++;
        pthread_mutex_unlock(&p->mu);
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
            pthread_mutex_lock(&p->mu);
            p->running--;
            pthread_mutex_unlock(&p->mu);
            p->nthreads = i;
            mcp__pool_stop(p);
            mcp__pool_join(p);
            return NULL;
        }
    }
    p->nthreads = threads;
    return p;
}

void mcp__pool_submit(mcp__pool *p, mcp__job *job)
{
    job->next = NULL;
    atomic_fetch_add(&p->busy, 1);
    pthread_mutex_lock(&p->mu);
    if (p->tail)
        p->tail->next = job;
    else
        p->head = job;
    p->tail = job;
    pthread_cond_signal(&p->cv);
    compensate(p);
    pthread_mutex_unlock(&p->mu);
}

void mcp__pool_stop(mcp__pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void mcp__pool_join(mcp__pool *p)
{
    for (unsigned i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_lock(&p->mu);
    while (p->extras)
        pthread_cond_wait(&p->extras_done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    destroy(p);
}

void mcp__pool_release(mcp__pool *p)
{
    /* Detached before the mark: once marked, the last thread out may free
     * p->threads under us. Detaching a thread that already exited is
     * allowed (it was never joined). */
    for (unsigned i = 0; i < p->nthreads; i++)
        pthread_detach(p->threads[i]);
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    p->released = true;
    pthread_cond_broadcast(&p->cv);
    bool last = last_out(p);
    pthread_mutex_unlock(&p->mu);
    if (last)
        destroy(p);
}

static void destroy(mcp__pool *p)
{
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    pthread_cond_destroy(&p->extras_done);
    free(p);
    atomic_fetch_sub(&pools_alive, 1);
}

unsigned mcp__pools_alive(void)
{
    return atomic_load(&pools_alive);
}

size_t mcp__pool_busy(mcp__pool *p)
{
    return atomic_load(&p->busy);
}
