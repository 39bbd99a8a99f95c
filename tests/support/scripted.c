/* SPDX-License-Identifier: MIT */
#include "scripted.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/internal.h"

char *scripted_next_line(scripted *s, const char *needle)
{
    uint64_t end = mcp_monotonic_ms() + 10000;
    for (;;) {
        mcp_client_run_once(s->client, false);
        char *l = wire_read(&s->w, 5);
        if (l && strstr(l, needle))
            return l;
        free(l);
        if (mcp_monotonic_ms() > end)
            fail_msg("no line with %s", needle);
    }
}

void scripted_no_line(scripted *s, const char *needle, int ms)
{
    uint64_t end = mcp_monotonic_ms() + (uint64_t)ms;
    while (mcp_monotonic_ms() < end) {
        mcp_client_run_once(s->client, false);
        char *l = wire_read(&s->w, 5);
        if (l && strstr(l, needle))
            fail_msg("unexpected: %s", l);
        free(l);
    }
}

void scripted_open(scripted *s, const char *version, mcp_client_options o, char **hello)
{
    scripted_open_caps(s, version, "{\"tools\":{}}", o, hello);
}

void scripted_open_caps(scripted *s, const char *version, const char *caps,
                        mcp_client_options o, char **hello)
{
    bool modern = mcp_protocol_modern(version);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    memset(s, 0, sizeof *s);
    s->w.fd = sv[1];
    o.connect_mode = modern ? MCP_CONNECT_MODERN : MCP_CONNECT_LEGACY;
    o.protocol_version = version;
    assert_int_equal(mcp_client_new(&o, &s->client), MCP_OK);
    char answer[1200];
    if (modern)
        snprintf(answer, sizeof answer,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\","
                 "\"supportedVersions\":[\"%s\"],\"capabilities\":%s,"
                 "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\","
                 "\"version\":\"1\"}}}}",
                 version, caps);
    else
        snprintf(answer, sizeof answer,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"%s\","
                 "\"capabilities\":%s,\"serverInfo\":{\"name\":\"s\","
                 "\"version\":\"1\"}}}",
                 version, caps);
    wire_send(&s->w, answer);
    if (mcp__client_connect_fds(s->client, sv[0], dup(sv[0])) != MCP_OK)
        fail_msg("connect: %s", mcp_client_error(s->client));
    *hello = wire_expect(&s->w, modern ? "server/discover" : "initialize");
    if (!modern)
        free(wire_expect(&s->w, "notifications/initialized"));
}

void scripted_close(scripted *s)
{
    mcp_client_free(s->client);
    close(s->w.fd);
}
