#!/bin/sh
# SPDX-License-Identifier: MIT
# Three `mcp serve --http` processes (memory task store) behind HAProxy
# running examples/cluster/haproxy.cfg (cluster_lib.sh), what works without
# a shared store:
#   a. round robin: 2026-07-28 tools/call requests land on every process
#   b. 2025-06-18 and 2025-11-25 sessions stay on their process
#      (Mcp-Session-Id stick table), interleaved with stateless requests
#   c. a 2026 client that goes away mid-call cancels the call on the process
#      that ran it, within 2 s (option abortonclose)
#   d. the TypeScript SDK clients (v2 at 2026-07-28, v1 at 2025-11-25)
#   e. an event stream (mcp watch) through the balancer hears a list change
#   f. the memory task store: a task made through the balancer is known to
#      its process only (what --task-store redis:// is to change)
#   g. kill -9 of a process: requests keep succeeding, its session is told
#      404 by another process, the health check takes it out
#   h. the harness's Redis keeps an acknowledged write across kill -9
#   usage: test_cluster_balancer.sh MCP [NODE INTEROP_DIR]
. "$(dirname "$0")/lib.sh"
MCP=$1
NODE=${2:-}
INTEROP=${3:-}
. "$(dirname "$0")/cluster_lib.sh"
requires curl python3 redis-server redis-cli
if [ -n "$NODE" ] && [ ! -x "$NODE" ]; then
    missing "no pinned node at $NODE (make interop-deps)"
fi

cluster_serve 3
cluster_haproxy_start
echo "ok: 3 processes on $(serve_port 1) $(serve_port 2) $(serve_port 3), HAProxy on $LB_PORT"

# The python side: 2026-07-28 requests and 2025 sessions, to the balancer or
# to one process (its port).
cat >"$WORK/c.py" <<'PY'
import http.client, json, sys
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}

def post(port, body, headers, timeout=10):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers)
    c.request("POST", "/mcp", json.dumps(body), h)
    r = c.getresponse()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()

def answer(data):
    for line in reversed(data.splitlines()):
        line = line[5:].strip() if line.startswith("data:") else line.strip()
        if line.startswith("{"):
            return json.loads(line)
    raise ValueError(data)

def m26(port, method, params, rid=1):
    p = dict(params, _meta=META)
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if method == "tools/call":
        h["Mcp-Name"] = p["name"]
    s, _, d = post(port, {"jsonrpc": "2.0", "id": rid, "method": method, "params": p}, h)
    return s, d

def call26(port, tool, args):
    s, d = m26(port, "tools/call", {"name": tool, "arguments": args})
    if s != 200:
        sys.exit("2026 %s: HTTP %s %s" % (tool, s, d))
    return answer(d)["result"]

def tools(port):
    """A process's own tool list; none when it is gone."""
    try:
        s, d = m26(port, "tools/list", {})
    except OSError:
        return []
    return [t["name"] for t in answer(d)["result"]["tools"]]

class Session:
    def __init__(self, port, version):
        self.port, self.v, self.n = port, version, 1
        s, h, d = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "py", "version": "1"}}}, {})
        if s != 200 or "mcp-session-id" not in h:
            sys.exit("initialize %s: HTTP %s %s" % (version, s, d))
        self.sid = h["mcp-session-id"]
        s, _, d = post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.h())
        if s != 202:
            sys.exit("notifications/initialized: HTTP %s %s" % (s, d))
    def h(self):
        return {"Mcp-Session-Id": self.sid, "MCP-Protocol-Version": self.v}
    def raw(self, tool, args):
        self.n += 1
        return post(self.port, {"jsonrpc": "2.0", "id": self.n, "method": "tools/call",
                                "params": {"name": tool, "arguments": args}}, self.h())
    def call(self, tool, args):
        s, _, d = self.raw(tool, args)
        if s != 200:
            sys.exit("%s session %s…, call %d: HTTP %s %s" % (self.v, self.sid[:8], self.n, s, d))
        return answer(d)["result"]
    def close(self):
        post(self.port, None, self.h())

def text(result):
    return result["content"][0]["text"]
