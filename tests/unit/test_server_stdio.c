/* SPDX-License-Identifier: MIT */
/*
 * mcp_server_serve_fds and _stdio: what the run returns and what reaches
 * the client when the descriptors misbehave. A slow reader after end of
 * input gets every reply; a stop gives up on a reader that takes nothing;
 * a directory as input, an output that refuses bytes and closed standard
 * descriptors end the run with MCP_ERR_IO, never with an abort.
 */
#define _GNU_SOURCE /* pthread_tryjoin_np */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcp/mcp.h"

#define INIT                                                                              \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n" \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"

static atomic_int replied;

static void tool_big(void *ud, mcp_call *c)
{
    static char text[256 << 10];
    memset(text, 'x', sizeof text - 1);
    if (mcp_call_reply_text(c, text) == MCP_OK)
        atomic_fetch_add(&replied, 1);
}

/* Until at least n replies are made (queued, not necessarily written). */
static void wait_replied(int n)
{
    for (int i = 0; i < 20000 && atomic_load(&replied) < n; i++)
        usleep(1000);
    assert_true(atomic_load(&replied) >= n);
}

static mcp_server *new_server_capped(uint64_t grace_ms, size_t max_output)
{
    mcp_server_options o = {.size = sizeof o, .shutdown_grace_ms = grace_ms,
                            .max_output = max_output, .log_level = MCP_LOG_ERROR + 1};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    atomic_store(&replied, 0);
    mcp_tool t = {.size = sizeof t, .name = "big", .handler = tool_big};
    assert_int_equal(mcp_server_add_tool(s, &t), MCP_OK);
    return s;
}

static mcp_server *new_server(uint64_t grace_ms)
{
    return new_server_capped(grace_ms, 0);
}

typedef struct serving {
    mcp_server *server;
    int in_fd, out_fd;
    int rc;
    pthread_t thread;
} serving;

static void *serve_thread(void *arg)
{
    serving *sv = arg;
    sv->rc = mcp_server_serve_fds(sv->server, sv->in_fd, sv->out_fd);
    return NULL;
}

/* Calls of "big": n replies of 256 KiB, far more than a socket buffers. */
static void write_calls(int fd, int n)
{
    assert_true(write(fd, INIT, strlen(INIT)) == (ssize_t)strlen(INIT));
    for (int i = 1; i <= n; i++) {
        char line[128];
        int len = snprintf(line, sizeof line,
                           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
                           "\"params\":{\"name\":\"big\"}}\n",
                           i);
        assert_int_equal(write(fd, line, (size_t)len), len);
    }
}

/* Read the server's output until the serve returns, then what is left:
 * the lines (replies) and bytes that reached the client. */
static size_t read_until_served(serving *sv, int fd, int server_end, size_t *bytes)
{
    static char buf[1 << 16];
    size_t lines = 0;
    *bytes = 0;
    bool served = false;
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, served ? 0 : MSG_DONTWAIT);
        if (n > 0) {
            *bytes += (size_t)n;
            for (ssize_t i = 0; i < n; i++)
                lines += buf[i] == '\n';
            continue;
        }
        if (served)
            return lines; /* end of stream */
        if (pthread_tryjoin_np(sv->thread, NULL) == 0) {
            served = true;
            shutdown(server_end, SHUT_WR); /* the serve does not close it */
            continue;
        }
        usleep(1000);
    }
}

static void close_pairs(int *a, int *b)
{
    for (int i = 0; i < 2; i++) {
        close(a[i]);
        close(b[i]);
    }
}

/* One socket both ways (serve_fds(fd, fd)): replies far past the socket's
 * buffer all arrive (the reader's handle took the writer's events: the
 * first 256 KiB reply stalled forever). */
static void one_socket_both_ways_carries_big_replies(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
    serving sv = {.server = new_server(2000), .in_fd = p[1], .out_fd = p[1]};
    pthread_create(&sv.thread, NULL, serve_thread, &sv);
    write_calls(p[0], 8);
    size_t lines = 0, bytes = 0;
    static char buf[1 << 16];
    /* initialize's answer and eight replies of 256 KiB each */
    for (int i = 0; i < 30000 && lines < 9; i++) {
        ssize_t n = recv(p[0], buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            bytes += (size_t)n;
            for (ssize_t k = 0; k < n; k++)
                lines += buf[k] == '\n';
        } else {
            usleep(1000);
        }
    }
    assert_int_equal(lines, 9);
    assert_true(bytes > 8 * (256 << 10));
    shutdown(p[0], SHUT_WR); /* end of input: the serve returns */
    pthread_join(sv.thread, NULL);
    assert_int_equal(sv.rc, MCP_OK);
    mcp_server_free(sv.server);
    close(p[0]);
}

