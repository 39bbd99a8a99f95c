/* SPDX-License-Identifier: MIT */
/*
 * Compiling a schema: every subschema becomes a node (see internal.h).
 *
 * Three steps. The scan walks the subschemas to learn the URI of every
 * resource ($id) and anchor ($anchor, draft-07's "$id": "#name"), so a
 * $ref may name one that comes later. The compile turns each subschema
 * into a node, checking its keywords, and records each $ref as an absolute
 * URI. The link resolves those URIs to nodes; a JSON Pointer into a place
 * no keyword made a schema (a pointer into an enum's neighbour, say) is
 * compiled then.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#include "core/hash.h"
#include "core/map.h"
#include "core/mem.h"
#include "core/opts.h"
#include "schema/internal.h"

#define DEFAULT_MAX_DEPTH 256
#define MAX_EVAL_DEPTH 2048 /* about 1 MiB of stack */
#define DEFAULT_MAX_STEPS 1000000
#define DEFAULT_MAX_NODES 20000 /* about 10 MB of nodes */
#define MAX_SCHEMA_DEPTH 128 /* nesting of subschemas in the schema itself */
#define MAX_URI 2048

typedef struct uri_entry { /* a resource or an anchor */
    char *uri;
    const mcp_json *json;
    const char *base; /* of the resource the entry is in */
} uri_entry;

typedef struct compiler {
    mcp_schema *s;
    bool draft7;
    bool plain; /* without the fast paths (internal.h) */
    int rc;
    char *why;
    size_t why_len;
    mcp__map uri_map;     /* hash of the URI -> its uri_entry: resources, anchors */
    size_t node_count;
    mcp__map nodes;       /* schema JSON value -> its node */
    mcp_mem mem;          /* the map's */
    node **refs;          /* nodes whose $ref awaits the link */
    const char **ref_bases;
    size_t nrefs, cap_refs;
} compiler;

static void fail(compiler *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(compiler *c, int rc, const char *fmt, ...)
{
    if (c->rc != MCP_OK)
        return;
    c->rc = rc;
    if (c->why && c->why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->why_len, fmt, ap);
        va_end(ap);
        size_t bad;
        if (mcp_utf8_validate(c->why, strlen(c->why), &bad) != MCP_OK)
            c->why[bad] = '\0'; /* cut inside a character */
    }
}

static void *zalloc(compiler *c, size_t n)
{
    void *p = n ? mcp__arena_alloc(&c->s->arena, n) : NULL;
    if (n && !p)
        fail(c, MCP_ERR_NOMEM, "out of memory");
    else if (p)
        memset(p, 0, n);
    return p;
}

static char *copy_text(compiler *c, const char *t, size_t n)
{
    char *p = zalloc(c, n + 1);
    if (p)
        memcpy(p, t, n);
    return p;
}

/* URIs (RFC 3986, as much as schemas within one document need) --------------- */

static size_t scheme_length(const char *u)
{
    if (!isalpha((unsigned char)u[0]))
        return 0;
    size_t i = 1;
    while (isalnum((unsigned char)u[i]) || u[i] == '+' || u[i] == '-' || u[i] == '.')
        i++;
    return u[i] == ':' ? i : 0;
}

/* ref resolved against base, into out (MAX_URI); false when too long. */
static bool resolve_uri(const char *base, const char *ref, char *out)
{
    size_t bn = strcspn(base, "#"); /* the base without its fragment */
    int n;
    if (scheme_length(ref))
        n = snprintf(out, MAX_URI, "%s", ref);
    else if (ref[0] == '#' || !ref[0])
        n = snprintf(out, MAX_URI, "%.*s%s", (int)bn, base, ref);
    else if (ref[0] == '/' && ref[1] == '/')
        n = snprintf(out, MAX_URI, "%.*s%s", (int)scheme_length(base) + 1, base, ref);
    else if (ref[0] == '/') {
        size_t sl = scheme_length(base), end = bn;
        if (sl && base[sl + 1] == '/' && base[sl + 2] == '/') {
            const char *slash = memchr(base + sl + 3, '/', bn - sl - 3);
            end = slash ? (size_t)(slash - base) : bn;
        } else {
            end = sl ? sl + 1 : 0;
        }
        n = snprintf(out, MAX_URI, "%.*s%s", (int)end, base, ref);
    } else {
        size_t dir = bn;
        while (dir > 0 && base[dir - 1] != '/')
            dir--;
        n = snprintf(out, MAX_URI, "%.*s%s", (int)dir, base, ref);
    }
    if (n < 0 || n >= MAX_URI)
        return false;
    /* "./" and "a/../" segments, which relative $ids use. */
    char *p;
    while ((p = strstr(out, "/./")) != NULL)
        memmove(p, p + 2, strlen(p + 2) + 1);
    while ((p = strstr(out, "/../")) != NULL && p > out) {
        char *q = p - 1;
        while (q > out && *q != '/')
            q--;
        memmove(q, p + 3, strlen(p + 3) + 1);
    }
    size_t len = strlen(out);
    if (len && out[len - 1] == '#')
        out[len - 1] = '\0'; /* "x#" is "x" */
    return true;
}

static bool same_uri(const void *value, const void *ctx)
{
    return !strcmp(((const uri_entry *)value)->uri, ctx);
}

