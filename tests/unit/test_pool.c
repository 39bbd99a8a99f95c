/* SPDX-License-Identifier: MIT */
/* Unit tests for src/runtime/pool.c and post.c: workers, and posting work
 * back to the loop thread. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
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

/* A released pool ------------------------------------------------------------------ */

typedef struct held_job {
    mcp__job job;
    mcp__pool *pool; /* released by the job itself when set */
    atomic_bool go, done;
} held_job;

static void held_run(mcp__job *j)
{
    held_job *h = (held_job *)j;
    while (!atomic_load(&h->go))
        usleep(1000);
    if (h->pool)
        mcp__pool_release(h->pool); /* a worker cannot join its own pool */
    atomic_store(&h->done, true);
}

static void wait_done(held_job *h)
{
    for (int i = 0; i < 5000 && !atomic_load(&h->done); i++)
        usleep(1000);
    assert_true(atomic_load(&h->done));
    usleep(50 * 1000); /* the worker's last steps: it frees the pool */
}

/* Released while a job runs, or by the job itself: the pool is freed by
 * its last thread out. Were it not, or a thread neither joined nor
 * detached, the leak checks (ASan, valgrind) and TSan's thread-leak
 * check fail the run. */
static void a_released_pool_is_freed_by_its_last_thread(void **state)
{
    (void)state;
    static held_job outside, inside;
    mcp__pool *p = mcp__pool_new(3);
    assert_non_null(p);
    outside.job.run = held_run;
    mcp__pool_submit(p, &outside.job);
    mcp__pool_release(p);
    atomic_store(&outside.go, true);
    wait_done(&outside);

    p = mcp__pool_new(2);
    assert_non_null(p);
    inside.job.run = held_run;
    inside.pool = p;
    mcp__pool_submit(p, &inside.job);
    atomic_store(&inside.go, true);
    wait_done(&inside);

    p = mcp__pool_new(2); /* idle: freed by the release itself or a worker */
    assert_non_null(p);
    mcp__pool_release(p);
    usleep(50 * 1000);
}

/* A poster flooded ----------------------------------------------------------------- */

static atomic_bool flooding, flood_over; /* asked to end; ended */
static atomic_long flood_ran;

static atomic_long flood_posted;

static void flood_post_run(mcp__post *post)
{
    usleep(20); /* slower to run than to post */
    atomic_fetch_add(&flood_ran, 1);
    free(post);
}

static void *flood(void *arg)
{
    mcp__poster *poster = arg;
    /* Without pause, for 5 s at most (the test's own end, were the loop
     * stuck). */
    uint64_t end = mcp__now_ms() + 5000;
    while (atomic_load(&flooding) && mcp__now_ms() < end) {
        /* Kept at most 1000 ahead of the loop: no unbounded queue. */
        if (atomic_load(&flood_posted) - atomic_load(&flood_ran) >= 1000) {
            sched_yield();
            continue;
        }
        mcp__post *post = calloc(1, sizeof *post);
        assert_non_null(post);
        post->run = flood_post_run;
        if (mcp__poster_post(poster, post))
            atomic_fetch_add(&flood_posted, 1);
        else
            free(post);
    }
    atomic_store(&flood_over, true);
    return NULL;
}

static atomic_bool timer_fired_while_flooding;

static void flood_timer(uv_timer_t *t)
{
    atomic_store(&timer_fired_while_flooding, !atomic_load(&flood_over));
    uv_stop(t->loop);
}

/* A thread posting without pause cannot keep the loop in its post
 * callback: the loop turns (a timer fires) while the flood goes on. */
static void a_flood_of_posts_does_not_stall_the_loop(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    mcp__poster poster;
    mcp__poster_init(&poster);
    assert_int_equal(mcp__poster_open(&poster, &loop), MCP_OK);
    uv_timer_t timer;
    uv_timer_init(&loop, &timer);
    uv_timer_start(&timer, flood_timer, 20, 0);
    atomic_store(&flooding, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, flood, &poster), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    atomic_store(&flooding, false);
    pthread_join(t, NULL);
    assert_true(atomic_load(&timer_fired_while_flooding));
    assert_true(atomic_load(&flood_ran) > 0);
    uv_close((uv_handle_t *)&timer, NULL);
    mcp__poster_close(&poster); /* runs what is left: nothing leaks */
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    mcp__poster_destroy(&poster);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_job_runs_on_a_worker_before_join),
        cmocka_unit_test(posts_from_workers_run_on_the_loop_thread),
        cmocka_unit_test(a_released_pool_is_freed_by_its_last_thread),
        cmocka_unit_test(a_flood_of_posts_does_not_stall_the_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
