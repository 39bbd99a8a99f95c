#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp check-cancel over Streamable HTTP and under 2026-07-28: against our
# own server (mcp serve --http, both eras; mcp serve on stdio under
# 2026-07-28), against a server broken one way per new verdict
# (cancel_broken_http_server.py), each verdict shown able to go both ways,
# against hostile ones (exit 3), and against servers nobody here wrote:
# the TypeScript SDK v1 (2025-11-25, sessions, an event store) and v2
# (2026-07-28, stateless) HTTP servers of the interop tests.
#
#   test_check_cancel_http.sh MCP NODE INTEROP_DIR
. "$(dirname "$0")/lib.sh"
MCP=$1
NODE=$2
INTEROP=$3
BROKEN="$(dirname "$0")/cancel_broken_http_server.py"
requires python3

PIDS=""
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$WORK"' EXIT

# serve NAME CMD...: CMD started in the background (stdout NAME.out, stderr
# NAME.err); PORT gets the port it says it listens on ("listening PORT" on
# stdout, or mcp serve's "listening on http://127.0.0.1:PORT/mcp").
serve() {
    name=$1
    shift
    "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    PIDS="$PIDS $!"
    PORT=""
    i=0
    while [ -z "$PORT" ] && [ $i -lt 100 ]; do
        PORT=$(sed -n 's/^listening \([0-9]*\)$/\1/p; s/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' \
            "$WORK/$name.out" "$WORK/$name.err" | head -1)
        [ -n "$PORT" ] || sleep 0.1
        i=$((i + 1))
    done
    [ -n "$PORT" ] || { cat "$WORK/$name.err"; fail "$name did not start"; }
}

field() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/out" "$1"
}
verdict() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(([c["verdict"] for c in d["checks"] if c["id"] == sys.argv[2]] + ["(absent)"])[0])' "$WORK/out" "$1"
}
is() {
    got=$(verdict "$1")
    [ "$got" = "$2" ] || { cat "$WORK/out"; fail "$3: $1 is $got, expected $2"; }
    echo "ok: $3: $1 $2"
}
speaks() {
    [ "$(field protocol)" = "$1" ] && [ "$(field transport)" = "$2" ] ||
        { cat "$WORK/out"; fail "$3: not $1 over $2"; }
    echo "ok: $3: $1 over $2"
}

# Our own server, both eras over HTTP, the era found by itself.
serve ours "$MCP" serve --http 127.0.0.1:0
URL=http://127.0.0.1:$PORT/mcp
expect_exit 0 "mcp serve --http passes (2026-07-28, found)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 2 --url "$URL"
speaks 2026-07-28 http "mcp serve --http"
for c in cancel.usable-after cancel.new-call-after cancel.id-reused progress.only-with-token \
    progress.increases cancel.ignored-no-reply cancel.ignored-usable cancel.server-sends-none; do
    is $c PASS "mcp serve --http, 2026-07-28"
done
is cancel.disconnect-stops SKIP "mcp serve --http, 2026-07-28 (not observable from outside)"
for c in listen.acknowledged-first listen.server-cancel listen.usable-after; do
    is $c PASS "mcp serve --http, 2026-07-28, a listen"
done
is listen.cancel-ends SKIP "mcp serve --http, 2026-07-28 (a closed listen: not observable)"
for c in task.created task.cancel-ack task.unknown-refused; do
    is $c PASS "mcp serve --http, 2026-07-28, the tasks extension (Mcp-Name: the task)"
done
is task.cancelled-sticks "(absent)" "mcp serve --http, 2026-07-28 (a 2025-11-25 rule)"
expect_exit 0 "mcp serve --http passes (2025-11-25)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 2 --protocol 2025-11-25 --url "$URL"
speaks 2025-11-25 http "mcp serve --http --protocol 2025-11-25"
for c in cancel.stops-response cancel.stops-progress cancel.usable-after cancel.id-type \
    progress.increases http.drop-not-cancel cancel.ignored-no-reply cancel.ignored-usable; do
    is $c PASS "mcp serve --http, 2025-11-25"
done
is cancel.server-sends-none "(absent)" "mcp serve --http, 2025-11-25 (a 2026 rule)"
for c in task.created task.cancel-answer task.cancelled-sticks task.terminal-refused \
    task.unknown-refused; do
    is $c PASS "mcp serve --http, 2025-11-25, a task"
done
is listen.acknowledged-first "(absent)" "mcp serve --http, 2025-11-25 (a 2026 rule)"

# Our own server on stdio under 2026-07-28, asked for and found.
expect_exit 0 "mcp serve (stdio) passes under 2026-07-28" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 2 --protocol 2026-07-28 -- "$MCP" serve
speaks 2026-07-28 stdio "mcp serve, --protocol 2026-07-28"
for c in cancel.stops-response cancel.stops-progress cancel.usable-after cancel.id-type \
    progress.increases cancel.ignored-no-reply cancel.server-sends-none; do
    is $c PASS "mcp serve, stdio, 2026-07-28"
done
expect_exit 0 "mcp serve (stdio): 2026-07-28 found" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- "$MCP" serve
speaks 2026-07-28 stdio "mcp serve, era found"

