/* SPDX-License-Identifier: MIT */
/*
 * mcp call answering the server's questions.
 *
 * Elicitation (a form): on a terminal (stdin and stderr both), the user
 * fills it in, one property at a time, each checked against its own schema
 * as it is typed (the rule that fails is shown and the property asked
 * again), then reviews it and accepts, edits, declines or cancels; the
 * library checks the whole against requestedSchema before it is sent.
 * Elsewhere (a script, a pipe) nobody can answer: declined, and said so on
 * stderr.
 *
 * Elicitation in URL mode (a page to open, for what must not pass through
 * mcp: a password, a payment, a third party's sign-in): mcp never opens or
 * fetches the URL (client/elicitation.mdx, Safe URL Handling). It shows the
 * message, the whole URL and its host apart (the part that says whose page
 * it is, after any user@), with a warning for what makes one host look
 * like another, and asks the user, who opens it in a browser, whether to
 * accept; anything but yes declines. Elsewhere: declined, and said so.
 * When the server says an accepted one is complete, stderr says so.
 *
 * Sampling (a model's answer): declined, and said so, unless the user gave
 * --sampling-command CMD: then `sh -c CMD` gets the request on its stdin,
 * one line of JSON {"method":"sampling/createMessage","params":{...}}, and
 * its stdout is the answer: a CreateMessageResult object, or any other text
 * (the model's reply, as a text message). A failing command (non-zero exit)
 * answers an error. It runs in a process group of its own, killed (TERM,
 * then KILL) when the question is withdrawn.
 *
 * Each question is answered on a thread of its own (the loop, which carries
 * Ctrl-C, keeps running): the form polls the terminal and the question's
 * cancel token together, so a question the server withdraws (a cancelled
 * call, a timeout, the connection's end) stops being asked at once. Forms
 * take the terminal one at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

extern char **environ;

/* The terminal: one form (or message) at a time. */
static pthread_mutex_t terminal = PTHREAD_MUTEX_INITIALIZER;

/* s made safe for the terminal (cli_sanitize: any thread), in b. */
static const char *safe(mcp_buf *b, const char *s, size_t n)
{
    b->len = 0;
    cli_sanitize(b, s ? s : "", s ? n : 0, false);
    if (mcp_buf_append(b, "", 1) != MCP_OK || !b->data)
        return "";
    return b->data;
}

static const char *safe_str(mcp_buf *b, const mcp_json *v)
{
    size_t n = 0;
    const char *s = mcp_json_string(v, &n);
    return safe(b, s, n);
}

/* A message from a question's thread: after the form that has the
 * terminal, if one has. Never on the loop thread, which must not wait for
 * a form (it carries Ctrl-C): there tell() writes at once. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&terminal);
    vfprintf(stderr, fmt, ap);
    pthread_mutex_unlock(&terminal);
    va_end(ap);
}

static void tell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tell(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* Reading the terminal, or learning that the question was withdrawn --------------------- */

typedef enum { LINE_OK, LINE_EOF, LINE_WITHDRAWN } line_status;

typedef struct reader {
    mcp_question *q;
    int token_fd;
    char buf[4096];
    size_t len;
} reader;

/* The next line of stdin (without its newline) into line (NUL-terminated,
 * cut to n - 1), unless the question is withdrawn first or stdin ends. */
static line_status read_line(reader *r, char *line, size_t n)
{
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl || r->len == sizeof r->buf) {
            size_t k = nl ? (size_t)(nl - r->buf) : r->len;
            size_t keep = k < n - 1 ? k : n - 1;
            memcpy(line, r->buf, keep);
            line[keep] = '\0';
            size_t used = nl ? k + 1 : k;
            memmove(r->buf, r->buf + used, r->len - used);
            r->len -= used;
            return LINE_OK;
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
            if (r->len) { /* a last line without newline */
                r->buf[r->len] = '\n';
                r->len++;
                continue;
            }
            return LINE_EOF;
        }
        r->len += (size_t)k;
    }
}

