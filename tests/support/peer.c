/* SPDX-License-Identifier: MIT */
#include "peer.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

peer_fault peer_faults;

bool peer_expect(bool ok, const char *what, const char *file, int line)
{
    if (ok)
        return true;
    if (peer_faults.at) {
        peer_faults.diverged++;
        return false;
    }
    fail_msg("%s:%d: expected %s", file, line, what);
    return false;
}

/* What peer_next gives under fault injection when nothing is left, so that
 * a test reading past the end of a conversation cut short reads nothing. */
static mcp_message blank = {.error_message = "", .method = NULL};

static int on_send(void *ud, uint64_t route, const char *data, size_t len)
{
    peer *p = ud;
    if (++p->sends == p->fail_at) {
        peer_faults.fired++;
        if (p->fail_mode == PEER_FAIL_CLOSE)
            mcp_session_close(p->s, p->now);
        return MCP_ERR_IO;
    }
    /* Each send is one or more complete lines. */
    assert_true(len > 0 && data[len - 1] == '\n');
    const char *line = data;
    while (line < data + len) {
        const char *nl = memchr(line, '\n', (size_t)(data + len - line));
        assert_non_null(nl);
        assert_true(p->nsent < PEER_MAX);
        sent_msg *m = &p->sent[p->nsent++];
        m->route = route;
        m->line = strndup(line, (size_t)(nl - line));
        int rc = mcp_message_decode(line, (size_t)(nl - line), NULL, NULL, &m->msg, NULL);
        /* A batch answer (2025-03-26) is an array of valid messages. */
        for (size_t i = 0; rc == MCP_ERR_RPC_BATCH && i < mcp_json_array_size(m->msg->batch); i++) {
            mcp_message *item;
            if (mcp_message_decode_batch_item(m->msg, i, NULL, &item, NULL) != MCP_OK)
                fail_msg("session sent an invalid batch item: %s", m->line);
            mcp_message_free(item);
        }
        if (rc != MCP_OK && !(rc == MCP_ERR_RPC_BATCH && mcp_json_array_size(m->msg->batch)))
            fail_msg("session sent an invalid message: %s", m->line);
        line = nl + 1;
    }
    return MCP_OK;
}

static void on_request(void *ud, mcp_handle h, const mcp_message *msg)
{
    peer *p = ud;
    assert_true(p->nrequests < PEER_MAX);
    assert_true(mcp_session_inbound_active(p->s, h)); /* registered first */
    p->requests[p->nrequests] = h;
    p->request_msgs[p->nrequests++] = mcp_message_retain((mcp_message *)msg);
    if (p->on_request_hook)
        p->on_request_hook(p, h, msg);
}

static void on_cancel(void *ud, mcp_handle h, const char *reason)
{
    peer *p = ud;
    assert_true(p->ncancels < PEER_MAX);
    assert_false(mcp_session_inbound_active(p->s, h)); /* settled first */
    p->cancels[p->ncancels] = h;
    p->cancel_reasons[p->ncancels++] = reason ? strdup(reason) : NULL;
    if (p->on_cancel_hook)
        p->on_cancel_hook(p, h);
}

static void on_route_ended(void *ud, uint64_t route)
{
    peer *p = ud;
    assert_true(p->nroutes_ended < PEER_MAX);
    p->routes_ended[p->nroutes_ended++] = route;
}

static void on_listen(void *ud, mcp_handle h, const mcp_json *uris, bool open)
{
    peer *p = ud;
    if (open)
        p->listens_opened++;
    else
        p->listens_ended++;
    p->listen_last = h;
    p->listen_last_uris = mcp_json_array_size(uris);
}

static void on_notification(void *ud, const mcp_message *msg)
{
    ((peer *)ud)->notifications++;
}

static void on_initialized(void *ud)
{
    ((peer *)ud)->initialized++;
}

