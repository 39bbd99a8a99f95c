#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp call --task and mcp tasks against hostile servers (attack-c pass):
# task_hostile_server.py abuses our task calls, receiver_hostile_server.py
# our task receiver (the mcp command hosts the server's questions as
# tasks). $1: the mcp binary. $MCP_WRAP runs each mcp under a checker.
. "$(dirname "$0")/lib.sh"
requires python3
MCP=$1
export POLLS_TO_DONE=30
TS="$(dirname "$0")/task_hostile_server.py"
RS="$(dirname "$0")/receiver_hostile_server.py"

# The requestor side.
for era in 25 26; do
    # An empty taskId is the server's fault, never "out of memory".
    expect_exit 3 "an empty taskId ($era)" -- $MCP_WRAP "$MCP" call --task --timeout 5 job -- \
        python3 "$TS" $era emptyid
    lacks "$WORK/err" "out of memory" "an empty taskId is no shortage of memory ($era)"
    contains "$WORK/err" "protocol violation" "an empty taskId is a protocol violation ($era)"
    # A pollInterval of 0: polled at most every 10 ms, not in a busy loop.
    expect_exit 0 "pollInterval 0 ($era)" -- $MCP_WRAP "$MCP" call --task \
        --timeout 5 job -- python3 "$TS" $era poll 0
    # Nonsense intervals: the default second (two polls in 1.5 s, not 150).
    expect_exit 4 "pollInterval -5 ($era)" -- $MCP_WRAP "$MCP" call --task --max-time 1.5 job -- \
        python3 "$TS" $era poll -5
    [ "$(grep -c '^polls' "$WORK/err")" -le 3 ] || fail "a negative pollInterval is the default ($era)"
    # A server that exits mid-poll, one that never answers tasks/get.
    expect_exit 3 "the server exits mid-poll ($era)" -- $MCP_WRAP "$MCP" call --task job -- \
        python3 "$TS" $era closeget
    contains "$WORK/err" "the server exited" "the server's exit is said ($era)"
    expect_exit 4 "tasks/get never answered ($era)" -- $MCP_WRAP "$MCP" call --task --timeout 1 \
        job -- python3 "$TS" $era silentget
done
# A task id of 300 bytes is shown and named back, as any other.
expect_exit 4 "a 300-byte task id" -- $MCP_WRAP "$MCP" call --task --max-time 2 job -- \
    python3 "$TS" 25 hugeid 300
grep -Eq '^task x{300}: working' "$WORK/err" || fail "a 300-byte task id is shown whole"
echo "ok: a 300-byte task id is shown"
# 2026: another task's result is not our call's.
expect_exit 3 "tasks/get about another task (26)" -- $MCP_WRAP "$MCP" call --task --timeout 5 \
    job -- python3 "$TS" 26 otherid
lacks "$WORK/out" "someone else's" "another task's result is not printed"
# 2026: -32021 naming the extension: sent again as a task, once.
expect_exit 3 "-32021 every time (26)" -- $MCP_WRAP "$MCP" call --timeout 5 job -- \
    python3 "$TS" 26 refuse_always
[ "$(grep -c '"method":"tools/call"' "$WORK/err")" -eq 2 ] || fail "-32021: sent again once"

# mcp tasks list: a cursor that comes back would never end.
expect_exit 3 "tasks list with a cursor that repeats" -- $MCP_WRAP "$MCP" tasks list -- \
    python3 "$TS" 25 listloop
contains "$WORK/err" "cursor" "a repeated cursor is said"
[ "$(grep -c 'task-1' "$WORK/out")" -le 2 ] || fail "a repeated cursor is not followed"

# The receiver side: at most 64 tasks; 8 waiting tasks/result per task;
# tasks/cancel twice; the server gone while the application holds the
# question.
expect_exit 0 "70 task-augmented elicitations" -- $MCP_WRAP "$MCP" call --timeout 20 job -- \
    python3 "$RS" flood 70
contains "$WORK/out" "created 64" "64 tasks made"
contains "$WORK/out" "refused 6" "the rest refused"
expect_exit 0 "10 tasks/result on one task" -- $MCP_WRAP "$MCP" call --timeout 20 \
    --sampling-command 'sleep 1; echo hello' job -- python3 "$RS" waiters 10
contains "$WORK/out" "2 x error -32603 Too many tasks/result requests" "2 refused"
contains "$WORK/out" "8 x result" "8 answered"
expect_exit 0 "tasks/cancel twice" -- $MCP_WRAP "$MCP" call --timeout 20 \
    --sampling-command 'sleep 1; echo hello' job -- python3 "$RS" cancel2
contains "$WORK/out" "cancel2: error -32602" "the second cancel is refused"
expect_exit 3 "the server exits while the question is held" -- $MCP_WRAP "$MCP" call \
    --timeout 20 --sampling-command 'sleep 30; echo hello' job -- python3 "$RS" closeheld
echo "test_tasks_attack_cli: all passed"
