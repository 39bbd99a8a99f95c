/* SPDX-License-Identifier: MIT */
/* Unit tests for src/core: capped buffers, the arena, error strings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/hash.h"
#include "core/map.h"
#include "runtime/log.h"
#include "failmalloc.h"
#include "mcp/common.h"
#include "mcp/mcp.h"

static void buffer_append_stops_at_the_cap(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 10, NULL);
    assert_int_equal(mcp_buf_append(&b, "0123456789", 10), MCP_OK);
    assert_int_equal(mcp_buf_append(&b, "x", 1), MCP_ERR_LIMIT);
    assert_int_equal(b.len, 10);
    assert_string_equal(b.data, "0123456789");
    mcp_buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(mcp_buf_append(&b, "abc", 3), MCP_OK);
    assert_string_equal(b.data, "abc");
    mcp_buf_free(&b);
    assert_null(b.data);
}

/* SIZE_MAX is a limit like any other: the buffer grows as it needs. */
static void buffer_with_the_largest_limit_grows(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, SIZE_MAX, NULL);
    char chunk[300];
    memset(chunk, 'x', sizeof chunk);
    assert_int_equal(mcp_buf_append(&b, chunk, sizeof chunk), MCP_OK);
    assert_int_equal(mcp_buf_append(&b, chunk, sizeof chunk), MCP_OK);
    assert_int_equal(b.len, 600);
    assert_true(b.alloc > 600);
    assert_int_equal(b.data[599], 'x');
    assert_int_equal(b.data[600], '\0');
    mcp_buf_free(&b);
}

static void buffer_reports_allocation_failure_and_keeps_content(void **state)
{
    failmalloc fm;
    failmalloc_init(&fm, 2);
    mcp_buf b;
    mcp_buf_init(&b, 0, &fm.mem);
    assert_int_equal(mcp_buf_append(&b, "abc", 3), MCP_OK);
    char big[1000];
    memset(big, 'x', sizeof big);
    assert_int_equal(mcp_buf_append(&b, big, sizeof big), MCP_ERR_NOMEM);
    assert_int_equal(b.len, 3);
    assert_string_equal(b.data, "abc");
    mcp_buf_free(&b);
    assert_int_equal(fm.live, 0);
}

static void arena_allocations_are_aligned_and_released_at_once(void **state)
{
    failmalloc fm;
    failmalloc_init(&fm, 0);
    mcp__arena a;
    mcp__arena_init(&a, &fm.mem, 64);
    for (int i = 1; i < 2000; i++) {
        void *p = mcp__arena_alloc(&a, (size_t)(i % 37) + 1);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 8, 0);
        memset(p, 0xAB, (size_t)(i % 37) + 1);
    }
    assert_true(fm.live > 1);
    assert_true(mcp__arena_footprint(&a) > 2000);
    mcp__arena_release(&a);
    assert_int_equal(fm.live, 0);
}

#if defined(__SANITIZE_ADDRESS__)
#define ADDRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADDRESS_SANITIZED 1
#endif
#endif

/* An arena of first_size (mem: NULL for the C library's) with one small
 * allocation, released. */
static void arena_used_once(const mcp_mem *mem, size_t first_size)
{
    mcp__arena a;
    mcp__arena_init(&a, mem, first_size);
    assert_non_null(mcp__arena_alloc(&a, 16));
    mcp__arena_release(&a);
}

#ifndef ADDRESS_SANITIZED
static void *release_arenas_and_exit(void *unused)
{
    (void)unused;
    for (int i = 0; i < 3; i++) {
        mcp__arena a;
        mcp__arena_init(&a, NULL, 2000 + 100 * (size_t)i);
        if (mcp__arena_alloc(&a, 16))
            mcp__arena_release(&a);
    }
    /* Kept by this thread; its exit frees them (valgrind and LeakSanitizer
     * tell a leak otherwise). */
    return (void *)(uintptr_t)mcp__arena_cached_blocks();
}
#endif

/* A released block of 1 to 16 KiB of the C library allocator waits for
 * the next arena of its thread, which takes it when it holds the first
 * block asked for with at most a quarter to spare; 8 wait at most; a
 * caller's allocator sees every allocation. */
