/* SPDX-License-Identifier: MIT */
/*
 * Tasks (2025-11-25, basic/utilities/tasks.mdx): a tools/call that carries
 * params.task is answered CreateTaskResult at once, and the tool's own
 * handler runs as the task, its call detached from the request
 * (mcp__request_detach): what it answers is kept for tasks/result, its
 * progress and logs go out naming the task, and tasks/cancel fires its
 * cancel token. tasks.c answers the methods; task.c keeps the tasks: one
 * state machine for every transition, the store, expiry.
 *
 * A 2025-11-25 task belongs to the connection whose session made it (a
 * 2025 session is the client's identity): another asking for it is told it
 * does not exist, and the connection's end ends its tasks (nobody could
 * reach them any more). A 2026-07-28 task (the io.modelcontextprotocol/tasks
 * extension) outlives the request that made it (an HTTP request is a
 * connection of its own): it belongs to the credential the request carried,
 * or, without one, to whoever has its id (128 random bits), and ends with
 * its ttl or the server.
 *
 * Threads: the loop thread, all of it; a handler's answers reach it
 * through the request context's posts.
 */
#ifndef MCP_SERVER_TASKS_H
#define MCP_SERVER_TASKS_H

#include "server/methods/methods.h"
#include "session/task_wire.h"

extern const mcp__feature mcp__tasks_feature;

typedef struct task task;
typedef struct task_waiter task_waiter;
typedef struct task_backend task_backend; /* store.h */

/* The server's tasks (the feature's server state). */
typedef struct task_store {
    mcp_server *server;
    mcp__map by_id;       /* hash of the id -> task */
    task *oldest, *newest; /* every task, in the order made */
    size_t count;
    uint64_t next_seq;
    uint64_t max_ttl_ms, poll_ms;
    size_t max_per_client, max_total, page_size;
    uv_timer_t expiry; /* due at the earliest expiry, while any task lives */
    uint64_t timer_due; /* when it fires (loop clock); UINT64_MAX: stopped */
    bool timer_open;
    /* Where 2026-07-28 tasks' records live (store.h): the memory store, or
     * a shared one; open while the loop is. */
    task_backend *backend;
    bool backend_open;
    /* 2026 tasks held per credential (the per-client cap), by the hash of
     * the credential ("" for none) -> task_holder. */
    mcp__map holders;
} task_store;

/* How many 2026 tasks one credential holds. */
typedef struct task_holder {
    char *credential; /* owned; NULL: none */
    size_t count;
} task_holder;

/* What a connection holds (the feature's connection state). */
typedef struct task_owner {
    size_t count; /* its tasks */
} task_owner;

struct task {
    mcp__request_sink sink; /* its run's: first, a sink pointer is the task */
    task_store *store;
    char id[MCP__TASK_ID_LEN + 1];
    mcp__task_status status;
    char *status_message; /* owned, or NULL */
    int64_t created_ms, updated_ms; /* wall clock, for createdAt and lastUpdatedAt */
    uint64_t ttl_ms;
    uint64_t expires; /* loop clock */
    uint64_t seq;     /* order made: tasks/list cursors */
    conn *owner;      /* 2025: referenced; 2026: NULL */
    bool modern;      /* made under 2026-07-28 (the extension's shapes) */
    char *credential; /* 2026: the Authorization value it belongs to, or NULL */
    task_holder *holder; /* 2026: its credential's count */
    mcp__request *run; /* the handler's call, until it settles */
    task_waiter *waiters; /* tasks/result requests waiting for the end */
    /* The end (completed or failed): the call's result object, or its
     * error: outcome_code and {"message":..[,"data":..]}. */
    char *outcome;
    size_t outcome_len;
    int64_t outcome_code;
    bool outcome_is_error;
    unsigned questions; /* its run's questions open (input_required while any) */
    /* 2026: the questions its run asks, waiting for tasks/update (its
     * inputRequests), in the order asked; the keys ever asked (a key is
     * never used twice in a task, ext-tasks: MUST). */
    mcp__question *inputs;
    char **keys_used;
    unsigned nkeys_used;
    bool record_stale; /* 2026: its last change did not reach the store */
    /* 2026: its terminal status written by this process and confirmed by
     * the store: the record can change no more, so this copy answers for
     * it. */
    bool record_final;
    unsigned holds; /* code in the middle of using it: freed when 0 */
    bool gone;      /* removed from the store: found no more */
    task *prev, *next;
};

