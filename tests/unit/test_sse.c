/* SPDX-License-Identifier: MIT */
/* Unit tests for src/transport/sse: the WHATWG event stream rules one by
 * one, each input decoded whole, byte by byte, split at every point and in
 * random chunkings (all must agree), the cap, stopping, sticky errors,
 * allocation failures, and the encoders (exact bytes, round trips). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "failmalloc.h"
#include "transport/sse.h"

/* A string literal with its length, NUL bytes included. */
#define S(lit) (lit), (sizeof(lit) - 1)

/* What a decoder reported, in order ------------------------------------- */

typedef struct item {
    char kind; /* 'E' an event, 'R' a retry */
    uint64_t ms;
    char *type, *data, *id;
    size_t type_len, data_len, id_len;
    bool has_id;
} item;

typedef struct rec {
    item *items;
    size_t n, cap;
    size_t events;
    long stop_at; /* the event callback returns false on this event (1-based); 0: never */
    int rc;       /* the first error a feed returned, or MCP_OK */
    char *last_id;
    size_t last_id_len;
} rec;

static char *memdup(const char *p, size_t n)
{
    char *q = malloc(n + 1);
    assert_non_null(q);
    if (n)
        memcpy(q, p, n);
    q[n] = '\0';
    return q;
}

static item *push(rec *r)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 8;
        r->items = realloc(r->items, r->cap * sizeof *r->items);
        assert_non_null(r->items);
    }
    item *it = &r->items[r->n++];
    memset(it, 0, sizeof *it);
    return it;
}

static bool on_event(void *ud, const mcp__sse_event *ev)
{
    rec *r = ud;
    /* The promises of mcp__sse_event, checked on every event of every test. */
    assert_non_null(ev->type);
    assert_non_null(ev->id);
    assert_non_null(ev->data);
    assert_int_equal(ev->data[ev->data_len], '\0');
    if (!ev->has_id)
        assert_int_equal(ev->id_len, 0);
    item *it = push(r);
    it->kind = 'E';
    it->type = memdup(ev->type, ev->type_len);
    it->type_len = ev->type_len;
    it->data = memdup(ev->data, ev->data_len);
    it->data_len = ev->data_len;
    it->id = memdup(ev->id, ev->id_len);
    it->id_len = ev->id_len;
    it->has_id = ev->has_id;
    r->events++;
    return !(r->stop_at && (long)r->events == r->stop_at);
}

static void on_retry(void *ud, uint64_t ms)
{
    item *it = push(ud);
    it->kind = 'R';
    it->ms = ms;
}

static void rec_free(rec *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->items[i].type);
        free(r->items[i].data);
        free(r->items[i].id);
    }
    free(r->items);
    free(r->last_id);
    memset(r, 0, sizeof *r);
}

static bool same_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static void assert_same_rec(const rec *a, const rec *b, const char *how)
{
    if (a->rc != b->rc || a->n != b->n)
        fail_msg("%s: rc %d vs %d, %zu vs %zu items", how, a->rc, b->rc, a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const item *x = &a->items[i], *y = &b->items[i];
        if (x->kind != y->kind || x->ms != y->ms || x->has_id != y->has_id ||
            !same_bytes(x->type, x->type_len, y->type, y->type_len) ||
            !same_bytes(x->data, x->data_len, y->data, y->data_len) ||
            !same_bytes(x->id, x->id_len, y->id, y->id_len))
            fail_msg("%s: item %zu differs", how, i);
    }
    if (!same_bytes(a->last_id, a->last_id_len, b->last_id, b->last_id_len))
        fail_msg("%s: last ids differ", how);
}

/* Feeding ----------------------------------------------------------------- */

/* Cut points: the input is fed as [cuts[i], cuts[i+1]). */
typedef struct chunks {
    size_t *at;
    size_t n;
} chunks;

static void decode_chunks(const char *in, size_t len, size_t max, const chunks *c, rec *out,
                          long stop_at)
{
    memset(out, 0, sizeof *out);
    out->stop_at = stop_at;
    mcp__sse_callbacks cb = {on_event, on_retry, out};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, max, &cb);
    for (size_t i = 0; i + 1 < c->n; i++) {
        int rc = mcp__sse_decoder_feed(&d, in + c->at[i], c->at[i + 1] - c->at[i]);
        if (out->rc == MCP_OK) {
            out->rc = rc;
        } else {
            assert_int_equal(rc, out->rc); /* sticky, and nothing more reported */
        }
        if (stop_at && (long)out->events >= stop_at)
            break;
    }
    mcp__sse_decoder_finish(&d);
    size_t n;
    const char *id = mcp__sse_decoder_last_id(&d, &n);
    assert_non_null(id);
    assert_int_equal(id[n], '\0');
    out->last_id = memdup(id, n);
    out->last_id_len = n;
    mcp__sse_decoder_free(&d);
}

static uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

/*
 * Decode `in` whole, then byte by byte, split in two at every point (a CR
 * at the end of one feed and an LF at the start of the next among them),
 * and in random chunkings: everything must give what the whole gave, which
 * is returned in *out (rec_free it).
 */
