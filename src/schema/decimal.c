/* SPDX-License-Identifier: MIT */
/*
 * Numbers as their decimal text says, for the keywords that compare them:
 * a double cannot tell 9007199254740993 from ...992, turns 1e400 into
 * infinity and 1e-400 into 0, and makes 1000000001 look like a multiple of
 * 2. Exact comparison, divisibility and a hash that equal values share
 * (1, 1.0 and 10e-1 alike).
 */
#include <string.h>

#include "core/hash.h"
#include "schema/internal.h"

/* A JSON number: value = 0.d1d2d3... x 10^point, digits without leading or
 * trailing zeros (none: the value is 0). The digits are read from the text,
 * skipping its '.'. */
typedef struct decimal {
    bool negative;
    const char *text;
    size_t len;
    size_t first, last; /* offsets of the first and last significant digit */
    size_t count;       /* significant digits */
    int64_t point;      /* saturated */
} decimal;

static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static void read_decimal(const mcp_json *v, decimal *d)
{
    size_t len;
    const char *t = mcp_json_number_text(v, &len);
    memset(d, 0, sizeof *d);
    d->text = t;
    d->len = len;
    size_t i = 0;
    if (i < len && t[i] == '-') {
        d->negative = true;
        i++;
    }
    size_t mant_end = i;
    while (mant_end < len && t[mant_end] != 'e' && t[mant_end] != 'E')
        mant_end++;
    int64_t exp = 0;
    if (mant_end < len) {
        size_t k = mant_end + 1;
        bool eneg = k < len && t[k] == '-';
        if (k < len && (t[k] == '-' || t[k] == '+'))
            k++;
        for (; k < len; k++)
            exp = exp > (INT64_MAX - 9) / 10 ? INT64_MAX : exp * 10 + (t[k] - '0');
        if (eneg)
            exp = -exp;
    }
    /* Digits before the '.': each counts toward the point. */
    int64_t int_digits = 0;
    bool seen = false;
    for (size_t k = i; k < mant_end; k++) {
        if (t[k] == '.') {
            seen = true;
            continue;
        }
        if (!seen)
            int_digits++;
        if (t[k] != '0') {
            if (!d->count)
                d->first = k;
            d->last = k;
            d->count = 1; /* recounted below */
        }
    }
    if (!d->count) {
        d->negative = false; /* -0 is 0 */
        return;
    }
    /* Leading zeros before the first significant digit shift the point. */
    int64_t lead = 0;
    for (size_t k = i; k < d->first; k++)
        if (t[k] != '.')
            lead++;
    d->count = 0;
    for (size_t k = d->first; k <= d->last; k++)
        d->count += t[k] != '.';
    d->point = sat_add(int_digits - lead, exp);
}

/* The i-th significant digit (0-based). Digits are walked in order by the
 * callers, so the '.' is stepped over once. */
typedef struct cursor {
    const decimal *d;
    size_t at;
} cursor;

static int next_digit(cursor *c)
{
    if (c->at > c->d->last)
        return -1;
    if (c->d->text[c->at] == '.')
        c->at++;
    return c->d->text[c->at++] - '0';
}

static int compare_magnitude(const decimal *a, const decimal *b)
{
    if (!a->count || !b->count)
        return (a->count != 0) - (b->count != 0);
    if (a->point != b->point)
        return a->point < b->point ? -1 : 1;
    cursor x = {a, a->first}, y = {b, b->first};
    for (;;) {
        int p = next_digit(&x), q = next_digit(&y);
        if (p != q)
            return p < q ? -1 : 1; /* -1 (ended) sorts first */
        if (p < 0)
            return 0;
    }
}

int mcp__decimal_compare(const mcp_json *a, const mcp_json *b)
{
    decimal x, y;
    read_decimal(a, &x);
    read_decimal(b, &y);
    if (x.negative != y.negative)
        return x.negative ? -1 : 1;
    int m = compare_magnitude(&x, &y);
    return x.negative ? -m : m;
}

uint64_t mcp__decimal_hash(const mcp_json *v)
{
    decimal d;
    read_decimal(v, &d);
    uint64_t h = mcp__hash_u64((uint64_t)d.point ^ (d.negative ? 0x8000000000000000ull : 0));
    cursor c = {&d, d.first};
    for (int digit; d.count && (digit = next_digit(&c)) >= 0;)
        h = (h ^ (uint64_t)digit) * 0x100000001B3ull;
    return h;
}

int mcp__decimal_multiple(const mcp_json *x, const mcp_json *m)
{
    decimal a, b;
    read_decimal(x, &a);
    read_decimal(m, &b);
    if (!a.count)
        return 1; /* 0 is a multiple of anything */
    if (!b.count || b.count > 18)
        return -1; /* not decided here */
    /* x = A * 10^ea, m = B * 10^eb with A, B integers without trailing
     * zeros; x / m = A / B * 10^(ea - eb). */
    int64_t ea = sat_add(a.point, -(int64_t)a.count), eb = sat_add(b.point, -(int64_t)b.count);
    if (eb == INT64_MIN)
        eb++; /* so that ea - eb below cannot overflow when ea >= eb */
    uint64_t B = 0;
    cursor c = {&b, b.first};
    for (int digit; (digit = next_digit(&c)) >= 0;)
        B = B * 10 + (uint64_t)digit;
    if (ea < eb)
        return 0; /* A would need eb - ea trailing zeros: it has none */
    unsigned __int128 r = 0;
    c = (cursor){&a, a.first};
    for (int digit; (digit = next_digit(&c)) >= 0;)
        r = (r * 10 + (unsigned)digit) % B;
    /* times 10^(ea - eb), mod B, by squaring */
    unsigned __int128 base = 10 % B, acc = 1 % B;
    for (uint64_t e = (uint64_t)(ea - eb); e; e >>= 1) {
        if (e & 1)
            acc = acc * base % B;
        base = base * base % B;
    }
    return r * acc % B == 0;
}

bool mcp__decimal_is_integer(const mcp_json *v)
{
    decimal d;
    read_decimal(v, &d);
    return !d.count || d.point >= (int64_t)d.count;
}
