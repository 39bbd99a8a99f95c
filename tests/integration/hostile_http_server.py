#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A scripted Streamable HTTP server that misbehaves on purpose, for the
HTTP client's tests (tests/unit/test_http_client.c). Listens on 127.0.0.1
on a free port, prints "listening PORT" on stdout, logs one line per event
on stderr. The first argument is the mode:

  modern_refuses  server/discover gets 400 with a 2026-07-28 JSON-RPC error
                  (-32022, supporting only a revision nobody speaks)
  html400         server/discover gets 400 with an HTML body
  empty404        server/discover gets 404 with no body
  legacy          server/discover gets 400 with a non-JSON-RPC JSON body
  modern          answers server/discover: a 2026-07-28 server

Legacy modes then answer initialize (a session id per initialize; GET
gets 405 unless it carries Last-Event-ID) and tools/call by tool name:

  echo {text}  the text, as JSON
  end          ends the session: 404 to this request and to every later
               one carrying its id
  drop         SSE: a priming event (id e1, retry 300), a progress event,
               then the connection closes; a GET with Last-Event-ID e1 then
               gets the response (logged: "resumed after N ms")
  big          a JSON response of 2 MiB
  huge         a JSON response of 17 MiB
  hang         never answers; logs "hang: client went away" when the
               connection closes
  cut          promises 1000 bytes of JSON, sends 10, closes
  lateheads    SSE headers 60 ms after the request was read (logged:
               "lateheads: headers sent"), then holds as hang does

Modern mode answers tools/call "echo" and "hang" the same way, and
plays a tool whose x-mcp-header annotation changed after the client
listed it (HeaderMismatch, -32020, unless Mcp-Param-Region is there):

  regional {region}  listed without the annotation the first time, with
                     it (Region) from then on
  stubborn           always refused with -32020
  slowfix            refused with -32020; the next tools/list then hangs
                     (logs "list: client went away" when dropped)
  slowstubborn       refused with -32020 after 1 s, every time

Every mode answers these tools/call names the same way (a failure each):

  rst          JSON headers and part of the body, then a reset (RST)
  rstsse       the same in an event stream
  mute         closes the connection without answering
  vanish       the server exits at once (a stopped or crashed server):
               the connection closes unanswered, nothing listens any more
  longheader   a response header line of 200 KB
  fakesse      Content-Type text/event-streamXYZ on a JSON answer
  ctrlid       SSE: two progress events with the id "a\x01b" (retry 100),
               then the connection closes
  longid       the same with an id of 3000 bytes
  wide         (modern) listed with x-mcp-header "Wide" on its parameter v

Other modes:

  sid_ctrl, sid_long, sid_space, sid_utf8, sid_empty
               legacy, but initialize's Mcp-Session-Id is unusable (a
               control character, 10 KB, a space, UTF-8, empty)
  redirect     every POST gets 301 to a Location with a password and a
               control character
  mute         every POST: the connection closes without an answer
  nultool      modern, listing the tools "nul\u0000x" and "echo"; a call
               logs "call name=<the name, repr>"