static void decode_max(const char *in, size_t len, size_t max, rec *out)
{
    size_t *at = malloc((len + 2) * sizeof *at);
    assert_non_null(at);
    chunks c = {at, 0};

    at[0] = 0;
    at[1] = len;
    c.n = 2;
    decode_chunks(in, len, max, &c, out, 0);

    rec other;
    for (size_t i = 0; i <= len; i++)
        at[i] = i;
    c.n = len + 1;
    decode_chunks(in, len, max, &c, &other, 0);
    assert_same_rec(out, &other, "byte by byte");
    rec_free(&other);

    for (size_t k = 0; k <= len; k++) {
        size_t two[3] = {0, k, len};
        chunks t = {two, 3};
        decode_chunks(in, len, max, &t, &other, 0);
        assert_same_rec(out, &other, "split in two");
        rec_free(&other);
    }

    uint64_t seed = 0x5eed;
    for (int round = 0; round < 24; round++) {
        size_t widest = 1 + rng_next(&seed) % (len + 1);
        c.n = 0;
        at[c.n++] = 0;
        size_t pos = 0;
        while (pos < len) {
            pos += 1 + rng_next(&seed) % widest;
            if (pos > len)
                pos = len;
            at[c.n++] = pos;
        }
        if (c.n == 1)
            at[c.n++] = 0; /* one empty feed */
        decode_chunks(in, len, max, &c, &other, 0);
        assert_same_rec(out, &other, "random chunks");
        rec_free(&other);
    }
    free(at);
}

static void decode(const char *in, size_t len, rec *out)
{
    decode_max(in, len, 0, out);
}

static size_t count_kind(const rec *r, char kind)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += r->items[i].kind == kind;
    return n;
}

static const item *event_at(const rec *r, size_t k)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->items[i].kind == 'E' && k-- == 0)
            return &r->items[i];
    }
    fail_msg("no event %zu", k);
    return NULL;
}

/* Event k's data is (data, data_len) and its type is `type` ("" for none). */
static void assert_event(const rec *r, size_t k, const char *type, const char *data,
                         size_t data_len)
{
    const item *e = event_at(r, k);
    if (!same_bytes(e->data, e->data_len, data, data_len))
        fail_msg("event %zu: data '%s' (%zu bytes), expected '%s'", k, e->data, e->data_len,
                 data);
    assert_int_equal(e->type_len, strlen(type));
    assert_string_equal(e->type, type);
}

static void assert_event_id(const rec *r, size_t k, bool has_id, const char *id)
{
    const item *e = event_at(r, k);
    assert_int_equal(e->has_id, has_id);
    assert_int_equal(e->id_len, strlen(id));
    assert_string_equal(e->id, id);
}

/* Decoding: one rule per test ---------------------------------------------- */

static void one_event_is_dispatched_at_a_blank_line(void **state)
{
    rec r;
    decode(S("data: hello\n\n"), &r);
    assert_int_equal(r.rc, MCP_OK);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("hello"));
    assert_event_id(&r, 0, false, "");
    rec_free(&r);

    decode(S("data: one\n\ndata: two\n\n"), &r);
    assert_int_equal(r.events, 2);
    assert_event(&r, 0, "", S("one"));
    assert_event(&r, 1, "", S("two"));
    rec_free(&r);
}

static void data_lines_are_joined_with_newlines_and_only_the_last_one_removed(void **state)
{
    rec r;
    decode(S("data: a\ndata: b\ndata: c\n\n"), &r);
    assert_event(&r, 0, "", S("a\nb\nc"));
    rec_free(&r);
    /* An empty data line still adds its newline. */
    decode(S("data: a\ndata:\n\n"), &r);
    assert_event(&r, 0, "", S("a\n"));
    rec_free(&r);
    decode(S("data:\ndata:\ndata:\n\n"), &r);
    assert_event(&r, 0, "", S("\n\n"));
    rec_free(&r);
    /* One empty data line: the buffer is "\n", not empty, so it dispatches. */
    decode(S("data:\n\n"), &r);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S(""));
    rec_free(&r);
}

static void one_leading_space_of_a_value_is_removed(void **state)
{
    rec r;
    decode(S("data:x\n\ndata: x\n\ndata:  x\n\ndata:\tx\n\ndata: \n\ndata:x \n\n"), &r);
    assert_int_equal(r.events, 6);
    assert_event(&r, 0, "", S("x"));
    assert_event(&r, 1, "", S("x"));
    assert_event(&r, 2, "", S(" x"));
    assert_event(&r, 3, "", S("\tx"));
    assert_event(&r, 4, "", S(""));
    assert_event(&r, 5, "", S("x "));
    rec_free(&r);
    /* Only the first colon separates: the rest is value. */
    decode(S("data: a: b:c\n\n"), &r);
    assert_event(&r, 0, "", S("a: b:c"));
    rec_free(&r);
}

static void lines_end_in_crlf_lf_or_cr_alone(void **state)
{
    rec r;
    decode(S("data: a\r\n\r\n"), &r);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("a"));
    rec_free(&r);
    decode(S("data: a\r\r"), &r);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("a"));
    rec_free(&r);
    /* All three in one event; a CRLF is one line end, not a blank line. */
    decode(S("data: a\r\ndata: b\rdata: c\ndata: d\r\n\n"), &r);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("a\nb\nc\nd"));
    rec_free(&r);
    /* LF then CR is two line ends: the CR is a blank line. */
    decode(S("data: a\n\rdata: b\r\n\r"), &r);
    assert_int_equal(r.events, 2);
    assert_event(&r, 0, "", S("a"));
    assert_event(&r, 1, "", S("b"));
    rec_free(&r);
    /* CR CR LF: the second CR is a blank line, its LF belongs to it. */
    decode(S("data: a\r\r\ndata: b\n\n"), &r);
    assert_int_equal(r.events, 2);
    rec_free(&r);
}

static bool count_only(void *ud, const mcp__sse_event *ev)
{
    rec *r = ud;
    item *it = push(r);
    it->kind = 'E';
    it->data = memdup(ev->data, ev->data_len);
    it->data_len = ev->data_len;
    r->events++;
    return true;
}

