/* SPDX-License-Identifier: MIT */
/*
 * A bump allocator: many small allocations, one release. Documents and
 * per-request state live in arenas so that "free everything for this
 * message" is a single call, never a promise kept by hand.
 */
#ifndef MCP_CORE_ARENA_H
#define MCP_CORE_ARENA_H

#include <stddef.h>

#include "mcp/common.h"

typedef struct mcp__arena_block mcp__arena_block;

typedef struct mcp__arena {
    mcp_mem mem;
    mcp__arena_block *head; /* current block; older blocks follow ->next */
    size_t next_size;       /* data size of the next block to allocate */
} mcp__arena;

/* Prepare an arena whose first block will hold first_size bytes. Allocates
 * nothing until the first mcp__arena_alloc. */
void mcp__arena_init(mcp__arena *a, const mcp_mem *mem, size_t first_size);

/* n bytes aligned for any scalar type; NULL on allocation failure. */
void *mcp__arena_alloc(mcp__arena *a, size_t n);

/* Grow the allocation p (of old_n bytes, the last one made) to new_n bytes,
 * in place when it fits, else by copying into a fresh allocation. Returns the
 * (possibly moved) pointer or NULL; on NULL p stays valid. */
void *mcp__arena_grow(mcp__arena *a, void *p, size_t old_n, size_t new_n);

/* Bytes obtained from the allocator, for memory accounting in tests. */
size_t mcp__arena_footprint(const mcp__arena *a);

/* Bytes handed out (after alignment), for sizing and tests. */
size_t mcp__arena_used(const mcp__arena *a);

/* Release every block. The arena struct itself may live inside one of the
 * blocks: the function copies what it needs first. */
void mcp__arena_release(mcp__arena *a);

#endif
