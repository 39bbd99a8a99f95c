#!/bin/sh
# SPDX-License-Identifier: MIT
# A signal that makes mcp exit at once (a second Ctrl-C or SIGTERM; one
# while connecting, while the server is being stopped, or during mcp tools)
# kills the server it started: a server that ignores the end of its input
# and SIGTERM is not left running.
. "$(dirname "$0")/lib.sh"
requires python3
MCP=$1
FAKE=$2
HOSTILE="$(dirname "$0")/hostile_server.py"

# Each mcp started in the background writes a new $WORK/err, removed first:
# the shell may not have truncated it yet when wait_for reads it, and the
# last run's lines would match (a signal then came before mcp was ready).

# pid_in FILE NAME: the pid the server logged ("NAME pid N").
pid_in() {
    sed -n "s/^$2 pid \([0-9]*\)$/\1/p" "$1" | tail -n 1
}

# gone PID WHAT: the server is gone within 3 s (killed now and then).
gone() {
    i=0
    while running "$1"; do
        i=$((i + 1))
        [ "$i" -le 60 ] || { kill -KILL "$1"; fail "$2: the server (pid $1) was left running"; }
        sleep 0.05
    done
    echo "ok: $2: the server is gone"
}

# exited PID WANT WHAT: mcp exited with WANT.
exited() {
    wait "$1"
    got=$?
    [ "$got" -eq "$2" ] || { cat "$WORK/err"; fail "$3: exit $got, expected $2"; }
}

# A second signal while the cancelled call waits for the server to stop.
for sig in INT TERM; do
    want=130
    [ $sig = TERM ] && want=143
    rm -f "$WORK/err"
    "$MCP" call --timeout 100 echo '{}' -- "$FAKE" hang >"$WORK/out" 2>"$WORK/err" &
    mcp=$!
    wait_for "$WORK/err" '"method":"tools/call"' 10
    server=$(pid_in "$WORK/err" fake_server)
    kill -$sig "$mcp"
    wait_for "$WORK/err" "cancelling echo (request" 10
    sleep 0.1
    kill -$sig "$mcp"
    exited "$mcp" $want "call, two SIG$sig"
    gone "$server" "call, two SIG$sig"
done

# One signal while connecting (a server that never answers): nothing to
# cancel yet, so mcp exits at once.
rm -f "$WORK/err"
"$MCP" call --timeout 100 echo '{}' -- sh -c 'trap "" TERM; echo "stubborn pid $$" >&2; exec sleep 1000' \
    >"$WORK/out" 2>"$WORK/err" &
mcp=$!
wait_for "$WORK/err" "stubborn pid" 10
server=$(pid_in "$WORK/err" stubborn)
sleep 0.2
kill -TERM "$mcp"
exited "$mcp" 143 "call, SIGTERM while connecting"
gone "$server" "call, SIGTERM while connecting"

# One signal while the server is being stopped after the call (end of its
# input, wait, SIGTERM, wait, SIGKILL: seconds with this server).
rm -f "$WORK/err"
"$MCP" call echo '{}' -- "$FAKE" linger >"$WORK/out" 2>"$WORK/err" &
mcp=$!
wait_for "$WORK/out" "late answer" 10
server=$(pid_in "$WORK/err" fake_server)
sleep 0.3
kill -INT "$mcp"
exited "$mcp" 130 "call, SIGINT while stopping the server"
gone "$server" "call, SIGINT while stopping the server"

# mcp tools: nothing to cancel; a signal ends it at once.
rm -f "$WORK/err"
"$MCP" tools --timeout 100 -- "$FAKE" hang >"$WORK/out" 2>"$WORK/err" &
mcp=$!
wait_for "$WORK/err" '"method":"tools/list"' 10
server=$(pid_in "$WORK/err" fake_server)
kill -INT "$mcp"
exited "$mcp" 130 "tools, SIGINT"
gone "$server" "tools, SIGINT"

# mcp watch, a legacy server: the second signal while it stops the server.
rm -f "$WORK/err"
"$MCP" watch -- "$FAKE" hang >"$WORK/out" 2>"$WORK/err" &
mcp=$!
wait_for "$WORK/err" "printing its list changes" 10
server=$(pid_in "$WORK/err" fake_server)
kill -INT "$mcp"
sleep 0.3
kill -INT "$mcp"
exited "$mcp" 130 "watch, two SIGINT"
gone "$server" "watch, two SIGINT"

# mcp watch after a restart: the new server is the one killed.
rm -f "$WORK/err"
"$MCP" watch -- python3 "$HOSTILE" stubborn >"$WORK/out" 2>"$WORK/err" &
mcp=$!
wait_for "$WORK/err" "listening for:" 10
first=$(pid_in "$WORK/err" hostile_server)
kill -KILL "$first"
wait_for "$WORK/err" "starting it again" 10
wait_count "$WORK/err" 'listening for:' 2 10
server=$(pid_in "$WORK/err" hostile_server)
[ "$server" != "$first" ] || fail "the server was not started again"
kill -TERM "$mcp"
wait_for "$WORK/err" "cancelling the subscription..." 10
sleep 0.3
kill -TERM "$mcp"
exited "$mcp" 143 "watch after a restart, two SIGTERM"
gone "$server" "watch after a restart, two SIGTERM"
