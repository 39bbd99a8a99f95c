#!/bin/sh
# SPDX-License-Identifier: MIT
# The Redis task store (--task-store redis://): three `mcp serve --http`
# processes share one real redis-server (its own port and directory, AOF on)
# and each request below goes to a process other than the one before, as a
# load balancer would send it. A 2026-07-28 task made on one is read,
# answered and cancelled on the others; the cancel stops the handler where
# it runs; a killed process's running tasks fail once its lease runs out; a
# Redis restart loses no task that was given out; Redis gone: task requests
# fail fast with the reason, plain calls go on.
. "$(dirname "$0")/lib.sh"
MCP=$1
requires curl python3 redis-server

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

RPORT=$(free_port)
mkdir -p "$WORK/redis"
redis_start() {
    redis-server --port "$RPORT" --bind 127.0.0.1 --dir "$WORK/redis" --save '' \
        --appendonly yes --appendfsync always --daemonize no >>"$WORK/redis.log" 2>&1 &
    redis=$!
    i=0
    until redis-cli -p "$RPORT" ping 2>/dev/null | grep -q PONG; do
        i=$((i + 1))
        [ $i -le 200 ] || { cat "$WORK/redis.log"; fail "redis-server did not start"; }
        sleep 0.05
    done
}
if ! command -v redis-cli >/dev/null 2>&1; then missing "no redis-cli"; fi

pids=""
cleanup() {
    for p in $pids $redis; do kill -9 "$p" 2>/dev/null; done
}
trap cleanup EXIT
redis_start
STORE="redis://127.0.0.1:$RPORT/3"

# serve NAME: a process on its own port, sharing the store; $NAME_url, $NAME_pid.
serve() {
    MCP_LOG_LEVEL=debug $MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --token secret --token other \
        --task-store "$STORE" --task-lease 1000 --task-store-timeout 500 --page-size 3 \
        >"$WORK/$1.out" 2>"$WORK/$1.log" &
    eval "$1_pid=$!"
    pids="$pids $!"
    wait_for "$WORK/$1.log" "listening on http://127.0.0.1:" 20
    wait_for "$WORK/$1.log" "task store: Redis at 127.0.0.1:$RPORT connected" 20
    port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/$1.log" | head -n 1)
    eval "$1_url=http://127.0.0.1:$port/mcp"
}
serve a
serve b
serve c

AUTH='Authorization: Bearer secret'
# tasks_json URL ARGS... and detach URL TOOL ARGS: mcp tasks and mcp call --detach
# under 2026-07-28, with the token.
tasks_json() {
    url=$1
    shift
    "$MCP" tasks --json --protocol 2026-07-28 "$@" --url "$url" --header "$AUTH"
}
detach() {
    url=$1
    shift
    "$MCP" call --protocol 2026-07-28 --detach "$@" --url "$url" --header "$AUTH"
}
# status FILE: the status in a tasks get --json output.
status() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$1"
}

# 0. Pagination across processes: a page read on a, the next one on b with
# a's cursor, the last on c: every tool once, in order.
python3 - "$a_url" "$b_url" "$c_url" >"$WORK/pages" 2>&1 <<'PY' || { cat "$WORK/pages"; fail "pages across processes"; }
import json, sys, urllib.request
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
names, cursor, urls, i = [], None, sys.argv[1:], 0
while True:
    params = {"_meta": META}
    if cursor:
        params["cursor"] = cursor
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params})
    req = urllib.request.Request(urls[i % 3], body.encode(), {
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list",
        "Authorization": "Bearer secret"})
    r = json.loads(urllib.request.urlopen(req).read())["result"]
    assert len(r["tools"]) <= 3, r
    names += [t["name"] for t in r["tools"]]
    cursor, i = r.get("nextCursor"), i + 1
    if not cursor:
        break
assert len(names) == len(set(names)) and len(names) >= 9 and i >= 3, (i, names)
print(i, "pages:", " ".join(names))
PY
echo "ok: $(cat "$WORK/pages") (read on a, b, c in turn)"

# 1. Made on a, read on b and c; another token finds nothing.
detach "$a_url" sleep '{"seconds":30}' >"$WORK/id1" 2>"$WORK/d1.err" ||
    { cat "$WORK/d1.err"; fail "a task made through a"; }
