/* SPDX-License-Identifier: MIT */
/*
 * Elicitation (a form): on a terminal (stdin and stderr both), the user
 * fills it in, one property at a time, each checked against its own schema
 * as it is typed (the rule that fails is shown and the property asked
 * again), then reviews it and accepts, edits, declines or cancels; the
 * library checks the whole against requestedSchema before it is sent.
 * Elsewhere (a script, a pipe) nobody can answer: declined, and said so on
 * stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "text.h"

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
        const char *s = ask_safe_str(&tmp, o);
        mcp_buf_append(out, s, strlen(s));
        if (t) {
            s = ask_safe_str(&tmp, t);
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
static form_status ask_property(ask_reader *r, const char *key, size_t kn, const mcp_json *p,
                                bool required, const mcp_json *previous, mcp_json_doc *d,
                                mcp_json **out)
{
    mcp_buf label, tmp, hint;
    mcp_buf_init(&label, 0, NULL);
    mcp_buf_init(&tmp, 0, NULL);
    mcp_buf_init(&hint, 0, NULL);
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
        t = ask_safe(&def, tmp.data, tmp.len);
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
        line_status ls = ask_read_line(r, line, sizeof line);
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
        if (!askable(mcp_json_object_at(props, i, &key, &kn))) {
            ask_safe(why, key, kn);
            return false;
        }
    }
    return true;
}
