#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp check-cancel --client: the checker plays a 2025-11-25 stdio server
# (and a 2026-07-28 one) to clients of known behaviour: ours (mcp call --timeout 1: it cancels a
# call that timed out, never initialize), a client broken one way per
# verdict (cancel_broken_client.py, and its correct mode, which also
# cancels a task with tasks/cancel), and the TypeScript SDK v1 client,
# which cancels initialize when its connect times out (typescript-sdk
# #998): a FAIL nobody here wrote.
#
#   test_check_cancel_client.sh MCP NODE INTEROP_DIR
. "$(dirname "$0")/lib.sh"
MCP=$1
NODE=$2
INTEROP=$3
CLIENT="$(dirname "$0")/cancel_broken_client.py"
requires python3

verdict() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([c["verdict"] for c in d["checks"] if c["id"] == sys.argv[2]][0])' "$WORK/out" "$1"
}
is() {
    got=$(verdict "$1")
    [ "$got" = "$2" ] || { cat "$WORK/out" "$WORK/err"; fail "$3: $1 is $got, expected $2"; }
    echo "ok: $3: $1 $2"
}

# mcp call: its --timeout covers the connect too; the task scenario has
# nothing to judge (it makes no task unless --task).
expect_exit 0 "mcp call passes" -- $MCP_WRAP "$MCP" check-cancel --client --json --wait 10 -- \
    "$MCP" call --timeout 1 slow '{}' --
is timeout.sends-cancel PASS "mcp call"
is timeout.late-ignored PASS "mcp call"
is initialize.not-cancelled PASS "mcp call"
is task.tasks-cancel SKIP "mcp call"

# mcp call --task: past --max-time the task is cancelled with tasks/cancel.
"$MCP" check-cancel --client --json --wait 10 -- "$MCP" call --task --max-time 2 slow '{}' -- \
    >"$WORK/out" 2>"$WORK/err"
is task.tasks-cancel PASS "mcp call --task"

expect_exit 0 "a correct client passes" -- $MCP_WRAP "$MCP" check-cancel --client --json --wait 10 -- \
    python3 "$CLIENT" good
# 5000 pings first: every one answered, the call and its cancel still
# judged (the checker had stopped reading at 4096 messages).
expect_exit 0 "a chatty correct client passes" -- $MCP_WRAP "$MCP" check-cancel --client --json \
    --wait 20 -- python3 "$CLIENT" chatty
is timeout.sends-cancel PASS "chatty"
is timeout.sends-cancel PASS "good"
is timeout.late-ignored PASS "good"
is initialize.not-cancelled PASS "good"
is task.tasks-cancel PASS "good"

expect_exit 0 "a client that gives up silently (a SHOULD)" -- \
    $MCP_WRAP "$MCP" check-cancel --client --json --wait 10 -- python3 "$CLIENT" silent
is timeout.sends-cancel WARN "silent"
expect_exit 1 "... which --strict fails" -- \
    $MCP_WRAP "$MCP" check-cancel --client --json --strict --wait 10 -- python3 "$CLIENT" silent

expect_exit 1 "a cancel naming the id as a string" -- \
    $MCP_WRAP "$MCP" check-cancel --client --json --wait 10 -- python3 "$CLIENT" string-id
is timeout.sends-cancel FAIL "string-id"

expect_exit 0 "a client that answers the late response (a SHOULD)" -- \
    $MCP_WRAP "$MCP" check-cancel --client --json --wait 10 -- python3 "$CLIENT" answers-late
is timeout.late-ignored WARN "answers-late"

expect_exit 1 "a client that cancels initialize" -- \
    $MCP_WRAP "$MCP" check-cancel --client --json --wait 10 -- python3 "$CLIENT" cancels-init
is initialize.not-cancelled FAIL "cancels-init"

expect_exit 1 "a client that cancels a task with notifications/cancelled" -- \
    $MCP_WRAP "$MCP" check-cancel --client --json --wait 10 -- python3 "$CLIENT" task-notif
is task.tasks-cancel FAIL "task-notif"

# The table on a terminal's stead: every scenario named, the rule too.
expect_exit 1 "the table" -- $MCP_WRAP "$MCP" check-cancel --client --wait 10 -- \
    python3 "$CLIENT" cancels-init
