/* SPDX-License-Identifier: MIT */
/*
 * The rounds of a 2026-07-28 call (basic/patterns/mrtr.mdx). A server may
 * answer tools/call, resources/read or prompts/get with an
 * InputRequiredResult: questions (inputRequests, under keys it chose) and
 * an opaque requestState. The client answers them and sends the request
 * again, with a new id, its params, the answers as inputResponses and the
 * state echoed exactly, until a final result comes.
 *
 * The call stays one request of the engine throughout: one handle (its
 * first round's id), one entry in the tables and on the timer heap, so
 * its two clocks span every round and a cancel, a timeout or the
 * connection's end finds it whatever it is doing. Between rounds nothing
 * of it is on the wire (o->wire is 0): an ending sends no cancel, and an
 * answer or progress naming an earlier round finds nothing. The idle
 * timeout restarts when a round's questions arrive and when the next round
 * is sent; the total limit runs from the first.
 *
 * What the questions mean is the application's (its hook, then
 * mcp_session_input_response per key): the engine keeps the caller's
 * params, the result being answered (its state and questions are read in
 * place), and the answers given so far.
 */
#include <stdint.h>
#include <string.h>

#include "core/mem.h"
#include "session/internal.h"

typedef struct mcp__rounds {
    mcp_input_required_fn hook;
    mcp_request_options opts; /* the caller's, for every round */
    /* The params as the first round wrote them (text: copying bytes costs
     * a fraction of copying a tree, and most calls never have a second
     * round), read back into params when one comes. They follow the
     * struct in its allocation: one allocation per call. */
    const char *params_text;
    size_t params_len;
    mcp_json_doc *params;     /* params_text read, or NULL */
    mcp_message *asked;       /* the InputRequiredResult being answered */
    const mcp_json *requests; /* its inputRequests (an object), or NULL */
    const char *state;        /* its requestState, or NULL */
    size_t state_len;
    mcp_json_doc *answers;    /* root: an object, the answers so far */
    size_t outstanding;       /* questions not answered yet */
    bool in_hook;
} mcp__rounds;

static bool may_have_rounds(const char *method)
{
    return !strcmp(method, "tools/call") || !strcmp(method, "resources/read") ||
           !strcmp(method, "prompts/get");
}

bool mcp__is_input_required(const mcp_json *result)
{
    size_t n;
    const char *t = mcp_json_string(mcp_json_object_get(result, "resultType"), &n);
    return t && n == 14 && !memcmp(t, "input_required", 14);
}

int mcp__rounds_capture(mcp_session *s, outbound *e, const outbound_spec *sp,
                        const mcp_request_options *o, const char *params, size_t len)
{
    if (s->role != MCP_ROLE_CLIENT || !s->era || !s->era->modern || sp->kind != OUT_CALL ||
        !may_have_rounds(sp->method))
        return MCP_OK;
    if (len > SIZE_MAX - sizeof(mcp__rounds) - 1)
        return MCP_ERR_NOMEM;
    mcp__rounds *r = mcp__malloc(&s->mem, sizeof *r + len + 1);
    if (!r)
        return MCP_ERR_NOMEM;
    memset(r, 0, sizeof *r);
    e->rounds = r;
    r->hook = o->on_input_required;
    r->opts = *o;
    if (len) {
        char *text = (char *)(r + 1);
        memcpy(text, params, len);
        text[len] = '\0';
        r->params_text = text;
        r->params_len = len;
    }
    return MCP_OK;
}

/* The params of the next round: the first round's, read back once. What
 * the first round added of its own (its progressToken, the envelope) is
 * written anew by every round, in place of what it reads here. */
static int round_params(mcp_session *s, mcp__rounds *r, const mcp_json **out)
{
    *out = NULL;
    if (!r->params_text)
        return MCP_OK;
    if (!r->params) {
        int rc = mcp_json_parse(r->params_text, r->params_len, NULL, &s->mem, &r->params, NULL);
        if (rc != MCP_OK)
            return rc == MCP_ERR_NOMEM ? rc : MCP_ERR_STATE; /* we wrote it: never */
    }
    *out = mcp_json_doc_root(r->params);
    return MCP_OK;
}

void mcp__rounds_free(mcp_session *s, mcp__rounds *r)
{
    if (!r)
        return;
    mcp_json_doc_free(r->params);
    mcp_json_doc_free(r->answers);
    mcp_message_free(r->asked);
    mcp__free(&s->mem, r);
}

