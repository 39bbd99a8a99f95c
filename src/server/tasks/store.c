/* SPDX-License-Identifier: MIT */
/*
 * The task store a server is given (store.h), and the memory store: the
 * record of a task is the task itself in the process's table, so every
 * call is answered before it returns, and what the store would tell the
 * runner (a cancel, answers) is done at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/tasks/redis_link.h"
#include "server/tasks/store.h"

static bool same_credential(const char *credential, const void *ctx)
{
    return mcp__same_credential(credential, ctx);
}

static int memory_open(task_backend *b)
{
    (void)b;
    return MCP_OK;
}

static void memory_close(task_backend *b)
{
    (void)b;
}

static void answer(store_done done, void *arg, store_status status, const task *t,
                   const task_record *rec)
{
    store_result r = {.status = status, .record = rec};
    if (t)
        r.task_status = t->status;
    if (done)
        done(arg, &r);
}

static void memory_create(task_backend *b, task *t, store_done done, void *arg)
{
    (void)b;
    answer(done, arg, STORE_OK, t, NULL);
}

static void memory_get(task_backend *b, const char *id, size_t len, const char *credential,
                       store_done done, void *arg)
{
    task *t = task_find_modern(b->tasks, credential, false, id, len);
    task_record rec;
    if (t)
        tasks_record_of(t, &rec);
    answer(done, arg, t ? STORE_OK : STORE_NOT_FOUND, t, t ? &rec : NULL);
}

static void memory_changed(task_backend *b, task *t, bool announce, store_done done, void *arg)
{
    if (announce && !t->gone) {
        /* Each write may end a connection; a 2026 task outlives them, but
         * is held anyway: nothing here may free it under the walk. */
        task_hold(t);
        task_record rec;
        tasks_record_of(t, &rec);
        tasks_store_changed(b->tasks, t->id, NULL, &rec, same_credential, t->credential);
        task_release(t);
    }
    answer(done, arg, STORE_OK, t, NULL);
}

static void memory_cancel(task_backend *b, const char *id, size_t len, const char *credential,
                          store_done done, void *arg)
{
    task *t = task_find_modern(b->tasks, credential, false, id, len);
    if (!t) {
        answer(done, arg, STORE_NOT_FOUND, NULL, NULL);
        return;
    }
    bool ended = mcp__task_terminal(t->status);
    task_hold(t);
    tasks_cancel_local(t, "tasks/cancel");
    answer(done, arg, ended ? STORE_ENDED : STORE_OK, t, NULL);
    task_release(t);
}

static void memory_update(task_backend *b, const char *id, size_t len, const char *credential,
                          const mcp_json *responses, store_done done, void *arg)
{
    task *t = task_find_modern(b->tasks, credential, false, id, len);
    if (!t) {
        answer(done, arg, STORE_NOT_FOUND, NULL, NULL);
        return;
    }
    bool ended = mcp__task_terminal(t->status);
    task_hold(t);
    if (!ended)
        tasks_answer_local(t, responses);
    answer(done, arg, ended ? STORE_ENDED : STORE_OK, t, NULL);
    task_release(t);
}

const task_store_ops mcp__memory_store_ops = {
    .name = "memory",
    .open = memory_open,
    .close = memory_close,
    .async = false,
    .create = memory_create,
    .get = memory_get,
    .changed = memory_changed,
    .cancel = memory_cancel,
    .update = memory_update,
};

/* Choosing ----------------------------------------------------------------------- */

bool task_backend_spec_valid(const char *spec, char *why, size_t n)
{
    if (!spec || !strcmp(spec, "memory"))
        return true;
    /* The URL parser says what is wrong with a redis URL (rediss:// too:
     * "not a task store" would hide that TLS is what is missing). */
    if (!strncasecmp(spec, "redis://", 8) || !strncasecmp(spec, "rediss://", 9)) {
        mcp__redis_address a;
        return mcp__redis_url_parse(spec, &a, why, n);
    }
    snprintf(why, n, "not a task store: expected 'memory' or redis://HOST[:PORT][/DB]");
    return false;
}

bool mcp__task_store_valid(const char *spec)
{
    char why[160];
    return task_backend_spec_valid(spec, why, sizeof why);
}

bool mcp_server_task_store_valid(const char *spec, char *why, size_t n)
{
    char scratch[8];
    return task_backend_spec_valid(spec, why && n ? why : scratch, why && n ? n : sizeof scratch);
}

task_backend *task_backend_new(task_store *tasks, const mcp_server_options *opts, char *why,
                               size_t n)
{
    const char *spec = opts->task_store;
    if (!task_backend_spec_valid(spec, why, n))
        return NULL;
    if (spec && strcmp(spec, "memory"))
        return mcp__redis_store_new(tasks, opts, why, n);
    task_backend *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(why, n, "out of memory");
        return NULL;
    }
    b->ops = &mcp__memory_store_ops;
    b->tasks = tasks;
    return b;
}

void task_backend_free(task_backend *b)
{
    if (b && b->ops->free)
        b->ops->free(b);
    else
        free(b);
}
