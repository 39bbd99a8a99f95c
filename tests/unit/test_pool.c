/* SPDX-License-Identifier: MIT */
/* Unit tests for src/runtime/pool.c and post.c: workers, and posting work
 * back to the loop thread. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/internal.h"

typedef struct counted_job {
    mcp__job job;
    atomic_int *count;
    pthread_t ran_on;
    mcp__poster *poster;
    mcp__post post;
    atomic_int *posted;
    pthread_t posted_ran_on;
} counted_job;

static void count_run(mcp__job *j)
{
    counted_job *c = (counted_job *)j;
    c->ran_on = pthread_self();
    usleep(100);
    atomic_fetch_add(c->count, 1);
}

static void every_job_runs_on_a_worker_before_join(void **state)
{
    mcp__pool *p = mcp__pool_new(4);
    assert_non_null(p);
    atomic_int count;
    atomic_init(&count, 0);
    counted_job jobs[200];
    for (int i = 0; i < 200; i++) {
        jobs[i].job.run = count_run;
        jobs[i].count = &count;
        mcp__pool_submit(p, &jobs[i].job);
    }
    assert_true(mcp__pool_busy(p) > 0);
    mcp__pool_stop(p); /* queued jobs still run */
    mcp__pool_join(p);
    assert_int_equal(atomic_load(&count), 200);
    for (int i = 0; i < 200; i++)
        assert_false(pthread_equal(jobs[i].ran_on, pthread_self()));
}

static void back_on_loop(mcp__post *post)
{
    counted_job *c = (counted_job *)((char *)post - offsetof(counted_job, post));
    c->posted_ran_on = pthread_self();
    assert_true(mcp__on_loop_thread(c->poster));
    if (atomic_fetch_add(c->posted, 1) + 1 == 100)
        uv_stop(c->poster->async.loop);
}

static void post_run(mcp__job *j)
{
    counted_job *c = (counted_job *)j;
    assert_false(mcp__on_loop_thread(c->poster));
    c->post.run = back_on_loop;
    assert_true(mcp__poster_post(c->poster, &c->post));
}

static void posts_from_workers_run_on_the_loop_thread(void **state)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    mcp__poster poster;
    mcp__poster_init(&poster);
    counted_job early = {0};
    early.post.run = back_on_loop;
    assert_false(mcp__poster_post(&poster, &early.post)); /* not open yet: refused */
    assert_false(mcp__on_loop_thread(&poster));
    assert_int_equal(mcp__poster_open(&poster, &loop), MCP_OK);
    assert_true(mcp__on_loop_thread(&poster));
    mcp__pool *p = mcp__pool_new(3);
    atomic_int posted;
    atomic_init(&posted, 0);
    counted_job *jobs = calloc(100, sizeof *jobs);
    for (int i = 0; i < 100; i++) {
        jobs[i].job.run = post_run;
        jobs[i].poster = &poster;
        jobs[i].posted = &posted;
        mcp__pool_submit(p, &jobs[i].job);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(atomic_load(&posted), 100);
    for (int i = 0; i < 100; i++)
        assert_true(pthread_equal(jobs[i].posted_ran_on, pthread_self()));
    mcp__pool_stop(p);
    mcp__pool_join(p);
    mcp__poster_close(&poster);
    /* Closed: later posts are refused, not lost in a freed queue. */
    counted_job late = {0};
    late.post.run = back_on_loop;
    assert_false(mcp__poster_post(&poster, &late.post));
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    /* The lock outlives the loop: a second loop opens the same poster (a
     * server run again), and posts reach that one. */
    uv_loop_t again;
    uv_loop_init(&again);
    assert_int_equal(mcp__poster_open(&poster, &again), MCP_OK);
    atomic_store(&posted, 99);
    late.poster = &poster;
    late.posted = &posted;
    assert_true(mcp__poster_post(&poster, &late.post));
    uv_run(&again, UV_RUN_DEFAULT);
    assert_int_equal(atomic_load(&posted), 100);
    mcp__poster_close(&poster);
    uv_run(&again, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&again), 0);
    mcp__poster_destroy(&poster);
    free(jobs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_job_runs_on_a_worker_before_join),
        cmocka_unit_test(posts_from_workers_run_on_the_loop_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
