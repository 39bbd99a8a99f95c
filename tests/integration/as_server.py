#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A tiny authorization server for the resource server's tests: serves the
# files under ROOT (GET /a/b is ROOT/a/b, as JSON; a missing file is 404),
# never redirects, and writes one line per request to LOG: "TIME PATH
# STATUS". The port it listens on (127.0.0.1) goes to PORTFILE.
#   as_server.py ROOT LOG PORTFILE
import http.server, os, sys, time

ROOT, LOG, PORTFILE = sys.argv[1:4]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = os.path.normpath(os.path.join(ROOT, self.path.split("?")[0].lstrip("/")))
        status, body = 404, b'{"error":"not found"}'
        if path.startswith(os.path.abspath(ROOT)) and os.path.isfile(path):
            with open(path, "rb") as f:
                status, body = 200, f.read()
        with open(LOG, "a") as log:
            log.write("%.3f %s %d\n" % (time.time(), self.path, status))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