static void released_blocks_serve_the_next_arenas(void **state)
{
    mcp__arena_cache_release();
    assert_int_equal(mcp__arena_cached_blocks(), 0);
    arena_used_once(NULL, 2000);
#ifdef ADDRESS_SANITIZED
    assert_int_equal(mcp__arena_cached_blocks(), 0); /* off: it would hide a use after free */
#else
    assert_int_equal(mcp__arena_cached_blocks(), 1);
    mcp__arena a;
    mcp__arena_init(&a, NULL, 1900);
    assert_non_null(mcp__arena_alloc(&a, 1950)); /* the kept block's room, not 1900 */
    assert_int_equal(mcp__arena_cached_blocks(), 0);
    assert_true(mcp__arena_footprint(&a) >= 2000 && mcp__arena_footprint(&a) < 2100);
    mcp__arena_release(&a);
    assert_int_equal(mcp__arena_cached_blocks(), 1);

    arena_used_once(NULL, 1500); /* 2000 would be a third too much */
    assert_int_equal(mcp__arena_cached_blocks(), 2);
    arena_used_once(NULL, 512); /* small and large blocks go back to the C library */
    arena_used_once(NULL, 20000);
    assert_int_equal(mcp__arena_cached_blocks(), 2);
    mcp__arena many[10];
    for (int i = 0; i < 10; i++) { /* all held at once: none takes another's */
        mcp__arena_init(&many[i], NULL, 4096);
        assert_non_null(mcp__arena_alloc(&many[i], 16));
    }
    for (int i = 0; i < 10; i++)
        mcp__arena_release(&many[i]);
    assert_int_equal(mcp__arena_cached_blocks(), 8);

    failmalloc fm;
    failmalloc_init(&fm, 0);
    arena_used_once(&fm.mem, 4096);
    assert_int_equal(fm.calls, 1);
    assert_int_equal(fm.live, 0);
    assert_int_equal(mcp__arena_cached_blocks(), 8);

    pthread_t t;
    void *kept;
    mcp__arena_cache_release();
    assert_int_equal(pthread_create(&t, NULL, release_arenas_and_exit, NULL), 0);
    assert_int_equal(pthread_join(t, &kept), 0);
    assert_int_equal((uintptr_t)kept, 3);
    assert_int_equal(mcp__arena_cached_blocks(), 0); /* its own thread's */
#endif
    mcp__arena_cache_release();
    assert_int_equal(mcp__arena_cached_blocks(), 0);
}

static void arena_grows_the_last_allocation_in_place(void **state)
{
    mcp__arena a;
    mcp__arena_init(&a, NULL, 1024);
    char *p = mcp__arena_alloc(&a, 16);
    memcpy(p, "0123456789abcdef", 16);
    char *q = mcp__arena_grow(&a, p, 16, 64);
    assert_ptr_equal(p, q);
    char *other = mcp__arena_alloc(&a, 8);
    (void)other;
    char *r = mcp__arena_grow(&a, q, 64, 128);
    assert_ptr_not_equal(q, r); /* no longer the last: copied */
    assert_memory_equal(r, "0123456789abcdef", 16);
    char *huge = mcp__arena_alloc(&a, 1 << 20); /* bigger than any block yet */
    assert_non_null(huge);
    mcp__arena_release(&a);
}

/* Blocks with a guard after them: a write past a block's end is seen when
 * the block is freed. */
typedef struct guarded {
    size_t blocks, overrun;
} guarded;
#define GUARD 512
static void *guarded_malloc(void *ud, size_t n)
{
    (void)ud;
    if (n > SIZE_MAX / 2)
        return NULL;
    unsigned char *p = malloc(sizeof(size_t) * 2 + n + GUARD);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    memset(p + sizeof(size_t) * 2 + n, 0x5A, GUARD);
    return p + sizeof(size_t) * 2;
}
static void guarded_free(void *ud, void *q)
{
    guarded *g = ud;
    if (!q)
        return;
    unsigned char *p = (unsigned char *)q - sizeof(size_t) * 2;
    size_t n;
    memcpy(&n, p, sizeof n);
    for (size_t i = 0; i < GUARD; i++)
        if (p[sizeof(size_t) * 2 + n + i] != 0x5A) {
            g->overrun++;
            break;
        }
    g->blocks++;
    free(p);
}

