/* SPDX-License-Identifier: MIT */
/* One field of a form: hint, typed value, checks (form_field.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "form_field.h"
#include "text.h"

static bool type_is(const mcp_json *p, const char *type)
{
    const char *t = mcp_json_string(mcp_json_object_get(p, "type"), NULL);
    return t && !strcmp(t, type);
}

bool form_field_askable(const mcp_json *p)
{
    if (type_is(p, "string") || type_is(p, "number") || type_is(p, "integer") ||
        type_is(p, "boolean"))
        return true;
    const mcp_json *items = mcp_json_object_get(p, "items");
    return type_is(p, "array") &&
           (mcp_json_object_get(items, "enum") || mcp_json_object_get(items, "anyOf"));
}

/* Append s (a JSON string, or any value as JSON) made safe. */
static void append_safe(mcp_buf *out, const mcp_json *v)
{
    size_t n = 0;
    const char *s = mcp_json_string(v, &n);
    if (s) {
        cli_sanitize(out, s, n, false);
        return;
    }
    mcp_buf json;
    mcp_buf_init(&json, 0, NULL);
    if (v && mcp_json_write(v, &json) == MCP_OK)
        cli_sanitize(out, json.data, json.len, false);
    mcp_buf_free(&json);
}

/* The most choices listed: more would flood the terminal (a server may
 * send 200,000), and are counted instead. */
#define MAX_CHOICES_SHOWN 100

/* Whether p offers choices; then "a, b, c", each with its title when it
 * has one ("#f00 (Red)"): a titled list (oneOf, or anyOf for a
 * multi-select, of const and title), or an enum with the legacy enumNames
 * beside it; past MAX_CHOICES_SHOWN, "... and N more". */
static bool choices(mcp_buf *out, const mcp_json *p)
{
    const mcp_json *items = mcp_json_object_get(p, "items");
    const mcp_json *where = type_is(p, "array") ? items : p;
    const mcp_json *list = mcp_json_object_get(where, "enum");
    const mcp_json *titled = mcp_json_object_get(where, type_is(p, "array") ? "anyOf" : "oneOf");
    const mcp_json *names = mcp_json_object_get(where, "enumNames");
    if (!list && !titled)
        return false;
    size_t n = list ? mcp_json_array_size(list) : mcp_json_array_size(titled);
    for (size_t i = 0; i < n; i++) {
        if (i == MAX_CHOICES_SHOWN) {
            char more[64];
            int k = snprintf(more, sizeof more, ", ... and %zu more", n - i);
            mcp_buf_append(out, more, (size_t)k);
            break;
        }
        const mcp_json *value, *title;
        if (list) {
            value = mcp_json_array_at(list, i);
            title = mcp_json_array_size(names) == n ? mcp_json_array_at(names, i) : NULL;
        } else {
            value = mcp_json_object_get(mcp_json_array_at(titled, i), "const");
            title = mcp_json_object_get(mcp_json_array_at(titled, i), "title");
        }
        if (i)
            mcp_buf_append(out, MCP_LITERAL(", "));
        append_safe(out, value);
        if (title) {
            mcp_buf_append(out, MCP_LITERAL(" ("));
            append_safe(out, title);
            mcp_buf_append(out, MCP_LITERAL(")"));
        }
    }
    return true;
}

/* The formats mcp checks (client/elicitation.mdx: email, uri, date,
 * date-time), each with what it asks for in words, an example, and its
 * check. */
static bool is_email(const char *s);
static bool is_uri(const char *s);
static bool is_date(const char *s);
static bool is_date_time(const char *s);

static const struct format {
    const char *name, *article, *noun, *example;
    bool (*valid)(const char *s);
} formats[] = {
    {"email", "an", "email address", "name@example.com", is_email},
    {"uri", "a", "URI", "https://example.com/page", is_uri},
    {"date", "a", "date", "2025-12-31", is_date},
    {"date-time", "a", "date and time", "2025-12-31T23:59:00Z", is_date_time},
};

static const struct format *format_of(const mcp_json *p)
{
    const char *name = mcp_json_string(mcp_json_object_get(p, "format"), NULL);
    for (size_t i = 0; name && type_is(p, "string") && i < sizeof formats / sizeof formats[0]; i++)
        if (!strcmp(name, formats[i].name))
            return &formats[i];
    return NULL;
}

