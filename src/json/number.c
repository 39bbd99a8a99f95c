/* SPDX-License-Identifier: MIT */
/*
 * Number text is kept as parsed, so a parse-then-write round trip never
 * changes a number. These helpers answer exact questions about that text
 * without going through a double.
 */
#include <math.h>
#include <string.h>

#include "core/numlocale.h"
#include "json/value.h"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

void mcp__number_scan(const char *s, size_t len, mcp__number_lexeme *out)
{
    /* The one scanner of the JSON number grammar: the parser, the builder
     * and the checks of number text all come through here. */
    size_t i = 0;
    memset(out, 0, sizeof *out);
    if (i < len && s[i] == '-') {
        out->negative = true;
        i++;
    }
    size_t digits_start = i;
    if (i < len && s[i] == '0') {
        i++;
        if (i < len && is_digit(s[i])) {
            out->why = "leading zero in number";
            out->error_at = 0;
            return;
        }
    } else if (i < len && s[i] >= '1' && s[i] <= '9') {
        while (i < len && is_digit(s[i])) {
            if (i - digits_start < 19)
                out->leading = out->leading * 10 + (uint64_t)(s[i] - '0');
            i++;
        }
    } else {
        out->why = i < len && s[i] == 'I' ? "Infinity is not a JSON number"
                                          : "expected a digit in number";
        out->error_at = 0;
        return;
    }
    out->int_digits = i - digits_start;
    out->integer = true;
    if (i < len && s[i] == '.') {
        out->integer = false;
        i++;
        if (!(i < len && is_digit(s[i]))) {
            out->why = "expected a digit after the decimal point";
            out->error_at = i;
            return;
        }
        while (i < len && is_digit(s[i]))
            i++;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        out->integer = false;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (!(i < len && is_digit(s[i]))) {
            out->why = "expected a digit in exponent";
            out->error_at = i;
            return;
        }
        while (i < len && is_digit(s[i]))
            i++;
    }
    out->end = i;
}

bool mcp__number_valid(const char *s, size_t len)
{
    mcp__number_lexeme lx;
    mcp__number_scan(s, len, &lx);
    return !lx.why && lx.end == len;
}

/* An exponent beyond this is clamped: no integer that fits 64 bits needs
 * more, and clamping keeps the arithmetic from overflowing. */
#define EXP_CLAMP 100000L

int mcp__number_integer(const char *s, size_t len, bool *negative,
                        uint64_t *magnitude)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && s[i] == '-') {
        neg = true;
        i++;
    }
    /* Significant digits: integer part then fraction, without the dot. */
    size_t int_start = i;
    while (i < len && is_digit(s[i]))
        i++;
    size_t int_end = i;
    size_t frac_start = i, frac_end = i;
    if (i < len && s[i] == '.') {
        frac_start = ++i;
        while (i < len && is_digit(s[i]))
            i++;
        frac_end = i;
    }
    long exp = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        while (i < len && is_digit(s[i])) {
            if (exp < EXP_CLAMP)
                exp = exp * 10 + (s[i] - '0');
            i++;
        }
        if (eneg)
            exp = -exp;
    }
    if (int_end == int_start || i != len)
        return MCP_ERR_JSON_TYPE; /* not number text at all */

    /* The digit string D = int digits followed by fraction digits; value is
     * D * 10^(exp - fraction length). Locate D's first and last non-zero. */
    size_t total = (int_end - int_start) + (frac_end - frac_start);
#define DIGIT_AT(k)                                                            \
    ((k) < int_end - int_start ? s[int_start + (k)]                            \
                               : s[frac_start + (k) - (int_end - int_start)])
    size_t first = 0;
    while (first < total && DIGIT_AT(first) == '0')
        first++;
    if (first == total) { /* zero, whatever the exponent */
        *negative = false;
        *magnitude = 0;
        return MCP_OK;
    }
    size_t last = total;
    while (DIGIT_AT(last - 1) == '0')
        last--;
    /* value = digits[first..last) * 10^e10 */
    long e10 = exp - (long)(frac_end - frac_start) + (long)(total - last);
    if (e10 < 0)
        return MCP_ERR_JSON_TYPE; /* a fraction remains */
    size_t nd = last - first;
    if ((long)nd + e10 > 20)
        return MCP_ERR_JSON_RANGE;
    uint64_t v = 0;
    for (size_t k = first; k < last; k++) {
        unsigned d = (unsigned)(DIGIT_AT(k) - '0');
        if (v > (UINT64_MAX - d) / 10)
            return MCP_ERR_JSON_RANGE;
        v = v * 10 + d;
    }
