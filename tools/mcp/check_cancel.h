/* SPDX-License-Identifier: MIT */
/*
 * mcp check-cancel: whether a server it did not write honours cancellation
 * (check_cancel.c: the checks and the report; check_peer.c: the raw stdio
 * conversation).
 */
#ifndef MCP_TOOLS_CHECK_CANCEL_H
#define MCP_TOOLS_CHECK_CANCEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/mcp.h"

/* A line the server wrote: when it arrived, and its JSON (NULL: not JSON). */
typedef struct check_msg {
    uint64_t at_us;
    mcp_json_doc *doc;
    const mcp_json *root;
} check_msg;

typedef struct check_peer check_peer;
typedef bool (*check_match)(const check_msg *m, void *ud);

uint64_t check_now_us(void);

/* The server argv started with pipes (its stderr to ours with trace, else
 * discarded). MCP_OK, MCP_ERR_SPAWN (why), MCP_ERR_IO, MCP_ERR_NOMEM. */
int check_peer_start(check_peer **out, char **argv, bool trace, char *why, size_t n);
/* One line written (a newline added): MCP_OK or MCP_ERR_CLOSED. */
int check_peer_send(check_peer *p, const char *line);
/* The first message from index from on that match takes, waiting up to
 * timeout_ms for more; NULL when none came (or the server's output ended).
 * *index (may be NULL) gets its index. */
const check_msg *check_peer_wait(check_peer *p, size_t from, check_match match, void *ud,
                                 uint64_t timeout_ms, size_t *index);
/* Read what comes for ms. */
void check_peer_drain(check_peer *p, uint64_t ms);
size_t check_peer_count(const check_peer *p);
const check_msg *check_peer_msg(const check_peer *p, size_t i);
/* Whether the server's output ended. */
bool check_peer_gone(const check_peer *p);
/* Its input closed, a second to end, then TERM, then KILL; freed. */
void check_peer_stop(check_peer *p);

#endif
