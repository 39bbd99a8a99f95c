/* SPDX-License-Identifier: MIT */
/*
 * The methods a server answers from what it offers: tools/call, the
 * lists, resources/read, prompts/get, completion/complete and the 2025
 * resources/subscribe, each a feature in its own file, and the call
 * context (mcp_call) that the handlers of the first four answer through.
 * Features above (ask/, tasks/) reach a call through this header.
 */
#ifndef MCP_SERVER_METHODS_H
#define MCP_SERVER_METHODS_H

#include "server/core/core.h"

/* The features (listed in src/server/features.c). */
extern const mcp__feature mcp__lists_feature, mcp__tools_call_feature,
    mcp__resources_read_feature, mcp__prompts_get_feature, mcp__completion_feature,
    mcp__subscriptions_feature;

/* The call context (call.c) ----------------------------------------------------- */

/* What a call answers: a tool's call or one of the other handled requests. */
typedef enum { CALL_TOOL, CALL_READ, CALL_PROMPT, CALL_COMPLETE } call_kind;

struct mcp_call {
    mcp__request req; /* first: a request pointer is a call pointer */
    call_kind kind;
    unsigned flags;
    /* What it calls, kept alive by req.snapshot: the tool (CALL_TOOL), or
     * the resource, template or prompt; its handler is theirs (complete
     * for CALL_COMPLETE). Every request in flight holds a call: its fields
     * are packed (a held request's memory is a measured figure). */
    union {
        const tool *tool;
        const entry *entry;
    };
    mcp__pool *pool; /* the pool a blocking handler runs on (it outlives the call) */
    const mcp_json *args;
    mcp_json_doc *own_args; /* a template read's variables */
    /* 2026-07-28 questions: the answers known (an object by key), those
     * the handler took (what the next requestState carries), the questions
     * noted this round (inputRequests), how many were asked. */
    mcp_json_doc *answers, *taken, *asked;
    /* The keys asked in this run so far (an object, key -> true): an
     * automatic key is none of them (nor a key its batch names). */
    mcp_json_doc *keys_asked;
    double last_progress;
    unsigned asks_made;
    bool sent_progress;
};

/* What the call is about: the tool's or prompt's name, the entry's key. */
static inline const char *mcp__call_subject(const mcp_call *c)
{
    return c->kind == CALL_TOOL ? c->tool->name : c->entry->key;
}

/* Loop thread: a call of request h (snap: referenced, taken over either
 * way). NULL when out of memory: h answered -32603 then. */
mcp_call *mcp__call_new(conn *cn, mcp_handle h, const mcp_message *msg, registry *snap,
                        call_kind kind);
/* The call a request is (every request a handler answers is one). */
static inline mcp_call *mcp__call_of(mcp__request *r)
{
    return (mcp_call *)(void *)((char *)r - offsetof(mcp_call, req));
}
/* Run c's handler: now (loop thread) or on the pool (MCP_TOOL_BLOCKING). */
void mcp__call_run(mcp_call *c);
/* End c with the result text (len bytes of a JSON object) or the -32603
 * that says why it could not be made (rc). */
int mcp__call_end_buffer(mcp_call *c, int rc, mcp_buf *b);
/* Whether c answers a request of the 2026-07-28 revision. */
bool mcp__call_modern(const mcp_call *c);

/* tools/call (tools_call.c), for a feature that takes it over ---------------------- */

/* The tool request h calls, checked (params.name, params.arguments an
 * object, the tool in the snapshot, the client capabilities it needs),
 * in *snap its snapshot (referenced) and in *args its arguments (NULL:
 * none); NULL when h was answered with the error instead. */
const tool *mcp__tools_call_find(conn *cn, mcp_handle h, const mcp_message *msg,
                                 registry **snap, const mcp_json **args);
/* Call t for request h (snap taken over): the call made, then `made` (if
 * not NULL) given it before anything can answer it (false: drop the call
 * unanswered: made has answered h or the call is cancelled), then the
 * arguments checked against the tool's inputSchema (a refusal is the
 * call's answer) and its handler run. */
void mcp__tools_call_start(conn *cn, mcp_handle h, const mcp_message *msg, registry *snap,
                           const tool *t, const mcp_json *args,
                           bool (*made)(mcp_call *c, void *arg), void *arg);

/* Shared by the methods' files -------------------------------------------------- */

/* params.uri: a string of UTF-8 without NUL, at most 64 KiB; else h is
 * answered -32602 and NULL returned. */
const char *mcp__uri_param(mcp_session *ss, mcp_handle h, const mcp_message *msg, size_t *n);
/* Why a handler's result is not one of its method's (resources/read,
 * prompts/get, completion/complete), or NULL. */
const char *mcp__read_result_problem(const mcp_json *result);
const char *mcp__prompt_result_problem(const mcp_json *result);
const char *mcp__completion_result_problem(const mcp_json *result);
/* Append a 2026-07-28 read's caching hints, the server's (comma: a member
 * comes before them): "ttlMs":N,"cacheScope":"...". MCP_OK or the buffer's
 * error. */
int mcp__read_hints(const mcp_call *c, bool comma, mcp_buf *b);
/* The shape a reply_result of c's kind must have; NULL when it has it. */
const char *mcp__result_problem(const mcp_call *c, const mcp_json *result);

#endif
