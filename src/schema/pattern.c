/* SPDX-License-Identifier: MIT */
/*
 * The patterns most tool schemas have, matched without PCRE2: ^[a-z]+$,
 * ^[a-z]{2}-[A-Z]{2}$, ^https://, \d{4}-\d{2}: a sequence of atoms, each
 * an ASCII character or a set of them, each maybe repeated (?, *, +,
 * {n}, {n,}, {n,m}), between an optional ^ and an optional $. PCRE2 costs
 * a match data, a context and its own set-up on every call (about 450
 * instructions with the JIT for a word of seven letters, 1,200 without);
 * here a match is one pass over the subject, a few instructions a byte,
 * and nothing to allocate.
 *
 * Everything else (groups, alternatives, ., classes that are negated or
 * reach past ASCII such as \s and \W, lazy or possessive repeats, escapes
 * beyond the plain ones) is left to PCRE2, as is a pattern of more than
 * MAX_POS positions. The compile in compile.c runs PCRE2 first, so a
 * pattern seen here is one PCRE2 accepted; this one must then agree with
 * PCRE2 on every subject (fuzz_schema checks it does).
 *
 * Why matching bytes is matching characters here: every set holds only
 * ASCII characters, and in UTF-8 a byte below 0x80 is always a whole
 * character, a byte above never matches. A match cannot begin inside a
 * character: its first byte would be one no set holds.
 *
 * The automaton (Glushkov's, simulated bit-parallel): a repeat becomes
 * positions (x{2,4} is x x x? x?, x+ is x x*), each of kind one, optional
 * (?) or star (*). Bit p of the state says "the first p positions are
 * matched"; bit N, all of them. A byte c moves bit p to p + 1 if position
 * p's set holds c (a star position stays at p as well, to take more), then
 * the closure lets every bit run through the optional and star positions
 * that follow it (they may match nothing): for a run of such positions Z
 * and the bits X of the state inside it, (Z + X) ^ Z sets every bit from
 * the lowest bit of X to one past the run, the carry doing the running.
 */
#include <stdlib.h>
#include <string.h>

#include "schema/internal.h"

#define WORDS 4               /* of the state: up to 255 positions */
#define MAX_POS (64 * WORDS - 1)

typedef uint64_t set128[2]; /* ASCII characters */

struct mcp__pattern {
    bool anchored_start, anchored_end;
    unsigned words;   /* of the state, 1..WORDS */
    unsigned count;   /* positions: bit count is acceptance */
    uint8_t cls[128]; /* ASCII byte -> its class; class 0: in no set */
    uint64_t *masks;  /* per class, `words` words: the positions whose set holds it */
    uint64_t star[WORDS];     /* positions that may repeat */
    uint64_t nullable[WORDS]; /* optional and star positions */
    uint64_t start[WORDS];    /* the closure of bit 0 */
    /* With ^ and one word: the first `prefix` positions take one byte
     * each, so the state is one bit at a time and each byte needs a look
     * at one bit; after them, the state is after_prefix. When that is the
     * last position, a star, and the end (^[a-z]+$ and its like), every
     * byte left must be in its set: tail says so. */
    unsigned prefix;
    uint64_t after_prefix;
    bool tail;
    /* The first `literal` positions of the prefix hold one byte each
     * (^https://): compared as bytes. */
    unsigned literal;
    char bytes[16];
};

/* Parsing ------------------------------------------------------------------ */

enum { ONE, OPTIONAL, STAR };

typedef struct builder {
    set128 sets[MAX_POS];
    uint8_t kinds[MAX_POS];
    unsigned count;
    uint64_t holders[128][WORDS]; /* per ASCII byte, the positions that hold it */
} builder;

static void set_add(set128 s, unsigned c)
{
    s[c >> 6] |= 1ull << (c & 63);
}

static void set_range(set128 s, unsigned lo, unsigned hi)
{
    for (unsigned c = lo; c <= hi; c++)
        set_add(s, c);
}

/* A character PCRE2 and ECMA-262 both read as itself when escaped. */
static bool escaped_literal(char ch)
{
    return ch && strchr("\\^$.|?*+()[]{}/-", ch) != NULL;
}

