#!/bin/sh
# SPDX-License-Identifier: MIT
# Every form of the mcp command and its exit codes, against both eras.
# $1: the mcp binary; $2: the scripted misbehaving server (fake_server).
. "$(dirname "$0")/lib.sh"
requires python3 script
MCP=$1
FAKE=$2

expect_exit 0 "--version" -- "$MCP" --version
contains "$WORK/out" "mcp 0." "version printed"
expect_exit 0 "--help" -- "$MCP" --help
contains "$WORK/out" "exit codes" "help lists the exit codes"
for c in serve tools call watch tasks; do
    expect_exit 0 "$c --help" -- "$MCP" $c --help
    contains "$WORK/out" "usage: mcp $c" "$c has its own help"
done

expect_exit 0 "tools" -- "$MCP" tools -- "$MCP" serve
contains "$WORK/out" "count" "tools lists count"
contains "$WORK/err" "2026-07-28, cacheable for" "a 2026-07-28 list carries caching hints"
expect_exit 0 "tools --json" -- "$MCP" tools --json -- "$MCP" serve
contains "$WORK/out" '"name":"sleep"' "JSON tool list"

expect_exit 0 "call echo" -- "$MCP" call echo '{"text":"hello there"}' -- "$MCP" serve
contains "$WORK/out" "hello there" "echo printed"
expect_exit 0 "call --json" -- "$MCP" call --json echo '{"text":"j"}' -- "$MCP" serve
contains "$WORK/out" '{"content":[{"type":"text","text":"j"}],"resultType":"complete"' "result as JSON"
expect_exit 0 "call count" -- "$MCP" call count '{"n":3,"delay_ms":10}' -- "$MCP" serve
contains "$WORK/out" "counted to 3" "count finished"
# A NUL inside a string survives the round trip.
"$MCP" call echo '{"text":"a\u0000b"}' -- "$MCP" serve >"$WORK/nul" 2>&1 || fail "echo with a NUL"
[ "$(od -An -c "$WORK/nul" | tr -d ' \n')" = 'a\0b\n' ] || fail "echo lost the text after a NUL: $(od -c "$WORK/nul")"
echo "ok: a NUL inside the text comes back"
"$MCP" call fail '{"message":"a\u0000b"}' -- "$MCP" serve >"$WORK/nul" 2>/dev/null
[ $? -eq 1 ] || fail "fail with a NUL: not a tool error"
[ "$(od -An -c "$WORK/nul" | tr -d ' \n')" = 'a\0b\n' ] || fail "fail cut its message at a NUL: $(od -c "$WORK/nul")"
echo "ok: fail keeps a NUL in its message"
expect_exit 1 "add_tool refuses a name with a NUL" -- "$MCP" call add_tool '{"name":"a\u0000b"}' -- "$MCP" serve
contains "$WORK/out" "add_tool: the name must not contain NUL characters" "says why"

# Each era on demand, and auto against a legacy-only server.
for v in 2025-06-18 2025-11-25 2026-07-28; do
    expect_exit 0 "--protocol $v" -- "$MCP" call --trace --protocol $v echo '{"text":"v"}' -- "$MCP" serve
    if [ $v = 2026-07-28 ]; then
        contains "$WORK/err" '"method":"server/discover"' "2026-07-28 starts with server/discover"
        contains "$WORK/err" '"io.modelcontextprotocol/protocolVersion":"2026-07-28"' "the request envelope"
        lacks "$WORK/err" '"method":"initialize"' "no initialize in 2026-07-28"
    else
        contains "$WORK/err" "\"protocolVersion\":\"$v\"" "initialize asks for $v"
        lacks "$WORK/err" '"method":"server/discover"' "no probe when the era is given"
    fi
