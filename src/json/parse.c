/* SPDX-License-Identifier: MIT */
/*
 * Strict RFC 8259 parser.
 *
 * The input is copied once into the document's arena; strings are unescaped
 * in place in that copy (an escape never decodes to more bytes than it
 * occupies), so a string costs no allocation of its own, and its closing
 * quote becomes its NUL terminator. Nesting is handled with an explicit stack,
 * never recursion, so the depth limit is the only bound on nesting.
 */
#include <stdio.h>
#include <string.h>

#include "core/opts.h"
#include "core/mem.h"
#include "json/value.h"

/* Character classes for the string fast path: 1 = ends the plain run. */
static const unsigned char string_stop[256] = {
    /* 0x00..0x1F: control characters */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
    /* 0x80..0xFF: UTF-8 to validate */
    [0x80] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

typedef struct frame {
    uint8_t is_object;
    size_t scratch_start; /* first member of this container in scratch */
    const char *key;      /* objects: key of the value being parsed */
    uint32_t key_len;
    size_t key_offset; /* for duplicate-key errors */
} frame;

typedef struct parser {
    char *src; /* arena copy, src[len] == '\0' */
    size_t len;
    size_t pos;
    mcp_json_doc *doc;
    unsigned max_depth;
    mcp_json_duplicates duplicates;
    mcp_json_error *err;
    int code;

    struct mcp_json_member *scratch;
    size_t scratch_len, scratch_cap;
    frame *frames;
    size_t depth, frames_cap;
    struct mcp_json_member scratch_inline[64];
    frame frames_inline[32];
} parser;

static int fail(parser *p, int code, size_t offset, const char *why)
{
    if (p->code == MCP_OK) {
        p->code = code;
        if (p->err) {
            p->err->code = code;
            p->err->offset = offset;
            snprintf(p->err->message, sizeof p->err->message, "%s at byte %zu",
                     why, offset);
        }
    }
    return code;
}

static int fail_nomem(parser *p)
{
    return fail(p, MCP_ERR_NOMEM, p->pos, "out of memory");
}

static int unexpected(parser *p, const char *expected)
{
    char why[96];
    unsigned char c = (unsigned char)p->src[p->pos];
    if (p->pos >= p->len)
        snprintf(why, sizeof why, "unexpected end of input, expected %s",
                 expected);
    else if (c >= 0x20 && c < 0x7F)
        snprintf(why, sizeof why, "unexpected '%c', expected %s", c,
                 expected);
    else
        snprintf(why, sizeof why, "unexpected byte 0x%02X, expected %s", c,
                 expected);
    return fail(p, MCP_ERR_JSON_SYNTAX, p->pos, why);
}

static inline void skip_ws(parser *p)
{
    const char *s = p->src;
    size_t i = p->pos;
    while (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
        i++;
    p->pos = i;
}

static mcp_json *new_node(parser *p, uint8_t type)
{
    mcp_json *v = mcp__arena_alloc(&p->doc->arena, sizeof *v);
    if (!v) {
        fail_nomem(p);
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = type;
    return v;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static char *put_utf8(char *w, unsigned cp)
{
    if (cp < 0x80) {
        *w++ = (char)cp;
    } else if (cp < 0x800) {
        *w++ = (char)(0xC0 | (cp >> 6));
        *w++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *w++ = (char)(0xE0 | (cp >> 12));
        *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *w++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *w++ = (char)(0xF0 | (cp >> 18));
        *w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *w++ = (char)(0x80 | (cp & 0x3F));
    }
    return w;
}

/* Decode the \u escape at s[r] (s[r] == 'u'), appending to *w. Returns the
 * index after the escape or 0 after recording an error. */
static size_t unicode_escape(parser *p, size_t r, char **w)
{
    const char *s = p->src;
    unsigned cp;
    size_t start = r - 1; /* the backslash */
    if (r + 4 >= p->len + 1 || hex4(s + r + 1, &cp)) {
        fail(p, MCP_ERR_JSON_ESCAPE, start,
             "invalid \\u escape (expected four hex digits)");
        return 0;
    }
    r += 5;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        unsigned lo;
        if (s[r] != '\\' || s[r + 1] != 'u' || r + 5 > p->len ||
            hex4(s + r + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
            fail(p, MCP_ERR_JSON_ESCAPE, start,
                 "unpaired high surrogate escape");
            return 0;
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        r += 6;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        fail(p, MCP_ERR_JSON_ESCAPE, start, "unpaired low surrogate escape");
        return 0;
    }
    *w = put_utf8(*w, cp);
    return r;
}

/* Parse the string whose opening quote is at p->pos. */
static int parse_string(parser *p, const char **out, uint32_t *out_len)
{
    char *s = p->src;
    const unsigned char *u = (const unsigned char *)s;
    size_t start = p->pos + 1;
    size_t r = start;
    while (!string_stop[u[r]])
        r++;
    char *w = s + r;
    for (;;) {
        unsigned char c = u[r];
        if (c == '"')
            break;
        if (c == '\\') {
            char e = s[r + 1];
            r += 2;
            switch (e) {
            case '"': *w++ = '"'; break;
            case '\\': *w++ = '\\'; break;
            case '/': *w++ = '/'; break;
            case 'b': *w++ = '\b'; break;
            case 'f': *w++ = '\f'; break;
            case 'n': *w++ = '\n'; break;
            case 'r': *w++ = '\r'; break;
            case 't': *w++ = '\t'; break;
            case 'u':
                r = unicode_escape(p, r - 1, &w);
                if (!r)
                    return p->code;
                break;
            default:
                if (r - 1 >= p->len)
                    return fail(p, MCP_ERR_JSON_SYNTAX, start - 1,
                                "unterminated string");
                return fail(p, MCP_ERR_JSON_ESCAPE, r - 2,
                            "invalid escape character");
            }
        } else if (c < 0x20) {
            if (r >= p->len)
                return fail(p, MCP_ERR_JSON_SYNTAX, start - 1,
                            "unterminated string");
            return fail(p, MCP_ERR_JSON_CONTROL, r,
                        "raw control character in string (must be escaped)");
        } else if (c >= 0x80) {
            const char *why;
            int n = mcp__utf8_seq(u + r, p->len - r, &why);
            if (!n)
                return fail(p, MCP_ERR_JSON_UTF8, r, why);
            for (int k = 0; k < n; k++)
                *w++ = s[r + (size_t)k];
            r += (size_t)n;
        } else {
            *w++ = (char)c;
            r++;
        }
        /* Copy the next plain run in one go. */
        size_t run = r;
        while (!string_stop[u[run]])
            run++;
        if (run > r) {
            memmove(w, s + r, run - r);
            w += run - r;
            r = run;
        }
    }
    size_t n = (size_t)(w - (s + start));
    *w = '\0';
    p->pos = r + 1;
    *out = s + start;
    *out_len = (uint32_t)n;
    return MCP_OK;
}

static mcp_json *parse_number(parser *p)
{
    const char *s = p->src;
    size_t start = p->pos;
    mcp__number_lexeme lx;
    mcp__number_scan(s + start, p->len - start, &lx);
    if (lx.why) {
        fail(p, MCP_ERR_JSON_NUMBER, start + lx.error_at, lx.why);
        return NULL;
    }
    size_t i = start + lx.end;
    bool neg = lx.negative;
    uint64_t mag = lx.leading;
    size_t int_digits = lx.int_digits;
    uint8_t flags = lx.integer ? NUM_INT_LITERAL : 0;
    if (i - start > UINT32_MAX) {
        fail(p, MCP_ERR_JSON_SIZE, start, "number text too long");
        return NULL;
    }
    mcp_json *v = new_node(p, MCP_JSON_NUMBER);
    if (!v)
        return NULL;
    v->u.s = s + start;
    v->len = (uint32_t)(i - start);
    if (flags & NUM_INT_LITERAL) {
        if (int_digits <= 18) {
            v->x.i = neg ? -(int64_t)mag : (int64_t)mag;
            flags |= NUM_HAS_I64;
        } else {
            int64_t exact;
            v->flags = flags;
            if (mcp_json_get_int64(v, &exact) == MCP_OK) {
                v->x.i = exact;
                flags |= NUM_HAS_I64;
            }
        }
    }
    v->flags = flags;
    p->pos = i;
    return v;
}

static mcp_json *parse_literal(parser *p)
{
    const char *s = p->src + p->pos;
    size_t left = p->len - p->pos;
    mcp_json *v = NULL;
    if (left >= 4 && memcmp(s, "true", 4) == 0) {
        if ((v = new_node(p, MCP_JSON_BOOL)))
            v->flags = BOOL_TRUE;
        p->pos += 4;
    } else if (left >= 5 && memcmp(s, "false", 5) == 0) {
        v = new_node(p, MCP_JSON_BOOL);
        p->pos += 5;
    } else if (left >= 4 && memcmp(s, "null", 4) == 0) {
        v = new_node(p, MCP_JSON_NULL);
        p->pos += 4;
    } else if (s[0] == 'N') {
        fail(p, MCP_ERR_JSON_NUMBER, p->pos, "NaN is not a JSON number");
    } else if (s[0] == 'I') {
        fail(p, MCP_ERR_JSON_NUMBER, p->pos, "Infinity is not a JSON number");
    } else if (s[0] == '/') {
        fail(p, MCP_ERR_JSON_SYNTAX, p->pos, "comments are not allowed");
    } else if ((unsigned char)s[0] == 0xEF && p->pos == 0 && left >= 3 &&
               (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF) {
        fail(p, MCP_ERR_JSON_SYNTAX, 0, "byte order mark is not allowed");
    } else {
        unexpected(p, "a value");
    }
    return v;
}

static int scratch_push(parser *p, const char *key, uint32_t key_len,
                        mcp_json *value)
{
    if (p->scratch_len == p->scratch_cap) {
        size_t cap = p->scratch_cap * 2;
        struct mcp_json_member *n;
        const mcp_mem *mem = &p->doc->arena.mem;
        if (p->scratch == p->scratch_inline) {
            n = mcp__malloc(mem, cap * sizeof *n);
            if (n)
                memcpy(n, p->scratch, p->scratch_len * sizeof *n);
        } else {
            n = mcp__realloc(mem, p->scratch, cap * sizeof *n);
        }
        if (!n)
            return fail_nomem(p);
        p->scratch = n;
        p->scratch_cap = cap;
    }
    struct mcp_json_member *m = &p->scratch[p->scratch_len++];
    m->key = key;
    m->key_len = key_len;
    m->value = value;
    return MCP_OK;
}

static int push_frame(parser *p, bool is_object)
{
    if (p->depth >= p->max_depth) {
        char why[64];
        snprintf(why, sizeof why, "nesting deeper than %u levels",
                 p->max_depth);
        return fail(p, MCP_ERR_JSON_DEPTH, p->pos, why);
    }
    if (p->depth == p->frames_cap) {
        size_t cap = p->frames_cap * 2;
        const mcp_mem *mem = &p->doc->arena.mem;
        frame *n;
        if (p->frames == p->frames_inline) {
            n = mcp__malloc(mem, cap * sizeof *n);
            if (n)
                memcpy(n, p->frames, p->depth * sizeof *n);
        } else {
            n = mcp__realloc(mem, p->frames, cap * sizeof *n);
        }
        if (!n)
            return fail_nomem(p);
        p->frames = n;
        p->frames_cap = cap;
    }
    frame *f = &p->frames[p->depth++];
    f->is_object = is_object;
    f->scratch_start = p->scratch_len;
    f->key = NULL;
    f->key_len = 0;
    return MCP_OK;
}

/* Duplicate keys: a linear scan for small objects, the hash index for large
 * ones, so that a hostile document cannot make this quadratic. Both compact
 * the members in one pass (last wins keeps the first position). */
static mcp_json *close_object(parser *p, frame *f)
{
    size_t n = p->scratch_len - f->scratch_start;
    mcp_json *v = new_node(p, MCP_JSON_OBJECT);
    if (!v)
        return NULL;
    if (n) {
        struct mcp_json_member *m =
            mcp__arena_alloc(&p->doc->arena, n * sizeof *m);
        if (!m) {
            fail_nomem(p);
            return NULL;
        }
        memcpy(m, p->scratch + f->scratch_start, n * sizeof *m);
        v->u.members = m;
        v->len = v->cap = (uint32_t)n;
    }
    p->scratch_len = f->scratch_start;
    if (n < 2)
        return v;

    uint32_t dup;
    int rc;
    bool reject = p->duplicates == MCP_JSON_DUPLICATES_REJECT;
    if (n > OBJECT_INDEX_MIN) {
        rc = mcp__object_index(p->doc, v, reject, &dup);
        if (rc < 0) {
            fail_nomem(p);
            return NULL;
        }
    } else {
        rc = 0;
        struct mcp_json_member *m = v->u.members;
        uint32_t w = 0;
        for (uint32_t r = 0; r < v->len && !rc; r++) {
            uint32_t i;
            for (i = 0; i < w; i++)
                if (m[i].key_len == m[r].key_len &&
                    memcmp(m[i].key, m[r].key, m[r].key_len) == 0)
                    break;
            if (i == w)
                m[w++] = m[r];
            else if (reject)
                rc = 1, dup = r;
            else
                m[i].value = m[r].value;
        }
        if (!rc)
            v->len = w;
    }
    if (rc) {
        struct mcp_json_member *d = &v->u.members[dup];
        char why[100];
        snprintf(why, sizeof why, "duplicate key \"%.*s\"",
                 d->key_len > 40 ? 40 : (int)d->key_len, d->key);
        /* Keys are unescaped in place, so the key still starts right after
         * its opening quote in the copy: the offset is exact. */
        fail(p, MCP_ERR_JSON_DUPLICATE_KEY, (size_t)(d->key - p->src) - 1,
             why);
        return NULL;
    }
    return v;
}

static mcp_json *close_array(parser *p, frame *f)
{
    size_t n = p->scratch_len - f->scratch_start;
    mcp_json *v = new_node(p, MCP_JSON_ARRAY);
    if (!v)
        return NULL;
    if (n) {
        mcp_json **items = mcp__arena_alloc(&p->doc->arena, n * sizeof *items);
        if (!items) {
            fail_nomem(p);
            return NULL;
        }
        for (size_t i = 0; i < n; i++)
            items[i] = p->scratch[f->scratch_start + i].value;
        v->u.items = items;
        v->len = v->cap = (uint32_t)n;
    }
    p->scratch_len = f->scratch_start;
    return v;
}

/* After '{' or ',' inside an object: read `"key" :` into the frame. */
static int parse_key(parser *p, frame *f, bool after_comma)
{
    skip_ws(p);
    if (p->src[p->pos] != '"') {
        if (after_comma && p->src[p->pos] == '}')
            return fail(p, MCP_ERR_JSON_SYNTAX, p->pos,
                        "trailing comma in object");
        return unexpected(p, "a string key");
    }
    f->key_offset = p->pos;
    if (parse_string(p, &f->key, &f->key_len))
        return p->code;
    skip_ws(p);
    if (p->src[p->pos] != ':')
        return unexpected(p, "':' after object key");
    p->pos++;
    return MCP_OK;
}

static mcp_json *parse_root(parser *p)
{
    mcp_json *v;
    for (;;) {
        /* Parse one value, or open a container and loop for its first. */
        skip_ws(p);
        char c = p->src[p->pos];
        if (c == '{' || c == '[') {
            bool obj = c == '{';
            if (push_frame(p, obj))
                return NULL;
            p->pos++;
            skip_ws(p);
            if (p->src[p->pos] == (obj ? '}' : ']')) {
                p->pos++;
                frame *f = &p->frames[--p->depth];
                v = obj ? close_object(p, f) : close_array(p, f);
            } else if (obj) {
                if (parse_key(p, &p->frames[p->depth - 1], false))
                    return NULL;
                continue;
            } else {
                continue;
            }
        } else if (c == '"') {
            const char *s;
            uint32_t n;
            if (parse_string(p, &s, &n))
                return NULL;
            if ((v = new_node(p, MCP_JSON_STRING))) {
                v->u.s = s;
                v->len = n;
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v = parse_number(p);
        } else if (p->pos >= p->len && p->depth == 0) {
            fail(p, MCP_ERR_JSON_EMPTY, p->pos, "empty document");
            return NULL;
        } else if (c == ']' && p->depth && !p->frames[p->depth - 1].is_object) {
            /* Empty arrays closed above, so a ']' here follows a comma. */
            fail(p, MCP_ERR_JSON_SYNTAX, p->pos, "trailing comma in array");
            return NULL;
        } else {
            v = parse_literal(p);
        }
        if (!v)
            return NULL;

        /* Hand the value to its container; close containers as they end. */
        for (;;) {
            if (p->depth == 0)
                return v;
            frame *f = &p->frames[p->depth - 1];
            if (scratch_push(p, f->key, f->key_len, v))
                return NULL;
            skip_ws(p);
            c = p->src[p->pos];
            if (c == ',') {
                p->pos++;
                if (f->is_object && parse_key(p, f, true))
                    return NULL;
                break; /* parse the next value */
            }
            if (c == (f->is_object ? '}' : ']')) {
                p->pos++;
                p->depth--;
                v = f->is_object ? close_object(p, f) : close_array(p, f);
                if (!v)
                    return NULL;
                continue;
            }
            unexpected(p, f->is_object ? "',' or '}'" : "',' or ']'");
            return NULL;
        }
    }
}

/* Measured on MCP messages (requests of both eras, results, notifications):
 * a document, with the message header a decoded message adds to it, needs
 * 2.6 to 3.2 bytes of arena per byte of input besides the copy of the input,
 * plus ~520 bytes of fixed overhead (the document, the message header,
 * alignment); less per byte for large documents. One right-sized block keeps
 * a request held in flight small: every byte of slack is held with it.
 * Denser input (long arrays of small numbers) gets another block, half as
 * large, then doubling. */
static size_t first_block_size(size_t len)
{
    size_t extra = len > ((size_t)4 << 20) ? ((size_t)9 << 20) : len * 9 / 4;
    return len + 1 + extra + 520;
}

int mcp_json_parse(const char *text, size_t len,
                   const mcp_json_parse_options *opts_in, const mcp_mem *mem,
                   mcp_json_doc **out, mcp_json_error *err)
{
    parser p;
    mcp_json_parse_options o;
    const mcp_json_parse_options *opts = &o;
    *out = NULL;
    p.code = MCP_OK;
    p.err = err;
    if (mcp__opts_copy(&o, sizeof o, opts_in) != MCP_OK)
        return fail(&p, MCP_ERR_INVALID_ARG, 0, "bad options size");
    size_t max_size = opts->max_size ? opts->max_size : MCP_JSON_DEFAULT_MAX_SIZE;
    if (max_size > UINT32_MAX - 1)
        max_size = UINT32_MAX - 1;
    p.err = err;
    p.src = (char *)text;
    p.len = len;
    p.pos = 0;
    if (err) {
        err->code = MCP_OK;
        err->offset = 0;
        err->message[0] = '\0';
    }
    if (!text && len)
        return fail(&p, MCP_ERR_INVALID_ARG, 0, "no input");
    if (len > max_size) {
        char why[96];
        snprintf(why, sizeof why,
                 "document of %zu bytes exceeds the limit of %zu bytes", len,
                 max_size);
        return fail(&p, MCP_ERR_JSON_SIZE, max_size, why);
    }

    mcp__arena arena;
    size_t first = first_block_size(len);
    mcp__arena_init(&arena, mem, first);
    mcp_json_doc *doc = mcp__arena_alloc(&arena, sizeof *doc);
    /* If the estimate falls short, grow by half as much again, not by
     * doubling: the usual shortfall is small. */
    arena.next_size = first / 2;
    char *copy = doc ? mcp__arena_alloc(&arena, len + 1) : NULL;
    if (!copy) {
        mcp__arena_release(&arena);
        return fail(&p, MCP_ERR_NOMEM, 0, "out of memory");
    }
    doc->arena = arena;
    doc->root = NULL;
    doc->error = MCP_OK;
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';

    p.src = copy;
    p.doc = doc;
    p.max_depth = opts->max_depth ? opts->max_depth : MCP_JSON_DEFAULT_MAX_DEPTH;
    p.duplicates = opts->duplicates;
    p.scratch = p.scratch_inline;
    p.scratch_len = 0;
    p.scratch_cap = sizeof p.scratch_inline / sizeof p.scratch_inline[0];
    p.frames = p.frames_inline;
    p.depth = 0;
    p.frames_cap = sizeof p.frames_inline / sizeof p.frames_inline[0];

    mcp_json *root = parse_root(&p);
    if (root) {
        skip_ws(&p);
        if (p.pos < p.len)
            fail(&p, MCP_ERR_JSON_TRAILING, p.pos,
                 "unexpected data after the document");
    }
    if (p.scratch != p.scratch_inline)
        mcp__free(&doc->arena.mem, p.scratch);
    if (p.frames != p.frames_inline)
        mcp__free(&doc->arena.mem, p.frames);
    if (p.code != MCP_OK) {
        mcp_json_doc_free(doc);
        return p.code;
    }
    doc->root = root;
    *out = doc;
    return MCP_OK;
}
