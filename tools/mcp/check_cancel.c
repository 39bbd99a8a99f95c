/* SPDX-License-Identifier: MIT */
/*
 * mcp check-cancel [--protocol V] [--tool NAME [--args JSON]] [--trials N]
 *                  [--json] [--strict] [--trace]
 *                  (-- COMMAND [ARG...] | --url URL [--header 'Name: value']...)
 *
 * Runs a battery against a server, on stdio or Streamable HTTP, and says,
 * rule by rule, what it does when asked to stop. Each check is PASS, FAIL
 * (a MUST broken), WARN (a SHOULD broken) or SKIP (with why), and names its
 * rule and revision. The era is the one asked for (--protocol), else the
 * one the server speaks, found as the library's client finds it. Under
 * 2025 a cancel is notifications/cancelled (posted, over HTTP, where a
 * dropped connection must not cancel); under 2026-07-28 it is the same on
 * stdio and the closed response stream over HTTP, and the server never
 * sends one (no listen is opened).
 *
 * Exit: 0 nothing failed (with --strict, no WARN either), 1 something
 * did, 2 usage, 3 the server could not be reached.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check_cancel.h"
#include "cli.h"
#include "text.h"

uint64_t check_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000;
}

/* How long a check watches for what should not come. */
#define QUIET_MS 1500
/* Progress this long after the cancel is the server's, not the pipe's. */
#define PROGRESS_GRACE_US 250000

void check_report(check_run *r, const char *id, const char *level, const char *rule,
                  check_verdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    check_addv(&r->results, id, level, rule, v, fmt, ap);
    va_end(ap);
}

/* Matching what came ------------------------------------------------------------------- */


static bool is_response(const mcp_json *root)
{
    return mcp_json_object_get(root, "id") && !mcp_json_object_get(root, "method");
}

bool check_response_to(const mcp_json *root, int64_t id)
{
    int64_t got;
    const mcp_json *v = mcp_json_object_get(root, "id");
    return is_response(root) && mcp_json_typeof(v) == MCP_JSON_NUMBER &&
           mcp_json_get_int64(v, &got) == MCP_OK && got == id;
}

static const char *progress_token(const mcp_json *root)
{
    const char *m = mcp_json_string(mcp_json_object_get(root, "method"), NULL);
    if (!m || strcmp(m, "notifications/progress"))
        return NULL;
    const char *t = mcp_json_string(
        mcp_json_object_get(mcp_json_object_get(root, "params"), "progressToken"), NULL);
    return t ? t : "";
}

bool check_wanted(const check_msg *m, void *ud)
{
    const check_want *w = ud;
    if (w->token) {
        const char *t = progress_token(m->root);
        if (t && !strcmp(t, w->token))
            return true;
    }
    return w->any_id ? is_response(m->root) : check_response_to(m->root, w->id);
}

/* Sending ------------------------------------------------------------------------------ */

/* A request: params (an object's text) and, in its _meta, the progress
 * token when token and under 2026-07-28 the envelope every request
 * carries (basic/index.mdx, _meta). id < 0: the next one. Its response
 * stream (HTTP) goes to r->stream. */
int64_t check_request(check_run *r, int64_t id, const char *method, const char *params,
                      const char *token)
{
    if (id < 0)
        id = r->next_id++;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    char head[160];
    int k = snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\",\"params\":{",
                     (long long)id, method);
    mcp_buf_append(&b, head, (size_t)k);
    bool meta = r->modern || token;
    if (meta) {
        mcp_buf_append(&b, "\"_meta\":{", 9);
        if (token) {
            mcp_buf_append(&b, "\"progressToken\":", 16);
            mcp_json_write_string(token, strlen(token), &b);
        }
        if (r->modern) {
            k = snprintf(head, sizeof head,
                         "%s\"io.modelcontextprotocol/protocolVersion\":\"%s\","
                         "\"io.modelcontextprotocol/clientCapabilities\":{%s},",
                         token ? "," : "", r->version,
                         r->declare_tasks
                             ? "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}"
                             : "");
            mcp_buf_append(&b, head, (size_t)k);
            k = snprintf(head, sizeof head,
                         "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"mcp check-cancel\","
                         "\"version\":\"%s\"}",
                         mcp_version());
            mcp_buf_append(&b, head, (size_t)k);
        }
        mcp_buf_append(&b, "}", 1);
    }
    const char *rest = params + 1; /* past its '{' */
    while (*rest == ' ')
        rest++;
    if (meta && *rest != '}')
        mcp_buf_append(&b, ",", 1);
    mcp_buf_append(&b, rest, strlen(rest));
    mcp_buf_append(&b, "}", 1);
    if (b.len)
        check_peer_post(r->p, b.data, &r->stream);
    mcp_buf_free(&b);
    return id;
}

static int64_t request(check_run *r, const char *method, const char *params_json)
{
    return check_request(r, -1, method, params_json, NULL);
}

/* A request any server answers at once: ping, gone in 2026-07-28. */
static const char *probe_method(const check_run *r)
{
    return r->modern ? "tools/list" : "ping";
}

/* A tools/call of the long tool (args: its arguments, NULL: r->args), with
 * a progress token when token. */
static int64_t call_tool(check_run *r, const char *token, int64_t id, const mcp_json_doc *args)
{
    mcp_buf params;
    mcp_buf_init(&params, 0, NULL);
    mcp_buf_append(&params, "{\"name\":", 8);
    mcp_json_write_string(r->tool, strlen(r->tool), &params);
    mcp_buf_append(&params, ",\"arguments\":", 13);
    mcp_json_write(mcp_json_doc_root(args ? args : r->args), &params);
    mcp_buf_append(&params, "}", 1);
    id = params.len ? check_request(r, id, "tools/call", params.data, token) : -1;
    mcp_buf_free(&params);
    return id;
}

