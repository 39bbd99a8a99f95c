#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# An introspection endpoint (RFC 7662) that misbehaves on request, for the
# resource server's tests: POST /introspect answers by the token's prefix
#   good-    active, this server's audience, scope mcp:tools, exp in 10 min
#   slow-    the same after 2 s
#   aud-     active, for another audience
#   garbage- 200 with a body that is not JSON
#   err-     HTTP 500
# anything else: active false. A request without the expected HTTP Basic
# credentials (USER and PASSWORD, form-encoded) gets 401. One line per
# request goes to LOG: "introspect TOKEN". Listens on 127.0.0.1; the port
# goes to PORTFILE.
#   introspect_server.py ISSUER AUDIENCE USER PASSWORD LOG PORTFILE
import base64, http.server, json, socketserver, sys, time, urllib.parse

ISS, AUD, USER, PASSWORD, LOG, PORTFILE = sys.argv[1:7]
EXPECTED = "Basic " + base64.b64encode(
    (urllib.parse.quote(USER, safe="") + ":" + urllib.parse.quote(PASSWORD, safe="")).encode()
).decode()


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status, body, kind="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        token = form.get("token", [""])[0]
        with open(LOG, "a") as log:
            log.write("introspect %s hint=%s\n" % (token, form.get("token_type_hint", [""])[0]))
        if self.headers.get("Authorization") != EXPECTED:
            return self.answer(401, b'{"error":"invalid_client"}')
        now = int(time.time())
        good = {"active": True, "sub": "alice", "iss": ISS, "aud": AUD, "scope": "mcp:tools",
                "exp": now + 600, "client_id": "c"}
        if token.startswith("slow-"):
            time.sleep(2)
            return self.answer(200, json.dumps(good).encode())
        if token.startswith("good-"):
            return self.answer(200, json.dumps(good).encode())
        if token.startswith("aud-"):
            good["aud"] = ["https://other.example/mcp"]
            return self.answer(200, json.dumps(good).encode())
        if token.startswith("garbage-"):
            return self.answer(200, b"<html>not json</html>", "text/html")
        if token.startswith("err-"):
            return self.answer(500, b'{"error":"server_error"}')
        return self.answer(200, b'{"active":false}')

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
