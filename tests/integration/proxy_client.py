#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A stdio client of `mcp proxy --url`, one scenario per run, for
# test_proxy_url.sh: it spawns the proxy, writes JSON-RPC lines to its
# stdin, reads its stdout and asserts what comes back (what the server did
# is the shell's to check, from the server's log).
#
#   proxy_client.py SCENARIO ERA -- PROXY_COMMAND...
#
# ERA: 2025 (initialize, 2025-11-25) or 2026 (the 2026-07-28 envelope on
# every request). Exit 0 when every assertion held; the failure on stderr.
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time

scenario, era = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
modern = era == "2026"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "sampling": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "proxy-test", "version": "1"},
}

if scenario == "epipe":
    # stdout is a socket (a client that spawns with socketpairs): its peer
    # closes, the next write fails with EPIPE.
    peer, theirs = socket.socketpair()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=theirs)
    theirs.close()
else:
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
buf = b""
seen = []  # every message read so far


def fail(why):
    print(f"FAIL ({scenario} {era}): {why}", file=sys.stderr)
    print("--- read so far:", file=sys.stderr)
    for m in seen:
        print(json.dumps(m)[:400], file=sys.stderr)
    try:
        proc.kill()
    except OSError:
        pass
    sys.exit(1)


def ok(what):
    print(f"ok: {scenario} {era}: {what}")


def send_raw(data):
    proc.stdin.write(data)
    proc.stdin.flush()


def send(msg):
    send_raw(json.dumps(msg).encode() + b"\n")


def request(i, method, params=None):
    params = dict(params or {})
    if modern:
        meta = dict(params.get("_meta", {}))
        meta.update(ENVELOPE)
        params["_meta"] = meta
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})


def read_one(deadline):
    """The next message, or None at the deadline; EOF fails unless eof_ok."""
    global buf
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        r, _, _ = select.select([proc.stdout], [], [], left)
        if not r:
            return None
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            return "EOF"
        buf += chunk
    line, buf = buf.split(b"\n", 1)
    try:
        m = json.loads(line)
    except ValueError:
        fail(f"stdout carried a line that is not JSON: {line[:200]!r}")
    seen.append(m)
    return m


def wait(pred, seconds, what):
    deadline = time.monotonic() + seconds
    while True:
        m = read_one(deadline)
        if m is None:
            fail(f"waited {seconds} s for {what}")
        if m == "EOF":
            fail(f"the proxy's stdout ended while waiting for {what}")
        if pred(m):
            return m


def response(i):
    return lambda m: m.get("id") == i and ("result" in m or "error" in m)


def text_of(m):
    return m["result"]["content"][0]["text"]


def handshake():
    if modern:
        return
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}, "sampling": {}},
        "clientInfo": {"name": "proxy-test", "version": "1"}}})
    r = wait(response(0), 10, "the initialize response")
    if r.get("result", {}).get("protocolVersion") != "2025-11-25":
        fail(f"initialize: {r}")
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})


def call(i, name, args, token=None):
    params = {"name": name, "arguments": args}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    request(i, "tools/call", params)


def echo_works(i, text):
    call(i, "echo", {"text": text})
    r = wait(response(i), 10, f"the answer to echo {i}")
    if "error" in r or text_of(r) != text:
        fail(f"echo {i}: {r}")


def exits(code, seconds, what):
    try:
        got = proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        fail(f"the proxy did not exit within {seconds} s after {what}")
    if got != code:
        fail(f"the proxy exited {got} after {what}, expected {code}")
    ok(f"the proxy exited {code} after {what}")


def no_answer(i, seconds, what):
    deadline = time.monotonic() + seconds
    while True:
        m = read_one(deadline)
        if m is None or m == "EOF":
            return
        if response(i)(m):
            fail(f"{what}: an answer to {i} came: {m}")


def announce(word):
    """Tell the shell (a file named by PROXY_MARK) that a point is reached."""
    mark = os.environ.get("PROXY_MARK")
    if mark:
        with open(mark, "a") as f:
            f.write(word + "\n")


if scenario not in ("unreachable", "refused", "epipe", "pipelined", "initcancel", "initeof"):
    handshake()