void form_field_hint(mcp_buf *out, const mcp_json *p)
{
    const struct format *f = format_of(p);
    const char *type = mcp_json_string(mcp_json_object_get(p, "type"), NULL);
    if (type_is(p, "boolean")) {
        mcp_buf_append(out, MCP_LITERAL("y/n"));
    } else if (f) {
        mcp_buf_append(out, f->noun, strlen(f->noun));
        mcp_buf_append(out, MCP_LITERAL(", like "));
        mcp_buf_append(out, f->example, strlen(f->example));
    } else {
        size_t at = out->len;
        if (type_is(p, "array"))
            mcp_buf_append(out, MCP_LITERAL("any of: "));
        else
            mcp_buf_append(out, MCP_LITERAL("one of: "));
        if (!choices(out, p)) {
            out->len = at;
            if (type)
                mcp_buf_append(out, type, strlen(type));
        }
    }
}

/* A whole number in the JSON number grammar (2020-12 counts 2.0 as one). */
static bool whole(const mcp_json *v)
{
    double d;
    return mcp_json_get_double(v, &d) == MCP_OK && isfinite(d) && floor(d) == d;
}

static mcp_json *scalar(mcp_json_doc *d, const mcp_json *p, const char *text, const char **why)
{
    if (type_is(p, "string"))
        return mcp_json_new_string(d, text);
    if (type_is(p, "boolean")) {
        if (!strcmp(text, "y") || !strcmp(text, "yes") || !strcmp(text, "true"))
            return mcp_json_new_bool(d, true);
        if (!strcmp(text, "n") || !strcmp(text, "no") || !strcmp(text, "false"))
            return mcp_json_new_bool(d, false);
        *why = "answer y or n";
        return NULL;
    }
    bool integer = type_is(p, "integer");
    mcp_json_doc *num = NULL;
    mcp_json *v = NULL;
    if (mcp_json_parse(text, strlen(text), NULL, NULL, &num, NULL) == MCP_OK &&
        mcp_json_typeof(mcp_json_doc_root(num)) == MCP_JSON_NUMBER &&
        (!integer || whole(mcp_json_doc_root(num))))
        v = mcp_json_copy(d, mcp_json_doc_root(num));
    else
        *why = integer ? "type a whole number, like 42" : "type a number, like 42 or 2.5";
    mcp_json_doc_free(num);
    return v;
}

/* A multi-select: the values separated by commas, each trimmed. */
static mcp_json *selection(mcp_json_doc *d, const char *text)
{
    mcp_json *a = mcp_json_new_array(d);
    for (const char *s = text; a && *s;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s), b = 0;
        while (b < n && s[b] == ' ')
            b++;
        while (n > b && s[n - 1] == ' ')
            n--;
        if (n > b)
            mcp_json_array_append(d, a, mcp_json_new_stringn(d, s + b, n - b));
        s = comma ? comma + 1 : s + strlen(s);
    }
    return a;
}

/* Whether v fits p: its format (a string without NUL that the format's
 * check takes), then checker; else false, why saying what to type. */
static bool fits(const mcp_json *p, const mcp_schema *checker, const mcp_json *v, mcp_buf *why)
{
    const struct format *f = format_of(p);
    size_t n = 0;
    const char *s = mcp_json_string(v, &n);
    mcp_schema_error err;
    if (f && (!s || strlen(s) != n || !f->valid(s))) {
        char line[160];
        snprintf(line, sizeof line, "not %s %s: type one like %s", f->article, f->noun,
                 f->example);
        mcp_buf_append(why, line, strlen(line));
        return false;
    }
    if (checker && mcp_schema_validate(checker, v, &err) != MCP_OK) {
        /* A choice outside the list: the choices, not the rule (a titled
         * list fails as "must match one of the 3 schemas of oneOf"). */
        static const char *const choice_rules[] = {"enum", "const", "oneOf", "anyOf"};
        bool choice = false;
        for (size_t i = 0; i < sizeof choice_rules / sizeof choice_rules[0]; i++)
            choice |= !strcmp(err.keyword, choice_rules[i]);
        size_t at = why->len;
        if (choice && type_is(p, "array"))
            mcp_buf_append(why, MCP_LITERAL("choose any of: "));
        else if (choice)
            mcp_buf_append(why, MCP_LITERAL("choose one of: "));
        if (!choice || !choices(why, p)) {
            why->len = at;
            cli_sanitize(why, err.message, strlen(err.message), false);
            mcp_buf_append(why, MCP_LITERAL(" ("));
            cli_sanitize(why, err.keyword, strlen(err.keyword), false);
            mcp_buf_append(why, MCP_LITERAL(")"));
        }
        return false;
    }
    return true;
}

