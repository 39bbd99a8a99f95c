/* SPDX-License-Identifier: MIT */
/*
 * NDJSON over byte streams. Reading feeds the line reader; writing appends
 * to a pending buffer, handed to the kernel when FLUSH_EARLY bytes have
 * gathered and otherwise once per loop iteration (from a check handle, right
 * after the I/O callbacks that produced the messages, or a prepare handle,
 * right before the loop blocks): few system calls, and no message waits for
 * the next iteration. Writes go straight to the kernel with uv_try_write; only
 * what does not fit becomes a libuv write request. The pending buffer is
 * capped: a peer that stops reading gets its connection failed, not our
 * memory exhausted.
 *
 * Regular files (stdin redirected from a file) are read with uv_fs_read and
 * written synchronously, since epoll does not take regular files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/ndjson_stream.h"

#define READ_CHUNK (64u << 10)
/* Queued output worth a system call before the iteration ends: with it,
 * the peer starts on the first replies of a batch while we produce the
 * rest, instead of both sides taking turns on whole batches (measured on
 * 64 calls in flight: 2.6 times the round trips of flushing only at the
 * end of the iteration). */
#define FLUSH_EARLY 2048u

typedef enum { SIDE_NONE, SIDE_STREAM, SIDE_FILE } side_kind;

typedef struct mcp__conn mcp__conn;
static void flush(mcp__conn *c, bool notify);
static size_t unwritten(const mcp__conn *c);
static void pause_input(mcp__conn *c);
static void maybe_close_output(mcp__conn *c);
static void maybe_finalize(mcp__conn *c);
static const mcp__transport_ops ops;

struct mcp__conn {
    mcp__transport base; /* first: a transport pointer is a stream pointer */
    uv_loop_t *loop;
    mcp__ndjson_options o;
    mcp_line_reader *lines;
    const char *failure; /* why the output failed (a literal or uv_strerror) */

    side_kind in_kind, out_kind;
    uv_stream_t *in, *out; /* SIDE_STREAM: owned handles */
    int in_fd, out_fd;     /* SIDE_FILE */
    uv_fs_t read_req;
    bool reading, read_pending;
    char *read_buf;
    /* Input flow control (o.pause_input_above): while paused nothing is
     * read, and the lines of the last read that were not yet dispatched
     * wait in `held` (complete lines, each with its newline), the end of
     * the input too. */
    bool paused;
    mcp_buf held;
    bool held_end, held_end_failed;
    const char *held_end_why;
    uv_check_t resume_check; /* while paused: resume once the output drained */

    mcp_buf pending, writing;
    uv_write_t write_req;
    uv_check_t flush_check;     /* after the I/O callbacks of an iteration */
    uv_prepare_t flush_prepare; /* before the loop blocks */
    bool flush_armed;
    bool write_in_flight;
    bool output_failed, output_closing, output_closed;
    uv_shutdown_t shutdown_req;

    int open_handles;
    bool closing;
    void (*done)(void *ud);
    void *done_ud;
};

mcp__transport *mcp__ndjson_new(uv_loop_t *loop, const mcp__ndjson_options *o)
{
    mcp__conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->base.ops = &ops;
    c->loop = loop;
    if (o)
        c->o = *o;
    if (!c->o.max_queued)
        c->o.max_queued = MCP__NDJSON_MAX_QUEUED;
    c->lines = mcp_line_reader_new(c->o.max_line, NULL);
    c->read_buf = malloc(READ_CHUNK);
    if (!c->lines || !c->read_buf) {
        mcp_line_reader_free(c->lines);
        free(c->read_buf);
        free(c);
        return NULL;
    }
    if (!c->o.max_line)
        c->o.max_line = MCP_LINE_DEFAULT_MAX;
    c->in_fd = c->out_fd = -1;
    mcp_buf_init(&c->pending, c->o.max_queued, NULL);
    mcp_buf_init(&c->writing, 0, NULL);
    mcp_buf_init(&c->held, 0, NULL);
    uv_check_init(loop, &c->flush_check);
    uv_prepare_init(loop, &c->flush_prepare);
    uv_check_init(loop, &c->resume_check);
    c->flush_check.data = c->flush_prepare.data = c->resume_check.data = c;
    c->open_handles += 3;
    return &c->base;
}

