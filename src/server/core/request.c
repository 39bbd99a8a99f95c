/* SPDX-License-Identifier: MIT */
/*
 * The inbound request context, whatever the method: references, answers
 * from any thread, progress and log messages. Answers from other threads are
 * serialized on that thread and posted to the loop, where the session
 * decides: a request cancelled in the meantime is already settled, so the
 * answer is dropped and freed there. That is the only place an answer can
 * be sent from, so "nothing after a cancel" holds whatever the handler does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/core/core.h"
#include "session/entry.h"

/* References ----------------------------------------------------------------- */

void mcp__request_ref(mcp__request *r)
{
    atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
}

void mcp__request_unref(mcp__request *r)
{
    if (atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1)
        return;
    conn *c = r->conn;
    mcp_server *s = c->server;
    if (r->sink && mcp_protocol_modern(r->version))
        atomic_fetch_sub(&c->outliving, 1);
    mcp_message_free(r->msg);
    mcp__token_fini(&r->token);
    mcp__registry_unref(r->snapshot);
    r->destroy(r);
    mcp__conn_unref(c);
    if (atomic_fetch_sub(&s->live, 1) == 1)
        mcp__server_last_request_freed(s); /* mcp_server_free came first */
}

int mcp__request_start(mcp__request *r, conn *c, mcp_handle h, const mcp_message *msg,
                       registry *snapshot)
{
    if (!mcp_session_inbound_active(c->driver.session, h))
        return MCP_ERR_STATE; /* not in flight: a caller's mistake */
    if (mcp__token_init(&r->token) != MCP_OK)
        return MCP_ERR_NOMEM;
    mcp_session_set_inbound_data(c->driver.session, h, r);
    atomic_init(&r->refs, 2);
    atomic_init(&r->ended, false);
    r->conn = c;
    r->handle = h;
    r->msg = mcp_message_retain((mcp_message *)msg);
    r->snapshot = snapshot;
    r->version = mcp_session_inbound_version(c->driver.session, h);
    r->settled = false;
    r->sink = NULL;
    mcp__conn_ref(c);
    atomic_fetch_add(&c->server->live, 1);
    return MCP_OK;
}

void mcp__request_cancelled(conn *c, mcp_handle h, const char *reason)
{
    mcp__request *r = mcp_session_inbound_data(c->driver.session, h);
    if (r)
        mcp__request_cancel(r, reason);
}

void mcp__request_detach(mcp__request *r, const mcp__request_sink *sink)
{
    mcp_session_set_inbound_data(r->conn->driver.session, r->handle, NULL);
    r->handle = 0;
    r->sink = sink;
    /* A 2026 task runs on no connection: the one it came on need not wait
     * for it to drain (over HTTP it is gone once CreateTaskResult is). */
    if (mcp_protocol_modern(r->version))
        atomic_fetch_add(&r->conn->outliving, 1);
}

void mcp__request_cancel(mcp__request *r, const char *reason)
{
    if (r->settled)
        return;
    r->settled = true; /* before the token fires: a reply from a cleanup is dropped */
    mcp__token_cancel(&r->token, reason);
    mcp__settle how = {.cancelled = true, .reason = reason ? reason : "cancelled"};
    mcp__features_request_settled(r, &how);
    mcp__request_unref(r);
}

/* Answers --------------------------------------------------------------------- */

/* -32002 before 2026-07-28, -32602 since (server/resources.mdx of each). */
static int64_t not_found_code(const char *version)
{
    return mcp_protocol_modern(version) ? MCP_WIRE_INVALID_PARAMS : -32002;
}

int mcp__reply_not_found(mcp_session *ss, mcp_handle h, const mcp_json *uri)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *data = d ? mcp_json_new_object(d) : NULL;
    if (data)
        mcp_json_object_set(d, data, "uri", mcp_json_copy(d, uri));
    int rc = mcp_session_reply_error(ss, h, not_found_code(mcp_session_inbound_version(ss, h)),
                                     "Resource not found",
                                     d && !mcp_json_doc_error(d) ? data : NULL);
    mcp_json_doc_free(d);
    return rc;
}


