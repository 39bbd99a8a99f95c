#!/bin/sh
# SPDX-License-Identifier: MIT
# Text from a server never reaches the terminal as control characters:
# error and progress messages, tool names and descriptions, content types,
# resource links' URIs, log messages,
# watch's URIs and wire traces show them escaped (\x1b, \u009b, \r\n on one
# line). A tool's text result is the data itself: byte for byte into a file
# or pipe, escaped only on a terminal.
. "$(dirname "$0")/lib.sh"
MCP=$1
HOSTILE="$(dirname "$0")/hostile_server.py"
requires python3 script
ESC=$(printf '\033')
ESCAPED='\x1b[2J\x1b]0;PWNED\x07\x1b[31mred\r\nforged\x7f\u009b1m'

# clean FILE WHAT: no control character but tab and newline, no DEL, no C1.
clean() {
    if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" ||
       LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$1"; then
        echo "--- $1"; od -c "$1" | head -n 20
        fail "$2: a control character went through"
    fi
}

expect_exit 3 "a JSON-RPC error message with escapes" -- \
    "$MCP" call echo '{}' -- python3 "$HOSTILE" error_esc
grep -v '^got: ' "$WORK/err" >"$WORK/shown"
clean "$WORK/shown" "the error message"
contains "$WORK/shown" "mcp: echo failed: $ESCAPED (JSON-RPC error -1)" "the message, on one line"

expect_exit 0 "tool names and descriptions with escapes" -- \
    "$MCP" tools -- python3 "$HOSTILE" list_esc
clean "$WORK/out" "the tool list"
contains "$WORK/out" "evil$ESCAPED says $ESCAPED" "the tool, on one line"
[ "$(wc -l <"$WORK/out")" -eq 1 ] || fail "one tool printed as more than one line"

expect_exit 0 "a content type with escapes" -- "$MCP" call echo '{}' -- python3 "$HOSTILE" mime_esc
clean "$WORK/out" "the content type"
contains "$WORK/out" "[image image/$ESCAPED]" "the content type, escaped"

# A resource link and an embedded resource: each with its URI, escaped.
expect_exit 0 "resource links with escapes" -- "$MCP" call echo '{}' -- python3 "$HOSTILE" link_esc
clean "$WORK/out" "the resource links"
contains "$WORK/out" "[resource_link text/plain] file:///link$ESCAPED" "the link's URI, escaped"
contains "$WORK/out" "[resource] file:///embedded$ESCAPED" "the embedded resource's URI, escaped"

# The server's logs (notifications/message): on stderr at the level it
# sent, escaped; data that is not a string as JSON.
expect_exit 0 "logs with escapes" -- "$MCP" call echo '{}' -- python3 "$HOSTILE" log_esc
grep -v '^got: ' "$WORK/err" >"$WORK/shown"
clean "$WORK/shown" "the logs"
contains "$WORK/shown" '"hostile" debug: fine detail' "a debug log"
contains "$WORK/shown" "\"hostile\" warning (disk): almost full $ESCAPED" "a warning with its logger, escaped"
contains "$WORK/shown" '"hostile" error: {"code":7,"why":"broken"}' "an error log's data as JSON"
contains "$WORK/out" "ok" "the result"

expect_exit 0 "a wire trace with escapes" -- "$MCP" call --trace echo '{}' -- python3 "$HOSTILE" banner_esc
grep -v '^got: ' "$WORK/err" >"$WORK/shown"
clean "$WORK/shown" "the trace"
contains "$WORK/shown" '<- starting \x1b[2J\x1b]0;PWNED\x07\x1b[31mred' "the line as received, escaped"

# The result's text into a file: the data, exactly.
expect_exit 0 "a result with escapes, into a file" -- "$MCP" call echo '{}' -- python3 "$HOSTILE" progress_esc
printf 'payload \033[2J\033]0;PWNED\007\033[31mred\r\nforged\177\302\2331m\n' >"$WORK/want"
cmp -s "$WORK/out" "$WORK/want" || { od -c "$WORK/out"; fail "the result was not written byte for byte"; }
echo "ok: the result is written byte for byte into a file"

# On a terminal (a pty through script(1)): the progress message and the
# result are shown escaped; only mcp's own bar control (\r ESC[K) is raw.
script -qfec "'$MCP' call echo '{}' -- python3 '$HOSTILE' progress_esc 2>/dev/null" /dev/null \
    >"$WORK/tty" 2>&1 || fail "call under a pty failed"
script -qfec "'$MCP' call echo '{}' -- python3 '$HOSTILE' progress_esc" /dev/null \
    >"$WORK/tty2" 2>&1 || fail "call under a pty failed"
for f in "$WORK/tty" "$WORK/tty2"; do
    for raw in "$ESC[2J" "$ESC]0;" "$ESC[31m" "$(printf '\007')" "$(printf '\177')" \
               "$(printf '\302\233')"; do
        if LC_ALL=C grep -qF -- "$raw" "$f"; then od -c "$f"; fail "raw control on the terminal"; fi
    done
done
# The payload keeps its lines: the CR is shown, the newline kept.
contains "$WORK/tty" 'payload \x1b[2J\x1b]0;PWNED\x07\x1b[31mred\r' "the result, escaped on a terminal"
contains "$WORK/tty" 'forged\x7f\u009b1m' "the result's second line, escaped"
contains "$WORK/tty2" "echo [###############---------------] 1/2  $ESCAPED" "the progress message, escaped"
echo "ok: nothing from the server drives the terminal"

# watch: a URI with escapes (the one asked for: watch prints nothing else).
NASTY_URI=$(printf 'file:///x\033[2J\033]0;PWNED\007\033[31mred\r\nforged\177\302\2331m')
"$MCP" watch --resource "$NASTY_URI" -- python3 "$HOSTILE" notif_esc >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/out" "resources/updated" 10
kill -INT "$watch"
wait "$watch"
clean "$WORK/out" "watch's output"
contains "$WORK/out" "resources/updated file:///x$ESCAPED" "the URI, escaped, on one line"
echo "ok: watch escapes what it prints"
