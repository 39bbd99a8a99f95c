#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp resources, templates, read, prompts, prompt and complete against the
# official TypeScript SDK (tests/interop/ts_features.mjs, served by v1's
# ts_server.mjs over stdio and ts_http_server.mjs over HTTP, and by v2's
# ts2_server.mjs under 2026-07-28), and against fake_server where a server
# must misbehave.
# $1: the mcp binary; $2: fake_server; $3: node; $4: tests/interop.
# $MCP_WRAP runs each mcp under a checker (valgrind: see tests/CMakeLists.txt).
. "$(dirname "$0")/lib.sh"
requires script
MCP=$1
FAKE=$2
NODE=$3
INTEROP=$4
[ -x "$NODE" ] || missing "no node at $NODE (make interop-deps)"
TS="$INTEROP/ts_server.mjs"

for c in resources templates read prompts prompt complete; do
    expect_exit 0 "$c --help" -- $MCP_WRAP "$MCP" $c --help
    contains "$WORK/out" "usage: mcp $c" "$c has its own help"
    contains "$WORK/out" "exit codes" "$c's help lists the exit codes"
done
expect_exit 0 "--help" -- $MCP_WRAP "$MCP" --help
for c in resources templates read prompts prompt complete; do
    contains "$WORK/out" "usage: mcp $c " "mcp --help lists $c"
done

# Lists.
expect_exit 0 "resources" -- $MCP_WRAP "$MCP" resources -- "$NODE" "$TS"
contains "$WORK/out" "file:///greeting.txt           Greeting             A text resource." "a resource's line"
contains "$WORK/out" "file:///logo.bin" "the blob resource listed"
expect_exit 0 "resources --json" -- $MCP_WRAP "$MCP" resources --json -- "$NODE" "$TS"
contains "$WORK/out" '{"uri":"file:///logo.bin","name":"logo","description":"A binary resource.","mimeType":"application/octet-stream"}' "JSON resource"
expect_exit 0 "templates" -- $MCP_WRAP "$MCP" templates -- "$NODE" "$TS"
contains "$WORK/out" "file:///docs/{name}            docs                 Documents by name." "a template's line"
expect_exit 0 "prompts" -- $MCP_WRAP "$MCP" prompts -- "$NODE" "$TS"
contains "$WORK/out" "review               Asks for a code review." "a prompt's line"
contains "$WORK/out" "    code (required): The code to review" "its required argument"
contains "$WORK/out" "    language" "its optional argument"
expect_exit 0 "prompts --json" -- $MCP_WRAP "$MCP" prompts --json -- "$NODE" "$TS"
contains "$WORK/out" '{"name":"code","description":"The code to review","required":true}' "JSON prompt"

# Reading: into a file, the bytes themselves.
expect_exit 0 "read a text resource" -- $MCP_WRAP "$MCP" read file:///greeting.txt -- "$NODE" "$TS"
printf 'Hello, world!\nsecond line \303\251\n' >"$WORK/want"
cmp "$WORK/out" "$WORK/want" || fail "the text is not byte for byte: $(od -c "$WORK/out")"
echo "ok: the text, byte for byte"
expect_exit 0 "read a blob" -- $MCP_WRAP "$MCP" read file:///logo.bin -- "$NODE" "$TS"
[ "$(od -An -tx1 "$WORK/out" | tr -d ' \n')" = 00ff1089504e470a00 ] ||
    fail "the blob's bytes: $(od -An -tx1 "$WORK/out")"
echo "ok: the blob, decoded"
expect_exit 0 "read through the template" -- $MCP_WRAP "$MCP" read file:///docs/beta -- "$NODE" "$TS"
[ "$(cat "$WORK/out")" = "doc beta" ] || fail "template read: $(cat "$WORK/out")"
expect_exit 0 "read --json" -- $MCP_WRAP "$MCP" read --json file:///logo.bin -- "$NODE" "$TS"
contains "$WORK/out" '"blob":"AP8QiVBORwoA"' "the blob as base64 in JSON"
expect_exit 3 "read a resource that does not exist" -- $MCP_WRAP "$MCP" read file:///nope -- "$NODE" "$TS"
contains "$WORK/err" "resources/read failed: " "says the read failed"
contains "$WORK/err" "file:///nope not found (JSON-RPC error -32602)" "with the server's error"
for v in 2025-06-18 2025-11-25; do
    expect_exit 0 "read with --protocol $v" -- $MCP_WRAP "$MCP" read --protocol $v file:///docs/x -- "$NODE" "$TS"
    [ "$(cat "$WORK/out")" = "doc x" ] || fail "--protocol $v: $(cat "$WORK/out")"
