#!/usr/bin/env python3
"""A hostile MCP resource server + OAuth authorization server (stdlib only),
for test_oauth_hostile.sh.

    oauth_hostile_server.py MODE PORT COUNTS_FILE

Plays one origin http://127.0.0.1:PORT: the MCP endpoint /mcp, Protected
Resource Metadata, RFC 8414 metadata, /authorize, /token, /register, and
misbehaves as MODE says (see MODES below). Every request is counted by
path; the counts (and every Authorization / DPoP header seen) are written
to COUNTS_FILE as JSON when the server is stopped (SIGTERM) and after each
request.
"""
import json
import signal
import socketserver
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

MODE = sys.argv[1]
PORT = int(sys.argv[2])
COUNTS = sys.argv[3]
BASE = "http://127.0.0.1:%d" % PORT
lock = threading.Lock()
counts = {}
seen = {"authorization": [], "dpop_nonce_sent": 0, "bodies": []}
state = {"tokens": 0, "scope_n": 0, "refresh": 0}

SECRET_MARKERS = ["SECRET-CLIENT", "SECRET-CODE", "SECRET-AT", "SECRET-RT"]


def dump():
    with open(COUNTS, "w") as f:
        json.dump({"counts": counts, "seen": seen, "state": state}, f)


def prm():
    return {"resource": BASE + "/mcp", "authorization_servers": [BASE],
            "scopes_supported": ["mcp"]}


def asmeta():
    return {"issuer": BASE, "authorization_endpoint": BASE + "/authorize",
            "token_endpoint": BASE + "/token", "registration_endpoint": BASE + "/register",
            "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
            "scopes_supported": ["mcp", "offline_access"],
            "dpop_signing_alg_values_supported": ["ES256"],
            "authorization_response_iss_parameter_supported": True}


def new_token(extra=None):
    with lock:
        state["tokens"] += 1
        n = state["tokens"]
    t = {"access_token": "SECRET-AT-%d" % n, "token_type": "Bearer", "expires_in": 3600,
         "refresh_token": "SECRET-RT-%d" % n, "scope": "mcp"}
    if extra:
        t.update(extra)
    return t


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    # helpers -------------------------------------------------------------
    def send(self, code, body=b"", ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        if body is not None:
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            try:
                self.wfile.write(body)
            except Exception:
                pass

    def raw(self, data):
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except Exception:
            pass
        self.close_connection = True

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def count(self, key):
        with lock:
            counts[key] = counts.get(key, 0) + 1
            a = self.headers.get("Authorization")
            if a:
                seen["authorization"].append(a[:200])
            dump()
        return counts[key]

    def hang(self, secs=120):
        time.sleep(secs)
        self.close_connection = True

    # MCP -----------------------------------------------------------------
    def mcp_ok(self, req):
        m = req.get("method")
        if "id" not in req:
            return self._202()
        if m == "initialize":
            res = {"protocolVersion": req["params"].get("protocolVersion", "2025-06-18"),
                   "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile", "version": "1"}}
        elif m == "tools/list":
            res = {"tools": [{"name": "test-tool", "inputSchema": {"type": "object"}}]}
        elif m == "tools/call":
            res = {"content": [{"type": "text", "text": "ok"}]}
        else:
            res = {}
        self.send(200, {"jsonrpc": "2.0", "id": req["id"], "result": res})

    def _202(self):
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def challenge(self, code=401, params='', extra=()):
        h = [("WWW-Authenticate", 'Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"%s'
              % (BASE, params))]
        self.send(code, {"error": "unauthorized"}, headers=tuple(h) + tuple(extra))

    # dispatch --------------------------------------------------------------
    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        self.count("GET " + u.path)
        f = getattr(Mode, MODE)
        r = f.get(self, u) if hasattr(f, "get") else None
        if r is not None:
            return
        if u.path == "/mcp":
            return self.send(405, "")
        if u.path.startswith("/.well-known/oauth-protected-resource"):
            return self.send(200, prm())
        if u.path == "/.well-known/oauth-authorization-server":
            return self.send(200, asmeta())
        if u.path.startswith("/.well-known/openid-configuration"):
            return self.send(404, "")
        if u.path == "/authorize":
            q = dict(urllib.parse.parse_qsl(u.query))
            loc = q.get("redirect_uri", "") + "?" + urllib.parse.urlencode(
                {"code": "SECRET-CODE-1", "state": q.get("state", ""), "iss": BASE})
            return self.send(302, "", headers=(("Location", loc),))
        self.send(404, "")

    def do_DELETE(self):
        self.count("DELETE " + self.path)
        self.send(405, "")

    def do_POST(self):
        u = urllib.parse.urlsplit(self.path)
        b = self.body()
        n = self.count("POST " + u.path)
        with lock:
            if len(seen["bodies"]) < 50:
                seen["bodies"].append((u.path, b[:300].decode("latin-1")))
        f = getattr(Mode, MODE)
        if hasattr(f, "post") and f.post(self, u, b, n) is not None:
            return
        if u.path == "/mcp":
            a = self.headers.get("Authorization") or ""
            if not (a.startswith("Bearer SECRET-AT") or a.startswith("DPoP SECRET-AT")):
                return self.challenge()
            return self.mcp_ok(json.loads(b))
        if u.path == "/token":
            return self.send(200, new_token())
        if u.path == "/register":
            return self.send(201, {"client_id": "dcr-client", "client_secret": "SECRET-CLIENT-dcr",
                                   "redirect_uris": ["http://localhost:3000/callback"]})
        self.send(404, "")