if scenario == "call":
    # A call answered, with its progress and logs carried unchanged (logs
    # asked for with logging/setLevel under 2025, the envelope's logLevel
    # under 2026-07-28).
    meta = {"progressToken": "tok-1"}
    if modern:
        meta["io.modelcontextprotocol/logLevel"] = "debug"
    else:
        request(50, "logging/setLevel", {"level": "debug"})
        wait(response(50), 10, "the answer to logging/setLevel")
    request(1, "tools/call", {"name": "count", "arguments": {"n": 3, "delay_ms": 30}, "_meta": meta})
    r = wait(response(1), 10, "the count result")
    logs = [m["params"].get("data") for m in seen if m.get("method") == "notifications/message"]
    if logs != ["step 1 of 3", "step 2 of 3", "step 3 of 3"]:
        fail(f"logs: {logs}")
    progress = [m["params"] for m in seen if m.get("method") == "notifications/progress"]
    if [p["progress"] for p in progress] != [1, 2, 3] or any(p["progressToken"] != "tok-1"
                                                             for p in progress):
        fail(f"progress: {progress}")
    if text_of(r) != "counted to 3":
        fail(f"count: {r}")
    ok("count answered, progress 1, 2, 3 with its token, its three logs")
    # Garbage: -32700 with a null id, and nothing else lost.
    send_raw(b"this is not json\n")
    e = wait(lambda m: "error" in m and m.get("id") is None, 5, "the parse error")
    if e["error"]["code"] != -32700:
        fail(f"garbage: {e}")
    send_raw(b'{"jsonrpc":"2.0","id":[1],"method":"x"}\n')
    e = wait(lambda m: "error" in m and m.get("id") is None, 5, "the invalid request error")
    if e["error"]["code"] != -32600:
        fail(f"a bad id: {e}")
    echo_works(2, "after garbage")
    ok("garbage got -32700 (id null), a bad id -32600, and the next call works")
    # A line over the cap (the shell gives --max-message 2048): an error for
    # its id, the proxy stays up.
    big = json.dumps({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"text": "x" * 10000}}})
    send_raw(big.encode() + b"\n")
    e = wait(response(77), 5, "the error for the oversized line")
    if "error" not in e or "over the cap" not in e["error"]["message"]:
        fail(f"oversized: {e}")
    echo_works(3, "after the big one")
    ok("an oversized line got an error for its id, and the next call works")
    # A response over the cap (tools/list of mcp serve is 2.3 KB): an error
    # for its request, at once, and the next call works.
    request(78, "tools/list")
    e = wait(response(78), 5, "the error for the oversized response")
    if "error" not in e or "over the cap" not in e["error"]["message"]:
        fail(f"oversized response: {e}")
    echo_works(4, "after the big response")
    ok("a response over the cap became an error for its request, and the next call works")
    proc.stdin.close()
    exits(0, 5, "the end of its input")

elif scenario == "cancel":
    # The stdio client's cancel: no answer comes, the server stops (the
    # shell checks its log), the next call works. The cancel goes once the
    # server runs the call (its first progress): a cancel before the POST
    # left would only drop the request, which the server never sees.
    call(5, "count", {"n": 100000, "delay_ms": 50}, token=5)
    wait(lambda m: m.get("method") == "notifications/progress", 10, "count's progress")
    send({"jsonrpc": "2.0", "method": "notifications/cancelled",
          "params": {"requestId": 5, "reason": "test cancels"}})
    no_answer(5, 1.0, "after the cancel")
    echo_works(6, "after the cancel")
    ok("no answer after the cancel, the next call works")
    proc.stdin.close()
    exits(0, 5, "the end of its input")

elif scenario == "eof":
    # The end of stdin mid-call: the proxy cancels both calls (the shell
    # checks the server's log) and exits 0 within the 2 s it gives the server.
    call(9, "count", {"n": 100000, "delay_ms": 50}, token=9)
    call(10, "count", {"n": 100000, "delay_ms": 50}, token=10)
    for t in (9, 10):
        wait(lambda m, t=t: m.get("method") == "notifications/progress" and
             m["params"]["progressToken"] == t, 10, f"progress of {t}")
    start = time.monotonic()
    proc.stdin.close()
    exits(0, 5, "the end of its input mid-call")
    ok(f"it took {time.monotonic() - start:.2f} s")

elif scenario == "signal":
    call(11, "count", {"n": 100000, "delay_ms": 50}, token=11)
    wait(lambda m: m.get("method") == "notifications/progress", 10, "count's progress")
    proc.send_signal(signal.SIGTERM)
    exits(143, 5, "SIGTERM mid-call")