static void on_log(void *ud, const mcp_log_record *r)
{
    peer *p = ud;
    if (p->nlogs >= PEER_MAX)
        return;
    p->logs[p->nlogs] = *r;
    p->log_texts[p->nlogs] = strdup(r->message);
    p->log_reasons[p->nlogs] = r->reason ? strdup(r->reason) : NULL;
    p->log_methods[p->nlogs] = r->method ? strdup(r->method) : NULL;
    p->logs[p->nlogs].message = p->log_texts[p->nlogs];
    p->logs[p->nlogs].reason = p->log_reasons[p->nlogs];
    p->logs[p->nlogs].method = p->log_methods[p->nlogs];
    p->logs[p->nlogs].id = NULL; /* not kept beyond the callback */
    p->nlogs++;
}

int peer_try_init_mem(peer *p, mcp_role role, const mcp_session_options *opts,
                      const mcp_mem *mem)
{
    memset(p, 0, sizeof *p);
    p->now = 1000;
    mcp_session_options o = opts ? *opts : (mcp_session_options){0};
    o.size = sizeof o;
    o.role = role;
    o.mem = mem;
    mcp_session_callbacks cb = {.size = sizeof(mcp_session_callbacks),
                                .send = on_send,
                                .on_request = on_request,
                                .on_cancel = on_cancel,
                                .on_notification = on_notification,
                                .on_initialized = on_initialized,
                                .log = on_log,
                                .user_data = p,
                                .on_route_ended = on_route_ended,
                                .on_listen = on_listen};
    p->fail_at = peer_faults.at;
    p->fail_mode = peer_faults.mode;
    return mcp_session_new(&o, &cb, &p->s);
}

void peer_init_mem(peer *p, mcp_role role, const mcp_session_options *opts,
                   const mcp_mem *mem)
{
    PEER_EXPECT(peer_try_init_mem(p, role, opts, mem) == MCP_OK);
}

void peer_init(peer *p, mcp_role role, const mcp_session_options *opts)
{
    peer_init_mem(p, role, opts, NULL);
}

void peer_free(peer *p)
{
    mcp_session_free(p->s);
    for (int i = 0; i < p->nsent; i++) {
        free(p->sent[i].line);
        mcp_message_free(p->sent[i].msg);
    }
    for (int i = 0; i < p->nrequests; i++)
        mcp_message_free(p->request_msgs[i]);
    for (int i = 0; i < p->ncancels; i++)
        free(p->cancel_reasons[i]);
    for (int i = 0; i < p->nresponses; i++)
        mcp_message_free(p->response_msgs[i]);
    for (int i = 0; i < p->nlogs; i++) {
        free(p->log_texts[i]);
        free(p->log_reasons[i]);
        free(p->log_methods[i]);
    }
}

int peer_feed(peer *p, const char *json)
{
    return mcp_session_receive(p->s, p->now, 0, json, strlen(json));
}

const mcp_message *peer_next(peer *p)
{
    if (p->taken < p->nsent)
        return p->sent[p->taken++].msg;
    return peer_faults.at ? &blank : NULL;
}

const mcp_message *peer_sent(const peer *p, int i)
{
    if (i < p->nsent)
        return p->sent[i].msg;
    return peer_faults.at ? &blank : NULL;
}

int peer_unread(const peer *p)
{
    return p->nsent - p->taken;
}

void peer_advance(peer *p, uint64_t ms)
{
    p->now += ms;
    mcp_session_tick(p->s, p->now);
}

void peer_server_ready(peer *p, const char *version)
{
    char init[256];
    snprintf(init, sizeof init,
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
             "{\"protocolVersion\":\"%s\",\"capabilities\":{},"
             "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", version);
    PEER_EXPECT(peer_feed(p, init) == MCP_OK);
    const mcp_message *r = peer_next(p);
    PEER_EXPECT(r && r->kind == MCP_MESSAGE_RESULT);
    PEER_EXPECT(peer_feed(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}") ==
                MCP_OK);
    PEER_EXPECT(p->initialized == 1);
}

