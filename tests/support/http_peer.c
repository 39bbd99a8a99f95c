/* SPDX-License-Identifier: MIT */
#include "http_peer.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *read_log(http_peer *p)
{
    FILE *f = fopen(p->log, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap + 1);
    size_t got;
    while (s && (got = fread(s + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(s, cap * 2 + 1);
            if (!bigger)
                break;
            s = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (s)
        s[n] = '\0';
    return s;
}

bool http_peer_start(http_peer *p, const char *const *argv)
{
    memset(p, 0, sizeof *p);
    snprintf(p->log, sizeof p->log, "/tmp/mcp-http-peer-%d-%ld.log", (int)getpid(), (long)random());
    int out[2];
    if (pipe(out) != 0)
        return false;
    p->pid = fork();
    if (p->pid == 0) {
        int fd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(out[1], 1);
        dup2(fd, 2);
        close(out[0]);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    FILE *f = fdopen(out[0], "r");
    char line[128] = "";
    bool ok = f && fgets(line, sizeof line, f) && sscanf(line, "listening %d", &p->port) == 1;
    if (f)
        fclose(f);
    if (!ok) {
        fprintf(stderr, "the peer did not start (%s)\n", argv[0]);
        http_peer_stop(p);
        return false;
    }
    snprintf(p->url, sizeof p->url, "http://127.0.0.1:%d/mcp", p->port);
    return true;
}

void http_peer_stop(http_peer *p)
{
    if (p->pid > 0) {
        kill(p->pid, SIGTERM);
        waitpid(p->pid, NULL, 0);
        p->pid = 0;
    }
    unlink(p->log);
}

int http_peer_count(http_peer *p, const char *needle)
{
    char *s = read_log(p);
    int n = 0;
    for (const char *at = s; at && (at = strstr(at, needle)); at += strlen(needle))
        n++;
    free(s);
    return n;
}

bool http_peer_says(http_peer *p, mcp_client *c, const char *needle, int timeout_ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (http_peer_count(p, needle) > 0)
            return true;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
            break;
        if (c)
            mcp_client_run_once(c, false);
        usleep(2000);
    }
    char *s = read_log(p);
    fprintf(stderr, "the peer never said '%s'; its log:\n%s\n", needle, s ? s : "(none)");
    free(s);
    return false;
}

void http_peer_idle(mcp_client *c, int ms)
{
    for (int i = 0; i < ms / 2; i++) {
        if (c)
            mcp_client_run_once(c, false);
        usleep(2000);
    }
}
