/* SPDX-License-Identifier: MIT */
/*
 * A client that starts a server, calls its countdown tool, shows progress,
 * and cancels the call after a second and a half:
 *     ./example_client ./example_server
 */
#include <stdio.h>
#include <string.h>

#include <mcp/mcp.h>

static void on_progress(void *ud, mcp_handle h, double progress, double total,
                        const char *message)
{
    printf("progress %g/%g %s\n", progress, total, message ? message : "");
}

static void on_done(void *ud, const mcp_client_call_result *r)
{
    *(int *)ud = r->outcome;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SERVER_COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    mcp_client *client;
    if (mcp_client_new(NULL, &client) != MCP_OK)
        return 1;
    if (mcp_client_connect_stdio(client, (const char *const *)argv + 1) != MCP_OK) {
        fprintf(stderr, "connect: %s\n", mcp_client_error(client));
        mcp_client_free(client);
        return 1;
    }

    mcp_json_doc *args;
    mcp_json_parse("{\"from\":10}", 11, NULL, NULL, &args, NULL);
    mcp_client_call_options opts = {.size = sizeof opts, .timeout_ms = 5000,
                                    .on_progress = on_progress};
    int outcome = 1; /* not ended yet */
    mcp_handle call;
    mcp_client_call_tool_async(client, "countdown", mcp_json_doc_root(args), &opts, on_done,
                               &outcome, &call);
    mcp_json_doc_free(args);

    /* Drive the client for 1.5 s, then cancel: the server gets
     * notifications/cancelled with our reason and stops counting. */
    uint64_t stop_at = mcp_monotonic_ms() + 1500;
    while (outcome == 1 && mcp_monotonic_ms() < stop_at)
        mcp_client_run_once(client, false);
    if (outcome == 1)
        mcp_client_cancel(client, call, "the example had seen enough");

    printf("call ended: %s\n", outcome == MCP_ERR_ABORTED ? "cancelled" : mcp_strerror(outcome));
    mcp_client_free(client); /* closes the server's stdin; it exits */
    return outcome == MCP_ERR_ABORTED ? 0 : 1;
}