/* Hashed: 40,000 anchors took 19 s to compile in a list. */
static uri_entry *find_uri(const compiler *c, const char *uri)
{
    return mcp__map_find(&c->uri_map, mcp__hash_bytes(uri, strlen(uri)), same_uri, uri);
}

static void add_uri(compiler *c, const char *uri, const mcp_json *json, const char *base)
{
    if (find_uri(c, uri))
        return; /* the first wins */
    uri_entry *e = zalloc(c, sizeof *e);
    char *u = e ? copy_text(c, uri, strlen(uri)) : NULL;
    if (!u)
        return;
    e->uri = u;
    e->json = json;
    e->base = base;
    if (mcp__map_put(&c->uri_map, &c->mem, mcp__hash_bytes(u, strlen(u)), e) != MCP_OK)
        fail(c, MCP_ERR_NOMEM, "out of memory");
}

/* The scan: resources and anchors --------------------------------------------- */

static const char *const single_keywords[] = {
    "additionalProperties", "propertyNames", "contains", "not", "if", "then", "else",
    "unevaluatedProperties", "unevaluatedItems", "additionalItems", "items", NULL};
static const char *const list_keywords[] = {"allOf", "anyOf", "oneOf", "prefixItems", "items",
                                            NULL};
static const char *const map_keywords[] = {"properties", "patternProperties", "$defs",
                                           "definitions", "dependentSchemas", "dependencies",
                                           NULL};

/* The base URI inside schema j, whose parent's base is base (a string in the
 * arena, or base itself); anchors and resources registered. */
__attribute__((noinline)) /* its URI buffers stay off the recursion's frames */
static const char *enter(compiler *c, const mcp_json *j, const char *base)
{
    if (mcp_json_typeof(j) != MCP_JSON_OBJECT)
        return base;
    bool ref_hides_id = c->draft7 && mcp_json_object_get(j, "$ref");
    const char *id = ref_hides_id ? NULL : mcp_json_string(mcp_json_object_get(j, "$id"), NULL);
    char uri[MAX_URI];
    if (id && c->draft7 && id[0] == '#') { /* draft-07's anchor */
        if (resolve_uri(base, id, uri))
            add_uri(c, uri, j, base);
        return base;
    }
    if (id) {
        if (!resolve_uri(base, id, uri)) {
            fail(c, MCP_ERR_SCHEMA, "$id too long");
            return base;
        }
        char *copy = copy_text(c, uri, strlen(uri));
        if (!copy)
            return base;
        add_uri(c, copy, j, copy);
        base = copy;
    }
    const char *anchor = c->draft7 ? NULL : mcp_json_string(mcp_json_object_get(j, "$anchor"), NULL);
    if (anchor) {
        char frag[MAX_URI];
        int n = snprintf(frag, sizeof frag, "#%s", anchor);
        if (n > 0 && n < (int)sizeof frag && resolve_uri(base, frag, uri))
            add_uri(c, uri, j, base);
    }
    return base;
}

static void scan(compiler *c, const mcp_json *j, const char *base, unsigned depth)
{
    if (mcp_json_typeof(j) != MCP_JSON_OBJECT || c->rc != MCP_OK)
        return;
    if (depth > MAX_SCHEMA_DEPTH) {
        fail(c, MCP_ERR_SCHEMA, "subschemas nested deeper than %u", MAX_SCHEMA_DEPTH);
        return;
    }
    base = enter(c, j, base);
    for (int i = 0; single_keywords[i]; i++)
        scan(c, mcp_json_object_get(j, single_keywords[i]), base, depth + 1);
    for (int i = 0; list_keywords[i]; i++) {
        const mcp_json *l = mcp_json_object_get(j, list_keywords[i]);
        for (size_t k = 0; k < mcp_json_array_size(l); k++)
            scan(c, mcp_json_array_at(l, k), base, depth + 1);
    }
    for (int i = 0; map_keywords[i]; i++) {
        const mcp_json *m = mcp_json_object_get(j, map_keywords[i]);
        for (size_t k = 0; k < mcp_json_object_size(m); k++)
            scan(c, mcp_json_object_at(m, k, NULL, NULL), base, depth + 1);
    }
}

/* The compile ---------------------------------------------------------------- */

/* properties by length, then bytes: the validator searches them. */
static int by_length_then_bytes(const void *a, const void *b)
{
    const named_node *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->name, y->name, x->len);
}

static node *compile(compiler *c, const mcp_json *j, const char *base, unsigned depth);
typedef struct groups groups;
static bool compile_keywords(compiler *c, node *n, groups *g, const mcp_json *j, const char *base,
                             unsigned depth);

/* A copy of n bytes in the schema's arena (NULL: out of memory, said). */
static void *keep(compiler *c, const void *p, size_t n)
{
    void *q = zalloc(c, n);
    if (q)
        memcpy(q, p, n);
    return q;
}

struct groups { /* a node's keywords while they are compiled */
    number_rules number;
    string_rules string;
    array_rules array;
    object_rules object;
    applicators apply;
};

static bool get_count(compiler *c, const mcp_json *j, const char *kw, int64_t *out)
{
    const mcp_json *v = mcp_json_object_get(j, kw);
    *out = -1;
    if (!v)
        return true;
    double d;
    if (mcp_json_get_double(v, &d) != MCP_OK || d < 0 || d != floor(d)) {
        fail(c, MCP_ERR_SCHEMA, "%s must be a non-negative integer", kw);
        return false;
    }
    *out = d > 9e18 ? INT64_MAX : (int64_t)d;
    return true;
}