static void a_cr_ending_one_feed_and_an_lf_starting_the_next_are_one_line_end(void **state)
{
    rec r = {0};
    mcp__sse_callbacks cb = {count_only, NULL, &r};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, 0, &cb);
    /* Were the LF a second line end, it would be a blank line and "a"
     * would be dispatched alone. */
    assert_int_equal(mcp__sse_decoder_feed(&d, S("data: a\r")), MCP_OK);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("\ndata: b\r")), MCP_OK);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("\n")), MCP_OK);
    assert_int_equal(r.events, 0);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("\r")), MCP_OK);
    assert_int_equal(r.events, 1);
    assert_true(same_bytes(r.items[0].data, r.items[0].data_len, S("a\nb")));
    /* The LF after that CR is still the same line end, after an empty feed. */
    assert_int_equal(mcp__sse_decoder_feed(&d, NULL, 0), MCP_OK);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("\ndata: c\n\n")), MCP_OK);
    assert_int_equal(r.events, 2);
    mcp__sse_decoder_free(&d);
    rec_free(&r);
}

static void a_bom_is_skipped_only_at_the_very_start(void **state)
{
    rec r;
    /* Without skipping, the field would be "\xEF\xBB\xBF" "data": unknown. */
    decode(S("\xEF\xBB\xBF" "data: x\n\n"), &r);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("x"));
    rec_free(&r);
    decode(S("\xEF\xBB\xBF\n" "data: x\n\n"), &r);
    assert_int_equal(r.events, 1);
    rec_free(&r);
    /* A second BOM is part of the line. */
    decode(S("\xEF\xBB\xBF\xEF\xBB\xBF" "data: x\n\n"), &r);
    assert_int_equal(r.events, 0);
    rec_free(&r);
    decode(S("data: x\n\n\xEF\xBB\xBF" "data: y\n\n"), &r);
    assert_int_equal(r.events, 1);
    rec_free(&r);
    /* A BOM's beginning that goes on differently is ordinary bytes. */
    decode(S("\xEF\xBB" "data: x\n\n"), &r);
    assert_int_equal(r.events, 0);
    rec_free(&r);
    decode(S("\xEF\xBB\n" "data: x\n\n"), &r);
    assert_int_equal(r.events, 1);
    rec_free(&r);
    decode(S("data: \xEF\xBB\xBF\n\n"), &r);
    assert_event(&r, 0, "", S("\xEF\xBB\xBF"));
    rec_free(&r);
    /* The partial BOM bytes count against the cap like any others. */
    decode_max(S("\xEF\xBB" "abcdefgh\n\n"), 10, &r);
    assert_int_equal(r.rc, MCP_OK);
    rec_free(&r);
    decode_max(S("\xEF\xBB" "abcdefghi\n\n"), 10, &r);
    assert_int_equal(r.rc, MCP_ERR_LIMIT);
    rec_free(&r);
}

static void comment_lines_are_ignored(void **state)
{
    rec r;
    decode(S(": data: x\n\n:\n\n: keep-alive\r\n\r\n"), &r);
    assert_int_equal(r.n, 0);
    rec_free(&r);
    /* A comment inside an event does not end it. */
    decode(S("data: a\n: note\ndata: b\n\n"), &r);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("a\nb"));
    rec_free(&r);
}

static void a_line_without_a_colon_is_a_field_with_an_empty_value(void **state)
{
    rec r;
    decode(S("data\ndata\n\n"), &r);
    assert_event(&r, 0, "", S("\n"));
    rec_free(&r);
    decode(S("event: t\nevent\ndata: x\n\n"), &r);
    assert_event(&r, 0, "", S("x"));
    rec_free(&r);
    decode(S("id: 5\ndata: a\n\nid\ndata: b\n\n"), &r);
    assert_event_id(&r, 0, true, "5");
    assert_event_id(&r, 1, true, "");
    assert_int_equal(r.last_id_len, 0);
    rec_free(&r);
}

static void event_sets_the_type_until_the_dispatch(void **state)
{
    rec r;
    decode(S("event: add\ndata: x\n\ndata: y\n\n"), &r);
    assert_int_equal(r.events, 2);
    assert_event(&r, 0, "add", S("x"));
    assert_event(&r, 1, "", S("y"));
    rec_free(&r);
    /* The last one wins, wherever it is in the event. */
    decode(S("event: a\ndata: x\nevent: b\n\n"), &r);
    assert_event(&r, 0, "b", S("x"));
    rec_free(&r);
    /* A blank line with no data resets the type too. */
    decode(S("event: a\n\ndata: y\n\n"), &r);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("y"));
    rec_free(&r);
    decode(S("event:  sp\ndata: x\n\n"), &r);
    assert_event(&r, 0, " sp", S("x"));
    rec_free(&r);
}

static void the_last_event_id_is_the_streams_and_persists(void **state)
{
    rec r;
    decode(S("data: a\n\nid: 1\ndata: b\n\ndata: c\n\nid: 2\ndata: d\n\n"), &r);
    assert_int_equal(r.events, 4);
    assert_event_id(&r, 0, false, "");
    assert_event_id(&r, 1, true, "1");
    assert_event_id(&r, 2, true, "1");
    assert_event_id(&r, 3, true, "2");
    assert_int_equal(r.last_id_len, 1);
    assert_string_equal(r.last_id, "2");
    rec_free(&r);
    /* Set after the data of its event still counts for that event. */
    decode(S("data: a\nid: 9\n\n"), &r);
    assert_event_id(&r, 0, true, "9");
    rec_free(&r);
    /* A blank line commits it even when nothing is dispatched. */
    decode(S("id: 7\n\n"), &r);
    assert_int_equal(r.n, 0);
    assert_string_equal(r.last_id, "7");
    rec_free(&r);
    decode(S("id: 7\n\ndata: x\n\n"), &r);
    assert_event_id(&r, 0, true, "7");
    rec_free(&r);
}

