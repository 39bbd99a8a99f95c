/* SPDX-License-Identifier: MIT */
/*
 * mcp tasks list|get ID|result ID|cancel ID|update ID JSON: a server's
 * tasks, one request each. 2025-11-25 (basic/utilities/tasks): all but
 * update. 2026-07-28 (the io.modelcontextprotocol/tasks extension, which
 * every tasks/ request declares): get (the result or error inline),
 * cancel (an acknowledgment) and update (inputResponses, a JSON object of
 * answers under the keys of the task's inputRequests); list and result do
 * not exist there, and are refused here rather than sent. A server may keep
 * a task only for the session that made it (mcp serve does under
 * 2025-11-25): these reach the tasks of servers that keep them longer.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "text.h"

typedef struct tasks_state {
    const char *verb; /* list, get, result, cancel or update */
    const char *id;
    mcp_json_doc *responses; /* update: its inputResponses */
} tasks_state;

static bool check(void *state, int n, char **args)
{
    tasks_state *st = state;
    static const char *const verbs[] = {"list", "get", "result", "cancel", "update"};
    if (n == 0) {
        fputs("mcp: tasks needs list, get ID, result ID, cancel ID or update ID JSON\n", stderr);
        return false;
    }
    st->verb = NULL;
    for (size_t i = 0; i < 5; i++)
        if (!strcmp(args[0], verbs[i]))
            st->verb = verbs[i];
    if (!st->verb) {
        fprintf(stderr, "mcp: tasks: unknown '%s' (list, get, result, cancel or update)\n",
                cli_safe(args[0]));
        return false;
    }
    bool wants_id = strcmp(st->verb, "list") != 0;
    if (!strcmp(st->verb, "update")) {
        if (n != 3 || mcp_json_parse(args[2], strlen(args[2]), NULL, NULL, &st->responses,
                                     NULL) != MCP_OK ||
            mcp_json_typeof(mcp_json_doc_root(st->responses)) != MCP_JSON_OBJECT) {
            fputs("mcp: tasks update needs a task ID and a JSON object of answers "
                  "(inputResponses)\n", stderr);
            return false;
        }
        n = 2;
    }
    if (wants_id != (n == 2)) {
        fprintf(stderr, wants_id ? "mcp: tasks %s needs a task ID\n"
                                 : "mcp: tasks %s takes no task ID\n",
                st->verb);
        return false;
    }
    if (wants_id && (!*args[1] || mcp_utf8_validate(args[1], strlen(args[1]), NULL) != MCP_OK)) {
        fprintf(stderr, "mcp: the task ID '%s' is empty or not valid UTF-8\n", cli_safe(args[1]));
        return false;
    }
    st->id = wants_id ? args[1] : NULL;
    return true;
}

/* One Task, as a line: id, status, its message, its ttl. */
static void print_task(const mcp_json *t)
{
    size_t n;
    const char *id = mcp_json_string(mcp_json_object_get(t, "taskId"), &n);
    const char *status = mcp_json_string(mcp_json_object_get(t, "status"), NULL);
    const char *message = mcp_json_string(mcp_json_object_get(t, "statusMessage"), NULL);
    const char *created = mcp_json_string(mcp_json_object_get(t, "createdAt"), NULL);
    printf("%s  %-15s %s%s%s\n", id ? cli_safe_n(id, n) : "?", status ? cli_safe(status) : "?",
           created ? cli_safe(created) : "", message ? "  " : "",
           message ? cli_safe(message) : "");
}

