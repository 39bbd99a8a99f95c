#!/bin/sh
# Every form of the mcp command and its exit codes.
. "$(dirname "$0")/lib.sh"
MCP=$1

expect_exit 0 "--version" -- "$MCP" --version
contains "$WORK/out" "mcp 0." "version printed"
expect_exit 0 "--help" -- "$MCP" --help
contains "$WORK/out" "exit codes" "help lists the exit codes"

expect_exit 0 "tools" -- "$MCP" tools -- "$MCP" serve
contains "$WORK/out" "count" "tools lists count"
expect_exit 0 "tools --json" -- "$MCP" tools --json -- "$MCP" serve
contains "$WORK/out" '"name":"sleep"' "JSON tool list"

expect_exit 0 "call echo" -- "$MCP" call echo '{"text":"hello there"}' -- "$MCP" serve
contains "$WORK/out" "hello there" "echo printed"
expect_exit 0 "call --json" -- "$MCP" call --json echo '{"text":"j"}' -- "$MCP" serve
contains "$WORK/out" '{"content":[{"type":"text","text":"j"}]}' "result as JSON"
expect_exit 0 "call count" -- "$MCP" call count '{"n":3,"delay_ms":10}' -- "$MCP" serve
contains "$WORK/out" "counted to 3" "count finished"

expect_exit 1 "tool error" -- "$MCP" call fail '{"message":"broken"}' -- "$MCP" serve
contains "$WORK/out" "broken" "the tool's message"
contains "$WORK/err" "reported an error" "said so"

expect_exit 2 "no command" -- "$MCP"
expect_exit 2 "unknown command" -- "$MCP" frobnicate
expect_exit 2 "missing --" -- "$MCP" call echo
expect_exit 2 "missing tool" -- "$MCP" call -- "$MCP" serve
expect_exit 2 "bad ARGS_JSON" -- "$MCP" call echo '{"text":' -- "$MCP" serve
contains "$WORK/err" "not valid JSON" "explains the JSON error"
expect_exit 2 "ARGS_JSON not an object" -- "$MCP" call echo '[1]' -- "$MCP" serve
expect_exit 2 "bad --timeout" -- "$MCP" call --timeout soon echo -- "$MCP" serve
contains "$WORK/err" "--timeout needs a number" "explains the option"
expect_exit 2 "unknown option" -- "$MCP" call --frob echo -- "$MCP" serve

expect_exit 3 "unknown tool" -- "$MCP" call nope -- "$MCP" serve
contains "$WORK/err" "Unknown tool: nope" "JSON-RPC error shown"
expect_exit 3 "server that cannot start" -- "$MCP" call echo -- /nonexistent/server
contains "$WORK/err" "could not start" "explains the spawn failure"
expect_exit 3 "server that is not MCP" -- "$MCP" call echo -- sh -c 'echo not-mcp; exit 0'

expect_exit 4 "idle timeout" -- "$MCP" call --timeout 0.3 sleep '{"seconds":10}' -- "$MCP" serve
contains "$WORK/err" "timed out after 0.3 s" "timeout explained"
contains "$WORK/err" 'reason="timed out after 300 ms"' "server got the cancel"
expect_exit 4 "maximum time" -- "$MCP" call --timeout 5 --max-time 0.4 count '{"n":100,"delay_ms":50}' -- "$MCP" serve
contains "$WORK/err" "maximum time of 0.4 s" "max time explained"

expect_exit 130 "cancel after" -- "$MCP" call --cancel-after 0.3 sleep '{"seconds":10}' -- "$MCP" serve
contains "$WORK/err" "cancelling sleep (request 2)..." "announced the cancel"
contains "$WORK/err" 'reason="cancelled by user"' "server got the cancel with its reason"
contains "$WORK/err" "sleep: cancelled after" "the handler stopped"

# A real Ctrl-C (SIGINT to the client only).
"$MCP" call --trace sleep '{"seconds":30}' -- "$MCP" serve >"$WORK/out" 2>"$WORK/err" &
pid=$!
wait_for "$WORK/err" '"method":"tools/call"' 10
kill -INT "$pid"
wait "$pid"
code=$?
[ "$code" -eq 130 ] || { cat "$WORK/err"; fail "Ctrl-C: exit $code, expected 130"; }
contains "$WORK/err" 'cancelling sleep (request 2)...' "Ctrl-C announced the cancel"
contains "$WORK/err" '-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"cancelled by user"}}' "the cancel on the wire"
contains "$WORK/err" 'sleep: cancelled after' "the server's handler stopped"
lacks "$WORK/err" '<- {"jsonrpc":"2.0","id":2' "no response after the cancel"
echo "ok: Ctrl-C (exit 130)"

# On a terminal: a live progress bar on stderr (a pty through script(1)),
# cleared once the call ends.
if command -v script >/dev/null 2>&1; then
    script -qfec "'$MCP' call count '{\"n\":3,\"delay_ms\":50}' -- '$MCP' serve" /dev/null \
        >"$WORK/tty" 2>&1 || fail "call under a pty failed"
    contains "$WORK/tty" "count [##########--------------------] 1/3  step 1 of 3" "the bar at 1/3"
    contains "$WORK/tty" "count [##############################] 3/3  step 3 of 3" "the bar at 3/3"
    contains "$WORK/tty" "counted to 3" "the result after the bar"
    echo "ok: progress bar on a terminal"
fi
