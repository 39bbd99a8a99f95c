/*
 * NDJSON over byte streams. Reading feeds the line reader; writing appends
 * to a pending buffer that is handed to the kernel in one uv_write while the
 * previous one completes, so a burst of replies costs one system call, not
 * one per message. The pending buffer is capped: a peer that stops reading
 * gets its connection failed, not our memory exhausted.
 *
 * Regular files (stdin redirected from a file) are read with uv_fs_read and
 * written synchronously, since epoll does not take regular files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/conn.h"

#define READ_CHUNK (64u << 10)

typedef enum { SIDE_NONE, SIDE_STREAM, SIDE_FILE } side_kind;

static void flush(mcp__conn *c);
static void maybe_close_output(mcp__conn *c);
static void maybe_finalize(mcp__conn *c);

struct mcp__conn {
    uv_loop_t *loop;
    mcp__conn_handlers h;
    mcp_line_reader *lines;

    side_kind in_kind, out_kind;
    uv_stream_t *in, *out; /* SIDE_STREAM: owned handles */
    int in_fd, out_fd;     /* SIDE_FILE */
    uv_fs_t read_req;
    bool reading, read_pending;
    char *read_buf;

    mcp_buf pending, writing;
    uv_write_t write_req;
    bool write_in_flight;
    bool output_failed, output_closing, output_closed;
    uv_shutdown_t shutdown_req;

    int open_handles;
    bool closing;
    void (*done)(void *ud);
    void *done_ud;
};

mcp__conn *mcp__conn_new(uv_loop_t *loop, size_t max_line, const mcp__conn_handlers *h)
{
    mcp__conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->loop = loop;
    c->h = *h;
    c->lines = mcp_line_reader_new(max_line, NULL);
    c->read_buf = malloc(READ_CHUNK);
    if (!c->lines || !c->read_buf) {
        mcp_line_reader_free(c->lines);
        free(c->read_buf);
        free(c);
        return NULL;
    }
    c->in_fd = c->out_fd = -1;
    mcp_buf_init(&c->pending, MCP__CONN_MAX_QUEUED, NULL);
    mcp_buf_init(&c->writing, 0, NULL);
    return c;
}

/* Reading ---------------------------------------------------------------------- */

static void line_cb(void *ud, int status, const char *line, size_t len)
{
    mcp__conn *c = ud;
    if (!c->reading)
        return;
    if (status == MCP_OK) {
        if (c->h.trace)
            c->h.trace(c->h.ud, false, line, len);
        c->h.on_line(c->h.ud, line, len);
    } else if (c->h.on_bad_line) {
        c->h.on_bad_line(c->h.ud, status, len);
    }
}

static void input_ended(mcp__conn *c)
{
    if (!c->reading)
        return;
    mcp_line_reader_finish(c->lines, line_cb, c);
    c->reading = false;
    if (c->h.on_eof)
        c->h.on_eof(c->h.ud);
}

static void alloc_cb(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    mcp__conn *c = handle->data;
    *buf = uv_buf_init(c->read_buf, READ_CHUNK);
}

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    mcp__conn *c = s->data;
    if (n > 0) {
        mcp_line_reader_feed(c->lines, buf->base, (size_t)n, line_cb, c);
    } else if (n < 0) {
        uv_read_stop(s);
        input_ended(c);
    }
}

static void file_read_cb(uv_fs_t *req)
{
    mcp__conn *c = req->data;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    c->read_pending = false;
    if (c->closing) {
        maybe_finalize(c);
        return;
    }
    if (n > 0) {
        mcp_line_reader_feed(c->lines, c->read_buf, (size_t)n, line_cb, c);
        if (c->reading) {
            uv_buf_t b = uv_buf_init(c->read_buf, READ_CHUNK);
            c->read_pending = true;
            uv_fs_read(c->loop, &c->read_req, c->in_fd, &b, 1, -1, file_read_cb);
        }
    } else {
        input_ended(c);
    }
}

static uv_stream_t *stream_for_fd(mcp__conn *c, int fd, bool readable, int *err)
{
    uv_handle_type t = uv_guess_handle(fd);
    if (t == UV_TTY) {
        uv_tty_t *tty = malloc(sizeof *tty);
        if (!tty || (*err = uv_tty_init(c->loop, tty, fd, readable)) != 0) {
            free(tty);
            return NULL;
        }
        return (uv_stream_t *)tty;
    }
    if (t == UV_NAMED_PIPE || t == UV_TCP || t == UV_UDP || t == UV_UNKNOWN_HANDLE) {
        uv_pipe_t *p = malloc(sizeof *p);
        if (!p || uv_pipe_init(c->loop, p, 0) != 0 || (*err = uv_pipe_open(p, fd)) != 0) {
            free(p);
            return NULL;
        }
        return (uv_stream_t *)p;
    }
    return NULL; /* UV_FILE: handled without a stream */
}

static void start_reading(mcp__conn *c)
{
    c->reading = true;
    if (c->in_kind == SIDE_STREAM) {
        c->in->data = c;
        uv_read_start(c->in, alloc_cb, read_cb);
    } else {
        uv_buf_t b = uv_buf_init(c->read_buf, READ_CHUNK);
        c->read_req.data = c;
        c->read_pending = true;
        uv_fs_read(c->loop, &c->read_req, c->in_fd, &b, 1, -1, file_read_cb);
    }
}

