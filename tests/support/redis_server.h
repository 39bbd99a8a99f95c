/* SPDX-License-Identifier: MIT */
/*
 * A real redis-server for a test: on a free loopback port (never 6379,
 * where a system Redis may run), in a temporary directory of its own,
 * stopped, killed, paused and started again on the same port and directory
 * (so that its append-only file survives) at will. It dies with the test
 * process (PR_SET_PDEATHSIG), paused or not.
 *
 *     const char *missing = redis_server_missing();
 *     if (missing)
 *         return test_missing(missing);   (in main: a failure, see missing.h)
 *     redis_server s;
 *     assert_true(redis_server_start(&s, NULL));
 *     ... s.port, s.url ...
 *     redis_server_destroy(&s);
 */
#ifndef MCP_TEST_REDIS_SERVER_H
#define MCP_TEST_REDIS_SERVER_H

#include <stdbool.h>
#include <sys/types.h>

struct redisContext;

typedef struct redis_server_options {
    /* --appendonly yes, with --appendfsync no: what Redis answered
     * survives a kill -9 (Redis writes the file before it replies; only
     * the machine's crash would need the fsync). "always" made every write
     * wait for the disk, which on a busy disk can outlast the store's
     * timeouts and leases the tests give. Otherwise nothing is saved
     * (--save ""). */
    bool appendonly;
    const char *password;    /* --requirepass; NULL: none */
    const char *const *args; /* more arguments, NULL-terminated (later ones win); NULL: none */
} redis_server_options;

typedef struct redis_server {
    int port;
    pid_t pid;         /* 0: not running */
    bool paused;
    char dir[64];      /* its own: --dir, its log (redis.log), its AOF */
    char url[320];     /* redis://[:password@]127.0.0.1:PORT */
    char password[128];
    bool appendonly;
    const char *const *args; /* borrowed from the options */
} redis_server;

/* NULL when redis-server is on PATH; else what is missing, for
 * test_missing (a test must fail, not pass, without it). */
const char *redis_server_missing(void);

/* A free loopback port (bound and released; never 6379), or -1. */
int redis_server_free_port(void);

/* Start one (o NULL: the defaults) on a free port in a new directory and
 * wait until it answers PING (10 s at most): true, or false after printing
 * why (its log included). */
bool redis_server_start(redis_server *s, const redis_server_options *o);

/* The same on port (one a test chose, e.g. where a client already tries). */
bool redis_server_start_on(redis_server *s, const redis_server_options *o, int port);

/* Start it again after a stop or kill: same port, directory and options. */
bool redis_server_restart(redis_server *s);

/* SIGTERM (a paused one is resumed so that it can), and wait: it saves
 * what it must and exits. */
void redis_server_stop(redis_server *s);

/* SIGKILL, and wait. */
void redis_server_kill(redis_server *s);

/* SIGSTOP / SIGCONT: its kernel still accepts connections, it answers
 * nothing until resumed. */
void redis_server_pause(redis_server *s);
void redis_server_resume(redis_server *s);

/* Kill it if running and remove its directory. */
void redis_server_destroy(redis_server *s);

/* A blocking hiredis connection to it, authenticated (redisFree it), or
 * NULL after printing why. For checking what a test did. */
struct redisContext *redis_server_connect(const redis_server *s);

#endif
