#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Streamable HTTP MCP server that gets cancellation wrong in one way, for
test_check_cancel_http.sh: each MODE is one verdict mcp check-cancel must
reach over HTTP. It prints "listening PORT" (127.0.0.1, a free port). Its
one tool, "work" {steps, delay_ms}, answers on an event stream with
progress.

  sends-cancel           2026-07-28: sends notifications/cancelled for the
                         call on its stream (MUST NOT: only to end a listen)
  dead-after-disconnect  2026-07-28: once a client closed a call's stream,
                         answers nothing ever again
  drop-cancels           2025-11-25 only (sessions, event ids): a dropped
                         stream cancels the call; a resume gets an empty
                         stream (SHOULD NOT)
  never-answers          reads each request and never answers
  garbage                answers every request with bytes that are not JSON
  closes                 starts an event stream and closes the connection
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]
MODERN = MODE not in ("drop-cancels",)
dead = threading.Event()

TOOL = {"name": "work", "description": "Works in steps, reporting progress.",
        "inputSchema": {"type": "object", "properties": {
            "steps": {"type": "integer"}, "delay_ms": {"type": "integer"}}}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def event(self, msg, event_id=None):
        text = (f"id: {event_id}\n" if event_id is not None else "") + "data: " + json.dumps(msg) + "\n\n"
        self.wfile.write(text.encode())
        self.wfile.flush()

    def start_stream(self):
        """An event stream's headers; the connection closes at its end."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def do_GET(self):
        if MODE == "drop-cancels" and self.headers.get("Last-Event-ID"):
            # The call was cancelled by the drop: nothing to replay.
            self.start_stream()
            self.wfile.write(b": nothing to resume\n\n")
            self.wfile.flush()
            return
        self.reply(405)

    def do_DELETE(self):
        self.reply(200)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if MODE == "never-answers":
            time.sleep(30)
            return
        if MODE == "garbage":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "16")
            self.end_headers()
            self.wfile.write(b"\x00not json at all")
            return
        if MODE == "closes":
            self.start_stream()
            self.wfile.write(b"data: {\"jsonrpc\":")
            self.wfile.flush()
            return
        if dead.is_set():
            time.sleep(20)
            self.close_connection = True
            return
        try:
            msg = json.loads(body)
        except ValueError:
            self.reply(400, {"jsonrpc": "2.0", "error": {"code": -32700, "message": "parse error"}})
            return
        method, rid = msg.get("method"), msg.get("id")
        if rid is None or method is None:
            self.reply(202)
            return
        if method == "server/discover":
            if not MODERN:
                self.reply(200, {"jsonrpc": "2.0", "id": rid,
                                 "error": {"code": -32601, "message": "unknown method"}})
                return
            self.reply(200, {"jsonrpc": "2.0", "id": rid, "result": {
                "resultType": "complete", "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "broken", "version": "1"}}})
        elif method == "initialize" and not MODERN:
            self.reply(200, {"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "broken", "version": "1"}}},
                headers=[("Mcp-Session-Id", "broken-session")])
        elif method == "tools/list":
            self.reply(200, {"jsonrpc": "2.0", "id": rid, "result": {"tools": [TOOL]}})
        elif method == "ping":
            self.reply(200, {"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method == "tools/call":
            self.work(rid, msg.get("params") or {})
        else:
            self.reply(200, {"jsonrpc": "2.0", "id": rid,
                             "error": {"code": -32601, "message": "unknown method"}})

    def work(self, rid, params):
        args = params.get("arguments") or {}
        steps, delay = int(args.get("steps", 10)), int(args.get("delay_ms", 50)) / 1000
        token = (params.get("_meta") or {}).get("progressToken")
        self.start_stream()
        ids = iter(range(1, 1 << 30)) if not MODERN else None
        try:
            if MODE == "sends-cancel":
                self.event({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": rid, "reason": "the server gave up"}})
            for i in range(steps):
                if token is not None:
                    self.event({"jsonrpc": "2.0", "method": "notifications/progress",
                                "params": {"progressToken": token, "progress": i + 1, "total": steps}},
                               next(ids) if ids else None)
                time.sleep(delay)
            self.event({"jsonrpc": "2.0", "id": rid,
                        "result": {"content": [{"type": "text", "text": "done"}]}},
                       next(ids) if ids else None)
        except (BrokenPipeError, ConnectionResetError):
            if MODE == "dead-after-disconnect":
                dead.set()


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
