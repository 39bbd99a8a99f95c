#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp serve --http against plain curl: every refusal with its status and
# error, 2026-07-28 stateless calls (header checks, JSON and event-stream
# answers, a disconnect that cancels), 2025 sessions (initialize, session
# header, posted cancels confined to their session, GET stream, DELETE).
. "$(dirname "$0")/lib.sh"
MCP=$1
requires curl python3 openssl

# $MCP_WRAP runs the server under a checker (valgrind: see tests/CMakeLists.txt).
MCP_LOG_LEVEL=debug $MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --token secret --token other >"$WORK/out" 2>"$WORK/srv" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
wait_for "$WORK/srv" "listening on http://127.0.0.1:" 10
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/srv" | head -n 1)
URL="http://127.0.0.1:$port/mcp"
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# req NAME [curl options...]: the status in $WORK/NAME.status, the body in
# $WORK/NAME.body, the headers in $WORK/NAME.headers.
req() {
    name=$1
    shift
    curl -s -o "$WORK/$name.body" -D "$WORK/$name.headers" -w '%{http_code}' \
        -H "Authorization: ${AUTH:-Bearer secret}" "$@" >"$WORK/$name.status"
}

# post NAME BODY [curl options...]: a well-formed POST.
post() {
    name=$1
    body=$2
    shift 2
    req "$name" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' "$@" --data-binary "$body" "$URL"
}

# modern NAME METHOD TOOL BODY [options]: a 2026-07-28 POST with its headers.
modern() {
    name=$1
    method=$2
    tool=$3
    body=$4
    shift 4
    if [ -n "$tool" ]; then
        post "$name" "$body" -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: $method" \
            -H "Mcp-Name: $tool" "$@"
    else
        post "$name" "$body" -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: $method" "$@"
    fi
}

# status NAME CODE [TEXT]: the status, and TEXT in the body.
status() {
    got=$(cat "$WORK/$1.status")
    [ "$got" = "$2" ] || { cat "$WORK/$1.headers" "$WORK/$1.body"; fail "$1: status $got, expected $2"; }
    [ -z "$3" ] || contains "$WORK/$1.body" "$3" "$1"
    echo "ok: $1 ($got)"
}

call_echo='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'$META'}}'

# Refusals before the body is read.
modern ok tools/call echo "$call_echo"
status ok 200 '"text":"hi"'
AUTH='Bearer wrong' modern token tools/call echo "$call_echo"
status token 401 '"code":-32600'
contains "$WORK/token.headers" "WWW-Authenticate: Bearer" "401 names the scheme"
modern host tools/call echo "$call_echo" -H 'Host: evil.example'
status host 403 'Host not allowed'
modern origin tools/call echo "$call_echo" -H 'Origin: http://evil.example'
status origin 403 'Origin not allowed'
modern origin_ok tools/call echo "$call_echo" -H "Origin: http://localhost:$port"
status origin_ok 200 '"text":"hi"'
req type -H 'Content-Type: text/plain' -H 'Accept: application/json, text/event-stream' \
    --data-binary "$call_echo" "$URL"
status type 415 'Content-Type must be application/json'
req accept -H 'Content-Type: application/json' -H 'Accept: application/json' \
    --data-binary "$call_echo" "$URL"
status accept 406 'Accept must list'
# A wildcard covers what it names: everything, or a major type (any case,
# with parameters); text/* alone still lacks application/json.
H26='MCP-Protocol-Version: 2026-07-28'
for a in 'any:*/*' 'major:Application/*;q=0.9, TEXT/* ' 'text_only:text/*'; do
    req "accept_${a%%:*}" -H 'Content-Type: application/json' -H "Accept: ${a#*:}" -H "$H26" \
        -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' --data-binary "$call_echo" "$URL"
done
status accept_any 200 '"text":"hi"'
status accept_major 200 '"text":"hi"'
status accept_text_only 406 'Accept must list'
head -c 5000000 /dev/zero | tr '\0' ' ' >"$WORK/big"
req big -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data-binary @"$WORK/big" "$URL"
status big 413 'exceeds'
# Without a declared length the cap is met while the body streams in: the
# connection is closed, and the server goes on serving.
req bigchunked -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'Transfer-Encoding: chunked' --data-binary @"$WORK/big" --max-time 20 "$URL"
# (curl reports 100 when the interim "100 Continue" was all it got.)
case $(cat "$WORK/bigchunked.status") in
000 | 100) echo "ok: an oversized chunked body ends its connection" ;;
*) fail "an oversized chunked body ends its connection, not $(cat "$WORK/bigchunked.status")" ;;
esac
modern after_big tools/call echo "$call_echo"
status after_big 200 '"text":"hi"'
req path -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data-binary "$call_echo" "http://127.0.0.1:$port/other"
status path 404
req put -X PUT "$URL"
status put 405
contains "$WORK/put.headers" "Allow: GET, POST, DELETE" "405 lists the methods"