static void a_slow_reader_after_end_of_input_gets_every_reply(void **state)
{
    /* The input ends at once; the reader starts 3 graces later. */
    int in[2], out[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, in), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, out), 0);
    serving sv = {new_server(100), in[1], out[1], -1, 0};
    write_calls(in[0], 16);
    shutdown(in[0], SHUT_WR);
    assert_int_equal(pthread_create(&sv.thread, NULL, serve_thread, &sv), 0);
    usleep(300 * 1000);
    size_t bytes;
    size_t lines = read_until_served(&sv, out[0], out[1], &bytes);
    assert_int_equal(sv.rc, MCP_OK);
    assert_int_equal(lines, 17); /* initialize and 16 calls */
    assert_true(bytes > (size_t)16 * (256 << 10));
    close_pairs(in, out);
    mcp_server_free(sv.server);
}

static void requests_are_read_as_fast_as_the_replies_are_taken(void **state)
{
    /* Forty replies of 256 KiB (10 MiB) behind a 1 MiB output cap, asked
     * for all at once (one read holds every request), read by a client
     * that starts late: reading pauses instead of the cap dropping a
     * client that reads. Over a socket, and with a regular file as input
     * (read on the thread pool). */
    for (int kind = 0; kind < 2; kind++) {
        int in[2], out[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, in), 0);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, out), 0);
        int in_fd = in[1];
        char path[] = "/tmp/mcp-test-input-XXXXXX";
        if (kind == 1) {
            in_fd = mkstemp(path);
            assert_true(in_fd >= 0);
            unlink(path);
            write_calls(in_fd, 40);
            assert_int_equal(lseek(in_fd, 0, SEEK_SET), 0);
        } else {
            write_calls(in[0], 40);
            shutdown(in[0], SHUT_WR);
        }
        serving sv = {new_server_capped(100, 1 << 20), in_fd, out[1], -1, 0};
        assert_int_equal(pthread_create(&sv.thread, NULL, serve_thread, &sv), 0);
        usleep(300 * 1000);
        size_t bytes;
        size_t lines = read_until_served(&sv, out[0], out[1], &bytes);
        assert_int_equal(sv.rc, MCP_OK);
        assert_int_equal(lines, 41);
        assert_true(bytes > (size_t)40 * (256 << 10));
        if (kind == 1)
            close(in_fd);
        close_pairs(in, out);
        mcp_server_free(sv.server);
    }
}

static void a_reader_that_goes_away_while_requests_wait_ends_the_run(void **state)
{
    /* Paused with requests held, the client takes a little and closes:
     * the run ends in MCP_ERR_IO, and what was held is dropped (ASan,
     * valgrind: nothing used after it is freed, nothing leaks). */
    int in[2], out[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, in), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, out), 0);
    write_calls(in[0], 40);
    serving sv = {new_server_capped(100, 1 << 20), in[1], out[1], -1, 0};
    assert_int_equal(pthread_create(&sv.thread, NULL, serve_thread, &sv), 0);
    wait_replied(1);
    char buf[1 << 16];
    assert_true(read(out[0], buf, sizeof buf) > 0);
    close(out[0]);
    pthread_join(sv.thread, NULL);
    assert_int_equal(sv.rc, MCP_ERR_IO);
    assert_true(atomic_load(&replied) < 40); /* the rest was never read */
    close(out[1]);
    close(in[0]);
    close(in[1]);
    mcp_server_free(sv.server);
}

static void a_stop_gives_up_on_a_reader_that_takes_nothing(void **state)
{
    int in[2], out[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, in), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, out), 0);
    serving sv = {new_server(100), in[1], out[1], -1, 0};
    write_calls(in[0], 16);
    assert_int_equal(pthread_create(&sv.thread, NULL, serve_thread, &sv), 0);
    /* Replies queued (reading pauses past 1 MiB of them): nobody reads. */
    wait_replied(4);
    mcp_server_stop(sv.server);
    pthread_join(sv.thread, NULL);
    assert_int_equal(sv.rc, MCP_ERR_IO); /* replies were lost, and it says so */
    close_pairs(in, out);
    mcp_server_free(sv.server);
}