done
expect_exit 0 "auto against a legacy server" -- "$MCP" call --trace echo '{}' -- "$FAKE" late
contains "$WORK/err" '"method":"server/discover"' "the probe"
contains "$WORK/err" '"method":"initialize"' "then the fallback"
expect_exit 3 "2026-07-28 against a legacy server" -- "$MCP" call --protocol 2026-07-28 echo '{}' -- "$FAKE" late
contains "$WORK/err" "does not speak protocol version 2026-07-28" "explains the era"

expect_exit 1 "tool error" -- "$MCP" call fail '{"message":"broken"}' -- "$MCP" serve
contains "$WORK/out" "broken" "the tool's message"
contains "$WORK/err" "reported an error" "said so"

expect_exit 2 "no command" -- "$MCP"
expect_exit 2 "unknown command" -- "$MCP" frobnicate
expect_exit 2 "missing --" -- "$MCP" call echo
expect_exit 2 "missing tool" -- "$MCP" call -- "$MCP" serve
expect_exit 2 "bad ARGS_JSON" -- "$MCP" call echo '{"text":' -- "$MCP" serve
contains "$WORK/err" "not valid JSON" "explains the JSON error"
expect_exit 2 "ARGS_JSON not an object" -- "$MCP" call echo '[1]' -- "$MCP" serve
expect_exit 2 "bad --timeout" -- "$MCP" call --timeout soon echo -- "$MCP" serve
contains "$WORK/err" "--timeout needs a number" "explains the option"
for bad in 0x10 ' 5' '5 ' 1e3 inf -1 0 '' +2; do
    expect_exit 2 "--timeout '$bad' refused" -- "$MCP" call --timeout "$bad" echo -- "$MCP" serve
done
expect_exit 2 "bad --protocol" -- "$MCP" call --protocol 2024-01-01 echo -- "$MCP" serve
expect_exit 2 "unknown option" -- "$MCP" call --frob echo -- "$MCP" serve
expect_exit 2 "unknown tools option" -- "$MCP" tools --frob -- "$MCP" serve
# A token no client could send (RFC 6750 b64token, and it must fit the
# request's headers) is refused before serving.
long_token=$(head -c 4097 /dev/zero | tr '\0' a)
for bad in '' 'a b' "$(printf 'a\001')" 'a=b' '==' "$long_token" "$(printf 'caf\303\251')"; do
    expect_exit 2 "--token refused" -- "$MCP" serve --http 127.0.0.1:0 --token "$bad"
    contains "$WORK/err" "--token takes a bearer token a client can send" "says which tokens"
done

expect_exit 3 "unknown tool" -- "$MCP" call nope -- "$MCP" serve
contains "$WORK/err" 'Unknown tool: "nope"' "JSON-RPC error shown"
expect_exit 3 "server that cannot start" -- "$MCP" call echo -- /nonexistent/server
contains "$WORK/err" "could not start" "explains the spawn failure"
expect_exit 3 "server that is not MCP" -- "$MCP" call echo -- sh -c 'echo not-mcp; exit 0'

# A repeated cursor and a list without end are reported, not followed forever.
expect_exit 3 "repeated cursor" -- "$MCP" tools -- "$FAKE" cursor
contains "$WORK/err" "a cursor it had sent before" "explains the cursor"
expect_exit 3 "endless pages" -- "$MCP" tools -- "$FAKE" pages
contains "$WORK/err" "more than 1000 pages" "explains the page limit"

# A response over the size cap ends the call at once, whichever end its id is at.
for m in huge hugetail; do
    start=$(date +%s)
    expect_exit 3 "oversized response ($m)" -- "$MCP" call --timeout 30 echo '{}' -- "$FAKE" $m
    contains "$WORK/err" "response was too large" "explains the size"
    [ $(($(date +%s) - start)) -lt 10 ] || fail "the oversized response waited for a timeout"
done