# Bodies that are not one message.
post parse '{"jsonrpc":'
status parse 400 '"code":-32700'
post batch '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'
status batch 400 'batch needs a 2025-03-26 session'
post invalid '{"jsonrpc":"1.0","id":9,"method":"x"}'
status invalid 400 '"code":-32600'

# 2026-07-28: headers agree with the body, or -32020.
post nover "$call_echo" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo'
status nover 400 '"code":-32020'
post badver "$call_echo" -H 'MCP-Protocol-Version: 2025-11-25' -H 'Mcp-Method: tools/call' \
    -H 'Mcp-Name: echo'
status badver 400 '"code":-32020'
modern method tools/list echo "$call_echo"
status method 400 '"code":-32020'
modern name tools/call fail "$call_echo"
status name 400 '"code":-32020'
post noname "$call_echo" -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call'
status noname 400 'Mcp-Name header is required'
# A name outside plain ASCII travels Base64-wrapped and is decoded first.
uni='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"\u00e9cho","arguments":{},'$META'}}'
modern b64 tools/call '=?base64?w6ljaG8=?=' "$uni"
status b64 400 '"code":-32602,"message":"Unknown tool'
modern b64bad tools/call '=?base64?w6ljaG8?=' "$uni"
status b64bad 400 'not a valid value'
modern unknown nope '' '{"jsonrpc":"2.0","id":3,"method":"nope","params":{'"$META"'}}'
status unknown 404 '"code":-32601'
post unsupported '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}' \
    -H 'MCP-Protocol-Version: 2099-01-01' -H 'Mcp-Method: tools/list'
status unsupported 400 '"code":-32022'
modern nocaps tools/list '' '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}'
status nocaps 400 '"code":-32602'
modern note notifications/cancelled '' '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}'
status note 202
req get -H 'Accept: text/event-stream' "$URL"
status get 405
req delete -X DELETE "$URL"
status delete 405

# Progress before the result: an event stream, ending with the result.
count='{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"count","arguments":{"n":2,"delay_ms":10},"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
modern sse tools/call count "$count"
status sse 200 'data: {"jsonrpc":"2.0","method":"notifications/progress"'
contains "$WORK/sse.headers" "Content-Type: text/event-stream" "progress turns the answer into a stream"
contains "$WORK/sse.headers" "X-Accel-Buffering: no" "streams ask proxies not to buffer"
[ "$(grep -c '^data: ' "$WORK/sse.body")" = 3 ] || fail "two progress events and the result"
tail -n 2 "$WORK/sse.body" | grep -q '"id":6,"result"' || fail "the result ends the stream"

# A 2026 client that goes away cancels its call.
sleep_call='{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30},'$META'}}'
modern gone tools/call sleep "$sleep_call" --max-time 0.5
wait_for "$WORK/srv" 'sleep: cancelled after' 5
contains "$WORK/srv" 'reason="client disconnected"' "the disconnect is the cancel"

# Raw requests curl will not send: repeated headers (a proxy reading the
# other copy would see another request), no Host. raw NAME REQUEST writes
# the answer's status line to $WORK/NAME.
raw() {
    python3 - "$port" "$1" "$2" "$WORK/$1" <<'PY'
import socket, sys
port, name, req, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(req.replace("\n", "\r\n").replace("@BODY@", "").encode())
data = b""
while b"\r\n\r\n" not in data:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
open(out, "w").write(data.decode(errors="replace"))
PY
}
head26="Content-Type: application/json
Accept: application/json, text/event-stream
Authorization: Bearer secret
MCP-Protocol-Version: 2026-07-28
Mcp-Method: tools/call"
raw dup_name "POST /mcp HTTP/1.1
Host: 127.0.0.1:$port
$head26
Mcp-Name: echo
Mcp-Name: fail
Content-Length: ${#call_echo}

$call_echo"
contains "$WORK/dup_name" "HTTP/1.1 400" "a repeated Mcp-Name is refused"
contains "$WORK/dup_name" "Mcp-Name header appears more than once" "and named"
raw dup_host "POST /mcp HTTP/1.1
Host: 127.0.0.1:$port
Host: evil.example
$head26
Mcp-Name: echo
Content-Length: ${#call_echo}

$call_echo"
contains "$WORK/dup_host" "HTTP/1.1 400" "a repeated Host is refused"
raw cl_te "POST /mcp HTTP/1.1
Host: 127.0.0.1:$port
$head26
Mcp-Name: echo
Content-Length: 5
Transfer-Encoding: chunked

0

"
contains "$WORK/cl_te" "HTTP/1.1 400" "Content-Length with Transfer-Encoding is refused"
# Only chunked bodies can be read: another coding is refused at once and
# the connection closed, instead of a wait for a body whose end is unknown.
for te in gzip 'chunked, gzip' 'gzip, chunked' 'chunked '; do
    raw te "POST /mcp HTTP/1.1
Host: 127.0.0.1:$port
$head26
Mcp-Name: echo
Transfer-Encoding: $te

"
    case $te in *chunked | *'chunked ') code=501 ;; *) code=400 ;; esac
    contains "$WORK/te" "HTTP/1.1 $code" "Transfer-Encoding: $te is refused with $code"
    contains "$WORK/te" "Connection: close" "and its connection closed"
