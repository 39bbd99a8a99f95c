/* SPDX-License-Identifier: MIT */
/*
 * Matching without backtracking. The template's positional part is a chain
 * of atoms; for each boundary between atoms we compute, as a bitset over
 * the URI's bytes, every position the atoms before it can reach (one
 * linear sweep per atom: KMP for a literal, a run scan for a value). The
 * query tail is then checked right to left in one pass, the earliest
 * usable start of the query chosen, and the split recovered backwards,
 * each atom taking the largest start its predecessors can reach: the
 * earlier atoms end up longest, as greedy groups would. A regex engine
 * with backtracking would be exponential on {+a}{+b}{+c}... against a
 * long URI; this is (atoms + 1) sweeps whatever the input.
 */
#include <assert.h>
#include <string.h>

#include "core/mem.h"
#include "uri_template/internal.h"

typedef uint64_t word;
#define NONE ((size_t)-1)

typedef struct matcher {
    const mcp_uri_template *t;
    const unsigned char *N; /* the normalised URI */
    size_t n;
    size_t W;      /* words per bitset of n + 1 bits */
    word *sets;    /* sets[i]: positions reachable before atom i */
    word *tmp[3];  /* scratch bitsets */
    size_t *pos;   /* the chosen boundaries */
    bool *seen;    /* query tail: names met so far (right to left) */
    char *dec;     /* a decoded value */
} matcher;

static inline bool bit(const word *b, size_t i)
{
    return b[i / 64] >> (i % 64) & 1;
}

static inline void set_bit(word *b, size_t i)
{
    b[i / 64] |= (word)1 << (i % 64);
}

static size_t next_bit(const matcher *m, const word *b, size_t from)
{
    if (from > m->n)
        return NONE;
    size_t w = from / 64;
    word x = b[w] & (~(word)0 << (from % 64));
    while (!x) {
        if (++w >= m->W)
            return NONE;
        x = b[w];
    }
    size_t i = w * 64 + (size_t)__builtin_ctzll(x);
    return i <= m->n ? i : NONE;
}

static inline word *set_at(const matcher *m, size_t i)
{
    return m->sets + i * m->W;
}

/* Units ------------------------------------------------------------------
 * Every '%' of the normalised URI begins a triplet (a bare '%' was refused
 * before), and triplets there never encode a non-ASCII octet (those were
 * decoded), so a character starts at every unit but a raw continuation
 * byte. */

static inline size_t unit_len(const matcher *m, size_t j)
{
    return m->N[j] == '%' ? 3 : 1;
}

static inline size_t unit_before(const matcher *m, size_t p)
{
    return p >= 3 && m->N[p - 3] == '%' ? 3 : 1;
}

static inline bool cont_at(const matcher *m, size_t j)
{
    return j < m->n && (m->N[j] & 0xC0) == 0x80;
}

static inline bool in_class(const matcher *m, size_t j, uint8_t cls, char extra)
{
    unsigned c = m->N[j];
    if (c == '%' || c >= 0x80 || mcp__ut_unreserved(c))
        return true;
    if (extra && c == (unsigned char)extra)
        return true;
    return cls == CL_UR && mcp__ut_reserved(c);
}

/* Forward: the sets ------------------------------------------------------- */

static void lit_forward(const matcher *m, ut_lit l, const word *from, word *to)
{
    const char *pat = m->t->pool + l.off;
    const int32_t *f = m->t->fail + l.off;
    size_t start = next_bit(m, from, 0), q = 0;
    if (start == NONE)
        return;
    for (size_t i = start; i < m->n; i++) {
        while (q > 0 && (char)m->N[i] != pat[q])
            q = (size_t)f[q - 1];
        if ((char)m->N[i] == pat[q])
            q++;
        if (q == l.len) {
            if (bit(from, i + 1 - l.len))
                set_bit(to, i + 1);
            q = (size_t)f[q - 1];
        }
    }
}

/* Every end e of a run of class units [s, e) with s in from: at most
 * maxchars characters (0: any), at least one if nonempty, e and s on
 * character boundaries. The latest start in a run allows the most ends,
 * so one pass keeps only that one. */