/* The form ----------------------------------------------------------------------------- */

/* Whether mcp can ask for the property: a string (maybe an enum), a number,
 * an integer, a boolean, or an array of enum strings (a multi-select). */
static bool askable(const mcp_json *p)
{
    const char *type = mcp_json_string(mcp_json_object_get(p, "type"), NULL);
    if (!type)
        return false;
    if (!strcmp(type, "string") || !strcmp(type, "number") || !strcmp(type, "integer") ||
        !strcmp(type, "boolean"))
        return true;
    const mcp_json *items = mcp_json_object_get(p, "items");
    return !strcmp(type, "array") &&
           (mcp_json_object_get(items, "enum") || mcp_json_object_get(items, "anyOf"));
}

/* The choices of an enum property, for the prompt: "a, b, c" or
 * "#f00 (Red), ..." for titled ones. */
static void choices(mcp_buf *out, const mcp_json *p)
{
    const mcp_json *items = mcp_json_object_get(p, "items");
    const mcp_json *list = mcp_json_object_get(p, "enum");
    const mcp_json *titled = mcp_json_object_get(p, "oneOf");
    if (!list && !titled) {
        list = mcp_json_object_get(items, "enum");
        titled = mcp_json_object_get(items, "anyOf");
    }
    mcp_buf tmp;
    mcp_buf_init(&tmp, 0, NULL);
    size_t n = list ? mcp_json_array_size(list) : mcp_json_array_size(titled);
    for (size_t i = 0; i < n; i++) {
        const mcp_json *o = list ? mcp_json_array_at(list, i)
                                 : mcp_json_object_get(mcp_json_array_at(titled, i), "const");
        const mcp_json *t = list ? NULL : mcp_json_object_get(mcp_json_array_at(titled, i), "title");
        if (i)
            mcp_buf_append(out, MCP_LITERAL(", "));
        const char *s = safe_str(&tmp, o);
        mcp_buf_append(out, s, strlen(s));
        if (t) {
            s = safe_str(&tmp, t);
            mcp_buf_append(out, MCP_LITERAL(" ("));
            mcp_buf_append(out, s, strlen(s));
            mcp_buf_append(out, MCP_LITERAL(")"));
        }
    }
    mcp_buf_free(&tmp);
}

/* What the user typed as a value of p's type, into d; NULL when it cannot
 * be one (why says so). */
static mcp_json *typed(mcp_json_doc *d, const mcp_json *p, const char *text, const char **why)
{
    const char *type = mcp_json_string(mcp_json_object_get(p, "type"), NULL);
    if (!strcmp(type, "string"))
        return mcp_json_new_string(d, text);
    if (!strcmp(type, "boolean")) {
        if (!strcmp(text, "y") || !strcmp(text, "yes") || !strcmp(text, "true"))
            return mcp_json_new_bool(d, true);
        if (!strcmp(text, "n") || !strcmp(text, "no") || !strcmp(text, "false"))
            return mcp_json_new_bool(d, false);
        *why = "answer y or n";
        return NULL;
    }
    if (!strcmp(type, "number") || !strcmp(type, "integer")) {
        mcp_json_doc *num = NULL;
        mcp_json *v = NULL;
        if (mcp_json_parse(text, strlen(text), NULL, NULL, &num, NULL) == MCP_OK &&
            mcp_json_typeof(mcp_json_doc_root(num)) == MCP_JSON_NUMBER)
            v = mcp_json_copy(d, mcp_json_doc_root(num));
        mcp_json_doc_free(num);
        if (!v)
            *why = "type a number, like 42 or 2.5";
        return v;
    }
    /* A multi-select: values separated by commas. */
    mcp_json *a = mcp_json_new_array(d);
    const char *s = text;
    while (a && *s) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        size_t b = 0;
        while (b < n && s[b] == ' ')
            b++;
        while (n > b && s[n - 1] == ' ')
            n--;
        if (n > b)
            mcp_json_array_append(d, a, mcp_json_new_stringn(d, s + b, n - b));
        s += comma ? (size_t)(comma - s) + 1 : strlen(s);
    }
    return a;
}

