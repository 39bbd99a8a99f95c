#!/bin/sh
# SPDX-License-Identifier: MIT
# The official TypeScript SDK clients against `mcp serve --http` (Streamable
# HTTP), one case a run:
#
#   run_http_interop.sh MCP v1-auto|v1-sse|v1-resume|v2
#
#   v1-auto    ts_http_client.mjs (SDK v1, 2025-11-25) against the default mode
#   v1-sse     the same against --response sse
#   v1-resume  ts_http_client.mjs resume against --poll-retry 300: every
#              stream is closed after its priming event, so the client must
#              resume with Last-Event-ID
#   v2         ts2_http_client.mjs (SDK v2, 2026-07-28, stateless)
#   v1-ask     ts_ask_client.mjs (SDK v1, 2025-11-25) answering what our
#              tools ask (elicitation, sampling, roots), and the cancel of
#              a call cancelling the sampling it waits on
#
# Starts the server (MCP_LOG_LEVEL=info, stderr to a log), runs the script,
# then asserts on both: the script passed and printed as many "ok" lines as
# the case has checks (a check that stops running is a failure too), and
# the server's log says what the client's actions must have caused there
# (cancels with the client's reason, the session deleted, no cancel where
# there must be none). Last, the server must stop on SIGTERM with status 0.
# Needs `make interop-deps` (the pinned Node and SDKs). HTTP_INTEROP_KEEP=1
# keeps the work directory.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
MCP=${1:?usage: run_http_interop.sh MCP v1-auto|v1-sse|v1-resume|v2|v1-ask}
CASE=${2:?usage: run_http_interop.sh MCP v1-auto|v1-sse|v1-resume|v2|v1-ask}
NODE=$HERE/node_modules/.bin/node

# The case: the server's options, the script and its mode, and how many
# checks the script makes (keep in step with the script).
case $CASE in
v1-auto) OPTS='' SCRIPT=ts_http_client.mjs MODE=auto CHECKS=29 ;;
v1-sse) OPTS="--response sse" SCRIPT=ts_http_client.mjs MODE=sse CHECKS=29 ;;
v1-resume) OPTS="--poll-retry 300" SCRIPT=ts_http_client.mjs MODE=resume CHECKS=16 ;;
v2) OPTS='' SCRIPT=ts2_http_client.mjs MODE='' CHECKS=21 ;;
v1-ask) OPTS='' SCRIPT=ts_ask_client.mjs MODE='' CHECKS=13 ;;
*)
    echo "run_http_interop: unknown case $CASE" >&2
    exit 2
    ;;
esac

[ -x "$NODE" ] || {
    echo "run_http_interop: no pinned Node at $NODE: run 'make interop-deps'" >&2
    exit 1
}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/http-interop.XXXXXX") || exit 1
LOG=$WORK/server.log
OUT=$WORK/client.out
server=
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null
        wait "$server" 2>/dev/null
    fi
    if [ -n "${HTTP_INTEROP_KEEP:-}" ]; then
        echo "run_http_interop: kept $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

failures=0
pass() { echo "ok - $*"; }
fail() {
    echo "not ok - $*"
    failures=$((failures + 1))
}

# The log exists before the server runs: the background job may open it
# only after the first look for the port.
: >"$LOG"
# shellcheck disable=SC2086 # OPTS is a list of words
MCP_LOG_LEVEL=info "$MCP" serve --http 127.0.0.1:0 $OPTS 2>"$LOG" >/dev/null &
server=$!
port=
i=0
while [ $i -lt 100 ]; do
    port=$(sed -n 's|^mcp serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)/mcp$|\1|p' "$LOG")
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
    i=$((i + 1))
done
if [ -z "$port" ]; then
    cat "$LOG" >&2
    echo "run_http_interop: mcp serve --http 127.0.0.1:0 $OPTS did not say where it listens" >&2
    exit 1
fi
URL=http://127.0.0.1:$port/mcp
echo "# $CASE: $SCRIPT${MODE:+ $MODE} against mcp serve --http${OPTS:+ $OPTS} on $URL"

# shellcheck disable=SC2086 # MODE is empty for v2
"$NODE" "$HERE/$SCRIPT" "$URL" $MODE >"$OUT" 2>&1
status=$?
sed 's/^/# client: /' "$OUT"
[ $status -eq 0 ] && pass "$SCRIPT exited 0" || fail "$SCRIPT exited $status"
grep -q '^not ok' "$OUT" && fail "$SCRIPT reported a failed check" || pass "$SCRIPT reported no failed check"
oks=$(grep -c '^ok - ' "$OUT")
[ "$oks" -eq "$CHECKS" ] && pass "$SCRIPT made its $CHECKS checks" || fail "$SCRIPT made $oks passing checks of $CHECKS"

