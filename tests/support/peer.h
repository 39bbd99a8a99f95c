/* SPDX-License-Identifier: MIT */
/*
 * Test harness around one session: records what it sends (decoded), every
 * callback it makes, and its log, under a fake clock.
 */
#ifndef MCP_TEST_PEER_H
#define MCP_TEST_PEER_H

#include <stdbool.h>

#include "failmalloc.h"
#include "mcp/session.h"

#define PEER_MAX 256

typedef struct sent_msg {
    uint64_t route;
    char *line;        /* without the newline */
    mcp_message *msg;  /* decoded */
} sent_msg;

/* The fault-injecting transport of the engine tests: a peer's Nth send
 * fails (mode PEER_FAIL_RETURN: send returns an error, the engine closes
 * itself; mode PEER_FAIL_CLOSE: send closes the session itself, as a
 * transport that tears down under its caller would). Set before peer_init;
 * `fired` counts the faults injected. */
enum { PEER_FAIL_RETURN = 0, PEER_FAIL_CLOSE = 1 };
typedef struct peer_fault {
    int at;   /* 0: no fault */
    int mode;
    int fired;
    int diverged; /* content expectations that no longer held (torture) */
} peer_fault;
extern peer_fault peer_faults;

/* A content expectation: fatal (a cmocka failure) in a normal run; under
 * fault injection, where the conversation legitimately goes another way
 * after the failed write, it is counted and the test goes on, so that it
 * still reaches its end (and frees everything). Invariants (exactly once,
 * nothing after a settle) stay fatal in both. */
bool peer_expect(bool ok, const char *what, const char *file, int line);
#define PEER_EXPECT(c) peer_expect((c), #c, __FILE__, __LINE__)

/* One of our requests, as the peer tracks it: callbacks come with it, so a
 * callback for a request whose sending failed is caught. */
typedef struct peer_req {
    struct peer *p;
    bool failed; /* mcp_session_request returned an error */
    bool called; /* its response callback ran */
} peer_req;

typedef struct peer {
    mcp_session *s;
    uint64_t now;
    int sends;      /* send callbacks so far */
    int fail_at;    /* from peer_faults at init */
    int fail_mode;
    peer_req reqs[PEER_MAX];
    int nreqs;

    sent_msg sent[PEER_MAX];
    int nsent, taken;

    mcp_handle requests[PEER_MAX]; /* on_request, in order */
    mcp_message *request_msgs[PEER_MAX];
    int nrequests;

    mcp_handle cancels[PEER_MAX]; /* on_cancel */
    char *cancel_reasons[PEER_MAX];
    int ncancels;
    uint64_t routes_ended[PEER_MAX]; /* on_route_ended */
    int nroutes_ended;
    int listens_opened, listens_ended; /* on_listen */
    mcp_handle listen_last;            /* the last one told */
    size_t listen_last_uris;           /* its URIs (0: none) */

    mcp_handle responses[PEER_MAX]; /* outbound endings */
    int outcomes[PEER_MAX];
    mcp_message *response_msgs[PEER_MAX];
    int nresponses;

    mcp_handle progress_handles[PEER_MAX];
    double progress_values[PEER_MAX], progress_totals[PEER_MAX];
    int nprogress;

    int notifications;
    int initialized;

    mcp_log_record logs[PEER_MAX];
    char *log_texts[PEER_MAX];
    char *log_reasons[PEER_MAX];
    char *log_methods[PEER_MAX];
    int nlogs;

    /* Hooks for reentrancy tests. */
    void (*on_request_hook)(struct peer *p, mcp_handle h, const mcp_message *m);
    void (*on_cancel_hook)(struct peer *p, mcp_handle h);
    void (*on_response_hook)(struct peer *p, mcp_handle h, int outcome);
} peer;

/* A peer in `role`; opts may be NULL (defaults) and its role is overridden. */
void peer_init(peer *p, mcp_role role, const mcp_session_options *opts);
void peer_init_mem(peer *p, mcp_role role, const mcp_session_options *opts, const mcp_mem *mem);
/* As peer_init_mem, returning mcp_session_new's code instead of asserting. */
int peer_try_init_mem(peer *p, mcp_role role, const mcp_session_options *opts, const mcp_mem *mem);
void peer_free(peer *p);

/* Feed one message (text) at the peer's current time. Returns the session's
 * result code. */
int peer_feed(peer *p, const char *json);

/* The next message the session sent that the test has not looked at yet,
 * or NULL. */
const mcp_message *peer_next(peer *p);
/* The i-th message the session sent (NULL, or nothing under fault
 * injection, when it sent fewer). */
const mcp_message *peer_sent(const peer *p, int i);
/* Number of sent messages not yet looked at. */
int peer_unread(const peer *p);

/* Advance the fake clock and tick. */
void peer_advance(peer *p, uint64_t ms);

/* Server: run initialize + notifications/initialized (version "v"). */
void peer_server_ready(peer *p, const char *version);
/* Client: run the initialize handshake with a scripted server answer. */
void peer_client_ready(peer *p);

/* Issue a request with the recording callbacks. */
int peer_request(peer *p, const char *method, const char *params_json,
                 const mcp_request_options *o, mcp_handle *h);

/* Index of the recorded response for h, or -1. */
int peer_response_index(const peer *p, mcp_handle h);
/* The response that ended h (NULL, or nothing under fault injection, when
 * none did or it ended locally). */
const mcp_message *peer_response_msg(const peer *p, mcp_handle h);
/* Number of log records with this event. */
int peer_count_logs(const peer *p, mcp_log_event ev);
/* The last log record with this event, or NULL (an empty record under
 * fault injection). */
const mcp_log_record *peer_last_log(const peer *p, mcp_log_event ev);

/* Assertions on decoded messages. */
bool msg_is_result_for(const mcp_message *m, int64_t id);
bool msg_is_error_for(const mcp_message *m, int64_t id, int64_t code);
bool msg_is_method(const mcp_message *m, const char *method);

#endif
