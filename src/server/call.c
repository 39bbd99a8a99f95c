/*
 * tools/call: call contexts and how answers reach the wire.
 *
 * A call holds two references: the server's, dropped on the loop thread when
 * the request settles (answered or cancelled), and the handler's, dropped
 * when the handler ends the call. Answers from other threads are serialized
 * on that thread and posted to the loop, where the session decides: a call
 * cancelled in the meantime is already settled, so the answer is dropped
 * and freed there. That is the only place an answer can be sent from, so
 * "nothing after a cancel" holds whatever the handler does.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/internal.h"

/* References ----------------------------------------------------------------- */

static void call_unref(mcp_call *c)
{
    if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
        return;
    mcp_server *s = c->server;
    mcp_message_free(c->msg);
    mcp__token_unref(c->token);
    free(c);
    atomic_fetch_sub(&s->live_calls, 1);
}

/* Loop thread: the request is settled; drop the server's reference. */
static void settle(mcp_call *c)
{
    c->settled = true;
    call_unref(c);
}

/* Answers --------------------------------------------------------------------- */

typedef enum { ANSWER_RESULT, ANSWER_ERROR, ANSWER_NONE } answer_kind;

typedef struct answer {
    mcp__post post; /* first */
    mcp_call *call;
    answer_kind kind;
    int64_t code;
    char *text; /* result JSON, or the error message */
    size_t len;
} answer;

/* Loop thread: send the answer unless the call was settled meanwhile. */
static void deliver(mcp_call *c, answer_kind kind, int64_t code, const char *text, size_t len)
{
    mcp_server *s = c->server;
    if (c->settled) {
        mcp__server_log(s, MCP_LOG_DEBUG, "answer dropped: call of %s already cancelled",
                        c->tool->name);
        return;
    }
    mcp__u64map_take(&s->calls, c->handle);
    if (kind == ANSWER_RESULT)
        mcp_session_reply_raw(s->session, c->handle, text, len);
    else if (kind == ANSWER_ERROR)
        mcp_session_reply_error(s->session, c->handle, code, text, NULL);
    else
        mcp_session_reply_error(s->session, c->handle, MCP_WIRE_INTERNAL_ERROR,
                                "Internal error: tool ended without a result", NULL);
    mcp__server_rearm(s);
    settle(c);
}

static void deliver_posted(mcp__post *post)
{
    answer *a = (answer *)post;
    mcp_call *c = a->call;
    deliver(c, a->kind, a->code, a->text, a->len);
    free(a->text);
    free(a);
    call_unref(c); /* the handler's reference, carried by the post */
}

/* End the call with an answer (text owned by the caller, copied if
 * posted). */
static int end_call(mcp_call *c, answer_kind kind, int64_t code, const char *text, size_t len)
{
    if (atomic_exchange(&c->ended, true))
        return MCP_ERR_STATE;
    mcp_server *s = c->server;
    if (mcp_cancel_token_is_cancelled(c->token) && kind != ANSWER_NONE) {
        call_unref(c);
        return MCP_ERR_CANCELLED;
    }
    if (mcp__on_loop_thread(&s->poster)) {
        deliver(c, kind, code, text, len);
        call_unref(c);
        return MCP_OK;
    }
    answer *a = calloc(1, sizeof *a);
    char *copy = text ? malloc(len + 1) : NULL;
    if (!a || (text && !copy)) {
        free(a);
        free(copy);
        /* Still end the request: an error is shorter than the answer. */
        kind = ANSWER_ERROR;
        code = MCP_WIRE_INTERNAL_ERROR;
        static const char oom[] = "Internal error: out of memory";
        a = calloc(1, sizeof *a);
        copy = strdup(oom);
        len = sizeof oom - 1;
        if (!a || !copy) {
            free(a);
            free(copy);
            call_unref(c); /* nothing can be done; the client times out */
            return MCP_ERR_NOMEM;
        }
        text = copy;
    } else if (text) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    a->post.run = deliver_posted;
    a->call = c;
    a->kind = kind;
    a->code = code;
    a->text = copy;
    a->len = len;
    if (!mcp__poster_post(&s->poster, &a->post)) {
        /* The loop is gone (shutdown): nothing can be sent any more. */
        free(copy);
        free(a);
        call_unref(c);
        return MCP_ERR_CANCELLED;
    }
    return MCP_OK;
}

/* Append a string literal; its length comes from the compiler. */
#define APPEND_LITERAL(b, lit) mcp_buf_append((b), (lit), sizeof(lit) - 1)

