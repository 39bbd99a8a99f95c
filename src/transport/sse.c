/* SPDX-License-Identifier: MIT */
/*
 * Server-Sent Events codec (WHATWG HTML, "event stream interpretation").
 *
 * The cap is checked against the stream, not against what happens to be
 * buffered: while a line is read, data + type + the line so far must stay
 * within max_event. Whether a line arrives whole or in pieces, the same
 * byte crosses the cap, so an error is as independent of the chunking as
 * the events are, and a huge line fails before it is held.
 */
#include <string.h>

#include "core/buf.h"
#include "core/mem.h"
#include "transport/sse.h"

/* A buffer that grew past this for one large event is released after it,
 * so an idle stream does not keep a large allocation (as lines.c does). */
#define KEEP_BUFFER ((size_t)64 << 10)

/* process_line's third outcome besides MCP_OK and an error: the event
 * callback asked to stop, and the decoder must not be touched again. */
#define STOPPED 1

void mcp__sse_decoder_init_mem(mcp__sse_decoder *d, size_t max_event,
                               const mcp__sse_callbacks *cb, const mcp_mem *mem)
{
    memset(d, 0, sizeof *d);
    mcp__mem_init(&d->mem, mem);
    d->cb = *cb;
    d->max_event = max_event ? max_event : MCP__SSE_DEFAULT_MAX_EVENT;
    if (d->max_event == SIZE_MAX)
        d->max_event--; /* the type and the id have a NUL after the cap's bytes */
}

void mcp__sse_decoder_init(mcp__sse_decoder *d, size_t max_event, const mcp__sse_callbacks *cb)
{
    mcp__sse_decoder_init_mem(d, max_event, cb, NULL);
}

static void release(mcp__sse_decoder *d, char **p, size_t *alloc)
{
    mcp__free(&d->mem, *p);
    *p = NULL;
    *alloc = 0;
}

/* Everything but the committed id, which outlives the stream. */
static void release_event(mcp__sse_decoder *d)
{
    release(d, &d->buf, &d->buf_alloc);
    release(d, &d->type, &d->type_alloc);
    release(d, &d->next_id, &d->next_id_alloc);
    d->data_len = d->line_len = d->type_len = d->next_id_len = 0;
    d->next_id_set = false;
}

void mcp__sse_decoder_free(mcp__sse_decoder *d)
{
    if (!d)
        return;
    release_event(d);
    release(d, &d->id, &d->id_alloc);
    d->id_len = 0;
}

static int fail(mcp__sse_decoder *d, int rc)
{
    d->error = rc;
    release_event(d);
    return rc;
}

/* Room for `need` bytes in *p, growing geometrically but never past
 * `most`: the callers' cap checks guarantee need <= most. */
static int reserve(mcp__sse_decoder *d, char **p, size_t *alloc, size_t need, size_t most)
{
    if (need <= *alloc)
        return MCP_OK;
    if (need > most)
        return MCP_ERR_LIMIT; /* unreachable; the loop below would not end */
    size_t a = *alloc ? *alloc : 64;
    while (a < need)
        a = a > most / 2 ? most : a * 2;
    if (a > most)
        a = most;
    char *q = mcp__realloc(&d->mem, *p, a);
    if (!q)
        return MCP_ERR_NOMEM;
    *p = q;
    *alloc = a;
    return MCP_OK;
}

/* Copy a field value into a NUL-terminated buffer of its own. */
static int set_text(mcp__sse_decoder *d, char **p, size_t *len, size_t *alloc, const char *v,
                    size_t n)
{
    int rc = reserve(d, p, alloc, n + 1, d->max_event + 1);
    if (rc)
        return rc;
    if (n)
        memmove(*p, v, n);
    (*p)[n] = '\0';
    *len = n;
    return MCP_OK;
}

/* What the current line may still grow by: data and type are within the
 * cap at every line start (a line only ever shrinks into them). */
static size_t line_room(const mcp__sse_decoder *d)
{
    return d->max_event - d->data_len - d->type_len;
}

