#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp started with stdin, stdout or stderr closed, as supervisors and
# daemons do: never an abort (a closed slot taken by an internal descriptor
# made libuv assert, exit 134); stdin closed reads as empty, and a closed
# stdout or stderr fails to be written, as it would have.
. "$(dirname "$0")/lib.sh"
MCP=$1
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'

# code DESCRIPTION WANT...: the last exit code must be one of WANT.
code() {
    got=$?
    what=$1
    shift
    for w in "$@"; do
        [ "$got" -eq "$w" ] && { echo "ok: $what (exit $got)"; return; }
    done
    echo "--- stdout"; cat "$WORK/out" 2>/dev/null; echo "--- stderr"; cat "$WORK/err" 2>/dev/null
    fail "$what: exit $got, expected $*"
}

timeout 10 "$MCP" serve <&- >"$WORK/out" 2>"$WORK/err"
code "serve with stdin closed: end of input" 0
[ ! -s "$WORK/out" ] || fail "serve with stdin closed wrote something"

printf '%s\n' "$INIT" | timeout 10 "$MCP" serve 2>&- >"$WORK/out"
code "serve with stderr closed" 0
contains "$WORK/out" '"id":0,"result":{"protocolVersion":"2025-11-25"' "serve with stderr closed answers"

# The reply cannot be written.
(printf '%s\n' "$INIT"; sleep 0.3) | timeout 10 "$MCP" serve >&- 2>"$WORK/err"
code "serve with stdout closed: the reply cannot be written" 3
contains "$WORK/err" "mcp serve: stopped: the connection failed" "serve with stdout closed: said so"

timeout 10 "$MCP" call echo '{"text":"in closed"}' -- "$MCP" serve <&- >"$WORK/out" 2>"$WORK/err"
code "call with stdin closed" 0
contains "$WORK/out" "in closed" "call with stdin closed prints the result"

timeout 10 "$MCP" call echo '{"text":"err closed"}' -- "$MCP" serve 2>&- >"$WORK/out"
code "call with stderr closed" 0
contains "$WORK/out" "err closed" "call with stderr closed prints the result"

timeout 10 "$MCP" tools -- "$MCP" serve <&- >"$WORK/out" 2>"$WORK/err"
code "tools with stdin closed" 0
contains "$WORK/out" "add_tool" "tools with stdin closed lists"

timeout 10 "$MCP" watch --timeout 5 -- "$MCP" serve <&- >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" "listening for: tools" 10
kill -INT "$watch"
wait "$watch"
code "watch with stdin closed, then Ctrl-C" 130
