/* SPDX-License-Identifier: MIT */
/*
 * The task's own requests, for an application that keeps a task across
 * calls or restarts (2025-11-25 tasks.mdx; the 2026-07-28 tasks
 * extension): each is mcp_client_request with the task named, refused
 * first when the connection's revision has no such method.
 */
#include <string.h>

#include "client/internal.h"
#include "session/revision.h"

/* Whether the connection's revision has method: tasks/get and
 * tasks/cancel in both, tasks/result and tasks/list in 2025-11-25 only,
 * tasks/update in 2026-07-28 only. */
static bool revision_has(mcp_client *c, const char *method)
{
    if (!c->driver_open)
        return true; /* not connected: mcp_client_request says so */
    const char *v = mcp_session_protocol_version(c->driver.session);
    if (mcp_protocol_modern(v))
        return mcp__revision_has(v, MCP__HAS_TASK_EXTENSION) && strcmp(method, "tasks/result") &&
               strcmp(method, "tasks/list");
    return mcp__revision_has(v, MCP__HAS_TASKS) && strcmp(method, "tasks/update");
}

/* method with params {"taskId": task_id[, "inputResponses": responses]}
 * or, for tasks/list, {["cursor": cursor]}. */
static int task_request(mcp_client *c, const char *method, const char *task_id,
                        const char *cursor, const mcp_json *responses,
                        const mcp_client_call_options *opts, mcp_client_call_result *result)
{
    bool list = !strcmp(method, "tasks/list");
    if (!c || (!list && (!task_id || !*task_id)) ||
        (responses && mcp_json_typeof(responses) != MCP_JSON_OBJECT))
        return MCP_ERR_INVALID_ARG;
    if (!revision_has(c, method))
        return MCP_ERR_STATE;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *p = d ? mcp_json_new_object(d) : NULL;
    if (p && task_id && !list)
        mcp_json_object_set(d, p, "taskId", mcp_json_new_string(d, task_id));
    if (p && cursor && list)
        mcp_json_object_set(d, p, "cursor", mcp_json_new_string(d, cursor));
    if (p && responses)
        mcp_json_object_set(d, p, "inputResponses", mcp_json_copy(d, responses));
    int rc = !p || mcp_json_doc_error(d) != MCP_OK ? MCP_ERR_NOMEM
                                                   : mcp_client_request(c, method, p, opts, result);
    mcp_json_doc_free(d);
    return rc;
}

int mcp_client_task_get(mcp_client *c, const char *task_id, const mcp_client_call_options *opts,
                        mcp_client_call_result *result)
{
    return task_request(c, "tasks/get", task_id, NULL, NULL, opts, result);
}

int mcp_client_task_result(mcp_client *c, const char *task_id,
                           const mcp_client_call_options *opts, mcp_client_call_result *result)
{
    return task_request(c, "tasks/result", task_id, NULL, NULL, opts, result);
}

int mcp_client_task_cancel(mcp_client *c, const char *task_id,
                           const mcp_client_call_options *opts, mcp_client_call_result *result)
{
    return task_request(c, "tasks/cancel", task_id, NULL, NULL, opts, result);
}

int mcp_client_task_update(mcp_client *c, const char *task_id, const mcp_json *input_responses,
                           const mcp_client_call_options *opts, mcp_client_call_result *result)
{
    if (!input_responses)
        return MCP_ERR_INVALID_ARG;
    return task_request(c, "tasks/update", task_id, NULL, input_responses, opts, result);
}

int mcp_client_task_list(mcp_client *c, const char *cursor, const mcp_client_call_options *opts,
                         mcp_client_call_result *result)
{
    return task_request(c, "tasks/list", NULL, cursor, NULL, opts, result);
}
