/* SPDX-License-Identifier: MIT */
/*
 * The call context of every request a handler answers (tools/call,
 * resources/read, prompts/get, completion/complete): an inbound request
 * plus its tool, resource or prompt and its input, the ways a handler
 * answers, reports progress and logs, and how its handler is run (on the
 * loop, or on the pool for a blocking one).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/methods/methods.h"

/* Answers ---------------------------------------------------------------------- */

/* A CallToolResult with one text item, the text escaped, and then
 * `extra` (trusted members, or ""): written directly, since it is the one
 * answer every call makes (the envelope writer's generality costs a third
 * of a small call's time here). The result is plain (ANSWER_RESULT_PLAIN):
 * no whitespace, no _meta, no resultType. */
static int text_result_with(mcp_buf *b, const char *text, size_t n, const char *extra,
                            size_t extra_len)
{
    static const char head[] = "{\"content\":[{\"type\":\"text\",\"text\":";
    int rc = mcp_buf_append(b, head, sizeof head - 1);
    if (rc == MCP_OK)
        rc = mcp_json_write_string(text, n, b);
    if (rc == MCP_OK)
        rc = mcp_buf_append(b, MCP_LITERAL("}]"));
    if (rc == MCP_OK)
        rc = mcp_buf_append(b, extra, extra_len);
    if (rc == MCP_OK)
        rc = mcp_buf_append(b, MCP_LITERAL("}"));
    return rc;
}

/* A CallToolResult with one text item. */
static int text_result(mcp_buf *b, const char *text, size_t n, bool is_error)
{
    if (mcp_utf8_validate(text, n, NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    static const char error[] = ",\"isError\":true";
    return text_result_with(b, text, n, error, is_error ? sizeof error - 1 : 0);
}

/* A tool with an outputSchema must answer with structuredContent that
 * satisfies it (server/tools.mdx): a result that does not would mislead the
 * client, so the call is answered with an internal error instead, and the
 * server's log says why. MCP_OK when the result may go. */
static int check_output(mcp_call *c, const mcp_json *structured, bool is_error)
{
    const mcp_schema *check = c->kind == CALL_TOOL ? c->tool->output_check : NULL;
    if (!check || is_error)
        return MCP_OK;
    mcp_schema_error e;
    int rc = structured ? mcp_schema_validate(check, structured, &e) : MCP_ERR_SCHEMA_MISMATCH;
    if (rc == MCP_OK)
        return MCP_OK;
    char text[700];
    if (!structured)
        snprintf(text, sizeof text, "no structuredContent, though the tool declares an "
                                    "outputSchema");
    else
        snprintf(text, sizeof text, "structuredContent%s %s (%s)", e.instance_path, e.message,
                 e.keyword);
    mcp__server_log(c->req.conn->server, MCP_LOG_ERROR, "tool '%s' broke its outputSchema: %s",
                    c->tool->name, text);
    static const char why[] = "Internal error: the tool's result does not satisfy its outputSchema";
    mcp__request_end(&c->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, why, sizeof why - 1);
    return MCP_ERR_SCHEMA_MISMATCH;
}

/* End c with the result in b (as `kind`), or with the error rc stands for;
 * frees b. */
static int end_with(mcp_call *c, int rc, mcp_buf *b, answer_kind kind)
{
    int ret;
    if (rc == MCP_OK) {
        ret = mcp__request_end(&c->req, kind, 0, b->data, b->len);
    } else {
        const char *why = rc == MCP_ERR_INVALID_ARG ? "Internal error: the tool produced an invalid result"
                          : rc == MCP_ERR_LIMIT ? "Internal error: the result is too large"
                                                : "Internal error: out of memory";
        ret = mcp__request_end(&c->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, why,
                               strlen(why));
        if (ret == MCP_OK)
            ret = rc;
    }
    mcp_buf_free(b);
    return ret;
}

int mcp__call_end_buffer(mcp_call *c, int rc, mcp_buf *b)
{
    return end_with(c, rc, b, ANSWER_RESULT);
}

int mcp_call_reply_text_n(mcp_call *c, const char *text, size_t len)
{
    if (c->kind != CALL_TOOL)
        return MCP_ERR_STATE;
    int oc = check_output(c, NULL, false);
    if (oc != MCP_OK)
        return oc;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    return end_with(c, text ? text_result(&b, text, len, false) : MCP_ERR_INVALID_ARG, &b,
                    ANSWER_RESULT_PLAIN);
}

int mcp_call_reply_text(mcp_call *c, const char *text)
{
    return mcp_call_reply_text_n(c, text, text ? strlen(text) : 0);
}

int mcp_call_reply_tool_error(mcp_call *c, const char *text)
{
    if (c->kind != CALL_TOOL)
        return MCP_ERR_STATE;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    return end_with(c, text ? text_result(&b, text, strlen(text), true) : MCP_ERR_INVALID_ARG,
                    &b, ANSWER_RESULT_PLAIN);
}

/* {"content":[{"type":"text","text":"<json>"}],"structuredContent":<json>} */
static int structured_result(mcp_buf *b, const mcp_json *structured)
{
    if (mcp_json_typeof(structured) != MCP_JSON_OBJECT)
        return MCP_ERR_INVALID_ARG;
    /* The same, as text, for older clients; then structuredContent. */
    mcp_buf text, extra;
    mcp_buf_init(&text, 0, NULL);
    mcp_buf_init(&extra, 0, NULL);
    static const char key[] = ",\"structuredContent\":";
    int rc = mcp_json_write(structured, &text);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&extra, key, sizeof key - 1);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&extra, text.data, text.len);
    if (rc == MCP_OK)
        rc = text_result_with(b, text.data, text.len, extra.data, extra.len);
    mcp_buf_free(&text);
    mcp_buf_free(&extra);
    return rc;
}

