/* SPDX-License-Identifier: MIT */
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

static void *default_malloc(void *ud, size_t n)
{
    (void)ud;
    return malloc(n);
}

static void *default_realloc(void *ud, void *p, size_t n)
{
    (void)ud;
    return realloc(p, n);
}

static void default_free(void *ud, void *p)
{
    (void)ud;
    free(p);
}

void mcp__mem_init(mcp_mem *dst, const mcp_mem *src)
{
    if (src) {
        *dst = *src;
        return;
    }
    dst->user_data = NULL;
    dst->malloc = default_malloc;
    dst->realloc = default_realloc;
    dst->free = default_free;
}

bool mcp__mem_is_default(const mcp_mem *m)
{
    return m->malloc == default_malloc && m->free == default_free;
}

void *mcp__calloc(const mcp_mem *m, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = mcp__malloc(m, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

char *mcp__strndup(const mcp_mem *m, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = mcp__malloc(m, len + 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}