done

# 2026-07-28 (the v2 SDK): the same, and the lists' caching hints.
TS2="$INTEROP/ts2_server.mjs"
expect_exit 0 "resources under 2026-07-28" -- $MCP_WRAP "$MCP" resources -- "$NODE" "$TS2"
contains "$WORK/out" "file:///logo.bin" "listed under 2026-07-28"
contains "$WORK/err" "(2026-07-28, cacheable for" "with caching hints"
expect_exit 0 "read under 2026-07-28" -- $MCP_WRAP "$MCP" read file:///greeting.txt -- "$NODE" "$TS2"
printf 'Hello, world!\nsecond line \303\251\n' >"$WORK/want"
cmp "$WORK/out" "$WORK/want" || fail "the text under 2026-07-28: $(od -c "$WORK/out")"
expect_exit 0 "complete under 2026-07-28" -- $MCP_WRAP "$MCP" complete --prompt review language py -- "$NODE" "$TS2"
[ "$(cat "$WORK/out")" = python ] || fail "completion under 2026-07-28: $(cat "$WORK/out")"

# On a terminal: the blob summarised, the text made safe.
script -qfec "'$MCP' read file:///logo.bin -- '$NODE' '$TS'" /dev/null >"$WORK/tty" 2>&1 ||
    fail "read under a pty failed"
contains "$WORK/tty" "[binary file:///logo.bin, 9 bytes, application/octet-stream; redirect stdout to a file to get them]" "a blob on a terminal"
echo "ok: a blob on a terminal is summarised"

# Prompts.
expect_exit 0 "prompt" -- $MCP_WRAP "$MCP" prompt review '{"code":"x = 1","language":"python"}' -- "$NODE" "$TS"
printf '[user]\nReview this python:\nx = 1\n' >"$WORK/want"
cmp "$WORK/out" "$WORK/want" || fail "the prompt's messages: $(cat "$WORK/out")"
contains "$WORK/err" "(A review request)" "the description on stderr"
expect_exit 0 "prompt --json" -- $MCP_WRAP "$MCP" prompt --json review '{"code":"y"}' -- "$NODE" "$TS"
contains "$WORK/out" '"messages":[{"role":"user","content":{"type":"text","text":"Review this code:\ny"}}]' "JSON messages"
expect_exit 3 "prompt without its required argument" -- $MCP_WRAP "$MCP" prompt review -- "$NODE" "$TS"
contains "$WORK/err" "prompts/get failed: " "the server's refusal"
contains "$WORK/err" "(JSON-RPC error -32602)" "with its code"

# Completion.
expect_exit 0 "complete a prompt argument" -- $MCP_WRAP "$MCP" complete --prompt review language p -- "$NODE" "$TS"
printf 'perl\nphp\npython\n' >"$WORK/want"
cmp "$WORK/out" "$WORK/want" || fail "completions: $(cat "$WORK/out")"
contains "$WORK/err" "(3 of 3)" "the total"
expect_exit 0 "complete with context" -- $MCP_WRAP "$MCP" complete --prompt review --context '{"language":"python"}' style '' -- "$NODE" "$TS"
printf 'pep8\nblack\n' >"$WORK/want"
cmp "$WORK/out" "$WORK/want" || fail "completions with context: $(cat "$WORK/out")"
expect_exit 0 "complete a template variable" -- $MCP_WRAP "$MCP" complete --json --template 'file:///docs/{name}' name al -- "$NODE" "$TS"
contains "$WORK/out" '{"values":["alpha","alpine"],"total":2,"hasMore":false}' "JSON completion"

