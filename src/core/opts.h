/* SPDX-License-Identifier: MIT */
/* Option structs that grow without breaking the ABI (common.h). */
#ifndef MCP_CORE_OPTS_H
#define MCP_CORE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "mcp/common.h"

/*
 * Copy a caller's option struct, whose first member is `size_t size`, into
 * dst (dst_size bytes): the fields the caller's version has, zero for the
 * rest. src NULL gives all zeros. dst's size member ends up dst_size.
 * MCP_ERR_INVALID_ARG for a size of 0, smaller than the size member or
 * larger than dst_size (a newer header than this library).
 */
static inline int mcp__opts_copy(void *dst, size_t dst_size, const void *src)
{
    memset(dst, 0, dst_size);
    if (src) {
        size_t n;
        memcpy(&n, src, sizeof n);
        if (n < sizeof n || n > dst_size)
            return MCP_ERR_INVALID_ARG;
        memcpy(dst, src, n);
    }
    memcpy(dst, &dst_size, sizeof dst_size);
    return MCP_OK;
}

/*
 * Output structs the caller allocates (common.h), whose first member is
 * `size_t size`: whether out's size is one the library can fill, at least
 * `first` (the struct's first version) and at most `known` (sizeof here).
 */
static inline bool mcp__out_size_ok(const void *out, size_t first, size_t known)
{
    size_t n;
    memcpy(&n, out, sizeof n);
    return n >= first && n >= sizeof n && n <= known;
}

/* Fill the caller's out, whose size was checked, from src (a whole struct
 * of this library's size): the bytes within out's size, out's size kept. */
static inline void mcp__out_fill(void *out, const void *src)
{
    size_t n;
    memcpy(&n, out, sizeof n);
    memcpy((char *)out + sizeof n, (const char *)src + sizeof n, n - sizeof n);
}

/* Zero the caller's out within its size (checked), keeping the size. */
static inline void mcp__out_zero(void *out)
{
    size_t n;
    memcpy(&n, out, sizeof n);
    memset((char *)out + sizeof n, 0, n - sizeof n);
}

#endif
