/* SPDX-License-Identifier: MIT */
/*
 * libmcp JSON-RPC 2.0: the message model, decoder, encoders and the NDJSON
 * line reader used by the stdio transport.
 *
 * Ids keep their JSON type: the integer 7 and the string "7" are different
 * ids; 0, -1 and "" are valid ids. Integer ids are exact int64 values.
 */
#ifndef MCP_JSONRPC_H
#define MCP_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/common.h"
#include "mcp/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* JSON-RPC error codes sent on the wire. Distinct from enum mcp_error:
 * library codes never travel to the peer. */
enum mcp_wire_error {
    MCP_WIRE_PARSE_ERROR = -32700,
    MCP_WIRE_INVALID_REQUEST = -32600,
    MCP_WIRE_METHOD_NOT_FOUND = -32601,
    MCP_WIRE_INVALID_PARAMS = -32602,
    MCP_WIRE_INTERNAL_ERROR = -32603,
    MCP_WIRE_RESOURCE_NOT_FOUND = -32002,       /* legacy revisions */
    MCP_WIRE_URL_ELICITATION_REQUIRED = -32042, /* 2025-11-25 */
    /* 2026-07-28 */
    MCP_WIRE_HEADER_MISMATCH = -32020,          /* HTTP headers disagree with the body */
    MCP_WIRE_MISSING_CAPABILITY = -32021,       /* data.requiredCapabilities */
    MCP_WIRE_UNSUPPORTED_VERSION = -32022       /* data.supported, data.requested */
};

/* ------------------------------------------------------------------------ */
/* Ids                                                                       */

typedef enum mcp_id_kind {
    MCP_ID_NONE = 0, /* absent or null: only in error responses */
    MCP_ID_INT,
    MCP_ID_STRING
} mcp_id_kind;

/* A request id. For MCP_ID_STRING, `str` points at `len` bytes (which may
 * contain NUL) owned by whatever produced the id: a decoded message (valid
 * until mcp_message_free) or mcp_id_copy (valid until mcp_id_release). */
typedef struct mcp_id {
    mcp_id_kind kind;
    int64_t num;
    const char *str;
    size_t len;
} mcp_id;

static inline mcp_id mcp_id_from_int(int64_t n)
{
    mcp_id id = {MCP_ID_INT, n, NULL, 0};
    return id;
}

/* Borrows s: the id is valid as long as the bytes are. */
static inline mcp_id mcp_id_from_string(const char *s, size_t len)
{
    mcp_id id = {MCP_ID_STRING, 0, s, len};
    return id;
}

/* Equal when kinds are equal and values are equal (bytes for strings). Two
 * MCP_ID_NONE ids are equal. Any thread. */
MCP_EXTERN bool mcp_id_equal(const mcp_id *a, const mcp_id *b);

/* A hash consistent with mcp_id_equal, keyed per process (see core/hash.c),
 * for request tables. Any thread. */
MCP_EXTERN uint64_t mcp_id_hash(const mcp_id *id);

/* mcp_id_copy: make dst an owning copy of src (the string is duplicated with
 * mem, which may be NULL). Release with mcp_id_release(dst, mem). Returns
 * MCP_OK or MCP_ERR_NOMEM (dst is then MCP_ID_NONE). Any thread. */
MCP_EXTERN int mcp_id_copy(mcp_id *dst, const mcp_id *src, const mcp_mem *mem);

/* mcp_id_release: free a copy made by mcp_id_copy with the same mem; sets
 * the id to MCP_ID_NONE. Any thread. */
MCP_EXTERN void mcp_id_release(mcp_id *id, const mcp_mem *mem);

/* mcp_id_write: append the id as JSON (`null` for MCP_ID_NONE). Returns
 * MCP_OK, MCP_ERR_LIMIT, MCP_ERR_NOMEM, MCP_ERR_UTF8 (a string id that is not
 * UTF-8) or MCP_ERR_INVALID_ARG (str NULL with len > 0); out is unchanged on
 * error. Any thread. */
MCP_EXTERN int mcp_id_write(const mcp_id *id, mcp_buf *out);

/* mcp_id_from_json: read a request id from a JSON value: an integer literal
 * in int64 range, or a string (borrowed from v's document). Returns MCP_OK,
 * or MCP_ERR_RPC_INVALID for null, fractions, exponents, out-of-range
 * integers and every other type. Any thread. */
MCP_EXTERN int mcp_id_from_json(const mcp_json *v, mcp_id *out);

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */

