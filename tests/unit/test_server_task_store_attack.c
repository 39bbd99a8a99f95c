/* SPDX-License-Identifier: MIT */
/*
 * The Redis task store attacked: by whoever else writes into its Redis
 * (garbage records, keys of another type, garbage published on its
 * channels, records deleted or flushed under a running task), by Redis
 * itself (paused, killed, restarted empty, the wrong password, a db out of
 * range, a second Redis), by options at their extremes, and by clients
 * (huge and many tasks/update, cancel storms, thousands of unknown ids).
 * The server must never crash, leak or answer a line that is not a
 * well-formed JSON-RPC response; tasks/get answers the task or a clear
 * error. Against real redis-servers the test starts (support/redis_server).
 * What it found, each fixed: a record of garbage answered as it was (dates
 * of no year, a ttl of -1, inputRequests not an object, "out of memory"
 * for text not UTF-8, a duplicate "code"); a record Redis lost never
 * written again though its runner held the task; a lease of 1 ms or 2^64-1
 * ms letting other processes fail live tasks; the resync after Redis came
 * back lost when the command link came up after the subscriber.
 * ATTACK_ONLY=<test> runs one; ATTACK_DEBUG=1 logs at debug.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <hiredis/hiredis.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "missing.h"
#include "mcp/json.h"
#include "redis_server.h"
#include "task_harness.h"

#define ACK "\"result\":{\"resultType\":\"complete\",\"_meta\""
/* A task id no test's server made (the shape of one: 32 hex digits). */
#define FAKE_ID "0123456789abcdef0123456789abcdef"

static redis_server redis; /* no persistence: a restart loses everything */
static char store_url[400];
static atomic_int started, ended, released;

/* Tools ------------------------------------------------------------------------------ */

/* Answers "done" once released (or ends when cancelled). */
static void tool_gate(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_fetch_add(&started, 1);
    mcp_cancel_token *t = mcp_call_cancel_token(c);
    while (!atomic_load(&released) && !mcp_cancel_token_is_cancelled(t))
        usleep(1000);
    if (mcp_cancel_token_is_cancelled(t))
        mcp_call_finish(c);
    else
        mcp_call_reply_text(c, "done");
    atomic_fetch_add(&ended, 1);
}

/* Asks "who" (elicitation) and answers with the name, or ends cancelled. */
static void tool_ask(void *ud, mcp_call *c)
{
    (void)ud;
    atomic_fetch_add(&started, 1);
    static const char form[] = "{\"message\":\"Who?\",\"requestedSchema\":{\"type\":\"object\","
                               "\"properties\":{\"name\":{\"type\":\"string\"}}}}";
    mcp_json_doc *d;
    mcp_json_parse(form, sizeof form - 1, NULL, NULL, &d, NULL);
    mcp_ask_answer a = {.size = sizeof a};
    int rc = mcp_call_ask(c, "who", "elicitation/create", mcp_json_doc_root(d), 10000, &a);
    mcp_json_doc_free(d);
    const mcp_json *content =
        rc == MCP_OK ? mcp_json_object_get(mcp_json_doc_root(a.result), "content") : NULL;
    const char *name = mcp_json_string(mcp_json_object_get(content, "name"), NULL);
    if (rc == MCP_ERR_CANCELLED)
        mcp_call_finish(c);
    else
        mcp_call_reply_text(c, name ? "answered" : "(no answer)");
    mcp_ask_answer_release(&a);
    atomic_fetch_add(&ended, 1);
}

static void tool_plain(void *ud, mcp_call *c)
{
    (void)ud;
    mcp_call_reply_text(c, "plain");
}

typedef struct server_opts {
    const char *url; /* NULL: store_url */
    uint64_t timeout_ms, lease_ms;
} server_opts;

static mcp_server *new_server(const server_opts *so)
{
    mcp_server_options o = {.size = sizeof o,
                            .log_level = getenv("ATTACK_DEBUG") ? MCP_LOG_DEBUG : MCP_LOG_ERROR,
                            .shutdown_grace_ms = 300,
                            .task_store = so && so->url ? so->url : store_url,
                            .task_store_timeout_ms = so && so->timeout_ms ? so->timeout_ms : 1000,
                            .task_lease_ms = so && so->lease_ms ? so->lease_ms : 2000};
    mcp_server *s;
    assert_int_equal(mcp_server_new(&o, &s), MCP_OK);
    const mcp_tool tools[] = {
        {.size = sizeof(mcp_tool), .name = "gate", .handler = tool_gate,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "ask", .handler = tool_ask,
         .flags = MCP_TOOL_BLOCKING, .task_support = MCP_TASK_OPTIONAL},
        {.size = sizeof(mcp_tool), .name = "plain", .handler = tool_plain}};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        assert_int_equal(mcp_server_add_tool(s, &tools[i]), MCP_OK);
    return s;
}

/* Checking answers ------------------------------------------------------------------- */

/* answer must be one well-formed JSON-RPC response to request id: an object
 * with jsonrpc "2.0", that id, and a result object or an error {code: an
 * integer, message: a string}. Returns answer (for more checks). */
