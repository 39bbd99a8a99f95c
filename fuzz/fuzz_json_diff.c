/* SPDX-License-Identifier: MIT */
/*
 * Differential fuzzer: our parser against jansson (the test-only oracle).
 * Both must agree on accept/reject, and accepted input must decode to equal
 * values; our written form must be accepted by jansson as the same value.
 *
 * Documented policy differences (where disagreement is expected):
 * - Number range: jansson rejects integers outside int64 and reals that
 *   overflow (or, through strtod's ERANGE, become subnormal); we keep the
 *   number's text and accept. Our readers report the range instead.
 * - Depth: jansson stops at 2048 nested values; ours is set to 2048 here, but
 *   jansson also counts the scalar innermost value, so depth errors on either
 *   side are not compared.
 * - NUL bytes outside strings: jansson's input stream uses NUL as its own
 *   end-of-buffer marker and silently drops such bytes (`[1<NUL>]` is `[1]`
 *   to it); we reject them. Allowed when our error points at a NUL byte.
 * - NUL in object keys (`{"a\u0000b":1}`): jansson cannot store such keys
 *   and rejects them even with JSON_ALLOW_NUL; keys carry their length here.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const mcp_json *a, const json_t *b)
{
    switch (mcp_json_typeof(a)) {
    case MCP_JSON_NULL: return json_is_null(b);
    case MCP_JSON_BOOL: {
        bool v;
        mcp_json_get_bool(a, &v);
        return v ? json_is_true(b) : json_is_false(b);
    }
    case MCP_JSON_STRING: {
        size_t n;
        const char *s = mcp_json_string(a, &n);
        return json_is_string(b) && json_string_length(b) == n &&
               memcmp(json_string_value(b), s, n) == 0;
    }
    case MCP_JSON_NUMBER:
        if (json_is_integer(b)) {
            int64_t v;
            return mcp_json_is_integer_literal(a) &&
                   mcp_json_get_int64(a, &v) == MCP_OK &&
                   v == (int64_t)json_integer_value(b);
        }
        if (json_is_real(b)) {
            double v, w = json_real_value(b);
            int rc = mcp_json_get_double(a, &v);
            if (rc == MCP_ERR_JSON_RANGE)
                return w == 0; /* our reader reports underflow to zero */
            return rc == MCP_OK && !mcp_json_is_integer_literal(a) && v == w &&
                   signbit(v) == signbit(w);
        }
        return 0;
    case MCP_JSON_ARRAY:
        if (!json_is_array(b) || json_array_size(b) != mcp_json_array_size(a))
            return 0;
        for (size_t i = 0; i < mcp_json_array_size(a); i++)
            if (!same(mcp_json_array_at(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    case MCP_JSON_OBJECT:
        if (!json_is_object(b) || json_object_size(b) != mcp_json_object_size(a))
            return 0;
        for (size_t i = 0; i < mcp_json_object_size(a); i++) {
            const char *k;
            size_t kn;
            const mcp_json *v = mcp_json_object_at(a, i, &k, &kn);
            const json_t *w = json_object_getn(b, k, kn);
            if (!w || !same(v, w))
                return 0;
        }
        return 1;
    default: return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mcp_json_parse_options o = {.size = sizeof o, .max_depth = 2048, .max_size = 1 << 20};
    if (size > o.max_size)
        return 0;
    mcp_json_doc *doc;
    mcp_json_error err;
    int ours = mcp_json_parse((const char *)data, size, &o, NULL, &doc, &err);
    json_error_t jerr;
    json_t *theirs = json_loadb((const char *)data, size,
                                JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
                                &jerr);
    if (ours == MCP_ERR_JSON_DEPTH ||
        (!theirs && json_error_code(&jerr) == json_error_stack_overflow)) {
        /* not compared: see the header */
    } else if (ours == MCP_OK && !theirs) {
        if (json_error_code(&jerr) != json_error_numeric_overflow &&
            json_error_code(&jerr) != json_error_null_byte_in_key)
            abort(); /* we accepted what jansson rejects */
    } else if (ours != MCP_OK && theirs) {
        if (!(err.offset < size && data[err.offset] == 0))
            abort(); /* we rejected what jansson accepts */
    } else if (ours == MCP_OK) {
        if (!same(mcp_json_doc_root(doc), theirs))
            abort();
        /* Our output is valid JSON to jansson, with the same value. */
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        if (mcp_json_write(mcp_json_doc_root(doc), &b) != MCP_OK)
            abort();
        json_t *again = json_loadb(b.data, b.len,
                                   JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
                                   &jerr);
        if (!again || !same(mcp_json_doc_root(doc), again))
            abort();
        json_decref(again);
        mcp_buf_free(&b);
    }
    if (ours == MCP_OK)
        mcp_json_doc_free(doc);
    json_decref(theirs);
    return 0;
}
