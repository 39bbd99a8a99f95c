#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A stdio MCP client (2025-11-25) that gives up on its requests after a
# second, right or wrong one way per MODE, for `mcp check-cancel --client`:
#   good          cancels a call with its id, ignores the late answer,
#                 never cancels initialize, cancels a task with tasks/cancel
#   silent        gives up on a call without notifications/cancelled
#   string-id     cancels the call 1 as requestId "1"
#   answers-late  replies to the late answer with an error response
#   cancels-init  cancels initialize when it is not answered
#   task-notif    cancels its task's tools/call with notifications/cancelled
#   chatty        good, after 5000 pings (the checker must read on)
# What it does follows MCP_CHECK_CANCEL_SCENARIO (timeout, initialize,
# task). A mode prefixed modern- is the same under 2026-07-28: server/discover
# instead of initialize, the envelope in every request's _meta, and a task
# by declaring the tasks extension (the server then makes one).
#   cancel_broken_client.py MODE SERVER_COMMAND [ARG...]
import json, os, select, subprocess, sys, time

MODERN = sys.argv[1].startswith("modern-")
MODE = sys.argv[1][len("modern-"):] if MODERN else sys.argv[1]
SCENARIO = os.environ.get("MCP_CHECK_CANCEL_SCENARIO", "timeout")
server = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
buf = b""


def send(msg):
    server.stdin.write((json.dumps(msg) + "\n").encode())
    server.stdin.flush()


def read_for(seconds, want_id=None):
    """Messages for `seconds`, or until the response to want_id came."""
    global buf
    got = []
    until = time.time() + seconds
    while time.time() < until:
        r, _, _ = select.select([server.stdout], [], [], max(0, until - time.time()))
        if not r:
            break
        chunk = os.read(server.stdout.fileno(), 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            got.append(msg)
            if want_id is not None and msg.get("id") == want_id and "method" not in msg:
                return got
    return got


def cancel(request_id):
    send({"jsonrpc": "2.0", "method": "notifications/cancelled",
          "params": {"requestId": request_id, "reason": "timed out"}})


def answered(msgs, request_id):
    return any(m.get("id") == request_id and "method" not in m for m in msgs)



def envelope(params):
    """params with the 2026-07-28 envelope in its _meta (under MODERN)."""
    if MODERN:
        caps = {"extensions": {"io.modelcontextprotocol/tasks": {}}} if SCENARIO == "task" else {}
        params = dict(params, _meta={
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
            "io.modelcontextprotocol/clientInfo": {"name": "broken", "version": "1"}})
    return params


if MODERN:
    send({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": envelope({})})
    if not answered(read_for(1.0, 0), 0):
        sys.exit(0)
else:
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                     "clientInfo": {"name": "broken", "version": "1"}}})
    if not answered(read_for(1.0, 0), 0):
        if MODE == "cancels-init":
            cancel(0)
        time.sleep(0.3)
        sys.exit(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
if MODE == "chatty":
    for i in range(5000):
        send({"jsonrpc": "2.0", "id": 100000 + i, "method": "ping", "params": envelope({})})
        if i % 100 == 99:
            read_for(0.005)  # the answers read as they come: no pipe fills
    read_for(0.5)
params = {"name": "slow", "arguments": {}}
if SCENARIO == "task" and not MODERN:
    params["task"] = {"ttl": 60000}
send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": envelope(params)})
msgs = read_for(1.0, 1)
if SCENARIO == "task" and answered(msgs, 1):
    send({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
          "params": envelope({"taskId": "check-task"})})
    read_for(1.0, 2)
    if MODE == "task-notif":
        cancel(1)
    else:
        send({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel",
              "params": envelope({"taskId": "check-task"})})
        read_for(1.0, 3)
    sys.exit(0)
if answered(msgs, 1):
    sys.exit(0)
if MODE == "string-id":
    cancel("1")
elif MODE != "silent":
    cancel(1)
late = read_for(1.5, 1)
if MODE == "answers-late" and answered(late, 1):
    send({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "unexpected"}})
    time.sleep(0.5)
server.stdin.close()
server.wait(timeout=5)
