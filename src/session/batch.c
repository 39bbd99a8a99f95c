/* SPDX-License-Identifier: MIT */
/*
 * JSON-RPC batches. Only 2025-03-26 required receiving them; there a batch
 * is answered with one array holding the response of every request in it
 * (none at all when it held only notifications), sent once the last of its
 * requests settles. Every other revision answers a batch with -32600.
 */
#include <stdio.h>

#include "core/mem.h"
#include "session/internal.h"

void mcp__batch_free(mcp_session *s, mcp__batch *b)
{
    mcp_buf_free(&b->items);
    mcp__free(&s->mem, b);
}

static void flush(mcp_session *s, mcp__batch *b)
{
    if (!b->items.len && b->route && !s->closed && s->cb.on_route_ended) {
        /* Every request in it was cancelled: no array at all, and a
         * transport that waits for one (an HTTP POST) is told. */
        s->cb.on_route_ended(s->cb.user_data, b->route);
    } else if (b->items.len && !s->closed) {
        mcp_buf line;
        mcp_buf_init(&line, 0, &s->mem);
        if (mcp_buf_append(&line, MCP_LITERAL("[")) == MCP_OK &&
            mcp_buf_append(&line, b->items.data, b->items.len) == MCP_OK &&
            mcp_buf_append(&line, MCP_LITERAL("]\n")) == MCP_OK)
            mcp__emit(s, b->route, &line);
        else
            mcp__log(s, MCP_LOG_ERROR, MCP_LOG_EVENT_GENERAL, NULL, NULL, NULL, NULL, -1,
                     "a batch response could not be sent: out of memory");
        mcp_buf_free(&line);
    }
    mcp__batch_free(s, b);
}

void mcp__batch_settled(mcp_session *s, mcp__batch *b)
{
    if (--b->pending == 0 && !b->dispatching)
        flush(s, b);
}

int mcp__batch_receive(mcp_session *s, uint64_t now, uint64_t route, mcp_message *batch,
                       const mcp_decode_error *err)
{
    size_t n = mcp_json_array_size(batch->batch);
    if (!s->era || !s->era->batches || n == 0 || s->collecting) {
        char text[160];
        snprintf(text, sizeof text, "%s%s%s",
                 s->era && s->era->batches ? "empty JSON-RPC batch"
                                           : "JSON-RPC batches are not supported",
                 s->era && !s->era->batches ? " in protocol revision " : "",
                 s->era && !s->era->batches ? s->era->version : "");
        mcp__log(s, MCP_LOG_WARNING, MCP_LOG_EVENT_BAD_INPUT, NULL, NULL, NULL, NULL, -1,
                 "%s", text);
        mcp__send_error(s, route, NULL, err->wire_code, text, NULL);
        return MCP_ERR_RPC_BATCH;
    }
    mcp__batch *b = mcp__calloc(&s->mem, 1, sizeof *b);
    if (!b) {
        mcp__send_error(s, route, NULL, MCP_WIRE_INTERNAL_ERROR,
                        "Internal error: out of memory", NULL);
        return MCP_ERR_NOMEM;
    }
    b->route = route;
    b->dispatching = true;
    mcp_buf_init(&b->items, 0, &s->mem);
    s->collecting = b;
    for (size_t i = 0; i < n && !s->closed && !s->doomed; i++) {
        mcp_message *item;
        mcp_decode_error ierr;
        int rc = mcp_message_decode_batch_item(batch, i, &s->mem, &item, &ierr);
        if (rc == MCP_OK && item->kind == MCP_MESSAGE_REQUEST &&
            mcp__is_modern_request(item))
            mcp__send_error(s, route, &item->id, MCP_WIRE_INVALID_REQUEST,
                            "Invalid request: 2026-07-28 requests cannot be batched", NULL);
        else if (rc == MCP_OK)
            mcp__dispatch(s, now, route, item);
        else
            mcp__bad_message(s, route, rc, item, &ierr);
        mcp_message_free(item);
    }
    s->collecting = NULL;
    b->dispatching = false;
    if (b->pending == 0)
        flush(s, b);
    return MCP_OK;
}
