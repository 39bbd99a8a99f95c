/* SPDX-License-Identifier: MIT */
/*
 * mcp check-cancel [--protocol V] [--tool NAME [--args JSON]] [--trials N]
 *                  [--json] [--strict] [--trace] -- COMMAND [ARG...]
 *
 * Runs a battery against a stdio server and says, rule by rule, what it
 * does when asked to stop. Each check is PASS, FAIL (a MUST broken), WARN
 * (a SHOULD broken) or SKIP (with why), and names its rule and revision.
 * This first version speaks the 2025 revisions over stdio (initialize,
 * notifications/cancelled); HTTP and 2026-07-28 are not built yet.
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

typedef enum { V_PASS, V_FAIL, V_WARN, V_SKIP } verdict;
static const char *const verdict_names[] = {"PASS", "FAIL", "WARN", "SKIP"};

typedef struct result {
    const char *id, *level, *rule;
    verdict v;
    char detail[300];
} result;

#define RESULTS_MAX 32
/* How long a check watches for what should not come. */
#define QUIET_MS 1500
/* Progress this long after the cancel is the server's, not the pipe's. */
#define PROGRESS_GRACE_US 250000

typedef struct run {
    check_peer *p;
    const char *version;
    int64_t next_id;
    char *tool;          /* the long tool */
    mcp_json_doc *args;  /* its arguments (root: an object) */
    bool progress;       /* it reported progress when asked */
    result results[RESULTS_MAX];
    size_t nresults;
    double *latency_ms;
    size_t nlatency;
} run;

static void report(run *r, const char *id, const char *level, const char *rule, verdict v,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void report(run *r, const char *id, const char *level, const char *rule, verdict v,
                   const char *fmt, ...)
{
    if (r->nresults == RESULTS_MAX)
        return;
    result *x = &r->results[r->nresults++];
    x->id = id;
    x->level = level;
    x->rule = rule;
    x->v = v;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->detail, sizeof x->detail, fmt, ap);
    va_end(ap);
}

/* Matching what came ------------------------------------------------------------------- */

typedef struct want {
    int64_t id;       /* a response to this numeric id */
    bool any_id;      /* or any response at all */
    const char *token; /* or a progress notification for this token */
} want;

static bool is_response(const mcp_json *root)
{
    return mcp_json_object_get(root, "id") && !mcp_json_object_get(root, "method");
}

static bool response_to(const mcp_json *root, int64_t id)
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

static bool matches(const check_msg *m, void *ud)
{
    const want *w = ud;
    if (w->token) {
        const char *t = progress_token(m->root);
        if (t && !strcmp(t, w->token))
            return true;
    }
    return w->any_id ? is_response(m->root) : response_to(m->root, w->id);
}

/* Sending ------------------------------------------------------------------------------ */

static int64_t request(run *r, const char *method, const char *params_json)
{
    int64_t id = r->next_id++;
    char *line = malloc(strlen(params_json) + strlen(method) + 96);
    if (!line)
        return -1;
    sprintf(line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\",\"params\":%s}", (long long)id,
            method, params_json);
    check_peer_send(r->p, line);
    free(line);
    return id;
}

/* A tools/call of the long tool, with a progress token when token. */
static int64_t call_long(run *r, const char *token, int64_t id)
{
    mcp_buf params;
    mcp_buf_init(&params, 0, NULL);
    mcp_buf_append(&params, "{\"name\":", 8);
    mcp_json_write_string(r->tool, strlen(r->tool), &params);
    mcp_buf_append(&params, ",\"arguments\":", 13);
    mcp_json_write(mcp_json_doc_root(r->args), &params);
    if (token) {
        mcp_buf_append(&params, ",\"_meta\":{\"progressToken\":", 26);
        mcp_json_write_string(token, strlen(token), &params);
        mcp_buf_append(&params, "}", 1);
    }
    mcp_buf_append(&params, "}", 1);
    if (id < 0)
        id = r->next_id++;
    char *line = malloc(params.len + 96);
    sprintf(line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"tools/call\",\"params\":%s}",
            (long long)id, params.data);
    check_peer_send(r->p, line);
    free(line);
    mcp_buf_free(&params);
    return id;
}

