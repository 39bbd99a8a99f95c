#!/bin/sh
# SPDX-License-Identifier: MIT
# Streamable HTTP request rates, each server against its reference in the
# same run: wrk (-t1 -c16), one tools/call echo per request, every answer
# checked (a wrong one fails the run). On a shared machine a rate moves
# with its neighbours: libmcp's two rates and bare libmicrohttpd's are taken
# in ROUNDS short rounds, one after the other in each, and each figure is
# the median of its rounds (the TypeScript peers, far slower, run once).
#
#   bench_http.sh MCP BARE_MHD NODE INTEROP_DIR [SECONDS [ROUNDS]]
#
# Prints
#   http 2025-11-25 tools/call/s: libmcp=<n> ts_sdk_v1=<n> ratio=<x>
#   http 2026-07-28 tools/call/s: libmcp=<n> ts_sdk_v2=<n> ratio=<x> bare_mhd=<n> of_bare=<pct> of_2025=<pct>
#   http 2026-07-28 tools/call/s with JWT validation: jwt=<n> plain=<n> share=<pct>
# (of_2025: libmcp's 2026-07-28 rate against its 2025-11-25 one; the JWT
# line: mcp serve as an OAuth resource server, an ES256 access token on
# every request, against the same server without authorization, in the
# same rounds.)
set -eu
MCP=$1
BARE=$2
NODE=$3
INTEROP=$4
SECS=${5:-5}
ROUNDS=${6:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v wrk >/dev/null || { echo "bench_http: wrk is needed (Debian package wrk)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench_http: curl is needed" >&2; exit 1; }
WORK=$(mktemp -d)
pids=""
# Every server this script started is stopped however it ends (a failed
# check, Ctrl-C, TERM): the EXIT trap runs on exit, the others turn a
# signal into an exit.
stop() {
    for p in $pids; do kill "$p" 2>/dev/null || :; done
    for p in $pids; do wait "$p" 2>/dev/null || :; done
    rm -rf "$WORK"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# start VAR NAME COMMAND...: run it, wait for its port ("listening PORT" on
# stdout, or mcp serve's "listening on http://127.0.0.1:PORT/mcp" on
# stderr) and set VAR to it. Not in a command substitution: that subshell
# would keep the pid from the trap.
start() {
    var=$1
    name=$2
    shift 2
    : >"$WORK/$name.out" # there before the loop below reads them
    : >"$WORK/$name.err"
    "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    pids="$pids $!"
    i=0
    while :; do
        port=$(sed -n 's/^listening \([0-9]*\)$/\1/p; s/.*listening on http:\/\/127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' \
            "$WORK/$name.out" "$WORK/$name.err" | head -n 1)
        [ -z "$port" ] || break
        i=$((i + 1))
        [ $i -lt 200 ] || { cat "$WORK/$name.err" >&2; echo "bench_http: $name did not start" >&2; exit 1; }
        sleep 0.05
    done
    eval "$var=\$port"
}

ACCEPT='Content-Type: application/json
Accept: application/json, text/event-stream'
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL25='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'
CALL26='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'$META'}}'
HEAD26="$ACCEPT
MCP-Protocol-Version: 2026-07-28
Mcp-Method: tools/call
Mcp-Name: echo"

# rate URL BODY HEADERS EXPECT: requests per second, all answers checked.
rate() {
    BODY=$2 HEADERS=$3 EXPECT=$4 wrk -t1 -c16 -d"${SECS}s" -s "$HERE/http_post.lua" "$1" \
        >"$WORK/wrk.out" 2>&1 || { cat "$WORK/wrk.out" >&2; exit 1; }
    bad=$(sed -n 's/^bad \([0-9]*\)$/\1/p' "$WORK/wrk.out")
    errors=$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$WORK/wrk.out")
    if [ "${bad:-1}" != 0 ] || [ -n "$errors" ]; then
        cat "$WORK/wrk.out" >&2
        echo "bench_http: wrong answers from $1" >&2
        exit 1
    fi
    sed -n 's/^Requests\/sec: *\([0-9]*\).*/\1/p' "$WORK/wrk.out"
}

# session URL: a 2025-11-25 session's id (initialize, then initialized).
session() {
    curl -s -D "$WORK/init.headers" -o /dev/null -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' "$1" \
        --data-binary '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
    sid=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([^[:space:]]*\).*/\1/p' "$WORK/init.headers" | tr -d '\r')
    [ -n "$sid" ] || { echo "bench_http: no session from $1" >&2; exit 1; }
    curl -s -o /dev/null -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $sid" \
        -H 'MCP-Protocol-Version: 2025-11-25' "$1" \
        --data-binary '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    echo "$sid"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b ? a / b : 0 }'; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f%%", b ? 100 * a / b : 0 }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

start ours libmcp env MCP_LOG_LEVEL=error "$MCP" serve --http 127.0.0.1:0
# The resource server: its key set, and a token good for the whole run.
JWT_TOOL="$HERE/../tests/integration/jwt_tool.py"
openssl ecparam -name prime256v1 -genkey -noout -out "$WORK/as.pem" 2>/dev/null
python3 "$JWT_TOOL" jwks "$WORK/as.pem" k1 >"$WORK/jwks.json"
AUTH_PORT=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
AUTH_RES="http://127.0.0.1:$AUTH_PORT/mcp"
start authed libmcp_jwt env MCP_LOG_LEVEL=error "$MCP" serve --http "127.0.0.1:$AUTH_PORT" \
    --auth-issuer https://as.example --auth-resource "$AUTH_RES" --auth-jwks "$WORK/jwks.json"
now=$(date +%s)
TOKEN=$(python3 "$JWT_TOOL" sign "$WORK/as.pem" '{"typ":"at+jwt","kid":"k1"}' \
    "{\"iss\":\"https://as.example\",\"aud\":\"$AUTH_RES\",\"sub\":\"bench\",\"client_id\":\"c1\",\"iat\":$now,\"exp\":$((now + 3600)),\"jti\":\"b1\",\"scope\":\"mcp:tools\"}")
start ts1 ts1 "$NODE" "$INTEROP/ts_http_echo_server.mjs"
start ts2 ts2 "$NODE" "$INTEROP/ts2_http_echo_server.mjs"
start bare bare "$BARE"

# 2025-11-25: one session each, JSON answers. 2026-07-28: stateless, every
# request with its envelope and headers.
sid=$(session "http://127.0.0.1:$ours/mcp")
HEAD25="$ACCEPT
Mcp-Session-Id: $sid
MCP-Protocol-Version: 2025-11-25"
all25="" all26="" allbare="" alljwt=""
i=0
while [ $i -lt "$ROUNDS" ]; do
    all25="$all25 $(rate "http://127.0.0.1:$ours/mcp" "$CALL25" "$HEAD25" '"text":"hi"')"
    all26="$all26 $(rate "http://127.0.0.1:$ours/mcp" "$CALL26" "$HEAD26" '"text":"hi"')"
    allbare="$allbare $(rate "http://127.0.0.1:$bare/mcp" "$CALL26" "$HEAD26" '')"
    alljwt="$alljwt $(rate "$AUTH_RES" "$CALL26" "$HEAD26
Authorization: Bearer $TOKEN" '"text":"hi"')"
    i=$((i + 1))
done
# shellcheck disable=SC2086
r25=$(median $all25) r26=$(median $all26) r_bare=$(median $allbare) r_jwt=$(median $alljwt)

sid=$(session "http://127.0.0.1:$ts1/mcp")
r_ts1=$(rate "http://127.0.0.1:$ts1/mcp" "$CALL25" "$ACCEPT
Mcp-Session-Id: $sid
MCP-Protocol-Version: 2025-11-25" '"text":"hi"')
echo "http 2025-11-25 tools/call/s: libmcp=$r25 ts_sdk_v1=$r_ts1 ratio=$(ratio "$r25" "$r_ts1")"

r_ts2=$(rate "http://127.0.0.1:$ts2/mcp" "$CALL26" "$HEAD26" '"text":"hi"')
echo "http 2026-07-28 tools/call/s: libmcp=$r26 ts_sdk_v2=$r_ts2 ratio=$(ratio "$r26" "$r_ts2")" \
    "bare_mhd=$r_bare of_bare=$(percent "$r26" "$r_bare") of_2025=$(percent "$r26" "$r25")"
echo "http 2026-07-28 tools/call/s with JWT validation: jwt=$r_jwt plain=$r26 share=$(percent "$r_jwt" "$r26")"
