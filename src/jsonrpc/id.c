/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "core/hash.h"
#include "core/mem.h"
#include "json/value.h"
#include "jsonrpc/internal.h"
#include "mcp/jsonrpc.h"

bool mcp_id_equal(const mcp_id *a, const mcp_id *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case MCP_ID_INT: return a->num == b->num;
    case MCP_ID_STRING:
        return a->len == b->len && (a->len == 0 || memcmp(a->str, b->str, a->len) == 0);
    default: return true;
    }
}

uint64_t mcp_id_hash(const mcp_id *id)
{
    switch (id->kind) {
    case MCP_ID_INT: return mcp__hash_u64((uint64_t)id->num);
    /* Different from any integer's hash in practice; equality decides. */
    case MCP_ID_STRING: return mcp__hash_bytes(id->str, id->len) ^ 0x5bd1e995u;
    default: return 0;
    }
}

int mcp_id_copy(mcp_id *dst, const mcp_id *src, const mcp_mem *mem)
{
    *dst = *src;
    if (src->kind != MCP_ID_STRING)
        return MCP_OK;
    mcp_mem m;
    mcp__mem_init(&m, mem);
    char *s = mcp__strndup(&m, src->str ? src->str : "", src->len);
    if (!s) {
        dst->kind = MCP_ID_NONE;
        dst->str = NULL;
        dst->len = 0;
        return MCP_ERR_NOMEM;
    }
    dst->str = s;
    return MCP_OK;
}

void mcp_id_release(mcp_id *id, const mcp_mem *mem)
{
    if (!id)
        return;
    if (id->kind == MCP_ID_STRING) {
        mcp_mem m;
        mcp__mem_init(&m, mem);
        mcp__free(&m, (void *)id->str);
    }
    id->kind = MCP_ID_NONE;
    id->str = NULL;
    id->len = 0;
    id->num = 0;
}

int mcp_id_write(const mcp_id *id, mcp_buf *out)
{
    mcp__jw w;
    mcp__jw_begin(&w, out);
    mcp__jw_id(&w, id);
    return mcp__jw_finish(&w);
}

int mcp_id_from_json(const mcp_json *v, mcp_id *out)
{
    if (!v)
        return MCP_ERR_RPC_INVALID;
    if (v->type == MCP_JSON_STRING) {
        *out = mcp_id_from_string(v->u.s, v->len);
        return MCP_OK;
    }
    /* Integers only as integer literals: 1.0 and 1e0 are numbers with a
     * fraction or exponent part, not the integers the spec asks for. */
    if (v->type == MCP_JSON_NUMBER && (v->flags & NUM_INT_LITERAL) &&
        (v->flags & NUM_HAS_I64)) {
        *out = mcp_id_from_int(v->x.i);
        return MCP_OK;
    }
    return MCP_ERR_RPC_INVALID;
}
