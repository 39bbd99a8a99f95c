#!/bin/sh
# SPDX-License-Identifier: MIT
# The resource server with token introspection (RFC 7662) against a real
# authorization server: oidc-provider (npm, pinned; tests/interop/
# oidc_as.mjs with OIDC_AS_OPAQUE) issuing opaque access tokens and
# answering introspections from `mcp serve --auth-introspect`, which
# authenticates as its own client. `mcp auth login` gets a token, `mcp call`
# uses it (2025 and 2026-07-28); the answer is remembered for the ttl and
# asked again after it; requests with one unknown token at once cost one
# question; made-up and malformed tokens are refused; a scope an item needs
# and the token lacks is 403; an authorization server that is down gets
# 503 with Retry-After for a token not known, while a known one still works.
#
#   test_oauth_introspect.sh MCP NODE INTEROP_DIR
# $MCP_WRAP (a checker: valgrind) runs the server.
. "$(dirname "$0")/lib.sh"
MCP=$1
NODE=$2
INTEROP=$3
requires curl python3
[ -x "$NODE" ] || missing "no pinned Node at $NODE (make interop-deps)"
[ -d "$INTEROP/node_modules/oidc-provider" ] || missing "no oidc-provider (make interop-deps)"

export XDG_CONFIG_HOME="$WORK/config"
free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
PORT=$(free_port)
RES="http://127.0.0.1:$PORT/mcp"
SECRET=rs-secret-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$SECRET" >"$WORK/secret"
chmod 600 "$WORK/secret"

OIDC_AS_OPAQUE="mcp-rs:$SECRET" "$NODE" "$INTEROP/oidc_as.mjs" "$RES" 3600 \
    >"$WORK/as.out" 2>"$WORK/as.err" &
as_pid=$!
serve_pid=
login_pid=
py_pid=
trap 'kill $as_pid $serve_pid $login_pid $py_pid 2>/dev/null; [ -n "$KEEP" ] || rm -rf "$WORK"' EXIT
wait_for "$WORK/as.out" "issuer " 20
ISS=$(sed -n 's/^issuer //p' "$WORK/as.out")

# serve [OPTIONS]: mcp serve as the resource server, introspecting at
# $INTRO for the issuer $ISS.
INTRO="$ISS/token/introspection"
serve() {
    # A new file: the last server's "listening" must not be taken for this one's.
    rm -f "$WORK/serve.err"
    $MCP_WRAP "$MCP" serve --http "127.0.0.1:$PORT" --auth-issuer "$ISS" --auth-resource "$RES" \
        --auth-scope mcp:tools --auth-introspect "$INTRO" \
        --auth-client-id mcp-rs --auth-client-secret-file "$WORK/secret" "$@" \
        >/dev/null 2>"$WORK/serve.err" &
    serve_pid=$!
    wait_for "$WORK/serve.err" "listening on http://127.0.0.1:$PORT" 20
}
stop_serve() {
    kill -TERM $serve_pid
    wait $serve_pid
    code=$?
    serve_pid=
    # A clean stop on SIGTERM exits 0: anything else
    # (valgrind's 99, a sanitizer's abort) says the server went wrong.
    [ "$code" -eq 0 ] || { cat "$WORK/serve.err"; fail "the server ended with $code after SIGTERM"; }
}
introspections() { grep -c '^introspect' "$WORK/as.out"; }
serve --auth-introspect-ttl 3

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'"$META"'}}'
# post TOKEN OUT: a 2026-07-28 call with that bearer token; prints the status.
post() {
    curl -s -D "$2.h" -o "$2" -w '%{http_code}' -H "Authorization: Bearer $1" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' \
        --data-binary "$CALL" "$RES"
}
header() { tr -d '\r' <"$1.h" | sed -n "s/^$2: //Ip"; }

# login, with curl as the browser (as in test_oauth_login.sh).
"$MCP" auth login "$RES" --timeout 60 >"$WORK/login.out" 2>"$WORK/login.err" &
login_pid=$!
wait_for "$WORK/login.err" "host: 127.0.0.1" 20
url=$(sed -n 's/^  \(http[^ ]*\)$/\1/p' "$WORK/login.err" | head -n 1)
curl -sS -L -c "$WORK/jar" -b "$WORK/jar" -o "$WORK/browser.out" "$url" 2>"$WORK/browser.err" ||
    { cat "$WORK/browser.err" "$WORK/as.err" "$WORK/login.err"; fail "the browser walk"; }
