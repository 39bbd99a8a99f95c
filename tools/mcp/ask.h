/* SPDX-License-Identifier: MIT */
/*
 * What the files that answer the server's questions share (ask.c: the
 * handlers and their threads; ask_form.c, ask_url.c, ask_sampling.c: one
 * kind of question each): the terminal, reading it, and showing a server's
 * text on it.
 */
#ifndef MCP_CLI_ASK_H
#define MCP_CLI_ASK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* The terminal: one form (or message) at a time. */
extern pthread_mutex_t ask_terminal;

/* s[0..n) (NULL: "") made safe for the terminal (cli_sanitize), in b:
 * valid until b's next use. Any thread. */
const char *ask_safe(mcp_buf *b, const char *s, size_t n);
/* The string v (NULL or not a string: "") made safe, in b. */
const char *ask_safe_str(mcp_buf *b, const mcp_json *v);

/* A message from a question's thread: after the form that has the
 * terminal, if one has. Never on the loop thread, which must not wait for
 * a form (it carries Ctrl-C): there ask_tell writes at once. */
void ask_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ask_tell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

typedef enum { LINE_OK, LINE_EOF, LINE_WITHDRAWN, LINE_LONG } line_status;

/* Reading stdin for question q, polling its cancel token (token_fd) too. */
typedef struct ask_reader {
    mcp_question *q;
    int token_fd;
    char buf[4096];
    size_t len;
    bool skipping; /* in a line too long for buf: dropped up to its end */
} ask_reader;

/* The next line of stdin (without its newline) into line (NUL-terminated),
 * unless the question is withdrawn first or stdin ends. A line longer than
 * n - 1 bytes (or than the reader's buffer) is read to its end and
 * dropped, never cut: LINE_LONG, line empty. */
line_status ask_read_line(ask_reader *r, char *line, size_t n);

/* Answer q {"action": action} with content when given (copied): the
 * result of mcp_question_answer (why: the library's check of it), or of
 * the error answer when out of memory. */
int ask_answer_action(mcp_question *q, const char *action, const mcp_json *content, char *why,
                      size_t n);

/* Each kind of question, on its own thread (ask.c starts them). */
void ask_fill_form(mcp_question *q, cli_asker *a);   /* ask_form.c */
void ask_url_consent(mcp_question *q, cli_asker *a); /* ask_url.c */
void ask_sample(mcp_question *q, cli_asker *a);      /* ask_sampling.c */

/* Whether every property of a form's params is one mcp can ask for; when
 * not, the first that is not, made safe, in why. Any thread. */
bool ask_form_askable(const mcp_json *params, mcp_buf *why);

/* Loop thread: the server says the interaction of an accepted URL-mode
 * elicitation (id) is over (mcp_client_options.on_elicitation_complete;
 * ud: the asker). */
void ask_url_complete(void *ud, const char *id);

#endif
