/* SPDX-License-Identifier: MIT */
/*
 * The client hosting the server's questions as tasks (2025-11-25,
 * src/client/task_receiver.c), against a server the test plays on the
 * wire: the capabilities declared; a task-augmented elicitation answered
 * CreateTaskResult at once while the question goes to the handler;
 * tasks/get, tasks/list, a tasks/result that waits for the answer and
 * gives it with the related-task _meta; tasks/cancel withdrawing the
 * question (its token fires, the late answer is dropped, the waiting
 * tasks/result is told); bad ids and ttls; the option off (the task param
 * ignored, the methods unknown).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "scripted.h"
#include "wire.h"

static mcp_question *held; /* the question the handler got */

static void on_elicitation(void *ud, mcp_question *q)
{
    held = q;
}

static mcp_client_options options(bool tasks)
{
    mcp_client_options o = {.size = sizeof o,
                            .on_elicitation = on_elicitation,
                            .question_tasks = tasks,
                            .log_level = MCP_LOG_ERROR};
    return o;
}

static void says(const char *text, const char *needle)
{
    if (!text || !strstr(text, needle))
        fail_msg("\"%s\" does not say \"%s\"", text ? text : "(null)", needle);
}

/* The server's elicitation/create (id), with task members (NULL: none). */
static void ask(scripted *s, int id, const char *task)
{
    char line[400];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"elicitation/create\",\"params\":{"
             "\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":"
             "{\"name\":{\"type\":\"string\"}}}%s%s%s}}",
             id, task ? ",\"task\":{" : "", task ? task : "", task ? "}" : "");
    wire_send(&s->w, line);
}

/* The server's request method about task id (NULL: params {}). */
static void about(scripted *s, int id, const char *method, const char *task_id)
{
    char line[300];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s%s%s}}", id, method,
             task_id ? "\"taskId\":\"" : "", task_id ? task_id : "", task_id ? "\"" : "");
    wire_send(&s->w, line);
}

static char *answer_to(scripted *s, int id)
{
    char want[32];
    snprintf(want, sizeof want, "\"id\":%d,", id);
    return scripted_next_line(s, want);
}

static void answer_says(scripted *s, int id, const char *needle)
{
    char *line = answer_to(s, id);
    says(line, needle);
    free(line);
}

/* The taskId in line, into id. */
static void id_of(const char *line, char id[33])
{
    const char *p = strstr(line, "\"taskId\":\"");
    if (!p)
        fail_msg("no taskId in %s", line);
    memcpy(id, p + 10, 32);
    id[32] = '\0';
}

static void answer_name(const char *name)
{
    char text[120];
    snprintf(text, sizeof text, "{\"action\":\"accept\",\"content\":{\"name\":\"%s\"}}", name);
    mcp_json_doc *d;
    assert_int_equal(mcp_json_parse(text, strlen(text), NULL, NULL, &d, NULL), MCP_OK);
    char why[200];
    assert_int_equal(mcp_question_answer(held, mcp_json_doc_root(d), why, sizeof why), MCP_OK);
    mcp_json_doc_free(d);
    held = NULL;
}

static void the_capability_is_declared_for_the_handlers_set(void **state)
{
    scripted s;
    char *hello;
    scripted_open(&s, "2025-11-25", options(true), &hello);
    says(hello, "\"tasks\":{\"list\":{},\"cancel\":{},\"requests\":{\"elicitation\":"
                "{\"create\":{}}}}");
    assert_null(strstr(hello, "sampling"));
    free(hello);
    scripted_close(&s);
    /* Other revisions have no such tasks. */
    scripted_open(&s, "2025-06-18", options(true), &hello);
    assert_null(strstr(hello, "\"tasks\""));
    free(hello);
    scripted_close(&s);
}

