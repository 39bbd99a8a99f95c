/* SPDX-License-Identifier: MIT */
/*
 * tools/list, resources/list, resources/templates/list, prompts/list: the
 * snapshot's first page as serialized, or the page a cursor names.
 */
#include <stdlib.h>

#include "server/methods/methods.h"

static void reply_list(conn *c, mcp_handle h, const mcp_message *msg, int k)
{
    mcp_session *ss = c->driver.session;
    registry *r = mcp__server_snapshot(c->server);
    if (!r) {
        mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory",
                                NULL);
        return;
    }
    bool modern = mcp_protocol_modern(mcp_session_inbound_version(ss, h));
    const mcp_json *cursor = mcp_json_object_get(msg->params, "cursor");
    if (!cursor || mcp_json_typeof(cursor) == MCP_JSON_NULL) {
        size_t len;
        const char *page = mcp__registry_first_page(r, k, modern, &len);
        mcp_session_reply_raw(ss, h, page, len);
        mcp__registry_unref(r);
        return;
    }
    size_t n;
    const char *text = mcp_json_string(cursor, &n);
    mcp_buf b;
    mcp_buf_init(&b, 0, NULL);
    int rc = text ? mcp__registry_page(r, k, text, n, modern, &b) : MCP_ERR_NOT_FOUND;
    if (rc == MCP_OK)
        mcp_session_reply_raw(ss, h, b.data, b.len);
    else if (rc == MCP_ERR_NOT_FOUND)
        mcp_session_reply_error(ss, h, MCP_WIRE_INVALID_PARAMS,
                                "Invalid params: the cursor is not one this server gave for this "
                                "list (list again without one)",
                                NULL);
    else
        mcp_session_reply_error(ss, h, MCP_WIRE_INTERNAL_ERROR, "Internal error: out of memory",
                                NULL);
    mcp_buf_free(&b);
    mcp__registry_unref(r);
}

static void tools_list(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    reply_list(c, h, msg, LIST_TOOLS);
}

static void resources_list(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    reply_list(c, h, msg, LIST_RESOURCES);
}

static void templates_list(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    reply_list(c, h, msg, LIST_TEMPLATES);
}

static void prompts_list(conn *c, mcp_handle h, const mcp_message *msg, void *state)
{
    reply_list(c, h, msg, LIST_PROMPTS);
}

static const mcp__method methods[] = {
    {"tools/list", tools_list, MCP__ERAS_ALL, 0, NULL},
    {"resources/list", resources_list, MCP__ERAS_ALL, 0, NULL},
    {"resources/templates/list", templates_list, MCP__ERAS_ALL, 0, NULL},
    {"prompts/list", prompts_list, MCP__ERAS_ALL, 0, NULL},
};

const mcp__feature mcp__lists_feature = {
    .name = "lists", .methods = methods, .nmethods = sizeof methods / sizeof methods[0]};
