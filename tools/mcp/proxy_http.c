/* SPDX-License-Identifier: MIT */
/*
 * mcp proxy --http [HOST:]PORT [options of mcp serve --http] -- COMMAND: a
 * stdio server offered over Streamable HTTP, a gateway server of the
 * library (mcp_server_options.upstream_argv) served as mcp serve --http
 * serves its demo. The command is run once first, to learn what it
 * declares (capabilities, name, instructions), which the gateway declares
 * as its own; every session then gets its own run of it (2025), or shares
 * one (2026-07-28).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

__attribute__((format(printf, 1, 2))) static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mcp: proxy: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\ntry 'mcp proxy --help'\n", stderr);
    return EXIT_USAGE;
}

/* What the command declares, asked of a run of it: a document whose root
 * holds capabilities, serverInfo and instructions (the initialize result),
 * or NULL with the failure said. Connected as the client commands connect
 * (cli_connect): a Ctrl-C or SIGTERM meanwhile ends the run with its
 * process group, and the proxy at once (130, 143). */
static mcp_json_doc *probe(char **command)
{
    cli_client_args a = {.timeout = -1, .max_time = -1, .cancel_after = -1,
                         .mode = MCP_CONNECT_LEGACY, .command = command,
                         .start_ms = mcp_monotonic_ms()};
    mcp_client_options co = {.close_grace_ms = 1000};
    mcp_client *c;
    if (cli_connect(&a, &co, &c) != 0) {
        fprintf(stderr, "mcp: proxy: the server '%s' could not be used\n", cli_safe(command[0]));
        return NULL;
    }
    mcp_json_doc *d = mcp_json_doc_new(NULL);
    if (d)
        mcp_json_doc_set_root(d, mcp_json_copy(d, mcp_client_server_info(c)));
    if (!d || mcp_json_doc_error(d)) {
        mcp_json_doc_free(d);
        d = NULL;
        fputs("mcp: proxy: out of memory\n", stderr);
    }
    cli_disconnect(c);
    return d;
}

int cli_proxy_http(int argc, char **argv)
{
    int dashes = -1;
    for (int i = 0; i < argc && dashes < 0; i++)
        if (!strcmp(argv[i], "--"))
            dashes = i;
    for (int i = 0; i < (dashes < 0 ? argc : dashes); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cli_usage("proxy", true);
            return 0;
        }
    if (dashes < 0 || dashes + 1 >= argc)
        return usage("%s", "--http needs the server to offer: -- COMMAND [ARG...]");
    /* --max-children is the proxy's; the rest are mcp serve's. */
    static char *options[256];
    int n = 0;
    unsigned long max_children = 0;
    for (int i = 0; i < dashes; i++) {
        if (!strcmp(argv[i], "--max-children")) {
            const char *v = i + 1 < dashes ? argv[++i] : NULL;
            char *end;
            errno = 0;
            max_children = v ? strtoul(v, &end, 10) : 0;
            if (!v || errno || *end || v[0] < '1' || v[0] > '9' || max_children > 100000)
                return usage("--max-children takes a number from 1 to 100000, not '%s'",
                             v ? cli_safe(v) : "");
            continue;
        }
        if (n == 255)
            return usage("%s", "too many options");
        options[n++] = argv[i];
    }
    char **command = argv + dashes + 1;
    static cli_served what;
    what.prog = "mcp proxy";
    what.usage_command = "proxy";
    int bad = cli_serve_check(&what, n, options); /* before COMMAND is run */
    if (bad)
        return bad < 0 ? 0 : bad;
    mcp_json_doc *info = probe(command);
    if (!info)
        return EXIT_CONNECTION;
    const mcp_json *root = mcp_json_doc_root(info);
    const mcp_json *impl = mcp_json_object_get(root, "serverInfo");
    const mcp_json *caps = mcp_json_object_get(root, "capabilities");
    what.options.name = mcp_json_string(mcp_json_object_get(impl, "name"), NULL);
    what.options.version = mcp_json_string(mcp_json_object_get(impl, "version"), NULL);
    what.options.instructions = mcp_json_string(mcp_json_object_get(root, "instructions"), NULL);
    /* A server that declares nothing is offered declaring nothing. */
    what.options.capabilities =
        mcp_json_typeof(caps) == MCP_JSON_OBJECT ? caps : mcp_json_new_object(info);
    what.options.upstream_argv = (const char *const *)command;
    what.options.upstream_max_children = (unsigned)max_children;
    what.options.log_name = "mcp proxy";
    int rc = cli_serve_host(&what, n, options);
    mcp_json_doc_free(info);
    return rc;
}