static char *well_formed(char *answer, int id)
{
    mcp_json_doc *d = NULL;
    if (!answer)
        fail_msg("request %d: no answer", id);
    if (mcp_json_parse(answer, strlen(answer), NULL, NULL, &d, NULL) != MCP_OK)
        fail_msg("request %d: not JSON: %.300s", id, answer);
    const mcp_json *r = mcp_json_doc_root(d);
    int64_t got = -1;
    const mcp_json *result = mcp_json_object_get(r, "result"),
                   *error = mcp_json_object_get(r, "error");
    bool ok = mcp_json_typeof(r) == MCP_JSON_OBJECT &&
              mcp_json_get_int64(mcp_json_object_get(r, "id"), &got) == MCP_OK && got == id &&
              (!result != !error) &&
              (result ? mcp_json_typeof(result) == MCP_JSON_OBJECT
                      : mcp_json_typeof(mcp_json_object_get(error, "code")) == MCP_JSON_NUMBER &&
                            mcp_json_string(mcp_json_object_get(error, "message"), NULL));
    mcp_json_doc_free(d);
    if (!ok)
        fail_msg("request %d: not a response: %.300s", id, answer);
    return answer;
}

/* The next line with needle, however long (the wire's own reader stops at
 * 64 KiB): caller frees. */
static char *long_expect(wire *w, const char *needle)
{
    size_t cap = 1 << 20, len = 0;
    char *line = malloc(cap);
    assert_non_null(line);
    for (;;) {
        char *nl = memchr(w->buf, '\n', w->len);
        size_t take = nl ? (size_t)(nl - w->buf) : w->len;
        while (len + take + 1 > cap)
            line = realloc(line, cap *= 2);
        memcpy(line + len, w->buf, take);
        len += take;
        memmove(w->buf, w->buf + take + (nl ? 1 : 0), w->len - take - (nl ? 1 : 0));
        w->len -= take + (nl ? 1 : 0);
        if (nl) {
            line[len] = '\0';
            if (strstr(line, needle))
                return line;
            len = 0;
            continue;
        }
        struct pollfd p = {w->fd, POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0)
            fail_msg("no line containing %s", needle);
        ssize_t r = read(w->fd, w->buf, sizeof w->buf);
        if (r <= 0)
            fail_msg("the stream ended before a line containing %s", needle);
        w->len = (size_t)r;
    }
}

/* A 2026 request declaring the extension, sent without waiting. */
static void ext_send(harness *h, int rid, const char *method, const char *params)
{
    size_t n = strlen(params) + 500;
    char *line = malloc(n);
    snprintf(line, n,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s,\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},\"extensions\":{"
             "\"io.modelcontextprotocol/tasks\":{}}}}}}",
             rid, method, params);
    wire_send(&h->w, line);
    free(line);
}

/* tasks/get|update|cancel of id (params: more members, or NULL): the
 * answer, checked well-formed. */
static char *on_task(harness *h, int rid, const char *method, const char *id, const char *more)
{
    size_t n = strlen(id) + (more ? strlen(more) : 0) + 64;
    char *params = malloc(n);
    snprintf(params, n, "\"taskId\":\"%s\"%s%s", id, more ? "," : "", more ? more : "");
    char *a = ext_req(h, rid, method, params);
    free(params);
    return well_formed(a, rid);
}

static void expect_in(char *answer, const char *needle)
{
    if (!strstr(answer, needle))
        fail_msg("no %s in %.400s", needle, answer);
    free(answer);
}

/* Redis, as someone else ---------------------------------------------------------------- */

static redisReply *rcmd_on(const redis_server *r, const char *fmt, ...)
{
    redisContext *c = redis_server_connect(r);
    assert_non_null(c);
    va_list ap;
    va_start(ap, fmt);
    redisReply *rep = redisvCommand(c, fmt, ap);
    va_end(ap);
    redisFree(c);
    return rep;
}

/* A command on the test's Redis, its reply dropped. */
#define RCMD(...) freeReplyObject(rcmd_on(&redis, __VA_ARGS__))

static char *record_field(const char *task, const char *field)
{
    redisReply *rep = rcmd_on(&redis, "HGET mcp:task:%s %s", task, field);
    char *v = rep && rep->type == REDIS_REPLY_STRING ? strdup(rep->str) : NULL;
    freeReplyObject(rep);
    return v;
}

/* Until h's store answers (a task no one has: "no task", not unavailable). */
static void wait_store(harness *h)
{
    for (int i = 0; i < 500; i++) {
        char *a = ext_on_task(h, 900, "tasks/get", "ffffffffffffffffffffffffffffffff");
        bool up = strstr(a, "no task") != NULL;
        free(a);
        if (up)
            return;
        usleep(20000);
    }
    fail_msg("the task store never came up");
}

static void start(harness *h, const server_opts *so)
{
    harness_start(h, new_server(so), NULL, NULL, NULL);
    wait_store(h);
}

/* The server's output on a descriptor of its own (a dup of its input's):
 * mcp_server_serve_fds(s, fd, fd) stalls forever on an answer larger than
 * the socket's buffer (libuv watches a descriptor through one handle, and
 * the reader's takes the writer's events), so a test of huge answers
 * cannot use serve_harness as it is. */
static int dup_out = -1;

static void *serve_dup(void *arg)
{
    harness *h = arg;
    h->rc = mcp_server_serve_fds(h->server, h->server_fd, dup_out);
    return NULL;
}

static void start_dup(harness *h, const server_opts *so)
{
    memset(h, 0, sizeof *h);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    h->w.fd = sv[0];
    h->server_fd = sv[1];
    h->server = new_server(so);
    h->modern = true;
    dup_out = dup(sv[1]);
    assert_int_equal(pthread_create(&h->thread, NULL, serve_dup, h), 0);
    wait_store(h);
}