static void cancel(run *r, const char *request_id_json)
{
    char line[256];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
             "{\"requestId\":%s,\"reason\":\"mcp check-cancel\"}}",
             request_id_json);
    check_peer_send(r->p, line);
}

/* A ping answered within 5 s. */
static bool answers(run *r)
{
    int64_t id = request(r, "ping", "{}");
    want w = {.id = id};
    return check_peer_wait(r->p, 0, matches, &w, 5000, NULL) != NULL;
}

/* Responses that answer nothing we asked (a reply to a notification):
 * any response from index from on whose id is not one of ours pending. */
static size_t stray_responses(run *r, size_t from, int64_t lo, int64_t hi)
{
    size_t n = 0;
    for (size_t i = from; i < check_peer_count(r->p); i++) {
        const mcp_json *root = check_peer_msg(r->p, i)->root;
        if (!root || !is_response(root))
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
static mcp_json_doc *long_arguments(const mcp_json *tool, bool *looks_long)
{
    const mcp_json *schema = mcp_json_object_get(tool, "inputSchema");
    const mcp_json *props = mcp_json_object_get(schema, "properties");
    const mcp_json *required = mcp_json_object_get(schema, "required");
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    mcp_json *args = mcp_json_new_object(d);
    mcp_json_doc_set_root(d, args);
    *looks_long = false;
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
            v = 30, *looks_long = true;
        else if (number && (strstr(name, "ms") || strstr(name, "delay") || strstr(name, "interval")))
            v = 100, *looks_long = true;
        else if (number && (!strcmp(name, "n") || strstr(name, "step") || strstr(name, "count")))
            v = 300, *looks_long = true;
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
static bool find_tool(run *r, const char *named, const char *args_json, char *why, size_t n)
{
    int64_t id = request(r, "tools/list", "{}");
    want w = {.id = id};
    const check_msg *m = check_peer_wait(r->p, 0, matches, &w, 10000, NULL);
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
        mcp_json_doc *args = long_arguments(t, &looks_long);
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
    bool responded, progressed_late, had_progress;
    double quiet_ms;
    uint64_t cancel_at;
} watched;

static bool cancel_one(run *r, watched *out, int64_t reuse_id)
{
    memset(out, 0, sizeof *out);
    char token[32];
    int64_t id = reuse_id >= 0 ? reuse_id : r->next_id;
    snprintf(token, sizeof token, "check-%lld", (long long)id);
    size_t from = check_peer_count(r->p);
    id = call_long(r, token, reuse_id);
    out->id = id;
    /* Its first progress, or a moment. */
    want first = {.id = id, .token = token};
    size_t at;
    const check_msg *m = check_peer_wait(r->p, from, matches, &first, 300, &at);
    if (m && response_to(m->root, id))
        return false; /* over already */
    out->had_progress = m != NULL;
    char idtext[32];
    snprintf(idtext, sizeof idtext, "%lld", (long long)id);
    out->cancel_at = check_now_us();
    cancel(r, idtext);
    check_peer_drain(r->p, QUIET_MS);
    uint64_t last = 0;
    for (size_t i = from; i < check_peer_count(r->p); i++) {
        const check_msg *x = check_peer_msg(r->p, i);
        if (!x->root || x->at_us < out->cancel_at)
            continue;
        const char *t = progress_token(x->root);
        bool mine = response_to(x->root, id) || (t && !strcmp(t, token));
        if (!mine)
            continue;
        last = x->at_us;
        if (response_to(x->root, id))
            out->responded = true;
        else if (x->at_us > out->cancel_at + PROGRESS_GRACE_US)
            out->progressed_late = true;
    }
    out->quiet_ms = last ? (double)(last - out->cancel_at) / 1000.0 : 0;
    return true;
}

static void check_cancel_stops(run *r, int trials)
{
    watched w;
    if (!cancel_one(r, &w, -1)) {
        report(r, "cancel.stops-response", "SHOULD", "2025-11-25 utilities/cancellation", V_SKIP,
               "%s answered before it could be cancelled", r->tool);
        return;
    }
    r->progress = w.had_progress;
    if (w.responded)
        report(r, "cancel.stops-response", "SHOULD", "2025-11-25 utilities/cancellation", V_WARN,
               "a response to the cancelled request came (the last message %.0f ms after the "
               "cancel)", w.quiet_ms);
    else
        report(r, "cancel.stops-response", "SHOULD", "2025-11-25 utilities/cancellation", V_PASS,
               "no response in the %d ms after the cancel", QUIET_MS);
    if (!w.had_progress)
        report(r, "cancel.stops-progress", "SHOULD", "2025-11-25 utilities/cancellation", V_SKIP,
               "%s sent no progress before the cancel", r->tool);
    else
        report(r, "cancel.stops-progress", "SHOULD", "2025-11-25 utilities/cancellation",
               w.progressed_late ? V_WARN : V_PASS,
               w.progressed_late ? "progress kept coming after the cancel (the last %.0f ms after)"
                                 : "progress stopped (the last %.0f ms after the cancel)",
               w.quiet_ms);
    bool usable = answers(r);
    report(r, "cancel.usable-after", "MUST", "JSON-RPC 2.0 (every request answered)",
           usable ? V_PASS : V_FAIL, "a ping after the cancel %s",
           usable ? "was answered" : check_peer_gone(r->p) ? "found the server gone"
                                                            : "was not answered within 5 s");
    /* The same id again (a client that lost track): answered normally. */
    int64_t id = w.id;
    size_t from = check_peer_count(r->p);
    char line[160];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"ping\"}", (long long)id);
    check_peer_send(r->p, line);
    want again = {.id = id};
    bool ok = check_peer_wait(r->p, from, matches, &again, 5000, NULL) != NULL;
    report(r, "cancel.id-reused", "SHOULD", "2025-11-25 basic (request ids)", ok ? V_PASS : V_WARN,
           ok ? "a request reusing the cancelled id was answered"
              : "a request reusing the cancelled id was not answered");
    /* Latency over trials. */
    r->latency_ms = calloc((size_t)trials + 1, sizeof *r->latency_ms);
    r->latency_ms[r->nlatency++] = w.quiet_ms;
    for (int t = 1; t < trials && r->latency_ms; t++) {
        watched x;
        if (cancel_one(r, &x, -1))
            r->latency_ms[r->nlatency++] = x.quiet_ms;
    }
}

/* Cancels that name nothing running: ignored, never answered. */
static void check_ignored(run *r)
{
    /* A finished request's id. */
    int64_t done = request(r, "ping", "{}");
    want w = {.id = done};
    check_peer_wait(r->p, 0, matches, &w, 5000, NULL);
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
    bool usable = answers(r);
    check_peer_drain(r->p, 300);
    size_t strays = stray_responses(r, from, lo, r->next_id);
    if (strays)
        report(r, "cancel.ignored-no-reply", "MUST", "JSON-RPC 2.0 (notifications get no response)",
               V_FAIL, "%zu response(s) to cancels of an unknown id, a finished request or "
               "malformed params", strays);
    else
        report(r, "cancel.ignored-no-reply", "MUST", "JSON-RPC 2.0 (notifications get no response)",
               V_PASS, "cancels of an unknown id, a finished request and malformed params drew no "
               "response");
    report(r, "cancel.ignored-usable", "MUST", "JSON-RPC 2.0 (every request answered)",
           usable ? V_PASS : V_FAIL,
           usable ? "the server answered after them" : "the server stopped answering after them");
}

/* A string id is not the number of the same digits. */
static void check_id_type(run *r)
{
    if (!r->progress) {
        report(r, "cancel.id-type", "MUST", "JSON-RPC 2.0 (id equality)", V_SKIP,
               "%s reports no progress: whether it went on cannot be seen", r->tool);
        return;
    }
    int64_t id = r->next_id;
    char token[32];
    snprintf(token, sizeof token, "check-%lld", (long long)id);
    size_t from = check_peer_count(r->p);
    call_long(r, token, -1);
    want first = {.id = id, .token = token};
    check_peer_wait(r->p, from, matches, &first, 2000, NULL);
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
        if (x->root && x->at_us > wrong_at && response_to(x->root, id))
            answered = true;
    }
    snprintf(text, sizeof text, "%lld", (long long)id);
    cancel(r, text); /* the right one, to end it */
    check_peer_drain(r->p, 300);
    report(r, "cancel.id-type", "MUST", "JSON-RPC 2.0 (id equality)",
           went_on && !answered ? V_PASS : V_FAIL,
           went_on && !answered ? "a cancel naming \"%lld\" (a string) left request %lld (a number) "
                                  "running"
                                : "a cancel naming \"%lld\" (a string) stopped request %lld (a number)",
           (long long)id, (long long)id);
}

/* Progress: increasing, and only for tokens given. */
static void check_progress(run *r)
{
    /* A call without a token, cancelled after a moment. */
    size_t from = check_peer_count(r->p);
    int64_t id = call_long(r, NULL, -1);
    check_peer_drain(r->p, 500);
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)id);
    cancel(r, text);
    check_peer_drain(r->p, 300);
    size_t unasked = 0;
    for (size_t i = from; i < check_peer_count(r->p); i++) {
        const char *t = progress_token(check_peer_msg(r->p, i)->root);
        if (t && strncmp(t, "check-", 6))
            unasked++;
    }
    if (unasked)
        report(r, "progress.only-with-token", "MUST", "2025-11-25 utilities/progress", V_FAIL,
               "%zu progress notification(s) for a token no request gave", unasked);
    else
        report(r, "progress.only-with-token", "MUST", "2025-11-25 utilities/progress", V_PASS,
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
        report(r, "progress.increases", "MUST", "2025-11-25 utilities/progress", V_SKIP,
               "no progress seen");
    else if (bad)
        report(r, "progress.increases", "MUST", "2025-11-25 utilities/progress", V_FAIL,
               "%zu progress value(s) not above the one before", bad);
    else
        report(r, "progress.increases", "MUST", "2025-11-25 utilities/progress", V_PASS,
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

static int print_report(run *r, bool json, bool strict)
{
    size_t fails = 0, warns = 0;
    for (size_t i = 0; i < r->nresults; i++) {
        fails += r->results[i].v == V_FAIL;
        warns += r->results[i].v == V_WARN;
    }
    double p50 = percentile(r->latency_ms, r->nlatency, 0.5);
    double p99 = percentile(r->latency_ms, r->nlatency, 0.99);
    if (json) {
        mcp_json_doc *d = mcp_json_doc_new(NULL);
        mcp_json *root = mcp_json_new_object(d), *list = mcp_json_new_array(d);
        mcp_json_object_set(d, root, "protocol", mcp_json_new_string(d, r->version));
        mcp_json_object_set(d, root, "tool", mcp_json_new_string(d, r->tool ? r->tool : ""));
        for (size_t i = 0; i < r->nresults; i++) {
            const result *x = &r->results[i];
            mcp_json *o = mcp_json_new_object(d);
            mcp_json_object_set(d, o, "id", mcp_json_new_string(d, x->id));
            mcp_json_object_set(d, o, "verdict", mcp_json_new_string(d, verdict_names[x->v]));
            mcp_json_object_set(d, o, "level", mcp_json_new_string(d, x->level));
            mcp_json_object_set(d, o, "rule", mcp_json_new_string(d, x->rule));
            mcp_json_object_set(d, o, "detail", mcp_json_new_string(d, x->detail));
            mcp_json_array_append(d, list, o);
        }
        mcp_json_object_set(d, root, "checks", list);
        mcp_json *lat = mcp_json_new_object(d);
        mcp_json_object_set(d, lat, "trials", mcp_json_new_uint(d, r->nlatency));
        mcp_json_object_set(d, lat, "p50_ms", mcp_json_new_double(d, p50));
        mcp_json_object_set(d, lat, "p99_ms", mcp_json_new_double(d, p99));
        mcp_json_object_set(d, root, "cancel_to_quiet", lat);
        cli_print_json(root);
        mcp_json_doc_free(d);
    } else {
        bool tty = isatty(STDOUT_FILENO);
        static const char *const colour[] = {"\033[32m", "\033[31m", "\033[33m", "\033[2m"};
        printf("mcp check-cancel: %s, tool %s (%s)\n", r->version,
               r->tool ? cli_safe(r->tool) : "(none)", "stdio");
        for (size_t i = 0; i < r->nresults; i++) {
            const result *x = &r->results[i];
            printf("  %s%-4s%s  %-26s %-6s %s\n        %s\n", tty ? colour[x->v] : "",
                   verdict_names[x->v], tty ? "\033[0m" : "", x->id, x->level, x->rule,
                   cli_safe(x->detail));
        }
        if (r->nlatency)
            printf("  cancel to quiet: p50=%.1f ms p99=%.1f ms over %zu trial(s)\n", p50, p99,
                   r->nlatency);
        printf("%zu failed, %zu warned\n", fails, warns);
    }
    return fails || (strict && warns) ? 1 : 0;
}

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "mcp: %s%s%s\n", what, arg ? " " : "", arg ? cli_safe(arg) : "");
    cli_usage("check-cancel", false);
    return EXIT_USAGE;
}