static int64_t call_long(check_run *r, const char *token, int64_t id)
{
    return call_tool(r, token, id, NULL);
}

static void cancel(check_run *r, const char *request_id_json)
{
    char line[256];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
             "{\"requestId\":%s,\"reason\":\"mcp check-cancel\"}}",
             request_id_json);
    check_peer_send(r->p, line);
}

/* The cancel of a call in flight: its stream closed under 2026-07-28
 * over HTTP (the cancel there), else notifications/cancelled. */
static void stop_call(check_run *r, int64_t id, int stream)
{
    if (r->modern && check_peer_http(r->p)) {
        check_http_drop(check_peer_http_of(r->p), stream);
        return;
    }
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)id);
    cancel(r, text);
}

/* A ping (2026-07-28: tools/list) answered within 5 s. */
static bool answers(check_run *r)
{
    int64_t id = request(r, probe_method(r), "{}");
    check_want w = {.id = id};
    return check_peer_wait(r->p, 0, check_wanted, &w, 5000, NULL) != NULL;
}

/* Responses that answer nothing we asked (a reply to a notification):
 * any response from index from on whose id is not one of ours pending. */
static size_t stray_responses(check_run *r, size_t from, int64_t lo, int64_t hi)
{
    size_t n = 0;
    for (size_t i = from; i < check_peer_count(r->p); i++) {
        const check_msg *m = check_peer_msg(r->p, i);
        const mcp_json *root = m->root;
        if (!root || !is_response(root))
            continue;
        /* Over HTTP a notification the server cannot accept gets an HTTP
         * error, its body MAY be an id-less error (basic/transports). */
        if (m->stream >= 0 && check_http_status(check_peer_http_of(r->p), m->stream) / 100 != 2)
            continue;
        const mcp_json *id = mcp_json_object_get(root, "id");
        int64_t v;
        if (mcp_json_typeof(id) != MCP_JSON_NUMBER || mcp_json_get_int64(id, &v) != MCP_OK ||
            v < lo || v >= hi)
            n++;
    }
    return n;
}

/* The long tool ------------------------------------------------------------------------ */

/* Arguments for a tool to run long: a duration-like property large, a
 * step delay moderate, a count many; other required ones a plain value. */
static mcp_json_doc *long_arguments(const mcp_json *tool, bool *looks_long, bool short_run)
{
    const mcp_json *schema = mcp_json_object_get(tool, "inputSchema");
    const mcp_json *props = mcp_json_object_get(schema, "properties");
    const mcp_json *required = mcp_json_object_get(schema, "required");
    *looks_long = false;
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *args = d ? mcp_json_new_object(d) : NULL;
    if (!args) {
        mcp_json_doc_free(d);
        return NULL;
    }
    mcp_json_doc_set_root(d, args);
    for (size_t i = 0; i < mcp_json_object_size(props); i++) {
        const char *k;
        size_t kn;
        const mcp_json *p = mcp_json_object_at(props, i, &k, &kn);
        const char *type = mcp_json_string(mcp_json_object_get(p, "type"), NULL);
        bool needed = false;
        for (size_t j = 0; j < mcp_json_array_size(required); j++) {
            size_t rn;
            const char *rq = mcp_json_string(mcp_json_array_at(required, j), &rn);
            needed |= rq && rn == kn && !memcmp(rq, k, kn);
        }
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(kn < 63 ? kn : 63), k);
        bool number = type && (!strcmp(type, "number") || !strcmp(type, "integer"));
        double v = 0;
        if (number && (strstr(name, "second") || !strcmp(name, "duration") || !strcmp(name, "sec")))
            v = short_run ? 2 : 30, *looks_long = true;
        else if (number && (strstr(name, "ms") || strstr(name, "delay") || strstr(name, "interval")))
            v = 100, *looks_long = true;
        else if (number && (!strcmp(name, "n") || strstr(name, "step") || strstr(name, "count")))
            v = short_run ? 10 : 300, *looks_long = true;
        else if (!needed)
            continue;
        double most = 0, least = 0; /* the schema's bounds are kept */
        if (number && mcp_json_get_double(mcp_json_object_get(p, "maximum"), &most) == MCP_OK &&
            v > most)
            v = most;
        if (number && mcp_json_get_double(mcp_json_object_get(p, "minimum"), &least) == MCP_OK &&
            v < least)
            v = least;
        mcp_json *value = number                               ? mcp_json_new_int(d, (int64_t)v)
                          : type && !strcmp(type, "boolean")   ? mcp_json_new_bool(d, false)
                          : type && !strcmp(type, "string")    ? mcp_json_new_string(d, "check")
                          : type && !strcmp(type, "array")     ? mcp_json_new_array(d)
                                                               : mcp_json_new_object(d);
        mcp_json_object_setn(d, args, k, kn, value);
    }
    return d;
}

/* The tool named, or the first that looks long (a duration, a delay or
 * a count among its parameters), one whose description speaks of
 * progress first (what progress does after a cancel is then seen too). */
