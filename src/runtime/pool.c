/* SPDX-License-Identifier: MIT */
/*
 * A fixed set of worker threads for blocking tool handlers. Our own rather
 * than libuv's threadpool: its size is process-global and shared with file
 * I/O, and a handler that sleeps for minutes must not starve the loop's own
 * work. Jobs are intrusive (no allocation per submit).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "runtime/internal.h"

struct mcp__pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    mcp__job *head, *tail;
    bool stopping;
    unsigned nthreads;
    atomic_size_t busy;
    pthread_t threads[];
};

static void *worker(void *arg)
{
    mcp__pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->cv, &p->mu);
        mcp__job *job = p->head;
        if (!job) {
            pthread_mutex_unlock(&p->mu);
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
    atomic_init(&p->busy, 0);
    for (unsigned i = 0; i < threads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
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
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

size_t mcp__pool_busy(mcp__pool *p)
{
    return atomic_load(&p->busy);
}