static void stop_dup(harness *h)
{
    harness_stop(h);
    close(dup_out);
    dup_out = -1;
}

static void make_task(harness *h, int rid, const char *tool_name, char task[33])
{
    char params[100];
    snprintf(params, sizeof params, "\"name\":\"%s\",\"arguments\":{}", tool_name);
    char *a = well_formed(ext_req(h, rid, "tools/call", params), rid);
    if (!strstr(a, "\"resultType\":\"task\""))
        fail_msg("no task: %s", a);
    task_id_of(a, task);
    free(a);
}

static void reset(void)
{
    atomic_store(&started, 0);
    atomic_store(&ended, 0);
    atomic_store(&released, 0);
}

static void wait_ended(void)
{
    for (int i = 0; i < 2000 && atomic_load(&ended) < atomic_load(&started); i++)
        usleep(5000);
    assert_int_equal(atomic_load(&ended), atomic_load(&started));
}

/* Garbage records ------------------------------------------------------------------------- */

/* A record as the store writes one, for FAKE_ID, owned by nobody ("-", a
 * connection without a credential), then the fields of fields (name, value,
 * ..., NULL) over it; "" as a name deletes the next. */
static void fake_record(const char *const *fields)
{
    RCMD("DEL mcp:task:" FAKE_ID);
    RCMD("HSET mcp:task:" FAKE_ID " s working c 1700000000000 u 1700000000000 t 60000 p 1000 "
         "o - r ffffffffffffffffffffffffffffffff");
    for (size_t i = 0; fields && fields[i]; i += 2) {
        if (!fields[i][0])
            RCMD("HDEL mcp:task:" FAKE_ID " %s", fields[i + 1]);
        else
            RCMD("HSET mcp:task:" FAKE_ID " %s %b", fields[i], fields[i + 1],
                 strlen(fields[i + 1]));
    }
}

typedef struct garbage {
    const char *what;
    const char *fields[12];
    const char *get_has; /* what tasks/get's answer holds */
} garbage;

/* Whatever a record holds, tasks/get answers one well-formed line: the task
 * (its wrong parts dropped or shown as they are, in valid JSON) or a clear
 * error; tasks/update and tasks/cancel too. */
static void garbage_records_get_clean_answers(void **state)
{
    (void)state;
    harness h;
    start_dup(&h, NULL);
    static const garbage cases[] = {
        {"a status no task has", {"s", "sleeping", NULL}, "no task"},
        {"no status", {"", "s", NULL}, "no task"},
        {"no owner", {"", "o", NULL}, "no task"},
        {"another owner", {"o", "0000", NULL}, "no task"},
        {"times not numbers", {"c", "yesterday", "u", "\x01\x02", NULL}, "is malformed: "},
        {"times past any year", {"c", "99999999999999999999999", "u", "-99999999999999999999",
                                 NULL}, "is malformed: "},
        {"negative times", {"c", "-1", "u", "-1500", NULL}, "is malformed: "},
        {"a negative ttl", {"t", "-1", "p", "-7", NULL}, "is malformed: "},
        {"ttl past 2^64", {"t", "999999999999999999999999", NULL}, "is malformed: "},
        {"no times at all", {"", "c", "", "u", "", "t", "", "p", NULL}, "is malformed: "},
        {"a message not UTF-8", {"m", "\xff\xfe\xc0", NULL}, "is malformed: "},
        {"a message with controls", {"m", "a\"b\\c\n\r\t\x01", NULL}, "\"status\":\"working\""},
        {"inputRequests not JSON", {"s", "input_required", "i", "{not json", NULL}, "is malformed: "},
        {"inputRequests an array", {"s", "input_required", "i", "[1,2]", NULL}, "is malformed: "},
        {"inputRequests two values", {"s", "input_required", "i", "{} {}", NULL}, "is malformed: "},
        {"inputRequests a closing brace", {"s", "input_required", "i", "}", NULL}, "is malformed: "},
        {"a result not JSON", {"s", "completed", "x", "<html>", NULL}, "is malformed: "},
        {"a result an array", {"s", "completed", "x", "[1]", NULL}, "is malformed: "},
        {"a result a string", {"s", "completed", "x", "\"s\"", NULL}, "is malformed: "},
        {"an error not JSON", {"s", "failed", "e", "1", "x", "oops", "k", "x", NULL}, "is malformed: "},
        {"an error whose message is a number",
         {"s", "failed", "e", "1", "x", "{\"message\":5,\"code\":\"x\"}", "k", "-1", NULL},
         "is malformed: "},
        {"an error flag of garbage", {"s", "failed", "e", "\xff", "x", "{}", NULL}, "is malformed: "},
        {"an outcome while working", {"x", "}}}", "e", "1", NULL}, "\"status\":\"working\""},
        {"fields of other names", {"ss", "x", "\xff", "y", "status", "completed", NULL},
         "\"status\":\"working\""},
    };
    int rid = 10;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_record(cases[i].fields);
        char *a = on_task(&h, rid++, "tasks/get", FAKE_ID, NULL);
        if (!strstr(a, cases[i].get_has))
            fail_msg("%s: no %s in %s", cases[i].what, cases[i].get_has, a);
        free(a);
        free(on_task(&h, rid++, "tasks/update", FAKE_ID, "\"inputResponses\":{}"));
        free(on_task(&h, rid++, "tasks/cancel", FAKE_ID, NULL));
        free(on_task(&h, rid++, "tasks/get", FAKE_ID, NULL));
    }
    /* Huge fields: a 4 MiB message, a binary outcome, a 100,000-deep
     * inputRequests. */
    size_t big = (size_t)4 << 20;
    char *huge = malloc(big + 100001);
    memset(huge, 'm', big);

    huge[big] = '\0';
    const char *const with_huge[] = {"m", huge, NULL};
    fake_record(with_huge);
    ext_send(&h, rid, "tasks/get", "\"taskId\":\"" FAKE_ID "\"");
    char want[24];
    snprintf(want, sizeof want, "\"id\":%d,", rid);
    /* Past the parser's default 4 MiB: its shape checked by hand. */
    char *line = long_expect(&h.w, want);
    size_t alen = strlen(line);
    assert_true(alen > big && !strcmp(line + alen - 2, "}}"));
    assert_non_null(strstr(line, "\"statusMessage\":\"mmmm"));
    free(line);
    rid++;
    memset(huge, '[', 100000);
    huge[100000] = '\0';
    const char *const deep[] = {"s", "input_required", "i", huge, NULL};
    fake_record(deep);
    free(on_task(&h, rid++, "tasks/get", FAKE_ID, NULL));
    free(huge);
    static const char binary[] = {'{', '"', 'a', '"', ':', '"', 0, '"', '}'};
    RCMD("HSET mcp:task:" FAKE_ID " s completed x %b", binary, sizeof binary);
    free(on_task(&h, rid++, "tasks/get", FAKE_ID, NULL));
    /* The key of another type: a string, a list, a set. */
    const char *types[] = {"SET mcp:task:" FAKE_ID " working",
                           "RPUSH mcp:task:" FAKE_ID " s working", "SADD mcp:task:" FAKE_ID " s"};
    for (size_t i = 0; i < 3; i++) {
        RCMD("DEL mcp:task:" FAKE_ID);
        RCMD(types[i]);
        char *a = on_task(&h, rid++, "tasks/get", FAKE_ID, NULL);
        assert_non_null(strstr(a, "\"error\""));
        free(a);
        free(on_task(&h, rid++, "tasks/update", FAKE_ID, "\"inputResponses\":{}"));
        free(on_task(&h, rid++, "tasks/cancel", FAKE_ID, NULL));
    }
    RCMD("DEL mcp:task:" FAKE_ID);
    expect_in(on_task(&h, rid++, "tasks/get", FAKE_ID, NULL), "no task");
    stop_dup(&h);
}