PY
# py NAME ARG...: the python program on stdin, with c.py's helpers; LB is
# the balancer's port, PORTS the processes' (PORTS[0] is process 1).
py() {
    name=$1
    shift
    { echo "import sys; sys.path.insert(0, '$WORK'); from c import *"
      echo "LB = $LB_PORT"
      echo "PORTS = [$(serve_port 1), $(serve_port 2), $(serve_port 3)]"
      cat; } >"$WORK/$name.py"
    python3 "$WORK/$name.py" "$@"
}
# holders TOOL: the processes (1 2 3) whose own tool list has TOOL.
holders() {
    py holders "$1" <<'PY'
print(" ".join(str(i + 1) for i, p in enumerate(PORTS) if sys.argv[1] in tools(p)))
PY
}

# a. Round robin, shown by each process's state: add_tool of one name is
# accepted once per process ("an existing name" after), so three in a row
# all accepted landed on three processes; each process's own list has it.
# Then by their logs: three calls cut by the client, each logged cancelled
# (with its request id) by a different process.
py round_robin <<'PY' || fail "round robin"
for name in ("rr_a", "rr_b"):
    got = [text(call26(LB, "add_tool", {"name": name})) for _ in range(3)]
    if not all(g.startswith("added") for g in got):
        sys.exit("3 add_tool %s through the balancer: %s" % (name, got))
print("ok: 2 x 3 add_tool calls through the balancer, each on a process without the tool")
PY
for t in rr_a rr_b; do
    [ "$(holders $t)" = "1 2 3" ] || fail "round robin: $t is on processes '$(holders $t)'"
done
echo "ok: a. round robin: every process holds rr_a and rr_b"

BODY='{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
# cut_call ID SECONDS: a 2026 sleep through the balancer, the client gone after SECONDS.
cut_call() {
    curl -s -o /dev/null --max-time "$2" "$LB_URL" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
        -H 'Mcp-Method: tools/call' -H 'Mcp-Name: sleep' --data "$(echo "$BODY" | sed "s/\"ID\"/\"$1\"/")"
}
# who ID: the process whose log has the cancel of request ID.
who() {
    for i in 1 2 3; do
        grep -q "request cancelled: id=\"$1\" method=tools/call direction=inbound reason=\"client disconnected\"" \
            "$CLUSTER/serve_$i.log" && echo $i
    done
}
for k in 1 2 3; do
    cut_call "cut-$k" 1