/* The escape at p (after its backslash) into set s: \d, \w, \t, \n, \r, \f
 * or an escaped punctuation character. *single is the character when it
 * is one (a range may end at it), else -1. False: not ours. */
static bool escape(const char *p, const char *end, set128 s, int *single)
{
    if (p >= end)
        return false;
    *single = -1;
    switch (*p) {
    case 'd': set_range(s, '0', '9'); return true;
    case 'w':
        set_range(s, '0', '9');
        set_range(s, 'A', 'Z');
        set_range(s, 'a', 'z');
        set_add(s, '_');
        return true;
    case 't': *single = '\t'; break;
    case 'n': *single = '\n'; break;
    case 'r': *single = '\r'; break;
    case 'f': *single = '\f'; break;
    default:
        if (!escaped_literal(*p))
            return false; /* \s, \b, \u, \x, \1, \v (PCRE2's is not ECMA's)... */
        *single = (unsigned char)*p;
    }
    set_add(s, (unsigned)*single);
    return true;
}

static bool plain_char(char ch)
{
    return ch >= 0x20 && ch < 0x7f;
}

/* A set [...] at p (after its '['); returns the end, or NULL: not ours. A
 * '-' is a range between two characters, or itself first or last;
 * anything that PCRE2 and ECMA-262 might read apart ([^...], []...],
 * [[:alpha:]], [\d-z], a-b-c) is refused. */
static const char *parse_set(const char *p, const char *end, set128 s)
{
    if (p >= end || *p == '^' || *p == ']')
        return NULL;
    const char *first = p;
    while (p < end && *p != ']') {
        int lo;
        if (*p == '\\') {
            if (!escape(p + 1, end, s, &lo))
                return NULL;
            p += 2;
        } else if (*p == '-') {
            if (p != first && !(p + 1 < end && p[1] == ']'))
                return NULL;
            set_add(s, '-');
            p++;
            continue;
        } else if (*p == '[' || !plain_char(*p)) {
            return NULL;
        } else {
            lo = (unsigned char)*p++;
            set_add(s, (unsigned)lo);
        }
        if (p + 1 < end && *p == '-' && p[1] != ']') { /* a range */
            int hi;
            set128 ignored = {0, 0};
            if (lo < 0 || lo == '-')
                return NULL;
            if (p[1] == '\\') {
                if (!escape(p + 2, end, ignored, &hi))
                    return NULL;
                p += 3;
            } else if (p[1] == '[' || p[1] == '-' || !plain_char(p[1])) {
                return NULL;
            } else {
                hi = (unsigned char)p[1];
                p += 2;
            }
            if (hi < 0 || hi < lo)
                return NULL;
            set_range(s, (unsigned)lo, (unsigned)hi);
        }
    }
    return p < end ? p + 1 : NULL;
}

/* Digits at *p up to a bound; false when there are none. */
static bool number(const char **p, const char *end, unsigned *out)
{
    const char *q = *p;
    unsigned n = 0;
    while (q < end && *q >= '0' && *q <= '9') {
        n = n * 10 + (unsigned)(*q - '0');
        if (n > MAX_POS + 1)
            n = MAX_POS + 1; /* too many positions either way */
        q++;
    }
    if (q == *p)
        return false;
    *p = q;
    *out = n;
    return true;
}

static bool add_position(builder *b, const set128 s, int kind)
{
    if (b->count >= MAX_POS)
        return false;
    memcpy(b->sets[b->count], s, sizeof(set128));
    b->kinds[b->count++] = (uint8_t)kind;
    return true;
}

