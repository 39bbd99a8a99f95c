/* SPDX-License-Identifier: MIT */
#include "missing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int test_missing(const char *what)
{
    const char *allow = getenv("MCP_TEST_ALLOW_SKIP");
    if (allow && !strcmp(allow, "1")) {
        fprintf(stderr, "skipped: %s (MCP_TEST_ALLOW_SKIP=1)\n", what);
        return 77;
    }
    fprintf(stderr, "FAIL: %s (make deps installs it; MCP_TEST_ALLOW_SKIP=1 skips the test instead)\n",
            what);
    return 1;
}

bool test_on_path(const char *name)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        char file[4096];
        if (n && snprintf(file, sizeof file, "%.*s/%s", (int)n, path, name) < (int)sizeof file &&
            access(file, X_OK) == 0)
            return true;
        path = end ? end + 1 : NULL;
    }
    return false;
}
