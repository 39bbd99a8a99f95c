#!/bin/sh
# SPDX-License-Identifier: MIT
# A cluster's figures, each against its reference in the same run: three
# `mcp serve --http --task-store redis://` behind HAProxy (the example's
# configuration, examples/cluster/haproxy.cfg, ports replaced) and one
# `mcp serve --http` alone with the memory store, on one machine.
#
#   bench_cluster.sh BENCH_CLUSTER BENCH_SERVER [SECONDS]
# (the servers are bench_server, started as cluster_lib.sh starts mcp serve)
#
# Prints
#   cluster tasks/cancel to handler token (other process): p50=<us> p99=<us>
#     bench_cluster cancel: 1000 tasks made on one process, each cancelled
#     through another; three runs, the one with the median p99
#   cluster task create+get+result/s through haproxy, 3 processes: <n>; one process with the memory store: <n> (ratio <x>); one process with Redis, direct: <n> (memory/redis <x>) [Redis appendfsync always|everysec]
#     bench_cluster rate, 8 clients: task_echo made a task, then tasks/get
#     until completed (the result inline); the last figure is the Redis
#     path's own cost, without the balancer's
#   cluster 2026 tools/call/s through haproxy, 3 processes: <n>; 1 process direct: <n> (ratio <x>)
#     wrk -t1 -c16, task_echo as a plain call, every answer checked

BENCH=$1
SERVER=$2
SECS=${3:-4}
HERE=$(cd "$(dirname "$0")" && pwd)
CLUSTER_CFG=$HERE/../examples/cluster/haproxy.cfg
. "$HERE/../tests/integration/lib.sh"
# shellcheck source=../tests/integration/cluster_lib.sh
. "$HERE/../tests/integration/cluster_lib.sh"
command -v wrk >/dev/null || { echo "bench_cluster: wrk is needed (Debian package wrk)" >&2; exit 1; }
CLUSTER_SERVE_ENV="MCP_LOG_LEVEL=info"

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

cluster_redis_start

# 1. A cancel through another process: three runs, the median p99's.
best="" p99s=""
for run in 1 2 3; do
    out=$("$BENCH" cancel "$SERVER" "$REDIS_URL" 1000)
    p99s="$p99s $(echo "$out" | sed -n 's/.*p99=\([0-9]*\).*/\1/p')"
    eval "run_$run=\"\$out\""
done
# shellcheck disable=SC2086
mid=$(median $p99s)
for run in 1 2 3; do
    eval "out=\$run_$run"
    case "$out" in *"p99=$mid"*) best=$out ;; esac
done
echo "cluster tasks/cancel to handler token (other process): $best"

# 2. Task rates: three processes sharing Redis behind HAProxy, one alone
# (bench_server: mcp serve's way of starting, no cap on tasks held).
MCP=$SERVER # what cluster_serve starts
cluster_serve 3 --task-store "$REDIS_URL"
for i in 1 2 3; do
    wait_for "$CLUSTER/serve_$i.log" "task store: Redis at 127.0.0.1:$REDIS_PORT connected" 10
done
cluster_haproxy_start
cluster_serve 1
alone="http://127.0.0.1:$(serve_port 4)/mcp"
"$BENCH" rate "$LB_URL" 1 8 >/dev/null # warm
r_alone=$("$BENCH" rate "$alone" "$SECS" 8)
# Redis as the tests run it, each write on disk before its reply
# (appendfsync always: a task given out survives even Redis's SIGKILL),
# then as Redis's own configuration suggests (everysec: the last second
# lost if Redis itself dies, nothing if it is stopped or restarted).
for fsync in always everysec; do
    redis-cli -p "$REDIS_PORT" config set appendfsync $fsync >/dev/null
    r_cluster=$("$BENCH" rate "$LB_URL" "$SECS" 8)
    r_redis=$("$BENCH" rate "http://127.0.0.1:$(serve_port 1)/mcp" "$SECS" 8)
    echo "cluster task create+get+result/s through haproxy, 3 processes: $r_cluster;" \
        "one process with the memory store: $r_alone (ratio $(ratio "$r_alone" "$r_cluster"));" \
        "one process with Redis, direct: $r_redis (memory/redis $(ratio "$r_alone" "$r_redis"))" \
        "[Redis appendfsync $fsync]"
done

# 3. Plain 2026 calls: through HAProxy to three processes, and to one directly.
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL26='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"task_echo","arguments":{},'$META'}}'
HEAD26='Content-Type: application/json
Accept: application/json, text/event-stream
MCP-Protocol-Version: 2026-07-28
Mcp-Method: tools/call
Mcp-Name: task_echo'
rate() {
    BODY=$CALL26 HEADERS=$HEAD26 EXPECT='"text":"x"' wrk -t1 -c16 -d"${SECS}s" \
        -s "$HERE/http_post.lua" "$1" >"$WORK/wrk.out" 2>&1 || { cat "$WORK/wrk.out" >&2; exit 1; }
    bad=$(sed -n 's/^bad \([0-9]*\)$/\1/p' "$WORK/wrk.out")
    errors=$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$WORK/wrk.out")
    if [ "${bad:-1}" != 0 ] || [ -n "$errors" ]; then
        cat "$WORK/wrk.out" >&2
        echo "bench_cluster: wrong answers from $1" >&2
        exit 1
    fi
    sed -n 's/^Requests\/sec: *\([0-9]*\).*/\1/p' "$WORK/wrk.out"
}
c_lb=$(rate "$LB_URL")
c_one=$(rate "$alone")
echo "cluster 2026 tools/call/s through haproxy, 3 processes: $c_lb; 1 process direct: $c_one" \
    "(ratio $(ratio "$c_one" "$c_lb"))"
