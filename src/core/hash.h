/* SPDX-License-Identifier: MIT */
/*
 * A keyed 64-bit hash for tables whose keys come from the peer (object keys,
 * request ids). The key is random per process so that a peer cannot choose
 * colliding keys in advance and turn lookups quadratic.
 */
#ifndef MCP_CORE_HASH_H
#define MCP_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t mcp__hash_bytes(const void *data, size_t len);
uint64_t mcp__hash_u64(uint64_t x);

#endif
