/* SPDX-License-Identifier: MIT */
/* Internal access to mcp_buf for writers that fill it in place. */
#ifndef MCP_CORE_BUF_H
#define MCP_CORE_BUF_H

#include "mcp/common.h"

/* Ensure room for `extra` more bytes (and a NUL) without exceeding the cap.
 * MCP_OK, MCP_ERR_LIMIT or MCP_ERR_NOMEM; on error nothing changes. */
int mcp__buf_reserve(mcp_buf *buf, size_t extra);

/* Append one byte; same errors. */
static inline int mcp__buf_putc(mcp_buf *buf, char c)
{
    if (buf->len + 2 <= buf->alloc && buf->len < buf->limit) {
        buf->data[buf->len++] = c;
        buf->data[buf->len] = '\0';
        return MCP_OK;
    }
    return mcp_buf_append(buf, &c, 1);
}

/* Undo appends: back to len bytes (a failed writer leaves nothing of
 * itself). */
static inline void mcp__buf_rewind(mcp_buf *buf, size_t len)
{
    buf->len = len;
    if (buf->data)
        buf->data[len] = '\0';
}

#endif
