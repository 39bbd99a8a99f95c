/* SPDX-License-Identifier: MIT */
/* Unit tests for src/runtime/process.c: subprocesses that die with the
 * call, group and all. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/internal.h"

static int run_sh(const char *script, mcp_buf *out, mcp_cancel_token *t, uint64_t grace,
                  int *status)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    mcp_process_options o = {.size = sizeof o, .argv = argv, .output = out, .grace_ms = grace};
    return mcp_process_run(&o, t, status);
}

static void output_and_exit_status_are_reported(void **state)
{
    mcp_buf out;
    mcp_buf_init(&out, 0, NULL);
    int status = -1;
    assert_int_equal(run_sh("echo hello; exit 3", &out, NULL, 0, &status), MCP_OK);
    assert_int_equal(status, 3);
    assert_string_equal(out.data, "hello\n");
    mcp_buf_free(&out);
}

static void death_by_signal_is_128_plus_the_signal(void **state)
{
    int status;
    assert_int_equal(run_sh("kill -9 $$", NULL, NULL, 0, &status), MCP_OK);
    assert_int_equal(status, 128 + 9);
}

static void a_command_that_cannot_start_is_a_spawn_error(void **state)
{
    const char *argv[] = {"/nonexistent/definitely-not-here", NULL};
    mcp_process_options o = {.size = sizeof o, .argv = argv};
    int status;
    assert_int_equal(mcp_process_run(&o, NULL, &status), MCP_ERR_SPAWN);
    mcp_process_options none = {.size = sizeof none};
    assert_int_equal(mcp_process_run(&none, NULL, &status), MCP_ERR_INVALID_ARG);
    mcp_process_options unsized = {.argv = argv}; /* size 0: refused, not guessed */
    assert_int_equal(mcp_process_run(&unsized, NULL, &status), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_process_run(NULL, NULL, &status), MCP_ERR_INVALID_ARG);
}

/* Output past the cap is read and dropped (the command is never blocked
 * on a full pipe), and said: MCP_ERR_LIMIT, never taken for the whole. */
static void output_beyond_the_cap_is_dropped_and_said(void **state)
{
    mcp_buf out;
    mcp_buf_init(&out, 1000, NULL);
    int status = -1;
    assert_int_equal(run_sh("head -c 1000000 /dev/zero | tr '\\0' x", &out, NULL, 0, &status),
                     MCP_ERR_LIMIT);
    assert_int_equal(status, 0);
    assert_int_equal(out.len, 1000);
    /* Exactly the cap is not over it. */
    mcp_buf_reset(&out);
    assert_int_equal(run_sh("head -c 1000 /dev/zero", &out, NULL, 0, &status), MCP_OK);
    assert_int_equal(out.len, 1000);
    mcp_buf_free(&out);
}

static int run_with_input(const char *script, const void *input, size_t len, mcp_buf *out,
                          int *status)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    mcp_process_options o = {.size = sizeof o, .argv = argv, .output = out, .input = input,
                             .input_len = len};
    return mcp_process_run(&o, NULL, status);
}

static void input_reaches_stdin_and_ends_it(void **state)
{
    mcp_buf out;
    mcp_buf_init(&out, 0, NULL);
    int status = -1;
    assert_int_equal(run_with_input("cat; echo .", "a\0b\n", 4, &out, &status), MCP_OK);
    assert_int_equal(status, 0);
    assert_int_equal(out.len, 6);
    assert_memory_equal(out.data, "a\0b\n.\n", 6);
    /* Empty input: stdin ends at once (not inherited). */
    mcp_buf_reset(&out);
    assert_int_equal(run_with_input("wc -c", "", 0, &out, &status), MCP_OK);
    assert_int_equal(atoi(out.data), 0);
    mcp_buf_free(&out);
}

/* More input than a pipe holds, while the command's output fills its own
 * pipe: written and read together, neither side blocked for good. */
static void large_input_and_output_flow_together(void **state)
{
    size_t n = (size_t)3 << 20;
    char *big = malloc(n);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    mcp_buf out;
    mcp_buf_init(&out, 0, NULL);
    int status = -1;
    assert_int_equal(run_with_input("cat", big, n, &out, &status), MCP_OK);
    assert_int_equal(status, 0);
    assert_int_equal(out.len, n);
    assert_memory_equal(out.data, big, n);
    mcp_buf_free(&out);
    free(big);
}

