/* SPDX-License-Identifier: MIT */
/*
 * mcp-conformance: the official conformance suite's counterpart, test code
 * that no user's mcp carries (built with the tests, never installed).
 *   mcp-conformance server [OPTION...]  serves the fixtures the server
 *                          scenarios call, with every option of mcp serve
 *                          (the same code: tools/mcp/serve_host.c)
 *   mcp-conformance client URL          the client of the client scenarios
 * tests/interop/run_conformance.sh runs the suite with both.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "conformance.h"
#include "text.h"

static const struct {
    const char *name;
    const char *usage;
} commands[] = {
    {"server",
     "usage: mcp-conformance server [OPTION...]\n"
     "\n"
     "Serve the fixtures the official conformance suite's server scenarios call by\n"
     "name (test_simple_text, test_tool_with_progress, ...), on stdio or, with --http,\n"
     "on Streamable HTTP: every option of mcp serve, taken the same way (see\n"
     "'mcp serve --help'). SIGTERM or Ctrl-C stops it gracefully.\n"
     "\n"
     "exit codes: as mcp serve's\n"},
    {"client",
     "usage: mcp-conformance client [--trace] URL\n"
     "\n"
     "The client for the official conformance suite's client scenarios: the suite runs\n"
     "it against its mock server at URL and names the scenario in\n"
     "MCP_CONFORMANCE_SCENARIO (MCP_CONFORMANCE_PROTOCOL_VERSION: the revision to speak,\n"
     "else auto; MCP_CONFORMANCE_CONTEXT: the scenario's inputs). It connects, lists\n"
     "and calls what the scenario asks for, at most 25 seconds in all. A scenario it\n"
     "cannot play yet (OAuth, ...) is refused, saying what it needs.\n"
     "\n"
     "exit codes: 0 played through, 1 a wrong answer (a tool or JSON-RPC error), 2 usage\n"
     "            or a scenario it cannot play, 3 connection or protocol error, 4 timed out\n"},
};

/* The pieces of mcp it links (tools/mcp) ask the program for its usage. */
void cli_usage(const char *command, bool to_stdout)
{
    FILE *f = to_stdout ? stdout : stderr;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!command || !strcmp(command, commands[i].name))
            fputs(commands[i].usage, f);
}

int main(int argc, char **argv)
{
    static const cli_served fixtures = {
        .prog = "mcp-conformance server",
        .usage_command = "server",
        .options = {.name = "mcp-conformance",
                    .instructions = "The fixtures of the MCP conformance suite's server scenarios."},
        .add = conformance_server};
    if (argc >= 2 && !strcmp(argv[1], "server"))
        return cli_serve_host(&fixtures, argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "client"))
        return conformance_client(argc - 2, argv + 2);
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        cli_usage(NULL, true);
        return 0;
    }
    if (argc < 2)
        fputs("mcp-conformance: missing command (server or client)\n", stderr);
    else
        fprintf(stderr, "mcp-conformance: unknown command '%s'\n", cli_safe(argv[1]));
    cli_usage(NULL, false);
    return EXIT_USAGE;
}