typedef enum { FORM_ANSWERED, FORM_EOF, FORM_WITHDRAWN } form_status;

/* Ask for the property key (schema p) until a value fits it, or none is
 * given (an optional property: *out stays NULL). */
static form_status ask_property(reader *r, const char *key, size_t kn, const mcp_json *p,
                                bool required, const mcp_json *previous, mcp_json_doc *d,
                                mcp_json **out)
{
    mcp_buf label, tmp, hint;
    mcp_buf_init(&label, 0, NULL);
    mcp_buf_init(&tmp, 0, NULL);
    mcp_buf_init(&hint, 0, NULL);
    const mcp_json *title = mcp_json_object_get(p, "title");
    const char *t = title ? safe_str(&tmp, title) : safe(&tmp, key, kn);
    mcp_buf_append(&label, t, strlen(t));
    const mcp_json *desc = mcp_json_object_get(p, "description");
    if (desc) {
        t = safe_str(&tmp, desc);
        mcp_buf_append(&label, MCP_LITERAL(" ("));
        mcp_buf_append(&label, t, strlen(t));
        mcp_buf_append(&label, MCP_LITERAL(")"));
    }
    mcp_buf_append(&label, "", 1);
    const char *type = mcp_json_string(mcp_json_object_get(p, "type"), NULL);
    if (!strcmp(type, "boolean"))
        mcp_buf_append(&hint, MCP_LITERAL("y/n"));
    else if (mcp_json_object_get(p, "enum") || mcp_json_object_get(p, "oneOf") ||
             !strcmp(type, "array")) {
        if (!strcmp(type, "array"))
            mcp_buf_append(&hint, MCP_LITERAL("any of: "));
        else
            mcp_buf_append(&hint, MCP_LITERAL("one of: "));
        choices(&hint, p);
    } else {
        mcp_buf_append(&hint, type, strlen(type));
    }
    const mcp_json *shown = previous ? previous : mcp_json_object_get(p, "default");
    mcp_buf def;
    mcp_buf_init(&def, 0, NULL);
    if (shown) {
        mcp_buf_init(&tmp, 0, NULL);
        mcp_json_write(shown, &tmp);
        t = safe(&def, tmp.data, tmp.len);
        mcp_buf_free(&tmp);
    }
    mcp_buf_append(&hint, "", 1);
    /* The property alone, compiled, judges each value typed: its type,
     * enum, minimum, maximum, lengths, pattern, as the server wrote them. */
    mcp_schema *one = NULL;
    mcp_schema_compile(p, NULL, &one, NULL, 0);
    form_status st = FORM_ANSWERED;
    *out = NULL;
    for (;;) {
        fprintf(stderr, "  %s%s [%s]%s%s%s: ", label.data, required ? " *" : "", hint.data,
                shown ? " (Enter: " : "", shown ? (def.data ? def.data : "") : "",
                shown ? ")" : "");
        char line[2048];
        line_status ls = read_line(r, line, sizeof line);
        if (ls != LINE_OK) {
            st = ls == LINE_EOF ? FORM_EOF : FORM_WITHDRAWN;
            break;
        }
        if (!line[0]) {
            if (shown) {
                *out = mcp_json_copy(d, shown);
                break;
            }
            if (!required)
                break;
            fputs("    a value is required\n", stderr);
            continue;
        }
        if (mcp_utf8_validate(line, strlen(line), NULL) != MCP_OK) {
            fputs("    that is not valid UTF-8\n", stderr);
            continue;
        }
        const char *why = NULL;
        mcp_json *v = typed(d, p, line, &why);
        mcp_schema_error err;
        if (!v) {
            fprintf(stderr, "    %s\n", why ? why : "out of memory");
        } else if (one && mcp_schema_validate(one, v, &err) != MCP_OK) {
            fprintf(stderr, "    %s (%s)\n", err.message, err.keyword);
        } else {
            *out = v;
            break;
        }
    }
    mcp_schema_free(one);
    mcp_buf_free(&label);
    mcp_buf_free(&tmp);
    mcp_buf_free(&hint);
    mcp_buf_free(&def);
    return st;
}

