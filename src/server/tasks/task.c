/* SPDX-License-Identifier: MIT */
/*
 * The tasks a server keeps: ids, the state machine, expiry. Everything here
 * runs on the loop thread, so a transition is one step that nothing can
 * interleave with; what a write may do meanwhile (end the connection and
 * remove the task) is met by holding the task across it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "json/writer.h"
#include "server/tasks/tasks.h"

static void expire_due(uv_timer_t *timer);

/* Arm the timer for `first` (UINT64_MAX: stop it). */
static void arm_at(task_store *ts, uint64_t first)
{
    ts->timer_due = first;
    if (first == UINT64_MAX) {
        uv_timer_stop(&ts->expiry);
        return;
    }
    uint64_t now = mcp__now_ms();
    uv_timer_start(&ts->expiry, expire_due, first > now ? first - now : 0, 0);
}

/* Arm the timer for the earliest expiry of all (after expiries: a walk of
 * every task, once per firing, not per task made). */
static void arm(task_store *ts)
{
    uint64_t first = UINT64_MAX;
    for (task *t = ts->oldest; t; t = t->next)
        if (t->expires < first)
            first = t->expires;
    if (ts->timer_open)
        arm_at(ts, first);
}

static bool due(const task *t, const void *now)
{
    return t->expires <= *(const uint64_t *)now;
}

static void expire_due(uv_timer_t *timer)
{
    task_store *ts = timer->data;
    uint64_t now = mcp__now_ms();
    task_remove_matching(ts, due, &now, "the task expired");
    arm(ts);
}

void task_remove_matching(task_store *ts, bool (*match)(const task *t, const void *ctx),
                          const void *ctx, const char *why)
{
    /* Held first, then removed: removing one cancels its run and answers
     * its waiters, which may end a connection and remove other tasks. */
    for (;;) {
        task *batch[64];
        size_t n = 0;
        for (task *t = ts->oldest; t && n < 64; t = t->next)
            if (match(t, ctx)) {
                task_hold(t);
                batch[n++] = t;
            }
        for (size_t i = 0; i < n; i++) {
            if (!batch[i]->gone)
                mcp__server_log(ts->server, MCP_LOG_DEBUG, "task %s (%s) removed: %s",
                                batch[i]->id, mcp__task_status_name(batch[i]->status), why);
            task_remove(batch[i], why);
            task_release(batch[i]);
        }
        if (n < 64)
            break;
    }
}

/* Making and finding ------------------------------------------------------------- */

static bool same_id(const void *value, const void *ctx)
{
    return strcmp(((const task *)value)->id, ctx) == 0;
}

static uint64_t credential_hash(const char *credential)
{
    return credential ? mcp__hash_bytes(credential, strlen(credential)) : 0;
}

static bool same_holder(const void *value, const void *ctx)
{
    const task_holder *h = value;
    const char *credential = ctx;
    return mcp__same_credential(h->credential, credential);
}

size_t task_held_by(const task_store *ts, const char *credential)
{
    const task_holder *h =
        mcp__map_find(&ts->holders, credential_hash(credential), same_holder, credential);
    return h ? h->count : 0;
}

/* credential's count, made if need be (NULL when out of memory). */
static task_holder *holder_of(task_store *ts, const char *credential)
{
    uint64_t key = credential_hash(credential);
    task_holder *h = mcp__map_find(&ts->holders, key, same_holder, credential);
    if (h)
        return h;
    h = calloc(1, sizeof *h);
    if (!h || (credential && !(h->credential = strdup(credential))) ||
        mcp__map_reserve(&ts->holders, &ts->server->mem, 1) != MCP_OK) {
        if (h)
            free(h->credential);
        free(h);
        return NULL;
    }
    mcp__map_put(&ts->holders, &ts->server->mem, key, h);
    return h;
}

static void holder_drop(task_store *ts, task_holder *h)
{
    if (--h->count)
        return;
    mcp__map_remove(&ts->holders, credential_hash(h->credential), h);
    free(h->credential);
    free(h);
}

task *task_create(task_store *ts, conn *owner, const char *credential, uint64_t ttl_ms)
{
    char id[MCP__TASK_ID_LEN + 1];
    if (!mcp__random_hex(id, MCP__TASK_ID_LEN / 2))
        return NULL;
    task *t = calloc(1, sizeof *t);
    if (!t || mcp__map_reserve(&ts->by_id, &ts->server->mem, 1) != MCP_OK ||
        (credential && !(t->credential = strdup(credential))) ||
        (!owner && !(t->holder = holder_of(ts, credential)))) {
        if (t)
            free(t->credential);
        free(t);
        return NULL;
    }
    if (t->holder)
        t->holder->count++;
    if (!ts->timer_open) {
        uv_timer_init(&ts->server->loop, &ts->expiry);
        ts->expiry.data = ts;
        ts->timer_open = true;
        ts->timer_due = UINT64_MAX;
    }
    memcpy(t->id, id, sizeof id);
    t->store = ts;
    t->status = MCP__TASK_WORKING;
    t->created_ms = t->updated_ms = (int64_t)mcp__wall_ms();
    t->ttl_ms = ttl_ms;
    t->expires = mcp__now_ms() + ttl_ms;
    t->seq = ++ts->next_seq;
    t->owner = owner;
    t->modern = !owner;
    if (owner) {
        mcp__conn_ref(owner);
        ((task_owner *)mcp__conn_state(owner, &mcp__tasks_feature))->count++;
    }
    mcp__map_put(&ts->by_id, &ts->server->mem, mcp__hash_bytes(t->id, MCP__TASK_ID_LEN), t);
    t->prev = ts->newest;
    if (ts->newest)
        ts->newest->next = t;
    else
        ts->oldest = t;
    ts->newest = t;
    ts->count++;
    if (t->expires < ts->timer_due)
        arm_at(ts, t->expires);
    return t;
}