static bool find_tool(check_run *r, const char *named, const char *args_json, char *why, size_t n)
{
    int64_t id = request(r, "tools/list", "{}");
    check_want w = {.id = id};
    const check_msg *m = check_peer_wait(r->p, 0, check_wanted, &w, 10000, NULL);
    const mcp_json *tools = m ? mcp_json_object_get(mcp_json_object_get(m->root, "result"), "tools")
                              : NULL;
    if (!tools) {
        snprintf(why, n, "the server listed no tools");
        return false;
    }
    for (size_t pass = 0, i = 0; pass < 2 && !r->tool; pass++, i = 0)
    for (; i < mcp_json_array_size(tools) && !r->tool; i++) {
        const mcp_json *t = mcp_json_array_at(tools, i);
        const char *name = mcp_json_string(mcp_json_object_get(t, "name"), NULL);
        const char *about = mcp_json_string(mcp_json_object_get(t, "description"), NULL);
        if (!name || (named && strcmp(name, named)) ||
            (!named && pass == 0 && !(about && strstr(about, "progress"))))
            continue;
        bool looks_long;
        mcp_json_doc *args = long_arguments(t, &looks_long, false);
        if (!args) {
            snprintf(why, n, "out of memory");
            return false;
        }
        if (named && args_json) {
            mcp_json_doc_free(args);
            args = NULL;
            if (mcp_json_parse(args_json, strlen(args_json), NULL, NULL, &args, NULL) != MCP_OK ||
                mcp_json_typeof(mcp_json_doc_root(args)) != MCP_JSON_OBJECT) {
                mcp_json_doc_free(args);
                snprintf(why, n, "--args is not a JSON object");
                return false;
            }
        } else if (!named && !looks_long) {
            mcp_json_doc_free(args);
            continue;
        }
        r->tool = strdup(name);
        r->args = args;
        const char *support = mcp_json_string(
            mcp_json_object_get(mcp_json_object_get(t, "execution"), "taskSupport"), NULL);
        r->tool_tasks = support && (!strcmp(support, "optional") || !strcmp(support, "required"));
        /* The same, to end within seconds (the dropped stream's resume
         * waits for its result); given arguments are used as they are. */
        r->args_given = named && args_json;
        if (!r->args_given)
            r->short_args = long_arguments(t, &looks_long, true);
    }
    if (!r->tool)
        snprintf(why, n, named ? "the server lists no tool %s" : "no tool looks long-running "
                                                                  "(give one with --tool)",
                 named ? named : "");
    return r->tool != NULL;
}

/* The checks ------------------------------------------------------------------------------ */

/* One cancel of the long tool, watched: its latency (ms, cancel to the
 * last message for it; 0 when nothing came after), whether a response came
 * after it, and the last progress after it. False when the call ended
 * before it could be cancelled. */
typedef struct watched {
    int64_t id;
    bool responded, progressed_late, had_progress, sse;
    int stream;
    double quiet_ms;
    uint64_t cancel_at;
} watched;

static bool cancel_one(check_run *r, watched *out, int64_t reuse_id)
{
    memset(out, 0, sizeof *out);
    char token[32];
    int64_t id = reuse_id >= 0 ? reuse_id : r->next_id;
    snprintf(token, sizeof token, "check-%lld", (long long)id);
    size_t from = check_peer_count(r->p);
    id = call_long(r, token, reuse_id);
    int stream = r->stream;
    out->id = id;
    /* Its first progress, or a moment. */
    check_want first = {.id = id, .token = token};
    size_t at;
    const check_msg *m = check_peer_wait(r->p, from, check_wanted, &first, 300, &at);
    if (m && check_response_to(m->root, id))
        return false; /* over already */
    out->had_progress = m != NULL;
    out->stream = stream;
    out->sse = check_peer_http(r->p) && check_http_sse(check_peer_http_of(r->p), stream);
    out->cancel_at = check_now_us();
    stop_call(r, id, stream);
    check_peer_drain(r->p, QUIET_MS);
    uint64_t last = 0;
    for (size_t i = from; i < check_peer_count(r->p); i++) {
        const check_msg *x = check_peer_msg(r->p, i);
        if (!x->root || x->at_us < out->cancel_at)
            continue;
        const char *t = progress_token(x->root);
        bool mine = check_response_to(x->root, id) || (t && !strcmp(t, token));
        if (!mine)
            continue;
        last = x->at_us;
        if (check_response_to(x->root, id))
            out->responded = true;
        else if (x->at_us > out->cancel_at + PROGRESS_GRACE_US)
            out->progressed_late = true;
    }
    out->quiet_ms = last ? (double)(last - out->cancel_at) / 1000.0 : 0;
    return true;
}

/* After a cancel: a new request answered, and one reusing the cancelled
 * id (a client that lost track) too. */
static void check_after(check_run *r, int64_t id, const char *what)
{
    bool usable = answers(r);
    check_report(r, "cancel.usable-after", "MUST", "JSON-RPC 2.0 (every request answered)",
           usable ? CHECK_PASS : CHECK_FAIL, "a %s after %s %s", probe_method(r), what,
           usable ? "was answered" : check_peer_gone(r->p) ? "found the server gone"
                                                            : "was not answered within 5 s");
    size_t from = check_peer_count(r->p);
    check_request(r, id, probe_method(r), "{}", NULL);
    check_want again = {.id = id};
    bool ok = check_peer_wait(r->p, from, check_wanted, &again, 5000, NULL) != NULL;
    check_report(r, "cancel.id-reused", "SHOULD", r->rule_ids, ok ? CHECK_PASS : CHECK_WARN,
           ok ? "a request reusing the cancelled id was answered"
              : "a request reusing the cancelled id was not answered");
}

/* A short run of the long tool, with a progress token: its id, its
 * response stream, the index its messages start from, and the first of
 * them (a progress or its answer) within ms, or NULL. */
static const check_msg *start_short(check_run *r, uint64_t ms, int64_t *id, int *stream, size_t *from)
{
    char token[32];
    snprintf(token, sizeof token, "check-%lld", (long long)r->next_id);
    *from = check_peer_count(r->p);
    *id = call_tool(r, token, -1, r->short_args);
    *stream = r->stream;
    check_want first = {.id = *id, .token = token};
    return check_peer_wait(r->p, *from, check_wanted, &first, ms, NULL);
}

/* 2026-07-28 over HTTP: the cancel is the closed stream. What the server
 * then does with the work cannot be seen from outside (the one stream that
 * would show it is gone, and 2026 has no other for it): said so. A new
 * call and the id again must work. */
