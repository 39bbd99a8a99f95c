/* SPDX-License-Identifier: MIT */
/*
 * Validating an instance against compiled nodes.
 *
 * The first failure is reported with the instance path and keyword; inside
 * anyOf, oneOf, not and if, failures are expected and stay quiet (the
 * applicator itself reports). unevaluatedProperties/unevaluatedItems need
 * to know what the other keywords evaluated: a node that has one tracks
 * it (a flag per member or item of the instance), passing the record down
 * through the applicators that evaluate in place, and keeping only what
 * passing branches evaluated.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "schema/internal.h"

#define MAX_PATH 64 /* segments of the instance path kept for errors */

typedef struct segment {
    const char *key; /* NULL: an index */
    size_t len, index;
} segment;

typedef struct vctx {
    const mcp_schema *s;
    mcp_schema_error *err;
    int rc;         /* MCP_OK, or LIMIT/NOMEM: the answer is unknown */
    unsigned quiet; /* inside a branch whose failure is not the answer */
    unsigned depth;
    uint64_t steps; /* schemas evaluated: bounded by max_steps */
    segment path[MAX_PATH];
    unsigned path_len; /* may exceed MAX_PATH: those are not kept */
    pcre2_match_data *match; /* one per validation, made at the first pattern */
    pcre2_jit_stack *jit_stack;        /* for long subjects */
    pcre2_match_context *long_context; /* with it, and a limit for each */
} vctx;

typedef struct eval { /* what was evaluated, for unevaluated* */
    unsigned char *props, *items;
    size_t nprops, nitems;
} eval;

/* Errors ---------------------------------------------------------------------- */

static void write_path(const vctx *v, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < v->path_len && i < MAX_PATH; i++) {
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
    if (v->path_len > MAX_PATH || n + 16 >= cap) {
        size_t at = n + 4 < cap ? n : cap - 4;
        memcpy(out + at, "...", 4);
    }
}

static bool report(vctx *v, const char *keyword, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Cut s back to its longest valid UTF-8 prefix: a field cut by its size (a
 * key or pattern quoted in it) must not end inside a character, or the
 * error that quotes it could not be sent. */
static void utf8_clip(char *s)
{
    size_t bad;
    if (mcp_utf8_validate(s, strlen(s), &bad) != MCP_OK)
        s[bad] = '\0';
}

static bool report(vctx *v, const char *keyword, const char *fmt, ...)
{
    if (v->quiet || !v->err || v->err->keyword[0])
        return false;
    write_path(v, v->err->instance_path, sizeof v->err->instance_path);
    snprintf(v->err->keyword, sizeof v->err->keyword, "%s", keyword);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->err->message, sizeof v->err->message, fmt, ap);
    va_end(ap);
    utf8_clip(v->err->instance_path);
    utf8_clip(v->err->message);
    return false;
}

static void push_key(vctx *v, const char *key, size_t len)
{
    if (v->path_len < MAX_PATH)
        v->path[v->path_len] = (segment){key, len, 0};
    v->path_len++;
}

static void push_index(vctx *v, size_t i)
{
    if (v->path_len < MAX_PATH)
        v->path[v->path_len] = (segment){NULL, 0, i};
    v->path_len++;
}

/* Evaluation records ------------------------------------------------------------ */

static bool eval_open(vctx *v, eval *e, const mcp_json *inst)
{
    memset(e, 0, sizeof *e);
    mcp_json_type t = mcp_json_typeof(inst);
    size_t n = t == MCP_JSON_OBJECT ? mcp_json_object_size(inst)
               : t == MCP_JSON_ARRAY ? mcp_json_array_size(inst)
                                     : 0;
    if (!n)
        return true;
    unsigned char *flags = calloc(n, 1);
    if (!flags) {
        v->rc = MCP_ERR_NOMEM;
        return false;
    }
    if (t == MCP_JSON_OBJECT) {
        e->props = flags;
        e->nprops = n;
    } else {
        e->items = flags;
        e->nitems = n;
    }
    return true;
}

