#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A hostile authorization server against mcp serve's key fetching: at
# start (huge, slow, redirected, mismatched, off-host documents; an AS
# that never answers, with Ctrl-C), and while serving (rotation with a
# cached token, a flood of unknown kids, the AS gone, SIGTERM during a
# refetch). Prints ok/BAD per case.
#   rs_keys.py BUILD/mcp [CASE...]     ($MCP_WRAP: a checker)
import json, os, signal, sys, time

sys.path.insert(0, os.path.dirname(__file__))
from rs_lib import *

MCP = sys.argv[1]
only = sys.argv[2:]
failures = []
SLOW = 10 if os.environ.get("MCP_WRAP") else 1


def report(name, ok, detail=""):
    print(("ok  " if ok else "BAD ") + name + (": " + detail if detail else ""))
    if not ok:
        failures.append(name)


def fresh():
    a = AS()
    k = ec_key()
    a.mode = {"meta": {"issuer": a.url, "jwks_uri": a.url + "/jwks.json"},
              "jwks": {"keys": [ec_jwk(k, "k1")]}}
    return a, k


def token(a, srv, key, kid, **over):
    now = int(time.time())
    c = {"iss": a.url, "aud": srv.res, "sub": "alice", "client_id": "c1", "iat": now,
         "exp": now + 600, "jti": os.urandom(6).hex()}
    c.update(over)
    h = {"alg": "ES256" if isinstance(key, ec.EllipticCurvePrivateKey) else "RS256", "typ": "at+jwt"}
    if kid is not None:
        h["kid"] = kid
    return sign_raw(key, json.dumps(h), json.dumps(c))


def start_refused(name, mode_update, within, want_in_err=None):
    """The server must refuse to start, within `within` seconds, saying why."""
    if only and name not in only:
        return
    a, k = fresh()
    a.mode.update(mode_update)
    t0 = time.time()
    srv = Serve(MCP, a.url, wait=False)
    try:
        rc = srv.p.wait(within * SLOW)
    except subprocess.TimeoutExpired:
        rc = "still running"
    dt = time.time() - t0
    err = srv.stderr()
    line = [l for l in err.splitlines() if "cannot" in l]
    ok = rc not in (0, "still running") and (not want_in_err or want_in_err in err)
    report(name, ok, "exit %s after %.1f s; %s" % (rc, dt, (line[-1] if line else err[-300:])[:400]))
    srv.stop(9)
    a.stop()


def case(name):
    return not only or name in only


# -- at start -------------------------------------------------------------
start_refused("start: metadata of 10 MB", {"meta": b'{"issuer":"' + b"x" * 10_000_000 + b'"}'}, 15, "larger")
start_refused("start: metadata of 10 MB, no Content-Length",
              {"meta": b'{"issuer":"' + b"x" * 10_000_000 + b'"}', "nolength": True}, 15, "larger")
start_refused("start: key set of 10 MB", {"jwks": b'{"keys":[],"x":"' + b"x" * 10_000_000 + b'"}'}, 15, "larger")
start_refused("start: redirected", {"redirect": "http://127.0.0.1:1/x"}, 15)
start_refused("start: slow drip (a byte per 0.5 s)", {"drip": 0.5}, 30)
start_refused("start: issuer with a trailing slash", {"meta": None}, 15)
if case("start: issuer differs by a slash"):
    a, k = fresh()
    a.mode["meta"] = {"issuer": a.url + "/", "jwks_uri": a.url + "/jwks.json"}
    srv = Serve(MCP, a.url, wait=False)
    rc = srv.p.wait(15 * SLOW)
    report("start: issuer differs by a slash", rc != 0, srv.stderr().strip().splitlines()[-2][:300])
    a.stop()
