/* SPDX-License-Identifier: MIT */
/*
 * JSON-RPC 2.0 with MCP's rules: "jsonrpc" is "2.0"; request ids are strings
 * or integers, never null; method is a string; params, when present, an
 * object; a response has exactly one of result and error; an error has an
 * integer code and a string message.
 *
 * Which wire error answers a bad message: -32700 (null id) when it is not
 * JSON; -32600 (with the id when it could be read) for a bad request; nothing
 * at all for anything that looks like a notification or a response.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "json/value.h"
#include "mcp/jsonrpc.h"

__attribute__((format(printf, 4, 5)))
static void set_error(mcp_decode_error *err, int code, int wire,
                      const char *fmt, ...)
{
    if (!err)
        return;
    err->code = code;
    err->wire_code = wire;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

static const char *type_name(const mcp_json *v)
{
    switch (mcp_json_typeof(v)) {
    case MCP_JSON_NULL: return "null";
    case MCP_JSON_BOOL: return "a boolean";
    case MCP_JSON_NUMBER: return "a number";
    case MCP_JSON_STRING: return "a string";
    case MCP_JSON_ARRAY: return "an array";
    case MCP_JSON_OBJECT: return "an object";
    default: return "absent";
    }
}

static bool version_ok(const mcp_json *root)
{
    size_t n;
    const char *v = mcp_json_string(mcp_json_object_get(root, "jsonrpc"), &n);
    return v && n == 3 && memcmp(v, "2.0", 3) == 0;
}

/* Classify and validate the decoded JSON value `root` of doc. */
static int classify(const mcp_json *root, mcp_message *m,
                    mcp_decode_error *err)
{
    m->root = root;
    if (root->type == MCP_JSON_ARRAY) {
        m->kind = MCP_MESSAGE_BATCH;
        m->batch = root;
        set_error(err, MCP_ERR_RPC_BATCH, MCP_WIRE_INVALID_REQUEST,
                  root->len ? "JSON-RPC batches are not supported by this protocol revision"
                            : "empty JSON-RPC batch");
        return MCP_ERR_RPC_BATCH;
    }
    m->kind = MCP_MESSAGE_INVALID;
    if (root->type != MCP_JSON_OBJECT) {
        set_error(err, MCP_ERR_RPC_INVALID, MCP_WIRE_INVALID_REQUEST,
                  "a message must be a JSON object, not %s", type_name(root));
        return MCP_ERR_RPC_INVALID;
    }
    const mcp_json *method = mcp_json_object_get(root, "method");
    const mcp_json *idv = mcp_json_object_get(root, "id");
    const mcp_json *result = mcp_json_object_get(root, "result");
    const mcp_json *error = mcp_json_object_get(root, "error");
    bool id_ok = idv && mcp_id_from_json(idv, &m->id) == MCP_OK;
    if (!id_ok)
        m->id.kind = MCP_ID_NONE;

    if (method) {
        /* A request (answer problems, with the id when readable) or a
         * notification (never answer). */
        int wire = idv ? MCP_WIRE_INVALID_REQUEST : 0;
        if (result || error) {
            set_error(err, MCP_ERR_RPC_INVALID, wire,
                      "a message cannot have both \"method\" and \"%s\"",
                      result ? "result" : "error");
            return MCP_ERR_RPC_INVALID;
        }
        if (!version_ok(root)) {
            set_error(err, MCP_ERR_RPC_INVALID, wire,
                      "\"jsonrpc\" must be the string \"2.0\"");
            return MCP_ERR_RPC_INVALID;
        }
        if (method->type != MCP_JSON_STRING) {
            set_error(err, MCP_ERR_RPC_INVALID, wire,
                      "\"method\" must be a string, not %s", type_name(method));
            return MCP_ERR_RPC_INVALID;
        }
        if (idv && !id_ok) {
            if (idv->type == MCP_JSON_NULL)
                set_error(err, MCP_ERR_RPC_INVALID, wire,
                          "request \"id\" must not be null");
            else if (idv->type == MCP_JSON_NUMBER)
                set_error(err, MCP_ERR_RPC_INVALID, wire,
                          "request \"id\" must be an integer in the int64 range or a string");
            else
                set_error(err, MCP_ERR_RPC_INVALID, wire,
                          "request \"id\" must be a string or an integer, not %s",
                          type_name(idv));
            return MCP_ERR_RPC_INVALID;
        }
        const mcp_json *params = mcp_json_object_get(root, "params");
        if (params && params->type != MCP_JSON_OBJECT) {
            set_error(err, MCP_ERR_RPC_INVALID, wire,
                      "\"params\" must be an object, not %s", type_name(params));
            return MCP_ERR_RPC_INVALID;
        }
        m->kind = idv ? MCP_MESSAGE_REQUEST : MCP_MESSAGE_NOTIFICATION;
        m->method = method->u.s;
        m->method_len = method->len;
        m->params = params;
        return MCP_OK;
    }

    if (result || error) {
        /* A response: never answered, however broken. */
        if (result && error) {
            set_error(err, MCP_ERR_RPC_INVALID, 0,
                      "a response cannot have both \"result\" and \"error\"");
            return MCP_ERR_RPC_INVALID;
        }
        if (!version_ok(root)) {
            set_error(err, MCP_ERR_RPC_INVALID, 0,
                      "\"jsonrpc\" must be the string \"2.0\"");
            return MCP_ERR_RPC_INVALID;
        }
        if (result) {
            if (!id_ok) {
                set_error(err, MCP_ERR_RPC_INVALID, 0,
                          "a result must carry a string or integer \"id\"");
                return MCP_ERR_RPC_INVALID;
            }
            m->kind = MCP_MESSAGE_RESULT;
            m->result = result;
            return MCP_OK;
        }
        if (idv && !id_ok && idv->type != MCP_JSON_NULL) {
            set_error(err, MCP_ERR_RPC_INVALID, 0,
                      "an error response \"id\" must be a string, an integer or null");
            return MCP_ERR_RPC_INVALID;
        }
        const mcp_json *code = mcp_json_object_get(error, "code");
        const mcp_json *msg = mcp_json_object_get(error, "message");
        int64_t c;
        if (error->type != MCP_JSON_OBJECT || !mcp_json_is_integer_literal(code) ||
            mcp_json_get_int64(code, &c) != MCP_OK || !msg ||
            msg->type != MCP_JSON_STRING) {
            set_error(err, MCP_ERR_RPC_INVALID, 0,
                      "\"error\" must be an object with an integer \"code\" and a string \"message\"");
            return MCP_ERR_RPC_INVALID;
        }
        m->kind = MCP_MESSAGE_ERROR;
        m->error_code = c;
        m->error_message = msg->u.s;
        m->error_message_len = msg->len;
        m->error_data = mcp_json_object_get(error, "data");
        return MCP_OK;
    }

    set_error(err, MCP_ERR_RPC_INVALID, MCP_WIRE_INVALID_REQUEST,
              "a message needs \"method\" (request or notification) or \"result\"/\"error\" (response)");
    return MCP_ERR_RPC_INVALID;
}

