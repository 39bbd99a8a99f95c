/* SPDX-License-Identifier: MIT */
/*
 * Fuzzer for the JSON Schema compiler and validator (src/schema).
 * Input: byte 0 picks the dialect; then the schema's JSON, a NUL byte, and
 * the instance's JSON. Schemas from a peer (an elicitation's
 * requestedSchema, a tool's outputSchema) are hostile input too.
 * - Compiling returns only its documented codes, and a refusal says why.
 * - Validating returns only its documented codes; a mismatch names its
 *   keyword; validating twice gives the same answer and the same error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c))                                                                              \
            abort();                                                                           \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    mcp_schema_dialect dialect = (mcp_schema_dialect)(data[0] % 3);
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    const char *nul = memchr(text, '\0', len);
    size_t schema_len = nul ? (size_t)(nul - text) : len;
    mcp_json_doc *sd = NULL, *id = NULL;
    if (mcp_json_parse(text, schema_len, NULL, NULL, &sd, NULL) != MCP_OK)
        return 0;
    mcp_schema_options o = {.size = sizeof o, .dialect = dialect, .max_depth = 64};
    mcp_schema *s = NULL;
    char why[256];
    int rc = mcp_schema_compile(mcp_json_doc_root(sd), &o, &s, why, sizeof why);
    mcp_json_doc_free(sd); /* the schema keeps its own copy */
    CHECK(rc == MCP_OK || rc == MCP_ERR_SCHEMA || rc == MCP_ERR_SCHEMA_REMOTE ||
          rc == MCP_ERR_LIMIT || rc == MCP_ERR_NOMEM);
    CHECK((rc == MCP_OK) == (s != NULL));
    if (rc == MCP_ERR_SCHEMA || rc == MCP_ERR_SCHEMA_REMOTE || rc == MCP_ERR_LIMIT)
        CHECK(why[0] != '\0');
    if (s && nul &&
        mcp_json_parse(nul + 1, len - schema_len - 1, NULL, NULL, &id, NULL) == MCP_OK) {
        mcp_schema_error a, b;
        int r1 = mcp_schema_validate(s, mcp_json_doc_root(id), &a);
        int r2 = mcp_schema_validate(s, mcp_json_doc_root(id), &b);
        CHECK(r1 == MCP_OK || r1 == MCP_ERR_SCHEMA_MISMATCH || r1 == MCP_ERR_LIMIT ||
              r1 == MCP_ERR_NOMEM);
        CHECK(r1 == r2 && memcmp(&a, &b, sizeof a) == 0);
        if (r1 == MCP_ERR_SCHEMA_MISMATCH)
            CHECK(a.keyword[0] != '\0' && a.message[0] != '\0');
        mcp_json_doc_free(id);
    }
    mcp_schema_free(s);
    return 0;
}