/* Reading ---------------------------------------------------------------------- */

static void dispatch_line(mcp__conn *c, const char *line, size_t len)
{
    const mcp__transport_sink *k = &c->base.sink;
    if (c->o.trace)
        c->o.trace(c->o.trace_ud, false, line, len);
    k->message(k->ud, 0, line, len);
}

static void line_cb(void *ud, int status, const char *line, size_t len)
{
    mcp__conn *c = ud;
    const mcp__transport_sink *k = &c->base.sink;
    if (!c->reading)
        return;
    if (status == MCP_OK && (c->paused || c->held.len)) {
        /* Paused inside this read: the rest waits, in order. Out of memory
         * to hold it, it is handled now (the output cap still bounds it). */
        if (mcp_buf_append(&c->held, line, len) == MCP_OK &&
            mcp_buf_append(&c->held, MCP_LITERAL("\n")) == MCP_OK)
            return;
    }
    if (status == MCP_OK) {
        dispatch_line(c, line, len);
    } else {
        size_t tail_len;
        const char *tail = mcp_line_reader_tail(c->lines, &tail_len);
        k->oversized(k->ud, 0, line, len, tail, tail_len, c->o.max_line);
    }
}

static void input_ended(mcp__conn *c, const char *why, bool failed)
{
    if (!c->reading)
        return;
    mcp_line_reader_finish(c->lines, line_cb, c);
    if (!c->reading)
        return; /* stopped by what the last line caused */
    if (c->held.len) {
        /* Lines still held: the end comes after them. */
        c->held_end = true;
        c->held_end_why = why;
        c->held_end_failed = failed;
        return;
    }
    c->reading = false;
    c->base.sink.input_ended(c->base.sink.ud, why, failed);
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
        input_ended(c, n == UV_EOF ? "end of input" : uv_strerror((int)n), n != UV_EOF);
    }
}

static void file_read_cb(uv_fs_t *req);

static void read_file_chunk(mcp__conn *c)
{
    uv_buf_t b = uv_buf_init(c->read_buf, READ_CHUNK);
    c->read_req.data = c;
    c->read_pending = true;
    uv_fs_read(c->loop, &c->read_req, c->in_fd, &b, 1, -1, file_read_cb);
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
        if (c->reading && !c->paused)
            read_file_chunk(c);
    } else {
        input_ended(c, n == 0 ? "end of input" : uv_strerror((int)n), n != 0);
    }
}

static void free_closed(uv_handle_t *h)
{
    free(h);
}

static uv_stream_t *stream_for_fd(mcp__conn *c, int fd, bool readable)
{
    uv_handle_type t = uv_guess_handle(fd);
    if (t == UV_TTY) {
        uv_tty_t *tty = malloc(sizeof *tty);
        if (!tty || uv_tty_init(c->loop, tty, fd, readable) != 0) {
            free(tty);
            return NULL;
        }
        return (uv_stream_t *)tty;
    }
    if (t == UV_NAMED_PIPE || t == UV_TCP || t == UV_UDP) {
        uv_pipe_t *p = malloc(sizeof *p);
        if (!p || uv_pipe_init(c->loop, p, 0) != 0) {
            free(p);
            return NULL;
        }
        if (uv_pipe_open(p, fd) != 0) {
            uv_close((uv_handle_t *)p, free_closed); /* initialized: the loop knows it */
            return NULL;
        }
        return (uv_stream_t *)p;
    }
    return NULL; /* files, and what epoll cannot watch: read without a stream */
}

/* A descriptor epoll cannot watch (a file, a directory, something libuv
 * cannot name) is read and written with blocking calls on the thread pool:
 * libuv aborts when asked to poll it. */
