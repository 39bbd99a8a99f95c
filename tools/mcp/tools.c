/* SPDX-License-Identifier: MIT */
/* mcp tools: list a server's tools, every page of them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "text.h"

static int list(void *state, mcp_client *c, const mcp_client_call_options *co,
                const cli_client_args *a)
{
    mcp_json_doc *tools = NULL;
    mcp_cache_hint hint = {.size = sizeof hint};
    int rc = mcp_client_list_tools(c, co, &tools, &hint);
    if (rc != MCP_OK)
        return cli_request_failed(c, "tools/list", rc, NULL);
    const mcp_json *list = mcp_json_doc_root(tools);
    if (a->json) {
        cli_print_json(list);
    } else {
        for (size_t k = 0; k < mcp_json_array_size(list); k++) {
            const mcp_json *t = mcp_json_array_at(list, k);
            /* One line per tool, whatever the server put in them. */
            size_t name_len, desc_len;
            const char *name = mcp_json_string(mcp_json_object_get(t, "name"), &name_len);
            const char *desc = mcp_json_string(mcp_json_object_get(t, "description"), &desc_len);
            printf("%-20s %s\n", cli_safe_n(name, name_len), desc ? cli_safe_n(desc, desc_len) : "");
        }
        cli_print_cache_hint(c, &hint);
    }
    mcp_json_doc_free(tools);
    return 0;
}

int cli_tools(int argc, char **argv)
{
    static const cli_command cmd = {"tools", 0, NULL, NULL, list};
    return cli_run_command(&cmd, NULL, argc, argv);
}