/* A tasks/result waiting for its task to end: a request of its own. */
struct task_waiter {
    mcp__request req; /* first */
    task *task;       /* NULL once answered or cancelled */
    task_waiter *next;
};

/* task.c -------------------------------------------------------------------------- */


/* A new task, working, kept ttl_ms: of owner (2025), or (owner NULL) a
 * 2026-07-28 task of credential (copied; NULL: none). NULL when out of
 * memory or no random id could be had. */
task *task_create(task_store *ts, conn *owner, const char *credential, uint64_t ttl_ms);
/* The task of that id c may reach, or NULL (unknown, gone, another's):
 * under 2025 one c made, under 2026 (modern) one made under 2026 with c's
 * credential. */
task *task_find(task_store *ts, conn *c, bool modern, const char *id, size_t len);
/* The 2026 task of that id made with credential (NULL: none), or NULL;
 * with any_credential, whatever its credential. */
task *task_find_modern(task_store *ts, const char *credential, bool any_credential,
                       const char *id, size_t len);
/* Keep t alive across a write (which may end its connection and remove
 * it); task_release frees it when removed meanwhile. */
void task_hold(task *t);
void task_release(task *t);
/* The one state machine: move t to `to` (false, nothing changed, when
 * that is no transition of the spec's: from a terminal status, or to
 * working from working), stamped now, with the status message (copied;
 * NULL: none). */
bool task_transition(task *t, mcp__task_status to, const char *message);
/* Take t out of the store: its run cancelled (why), its waiters answered
 * that the task is gone; freed once nothing holds it. */
void task_remove(task *t, const char *why);
/* Remove every task match accepts (ctx passed on), as task_remove does:
 * safe however the removals end connections and remove others. */
void task_remove_matching(task_store *ts, bool (*match)(const task *t, const void *ctx),
                          const void *ctx, const char *why);
/* The Task object's members (taskId, status, ...) written by w. */
void task_write(mcp__jw *w, const task *t);
/* How many 2026 tasks credential (NULL: none) holds. */
size_t task_held_by(const task_store *ts, const char *credential);
/* Tasks of c made after the one of sequence `after`, in order: the next
 * one, or NULL. */
task *task_next_of(task_store *ts, conn *c, uint64_t after);
/* The task of c made next after t, or NULL. */
task *task_owned_after(const task *t, conn *c);

/* tasks.c ------------------------------------------------------------------------- */

/* t ended (its status terminal): answer its waiters and tell its owner.
 * Holds t meanwhile. */
void tasks_ended(task *t);
/* t's status changed: notifications/tasks/status to its owner (2025), or
 * the store told (2026: its record follows, and the listens naming it). */
void tasks_notify_status(task *t);
/* 2026: t's questions changed (asked, withdrawn, answered): the store
 * told, whether or not its status changed. */
void tasks_inputs_changed(task *t);
/* 2026: the store is back: t's record written again as it is now (its
 * last change could not be, record_stale). */
void tasks_record_again(task *t);
/* The detailed task (2026: tasks/get's result) of a record, in b. */
struct task_record;
int tasks_detailed_object(mcp_buf *b, const struct task_record *rec);
/* The record of t, a task that runs here (its fields borrowed from t). */
void tasks_record_of(const task *t, struct task_record *rec);
/* 2026: t, running here, ended in the store differently (to: a cancel
 * through another process, a death declared by another): it follows. */
void tasks_follow_record(task *t, mcp__task_status to);
/* 2026: cancel t, running here, as tasks/cancel does (via: how the
 * cancel came, for the log). */
void tasks_cancel_local(task *t, const char *via);
/* modern.c: the 2026 methods through the store (id: params.taskId, n
 * bytes; responses: params.inputResponses, an object), and a task made
 * here given out once the store kept it (async stores: h answered then;
 * false: the task is gone already). */
void tasks_modern_get(conn *c, mcp_handle h, const mcp_message *msg, const char *id, size_t n);
void tasks_modern_update(conn *c, mcp_handle h, const mcp_message *msg, const char *id, size_t n,
                         const mcp_json *responses);
void tasks_modern_cancel(conn *c, mcp_handle h, const mcp_message *msg, const char *id, size_t n);
bool tasks_modern_create(task *t, mcp__request *r, mcp_handle h);
/* Whether r is a request waiting for the store (its settling handled). */
bool tasks_store_call_settled(mcp__request *r, const mcp__settle *how);
/* 2026: answers to t's questions (an inputResponses object). */
void tasks_answer_local(task *t, const mcp_json *responses);

#endif
