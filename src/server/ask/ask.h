/* SPDX-License-Identifier: MIT */
/*
 * Asking the client in the middle of a call (mcp_call_ask): 2025 requests
 * of the server's on the call's route, 2026-07-28 input-required rounds
 * with a sealed requestState, and URL-mode elicitation with its ids and
 * -32042. One feature (mcp__ask_feature), attached through the core's
 * hooks; nothing outside this folder needs more than that name.
 */
#ifndef MCP_SERVER_ASK_H
#define MCP_SERVER_ASK_H

#include "server/methods/methods.h"

/* input_required.c (2026-07-28, basic/patterns/mrtr.mdx) ----------------------------- */

/* Before a 2026-07-28 call's handler runs: its answers so far (a verified
 * requestState's, then inputResponses). False when the state fails its
 * check: the call is answered -32602 then. */
bool mcp__mrtr_begin(mcp_call *c);
/* The key an ask goes under: key, or the next automatic one ("q1",
 * "q2", ... in the order asked) written in automatic, skipping the keys
 * asked before in this run and those batch (n questions asked together)
 * names: the same in every round of a call. Counts the ask; NULL when out
 * of memory. */
struct mcp_ask_question;
const char *mcp__ask_key(mcp_call *c, const char *key, char automatic[16],
                         const struct mcp_ask_question *batch, size_t n);
/* The answer to key the client gave already (this round's, an earlier
 * round's, or a task's earlier question's), copied into answer->result:
 * MCP_OK, MCP_ERR_NOT_FOUND (none), MCP_ERR_NOMEM. */
int mcp__mrtr_given(mcp_call *c, const char *key, mcp_ask_answer *answer);
/* Loop thread, while the handler waits: keep result (copied) as the
 * answer to key, for the handler asking it again. */
int mcp__answer_keep(mcp_call *c, const char *key, const mcp_json *result);
/* An ask under 2026-07-28 (key named): the answer given, or the question
 * noted (MCP_ERR_INPUT_REQUIRED). */
int mcp__mrtr_ask(mcp_call *c, const char *key, const char *method, const mcp_json *params,
                  mcp_ask_answer *answer);
/* The call ends without a result while questions are noted: MCP_OK and
 * the InputRequiredResult sent; MCP_ERR_NOT_FOUND when none were. */
int mcp__mrtr_finish(mcp_call *c);
/* The capabilities c's request declared (2026-07-28: its envelope's). */
const mcp_json *mcp__call_client_caps(const mcp_call *c);


/* ask.c: the 2025 requests, and the feature ------------------------------------- */

extern const mcp__feature mcp__ask_feature;

/* The URL elicitation ids a connection keeps for their completion. */
#define MCP__MAX_URL_IDS 64

/* A connection's asking (the feature's state). */
typedef struct ask_state {
    struct ask *in_flight; /* loop thread: asks sent, of every call */
    struct ask *posed;     /* loop thread: 2026 task questions kept by their tasks */
    struct ask *held;      /* loop thread: 2025 task questions waiting for a
                              tasks/result to go with */
    atomic_uint waiting;   /* its calls waiting on the client */
    char **url_ids;        /* URL elicitations its client was given, oldest
                              first (url_elicitation.c), loop thread: grown
                              as needed (most connections have none), at
                              most MCP__MAX_URL_IDS */
    unsigned n_url_ids, url_ids_room;
} ask_state;

/* url_elicitation.c ------------------------------------------------------------------ */

/* Loop thread: the client was given this URL
 * elicitation (2025-11-25: its elicitationId is kept for
 * mcp_server_elicitation_complete), or told to complete data's (-32042). */
void mcp__url_elicitation_note(ask_state *st, const char *version, const mcp_json *params);
void mcp__url_required_note(ask_state *st, const char *version, const mcp_json *data);
void mcp__url_elicitations_free(ask_state *st);

/* Why params of a URL-mode elicitation/create are not valid under version,
 * or NULL. */
const char *mcp__url_elicitation_check(const mcp_json *params, const char *version);
/* Why data is not that of a -32042 under version, or NULL. */
const char *mcp__url_required_check(const char *version, const mcp_json *data);

#endif
