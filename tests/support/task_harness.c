/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "task_harness.h"

#define EXT_ENV "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                "\"io.modelcontextprotocol/clientCapabilities\":{%s\"extensions\":" \
                "{\"io.modelcontextprotocol/tasks\":{}}}"

const char *ext_caps = "";

void task_id_of(const char *answer, char id[33])
{
    const char *p = strstr(answer, "\"taskId\":\"");
    if (!p)
        fail_msg("no taskId in %s", answer);
    memcpy(id, p + 10, 32);
    id[32] = '\0';
    assert_int_equal(p[42], '"');
}

char *ext_req_meta(harness *h, int id, const char *method, const char *params, const char *meta)
{
    size_t n = strlen(params) + strlen(meta) + strlen(ext_caps) + 400;
    char *line = malloc(n), want[32];
    assert_non_null(line);
    snprintf(line, n,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s%s\"_meta\":{"
             "%s%s" EXT_ENV "}}}",
             id, method, params, params[0] ? "," : "", meta, meta[0] ? "," : "", ext_caps);
    wire_send(&h->w, line);
    free(line);
    snprintf(want, sizeof want, "\"id\":%d,", id);
    return wire_expect(&h->w, want);
}

char *ext_req(harness *h, int id, const char *method, const char *params)
{
    return ext_req_meta(h, id, method, params, "");
}

char *ext_on_task(harness *h, int id, const char *method, const char task_id[33])
{
    char params[80];
    snprintf(params, sizeof params, "\"taskId\":\"%s\"", task_id);
    return ext_req(h, id, method, params);
}

char *ext_until(harness *h, int id, const char task_id[33], const char *status)
{
    char *got = NULL;
    for (int i = 0; i < 400; i++) {
        free(got);
        got = ext_on_task(h, id, "tasks/get", task_id);
        if (strstr(got, status))
            break;
        usleep(5000);
    }
    return got;
}
