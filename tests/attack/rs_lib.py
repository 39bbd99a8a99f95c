# SPDX-License-Identifier: MIT
# Shared pieces of the resource-server attacks: a hostile authorization
# server (a thread; its behaviour is the mutable dict AS.mode), ES256/RS256
# tokens made with the cryptography package, mcp serve started (under
# $MCP_WRAP, e.g. valgrind) and raw HTTP requests to it.
import base64, http.server, json, os, socket, subprocess, sys, threading, time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64(data):
    if isinstance(data, str):
        data = data.encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def ec_key():
    return ec.generate_private_key(ec.SECP256R1())


def ec_jwk(key, kid, **extra):
    n = key.public_key().public_numbers()
    d = {"kty": "EC", "crv": "P-256", "kid": kid, "use": "sig",
         "x": b64(n.x.to_bytes(32, "big")), "y": b64(n.y.to_bytes(32, "big"))}
    d.update(extra)
    return d


def rsa_jwk(key, kid):
    n = key.public_key().public_numbers()
    return {"kty": "RSA", "kid": kid, "n": b64(n.n.to_bytes((n.n.bit_length() + 7) // 8, "big")),
            "e": b64(n.e.to_bytes(3, "big"))}


def sign_raw(key, header_json, claims_json):
    """header_json/claims_json: the exact text (str) to encode."""
    signing = (b64(header_json) + "." + b64(claims_json)).encode()
    if isinstance(key, ec.EllipticCurvePrivateKey):
        r, s = decode_dss_signature(key.sign(signing, ec.ECDSA(hashes.SHA256())))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        sig = key.sign(signing, padding.PKCS1v15(), hashes.SHA256())
    return signing.decode() + "." + b64(sig)


class AS:
    """A hostile authorization server. mode keys:
    meta: dict or bytes for the RFC 8414 document (None: 404)
    jwks: dict or bytes for /jwks.json
    hang: seconds to sleep before answering (any path)
    drip: send the body a byte every drip seconds
    redirect: a Location for every request (302)
    status: force a status"""

    def __init__(self):
        self.mode = {}
        self.log = []
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self):
                m = dict(outer.mode)
                outer.log.append((time.time(), self.path))
                if m.get("hang"):
                    time.sleep(m["hang"])
                if m.get("redirect"):
                    self.send_response(302)
                    self.send_header("Location", m["redirect"])
                    self.end_headers()
                    return
                body, status = None, 404
                if self.path == "/.well-known/oauth-authorization-server":
                    body = m.get("meta")
                elif self.path == "/jwks.json":
                    body = m.get("jwks")
                if body is not None:
                    status = 200
                    if not isinstance(body, (bytes, bytearray)):
                        body = json.dumps(body).encode()
                else:
                    body = b'{"error":"not found"}'
                status = m.get("status", status)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    if not m.get("nolength"):
                        self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if m.get("drip"):
                        for i in range(len(body)):
                            self.wfile.write(body[i:i + 1])
                            self.wfile.flush()
                            time.sleep(m["drip"])
                    else:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def count(self, path):
        return sum(1 for _, p in self.log if p == path)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Serve:
    def __init__(self, mcp, issuer, *extra, port=None, wait=True, env=None):
        self.port = port or free_port()
        self.res = "http://127.0.0.1:%d/mcp" % self.port
        wrap = os.environ.get("MCP_WRAP", "").split()
        self.errpath = "/tmp/rs_attack_serve.%d.err" % self.port
        self.err = open(self.errpath, "w+")
        e = dict(os.environ, MCP_LOG_LEVEL="debug")
        e.update(env or {})
        self.p = subprocess.Popen(wrap + [mcp, "serve", "--http", "127.0.0.1:%d" % self.port,
                                          "--auth-issuer", issuer, "--auth-resource", self.res]
                                  + list(extra), stdout=subprocess.DEVNULL, stderr=self.err, env=e)
        self.started = time.time()
        if wait:
            self.wait_listening()

    def stderr(self):
        with open(self.errpath) as f:
            return f.read()

    def wait_listening(self, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            if "listening on" in self.stderr():
                return True
            if self.p.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def stop(self, sig=15, timeout=30):
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return "hung"


META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'
        + META + '}}').encode()


def raw_request(port, auth_lines, body=CALL, timeout=20):
    """auth_lines: list of raw header lines (bytes or str) to add. Returns
    (status, headers text, body)."""
    lines = [b"POST /mcp HTTP/1.1", ("Host: 127.0.0.1:%d" % port).encode(),
             b"Content-Type: application/json", b"Accept: application/json, text/event-stream",
             b"MCP-Protocol-Version: 2026-07-28", b"Mcp-Method: tools/call", b"Mcp-Name: echo",
             b"Connection: close", ("Content-Length: %d" % len(body)).encode()]
    for a in auth_lines:
        lines.append(a.encode() if isinstance(a, str) else a)
    req = b"\r\n".join(lines) + b"\r\n\r\n" + body
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(req)
    data = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
    except socket.timeout:
        pass
    s.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    first = head.split(b"\r\n", 1)[0].decode(errors="replace")
    try:
        status = int(first.split()[1])
    except Exception:
        status = 0
    return status, head.decode(errors="replace"), rest.decode(errors="replace")


def call(port, token, **kw):
    return raw_request(port, ["Authorization: Bearer " + token], **kw)
