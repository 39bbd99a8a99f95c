/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "mcp/common.h"

void mcp_buf_init(mcp_buf *buf, size_t limit, const mcp_mem *mem)
{
    buf->data = NULL;
    buf->len = 0;
    buf->alloc = 0;
    buf->limit = limit ? limit : MCP_BUF_DEFAULT_LIMIT;
    mcp__mem_init(&buf->mem, mem);
}

/* Make room for `extra` more bytes plus the terminating NUL. */
int mcp__buf_reserve(mcp_buf *buf, size_t extra)
{
    if (extra > buf->limit || buf->len > buf->limit - extra)
        return MCP_ERR_LIMIT;
    size_t need = buf->len + extra + 1;
    if (need <= buf->alloc)
        return MCP_OK;
    size_t n = buf->alloc ? buf->alloc : 256;
    while (n < need)
        n = n > SIZE_MAX / 2 ? need : n * 2;
    if (n - 1 > buf->limit) /* not n > limit + 1: a limit of SIZE_MAX would wrap to 0 */
        n = buf->limit + 1;
    char *p = mcp__realloc(&buf->mem, buf->data, n);
    if (!p)
        return MCP_ERR_NOMEM;
    buf->data = p;
    buf->alloc = n;
    return MCP_OK;
}

int mcp_buf_append(mcp_buf *buf, const void *bytes, size_t len)
{
    int rc = mcp__buf_reserve(buf, len);
    if (rc)
        return rc;
    if (len)
        memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
    return MCP_OK;
}

void mcp_buf_reset(mcp_buf *buf)
{
    if (!buf)
        return;
    buf->len = 0;
    if (buf->data)
        buf->data[0] = '\0';
}

void mcp_buf_free(mcp_buf *buf)
{
    if (!buf)
        return;
    mcp__free(&buf->mem, buf->data);
    buf->data = NULL;
    buf->len = 0;
    buf->alloc = 0;
}
