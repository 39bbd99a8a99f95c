#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A 2025-11-25 server on stdio that abuses the client's task receiver
(src/client/task_receiver.c): on tools/call it runs the scenario MODE,
asking the client task-augmented questions and the tasks/ requests about
them, then answers the call with a text: one line per answer it got,
"<label> <result-or-error summary>". Every line received is logged on
stderr as "got: <line>".
"""
import json
import os
import sys
import time

MODE = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else None
SAMPLE = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
          "maxTokens": 5}
ELICIT = {"message": "name?", "requestedSchema": {"type": "object", "properties": {
    "n": {"type": "string"}}}}
pending = {}   # id -> answer message
seq = [0]
log = []


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def read_one():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    sys.stderr.write("got: " + line[:400] + "\n")
    sys.stderr.flush()
    try:
        m = json.loads(line)
    except ValueError:
        return
    if "method" not in m and "id" in m:
        pending[m["id"]] = m
    elif m.get("method") == "notifications/tasks/status":
        log.append("status " + json.dumps(m["params"].get("status")))


def request(method, params):
    seq[0] += 1
    i = "s%d" % seq[0]
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    return i


def wait(i, timeout=15):
    end = time.time() + timeout
    while i not in pending and time.time() < end:
        read_one()
    return pending.pop(i, None)


def summary(m):
    if m is None:
        return "NO ANSWER"
    if "error" in m:
        return "error %s %s" % (m["error"].get("code"), m["error"].get("message"))
    r = m.get("result")
    if isinstance(r, dict) and "task" in r:
        return "task %s %s" % (r["task"].get("status"), r["task"].get("ttl"))
    if isinstance(r, dict) and "taskId" in r:
        return "status %s" % r.get("status")
    if isinstance(r, dict) and "tasks" in r:
        return "list %d" % len(r["tasks"])
    return "result " + json.dumps(r)[:80]


def ask(ttl=None, kind="sampling"):
    t = {} if ttl is None else {"ttl": ttl}
    if ttl == "absent":
        t = {}
    if kind == "sampling":
        return request("sampling/createMessage", dict(SAMPLE, task=t))
    return request("elicitation/create", dict(ELICIT, task=t))


def task_id(m):
    try:
        return m["result"]["task"]["taskId"]
    except (KeyError, TypeError):
        return None


def scenario():
    out = []
    if MODE == "flood":
        ids = [ask(kind=os.environ.get("KIND", "elicitation")) for _ in range(int(ARG or 70))]
        got = [summary(wait(i)) for i in ids]
        out.append("created %d" % sum(1 for g in got if g.startswith("task")))
        out.append("refused %d" % sum(1 for g in got if g.startswith("error")))
        out.extend(sorted(set(g for g in got if g.startswith("error"))))
        lst = wait(request("tasks/list", {}))
        out.append("list " + summary(lst))
        if os.environ.get("EXIT_AFTER_FLOOD"):
            sys.exit(0)
    elif MODE == "ttl":
        for ttl in json.loads(ARG):
            out.append("ttl %s: %s" % (json.dumps(ttl), summary(wait(ask(ttl=ttl, kind="elicitation")))))
    elif MODE == "ids":
        tid = task_id(wait(ask(kind="elicitation")))
        for bad in ["nope", 5, None, "", tid + "x", tid[:-1], {"a": 1}]:
            p = {} if bad is None else {"taskId": bad}
            for meth in ("tasks/get", "tasks/result", "tasks/cancel"):
                out.append("%s %s: %s" % (meth, json.dumps(bad), summary(wait(request(meth, p)))))
        out.append("get own: " + summary(wait(request("tasks/get", {"taskId": tid}))))
        out.append("result own: " + summary(wait(request("tasks/result", {"taskId": tid}))))
    elif MODE == "waiters":
        # the application holds the question (--sampling-command sleeps)
        tid = task_id(wait(ask()))
        ws = [request("tasks/result", {"taskId": tid}) for _ in range(int(ARG or 10))]
        time.sleep(0.3)
        early = []
        while True:
            # the refused ones answer at once
            for i in ws:
                if i in pending:
                    early.append(i)
            break
        res = [summary(wait(i, 30)) for i in ws]
        for r in sorted(set(res)):
            out.append("%d x %s" % (res.count(r), r))
    elif MODE == "cancel2":
        tid = task_id(wait(ask()))
        w = request("tasks/result", {"taskId": tid})
        out.append("cancel1: " + summary(wait(request("tasks/cancel", {"taskId": tid}))))
        out.append("cancel2: " + summary(wait(request("tasks/cancel", {"taskId": tid}))))
        out.append("waiter: " + summary(wait(w)))
        out.append("get: " + summary(wait(request("tasks/get", {"taskId": tid}))))
        out.append("result: " + summary(wait(request("tasks/result", {"taskId": tid}))))
    elif MODE == "list":
        for c in [None, "x", 5, "", {"a": 1}]:
            p = {} if c is None else {"cursor": c}
            out.append("list %s: %s" % (json.dumps(c), summary(wait(request("tasks/list", p)))))
    elif MODE == "ttlexpire":
        tid = task_id(wait(ask(ttl=1)))
        time.sleep(0.1)
        out.append("get: " + summary(wait(request("tasks/get", {"taskId": tid}))))
    elif MODE == "ttlexpire_waiting":
        tid = task_id(wait(ask(ttl=int(ARG or 500))))
        w = request("tasks/result", {"taskId": tid})
        out.append("waiter: " + summary(wait(w, 20)))
    elif MODE == "closeheld":
        tid = task_id(wait(ask()))
        request("tasks/result", {"taskId": tid})
        time.sleep(0.3)
        sys.exit(0)
    elif MODE == "plain_waiter_cancel":
        tid = task_id(wait(ask()))
        w = request("tasks/result", {"taskId": tid})
        send({"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": w}})
        out.append("get: " + summary(wait(request("tasks/get", {"taskId": tid}))))
        out.append("cancel: " + summary(wait(request("tasks/cancel", {"taskId": tid}))))
    elif MODE == "plainask":
        out.append("plain: " + summary(wait(request("sampling/createMessage", SAMPLE), 60)))
    elif MODE == "taskask":
        tid = task_id(wait(ask()))
        time.sleep(60)
    elif MODE == "done":
        tid = task_id(wait(ask()))
        out.append("result: " + summary(wait(request("tasks/result", {"taskId": tid}), 20)))
        out.append("again: " + summary(wait(request("tasks/result", {"taskId": tid}))))
    out.extend(log)
    return out


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        sys.stderr.write("got: " + line[:400] + "\n")
        sys.stderr.flush()
        m = json.loads(line)
        method, i = m.get("method"), m.get("id")
        if method is None or i is None:
            continue
        if method == "initialize":
            sys.stderr.write("client caps: %s\n" % json.dumps(m["params"].get("capabilities")))
            send({"jsonrpc": "2.0", "id": i, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "receiverhostile", "version": "0"}}})
        elif method == "tools/call":
            text = "\n".join(scenario())
            send({"jsonrpc": "2.0", "id": i, "result": {
                "content": [{"type": "text", "text": text}]}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": i, "result": {"tools": []}})
        else:
            send({"jsonrpc": "2.0", "id": i, "result": {}})


main()
