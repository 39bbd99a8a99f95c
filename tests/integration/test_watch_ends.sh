#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp watch does not wait forever for what will never come: a subscription
# the server does not acknowledge (no ack, an ack naming another
# subscription, an ack naming none) gives up after --timeout (exit 4); one
# that offers none of what was asked for ends at once (exit 3); one the
# server refuses shows the server's message and code (exit 3). An
# acknowledged subscription outlives --timeout.
. "$(dirname "$0")/lib.sh"
MCP=$1
HOSTILE="$(dirname "$0")/hostile_server.py"
requires python3

for mode in noack ack_wrongid ack_noid; do
    start=$(date +%s)
    expect_exit 4 "not acknowledged ($mode)" -- \
        timeout 30 "$MCP" watch --trace --timeout 1 -- python3 "$HOSTILE" $mode
    [ $(($(date +%s) - start)) -lt 10 ] || fail "$mode: --timeout 1 took over 10 s"
    contains "$WORK/err" "mcp: the server did not acknowledge the subscription within 1 s" "$mode: said why"
    contains "$WORK/err" '-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"not acknowledged within 1 s"}}' "$mode: cancelled on the wire"
done

# Acknowledged: --timeout no longer applies (it bounds the wait for the ack).
"$MCP" watch --timeout 0.5 -- "$MCP" serve >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" "listening for: tools" 10
sleep 1.5
running "$watch" || { cat "$WORK/err"; fail "an acknowledged watch ended after --timeout"; }
kill -INT "$watch"
wait "$watch"
code=$?
[ "$code" -eq 130 ] || fail "Ctrl-C after the acknowledgment: exit $code, expected 130"
echo "ok: an acknowledged subscription outlives --timeout"

# Nothing asked for is offered (mcp serve has no prompts or resources).
for f in --prompts --resources "--prompts --resources"; do
    start=$(date +%s)
    expect_exit 3 "nothing offered ($f)" -- timeout 30 "$MCP" watch --trace $f -- "$MCP" serve
    [ $(($(date +%s) - start)) -lt 10 ] || fail "$f: took over 10 s"
    contains "$WORK/err" "mcp: the server offers none of the notifications asked for" "$f: said why"
    contains "$WORK/err" '"reason":"none of the notifications asked for is offered"' "$f: cancelled on the wire"
done

# The same against a 2025 server, which has no subscriptions: its declared
# capabilities say what it can send (mcp serve: tools list changes only).
for f in --prompts --resources "--resource file:///x"; do
    start=$(date +%s)
    expect_exit 3 "nothing offered under 2025 ($f)" -- \
        timeout 30 "$MCP" watch --protocol 2025-11-25 $f -- "$MCP" serve
    [ $(($(date +%s) - start)) -lt 10 ] || fail "2025 $f: took over 10 s"
    contains "$WORK/err" "mcp: the server (2025-11-25) offers none of the notifications asked for" "2025 $f: said why"
done
"$MCP" watch --protocol 2025-11-25 --tools --prompts -- "$MCP" serve >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" "printing its list changes: tools" 10
lacks "$WORK/err" "printing its list changes: tools prompts" "2025: prompts are not offered"
kill -INT "$watch"
wait "$watch"
echo "ok: under 2025 too, nothing offered ends the watch; what is offered is watched"

# Acknowledged with only what was not asked for (tools list changes, for a
# --resource): nothing will come, the watch ends (it listened for tools,
# forever).
start=$(date +%s)
expect_exit 3 "acknowledged for something else" -- \
    timeout 30 "$MCP" watch --resource file:///a -- python3 "$HOSTILE" ack_other
[ $(($(date +%s) - start)) -lt 10 ] || fail "acknowledged for something else: took over 10 s"
contains "$WORK/err" "mcp: the server offers none of the notifications asked for" "said why"
lacks "$WORK/err" "listening for: tools" "tools were not asked for"

# Refused with a JSON-RPC error: its message and code.
expect_exit 3 "refused" -- timeout 30 "$MCP" watch -- python3 "$HOSTILE" listen_err
contains "$WORK/err" "mcp: subscriptions/listen failed: no such subscription " "the server's message"
contains "$WORK/err" "(JSON-RPC error -32602)" "the server's code"

# A server that dies after every acknowledgment: started again with a growing
# pause (0, 1, 2, 4, 8 s), then given up; never a loop.
start=$(date +%s)
expect_exit 3 "a crash loop" -- timeout 60 "$MCP" watch -- python3 "$HOSTILE" ack_exit
took=$(($(date +%s) - start))
[ "$took" -ge 14 ] && [ "$took" -lt 40 ] || fail "a crash loop given up after $took s, expected 15"
[ "$(grep -c "listening for: tools" "$WORK/err")" -eq 6 ] || { cat "$WORK/err"; fail "a crash loop: not 6 subscriptions (the first, 5 again)"; }
contains "$WORK/err" "trying again in 8 s" "the pause grew"
contains "$WORK/err" "mcp: 5 attempts in a row to start the server again; giving up" "said why"
echo "ok: a crash loop is given up after 5 attempts with a growing pause"