done
raw no_host "POST /mcp HTTP/1.1
$head26
Mcp-Name: echo
Content-Length: ${#call_echo}

$call_echo"
contains "$WORK/no_host" "HTTP/1.1 400" "HTTP/1.1 without Host is a bad request"
raw absolute "POST http://127.0.0.1:$port/mcp HTTP/1.1
Host: 127.0.0.1:$port
$head26
Mcp-Name: echo
Content-Length: ${#call_echo}

$call_echo"
contains "$WORK/absolute" "HTTP/1.1 200" "the absolute form of the target names the endpoint"
AUTH='bearer secret' modern scheme tools/call echo "$call_echo"
status scheme 200 '"text":"hi"'
AUTH='Bearer other' modern second tools/call echo "$call_echo"
status second 200 '"text":"hi"'
AUTH='Bearer secre' modern prefix tools/call echo "$call_echo"
status prefix 401

# A 2026-07-28 requestState is bound to the credential it was given for
# (mrtr.mdx: state presented by another principal is refused), checked
# before the handler runs; with the same one the retry completes.
META_E='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}'
modern ir1 tools/call confirm '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},'"$META_E"'}}'
status ir1 200 '"resultType":"input_required"'
state=$(sed -n 's/.*"requestState":"\([^"]*\)".*/\1/p' "$WORK/ir1.body")
[ -n "$state" ] || fail "an input_required result carries a requestState: $(cat "$WORK/ir1.body")"
retry='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{},"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"'$state'",'"$META_E"'}}'
AUTH='Bearer other' modern ir_other tools/call confirm "$retry"
status ir_other 400 '"code":-32602,"message":"Invalid params: requestState was given for other credentials (Authorization)"'
modern ir_same tools/call confirm "$retry"
status ir_same 200 '"text":"confirmed"'
# The scheme's case is no other credential (RFC 9110, 11.1).
AUTH='BEARER secret' modern ir_case tools/call confirm "$retry"
status ir_case 200 '"text":"confirmed"'

# 2025: a session.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
sid_of() { sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([^[:space:]]*\).*/\1/p' "$WORK/$1.headers" | tr -d '\r'; }
post init_a "$init"
status init_a 200 '"protocolVersion":"2025-11-25"'
A=$(sid_of init_a)
[ ${#A} -ge 32 ] || fail "an unguessable session id, not '$A'"
post init_b "$init"
B=$(sid_of init_b)
[ "$A" != "$B" ] || fail "two sessions, two ids"
# With credentials the tasks are listed (without, see the server with no
# --token below).
contains "$WORK/init_a.body" '"tasks":{"list":{},"cancel":{}' init_a
post a_list '{"jsonrpc":"2.0","id":2,"method":"tasks/list"}' -H "Mcp-Session-Id: $A" \
    -H 'MCP-Protocol-Version: 2025-11-25'
status a_list 200 '"result":{"tasks":[]}'
# After initialize every request names the revision (2025-06-18 on).
post noversion '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Mcp-Session-Id: $A"
status noversion 400 'the MCP-Protocol-Version header is required (this session speaks 2025-11-25)'
V='MCP-Protocol-Version: 2025-11-25'
post inited '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Mcp-Session-Id: $A" -H "$V"
status inited 202
post a_call '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}' \
    -H "Mcp-Session-Id: $A" -H 'MCP-Protocol-Version: 2025-11-25'
status a_call 200 '"text":"a"'
post nosid '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'
status nosid 400 'Mcp-Session-Id header is required'
post badsid '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' -H 'Mcp-Session-Id: 0000'
status badsid 404 'no such session'
post badhver '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' -H "Mcp-Session-Id: $A" \
    -H 'MCP-Protocol-Version: 1999-01-01'
status badhver 400 'unsupported MCP-Protocol-Version'

# Session A's call 42 is cancelled by neither B's cancel nor a dropped
# connection; only A's own cancel, after which its POST ends at once.
post a_sleep '{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30}}}' \
    -H "Mcp-Session-Id: $A" -H "$V" --max-time 20 &
sleeper=$!
wait_count "$WORK/srv" 'method=tools/call' 1 5
sleep 0.3
post b_cancel '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"not yours"}}' \
    -H "Mcp-Session-Id: $B" -H "$V"
status b_cancel 202
sleep 0.3
lacks "$WORK/srv" '(not yours)' "another session cannot cancel the call"
running "$sleeper" || fail "the call still waits for its answer"
post a_cancel '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"mine"}}' \
    -H "Mcp-Session-Id: $A" -H "$V"
status a_cancel 202
wait_for "$WORK/srv" 'reason="mine"' 5
wait "$sleeper"
[ ! -s "$WORK/a_sleep.body" ] || fail "a cancelled call gets no answer"

# A tool asking the client (sampling) under 2025: the request goes on the
# call's own event stream, its answer is posted like any response, and the
# call's result follows on the same stream.
initS='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"curl","version":"1"}}}'
post init_s "$initS"
S=$(sid_of init_s)
post s_inited '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Mcp-Session-Id: $S" -H "$V"
post s_call '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"summarize","arguments":{"text":"abc"}}}' \
    -H "Mcp-Session-Id: $S" -H "$V" --max-time 20 -N &
asker=$!
wait_for "$WORK/s_call.body" 'sampling/createMessage' 5
contains "$WORK/s_call.headers" 'text/event-stream' "the call's answer became an event stream"
sid_req=$(sed -n 's/.*"id":\([0-9][0-9]*\),"method":"sampling\/createMessage".*/\1/p' "$WORK/s_call.body" | head -1)
[ -n "$sid_req" ] || fail "the sampling request has an id: $(cat "$WORK/s_call.body")"
post s_answer "{\"jsonrpc\":\"2.0\",\"id\":$sid_req,\"result\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"in short\"},\"model\":\"m\"}}" \
    -H "Mcp-Session-Id: $S" -H "$V"
status s_answer 202
wait "$asker"
contains "$WORK/s_call.body" '"id":5,"result":{"content":[{"type":"text","text":"in short"}]' \
    "the call's result followed on its stream"

# A task's question (2025-11-25) goes on the event stream of the client's
# tasks/result, naming the task (tasks.mdx); answered, the task's result
# follows on that stream.
initE='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"curl","version":"1"}}}'
post init_e "$initE"
E=$(sid_of init_e)
post e_inited '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Mcp-Session-Id: $E" -H "$V"
post e_call '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{},"task":{}}}' \
    -H "Mcp-Session-Id: $E" -H "$V"
status e_call 200 '"result":{"task":{"taskId":"'
T=$(sed -n 's/.*"taskId":"\([0-9a-f]*\)".*/\1/p' "$WORK/e_call.body")
post e_result "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"$T\"}}" \
    -H "Mcp-Session-Id: $E" -H "$V" --max-time 20 -N &
waiter=$!
wait_for "$WORK/e_result.body" 'elicitation/create' 5
contains "$WORK/e_result.body" "\"io.modelcontextprotocol/related-task\":{\"taskId\":\"$T\"}" \
    "the question names its task"
qid=$(sed -n 's/.*"id":\([0-9][0-9]*\),"method":"elicitation\/create".*/\1/p' "$WORK/e_result.body" | head -1)
[ -n "$qid" ] || fail "the question has an id: $(cat "$WORK/e_result.body")"
post e_answer "{\"jsonrpc\":\"2.0\",\"id\":$qid,\"result\":{\"action\":\"accept\",\"content\":{\"ok\":true}}}" \
    -H "Mcp-Session-Id: $E" -H "$V"
status e_answer 202
wait "$waiter"
contains "$WORK/e_result.body" '"id":3,"result":{"content":[{"type":"text","text":"confirmed"}]' \
    "the task's result followed on the tasks/result stream"

# Batches: only a 2025-03-26 session has them; one array answers the
# requests of a batch, once the last settles; a cancelled member is left
# out, and a batch whose every request was cancelled ends without an answer.
init0326='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
post init_old "$init0326"
status init_old 200 '"protocolVersion":"2025-03-26"'
O=$(sid_of init_old)
post b_calls '[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"in a batch"}}},{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]' \
    -H "Mcp-Session-Id: $O"
status b_calls 200 '"id":2,"result":{"content":[{"type":"text","text":"in a batch"}]}'
# (A 2025-03-26 client sends no MCP-Protocol-Version: that revision has none.)
contains "$WORK/b_calls.body" '"id":3,"result":{"tools":[' "both answers in one array"
[ "$(head -c 1 "$WORK/b_calls.body")" = '[' ] || fail "a batch is answered with an array"
post b_notes '[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]' -H "Mcp-Session-Id: $O"
status b_notes 202
post b_empty '[]' -H "Mcp-Session-Id: $O"
status b_empty 400 'an empty JSON-RPC batch'
post b_junk '[1]' -H "Mcp-Session-Id: $O"
status b_junk 200 '"code":-32600'
post b_stream '[{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count","arguments":{"n":2,"delay_ms":10},"_meta":{"progressToken":"b"}}},{"jsonrpc":"2.0","id":5,"method":"ping"}]' \
    -H "Mcp-Session-Id: $O"
status b_stream 200 'notifications/progress'
contains "$WORK/b_stream.body" 'data: [{"jsonrpc":"2.0","id":5,"result":{}},{"jsonrpc":"2.0","id":4,"result":' "the array ends the event stream"
post b_cut '[{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30}}},{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.3}}}]' \
    -H "Mcp-Session-Id: $O" --max-time 20 &
cutter=$!
# cancel_until_over PID ID: cancel request ID of session O until PID ends
# (a cancel that comes before its request is ignored, so it is repeated).
cancel_until_over() {
    i=0
    while running "$1"; do
        [ $i -lt 100 ] || fail "the batch with request $2 cancelled did not end"
        post cancel_loop '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":'"$2"',"reason":"batch member"}}' \
            -H "Mcp-Session-Id: $O"
        sleep 0.2
        i=$((i + 1))
    done
    wait "$1"
}
cancel_until_over "$cutter" 6
status b_cut 200 '"id":7,"result"'
lacks "$WORK/b_cut.body" '"id":6' "the cancelled member has no answer"
post b_all '[{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30}}}]' \
    -H "Mcp-Session-Id: $O" --max-time 20 &
cutter=$!
cancel_until_over "$cutter" 8
status b_all 200
lacks "$WORK/b_all.body" '"id":8' "no answer for a cancelled batch"
post b_new '[{"jsonrpc":"2.0","id":9,"method":"ping"}]' -H "Mcp-Session-Id: $A" -H "$V"
status b_new 400 'batches exist only in protocol revision 2025-03-26'
post b_nosid '[{"jsonrpc":"2.0","id":9,"method":"ping"}]'
status b_nosid 400 'needs a 2025-03-26 session'

# The GET stream carries what belongs to no request: a list change.
req a_get -N -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $A" -H "$V" --max-time 3 "$URL" &
getter=$!
sleep 0.3
post a_add '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add_tool","arguments":{"name":"fresh"}}}' \
    -H "Mcp-Session-Id: $A" -H "$V"
status a_add 200 'added fresh'
wait "$getter"
contains "$WORK/a_get.body" 'notifications/tools/list_changed' "the GET stream got the change"

# A 2025 stream that drops is not a cancel: its events and its response wait
# for the client's GET with Last-Event-ID, which gets exactly the rest.
post a_count '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"count","arguments":{"n":4,"delay_ms":150},"_meta":{"progressToken":"c"}}}' \
    -H "Mcp-Session-Id: $A" -H "$V" -N --max-time 0.4
head -n 2 "$WORK/a_count.body" | grep -q '^id: ' || fail "a 2025-11-25 stream opens with a primed id"
sed -n 2p "$WORK/a_count.body" | grep -q '^data: *$' || fail "the priming event has no data"
last=$(sed -n 's/^id: //p' "$WORK/a_count.body" | tail -n 1 | tr -d '\r')
seen=$(grep -c "^data: {" "$WORK/a_count.body")
[ "$seen" -ge 1 ] && [ "$seen" -lt 9 ] || fail "the stream was cut mid-call ($seen events)"
sleep 1
req a_resume -N -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $A" -H "$V" -H "Last-Event-ID: $last" \
    --max-time 5 "$URL"
status a_resume 200 '"id":11,"result"'
first=$(sed -n 's/^id: //p' "$WORK/a_resume.body" | head -n 1 | tr -d '\r')
[ "$first" = "${last%-*}-$(( ${last##*-} + 1 ))" ] ||
    fail "the resume starts right after $last, not at $first"
all=$(( seen + $(grep -c '^data: {' "$WORK/a_resume.body") ))
[ "$all" = 9 ] || fail "4 progress, 4 log messages and the result, each once (got $all)"
req a_resume2 -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $A" -H "$V" -H "Last-Event-ID: $last" "$URL"
status a_resume2 400 'Last-Event-ID'
req b_steal -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $B" -H "$V" -H "Last-Event-ID: 1-1" "$URL"
status b_steal 400 'Last-Event-ID'

# DELETE ends the session: its calls are cancelled with "session ended".
post b_sleep '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30}}}' \
    -H "Mcp-Session-Id: $B" -H "$V" --max-time 20 &
sleeper=$!
sleep 0.5
req b_delete -X DELETE -H "Mcp-Session-Id: $B" -H "$V" "$URL"
status b_delete 200
wait_for "$WORK/srv" 'reason="session ended"' 5
wait "$sleeper"
post b_after '{"jsonrpc":"2.0","id":9,"method":"tools/list"}' -H "Mcp-Session-Id: $B" -H "$V"
status b_after 404

# A 2025 client that half-closes its side after its request still gets its
# answer (in 2025 a disconnect is no cancel; only a failed write ends it).
body='{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.5}}}'
python3 - "$port" "$A" "$body" >"$WORK/half" <<'PY'
import socket, sys
port, sid, body = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
           "Accept: application/json, text/event-stream\r\nAuthorization: Bearer secret\r\n"
           "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
           % (port, sid, len(body), body)).encode())
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
print(data.decode(errors="replace"))
PY
contains "$WORK/half" '"id":21,"result"' "a half-closed 2025 client gets its answer"

# A 2025 client whose GET stream's connection closes may open another at
# once: the closed one is found gone when the server sees its FIN (a
# comment written to it is answered with a reset), not by the keep-alive
# half a minute later (409 "already being read" until then).
python3 - "$port" "$A" >"$WORK/reget" <<'PY' || fail "GET again: $(cat "$WORK/reget")"
import socket, sys, time
port, sid = int(sys.argv[1]), sys.argv[2]
def get():
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n"
               "Authorization: Bearer secret\r\nMcp-Session-Id: %s\r\n"
               "MCP-Protocol-Version: 2025-11-25\r\n\r\n" % (port, sid)).encode())
    return s, s.recv(200).split(b"\r\n")[0]
for attempt in range(3):
    start = time.time()
    while True:
        s, status = get()
        s.close()
        if b" 200 " in status:
            break
        if time.time() - start > 3:
            sys.exit("GET %d after a closed one: %r after %.1f s" % (attempt, status, time.time() - start))
        time.sleep(0.05)
print("ok: three GET streams, each closed, each followed at once by the next")
PY

# SIGTERM while a 2026 call runs, a 2025 call streams and a GET stream is
# open: every exchange is let go, the calls are cancelled, exit 0.
modern term_call tools/call sleep "$sleep_call" --max-time 20 &
c1=$!
post term_stream '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"count","arguments":{"n":100,"delay_ms":100},"_meta":{"progressToken":"s"}}}' \
    -H "Mcp-Session-Id: $A" -H "$V" --max-time 20 &
c2=$!
req term_get -N -H 'Accept: text/event-stream' -H "Mcp-Session-Id: $A" -H "$V" --max-time 20 "$URL" &
c3=$!
# A 2025 call waiting on the client's answer: the stop cancels its question
# on the call's stream, which ends after it with its last chunk (curl says
# 18 for a chunked stream cut short).
post term_ask '{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"summarize","arguments":{"text":"abc"}}}' \
    -H "Mcp-Session-Id: $S" -H "$V" --max-time 20 -N &
c4=$!
wait_for "$WORK/term_ask.body" 'sampling/createMessage' 5
# A request whose headers came before the stop and its body after: as new
# as any other (503), not run.
python3 - "$port" "$WORK/stopped" "$call_echo" >"$WORK/late" 2>&1 <<'PY' &
import os, socket, sys, time
port, flag, body = int(sys.argv[1]), sys.argv[2], sys.argv[3].encode()
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          b"Accept: application/json, text/event-stream\r\nAuthorization: Bearer secret\r\n"
          b"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"
          b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
while not os.path.exists(flag):
    time.sleep(0.02)
s.sendall(body[10:])
print(s.recv(4096).decode(errors="replace"))
PY
late=$!
sleep 1
kill -TERM $server
# The rest of the body once the stop has begun, not merely been asked for:
# under valgrind on a loaded machine the signal took long enough for the
# body to arrive first and be answered (200).
wait_for "$WORK/srv" "stopping: ending subscriptions and calls" 20
touch "$WORK/stopped"
wait $server
rc=$?
wait $c1 $c2 $c3
wait $late
contains "$WORK/late" "HTTP/1.1 503" "a body that ended during the stop: 503"
# The 2026 call the stop cut is told so (503, its id), not left to a
# closed connection (attack round 6, G4).
status term_call 503 '"id":7,"error":{"code":-32603,"message":"Service Unavailable: the server is shutting down"}'
contains "$WORK/late" "the server is shutting down" "and says why"
wait $c4 || fail "the asking call's stream was cut (curl exit $?): $(cat "$WORK/term_ask.body")"
ask_id=$(sed -n 's/.*"id":\([0-9][0-9]*\),"method":"sampling\/createMessage".*/\1/p' "$WORK/term_ask.body" | head -1)
contains "$WORK/term_ask.body" "\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":$ask_id,\"reason\":\"server shutting down\"}" \
    "the stop cancelled the question on the call's stream"
contains "$WORK/srv" 'count: cancelled at step' "the streaming call was cancelled"
[ "$(grep -c 'sleep: cancelled after' "$WORK/srv")" -ge 2 ] || fail "the running call was cancelled"
[ "$rc" = 0 ] || { cat "$WORK/srv"; fail "SIGTERM: exit $rc"; }
echo "ok: SIGTERM ends the HTTP server (exit 0)"

# A request must arrive whole within --request-timeout, however steadily
# it trickles (slowloris): the idle timeout alone restarts at every byte.
# The time the server takes to answer is not counted.
$MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --request-timeout 1 2>"$WORK/slow" &
server=$!
wait_for "$WORK/slow" "listening on http://127.0.0.1:" 10
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/slow" | head -n 1)
URL="http://127.0.0.1:$port/mcp"
# No credentials: the session is all that tells the client apart, so no
# tasks.list (tasks.mdx: SHOULD NOT), and tasks/list is refused.
curl -s -o "$WORK/init_anon.body" -D "$WORK/init_anon.headers" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' --data-binary "$init" "$URL"
contains "$WORK/init_anon.body" '"tasks":{"cancel":{},"requests":' init_anon
! grep -q '"list":{}' "$WORK/init_anon.body" || fail "tasks.list declared to a client without credentials"
N=$(sid_of init_anon)
post anon_list '{"jsonrpc":"2.0","id":2,"method":"tasks/list"}' -H "Mcp-Session-Id: $N" \
    -H 'MCP-Protocol-Version: 2025-11-25'
status anon_list 200 'tasks/list is not offered to a client without credentials'
short_sleep='{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":2},'$META'}}'
python3 - "$port" "$call_echo" "$short_sleep" <<'PY' >"$WORK/slowloris" || fail "slowloris: $(cat "$WORK/slowloris")"
import socket, sys, time
port, echo, sleep = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def head(name, body):
    return ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            "Mcp-Method: tools/call\r\nMcp-Name: %s\r\nContent-Length: %d\r\n\r\n"
            % (name, len(body))).encode()