/* Until tasks/get of task on h holds want (5 s at most): its answer. */
static char *get_until(harness *h, int rid, const char *task, const char *want)
{
    char *a = NULL;
    for (int i = 0; i < 250; i++) {
        free(a);
        a = on_task(h, rid, "tasks/get", task, NULL);
        if (strstr(a, want))
            return a;
        usleep(20000);
    }
    fail_msg("tasks/get %s: no %s in %s", task, want, a);
    return NULL;
}

/* A record deleted while its task runs here, then Redis flushed whole:
 * the runner holds the task, so its next change writes the record again
 * (its end was lost with the record: a client polling tasks/get never
 * learnt the task had completed); and the store goes on. */
static void a_record_deleted_or_flushed_while_its_task_runs(void **state)
{
    (void)state;
    reset();
    harness h;
    start(&h, NULL);
    char task[33];
    make_task(&h, 1, "gate", task);
    RCMD("DEL mcp:task:%s", task);
    expect_in(on_task(&h, 2, "tasks/get", task, NULL), "no task");
    atomic_store(&released, 1);
    wait_ended();
    expect_in(get_until(&h, 3, task, "\"completed\""), "done");
    char *owner = record_field(task, "o");
    assert_string_equal(owner, "-");
    free(owner);
    redisReply *ttl = rcmd_on(&redis, "PTTL mcp:task:%s", task);
    assert_true(ttl->integer > 3000000 && ttl->integer <= 3600000); /* what was left of it */
    freeReplyObject(ttl);

    reset();
    char second[33];
    make_task(&h, 5, "gate", second);
    RCMD("FLUSHALL");
    expect_in(on_task(&h, 6, "tasks/get", second, NULL), "no task");
    atomic_store(&released, 1);
    wait_ended();
    expect_in(get_until(&h, 7, second, "\"completed\""), "done");
    /* Its lease and its runner are back too: the store still works. */
    reset();
    make_task(&h, 8, "gate", second);
    expect_in(on_task(&h, 9, "tasks/get", second, NULL), "\"status\":\"working\"");
    for (int i = 0; i < 100; i++) {
        redisReply *r = rcmd_on(&redis, "SCARD mcp:runners");
        bool back = r->integer == 1;
        freeReplyObject(r);
        if (back)
            break;
        usleep(20000);
    }
    atomic_store(&released, 1);
    wait_ended();
    harness_stop(&h);
}

/* Garbage published ------------------------------------------------------------------------ */

/* The listen line naming task ids (a JSON array's members). */
static void send_listen(harness *h, int rid, const char *task_ids)
{
    char line[600];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"subscriptions/listen\",\"params\":"
             "{\"notifications\":{\"taskIds\":[%s],\"toolsListChanged\":true},\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{"
             "\"io.modelcontextprotocol/tasks\":{}}}}}}",
             rid, task_ids);
    wire_send(&h->w, line);
}

