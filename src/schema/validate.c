/* SPDX-License-Identifier: MIT */
/*
 * Validating an instance against compiled nodes.
 *
 * The first failure is reported with the instance path and keyword; inside
 * anyOf, oneOf, not and if, failures are expected and stay quiet (the
 * applicator itself reports). unevaluatedProperties/unevaluatedItems need
 * to know what the other keywords evaluated: a node that has one tracks
 * it (a bit per member or item of the instance), passing the record down
 * through the applicators that evaluate in place, and keeping only what
 * passing branches evaluated.
 *
 * Most of the time goes to a tool's arguments: objects of members whose
 * schemas have a type and a keyword or two. So check(), inlined where a
 * schema is met, decides such a schema by itself (its type alone, an
 * integer between integer bounds, a string whose length in bytes decides)
 * or with one call for its type's group of keywords (internal.h);
 * check_more() takes the rest ($ref, applicators, const, enum,
 * unevaluated*). A validation allocates nothing unless a pattern runs in
 * PCRE2, uniqueItems meets more than 16 items, or unevaluated* more than
 * 128 members or items. Every schema evaluated counts a step and every
 * level a depth, as they always did.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "json/value.h" /* the instance is read directly: this is the hot path */
#include "schema/internal.h"

#define MAX_PATH 64 /* segments of the instance path kept for errors */

typedef struct segment {
    const char *key; /* NULL: an index */
    size_t len, index;
} segment;

/* The path of the failing value is written only once there is a failure
 * to report: report() notes how deep it is (err_len), and each object
 * member or array item it is in adds its segment as the failure returns
 * through it. A validation that passes writes no path at all. */
typedef struct vctx {
    const mcp_schema *s;
    mcp_schema_error *err;
    int rc;         /* MCP_OK, or LIMIT/NOMEM: the answer is unknown */
    unsigned quiet; /* inside a branch whose failure is not the answer */
    unsigned depth;
    uint64_t steps;    /* schemas evaluated: bounded by max_steps */
    uint64_t max_steps;
    unsigned max_depth;
    unsigned path_len; /* of the value being checked */
    unsigned err_len;  /* of the reported one; may exceed MAX_PATH */
    pcre2_match_data *match; /* one per validation, made at the first pattern */
    pcre2_jit_stack *jit_stack;        /* for long subjects */
    pcre2_match_context *long_context; /* with it, and a limit for each */
    segment path[MAX_PATH];            /* not initialised: see above */
} vctx;

/* What was evaluated, for unevaluated*: a bit per member or item of the
 * instance; up to 128 of them without allocating. */
typedef struct eval {
    uint64_t *bits;
    size_t n;
    uint64_t small[2];
} eval;

/* Errors ---------------------------------------------------------------------- */

static void write_path(const vctx *v, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < v->err_len && i < MAX_PATH; i++) {
        const segment *sg = &v->path[i];
        if (n + 16 >= cap)
            break;
        out[n++] = '/';
        if (!sg->key) {
            n += (size_t)snprintf(out + n, cap - n, "%zu", sg->index);
            continue;
        }
        for (size_t k = 0; k < sg->len && n + 8 < cap; k++) {
            char ch = sg->key[k];
            if (ch == '~' || ch == '/') { /* RFC 6901 */
                out[n++] = '~';
                out[n++] = ch == '~' ? '0' : '1';
            } else {
                out[n++] = ch;
            }
        }
        out[n] = '\0';
    }
    if (v->err_len > MAX_PATH || n + 16 >= cap) {
        size_t at = n + 4 < cap ? n : cap - 4;
        memcpy(out + at, "...", 4);
    }
}

/* Cut s back to its longest valid UTF-8 prefix: a field cut by its size (a
 * key or pattern quoted in it) must not end inside a character, or the
 * error that quotes it could not be sent. */
static void utf8_clip(char *s)
{
    size_t bad;
    if (mcp_utf8_validate(s, strlen(s), &bad) != MCP_OK)
        s[bad] = '\0';
}

static bool report_error(vctx *v, const char *keyword, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noinline, cold));

static bool report_error(vctx *v, const char *keyword, const char *fmt, ...)
{
    if (v->err->keyword[0])
        return false;
    v->err_len = v->path_len; /* the path is written at the end */
    snprintf(v->err->keyword, sizeof v->err->keyword, "%s", keyword);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->err->message, sizeof v->err->message, fmt, ap);
    va_end(ap);
    utf8_clip(v->err->message);
    return false;
}

/* False, having said why when a failure here is the answer (not inside a
 * branch whose failure is expected, and wanted by the caller). */
#define report(v, ...) ((v)->quiet || !(v)->err ? false : report_error((v), __VA_ARGS__))

/* The segments of a failing value's path, added as the failure returns
 * through the member or item (its index in the path is v->path_len, the
 * member or item being left). */
static void failed_in_key(vctx *v, const char *key, size_t len)
{
    unsigned i = v->path_len;
    if (i < v->err_len && i < MAX_PATH)
        v->path[i] = (segment){key, len, 0};
}

static void failed_in_item(vctx *v, size_t index)
{
    unsigned i = v->path_len;
    if (i < v->err_len && i < MAX_PATH)
        v->path[i] = (segment){NULL, 0, index};
}

/* Evaluation records ------------------------------------------------------------ */