int mcp__conn_open_fds(mcp__conn *c, int in_fd, int out_fd)
{
    int err = 0;
    if (uv_guess_handle(in_fd) == UV_FILE) {
        c->in_kind = SIDE_FILE;
        c->in_fd = in_fd;
    } else if ((c->in = stream_for_fd(c, in_fd, true, &err))) {
        c->in_kind = SIDE_STREAM;
        c->open_handles++;
    } else {
        return MCP_ERR_IO;
    }
    if (uv_guess_handle(out_fd) == UV_FILE) {
        c->out_kind = SIDE_FILE;
        c->out_fd = out_fd;
    } else if ((c->out = stream_for_fd(c, out_fd, false, &err))) {
        c->out_kind = SIDE_STREAM;
        c->out->data = c;
        c->open_handles++;
    } else {
        return MCP_ERR_IO;
    }
    start_reading(c);
    return MCP_OK;
}

void mcp__conn_adopt(mcp__conn *c, uv_stream_t *in, uv_stream_t *out)
{
    c->in_kind = c->out_kind = SIDE_STREAM;
    c->in = in;
    c->out = out;
    out->data = c;
    c->open_handles += 2;
    start_reading(c);
}

void mcp__conn_stop_reading(mcp__conn *c)
{
    if (!c->reading)
        return;
    c->reading = false;
    if (c->in_kind == SIDE_STREAM)
        uv_read_stop(c->in);
}

/* Writing ---------------------------------------------------------------------- */

static void fail_output(mcp__conn *c, const char *why)
{
    if (c->output_failed)
        return;
    c->output_failed = true;
    mcp_buf_reset(&c->pending);
    if (c->h.on_write_error)
        c->h.on_write_error(c->h.ud, why);
}


static void write_cb(uv_write_t *req, int status)
{
    mcp__conn *c = req->data;
    c->write_in_flight = false;
    mcp_buf_reset(&c->writing);
    if (status < 0) {
        fail_output(c, status == UV_EPIPE ? "the peer closed its input" : uv_strerror(status));
        maybe_close_output(c);
        return;
    }
    flush(c);
}

static void flush(mcp__conn *c)
{
    if (c->write_in_flight || c->output_failed || c->pending.len == 0) {
        maybe_close_output(c);
        return;
    }
    if (c->out_kind == SIDE_FILE) {
        size_t off = 0;
        while (off < c->pending.len) {
            ssize_t n = write(c->out_fd, c->pending.data + off, c->pending.len - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                fail_output(c, strerror(errno));
                return;
            }
            off += (size_t)n;
        }
        mcp_buf_reset(&c->pending);
        maybe_close_output(c);
        return;
    }
    /* Swap: the pending bytes become the in-flight write. */
    mcp_buf t = c->writing;
    c->writing = c->pending;
    c->pending = t;
    c->pending.limit = MCP__CONN_MAX_QUEUED;
    uv_buf_t b = uv_buf_init(c->writing.data, (unsigned)c->writing.len);
    c->write_req.data = c;
    c->write_in_flight = true;
    int rc = uv_write(&c->write_req, c->out, &b, 1, write_cb);
    if (rc < 0) {
        c->write_in_flight = false;
        mcp_buf_reset(&c->writing);
        fail_output(c, uv_strerror(rc));
    }
}

int mcp__conn_write(mcp__conn *c, const char *data, size_t len)
{
    if (c->output_failed || c->output_closing || c->closing)
        return MCP_ERR_STATE;
    int rc = mcp_buf_append(&c->pending, data, len);
    if (rc != MCP_OK) {
        fail_output(c, rc == MCP_ERR_LIMIT ? "output queue over its cap: the peer is not reading"
                                           : "out of memory for the output queue");
        return rc;
    }
    if (c->h.trace) {
        const char *p = data, *end = data + len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
            c->h.trace(c->h.ud, true, p, n);
            p += n + 1;
        }
    }
    flush(c);
    return MCP_OK;
}

size_t mcp__conn_unwritten(const mcp__conn *c)
{
    return c->pending.len + c->writing.len;
}

/* Closing ---------------------------------------------------------------------- */

/* Free the connection once it is closing and nothing is outstanding: no
 * handle still open, no file read still in the threadpool. */
static void maybe_finalize(mcp__conn *c)
{
    if (!c->closing || c->open_handles || c->read_pending)
        return;
    void (*done)(void *) = c->done;
    void *ud = c->done_ud;
    mcp_line_reader_free(c->lines);
    mcp_buf_free(&c->pending);
    mcp_buf_free(&c->writing);
    free(c->read_buf);
    free(c);
    if (done)
        done(ud);
}

static void handle_closed(uv_handle_t *h)
{
    mcp__conn *c = h->data;
    free(h);
    c->open_handles--;
    maybe_finalize(c);
}

static void close_handle(mcp__conn *c, uv_stream_t **s)
{
    if (*s && !uv_is_closing((uv_handle_t *)*s)) {
        (*s)->data = c;
        uv_close((uv_handle_t *)*s, handle_closed);
    }
    *s = NULL;
}

static void shutdown_cb(uv_shutdown_t *req, int status)
{
    close_handle(req->data, &((mcp__conn *)req->data)->out);
}

static void maybe_close_output(mcp__conn *c)
{
    if (!c->output_closing || c->output_closed || c->write_in_flight ||
        (c->pending.len && !c->output_failed))
        return;
    c->output_closed = true;
    if (c->out_kind != SIDE_STREAM || !c->out)
        return;
    c->shutdown_req.data = c;
    if (uv_shutdown(&c->shutdown_req, c->out, shutdown_cb) != 0)
        close_handle(c, &c->out);
}

void mcp__conn_close_output(mcp__conn *c)
{
    if (c->output_closing)
        return;
    c->output_closing = true;
    flush(c);
}

void mcp__conn_close(mcp__conn *c, void (*done)(void *ud), void *ud)
{
    c->closing = true;
    c->done = done;
    c->done_ud = ud;
    mcp__conn_stop_reading(c);
    close_handle(c, &c->in);
    close_handle(c, &c->out);
    maybe_finalize(c); /* now, or when the last handle or read completes */
}
