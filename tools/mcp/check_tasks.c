/* SPDX-License-Identifier: MIT */
/*
 * mcp check-cancel: tasks/cancel as 2025-11-25 says
 * (basic/utilities/tasks.mdx, Task Cancellation). The long tool runs as a
 * task (a short run: the task would end within seconds); then
 *
 *   task.created            the call is answered with the task (MUST)
 *   task.cancel-answer      tasks/cancel answers with the task, already
 *                           cancelled (MUST move it there before answering)
 *   task.cancelled-sticks   past the time the run would have taken,
 *                           tasks/get still says cancelled, never completed
 *                           or failed (MUST: terminal states never change)
 *   task.terminal-refused   tasks/cancel of the now terminal task gets
 *                           -32602 (MUST)
 *   task.unknown-refused    tasks/cancel of a task id never given gets
 *                           -32602 (protocol errors)
 *
 * A client cancels a task with tasks/cancel, never notifications/cancelled
 * (which names a request, and the call's request has been answered).
 *
 * Under 2026-07-28 tasks are an extension (io.modelcontextprotocol/tasks),
 * the server choosing per call whether to make one for a client that
 * declares it, and tasks/cancel is cooperative: the task MAY stay
 * non-terminal after it, and MAY end in another state. What is held:
 *
 *   task.created            the call is answered with a task (resultType
 *                           task and a taskId), or the server's choice not
 *                           to is said (SKIP)
 *   task.cancel-ack         tasks/cancel gets an empty acknowledgment (MUST)
 *   task.unknown-refused    tasks/cancel of a task never given gets an
 *                           error (SHOULD)
 */
#include <stdio.h>
#include <string.h>

#include "check_cancel.h"

#define RULE "2025-11-25 basic/utilities/tasks (Task Cancellation)"
/* How long the short run is given past the cancel before tasks/get. */
#define RUN_MS 4000

static const char *const ids[] = {"task.created", "task.cancel-answer", "task.cancelled-sticks",
                                  "task.terminal-refused", "task.unknown-refused"};
#define NIDS (sizeof ids / sizeof *ids)

static void skip_from(check_run *r, size_t first, const char *why)
{
    for (size_t i = first; i < NIDS; i++)
        check_report(r, ids[i], "MUST", RULE, CHECK_SKIP, "%s", why);
}

/* A request of tasks/ about task id (a JSON string's text), answered within
 * 5 s: its response, or NULL. */
static const check_msg *ask(check_run *r, const char *method, const char *task_json)
{
    mcp_buf params;
    mcp_buf_init(&params, 0, NULL);
    mcp_buf_append(&params, "{\"taskId\":", 10);
    mcp_buf_append(&params, task_json, strlen(task_json));
    mcp_buf_append(&params, "}", 1);
    size_t from = check_peer_count(r->p);
    int64_t id = params.len ? check_request(r, -1, method, params.data, NULL) : -1;
    mcp_buf_free(&params);
    check_want w = {.id = id};
    return check_peer_wait(r->p, from, check_wanted, &w, 5000, NULL);
}

static const char *status_of(const mcp_json *result)
{
    return mcp_json_string(mcp_json_object_get(result, "status"), NULL);
}

/* The long tool's short run called, with member (its text, or NULL) added
 * to the params: its answer within wait_ms, or NULL. */
static const check_msg *call_short(check_run *r, const char *member, uint64_t wait_ms)
{
    mcp_buf params;
    mcp_buf_init(&params, 0, NULL);
    mcp_buf_append(&params, "{\"name\":", 8);
    mcp_json_write_string(r->tool, strlen(r->tool), &params);
    mcp_buf_append(&params, ",\"arguments\":", 13);
    mcp_json_write(mcp_json_doc_root(r->short_args ? r->short_args : r->args), &params);
    if (member) {
        mcp_buf_append(&params, ",", 1);
        mcp_buf_append(&params, member, strlen(member));
    }
    mcp_buf_append(&params, "}", 1);
    size_t from = check_peer_count(r->p);
    int64_t id = params.len ? check_request(r, -1, "tools/call", params.data, NULL) : -1;
    mcp_buf_free(&params);
    check_want w = {.id = id};
    return check_peer_wait(r->p, from, check_wanted, &w, wait_ms, NULL);
}