task *task_find(task_store *ts, conn *c, bool modern, const char *id, size_t len)
{
    if (len != MCP__TASK_ID_LEN || memchr(id, '\0', len))
        return NULL;
    char key[MCP__TASK_ID_LEN + 1];
    memcpy(key, id, len);
    key[len] = '\0';
    task *t = mcp__map_find(&ts->by_id, mcp__hash_bytes(key, len), same_id, key);
    if (!t || t->modern != modern)
        return NULL;
    if (!modern)
        return t->owner == c ? t : NULL;
    return task_find_modern(ts, c->credential, false, id, len);
}

task *task_find_modern(task_store *ts, const char *credential, bool any_credential,
                       const char *id, size_t len)
{
    if (len != MCP__TASK_ID_LEN || memchr(id, '\0', len))
        return NULL;
    char key[MCP__TASK_ID_LEN + 1];
    memcpy(key, id, len);
    key[len] = '\0';
    task *t = mcp__map_find(&ts->by_id, mcp__hash_bytes(key, len), same_id, key);
    if (!t || !t->modern || any_credential)
        return t && t->modern ? t : NULL;
    return mcp__same_credential(t->credential, credential) ? t : NULL;
}

task *task_next_of(task_store *ts, conn *c, uint64_t after)
{
    for (task *t = ts->oldest; t; t = t->next)
        if (t->seq > after && t->owner == c)
            return t;
    return NULL;
}

task *task_owned_after(const task *t, conn *c)
{
    for (task *n = t->next; n; n = n->next)
        if (n->owner == c)
            return n;
    return NULL;
}

/* Life ------------------------------------------------------------------------- */

void task_hold(task *t)
{
    t->holds++;
}

static void task_free(task *t)
{
    free(t->credential);
    for (unsigned i = 0; i < t->nkeys_used; i++)
        free(t->keys_used[i]);
    free(t->keys_used);
    free(t->status_message);
    free(t->outcome);
    free(t);
}

void task_release(task *t)
{
    if (--t->holds == 0 && t->gone)
        task_free(t);
}

bool task_transition(task *t, mcp__task_status to, const char *message)
{
    /* working <-> input_required, and either to a terminal status; a
     * terminal status never changes (tasks.mdx, "Task Status Lifecycle"). */
    if (mcp__task_terminal(t->status) || t->status == to)
        return false;
    char *copy = message ? strdup(message) : NULL;
    free(t->status_message);
    t->status_message = copy; /* out of memory: the message is lost, not the change */
    t->status = to;
    int64_t now = (int64_t)mcp__wall_ms();
    t->updated_ms = now > t->updated_ms ? now : t->updated_ms;
    return true;
}

void task_remove(task *t, const char *why)
{
    if (t->gone)
        return;
    task_store *ts = t->store;
    t->gone = true;
    mcp__map_remove(&ts->by_id, mcp__hash_bytes(t->id, MCP__TASK_ID_LEN), t);
    if (t->prev)
        t->prev->next = t->next;
    else
        ts->oldest = t->next;
    if (t->next)
        t->next->prev = t->prev;
    else
        ts->newest = t->prev;
    t->prev = t->next = NULL;
    ts->count--;
    if (t->holder) {
        holder_drop(ts, t->holder);
        t->holder = NULL;
    }
    if (t->owner)
        ((task_owner *)mcp__conn_state(t->owner, &mcp__tasks_feature))->count--;
    task_hold(t);
    mcp__request *run = t->run;
    t->run = NULL;
    if (run) {
        mcp__server_log(ts->server, MCP_LOG_INFO, "task %s: its call is cancelled: %s", t->id,
                        why);
        mcp__request_cancel(run, why);
    }
    /* Its waiters learn it is gone (each answer may end their connection). */
    while (t->waiters) {
        task_waiter *w = t->waiters;
        t->waiters = w->next;
        w->task = NULL;
        char text[120];
        snprintf(text, sizeof text, "Task %s no longer exists: %s", t->id, why);
        mcp__request_end(&w->req, ANSWER_ERROR, MCP_WIRE_INVALID_PARAMS, text, strlen(text));
    }
    conn *owner = t->owner;
    t->owner = NULL;
    task_release(t);
    if (owner)
        mcp__conn_unref(owner);
}

/* The Task ----------------------------------------------------------------------- */

void task_write(mcp__jw *w, const task *t)
{
    mcp__task_view v = {t->id,         t->status, t->status_message, t->created_ms,
                        t->updated_ms, t->ttl_ms, t->store->poll_ms, t->modern};
    mcp__task_write(w, &v);
}
