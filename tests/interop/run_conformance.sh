#!/bin/sh
# SPDX-License-Identifier: MIT
# The official conformance suite, both pinned versions (package.json), one
# scenario at a time, judged by each scenario's checks.json
# (conformance_judge.mjs: failures, warnings, rows a shallow implementation
# would skip) against conformance-expected-failures.txt:
#
#   run_conformance.sh MCP_CONFORMANCE server|client|all [SCENARIO|RUN:SCENARIO]...
#
# MCP_CONFORMANCE is the fixtures' program (tests/conformance, built as
# mcp-conformance in the build directory).
# server: the server scenarios against `mcp-conformance server --http`.
# client: the client scenarios, the suite's mock servers against
#         `mcp-conformance client` (the suite appends the mock's URL).
# Runs, each listing the scenarios its version's `list --server` (or
# `list --client`) prints:
#   0.1.16                     every scenario (the wire is always 2025-11-25)
#   0.2.0-alpha.12             every scenario at its default version
#                              (2025-11-25; draft-only ones at 2026-07-28)
#   0.2.0-alpha.12@2026-07-28  the scenarios that also apply to 2026-07-28,
#                              again with --spec-version 2026-07-28 (the
#                              stateless wire)
# Arguments narrow the run to those scenarios (in every run, or in one).
#
# Fails when a scenario fails that the expected-failures file does not list,
# and when one it lists passes or is no longer run (so the file only
# shrinks). Needs `make interop-deps` (the pinned Node and suites).
# CONFORMANCE_KEEP=1 keeps the work directory (checks.json of every run and
# the server's log); CONFORMANCE_LOG_LEVEL sets the server's MCP_LOG_LEVEL.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
USAGE="usage: run_conformance.sh MCP_CONFORMANCE server|client|all [SCENARIO|RUN:SCENARIO]..."
CONF=${1:?$USAGE}
ROLES=${2:?$USAGE}
case $ROLES in
server | client) ;;
all) ROLES="server client" ;;
*)
    echo "$USAGE" >&2
    exit 2
    ;;
esac
shift 2
NODE=$HERE/node_modules/.bin/node
JUDGE=$HERE/conformance_judge.mjs
EXPECTED=$HERE/conformance-expected-failures.txt
OLD=0.1.16
NEW=0.2.0-alpha.12
# How long one scenario may take in all. 0.1.16 has no server timeout of its
# own (a hung request waits 60 s, a raw read for ever); 0.2.0 stops a server
# scenario at --timeout. In client mode both stop the client after
# --timeout (our client gives up by itself after 25 s).
SCENARIO_SECONDS=60
NEW_TIMEOUT_MS=20000
CLIENT_TIMEOUT_MS=30000
# The whole run stops starting scenarios after this long (a hung server
# would otherwise cost a minute a scenario), well within ctest's TIMEOUT, so
# that it still reports and stops its server: a runner killed by ctest
# would leave the server behind.
RUN_SECONDS=${CONFORMANCE_RUN_SECONDS:-400}
# The client under test. The suite counts a client killed by a signal as
# exit status 0 (its "code || 0"): the shell in between turns a crash into
# 128+N. The suite runs the command with sh -c and the URL appended: $1.
CLIENT_COMMAND="sh -c '\"\$0\" client \"\$1\" || exit \$?' $CONF"

die() {
    echo "run_conformance: $*" >&2
    exit 1
}

[ -x "$NODE" ] || die "no pinned Node at $NODE: run 'make interop-deps'"
for v in $OLD $NEW; do
    got=$("$NODE" -p "require('$HERE/node_modules/conformance-$v/package.json').version" 2>/dev/null)
    [ "$got" = "$v" ] || die "conformance $v is not installed as pinned (found '$got'): run 'make interop-deps'"
done
[ -r "$EXPECTED" ] || die "cannot read $EXPECTED"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/conformance.XXXXXX") || die "cannot make a work directory"
server=
poller=
cleanup() {
    for pid in $server $poller; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    if [ -n "${CONFORMANCE_KEEP:-}" ]; then
        echo "run_conformance: kept $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# Expected failures: "<run> <role> <scenario> # issue N: why", one a line.
grep -v '^[[:space:]]*\(#.*\)\{0,1\}$' "$EXPECTED" >"$WORK/expected.raw"
while read -r run role scenario rest; do
    case "$role $rest" in
    "server # issue "[0-9]*:* | "client # issue "[0-9]*:*)
        printf '%s %s %s\t%s\n' "$run" "$role" "$scenario" "${rest#\# }"
        ;;
    *) die "conformance-expected-failures.txt: not '<run> server|client <scenario> # issue N: why': $run $role $scenario $rest" ;;
    esac