/* Hold part of a line that spans feeds, after the data. */
static int hold(mcp__sse_decoder *d, const char *p, size_t n)
{
    if (n > line_room(d) - d->line_len)
        return MCP_ERR_LIMIT;
    int rc = reserve(d, &d->buf, &d->buf_alloc, d->data_len + d->line_len + n, d->max_event);
    if (rc)
        return rc;
    if (n)
        memcpy(d->buf + d->data_len + d->line_len, p, n);
    d->line_len += n;
    return MCP_OK;
}

static void on_retry(mcp__sse_decoder *d, const char *v, size_t n)
{
    if (!n || !d->cb.retry)
        return; /* no digits at all is not a number */
    uint64_t ms = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return;
        unsigned digit = (unsigned)(v[i] - '0');
        if (ms > (UINT64_MAX - digit) / 10)
            return; /* beyond any delay a client could honour: not a valid number */
        ms = ms * 10 + digit;
    }
    d->cb.retry(d->cb.ud, ms);
}

/* The blank line. The id is committed whether or not anything is
 * dispatched, as the spec's first dispatch step does. */
static int dispatch(mcp__sse_decoder *d)
{
    if (d->next_id_set) {
        /* Swapping rather than copying: a long id followed by many blank
         * lines costs its length once, not once per blank line. */
        char *t = d->id;
        size_t ta = d->id_alloc;
        d->id = d->next_id;
        d->id_len = d->next_id_len;
        d->id_alloc = d->next_id_alloc;
        d->next_id = t;
        d->next_id_alloc = ta;
        d->next_id_len = 0;
        d->next_id_set = false;
        d->has_id = true;
    }
    if (d->data_len == 0) {
        d->type_len = 0;
        return MCP_OK;
    }
    mcp__sse_event ev;
    ev.data = d->buf;
    ev.data_len = d->data_len - 1;
    d->buf[ev.data_len] = '\0'; /* the final "\n" goes */
    ev.type = d->type_len ? d->type : "";
    ev.type_len = d->type_len;
    ev.id = d->id_len ? d->id : "";
    ev.id_len = d->id_len;
    ev.has_id = d->has_id;
    /* Between events before the call, so that a callback that stops leaves
     * a decoder that can go on; the memory ev points to stays as it is. */
    d->data_len = 0;
    d->type_len = 0;
    if (!d->cb.event(d->cb.ud, &ev))
        return STOPPED;
    if (d->buf_alloc > KEEP_BUFFER)
        release(d, &d->buf, &d->buf_alloc);
    return MCP_OK;
}

static bool field_is(const char *name, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(name, want, n) == 0;
}

/* One line, without its line end. It may lie in buf right after the data
 * (a line that spanned feeds), so data is appended with memmove, and never
 * needs more room than the line took. */
static int process_line(mcp__sse_decoder *d, const char *line, size_t len)
{
    if (len == 0)
        return dispatch(d);
    if (line[0] == ':')
        return MCP_OK; /* a comment */
    const char *colon = memchr(line, ':', len);
    size_t name_len = colon ? (size_t)(colon - line) : len;
    const char *v = line + len;
    size_t vn = 0;
    if (colon) {
        v = colon + 1;
        vn = len - name_len - 1;
        if (vn && *v == ' ') {
            v++;
            vn--;
        }
    }
    if (field_is(line, name_len, "data")) {
        int rc = reserve(d, &d->buf, &d->buf_alloc, d->data_len + vn + 1, d->max_event);
        if (rc)
            return rc;
        if (vn)
            memmove(d->buf + d->data_len, v, vn);
        d->buf[d->data_len + vn] = '\n';
        d->data_len += vn + 1;
    } else if (field_is(line, name_len, "event")) {
        return set_text(d, &d->type, &d->type_len, &d->type_alloc, v, vn);
    } else if (field_is(line, name_len, "id")) {
        if (vn && memchr(v, '\0', vn))
            return MCP_OK;
        int rc = set_text(d, &d->next_id, &d->next_id_len, &d->next_id_alloc, v, vn);
        if (rc)
            return rc;
        d->next_id_set = true;
    } else if (field_is(line, name_len, "retry")) {
        on_retry(d, v, vn);
    }
    return MCP_OK;
}

