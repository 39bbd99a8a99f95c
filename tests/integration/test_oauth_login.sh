#!/bin/sh
# SPDX-License-Identifier: MIT
# OAuth end to end with a real authorization server: oidc-provider (npm,
# pinned; tests/interop/oidc_as.mjs) issuing JWT access tokens for
# `mcp serve --http` as a resource server (its key set found from
# oidc-provider's metadata), and `mcp auth login` getting them
# (discovery from the server's 401, dynamic registration, PKCE, RFC 9207's
# iss, the loopback redirect; the browser is curl following the redirects).
# Then `mcp call --url` uses the kept token and refreshes it once it has
# expired (oidc-provider rotates refresh tokens: the new one must be kept),
# a token spoiled in the file is refused and replaced by a refresh, status
# shows what is kept but never a token, a file others may read is refused,
# logout forgets, and a command with nothing kept names the login to run.
#
#   test_oauth_login.sh MCP NODE INTEROP_DIR
# $MCP_WRAP (a checker: valgrind) runs each command of the client side.
. "$(dirname "$0")/lib.sh"
MCP=$1
NODE=$2
INTEROP=$3
requires curl python3
[ -x "$NODE" ] || missing "no pinned Node at $NODE (make interop-deps)"
[ -d "$INTEROP/node_modules/oidc-provider" ] || missing "no oidc-provider (make interop-deps)"

export XDG_CONFIG_HOME="$WORK/config"
TTL=3
PORT=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
RES="http://127.0.0.1:$PORT/mcp"

MACHINE_SECRET=m-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')
OIDC_AS_MACHINE="mcp-machine:$MACHINE_SECRET" OIDC_AS_KEY_FILE="$WORK/as.pem" "$NODE" "$INTEROP/oidc_as.mjs" "$RES" $TTL \
    >"$WORK/as.out" 2>"$WORK/as.err" &
as_pid=$!
serve_pid=
login_pid=
trap 'kill $as_pid $serve_pid $login_pid 2>/dev/null; rm -rf "$WORK"' EXIT
wait_for "$WORK/as.out" "issuer " 20
ISS=$(sed -n 's/^issuer //p' "$WORK/as.out")

# The key set found from oidc-provider's metadata (its jwks_uri).
"$MCP" serve --http "127.0.0.1:$PORT" --auth-issuer "$ISS" --auth-resource "$RES" \
    --auth-scope mcp:tools >/dev/null 2>"$WORK/serve.err" &
serve_pid=$!
wait_for "$WORK/serve.err" "listening on http://127.0.0.1:$PORT" 10

# Nothing kept yet: the 401 says what to do.
expect_exit 3 "a call before any login" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"hi"}'
contains "$WORK/err" "Unauthorized" "says it was refused"
contains "$WORK/err" "mcp auth login $RES" "names the command to run"

# login, with curl as the browser.
$MCP_WRAP "$MCP" auth login "$RES" --timeout 60 >"$WORK/login.out" 2>"$WORK/login.err" &
login_pid=$!
wait_for "$WORK/login.err" "Open this page" 20
wait_for "$WORK/login.err" "host: 127.0.0.1" 5
url=$(sed -n 's/^  \(http[^ ]*\)$/\1/p' "$WORK/login.err" | head -n 1)
case $url in "$ISS/auth?"*) ;; *) fail "not the authorization endpoint of $ISS: $url" ;; esac
case $url in *"code_challenge_method=S256"*) ;; *) fail "no PKCE S256 in $url" ;; esac
case $url in *"resource=http%3A%2F%2F127.0.0.1%3A$PORT%2Fmcp"*) ;; *) fail "no resource in $url" ;; esac
curl -sS -L -c "$WORK/jar" -b "$WORK/jar" -o "$WORK/browser.out" "$url" 2>"$WORK/browser.err" || { cat "$WORK/browser.err" "$WORK/as.err" "$WORK/login.err"; fail "the browser walk"; }
contains "$WORK/browser.out" "you can close this page" "the browser came back to mcp"
wait "$login_pid"
code=$?
login_pid=
[ "$code" -eq 0 ] || { cat "$WORK/login.err"; fail "login exit $code"; }
contains "$WORK/login.err" "authorized" "login says so"
wait_count "$WORK/as.out" "grant authorization_code" 1 5