static void check_disconnect(check_run *r)
{
    static const char rule[] = "2026-07-28 basic/transports/streamable-http (Cancellation)";
    watched w;
    if (!cancel_one(r, &w, -1)) {
        check_report(r, "cancel.disconnect-stops", "MUST", rule, CHECK_SKIP,
               "%s answered before its stream could be closed", r->tool);
        return;
    }
    r->progress = w.had_progress;
    check_report(r, "cancel.disconnect-stops", "MUST", rule, CHECK_SKIP,
           "the stream of %s closed%s; whether the server stopped the work is not observable "
           "from outside: the closed stream was the only place it would show",
           r->tool, w.had_progress ? " after its first progress" : "");
    check_after(r, w.id, "closing a call's stream");
    /* A new call of the same tool (a short run) starts: a progress or its
     * answer comes, or at least its response headers. A tool that reports
     * nothing while it runs, given arguments to run long, shows nothing
     * either way within the wait: said so. */
    int64_t id;
    int stream;
    size_t from;
    bool started = start_short(r, 5000, &id, &stream, &from) != NULL ||
                   (check_http_status(check_peer_http_of(r->p), stream) / 100 == 2 &&
                    !check_http_ended(check_peer_http_of(r->p), stream));
    stop_call(r, id, stream);
    if (!started && !r->progress && r->args_given)
        check_report(r, "cancel.new-call-after", "MUST", "JSON-RPC 2.0 (every request answered)", CHECK_SKIP,
               "a new call of %s with --args sent nothing within 5 s, as it did before: whether it "
               "runs cannot be seen", r->tool);
    else
        check_report(r, "cancel.new-call-after", "MUST", "JSON-RPC 2.0 (every request answered)",
               started ? CHECK_PASS : CHECK_FAIL,
               started ? "a new call of %s after the closed stream was served"
                       : "a new call of %s after the closed stream got nothing within 5 s",
               r->tool);
}

static void check_cancel_stops(check_run *r, int trials)
{
    if (r->modern && check_peer_http(r->p)) {
        check_disconnect(r);
        return;
    }
    watched w;
    if (!cancel_one(r, &w, -1)) {
        check_report(r, "cancel.stops-response", "SHOULD", r->rule_cancel, CHECK_SKIP,
               "%s answered before it could be cancelled", r->tool);
        return;
    }
    r->progress = w.had_progress;
    if (w.responded)
        check_report(r, "cancel.stops-response", "SHOULD", r->rule_cancel, CHECK_WARN,
               "a response to the cancelled request came (the last message %.0f ms after the "
               "cancel)", w.quiet_ms);
    else
        check_report(r, "cancel.stops-response", "SHOULD", r->rule_cancel, CHECK_PASS,
               "no response in the %d ms after the cancel", QUIET_MS);
    if (!w.had_progress)
        check_report(r, "cancel.stops-progress", "SHOULD", r->rule_cancel, CHECK_SKIP,
               "%s sent no progress before the cancel", r->tool);
    else
        check_report(r, "cancel.stops-progress", "SHOULD", r->rule_cancel,
               w.progressed_late ? CHECK_WARN : CHECK_PASS,
               w.progressed_late ? "progress kept coming after the cancel (the last %.0f ms after)"
                                 : "progress stopped (the last %.0f ms after the cancel)",
               w.quiet_ms);
    check_after(r, w.id, "the cancel");
    /* Latency over trials. */
    r->latency_ms = calloc((size_t)trials + 1, sizeof *r->latency_ms);
    if (!r->latency_ms)
        return;
    r->latency_ms[r->nlatency++] = w.quiet_ms;
    for (int t = 1; t < trials; t++) {
        watched x;
        if (cancel_one(r, &x, -1))
            r->latency_ms[r->nlatency++] = x.quiet_ms;
    }
}

/* 2025 over HTTP: a dropped connection is not a cancel (basic/transports:
 * "Disconnection SHOULD NOT be interpreted as the client cancelling its
 * request"); with event ids the server offers resumability, and the result
 * then comes on a GET with Last-Event-ID. A short run of the tool (the
 * long one would keep us waiting), unless --args said how to run it. */
static void check_drop(check_run *r)
{
    const char *rule = r->rule_drop;
    check_http *h = check_peer_http_of(r->p);
    int64_t id;
    int stream;
    size_t from;
    const check_msg *m = start_short(r, 3000, &id, &stream, &from);
    if (!m || check_response_to(m->root, id)) {
        check_report(r, "http.drop-not-cancel", "SHOULD", rule, CHECK_SKIP,
               m ? "%s answered before its stream could be dropped"
                 : "%s sent nothing within 3 s to drop its stream after", r->tool);
        stop_call(r, id, stream);
        check_peer_drain(r->p, 300);
        return;
    }
    if (!check_http_sse(h, stream) || !*check_http_last_id(h, stream)) {
        check_report(r, "http.drop-not-cancel", "SHOULD", rule, CHECK_SKIP,
               check_http_sse(h, stream)
                   ? "the server's events carry no ids: it offers no resumability (a MAY), so a "
                     "dropped stream's result cannot be fetched again"
                   : "the server answered with application/json: no event stream to resume");
        stop_call(r, id, stream);
        check_peer_drain(r->p, 300);
        return;
    }
    char last[256];
    snprintf(last, sizeof last, "%s", check_http_last_id(h, stream));
    uint64_t dropped = check_now_us();
    check_http_drop(h, stream);
    check_peer_drain(r->p, 200);
    int again;
    check_http_resume(h, last, &again);
    check_want res = {.id = id};
    uint64_t wait_ms = r->args_given ? 35000 : 15000;
    /* Until the result, the resumed stream's end, or wait_ms. */
    uint64_t until = check_now_us() + wait_ms * 1000;
    m = NULL;
    while (!m && check_now_us() < until) {
        m = check_peer_wait(r->p, from, check_wanted, &res, 200, NULL);
        if (!m && check_http_ended(h, again)) {
            m = check_peer_wait(r->p, from, check_wanted, &res, 0, NULL);
            break;
        }
    }
    if (m)
        check_report(r, "http.drop-not-cancel", "SHOULD", rule, CHECK_PASS,
               "the result came on the resumed stream (GET, Last-Event-ID), %.0f ms after the "
               "drop", (double)(m->at_us - dropped) / 1000.0);
    else if (check_http_status(h, again) / 100 != 2)
        check_report(r, "http.drop-not-cancel", "SHOULD", rule, CHECK_WARN,
               "the server gave event ids but answered the resume with HTTP %d",
               check_http_status(h, again));
    else
        check_report(r, "http.drop-not-cancel", "SHOULD", rule, CHECK_WARN,
               "no result on the resumed stream (it %s): the dropped connection seems to "
               "have cancelled the call", check_http_ended(h, again) ? "ended without it"
                                                                     : "stayed silent");
    check_http_drop(h, again);
    stop_call(r, id, -1);
    check_peer_drain(r->p, 200);
}