void mcp__rounds_write_members(mcp__jw *w, const mcp__rounds *r)
{
    /* What the server asked for in this round, under its keys; the state
     * as it gave it (mrtr.mdx: echoed exactly, absent when it sent none). */
    if (mcp_json_object_size(r->requests) > 0) {
        mcp__jw_key(w, "inputResponses");
        if (r->answers) {
            mcp__jw_value(w, mcp_json_doc_root(r->answers));
        } else {
            mcp__jw_object(w);
            mcp__jw_object_end(w);
        }
    }
    if (r->state) {
        mcp__jw_key(w, "requestState");
        mcp__jw_stringn(w, r->state, r->state_len);
    }
}

/* o ends here with outcome (o held by the caller). A task call's task is
 * cancelled with it: it would wait for answers that never come. */
static void end_call(mcp_session *s, outbound *o, int outcome)
{
    if (o->task && mcp__task_known(o)) {
        mcp__task_cancel(s, s->now, o, outcome, "its questions could not be answered");
        return;
    }
    mcp__outbound_take(s, o);
    mcp__outbound_end(s, o, outcome, NULL);
}

/* Every question answered: the next round (o held by the caller), or for
 * a task's questions (ext-tasks inputRequests) tasks/update. */
static void send_again(mcp_session *s, uint64_t now, outbound *o)
{
    mcp__rounds *r = o->rounds;
    outbound_spec sp = {.method = o->method,
                        .opts = &r->opts,
                        .kind = OUT_CALL,
                        .cancellable = true,
                        .envelope = true,
                        .round = r};
    int rc;
    if (o->task && mcp__task_known(o))
        rc = mcp__task_send_answers(s, now, o, r);
    else if ((rc = round_params(s, r, &sp.params)) == MCP_OK)
        rc = mcp__outbound_resend(s, now, o, &sp);
    if (rc != MCP_OK) {
        mcp_id id = mcp_id_from_int(o->id);
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_GENERAL, &id, o->method, "outbound", NULL,
                 mcp__age(now, o->start), "the call's next round could not be sent (%s):",
                 mcp_strerror(rc));
        if (!o->ended)
            end_call(s, o, rc);
        return;
    }
    /* Sent: what it carried is not needed any more. */
    mcp_json_doc_free(r->answers);
    r->answers = NULL;
    mcp_message_free(r->asked);
    r->asked = NULL;
    r->requests = NULL;
    r->state = NULL;
}

bool mcp__rounds_task_upgrade(mcp_session *s, uint64_t now, outbound *o, const mcp_message *msg)
{
    mcp__rounds *r = o->rounds;
    if (!r || o->task || o->sending || !r->opts.task_if_required || !s->era ||
        !s->era->task_extension || msg->kind != MCP_MESSAGE_ERROR ||
        msg->error_code != MCP_WIRE_MISSING_CAPABILITY ||
        !mcp_json_object_get(
            mcp_json_object_get(mcp_json_object_get(msg->error_data, "requiredCapabilities"),
                                "extensions"),
            MCP__TASKS_EXTENSION))
        return false;
    /* Once: a second refusal is the call's answer. */
    r->opts.task_if_required = false;
    r->opts.task = true;
    if (mcp__task_capture(s, o, &r->opts) != MCP_OK)
        return false; /* out of memory: the refusal is the answer */
    o->held = true;
    if (o->wire != o->id)
        mcp__map_take(&s->out_ids, (uint64_t)o->wire);
    o->wire = 0;
    mcp_id id = mcp_id_from_int(o->id);
    mcp__log(s, MCP_LOG_INFO, MCP_LOG_EVENT_GENERAL, &id, o->method, "outbound", NULL,
             mcp__age(now, o->start),
             "the server runs it only as a task (-32021): sent again declaring the tasks "
             "extension");
    if (!o->ended && !s->doomed)
        send_again(s, now, o);
    mcp__outbound_release(s, o);
    return true;
}