/* Garbage on mcp:events and on the runner's channel: short, long, without
 * a newline, binary, of the right shape for another owner, news of no kind.
 * The server stays up, its task runs on (unless a well-formed cancel names
 * it: whoever writes Redis may cancel), and every line it writes, the
 * listen's notifications included, is well-formed JSON. */
static void garbage_published_is_ignored(void **state)
{
    (void)state;
    reset();
    harness h;
    start(&h, NULL);
    char task[33], quoted[40];
    make_task(&h, 1, "gate", task);
    snprintf(quoted, sizeof quoted, "\"%s\"", task);
    send_listen(&h, 2, quoted);
    free(wire_expect(&h.w, "notifications/subscriptions/acknowledged"));
    /* Its own runner's channel: mcp:runners may still hold the runners of
     * earlier tests' servers (a new process reaps no one at first). */
    char key[64];
    snprintf(key, sizeof key, "mcp:task:%s", task);
    redisReply *runner = rcmd_on(&redis, "HGET %s r", key);
    assert_true(runner && runner->type == REDIS_REPLY_STRING);
    char runner_channel[64];
    snprintf(runner_channel, sizeof runner_channel, "mcp:runner:%s", runner->str);
    freeReplyObject(runner);

    size_t big = 1 << 20;
    char *huge = malloc(big);
    memset(huge, 'N', big);
    char msgs[40][200];
    size_t lens[40], n = 0;
#define MSG(...) (lens[n] = (size_t)snprintf(msgs[n], sizeof msgs[n], __VA_ARGS__), n++)
    MSG("%s", "");
    MSG("x");
    MSG("\n");
    MSG("N");
    MSG("N\n");
    MSG("%s -", task);                           /* no newline */
    MSG("%s -\n", task + 1);                     /* an id too short */
    MSG("%s -\n{", task);                        /* not JSON */
    MSG("%s -\n[1,2]", task);                    /* not an object */
    MSG("%s -\n\"s\"", task);
    MSG("%s -\n{\"taskId\":5,\"status\":[]}", task); /* an object of the wrong shape */
    MSG("%s %064d\n{\"taskId\":\"%s\",\"status\":\"completed\"}", task, 7, task); /* another's */
    MSG("%s %064d\n", task, 7);
    MSG("%s -\n\xff\xfe", task);
    MSG("Nffffffffffffffffffffffffffffffff 4294967295\nx");
    MSG("Nffffffffffffffffffffffffffffffff -1\n");
    MSG("Nffffffffffffffffffffffffffffffff 8\n\xff");     /* a URI not UTF-8 */
    MSG("Nffffffffffffffffffffffffffffffff 1\nunexpected"); /* tools news with a URI */
    MSG("Nffffffffffffffffffffffffffffffff x\n");
    MSG("Nffffffffffffffffffffffffffffffff 1");             /* no newline */
    MSG("Nshort 1\n");
    MSG("X%s", task);
    MSG("U%s", task);   /* answers to take: there are none */
    MSG("C%.31s", task); /* too short */
    MSG("Cffffffffffffffffffffffffffffffff"); /* a task not here */
    MSG("U\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n");
#undef MSG
    const char *channels[] = {"mcp:events", runner_channel};
    for (int round = 0; round < 3; round++)
        for (size_t c = 0; c < 2; c++) {
            for (size_t i = 0; i < n; i++)
                RCMD("PUBLISH %s %b", channels[c], msgs[i], lens[i]);
            RCMD("PUBLISH %s %b", channels[c], huge, big);
            huge[0] = 'X';
            RCMD("PUBLISH %s %b", channels[c], huge, big);
            huge[0] = 'N';
            static const char nul[] = {'C', 0, 'x'};
            RCMD("PUBLISH %s %b", channels[c], nul, sizeof nul);
        }
    free(huge);
    /* Still up, the task still running; every line it wrote is JSON. */
    expect_in(on_task(&h, 3, "tasks/get", task, NULL), "\"status\":\"working\"");
    char *line;
    while ((line = wire_read(&h.w, 200))) {
        mcp_json_doc *d = NULL;
        if (mcp_json_parse(line, strlen(line), NULL, NULL, &d, NULL) != MCP_OK)
            fail_msg("not JSON: %.300s", line);
        mcp_json_doc_free(d);
        free(line);
    }
    /* A well-formed cancel on its runner's channel is obeyed. */
    RCMD("PUBLISH %s C%s", runner_channel, task);
    wait_ended();
    harness_stop(&h);
}

/* Redis at bad moments ---------------------------------------------------------------------- */

/* Redis killed (no persistence: it comes back empty) at each step of a
 * task's life: before its create is confirmed, while it runs, while it
 * waits for an answer, as tasks/update and tasks/cancel are sent. Every
 * answer is well-formed; none crashes; the store comes back. */
