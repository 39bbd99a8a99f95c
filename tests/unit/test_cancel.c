/* SPDX-License-Identifier: MIT */
/* Unit tests for src/runtime/cancel.c: cancel tokens across threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "runtime/internal.h"

static void a_token_fires_once_and_keeps_the_first_reason(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    assert_false(mcp_cancel_token_is_cancelled(t));
    assert_null(mcp_cancel_token_reason(t));
    assert_true(mcp__token_cancel(t, "first"));
    assert_false(mcp__token_cancel(t, "second"));
    assert_true(mcp_cancel_token_is_cancelled(t));
    assert_string_equal(mcp_cancel_token_reason(t), "first");
    mcp__token_unref(t);
}

static void a_token_may_fire_without_a_reason(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    assert_true(mcp__token_cancel(t, NULL));
    assert_true(mcp_cancel_token_is_cancelled(t));
    assert_null(mcp_cancel_token_reason(t));
    mcp__token_unref(t);
}

static bool readable(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void the_fd_becomes_readable_when_the_token_fires(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    int fd = mcp_cancel_token_fd(t);
    assert_true(fd >= 0);
    assert_int_equal(mcp_cancel_token_fd(t), fd); /* one fd per token */
    assert_false(readable(fd));
    mcp__token_cancel(t, "x");
    assert_true(readable(fd));
    mcp__token_unref(t);

    t = mcp__token_new(); /* asked for after firing: readable at once */
    mcp__token_cancel(t, "x");
    assert_true(readable(mcp_cancel_token_fd(t)));
    mcp__token_unref(t);
}

static void *cancel_later(void *arg)
{
    usleep(50 * 1000);
    mcp__token_cancel(arg, "from another thread");
    return NULL;
}

static void wait_returns_early_when_fired_from_another_thread(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, t);
    uint64_t start = mcp__now_ms();
    assert_true(mcp_cancel_token_wait(t, 30000));
    /* Returned on the cancel, not at the 30 s timeout. */
    assert_true(mcp__now_ms() - start < 15000);
    assert_string_equal(mcp_cancel_token_reason(t), "from another thread");
    pthread_join(th, NULL);
    assert_true(mcp_cancel_token_wait(t, 0)); /* already fired: at once */
    mcp__token_unref(t);
}

static void wait_times_out_when_nothing_fires(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    uint64_t start = mcp__now_ms();
    assert_false(mcp_cancel_token_wait(t, 30));
    assert_true(mcp__now_ms() - start >= 29);
    mcp__token_unref(t);
}

static int order[8], norder;
static void record(void *ud)
{
    order[norder++] = (int)(intptr_t)ud;
}

static void callbacks_run_once_in_registration_order(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    norder = 0;
    for (int i = 1; i <= 3; i++)
        assert_int_equal(mcp_cancel_token_on_cancel(t, record, (void *)(intptr_t)i), MCP_OK);
    assert_int_equal(norder, 0);
    mcp__token_cancel(t, NULL);
    mcp__token_cancel(t, NULL);
    assert_int_equal(norder, 3);
    assert_int_equal(order[0], 1);
    assert_int_equal(order[2], 3);
    /* Registered after firing: runs at once, on this thread. */
    mcp_cancel_token_on_cancel(t, record, (void *)(intptr_t)4);
    assert_int_equal(norder, 4);
    assert_int_equal(mcp_cancel_token_on_cancel(t, NULL, NULL), MCP_ERR_INVALID_ARG);
    mcp__token_unref(t);
}

static void callbacks_that_never_fire_are_dropped_on_release(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    norder = 0;
    mcp_cancel_token_on_cancel(t, record, NULL);
    mcp__token_ref(t);
    mcp__token_unref(t);
    assert_false(mcp_cancel_token_is_cancelled(t));
    mcp__token_unref(t); /* freed with its callback list; ASan checks */
    assert_int_equal(norder, 0);
}