file=$(ls "$XDG_CONFIG_HOME"/mcp/auth/*.json)
[ "$(stat -c %a "$file")" = 600 ] || fail "the kept file is mode $(stat -c %a "$file")"
[ "$(stat -c %a "$XDG_CONFIG_HOME/mcp/auth")" = 700 ] || fail "its directory is not 0700"

expect_exit 0 "a call with the kept token" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"hi"}'
contains "$WORK/out" "hi" "the tool answered"
# mcp proxy --url sends the kept token too (the client here is mcp call
# spawning it, with no authorization of its own).
expect_exit 0 "mcp proxy with the kept token" -- \
    "$MCP" call echo '{"text":"proxied"}' -- $MCP_WRAP "$MCP" proxy --url "$RES"
contains "$WORK/out" "proxied" "the tool answered through the proxy"

# The token expires: the next call refreshes it first, and keeps the new
# refresh token (oidc-provider rotates them: the old one is spent).
sleep $((TTL + 1))
expect_exit 0 "a call after the token expired" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"again"}'
contains "$WORK/out" "again" "the tool answered"
wait_count "$WORK/as.out" "grant refresh_token" 1 5
sleep $((TTL + 1))
expect_exit 0 "a second refresh, with the rotated refresh token" -- \
    $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"third"}'
wait_count "$WORK/as.out" "grant refresh_token" 2 5

# Two processes find the token expired at once: one refresh between them
# (the file's lock), the other takes its tokens; a rotated refresh token
# spent twice would fail one of them.
sleep $((TTL + 1))
before=$(grep -c "^grant refresh_token" "$WORK/as.out")
$MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"one"}' >"$WORK/one.out" 2>"$WORK/one.err" &
one=$!
$MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"two"}' >"$WORK/two.out" 2>"$WORK/two.err" &
two=$!
wait $one || { cat "$WORK/one.err"; fail "the first of two processes"; }
wait $two || { cat "$WORK/two.err"; fail "the second of two processes"; }
contains "$WORK/one.out" "one" "the first answered"
contains "$WORK/two.out" "two" "the second answered"
refreshes=$(($(grep -c "^grant refresh_token" "$WORK/as.out") - before))
[ "$refreshes" -eq 1 ] || { cat "$WORK/as.out"; fail "$refreshes refreshes by two processes at once, expected 1"; }
lacks "$WORK/as.out" "refused refresh_token" "no refresh token was spent twice"
echo "ok: two processes, one refresh"

# A token spoiled in the file: the server's 401 leads to a refresh.
python3 - "$file" <<'EOF'
import json, sys
path = sys.argv[1]
doc = json.load(open(path))
for key, rec in doc["records"].items():
    if key.startswith("tokens "):
        rec["access_token"] = rec["access_token"][:-4] + "AAAA"
        rec["expires_at"] = 4102444800
open(path, "w").write(json.dumps(doc))
EOF
chmod 600 "$file"
expect_exit 0 "a call with a spoiled token" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"fixed"}'
contains "$WORK/out" "fixed" "the tool answered"
wait_count "$WORK/as.out" "grant refresh_token" 4 5
grants=$(grep -c "^grant authorization_code" "$WORK/as.out")
[ "$grants" -eq 1 ] || fail "$grants authorizations: a refresh should have been enough"

expect_exit 0 "status" -- $MCP_WRAP "$MCP" auth status "$RES" --json
contains "$WORK/out" "\"issuer\":\"$ISS\"" "the issuer"
contains "$WORK/out" "\"refreshable\":true" "a refresh token is kept"
token=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print([r for k, r in d["records"].items() if k.startswith("tokens ")][0]["access_token"])' "$file")
lacks "$WORK/out" "$token" "status never shows the token"

chmod 644 "$file"
expect_exit 3 "a kept file others may read" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"x"}'
contains "$WORK/err" "may be read by others" "says why it is not used"
chmod 600 "$file"

expect_exit 0 "logout" -- $MCP_WRAP "$MCP" auth logout "$RES"
[ ! -e "$file" ] || fail "logout left $file"
expect_exit 3 "a call after logout" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"x"}'
contains "$WORK/err" "mcp auth login" "names the command to run"

# A machine client (client credentials): no refresh token and no user, so
# a --url command gets a new token itself once the kept one expired, with
# the secret read again from where login was told it is.
printf '%s\n' "$MACHINE_SECRET" >"$WORK/machine.secret"
chmod 644 "$WORK/machine.secret"
expect_exit 2 "a machine login with a secret others may read" -- $MCP_WRAP "$MCP" auth login "$RES" \
    --client-credentials --client-id mcp-machine --client-secret-file "$WORK/machine.secret"
contains "$WORK/err" "may be read by others" "says why"
chmod 600 "$WORK/machine.secret"
expect_exit 0 "a machine login" -- $MCP_WRAP "$MCP" auth login "$RES" --client-credentials \
    --client-id mcp-machine --client-secret-file "$WORK/machine.secret" --scope mcp:tools
wait_count "$WORK/as.out" "grant client_credentials" 1 5
file=$(ls "$XDG_CONFIG_HOME"/mcp/auth/*.json)
lacks "$file" "$MACHINE_SECRET" "the kept file holds where the secret is, not the secret"
expect_exit 0 "status names the machine login" -- $MCP_WRAP "$MCP" auth status "$RES"
contains "$WORK/out" "machine login: client mcp-machine" "status"
expect_exit 0 "a machine call" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"m1"}'
contains "$WORK/out" "m1" "the tool answered"
sleep $((TTL + 1))
expect_exit 0 "a machine call after the token expired" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"m2"}'
contains "$WORK/out" "m2" "the tool answered"
wait_count "$WORK/as.out" "grant client_credentials" 2 5
# The secret is read from its file by each command: a wrong one gets no
# token (the expired one is still sent; mcp serve's 60 s of clock skew may
# take it), the right one put back gets one.
sleep $((TTL + 1))
printf 'wrong\n' >"$WORK/machine.secret"
# (Counts are taken from here: under valgrind a command may outlive a 3 s
# token and rightly ask again.)
granted=$(grep -c '^grant client_credentials' "$WORK/as.out")
$MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"m3"}' >/dev/null 2>&1
wait_for "$WORK/as.out" "refused client_credentials" 5
[ "$(grep -c '^grant client_credentials' "$WORK/as.out")" -eq "$granted" ] || fail "a token granted to a wrong secret"
printf '%s\n' "$MACHINE_SECRET" >"$WORK/machine.secret"
expect_exit 0 "a machine call with the secret back" -- $MCP_WRAP "$MCP" call --url "$RES" echo '{"text":"m4"}'
contains "$WORK/out" "m4" "the tool answered"
wait_count "$WORK/as.out" "grant client_credentials" $((granted + 1)) 5
expect_exit 0 "logout of the machine login" -- $MCP_WRAP "$MCP" auth logout "$RES"
[ ! -e "$file" ] || fail "logout left $file"

# The TypeScript SDK v1 client, its own OAuth code, against the same pair.
expect_exit 0 "the TypeScript SDK v1 client authorizes and calls" -- \
    "$NODE" "$INTEROP/ts_oauth_client.mjs" "$RES"
lacks "$WORK/out" "not ok" "every check of the SDK client"

# Tokens the server must refuse, made with oidc-provider's own key unless
# said: 401 invalid_token, the reason in error_description.
TOOL="$(dirname "$0")/jwt_tool.py"
now=$(date +%s)
jti() { head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
claims() { # ISS AUD EXP
    printf '{"iss":"%s","aud":"%s","sub":"x","client_id":"c","iat":%s,"exp":%s,"jti":"%s","scope":"mcp:tools"}' \
        "$1" "$2" "$now" "$3" "$(jti)"
}
signed() { python3 "$TOOL" sign "$WORK/as.pem" '{"typ":"at+jwt","kid":"k1"}' "$1"; }
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'"$META"'}}'
# refused NAME TOKEN WHY: the server answers 401 invalid_token saying WHY.
refused() {
    code=$(curl -s -D "$WORK/h" -o "$WORK/b" -w '%{http_code}' -H "Authorization: Bearer $2" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' \
        --data-binary "$CALL" "$RES")
    ch=$(tr -d '\r' <"$WORK/h" | sed -n 's/^[Ww][Ww][Ww]-[Aa]uthenticate: //p')
    [ "$code" = 401 ] || fail "$1: HTTP $code, expected 401"
    case $ch in *'error="invalid_token"'*"$3"*) ;; *) fail "$1: challenge $ch, expected invalid_token and '$3'" ;; esac
    echo "ok: $1 refused (401 invalid_token)"
}
good=$(signed "$(claims "$ISS" "$RES" $((now + 600)))")
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $good" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' --data-binary "$CALL" "$RES")
[ "$code" = 200 ] || fail "a token made with the authorization server's key: HTTP $code"
refused "an expired token" "$(signed "$(claims "$ISS" "$RES" $((now - 600)))")" "expired"
refused "a token for another audience" "$(signed "$(claims "$ISS" "https://other.example/mcp" $((now + 600)))")" "aud"
refused "a token of another issuer" "$(signed "$(claims "https://evil.example" "$RES" $((now + 600)))")" "iss"
refused "an unsigned token (alg none)" \
    "$(python3 "$TOOL" none '{"typ":"at+jwt","kid":"k1"}' "$(claims "$ISS" "$RES" $((now + 600)))")" ""
curl -s "$ISS/jwks" >"$WORK/jwks.json"
refused "HS256 with the public key as the secret" \
    "$(python3 "$TOOL" hs256 "$WORK/jwks.json" '{"typ":"at+jwt","kid":"k1"}' "$(claims "$ISS" "$RES" $((now + 600)))")" ""
openssl ecparam -name prime256v1 -genkey -noout -out "$WORK/other.pem" 2>/dev/null
refused "a token of an unknown key" \
    "$(python3 "$TOOL" sign "$WORK/other.pem" '{"typ":"at+jwt","kid":"k9"}' "$(claims "$ISS" "$RES" $((now + 600)))")" "kid"
tampered=$(echo "$good" | python3 -c 'import base64, json, sys
h, c, s = sys.stdin.read().strip().split(".")
claims = json.loads(base64.urlsafe_b64decode(c + "=" * (-len(c) % 4)))
claims["sub"] = "admin"
c = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
print(".".join([h, c, s]))')
refused "a tampered token" "$tampered" "signature"

expect_exit 2 "login without a URL" -- $MCP_WRAP "$MCP" auth login
expect_exit 2 "login with a URL that is not http" -- $MCP_WRAP "$MCP" auth login ftp://x/
# mcp against the TypeScript SDK's protected server example (its demo
# authorization server redirects at once, its resource server checks the
# token's resource strictly).
kill $serve_pid $as_pid 2>/dev/null
TS_PORT=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
TS_AUTH_PORT=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
TS_URL="http://localhost:$TS_PORT/mcp"
mkfifo "$WORK/fifo"
MCP_PORT=$TS_PORT MCP_AUTH_PORT=$TS_AUTH_PORT "$NODE" \
    "$INTEROP/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js" \
    --oauth --oauth-strict >"$WORK/ts.out" 2>&1 &
serve_pid=$!
wait_for "$WORK/ts.out" "MCP Streamable HTTP Server listening" 20
expect_exit 3 "a call to the TypeScript example before login" -- \
    $MCP_WRAP "$MCP" call --url "$TS_URL" greet '{"name":"libmcp"}'
$MCP_WRAP "$MCP" auth login "$TS_URL" --timeout 60 >"$WORK/login.out" 2>"$WORK/login.err" &
login_pid=$!
wait_for "$WORK/login.err" "Open this page" 20
url=$(sed -n 's/^  \(http[^ ]*\)$/\1/p' "$WORK/login.err" | head -n 1)
curl -sS -L -o "$WORK/browser.out" "$url" || fail "the browser walk (TypeScript example)"
wait "$login_pid" || { cat "$WORK/login.err"; fail "login to the TypeScript example"; }
login_pid=
expect_exit 0 "a call to the TypeScript example with the kept token" -- \
    $MCP_WRAP "$MCP" call --url "$TS_URL" greet '{"name":"libmcp"}'
contains "$WORK/out" "Hello, libmcp!" "the example's tool answered"
# The example program (examples/oauth_client.c) against the same example
# server: its user pastes where the browser was sent (curl finds it).
XDG_CONFIG_HOME="$WORK/none" "$(dirname "$MCP")/example_oauth_client" "$TS_URL" \
    <"$WORK/fifo" >"$WORK/ex.out" 2>"$WORK/ex.err" &
ex=$!
exec 7>"$WORK/fifo"
wait_for "$WORK/ex.err" "open this page" 20
url=$(sed -n 's/^  \(http[^ ]*\)$/\1/p' "$WORK/ex.err" | head -n 1)
curl -s -o /dev/null -w '%{redirect_url}\n' "$url" >&7
exec 7>&-
wait $ex || { cat "$WORK/ex.err"; fail "the example OAuth client"; }
contains "$WORK/ex.out" "authorized:" "the example listed the tools"
echo "PASS"