static int run(void *state, mcp_client *c, const mcp_client_call_options *co,
               const cli_client_args *a)
{
    tasks_state *st = state;
    bool modern = mcp_protocol_modern(mcp_client_protocol_version(c));
    bool missing = modern ? !strcmp(st->verb, "list") || !strcmp(st->verb, "result")
                          : !strcmp(st->verb, "update");
    if (missing) {
        fprintf(stderr, "mcp: tasks %s: protocol revision %s has no tasks/%s%s\n", st->verb,
                cli_safe(mcp_client_protocol_version(c)), st->verb,
                modern ? " (the tasks extension: tasks get ID shows a task, its result or error "
                         "included)"
                       : " (it came with the tasks extension of 2026-07-28)");
        return EXIT_CONNECTION;
    }
    char method[24];
    snprintf(method, sizeof method, "tasks/%s", st->verb);
    mcp_json_doc *params = mcp_json_doc_new(NULL);
    mcp_json *p = params ? mcp_json_new_object(params) : NULL;
    if (p && st->id)
        mcp_json_object_set(params, p, "taskId", mcp_json_new_string(params, st->id));
    if (p && st->responses)
        mcp_json_object_set(params, p, "inputResponses",
                            mcp_json_copy(params, mcp_json_doc_root(st->responses)));
    mcp_json *seen = params ? mcp_json_new_array(params) : NULL; /* the cursors followed */
    int code = 0;
    bool more = true;
    for (int page = 0; more && code == 0; page++) {
        mcp_client_call_result r = {.size = sizeof r};
        int rc = p ? mcp_client_request(c, method, p, co, &r) : MCP_ERR_NOMEM;
        if (rc != MCP_OK) {
            code = cli_request_failed(c, method, rc, &r);
            mcp_client_call_result_release(&r);
            break;
        }
        more = false;
        if (!strcmp(st->verb, "list")) {
            const mcp_json *tasks = mcp_json_object_get(r.result, "tasks");
            for (size_t i = 0; i < mcp_json_array_size(tasks); i++)
                a->json ? cli_print_json(mcp_json_array_at(tasks, i))
                        : print_task(mcp_json_array_at(tasks, i));
            const mcp_json *next = mcp_json_object_get(r.result, "nextCursor");
            const char *cursor = mcp_json_string(next, NULL);
            /* A cursor that comes back, or pages past counting: the list
             * would never end. */
            for (size_t i = 0; cursor && i < mcp_json_array_size(seen); i++)
                if (!strcmp(mcp_json_string(mcp_json_array_at(seen, i), NULL) ?: "", cursor)) {
                    fputs("mcp: tasks/list: the server sent a cursor it had sent before; the "
                          "list would never end\n", stderr);
                    code = EXIT_CONNECTION;
                }
            if (cursor && !code && page >= 1000) {
                fputs("mcp: tasks/list: the server listed more than 1000 pages\n", stderr);
                code = EXIT_CONNECTION;
            }
            if (cursor && !code) {
                mcp_json_object_set(params, p, "cursor", mcp_json_copy(params, next));
                mcp_json_array_append(params, seen, mcp_json_copy(params, next));
                more = true;
            }
        } else if (!strcmp(st->verb, "result")) {
            /* What the call gave: its result as JSON (a tool's content and
             * all), an error was reported above. */
            cli_print_json(r.result);
        } else if (modern && strcmp(st->verb, "get") != 0) {
            /* 2026: an acknowledgment, nothing to show but that. */
            a->json ? cli_print_json(r.result) : printf("%s: acknowledged\n", method);
        } else {
            a->json ? cli_print_json(r.result) : print_task(r.result);
            /* 2026: the end is in the Task itself. */
            const mcp_json *end = mcp_json_object_get(r.result, "result");
            if (!end)
                end = mcp_json_object_get(r.result, "error");
            if (modern && end && !a->json)
                cli_print_json(end);
        }
        mcp_client_call_result_release(&r);
    }
    mcp_json_doc_free(params);
    return code;
}

int cli_tasks(int argc, char **argv)
{
    static const cli_command cmd = {"tasks", 3, NULL, check, run};
    tasks_state st = {NULL, NULL, NULL};
    int code = cli_run_command(&cmd, &st, argc, argv);
    mcp_json_doc_free(st.responses);
    return code;
}
