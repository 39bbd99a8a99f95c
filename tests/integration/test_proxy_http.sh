#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp proxy --http: a stdio server offered over Streamable HTTP, both eras.
# Through it, with gateway_child.py as the child: a call is answered; a
# cancel reaches the child with the child's id (2025: the client's
# timeout, posted; 2026-07-28: the client's disconnect, by curl too); a
# child that exits, is killed or never starts answers the call at once
# with its status, and the next call gets a new child; garbage from the
# child costs nothing; a 2026 listen of a resource subscribes the shared
# child while it lasts; a 2025 session whose child died ends with it (its
# next request 404, a new session served); a 2025 child's question
# reaches the client, under 2025 directly, under 2026-07-28 in
# input-required rounds; the bound on children refuses a request past it
# (HTTP 503 with Retry-After, both eras); no child outlives its
# session or the proxy (SIGTERM). With `mcp serve` as the child: mcp
# check-cancel passes at 2025-11-25 and 2026-07-28 through the proxy, and
# the TypeScript SDK v1 and v2 HTTP clients pass their steps, and the v2
# client answers the child's questions in input-required rounds, and the
# Inspector's v2 CLI lists, calls, reads and gets in both eras; with the
# TypeScript SDK v2 stdio server as the child, check-cancel passes both
# eras; with server-everything, whose progress goes on after a cancel,
# the client through the proxy hears none. 2026-07-28 tasks (the
# extension) of mcp serve's and server-everything's 2025-11-25 task tools:
# a task of the proxy's, a task-only tool's result without the extension,
# tasks/cancel reaching the child. MCP_WRAP (valgrind) wraps the proxy (the probe of its child
# included), not the children; under it the slow checks are left out.
#
#   test_proxy_http.sh MCP NODE INTEROP_DIR
. "$(dirname "$0")/lib.sh"
MCP=$1
NODE=$2
INTEROP=$3
CHILD="$(dirname "$0")/gateway_child.py"
requires python3 curl
XDG_CONFIG_HOME="$WORK/config"
export XDG_CONFIG_HOME
PROXIES=""
trap 'for p in $PROXIES; do kill $p 2>/dev/null; done
      for p in $(sed -n "s/^start //p" "$WORK"/*.child 2>/dev/null); do kill -9 $p 2>/dev/null; done
      rm -rf "$WORK"' EXIT

# start_proxy NAME [OPTION...] -- COMMAND...: the proxy on a free port, its
# log in $WORK/NAME.log; sets PX (its pid) and URL.
start_proxy() {
    name=$1
    shift
    rm -f "$WORK/$name.log"
    # shellcheck disable=SC2086
    MCP_LOG_LEVEL=info $MCP_WRAP "$MCP" proxy --http 127.0.0.1:0 "$@" >/dev/null 2>"$WORK/$name.log" &
    PX=$!
    PROXIES="$PROXIES $PX"
    wait_for "$WORK/$name.log" "listening on http://127.0.0.1:" 60
    port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/$name.log" | head -n 1)
    URL="http://127.0.0.1:$port/mcp"
}

# stop_proxy [SIGNAL]: SIGTERM (or SIGNAL: HUP, INT); it exits 0
# (valgrind: 99 on an error) within 10 s.
stop_proxy() {
    kill -"${1:-TERM}" "$PX"
    i=0
    while running "$PX"; do
        i=$((i + 1))
        [ $i -le 200 ] || fail "the proxy did not stop within 10 s of SIGTERM"
        sleep 0.05
    done
    wait "$PX"
    rc=$?
    [ "$rc" -eq 0 ] || { cat "$WORK/$name.log"; fail "the proxy exited $rc after SIG${1:-TERM}"; }
}

# children_gone LOG SECONDS: every child that LOG says started has exited.
children_gone() {
    i=0
    for pid in $(sed -n 's/^start //p' "$1"); do
        while running "$pid"; do
            i=$((i + 1))
            [ $i -le $(($2 * 20)) ] || { cat "$1"; fail "child $pid outlived its end"; }
            sleep 0.05
        done
    done
}

# call ERA [mcp call ARGS...]: mcp call through the proxy at that era.
call() {
    era=$1
    shift
    "$MCP" call --protocol "$era" --url "$URL" "$@"
}

# post NAME BODY [CURL ARGS...]: POST BODY to the proxy with curl; the
# status in $WORK/NAME.status, headers in NAME.headers, body in NAME.body.
post() {
    post_name=$1 # not name: start_proxy's, read by stop_proxy
    post_body=$2
    shift 2
    curl -s -m 10 -o "$WORK/$post_name.body" -D "$WORK/$post_name.headers" -w '%{http_code}' \
        -X POST "$URL" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' \
        "$@" -d "$post_body" >"$WORK/$post_name.status"
}

# status_is NAME CODE WHAT
status_is() {
    [ "$(cat "$WORK/$1.status")" = "$2" ] ||
        { cat "$WORK/$1.headers" "$WORK/$1.body"; fail "$3: HTTP $(cat "$WORK/$1.status"), not $2"; }
}

# A 2026-07-28 tools/list, as curl sends it.
MODERN_LIST='{"jsonrpc":"2.0","id":"m-1","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
modern_list() {
    post "$1" "$MODERN_LIST" -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list'
}

# session_2025 NAME: initialize a 2025-11-25 session with curl; its id in SID.
session_2025() {
    post "$1" '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
    status_is "$1" 200 "initialize"
    SID=$(tr -d '\r' <"$WORK/$1.headers" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p')
    [ -n "$SID" ] || fail "no session id"
    post "$1-initialized" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
    status_is "$1-initialized" 202 "notifications/initialized"
}

# --- usage ---------------------------------------------------------------------------
expect_exit 0 "--help" -- "$MCP" proxy --help
contains "$WORK/out" "mcp proxy --http [HOST:]PORT" "--help shows --http"
expect_exit 2 "--http without a command" -- "$MCP" proxy --http 127.0.0.1:0
contains "$WORK/err" "-- COMMAND" "the command asked for"
expect_exit 2 "--max-children 0" -- "$MCP" proxy --http 127.0.0.1:0 --max-children 0 -- true
expect_exit 2 "an option of neither" -- "$MCP" proxy --http 127.0.0.1:0 --bogus 1 -- \
    python3 "$CHILD" "$WORK/usage.child"
expect_exit 3 "a command that does not exist" -- \
    "$MCP" proxy --http 127.0.0.1:0 -- "$WORK/no-such-server"
contains "$WORK/err" "could not be used" "the failed start said"
# SIGTERM while the first run is asked what it declares (it never answers
# and ignores SIGTERM): that run is ended with its group, and the proxy
# exits 143.
"$MCP" proxy --http 127.0.0.1:0 -- python3 -c 'import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(60)' "$WORK/mute.pid" 2>/dev/null &
MUTE_PROXY=$!
i=0
until [ -s "$WORK/mute.pid" ]; do i=$((i + 1)); [ $i -le 200 ] || fail "no probe"; sleep 0.05; done
kill -TERM "$MUTE_PROXY"
wait "$MUTE_PROXY"
rc=$?
[ "$rc" -eq 143 ] || fail "SIGTERM during the probe: exit $rc, not 143"
gone_within "$(cat "$WORK/mute.pid")" 5 "the probed run (the proxy had SIGTERM)"
echo "ok: SIGTERM during the probe ends its run"

# --- the misbehaving child, both eras ----------------------------------------------------
start_proxy hostile -- python3 "$CHILD" "$WORK/hostile.child"
LOG="$WORK/hostile.log"
CLOG="$WORK/hostile.child"
for era in 2025-11-25 2026-07-28; do
    expect_exit 0 "echo ($era)" -- call $era echo '{"text":"through the gateway"}'
    contains "$WORK/out" "through the gateway" "echo's answer ($era)"
    expect_exit 0 "garbage from the child ($era)" -- call $era garbage
    contains "$WORK/out" "survived" "the call after garbage ($era)"
    # A child that dies mid-call: the call's error at once, with its status.
    start=$(date +%s)
    expect_exit 3 "the child exits mid-call ($era)" -- call $era die
    contains "$WORK/err" "exited with status 7" "the exit status named ($era)"
    expect_exit 3 "the child killed mid-call ($era)" -- call $era killed
    contains "$WORK/err" "killed by signal 9" "the signal named ($era)"
    [ $(($(date +%s) - start)) -le 4 ] || fail "the deaths were not answered at once ($era)"
    expect_exit 0 "a call after the deaths ($era)" -- call $era echo '{"text":"again"}'
    contains "$WORK/out" "again" "a new child answers ($era)"
done
# A 2025 session whose child died ends with it: its next request is told
# 404 (the spec's word for "initialize again"), and a new session gets a
# new child.
session_2025 dead
post dead-call '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"die","arguments":{}}}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
contains "$WORK/dead-call.body" "exited with status 7" "the call the child died in"
post dead-after '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
status_is dead-after 404 "a request of the session whose child died"
session_2025 reborn
post reborn-list '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
contains "$WORK/reborn-list.body" '"echo"' "a new session served"
# The client's timeout (2025: a posted cancel) and its disconnect
# (2026-07-28) reach the child as notifications/cancelled with its own id.
expect_exit 4 "a 2025 call timed out" -- call 2025-11-25 hang --timeout 0.5
last=$(grep "^call hang" "$CLOG" | tail -n 1 | cut -d' ' -f3)
wait_for "$CLOG" "cancelled $last timed out after 500 ms" 10
n=$(grep -c "^call hang" "$CLOG")
expect_exit 4 "a 2026 call timed out" -- call 2026-07-28 hang --timeout 0.5
wait_for "$CLOG" "client disconnected" 10
curl -s -m 1 -o /dev/null -X POST "$URL" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/call' -H 'Mcp-Name: hang' \
    -d '{"jsonrpc":"2.0","id":"curl-1","method":"tools/call","params":{"name":"hang","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
wait_count "$CLOG" "client disconnected" 2 10
[ "$(grep -c "^call hang" "$CLOG")" -eq $((n + 2)) ] || fail "the hang calls reached the child"
# The child's cancel names its own id: the call's id there, not the client's.
last=$(grep "^call hang" "$CLOG" | tail -n 1 | cut -d' ' -f3)
contains "$CLOG" "cancelled $last client disconnected" "the child's id in the cancel"
# A 2026-07-28 listen of a resource: the shared child is subscribed to it,
# its update reaches the listen's stream, and the listen's end (its client
# gone) unsubscribes.
curl -s -N -m 30 -o "$WORK/listen.out" -X POST "$URL" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: subscriptions/listen' \
    -d '{"jsonrpc":"2.0","id":"watch-1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["test://a"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' &
LISTENER=$!
wait_for "$WORK/listen.out" "notifications/subscriptions/acknowledged" 10
wait_for "$CLOG" "subscribe test://a" 10
# (By a client that declares no question it can answer: mcp call declares
# elicitation, and its call would run on an asking child of its own.)
post touch '{"jsonrpc":"2.0","id":"t-1","method":"tools/call","params":{"name":"touch","arguments":{"uri":"test://a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: touch'
contains "$WORK/touch.body" "touched" "the child had the subscription"
wait_for "$WORK/listen.out" "notifications/resources/updated" 10
grep "notifications/resources/updated" "$WORK/listen.out" | grep -q '"watch-1"' ||
    fail "the update not under the listen's id"
kill "$LISTENER"
wait "$LISTENER" 2>/dev/null
wait_for "$CLOG" "unsubscribe test://a" 10
# An asking child serves the calls of one caller: the same Authorization
# reuses it, another gets a child of its own.
asking_echo() {
    post "$1" '{"jsonrpc":"2.0","id":"e-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"mine"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' \
        -H "Authorization: Bearer $2"
    contains "$WORK/$1.body" "mine" "an asking call answered ($1)"
}
starts=$(grep -c "^start " "$CLOG")
asking_echo caller-a1 token-a
asking_echo caller-a2 token-a
[ "$(grep -c "^start " "$CLOG")" -eq $((starts + 1)) ] || fail "one caller's calls took two children"
asking_echo caller-b token-b
[ "$(grep -c "^start " "$CLOG")" -eq $((starts + 2)) ] || fail "another caller reused a child"
# A 2025 child's question reaches the client (mcp call declines: no terminal).
expect_exit 0 "a question from the child (2025)" -- call 2025-11-25 ask
contains "$WORK/out" "answer: decline" "the client's answer reached the child"
contains "$WORK/err" "Who?" "the question shown to the user"
# The same under 2026-07-28: the question crosses in input-required rounds.
expect_exit 0 "a question from the child (2026)" -- call 2026-07-28 ask
contains "$WORK/out" "answer: decline" "the 2026 client's answer reached the child"
contains "$WORK/err" "Who?" "the question shown to the 2026 user"
# The 2025 sessions have ended: their children with them.
grep -q "session .* deleted by the client" "$LOG" || fail "no session ended"
stop_proxy
children_gone "$CLOG" 10
contains "$CLOG" "stdin closed" "a child ended by its input"

# --- a wrapper whose server ignores SIGTERM and its input's end: the whole
# group is ended with the session (SIGTERM to the group, then SIGKILL) ---------------------
start_proxy wrapper -- sh -c "python3 '$CHILD' '$WORK/wrapper.child' stubborn; true"
expect_exit 0 "echo through a wrapper" -- call 2025-11-25 echo '{"text":"wrapped"}'
wait_for "$WORK/wrapper.child" "stdin closed" 10
children_gone "$WORK/wrapper.child" 15
stop_proxy

# --- the bound on children ----------------------------------------------------------------
start_proxy bound --max-children 1 -- python3 "$CHILD" "$WORK/bound.child"
# Its port is its own: a second listener on it is refused.
expect_exit 3 "a second proxy on the same port" -- \
    "$MCP" proxy --http "127.0.0.1:$port" -- python3 "$CHILD" "$WORK/second.child"
contains "$WORK/err" "Address already in use" "why the second could not listen"
call 2025-11-25 hang --timeout 5 >/dev/null 2>&1 &
HOLDER=$!
wait_count "$WORK/bound.child" "call hang" 1 10
expect_exit 3 "a session past --max-children" -- call 2025-11-25 echo '{"text":"x"}'
contains "$WORK/err" "too many server processes" "the bound said"
# Over HTTP the refusal is a 503 with Retry-After, in both eras.
modern_list busy-2026
status_is busy-2026 503 "a 2026 request past --max-children"
contains "$WORK/busy-2026.headers" "Retry-After: 2" "when to come back (2026)"
contains "$WORK/busy-2026.body" "too many server processes" "the 503's error (2026)"
session_2025 busy
post busy-2025 '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
status_is busy-2025 503 "a 2025 request past --max-children"
contains "$WORK/busy-2025.headers" "Retry-After: 2" "when to come back (2025)"
kill "$HOLDER"
wait "$HOLDER"
# SIGHUP (its terminal gone) stops it as SIGTERM does.
stop_proxy HUP
contains "$WORK/bound.log" "SIGHUP: stopping" "the hangup taken as a stop"
children_gone "$WORK/bound.child" 10

# --- a child that dies at every start after the probe ----------------------------------------
start_proxy diestart -- python3 "$CHILD" "$WORK/diestart.child" die-at-start
# 2025: the first request the session forwards gets the status, and the
# session ends (mcp call's next request is told 404).
expect_exit 3 "a child that dies at start (2025-11-25)" -- call 2025-11-25 echo '{"text":"x"}'
contains "$WORK/err" "ended the MCP session" "the session ended with its child (2025)"
session_2025 diestart
post diestart-list '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
    -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
contains "$WORK/diestart-list.body" "exited with status 5" "its status named (2025)"
expect_exit 3 "a child that dies at start (2026-07-28)" -- call 2026-07-28 echo '{"text":"x"}'
contains "$WORK/err" "exited with status 5" "its status named (2026-07-28)"
stop_proxy
children_gone "$WORK/diestart.child" 10

# --- mcp serve as the child: 2026-07-28 tasks. A client declaring the
# extension gets a task of the proxy's (the child's task behind it); one
# that does not still gets a task-only tool's result; tasks/cancel reaches
# the child's task ----------------------------------------------------------------------------
start_proxy servetasks -- "$MCP" serve
expect_exit 0 "a task-only tool as a task (2026)" -- call 2026-07-28 --task job '{"n":2,"delay_ms":10}'
contains "$WORK/out" "counted to 2" "the task's result"
contains "$WORK/err" ": completed" "the proxy's task completed"
expect_exit 0 "a task-only tool without the extension (2026)" -- \
    call 2026-07-28 job '{"n":2,"delay_ms":10}'
contains "$WORK/out" "counted to 2" "the followed task's result"
expect_exit 0 "a task started (2026)" -- call 2026-07-28 --task --detach sleep '{"seconds":30}'
TID=$(cat "$WORK/out")
expect_exit 0 "tasks/cancel through the proxy" -- \
    "$MCP" tasks --protocol 2026-07-28 --url "$URL" cancel "$TID"
wait_for "$WORK/servetasks.log" "sleep: cancelled after" 10
contains "$WORK/servetasks.log" "(the task was cancelled (tasks/cancel))" "the child's task cancelled"
expect_exit 0 "the proxy's task, cancelled" -- "$MCP" tasks --protocol 2026-07-28 --url "$URL" get "$TID"
contains "$WORK/out" "cancelled" "the task's status"
stop_proxy

if [ -n "${MCP_WRAP:-}" ]; then
    echo "test_proxy_http: all passed (the slow checks are left out under MCP_WRAP)"
    exit 0
fi

# --- mcp serve as the child: check-cancel and the TypeScript SDK clients -------------------------
start_proxy serve -- "$MCP" serve
for era in 2025-11-25 2026-07-28; do
    expect_exit 0 "check-cancel through the proxy ($era)" -- \
        "$MCP" check-cancel --protocol $era --url "$URL"
    contains "$WORK/out" "0 failed, 0 warned" "check-cancel's verdicts ($era)"
done
[ -x "$NODE" ] || missing "no node (make interop-deps)"
expect_exit 0 "the TypeScript SDK v1 HTTP client" -- "$NODE" "$INTEROP/ts_http_client.mjs" "$URL" auto
expect_exit 0 "the TypeScript SDK v2 HTTP client" -- "$NODE" "$INTEROP/ts2_http_client.mjs" "$URL"
# mcp serve's tools that ask (elicitation, in form and URL mode; sampling;
# roots), asked in 2025 by the child and carried across input-required
# rounds to the v2 client.
expect_exit 0 "the TypeScript SDK v2 client's questions, in rounds" -- \
    "$NODE" "$INTEROP/ts2_ask_client.mjs" "$MCP" "$URL"
# The Inspector's v2 CLI, another client nobody here wrote, both eras: a
# list, a call, a task-only tool, a read, a prompt.
INSPECTOR="$INTEROP/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
[ -r "$INSPECTOR" ] || missing "no Inspector (make interop-deps)"
mkdir -p "$WORK/inspector-home"
inspector() {
    HOME="$WORK/inspector-home" MCP_INSPECTOR_SECRET_STORE=memory \
        "$NODE" "$INSPECTOR" --cli -q --format json --server-url "$URL" --transport http "$@"
}
for era in legacy modern; do
    expect_exit 0 "the Inspector lists the tools ($era)" -- inspector --protocol-era $era --method tools/list
    contains "$WORK/out" '"name":"job"' "the child's tools ($era)"
    expect_exit 0 "the Inspector calls echo ($era)" -- \
        inspector --protocol-era $era --method tools/call --tool-name echo --tool-arg text=inspected
    contains "$WORK/out" '"text":"inspected"' "the call's result ($era)"
    expect_exit 0 "the Inspector calls a task-only tool ($era)" -- \
        inspector --protocol-era $era --method tools/call --tool-name job --tool-arg n=2 --tool-arg delay_ms=10
    contains "$WORK/out" "counted to 2" "the task-only tool's result ($era)"
    expect_exit 0 "the Inspector reads a resource ($era)" -- \
        inspector --protocol-era $era --method resources/read --uri demo://readme
    contains "$WORK/out" "a demo server" "the resource ($era)"
    expect_exit 0 "the Inspector gets a prompt ($era)" -- \
        inspector --protocol-era $era --method prompts/get --prompt-name greet --prompt-args name=Ada
    contains "$WORK/out" "Say hi to Ada" "the prompt ($era)"
done
stop_proxy

# --- server-everything as the child: its long operation sends progress
# after a cancel (check-cancel warns of it, direct); through the proxy the
# client hears none (the gateway's request ended) ---------------------------------------------------
EVERYTHING="$INTEROP/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -r "$EVERYTHING" ] || missing "no server-everything (make interop-deps)"
start_proxy everything -- "$NODE" "$EVERYTHING" stdio
expect_exit 0 "check-cancel, server-everything behind the proxy" -- \
    "$MCP" check-cancel --trials 1 --protocol 2025-11-25 --url "$URL"
contains "$WORK/out" "PASS  cancel.stops-progress" "no progress after the cancel, through the proxy"
# Its 2025-11-25 task-only tool, for a 2026 client: as a task of the
# proxy's, and (once the proxy has seen it listed) plainly, the child's
# task followed (it refuses a plain call with an isError result, not -32601).
expect_exit 0 "server-everything's task tool as a task (2026)" -- \
    call 2026-07-28 --task simulate-research-query '{"topic":"cats"}'
contains "$WORK/out" "simulated research report" "the task's result"
expect_exit 0 "the tools listed (2026)" -- "$MCP" tools --protocol 2026-07-28 --url "$URL"
expect_exit 0 "server-everything's task tool without the extension (2026)" -- \
    call 2026-07-28 simulate-research-query '{"topic":"cats"}'
contains "$WORK/out" "simulated research report" "the followed task's result"
stop_proxy

# --- the TypeScript SDK v2 stdio server as the child ---------------------------------------------
start_proxy ts2 -- "$NODE" "$INTEROP/ts2_server.mjs"
for era in 2025-11-25 2026-07-28; do
    expect_exit 0 "check-cancel, TypeScript SDK v2 server behind the proxy ($era)" -- \
        "$MCP" check-cancel --protocol $era --url "$URL"
    contains "$WORK/out" "0 failed, 0 warned" "check-cancel's verdicts ($era, ts2)"
done
stop_proxy
echo "test_proxy_http: all passed"
