#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp proxy --url: `mcp serve --http` offered on stdio, both eras
# (2025-11-25 with initialize, 2026-07-28 with the envelope). Through it a
# call is answered with its progress and logs; the stdio client's cancel stops the
# call on the server (its log says so: a posted 2025 cancel with the
# client's reason, a closed 2026 stream); the end of stdin, SIGTERM and a
# reader of stdout that goes away (`| head -c 1`, at the next write; `| sleep
# 3`, at once) cancel what is in flight;
# the server's questions (elicitation, sampling) cross both ways; our own client and
# the TypeScript SDK v1 client spawn it. Hostile: nothing listening, the
# server killed mid-call, garbage and an oversized line on stdin, a
# response over the cap, a server that wants a token (--header), usage
# errors, a server that never answers the cancel (the proxy leaves after
# 2 s). The scenarios' client is proxy_client.py; MCP_WRAP (valgrind)
# wraps the proxy, not the server.
#
#   test_proxy_url.sh MCP NODE INTEROP_DIR
. "$(dirname "$0")/lib.sh"
MCP=$1
NODE=$2
INTEROP=$3
CLIENT="$(dirname "$0")/proxy_client.py"
requires python3
# No kept authorization of the user's is read (mcp auth login's store).
XDG_CONFIG_HOME="$WORK/config"
export XDG_CONFIG_HOME

# start_server NAME [OPTION...]: mcp serve --http on a free port, its log
# in $WORK/NAME.log; sets SRV (its pid) and URL.
start_server() {
    name=$1
    shift
    MCP_LOG_LEVEL=info "$MCP" serve --http 127.0.0.1:0 "$@" >/dev/null 2>"$WORK/$name.log" &
    SRV=$!
    wait_for "$WORK/$name.log" "listening on http://127.0.0.1:" 10
    port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/$name.log" | head -n 1)
    URL="http://127.0.0.1:$port/mcp"
}
SERVERS=""
# The servers, and the writer of a pipeline test (its sleep) on a failure.
trap 'for p in $SERVERS $(cat "$WORK/writer.pid" 2>/dev/null); do kill $p 2>/dev/null; done
      rm -rf "$WORK"' EXIT

start_server main
SERVERS="$SRV"
LOG="$WORK/main.log"

# scenario NAME ERA [PROXY OPTION...]: proxy_client.py against the main server.
scenario() {
    name=$1
    era=$2
    shift 2
    # shellcheck disable=SC2086
    python3 "$CLIENT" "$name" "$era" -- $MCP_WRAP "$MCP" proxy "$@" --url "$URL" \
        >"$WORK/out" 2>"$WORK/err" || {
        cat "$WORK/out" "$WORK/err"
        fail "scenario $name $era"
    }
    cat "$WORK/out"
}

# count TEXT: lines of the main server's log with TEXT.
count() {
    grep -cF -- "$1" "$LOG"
}

# --- usage --------------------------------------------------------------------------
expect_exit 0 "--help" -- "$MCP" proxy --help
contains "$WORK/out" "usage: mcp proxy --url URL" "--help"
expect_exit 2 "no --url" -- "$MCP" proxy
expect_exit 2 "not an http URL" -- "$MCP" proxy --url ftp://example.com/
expect_exit 2 "an unknown option" -- "$MCP" proxy --url "$URL" --timeout 3
expect_exit 2 "a header the transport writes" -- "$MCP" proxy --url "$URL" --header 'Content-Type: x'
contains "$WORK/err" "cannot send the header Content-Type" "the reserved header named"
expect_exit 2 "a --max-message below 1024" -- "$MCP" proxy --url "$URL" --max-message 10

