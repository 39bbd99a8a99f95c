/* SPDX-License-Identifier: MIT */
/*
 * A bump allocator: many small allocations, one release. Documents and
 * per-request state live in arenas so that "free everything for this
 * message" is a single call, never a promise kept by hand.
 */
#ifndef MCP_CORE_ARENA_H
#define MCP_CORE_ARENA_H

#include <stddef.h>
#include <stdalign.h>

#include "mcp/common.h"

typedef struct mcp__arena_block mcp__arena_block;

typedef struct mcp__arena {
    mcp_mem mem;
    mcp__arena_block *head; /* current block; older blocks follow ->next */
    unsigned char *cur;     /* the free part of the current block: cur..end */
    unsigned char *end;
    size_t next_size; /* data size of the next block to allocate */
} mcp__arena;

/* Every allocation's alignment: any scalar type's. */
#define MCP__ARENA_ALIGN (_Alignof(max_align_t) < 8 ? 8 : _Alignof(max_align_t))

/* n rounded up to the alignment (n at most SIZE_MAX - MCP__ARENA_ALIGN). */
static inline size_t mcp__arena_align(size_t n)
{
    return (n + (MCP__ARENA_ALIGN - 1)) & ~(size_t)(MCP__ARENA_ALIGN - 1);
}

/* Prepare an arena whose first block will hold first_size bytes. Allocates
 * nothing until the first mcp__arena_alloc. */
void mcp__arena_init(mcp__arena *a, const mcp_mem *mem, size_t first_size);

/* The allocation that needs a new block (or is too large to align). */
void *mcp__arena_alloc_slow(mcp__arena *a, size_t n);

/* n bytes aligned for any scalar type; NULL on allocation failure. Inline:
 * a document's parse makes one per value, and most fit the current block. */
static inline void *mcp__arena_alloc(mcp__arena *a, size_t n)
{
    size_t al = mcp__arena_align(n);
    if (n && al >= n && al <= (size_t)(a->end - a->cur)) {
        void *p = a->cur;
        a->cur += al;
        return p;
    }
    return mcp__arena_alloc_slow(a, n);
}

/* Grow the allocation p (of old_n bytes, the last one made) to new_n bytes,
 * in place when it fits, else by copying into a fresh allocation. Returns the
 * (possibly moved) pointer or NULL; on NULL p stays valid. A new_n no larger
 * (once aligned) returns p as it is. */
void *mcp__arena_grow(mcp__arena *a, void *p, size_t old_n, size_t new_n);

/* Bytes obtained from the allocator, for memory accounting in tests. */
size_t mcp__arena_footprint(const mcp__arena *a);

/* Blocks the calling thread keeps for its next arenas (0 under
 * AddressSanitizer, which the cache would blind): for tests. */
unsigned mcp__arena_cached_blocks(void);
/* Free the blocks the calling thread keeps (what its exit does). */
void mcp__arena_cache_release(void);

/* Release every block. The arena struct itself may live inside one of the
 * blocks: the function copies what it needs first. */
void mcp__arena_release(mcp__arena *a);

#endif
