/* SPDX-License-Identifier: MIT */
/*
 * A client of a server that wants OAuth: the library finds the server's
 * authorization server, registers and runs the flow; the application only
 * shows the page to open and hands back where the browser was sent:
 *     ./example_oauth_client https://example.com/mcp
 * then open the page it prints and paste the URL you land on (it starts
 * with http://127.0.0.1:8976/callback; nothing needs to listen there).
 * Tokens stay in memory here: give load and save to keep them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcp/mcp.h>

static int ask_user(void *ud, const char *url, const char *redirect_uri, char **redirected,
                    char *why, size_t why_len)
{
    char line[8192];
    fprintf(stderr, "open this page to authorize:\n  %s\nthen paste the URL it sends you to "
            "(%s?...):\n", url, redirect_uri);
    if (!fgets(line, sizeof line, stdin)) {
        snprintf(why, why_len, "no URL given");
        return MCP_ERR_ABORTED;
    }
    line[strcspn(line, "\r\n")] = '\0';
    *redirected = strdup(line);
    return *redirected ? MCP_OK : MCP_ERR_NOMEM;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s URL\n", argv[0]);
        return 2;
    }
    mcp_oauth_options oauth = {.size = sizeof oauth,
                               .redirect_uri = "http://127.0.0.1:8976/callback",
                               .client_name = "libmcp example",
                               .authorize = ask_user};
    mcp_http_client_options http = {.size = sizeof http, .oauth = &oauth};
    mcp_client_options opts = {.size = sizeof opts, .connect_timeout_ms = 300000};
    mcp_client *client;
    if (mcp_client_new(&opts, &client) != MCP_OK)
        return 1;
    if (mcp_client_connect_http(client, argv[1], &http) != MCP_OK) {
        fprintf(stderr, "connect: %s\n", mcp_client_error(client));
        mcp_client_free(client);
        return 1;
    }
    mcp_json_doc *tools;
    int rc = mcp_client_list_tools(client, NULL, &tools, NULL);
    if (rc == MCP_OK) {
        printf("authorized: %zu tools\n", mcp_json_array_size(mcp_json_doc_root(tools)));
        mcp_json_doc_free(tools);
    } else {
        fprintf(stderr, "tools/list: %s\n", mcp_client_error(client));
    }
    mcp_client_free(client);
    return rc == MCP_OK ? 0 : 1;
}
