/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/mem.h"
#include "core/numlocale.h"
#include "json/value.h"

mcp_json_doc *mcp_json_doc_new(const mcp_mem *mem)
{
    mcp__arena arena;
    /* With the block's header, 1 KiB: within glibc's per-thread cache. */
    mcp__arena_init(&arena, mem, 1024 - 16);
    mcp_json_doc *doc = mcp__arena_alloc(&arena, sizeof *doc);
    if (!doc) {
        mcp__arena_release(&arena);
        return NULL;
    }
    doc->arena = arena;
    doc->root = NULL;
    doc->error = MCP_OK;
    return doc;
}

int mcp_json_doc_error(const mcp_json_doc *doc)
{
    return doc ? doc->error : MCP_ERR_INVALID_ARG;
}

void mcp_json_doc_set_root(mcp_json_doc *doc, mcp_json *root)
{
    doc->root = root;
}

static mcp_json *node(mcp_json_doc *doc, uint8_t type)
{
    mcp_json *v = mcp__arena_alloc(&doc->arena, sizeof *v);
    if (!v) {
        mcp__doc_fail(doc, MCP_ERR_NOMEM);
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = type;
    return v;
}

/* Copy len bytes into the arena with a NUL after them. */
static char *arena_strndup(mcp_json_doc *doc, const char *s, size_t len)
{
    char *p = mcp__arena_alloc(&doc->arena, len + 1);
    if (!p) {
        mcp__doc_fail(doc, MCP_ERR_NOMEM);
        return NULL;
    }
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

mcp_json *mcp_json_new_null(mcp_json_doc *doc)
{
    return node(doc, MCP_JSON_NULL);
}

mcp_json *mcp_json_new_bool(mcp_json_doc *doc, bool b)
{
    mcp_json *v = node(doc, MCP_JSON_BOOL);
    if (v && b)
        v->flags = BOOL_TRUE;
    return v;
}

static mcp_json *number_from_text(mcp_json_doc *doc, const char *text,
                                  size_t len, uint8_t flags, int64_t i)
{
    char *t = arena_strndup(doc, text, len);
    mcp_json *v = t ? node(doc, MCP_JSON_NUMBER) : NULL;
    if (!v)
        return NULL;
    v->u.s = t;
    v->len = (uint32_t)len;
    v->flags = flags;
    v->x.i = i;
    return v;
}

mcp_json *mcp_json_new_int(mcp_json_doc *doc, int64_t i)
{
    char buf[24];
    size_t n = mcp__format_i64(buf, i);
    return number_from_text(doc, buf, n, NUM_INT_LITERAL | NUM_HAS_I64, i);
}

mcp_json *mcp_json_new_uint(mcp_json_doc *doc, uint64_t u)
{
    if (u <= (uint64_t)INT64_MAX)
        return mcp_json_new_int(doc, (int64_t)u);
    char buf[24];
    size_t n = mcp__format_u64(buf, u);
    return number_from_text(doc, buf, n, NUM_INT_LITERAL, 0);
}

mcp_json *mcp_json_new_double(mcp_json_doc *doc, double d)
{
    char buf[MCP__DOUBLE_BUF];
    size_t n = mcp__format_double(buf, d);
    if (!n) {
        mcp__doc_fail(doc, MCP_ERR_INVALID_ARG);
        return NULL;
    }
    uint8_t flags = 0;
    int64_t i = 0;
    if (d == floor(d) && fabs(d) < 9.007199254740992e15) {
        i = (int64_t)d;
        flags |= NUM_HAS_I64;
    }
    if (!memchr(buf, '.', n) && !memchr(buf, 'e', n))
        flags |= NUM_INT_LITERAL;
    return number_from_text(doc, buf, n, flags, i);
}

mcp_json *mcp_json_new_number_text(mcp_json_doc *doc, const char *text,
                                   size_t len)
{
    if (!text || len > UINT32_MAX || !mcp__number_valid(text, len)) {
        mcp__doc_fail(doc, MCP_ERR_JSON_NUMBER);
        return NULL;
    }
    mcp_json *v = number_from_text(doc, text, len, 0, 0);
    if (!v)
        return NULL;
    if (!memchr(text, '.', len) && !memchr(text, 'e', len) &&
        !memchr(text, 'E', len))
        v->flags |= NUM_INT_LITERAL;
    int64_t i;
    if (mcp_json_get_int64(v, &i) == MCP_OK) {
        v->x.i = i;
        v->flags |= NUM_HAS_I64;
    }
    return v;
}

mcp_json *mcp_json_new_stringn(mcp_json_doc *doc, const char *s, size_t len)
{
    if ((!s && len) || len > UINT32_MAX) {
        mcp__doc_fail(doc, MCP_ERR_INVALID_ARG);
        return NULL;
    }
    if (mcp_utf8_validate(s, len, NULL) != MCP_OK) {
        mcp__doc_fail(doc, MCP_ERR_UTF8);
        return NULL;
    }
    char *t = arena_strndup(doc, s, len);
    mcp_json *v = t ? node(doc, MCP_JSON_STRING) : NULL;
    if (!v)
        return NULL;
    v->u.s = t;
    v->len = (uint32_t)len;
    return v;
}

mcp_json *mcp_json_new_string(mcp_json_doc *doc, const char *s)
{
    if (!s) {
        mcp__doc_fail(doc, MCP_ERR_INVALID_ARG);
        return NULL;
    }
    return mcp_json_new_stringn(doc, s, strlen(s));
}

mcp_json *mcp_json_new_array(mcp_json_doc *doc)
{
    return node(doc, MCP_JSON_ARRAY);
}

mcp_json *mcp_json_new_object(mcp_json_doc *doc)
{
    return node(doc, MCP_JSON_OBJECT);
}

/* Make room for one more element in a container; parsed containers have
 * exactly their size, built ones double. */
static int grow(mcp_json_doc *doc, mcp_json *c, size_t elem)
{
    if (c->len < c->cap)
        return MCP_OK;
    if (c->cap >= UINT32_MAX / 2)
        return MCP_ERR_LIMIT;
    uint32_t ncap = c->cap ? c->cap * 2 : 4;
    void *old = c->type == MCP_JSON_ARRAY ? (void *)c->u.items
                                          : (void *)c->u.members;
    void *p = mcp__arena_grow(&doc->arena, old, (size_t)c->cap * elem,
                              (size_t)ncap * elem);
    if (!p)
        return MCP_ERR_NOMEM;
    if (c->type == MCP_JSON_ARRAY)
        c->u.items = p;
    else
        c->u.members = p;
    c->cap = ncap;
    return MCP_OK;
}

static int fail(mcp_json_doc *doc, int code)
{
    mcp__doc_fail(doc, code);
    return code;
}

int mcp_json_array_append(mcp_json_doc *doc, mcp_json *array, mcp_json *value)
{
    if (!doc)
        return MCP_ERR_INVALID_ARG;
    if (!array || array->type != MCP_JSON_ARRAY || !value)
        return fail(doc, MCP_ERR_INVALID_ARG);
    int rc = grow(doc, array, sizeof(mcp_json *));
    if (rc)
        return fail(doc, rc);
    array->u.items[array->len++] = value;
    return MCP_OK;
}

int mcp_json_object_setn(mcp_json_doc *doc, mcp_json *obj, const char *key,
                         size_t key_len, mcp_json *value)
{
    if (!doc)
        return MCP_ERR_INVALID_ARG;
    if (!obj || obj->type != MCP_JSON_OBJECT || !value || (!key && key_len) ||
        key_len > UINT32_MAX)
        return fail(doc, MCP_ERR_INVALID_ARG);
    long found = mcp__object_find(obj, key ? key : "", key_len);
    if (found >= 0) {
        obj->u.members[found].value = value;
        return MCP_OK;
    }
    if (mcp_utf8_validate(key, key_len, NULL) != MCP_OK)
        return fail(doc, MCP_ERR_UTF8);
    char *k = arena_strndup(doc, key ? key : "", key_len);
    if (!k)
        return MCP_ERR_NOMEM;
    int rc = grow(doc, obj, sizeof(struct mcp_json_member));
    if (rc)
        return fail(doc, rc);
    struct mcp_json_member *m = &obj->u.members[obj->len++];
    m->key = k;
    m->key_len = (uint32_t)key_len;
    m->value = value;
    /* Keep the index when there is one; build it once the object is big
     * enough; rebuild it when it gets too full. */
    if (obj->len > OBJECT_INDEX_MIN &&
        (!obj->index_size || obj->len * 2u > obj->index_size)) {
        uint32_t unused;
        if (mcp__object_index(doc, obj, true, &unused) < 0) {
            /* Lookups fall back to a scan; correct, only slower. */
            obj->index_size = 0;
            obj->x.index = NULL;
        }
    } else if (obj->index_size) {
        uint32_t mask = obj->index_size - 1;
        uint32_t h = (uint32_t)mcp__hash_bytes(k, key_len) & mask;
        while (obj->x.index[h])
            h = (h + 1) & mask;
        obj->x.index[h] = obj->len;
    }
    return MCP_OK;
}

int mcp_json_object_set(mcp_json_doc *doc, mcp_json *obj, const char *key,
                        mcp_json *value)
{
    if (!key)
        return fail(doc, MCP_ERR_INVALID_ARG);
    return mcp_json_object_setn(doc, obj, key, strlen(key), value);
}

/* Copy ------------------------------------------------------------------- */

static mcp_json *copy_scalar(mcp_json_doc *doc, const mcp_json *s)
{
    mcp_json *v = node(doc, s->type);
    if (!v)
        return NULL;
    v->flags = s->flags;
    if (s->type == MCP_JSON_STRING || s->type == MCP_JSON_NUMBER) {
        char *t = arena_strndup(doc, s->u.s, s->len);
        if (!t)
            return NULL;
        v->u.s = t;
        v->len = s->len;
        v->x.i = s->x.i;
    }
    return v;
}

/* Containers are allocated at their final size first, then filled child
 * by child with an explicit stack (no recursion). */
mcp_json *mcp_json_copy(mcp_json_doc *doc, const mcp_json *src)
{
    if (!src)
        return NULL;
    struct frame { const mcp_json *s; mcp_json *d; uint32_t i; };
    struct frame inline_stack[64];
    struct frame *stack = inline_stack;
    size_t top = 0, cap = 64;
    mcp_json *root = NULL;
    const mcp_json *s = src;
    mcp_json **slot = &root;
    for (;;) {
        mcp_json *d;
        if (s->type != MCP_JSON_ARRAY && s->type != MCP_JSON_OBJECT) {
            d = copy_scalar(doc, s);
        } else {
            d = node(doc, s->type);
            if (d && s->len) {
                size_t elem = s->type == MCP_JSON_ARRAY
                                  ? sizeof(mcp_json *)
                                  : sizeof(struct mcp_json_member);
                void *p = mcp__arena_alloc(&doc->arena, s->len * elem);
                if (!p) {
                    mcp__doc_fail(doc, MCP_ERR_NOMEM);
                    d = NULL;
                } else if (s->type == MCP_JSON_ARRAY) {
                    d->u.items = p;
                } else {
                    d->u.members = p;
                }
                if (d)
                    d->cap = s->len;
            }
            if (d && top == cap) {
                struct frame *n = mcp__malloc(&doc->arena.mem,
                                              cap * 2 * sizeof *n);
                if (!n) {
                    mcp__doc_fail(doc, MCP_ERR_NOMEM);
                    d = NULL;
                } else {
                    memcpy(n, stack, top * sizeof *n);
                    if (stack != inline_stack)
                        mcp__free(&doc->arena.mem, stack);
                    stack = n;
                    cap *= 2;
                }
            }
            if (d)
                stack[top++] = (struct frame){s, d, 0};
        }
        if (!d) {
            root = NULL;
            break;
        }
        *slot = d;

        /* Next: the next child of the innermost unfinished container. */
        s = NULL;
        while (top) {
            struct frame *f = &stack[top - 1];
            if (f->i == f->s->len) {
                mcp_json *done = f->d;
                top--;
                if (done->type == MCP_JSON_OBJECT &&
                    done->len > OBJECT_INDEX_MIN) {
                    uint32_t unused;
                    if (mcp__object_index(doc, done, true, &unused) < 0) {
                        done->index_size = 0;
                        done->x.index = NULL;
                    }
                }
                continue;
            }
            uint32_t i = f->i++;
            f->d->len = f->i;
            if (f->s->type == MCP_JSON_ARRAY) {
                s = f->s->u.items[i];
                slot = &f->d->u.items[i];
            } else {
                const struct mcp_json_member *m = &f->s->u.members[i];
                struct mcp_json_member *dm = &f->d->u.members[i];
                char *k = arena_strndup(doc, m->key, m->key_len);
                if (!k) {
                    top = 0;
                    root = NULL;
                    break;
                }
                dm->key = k;
                dm->key_len = m->key_len;
                dm->value = NULL;
                s = m->value;
                slot = &dm->value;
            }
            break;
        }
        if (!s)
            break;
    }
    if (stack != inline_stack)
        mcp__free(&doc->arena.mem, stack);
    return root;
}