elif scenario == "hangup":
    # SIGHUP (the terminal that ran it closed): as SIGTERM, exit 129.
    call(12, "count", {"n": 100000, "delay_ms": 50}, token=12)
    wait(lambda m: m.get("method") == "notifications/progress", 10, "count's progress")
    proc.send_signal(signal.SIGHUP)
    exits(129, 5, "SIGHUP mid-call")

elif scenario == "initcancel":
    # 2025: the client cancels initialize (which it must not): the proxy
    # does not forward it, the handshake is answered, and what waited
    # behind it goes on (the proxy says why on stderr: the shell checks).
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "proxy-test", "version": "1"}}})
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    call(1, "echo", {"text": "after all"})
    r = wait(response(0), 10, "the initialize response")
    if "error" in r:
        fail(f"initialize: {r}")
    r = wait(response(1), 10, "the echo behind initialize")
    if "error" in r or text_of(r) != "after all":
        fail(f"echo: {r}")
    # A cancel naming nothing, and one with a bad id: not sent, no answer.
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}})
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": [1]}})
    echo_works(2, "after malformed cancels")
    ok("a cancel of initialize was not forwarded; the session works")
    proc.stdin.close()
    exits(0, 5, "the end of its input")

elif scenario == "initeof":
    # 2025: the input ends right behind initialize and a request waiting
    # for its answer: initialize is not cancelled, and the request, never
    # sent, gets no cancel (the shell reads --trace for both).
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "proxy-test", "version": "1"}}})
    call(1, "echo", {"text": "never sent"})
    # A cancel naming no request in flight: not sent either.
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 424242}})
    proc.stdin.close()
    exits(0, 5, "the end of its input behind initialize")

elif scenario == "ask":
    # The server's question crosses to the client, the answer back.
    call(20, "confirm", {"question": "Proxy?"})
    if modern:
        r = wait(response(20), 10, "the input_required round")
        res = r.get("result", {})
        asked = res.get("inputRequests", {}).get("confirm", {})
        if res.get("resultType") != "input_required" or asked.get("method") != "elicitation/create":
            fail(f"the round: {r}")
        request(22, "tools/call", {"name": "confirm", "arguments": {"question": "Proxy?"},
                                   "inputResponses": {"confirm": {"action": "accept",
                                                                  "content": {"ok": True}}},
                                   "requestState": res["requestState"]})
        r = wait(response(22), 10, "the answer after the round")
        if text_of(r) != "confirmed":
            fail(f"after the round: {r}")
    else:
        q = wait(lambda m: m.get("method") == "elicitation/create" and "id" in m, 10,
                 "the server's elicitation/create")
        if q["params"].get("message") != "Proxy?":
            fail(f"the question: {q}")
        send({"jsonrpc": "2.0", "id": q["id"],
              "result": {"action": "accept", "content": {"ok": True}}})
        r = wait(response(20), 10, "the confirm result")
        if text_of(r) != "confirmed":
            fail(f"confirm: {r}")
    ok("the server's question crossed, the answer came back: confirmed")
    # Sampling the same way: the model's answer is the tool's result.
    answer = {"role": "assistant", "content": {"type": "text", "text": "a short summary"},
              "model": "proxy-test-model"}
    call(23, "summarize", {"text": "a long text"})
    if modern:
        r = wait(response(23), 10, "the sampling round")
        res = r.get("result", {})
        asked = res.get("inputRequests", {}).get("summary", {})
        if asked.get("method") != "sampling/createMessage":
            fail(f"the sampling round: {r}")
        request(24, "tools/call", {"name": "summarize", "arguments": {"text": "a long text"},
                                   "inputResponses": {"summary": answer},
                                   "requestState": res["requestState"]})
        r = wait(response(24), 10, "the answer after the sampling round")
    else:
        q = wait(lambda m: m.get("method") == "sampling/createMessage" and "id" in m, 10,
                 "the server's sampling/createMessage")
        send({"jsonrpc": "2.0", "id": q["id"], "result": answer})
        r = wait(response(23), 10, "the summarize result")
    if text_of(r) != "a short summary":
        fail(f"summarize: {r}")
    ok("the server's sampling request crossed, the model's answer came back")
    proc.stdin.close()
    exits(0, 5, "the end of its input")

