/* SPDX-License-Identifier: MIT */
/*
 * libmcp: common definitions shared by every public header.
 *
 * Rules stated once for the whole API (libuv style):
 *
 * - Errors. A function that can fail returns an int: MCP_OK (0) or a negative
 *   library code from enum mcp_error below. Codes are grouped in ranges so a
 *   caller can tell the layer at a glance (nghttp2 style). Library codes are
 *   never JSON-RPC wire codes; those are in enum mcp_wire_error (jsonrpc.h).
 * - NULL. A pointer parameter must not be NULL unless its comment says it
 *   may be (passing NULL elsewhere is undefined, as for the C library).
 *   Every function that frees, releases, resets, closes or stops something
 *   accepts NULL and does nothing.
 * - Ownership. Every function that returns a pointer says in its comment who
 *   owns it and how long it stays valid. "Borrowed" means: owned by the object
 *   it came from, valid until that object is freed or the stated event.
 *   Pointer parameters are borrowed for the call: the library copies what it
 *   keeps and holds no pointer after returning, unless the comment says
 *   "kept" or "taken over". A user_data given with a callback is kept,
 *   unread, until the callback's last possible call.
 * - Threads. Unless a comment says "any thread", an object may be used from one
 *   thread at a time (the thread that owns it). Functions that take no
 *   library object (only values and caller-owned buffers) may be called from
 *   any thread. Distinct objects are independent; nothing in the library
 *   keeps global mutable state except the lazily created, immutable "C"
 *   numeric locale and hash seed, and two process-wide changes made when a
 *   client or server needs them (client.h, server.h): SIGPIPE is set to
 *   ignored when the application left it at its default, and a closed
 *   stdin, stdout or stderr is reserved on /dev/null.
 * - Callbacks. Every callback, whether a typedef or a struct member (the
 *   allocator's three functions included), takes the user_data given with
 *   it as its first parameter: `void handler(void *user_data, ...)`.
 * - Allocation. Objects take an optional allocator (struct mcp_mem); NULL means
 *   malloc/realloc/free. The struct is copied; the caller need not keep it.
 *   Two readers use malloc for scratch memory whatever the document's
 *   allocator: mcp_json_equal (nesting deeper than 64) and
 *   mcp_json_get_double (number text of 128 bytes or more).
 * - Option structs grow without breaking the ABI: each starts with
 *   `size_t size`, which the caller sets to sizeof the struct it compiled
 *   against (`{.size = sizeof(mcp_server_options), ...}`). Fields past that
 *   size read as zero, which always means "the default". A size of 0, or one
 *   larger than this library knows, is MCP_ERR_INVALID_ARG. A NULL options
 *   pointer means every default, except where a field has none
 *   (mcp_session_new, mcp_process_run: MCP_ERR_INVALID_ARG).
 * - Output structs grow the same way. A struct the library fills in the
 *   caller's memory (mcp_client_call_result, mcp_cache_hint,
 *   mcp_completion, mcp_ask_answer) starts with `size_t size`, which the
 *   caller sets before the call (`mcp_client_call_result r = {.size =
 *   sizeof r};`). The library writes nothing past that size (fields a newer
 *   library added stay unwritten) and never changes it; a release function
 *   keeps it, so the struct can be used again. A size of 0, one smaller
 *   than the struct's first version (its comment says which fields that
 *   has) or one larger than this library knows is MCP_ERR_INVALID_ARG, and
 *   nothing is written. A struct the library hands to a callback
 *   (mcp_client_call_result in mcp_client_call_done_fn) is the library's,
 *   its size set by the library. Exempt, with a fixed layout for good:
 *   the error reports that are a code, an offset and text in fixed arrays
 *   (mcp_json_error, mcp_decode_error, mcp_schema_error: a new detail goes
 *   into their text, a new kind of detail into a new struct and function),
 *   and the value types mcp_id, mcp_buf and mcp_mem.
 */
#ifndef MCP_COMMON_H
#define MCP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MCP_STATIC_DEFINE)
#define MCP_EXTERN
#elif defined(__GNUC__) || defined(__clang__)
#define MCP_EXTERN __attribute__((visibility("default")))
#else
#define MCP_EXTERN
#endif

/* The one place the version is written: CMakeLists.txt reads these three
 * lines for the project version, the pkg-config and CMake package versions
 * and the shared library's SONAME (see there). While the major is 0 every
 * minor release may change the ABI, so an ABI change bumps the minor. */
