/* SPDX-License-Identifier: MIT */
#include "redis_server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <hiredis/hiredis.h>

#include "missing.h"

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

const char *redis_server_missing(void)
{
    return test_on_path("redis-server") ? NULL
                                        : "no redis-server on PATH (Debian package redis-server)";
}

int redis_server_free_port(void)
{
    for (int tries = 0; tries < 16; tries++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t n = sizeof a;
        int port = -1;
        if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
            getsockname(fd, (struct sockaddr *)&a, &n) == 0)
            port = ntohs(a.sin_port);
        close(fd);
        if (port > 0 && port != 6379)
            return port;
    }
    return -1;
}

static void print_log(const redis_server *s)
{
    char path[128];
    snprintf(path, sizeof path, "%s/redis.log", s->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    fprintf(stderr, "--- %s ---\n", path);
    char line[512];
    while (fgets(line, sizeof line, f))
        fputs(line, stderr);
    fclose(f);
}

static bool spawn(redis_server *s)
{
    char port[16], log[128];
    snprintf(port, sizeof port, "%d", s->port);
    snprintf(log, sizeof log, "%s/redis.log", s->dir);
    const char *argv[96];
    int k = 0;
    argv[k++] = "redis-server";
    argv[k++] = "--port";
    argv[k++] = port;
    argv[k++] = "--bind";
    argv[k++] = "127.0.0.1";
    argv[k++] = "--dir";
    argv[k++] = s->dir;
    argv[k++] = "--logfile";
    argv[k++] = log;
    argv[k++] = "--daemonize";
    argv[k++] = "no";
    argv[k++] = "--save";
    argv[k++] = "";
    argv[k++] = "--appendonly";
    argv[k++] = s->appendonly ? "yes" : "no";
    if (s->appendonly) {
        argv[k++] = "--appendfsync";
        argv[k++] = "no";
    }
    if (s->password[0]) {
        argv[k++] = "--requirepass";
        argv[k++] = s->password;
    }
    for (int i = 0; s->args && s->args[i]; i++) {
        if (k >= 95) {
            fprintf(stderr, "redis_server: too many arguments\n");
            return false;
        }
        argv[k++] = s->args[i];
    }
    argv[k] = NULL;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        perror("redis_server: fork");
        return false;
    }
    if (pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
#endif
        int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    (void)parent;
    s->pid = pid;
    s->paused = false;
    return true;
}

/* Whether it answers PING (after AUTH when it wants a password). */
static bool answers(const redis_server *s)
{
    struct timeval tv = {0, 300000};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
    bool ok = false;
    if (c && !c->err && redisSetTimeout(c, tv) == REDIS_OK) {
        redisReply *r = NULL;
        if (s->password[0]) {
            r = redisCommand(c, "AUTH %s", s->password);
            bool authed = r && r->type == REDIS_REPLY_STATUS;
            freeReplyObject(r);
            r = NULL;
            if (!authed)
                goto done;
        }
        r = redisCommand(c, "PING");
        ok = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "PONG");
        freeReplyObject(r);
    }
done:
    if (c)
        redisFree(c);
    return ok;
}

/* Wait until it answers: true, or false once it exited (exited set) or 10 s
 * passed. */
static bool wait_ready(redis_server *s, bool *exited)
{
    *exited = false;
    long long until = now_ms() + 10000;
    while (now_ms() < until) {
        int status;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            s->pid = 0;
            *exited = true;
            return false;
        }
        if (answers(s))
            return true;
        sleep_ms(20);
    }
    return false;
}

static void setup(redis_server *s, const redis_server_options *o)
{
    memset(s, 0, sizeof *s);
    if (o) {
        s->appendonly = o->appendonly;
        s->args = o->args;
        if (o->password)
            snprintf(s->password, sizeof s->password, "%s", o->password);
    }
}

static bool make_dir(redis_server *s)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/mcp-redis-XXXXXX");
    if (!mkdtemp(s->dir)) {
        perror("redis_server: mkdtemp");
        s->dir[0] = '\0';
        return false;
    }
    return true;
}

static void set_url(redis_server *s)
{
    if (s->password[0])
        snprintf(s->url, sizeof s->url, "redis://:%s@127.0.0.1:%d", s->password, s->port);
    else
        snprintf(s->url, sizeof s->url, "redis://127.0.0.1:%d", s->port);
}

bool redis_server_start(redis_server *s, const redis_server_options *o)
{
    setup(s, o);
    if (!make_dir(s))
        return false;
    /* The port was free when looked at; another process may take it before
     * redis-server binds it (then it exits): another port. */
    for (int tries = 0; tries < 5; tries++) {
        s->port = redis_server_free_port();
        if (s->port < 0) {
            fprintf(stderr, "redis_server: no free port\n");
            return false;
        }
        set_url(s);
        bool exited;
        if (!spawn(s))
            return false;
        if (wait_ready(s, &exited))
            return true;
        if (!exited) {
            fprintf(stderr, "redis_server: redis-server on port %d did not answer in 10 s\n",
                    s->port);
            print_log(s);
            redis_server_kill(s);
            return false;
        }
    }
    fprintf(stderr, "redis_server: redis-server exited at once, five times\n");
    print_log(s);
    return false;
}

bool redis_server_start_on(redis_server *s, const redis_server_options *o, int port)
{
    setup(s, o);
    if (!make_dir(s))
        return false;
    s->port = port;
    set_url(s);
    return redis_server_restart(s);
}

bool redis_server_restart(redis_server *s)
{
    if (s->pid)
        redis_server_kill(s);
    bool exited;
    if (!spawn(s))
        return false;
    if (wait_ready(s, &exited))
        return true;
    fprintf(stderr, "redis_server: redis-server on port %d %s\n", s->port,
            exited ? "exited at once" : "did not answer in 10 s");
    print_log(s);
    redis_server_kill(s);
    return false;
}

static void reap(redis_server *s, int ms)
{
    long long until = now_ms() + ms;
    while (now_ms() < until) {
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            s->pid = 0;
            return;
        }
        sleep_ms(10);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
}

void redis_server_stop(redis_server *s)
{
    if (!s->pid)
        return;
    kill(s->pid, SIGTERM);
    if (s->paused)
        kill(s->pid, SIGCONT);
    s->paused = false;
    reap(s, 10000);
}

void redis_server_kill(redis_server *s)
{
    if (!s->pid)
        return;
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
    s->paused = false;
}

void redis_server_pause(redis_server *s)
{
    if (s->pid && !s->paused && kill(s->pid, SIGSTOP) == 0)
        s->paused = true;
}

void redis_server_resume(redis_server *s)
{
    if (s->pid && s->paused && kill(s->pid, SIGCONT) == 0)
        s->paused = false;
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char child[512];
            if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) < (int)sizeof child)
                remove_tree(child);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

void redis_server_destroy(redis_server *s)
{
    redis_server_kill(s);
    if (s->dir[0])
        remove_tree(s->dir);
    s->dir[0] = '\0';
}

struct redisContext *redis_server_connect(const redis_server *s)
{
    struct timeval tv = {5, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
    if (!c || c->err) {
        fprintf(stderr, "redis_server: connect to %d: %s\n", s->port, c ? c->errstr : "no memory");
        if (c)
            redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    if (s->password[0]) {
        redisReply *r = redisCommand(c, "AUTH %s", s->password);
        bool ok = r && r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
        if (!ok) {
            fprintf(stderr, "redis_server: AUTH refused\n");
            redisFree(c);
            return NULL;
        }
    }
    return c;
}
