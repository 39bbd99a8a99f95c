/* SPDX-License-Identifier: MIT */
/*
 * mcp's client commands answering the server's questions: a form
 * (ask_form.c), the consent to a page in URL mode (ask_url.c), a model's
 * answer (ask_sampling.c). Here: the handlers the library calls, the
 * threads they start, and what those share (the terminal).
 *
 * Each question is answered on a thread of its own (the loop, which carries
 * Ctrl-C, keeps running): the form polls the terminal and the question's
 * cancel token together, so a question the server withdraws (a cancelled
 * call, a timeout, the connection's end) stops being asked at once. Forms
 * take the terminal one at a time.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ask.h"
#include "text.h"

pthread_mutex_t ask_terminal = PTHREAD_MUTEX_INITIALIZER;

/* s made safe for the terminal (cli_sanitize: any thread), in b. */
const char *ask_safe(mcp_buf *b, const char *s, size_t n)
{
    b->len = 0;
    cli_sanitize(b, s ? s : "", s ? n : 0, false);
    if (mcp_buf_append(b, "", 1) != MCP_OK || !b->data)
        return "";
    return b->data;
}

const char *ask_safe_str(mcp_buf *b, const mcp_json *v)
{
    size_t n = 0;
    const char *s = mcp_json_string(v, &n);
    return ask_safe(b, s, n);
}

void ask_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&ask_terminal);
    vfprintf(stderr, fmt, ap);
    pthread_mutex_unlock(&ask_terminal);
    va_end(ap);
}

void ask_tell(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* Reading the terminal, or learning that the question was withdrawn --------------------- */

line_status ask_read_line(ask_reader *r, char *line, size_t n)
{
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl) {
            size_t k = (size_t)(nl - r->buf);
            /* What does not fit is not taken cut (a pasted key, a token):
             * the caller says so and asks again. */
            bool fits = !r->skipping && k < n;
            memcpy(line, r->buf, fits ? k : 0);
            line[fits ? k : 0] = '\0';
            memmove(r->buf, nl + 1, r->len - k - 1);
            r->len -= k + 1;
            r->skipping = false;
            return fits ? LINE_OK : LINE_LONG;
        }
        if (r->len == sizeof r->buf) { /* no end in sight: dropped up to it */
            r->skipping = true;
            r->len = 0;
        }
        struct pollfd p[2] = {{STDIN_FILENO, POLLIN, 0}, {r->token_fd, POLLIN, 0}};
        int np = r->token_fd >= 0 ? 2 : 1;
        if (mcp_cancel_token_is_cancelled(mcp_question_token(r->q)))
            return LINE_WITHDRAWN;
        int got = poll(p, (nfds_t)np, r->token_fd >= 0 ? -1 : 200);
        if (got < 0 && errno != EINTR)
            return LINE_EOF;
        if (np == 2 && (p[1].revents & POLLIN))
            return LINE_WITHDRAWN;
        if (got <= 0 || !(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t k = read(STDIN_FILENO, r->buf + r->len, sizeof r->buf - r->len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (r->len || r->skipping) { /* a last line without newline */
                r->buf[r->len] = '\n';
                r->len++;
                continue;
            }
            return LINE_EOF;
        }
        r->len += (size_t)k;
    }
}

int ask_answer_action(mcp_question *q, const char *action, const mcp_json *content,
                         char *why, size_t n)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *r = d ? mcp_json_new_object(d) : NULL;
    if (r) {
        mcp_json_object_set(d, r, "action", mcp_json_new_string(d, action));
        if (content)
            mcp_json_object_set(d, r, "content", mcp_json_copy(d, content));
    }
    int rc = r && mcp_json_doc_error(d) == MCP_OK ? mcp_question_answer(q, r, why, n)
                                                  : mcp_question_answer_error(q, -32603, NULL);
    mcp_json_doc_free(d);
    return rc;
}

/* Handlers (loop thread) ------------------------------------------------------------------- */

/* A question's thread. Joined, never detached: a detached thread could
 * still be on its way out when mcp exits (its counter said done), and
 * valgrind saw its stack lost. */
typedef struct cli_job {
    struct cli_job *next; /* the asker's */
    pthread_t thread;
    atomic_bool done;
    mcp_question *q;
    cli_asker *a;
    void (*run)(mcp_question *q, cli_asker *a);
} job;

/* A question waiting for a thread (cli_asker.waiting). */
typedef struct cli_waiting {
    struct cli_waiting *next;
    mcp_question *q;
    void (*run)(mcp_question *q, cli_asker *a);
} waiting;

/* The most questions answered at once: each is a thread, a sampling
 * command a process (and maybe a paid model's answer). More wait their
 * turn, answered by the threads as they finish, rather than hundreds of
 * threads and commands at once (a withdrawn one ends at once when its
 * turn comes). */
#define MAX_QUESTION_THREADS 16

/* A question's thread: its question, then the waiting ones, in order. */
static void *job_thread(void *arg)
{
    job *j = arg;
    cli_asker *a = j->a;
    mcp_question *q = j->q;
    void (*run)(mcp_question *, cli_asker *) = j->run;
    for (;;) {
        run(q, a);
        pthread_mutex_lock(&a->mu);
        waiting *w = a->waiting;
        if (w) {
            a->waiting = w->next;
        } else {
            a->threads--;
            atomic_store(&j->done, true); /* a->mu is not taken again */
        }
        pthread_mutex_unlock(&a->mu);
        atomic_fetch_sub(&a->open, 1);
        if (!w)
            return NULL;
        q = w->q;
        run = w->run;
        free(w);
    }
}

