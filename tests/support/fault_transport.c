/* SPDX-License-Identifier: MIT */
#include "fault_transport.h"

#include <stdlib.h>

#include "mcp/common.h"

typedef struct fault {
    mcp__transport base; /* first */
    mcp__transport *inner;
    int fail_at;
    fault_record own, *record; /* record: the caller's, or own */
    void (*done)(void *);
    void *done_ud;
} fault;

/* Events of the inner transport, passed on to whoever owns the wrapper. */
static int on_message(void *ud, uint64_t route, const char *data, size_t len)
{
    fault *f = ud;
    return f->base.sink.message(f->base.sink.ud, route, data, len);
}

static void on_oversized(void *ud, uint64_t route, const char *head, size_t hn,
                         const char *tail, size_t tn, size_t limit)
{
    fault *f = ud;
    f->base.sink.oversized(f->base.sink.ud, route, head, hn, tail, tn, limit);
}

static void on_route_closed(void *ud, uint64_t route)
{
    fault *f = ud;
    f->base.sink.route_closed(f->base.sink.ud, route);
}

static void on_input_ended(void *ud, const char *why, bool failed)
{
    fault *f = ud;
    f->base.sink.input_ended(f->base.sink.ud, why, failed);
}

static void on_output_failed(void *ud, const char *why)
{
    fault *f = ud;
    f->base.sink.output_failed(f->base.sink.ud, why);
}

static int send_op(mcp__transport *t, uint64_t route, const char *data, size_t len)
{
    fault *f = (fault *)t;
    if (f->record->fired)
        return MCP_ERR_STATE;
    if (++f->record->sends == f->fail_at) {
        f->record->fired = true;
        /* What the peer sees of a broken output: nothing more, then EOF. */
        if (f->inner->ops->end_output)
            f->inner->ops->end_output(f->inner);
        return MCP_ERR_IO;
    }
    return f->inner->ops->send(f->inner, route, data, len);
}

static void close_route_op(mcp__transport *t, uint64_t route)
{
    fault *f = (fault *)t;
    f->inner->ops->close_route(f->inner, route);
}

static void inner_closed(void *ud)
{
    fault *f = ud;
    void (*done)(void *) = f->done;
    void *done_ud = f->done_ud;
    free(f);
    if (done)
        done(done_ud);
}

static void close_op(mcp__transport *t, void (*done)(void *), void *ud)
{
    fault *f = (fault *)t;
    f->done = done;
    f->done_ud = ud;
    f->inner->ops->close(f->inner, inner_closed, f);
}

static void flush_op(mcp__transport *t)
{
    fault *f = (fault *)t;
    if (f->inner->ops->flush)
        f->inner->ops->flush(f->inner);
}

static size_t unwritten_op(const mcp__transport *t)
{
    const fault *f = (const fault *)t;
    return f->inner->ops->unwritten ? f->inner->ops->unwritten(f->inner) : 0;
}

static void end_output_op(mcp__transport *t)
{
    fault *f = (fault *)t;
    if (f->inner->ops->end_output)
        f->inner->ops->end_output(f->inner);
}

static void stop_input_op(mcp__transport *t)
{
    fault *f = (fault *)t;
    if (f->inner->ops->stop_input)
        f->inner->ops->stop_input(f->inner);
}

static void unavailable_op(mcp__transport *t, uint64_t route, unsigned retry_after_s)
{
    fault *f = (fault *)t;
    if (f->inner->ops->unavailable)
        f->inner->ops->unavailable(f->inner, route, retry_after_s);
}

static const mcp__transport_ops ops = {
    .send = send_op,
    .close_route = close_route_op,
    .close = close_op,
    .flush = flush_op,
    .unwritten = unwritten_op,
    .end_output = end_output_op,
    .stop_input = stop_input_op,
    .unavailable = unavailable_op,
};

mcp__transport *fault_transport_new(mcp__transport *inner, int fail_at, fault_record *record)
{
    fault *f = calloc(1, sizeof *f);
    if (!f) {
        inner->ops->close(inner, NULL, NULL);
        return NULL;
    }
    f->base.ops = &ops;
    f->inner = inner;
    f->fail_at = fail_at;
    f->record = record ? record : &f->own;
    *f->record = (fault_record){0};
    inner->sink = (mcp__transport_sink){on_message, on_oversized, on_route_closed,
                                        on_input_ended, on_output_failed, f};
    return &f->base;
}