int mcp_call_reply_structured(mcp_call *c, const mcp_json *structured)
{
    if (c->kind != CALL_TOOL)
        return MCP_ERR_STATE;
    int oc = mcp_json_typeof(structured) == MCP_JSON_OBJECT ? check_output(c, structured, false)
                                                             : MCP_OK;
    if (oc != MCP_OK)
        return oc;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    return end_with(c, structured_result(&b, structured), &b, ANSWER_RESULT_PLAIN);
}

int mcp_call_reply_result(mcp_call *c, const mcp_json *result)
{
    if (c->kind != CALL_TOOL) {
        const char *problem = mcp__result_problem(c, result);
        if (problem) {
            mcp__server_log(c->req.conn->server, MCP_LOG_ERROR, "%s of '%s': %s",
                            mcp_call_method(c), mcp__call_subject(c), problem);
            static const char why[] = "Internal error: the handler produced an invalid result";
            int rc = mcp__request_end(&c->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, why,
                                      sizeof why - 1);
            return rc == MCP_OK ? MCP_ERR_INVALID_ARG : rc;
        }
    }
    bool is_error = false;
    mcp_json_get_bool(mcp_json_object_get(result, "isError"), &is_error);
    int oc = mcp_json_typeof(result) == MCP_JSON_OBJECT
                 ? check_output(c, mcp_json_object_get(result, "structuredContent"), is_error)
                 : MCP_OK;
    if (oc != MCP_OK)
        return oc;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = mcp_json_typeof(result) == MCP_JSON_OBJECT ? mcp_json_write(result, &b)
                                                         : MCP_ERR_INVALID_ARG;
    /* 2026-07-28 (server/utilities/caching.mdx): a read carries caching
     * hints; the server's when the handler gave none. */
    if (rc == MCP_OK && c->kind == CALL_READ && mcp__call_modern(c) &&
        !mcp_json_object_get(result, "ttlMs")) {
        b.len--; /* the closing brace */
        rc = mcp__read_hints(c, mcp_json_object_size(result) > 0, &b);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&b, MCP_LITERAL("}"));
    }
    return mcp__call_end_buffer(c, rc, &b);
}

int mcp_call_reply_error(mcp_call *c, int64_t code, const char *message)
{
    if (!message || mcp_utf8_validate(message, strlen(message), NULL) != MCP_OK) {
        static const char why[] = "Internal error: invalid error message";
        int rc = mcp__request_end(&c->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, why,
                                  sizeof why - 1);
        return rc == MCP_OK ? MCP_ERR_INVALID_ARG : rc;
    }
    return mcp__request_end(&c->req, ANSWER_ERROR, code, message, strlen(message));
}