#define MCP_VERSION_MAJOR 0
#define MCP_VERSION_MINOR 3
#define MCP_VERSION_PATCH 0
#define MCP__VERSION_STR(x) #x
#define MCP__VERSION_XSTR(x) MCP__VERSION_STR(x)
#define MCP_VERSION_STRING                                                      \
    MCP__VERSION_XSTR(MCP_VERSION_MAJOR)                                        \
    "." MCP__VERSION_XSTR(MCP_VERSION_MINOR) "." MCP__VERSION_XSTR(MCP_VERSION_PATCH)
/* One number for compile-time checks: #if MCP_VERSION_NUM >= 0x000300 */
#define MCP_VERSION_NUM                                                         \
    ((MCP_VERSION_MAJOR << 16) | (MCP_VERSION_MINOR << 8) | MCP_VERSION_PATCH)

/* Library error codes. Negative; 0 is success. */
enum mcp_error {
    MCP_OK = 0,

    /* General, -1 .. -99 */
    MCP_ERR_NOMEM = -1,       /* an allocation failed */
    MCP_ERR_INVALID_ARG = -2, /* a caller passed a value the function rejects */
    MCP_ERR_LIMIT = -3,       /* a configured cap (size, depth, count) was hit */
    MCP_ERR_STATE = -4,       /* the call is not valid in the object's state */
    MCP_ERR_NOT_FOUND = -5,   /* no such key, id, tool or entry */
    MCP_ERR_IO = -6,          /* an operating-system call failed (see errno) */
    MCP_ERR_UTF8 = -7,        /* a caller-supplied string is not valid UTF-8 */

    /* JSON parsing, -100 .. -149 (mcp_json_parse reports the byte offset) */
    MCP_ERR_JSON_SYNTAX = -100,        /* unexpected character or end of input */
    MCP_ERR_JSON_UTF8 = -101,          /* invalid UTF-8 in the document */
    MCP_ERR_JSON_ESCAPE = -102,        /* bad escape or unpaired surrogate */
    MCP_ERR_JSON_CONTROL = -103,       /* raw control character in a string */
    MCP_ERR_JSON_NUMBER = -104,        /* malformed number, NaN or Infinity */
    MCP_ERR_JSON_DEPTH = -105,         /* nesting deeper than the limit */
    MCP_ERR_JSON_SIZE = -106,          /* document larger than the limit */
    MCP_ERR_JSON_DUPLICATE_KEY = -107, /* same key twice in one object */
    MCP_ERR_JSON_TRAILING = -108,      /* data after the document */
    MCP_ERR_JSON_EMPTY = -109,         /* no value at all */

    /* JSON value access, -150 .. -199 */
    MCP_ERR_JSON_TYPE = -150,  /* the value has another type than asked for */
    MCP_ERR_JSON_RANGE = -151, /* the number does not fit the requested type */

    /* JSON-RPC, -200 .. -299 */
    MCP_ERR_RPC_PARSE = -200,    /* not JSON: answer -32700 with a null id */
    MCP_ERR_RPC_INVALID = -201,  /* JSON but not a valid JSON-RPC/MCP message */
    MCP_ERR_RPC_BATCH = -202,    /* a JSON-RPC batch (array) */
    MCP_ERR_LINE_TOO_LONG = -210, /* a stdio line exceeded the cap; skipped */

    /* Requests and sessions, -300 .. -399. The four local endings of a
     * request (aborted, timed out, max time, closed) are distinct, and none
     * of them is ever sent on the wire. */
    MCP_ERR_REMOTE = -300,    /* the peer answered with a JSON-RPC error */
    MCP_ERR_ABORTED = -301,   /* cancelled by the caller */
    MCP_ERR_TIMED_OUT = -302, /* no answer or progress within the idle timeout */
    MCP_ERR_MAX_TIME = -303,  /* the maximum total time elapsed */
    MCP_ERR_CLOSED = -304,    /* the connection closed before an answer */
    MCP_ERR_PROTOCOL = -305,  /* the peer broke the protocol */
    MCP_ERR_CANCELLED = -306, /* the peer cancelled this request */
    MCP_ERR_TOO_LARGE = -307, /* the peer's answer exceeded the message size cap */
    MCP_ERR_INPUT_REQUIRED = -308, /* 2026-07-28: the client must answer first (the
                                      call ends asking; its retry brings the answer) */
    MCP_ERR_HTTP = -309, /* the HTTP exchange carrying a request failed: an
                            HTTP error status, or the network (the status, 0
                            for none, in mcp_client_call_result.http_status) */

    /* Runtime and transports, -400 .. -499 */
    MCP_ERR_SPAWN = -400, /* the server command could not be started */
    MCP_ERR_BUSY = -401,  /* a queue is full; try again later */

