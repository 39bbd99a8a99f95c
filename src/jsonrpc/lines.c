/*
 * NDJSON framing. Complete lines inside a chunk are delivered straight from
 * the caller's bytes; only a line split across chunks is copied, and never
 * more than the cap: a longer line is reported once and skipped up to its
 * newline, after which the stream carries on.
 */
#include <string.h>

#include "core/mem.h"
#include "mcp/jsonrpc.h"

/* A buffer that grew past this for one long line is released afterwards, so
 * an idle connection does not keep a large allocation. */
#define KEEP_BUFFER ((size_t)64 << 10)

struct mcp_line_reader {
    mcp_mem mem;
    size_t max_line;
    char *buf;
    size_t len, alloc;
    bool skipping; /* inside a line that is being dropped */
};

mcp_line_reader *mcp_line_reader_new(size_t max_line, const mcp_mem *mem)
{
    mcp_mem m;
    mcp__mem_init(&m, mem);
    mcp_line_reader *r = mcp__malloc(&m, sizeof *r);
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->mem = m;
    r->max_line = max_line ? max_line : MCP_LINE_DEFAULT_MAX;
    return r;
}

void mcp_line_reader_free(mcp_line_reader *r)
{
    if (!r)
        return;
    mcp__free(&r->mem, r->buf);
    mcp__free(&r->mem, r);
}

size_t mcp_line_reader_pending(const mcp_line_reader *r)
{
    return r->len;
}

static void deliver(mcp_line_cb cb, void *ud, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    if (len)
        cb(ud, MCP_OK, line, len);
}

static void drop_buffer_if_large(mcp_line_reader *r)
{
    r->len = 0;
    if (r->alloc > KEEP_BUFFER) {
        mcp__free(&r->mem, r->buf);
        r->buf = NULL;
        r->alloc = 0;
    }
}

/* Start dropping the current line: report once. */
static void start_skip(mcp_line_reader *r, int status, size_t seen,
                       mcp_line_cb cb, void *ud)
{
    r->skipping = true;
    drop_buffer_if_large(r);
    cb(ud, status, NULL, seen);
}

/* Append part of an unfinished line to the buffer. */
static void buffer_part(mcp_line_reader *r, const char *p, size_t n,
                        mcp_line_cb cb, void *ud)
{
    if (r->skipping)
        return;
    /* The cap counts the line without its newline; one byte of slack lets
     * a CR that precedes the newline arrive in a later chunk. */
    if (r->len + n > r->max_line + 1) {
        start_skip(r, MCP_ERR_LINE_TOO_LONG, r->len + n, cb, ud);
        return;
    }
    if (r->len + n > r->alloc) {
        size_t a = r->alloc ? r->alloc : 1024;
        while (a < r->len + n)
            a *= 2;
        if (a > r->max_line + 1)
            a = r->max_line + 1;
        char *nb = mcp__realloc(&r->mem, r->buf, a);
        if (!nb) {
            start_skip(r, MCP_ERR_NOMEM, r->len + n, cb, ud);
            return;
        }
        r->buf = nb;
        r->alloc = a;
    }
    memcpy(r->buf + r->len, p, n);
    r->len += n;
}

/* A line of total length `len` ended: true if it is within the cap. */
static bool within_cap(const mcp_line_reader *r, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    return len <= r->max_line;
}

int mcp_line_reader_feed(mcp_line_reader *r, const char *data, size_t len,
                         mcp_line_cb cb, void *ud)
{
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            buffer_part(r, p, (size_t)(end - p), cb, ud);
            break;
        }
        size_t n = (size_t)(nl - p);
        if (r->skipping) {
            r->skipping = false;
        } else if (r->len == 0) {
            if (within_cap(r, p, n))
                deliver(cb, ud, p, n);
            else
                cb(ud, MCP_ERR_LINE_TOO_LONG, NULL, n);
        } else {
            buffer_part(r, p, n, cb, ud);
            if (r->skipping) {
                r->skipping = false; /* it ended right here */
            } else if (within_cap(r, r->buf, r->len)) {
                deliver(cb, ud, r->buf, r->len);
                drop_buffer_if_large(r);
            } else {
                cb(ud, MCP_ERR_LINE_TOO_LONG, NULL, r->len);
                drop_buffer_if_large(r);
            }
        }
        p = nl + 1;
    }
    return MCP_OK;
}

void mcp_line_reader_finish(mcp_line_reader *r, mcp_line_cb cb, void *ud)
{
    if (!r->skipping && r->len) {
        if (within_cap(r, r->buf, r->len))
            deliver(cb, ud, r->buf, r->len);
        else
            cb(ud, MCP_ERR_LINE_TOO_LONG, NULL, r->len);
    }
    r->skipping = false;
    drop_buffer_if_large(r);
}
