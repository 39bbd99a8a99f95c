/* The mcp command: a client for any MCP server, and a demo server. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mcp/mcp.h"

static void usage(FILE *f)
{
    fputs("usage: mcp serve\n"
          "       mcp tools [--json] -- COMMAND [ARG...]\n"
          "       mcp call [--timeout S] [--max-time S] [--cancel-after S] [--json] [--trace]\n"
          "                TOOL [ARGS_JSON] -- COMMAND [ARG...]\n"
          "       mcp --version | --help\n"
          "\n"
          "  serve   run the demo server on stdin/stdout (tools: echo, sleep, count, fail)\n"
          "  tools   start COMMAND as an MCP server over stdio and list its tools\n"
          "  call    call TOOL with ARGS_JSON (an object, default {}) on COMMAND's server;\n"
          "          a progress bar shows on a terminal; Ctrl-C cancels the call\n"
          "\n"
          "  --timeout S       give up after S seconds without an answer or progress (60)\n"
          "  --max-time S      give up after S seconds in all, progress or not (1800)\n"
          "  --cancel-after S  cancel the call after S seconds, as Ctrl-C would\n"
          "  --json            print the result as JSON\n"
          "  --trace           print every message on stderr (-> sent, <- received)\n"
          "\n"
          "exit codes: 0 success, 1 tool error, 2 usage, 3 connection or protocol error,\n"
          "            4 timed out, 130 cancelled\n",
          f);
}

void cli_trace_line(const char *who, bool outgoing, const char *line, size_t len)
{
    char head[64];
    int n = snprintf(head, sizeof head, "%s%s%s ", who ? who : "", who ? " " : "",
                     outgoing ? "->" : "<-");
    /* One write per line so traces from several processes do not mix. */
    char buf[8192];
    size_t take = len < sizeof buf - (size_t)n - 2 ? len : sizeof buf - (size_t)n - 6;
    memcpy(buf, head, (size_t)n);
    memcpy(buf + n, line, take);
    size_t total = (size_t)n + take;
    if (take < len) {
        memcpy(buf + total, "...", 3);
        total += 3;
    }
    buf[total++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, total);
    (void)w;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "serve") == 0)
        return cli_serve(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "tools") == 0)
        return cli_tools(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "call") == 0)
        return cli_call(argc - 2, argv + 2);
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("mcp %s\n", mcp_version());
        return 0;
    }
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 2)
        fputs("mcp: missing command\n", stderr);
    else
        fprintf(stderr, "mcp: unknown command or option '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
