/* SPDX-License-Identifier: MIT */
#include "core/arena.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HIDE_FROM_VALGRIND(p, n) VALGRIND_MAKE_MEM_NOACCESS(p, n)
#define SHOW_TO_VALGRIND(p, n) VALGRIND_MAKE_MEM_UNDEFINED(p, n)
#endif
#endif
#ifndef HIDE_FROM_VALGRIND
#define HIDE_FROM_VALGRIND(p, n) ((void)(p), (void)(n))
#define SHOW_TO_VALGRIND(p, n) ((void)(p), (void)(n))
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#define MIN_BLOCK 256u
/* Beyond this a block no longer doubles: large documents grow linearly. */
#define MAX_GROWTH ((size_t)1 << 20)

/* The free part of the current block is the arena's cur..end; older
 * blocks are full (their tail, too short for what came next, unused). */
struct mcp__arena_block {
    mcp__arena_block *next;
    size_t size; /* bytes in data[] */
    alignas(MCP__ARENA_ALIGN) unsigned char data[];
};

/*
 * Blocks kept for the next arena of the same thread. Every decoded message
 * has an arena whose one block is sized to it, freed when the message is;
 * a block of more than 1 KiB is past what the C library keeps per thread
 * (glibc's tcache) and costs ~700 instructions to allocate and free again,
 * as much as parsing 40 bytes. A released block of 1 to 16 KiB waits here
 * (8 at most per thread) and serves the next request for a size it holds
 * with at most a quarter to spare. Only blocks of the C library allocator:
 * a caller's own allocator sees every allocation. A block waiting is
 * unreadable to valgrind, and the cache is off under AddressSanitizer:
 * neither loses a use after free.
 */
#define CACHE_MIN_SIZE 1024u
#define CACHE_MAX_SIZE (16u * 1024u)
#define CACHE_SLOTS 8

typedef struct block_cache {
    mcp__arena_block *slot[CACHE_SLOTS];
    unsigned count;
    bool registered; /* the thread-exit destructor will empty this cache */
} block_cache;

static _Thread_local block_cache cache;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
/* Atomic: the process's exit (cache_unload) may clear it while a thread
 * still running (an abandoned handler) reads it. */
static atomic_bool cache_key_ok;

/* Thread exit (and library unload, for the unloading thread): nothing
 * cached outlives its thread. */
static void cache_empty(void *unused)
{
    (void)unused;
    while (cache.count)
        free(cache.slot[--cache.count]);
    cache.registered = false;
}

static void cache_key_create(void)
{
    atomic_store_explicit(&cache_key_ok, pthread_key_create(&cache_key, cache_empty) == 0,
                          memory_order_release);
}

#if defined(__GNUC__)
/* Unloaded (dlclose) or exiting: the unloading thread's blocks go, and no
 * thread exit may call into code that is gone (other threads' blocks are
 * left to the process). */
__attribute__((destructor)) static void cache_unload(void)
{
    cache_empty(NULL);
    if (atomic_exchange(&cache_key_ok, false))
        pthread_key_delete(cache_key);
}
#endif

static bool cache_on(const mcp_mem *mem)
{
#ifdef SANITIZED
    (void)mem;
    return false;
#else
    return mcp__mem_is_default(mem);
#endif
}

static mcp__arena_block *cache_take(size_t size)
{
    for (unsigned i = cache.count; i-- > 0;) {
        mcp__arena_block *b = cache.slot[i];
        if (b->size >= size && b->size - size <= size / 4) {
            cache.slot[i] = cache.slot[--cache.count];
            SHOW_TO_VALGRIND(b->data, b->size);
            return b;
        }
    }
    return NULL;
}

/* Whether b was kept; if not, the caller frees it. */
static bool cache_keep(mcp__arena_block *b)
{
    if (b->size < CACHE_MIN_SIZE || b->size > CACHE_MAX_SIZE || cache.count == CACHE_SLOTS)
        return false;
    if (!cache.registered) {
        pthread_once(&cache_once, cache_key_create);
        if (!atomic_load_explicit(&cache_key_ok, memory_order_acquire) ||
            pthread_setspecific(cache_key, &cache) != 0)
            return false;
        cache.registered = true;
    }
    HIDE_FROM_VALGRIND(b->data, b->size);
    cache.slot[cache.count++] = b;
    return true;
}

unsigned mcp__arena_cached_blocks(void)
{
    return cache.count;
}

void mcp__arena_cache_release(void)
{
    cache_empty(NULL);
}

void mcp__arena_init(mcp__arena *a, const mcp_mem *mem, size_t first_size)
{
    mcp__mem_init(&a->mem, mem);
    a->head = NULL;
    a->cur = a->end = NULL;
    a->next_size = first_size < MIN_BLOCK ? MIN_BLOCK : first_size;
}

static mcp__arena_block *new_block(mcp__arena *a, size_t need)
{
    size_t size = a->next_size;
    if (size < need)
        size = need;
    if (size > SIZE_MAX - sizeof(mcp__arena_block))
        return NULL;
    mcp__arena_block *b = NULL;
    if (size >= CACHE_MIN_SIZE && size <= CACHE_MAX_SIZE && cache_on(&a->mem))
        b = cache_take(size);
    if (!b) {
        b = mcp__malloc(&a->mem, sizeof *b + size);
        if (!b)
            return NULL;
        b->size = size;
    }
    b->next = a->head;
    a->head = b;
    a->cur = b->data;
    a->end = b->data + size;
    size_t grow = a->next_size < MAX_GROWTH ? a->next_size : MAX_GROWTH;
    if (a->next_size <= SIZE_MAX - grow)
        a->next_size += grow;
    return b;
}

void *mcp__arena_alloc_slow(mcp__arena *a, size_t n)
{
    if (n > SIZE_MAX - MCP__ARENA_ALIGN)
        return NULL;
    n = mcp__arena_align(n ? n : 1);
    if (n > (size_t)(a->end - a->cur) && !new_block(a, n))
        return NULL;
    void *p = a->cur;
    a->cur += n;
    return p;
}

void *mcp__arena_grow(mcp__arena *a, void *p, size_t old_n, size_t new_n)
{
    size_t old_al = mcp__arena_align(old_n ? old_n : 1);
    if (new_n > SIZE_MAX - MCP__ARENA_ALIGN)
        return NULL;
    size_t new_al = mcp__arena_align(new_n ? new_n : 1);
    /* No larger once aligned (a shrink too): p already holds it. Past
     * here new_n > old_n, so the copy below stays inside q. */
    if (p && new_al <= old_al)
        return p;
    if (p && (unsigned char *)p + old_al == a->cur &&
        new_al - old_al <= (size_t)(a->end - a->cur)) {
        a->cur += new_al - old_al;
        return p;
    }
    void *q = mcp__arena_alloc(a, new_n);
    if (q && p && old_n)
        memcpy(q, p, old_n);
    return q;
}

size_t mcp__arena_footprint(const mcp__arena *a)
{
    size_t total = 0;
    for (const mcp__arena_block *b = a->head; b; b = b->next)
        total += sizeof *b + b->size;
    return total;
}

void mcp__arena_release(mcp__arena *a)
{
    mcp_mem mem = a->mem;
    bool keep = cache_on(&mem);
    mcp__arena_block *b = a->head;
    a->head = NULL;
    a->cur = a->end = NULL;
    while (b) {
        mcp__arena_block *next = b->next;
        if (!keep || !cache_keep(b))
            mcp__free(&mem, b);
        b = next;
    }
}