/* A bound read once: as its decimal, and as an int64 when it is an
 * integer that fits (then an integer instance compares in one
 * instruction). */
static bool get_bound(compiler *c, const mcp_json *j, const char *kw, unsigned bit,
                      number_rules *r, bound *b)
{
    const mcp_json *v = mcp_json_object_get(j, kw);
    if (!v)
        return true;
    if (mcp_json_typeof(v) != MCP_JSON_NUMBER || mcp_json_get_double(v, &b->d) != MCP_OK) {
        fail(c, MCP_ERR_SCHEMA, "%s must be a number", kw);
        return false;
    }
    b->value = v;
    mcp__decimal_read(v, &b->dec);
    b->exact = !c->plain && mcp_json_get_int64(v, &b->i) == MCP_OK;
    r->has |= bit;
    return true;
}

/* PCRE2 compiles every pattern, so that the same ones are refused with the
 * same reasons; one that pattern.c can run is then run there instead. */
static bool compile_pattern(compiler *c, const char *src, size_t len, pcre2_code **out,
                            const mcp__pattern **fast)
{
    int code;
    PCRE2_SIZE at;
    /* ECMA-262: $ only at the end, \u escapes, UTF-8 strings. */
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (cc)
        pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, len,
                                   PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_DOLLAR_ENDONLY, &code, &at,
                                   cc);
    pcre2_compile_context_free(cc);
    if (!re) {
        PCRE2_UCHAR msg[120];
        pcre2_get_error_message(code, msg, sizeof msg);
        fail(c, MCP_ERR_SCHEMA, "pattern /%.*s/ at %zu: %s", (int)(len > 60 ? 60 : len), src,
             (size_t)at, (const char *)msg);
        return false;
    }
    *fast = c->plain ? NULL : mcp__pattern_compile(&c->s->arena, src, len);
    if (*fast) {
        pcre2_code_free(re);
        *out = NULL;
        return true;
    }
    /* Faster when it can, fine when not. Not under valgrind: the JIT's code
     * reads past the end of a subject in wide loads, which memcheck reports
     * as uninitialised (and cannot name a frame of, to suppress). */
    if (!RUNNING_ON_VALGRIND)
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    mcp_schema *s = c->s; /* freed with the schema */
    if (s->pattern_count == s->pattern_cap) {
        size_t cap = s->pattern_cap ? s->pattern_cap * 2 : 8;
        pcre2_code **p = realloc(s->patterns, cap * sizeof *p);
        if (!p) {
            pcre2_code_free(re);
            fail(c, MCP_ERR_NOMEM, "out of memory");
            return false;
        }
        s->patterns = p;
        s->pattern_cap = cap;
    }
    s->patterns[s->pattern_count++] = re;
    *out = re;
    return true;
}

static bool compile_list(compiler *c, const mcp_json *j, const char *kw, const char *base,
                         unsigned depth, node_list *out)
{
    const mcp_json *l = mcp_json_object_get(j, kw);
    if (!l)
        return true;
    size_t n = mcp_json_array_size(l);
    if (mcp_json_typeof(l) != MCP_JSON_ARRAY || (n == 0 && strcmp(kw, "prefixItems") &&
                                                  strcmp(kw, "items"))) {
        fail(c, MCP_ERR_SCHEMA, "%s must be a non-empty array of schemas", kw);
        return false;
    }
    out->items = zalloc(c, n * sizeof *out->items);
    if (n && !out->items)
        return false;
    out->count = n;
    for (size_t i = 0; i < n; i++)
        if (!(out->items[i] = compile(c, mcp_json_array_at(l, i), base, depth + 1)))
            return false;
    return true;
}

static bool compile_names(compiler *c, const mcp_json *l, const char *what, name_list *out)
{
    size_t n = mcp_json_array_size(l);
    if (mcp_json_typeof(l) != MCP_JSON_ARRAY) {
        fail(c, MCP_ERR_SCHEMA, "%s must be an array of strings", what);
        return false;
    }
    out->names = zalloc(c, n * sizeof *out->names);
    out->lens = zalloc(c, n * sizeof *out->lens);
    if (n && (!out->names || !out->lens))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(out->names[i] = mcp_json_string(mcp_json_array_at(l, i), &out->lens[i]))) {
            fail(c, MCP_ERR_SCHEMA, "%s must be an array of strings", what);
            return false;
        }
    out->count = n;
    return true;
}

static bool compile_type(compiler *c, node *n, const mcp_json *t)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"null", T_NULL},     {"boolean", T_BOOLEAN}, {"object", T_OBJECT},
                 {"array", T_ARRAY},   {"number", T_NUMBER},   {"string", T_STRING},
                 {"integer", T_INTEGER}};
    size_t count = mcp_json_typeof(t) == MCP_JSON_ARRAY ? mcp_json_array_size(t) : 1;
    if (!count) {
        fail(c, MCP_ERR_SCHEMA, "type must name at least one type");
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const mcp_json *v = mcp_json_typeof(t) == MCP_JSON_ARRAY ? mcp_json_array_at(t, i) : t;
        const char *name = mcp_json_string(v, NULL);
        unsigned bit = 0;
        for (size_t k = 0; name && k < sizeof names / sizeof names[0]; k++)
            if (!strcmp(name, names[k].name))
                bit = names[k].bit;
        if (!bit) {
            fail(c, MCP_ERR_SCHEMA, "type must name JSON types (null, boolean, object, array, "
                                    "number, string, integer)");
            return false;
        }
        n->types |= bit;
    }
    return true;
}