/* The atom's set s, repeated as the quantifier at *p says. */
static bool quantified(builder *b, const set128 s, const char **p, const char *end)
{
    unsigned min = 1, max = 1; /* max: UINT_MAX for no bound */
    const char *q = *p;
    if (q < end && (*q == '*' || *q == '+' || *q == '?')) {
        min = *q == '+' ? 1 : 0;
        max = *q == '?' ? 1 : ~0u;
        q++;
    } else if (q < end && *q == '{') {
        q++;
        if (!number(&q, end, &min))
            return false; /* {,n} and a literal { are PCRE2's business */
        max = min;
        if (q < end && *q == ',') {
            q++;
            max = ~0u;
            if (q < end && *q != '}' && !number(&q, end, &max))
                return false;
        }
        if (q >= end || *q != '}' || max < min)
            return false;
        q++;
    }
    if (q < end && (*q == '?' || *q == '+'))
        return false; /* lazy (the same answer, but rare) or possessive (not) */
    *p = q;
    for (unsigned i = 0; i < min; i++)
        if (!add_position(b, s, ONE))
            return false;
    if (max == ~0u)
        return add_position(b, s, STAR);
    for (unsigned i = min; i < max; i++)
        if (!add_position(b, s, OPTIONAL))
            return false;
    return true;
}

/* Building ----------------------------------------------------------------- */

static void bit_set(uint64_t *w, unsigned i)
{
    w[i >> 6] |= 1ull << (i & 63);
}

/* state |= the closure of state: see the top of the file. */
static void closure(const mcp__pattern *p, uint64_t *state)
{
    unsigned carry = 0;
    for (unsigned w = 0; w < p->words; w++) {
        uint64_t z = p->nullable[w], x = state[w] & z;
        uint64_t sum = z + x;
        unsigned out = sum < z;
        sum += carry;
        out |= sum < (uint64_t)carry;
        state[w] |= sum ^ z;
        carry = out;
    }
}

const mcp__pattern *mcp__pattern_compile(mcp__arena *arena, const char *src, size_t len)
{
    builder *b = calloc(1, sizeof *b); /* 8 KB: off the compiler's recursion */
    if (!b)
        return NULL;
    const char *p = src, *end = src + len;
    bool anchored_start = false, anchored_end = false;
    if (p < end && *p == '^') {
        anchored_start = true;
        p++;
    }
    bool ok = true;
    while (ok && p < end) {
        set128 s = {0, 0};
        int single;
        char ch = *p;
        if (ch == '$' && p + 1 == end) {
            anchored_end = true;
            p++;
            break;
        }
        if (ch == '[') {
            p = parse_set(p + 1, end, s);
            ok = p != NULL;
        } else if (ch == '\\') {
            ok = escape(p + 1, end, s, &single);
            p += 2;
        } else if (plain_char(ch) && !strchr("^$.|?*+()[]{}", ch)) {
            set_add(s, (unsigned char)ch);
            p++;
        } else {
            ok = false;
        }
        ok = ok && quantified(b, s, &p, end);
    }
    mcp__pattern *re = NULL;
    if (ok)
        re = mcp__arena_alloc(arena, sizeof *re);
    if (re) {
        memset(re, 0, sizeof *re);
        re->anchored_start = anchored_start;
        re->anchored_end = anchored_end;
        re->count = b->count;
        re->words = b->count / 64 + 1;
        /* Classes: the ASCII bytes that the same positions hold. */
        uint64_t (*vec)[WORDS] = b->holders;
        for (unsigned i = 0; i < b->count; i++) {
            if (b->kinds[i] == STAR)
                bit_set(re->star, i);
            if (b->kinds[i] != ONE)
                bit_set(re->nullable, i);
            for (unsigned c = 0; c < 128; c++)
                if (b->sets[i][c >> 6] >> (c & 63) & 1)
                    bit_set(vec[c], i);
        }
        unsigned classes = 1; /* class 0: no position */
        unsigned first_of[129] = {0};
        static const uint64_t zero[WORDS];
        for (unsigned c = 0; c < 128; c++) {
            unsigned k = 0;
            if (memcmp(vec[c], zero, sizeof zero) != 0) {
                for (k = 1; k < classes; k++)
                    if (memcmp(vec[c], vec[first_of[k]], sizeof zero) == 0)
                        break;
                if (k == classes)
                    first_of[classes++] = c;
            }
            re->cls[c] = (uint8_t)k;
        }
        uint64_t *masks = mcp__arena_alloc(arena, classes * re->words * sizeof *masks);
        if (!masks) {
            re = NULL;
        } else {
            memset(masks, 0, re->words * sizeof *masks);
            for (unsigned k = 1; k < classes; k++)
                memcpy(masks + k * re->words, vec[first_of[k]], re->words * sizeof *masks);
            re->masks = masks;
            bit_set(re->start, 0);
            closure(re, re->start);
            if (re->words == 1) {
                while (re->prefix < re->count && b->kinds[re->prefix] == ONE)
                    re->prefix++;
                while (anchored_start && re->literal < re->prefix && re->literal < 16 &&
                       (b->sets[re->literal][0] | b->sets[re->literal][1]) != 0) {
                    const uint64_t *set = b->sets[re->literal];
                    unsigned w = set[0] ? 0 : 1;
                    if (set[w] & (set[w] - 1) || set[w ^ 1])
                        break; /* more than one byte */
                    re->bytes[re->literal++] = (char)(w * 64 + (unsigned)__builtin_ctzll(set[w]));
                }
                bit_set(&re->after_prefix, re->prefix);
                closure(re, &re->after_prefix);
                re->tail = anchored_end && re->count && b->kinds[re->count - 1] == STAR &&
                           re->after_prefix == (3ull << (re->count - 1));
            }
        }
    }
    free(b);
    return re;
}