static void run_forward(const matcher *m, const word *from, word *to, uint8_t cls, char extra,
                        bool nonempty, unsigned maxchars)
{
    size_t j = next_bit(m, from, 0);
    bool active = false;
    unsigned chars = 0;
    while (j != NONE && j <= m->n) {
        bool start = bit(from, j) && !cont_at(m, j);
        /* Before the new start takes over: j ends the older one's run. */
        if (!cont_at(m, j) && ((active && chars) || (start && !nonempty)))
            set_bit(to, j);
        if (start) {
            if (maxchars || !active) /* without a prefix the count is only "some" */
                chars = 0;
            active = true;
        }
        if (j == m->n)
            break;
        if (active && chars && !maxchars) {
            /* Every boundary to the end of the run is an end, whatever
             * starts lie inside it: the bulk of the work, in a tight loop. */
            while (j < m->n && in_class(m, j, cls, extra)) {
                j += unit_len(m, j);
                if (!cont_at(m, j))
                    set_bit(to, j);
            }
            if (j == m->n)
                break;
        }
        size_t u = unit_len(m, j);
        if (active) {
            if (!in_class(m, j, cls, extra))
                active = false;
            else if (!cont_at(m, j) && ++chars > maxchars && maxchars)
                active = false;
            else if (chars > 10000)
                chars = 10000; /* only "at least one" matters without a prefix */
        }
        j = active ? j + u : next_bit(m, from, j + u);
    }
}

static void eqval_forward(matcher *m, const ut_atom *a, const word *from, word *to)
{
    word *starts = m->tmp[0];
    memset(starts, 0, m->W * sizeof *starts);
    for (size_t j = next_bit(m, from, 0); j != NONE && j < m->n; j = next_bit(m, from, j + 1))
        if (m->N[j] == '=')
            set_bit(starts, j + 1);
    run_forward(m, starts, to, CL_U, 0, false, a->maxchars);
    for (size_t w = 0; w < m->W; w++) /* no value: the name alone */
        to[w] |= from[w];
}

/* name[=value] items, sep between them. Values cannot hold sep or '=', so
 * an item's end is where its run of value units stops. */
static void nlist_forward(matcher *m, const ut_atom *a, const word *from, word *to)
{
    word *occ = m->tmp[0], *item = m->tmp[1], *value = m->tmp[2];
    memset(occ, 0, m->W * sizeof *occ);
    memset(value, 0, m->W * sizeof *value);
    memcpy(item, from, m->W * sizeof *item);
    /* Where the name occurs: KMP with every position a start. */
    const char *name = m->t->pool + a->lit.off;
    const int32_t *f = m->t->fail + a->lit.off;
    size_t L = a->lit.len, q = 0;
    for (size_t i = 0; i < m->n; i++) {
        while (q > 0 && (char)m->N[i] != name[q])
            q = (size_t)f[q - 1];
        if ((char)m->N[i] == name[q])
            q++;
        if (q == L) {
            set_bit(occ, i + 1 - L);
            q = (size_t)f[q - 1];
        }
    }
    bool in_value = false;
    for (size_t j = next_bit(m, item, 0); j != NONE && j <= m->n;) {
        if (bit(value, j))
            in_value = true;
        if (j < m->n && bit(item, j) && bit(occ, j)) {
            size_t k = j + L;
            if (!cont_at(m, k))
                set_bit(to, k);
            if (k < m->n && m->N[k] == (unsigned char)a->sep)
                set_bit(item, k + 1);
            if (k < m->n && m->N[k] == '=')
                set_bit(value, k + 1);
        }
        if (in_value) {
            if (!cont_at(m, j))
                set_bit(to, j);
            if (j < m->n && !in_class(m, j, CL_U, 0)) {
                in_value = false;
                if (m->N[j] == (unsigned char)a->sep)
                    set_bit(item, j + 1);
            }
        }
        if (j == m->n)
            break;
        j += unit_len(m, j);
    }
}

/* Backward: the split ------------------------------------------------------ */

static size_t lit_back(const matcher *m, ut_lit l, size_t e, const word *from)
{
    if (e < l.len)
        return NONE;
    size_t s = e - l.len;
    return bit(from, s) && memcmp(m->N + s, m->t->pool + l.off, l.len) == 0 ? s : NONE;
}

static size_t run_back(const matcher *m, size_t e, const word *from, uint8_t cls, char extra,
                       bool nonempty, unsigned maxchars)
{
    if (!nonempty && bit(from, e))
        return e;
    unsigned chars = 0;
    for (size_t p = e; p > 0;) {
        size_t s = p - unit_before(m, p);
        if (!in_class(m, s, cls, extra))
            break;
        p = s;
        if (cont_at(m, p))
            continue;
        if (++chars > maxchars && maxchars)
            break;
        if (bit(from, p))
            return p;
    }
    return NONE;
}

