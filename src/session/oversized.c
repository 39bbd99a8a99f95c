/* SPDX-License-Identifier: MIT */
/*
 * A message over the size cap is dropped by the transport, which keeps its
 * first and last bytes. Its sender must not wait for a timeout: when those
 * bytes say whose message it was, a request gets -32600 at once and a
 * response ends the request it answers with MCP_ERR_TOO_LARGE. The id may
 * be at either end (senders order members differently), so the head is read
 * forward and the tail backward.
 */
#include <stdio.h>
#include <string.h>

#include "json/scan.h"
#include "session/internal.h"

typedef struct shape {
    bool method, result, error;
    mcp__span id;
} shape;

static void note(shape *sh, mcp__span key, mcp__span value)
{
    if (mcp__span_is_key(key, "method"))
        sh->method = true;
    else if (mcp__span_is_key(key, "result"))
        sh->result = true;
    else if (mcp__span_is_key(key, "error"))
        sh->error = true;
    else if (mcp__span_is_key(key, "id") && value.p)
        sh->id = value;
}

static void read_shape(shape *sh, const char *head, size_t hn, const char *tail, size_t tn)
{
    mcp__span key, value;
    mcp__scan fw;
    if (hn && mcp__scan_open(&fw, head, hn)) {
        int rc;
        while ((rc = mcp__scan_next(&fw, &key, &value)) == MCP__SCAN_MEMBER)
            note(sh, key, value);
        /* The member the head ends in: its key tells the kind ("result",
         * "params"...), though its value is cut. */
        if (rc == MCP__SCAN_TRUNCATED && key.p)
            note(sh, key, (mcp__span){NULL, 0});
    }
    mcp__rscan bw;
    if (tn && mcp__rscan_open(&bw, tail, tn))
        while (mcp__rscan_next(&bw, &key, &value) == MCP__SCAN_MEMBER)
            note(sh, key, value);
}

void mcp__oversized(mcp_session *s, uint64_t now, uint64_t route, const char *head,
                    size_t head_len, const char *tail, size_t tail_len, size_t limit)
{
    shape sh = {0};
    read_shape(&sh, head, head_len, tail, tail_len);
    mcp_json_doc *doc = NULL;
    mcp_id id = {MCP_ID_NONE, 0, NULL, 0};
    /* The id's text is within the kept bytes: a few KiB at most. */
    bool id_read = sh.id.n && mcp_json_parse(sh.id.p, sh.id.n, NULL, &s->mem, &doc, NULL) == MCP_OK;
    if (id_read)
        mcp_id_from_json(mcp_json_doc_root(doc), &id);
    char text[96];
    snprintf(text, sizeof text, "message exceeds %zu bytes", limit);
    if (sh.method && id.kind != MCP_ID_NONE && !mcp__never_answer(s)) {
        char answer[128];
        snprintf(answer, sizeof answer, "Invalid request: %s", text);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &id, NULL, "inbound", NULL, -1,
                 "request dropped: %s:", text);
        mcp__send_error(s, route, &id, MCP_WIRE_INVALID_REQUEST, answer, NULL);
    } else if (sh.method && id_read && id.kind == MCP_ID_NONE && !mcp__never_answer(s)) {
        /* As for a message of any size: an id that is not a string or an
         * integer makes an invalid request, answered with a null id. */
        char answer[160];
        snprintf(answer, sizeof answer, "Invalid request: id must be a string or an integer; %s",
                 text);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, "inbound", NULL, -1,
                 "request with an invalid id dropped: %s:", text);
        mcp__send_error(s, route, NULL, MCP_WIRE_INVALID_REQUEST, answer, NULL);
    } else if (!sh.method && (sh.result || sh.error) && id.kind == MCP_ID_INT &&
               mcp__outbound_on_wire(s, id.num)) {
        outbound *o = mcp__outbound_on_wire(s, id.num);
        mcp__outbound_take(s, o);
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, &id, o->method, "outbound", NULL,
                 mcp__age(now, o->start), "response too large: %s:", text);
        mcp__outbound_end(s, o, MCP_ERR_TOO_LARGE, NULL);
    } else {
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, id.kind ? &id : NULL, NULL, NULL,
                 NULL, -1, "%s%s: dropped%s", sh.method ? "a notification's " : "", text,
                 id.kind || sh.method ? "" : " (whose it was could not be read)");
    }
    mcp_json_doc_free(doc);
}

bool mcp__unreadable_answer(mcp_session *s, const char *data, size_t len, const char *why)
{
    shape sh = {0};
    read_shape(&sh, data, len, NULL, 0);
    if (sh.method || !(sh.result || sh.error) || !sh.id.n)
        return false;
    int64_t num;
    mcp_json_doc *doc = NULL;
    bool read = mcp_json_parse(sh.id.p, sh.id.n, NULL, &s->mem, &doc, NULL) == MCP_OK &&
                mcp_json_is_integer_literal(mcp_json_doc_root(doc)) &&
                mcp_json_get_int64(mcp_json_doc_root(doc), &num) == MCP_OK;
    mcp_json_doc_free(doc);
    if (!read)
        return false;
    mcp_id id = mcp_id_from_int(num);
    char text[220];
    snprintf(text, sizeof text, "not JSON: %s", why);
    return mcp__outbound_reject(s, &id, text);
}