/* 2026-07-28: a server sends notifications/cancelled only to end a
 * subscriptions/listen (the checker opens none). */
static void check_no_server_cancel(check_run *r)
{
    size_t n = 0;
    for (size_t i = 0; i < check_peer_count(r->p); i++) {
        const char *m =
            mcp_json_string(mcp_json_object_get(check_peer_msg(r->p, i)->root, "method"), NULL);
        n += m && !strcmp(m, "notifications/cancelled");
    }
    check_report(r, "cancel.server-sends-none", "MUST NOT", "2026-07-28 basic/patterns/cancellation",
           n ? CHECK_FAIL : CHECK_PASS,
           n ? "the server sent %zu notifications/cancelled, with no listen open"
             : "the server sent no notifications/cancelled (%zu message(s) seen)",
           n ? n : check_peer_count(r->p));
}

/* Cancels that name nothing running: ignored, never answered. */
static void check_ignored(check_run *r)
{
    /* A finished request's id. */
    int64_t done = request(r, probe_method(r), "{}");
    check_want w = {.id = done};
    check_peer_wait(r->p, 0, check_wanted, &w, 5000, NULL);
    int64_t lo = r->next_id;
    size_t from = check_peer_count(r->p);
    static const struct {
        const char *id, *what;
    } odd[] = {{"987654321", "an unknown id"},
               {NULL, "a finished request"},
               {"{}", "an object as requestId"},
               {"null", "a null requestId"}};
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)done);
        cancel(r, odd[i].id ? odd[i].id : text);
    }
    check_peer_send(r->p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\"}");
    check_peer_send(r->p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":7}");
    bool gone_before = check_peer_gone(r->p);
    bool usable = answers(r);
    check_peer_drain(r->p, 300);
    size_t strays = stray_responses(r, from, lo, r->next_id);
    if (gone_before)
        check_report(r, "cancel.ignored-no-reply", "MUST", "JSON-RPC 2.0 (notifications get no response)",
               CHECK_SKIP, "the server was gone before these cancels: nothing to judge");
    else if (strays)
        check_report(r, "cancel.ignored-no-reply", "MUST", "JSON-RPC 2.0 (notifications get no response)",
               CHECK_FAIL, "%zu response(s) to cancels of an unknown id, a finished request or "
               "malformed params", strays);
    else
        check_report(r, "cancel.ignored-no-reply", "MUST", "JSON-RPC 2.0 (notifications get no response)",
               CHECK_PASS, "cancels of an unknown id, a finished request and malformed params drew no "
               "response");
    check_report(r, "cancel.ignored-usable", "MUST", "JSON-RPC 2.0 (every request answered)",
           usable ? CHECK_PASS : gone_before ? CHECK_SKIP : CHECK_FAIL,
           usable ? "the server answered after them"
           : gone_before ? "the server was gone before these cancels"
           : check_peer_gone(r->p) ? "the server was gone after them"
                                   : "the server stopped answering after them");
}

/* A string id is not the number of the same digits. */
static void check_id_type(check_run *r)
{
    if (r->modern && check_peer_http(r->p)) {
        check_report(r, "cancel.id-type", "MUST", "JSON-RPC 2.0 (id equality)", CHECK_SKIP,
               "2026-07-28 over HTTP cancels by closing the stream: no cancel names an id");
        return;
    }
    if (!r->progress) {
        check_report(r, "cancel.id-type", "MUST", "JSON-RPC 2.0 (id equality)", CHECK_SKIP,
               "%s reports no progress: whether it went on cannot be seen", r->tool);
        return;
    }
    int64_t id = r->next_id;
    char token[32];
    snprintf(token, sizeof token, "check-%lld", (long long)id);
    size_t from = check_peer_count(r->p);
    call_long(r, token, -1);
    check_want first = {.id = id, .token = token};
    check_peer_wait(r->p, from, check_wanted, &first, 2000, NULL);
    char text[32];
    snprintf(text, sizeof text, "\"%lld\"", (long long)id);
    uint64_t wrong_at = check_now_us();
    cancel(r, text); /* the string: names no request of ours */
    check_peer_drain(r->p, 800);
    bool went_on = false, answered = false;
    for (size_t i = from; i < check_peer_count(r->p); i++) {
        const check_msg *x = check_peer_msg(r->p, i);
        const char *t = progress_token(x->root);
        if (x->root && x->at_us > wrong_at + PROGRESS_GRACE_US && t && !strcmp(t, token))
            went_on = true;
        if (x->root && x->at_us > wrong_at && check_response_to(x->root, id))
            answered = true;
    }
    snprintf(text, sizeof text, "%lld", (long long)id);
    cancel(r, text); /* the right one, to end it */
    check_peer_drain(r->p, 300);
    check_report(r, "cancel.id-type", "MUST", "JSON-RPC 2.0 (id equality)",
           went_on && !answered ? CHECK_PASS : CHECK_FAIL,
           went_on && !answered ? "a cancel naming \"%lld\" (a string) left request %lld (a number) "
                                  "running"
                                : "a cancel naming \"%lld\" (a string) stopped request %lld (a number)",
           (long long)id, (long long)id);
}

