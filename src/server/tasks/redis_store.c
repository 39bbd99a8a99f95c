/* SPDX-License-Identifier: MIT */
/*
 * The Redis task store (store.h): every process behind one address keeps
 * its 2026-07-28 tasks' records in one Redis, and hears through it what
 * others asked of the tasks it runs.
 *
 * Keys (all under "mcp:"):
 *   task:<id>      a hash, the record: s status, m message, c created, u
 *                  updated (wall ms), t ttl, p poll (ms), o the owner (the
 *                  SHA-256 of its Authorization value, "-" for none), r its
 *                  runner, i its questions (inputRequests' text), x k e its
 *                  end (outcome text, code, whether an error). It expires
 *                  with the task's ttl, in Redis itself.
 *   answers:<id>   a list of tasks/update answers its runner has not taken.
 *   running:<r>    the ids runner r runs (not ended).
 *   lease:<r>      present while runner r lives (renewed at a third of
 *                  the lease); runners: every runner that has held one.
 * Channels: runner:<r> ("C<id>": cancelled, "U<id>": answers to take) and
 * events ("<id> <owner>\n<the detailed task, or nothing: read it>").
 *
 * Every change of a record is one Lua script, so that it is atomic: a
 * cancel on one process and the end on another leave exactly one terminal
 * status (the first), and only the change that took is announced. A
 * runner whose lease is gone is reaped by whichever process sees it first
 * (one script: its running tasks failed, announced, its sets removed).
 *
 * What a process misses while its subscription is down (Redis restarted,
 * the network gone) it reads again when it comes back: its running tasks'
 * statuses and their answers waiting, which the store keeps for that.
 */
#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "json/writer.h"
#include "server/tasks/redis_link.h"
#include "server/tasks/store.h"
#include "session/entry.h"

#define PREFIX "mcp:"
#define OWNER_HEX (SHA256_DIGEST_LENGTH * 2)
#define MAX_ANSWERS_WAITING "256"
#define PROCESS_GONE "the server process running this task stopped"

typedef struct redis_store {
    task_backend base; /* first */
    mcp__redis_address address;
    uint64_t timeout_ms, lease_ms;
    char runner[MCP__TASK_ID_LEN + 1];
    char runner_channel[64], running_key[64], lease_key[64];
    mcp__redis_link *cmd, *sub;
    uv_timer_t lease;
    bool lease_open;
    /* Tasks whose create was sent but never answered (Redis slow, gone):
     * refused, so nobody has their ids, yet Redis may have run it. Their
     * records are removed once Redis is back (at most MAX_FORGET). */
    char (*forget)[MCP__TASK_ID_LEN + 1];
    size_t nforget;
    /* Calls waiting for Redis: a close lets them finish (a task failed as
     * the server stops must reach its record), within the timeout. */
    size_t calls;
    bool closing, closed;
    /* No reaping before this (loop clock): a process back from an outage
     * that outlived its own lease (Redis away for everyone: restarted,
     * paused, the network cut, every lease run out) reaps no one until
     * every live process has had the time to come back and renew its
     * lease. UINT64_MAX: not known yet (down, or the first renewal's
     * answer awaited). */
    uint64_t reap_after;
    /* When (loop clock) the lease was last seen renewed: an answer to a
     * renewal, or 0. */
    uint64_t renewed_at;
} redis_store;

/* The links' longest wait between attempts to reconnect. */
#define RECONNECT_MAX_MS 2000

static void finish_close(redis_store *rs);
static void resync(redis_store *rs);

#define MAX_FORGET 1024
/* The shortest lease and the longest timeout (redis_link.c's cap). */
#define LEASE_MIN_MS 500
#define TIME_MAX_MS ((uint64_t)24 * 3600 * 1000)

static mcp_server *server_of(redis_store *rs)
{
    return rs->base.tasks->server;
}

/* The owner a record names: the credential's digest, so that Redis holds
 * no token. */
