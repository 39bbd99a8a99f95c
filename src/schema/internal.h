/* SPDX-License-Identifier: MIT */
/*
 * A compiled schema is a graph of nodes, one per subschema, in one arena:
 * every keyword read and checked once, numbers as doubles, patterns
 * compiled, $ref resolved to the node it names (cycles allowed: the
 * validator's depth bound ends a loop that consumes nothing).
 */
#ifndef MCP_SCHEMA_INTERNAL_H
#define MCP_SCHEMA_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stdint.h>

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

typedef struct named_node { /* properties, dependentSchemas */
    const char *name;
    size_t len;
    node *schema;
} named_node;

typedef struct pattern_node { /* patternProperties */
    pcre2_code *re;
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

struct node {
    const mcp_json *json; /* in the schema's own copy */
    int boolean;          /* -1: an object schema; 0 false; 1 true */
    bool annotations;     /* unevaluated* here: evaluation is tracked */
    unsigned types;       /* 0: any */
    const mcp_json *const_value, *enum_values;
    bool has_min, has_max, has_xmin, has_xmax, has_multiple;
    double min, max, xmin, xmax, multiple;
    const mcp_json *min_v, *max_v, *xmin_v, *xmax_v, *multiple_v; /* exact */
    int64_t min_length, max_length; /* -1: none */
    pcre2_code *pattern;
    const char *pattern_source;
    int64_t min_items, max_items, min_contains, max_contains;
    bool unique_items;
    node_list prefix_items; /* prefixItems, or draft-07's array of items */
    node *items;            /* the items after them (2020-12 items,
                               draft-07 items object or additionalItems) */
    node *contains;
    node *unevaluated_items;
    int64_t min_properties, max_properties;
    name_list required;
    named_node *properties;
    size_t property_count;
    pattern_node *pattern_properties;
    size_t pattern_count;
    node *additional_properties, *property_names, *unevaluated_properties;
    dependent_names *dependent_required;
    size_t dependent_required_count;
    named_node *dependent_schemas;
    size_t dependent_schema_count;
    node_list all_of, any_of, one_of;
    node *not_schema, *if_schema, *then_schema, *else_schema;
    node *ref;               /* resolved */
    const char *ref_uri;     /* absolute, to resolve once all is compiled */
    bool ref_only;           /* draft-07: $ref's siblings are ignored */
};

/* decimal.c: numbers by their decimal text, exactly. */
int mcp__decimal_compare(const mcp_json *a, const mcp_json *b); /* -1, 0, 1 */
uint64_t mcp__decimal_hash(const mcp_json *v);                 /* equal values, equal hash */
bool mcp__decimal_is_integer(const mcp_json *v);
int mcp__decimal_multiple(const mcp_json *x, const mcp_json *m); /* 1, 0, -1 undecided */

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

#endif