mcp_json *form_field_value(mcp_json_doc *d, const mcp_json *p, const mcp_schema *checker,
                           const char *text, mcp_buf *why)
{
    mcp_buf_reset(why);
    const char *words = NULL;
    mcp_json *v = type_is(p, "array") ? selection(d, text) : scalar(d, p, text, &words);
    if (!v) {
        if (words)
            mcp_buf_append(why, words, strlen(words));
    } else if (!fits(p, checker, v, why)) {
        v = NULL;
    }
    return v;
}

bool form_field_fits(const mcp_json *p, const mcp_schema *checker, const mcp_json *v,
                     mcp_buf *why)
{
    mcp_buf_reset(why);
    return fits(p, checker, v, why);
}

/* The formats ------------------------------------------------------------------------------ */

/* No space and no control character: neither ASCII ones nor the C1 and
 * bidirectional controls (U+0085, U+202E: what the library escapes for a
 * terminal), which no address or URI has and which would make one read as
 * another. */
static bool printable_without_space(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
            return false;
    mcp_buf escaped;
    mcp_buf_init(&escaped, 0, NULL);
    bool same = mcp_text_escape_controls_buf(s, n, &escaped) == MCP_OK && escaped.len == n;
    mcp_buf_free(&escaped);
    return same;
}

/* local@domain: one @, something before it, a domain of dot-separated
 * labels after it (RFC 5321's shape; what a user mistypes, not every
 * quoted form). */
static bool is_email(const char *s)
{
    const char *at = strchr(s, '@');
    if (!at || at == s || strchr(at + 1, '@') || !printable_without_space(s))
        return false;
    const char *domain = at + 1;
    size_t n = strlen(domain);
    return n >= 3 && strchr(domain, '.') && domain[0] != '.' && domain[n - 1] != '.' &&
           !strstr(domain, "..");
}

/* scheme ":" rest (RFC 3986: a scheme is a letter, then letters, digits,
 * "+", "-" or "."), with no space: an absolute URI. */
static bool is_uri(const char *s)
{
    if (!isalpha((unsigned char)s[0]))
        return false;
    size_t i = 1;
    while (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')
        i++;
    return s[i] == ':' && s[i + 1] && printable_without_space(s);
}

/* n digits at s, their value in *v. */
static bool digits(const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        *v = *v * 10 + (s[i] - '0');
    }
    return true;
}

/* full-date of RFC 3339: YYYY-MM-DD, a day that exists. */
static bool full_date(const char *s)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, m, d;
    if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &m) || s[7] != '-' ||
        !digits(s + 8, 2, &d) || m < 1 || m > 12 || d < 1)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= days[m - 1] + (m == 2 && leap);
}

static bool is_date(const char *s)
{
    return strlen(s) == 10 && full_date(s);
}

/* date-time of RFC 3339: full-date "T" HH:MM:SS[.fraction] (Z | +HH:MM |
 * -HH:MM), T and Z in either case, second 60 for a leap second, which is
 * the last second of a UTC day (23:59:60Z, or 01:29:60+01:30). */
static bool leap_second_at(int h, int m, int offset_minutes)
{
    int utc = ((h * 60 + m - offset_minutes) % 1440 + 1440) % 1440;
    return utc == 23 * 60 + 59;
}

static bool is_date_time(const char *s)
{
    int h, m, sec, oh, om;
    if (strlen(s) < 20 || !full_date(s) || (s[10] != 'T' && s[10] != 't') ||
        !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &m) || s[16] != ':' ||
        !digits(s + 17, 2, &sec) || h > 23 || m > 59 || sec > 60)
        return false;
    const char *z = s + 19;
    if (*z == '.') {
        z++;
        if (!isdigit((unsigned char)*z))
            return false;
        while (isdigit((unsigned char)*z))
            z++;
    }
    if ((*z == 'Z' || *z == 'z') && !z[1])
        return sec < 60 || leap_second_at(h, m, 0);
    if (!((*z == '+' || *z == '-') && digits(z + 1, 2, &oh) && z[3] == ':' &&
          digits(z + 4, 2, &om) && !z[6] && oh <= 23 && om <= 59))
        return false;
    return sec < 60 || leap_second_at(h, m, (*z == '-' ? -1 : 1) * (oh * 60 + om));
}
