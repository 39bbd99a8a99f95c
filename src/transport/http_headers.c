/* SPDX-License-Identifier: MIT */
#include "transport/http_headers.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base64.h"

static const char prefix[] = "=?base64?";
static const char suffix[] = "?=";
#define PREFIX_LEN (sizeof prefix - 1)
#define SUFFIX_LEN (sizeof suffix - 1)

static bool looks_encoded(const char *v, size_t n)
{
    return n >= PREFIX_LEN + SUFFIX_LEN && memcmp(v, prefix, PREFIX_LEN) == 0 &&
           memcmp(v + n - SUFFIX_LEN, suffix, SUFFIX_LEN) == 0;
}

static bool field_byte(unsigned char c)
{
    return (c >= 0x20 && c <= 0x7e) || c == '\t';
}

static bool plain_safe(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!field_byte((unsigned char)v[i]))
            return false;
    /* A field value's edges are trimmed by every HTTP parser: blanks there
     * would not survive the trip. */
    if (n && (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' || v[n - 1] == '\t'))
        return false;
    return !looks_encoded(v, n);
}

int mcp__http_value_encode(mcp_buf *out, const char *v, size_t n)
{
    if (plain_safe(v, n))
        return mcp_buf_append(out, v, n);
    size_t mark = out->len;
    int rc = mcp_buf_append(out, prefix, PREFIX_LEN);
    if (rc == MCP_OK)
        rc = mcp__base64_encode(out, v, n);
    if (rc == MCP_OK)
        rc = mcp_buf_append(out, suffix, SUFFIX_LEN);
    if (rc != MCP_OK) {
        out->len = mark;
        if (out->data)
            out->data[mark] = '\0';
    }
    return rc;
}

int mcp__http_value_decode(mcp_buf *out, const char *v, size_t n)
{
    if (looks_encoded(v, n))
        return mcp__base64_decode(out, v + PREFIX_LEN, n - PREFIX_LEN - SUFFIX_LEN);
    for (size_t i = 0; i < n; i++)
        if (!field_byte((unsigned char)v[i]))
            return MCP_ERR_INVALID_ARG;
    return mcp_buf_append(out, v, n);
}

bool mcp__http_param_text(const mcp_json *v, const char **text, size_t *len, bool *number)
{
    bool b;
    *number = false;
    switch (mcp_json_typeof(v)) {
    case MCP_JSON_STRING:
        *text = mcp_json_string(v, len);
        return *text != NULL;
    case MCP_JSON_BOOL:
        if (mcp_json_get_bool(v, &b) != MCP_OK)
            return false;
        *text = b ? "true" : "false";
        *len = b ? 4 : 5;
        return true;
    case MCP_JSON_NUMBER:
        *number = true;
        *text = mcp_json_number_text(v, len);
        return *text != NULL;
    default:
        return false;
    }
}

bool mcp__http_token_valid(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alnum && (c == 0 || !strchr("!#$%&'*+-.^_`|~", c)))
            return false;
    }
    return true;
}

char *mcp__http_header_for_curl(const char *line)
{
    const char *colon = strchr(line, ':');
    const char *v = colon ? colon + 1 : NULL;
    while (v && (*v == ' ' || *v == '\t'))
        v++;
    if (!v || *v)
        return strdup(line);
    size_t n = (size_t)(colon - line);
    char *out = malloc(n + 2);
    if (out) {
        memcpy(out, line, n);
        memcpy(out + n, ";", 2);
    }
    return out;
}

const char *mcp__http_url_shown(const char *url, char *out, size_t size)
{
    /* The password sits between the userinfo's first ':' and the last '@'
     * of the authority (RFC 3986: the authority ends at '/', '?' or '#'). */
    const char *auth = strstr(url, "://");
    auth = auth ? auth + 3 : url;
    size_t alen = strcspn(auth, "/?#");
    const char *at = NULL;
    for (const char *p = auth; p < auth + alen; p++)
        if (*p == '@')
            at = p;
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    /* Room is kept for "..." (3) and the NUL. */
    size_t n = 0, room = size - 4;
    const char *p = url;
    for (; *p; p++) {
        if (colon && p == colon + 1) {
            if (n + 3 > room)
                break;
            memcpy(out + n, "***", 3);
            n += 3;
            p = at - 1; /* the '@' next */
            colon = NULL;
            continue;
        }
        if (n + 1 > room)
            break;
        unsigned char c = (unsigned char)*p;
        out[n++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
    }
    if (*p) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* Request headers the server checks -------------------------------------------- */

bool mcp__http_name_in_list(char *const *list, const char *v, size_t n)
{
    for (size_t i = 0; list && list[i]; i++)
        if ((strcmp(list[i], "*") == 0) || (strlen(list[i]) == n && strncasecmp(list[i], v, n) == 0))
            return true;
    return false;
}

bool mcp__http_loopback_name(const char *v, size_t n)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < 3; i++) {
        size_t k = strlen(names[i]);
        if (n >= k && strncasecmp(v, names[i], k) == 0) {
            if (n == k)
                return true;
            if (v[k] != ':' || n == k + 1)
                continue;
            size_t j = k + 1;
            while (j < n && v[j] >= '0' && v[j] <= '9')
                j++;
            if (j == n)
                return true;
        }
    }
    return false;
}

bool mcp__http_media_is(const char *value, const char *type, size_t k, const char *tail)
{
    value += strspn(value, " \t");
    size_t t = strlen(tail);
    return strncasecmp(value, type, k) == 0 && strncmp(value + k, tail, t) == 0 &&
           strchr(";, \t", value[k + t]); /* or the end: strchr finds the NUL */
}

bool mcp__http_accepts(const char *accept, const char *type)
{
    if (!accept)
        return false;
    size_t all = strlen(type), major = (size_t)(strchr(type, '/') - type) + 1;
    for (const char *p = accept; p && *p;) {
        if (mcp__http_media_is(p, type, all, "") || mcp__http_media_is(p, type, major, "*") ||
            mcp__http_media_is(p, MCP_LITERAL("*/*"), ""))
            return true;
        p = strchr(p, ',');
        if (p)
            p++;
    }
    return false;
}

bool mcp__http_chunked_last(const char *te)
{
    const char *v = strrchr(te, ',');
    v = v ? v + 1 : te;
    size_t n = strlen(v);
    while (n && (*v == ' ' || *v == '\t'))
        v++, n--;
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    return n == 7 && strncasecmp(v, "chunked", 7) == 0;
}

#define HEADER_KEEP_CAP 8192

void mcp__http_header_keep(char **kept, const char *v, size_t n, bool combine)
{
    while (n && (*v == ' ' || *v == '\t'))
        v++, n--;
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r' || v[n - 1] == '\n'))
        n--;
    if (!n || (*kept && !combine))
        return;
    size_t old = *kept ? strlen(*kept) : 0;
    if (old + 2 + n > HEADER_KEEP_CAP)
        return;
    char *grown = realloc(*kept, old + 2 + n + 1);
    if (!grown)
        return;
    if (old)
        memcpy(grown + old, ", ", 2), old += 2;
    memcpy(grown + old, v, n);
    grown[old + n] = '\0';
    *kept = grown;
}