static bool needs_fs_calls(int fd)
{
    uv_handle_type t = uv_guess_handle(fd);
    return t == UV_FILE || t == UV_UNKNOWN_HANDLE;
}

static void start_reading(mcp__conn *c)
{
    c->reading = true;
    if (c->in_kind == SIDE_STREAM) {
        c->in->data = c;
        uv_read_start(c->in, alloc_cb, read_cb);
    } else {
        read_file_chunk(c);
    }
}

/* Input flow control ------------------------------------------------------------ */

static void resume_input(mcp__conn *c);

static void on_resume_check(uv_check_t *h)
{
    mcp__conn *c = h->data;
    if (!c->reading || c->closing) {
        uv_check_stop(h);
        return;
    }
    if (unwritten(c) <= c->o.pause_input_above / 2)
        resume_input(c);
}

/* A server reads requests only as fast as its client takes the replies:
 * past pause_input_above bytes unwritten, reading stops (and the rest of
 * the last read waits), and resumes once half of that is written. A client
 * that reads nothing still hits the output cap; one that reads slowly is
 * never dropped. (A client never pauses: it must always read, or two
 * peers waiting on each other's output would wait for ever.) */
static void pause_input(mcp__conn *c)
{
    if (c->paused || !c->reading)
        return;
    c->paused = true;
    if (c->in_kind == SIDE_STREAM)
        uv_read_stop(c->in);
    uv_check_start(&c->resume_check, on_resume_check);
}

static void resume_input(mcp__conn *c)
{
    uv_check_stop(&c->resume_check);
    c->paused = false;
    /* The held lines first, in order, until one pauses again. */
    size_t at = 0;
    while (at < c->held.len && !c->paused && c->reading && !c->closing) {
        const char *line = c->held.data + at;
        const char *nl = memchr(line, '\n', c->held.len - at);
        size_t n = (size_t)(nl - line);
        at += n + 1;
        dispatch_line(c, line, n);
    }
    if (c->closing || !c->reading)
        return; /* stopped by a line: what was held is dropped (stop_input) */
    if (at) {
        memmove(c->held.data, c->held.data + at, c->held.len - at);
        c->held.len -= at;
    }
    if (c->paused)
        return;
    if (c->held_end) {
        c->reading = false;
        c->base.sink.input_ended(c->base.sink.ud, c->held_end_why, c->held_end_failed);
    } else if (c->in_kind == SIDE_STREAM) {
        uv_read_start(c->in, alloc_cb, read_cb);
    } else if (!c->read_pending) {
        read_file_chunk(c);
    }
}


int mcp__ndjson_open_fds(mcp__transport *t, int in_fd, int out_fd)
{
    mcp__conn *c = (mcp__conn *)t;
    if (needs_fs_calls(in_fd)) {
        c->in_kind = SIDE_FILE;
        c->in_fd = in_fd;
    } else if ((c->in = stream_for_fd(c, in_fd, true))) {
        c->in_kind = SIDE_STREAM;
        c->open_handles++;
    } else {
        return MCP_ERR_IO;
    }
    /* One descriptor both ways (a socket): libuv lets one handle watch a
     * descriptor, and the reader's would take the writer's events (an
     * answer past the socket's buffer then waited forever). The writer
     * gets a descriptor of its own, which its handle closes. */
    int own_out = -1;
    if (out_fd == in_fd && c->in_kind == SIDE_STREAM) {
        /* dup(), then close-on-exec: a sanitizer follows what dup() made
         * as the same descriptor (TSan's order of writes and reads). */
        own_out = dup(out_fd);
        if (own_out < 0 || fcntl(own_out, F_SETFD, FD_CLOEXEC) != 0) {
            if (own_out >= 0)
                close(own_out);
            return MCP_ERR_IO;
        }
        out_fd = own_out;
    }
    if (needs_fs_calls(out_fd)) {
        c->out_kind = SIDE_FILE;
        c->out_fd = out_fd;
    } else if ((c->out = stream_for_fd(c, out_fd, false))) {
        c->out_kind = SIDE_STREAM;
        c->out->data = c;
        c->open_handles++;
    } else {
        if (own_out >= 0)
            close(own_out);
        return MCP_ERR_IO;
    }
    start_reading(c);
    return MCP_OK;
}

