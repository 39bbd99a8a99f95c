/* SPDX-License-Identifier: MIT */
/*
 * libmcp JSON: a strict RFC 8259 parser into an arena-backed DOM, a builder,
 * and a compact writer.
 *
 * Lifetime. A document (mcp_json_doc) owns one arena. Every value, string and
 * key reachable from it lives in that arena and is freed at once by
 * mcp_json_doc_free(). A `const mcp_json *` obtained from a document is
 * borrowed: valid until the document is freed. Nothing is ever freed
 * individually.
 *
 * Threads. A document may be read from several threads at once as long as no
 * thread modifies it; building (mcp_json_new_*, _set, _append) needs exclusive
 * access.
 *
 * Absent values. Every reader accepts NULL and treats it as "absent", so
 * lookups chain: mcp_json_object_get(mcp_json_object_get(p, "_meta"), "x")
 * is NULL when either level is missing or not an object.
 *
 * Strings carry their length. `\u0000` is a valid character; the returned
 * pointer is also NUL-terminated for convenience, but the length is the truth.
 */
#ifndef MCP_JSON_H
#define MCP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_json_doc mcp_json_doc;
typedef struct mcp_json mcp_json;

typedef enum mcp_json_type {
    MCP_JSON_ABSENT = 0, /* the NULL pointer: no such value */
    MCP_JSON_NULL,
    MCP_JSON_BOOL,
    MCP_JSON_NUMBER,
    MCP_JSON_STRING,
    MCP_JSON_ARRAY,
    MCP_JSON_OBJECT
} mcp_json_type;

/* ------------------------------------------------------------------------ */
/* Parsing                                                                   */

#define MCP_JSON_DEFAULT_MAX_DEPTH 128u
#define MCP_JSON_DEFAULT_MAX_SIZE ((size_t)4 << 20)

typedef enum mcp_json_duplicates {
    MCP_JSON_DUPLICATES_REJECT = 0, /* default: MCP_ERR_JSON_DUPLICATE_KEY */
    MCP_JSON_DUPLICATES_LAST_WINS   /* keep the first position, last value */
} mcp_json_duplicates;

/* Parse options: set size to sizeof(mcp_json_parse_options), then what you
 * need; 0 means default. */
typedef struct mcp_json_parse_options {
    size_t size;
    size_t max_size;    /* bytes; default MCP_JSON_DEFAULT_MAX_SIZE; at most 4 GiB - 1 */
    unsigned max_depth; /* nesting of arrays/objects; default 128 */
    mcp_json_duplicates duplicates;
} mcp_json_parse_options;

/* Where and why a parse failed. `message` is NUL-terminated English text
 * naming the reason and the byte offset, e.g.
 * "invalid UTF-8 (overlong encoding) at byte 12". */
typedef struct mcp_json_error {
    int code;      /* MCP_ERR_JSON_*, MCP_ERR_NOMEM or MCP_ERR_INVALID_ARG */
    size_t offset; /* byte offset in the input where the problem starts */
    char message[120];
} mcp_json_error;

/*
 * mcp_json_parse: parse exactly one JSON text of `len` bytes (not
 * NUL-terminated; embedded NUL bytes are an error outside strings).
 *
 * On success returns MCP_OK and stores a new document in *out; the caller owns
 * it and frees it with mcp_json_doc_free(). The input is copied: it may be
 * released as soon as the call returns.
 * On failure returns MCP_ERR_JSON_SYNTAX, _UTF8, _ESCAPE, _CONTROL, _NUMBER,
 * _DEPTH, _SIZE, _DUPLICATE_KEY, _TRAILING or _EMPTY (err->offset says
 * where), MCP_ERR_NOMEM, or MCP_ERR_INVALID_ARG (a bad opts size, text NULL
 * with len > 0); it sets *out to NULL, fills *err when err is not NULL, and
 * leaks nothing.
 * opts and mem may be NULL (defaults). Any thread.
 */
MCP_EXTERN int mcp_json_parse(const char *text, size_t len,
                              const mcp_json_parse_options *opts,
                              const mcp_mem *mem, mcp_json_doc **out,
                              mcp_json_error *err);

/* mcp_json_doc_root: the root value; borrowed from doc. NULL for an empty
 * built document. */
MCP_EXTERN mcp_json *mcp_json_doc_root(const mcp_json_doc *doc);

/* mcp_json_doc_free: free the document and every value in it. NULL is a
 * no-op. */
MCP_EXTERN void mcp_json_doc_free(mcp_json_doc *doc);

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */

/* The type of v; MCP_JSON_ABSENT for NULL. */
MCP_EXTERN mcp_json_type mcp_json_typeof(const mcp_json *v);

