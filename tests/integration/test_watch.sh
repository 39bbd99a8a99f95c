#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp watch: a subscription (2026-07-28) printed as it goes; a list change
# from outside (SIGUSR1 to mcp serve adds a tool); Ctrl-C cancels the
# subscription on the wire; a server killed mid-watch is started again and
# the subscription opened again; against a legacy server, its plain
# list_changed notifications (only those asked for), and resources/subscribe
# for --resource.
. "$(dirname "$0")/lib.sh"
MCP=$1

# stop_watch SIGNAL CODE WHAT: signal the watch in the background ($watch)
# and check that it exits with CODE.
stop_watch() {
    kill -"$1" "$watch"
    wait "$watch"
    code=$?
    [ "$code" -eq "$2" ] || { cat "$WORK/err"; fail "$3: exit $code, expected $2"; }
}

server_pid() { # the newest "serving ... pid N" of the log
    sed -n 's/.*serving [0-9]* tool(s), pid \([0-9]*\).*/\1/p' "$WORK/err" | tail -n 1
}

MCP_LOG_LEVEL=debug "$MCP" watch --trace -- "$MCP" serve >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" 'listening for: tools (subscription' 10
wait_for "$WORK/err" ' tool(s), pid ' 10
contains "$WORK/err" '"method":"notifications/subscriptions/acknowledged"' "the acknowledgment"
server=$(server_pid)
kill -USR1 "$server"
wait_for "$WORK/out" "tools/list_changed" 10
contains "$WORK/err" '"io.modelcontextprotocol/subscriptionId":2' "the notification names the subscription"
echo "ok: a list change reaches the subscription"

# The server dies: watch starts it again and listens again.
kill -KILL "$server"
wait_for "$WORK/err" "starting it again" 10
wait_count "$WORK/err" 'listening for: tools' 2 10
new=$(server_pid)
[ "$new" != "$server" ] || fail "the server was not started again"
kill -USR1 "$new"
wait_count "$WORK/out" 'tools/list_changed' 2 10
echo "ok: a restarted server is listened to again"

kill -INT "$watch"
wait "$watch"
code=$?
[ "$code" -eq 130 ] || { cat "$WORK/err"; fail "Ctrl-C: exit $code, expected 130"; }
contains "$WORK/err" 'cancelling the subscription...' "announced"
# The subscription of the restarted server: ids go on across restarts, so a
# late message of the first server can never be taken for the second's.
sub=$(sed -n 's/.*listening for: tools (subscription \([0-9]*\)).*/\1/p' "$WORK/err" | tail -n 1)
[ "$sub" -gt 2 ] || fail "the second subscription reused id $sub"
contains "$WORK/err" '-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":'"$sub"',"reason":"cancelled by user"}}' "the cancel on the wire"
echo "ok: Ctrl-C cancels the subscription on the wire (exit 130)"

# The server ends the subscription (SIGTERM to it): the closing result (and
# cancel) end the watch cleanly.
MCP_LOG_LEVEL=debug "$MCP" watch --trace -- "$MCP" serve >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" 'listening for: tools' 10
wait_for "$WORK/err" ' tool(s), pid ' 10
kill -TERM "$(server_pid)"
wait "$watch"
code=$?
[ "$code" -eq 0 ] || { cat "$WORK/err"; fail "server teardown: exit $code, expected 0"; }
contains "$WORK/err" '"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo"' "the closing result"
contains "$WORK/err" '"io.modelcontextprotocol/subscriptionId":2' "names the subscription"
contains "$WORK/err" "the server ended the subscription (gracefully)" "said so"
echo "ok: the server's teardown ends the watch"

# A legacy server: its list_changed the 2025 way.
MCP_LOG_LEVEL=debug "$MCP" watch --protocol 2025-11-25 -- "$MCP" serve >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" 'no subscriptions; printing its list changes' 10
wait_for "$WORK/err" ' tool(s), pid ' 10
kill -USR1 "$(server_pid)"
wait_for "$WORK/out" "tools/list_changed" 10
stop_watch TERM 143 "SIGTERM"
echo "ok: a legacy server's list changes are printed"

# A legacy server that announces every list change (as the official
# everything server does, tools/list_changed right after initialized):
# only what was asked for is printed.
HOSTILE="$(dirname "$0")/hostile_server.py"
"$MCP" watch --prompts -- python3 "$HOSTILE" chatty >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/out" "prompts/list_changed" 10
wait_for "$WORK/err" "printing its list changes: prompts" 10
stop_watch INT 130 "--prompts (legacy)"
lacks "$WORK/out" "tools/list_changed" "a list change not asked for"
lacks "$WORK/out" "resources/list_changed" "a list change not asked for"
echo "ok: a legacy server's list changes: only those asked for"
# ... and what a 2026-07-28 server carries on the subscription unasked (an
# update of another URI, of none, a list not asked for) is not printed (it
# was: the library hands on whatever bears the subscription's id).
"$MCP" watch --tools --resource file:///a -- python3 "$HOSTILE" unasked >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/out" "tools/list_changed" 10
stop_watch INT 130 "unasked notifications (2026-07-28)"
[ "$(cat "$WORK/out")" = "$(printf 'resources/updated file:///a\ntools/list_changed')" ] ||
    { cat "$WORK/out"; fail "2026-07-28: only what was asked for is printed"; }
echo "ok: a 2026-07-28 subscription's notifications: only those asked for"

# --resource on a legacy server: resources/subscribe, and the updates of
# that URI only.
"$MCP" watch --trace --resource file:///x -- python3 "$HOSTILE" chatty >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/out" "resources/updated file:///x" 10
wait_for "$WORK/err" "subscribed to 1 resource" 10
stop_watch INT 130 "--resource (legacy)"
contains "$WORK/err" '"method":"resources/subscribe","params":{"uri":"file:///x"' "subscribed on the wire"
lacks "$WORK/out" "file:///other" "an update of a resource not asked for"
lacks "$WORK/out" "list_changed" "a list change not asked for"
echo "ok: --resource on a legacy server subscribes"
# ... one that offers no subscriptions: said, exit 3.
expect_exit 3 "--resource on a legacy server without subscriptions" -- \
    "$MCP" watch --protocol 2025-11-25 --resource demo://readme -- "$MCP" serve
contains "$WORK/err" "mcp: the server (2025-11-25) offers no resource subscriptions (resources.subscribe)" \
    "the missing capability is said"

expect_exit 2 "--max-time refused" -- "$MCP" watch --max-time 1 -- "$MCP" serve
expect_exit 2 "--resource without a URI" -- "$MCP" watch --resource