void mcp__ndjson_adopt(mcp__transport *t, uv_stream_t *in, uv_stream_t *out)
{
    mcp__conn *c = (mcp__conn *)t;
    c->in_kind = c->out_kind = SIDE_STREAM;
    c->in = in;
    c->out = out;
    out->data = c;
    c->open_handles += 2;
    start_reading(c);
}

static void stop_input(mcp__transport *t)
{
    mcp__conn *c = (mcp__conn *)t;
    if (!c->reading)
        return;
    c->reading = false;
    mcp_buf_reset(&c->held); /* what was held is never read now */
    if (c->in_kind == SIDE_STREAM)
        uv_read_stop(c->in);
}

/* Writing ---------------------------------------------------------------------- */

/* The output is dead. `notify`: tell the sink (a failure found by the
 * loop); a failure inside send is reported by send's return value instead,
 * so no callback runs under a sender. */
static void fail_output(mcp__conn *c, const char *why, bool notify)
{
    if (c->output_failed)
        return;
    c->output_failed = true;
    c->failure = why;
    mcp_buf_reset(&c->pending);
    if (notify && !c->closing)
        c->base.sink.output_failed(c->base.sink.ud, why);
}

const char *mcp__ndjson_failure(const mcp__transport *t)
{
    return ((const mcp__conn *)t)->failure;
}


static void write_cb(uv_write_t *req, int status)
{
    mcp__conn *c = req->data;
    c->write_in_flight = false;
    mcp_buf_reset(&c->writing);
    if (status < 0) {
        fail_output(c, status == UV_EPIPE ? "the peer closed its input" : uv_strerror(status),
                    true);
        maybe_close_output(c);
        return;
    }
    flush(c, true);
}

static void flush(mcp__conn *c, bool notify)
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
                fail_output(c, n == 0                ? "the output accepts nothing"
                               : errno == EPIPE ? "the peer closed its input"
                                                : uv_strerror(uv_translate_sys_error(errno)),
                            notify);
                return;
            }
            off += (size_t)n;
        }
        mcp_buf_reset(&c->pending);
        maybe_close_output(c);
        return;
    }
    /* Straight into the kernel when the pipe has room: no write stays in
     * flight, so a later flush in the same iteration can write again. */
    uv_buf_t tb = uv_buf_init(c->pending.data, (unsigned)c->pending.len);
    int n = uv_try_write(c->out, &tb, 1);
    if (n == (int)c->pending.len) {
        mcp_buf_reset(&c->pending);
        maybe_close_output(c);
        return;
    }
    if (n < 0 && n != UV_EAGAIN) {
        fail_output(c, n == UV_EPIPE ? "the peer closed its input" : uv_strerror(n), notify);
        maybe_close_output(c);
        return;
    }
    if (n > 0) {
        memmove(c->pending.data, c->pending.data + n, c->pending.len - (size_t)n);
        c->pending.len -= (size_t)n;
    }
    /* The pipe is full: hand the rest to libuv, which writes it as the
     * peer reads; meanwhile new messages queue in `pending`. */
    mcp_buf t = c->writing;
    c->writing = c->pending;
    c->pending = t;
    c->pending.limit = c->o.max_queued;
    uv_buf_t b = uv_buf_init(c->writing.data, (unsigned)c->writing.len);
    c->write_req.data = c;
    c->write_in_flight = true;
    int rc = uv_write(&c->write_req, c->out, &b, 1, write_cb);
    if (rc < 0) {
        c->write_in_flight = false;
        mcp_buf_reset(&c->writing);
        fail_output(c, uv_strerror(rc), notify);
    }
}