static void owner_of(const char *credential, char out[OWNER_HEX + 1])
{
    if (!credential) {
        strcpy(out, "-");
        return;
    }
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)credential, strlen(credential), d);
    for (size_t i = 0; i < sizeof d; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static bool owner_matches(const char *credential, const void *ctx)
{
    char mine[OWNER_HEX + 1];
    owner_of(credential, mine);
    return !strcmp(mine, ctx);
}

static bool status_named(const char *name, mcp__task_status *out)
{
    for (int s = MCP__TASK_WORKING; s <= MCP__TASK_CANCELLED; s++)
        if (!strcmp(mcp__task_status_name((mcp__task_status)s), name)) {
            *out = (mcp__task_status)s;
            return true;
        }
    return false;
}

/* The scripts ------------------------------------------------------------------ */

#define TERMINAL(x) "(" x " == 'completed' or " x " == 'failed' or " x " == 'cancelled')"

/* KEYS: task, running set, runners. ARGV: id, status, created, ttl, poll,
 * owner, runner. */
static const char create_script[] =
    "redis.call('HSET', KEYS[1], 's', ARGV[2], 'c', ARGV[3], 'u', ARGV[3], 't', ARGV[4],"
    " 'p', ARGV[5], 'o', ARGV[6], 'r', ARGV[7])\n"
    "redis.call('PEXPIRE', KEYS[1], ARGV[4])\n"
    "redis.call('SADD', KEYS[2], ARGV[1])\n"
    "redis.call('SADD', KEYS[3], ARGV[7])\n"
    "return 1\n";

/* KEYS: task, running set, runners. ARGV: id, status, message, updated,
 * inputs, outcome, code, error, event ('' : none), events channel, then
 * what a record lost is made again from (the runner holds the task, so its
 * record is the runner's to restore: deleted, flushed, Redis restarted
 * empty): created, ttl, the ttl left ('0': expired, not restored), poll,
 * owner, runner. */
static const char change_script[] =
    "local s = redis.call('HGET', KEYS[1], 's')\n"
    "if not s and ARGV[13] ~= '0' then\n"
    "  redis.call('HSET', KEYS[1], 's', 'working', 'c', ARGV[11], 't', ARGV[12], 'p', ARGV[14],"
    " 'o', ARGV[15], 'r', ARGV[16])\n"
    "  redis.call('PEXPIRE', KEYS[1], ARGV[13])\n"
    "  redis.call('SADD', KEYS[2], ARGV[1])\n"
    "  redis.call('SADD', KEYS[3], ARGV[16])\n"
    "  s = 'working'\n"
    "end\n"
    "if not s then redis.call('SREM', KEYS[2], ARGV[1]) return {'gone', ''} end\n"
    "if " TERMINAL("s") " then return {'ended', s} end\n"
    "redis.call('HSET', KEYS[1], 's', ARGV[2], 'm', ARGV[3], 'u', ARGV[4], 'i', ARGV[5])\n"
    "if " TERMINAL("ARGV[2]") " then\n"
    "  redis.call('HSET', KEYS[1], 'x', ARGV[6], 'k', ARGV[7], 'e', ARGV[8])\n"
    "  redis.call('SREM', KEYS[2], ARGV[1])\n"
    "end\n"
    "if ARGV[9] ~= '' then redis.call('PUBLISH', ARGV[10], ARGV[9]) end\n"
    "return {'ok', ARGV[2]}\n";

/* KEYS: task. ARGV: owner, message, now, id. */
static const char cancel_script[] =
    "local f = redis.call('HMGET', KEYS[1], 's', 'o', 'r')\n"
    "if not f[1] or f[2] ~= ARGV[1] then return {'gone', ''} end\n"
    "if " TERMINAL("f[1]") " then return {'ended', f[1]} end\n"
    "redis.call('HSET', KEYS[1], 's', 'cancelled', 'm', ARGV[2], 'u', ARGV[3], 'i', '')\n"
    "redis.call('SREM', '" PREFIX "running:' .. f[3], ARGV[4])\n"
    "redis.call('PUBLISH', '" PREFIX "runner:' .. f[3], 'C' .. ARGV[4])\n"
    "redis.call('PUBLISH', '" PREFIX "events', ARGV[4] .. ' ' .. ARGV[1] .. '\\n')\n"
    "return {'ok', 'cancelled'}\n";

/* KEYS: task, answers. ARGV: owner, responses, id. */
static const char update_script[] =
    "local f = redis.call('HMGET', KEYS[1], 's', 'o', 'r')\n"
    "if not f[1] or f[2] ~= ARGV[1] then return {'gone', ''} end\n"
    "if " TERMINAL("f[1]") " then return {'ended', f[1]} end\n"
    "if redis.call('LLEN', KEYS[2]) >= " MAX_ANSWERS_WAITING " then return {'full', f[1]} end\n"
    "redis.call('RPUSH', KEYS[2], ARGV[2])\n"
    "local ttl = redis.call('PTTL', KEYS[1])\n"
    "if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end\n"
    "redis.call('PUBLISH', '" PREFIX "runner:' .. f[3], 'U' .. ARGV[3])\n"
    "return {'ok', f[1]}\n";

/* KEYS: answers, task. The task's status ('' : gone), then its answers
 * waiting, taken. */
static const char take_script[] =
    "local a = redis.call('LRANGE', KEYS[1], 0, -1)\n"
    "redis.call('DEL', KEYS[1])\n"
    "table.insert(a, 1, redis.call('HGET', KEYS[2], 's') or '')\n"
    "return a\n";

/* ARGV: self, now, message, error text. Each runner other than self whose
 * lease is gone: its tasks not ended fail, each announced; it is forgotten.
 * Returns how many failed. */
static const char reap_script[] =
    "local n = 0\n"
    "for _, r in ipairs(redis.call('SMEMBERS', '" PREFIX "runners')) do\n"
    "  if r ~= ARGV[1] and redis.call('EXISTS', '" PREFIX "lease:' .. r) == 0 then\n"
    "    for _, id in ipairs(redis.call('SMEMBERS', '" PREFIX "running:' .. r)) do\n"
    "      local k = '" PREFIX "task:' .. id\n"
    "      local f = redis.call('HMGET', k, 's', 'o')\n"
    "      if f[1] and not " TERMINAL("f[1]") " then\n"
    "        redis.call('HSET', k, 's', 'failed', 'm', ARGV[3], 'u', ARGV[2], 'i', '',"
    "                   'x', ARGV[4], 'k', '-32603', 'e', '1')\n"
    "        redis.call('PUBLISH', '" PREFIX "events', id .. ' ' .. f[2] .. '\\n')\n"
    "        n = n + 1\n"
    "      end\n"
    "    end\n"
    "    redis.call('DEL', '" PREFIX "running:' .. r)\n"
    "    redis.call('SREM', '" PREFIX "runners', r)\n"
    "  end\n"
    "end\n"
    "return n\n";

/* Commands ---------------------------------------------------------------------- */

/* A command of up to 24 arguments, NUL-terminated strings or (len given)
 * bytes. */
typedef struct command {
    const char *argv[24];
    size_t len[24];
    int argc;
} command;

static void arg_bytes(command *c, const char *s, size_t len)
{
    c->argv[c->argc] = s;
    c->len[c->argc++] = len;
}

static void arg_str(command *c, const char *s)
{
    arg_bytes(c, s, strlen(s));
}

/* One call's context, until its reply. */
typedef struct call {
    redis_store *rs;
    store_done done;
    void *arg;
    task *task; /* held */
    char id[MCP__TASK_ID_LEN + 1];
    char owner[OWNER_HEX + 1];
} call;

static call *call_new(redis_store *rs, store_done done, void *arg, const char *id, size_t len)
{
    call *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    rs->calls++;
    c->rs = rs;
    c->done = done;
    c->arg = arg;
    if (id && len <= MCP__TASK_ID_LEN) {
        memcpy(c->id, id, len);
        c->id[len] = '\0';
    }
    return c;
}

static void call_free(call *c)
{
    redis_store *rs = c->rs;
    if (c->task)
        task_release(c->task);
    free(c);
    if (--rs->calls == 0 && rs->closing)
        finish_close(rs);
}

static void finish(call *c, const store_result *r)
{
    if (c->done)
        c->done(c->arg, r);
    call_free(c);
}

static void finish_status(call *c, store_status status, mcp__task_status now, const char *why)
{
    store_result r = {.status = status, .task_status = now, .why = why};
    finish(c, &r);
}

static void send_command(call *c, mcp__redis_reply_fn fn, command *cmd)
{
    if (!c->rs->cmd) {
        finish_status(c, STORE_UNAVAILABLE, 0, "the store could not be opened (out of memory)");
        return;
    }
    int rc = mcp__redis_link_command(c->rs->cmd, fn, c, cmd->argc, cmd->argv, cmd->len);
    if (rc == MCP_ERR_CLOSED) {
        char why[300];
        snprintf(why, sizeof why, "Redis is not connected (%s)", mcp__redis_link_why(c->rs->cmd));
        finish_status(c, STORE_UNAVAILABLE, 0, why);
    } else if (rc != MCP_OK) {
        finish_status(c, STORE_UNAVAILABLE, 0, "out of memory");
    }
}

/* A script's reply {verdict, status}: the result it means. */
static void script_verdict(call *c, const redisReply *reply, const char *error)
{
    if (error) {
        finish_status(c, STORE_UNAVAILABLE, 0, error);
        return;
    }
    if (reply->type == REDIS_REPLY_ERROR || reply->type != REDIS_REPLY_ARRAY ||
        reply->elements != 2 || reply->element[0]->type != REDIS_REPLY_STRING) {
        char why[300];
        snprintf(why, sizeof why, "Redis answered what was not expected%s%.200s",
                 reply->type == REDIS_REPLY_ERROR ? ": " : "",
                 reply->type == REDIS_REPLY_ERROR ? reply->str : "");
        finish_status(c, STORE_UNAVAILABLE, 0, why);
        return;
    }
    const char *verdict = reply->element[0]->str;
    mcp__task_status now = MCP__TASK_WORKING;
    if (reply->element[1]->type == REDIS_REPLY_STRING)
        status_named(reply->element[1]->str, &now);
    if (!strcmp(verdict, "ok"))
        finish_status(c, STORE_OK, now, NULL);
    else if (!strcmp(verdict, "ended"))
        finish_status(c, STORE_ENDED, now, NULL);
    else if (!strcmp(verdict, "full"))
        finish_status(c, STORE_REFUSED, now,
                      "too many answers are waiting for the task's process to take them");
    else
        finish_status(c, STORE_NOT_FOUND, now, NULL);
}

static void replied_verdict(void *arg, const redisReply *reply, const char *error)
{
    script_verdict(arg, reply, error);
}

static void task_key(char out[64], const char *kind, const char *id)
{
    snprintf(out, 64, PREFIX "%s:%s", kind, id);
}

/* The operations ---------------------------------------------------------------- */

static void replied_created(void *arg, const redisReply *reply, const char *error)
{
    call *c = arg;
    redis_store *rs = c->rs;
    if (error && rs->nforget < MAX_FORGET &&
        (rs->forget || (rs->forget = malloc(MAX_FORGET * sizeof *rs->forget))))
        memcpy(rs->forget[rs->nforget++], c->id, sizeof c->id);
    if (error)
        finish_status(c, STORE_UNAVAILABLE, 0, error);
    else if (reply->type == REDIS_REPLY_INTEGER)
        finish_status(c, STORE_OK, MCP__TASK_WORKING, NULL);
    else
        script_verdict(c, reply, NULL); /* an error reply, said as such */
}

static void redis_create(task_backend *b, task *t, store_done done, void *arg)
{
    redis_store *rs = (redis_store *)b;
    call *c = call_new(rs, done, arg, t->id, strlen(t->id));
    if (!c) {
        store_result r = {.status = STORE_UNAVAILABLE, .why = "out of memory"};
        done(arg, &r);
        return;
    }
    char key[64], created[24], ttl[24], poll[24], owner[OWNER_HEX + 1];
    task_key(key, "task", t->id);
    snprintf(created, sizeof created, "%lld", (long long)t->created_ms);
    snprintf(ttl, sizeof ttl, "%llu", (unsigned long long)t->ttl_ms);
    snprintf(poll, sizeof poll, "%llu", (unsigned long long)t->store->poll_ms);
    owner_of(t->credential, owner);
    command cmd = {0};
    arg_str(&cmd, "EVAL");
    arg_str(&cmd, create_script);
    arg_str(&cmd, "3");
    arg_str(&cmd, key);
    arg_str(&cmd, rs->running_key);
    arg_str(&cmd, PREFIX "runners");
    arg_str(&cmd, t->id);
    arg_str(&cmd, mcp__task_status_name(t->status));
    arg_str(&cmd, created);
    arg_str(&cmd, ttl);
    arg_str(&cmd, poll);
    arg_str(&cmd, owner);
    arg_str(&cmd, rs->runner);
    send_command(c, replied_created, &cmd);
}

/* What a record read from Redis is. */
typedef enum { RECORD_OK, RECORD_NONE, RECORD_MALFORMED } record_kind;

/* v as a whole number in lo..hi (decimal digits after an optional '-',
 * nothing else): false when not. */
static bool whole_number(const redisReply *v, long long lo, long long hi, long long *out)
{
    const char *p = v->str;
    if (!v->len || !(*p == '-' || (*p >= '0' && *p <= '9')))
        return false;
    char *end;
    errno = 0;
    long long n = strtoll(p, &end, 10);
    if (errno || end != p + v->len || n < lo || n > hi)
        return false;
    *out = n;
    return true;
}

/* Whether text (len bytes) is one JSON value of type want. */
static bool json_of_type(const char *text, size_t len, mcp_json_type want, bool message)
{
    mcp_json_doc *d = NULL;
    bool ok = mcp_json_parse(text, len, NULL, NULL, &d, NULL) == MCP_OK &&
              mcp_json_typeof(mcp_json_doc_root(d)) == want &&
              (!message || mcp_json_string(mcp_json_object_get(mcp_json_doc_root(d), "message"),
                                           NULL));
    mcp_json_doc_free(d);
    return ok;
}

/* The latest time a record may name (9999-12-31T23:59:59.999Z) and the
 * largest ttl or poll (2^53 - 1, as the tasks feature caps them). */
#define TIME_LAST 253402300799999LL
#define SPAN_MOST ((1LL << 53) - 1)

/* A record from HGETALL's field/value pairs, for owner: RECORD_NONE when
 * there is none (or another's, or of no status the tasks have), and
 * RECORD_MALFORMED (why, n bytes) when it is not one this store writes
 * (someone else wrote into Redis): its fields must not reach an answer as
 * they are (a time past any year, a ttl below zero, text not UTF-8,
 * inputRequests or an outcome that is not the JSON it must be). The
 * strings are borrowed from reply. */
static record_kind read_record(const redisReply *reply, const char *id, const char *owner,
                               task_record *rec, char *why, size_t n)
{
    memset(rec, 0, sizeof *rec);
    rec->view.id = id;
    rec->view.modern = true;
    bool owned = false, has_status = false;
    unsigned seen = 0;
    const char *bad = NULL;
    for (size_t i = 0; i + 1 < reply->elements; i += 2) {
        const redisReply *f = reply->element[i], *v = reply->element[i + 1];
        if (f->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING || f->len != 1)
            continue;
        long long num = 0;
        switch (f->str[0]) {
        case 's': has_status = status_named(v->str, &rec->view.status); break;
        case 'm':
            rec->view.status_message = v->len ? v->str : NULL;
            if (strlen(v->str) != v->len || mcp_utf8_validate(v->str, v->len, NULL) != MCP_OK)
                bad = bad ? bad : "its message is not UTF-8 text";
            break;
        case 'c':
        case 'u':
            if (!whole_number(v, 0, TIME_LAST, &num))
                bad = bad ? bad : "a time is not milliseconds since 1970, before the year 10000";
            *(f->str[0] == 'c' ? &rec->view.created_ms : &rec->view.updated_ms) = num;
            seen |= f->str[0] == 'c' ? 1 : 2;
            break;
        case 't':
        case 'p':
            if (!whole_number(v, 0, SPAN_MOST, &num))
                bad = bad ? bad : "its ttl or poll interval is not milliseconds";
            *(f->str[0] == 't' ? &rec->view.ttl_ms : &rec->view.poll_ms) = (uint64_t)num;
            seen |= f->str[0] == 't' ? 4 : 8;
            break;
        case 'o': owned = !strcmp(v->str, owner); break;
        case 'i': rec->inputs = v->str; rec->inputs_len = v->len; break;
        case 'x': rec->outcome = v->len ? v->str : NULL; rec->outcome_len = v->len; break;
        case 'k':
            if (v->len && !whole_number(v, INT64_MIN + 1, INT64_MAX, &num))
                bad = bad ? bad : "its error code is not a whole number";
            rec->outcome_code = num;
            break;
        case 'e':
            if (v->len > 1 || (v->len && v->str[0] != '0' && v->str[0] != '1'))
                bad = bad ? bad : "its error flag is neither 0 nor 1";
            rec->outcome_is_error = v->str[0] == '1';
            break;
        default: break;
        }
    }
    if (!owned || !has_status)
        return RECORD_NONE;
    if (!bad && seen != 15)
        bad = "it lacks a time, its ttl or its poll interval";
    if (!bad && rec->view.status == MCP__TASK_INPUT_REQUIRED && rec->inputs_len &&
        !json_of_type(rec->inputs, rec->inputs_len, MCP_JSON_OBJECT, false))
        bad = "its inputRequests is not a JSON object";
    if (!bad && rec->outcome && rec->view.status == MCP__TASK_COMPLETED &&
        !json_of_type(rec->outcome, rec->outcome_len, MCP_JSON_OBJECT, false))
        bad = "its result is not a JSON object";
    if (!bad && rec->outcome && rec->view.status == MCP__TASK_FAILED && rec->outcome_is_error &&
        !json_of_type(rec->outcome, rec->outcome_len, MCP_JSON_OBJECT, true))
        bad = "its error is not a JSON object with a message";
    if (bad) {
        snprintf(why, n, "%s", bad);
        return RECORD_MALFORMED;
    }
    return RECORD_OK;
}

static void replied_record(void *arg, const redisReply *reply, const char *error)
{
    call *c = arg;
    if (error) {
        finish_status(c, STORE_UNAVAILABLE, 0, error);
        return;
    }
    if (reply->type != REDIS_REPLY_ARRAY) {
        script_verdict(c, reply, NULL);
        return;
    }
    task_record rec;
    char why[120];
    record_kind kind = read_record(reply, c->id, c->owner, &rec, why, sizeof why);
    if (kind != RECORD_OK) {
        finish_status(c, kind == RECORD_NONE ? STORE_NOT_FOUND : STORE_MALFORMED, 0, why);
        return;
    }
    store_result r = {.status = STORE_OK, .task_status = rec.view.status, .record = &rec};
    finish(c, &r);
}

/* A call about the task of id (len bytes, any) for credential, or NULL
 * with done told: an id no task can have is found nowhere. */
static call *call_about(redis_store *rs, const char *id, size_t len, const char *credential,
                        store_done done, void *arg)
{
    store_result r = {.status = STORE_NOT_FOUND};
    if (len != MCP__TASK_ID_LEN || memchr(id, '\0', len)) {
        done(arg, &r);
        return NULL;
    }
    call *c = call_new(rs, done, arg, id, len);
    if (!c) {
        r.status = STORE_UNAVAILABLE;
        r.why = "out of memory";
        done(arg, &r);
        return NULL;
    }
    owner_of(credential, c->owner);
    return c;
}

static void redis_get(task_backend *b, const char *id, size_t len, const char *credential,
                      store_done done, void *arg)
{
    redis_store *rs = (redis_store *)b;
    call *c = call_about(rs, id, len, credential, done, arg);
    if (!c)
        return;
    char key[64];
    task_key(key, "task", c->id);
    command cmd = {0};
    arg_str(&cmd, "HGETALL");
    arg_str(&cmd, key);
    send_command(c, replied_record, &cmd);
}

static void redis_changed(task_backend *b, task *t, bool announce, store_done done, void *arg)
{
    redis_store *rs = (redis_store *)b;
    call *c = call_new(rs, done, arg, t->id, strlen(t->id));
    mcp_buf inputs, event;
    mcp_buf_init(&inputs, 0, NULL);
    mcp_buf_init(&event, 0, NULL);
    int rc = c ? MCP_OK : MCP_ERR_NOMEM;
    if (rc == MCP_OK && t->status == MCP__TASK_INPUT_REQUIRED) {
        mcp__jw w;
        mcp__jw_begin(&w, &inputs);
        tasks_write_inputs(&w, t);
        rc = mcp__jw_finish(&w);
    }
    char owner[OWNER_HEX + 1];
    owner_of(t->credential, owner);
    if (rc == MCP_OK && announce) {
        /* The change as every process's listens get it: written once,
         * here, not read back by each. */
        task_record rec;
        tasks_record_of(t, &rec);
        char head[MCP__TASK_ID_LEN + OWNER_HEX + 3];
        int n = snprintf(head, sizeof head, "%s %s\n", t->id, owner);
        rc = mcp_buf_append(&event, head, (size_t)n);
        if (rc == MCP_OK)
            rc = tasks_detailed_object(&event, &rec);
    }
    if (rc != MCP_OK) {
        mcp_buf_free(&inputs);
        mcp_buf_free(&event);
        if (c)
            finish_status(c, STORE_UNAVAILABLE, 0, "out of memory");
        else if (done) {
            store_result r = {.status = STORE_UNAVAILABLE, .why = "out of memory"};
            done(arg, &r);
        }
        return;
    }
    task_hold(t);
    c->task = t;
    char key[64], updated[24], code[24], created[24], ttl[24], left[24], poll[24];
    task_key(key, "task", t->id);
    snprintf(updated, sizeof updated, "%lld", (long long)t->updated_ms);
    snprintf(code, sizeof code, "%lld", (long long)t->outcome_code);
    snprintf(created, sizeof created, "%lld", (long long)t->created_ms);
    snprintf(ttl, sizeof ttl, "%llu", (unsigned long long)t->ttl_ms);
    uint64_t now = mcp__now_ms();
    snprintf(left, sizeof left, "%llu",
             (unsigned long long)(t->expires > now ? t->expires - now : 0));
    snprintf(poll, sizeof poll, "%llu", (unsigned long long)t->store->poll_ms);
    command cmd = {0};
    arg_str(&cmd, "EVAL");
    arg_str(&cmd, change_script);
    arg_str(&cmd, "3");
    arg_str(&cmd, key);
    arg_str(&cmd, rs->running_key);
    arg_str(&cmd, PREFIX "runners");
    arg_str(&cmd, t->id);
    arg_str(&cmd, mcp__task_status_name(t->status));
    arg_str(&cmd, t->status_message ? t->status_message : "");
    arg_str(&cmd, updated);
    arg_bytes(&cmd, inputs.data ? inputs.data : "", inputs.len);
    arg_bytes(&cmd, t->outcome ? t->outcome : "", t->outcome ? t->outcome_len : 0);
    arg_str(&cmd, code);
    arg_str(&cmd, t->outcome_is_error ? "1" : "0");
    arg_bytes(&cmd, event.data ? event.data : "", event.len);
    arg_str(&cmd, PREFIX "events");
    arg_str(&cmd, created);
    arg_str(&cmd, ttl);
    arg_str(&cmd, left);
    arg_str(&cmd, poll);
    arg_str(&cmd, owner);
    arg_str(&cmd, rs->runner);
    send_command(c, replied_verdict, &cmd); /* the link copied the arguments */
    mcp_buf_free(&inputs);
    mcp_buf_free(&event);
}

static void redis_cancel(task_backend *b, const char *id, size_t len, const char *credential,
                         store_done done, void *arg)
{
    redis_store *rs = (redis_store *)b;
    call *c = call_about(rs, id, len, credential, done, arg);
    if (!c)
        return;
    char key[64], now[24];
    task_key(key, "task", c->id);
    snprintf(now, sizeof now, "%lld", (long long)mcp__wall_ms());
    command cmd = {0};
    arg_str(&cmd, "EVAL");
    arg_str(&cmd, cancel_script);
    arg_str(&cmd, "1");
    arg_str(&cmd, key);
    arg_str(&cmd, c->owner);
    arg_str(&cmd, "Cancelled by the client");
    arg_str(&cmd, now);
    arg_str(&cmd, c->id);
    send_command(c, replied_verdict, &cmd);
}

static void redis_update(task_backend *b, const char *id, size_t len, const char *credential,
                         const mcp_json *responses, store_done done, void *arg)
{
    redis_store *rs = (redis_store *)b;
    call *c = call_about(rs, id, len, credential, done, arg);
    if (!c)
        return;
    mcp_buf text;
    mcp_buf_init(&text, 0, NULL);
    mcp__jw w;
    mcp__jw_begin(&w, &text);
    mcp__jw_value(&w, responses);
    if (mcp__jw_finish(&w) != MCP_OK) {
        mcp_buf_free(&text);
        finish_status(c, STORE_UNAVAILABLE, 0, "out of memory");
        return;
    }
    char key[64], answers[64];
    task_key(key, "task", c->id);
    task_key(answers, "answers", c->id);
    command cmd = {0};
    arg_str(&cmd, "EVAL");
    arg_str(&cmd, update_script);
    arg_str(&cmd, "2");
    arg_str(&cmd, key);
    arg_str(&cmd, answers);
    arg_str(&cmd, c->owner);
    arg_bytes(&cmd, text.data, text.len);
    arg_str(&cmd, c->id);
    send_command(c, replied_verdict, &cmd);
    mcp_buf_free(&text);
}

/* What the store tells this process --------------------------------------------- */

/* The answers waiting for a task that runs here, and its status: handed
 * to it, and a record ended elsewhere followed. */
static void replied_taken(void *arg, const redisReply *reply, const char *error)
{
    call *c = arg;
    task *t = c->task;
    if (!error && reply->type == REDIS_REPLY_ARRAY && reply->elements >= 1 && !t->gone) {
        mcp__task_status now;
        const redisReply *s = reply->element[0];
        if (s->type == REDIS_REPLY_STRING && status_named(s->str, &now) && mcp__task_terminal(now))
            tasks_follow_record(t, now);
        else if (s->type == REDIS_REPLY_STRING && !s->len)
            tasks_record_again(t); /* lost (Redis came back empty): made again */
        else if (s->type == REDIS_REPLY_STRING && mcp__task_terminal(t->status))
            tasks_record_again(t); /* its end lost (Redis came back from an older file) */
        for (size_t i = 1; i < reply->elements && !t->gone; i++) {
            const redisReply *a = reply->element[i];
            mcp_json_doc *d = NULL;
            if (a->type == REDIS_REPLY_STRING &&
                mcp_json_parse(a->str, a->len, NULL, NULL, &d, NULL) == MCP_OK &&
                mcp_json_typeof(mcp_json_doc_root(d)) == MCP_JSON_OBJECT &&
                !mcp__task_terminal(t->status))
                tasks_answer_local(t, mcp_json_doc_root(d));
            mcp_json_doc_free(d);
        }
    } else if (error && !t->gone) {
        mcp__server_log(server_of(c->rs), MCP_LOG_WARNING,
                        "task %s: its answers could not be read from Redis: %s", t->id, error);
    }
    call_free(c);
}

static void take_answers(redis_store *rs, task *t)
{
    call *c = call_new(rs, NULL, NULL, t->id, strlen(t->id));
    if (!c)
        return;
    task_hold(t);
    c->task = t;
    char key[64], answers[64];
    task_key(key, "task", t->id);
    task_key(answers, "answers", t->id);
    command cmd = {0};
    arg_str(&cmd, "EVAL");
    arg_str(&cmd, take_script);
    arg_str(&cmd, "2");
    arg_str(&cmd, answers);
    arg_str(&cmd, key);
    if (!rs->cmd ||
        mcp__redis_link_command(rs->cmd, replied_taken, c, cmd.argc, cmd.argv, cmd.len) != MCP_OK)
        call_free(c);
}

/* An announced change without the task in it (a cancel, a reaping): the
 * record read, then told to the listens of its owner. */
static void replied_changed_record(void *arg, const redisReply *reply, const char *error)
{
    call *c = arg;
    task_record rec;
    char why[120];
    if (!error && reply->type == REDIS_REPLY_ARRAY &&
        read_record(reply, c->id, c->owner, &rec, why, sizeof why) == RECORD_OK)
        tasks_store_changed(c->rs->base.tasks, c->id, NULL, &rec, owner_matches, c->owner);
    call_free(c);
}

/* Whether a connection of owner here holds a listen (that may name the
 * task: its session decides). */
static bool anyone_of(redis_store *rs, const char *owner)
{
    for (conn *c = server_of(rs)->conns; c; c = c->next)
        if (!c->down && mcp__session_listening(c->driver.session) &&
            owner_matches(c->credential, owner))
            return true;
    return false;
}

static void event_heard(redis_store *rs, const char *data, size_t len)
{
    const char *nl = memchr(data, '\n', len);
    if (!nl || (nl - data != MCP__TASK_ID_LEN + 1 + OWNER_HEX && nl - data != MCP__TASK_ID_LEN + 2))
        return;
    char id[MCP__TASK_ID_LEN + 1], owner[OWNER_HEX + 1];
    memcpy(id, data, MCP__TASK_ID_LEN);
    id[MCP__TASK_ID_LEN] = '\0';
    size_t olen = (size_t)(nl - data) - MCP__TASK_ID_LEN - 1;
    memcpy(owner, data + MCP__TASK_ID_LEN + 1, olen);
    owner[olen] = '\0';
    if (!anyone_of(rs, owner))
        return; /* nobody here may hear of it */
    const char *json = nl + 1;
    size_t jlen = len - (size_t)(json - data);
    if (jlen) {
        mcp_json_doc *d = NULL;
        if (mcp_json_parse(json, jlen, NULL, NULL, &d, NULL) == MCP_OK)
            tasks_store_changed(rs->base.tasks, id, mcp_json_doc_root(d), NULL, owner_matches,
                                owner);
        mcp_json_doc_free(d);
        return;
    }
    call *c = call_new(rs, NULL, NULL, id, MCP__TASK_ID_LEN);
    if (!c)
        return;
    memcpy(c->owner, owner, olen + 1);
    char key[64];
    task_key(key, "task", id);
    command cmd = {0};
    arg_str(&cmd, "HGETALL");
    arg_str(&cmd, key);
    if (!rs->cmd || mcp__redis_link_command(rs->cmd, replied_changed_record, c, cmd.argc,
                                            cmd.argv, cmd.len) != MCP_OK)
        call_free(c);
}

/* A reply nothing waits for: only an error is worth a line. */
static void replied_ignored(void *arg, const redisReply *reply, const char *error)
{
    redis_store *rs = arg;
    if (error || reply->type == REDIS_REPLY_ERROR)
        mcp__server_log(server_of(rs), MCP_LOG_DEBUG, "task store: %s",
                        error ? error : reply->str);
}

/* A command of the store's own (no call waits for it): fn with rs. */
static void send_own(redis_store *rs, mcp__redis_reply_fn fn, const command *cmd)
{
    mcp__redis_link_command(rs->cmd, fn, rs, cmd->argc, cmd->argv, cmd->len);
}

/* "N<runner> <kind>\n<uri>": news of another process's. */
static void news_heard(redis_store *rs, const char *data, size_t len)
{
    if (len < 1 + MCP__TASK_ID_LEN + 3 || data[1 + MCP__TASK_ID_LEN] != ' ' ||
        !memcmp(data + 1, rs->runner, MCP__TASK_ID_LEN))
        return; /* malformed, or our own */
    const char *nl = memchr(data, '\n', len);
    if (!nl)
        return;
    unsigned kind = (unsigned)strtoul(data + 2 + MCP__TASK_ID_LEN, NULL, 10);
    size_t ulen = len - (size_t)(nl + 1 - data);
    char *uri = ulen ? malloc(ulen + 1) : NULL;
    if (ulen && !uri)
        return;
    if (uri) {
        memcpy(uri, nl + 1, ulen);
        uri[ulen] = '\0';
    }
    mcp__server_publish_heard(server_of(rs), kind, uri);
    free(uri);
}

static void redis_news(task_backend *b, unsigned kind, const char *uri)
{
    redis_store *rs = (redis_store *)b;
    if (!rs->cmd || !mcp__redis_link_up(rs->cmd))
        return; /* news is not kept: a listen hears what happens while it listens */
    mcp_buf text;
    mcp_buf_init(&text, 0, NULL);
    char head[MCP__TASK_ID_LEN + 32];
    int n = snprintf(head, sizeof head, "N%s %u\n", rs->runner, kind);
    if (mcp_buf_append(&text, head, (size_t)n) == MCP_OK &&
        (!uri || mcp_buf_append(&text, uri, strlen(uri)) == MCP_OK)) {
        command cmd = {0};
        arg_str(&cmd, "PUBLISH");
        arg_str(&cmd, PREFIX "events");
        arg_bytes(&cmd, text.data, text.len);
        send_own(rs, replied_ignored, &cmd);
    }
    mcp_buf_free(&text);
}

static void message_heard(void *arg, const char *channel, size_t channel_len, const char *data,
                          size_t len)
{
    redis_store *rs = arg;
    if (channel_len == strlen(PREFIX "events") && !memcmp(channel, PREFIX "events", channel_len)) {
        if (len && data[0] == 'N')
            news_heard(rs, data, len);
        else
            event_heard(rs, data, len);
        return;
    }
    if (len != MCP__TASK_ID_LEN + 1)
        return;
    char id[MCP__TASK_ID_LEN + 1];
    memcpy(id, data + 1, MCP__TASK_ID_LEN);
    id[MCP__TASK_ID_LEN] = '\0';
    task *t = task_find_modern(rs->base.tasks, NULL, true, id, MCP__TASK_ID_LEN);
    if (!t)
        return;
    if (data[0] == 'C')
        tasks_store_cancelled(rs->base.tasks, id);
    else if (data[0] == 'U')
        take_answers(rs, t);
}

/* Back after a time down: what this process's tasks missed, and their
 * records if Redis lost them (the ended ones' too: they hold results). */
static void resync(redis_store *rs)
{
    for (task *t = rs->base.tasks->oldest; t; t = t->next)
        if (t->modern && !t->gone)
            take_answers(rs, t);
}

static void link_state(void *arg, bool up, const char *why)
{
    redis_store *rs = arg;
    mcp__server_log(server_of(rs), up ? MCP_LOG_INFO : MCP_LOG_WARNING,
                    up ? "task store: Redis at %s:%d connected" : "task store: Redis at %s:%d: %s",
                    rs->address.host, rs->address.port, up ? "" : why);
}

static void sub_state(void *arg, bool up, const char *why)
{
    link_state(arg, up, why);
    if (up)
        resync(arg);
}

/* The lease ----------------------------------------------------------------------- */

static void replied_reaped(void *arg, const redisReply *reply, const char *error)
{
    redis_store *rs = arg;
    if (!error && reply->type == REDIS_REPLY_INTEGER && reply->integer > 0)
        mcp__server_log(server_of(rs), MCP_LOG_WARNING,
                        "task store: %lld task(s) of a server process that stopped failed",
                        (long long)reply->integer);
    else
        replied_ignored(arg, reply, error);
}

/* The lease set again for lease_ms; with_old: the lease it replaces
 * asked for too (SET ... GET, Redis 6.2 on). */
static void renew(redis_store *rs, mcp__redis_reply_fn fn, bool with_old)
{
    char px[24];
    snprintf(px, sizeof px, "%llu", (unsigned long long)rs->lease_ms);
    command set = {0};
    arg_str(&set, "SET");
    arg_str(&set, rs->lease_key);
    arg_str(&set, "1");
    arg_str(&set, "PX");
    arg_str(&set, px);
    if (with_old)
        arg_str(&set, "GET");
    send_own(rs, fn, &set);
}

/* A renewal's answer: the lease runs from about now. */
static void replied_lease(void *arg, const redisReply *reply, const char *error)
{
    redis_store *rs = arg;
    if (!error && reply->type != REDIS_REPLY_ERROR)
        rs->renewed_at = uv_now(&server_of(rs)->loop);
    replied_ignored(arg, reply, error);
}

static void lease_due(uv_timer_t *timer)
{
    redis_store *rs = timer->data;
    if (!rs->cmd || !mcp__redis_link_up(rs->cmd))
        return;
    renew(rs, replied_lease, false);
    command add = {0};
    arg_str(&add, "SADD");
    arg_str(&add, PREFIX "runners");
    arg_str(&add, rs->runner);
    send_own(rs, replied_ignored, &add);
    if (uv_now(&server_of(rs)->loop) < rs->reap_after)
        return;
    static const char gone_error[] = "{\"message\":\"" PROCESS_GONE "\"}";
    char now[24];
    snprintf(now, sizeof now, "%lld", (long long)mcp__wall_ms());
    command reap = {0};
    arg_str(&reap, "EVAL");
    arg_str(&reap, reap_script);
    arg_str(&reap, "0");
    arg_str(&reap, rs->runner);
    arg_str(&reap, now);
    arg_str(&reap, PROCESS_GONE);
    arg_str(&reap, gone_error);
    send_own(rs, replied_reaped, &reap);
}

/* The first renewal after coming up, with the lease it replaced: none
 * means this process was away longer than its lease, and so, maybe, was
 * everyone (each retries within RECONNECT_MAX_MS, then renews at once). */
static void replied_renewed(void *arg, const redisReply *reply, const char *error)
{
    redis_store *rs = arg;
    if (error) {
        replied_ignored(arg, reply, error);
        return; /* the link went down: known again when it comes up */
    }
    /* An error (a Redis before 6.2 knows no SET ... GET) says nothing of
     * the old lease: the grace, as for none. Nor does an old lease when no
     * renewal was answered for longer than a lease: a renewal sent on the
     * link that went down may have been run only once Redis came back (a
     * pause: it had waited in Redis's input), setting a lease that had
     * lapsed meanwhile, as everyone else's may have. */
    uint64_t now = uv_now(&server_of(rs)->loop);
    bool kept = reply->type == REDIS_REPLY_STRING && rs->renewed_at &&
                now - rs->renewed_at <= rs->lease_ms;
    rs->reap_after = kept ? now : now + rs->lease_ms + RECONNECT_MAX_MS + 2 * rs->timeout_ms;
    if (reply->type != REDIS_REPLY_ERROR)
        rs->renewed_at = now;
    if (reply->type == REDIS_REPLY_ERROR)
        replied_ignored(arg, reply, NULL);
}


static void cmd_state(void *arg, bool up, const char *why)
{
    redis_store *rs = arg;
    link_state(arg, up, why);
    rs->reap_after = UINT64_MAX;
    if (!up)
        return;
    renew(rs, replied_renewed, true); /* the lease before any task is made */
    for (size_t i = 0; i < rs->nforget; i++) {
        char key[64];
        task_key(key, "task", rs->forget[i]);
        command del = {0}, srem = {0};
        arg_str(&del, "DEL");
        arg_str(&del, key);
        arg_str(&srem, "SREM");
        arg_str(&srem, rs->running_key);
        arg_str(&srem, rs->forget[i]);
        send_own(rs, replied_ignored, &del);
        send_own(rs, replied_ignored, &srem);
    }
    rs->nforget = 0;
    /* What could not be written while Redis was away: each stale
     * record, as its task is now (it may have ended meanwhile). */
    for (task *t = rs->base.tasks->oldest; t; t = t->next)
        if (t->modern && t->record_stale && !t->gone)
            tasks_record_again(t);
    /* And what was missed: the subscriber's resync reads it through this
     * link, so one made while this link was still down was lost (the
     * subscriber came up first: answers waiting and records lost with a
     * Redis restarted empty were never read); read now too. */
    resync(rs);
}

/* Life ------------------------------------------------------------------------------ */

static int redis_open(task_backend *b)
{
    redis_store *rs = (redis_store *)b;
    rs->closing = rs->closed = false;
    rs->reap_after = UINT64_MAX;
    uv_loop_t *loop = &server_of(rs)->loop;
    mcp__redis_link_options o = {
        .address = rs->address,
        .timeout_ms = rs->timeout_ms,
        .backoff_max_ms = RECONNECT_MAX_MS,
        .state = cmd_state,
        .arg = rs,
    };
    uv_timer_init(loop, &rs->lease);
    rs->lease.data = rs;
    rs->lease_open = true;
    if (mcp__redis_link_new(loop, &o, &rs->cmd) != MCP_OK)
        return MCP_ERR_NOMEM;
    o.state = sub_state;
    o.message = message_heard;
    if (mcp__redis_link_new(loop, &o, &rs->sub) != MCP_OK ||
        mcp__redis_link_subscribe(rs->sub, rs->runner_channel) != MCP_OK ||
        mcp__redis_link_subscribe(rs->sub, PREFIX "events") != MCP_OK)
        return MCP_ERR_NOMEM;
    uint64_t every = rs->lease_ms / 3 ? rs->lease_ms / 3 : 1;
    uv_timer_start(&rs->lease, lease_due, every, every);
    return MCP_OK;
}

static void finish_close(redis_store *rs)
{
    if (rs->closed)
        return;
    rs->closed = true;
    mcp__redis_link *cmd = rs->cmd;
    rs->cmd = NULL; /* what its pending calls' ends try to send is not */
    if (cmd)
        mcp__redis_link_close(cmd, NULL, NULL);
    if (rs->lease_open) {
        uv_close((uv_handle_t *)&rs->lease, NULL);
        rs->lease_open = false;
    }
}

static void drain_due(uv_timer_t *timer)
{
    finish_close(timer->data);
}

/* The subscription ends now; the commands still waiting (the changes of a
 * stop: tasks failed) get the timeout to be answered, the loop running on
 * meanwhile (its close runs it until every handle is closed). */
static void redis_close(task_backend *b)
{
    redis_store *rs = (redis_store *)b;
    rs->closing = true;
    if (rs->sub)
        mcp__redis_link_close(rs->sub, NULL, NULL);
    rs->sub = NULL;
    if (rs->lease_open)
        uv_timer_stop(&rs->lease);
    if (rs->calls && rs->cmd && mcp__redis_link_up(rs->cmd) && rs->lease_open)
        uv_timer_start(&rs->lease, drain_due, rs->timeout_ms, 0);
    else
        finish_close(rs);
}

static void redis_free(task_backend *b)
{
    free(((redis_store *)b)->forget);
    free(b);
}

const task_store_ops mcp__redis_store_ops = {
    .name = "redis",
    .open = redis_open,
    .close = redis_close,
    .free = redis_free,
    .async = true,
    .create = redis_create,
    .get = redis_get,
    .changed = redis_changed,
    .cancel = redis_cancel,
    .update = redis_update,
    .news = redis_news,
};

task_backend *mcp__redis_store_new(task_store *tasks, const mcp_server_options *opts, char *why,
                                   size_t n)
{
    redis_store *rs = calloc(1, sizeof *rs);
    if (!rs) {
        snprintf(why, n, "out of memory");
        return NULL;
    }
    if (!mcp__redis_url_parse(opts->task_store, &rs->address, why, n)) {
        free(rs);
        return NULL;
    }
    if (!mcp__random_hex(rs->runner, MCP__TASK_ID_LEN / 2)) {
        snprintf(why, n, "no random runner id could be had");
        free(rs);
        return NULL;
    }
    rs->base.ops = &mcp__redis_store_ops;
    rs->base.tasks = tasks;
    /* The link's own cap on a deadline (a day): a longer timeout is that. */
    rs->timeout_ms = opts->task_store_timeout_ms ? opts->task_store_timeout_ms : 1000;
    if (rs->timeout_ms > TIME_MAX_MS)
        rs->timeout_ms = TIME_MAX_MS;
    /* A lease other processes can trust: renewed every third of it, each
     * renewal taking up to the timeout to land, it must outlast both and a
     * busy loop (a 1 ms lease ran out between renewals, and the other
     * processes failed its live tasks); and Redis takes a PX of at most
     * about 2^63 - now (a 2^64-1 ms lease was never set at all: the same). */
    rs->lease_ms = opts->task_lease_ms ? opts->task_lease_ms : 3000;
    if (rs->lease_ms < LEASE_MIN_MS)
        rs->lease_ms = LEASE_MIN_MS;
    if (rs->lease_ms < 2 * rs->timeout_ms)
        rs->lease_ms = 2 * rs->timeout_ms;
    if (rs->lease_ms > 2 * TIME_MAX_MS)
        rs->lease_ms = 2 * TIME_MAX_MS;
    snprintf(rs->runner_channel, sizeof rs->runner_channel, PREFIX "runner:%s", rs->runner);
    snprintf(rs->running_key, sizeof rs->running_key, PREFIX "running:%s", rs->runner);
    snprintf(rs->lease_key, sizeof rs->lease_key, PREFIX "lease:%s", rs->runner);
    return &rs->base;
}
