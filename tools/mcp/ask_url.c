/* SPDX-License-Identifier: MIT */
/*
 * Elicitation in URL mode (a page to open, for what must not pass through
 * mcp: a password, a payment, a third party's sign-in): mcp never opens or
 * fetches the URL (client/elicitation.mdx, Safe URL Handling). It shows the
 * message, the whole URL and its host apart (the part that says whose page
 * it is, after any user@), with a warning for what makes one host look
 * like another, and asks the user, who opens it in a browser, whether to
 * accept; anything but yes declines. Elsewhere: declined, and said so.
 * When the server says an accepted one is complete, stderr says so.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ask.h"
#include "text.h"

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

void ask_url_consent(mcp_question *q, cli_asker *a)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    ask_reader r = {.q = q, .token_fd = mcp_cancel_token_fd(mcp_question_token(q))};
    pthread_mutex_lock(&ask_terminal);
    cli_describe_url(&b, mcp_question_params(q), "  ");
    fprintf(stderr, "\n%s asks (%s) to open a web page:\n%.*s", a->server, a->tool, (int)b.len,
            b.data ? b.data : "");
    fputs("  mcp does not open it (Ctrl-C cancels the call).\n"
          "  Open it yourself in a browser, then answer: accept? [y/N] ",
          stderr);
    char line[64];
    line_status ls = ask_read_line(&r, line, sizeof line);
    if (ls == LINE_WITHDRAWN) {
        const char *reason = mcp_cancel_token_reason(mcp_question_token(q));
        fprintf(stderr, "\n  (withdrawn%s%s)\n", reason ? ": " : "",
                reason ? ask_safe(&b, reason, strlen(reason)) : "");
        mcp_question_decline(q); /* dropped: frees it */
    } else if (ls == LINE_EOF) {
        fputs("\n  (cancelled)\n", stderr);
        ask_answer_action(q, "cancel", NULL, NULL, 0);
    } else if (!strcmp(line, "y") || !strcmp(line, "Y") || !strcasecmp(line, "yes")) {
        const char *id = mcp_json_string(
            mcp_json_object_get(mcp_question_params(q), "elicitationId"), NULL);
        char *kept = id ? strdup(id) : NULL; /* q is gone once answered */
        remember(a, q);
        if (ask_answer_action(q, "accept", NULL, NULL, 0) == MCP_OK) {
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
    pthread_mutex_unlock(&ask_terminal);
    mcp_buf_free(&b);
}

void ask_url_complete(void *ud, const char *id)
{
    cli_asker *a = ud;
    char *host = recall(a, id);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    if (a->before_asking)
        a->before_asking(a->user_data); /* the progress bar goes */
    if (host)
        ask_tell("mcp: %s says the interaction at %s is complete\n", a->server, host);
    else
        ask_tell("mcp: %s says the interaction %s is complete\n", a->server,
             ask_safe(&b, id, strlen(id)));
    free(host);
    mcp_buf_free(&b);
}
