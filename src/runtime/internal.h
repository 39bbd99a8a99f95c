/* SPDX-License-Identifier: MIT */
/* Runtime internals: cancel tokens (creation and firing), the worker pool
 * and cross-thread posting to a libuv loop. */
#ifndef MCP_RUNTIME_INTERNAL_H
#define MCP_RUNTIME_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <uv.h>

#include "mcp/runtime.h"

/* Cancel tokens ----------------------------------------------------------- */

/* The token, in the open so that a request can hold one in its own memory
 * (every request in flight has one). */
struct mcp_cancel_token {
    atomic_uint refs;
    atomic_bool cancelled;
    pthread_mutex_t mu;
    /* Made by the first wait, in memory of its own: most tokens never
     * wait (48 bytes each). */
    pthread_cond_t *cv;
    char *reason;       /* written once, before `cancelled` is set */
    int fd, fd_write;   /* -1 until first asked for */
    struct callback *callbacks;
    bool detached;      /* the call ended: callbacks never run any more */
    bool running;       /* callbacks are being run, by `runner` */
    pthread_t runner;
};

/* A token in the caller's memory (embedded in what it belongs to): made
 * with init (MCP_OK, or MCP_ERR_NOMEM: nothing to finish), ended with fini
 * once nothing can reach it any more (it takes no references). */
int mcp__token_init(mcp_cancel_token *t);
void mcp__token_fini(mcp_cancel_token *t);
/* A new token with one reference, or NULL. */
mcp_cancel_token *mcp__token_new(void);
void mcp__token_ref(mcp_cancel_token *t);
void mcp__token_unref(mcp_cancel_token *t);
/* Fire the token (reason copied; may be NULL). Runs the callbacks on this
 * thread. Returns true the first time, false if it had already fired. */
bool mcp__token_cancel(mcp_cancel_token *t, const char *reason);
/* The call the token belongs to ended: its callbacks are dropped and never
 * run; one running on another thread is waited for (not one running on
 * this thread: the caller is inside it). The flag stays as it is. */
void mcp__token_detach(mcp_cancel_token *t);

/* Worker pool --------------------------------------------------------------- */

typedef struct mcp__job {
    struct mcp__job *next;
    void (*run)(struct mcp__job *job);
} mcp__job;

typedef struct mcp__pool mcp__pool;

/* Start `threads` workers (0 means 8). NULL on failure. */
mcp__pool *mcp__pool_new(unsigned threads);
/* Queue a job; it runs on some worker, in submission order of start. */
void mcp__pool_submit(mcp__pool *p, mcp__job *job);
/* Ask the workers to exit once the queue is empty. */
void mcp__pool_stop(mcp__pool *p);
/* Wait for every worker to exit, then free the pool. */
void mcp__pool_join(mcp__pool *p);
/* Stop the pool without waiting: its threads are detached and the last to
 * exit frees it. Any thread, a worker of the pool too (which cannot join
 * itself); p is not to be used afterwards. */
void mcp__pool_release(mcp__pool *p);
/* Pools not yet freed in the process. Any thread. (Tests: a released
 * pool's threads are gone shortly after this counts it freed.) */
unsigned mcp__pools_alive(void);
/* Jobs queued or running. Any thread. */
size_t mcp__pool_busy(mcp__pool *p);
/* The most extra threads a pool starts while workers wait (see pool.c),
 * and the most waits at once: fewer, so that extras remain for the jobs
 * queued meanwhile. */
#define MCP__POOL_MAX_EXTRA 256u
#define MCP__POOL_MAX_WAITING 240u
/* A job's thread is about to wait for something outside the pool (the
 * client), for long maybe, and then is done waiting: while it waits, a job
 * that finds no free worker gets an extra thread. false (and no wait
 * counted: do not wait then) when MCP__POOL_MAX_WAITING threads wait
 * already. Any thread; each true begin paired with an end. */
bool mcp__pool_wait_begin(mcp__pool *p);
void mcp__pool_wait_end(mcp__pool *p);

/* Posting to the loop thread -------------------------------------------------- */

typedef struct mcp__post {
    struct mcp__post *next;
    void (*run)(struct mcp__post *post); /* runs on the loop thread */
} mcp__post;

typedef struct mcp__poster {
    uv_async_t async;
    pthread_mutex_t mu;
    mcp__post *head, *tail;
    pthread_t loop_thread;
    bool open;
} mcp__poster;

/* The lock lives as long as the object that owns the poster (any thread
 * may post at any time until then: a post to a closed poster is refused);
 * the async handle lives with one loop.
 * init: when the owner is made. open: on the loop thread, which it records
 * (mcp__on_loop_thread), once per loop; MCP_OK or MCP_ERR_IO. */
void mcp__poster_init(mcp__poster *p);
int mcp__poster_open(mcp__poster *p, uv_loop_t *loop);
/* Any thread: run post->run on the loop thread soon. Returns false (and
 * does nothing) when the poster is not open. */
bool mcp__poster_post(mcp__poster *p, mcp__post *post);
/* Whether the caller is on the loop thread of the open poster. Any thread. */
bool mcp__on_loop_thread(mcp__poster *p);
/* On the loop thread: run what is queued, refuse new posts, close the
 * handle (the loop must run once more to finish the close). */
void mcp__poster_close(mcp__poster *p);
/* Free the lock: when the owner is freed, when no other thread may post. */
void mcp__poster_destroy(mcp__poster *p);

/* A closed stdin, stdout or stderr would be reused by the next descriptor
 * opened (the loop's own, a pipe), which libuv then refuses to close
 * (it asserts): each closed one is reserved with /dev/null opened so that
 * its use still fails (EBADF). Called before a loop is made. */
void mcp__reserve_std_fds(void);

/* Writing to a peer that went away must give EPIPE, not kill the process:
 * ignore SIGPIPE unless the application chose a disposition itself. */
void mcp__ignore_sigpipe(void);

/* Monotonic time in milliseconds and microseconds. */
uint64_t mcp__now_ms(void);
uint64_t mcp__now_us(void);
/* The wall clock in milliseconds since the epoch (timestamps a peer reads:
 * a task's createdAt, a requestState's expiry). */
uint64_t mcp__wall_ms(void);
/* bytes (at most 64) random bytes from the system as 2 * bytes lowercase
 * hex digits and a NUL in out: unguessable ids. False when the system gave
 * none. Any thread. */
bool mcp__random_hex(char *out, size_t bytes);

#endif