int mcp_call_reply_error_data(mcp_call *c, int64_t code, const char *message,
                              const mcp_json *data)
{
    if (!data)
        return mcp_call_reply_error(c, code, message);
    const char *why = NULL;
    if (!message || mcp_utf8_validate(message, strlen(message), NULL) != MCP_OK)
        why = "invalid error message";
    else
        why = mcp__features_error_problem(&c->req, code, data);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = MCP_OK;
    if (!why) {
        rc = mcp_buf_append(&b, MCP_LITERAL("{\"message\":"));
        if (rc == MCP_OK)
            rc = mcp_json_write_string(message, strlen(message), &b);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&b, MCP_LITERAL(",\"data\":"));
        if (rc == MCP_OK)
            rc = mcp_json_write(data, &b);
        if (rc == MCP_OK)
            rc = mcp_buf_append(&b, MCP_LITERAL("}"));
        if (rc == MCP_ERR_UTF8 || rc == MCP_ERR_INVALID_ARG)
            why = "data cannot be written as JSON";
    }
    if (why) {
        mcp_buf_free(&b);
        char text[240];
        snprintf(text, sizeof text, "Internal error: %s", why);
        mcp__server_log(c->req.conn->server, MCP_LOG_ERROR, "a %s handler's error: %s",
                        c->req.msg->method, why);
        rc = mcp__request_end(&c->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, text, strlen(text));
        return rc == MCP_OK ? MCP_ERR_INVALID_ARG : rc;
    }
    if (rc != MCP_OK) {
        mcp_buf_free(&b);
        static const char oom[] = "Internal error: out of memory";
        int erc = mcp__request_end(&c->req, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, oom,
                                   sizeof oom - 1);
        return erc == MCP_OK ? rc : erc;
    }
    rc = mcp__request_end(&c->req, ANSWER_ERROR_DATA, code, b.data, b.len);
    mcp_buf_free(&b);
    return rc;
}

int mcp_call_finish(mcp_call *c)
{
    /* A feature may have an answer to give (ask/: the questions asked). */
    int rc = mcp__features_request_unanswered(&c->req);
    if (rc != MCP_ERR_NOT_FOUND)
        return rc;
    return mcp__request_end(&c->req, ANSWER_NONE, 0, NULL, 0);
}

/* Progress and logs -------------------------------------------------------------- */

int mcp_call_progress(mcp_call *c, double progress, double total, const char *message)
{
    if (atomic_load(&c->req.ended))
        return MCP_ERR_STATE;
    if (mcp_cancel_token_is_cancelled(&c->req.token))
        return MCP_ERR_CANCELLED;
    mcp_id id;
    if (mcp_id_from_json(mcp_json_object_get(mcp_json_object_get(c->req.msg->params, "_meta"),
                                             "progressToken"),
                         &id) != MCP_OK)
        return MCP_ERR_STATE;
    if (!isfinite(progress) || (c->sent_progress && !(progress > c->last_progress)) ||
        (!isnan(total) && !isfinite(total)) ||
        (message && mcp_utf8_validate(message, strlen(message), NULL) != MCP_OK))
        return MCP_ERR_INVALID_ARG;
    c->sent_progress = true;
    c->last_progress = progress;
    return mcp__request_progress(&c->req, progress, total, message);
}