static void redis_killed_at_each_step(void **state)
{
    (void)state;
    ext_caps = "\"elicitation\":{},";
    for (int step = 0; step < 5; step++) {
        /* A handler of the step before may end only now (one queued behind
         * a loaded machine's others, abandoned past the grace): let the
         * counts settle before they restart. */
        harness_wait_abandoned();
        wait_ended();
        reset();
        harness h;
        start(&h, &(server_opts){.timeout_ms = 200});
        char task[33] = "";
        int rid = 10;
        if (step == 0) {
            /* Its create sent to a paused Redis, which then dies. */
            redis_server_pause(&redis);
            ext_send(&h, rid, "tools/call", "\"name\":\"gate\",\"arguments\":{}");
            usleep(50000);
            redis_server_kill(&redis);
            char want[24];
            snprintf(want, sizeof want, "\"id\":%d,", rid);
            expect_in(well_formed(wire_expect(&h.w, want), rid), "task store");
            rid++;
        } else {
            make_task(&h, rid++, step >= 2 ? "ask" : "gate", task);
            if (step >= 2)
                free(ext_until(&h, rid++, task, "input_required"));
            if (step == 3 || step == 4) {
                /* The request out, Redis killed under it. */
                redis_server_pause(&redis);
                if (step == 3)
                    ext_send(&h, rid, "tasks/update", "\"taskId\":\"x\",\"inputResponses\":{}");
                char params[200];
                snprintf(params, sizeof params,
                         step == 3 ? "\"taskId\":\"%s\",\"inputResponses\":{\"who\":{\"action\":"
                                     "\"accept\",\"content\":{\"name\":\"Al\"}}}"
                                   : "\"taskId\":\"%s\"",
                         task);
                ext_send(&h, rid + 1, step == 3 ? "tasks/update" : "tasks/cancel", params);
                usleep(50000);
                redis_server_kill(&redis);
                char want[24];
                snprintf(want, sizeof want, "\"id\":%d,", rid + 1);
                free(well_formed(wire_expect(&h.w, want), rid + 1));
                rid += 2;
            } else {
                redis_server_kill(&redis);
            }
        }
        char *a = on_task(&h, rid++, "tasks/get", task[0] ? task : FAKE_ID, NULL);
        assert_non_null(strstr(a, "task store is unavailable"));
        free(a);
        assert_true(redis_server_restart(&redis));
        wait_store(&h);
        if (task[0]) {
            /* The runner writes its task's record again (the update of
             * step 3 may have landed before the kill: answered or not). */
            free(get_until(&h, rid++, task, "\"status\":\""));
            free(on_task(&h, rid++, "tasks/cancel", task, NULL));
            expect_in(get_until(&h, rid++, task, "ed\""), "\"status\":\"cancelled\"");
        }
        atomic_store(&released, 1);
        harness_stop(&h);
        wait_ended();
    }
    ext_caps = "";
}

/* A stop while Redis answers nothing (the task's failure waits for it):
 * the server returns within its timeout and grace, not later. */
static void a_stop_while_redis_is_paused_is_bounded(void **state)
{
    (void)state;
    reset();
    harness h;
    start(&h, &(server_opts){.timeout_ms = 500});
    char task[33];
    make_task(&h, 1, "gate", task);
    redis_server_pause(&redis);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    atomic_store(&released, 1);
    harness_stop(&h);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
    print_message("stopped in %ld ms with Redis paused\n", ms);
    redis_server_resume(&redis);
    /* Its timeout and grace, with room for a loaded machine (make check
     * runs valgrind beside it): what this guards is a stop that waits for
     * Redis without end. */
    assert_true(ms < 500 + 300 + 8000);
    wait_ended();
}

/* The wrong password, a db out of range, a password Redis does not want, a
 * port nothing listens on: every task request answers -32603 saying why,
 * promptly; plain calls are served. */
static void redis_refusing_says_why(void **state)
{
    (void)state;
    redis_server guarded;
    redis_server_options o = {.password = "right"};
    assert_true(redis_server_start(&guarded, &o));
    char urls[4][400], *want[4] = {"AUTH failed", "SELECT 2147483647 failed", "AUTH failed",
                                   "connect"};
    snprintf(urls[0], sizeof urls[0], "redis://:wrong@127.0.0.1:%d", guarded.port);
    snprintf(urls[1], sizeof urls[1], "redis://127.0.0.1:%d/2147483647", redis.port);
    snprintf(urls[2], sizeof urls[2], "redis://someone:pw@127.0.0.1:%d", redis.port);
    snprintf(urls[3], sizeof urls[3], "redis://127.0.0.1:%d", redis_server_free_port());
    for (int i = 0; i < 4; i++) {
        harness h;
        harness_start(&h, new_server(&(server_opts){.url = urls[i]}), NULL, NULL, NULL);
        /* Until the first connect has failed (slow under valgrind). */
        char *a = NULL;
        for (int tries = 0; tries < 250 && (!a || !strstr(a, want[i])); tries++) {
            free(a);
            usleep(20000);
            a = on_task(&h, 1, "tasks/get", FAKE_ID, NULL);
        }
        if (!strstr(a, "task store is unavailable") || !strstr(a, want[i]))
            fail_msg("%s: %s", urls[i], a);
        free(a);
        a = well_formed(ext_req(&h, 2, "tools/call", "\"name\":\"gate\",\"arguments\":{}"), 2);
        assert_non_null(strstr(a, "-32603"));
        free(a);
        expect_in(well_formed(ext_req(&h, 3, "tools/call", "\"name\":\"plain\",\"arguments\":{}"),
                              3),
                  "plain");
        harness_stop(&h);
    }
    /* A second Redis: its server finds none of the first one's tasks. */
    reset();
    harness a, b;
    start(&a, NULL);
    char url[400];
    snprintf(url, sizeof url, "redis://:right@127.0.0.1:%d", guarded.port);
    start(&b, &(server_opts){.url = url});
    char task[33];
    make_task(&a, 1, "gate", task);
    expect_in(on_task(&b, 2, "tasks/get", task, NULL), "no task");
    expect_in(on_task(&b, 3, "tasks/cancel", task, NULL), "no task");
    atomic_store(&released, 1);
    wait_ended();
    harness_stop(&a);
    harness_stop(&b);
    redis_server_destroy(&guarded);
}