def trickle(data, label):
    # A byte every 0.2 s: 30 s for these 150 bytes, were it not cut.
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    start = time.time()
    try:
        for b in data[:150]:
            s.sendall(bytes([b]))
            time.sleep(0.2)
        got = s.recv(100)
        if got:
            sys.exit("%s: answered after %.1f s: %r" % (label, time.time() - start, got[:40]))
    except OSError:
        pass
    print("ok: %s cut after %.1f s" % (label, time.time() - start))
trickle(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 200, "trickled headers")
s = socket.create_connection(("127.0.0.1", port), timeout=20)
s.sendall(head("echo", echo))
start = time.time()
try:
    for b in echo.encode():
        s.sendall(bytes([b]))
        time.sleep(0.2)
    sys.exit("trickled body: not cut")
except OSError:
    print("ok: trickled body cut after %.1f s" % (time.time() - start))
# A call that takes longer than the timeout is answered: the time is ours.
s = socket.create_connection(("127.0.0.1", port), timeout=20)
s.sendall(head("sleep", sleep) + sleep.encode())
got = s.recv(100)
if not got.startswith(b"HTTP/1.1 200"):
    sys.exit("a slow call was cut: %r" % got)
print("ok: a call slower than the timeout is answered")
PY
cat "$WORK/slowloris"
modern after_slow tools/call echo "$call_echo"
status after_slow 200 '"text":"hi"'
# A large body sent at once arrives well within the second: it is read as
# fast as it comes (a backoff meant for a daemon with nothing to do had
# taken about 300 KB/s: 12 s for these 3.5 MiB).
python3 - "$WORK/big.json" <<'PY'
import json, sys
json.dump({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
    "name": "echo", "arguments": {"text": "x" * (7 << 19)}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}}, open(sys.argv[1], "w"))
