/*
 * An open-addressing map from uint64 keys to non-NULL pointers, with
 * backward-shift deletion (no tombstones, so lookups stay short however
 * many entries come and go). For request tables keyed by our own integer
 * ids or by handles. Keys are hashed with the process key.
 */
#ifndef MCP_CORE_U64MAP_H
#define MCP_CORE_U64MAP_H

#include <stdint.h>

#include "mcp/common.h"

typedef struct mcp__u64map_entry {
    uint64_t key;
    void *value; /* NULL marks an empty slot */
} mcp__u64map_entry;

typedef struct mcp__u64map {
    mcp__u64map_entry *slots;
    uint32_t size; /* a power of two, or 0 */
    uint32_t count;
} mcp__u64map;

/* The value for key, or NULL. */
void *mcp__u64map_get(const mcp__u64map *m, uint64_t key);
/* Insert (key must be absent; value non-NULL). MCP_OK or MCP_ERR_NOMEM
 * (the map is unchanged). */
int mcp__u64map_put(mcp__u64map *m, const mcp_mem *mem, uint64_t key, void *value);
/* Remove key and return its value, or NULL when absent. */
void *mcp__u64map_take(mcp__u64map *m, uint64_t key);
/* Free the slots; the map is empty and reusable. */
void mcp__u64map_free(mcp__u64map *m, const mcp_mem *mem);

#endif