elif scenario == "unreachable":
    # Nothing listens: the request fails with a clear JSON-RPC error, soon.
    start = time.monotonic()
    if modern:
        call(1, "echo", {"text": "x"})
        i = 1
    else:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "proxy-test", "version": "1"}}})
        i = 0
    r = wait(response(i), 15, "the error for an unreachable server")
    err = r.get("error", {})
    if err.get("code") != -32603 or "cannot reach" not in err.get("message", "") or \
            "httpError" not in err.get("data", {}):
        fail(f"unreachable: {r}")
    ok(f"an error in {time.monotonic() - start:.2f} s: {err['message'][:80]}")
    proc.stdin.close()
    exits(0, 5, "the end of its input")

elif scenario == "refused":
    # The server wants a token the proxy was not given: the HTTP 401
    # becomes a JSON-RPC error for the request.
    if modern:
        call(1, "echo", {"text": "x"})
        i = 1
    else:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "proxy-test", "version": "1"}}})
        i = 0
    r = wait(response(i), 10, "the error for the refused request")
    # Made up by the transport (-32603, data.httpStatus 401), or the JSON-RPC
    # error body the server sent with its 401, passed on as it is.
    err = r.get("error", {})
    made_up = err.get("code") == -32603 and err.get("data", {}).get("httpStatus") == 401
    if not made_up and "Unauthorized" not in err.get("message", ""):
        fail(f"refused: {r}")
    ok(f"HTTP 401 became a JSON-RPC error: {err['message'][:80]}")
    proc.stdin.close()
    exits(0, 5, "the end of its input")

elif scenario == "pipelined":
    # A client that does not wait for initialize's answer (a script piping
    # its lines): what follows initialize waits for the session id in the
    # proxy, in order, instead of reaching the server without one.
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "proxy-test", "version": "1"}}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    call(1, "echo", {"text": "right behind"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    # A call and its cancel, both before initialize is answered: no answer.
    call(3, "sleep", {"seconds": 30})
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
    wait(response(0), 10, "the initialize response")
    r = wait(response(1), 10, "the echo right behind initialize")
    if "error" in r or text_of(r) != "right behind":
        fail(f"pipelined echo: {r}")
    r = wait(response(2), 10, "tools/list right behind initialize")
    if "error" in r:
        fail(f"pipelined tools/list: {r}")
    no_answer(3, 1.0, "the call cancelled while initialize was unanswered")
    echo_works(4, "after it")
    ok("what followed initialize waited for its answer and went in the session; "
       "a call cancelled meanwhile got no answer")
    proc.stdin.close()
    exits(0, 5, "the end of its input")

elif scenario == "dies":
    # The server dies mid-call: the call gets an error at once.
    call(30, "count", {"n": 100000, "delay_ms": 50}, token=30)
    wait(lambda m: m.get("method") == "notifications/progress", 10, "count's progress")
    os.kill(int(os.environ["SERVER_PID"]), signal.SIGKILL)
    start = time.monotonic()
    r = wait(response(30), 10, "the error after the server died")
    took = time.monotonic() - start
    if "error" not in r or r["error"]["code"] != -32603:
        fail(f"after the death: {r}")
    if took > 3:
        fail(f"the error took {took:.2f} s")
    ok(f"an error {took:.2f} s after the server died: {r['error']['message'][:80]}")
    proc.stdin.close()
    exits(0, 5, "the end of its input")

elif scenario == "stuck":
    # A server that takes nothing but initialize: at the end of stdin the
    # proxy posts its cancel, which is never answered; it leaves after the
    # 2 s it gives the server, not later, not at once.
    call(40, "anything", {})
    time.sleep(0.5)
    start = time.monotonic()
    proc.stdin.close()
    exits(0, 6, "the end of its input, the server stuck")
    took = time.monotonic() - start
    if took < 1.5:
        fail(f"it left after {took:.2f} s, without waiting for the server")
    ok(f"it left {took:.2f} s after its input ended")

elif scenario == "epipe":
    call(60, "count", {"n": 100000, "delay_ms": 50}, token=60)
    got = b""
    deadline = time.monotonic() + 10
    while b"notifications/progress" not in got and time.monotonic() < deadline:
        r, _, _ = select.select([peer], [], [], 0.5)
        if r:
            got += peer.recv(65536)
    if b"notifications/progress" not in got:
        fail("no progress on the socket")
    peer.close()
    exits(3, 5, "its socket's peer closed (EPIPE at the next progress)")

else:
    fail("unknown scenario")