/* Progress: increasing, and only for tokens given. */
static void check_progress(check_run *r)
{
    /* A call without a token, cancelled after a moment. */
    size_t from = check_peer_count(r->p);
    int64_t id = call_long(r, NULL, -1);
    int stream = r->stream;
    check_peer_drain(r->p, 500);
    stop_call(r, id, stream);
    check_peer_drain(r->p, 300);
    size_t unasked = 0;
    for (size_t i = from; i < check_peer_count(r->p); i++) {
        const char *t = progress_token(check_peer_msg(r->p, i)->root);
        if (t && strncmp(t, "check-", 6))
            unasked++;
    }
    if (unasked)
        check_report(r, "progress.only-with-token", "MUST", r->rule_progress, CHECK_FAIL,
               "%zu progress notification(s) for a token no request gave", unasked);
    else
        check_report(r, "progress.only-with-token", "MUST", r->rule_progress, CHECK_PASS,
               "no progress for a request without a token");
    /* Every token's values increasing. */
    size_t bad = 0, seen = 0;
    for (size_t i = 0; i < check_peer_count(r->p); i++) {
        const check_msg *a = check_peer_msg(r->p, i);
        const char *t = progress_token(a->root);
        if (!t || !*t)
            continue;
        seen++;
        double pa = 0, pb = 0;
        mcp_json_get_double(mcp_json_object_get(mcp_json_object_get(a->root, "params"), "progress"),
                            &pa);
        for (size_t j = i + 1; j < check_peer_count(r->p); j++) {
            const check_msg *b = check_peer_msg(r->p, j);
            const char *u = progress_token(b->root);
            if (!u || strcmp(u, t))
                continue;
            mcp_json_get_double(
                mcp_json_object_get(mcp_json_object_get(b->root, "params"), "progress"), &pb);
            if (!(pb > pa))
                bad++;
            break;
        }
    }
    if (!seen)
        check_report(r, "progress.increases", "MUST", r->rule_progress, CHECK_SKIP,
               "no progress seen");
    else if (bad)
        check_report(r, "progress.increases", "MUST", r->rule_progress, CHECK_FAIL,
               "%zu progress value(s) not above the one before", bad);
    else
        check_report(r, "progress.increases", "MUST", r->rule_progress, CHECK_PASS,
               "every value above the one before");
}

/* The report ----------------------------------------------------------------------------- */

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(double *v, size_t n, double p)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, compare);
    size_t i = (size_t)ceil(p * (double)n) - 1;
    return v[i < n ? i : n - 1];
}

static int print_report(check_run *r, bool json, bool strict)
{
    size_t fails, warns;
    int code = check_results_exit(&r->results, strict, &fails, &warns);
    double p50 = percentile(r->latency_ms, r->nlatency, 0.5);
    double p99 = percentile(r->latency_ms, r->nlatency, 0.99);
    if (json) {
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *root = d ? mcp_json_new_object(d) : NULL;
        if (!root) {
            mcp_json_doc_free(d);
            fputs("mcp check-cancel: out of memory for the report\n", stderr);
            return EXIT_CONNECTION;
        }
        mcp_json_object_set(d, root, "protocol", mcp_json_new_string(d, r->version));
        mcp_json_object_set(d, root, "transport",
                            mcp_json_new_string(d, check_peer_http(r->p) ? "http" : "stdio"));
        mcp_json_object_set(d, root, "tool", mcp_json_new_string(d, r->tool ? r->tool : ""));
        mcp_json_object_set(d, root, "checks", check_results_json(&r->results, d));
        mcp_json *lat = mcp_json_new_object(d);
        mcp_json_object_set(d, lat, "trials", mcp_json_new_uint(d, r->nlatency));
        mcp_json_object_set(d, lat, "p50_ms", mcp_json_new_double(d, p50));
        mcp_json_object_set(d, lat, "p99_ms", mcp_json_new_double(d, p99));
        mcp_json_object_set(d, root, "cancel_to_quiet", lat);
        cli_print_json(root);
        mcp_json_doc_free(d);
    } else {
        printf("mcp check-cancel: %s, tool %s (%s)\n", r->version,
               r->tool ? cli_safe(r->tool) : "(none)", check_peer_http(r->p) ? "HTTP" : "stdio");
        check_results_table(&r->results);
        if (r->nlatency)
            printf("  cancel to quiet: p50=%.1f ms p99=%.1f ms over %zu trial(s)\n", p50, p99,
                   r->nlatency);
        else if (r->modern && check_peer_http(r->p))
            printf("  cancel to quiet: not observable (2026-07-28 HTTP cancels by closing the "
                   "stream)\n");
        printf("%zu failed, %zu warned\n", fails, warns);
    }
    return code;
}

/* Why the checks could not run: said on stderr, and with --json as the
 * report too, so that CI reading stdout finds why rather than nothing. */