done <"$WORK/expected.raw" >"$WORK/expected"

# start NAME ARGS...: mcp-conformance server --http with ARGS; sets $pid
# and $port. Its log is made before it starts: the background job opens it
# only when it gets to run, maybe after the first look for the port.
start() {
    name=$1
    shift
    : >"$WORK/$name.log"
    MCP_LOG_LEVEL=${CONFORMANCE_LOG_LEVEL:-info} "$CONF" server --http 127.0.0.1:0 \
        "$@" >"$WORK/$name.out" 2>"$WORK/$name.log" &
    pid=$!
    port=
    i=0
    while [ $i -lt 100 ]; do
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\)/mcp.*|\1|p' "$WORK/$name.log")
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    if [ -z "$port" ]; then
        cat "$WORK/$name.log" >&2
        die "mcp-conformance server --http $* did not say where it listens"
    fi
}
case " $ROLES " in
*" server "*)
    start server
    server=$pid
    URL=http://127.0.0.1:$port/mcp
    echo "run_conformance: mcp-conformance server on $URL"
    # The polling scenario wants a stream closed after its priming event: a
    # server option (every 2025-11-25 stream is polled), so a server of its
    # own.
    start poller --poll-retry 500 --response sse
    poller=$pid
    POLL_URL=http://127.0.0.1:$port/mcp
    ;;
esac

# list ROLE RUN: the scenario names of that run, one a line.
list() {
    v=${2%@*}
    "$NODE" "$HERE/node_modules/conformance-$v/dist/index.js" list --"$1" >"$WORK/list.$1.$v" ||
        die "conformance $v: list --$1 failed"
    case $2 in
    *@2026-07-28) sed -n 's/^ *- \([^ ]*\) \[\(.*[0-9]-[0-9].*,2026-07-28.*\)\]$/\1/p' "$WORK/list.$1.$v" ;;
    *) sed -n 's/^ *- \([^ ]*\) \[.*\]$/\1/p' "$WORK/list.$1.$v" ;;
    esac
}

# wanted RUN SCENARIO: whether the arguments select it.
wanted() {
    [ -z "$FILTER" ] && return 0
    for f in $FILTER; do
        [ "$f" = "$2" ] || [ "$f" = "$1:$2" ] && return 0
    done
    return 1
}
FILTER="$*"

# play ROLE RUN SCENARIO OUT: run one scenario, its output in OUT; returns
# the suite's exit status.
play() {
    v=${2%@*}
    set -- "$1" "$2" "$3" "$4" "$HERE/node_modules/conformance-$v/dist/index.js"
    if [ "$1" = server ]; then
        url=$URL
        [ "$3" = server-sse-polling ] && url=$POLL_URL
        set -- "$@" server --url "$url" --scenario "$3" -o "$4"
        [ "$v" = $NEW ] && set -- "$@" --timeout $NEW_TIMEOUT_MS
    else
        set -- "$@" client --command "$CLIENT_COMMAND" --scenario "$3" -o "$4" \
            --timeout $CLIENT_TIMEOUT_MS
    fi
    case $2 in *@2026-07-28) set -- "$@" --spec-version 2026-07-28 ;; esac
    out=$4
    shift 4
    if command -v timeout >/dev/null; then
        timeout -s KILL $SCENARIO_SECONDS "$NODE" "$@" >"$out/run.log" 2>&1
    else
        "$NODE" "$@" >"$out/run.log" 2>&1
    fi
}