typedef struct answer {
    mcp__post post; /* first */
    mcp__request *request;
    answer_kind kind;
    int64_t code;
    char *text; /* result JSON, or the error message */
    size_t len;
} answer;

/* Loop thread: send the answer unless the request was settled meanwhile. */
static void deliver(mcp__request *r, answer_kind kind, int64_t code, const char *text,
                    size_t len)
{
    conn *c = r->conn;
    if (r->settled) {
        mcp__server_log(c->server, MCP_LOG_DEBUG, "answer dropped: %s already cancelled",
                        r->msg->method);
        return;
    }
    if (r->sink) {
        r->settled = true;
        mcp__settle how = {.error_code = kind == ANSWER_ERROR || kind == ANSWER_ERROR_DATA ? code : 0};
        mcp__features_request_settled(r, &how);
        r->sink->answered(r, kind, code, text, len);
        mcp__request_unref(r);
        return;
    }
    /* Out of the table first: the reply may fail and close the session,
     * which must then find nothing of this request to cancel. */
    mcp_session_set_inbound_data(c->driver.session, r->handle, NULL);
    r->settled = true;
    /* An error with data (mcp_call_reply_error_data) comes as the text
     * {"message":...,"data":...}. */
    mcp_json_doc *d = NULL;
    const mcp_json *root = NULL;
    if (kind == ANSWER_ERROR_DATA && mcp_json_parse(text, len, NULL, NULL, &d, NULL) == MCP_OK)
        root = mcp_json_doc_root(d);
    mcp__settle how = {
        .error_code = kind == ANSWER_ERROR || kind == ANSWER_ERROR_DATA ? code : 0,
        .error_data = root ? mcp_json_object_get(root, "data") : NULL};
    mcp__features_request_settled(r, &how);
    mcp_session *ss = c->driver.session;
    int rc;
    if (kind == ANSWER_RESULT)
        rc = mcp_session_reply_raw(ss, r->handle, text, len);
    else if (kind == ANSWER_RESULT_PLAIN)
        rc = mcp__session_reply_plain(ss, r->handle, text, len);
    else if (kind == ANSWER_ERROR)
        rc = mcp_session_reply_error(ss, r->handle, code, text, NULL);
    else if (kind == ANSWER_ERROR_DATA && !root)
        rc = mcp_session_reply_error(ss, r->handle, MCP_WIRE_INTERNAL_ERROR,
                                     "Internal error: out of memory", NULL);
    else if (kind == ANSWER_ERROR_DATA)
        rc = mcp_session_reply_error(ss, r->handle, code,
                                     mcp_json_string(mcp_json_object_get(root, "message"), NULL),
                                     how.error_data);
    else if (kind == ANSWER_NOT_FOUND)
        rc = mcp__reply_not_found(ss, r->handle, mcp_json_object_get(r->msg->params, "uri"));
    else
        rc = mcp_session_reply_error(ss, r->handle, MCP_WIRE_INTERNAL_ERROR,
                                     "Internal error: the handler ended without a result", NULL);
    if (rc == MCP_ERR_INVALID_ARG) {
        /* The answer could not be written as it was (still in flight):
         * the request still ends, with an error. */
        mcp__server_log(c->server, MCP_LOG_ERROR, "an answer to %s could not be encoded",
                        r->msg->method);
        mcp_session_reply_error(ss, r->handle, MCP_WIRE_INTERNAL_ERROR,
                                "Internal error: the answer could not be encoded", NULL);
    }
    if (d)
        mcp_json_doc_free(d);
    mcp__request_unref(r);
}

static void deliver_posted(mcp__post *post)
{
    answer *a = (answer *)post;
    mcp__request *r = a->request;
    deliver(r, a->kind, a->code, a->text, a->len);
    free(a->text);
    free(a);
    mcp__request_unref(r); /* the handler's reference, carried by the post */
}