/* The start of the run of value units that ends at e. */
static size_t value_start(const matcher *m, size_t e)
{
    size_t p = e;
    while (p > 0) {
        size_t s = p - unit_before(m, p);
        if (!in_class(m, s, CL_U, 0))
            break;
        p = s;
    }
    return p;
}

static unsigned chars_in(const matcher *m, size_t a, size_t b)
{
    unsigned n = 0;
    for (size_t j = a; j < b; j += unit_len(m, j))
        n += !cont_at(m, j) && n < 10000;
    return n;
}

static size_t eqval_back(const matcher *m, const ut_atom *a, size_t e, const word *from)
{
    if (bit(from, e))
        return e;
    size_t p = value_start(m, e);
    if (p == 0 || m->N[p - 1] != '=' || !bit(from, p - 1) || cont_at(m, p))
        return NONE;
    if (a->maxchars && chars_in(m, p, e) > a->maxchars)
        return NONE;
    return p - 1;
}

static bool name_at(const matcher *m, ut_lit l, size_t at)
{
    return memcmp(m->N + at, m->t->pool + l.off, l.len) == 0;
}

static size_t nlist_back(const matcher *m, const ut_atom *a, size_t e, const word *from)
{
    size_t L = a->lit.len, cur = e;
    for (;;) {
        /* The item ending at cur is "name" or "name=value". */
        size_t t1 = cur >= L && name_at(m, a->lit, cur - L) ? cur - L : NONE;
        size_t cf = value_start(m, cur);
        size_t t2 = cf >= L + 1 && m->N[cf - 1] == '=' && name_at(m, a->lit, cf - 1 - L)
                        ? cf - 1 - L
                        : NONE;
        if (t1 != NONE && bit(from, t1))
            return t1;
        if (t2 != NONE && bit(from, t2))
            return t2;
        size_t prev = NONE;
        if (t1 != NONE && t1 > 0 && m->N[t1 - 1] == (unsigned char)a->sep)
            prev = t1 - 1;
        else if (t2 != NONE && t2 > 0 && m->N[t2 - 1] == (unsigned char)a->sep)
            prev = t2 - 1;
        if (prev == NONE)
            return NONE;
        cur = prev;
    }
}

/* The query tail ----------------------------------------------------------- */

static bool tail_name(const matcher *m, size_t a, size_t b, uint32_t *entry)
{
    const mcp_uri_template *t = m->t;
    for (uint32_t i = 0; i < t->ntail; i++) {
        if (t->tail[i].name.len == b - a && name_at(m, t->tail[i].name, a)) {
            *entry = i;
            return true;
        }
    }
    return false;
}

/* Whether N[q, end) is name or name=value for a variable of the tail. It
 * stops at the first byte that can be neither, so that the params tried
 * from every '?' and '&' cost one pass over the URI in all. */
static bool param_ok(const matcher *m, size_t q, size_t end, uint32_t *entry, size_t *eq)
{
    size_t j = q;
    while (j < end && m->N[j] != '=') {
        unsigned c = m->N[j];
        if (!(mcp__ut_alnum(c) || c == '_' || c == '.' || c == '%' || c >= 0x80))
            return false;
        j++;
    }
    if (j == q || !tail_name(m, q, j, entry))
        return false;
    *eq = j;
    if (j == end)
        return true;
    unsigned chars = 0, max = m->t->tail[*entry].maxchars;
    for (size_t v = j + 1; v < end; v += unit_len(m, v)) {
        if (!in_class(m, v, CL_U, 0))
            return false;
        if (!cont_at(m, v) && ++chars > max && max)
            return false;
    }
    return true;
}

/* valid[q]: N[q..n) is '&'-separated params of the tail, no name without
 * '*' twice. Right to left: a param is usable when the rest after it is. */