__attribute__((format(printf, 2, 3))) static int say_unreachable(bool json, const char *fmt, ...)
{
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mcp: %s\n", why);
    if (json) {
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *root = d ? mcp_json_new_object(d) : NULL;
        if (root) {
            mcp_json_object_set(d, root, "error", mcp_json_new_string(d, why));
            mcp_json_object_set(d, root, "exit", mcp_json_new_int(d, EXIT_CONNECTION));
            cli_print_json(root);
        }
        mcp_json_doc_free(d);
    }
    return EXIT_CONNECTION;
}

/* Connecting ----------------------------------------------------------------------------- */

/* The era is found by the library's own client engine (mcp_session_connect:
 * server/discover first, initialize when the answer is not a 2026-07-28
 * one, or the revision asked for), run over the checker's raw conversation:
 * what it writes is sent as it is, the server's responses are fed back. */
typedef struct connecting {
    check_peer *p;
    bool done;
    int outcome;
    bool tasks; /* the answer's capabilities offer tools/call as a task, and tasks/cancel */
} connecting;

static int connect_send(void *ud, uint64_t route, const char *data, size_t len)
{
    (void)route;
    connecting *c = ud;
    int rc = MCP_OK;
    /* One or more lines: each its own message (a POST each over HTTP). */
    for (size_t at = 0, end; at < len && rc == MCP_OK; at = end + 1) {
        const char *nl = memchr(data + at, '\n', len - at);
        end = nl ? (size_t)(nl - data) : len;
        if (end == at)
            continue;
        char *line = malloc(end - at + 1);
        if (!line)
            return MCP_ERR_NOMEM;
        memcpy(line, data + at, end - at);
        line[end - at] = '\0';
        rc = check_peer_send(c->p, line);
        free(line);
    }
    return rc;
}

static void connected(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
    (void)h;
    connecting *c = ud;
    c->done = true;
    c->outcome = outcome;
    const mcp_json *caps = mcp_json_object_get(m ? m->result : NULL, "capabilities");
    const mcp_json *tasks = mcp_json_object_get(caps, "tasks");
    /* 2025-11-25: tools/call as a task, and tasks/cancel; 2026-07-28: the
     * tasks extension. */
    c->tasks = (mcp_json_object_get(tasks, "cancel") &&
                mcp_json_object_get(mcp_json_object_get(mcp_json_object_get(tasks, "requests"),
                                                        "tools"), "call")) ||
               mcp_json_object_get(mcp_json_object_get(caps, "extensions"),
                                   "io.modelcontextprotocol/tasks");
}

static int connect_era(check_run *r, const char *version)
{
    connecting c = {.p = r->p};
    mcp_session_callbacks cb = {.size = sizeof cb, .send = connect_send, .user_data = &c};
    mcp_session_options o = {.size = sizeof o, .role = MCP_ROLE_CLIENT,
                             .name = "mcp check-cancel", .version = mcp_version()};
    mcp_session *s;
    int rc = mcp_session_new(&o, &cb, &s);
    if (rc != MCP_OK)
        return rc;
    mcp_connect_options co = {.size = sizeof co,
                              .mode = !version                      ? MCP_CONNECT_AUTO
                                      : mcp_protocol_modern(version) ? MCP_CONNECT_MODERN
                                                                     : MCP_CONNECT_LEGACY,
                              .version = version, .timeout_ms = 10000, .probe_timeout_ms = 3000};
    rc = mcp_session_connect(s, check_now_us() / 1000, &co, connected, &c);
    size_t seen = 0;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    while (rc == MCP_OK && !c.done) {
        check_peer_drain(r->p, 20);
        for (; seen < check_peer_count(r->p); seen++) {
            /* Responses only: the server's own requests are answered by
             * check_peer, and must not be answered twice. */
            const mcp_json *root = check_peer_msg(r->p, seen)->root;
            if (!root || !is_response(root))
                continue;
            mcp_buf_reset(&b);
            if (mcp_json_write(root, &b) == MCP_OK && b.len)
                mcp_session_receive(s, check_now_us() / 1000, 0, b.data, b.len);
        }
        mcp_session_tick(s, check_now_us() / 1000);
        if (!c.done && check_peer_gone(r->p))
            mcp_session_close(s, check_now_us() / 1000);
    }
    mcp_buf_free(&b);
    if (rc == MCP_OK && c.outcome == MCP_OK) {
        r->version = mcp_session_protocol_version(s); /* a string literal */
        r->modern = mcp_protocol_modern(r->version);
        r->next_id = mcp_session_next_request_id(s);
        r->server_tasks = c.tasks;
    }
    mcp_session_free(s);
    return rc == MCP_OK ? c.outcome : rc;
}

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "mcp: %s%s%s\n", what, arg ? " " : "", arg ? cli_safe(arg) : "");
    cli_usage("check-cancel", false);
    return EXIT_USAGE;
}

#define HEADERS_MAX 32