# A signal while mcp waits on a blocking step (a 2025 server's
# resources/subscribe never answered; a server started again that never
# finishes connecting) ends the watch at once, not when the step times out
# (60 s, 30 s).
for sig in INT TERM; do
    want=130
    [ $sig = TERM ] && want=143
    : >"$WORK/err" # not the previous run's log for wait_for
    "$MCP" watch --resource file:///a -- python3 "$HOSTILE" subscribe_silent \
        >"$WORK/out" 2>"$WORK/err" &
    watch=$!
    wait_for "$WORK/err" '"method":"resources/subscribe"' 10
    start=$(date +%s)
    kill -$sig "$watch"
    wait "$watch"
    code=$?
    [ "$code" -eq $want ] || { cat "$WORK/err"; fail "SIG$sig during resources/subscribe: exit $code, expected $want"; }
    [ $(($(date +%s) - start)) -lt 5 ] || fail "SIG$sig during resources/subscribe: took over 5 s"
    echo "ok: SIG$sig while resources/subscribe waits ends the watch at once"
done
rm -f "$WORK/started"
"$MCP" watch -- python3 "$HOSTILE" hang_restart "$WORK/started" >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" "starting it again" 10
sleep 0.5
start=$(date +%s)
kill -INT "$watch"
wait "$watch"
code=$?
[ "$code" -eq 130 ] || { cat "$WORK/err"; fail "Ctrl-C while starting the server again: exit $code, expected 130"; }
[ $(($(date +%s) - start)) -lt 5 ] || fail "Ctrl-C while starting the server again: took over 5 s"
lacks "$WORK/err" "did not finish connecting" "the connect was not waited for"
echo "ok: Ctrl-C while the server is started again ends the watch at once"

# A reader that stops reading (a full pipe) blocks the output: Ctrl-C
# still ends the watch at once (it was ignored, the second too, until the
# reader went away).
mkfifo "$WORK/fifo"
"$MCP" watch --tools -- python3 "$HOSTILE" list_flood >"$WORK/fifo" 2>"$WORK/err" &
watch=$!
exec 7<"$WORK/fifo" # opened, never read
sleep 2
start=$(date +%s)
kill -INT "$watch"
i=0
while running "$watch"; do
    i=$((i + 1))
    [ $i -le 100 ] || { exec 7<&-; cat "$WORK/err"; fail "Ctrl-C with the output blocked: still running after 5 s"; }
    sleep 0.05
done
exec 7<&-
wait "$watch"
code=$?
[ "$code" -eq 130 ] || { cat "$WORK/err"; fail "Ctrl-C with the output blocked: exit $code, expected 130"; }
echo "ok: Ctrl-C ends a watch whose output is blocked"

# A 2025 server that dies while resources/subscribe waits has gone away, as
# any other: started again and subscribed again (the watch ended, exit 3,
# as if the subscription were refused).
rm -f "$WORK/started"
"$MCP" watch --resource file:///a -- python3 "$HOSTILE" subscribe_dies "$WORK/started" \
    >"$WORK/out" 2>"$WORK/err" &
watch=$!
i=0
while ! grep -qF "resources/updated file:///a" "$WORK/out" 2>/dev/null; do
    i=$((i + 1))
    running "$watch" || { cat "$WORK/err"; fail "the watch ended when the server died in resources/subscribe"; }
    [ $i -le 200 ] || { cat "$WORK/err"; fail "waited 10 s for the update after the restart"; }
    sleep 0.05
done
contains "$WORK/err" "starting it again" "the server was started again"
kill -INT "$watch"
wait "$watch"
echo "ok: a 2025 server dying in resources/subscribe is started again"

# A 2025 server's restarts count afresh once it has lived 30 s, as a 2026
# server's do after its acknowledgment (they added up over the whole watch:
# a server crashing once a day was given up after 5 days). Here 4 quick
# crashes (pauses 0, 1, 2, 4 s), 31 s up, then a crash: a new outage, started
# again at once (it was the 5th attempt in a row, after a pause of 8 s).
rm -f "$WORK/started"
"$MCP" watch --protocol 2025-11-25 -- python3 "$HOSTILE" legacy_crashes "$WORK/started" \
    >"$WORK/out" 2>"$WORK/err" &
watch=$!
i=0
while [ "$(cat "$WORK/started" 2>/dev/null | wc -l)" -lt 6 ]; do
    i=$((i + 1))
    running "$watch" || { cat "$WORK/err"; fail "a 2025 server up for 31 s: its next crash was given up"; }
    [ $i -le 1200 ] || { cat "$WORK/err"; fail "waited 60 s for the 6th start"; }
    sleep 0.05
done
kill -INT "$watch"
wait "$watch"
lacks "$WORK/err" "trying again in 8 s" "the count started afresh"
echo "ok: a 2025 server's restarts count afresh after 30 s"
