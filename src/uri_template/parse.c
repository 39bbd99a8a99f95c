/* SPDX-License-Identifier: MIT */
/*
 * RFC 6570 section 2's grammar, strictly: a template a peer publishes is
 * parsed by other SDKs too, and one that only we accept would route
 * differently there. Then the two forms of internal.h are built.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "core/opts.h"
#include "uri_template/internal.h"

#define MAX_LENGTH_CEILING ((size_t)64 << 10)
#define MAX_VARIABLES_CEILING 256u
#define MAX_URI_CEILING ((size_t)1 << 20)

const ut_op_info mcp__ut_ops[8] = {
    [OP_NONE] = {0, ',', false, "", false},
    [OP_PLUS] = {0, ',', false, "", true},
    [OP_HASH] = {'#', ',', false, "", true},
    [OP_DOT] = {'.', '.', false, "", false},
    [OP_SLASH] = {'/', '/', false, "", false},
    [OP_SEMI] = {';', ';', true, "", false},
    [OP_QUERY] = {'?', '&', true, "=", false},
    [OP_AMP] = {'&', '&', true, "=", false},
};

size_t mcp__ut_normalize(const char *in, size_t len, char *out)
{
    static const char upper[] = "0123456789ABCDEF";
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)in[i];
        if (c == '%' && i + 2 < len && mcp__ut_hex((unsigned char)in[i + 1]) &&
            mcp__ut_hex((unsigned char)in[i + 2])) {
            unsigned d = mcp__ut_hexval((unsigned char)in[i + 1]) << 4 |
                         mcp__ut_hexval((unsigned char)in[i + 2]);
            if (d >= 0x80 || mcp__ut_unreserved(d)) {
                out[o++] = (char)d;
            } else {
                out[o++] = '%';
                out[o++] = upper[d >> 4];
                out[o++] = upper[d & 15];
            }
            i += 3;
        } else {
            out[o++] = (char)c;
            i++;
        }
    }
    return o;
}

typedef struct parser {
    mcp_uri_template *t;
    const unsigned char *s;
    size_t n;
    char *why;
    size_t why_len;
    unsigned max_vars;
    uint32_t specs_cap;
    uint32_t pool_len;
    uint32_t pending; /* start of the literal being gathered in the pool */
    char shown[16];
} parser;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(parser *p, int rc, const char *fmt, ...)
{
    if (p->why && p->why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->why, p->why_len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* A byte as a reader would name it: 'x', or its hex for the invisible. */
static const char *show(parser *p, unsigned c)
{
    if (c > 0x20 && c < 0x7F)
        snprintf(p->shown, sizeof p->shown, "'%c'", (char)c);
    else
        snprintf(p->shown, sizeof p->shown, "byte 0x%02X", c);
    return p->shown;
}

/* RFC 6570 2.1: any character but CTL, SP, DQUOTE, "'", "%" (outside a
 * triplet), "<", ">", "\", "^", "`", "{", "|", "}". */
static bool literal_ascii(unsigned c)
{
    return c > 0x20 && c < 0x7F && !strchr("\"'%<>\\^`{|}", (int)c);
}

/* ucschar and iprivate (RFC 3987): what an IRI may hold unencoded. */
static bool literal_code_point(uint32_t cp)
{
    if (cp < 0x10000)
        return (cp >= 0xA0 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFDCF) ||
               (cp >= 0xFDF0 && cp <= 0xFFEF);
    if ((cp & 0xFFFF) > 0xFFFD)
        return false;
    return cp < 0xE0000 || cp >= 0xE1000;
}

/* The code point at s (valid UTF-8 already checked) and its length. */
static uint32_t decode_utf8(const unsigned char *s, size_t *k)
{
    if (s[0] < 0xE0) {
        *k = 2;
        return (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
    }
    if (s[0] < 0xF0) {
        *k = 3;
        return (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
    }
    *k = 4;
    return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 |
           (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
}

static bool triplet_at(const parser *p, size_t i)
{
    return i + 2 < p->n && p->s[i] == '%' && mcp__ut_hex(p->s[i + 1]) && mcp__ut_hex(p->s[i + 2]);
}

static bool varchar_at(const parser *p, size_t i)
{
    return i < p->n && (mcp__ut_alnum(p->s[i]) || p->s[i] == '_' || triplet_at(p, i));
}

static int parse_literal(parser *p, size_t *pos)
{
    size_t i = *pos, start = i;
    while (i < p->n && p->s[i] != '{') {
        unsigned c = p->s[i];
        if (c == '}')
            return fail(p, MCP_ERR_INVALID_ARG, "'}' at byte %zu closes no expression", i);
        if (c == '%') {
            if (!triplet_at(p, i))
                return fail(p, MCP_ERR_INVALID_ARG, "'%%' at byte %zu is not followed by two hex digits",
                            i);
            i += 3;
        } else if (c < 0x80) {
            if (!literal_ascii(c))
                return fail(p, MCP_ERR_INVALID_ARG,
                            "%s at byte %zu is not allowed in a literal (no space, control "
                            "character, \" ' < > \\ ^ ` |)",
                            show(p, c), i);
            i++;
        } else {
            size_t k;
            uint32_t cp = decode_utf8(p->s + i, &k);
            if (!literal_code_point(cp))
                return fail(p, MCP_ERR_INVALID_ARG, "U+%04X at byte %zu is not allowed in a literal",
                            (unsigned)cp, i);
            i += k;
        }
    }
    ut_part *part = &p->t->parts[p->t->nparts++];
    *part = (ut_part){.is_expr = false, .off = (uint32_t)start, .len = (uint32_t)(i - start)};
    *pos = i;
    return MCP_OK;
}

static int unclosed(parser *p, size_t open)
{
    return fail(p, MCP_ERR_INVALID_ARG, "the '{' at byte %zu is never closed", open);
}

static int parse_varspec(parser *p, size_t open, size_t *pos)
{
    size_t j = *pos, ns = j;
    for (;;) {
        if (j >= p->n)
            return unclosed(p, open);
        unsigned c = p->s[j];
        if (mcp__ut_alnum(c) || c == '_') {
            j++;
        } else if (c == '%') {
            if (!triplet_at(p, j))
                return fail(p, MCP_ERR_INVALID_ARG, "'%%' at byte %zu is not followed by two hex digits",
                            j);
            j += 3;
        } else if (c == '.' && j > ns && varchar_at(p, j + 1)) {
            j++;
        } else {
            break;
        }
    }
    unsigned c = p->s[j];
    if (j == ns) {
        if (c == '}' || c == ',')
            return fail(p, MCP_ERR_INVALID_ARG, "empty variable name at byte %zu", j);
        return fail(p, MCP_ERR_INVALID_ARG, "%s at byte %zu cannot start a variable name",
                    show(p, c), j);
    }
    if (c == '.')
        return fail(p, MCP_ERR_INVALID_ARG,
                    "a variable name cannot end with '.' or hold \"..\" (byte %zu)", j);
    size_t name_end = j;
    unsigned prefix = 0;
    bool explode = false;
    if (c == ':') {
        size_t d = ++j;
        while (j < p->n && p->s[j] >= '0' && p->s[j] <= '9' && j - d < 5)
            prefix = prefix * 10 + (p->s[j++] - '0');
        if (j == d || p->s[d] == '0')
            return fail(p, MCP_ERR_INVALID_ARG,
                        "the prefix at byte %zu is not a length from 1 to 9999", d - 1);
        if (prefix > 9999)
            return fail(p, MCP_ERR_INVALID_ARG, "the prefix at byte %zu is over 9999", d - 1);
        if (j < p->n && p->s[j] == '*')
            return fail(p, MCP_ERR_INVALID_ARG,
                        "a variable cannot take both a prefix and '*' (byte %zu)", j);
    } else if (c == '*') {
        explode = true;
        j++;
    }
    mcp_uri_template *t = p->t;
    if (t->nspecs >= p->max_vars)
        return fail(p, MCP_ERR_LIMIT, "more than %u variable references", p->max_vars);
    if (t->nspecs >= p->specs_cap) /* the count of '{' and ',' bounds it */
        return fail(p, MCP_ERR_INVALID_ARG, "internal: variable count");
    size_t name_len = name_end - ns;
    char *name = mcp__arena_alloc(&t->arena, name_len + 1);
    if (!name)
        return MCP_ERR_NOMEM;
    memcpy(name, p->s + ns, name_len);
    name[name_len] = '\0';
    t->specs[t->nspecs++] = (ut_spec){.name = name, .name_len = (uint32_t)name_len,
                                      .prefix = (uint16_t)prefix, .explode = explode};
    *pos = j;
    return MCP_OK;
}

static int parse_expression(parser *p, size_t *pos)
{
    size_t open = *pos, j = open + 1;
    if (j >= p->n)
        return unclosed(p, open);
    uint8_t op = OP_NONE;
    unsigned c = p->s[j];
    switch (c) {
    case '+': op = OP_PLUS; break;
    case '#': op = OP_HASH; break;
    case '.': op = OP_DOT; break;
    case '/': op = OP_SLASH; break;
    case ';': op = OP_SEMI; break;
    case '?': op = OP_QUERY; break;
    case '&': op = OP_AMP; break;
    case '=': case ',': case '!': case '@': case '|':
        return fail(p, MCP_ERR_INVALID_ARG,
                    "operator '%c' at byte %zu is reserved by RFC 6570 for future extensions",
                    (char)c, j);
    case '}':
        return fail(p, MCP_ERR_INVALID_ARG, "empty expression at byte %zu", open);
    default:
        if (!varchar_at(p, j) && c != '%')
            return fail(p, MCP_ERR_INVALID_ARG,
                        "%s at byte %zu is neither an operator nor the start of a variable name",
                        show(p, c), j);
    }
    if (op != OP_NONE)
        j++;
    mcp_uri_template *t = p->t;
    uint32_t first = t->nspecs;
    for (;;) {
        int rc = parse_varspec(p, open, &j);
        if (rc != MCP_OK)
            return rc;
        if (j >= p->n)
            return unclosed(p, open);
        c = p->s[j++];
        if (c == '}')
            break;
        if (c == ',')
            continue;
        if (c == '{')
            return fail(p, MCP_ERR_INVALID_ARG,
                        "'{' at byte %zu is inside the expression opened at byte %zu", j - 1, open);
        return fail(p, MCP_ERR_INVALID_ARG,
                    "unexpected %s at byte %zu in the expression opened at byte %zu", show(p, c),
                    j - 1, open);
    }
    t->parts[t->nparts++] =
        (ut_part){.is_expr = true, .op = op, .first = first, .n = t->nspecs - first};
    *pos = j;
    return MCP_OK;
}

static int name_variables(parser *p)
{
    mcp_uri_template *t = p->t;
    t->var_names = mcp__arena_alloc(&t->arena, (t->nspecs + 1) * sizeof *t->var_names);
    t->var_lens = mcp__arena_alloc(&t->arena, (t->nspecs + 1) * sizeof *t->var_lens);
    if (!t->var_names || !t->var_lens)
        return MCP_ERR_NOMEM;
    /* Quadratic, but in at most 256 references. */
    for (uint32_t i = 0; i < t->nspecs; i++) {
        ut_spec *s = &t->specs[i];
        uint32_t v = 0;
        while (v < t->nvars &&
               (t->var_lens[v] != s->name_len || memcmp(t->var_names[v], s->name, s->name_len)))
            v++;
        if (v == t->nvars) {
            t->var_names[v] = s->name;
            t->var_lens[v] = s->name_len;
            t->nvars++;
        }
        s->var = v;
    }
    return MCP_OK;
}

/* Matching form ----------------------------------------------------------- */

static void kmp_table(const char *pat, uint32_t len, int32_t *f)
{
    if (!len)
        return;
    f[0] = 0;
    for (uint32_t i = 1; i < len; i++) {
        int32_t q = f[i - 1];
        while (q > 0 && pat[i] != pat[q])
            q = f[q - 1];
        if (pat[i] == pat[q])
            q++;
        f[i] = q;
    }
}

static ut_lit take_lit(parser *p, uint32_t from)
{
    mcp_uri_template *t = p->t;
    ut_lit l = {.off = from, .len = p->pool_len - from};
    kmp_table(t->pool + from, l.len, t->fail + from);
    p->pending = p->pool_len;
    return l;
}

static void flush_literal(parser *p)
{
    mcp_uri_template *t = p->t;
    if (p->pool_len > p->pending)
        t->atoms[t->natoms++] = (ut_atom){.kind = A_LIT, .lit = take_lit(p, p->pending)};
}

static void append_normalized(parser *p, const char *s, size_t len)
{
    p->pool_len += (uint32_t)mcp__ut_normalize(s, len, p->t->pool + p->pool_len);
}

static int build_match(parser *p)
{
    mcp_uri_template *t = p->t;
    /* Every byte of the template goes to the pool at most once (a literal
     * or a name), plus one operator character per reference. */
    size_t pool_cap = t->len + t->nspecs + 1;
    t->pool = mcp__arena_alloc(&t->arena, pool_cap);
    t->fail = mcp__arena_alloc(&t->arena, pool_cap * sizeof *t->fail);
    t->atoms = mcp__arena_alloc(&t->arena, (2 * (size_t)t->nspecs + 1) * sizeof *t->atoms);
    t->tail = mcp__arena_alloc(&t->arena, (t->nspecs + 1) * sizeof *t->tail);
    if (!t->pool || !t->fail || !t->atoms || !t->tail)
        return MCP_ERR_NOMEM;
    uint32_t tail_first = t->nparts;
    while (tail_first > 0 && t->parts[tail_first - 1].is_expr &&
           (t->parts[tail_first - 1].op == OP_QUERY || t->parts[tail_first - 1].op == OP_AMP))
        tail_first--;
    p->pool_len = p->pending = 0;
    for (uint32_t i = 0; i < tail_first; i++) {
        const ut_part *part = &t->parts[i];
        if (!part->is_expr) {
            append_normalized(p, t->text + part->off, part->len);
            continue;
        }
        const ut_op_info *info = &mcp__ut_ops[part->op];
        for (uint32_t k = 0; k < part->n; k++) {
            uint32_t si = part->first + k;
            const ut_spec *s = &t->specs[si];
            char ch = k == 0 ? info->first : info->sep;
            if (ch)
                t->pool[p->pool_len++] = ch;
            if (info->named && !s->explode) {
                append_normalized(p, s->name, s->name_len);
                flush_literal(p);
                t->atoms[t->natoms++] = (ut_atom){.kind = A_EQVAL, .cls = CL_U,
                                                  .maxchars = s->prefix, .spec = si};
            } else if (info->named) {
                flush_literal(p);
                uint32_t from = p->pool_len;
                append_normalized(p, s->name, s->name_len);
                t->atoms[t->natoms++] = (ut_atom){.kind = A_NLIST, .cls = CL_U, .sep = info->sep,
                                                  .spec = si, .lit = take_lit(p, from)};
            } else {
                flush_literal(p);
                t->atoms[t->natoms++] = (ut_atom){
                    .kind = A_VAR, .cls = info->reserved ? CL_UR : CL_U,
                    .sep = s->explode ? info->sep : 0,
                    .nonempty = part->op == OP_NONE || part->op == OP_PLUS,
                    .maxchars = s->prefix, .spec = si};
            }
        }
    }
    flush_literal(p);
    for (uint32_t i = tail_first; i < t->nparts; i++) {
        const ut_part *part = &t->parts[i];
        for (uint32_t k = 0; k < part->n; k++) {
            uint32_t si = part->first + k;
            const ut_spec *s = &t->specs[si];
            bool seen = false;
            for (uint32_t e = 0; e < t->ntail && !seen; e++)
                seen = t->specs[t->tail[e].spec].var == s->var;
            if (seen) /* the first mention speaks for the name */
                continue;
            uint32_t from = p->pool_len;
            append_normalized(p, s->name, s->name_len);
            t->tail[t->ntail++] = (ut_tail){.name = take_lit(p, from), .explode = s->explode,
                                            .maxchars = s->prefix, .spec = si};
        }
    }
    return MCP_OK;
}

/* Public ------------------------------------------------------------------- */

int mcp_uri_template_parse(const char *tmpl, size_t len, const mcp_uri_template_options *opts,
                           const mcp_mem *mem, mcp_uri_template **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (out)
        *out = NULL;
    mcp_uri_template_options o;
    if (!out || (!tmpl && len) || mcp__opts_copy(&o, sizeof o, opts) != MCP_OK ||
        o.max_length > MAX_LENGTH_CEILING || o.max_variables > MAX_VARIABLES_CEILING ||
        o.max_uri_length > MAX_URI_CEILING)
        return MCP_ERR_INVALID_ARG;
    size_t max_length = o.max_length ? o.max_length : MCP_URI_TEMPLATE_DEFAULT_MAX_LENGTH;
    parser p = {.s = (const unsigned char *)tmpl, .n = len, .why = why, .why_len = why_len,
                .max_vars = o.max_variables ? o.max_variables
                                            : MCP_URI_TEMPLATE_DEFAULT_MAX_VARIABLES};
    if (len > max_length)
        return fail(&p, MCP_ERR_LIMIT, "the template has %zu bytes, over the cap of %zu", len,
                    max_length);
    size_t bad;
    if (mcp_utf8_validate(tmpl, len, &bad) != MCP_OK)
        return fail(&p, MCP_ERR_UTF8, "invalid UTF-8 at byte %zu", bad);

    size_t marks = 0; /* every reference follows a '{' or a ',' */
    for (size_t i = 0; i < len; i++)
        marks += tmpl[i] == '{' || tmpl[i] == ',';
    p.specs_cap = (uint32_t)(marks < p.max_vars ? marks : p.max_vars);

    mcp__arena arena;
    mcp__arena_init(&arena, mem, 512 + 2 * len);
    mcp_uri_template *t = mcp__arena_alloc(&arena, sizeof *t);
    if (!t) {
        mcp__arena_release(&arena);
        return MCP_ERR_NOMEM;
    }
    memset(t, 0, sizeof *t);
    t->arena = arena;
    p.t = t;
    t->len = len;
    t->max_uri = o.max_uri_length ? o.max_uri_length : MCP_URI_TEMPLATE_DEFAULT_MAX_URI;
    t->text = mcp__arena_alloc(&t->arena, len + 1);
    /* Parts alternate literal and expression: at most 2 * expressions + 1. */
    t->parts = mcp__arena_alloc(&t->arena, (2 * (size_t)p.specs_cap + 1) * sizeof *t->parts);
    t->specs = mcp__arena_alloc(&t->arena, (p.specs_cap + 1) * sizeof *t->specs);
    int rc = t->text && t->parts && t->specs ? MCP_OK : MCP_ERR_NOMEM;
    if (rc == MCP_OK) {
        if (len)
            memcpy(t->text, tmpl, len);
        t->text[len] = '\0';
    }
    for (size_t i = 0; rc == MCP_OK && i < len;)
        rc = tmpl[i] == '{' ? parse_expression(&p, &i) : parse_literal(&p, &i);
    if (rc == MCP_OK)
        rc = name_variables(&p);
    if (rc == MCP_OK)
        rc = build_match(&p);
    if (rc != MCP_OK) {
        if (rc == MCP_ERR_NOMEM && why && why_len)
            why[0] = '\0';
        mcp_uri_template_free(t);
        return rc;
    }
    *out = t;
    return MCP_OK;
}

void mcp_uri_template_free(mcp_uri_template *t)
{
    if (t)
        mcp__arena_release(&t->arena);
}

const char *mcp_uri_template_text(const mcp_uri_template *t, size_t *len)
{
    if (len)
        *len = t ? t->len : 0;
    return t ? t->text : NULL;
}

size_t mcp_uri_template_variable_count(const mcp_uri_template *t)
{
    return t ? t->nvars : 0;
}

const char *mcp_uri_template_variable_name(const mcp_uri_template *t, size_t i, size_t *len)
{
    if (!t || i >= t->nvars) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = t->var_lens[i];
    return t->var_names[i];
}
