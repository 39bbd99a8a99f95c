#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A 2025-11-25 server whose one tool runs only as a task and whose
CreateTaskResult comes a second late: a client cancelled before it came
must still cancel the task (tasks/cancel) once it does. Writes every
message it reads to the file named by its argument."""
import json
import sys
import time

TASK = {"taskId": "T1", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
        "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 1000}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    log = open(sys.argv[1], "a")
    for line in sys.stdin:
        m = json.loads(line)
        log.write(line)
        log.flush()
        method, rid = m.get("method"), m.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {},
                                                        "requests": {"tools": {"call": {}}}}},
                "serverInfo": {"name": "slow-task", "version": "1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [
                {"name": "slow", "inputSchema": {"type": "object"},
                 "execution": {"taskSupport": "required"}}]}})
        elif method == "tools/call":
            time.sleep(1.0)
            send({"jsonrpc": "2.0", "id": rid, "result": {"task": TASK}})
        elif method == "tasks/cancel":
            send({"jsonrpc": "2.0", "id": rid, "result": dict(TASK, status="cancelled")})
        elif method and rid is not None:
            send({"jsonrpc": "2.0", "id": rid,
                  "error": {"code": -32601, "message": "Method not found"}})


main()
