#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stdio MCP server (2025-11-25) that gets cancellation wrong in one way,
for test_check_cancel.sh: each MODE is one verdict mcp check-cancel must
reach. Its one tool, "work" {steps, delay_ms}, reports progress.

  correct          what a server should do (every check passes)
  ignores-cancel   goes on after a cancel: progress, then the response
  answers-cancel   answers notifications/cancelled with an error
  loose-ids        takes a cancel's "7" for request 7
  backwards        progress that goes down, and progress with no token
  dies-on-cancel   exits at the first cancel
  sends-cancel     speaks 2026-07-28 (server/discover) and sends
                   notifications/cancelled for every call (MUST NOT: only
                   to end a listen)

The listen- modes speak 2026-07-28 and offer subscriptions/listen, whose
open listens get notifications/tools/list_changed every 200 ms:

  listen-correct        acknowledged first, ended by the client's cancel
  listen-ignores-cancel goes on sending after the cancel
  listen-no-ack         a notification before the acknowledgment
  listen-cancels-others right after the acknowledgment, sends
                        notifications/cancelled naming a request that is not
                        the listen

The ext- modes speak 2026-07-28 with the tasks extension: a tools/call of
a client that declares it gets a task.

  ext-cancel-error      tasks/cancel of the task is answered with an error
  ext-unknown-ok        tasks/cancel of an unknown task is acknowledged