int mcp_call_send_log(mcp_call *c, mcp_log_level level, const char *text)
{
    if (atomic_load(&c->req.ended))
        return MCP_ERR_STATE;
    if (mcp_cancel_token_is_cancelled(&c->req.token))
        return MCP_ERR_CANCELLED;
    if (!text || !mcp_log_level_name(level) ||
        mcp_utf8_validate(text, strlen(text), NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    return mcp__request_log(&c->req, level, mcp__call_subject(c), text);
}

/* Accessors ---------------------------------------------------------------------- */

const char *mcp_call_tool_name(const mcp_call *c)
{
    return mcp__call_subject(c);
}

const char *mcp_call_method(const mcp_call *c)
{
    static const char *const methods[] = {"tools/call", "resources/read", "prompts/get",
                                          "completion/complete"};
    return methods[c->kind];
}

const char *mcp_call_uri(const mcp_call *c)
{
    /* Checked when the read began (a string that is valid UTF-8). */
    return c->kind == CALL_READ
               ? mcp_json_string(mcp_json_object_get(c->req.msg->params, "uri"), NULL)
               : NULL;
}

bool mcp__call_modern(const mcp_call *c)
{
    return mcp_protocol_modern(c->req.version);
}

const mcp_json *mcp_call_arguments(const mcp_call *c)
{
    return c->args;
}

const char *mcp_call_protocol_version(const mcp_call *c)
{
    return c->req.version;
}

mcp_cancel_token *mcp_call_cancel_token(mcp_call *c)
{
    return &c->req.token;
}

bool mcp_call_is_cancelled(const mcp_call *c)
{
    return mcp_cancel_token_is_cancelled(&c->req.token);
}

void mcp_call_log(mcp_call *c, mcp_log_level level, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mcp__server_log(c->req.conn->server, level, "%s: %s", mcp__call_subject(c), text);
}

/* Starting ----------------------------------------------------------------------- */

static void destroy_call(mcp__request *r)
{
    mcp_call *c = (mcp_call *)r;
    mcp_json_doc_free(c->own_args);
    mcp_json_doc_free(c->answers);
    mcp_json_doc_free(c->taken);
    mcp_json_doc_free(c->asked);
    mcp_json_doc_free(c->keys_asked);
    free(r);
}

/* The application's handler of what c calls. */
static void run_handler(mcp_call *c)
{
    if (c->kind == CALL_TOOL)
        c->tool->handler(c->tool->user_data, c);
    else if (c->kind == CALL_COMPLETE)
        c->entry->complete(c->entry->user_data, c);
    else
        c->entry->handler(c->entry->user_data, c);
}

/* Worker thread: run a blocking handler unless the call was cancelled while
 * queued, and end the call if the handler returned without doing so. */
static void run_blocking(mcp__job *job)
{
    mcp_call *c = (mcp_call *)job;
    /* Our own reference: ending the call inside the handler may drop the
     * last of the others, and we still look at it afterwards. */
    mcp__request_ref(&c->req);
    if (!mcp_cancel_token_is_cancelled(&c->req.token))
        run_handler(c);
    if (!atomic_load(&c->req.ended))
        mcp_call_finish(c);
    mcp__request_unref(&c->req);
}

mcp_call *mcp__call_new(conn *cn, mcp_handle h, const mcp_message *msg, registry *snap,
                        call_kind kind)
{
    mcp_call *c = calloc(1, sizeof *c);
    if (!c || mcp__request_start(&c->req, cn, h, msg, snap) != MCP_OK) {
        free(c);
        mcp__registry_unref(snap);
        mcp_session_reply_error(cn->driver.session, h, MCP_WIRE_INTERNAL_ERROR,
                                "Internal error: out of memory", NULL);
        return NULL;
    }
    c->req.destroy = destroy_call;
    c->kind = kind;
    /* The shared, immutable {} for calls without arguments. */
    c->args = mcp_json_doc_root(cn->server->empty_args);
    return c;
}

void mcp__call_run(mcp_call *c)
{
    if (!mcp__features_request_starting(&c->req))
        return; /* a feature answered it */
    if (c->flags & MCP_TOOL_BLOCKING) {
        c->pool = c->req.conn->server->pool;
        c->req.job.run = run_blocking;
        mcp__pool_submit(c->req.conn->server->pool, &c->req.job);
    } else {
        run_handler(c);
    }
}

/* The shape of what a handler gave ---------------------------------------------- */

const char *mcp__result_problem(const mcp_call *c, const mcp_json *result)
{
    if (mcp_json_typeof(result) != MCP_JSON_OBJECT)
        return "the result is not an object";
    switch (c->kind) {
    case CALL_READ:
        return mcp__read_result_problem(result);
    case CALL_PROMPT:
        return mcp__prompt_result_problem(result);
    case CALL_COMPLETE:
        return mcp__completion_result_problem(result);
    default:
        return NULL;
    }
}