def form(b):
    return dict(urllib.parse.parse_qsl(b.decode("latin-1")))


def authed(h):
    a = h.headers.get("Authorization") or ""
    return a.split(" ", 1)[1] if " " in a else None


class Mode:
    class ok:  # a well-behaved server (baseline)
        pass

    class unauth_forever:  # 401 whatever is sent
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp":
                return h.challenge() or True

    class unauth_after_token:  # tokens accepted for initialize only, then 401
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and authed(h) and json.loads(b).get("method") != "initialize":
                return h.challenge(params=', error="invalid_token"') or True

    class scope_forever:  # 403 insufficient_scope with a new scope every time
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and authed(h):
                with lock:
                    state["scope_n"] += 1
                    s = state["scope_n"]
                return h.challenge(403, ', error="insufficient_scope", scope="s%d"' % s) or True

    class scope_same_forever:  # 403 insufficient_scope, same scope every time
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and authed(h):
                return h.challenge(403, ', error="insufficient_scope", scope="mcp admin"') or True

    class scope_forever_tools:  # initialize OK, 403 new scopes only for tools/*
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and authed(h) and json.loads(b).get("method", "").startswith("tools/"):
                with lock:
                    state["scope_n"] += 1
                    s = state["scope_n"]
                return h.challenge(403, ', error="insufficient_scope", scope="s%d"' % s) or True

    class huge_prm:  # 50 MB metadata
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-protected-resource"):
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Content-Length", str(50 << 20))
                h.end_headers()
                chunk = b" " * 65536
                try:
                    for _ in range(800):
                        h.wfile.write(chunk)
                except Exception:
                    pass
                h.close_connection = True
                return True

    class huge_token:  # 20 MB token answer, chunked
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Transfer-Encoding", "chunked")
                h.end_headers()
                chunk = b"[" * 65536
                try:
                    for _ in range(320):
                        h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                except Exception:
                    pass
                h.close_connection = True
                return True

    class huge_register:  # no CIMD: dynamic registration answers 10 MB
        @staticmethod
        def get(h, u):
            if u.path == "/.well-known/oauth-authorization-server":
                m = asmeta()
                return h.send(200, m) or True

        @staticmethod
        def post(h, u, b, n):
            if u.path == "/register":
                big = {"client_id": "x", "pad": "A" * (10 << 20)}
                return h.send(201, big) or True

    class drip_prm:  # metadata one byte per second
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-protected-resource"):
                body = json.dumps(prm()).encode()
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Content-Length", str(len(body)))
                h.end_headers()
                for c in body:
                    try:
                        h.wfile.write(bytes([c]))
                        h.wfile.flush()
                    except Exception:
                        break
                    time.sleep(1)
                return True

    class hang_prm:  # metadata never answered
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-protected-resource"):
                h.hang()
                return True

    class hang_as:  # AS metadata never answered (3 URLs would be tried)
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-authorization-server") or \
                    u.path.startswith("/.well-known/openid-configuration"):
                h.hang()
                return True

    class hang_token:
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                h.hang()
                return True

    class redirect_meta:  # 3xx on every metadata document
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/"):
                return h.send(302, "", headers=(("Location", BASE + "/elsewhere" + u.path),)) or True

    class redirect_token:
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(307, "", headers=(("Location", "http://127.0.0.1:1/steal"),)) or True

    class bad_json_token:
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, b'{"access_token": "abc", "token_type": ') or True

    class wrong_types_token:
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, {"access_token": 12, "token_type": ["Bearer"],
                                    "expires_in": "3600", "refresh_token": {"a": 1},
                                    "scope": 7}) or True

    class deep_json:  # 100000-deep nesting in every JSON document
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/"):
                return h.send(200, b'{"a":' + b"[" * 60000 + b"]" * 60000 + b"}") or True

        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, b'{"a":' + b"[" * 60000 + b"]" * 60000 + b"}") or True

    class nul_token:
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, b'{"access_token":"SECRET-AT-\\u0000x","token_type":"Bearer"}') or True

    class crlf_token:  # header injection through access_token
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, {"access_token": "SECRET-AT-1\r\nX-Injected: yes",
                                    "token_type": "Bearer"}) or True
            if u.path == "/mcp" and h.headers.get("X-Injected"):
                seen["INJECTED"] = True

    class crlf_type:
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, {"access_token": "SECRET-AT-1",
                                    "token_type": "Bearer\r\nX-Injected: yes"}) or True

    class ctl_scope:  # control chars in scope of token answer + in challenge scope
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, new_token({"scope": "mcp\r\nX-Injected: yes\u0007"})) or True
            if u.path == "/mcp" and authed(h) and json.loads(b).get("method") == "tools/call":
                return h.challenge(403, ', error="insufficient_scope", scope="a\\\x01b"') or True

    class huge_www:  # 2000 WWW-Authenticate lines of 4000 bytes each
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp":
                h.send_response(401)
                for i in range(2000):
                    h.send_header("WWW-Authenticate", 'Bearer realm="%s", x%d="1"' % ("r" * 4000, i))
                h.send_header("Content-Length", "0")
                h.end_headers()
                return True

    class dup_params:  # a challenge naming resource_metadata twice, and error twice
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and not authed(h):
                h.send(401, "", headers=(("WWW-Authenticate",
                                          'Bearer resource_metadata="http://127.0.0.1:1/x", '
                                          'resource_metadata="%s/.well-known/oauth-protected-resource/mcp", '
                                          'error="a", error="b"' % BASE),))
                return True

    class ctl_www:  # control bytes, NUL and obs-fold in WWW-Authenticate
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and not authed(h):
                h.raw(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n"
                      b"WWW-Authenticate: Bearer error=\"a\x00b\", scope=\"\x1b[31mred\"\r\n"
                      b" resource_metadata=\"" + BASE.encode() + b"/.well-known/oauth-protected-resource/mcp\"\r\n"
                      b"WWW-Authenticate: Bearer resource_metadata=\"" + BASE.encode() + b"/x\x7f\"\r\n\r\n")
                return True

    class prm_other_origin:  # mix-up: PRM names another resource
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-protected-resource"):
                return h.send(200, {"resource": "https://victim.example/mcp",
                                    "authorization_servers": [BASE]}) or True

    class prm_http_as:  # non-https, non-loopback AS
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-protected-resource"):
                return h.send(200, {"resource": BASE + "/mcp",
                                    "authorization_servers": ["http://as.example.com"]}) or True

    class prm_as_query:  # issuer with query + fragment
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-protected-resource"):
                return h.send(200, {"resource": BASE + "/mcp",
                                    "authorization_servers": [BASE + "/?x=1#f"]}) or True

    class as_other_issuer:
        @staticmethod
        def get(h, u):
            if u.path == "/.well-known/oauth-authorization-server":
                m = asmeta()
                m["issuer"] = "https://evil.example"
                return h.send(200, m) or True

    class wrong_state:
        @staticmethod
        def get(h, u):
            if u.path == "/authorize":
                q = dict(urllib.parse.parse_qsl(u.query))
                loc = q["redirect_uri"] + "?code=SECRET-CODE-1&state=WRONG&iss=" + urllib.parse.quote(BASE)
                return h.send(302, "", headers=(("Location", loc),)) or True

    class missing_iss:
        @staticmethod
        def get(h, u):
            if u.path == "/authorize":
                q = dict(urllib.parse.parse_qsl(u.query))
                loc = q["redirect_uri"] + "?code=SECRET-CODE-1&state=" + q["state"]
                return h.send(302, "", headers=(("Location", loc),)) or True

    class wrong_iss:
        @staticmethod
        def get(h, u):
            if u.path == "/authorize":
                q = dict(urllib.parse.parse_qsl(u.query))
                loc = q["redirect_uri"] + "?code=SECRET-CODE-1&state=" + q["state"] + "&iss=https%3A%2F%2Fevil"
                return h.send(302, "", headers=(("Location", loc),)) or True

    class dup_state:
        @staticmethod
        def get(h, u):
            if u.path == "/authorize":
                q = dict(urllib.parse.parse_qsl(u.query))
                loc = (q["redirect_uri"] + "?code=SECRET-CODE-1&state=" + q["state"] + "&iss=" +
                       urllib.parse.quote(BASE, safe="") + "&code=SECRET-CODE-2")
                return h.send(302, "", headers=(("Location", loc),)) or True

    class error_redirect:  # authorization error with control characters
        @staticmethod
        def get(h, u):
            if u.path == "/authorize":
                q = dict(urllib.parse.parse_qsl(u.query))
                loc = (q["redirect_uri"] + "?error=access_denied%0d%0aX&error_description=%1b%5b31mRED%07&state="
                       + q["state"] + "&iss=" + urllib.parse.quote(BASE, safe=""))
                return h.send(302, "", headers=(("Location", loc),)) or True

    class ctl_location:  # CRLF-ish bytes in Location
        @staticmethod
        def get(h, u):
            if u.path == "/authorize":
                q = dict(urllib.parse.parse_qsl(u.query))
                h.raw(b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\nLocation: " + q["redirect_uri"].encode() +
                      b"?code=SECRET-CODE-1\x01\x1b&state=" + q["state"].encode() + b"&iss=" +
                      urllib.parse.quote(BASE, safe="").encode() + b"\r\n\r\n")
                return True

    class expires0:  # every token expires at once; refresh rotates
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                with lock:
                    state["refresh"] += form(b).get("grant_type") == "refresh_token"
                return h.send(200, new_token({"expires_in": 0})) or True

    class expires1:
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                with lock:
                    state["refresh"] += form(b).get("grant_type") == "refresh_token"
                return h.send(200, new_token({"expires_in": 1})) or True

    class refresh_invalid_grant:  # 401 after the first token; refresh says invalid_grant
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token" and form(b).get("grant_type") == "refresh_token":
                return h.send(400, {"error": "invalid_grant"}) or True
            if u.path == "/mcp" and authed(h) == "SECRET-AT-1" and json.loads(b).get("method") == "tools/list":
                return h.challenge(params=', error="invalid_token"') or True

    class refresh_hang:  # expires_in 1 + a refresh endpoint that hangs
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                if form(b).get("grant_type") == "refresh_token":
                    h.hang()
                    return True
                return h.send(200, new_token({"expires_in": 1})) or True

    class invalid_client:
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(401, {"error": "invalid_client",
                                    "error_description": "\x1b]0;pwned\x07 nope"}) or True

    class invalid_client_dcr:  # no CIMD, DCR every time, invalid_client every time
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(401, {"error": "invalid_client"}) or True

    class dpop_nonce_forever:  # the token endpoint wants a new nonce every time, so does the RS
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                if True:
                    return h.send(400, {"error": "use_dpop_nonce"},
                                  headers=(("DPoP-Nonce", "n%d" % n),)) or True
            if u.path == "/mcp" and authed(h):
                return h.send(401, "", headers=(("WWW-Authenticate", 'DPoP error="use_dpop_nonce"'),
                                                ("DPoP-Nonce", "rs%d" % n))) or True

    class dpop_rs_nonce_forever:  # tokens DPoP-bound; RS asks a fresh nonce forever
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, new_token({"token_type": "DPoP"})) or True
            if u.path == "/mcp" and authed(h):
                return h.send(401, "", headers=(("WWW-Authenticate", 'DPoP error="use_dpop_nonce"'),
                                                ("DPoP-Nonce", "rs%d" % n))) or True

    class dpop_huge_nonce:  # 100 KB nonce
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                if "nonce" not in (h.headers.get("DPoP") or "") and n == 1:
                    return h.send(400, {"error": "use_dpop_nonce"},
                                  headers=(("DPoP-Nonce", "N" * 100000),)) or True
                return h.send(200, new_token({"token_type": "DPoP"})) or True
            if u.path == "/mcp" and authed(h) and n < 6:
                return h.send(401, "", headers=(("WWW-Authenticate", 'DPoP error="use_dpop_nonce"'),
                                                ("DPoP-Nonce", "M" * 100000))) or True

    class status_400_challenge:  # 400 with a challenge forever
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp":
                return h.send(400, "", headers=(("WWW-Authenticate", 'Bearer error="invalid_request"'),)) or True

    class prm_404_legacy:  # no PRM: legacy fallback with spoofed issuer + endpoints elsewhere
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-protected-resource"):
                return h.send(404, "") or True
            if u.path == "/.well-known/oauth-authorization-server":
                m = asmeta()
                m["issuer"] = "https://real-as.example"
                return h.send(200, m) or True

    class slow_each:  # every OAuth exchange answers, correctly, after 12 s
        @staticmethod
        def get(h, u):
            if u.path != "/mcp":
                time.sleep(12)

        @staticmethod
        def post(h, u, b, n):
            if u.path != "/mcp":
                time.sleep(12)

    class late_hang:  # initialize fine; tools/list 401; then refresh and discovery hang
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/") and state["tokens"] >= 1:
                h.hang()
                return True

        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token" and state["tokens"] >= 1:
                h.hang()
                return True
            if u.path == "/mcp" and authed(h) and json.loads(b).get("method") == "tools/list":
                return h.challenge(params=', error="invalid_token"') or True

    class refresh_hang2:  # expires_in 1, tools/list slow (2 s): tools/call refreshes; refresh hangs
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                if form(b).get("grant_type") == "refresh_token":
                    h.hang()
                    return True
                return h.send(200, new_token({"expires_in": 1})) or True
            if u.path == "/mcp" and json.loads(b).get("method") == "tools/list":
                time.sleep(2)

    class rotation_strict:  # expires_in 0; each refresh must present the newest refresh token
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                f = form(b)
                if f.get("grant_type") == "refresh_token":
                    with lock:
                        state["refresh"] += 1
                        ok = f.get("refresh_token") == "SECRET-RT-%d" % state["tokens"]
                    if not ok:
                        seen["STALE_RT"] = f.get("refresh_token")
                        return h.send(400, {"error": "invalid_grant"}) or True
                return h.send(200, new_token({"expires_in": 0})) or True

    class ctl_www2:  # ESC / BEL / DEL in a challenge (no NUL): error and scope shown?
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and authed(h) and json.loads(b).get("method") == "tools/list":
                h.raw(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n"
                      b"WWW-Authenticate: Bearer error=\"bad\x1b]0;pwned\x07\", scope=\"\x1b[31mred\x7f\"\r\n\r\n")
                return True

    class ctl_www3:  # insufficient_scope with an ESC in the scope: shown in the log?
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and authed(h) and json.loads(b).get("method") == "tools/list":
                h.raw(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n"
                      b"WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"mcp\x1b]0;pwned\x07\"\r\n\r\n")
                return True

    class register_refused_ctl:  # registration refused with a body carrying ESC sequences
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/register":
                return h.send(400, b"\x1b]0;pwned\x07\x1b[2J refused \r\nX: y") or True

    class dpop_rs_huge_nonce:  # DPoP-bound token; the RS wants a 100 KB nonce
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, new_token({"token_type": "DPoP"})) or True
            if u.path == "/mcp" and authed(h):
                return h.send(401, "", headers=(("WWW-Authenticate", 'DPoP error="use_dpop_nonce"'),
                                                ("DPoP-Nonce", "M" * 100000))) or True

    class legacy_steal:  # no PRM; the origin's metadata claims another issuer (client_issuer's)
        @staticmethod
        def get(h, u):
            if u.path.startswith("/.well-known/oauth-protected-resource"):
                return h.send(404, "") or True
            if u.path == "/.well-known/oauth-authorization-server":
                m = asmeta()
                m["issuer"] = "https://real-as.example"
                return h.send(200, m) or True
            if u.path == "/authorize":
                q = dict(urllib.parse.parse_qsl(u.query))
                loc = q["redirect_uri"] + "?" + urllib.parse.urlencode(
                    {"code": "SECRET-CODE-1", "state": q["state"], "iss": "https://real-as.example"})
                return h.send(302, "", headers=(("Location", loc),)) or True

        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                f = form(b)
                if "client_secret" in f or h.headers.get("Authorization", "").startswith("Basic"):
                    seen["STOLEN"] = [f.get("client_secret"), h.headers.get("Authorization")]

    class rm_elsewhere:  # resource_metadata on a non-loopback http host and a file: URL
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/mcp" and not authed(h):
                h.send(401, "", headers=(("WWW-Authenticate",
                                          'Bearer resource_metadata="file:///etc/passwd"'),))
                return True

    class expires_weird:  # expires_in 1e10, then a float, then negative
        @staticmethod
        def post(h, u, b, n):
            if u.path == "/token":
                return h.send(200, new_token({"expires_in": 9999999999.9})) or True


def main():
    class S(socketserver.ThreadingMixIn, socketserver.TCPServer):
        daemon_threads = True
        allow_reuse_address = True

    srv = S(("127.0.0.1", PORT), H)

    def stop(*_):
        with lock:
            dump()
        threading.Thread(target=srv.shutdown).start()

    signal.signal(signal.SIGTERM, stop)
    dump()
    srv.serve_forever()


if __name__ == "__main__":
    main()
