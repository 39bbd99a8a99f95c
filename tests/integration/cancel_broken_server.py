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

for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "broken", "version": "1"}}})
    elif method == "server/discover" and MODE == "sends-cancel":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}}, "serverInfo": {"name": "broken", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [TOOL]}})
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
    elif rid is not None and method:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "unknown"}})