/* Serialize a CallToolResult with one text item. */
static int text_result(mcp_buf *b, const char *text, bool is_error)
{
    size_t n = strlen(text);
    if (mcp_utf8_validate(text, n, NULL) != MCP_OK)
        return MCP_ERR_INVALID_ARG;
    int rc = APPEND_LITERAL(b, "{\"content\":[{\"type\":\"text\",\"text\":");
    if (!rc) rc = mcp_json_write_string(text, n, b);
    if (!rc) rc = is_error ? APPEND_LITERAL(b, "}],\"isError\":true}")
                           : APPEND_LITERAL(b, "}]}");
    return rc;
}

static int end_with_buffer(mcp_call *c, int rc, mcp_buf *b)
{
    int ret;
    if (rc == MCP_OK) {
        ret = end_call(c, ANSWER_RESULT, 0, b->data, b->len);
    } else {
        const char *why = rc == MCP_ERR_INVALID_ARG
                              ? "Internal error: the tool produced an invalid result"
                              : "Internal error: out of memory";
        ret = end_call(c, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, why, strlen(why));
        if (ret == MCP_OK)
            ret = rc;
    }
    mcp_buf_free(b);
    return ret;
}

int mcp_call_reply_text(mcp_call *c, const char *text)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    return end_with_buffer(c, text ? text_result(&b, text, false) : MCP_ERR_INVALID_ARG, &b);
}

int mcp_call_reply_tool_error(mcp_call *c, const char *text)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    return end_with_buffer(c, text ? text_result(&b, text, true) : MCP_ERR_INVALID_ARG, &b);
}

/* {"content":[{"type":"text","text":"<json>"}],"structuredContent":<json>} */
static int structured_result(mcp_buf *b, const mcp_json *structured)
{
    if (mcp_json_typeof(structured) != MCP_JSON_OBJECT)
        return MCP_ERR_INVALID_ARG;
    mcp_buf text;
    mcp_buf_init(&text, 0, NULL);
    int rc = mcp_json_write(structured, &text);
    if (!rc) rc = APPEND_LITERAL(b, "{\"content\":[{\"type\":\"text\",\"text\":");
    if (!rc) rc = mcp_json_write_string(text.data, text.len, b);
    if (!rc) rc = APPEND_LITERAL(b, "}],\"structuredContent\":");
    if (!rc) rc = mcp_buf_append(b, text.data, text.len);
    if (!rc) rc = APPEND_LITERAL(b, "}");
    mcp_buf_free(&text);
    return rc;
}

int mcp_call_reply_structured(mcp_call *c, const mcp_json *structured)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    return end_with_buffer(c, structured_result(&b, structured), &b);
}

int mcp_call_reply_result(mcp_call *c, const mcp_json *result)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = mcp_json_typeof(result) == MCP_JSON_OBJECT ? mcp_json_write(result, &b)
                                                         : MCP_ERR_INVALID_ARG;
    return end_with_buffer(c, rc, &b);
}

int mcp_call_reply_error(mcp_call *c, int64_t code, const char *message)
{
    if (!message || mcp_utf8_validate(message, strlen(message), NULL) != MCP_OK) {
        static const char why[] = "Internal error: invalid error message";
        int rc = end_call(c, ANSWER_ERROR, MCP_WIRE_INTERNAL_ERROR, why, sizeof why - 1);
        return rc == MCP_OK ? MCP_ERR_INVALID_ARG : rc;
    }
    return end_call(c, ANSWER_ERROR, code, message, strlen(message));
}

int mcp_call_finish(mcp_call *c)
{
    return end_call(c, ANSWER_NONE, 0, NULL, 0);
}

/* Progress ---------------------------------------------------------------------- */

typedef struct progress_post {
    mcp__post post;
    mcp_call *call;
    double progress, total;
    char *message;
} progress_post;

static void send_progress(mcp_call *c, double progress, double total, const char *message)
{
    if (!c->settled)
        mcp_session_progress(c->server->session, c->handle, progress, total, message);
}

static void progress_posted(mcp__post *post)
{
    progress_post *p = (progress_post *)post;
    send_progress(p->call, p->progress, p->total, p->message);
    call_unref(p->call);
    free(p->message);
    free(p);
}

