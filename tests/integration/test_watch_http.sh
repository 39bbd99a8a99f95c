#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp watch --url: a server killed and started again on the same port is
# reached again, in both eras (2026: the subscription opened again; 2025:
# the ended session replaced, its GET stream reopened), and the next list
# change is printed; a 2025 server that refuses the GET stream (405) leaves
# nothing to watch (exit 3, at once).
. "$(dirname "$0")/lib.sh"
requires python3
MCP=$1
HOSTILE_HTTP="$(dirname "$0")/hostile_http_server.py"

start_server() { # start_server PORT: $server, listening
    "$MCP" serve --http "127.0.0.1:$1" >/dev/null 2>"$WORK/srv" &
    server=$!
    wait_for "$WORK/srv" "listening on http://127.0.0.1:" 10
}
trap 'kill $server $watch 2>/dev/null' EXIT

start_server 0
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/srv" | head -n 1)
URL="http://127.0.0.1:$port/mcp"

for era in 2026-07-28 2025-11-25; do
    ready="listening for: tools"
    [ "$era" = 2025-11-25 ] && ready="printing its list changes: tools"
    "$MCP" watch --protocol "$era" --url "$URL" >"$WORK/out" 2>"$WORK/err" &
    watch=$!
    wait_for "$WORK/err" "$ready" 10
    kill -9 "$server"
    wait "$server" 2>/dev/null
    sleep 1.5 # the watch finds it gone, and tries again while it is down
    start_server "$port"
    # (2025: the GET stream, refused while the server is down, retries after
    # 1, 2, 4 ... s: a loaded machine may see the 404 of the new server late.)
    wait_count "$WORK/err" "$ready" 2 60
    contains "$WORK/err" "reaching it again" "$era: said what it does"
    kill -USR1 "$server" # mcp serve adds a tool: a list change
    wait_for "$WORK/out" "tools/list_changed" 10
    running "$watch" || fail "$era: the watch ended"
    kill -INT "$watch"
    wait "$watch"
    code=$?
    [ "$code" -eq 130 ] || { cat "$WORK/err"; fail "$era: Ctrl-C: exit $code, expected 130"; }
    echo "ok: $era: a restarted server is reached again and watched"
done
kill "$server"

python3 "$HOSTILE_HTTP" legacy >"$WORK/hostile" 2>&1 &
server=$!
wait_for "$WORK/hostile" "listening " 10
hport=$(sed -n 's/^listening \([0-9]*\)/\1/p' "$WORK/hostile" | head -n 1)
expect_exit 3 "GET refused" -- timeout 20 "$MCP" watch --url "http://127.0.0.1:$hport/mcp"
contains "$WORK/err" "mcp: the server offers no stream for its notifications (its GET answered 405): nothing to watch" "said why"
echo "ok: a 2025 server without a GET stream ends the watch"
# The same server, a call it answers with HTTP 503: told as the HTTP
# failure it is (MCP_ERR_HTTP), not as a JSON-RPC error of the server's.
expect_exit 3 "a call answered 503" -- timeout 20 "$MCP" call busy '{}' --url "http://127.0.0.1:$hport/mcp"
contains "$WORK/err" "mcp: busy failed: HTTP 503" "the status"
contains "$WORK/err" "overloaded, try later" "the start of the body"
lacks "$WORK/err" "JSON-RPC error" "no JSON-RPC code made up"
echo "ok: a call answered 503 is told as an HTTP failure"
kill "$server"
wait "$server" 2>/dev/null || :

# A 2026-07-28 server that answers the listen itself with HTTP 503: the
# watch ends saying so, with the status, and is not taken for a stream that
# broke (which would be reached again, and again).
python3 "$HOSTILE_HTTP" modern >"$WORK/hostile_modern" 2>&1 &
server=$!
wait_for "$WORK/hostile_modern" "listening " 10
hport=$(sed -n 's/^listening \([0-9]*\)/\1/p' "$WORK/hostile_modern" | head -n 1)
expect_exit 3 "a listen answered 503" -- timeout 20 "$MCP" watch --url "http://127.0.0.1:$hport/mcp"
contains "$WORK/err" "mcp: subscriptions/listen failed: " "said what failed"
contains "$WORK/err" "(HTTP 503)" "the status"
lacks "$WORK/err" "JSON-RPC error" "no JSON-RPC code made up"
lacks "$WORK/err" "went away" "not taken for a broken stream"
kill "$server"
echo "ok: a listen answered 503 ends the watch with the status"