int cli_check_cancel(int argc, char **argv)
{
    const char *version = "2025-11-25", *tool = NULL, *args = NULL;
    bool json = false, strict = false, trace = false;
    int trials = 5, i = 0;
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
        else if (!strcmp(s, "--protocol") && v && (!strcmp(v, "2025-11-25") || !strcmp(v, "2025-06-18")))
            version = argv[++i];
        else if (!strcmp(s, "--tool") && v)
            tool = argv[++i];
        else if (!strcmp(s, "--args") && v)
            args = argv[++i];
        else if (!strcmp(s, "--trials") && v && atoi(v) >= 1 && atoi(v) <= 1000)
            trials = atoi(argv[++i]);
        else
            return usage("unknown option, or a value it does not take:", s);
    }
    if (i >= argc - 1)
        return usage("check-cancel needs the server's command after --", NULL);
    if (args && !tool)
        return usage("--args goes with --tool", NULL);
    /* A server that exits must not kill the checker with SIGPIPE: a write
     * to it fails (MCP_ERR_CLOSED), and the checks say so. */
    signal(SIGPIPE, SIG_IGN);
    run r = {.version = version, .next_id = 1};
    char why[300];
    if (check_peer_start(&r.p, argv + i + 1, trace, why, sizeof why) != MCP_OK) {
        fprintf(stderr, "mcp: %s\n", cli_safe(why));
        return EXIT_CONNECTION;
    }
    char init[256];
    snprintf(init, sizeof init,
             "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp "
             "check-cancel\",\"version\":\"%s\"}}",
             version, mcp_version());
    int64_t id = request(&r, "initialize", init);
    want w = {.id = id};
    const check_msg *m = check_peer_wait(r.p, 0, matches, &w, 10000, NULL);
    if (!m || !mcp_json_object_get(m->root, "result")) {
        fprintf(stderr, "mcp: the server did not answer initialize%s\n",
                check_peer_gone(r.p) ? " (it exited)" : " within 10 s");
        check_peer_stop(r.p);
        return EXIT_CONNECTION;
    }
    check_peer_send(r.p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    if (!find_tool(&r, tool, args, why, sizeof why)) {
        if (tool) {
            fprintf(stderr, "mcp: %s\n", cli_safe(why));
            check_peer_stop(r.p);
            return EXIT_USAGE;
        }
        static const char *const needing[] = {"cancel.stops-response", "cancel.stops-progress",
                                              "cancel.id-type", "progress.increases"};
        for (size_t k = 0; k < 4; k++)
            report(&r, needing[k], "-", "needs a long-running tool", V_SKIP, "%s", why);
    } else {
        check_cancel_stops(&r, trials);
        check_id_type(&r);
        check_progress(&r);
    }
    check_ignored(&r);
    int code = print_report(&r, json, strict);
    check_peer_stop(r.p);
    free(r.tool);
    mcp_json_doc_free(r.args);
    free(r.latency_ms);
    return code;
}
