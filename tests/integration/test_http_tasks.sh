#!/bin/sh
# SPDX-License-Identifier: MIT
# Tasks over Streamable HTTP (attack round H): mcp serve --http with two
# tokens against curl and python clients, and mcp call/tasks against it.
# 2026-07-28: Mcp-Name, credentials, subscriptions/listen with taskIds (what
# a listen hears, and only its credential's), a stop with many tasks and
# listens open. 2025-11-25: a task's question on the tasks/result stream and
# on the GET stream, a session reached with another token, a dropped
# tasks/result stream. The client: Ctrl-C cancels the task, --detach.
# Every check runs; the failures are listed at the end.
. "$(dirname "$0")/lib.sh"
MCP=$1
requires curl python3

failures=""
# check DESCRIPTION -- command...: a failure is recorded, not fatal.
check() {
    what=$1
    shift 2
    if "$@" >"$WORK/check.out" 2>&1; then
        echo "ok: $what"
    else
        echo "FAILED: $what"
        { head -n 3 "$WORK/check.out"; echo "    ..."; tail -n 12 "$WORK/check.out"; } | cut -c1-400 | sed "s/^/    /"
        failures="$failures
  $what"
    fi
}

MCP_LOG_LEVEL=debug $MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --token secret --token other \
    >"$WORK/out" 2>"$WORK/srv" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
wait_for "$WORK/srv" "listening on http://127.0.0.1:" 10
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/srv" | head -n 1)
URL="http://127.0.0.1:$port/mcp"

# The python side: 2026 requests with their headers, 2025 sessions, streams.
cat >"$WORK/h.py" <<'PY'
import http.client, json, re, socket, sys, threading, time
PORT = int(sys.argv[1])
CAPS = {"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {"form": {}}}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": CAPS}
ids = [100]

def post(body, headers, timeout=10):
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=timeout)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update({k: v for k, v in headers.items() if v is not None})
    c.request("POST", "/mcp", json.dumps(body), h)
    r = c.getresponse()
    return r.status, r.read().decode()

def m26(method, params, token="secret", name="auto", scheme="Bearer"):
    """A 2026-07-28 request: Mcp-Name the tool's name or the task's id."""
    ids[0] += 1
    p = dict(params, _meta=META)
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if name == "auto":
        name = p.get("name") if method == "tools/call" else p.get("taskId")
    if name is not None:
        h["Mcp-Name"] = name
    if token:
        h["Authorization"] = "%s %s" % (scheme, token)
    return post({"jsonrpc": "2.0", "id": ids[0], "method": method, "params": p}, h)

def last(data):
    for line in reversed(data.splitlines()):
        line = line.strip()
        if line.startswith("data:"):
            line = line[5:].strip()
        if line.startswith("{"):
            return json.loads(line)
    raise ValueError(data)

def task(tool, args, token="secret"):
    s, d = m26("tools/call", {"name": tool, "arguments": args}, token=token)
    r = last(d).get("result", {})
    if r.get("resultType") != "task":
        sys.exit("%s did not run as a task: %s %s" % (tool, s, d))
    return r["taskId"]

class Stream:
    """A request whose answer is read as it comes (an event stream)."""
    def __init__(self, head, body=""):
        self.s = socket.create_connection(("127.0.0.1", PORT), timeout=30)
        self.s.sendall((head + "Content-Length: %d\r\n\r\n%s" % (len(body), body)).encode())
        self.data, self.closed = b"", False
        threading.Thread(target=self.run, daemon=True).start()
    def run(self):
        try:
            while True:
                c = self.s.recv(65536)
                if not c:
                    break
                self.data += c
        except OSError:
            pass
        self.closed = True
    def text(self):
        return self.data.decode(errors="replace")
    def wait_for(self, what, t=5):
        end = time.time() + t
        while time.time() < end and what not in self.text() and not self.closed:
            time.sleep(0.05)
        return what in self.text()
    def close(self):
        try:
            self.s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.s.close()

def listen(task_ids, token="secret", lid="L"):
    body = json.dumps({"jsonrpc": "2.0", "id": lid, "method": "subscriptions/listen",
                       "params": {"notifications": {"taskIds": task_ids}, "_meta": META}})
    return Stream("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  "Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n"
                  "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n"
                  % token, body)

