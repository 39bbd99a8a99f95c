/* SPDX-License-Identifier: MIT */
#include "stderr_wait.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool server_stderr_says(mcp_client *c, const char *needle, int timeout_ms)
{
    for (int waited = 0; waited <= timeout_ms; waited += 5) {
        if (strstr(mcp_client_stderr(c, NULL), needle))
            return true;
        mcp_client_run_once(c, false);
        usleep(5000);
    }
    fprintf(stderr, "--- no \"%s\" in the server's stderr:\n%s\n", needle,
            mcp_client_stderr(c, NULL));
    return false;
}