static void no_callback_runs_after_the_call_ended(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    norder = 0;
    assert_int_equal(mcp_cancel_token_on_cancel(t, record, (void *)(intptr_t)1), MCP_OK);
    mcp__token_detach(t); /* the handler ended its call */
    assert_int_equal(mcp_cancel_token_on_cancel(t, record, (void *)(intptr_t)2), MCP_ERR_STATE);
    assert_true(mcp__token_cancel(t, "late")); /* the flag still fires */
    assert_true(mcp_cancel_token_is_cancelled(t));
    assert_int_equal(norder, 0);
    mcp__token_unref(t);
}

/* A slow callback on one thread, the call ended from another meanwhile:
 * the ending returns only once the callback is done with its data. */
static atomic_int slow_state; /* 0 idle, 1 running, 2 done */
static void slow_callback(void *ud)
{
    atomic_store(&slow_state, 1);
    usleep(100 * 1000);
    atomic_store(&slow_state, 2);
}

static void *fire(void *arg)
{
    mcp__token_cancel(arg, "peer");
    return NULL;
}

static void ending_waits_for_a_callback_running_elsewhere(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    atomic_store(&slow_state, 0);
    assert_int_equal(mcp_cancel_token_on_cancel(t, slow_callback, NULL), MCP_OK);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, fire, t), 0);
    while (atomic_load(&slow_state) == 0)
        usleep(1000);
    mcp__token_detach(t);
    assert_int_equal(atomic_load(&slow_state), 2);
    pthread_join(th, NULL);
    mcp__token_unref(t);
}

/* A callback that ends the call itself (on the thread running it) does
 * not wait for itself. */
static mcp_cancel_token *self_token;
static void ends_the_call(void *ud)
{
    mcp__token_detach(self_token);
    *(int *)ud = 1;
}

static void a_callback_may_end_its_own_call(void **state)
{
    int done = 0;
    self_token = mcp__token_new();
    assert_int_equal(mcp_cancel_token_on_cancel(self_token, ends_the_call, &done), MCP_OK);
    mcp__token_cancel(self_token, NULL);
    assert_int_equal(done, 1);
    mcp__token_unref(self_token);
}

static atomic_int winners;
static void *race_cancel(void *arg)
{
    if (mcp__token_cancel(arg, "race"))
        atomic_fetch_add(&winners, 1);
    return NULL;
}

static void *spin_until_cancelled(void *arg)
{
    while (!mcp_cancel_token_is_cancelled(arg))
        ;
    /* The reason is visible to whoever sees the flag. */
    assert_string_equal(mcp_cancel_token_reason(arg), "race");
    return NULL;
}

static void concurrent_cancels_have_exactly_one_winner(void **state)
{
    for (int round = 0; round < 200; round++) {
        mcp_cancel_token *t = mcp__token_new();
        atomic_store(&winners, 0);
        pthread_t th[6];
        for (int i = 0; i < 2; i++)
            pthread_create(&th[i], NULL, spin_until_cancelled, t);
        for (int i = 2; i < 6; i++)
            pthread_create(&th[i], NULL, race_cancel, t);
        for (int i = 0; i < 6; i++)
            pthread_join(th[i], NULL);
        assert_int_equal(atomic_load(&winners), 1);
        mcp__token_unref(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_token_fires_once_and_keeps_the_first_reason),
        cmocka_unit_test(a_token_may_fire_without_a_reason),
        cmocka_unit_test(the_fd_becomes_readable_when_the_token_fires),
        cmocka_unit_test(wait_returns_early_when_fired_from_another_thread),
        cmocka_unit_test(wait_times_out_when_nothing_fires),
        cmocka_unit_test(callbacks_run_once_in_registration_order),
        cmocka_unit_test(callbacks_that_never_fire_are_dropped_on_release),
        cmocka_unit_test(no_callback_runs_after_the_call_ended),
        cmocka_unit_test(ending_waits_for_a_callback_running_elsewhere),
        cmocka_unit_test(a_callback_may_end_its_own_call),
        cmocka_unit_test(concurrent_cancels_have_exactly_one_winner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