PY
code=$(curl -s -o "$WORK/big.body" -w '%{http_code}' -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' --data-binary @"$WORK/big.json" "$URL")
[ "$code" = 200 ] || { cat "$WORK/slow"; fail "a 3.5 MiB body under --request-timeout 1: HTTP $code"; }
[ "$(wc -c <"$WORK/big.body")" -gt 3670016 ] || fail "the 3.5 MiB echo came back short"
echo "ok: a 3.5 MiB body is read within --request-timeout 1"
kill -TERM $server
wait $server || fail "the server with --request-timeout did not end cleanly"
# Under pressure (past three quarters of the cap) a connection still
# waiting for its request gets a fifth of the timeout: 1 s of 5 here. Below
# it, the whole timeout. And one address may be capped.
$MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --request-timeout 5 --max-connections 8 2>"$WORK/press" &
server=$!
wait_for "$WORK/press" "listening on http://127.0.0.1:" 10
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/press" | head -n 1)
python3 - "$port" <<'PY' >"$WORK/pressure" || fail "pressure: $(cat "$WORK/pressure")"
import socket, sys, time
port = int(sys.argv[1])
def idle(n):
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(n)]
    for s in socks:
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return socks
def cut_after(s):
    start = time.time()
    try:
        s.recv(100)
    except OSError:
        pass
    return time.time() - start