/* mcp_json_get_bool: MCP_OK and *out, or MCP_ERR_JSON_TYPE. */
MCP_EXTERN int mcp_json_get_bool(const mcp_json *v, bool *out);

/*
 * mcp_json_string: the bytes of a string value and, when len is not NULL,
 * its length. Returns NULL when v is not a string. Borrowed from the
 * document; NUL-terminated, but may contain NUL bytes: use *len.
 */
MCP_EXTERN const char *mcp_json_string(const mcp_json *v, size_t *len);

/*
 * Number readers. Each returns MCP_OK and stores the value, MCP_ERR_JSON_TYPE
 * when v is not a number (or, for the integer readers, not integral), or
 * MCP_ERR_JSON_RANGE when the number does not fit; *out is untouched on error.
 *
 * The integer readers are exact: they accept any number whose value is an
 * integer (`7`, `7.0`, `7e0`, `70e-1`) and that fits the type. They never
 * round or clamp.
 * mcp_json_get_double rounds to nearest; it fails with MCP_ERR_JSON_RANGE when
 * the magnitude overflows to infinity or a non-zero value underflows to zero,
 * and with MCP_ERR_NOMEM when a number text of 128 bytes or more cannot be
 * copied (with malloc).
 */
MCP_EXTERN int mcp_json_get_int64(const mcp_json *v, int64_t *out);
MCP_EXTERN int mcp_json_get_uint64(const mcp_json *v, uint64_t *out);
MCP_EXTERN int mcp_json_get_double(const mcp_json *v, double *out);

/* True when v is a number written as an integer literal: no fraction, no
 * exponent (`-12`, not `12.0`). */
MCP_EXTERN bool mcp_json_is_integer_literal(const mcp_json *v);

/* The number's JSON text, exactly as parsed or as built (the writer emits
 * this text), with its length in *len (len may be NULL). Borrowed; not
 * NUL-terminated. NULL when v is not a number. */
MCP_EXTERN const char *mcp_json_number_text(const mcp_json *v, size_t *len);

/* Arrays: the element count (0 for non-arrays) and element i (NULL when out
 * of range or v is not an array). Borrowed. */
MCP_EXTERN size_t mcp_json_array_size(const mcp_json *v);
MCP_EXTERN mcp_json *mcp_json_array_at(const mcp_json *v, size_t i);

/* Objects: member count (0 for non-objects); member i in document order,
 * with its key and key length (either out-pointer may be NULL); lookup by
 * NUL-terminated key or by key bytes. All results borrowed; NULL when absent.
 * Lookups are O(1) on average for large objects (a hash index), linear scans
 * for small ones. */
MCP_EXTERN size_t mcp_json_object_size(const mcp_json *v);
MCP_EXTERN mcp_json *mcp_json_object_at(const mcp_json *v, size_t i,
                                        const char **key, size_t *key_len);
MCP_EXTERN mcp_json *mcp_json_object_get(const mcp_json *v, const char *key);
MCP_EXTERN mcp_json *mcp_json_object_getn(const mcp_json *v, const char *key,
                                          size_t key_len);

/*
 * mcp_json_equal: deep value equality. Numbers compare by exact decimal value
 * (`1.0` equals `1`, `1e2` equals `100`); object members compare as sets of
 * key/value pairs, regardless of order. Two absent values are equal.
 * Needs no allocation up to 64 levels of nesting; beyond that, if memory for
 * the traversal cannot be had, returns false. Any thread, for documents no
 * thread is modifying.
 */
MCP_EXTERN bool mcp_json_equal(const mcp_json *a, const mcp_json *b);

/* ------------------------------------------------------------------------ */
/* Building                                                                  */
/*
 * A built document starts empty. Constructors return a value owned by the
 * document (valid until it is freed) or NULL on failure; doc must not be
 * NULL. A failure is also recorded in the document as a sticky error (first
 * one wins): MCP_ERR_NOMEM unless a constructor's comment names another
 * code; passing a NULL value to _set or _append records MCP_ERR_INVALID_ARG,
 * so a whole tree can be built and checked once with mcp_json_doc_error()
 * before it is written (the writer sees values, not documents, so it cannot
 * check for you).
 *
 * Values may be added to containers of the same document only (not checked:
 * a value of another document dangles once that document is freed). Parsed
 * documents can be modified the same way.
 */

/* mcp_json_doc_new: an empty document for building. NULL on allocation
 * failure. Free with mcp_json_doc_free(). */
MCP_EXTERN mcp_json_doc *mcp_json_doc_new(const mcp_mem *mem);

