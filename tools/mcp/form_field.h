/* SPDX-License-Identifier: MIT */
/*
 * One field of a form (a property of an elicitation's requestedSchema, the
 * restricted schemas of client/elicitation.mdx): whether mcp can ask for
 * it, the hint shown when asking, and what the user typed, as a value
 * checked against it. Apart from the terminal (ask_form.c), so that each
 * rule is tested alone (tests/unit/test_form_field.c). Any thread.
 */
#ifndef MCP_CLI_FORM_FIELD_H
#define MCP_CLI_FORM_FIELD_H

#include <stdbool.h>

#include "mcp/mcp.h"

/* Whether mcp can ask for the property p: a string (maybe an enum, a
 * titled enum or one with a format), a number, an integer, a boolean, or
 * an array of enum strings (a multi-select). */
bool form_field_askable(const mcp_json *p);

/*
 * Append to out the hint shown in brackets after p's label, made safe:
 * "y/n"; "one of: a, b" or "any of: ..." for choices, each with its title
 * ("#f00 (Red)", from oneOf/anyOf const and title, or the legacy
 * enumNames); what a format asks for ("email address, like
 * name@example.com"); else the type ("integer"). Not NUL-terminated.
 */
void form_field_hint(mcp_buf *out, const mcp_json *p);

/*
 * What the user typed (text: a NUL-terminated UTF-8 line, not empty) as a
 * value of p, made in d; checked against p's format (email, uri, date,
 * date-time, as RFC 3339 and RFC 3986 write them; any other format is an
 * annotation) and against checker, p compiled (NULL: no schema check).
 * NULL when it is not one, with why (reset first) saying what to type
 * instead, made safe (NUL-terminated when not empty): a choice outside
 * the list names the choices rather than the schema rule that failed.
 * NULL with why empty: out of memory.
 */
mcp_json *form_field_value(mcp_json_doc *d, const mcp_json *p, const mcp_schema *checker,
                           const char *text, mcp_buf *why);

/* Whether a value given otherwise (the server's default) fits p, checked
 * as form_field_value checks what is typed; else false, with why. */
bool form_field_fits(const mcp_json *p, const mcp_schema *checker, const mcp_json *v,
                     mcp_buf *why);

#endif