#undef DIGIT_AT
    for (long k = 0; k < e10; k++) {
        if (v > UINT64_MAX / 10)
            return MCP_ERR_JSON_RANGE;
        v *= 10;
    }
    *negative = neg;
    *magnitude = v;
    return MCP_OK;
}

size_t mcp__format_u64(char *buf, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t k = 0; k < n; k++)
        buf[k] = tmp[n - 1 - k];
    return n;
}

size_t mcp__format_i64(char *buf, int64_t v)
{
    if (v < 0) {
        buf[0] = '-';
        return 1 + mcp__format_u64(buf + 1, (uint64_t)0 - (uint64_t)v);
    }
    return mcp__format_u64(buf, (uint64_t)v);
}

size_t mcp__format_double(char *buf, double d)
{
    if (isnan(d) || isinf(d))
        return 0;
    /* The shortest of 15, 16 or 17 significant digits that reads back as
     * the same double (17 always does). */
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = mcp__format_g_c(buf, MCP__DOUBLE_BUF, prec, d);
        double back;
        if (n > 0 && n < MCP__DOUBLE_BUF &&
            mcp__strtod_c(buf, (size_t)n, &back) == 0 && back == d)
            break;
    }
    if (n <= 0 || n >= MCP__DOUBLE_BUF || !mcp__number_valid(buf, (size_t)n))
        return 0;
    return (size_t)n;
}

/* Reads ------------------------------------------------------------------ */

int mcp_json_get_int64(const mcp_json *v, int64_t *out)
{
    if (!v || v->type != MCP_JSON_NUMBER)
        return MCP_ERR_JSON_TYPE;
    if (v->flags & NUM_HAS_I64) {
        *out = v->x.i;
        return MCP_OK;
    }
    bool neg;
    uint64_t mag;
    int rc = mcp__number_integer(v->u.s, v->len, &neg, &mag);
    if (rc)
        return rc;
    if (neg) {
        if (mag > (uint64_t)INT64_MAX + 1)
            return MCP_ERR_JSON_RANGE;
        *out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
    } else {
        if (mag > (uint64_t)INT64_MAX)
            return MCP_ERR_JSON_RANGE;
        *out = (int64_t)mag;
    }
    return MCP_OK;
}

int mcp_json_get_uint64(const mcp_json *v, uint64_t *out)
{
    if (!v || v->type != MCP_JSON_NUMBER)
        return MCP_ERR_JSON_TYPE;
    if (v->flags & NUM_HAS_I64) {
        if (v->x.i < 0)
            return MCP_ERR_JSON_RANGE;
        *out = (uint64_t)v->x.i;
        return MCP_OK;
    }
    bool neg;
    uint64_t mag;
    int rc = mcp__number_integer(v->u.s, v->len, &neg, &mag);
    if (rc)
        return rc;
    if (neg && mag)
        return MCP_ERR_JSON_RANGE;
    *out = mag;
    return MCP_OK;
}

/* True when the number text has a non-zero significant digit. */
static bool has_nonzero_digit(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == 'e' || s[i] == 'E')
            break;
        if (s[i] >= '1' && s[i] <= '9')
            return true;
    }
    return false;
}

int mcp_json_get_double(const mcp_json *v, double *out)
{
    if (!v || v->type != MCP_JSON_NUMBER)
        return MCP_ERR_JSON_TYPE;
    /* Exact small integers skip strtod; "-0" must keep its sign. */
    if ((v->flags & NUM_HAS_I64) && v->x.i > -(INT64_C(1) << 53) &&
        v->x.i < (INT64_C(1) << 53) && (v->x.i != 0 || v->u.s[0] != '-')) {
        *out = (double)v->x.i;
        return MCP_OK;
    }
    double d;
    if (mcp__strtod_c(v->u.s, v->len, &d))
        return MCP_ERR_NOMEM;
    if (isinf(d))
        return MCP_ERR_JSON_RANGE;
    if (d == 0 && has_nonzero_digit(v->u.s, v->len))
        return MCP_ERR_JSON_RANGE;
    *out = d;
    return MCP_OK;
}

bool mcp_json_is_integer_literal(const mcp_json *v)
{
    return v && v->type == MCP_JSON_NUMBER && (v->flags & NUM_INT_LITERAL);
}

const char *mcp_json_number_text(const mcp_json *v, size_t *len)
{
    if (!v || v->type != MCP_JSON_NUMBER)
        return NULL;
    if (len)
        *len = v->len;
    return v->u.s;
}