static node *sub(compiler *c, const mcp_json *j, const char *kw, const char *base, unsigned depth)
{
    const mcp_json *v = mcp_json_object_get(j, kw);
    return v ? compile(c, v, base, depth + 1) : NULL;
}

/* properties by hash, when no bucket would hold more than PROP_BUCKET of
 * them with up to 8 buckets a property; else by binary search. */
static void index_properties(compiler *c, object_rules *o)
{
    size_t buckets = 1;
    while (buckets < o->property_count)
        buckets *= 2;
    for (size_t tries = 0; tries < 4 && !c->plain && o->property_count > 1; tries++, buckets *= 2) {
        if (buckets > UINT32_MAX / PROP_BUCKET)
            return;
        prop_slot *slots = zalloc(c, buckets * PROP_BUCKET * sizeof *slots);
        if (!slots)
            return;
        size_t i;
        for (i = 0; i < o->property_count; i++) {
            uint32_t h = mcp__name_hash(o->properties[i].name, o->properties[i].len);
            prop_slot *b = &slots[(h & (buckets - 1)) * PROP_BUCKET];
            size_t k = 0;
            while (k < PROP_BUCKET && b[k].index)
                k++;
            if (k == PROP_BUCKET)
                break; /* crowded: try more buckets */
            b[k] = (prop_slot){h, (uint32_t)i + 1};
        }
        if (i == o->property_count) {
            o->slots = slots;
            o->bucket_mask = (uint32_t)(buckets - 1);
            return;
        }
    }
}

/* next_declared and first_declared (internal.h). */
static void declared_order(compiler *c, object_rules *o)
{
    size_t n = o->property_count;
    if (c->plain || n < 2)
        return;
    uint32_t *at = malloc(n * sizeof *at); /* declared place -> sorted index */
    o->next_declared = zalloc(c, n * sizeof *o->next_declared);
    if (!at || !o->next_declared) {
        free(at);
        o->next_declared = NULL;
        return; /* not tried: the answer is the same */
    }
    for (size_t i = 0; i < n; i++)
        at[o->properties[i].declared] = (uint32_t)i;
    for (size_t i = 0; i < n; i++) {
        uint32_t d = o->properties[i].declared;
        o->next_declared[i] = d + 1 < n ? at[d + 1] : (uint32_t)n;
    }
    o->first_declared = at[0];
    free(at);
}

/* Which property each required name is: a validator that looked up every
 * member's property then knows which are there without looking again.
 * Only for up to 64 properties (a bit each). */
static bool required_properties(compiler *c, object_rules *o)
{
    if (c->plain || !o->required.count || !o->property_count || o->property_count > 64)
        return true;
    o->required_property = zalloc(c, o->required.count * sizeof *o->required_property);
    if (!o->required_property)
        return false;
    for (size_t i = 0; i < o->required.count; i++) {
        named_node key = {.name = o->required.names[i], .len = o->required.lens[i]};
        const named_node *p = bsearch(&key, o->properties, o->property_count,
                                      sizeof *o->properties, by_length_then_bytes);
        o->required_property[i] = p ? (int32_t)(p - o->properties) : -1;
    }
    return true;
}

