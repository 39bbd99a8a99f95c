/*
 * Envelopes are written directly, around values written by the JSON writer,
 * so encoding a message never builds a DOM for it.
 */
#include <stdio.h>
#include <string.h>

#include "mcp/jsonrpc.h"

#define TRY(expr)                                                              \
    do {                                                                       \
        if ((rc = (expr)) != MCP_OK)                                           \
            goto fail;                                                         \
    } while (0)

static int lit(mcp_buf *out, const char *s)
{
    return mcp_buf_append(out, s, strlen(s));
}

/* Caller-supplied text: checked, so a bad byte cannot produce invalid JSON. */
static int text(mcp_buf *out, const char *s)
{
    size_t n = strlen(s);
    if (mcp_utf8_validate(s, n, NULL) != MCP_OK)
        return MCP_ERR_UTF8;
    return mcp_json_write_string(s, n, out);
}

static int finish(mcp_buf *out, size_t start, int rc)
{
    if (rc != MCP_OK) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
    }
    return rc;
}

static int method_and_params(mcp_buf *out, const char *method,
                             const mcp_json *params)
{
    int rc;
    TRY(lit(out, "\"method\":"));
    TRY(text(out, method));
    if (params) {
        TRY(lit(out, ",\"params\":"));
        TRY(mcp_json_write(params, out));
    }
fail:
    return rc;
}

static bool valid_params(const mcp_json *params)
{
    return !params || mcp_json_typeof(params) == MCP_JSON_OBJECT;
}

int mcp_encode_request(mcp_buf *out, const mcp_id *id, const char *method,
                       const mcp_json *params)
{
    if (!out || !id || id->kind == MCP_ID_NONE || !method || !valid_params(params))
        return MCP_ERR_INVALID_ARG;
    size_t start = out->len;
    int rc;
    TRY(lit(out, "{\"jsonrpc\":\"2.0\",\"id\":"));
    TRY(mcp_id_write(id, out));
    TRY(mcp_buf_append(out, ",", 1));
    TRY(method_and_params(out, method, params));
    TRY(mcp_buf_append(out, "}\n", 2));
fail:
    return finish(out, start, rc);
}

int mcp_encode_notification(mcp_buf *out, const char *method,
                            const mcp_json *params)
{
    if (!out || !method || !valid_params(params))
        return MCP_ERR_INVALID_ARG;
    size_t start = out->len;
    int rc;
    TRY(lit(out, "{\"jsonrpc\":\"2.0\","));
    TRY(method_and_params(out, method, params));
    TRY(mcp_buf_append(out, "}\n", 2));
fail:
    return finish(out, start, rc);
}

int mcp_encode_result(mcp_buf *out, const mcp_id *id, const mcp_json *result)
{
    if (!out || !id || id->kind == MCP_ID_NONE)
        return MCP_ERR_INVALID_ARG;
    size_t start = out->len;
    int rc;
    TRY(lit(out, "{\"jsonrpc\":\"2.0\",\"id\":"));
    TRY(mcp_id_write(id, out));
    TRY(lit(out, ",\"result\":"));
    TRY(result ? mcp_json_write(result, out) : lit(out, "{}"));
    TRY(mcp_buf_append(out, "}\n", 2));
fail:
    return finish(out, start, rc);
}

int mcp_encode_error(mcp_buf *out, const mcp_id *id, int64_t code,
                     const char *message, const mcp_json *data)
{
    if (!out || !message)
        return MCP_ERR_INVALID_ARG;
    size_t start = out->len;
    int rc;
    char num[24];
    int n = snprintf(num, sizeof num, "%lld", (long long)code);
    TRY(lit(out, "{\"jsonrpc\":\"2.0\",\"id\":"));
    TRY(mcp_id_write(id, out));
    TRY(lit(out, ",\"error\":{\"code\":"));
    TRY(mcp_buf_append(out, num, (size_t)n));
    TRY(lit(out, ",\"message\":"));
    TRY(text(out, message));
    if (data) {
        TRY(lit(out, ",\"data\":"));
        TRY(mcp_json_write(data, out));
    }
    TRY(mcp_buf_append(out, "}}\n", 3));
fail:
    return finish(out, start, rc);
}
