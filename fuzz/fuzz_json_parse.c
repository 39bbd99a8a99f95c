/* SPDX-License-Identifier: MIT */
/* Crash fuzzer for the JSON parser, with the invariants a parse must keep:
 * accepted input writes back to JSON that parses to an equal value, and
 * writing is a fixed point. Both duplicate-key policies are exercised. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mcp_json_parse_options o = {.size = sizeof o};
    if (size && (data[0] & 1))
        o.duplicates = MCP_JSON_DUPLICATES_LAST_WINS;
    if (size && (data[0] & 2))
        o.max_depth = 8;
    mcp_json_doc *doc;
    mcp_json_error err;
    if (mcp_json_parse((const char *)data, size, &o, NULL, &doc, &err) != MCP_OK) {
        if (err.code == MCP_OK || err.offset > size)
            abort();
        return 0;
    }
    mcp_buf b1, b2;
    mcp_buf_init(&b1, 0, NULL);
    mcp_buf_init(&b2, 0, NULL);
    if (mcp_json_write(mcp_json_doc_root(doc), &b1) != MCP_OK)
        abort();
    if (memchr(b1.data, '\n', b1.len))
        abort(); /* the writer must never emit a raw newline */
    mcp_json_parse_options o2 = {.size = sizeof o2, .max_depth = o.max_depth};
    mcp_json_doc *back;
    if (mcp_json_parse(b1.data, b1.len, &o2, NULL, &back, NULL) != MCP_OK)
        abort();
    if (!mcp_json_equal(mcp_json_doc_root(doc), mcp_json_doc_root(back)))
        abort();
    if (mcp_json_write(mcp_json_doc_root(back), &b2) != MCP_OK ||
        b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0)
        abort();
    /* A deep copy is equal too. */
    mcp_json_doc *c = mcp_json_doc_new(NULL);
    if (!mcp_json_equal(mcp_json_copy(c, mcp_json_doc_root(doc)), mcp_json_doc_root(doc)))
        abort();
    mcp_json_doc_free(c);
    mcp_json_doc_free(back);
    mcp_json_doc_free(doc);
    mcp_buf_free(&b1);
    mcp_buf_free(&b2);
    return 0;
}
