/* SPDX-License-Identifier: MIT */
/*
 * The gateway (mcp_server_options.upstream_argv; mcp proxy --http): the
 * requests for tools, resources, prompts and completions are served by a
 * stdio MCP server run as a child process, each a request of our own to it,
 * made by a client-role session driven on the server's loop (upstream.c).
 * A 2025 session gets a child of its own, started at its first such
 * request and ended with the session; 2026-07-28 requests share one child,
 * started at the first and again after it died. The engines translate the
 * eras: the child is spoken to in a 2025 revision (the session's own for a
 * 2025 client, the latest otherwise), and what it answers a 2026-07-28
 * request gets that revision's envelope from our server session. A
 * 2026-07-28 call that may ask runs on a child of its own and is held
 * across input-required rounds (rounds.c). A 2026-07-28 tools/call to a
 * child that runs tasks may become a task of ours (upstream.c, "Tasks").
 *
 * A request cancelled here (the client's cancel, its HTTP stream gone under
 * 2026-07-28, its session's end) is cancelled on the child
 * (notifications/cancelled with the child's id); progress comes back when
 * the client gave a token; a child that dies answers what it had in flight
 * at once, naming its exit status, and a 2025 session whose child serves no
 * more ends (its client initializes again: a new session, a new child). A
 * request for which no child can run (as many run as may, the spawn
 * failed) is refused, over HTTP with 503 and Retry-After, and the next
 * tries again. A 2025 child's questions (sampling,
 * elicitation, roots) are asked of its session's client, on the stream of
 * the call they belong to when one call is in flight; its notifications
 * (list changes, resource updates, logs) go to that client. The shared
 * child's list changes and resource updates go out as the server's own
 * news: to 2026-07-28 listens, and as list_changed to 2025 sessions too
 * (each then lists again, from its own child).
 *
 * Threads: the loop thread, all of it.
 */
#ifndef MCP_SERVER_GATEWAY_H
#define MCP_SERVER_GATEWAY_H

#include "server/methods/methods.h"
#include "transport/child.h"

extern const mcp__feature mcp__gateway_feature;

typedef struct upstream upstream;
typedef struct forward forward;
typedef struct question question;
typedef struct held held;

/* The feature's server state. */
typedef struct gateway {
    mcp_server *server;
    char **argv;       /* owned; NULL: not a gateway */
    unsigned max_children;
    unsigned children; /* running or ending */
    upstream *all;     /* every upstream not yet freed */
    upstream *shared;  /* 2026-07-28's; NULL until the first request */
    bool stopping;
    /* The resource URIs 2026-07-28 listens receive updates for, each with
     * how many listens name it: the shared child is subscribed to each. */
    struct watched *watched;
    size_t nwatched, capwatched;
    /* 2026-07-28 calls held across their rounds (rounds.c), and what
     * names them in a requestState: this run's epoch (random) and a
     * count. */
    held *rounds;
    uint64_t rounds_made;
    char epoch[17];
    /* The tools the shared child listed as run only as tasks (2025-11-25
     * execution.taskSupport "required"), learned from the lists it
     * answered (at most 1024 names, owned): a 2026-07-28 call of one goes
     * as a task call whether or not its client declared the extension. */
    char **task_only;
    size_t ntask_only;
} gateway;

typedef struct watched {
    char *uri;
    unsigned listens;
} watched;

/* A request forwarded: ours to the client, the child's handle for it. */
struct forward {
    mcp__request req; /* first */
    upstream *up;     /* NULL once its child request ended */
    mcp_handle child_handle;
    forward *next, *prev; /* up's */
    held *held;           /* a round's request: the call it continues */
    /* A 2026-07-28 tools/call to a child that runs tasks (2025-11-25): sent
     * as a task call (the child's task followed to its end by the
     * session; made_task once the child made one, and then a task of
     * ours), the other form tried once when the child refuses one -32601. */
    bool as_task, made_task, other_tried;
};

/* A child and the session that speaks to it. */
struct upstream {
    gateway *gw;
    conn *owner;          /* a 2025 session's connection; NULL: shared */
    mcp__driver driver;
    bool driver_open;
    mcp__child *child;
    bool connected;
    bool opening;         /* within upstream_open */
    bool gone;            /* it serves no more: why says so */
    bool over;            /* the conversation ended */
    bool closed;          /* by us: the session went, or a stop */
    bool released;        /* the driver's release asked */
    bool torn;            /* its handles closing: freed with the last */
    bool exited;
    bool reaped;          /* its exit callback ran (exited: maybe only seen) */
    bool input_ended;     /* its output ended */
    int status;
    char why[240];
    forward *requests;    /* in flight */
    question *questions;  /* the child's, asked of owner's client */
    uv_timer_t kill_timer; /* SIGTERM, then SIGKILL, after ending */
    bool timer_open;
    int kills;
    int pgid;             /* its process group (its own: the spawn's pid) */
    /* An asking child's (rounds.c): the client capabilities it was told,
     * its pool's key; NULL for the shared child and a 2025 session's. It
     * runs one call at a time, held. */
    mcp_json_doc *caps;
    char *caller; /* the credential of the calls it serves (owned; NULL: none) */
    held *held;
    upstream *next, *prev; /* gw->all */
};

/* gateway.c: the refusal to come for h is for want of a child (over HTTP:
 * 503 with Retry-After). */
void gateway_refuse_busy(conn *c, mcp_handle h);

/* upstream.c ------------------------------------------------------------------- */