/* Matching ----------------------------------------------------------------- */

static bool accepts(const mcp__pattern *p, const uint64_t *state)
{
    return state[p->count >> 6] >> (p->count & 63) & 1;
}

static inline uint64_t holders(const mcp__pattern *p, unsigned char c)
{
    return c < 128 ? p->masks[p->cls[c]] : 0;
}

/* The state after byte c (one word: most patterns). */
static inline uint64_t step1(const mcp__pattern *p, uint64_t state, unsigned char c)
{
    uint64_t x = state & holders(p, c);
    uint64_t next = ((x & ~p->star[0]) << 1) | (x & p->star[0]);
    if (!p->anchored_start)
        next |= 1; /* a match may begin at every byte */
    uint64_t z = p->nullable[0];
    return next | ((z + (next & z)) ^ z);
}

static bool match1(const mcp__pattern *p, const unsigned char *s, size_t len)
{
    uint64_t state = p->start[0], accept = 1ull << p->count;
    size_t i = 0;
    if (p->anchored_start) {
        if (len < p->prefix || memcmp(s, p->bytes, p->literal) != 0)
            return false;
        for (i = p->literal; i < p->prefix; i++)
            if (!(holders(p, s[i]) >> i & 1))
                return false;
        state = p->after_prefix;
        if (p->tail) {
            unsigned last = p->count - 1;
            for (; i < len; i++)
                if (!(holders(p, s[i]) >> last & 1))
                    return false;
            return true;
        }
    }
    if (!p->anchored_end) {
        if (state & accept)
            return true;
        for (; i < len; i++) {
            state = step1(p, state, s[i]);
            if (state & accept)
                return true;
            if (!state)
                return false;
        }
        return false;
    }
    for (; i < len && state; i++)
        state = step1(p, state, s[i]);
    return (state & accept) != 0;
}

static bool match_words(const mcp__pattern *p, const unsigned char *s, size_t len)
{
    uint64_t state[WORDS];
    unsigned words = p->words;
    memcpy(state, p->start, sizeof state);
    if (!p->anchored_end && accepts(p, state))
        return true;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = s[i];
        const uint64_t *m = p->masks + (size_t)(c < 128 ? p->cls[c] : 0) * words;
        uint64_t shifted_in = p->anchored_start ? 0 : 1, any = 0;
        for (unsigned w = 0; w < words; w++) {
            uint64_t x = state[w] & m[w];
            uint64_t moved = x & ~p->star[w];
            state[w] = (moved << 1) | shifted_in | (x & p->star[w]);
            shifted_in = moved >> 63;
        }
        closure(p, state);
        for (unsigned w = 0; w < words; w++)
            any |= state[w];
        if (!p->anchored_end && accepts(p, state))
            return true;
        if (!any)
            return false;
    }
    return p->anchored_end && accepts(p, state);
}

bool mcp__pattern_match(const mcp__pattern *p, const char *s, size_t len)
{
    return p->words == 1 ? match1(p, (const unsigned char *)s, len)
                         : match_words(p, (const unsigned char *)s, len);
}