static void flush_now(mcp__conn *c, bool notify)
{
    if (c->flush_armed) {
        c->flush_armed = false;
        uv_check_stop(&c->flush_check);
        uv_prepare_stop(&c->flush_prepare);
    }
    flush(c, notify);
}

static void flush_op(mcp__transport *t)
{
    flush_now((mcp__conn *)t, true);
}

static void on_flush_check(uv_check_t *h)
{
    flush_now(h->data, true);
}

static void on_flush_prepare(uv_prepare_t *h)
{
    flush_now(h->data, true);
}

static int send_op(mcp__transport *t, uint64_t route, const char *data, size_t len)
{
    mcp__conn *c = (mcp__conn *)t;
    if (c->output_failed || c->output_closing || c->closing)
        return MCP_ERR_STATE;
    int rc = mcp_buf_append(&c->pending, data, len);
    if (rc != MCP_OK) {
        fail_output(c, rc == MCP_ERR_LIMIT ? "output queue over its cap: the peer is not reading"
                                           : "out of memory for the output queue",
                    false);
        return rc;
    }
    if (c->o.trace) {
        const char *p = data, *end = data + len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
            c->o.trace(c->o.trace_ud, true, p, n);
            p += n + 1;
        }
    }
    /* Enough for the peer to start on: send now, so both sides work at
     * once instead of taking turns on whole batches. */
    if (c->pending.len >= FLUSH_EARLY && !c->write_in_flight) {
        flush_now(c, false);
        if (c->output_failed)
            return MCP_ERR_IO;
    } else if (!c->flush_armed && !c->write_in_flight) {
        c->flush_armed = true;
        uv_check_start(&c->flush_check, on_flush_check);
        uv_prepare_start(&c->flush_prepare, on_flush_prepare);
    }
    if (c->o.pause_input_above && unwritten(c) > c->o.pause_input_above)
        pause_input(c);
    return MCP_OK;
}

/* Bytes queued and not yet written: libuv's count for the write in flight
 * goes down as the peer reads it (a write may be the whole backlog). */
static size_t unwritten(const mcp__conn *c)
{
    size_t in_flight = c->write_in_flight && c->out_kind == SIDE_STREAM
                           ? uv_stream_get_write_queue_size(c->out)
                           : c->writing.len;
    return c->pending.len + in_flight;
}

static size_t unwritten_op(const mcp__transport *t)
{
    return unwritten((const mcp__conn *)t);
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
    mcp_buf_free(&c->held);
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

/* The check and prepare handles live inside the connection: not freed on
 * close. */
static void flush_handle_closed(uv_handle_t *h)
{
    mcp__conn *c = h->data;
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

static void end_output_op(mcp__transport *t)
{
    mcp__conn *c = (mcp__conn *)t;
    if (c->output_closing)
        return;
    c->output_closing = true;
    flush_now(c, true);
}

static void close_route_op(mcp__transport *t, uint64_t route)
{
    (void)t; /* one stream, no routes of its own */
    (void)route;
}

static void close_op(mcp__transport *t, void (*done)(void *ud), void *ud)
{
    mcp__conn *c = (mcp__conn *)t;
    if (c->closing)
        return;
    c->closing = true;
    c->done = done;
    c->done_ud = ud;
    stop_input(t);
    close_handle(c, &c->in);
    close_handle(c, &c->out);
    uv_close((uv_handle_t *)&c->flush_check, flush_handle_closed);
    uv_close((uv_handle_t *)&c->flush_prepare, flush_handle_closed);
    uv_close((uv_handle_t *)&c->resume_check, flush_handle_closed);
    maybe_finalize(c); /* now, or when the last handle or read completes */
}

static const mcp__transport_ops ops = {
    .send = send_op,
    .close_route = close_route_op,
    .close = close_op,
    .flush = flush_op,
    .unwritten = unwritten_op,
    .end_output = end_output_op,
    .stop_input = stop_input,
};