/* What an answer is, and in words when it is not a result object. */
typedef enum { GOT_NOTHING, GOT_ERROR, GOT_BAD_RESULT, GOT_RESULT } got_kind;

static got_kind got(check_run *r, const check_msg *m, int64_t *code, char *what, size_t n)
{
    *code = 0;
    if (!m) {
        snprintf(what, n, "%s", check_peer_gone(r->p) ? "no answer: the server is gone"
                                                      : "no answer within 5 s");
        return GOT_NOTHING;
    }
    const mcp_json *e = mcp_json_object_get(m->root, "error");
    if (e) {
        if (mcp_json_get_int64(mcp_json_object_get(e, "code"), code) == MCP_OK && *code)
            snprintf(what, n, "the error %lld", (long long)*code);
        else
            snprintf(what, n, "an error whose code is not a nonzero integer");
        return GOT_ERROR;
    }
    if (mcp_json_typeof(mcp_json_object_get(m->root, "result")) != MCP_JSON_OBJECT) {
        snprintf(what, n, "a result that is not an object");
        return GOT_BAD_RESULT;
    }
    snprintf(what, n, "a result");
    return GOT_RESULT;
}

/* A status in words: its text, or what is wrong with it. */
static const char *status_words(const mcp_json *result)
{
    const mcp_json *v = mcp_json_object_get(result, "status");
    return !v ? "without a status"
           : mcp_json_typeof(v) != MCP_JSON_STRING ? "with a status that is not a string"
                                                   : mcp_json_string(v, NULL);
}

/* A cancel of a terminal or unknown task: -32602 is the answer. */
static void refused(check_run *r, const char *check, const char *task_json, const char *what)
{
    const check_msg *m = ask(r, "tasks/cancel", task_json);
    int64_t code;
    char how[120];
    got_kind k = got(r, m, &code, how, sizeof how);
    if (k == GOT_ERROR)
        check_report(r, check, "MUST", RULE, code == -32602 ? CHECK_PASS : CHECK_FAIL,
                     "tasks/cancel of %s got %s%s", what, how,
                     code == -32602 ? "" : ", not -32602");
    else if (k == GOT_RESULT)
        check_report(r, check, "MUST", RULE, CHECK_FAIL,
                     "tasks/cancel of %s succeeded (the task %.60s), where -32602 is due", what,
                     status_words(mcp_json_object_get(m->root, "result")));
    else
        check_report(r, check, "MUST", RULE, CHECK_FAIL, "tasks/cancel of %s got %s", what, how);
}

#define RULE_EXT "2026-07-28 the tasks extension (tasks/cancel)"