static size_t size_of(const mcp_json *inst)
{
    return inst->type == MCP_JSON_OBJECT || inst->type == MCP_JSON_ARRAY ? inst->len : 0;
}

static bool eval_open(vctx *v, eval *e, const mcp_json *inst)
{
    e->n = size_of(inst);
    size_t words = (e->n + 63) / 64;
    e->bits = e->small;
    e->small[0] = e->small[1] = 0;
    if (words > 2 && !(e->bits = calloc(words, sizeof *e->bits))) {
        v->rc = MCP_ERR_NOMEM;
        return false;
    }
    return true;
}

static void eval_close(eval *e)
{
    if (e->bits != e->small)
        free(e->bits);
}

static void eval_merge(eval *into, const eval *from)
{
    if (!into)
        return;
    size_t n = into->n < from->n ? into->n : from->n;
    for (size_t w = 0; w < (n + 63) / 64; w++)
        into->bits[w] |= from->bits[w];
}

static void mark(eval *e, size_t i)
{
    if (e && i < e->n)
        e->bits[i / 64] |= 1ull << (i % 64);
}

static bool marked(const eval *e, size_t i)
{
    return e->bits[i / 64] >> (i % 64) & 1;
}

/* Keywords --------------------------------------------------------------------- */

static inline __attribute__((always_inline)) bool check(vctx *v, const node *n,
                                                        const mcp_json *inst, eval *ev);

static const char *type_name(const mcp_json *inst)
{
    switch (mcp_json_typeof(inst)) {
    case MCP_JSON_NULL: return "null";
    case MCP_JSON_BOOL: return "a boolean";
    case MCP_JSON_NUMBER: return "a number";
    case MCP_JSON_STRING: return "a string";
    case MCP_JSON_ARRAY: return "an array";
    case MCP_JSON_OBJECT: return "an object";
    default: return "absent";
    }
}

/* The number as a double (its text is parsed on each call: only when a
 * keyword needs it). */
static double number_of(const mcp_json *inst)
{
    double d;
    int64_t i;
    if (mcp_json_is_integer_literal(inst) && mcp_json_get_int64(inst, &i) == MCP_OK &&
        i > -(1ll << 53) && i < (1ll << 53))
        return (double)i; /* exact, and no strtod */
    if (mcp_json_get_double(inst, &d) != MCP_OK)
        d = mcp_json_is_integer_literal(inst) ? (double)INT64_MAX : NAN;
    return d;
}

static const unsigned char type_bits[] = {
    [MCP_JSON_NULL] = T_NULL,     [MCP_JSON_BOOL] = T_BOOLEAN, [MCP_JSON_NUMBER] = T_NUMBER,
    [MCP_JSON_STRING] = T_STRING, [MCP_JSON_ARRAY] = T_ARRAY,  [MCP_JSON_OBJECT] = T_OBJECT};

__attribute__((noinline, cold)) static bool type_error(vctx *v, const node *n,
                                                       const mcp_json *inst)
{
    static const char *const names[] = {"null",  "boolean", "object", "array",
                                        "number", "string", "integer"};
    char want[96] = "";
    for (int i = 0; i < 7; i++)
        if (n->types & (1u << i))
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", want[0] ? " or " : "",
                     names[i]);
    return report(v, "type", "must be %s, not %s", want, type_name(inst));
}

/* A number is an integer when its text has no fraction or exponent, and
 * when its value has none either (1.0 and 1e2, draft-06 on). */
__attribute__((noinline)) static bool check_integer(vctx *v, const node *n, const mcp_json *inst)
{
    if (inst->type == MCP_JSON_NUMBER && (n->types & T_INTEGER) &&
        ((inst->flags & NUM_INT_LITERAL) || mcp__decimal_is_integer(inst)))
        return true;
    return type_error(v, n, inst);
}

static inline bool check_type(vctx *v, const node *n, const mcp_json *inst)
{
    return !n->types || (type_bits[inst->type] & n->types) || check_integer(v, n, inst);
}

