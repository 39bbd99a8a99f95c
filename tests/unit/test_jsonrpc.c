/* SPDX-License-Identifier: MIT */
/* Unit tests for src/jsonrpc: message rules, the wire error that answers each
 * kind of bad input, ids, encoders and NDJSON framing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failmalloc.h"
#include "mcp/jsonrpc.h"

static mcp_message *decode_ok(const char *text)
{
    mcp_message *m = NULL;
    mcp_decode_error err;
    int rc = mcp_message_decode(text, strlen(text), NULL, NULL, &m, &err);
    if (rc != MCP_OK)
        fail_msg("'%s' should decode, got %d: %s", text, rc, err.message);
    return m;
}

/* Decode expecting failure `code`, answered with `wire` (0: not answered).
 * Returns the message (possibly NULL) for further checks; caller frees. */
static mcp_message *decode_bad(const char *text, int code, int wire)
{
    mcp_message *m = NULL;
    mcp_decode_error err;
    int rc = mcp_message_decode(text, strlen(text), NULL, NULL, &m, &err);
    if (rc != code || err.wire_code != wire)
        fail_msg("'%s': expected %d/%d, got %d/%d (%s)", text, code, wire, rc,
                 err.wire_code, err.message);
    assert_int_equal(err.code, code);
    assert_true(strlen(err.message) > 10);
    return m;
}

static void expect_invalid(const char *text, int wire, mcp_id_kind id_kind)
{
    mcp_message *m = decode_bad(text, MCP_ERR_RPC_INVALID, wire);
    assert_non_null(m);
    assert_int_equal(m->kind, MCP_MESSAGE_INVALID);
    assert_int_equal(m->id.kind, id_kind);
    mcp_message_free(m);
}

/* Decoding valid messages ------------------------------------------------- */

static void decodes_the_four_message_kinds(void **state)
{
    mcp_message *m = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c\"}}");
    assert_int_equal(m->kind, MCP_MESSAGE_REQUEST);
    assert_string_equal(m->method, "tools/list");
    assert_int_equal(m->method_len, 10);
    assert_string_equal(mcp_json_string(mcp_json_object_get(m->params, "cursor"), NULL), "c");
    mcp_message_free(m);

    m = decode_ok("{\"method\":\"notifications/initialized\",\"jsonrpc\":\"2.0\"}");
    assert_int_equal(m->kind, MCP_MESSAGE_NOTIFICATION);
    assert_null(m->params);
    assert_int_equal(m->id.kind, MCP_ID_NONE);
    mcp_message_free(m);

    m = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"x\":1}}");
    assert_int_equal(m->kind, MCP_MESSAGE_RESULT);
    assert_int_equal(mcp_json_object_size(m->result), 1);
    mcp_message_free(m);

    m = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32601,\"message\":\"nope\",\"data\":[1]}}");
    assert_int_equal(m->kind, MCP_MESSAGE_ERROR);
    assert_int_equal(m->error_code, -32601);
    assert_string_equal(m->error_message, "nope");
    assert_int_equal(mcp_json_array_size(m->error_data), 1);
    mcp_message_free(m);
}

static void a_bad_options_size_is_the_callers_error_not_a_parse_error(void **state)
{
    mcp_json_parse_options o = {.size = 1};
    mcp_message *m = (mcp_message *)1;
    mcp_decode_error err;
    assert_int_equal(mcp_message_decode("{}", 2, &o, NULL, &m, &err), MCP_ERR_INVALID_ARG);
    assert_null(m);
    assert_int_equal(err.wire_code, 0); /* nothing to tell the peer */
    assert_int_equal(mcp_message_decode(NULL, 3, NULL, NULL, &m, &err), MCP_ERR_INVALID_ARG);
}

static void ids_keep_their_json_type(void **state)
{
    mcp_message *a = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
    mcp_message *b = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"method\":\"ping\"}");
    assert_int_equal(a->id.kind, MCP_ID_INT);
    assert_int_equal(a->id.num, 7);
    assert_int_equal(b->id.kind, MCP_ID_STRING);
    assert_int_equal(b->id.len, 1);
    assert_false(mcp_id_equal(&a->id, &b->id));
    mcp_id seven = mcp_id_from_int(7);
    assert_true(mcp_id_equal(&a->id, &seven));
    assert_true(mcp_id_hash(&a->id) == mcp_id_hash(&seven));
    mcp_message_free(a);
    mcp_message_free(b);
}