socks = idle(5)  # 5 of 8: no pressure
time.sleep(2.5)
for s in socks:
    s.settimeout(0)
    try:
        if s.recv(100) == b"":
            sys.exit("5 of 8 connections: one was cut before 2.5 s (the timeout is 5 s)")
    except BlockingIOError:
        pass
    s.close()
time.sleep(0.5)
socks = idle(7)  # 7 of 8: pressure
# The first cut comes after about a fifth of the timeout. (Once some are
# cut the pressure is gone, and connections opened a moment later than
# those, on a slow machine, get the whole timeout: by design.)
first = cut_after(socks[0])  # the oldest
if first > 3:
    sys.exit("7 of 8 connections: the first held %.1f s, expected about 1" % first)
print("ok: under pressure, the first connection cut after %.1f s" % first)
PY
cat "$WORK/pressure"
kill -TERM $server
wait $server || fail "the server with --max-connections did not end cleanly"
$MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --max-per-address 2 2>"$WORK/peraddr" &
server=$!
wait_for "$WORK/peraddr" "listening on http://127.0.0.1:" 10
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/peraddr" | head -n 1)
python3 - "$port" <<'PY' >"$WORK/peraddr.out" || fail "per address: $(cat "$WORK/peraddr.out")"
import socket, sys
port = int(sys.argv[1])
held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(2)]
third = socket.create_connection(("127.0.0.1", port), timeout=5)
if third.recv(10) != b"":
    sys.exit("a third connection from one address was served")