wait "$login_pid" || { cat "$WORK/login.err"; fail "login"; }
login_pid=
file=$(ls "$XDG_CONFIG_HOME"/mcp/auth/*.json)
token=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print([r for k, r in d["records"].items() if k.startswith("tokens ")][0]["access_token"])' "$file")
case $token in *.*.*) fail "the token is a JWT: oidc-provider was to issue opaque ones" ;; esac

# The login's last step (its request with the new token) asked once; the
# call's requests, a session's, are answered from memory.
expect_exit 0 "a 2025 call with an opaque token" -- "$MCP" call --url "$RES" echo '{"text":"hi"}'
contains "$WORK/out" "hi" "the tool answered"
after=$(introspections)
[ "$after" -eq 1 ] || fail "$after introspections for a login and a session's requests, expected 1"
echo "ok: one introspection for a login and a session's requests"
code=$(post "$token" "$WORK/b")
[ "$code" = 200 ] || fail "a 2026-07-28 call with the token: HTTP $code"
contains "$WORK/b" '"hi"' "the 2026 call answered"
[ "$(introspections)" -eq "$after" ] || fail "asked again within the ttl"
echo "ok: remembered within the ttl"

# Past the ttl (3 s): asked again.
sleep 4
code=$(post "$token" "$WORK/b")
[ "$code" = 200 ] || fail "a call past the ttl: HTTP $code"
[ "$(introspections)" -eq $((after + 1)) ] || fail "not asked again past the ttl"
echo "ok: asked again past the ttl"

# Eight requests at once with one unknown token: one question, eight 401s.
before=$(introspections)
bad=made-up-$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')
for i in 1 2 3 4 5 6 7 8; do post "$bad" "$WORK/p$i" >"$WORK/p$i.code" & done
wait_count "$WORK/as.out" "introspect" $((before + 1)) 10
sleep 1
for i in 1 2 3 4 5 6 7 8; do
    while [ ! -s "$WORK/p$i.code" ]; do sleep 0.1; done
    [ "$(cat "$WORK/p$i.code")" = 401 ] || fail "request $i with a made-up token: HTTP $(cat "$WORK/p$i.code")"
    case $(header "$WORK/p$i" WWW-Authenticate) in
        *'error="invalid_token"'*'not active'* | *'error="invalid_token"'*'refused the token'*) ;;
        *) fail "request $i: challenge $(header "$WORK/p$i" WWW-Authenticate)" ;;
    esac
done
[ "$(introspections)" -eq $((before + 1)) ] || fail "$(( $(introspections) - before )) introspections for one token asked 8 times at once"
echo "ok: eight requests with one made-up token, one introspection, eight 401 invalid_token"
code=$(post "$bad" "$WORK/b")
[ "$code" = 401 ] || fail "the made-up token again: HTTP $code"
[ "$(introspections)" -eq $((before + 1)) ] || fail "a refused token was asked about again at once"
echo "ok: a refusal remembered"

# A header that is not one bearer token is refused before anyone is asked.
before=$(introspections)
code=$(post "two tokens" "$WORK/b")
[ "$code" = 400 ] || fail "a malformed Authorization: HTTP $code, expected 400"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' --data-binary "$CALL" "$RES")
[ "$code" = 401 ] || fail "no Authorization: HTTP $code, expected 401"
[ "$(introspections)" -eq "$before" ] || fail "a malformed or missing token was introspected"
echo "ok: malformed and missing tokens refused without asking"

stop_serve

# A scope the item needs and the token lacks: 403 naming it.
serve --auth-item-scope echo=mcp:admin
code=$(post "$token" "$WORK/b")
[ "$code" = 403 ] || fail "echo needing mcp:admin: HTTP $code, expected 403"
case $(header "$WORK/b" WWW-Authenticate) in
    *'error="insufficient_scope"'*'mcp:admin'*) ;;
    *) fail "403 challenge: $(header "$WORK/b" WWW-Authenticate)" ;;
esac
echo "ok: 403 insufficient_scope for an item's scope"
stop_serve

# The authorization server goes: a token known is still served (within
# the ttl), one not known gets 503 with Retry-After, and the server says why.
serve --auth-introspect-ttl 60
code=$(post "$token" "$WORK/b")
[ "$code" = 200 ] || fail "a call before the authorization server went: HTTP $code"
kill $as_pid
wait $as_pid 2>/dev/null
as_pid=
code=$(post "$token" "$WORK/b")
[ "$code" = 200 ] || fail "a known token with the authorization server gone: HTTP $code"
code=$(post "another-$bad" "$WORK/b")
[ "$code" = 503 ] || fail "an unknown token with the authorization server gone: HTTP $code, expected 503"
[ "$(header "$WORK/b" Retry-After)" = 5 ] || fail "no Retry-After: 5 on the 503"
contains "$WORK/serve.err" "cannot introspect a token" "the server logs why"
echo "ok: 503 with Retry-After while the authorization server is away"
running $serve_pid || fail "the server died"
stop_serve

# Options refused before serving.
expect_exit 2 "introspection without a client id" -- "$MCP" serve --http "127.0.0.1:$PORT" \
    --auth-issuer "$ISS" --auth-resource "$RES" --auth-introspect "$ISS/token/introspection" \
    --auth-client-secret-file "$WORK/secret"
chmod 644 "$WORK/secret"
expect_exit 2 "a secret file others may read" -- "$MCP" serve --http "127.0.0.1:$PORT" \
    --auth-issuer "$ISS" --auth-resource "$RES" --auth-introspect "$ISS/token/introspection" \
    --auth-client-id mcp-rs --auth-client-secret-file "$WORK/secret"
contains "$WORK/err" "may be read by others" "says why"
chmod 600 "$WORK/secret"
expect_exit 2 "an introspection endpoint over plain http elsewhere" -- "$MCP" serve \
    --http "127.0.0.1:$PORT" --auth-issuer "$ISS" --auth-resource "$RES" \
    --auth-introspect "http://example.com/introspect" --auth-client-id mcp-rs \
    --auth-client-secret-file "$WORK/secret"
contains "$WORK/err" "https" "says https is needed"

# An introspection endpoint that misbehaves (introspect_server.py).
python3 "$(dirname "$0")/introspect_server.py" "http://127.0.0.1:0" "$RES" mcp-rs "$SECRET" \
    "$WORK/py.log" "$WORK/py.port" 2>"$WORK/py.err" &
py_pid=$!
i=0
while [ ! -s "$WORK/py.port" ]; do i=$((i + 1)); [ $i -lt 100 ] || fail "no introspection stub"; sleep 0.05; done
ISS="http://127.0.0.1:0"
INTRO="http://127.0.0.1:$(cat "$WORK/py.port")/introspect"
serve
code=$(post good-1 "$WORK/b")
[ "$code" = 200 ] || fail "an active token: HTTP $code"
contains "$WORK/py.log" "introspect good-1 hint=access_token" "the token and its hint were posted"
# The stub answers 401 to other credentials: a 200 above means the
# server's client id and secret were sent form-encoded in HTTP Basic.

# A request waiting 2 s for its answer whose client gives up: the server
# serves on, and a second request with the same token gets its answer.
curl -s -o /dev/null --max-time 0.5 -H "Authorization: Bearer slow-1" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' --data-binary "$CALL" "$RES"
code=$(post slow-1 "$WORK/b")
[ "$code" = 200 ] || fail "a slow answer: HTTP $code"
contains "$WORK/b" '"hi"' "the call that waited was served, its body read after the wait"
[ "$(grep -c 'introspect slow-1' "$WORK/py.log")" -le 2 ] || fail "the slow token was asked more than twice"
echo "ok: a waiting client that goes, another that waits and is served"

# Bodies held while their tokens are asked about are bounded (16 MiB):
# five requests of 3.9 MiB with slow tokens at once, one gets 503.
python3 -c 'import json, sys
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
print(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "echo", "arguments": {"text": "x" * 3900000}, "_meta": meta}}))' >"$WORK/big.json"
curls=
for i in 1 2 3 4 5; do
    curl -s -o "$WORK/big$i" -w '%{http_code}' -H "Authorization: Bearer slow-big-$i" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' \
        --data-binary "@$WORK/big.json" "$RES" >"$WORK/big$i.code" &
    curls="$curls $!"
done
wait $curls
codes=$(for i in 1 2 3 4 5; do cat "$WORK/big$i.code"; echo; done | sort | tr '\n' ' ')
case $codes in
    *503*) ;;
    *) fail "five bodies of 3.9 MiB waiting at once: $codes, expected a 503" ;;
esac
case $codes in
    *200*) ;;
    *) fail "five bodies of 3.9 MiB waiting at once: $codes, expected the first ones served" ;;
esac
grep -l "too many requests wait" "$WORK"/big? >/dev/null || fail "the 503 does not say why"
echo "ok: bodies held while waiting are bounded ($codes)"

for case in "aud-1 401 audience" "garbage-1 503 not a JSON object" "err-1 503 HTTP 500" "no-1 401 not active"; do
    set -- $case
    token=$1 want=$2
    shift 2
    code=$(post "$token" "$WORK/b")
    [ "$code" = "$want" ] || fail "$token: HTTP $code, expected $want"
    contains "$WORK/b" "$*" "$token: the reason"
    echo "ok: $token refused with $want ($*)"
done
[ "$(header "$WORK/b" WWW-Authenticate | grep -c invalid_token)" = 1 ] || fail "no invalid_token challenge"
# A failure is not remembered: the next request asks again.
before=$(grep -c 'introspect err-1' "$WORK/py.log")
post err-1 "$WORK/b" >/dev/null
[ "$(grep -c 'introspect err-1' "$WORK/py.log")" -eq $((before + 1)) ] || fail "a failed introspection was remembered"
echo "ok: a failed introspection is asked again"
running $serve_pid || fail "the server died"
stop_serve
echo "all introspection checks passed"
