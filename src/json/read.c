/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/mem.h"
#include "json/value.h"

mcp_json *mcp_json_doc_root(const mcp_json_doc *doc)
{
    return doc ? doc->root : NULL;
}

void mcp_json_doc_free(mcp_json_doc *doc)
{
    if (doc)
        mcp__arena_release(&doc->arena);
}

mcp_json_type mcp_json_typeof(const mcp_json *v)
{
    return v ? (mcp_json_type)v->type : MCP_JSON_ABSENT;
}

int mcp_json_get_bool(const mcp_json *v, bool *out)
{
    if (!v || v->type != MCP_JSON_BOOL)
        return MCP_ERR_JSON_TYPE;
    *out = (v->flags & BOOL_TRUE) != 0;
    return MCP_OK;
}

const char *mcp_json_string(const mcp_json *v, size_t *len)
{
    if (!v || v->type != MCP_JSON_STRING)
        return NULL;
    if (len)
        *len = v->len;
    return v->u.s;
}

size_t mcp_json_array_size(const mcp_json *v)
{
    return v && v->type == MCP_JSON_ARRAY ? v->len : 0;
}

mcp_json *mcp_json_array_at(const mcp_json *v, size_t i)
{
    if (!v || v->type != MCP_JSON_ARRAY || i >= v->len)
        return NULL;
    return v->u.items[i];
}

size_t mcp_json_object_size(const mcp_json *v)
{
    return v && v->type == MCP_JSON_OBJECT ? v->len : 0;
}

mcp_json *mcp_json_object_at(const mcp_json *v, size_t i, const char **key,
                             size_t *key_len)
{
    if (!v || v->type != MCP_JSON_OBJECT || i >= v->len)
        return NULL;
    if (key)
        *key = v->u.members[i].key;
    if (key_len)
        *key_len = v->u.members[i].key_len;
    return v->u.members[i].value;
}

int mcp__object_index(mcp_json_doc *doc, mcp_json *obj, bool reject,
                      uint32_t *dup)
{
    uint32_t size = 16;
    while (size < obj->len * 2u && size < (1u << 31))
        size *= 2;
    uint32_t *idx = mcp__arena_alloc(&doc->arena, (size_t)size * sizeof *idx);
    if (!idx)
        return -1;
    memset(idx, 0, (size_t)size * sizeof *idx);
    struct mcp_json_member *m = obj->u.members;
    uint32_t mask = size - 1, w = 0;
    for (uint32_t r = 0; r < obj->len; r++) {
        uint32_t h = (uint32_t)mcp__hash_bytes(m[r].key, m[r].key_len) & mask;
        for (;;) {
            uint32_t e = idx[h];
            if (!e) {
                m[w] = m[r];
                idx[h] = ++w;
                break;
            }
            struct mcp_json_member *em = &m[e - 1];
            if (em->key_len == m[r].key_len &&
                memcmp(em->key, m[r].key, m[r].key_len) == 0) {
                if (reject) {
                    *dup = r;
                    return 1;
                }
                em->value = m[r].value;
                break;
            }
            h = (h + 1) & mask;
        }
    }
    obj->len = w;
    obj->index_size = size;
    obj->x.index = idx;
    return 0;
}

long mcp__object_find(const mcp_json *obj, const char *key, size_t key_len)
{
    const struct mcp_json_member *m = obj->u.members;
    if (obj->index_size) {
        uint32_t mask = obj->index_size - 1;
        uint32_t h = (uint32_t)mcp__hash_bytes(key, key_len) & mask;
        for (;;) {
            uint32_t e = obj->x.index[h];
            if (!e)
                return -1;
            if (m[e - 1].key_len == key_len &&
                memcmp(m[e - 1].key, key, key_len) == 0)
                return (long)e - 1;
            h = (h + 1) & mask;
        }
    }
    for (uint32_t i = 0; i < obj->len; i++)
        if (m[i].key_len == key_len && memcmp(m[i].key, key, key_len) == 0)
            return (long)i;
    return -1;
}

mcp_json *mcp_json_object_getn(const mcp_json *v, const char *key,
                               size_t key_len)
{
    if (!v || v->type != MCP_JSON_OBJECT || !key)
        return NULL;
    long i = mcp__object_find(v, key, key_len);
    return i < 0 ? NULL : v->u.members[i].value;
}

mcp_json *mcp_json_object_get(const mcp_json *v, const char *key)
{
    return key ? mcp_json_object_getn(v, key, strlen(key)) : NULL;
}

/* Equality ---------------------------------------------------------------- */

/* A number as sign, significant digits (no leading or trailing zeros) and
 * the decimal exponent of the last digit: equal values give equal triples. */
typedef struct decimal {
    bool neg;
    const char *text; /* digits are read through digit_at() */
    size_t int_start, int_len, frac_start, frac_len;
    size_t first, last; /* significant digit range in the combined string */
    long exp;           /* value = digits[first..last) * 10^exp */
} decimal;

