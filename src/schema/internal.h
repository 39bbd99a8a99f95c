/* SPDX-License-Identifier: MIT */
/*
 * A compiled schema is a graph of nodes, one per subschema, in one arena:
 * every keyword read and checked once, numbers read once, patterns
 * compiled, $ref resolved to the node it names (cycles allowed: the
 * validator's depth bound ends a loop that consumes nothing).
 *
 * A node's keywords are grouped by the instance type they apply to (a
 * number's, a string's, an array's, an object's) and the applicators; a
 * group none of whose keywords the schema has is NULL, so validating
 * touches only the keywords a schema has, and only those of the
 * instance's type.
 */
#ifndef MCP_SCHEMA_INTERNAL_H
#define MCP_SCHEMA_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "mcp/schema.h"

/* Type bits of the `type` keyword. */
enum {
    T_NULL = 1 << 0,
    T_BOOLEAN = 1 << 1,
    T_OBJECT = 1 << 2,
    T_ARRAY = 1 << 3,
    T_NUMBER = 1 << 4,
    T_STRING = 1 << 5,
    T_INTEGER = 1 << 6
};

typedef struct node node;

/* decimal.c: numbers by their decimal text, exactly. A number read once:
 * value = 0.d1d2d3... x 10^point, the significant digits d taken from the
 * text between first and last (skipping its '.'); count 0 is zero. */
typedef struct mcp__decimal {
    const char *text;
    int64_t point;        /* saturated */
    uint32_t first, last; /* offsets of the first and last significant digit
                             (a number's text is at most 4 GiB: mcp_json) */
    uint32_t count;       /* significant digits */
    bool negative;
} mcp__decimal;

void mcp__decimal_read(const mcp_json *v, mcp__decimal *d);
int mcp__decimal_cmp(const mcp__decimal *a, const mcp__decimal *b); /* -1, 0, 1 */
/* v = whole + a fraction of the sign *fraction (0: none), when v has no
 * exponent and at most 18 digits before its '.'; else false. */
bool mcp__decimal_whole(const mcp_json *v, int64_t *whole, int *fraction);
uint64_t mcp__decimal_hash(const mcp_json *v); /* equal values, equal hash */
bool mcp__decimal_is_integer(const mcp_json *v);
/* Whether x is a multiple of m (m > 0): 1, 0, -1 undecided (m has more
 * than 18 significant digits). */
int mcp__decimal_multiple(const mcp__decimal *x, const mcp__decimal *m);

/* pattern.c: the patterns most schemas have (a sequence of ASCII sets,
 * each maybe repeated, between an optional ^ and $), matched without
 * PCRE2. */
typedef struct mcp__pattern mcp__pattern;
/* NULL when src is not such a pattern (or out of memory): PCRE2 runs it. */
const mcp__pattern *mcp__pattern_compile(mcp__arena *arena, const char *src, size_t len);
bool mcp__pattern_match(const mcp__pattern *p, const char *s, size_t len);

typedef struct named_node { /* properties, dependentSchemas */
    const char *name;
    size_t len;
    node *schema;
    uint32_t declared; /* its place in the schema's object */
} named_node;

typedef struct pattern_node { /* patternProperties */
    pcre2_code *re;
    const mcp__pattern *fast; /* instead of re */
    const char *source;
    node *schema;
} pattern_node;

typedef struct name_list { /* required, dependentRequired's values */
    const char **names;
    size_t *lens;
    size_t count;
} name_list;

typedef struct dependent_names { /* dependentRequired */
    const char *name;
    size_t len;
    name_list required;
} dependent_names;

typedef struct node_list {
    node **items;
    size_t count;
} node_list;

/* A bound of the number keywords, read at compile time: exactly as an
 * integer when it is one that fits, and as a decimal otherwise. */
typedef struct bound {
    const mcp_json *value; /* in the schema's own copy */
    double d;              /* for messages */
    bool exact;            /* i is the value */
    int64_t i;
    mcp__decimal dec;
} bound;

enum { /* number_rules.has */
    N_MIN = 1 << 0,
    N_MAX = 1 << 1,
    N_XMIN = 1 << 2,
    N_XMAX = 1 << 3,
    N_MULTIPLE = 1 << 4
};

typedef struct number_rules {
    unsigned has;
    bool ints; /* only minimum and maximum, both exact: an int64 instance
                  is checked with two comparisons where it is met */
    bound min, max, xmin, xmax, multiple;
} number_rules;

typedef struct string_rules {
    int64_t min_length, max_length; /* -1: none */
    uint64_t min_bytes, max_bytes;  /* without a pattern: a length in bytes
                                       within these passes at once (a
                                       character is 1 to 4 bytes) */
    pcre2_code *pattern;
    const mcp__pattern *fast; /* instead of pattern */
    const char *pattern_source;
} string_rules;