/* The first error recorded while building, or MCP_OK; MCP_ERR_INVALID_ARG
 * for a NULL doc. */
MCP_EXTERN int mcp_json_doc_error(const mcp_json_doc *doc);

/* Set the root (a value of this document, or NULL). */
MCP_EXTERN void mcp_json_doc_set_root(mcp_json_doc *doc, mcp_json *root);

MCP_EXTERN mcp_json *mcp_json_new_null(mcp_json_doc *doc);
MCP_EXTERN mcp_json *mcp_json_new_bool(mcp_json_doc *doc, bool b);
MCP_EXTERN mcp_json *mcp_json_new_int(mcp_json_doc *doc, int64_t i);
MCP_EXTERN mcp_json *mcp_json_new_uint(mcp_json_doc *doc, uint64_t u);
/* NaN and infinities have no JSON form: NULL and MCP_ERR_INVALID_ARG.
 * Written in the shortest form that reads back as the same double. */
MCP_EXTERN mcp_json *mcp_json_new_double(mcp_json_doc *doc, double d);
/* A number from JSON number text (validated; copied). NULL and
 * MCP_ERR_JSON_NUMBER if the text is not a JSON number. */
MCP_EXTERN mcp_json *mcp_json_new_number_text(mcp_json_doc *doc,
                                              const char *text, size_t len);
/* Strings are copied and must be valid UTF-8 (else NULL and MCP_ERR_UTF8);
 * s NULL (for _stringn: with len > 0), or len over 4 GiB - 1, gives NULL and
 * MCP_ERR_INVALID_ARG. */
MCP_EXTERN mcp_json *mcp_json_new_string(mcp_json_doc *doc, const char *s);
MCP_EXTERN mcp_json *mcp_json_new_stringn(mcp_json_doc *doc, const char *s,
                                          size_t len);
MCP_EXTERN mcp_json *mcp_json_new_array(mcp_json_doc *doc);
MCP_EXTERN mcp_json *mcp_json_new_object(mcp_json_doc *doc);

/* mcp_json_copy: a deep copy of src (which may belong to any document, and
 * may be NULL: then NULL is returned without error) into doc. */
MCP_EXTERN mcp_json *mcp_json_copy(mcp_json_doc *doc, const mcp_json *src);

/*
 * mcp_json_array_append: append value to array. Returns MCP_OK,
 * MCP_ERR_INVALID_ARG (array is not an array, or value is NULL),
 * MCP_ERR_LIMIT (over 2^31 elements) or MCP_ERR_NOMEM. Errors are also
 * recorded as the document's sticky error.
 */
MCP_EXTERN int mcp_json_array_append(mcp_json_doc *doc, mcp_json *array,
                                     mcp_json *value);

/*
 * mcp_json_object_set: set key to value, replacing an existing member with
 * that key in place (document order is kept) or appending a new one. The key
 * is copied and must be valid UTF-8. Returns as mcp_json_array_append, plus
 * MCP_ERR_UTF8 for a bad key.
 */
MCP_EXTERN int mcp_json_object_set(mcp_json_doc *doc, mcp_json *object,
                                   const char *key, mcp_json *value);
MCP_EXTERN int mcp_json_object_setn(mcp_json_doc *doc, mcp_json *object,
                                    const char *key, size_t key_len,
                                    mcp_json *value);

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

/*
 * mcp_json_write: append the compact JSON form of v to out: one line, no
 * insignificant whitespace, never a raw newline. Control characters, `"` and
 * `\` in strings are escaped; other characters are written as UTF-8.
 * Returns MCP_OK, MCP_ERR_INVALID_ARG (v or out is NULL), MCP_ERR_LIMIT (the
 * buffer cap was reached) or MCP_ERR_NOMEM. On error the buffer is restored to its
 * length before the call.
 */
MCP_EXTERN int mcp_json_write(const mcp_json *v, mcp_buf *out);

/* mcp_json_write_string: append s (len bytes, trusted to be valid UTF-8) as a
 * JSON string literal, quoted and escaped. Errors as mcp_json_write. */
MCP_EXTERN int mcp_json_write_string(const char *s, size_t len, mcp_buf *out);

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

/*
 * mcp_utf8_validate: MCP_OK when the len bytes at s are valid UTF-8 (no
 * overlong forms, no encoded surrogates, nothing above U+10FFFF), else
 * MCP_ERR_UTF8 with the offset of the first bad byte in *bad_offset (which
 * may be NULL). Any thread.
 */
MCP_EXTERN int mcp_utf8_validate(const char *s, size_t len, size_t *bad_offset);

#ifdef __cplusplus
}
#endif
#endif /* MCP_JSON_H */
