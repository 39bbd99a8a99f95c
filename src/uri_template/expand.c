/* SPDX-License-Identifier: MIT */
/* RFC 6570 section 3 and appendix A. */
#include <string.h>

#include "core/buf.h"
#include "uri_template/internal.h"

static int put(mcp_buf *out, const char *s, size_t n)
{
    return n ? mcp_buf_append(out, s, n) : MCP_OK;
}

/* s encoded for the operator: unreserved characters as they are, with
 * reserved also the reserved ones and percent-encoded triplets; every
 * other octet as %XX. */
static int encode(mcp_buf *out, const char *s, size_t n, bool reserved)
{
    static const char hex[] = "0123456789ABCDEF";
    int rc = MCP_OK;
    size_t run = 0; /* octets copied as they are, written in one append */
    for (size_t i = 0; rc == MCP_OK && i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80 && (mcp__ut_unreserved(c) || (reserved && mcp__ut_reserved(c)))) {
            run++;
            continue;
        }
        if (reserved && c == '%' && i + 2 < n && mcp__ut_hex((unsigned char)s[i + 1]) &&
            mcp__ut_hex((unsigned char)s[i + 2])) {
            run += 3;
            i += 2;
            continue;
        }
        char pct[3] = {'%', hex[c >> 4], hex[c & 15]};
        rc = put(out, s + i - run, run);
        run = 0;
        if (rc == MCP_OK)
            rc = put(out, pct, 3);
    }
    return rc == MCP_OK ? put(out, s + n - run, run) : rc;
}

/* A scalar's text: a string, a number's JSON text, true or false. NULL for
 * anything else. */
static const char *scalar(const mcp_json *v, size_t *len)
{
    bool b;
    switch (mcp_json_typeof(v)) {
    case MCP_JSON_STRING: return mcp_json_string(v, len);
    case MCP_JSON_NUMBER: return mcp_json_number_text(v, len);
    case MCP_JSON_BOOL:
        mcp_json_get_bool(v, &b);
        *len = b ? 4 : 5;
        return b ? "true" : "false";
    default: return NULL;
    }
}

/* The first n characters (code points) of s. */
static size_t prefix_bytes(const char *s, size_t len, unsigned n)
{
    unsigned chars = 0;
    for (size_t k = 0; k < len; k++)
        if (((unsigned char)s[k] & 0xC0) != 0x80 && ++chars > n)
            return k;
    return len;
}

/* One exploded member: name=value (name alone, or name= with ?/&, when
 * the value is empty) for the named operators; key=value or the bare item
 * otherwise. */
static int member(mcp_buf *out, const ut_op_info *info, const char *name, size_t name_len,
                  bool encode_name, const char *v, size_t vlen)
{
    int rc = MCP_OK;
    if (name) {
        rc = encode_name ? encode(out, name, name_len, info->reserved) : put(out, name, name_len);
        if (rc == MCP_OK)
            rc = vlen || !info->named ? mcp_buf_append(out, MCP_LITERAL("="))
                                      : put(out, info->ifemp, strlen(info->ifemp));
    }
    return rc == MCP_OK ? encode(out, v, vlen, info->reserved) : rc;
}

static int composite(mcp_buf *out, const ut_spec *sp, const ut_op_info *info, const mcp_json *v)
{
    bool object = mcp_json_typeof(v) == MCP_JSON_OBJECT;
    size_t count = object ? mcp_json_object_size(v) : mcp_json_array_size(v);
    int rc = MCP_OK;
    if (info->named && !sp->explode) {
        rc = put(out, sp->name, sp->name_len);
        if (rc == MCP_OK)
            rc = mcp_buf_append(out, MCP_LITERAL("="));
    }
    for (size_t i = 0; rc == MCP_OK && i < count; i++) {
        const char *key = NULL;
        size_t key_len = 0, len;
        const mcp_json *item = object ? mcp_json_object_at(v, i, &key, &key_len)
                                      : mcp_json_array_at(v, i);
        const char *text = scalar(item, &len);
        if (!text)
            return MCP_ERR_JSON_TYPE;
        if (i)
            rc = mcp_buf_append(out, sp->explode ? &info->sep : ",", 1);
        if (rc != MCP_OK)
            break;
        if (!sp->explode) { /* key,value,key,value or item,item */
            if (object)
                rc = encode(out, key, key_len, info->reserved);
            if (rc == MCP_OK && object)
                rc = mcp_buf_append(out, MCP_LITERAL(","));
            if (rc == MCP_OK)
                rc = encode(out, text, len, info->reserved);
        } else if (object) {
            rc = member(out, info, key, key_len, true, text, len);
        } else {
            rc = member(out, info, info->named ? sp->name : NULL, sp->name_len, false, text, len);
        }
    }
    return rc;
}

/* Whether v counts as defined (RFC 6570 2.3: null, and an empty list or
 * associative array, are undefined). */
static bool defined(const mcp_json *v)
{
    switch (mcp_json_typeof(v)) {
    case MCP_JSON_ABSENT:
    case MCP_JSON_NULL: return false;
    case MCP_JSON_ARRAY: return mcp_json_array_size(v) > 0;
    case MCP_JSON_OBJECT: return mcp_json_object_size(v) > 0;
    default: return true;
    }
}

static int expression(const mcp_uri_template *t, const ut_part *part, const mcp_json *vars,
                      mcp_buf *out)
{
    const ut_op_info *info = &mcp__ut_ops[part->op];
    bool any = false;
    for (uint32_t k = 0; k < part->n; k++) {
        const ut_spec *sp = &t->specs[part->first + k];
        const mcp_json *v = mcp_json_object_getn(vars, sp->name, sp->name_len);
        if (!defined(v))
            continue;
        char lead = any ? info->sep : info->first;
        any = true;
        int rc = lead ? mcp_buf_append(out, &lead, 1) : MCP_OK;
        if (rc != MCP_OK)
            return rc;
        size_t len;
        const char *text = scalar(v, &len);
        if (text) {
            if (info->named) {
                rc = put(out, sp->name, sp->name_len);
                if (rc == MCP_OK)
                    rc = len ? mcp_buf_append(out, MCP_LITERAL("="))
                             : put(out, info->ifemp, strlen(info->ifemp));
            }
            if (rc == MCP_OK)
                rc = encode(out, text, sp->prefix ? prefix_bytes(text, len, sp->prefix) : len,
                            info->reserved);
        } else if (sp->prefix) {
            rc = MCP_ERR_JSON_TYPE; /* RFC 6570 2.4.1: not for composite values */
        } else {
            rc = composite(out, sp, info, v);
        }
        if (rc != MCP_OK)
            return rc;
    }
    return MCP_OK;
}

int mcp_uri_template_expand(const mcp_uri_template *t, const mcp_json *vars, mcp_buf *out)
{
    if (!t || !out)
        return MCP_ERR_INVALID_ARG;
    if (vars && mcp_json_typeof(vars) != MCP_JSON_OBJECT)
        return MCP_ERR_JSON_TYPE;
    size_t start = out->len;
    int rc = MCP_OK;
    for (uint32_t i = 0; rc == MCP_OK && i < t->nparts; i++) {
        const ut_part *part = &t->parts[i];
        /* A literal is valid already: only its non-ASCII needs encoding,
         * which encode with the reserved set does. */
        rc = part->is_expr ? expression(t, part, vars, out)
                           : encode(out, t->text + part->off, part->len, true);
    }
    if (rc != MCP_OK) {
        mcp__buf_rewind(out, start);
    }
    return rc;
}
