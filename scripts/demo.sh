#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: a client calls the demo server's slow `count` tool, shows the
# progress and every wire message, cancels after 2 seconds, and shows that no
# response follows the cancel. Exits 0 when it all behaved as expected (the
# call's own exit code, 130 for "cancelled", is the expected one).
set -u
BUILD=${1:-build}
MCP="$BUILD/mcp"
[ -x "$MCP" ] || { echo "demo: $MCP is not built (run make)" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo '$ mcp call --trace --cancel-after 2 count '\''{"n":50,"delay_ms":100}'\'' -- mcp serve'
echo
"$MCP" call --trace --cancel-after 2 count '{"n":50,"delay_ms":100}' -- "$MCP" serve 2>&1 | tee "$log"
code=${PIPESTATUS[0]}
echo

problems=()
[ "$code" -eq 130 ] || problems+=("the call exited with $code instead of 130 (cancelled)")
grep -q '<- .*"method":"notifications/progress"' "$log" ||
    problems+=("no progress arrived")
grep -q '^cancelling count (request 2)\.\.\.$' "$log" ||
    problems+=("the client did not announce the cancel")
grep -q '^-> .*"method":"notifications/cancelled","params":{"requestId":2,"reason":"cancelled by user"}' "$log" ||
    problems+=("no notifications/cancelled on the wire")
grep -q 'cancel received: .*reason="cancelled by user"' "$log" ||
    problems+=("the server did not log the cancel")
# Nothing for request 2 may arrive after the cancel was sent.
if sed -n '/"method":"notifications\/cancelled"/,$p' "$log" | grep -q '^<- .*"id":2[,}]'; then
    problems+=("a response followed the cancel")
fi

if [ ${#problems[@]} -eq 0 ]; then
    echo "demo: as expected: progress arrived, Ctrl-C's cancel (here --cancel-after) went on"
    echo "      the wire with its reason, the server's handler stopped, no response followed."
    exit 0
fi
printf 'demo: NOT as expected: %s\n' "${problems[@]}" >&2
exit 1