static bool is_required(const mcp_json *schema, const char *key, size_t kn)
{
    const mcp_json *req = mcp_json_object_get(schema, "required");
    for (size_t i = 0; i < mcp_json_array_size(req); i++) {
        size_t n;
        const char *s = mcp_json_string(mcp_json_array_at(req, i), &n);
        if (s && n == kn && !memcmp(s, key, kn))
            return true;
    }
    return false;
}

/* {"action": action} with content when given. */
static int answer_action(mcp_question *q, const char *action, const mcp_json *content,
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

static void fill_form(mcp_question *q, cli_asker *a)
{
    const mcp_json *params = mcp_question_params(q);
    const mcp_json *schema = mcp_json_object_get(params, "requestedSchema");
    const mcp_json *props = mcp_json_object_get(schema, "properties");
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    reader r = {.q = q, .token_fd = mcp_cancel_token_fd(mcp_question_token(q))};
    pthread_mutex_lock(&terminal);
    fprintf(stderr, "\n%s asks (%s):\n  %s\n", a->server, a->tool,
            safe_str(&b, mcp_json_object_get(params, "message")));
    fputs("  (* required; Ctrl-D cancels; Ctrl-C cancels the call)\n", stderr);
    mcp_json_doc *d = NULL;
    form_status st = FORM_ANSWERED;
    bool done = false;
    while (!done) {
        mcp_json_doc *prev = d;
        d = mcp_json_doc_new(NULL);
        mcp_json *content = d ? mcp_json_new_object(d) : NULL;
        if (!content)
            break;
        mcp_json_doc_set_root(d, content);
        for (size_t i = 0; st == FORM_ANSWERED && i < mcp_json_object_size(props); i++) {
            const char *key;
            size_t kn;
            const mcp_json *p = mcp_json_object_at(props, i, &key, &kn);
            mcp_json *v = NULL;
            st = ask_property(&r, key, kn, p, is_required(schema, key, kn),
                              prev ? mcp_json_object_getn(mcp_json_doc_root(prev), key, kn) : NULL,
                              d, &v);
            if (v)
                mcp_json_object_setn(d, content, key, kn, v);
        }
        mcp_json_doc_free(prev);
        if (st != FORM_ANSWERED)
            break;
        b.len = 0;
        mcp_json_write(content, &b);
        mcp_buf shown;
        mcp_buf_init(&shown, 0, NULL);
        fprintf(stderr, "  answer: %s\n", safe(&shown, b.data, b.len));
        mcp_buf_free(&shown);
        for (;;) {
            fputs("  send it? [a]ccept, [e]dit, [d]ecline, [c]ancel: ", stderr);
            char line[64];
            line_status ls = read_line(&r, line, sizeof line);
            if (ls != LINE_OK) {
                st = ls == LINE_EOF ? FORM_EOF : FORM_WITHDRAWN;
                done = true;
                break;
            }
            char why[300];
            int rc;
            if (line[0] == 'a') {
                rc = answer_action(q, "accept", content, why, sizeof why);
                if (rc == MCP_OK || rc == MCP_ERR_CANCELLED) {
                    q = NULL;
                    done = true;
                } else {
                    /* The library's own check of the whole form. */
                    fprintf(stderr, "    not sent: %s\n", why);
                }
                break;
            }
            if (line[0] == 'e')
                break;
            if (line[0] == 'd' || line[0] == 'c') {
                if (line[0] == 'd')
                    mcp_question_decline(q);
                else
                    answer_action(q, "cancel", NULL, NULL, 0);
                q = NULL;
                done = true;
                break;
            }
        }
    }
    if (q && st == FORM_WITHDRAWN) {
        const char *reason = mcp_cancel_token_reason(mcp_question_token(q));
        fprintf(stderr, "\n  (withdrawn%s%s)\n", reason ? ": " : "",
                reason ? safe(&b, reason, strlen(reason)) : "");
        mcp_question_decline(q); /* dropped: frees it */
    } else if (q) {
        fputs("\n  (cancelled)\n", stderr);
        answer_action(q, "cancel", NULL, NULL, 0);
    }
    pthread_mutex_unlock(&terminal);
    mcp_json_doc_free(d);
    mcp_buf_free(&b);
}

/* URL mode ------------------------------------------------------------------------------- */

static void line_of(mcp_buf *out, const char *indent, const char *label, const char *text,
                    size_t n)
{
    mcp_buf_append(out, indent, strlen(indent));
    mcp_buf_append(out, label, strlen(label));
    cli_sanitize(out, text, n, false);
    mcp_buf_append(out, MCP_LITERAL("\n"));
}

static bool has_ci(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (!strncasecmp(s + i, needle, k))
            return true;
    return false;
}

bool cli_describe_url(mcp_buf *out, const mcp_json *e, const char *indent)
{
    size_t mn = 0, un = 0, hn = 0;
    const char *message = mcp_json_string(mcp_json_object_get(e, "message"), &mn);
    const char *url = mcp_json_string(mcp_json_object_get(e, "url"), &un);
    const char *host = NULL;
    if (message)
        line_of(out, indent, "", message, mn);
    if (url)
        line_of(out, indent, "url:  ", url, un);
    if (!url || mcp_elicitation_url_host(url, un, &host, &hn) != MCP_OK) {
        mcp_buf_append(out, indent, strlen(indent));
        const char *no = url ? "(not a URL with a scheme and a host: nothing to open)\n"
                             : "(no url: nothing to open)\n";
        mcp_buf_append(out, no, strlen(no));
        return false;
    }
    line_of(out, indent, "host: ", host, hn);
    /* What makes a page look like someone else's (Safe URL Handling:
     * highlight the domain, warn about ambiguous ones). */
    const char *authority = strstr(url, "://") + 3;
    static const char *const warnings[] = {
        "warning: the URL has a user name before its host (user@host): the page is the host's, "
        "whatever comes before the @\n",
        "warning: the host has Punycode (xn--) or letters outside ASCII: it may imitate "
        "another name\n",
        "note: not https: what is typed there may be read on the way\n"};
    bool shown[3] = {host != authority, has_ci(host, hn, "xn--"),
                     strncasecmp(url, "https:", 6) != 0};
    for (size_t i = 0; i < hn; i++)
        shown[1] |= (unsigned char)host[i] >= 0x80;
    for (int i = 0; i < 3; i++)
        if (shown[i]) {
            mcp_buf_append(out, indent, strlen(indent));
            mcp_buf_append(out, warnings[i], strlen(warnings[i]));
        }
    return true;
}

/* The host of q's url, made safe (caller frees), or NULL. */
static char *safe_host(mcp_question *q)
{
    size_t un, hn;
    const char *host;
    const char *url = mcp_json_string(mcp_json_object_get(mcp_question_params(q), "url"), &un);
    if (!url || mcp_elicitation_url_host(url, un, &host, &hn) != MCP_OK)
        return NULL;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    cli_sanitize(&b, host, hn, false);
    if (mcp_buf_append(&b, "", 1) != MCP_OK) {
        mcp_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* The user accepted q: the server may say it is complete. Recorded before
 * the answer goes, which the server may complete at once. */
static void remember(cli_asker *a, mcp_question *q)
{
    const char *id = mcp_json_string(mcp_json_object_get(mcp_question_params(q), "elicitationId"),
                                     NULL);
    char *copy = id ? strdup(id) : NULL, *host = safe_host(q);
    if (!copy || !host) {
        free(copy);
        free(host);
        return;
    }
    pthread_mutex_lock(&a->mu);
    if (a->accepted_count == MCP_CLIENT_MAX_OPEN_ELICITATIONS) {
        free(a->accepted[0].id);
        free(a->accepted[0].host);
        memmove(&a->accepted[0], &a->accepted[1], --a->accepted_count * sizeof a->accepted[0]);
    }
    a->accepted[a->accepted_count].id = copy;
    a->accepted[a->accepted_count].host = host;
    a->accepted_count++;
    pthread_mutex_unlock(&a->mu);
}

/* The host remembered for id, taken out (caller frees), or NULL. */
static char *recall(cli_asker *a, const char *id)
{
    char *host = NULL;
    pthread_mutex_lock(&a->mu);
    for (size_t i = 0; i < a->accepted_count; i++)
        if (!strcmp(a->accepted[i].id, id)) {
            host = a->accepted[i].host;
            free(a->accepted[i].id);
            memmove(&a->accepted[i], &a->accepted[i + 1],
                    (a->accepted_count - i - 1) * sizeof a->accepted[0]);
            a->accepted_count--;
            break;
        }
    pthread_mutex_unlock(&a->mu);
    return host;
}

static void consent(mcp_question *q, cli_asker *a)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    reader r = {.q = q, .token_fd = mcp_cancel_token_fd(mcp_question_token(q))};
    pthread_mutex_lock(&terminal);
    cli_describe_url(&b, mcp_question_params(q), "  ");
    fprintf(stderr, "\n%s asks (%s) to open a web page:\n%.*s", a->server, a->tool, (int)b.len,
            b.data ? b.data : "");
    fputs("  mcp does not open it (Ctrl-C cancels the call).\n"
          "  Open it yourself in a browser, then answer: accept? [y/N] ",
          stderr);
    char line[64];
    line_status ls = read_line(&r, line, sizeof line);
    if (ls == LINE_WITHDRAWN) {
        const char *reason = mcp_cancel_token_reason(mcp_question_token(q));
        fprintf(stderr, "\n  (withdrawn%s%s)\n", reason ? ": " : "",
                reason ? safe(&b, reason, strlen(reason)) : "");
        mcp_question_decline(q); /* dropped: frees it */
    } else if (ls == LINE_EOF) {
        fputs("\n  (cancelled)\n", stderr);
        answer_action(q, "cancel", NULL, NULL, 0);
    } else if (!strcmp(line, "y") || !strcmp(line, "Y") || !strcasecmp(line, "yes")) {
        const char *id = mcp_json_string(
            mcp_json_object_get(mcp_question_params(q), "elicitationId"), NULL);
        char *kept = id ? strdup(id) : NULL; /* q is gone once answered */
        remember(a, q);
        if (answer_action(q, "accept", NULL, NULL, 0) == MCP_OK) {
            fputs("  accepted: finish in the browser; the call goes on\n", stderr);
        } else {
            fputs("  (withdrawn meanwhile)\n", stderr);
            free(kept ? recall(a, kept) : NULL);
        }
        free(kept);
    } else {
        mcp_question_decline(q);
        fputs("  declined\n", stderr);
    }
    pthread_mutex_unlock(&terminal);
    mcp_buf_free(&b);
}

/* Loop thread: the server says the interaction of an accepted id is over. */
static void on_complete(void *ud, const char *id)
{
    cli_asker *a = ud;
    char *host = recall(a, id);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    if (a->before_asking)
        a->before_asking(a->user_data); /* the progress bar goes */
    if (host)
        tell("mcp: %s says the interaction at %s is complete\n", a->server, host);
    else
        tell("mcp: %s says the interaction %s is complete\n", a->server,
             safe(&b, id, strlen(id)));
    free(host);
    mcp_buf_free(&b);
}

/* The sampling command ------------------------------------------------------------------- */

/* The most a sampling command may answer: a model's reply, not a file. */
#define COMMAND_OUTPUT_CAP ((size_t)4 << 20)

static void sample(mcp_question *q, cli_asker *a)
{
    mcp_buf req, out, b;
    mcp_buf_init(&req, 0, NULL);
    mcp_buf_init(&out, COMMAND_OUTPUT_CAP, NULL);
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_append(&req, MCP_LITERAL("{\"method\":\"sampling/createMessage\",\"params\":"));
    mcp_json_write(mcp_question_params(q), &req);
    mcp_buf_append(&req, MCP_LITERAL("}\n"));
    /* In a process group of its own: a Ctrl-C at the terminal is ours (it
     * cancels the call), and a withdrawn question kills the whole group. */
    const char *argv[] = {"sh", "-c", a->sampling_command, NULL};
    mcp_process_options run = {.size = sizeof run, .argv = argv, .output = &out,
                               .input = req.data ? req.data : "", .input_len = req.len};
    int status = 0;
    int rc = mcp_process_run(&run, mcp_question_token(q), &status);
    char why[400];
    if (rc == MCP_ERR_CANCELLED) {
        mcp_question_decline(q); /* withdrawn: dropped */
    } else if (rc != MCP_OK || status != 0) {
        if (rc == MCP_ERR_SPAWN)
            snprintf(why, sizeof why, "the sampling command could not run: %s", strerror(errno));
        else if (rc == MCP_ERR_LIMIT)
            snprintf(why, sizeof why, "the sampling command's answer is over %zu MiB: refused",
                     COMMAND_OUTPUT_CAP >> 20);
        else if (rc != MCP_OK)
            snprintf(why, sizeof why, "the sampling command's answer was lost: %s",
                     mcp_strerror(rc));
        else
            snprintf(why, sizeof why, "the sampling command failed (exit status %d)", status);
        mcp_question_answer_error(q, -32603, why); /* first: not after a form */
        say("mcp: %s\n", why);
    } else {
        /* Its answer: a result object, or text, the model's reply. */
        while (out.len && (out.data[out.len - 1] == '\n' || out.data[out.len - 1] == '\r'))
            out.len--;
        mcp_json_doc *d = NULL;
        rc = MCP_ERR_INVALID_ARG;
        if (out.len && mcp_json_parse(out.data, out.len, NULL, NULL, &d, NULL) == MCP_OK &&
            mcp_json_typeof(mcp_json_doc_root(d)) == MCP_JSON_OBJECT) {
            rc = mcp_question_answer(q, mcp_json_doc_root(d), why, sizeof why);
        } else if (out.len && mcp_utf8_validate(out.data, out.len, NULL) == MCP_OK) {
            mcp_json_doc_free(d);
            d = mcp_json_doc_new(NULL);
            mcp_json *r = d ? mcp_json_new_object(d) : NULL;
            mcp_json *c = d ? mcp_json_new_object(d) : NULL;
            if (r && c) {
                mcp_json_object_set(d, c, "type", mcp_json_new_string(d, "text"));
                mcp_json_object_set(d, c, "text", mcp_json_new_stringn(d, out.data, out.len));
                mcp_json_object_set(d, r, "role", mcp_json_new_string(d, "assistant"));
                mcp_json_object_set(d, r, "content", c);
                mcp_json_object_set(d, r, "model", mcp_json_new_string(d, "mcp --sampling-command"));
                mcp_json_object_set(d, r, "stopReason", mcp_json_new_string(d, "endTurn"));
            }
            rc = r && c && mcp_json_doc_error(d) == MCP_OK
                     ? mcp_question_answer(q, r, why, sizeof why)
                     : MCP_ERR_NOMEM;
        } else {
            snprintf(why, sizeof why, "%s", out.len ? "its output is not UTF-8" : "it printed nothing");
        }
        mcp_json_doc_free(d);
        if (rc != MCP_OK && rc != MCP_ERR_CANCELLED) {
            char text[500];
            snprintf(text, sizeof text, "the sampling command's answer cannot be used: %s", why);
            mcp_question_answer_error(q, -32603, text);
            say("mcp: %s\n", safe(&b, text, strlen(text)));
        }
    }
    mcp_buf_free(&req);
    mcp_buf_free(&out);
    mcp_buf_free(&b);
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

static void *job_thread(void *arg)
{
    job *j = arg;
    j->run(j->q, j->a);
    atomic_store(&j->done, true);
    atomic_fetch_sub(&j->a->open, 1);
    return NULL;
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
    job *j = calloc(1, sizeof *j);
    if (j) {
        j->q = q;
        j->a = a;
        j->run = run;
        atomic_init(&j->done, false);
        atomic_fetch_add(&a->open, 1);
        if (a->before_asking)
            a->before_asking(a->user_data);
        pthread_mutex_lock(&a->mu);
        join_done_jobs(a); /* the ended ones: a long call asks many */
        bool started = pthread_create(&j->thread, NULL, job_thread, j) == 0;
        if (started) {
            j->next = a->jobs;
            a->jobs = j;
        }
        pthread_mutex_unlock(&a->mu);
        if (started)
            return;
        atomic_fetch_sub(&a->open, 1);
        free(j);
    }
    mcp_question_answer_error(q, -32603, "Internal error: out of memory");
}

/* Whether every property of the form is one mcp can ask for. */
static bool form_askable(const mcp_json *params, mcp_buf *why)
{
    const mcp_json *props = mcp_json_object_get(mcp_json_object_get(params, "requestedSchema"),
                                                "properties");
    for (size_t i = 0; i < mcp_json_object_size(props); i++) {
        const char *key;
        size_t kn;
        if (!askable(mcp_json_object_at(props, i, &key, &kn))) {
            const char *s = safe(why, key, kn);
            (void)s;
            return false;
        }
    }
    return true;
}

static void on_elicitation(void *ud, mcp_question *q)
{
    cli_asker *a = ud;
    mcp_buf b, k;
    mcp_buf_init(&b, 0, NULL);
    mcp_buf_init(&k, 0, NULL);
    const char *message = safe_str(&b, mcp_json_object_get(mcp_question_params(q), "message"));
    if (mcp_question_url_mode(q) && !a->interactive) {
        b.len = 0;
        cli_describe_url(&b, mcp_question_params(q), "  ");
        tell("mcp: %s asks (%s) to open a web page:\n%.*s"
            "mcp: declined: nobody can answer, stdin or stderr is not a terminal\n",
            a->server, a->tool, (int)b.len, b.data ? b.data : "");
        mcp_question_decline(q);
    } else if (mcp_question_url_mode(q)) {
        start_job(q, a, consent);
    } else if (!a->interactive) {
        tell("mcp: %s asks (%s): %s\n"
            "mcp: declined: nobody can answer, stdin or stderr is not a terminal\n",
            a->server, a->tool, message);
        mcp_question_decline(q);
    } else if (!form_askable(mcp_question_params(q), &k)) {
        tell("mcp: %s asks (%s): %s\n"
            "mcp: declined: the form's property \"%s\" is not one mcp can ask for\n",
            a->server, a->tool, message, k.data ? k.data : "");
        mcp_question_decline(q);
    } else {
        start_job(q, a, fill_form);
    }
    mcp_buf_free(&b);
    mcp_buf_free(&k);
}

static void on_sampling(void *ud, mcp_question *q)
{
    cli_asker *a = ud;
    if (!a->sampling_command) {
        tell("mcp: %s asks (%s) for a model's answer (sampling)\n"
            "mcp: declined: no model here; --sampling-command CMD names a command that answers\n",
            a->server, a->tool);
        mcp_question_decline(q);
        return;
    }
    start_job(q, a, sample);
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
    o->on_elicitation_complete = on_complete;
    o->elicitation_complete_user_data = a;
    pthread_mutex_init(&a->mu, NULL);
    a->accepted_count = 0;
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