static void tail_valid(matcher *m, word *valid)
{
    memset(valid, 0, m->W * sizeof *valid);
    memset(m->seen, 0, m->t->ntail * sizeof *m->seen);
    size_t next_amp = m->n;
    for (size_t q = m->n; q-- > 1;) {
        if (m->N[q] == '&')
            next_amp = q;
        if (m->N[q - 1] != '?' && m->N[q - 1] != '&')
            continue;
        uint32_t e;
        size_t eq;
        if (next_amp == q || !param_ok(m, q, next_amp, &e, &eq))
            continue;
        bool ok = (next_amp == m->n || bit(valid, next_amp + 1)) &&
                  (m->t->tail[e].explode || !m->seen[e]);
        /* A name met here and found invalid breaks every chain further
         * left anyway: recording it cannot wrong them. */
        m->seen[e] = true;
        if (ok)
            set_bit(valid, q);
    }
}

/* Values ----------------------------------------------------------------- */

typedef struct slot {
    mcp_json *v;
    uint16_t prefix; /* the value is only a prefix of this many characters */
    bool set;
} slot;

static int string_value(matcher *m, mcp_json_doc *doc, size_t a, size_t b, mcp_json **out)
{
    size_t k = 0;
    for (size_t j = a; j < b;) {
        if (m->N[j] == '%') {
            m->dec[k++] = (char)(mcp__ut_hexval(m->N[j + 1]) << 4 | mcp__ut_hexval(m->N[j + 2]));
            j += 3;
        } else {
            m->dec[k++] = (char)m->N[j++];
        }
    }
    if (mcp_utf8_validate(m->dec, k, NULL) != MCP_OK || memchr(m->dec, '\0', k))
        return MCP_ERR_UTF8;
    *out = mcp_json_new_stringn(doc, m->dec, k);
    return *out ? MCP_OK : MCP_ERR_NOMEM;
}

/* Items of [a, b) split at sep, each after skip bytes (a name) and then an
 * optional '='. */
static int list_value(matcher *m, mcp_json_doc *doc, size_t a, size_t b, char sep, size_t skip,
                      mcp_json **out)
{
    mcp_json *arr = mcp_json_new_array(doc);
    if (!arr)
        return MCP_ERR_NOMEM;
    for (size_t s = a;;) {
        size_t e = s;
        while (e < b && m->N[e] != (unsigned char)sep)
            e++;
        size_t v = s + skip;
        if (skip && v < e)
            v++; /* the '=' */
        mcp_json *item;
        int rc = string_value(m, doc, v, e, &item);
        if (rc == MCP_OK)
            rc = mcp_json_array_append(doc, arr, item);
        if (rc != MCP_OK)
            return rc;
        if (e == b)
            break;
        s = e + 1;
    }
    *out = arr;
    return MCP_OK;
}

/* The one string a full value w stands for, if any. */
static const char *single(const mcp_json *w, size_t *len)
{
    if (mcp_json_typeof(w) == MCP_JSON_ARRAY)
        return mcp_json_array_size(w) == 1 ? mcp_json_string(mcp_json_array_at(w, 0), len) : NULL;
    return mcp_json_string(w, len);
}

/* p is what {x:n} shows of the value w. */
static bool prefix_of(const mcp_json *p, unsigned n, const mcp_json *w)
{
    size_t plen, wlen, k = 0;
    const char *ps = mcp_json_string(p, &plen), *ws = single(w, &wlen);
    if (!ps || !ws)
        return false;
    for (unsigned chars = 0; k < wlen; k++) {
        if (((unsigned char)ws[k] & 0xC0) != 0x80 && ++chars > n)
            break;
    }
    return plen == k && memcmp(ps, ws, k) == 0;
}

static bool same_full(const mcp_json *a, const mcp_json *b)
{
    if (mcp_json_equal(a, b))
        return true;
    size_t al, bl;
    const char *as = single(a, &al), *bs = single(b, &bl);
    return as && bs && al == bl && memcmp(as, bs, al) == 0;
}

/* A variable met again: its values must agree; the fuller one stays. */
static bool merge(slot *s, mcp_json *v, unsigned prefix)
{
    if (!s->set) {
        *s = (slot){.v = v, .prefix = (uint16_t)prefix, .set = true};
        return true;
    }
    if (!s->prefix && !prefix)
        return same_full(s->v, v);
    if (!s->prefix)
        return prefix_of(v, prefix, s->v);
    if (!prefix) {
        if (!prefix_of(s->v, s->prefix, v))
            return false;
        *s = (slot){.v = v, .prefix = 0, .set = true};
        return true;
    }
    if (prefix < s->prefix)
        return prefix_of(v, prefix, s->v);
    if (!prefix_of(s->v, s->prefix, v))
        return false;
    *s = (slot){.v = v, .prefix = (uint16_t)prefix, .set = true};
    return true;
}