print("ok: a third connection from one address is closed at once")
PY
cat "$WORK/peraddr.out"
expect_exit 0 "a call once the held connections are gone" -- \
    "$MCP" call echo '{"text":"after"}' --url "http://127.0.0.1:$port/mcp"
kill -TERM $server
wait $server || fail "the server with --max-per-address did not end cleanly"
# A client that sends part of a request's headers and closes in the same
# instant: its bytes and its FIN arrive together, libmicrohttpd reads the
# bytes and never looks again, and the socket sat in CLOSE_WAIT holding its
# slot until the request timeout (the soak of issue 16: with the cap
# filled by such connects, normal calls got 503 for seconds). A closed peer
# frees its slot at once, whatever it sent. --max-connections 1: one such
# connection left is a 503; --request-timeout 60: the cut under pressure
# alone would take 12 s.
$MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --max-connections 1 --request-timeout 60 2>"$WORK/closed" &
server=$!
wait_for "$WORK/closed" "listening on http://127.0.0.1:" 10
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/closed" | head -n 1)
python3 - "$port" "$call_echo" <<'PY' >"$WORK/closed.out" || fail "closed peers: $(cat "$WORK/closed.out")"
import socket, sys, time
port, echo = int(sys.argv[1]), sys.argv[2]
halves = [b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applic",
          b"POST /mcp HTTP/1.1\r\n",
          b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n",
          b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\""]
