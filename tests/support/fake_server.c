/* SPDX-License-Identifier: MIT */
/*
 * A scripted legacy MCP server for client tests, misbehaving on purpose:
 *   late      answers tools/call 300 ms later even if cancelled
 *   exit      exits with status 3 on the first tools/call
 *   stubborn  ignores end of input and SIGTERM
 *   version   answers initialize with a version nobody speaks
 *   noinit    never answers initialize
 *   silent    never answers anything
 *   garbage   sends a non-JSON line, then a valid answer
 *   cursor    tools/list pages that always name the same next cursor
 *   pages     tools/list pages whose next cursor never runs out
 *   huge      answers tools/call with a 5 MiB result, "id" first
 *   hugetail  the same with "id" last (as some SDKs order members)
 *   deaf      stops reading its input at the first tools/call (until killed)
 *   hang      never answers tools/call or tools/list; ignores end of input
 *             and SIGTERM
 *   linger    answers, then ignores end of input and SIGTERM (as stubborn)
 *   outschema tools/list: good, bad and nostruct, each declaring an
 *             outputSchema {n: integer, required}; tools/call answers
 *             good with {"n":1}, bad with {"n":"x"}, nostruct with text only
 *   malformed resources/list: a resource without uri; templates/list: a
 *             template whose uriTemplate is a number; prompts/list: a
 *             prompt with an argument without a name; resources/read: a
 *             blob that is not base64; prompts/get: a message whose role
 *             is "system"
 *   emptycursor  resources/list: the first page's nextCursor is "" (a
 *             cursor like any other), the second page has none
 * In every mode (cursor and pages included, for each list method):
 *   completion/complete  answers as many values as its argument's value
 *             says ("101": 101 values; not a number: one value)
 *   resources/subscribe  answers {}, then sends
 *             notifications/resources/updated for the URI
 * hang and linger log "fake_server pid <pid>" first, so tests can check
 * that the process is gone.
 * It answers server/discover as a legacy server would (-32601) and logs
 * every line it receives to stderr as "got: <line>".
 */
#include <signal.h>
#include <stdbool.h>
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

static void huge(const mcp_id *id, bool id_last)
{
    size_t n = (size_t)5 << 20;
    char *text = malloc(n);
    memset(text, 'x', n);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_append(&b, MCP_LITERAL("{\"jsonrpc\":\"2.0\","));
    if (!id_last) {
        mcp_buf_append(&b, MCP_LITERAL("\"id\":"));
        mcp_id_write(id, &b);
        mcp_buf_append(&b, MCP_LITERAL(","));
    }
    const char head[] = "\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"";
    mcp_buf_append(&b, head, sizeof head - 1);
    mcp_buf_append(&b, text, n);
    mcp_buf_append(&b, MCP_LITERAL("\"}]}"));
    if (id_last) {
        mcp_buf_append(&b, MCP_LITERAL(",\"id\":"));
        mcp_id_write(id, &b);
    }
    mcp_buf_append(&b, MCP_LITERAL("}"));
    send_text(b.data);
    mcp_buf_free(&b);
    free(text);
}

static void answer(const mcp_id *id, const char *result);

/* The result key and one item of each list method, or false. */
static bool list_item(const char *method, int page, const char **key, char *item, size_t n)
{
    if (!strcmp(method, "tools/list")) {
        *key = "tools";
        snprintf(item, n, "{\"name\":\"t%d\",\"inputSchema\":{\"type\":\"object\"}}", page);
    } else if (!strcmp(method, "resources/list")) {
        *key = "resources";
        snprintf(item, n, "{\"uri\":\"file:///r%d\",\"name\":\"r%d\"}", page, page);
    } else if (!strcmp(method, "resources/templates/list")) {
        *key = "resourceTemplates";
        snprintf(item, n, "{\"uriTemplate\":\"file:///t%d/{x}\",\"name\":\"t%d\"}", page, page);
    } else if (!strcmp(method, "prompts/list")) {
        *key = "prompts";
        snprintf(item, n, "{\"name\":\"p%d\"}", page);
    } else {
        return false;
    }
    return true;
}