static bool compile_maps(compiler *c, object_rules *o, const mcp_json *j, const char *base,
                         unsigned depth)
{
    const mcp_json *props = mcp_json_object_get(j, "properties");
    size_t np = mcp_json_object_size(props);
    if (props && mcp_json_typeof(props) != MCP_JSON_OBJECT) {
        fail(c, MCP_ERR_SCHEMA, "properties must be an object");
        return false;
    }
    o->properties = zalloc(c, np * sizeof *o->properties);
    for (size_t i = 0; i < np && o->properties; i++) {
        named_node *p = &o->properties[i];
        const mcp_json *v = mcp_json_object_at(props, i, &p->name, &p->len);
        p->declared = (uint32_t)i;
        if (!(p->schema = compile(c, v, base, depth + 1)))
            return false;
        o->property_count++;
    }
    if (o->property_count > 1)
        qsort(o->properties, o->property_count, sizeof *o->properties, by_length_then_bytes);
    if (c->rc == MCP_OK) {
        index_properties(c, o);
        declared_order(c, o);
    }
    const mcp_json *pats = mcp_json_object_get(j, "patternProperties");
    size_t nq = mcp_json_object_size(pats);
    static const char *const maps[] = {"patternProperties", "dependentSchemas",
                                       "dependentRequired", "dependencies", "$defs",
                                       "definitions"};
    for (size_t k = 0; k < sizeof maps / sizeof maps[0]; k++) {
        const mcp_json *m = mcp_json_object_get(j, maps[k]);
        if (m && mcp_json_typeof(m) != MCP_JSON_OBJECT) {
            fail(c, MCP_ERR_SCHEMA, "%s must be an object", maps[k]);
            return false;
        }
    }
    o->pattern_properties = zalloc(c, nq * sizeof *o->pattern_properties);
    for (size_t i = 0; i < nq && o->pattern_properties; i++) {
        pattern_node *p = &o->pattern_properties[i];
        size_t len;
        const mcp_json *v = mcp_json_object_at(pats, i, &p->source, &len);
        if (!compile_pattern(c, p->source, len, &p->re, &p->fast) ||
            !(p->schema = compile(c, v, base, depth + 1)))
            return false;
        o->pattern_count++;
    }
    /* dependentSchemas/dependentRequired (2020-12), dependencies (draft-07:
     * either, per member). */
    const mcp_json *ds = mcp_json_object_get(j, c->draft7 ? "dependencies" : "dependentSchemas");
    const mcp_json *dr = mcp_json_object_get(j, c->draft7 ? "dependencies" : "dependentRequired");
    size_t nds = mcp_json_object_size(ds), ndr = mcp_json_object_size(dr);
    o->dependent_schemas = zalloc(c, nds * sizeof *o->dependent_schemas);
    o->dependent_required = zalloc(c, ndr * sizeof *o->dependent_required);
    for (size_t i = 0; i < nds && o->dependent_schemas; i++) {
        const char *name;
        size_t len;
        const mcp_json *v = mcp_json_object_at(ds, i, &name, &len);
        if (c->draft7 && mcp_json_typeof(v) == MCP_JSON_ARRAY)
            continue;
        named_node *d = &o->dependent_schemas[o->dependent_schema_count];
        d->name = name;
        d->len = len;
        if (!(d->schema = compile(c, v, base, depth + 1)))
            return false;
        o->dependent_schema_count++;
    }
    for (size_t i = 0; i < ndr && o->dependent_required; i++) {
        const char *name;
        size_t len;
        const mcp_json *v = mcp_json_object_at(dr, i, &name, &len);
        if (c->draft7 && mcp_json_typeof(v) != MCP_JSON_ARRAY)
            continue;
        dependent_names *d = &o->dependent_required[o->dependent_required_count];
        d->name = name;
        d->len = len;
        if (!compile_names(c, v, "dependentRequired's values", &d->required))
            return false;
        o->dependent_required_count++;
    }
    /* Definitions are compiled so that pointers to them find a node. */
    static const char *const defs[] = {"$defs", "definitions"};
    for (int k = 0; k < 2; k++) {
        const mcp_json *d = mcp_json_object_get(j, defs[k]);
        for (size_t i = 0; i < mcp_json_object_size(d); i++)
            if (!compile(c, mcp_json_object_at(d, i, NULL, NULL), base, depth + 1))
                return false;
    }
    return c->rc == MCP_OK;
}

static bool compile_arrays(compiler *c, node *n, array_rules *a, const mcp_json *j,
                           const char *base, unsigned depth)
{
    const mcp_json *items = mcp_json_object_get(j, "items");
    if (c->draft7) {
        if (mcp_json_typeof(items) == MCP_JSON_ARRAY) {
            if (!compile_list(c, j, "items", base, depth, &a->prefix_items))
                return false;
            a->items = sub(c, j, "additionalItems", base, depth);
        } else {
            a->items = sub(c, j, "items", base, depth);
        }
    } else {
        if (!compile_list(c, j, "prefixItems", base, depth, &a->prefix_items))
            return false;
        a->items = sub(c, j, "items", base, depth);
        n->unevaluated_items = sub(c, j, "unevaluatedItems", base, depth);
    }
    a->contains = sub(c, j, "contains", base, depth);
    if (!get_count(c, j, "minItems", &a->min_items) ||
        !get_count(c, j, "maxItems", &a->max_items))
        return false;
    a->min_contains = 1;
    a->max_contains = -1;
    if (!c->draft7 && (!get_count(c, j, "minContains", &a->min_contains) ||
                       !get_count(c, j, "maxContains", &a->max_contains)))
        return false;
    if (a->min_contains < 0)
        a->min_contains = 1;
    bool unique = false;
    const mcp_json *u = mcp_json_object_get(j, "uniqueItems");
    if (u && mcp_json_get_bool(u, &unique) != MCP_OK) {
        fail(c, MCP_ERR_SCHEMA, "uniqueItems must be a boolean");
        return false;
    }
    a->unique_items = unique;
    return c->rc == MCP_OK;
}

/* ref resolved against base, in the arena; NULL on failure (said). */
__attribute__((noinline)) /* its buffer stays off the recursion's frames */
static const char *absolute_ref(compiler *c, const char *base, const char *ref)
{
    char uri[MAX_URI];
    if (!resolve_uri(base, ref, uri)) {
        fail(c, MCP_ERR_SCHEMA, "$ref too long");
        return NULL;
    }
    return copy_text(c, uri, strlen(uri));
}

