#!/bin/sh
# SPDX-License-Identifier: MIT
# The OAuth client against servers that misbehave (oauth_hostile_server.py
# plays the resource server and the authorization server on one origin):
# every path bounded in requests and in time, no secret shown to a server
# it is not for, none printed, the server's control bytes never raw in a
# message. The client is mcp-conformance client (the library's OAuth with
# the options an application gives), under $MCP_WRAP when set.
#
#   test_oauth_hostile.sh MCP_CONFORMANCE
. "$(dirname "$0")/lib.sh"
CONF=$1
SERVER="$(dirname "$0")/oauth_hostile_server.py"
requires python3

# attack MODE [CONTEXT]: the client against MODE; $rc its exit status,
# $secs its time, $WORK/counts.json what the server saw.
attack() {
    port=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
    rm -f "$WORK/counts.json"
    python3 "$SERVER" "$1" "$port" "$WORK/counts.json" &
    spid=$!
    i=0
    until curl -s -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "the hostile server ($1) did not start"
        sleep 0.05
    done
    start=$(date +%s)
    env MCP_CONFORMANCE_SCENARIO=auth/hostile ${2:+MCP_CONFORMANCE_CONTEXT="$2"} \
        $MCP_WRAP "$CONF" client "http://127.0.0.1:$port/mcp" >"$WORK/out" 2>"$WORK/err"
    rc=$?
    secs=$(($(date +%s) - start))
    kill $spid 2>/dev/null
    wait $spid 2>/dev/null
}
# count PATH: how many requests the server had for it.
count() {
    python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["counts"].get(sys.argv[2], 0))' "$WORK/counts.json" "$1"
}
at_most() {
    got=$(count "$1")
    [ "$got" -le "$2" ] || { cat "$WORK/err"; fail "$3: $got requests to $1, at most $2"; }
}
ends() {
    [ "$rc" -ne 0 ] || { cat "$WORK/err"; fail "$1: the client succeeded"; }
    [ "$rc" -lt 100 ] || { cat "$WORK/err"; fail "$1: exit $rc (a checker's, or a signal)"; }
    [ "$secs" -le "$2" ] || fail "$1: $secs s, at most $2"
    if grep -a -q 'SECRET-' "$WORK/out" "$WORK/err"; then cat "$WORK/err"; fail "$1: a secret printed"; fi
    echo "ok: $1 (exit $rc in $secs s)"
}

attack unauth_forever
ends "a server that refuses every token" 10
at_most "POST /token" 3 "refusing every token"

attack unauth_after_token
ends "a server that refuses each new token at once" 10
at_most "POST /token" 6 "refusing each new token"

attack scope_forever
ends "a server that wants a new scope forever" 15
at_most "GET /authorize" 9 "ever new scopes"

attack scope_same_forever
ends "a server that wants the same scope forever" 10
at_most "GET /authorize" 3 "the same scope"

attack slow_each
ends "every authorization endpoint 12 s late" 30

attack register_refused_ctl
ends "a registration refused with control bytes" 10
if grep -a -q "$(printf '\033')" "$WORK/err"; then fail "an escape byte of the server's reached stderr raw"; fi

attack redirect_meta
ends "metadata that redirects" 10
at_most "POST /token" 0 "metadata that redirects"

# A server at the origin claiming another authorization server's issuer
# gets none of what is bound to that one.
attack legacy_steal '{"client_id":"pre-client","client_secret":"SECRET-CLIENT-pre","issuer":"https://real-as.example"}'
python3 -c 'import json, sys
seen = json.load(open(sys.argv[1]))["seen"]
sys.exit(1 if seen.get("STOLEN") and any(seen["STOLEN"]) else 0)' "$WORK/counts.json" ||
    fail "the secret bound to another issuer was posted to the origin's token endpoint"
echo "ok: another issuer's secret is not shown to the origin"

attack dpop_rs_nonce_forever
ends "a server that asks for a new DPoP nonce forever" 10
echo "PASS"