# Broken one way each.
expect_exit 1 "a 2026 stdio server that sends notifications/cancelled fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 -- \
    python3 "$(dirname "$0")/cancel_broken_server.py" sends-cancel
speaks 2026-07-28 stdio "sends-cancel (stdio, found by server/discover)"
is cancel.server-sends-none FAIL "sends-cancel (stdio)"
is cancel.stops-progress PASS "sends-cancel (stdio)"
is listen.acknowledged-first SKIP "sends-cancel (stdio: no listens offered)"

serve sends "python3" "$BROKEN" sends-cancel
expect_exit 1 "a 2026 server that sends notifications/cancelled fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --url "http://127.0.0.1:$PORT/mcp"
is cancel.server-sends-none FAIL "sends-cancel"
is cancel.usable-after PASS "sends-cancel"

serve dead "python3" "$BROKEN" dead-after-disconnect
expect_exit 1 "a 2026 server that a closed stream breaks fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --url "http://127.0.0.1:$PORT/mcp"
is cancel.usable-after FAIL "dead-after-disconnect"
is cancel.new-call-after FAIL "dead-after-disconnect"
is cancel.server-sends-none PASS "dead-after-disconnect"

serve drops "python3" "$BROKEN" drop-cancels
expect_exit 0 "a 2025 server that a dropped stream cancels only warns (a SHOULD NOT)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --url "http://127.0.0.1:$PORT/mcp"
speaks 2025-11-25 http "drop-cancels (initialize after server/discover failed)"
is http.drop-not-cancel WARN "drop-cancels"
expect_exit 1 "with --strict that warning fails" -- \
    $MCP_WRAP "$MCP" check-cancel --json --strict --trials 1 --url "http://127.0.0.1:$PORT/mcp"

# Hostile servers and bad input.
for mode in never-answers garbage closes; do
    serve "$mode" "python3" "$BROKEN" "$mode"
    expect_exit 3 "a server that $mode cannot be checked" -- \
        $MCP_WRAP "$MCP" check-cancel --trials 1 --url "http://127.0.0.1:$PORT/mcp"
done
expect_exit 3 "an unreachable URL" -- $MCP_WRAP "$MCP" check-cancel --url http://127.0.0.1:1/mcp
contains "$WORK/err" "cannot reach"
expect_exit 2 "a URL not http" -- $MCP_WRAP "$MCP" check-cancel --url ftp://127.0.0.1/
expect_exit 2 "a header without a colon" -- \
    $MCP_WRAP "$MCP" check-cancel --url "$URL" --header 'no colon'
expect_exit 2 "--header without --url" -- $MCP_WRAP "$MCP" check-cancel --header 'A: b' -- "$MCP" serve
expect_exit 2 "--url and a command" -- $MCP_WRAP "$MCP" check-cancel --url "$URL" -- "$MCP" serve
expect_exit 2 "a protocol we do not check" -- \
    $MCP_WRAP "$MCP" check-cancel --protocol 2024-11-05 --url "$URL"

# Servers nobody here wrote.
[ -x "$NODE" ] || missing "no pinned Node at $NODE (make interop-deps)"
serve ts1 "$NODE" "$INTEROP/ts_http_server.mjs" sse
expect_exit 0 "the TypeScript SDK v1 HTTP server (sessions, event store)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 2 --tool count --url "http://127.0.0.1:$PORT/mcp"
speaks 2025-11-25 http "TypeScript SDK v1"
for c in cancel.stops-response cancel.stops-progress http.drop-not-cancel cancel.id-type \
    cancel.ignored-no-reply; do
    is $c PASS "TypeScript SDK v1, HTTP"
done
contains "$WORK/ts1.err" "cancel received: requestId="
serve ts1json "$NODE" "$INTEROP/ts_http_server.mjs" json
expect_exit 0 "the TypeScript SDK v1 HTTP server answering with JSON" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --tool count --url "http://127.0.0.1:$PORT/mcp"
is http.drop-not-cancel SKIP "TypeScript SDK v1, JSON responses (no stream to resume)"

serve ts2 "$NODE" "$INTEROP/ts2_http_server.mjs"
expect_exit 0 "the TypeScript SDK v2 HTTP server (2026-07-28)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --tool count --url "http://127.0.0.1:$PORT/mcp"
speaks 2026-07-28 http "TypeScript SDK v2"
for c in cancel.usable-after cancel.new-call-after cancel.server-sends-none progress.increases \
    cancel.ignored-no-reply; do
    is $c PASS "TypeScript SDK v2, HTTP"
done
# What the checker cannot see, its server's log can: the closed stream
# stopped the sleep.
expect_exit 0 "the TypeScript SDK v2 HTTP server's sleep (silent while it runs)" -- \
    $MCP_WRAP "$MCP" check-cancel --json --trials 1 --tool sleep --args '{"seconds":30}' \
    --url "http://127.0.0.1:$PORT/mcp"
is cancel.usable-after PASS "TypeScript SDK v2, sleep"
is cancel.new-call-after SKIP "TypeScript SDK v2, sleep (nothing to see within 5 s)"
contains "$WORK/ts2.err" "sleep cancelled:"
echo "PASS"
