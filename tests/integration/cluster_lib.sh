# SPDX-License-Identifier: MIT
# A cluster for the integration scripts (POSIX sh, sourced after lib.sh):
# a Redis, N `mcp serve --http` processes and HAProxy in front of them,
# all on free loopback ports, all in $CLUSTER (inside $WORK), all stopped
# when the script exits, however it exits. HAProxy runs
# examples/cluster/haproxy.cfg with only its ports replaced.
#
#   cluster_redis_start            redis-server; $REDIS_PORT, $REDIS_URL
#   cluster_redis_restart [SIG]    stop it (SIGTERM, or SIG: KILL), start it
#                                  again on the same port and directory
#   cluster_serve N [ARG...]       N processes: mcp serve --http 127.0.0.1:0 ARG...;
#                                  process i: $CLUSTER/serve_i.log, $(serve_pid i),
#                                  $(serve_port i); env: $CLUSTER_SERVE_ENV
#   cluster_haproxy_start          HAProxy across them; $LB_PORT, $LB_URL
#   cluster_kill I [SIG]           signal process i (default KILL) and reap it
#   cluster_stop I                 SIGTERM, then reap it (status in $CLUSTER_STATUS)
#   cluster_wait_down I [S]        until HAProxy's checks mark process i down
#   cluster_wait_up I [S]          until they mark it up again
#   cluster_track PID              one more process to end with the cluster
#   cluster_logs                   the tail of every log (said on failure)
#   free_port                      a free loopback port (python3)
#
# Needs python3, redis-server and redis-cli only for the Redis helpers,
# haproxy only for cluster_haproxy_start ($HAPROXY, else PATH, else
# /usr/sbin/haproxy). $MCP is the mcp binary; $MCP_WRAP is put before it.

CLUSTER_HERE=$(cd "$(dirname "$0")" && pwd)
CLUSTER_CFG=${CLUSTER_CFG:-$CLUSTER_HERE/../../examples/cluster/haproxy.cfg}
CLUSTER=$WORK/cluster
mkdir -p "$CLUSTER"
CLUSTER_PIDS=
CLUSTER_N=0
REDIS_PID=
HAPROXY_PID=

cluster_track() {
    CLUSTER_PIDS="$CLUSTER_PIDS $1"
}

