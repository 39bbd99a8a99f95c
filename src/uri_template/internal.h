/* SPDX-License-Identifier: MIT */
/*
 * A parsed URI template, kept twice over: as the RFC's parts (literals and
 * expressions of varspecs) for expansion, and as a chain of matching atoms
 * (literals to find, value runs, lists) plus a query tail for matching.
 * Everything lives in one arena, freed at once.
 */
#ifndef MCP_URI_TEMPLATE_INTERNAL_H
#define MCP_URI_TEMPLATE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "mcp/uri_template.h"

enum ut_op { OP_NONE, OP_PLUS, OP_HASH, OP_DOT, OP_SLASH, OP_SEMI, OP_QUERY, OP_AMP };

/* RFC 6570 appendix A's table, one row per operator. */
typedef struct ut_op_info {
    char first;         /* written before the first defined value, 0: none */
    char sep;           /* between values and between exploded items */
    bool named;         /* name=value */
    const char *ifemp;  /* after the name of an empty value */
    bool reserved;      /* the reserved characters pass unencoded */
} ut_op_info;

extern const ut_op_info mcp__ut_ops[8];

typedef struct ut_spec {
    const char *name; /* NUL-terminated copy, as written */
    uint32_t name_len;
    uint16_t prefix;  /* 0: none */
    bool explode;
    uint32_t var;     /* index of the distinct name */
} ut_spec;

typedef struct ut_part {
    bool is_expr;
    uint8_t op;          /* expressions */
    uint32_t first, n;   /* expressions: specs[first .. first + n) */
    uint32_t off, len;   /* literals: bytes of text */
} ut_part;

/* A literal to find in the normalised URI, with its KMP failure table. */
typedef struct ut_lit {
    uint32_t off, len; /* in pool / fail */
} ut_lit;

enum ut_atom_kind {
    A_LIT,   /* literal text, exactly */
    A_VAR,   /* a value: a run of units of its class */
    A_EQVAL, /* a named value after its name: nothing, or '=' and a run */
    A_NLIST  /* an exploded named list: name[=value] items, sep between */
};

enum ut_class { CL_U, CL_UR }; /* unreserved; unreserved + reserved */

typedef struct ut_atom {
    uint8_t kind;
    uint8_t cls;
    char sep;          /* A_VAR: list separator (also allowed in the run);
                          A_NLIST: item separator; 0: a single value */
    bool nonempty;     /* A_VAR */
    uint16_t maxchars; /* prefix; 0: none */
    uint32_t spec;     /* A_VAR, A_EQVAL, A_NLIST */
    ut_lit lit;        /* A_LIT: the text; A_NLIST: the name */
} ut_atom;

/* A variable of the query tail (one per distinct name). */
typedef struct ut_tail {
    ut_lit name; /* normalised */
    bool explode;
    uint16_t maxchars;
    uint32_t spec;
} ut_tail;

struct mcp_uri_template {
    mcp__arena arena; /* first member: the template lives in its own arena */
    char *text;
    size_t len;
    size_t max_uri;

    ut_spec *specs;
    uint32_t nspecs;
    ut_part *parts;
    uint32_t nparts;

    const char **var_names; /* distinct, in order of first appearance */
    uint32_t *var_lens;
    uint32_t nvars;

    ut_atom *atoms; /* the positional part, in order */
    uint32_t natoms;
    ut_tail *tail;  /* the trailing ? and & expressions */
    uint32_t ntail;
    char *pool;     /* normalised literal bytes of the atoms and the tail */
    int32_t *fail;  /* KMP failure function, aligned with pool */
};

static inline bool mcp__ut_hex(unsigned c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static inline unsigned mcp__ut_hexval(unsigned c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static inline bool mcp__ut_alnum(unsigned c)
{
    return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9');
}

/* Matching tests these once per byte and atom: bit masks, not strchr. */
static inline bool mcp__ut_unreserved(unsigned c) /* ALPHA DIGIT - . _ ~ */
{
    return c < 64 ? (0x03ff600000000000ull >> c) & 1 : c < 128 ? (0x47fffffe87fffffeull >> (c - 64)) & 1 : 0;
}

static inline bool mcp__ut_reserved(unsigned c) /* : / ? # [ ] @ ! $ & ' ( ) * + , ; = */
{
    return c < 64 ? (0xac009fda00000000ull >> c) & 1 : c < 128 ? (0x28000001ull >> (c - 64)) & 1 : 0;
}

/*
 * The comparison form of URI text (header: RFC 3986 6.2.2): a
 * percent-encoded unreserved or non-ASCII octet is decoded, other encoded
 * octets get upper-case hex, everything else is copied. out has room for
 * len bytes (the form is never longer). Returns its length.
 */
size_t mcp__ut_normalize(const char *in, size_t len, char *out);

#endif
