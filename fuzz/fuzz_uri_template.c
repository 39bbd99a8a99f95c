/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for URI templates (src/uri_template). Input: a template, a NUL
 * byte, a URI. Templates come from servers (and, for a client, from a
 * peer's resources/templates/list); URIs from a peer's resources/read.
 * - Parsing returns only its documented codes; a refusal says why.
 * - Matching returns only its documented codes, gives the same answer
 *   twice, and a document whose members are the template's variables,
 *   each a string or an array of strings, valid UTF-8 without NUL.
 * - Round trip, for a template that names no variable twice (there the
 *   split is chosen before the values are compared, and a value can come
 *   back as a list that a prefix elsewhere cannot take): the matched
 *   values expand to a URI the template matches again, and again after a
 *   second trip. Without + and #, nothing changes after the first trip.
 *   With them a decoded value holding '%' and two hex digits is passed
 *   through unencoded (RFC 6570 3.2.3), so it decodes once more on the
 *   next trip ("%2541" gives "%41", then "A"; "%25A9" gives "%A9", then a
 *   lone UTF-8 continuation byte that matches nothing): such values are
 *   not followed.
 * - For a URI of up to 64 bytes, a brute-force search over every split
 *   agrees with the answer (match or not).
 * - When the part after the NUL is a JSON object, expanding with it
 *   returns only the documented codes.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "uri_template/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c))                                                                              \
            abort();                                                                           \
    } while (0)

static bool good_string(const mcp_json *v)
{
    size_t len;
    const char *s = mcp_json_string(v, &len);
    return s && mcp_utf8_validate(s, len, NULL) == MCP_OK && !memchr(s, '\0', len);
}

static void check_values(const mcp_uri_template *t, const mcp_json *root)
{
    CHECK(mcp_json_typeof(root) == MCP_JSON_OBJECT);
    size_t next = 0; /* members come in the order of the variables */
    for (size_t i = 0; i < mcp_json_object_size(root); i++) {
        const char *key;
        size_t key_len;
        const mcp_json *v = mcp_json_object_at(root, i, &key, &key_len);
        size_t name_len;
        const char *name;
        while ((name = mcp_uri_template_variable_name(t, next, &name_len)) &&
               (name_len != key_len || memcmp(name, key, key_len)))
            next++;
        CHECK(name != NULL);
        next++;
        if (mcp_json_typeof(v) == MCP_JSON_ARRAY) {
            CHECK(mcp_json_array_size(v) > 0);
            for (size_t k = 0; k < mcp_json_array_size(v); k++)
                CHECK(good_string(mcp_json_array_at(v, k)));
        } else {
            CHECK(good_string(v));
        }
    }
}

/* An oracle for short URIs: every split tried, each atom checked against
 * the rules as written in the header, not as the sweeps compute them. */
typedef struct oracle {
    const mcp_uri_template *t;
    const unsigned char *N;
    size_t n;
    signed char *memo; /* (atoms + 1) x (n + 1): -1 unknown */
} oracle;

static bool o_cont(const oracle *o, size_t j)
{
    return j < o->n && (o->N[j] & 0xC0) == 0x80;
}

static bool o_unit(const oracle *o, size_t j, uint8_t cls, char extra)
{
    unsigned c = o->N[j];
    if (c == '%' || c >= 0x80 || mcp__ut_unreserved(c) || (extra && c == (unsigned char)extra))
        return true;
    return cls == CL_UR && mcp__ut_reserved(c);
}

/* [s, e) as whole units of the class, at most max characters (0: any). */
static bool o_run(const oracle *o, size_t s, size_t e, uint8_t cls, char extra, unsigned max,
                  unsigned *chars)
{
    *chars = 0;
    size_t j = s;
    while (j < e) {
        if (!o_unit(o, j, cls, extra))
            return false;
        *chars += !o_cont(o, j);
        j += o->N[j] == '%' ? 3 : 1;
    }
    return j == e && (!max || *chars <= max);
}

static bool o_atom(const oracle *o, const ut_atom *a, size_t s, size_t e)
{
    const char *pool = o->t->pool;
    unsigned chars;
    if (a->kind == A_LIT)
        return e - s == a->lit.len && memcmp(o->N + s, pool + a->lit.off, a->lit.len) == 0;
    if (o_cont(o, e))
        return false;
    if (a->kind == A_VAR)
        return !o_cont(o, s) && o_run(o, s, e, a->cls, a->sep, a->maxchars, &chars) &&
               (chars || !a->nonempty);
    if (a->kind == A_EQVAL)
        return s == e || (o->N[s] == '=' && !o_cont(o, s + 1) &&
                          o_run(o, s + 1, e, CL_U, 0, a->maxchars, &chars));
    size_t L = a->lit.len; /* A_NLIST: name[=value] items */
    for (size_t i = s;;) {
        size_t end = i;
        while (end < e && o->N[end] != (unsigned char)a->sep)
            end++;
        if (end - i < L || memcmp(o->N + i, pool + a->lit.off, L) != 0)
            return false;
        if (i + L < end &&
            (o->N[i + L] != '=' || !o_run(o, i + L + 1, end, CL_U, 0, 0, &chars)))
            return false;
        if (end == e)
            return true;
        i = end + 1;
    }
}

static bool o_tail(const oracle *o, size_t s)
{
    const mcp_uri_template *t = o->t;
    if (s == o->n)
        return true;
    if (!t->ntail || (o->N[s] != '?' && o->N[s] != '&'))
        return false;
    bool seen[256] = {false};
    for (size_t q = s + 1;;) {
        size_t end = q, eq;
        while (end < o->n && o->N[end] != '&')
            end++;
        for (eq = q; eq < end && o->N[eq] != '='; eq++)
            ;
        uint32_t k = 0;
        while (k < t->ntail && (t->tail[k].name.len != eq - q ||
                                memcmp(o->N + q, t->pool + t->tail[k].name.off, eq - q)))
            k++;
        unsigned chars;
        if (eq == q || k == t->ntail || (seen[k] && !t->tail[k].explode) ||
            (eq < end && !o_run(o, eq + 1, end, CL_U, 0, t->tail[k].maxchars, &chars)))
            return false;
        seen[k] = true;
        if (end == o->n)
            return true;
        q = end + 1;
    }
}

static bool o_reach(oracle *o, uint32_t i, size_t s)
{
    signed char *m = &o->memo[i * (o->n + 1) + s];
    if (*m < 0) {
        bool ok = false;
        if (i == o->t->natoms)
            ok = o_tail(o, s);
        for (size_t e = s; !ok && i < o->t->natoms && e <= o->n; e++)
            ok = o_atom(o, &o->t->atoms[i], s, e) && o_reach(o, i + 1, e);
        *m = ok;
    }
    return *m;
}

static bool oracle_matches(const mcp_uri_template *t, const char *uri, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (uri[i] == '%' &&
            (i + 2 >= len || !isxdigit((unsigned char)uri[i + 1]) ||
             !isxdigit((unsigned char)uri[i + 2])))
            return false;
    unsigned char norm[64];
    oracle o = {.t = t, .N = norm, .n = mcp__ut_normalize(uri, len, (char *)norm)};
    signed char memo[41 * 65];
    memset(memo, -1, sizeof memo);
    o.memo = memo;
    return o_reach(&o, 0, 0);
}

/* Match, twice, with the invariants of every answer. */
static int match(const mcp_uri_template *t, const char *uri, size_t len, mcp_json_doc **out)
{
    mcp_json_doc *again = NULL;
    int rc = mcp_uri_template_match(t, uri, len, out);
    int rc2 = mcp_uri_template_match(t, uri, len, &again);
    CHECK(rc == MCP_OK || rc == MCP_ERR_NOT_FOUND || rc == MCP_ERR_UTF8 || rc == MCP_ERR_LIMIT ||
          rc == MCP_ERR_NOMEM);
    CHECK((rc == MCP_OK) == (*out != NULL));
    CHECK(rc == rc2 || rc == MCP_ERR_NOMEM || rc2 == MCP_ERR_NOMEM);
    if (rc == MCP_OK && rc2 == MCP_OK)
        CHECK(mcp_json_equal(mcp_json_doc_root(*out), mcp_json_doc_root(again)));
    mcp_json_doc_free(again);
    if (rc == MCP_OK)
        check_values(t, mcp_json_doc_root(*out));
    return rc;
}

static void expand(const mcp_uri_template *t, const mcp_json_doc *values, mcp_buf *out)
{
    mcp_buf_init(out, 0, NULL);
    CHECK(mcp_uri_template_expand(t, mcp_json_doc_root(values), out) == MCP_OK);
}

static bool triplet_in(const mcp_json *v)
{
    size_t len;
    const char *s = mcp_json_string(v, &len);
    for (size_t i = 0; s && i + 2 < len; i++)
        if (s[i] == '%' && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2]))
            return true;
    for (size_t i = 0; i < mcp_json_array_size(v); i++)
        if (triplet_in(mcp_json_array_at(v, i)))
            return true;
    for (size_t i = 0; i < mcp_json_object_size(v); i++)
        if (triplet_in(mcp_json_object_at(v, i, NULL, NULL)))
            return true;
    return false;
}

