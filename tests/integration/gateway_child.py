#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stdio MCP server (2025-11-25) for mcp proxy --http to run as its child,
with tools that misbehave on demand:

  echo {text}   answers the text
  hang          never answers; a cancel of it is written to the log
  die           exits with status 7 at once
  killed        kills itself with SIGKILL
  garbage       writes a line that is not JSON and a response to an id
                never asked, then answers "survived"
  ask           asks the client (elicitation/create), answers with what came
  ask-hang      asks the same, logs "answered ID" for the answer, never
                answers the call
  ask-go        asks the same and answers "went on" at once, not waiting
  ask-deaf      asks the same, then closes its stdin and sleeps (a write
                to it fails; it is still running)
  log           logs "quiet detail" at debug and "loud trouble" at error,
                then answers "logged"
  touch {uri}   sends notifications/resources/updated for uri when it is
                subscribed to, and answers "touched" (else "not subscribed")
  pages         refuses with -32042 (URL elicitation required), naming a
                page to visit
  job {hold, ask}  runs only as a 2025-11-25 task ("task job ID" in the log;
                a plain call is refused -32601, as a task call of any other
                tool is): it completes at once with "job done", or with
                hold stays working until tasks/cancel ("task-cancel ID"),
                or with ask asks elicitation/create for the task and
                completes with "job answer: ACTION"

  gateway_child.py LOG [MODE]