int cli_check_cancel(int argc, char **argv)
{
    const char *version = NULL, *tool = NULL, *args = NULL, *url = NULL;
    char *headers[HEADERS_MAX];
    size_t nheaders = 0;
    bool json = false, strict = false, trace = false, client = false;
    uint64_t wait_ms = 20000;
    int trials = 5, i = 0;
    if (argc == 2 && !strcmp(argv[0], "--relay"))
        return check_cancel_relay(argv[1]);
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            cli_usage("check-cancel", true);
            return 0;
        } else if (!strcmp(s, "--json"))
            json = true;
        else if (!strcmp(s, "--strict"))
            strict = true;
        else if (!strcmp(s, "--trace"))
            trace = true;
        else if (!strcmp(s, "--client"))
            client = true;
        else if (!strcmp(s, "--wait") && v) {
            double seconds;
            if (!cli_parse_seconds(s, argv[++i], false, &wait_ms, &seconds)) {
                fputs("try 'mcp check-cancel --help'\n", stderr); /* it said why */
                return EXIT_USAGE;
            }
        } else if (!strcmp(s, "--protocol") && v &&
                 (!strcmp(v, "2026-07-28") || !strcmp(v, "2025-11-25") || !strcmp(v, "2025-06-18")))
            version = argv[++i];
        else if (!strcmp(s, "--tool") && v)
            tool = argv[++i];
        else if (!strcmp(s, "--args") && v)
            args = argv[++i];
        else if (!strcmp(s, "--trials") && v && atoi(v) >= 1 && atoi(v) <= 1000)
            trials = atoi(argv[++i]);
        else if (!strcmp(s, "--url") && v && !url)
            url = argv[++i];
        else if (!strcmp(s, "--header") && v) {
            if (!check_http_header_ok(v))
                return usage("--header takes 'Name: value':", v);
            if (nheaders == HEADERS_MAX)
                return usage("at most 32 --header", NULL);
            headers[nheaders++] = argv[++i];
        } else
            return usage("unknown option, or a value it does not take:", s);
    }
    if (client && (url || tool || args || nheaders || trials != 5 ||
                   (version && strcmp(version, "2025-11-25") && strcmp(version, "2026-07-28"))))
        return usage("--client takes the client's command after --, and --protocol "
                     "(2025-11-25 or 2026-07-28), --wait, --json, --strict and --trace only", NULL);
    if (client && i >= argc - 1)
        return usage("--client needs the client's command after --", NULL);
    if (!client && wait_ms != 20000)
        return usage("--wait goes with --client", NULL);
    if (client) {
        /* This program, for the relay's command: the file exec'd
         * (AT_EXECFN), which a checker such as valgrind leaves as it was,
         * where /proc/self/exe would name the checker. */
        char self[PATH_MAX];
        const char *exec_fn = (const char *)getauxval(AT_EXECFN);
        if (!exec_fn || !realpath(exec_fn, self)) {
            ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
            if (n <= 0)
                return usage("cannot find this program for the relay", NULL);
            self[n] = '\0';
        }
        return check_cancel_client(argv + i + 1, self, version, wait_ms, json, strict, trace);
    }
    if (url && i < argc)
        return usage("--url or a command after --, not both", NULL);
    if (!url && i >= argc - 1)
        return usage("check-cancel needs the server's command after --, or --url", NULL);
    if (nheaders && !url)
        return usage("--header goes with --url", NULL);
    if (args && !tool)
        return usage("--args goes with --tool", NULL);
    /* A server that exits must not kill the checker with SIGPIPE: a write
     * to it fails (MCP_ERR_CLOSED), and the checks say so. */
    signal(SIGPIPE, SIG_IGN);
    if (!url)
        check_peer_on_signals();
    check_run r = {.version = version, .next_id = 1, .stream = -1};
    char why[300];
    int rc = url ? check_peer_start_http(&r.p, url, headers, nheaders, trace, why, sizeof why)
                 : check_peer_start(&r.p, argv + i + 1, trace, why, sizeof why);
    if (rc != MCP_OK) {
        if (rc != MCP_ERR_INVALID_ARG)
            return say_unreachable(json, "%s", cli_safe(why));
        fprintf(stderr, "mcp: %s\n", cli_safe(why));
        return EXIT_USAGE;
    }
    rc = connect_era(&r, version);
    if (rc != MCP_OK) {
        const char *err = NULL;
        int code;
        if (url && check_http_unreachable(check_peer_http_of(r.p), &err))
            code = say_unreachable(json, "cannot reach %s: %s", cli_safe(url), cli_safe(err));
        else
            code = say_unreachable(json, "the server did not %s (%s)%s",
                                   version && mcp_protocol_modern(version)
                                       ? "answer server/discover"
                                       : "connect",
                                   mcp_strerror(rc),
                                   check_peer_flooded(r.p) ? "; it sent too much and was read "
                                                             "no further"
                                   : check_peer_gone(r.p) ? "; it exited"
                                                          : "");
        check_peer_stop(r.p);
        return code;
    }
    if (url)
        check_http_set_version(check_peer_http_of(r.p), r.version);
    const char *cancel_page = r.modern ? "basic/patterns/cancellation" : "basic/utilities/cancellation";
    snprintf(r.rule_cancel, sizeof r.rule_cancel, "%s %s", r.version, cancel_page);
    snprintf(r.rule_progress, sizeof r.rule_progress, "%s %s", r.version,
             r.modern ? "basic/patterns/progress" : "basic/utilities/progress");
    snprintf(r.rule_ids, sizeof r.rule_ids, "%s basic (request ids)", r.version);
    snprintf(r.rule_drop, sizeof r.rule_drop, "%s basic/transports (disconnection, resumability)",
             r.version);
    if (!find_tool(&r, tool, args, why, sizeof why)) {
        if (tool) {
            fprintf(stderr, "mcp: %s\n", cli_safe(why));
            check_peer_stop(r.p);
            return EXIT_USAGE;
        }
        static const char *const needing[] = {"cancel.stops-response", "cancel.stops-progress",
                                              "cancel.id-type", "progress.increases"};
        for (size_t k = 0; k < 4; k++)
            check_report(&r, needing[k], "-", "needs a long-running tool", CHECK_SKIP, "%s", why);
    } else {
        check_cancel_stops(&r, trials);
        check_id_type(&r);
        check_progress(&r);
        if (url && !r.modern)
            check_drop(&r);
        check_tasks(&r);
    }
    check_ignored(&r);
    if (r.modern) {
        check_no_server_cancel(&r); /* before the listen: its teardown may name it */
        check_listen(&r);
    }
    int code = print_report(&r, json, strict);
    check_peer_stop(r.p);
    free(r.tool);
    mcp_json_doc_free(r.args);
    mcp_json_doc_free(r.short_args);
    free(r.latency_ms);
    return code;
}