failed=0
started=$(date +%s)
: >"$WORK/ran"
: >"$WORK/table"
for role in $ROLES; do
    for run in $OLD $NEW $NEW@2026-07-28; do
        names=$(list "$role" "$run")
        [ -n "$names" ] || die "conformance ${run%@*} lists no $role scenario for $run"
        for scenario in $names; do
            wanted "$run" "$scenario" || continue
            echo "$run $role $scenario" >>"$WORK/ran"
            if [ $(($(date +%s) - started)) -gt "$RUN_SECONDS" ]; then
                printf '%-26s %-6s %-46s %s\n' "$run" "$role" "$scenario" \
                    "NOT RUN: over ${RUN_SECONDS} s in all" | tee -a "$WORK/table"
                failed=1
                continue
            fi
            out=$WORK/$run/$role/$(echo "$scenario" | tr / _)
            mkdir -p "$out"
            play "$role" "$run" "$scenario" "$out"
            status=$?
            checks=$(find "$out" -name checks.json | head -n 1)
            "$NODE" "$JUDGE" "${checks:-$out/none}" "$scenario" >"$out/verdict" 2>&1
            judged=$?
            verdict=$(head -n 1 "$out/verdict")
            # A judge that failed, or said neither PASS nor FAIL, judged
            # nothing: that is no verdict (below), never the last one's.
            [ $judged -eq 0 ] || verdict="ERROR (the judge exited with status $judged)"
            # The suite's exit code still counts (a crash, a hung run killed;
            # in client mode also the client's own exit status and a client
            # timeout).
            if [ "$verdict" = PASS ] && [ $status -ne 0 ]; then
                verdict=FAIL
                echo "  the suite exited with status $status (see run.log)" >>"$out/verdict"
            fi
            # Some checks pass on a client that does nothing (resource-mismatch:
            # "no authorization request made"); one that refused to play the
            # scenario has not passed it.
            if [ "$verdict" = PASS ] && [ "$role" = client ] &&
                find "$out" -name stderr.txt -exec cat {} + | grep -q 'does not have yet'; then
                verdict=FAIL
                echo "  the client refused the scenario (stderr.txt)" >>"$out/verdict"
            fi
            why=$(awk -F '\t' -v k="$run $role $scenario" '$1 == k { print $2; exit }' \
                "$WORK/expected")
            mark=
            case "$verdict:${why:+listed}" in
            PASS:) mark=pass ;;
            FAIL:listed) mark="expected failure ($why)" ;;
            FAIL:)
                mark=FAILING
                failed=1
                ;;
            PASS:listed)
                mark="PASSES BUT IS LISTED: remove it from conformance-expected-failures.txt"
                failed=1
                ;;
            *)
                mark="NO VERDICT: ${verdict:-the judge printed nothing}"
                failed=1
                ;;
            esac
            printf '%-26s %-6s %-46s %s\n' "$run" "$role" "$scenario" "$mark" |
                tee -a "$WORK/table"
            if [ "$mark" = FAILING ] || [ "${mark#NO VERDICT}" != "$mark" ]; then
                tail -n +2 "$out/verdict"
                [ "$role" = client ] &&
                    find "$out" -name stderr.txt -exec cat {} + | sed 's/^/  client: /' |
                    tail -n 20
            fi
            if [ "$role" = server ] && ! kill -0 "$server" 2>/dev/null; then
                tail -n 40 "$WORK/server.log" >&2
                die "the server died during $run $scenario"
            fi
        done
    done
done

# A listed scenario that no run has any more (renamed, removed) is stale.
if [ -z "$FILTER" ]; then
    cut -f 1 "$WORK/expected" | while read -r run role scenario; do
        case " $ROLES " in *" $role "*) ;; *) continue ;; esac
        grep -F -x -- "$run $role $scenario" "$WORK/ran" >/dev/null ||
            echo "stale expected failure (no such scenario in that run): $run $role $scenario"
    done >"$WORK/stale"
    cat "$WORK/stale"
    [ -s "$WORK/stale" ] && failed=1
fi

# The servers must have survived everything and stop cleanly.
for name in server poller; do
    eval "pid=\$$name"
    [ -n "$pid" ] || continue
    kill "$pid"
    wait "$pid"
    status=$?
    eval "$name="
    if [ $status -ne 0 ]; then
        tail -n 40 "$WORK/$name.log" >&2
        echo "run_conformance: mcp-conformance server ($name) exited with status $status after SIGTERM"
        failed=1
    fi
done
npass=$(grep -c ' pass$' "$WORK/table")
nx=$(grep -c 'expected failure' "$WORK/table")
nbad=$(grep -c -v -e ' pass$' -e 'expected failure' "$WORK/table")
echo "run_conformance: $npass passed, $nx expected failures, $nbad wrong"
exit $failed
