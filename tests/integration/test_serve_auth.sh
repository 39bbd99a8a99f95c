#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp serve --http as an OAuth resource server (--auth-issuer, --auth-resource,
# --auth-jwks, --auth-scope, --auth-item-scope): its Protected Resource
# Metadata, and for each
# kind of request the status and the challenge (none, a good token, another
# audience, expired, unsigned, another key under the same kid, a missing
# scope, a malformed header), scopes of one tool, prompt or templated
# resource (403 insufficient_scope naming every scope needed, 2026 and
# 2025 alike; lists unfiltered), a 2025 session bound to the token's subject
# (a new token of the same subject keeps it, another subject's does not),
# and the options refused before serving. Keys and tokens: jwt_tool.py.
. "$(dirname "$0")/lib.sh"
MCP=$1
TOOL="$(dirname "$0")/jwt_tool.py"
requires curl python3 openssl

openssl ecparam -name prime256v1 -genkey -noout -out "$WORK/as.pem" 2>/dev/null
openssl ecparam -name prime256v1 -genkey -noout -out "$WORK/evil.pem" 2>/dev/null
python3 "$TOOL" jwks "$WORK/as.pem" k1 >"$WORK/jwks.json" || fail "jwks"
PORT=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
RES="http://127.0.0.1:$PORT/mcp"
META_URL="http://127.0.0.1:$PORT/.well-known/oauth-protected-resource/mcp"
ISS=https://as.example

"$MCP" serve --http "127.0.0.1:$PORT" --auth-issuer "$ISS" --auth-resource "$RES" \
    --auth-jwks "$WORK/jwks.json" --auth-scope mcp:tools --auth-item-scope fail=files:write \
    --auth-item-scope greet=prompts:read --auth-item-scope 'demo://echo/{text}=files:read' \
    >/dev/null 2>"$WORK/serve.err" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$WORK"' EXIT
wait_for "$WORK/serve.err" "listening on http://127.0.0.1:$PORT" 10

now=$(date +%s)
# claims SUB AUD SCOPE EXP
claims() {
    printf '{"iss":"%s","aud":"%s","sub":"%s","client_id":"c1","iat":%s,"exp":%s,"jti":"%s","scope":"%s"}' \
        "$ISS" "$2" "$1" "$now" "$4" "$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')" "$3"
}
token() { python3 "$TOOL" sign "$1" '{"typ":"at+jwt","kid":"k1"}' "$2"; }
GOOD=$(token "$WORK/as.pem" "$(claims alice "$RES" "mcp:tools files:read" $((now + 600)))")

# post NAME AUTH BODY [header...]: the status in NAME.status, headers, body.
post() {
    name=$1 auth=$2 body=$3
    shift 3
    if [ -n "$auth" ]; then set -- "$@" -H "Authorization: $auth"; fi
    curl -s -D "$WORK/$name.headers" -o "$WORK/$name.body" -w '%{http_code}' \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        "$@" --data-binary "$body" "$RES" >"$WORK/$name.status"
}
status() {
    got=$(cat "$WORK/$1.status")
    [ "$got" = "$2" ] || { cat "$WORK/$1.headers" "$WORK/$1.body"; fail "$1: status $got, expected $2"; }
    echo "ok: $1 ($got)"
}
challenge() { tr -d '\r' <"$WORK/$1.headers" | sed -n 's/^[Ww][Ww][Ww]-[Aa]uthenticate: //p'; }
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'"$META"'}}'
H26='-H MCP-Protocol-Version:2026-07-28 -H Mcp-Method:tools/call -H Mcp-Name:echo'

# The metadata: public, at the resource's path, readable from any origin.
curl -s -D "$WORK/meta.headers" -o "$WORK/meta.body" -w '%{http_code}' "$META_URL" >"$WORK/meta.status"
status meta 200
contains "$WORK/meta.body" "\"resource\":\"$RES\"" "metadata resource"
contains "$WORK/meta.body" "\"authorization_servers\":[\"$ISS\"]" "metadata servers"
contains "$WORK/meta.body" '"scopes_supported":["mcp:tools"]' "metadata scopes"
contains "$WORK/meta.headers" "Access-Control-Allow-Origin: *" "metadata CORS"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$META_URL")" = 405 ] || fail "POST to the metadata: 405"
# The same at the root's well-known path (a client that looks only there),
# and to nobody whose Host is not this server's (DNS rebinding).
curl -s -o "$WORK/root.body" "http://127.0.0.1:$PORT/.well-known/oauth-protected-resource"
cmp -s "$WORK/root.body" "$WORK/meta.body" || fail "the metadata at the root differs"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' "$META_URL")" = 403 ] ||
    fail "the metadata to another Host: 403"

# No token: 401, where to learn how, no error code.
# shellcheck disable=SC2086
post none "" "$CALL" $H26
status none 401
c=$(challenge none)
case "$c" in *"resource_metadata=\"$META_URL\""*) ;; *) fail "no resource_metadata in: $c" ;; esac
case "$c" in *'scope="mcp:tools"'*) ;; *) fail "no scope in: $c" ;; esac
case "$c" in *error=*) fail "an error code without a token: $c" ;; esac

