#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per HTTP request of `mcp serve --http`, under callgrind: the
# steady figure the noisy request rates of bench_http.sh cannot give (a
# shared machine). One keep-alive connection (curl) sends N tools/call
# echoes after 200 to warm up; callgrind counts only the N.
#
#   http_instructions.sh MCP [N]
#
# Prints
#   http 2025-11-25 instructions/request: <n>
#   http 2026-07-28 instructions/request: <n> of_2025=<pct>
set -eu
MCP=$1
N=${2:-2000}
for tool in valgrind callgrind_control curl; do
    command -v $tool >/dev/null || { echo "http_instructions: $tool is needed" >&2; exit 1; }
done
WORK=$(mktemp -d)
MCP_LOG_LEVEL=error valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.%p" \
    "$MCP" serve --http 127.0.0.1:0 2>"$WORK/err" &
pid=$!
trap 'kill $pid 2>/dev/null || :; wait $pid 2>/dev/null || :; rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
i=0
while :; do
    port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' "$WORK/err" | head -n 1)
    [ -z "$port" ] || break
    i=$((i + 1))
    [ $i -lt 300 ] || { cat "$WORK/err" >&2; echo "http_instructions: no server" >&2; exit 1; }
    sleep 0.1
done
URL="http://127.0.0.1:$port/mcp"
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL25='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'
CALL26='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'$META'}}'

post() { # OUT HEADERS... -- URL BODY
    out=$1
    shift
    curl -s -o "$out" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' "$@"
}

post /dev/null -D "$WORK/init" "$URL" --data-binary \
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
sid=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([^[:space:]]*\).*/\1/p' "$WORK/init" | tr -d '\r')
[ -n "$sid" ] || { echo "http_instructions: no session" >&2; exit 1; }
post /dev/null -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' "$URL" \
    --data-binary '{"jsonrpc":"2.0","method":"notifications/initialized"}'

# measure NAME BODY HEADER...: instructions per request (every answer
# checked: the last one is read back).
measure() {
    name=$1
    body=$2
    shift 2
    post /dev/null "$@" "$URL?[1-200]" --data-binary "$body"
    callgrind_control -z $pid >/dev/null 2>&1
    post "$WORK/answer" "$@" "$URL?[1-$N]" --data-binary "$body"
    callgrind_control -d $pid >/dev/null 2>&1
    grep -q '"text":"hi"' "$WORK/answer" || { echo "http_instructions: wrong answer" >&2; exit 1; }
    f=$(ls -t "$WORK"/cg.$pid.* | head -n 1)
    total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$f")
    rm -f "$f"
    echo $((total / N))
}
ir25=$(measure 2025 "$CALL25" -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25')
ir26=$(measure 2026 "$CALL26" -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
    -H 'Mcp-Name: echo')
echo "http 2025-11-25 instructions/request: $ir25"
echo "http 2026-07-28 instructions/request: $ir26 of_2025=$(awk -v a="$ir26" -v b="$ir25" 'BEGIN { printf "%.0f%%", b ? 100 * a / b : 0 }')"