    /* JSON Schema, -500 .. -549 */
    MCP_ERR_SCHEMA = -500,          /* not a valid schema */
    MCP_ERR_SCHEMA_REMOTE = -501,   /* a $ref to another document */
    MCP_ERR_SCHEMA_MISMATCH = -502  /* the instance does not satisfy the schema */
};

/*
 * mcp_strerror: a static, human-readable description of a library code.
 * Returns a pointer to a string literal (never NULL; unknown codes give
 * "unknown error"). Any thread.
 */
MCP_EXTERN const char *mcp_strerror(int code);

/*
 * mcp_version: the runtime library version, "MAJOR.MINOR.PATCH".
 * Returns a string literal. Any thread.
 */
MCP_EXTERN const char *mcp_version(void);

/*
 * Allocator hook. All three functions are required when a struct is given.
 * realloc(NULL, n) must behave like malloc(n); free(NULL) must be harmless.
 * The functions may be called from any thread that uses an object created
 * with this allocator.
 */
typedef struct mcp_mem {
    void *user_data;
    void *(*malloc)(void *user_data, size_t size);
    void *(*realloc)(void *user_data, void *ptr, size_t size);
    void (*free)(void *user_data, void *ptr);
} mcp_mem;

/*
 * A growable byte buffer with a hard cap (curl style: every buffer capped).
 *
 * Fields are readable; change them only through the functions below.
 * `data` is owned by the buffer, is NUL-terminated whenever len > 0 (the NUL
 * is not counted in len), and moves on every append: do not keep pointers
 * into it across appends.
 */
typedef struct mcp_buf {
    char *data;
    size_t len;   /* bytes used */
    size_t alloc; /* bytes allocated */
    size_t limit; /* maximum len; an append past it fails with MCP_ERR_LIMIT */
    mcp_mem mem;
} mcp_buf;

/* Default cap of a buffer initialised with limit 0: 64 MiB. */
#define MCP_BUF_DEFAULT_LIMIT ((size_t)64 << 20)

/*
 * mcp_buf_init: prepare an empty buffer. limit 0 means MCP_BUF_DEFAULT_LIMIT;
 * mem NULL means the C library allocator. Allocates nothing. Never fails.
 */
MCP_EXTERN void mcp_buf_init(mcp_buf *buf, size_t limit, const mcp_mem *mem);

/*
 * mcp_buf_append: append len bytes. Returns MCP_OK, MCP_ERR_LIMIT (nothing
 * appended: the result would exceed the cap) or MCP_ERR_NOMEM (nothing
 * appended).
 */
MCP_EXTERN int mcp_buf_append(mcp_buf *buf, const void *bytes, size_t len);

/*
 * MCP_LITERAL: a string literal and its length without the terminating NUL,
 * as two arguments for any (bytes, len) pair:
 * mcp_buf_append(b, MCP_LITERAL("}\n")). The length is the compiler's,
 * never counted by hand (a count one too long sends the NUL); anything but
 * a string literal does not compile.
 */
#define MCP_LITERAL(lit) ("" lit ""), (sizeof(lit) - 1)

/* mcp_buf_reset: set len to 0, keep the allocation. */
MCP_EXTERN void mcp_buf_reset(mcp_buf *buf);

/* mcp_buf_free: release the allocation; the buffer is empty and reusable. */
MCP_EXTERN void mcp_buf_free(mcp_buf *buf);

/* ------------------------------------------------------------------------ */
/* Showing a peer's text                                                     */

/*
 * Text from a peer (a reason, an error message, a tool's description) may
 * carry control characters that a terminal acts on (ESC sequences that
 * clear it or retitle it, a CR or LF that forges a line). These write it
 * with each control character (C0, DEL, the C1 range U+0080..U+009F and the
 * bidirectional controls U+061C, U+200E-200F, U+202A-202E, U+2066-2069) as
 * a visible escape: \n \r \t, \x1b for the other C0 ones and DEL,
 * \u0085 for C1, \u202e for the bidirectional ones. Everything else,
 * invalid UTF-8 included, is copied.
 *
 * mcp_text_escape_controls: into out (size bytes, always NUL-terminated when
 * size > 0), cut before an escape or a character that would not fit.
 * Returns the length written. Any thread.
 * mcp_text_escape_controls_buf: appended to out. MCP_OK, MCP_ERR_LIMIT or
 * MCP_ERR_NOMEM (then out holds what was appended before). Any thread.
 */
MCP_EXTERN size_t mcp_text_escape_controls(const char *text, size_t len, char *out,
                                           size_t size);
MCP_EXTERN int mcp_text_escape_controls_buf(const char *text, size_t len, mcp_buf *out);

#ifdef __cplusplus
}
#endif
#endif /* MCP_COMMON_H */
