#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per stdio tools/call under callgrind, in each process and
# each revision: the steady figure behind the noisy round-trip rates of
# bench_stdio (a shared machine). N echo calls, 64 in flight; a run of no
# calls (start, connect, close) is taken off, so that only the calls count.
#
#   stdio_instructions.sh MCP BENCH_STDIO [N]
#
# Prints
#   stdio server instructions/call: 2025=<n> 2026=<n> of_2025=<pct>
#   stdio client instructions/call: 2025=<n> 2026=<n> of_2025=<pct>
# (of_2025: how fast a 2026-07-28 call is against a 2025-11-25 one, the
# 2025 count over the 2026 count; what the round-trip rate would show if
# instructions were all a call cost.)
set -eu
MCP=$1
BENCH=$2
N=${3:-20000}
command -v valgrind >/dev/null || { echo "stdio_instructions: valgrind is needed" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# instructions COMMAND...: what callgrind counts in the process it starts.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>"$WORK/cg" >"$WORK/out" ||
        { cat "$WORK/cg" >&2; echo "stdio_instructions: $* failed" >&2; exit 1; }
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$WORK/cg"
}

# requests ERA COUNT: the server's input, as a client writes it.
requests() {
    awk -v era="$1" -v n="$2" 'BEGIN {
        meta = ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
               "\"io.modelcontextprotocol/clientCapabilities\":{}}"
        if (era == "2025") {
            print "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":" \
                  "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
                  "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}"
            print "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
            meta = ""
        }
        for (i = 1; i <= n; i++)
            printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":" \
                   "{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}%s}}\n", i, meta
    }'
}

# server ERA: instructions per call of `mcp serve` reading the calls.
server() {
    requests "$1" "$N" >"$WORK/in.$1"
    requests "$1" 0 >"$WORK/in0.$1"
    all=$(instructions "$MCP" serve <"$WORK/in.$1")
    answers=$(grep -c '"result":{"content":\[{"type":"text","text":"x"}\]' "$WORK/out" || :)
    [ "$answers" -eq "$N" ] ||
        { echo "stdio_instructions: $answers answers of $N under $1" >&2; exit 1; }
    none=$(instructions "$MCP" serve <"$WORK/in0.$1")
    echo $(((all - none) / N))
}

# client ERA: instructions per call of the libmcp client against mcp serve.
client() {
    all=$(instructions "$BENCH" --calls "$1" "$N" "$MCP" serve)
    none=$(instructions "$BENCH" --calls "$1" 0 "$MCP" serve)
    echo $(((all - none) / N))
}

s25=$(server 2025)
s26=$(server 2026)
echo "stdio server instructions/call: 2025=$s25 2026=$s26 of_2025=$((100 * s25 / s26))%"
c25=$(client 2025)
c26=$(client 2026)
echo "stdio client instructions/call: 2025=$c25 2026=$c26 of_2025=$((100 * c25 / c26))%"