static void an_id_containing_nul_is_ignored(void **state)
{
    rec r;
    decode(S("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n"), &r);
    assert_int_equal(r.events, 2);
    assert_event_id(&r, 1, true, "1");
    rec_free(&r);
    decode(S("id: \0\ndata: b\n\n"), &r);
    assert_event_id(&r, 0, false, "");
    rec_free(&r);
}

static void an_unfinished_event_is_discarded_at_the_end_with_its_id(void **state)
{
    rec r;
    decode(S("data: x\n"), &r);
    assert_int_equal(r.n, 0);
    rec_free(&r);
    decode(S("data: x"), &r);
    assert_int_equal(r.n, 0);
    rec_free(&r);
    decode(S("data: x\r"), &r); /* the CR ended the line, not the event */
    assert_int_equal(r.n, 0);
    rec_free(&r);
    /* Only a blank line commits an id: a reconnection resumes after "1". */
    decode(S("id: 1\ndata: a\n\nid: 2\ndata: b\n"), &r);
    assert_int_equal(r.events, 1);
    assert_string_equal(r.last_id, "1");
    rec_free(&r);
}

static void finish_discards_and_the_next_stream_starts_afresh(void **state)
{
    rec r = {0};
    mcp__sse_callbacks cb = {on_event, on_retry, &r};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, 0, &cb);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("id: 4\n\nevent: t\nid: 5\ndata: lost\r")), MCP_OK);
    mcp__sse_decoder_finish(&d);
    size_t n;
    assert_string_equal(mcp__sse_decoder_last_id(&d, &n), "4");
    /* A reconnection: its BOM is skipped, nothing of the lost event
     * remains (its type, its data, its id), and the committed id carries on. */
    assert_int_equal(mcp__sse_decoder_feed(&d, S("\xEF\xBB\xBF" "data: new\n\n")), MCP_OK);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("new"));
    assert_event_id(&r, 0, true, "4");
    mcp__sse_decoder_finish(&d);
    mcp__sse_decoder_finish(NULL);
    mcp__sse_decoder_free(&d);
    mcp__sse_decoder_free(NULL);
    rec_free(&r);
}

static void retry_takes_only_ascii_digits(void **state)
{
    rec r;
    decode(S("retry: 1500\nretry: 000\nretry:7\nretry\nretry:\nretry: 15x\nretry: -1\n"
             "retry: 1.5\nretry:  15\nretry: +3\nretry: 1 \nretry: \xD9\xA3\n"), &r);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.items[0].kind, 'R');
    assert_true(r.items[0].ms == 1500);
    assert_true(r.items[1].ms == 0);
    assert_true(r.items[2].ms == 7);
    rec_free(&r);
}

static void retry_past_64_bits_is_ignored(void **state)
{
    rec r;
    decode(S("retry: 18446744073709551615\nretry: 18446744073709551616\n"
             "retry: 99999999999999999999\nretry: 0018446744073709551615\n"), &r);
    assert_int_equal(r.n, 2);
    assert_true(r.items[0].ms == UINT64_MAX);
    assert_true(r.items[1].ms == UINT64_MAX);
    rec_free(&r);
}

static void retry_is_not_an_event_and_keeps_its_place(void **state)
{
    rec r;
    decode(S("data: a\nretry: 10\n\nretry: 20\n\n"), &r);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.items[0].kind, 'R');
    assert_int_equal(r.items[1].kind, 'E');
    assert_int_equal(r.items[2].kind, 'R');
    assert_int_equal(count_kind(&r, 'E'), 1);
    rec_free(&r);

    /* No retry callback: the field is read and dropped. */
    rec q = {0};
    mcp__sse_callbacks cb = {on_event, NULL, &q};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, 0, &cb);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("retry: 5\ndata: x\n\n")), MCP_OK);
    assert_int_equal(q.n, 1);
    mcp__sse_decoder_free(&d);
    rec_free(&q);
}

static void unknown_fields_are_ignored(void **state)
{
    rec r;
    decode(S("foo: bar\nData: x\nDATA: x\ndata : x\n data: x\ndatas: x\n\n"), &r);
    assert_int_equal(r.n, 0);
    rec_free(&r);
    decode(S("foo: bar\ndata: x\nevents: t\nid : 3\n\n"), &r);
    assert_int_equal(r.events, 1);
    assert_event(&r, 0, "", S("x"));
    assert_event_id(&r, 0, false, "");
    rec_free(&r);
}

static void blank_lines_without_data_dispatch_nothing(void **state)
{
    rec r;
    decode(S("\n\n\r\n\r\r\n"), &r);
    assert_int_equal(r.n, 0);
    rec_free(&r);
    decode(S("event: t\n\n\n"), &r);
    assert_int_equal(r.n, 0);
    rec_free(&r);
}

static void nul_bytes_in_data_are_carried_through(void **state)
{
    rec r;
    decode(S("data: a\0b\ndata: \0\n\n"), &r);
    assert_event(&r, 0, "", S("a\0b\n\0"));
    rec_free(&r);
    decode(S("event: a\0b\ndata: x\n\n"), &r);
    assert_int_equal(event_at(&r, 0)->type_len, 3);
    rec_free(&r);
}

/* The cap ----------------------------------------------------------------- */