static void arena_edges(void **state)
{
    (void)state;
    guarded g = {0, 0};
    mcp_mem mem = {&g, guarded_malloc, NULL, guarded_free};
    mcp__arena a;
    mcp__arena_init(&a, &mem, 0); /* the smallest block */
    /* Zero bytes: a distinct, aligned pointer each time. */
    unsigned char *z1 = mcp__arena_alloc(&a, 0), *z2 = mcp__arena_alloc(&a, 0);
    assert_non_null(z1);
    assert_non_null(z2);
    assert_ptr_not_equal(z1, z2);
    assert_int_equal((uintptr_t)z1 % MCP__ARENA_ALIGN, 0);
    assert_int_equal((uintptr_t)z2 % MCP__ARENA_ALIGN, 0);
    /* Sizes that overflow when aligned, or that no block can have. */
    assert_null(mcp__arena_alloc(&a, SIZE_MAX));
    assert_null(mcp__arena_alloc(&a, SIZE_MAX - MCP__ARENA_ALIGN + 2));
    assert_null(mcp__arena_alloc(&a, SIZE_MAX - MCP__ARENA_ALIGN));
    assert_null(mcp__arena_alloc(&a, SIZE_MAX - 64));
    /* Odd sizes stay aligned; the block is filled to its end exactly. */
    for (size_t n = 1; n < 300; n += 7) {
        unsigned char *p = mcp__arena_alloc(&a, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % MCP__ARENA_ALIGN, 0);
        memset(p, 0xEE, n);
    }
    /* Growing beyond what can be had fails and leaves p as it was. */
    unsigned char *p = mcp__arena_alloc(&a, 24);
    memcpy(p, "abcdefghijklmnopqrstuvw", 24);
    assert_null(mcp__arena_grow(&a, p, 24, SIZE_MAX));
    assert_null(mcp__arena_grow(&a, p, 24, SIZE_MAX - MCP__ARENA_ALIGN + 1));
    assert_memory_equal(p, "abcdefghijklmnopqrstuvw", 24);
    /* The last allocation grown by less than its alignment stays put. */
    assert_ptr_equal(mcp__arena_grow(&a, p, 24, 24 + 1), p);
    /* Made smaller (last or not), it keeps its first new_n bytes and
     * writes no more than new_n where it goes. */
    unsigned char *big = mcp__arena_alloc(&a, 200);
    memset(big, 'b', 200);
    unsigned char *small = mcp__arena_grow(&a, big, 200, 8);
    assert_non_null(small);
    assert_memory_equal(small, "bbbbbbbb", 8);
    unsigned char *filler = mcp__arena_alloc(&a, 16);
    (void)filler;
    for (int i = 0; i < 64; i++) { /* not the last: a copy, at a block's end */
        unsigned char *s2 = mcp__arena_grow(&a, big, 200, 8);
        assert_non_null(s2);
        assert_memory_equal(s2, "bbbbbbbb", 8);
    }
    mcp__arena_release(&a);
    assert_true(g.blocks > 1);
    assert_int_equal(g.overrun, 0);
}

static void hash_is_stable_within_a_process(void **state)
{
    assert_true(mcp__hash_bytes("abc", 3) == mcp__hash_bytes("abc", 3));
    assert_true(mcp__hash_bytes("abc", 3) != mcp__hash_bytes("abd", 3));
    assert_true(mcp__hash_bytes("abcdefghij", 10) != mcp__hash_bytes("abcdefghik", 10));
    assert_true(mcp__hash_u64(1) != mcp__hash_u64(2));
}

static void map_agrees_with_a_reference_under_random_operations(void **state)
{
    /* Keys from a small range so that puts, takes and collisions mix; the
     * reference is a plain array. Backward-shift deletion must keep every
     * remaining key reachable. */
    enum { RANGE = 3000 };
    static int present[RANGE];
    memset(present, 0, sizeof present);
    failmalloc fm;
    failmalloc_init(&fm, 0);
    mcp__map m = {0};
    uint64_t x = 88172645463325252ull;
    int count = 0;
    for (int step = 0; step < 200000; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t key = x % RANGE;
        void *v = mcp__map_get(&m, key);
        assert_true((v != NULL) == (present[key] != 0));
        if (v) {
            assert_ptr_equal(v, &present[key]);
            if (x & 1) {
                assert_ptr_equal(mcp__map_take(&m, key), &present[key]);
                present[key] = 0;
                count--;
            }
        } else {
            assert_int_equal(mcp__map_put(&m, &fm.mem, key, &present[key]), MCP_OK);
            present[key] = 1;
            count++;
        }
        assert_int_equal(m.count, count);
    }
    for (uint64_t k = 0; k < RANGE; k++)
        assert_true((mcp__map_get(&m, k) != NULL) == (present[k] != 0));
    assert_null(mcp__map_take(&m, RANGE + 1));
    mcp__map_free(&m, &fm.mem);
    assert_int_equal(fm.live, 0);
}