for uri in ["http://example.com/jwks.json", "file:///etc/passwd", "ftp://127.0.0.1/x",
            "http://127.0.0.1@example.com/jwks.json", "http://localhost.example.com/jwks.json",
            "http://127.0.0.1:1/jwks.json", "HTTP://127.0.0.1:%d/jwks.json", "https://127.0.0.1:%d/jwks.json",
            "http://[::1]:1/jwks.json", "http://127.0.0.1:%d/jwks.json#frag", "gopher://127.0.0.1/"]:
    name = "start: jwks_uri " + uri
    if only and name not in only and "start: jwks_uri" not in only:
        continue
    a, k = fresh()
    a.mode["meta"] = {"issuer": a.url, "jwks_uri": uri.replace("%d", str(a.port))}
    srv = Serve(MCP, a.url, wait=False)
    try:
        rc = srv.p.wait(20 * SLOW)
    except subprocess.TimeoutExpired:
        rc = "still running"
    want_ok = uri.startswith("HTTP://")
    lines = [l for l in srv.stderr().splitlines() if "cannot" in l or "listening" in l]
    report(name, (rc == "still running") == want_ok, "%s; %s" % (rc, (lines[-1] if lines else "")[:300]))
    srv.stop(9)
    a.stop()

if case("start: 65 keys"):
    a, k = fresh()
    a.mode["jwks"] = {"keys": [ec_jwk(ec_key(), "x%d" % i) for i in range(64)] + [ec_jwk(k, "k1")]}
    srv = Serve(MCP, a.url, wait=False)
    rc = srv.p.wait(15 * SLOW)
    report("start: 65 keys refused", rc != 0, srv.stderr().strip().splitlines()[-2][:300])
    a.stop()

if case("64 keys, weird ones, duplicate kid"):
    a, k = fresh()
    r1024 = rsa.generate_private_key(65537, 1024)
    other = ec_key()
    weird = [
        dict(ec_jwk(ec_key(), "ops"), key_ops=["sign"]),
        dict(ec_jwk(ec_key(), "enc"), use="enc"),
        dict(ec_jwk(ec_key(), "alg"), alg="RS256"),
        dict(ec_jwk(ec_key(), "crv"), crv="P-384"),
        dict(ec_jwk(ec_key(), "off"), y=b64(b"\x01" * 32)),
        dict(ec_jwk(ec_key(), "short"), x=b64(b"\x01" * 31)),
        dict(ec_jwk(ec_key(), "numkid"), kid=5),
        rsa_jwk(r1024, "r1024"),
        {"kty": "RSA", "kid": "e1", "n": rsa_jwk(rsa.generate_private_key(65537, 2048), "")["n"], "e": "AQ"},
        {"kty": "RSA", "kid": "ehuge", "n": rsa_jwk(rsa.generate_private_key(65537, 2048), "")["n"], "e": b64(b"\xff" * 9)},
        {"kty": "oct", "kid": "hmac", "k": b64(b"secret")},
        {"kty": "EC", "kid": "nocrv"},
        "not an object", 5, None, [],
        dict(ec_jwk(other, "dup")),  # first of two keys named "dup"
        dict(ec_jwk(k, "dup")),      # the second: the real signer
    ]
    fill = [ec_jwk(ec_key(), "f%d" % i) for i in range(64 - len(weird) - 1)]
    a.mode["jwks"] = {"keys": weird + fill + [ec_jwk(k, "last")]}
    assert len(a.mode["jwks"]["keys"]) == 64
    srv = Serve(MCP, a.url)
    log = srv.stderr()
    report("64 keys with weird ones: started", srv.p.poll() is None,
           [l for l in log.splitlines() if "fetched" in l][-1][:200] if "fetched" in log else log[-300:])
    for kid, key, want in [("last", k, 200), ("ops", k, 401), ("r1024", r1024, 401), ("numkid", k, 401),
                           ("dup", k, 200), (None, k, 200)]:
        st, _, body = call(srv.port, token(a, srv, key, kid))
        report("  token of kid %s -> %d" % (kid, want), st == want, "%d %s" % (st, body[:160].strip()))
    report("  exit", srv.stop() == 0)
    a.stop()

# -- while serving ----------------------------------------------------------
if case("rotation with a cached token"):
    a, k = fresh()
    srv = Serve(MCP, a.url, "--auth-jwks-refetch", "1")
    old = token(a, srv, k, "k1")
    st1 = call(srv.port, old)[0]
    st2 = call(srv.port, old)[0]  # cached now
    k2 = ec_key()
    a.mode["jwks"] = {"keys": [ec_jwk(k2, "k2")]}
    new = token(a, srv, k2, "k2")
    time.sleep(1.1)
    end, st = time.time() + 10 * SLOW, 0
    while time.time() < end and st != 200:
        st = call(srv.port, new)[0]
        time.sleep(0.2)
    st3, _, body = call(srv.port, old)
    report("rotation: the old, cached token refused once the set is replaced",
           (st1, st2, st, st3) == (200, 200, 200, 401), "%s %s" % ((st1, st2, st, st3), body[:150].strip()))
    report("  exit", srv.stop() == 0)
    a.stop()

