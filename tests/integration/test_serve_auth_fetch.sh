#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp serve --http as an OAuth resource server whose key set is fetched
# from its authorization server (no --auth-jwks): a tiny AS (as_server.py)
# serves metadata and a JWKS; tokens signed by jwt_tool.py with its key
# pass; a flood of made-up key ids costs the AS at most one key-set fetch
# per --auth-jwks-refetch interval (the fetches are counted at the AS); a
# rotation (a new kid) is picked up; OpenID discovery with the path
# appended is found after the RFC 8414 and inserted forms; metadata naming
# another issuer, an unreachable AS, and a plain-http issuer off loopback
# are refused at start, each saying why. $MCP_WRAP runs the server under a
# checker.
. "$(dirname "$0")/lib.sh"
MCP=$1
TOOL="$(dirname "$0")/jwt_tool.py"
requires curl python3 openssl
SLOW=${MCP_WRAP:+10}
SLOW=${SLOW:-1} # how much slower the server may start under a checker

openssl ecparam -name prime256v1 -genkey -noout -out "$WORK/k1.pem" 2>/dev/null
openssl ecparam -name prime256v1 -genkey -noout -out "$WORK/k2.pem" 2>/dev/null
mkdir -p "$WORK/as/.well-known/openid-configuration" "$WORK/as/tenant/.well-known"
python3 "$(dirname "$0")/as_server.py" "$WORK/as" "$WORK/as.log" "$WORK/as.port" &
as_pid=$!
pid=
trap 'kill $as_pid $pid 2>/dev/null; rm -rf "$WORK"' EXIT
i=0
while [ ! -s "$WORK/as.port" ]; do
    i=$((i + 1)); [ $i -le 200 ] || fail "the AS did not start"; sleep 0.05
done
AS="http://127.0.0.1:$(cat "$WORK/as.port")"
python3 "$TOOL" jwks "$WORK/k1.pem" k1 >"$WORK/as/jwks.json" || fail jwks
# RFC 8414 at the root; OpenID's for $AS/tenant, its path appended.
printf '{"issuer":"%s","jwks_uri":"%s/jwks.json"}' "$AS" "$AS" \
    >"$WORK/as/.well-known/oauth-authorization-server"
printf '{"issuer":"%s/tenant","jwks_uri":"%s/jwks.json"}' "$AS" "$AS" \
    >"$WORK/as/tenant/.well-known/openid-configuration"

free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
PORT=$(free_port)
RES="http://127.0.0.1:$PORT/mcp"

# serve ISSUER [option...]: mcp serve in the background, listening.
serve() {
    iss=$1
    shift
    : >"$WORK/serve.err"
    MCP_LOG_LEVEL=debug $MCP_WRAP "$MCP" serve --http "127.0.0.1:$PORT" --auth-issuer "$iss" \
        --auth-resource "$RES" "$@" >/dev/null 2>"$WORK/serve.err" &
    pid=$!
    wait_for "$WORK/serve.err" "listening on http://127.0.0.1:$PORT" $((10 * SLOW))
}
stop() {
    kill "$pid"
    wait "$pid" || fail "mcp serve ended with $?"
    pid=
}

now=$(date +%s)
# token PEM KID SUB [ISS]: an access token for this server.
token() {
    claims=$(printf '{"iss":"%s","aud":"%s","sub":"%s","client_id":"c1","iat":%s,"exp":%s,"jti":"%s","scope":"mcp:tools"}' \
        "${4:-$AS}" "$RES" "$3" "$now" $((now + 600)) "$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')")
    python3 "$TOOL" sign "$1" "{\"typ\":\"at+jwt\",\"kid\":\"$2\"}" "$claims"
}
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'"$META"'}}'
# call TOKEN: the status of a tools/call with it (headers in call.headers).
call() {
    curl -s -D "$WORK/call.headers" -o "$WORK/call.body" -w '%{http_code}' \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' \
        -H "Authorization: Bearer $1" --data-binary "$CALL" "$RES"
}
jwks_fetches() { grep -c ' /jwks.json 200$' "$WORK/as.log"; }

# The key set is fetched at start: RFC 8414's document at the root first.
serve "$AS" --auth-jwks-refetch 2
[ "$(head -n 1 "$WORK/as.log" | cut -d' ' -f2-)" = "/.well-known/oauth-authorization-server 200" ] ||
    fail "the first request: $(head -n 1 "$WORK/as.log")"
[ "$(jwks_fetches)" = 1 ] || fail "one key-set fetch at start, not $(jwks_fetches)"
GOOD=$(token "$WORK/k1.pem" k1 alice)
[ "$(call "$GOOD")" = 200 ] || fail "a token of k1: $(cat "$WORK/call.body")"
contains "$WORK/call.body" '"text":"hi"' "the call"
echo "ok: a token signed by the fetched key"