/* completion/complete: as many values as the argument's value says. */
static void complete(const mcp_message *m)
{
    const mcp_json *arg = mcp_json_object_get(m->params, "argument");
    const char *v = mcp_json_string(mcp_json_object_get(arg, "value"), NULL);
    int count = v && atoi(v) > 0 ? atoi(v) : 1;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    const char head[] = "{\"completion\":{\"values\":[", tail[] = "],\"hasMore\":true}}";
    mcp_buf_append(&b, head, sizeof head - 1);
    for (int i = 0; i < count; i++) {
        char one[32];
        int k = snprintf(one, sizeof one, "%s\"v%d\"", i ? "," : "", i);
        mcp_buf_append(&b, one, (size_t)k);
    }
    mcp_buf_append(&b, tail, sizeof tail - 1);
    answer(&m->id, b.data);
    mcp_buf_free(&b);
}

static void subscribed(const mcp_message *m)
{
    answer(&m->id, "{}");
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    const char head[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\","
                        "\"params\":{\"uri\":";
    mcp_buf_append(&b, head, sizeof head - 1);
    mcp_json_write(mcp_json_object_get(m->params, "uri"), &b);
    mcp_buf_append(&b, MCP_LITERAL("}}"));
    send_text(b.data);
    mcp_buf_free(&b);
}

static const char *malformed(const char *method)
{
    static const char *const answers[][2] = {
        {"resources/list", "{\"resources\":[{\"uri\":\"file:///a\",\"name\":\"a\"},"
                           "{\"name\":\"nouri\"}]}"},
        {"resources/templates/list", "{\"resourceTemplates\":[{\"uriTemplate\":5,\"name\":\"t\"}]}"},
        {"prompts/list", "{\"prompts\":[{\"name\":\"p\",\"arguments\":[{\"required\":true}]}]}"},
        {"resources/read", "{\"contents\":[{\"uri\":\"file:///b\",\"blob\":\"not base64!\"}]}"},
        {"prompts/get", "{\"messages\":[{\"role\":\"system\",\"content\":{\"type\":\"text\","
                        "\"text\":\"x\"}}]}"},
    };
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++)
        if (!strcmp(method, answers[i][0]))
            return answers[i][1];
    return NULL;
}

