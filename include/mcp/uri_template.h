/* SPDX-License-Identifier: MIT */
/*
 * URI templates (RFC 6570), for MCP resource templates: a server publishes
 * `uriTemplate` in resources/templates/list, finds the template a
 * resources/read URI belongs to and hands its handler the values of the
 * variables; completion/complete asks about the variables by name.
 *
 * A template is parsed once and is then immutable: any number of threads
 * may match and expand with it at once. Every level of RFC 6570 is
 * understood: the operators none, +, #, ., /, ;, ? and &, the prefix
 * modifier :n and the explode modifier *.
 *
 * Expansion follows RFC 6570 section 3 exactly. Matching is its inverse
 * where one exists; where expansion loses information the rules below say
 * what matching chooses.
 *
 * Matching, what a URI must look like:
 * - The URI is compared as bytes after two normalisations that RFC 3986
 *   (6.2.2) and RFC 3987 call equivalent, applied to the URI and to the
 *   template's literal text alike: the hex digits of a percent-encoded
 *   octet compare case-insensitively, and an octet that is an unreserved
 *   character (A-Z a-z 0-9 - . _ ~) or not ASCII reads the same encoded or
 *   not ("%7Euser" is "~user", "caf%C3%A9" is "café").
 * - Literal text of the template must appear exactly, in place.
 * - A value may hold unreserved characters, percent-encoded octets and
 *   non-ASCII characters; with + and # also the reserved characters
 *   (: / ? # [ ] @ ! $ & ' ( ) * + , ; =). So {var} never spans a '/', a
 *   '?' or a '#', and {+path} or {#frag} may. A '%' not followed by two hex
 *   digits is never part of a value or of a literal: such a URI does not
 *   match.
 * - Every variable of an expression must be present, except in the query
 *   part below. With no operator and with +, a value is not empty (an
 *   empty value expands to nothing, as an undefined one does); after a
 *   # . / ; ? or & prefix it may be empty. A value matched for {var:n} has
 *   at most n characters: it is all the URI says of the value.
 * - {var*} (explode) matches a list: the items split at the operator's
 *   separator (',' for none, + and #; '.' for .; '/' for /; name=value
 *   pairs split at ';' or '&' for ; ? and &), and an item may be empty.
 *   {/segments*} therefore matches one or more path segments. With + and #
 *   a ',' inside an item cannot be told from the separator: it splits.
 *   A variable without * matches one string: a list given to it at
 *   expansion (items joined by ',') is not matched back, nor is an
 *   associative array (object) ever produced by matching.
 * - The query part: the ? and & expressions at the very end of the
 *   template (nothing after them) match the URI's query parameters in any
 *   order, each optional: `{?q,lang}` matches "", "?q=a", "?lang=en&q=a".
 *   The query part starts with '?' or '&'. A parameter the template does
 *   not name is refused (no match), as is the same parameter twice (a
 *   server and a proxy could read different ones), except for an exploded
 *   variable, whose repetitions are its list ("?tag=a&tag=b"). "name" and
 *   "name=" are both the empty value. A ? or & expression that is not at
 *   the end of the template is matched like the others: in place, in
 *   order, every variable present.
 * - When a URI can be split between the variables in more than one way,
 *   the split chosen is the one where the earlier variables are longest
 *   (as a regular expression's greedy groups): `{a}-{b}` gives a="x-y",
 *   b="z" for "x-y-z". The query part starts at the first '?' or '&' from
 *   which the rest of the URI reads as query parameters.
 * - A variable named twice (`{x}/{x}`) must have the same value at both
 *   places (a prefix at one, {x:3}, must be the start of the other). The
 *   split is chosen first, then the values compared: a URI that only
 *   another split would make consistent does not match.
 * - Values are percent-decoded. They must decode to valid UTF-8 with no
 *   U+0000 (MCP_ERR_UTF8 otherwise: a NUL would cut the value short for
 *   any C code that handles it). Decoding is complete: "%2F" in {name}
 *   gives '/', and "%2E%2E" gives "..": a handler that maps values to files
 *   must check them as it would any peer's input.
 *
 * Bounds. Matching reads the URI a bounded number of times: its time is
 * O((2 * V + 2) * n) for V variable references and a URI of n bytes,
 * plus O(n * T) for T query variables, whatever the template and the
 * URI (no backtracking); it allocates about (2 * V + 6) * n / 8 bytes
 * plus 2 * n (about 1 MiB at the default caps and a 64 KiB URI).
 */
#ifndef MCP_URI_TEMPLATE_H
#define MCP_URI_TEMPLATE_H

#include "mcp/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mcp_uri_template mcp_uri_template;

#define MCP_URI_TEMPLATE_DEFAULT_MAX_LENGTH 8192u
#define MCP_URI_TEMPLATE_DEFAULT_MAX_VARIABLES 64u
#define MCP_URI_TEMPLATE_DEFAULT_MAX_URI ((size_t)64 << 10)

typedef struct mcp_uri_template_options {
    size_t size;             /* sizeof(mcp_uri_template_options) */
    size_t max_length;       /* bytes of the template; 0: 8 KiB; at most
                                64 KiB */
    unsigned max_variables;  /* variable references in the template (a
                                name used twice counts twice); 0: 64; at
                                most 256 */
    size_t max_uri_length;   /* bytes of a URI given to match; 0: 64 KiB;
                                at most 1 MiB */
} mcp_uri_template_options;