typedef enum mcp_message_kind {
    MCP_MESSAGE_REQUEST = 1,
    MCP_MESSAGE_NOTIFICATION,
    MCP_MESSAGE_RESULT,
    MCP_MESSAGE_ERROR,
    MCP_MESSAGE_INVALID, /* decoded JSON that is not a valid message */
    MCP_MESSAGE_BATCH    /* a JSON array: a batch (2025-03-26 only) */
} mcp_message_kind;

/*
 * A decoded message. Read-only for the caller; every pointer in it is
 * borrowed from the message and valid until mcp_message_free().
 */
typedef struct mcp_message {
    mcp_message_kind kind;
    mcp_id id; /* request, result, error (may be NONE), invalid (if read) */
    const char *method; /* request, notification: NUL-terminated */
    size_t method_len;
    const mcp_json *params; /* request, notification: object or NULL */
    const mcp_json *result; /* result */
    int64_t error_code;     /* error */
    const char *error_message;
    size_t error_message_len;
    const mcp_json *error_data; /* error: any value or NULL */
    const mcp_json *batch;      /* batch: the array */
    const mcp_json *root;       /* the whole decoded JSON value */
    mcp_json_doc *doc;          /* owns all of the above */
} mcp_message;

/* Why a message could not be used, and what (if anything) answers it. */
typedef struct mcp_decode_error {
    int code;      /* MCP_ERR_RPC_PARSE, _INVALID, _BATCH, or MCP_ERR_NOMEM */
    int wire_code; /* MCP_WIRE_PARSE_ERROR or MCP_WIRE_INVALID_REQUEST to
                      answer with; 0: send nothing (it looks like a
                      notification or a response) */
    size_t offset; /* parse errors: byte offset of the problem */
    char message[160]; /* the specific reason, for the log and the peer */
} mcp_decode_error;

/*
 * mcp_message_decode: decode one message from len bytes.
 *
 * Returns:
 * - MCP_OK: *out is a request, notification, result or error.
 * - MCP_ERR_RPC_PARSE: not JSON (or over a JSON limit); *out is NULL;
 *   err->wire_code is -32700, to be answered with a null id.
 * - MCP_ERR_RPC_INVALID: JSON, but not a valid JSON-RPC 2.0 / MCP message;
 *   *out is a message of kind MCP_MESSAGE_INVALID whose id is set when it
 *   could be read; err->wire_code is -32600, or 0 for something that looks
 *   like a notification or a response (never answered).
 * - MCP_ERR_RPC_BATCH: a JSON array; *out is of kind MCP_MESSAGE_BATCH;
 *   err->wire_code is -32600 (a session that speaks 2025-03-26 may instead
 *   decode the elements with mcp_message_decode_batch_item).
 * - MCP_ERR_NOMEM: *out is NULL.
 * - MCP_ERR_INVALID_ARG: a bad opts->size, or data NULL with len > 0 (the
 *   caller's mistake: nothing to answer); *out is NULL.
 * Whenever *out is set the caller owns it: free with mcp_message_free().
 * opts, mem and err may be NULL. Any thread.
 */
MCP_EXTERN int mcp_message_decode(const char *data, size_t len,
                                  const mcp_json_parse_options *opts,
                                  const mcp_mem *mem, mcp_message **out,
                                  mcp_decode_error *err);

/*
 * mcp_message_decode_batch_item: decode element i of a batch message into a
 * new, independent message (results as mcp_message_decode; an element that
 * is itself an array is MCP_ERR_RPC_INVALID). *out, when set, is the
 * caller's (mcp_message_free) and does not depend on batch.
 * MCP_ERR_INVALID_ARG when batch is not a batch message, MCP_ERR_NOT_FOUND
 * when i is out of range (err is not filled for either). mem and err may be
 * NULL. Any thread.
 */
MCP_EXTERN int mcp_message_decode_batch_item(const mcp_message *batch,
                                             size_t i, const mcp_mem *mem,
                                             mcp_message **out,
                                             mcp_decode_error *err);

/* Whether msg is a request or notification for `method` (compared with its
 * length, so a method name with a NUL inside never matches). Any thread. */
MCP_EXTERN bool mcp_message_method_is(const mcp_message *msg, const char *method);

/* Messages are reference counted so that several owners (the session's
 * request table, a handler on a worker thread) can keep one alive. The
 * decoder hands out one reference. */

/* mcp_message_retain: add a reference; returns msg. Any thread. */
MCP_EXTERN mcp_message *mcp_message_retain(mcp_message *msg);

