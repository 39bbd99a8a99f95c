/* SPDX-License-Identifier: MIT */
/*
 * Hostile-peer tests of our task calls (src/session/task_call.c), from the
 * attack-c pass: a server that answers a task call with what no task
 * call should take.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "peer.h"
#include "torture.h"

static const mcp_session_options client_options = {
    .size = sizeof(mcp_session_options), .timeout_ms = 1000, .max_time_ms = 60000};

static const mcp_request_options task_opts = {.size = sizeof(mcp_request_options),
                                              .task = true,
                                              .task_ttl_ms = 5000};

static void answer(peer *p, int64_t id, const char *result)
{
    char line[1000];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}", (long long)id,
             result);
    peer_feed(p, line);
}

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)h, (void)m;
    *(int *)ud = outcome;
}

static void modern_client(peer *p)
{
    peer_init(p, MCP_ROLE_CLIENT, &client_options);
    int outcome = 1;
    mcp_connect_options co = {.size = sizeof co, .mode = MCP_CONNECT_MODERN};
    PEER_EXPECT(mcp_session_connect(p->s, p->now, &co, connected, &outcome) == MCP_OK);
    const mcp_message *discover = peer_next(p);
    answer(p, discover ? discover->id.num : 0,
           "{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],"
           "\"capabilities\":{\"tools\":{},\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}},"
           "\"ttlMs\":0,\"cacheScope\":\"public\"}");
    PEER_EXPECT(outcome == MCP_OK);
}

static mcp_handle start(peer *p)
{
    mcp_handle h = 0;
    PEER_EXPECT(peer_request(p, "tools/call", "{\"name\":\"t\",\"arguments\":{}}", &task_opts,
                             &h) == MCP_OK);
    PEER_EXPECT(msg_is_method(peer_next(p), "tools/call"));
    return h;
}

static int outcome_of(const peer *p, mcp_handle h)
{
    int k = peer_response_index(p, h);
    return k < 0 ? 1 : p->outcomes[k];
}

#define CREATED25(id) "{\"task\":{\"taskId\":" id ",\"status\":\"working\",\"createdAt\":"   \
    "\"2026-11-27T00:00:00Z\",\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\",\"ttl\":5000,"        \
    "\"pollInterval\":10}}"
#define CREATED26(id) "{\"resultType\":\"task\",\"taskId\":" id ",\"status\":\"working\","     \
    "\"createdAt\":\"2026-11-27T00:00:00Z\",\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\","       \
    "\"ttlMs\":5000,\"pollIntervalMs\":10}"

/* A taskId that is empty or has a NUL in it is the server's fault: a
 * protocol violation, not "out of memory" (which an application takes for
 * its own failure, and mcp call reported as such). */
static void an_unusable_task_id_is_a_protocol_error_not_out_of_memory(void **state)
{
    (void)state;
    static const char *const ids25[] = {CREATED25("\"\""), CREATED25("\"a\\u0000b\"")};
    static const char *const ids26[] = {CREATED26("\"\""), CREATED26("\"a\\u0000b\"")};
    for (int era = 0; era < 2; era++)
        for (int i = 0; i < 2; i++) {
            peer p;
            if (era == 0) {
                peer_init(&p, MCP_ROLE_CLIENT, &client_options);
                peer_client_ready(&p);
            } else {
                modern_client(&p);
            }
            mcp_handle h = start(&p);
            answer(&p, (int64_t)h, era == 0 ? ids25[i] : ids26[i]);
            int outcome = outcome_of(&p, h);
            if (outcome != MCP_ERR_PROTOCOL)
                fprintf(stderr, "era %d case %d: outcome %d (%s), want MCP_ERR_PROTOCOL\n", era,
                        i, outcome, mcp_strerror(outcome));
            PEER_EXPECT(outcome == MCP_ERR_PROTOCOL);
            peer_free(&p);
        }
}

/* 2026: tasks/get answered about another task (its taskId not ours): its
 * inline result is not our call's. */
static void a_2026_tasks_get_about_another_task_does_not_end_the_call(void **state)
{
    (void)state;
    peer p;
    modern_client(&p);
    mcp_handle h = start(&p);
    answer(&p, (int64_t)h, CREATED26("\"t1\""));
    peer_advance(&p, 10);
    const mcp_message *get = peer_next(&p);
    PEER_EXPECT(msg_is_method(get, "tasks/get"));
    answer(&p, get ? get->id.num : 0,
           "{\"resultType\":\"complete\",\"taskId\":\"someone-else\",\"status\":\"completed\","
           "\"createdAt\":\"2026-11-27T00:00:00Z\",\"lastUpdatedAt\":\"2026-11-27T00:00:00Z\","
           "\"ttlMs\":5000,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":"
           "\"text\",\"text\":\"someone else's\"}]}}");
    int outcome = outcome_of(&p, h);
    if (outcome == MCP_OK)
        fprintf(stderr, "another task's result was taken as the call's\n");
    PEER_EXPECT(outcome == MCP_ERR_PROTOCOL);
    peer_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_unusable_task_id_is_a_protocol_error_not_out_of_memory),
        cmocka_unit_test(a_2026_tasks_get_about_another_task_does_not_end_the_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
