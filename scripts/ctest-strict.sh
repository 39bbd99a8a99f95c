#!/bin/sh
# SPDX-License-Identifier: MIT
# ctest-strict.sh [CTEST OPTIONS...]: ctest, in the current directory,
# failing also when a test did not run. ctest exits 0 when tests were
# Skipped (exit 77 with SKIP_RETURN_CODE, or a failed REQUIRED_FILES) or
# Disabled: for make check a test that did not run is a failure, never a
# pass (MCP_TEST_ALLOW_SKIP=1 lets tests skip; it does not make them pass).
set -u
out=$(mktemp)
status=$(mktemp)
trap 'rm -f "$out" "$status"' EXIT
# The output is shown as it comes and kept for the summary below; the
# pipeline's status is ctest's, carried out of the pipe by a file.
{ ctest "$@" 2>&1; echo $? >"$status"; } | tee "$out"
rc=$(cat "$status")
# ctest lists what did not run after "The following tests did not run:"
# ("(Skipped)", "(Disabled)"); a test whose program is missing is "Not Run".
if grep -Eq 'The following tests did not run:|\*\*\*(Skipped|Not Run)|\((Skipped|Not Run|Disabled)\)' "$out"; then
    echo "ctest-strict: tests did not run (above): a skip is a failure here" >&2
    [ "$rc" -ne 0 ] || rc=1
fi
exit "$rc"