static void record_response(void *ud, mcp_handle h, int outcome, const mcp_message *msg)
{
    peer_req *r = ud;
    peer *p = r->p;
    /* Never a callback for a request reported failed, never two. */
    assert_false(r->failed);
    assert_false(r->called);
    r->called = true;
    assert_true(p->nresponses < PEER_MAX);
    /* Exactly once per request. */
    assert_int_equal(peer_response_index(p, h), -1);
    p->responses[p->nresponses] = h;
    p->outcomes[p->nresponses] = outcome;
    p->response_msgs[p->nresponses++] = msg ? mcp_message_retain((mcp_message *)msg) : NULL;
    if (p->on_response_hook)
        p->on_response_hook(p, h, outcome);
}

static void record_progress(void *ud, mcp_handle h, double progress, double total,
                            const char *message)
{
    peer *p = ((peer_req *)ud)->p;
    assert_true(p->nprogress < PEER_MAX);
    p->progress_handles[p->nprogress] = h;
    p->progress_values[p->nprogress] = progress;
    p->progress_totals[p->nprogress++] = total;
}

void peer_client_ready(peer *p)
{
    assert_true(p->nreqs < PEER_MAX);
    peer_req *r = &p->reqs[p->nreqs++];
    r->p = p;
    if (!PEER_EXPECT(mcp_session_initialize(p->s, p->now, 0, record_response, r) == MCP_OK))
        r->failed = true;
    const mcp_message *init = peer_next(p);
    PEER_EXPECT(msg_is_method(init, "initialize"));
    char result[256];
    snprintf(result, sizeof result,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"protocolVersion\":\"2025-11-25\","
             "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}",
             (long long)init->id.num);
    PEER_EXPECT(peer_feed(p, result) == MCP_OK);
    PEER_EXPECT(p->nresponses > 0 && p->outcomes[p->nresponses - 1] == MCP_OK);
    PEER_EXPECT(msg_is_method(peer_next(p), "notifications/initialized"));
    PEER_EXPECT(mcp_session_ready(p->s));
}

int peer_request(peer *p, const char *method, const char *params_json,
                 const mcp_request_options *o, mcp_handle *h)
{
    mcp_json_doc *doc = NULL;
    if (params_json)
        assert_int_equal(mcp_json_parse(params_json, strlen(params_json), NULL, NULL, &doc, NULL),
                         MCP_OK);
    assert_true(p->nreqs < PEER_MAX);
    peer_req *r = &p->reqs[p->nreqs++];
    r->p = p;
    int rc = mcp_session_request(p->s, p->now, method, mcp_json_doc_root(doc), o,
                                 record_response, record_progress, r, h);
    mcp_json_doc_free(doc);
    if (rc != MCP_OK) {
        /* Failed: its callback never runs, not even during the call. */
        assert_false(r->called);
        r->failed = true;
    }
    return rc;
}

int peer_response_index(const peer *p, mcp_handle h)
{
    for (int i = 0; i < p->nresponses; i++)
        if (p->responses[i] == h)
            return i;
    return -1;
}

const mcp_message *peer_response_msg(const peer *p, mcp_handle h)
{
    int i = peer_response_index(p, h);
    if (i >= 0 && p->response_msgs[i])
        return p->response_msgs[i];
    return peer_faults.at ? &blank : NULL;
}

int peer_count_logs(const peer *p, mcp_log_event ev)
{
    int n = 0;
    for (int i = 0; i < p->nlogs; i++)
        n += p->logs[i].event == ev;
    return n;
}

const mcp_log_record *peer_last_log(const peer *p, mcp_log_event ev)
{
    static const mcp_log_record none = {.message = "", .age_ms = -1};
    for (int i = p->nlogs; i-- > 0;)
        if (p->logs[i].event == ev)
            return &p->logs[i];
    return peer_faults.at ? &none : NULL;
}

bool msg_is_result_for(const mcp_message *m, int64_t id)
{
    return m && m->kind == MCP_MESSAGE_RESULT && m->id.kind == MCP_ID_INT && m->id.num == id;
}

bool msg_is_error_for(const mcp_message *m, int64_t id, int64_t code)
{
    return m && m->kind == MCP_MESSAGE_ERROR && m->id.kind == MCP_ID_INT && m->id.num == id &&
           m->error_code == code;
}

bool msg_is_method(const mcp_message *m, const char *method)
{
    return m && m->method && strcmp(m->method, method) == 0;
}
