/* SPDX-License-Identifier: MIT */
/*
 * NDJSON framing. Complete lines inside a chunk are delivered straight from
 * the caller's bytes; only a line split across chunks is copied, and never
 * more than the cap: a longer line is skipped up to its newline, keeping its
 * first and last MCP_LINE_KEEP bytes (enough to find whose message it was),
 * and reported once when it ends; then the stream carries on.
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
    bool skipping;   /* inside a line that is being dropped */
    int skip_status; /* why: MCP_ERR_LINE_TOO_LONG or MCP_ERR_NOMEM */
    size_t skipped;  /* bytes of that line so far */
    size_t head_len, tail_len;
    char head[MCP_LINE_KEEP]; /* its first bytes */
    char tail[MCP_LINE_KEEP]; /* its last bytes */
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

/* Bytes of a line being dropped: the first ones are kept as its head, the
 * latest ones as its tail. */
static void keep(mcp_line_reader *r, const char *p, size_t n)
{
    if (!n)
        return; /* p may be NULL then (nothing buffered yet) */
    r->skipped += n;
    if (r->head_len < MCP_LINE_KEEP) {
        size_t take = MCP_LINE_KEEP - r->head_len < n ? MCP_LINE_KEEP - r->head_len : n;
        memcpy(r->head + r->head_len, p, take);
        r->head_len += take;
    }
    if (n >= MCP_LINE_KEEP) {
        memcpy(r->tail, p + n - MCP_LINE_KEEP, MCP_LINE_KEEP);
        r->tail_len = MCP_LINE_KEEP;
        return;
    }
    if (r->tail_len + n > MCP_LINE_KEEP) {
        size_t drop = r->tail_len + n - MCP_LINE_KEEP;
        memmove(r->tail, r->tail + drop, r->tail_len - drop);
        r->tail_len -= drop;
    }
    memcpy(r->tail + r->tail_len, p, n);
    r->tail_len += n;
}

/* Start dropping the current line: what is buffered so far becomes the
 * start of what is kept. */
static void start_skip(mcp_line_reader *r, int status)
{
    r->skipping = true;
    r->skip_status = status;
    r->skipped = r->head_len = r->tail_len = 0;
    keep(r, r->buf, r->len);
    drop_buffer_if_large(r);
}

/* The dropped line ended: report it once. */
static void end_skip(mcp_line_reader *r, mcp_line_cb cb, void *ud)
{
    r->skipping = false;
    /* A CR before the newline is framing, not part of the message. */
    if (r->tail_len && r->tail[r->tail_len - 1] == '\r')
        r->tail_len--;
    cb(ud, r->skip_status, r->head, r->head_len);
    r->skipped = r->head_len = r->tail_len = 0;
}

/* Append part of an unfinished line to the buffer. */
static void buffer_part(mcp_line_reader *r, const char *p, size_t n)
{
    if (r->skipping) {
        keep(r, p, n);
        return;
    }
    /* The cap counts the line without its newline; one byte of slack lets
     * a CR that precedes the newline arrive in a later chunk. */
    if (r->len + n > r->max_line + 1) {
        start_skip(r, MCP_ERR_LINE_TOO_LONG);
        keep(r, p, n);
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
            start_skip(r, MCP_ERR_NOMEM);
            keep(r, p, n);
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
            buffer_part(r, p, (size_t)(end - p));
            break;
        }
        size_t n = (size_t)(nl - p);
        if (r->skipping) {
            keep(r, p, n);
            end_skip(r, cb, ud);
        } else if (r->len == 0) {
            if (within_cap(r, p, n)) {
                deliver(cb, ud, p, n);
            } else {
                start_skip(r, MCP_ERR_LINE_TOO_LONG);
                keep(r, p, n);
                end_skip(r, cb, ud);
            }
        } else {
            buffer_part(r, p, n);
            if (r->skipping) {
                end_skip(r, cb, ud); /* it ended right here */
            } else if (within_cap(r, r->buf, r->len)) {
                deliver(cb, ud, r->buf, r->len);
                drop_buffer_if_large(r);
            } else {
                start_skip(r, MCP_ERR_LINE_TOO_LONG);
                end_skip(r, cb, ud);
            }
        }
        p = nl + 1;
    }
    return MCP_OK;
}

void mcp_line_reader_finish(mcp_line_reader *r, mcp_line_cb cb, void *ud)
{
    if (r->skipping) {
        end_skip(r, cb, ud);
    } else if (r->len) {
        if (within_cap(r, r->buf, r->len)) {
            deliver(cb, ud, r->buf, r->len);
        } else {
            start_skip(r, MCP_ERR_LINE_TOO_LONG);
            end_skip(r, cb, ud);
        }
    }
    drop_buffer_if_large(r);
}

const char *mcp_line_reader_tail(const mcp_line_reader *r, size_t *len)
{
    *len = r->tail_len;
    return r->tail;
}

size_t mcp_line_reader_skipped(const mcp_line_reader *r)
{
    return r->skipped;
}
