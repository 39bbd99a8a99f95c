/* SPDX-License-Identifier: MIT */
/*
 * Server-Sent Events (text/event-stream), sans-I/O: a decoder fed bytes as
 * they arrive that calls back once per dispatched event, and encoders that
 * append events to an mcp_buf. The decoder follows the WHATWG HTML "event
 * stream interpretation" exactly; it does not check UTF-8 (the JSON parser
 * that reads the data does). No clock, no socket, no global state: any
 * thread, one decoder at a time per thread.
 */
#ifndef MCP_TRANSPORT_SSE_H
#define MCP_TRANSPORT_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/common.h"

/* Default cap on what one event holds (max_event 0). */
#define MCP__SSE_DEFAULT_MAX_EVENT ((size_t)4 << 20)

typedef struct mcp__sse_event {
    const char *type;  size_t type_len;  /* the `event:` field; type_len 0 when none (means "message") */
    const char *data;  size_t data_len;  /* the data lines joined with "\n", final newline removed; NUL-terminated */
    const char *id;    size_t id_len;    /* the stream's last event id after this event (may be empty) */
    bool has_id;                         /* an `id:` field was seen on the stream so far */
} mcp__sse_event;

typedef struct mcp__sse_callbacks {
    /* One dispatched event; borrowed for the call. Return false to stop: feed then
       returns at once without touching the decoder again (the caller may then free it). */
    bool (*event)(void *ud, const mcp__sse_event *ev);
    /* A `retry:` field with a valid number (milliseconds). May be NULL. */
    void (*retry)(void *ud, uint64_t ms);
    void *ud;
} mcp__sse_callbacks;

/*
 * The decoder's state, visible because it is embedded by value; read
 * nothing here but through the functions below (tests look inside).
 *
 * buf holds the current event's data (each data line's value and "\n"),
 * followed by the part of the current line read so far when that line
 * spans feeds. A line found whole in one feed is read from the caller's
 * bytes and never copied.
 */
typedef struct mcp__sse_decoder {
    mcp_mem mem;
    mcp__sse_callbacks cb;
    size_t max_event;
    char *buf;
    size_t data_len;  /* bytes of data in buf */
    size_t line_len;  /* bytes of an unfinished line after them */
    size_t buf_alloc;
    char *type;       /* the event type buffer, NUL-terminated */
    size_t type_len, type_alloc;
    /* The WHATWG spec's two ids: the "last event ID buffer" that an `id:`
     * line sets, and the "last event ID string" it is copied to at the next
     * blank line (what a reconnection sends). next_id is meaningful only
     * while next_id_set. */
    char *id;
    size_t id_len, id_alloc;
    char *next_id;
    size_t next_id_len, next_id_alloc;
    bool next_id_set;
    bool has_id;      /* an id was committed on this decoder */
    bool after_cr;    /* the last line ended in CR: an LF next ends nothing */
    unsigned char bom; /* bytes of a UTF-8 BOM matched at the stream's start; 3 once past it */
    int error;        /* sticky: MCP_OK, MCP_ERR_LIMIT or MCP_ERR_NOMEM */
} mcp__sse_decoder;

/*
 * mcp__sse_decoder_init: an empty decoder. max_event caps the bytes held for
 * one event (data + the line being read + type); 0 means a default of
 * 4 MiB. Every line counts against it, comments included, so a single huge
 * line fails without being buffered. cb is copied; cb->event must not be
 * NULL; cb->ud is kept until mcp__sse_decoder_free. Allocates nothing; the
 * C library allocator is used.
 */
void mcp__sse_decoder_init(mcp__sse_decoder *d, size_t max_event, const mcp__sse_callbacks *cb);

/* The same with an allocator (NULL: the C library's), copied. */
void mcp__sse_decoder_init_mem(mcp__sse_decoder *d, size_t max_event,
                               const mcp__sse_callbacks *cb, const mcp_mem *mem);

/*
 * mcp__sse_decoder_feed: feed n bytes as they arrive, in any chunking (p may
 * be NULL when n is 0); the events are the same whatever the chunking.
 * Callbacks run on the calling thread before it returns; they must not feed
 * this decoder. Returns MCP_OK (also when an event callback returned false:
 * the rest of these bytes are then not read, and the decoder, left between
 * events, may be fed again or freed), MCP_ERR_LIMIT when an event or a line
 * exceeds the cap, or MCP_ERR_NOMEM. After an error the decoder stays
 * failed: every later feed returns the same error and calls nothing.
 */
int mcp__sse_decoder_feed(mcp__sse_decoder *d, const char *p, size_t n);

/*
 * mcp__sse_decoder_finish: the stream ended. An unfinished event is
 * discarded (per the SSE spec), nothing dispatched, and an `id:` in it is
 * not committed. The last event id is kept and the decoder reads the next
 * stream (a reconnection) from its start, a BOM included.
 */
void mcp__sse_decoder_finish(mcp__sse_decoder *d);

/*
 * mcp__sse_decoder_last_id: the last event id committed (at a blank line,
 * per the spec), for Last-Event-ID on reconnect; "" and *len 0 when none.
 * Borrowed: valid until the next feed or free. Kept after an error.
 */
const char *mcp__sse_decoder_last_id(const mcp__sse_decoder *d, size_t *len);

/* mcp__sse_decoder_free: release its memory (d itself is the caller's).
 * Accepts NULL. */
void mcp__sse_decoder_free(mcp__sse_decoder *d);

/*
 * Encoders, appending to an mcp_buf. Each returns MCP_OK, MCP_ERR_LIMIT or
 * MCP_ERR_NOMEM (or MCP_ERR_INVALID_ARG as said) and appends nothing on
 * error. Any thread.
 *
 * mcp__sse_append_event: "id: <id>\n" (omitted when id is NULL), "event:
 * <type>\n" (omitted when type is NULL or empty, both mean "message"), then
 * one "data: " line per line of data (split at \n, \r\n and \r, so the
 * decoder gives it back with every line break as \n; empty data is one
 * empty line, so it is still dispatched), then a blank line. An id
 * containing \n, \r or NUL, or a type containing \n or \r, is
 * MCP_ERR_INVALID_ARG. data may be NULL when data_len is 0.
 */
int mcp__sse_append_event(mcp_buf *out, const char *id, size_t id_len, const char *type,
                          size_t type_len, const char *data, size_t data_len);

/* "retry: <ms>\n\n". */
int mcp__sse_append_retry(mcp_buf *out, uint64_t ms);

/* ": <text>\n\n" (a keep-alive); text with \n or \r is MCP_ERR_INVALID_ARG.
 * text may be NULL when len is 0. */
int mcp__sse_append_comment(mcp_buf *out, const char *text, size_t len);

#endif
