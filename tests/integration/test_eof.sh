#!/bin/sh
# SPDX-License-Identifier: MIT
# Kill the client mid-call: the server sees end of input, its handler sees
# the cancel ("connection closed"), and the server exits promptly.
. "$(dirname "$0")/lib.sh"
MCP=$1
MCP_LOG_LEVEL=debug "$MCP" call --trace sleep '{"seconds":60}' -- "$MCP" serve \
    >"$WORK/out" 2>"$WORK/err" &
client=$!
wait_for "$WORK/err" '"method":"tools/call"' 10
wait_for "$WORK/err" ' tool(s), pid ' 10
server=$(sed -n 's/.*serving [0-9]* tool(s), pid \([0-9]*\).*/\1/p' "$WORK/err" | head -n 1)
[ -n "$server" ] || fail "no server pid in the log"
running "$server" || fail "the server is not running"

kill -KILL "$client"
wait "$client" 2>/dev/null
wait_for "$WORK/err" "end of input: cancelling 1 call(s) in flight" 5
wait_for "$WORK/err" "sleep: cancelled after" 5
contains "$WORK/err" "(connection closed)" "the handler's token fired with the reason"
i=0
while running "$server"; do
    i=$((i + 1))
    [ "$i" -le 60 ] || fail "the server is still running 3 s after its client died"
    sleep 0.05
done
echo "ok: the server cancelled its call and exited after its client was killed"