/* Join the jobs of a that are done (their threads take a->mu no more).
 * Under a->mu. */
static void join_done_jobs(cli_asker *a)
{
    for (job **p = &a->jobs; *p;) {
        job *j = *p;
        if (!atomic_load(&j->done)) {
            p = &j->next;
            continue;
        }
        pthread_join(j->thread, NULL);
        *p = j->next;
        free(j);
    }
}

static void start_job(mcp_question *q, cli_asker *a, void (*run)(mcp_question *, cli_asker *))
{
    atomic_fetch_add(&a->open, 1);
    if (a->before_asking)
        a->before_asking(a->user_data);
    pthread_mutex_lock(&a->mu);
    join_done_jobs(a); /* the ended ones: a long call asks many */
    bool started = false;
    if (a->threads >= MAX_QUESTION_THREADS) {
        waiting *w = calloc(1, sizeof *w), **end = &a->waiting;
        if (w) {
            w->q = q;
            w->run = run;
            while (*end)
                end = &(*end)->next;
            *end = w;
            started = true;
            if (!a->said_waiting)
                ask_tell("mcp: %s asks more than %d questions at once: the others wait "
                         "their turn\n", a->server, MAX_QUESTION_THREADS);
            a->said_waiting = true;
        }
    } else {
        job *j = calloc(1, sizeof *j);
        if (j) {
            j->q = q;
            j->a = a;
            j->run = run;
            atomic_init(&j->done, false);
            started = pthread_create(&j->thread, NULL, job_thread, j) == 0;
            if (started) {
                j->next = a->jobs;
                a->jobs = j;
                a->threads++;
            } else {
                free(j);
            }
        }
    }
    pthread_mutex_unlock(&a->mu);
    if (started)
        return;
    atomic_fetch_sub(&a->open, 1);
    mcp_question_answer_error(q, -32603, "Internal error: out of memory");
}

static void on_elicitation(void *ud, mcp_question *q)
{
    cli_asker *a = ud;
    mcp_buf b, k;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_init(&k, 0, NULL);
    const char *message = ask_safe_str(&b, mcp_json_object_get(mcp_question_params(q), "message"));
    if (mcp_question_url_mode(q) && !a->interactive) {
        b.len = 0;
        cli_describe_url(&b, mcp_question_params(q), "  ");
        ask_tell("mcp: %s asks (%s) to open a web page:\n%.*s"
            "mcp: declined: nobody can answer, stdin or stderr is not a terminal\n",
            a->server, a->tool, (int)b.len, b.data ? b.data : "");
        mcp_question_decline(q);
    } else if (mcp_question_url_mode(q)) {
        start_job(q, a, ask_url_consent);
    } else if (!a->interactive) {
        ask_tell("mcp: %s asks (%s): %s\n"
            "mcp: declined: nobody can answer, stdin or stderr is not a terminal\n",
            a->server, a->tool, message);
        mcp_question_decline(q);
    } else if (!ask_form_askable(mcp_question_params(q), &k)) {
        ask_tell("mcp: %s asks (%s): %s\n"
            "mcp: declined: the form's property \"%s\" is not one mcp can ask for\n",
            a->server, a->tool, message, k.data ? k.data : "");
        mcp_question_decline(q);
    } else {
        start_job(q, a, ask_fill_form);
    }
    mcp_buf_free(&b);
    mcp_buf_free(&k);
}

static void on_sampling(void *ud, mcp_question *q)
{
    cli_asker *a = ud;
    if (!a->sampling_command) {
        ask_tell("mcp: %s asks (%s) for a model's answer (sampling)\n"
            "mcp: declined: no model here; --sampling-command CMD names a command that answers\n",
            a->server, a->tool);
        mcp_question_decline(q);
        return;
    }
    start_job(q, a, ask_sample);
}

void cli_asker_setup(cli_asker *a, mcp_client_options *o)
{
    atomic_init(&a->open, 0);
    a->jobs = NULL;
    a->interactive = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
    if (!a->server)
        a->server = "the server";
    o->on_elicitation = on_elicitation;
    o->elicitation_user_data = a;
    o->on_sampling = on_sampling;
    o->sampling_user_data = a;
    o->elicitation_url = true;
    /* A 2025-11-25 server may run them as tasks: the same questions. */
    o->question_tasks = true;
    o->on_elicitation_complete = ask_url_complete;
    o->elicitation_complete_user_data = a;
    pthread_mutex_init(&a->mu, NULL);
    a->accepted_count = 0;
    a->waiting = NULL;
    a->threads = 0;
    a->said_waiting = false;
}

void cli_asker_free(cli_asker *a)
{
    pthread_mutex_lock(&a->mu);
    job *list = a->jobs;
    a->jobs = NULL;
    pthread_mutex_unlock(&a->mu);
    while (list) { /* open is 0: each is on its way out, without a->mu */
        job *j = list;
        list = j->next;
        pthread_join(j->thread, NULL);
        free(j);
    }
    while (a->accepted_count) {
        a->accepted_count--;
        free(a->accepted[a->accepted_count].id);
        free(a->accepted[a->accepted_count].host);
    }
    pthread_mutex_destroy(&a->mu);
    free(a->server_name);
    a->server_name = NULL;
}