static void check_extension_tasks(check_run *r)
{
    static const char *const ext_ids[] = {"task.created", "task.cancel-ack", "task.unknown-refused"};
    if (!r->server_tasks) {
        for (size_t i = 0; i < 3; i++)
            check_report(r, ext_ids[i], "MUST", RULE_EXT, CHECK_SKIP,
                         "the server offers no tasks (the extension io.modelcontextprotocol/tasks "
                         "in its capabilities)");
        return;
    }
    r->declare_tasks = true; /* for these requests only: the server may make tasks of them */
    const check_msg *m = call_short(r, NULL, 10000);
    const mcp_json *result = m ? mcp_json_object_get(m->root, "result") : NULL;
    const char *kind = mcp_json_string(mcp_json_object_get(result, "resultType"), NULL);
    const mcp_json *task_id = mcp_json_object_get(result, "taskId");
    bool task = kind && !strcmp(kind, "task");
    if (!task || mcp_json_typeof(task_id) != MCP_JSON_STRING) {
        bool broken = task; /* a task without its id */
        check_report(r, ext_ids[0], "MUST", RULE_EXT, broken ? CHECK_FAIL : CHECK_SKIP, "%s",
                     broken ? "the call was answered with resultType task but no taskId string"
                     : !m   ? "the call got no answer within 10 s"
                     : !result ? "the call was answered with an error"
                               : "the server ran the call without a task (its choice)");
        for (size_t i = 1; i < 3; i++)
            check_report(r, ext_ids[i], "MUST", RULE_EXT, CHECK_SKIP, "no task to cancel");
        r->declare_tasks = false;
        return;
    }
    check_report(r, ext_ids[0], "MUST", RULE_EXT, CHECK_PASS, "%s was answered with a task (%s)",
                 r->tool, status_of(result) ? status_of(result) : "no status");
    mcp_buf tid;
    mcp_buf_init(&tid, 0, NULL);
    mcp_json_write(task_id, &tid);
    m = ask(r, "tasks/cancel", tid.data);
    mcp_buf_free(&tid);
    int64_t code;
    char how[120];
    got_kind k = got(r, m, &code, how, sizeof how);
    result = k == GOT_RESULT ? mcp_json_object_get(m->root, "result") : NULL;
    kind = mcp_json_string(mcp_json_object_get(result, "resultType"), NULL);
    if (k != GOT_RESULT)
        check_report(r, ext_ids[1], "MUST", RULE_EXT, CHECK_FAIL,
                     "tasks/cancel of a task just made got %s", how);
    else
        check_report(r, ext_ids[1], "MUST", RULE_EXT,
                     !kind || !strcmp(kind, "complete") ? CHECK_PASS : CHECK_FAIL,
                     "tasks/cancel was acknowledged%s%s", kind ? ", resultType " : "",
                     kind ? kind : "");
    m = ask(r, "tasks/cancel", "\"mcp-check-cancel-no-such-task\"");
    k = got(r, m, &code, how, sizeof how);
    check_report(r, ext_ids[2], "SHOULD", RULE_EXT, k == GOT_ERROR ? CHECK_PASS : CHECK_WARN,
                 "tasks/cancel of a task never given got %s", how);
    r->declare_tasks = false;
}

