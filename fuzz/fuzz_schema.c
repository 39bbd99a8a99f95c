/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for the JSON Schema compiler and validator (src/schema).
 * Input: byte 0 picks the mode and dialect; then two parts split at the
 * first NUL byte. Schemas from a peer (an elicitation's requestedSchema, a
 * tool's outputSchema) are hostile input too.
 *
 * Byte 0 below 0x80: the schema's JSON, NUL, the instance's JSON; the
 * dialect is byte 0 % 3.
 * - Compiling returns only its documented codes, and a refusal says why.
 * - Validating returns only its documented codes; a mismatch names its
 *   keyword; validating twice gives the same answer and the same error.
 * - The fast paths change nothing: the schema compiled plain (every
 *   pattern through PCRE2, properties by binary search, numbers by their
 *   decimal text) is refused alike, and gives the same answer and the same
 *   error; only where PCRE2 gave up on a pattern (MCP_ERR_LIMIT) may the
 *   fast one answer.
 *
 * Byte 0 from 0x80: a pattern, NUL, a subject (UTF-8, as JSON strings
 * are). When the pattern is one that src/schema/pattern.c runs without
 * PCRE2, it agrees with PCRE2 (compiled as compile.c does) on the subject.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "schema/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c))                                                                              \
            abort();                                                                           \
    } while (0)

static void pattern_against_pcre2(const char *pattern, size_t plen, const char *subject,
                                  size_t slen)
{
    if (mcp_utf8_validate(subject, slen, NULL) != MCP_OK)
        return;
    int code;
    PCRE2_SIZE at;
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (!cc)
        return;
    pcre2_set_compile_extra_options(cc, PCRE2_EXTRA_ALT_BSUX);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, plen,
                                   PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_DOLLAR_ENDONLY, &code, &at,
                                   cc);
    pcre2_compile_context_free(cc);
    if (!re)
        return; /* refused: compile.c never asks pattern.c */
    mcp__arena arena;
    mcp__arena_init(&arena, NULL, 4096);
    const mcp__pattern *fast = mcp__pattern_compile(&arena, pattern, plen);
    if (fast) {
        pcre2_match_data *md = pcre2_match_data_create(1, NULL);
        pcre2_match_context *mc = pcre2_match_context_create(NULL);
        if (md && mc) {
            pcre2_set_match_limit(mc, 10000000);
            int rc = pcre2_match(re, (PCRE2_SPTR)subject, slen, 0, 0, md, mc);
            if (rc >= 0 || rc == PCRE2_ERROR_NOMATCH)
                CHECK(mcp__pattern_match(fast, subject, slen) == (rc >= 0));
            /* on a copy of exactly its size: a read past the subject is
             * seen (ASan) */
            char *copy = malloc(slen ? slen : 1);
            if (copy) {
                memcpy(copy, subject, slen);
                CHECK(mcp__pattern_match(fast, copy, slen) == mcp__pattern_match(fast, subject, slen));
                free(copy);
            }
        }
        pcre2_match_data_free(md);
        pcre2_match_context_free(mc);
    }
    mcp__arena_release(&arena);
    pcre2_code_free(re);
}

/* Whether an error says a pattern could not be run within its effort. */
static bool pattern_gave_up(int rc, const mcp_schema_error *e)
{
    return rc == MCP_ERR_LIMIT &&
           (!strcmp(e->keyword, "pattern") || !strcmp(e->keyword, "patternProperties"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    const char *nul = memchr(text, '\0', len);
    size_t schema_len = nul ? (size_t)(nul - text) : len;
    if (data[0] & 0x80) {
        if (nul)
            pattern_against_pcre2(text, schema_len, nul + 1, len - schema_len - 1);
        return 0;
    }
    mcp_schema_dialect dialect = (mcp_schema_dialect)(data[0] % 3);
    mcp_json_doc *sd = NULL, *id = NULL;
    if (mcp_json_parse(text, schema_len, NULL, NULL, &sd, NULL) != MCP_OK)
        return 0;
    mcp_schema_options o = {.size = sizeof o, .dialect = dialect, .max_depth = 64};
    mcp_schema *s = NULL, *plain = NULL;
    char why[256], plain_why[256];
    int rc = mcp_schema_compile(mcp_json_doc_root(sd), &o, &s, why, sizeof why);
    int plain_rc =
        mcp__schema_compile(mcp_json_doc_root(sd), &o, true, &plain, plain_why, sizeof plain_why);
    mcp_json_doc_free(sd); /* the schema keeps its own copy */
    CHECK(rc == MCP_OK || rc == MCP_ERR_SCHEMA || rc == MCP_ERR_SCHEMA_REMOTE ||
          rc == MCP_ERR_LIMIT || rc == MCP_ERR_NOMEM);
    CHECK((rc == MCP_OK) == (s != NULL));
    if (rc == MCP_ERR_SCHEMA || rc == MCP_ERR_SCHEMA_REMOTE || rc == MCP_ERR_LIMIT)
        CHECK(why[0] != '\0');
    if (rc != MCP_ERR_NOMEM && plain_rc != MCP_ERR_NOMEM)
        CHECK(rc == plain_rc && strcmp(why, plain_why) == 0);
    if (s && nul &&
        mcp_json_parse(nul + 1, len - schema_len - 1, NULL, NULL, &id, NULL) == MCP_OK) {
        mcp_schema_error a, b, c;
        int r1 = mcp_schema_validate(s, mcp_json_doc_root(id), &a);
        int r2 = mcp_schema_validate(s, mcp_json_doc_root(id), &b);
        CHECK(r1 == MCP_OK || r1 == MCP_ERR_SCHEMA_MISMATCH || r1 == MCP_ERR_LIMIT ||
              r1 == MCP_ERR_NOMEM);
        CHECK(r1 == r2 && memcmp(&a, &b, sizeof a) == 0);
        if (r1 == MCP_ERR_SCHEMA_MISMATCH)
            CHECK(a.keyword[0] != '\0' && a.message[0] != '\0');
        if (plain) {
            int r3 = mcp_schema_validate(plain, mcp_json_doc_root(id), &c);
            if (r1 != MCP_ERR_NOMEM && r3 != MCP_ERR_NOMEM && !pattern_gave_up(r3, &c))
                CHECK(r1 == r3 && memcmp(&a, &c, sizeof a) == 0);
        }
        mcp_json_doc_free(id);
    }
    mcp_schema_free(s);
    mcp_schema_free(plain);
    return 0;
}
