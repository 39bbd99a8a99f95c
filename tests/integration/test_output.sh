#!/bin/sh
# SPDX-License-Identifier: MIT
# Output that cannot be written is a failure, never a silent success: a full
# disk (/dev/full), a closed stdout, a reader that goes away. The client
# commands say "cannot write the output" and exit 1; watch stops at once
# (and cancels its subscription on the wire); serve exits 3.
. "$(dirname "$0")/lib.sh"
MCP=$1
[ -w /dev/full ] || missing "no writable /dev/full"

# full DESCRIPTION -- command...: into /dev/full, exit 1, said why.
full() {
    what=$1
    shift 2
    timeout 20 "$@" >/dev/full 2>"$WORK/err"
    got=$?
    [ "$got" -eq 1 ] || { cat "$WORK/err"; fail "$what into a full disk: exit $got, expected 1"; }
    contains "$WORK/err" "mcp: cannot write the output: No space left on device" "$what: said why"
    echo "ok: $what into a full disk (exit 1)"
}
full "call" -- "$MCP" call echo '{"text":"a"}' -- "$MCP" serve
full "call --json" -- "$MCP" call --json echo '{"text":"a"}' -- "$MCP" serve
full "call with a tool error" -- "$MCP" call fail '{"message":"x"}' -- "$MCP" serve
full "tools" -- "$MCP" tools -- "$MCP" serve
full "tools --json" -- "$MCP" tools --json -- "$MCP" serve
full "--version" -- "$MCP" --version
full "--help" -- "$MCP" --help
full "call --help" -- "$MCP" call --help

timeout 20 "$MCP" call echo '{"text":"a"}' -- "$MCP" serve >&- 2>"$WORK/err"
got=$?
[ "$got" -eq 1 ] || { cat "$WORK/err"; fail "call with stdout closed: exit $got, expected 1"; }
contains "$WORK/err" "mcp: cannot write the output: Bad file descriptor" "stdout closed: said why"
echo "ok: call with stdout closed (exit 1)"

# A reader that stops reading (a full pipe) blocks the result's output: a
# signal still ends the call at once (it waited for the reader).
TEXT=$(head -c 100000 /dev/zero | tr '\0' x)
mkfifo "$WORK/fifo"
"$MCP" call echo "{\"text\":\"$TEXT\"}" -- "$MCP" serve >"$WORK/fifo" 2>"$WORK/err" &
call=$!
exec 7<"$WORK/fifo" # opened, never read
sleep 1
kill -TERM "$call"
i=0
while running "$call"; do
    i=$((i + 1))
    [ $i -le 100 ] || { exec 7<&-; cat "$WORK/err"; fail "SIGTERM with the output blocked: still running after 5 s"; }
    sleep 0.05
done
exec 7<&-
wait "$call"
got=$?
[ "$got" -eq 143 ] || { cat "$WORK/err"; fail "SIGTERM with the output blocked: exit $got, expected 143"; }
echo "ok: SIGTERM ends a call whose output is blocked (exit 143)"

# watch into a full disk: the first notification fails; the subscription is
# cancelled with the reason.
MCP_LOG_LEVEL=debug "$MCP" watch --trace -- "$MCP" serve >/dev/full 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" 'listening for: tools' 10
server=$(sed -n 's/.*serving [0-9]* tool(s), pid \([0-9]*\).*/\1/p' "$WORK/err" | head -n 1)
kill -USR1 "$server"
wait "$watch"
got=$?
[ "$got" -eq 1 ] || { cat "$WORK/err"; fail "watch into a full disk: exit $got, expected 1"; }
contains "$WORK/err" "mcp: cannot write the output: No space left on device" "watch said why"
contains "$WORK/err" '"method":"notifications/cancelled","params":{"requestId":2,"reason":"the output could not be written"}' "watch cancelled its subscription"
echo "ok: watch into a full disk stops (exit 1)"

# watch whose reader goes away before anything was printed: it stops at
# once, not at the next notification (here: never).
start=$(date +%s)
{ timeout 20 "$MCP" watch -- "$MCP" serve 2>"$WORK/err"; echo $? >"$WORK/rc"; } | true
got=$(cat "$WORK/rc")
[ "$got" -eq 1 ] || { cat "$WORK/err"; fail "watch whose reader went away: exit $got, expected 1"; }
[ $(($(date +%s) - start)) -lt 10 ] || fail "watch noticed its reader was gone only after 10 s"
contains "$WORK/err" "mcp: cannot write the output: its reader went away" "watch said why"
echo "ok: watch stops when its reader goes away (exit 1)"

# serve: the reply cannot be written (a full disk; a reader that goes away
# after one byte of 200 replies).
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
(printf '%s\n' "$INIT"; sleep 0.3) | timeout 20 "$MCP" serve >/dev/full 2>"$WORK/err"
got=$?
[ "$got" -eq 3 ] || { cat "$WORK/err"; fail "serve into a full disk: exit $got, expected 3"; }
contains "$WORK/err" "mcp serve: stopped: the connection failed" "serve said why"
echo "ok: serve into a full disk (exit 3)"
{
    printf '%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    i=1
    while [ $i -le 200 ]; do
        printf '{"jsonrpc":"2.0","id":%d,"method":"tools/list"}\n' $i
        i=$((i + 1))
    done
} >"$WORK/in"
{ timeout 20 "$MCP" serve <"$WORK/in" 2>"$WORK/err"; echo $? >"$WORK/rc"; } | head -c 1 >/dev/null
got=$(cat "$WORK/rc")
[ "$got" -eq 3 ] || { cat "$WORK/err"; fail "serve whose reader went away: exit $got, expected 3"; }
contains "$WORK/err" "mcp serve: stopped: the connection failed" "serve said why"
echo "ok: serve whose reader goes away (exit 3)"