static void map_growth_failure_leaves_the_map_unchanged(void **state)
{
    failmalloc fm;
    failmalloc_init(&fm, 0);
    mcp__map m = {0};
    static int v[100];
    for (int i = 0; i < 32; i++)
        assert_int_equal(mcp__map_put(&m, &fm.mem, (uint64_t)i, &v[i]), MCP_OK);
    fm.fail_at = fm.calls + 1; /* the next growth fails */
    assert_int_equal(mcp__map_put(&m, &fm.mem, 32, &v[32]), MCP_ERR_NOMEM);
    assert_int_equal(m.count, 32);
    for (int i = 0; i < 32; i++)
        assert_ptr_equal(mcp__map_get(&m, (uint64_t)i), &v[i]);
    mcp__map_free(&m, &fm.mem);
    assert_int_equal(fm.live, 0);
}

static bool match_ptr(const void *value, const void *ctx)
{
    return value == ctx;
}

static void map_keeps_entries_that_share_a_key_apart(void **state)
{
    /* Tables keyed by a hash store colliding entries under one key and
     * tell them apart with a match function. */
    failmalloc fm;
    failmalloc_init(&fm, 0);
    mcp__map m = {0};
    static int v[200];
    for (int i = 0; i < 200; i++)
        assert_int_equal(mcp__map_put(&m, &fm.mem, (uint64_t)(i % 3), &v[i]), MCP_OK);
    for (int i = 0; i < 200; i++)
        assert_ptr_equal(mcp__map_find(&m, (uint64_t)(i % 3), match_ptr, &v[i]), &v[i]);
    assert_null(mcp__map_find(&m, 7, match_ptr, &v[0]));
    /* Removing one entry of a shared key leaves the others reachable. */
    for (int i = 0; i < 200; i += 2)
        assert_true(mcp__map_remove(&m, (uint64_t)(i % 3), &v[i]));
    assert_false(mcp__map_remove(&m, 0, &v[0]));
    for (int i = 0; i < 200; i++)
        assert_true((mcp__map_find(&m, (uint64_t)(i % 3), match_ptr, &v[i]) != NULL) == (i % 2 == 1));
    assert_int_equal(m.count, 100);
    /* A reservation makes the following insertions infallible. */
    assert_int_equal(mcp__map_reserve(&m, &fm.mem, 500), MCP_OK);
    fm.fail_at = fm.calls + 1;
    for (int i = 0; i < 200; i += 2)
        assert_int_equal(mcp__map_put(&m, &fm.mem, 9, &v[i]), MCP_OK);
    assert_int_equal(fm.failed, 0);
    mcp__map_free(&m, &fm.mem);
    assert_int_equal(fm.live, 0);
}

static void every_error_code_has_a_specific_message(void **state)
{
    const int codes[] = {MCP_OK, MCP_ERR_NOMEM, MCP_ERR_INVALID_ARG, MCP_ERR_LIMIT,
                         MCP_ERR_STATE, MCP_ERR_NOT_FOUND, MCP_ERR_IO, MCP_ERR_UTF8,
                         MCP_ERR_JSON_SYNTAX, MCP_ERR_JSON_UTF8, MCP_ERR_JSON_ESCAPE,
                         MCP_ERR_JSON_CONTROL, MCP_ERR_JSON_NUMBER, MCP_ERR_JSON_DEPTH,
                         MCP_ERR_JSON_SIZE, MCP_ERR_JSON_DUPLICATE_KEY,
                         MCP_ERR_JSON_TRAILING, MCP_ERR_JSON_EMPTY, MCP_ERR_JSON_TYPE,
                         MCP_ERR_JSON_RANGE, MCP_ERR_RPC_PARSE, MCP_ERR_RPC_INVALID,
                         MCP_ERR_RPC_BATCH, MCP_ERR_LINE_TOO_LONG, MCP_ERR_REMOTE,
                         MCP_ERR_ABORTED, MCP_ERR_TIMED_OUT, MCP_ERR_MAX_TIME,
                         MCP_ERR_CLOSED, MCP_ERR_PROTOCOL, MCP_ERR_CANCELLED,
                         MCP_ERR_TOO_LARGE, MCP_ERR_INPUT_REQUIRED, MCP_ERR_HTTP,
                         MCP_ERR_SPAWN, MCP_ERR_BUSY};
    const char *unknown = mcp_strerror(12345);
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = mcp_strerror(codes[i]);
        assert_non_null(s);
        assert_string_not_equal(s, unknown);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(s, mcp_strerror(codes[j]));
    }
    assert_string_equal(mcp_version(), MCP_VERSION_STRING);
}