done
for k in 1 2 3; do
    i=0
    while [ -z "$(who cut-$k)" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
done
ran="$(who cut-1) $(who cut-2) $(who cut-3)"
[ "$(echo $ran | tr ' ' '\n' | sort -u | tr '\n' ' ')" = "1 2 3 " ] ||
    fail "a. the three cut calls were cancelled by processes '$ran', not one each (none: the disconnect did not reach them; option abortonclose?)"
echo "ok: a. three cut calls cancelled by processes $ran (their logs)"

# b. 2025 sessions, both revisions, interleaved with stateless requests:
# each session's 10 calls are answered (a process without the session says
# 404), and its two add_tool of one name meet (one process).
py sessions <<'PY' || fail "2025 sessions through the balancer"
ss = [Session(LB, "2025-06-18"), Session(LB, "2025-11-25")]
for n in range(10):
    for s in ss:
        t = "%s-%d" % (s.v, n)
        if text(s.call("echo", {"text": t})) != t:
            sys.exit("%s: echo %d" % (s.v, n))
        if text(call26(LB, "echo", {"text": t})) != t:
            sys.exit("2026 echo between the session's calls")
for s in ss:
    a, b = s.call("add_tool", {"name": "s_" + s.v.replace("-", "_")}), s.call("add_tool", {"name": "s_" + s.v.replace("-", "_")})
    if a.get("isError") or not b.get("isError") or "existing name" not in text(b):
        sys.exit("%s: add_tool twice in one session: %s / %s" % (s.v, text(a), text(b)))
    s.close()
print("ok: two sessions, 10 echo calls each and 20 stateless calls between")
PY
for v in 2025_06_18 2025_11_25; do
    h=$(holders s_$v)
    [ "$(echo $h | wc -w)" = 1 ] || fail "the $v session's tool is on processes '$h'"
done
echo "ok: b. each 2025 session stayed on one process ($(holders s_2025_06_18), $(holders s_2025_11_25))"
expect_exit 0 "b. mcp call --protocol 2025-11-25 through the balancer" -- \
    "$MCP" call --protocol 2025-11-25 --timeout 10 echo '{"text":"mcp call 2025"}' --url "$LB_URL"
contains "$WORK/out" "mcp call 2025" "mcp call 2025-11-25"
lacks "$WORK/err" "ended the session" "mcp call 2025-11-25 (its session held)"

# c. A client gone mid-call: the process running it logs the call
# cancelled ("client disconnected") within 2 s. mcp call killed (-9: no
# cancel of its own, only its connection closing), then curl's --max-time.
# ms: now in milliseconds.
ms() { echo $(($(date +%s%N) / 1000000)); }
# cancels: the lines of every process's log saying a sleep was cancelled.
cancels() { cat "$CLUSTER"/serve_*.log | grep -c "sleep: cancelled after .* (client disconnected)"; }
for round in 1 2 3; do
    before=$(cancels)
    "$MCP" call --trace --protocol 2026-07-28 sleep '{"seconds":30}' --url "$LB_URL" \
        >/dev/null 2>"$WORK/killed.err" &
    c=$!
    cluster_track $c
    # Sent (its trace line), then given time to cross HAProxy.
    wait_for "$WORK/killed.err" '"method":"tools/call"' 10
    sleep 0.5
    kill -KILL $c
    t0=$(ms)
    i=0
    while [ "$(cancels)" -le "$before" ] && [ $i -lt 200 ]; do sleep 0.01; i=$((i + 1)); done
    took=$(($(ms) - t0))
    wait $c 2>/dev/null
    [ "$(cancels)" -gt "$before" ] && [ $took -lt 2000 ] ||
        fail "c. round $round: no process logged the killed client's sleep cancelled within 2 s ($took ms)"
    echo "ok: c. mcp call killed mid-call: cancelled on the backend $took ms later (poll of 10 ms)"
done
before=$(cancels)
cut_call curl-cut 1
i=0
while [ -z "$(who curl-cut)" ] && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done
p=$(who curl-cut)
[ -n "$p" ] || fail "c. curl --max-time 1: no process logged the call cancelled within 2 s"
ran=$(sed -n 's/.*sleep: cancelled after \([0-9]*\) ms (client disconnected).*/\1/p' "$CLUSTER/serve_$p.log" | tail -n 1)
[ "$ran" -ge 900 ] && [ "$ran" -lt 3000 ] || fail "c. curl's call ran $ran ms on process $p, not about 1000"
echo "ok: c. curl --max-time 1: process $p cancelled the sleep after $ran ms"

# d. The TypeScript SDK clients through the balancer.
if [ -n "$NODE" ]; then
    before=$(cancels)
    "$NODE" "$INTEROP/ts_cluster_client.mjs" "$LB_URL" 3 >"$WORK/ts.out" 2>&1
    rc=$?
    cat "$WORK/ts.out"
    [ $rc = 0 ] || fail "d. the TypeScript SDK clients through the balancer"
        i=0
    while [ "$(cancels)" -le "$before" ] && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done
    [ "$(cancels)" -gt "$before" ] || fail "d. the v2 client's aborted sleep was not cancelled on a backend"
    [ "$(holders ts2_probe)" = "1 2 3" ] || fail "d. v2's add_tool calls reached '$(holders ts2_probe)'"
    [ "$(holders ts1_probe | wc -w)" = 1 ] || fail "d. v1's session reached '$(holders ts1_probe)'"
    echo "ok: d. TypeScript SDK v2 (2026-07-28) and v1 (2025-11-25) through the balancer"
else
    missing "no NODE given (the TypeScript SDK check needs the pinned node: make interop-deps)"
fi

# e. An event stream through the balancer: a 2026 listen hears a tool
# added on its process (SIGUSR1 to every process: one holds the stream).
"$MCP" watch --protocol 2026-07-28 --url "$LB_URL" >"$WORK/watch.out" 2>"$WORK/watch.err" &
w=$!
cluster_track $w
wait_for "$WORK/watch.err" "listening for: tools" 10
for i in 1 2 3; do kill -USR1 "$(serve_pid $i)"; done
wait_for "$WORK/watch.out" "tools/list_changed" 10
kill -TERM $w
wait $w 2>/dev/null
echo "ok: e. mcp watch through the balancer heard tools/list_changed"

# f. The memory task store (the default): a 2026 task started through the
# balancer is its process's; the two others do not know it (exit 3, "no
# task"). The shared store (--task-store redis://) changes that:
# test_cluster_tasks.sh.
id=$("$MCP" call --protocol 2026-07-28 --detach sleep '{"seconds":30}' --url "$LB_URL") ||
    fail "f. mcp call --detach through the balancer"
knows=
for i in 1 2 3; do
    if "$MCP" tasks get "$id" --url "http://127.0.0.1:$(serve_port $i)/mcp" >"$WORK/get_$i" 2>&1; then
        knows="$knows $i"
    else
        contains "$WORK/get_$i" "no task" "f. tasks get on process $i"
    fi
done
knows=$(echo $knows)
[ "$(echo $knows | wc -w)" = 1 ] || fail "f. task $id is known to processes '$knows'"
"$MCP" tasks cancel "$id" --url "http://127.0.0.1:$(serve_port $knows)/mcp" >/dev/null 2>&1 ||
    fail "f. tasks cancel on its process"
wait_for "$CLUSTER/serve_$knows.log" "task $id cancelled (tasks/cancel)" 5
echo "ok: f. memory store: the task is process $knows's only"

# g. kill -9 of the process holding a 2025 session: requests right after
# succeed (a refused connection is redispatched), the session's next
# request is answered 404 by another process (its client starts anew), and
# the health check marks the process down.
py open_session <<'PY' >"$WORK/sid" || fail "g. a session to kill"
s = Session(LB, "2025-11-25")
s.call("add_tool", {"name": "doomed"})
print(s.sid)
PY
victim=$(holders doomed)
[ "$(echo $victim | wc -w)" = 1 ] || fail "g. the session's process: '$victim'"
cluster_kill "$victim" KILL
t0=$(ms)
py after_kill "$(cat "$WORK/sid")" <<'PY' || fail "g. requests after kill -9 of one process"
for n in range(9):
    t = "after-kill-%d" % n
    if text(call26(LB, "echo", {"text": t})) != t:
        sys.exit("echo %d after the kill" % n)
s = Session.__new__(Session)
s.port, s.v, s.n, s.sid = LB, "2025-11-25", 5, sys.argv[1]
st, _, d = s.raw("echo", {"text": "still there?"})
if st != 404:
    sys.exit("the dead process's session: HTTP %s %s (expected 404 from another process)" % (st, d))
print("ok: 9 stateless calls right after the kill; the dead process's session: 404")
PY
cluster_wait_down "$victim" 15
echo "ok: g. HAProxy marked process $victim down $(($(ms) - t0)) ms after the kill"
py after_down <<'PY' || fail "g. requests once the process is down"
got = [text(call26(LB, "add_tool", {"name": "survivor"})) for _ in range(2)]
if not all(g.startswith("added") for g in got):
    sys.exit("2 add_tool through the balancer: %s" % got)
PY
live=$(for i in 1 2 3; do [ "$i" = "$victim" ] || printf '%s ' $i; done)
[ "$(holders survivor) " = "$live" ] || fail "g. the two add_tool calls reached '$(holders survivor)', not $live"
expect_exit 0 "g. mcp call --protocol 2025-11-25 after the kill" -- \
    "$MCP" call --protocol 2025-11-25 --timeout 10 echo '{"text":"after"}' --url "$LB_URL"
echo "ok: g. the two processes left share the work"

# h. The harness's Redis (for the shared task store's tests): a write it
# acknowledged survives kill -9 and a restart on the same port and directory.
cluster_redis_start
[ "$REDIS_PORT" != 6379 ] || fail "h. redis on 6379"
[ "$(redis-cli -p "$REDIS_PORT" set cluster:probe kept)" = OK ] || fail "h. redis SET"
cluster_redis_restart KILL
[ "$(redis-cli -p "$REDIS_PORT" get cluster:probe)" = kept ] || fail "h. the write did not survive kill -9"
echo "ok: h. redis on $REDIS_PORT kept an acknowledged write across kill -9 and a restart"
echo "ok: cluster balancer"
