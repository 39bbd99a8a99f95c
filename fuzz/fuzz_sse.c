/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for the Server-Sent Events codec (src/transport/sse.c).
 * Input: byte 0 picks the chunk sizes, byte 1 the cap (high bit clear: the
 * default; set: a small cap, so that limits are hit often), the rest is
 * the stream.
 * - The events, retries, final status and last id are the same whether the
 *   stream is fed in one piece or in chunks.
 * - Every event keeps the decoder's promises: data NUL-terminated, within
 *   the cap, without CR; no line break in the type or the id, no NUL in
 *   the id.
 * - Every event (and retry) re-encodes to bytes that decode to exactly it, and
 *   the stream itself, encoded as one event's data, decodes back with its
 *   line breaks read as \n.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c))                                                                              \
            abort();                                                                           \
    } while (0)

/* What one decoding reported: a hash of every event and retry in order. */
typedef struct seen {
    uint64_t hash;
    size_t events;
    size_t cap;
    bool reencode;
} seen;

static void mix(seen *s, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        s->hash ^= b[i];
        s->hash *= 0x100000001b3u;
    }
}

static void mix_text(seen *s, const char *p, size_t n)
{
    mix(s, &n, sizeof n); /* the length first, so that "ab"+"c" differs from "a"+"bc" */
    mix(s, p, n);
}

/* The one event decoding `bytes` gives. */
typedef struct single {
    size_t events;
    mcp__sse_event ev;
    char *copy; /* data, type and id, copied */
} single;

static bool keep_single(void *ud, const mcp__sse_event *ev)
{
    single *s = ud;
    if (s->events++)
        return true;
    s->ev = *ev;
    s->copy = malloc(ev->data_len + ev->type_len + ev->id_len + 1);
    CHECK(s->copy);
    memcpy(s->copy, ev->data, ev->data_len);
    memcpy(s->copy + ev->data_len, ev->type, ev->type_len);
    memcpy(s->copy + ev->data_len + ev->type_len, ev->id, ev->id_len);
    s->ev.data = s->copy;
    s->ev.type = s->copy + ev->data_len;
    s->ev.id = s->copy + ev->data_len + ev->type_len;
    return true;
}

static single decode_single(const char *p, size_t n)
{
    single s = {0};
    mcp__sse_callbacks cb = {keep_single, NULL, &s};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, 0, &cb);
    CHECK(mcp__sse_decoder_feed(&d, p, n) == MCP_OK);
    mcp__sse_decoder_finish(&d);
    mcp__sse_decoder_free(&d);
    CHECK(s.events == 1);
    return s;
}

static bool same(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static void reencode(const mcp__sse_event *ev)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    CHECK(mcp__sse_append_event(&b, ev->has_id ? ev->id : NULL, ev->id_len, ev->type,
                                ev->type_len, ev->data, ev->data_len) == MCP_OK);
    single s = decode_single(b.data, b.len);
    CHECK(same(s.ev.data, s.ev.data_len, ev->data, ev->data_len));
    CHECK(same(s.ev.type, s.ev.type_len, ev->type, ev->type_len));
    CHECK(same(s.ev.id, s.ev.id_len, ev->id, ev->id_len));
    CHECK(s.ev.has_id == ev->has_id);
    free(s.copy);
    mcp_buf_free(&b);
}

static bool on_event(void *ud, const mcp__sse_event *ev)
{
    seen *s = ud;
    CHECK(ev->data && ev->type && ev->id);
    CHECK(ev->data[ev->data_len] == '\0');
    CHECK(ev->data_len < s->cap);
    CHECK(!memchr(ev->data, '\r', ev->data_len));
    CHECK(!memchr(ev->type, '\r', ev->type_len) && !memchr(ev->type, '\n', ev->type_len));
    CHECK(!memchr(ev->id, '\r', ev->id_len) && !memchr(ev->id, '\n', ev->id_len));
    CHECK(!memchr(ev->id, '\0', ev->id_len));
    CHECK(ev->has_id || ev->id_len == 0);
    s->events++;
    mix(s, "E", 1);
    mix_text(s, ev->type, ev->type_len);
    mix_text(s, ev->data, ev->data_len);
    mix_text(s, ev->id, ev->id_len);
    mix(s, &ev->has_id, sizeof ev->has_id);
    if (s->reencode)
        reencode(ev);
    return true;
}