static void eval_close(eval *e)
{
    free(e->props);
    free(e->items);
}

static void eval_merge(eval *into, const eval *from)
{
    if (!into)
        return;
    for (size_t i = 0; i < into->nprops && i < from->nprops; i++)
        into->props[i] |= from->props[i];
    for (size_t i = 0; i < into->nitems && i < from->nitems; i++)
        into->items[i] |= from->items[i];
}

static void mark_prop(eval *e, size_t i)
{
    if (e && i < e->nprops)
        e->props[i] = 1;
}

static void mark_item(eval *e, size_t i)
{
    if (e && i < e->nitems)
        e->items[i] = 1;
}

/* Keywords --------------------------------------------------------------------- */

static bool check(vctx *v, const node *n, const mcp_json *inst, eval *ev);

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

static unsigned type_bits(const node *n, const mcp_json *inst)
{
    switch (mcp_json_typeof(inst)) {
    case MCP_JSON_NULL: return T_NULL;
    case MCP_JSON_BOOL: return T_BOOLEAN;
    case MCP_JSON_STRING: return T_STRING;
    case MCP_JSON_ARRAY: return T_ARRAY;
    case MCP_JSON_OBJECT: return T_OBJECT;
    case MCP_JSON_NUMBER:
        if (mcp_json_is_integer_literal(inst))
            return T_NUMBER | T_INTEGER;
        /* 1.0 and 1e2 are integers (draft-06 on): asked only when it matters. */
        return T_NUMBER | ((n->types & T_INTEGER) && mcp__decimal_is_integer(inst) ? T_INTEGER : 0);
    default: return 0;
    }
}

static bool check_type(vctx *v, const node *n, const mcp_json *inst, unsigned bits)
{
    if (!n->types || (bits & n->types) || ((n->types & T_NUMBER) && (bits & T_INTEGER)))
        return true;
    static const char *const names[] = {"null",  "boolean", "object", "array",
                                        "number", "string", "integer"};
    char want[96] = "";
    for (int i = 0; i < 7; i++)
        if (n->types & (1u << i))
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", want[0] ? " or " : "",
                     names[i]);
    return report(v, "type", "must be %s, not %s", want, type_name(inst));
}

/* The bounds compare decimal texts exactly: a double would let 1e400 pass
 * a maximum (infinity, or NaN from a failed conversion, compares false) and
 * 9007199254740993 pass a maximum of ...992. */
