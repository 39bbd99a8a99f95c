/* SPDX-License-Identifier: MIT */
/* A program outside the tree, built against the installed library. */
#include <stdio.h>
#include <string.h>

#include <mcp/mcp.h>

int main(void)
{
    const char *msg = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    mcp_message *m;
    if (mcp_message_decode(msg, strlen(msg), NULL, NULL, &m, NULL) != MCP_OK)
        return 1;
    int ok = m->kind == MCP_MESSAGE_REQUEST && strcmp(m->method, "ping") == 0;
    mcp_message_free(m);
    /* The header compiled against and the library loaded are one version. */
    if (strcmp(mcp_version(), MCP_VERSION_STRING) != 0)
        ok = 0;
    printf("libmcp %s: %s\n", mcp_version(), ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}
