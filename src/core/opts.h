/* SPDX-License-Identifier: MIT */
/* Option structs that grow without breaking the ABI (common.h). */
#ifndef MCP_CORE_OPTS_H
#define MCP_CORE_OPTS_H

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

#endif
