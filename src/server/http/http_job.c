/* SPDX-License-Identifier: MIT */
/*
 * A blocking piece of the HTTP binding's work (a fetch of the key set, a
 * token introspection) run as a job of the server's worker pool, its
 * result posted to the loop thread (http.h says the rules).
 *
 * The job is counted: its owner's count, the worker's, and its post's
 * while posted. Once posted, the loop may run done and drop the owner's
 * count before the worker is out of the unlock that follows the post:
 * the post's own count keeps the job alive for that unlock. The owner may
 * go first (the listener stops): detach sets the abort flag for the
 * transfer and takes the server away under the lock, so a job that
 * outlives its owner, or, abandoned at shutdown, the server itself, posts
 * nothing and touches neither.
 */
#include "server/http/http.h"

static void job_unref(http_job *j)
{
    if (atomic_fetch_sub(&j->refs, 1) != 1)
        return;
    pthread_mutex_destroy(&j->mu);
    j->destroy(j);
}

/* Loop thread: the result, to its owner if it is still there. */
static void posted(mcp__post *p)
{
    http_job *j = (http_job *)((char *)p - offsetof(http_job, post));
    if (j->owner)
        j->done(j); /* which detaches it */
    job_unref(j);   /* the post's */
}

static void run(mcp__job *job)
{
    http_job *j = (http_job *)job;
    pthread_mutex_lock(&j->mu);
    /* A wait announced keeps the tool handlers' threads theirs: the pool
     * is the server's while the owner holds it. */
    mcp__pool *pool = j->s && j->waits && mcp__pool_wait_begin(j->s->pool) ? j->s->pool : NULL;
    pthread_mutex_unlock(&j->mu);
    j->work(j);
    if (pool)
        mcp__pool_wait_end(pool);
    atomic_fetch_add(&j->refs, 1); /* the post's */
    pthread_mutex_lock(&j->mu);
    bool sent = j->s && mcp__server_post(j->s, &j->post);
    pthread_mutex_unlock(&j->mu);
    if (!sent)
        job_unref(j); /* the post's */
    job_unref(j);     /* the worker's */
}

bool mcp__http_job_start(http_job *j, mcp_server *s, void *owner)
{
    if (!s->pool)
        return false;
    j->job.run = run;
    j->post.run = posted;
    atomic_init(&j->refs, 2);
    atomic_init(&j->abort, false);
    pthread_mutex_init(&j->mu, NULL);
    j->s = s;
    j->owner = owner;
    mcp__pool_submit(s->pool, &j->job);
    return true;
}

void mcp__http_job_detach(http_job *j)
{
    atomic_store(&j->abort, true);
    pthread_mutex_lock(&j->mu);
    j->s = NULL;
    pthread_mutex_unlock(&j->mu);
    j->owner = NULL;
    job_unref(j); /* the owner's */
}
