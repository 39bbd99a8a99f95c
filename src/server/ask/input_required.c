/* SPDX-License-Identifier: MIT */
/*
 * 2026-07-28 multi round-trip requests (basic/patterns/mrtr.mdx): the server
 * never asks the client directly; a handler's question ends its call with
 * an InputRequiredResult, and the client's retry brings the answer. The
 * handler runs again from the start and finds its answers: those of this
 * round in inputResponses, those of earlier rounds in requestState, which
 * the client echoes unchanged. The state carries only the answers the
 * handler took.
 *
 * requestState is attacker-controlled input (the spec says so): it carries
 * the answers so far, sealed for the request and its caller with an
 * expiry (server/core/request_state.c). State that fails the check is
 * refused before the handler runs: a client cannot forge earlier answers, replay them past
 * the expiry, carry them to another request or hand them to another
 * user. Answers a client gives before being asked (inputResponses without
 * a state, or keys not asked) are used when the handler asks for them and
 * ignored otherwise (mrtr.mdx: unrecognized information is ignored).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/ask/ask.h"

const mcp_json *mcp__call_client_caps(const mcp_call *c)
{
    return mcp__request_client_caps(c->req.msg);
}

/* The answers of a state this server sealed for this request, or why not. */
static const char *open_state(mcp_call *c, const char *state, size_t n, mcp_json_doc **out)
{
    const char *why = mcp__request_state_open(c->req.conn, c->req.msg, state, n, out);
    if (!why && mcp_json_typeof(mcp_json_object_get(mcp_json_doc_root(*out), "a")) !=
                    MCP_JSON_OBJECT) {
        mcp_json_doc_free(*out);
        *out = NULL;
        why = "requestState is not one this server gave";
    }
    return why;
}

bool mcp__mrtr_begin(mcp_call *c)
{
    const mcp_json *params = c->req.msg->params;
    const mcp_json *state = mcp_json_object_get(params, "requestState");
    const mcp_json *responses = mcp_json_object_get(params, "inputResponses");
    const char *why = NULL;
    if (state && mcp_json_typeof(state) != MCP_JSON_STRING)
        why = "requestState must be a string";
    else if (responses && mcp_json_typeof(responses) != MCP_JSON_OBJECT)
        why = "inputResponses must be an object";
    mcp_json_doc *sealed = NULL;
    size_t n;
    const char *text = mcp_json_string(state, &n);
    if (!why && text)
        why = open_state(c, text, n, &sealed);
    if (!why && (sealed || responses)) {
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *answers = d ? mcp_json_new_object(d) : NULL;
        const mcp_json *from[2] = {sealed ? mcp_json_object_get(mcp_json_doc_root(sealed), "a")
                                          : NULL,
                                   responses};
        /* This round's answers after the earlier ones: a key answered again
         * takes the new answer. An answer must be an object (a result). */
        for (int k = 0; answers && k < 2; k++)
            for (size_t i = 0; i < mcp_json_object_size(from[k]); i++) {
                const char *key;
                size_t kn;
                const mcp_json *v = mcp_json_object_at(from[k], i, &key, &kn);
                if (mcp_json_typeof(v) == MCP_JSON_OBJECT)
                    mcp_json_object_setn(d, answers, key, kn, mcp_json_copy(d, v));
            }
        if (answers)
            mcp_json_doc_set_root(d, answers);
        if (!answers || mcp_json_doc_error(d) != MCP_OK) {
            mcp_json_doc_free(d);
            why = "out of memory";
        } else {
            c->answers = d;
        }
    }
    mcp_json_doc_free(sealed);
    if (!why)
        return true;
    char text_why[200];
    snprintf(text_why, sizeof text_why, "Invalid params: %s", why);
    mcp_call_reply_error(c, MCP_WIRE_INVALID_PARAMS, text_why);
    return false;
}

static bool named_in(const mcp_ask_question *batch, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (batch[i].key && !strcmp(batch[i].key, key))
            return true;
    return false;
}

const char *mcp__ask_key(mcp_call *c, const char *key, char automatic[16],
                         const mcp_ask_question *batch, size_t n)
{
    c->asks_made++;
    if (!c->keys_asked) {
        c->keys_asked = mcp_json_doc_new(NULL);
        if (!c->keys_asked)
            return NULL;
        mcp_json_doc_set_root(c->keys_asked, mcp_json_new_object(c->keys_asked));
    }
    mcp_json *seen = (mcp_json *)mcp_json_doc_root(c->keys_asked);
    for (unsigned k = c->asks_made; !key; k++) {
        snprintf(automatic, 16, "q%u", k);
        if (!mcp_json_object_get(seen, automatic) && !named_in(batch, n, automatic))
            key = automatic;
    }
    mcp_json_object_set(c->keys_asked, seen, key, mcp_json_new_bool(c->keys_asked, true));
    return mcp_json_doc_error(c->keys_asked) == MCP_OK ? key : NULL;
}