/* mcp_message_free: drop one reference; the last one frees the message and
 * everything borrowed from it. NULL is a no-op. Any thread. */
MCP_EXTERN void mcp_message_free(mcp_message *msg);

/* ------------------------------------------------------------------------ */
/* Encoding: each appends exactly one message and a '\n' to out, or nothing
 * on error (MCP_ERR_LIMIT, MCP_ERR_NOMEM, MCP_ERR_INVALID_ARG, MCP_ERR_UTF8
 * when `method`, `message` or a string id is not valid UTF-8). `method` and
 * `message` are NUL-terminated. The JSON values are borrowed for the call
 * only. Any thread, for distinct buffers. */

/* params may be NULL (omitted) and must otherwise be an object. */
MCP_EXTERN int mcp_encode_request(mcp_buf *out, const mcp_id *id,
                                  const char *method, const mcp_json *params);
MCP_EXTERN int mcp_encode_notification(mcp_buf *out, const char *method,
                                       const mcp_json *params);
/* result NULL writes an empty object. */
MCP_EXTERN int mcp_encode_result(mcp_buf *out, const mcp_id *id,
                                 const mcp_json *result);
/* id NULL or MCP_ID_NONE writes `"id":null`. data may be NULL (omitted). */
MCP_EXTERN int mcp_encode_error(mcp_buf *out, const mcp_id *id, int64_t code,
                                const char *message, const mcp_json *data);

/* ------------------------------------------------------------------------ */
/* NDJSON line reader (stdio framing)                                        */

#define MCP_LINE_DEFAULT_MAX ((size_t)4 << 20)

typedef struct mcp_line_reader mcp_line_reader;

/* Bytes kept from each end of a line that is too long: enough to read the
 * id of a message whose body is the large part. */
#define MCP_LINE_KEEP 4096u

/*
 * Called once per line. status MCP_OK: `line` holds `len` > 0 bytes without
 * the newline and without a trailing CR; it is borrowed for the duration of
 * the call only. Empty lines are skipped.
 * status MCP_ERR_LINE_TOO_LONG (a line passed the cap) or MCP_ERR_NOMEM (a
 * partial line could not be buffered): the line was skipped up to its
 * newline and is reported once, when it ends: `line` holds its first `len`
 * bytes (at most MCP_LINE_KEEP), mcp_line_reader_tail() its last ones and
 * mcp_line_reader_skipped() its length, all valid during the call only.
 * Runs on the thread that called feed/finish. The callback must not free
 * the reader.
 */
typedef void (*mcp_line_cb)(void *user_data, int status, const char *line,
                            size_t len);

/* mcp_line_reader_new: max_line 0 means MCP_LINE_DEFAULT_MAX. Returns a new
 * reader owned by the caller (free with mcp_line_reader_free) or NULL when
 * out of memory. */
MCP_EXTERN mcp_line_reader *mcp_line_reader_new(size_t max_line,
                                                const mcp_mem *mem);

/* mcp_line_reader_feed: split len bytes of stream data into lines, calling
 * cb for each complete one. Bytes after the last newline are kept for the
 * next call. Returns MCP_OK (problems are reported through cb). */
MCP_EXTERN int mcp_line_reader_feed(mcp_line_reader *r, const char *data,
                                    size_t len, mcp_line_cb cb,
                                    void *user_data);

/* mcp_line_reader_finish: at end of stream, deliver a final line that had
 * no newline (if any). The reader is then empty and reusable. */
MCP_EXTERN void mcp_line_reader_finish(mcp_line_reader *r, mcp_line_cb cb,
                                       void *user_data);

/* During a MCP_ERR_LINE_TOO_LONG or MCP_ERR_NOMEM callback: the last bytes
 * (at most MCP_LINE_KEEP) of the skipped line, borrowed from the reader,
 * and its length in all. */
MCP_EXTERN const char *mcp_line_reader_tail(const mcp_line_reader *r, size_t *len);
MCP_EXTERN size_t mcp_line_reader_skipped(const mcp_line_reader *r);

/* Bytes currently buffered for an unfinished line. */
MCP_EXTERN size_t mcp_line_reader_pending(const mcp_line_reader *r);

/* mcp_line_reader_free: NULL is a no-op. */
MCP_EXTERN void mcp_line_reader_free(mcp_line_reader *r);

#ifdef __cplusplus
}
#endif
#endif /* MCP_JSONRPC_H */