void check_tasks(check_run *r)
{
    if (r->modern) {
        check_extension_tasks(r);
        return;
    }
    if (strcmp(r->version, "2025-11-25") != 0)
        return; /* 2025-06-18 has no tasks */
    if (!r->server_tasks) {
        skip_from(r, 0, "the server offers no tasks (capabilities tasks.requests.tools.call "
                        "and tasks.cancel)");
        return;
    }
    if (!r->tool_tasks) {
        char why[200];
        snprintf(why, sizeof why, "%.100s may not run as a task (its execution.taskSupport)",
                 r->tool);
        skip_from(r, 0, why);
        return;
    }
    /* The call, as a task. */
    const check_msg *m = call_short(r, "\"task\":{\"ttl\":60000}", 5000);
    int64_t code;
    char how[120];
    got_kind k = got(r, m, &code, how, sizeof how);
    const mcp_json *task = k == GOT_RESULT ? mcp_json_object_get(mcp_json_object_get(m->root,
                                                                                     "result"),
                                                                 "task")
                                           : NULL;
    const mcp_json *task_id = mcp_json_object_get(task, "taskId");
    const char *first = status_of(task);
    const char *wrong = k != GOT_RESULT ? how
                        : !task ? "no task in its result"
                        : mcp_json_typeof(task) != MCP_JSON_OBJECT ? "a task that is not an object"
                        : mcp_json_typeof(task_id) != MCP_JSON_STRING ? "a task whose taskId is "
                                                                        "not a string"
                        : !first ? "a task without a status (a string)"
                                 : NULL;
    if (wrong) {
        check_report(r, ids[0], "MUST", RULE, CHECK_FAIL, "%s called as a task got %s", r->tool,
                     wrong);
        skip_from(r, 1, "no task to cancel");
        return;
    }
    mcp_buf tid;
    mcp_buf_init(&tid, 0, NULL);
    mcp_json_write(task_id, &tid);
    check_report(r, ids[0], "MUST", RULE, CHECK_PASS, "%s called as a task got one (%.60s)",
                 r->tool, first);
    if (strcmp(first, "working") && strcmp(first, "input_required")) {
        char why[200];
        snprintf(why, sizeof why, "the task was %.60s already: nothing to cancel", first);
        skip_from(r, 1, why);
        mcp_buf_free(&tid);
        return;
    }

    /* tasks/cancel: the task itself, already cancelled. */
    m = ask(r, "tasks/cancel", tid.data);
    k = got(r, m, &code, how, sizeof how);
    const char *after = k == GOT_RESULT ? status_of(mcp_json_object_get(m->root, "result")) : NULL;
    bool cancelled = after && !strcmp(after, "cancelled");
    const mcp_json *named = k == GOT_RESULT
                                ? mcp_json_object_get(mcp_json_object_get(m->root, "result"), "taskId")
                                : NULL;
    mcp_buf same;
    mcp_buf_init(&same, 0, NULL);
    bool other = named && (mcp_json_write(named, &same) != MCP_OK || same.len != tid.len ||
                           memcmp(same.data, tid.data, tid.len));
    mcp_buf_free(&same);
    if (k != GOT_RESULT)
        check_report(r, ids[1], "MUST", RULE, CHECK_FAIL,
                     "tasks/cancel of a working task got %s", how);
    else if (other)
        check_report(r, ids[1], "MUST", RULE, CHECK_FAIL,
                     "tasks/cancel answered with another task than the one named");
    else
        check_report(r, ids[1], "MUST", RULE, cancelled ? CHECK_PASS : CHECK_FAIL,
                     "tasks/cancel answered with the task %.60s",
                     status_words(mcp_json_object_get(m->root, "result")));

    /* Past the run's end: still cancelled (judged when the cancel was
     * taken: a cancel never answered is told once, above). */
    const char *later = NULL;
    if (k != GOT_RESULT) {
        check_report(r, ids[2], "MUST", RULE, CHECK_SKIP,
                     "the cancel got no result: whether it would stick is not judged");
    } else {
        check_peer_drain(r->p, RUN_MS);
        m = ask(r, "tasks/get", tid.data);
        k = got(r, m, &code, how, sizeof how);
        later = k == GOT_RESULT ? status_of(mcp_json_object_get(m->root, "result")) : NULL;
        if (k == GOT_ERROR)
            check_report(r, ids[2], "MUST", RULE, CHECK_SKIP,
                         "tasks/get %d s after the cancel got %s (the receiver MAY delete "
                         "cancelled tasks)", RUN_MS / 1000, how);
        else if (k != GOT_RESULT)
            check_report(r, ids[2], "MUST", RULE, CHECK_FAIL,
                         "tasks/get %d s after the cancel got %s", RUN_MS / 1000, how);
        else
            check_report(r, ids[2], "MUST", RULE,
                         later && !strcmp(later, "cancelled") ? CHECK_PASS : CHECK_FAIL,
                         "%d s after the cancel, past the run's end, the task is %.60s",
                         RUN_MS / 1000, status_words(mcp_json_object_get(m->root, "result")));
    }
    if (cancelled || (later && !strcmp(later, "cancelled")))
        refused(r, ids[3], tid.data, "the cancelled task");
    else
        check_report(r, ids[3], "MUST", RULE, CHECK_SKIP, "the task did not become terminal");
    mcp_buf_free(&tid);
    refused(r, ids[4], "\"mcp-check-cancel-no-such-task\"", "a task never given");
}