int mcp_call_progress(mcp_call *c, double progress, double total, const char *message)
{
    if (atomic_load(&c->ended))
        return MCP_ERR_STATE;
    if (mcp_cancel_token_is_cancelled(c->token))
        return MCP_ERR_CANCELLED;
    const mcp_json *tok = mcp_json_object_get(mcp_json_object_get(c->msg->params, "_meta"),
                                              "progressToken");
    mcp_id id;
    if (mcp_id_from_json(tok, &id) != MCP_OK)
        return MCP_ERR_STATE;
    if (!isfinite(progress) || (c->sent_progress && !(progress > c->last_progress)) ||
        (!isnan(total) && !isfinite(total)) ||
        (message && mcp_utf8_validate(message, strlen(message), NULL) != MCP_OK))
        return MCP_ERR_INVALID_ARG;
    c->sent_progress = true;
    c->last_progress = progress;
    mcp_server *s = c->server;
    if (mcp__on_loop_thread(&s->poster)) {
        send_progress(c, progress, total, message);
        return MCP_OK;
    }
    progress_post *p = calloc(1, sizeof *p);
    if (!p || (message && !(p->message = strdup(message)))) {
        free(p);
        return MCP_ERR_NOMEM;
    }
    atomic_fetch_add(&c->refs, 1); /* kept alive until the post runs */
    p->post.run = progress_posted;
    p->call = c;
    p->progress = progress;
    p->total = total;
    if (!mcp__poster_post(&s->poster, &p->post)) {
        free(p->message);
        free(p);
        call_unref(c);
        return MCP_ERR_CANCELLED;
    }
    return MCP_OK;
}

/* Accessors ---------------------------------------------------------------------- */

const char *mcp_call_tool_name(const mcp_call *c)
{
    return c->tool->name;
}

const mcp_json *mcp_call_arguments(const mcp_call *c)
{
    return c->args;
}

mcp_cancel_token *mcp_call_cancel_token(mcp_call *c)
{
    return c->token;
}

bool mcp_call_is_cancelled(const mcp_call *c)
{
    return mcp_cancel_token_is_cancelled(c->token);
}

void mcp_call_log(mcp_call *c, mcp_log_level level, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mcp__server_log(c->server, level, "%s: %s", c->tool->name, text);
}

/* Starting and cancelling ----------------------------------------------------------- */

/* Worker thread: run a blocking handler unless the call was cancelled while
 * queued, and end the call if the handler returned without doing so. */
static void run_blocking(mcp__job *job)
{
    mcp_call *c = (mcp_call *)job;
    /* Our own reference: ending the call inside the handler may drop the
     * last of the others, and we still look at it afterwards. */
    atomic_fetch_add(&c->refs, 1);
    if (!mcp_cancel_token_is_cancelled(c->token))
        c->tool->handler(c, c->tool->user_data);
    if (!atomic_load(&c->ended))
        mcp_call_finish(c);
    call_unref(c);
}

void mcp__server_tools_call(mcp_server *s, mcp_handle h, const mcp_message *msg)
{
    size_t nlen;
    const char *name = mcp_json_string(mcp_json_object_get(msg->params, "name"), &nlen);
    const mcp_json *args = mcp_json_object_get(msg->params, "arguments");
    if (!name) {
        mcp_session_reply_error(s->session, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: tools/call needs params.name, a string", NULL);
        return;
    }
    const tool *t = mcp__server_find_tool(s, name, nlen);
    if (!t) {
        char text[200];
        snprintf(text, sizeof text, "Unknown tool: %.*s", nlen > 128 ? 128 : (int)nlen, name);
        mcp_session_reply_error(s->session, h, MCP_WIRE_INVALID_PARAMS, text, NULL);
        return;
    }
    if (args && mcp_json_typeof(args) != MCP_JSON_OBJECT) {
        mcp_session_reply_error(s->session, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: tools/call params.arguments must be an object",
                                NULL);
        return;
    }
    mcp_call *c = calloc(1, sizeof *c);
    mcp_cancel_token *token = c ? mcp__token_new() : NULL;
    if (c) {
        /* Complete before it goes into the map: the map keys on handle. */
        c->server = s;
        c->handle = h;
        c->args = args ? args : mcp_json_doc_root(s->empty_args); /* shared, immutable {} */
        c->tool = t;
        c->token = token;
    }
    if (!token || mcp__u64map_put(&s->calls, &s->mem, h, c) != MCP_OK) {
        if (token)
            mcp__token_unref(token);
        free(c);
        mcp_session_reply_error(s->session, h, MCP_WIRE_INTERNAL_ERROR,
                                "Internal error: out of memory", NULL);
        return;
    }
    atomic_init(&c->refs, 2);
    atomic_init(&c->ended, false);
    c->msg = mcp_message_retain((mcp_message *)msg);
    atomic_fetch_add(&s->live_calls, 1);
    if (t->flags & MCP_TOOL_BLOCKING) {
        c->job.run = run_blocking;
        mcp__pool_submit(s->pool, &c->job);
    } else {
        t->handler(c, t->user_data);
    }
}

void mcp__server_call_cancelled(mcp_server *s, mcp_handle h, const char *reason)
{
    mcp_call *c = mcp__u64map_take(&s->calls, h);
    if (!c)
        return;
    c->settled = true; /* before the token fires: a reply from a cleanup is dropped */
    mcp__token_cancel(c->token, reason);
    call_unref(c);
}

void mcp__server_calls_free(mcp_server *s)
{
    mcp__u64map_free(&s->calls, &s->mem);
}