static char digit_at(const decimal *d, size_t k)
{
    return k < d->int_len ? d->text[d->int_start + k]
                          : d->text[d->frac_start + k - d->int_len];
}

/* Exponents beyond this are clamped; equality of such extreme numbers is
 * decided on the clamped values, which only matters past 10^(10^15). */
#define EXP_LIMIT 1000000000000000L

static void decimal_read(decimal *d, const char *s, size_t len)
{
    size_t i = 0;
    d->text = s;
    d->neg = len && s[0] == '-';
    if (d->neg)
        i++;
    d->int_start = i;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++;
    d->int_len = i - d->int_start;
    d->frac_start = d->frac_len = 0;
    if (i < len && s[i] == '.') {
        d->frac_start = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        d->frac_len = i - d->frac_start;
    }
    long e = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool en = false;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            en = s[i++] == '-';
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (e < EXP_LIMIT)
                e = e * 10 + (s[i] - '0');
            i++;
        }
        if (en)
            e = -e;
    }
    size_t total = d->int_len + d->frac_len;
    d->first = 0;
    while (d->first < total && digit_at(d, d->first) == '0')
        d->first++;
    d->last = total;
    while (d->last > d->first && digit_at(d, d->last - 1) == '0')
        d->last--;
    d->exp = e - (long)d->frac_len + (long)(total - d->last);
    if (d->first == d->last) { /* zero: -0 equals 0 */
        d->neg = false;
        d->exp = 0;
    }
}

static bool number_equal(const mcp_json *a, const mcp_json *b)
{
    if ((a->flags & NUM_HAS_I64) && (b->flags & NUM_HAS_I64))
        return a->x.i == b->x.i;
    decimal x, y;
    decimal_read(&x, a->u.s, a->len);
    decimal_read(&y, b->u.s, b->len);
    size_t nx = x.last - x.first, ny = y.last - y.first;
    if (x.neg != y.neg || nx != ny || x.exp != y.exp)
        return false;
    for (size_t k = 0; k < nx; k++)
        if (digit_at(&x, x.first + k) != digit_at(&y, y.first + k))
            return false;
    return true;
}

static bool scalar_equal(const mcp_json *a, const mcp_json *b)
{
    switch (a->type) {
    case MCP_JSON_NULL: return true;
    case MCP_JSON_BOOL: return (a->flags & BOOL_TRUE) == (b->flags & BOOL_TRUE);
    case MCP_JSON_NUMBER: return number_equal(a, b);
    case MCP_JSON_STRING:
        return a->len == b->len && memcmp(a->u.s, b->u.s, a->len) == 0;
    default: return false;
    }
}

/* Iterative, so that deep documents cannot exhaust the C stack: one frame
 * per open container pair, so memory follows depth, not width. */
bool mcp_json_equal(const mcp_json *a, const mcp_json *b)
{
    struct frame { const mcp_json *a, *b; uint32_t i; };
    struct frame inline_stack[64];
    struct frame *stack = inline_stack;
    size_t top = 0, cap = sizeof inline_stack / sizeof inline_stack[0];
    bool equal = true;
    for (;;) {
        /* Compare the pair (a, b); open it when it is a container. */
        if (!a || !b) {
            equal = a == b;
        } else if (a->type != b->type ||
                   (a->type != MCP_JSON_NUMBER && a->len != b->len)) {
            /* Number text lengths differ for equal values (1 and 1.0). */
            equal = false;
        } else if (a->type != MCP_JSON_ARRAY && a->type != MCP_JSON_OBJECT) {
            equal = scalar_equal(a, b);
        } else {
            if (top == cap) {
                struct frame *n = malloc(cap * 2 * sizeof *n);
                if (!n) {
                    equal = false;
                    break;
                }
                memcpy(n, stack, top * sizeof *n);
                if (stack != inline_stack)
                    free(stack);
                stack = n;
                cap *= 2;
            }
            stack[top++] = (struct frame){a, b, 0};
        }
        if (!equal)
            break;
        /* Next pair: the next child of the innermost open container. */
        a = b = NULL;
        while (top) {
            struct frame *f = &stack[top - 1];
            if (f->i == f->a->len) {
                top--;
                continue;
            }
            uint32_t i = f->i++;
            if (f->a->type == MCP_JSON_ARRAY) {
                a = f->a->u.items[i];
                b = f->b->u.items[i];
            } else {
                const struct mcp_json_member *m = &f->a->u.members[i];
                long j = mcp__object_find(f->b, m->key, m->key_len);
                if (j < 0) {
                    equal = false;
                    break;
                }
                a = m->value;
                b = f->b->u.members[j].value;
            }
            break;
        }
        if (!equal || !top)
            break;
    }
    if (stack != inline_stack)
        free(stack);
    return equal;
}
