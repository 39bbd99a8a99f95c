/* SPDX-License-Identifier: MIT */
/*
 * Compact writer. One line, no insignificant whitespace; strings escape
 * control characters, quote and backslash, so a raw newline never appears and
 * the output is always a valid NDJSON frame. Iterative, like the parser.
 */
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "json/value.h"

/* 0 = copy as is; otherwise the escape's second character, or 'u' for
 * \u00XX. */
static const char escape_of[256] = {
    ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r',
    [0x00] = 'u', [0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u',
    [0x05] = 'u', [0x06] = 'u', [0x07] = 'u', [0x0B] = 'u', [0x0E] = 'u',
    [0x0F] = 'u', [0x10] = 'u', [0x11] = 'u', [0x12] = 'u', [0x13] = 'u',
    [0x14] = 'u', [0x15] = 'u', [0x16] = 'u', [0x17] = 'u', [0x18] = 'u',
    [0x19] = 'u', [0x1A] = 'u', [0x1B] = 'u', [0x1C] = 'u', [0x1D] = 'u',
    [0x1E] = 'u', [0x1F] = 'u', ['"'] = '"', ['\\'] = '\\',
};

static int put(mcp_buf *out, const char *s, size_t n)
{
    if (out->len + n < out->alloc && n <= out->limit - out->len) {
        memcpy(out->data + out->len, s, n);
        out->len += n;
        out->data[out->len] = '\0';
        return MCP_OK;
    }
    return mcp_buf_append(out, s, n);
}

static int write_string(const char *s, size_t len, mcp_buf *out)
{
    const unsigned char *u = (const unsigned char *)s;
    int rc = mcp__buf_putc(out, '"');
    size_t i = 0;
    while (rc == MCP_OK && i < len) {
        size_t run = i;
        while (run < len && !escape_of[u[run]])
            run++;
        if (run > i) {
            rc = put(out, s + i, run - i);
            i = run;
            continue;
        }
        char e = escape_of[u[i]];
        if (e == 'u') {
            static const char hex[] = "0123456789abcdef";
            char esc[6] = {'\\', 'u', '0', '0', hex[u[i] >> 4], hex[u[i] & 15]};
            rc = put(out, esc, 6);
        } else {
            char esc[2] = {'\\', e};
            rc = put(out, esc, 2);
        }
        i++;
    }
    if (rc == MCP_OK)
        rc = mcp__buf_putc(out, '"');
    return rc;
}

int mcp_json_write_string(const char *s, size_t len, mcp_buf *out)
{
    if ((!s && len) || !out)
        return MCP_ERR_INVALID_ARG;
    size_t start = out->len;
    int rc = write_string(s, len, out);
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    return rc;
}

static int write_scalar(const mcp_json *v, mcp_buf *out)
{
    switch (v->type) {
    case MCP_JSON_NULL: return put(out, MCP_LITERAL("null"));
    case MCP_JSON_BOOL:
        return (v->flags & BOOL_TRUE) ? put(out, MCP_LITERAL("true"))
                                      : put(out, MCP_LITERAL("false"));
    case MCP_JSON_NUMBER: return put(out, v->u.s, v->len);
    case MCP_JSON_STRING: return write_string(v->u.s, v->len, out);
    default: return MCP_ERR_INVALID_ARG;
    }
}

int mcp_json_write(const mcp_json *v, mcp_buf *out)
{
    if (!v || !out)
        return MCP_ERR_INVALID_ARG;
    size_t start = out->len;
    struct frame { const mcp_json *c; uint32_t i; };
    struct frame inline_stack[64];
    struct frame *stack = inline_stack;
    size_t top = 0, cap = 64;
    int rc = MCP_OK;
    for (;;) {
        if (v->type == MCP_JSON_ARRAY || v->type == MCP_JSON_OBJECT) {
            rc = mcp__buf_putc(out, v->type == MCP_JSON_ARRAY ? '[' : '{');
            if (rc == MCP_OK && top == cap) {
                struct frame *n = mcp__malloc(&out->mem, cap * 2 * sizeof *n);
                if (!n) {
                    rc = MCP_ERR_NOMEM;
                } else {
                    memcpy(n, stack, top * sizeof *n);
                    if (stack != inline_stack)
                        mcp__free(&out->mem, stack);
                    stack = n;
                    cap *= 2;
                }
            }
            if (rc == MCP_OK)
                stack[top++] = (struct frame){v, 0};
        } else {
            rc = write_scalar(v, out);
        }
        /* Find the next value to write, closing finished containers. */
        v = NULL;
        while (rc == MCP_OK && top) {
            struct frame *f = &stack[top - 1];
            if (f->i == f->c->len) {
                rc = mcp__buf_putc(out,
                                   f->c->type == MCP_JSON_ARRAY ? ']' : '}');
                top--;
                continue;
            }
            if (f->i > 0)
                rc = mcp__buf_putc(out, ',');
            uint32_t i = f->i++;
            if (f->c->type == MCP_JSON_ARRAY) {
                v = f->c->u.items[i];
            } else {
                const struct mcp_json_member *m = &f->c->u.members[i];
                if (rc == MCP_OK)
                    rc = write_string(m->key, m->key_len, out);
                if (rc == MCP_OK)
                    rc = mcp__buf_putc(out, ':');
                v = m->value;
            }
            if (!v && rc == MCP_OK)
                rc = MCP_ERR_INVALID_ARG; /* a hole left by a failed build */
            break;
        }
        if (rc != MCP_OK || !v)
            break;
    }
    if (stack != inline_stack)
        mcp__free(&out->mem, stack);
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    return rc;
}
