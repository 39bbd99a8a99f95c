/* SPDX-License-Identifier: MIT */
/*
 * JSON Schema validation: a schema is compiled once (a tool's inputSchema
 * at registration, an elicitation's requestedSchema when it arrives) and
 * then validates any number of instances, from any number of threads.
 *
 * Dialects: 2020-12 (the default, and MCP's) and draft-07 (what many
 * existing tool schemas declare, and what the JSON Schema Test Suite in
 * Debian covers). The keywords of the validation vocabulary and the
 * applicators, $ref/$defs/definitions/$anchor/$id within the document,
 * unevaluatedProperties/unevaluatedItems. A $ref outside the document is
 * refused at compile time (MCP_ERR_SCHEMA_REMOTE): nothing is fetched.
 * `format` is an annotation (not asserted), as both dialects say by default.
 * `pattern` and `patternProperties` are ECMA-262 regular expressions, run
 * by PCRE2 with a bounded match effort.
 */
#ifndef MCP_SCHEMA_H
#define MCP_SCHEMA_H

#include "mcp/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_schema mcp_schema;

typedef enum mcp_schema_dialect {
    MCP_SCHEMA_DIALECT_AUTO = 0, /* from the root's $schema; 2020-12 without one */
    MCP_SCHEMA_DIALECT_2020_12,
    MCP_SCHEMA_DIALECT_DRAFT_07
} mcp_schema_dialect;

typedef struct mcp_schema_options {
    size_t size;                /* sizeof(mcp_schema_options) */
    mcp_schema_dialect dialect; /* overrides $schema when set */
    unsigned max_depth;         /* nested schema evaluations (a $ref loop
                                   that consumes nothing ends here); 0: 256;
                                   at most 2048 (about 1 MiB of stack) */
    uint64_t max_steps;         /* schema evaluations in one validation (an
                                   anyOf of anyOfs doubles the work per
                                   level); 0: 1,000,000, about 0.1 s */
    size_t max_subschemas;      /* in the schema: past it, MCP_ERR_LIMIT (a
                                   peer's 4 MB schema must not cost 700 MB);
                                   0: 20,000 (compiled, measured: about
                                   2.5 to 3 MB, 10 MB when each one has
                                   a pattern of its own) */
} mcp_schema_options;

/* Why an instance failed: the first failure found. */
typedef struct mcp_schema_error {
    char instance_path[256]; /* JSON Pointer of the failing value ("" is the
                                root); a longer one ends with "..." */
    char keyword[32];        /* the keyword that failed: "minimum", "type" */
    char message[256];       /* what it asked, e.g. "must be >= 18" */
} mcp_schema_error;

/*
 * mcp_schema_compile: compile schema (an object or a boolean) into *out.
 * The schema is copied: the caller's document may be freed at once.
 * Returns MCP_OK; MCP_ERR_SCHEMA (not a valid schema: a keyword of the
 * wrong type, a bad regular expression, a $ref to nothing), why says
 * which (NUL-terminated, cut to why_len; why may be NULL);
 * MCP_ERR_SCHEMA_REMOTE (a $ref to another document); MCP_ERR_INVALID_ARG
 * (schema or out NULL, options of an unknown size, an unknown dialect,
 * max_depth over 2048); MCP_ERR_LIMIT (more than max_subschemas);
 * MCP_ERR_NOMEM. $dynamicRef and $recursiveRef are
 * refused (MCP_ERR_SCHEMA) rather than ignored. Any thread.
 */
MCP_EXTERN int mcp_schema_compile(const mcp_json *schema, const mcp_schema_options *options,
                                  mcp_schema **out, char *why, size_t why_len);

/*
 * mcp_schema_validate: whether instance satisfies s. MCP_OK; or
 * MCP_ERR_SCHEMA_MISMATCH, with err (may be NULL) filled; MCP_ERR_LIMIT
 * (max_depth or max_steps reached: a $ref loop, absurd nesting, a schema
 * whose work grows exponentially; or a pattern whose match went past its
 * effort bound) and MCP_ERR_NOMEM, also with err filled: the instance is
 * not known to be valid. Fields of err are valid UTF-8. instance
 * NULL is MCP_ERR_INVALID_ARG. Any thread, concurrently on one schema.
 */
MCP_EXTERN int mcp_schema_validate(const mcp_schema *s, const mcp_json *instance,
                                   mcp_schema_error *err);

/* The dialect s was compiled in. */
MCP_EXTERN mcp_schema_dialect mcp_schema_dialect_of(const mcp_schema *s);

/* Free s (NULL is fine). No validation of s may be running. */
MCP_EXTERN void mcp_schema_free(mcp_schema *s);

#ifdef __cplusplus
}
#endif

#endif