/* A command that exits without reading: no error, and no SIGPIPE for us
 * (it would end this test with its default disposition). */
static void input_not_read_is_no_error(void **state)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
    sigaction(SIGPIPE, &dfl, &old);
    size_t n = (size_t)1 << 20;
    char *big = calloc(1, n);
    assert_non_null(big);
    int status = -1;
    assert_int_equal(run_with_input("exec 0<&-; exit 5", big, n, NULL, &status), MCP_OK);
    assert_int_equal(status, 5);
    free(big);
    sigaction(SIGPIPE, &old, NULL);
    const char *argv[] = {"true", NULL};
    mcp_process_options o = {.size = sizeof o, .argv = argv, .input_len = 1};
    assert_int_equal(mcp_process_run(&o, NULL, &status), MCP_ERR_INVALID_ARG);
}

static void *cancel_soon(void *t)
{
    usleep(200 * 1000);
    mcp__token_cancel(t, "test");
    return NULL;
}

static pid_t read_pid(const char *path)
{
    FILE *f = fopen(path, "r");
    long pid = 0;
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    return (pid_t)pid;
}

/* Running means: exists and is not a zombie (a reparented zombie may wait
 * for a reaper that is slow, or absent in some sandboxes). */
static bool running(pid_t pid)
{
    char path[64], stat[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return kill(pid, 0) == 0 && access("/proc/self/stat", F_OK) != 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = 0;
    const char *close_paren = strrchr(stat, ')');
    return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z';
}

static void cancel_kills_the_whole_process_group(void **state)
{
    char pidfile[] = "/tmp/mcp-test-pid-XXXXXX";
    int fd = mkstemp(pidfile);
    close(fd);
    char script[256];
    /* A background grandchild that would outlive a kill of the shell alone. */
    snprintf(script, sizeof script, "sleep 60 & echo $! > %s; wait", pidfile);
    mcp_cancel_token *t = mcp__token_new();
    pthread_t th;
    pthread_create(&th, NULL, cancel_soon, t);
    int status;
    assert_int_equal(run_sh(script, NULL, t, 1000, &status), MCP_ERR_CANCELLED);
    pthread_join(th, NULL);
    pid_t child = read_pid(pidfile);
    assert_true(child > 0);
    /* Reaped by init or gone: either way not running. Give it a moment. */
    int alive = 1;
    for (int i = 0; i < 100 && alive; i++) {
        alive = running(child);
        if (alive)
            usleep(10000);
    }
    assert_false(alive);
    unlink(pidfile);
    mcp__token_unref(t);
}

static void term_ignored_is_followed_by_kill_after_the_grace(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    pthread_t th;
    pthread_create(&th, NULL, cancel_soon, t);
    int status;
    uint64_t start = mcp__now_ms();
    assert_int_equal(run_sh("trap '' TERM; while :; do sleep 0.05; done", NULL, t, 300, &status),
                     MCP_ERR_CANCELLED);
    assert_int_equal(status, 128 + SIGKILL);
    assert_true(mcp__now_ms() - start < 20000); /* did not wait for a natural end */
    pthread_join(th, NULL);
    mcp__token_unref(t);
}

static void an_already_cancelled_token_starts_nothing(void **state)
{
    mcp_cancel_token *t = mcp__token_new();
    mcp__token_cancel(t, "before");
    char marker[] = "/tmp/mcp-test-marker-XXXXXX";
    int fd = mkstemp(marker);
    close(fd);
    unlink(marker);
    char script[128];
    snprintf(script, sizeof script, "touch %s", marker);
    int status;
    assert_int_equal(run_sh(script, NULL, t, 0, &status), MCP_ERR_CANCELLED);
    assert_int_equal(access(marker, F_OK), -1);
    mcp__token_unref(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_and_exit_status_are_reported),
        cmocka_unit_test(death_by_signal_is_128_plus_the_signal),
        cmocka_unit_test(a_command_that_cannot_start_is_a_spawn_error),
        cmocka_unit_test(output_beyond_the_cap_is_dropped_and_said),
        cmocka_unit_test(input_reaches_stdin_and_ends_it),
        cmocka_unit_test(large_input_and_output_flow_together),
        cmocka_unit_test(input_not_read_is_no_error),
        cmocka_unit_test(cancel_kills_the_whole_process_group),
        cmocka_unit_test(term_ignored_is_followed_by_kill_after_the_grace),
        cmocka_unit_test(an_already_cancelled_token_starts_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