for i in range(64):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(halves[i % len(halves)])
    s.close()
call = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        "Mcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: %d\r\n"
        "Connection: close\r\n\r\n%s" % (len(echo), echo)).encode()
start = time.time()
while True:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(call)
    got = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        got += b
    s.close()
    if got.startswith(b"HTTP/1.1 200") and b'"text":"hi"' in got:
        break
    # Time for the server to see the closes (valgrind is slow), far less
    # than the 12 s the connections were held before.
    if time.time() - start > 4:
        sys.exit("64 closed connects: a call still got %r after %.1f s"
                 % (got, time.time() - start))
    time.sleep(0.1)
print("ok: 64 closed half-sent connects, then a call answered after %.2f s"
      % (time.time() - start))
PY
cat "$WORK/closed.out"
kill -TERM $server
wait $server || fail "the server with closed half-sent connects did not end cleanly"
expect_exit 2 "--max-connections 0 is a usage error" -- "$MCP" serve --http 127.0.0.1:0 --max-connections 0
expect_exit 2 "--request-timeout 0 is a usage error" -- "$MCP" serve --http 127.0.0.1:0 --request-timeout 0
contains "$WORK/err" "--request-timeout takes seconds" "says what it takes"

# HTTPS: a certificate made here; curl and mcp (trusting it) both ways.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" \
    -days 1 -subj /CN=localhost >/dev/null 2>&1 || fail "openssl could not make a certificate"
$MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --tls-cert "$WORK/cert.pem" \
    --tls-key "$WORK/key.pem" --request-timeout 2 2>"$WORK/tls" &
server=$!
wait_for "$WORK/tls" "listening on https://127.0.0.1:" 10
port=$(sed -n 's/.*listening on https:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/tls" | head -n 1)
URL="https://localhost:$port/mcp"
modern tls tools/call echo "$call_echo" --cacert "$WORK/cert.pem"
status tls 200 '"text":"hi"'
expect_exit 0 "mcp call over https, the certificate trusted" -- \
    "$MCP" call echo '{"text":"secure"}' --url "$URL" --ca-file "$WORK/cert.pem"
contains "$WORK/out" "secure" "the answer came over TLS"
expect_exit 3 "mcp call over https, the certificate not trusted" -- \
    "$MCP" call echo '{"text":"x"}' --url "$URL"
contains "$WORK/err" "certificate" "the refusal names the certificate"
# Half a ClientHello, then nothing: libmicrohttpd keeps such a
# connection ready forever, which froze our loop's clocks; it and an
# idle connection opened beside it are cut at the request timeout.
python3 - "$port" <<'PY' >"$WORK/tlshalf" || fail "half a handshake: $(cat "$WORK/tlshalf")"
import socket, sys, time
port = int(sys.argv[1])
half = socket.create_connection(("127.0.0.1", port), timeout=20)
half.sendall(b"\x16\x03\x01\x00\xc8\x01")
time.sleep(0.5)
idle = socket.create_connection(("127.0.0.1", port), timeout=20)
start = time.time()
for s, what in ((half, "half a handshake"), (idle, "an idle connection beside it")):
    try:
        s.recv(100)
    except OSError:
        pass
    took = time.time() - start
    if took > 8:
        sys.exit("%s held %.1f s with --request-timeout 2" % (what, took))
    print("ok: %s cut after %.1f s" % (what, took))
PY
cat "$WORK/tlshalf"
expect_exit 2 "half a TLS pair is a usage error" -- \
    "$MCP" serve --http 127.0.0.1:0 --tls-cert "$WORK/cert.pem"
kill -TERM $server
wait $server || fail "the HTTPS server did not end cleanly"
echo "ok: HTTPS"