/*
 * mcp_uri_template_parse: parse the len bytes at tmpl (not NUL-terminated;
 * copied: the caller may free them at once) into *out, which the caller
 * owns and frees with mcp_uri_template_free. mem (may be NULL: the C
 * library's) serves the template and, later, every match: scratch memory
 * and the document it returns; it must then be callable from every thread
 * that matches. opts may be NULL (every default).
 * Returns MCP_OK; MCP_ERR_INVALID_ARG for a template that is not RFC 6570
 * (why says what and at which byte: an unclosed '{', a '}' outside an
 * expression, a character not allowed in a literal such as a space or
 * '<', a '%' not followed by two hex digits, an empty expression, a bad
 * variable name, an operator that is unknown or reserved (= , ! @ |), a
 * prefix that is not 1 to 9999, a prefix together with '*'), and also for
 * out NULL, tmpl NULL with len > 0, options of an unknown size or over
 * their ceilings; MCP_ERR_UTF8 (the template is not valid UTF-8, byte
 * given in why); MCP_ERR_LIMIT (longer than max_length, more than
 * max_variables variable references; why says which); MCP_ERR_NOMEM.
 * why (may be NULL) is NUL-terminated, cut to why_len, empty on success.
 * On failure *out is NULL and nothing is kept. Any thread.
 */
MCP_EXTERN int mcp_uri_template_parse(const char *tmpl, size_t len,
                                      const mcp_uri_template_options *opts,
                                      const mcp_mem *mem, mcp_uri_template **out,
                                      char *why, size_t why_len);

/* Free t (NULL is fine). No match or expansion with t may be running. */
MCP_EXTERN void mcp_uri_template_free(mcp_uri_template *t);

/*
 * mcp_uri_template_text: the template as given to parse, with its length
 * in *len (len may be NULL). Borrowed from t, valid until it is freed;
 * NUL-terminated. Any thread.
 */
MCP_EXTERN const char *mcp_uri_template_text(const mcp_uri_template *t, size_t *len);

/*
 * The template's variables: each distinct name once, in the order of its
 * first appearance (`{x}{/y,x}`: x, y). mcp_uri_template_variable_name
 * gives name i (NUL-terminated, exactly as written in the template; its
 * length in *len, which may be NULL), borrowed from t and valid until it
 * is freed; NULL when i is out of range. Any thread.
 */
MCP_EXTERN size_t mcp_uri_template_variable_count(const mcp_uri_template *t);
MCP_EXTERN const char *mcp_uri_template_variable_name(const mcp_uri_template *t, size_t i,
                                                      size_t *len);

/*
 * mcp_uri_template_match: whether the len bytes at uri (not NUL-terminated)
 * are an expansion of t, by the rules at the top of this header, and the
 * values of its variables. On MCP_OK *out is a new document, owned by the
 * caller (free with mcp_json_doc_free), allocated with t's allocator, whose
 * root is an object: one member per variable the URI gives a value, in the
 * order of mcp_uri_template_variable_name; its value a string, or an array
 * of strings for an exploded variable. An optional query variable that is
 * absent is not a member. Feeding the root to mcp_uri_template_expand
 * gives a URI that t matches again, except in two cases: a variable named
 * twice, and a value of a + or # variable that decodes to '%' and two hex
 * digits, which expansion passes through as a triplet (RFC 6570 3.2.3) so
 * that it decodes once more ("%2541" gives "%41", then "A").
 * Returns MCP_OK; MCP_ERR_NOT_FOUND (the URI does not match: the usual
 * answer when trying the templates of a server in turn); MCP_ERR_UTF8 (the
 * URI is not valid UTF-8, or it matches but a value decodes to invalid
 * UTF-8 or holds U+0000); MCP_ERR_LIMIT (len over max_uri_length);
 * MCP_ERR_NOMEM; MCP_ERR_INVALID_ARG (t or out NULL, uri NULL with
 * len > 0). On failure *out is NULL. Any thread, concurrently on one t.
 */
MCP_EXTERN int mcp_uri_template_match(const mcp_uri_template *t, const char *uri, size_t len,
                                      mcp_json_doc **out);

/*
 * mcp_uri_template_expand: append the expansion of t (RFC 6570 section 3)
 * to out, with the variables of vars: an object (or NULL: every variable
 * undefined) whose members are looked up by the names as written in the
 * template. A value is a string, a number (its JSON text) or a boolean
 * ("true", "false"); an array of those is a list, an object of those an
 * associative array (in document order). null, an empty array and an
 * empty object are undefined, as a missing member is.
 * Returns MCP_OK; MCP_ERR_JSON_TYPE (vars is not an object; a value of
 * another type, e.g. an array inside an array or a null item; a prefix
 * modifier on a list or object, which RFC 6570 says does not apply);
 * MCP_ERR_LIMIT (out's cap) or MCP_ERR_NOMEM; MCP_ERR_INVALID_ARG (t or out
 * NULL). On error out is restored to its length before the call. vars is
 * only read; any thread, concurrently on one t.
 */
MCP_EXTERN int mcp_uri_template_expand(const mcp_uri_template *t, const mcp_json *vars,
                                       mcp_buf *out);

#ifdef __cplusplus
}
#endif

#endif
