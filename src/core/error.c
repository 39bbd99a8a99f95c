/* SPDX-License-Identifier: MIT */
#include "mcp/common.h"

const char *mcp_strerror(int code)
{
    switch (code) {
    case MCP_OK: return "success";
    case MCP_ERR_NOMEM: return "out of memory";
    case MCP_ERR_INVALID_ARG: return "invalid argument";
    case MCP_ERR_LIMIT: return "a configured limit was exceeded";
    case MCP_ERR_STATE: return "operation not valid in the current state";
    case MCP_ERR_NOT_FOUND: return "not found";
    case MCP_ERR_IO: return "input/output error";
    case MCP_ERR_UTF8: return "string is not valid UTF-8";
    case MCP_ERR_JSON_SYNTAX: return "JSON syntax error";
    case MCP_ERR_JSON_UTF8: return "invalid UTF-8 in JSON text";
    case MCP_ERR_JSON_ESCAPE: return "invalid escape or unpaired surrogate in JSON string";
    case MCP_ERR_JSON_CONTROL: return "raw control character in JSON string";
    case MCP_ERR_JSON_NUMBER: return "invalid JSON number";
    case MCP_ERR_JSON_DEPTH: return "JSON nesting deeper than the limit";
    case MCP_ERR_JSON_SIZE: return "JSON document larger than the limit";
    case MCP_ERR_JSON_DUPLICATE_KEY: return "duplicate key in JSON object";
    case MCP_ERR_JSON_TRAILING: return "unexpected data after the JSON document";
    case MCP_ERR_JSON_EMPTY: return "empty JSON document";
    case MCP_ERR_JSON_TYPE: return "JSON value has another type";
    case MCP_ERR_JSON_RANGE: return "JSON number does not fit the requested type";
    case MCP_ERR_RPC_PARSE: return "JSON-RPC parse error";
    case MCP_ERR_RPC_INVALID: return "invalid JSON-RPC message";
    case MCP_ERR_RPC_BATCH: return "JSON-RPC batch";
    case MCP_ERR_LINE_TOO_LONG: return "message line longer than the limit";
    case MCP_ERR_REMOTE: return "the peer answered with an error";
    case MCP_ERR_ABORTED: return "request cancelled by the caller";
    case MCP_ERR_TIMED_OUT: return "request timed out";
    case MCP_ERR_MAX_TIME: return "request exceeded its maximum total time";
    case MCP_ERR_CLOSED: return "connection closed";
    case MCP_ERR_PROTOCOL: return "protocol violation by the peer";
    case MCP_ERR_CANCELLED: return "request cancelled by the peer";
    case MCP_ERR_TOO_LARGE: return "response too large";
    case MCP_ERR_INPUT_REQUIRED: return "the client must answer first (input required)";
    case MCP_ERR_HTTP: return "the HTTP request failed";
    case MCP_ERR_SPAWN: return "could not start the server process";
    case MCP_ERR_BUSY: return "queue full";
    case MCP_ERR_SCHEMA: return "not a valid JSON Schema";
    case MCP_ERR_SCHEMA_REMOTE: return "the schema refers to another document";
    case MCP_ERR_SCHEMA_MISMATCH: return "the value does not satisfy its schema";
    default: return "unknown error";
    }
}

const char *mcp_version(void)
{
    return MCP_VERSION_STRING;
}