/* Lines end in CRLF, LF or CR. Where the next CR and the next LF are is
 * remembered between lines: searching afresh for each line would rescan a
 * long stretch without the other one every time (quadratic on a stream of
 * CR-only line ends). */
typedef struct scan {
    const char *cr, *lf; /* the next one at or after the position, or NULL */
    bool cr_known, lf_known;
} scan;

static const char *line_end(scan *s, const char *p, const char *end)
{
    if (!s->cr_known || (s->cr && s->cr < p)) {
        s->cr = memchr(p, '\r', (size_t)(end - p));
        s->cr_known = true;
    }
    if (!s->lf_known || (s->lf && s->lf < p)) {
        s->lf = memchr(p, '\n', (size_t)(end - p));
        s->lf_known = true;
    }
    if (!s->cr)
        return s->lf;
    if (!s->lf)
        return s->cr;
    return s->cr < s->lf ? s->cr : s->lf;
}

static const char BOM[3] = {'\xEF', '\xBB', '\xBF'};

static int feed_lines(mcp__sse_decoder *d, const char *p, size_t n)
{
    const char *end = p + n;
    scan s = {0};
    while (p < end) {
        if (d->after_cr) {
            d->after_cr = false;
            if (*p == '\n') {
                p++;
                continue;
            }
        }
        const char *e = line_end(&s, p, end);
        if (!e)
            return hold(d, p, (size_t)(end - p));
        size_t len = (size_t)(e - p);
        const char *line = p;
        if (d->line_len) {
            int rc = hold(d, p, len);
            if (rc)
                return rc;
            line = d->buf + d->data_len;
            len = d->line_len;
        } else if (len > line_room(d)) {
            return MCP_ERR_LIMIT;
        }
        /* Set before the line is read: its dispatch may be the last thing
         * this feed does to the decoder. */
        d->line_len = 0;
        d->after_cr = *e == '\r';
        p = e + 1;
        int rc = process_line(d, line, len);
        if (rc)
            return rc;
    }
    return MCP_OK;
}

int mcp__sse_decoder_feed(mcp__sse_decoder *d, const char *p, size_t n)
{
    if (d->error)
        return d->error;
    if (!n)
        return MCP_OK; /* p may be NULL */
    /* The BOM may arrive split: bytes matched so far are held as a count,
     * and replayed as ordinary bytes if the rest turns out different. */
    int rc = MCP_OK;
    while (d->bom < 3 && n) {
        if ((unsigned char)*p != (unsigned char)BOM[d->bom]) {
            size_t matched = d->bom;
            d->bom = 3;
            rc = feed_lines(d, BOM, matched);
            break;
        }
        d->bom++;
        p++;
        n--;
    }
    if (rc == MCP_OK && d->bom == 3)
        rc = feed_lines(d, p, n);
    if (rc == STOPPED)
        return MCP_OK;
    return rc ? fail(d, rc) : MCP_OK;
}

void mcp__sse_decoder_finish(mcp__sse_decoder *d)
{
    if (!d || d->error)
        return;
    d->data_len = d->line_len = d->type_len = 0;
    d->next_id_set = false;
    d->after_cr = false;
    d->bom = 0;
    if (d->buf_alloc > KEEP_BUFFER)
        release(d, &d->buf, &d->buf_alloc);
}

const char *mcp__sse_decoder_last_id(const mcp__sse_decoder *d, size_t *len)
{
    *len = d->id_len;
    return d->id_len ? d->id : "";
}

/* Encoders ---------------------------------------------------------------- */

static bool has_line_break(const char *s, size_t n)
{
    return n && (memchr(s, '\n', n) || memchr(s, '\r', n));
}