void mcp__rounds_input_required(mcp_session *s, uint64_t now, outbound *o,
                                const mcp_message *msg)
{
    mcp__rounds *r = o->rounds;
    mcp_id id = mcp_id_from_int(o->id);
    if (o->sending) {
        /* Answered inside its own send (no transport of ours does that):
         * not a round to start from in there. Out of the tables before the
         * log, which is application code. */
        mcp__outbound_take(s, o);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &id, o->method, "outbound", NULL,
                 -1, "input required before the request was even sent");
        mcp__outbound_end(s, o, MCP_ERR_PROTOCOL, NULL);
        return;
    }
    /* Held from here: the log and the hook are application code, and may
     * end the call (or close the session) under us. */
    o->held = true;
    /* This round is over: nothing of the call is on the wire while its
     * questions are answered. */
    if (o->wire != o->id)
        mcp__map_take(&s->out_ids, (uint64_t)o->wire);
    o->wire = 0;
    o->idle_deadline = mcp__deadline(now, o->idle_ms);
    mcp__outbound_rearm(s, o);
    mcp_message_free(r->asked);
    mcp_json_doc_free(r->answers);
    r->answers = NULL;
    r->asked = mcp_message_retain((mcp_message *)msg);
    const mcp_json *reqs = mcp_json_object_get(msg->result, "inputRequests");
    const mcp_json *state = mcp_json_object_get(msg->result, "requestState");
    r->requests = mcp_json_typeof(reqs) == MCP_JSON_OBJECT ? reqs : NULL;
    r->state = mcp_json_string(state, &r->state_len);
    r->outstanding = mcp_json_object_size(r->requests);
    /* Answers given from here on (the log's callback too) are counted;
     * the round goes out below, once. */
    r->in_hook = true;
    mcp__log(s, MCP_LOG_DEBUG, MCP_LOG_EVENT_GENERAL, &id, o->method, "outbound", NULL,
             mcp__age(now, o->start), "input required: %zu question(s)%s", r->outstanding,
             r->state ? ", with a state" : "");
    int rc = MCP_OK;
    if (!o->ended)
        rc = r->hook(o->user_data, (mcp_handle)o->id, msg);
    r->in_hook = false;
    if (!o->ended && rc == MCP_OK) {
        /* The hook took it; what the engine itself needs of it must hold. */
        const char *bad = reqs && !r->requests ? "its inputRequests is not an object"
                          : state && !r->state ? "its requestState is not a string"
                          : !reqs && !state    ? "it has neither inputRequests nor requestState"
                                               : NULL;
        if (bad) {
            mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &id, o->method, "outbound", NULL,
                     -1, "unusable input-required result: %s", bad);
            rc = MCP_ERR_PROTOCOL; /* unless the log ended it already */
        }
    }
    if (!o->ended && rc != MCP_OK)
        end_call(s, o, rc);
    else if (!o->ended && !s->doomed && r->outstanding == 0)
        send_again(s, now, o);
    mcp__outbound_release(s, o);
}

int mcp_session_input_response(mcp_session *s, uint64_t now, mcp_handle h, const char *key,
                               size_t key_len, const mcp_json *result)
{
    outbound *o = h && h <= (mcp_handle)INT64_MAX ? mcp__outbound_get(s, (int64_t)h) : NULL;
    mcp__rounds *r = o ? o->rounds : NULL;
    if (!r || o->wire || !r->asked)
        return MCP_ERR_NOT_FOUND;
    if (!key || mcp_json_typeof(result) != MCP_JSON_OBJECT ||
        !mcp_json_object_getn(r->requests, key, key_len) ||
        (r->answers && mcp_json_object_getn(mcp_json_doc_root(r->answers), key, key_len)))
        return MCP_ERR_INVALID_ARG;
    mcp__session_enter(s);
    s->now = now;
    if (!r->answers && (r->answers = mcp_json_doc_new(&s->mem)) != NULL)
        mcp_json_doc_set_root(r->answers, mcp_json_new_object(r->answers));
    mcp_json *all = r->answers ? mcp_json_doc_root(r->answers) : NULL;
    int rc = all ? mcp_json_object_setn(r->answers, all, key, key_len,
                                        mcp_json_copy(r->answers, result))
                 : MCP_ERR_NOMEM;
    if (rc == MCP_OK)
        rc = mcp_json_doc_error(r->answers);
    if (rc != MCP_OK) {
        rc = MCP_ERR_NOMEM;
        mcp_id id = mcp_id_from_int(o->id);
        bool held = o->held;
        o->held = true;
        mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_GENERAL, &id, o->method, "outbound", NULL,
                 mcp__age(now, o->start), "out of memory keeping an answer: the call ends");
        if (!o->ended)
            end_call(s, o, MCP_ERR_NOMEM);
        if (!held)
            mcp__outbound_release(s, o);
    } else if (--r->outstanding == 0 && !r->in_hook) {
        o->held = true;
        send_again(s, now, o);
        mcp__outbound_release(s, o);
    }
    mcp__session_leave(s);
    return rc;
}