# What the user gives is checked before any server starts.
started="$WORK/started"
bad_input() {
    what=$1
    says=$2
    shift 2
    expect_exit 2 "$what" -- $MCP_WRAP "$MCP" "$@" -- sh -c "touch '$started'; exec '$NODE' '$TS'"
    contains "$WORK/err" "$says" "$what: says why"
    [ ! -e "$started" ] || fail "$what: the server was started"
}
bad_input "read: a URI that is not UTF-8" "the URI 'file:///\\xff' is not valid UTF-8" read "$(printf 'file:///\377')"
bad_input "read: no URI" "missing the URI" read
bad_input "read: an empty URI" "the URI is empty" read ''
bad_input "read: two URIs" "unexpected argument 'b'" read a b
bad_input "prompt: ARGS_JSON with a number" "ARGS_JSON: \"code\" is not a string" prompt review '{"code":1}'
bad_input "prompt: ARGS_JSON an array" "ARGS_JSON must be a JSON object of strings" prompt review '["x"]'
bad_input "prompt: ARGS_JSON not JSON" "ARGS_JSON is not valid JSON" prompt review '{code}'
bad_input "prompt: no NAME" "missing the NAME of the prompt" prompt
bad_input "complete: neither --prompt nor --template" "exactly one of --prompt NAME and --template URI" complete a b
bad_input "complete: both" "exactly one of" complete --prompt p --template t a b
bad_input "complete: no VALUE" "missing the VALUE to complete" complete --prompt review language
bad_input "complete: --context with a number" "--context: \"language\" is not a string" complete --prompt review --context '{"language":2}' style ''
bad_input "complete: --prompt before --" "mcp: --prompt needs a prompt's name" complete a b --prompt
bad_input "resources: an argument" "unexpected argument 'x'" resources x
bad_input "templates: an unknown option" "unknown option '--frob'" templates --frob

# A server that breaks the shapes: exit 3, the item named.
expect_exit 3 "a resource without uri" -- $MCP_WRAP "$MCP" resources -- "$FAKE" malformed
contains "$WORK/err" 'resources[1] ("nouri") has no "uri"' "names the item"
expect_exit 3 "a blob that is not base64" -- $MCP_WRAP "$MCP" read file:///b -- "$FAKE" malformed
contains "$WORK/err" 'has a "blob" that is not base64' "says what is wrong"
[ ! -s "$WORK/out" ] || fail "wrote something of a bad blob: $(od -c "$WORK/out")"
expect_exit 3 "101 completion values" -- $MCP_WRAP "$MCP" complete --prompt p a 101 -- "$FAKE" late
contains "$WORK/err" "101 values, more than the 100 allowed" "says the cap"
expect_exit 3 "a repeated cursor" -- $MCP_WRAP "$MCP" prompts -- "$FAKE" cursor
contains "$WORK/err" "prompts/list: the server sent a cursor it had sent before" "says the cursor"

# Over HTTP (2025-11-25, the TypeScript SDK's Streamable HTTP server).
"$NODE" "$INTEROP/ts_http_server.mjs" json >"$WORK/http.port" 2>"$WORK/http.log" &
httppid=$!
trap 'kill $httppid 2>/dev/null; rm -rf "$WORK"' EXIT
wait_for "$WORK/http.port" listening 20
URL="http://127.0.0.1:$(sed -n 's/^listening //p' "$WORK/http.port")/mcp"
expect_exit 0 "resources over HTTP" -- $MCP_WRAP "$MCP" resources --url "$URL"
contains "$WORK/out" "file:///greeting.txt" "listed over HTTP"
expect_exit 0 "read over HTTP" -- $MCP_WRAP "$MCP" read --url "$URL" file:///logo.bin
[ "$(od -An -tx1 "$WORK/out" | tr -d ' \n')" = 00ff1089504e470a00 ] || fail "the blob over HTTP"
expect_exit 0 "prompt over HTTP" -- $MCP_WRAP "$MCP" prompt --url "$URL" review '{"code":"z"}'
contains "$WORK/out" "Review this code:" "the prompt over HTTP"
expect_exit 0 "complete over HTTP" -- $MCP_WRAP "$MCP" complete --url "$URL" --template 'file:///docs/{name}' name g
[ "$(cat "$WORK/out")" = gamma ] || fail "completion over HTTP: $(cat "$WORK/out")"
echo "all resources/prompts/completion CLI tests passed"