expect_exit 4 "idle timeout" -- "$MCP" call --timeout 0.3 sleep '{"seconds":10}' -- "$MCP" serve
contains "$WORK/err" "timed out after 0.3 s" "timeout explained"
contains "$WORK/err" 'reason="timed out after 300 ms"' "server got the cancel"
expect_exit 4 "a tiny timeout is a millisecond" -- "$MCP" call --timeout 0.0004 sleep '{"seconds":10}' -- "$MCP" serve
# 1 ms, not the 60 s default: the handshake or the call runs out of it.
grep -qE 'within 1 ms|reason="timed out after 1 ms"' "$WORK/err" || { cat "$WORK/err"; fail "0.0004 s is not 1 ms"; }
expect_exit 4 "maximum time" -- "$MCP" call --timeout 5 --max-time 0.4 count '{"n":100,"delay_ms":50}' -- "$MCP" serve
contains "$WORK/err" "maximum time of 0.4 s" "max time explained"
# The timeouts bound the handshake too (a server that never answers).
for opt in "--timeout 1" "--max-time 1"; do
    start=$(date +%s)
    expect_exit 4 "$opt bounds connecting" -- "$MCP" call $opt echo -- "$FAKE" silent
    [ $(($(date +%s) - start)) -lt 5 ] || fail "$opt: connecting was not bounded"
    start=$(date +%s)
    expect_exit 4 "tools $opt bounds connecting" -- "$MCP" tools $opt -- "$FAKE" noinit
    [ $(($(date +%s) - start)) -lt 5 ] || fail "tools $opt: connecting was not bounded"
done

expect_exit 130 "cancel after" -- "$MCP" call --cancel-after 0.3 sleep '{"seconds":10}' -- "$MCP" serve
contains "$WORK/err" "cancelling sleep (request 2)..." "announced the cancel"
contains "$WORK/err" 'reason="cancelled by user"' "server got the cancel with its reason"
contains "$WORK/err" "sleep: cancelled after" "the handler stopped"
for s in 0 0.0001; do
    expect_exit 130 "cancel after $s" -- timeout 10 "$MCP" call --trace --cancel-after $s sleep '{"seconds":30}' -- "$MCP" serve
    contains "$WORK/err" '"method":"notifications/cancelled"' "the cancel went out"
done

# A real Ctrl-C, then a SIGTERM, to the client only.
for sig in INT TERM; do
    # Emptied first: the job's own redirection may come after wait_for has
    # read the previous run's log (then the signal came before mcp caught it).
    : >"$WORK/err"
    "$MCP" call --trace sleep '{"seconds":30}' -- "$MCP" serve >"$WORK/out" 2>"$WORK/err" &
    pid=$!
    wait_for "$WORK/err" '"method":"tools/call"' 10
    kill -$sig "$pid"
    wait "$pid"
    code=$?
    want=130
    [ $sig = TERM ] && want=143
    [ "$code" -eq $want ] || { cat "$WORK/err"; fail "SIG$sig: exit $code, expected $want"; }
    contains "$WORK/err" 'cancelling sleep (request 2)...' "SIG$sig announced the cancel"
    contains "$WORK/err" '-> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"cancelled by user"}}' "SIG$sig: the cancel on the wire"
    contains "$WORK/err" 'sleep: cancelled after' "SIG$sig: the server's handler stopped"
    lacks "$WORK/err" '<- {"jsonrpc":"2.0","id":2' "SIG$sig: no response after the cancel"
    echo "ok: SIG$sig (exit $code)"
done

# On a terminal: a live progress bar on stderr (a pty through script(1)),
# cleared once the call ends.
script -qfec "'$MCP' call count '{\"n\":3,\"delay_ms\":50}' -- '$MCP' serve" /dev/null \
    >"$WORK/tty" 2>&1 || fail "call under a pty failed"
contains "$WORK/tty" "count [##########--------------------] 1/3  step 1 of 3" "the bar at 1/3"
contains "$WORK/tty" "count [##############################] 3/3  step 3 of 3" "the bar at 3/3"
contains "$WORK/tty" "counted to 3" "the result after the bar"
echo "ok: progress bar on a terminal"