# shellcheck disable=SC2086
post good "Bearer $GOOD" "$CALL" $H26
status good 200
# A token of 12 KiB (some identity providers' carry many groups): room
# for it in the connection's buffer, accepted.
PAD=$(head -c 4500 /dev/zero | tr '\0' 'g')
BIG=$(token "$WORK/as.pem" "$(printf '{"iss":"%s","aud":"%s","sub":"alice","client_id":"c1","iat":%s,"exp":%s,"jti":"big","scope":"mcp:tools","groups":"%s%s"}' \
    "$ISS" "$RES" "$now" $((now + 600)) "$PAD" "$PAD")")
[ ${#BIG} -gt 12000 ] || fail "the big token is only ${#BIG} bytes"
post big "Bearer $BIG" "$CALL" $H26
status big 200
contains "$WORK/good.body" '"text":"hi"' good

# bad NAME STATUS ERROR TEXT TOKEN: refused with that challenge.
bad() {
    # shellcheck disable=SC2086
    post "$1" "Bearer $5" "$CALL" $H26
    status "$1" "$2"
    c=$(challenge "$1")
    case "$c" in *"error=\"$3\""*) ;; *) fail "$1: no error=\"$3\" in: $c" ;; esac
    case "$c" in *"$4"*) ;; *) fail "$1: no '$4' in: $c" ;; esac
    case "$c" in *"resource_metadata=\"$META_URL\""*) ;; *) fail "$1: no resource_metadata: $c" ;; esac
}
bad audience 401 invalid_token "another audience" \
    "$(token "$WORK/as.pem" "$(claims alice https://other.example/mcp mcp:tools $((now + 600)))")"
bad expired 401 invalid_token "expired" \
    "$(token "$WORK/as.pem" "$(claims alice "$RES" mcp:tools $((now - 600)))")"
bad unsigned 401 invalid_token "algorithm" \
    "$(python3 "$TOOL" none '{"typ":"at+jwt","kid":"k1"}' "$(claims alice "$RES" mcp:tools $((now + 600)))")"
bad forged 401 invalid_token "signature" \
    "$(token "$WORK/evil.pem" "$(claims alice "$RES" mcp:tools $((now + 600)))")"
bad scope 403 insufficient_scope 'scope="mcp:tools"' \
    "$(token "$WORK/as.pem" "$(claims alice "$RES" files:read $((now + 600)))")"
lacks "$WORK/forged.headers" "$GOOD" "a token echoed"
# shellcheck disable=SC2086
post malformed "Bearer two words" "$CALL" $H26
status malformed 400
case "$(challenge malformed)" in *'error="invalid_request"'*) ;; *) fail "malformed: $(challenge malformed)" ;; esac

# Scopes of one item. The tool fail needs files:write besides mcp:tools:
# GOOD lacks it (403 naming both, before anything runs), WRITER has it.
scoped() { # NAME AUTH METHOD NAMEHDR PARAMS
    # shellcheck disable=SC2086
    post "$1" "$2" '{"jsonrpc":"2.0","id":7,"method":"'"$3"'","params":{'"$5"','"$META"'}}' \
        -H MCP-Protocol-Version:2026-07-28 -H "Mcp-Method:$3" -H "Mcp-Name:$4"
}
expect_scope() { # NAME SCOPES: 403, insufficient_scope naming SCOPES
    status "$1" 403
    c=$(challenge "$1")
    case "$c" in *'error="insufficient_scope"'*) ;; *) fail "$1: not insufficient_scope: $c" ;; esac
    case "$c" in *"scope=\"$2\""*) ;; *) fail "$1: no scope=\"$2\" in: $c" ;; esac
    case "$c" in *"resource_metadata=\"$META_URL\""*) ;; *) fail "$1: no resource_metadata: $c" ;; esac
    contains "$WORK/$1.body" '"id":7' "$1: the request's id"
}
WRITER=$(token "$WORK/as.pem" "$(claims alice "$RES" "mcp:tools files:write" $((now + 600)))")
scoped tool_lacking "Bearer $GOOD" tools/call fail '"name":"fail","arguments":{"message":"m"}'
expect_scope tool_lacking "mcp:tools files:write"
scoped tool_granted "Bearer $WRITER" tools/call fail '"name":"fail","arguments":{"message":"m"}'
status tool_granted 200
contains "$WORK/tool_granted.body" '"isError":true' "the scoped tool ran"
# A prompt and a read through a URI template, the same way.
scoped prompt_lacking "Bearer $GOOD" prompts/get greet '"name":"greet","arguments":{"name":"x"}'
expect_scope prompt_lacking "mcp:tools prompts:read"
scoped read_lacking "Bearer $WRITER" resources/read demo://echo/hi '"uri":"demo://echo/hi"'
expect_scope read_lacking "mcp:tools files:read"
scoped read_granted "Bearer $GOOD" resources/read demo://echo/hi '"uri":"demo://echo/hi"'
status read_granted 200
contains "$WORK/read_granted.body" '"text":"hi"' "the scoped read"
scoped read_other "Bearer $WRITER" resources/read demo://readme '"uri":"demo://readme"'
status read_other 200
# Lists are not filtered: the tool is listed to a token that cannot call it.
post list26 "Bearer $GOOD" '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{'"$META"'}}' \
    -H MCP-Protocol-Version:2026-07-28 -H Mcp-Method:tools/list
