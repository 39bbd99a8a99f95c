#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp check-cancel against servers of known behaviour: ours (mcp serve:
# every check passes, exit 0) and one broken way each
# (cancel_broken_server.py), each verdict shown able to go both ways; then
# servers nobody here wrote: the TypeScript SDK v1 (a tool of the interop
# tests written to answer after a cancel: the SDK sends it) and
# @modelcontextprotocol/server-everything (its long operation goes on
# reporting progress after a cancel). Tasks (2025-11-25) likewise: mcp
# serve, a broken server per MUST, the TypeScript SDK v1 experimental tasks.
#
#   test_check_cancel.sh MCP NODE INTEROP_DIR
. "$(dirname "$0")/lib.sh"
MCP=$1
NODE=$2
INTEROP=$3
BROKEN="$(dirname "$0")/cancel_broken_server.py"
requires python3

# verdict ID: the verdict of check ID in $WORK/out (--json).
verdict() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([c["verdict"] for c in d["checks"] if c["id"] == sys.argv[2]][0])' "$WORK/out" "$1"
}
is() {
    got=$(verdict "$1")
    [ "$got" = "$2" ] || { cat "$WORK/out"; fail "$3: $1 is $got, expected $2"; }
    echo "ok: $3: $1 $2"
}

expect_exit 0 "mcp serve passes" -- $MCP_WRAP "$MCP" check-cancel --json --trials 3 -- "$MCP" serve
for c in cancel.stops-response cancel.stops-progress cancel.usable-after cancel.id-type \
    progress.only-with-token progress.increases cancel.ignored-no-reply cancel.ignored-usable; do
    is $c PASS "mcp serve"
done

# 2025-11-25 (mcp serve speaks 2026-07-28 first): its tasks too.
expect_exit 0 "mcp serve passes at 2025-11-25" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --protocol 2025-11-25 -- "$MCP" serve
for c in task.created task.cancel-answer task.cancelled-sticks task.terminal-refused \
    task.unknown-refused; do
    is $c PASS "mcp serve"
done

expect_exit 0 "a correct server passes" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" correct
is cancel.stops-progress PASS "correct"
is cancel.id-type PASS "correct"
is task.cancelled-sticks PASS "correct"
is task.terminal-refused PASS "correct"

# Listens (2026-07-28): opened, then cancelled; the correct one is ended by
# the cancel (its notifications every 200 ms stop), each broken one fails
# or warns once.
expect_exit 0 "mcp serve's listen" -- $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- "$MCP" serve
for c in listen.acknowledged-first listen.cancel-ends listen.server-cancel listen.usable-after; do
    is $c PASS "mcp serve"
done
for c in task.created task.cancel-ack task.unknown-refused; do
    is $c PASS "mcp serve, the tasks extension (2026-07-28)"
done
expect_exit 0 "a correct listen" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" listen-correct
is listen.acknowledged-first PASS "listen-correct"
is listen.cancel-ends PASS "listen-correct"
is task.created SKIP "listen-correct (no tasks extension)"
expect_exit 0 "a listen that goes on after its cancel warns (a SHOULD)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" listen-ignores-cancel
is listen.cancel-ends WARN "listen-ignores-cancel"
expect_exit 1 "a listen not acknowledged first fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" listen-no-ack
is listen.acknowledged-first FAIL "listen-no-ack"
expect_exit 1 "a server cancel naming anything but a listen fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" listen-cancels-others
is listen.server-cancel FAIL "listen-cancels-others"
is listen.cancel-ends PASS "listen-cancels-others"

# The tasks extension (2026-07-28): tasks/cancel acknowledged, an unknown
# task refused.
expect_exit 1 "the extension's tasks/cancel answered with an error fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" ext-cancel-error
is task.created PASS "ext-cancel-error"
is task.cancel-ack FAIL "ext-cancel-error"
is task.unknown-refused PASS "ext-cancel-error"
expect_exit 0 "the extension's unknown task acknowledged warns (a SHOULD)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" ext-unknown-ok
is task.cancel-ack PASS "ext-unknown-ok"
is task.unknown-refused WARN "ext-unknown-ok"

# Tasks (2025-11-25): each MUST of tasks/cancel broken once.
expect_exit 1 "a cancelled task that completes fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" task-completes
is task.cancel-answer PASS "task-completes"
is task.cancelled-sticks FAIL "task-completes"
expect_exit 1 "tasks/cancel answered before the task is cancelled fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" task-cancel-late
is task.cancel-answer FAIL "task-cancel-late"
is task.cancelled-sticks PASS "task-cancel-late"
expect_exit 1 "tasks/cancel of a terminal or unknown task accepted fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" task-recancel
is task.terminal-refused FAIL "task-recancel"
is task.unknown-refused FAIL "task-recancel"
expect_exit 0 "a correct server with task ids of 1000 characters passes" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" task-long-id
is task.cancel-answer PASS "task-long-id"
is task.terminal-refused PASS "task-long-id"
# A server that floods: read no further than the checker's bounds, as if
# gone (it had kept every line: gigabytes).
expect_exit 3 "a server that writes without end" -- $MCP_WRAP "$MCP" check-cancel --json -- yes
contains "$WORK/err" "read no further" "the flood said"
# With --json, why is the report: CI reading stdout finds it.
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["exit"] == 3 and "read no further" in r["error"], r' \
    "$WORK/out" || fail "the flood's --json report"