/* Options at their extremes -------------------------------------------------------------------- */

/* The shortest lease (1 ms, which the server raises to twice the store's
 * timeout: 2 s here) and the longest (2^64-1 ms) on two servers sharing one
 * Redis: neither may have the other's running task failed as if its
 * process had died, however many leases pass. (The timeout is not made
 * shorter to shorten the lease: under valgrind, which runs one thread at
 * a time, a 300 ms deadline on Redis's answers is missed, and the link
 * going down is then what the test sees.) */
static void extreme_leases_do_not_kill_live_tasks(void **state)
{
    (void)state;
    const uint64_t leases[] = {1, UINT64_MAX};
    for (int i = 0; i < 2; i++) {
        reset();
        harness a, b;
        start(&a, &(server_opts){.lease_ms = leases[i]});
        start(&b, &(server_opts){.lease_ms = leases[i]});
        char task[33];
        make_task(&a, 1, "gate", task);
        usleep(2500000); /* longer than the shortest lease */
        char *got = on_task(&b, 2, "tasks/get", task, NULL);
        if (!strstr(got, "\"status\":\"working\""))
            fail_msg("lease %llu ms: a live task was failed: %s", (unsigned long long)leases[i],
                     got);
        free(got);
        atomic_store(&released, 1);
        wait_ended();
        harness_stop(&a);
        harness_stop(&b);
    }
}

/* A 1 ms timeout: task requests fail fast and say so, or work; nothing
 * spins, nothing crashes, the stop is prompt. */
static void a_one_millisecond_timeout(void **state)
{
    (void)state;
    harness h;
    harness_start(&h, new_server(&(server_opts){.timeout_ms = 1}), NULL, NULL, NULL);
    for (int i = 0; i < 50; i++) {
        char *a = on_task(&h, i, "tasks/get", FAKE_ID, NULL);
        assert_true(strstr(a, "no task") || strstr(a, "task store is unavailable"));
        free(a);
        usleep(5000);
    }
    harness_stop(&h);
}

/* Hostile clients ---------------------------------------------------------------------------- */

/* tasks/update with 4 MiB of answers; 300 updates of a task whose runner
 * never takes them (the list's cap is 256); 300 of a task in flight; a
 * storm of cancels; 10,000 unknown ids; ids of every wrong shape. */
static void hostile_clients(void **state)
{
    (void)state;
    reset();
    ext_caps = "\"elicitation\":{},";
    harness h;
    start(&h, NULL);
    char task[33];
    make_task(&h, 1, "ask", task);
    free(ext_until(&h, 2, task, "input_required"));
    /* 4 MiB of answers to a key nobody asked. */
    size_t big = (size_t)4 << 20;
    char *params = malloc(big + 200);
    int n = snprintf(params, big + 200, "\"taskId\":\"%s\",\"inputResponses\":{\"junk\":{\"v\":\"",
                     task);
    memset(params + n, 'a', big);
    strcpy(params + n + big, "\"}}");
    ext_send(&h, 3, "tasks/update", params);
    free(params);
    free(well_formed(wire_expect(&h.w, "\"id\":3,"), 3));
    /* 300 updates in flight, pipelined, then the real answer. */
    char p[300];
    snprintf(p, sizeof p, "\"taskId\":\"%s\",\"inputResponses\":{\"nobody\":{\"action\":\"decline\"}}",
             task);
    for (int i = 0; i < 300; i++)
        ext_send(&h, 1000 + i, "tasks/update", p);
    for (int i = 0; i < 300; i++) {
        char want[24];
        snprintf(want, sizeof want, "\"id\":%d,", 1000 + i);
        free(well_formed(wire_expect(&h.w, want), 1000 + i));
    }
    snprintf(p, sizeof p, "\"taskId\":\"%s\",\"inputResponses\":{\"who\":{\"action\":\"accept\","
             "\"content\":{\"name\":\"Ed\"}}}", task);
    expect_in(well_formed(ext_req(&h, 4, "tasks/update", p), 4), ACK);
    expect_in(ext_until(&h, 5, task, "\"completed\""), "answered");
    /* 300 updates of a task whose runner is gone: the first 256 wait, the
     * rest are refused, each saying why. */
    fake_record((const char *const[]){"s", "input_required", NULL});
    int acked = 0, full = 0;
    for (int i = 0; i < 300; i++)
        ext_send(&h, 2000 + i, "tasks/update", "\"taskId\":\"" FAKE_ID "\",\"inputResponses\":{}");
    for (int i = 0; i < 300; i++) {
        char want[24];
        snprintf(want, sizeof want, "\"id\":%d,", 2000 + i);
        char *a = well_formed(wire_expect(&h.w, want), 2000 + i);
        acked += strstr(a, ACK) != NULL;
        full += strstr(a, "the task store refused it: too many answers") != NULL;
        if (i == 299)
            print_message("the 300th update: %s\n", a);
        free(a);
    }
    assert_int_equal(acked, 256);
    assert_int_equal(full, 44);
    RCMD("DEL mcp:task:" FAKE_ID " mcp:answers:" FAKE_ID);
    /* A cancel storm on a running task. */
    reset();
    make_task(&h, 6, "gate", task);
    for (int i = 0; i < 200; i++) {
        char q[80];
        snprintf(q, sizeof q, "\"taskId\":\"%s\"", task);
        ext_send(&h, 3000 + i, "tasks/cancel", q);
    }
    for (int i = 0; i < 200; i++) {
        char want[24];
        snprintf(want, sizeof want, "\"id\":%d,", 3000 + i);
        expect_in(well_formed(wire_expect(&h.w, want), 3000 + i), ACK);
    }
    wait_ended();
    expect_in(on_task(&h, 7, "tasks/get", task, NULL), "\"status\":\"cancelled\"");
    /* 10,000 unknown ids, pipelined. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 10000; i++) {
        char q[80];
        snprintf(q, sizeof q, "\"taskId\":\"%032x\"", i);
        ext_send(&h, 10000 + i, "tasks/get", q);
        if (i % 500 == 499)
            for (int k = i - 499; k <= i; k++) {
                char want[24];
                snprintf(want, sizeof want, "\"id\":%d,", 10000 + k);
                expect_in(wire_expect(&h.w, want), "no task");
            }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    print_message("10,000 unknown ids in %ld ms\n",
                  (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
    /* Ids of the wrong shape: short, long, binary, escapes, Redis patterns. */
    const char *ids[] = {"", "x", "0123456789abcdef0123456789abcde", FAKE_ID "0",
                         "\\u0000123456789abcdef0123456789abcdef", "*", "0123456789abcdef*",
                         "mcp:task:*", "\\ud83d\\ude00123456789abcdef0123456789abc",
                         "********************************", ("\\n\\n\\n\\n\\n\\n\\n\\n"
                          "\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n\\n")};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        expect_in(on_task(&h, 8, "tasks/get", ids[i], NULL), "no task");
        expect_in(on_task(&h, 9, "tasks/cancel", ids[i], NULL), "no task");
        expect_in(on_task(&h, 10, "tasks/update", ids[i], "\"inputResponses\":{}"), "no task");
    }
    ext_caps = "";
    harness_stop(&h);
}