static bool has_operator(const char *tmpl, size_t len, char op)
{
    for (size_t i = 0; i + 1 < len; i++)
        if (tmpl[i] == '{' && tmpl[i + 1] == op)
            return true;
    return false;
}

/* References in the template, a name used twice counting twice. */
static size_t references(const char *tmpl, size_t len)
{
    size_t n = 0;
    bool inside = false;
    for (size_t i = 0; i < len; i++) {
        if (tmpl[i] == '{')
            inside = true, n++;
        else if (tmpl[i] == '}')
            inside = false;
        else if (inside && tmpl[i] == ',')
            n++;
    }
    return n;
}

static void round_trip(const mcp_uri_template *t, const mcp_json_doc *v1, bool reserved)
{
    mcp_buf u2, u3, u4;
    expand(t, v1, &u2);
    mcp_json_doc *v2 = NULL, *v3 = NULL;
    int rc = match(t, u2.data ? u2.data : "", u2.len, &v2);
    if (rc == MCP_ERR_LIMIT) /* encoding can triple a URI */
        CHECK(u2.len > MCP_URI_TEMPLATE_DEFAULT_MAX_URI);
    else if (!reserved || !triplet_in(mcp_json_doc_root(v1)))
        CHECK(rc == MCP_OK);
    if (rc == MCP_OK) {
        expand(t, v2, &u3);
        rc = match(t, u3.data ? u3.data : "", u3.len, &v3);
        if (!reserved) {
            CHECK(rc == MCP_OK || rc == MCP_ERR_LIMIT);
        } else if (!triplet_in(mcp_json_doc_root(v2))) {
            CHECK(rc == MCP_OK || rc == MCP_ERR_LIMIT);
            rc = MCP_ERR_LIMIT; /* no stability to check: see above */
        }
        if (rc == MCP_OK && !reserved) {
            expand(t, v3, &u4);
            CHECK(u4.len == u3.len && (!u4.len || memcmp(u4.data, u3.data, u3.len) == 0));
            CHECK(mcp_json_equal(mcp_json_doc_root(v2), mcp_json_doc_root(v3)));
            mcp_buf_free(&u4);
        }
        mcp_buf_free(&u3);
    }
    mcp_json_doc_free(v2);
    mcp_json_doc_free(v3);
    mcp_buf_free(&u2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t tlen = nul ? (size_t)(nul - text) : size;
    mcp_uri_template *t = NULL;
    char why[200];
    int rc = mcp_uri_template_parse(text, tlen, NULL, NULL, &t, why, sizeof why);
    CHECK(rc == MCP_OK || rc == MCP_ERR_INVALID_ARG || rc == MCP_ERR_UTF8 ||
          rc == MCP_ERR_LIMIT || rc == MCP_ERR_NOMEM);
    CHECK((rc == MCP_OK) == (t != NULL));
    if (rc != MCP_OK) {
        CHECK(rc == MCP_ERR_NOMEM || why[0] != '\0');
        return 0;
    }
    CHECK(why[0] == '\0');
    size_t len;
    CHECK(memcmp(mcp_uri_template_text(t, &len), text, tlen) == 0 && len == tlen);
    size_t count = mcp_uri_template_variable_count(t);
    for (size_t i = 0; i < count; i++)
        CHECK(mcp_uri_template_variable_name(t, i, &len) && len > 0);
    CHECK(mcp_uri_template_variable_name(t, count, NULL) == NULL);
    bool repeated = references(text, tlen) > count;

    if (nul) {
        const char *uri = nul + 1;
        size_t ulen = size - tlen - 1;
        mcp_json_doc *v1 = NULL;
        rc = match(t, uri, ulen, &v1);
        if (rc == MCP_OK && !repeated)
            round_trip(t, v1, has_operator(text, tlen, '+') || has_operator(text, tlen, '#'));
        /* A value that is not UTF-8 is found once the URI matched. */
        if (!repeated && ulen <= 64 && t->natoms <= 40 &&
            mcp_utf8_validate(uri, ulen, NULL) == MCP_OK)
            CHECK(oracle_matches(t, uri, ulen) == (rc == MCP_OK || rc == MCP_ERR_UTF8));
        mcp_json_doc_free(v1);

        mcp_json_doc *vars = NULL;
        if (mcp_json_parse(uri, ulen, NULL, NULL, &vars, NULL) == MCP_OK) {
            mcp_buf out;
            mcp_buf_init(&out, 1 << 20, NULL);
            rc = mcp_uri_template_expand(t, mcp_json_doc_root(vars), &out);
            CHECK(rc == MCP_OK || rc == MCP_ERR_JSON_TYPE || rc == MCP_ERR_LIMIT);
            if (rc != MCP_OK)
                CHECK(out.len == 0);
            mcp_buf_free(&out);
            mcp_json_doc_free(vars);
        }
    }
    mcp_uri_template_free(t);
    return 0;
}