# An option that needs a value never takes the "--" before the server
# command (nor a missing one) as it, in any command.
for cmd in "tools --timeout" "tools --max-time" "tools --protocol" \
           "call --timeout" "call --max-time" "call --protocol" "call --cancel-after" \
           "watch --timeout" "watch --protocol" "watch --resource"; do
    set -- $cmd
    opt=$2
    expect_exit 2 "$cmd before --" -- "$MCP" $cmd -- "$MCP" serve
    contains "$WORK/err" "mcp: $opt needs " "$cmd before --: says what it needs"
    lacks "$WORK/err" "'--'" "$cmd before --: took -- as its value"
    lacks "$WORK/err" "unexpected argument" "$cmd before --: blamed the server command"
    expect_exit 2 "$cmd last" -- "$MCP" $cmd
    contains "$WORK/err" "mcp: $opt needs " "$cmd last: says what it needs"
done
expect_exit 2 "--resource -- --tools" -- "$MCP" watch --resource -- --tools -- "$MCP" serve
contains "$WORK/err" "mcp: --resource needs a URI" "--resource -- --tools"
expect_exit 2 "--resource takes no option as its URI" -- "$MCP" watch --resource --tools -- "$MCP" serve
contains "$WORK/err" "mcp: --resource needs a URI, not '--tools'" "--resource --tools"

# Messages that say what is wrong.
expect_exit 2 "--version with an extra argument" -- "$MCP" --version extra
contains "$WORK/err" "mcp: unexpected argument 'extra' after --version" "names the extra argument"
expect_exit 2 "a --timeout over the limit" -- "$MCP" call --timeout 999999999999 echo -- "$MCP" serve
contains "$WORK/err" "mcp: --timeout takes at most 1000000000 seconds" "states the limit"
expect_exit 0 "a --timeout at the limit" -- "$MCP" call --timeout 1000000000 echo '{"text":"x"}' -- "$MCP" serve
# A tool name that is not UTF-8, or empty: a usage error, before any
# server is started.
rm -f "$WORK/started"
expect_exit 2 "a tool name that is not UTF-8" -- \
    "$MCP" call "$(printf 'x\377')" '{}' -- sh -c ': >"$0"' "$WORK/started"
contains "$WORK/err" "is not valid UTF-8" "says why"
[ ! -e "$WORK/started" ] || fail "the server was started for a tool name that is not UTF-8"
expect_exit 2 "an empty tool name" -- "$MCP" call '' '{}' -- sh -c ': >"$0"' "$WORK/started"
contains "$WORK/err" "mcp: the TOOL name is empty" "says why"
[ ! -e "$WORK/started" ] || fail "the server was started for an empty tool name"
expect_exit 2 "a --resource URI that is not UTF-8" -- \
    "$MCP" watch --resource "$(printf 'file:///\376')" -- sh -c ': >"$0"' "$WORK/started"
contains "$WORK/err" "is not valid UTF-8" "says why"
[ ! -e "$WORK/started" ] || fail "the server was started for a URI that is not UTF-8"
# What the user gave for HTTP is checked before anything is sent: usage
# errors (2), each said precisely, a password never repeated.
expect_exit 2 "a URL with a port out of range" -- "$MCP" call echo '{}' --url 'http://127.0.0.1:99999/mcp'
contains "$WORK/err" "between 0 and 65535" "says why"
expect_exit 2 "a URL with a space" -- "$MCP" call echo '{}' --url 'http://a:hunter2@x y/'
contains "$WORK/err" "a space at byte 18 of the URL" "says where"
lacks "$WORK/err" "hunter2" "the password is not repeated"
# Every client command declares the same capabilities as mcp call (a
# server may offer different tools to a client that can answer it).
caps_of() { # the capabilities of the initialize line traced in $WORK/err
    sed -n 's/.*-> {"jsonrpc":"2.0","id":[0-9]*,"method":"initialize","params":{"protocolVersion":"[^"]*","capabilities":\(.*\),"clientInfo".*/\1/p' "$WORK/err" | head -n 1
}
expect_exit 0 "call's capabilities" -- "$MCP" call --trace --protocol 2025-11-25 echo '{"text":"x"}' -- "$MCP" serve
call_caps=$(caps_of)
case $call_caps in *'"sampling"'*'"elicitation"'*) ;; *) fail "call declares sampling and elicitation: '$call_caps'";; esac
for c in tools resources templates prompts; do
    expect_exit 0 "$c's capabilities" -- "$MCP" $c --trace --protocol 2025-11-25 -- "$MCP" serve
    [ "$(caps_of)" = "$call_caps" ] || fail "$c declares '$(caps_of)', call '$call_caps'"
