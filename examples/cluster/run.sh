#!/bin/sh
# SPDX-License-Identifier: MIT
# Three `mcp serve --http` processes sharing their tasks through Redis and
# one requestState key, behind HAProxy (haproxy.cfg beside this script):
#
#   examples/cluster/run.sh          Ctrl-C stops everything
#
# Ports (all on 127.0.0.1): HAProxy $PORT (8080), the processes PORT+1 to
# PORT+3, Redis $REDIS_PORT (6390, not the default 6379, so a Redis of
# your own is left alone). $MCP is the mcp command (default: build/mcp of
# this tree, else mcp on PATH); $HAPROXY, $REDIS_SERVER likewise.
# Everything lives in a temporary directory (logs included), removed at
# the end; KEEP=1 keeps it.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=${PORT:-8080}
REDIS_PORT=${REDIS_PORT:-6390}
if [ -z "${MCP:-}" ]; then
    MCP=$(cd "$HERE/../.." && pwd)/build/mcp
    [ -x "$MCP" ] || MCP=mcp
fi
HAPROXY=${HAPROXY:-$(command -v haproxy || echo /usr/sbin/haproxy)}
REDIS_SERVER=${REDIS_SERVER:-redis-server}

die() {
    echo "run.sh: $*" >&2
    exit 1
}
command -v "$MCP" >/dev/null 2>&1 || die "no mcp command ($MCP): build it with make, or set MCP"
[ -x "$HAPROXY" ] || die "no haproxy (apt-get install haproxy, or set HAPROXY)"
command -v "$REDIS_SERVER" >/dev/null 2>&1 || die "no redis-server (apt-get install redis-server)"
"$MCP" serve --help 2>&1 | grep -q -- --task-store ||
    die "$MCP has no --task-store (the shared task store): use a newer mcp"

DIR=$(mktemp -d "${TMPDIR:-/tmp}/mcp-cluster.XXXXXX") || exit 1
PIDS=
stop() {
    trap - EXIT INT TERM
    echo
    echo "stopping..." >&2
    for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    if [ -n "${KEEP:-}" ]; then echo "logs kept in $DIR" >&2; else rm -rf "$DIR"; fi
    exit "$1"
}
trap 'stop $?' EXIT
trap 'stop 0' INT TERM

# Redis: every acknowledged write on disk before the reply (appendfsync
# always), nothing else saved; its files in $DIR/redis.
mkdir "$DIR/redis"
"$REDIS_SERVER" --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$DIR/redis" --save "" \
    --appendonly yes --appendfsync always >"$DIR/redis.log" 2>&1 &
REDIS_PID=$!
PIDS="$PIDS $REDIS_PID"
# Ready when the Redis answering on the port is this one: another one
# already there (ours then exits, "Address already in use") is not used.
i=0
until redis-cli -p "$REDIS_PORT" info server 2>/dev/null | tr -d '\r' | grep -qx "process_id:$REDIS_PID"; do
    i=$((i + 1))
    if ! kill -0 $REDIS_PID 2>/dev/null || [ $i -ge 100 ]; then
        tail -n 5 "$DIR/redis.log" >&2
        die "redis-server did not start on $REDIS_PORT (in use? set REDIS_PORT)"
    fi
    sleep 0.1
done

# One key for every process: an input_required round's requestState made
# by one is taken by the others.
head -c 32 /dev/urandom >"$DIR/state.key"
chmod 600 "$DIR/state.key"

STORE=redis://127.0.0.1:$REDIS_PORT/0
for n in 1 2 3; do
    MCP_LOG_LEVEL=info "$MCP" serve --http "127.0.0.1:$((PORT + n))" --task-store "$STORE" \
        --state-key-file "$DIR/state.key" >/dev/null 2>"$DIR/mcp$n.log" &
    eval "MCP_PID_$n=$!"
    PIDS="$PIDS $!"
done
# Each listening, and its link to Redis up.
for n in 1 2 3; do
    i=0
    until grep -q "task store: Redis at 127.0.0.1:$REDIS_PORT connected" "$DIR/mcp$n.log" 2>/dev/null &&
        grep -q "listening on" "$DIR/mcp$n.log"; do
        i=$((i + 1))
        if ! eval "kill -0 \$MCP_PID_$n" 2>/dev/null || [ $i -ge 100 ]; then
            cat "$DIR/mcp$n.log" >&2
            die "mcp serve $n did not start on $((PORT + n)) (in use? set PORT)"
        fi
        sleep 0.1
    done
done

# haproxy.cfg as it stands, its ports moved when PORT is not 8080.
awk -v p="$PORT" '
    /^[ \t]*bind / { sub(/:8080/, ":" p) }
    /^[ \t]*server mcp[0-9]/ { n = substr($2, 4); sub(/:808[0-9]/, ":" (p + n)) }
    { print }' "$HERE/haproxy.cfg" >"$DIR/haproxy.cfg"
"$HAPROXY" -db -f "$DIR/haproxy.cfg" 2>"$DIR/haproxy.log" &
HAPROXY_PID=$!
PIDS="$PIDS $HAPROXY_PID"
sleep 0.5
kill -0 $HAPROXY_PID 2>/dev/null || { cat "$DIR/haproxy.log" >&2; die "haproxy did not start"; }

URL=http://127.0.0.1:$PORT/mcp
cat <<EOF
The cluster: HAProxy on $URL, mcp serve on ports $((PORT + 1))-$((PORT + 3)),
Redis on $REDIS_PORT. Logs in $DIR (mcp1.log ... ; haproxy.log: one line per
request, naming the process that answered and, in braces, the request's
Mcp-Method and Mcp-Name). Try, in another terminal:

  # a call (two requests: server/discover, then tools/call); run it a few
  # times: in haproxy.log each request goes to the next of mcp1, mcp2, mcp3
  $MCP call --protocol 2026-07-28 echo '{"text":"hello"}' --url $URL
  sed 's/.*mcp_servers.\(mcp[0-9]\).*\({.*}\).*/\1 \2/' $DIR/haproxy.log

  # a 2025 session: every request of it goes to one process
  $MCP call --protocol 2025-11-25 count '{"n":5,"delay_ms":200}' --url $URL

  # a task started on one process, read and cancelled through the others
  id=\$($MCP call --protocol 2026-07-28 --detach sleep '{"seconds":60}' --url $URL)
  $MCP tasks get "\$id" --url $URL
  $MCP tasks get "\$id" --url http://127.0.0.1:$((PORT + 2))/mcp
  $MCP tasks cancel "\$id" --url $URL
  grep -e 'through the task store' -e 'sleep: cancelled' $DIR/mcp*.log

  # Ctrl-C on a call: the process running it stops it at once
  $MCP call --protocol 2026-07-28 sleep '{"seconds":60}' --url $URL

Ctrl-C here stops everything.
EOF
wait $HAPROXY_PID
echo "run.sh: haproxy ended (see $DIR/haproxy.log)" >&2