/* The public message plus its reference count, which stays private. */
typedef struct message_box {
    mcp_message msg; /* first: a message pointer is a box pointer */
    atomic_uint refs;
} message_box;

/* Wrap the decoded document in a message living in the same arena. */
static int wrap(mcp_json_doc *doc, const mcp_json *root, mcp_message **out,
                mcp_decode_error *err)
{
    message_box *box = mcp__arena_alloc(&doc->arena, sizeof *box);
    if (!box) {
        mcp_json_doc_free(doc);
        set_error(err, MCP_ERR_NOMEM, 0, "out of memory");
        return MCP_ERR_NOMEM;
    }
    memset(&box->msg, 0, sizeof box->msg);
    atomic_init(&box->refs, 1);
    mcp_message *m = &box->msg;
    m->doc = doc;
    *out = m;
    return classify(root, m, err);
}

int mcp_message_decode(const char *data, size_t len,
                       const mcp_json_parse_options *opts, const mcp_mem *mem,
                       mcp_message **out, mcp_decode_error *err)
{
    *out = NULL;
    if (err) {
        err->code = MCP_OK;
        err->wire_code = 0;
        err->offset = 0;
        err->message[0] = '\0';
    }
    mcp_json_doc *doc;
    mcp_json_error jerr;
    int rc = mcp_json_parse(data, len, opts, mem, &doc, &jerr);
    if (rc == MCP_ERR_NOMEM) {
        set_error(err, MCP_ERR_NOMEM, 0, "out of memory");
        return MCP_ERR_NOMEM;
    }
    if (rc == MCP_ERR_INVALID_ARG) { /* the caller's mistake, not the peer's */
        set_error(err, MCP_ERR_INVALID_ARG, 0, "%s", jerr.message);
        return MCP_ERR_INVALID_ARG;
    }
    if (rc != MCP_OK) {
        set_error(err, MCP_ERR_RPC_PARSE, MCP_WIRE_PARSE_ERROR, "%s",
                  jerr.message);
        if (err)
            err->offset = jerr.offset;
        return MCP_ERR_RPC_PARSE;
    }
    return wrap(doc, mcp_json_doc_root(doc), out, err);
}

int mcp_message_decode_batch_item(const mcp_message *batch, size_t i,
                                  const mcp_mem *mem, mcp_message **out,
                                  mcp_decode_error *err)
{
    *out = NULL;
    if (!batch || batch->kind != MCP_MESSAGE_BATCH)
        return MCP_ERR_INVALID_ARG;
    const mcp_json *item = mcp_json_array_at(batch->batch, i);
    if (!item)
        return MCP_ERR_NOT_FOUND;
    mcp_json_doc *doc = mcp_json_doc_new(mem);
    mcp_json *copy = doc ? mcp_json_copy(doc, item) : NULL;
    if (!copy) {
        mcp_json_doc_free(doc);
        set_error(err, MCP_ERR_NOMEM, 0, "out of memory");
        return MCP_ERR_NOMEM;
    }
    mcp_json_doc_set_root(doc, copy);
    int rc = wrap(doc, copy, out, err);
    if (rc == MCP_ERR_RPC_BATCH) {
        (*out)->kind = MCP_MESSAGE_INVALID;
        (*out)->batch = NULL;
        set_error(err, MCP_ERR_RPC_INVALID, MCP_WIRE_INVALID_REQUEST,
                  "a batch element must be a JSON object, not an array");
        rc = MCP_ERR_RPC_INVALID;
    }
    return rc;
}

bool mcp_message_method_is(const mcp_message *msg, const char *method)
{
    size_t n = strlen(method);
    return msg->method && msg->method_len == n && memcmp(msg->method, method, n) == 0;
}

mcp_message *mcp_message_retain(mcp_message *msg)
{
    if (msg)
        atomic_fetch_add_explicit(&((message_box *)msg)->refs, 1,
                                  memory_order_relaxed);
    return msg;
}

void mcp_message_free(mcp_message *msg)
{
    if (!msg)
        return;
    message_box *box = (message_box *)msg;
    /* acq_rel: every reader's accesses happen before the free. */
    if (atomic_fetch_sub_explicit(&box->refs, 1, memory_order_acq_rel) == 1)
        mcp_json_doc_free(msg->doc);
}