/* Whether n bytes are the same: the short names and values of schemas in
 * a few loads that stay within both, without a call. */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        if (n > 16)
            return memcmp(a, b, n) == 0;
        uint64_t a0, a1, b0, b1;
        memcpy(&a0, a, 8);
        memcpy(&b0, b, 8);
        memcpy(&a1, a + n - 8, 8);
        memcpy(&b1, b + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 4) {
        uint32_t a0, a1, b0, b1;
        memcpy(&a0, a, 4);
        memcpy(&b0, b, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b1, b + n - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    /* 0 to 3 bytes: the first, middle and last are all of them */
    return !n || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

/* A value of the same type is compared: a string at once. */
static bool same_value(const mcp_json *a, const mcp_json *b)
{
    if (a->type != b->type)
        return false;
    if (a->type == MCP_JSON_STRING)
        return a->len == b->len && same_bytes(a->u.s, b->u.s, a->len);
    return mcp_json_equal(a, b);
}

/* The instance's number, read only as far as the bounds need: its int64
 * (NUM_HAS_I64), its whole part and fraction (against integer bounds), or
 * else as a decimal. */
typedef struct number {
    const mcp_json *j;
    int split; /* 0: not tried; 1: whole and fraction; -1: not of that form */
    int fraction;
    int64_t whole;
    bool read;
    mcp__decimal d;
} number;

static const mcp__decimal *decimal_of(number *x)
{
    if (!x->read) {
        mcp__decimal_read(x->j, &x->d);
        x->read = true;
    }
    return &x->d;
}

/* The bounds compare decimal texts exactly: a double would let 1e400 pass
 * a maximum (infinity, or NaN from a failed conversion, compares false) and
 * 9007199254740993 pass a maximum of ...992. Against an integer bound, an
 * integer compares as such, and 0.75 by its whole part and fraction. */
static int compare(number *x, const bound *b)
{
    if (b->exact) {
        if (x->j->flags & NUM_HAS_I64)
            return (x->j->x.i > b->i) - (x->j->x.i < b->i);
        if (!x->split)
            x->split = mcp__decimal_whole(x->j, &x->whole, &x->fraction) ? 1 : -1;
        if (x->split > 0)
            return x->whole != b->i ? (x->whole < b->i ? -1 : 1) : x->fraction;
    }
    return mcp__decimal_cmp(decimal_of(x), &b->dec);
}

static inline __attribute__((always_inline)) bool check_number(vctx *v, const number_rules *r,
                                                               const mcp_json *inst)
{
    number x;
    x.j = inst;
    x.split = 0;
    x.read = false;
    if ((r->has & N_MIN) && compare(&x, &r->min) < 0)
        return report(v, "minimum", "must be >= %.17g", r->min.d);
    if ((r->has & N_MAX) && compare(&x, &r->max) > 0)
        return report(v, "maximum", "must be <= %.17g", r->max.d);
    if ((r->has & N_XMIN) && compare(&x, &r->xmin) <= 0)
        return report(v, "exclusiveMinimum", "must be > %.17g", r->xmin.d);
    if ((r->has & N_XMAX) && compare(&x, &r->xmax) >= 0)
        return report(v, "exclusiveMaximum", "must be < %.17g", r->xmax.d);
    if (r->has & N_MULTIPLE) {
        int exact;
        if (r->multiple.exact && (inst->flags & NUM_HAS_I64))
            exact = inst->x.i % r->multiple.i == 0; /* multipleOf > 0 */
        else
            exact = mcp__decimal_multiple(decimal_of(&x), &r->multiple.dec);
        if (exact < 0) {
            /* A divisor of more than 18 digits: in doubles, where a quotient
             * past 2^50 has no fraction left to tell. */
            double q = number_of(inst) / r->multiple.d;
            exact = isfinite(q) && fabs(q) < 0x1p50 && fabs(q - nearbyint(q)) < 1e-6;
        }
        if (!exact)
            return report(v, "multipleOf", "must be a multiple of %.17g", r->multiple.d);
    }
    return true;
}

static size_t code_points(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += ((unsigned char)s[i] & 0xC0) != 0x80;
    return count;
}

/* This validation's own match context (neither it nor a JIT stack may be
 * shared between threads), with 32 MiB of JIT stack reserved and used as
 * needed, and a match limit in proportion to the subject. */
static pcre2_match_context *own_context(vctx *v, size_t len)
{
    if (!v->long_context) {
        v->jit_stack = pcre2_jit_stack_create(64 << 10, 32 << 20, NULL);
        v->long_context = pcre2_match_context_copy(v->s->match_context);
        if (!v->jit_stack || !v->long_context)
            return NULL;
        pcre2_jit_stack_assign(v->long_context, NULL, v->jit_stack);
    }
    uint32_t n = (uint32_t)(len > 40000000 ? 40000000 : len);
    pcre2_set_match_limit(v->long_context, 100000 + 100 * n);
    /* Without the JIT, a repeated group backtracks one frame per repeat. */
    pcre2_set_depth_limit(v->long_context, 10000 + n);
    pcre2_set_heap_limit(v->long_context, 20480 + n / 4); /* KiB */
    return v->long_context;
}

/* Whether the pattern matches: 1, 0, or -1 (too costly, or no memory).
 * Only whether: a match data of one pair serves every pattern. A long
 * subject needs steps in proportion even for a linear pattern (the base64
 * pattern on 400 KB), and a repeated group more than the JIT's default
 * 32 KiB of stack (2,000 characters of (?:a|b)*). A catastrophic pattern
 * still ends at its limit, which ends the validation (MCP_ERR_LIMIT). */
static int match(vctx *v, const mcp__pattern *fast, const pcre2_code *re, const char *text,
                 size_t len)
{
    if (fast)
        return mcp__pattern_match(fast, text, len);
    if (!v->match && !(v->match = pcre2_match_data_create(1, NULL)))
        return -1;
    pcre2_match_context *context = len > 8192 ? own_context(v, len) : v->s->match_context;
    if (!context)
        return -1;
    int rc = pcre2_match(re, (PCRE2_SPTR)text, len, 0, 0, v->match, context);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT && context == v->s->match_context &&
        (context = own_context(v, len)) != NULL)
        rc = pcre2_match(re, (PCRE2_SPTR)text, len, 0, 0, v->match, context);
    return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

static inline __attribute__((always_inline)) bool check_string(vctx *v, const string_rules *r,
                                                               const mcp_json *inst)
{
    size_t len = inst->len;
    const char *s = inst->u.s;
    /* A character is 1 to 4 bytes: the count is needed only when the byte
     * length cannot decide. */
    bool decided = (r->min_length < 0 || (len + 3) / 4 >= (uint64_t)r->min_length) &&
                   (r->max_length < 0 || len <= (uint64_t)r->max_length);
    if (!decided) {
        size_t cp = code_points(s, len);
        if (r->min_length >= 0 && cp < (uint64_t)r->min_length)
            return report(v, "minLength", "must have at least %lld characters",
                          (long long)r->min_length);
        if (r->max_length >= 0 && cp > (uint64_t)r->max_length)
            return report(v, "maxLength", "must have at most %lld characters",
                          (long long)r->max_length);
    }
    if (r->pattern_source) {
        int m = r->fast ? mcp__pattern_match(r->fast, s, len) : match(v, NULL, r->pattern, s, len);
        if (m < 0) { /* unknown: neither a match nor none, whatever encloses it */
            v->rc = MCP_ERR_LIMIT;
            v->quiet = 0;
            return report(v, "pattern", "could not be matched against /%.80s/ (too costly)",
                          r->pattern_source);
        }
        if (!m)
            return report(v, "pattern", "must match /%.80s/", r->pattern_source);
    }
    return true;
}

/* A hash that equal values (mcp_json_equal) share: numbers by value,
 * objects regardless of member order. */
static uint64_t value_hash(const mcp_json *j, unsigned depth)
{
    if (depth > 32)
        return 0; /* deep values share a bucket: compared in full */
    size_t n;
    const char *s;
    uint64_t h = (uint64_t)mcp_json_typeof(j) * 0x9E3779B97F4A7C15ull;
    switch (mcp_json_typeof(j)) {
    case MCP_JSON_BOOL: {
        bool b = false;
        mcp_json_get_bool(j, &b);
        return h + b;
    }
    case MCP_JSON_NUMBER:
        return h ^ mcp__decimal_hash(j); /* 1e400 and 1e401 apart; 1 and 1.0 together */
    case MCP_JSON_STRING:
        s = mcp_json_string(j, &n);
        return h ^ mcp__hash_bytes(s, n);
    case MCP_JSON_ARRAY:
        for (size_t i = 0; i < mcp_json_array_size(j); i++)
            h = mcp__hash_u64(h ^ value_hash(mcp_json_array_at(j, i), depth + 1));
        return h;
    case MCP_JSON_OBJECT: {
        uint64_t sum = 0;
        for (size_t i = 0; i < mcp_json_object_size(j); i++) {
            const char *k;
            size_t kn;
            const mcp_json *m = mcp_json_object_at(j, i, &k, &kn);
            sum += mcp__hash_u64(mcp__hash_bytes(k, kn) ^ value_hash(m, depth + 1));
        }
        return h ^ sum;
    }
    default: return h;
    }
}

typedef struct hashed {
    uint64_t hash;
    size_t index;
} hashed;

static int by_hash(const void *a, const void *b)
{
    const hashed *x = a, *y = b;
    return x->hash < y->hash ? -1 : x->hash > y->hash ? 1 : x->index < y->index ? -1 : 1;
}

/* Sorted by hash, only values in one bucket are compared: a long array costs
 * n log n, not n squared. */
static bool check_unique(vctx *v, const mcp_json *inst)
{
    size_t n = inst->len;
    mcp_json *const *items = inst->u.items;
    if (n < 2)
        return true;
    if (n <= 16) { /* a few: compared directly, without memory */
        for (size_t i = 0; i < n; i++)
            for (size_t k = i + 1; k < n; k++)
                if (same_value(items[i], items[k]))
                    return report(v, "uniqueItems", "must not repeat items (%zu and %zu are equal)",
                                  i, k);
        return true;
    }
    hashed *h = malloc(n * sizeof *h);
    if (!h) {
        v->rc = MCP_ERR_NOMEM;
        return false;
    }
    for (size_t i = 0; i < n; i++)
        h[i] = (hashed){value_hash(items[i], 0), i};
    qsort(h, n, sizeof *h, by_hash);
    size_t a = 0, b = 0;
    bool dup = false;
    for (size_t i = 0; i < n && !dup; i++)
        for (size_t k = i + 1; k < n && h[k].hash == h[i].hash && !dup; k++)
            if (mcp_json_equal(items[h[i].index], items[h[k].index])) {
                dup = true;
                a = h[i].index < h[k].index ? h[i].index : h[k].index;
                b = h[i].index < h[k].index ? h[k].index : h[i].index;
            }
    free(h);
    return !dup || report(v, "uniqueItems", "must not repeat items (%zu and %zu are equal)", a, b);
}

__attribute__((noinline)) static bool check_array(vctx *v, const array_rules *r,
                                                  const mcp_json *inst, eval *ev)
{
    size_t size = inst->len;
    mcp_json *const *items = inst->u.items;
    if (r->min_items >= 0 && size < (uint64_t)r->min_items)
        return report(v, "minItems", "must have at least %lld items", (long long)r->min_items);
    if (r->max_items >= 0 && size > (uint64_t)r->max_items)
        return report(v, "maxItems", "must have at most %lld items", (long long)r->max_items);
    if (r->unique_items && !check_unique(v, inst))
        return false;
    for (size_t i = 0; i < size; i++) {
        const node *item = i < r->prefix_items.count ? r->prefix_items.items[i] : r->items;
        if (!item)
            break; /* past the prefix, and no items keyword */
        v->path_len++;
        bool ok = check(v, item, items[i], NULL);
        v->path_len--;
        if (!ok) {
            failed_in_item(v, i);
            return false;
        }
        mark(ev, i);
    }
    if (r->contains) {
        int64_t matched = 0;
        v->quiet++;
        for (size_t i = 0; i < size && v->rc == MCP_OK; i++)
            if (check(v, r->contains, items[i], NULL)) {
                matched++;
                mark(ev, i);
            }
        v->quiet--;
        if (v->rc != MCP_OK)
            return false;
        if (matched < r->min_contains)
            return report(v, r->min_contains == 1 ? "contains" : "minContains",
                          "must contain at least %lld item%s matching the contains schema",
                          (long long)r->min_contains, r->min_contains == 1 ? "" : "s");
        if (r->max_contains >= 0 && matched > r->max_contains)
            return report(v, "maxContains",
                          "must contain at most %lld items matching the contains schema",
                          (long long)r->max_contains);
    }
    return true;
}

/* A property's schema: by the hash of its name when the schema has the
 * index, else by binary search (properties are sorted by length, then
 * bytes: compile.c). */
static inline __attribute__((always_inline)) const named_node *
property_of(const object_rules *r, const char *key, size_t len)
{
    if (r->slots) {
        uint32_t h = mcp__name_hash(key, len);
        const prop_slot *b = &r->slots[(h & r->bucket_mask) * PROP_BUCKET];
        for (int k = 0; k < PROP_BUCKET && b[k].index; k++)
            if (b[k].hash == h) {
                const named_node *p = &r->properties[b[k].index - 1];
                if (p->len == len && same_bytes(p->name, key, len))
                    return p;
            }
        return NULL;
    }
    size_t lo = 0, hi = r->property_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const named_node *p = &r->properties[mid];
        int c = p->len != len ? (p->len < len ? -1 : 1)
                : len && p->name[0] != key[0]
                    ? ((unsigned char)p->name[0] < (unsigned char)key[0] ? -1 : 1)
                    : memcmp(p->name, key, len);
        if (!c)
            return p;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The property of the member key: first the one *guess says (declared
 * after the last found: object_rules.next_declared), else by name. */
static inline __attribute__((always_inline)) const named_node *
lookup(const object_rules *r, const char *key, size_t len, uint32_t *guess)
{
    const named_node *p;
    if (r->next_declared) {
        uint32_t g = *guess;
        if (g < r->property_count) {
            p = &r->properties[g];
            if (p->len == len && same_bytes(p->name, key, len)) {
                *guess = r->next_declared[g];
                return p;
            }
        }
        p = property_of(r, key, len);
        if (p)
            *guess = r->next_declared[p - r->properties];
        return p;
    }
    return r->property_count ? property_of(r, key, len) : NULL;
}

/* Whether the object has the member: by its hash index when it has one
 * (more than 8 members), else by a look at each from *from on (and then
 * from the start): names asked for in the order the object has them
 * (required names often are) are found at the first look. */
static inline __attribute__((always_inline)) bool find_member(const mcp_json *inst,
                                                              const char *key, size_t len,
                                                              size_t *from)
{
    if (inst->index_size)
        return mcp__object_find(inst, key, len) >= 0;
    const struct mcp_json_member *m = inst->u.members;
    size_t n = inst->len, i = *from < n ? *from : 0;
    for (size_t seen = 0; seen < n; seen++, i = i + 1 < n ? i + 1 : 0)
        if (m[i].key_len == len && (!len || m[i].key[0] == key[0]) &&
            same_bytes(m[i].key, key, len)) {
            *from = i + 1;
            return true;
        }
    return false;
}

static bool has_member(const mcp_json *inst, const char *key, size_t len)
{
    size_t from = 0;
    return find_member(inst, key, len, &from);
}

/* propertyNames: the name as a string value, made on the stack (a string
 * node points at its bytes, which the key's are: valid UTF-8 too). */
static bool check_name(vctx *v, const node *names, const char *key, size_t len)
{
    mcp_json k;
    memset(&k, 0, sizeof k);
    k.type = MCP_JSON_STRING;
    k.len = (uint32_t)len;
    k.u.s = key;
    return check(v, names, &k, NULL);
}

/* A member whose value failed, or that is not allowed: the path gets its
 * name on the way out. */
static bool member_failed(vctx *v, const struct mcp_json_member *m, bool reported_here)
{
    if (reported_here) {
        v->path_len++;
        report(v, "additionalProperties", "is not a property the schema allows");
        v->path_len--;
    }
    failed_in_key(v, m->key, m->key_len);
    return false;
}

/* The members, when the object has no propertyNames and no
 * patternProperties (most tool schemas): each by its property's schema,
 * or else additionalProperties'. */
static bool check_members(vctx *v, const object_rules *r, const mcp_json *inst,
                          const named_node *const *found, eval *ev)
{
    const struct mcp_json_member *members = inst->u.members;
    const node *additional = r->additional_properties;
    uint32_t guess = r->first_declared;
    for (size_t i = 0; i < inst->len; i++) {
        const struct mcp_json_member *m = &members[i];
        const named_node *p = found ? found[i] : lookup(r, m->key, m->key_len, &guess);
        const node *schema = p ? p->schema : additional;
        if (!schema)
            continue;
        if (!p && additional->boolean == 0)
            return member_failed(v, m, true);
        v->path_len++;
        bool ok = check(v, schema, m->value, NULL);
        v->path_len--;
        if (!ok)
            return member_failed(v, m, false);
        mark(ev, i);
    }
    return true;
}

#define FOUND_MAX 32 /* members whose properties are looked up first */

__attribute__((noinline)) static bool check_object(vctx *v, const object_rules *r,
                                                   const mcp_json *inst, eval *ev)
{
    size_t size = inst->len;
    const struct mcp_json_member *members = inst->u.members;
    if (r->has & O_COUNT) {
        if (r->min_properties >= 0 && size < (uint64_t)r->min_properties)
            return report(v, "minProperties", "must have at least %lld properties",
                          (long long)r->min_properties);
        if (r->max_properties >= 0 && size > (uint64_t)r->max_properties)
            return report(v, "maxProperties", "must have at most %lld properties",
                          (long long)r->max_properties);
    }
    /* An object of more than 8 members is asked for a name by hashing it:
     * with required properties, every member's property is looked up
     * first instead, and a required one is there when its bit is. (A
     * smaller object is asked directly: the lookups of its members would
     * cost more, most of all in a oneOf branch that fails at its first.) */
    const named_node *found_here[FOUND_MAX], *const *found = NULL;
    uint64_t present = 0;
    uint32_t guess = r->first_declared;
    if (r->required_property && inst->index_size && size <= FOUND_MAX) {
        for (size_t i = 0; i < size; i++) {
            const named_node *p = lookup(r, members[i].key, members[i].key_len, &guess);
            found_here[i] = p;
            if (p)
                present |= 1ull << (p - r->properties);
        }
        found = found_here;
    }
    size_t from = 0;
    for (size_t i = 0; i < r->required.count; i++) {
        int32_t k = found ? r->required_property[i] : -1;
        if (k >= 0 ? !(present >> k & 1)
                   : !find_member(inst, r->required.names[i], r->required.lens[i], &from))
            return report(v, "required", "must have the property '%.*s'",
                          (int)(r->required.lens[i] > 100 ? 100 : r->required.lens[i]),
                          r->required.names[i]);
    }
    for (size_t d = 0; (r->has & O_DEPENDENT) && d < r->dependent_required_count; d++) {
        const dependent_names *dr = &r->dependent_required[d];
        if (!has_member(inst, dr->name, dr->len))
            continue;
        for (size_t i = 0; i < dr->required.count; i++)
            if (!has_member(inst, dr->required.names[i], dr->required.lens[i]))
                return report(v, "dependentRequired", "must have '%.*s' since it has '%.*s'",
                              (int)(dr->required.lens[i] > 100 ? 100 : dr->required.lens[i]),
                              dr->required.names[i], (int)(dr->len > 100 ? 100 : dr->len),
                              dr->name);
    }
    if (!(r->has & O_NAMES)) {
        if (!check_members(v, r, inst, found, ev))
            return false;
    } else {
        for (size_t i = 0; i < size; i++) {
            const char *key = members[i].key;
            size_t len = members[i].key_len;
            const mcp_json *value = members[i].value;
            bool matched = false, ok = true;
            v->path_len++;
            if (r->property_names)
                ok = check_name(v, r->property_names, key, len);
            const named_node *p = !ok ? NULL : found ? found[i] : lookup(r, key, len, &guess);
            if (p) {
                matched = true;
                ok = check(v, p->schema, value, NULL);
            }
            for (size_t k = 0; ok && k < r->pattern_count; k++) {
                const pattern_node *pp = &r->pattern_properties[k];
                int m = match(v, pp->fast, pp->re, key, len);
                if (m < 0) {
                    v->rc = MCP_ERR_LIMIT;
                    v->quiet = 0;
                    ok = report(v, "patternProperties",
                                "name could not be matched against /%.80s/", pp->source);
                } else if (m) {
                    matched = true;
                    ok = check(v, pp->schema, value, NULL);
                }
            }
            if (ok && !matched && r->additional_properties) {
                matched = true;
                if (r->additional_properties->boolean == 0)
                    ok = report(v, "additionalProperties", "is not a property the schema allows");
                else
                    ok = check(v, r->additional_properties, value, NULL);
            }
            v->path_len--;
            if (!ok)
                return member_failed(v, &members[i], false);
            if (matched)
                mark(ev, i);
        }
    }
    for (size_t d = 0; (r->has & O_DEPENDENT) && d < r->dependent_schema_count; d++)
        if (has_member(inst, r->dependent_schemas[d].name, r->dependent_schemas[d].len) &&
            !check(v, r->dependent_schemas[d].schema, inst, ev))
            return false;
    return true;
}

/* In-place applicators: their evaluations count when they pass. */
__attribute__((noinline)) static bool check_applicators(vctx *v, const applicators *a,
                                                        const mcp_json *inst, eval *ev)
{
    for (size_t i = 0; i < a->all_of.count; i++)
        if (!check(v, a->all_of.items[i], inst, ev))
            return false;
    if (a->any_of.count) {
        bool any = false;
        v->quiet++;
        for (size_t i = 0; i < a->any_of.count && v->rc == MCP_OK; i++) {
            eval tmp;
            if (ev && !eval_open(v, &tmp, inst))
                break;
            if (check(v, a->any_of.items[i], inst, ev ? &tmp : NULL)) {
                any = true;
                eval_merge(ev, &tmp);
            }
            if (ev)
                eval_close(&tmp);
            if (any && !ev)
                break; /* nothing to collect: one is enough */
        }
        v->quiet--;
        if (v->rc != MCP_OK)
            return false;
        if (!any)
            return report(v, "anyOf", "must match one of the %zu schemas of anyOf",
                          a->any_of.count);
    }
    if (a->one_of.count) {
        size_t matches = 0, first = 0;
        v->quiet++;
        for (size_t i = 0; i < a->one_of.count && v->rc == MCP_OK && matches < 2; i++) {
            eval tmp;
            if (ev && !eval_open(v, &tmp, inst))
                break;
            if (check(v, a->one_of.items[i], inst, ev ? &tmp : NULL)) {
                if (!matches++)
                    first = i;
                eval_merge(ev, &tmp);
            }
            if (ev)
                eval_close(&tmp);
        }
        v->quiet--;
        if (v->rc != MCP_OK)
            return false;
        if (matches != 1)
            return matches ? report(v, "oneOf", "must match exactly one schema of oneOf, "
                                                "but matches schemas %zu and more", first)
                           : report(v, "oneOf", "must match one of the %zu schemas of oneOf",
                                    a->one_of.count);
    }
    if (a->not_schema) {
        v->quiet++;
        bool matched = check(v, a->not_schema, inst, NULL);
        v->quiet--;
        if (v->rc != MCP_OK)
            return false;
        if (matched)
            return report(v, "not", "must not match the schema of not");
    }
    if (a->if_schema) {
        eval tmp;
        if (ev && !eval_open(v, &tmp, inst))
            return false;
        v->quiet++;
        bool cond = check(v, a->if_schema, inst, ev ? &tmp : NULL);
        v->quiet--;
        if (ev) {
            if (cond)
                eval_merge(ev, &tmp);
            eval_close(&tmp);
        }
        if (v->rc != MCP_OK)
            return false;
        const node *branch = cond ? a->then_schema : a->else_schema;
        if (branch && !check(v, branch, inst, ev))
            return false;
    }
    return true;
}

static bool check_unevaluated(vctx *v, const node *n, const mcp_json *inst, eval *own)
{
    if (n->unevaluated_properties && inst->type == MCP_JSON_OBJECT)
        for (size_t i = 0; i < own->n; i++) {
            if (marked(own, i))
                continue;
            const struct mcp_json_member *m = &inst->u.members[i];
            v->path_len++;
            bool ok = n->unevaluated_properties->boolean == 0
                          ? report(v, "unevaluatedProperties",
                                   "is not a property the schema evaluates")
                          : check(v, n->unevaluated_properties, m->value, NULL);
            v->path_len--;
            if (!ok) {
                failed_in_key(v, m->key, m->key_len);
                return false;
            }
            mark(own, i);
        }
    if (n->unevaluated_items && inst->type == MCP_JSON_ARRAY)
        for (size_t i = 0; i < own->n; i++) {
            if (marked(own, i))
                continue;
            v->path_len++;
            bool ok = n->unevaluated_items->boolean == 0
                          ? report(v, "unevaluatedItems", "is not an item the schema evaluates")
                          : check(v, n->unevaluated_items, inst->u.items[i], NULL);
            v->path_len--;
            if (!ok) {
                failed_in_item(v, i);
                return false;
            }
            mark(own, i);
        }
    return true;
}

/* The keywords of n other than $ref and the applicators: type, const,
 * enum, and the group for the instance's type (the only one looked at). */
static inline __attribute__((always_inline)) bool check_value(vctx *v, const node *n,
                                                              const mcp_json *inst)
{
    if (!check_type(v, n, inst))
        return false;
    if (n->const_value && !same_value(n->const_value, inst))
        return report(v, "const", "must be the schema's constant value");
    if (n->enum_values) {
        const mcp_json *values = n->enum_values;
        bool found = false;
        for (size_t i = 0; i < values->len && !found; i++)
            found = same_value(values->u.items[i], inst);
        if (!found)
            return report(v, "enum", "must be one of the %zu values of enum",
                          (size_t)values->len);
    }
    return true;
}

static inline __attribute__((always_inline)) bool check_own(vctx *v, const node *n,
                                                            const mcp_json *inst, eval *ev)
{
    if (!check_value(v, n, inst))
        return false;
    switch (inst->type) {
    case MCP_JSON_NUMBER: return !n->number || check_number(v, n->number, inst);
    case MCP_JSON_STRING: return !n->string || check_string(v, n->string, inst);
    case MCP_JSON_ARRAY: return !n->array || check_array(v, n->array, inst, ev);
    case MCP_JSON_OBJECT: return !n->object || check_object(v, n->object, inst, ev);
    default: return true;
    }
}

__attribute__((noinline)) static bool check_keywords(vctx *v, const node *n,
                                                     const mcp_json *inst, eval *ev)
{
    return check_own(v, n, inst, ev) && (!n->apply || check_applicators(v, n->apply, inst, ev));
}

/* A node with unevaluated*: it keeps its own record of what was evaluated,
 * and passes on to its caller's what it evaluated in the end. */
static bool check_tracked(vctx *v, const node *n, const mcp_json *inst, eval *ev)
{
    eval own;
    bool ok = eval_open(v, &own, inst);
    if (ok && n->ref)
        ok = check(v, n->ref, inst, &own);
    if (ok && !n->ref_only)
        ok = check_keywords(v, n, inst, &own);
    if (ok)
        ok = check_unevaluated(v, n, inst, &own);
    if (ok)
        eval_merge(ev, &own);
    eval_close(&own);
    return ok;
}

/* A node with more to check than its type: one call, with the depth it
 * adds for what it evaluates in turn. */
__attribute__((noinline)) static bool check_more(vctx *v, const node *n, const mcp_json *inst,
                                                 eval *ev)
{
    bool ok;
    if (n->const_only) /* the discriminator of a oneOf's branches, most often */
        return same_value(n->const_value, inst) ||
               report(v, "const", "must be the schema's constant value");
    v->depth++;
    if (n->pure_ref)
        ok = check(v, n->ref, inst, ev);
    else if (n->annotations)
        ok = check_tracked(v, n, inst, ev);
    else
        ok = (!n->ref || check(v, n->ref, inst, ev)) &&
             (n->ref_only || ((!n->own || check_own(v, n, inst, ev)) &&
                              (!n->apply || check_applicators(v, n->apply, inst, ev))));
    v->depth--;
    return ok && v->rc == MCP_OK;
}

/* A leaf's string or number, when it has no const or enum (check()). */
__attribute__((noinline)) static bool check_string_leaf(vctx *v, const string_rules *r,
                                                        const mcp_json *inst)
{
    return check_string(v, r, inst);
}

__attribute__((noinline)) static bool check_number_leaf(vctx *v, const number_rules *r,
                                                        const mcp_json *inst)
{
    return check_number(v, r, inst);
}

__attribute__((noinline, cold)) static bool limit_reached(vctx *v, bool steps)
{
    v->rc = MCP_ERR_LIMIT;
    v->quiet = 0;
    if (steps)
        /* anyOf over anyOf over $ref...: the work can double per level of
         * schema or instance; a bound on it, not on depth, is what holds. */
        report(v, "schema", "too costly to evaluate (over %llu schema evaluations)",
               (unsigned long long)v->max_steps);
    else
        report(v, "$ref", "schemas nested deeper than %u while evaluating (a $ref loop?)",
               v->max_depth);
    return false;
}

/* Every schema evaluated counts a step, and one that evaluates others
 * (its $ref, its applicators, its members' or items' schemas) a level of
 * depth while it does. Most schemas of a tool's properties are decided
 * here: by their type alone, or by it and the keywords for the instance's
 * type (a string's length and pattern, a number's bounds). */
static inline bool check(vctx *v, const node *n, const mcp_json *inst, eval *ev)
{
    if (v->rc != MCP_OK)
        return false;
    if (n->boolean == 1)
        return true;
    if (n->boolean == 0)
        return report(v, "false", "no value is allowed here");
    if (++v->steps > v->max_steps)
        return limit_reached(v, true);
    if (v->depth >= v->max_depth)
        return limit_reached(v, false);
    unsigned t = inst->type;
    if (!(n->more >> t & 1))
        return check_type(v, n, inst);
    if (!(n->direct >> t & 1))
        return check_more(v, n, inst, ev);
    if (!check_type(v, n, inst))
        return false;
    switch (t) { /* a string or number evaluates nothing more: no depth */
    case MCP_JSON_STRING: {
        /* its length in bytes decides (no pattern), or else a call */
        const string_rules *r = n->string;
        return (inst->len >= r->min_bytes && inst->len <= r->max_bytes) ||
               check_string_leaf(v, r, inst);
    }
    case MCP_JSON_NUMBER: {
        /* an integer between integer bounds, or else a call */
        const number_rules *r = n->number;
        return (r->ints && (inst->flags & NUM_HAS_I64) &&
                (!(r->has & N_MIN) || inst->x.i >= r->min.i) &&
                (!(r->has & N_MAX) || inst->x.i <= r->max.i)) ||
               check_number_leaf(v, r, inst);
    }
    default: {
        v->depth++; /* what its members or items are checked against */
        bool ok = t == MCP_JSON_OBJECT ? check_object(v, n->object, inst, ev)
                                       : check_array(v, n->array, inst, ev);
        v->depth--;
        return ok && v->rc == MCP_OK;
    }
    }
}

int mcp_schema_validate(const mcp_schema *s, const mcp_json *instance, mcp_schema_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!s || !instance)
        return MCP_ERR_INVALID_ARG;
    vctx v; /* the path (1.5 KB) is left as it is: see vctx */
    v.s = s;
    v.err = err;
    v.rc = MCP_OK;
    v.quiet = v.depth = v.path_len = v.err_len = 0;
    v.steps = 0;
    v.max_steps = s->max_steps;
    v.max_depth = s->max_depth;
    v.match = NULL;
    v.jit_stack = NULL;
    v.long_context = NULL;
    bool ok = check(&v, s->root, instance, NULL);
    if (v.match) /* made only for a pattern PCRE2 runs */
        pcre2_match_data_free(v.match);
    if (v.long_context || v.jit_stack) {
        pcre2_match_context_free(v.long_context);
        pcre2_jit_stack_free(v.jit_stack);
    }
    if (err && err->keyword[0]) {
        write_path(&v, err->instance_path, sizeof err->instance_path);
        utf8_clip(err->instance_path);
    }
    if (v.rc != MCP_OK) {
        if (err && !err->keyword[0])
            snprintf(err->message, sizeof err->message, "%s", mcp_strerror(v.rc));
        return v.rc;
    }
    if (!ok && err && !err->keyword[0]) /* a failure no keyword named: cannot be, but say so */
        snprintf(err->keyword, sizeof err->keyword, "schema");
    return ok ? MCP_OK : MCP_ERR_SCHEMA_MISMATCH;
}
