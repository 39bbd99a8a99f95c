/* Shared pieces of the mcp command. */
#ifndef MCP_CLI_H
#define MCP_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* Exit codes of the client commands. */
enum {
    EXIT_TOOL_ERROR = 1, /* the tool answered with isError */
    EXIT_USAGE = 2,
    EXIT_CONNECTION = 3, /* could not connect, protocol or JSON-RPC error */
    EXIT_TIMEOUT = 4,    /* idle timeout or maximum time */
    EXIT_CANCELLED = 130 /* Ctrl-C or --cancel-after */
};

int cli_serve(int argc, char **argv);
int cli_tools(int argc, char **argv);
int cli_call(int argc, char **argv);

/* Print one wire message to stderr with a direction arrow. */
void cli_trace_line(const char *who, bool outgoing, const char *line, size_t len);

#endif
