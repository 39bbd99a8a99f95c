/* SPDX-License-Identifier: MIT */
/*
 * mcp check-cancel: whether a server it did not write honours cancellation
 * (check_cancel.c: the checks and the report; check_peer.c: the messages
 * kept and the raw stdio conversation; check_http.c: the raw Streamable
 * HTTP conversation, a POST per message, each response stream its own).
 */
#ifndef MCP_TOOLS_CHECK_CANCEL_H
#define MCP_TOOLS_CHECK_CANCEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/mcp.h"

/* A message the server wrote: when it arrived, its JSON (NULL: not JSON)
 * and, over HTTP, the response stream it came on (-1 on stdio). */
typedef struct check_msg {
    uint64_t at_us;
    mcp_json_doc *doc;
    const mcp_json *root;
    int stream;
} check_msg;

typedef struct check_peer check_peer;
typedef bool (*check_match)(const check_msg *m, void *ud);

uint64_t check_now_us(void);

/* The server argv started with pipes (its stderr to ours with trace, else
 * discarded). MCP_OK, MCP_ERR_SPAWN (why), MCP_ERR_IO, MCP_ERR_NOMEM. */
int check_peer_start(check_peer **out, char **argv, bool trace, char *why, size_t n);
/* SIGINT, SIGTERM and SIGHUP (unless ignored) end the server under check
 * (SIGKILL to its group) before the checker dies of them. */
void check_peer_on_signals(void);
/* The same conversation with the Streamable HTTP endpoint url, each
 * header ("Name: value") on every request. MCP_OK or MCP_ERR_NOMEM;
 * whether the server can be reached shows at the first message. */
int check_peer_start_http(check_peer **out, const char *url, char *const *headers,
                          size_t nheaders, bool trace, char *why, size_t n);
/* One message written (stdio: a line; HTTP: a POST, its response stream
 * read as it comes): MCP_OK or MCP_ERR_CLOSED. */
int check_peer_send(check_peer *p, const char *line);
/* The same, *stream getting the POST's response stream (-1 on stdio). */
int check_peer_post(check_peer *p, const char *line, int *stream);
/* A message that came, kept (check_http.c hands them over so). */
void check_peer_keep(check_peer *p, int stream, const char *text, size_t len);
/* Whether this is an HTTP conversation. */
bool check_peer_http(const check_peer *p);
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
/* Whether it was given up for sending too much (then gone too). */
bool check_peer_flooded(const check_peer *p);
/* Its input closed, a second to end, then TERM, then KILL; freed. */
void check_peer_stop(check_peer *p);

/* The verdicts (check_report.c) ------------------------------------------ */

typedef enum { CHECK_PASS, CHECK_FAIL, CHECK_WARN, CHECK_SKIP } check_verdict;

typedef struct check_result {
    const char *id, *level, *rule; /* static strings */
    check_verdict v;
    char detail[300];
} check_result;

#define CHECK_RESULTS_MAX 32
typedef struct check_results {
    check_result list[CHECK_RESULTS_MAX];
    size_t n;
} check_results;

/* One verdict kept (past CHECK_RESULTS_MAX, dropped), its detail
 * formatted. */