# logged RE [SECONDS]: whether the server's log has a line matching the
# extended RE, waiting for it up to SECONDS (default 5): the server logs a
# cancel within its loop's next turn, maybe after the client exited.
logged() {
    n=$(( ${2:-5} * 10 ))
    while ! grep -Eq -- "$1" "$LOG"; do
        [ "$n" -le 0 ] && return 1
        sleep 0.1
        n=$((n - 1))
    done
}
# expect RE WHAT / refuse RE WHAT: the log must (not) have such a line.
expect() { logged "$1" && pass "server log: $2" || fail "server log: $2 (no line matching /$1/)"; }
refuse() {
    if grep -Eq -- "$1" "$LOG"; then
        fail "server log: $2 (but: $(grep -E -- "$1" "$LOG" | head -1))"
    else
        pass "server log: $2"
    fi
}
# info KEY: the value of the client's "info: KEY VALUE" line.
info() { sed -n "s/^info: $1 //p" "$OUT" | head -1; }

# The log is at info level: the refusals below would otherwise pass on a
# server that logs nothing.
expect "^mcp serve: info: serving Streamable HTTP on $URL\$" "logging at info level"
case $CASE in
v1-ask)
    expect 'cancel received: id=[0-9]+ method=tools/call direction=inbound reason="user pressed stop"' \
        "the client's cancel of its call arrived"
    expect 'cancel sent: id=[0-9]+ method=sampling/createMessage direction=outbound reason="user pressed stop"' \
        "our cancel of the sampling that call waited on went out, with the same reason"
    ;;
v1-auto | v1-sse)
    reason='aborted by the ts http client'
    id=$(info 'aborted request id')
    expect "cancel received: id=${id:-none} method=tools/call direction=inbound reason=\"$reason\"" \
        "the posted notifications/cancelled reached the call, with the SDK's reason"
    expect "sleep: cancelled after [0-9]+ ms \\($reason\\)$" "the sleep handler saw the cancel and its reason"
    sid=$(info session | cut -c1-8)
    expect "session ${sid:-none}.* deleted by the client$" "the DELETE ended the client's session"
    id=$(info 'in-flight request id')
    expect "request cancelled: id=${id:-none} method=tools/call direction=inbound reason=\"session ended\"" \
        "the session's end cancelled the call in flight"
    expect "sleep: cancelled after [0-9]+ ms \\(session ended\\)$" "its sleep handler saw 'session ended'"
    n=$(grep -c 'sleep: cancelled after' "$LOG")
    [ "$n" -eq 2 ] && pass "server log: two sleeps cancelled" || fail "server log: $n sleeps cancelled, not 2"
    ;;
v1-resume)
    # In 2025 a dropped stream is not a cancel: count ran on to its result.
    refuse 'cancel|cancelled' "no request cancelled by the closed streams"
    ;;
v2)
    id=$(info 'sleep request id')
    expect "request cancelled: id=${id:-none} method=tools/call direction=inbound reason=\"client disconnected\"" \
        "the client's closed connection cancelled its call"
    expect 'sleep: cancelled after [0-9]+ ms \(client disconnected\)$' "the sleep handler saw 'client disconnected'"
    expect 'subscription opening .*id="listen:0" method=subscriptions/listen' "the listen opened a subscription"
    # 2026-07-28 sends no reason with a disconnect: the SDK's must not appear.
    refuse 'aborted by the ts2 http client' "the abort's reason did not travel"
    ;;
esac
refuse '^mcp serve: (warning|error):' "no warnings or errors"

kill -TERM "$server"
i=0
while kill -0 "$server" 2>/dev/null && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
if kill -0 "$server" 2>/dev/null; then
    fail "mcp serve still running 5 s after SIGTERM"
else
    wait "$server"
    status=$?
    server=
    [ $status -eq 0 ] && pass "mcp serve stopped on SIGTERM with status 0" ||
        fail "mcp serve stopped on SIGTERM with status $status"
fi

if [ $failures -ne 0 ]; then
    echo "# server log:"
    sed 's/^/# /' "$LOG"
    echo "run_http_interop: $CASE: $failures failure(s)"
    exit 1
fi
echo "run_http_interop: $CASE: passed"
