/* SPDX-License-Identifier: MIT */
#include "json/writer.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/buf.h"
#include "json/value.h"

void mcp__jw_begin(mcp__jw *w, mcp_buf *out)
{
    w->out = out;
    w->start = out->len;
    w->err = MCP_OK;
    w->depth = 0;
    w->has_items = 0;
    w->after_key = false;
}

int mcp__jw_finish(mcp__jw *w)
{
    if (w->err == MCP_OK && w->depth != 0)
        w->err = MCP_ERR_STATE;
    if (w->err != MCP_OK) {
        w->out->len = w->start;
        if (w->out->data)
            w->out->data[w->start] = '\0';
    }
    return w->err;
}

static void put(mcp__jw *w, const char *s, size_t n)
{
    if (w->err == MCP_OK)
        w->err = mcp_buf_append(w->out, s, n);
}

/* Before a value or a key: the comma that separates it from the previous
 * member of its container. */
static bool separate(mcp__jw *w)
{
    if (w->err != MCP_OK)
        return false;
    if (w->after_key) {
        w->after_key = false;
        return true;
    }
    if (w->depth > 0) {
        uint64_t bit = (uint64_t)1 << (w->depth - 1);
        if (w->has_items & bit)
            w->err = mcp__buf_putc(w->out, ',');
        w->has_items |= bit;
    }
    return w->err == MCP_OK;
}

static void open_container(mcp__jw *w, char c)
{
    if (!separate(w))
        return;
    if (w->depth >= MCP__JW_MAX_DEPTH) {
        w->err = MCP_ERR_LIMIT;
        return;
    }
    w->err = mcp__buf_putc(w->out, c);
    w->depth++;
    w->has_items &= ~((uint64_t)1 << (w->depth - 1));
}

static void close_container(mcp__jw *w, char c)
{
    if (w->err != MCP_OK)
        return;
    if (w->depth == 0 || w->after_key) {
        w->err = MCP_ERR_STATE;
        return;
    }
    w->depth--;
    w->err = mcp__buf_putc(w->out, c);
}

void mcp__jw_object(mcp__jw *w)
{
    open_container(w, '{');
}

void mcp__jw_object_end(mcp__jw *w)
{
    close_container(w, '}');
}

void mcp__jw_array(mcp__jw *w)
{
    open_container(w, '[');
}

void mcp__jw_array_end(mcp__jw *w)
{
    close_container(w, ']');
}

/* Bytes a JSON string holds as they are: printable ASCII but the quote
 * and the backslash. */
static const bool plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
    /* 0x80 and above: 0 (UTF-8, checked) */
};

/* `"text"` (len bytes), the quotes around it: text already plain. */
static void put_quoted(mcp__jw *w, const char *s, size_t len, char after)
{
    mcp_buf *b = w->out;
    int rc = mcp__buf_reserve(b, len + 3);
    if (rc != MCP_OK) {
        w->err = rc;
        return;
    }
    char *d = b->data + b->len;
    d[0] = '"';
    if (len)
        memcpy(d + 1, s, len);
    d[len + 1] = '"';
    b->len += len + 2;
    if (after)
        b->data[b->len++] = after;
    b->data[b->len] = '\0';
}

static void string_value(mcp__jw *w, const char *s, size_t len)
{
    if (!s && len) {
        w->err = MCP_ERR_INVALID_ARG;
        return;
    }
    /* Most strings are printable ASCII with nothing to escape: one pass,
     * one copy. */
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < len && plain[u[i]])
        i++;
    if (i == len) {
        put_quoted(w, s, len, 0);
        return;
    }
    if (mcp_utf8_validate(s, len, NULL) != MCP_OK) {
        w->err = MCP_ERR_UTF8;
        return;
    }
    w->err = mcp_json_write_string(s, len, w->out);
}

void mcp__jw_keyn(mcp__jw *w, const char *key, size_t len)
{
    if (w->after_key) {
        w->err = w->err ? w->err : MCP_ERR_STATE;
        return;
    }
    if (!separate(w))
        return;
    string_value(w, key, len);
    if (w->err == MCP_OK)
        w->err = mcp__buf_putc(w->out, ':');
    w->after_key = true;
}

void mcp__jw_key(mcp__jw *w, const char *key)
{
    if (w->after_key) {
        w->err = w->err ? w->err : MCP_ERR_STATE;
        return;
    }
    if (!separate(w))
        return;
    size_t len = strlen(key);
#ifndef NDEBUG
    for (size_t i = 0; i < len; i++)
        assert(plain[(unsigned char)key[i]]); /* the library's own names only */
#endif
    put_quoted(w, key, len, ':');
    w->after_key = true;
}

void mcp__jw_stringn(mcp__jw *w, const char *s, size_t len)
{
    if (separate(w))
        string_value(w, s, len);
}

void mcp__jw_string(mcp__jw *w, const char *s)
{
    mcp__jw_stringn(w, s, s ? strlen(s) : 0);
}

void mcp__jw_int(mcp__jw *w, int64_t v)
{
    char num[24];
    if (separate(w))
        put(w, num, mcp__format_i64(num, v));
}

void mcp__jw_double(mcp__jw *w, double v)
{
    char num[MCP__DOUBLE_BUF];
    size_t n = mcp__format_double(num, v);
    if (!separate(w))
        return;
    if (!n)
        w->err = MCP_ERR_INVALID_ARG;
    else
        put(w, num, n);
}

void mcp__jw_bool(mcp__jw *w, bool v)
{
    if (separate(w))
        put(w, v ? "true" : "false", v ? 4 : 5);
}

void mcp__jw_null(mcp__jw *w)
{
    if (separate(w))
        put(w, MCP_LITERAL("null"));
}

void mcp__jw_value(mcp__jw *w, const mcp_json *v)
{
    if (separate(w))
        w->err = v ? mcp_json_write(v, w->out) : MCP_ERR_INVALID_ARG;
}

void mcp__jw_raw(mcp__jw *w, const char *json, size_t len)
{
    if (separate(w)) {
        if (!len)
            w->err = MCP_ERR_INVALID_ARG;
        else
            put(w, json, len);
    }
}

void mcp__jw_raw_members(mcp__jw *w, const char *members, size_t len)
{
    if (!len || w->err != MCP_OK)
        return;
    if (w->after_key || w->depth == 0) {
        w->err = MCP_ERR_STATE;
        return;
    }
    if (separate(w))
        put(w, members, len);
}

void mcp__jw_bytes(mcp__jw *w, const char *bytes, size_t len)
{
    put(w, bytes, len);
}
