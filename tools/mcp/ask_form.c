/* SPDX-License-Identifier: MIT */
/*
 * Elicitation (a form): on a terminal (stdin and stderr both), the user
 * fills it in, one property at a time, each checked as it is typed against
 * its format and its own schema (form_field.c: what is wrong is shown and
 * the property asked again), then reviews it and accepts, edits, declines
 * or cancels; the
 * library checks the whole against requestedSchema before it is sent.
 * Elsewhere (a script, a pipe) nobody can answer: declined, and said so on
 * stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "form_field.h"
#include "text.h"

typedef enum { FORM_ANSWERED, FORM_EOF, FORM_WITHDRAWN } form_status;

/* Ask for the property key (schema p) until a value fits it, or none is
 * given (an optional property: *out stays NULL). */
static form_status ask_property(ask_reader *r, const char *key, size_t kn, const mcp_json *p,
                                bool required, const mcp_json *previous, mcp_json_doc *d,
                                mcp_json **out)
{
    mcp_buf label, tmp, hint, why;
    mcp_buf_init(&label, 0, NULL);
    mcp_buf_init(&tmp, 0, NULL);
    mcp_buf_init(&hint, 0, NULL);
    mcp_buf_init(&why, 0, NULL);
    const mcp_json *title = mcp_json_object_get(p, "title");
    const char *t = title ? ask_safe_str(&tmp, title) : ask_safe(&tmp, key, kn);
    mcp_buf_append(&label, t, strlen(t));
    const mcp_json *desc = mcp_json_object_get(p, "description");
    if (desc) {
        t = ask_safe_str(&tmp, desc);
        mcp_buf_append(&label, MCP_LITERAL(" ("));
        mcp_buf_append(&label, t, strlen(t));
        mcp_buf_append(&label, MCP_LITERAL(")"));
    }
    mcp_buf_append(&label, "", 1);
    form_field_hint(&hint, p);
    mcp_buf_append(&hint, "", 1);
    const mcp_json *shown = previous ? previous : mcp_json_object_get(p, "default");
    mcp_buf def;
    mcp_buf_init(&def, 0, NULL);
    if (shown) {
        mcp_buf json;
        mcp_buf_init(&json, 0, NULL);
        mcp_json_write(shown, &json);
        ask_safe(&def, json.data, json.len);
        mcp_buf_free(&json);
    }
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
        char line[sizeof r->buf]; /* as long as a terminal's line may be */
        line_status ls = ask_read_line(r, line, sizeof line);
        if (ls == LINE_LONG) {
            fprintf(stderr, "    too long: at most %zu bytes\n", sizeof line - 1);
            continue;
        }
        if (ls != LINE_OK) {
            st = ls == LINE_EOF ? FORM_EOF : FORM_WITHDRAWN;
            break;
        }
        if (!line[0]) {
            /* The server's default is checked as a typed value is. */
            if (shown && form_field_fits(p, one, shown, &why)) {
                *out = mcp_json_copy(d, shown);
                break;
            }
            if (shown) {
                fprintf(stderr, "    the default does not fit: %s\n",
                        why.len ? why.data : "out of memory");
                continue;
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
        mcp_json *v = form_field_value(d, p, one, line, &why);
        if (v) {
            *out = v;
            break;
        }
        fprintf(stderr, "    %s\n", why.len ? why.data : "out of memory");
    }
    mcp_schema_free(one);
    mcp_buf_free(&label);
    mcp_buf_free(&tmp);
    mcp_buf_free(&hint);
    mcp_buf_free(&def);
    mcp_buf_free(&why);
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

void ask_fill_form(mcp_question *q, cli_asker *a)
{
    const mcp_json *params = mcp_question_params(q);
    const mcp_json *schema = mcp_json_object_get(params, "requestedSchema");
    const mcp_json *props = mcp_json_object_get(schema, "properties");
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    ask_reader r = {.q = q, .token_fd = mcp_cancel_token_fd(mcp_question_token(q))};
    pthread_mutex_lock(&ask_terminal);
    fprintf(stderr, "\n%s asks (%s):\n  %s\n", a->server, a->tool,
            ask_safe_str(&b, mcp_json_object_get(params, "message")));
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
        fprintf(stderr, "  answer: %s\n", ask_safe(&shown, b.data, b.len));
        mcp_buf_free(&shown);
        for (;;) {
            fputs("  send it? [a]ccept, [e]dit, [d]ecline, [c]ancel: ", stderr);
            char line[64];
            line_status ls = ask_read_line(&r, line, sizeof line);
            if (ls == LINE_LONG)
                continue; /* none of the answers: asked again */
            if (ls != LINE_OK) {
                st = ls == LINE_EOF ? FORM_EOF : FORM_WITHDRAWN;
                done = true;
                break;
            }
            char why[300];
            int rc;
            if (line[0] == 'a') {
                rc = ask_answer_action(q, "accept", content, why, sizeof why);
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
                    ask_answer_action(q, "cancel", NULL, NULL, 0);
                q = NULL;
                done = true;
                break;
            }
        }
    }
    if (q && st == FORM_WITHDRAWN) {
        const char *reason = mcp_cancel_token_reason(mcp_question_token(q));
        fprintf(stderr, "\n  (withdrawn%s%s)\n", reason ? ": " : "",
                reason ? ask_safe(&b, reason, strlen(reason)) : "");
        mcp_question_decline(q); /* dropped: frees it */
    } else if (q) {
        fputs("\n  (cancelled)\n", stderr);
        ask_answer_action(q, "cancel", NULL, NULL, 0);
    }
    pthread_mutex_unlock(&ask_terminal);
    mcp_json_doc_free(d);
    mcp_buf_free(&b);
}

bool ask_form_askable(const mcp_json *params, mcp_buf *why)
{
    const mcp_json *props = mcp_json_object_get(mcp_json_object_get(params, "requestedSchema"),
                                                "properties");
    for (size_t i = 0; i < mcp_json_object_size(props); i++) {
        const char *key;
        size_t kn;
        if (!form_field_askable(mcp_json_object_at(props, i, &key, &kn))) {
            ask_safe(why, key, kn);
            return false;
        }
    }
    return true;
}