static void answer(const mcp_id *id, const char *result)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_append(&b, MCP_LITERAL("{\"jsonrpc\":\"2.0\",\"id\":"));
    mcp_id_write(id, &b);
    mcp_buf_append(&b, MCP_LITERAL(",\"result\":"));
    mcp_buf_append(&b, result, strlen(result));
    mcp_buf_append(&b, MCP_LITERAL("}"));
    send_text(b.data);
    mcp_buf_free(&b);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "late";
    bool stubborn = !strcmp(mode, "stubborn") || !strcmp(mode, "hang") || !strcmp(mode, "linger");
    if (stubborn)
        signal(SIGTERM, SIG_IGN);
    if (!strcmp(mode, "hang") || !strcmp(mode, "linger"))
        fprintf(stderr, "fake_server pid %ld\n", (long)getpid());
    char line[65536];
    int page = 0;
    const char *key;
    char item[200];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strcspn(line, "\r\n");
        line[n] = 0;
        fprintf(stderr, "got: %s\n", line);
        mcp_message *m;
        if (mcp_message_decode(line, n, NULL, NULL, &m, NULL) != MCP_OK)
            continue;
        if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(mode, "silent")) {
            /* says nothing at all */
        } else if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(mode, "hang") &&
                   (!strcmp(m->method, "tools/call") || !strcmp(m->method, "tools/list"))) {
            /* never answers */
        } else if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(m->method, "server/discover")) {
            mcp_buf b;
            mcp_buf_init(&b, 0, NULL);
            mcp_buf_append(&b, MCP_LITERAL("{\"jsonrpc\":\"2.0\",\"id\":"));
            mcp_id_write(&m->id, &b);
            const char tail[] = ",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}";
            mcp_buf_append(&b, tail, sizeof tail - 1);
            send_text(b.data);
            mcp_buf_free(&b);
        } else if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(mode, "outschema") &&
                   !strcmp(m->method, "tools/list")) {
#define OUT "\"inputSchema\":{\"type\":\"object\"},\"outputSchema\":{\"type\":\"object\"," \
            "\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}"
            answer(&m->id, "{\"tools\":[{\"name\":\"good\"," OUT "},{\"name\":\"bad\"," OUT
                           "},{\"name\":\"nostruct\"," OUT "}]}");
#undef OUT
        } else if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(mode, "outschema") &&
                   !strcmp(m->method, "tools/call")) {
            const char *name = mcp_json_string(mcp_json_object_get(m->params, "name"), NULL);
            answer(&m->id, name && !strcmp(name, "good")
                               ? "{\"content\":[],\"structuredContent\":{\"n\":1}}"
                           : name && !strcmp(name, "bad")
                               ? "{\"content\":[],\"structuredContent\":{\"n\":\"x\"}}"
                               : "{\"content\":[{\"type\":\"text\",\"text\":\"t\"}]}");
        } else if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(mode, "malformed") &&
                   malformed(m->method)) {
            answer(&m->id, malformed(m->method));
        } else if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(mode, "emptycursor") &&
                   !strcmp(m->method, "resources/list")) {
            answer(&m->id, mcp_json_object_get(m->params, "cursor")
                               ? "{\"resources\":[{\"uri\":\"file:///2\",\"name\":\"2\"}]}"
                               : "{\"resources\":[{\"uri\":\"file:///1\",\"name\":\"1\"}],"
                                 "\"nextCursor\":\"\"}");
        } else if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(m->method, "completion/complete")) {
            complete(m);
        } else if (m->kind == MCP_MESSAGE_REQUEST && !strcmp(m->method, "resources/subscribe")) {
            subscribed(m);
        } else if (m->kind == MCP_MESSAGE_REQUEST &&
                   (!strcmp(mode, "cursor") || !strcmp(mode, "pages")) &&
                   list_item(m->method, page, &key, item, sizeof item)) {
            char result[300];
            snprintf(result, sizeof result, "{\"%s\":[%s],\"nextCursor\":\"c%d\"}", key, item,
                     !strcmp(mode, "cursor") ? 1 : page);
            page++;
            answer(&m->id, result);
        } else if (m->kind == MCP_MESSAGE_REQUEST) {
            if (!strcmp(m->method, "initialize")) {
                if (!strcmp(mode, "noinit")) {
                    mcp_message_free(m);
                    continue;
                }
                answer(&m->id, !strcmp(mode, "version")
                                   ? "{\"protocolVersion\":\"1999-01-01\",\"capabilities\":{},"
                                     "\"serverInfo\":{\"name\":\"fake\",\"version\":\"0\"}}"
                                   : "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
                                     "\"serverInfo\":{\"name\":\"fake\",\"version\":\"0\"}}");
            } else if (!strcmp(m->method, "tools/call")) {
                if (!strcmp(mode, "exit"))
                    exit(3);
                if (!strcmp(mode, "deaf"))
                    for (;;)
                        pause();
                if (!strcmp(mode, "late"))
                    usleep(300 * 1000);
                if (!strcmp(mode, "garbage"))
                    send_text("this is not JSON");
                if (!strcmp(mode, "huge") || !strcmp(mode, "hugetail")) {
                    huge(&m->id, !strcmp(mode, "hugetail"));
                    mcp_message_free(m);
                    continue;
                }
                answer(&m->id, "{\"content\":[{\"type\":\"text\",\"text\":\"late answer\"}]}");
            } else {
                answer(&m->id, "{}");
            }
        }
        mcp_message_free(m);
    }
    if (stubborn)
        for (;;)
            pause(); /* only SIGKILL ends this */
    return 0;
}