Logged: "POST <method> session=<id or -> version=<MCP-Protocol-Version or ->"
(tools/call adds "region=<Mcp-Param-Region or ->"), "header <name>=[<value>]"
for each X-Test-* header, "GET last-event-id=<id or ->", "DELETE
session=<id>".
"""
import json
import os
import socket
import socketserver
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "legacy"
BAD_SESSION_IDS = {"sid_ctrl": "ab\x01cd", "sid_long": "L" * 10240, "sid_space": "a b",
                   "sid_utf8": "\u00e9t\u00e9", "sid_empty": ""}
LOCK = threading.Lock()
SESSIONS = {}  # id -> alive
COUNTER = [0]
DROPPED = {}  # event id -> (request id, when dropped)
LISTS = [0]  # tools/list requests so far
HANG_LIST = [False]


def log(line):
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", ctype="application/json", headers=None):
        self.send_response(status)
        if body or status != 202:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if body:
            self.wfile.write(body)
            self.wfile.flush()

    def json(self, obj, status=200, headers=None):
        self.reply(status, json.dumps(obj).encode(), headers=headers)

    def result(self, rid, result, headers=None):
        self.json({"jsonrpc": "2.0", "id": rid, "result": result}, headers=headers)

    def text(self, rid, text):
        self.result(rid, {"content": [{"type": "text", "text": text}]})

    def wait_gone(self, what):
        self.connection.settimeout(None)
        try:
            while self.connection.recv(1024):
                pass
        except OSError:
            pass
        log(what + ": client went away")

    def sse_start(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def event(self, data, eid=None, retry=None):
        out = ""
        if eid:
            out += "id: %s\n" % eid
        if retry is not None:
            out += "retry: %d\n" % retry
        out += "data: %s\n\n" % data
        self.wfile.write(out.encode())
        self.wfile.flush()

    def do_DELETE(self):
        log("DELETE session=%s" % self.headers.get("Mcp-Session-Id", "-"))
        self.reply(200)

    def do_GET(self):
        last = self.headers.get("Last-Event-ID")
        log("GET last-event-id=%s" % (last or "-"))
        if not last or last not in DROPPED:
            self.reply(405, b"")
            return
        rid, when = DROPPED.pop(last)
        log("resumed after %d ms" % int((time.monotonic() - when) * 1000))
        self.sse_start()
        self.event(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {
            "content": [{"type": "text", "text": "resumed"}]}}), eid="e2")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        msg = json.loads(self.rfile.read(n) or b"{}")
        method = msg.get("method", "response")
        sid = self.headers.get("Mcp-Session-Id")
        extra = ""
        if method == "tools/call":
            extra = " region=%s" % self.headers.get("Mcp-Param-Region", "-")
        log("POST %s session=%s version=%s%s" % (method, sid or "-",
                                                  self.headers.get("MCP-Protocol-Version", "-"),
                                                  extra))
        for name, value in self.headers.items():
            if name.lower().startswith("x-test-"):
                log("header %s=[%s]" % (name, value))
        rid = msg.get("id")
        if MODE == "redirect":
            return self.reply(301, b"", "text/plain", headers={
                "Location": "https://user:secretpw@elsewhere.example/mcp\x01x"})
        if MODE == "closed":
            return self.reply(503, b"closed for the night", "text/plain")
        if MODE == "mute":
            self.close_connection = True
            return
        if method == "server/discover":
            return self.discover(rid)
        if method == "initialize":
            with LOCK:
                COUNTER[0] += 1
                new = BAD_SESSION_IDS.get(MODE, "s%d" % COUNTER[0])
                SESSIONS[new] = True
            return self.result(rid, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": True}},
                                     "serverInfo": {"name": "hostile", "version": "0"}},
                               headers={"Mcp-Session-Id": new})
        if MODE not in ("modern", "nultool") and sid is not None and not SESSIONS.get(sid):
            return self.reply(404, b"session not found", "text/plain")
        if rid is None:
            return self.reply(202)
        if method == "tools/call":
            return self.call(rid, msg["params"]["name"], msg["params"].get("arguments") or {}, sid)
        if method == "subscriptions/listen" and MODE == "modern":
            return self.reply(503, b"listens are resting", "text/plain")
        if method == "prompts/list" and MODE == "busylists":
            return self.reply(503, b"lists are resting", "text/plain")
        if method == "tools/list" and MODE == "modern":
            return self.tools(rid)
        if method == "tools/list" and MODE == "nultool":
            return self.result(rid, {"tools": [{"name": n, "inputSchema": {"type": "object"}}
                                               for n in ("nul\u0000x", "echo")]})
        # Other lists empty, but with the array a client may insist on.
        key = {"resources/list": "resources", "prompts/list": "prompts"}.get(method)
        self.result(rid, {key: []} if key else {})

    def tools(self, rid):
        LISTS[0] += 1
        if HANG_LIST[0]:
            HANG_LIST[0] = False
            return self.wait_gone("list")
        region = {"type": "string"}
        if LISTS[0] > 1:
            region["x-mcp-header"] = "Region"
        schema = {"type": "object", "properties": {"region": region}}
        wide = {"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": "Wide"}}}
        self.result(rid, {"tools": [
            {"name": n, "inputSchema": schema} for n in ("regional", "stubborn", "slowfix",
                                                         "slowstubborn")] +
            [{"name": "wide", "inputSchema": wide}]})

    def mismatch(self, rid):
        self.json({"jsonrpc": "2.0", "id": rid, "error": {
            "code": -32020, "message": "Header mismatch: Mcp-Param-Region is required"}}, 400)

    def discover(self, rid):
        if MODE in ("modern", "nultool"):
            return self.result(rid, {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                                     "_meta": {"io.modelcontextprotocol/serverInfo":
                                               {"name": "hostile", "version": "0"}}})
        if MODE == "modern_refuses":
            return self.json({"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": ["2099-01-01"], "requested": "2026-07-28"}}}, 400)
        if MODE == "html400":
            return self.reply(400, b"<html><body>Bad Request</body></html>", "text/html")
        if MODE == "empty404":
            return self.reply(404, b"", "text/plain")
        self.json({"error": "no session"}, 400)

    def reset(self, head):
        """head, then a reset instead of the rest."""
        self.wfile.write(head)
        self.wfile.flush()
        time.sleep(0.2)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def call(self, rid, name, args, sid):
        if MODE == "nultool":
            log("call name=%r" % name)
        if name == "echo":
            return self.text(rid, args.get("text", ""))
        if name == "regional":
            got = self.headers.get("Mcp-Param-Region")
            if got != args.get("region"):
                return self.mismatch(rid)
            return self.text(rid, "region " + got)
        if name == "stubborn":
            return self.mismatch(rid)
        if name == "slowfix":
            HANG_LIST[0] = True
            return self.mismatch(rid)
        if name == "slowstubborn":
            time.sleep(1.0)
            return self.mismatch(rid)
        if name == "end":
            SESSIONS[sid] = False
            return self.reply(404, b"", "text/plain")
        if name == "drop":
            self.sse_start()
            self.event("", eid="e1", retry=300)
            DROPPED["e1"] = (rid, time.monotonic())
            self.event(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                "progressToken": args.get("token", rid), "progress": 1}}), eid="e1")
            log("drop: closing the stream")
            return
        if name == "big":
            return self.text(rid, "x" * (2 << 20))
        if name == "huge":
            return self.text(rid, "x" * (17 << 20))
        if name == "hang":
            log("hang: holding")
            return self.wait_gone("hang")
        if name == "lateheads":
            time.sleep(0.06)
            self.sse_start()
            log("lateheads: headers sent")
            return self.wait_gone("lateheads")
        # Answers carrying the request's id that the client cannot use: each
        # must end the call at once, not at its timeout.
        if name == "badutf8":
            body = b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + \
                b',"result":{"content":[{"type":"text","text":"\xff\xfe"}]}}'
            return self.reply(200, body)
        if name == "badutf8sse":
            self.sse_start()
            self.wfile.write(b'data: {"jsonrpc":"2.0","id":' + json.dumps(rid).encode() +
                             b',"result":{"x":"\xc3"}}\n\n')
            self.wfile.flush()
            return
        if name == "noversion":
            return self.json({"id": rid, "result": {"content": []}})
        if name == "numbertext":
            return self.result(rid, {"content": [{"type": "text", "text": 5}]})
        if name == "rst":
            return self.reset(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                              b"Content-Length: 500\r\n\r\n{\"js")
        if name == "rstsse":
            return self.reset(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                              b"data: {\"jsonrpc\":\"2.0\",\"id\":")
        if name == "mute":
            self.close_connection = True
            return
        if name == "vanish":
            log("vanish: gone")
            sys.stderr.flush()
            os._exit(0)
        if name == "longheader":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 200000 + b"\r\n"
                             b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            self.close_connection = True
            return
        if name == "fakesse":
            body = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {
                "content": [{"type": "text", "text": "plain json"}]}}).encode()
            return self.reply(200, body, "text/event-streamXYZ")
        if name in ("ctrlid", "longid"):
            eid = "a\x01b" if name == "ctrlid" else "I" * 3000
            self.sse_start()
            for step in (1, 2):
                self.event(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                       "params": {"progressToken": args.get("token", rid),
                                                  "progress": step}}), eid=eid, retry=100)
            return
        if name == "wide":
            return self.text(rid, "wide")
        if name == "busy":
            return self.reply(503, b"overloaded, try later", "text/plain")
        if name == "rpc503":
            # The server's own JSON-RPC error, dressed like the one the
            # client makes up for an HTTP failure: passed on as the server's.
            return self.json({"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32603, "message": "busy inside",
                "data": {"httpStatus": 503}}}, 503)
        if name == "cut":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"jsonrpc"')
            self.wfile.flush()
            self.close_connection = True
            return
        self.text(rid, "unknown tool")


srv = Server(("127.0.0.1", 0), Handler)
sys.stdout.write("listening %d\n" % srv.server_address[1])
sys.stdout.flush()
srv.serve_forever()