int mcp__request_end(mcp__request *r, answer_kind kind, int64_t code, const char *text,
                     size_t len)
{
    if (atomic_exchange(&r->ended, true))
        return MCP_ERR_STATE;
    /* From here the handler may free what its cancel callbacks use. */
    mcp__token_detach(&r->token);
    mcp_server *s = r->conn->server;
    if (mcp_cancel_token_is_cancelled(&r->token) && kind != ANSWER_NONE) {
        mcp__request_unref(r);
        return MCP_ERR_CANCELLED;
    }
    if (mcp__on_loop_thread(&s->poster)) {
        deliver(r, kind, code, text, len);
        mcp__request_unref(r);
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
            mcp__request_unref(r); /* nothing can be done; the client times out */
            return MCP_ERR_NOMEM;
        }
    } else if (text) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    a->post.run = deliver_posted;
    a->request = r;
    a->kind = kind;
    a->code = code;
    a->text = copy;
    a->len = len;
    if (!mcp__server_post(s, &a->post)) {
        /* The loop is gone (shutdown): nothing can be sent any more. */
        free(copy);
        free(a);
        mcp__request_unref(r);
        return MCP_ERR_CANCELLED;
    }
    return MCP_OK;
}

/* Progress and log messages ------------------------------------------------------ */

typedef struct notice {
    mcp__post post;
    mcp__request *request;
    bool is_log;
    double progress, total;
    mcp_log_level level;
    char *logger;
    char *text; /* progress message or log text; may be NULL */
} notice;

static void send_notice(mcp__request *r, const notice *n)
{
    if (r->settled)
        return;
    if (r->sink) {
        if (n->is_log)
            r->sink->log(r, n->level, n->logger, n->text);
        else
            r->sink->progress(r, n->progress, n->total, n->text);
        return;
    }
    mcp_session *ss = r->conn->driver.session;
    if (!n->is_log) {
        mcp_session_progress(ss, r->handle, n->progress, n->total, n->text);
        return;
    }
    mcp_json_doc *doc = mcp_json_doc_new(NULL);
    mcp_json *data = doc ? mcp_json_new_string(doc, n->text) : NULL;
    if (data)
        mcp_session_log_message(ss, r->handle, n->level, n->logger, data);
    mcp_json_doc_free(doc);
}

static void notice_free(notice *n)
{
    free(n->logger);
    free(n->text);
    free(n);
}

static void notice_posted(mcp__post *post)
{
    notice *n = (notice *)post;
    send_notice(n->request, n);
    mcp__request_unref(n->request);
    notice_free(n);
}

/* Send now on the loop thread, or post a copy there. */
static int notify(mcp__request *r, const notice *n)
{
    mcp_server *s = r->conn->server;
    if (mcp__on_loop_thread(&s->poster)) {
        send_notice(r, n);
        return MCP_OK;
    }
    notice *p = calloc(1, sizeof *p);
    if (!p)
        return MCP_ERR_NOMEM;
    *p = *n;
    p->logger = n->logger ? strdup(n->logger) : NULL;
    p->text = n->text ? strdup(n->text) : NULL;
    if ((n->logger && !p->logger) || (n->text && !p->text)) {
        notice_free(p);
        return MCP_ERR_NOMEM;
    }
    mcp__request_ref(r); /* kept alive until the post runs */
    p->post.run = notice_posted;
    p->request = r;
    if (!mcp__server_post(s, &p->post)) {
        notice_free(p);
        mcp__request_unref(r);
        return MCP_ERR_CANCELLED;
    }
    return MCP_OK;
}

int mcp__request_progress(mcp__request *r, double progress, double total,
                          const char *message)
{
    notice n = {.progress = progress, .total = total, .text = (char *)message};
    return notify(r, &n);
}

int mcp__request_log(mcp__request *r, mcp_log_level level, const char *logger,
                     const char *text)
{
    notice n = {.is_log = true, .level = level, .logger = (char *)logger,
                .text = (char *)text};
    return notify(r, &n);
}

/* What a client sent, shown in an answer ------------------------------------------ */

void mcp__show_string(char *out, size_t size, const char *s, size_t n, size_t max,
                      size_t limit)
{
    mcp_buf b;
    mcp_buf_init(&b, limit, NULL);
    if (mcp_json_write_string(s, n > max ? max : n, &b) != MCP_OK)
        mcp_buf_append(&b, MCP_LITERAL("?"));
    snprintf(out, size, "%s", b.data ? b.data : "?");
    mcp_buf_free(&b);
}