static void a_question_runs_as_a_task_to_its_answer(void **state)
{
    scripted s;
    char *hello, id[33];
    scripted_open(&s, "2025-11-25", options(true), &hello);
    free(hello);
    held = NULL;
    ask(&s, 100, "\"ttl\":5000");
    char *created = answer_to(&s, 100);
    says(created, "\"result\":{\"task\":{\"taskId\":\"");
    says(created, "\"status\":\"working\"");
    says(created, "\"ttl\":5000");
    id_of(created, id);
    free(created);
    assert_non_null(held); /* the handler has it meanwhile */
    about(&s, 101, "tasks/get", id);
    char *got = answer_to(&s, 101);
    says(got, "\"status\":\"working\"");
    free(got);
    /* tasks/result waits for the answer. */
    about(&s, 102, "tasks/result", id);
    scripted_no_line(&s, "\"id\":102", 50);
    answer_name("Ada");
    char *result = answer_to(&s, 102);
    says(result, "\"action\":\"accept\"");
    says(result, "\"name\":\"Ada\"");
    says(result, "\"io.modelcontextprotocol/related-task\":{\"taskId\":\"");
    says(result, id);
    free(result);
    char *status = scripted_next_line(&s, "notifications/tasks/status");
    says(status, "\"status\":\"completed\"");
    free(status);
    /* Listed; cancelled no more; unknown ids refused. */
    about(&s, 103, "tasks/list", NULL);
    answer_says(&s, 103, id);
    about(&s, 104, "tasks/cancel", id);
    char *refused = answer_to(&s, 104);
    says(refused, "\"code\":-32602");
    says(refused, "already completed");
    free(refused);
    about(&s, 105, "tasks/get", "0123456789abcdef0123456789abcdef");
    answer_says(&s, 105, "\"code\":-32602");
    ask(&s, 106, "\"ttl\":-5");
    answer_says(&s, 106, "params.task.ttl must be");
    assert_null(held);
    scripted_close(&s);
}

static void tasks_cancel_withdraws_the_question(void **state)
{
    scripted s;
    char *hello, id[33];
    scripted_open(&s, "2025-11-25", options(true), &hello);
    free(hello);
    held = NULL;
    ask(&s, 200, "");
    char *created = answer_to(&s, 200);
    id_of(created, id);
    free(created);
    mcp_question *q = held;
    assert_non_null(q);
    about(&s, 201, "tasks/result", id);
    about(&s, 202, "tasks/cancel", id);
    char *cancelled = answer_to(&s, 202);
    says(cancelled, "\"status\":\"cancelled\"");
    free(cancelled);
    char *waited = answer_to(&s, 201);
    says(waited, "\"code\":-32602");
    says(waited, "was cancelled");
    free(waited);
    assert_true(mcp_cancel_token_is_cancelled(mcp_question_token(q)));
    /* The late answer goes nowhere. */
    assert_int_equal(mcp_question_decline(q), MCP_ERR_CANCELLED);
    held = NULL;
    scripted_no_line(&s, "\"id\":200", 50);
    scripted_close(&s);
}

/* Without the option: the task param is ignored, the methods unknown. */
static void without_the_option_a_task_param_is_ignored(void **state)
{
    scripted s;
    char *hello;
    scripted_open(&s, "2025-11-25", options(false), &hello);
    assert_null(strstr(hello, "\"tasks\""));
    free(hello);
    held = NULL;
    ask(&s, 300, "");
    scripted_no_line(&s, "\"id\":300", 30);
    assert_non_null(held);
    answer_name("Bo");
    char *plain = answer_to(&s, 300);
    says(plain, "\"result\":{\"action\":\"accept\"");
    assert_null(strstr(plain, "taskId"));
    free(plain);
    about(&s, 301, "tasks/list", NULL);
    answer_says(&s, 301, "\"code\":-32601");
    scripted_close(&s);
}

/* The connection's end takes the tasks and withdraws their questions. */
static void the_connections_end_ends_the_tasks(void **state)
{
    scripted s;
    char *hello;
    scripted_open(&s, "2025-11-25", options(true), &hello);
    free(hello);
    held = NULL;
    ask(&s, 400, "");
    free(answer_to(&s, 400));
    mcp_question *q = held;
    assert_non_null(q);
    scripted_close(&s);
    assert_true(mcp_cancel_token_is_cancelled(mcp_question_token(q)));
    assert_int_equal(mcp_question_decline(q), MCP_ERR_CANCELLED);
    held = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_capability_is_declared_for_the_handlers_set),
        cmocka_unit_test(a_question_runs_as_a_task_to_its_answer),
        cmocka_unit_test(tasks_cancel_withdraws_the_question),
        cmocka_unit_test(without_the_option_a_task_param_is_ignored),
        cmocka_unit_test(the_connections_end_ends_the_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