id1=$(head -n 1 "$WORK/id1")
[ ${#id1} = 32 ] || fail "a task id: '$id1'"
tasks_json "$b_url" get "$id1" >"$WORK/g1" 2>&1 || { cat "$WORK/g1"; fail "tasks get on b"; }
[ "$(status "$WORK/g1")" = working ] || { cat "$WORK/g1"; fail "working, read on b"; }
tasks_json "$c_url" get "$id1" >"$WORK/g1c" 2>&1 || { cat "$WORK/g1c"; fail "tasks get on c"; }
"$MCP" tasks get "$id1" --protocol 2026-07-28 --url "$b_url" --header 'Authorization: Bearer other' \
    >"$WORK/g1o" 2>&1
[ $? = 3 ] && grep -q 'no task' "$WORK/g1o" || { cat "$WORK/g1o"; fail "another token on b"; }
echo "ok: a task made on a is read on b and c, not with another token"

# 2. Cancelled on c: its handler, on a, stops (the token fires).
tasks_json "$c_url" cancel "$id1" >"$WORK/c1" 2>&1 || { cat "$WORK/c1"; fail "tasks cancel on c"; }
wait_for "$WORK/a.log" "task $id1 cancelled (tasks/cancel, through the task store): its call stops" 5
tasks_json "$b_url" get "$id1" >"$WORK/g1b" 2>&1
[ "$(status "$WORK/g1b")" = cancelled ] || { cat "$WORK/g1b"; fail "cancelled, read on b"; }
lacks "$WORK/b.log" "task $id1 cancelled" "only a ran the task"
echo "ok: cancelled through c, the handler on a stopped"

# 3. A task that completes on b: its result read on a.
detach "$b_url" sleep '{"seconds":0.25}' >"$WORK/id2" 2>&1 || { cat "$WORK/id2"; fail "a short task on b"; }
id2=$(head -n 1 "$WORK/id2")
i=0
until tasks_json "$a_url" get "$id2" >"$WORK/g2" 2>&1 && [ "$(status "$WORK/g2")" = completed ]; do
    i=$((i + 1))
    [ $i -le 100 ] || { cat "$WORK/g2"; fail "completed, read on a"; }
    sleep 0.05
done
contains "$WORK/g2" "slept 0.25 seconds" "the result, read on a"
echo "ok: a task completed on b, its result read on a"

# 4. A question asked on c's task, answered through a.
detach "$c_url" confirm '{"question":"go?"}' >"$WORK/id3" 2>&1 || { cat "$WORK/id3"; fail "confirm as a task"; }
id3=$(head -n 1 "$WORK/id3")
i=0
until tasks_json "$b_url" get "$id3" >"$WORK/g3" 2>&1 && [ "$(status "$WORK/g3")" = input_required ]; do
    i=$((i + 1))
    [ $i -le 100 ] || { cat "$WORK/g3"; fail "input_required, read on b"; }
    sleep 0.05
done
key=$(python3 -c 'import json,sys; print(list(json.load(open(sys.argv[1]))["inputRequests"])[0])' "$WORK/g3")
tasks_json "$a_url" update "$id3" "{\"$key\":{\"action\":\"accept\",\"content\":{\"ok\":true}}}" \
    >"$WORK/u3" 2>&1 || { cat "$WORK/u3"; fail "tasks update on a"; }
i=0
until tasks_json "$b_url" get "$id3" >"$WORK/g3" 2>&1 && [ "$(status "$WORK/g3")" = completed ]; do
    i=$((i + 1))
    [ $i -le 100 ] || { cat "$WORK/g3"; fail "completed after the answer, read on b"; }
    sleep 0.05
done
echo "ok: a question of c's task answered through a"

# 5. Redis restarted while a task runs: it is still there, and a cancel
# after the restart still reaches its handler.
detach "$b_url" sleep '{"seconds":30}' >"$WORK/id4" 2>&1 || { cat "$WORK/id4"; fail "a task on b"; }
id4=$(head -n 1 "$WORK/id4")
redis-cli -p "$RPORT" shutdown nosave >/dev/null 2>&1
wait $redis 2>/dev/null
redis_start
wait_count "$WORK/b.log" "task store: Redis at 127.0.0.1:$RPORT connected" 3 10
i=0
until tasks_json "$c_url" get "$id4" >"$WORK/g4" 2>&1; do
    i=$((i + 1))
    [ $i -le 100 ] || { cat "$WORK/g4"; fail "the task after Redis restarted"; }
    sleep 0.05
done
[ "$(status "$WORK/g4")" = working ] || { cat "$WORK/g4"; fail "working after the restart"; }
tasks_json "$a_url" cancel "$id4" >/dev/null 2>&1 || fail "cancel after the restart"
wait_for "$WORK/b.log" "task $id4 cancelled (tasks/cancel, through the task store)" 5
echo "ok: Redis restarted: the task kept, its cancel reached b"

# 6. Redis gone: a task request fails within the timeout, saying why; a
# plain call goes on.
redis-cli -p "$RPORT" shutdown nosave >/dev/null 2>&1
wait $redis 2>/dev/null
start=$(date +%s%N)
"$MCP" call --protocol 2026-07-28 --detach sleep '{"seconds":1}' --url "$a_url" --header "$AUTH" \
    >"$WORK/d5" 2>&1 && { cat "$WORK/d5"; fail "a task made with Redis gone"; }
took=$((($(date +%s%N) - start) / 1000000))
contains "$WORK/d5" "the task store could not keep the task: Redis is not connected" "the reason, with Redis gone"
[ $took -lt 5000 ] || fail "the error took $took ms"
"$MCP" call --protocol 2026-07-28 echo '{"text":"still"}' --url "$a_url" --header "$AUTH" \
    >"$WORK/e5" 2>&1 && contains "$WORK/e5" still "a plain call with Redis gone"
echo "ok: Redis gone: a task refused in $took ms with the reason; a plain call served"
redis_start
wait_count "$WORK/a.log" "task store: Redis at 127.0.0.1:$RPORT connected" 5 10

# 6b. Listens across processes: a list change on a reaches a watch held on
# b; a task running on c, changed, reaches a listen naming it held on b.
"$MCP" watch --protocol 2026-07-28 --url "$b_url" --header "$AUTH" >"$WORK/w.out" 2>"$WORK/w.err" &
watch=$!
pids="$pids $watch"
wait_for "$WORK/w.err" "listening for: tools" 10
kill -USR1 "$a_pid" # mcp serve adds a tool on a
wait_for "$WORK/w.out" "tools/list_changed" 10
kill -INT "$watch"
wait "$watch"
echo "ok: a tool added on a: a watch on b heard tools/list_changed"

# 7. a killed with a task running: it fails once a's lease has run out.
detach "$a_url" sleep '{"seconds":60}' >"$WORK/id6" 2>&1 || { cat "$WORK/id6"; fail "a task on a"; }
id6=$(head -n 1 "$WORK/id6")
kill -9 "$a_pid"
start=$(date +%s%N)
i=0
until tasks_json "$b_url" get "$id6" >"$WORK/g6" 2>&1 && [ "$(status "$WORK/g6")" = failed ]; do
    i=$((i + 1))
    [ $i -le 200 ] || { cat "$WORK/g6"; fail "failed after a was killed"; }
    sleep 0.05
done
took=$((($(date +%s%N) - start) / 1000000))
contains "$WORK/g6" "the server process running this task stopped" "why it failed"
echo "ok: a killed: its task failed in $took ms (lease 1000 ms)"

# 8. c stopped (SIGTERM) with a task running: failed at once, not after a lease.
detach "$c_url" sleep '{"seconds":60}' >"$WORK/id7" 2>&1 || { cat "$WORK/id7"; fail "a task on c"; }
id7=$(head -n 1 "$WORK/id7")
kill -TERM "$c_pid"
wait "$c_pid"
tasks_json "$b_url" get "$id7" >"$WORK/g7" 2>&1
[ "$(status "$WORK/g7")" = failed ] || { cat "$WORK/g7"; fail "failed as c stopped"; }
echo "ok: c stopped: its task failed as it stopped"
