/* SPDX-License-Identifier: MIT */
#include "core/base64.h"

#include "core/buf.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* The encoding in alpha, padded or not. */
static int encode(mcp_buf *out, const void *data, size_t len, const char *alpha, bool pad)
{
    size_t need = pad ? (len + 2) / 3 * 4 : len / 3 * 4 + (len % 3 ? len % 3 + 1 : 0);
    int rc = mcp__buf_reserve(out, need);
    if (rc != MCP_OK)
        return rc;
    const unsigned char *p = data;
    char *w = out->data + out->len;
    size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        *w++ = alpha[v >> 18];
        *w++ = alpha[v >> 12 & 63];
        *w++ = alpha[v >> 6 & 63];
        *w++ = alpha[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0);
        *w++ = alpha[v >> 18];
        *w++ = alpha[v >> 12 & 63];
        if (i + 1 < len)
            *w++ = alpha[v >> 6 & 63];
        else if (pad)
            *w++ = '=';
        if (pad)
            *w++ = '=';
    }
    out->len += need;
    out->data[out->len] = '\0';
    return MCP_OK;
}

int mcp__base64_encode(mcp_buf *out, const void *data, size_t len)
{
    return encode(out, data, len, alphabet, true);
}

int mcp__base64url_encode(mcp_buf *out, const void *data, size_t len)
{
    return encode(out, data, len, url_alphabet, false);
}

static int value_of(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

static size_t padding_of(const char *text, size_t len)
{
    return len && text[len - 1] == '=' ? (len >= 2 && text[len - 2] == '=' ? 2 : 1) : 0;
}

bool mcp__base64_valid(const char *text, size_t len)
{
    if (len % 4)
        return false;
    size_t pad = padding_of(text, len);
    for (size_t i = 0; i < len - pad; i++)
        if (value_of((unsigned char)text[i]) < 0)
            return false;
    if (pad) {
        /* The bits the padding leaves unused must be zero (canonical form). */
        int last = value_of((unsigned char)text[len - pad - 1]);
        if ((pad == 1 && (last & 3)) || (pad == 2 && (last & 15)))
            return false;
    }
    return true;
}

int mcp__base64_decode(mcp_buf *out, const char *text, size_t len)
{
    /* Validated before touching the buffer: nothing appended on error. */
    if (!mcp__base64_valid(text, len))
        return MCP_ERR_INVALID_ARG;
    size_t pad = padding_of(text, len);
    size_t need = len / 4 * 3 - pad;
    int rc = mcp__buf_reserve(out, need);
    if (rc != MCP_OK)
        return rc;
    unsigned char *w = (unsigned char *)out->data + out->len;
    for (size_t i = 0; i < len; i += 4) {
        unsigned v = 0;
        for (size_t k = 0; k < 4; k++) {
            int d = text[i + k] == '=' ? 0 : value_of((unsigned char)text[i + k]);
            v = v << 6 | (unsigned)d;
        }
        size_t n = i + 4 < len ? 3 : 3 - pad;
        if (n > 0)
            *w++ = (unsigned char)(v >> 16);
        if (n > 1)
            *w++ = (unsigned char)(v >> 8);
        if (n > 2)
            *w++ = (unsigned char)v;
    }
    out->len += need;
    out->data[out->len] = '\0';
    return MCP_OK;
}

/* The base64url alphabet's values by byte (-1: not in it): a JWT's three
 * parts are decoded on every request a resource server checks. */
static const signed char url_values[256] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
    -1,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, 63,
    -1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

static int url_value_of(unsigned char c)
{
    return url_values[c];
}

int mcp__base64url_decode(mcp_buf *out, const char *text, size_t len)
{
    size_t rest = len % 4;
    if (rest == 1)
        return MCP_ERR_INVALID_ARG;
    for (size_t i = 0; i < len; i++)
        if (url_value_of((unsigned char)text[i]) < 0)
            return MCP_ERR_INVALID_ARG;
    /* The bits past the last whole byte must be zero (canonical form). */
    if (rest && (url_value_of((unsigned char)text[len - 1]) & (rest == 2 ? 15 : 3)))
        return MCP_ERR_INVALID_ARG;
    size_t need = len / 4 * 3 + (rest ? rest - 1 : 0);
    int rc = mcp__buf_reserve(out, need);
    if (rc != MCP_OK)
        return rc;
    unsigned char *w = (unsigned char *)out->data + out->len;
    for (size_t i = 0; i < len; i += 4) {
        size_t k = len - i < 4 ? len - i : 4;
        unsigned v = 0;
        for (size_t j = 0; j < 4; j++)
            v = v << 6 | (j < k ? (unsigned)url_value_of((unsigned char)text[i + j]) : 0);
        *w++ = (unsigned char)(v >> 16);
        if (k > 2)
            *w++ = (unsigned char)(v >> 8);
        if (k > 3)
            *w++ = (unsigned char)v;
    }
    out->len += need;
    out->data[out->len] = '\0';
    return MCP_OK;
}
