/* SPDX-License-Identifier: MIT */
/*
 * The member scanners (json/scan.c) and what reads an oversized message's
 * ends with them. The input's first byte says where head and tail split the
 * rest. Checked with abort():
 *   - every span the scanners return lies inside the text they were given;
 *   - when the whole input is a JSON object, the forward scan of it yields
 *     exactly its members, in order, and the backward scan exactly its
 *     members in reverse order, each key as the parser decodes it (escapes
 *     included) and each value the parser's value (containers included);
 *   - the engine takes any head and tail, in both roles, without a crash or
 *     a leak, and whatever it answers is one valid message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json/scan.h"
#include "mcp/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const mcp__span *s, const char *text, size_t len)
{
    if (s->p < text || s->p + s->n > text + len || s->n == 0)
        abort();
}

/* The scanned value is the parsed one (containers included). */
static void same_value(const mcp__span *value, const mcp_json *v)
{
    mcp_json_doc *d;
    if (mcp_json_parse(value->p, value->n, NULL, NULL, &d, NULL) != MCP_OK)
        abort();
    if (!mcp_json_equal(mcp_json_doc_root(d), v))
        abort();
    mcp_json_doc_free(d);
}

/* The scanned key (quotes and escapes as written) is the parsed key k:
 * as bytes when it has no escapes, and mcp__span_is_key decodes it to k. */
static void same_key(const mcp__span *key, const char *k, size_t kn)
{
    if (!memchr(key->p, '\\', key->n) && (key->n != kn + 2 || memcmp(key->p + 1, k, kn)))
        abort();
    char name[256];
    if (kn < sizeof name && !memchr(k, 0, kn)) {
        memcpy(name, k, kn);
        name[kn] = 0;
        if (!mcp__span_is_key(*key, name))
            abort();
        if (kn + 1 < sizeof name) { /* and not a longer name */
            name[kn] = 'x';
            name[kn + 1] = 0;
            if (mcp__span_is_key(*key, name))
                abort();
        }
    }
}

/* The scans of one text, checked against the parser when it is JSON. */
static void scan_both_ways(const char *text, size_t len)
{
    mcp_json_doc *doc = NULL;
    const mcp_json *obj = NULL;
    if (mcp_json_parse(text, len, NULL, NULL, &doc, NULL) == MCP_OK &&
        mcp_json_typeof(mcp_json_doc_root(doc)) == MCP_JSON_OBJECT)
        obj = mcp_json_doc_root(doc);
    mcp__scan fw;
    mcp__span key, value;
    size_t n = 0;
    if (mcp__scan_open(&fw, text, len)) {
        int rc;
        while ((rc = mcp__scan_next(&fw, &key, &value)) == MCP__SCAN_MEMBER) {
            inside(&key, text, len);
            inside(&value, text, len);
            if (obj) {
                const char *k;
                size_t kn;
                const mcp_json *v = mcp_json_object_at(obj, n, &k, &kn);
                same_key(&key, k, kn);
                same_value(&value, v);
            }
            n++;
        }
        if (obj && (rc != MCP__SCAN_END || n != mcp_json_object_size(obj)))
            abort();
    } else if (obj) {
        abort();
    }
    mcp__rscan bw;
    size_t back = 0;
    if (mcp__rscan_open(&bw, text, len)) {
        while (mcp__rscan_next(&bw, &key, &value) == MCP__SCAN_MEMBER) {
            inside(&key, text, len);
            inside(&value, text, len);
            if (obj) {
                size_t total = mcp_json_object_size(obj);
                if (back >= total)
                    abort();
                const char *k;
                size_t kn;
                const mcp_json *v = mcp_json_object_at(obj, total - 1 - back, &k, &kn);
                same_key(&key, k, kn);
                same_value(&value, v);
            }
            back++;
        }
        /* A whole object: read back to its first member. */
        if (obj && back != mcp_json_object_size(obj))
            abort();
    } else if (obj && mcp_json_object_size(obj)) {
        abort();
    }
    mcp_json_doc_free(doc);
}

static int check_output(void *ud, uint64_t route, const char *data, size_t len)
{
    for (const char *p = data; p < data + len;) {
        const char *nl = memchr(p, '\n', (size_t)(data + len - p));
        if (!nl)
            abort();
        mcp_message *m;
        if (mcp_message_decode(p, (size_t)(nl - p), NULL, NULL, &m, NULL) != MCP_OK)
            abort();
        mcp_message_free(m);
        p = nl + 1;
    }
    return MCP_OK;
}

static void ignore_response(void *ud, mcp_handle h, int outcome, const mcp_message *m)
{
}

static void feed_engine(mcp_role role, const char *head, size_t hn, const char *tail, size_t tn)
{
    mcp_session_options o = {.size = sizeof o, .role = role};
    mcp_session_callbacks cb = {.size = sizeof cb, .send = check_output};
    mcp_session *s;
    if (mcp_session_new(&o, &cb, &s) != MCP_OK)
        abort();
    if (role == MCP_ROLE_CLIENT) {
        /* Connected, with requests 2 and 3 in flight, so responses find
         * something to end. */
        mcp_session_initialize(s, 0, 0, ignore_response, NULL);
        const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":"
                            "\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\","
                            "\"version\":\"1\"}}}";
        mcp_session_receive(s, 0, 0, init, sizeof init - 1);
        mcp_session_request(s, 0, "a", NULL, NULL, ignore_response, NULL, NULL, NULL);
        mcp_session_request(s, 0, "b", NULL, NULL, ignore_response, NULL, NULL, NULL);
    }
    mcp_session_receive_oversized(s, 0, 0, head, hn, tail, tn, 1000);
    mcp_session_close(s, 0);
    mcp_session_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    size_t split = len ? data[0] % (len + 1) : 0;
    scan_both_ways(text, len);
    feed_engine(MCP_ROLE_SERVER, text, split, text + split, len - split);
    feed_engine(MCP_ROLE_CLIENT, text, split, text + split, len - split);
    return 0;
}