int mcp__mrtr_given(mcp_call *c, const char *key, mcp_ask_answer *answer)
{
    const mcp_json *given = c->answers ? mcp_json_object_get(mcp_json_doc_root(c->answers), key)
                                       : NULL;
    if (!given)
        return MCP_ERR_NOT_FOUND;
    /* Kept for the next rounds: only what the handler asked for, so a
     * client cannot fill the state with answers nobody wanted. */
    if (!c->taken) {
        c->taken = mcp_json_doc_new(NULL);
        if (c->taken)
            mcp_json_doc_set_root(c->taken, mcp_json_new_object(c->taken));
    }
    if (c->taken)
        mcp_json_object_set(c->taken, (mcp_json *)mcp_json_doc_root(c->taken), key,
                            mcp_json_copy(c->taken, given));
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *copy = d ? mcp_json_copy(d, given) : NULL;
    if (copy)
        mcp_json_doc_set_root(d, copy);
    if (!c->taken || mcp_json_doc_error(c->taken) != MCP_OK || !copy ||
        mcp_json_doc_error(d) != MCP_OK) {
        mcp_json_doc_free(d);
        return MCP_ERR_NOMEM;
    }
    answer->result = d;
    return MCP_OK;
}

int mcp__answer_keep(mcp_call *c, const char *key, const mcp_json *result)
{
    if (!c->answers) {
        c->answers = mcp_json_doc_new(NULL);
        if (!c->answers)
            return MCP_ERR_NOMEM;
        mcp_json_doc_set_root(c->answers, mcp_json_new_object(c->answers));
    }
    mcp_json_object_set(c->answers, (mcp_json *)mcp_json_doc_root(c->answers), key,
                        mcp_json_copy(c->answers, result));
    return mcp_json_doc_error(c->answers) == MCP_OK ? MCP_OK : MCP_ERR_NOMEM;
}

int mcp__mrtr_ask(mcp_call *c, const char *key, const char *method, const mcp_json *params,
                  mcp_ask_answer *answer)
{
    int rc = mcp__mrtr_given(c, key, answer);
    if (rc != MCP_ERR_NOT_FOUND)
        return rc;
    /* One question per key in a round (an automatic key is another). */
    if (c->asked && mcp_json_object_get(mcp_json_doc_root(c->asked), key))
        return MCP_ERR_INVALID_ARG;
    /* The spec: no question the client did not declare it can answer. */
    if (!mcp__ask_declared(mcp__call_client_caps(c), c->req.version, method, params))
        return MCP_ERR_STATE;
    if (!c->asked) {
        c->asked = mcp_json_doc_new(NULL);
        if (c->asked)
            mcp_json_doc_set_root(c->asked, mcp_json_new_object(c->asked));
    }
    mcp_json_doc *d = c->asked;
    if (!d)
        return MCP_ERR_NOMEM;
    mcp_json *q = mcp_json_new_object(d);
    mcp_json_object_set(d, q, "method", mcp_json_new_string(d, method));
    mcp_json_object_set(d, q, "params", params ? mcp_json_copy(d, params) : mcp_json_new_object(d));
    mcp_json_object_set(d, (mcp_json *)mcp_json_doc_root(d), key, q);
    return mcp_json_doc_error(d) == MCP_OK ? MCP_ERR_INPUT_REQUIRED : MCP_ERR_NOMEM;
}

/* The state: the answers taken so far, sealed for this request. */
static int seal(mcp_call *c, mcp_buf *out)
{
    mcp_buf members;
    mcp_buf_init(&members, 0, NULL);
    int rc = mcp_buf_append(&members, MCP_LITERAL("\"a\":"));
    if (rc == MCP_OK)
        rc = c->taken ? mcp_json_write(mcp_json_doc_root(c->taken), &members)
                      : mcp_buf_append(&members, MCP_LITERAL("{}"));
    if (rc == MCP_OK)
        rc = mcp__request_state_seal(c->req.conn, c->req.msg, members.data, members.len, out);
    mcp_buf_free(&members);
    return rc;
}

int mcp__mrtr_finish(mcp_call *c)
{
    if (!c->asked || !mcp_json_object_size(mcp_json_doc_root(c->asked)))
        return MCP_ERR_NOT_FOUND;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    static const char head[] = "{\"resultType\":\"input_required\",\"inputRequests\":";
    int rc = mcp_buf_append(&b, head, sizeof head - 1);
    if (rc == MCP_OK)
        rc = mcp_json_write(mcp_json_doc_root(c->asked), &b);
    if (rc == MCP_OK)
        rc = mcp_buf_append(&b, MCP_LITERAL(",\"requestState\":\""));
    if (rc == MCP_OK)
        rc = seal(c, &b); /* Base64 and '.': nothing to escape */
    if (rc == MCP_OK)
        rc = mcp_buf_append(&b, MCP_LITERAL("\"}"));
    return mcp__call_end_buffer(c, rc, &b);
}