/* Two servers racing: the end on one, a cancel and an update on the
 * other, many rounds: one terminal status each round, the same on both. */
static void cancel_update_and_end_racing(void **state)
{
    (void)state;
    ext_caps = "\"elicitation\":{},";
    harness a, b;
    start(&a, NULL);
    start(&b, NULL);
    for (int round = 0; round < 20; round++) {
        reset();
        char task[33];
        make_task(&a, 100 + round, "ask", task);
        free(ext_until(&b, 200 + round, task, "input_required"));
        char p[300];
        snprintf(p, sizeof p, "\"taskId\":\"%s\",\"inputResponses\":{\"who\":{\"action\":"
                 "\"accept\",\"content\":{\"name\":\"Ed\"}}}", task);
        ext_send(&b, 300 + round, "tasks/update", p);
        if (round % 2)
            usleep((useconds_t)(round % 7) * 300);
        snprintf(p, sizeof p, "\"taskId\":\"%s\"", task);
        ext_send(&a, 400 + round, "tasks/cancel", p);
        char want[24];
        snprintf(want, sizeof want, "\"id\":%d,", 300 + round);
        free(well_formed(wire_expect(&b.w, want), 300 + round));
        snprintf(want, sizeof want, "\"id\":%d,", 400 + round);
        free(well_formed(wire_expect(&a.w, want), 400 + round));
        wait_ended();
        char *sa = ext_until(&a, 500 + round, task, "ed\"");
        char *sb = ext_until(&b, 600 + round, task, "ed\"");
        char *r = record_field(task, "s");
        assert_non_null(r);
        char st[40];
        snprintf(st, sizeof st, "\"status\":\"%s\"", r);
        if (!strstr(sa, st) || !strstr(sb, st))
            fail_msg("record %s; a: %s; b: %s", r, sa, sb);
        free(sa);
        free(sb);
        free(r);
    }
    ext_caps = "";
    harness_stop(&a);
    harness_stop(&b);
}

static int setup(void **state)
{
    (void)state;
    if (!redis_server_start(&redis, NULL))
        return -1;
    snprintf(store_url, sizeof store_url, "%s", redis.url);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    redis_server_destroy(&redis);
    return 0;
}

int main(void)
{
    const char *missing = redis_server_missing();
    if (missing)
        return test_missing(missing);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(garbage_records_get_clean_answers),
        cmocka_unit_test(a_record_deleted_or_flushed_while_its_task_runs),
        cmocka_unit_test(garbage_published_is_ignored),
        cmocka_unit_test(redis_killed_at_each_step),
        cmocka_unit_test(a_stop_while_redis_is_paused_is_bounded),
        cmocka_unit_test(redis_refusing_says_why),
        cmocka_unit_test(extreme_leases_do_not_kill_live_tasks),
        cmocka_unit_test(a_one_millisecond_timeout),
        cmocka_unit_test(hostile_clients),
        cmocka_unit_test(cancel_update_and_end_racing),
    };
    /* ATTACK_ONLY=name: that test alone (while working on one). */
    if (getenv("ATTACK_ONLY"))
        cmocka_set_test_filter(getenv("ATTACK_ONLY"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