/* Text from a peer ------------------------------------------------------------ */

static void control_characters_are_shown_not_acted_on(void **state)
{
    /* ESC sequences, BEL, CR LF, TAB, DEL, NUL and a C1 (U+0085) become
     * visible escapes; UTF-8 and invalid bytes pass as they are. */
    static const char in[] = "a\x1b[2J\x1b]0;t\x07\r\nb\tc\x7f\0d\xc2\x85\xc3\xa9\xf0\x9f\x98\x80\xff";
    static const char want[] =
        "a\\x1b[2J\\x1b]0;t\\x07\\r\\nb\\tc\\x7f\\x00d\\u0085\xc3\xa9\xf0\x9f\x98\x80\xff";
    char out[128];
    size_t n = mcp_text_escape_controls(in, sizeof in - 1, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    assert_int_equal(mcp_text_escape_controls_buf(in, sizeof in - 1, &b), MCP_OK);
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.data, want, b.len);
    mcp_buf_free(&b);
}

static void bidirectional_controls_are_shown_too(void **state)
{
    /* RLO, PDI, LRM and ALM could reorder what a reader sees; a character
     * next to them (U+2029, U+2070, U+0600) is text. */
    static const char in[] = "a" "\xe2\x80\xae" "b" "\xe2\x81\xa9" "c" "\xe2\x80\x8e" "d"
                             "\xd8\x9c" "\xe2\x80\xa9" "\xe2\x81\xb0" "\xd8\x80";
    static const char want[] = "a\\u202eb\\u2069c\\u200ed\\u061c"
                               "\xe2\x80\xa9" "\xe2\x81\xb0" "\xd8\x80";
    char out[128];
    mcp_text_escape_controls(in, sizeof in - 1, out, sizeof out);
    assert_string_equal(out, want);
}

static void a_cut_never_splits_an_escape_or_a_character(void **state)
{
    char out[8];
    /* "ab" + "\x1b" (4 bytes) does not fit in 5 with its NUL: cut before. */
    assert_int_equal(mcp_text_escape_controls("ab\x1b", 3, out, 6), 2);
    assert_string_equal(out, "ab");
    assert_int_equal(mcp_text_escape_controls("ab\x1b", 3, out, 7), 6);
    assert_string_equal(out, "ab\\x1b");
    /* A 4-byte character: whole or not at all. */
    assert_int_equal(mcp_text_escape_controls("a\xf0\x9f\x98\x80", 5, out, 5), 1);
    assert_string_equal(out, "a");
    assert_int_equal(mcp_text_escape_controls("x", 1, out, 1), 0);
    assert_string_equal(out, "");
    assert_int_equal(mcp_text_escape_controls("x", 1, out, 0), 0);
    /* A truncated sequence at the end is copied byte by byte. */
    assert_int_equal(mcp_text_escape_controls("\xf0\x9f", 2, out, sizeof out), 2);
    assert_memory_equal(out, "\xf0\x9f", 3);
}

static void the_buffer_form_stops_at_its_limit(void **state)
{
    mcp_buf b;
    mcp_buf_init(&b, 5, NULL);
    assert_int_equal(mcp_text_escape_controls_buf("ab\n", 3, &b), MCP_OK);
    assert_memory_equal(b.data, "ab\\n", 4);
    assert_int_equal(mcp_text_escape_controls_buf("\x1b", 1, &b), MCP_ERR_LIMIT);
    assert_int_equal(b.len, 4); /* what was appended before stays */
    mcp_buf_free(&b);
}

/* common.h's NULL rule: whatever frees, releases, resets, closes or stops
 * takes NULL and does nothing (a crash here fails the test). */
static void every_release_function_accepts_null(void **state)
{
    mcp_buf_reset(NULL);
    mcp_buf_free(NULL);
    mcp_json_doc_free(NULL);
    mcp_id_release(NULL, NULL);
    mcp_message_free(NULL);
    mcp_line_reader_free(NULL);
    mcp_session_close(NULL, 0);
    mcp_session_free(NULL);
    mcp_server_stop(NULL);
    mcp_server_free(NULL);
    mcp_client_call_result_release(NULL);
    mcp_client_close(NULL);
    mcp_client_free(NULL);
    mcp_json_doc *d = mcp_json_doc_new(NULL); /* and they still work after */
    assert_non_null(d);
    mcp_json_doc_free(d);
}