# A flood of made-up key ids: each refused 401 invalid_token, the AS asked
# at most once per interval (2 s), and at least once.
for i in $(seq 1 8); do
    token "$WORK/k2.pem" "made-up-$i" mallory >"$WORK/flood.$i"
done
end=$(($(date +%s) + 5))
n=0
while [ "$(date +%s)" -lt "$end" ]; do
    n=$((n + 1))
    got=$(call "$(cat "$WORK/flood.$(( (n % 8) + 1 ))")")
    [ "$got" = 401 ] || fail "a made-up kid: $got"
done
tr -d '\r' <"$WORK/call.headers" | grep -q 'error="invalid_token"' || fail "no invalid_token"
sleep $((3 * SLOW))
fetches=$(jwks_fetches)
echo "ok: $n tokens of made-up kids, $fetches key-set fetches in all"
[ "$fetches" -ge 2 ] || fail "an unknown kid made no fetch"
[ "$n" -gt $((fetches * 3)) ] || fail "too few tokens to tell ($n)"
grep ' /jwks.json 200$' "$WORK/as.log" | cut -d' ' -f1 | awk '
    NR > 1 && $1 - last < 1.5 { print "fetches " $1 - last " s apart"; bad = 1 }
    { last = $1 } END { exit bad }' || fail "key-set fetches closer than the interval"
echo "ok: the fetches about 2 s apart"

# Rotation: the AS now signs with k2 only; a token of k2 is refused until
# the refetch it caused brings the key, then served; k1's is refused.
python3 "$TOOL" jwks "$WORK/k2.pem" k2 >"$WORK/as/jwks.json.tmp"
mv "$WORK/as/jwks.json.tmp" "$WORK/as/jwks.json"
NEW=$(token "$WORK/k2.pem" k2 alice)
i=0
while [ "$(call "$NEW")" != 200 ]; do
    i=$((i + 1)); [ $i -le $((40 * SLOW)) ] || fail "the rotated key was not picked up"; sleep 0.25
done
contains "$WORK/call.body" '"text":"hi"' "the call after rotation"
[ "$(call "$GOOD")" = 401 ] || fail "k1's token after rotation"
echo "ok: the rotated key picked up by a refetch"
stop

# OpenID Connect discovery, the issuer's path appended, after the two
# other forms.
: >"$WORK/as.log"
serve "$AS/tenant"
cut -d' ' -f2- "$WORK/as.log" | head -n 4 >"$WORK/tries"
printf '%s\n' "/.well-known/oauth-authorization-server/tenant 404" \
    "/.well-known/openid-configuration/tenant 404" "/tenant/.well-known/openid-configuration 200" \
    "/jwks.json 200" | cmp -s - "$WORK/tries" || { cat "$WORK/tries"; fail "the discovery order"; }
[ "$(call "$(token "$WORK/k2.pem" k2 bob "$AS/tenant")")" = 200 ] || fail "a token of the tenant"
echo "ok: OpenID discovery with the path appended"
stop

# Refused at start, exit 3, each saying why.
printf '{"issuer":"%s/evil","jwks_uri":"%s/jwks.json"}' "$AS" "$AS" >"$WORK/as/other"
mv "$WORK/as/other" "$WORK/as/.well-known/openid-configuration/other"
start() { expect_exit "$1" "$2" -- $MCP_WRAP "$MCP" serve --http "127.0.0.1:$PORT" \
    --auth-issuer "$3" --auth-resource "$RES"; }
start 3 "metadata of another issuer" "$AS/other"
contains "$WORK/err" "names the issuer \"$AS/evil\", not \"$AS/other\"" "the mismatch said"
contains "$WORK/err" "key set could not be had" "the CLI's line"
DEAD="http://127.0.0.1:$(free_port)"
start 3 "an unreachable authorization server" "$DEAD"
contains "$WORK/err" "cannot have the authorization server's key set (auth_issuer $DEAD)" "unreachable said"
printf '{"issuer":"%s/plain","jwks_uri":"http://as.example/jwks.json"}' "$AS" >"$WORK/as/plain"
mv "$WORK/as/plain" "$WORK/as/.well-known/openid-configuration/plain"
start 3 "a jwks_uri of plain http off loopback" "$AS/plain"
contains "$WORK/err" "jwks_uri is not https" "the jwks_uri said"
start 2 "an issuer of plain http off loopback" "http://as.example"
contains "$WORK/err" "the issuer is not an https URL" "the issuer said"
echo "serve auth fetch: all checks passed"