Every start appends "start <pid>" to LOG, every event a line (a
notifications/roots/list_changed: "roots changed"; resources/subscribe and
unsubscribe: "subscribe URI", "unsubscribe URI"). It has one resource,
test://a. MODE:
  normal       (default)
  die-at-start the first run (the proxy's probe) serves, every later one
               exits with status 5 before reading anything
  stubborn     ignores SIGTERM, and lives on 60 s after its input ended
               (only SIGKILL ends it)
  refuse-init  asks the client roots/list before anything, then refuses
               initialize with a long message of multibyte characters (a
               proxy's probe fails too)
"""
import json
import os
import signal
import sys

log_path = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else "normal"


def log(line):
    with open(log_path, "a") as f:
        f.write(line + "\n")


def runs():
    try:
        with open(log_path) as f:
            return sum(1 for line in f if line.startswith("start "))
    except FileNotFoundError:
        return 0


first = runs() == 0
log("start %d" % os.getpid())
if mode == "die-at-start" and not first:
    sys.exit(5)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def text(rid, t):
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": t}]}})


def task_object(tid):
    t = tasks[tid]
    return {"taskId": tid, "status": t["status"], "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000, "pollInterval": 50}


def task_result(tid, rid):
    t = tasks[tid]
    related = {"io.modelcontextprotocol/related-task": {"taskId": tid}, "example/kept": 1}
    if t["status"] == "completed":
        result = dict(t["result"])
        result["_meta"] = related
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "task %s" % t["status"]}})


def finish_task(tid, result, status="completed"):
    t = tasks[tid]
    t["status"] = status
    t["result"] = result
    for rid in t["waiting"]:
        task_result(tid, rid)
    t["waiting"] = []


TOOLS = [{"name": n, "inputSchema": {"type": "object"}}
         for n in ("echo", "hang", "die", "killed", "garbage", "ask", "log", "touch", "pages")]
TOOLS.append({"name": "job", "inputSchema": {"type": "object"},
              "execution": {"taskSupport": "required"}})
tasks = {}  # id -> {"status", "result", "waiting": [tasks/result ids]}
task_asks = {}  # our question's id -> the task's id
subscribed = set()
asking = {}  # our question's id -> the call's id
hanging = set()  # the calls of ask-hang

for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        log("bad line")
        continue
    method = msg.get("method")
    rid = msg.get("id")
    if method is None and rid in task_asks:
        tid = task_asks.pop(rid)
        action = msg.get("result", {}).get("action", "error")
        if tasks[tid]["status"] == "input_required":
            finish_task(tid, {"content": [{"type": "text", "text": "job answer: %s" % action}]})
        continue
    if method is None and rid in asking:
        call = asking.pop(rid)
        if call in hanging:
            log("answered %s" % call)
        elif "result" in msg:
            text(call, "answer: %s" % msg["result"].get("action"))
        else:
            text(call, "answer: error %s" % msg.get("error", {}).get("code"))
        continue
    if method == "initialize" and mode == "refuse-init":
        send({"jsonrpc": "2.0", "id": "early", "method": "roots/list"})
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32600, "message": "é" * 200}})
        log("refused initialize")
        continue
    if method == "initialize":
        log("initialize %s" % msg["params"].get("protocolVersion"))
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": msg["params"].get("protocolVersion"),
            "capabilities": {"tools": {}, "logging": {}, "resources": {"subscribe": True},
                             "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}},
            "serverInfo": {"name": "gateway-child", "version": "1"}}})
    elif method == "notifications/roots/list_changed":
        log("roots changed")
    elif method == "notifications/cancelled":
        p = msg.get("params", {})
        log("cancelled %s %s" % (p.get("requestId"), p.get("reason")))
    elif method == "resources/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"resources": [
            {"uri": "test://a", "name": "a"}]}})
    elif method == "resources/read":
        uri = msg["params"].get("uri")
        send({"jsonrpc": "2.0", "id": rid, "result": {"contents": [
            {"uri": uri, "text": "contents of %s" % uri}]}})
    elif method in ("resources/subscribe", "resources/unsubscribe"):
        uri = msg["params"].get("uri")
        on = method == "resources/subscribe"
        log("%s %s" % ("subscribe" if on else "unsubscribe", uri))
        (subscribed.add if on else subscribed.discard)(uri)
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method in ("tasks/get", "tasks/result", "tasks/cancel"):
        tid = msg.get("params", {}).get("taskId")
        if tid not in tasks:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no such task"}})
        elif method == "tasks/get":
            send({"jsonrpc": "2.0", "id": rid, "result": task_object(tid)})
        elif method == "tasks/result":
            if tasks[tid]["status"] in ("working", "input_required"):
                tasks[tid]["waiting"].append(rid)
            else:
                task_result(tid, rid)
        else:
            log("task-cancel %s" % tid)
            if tasks[tid]["status"] not in ("working", "input_required"):
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "terminal"}})
            else:
                finish_task(tid, None, "cancelled")
                send({"jsonrpc": "2.0", "id": rid, "result": task_object(tid)})
    elif method == "tools/call" and ("task" in msg["params"]) != (msg["params"].get("name") == "job"):
        log("refused %s %s" % ("task" if "task" in msg["params"] else "call",
                               msg["params"].get("name")))
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "wrong form"}})
    elif method == "tools/call" and "task" in msg["params"]:
        args = msg["params"].get("arguments") or {}
        tid = "child-task-%s" % rid
        log("task job %s" % rid)
        tasks[tid] = {"status": "working", "result": None, "waiting": []}
        send({"jsonrpc": "2.0", "id": rid, "result": {"task": task_object(tid)}})
        if args.get("ask"):
            tasks[tid]["status"] = "input_required"
            qid = "tq%s" % rid
            task_asks[qid] = tid
            send({"jsonrpc": "2.0", "id": qid, "method": "elicitation/create", "params": {
                "message": "Who?", "requestedSchema": {
                    "type": "object", "properties": {"name": {"type": "string"}}},
                "_meta": {"io.modelcontextprotocol/related-task": {"taskId": tid}}}})
        elif not args.get("hold"):
            finish_task(tid, {"content": [{"type": "text", "text": "job done"}]})
    elif method == "tools/call":
        name = msg["params"].get("name")
        args = msg["params"].get("arguments") or {}
        log("call %s %s" % (name, rid))
        if name == "echo":
            text(rid, args.get("text", ""))
        elif name == "hang":
            pass
        elif name == "die":
            sys.exit(7)
        elif name == "killed":
            os.kill(os.getpid(), signal.SIGKILL)
        elif name == "garbage":
            sys.stdout.write("this is not JSON\n")
            send({"jsonrpc": "2.0", "id": 99999, "result": {}})
            text(rid, "survived")
        elif name == "pages":
            send({"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32042, "message": "Visit a page first",
                "data": {"elicitations": [{"mode": "url", "elicitationId": "e1",
                                           "url": "https://example.com/consent",
                                           "message": "Grant access"}]}}})
        elif name == "log":
            for level, words in (("debug", "quiet detail"), ("error", "loud trouble")):
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": {
                    "level": level, "logger": "child", "data": words}})
            text(rid, "logged")
        elif name == "touch":
            uri = args.get("uri")
            if uri in subscribed:
                send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                      "params": {"uri": uri}})
            text(rid, "touched" if uri in subscribed else "not subscribed")
        elif name in ("ask", "ask-hang", "ask-go", "ask-deaf"):
            if name != "ask":
                hanging.add(rid)
            qid = "q%s" % rid
            asking[qid] = rid
            send({"jsonrpc": "2.0", "id": qid, "method": "elicitation/create", "params": {
                "message": "Who?", "requestedSchema": {
                    "type": "object", "properties": {"name": {"type": "string"}}}}})
            if name == "ask-go":
                text(rid, "went on")
            if name == "ask-deaf":
                import time
                log("deaf")
                os.close(0)
                time.sleep(30)
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no such tool"}})
    elif rid is not None and method is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
log("stdin closed")
if mode == "stubborn":
    import time
    time.sleep(60)