static node *compile(compiler *c, const mcp_json *j, const char *base, unsigned depth)
{
    if (c->rc != MCP_OK)
        return NULL;
    node *known = mcp__map_get(&c->nodes, (uint64_t)(uintptr_t)j);
    if (known)
        return known;
    mcp_json_type jt = mcp_json_typeof(j);
    if (jt != MCP_JSON_OBJECT && jt != MCP_JSON_BOOL) {
        fail(c, MCP_ERR_SCHEMA, "a schema must be an object or a boolean");
        return NULL;
    }
    if (depth > MAX_SCHEMA_DEPTH) {
        fail(c, MCP_ERR_SCHEMA, "subschemas nested deeper than %u", MAX_SCHEMA_DEPTH);
        return NULL;
    }
    if (++c->node_count > c->s->max_nodes) {
        /* A schema from a peer (an outputSchema, a requestedSchema): 4 MB
         * of {} in an allOf made 735 MB of nodes. */
        fail(c, MCP_ERR_LIMIT, "more than %zu subschemas", c->s->max_nodes);
        return NULL;
    }
    node *n = zalloc(c, sizeof *n);
    if (!n || mcp__map_put(&c->nodes, &c->mem, (uint64_t)(uintptr_t)j, n) != MCP_OK) {
        fail(c, MCP_ERR_NOMEM, "out of memory");
        return NULL;
    }
    n->json = j;
    if (jt == MCP_JSON_BOOL) {
        bool b = false;
        mcp_json_get_bool(j, &b);
        n->boolean = b;
        return n;
    }
    n->boolean = -1;
    /* Refused rather than ignored: a constraint silently dropped would let
     * through what the schema's author meant to stop. */
    static const char *const unsupported[] = {"$dynamicRef", "$recursiveRef"};
    for (int k = 0; k < 2; k++)
        if (!c->draft7 && mcp_json_object_get(j, unsupported[k])) {
            fail(c, MCP_ERR_SCHEMA, "%s is not supported", unsupported[k]);
            return NULL;
        }
    base = enter(c, j, base);
    const char *ref = mcp_json_string(mcp_json_object_get(j, "$ref"), NULL);
    if (mcp_json_object_get(j, "$ref") && !ref) {
        fail(c, MCP_ERR_SCHEMA, "$ref must be a string");
        return NULL;
    }
    if (ref) {
        if (!(n->ref_uri = absolute_ref(c, base, ref)))
            return NULL;
        if (c->nrefs == c->cap_refs) {
            size_t cap = c->cap_refs ? c->cap_refs * 2 : 16;
            node **r = realloc(c->refs, cap * sizeof *r);
            if (!r) {
                fail(c, MCP_ERR_NOMEM, "out of memory");
                return NULL;
            }
            c->refs = r;
            c->cap_refs = cap;
        }
        c->refs[c->nrefs++] = n;
        if (c->draft7) { /* its siblings are ignored */
            n->ref_only = n->pure_ref = true;
            n->more = ~0u;
            return c->rc == MCP_OK ? n : NULL;
        }
    }
    groups *g = calloc(1, sizeof *g); /* 800 bytes: off the recursion's frames */
    if (!g) {
        fail(c, MCP_ERR_NOMEM, "out of memory");
        return NULL;
    }
    bool ok = compile_keywords(c, n, g, j, base, depth);
    free(g);
    return ok ? n : NULL;
}

