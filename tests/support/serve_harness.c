/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/internal.h"
#include "serve_harness.h"

static void *serve_thread(void *arg)
{
    harness *h = arg;
    h->rc = mcp_server_serve_fds(h->server, h->server_fd, h->server_fd);
    return NULL;
}

void harness_start(harness *h, mcp_server *s, const char *version, const char *capabilities,
                   char **init_answer)
{
    memset(h, 0, sizeof *h);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    h->w.fd = sv[0];
    h->server_fd = sv[1];
    h->server = s;
    h->modern = !version;
    assert_int_equal(pthread_create(&h->thread, NULL, serve_thread, h), 0);
    if (!version)
        return;
    char init[1024];
    snprintf(init, sizeof init,
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
             "{\"protocolVersion\":\"%s\",\"capabilities\":%s,"
             "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
             version, capabilities ? capabilities : "{}");
    wire_send(&h->w, init);
    char *answer = wire_expect(&h->w, "\"id\":0");
    if (init_answer)
        *init_answer = answer;
    else
        free(answer);
    wire_send(&h->w, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

void harness_wait_abandoned(void)
{
    if (!mcp__pools_alive())
        return;
    for (int i = 0; i < 1000 && mcp__pools_alive(); i++)
        usleep(10 * 1000);
    usleep(20 * 1000); /* its last thread's own end */
}

void harness_stop(harness *h)
{
    shutdown(h->w.fd, SHUT_WR);
    pthread_join(h->thread, NULL);
    assert_int_equal(h->rc, MCP_OK);
    close(h->w.fd);
    close(h->server_fd);
    mcp_server_free(h->server);
    harness_wait_abandoned();
}

void harness_send_req(harness *h, int id, const char *method, const char *params)
{
    char line[16384];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s%s%s}}", id, method,
             params, params[0] && h->modern ? "," : "",
             h->modern ? "\"_meta\":{" HARNESS_ENV "}" : "");
    wire_send(&h->w, line);
}

char *harness_req(harness *h, int id, const char *method, const char *params)
{
    harness_send_req(h, id, method, params);
    char want[32];
    snprintf(want, sizeof want, "\"id\":%d,", id);
    return wire_expect(&h->w, want);
}

void harness_expect_in(char *answer, const char *needle)
{
    if (!strstr(answer, needle))
        fail_msg("no '%s' in %s", needle, answer);
    free(answer);
}

long long harness_server_request(harness *h, const char *method, char **line)
{
    char *l = wire_expect(&h->w, method);
    const char *id = strstr(l, "\"id\":");
    assert_non_null(id);
    long long n = strtoll(id + 5, NULL, 10);
    if (line)
        *line = l;
    else
        free(l);
    return n;
}

char *harness_request_state(const char *answer)
{
    static const char member[] = "\"requestState\":\"";
    const char *p = strstr(answer, member);
    assert_non_null(p);
    p += sizeof member - 1;
    const char *end = strchr(p, '"');
    assert_non_null(end);
    return strndup(p, (size_t)(end - p));
}
