/* SPDX-License-Identifier: MIT */
/*
 * A counting allocator for tests (nghttp2's failmalloc idea): it fails the
 * Nth allocation, counts live blocks, and so lets a test walk every
 * allocation failure of an operation and check that nothing leaks.
 */
#ifndef MCP_TEST_FAILMALLOC_H
#define MCP_TEST_FAILMALLOC_H

#include <stddef.h>

#include "mcp/common.h"

typedef struct failmalloc {
    long fail_at;    /* fail the allocation with this ordinal (1-based); 0 = never */
    long calls;      /* allocations attempted so far */
    long live;       /* blocks allocated and not yet freed */
    int failed;      /* an allocation was refused */
    mcp_mem mem;
} failmalloc;

void failmalloc_init(failmalloc *f, long fail_at);

#endif
