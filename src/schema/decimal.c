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
#include "json/value.h"
#include "schema/internal.h"

/* A JSON number: value = 0.d1d2d3... x 10^point, digits without leading or
 * trailing zeros (none: the value is 0). The digits are read from the text,
 * skipping its '.' (mcp__decimal, internal.h). */
typedef mcp__decimal decimal;

static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

/* One pass over the text: the bounds of a tool's numbers are checked on
 * every call, this is most of the work of an exact comparison. */
void mcp__decimal_read(const mcp_json *v, decimal *d)
{
    const char *t = v->u.s;
    size_t len = v->len;
    memset(d, 0, sizeof *d);
    d->text = t;
    size_t k = 0;
    if (k < len && t[k] == '-') {
        d->negative = true;
        k++;
    }
    /* Digits before the '.' each count toward the point, zeros before the
     * first significant digit against it. */
    int64_t int_digits = 0, lead = 0;
    size_t digits = 0; /* from the first significant one */
    bool dot = false;
    for (; k < len; k++) {
        char ch = t[k];
        if (ch == '.') {
            dot = true;
            continue;
        }
        if (ch == 'e' || ch == 'E')
            break;
        int_digits += !dot;
        if (ch != '0') {
            if (!digits)
                d->first = (uint32_t)k;
            d->last = (uint32_t)k;
            d->count = (uint32_t)++digits;
        } else if (digits) {
            digits++;
        } else {
            lead++;
        }
    }
    int64_t exp = 0;
    if (k < len) {
        k++;
        bool eneg = k < len && t[k] == '-';
        if (k < len && (t[k] == '-' || t[k] == '+'))
            k++;
        for (; k < len; k++)
            exp = exp > (INT64_MAX - 9) / 10 ? INT64_MAX : exp * 10 + (t[k] - '0');
        if (eneg)
            exp = -exp;
    }
    if (!d->count) {
        d->negative = false; /* -0 is 0 */
        return;
    }
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

/* A number of the usual form (no exponent, at most 18 digits before its
 * '.'), without reading it as a decimal: its integer part and where its
 * fraction puts it from there (0: none; 1 above, -1 below, for a negative
 * number). Against an integer b, these decide: a fraction cannot reach
 * the next integer. False for another form. */
bool mcp__decimal_whole(const mcp_json *v, int64_t *whole, int *fraction)
{
    const char *t = v->u.s;
    size_t len = v->len, k = 0;
    bool negative = len && t[0] == '-';
    k += negative;
    int64_t i = 0;
    size_t start = k;
    for (; k < len && t[k] >= '0' && t[k] <= '9'; k++) {
        if (k - start == 18)
            return false;
        i = i * 10 + (t[k] - '0');
    }
    bool nonzero = false;
    if (k < len && t[k] == '.')
        for (k++; k < len && t[k] >= '0' && t[k] <= '9'; k++)
            nonzero |= t[k] != '0';
    if (k < len)
        return false; /* an exponent */
    *whole = negative ? -i : i;
    *fraction = !nonzero ? 0 : negative ? -1 : 1;
    return true;
}

int mcp__decimal_cmp(const decimal *x, const decimal *y)
{
    if (x->negative != y->negative)
        return x->negative ? -1 : 1;
    int m = compare_magnitude(x, y);
    return x->negative ? -m : m;
}

uint64_t mcp__decimal_hash(const mcp_json *v)
{
    decimal d;
    mcp__decimal_read(v, &d);
    uint64_t h = mcp__hash_u64((uint64_t)d.point ^ (d.negative ? 0x8000000000000000ull : 0));
    cursor c = {&d, d.first};
    for (int digit; d.count && (digit = next_digit(&c)) >= 0;)
        h = (h ^ (uint64_t)digit) * 0x100000001B3ull;
    return h;
}

int mcp__decimal_multiple(const decimal *x, const decimal *m)
{
    decimal a = *x, b = *m;
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
    mcp__decimal_read(v, &d);
    return !d.count || d.point >= (int64_t)d.count;
}