static void zero_and_empty_string_are_valid_ids(void **state)
{
    mcp_message *a = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}");
    mcp_message *b = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"ping\"}");
    mcp_message *c = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":-1,\"method\":\"ping\"}");
    assert_int_equal(a->kind, MCP_MESSAGE_REQUEST);
    assert_int_equal(a->id.kind, MCP_ID_INT);
    assert_int_equal(a->id.num, 0);
    assert_int_equal(b->kind, MCP_MESSAGE_REQUEST);
    assert_int_equal(b->id.kind, MCP_ID_STRING);
    assert_int_equal(b->id.len, 0);
    assert_false(mcp_id_equal(&a->id, &b->id));
    assert_int_equal(c->id.num, -1);
    mcp_message_free(a);
    mcp_message_free(b);
    mcp_message_free(c);
}

static void int64_ids_are_exact(void **state)
{
    mcp_message *a = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"method\":\"ping\"}");
    mcp_message *b = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775808,\"result\":{}}");
    mcp_message *c = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}");
    assert_true(a->id.num == INT64_MAX);
    assert_true(b->id.num == INT64_MIN);
    assert_true(c->id.num == INT64_C(9007199254740993));
    mcp_message_free(a);
    mcp_message_free(b);
    mcp_message_free(c);
}

static void string_ids_with_nul_bytes_compare_by_length(void **state)
{
    mcp_message *a = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0000b\",\"method\":\"ping\"}");
    mcp_id prefix = mcp_id_from_string("a", 1);
    mcp_id whole = mcp_id_from_string("a\0b", 3);
    assert_int_equal(a->id.len, 3);
    assert_false(mcp_id_equal(&a->id, &prefix));
    assert_true(mcp_id_equal(&a->id, &whole));
    mcp_message_free(a);
}

/* Which wire error answers bad input ---------------------------------------- */

static void invalid_json_is_a_parse_error_with_null_id(void **state)
{
    mcp_message *m = (mcp_message *)1;
    mcp_decode_error err;
    assert_int_equal(mcp_message_decode("{\"jsonrpc\":", 11, NULL, NULL, &m, &err),
                     MCP_ERR_RPC_PARSE);
    assert_null(m);
    assert_int_equal(err.wire_code, MCP_WIRE_PARSE_ERROR);
    assert_int_equal(err.offset, 11);
    assert_non_null(strstr(err.message, "at byte 11"));
    assert_int_equal(mcp_message_decode("\xC0\xAF", 2, NULL, NULL, &m, &err), MCP_ERR_RPC_PARSE);
    assert_int_equal(err.wire_code, MCP_WIRE_PARSE_ERROR);
}

static void request_with_bad_id_is_invalid_with_null_id(void **state)
{
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1e2,\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":9223372036854775808,\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
}

static void bad_request_is_answered_with_its_id(void **state)
{
    /* Wrong version, non-string method, array params: -32600 with the id. */
    expect_invalid("{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_INT);
    expect_invalid("{\"id\":5,\"method\":\"ping\"}", MCP_WIRE_INVALID_REQUEST, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":2.0,\"id\":5,\"method\":\"ping\"}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":7}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_STRING);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"x\",\"params\":[1,2]}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"x\",\"params\":null}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"x\",\"result\":{}}",
                   MCP_WIRE_INVALID_REQUEST, MCP_ID_INT);
    /* Neither a request nor a response. */
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1}", MCP_WIRE_INVALID_REQUEST, MCP_ID_INT);
}

static void non_object_message_is_an_invalid_request(void **state)
{
    expect_invalid("1", MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
    expect_invalid("\"ping\"", MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
    expect_invalid("null", MCP_WIRE_INVALID_REQUEST, MCP_ID_NONE);
}

static void bad_notifications_are_never_answered(void **state)
{
    expect_invalid("{\"jsonrpc\":\"1.0\",\"method\":\"notifications/cancelled\"}", 0, MCP_ID_NONE);
    expect_invalid("{\"method\":\"notifications/cancelled\"}", 0, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"method\":3}", 0, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[]}", 0, MCP_ID_NONE);
}

static void bad_responses_are_never_answered(void **state)
{
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}",
                   0, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"result\":{}}", 0, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", 0, MCP_ID_NONE);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1.5,\"message\":\"m\"}}", 0, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"1\",\"message\":\"m\"}}", 0, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}", 0, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"boom\"}", 0, MCP_ID_INT);
    expect_invalid("{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{\"code\":1,\"message\":\"m\"}}", 0, MCP_ID_NONE);
    expect_invalid("{\"id\":1,\"result\":{}}", 0, MCP_ID_INT);
}

