/* SPDX-License-Identifier: MIT */
/*
 * A connection to Redis on a libuv loop (hiredis's async API, polled by
 * event hooks of our own rather than its libuv adapter: see redis_link.c),
 * with what hiredis 0.14 lacks: a deadline on every command and on the
 * connect, and a reconnect with backoff. A command past its deadline
 * (Redis slow, stopped, the network gone) takes the connection down with
 * it: every command pending then is answered with an error, at once, and
 * the link reconnects (backoff from backoff_min_ms, doubling, to
 * backoff_max_ms, reset by a connection that comes up).
 *
 * A link is of one of two kinds, as its first accepted call made it: a
 * command link (mcp__redis_link_command) or a subscriber link
 * (mcp__redis_link_subscribe), whose channels are subscribed again each
 * time it comes back up (what was published while it was down is lost:
 * its user re-reads what it must, on `up`). A link is `up` once Redis
 * answered: AUTH, SELECT and a PING (a stopped Redis still accepts
 * connections: its kernel does), and for a subscriber every SUBSCRIBE
 * confirmed. An idle subscriber subscribes a private channel again every
 * timeout_ms as its heartbeat, under the same deadline, so that a Redis
 * that stopped answering takes it down too.
 *
 * Threads: the loop thread, all of it; nothing here is thread-safe.
 */
#ifndef MCP_SERVER_REDIS_LINK_H
#define MCP_SERVER_REDIS_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

struct redisReply;

/* Where a redis:// URL points: redis://[[user]:password@]host[:port][/db].
 * host is a name or an IPv4 address, or an IPv6 one in brackets; port
 * defaults to 6379, db to 0. */
typedef struct mcp__redis_address {
    char host[256];
    int port;
    int db;
    char password[256]; /* empty: none (AUTH is not sent) */
    char user[128];     /* empty: none (AUTH password alone) */
} mcp__redis_address;

/* Parse url into *out: true, or false with why (n bytes, NUL-terminated)
 * saying what is wrong with it (not redis://, an empty host, a port not in
 * 1..65535, a db not a whole number in 0..(2^31-1), a part too long). */
bool mcp__redis_url_parse(const char *url, mcp__redis_address *out, char *why, size_t n);

typedef struct mcp__redis_link mcp__redis_link;

/* A command's answer: reply (hiredis's, borrowed for the call) or, when
 * there is none, error (borrowed for the call: "timed out after N ms",
 * "connection lost: ...", "closed"). Exactly one of them is non-NULL. A
 * Redis error reply (REDIS_REPLY_ERROR) is a reply. */
typedef void (*mcp__redis_reply_fn)(void *arg, const struct redisReply *reply, const char *error);

typedef struct mcp__redis_link_options {
    mcp__redis_address address;
    uint64_t timeout_ms;     /* each command's and the connect's; 0: 1000 */
    uint64_t backoff_min_ms; /* 0: 50 */
    uint64_t backoff_max_ms; /* 0: 2000 */
    /* The link came up (up: connected, AUTH and SELECT done, the channels
     * subscribed again; why "") or went down (why: what happened, borrowed
     * for the call), which includes each connect attempt that failed (so
     * at most once per backoff while Redis cannot be reached). Never
     * called inside a call of this API but close (where it is not called
     * at all). Optional. */
    void (*state)(void *arg, bool up, const char *why);
    /* Subscriber link: a message published on a channel it subscribed
     * (both borrowed for the call; not NUL-terminated), while it is up
     * (one that arrives between a reconnect and `up` is dropped: it is
     * covered by what the user re-reads on `up`). */
    void (*message)(void *arg, const char *channel, size_t channel_len, const char *data,
                    size_t len);
    void *arg;
} mcp__redis_link_options;

/* A link on loop (opts copied), connecting at once (from the loop's next
 * turn): MCP_OK and *out, or MCP_ERR_NOMEM, MCP_ERR_INVALID_ARG (a NULL, an
 * empty host, a port not in 1..65535, a negative db). A connect that fails is retried with backoff,
 * as a lost connection is. A host name is resolved on libuv's thread pool
 * (hiredis would block the loop), within the connect's deadline. */
int mcp__redis_link_new(uv_loop_t *loop, const mcp__redis_link_options *opts,
                        mcp__redis_link **out);

/* Whether it is up (commands are sent, not refused). */
bool mcp__redis_link_up(const mcp__redis_link *l);

/* Why it is down (borrowed until the next call on l), or "" when up. */
const char *mcp__redis_link_why(const mcp__redis_link *l);

/* Send a command of argc arguments (each len[i] bytes, copied; argv[i]
 * may be NULL when len[i] is 0). MCP_OK: fn is called exactly once, later
 * (never inside this call), with the reply or an error. MCP_ERR_CLOSED:
 * the link is down (or closing); fn is not called. MCP_ERR_NOMEM,
 * MCP_ERR_LIMIT (more than 512 MiB or 2^20 arguments), MCP_ERR_INVALID_ARG
 * (a subscriber link, argc 0, fn NULL, or a command hiredis 0.14 would pair
 * replies wrongly for or that changes the connection under the link:
 * [P|S]SUBSCRIBE, [P|S]UNSUBSCRIBE, [P]MONITOR, SELECT, AUTH, HELLO,
 * RESET, QUIT, CLIENT REPLY, a name with CR, LF or NUL). A blocking
 * command (BLPOP...) past timeout_ms takes the connection down like any
 * other. fn may send more commands, and may close the link. */
int mcp__redis_link_command(mcp__redis_link *l, mcp__redis_reply_fn fn, void *arg, int argc,
                            const char *const *argv, const size_t *len);

/* Subscriber link: subscribe channel (copied), now if up and again each
 * time it comes up (a channel already subscribed: MCP_OK, nothing more).
 * MCP_OK, MCP_ERR_NOMEM, MCP_ERR_LIMIT (4096 channels already),
 * MCP_ERR_CLOSED (closing), MCP_ERR_INVALID_ARG (a command link that has
 * sent commands, a channel empty or longer than 1024 bytes). Subscribed
 * while up, the channel's confirmation has a command's deadline. */
int mcp__redis_link_subscribe(mcp__redis_link *l, const char *channel);

/* Close l: the commands pending are answered "closed" now, no state or
 * message callback comes after this returns; its handles close on the
 * loop's next turns and closed(arg) (optional) is called once they have
 * (and a name being resolved is done), from the loop; l is freed then. A
 * second close does nothing. Callable from inside fn, state and message. */
void mcp__redis_link_close(mcp__redis_link *l, void (*closed)(void *arg), void *arg);

#endif
