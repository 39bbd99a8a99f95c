/* The mcp command: a client for any MCP server and a demo server. */
#include <stdio.h>
#include <string.h>

#include "mcp/mcp.h"

static void usage(FILE *f)
{
    fputs("usage: mcp [--version] [--help]\n"
          "\n"
          "  --version   print the libmcp version and exit\n"
          "  --help      print this help and exit\n",
          f);
}

int main(int argc, char **argv)
{
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
    return 2;
}