for era in 2025 2026; do
    # --- a call, progress, garbage, an oversized line ---------------------------------
    scenario call $era --max-message 2048
    contains "$WORK/err" "over the cap of 2048 bytes" "the oversized line said on stderr ($era)"
    contains "$WORK/err" "a message from the server over the cap" "the oversized response said ($era)"

    # --- the stdio client's cancel stops the call on the server -------------------------
    before=$(count "count: cancelled at step")
    scenario cancel $era
    wait_count "$LOG" "count: cancelled at step" $((before + 1)) 5
    last=$(grep -F 'count: cancelled at step' "$LOG" | tail -n 1)
    if [ $era = 2025 ]; then
        # Posted, with the client's own reason.
        case $last in *"(test cancels)"*) ;; *) fail "2025: not the posted cancel: $last" ;; esac
    else
        # The stream closed: the server saw the disconnect.
        case $last in *"(client disconnected)"*) ;; *) fail "2026: the stream not closed: $last" ;; esac
    fi
    echo "ok: the $era cancel stopped the server's handler"

    # --- stdin's end mid-call cancels both calls in flight ----------------------------
    before=$(count "count: cancelled at step")
    d_before=$(count "deleted by the client")
    scenario eof $era
    wait_count "$LOG" "count: cancelled at step" $((before + 2)) 5
    if [ $era = 2025 ]; then
        [ "$(grep -F "count: cancelled at step" "$LOG" | tail -n 2 | grep -cF "(the client's input ended)")" = 2 ] ||
            fail "2025: two posted cancels with the proxy's reason expected"
        wait_count "$LOG" "deleted by the client" $((d_before + 1)) 5
    else
        [ "$(grep -F "count: cancelled at step" "$LOG" | tail -n 2 | grep -cF "(client disconnected)")" = 2 ] ||
            fail "2026: two closed streams expected"
    fi
    echo "ok: the end of stdin cancelled both calls on the server ($era)"

    # --- SIGTERM mid-call --------------------------------------------------------------
    before=$(count "count: cancelled at step")
    scenario signal $era
    wait_count "$LOG" "count: cancelled at step" $((before + 1)) 5
    [ $era = 2026 ] || contains "$LOG" '(the proxy was terminated)' "SIGTERM's cancel (2025)"
    echo "ok: SIGTERM cancelled the call on the server ($era)"
    before=$(count "count: cancelled at step")
    scenario hangup $era
    wait_count "$LOG" "count: cancelled at step" $((before + 1)) 5
    [ $era = 2026 ] || contains "$LOG" "terminal hung up)" "SIGHUP's cancel (2025)"
    echo "ok: SIGHUP cancelled the call on the server ($era)"

    # --- the server's question crosses both ways -----------------------------------------
    scenario ask $era

    # --- our own client spawning the proxy -----------------------------------------------
    v=2025-11-25
    [ $era = 2026 ] && v=2026-07-28
    # shellcheck disable=SC2086
    expect_exit 0 "mcp call --protocol $v through the proxy (--trace)" -- \
        "$MCP" call --protocol $v count '{"n":3,"delay_ms":10}' -- $MCP_WRAP "$MCP" proxy --trace --url "$URL"
    contains "$WORK/out" "counted to 3" "mcp call through the proxy ($v)"
    for arrow in "stdio <-" "http ->" "http <-" "stdio ->"; do
        contains "$WORK/err" "mcp proxy $arrow {\"jsonrpc\":\"2.0\",\"id\":" "--trace: $arrow ($v)"
    done
done

# A client that sends on without waiting for initialize's answer.
scenario pipelined 2025
# A client that cancels initialize, and sends cancels naming nothing: not
# forwarded (the handshake would be left unanswered), said on stderr.
scenario initcancel 2025
contains "$WORK/err" "dropped a cancel of initialize" "the cancel of initialize dropped"
contains "$WORK/err" "dropped a cancel without a requestId" "a malformed cancel dropped"
# The input ends right behind initialize, a request waiting for its answer
# and a cancel naming no request: nothing is cancelled (initialize never
# is; the request was never sent; the cancel names nothing in flight).
scenario initeof 2025 --trace
contains "$WORK/err" 'mcp proxy http -> {"jsonrpc": "2.0", "id": 0, "method": "initialize"' "initialize was sent"
! grep -q 'mcp proxy http -> .*notifications/cancelled' "$WORK/err" ||
    { cat "$WORK/err"; fail "a cancel sent: of initialize, of a request never sent, or of none in flight"; }

# --protocol: a request of the other era is refused by the proxy, not sent.
# shellcheck disable=SC2086
expect_exit 3 "--protocol 2025-11-25 refuses a 2026-07-28 client" -- \
    "$MCP" call --protocol 2026-07-28 echo '{"text":"x"}' -- $MCP_WRAP "$MCP" proxy --protocol 2025-11-25 --url "$URL"
# (the server itself speaks 2026-07-28: the proxy refused the probe)
contains "$WORK/err" "does not speak protocol version 2026-07-28" "--protocol's refusal"
# shellcheck disable=SC2086
expect_exit 0 "--protocol 2025-11-25: a client that probes falls back to initialize" -- \
    "$MCP" call echo '{"text":"fell back"}' -- $MCP_WRAP "$MCP" proxy --protocol 2025-11-25 --url "$URL"
contains "$WORK/out" "fell back" "the fallback's answer"

# --- a reader of stdout that goes away: | head -c 1 ----------------------------------
# 2026-07-28: count sends progress every 50 ms; head takes one byte and
# leaves; the proxy's next write fails (EPIPE) while its stdin stays open
# for 20 s more: it must cancel the call and exit 3 on its own, soon.
req='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":100000,"delay_ms":50},"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}'
before=$(count "count: cancelled at step")
start=$(date +%s)
# shellcheck disable=SC2086
sh -c 'echo $$ >"$1"; printf "%s\n" "$2"; exec sleep 20' sh "$WORK/writer.pid" "$req" 2>/dev/null |
    ( $MCP_WRAP "$MCP" proxy --url "$URL" 2>"$WORK/epipe.err"; echo $? >"$WORK/epipe.rc" ) |
    head -c 1 >/dev/null &
while [ ! -s "$WORK/epipe.rc" ]; do
    [ $(($(date +%s) - start)) -lt 15 ] || fail "the proxy did not end after its reader left"
    sleep 0.05
done
[ "$(cat "$WORK/epipe.rc")" = 3 ] || { cat "$WORK/epipe.err"; fail "EPIPE: exit $(cat "$WORK/epipe.rc"), expected 3"; }
[ $(($(date +%s) - start)) -lt 12 ] || fail "the proxy waited for its stdin instead of ending"
# (at the failed write, or at once by the hangup watch: whichever comes first)
contains "$WORK/epipe.err" "stdout failed (" "the reader's leaving said"
wait_count "$LOG" "count: cancelled at step" $((before + 1)) 5
kill "$(cat "$WORK/writer.pid")" 2>/dev/null
echo "ok: | head -c 1: the proxy cancelled the call and exited 3"

# --- a reader that leaves without reading (nothing is written meanwhile) -----------------
# The HTTP client's scripted peer (hostile_http_server.py, 2026-07-28): its
# tool hang never answers and says when it holds a call and when the call's
# connection went away. The pipe's reader leaves once the peer holds the
# call: the proxy sees it at once (nothing is written that would fail),
# closes the call's stream and exits 3.
python3 "$(dirname "$0")/hostile_http_server.py" modern >"$WORK/hang.port" 2>"$WORK/hang.log" &
SERVERS="$SERVERS $!"
wait_for "$WORK/hang.port" "listening" 10
HANG="http://127.0.0.1:$(sed -n 's/listening //p' "$WORK/hang.port")/mcp"
req='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}'
start=$(date +%s)
# shellcheck disable=SC2086
sh -c 'echo $$ >"$1"; printf "%s\n" "$2"; exec sleep 30' sh "$WORK/writer.pid" "$req" 2>/dev/null |
    ( $MCP_WRAP "$MCP" proxy --url "$HANG" 2>"$WORK/gone.err"; echo $? >"$WORK/gone.rc" ) |
    sh -c 'i=0; until grep -q "hang: holding" "$1" || [ $i -ge 400 ]; do i=$((i + 1)); sleep 0.05; done' \
        sh "$WORK/hang.log" &
while [ ! -s "$WORK/gone.rc" ]; do
    [ $(($(date +%s) - start)) -lt 20 ] || fail "the proxy did not see its reader leave"
    sleep 0.05
done
kill "$(cat "$WORK/writer.pid")" 2>/dev/null
[ "$(cat "$WORK/gone.rc")" = 3 ] || { cat "$WORK/gone.err"; fail "reader gone: exit $(cat "$WORK/gone.rc"), expected 3"; }
[ $(($(date +%s) - start)) -lt 15 ] || fail "the proxy waited for a write or its stdin"
contains "$WORK/gone.err" "stdout failed (the reader went away)" "the reader's leaving said"
wait_for "$WORK/hang.log" "hang: client went away" 5
echo "ok: a reader that left without reading: the proxy closed the call's stream and exited 3"

# --- a message of the server's over 16 MiB (under --max-message): it goes whole ---------
# 16 MiB is what the proxy queues for a client that stopped reading; one
# message never counts as that. The writer keeps stdin open until it came.
huge='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"huge","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}'
# shellcheck disable=SC2016,SC2086
sh -c 'printf "%s\n" "$1"; i=0
       until [ "$( (wc -c <"$2") 2>/dev/null || echo 0)" -gt 17825792 ] || [ $i -ge 600 ]; do
           i=$((i + 1)); sleep 0.05; done' sh "$huge" "$WORK/huge.out" |
    $MCP_WRAP "$MCP" proxy --max-message 20000000 --url "$HANG" 2>"$WORK/huge.err" | cat >"$WORK/huge.out"
size=$(wc -c <"$WORK/huge.out")
[ "$size" -gt 17825792 ] || { cat "$WORK/huge.err"; fail "a 17 MiB answer: $size bytes came"; }
head -c 100 "$WORK/huge.out" | grep -qE '"id": ?2,' || fail "the 17 MiB answer is not for its call"
lacks "$WORK/huge.err" "stopped reading" "a 17 MiB answer taken for a client that stopped reading"
echo "ok: a 17 MiB answer went through whole"

# --- stdout a socket whose peer closes: EPIPE at the next write ---------------------------
before=$(count "count: cancelled at step")
scenario epipe 2026
contains "$WORK/err" "stdout failed (broken pipe)" "EPIPE said"
wait_count "$LOG" "count: cancelled at step" $((before + 1)) 5
echo "ok: EPIPE on a socket: the proxy cancelled the call and exited 3"

# --- the TypeScript SDK v1 client spawns the proxy ------------------------------------
[ -x "$NODE" ] || missing "no pinned Node at $NODE (make interop-deps)"
[ -d "$INTEROP/node_modules/@modelcontextprotocol/sdk" ] || missing "no TypeScript SDK (make interop-deps)"
if [ -n "${MCP_WRAP:-}" ]; then
    # The SDK takes one command: the wrapped proxy through a script.
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$MCP_WRAP" "$MCP" >"$WORK/wrapped-mcp"
    chmod +x "$WORK/wrapped-mcp"
    PROXY_MCP="$WORK/wrapped-mcp"
else
    PROXY_MCP="$MCP"
fi
(cd "$INTEROP" && "$NODE" ts_proxy_client.mjs "$PROXY_MCP" "$URL" "$LOG") >"$WORK/ts.out" 2>&1 || {
    cat "$WORK/ts.out"
    fail "the TypeScript SDK v1 client through the proxy"
}
cat "$WORK/ts.out"

# --- nothing listening -------------------------------------------------------------------
for era in 2025 2026; do
    # shellcheck disable=SC2086
    python3 "$CLIENT" unreachable $era -- $MCP_WRAP "$MCP" proxy --url http://127.0.0.1:9/mcp \
        >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/out" "$WORK/err"; fail "unreachable $era"; }
    cat "$WORK/out"
    contains "$WORK/err" "mcp proxy: request" "the failure said on stderr ($era)"
    contains "$WORK/err" "cannot reach the server" "unreachable named ($era)"
done

# --- a server that wants a token: --header gives it; without it, HTTP 401 ---------------
start_server token --token proxy-secret
SERVERS="$SERVERS $SRV"
for era in 2025 2026; do
    # shellcheck disable=SC2086
    python3 "$CLIENT" refused $era -- $MCP_WRAP "$MCP" proxy --url "$URL" \
        >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/out" "$WORK/err"; fail "refused $era"; }
    cat "$WORK/out"
done
# shellcheck disable=SC2086
expect_exit 0 "--header gives the token" -- \
    "$MCP" call echo '{"text":"with the token"}' -- $MCP_WRAP "$MCP" proxy --url "$URL" \
    --header 'Authorization: Bearer proxy-secret'
contains "$WORK/out" "with the token" "the call with the token"

# --- the server killed mid-call: the call's error comes at once ---------------------------
for era in 2025 2026; do
    start_server "dies$era"
    SERVERS="$SERVERS $SRV"
    # shellcheck disable=SC2086
    SERVER_PID=$SRV python3 "$CLIENT" dies $era -- $MCP_WRAP "$MCP" proxy --url "$URL" \
        >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/out" "$WORK/err"; fail "dies $era"; }
    cat "$WORK/out"
done

# --- a server that never settles: the proxy leaves after its 2 s ------------------------
python3 "$(dirname "$0")/stuck_http_server.py" >"$WORK/stuck.port" 2>"$WORK/stuck.log" &
SERVERS="$SERVERS $!"
wait_for "$WORK/stuck.port" "listening" 10
STUCK="http://127.0.0.1:$(sed -n 's/listening //p' "$WORK/stuck.port")/mcp"
# shellcheck disable=SC2086
python3 "$CLIENT" stuck 2025 -- $MCP_WRAP "$MCP" proxy --url "$STUCK" >"$WORK/out" 2>"$WORK/err" ||
    { cat "$WORK/out" "$WORK/err"; fail "stuck"; }
cat "$WORK/out"
contains "$WORK/stuck.log" "held POST notifications/cancelled" "the cancel posted to the stuck server"
contains "$WORK/err" "had not settled after 2 s" "the bound said"

echo "test_proxy_url: all passed"