static void the_cap_holds_a_line_of_exactly_the_limit_and_fails_one_byte_more(void **state)
{
    rec r;
    /* 16 bytes of line ("data: " and ten). */
    decode_max(S("data: 0123456789\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_OK);
    assert_event(&r, 0, "", S("0123456789"));
    rec_free(&r);
    decode_max(S("data: 01234567890\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_ERR_LIMIT);
    assert_int_equal(r.n, 0);
    rec_free(&r);
    /* Failing does not wait for the line's end. */
    decode_max(S("data: 01234567890"), 16, &r);
    assert_int_equal(r.rc, MCP_ERR_LIMIT);
    rec_free(&r);
    /* Line ends are not counted. */
    decode_max(S("data: 0123456789\r\n\r\n"), 16, &r);
    assert_int_equal(r.rc, MCP_OK);
    rec_free(&r);
    /* Each event starts from nothing. */
    decode_max(S("data: 0123456789\n\ndata: 0123456789\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_OK);
    assert_int_equal(r.events, 2);
    rec_free(&r);
}

static void the_cap_counts_the_data_held_and_the_type(void **state)
{
    rec r;
    /* "abcd\n" held (5) + a line of 11 = 16. */
    decode_max(S("data: abcd\ndata: 01234\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_OK);
    assert_event(&r, 0, "", S("abcd\n01234"));
    rec_free(&r);
    decode_max(S("data: abcd\ndata: 012345\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_ERR_LIMIT);
    rec_free(&r);
    /* Type "abc" (3) + a line of 13 = 16. */
    decode_max(S("event: abc\ndata: 0123456\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_OK);
    assert_event(&r, 0, "abc", S("0123456"));
    rec_free(&r);
    decode_max(S("event: abc\ndata: 01234567\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_ERR_LIMIT);
    rec_free(&r);
    /* Events dispatched before the failure stay dispatched. */
    decode_max(S("data: ok\n\nevent: abc\ndata: 01234567\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_ERR_LIMIT);
    assert_int_equal(r.events, 1);
    rec_free(&r);
}

static void the_cap_counts_every_kind_of_line(void **state)
{
    rec r;
    decode_max(S(": 34567890123456\n"), 16, &r);
    assert_int_equal(r.rc, MCP_OK);
    rec_free(&r);
    decode_max(S(": 345678901234567\n"), 16, &r);
    assert_int_equal(r.rc, MCP_ERR_LIMIT);
    rec_free(&r);
    decode_max(S("id: 456789012345\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_OK);
    assert_string_equal(r.last_id, "456789012345");
    rec_free(&r);
    decode_max(S("id: 4567890123456\n\n"), 16, &r);
    assert_int_equal(r.rc, MCP_ERR_LIMIT);
    assert_int_equal(r.last_id_len, 0);
    rec_free(&r);
}

static void a_cap_of_size_max_is_no_cap(void **state)
{
    rec r;
    decode_max(S("event: t\nid: 1\ndata: x\n\n"), SIZE_MAX, &r);
    assert_int_equal(r.rc, MCP_OK);
    assert_event(&r, 0, "t", S("x"));
    assert_event_id(&r, 0, true, "1");
    rec_free(&r);
}

static void a_huge_line_fails_without_being_held(void **state)
{
    failmalloc fm;
    failmalloc_init(&fm, 0);
    rec r = {0};
    mcp__sse_callbacks cb = {on_event, on_retry, &r};
    mcp__sse_decoder d;
    mcp__sse_decoder_init_mem(&d, 1000, &cb, &fm.mem);
    assert_int_equal(fm.calls, 0); /* init allocates nothing */
    /* Byte by byte, the buffer grows up to the cap and no further. */
    int rc = MCP_OK;
    size_t fed = 0;
    while (rc == MCP_OK && fed < 100000) {
        rc = mcp__sse_decoder_feed(&d, "a", 1);
        fed++;
        assert_true(d.buf_alloc <= 1000);
    }
    assert_int_equal(rc, MCP_ERR_LIMIT);
    assert_int_equal(fed, 1001);
    assert_true(fm.calls <= 6); /* geometric: 64, 128, ..., 1000 */
    assert_int_equal(fm.live, 0); /* a failed decoder holds no event memory */
    mcp__sse_decoder_free(&d);

    /* In one feed, nothing is allocated at all. */
    failmalloc_init(&fm, 0);
    mcp__sse_decoder_init_mem(&d, 1000, &cb, &fm.mem);
    char *big = malloc(1 << 20);
    assert_non_null(big);
    memset(big, 'a', 1 << 20);
    assert_int_equal(mcp__sse_decoder_feed(&d, big, 1 << 20), MCP_ERR_LIMIT);
    assert_int_equal(fm.calls, 0);
    mcp__sse_decoder_free(&d);
    free(big);
    rec_free(&r);
}

static void buffers_grow_geometrically(void **state)
{
    failmalloc fm;
    failmalloc_init(&fm, 0);
    rec r = {0};
    mcp__sse_callbacks cb = {on_event, on_retry, &r};
    mcp__sse_decoder d;
    mcp__sse_decoder_init_mem(&d, 0, &cb, &fm.mem);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("data: ")), MCP_OK);
    for (int i = 0; i < 200000; i++)
        assert_int_equal(mcp__sse_decoder_feed(&d, "x", 1), MCP_OK);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("\n\n")), MCP_OK);
    assert_int_equal(r.events, 1);
    assert_int_equal(event_at(&r, 0)->data_len, 200000);
    assert_true(fm.calls <= 20);
    /* The large buffer went after its event. */
    assert_int_equal(fm.live, 0);
    /* And with an event the stream's end cut short. */
    for (int i = 0; i < 200000; i++)
        assert_int_equal(mcp__sse_decoder_feed(&d, "x", 1), MCP_OK);
    assert_int_equal(fm.live, 1);
    mcp__sse_decoder_finish(&d);
    assert_int_equal(fm.live, 0);
    mcp__sse_decoder_free(&d);
    rec_free(&r);
}

static void the_default_cap_is_4_mib(void **state)
{
    const size_t cap = (size_t)4 << 20;
    char *s = malloc(cap + 3);
    assert_non_null(s);
    memcpy(s, "data: ", 6);
    memset(s + 6, 'z', cap + 3 - 6);
    rec r = {0};
    mcp__sse_callbacks cb = {count_only, NULL, &r};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, 0, &cb);
    assert_int_equal(d.max_event, cap);
    s[cap] = '\n';
    s[cap + 1] = '\n';
    assert_int_equal(mcp__sse_decoder_feed(&d, s, cap + 2), MCP_OK);
    assert_int_equal(r.events, 1);
    assert_int_equal(r.items[0].data_len, cap - 6);
    mcp__sse_decoder_free(&d);
    mcp__sse_decoder_init(&d, 0, &cb);
    s[cap] = 'z';
    s[cap + 1] = '\n';
    s[cap + 2] = '\n';
    assert_int_equal(mcp__sse_decoder_feed(&d, s, cap + 3), MCP_ERR_LIMIT);
    assert_int_equal(r.events, 1);
    mcp__sse_decoder_free(&d);
    free(s);
    rec_free(&r);
}

/* Stopping and failing ---------------------------------------------------- */

static void an_event_callback_returning_false_stops_the_feed(void **state)
{
    const char in[] = "data: a\n\ndata: b\n\ndata: c\n\n";
    rec r = {0};
    r.stop_at = 1;
    mcp__sse_callbacks cb = {on_event, on_retry, &r};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, 0, &cb);
    assert_int_equal(mcp__sse_decoder_feed(&d, in, sizeof in - 1), MCP_OK);
    assert_int_equal(r.events, 1);
    /* The decoder was left between events: fed what followed, it goes on. */
    r.stop_at = 0;
    assert_int_equal(mcp__sse_decoder_feed(&d, in + 9, sizeof in - 1 - 9), MCP_OK);
    assert_int_equal(r.events, 3);
    assert_event(&r, 1, "", S("b"));
    mcp__sse_decoder_free(&d);
    rec_free(&r);
}

typedef struct freeing {
    mcp__sse_decoder *d;
    int events;
} freeing;

static bool free_and_stop(void *ud, const mcp__sse_event *ev)
{
    freeing *f = ud;
    f->events++;
    assert_true(same_bytes(ev->data, ev->data_len, S("a")));
    mcp__sse_decoder_free(f->d);
    free(f->d);
    f->d = NULL;
    return false;
}

static void the_decoder_may_be_freed_by_the_callback_that_stops(void **state)
{
    /* Under valgrind and ASan, any touch after the callback is caught. */
    freeing f = {malloc(sizeof(mcp__sse_decoder)), 0};
    assert_non_null(f.d);
    mcp__sse_callbacks cb = {free_and_stop, NULL, &f};
    mcp__sse_decoder_init(f.d, 0, &cb);
    assert_int_equal(mcp__sse_decoder_feed(f.d, S("id: 1\nevent: e\ndata: a\r\rdata: b\n\n")),
                     MCP_OK);
    assert_int_equal(f.events, 1);
    assert_null(f.d);
}

static void an_error_is_sticky(void **state)
{
    rec r = {0};
    mcp__sse_callbacks cb = {on_event, on_retry, &r};
    mcp__sse_decoder d;
    mcp__sse_decoder_init(&d, 16, &cb);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("id: 3\ndata: x\n\ndata: 01234567890")),
                     MCP_ERR_LIMIT);
    assert_int_equal(r.events, 1);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("\n\ndata: y\n\nretry: 5\n")), MCP_ERR_LIMIT);
    assert_int_equal(mcp__sse_decoder_feed(&d, NULL, 0), MCP_ERR_LIMIT);
    assert_int_equal(r.n, 1);
    mcp__sse_decoder_finish(&d);
    assert_int_equal(mcp__sse_decoder_feed(&d, S("data: z\n\n")), MCP_ERR_LIMIT);
    assert_int_equal(r.n, 1);
    /* The id to resume from survives the failure. */
    size_t n;
    assert_string_equal(mcp__sse_decoder_last_id(&d, &n), "3");
    assert_int_equal(n, 1);
    mcp__sse_decoder_free(&d);
    rec_free(&r);
}

/* Every allocation failure: MCP_ERR_NOMEM, sticky, nothing leaked, and the
 * events before it are those a working decoder gives first. */
static void decode_survives_every_allocation_failure(void **state)
{
    static const char in[] = "\xEF\xBB\xBF" "id: first\nevent: kind\ndata: one\ndata: two\n\n"
                             ": c\nretry: 9\nid: second\ndata: three\r\n\r\nevent: x\n\n"
                             "data: four\n\n";
    const size_t len = sizeof in - 1;
    for (size_t chunk = 1; chunk <= len; chunk = chunk * 3 + 1) {
        rec want = {0};
        mcp__sse_callbacks cb = {on_event, on_retry, &want};
        mcp__sse_decoder d;
        mcp__sse_decoder_init(&d, 0, &cb);
        for (size_t i = 0; i < len; i += chunk)
            assert_int_equal(mcp__sse_decoder_feed(&d, in + i, len - i < chunk ? len - i : chunk),
                             MCP_OK);
        mcp__sse_decoder_free(&d);
        assert_int_equal(want.events, 3);
        assert_int_equal(count_kind(&want, 'R'), 1);

        for (long k = 1;; k++) {
            failmalloc fm;
            failmalloc_init(&fm, k);
            rec got = {0};
            cb.ud = &got;
            mcp__sse_decoder_init_mem(&d, 0, &cb, &fm.mem);
            int rc = MCP_OK;
            for (size_t i = 0; i < len; i += chunk) {
                int r = mcp__sse_decoder_feed(&d, in + i, len - i < chunk ? len - i : chunk);
                if (rc != MCP_OK)
                    assert_int_equal(r, rc);
                rc = r;
            }
            assert_int_equal(rc, fm.failed ? MCP_ERR_NOMEM : MCP_OK);
            assert_true(got.n <= want.n);
            for (size_t i = 0; i < got.n; i++) {
                assert_int_equal(got.items[i].kind, want.items[i].kind);
                assert_true(same_bytes(got.items[i].data, got.items[i].data_len,
                                       want.items[i].data, want.items[i].data_len));
            }
            if (rc == MCP_ERR_NOMEM)
                assert_true(fm.live <= 1); /* at most the committed id */
            mcp__sse_decoder_free(&d);
            assert_int_equal(fm.live, 0);
            bool done = !fm.failed;
            if (done)
                assert_int_equal(got.n, want.n);
            rec_free(&got);
            if (done)
                break;
        }
        rec_free(&want);
    }
}

/* Encoders ---------------------------------------------------------------- */

static void expect_bytes(const mcp_buf *b, const char *want, size_t want_len)
{
    if (!same_bytes(b->data, b->len, want, want_len))
        fail_msg("wrote '%.*s', expected '%s'", (int)b->len, b->data ? b->data : "", want);
    assert_int_equal(b->data[b->len], '\0');
}

static void encoders_write_the_exact_bytes(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__sse_append_event(&b, S("1"), S("t"), S("a\nb")), MCP_OK);
    expect_bytes(&b, S("id: 1\nevent: t\ndata: a\ndata: b\n\n"));
    mcp_buf_reset(&b);
    assert_int_equal(mcp__sse_append_event(&b, NULL, 0, NULL, 0, S("{\"x\":1}")), MCP_OK);
    expect_bytes(&b, S("data: {\"x\":1}\n\n"));
    mcp_buf_reset(&b);
    assert_int_equal(mcp__sse_append_event(&b, S(""), S(""), NULL, 0), MCP_OK);
    expect_bytes(&b, S("id: \ndata: \n\n"));
    mcp_buf_reset(&b);
    assert_int_equal(mcp__sse_append_event(&b, NULL, 0, NULL, 0, S("a\r\nb\rc\n\r\n")), MCP_OK);
    expect_bytes(&b, S("data: a\ndata: b\ndata: c\ndata: \ndata: \n\n"));
    mcp_buf_reset(&b);
    assert_int_equal(mcp__sse_append_retry(&b, 0), MCP_OK);
    assert_int_equal(mcp__sse_append_retry(&b, 1500), MCP_OK);
    assert_int_equal(mcp__sse_append_retry(&b, UINT64_MAX), MCP_OK);
    expect_bytes(&b, S("retry: 0\n\nretry: 1500\n\nretry: 18446744073709551615\n\n"));
    mcp_buf_reset(&b);
    assert_int_equal(mcp__sse_append_comment(&b, S("keep-alive")), MCP_OK);
    assert_int_equal(mcp__sse_append_comment(&b, NULL, 0), MCP_OK);
    expect_bytes(&b, S(": keep-alive\n\n: \n\n"));
    mcp_buf_free(&b);
}

static void encoders_reject_line_breaks_and_append_nothing(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_buf_append(&b, "kept", 4), MCP_OK);
    assert_int_equal(mcp__sse_append_event(&b, S("a\nb"), NULL, 0, S("x")), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__sse_append_event(&b, S("a\rb"), NULL, 0, S("x")), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__sse_append_event(&b, S("a\0b"), NULL, 0, S("x")), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__sse_append_event(&b, NULL, 0, S("t\n"), S("x")), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__sse_append_event(&b, NULL, 0, S("\rt"), S("x")), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__sse_append_comment(&b, S("a\nb")), MCP_ERR_INVALID_ARG);
    assert_int_equal(mcp__sse_append_comment(&b, S("a\r")), MCP_ERR_INVALID_ARG);
    expect_bytes(&b, S("kept"));
    mcp_buf_free(&b);
}

static void encoders_respect_the_buffer_cap_and_append_nothing(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 20, NULL);
    assert_int_equal(mcp_buf_append(&b, "kept", 4), MCP_OK);
    /* "data: 0123456789\n\n" is 18: 22 with what is there. */
    assert_int_equal(mcp__sse_append_event(&b, NULL, 0, NULL, 0, S("0123456789")), MCP_ERR_LIMIT);
    assert_int_equal(mcp__sse_append_retry(&b, 123456789012345u), MCP_ERR_LIMIT);
    assert_int_equal(mcp__sse_append_comment(&b, S("0123456789abcd")), MCP_ERR_LIMIT);
    expect_bytes(&b, S("kept"));
    /* Exactly up to the cap is fine. */
    assert_int_equal(mcp__sse_append_event(&b, NULL, 0, NULL, 0, S("01234567")), MCP_OK);
    assert_int_equal(b.len, 20);
    mcp_buf_free(&b);
}

static void encoders_survive_every_allocation_failure(void **state)
{
    char big[300];
    memset(big, 'x', sizeof big);
    for (long k = 1;; k++) {
        failmalloc fm;
        failmalloc_init(&fm, k);
        mcp_buf b;
        mcp_buf_init(&b, 0, &fm.mem);
        /* Each append below outgrows the buffer, so each allocates. */
        int rc = mcp_buf_append(&b, "0123456789", 10);
        for (int step = 0; rc == MCP_OK && step < 3; step++) {
            size_t before = b.len;
            if (step == 0)
                rc = mcp__sse_append_event(&b, S("id"), S("type"), big, sizeof big);
            else if (step == 1)
                rc = mcp__sse_append_comment(&b, big, sizeof big);
            else
                rc = mcp__sse_append_retry(&b, 5);
            if (rc != MCP_OK)
                assert_int_equal(b.len, before);
        }
        assert_int_equal(rc, fm.failed ? MCP_ERR_NOMEM : MCP_OK);
        mcp_buf_free(&b);
        assert_int_equal(fm.live, 0);
        if (!fm.failed)
            break;
    }
}

/* Encode, decode: the same id, type and data, line breaks read as \n. */
static void round_trip(const char *id, size_t id_len, const char *type, size_t type_len,
                       const char *data, size_t data_len)
{
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp__sse_append_event(&b, id, id_len, type, type_len, data, data_len),
                     MCP_OK);
    rec r;
    decode(b.data, b.len, &r);
    assert_int_equal(r.rc, MCP_OK);
    assert_int_equal(r.n, 1);
    const item *e = event_at(&r, 0);
    char *want = malloc(data_len + 1);
    assert_non_null(want);
    size_t n = 0;
    for (size_t i = 0; i < data_len; i++) {
        if (data[i] == '\r' && i + 1 < data_len && data[i + 1] == '\n')
            continue;
        want[n++] = data[i] == '\r' ? '\n' : data[i];
    }
    if (!same_bytes(e->data, e->data_len, want, n))
        fail_msg("round trip of %zu bytes of data gave '%s'", data_len, e->data);
    assert_true(same_bytes(e->type, e->type_len, type ? type : "", type ? type_len : 0));
    assert_int_equal(e->has_id, id != NULL);
    assert_true(same_bytes(e->id, e->id_len, id ? id : "", id ? id_len : 0));
    free(want);
    rec_free(&r);
    mcp_buf_free(&b);
}

static void encoded_events_decode_back(void **state)
{
    static const struct {
        const char *s;
        size_t n;
    } datas[] = {
        {S("")},        {S("x")},         {S("\n")},        {S("\n\n")},     {S("\r")},
        {S("\r\n")},    {S("\r\r\n")},    {S("\n\r")},      {S("a\nb")},     {S("a\r\nb")},
        {S("a\rb")},    {S("a\n")},       {S("\na")},       {S(" lead")},    {S("  two")},
        {S("x\0y")},    {S(": colon")},   {S("data: x")},   {S("\r\n\r\n")}, {S("a\r\r\nb\n\rc")},
        {S("\xEF\xBB\xBF" "bom")},
    };
    static const struct {
        const char *s;
        size_t n;
    } names[] = {{NULL, 0}, {S("")}, {S("7")}, {S(" sp")}, {S("a:b")}};
    for (size_t i = 0; i < sizeof datas / sizeof datas[0]; i++) {
        for (size_t j = 0; j < sizeof names / sizeof names[0]; j++) {
            /* An empty type means "message", as no type does. */
            const char *type = names[j].n ? names[j].s : NULL;
            round_trip(names[j].s, names[j].n, type, names[j].n, datas[i].s, datas[i].n);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_event_is_dispatched_at_a_blank_line),
        cmocka_unit_test(data_lines_are_joined_with_newlines_and_only_the_last_one_removed),
        cmocka_unit_test(one_leading_space_of_a_value_is_removed),
        cmocka_unit_test(lines_end_in_crlf_lf_or_cr_alone),
        cmocka_unit_test(a_cr_ending_one_feed_and_an_lf_starting_the_next_are_one_line_end),
        cmocka_unit_test(a_bom_is_skipped_only_at_the_very_start),
        cmocka_unit_test(comment_lines_are_ignored),
        cmocka_unit_test(a_line_without_a_colon_is_a_field_with_an_empty_value),
        cmocka_unit_test(event_sets_the_type_until_the_dispatch),
        cmocka_unit_test(the_last_event_id_is_the_streams_and_persists),
        cmocka_unit_test(an_id_containing_nul_is_ignored),
        cmocka_unit_test(an_unfinished_event_is_discarded_at_the_end_with_its_id),
        cmocka_unit_test(finish_discards_and_the_next_stream_starts_afresh),
        cmocka_unit_test(retry_takes_only_ascii_digits),
        cmocka_unit_test(retry_past_64_bits_is_ignored),
        cmocka_unit_test(retry_is_not_an_event_and_keeps_its_place),
        cmocka_unit_test(unknown_fields_are_ignored),
        cmocka_unit_test(blank_lines_without_data_dispatch_nothing),
        cmocka_unit_test(nul_bytes_in_data_are_carried_through),
        cmocka_unit_test(the_cap_holds_a_line_of_exactly_the_limit_and_fails_one_byte_more),
        cmocka_unit_test(the_cap_counts_the_data_held_and_the_type),
        cmocka_unit_test(the_cap_counts_every_kind_of_line),
        cmocka_unit_test(a_cap_of_size_max_is_no_cap),
        cmocka_unit_test(a_huge_line_fails_without_being_held),
        cmocka_unit_test(buffers_grow_geometrically),
        cmocka_unit_test(the_default_cap_is_4_mib),
        cmocka_unit_test(an_event_callback_returning_false_stops_the_feed),
        cmocka_unit_test(the_decoder_may_be_freed_by_the_callback_that_stops),
        cmocka_unit_test(an_error_is_sticky),
        cmocka_unit_test(decode_survives_every_allocation_failure),
        cmocka_unit_test(encoders_write_the_exact_bytes),
        cmocka_unit_test(encoders_reject_line_breaks_and_append_nothing),
        cmocka_unit_test(encoders_respect_the_buffer_cap_and_append_nothing),
        cmocka_unit_test(encoders_survive_every_allocation_failure),
        cmocka_unit_test(encoded_events_decode_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
