/* SPDX-License-Identifier: MIT */
/* A test that cannot run here (a command or a file it needs is missing). */
#ifndef MCP_TEST_MISSING_H
#define MCP_TEST_MISSING_H

#include <stdbool.h>

/* The exit status for main of a test that lacks what (said on stderr):
 * 1, a failure, since a test that did not run must not pass for one that
 * did; 77 only where the user asked for skips (MCP_TEST_ALLOW_SKIP=1),
 * which ctest reports as Skipped (SKIP_RETURN_CODE) and make check refuses
 * all the same. */
int test_missing(const char *what);

/* Whether name is an executable file in a directory of $PATH. */
bool test_on_path(const char *name);

#endif