# Every process started here: TERM, a short grace, then KILL, each reaped.
# Then the logs when the script failed, then $WORK goes.
cluster_cleanup() {
    cl_rc=$1
    trap - EXIT INT TERM HUP
    trap '' PIPE # a reader gone (| head): what is said here may be lost, not the cleanup
    [ "$cl_rc" = 0 ] || cluster_logs >&2
    for cl_p in $CLUSTER_PIDS; do
        kill -TERM "$cl_p" 2>/dev/null
    done
    cl_i=0
    while [ $cl_i -lt 40 ]; do
        cl_alive=
        for cl_p in $CLUSTER_PIDS; do
            running "$cl_p" && cl_alive=1
        done
        [ -z "$cl_alive" ] && break
        sleep 0.05
        cl_i=$((cl_i + 1))
    done
    for cl_p in $CLUSTER_PIDS; do
        kill -KILL "$cl_p" 2>/dev/null
        wait "$cl_p" 2>/dev/null
    done
    [ -n "${CLUSTER_KEEP:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
    exit "$cl_rc"
}
trap 'cluster_cleanup $?' EXIT
trap 'cluster_cleanup 130' INT
trap 'cluster_cleanup 143' TERM HUP
trap 'cluster_cleanup 141' PIPE

cluster_logs() {
    cl_i=0
    while [ $cl_i -lt $CLUSTER_N ]; do
        cl_i=$((cl_i + 1))
        running "$(serve_pid $cl_i)" && cl_s=running || cl_s=gone
        echo "--- process $cl_i: pid $(serve_pid $cl_i), port $(serve_port $cl_i), $cl_s"
    done
    [ -z "$HAPROXY_PID" ] || { running $HAPROXY_PID && echo "--- haproxy: running" || echo "--- haproxy: gone"; }
    [ -z "$REDIS_PID" ] || { running $REDIS_PID && echo "--- redis: running" || echo "--- redis: gone"; }
    for f in "$CLUSTER"/*.log; do
        [ -f "$f" ] || continue
        echo "--- $f (last 25 lines)"
        tail -n 25 "$f" | cut -c1-300
    done
}

free_port() {
    python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# --- Redis ------------------------------------------------------------------

# Its own directory, never 6379; every acknowledged write is on disk before
# the reply (appendfsync always), so a restart, even after SIGKILL, keeps it.
redis_run() {
    mkdir -p "$CLUSTER/redis"
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$CLUSTER/redis" \
        --save "" --appendonly yes --appendfsync always --daemonize no \
        --protected-mode yes --logfile "" >>"$CLUSTER/redis.log" 2>&1 &
    REDIS_PID=$!
    cluster_track $REDIS_PID
    cl_i=0
    until [ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; do
        cl_i=$((cl_i + 1))
        running $REDIS_PID && [ $cl_i -le 200 ] || { cluster_logs; fail "redis-server did not start on $REDIS_PORT"; }
        sleep 0.05
    done
}

cluster_redis_start() {
    requires redis-server redis-cli python3
    REDIS_PORT=$(free_port)
    [ "$REDIS_PORT" != 6379 ] || REDIS_PORT=$(free_port)
    REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0
    redis_run
}

cluster_redis_restart() {
    kill -"${1:-TERM}" $REDIS_PID 2>/dev/null
    wait $REDIS_PID 2>/dev/null
    redis_run
}

# --- mcp serve --------------------------------------------------------------

serve_pid() {
    eval "echo \$SERVE_PID_$1"
}
serve_port() {
    eval "echo \$SERVE_PORT_$1"
}

# cluster_serve N [ARG...]: each process's port is read from its stderr.
cluster_serve() {
    cl_n=$1
    shift
    cl_first=$((CLUSTER_N + 1))
    cl_j=0
    while [ $cl_j -lt "$cl_n" ]; do
        cl_j=$((cl_j + 1))
        CLUSTER_N=$((CLUSTER_N + 1))
        env MCP_LOG_LEVEL=debug $CLUSTER_SERVE_ENV $MCP_WRAP "$MCP" serve --http 127.0.0.1:0 "$@" \
            >"$CLUSTER/serve_$CLUSTER_N.out" 2>"$CLUSTER/serve_$CLUSTER_N.log" &
        eval "SERVE_PID_$CLUSTER_N=$!"
        cluster_track $!
    done
    cl_j=$cl_first
    while [ $cl_j -le $CLUSTER_N ]; do
        cl_log=$CLUSTER/serve_$cl_j.log
        wait_for "$cl_log" "listening on http://127.0.0.1:" 20
        eval "SERVE_PORT_$cl_j=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$cl_log" | head -n 1)"
        cl_j=$((cl_j + 1))
    done
}

cluster_kill() {
    cl_p=$(serve_pid "$1")
    kill -"${2:-KILL}" "$cl_p" 2>/dev/null
    wait "$cl_p" 2>/dev/null
}

cluster_stop() {
    cl_p=$(serve_pid "$1")
    kill -TERM "$cl_p" 2>/dev/null
    wait "$cl_p"
    CLUSTER_STATUS=$?
}

# --- HAProxy ----------------------------------------------------------------

# The example's configuration with its frontend on $LB_PORT and one server
# line (the first one's, renamed) per process started, mcp1 ... mcpN.
cluster_haproxy_cfg() {
    cl_ports=
    cl_i=0
    while [ $cl_i -lt $CLUSTER_N ]; do
        cl_i=$((cl_i + 1))
        cl_ports="$cl_ports $(serve_port $cl_i)"
    done
    awk -v lb="$LB_PORT" -v ports="$cl_ports" '
        /^[ \t]*bind / { sub(/:[0-9]+/, ":" lb) }
        /^[ \t]*server / {
            if (done) next
            done = 1
            n = split(ports, p, " ")
            for (k = 1; k <= n; k++) {
                line = $0
                sub(/server [^ ]+ [^ ]+/, "server mcp" k " 127.0.0.1:" p[k], line)
                print line
            }
            next
        }
        { print }' "$CLUSTER_CFG" >"$CLUSTER/haproxy.cfg"
}

cluster_haproxy_start() {
    HAPROXY=${HAPROXY:-$(command -v haproxy || echo /usr/sbin/haproxy)}
    [ -x "$HAPROXY" ] || missing "no haproxy"
    requires curl
    [ -r "$CLUSTER_CFG" ] || fail "no HAProxy configuration at $CLUSTER_CFG (set CLUSTER_CFG)"
    LB_PORT=$(free_port)
    LB_URL=http://127.0.0.1:$LB_PORT/mcp
    cluster_haproxy_cfg
    "$HAPROXY" -c -q -f "$CLUSTER/haproxy.cfg" >"$CLUSTER/haproxy-check.log" 2>&1 ||
        { cat "$CLUSTER/haproxy-check.log"; fail "haproxy refuses $CLUSTER/haproxy.cfg"; }
    "$HAPROXY" -db -f "$CLUSTER/haproxy.cfg" >"$CLUSTER/haproxy.log" 2>&1 &
    HAPROXY_PID=$!
    cluster_track $HAPROXY_PID
    # Ready when a request through it is answered.
    cl_i=0
    until [ "$(lb_discover)" = 200 ]; do
        cl_i=$((cl_i + 1))
        running $HAPROXY_PID && [ $cl_i -le 200 ] || fail "haproxy did not answer on $LB_PORT"
        sleep 0.05
    done
}

# lb_discover: the status of a 2026-07-28 server/discover through HAProxy.
lb_discover() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$LB_URL" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover' \
        --data '{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' 2>/dev/null
}

# HAProxy logs each state change of a server: "Server mcp_servers/mcp2 is DOWN".
cluster_wait_down() {
    wait_for "$CLUSTER/haproxy.log" "/mcp$1 is DOWN" "${2:-10}"
}
cluster_wait_up() {
    wait_for "$CLUSTER/haproxy.log" "/mcp$1 is UP" "${2:-10}"
}