/* A child for owner (NULL: the shared one), spawned and being connected
 * (version: the revision to ask for; client_info, client_caps: the
 * client's, or NULL). Requests may be forwarded at once: they wait for
 * the connection. NULL only out of memory; a child that could not start
 * is returned gone, saying why. */
upstream *upstream_open(gateway *gw, conn *owner, const char *version,
                        const mcp_json *client_info, const mcp_json *client_caps);
/* Ask up for the updates of uri (on) or no more: resources/subscribe or
 * resources/unsubscribe, its answer logged when refused. Nothing when up
 * serves no more. */
void upstream_subscribe(upstream *up, const char *uri, bool on);
/* Whether up's child runs tools/call as tasks: a 2025-11-25 child that
 * declared tasks.requests.tools.call (until its initialize answers, the
 * capabilities the server was given: the proxy's probe of the command). */
bool upstream_runs_tasks(const upstream *up);
/* The client's request r, forwarded, becomes a task of ours now that the
 * child made one (mcp__features_request_become_task, logged when the caps
 * or memory refuse it); MCP_ERR_STATE for a client that did not declare
 * the extension (it gets the call's end). r may have been answered
 * within: a write that failed. */
int upstream_become_task(mcp__request *r);
/* Whether the 2026-07-28 request msg declares the tasks extension. */
bool gateway_declares_tasks(const mcp_message *msg);
/* Whether the tools/call msg names a tool the shared child listed as
 * run only as a task. */
bool gateway_task_only(const gateway *gw, const mcp_message *msg);
/* Forward f's request (method, params as the client sent them) to up. */
int upstream_forward(upstream *up, forward *f);
/* Send up msg's request (its params as the child gets them: no progress
 * token, envelope, requestState or inputResponses of the client's, nor a
 * modern (2026-07-28) request's task), with progress asked for when
 * progress; cb, progress_cb as
 * mcp_session_request's; with on_task, a tools/call sent as a task call
 * (mcp_request_options.task, on_task its hook). MCP_OK with *sent, or why
 * not. */
typedef void (*upstream_task_fn)(void *ud, mcp_handle h, const mcp_json *task);
int upstream_send(upstream *up, const mcp_message *msg, bool modern, bool progress,
                  mcp_response_fn cb, mcp_progress_fn progress_cb, upstream_task_fn on_task,
                  void *ud, mcp_handle *sent);
/* The child's answer (outcome and m as a response callback's) to the
 * request q says, as its client gets it: a->text is the caller's to
 * free. */
typedef struct upstream_asked {
    const mcp_server *server;
    const char *method;
    const char *version; /* the client's revision */
    bool child_task;     /* sent as a task call: the child's task is not named */
} upstream_asked;
typedef struct upstream_answer {
    answer_kind kind;
    int64_t code;
    mcp_buf text;
} upstream_answer;
void upstream_outcome(const upstream_asked *q, const upstream *up, int outcome,
                      const mcp_message *m, upstream_answer *a);
/* A copy in d of the object obj (NULL: an empty one) without its member
 * skip (NULL: none) and without _meta's related-task, a _meta left empty
 * going too: a task the child made is never named to a client. Owned by
 * d, valid until it is freed; NULL out of memory (d's error says so). */
mcp_json *upstream_copy_unrelated(mcp_json_doc *d, const mcp_json *obj, const char *skip);
/* r ended with a (whose text is freed). */
void upstream_answer_give(mcp__request *r, upstream_answer *a);
/* The client's request f settled before its child answered: cancel it
 * there with reason. */
void upstream_cancel(forward *f, const char *reason);
/* Close up (its session went, or the server stops): what it has in flight
 * is answered, its questions withdrawn, its input closed; it is killed if
 * it has not exited within the grace, and freed once it has. */
void upstream_close(upstream *up, const char *why);
/* The loop closes: close every upstream left. Their handles keep the
 * loop's last run going until each child has exited (the grace, SIGTERM,
 * SIGKILL: 4 s at most), and then are freed. */
void upstream_close_all(gateway *gw);

/* rounds.c: 2026-07-28 calls whose child asks the client ------------------------ */

/* Whether the 2026-07-28 request msg goes through rounds: a call that may
 * ask (tools/call, prompts/get, resources/read) from a client that
 * declared a question it can answer, or that continues a call. */
bool rounds_wanted(const mcp_message *msg);
/* Serve f's request through rounds (a child of its own, or the call its
 * requestState continues); c is its connection, h its handle. */
void round_request(gateway *gw, conn *c, mcp_handle h, forward *f);
/* f's request, a round's, was cancelled (its client went): so is the
 * call on its child. */
void round_cancelled(forward *f, const char *reason);
/* up's child asks (h: its request). */
void round_question(upstream *up, mcp_handle h, const mcp_message *msg);
/* A log message of r's child (params: notifications/message's): to the
 * request of the round open, true; false when none is (or the message is
 * not one). */
bool round_log(held *r, const mcp_json *params);
/* up's child withdrew its question h (it cancelled it). */
void round_question_withdrawn(upstream *up, mcp_handle h);
/* up closes under r, its call: r's request is answered why, r ended. */
void round_closing(held *r, const char *why);
/* Every child runs (max_children): close one that can go, so that the
 * next try finds room (the refusal's Retry-After): an idle asking child,
 * else the shared child when idle (nothing in flight, no listen), else the
 * child of the call that has waited longest for its client (past a minute,
 * or a quarter of the state's time): that call ends. */
void rounds_make_room(gateway *gw);
/* The server stops: every call held, and every idle asking child, ended. */
void rounds_close_all(gateway *gw);

#endif
