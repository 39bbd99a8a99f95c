#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A scripted MCP server on stdio that abuses the client's task calls (the
requestor side, src/session/task_call.c) and the client's task receiver
(src/client/task_receiver.c). Usage: task_hostile_server.py ERA MODE [ARG]
ERA is 25 (2025-11-25, answers initialize) or 26 (2026-07-28, answers
server/discover and declares the tasks extension). Every line received is
logged on stderr as "got: <line>"; counts of tasks/get go to stderr as
"polls N".
"""
import json
import os
import sys
import time

ERA = sys.argv[1]
MODE = sys.argv[2]
ARG = sys.argv[3] if len(sys.argv) > 3 else None
MODERN = ERA == "26"
EXT = "io.modelcontextprotocol/tasks"
TID = "task-1"


def send(obj):
    text = obj if isinstance(obj, str) else json.dumps(obj)
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        sys.exit(0)


def result(i, r):
    if MODERN and isinstance(r, dict) and "resultType" not in r:
        r = dict(r, resultType="complete")
    send({"jsonrpc": "2.0", "id": i, "result": r})


def error(i, code, message):
    send({"jsonrpc": "2.0", "id": i, "error": {"code": code, "message": message}})


def task(status, tid=TID, **kw):
    t = {"taskId": tid, "status": status, "createdAt": "2026-01-01T00:00:00Z",
         "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000}
    if MODERN:
        t["pollIntervalMs"] = kw.pop("poll", 50)
    else:
        t["pollInterval"] = kw.pop("poll", 50)
    t.update(kw)
    return t


def created(i, t):
    if MODERN:
        result(i, dict(t, resultType="task"))
    else:
        result(i, {"task": t})


DONE = {"content": [{"type": "text", "text": "done" * int(os.environ.get("BIG", "1"))}]}
ELICIT = {"method": "elicitation/create",
          "params": {"message": "name?", "requestedSchema": {"type": "object", "properties": {
              "n": {"type": "string"}}}}}
state = {"polls": 0, "updates": 0, "call": None}


def on_call(i, params):
    state["call"] = i
    declared = EXT in (((params.get("_meta") or {}).get(
        "io.modelcontextprotocol/clientCapabilities") or {}).get("extensions") or {}) \
        if MODERN else "task" in params
    sys.stderr.write("declared %s\n" % declared)
    sys.stderr.flush()
    if MODE == "refuse_always" or (MODE == "refuse_once" and not declared):
        send({"jsonrpc": "2.0", "id": i, "error": {"code": -32021, "message": "needs a task",
              "data": {"requiredCapabilities": {"extensions": {EXT: {}}}}}})
        return
    if MODE == "notaskid":
        t = task("working")
        del t["taskId"]
        created(i, t)
    elif MODE == "hugeid":
        created(i, task("working", tid="x" * int(ARG or 10 * 1024 * 1024)))
    elif MODE == "escid":
        created(i, task("working", tid="\x1b]0;PWNED\x07\x1b[2J"))
    elif MODE == "numid":
        created(i, task("working", tid=5))
    elif MODE == "emptyid":
        created(i, task("working", tid=""))
    elif MODE == "nulid":
        created(i, task("working", tid="a\u0000b"))
    elif MODE == "undeclared":
        # resultType task, whatever was declared
        created(i, task("working"))
    elif MODE == "plain":
        result(i, DONE)
    elif MODE == "poll":
        created(i, task("working", poll=json.loads(ARG)))
    elif MODE == "closecreate":
        sys.exit(0)
    elif MODE == "silentcreate":
        pass
    else:
        created(i, task("working"))


def on_get(i, params):
    state["polls"] += 1
    n = state["polls"]
    sys.stderr.write("polls %d\n" % n)
    sys.stderr.flush()
    tid = params.get("taskId")
    if MODE == "poll":
        if n >= int(os.environ.get("POLLS_TO_DONE", "20")):
            result(i, task("completed", tid, poll=json.loads(ARG), result=DONE)
                   if MODERN else task("completed", tid, poll=json.loads(ARG)))
        else:
            result(i, task("working", tid, poll=json.loads(ARG)))
    elif MODE == "otherid":
        result(i, task("completed", "someone-else", result={"content": [
            {"type": "text", "text": "someone else's"}]}))
    elif MODE == "unknownstatus":
        result(i, task("exploded", tid))
    elif MODE == "noresult":
        result(i, task("completed", tid))
    elif MODE == "failednoerror":
        result(i, task("failed", tid))
    elif MODE == "failedbaderror":
        result(i, task("failed", tid, error={"code": "x"}))
    elif MODE == "resultnotobj":
        result(i, task("completed", tid, result=[1, 2]))
    elif MODE == "inputnotobj":
        result(i, task("input_required", tid, inputRequests={"a": 5, "b": "x"}))
    elif MODE == "inputarray":
        result(i, task("input_required", tid, inputRequests=[ELICIT]))
    elif MODE == "manykeys":
        result(i, task("input_required", tid,
                       inputRequests={"k%d" % k: ELICIT for k in range(int(ARG or 10000))}))
    elif MODE == "repeatkey":
        if state["updates"] >= 1 and n > 6:
            result(i, task("completed", tid, result=DONE))
        else:
            result(i, task("input_required", tid, inputRequests={"q": ELICIT}))
    elif MODE == "updateerr":
        result(i, task("input_required", tid, inputRequests={"q": ELICIT}))
    elif MODE == "samplinginput":
        result(i, task("input_required", tid, inputRequests={"s": {
            "method": "sampling/createMessage", "params": {"messages": [{"role": "user",
            "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}}}))
    elif MODE == "silentget":
        pass
    elif MODE == "closeget":
        sys.exit(0)
    elif MODE == "status_flood":
        for _ in range(int(ARG or 20000)):
            send({"jsonrpc": "2.0", "method": "notifications/tasks/status",
                  "params": task("working", tid)})
        result(i, task("working", tid))
    elif MODE == "cancelled":
        result(i, task("cancelled", tid))
    elif MODE == "wrongresulttype":
        r = task("completed", tid, result=DONE)
        r["resultType"] = "task"
        send({"jsonrpc": "2.0", "id": i, "result": r})
    elif MODE == "getarray":
        send({"jsonrpc": "2.0", "id": i, "result": [1]})
    elif MODE == "geterror":
        error(i, -32602, "no such task")
    elif MODE in ("working", "hugeid", "escid"):
        result(i, task("working", tid))
    else:
        result(i, task("completed", tid, result=DONE) if MODERN else task("completed", tid))


def main():
    for line in sys.stdin:
        sys.stderr.write("got: " + line[:300] + ("...\n" if len(line) > 300 else ""))
        sys.stderr.flush()
        try:
            m = json.loads(line)
        except ValueError:
            continue
        method, i = m.get("method"), m.get("id")
        params = m.get("params") or {}
        if method is None or i is None:
            continue
        if method == "server/discover":
            if MODERN:
                result(i, {"supportedVersions": ["2026-07-28"],
                           "capabilities": {"tools": {}, "extensions": {EXT: {}}},
                           "_meta": {"io.modelcontextprotocol/serverInfo": {
                               "name": "taskhostile", "version": "0"}}})
            else:
                error(i, -32601, "Method not found")
        elif method == "initialize":
            result(i, {"protocolVersion": "2025-11-25",
                       "capabilities": {"tools": {}, "tasks": {
                           "list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}},
                       "serverInfo": {"name": "taskhostile", "version": "0"}})
        elif method == "tools/list":
            result(i, {"tools": [{"name": "job", "inputSchema": {"type": "object"},
                                  "execution": {"taskSupport": "optional"}}]})
        elif method == "tools/call":
            on_call(i, params)
        elif method == "tasks/get":
            on_get(i, params)
        elif method == "tasks/result":
            if MODE == "silentresult":
                continue
            result(i, DONE)
        elif method == "tasks/update":
            state["updates"] += 1
            if MODE == "updateerr":
                error(i, -32602, "answers refused")
            else:
                result(i, {})
        elif method == "tasks/cancel":
            result(i, task("cancelled", params.get("taskId")))
        elif method == "tasks/list":
            result(i, {"tasks": [task("working")], "nextCursor": "again"}
                   if MODE == "listloop" else {"tasks": [task("working")]})
        else:
            result(i, {})


main()