done
"$MCP" watch --trace --protocol 2025-11-25 -- "$MCP" serve >"$WORK/out" 2>"$WORK/err" &
watch=$!
wait_for "$WORK/err" "printing its list changes" 10
kill -TERM $watch
wait $watch
[ "$(caps_of)" = "$call_caps" ] || fail "watch declares '$(caps_of)', call '$call_caps'"
echo "ok: every client command declares the same capabilities"

expect_exit 2 "a header the transport owns" -- "$MCP" call echo '{}' --url http://127.0.0.1:9/ \
    --header 'Accept-Encoding: gzip'
contains "$WORK/err" "cannot send the header Accept-Encoding" "names it"
expect_exit 2 "a CA file that cannot be read" -- "$MCP" call echo '{}' --url https://127.0.0.1:9/ \
    --ca-file "$WORK/no-such.pem"
contains "$WORK/err" "cannot read the CA file" "says so"
expect_exit 3 "an unreachable URL with a password" -- "$MCP" call echo '{}' --url 'http://me:hunter2@127.0.0.1:9/'
contains "$WORK/err" "cannot reach http://me:***@127.0.0.1:9/" "the URL shown"
lacks "$WORK/err" "hunter2" "without the password"
# A 2025 server that exits on the server/discover probe: the hint.
HOSTILE="$(dirname "$0")/hostile_server.py"
expect_exit 3 "a server that dies on the probe" -- "$MCP" call echo '{}' -- python3 "$HOSTILE" die_on_discover
contains "$WORK/err" "--protocol 2025-11-25 (or 2025-06-18) skips the probe" "the hint"
expect_exit 0 "the hint works" -- "$MCP" call --protocol 2025-11-25 echo '{}' -- python3 "$HOSTILE" die_on_discover
# It says something, reads the probe, and exits: what it said is read
# before its end. (Exiting before the probe is written would make the
# write fail first, and what it said would never be read.)
expect_exit 3 "a server that exits after answering" -- "$MCP" call echo '{}' -- sh -c 'echo not-mcp; read x'
lacks "$WORK/err" "skips the probe" "no hint for a server that said something"

# Tasks (2025-11-25): a tool that must run as a task runs as one without
# --task (its listing says so), its status changes on stderr.
T="--protocol 2025-11-25"
expect_exit 0 "a required tool runs as a task" -- "$MCP" call $T job '{"n":2,"delay_ms":10}' -- "$MCP" serve
contains "$WORK/out" "counted to 2" "its result"
contains "$WORK/err" ": working" "its status"
contains "$WORK/err" ": completed" "its end"
# Ctrl-C (here --cancel-after) is tasks/cancel, never notifications/cancelled.
expect_exit 130 "a task cancelled" -- "$MCP" call $T --trace --task --ttl 60 sleep '{"seconds":30}' \
    --cancel-after 0.3 -- "$MCP" serve
