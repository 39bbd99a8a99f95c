/*
 * A scripted MCP server for client tests, misbehaving on purpose:
 *   late      answers tools/call 300 ms later even if cancelled
 *   exit      exits with status 3 on the first tools/call
 *   stubborn  ignores end of input and SIGTERM
 *   version   answers initialize with a version nobody speaks
 *   noinit    never answers initialize
 *   garbage   sends a non-JSON line, then a valid answer
 * It logs every line it receives to stderr as "got: <line>".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/jsonrpc.h"

static void send_text(const char *s)
{
    fputs(s, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void answer(const mcp_id *id, const char *result)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_append(&b, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
    mcp_id_write(id, &b);
    mcp_buf_append(&b, ",\"result\":", 10);
    mcp_buf_append(&b, result, strlen(result));
    mcp_buf_append(&b, "}", 1);
    send_text(b.data);
    mcp_buf_free(&b);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "late";
    if (!strcmp(mode, "stubborn"))
        signal(SIGTERM, SIG_IGN);
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strcspn(line, "\r\n");
        line[n] = 0;
        fprintf(stderr, "got: %s\n", line);
        mcp_message *m;
        if (mcp_message_decode(line, n, NULL, NULL, &m, NULL) != MCP_OK)
            continue;
        if (m->kind == MCP_MESSAGE_REQUEST) {
            if (!strcmp(m->method, "initialize")) {
                if (!strcmp(mode, "noinit")) {
                    mcp_message_free(m);
                    continue;
                }
                answer(&m->id, !strcmp(mode, "version")
                                   ? "{\"protocolVersion\":\"1999-01-01\",\"capabilities\":{},"
                                     "\"serverInfo\":{\"name\":\"fake\",\"version\":\"0\"}}"
                                   : "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
                                     "\"serverInfo\":{\"name\":\"fake\",\"version\":\"0\"}}");
            } else if (!strcmp(m->method, "tools/call")) {
                if (!strcmp(mode, "exit"))
                    exit(3);
                if (!strcmp(mode, "late"))
                    usleep(300 * 1000);
                if (!strcmp(mode, "garbage"))
                    send_text("this is not JSON");
                answer(&m->id, "{\"content\":[{\"type\":\"text\",\"text\":\"late answer\"}]}");
            } else {
                answer(&m->id, "{}");
            }
        }
        mcp_message_free(m);
    }
    if (!strcmp(mode, "stubborn"))
        for (;;)
            pause(); /* only SIGKILL ends this */
    return 0;
}
