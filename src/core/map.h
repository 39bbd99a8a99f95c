/* SPDX-License-Identifier: MIT */
/*
 * The library's one hash map: open addressing from 64-bit keys to non-NULL
 * pointers, with backward-shift deletion (no tombstones, so lookups stay
 * short however many entries come and go).
 *
 * Tables keyed by an integer (our request ids, handles) use the integer as
 * the key. Tables keyed by something larger (the peer's request ids, which
 * keep their JSON type) use its 64-bit hash as the key and tell entries
 * with equal keys apart with a match function: several entries may share a
 * key. Slots are placed by the process-keyed hash of the key, so a peer
 * cannot choose ids that collide.
 */
#ifndef MCP_CORE_MAP_H
#define MCP_CORE_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "mcp/common.h"

typedef struct mcp__map_entry {
    uint64_t key;
    void *value; /* NULL marks an empty slot */
} mcp__map_entry;

typedef struct mcp__map {
    mcp__map_entry *slots;
    uint32_t size; /* a power of two, or 0 */
    uint32_t count;
} mcp__map;

/* Tells whether `value` is the entry wanted by `ctx` among those sharing a
 * key. */
typedef bool (*mcp__map_match_fn)(const void *value, const void *ctx);

/* The first value stored under key, or NULL. */
void *mcp__map_get(const mcp__map *m, uint64_t key);

/* The value under key that match accepts, or NULL. */
void *mcp__map_find(const mcp__map *m, uint64_t key, mcp__map_match_fn match,
                    const void *ctx);

/* Make room for `more` insertions that then cannot fail. MCP_OK or
 * MCP_ERR_NOMEM (the map is unchanged). */
int mcp__map_reserve(mcp__map *m, const mcp_mem *mem, uint32_t more);

/* Insert value (non-NULL) under key. MCP_OK or MCP_ERR_NOMEM (the map is
 * unchanged); never fails after a successful mcp__map_reserve for it. */
int mcp__map_put(mcp__map *m, const mcp_mem *mem, uint64_t key, void *value);

/* Remove the first entry under key and return its value, or NULL. */
void *mcp__map_take(mcp__map *m, uint64_t key);

/* Remove the entry (key, value); false when it is not there. */
bool mcp__map_remove(mcp__map *m, uint64_t key, const void *value);

/* Free the slots; the map is empty and reusable. */
void mcp__map_free(mcp__map *m, const mcp_mem *mem);

#endif