static int atom_value(matcher *m, mcp_json_doc *doc, const ut_atom *a, size_t s, size_t e,
                      mcp_json **out)
{
    switch (a->kind) {
    case A_VAR:
        if (a->sep)
            return list_value(m, doc, s, e, a->sep, 0, out);
        return string_value(m, doc, s, e, out);
    case A_EQVAL:
        return string_value(m, doc, s < e ? s + 1 : s, e, out);
    default:
        return list_value(m, doc, s, e, a->sep, a->lit.len, out);
    }
}

static int collect(matcher *m, size_t tail_start, slot *slots, mcp_json_doc **out)
{
    const mcp_uri_template *t = m->t;
    mcp_json_doc *doc = mcp_json_doc_new(&t->arena.mem);
    if (!doc)
        return MCP_ERR_NOMEM;
    int rc = MCP_OK;
    for (uint32_t i = 0; rc == MCP_OK && i < t->natoms; i++) {
        const ut_atom *a = &t->atoms[i];
        if (a->kind == A_LIT)
            continue;
        mcp_json *v;
        rc = atom_value(m, doc, a, m->pos[i], m->pos[i + 1], &v);
        if (rc == MCP_OK && !merge(&slots[t->specs[a->spec].var], v, a->maxchars))
            rc = MCP_ERR_NOT_FOUND;
    }
    /* Params: the tail was checked whole; exploded names gather a list. */
    mcp_json **values = NULL;
    if (rc == MCP_OK && t->ntail && tail_start < m->n) {
        values = mcp__calloc(&t->arena.mem, t->ntail, sizeof *values);
        if (!values)
            rc = MCP_ERR_NOMEM;
    }
    for (size_t q = tail_start + 1; rc == MCP_OK && values && q < m->n;) {
        size_t end = q;
        while (end < m->n && m->N[end] != '&')
            end++;
        uint32_t e;
        size_t eq;
        if (!param_ok(m, q, end, &e, &eq)) { /* tail_valid said otherwise */
            assert(!"query tail");
            rc = MCP_ERR_NOT_FOUND;
            break;
        }
        mcp_json *v;
        rc = string_value(m, doc, eq < end ? eq + 1 : eq, end, &v);
        if (rc == MCP_OK && t->tail[e].explode) {
            if (!values[e] && !(values[e] = mcp_json_new_array(doc)))
                rc = MCP_ERR_NOMEM;
            if (rc == MCP_OK)
                rc = mcp_json_array_append(doc, values[e], v);
        } else if (rc == MCP_OK) {
            values[e] = v;
        }
        q = end + 1;
    }
    for (uint32_t e = 0; rc == MCP_OK && values && e < t->ntail; e++) {
        const ut_tail *tl = &t->tail[e];
        if (values[e] && !merge(&slots[t->specs[tl->spec].var], values[e], tl->maxchars))
            rc = MCP_ERR_NOT_FOUND;
    }
    mcp__free(&t->arena.mem, values);
    mcp_json *root = rc == MCP_OK ? mcp_json_new_object(doc) : NULL;
    if (rc == MCP_OK && !root)
        rc = MCP_ERR_NOMEM;
    for (uint32_t v = 0; rc == MCP_OK && v < t->nvars; v++)
        if (slots[v].set)
            rc = mcp_json_object_setn(doc, root, t->var_names[v], t->var_lens[v], slots[v].v);
    if (rc == MCP_OK)
        rc = mcp_json_doc_error(doc);
    if (rc != MCP_OK) {
        mcp_json_doc_free(doc);
        return rc;
    }
    mcp_json_doc_set_root(doc, root);
    *out = doc;
    return MCP_OK;
}

/* Public ------------------------------------------------------------------- */

static void step(matcher *m, uint32_t i)
{
    const ut_atom *a = &m->t->atoms[i];
    const word *from = set_at(m, i);
    word *to = set_at(m, i + 1);
    switch (a->kind) {
    case A_LIT: lit_forward(m, a->lit, from, to); break;
    case A_VAR: run_forward(m, from, to, a->cls, a->sep, a->nonempty, a->maxchars); break;
    case A_EQVAL: eqval_forward(m, a, from, to); break;
    default: nlist_forward(m, a, from, to); break;
    }
}

