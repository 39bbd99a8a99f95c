#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp serve --state-key-file: processes given the same key file take each
# other's 2026-07-28 requestState (a round answered on another process
# behind a balancer), a process with its own key refuses it, and a key file
# that cannot serve is refused before serving, with the reason.
. "$(dirname "$0")/lib.sh"
MCP=$1
requires curl head

head -c 32 /dev/urandom >"$WORK/key"
chmod 600 "$WORK/key"
head -c 32 /dev/urandom >"$WORK/other-key"
chmod 600 "$WORK/other-key"

# serve NAME [options]: mcp serve --http on a free port; its URL in $URL_NAME.
pids=
serve() {
    name=$1
    shift
    "$MCP" serve --http 127.0.0.1:0 "$@" >/dev/null 2>"$WORK/$name.err" &
    pids="$pids $!"
    wait_for "$WORK/$name.err" "listening on http://127.0.0.1:" 10
    port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/$name.err" | head -n 1)
    eval "URL_$name=http://127.0.0.1:$port/mcp"
}
trap 'kill $pids 2>/dev/null; rm -rf "$WORK"' EXIT
serve a --state-key-file "$WORK/key"
serve b --state-key-file "$WORK/key"
serve c --state-key-file "$WORK/other-key"
serve d

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}'
# call NAME URL BODY: a 2026-07-28 tools/call of confirm.
call() {
    curl -s -o "$WORK/$1.body" -w '%{http_code}' -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
        -H 'Mcp-Method: tools/call' -H 'Mcp-Name: confirm' --data-binary "$3" "$2" >"$WORK/$1.status"
}
# status NAME CODE TEXT
status() {
    got=$(cat "$WORK/$1.status")
    [ "$got" = "$2" ] || { cat "$WORK/$1.body"; fail "$1: status $got, expected $2"; }
    contains "$WORK/$1.body" "$3" "$1"
    echo "ok: $1 ($got)"
}

# round URL: the requestState of confirm's input_required round there.
round() {
    call first "$1" '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},'"$META"'}}'
    status first 200 '"resultType":"input_required"' >&2
    sed -n 's/.*"requestState":"\([^"]*\)".*/\1/p' "$WORK/first.body"
}
retry() {
    echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{},"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"'"$1"'",'"$META"'}}'
}

state=$(round "$URL_a")
[ -n "$state" ] || fail "a's round carries a requestState"
call on_b "$URL_b" "$(retry "$state")"
status on_b 200 '"text":"confirmed"'
call on_a "$URL_a" "$(retry "$state")"
status on_a 200 '"text":"confirmed"'
# Another key, or one made per process: the state is not theirs.
call on_c "$URL_c" "$(retry "$state")"
status on_c 400 '"code":-32602,"message":"Invalid params: requestState'
call on_d "$URL_d" "$(retry "$state")"
status on_d 400 '"code":-32602'
# And the other way: b's state on a.
state=$(round "$URL_b")
call b_on_a "$URL_a" "$(retry "$state")"
status b_on_a 200 '"text":"confirmed"'

# Key files that cannot serve: exit 2 before anything is served.
expect_exit 2 "a key file that does not exist" -- "$MCP" serve --http 127.0.0.1:0 --state-key-file "$WORK/nothing"
contains "$WORK/err" "--state-key-file: cannot read" "missing file"
head -c 31 /dev/urandom >"$WORK/short"
expect_exit 2 "a key of 31 bytes" -- "$MCP" serve --state-key-file "$WORK/short"
contains "$WORK/err" "shorter than 32 bytes" "short key"
: >"$WORK/empty"
expect_exit 2 "an empty key file" -- "$MCP" serve --state-key-file "$WORK/empty"
contains "$WORK/err" "shorter than 32 bytes" "empty key"
head -c 1025 /dev/zero >"$WORK/long"
expect_exit 2 "a key of 1025 bytes" -- "$MCP" serve --state-key-file "$WORK/long"
contains "$WORK/err" "longer than 1024 bytes" "long key"
expect_exit 2 "a directory" -- "$MCP" serve --state-key-file "$WORK"
contains "$WORK/err" "not a regular file" "directory"
expect_exit 2 "no value" -- "$MCP" serve --state-key-file
contains "$WORK/err" "--state-key-file needs a value" "no value"
# Readable by others: served (stdio here, ended by its input), with a warning.
chmod 644 "$WORK/key"
expect_exit 0 "a key open to others" -- sh -c '"$1" serve --state-key-file "$2" </dev/null' sh "$MCP" "$WORK/key"
contains "$WORK/err" "is open to other users" "open key"
echo "state key: all passed"
