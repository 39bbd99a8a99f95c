#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A 2025 Streamable HTTP server that never settles, for test_proxy_url.sh:
initialize is answered (with a session id), GET gets 405, and every other
POST (a tools/call, a notification, a posted cancel) and DELETE is held
open unanswered until the client goes away. Prints "listening PORT" on
stdout, one line per request on stderr ("held POST notifications/cancelled").
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

stop = threading.Event()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def hold(self, what):
        print(f"held {what}", file=sys.stderr, flush=True)
        stop.wait(60)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        msg = json.loads(body)
        if msg.get("method") == "initialize":
            out = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {
                "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "stuck", "version": "1"}}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Mcp-Session-Id", "stuck-session")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        self.hold(f"POST {msg.get('method', 'a response')}")

    def do_GET(self):
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self):
        self.hold("DELETE")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"listening {server.server_address[1]}", flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