/* The keywords of the object schema j, other than $ref, into n. */
static bool compile_keywords(compiler *c, node *n, groups *g, const mcp_json *j, const char *base,
                             unsigned depth)
{
    number_rules *num = &g->number;
    string_rules *str = &g->string;
    array_rules *arr = &g->array;
    object_rules *obj = &g->object;
    applicators *app = &g->apply;
    str->min_length = str->max_length = arr->min_items = arr->max_items = -1;
    obj->min_properties = obj->max_properties = arr->max_contains = -1;
    const mcp_json *t = mcp_json_object_get(j, "type");
    if (t && !compile_type(c, n, t))
        return false;
    n->const_value = mcp_json_object_get(j, "const");
    n->enum_values = mcp_json_object_get(j, "enum");
    if (n->enum_values && mcp_json_typeof(n->enum_values) != MCP_JSON_ARRAY) {
        fail(c, MCP_ERR_SCHEMA, "enum must be an array");
        return false;
    }
    if (!get_bound(c, j, "minimum", N_MIN, num, &num->min) ||
        !get_bound(c, j, "maximum", N_MAX, num, &num->max) ||
        !get_bound(c, j, "multipleOf", N_MULTIPLE, num, &num->multiple))
        return false;
    if ((num->has & N_MULTIPLE) && !(num->multiple.d > 0)) {
        fail(c, MCP_ERR_SCHEMA, "multipleOf must be greater than 0");
        return false;
    }
    if (!get_bound(c, j, "exclusiveMinimum", N_XMIN, num, &num->xmin) ||
        !get_bound(c, j, "exclusiveMaximum", N_XMAX, num, &num->xmax))
        return false;
    if (!get_count(c, j, "minLength", &str->min_length) ||
        !get_count(c, j, "maxLength", &str->max_length) ||
        !get_count(c, j, "minProperties", &obj->min_properties) ||
        !get_count(c, j, "maxProperties", &obj->max_properties))
        return false;
    const mcp_json *pattern = mcp_json_object_get(j, "pattern");
    if (pattern) {
        size_t len;
        if (!(str->pattern_source = mcp_json_string(pattern, &len))) {
            fail(c, MCP_ERR_SCHEMA, "pattern must be a string");
            return false;
        }
        if (!compile_pattern(c, str->pattern_source, len, &str->pattern, &str->fast))
            return false;
    }
    const mcp_json *required = mcp_json_object_get(j, "required");
    if (required && !compile_names(c, required, "required", &obj->required))
        return false;
    if (!compile_maps(c, obj, j, base, depth) || !compile_arrays(c, n, arr, j, base, depth) ||
        !required_properties(c, obj))
        return false;
    obj->additional_properties = sub(c, j, "additionalProperties", base, depth);
    obj->property_names = sub(c, j, "propertyNames", base, depth);
    if (!c->draft7)
        n->unevaluated_properties = sub(c, j, "unevaluatedProperties", base, depth);
    if (!compile_list(c, j, "allOf", base, depth, &app->all_of) ||
        !compile_list(c, j, "anyOf", base, depth, &app->any_of) ||
        !compile_list(c, j, "oneOf", base, depth, &app->one_of))
        return false;
    app->not_schema = sub(c, j, "not", base, depth);
    app->if_schema = sub(c, j, "if", base, depth);
    app->then_schema = sub(c, j, "then", base, depth);
    app->else_schema = sub(c, j, "else", base, depth);
    n->annotations = n->unevaluated_properties || n->unevaluated_items;
    if (c->rc != MCP_OK)
        return false;
    /* Only the groups with a keyword are kept: the validator looks at no
     * other, and a node takes the memory of those it has. */
    num->ints = !c->plain && !(num->has & ~(N_MIN | N_MAX)) &&
                (!(num->has & N_MIN) || num->min.exact) && (!(num->has & N_MAX) || num->max.exact);
    if (num->has)
        n->number = keep(c, num, sizeof *num);
    str->min_bytes = UINT64_MAX; /* no length passes at once: the rules decide */
    str->max_bytes = 0;
    if (!c->plain && !str->pattern_source) {
        /* 4 bytes at most a character: min_length characters need at
         * least 4 * min_length bytes to be sure of; max_length characters
         * fit max_length bytes */
        str->min_bytes = str->min_length < 0 ? 0
                         : (uint64_t)str->min_length > UINT64_MAX / 4 ? UINT64_MAX
                                                                      : 4 * (uint64_t)str->min_length;
        str->max_bytes = str->max_length < 0 ? UINT64_MAX : (uint64_t)str->max_length;
    }
    if (str->min_length >= 0 || str->max_length >= 0 || str->pattern_source)
        n->string = keep(c, str, sizeof *str);
    if (arr->prefix_items.count || arr->items || arr->contains || arr->min_items >= 0 ||
        arr->max_items >= 0 || arr->unique_items)
        n->array = keep(c, arr, sizeof *arr);
    obj->has = (obj->min_properties >= 0 || obj->max_properties >= 0 ? O_COUNT : 0) |
               (obj->dependent_required_count || obj->dependent_schema_count ? O_DEPENDENT : 0) |
               (obj->property_names || obj->pattern_count ? O_NAMES : 0);
    if (obj->has || obj->required.count || obj->property_count || obj->additional_properties)
        n->object = keep(c, obj, sizeof *obj);
    if (app->all_of.count || app->any_of.count || app->one_of.count || app->not_schema ||
        app->if_schema)
        n->apply = keep(c, app, sizeof *app);
    if (c->rc != MCP_OK)
        return false;
    unsigned has = (n->number ? 1u << MCP_JSON_NUMBER : 0) |
                   (n->string ? 1u << MCP_JSON_STRING : 0) |
                   (n->array ? 1u << MCP_JSON_ARRAY : 0) | (n->object ? 1u << MCP_JSON_OBJECT : 0);
    n->own = n->types || n->const_value || n->enum_values || has;
    n->pure_ref = n->ref_uri && !n->types && !n->const_value && !n->enum_values && !has &&
                  !n->annotations && !n->apply;
    n->const_only = n->const_value && !n->types && !n->enum_values && !has && !n->ref_uri &&
                    !n->annotations && !n->apply;
    if (n->ref_uri || n->annotations || n->apply || n->const_value || n->enum_values) {
        n->more = ~0u;
    } else {
        n->more = has;
        n->direct = has;
    }
    return true;
}

/* The link ------------------------------------------------------------------- */

/* The value a JSON Pointer (percent-encoded, as in a URI fragment) names. */
static const mcp_json *follow_pointer(const mcp_json *j, const char *ptr)
{
    char token[512];
    while (*ptr == '/' && j) {
        ptr++;
        size_t n = 0;
        while (*ptr && *ptr != '/' && n + 1 < sizeof token) {
            char ch = *ptr++;
            if (ch == '%' && isxdigit((unsigned char)ptr[0]) && isxdigit((unsigned char)ptr[1])) {
                char hex[3] = {ptr[0], ptr[1], 0};
                ch = (char)strtol(hex, NULL, 16);
                ptr += 2;
            } else if (ch == '~' && (*ptr == '0' || *ptr == '1')) {
                ch = *ptr++ == '0' ? '~' : '/';
            }
            token[n++] = ch;
        }
        if (*ptr && *ptr != '/')
            return NULL; /* a token too long */
        if (mcp_json_typeof(j) == MCP_JSON_ARRAY) {
            char *end;
            token[n] = '\0';
            unsigned long i = strtoul(token, &end, 10);
            j = n && *end == '\0' ? mcp_json_array_at(j, i) : NULL;
        } else {
            j = mcp_json_object_getn(j, token, n);
        }
    }
    return *ptr ? NULL : j;
}

