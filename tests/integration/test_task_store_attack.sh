#!/bin/sh
# SPDX-License-Identifier: MIT
# `mcp serve --http --task-store` attacked from outside: malformed URLs and
# options (exit 2, saying what is wrong), a client gone while its create
# waits for a paused Redis (curl --max-time), SIGTERM and SIGINT while
# Redis is paused (the process exits within the store's timeout and the
# grace, never hangs), and a stderr reader gone (| head -c 1). Against a
# real redis-server on a private port.
. "$(dirname "$0")/lib.sh"
MCP=$1
requires curl python3 redis-server redis-cli

# 1. Malformed URLs and options: exit 2, a message naming the problem.
bad() {
    want=$1
    shift
    $MCP_WRAP "$MCP" serve --http 127.0.0.1:0 "$@" >"$WORK/bad.out" 2>"$WORK/bad.err"
    got=$?
    [ "$got" = 2 ] || { cat "$WORK/bad.err"; fail "$*: exit $got, not 2"; }
    contains "$WORK/bad.err" "$want" "$*"
    [ "$(wc -l <"$WORK/bad.err")" -le 3 ] || { cat "$WORK/bad.err"; fail "$*: a page, not a message"; }
}
bad "not a task store" --task-store ''
bad "not a task store" --task-store 'memcached://h'
bad "not a task store" --task-store 'redis:/h'
bad "rediss:// (TLS) is not supported" --task-store 'rediss://h'
bad "an empty host" --task-store 'redis://'
bad "an empty host" --task-store 'redis://:6379'
bad "an empty host" --task-store 'redis://:pw@'
bad "the port is not a number in 1..65535" --task-store 'redis://h:0'
bad "the port is not a number in 1..65535" --task-store 'redis://h:65536'
bad "the port is not a number in 1..65535" --task-store 'redis://h:'
bad "the port is not a number in 1..65535" --task-store 'redis://h:-1'
bad "the port is not a number in 1..65535" --task-store 'redis://h:99999999999999999999'
bad "the db is not a whole number" --task-store 'redis://h/-1'
bad "the db is not a whole number" --task-store 'redis://h/2147483648'
bad "the db is not a whole number" --task-store 'redis://h/0/1'
bad "the db is not a whole number" --task-store 'redis://h/x'
bad "a query or fragment" --task-store 'redis://h?db=1'
bad "a query or fragment" --task-store 'redis://h#x'
bad "an IPv6 address without its ']'" --task-store 'redis://[::1'
bad "not an IPv6 address" --task-store 'redis://[zz]:1'
bad "something after the IPv6 address" --task-store 'redis://[::1]x'
bad "a character a host name cannot have" --task-store 'redis://h h'
bad "a character a host name cannot have" --task-store "$(printf 'redis://h\033[2J')"
bad "no ':' before the password" --task-store 'redis://user@h'
bad "a user without a password" --task-store 'redis://user:@h'
bad "the password: a '%' not followed by two hex digits" --task-store 'redis://:%zz@h'
bad "the password: a NUL (%00)" --task-store 'redis://:a%00b@h'
bad "the host is too long" --task-store "redis://$(printf '%0300d' 0)"
bad "the password: too long" --task-store "redis://:$(printf '%0300d' 0)@h"
bad "takes milliseconds" --task-store redis://h --task-store-timeout 0
bad "takes milliseconds" --task-store redis://h --task-store-timeout -5
bad "takes milliseconds" --task-store redis://h --task-store-timeout 99999999
bad "takes milliseconds" --task-store redis://h --task-lease 1e3
bad "takes milliseconds" --task-store redis://h --task-lease ''
bad "need --task-store" --task-lease 1000
# The terminal escape was not echoed raw.
"$MCP" serve --http 127.0.0.1:0 --task-store "$(printf 'redis://h\033[2J')" 2>"$WORK/esc.err"
if grep -q "$(printf '\033')" "$WORK/esc.err"; then fail "an escape echoed raw"; fi
echo "ok: malformed task store URLs and options: exit 2, the problem named"

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
RPORT=$(free_port)
mkdir -p "$WORK/redis"
redis-server --port "$RPORT" --bind 127.0.0.1 --dir "$WORK/redis" --save '' --appendonly no \
    --daemonize no >>"$WORK/redis.log" 2>&1 &