static void a_stop_with_a_reading_client_loses_nothing(void **state)
{
    int in[2], out[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, in), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, out), 0);
    serving sv = {new_server(100), in[1], out[1], -1, 0};
    write_calls(in[0], 4);
    assert_int_equal(pthread_create(&sv.thread, NULL, serve_thread, &sv), 0);
    wait_replied(4); /* queued, mostly unwritten: then the client reads */
    mcp_server_stop(sv.server);
    size_t bytes;
    size_t lines = read_until_served(&sv, out[0], out[1], &bytes);
    assert_int_equal(sv.rc, MCP_OK);
    assert_int_equal(lines, 5);
    close_pairs(in, out);
    mcp_server_free(sv.server);
}

static void a_directory_as_input_is_an_io_error(void **state)
{
    int dir = open(".", O_RDONLY | O_DIRECTORY);
    int out[2];
    assert_true(dir >= 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, out), 0);
    mcp_server *s = new_server(100);
    assert_int_equal(mcp_server_serve_fds(s, dir, out[1]), MCP_ERR_IO);
    mcp_server_free(s);
    close(dir);
    close(out[0]);
    close(out[1]);
}

static void an_output_that_refuses_bytes_is_an_io_error(void **state)
{
    int full = open("/dev/full", O_WRONLY);
    int in[2];
    assert_true(full >= 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, in), 0);
    write_calls(in[0], 1);
    shutdown(in[0], SHUT_WR);
    mcp_server *s = new_server(100);
    assert_int_equal(mcp_server_serve_fds(s, in[1], full), MCP_ERR_IO);
    /* And a clean end of input with nothing to say is no error. */
    int quiet[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, quiet), 0);
    shutdown(quiet[0], SHUT_WR);
    assert_int_equal(mcp_server_serve_fds(s, quiet[1], full), MCP_OK);
    mcp_server_free(s);
    close(full);
    close_pairs(in, quiet);
}

/* This program again, in a fresh process (no threads inherited: forking a
 * threaded process is not what this test is about), which closes the
 * given standard descriptors and serves stdio; its exit status is what
 * serve returned, negated. */
static char self_path[4096]; /* this program (not /proc/self/exe: under valgrind that is valgrind) */

static int serve_with_closed(const char *fds, int feed_fd)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (feed_fd >= 0)
            dup2(feed_fd, 0);
        execl(self_path, self_path, "--serve-with-closed", fds, (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status))
        fail_msg("the server died by signal %d", WTERMSIG(status));
    return -WEXITSTATUS(status);
}

static int child_main(const char *fds)
{
    for (const char *f = fds; *f; f++)
        close(*f - '0');
    mcp_server_options o = {.size = sizeof o, .log_level = MCP_LOG_ERROR + 1};
    mcp_server *s;
    if (mcp_server_new(&o, &s) != MCP_OK)
        return 100;
    int rc = mcp_server_serve_stdio(s);
    mcp_server_free(s);
    return -rc;
}

static void closed_standard_descriptors_are_io_errors_not_aborts(void **state)
{
    int feed[2];
    assert_int_equal(pipe(feed), 0);
    assert_true(write(feed[1], INIT, strlen(INIT)) == (ssize_t)strlen(INIT));
    close(feed[1]);
    assert_int_equal(serve_with_closed("0", -1), MCP_ERR_IO);
    assert_int_equal(serve_with_closed("1", feed[0]), MCP_ERR_IO);
    assert_int_equal(serve_with_closed("012", -1), MCP_ERR_IO);
    close(feed[0]);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--serve-with-closed"))
        return child_main(argv[2]);
    if (!realpath(argv[0], self_path))
        return 99;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_socket_both_ways_carries_big_replies),
        cmocka_unit_test(a_slow_reader_after_end_of_input_gets_every_reply),
        cmocka_unit_test(requests_are_read_as_fast_as_the_replies_are_taken),
        cmocka_unit_test(a_reader_that_goes_away_while_requests_wait_ends_the_run),
        cmocka_unit_test(a_stop_gives_up_on_a_reader_that_takes_nothing),
        cmocka_unit_test(a_stop_with_a_reading_client_loses_nothing),
        cmocka_unit_test(a_directory_as_input_is_an_io_error),
        cmocka_unit_test(an_output_that_refuses_bytes_is_an_io_error),
        cmocka_unit_test(closed_standard_descriptors_are_io_errors_not_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
