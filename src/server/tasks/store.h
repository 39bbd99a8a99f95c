/* SPDX-License-Identifier: MIT */
/*
 * Where a 2026-07-28 task's record lives: the task store interface. A task
 * runs on one process (its run, waiters and questions are that process's:
 * task.c's table), but its record (status, message, times, ttl, owner,
 * outcome, the questions it waits on) must be seen by whichever process a
 * load balancer hands the next tasks/get, tasks/update or tasks/cancel to.
 * The store keeps the record; the process running the task (its runner)
 * hears from the store what others asked of it (a cancel, answers), and
 * every process hears a record's changes, for its listens.
 *
 * Two stores: memory (store.c, the default: the record is the
 * running task itself, every call answered before it returns) and Redis
 * (redis_store.c: the record is a hash that expires with the task's ttl,
 * every call answered later, from the loop, or with an error within the
 * store's timeout).
 *
 * 2025-11-25 tasks are not in it: such a task is its session's, and a
 * session lives on one process (a balancer keeps it there by its
 * Mcp-Session-Id), so they stay in the process's own table; tasks/list,
 * the one call that lists by owner with a cursor, exists only in that
 * revision.
 *
 * Threads: the loop thread, all of it.
 */
#ifndef MCP_SERVER_TASK_STORE_H
#define MCP_SERVER_TASK_STORE_H

#include "server/tasks/tasks.h"

/* A task's record as the store gives it (borrowed for the callback). */
typedef struct task_record {
    mcp__task_view view; /* id, status, message, times, ttl, poll */
    const task *local;   /* the task itself, when it runs here (memory) */
    /* Otherwise what the runner stored: its questions outstanding (the
     * inputRequests object's text, or NULL) and its end, as tasks.h's
     * outcome fields say. */
    const char *inputs;
    size_t inputs_len;
    const char *outcome;
    size_t outcome_len;
    int64_t outcome_code;
    bool outcome_is_error;
} task_record;

/* What a store call ended with. */
typedef enum store_status {
    STORE_OK,          /* done as asked */
    STORE_NOT_FOUND,   /* no such task for this credential (or expired) */
    STORE_ENDED,       /* the task had ended already (status says how) */
    STORE_UNAVAILABLE, /* the store could not be reached in time: why */
    STORE_REFUSED,     /* the store refused it (too many answers waiting): why */
    STORE_MALFORMED,   /* the record is not one the store writes (someone
                        * else wrote it): why */
} store_status;

typedef struct store_result {
    store_status status;
    mcp__task_status task_status; /* STORE_OK/ENDED: the task's status now */
    const task_record *record;    /* get: STORE_OK */
    const char *why;              /* STORE_UNAVAILABLE, _MALFORMED: what happened */
} store_result;

/* A store call's end: called once, from the loop; for the memory store
 * before the call returns. */
typedef void (*store_done)(void *arg, const store_result *r);

typedef struct task_store_ops {
    const char *name;
    /* Open on the server's loop (each run), close when it closes. */
    int (*open)(task_backend *b);
    void (*close)(task_backend *b);
    void (*free)(task_backend *b); /* NULL: plain free */
    /* Whether calls may be answered later (a caller that must keep a
     * request open across the call knows it from this). */
    bool async;
    /* t was made here, running: keep its record (done: STORE_OK once kept,
     * so that its id may be given out). */
    void (*create)(task_backend *b, task *t, store_done done, void *arg);
    /* The record of id (len bytes, any), if it belongs to credential
     * (NULL: none). */
    void (*get)(task_backend *b, const char *id, size_t len, const char *credential,
                store_done done, void *arg);
    /* t (running here) changed: its status moved locally (the local
     * table is where its runner decides), now the record follows, as one
     * compare-and-set: from any status not terminal to t's. STORE_ENDED
     * when the record had ended meanwhile (a cancel that came through
     * another process, a death declared by another): t must follow the
     * record. With announce, the listens naming t are told (a status
     * change; its questions alone changing is not announced). done may be
     * NULL. */
    void (*changed)(task_backend *b, task *t, bool announce, store_done done, void *arg);
    /* Cancel the task of id for credential: its record cancelled (if not
     * ended), then its runner told (the runner's token fires). */
    void (*cancel)(task_backend *b, const char *id, size_t len, const char *credential,
                   store_done done, void *arg);
    /* Answers to the task's questions (responses: an inputResponses
     * object, borrowed for the call), handed to its runner. */
    void (*update)(task_backend *b, const char *id, size_t len, const char *credential,
                   const mcp_json *responses, store_done done, void *arg);
    /* The server has news (a list changed, a resource updated: kind and
     * uri as mcp_server_publish takes them): every other process sharing
     * the store tells its listens (mcp__server_publish_heard). NULL: none
     * to tell. */
    void (*news)(task_backend *b, unsigned kind, const char *uri);
} task_store_ops;

/* A store, as the tasks feature holds it. */
struct task_backend {
    const task_store_ops *ops;
    task_store *tasks; /* the process's table: what the store tells goes to it */
};

extern const task_store_ops mcp__memory_store_ops;
extern const task_store_ops mcp__redis_store_ops;

/* The store the options name (NULL or "memory", or redis://...): a new
 * backend of tasks, unopened (free with task_backend_free), or NULL with
 * why (n bytes). */
task_backend *task_backend_new(task_store *tasks, const mcp_server_options *opts, char *why,
                               size_t n);
void task_backend_free(task_backend *b);
/* Whether spec names a store (why, n bytes, says what is wrong). */
bool task_backend_spec_valid(const char *spec, char *why, size_t n);
/* The Redis store's constructor (redis_store.c). */
task_backend *mcp__redis_store_new(task_store *tasks, const mcp_server_options *opts, char *why,
                                   size_t n);

/* What the store tells the process's table (tasks.c, for a task that runs
 * here or a listen that names one): */
/* the task of id was cancelled through the store: its run stops. */
void tasks_store_cancelled(task_store *ts, const char *id);
/* answers to t's questions came through the store (responses: an
 * inputResponses object). */
void tasks_store_answers(task_store *ts, const char *id, const mcp_json *responses);
/* the record of id changed (detailed: the task as tasks/get gives it, or
 * NULL: written from rec): the connections of its credential
 * (credential_matches) are told, on their listens that name it. */
void tasks_store_changed(task_store *ts, const char *id, const mcp_json *detailed,
                         const task_record *rec,
                         bool (*credential_matches)(const char *credential, const void *ctx),
                         const void *ctx);
/* The inputRequests object of t's questions outstanding, in w. */
void tasks_write_inputs(mcp__jw *w, const task *t);

#endif