V = "2025-11-25"
def req25(method, body, sid=None, token="secret"):
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        h["Authorization"] = "Bearer " + token
    if sid:
        h["Mcp-Session-Id"], h["MCP-Protocol-Version"] = sid, V
    c.request(method, "/mcp", json.dumps(body) if body is not None else None, h)
    r = c.getresponse()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()

def session(token="secret"):
    s, h, d = req25("POST", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": V, "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "py", "version": "1"}}}, token=token)
    sid = h["mcp-session-id"]
    req25("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid, token)
    return sid

def call25(sid, tool, args, token="secret"):
    s, h, d = req25("POST", {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                             "params": {"name": tool, "arguments": args, "task": {}}}, sid, token)
    return re.search(r'"taskId":"([0-9a-f]+)"', d).group(1)

def stream25(method, body, sid, token="secret"):
    return Stream("%s /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  "Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n"
                  "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\n" % (method, token, sid, V),
                  json.dumps(body) if body is not None else "")
PY

# py NAME: the python program on stdin, with h.py's helpers.
py() {
    { echo "import sys; sys.path.insert(0, '$WORK'); from h import *"; cat; } >"$WORK/$1.py"
    python3 "$WORK/$1.py" "$port"
}

# 2026: Mcp-Name is the task's id for tasks/get, update and cancel; a
# task is its credential's (another token, or the same in another case of
# its scheme, finds it unknown: -32602).
credentials() {
    py credentials <<'PY'
t = task("sleep", {"seconds": 30})
def expect(what, got, status, text):
    if got[0] != status or text not in got[1]:
        sys.exit("%s: %s %s (expected %s, %s)" % (what, got[0], got[1], status, text))
for m in ("tasks/get", "tasks/update", "tasks/cancel"):
    p = {"taskId": t, "inputResponses": {}} if m == "tasks/update" else {"taskId": t}
    expect(m + " without Mcp-Name", m26(m, p, name=None), 400, "-32020")
    expect(m + " with another Mcp-Name", m26(m, p, name="x" + t[1:]), 400, "-32020")
    expect(m + " with another token", m26(m, p, token="other"), 400, '"code":-32602')
    expect(m + " without a token", m26(m, p, token=None), 401, "-32600")
expect("tasks/get, scheme in lower case", m26("tasks/get", {"taskId": t}, scheme="bearer"), 200, '"status":"working"')
expect("an unknown task", m26("tasks/get", {"taskId": "0" * 32}), 400, '"code":-32602')
expect("tasks/cancel", m26("tasks/cancel", {"taskId": t}), 200, '"resultType":"complete"')
expect("cancelled", m26("tasks/get", {"taskId": t}), 200, '"status":"cancelled"')
expect("tasks/result under 2026", m26("tasks/result", {"taskId": t}), 404, "-32601")
ids = ["%032x" % i for i in range(300)]
expect("a listen with 300 task ids", m26("subscriptions/listen", {"notifications": {"taskIds": ids}}, name=None), 400, "-32602")
PY
}
check "2026: Mcp-Name, credentials, unknown tasks, 300 ids" -- credentials

# tasks/update racing the task's end (its answer, a cancel, another answer).
update_race() {
    py update_race <<'PY'
ans = {"confirm": {"action": "accept", "content": {"ok": True}}}
for n in range(20):
    t = task("confirm", {})
    out = []
    calls = [lambda: out.append(m26("tasks/update", {"taskId": t, "inputResponses": ans})),
             lambda: out.append(m26("tasks/cancel", {"taskId": t})),
             lambda: out.append(m26("tasks/update", {"taskId": t, "inputResponses": ans})),
             lambda: out.append(m26("tasks/get", {"taskId": t}))]
    ths = [threading.Thread(target=f) for f in calls]
    [x.start() for x in ths]
    [x.join() for x in ths]
    for s, d in out:
        if s != 200:
            sys.exit("round %d: %s %s" % (n, s, d))
    time.sleep(0.05)
    st = last(m26("tasks/get", {"taskId": t})[1])["result"]["status"]
    if st not in ("completed", "cancelled"):
        sys.exit("round %d: the task ended %s" % (n, st))
    s, d = m26("tasks/update", {"taskId": t, "inputResponses": ans})
    if s != 200:
        sys.exit("an update after the end: %s %s" % (s, d))
PY
}
check "2026: tasks/update racing the task's end" -- update_race

# A listen naming tasks hears their changes (cancelled, working again once
# answered, completed), and nothing of another credential's task it names;
# the other credential's listen hears only its own.
listens() {
    py listens <<'PY'
quick, long, asks, job = task("sleep", {"seconds": 1}), task("sleep", {"seconds": 30}), task("confirm", {}), task("job", {})
theirs = task("sleep", {"seconds": 1}, token="other")
mine = listen([quick, long, asks, job, theirs], "secret", "mine")
other = listen([quick, long, asks, theirs], "other", "other")
if not mine.wait_for("notifications/subscriptions/acknowledged") or not other.wait_for("acknowledged"):
    sys.exit("no acknowledgment: %s" % mine.text())
ack = mine.text()
if '"taskIds":["%s"' % quick not in ack:
    sys.exit("the acknowledgment does not list the task ids asked for: %s" % ack)
m26("tasks/cancel", {"taskId": long})
m26("tasks/update", {"taskId": asks, "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}}})
time.sleep(2)
mt, ot = mine.text(), other.text()
mine.close(); other.close()
for t, status in ((long, "cancelled"), (asks, "completed"), (quick, "completed")):
    if '"method":"notifications/tasks","params":{"taskId":"%s","status":"%s"' % (t, status) not in mt:
        sys.exit("the listen did not hear %s %s: %s" % (t, status, mt))
if '"taskId":"%s"' % theirs in mt:
    sys.exit("the listen heard another credential's task: %s" % mt)
if '"taskId":"%s","status":"completed"' % theirs not in ot:
    sys.exit("the other credential did not hear its own task: %s" % ot)
for t in (quick, long, asks):
    if ('"taskId":"%s","status"' % t) in ot:
        sys.exit("the other credential heard %s: %s" % (t, ot))
if '"io.modelcontextprotocol/subscriptionId":"mine"' not in mt:
    sys.exit("notifications name their subscription")
PY
}
check "2026: a listen hears its tasks' changes, only its credential's" -- listens

# 2025: the question of a task whose client polls tasks/get reaches the
# session's GET stream; on the tasks/result stream it names its task.
questions25() {
    py questions25 <<'PY'
sid = session()
get = stream25("GET", None, sid)
time.sleep(0.2)
t = call25(sid, "confirm", {})
time.sleep(0.2)
s, h, d = req25("POST", {"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": t}}, sid)
if '"status":"input_required"' not in d:
    sys.exit("tasks/get: %s" % d)
if not get.wait_for("elicitation/create", 5):
    sys.exit("the question did not reach the GET stream: %s" % get.text())
if '"io.modelcontextprotocol/related-task":{"taskId":"%s"}' % t not in get.text():
    sys.exit("the question does not name its task")
qid = int(re.search(r'"id":(\d+),"method":"elicitation/create"', get.text()).group(1))
req25("POST", {"jsonrpc": "2.0", "id": qid, "result": {"action": "accept", "content": {"ok": True}}}, sid)
time.sleep(0.5)
s, h, d = req25("POST", {"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"taskId": t}}, sid)
if '"status":"completed"' not in d:
    sys.exit("answered on the GET stream, the task did not complete: %s" % d)
get.close()
# DELETE while the task waits on its question: the waiting tasks/result ends.
sid = session()
t = call25(sid, "confirm", {})
r = stream25("POST", {"jsonrpc": "2.0", "id": 5, "method": "tasks/result", "params": {"taskId": t}}, sid)
if not r.wait_for("elicitation/create", 5):
    sys.exit("no question on the tasks/result stream")
s, h, d = req25("DELETE", None, sid)
if s != 200 or not r.wait_for("\r\n0\r\n\r\n", 5):
    sys.exit("DELETE: %s; the tasks/result stream: %r" % (s, r.text()[-200:]))
PY
}
check "2025: a task's question on the GET stream after tasks/get; DELETE mid-question" -- questions25

# 2025: a session belongs to the token it was initialized with: another
# token (a stolen Mcp-Session-Id) must not list, read or cancel its tasks
# (tasks.mdx: tasks MUST be bound to the authorization context).
session_binding() {
    py session_binding <<'PY'
sid = session("secret")
t = call25(sid, "sleep", {"seconds": 20})
s, h, d = req25("POST", {"jsonrpc": "2.0", "id": 3, "method": "tasks/list"}, sid, "other")
if t in d:
    sys.exit("another token listed the session's tasks: %s %s" % (s, d))
s, h, d = req25("POST", {"jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": {"taskId": t}}, sid, "other")
if '"status":"cancelled"' in d:
    sys.exit("another token cancelled the session's task: %s" % d)
s, h, d = req25("POST", {"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"taskId": t}}, sid, "secret")
if '"status":"working"' not in d:
    sys.exit("the owner lost its task: %s" % d)
req25("POST", {"jsonrpc": "2.0", "id": 6, "method": "tasks/cancel", "params": {"taskId": t}}, sid, "secret")
PY
}
check "2025: a session's tasks are not reached with another token" -- session_binding

# 2025: a client that drops its tasks/result stream while the question is
# on it (clients MAY disconnect at any time, tasks.mdx) resumes it (a GET
# with Last-Event-ID: the 2025 transports' way back to what a stream
# carried) and gets the question, then, answered, the task's result.
dropped_question() {
    py dropped_question <<'PY'
sid = session()
t = call25(sid, "confirm", {})
r = stream25("POST", {"jsonrpc": "2.0", "id": 5, "method": "tasks/result", "params": {"taskId": t}}, sid)
if not r.wait_for("elicitation/create", 5):
    sys.exit("no question on the tasks/result stream")
ev = re.findall(r"^id: *(\S+)", r.text(), re.M)
if not ev:
    sys.exit("the stream's events have no ids: %s" % r.text()[:300])
r.close()
time.sleep(0.3)
g = Stream("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
           "Authorization: Bearer secret\r\nMcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\n"
           "Last-Event-ID: %s\r\n" % (sid, V, ev[0]))
q = re.search(r'"id":(\d+),"method":"elicitation/create"', r.text())
req25("POST", {"jsonrpc": "2.0", "id": int(q.group(1)),
               "result": {"action": "accept", "content": {"ok": True}}}, sid)
if not g.wait_for('"id":5,"result"', 5):
    sys.exit("the resumed stream never carried the task's result: %s" % g.text()[-300:])
if '"text":"confirmed"' not in g.text():
    sys.exit("the result is not the answered one: %s" % g.text()[-300:])
PY
}
check "2025: a dropped tasks/result stream is resumed with its question and result" -- dropped_question

# The client: Ctrl-C on a task sends tasks/cancel (its handler stops:
# "sleep: cancelled after"), exit 130, at 0.2 s and 2 s, both eras.
# (A background job of a script ignores SIGINT until mcp catches it, so the
# signal is sent once the task is known, or after 0.2 s.)
ctrl_c() {
    for proto in 2025-11-25 2026-07-28; do
        for at in 0.2 2; do
            before=$(grep -c 'sleep: cancelled after' "$WORK/srv")
            "$MCP" call --protocol $proto --task sleep '{"seconds":30}' --url "$URL" \
                --header 'Authorization: Bearer secret' >"$WORK/cc.out" 2>"$WORK/cc.err" &
            c=$!
            wait_for "$WORK/cc.err" ': working' 10
            sleep "$at"
            kill -INT $c
            wait $c
            rc=$?
            [ $rc = 130 ] || { cat "$WORK/cc.err"; echo "$proto at $at: exit $rc"; return 1; }
            wait_count "$WORK/srv" 'sleep: cancelled after' $((before + 1)) 5
            grep -q ': cancelled' "$WORK/cc.err" || { cat "$WORK/cc.err"; return 1; }
        done
    done
}
check "mcp call --task: Ctrl-C cancels the task (exit 130), both eras" -- ctrl_c

# 2026: --detach, then another process with the same token reads the task;
# another token is told there is no such task (exit 3); update and cancel.
detach26() {
    "$MCP" call --protocol 2026-07-28 --detach sleep '{"seconds":30}' --url "$URL" \
        --header 'Authorization: Bearer secret' >"$WORK/d.out" 2>"$WORK/d.err" || return 1
    id=$(head -n 1 "$WORK/d.out")
    "$MCP" tasks get "$id" --url "$URL" --header 'Authorization: Bearer secret' >"$WORK/g.out" 2>&1 &&
        grep -q working "$WORK/g.out" || { cat "$WORK/g.out"; return 1; }
    "$MCP" tasks get "$id" --url "$URL" --header 'Authorization: Bearer other' >"$WORK/g2.out" 2>&1
    [ $? = 3 ] && grep -q 'no task' "$WORK/g2.out" || { cat "$WORK/g2.out"; return 1; }
    "$MCP" tasks update "$id" '{"x":{}}' --url "$URL" --header 'Authorization: Bearer secret' \
        >"$WORK/u.out" 2>&1 && grep -q acknowledged "$WORK/u.out" || { cat "$WORK/u.out"; return 1; }
    "$MCP" tasks cancel "$id" --url "$URL" --header 'Authorization: Bearer secret' >/dev/null 2>&1
}
check "2026: --detach, then tasks get/update/cancel from another process" -- detach26

# 2025: a task is its session's, and the session ends with the command:
# --detach is refused (exit 2, saying why) rather than print the id of a
# task about to end.
detach25() {
    "$MCP" call --protocol 2025-11-25 --detach sleep '{"seconds":30}' --url "$URL" \
        --header 'Authorization: Bearer secret' >"$WORK/d.out" 2>"$WORK/d.err"
    [ $? = 2 ] && grep -q "its session" "$WORK/d.err" && [ ! -s "$WORK/d.out" ] ||
        { cat "$WORK/d.out" "$WORK/d.err"; return 1; }
}
check "2025: --detach is refused (a task is its session's)" -- detach25

# Many tasks over many requests, listens open, then SIGTERM: the server
# ends at once (< 1 s), cleanly, without warnings of runs left behind.
stop_many() {
    py stop_many <<'PY'
mine, theirs = [], []
tools = [("sleep", {"seconds": 30}), ("job", {}), ("confirm", {}), ("count", {"n": 1000, "delay_ms": 50})]
for i in range(120):
    tool, args = tools[i % 4]
    (mine if i % 2 == 0 else theirs).append(task(tool, args, "secret" if i % 2 == 0 else "other"))
streams = [listen(mine, "secret", "a"), listen(theirs, "other", "b")]
for s in streams:
    if not s.wait_for("acknowledged"):
        sys.exit("no acknowledgment")
open(sys.argv[0] + ".ready", "w").close()
for s in streams:
    s.s.settimeout(5)
end = time.time() + 5
while time.time() < end and not all(s.closed for s in streams):
    time.sleep(0.05)
for s in streams:
    if not s.closed:
        sys.exit("a listen still open after the stop")
    if '"result":{"resultType":"complete"' not in s.text():
        sys.exit("a listen ended without its result: %r" % s.text()[-200:])
PY
}
py_stop() {
    # A fresh server: the tasks above count toward the 64 a client may hold.
    kill -TERM $server
    wait $server
    MCP_LOG_LEVEL=debug $MCP_WRAP "$MCP" serve --http 127.0.0.1:0 --token secret --token other \
        >"$WORK/out" 2>"$WORK/srv" &
    server=$!
    wait_for "$WORK/srv" "listening on http://127.0.0.1:" 10
    port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/srv" | head -n 1)
    stop_many >"$WORK/stop.out" 2>&1 &
    lp=$!
    i=0
    while [ ! -e "$WORK/stop_many.py.ready" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
    [ -e "$WORK/stop_many.py.ready" ] || { cat "$WORK/stop.out"; return 1; }
    start=$(date +%s%N)
    kill -TERM $server
    wait $server
    rc=$?
    took=$((($(date +%s%N) - start) / 1000000))
    wait $lp || { cat "$WORK/stop.out"; return 1; }
    echo "exit $rc after $took ms"
    # Prompt: below the 2 s shutdown grace, which a run held by its
    # connection waited whole (tens of ms here; over 1 s once under TSan
    # with another test beside it). The log says it too: "still running".
    [ $rc = 0 ] && [ $took -lt 2000 ] || { tail -n 20 "$WORK/srv"; return 1; }
    ! grep -qi 'still running\|leak\|runtime error' "$WORK/srv" || { grep -i 'still running\|leak\|runtime error' "$WORK/srv" | head; return 1; }
}
check "2026: SIGTERM with 120 tasks and listens open: prompt, clean" -- py_stop
trap - EXIT

if [ -n "$failures" ]; then
    fail "defects:$failures"
fi
echo "ok: tasks over Streamable HTTP"