correct and the task- modes also offer tasks (tools/call with params.task,
tasks/get, tasks/cancel; the tool's taskSupport optional):

  task-completes   a cancelled task still becomes completed when its work ends
  task-cancel-late tasks/cancel answers with the task still working (it is
                   cancelled just after the answer)
  task-recancel    tasks/cancel of a terminal task, or of an unknown one,
                   succeeds
  task-long-id     correct, with task ids of 1000 characters (the checker
                   must quote them whole)
"""
import json
import sys
import threading
import time

MODE = sys.argv[1]
lock = threading.Lock()
running = {}  # key: json id text -> cancelled Event


def send(msg):
    with lock:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()


def work(rid, params, stop):
    args = params.get("arguments") or {}
    steps, delay = int(args.get("steps", 10)), int(args.get("delay_ms", 50)) / 1000
    token = (params.get("_meta") or {}).get("progressToken")
    for i in range(steps):
        if stop.is_set() and MODE != "ignores-cancel":
            return
        if token is not None:
            value = steps - i if MODE == "backwards" else i + 1
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": value, "total": steps}})
        elif MODE == "backwards":
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": "made-up", "progress": i + 1}})
        time.sleep(delay)
        if MODE == "ignores-cancel" and stop.is_set() and i > 3:
            break
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "done"}]}})


TOOL = {"name": "work", "description": "Works in steps, reporting progress.",
        "inputSchema": {"type": "object", "properties": {
            "steps": {"type": "integer"}, "delay_ms": {"type": "integer"}}}}
TASKS = MODE == "correct" or MODE.startswith("task-")
if TASKS:
    TOOL["execution"] = {"taskSupport": "optional"}
tasks = {}  # taskId -> the task (a dict, sent as it is)
MODERN = MODE == "sends-cancel" or MODE.startswith("listen-") or MODE.startswith("ext-")
EXT = MODE.startswith("ext-")
listens = {}  # json id text -> stop Event


def listen(rid, stop):
    sub = {"io.modelcontextprotocol/subscriptionId": rid}
    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": sub}}
    if MODE == "listen-no-ack":
        send(changed)
    send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
          "params": {"notifications": {"toolsListChanged": True}, "_meta": sub}})
    if MODE == "listen-cancels-others":
        send({"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": 999, "reason": "not a listen"}})
    while True:
        time.sleep(0.2)
        if stop.is_set() and MODE != "listen-ignores-cancel":
            return
        send(changed)


def run_task(tid, params):
    args = params.get("arguments") or {}
    time.sleep(int(args.get("steps", 10)) * int(args.get("delay_ms", 50)) / 1000)
    with lock:
        if tasks[tid]["status"] == "working" or MODE == "task-completes":
            tasks[tid]["status"] = "completed"


def task_cancel(rid, tid):
    t = tasks.get(tid)
    if t is None and MODE != "task-recancel":
        return send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no such task"}})
    if t is None:
        return send({"jsonrpc": "2.0", "id": rid, "result": {"taskId": tid, "status": "cancelled"}})
    if t["status"] != "working" and MODE != "task-recancel":
        return send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "terminal"}})
    if MODE == "task-cancel-late":
        send({"jsonrpc": "2.0", "id": rid, "result": dict(t)})
    with lock:
        t["status"] = "cancelled"
    if MODE != "task-cancel-late":
        send({"jsonrpc": "2.0", "id": rid, "result": dict(t)})

for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        caps = {"tools": {}}
        if TASKS:
            caps["tasks"] = {"cancel": {}, "requests": {"tools": {"call": {}}}}
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-11-25", "capabilities": caps,
            "serverInfo": {"name": "broken", "version": "1"}}})
    elif method == "server/discover" and MODERN:
        caps = {"tools": {}}
        if EXT:
            caps["extensions"] = {"io.modelcontextprotocol/tasks": {}}
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": caps, "serverInfo": {"name": "broken", "version": "1"}}})
    elif method == "tools/call" and EXT and "io.modelcontextprotocol/tasks" in (
            ((msg.get("params") or {}).get("_meta") or {})
            .get("io.modelcontextprotocol/clientCapabilities", {}).get("extensions") or {}):
        tid = "task-%d" % (len(tasks) + 1)
        tasks[tid] = {"taskId": tid, "status": "working", "ttlMs": 60000, "pollIntervalMs": 100,
                      "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z"}
        send({"jsonrpc": "2.0", "id": rid, "result": dict(tasks[tid], resultType="task")})
    elif method == "tasks/cancel" and EXT:
        tid = (msg.get("params") or {}).get("taskId")
        if MODE == "ext-cancel-error" or (tid not in tasks and MODE != "ext-unknown-ok"):
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no"}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete"}})
    elif method == "subscriptions/listen" and MODE.startswith("listen-"):
        stop = threading.Event()
        listens[json.dumps(rid)] = stop
        threading.Thread(target=listen, args=(rid, stop), daemon=True).start()
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [TOOL]}})
    elif method == "tools/call" and TASKS and "task" in (msg.get("params") or {}):
        tid = ("t" * 1000 if MODE == "task-long-id" else "task-") + str(len(tasks) + 1)
        tasks[tid] = {"taskId": tid, "status": "working", "ttl": 60000, "pollInterval": 100,
                      "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z"}
        send({"jsonrpc": "2.0", "id": rid, "result": {"task": dict(tasks[tid])}})
        threading.Thread(target=run_task, args=(tid, msg["params"]), daemon=True).start()
    elif method == "tasks/get" and TASKS:
        t = tasks.get((msg.get("params") or {}).get("taskId"))
        if t is None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no such task"}})
        else:
            send({"jsonrpc": "2.0", "id": rid, "result": dict(t)})
    elif method == "tasks/cancel" and TASKS:
        task_cancel(rid, (msg.get("params") or {}).get("taskId"))
    elif method == "tools/call":
        if MODE == "sends-cancel":
            send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": rid, "reason": "the server gave up"}})
        stop = threading.Event()
        running[json.dumps(rid)] = stop
        threading.Thread(target=work, args=(rid, msg.get("params") or {}, stop), daemon=True).start()
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "notifications/cancelled":
        if MODE == "dies-on-cancel":
            sys.exit(0)
        if MODE == "answers-cancel":
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "no"}})
        target = (msg.get("params") or {}).get("requestId") if isinstance(msg.get("params"), dict) else None
        keys = [json.dumps(target)]
        if MODE == "loose-ids" and target is not None:
            keys.append(json.dumps(str(target)) if not isinstance(target, str) else target)
        for k in keys:
            if k in running:
                running[k].set()
            if k in listens:
                listens[k].set()
    elif rid is not None and method:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "unknown"}})