/* Add b to *total unless that would pass SIZE_MAX; false if it would. */
static bool add_size(size_t *total, size_t b)
{
    if (b > SIZE_MAX - *total)
        return false;
    *total += b;
    return true;
}

static char *put(char *w, const char *s, size_t n)
{
    if (n)
        memcpy(w, s, n);
    return w + n;
}

/* Everything is measured first and reserved at once: the buffer grows at
 * most once, and an error leaves it exactly as it was. */
int mcp__sse_append_event(mcp_buf *out, const char *id, size_t id_len, const char *type,
                          size_t type_len, const char *data, size_t data_len)
{
    if (id && (has_line_break(id, id_len) || (id_len && memchr(id, '\0', id_len))))
        return MCP_ERR_INVALID_ARG;
    if (type && has_line_break(type, type_len))
        return MCP_ERR_INVALID_ARG;
    /* Each line is "data: ", its text and "\n": the line breaks' bytes (two
     * for a CRLF) are replaced by 7 per line. */
    size_t lines = 1, breaks = 0;
    for (size_t i = 0; i < data_len; i++) {
        if (data[i] != '\n' && data[i] != '\r')
            continue;
        breaks++;
        if (data[i] == '\n' || i + 1 == data_len || data[i + 1] != '\n')
            lines++;
    }
    size_t total = 0;
    bool ok = add_size(&total, data_len - breaks) && lines <= SIZE_MAX / 7 &&
              add_size(&total, lines * 7) && add_size(&total, 1);
    if (id)
        ok = ok && add_size(&total, id_len) && add_size(&total, 5);
    if (type && type_len)
        ok = ok && add_size(&total, type_len) && add_size(&total, 8);
    if (!ok)
        return MCP_ERR_LIMIT;
    int rc = mcp__buf_reserve(out, total);
    if (rc)
        return rc;
    char *w = out->data + out->len;
    if (id) {
        w = put(w, "id: ", 4);
        w = put(w, id, id_len);
        *w++ = '\n';
    }
    if (type && type_len) {
        w = put(w, "event: ", 7);
        w = put(w, type, type_len);
        *w++ = '\n';
    }
    size_t start = 0;
    for (size_t i = 0;; i++) {
        if (i < data_len && data[i] != '\n' && data[i] != '\r')
            continue;
        w = put(w, "data: ", 6);
        if (i > start) /* data may be NULL when empty */
            w = put(w, data + start, i - start);
        *w++ = '\n';
        if (i == data_len)
            break;
        if (data[i] == '\r' && i + 1 < data_len && data[i + 1] == '\n')
            i++;
        start = i + 1;
    }
    *w++ = '\n';
    out->len += total;
    out->data[out->len] = '\0';
    return MCP_OK;
}

int mcp__sse_append_retry(mcp_buf *out, uint64_t ms)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - ++n] = (char)('0' + ms % 10);
        ms /= 10;
    } while (ms);
    size_t total = 7 + n + 2;
    int rc = mcp__buf_reserve(out, total);
    if (rc)
        return rc;
    char *w = out->data + out->len;
    w = put(w, "retry: ", 7);
    w = put(w, digits + sizeof digits - n, n);
    put(w, "\n\n", 2);
    out->len += total;
    out->data[out->len] = '\0';
    return MCP_OK;
}

int mcp__sse_append_comment(mcp_buf *out, const char *text, size_t len)
{
    if (has_line_break(text, len))
        return MCP_ERR_INVALID_ARG;
    size_t total = 0;
    if (!add_size(&total, len) || !add_size(&total, 4))
        return MCP_ERR_LIMIT;
    int rc = mcp__buf_reserve(out, total);
    if (rc)
        return rc;
    char *w = out->data + out->len;
    w = put(w, ": ", 2);
    w = put(w, text, len);
    put(w, "\n\n", 2);
    out->len += total;
    out->data[out->len] = '\0';
    return MCP_OK;
}