void check_add(check_results *r, const char *id, const char *level, const char *rule,
               check_verdict v, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void check_addv(check_results *r, const char *id, const char *level, const char *rule,
                check_verdict v, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
/* The exit status they make (1: a FAIL, or with strict a WARN; else 0),
 * and how many failed and warned. */
int check_results_exit(const check_results *r, bool strict, size_t *fails, size_t *warns);
/* They as a JSON array of {id, verdict, level, rule, detail}, made in d. */
mcp_json *check_results_json(const check_results *r, mcp_json_doc *d);
/* They as the table's rows on stdout (colours only on a terminal). */
void check_results_table(const check_results *r);

/* The run against a server (check_cancel.c), shared with the checks of
 * other files (check_tasks.c) ------------------------------------------- */

typedef struct check_run {
    check_peer *p;
    const char *version;
    bool modern;         /* 2026-07-28: the envelope, no ping, no session */
    int stream;          /* the response stream of the last request (HTTP) */
    int64_t next_id;
    char *tool;          /* the long tool */
    mcp_json_doc *args;  /* its arguments (root: an object) */
    mcp_json_doc *short_args; /* arguments for a run of seconds (NULL: args) */
    bool args_given;     /* --args */
    bool tool_tasks;     /* its execution.taskSupport is optional or required */
    bool server_tasks;   /* 2025-11-25: tasks.requests.tools.call and tasks.cancel;
                            2026-07-28: the tasks extension */
    bool declare_tasks;  /* 2026-07-28: requests declare the tasks extension */
    /* The rules checked, in the revision spoken. */
    char rule_cancel[96], rule_progress[96], rule_ids[96], rule_drop[96];
    bool progress;       /* it reported progress when asked */
    check_results results;
    double *latency_ms;
    size_t nlatency;
} check_run;

/* What check_wanted looks for (ud): a response to id, any response, or a
 * progress notification for token. */
typedef struct check_want {
    int64_t id;
    bool any_id;
    const char *token;
} check_want;

bool check_wanted(const check_msg *m, void *ud);
/* root is a response to the numeric id. */
bool check_response_to(const mcp_json *root, int64_t id);
/* A request sent: params (an object's text), with the progress token in
 * its _meta when token, and under 2026-07-28 the envelope. id < 0: the
 * next one. Its id; its response stream (HTTP) goes to r->stream. */
int64_t check_request(check_run *r, int64_t id, const char *method, const char *params,
                      const char *token);
/* One verdict, its detail formatted. */
void check_report(check_run *r, const char *id, const char *level, const char *rule,
                  check_verdict v, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* check_tasks.c: tasks/cancel as 2025-11-25 says (the task cancelled
 * before the answer, for good; a terminal or unknown task refused), or as
 * the tasks extension of 2026-07-28 does (an empty acknowledgment; an
 * unknown task an error), with the long tool run as a task; SKIP when the
 * server or the tool offers no tasks. */
void check_tasks(check_run *r);

/* check_listen.c: a subscriptions/listen opened and cancelled, under
 * 2026-07-28 (acknowledged first, nothing of it after the cancel, the
 * server's cancels naming only it, the server usable after). */
void check_listen(check_run *r);

/* The other direction (check_client.c): a stdio server of version
 * (2025-11-25 or 2026-07-28; NULL: 2025-11-25) played to the
 * client command (argv, NULL-terminated), each scenario watched at most
 * wait_ms; self is this program (for the relay's command). The exit
 * status. relay: check-cancel --relay SOCKET. */
int check_cancel_client(char **argv, const char *self, const char *version, uint64_t wait_ms,
                        bool json, bool strict, bool trace);
int check_cancel_relay(const char *path);

/* HTTP only (check_http.c) ------------------------------------------------ */

typedef struct check_http check_http;
check_http *check_peer_http_of(check_peer *p);
int check_http_open(check_http **out, check_peer *p, const char *url, char *const *headers,
                    size_t nheaders, bool trace, char *why, size_t n);
/* A POST of line; *stream its response stream. */
int check_http_post(check_http *h, const char *line, int *stream);
/* A GET resuming after the event last_id (Last-Event-ID); *stream its. */
int check_http_resume(check_http *h, const char *last_id, int *stream);
/* The stream's connection closed by us, mid-response. */
void check_http_drop(check_http *h, int stream);
/* Read what comes, up to ms; false once nothing is left open and the
 * server could not be reached. */
bool check_http_pump(check_http *h, int ms);
/* A stream's HTTP status (0: none yet), whether it is an event stream,
 * whether it ended, its last event id ("" when none). */
int check_http_status(const check_http *h, int stream);
bool check_http_sse(const check_http *h, int stream);
bool check_http_ended(const check_http *h, int stream);
const char *check_http_last_id(const check_http *h, int stream);
/* Whether no connection could be made (why: the last transfer error). */
bool check_http_unreachable(const check_http *h, const char **why);
/* The revision spoken from now on (MCP-Protocol-Version on every request). */
void check_http_set_version(check_http *h, const char *version);
/* line is "Name: value", a field-name token before the colon, no CR or LF,
 * at most 1000 bytes. */
bool check_http_header_ok(const char *line);
/* A 2025 session ended with DELETE; every transfer closed; freed. */
void check_http_close(check_http *h);

#endif