typedef struct array_rules {
    int64_t min_items, max_items, min_contains, max_contains;
    bool unique_items;
    node_list prefix_items; /* prefixItems, or draft-07's array of items */
    node *items;            /* the items after them (2020-12 items,
                               draft-07 items object or additionalItems) */
    node *contains;
} array_rules;

/* properties by name: buckets of PROP_BUCKET slots, each a hash of the
 * name (name_hash) and the property's index + 1 (0: free). A schema whose
 * names crowd one bucket gets none (the binary search serves). */
#define PROP_BUCKET 4
typedef struct prop_slot {
    uint32_t hash, index;
} prop_slot;

enum { /* object_rules.has: what most objects' schemas do not have */
    O_COUNT = 1 << 0,     /* minProperties, maxProperties */
    O_DEPENDENT = 1 << 1, /* dependentRequired, dependentSchemas */
    O_NAMES = 1 << 2      /* propertyNames, patternProperties */
};

typedef struct object_rules {
    unsigned has;
    int64_t min_properties, max_properties; /* -1: none */
    name_list required;
    int32_t *required_property; /* per required name, its index in
                                   properties or -1; NULL: not known */
    named_node *properties; /* sorted by length, then bytes */
    size_t property_count;
    prop_slot *slots;       /* NULL: search properties */
    uint32_t bucket_mask;
    /* Members come in the order the schema declares its properties, most
     * often (the instance made from the schema): the property declared
     * after the one a member was is tried first for the next member.
     * next_declared[i] is the index of the property declared after
     * properties[i] (property_count after the last); NULL: not tried. */
    uint32_t *next_declared;
    uint32_t first_declared;
    pattern_node *pattern_properties;
    size_t pattern_count;
    node *additional_properties, *property_names;
    dependent_names *dependent_required;
    size_t dependent_required_count;
    named_node *dependent_schemas;
    size_t dependent_schema_count;
} object_rules;

typedef struct applicators { /* the in-place ones */
    node_list all_of, any_of, one_of;
    node *not_schema, *if_schema, *then_schema, *else_schema;
} applicators;

struct node {
    const mcp_json *json; /* in the schema's own copy */
    int boolean;          /* -1: an object schema; 0 false; 1 true */
    bool annotations;     /* unevaluated* here: evaluation is tracked */
    bool ref_only;        /* draft-07: $ref's siblings are ignored */
    unsigned types;       /* 0: any */
    unsigned more;        /* bit t (an mcp_json_type): an instance of type t
                             needs more than the type keyword checked */
    bool own;             /* type, const, enum or a group */
    bool const_only;      /* const and no other keyword */
    bool pure_ref;        /* $ref and no other keyword (draft-07: any $ref) */
    unsigned direct;      /* bit t: for an instance of type t, only the
                             type and that type's group of keywords (no
                             $ref, applicators, unevaluated*, const, enum) */
    const mcp_json *const_value, *enum_values;
    node *ref;            /* resolved */
    const char *ref_uri;  /* absolute, to resolve once all is compiled */
    /* NULL when the schema has none of the group's keywords: */
    const number_rules *number;
    const string_rules *string;
    const array_rules *array;
    const object_rules *object;
    const applicators *apply;
    node *unevaluated_properties, *unevaluated_items;
};

/* A property name's hash for object_rules.slots: its length and its first
 * and last eight bytes, mixed. Not keyed: a schema whose names collide
 * only loses the index (compile.c checks every bucket), never time. */
static inline uint32_t mcp__name_hash(const char *k, size_t len)
{
    uint64_t a = 0, b = 0;
    if (len >= 8) {
        memcpy(&a, k, 8);
        memcpy(&b, k + len - 8, 8);
    } else if (len >= 4) {
        uint32_t x, y;
        memcpy(&x, k, 4);
        memcpy(&y, k + len - 4, 4);
        a = x;
        b = y;
    } else if (len) {
        a = (unsigned char)k[0] | (uint64_t)(unsigned char)k[len / 2] << 8 |
            (uint64_t)(unsigned char)k[len - 1] << 16;
    }
    uint64_t h = (a ^ 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull ^
                 (b + len) * 0x94D049BB133111EBull;
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

struct mcp_schema {
    mcp__arena arena;
    mcp_json_doc *doc; /* the copy the nodes point into */
    node *root;
    mcp_schema_dialect dialect;
    unsigned max_depth;
    uint64_t max_steps;
    size_t max_nodes;
    pcre2_match_context *match_context;
    pcre2_code **patterns; /* every compiled pattern, to free */
    size_t pattern_count, pattern_cap;
};

/* mcp_schema_compile, or with plain, without what makes validation fast
 * (every pattern through PCRE2, properties by binary search, numbers by
 * their decimal text): the answer must be the same, which the fuzzer and
 * the tests check. */
int mcp__schema_compile(const mcp_json *schema, const mcp_schema_options *options, bool plain,
                        mcp_schema **out, char *why, size_t why_len);

#endif