contains "$WORK/out" "initialize.not-cancelled" "the check named"
contains "$WORK/out" "MUST NOT be cancelled" "the rule named"

# Usage and hostile clients.
expect_exit 2 "--client without a command" -- $MCP_WRAP "$MCP" check-cancel --client
expect_exit 2 "--client with --url" -- $MCP_WRAP "$MCP" check-cancel --client --url http://127.0.0.1:1/mcp -- true
expect_exit 2 "a client that cannot be started" -- $MCP_WRAP "$MCP" check-cancel --client --wait 2 -- \
    "$WORK/no-such-client"
expect_exit 3 "a client that never starts the server" -- $MCP_WRAP "$MCP" check-cancel --client --wait 2 -- \
    sleep 30
expect_exit 3 "a client that exits at once" -- $MCP_WRAP "$MCP" check-cancel --client --wait 2 -- true

# --protocol 2026-07-28: the played server answers server/discover, knows
# no initialize, and makes tasks as the extension says. mcp call passes;
# the broken client's modern- modes go both ways.
expect_exit 0 "mcp call passes (2026-07-28)" -- $MCP_WRAP "$MCP" check-cancel --client --json \
    --protocol 2026-07-28 --wait 10 -- "$MCP" call --protocol 2026-07-28 --timeout 1 slow '{}' --
is timeout.sends-cancel PASS "mcp call (2026-07-28)"
is timeout.late-ignored PASS "mcp call (2026-07-28)"
grep -q '"initialize.not-cancelled"' "$WORK/out" && fail "2026-07-28 has no initialize to judge"
"$MCP" check-cancel --client --json --protocol 2026-07-28 --wait 10 -- \
    "$MCP" call --protocol 2026-07-28 --task --max-time 2 slow '{}' -- >"$WORK/out" 2>"$WORK/err"
is task.tasks-cancel PASS "mcp call --task (2026-07-28)"
expect_exit 0 "a correct client passes (2026-07-28)" -- $MCP_WRAP "$MCP" check-cancel --client \
    --json --protocol 2026-07-28 --wait 10 -- python3 "$CLIENT" modern-good
is timeout.sends-cancel PASS "modern-good"
is task.tasks-cancel PASS "modern-good"
expect_exit 1 "a task cancelled with notifications/cancelled fails (2026-07-28)" -- \
    $MCP_WRAP "$MCP" check-cancel --client --json --protocol 2026-07-28 --wait 10 -- \
    python3 "$CLIENT" modern-task-notif
is task.tasks-cancel FAIL "modern-task-notif"
expect_exit 1 "a cancel naming \"1\" for 1 fails (2026-07-28)" -- \
    $MCP_WRAP "$MCP" check-cancel --client --json --protocol 2026-07-28 --wait 10 -- \
    python3 "$CLIENT" modern-string-id
is timeout.sends-cancel FAIL "modern-string-id"
expect_exit 2 "--client takes no other revision" -- $MCP_WRAP "$MCP" check-cancel --client \
    --protocol 2025-06-18 -- true

# The TypeScript SDK v1 client: a cancel on a call's timeout, and one for
# initialize too (#998).
if [ -x "$NODE" ] && [ -d "$INTEROP/node_modules/@modelcontextprotocol/sdk" ]; then
    expect_exit 1 "the TypeScript SDK v1 client" -- $MCP_WRAP "$MCP" check-cancel --client --json \
        --wait 15 -- "$NODE" "$INTEROP/ts_timeout_client.mjs"
    is timeout.sends-cancel PASS "TypeScript SDK v1"
    is initialize.not-cancelled FAIL "TypeScript SDK v1"
    is task.tasks-cancel SKIP "TypeScript SDK v1"
    # The TypeScript SDK v2 client against a played 2026-07-28 server.
    expect_exit 0 "the TypeScript SDK v2 client (2026-07-28)" -- $MCP_WRAP "$MCP" check-cancel \
        --client --json --protocol 2026-07-28 --wait 15 -- "$NODE" "$INTEROP/ts2_timeout_client.mjs"
    is timeout.sends-cancel PASS "TypeScript SDK v2"
    is timeout.late-ignored PASS "TypeScript SDK v2"
else
    missing "no pinned Node and TypeScript SDK (make interop-deps)"
fi
echo "check-cancel --client: all checks passed"