static void error_responses_may_lack_an_id(void **state)
{
    mcp_message *m = decode_ok("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}");
    assert_int_equal(m->kind, MCP_MESSAGE_ERROR);
    assert_int_equal(m->id.kind, MCP_ID_NONE);
    mcp_message_free(m);
    m = decode_ok("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"x\"}}");
    assert_int_equal(m->kind, MCP_MESSAGE_ERROR);
    assert_int_equal(m->id.kind, MCP_ID_NONE);
    mcp_message_free(m);
}

static void batches_are_reported_distinctly(void **state)
{
    mcp_message *m = decode_bad("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                                "{\"jsonrpc\":\"2.0\",\"method\":\"n\"},[]]",
                                MCP_ERR_RPC_BATCH, MCP_WIRE_INVALID_REQUEST);
    assert_int_equal(m->kind, MCP_MESSAGE_BATCH);
    assert_int_equal(mcp_json_array_size(m->batch), 3);
    /* A 2025-03-26 session may decode the elements one by one. */
    mcp_message *item;
    mcp_decode_error err;
    assert_int_equal(mcp_message_decode_batch_item(m, 0, NULL, &item, &err), MCP_OK);
    assert_int_equal(item->kind, MCP_MESSAGE_REQUEST);
    mcp_message *item2;
    assert_int_equal(mcp_message_decode_batch_item(m, 1, NULL, &item2, &err), MCP_OK);
    assert_int_equal(item2->kind, MCP_MESSAGE_NOTIFICATION);
    mcp_message_free(m); /* items are independent of the batch */
    assert_string_equal(item->method, "ping");
    mcp_message_free(item);
    mcp_message_free(item2);

    m = decode_bad("[]", MCP_ERR_RPC_BATCH, MCP_WIRE_INVALID_REQUEST);
    assert_int_equal(mcp_message_decode_batch_item(m, 0, NULL, &item, &err), MCP_ERR_NOT_FOUND);
    mcp_message_free(m);

    m = decode_bad("[[1]]", MCP_ERR_RPC_BATCH, MCP_WIRE_INVALID_REQUEST);
    assert_int_equal(mcp_message_decode_batch_item(m, 0, NULL, &item, &err), MCP_ERR_RPC_INVALID);
    assert_int_equal(item->kind, MCP_MESSAGE_INVALID);
    assert_int_equal(err.wire_code, MCP_WIRE_INVALID_REQUEST);
    mcp_message_free(item);
    mcp_message_free(m);
}

static void decode_survives_every_allocation_failure(void **state)
{
    const char *text = "{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"method\":\"tools/call\","
                       "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}";
    bool ok = false;
    for (long k = 1; k < 100 && !ok; k++) {
        failmalloc fm;
        failmalloc_init(&fm, k);
        mcp_message *m;
        mcp_decode_error err;
        int rc = mcp_message_decode(text, strlen(text), NULL, &fm.mem, &m, &err);
        if (rc == MCP_OK) {
            assert_string_equal(m->method, "tools/call");
            mcp_message_free(m);
            ok = true;
        } else {
            assert_int_equal(rc, MCP_ERR_NOMEM);
            assert_null(m);
        }
        assert_int_equal(fm.live, 0);
    }
    assert_true(ok);
}

/* Ids ------------------------------------------------------------------------ */

static void id_copies_own_their_bytes(void **state)
{
    char s[] = "abc";
    mcp_id borrowed = mcp_id_from_string(s, 3), copy;
    failmalloc fm;
    failmalloc_init(&fm, 0);
    assert_int_equal(mcp_id_copy(&copy, &borrowed, &fm.mem), MCP_OK);
    s[0] = 'x';
    assert_memory_equal(copy.str, "abc", 3);
    assert_int_equal(fm.live, 1);
    mcp_id_release(&copy, &fm.mem);
    assert_int_equal(fm.live, 0);
    assert_int_equal(copy.kind, MCP_ID_NONE);

    failmalloc_init(&fm, 1);
    assert_int_equal(mcp_id_copy(&copy, &borrowed, &fm.mem), MCP_ERR_NOMEM);
    assert_int_equal(copy.kind, MCP_ID_NONE);
    mcp_id n = mcp_id_from_int(-3);
    assert_int_equal(mcp_id_copy(&copy, &n, &fm.mem), MCP_OK); /* no allocation */
    assert_int_equal(copy.num, -3);
}

/* Encoding ------------------------------------------------------------------- */

static void encoders_write_one_compact_line(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_message *p = decode_ok("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"t\":\"a\\nb\"}}");
    mcp_id sid = mcp_id_from_string("q\"1", 3), iid = mcp_id_from_int(0);
    assert_int_equal(mcp_encode_request(&b, &sid, "tools/call", p->params), MCP_OK);
    assert_int_equal(mcp_encode_notification(&b, "notifications/initialized", NULL), MCP_OK);
    assert_int_equal(mcp_encode_result(&b, &iid, NULL), MCP_OK);
    assert_int_equal(mcp_encode_error(&b, NULL, -32700, "Parse error", NULL), MCP_OK);
    assert_int_equal(mcp_encode_error(&b, &iid, -32601, "Method not found: x", p->params), MCP_OK);
    assert_string_equal(b.data,
        "{\"jsonrpc\":\"2.0\",\"id\":\"q\\\"1\",\"method\":\"tools/call\",\"params\":{\"t\":\"a\\nb\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32601,\"message\":\"Method not found: x\",\"data\":{\"t\":\"a\\nb\"}}}\n");
    mcp_message_free(p);
    mcp_buf_free(&b);
}

static void encoded_messages_decode_back_to_the_same_message(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    mcp_id id = mcp_id_from_int(INT64_MIN);
    assert_int_equal(mcp_encode_error(&b, &id, -32602, "bad \"x\"\n", NULL), MCP_OK);
    assert_int_equal(b.data[b.len - 1], '\n');
    assert_null(memchr(b.data, '\n', b.len - 1));
    mcp_message *m;
    assert_int_equal(mcp_message_decode(b.data, b.len - 1, NULL, NULL, &m, NULL), MCP_OK);
    assert_int_equal(m->kind, MCP_MESSAGE_ERROR);
    assert_true(mcp_id_equal(&m->id, &id));
    assert_int_equal(m->error_code, -32602);
    assert_string_equal(m->error_message, "bad \"x\"\n");
    mcp_message_free(m);
    mcp_buf_free(&b);
}

static void encoders_reject_bad_arguments_and_leave_the_buffer_alone(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 64, NULL);
    mcp_buf_append(&b, "x", 1);
    mcp_id none = {MCP_ID_NONE, 0, NULL, 0}, one = mcp_id_from_int(1);
    assert_int_equal(mcp_encode_request(&b, &none, "ping", NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_encode_result(&b, &none, NULL), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp_encode_request(&b, &one, "\xFF", NULL), MCP_ERR_UTF8);
    assert_int_equal(mcp_encode_error(&b, &one, 1, "\xC0\xAF", NULL), MCP_ERR_UTF8);
    mcp_json_doc *arr = mcp_json_doc_new(NULL);
    mcp_json *a = mcp_json_new_array(arr);
    assert_int_equal(mcp_encode_notification(&b, "n", a), MCP_ERR_INVALID_ARG);
    char longm[100];
    memset(longm, 'm', 99);
    longm[99] = 0;
    assert_int_equal(mcp_encode_notification(&b, longm, NULL), MCP_ERR_LIMIT);
    assert_int_equal(b.len, 1);
    assert_string_equal(b.data, "x");
    mcp_json_doc_free(arr);
    mcp_buf_free(&b);
}

/* Line reader ---------------------------------------------------------------- */

typedef struct lines {
    char text[64][256];
    size_t len[64];
    int status[64];
    int n;
} lines;

static void collect(void *ud, int status, const char *line, size_t len)
{
    lines *l = ud;
    assert_true(l->n < 64);
    l->status[l->n] = status;
    l->len[l->n] = len;
    if (line) {
        assert_true(len < 256);
        memcpy(l->text[l->n], line, len);
        l->text[l->n][len] = 0;
    } else {
        l->text[l->n][0] = 0;
    }
    l->n++;
}

static void feed_in_chunks(mcp_line_reader *r, const char *s, size_t len,
                           size_t chunk, lines *out)
{
    for (size_t i = 0; i < len; i += chunk)
        mcp_line_reader_feed(r, s + i, len - i < chunk ? len - i : chunk, collect, out);
}

static void lines_are_split_the_same_whatever_the_chunking(void **state)
{
    const char *s = "{\"a\":1}\n{\"b\":2}\r\n\n\r\n{\"c\":3}\n";
    for (size_t chunk = 1; chunk <= strlen(s); chunk++) {
        lines out = {0};
        mcp_line_reader *r = mcp_line_reader_new(0, NULL);
        feed_in_chunks(r, s, strlen(s), chunk, &out);
        mcp_line_reader_finish(r, collect, &out);
        assert_int_equal(out.n, 3); /* empty lines skipped, CRLF accepted */
        assert_string_equal(out.text[0], "{\"a\":1}");
        assert_string_equal(out.text[1], "{\"b\":2}");
        assert_string_equal(out.text[2], "{\"c\":3}");
        for (int i = 0; i < 3; i++)
            assert_int_equal(out.status[i], MCP_OK);
        mcp_line_reader_free(r);
    }
}

static void over_long_line_is_skipped_and_the_stream_stays_usable(void **state)
{
    char s[200];
    memset(s, 'x', 100);
    strcpy(s + 100, "\nok\n");
    for (size_t chunk = 1; chunk <= strlen(s); chunk += 7) {
        lines out = {0};
        mcp_line_reader *r = mcp_line_reader_new(16, NULL);
        feed_in_chunks(r, s, strlen(s), chunk, &out);
        assert_int_equal(out.n, 2); /* reported once, then the next line */
        assert_int_equal(out.status[0], MCP_ERR_LINE_TOO_LONG);
        assert_true(out.len[0] > 16);
        assert_int_equal(out.status[1], MCP_OK);
        assert_string_equal(out.text[1], "ok");
        assert_int_equal(mcp_line_reader_pending(r), 0);
        mcp_line_reader_free(r);
    }
}

static void line_of_exactly_the_cap_is_accepted(void **state)
{
    const char *s = "0123456789abcdef\r\n0123456789abcdefg\n0123456789abcdef";
    for (size_t chunk = 1; chunk <= strlen(s); chunk++) {
        lines out = {0};
        mcp_line_reader *r = mcp_line_reader_new(16, NULL);
        feed_in_chunks(r, s, strlen(s), chunk, &out);
        mcp_line_reader_finish(r, collect, &out);
        assert_int_equal(out.n, 3);
        assert_int_equal(out.status[0], MCP_OK);
        assert_string_equal(out.text[0], "0123456789abcdef");
        assert_int_equal(out.status[1], MCP_ERR_LINE_TOO_LONG);
        assert_int_equal(out.status[2], MCP_OK); /* last line, no newline */
        assert_string_equal(out.text[2], "0123456789abcdef");
        mcp_line_reader_free(r);
    }
}

static void line_reader_survives_allocation_failure(void **state)
{
    failmalloc fm;
    failmalloc_init(&fm, 2); /* the reader itself, then its first buffer fails */
    mcp_line_reader *r = mcp_line_reader_new(0, &fm.mem);
    lines out = {0};
    mcp_line_reader_feed(r, "{\"split", 7, collect, &out);
    mcp_line_reader_feed(r, "\":1}\nnext\n", 10, collect, &out);
    assert_int_equal(out.n, 2);
    assert_int_equal(out.status[0], MCP_ERR_NOMEM);
    assert_int_equal(out.status[1], MCP_OK);
    assert_string_equal(out.text[1], "next");
    mcp_line_reader_free(r);
    assert_int_equal(fm.live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_the_four_message_kinds),
        cmocka_unit_test(ids_keep_their_json_type),
        cmocka_unit_test(a_bad_options_size_is_the_callers_error_not_a_parse_error),
        cmocka_unit_test(zero_and_empty_string_are_valid_ids),
        cmocka_unit_test(int64_ids_are_exact),
        cmocka_unit_test(string_ids_with_nul_bytes_compare_by_length),
        cmocka_unit_test(invalid_json_is_a_parse_error_with_null_id),
        cmocka_unit_test(request_with_bad_id_is_invalid_with_null_id),
        cmocka_unit_test(bad_request_is_answered_with_its_id),
        cmocka_unit_test(non_object_message_is_an_invalid_request),
        cmocka_unit_test(bad_notifications_are_never_answered),
        cmocka_unit_test(bad_responses_are_never_answered),
        cmocka_unit_test(error_responses_may_lack_an_id),
        cmocka_unit_test(batches_are_reported_distinctly),
        cmocka_unit_test(decode_survives_every_allocation_failure),
        cmocka_unit_test(id_copies_own_their_bytes),
        cmocka_unit_test(encoders_write_one_compact_line),
        cmocka_unit_test(encoded_messages_decode_back_to_the_same_message),
        cmocka_unit_test(encoders_reject_bad_arguments_and_leave_the_buffer_alone),
        cmocka_unit_test(lines_are_split_the_same_whatever_the_chunking),
        cmocka_unit_test(over_long_line_is_skipped_and_the_stream_stays_usable),
        cmocka_unit_test(line_of_exactly_the_cap_is_accepted),
        cmocka_unit_test(line_reader_survives_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