/* Every callback type takes its user_data first (common.h): a type whose
 * parameters move fails to compile here. */
#define MCP__HAS_TYPE(expr, type) _Generic((expr), type: 1, default: 0)
_Static_assert(MCP__HAS_TYPE((mcp_tool_fn)0, void (*)(void *, mcp_call *)), "mcp_tool_fn");
_Static_assert(MCP__HAS_TYPE(((mcp_mem *)0)->malloc, void *(*)(void *, size_t)), "malloc");
_Static_assert(MCP__HAS_TYPE(((mcp_mem *)0)->realloc, void *(*)(void *, void *, size_t)),
               "realloc");
_Static_assert(MCP__HAS_TYPE(((mcp_mem *)0)->free, void (*)(void *, void *)), "free");
_Static_assert(MCP__HAS_TYPE((mcp_question_fn)0, void (*)(void *, mcp_question *)), "question");
_Static_assert(MCP__HAS_TYPE((mcp_log_fn)0, void (*)(void *, const mcp_log_record *)), "log");
_Static_assert(MCP__HAS_TYPE((mcp_cancel_fn)0, void (*)(void *)), "cancel");
_Static_assert(MCP__HAS_TYPE((mcp_client_call_done_fn)0,
                             void (*)(void *, const mcp_client_call_result *)),
               "call done");

/* An allocator gets its user_data first in each of its three functions. */
static void allocator_gets_user_data_first(void **state)
{
    (void)state;
    failmalloc fm;
    failmalloc_init(&fm, 0);
    mcp_buf b;
    mcp_buf_init(&b, 0, &fm.mem);
    assert_int_equal(mcp_buf_append(&b, MCP_LITERAL("hello")), MCP_OK);
    assert_int_equal(fm.live, 1);
    mcp_buf_free(&b);
    assert_int_equal(fm.live, 0);
}

/* MCP_LOG_LEVEL keeps its four words (and "warning"), mapped onto the one
 * set of levels; unset leaves the fallback. */
static void the_log_level_variable_names_the_levels(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        mcp_log_level level;
    } cases[] = {{"debug", MCP_LOG_DEBUG},     {"info", MCP_LOG_INFO},
                 {"warn", MCP_LOG_WARNING},    {"warning", MCP_LOG_WARNING},
                 {"error", MCP_LOG_ERROR}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("MCP_LOG_LEVEL", cases[i].value, 1);
        assert_int_equal(mcp__log_level_from_env(MCP_LOG_NOTICE), cases[i].level);
    }
    unsetenv("MCP_LOG_LEVEL");
    assert_int_equal(mcp__log_level_from_env(MCP_LOG_NOTICE), MCP_LOG_NOTICE);
    assert_string_equal(mcp_log_level_name(MCP_LOG_WARNING), "warning");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buffer_append_stops_at_the_cap),
        cmocka_unit_test(buffer_with_the_largest_limit_grows),
        cmocka_unit_test(buffer_reports_allocation_failure_and_keeps_content),
        cmocka_unit_test(arena_allocations_are_aligned_and_released_at_once),
        cmocka_unit_test(arena_grows_the_last_allocation_in_place),
        cmocka_unit_test(arena_edges),
        cmocka_unit_test(hash_is_stable_within_a_process),
        cmocka_unit_test(map_agrees_with_a_reference_under_random_operations),
        cmocka_unit_test(map_growth_failure_leaves_the_map_unchanged),
        cmocka_unit_test(map_keeps_entries_that_share_a_key_apart),
        cmocka_unit_test(every_error_code_has_a_specific_message),
        cmocka_unit_test(control_characters_are_shown_not_acted_on),
        cmocka_unit_test(bidirectional_controls_are_shown_too),
        cmocka_unit_test(a_cut_never_splits_an_escape_or_a_character),
        cmocka_unit_test(the_buffer_form_stops_at_its_limit),
        cmocka_unit_test(every_release_function_accepts_null),
        cmocka_unit_test(allocator_gets_user_data_first),
        cmocka_unit_test(the_log_level_variable_names_the_levels),
        cmocka_unit_test(released_blocks_serve_the_next_arenas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