redis=$!
pids=""
cleanup() {
    kill -CONT "$redis" 2>/dev/null
    for p in $pids $redis; do kill -9 "$p" 2>/dev/null; done
}
trap 'cleanup; rm -rf "$WORK"' EXIT
i=0
until redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG; do
    i=$((i + 1))
    [ $i -le 200 ] || { cat "$WORK/redis.log"; fail "redis-server did not start"; }
    sleep 0.05
done
STORE="redis://127.0.0.1:$RPORT"

# serve NAME [more options]: a process sharing the store; $url, $pid.
serve() {
    name=$1
    shift
    MCP_LOG_LEVEL=debug $MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --token secret \
        --task-store "$STORE" --task-store-timeout 500 "$@" >"$WORK/$name.out" 2>"$WORK/$name.log" &
    pid=$!
    pids="$pids $pid"
    wait_for "$WORK/$name.log" "listening on http://127.0.0.1:" 20
    wait_for "$WORK/$name.log" "task store: Redis at 127.0.0.1:$RPORT connected" 20
    port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/$name.log" | head -n 1)
    url="http://127.0.0.1:$port/mcp"
}

# post_task URL MAX_TIME: a task-augmented tools/call (sleep 30 s) by curl,
# given up after MAX_TIME seconds; its body in $WORK/post.body.
post_task() {
    curl -s -o "$WORK/post.body" --max-time "$2" -X POST "$1" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'Authorization: Bearer secret' -H 'MCP-Protocol-Version: 2026-07-28' \
        -H 'Mcp-Method: tools/call' -H 'Mcp-Name: sleep' \
        --data '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30},"task":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}'
}

# 2. A client gone while its create waits for a paused Redis: the server
# goes on, the task is not left working in Redis, and the store serves the
# next client once Redis is back.
serve a
a_url=$url
a_pid=$pid
kill -STOP "$redis"
post_task "$a_url" 0.2
kill -CONT "$redis"
sleep 1
running "$a_pid" || { cat "$WORK/a.log"; fail "a died after its client went"; }
for k in $(redis-cli -p "$RPORT" --scan --pattern 'mcp:task:*'); do
    s=$(redis-cli -p "$RPORT" hget "$k" s)
    [ "$s" != working ] || fail "$k left working after its client went"
done
post_task "$a_url" 10 || fail "a task after Redis came back"
contains "$WORK/post.body" '"resultType":"task"' "a task after Redis came back"
echo "ok: a client gone while its create waited for Redis: nothing left working"

# 3. SIGTERM, then SIGINT, to a process whose Redis is paused with a task
# running (its failure waits for Redis): it exits within the timeout and
# the grace, without hanging (given 10 s).
for sig in TERM INT; do
    serve s
    s_pid=$pid
    post_task "$url" 10 || fail "a task on s"
    kill -STOP "$redis"
    start=$(date +%s%N)
    kill -"$sig" "$s_pid"
    i=0
    while running "$s_pid"; do
        i=$((i + 1))
        [ $i -le 200 ] || { kill -CONT "$redis"; cat "$WORK/s.log"; fail "SIG$sig with Redis paused: still running after 10 s"; }
        sleep 0.05
    done
    wait "$s_pid"
    took=$((($(date +%s%N) - start) / 1000000))
    kill -CONT "$redis"
    echo "ok: SIG$sig with Redis paused: exited in $took ms"
done

# 4. A stderr reader gone (| head -c 1): the server goes on serving (its
# log lines have nowhere to go), and a SIGTERM still ends it.
mkfifo "$WORK/err.fifo"
head -c 1 <"$WORK/err.fifo" >/dev/null &
MCP_LOG_LEVEL=debug "$MCP" serve --http 127.0.0.1:0 --token secret --task-store "$STORE" \
    >/dev/null 2>"$WORK/err.fifo" &
hpid=$!
pids="$pids $hpid"
sleep 1
running "$hpid" || fail "a server whose stderr reader went died (SIGPIPE?)"
kill -TERM "$hpid"
i=0
while running "$hpid"; do
    i=$((i + 1))
    [ $i -le 200 ] || fail "a server whose stderr reader went did not stop"
    sleep 0.05
done
wait "$hpid"
echo "exit status with stderr gone: $?"
echo "ok: a server whose stderr reader went away stops on SIGTERM"
kill -TERM "$a_pid"
wait "$a_pid"
echo "all task store attacks held"