if case("flood of unknown kids"):
    a, k = fresh()
    srv = Serve(MCP, a.url, "--auth-jwks-refetch", "2")
    base = a.count("/jwks.json")
    t0 = time.time()
    n = 0
    while time.time() - t0 < 6:
        st = call(srv.port, token(a, srv, k, os.urandom(8).hex()))[0]
        n += 1
        if st != 401:
            report("flood: status", False, str(st))
            break
    time.sleep(2.5)
    got = a.count("/jwks.json") - base
    report("flood: %d tokens of random kids in 6 s" % n, 1 <= got <= 5, "%d key-set fetches" % got)
    report("  good token after", call(srv.port, token(a, srv, k, "k1"))[0] == 200)
    report("  exit", srv.stop() == 0)
    a.stop()

if case("AS gone"):
    a, k = fresh()
    srv = Serve(MCP, a.url, "--auth-jwks-refetch", "1")
    good = token(a, srv, k, "k1")
    a.stop()
    for i in range(3):
        call(srv.port, token(a, srv, k, "nope%d" % i))
        time.sleep(1.2)
    st = call(srv.port, good)[0]
    st2 = call(srv.port, token(a, srv, k, "k1"))[0]
    warn = [l for l in srv.stderr().splitlines() if "again" in l]
    report("AS gone: old keys kept", (st, st2) == (200, 200), "%s; %s" % ((st, st2), (warn[-1] if warn else "no warning")[:250]))
    report("  exit", srv.stop() == 0)

if case("SIGTERM during a refetch"):
    a, k = fresh()
    srv = Serve(MCP, a.url, "--auth-jwks-refetch", "1")
    a.mode["hang"] = 60
    time.sleep(1.1)
    call(srv.port, token(a, srv, k, "nope"))
    time.sleep(1.0 * SLOW)  # the job is in its fetch now
    inflight = srv.stderr().count("fetching the key set") == 2 and "fetched again" not in srv.stderr()
    asked = a.count("/.well-known/oauth-authorization-server")
    t0 = time.time()
    rc = srv.stop(signal.SIGTERM, timeout=30 * SLOW)
    dt = time.time() - t0
    report("SIGTERM during a hanging refetch: exit 0 promptly", inflight and asked == 2 and rc == 0 and dt < 3 * SLOW,
           "refetch in flight: %s (metadata asked %d times); exit %s after %.1f s" % (inflight, asked, rc, dt))
    a.mode["hang"] = 0
    a.stop()

if case("start: AS never answers"):
    a, k = fresh()
    a.mode["hang"] = 120
    t0 = time.time()
    srv = Serve(MCP, a.url, wait=False)
    try:
        rc = srv.p.wait(60 * SLOW)
    except subprocess.TimeoutExpired:
        rc = "still running"
    report("start: an AS that never answers: gives up", rc not in (0, "still running"),
           "exit %s after %.1f s; %s" % (rc, time.time() - t0, srv.stderr().strip().splitlines()[-1][:300]))
    srv.stop(9)
    a.stop()

if case("start: Ctrl-C while the AS never answers"):
    a, k = fresh()
    a.mode["hang"] = 120
    srv = Serve(MCP, a.url, wait=False)
    time.sleep(1.0 * SLOW)
    t0 = time.time()
    srv.p.send_signal(signal.SIGINT)
    try:
        rc = srv.p.wait(40 * SLOW)
    except subprocess.TimeoutExpired:
        rc = "still running after 40 s"
    dt = time.time() - t0
    report("start: Ctrl-C during the first fetch ends mcp serve promptly", rc != "still running after 40 s" and dt < 3 * SLOW,
           "exit %s %.1f s after SIGINT; stderr tail: %s" % (rc, dt, " | ".join(srv.stderr().strip().splitlines()[-3:])[:400]))
    srv.stop(9)
    a.stop()

print("FAILURES:", failures if failures else "none")
sys.exit(1 if failures else 0)
