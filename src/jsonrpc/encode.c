/* SPDX-License-Identifier: MIT */
/*
 * Envelopes are written directly by the writer, around values written by
 * the JSON writer, so encoding a message never builds a DOM for it.
 */
#include <string.h>

#include "jsonrpc/internal.h"

static bool valid_params(const mcp_json *params)
{
    return !params || mcp_json_typeof(params) == MCP_JSON_OBJECT;
}

static void method_and_params(mcp__jw *w, const char *method, const mcp_json *params)
{
    mcp__jw_key(w, "method");
    mcp__jw_string(w, method);
    if (params) {
        mcp__jw_key(w, "params");
        mcp__jw_value(w, params);
    }
}

int mcp_encode_request(mcp_buf *out, const mcp_id *id, const char *method,
                       const mcp_json *params)
{
    if (!out || !id || id->kind == MCP_ID_NONE || !method || !valid_params(params))
        return MCP_ERR_INVALID_ARG;
    mcp__jw w;
    mcp__jw_begin(&w, out);
    mcp__jw_envelope(&w);
    mcp__jw_key(&w, "id");
    mcp__jw_id(&w, id);
    method_and_params(&w, method, params);
    return mcp__jw_envelope_end(&w);
}

int mcp_encode_notification(mcp_buf *out, const char *method,
                            const mcp_json *params)
{
    if (!out || !method || !valid_params(params))
        return MCP_ERR_INVALID_ARG;
    mcp__jw w;
    mcp__jw_begin(&w, out);
    mcp__jw_envelope(&w);
    method_and_params(&w, method, params);
    return mcp__jw_envelope_end(&w);
}

int mcp_encode_result(mcp_buf *out, const mcp_id *id, const mcp_json *result)
{
    if (!out || !id || id->kind == MCP_ID_NONE)
        return MCP_ERR_INVALID_ARG;
    mcp__jw w;
    mcp__jw_response_start(&w, out, id, "result");
    if (result) {
        mcp__jw_value(&w, result);
    } else {
        mcp__jw_object(&w);
        mcp__jw_object_end(&w);
    }
    return mcp__jw_envelope_end(&w);
}

int mcp_encode_error(mcp_buf *out, const mcp_id *id, int64_t code,
                     const char *message, const mcp_json *data)
{
    if (!out || !message)
        return MCP_ERR_INVALID_ARG;
    mcp__jw w;
    mcp__jw_response_start(&w, out, id, "error");
    mcp__jw_object(&w);
    mcp__jw_key(&w, "code");
    mcp__jw_int(&w, code);
    mcp__jw_key(&w, "message");
    mcp__jw_string(&w, message);
    if (data) {
        mcp__jw_key(&w, "data");
        mcp__jw_value(&w, data);
    }
    mcp__jw_object_end(&w);
    return mcp__jw_envelope_end(&w);
}