static bool no_event(void *ud, const mcp__sse_event *ev)
{
    abort();
}

typedef struct retries {
    int count;
    uint64_t ms;
} retries;

static void keep_retry(void *ud, uint64_t ms)
{
    retries *r = ud;
    r->count++;
    r->ms = ms;
}

static void on_retry(void *ud, uint64_t ms)
{
    seen *s = ud;
    mix(s, "R", 1);
    mix(s, &ms, sizeof ms);
    if (!s->reencode)
        return;
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    CHECK(mcp__sse_append_retry(&b, ms) == MCP_OK);
    retries got = {0};
    mcp__sse_callbacks cb = {no_event, keep_retry, &got};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, 0, &cb);
    CHECK(mcp__sse_decoder_feed(&d, b.data, b.len) == MCP_OK);
    CHECK(got.count == 1 && got.ms == ms);
    mcp__sse_decoder_free(&d);
    mcp_buf_free(&b);
}

/* Feed p in chunks of at most `width` bytes (0: all at once), sizes drawn
 * from `seed`; the result is folded into *s. */
static void decode_stream(const char *p, size_t n, size_t cap, size_t width, uint32_t seed,
                          seen *s)
{
    mcp__sse_callbacks cb = {on_event, on_retry, s};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, cap, &cb);
    s->cap = d.max_event;
    int status = MCP_OK;
    size_t i = 0;
    do {
        size_t k = n - i;
        if (width) {
            seed = seed * 1103515245u + 12345u;
            size_t w = 1 + (seed >> 16) % width;
            if (w < k)
                k = w;
        }
        int rc = mcp__sse_decoder_feed(&d, p + i, k);
        CHECK(rc == MCP_OK || rc == MCP_ERR_LIMIT); /* NOMEM would be a real shortage */
        CHECK(status == MCP_OK || rc == status);    /* an error stays */
        status = rc;
        i += k;
    } while (i < n);
    mcp__sse_decoder_finish(&d);
    size_t id_len;
    const char *id = mcp__sse_decoder_last_id(&d, &id_len);
    CHECK(id[id_len] == '\0');
    mix(s, &status, sizeof status);
    mix_text(s, id, id_len);
    mcp__sse_decoder_free(&d);
}

/* The whole stream as one event's data: it comes back with CRLF and CR
 * read as LF. */
static void encode_stream(const char *p, size_t n)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    CHECK(mcp__sse_append_event(&b, NULL, 0, NULL, 0, p, n) == MCP_OK);
    single s = decode_single(b.data, b.len);
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
            continue;
        CHECK(j < s.ev.data_len && s.ev.data[j] == (p[i] == '\r' ? '\n' : p[i]));
        j++;
    }
    CHECK(j == s.ev.data_len && s.ev.type_len == 0 && !s.ev.has_id);
    free(s.copy);
    mcp_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t width = 1 + (data[0] & 31); /* 1: byte by byte */
    size_t cap = data[1] & 0x80 ? 1 + (size_t)(data[1] & 0x7f) : 0;
    const char *p = (const char *)data + 2;
    size_t n = size - 2;

    seen whole = {0xcbf29ce484222325u, 0, 0, true};
    seen pieces = {0xcbf29ce484222325u, 0, 0, false};
    decode_stream(p, n, cap, 0, 0, &whole);
    decode_stream(p, n, cap, width, data[0], &pieces);
    CHECK(whole.events == pieces.events && whole.hash == pieces.hash);

    encode_stream(p, n);
    return 0;
}
