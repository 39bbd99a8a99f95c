/* SPDX-License-Identifier: MIT */
/* Internal allocator helpers: every object stores a copy of its mcp_mem. */
#ifndef MCP_CORE_MEM_H
#define MCP_CORE_MEM_H

#include <stdbool.h>

#include "mcp/common.h"

/* Fill *dst with src, or with the C library allocator when src is NULL. */
void mcp__mem_init(mcp_mem *dst, const mcp_mem *src);

/* Whether m is the C library allocator of mcp__mem_init(dst, NULL): what
 * it returns may be kept and handed out again by the library itself. */
bool mcp__mem_is_default(const mcp_mem *m);

static inline void *mcp__malloc(const mcp_mem *m, size_t n)
{
    return m->malloc(m->user_data, n);
}

static inline void *mcp__realloc(const mcp_mem *m, void *p, size_t n)
{
    return m->realloc(m->user_data, p, n);
}

static inline void mcp__free(const mcp_mem *m, void *p)
{
    m->free(m->user_data, p);
}

/* calloc through the hook; NULL on overflow of n * size. */
void *mcp__calloc(const mcp_mem *m, size_t n, size_t size);

/* A NUL-terminated copy of len bytes; NULL on allocation failure. */
char *mcp__strndup(const mcp_mem *m, const char *s, size_t len);

#endif