static bool check_number(vctx *v, const node *n, const mcp_json *inst)
{
    if (n->has_min && mcp__decimal_compare(inst, n->min_v) < 0)
        return report(v, "minimum", "must be >= %.17g", n->min);
    if (n->has_max && mcp__decimal_compare(inst, n->max_v) > 0)
        return report(v, "maximum", "must be <= %.17g", n->max);
    if (n->has_xmin && mcp__decimal_compare(inst, n->xmin_v) <= 0)
        return report(v, "exclusiveMinimum", "must be > %.17g", n->xmin);
    if (n->has_xmax && mcp__decimal_compare(inst, n->xmax_v) >= 0)
        return report(v, "exclusiveMaximum", "must be < %.17g", n->xmax);
    if (n->has_multiple) {
        int exact = mcp__decimal_multiple(inst, n->multiple_v);
        if (exact < 0) {
            /* A divisor of more than 18 digits: in doubles, where a quotient
             * past 2^50 has no fraction left to tell. */
            double q = number_of(inst) / n->multiple;
            exact = isfinite(q) && fabs(q) < 0x1p50 && fabs(q - nearbyint(q)) < 1e-6;
        }
        if (!exact)
            return report(v, "multipleOf", "must be a multiple of %.17g", n->multiple);
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

/* Whether re matches: 1, 0, or -1 (too costly, or no memory). Only
 * whether: a match data of one pair serves every pattern. */
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

/* A long subject needs steps in proportion even for a linear pattern (the
 * base64 pattern on 400 KB), and a repeated group more than the JIT's
 * default 32 KiB of stack (2,000 characters of (?:a|b)*). A catastrophic
 * pattern still ends at its limit, which ends the validation
 * (MCP_ERR_LIMIT). */
static int match(vctx *v, const pcre2_code *re, const char *text, size_t len)
{
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

static bool check_string(vctx *v, const node *n, const mcp_json *inst)
{
    size_t len;
    const char *s = mcp_json_string(inst, &len);
    /* A character is 1 to 4 bytes: the count is needed only when the byte
     * length cannot decide. */
    bool decided = (n->min_length < 0 || (len + 3) / 4 >= (uint64_t)n->min_length) &&
                   (n->max_length < 0 || len <= (uint64_t)n->max_length);
    if (!decided) {
        size_t cp = code_points(s, len);
        if (n->min_length >= 0 && cp < (uint64_t)n->min_length)
            return report(v, "minLength", "must have at least %lld characters",
                          (long long)n->min_length);
        if (n->max_length >= 0 && cp > (uint64_t)n->max_length)
            return report(v, "maxLength", "must have at most %lld characters",
                          (long long)n->max_length);
    }
    if (n->pattern) {
        int m = match(v, n->pattern, s, len);
        if (m < 0) { /* unknown: neither a match nor none, whatever encloses it */
            v->rc = MCP_ERR_LIMIT;
            v->quiet = 0;
            return report(v, "pattern", "could not be matched against /%.80s/ (too costly)",
                          n->pattern_source);
        }
        if (!m)
            return report(v, "pattern", "must match /%.80s/", n->pattern_source);
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
    size_t n = mcp_json_array_size(inst);
    if (n < 2)
        return true;
    if (n <= 16) { /* a few: compared directly, without memory */
        for (size_t i = 0; i < n; i++)
            for (size_t k = i + 1; k < n; k++)
                if (mcp_json_equal(mcp_json_array_at(inst, i), mcp_json_array_at(inst, k)))
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
        h[i] = (hashed){value_hash(mcp_json_array_at(inst, i), 0), i};
    qsort(h, n, sizeof *h, by_hash);
    size_t a = 0, b = 0;
    bool dup = false;
    for (size_t i = 0; i < n && !dup; i++)
        for (size_t k = i + 1; k < n && h[k].hash == h[i].hash && !dup; k++)
            if (mcp_json_equal(mcp_json_array_at(inst, h[i].index),
                               mcp_json_array_at(inst, h[k].index))) {
                dup = true;
                a = h[i].index < h[k].index ? h[i].index : h[k].index;
                b = h[i].index < h[k].index ? h[k].index : h[i].index;
            }
    free(h);
    return !dup || report(v, "uniqueItems", "must not repeat items (%zu and %zu are equal)", a, b);
}

static bool check_array(vctx *v, const node *n, const mcp_json *inst, eval *ev)
{
    size_t size = mcp_json_array_size(inst);
    if (n->min_items >= 0 && size < (uint64_t)n->min_items)
        return report(v, "minItems", "must have at least %lld items", (long long)n->min_items);
    if (n->max_items >= 0 && size > (uint64_t)n->max_items)
        return report(v, "maxItems", "must have at most %lld items", (long long)n->max_items);
    if (n->unique_items && !check_unique(v, inst))
        return false;
    for (size_t i = 0; i < size; i++) {
        const node *item = i < n->prefix_items.count ? n->prefix_items.items[i] : n->items;
        if (!item)
            continue;
        push_index(v, i);
        bool ok = check(v, item, mcp_json_array_at(inst, i), NULL);
        v->path_len--;
        if (!ok)
            return false;
        mark_item(ev, i);
    }
    if (n->contains) {
        int64_t matched = 0;
        v->quiet++;
        for (size_t i = 0; i < size && v->rc == MCP_OK; i++)
            if (check(v, n->contains, mcp_json_array_at(inst, i), NULL)) {
                matched++;
                mark_item(ev, i);
            }
        v->quiet--;
        if (v->rc != MCP_OK)
            return false;
        if (matched < n->min_contains)
            return report(v, n->min_contains == 1 ? "contains" : "minContains",
                          "must contain at least %lld item%s matching the contains schema",
                          (long long)n->min_contains, n->min_contains == 1 ? "" : "s");
        if (n->max_contains >= 0 && matched > n->max_contains)
            return report(v, "maxContains",
                          "must contain at most %lld items matching the contains schema",
                          (long long)n->max_contains);
    }
    return true;
}

/* properties are sorted by length, then bytes (compile.c). */
static const named_node *property_of(const node *n, const char *key, size_t len)
{
    size_t lo = 0, hi = n->property_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const named_node *p = &n->properties[mid];
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

static bool check_name(vctx *v, const node *names, const char *key, size_t len)
{
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    const mcp_json *k = d ? mcp_json_new_stringn(d, key, len) : NULL;
    if (!k) {
        mcp_json_doc_free(d);
        v->rc = MCP_ERR_NOMEM;
        return false;
    }
    bool ok = check(v, names, k, NULL);
    mcp_json_doc_free(d);
    return ok;
}

static bool check_object(vctx *v, const node *n, const mcp_json *inst, eval *ev)
{
    size_t size = mcp_json_object_size(inst);
    if (n->min_properties >= 0 && size < (uint64_t)n->min_properties)
        return report(v, "minProperties", "must have at least %lld properties",
                      (long long)n->min_properties);
    if (n->max_properties >= 0 && size > (uint64_t)n->max_properties)
        return report(v, "maxProperties", "must have at most %lld properties",
                      (long long)n->max_properties);
    for (size_t i = 0; i < n->required.count; i++)
        if (!mcp_json_object_getn(inst, n->required.names[i], n->required.lens[i]))
            return report(v, "required", "must have the property '%.*s'",
                          (int)(n->required.lens[i] > 100 ? 100 : n->required.lens[i]),
                          n->required.names[i]);
    for (size_t d = 0; d < n->dependent_required_count; d++) {
        const dependent_names *dr = &n->dependent_required[d];
        if (!mcp_json_object_getn(inst, dr->name, dr->len))
            continue;
        for (size_t i = 0; i < dr->required.count; i++)
            if (!mcp_json_object_getn(inst, dr->required.names[i], dr->required.lens[i]))
                return report(v, "dependentRequired", "must have '%.*s' since it has '%.*s'",
                              (int)(dr->required.lens[i] > 100 ? 100 : dr->required.lens[i]),
                              dr->required.names[i], (int)(dr->len > 100 ? 100 : dr->len),
                              dr->name);
    }
    for (size_t i = 0; i < size; i++) {
        const char *key;
        size_t len;
        const mcp_json *value = mcp_json_object_at(inst, i, &key, &len);
        bool matched = false, ok = true;
        push_key(v, key, len);
        if (n->property_names && !check_name(v, n->property_names, key, len)) {
            v->path_len--;
            return false;
        }
        const named_node *p = property_of(n, key, len);
        if (p) {
            matched = true;
            ok = check(v, p->schema, value, NULL);
        }
        for (size_t k = 0; ok && k < n->pattern_count; k++) {
            int m = match(v, n->pattern_properties[k].re, key, len);
            if (m < 0) {
                v->rc = MCP_ERR_LIMIT;
                v->quiet = 0;
                ok = report(v, "patternProperties", "name could not be matched against /%.80s/",
                            n->pattern_properties[k].source);
            }
            else if (m) {
                matched = true;
                ok = check(v, n->pattern_properties[k].schema, value, NULL);
            }
        }
        if (ok && !matched && n->additional_properties) {
            matched = true;
            if (n->additional_properties->boolean == 0)
                ok = report(v, "additionalProperties", "is not a property the schema allows");
            else
                ok = check(v, n->additional_properties, value, NULL);
        }
        v->path_len--;
        if (!ok)
            return false;
        if (matched)
            mark_prop(ev, i);
    }
    for (size_t d = 0; d < n->dependent_schema_count; d++)
        if (mcp_json_object_getn(inst, n->dependent_schemas[d].name, n->dependent_schemas[d].len) &&
            !check(v, n->dependent_schemas[d].schema, inst, ev))
            return false;
    return true;
}

/* In-place applicators: their evaluations count when they pass. */
static bool check_applicators(vctx *v, const node *n, const mcp_json *inst, eval *ev)
{
    for (size_t i = 0; i < n->all_of.count; i++)
        if (!check(v, n->all_of.items[i], inst, ev))
            return false;
    if (n->any_of.count) {
        bool any = false;
        v->quiet++;
        for (size_t i = 0; i < n->any_of.count && v->rc == MCP_OK; i++) {
            eval tmp = {0};
            if (ev && !eval_open(v, &tmp, inst))
                break;
            if (check(v, n->any_of.items[i], inst, ev ? &tmp : NULL)) {
                any = true;
                eval_merge(ev, &tmp);
            }
            eval_close(&tmp);
            if (any && !ev)
                break; /* nothing to collect: one is enough */
        }
        v->quiet--;
        if (v->rc != MCP_OK)
            return false;
        if (!any)
            return report(v, "anyOf", "must match one of the %zu schemas of anyOf",
                          n->any_of.count);
    }
    if (n->one_of.count) {
        size_t matches = 0, first = 0;
        v->quiet++;
        for (size_t i = 0; i < n->one_of.count && v->rc == MCP_OK && matches < 2; i++) {
            eval tmp = {0};
            if (ev && !eval_open(v, &tmp, inst))
                break;
            if (check(v, n->one_of.items[i], inst, ev ? &tmp : NULL)) {
                if (!matches++)
                    first = i;
                eval_merge(ev, &tmp);
            }
            eval_close(&tmp);
        }
        v->quiet--;
        if (v->rc != MCP_OK)
            return false;
        if (matches != 1)
            return matches ? report(v, "oneOf", "must match exactly one schema of oneOf, "
                                                "but matches schemas %zu and more", first)
                           : report(v, "oneOf", "must match one of the %zu schemas of oneOf",
                                    n->one_of.count);
    }
    if (n->not_schema) {
        v->quiet++;
        bool matched = check(v, n->not_schema, inst, NULL);
        v->quiet--;
        if (v->rc != MCP_OK)
            return false;
        if (matched)
            return report(v, "not", "must not match the schema of not");
    }
    if (n->if_schema) {
        eval tmp = {0};
        if (ev && !eval_open(v, &tmp, inst))
            return false;
        v->quiet++;
        bool cond = check(v, n->if_schema, inst, ev ? &tmp : NULL);
        v->quiet--;
        if (cond)
            eval_merge(ev, &tmp);
        eval_close(&tmp);
        if (v->rc != MCP_OK)
            return false;
        const node *branch = cond ? n->then_schema : n->else_schema;
        if (branch && !check(v, branch, inst, ev))
            return false;
    }
    return true;
}

static bool check_unevaluated(vctx *v, const node *n, const mcp_json *inst, eval *own)
{
    if (n->unevaluated_properties && mcp_json_typeof(inst) == MCP_JSON_OBJECT)
        for (size_t i = 0; i < own->nprops; i++) {
            if (own->props[i])
                continue;
            const char *key;
            size_t len;
            const mcp_json *value = mcp_json_object_at(inst, i, &key, &len);
            push_key(v, key, len);
            bool ok = n->unevaluated_properties->boolean == 0
                          ? report(v, "unevaluatedProperties",
                                   "is not a property the schema evaluates")
                          : check(v, n->unevaluated_properties, value, NULL);
            v->path_len--;
            if (!ok)
                return false;
            own->props[i] = 1;
        }
    if (n->unevaluated_items && mcp_json_typeof(inst) == MCP_JSON_ARRAY)
        for (size_t i = 0; i < own->nitems; i++) {
            if (own->items[i])
                continue;
            push_index(v, i);
            bool ok = n->unevaluated_items->boolean == 0
                          ? report(v, "unevaluatedItems", "is not an item the schema evaluates")
                          : check(v, n->unevaluated_items, mcp_json_array_at(inst, i), NULL);
            v->path_len--;
            if (!ok)
                return false;
            own->items[i] = 1;
        }
    return true;
}

static bool check_keywords(vctx *v, const node *n, const mcp_json *inst, eval *ev)
{
    unsigned bits = type_bits(n, inst);
    if (!check_type(v, n, inst, bits))
        return false;
    if (n->const_value && !mcp_json_equal(n->const_value, inst))
        return report(v, "const", "must be the schema's constant value");
    if (n->enum_values) {
        bool found = false;
        for (size_t i = 0; i < mcp_json_array_size(n->enum_values) && !found; i++)
            found = mcp_json_equal(mcp_json_array_at(n->enum_values, i), inst);
        if (!found)
            return report(v, "enum", "must be one of the %zu values of enum",
                          mcp_json_array_size(n->enum_values));
    }
    if ((bits & T_NUMBER) && !check_number(v, n, inst))
        return false;
    if ((bits & T_STRING) && !check_string(v, n, inst))
        return false;
    if ((bits & T_ARRAY) && !check_array(v, n, inst, ev))
        return false;
    if ((bits & T_OBJECT) && !check_object(v, n, inst, ev))
        return false;
    return check_applicators(v, n, inst, ev);
}

static bool check(vctx *v, const node *n, const mcp_json *inst, eval *ev)
{
    if (v->rc != MCP_OK)
        return false;
    if (n->boolean == 1)
        return true;
    if (n->boolean == 0)
        return report(v, "false", "no value is allowed here");
    if (++v->steps > v->s->max_steps) {
        /* anyOf over anyOf over $ref...: the work can double per level of
         * schema or instance; a bound on it, not on depth, is what holds. */
        v->rc = MCP_ERR_LIMIT;
        v->quiet = 0;
        report(v, "schema", "too costly to evaluate (over %llu schema evaluations)",
               (unsigned long long)v->s->max_steps);
        return false;
    }
    if (++v->depth > v->s->max_depth) {
        v->rc = MCP_ERR_LIMIT;
        v->quiet = 0;
        report(v, "$ref", "schemas nested deeper than %u while evaluating (a $ref loop?)",
               v->s->max_depth);
        v->depth--;
        return false;
    }
    eval own = {0};
    eval *local = ev;
    bool ok = true;
    if (n->annotations) {
        ok = eval_open(v, &own, inst);
        local = &own;
    }
    if (ok && n->ref)
        ok = check(v, n->ref, inst, local);
    if (ok && !n->ref_only)
        ok = check_keywords(v, n, inst, local);
    if (ok && n->annotations)
        ok = check_unevaluated(v, n, inst, &own);
    if (ok && n->annotations)
        eval_merge(ev, &own);
    if (n->annotations)
        eval_close(&own);
    v->depth--;
    return ok && v->rc == MCP_OK;
}

int mcp_schema_validate(const mcp_schema *s, const mcp_json *instance, mcp_schema_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!s || !instance)
        return MCP_ERR_INVALID_ARG;
    vctx v = {.s = s, .err = err, .rc = MCP_OK};
    bool ok = check(&v, s->root, instance, NULL);
    pcre2_match_data_free(v.match);
    pcre2_match_context_free(v.long_context);
    pcre2_jit_stack_free(v.jit_stack);
    if (v.rc != MCP_OK) {
        if (err && !err->keyword[0])
            snprintf(err->message, sizeof err->message, "%s", mcp_strerror(v.rc));
        return v.rc;
    }
    if (!ok && err && !err->keyword[0]) /* a failure no keyword named: cannot be, but say so */
        snprintf(err->keyword, sizeof err->keyword, "schema");
    return ok ? MCP_OK : MCP_ERR_SCHEMA_MISMATCH;
}
