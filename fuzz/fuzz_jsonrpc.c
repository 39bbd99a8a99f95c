/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for the JSON-RPC decoder and the NDJSON line reader.
 * - Every decode outcome is consistent: a message exactly when promised, a
 *   wire code only from the allowed set, notifications and responses never
 *   answered; a valid message re-encodes to one line that decodes to the
 *   same message.
 * - The line reader yields the same lines whatever the chunking, none longer
 *   than the cap, none containing a newline.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/jsonrpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const char *p, size_t n)
{
    mcp_message *m;
    mcp_decode_error err;
    int rc = mcp_message_decode(p, n, NULL, NULL, &m, &err);
    switch (rc) {
    case MCP_OK: {
        if (!m || err.wire_code)
            abort();
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        int e;
        switch (m->kind) {
        case MCP_MESSAGE_REQUEST:
            e = mcp_encode_request(&b, &m->id, m->method, m->params);
            break;
        case MCP_MESSAGE_NOTIFICATION:
            e = mcp_encode_notification(&b, m->method, m->params);
            break;
        case MCP_MESSAGE_RESULT: e = mcp_encode_result(&b, &m->id, m->result); break;
        case MCP_MESSAGE_ERROR:
            e = mcp_encode_error(&b, &m->id, m->error_code, m->error_message, m->error_data);
            break;
        default: abort();
        }
        /* The encoders take NUL-terminated methods and messages, so those
         * with a NUL byte inside are not compared after re-encoding. */
        bool has_nul = (m->method && strlen(m->method) != m->method_len) ||
                       (m->error_message && strlen(m->error_message) != m->error_message_len);
        if (e != MCP_OK && !has_nul)
            abort();
        if (e == MCP_OK && !has_nul) {
            if (memchr(b.data, '\n', b.len - 1) || b.data[b.len - 1] != '\n')
                abort();
            mcp_message *m2;
            if (mcp_message_decode(b.data, b.len - 1, NULL, NULL, &m2, NULL) != MCP_OK ||
                m2->kind != m->kind || !mcp_id_equal(&m->id, &m2->id) ||
                m->method_len != m2->method_len ||
                (m->method && memcmp(m->method, m2->method, m->method_len)) ||
                !mcp_json_equal(m->params, m2->params) ||
                !mcp_json_equal(m->result, m2->result) || m->error_code != m2->error_code)
                abort();
            mcp_message_free(m2);
        }
        mcp_buf_free(&b);
        break;
    }
    case MCP_ERR_RPC_PARSE:
        if (m || err.wire_code != MCP_WIRE_PARSE_ERROR)
            abort();
        break;
    case MCP_ERR_RPC_INVALID:
        if (!m || m->kind != MCP_MESSAGE_INVALID ||
            (err.wire_code != 0 && err.wire_code != MCP_WIRE_INVALID_REQUEST))
            abort();
        /* Something with a method and no id is a notification: silent. */
        if (mcp_json_object_get(m->root, "method") && !mcp_json_object_get(m->root, "id") &&
            err.wire_code)
            abort();
        break;
    case MCP_ERR_RPC_BATCH:
        if (!m || m->kind != MCP_MESSAGE_BATCH || err.wire_code != MCP_WIRE_INVALID_REQUEST)
            abort();
        for (size_t i = 0; i < mcp_json_array_size(m->batch); i++) {
            mcp_message *item;
            int irc = mcp_message_decode_batch_item(m, i, NULL, &item, NULL);
            if (irc != MCP_OK && irc != MCP_ERR_RPC_INVALID)
                abort();
            mcp_message_free(item);
        }
        break;
    default: abort();
    }
    mcp_message_free(m);
}

typedef struct collected {
    char *bytes; /* lines joined by '\n', errors as "!" */
    size_t len, cap, max;
} collected;

static void on_line(void *ud, int status, const char *line, size_t len)
{
    collected *c = ud;
    if (status == MCP_OK) {
        if (!len || len > c->max || memchr(line, '\n', len))
            abort();
    }
    size_t need = c->len + (status == MCP_OK ? len : 1) + 1;
    if (need > c->cap) {
        c->cap = need * 2;
        c->bytes = realloc(c->bytes, c->cap);
    }
    if (status == MCP_OK) {
        memcpy(c->bytes + c->len, line, len);
        c->len += len;
    } else {
        c->bytes[c->len++] = '!';
    }
    c->bytes[c->len++] = '\n';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t max = 8 + data[0]; /* small caps make long lines common */
    size_t chunk = 1 + data[1] % 17;
    const char *p = (const char *)data + 2;
    size_t n = size - 2;

    check_message(p, n);

    collected whole = {.max = max}, pieces = {.max = max};
    mcp_line_reader *r1 = mcp_line_reader_new(max, NULL);
    mcp_line_reader *r2 = mcp_line_reader_new(max, NULL);
    mcp_line_reader_feed(r1, p, n, on_line, &whole);
    mcp_line_reader_finish(r1, on_line, &whole);
    for (size_t i = 0; i < n; i += chunk)
        mcp_line_reader_feed(r2, p + i, n - i < chunk ? n - i : chunk, on_line, &pieces);
    mcp_line_reader_finish(r2, on_line, &pieces);
    if (whole.len != pieces.len || (whole.len && memcmp(whole.bytes, pieces.bytes, whole.len)))
        abort();
    mcp_line_reader_free(r1);
    mcp_line_reader_free(r2);
    free(whole.bytes);
    free(pieces.bytes);
    return 0;
}