contains "$WORK/err" '"method":"tasks/cancel"' "tasks/cancel sent"
contains "$WORK/err" '"task":{"ttl":60000}' "the ttl asked for"
lacks "$WORK/err" '"method":"notifications/cancelled"' "no notifications/cancelled"
contains "$WORK/err" "(the task was cancelled (tasks/cancel))" "the server's handler stopped"
contains "$WORK/err" ": cancelled" "the state it ended in"
# Ctrl-C before CreateTaskResult came: the task is still cancelled once its
# id comes (the client waits for it as it closes).
expect_exit 130 "a task cancelled before its id came" -- "$MCP" call --task slow '{}' \
    --cancel-after 0.3 -- python3 "$(dirname "$0")/slow_task_server.py" "$WORK/slow_seen"
contains "$WORK/slow_seen" '"method":"tasks/cancel","params":{"taskId":"T1"}' \
    "tasks/cancel for the task whose id came after the cancel"
# A 2025 task is its session's, which ends with the command: no --detach.
expect_exit 2 "--detach under 2025" -- "$MCP" call $T --detach count '{"n":1,"delay_ms":0}' -- "$MCP" serve
contains "$WORK/err" "a task belongs to its session" "says why"
expect_exit 3 "--task where there are no tasks" -- "$MCP" call --protocol 2025-06-18 --task echo '{}' -- "$MCP" serve
contains "$WORK/err" "the server runs no tool as a task" "says why"
expect_exit 2 "--ttl 0" -- "$MCP" call $T --ttl 0 sleep '{}' -- "$MCP" serve
expect_exit 0 "tasks list" -- "$MCP" tasks $T list -- "$MCP" serve
expect_exit 3 "tasks get of an unknown task" -- "$MCP" tasks $T get 0123 -- "$MCP" serve
contains "$WORK/err" "no task" "the server's error"
expect_exit 2 "tasks without a verb" -- "$MCP" tasks -- "$MCP" serve
expect_exit 2 "tasks cancel without an id" -- "$MCP" tasks cancel -- "$MCP" serve
expect_exit 3 "tasks/list under 2026-07-28" -- "$MCP" tasks --protocol 2026-07-28 list -- "$MCP" serve
contains "$WORK/err" "protocol revision 2026-07-28 has no tasks/list" "says the revision has none"
expect_exit 3 "tasks/result under 2026-07-28" -- "$MCP" tasks --protocol 2026-07-28 result 0123 -- "$MCP" serve
contains "$WORK/err" "has no tasks/result" "says the revision has none"
# 2026-07-28 (the tasks extension): --task declares it on the call; the
# end comes from tasks/get; Ctrl-C is tasks/cancel once the id is known.
expect_exit 0 "a 2026 task call" -- "$MCP" call --protocol 2026-07-28 --trace --task job '{"n":2,"delay_ms":10}' -- "$MCP" serve
contains "$WORK/out" "counted to 2" "the task's result"
contains "$WORK/err" '"io.modelcontextprotocol/tasks":{}' "the extension declared"
contains "$WORK/err" '"method":"tasks/get"' "polled with tasks/get"
expect_exit 130 "a 2026 task cancelled" -- "$MCP" call --protocol 2026-07-28 --trace --task --cancel-after 0.5 sleep '{"seconds":30}' -- "$MCP" serve
contains "$WORK/err" '"method":"tasks/cancel"' "tasks/cancel sent"
expect_exit 0 "a 2026 task detached" -- "$MCP" call --protocol 2026-07-28 --detach sleep '{"seconds":30}' -- "$MCP" serve
grep -Eq '^[0-9a-f]{32}$' "$WORK/out" || fail "--detach printed '$(cat "$WORK/out")', not a task id"
expect_exit 3 "tasks get of an unknown 2026 task" -- "$MCP" tasks --protocol 2026-07-28 get 0123 -- "$MCP" serve
expect_exit 3 "tasks update under 2025-11-25" -- "$MCP" tasks $T update 0123 '{}' -- "$MCP" serve
contains "$WORK/err" "has no tasks/update" "says the revision has none"
