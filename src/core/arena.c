/* SPDX-License-Identifier: MIT */
#include "core/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "core/mem.h"

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
    mcp__arena_block *b = mcp__malloc(&a->mem, sizeof *b + size);
    if (!b)
        return NULL;
    b->size = size;
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
    mcp__arena_block *b = a->head;
    a->head = NULL;
    a->cur = a->end = NULL;
    while (b) {
        mcp__arena_block *next = b->next;
        mcp__free(&mem, b);
        b = next;
    }
}