expect_exit 0 "a server that ignores cancels only warns (SHOULDs)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" ignores-cancel
is task.created SKIP "ignores-cancel (a server without tasks)"
is cancel.stops-response WARN "ignores-cancel"
is cancel.stops-progress WARN "ignores-cancel"
expect_exit 1 "with --strict a warning fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --strict --trials 1 -- python3 "$BROKEN" ignores-cancel

expect_exit 1 "a server that answers cancels fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" answers-cancel
is cancel.ignored-no-reply FAIL "answers-cancel"

expect_exit 1 "a server that takes \"7\" for 7 fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" loose-ids
is cancel.id-type FAIL "loose-ids"

expect_exit 1 "a server whose progress goes down fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" backwards
is progress.increases FAIL "backwards"
is progress.only-with-token FAIL "backwards"

expect_exit 1 "a server that dies on a cancel fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- python3 "$BROKEN" dies-on-cancel
is cancel.usable-after FAIL "dies-on-cancel"

[ -x "$NODE" ] || missing "no pinned Node at $NODE (make interop-deps)"
EVERYTHING="$INTEROP/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -r "$EVERYTHING" ] || missing "no server-everything (make interop-deps)"
expect_exit 0 "server-everything: warnings only" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- "$NODE" "$EVERYTHING" stdio
is cancel.stops-progress WARN "server-everything (progress after the cancel)"
is cancel.stops-response PASS "server-everything"
is cancel.ignored-no-reply PASS "server-everything"
expect_exit 0 "the TypeScript SDK v1 server's late tool" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --tool late -- "$NODE" "$INTEROP/ts_server.mjs"
is cancel.stops-response WARN "TypeScript SDK v1, late (answers after the cancel)"
expect_exit 0 "the TypeScript SDK v1 server's progress tool" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --tool progress --args '{"steps":100}' -- \
    "$NODE" "$INTEROP/ts_server.mjs"
is cancel.stops-response PASS "TypeScript SDK v1, progress"
is progress.increases PASS "TypeScript SDK v1, progress"

# The TypeScript SDK v1's experimental tasks (its InMemoryTaskStore):
# forever runs as a task until cancelled.
expect_exit 0 "the TypeScript SDK v1 server's task" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --tool forever -- "$NODE" "$INTEROP/ts_task_server.mjs"
for c in task.created task.cancel-answer task.cancelled-sticks task.terminal-refused \
    task.unknown-refused; do
    is $c PASS "TypeScript SDK v1, a task"
done

# The checker ended by a signal ends its server first, even one that
# ignores SIGTERM and the end of its input (it outlived the checker).
STUBBORN_LOG="$WORK/stubborn.log"
"$MCP" check-cancel --tool hang -- python3 "$(dirname "$0")/gateway_child.py" "$STUBBORN_LOG" \
    stubborn >/dev/null 2>&1 &
CHECKER=$!
wait_for "$STUBBORN_LOG" "call hang" 20
kill -TERM "$CHECKER"
wait "$CHECKER" && fail "the checker exited 0 after SIGTERM"
gone_within "$(sed -n 's/^start //p' "$STUBBORN_LOG")" 5 "the server (the checker had SIGTERM)"
echo "ok: a server that ignores SIGTERM ends with the checker"

expect_exit 3 "a server that cannot start" -- $MCP_WRAP "$MCP" check-cancel -- /nonexistent/server
lacks "$WORK/out" "error" "no JSON without --json"
expect_exit 3 "a server that cannot start (--json)" -- \
    $MCP_WRAP "$MCP" check-cancel --json -- /nonexistent/server
# (Under valgrind the spawn forks before the exec fails: the server is
# then gone before it connects.)
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); e=r["error"]; assert r["exit"] == 3 and ("cannot start" in e or "did not connect" in e), r' \
    "$WORK/out" || fail "the --json report of a server that cannot start"
expect_exit 2 "no command" -- $MCP_WRAP "$MCP" check-cancel --json
expect_exit 2 "--args without --tool" -- $MCP_WRAP "$MCP" check-cancel --args '{}' -- "$MCP" serve
expect_exit 2 "a tool the server lacks" -- $MCP_WRAP "$MCP" check-cancel --tool nope -- "$MCP" serve
echo "PASS"