static void link_refs(compiler *c, const char *root_base)
{
    for (size_t i = 0; i < c->nrefs && c->rc == MCP_OK; i++) {
        node *n = c->refs[i];
        const char *uri = n->ref_uri;
        const char *hash = strchr(uri, '#');
        size_t doc_len = hash ? (size_t)(hash - uri) : strlen(uri);
        char doc[MAX_URI];
        snprintf(doc, sizeof doc, "%.*s", (int)doc_len, uri);
        const mcp_json *target = NULL;
        const char *base = root_base;
        uri_entry *e = find_uri(c, doc);
        const mcp_json *resource = e ? e->json : !strcmp(doc, root_base) ? c->s->root->json : NULL;
        if (e)
            base = e->base;
        if (!resource) {
            fail(c, scheme_length(doc) || doc[0] ? MCP_ERR_SCHEMA_REMOTE : MCP_ERR_SCHEMA,
                 "$ref %s names another document (nothing is fetched)", uri);
            return;
        }
        if (!hash || !hash[1])
            target = resource;
        else if (hash[1] == '/')
            target = follow_pointer(resource, hash + 1);
        else {
            uri_entry *a = find_uri(c, uri);
            target = a ? a->json : NULL;
        }
        if (!target) {
            fail(c, MCP_ERR_SCHEMA, "$ref %s names nothing in the schema", uri);
            return;
        }
        n->ref = compile(c, target, base, 0);
    }
}

/* Public --------------------------------------------------------------------- */

static mcp_schema_dialect dialect_of(const mcp_json *schema, mcp_schema_dialect asked)
{
    if (asked != MCP_SCHEMA_DIALECT_AUTO)
        return asked;
    const char *decl = mcp_json_string(mcp_json_object_get(schema, "$schema"), NULL);
    /* Draft-04 and -06 read as draft-07, their nearest: a draft-04
     * boolean exclusiveMaximum is then refused, not ignored. */
    if (decl && (strstr(decl, "draft-07") || strstr(decl, "draft-06") ||
                 strstr(decl, "draft-04") || strstr(decl, "draft-03")))
        return MCP_SCHEMA_DIALECT_DRAFT_07;
    return MCP_SCHEMA_DIALECT_2020_12;
}

int mcp_schema_compile(const mcp_json *schema, const mcp_schema_options *options,
                       mcp_schema **out, char *why, size_t why_len)
{
    return mcp__schema_compile(schema, options, false, out, why, why_len);
}

int mcp__schema_compile(const mcp_json *schema, const mcp_schema_options *options, bool plain,
                        mcp_schema **out, char *why, size_t why_len)
{
    mcp_schema_options o;
    if (why && why_len)
        why[0] = '\0';
    if (!schema || !out || mcp__opts_copy(&o, sizeof o, options) != MCP_OK ||
        o.dialect > MCP_SCHEMA_DIALECT_DRAFT_07 || o.max_depth > MAX_EVAL_DEPTH)
        return MCP_ERR_INVALID_ARG;
    *out = NULL;
    mcp_schema *s = calloc(1, sizeof *s);
    if (!s)
        return MCP_ERR_NOMEM;
    mcp__arena_init(&s->arena, NULL, 4096);
    s->dialect = dialect_of(schema, o.dialect);
    s->max_depth = o.max_depth ? o.max_depth : DEFAULT_MAX_DEPTH;
    s->max_steps = o.max_steps ? o.max_steps : DEFAULT_MAX_STEPS;
    s->max_nodes = o.max_subschemas ? o.max_subschemas : DEFAULT_MAX_NODES;
    compiler c = {.s = s, .draft7 = s->dialect == MCP_SCHEMA_DIALECT_DRAFT_07, .plain = plain,
                  .rc = MCP_OK, .why = why, .why_len = why_len};
    mcp__mem_init(&c.mem, NULL);
    s->doc = mcp_json_doc_new(NULL);
    s->match_context = pcre2_match_context_create(NULL);
    const mcp_json *copy = s->doc ? mcp_json_copy(s->doc, schema) : NULL;
    if (!copy || !s->match_context || mcp_json_doc_error(s->doc) != MCP_OK) {
        mcp_schema_free(s);
        return MCP_ERR_NOMEM;
    }
    mcp_json_doc_set_root(s->doc, (mcp_json *)copy);
    /* A hostile pattern must not cost seconds per string. */
    pcre2_set_match_limit(s->match_context, 100000);
    pcre2_set_depth_limit(s->match_context, 10000); /* the interpreter's backtracking */
    const char *root_base = "";
    if (mcp_json_typeof(copy) == MCP_JSON_OBJECT) {
        const char *id = mcp_json_string(mcp_json_object_get(copy, "$id"), NULL);
        char uri[MAX_URI];
        if (id && id[0] != '#' && resolve_uri("", id, uri))
            root_base = copy_text(&c, uri, strlen(uri));
    }
    scan(&c, copy, root_base ? root_base : "", 0);
    s->root = compile(&c, copy, "", 0);
    if (c.rc == MCP_OK)
        link_refs(&c, root_base ? root_base : "");
    free(c.refs);
    mcp__map_free(&c.nodes, &c.mem);
    mcp__map_free(&c.uri_map, &c.mem);
    if (c.rc != MCP_OK) {
        mcp_schema_free(s);
        return c.rc;
    }
    *out = s;
    return MCP_OK;
}

mcp_schema_dialect mcp_schema_dialect_of(const mcp_schema *s)
{
    return s ? s->dialect : MCP_SCHEMA_DIALECT_AUTO;
}

void mcp_schema_free(mcp_schema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->pattern_count; i++)
        pcre2_code_free(s->patterns[i]);
    free(s->patterns);
    pcre2_match_context_free(s->match_context);
    mcp_json_doc_free(s->doc);
    mcp__arena_release(&s->arena);
    free(s);
}