status list26 200
contains "$WORK/list26.body" '"name":"fail"' "tools/list shows the scoped tool"
# 2025: in a session, the same refusal as an HTTP 403 (not a JSON-RPC error
# in a stream); a token of the same subject with the scope is served there.
post sinit "Bearer $GOOD" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
status sinit 200
SID0=$(tr -d '\r' <"$WORK/sinit.headers" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p')
S25="-H Mcp-Session-Id:$SID0 -H MCP-Protocol-Version:2025-11-25"
FAILCALL='{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fail","arguments":{"message":"m"}}}'
# shellcheck disable=SC2086
post tool25_lacking "Bearer $GOOD" "$FAILCALL" $S25
expect_scope tool25_lacking "mcp:tools files:write"
# shellcheck disable=SC2086
post tool25_granted "Bearer $WRITER" "$FAILCALL" $S25
status tool25_granted 200
contains "$WORK/tool25_granted.body" '"isError":true' "the scoped tool ran in a session"
# shellcheck disable=SC2086
post echo25 "Bearer $GOOD" '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}' $S25
status echo25 200

# A 2025 session is its subject's: a new token of alice keeps it, bob's
# finds no such session.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
post init "Bearer $GOOD" "$init"
status init 200
SID=$(tr -d '\r' <"$WORK/init.headers" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p')
[ -n "$SID" ] || fail "a session id"
AGAIN=$(token "$WORK/as.pem" "$(claims alice "$RES" mcp:tools $((now + 900)))")
BOB=$(token "$WORK/as.pem" "$(claims bob "$RES" mcp:tools $((now + 600)))")
[ "$AGAIN" != "$GOOD" ] || fail "a second token for alice"
LIST='{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
post same_subject "Bearer $AGAIN" "$LIST" -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
status same_subject 200
post other_subject "Bearer $BOB" "$LIST" -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-11-25'
status other_subject 404

# A 2026-07-28 requestState is its subject's too: the answer to confirm's
# round, sent with a new token of alice, is taken; with bob's, refused.
METAE='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}'
H26C='-H MCP-Protocol-Version:2026-07-28 -H Mcp-Method:tools/call -H Mcp-Name:confirm'
# shellcheck disable=SC2086
post round "Bearer $GOOD" '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm","arguments":{},'"$METAE"'}}' $H26C
status round 200
contains "$WORK/round.body" '"resultType":"input_required"' round
state=$(sed -n 's/.*"requestState":"\([^"]*\)".*/\1/p' "$WORK/round.body")
[ -n "$state" ] || fail "a requestState"
retry='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{},"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"'$state'",'"$METAE"'}}'
# shellcheck disable=SC2086
post retry_bob "Bearer $BOB" "$retry" $H26C
status retry_bob 400
contains "$WORK/retry_bob.body" '"code":-32602' retry_bob
# shellcheck disable=SC2086
post retry_alice "Bearer $AGAIN" "$retry" $H26C
status retry_alice 200
contains "$WORK/retry_alice.body" '"text":"confirmed"' retry_alice

# Options refused before serving, each saying why.
refused() {
    expect_exit 2 "refused: $*" -- "$MCP" serve "$@"
}
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-resource "$RES" --auth-jwks "$WORK/jwks.json" --auth-jwks-refetch 5
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-jwks "$WORK/jwks.json"
refused --auth-issuer "$ISS" --auth-resource "$RES" --auth-jwks "$WORK/jwks.json"
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-resource "$RES" --auth-jwks "$WORK/jwks.json" --auth-scope 'a b'
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-resource "$RES" --auth-jwks "$WORK/jwks.json" --token t
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-resource "$RES" --auth-jwks "$WORK/jwks.json" --auth-item-scope fail
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-resource "$RES" --auth-jwks "$WORK/jwks.json" --auth-item-scope 'fail=a b'
refused --http 127.0.0.1:0 --auth-item-scope fail=files:write
echo '{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}' >"$WORK/oct.json"
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-resource "$RES" --auth-jwks "$WORK/oct.json"
contains "$WORK/err" "no usable key" "the key set's reason"
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-resource "not a url" --auth-jwks "$WORK/jwks.json"
refused --http 127.0.0.1:0 --auth-issuer "$ISS" --auth-resource "$RES" --auth-jwks "$WORK/nope.json"
echo "serve auth: all checks passed"
