/* SPDX-License-Identifier: MIT */
/* mcp tools: list a server's tools, every page of them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "text.h"

int cli_tools(int argc, char **argv)
{
    cli_client_args a = {.timeout = -1, .max_time = -1, .cancel_after = -1,
                         .start_ms = mcp_monotonic_ms()};
    int i = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        int used = cli_client_option(argc, argv, &i, &a);
        if (used < 0) {
            fputs("try 'mcp tools --help'\n", stderr);
            return EXIT_USAGE;
        }
        if (used)
            continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cli_usage("tools", true);
            return 0;
        }
        if (!strcmp(argv[i], "--json")) {
            a.json = true;
            continue;
        }
        fprintf(stderr, "mcp: %s '%s' (the server command goes after --)\n",
                argv[i][0] == '-' ? "unknown option" : "unexpected argument", cli_safe(argv[i]));
        fputs("try 'mcp tools --help'\n", stderr);
        return EXIT_USAGE;
    }
    if (!cli_server_target(argc, argv, i, &a)) {
        fputs("try 'mcp tools --help'\n", stderr);
        return EXIT_USAGE;
    }
    mcp_client *c;
    mcp_client_options o = {0};
    int code = cli_connect(&a, &o, &c);
    if (code)
        return code;
    /* Nothing to cancel: a Ctrl-C or SIGTERM ends it at once, the server
     * with it. */
    cli_exit_at_once(c, NULL, NULL);
    uint64_t idle, left;
    int rc = MCP_ERR_MAX_TIME;
    mcp_json_doc *tools = NULL;
    mcp_cache_hint hint;
    if (cli_budget(&a, &idle, &left)) {
        mcp_client_call_options co = {.size = sizeof co, .timeout_ms = idle, .max_time_ms = left};
        rc = mcp_client_list_tools(c, &co, &tools, &hint);
    }
    if (rc != MCP_OK) {
        if (rc == MCP_ERR_TIMED_OUT || rc == MCP_ERR_MAX_TIME)
            fprintf(stderr, "mcp: tools/list %s\n",
                    rc == MCP_ERR_TIMED_OUT ? "timed out" : "exceeded the maximum time");
        else
            fprintf(stderr, "mcp: %s\n", mcp_client_error(c)[0] ? cli_safe(mcp_client_error(c))
                                                                 : mcp_strerror(rc));
        cli_disconnect(c);
        return rc == MCP_ERR_TIMED_OUT || rc == MCP_ERR_MAX_TIME ? EXIT_TIMEOUT : EXIT_CONNECTION;
    }
    const mcp_json *list = mcp_json_doc_root(tools);
    if (a.json) {
        mcp_buf b;
        mcp_buf_init(&b, 0, NULL);
        mcp_json_write(list, &b);
        printf("%s\n", b.data);
        mcp_buf_free(&b);
    } else {
        for (size_t k = 0; k < mcp_json_array_size(list); k++) {
            const mcp_json *t = mcp_json_array_at(list, k);
            /* One line per tool, whatever the server put in them. */
            size_t name_len, desc_len;
            const char *name = mcp_json_string(mcp_json_object_get(t, "name"), &name_len);
            const char *desc = mcp_json_string(mcp_json_object_get(t, "description"), &desc_len);
            printf("%-20s %s\n", name ? cli_safe_n(name, name_len) : "?",
                   desc ? cli_safe_n(desc, desc_len) : "");
        }
        if (hint.present)
            fprintf(stderr, "(%s, cacheable for %llu ms, %s)\n",
                    mcp_client_protocol_version(c), (unsigned long long)hint.ttl_ms,
                    hint.scope == MCP_CACHE_PRIVATE ? "private" : "public");
    }
    mcp_json_doc_free(tools);
    code = cli_output_ok() ? 0 : EXIT_OUTPUT; /* said before the server is stopped */
    cli_disconnect(c);
    return code;
}