static size_t back(const matcher *m, uint32_t i, size_t e)
{
    const ut_atom *a = &m->t->atoms[i];
    const word *from = set_at(m, i);
    switch (a->kind) {
    case A_LIT: return lit_back(m, a->lit, e, from);
    case A_VAR: return run_back(m, e, from, a->cls, a->sep, a->nonempty, a->maxchars);
    case A_EQVAL: return eqval_back(m, a, e, from);
    default: return nlist_back(m, a, e, from);
    }
}

static bool bare_percent(const char *uri, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (uri[i] == '%' && (i + 2 >= len || !mcp__ut_hex((unsigned char)uri[i + 1]) ||
                              !mcp__ut_hex((unsigned char)uri[i + 2])))
            return true;
    return false;
}

static int run(matcher *m, slot *slots, mcp_json_doc **out)
{
    const mcp_uri_template *t = m->t;
    set_bit(set_at(m, 0), 0);
    for (uint32_t i = 0; i < t->natoms; i++) {
        step(m, i);
        if (next_bit(m, set_at(m, i + 1), 0) == NONE)
            return MCP_ERR_NOT_FOUND;
    }
    const word *last = set_at(m, t->natoms);
    size_t p = NONE;
    if (!t->ntail) {
        p = bit(last, m->n) ? m->n : NONE;
    } else {
        word *valid = m->tmp[0];
        tail_valid(m, valid);
        for (size_t c = next_bit(m, last, 0); c != NONE; c = next_bit(m, last, c + 1)) {
            if (c == m->n ||
                ((m->N[c] == '?' || m->N[c] == '&') && c + 1 < m->n && bit(valid, c + 1))) {
                p = c;
                break;
            }
        }
    }
    if (p == NONE)
        return MCP_ERR_NOT_FOUND;
    m->pos[t->natoms] = p;
    for (uint32_t i = t->natoms; i-- > 0;) {
        m->pos[i] = back(m, i, m->pos[i + 1]);
        /* The sets said it was reachable: the two directions disagree. */
        assert(m->pos[i] != NONE);
        if (m->pos[i] == NONE)
            return MCP_ERR_NOT_FOUND;
    }
    assert(m->pos[0] == 0);
    if (m->pos[0] != 0)
        return MCP_ERR_NOT_FOUND;
    return collect(m, p, slots, out);
}

int mcp_uri_template_match(const mcp_uri_template *t, const char *uri, size_t len,
                           mcp_json_doc **out)
{
    if (out)
        *out = NULL;
    if (!t || !out || (!uri && len))
        return MCP_ERR_INVALID_ARG;
    if (len > t->max_uri)
        return MCP_ERR_LIMIT;
    if (mcp_utf8_validate(uri, len, NULL) != MCP_OK)
        return MCP_ERR_UTF8;
    /* Neither a literal nor a value can hold one: no template matches. */
    if (len && bare_percent(uri, len))
        return MCP_ERR_NOT_FOUND;

    matcher m = {.t = t, .W = (len + 1) / 64 + 1};
    size_t nsets = (size_t)t->natoms + 1 + 3;
    size_t bytes = nsets * m.W * sizeof(word) + (t->natoms + 1) * sizeof(size_t) +
                   t->nvars * sizeof(slot) + t->ntail + 2 * len + 2;
    char *mem = mcp__malloc(&t->arena.mem, bytes);
    if (!mem)
        return MCP_ERR_NOMEM;
    memset(mem, 0, nsets * m.W * sizeof(word));
    m.sets = (word *)mem;
    for (int i = 0; i < 3; i++)
        m.tmp[i] = m.sets + ((size_t)t->natoms + 1 + (size_t)i) * m.W;
    char *p = mem + nsets * m.W * sizeof(word);
    m.pos = (size_t *)p;
    p += (t->natoms + 1) * sizeof(size_t);
    slot *slots = (slot *)p;
    memset(slots, 0, t->nvars * sizeof(slot));
    p += t->nvars * sizeof(slot);
    m.seen = (bool *)p;
    p += t->ntail;
    char *norm = p;
    m.dec = p + len + 1;
    m.n = len ? mcp__ut_normalize(uri, len, norm) : 0;
    m.N = (const unsigned char *)norm;

    int rc = run(&m, slots, out);
    mcp__free(&t->arena.mem, mem);
    return rc;
}
