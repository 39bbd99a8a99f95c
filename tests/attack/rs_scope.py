#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# --auth-scope: a token lacking one is 403 insufficient_scope naming every
# scope needed; scopes a challenge cannot carry; a scope claim that is a
# near miss (prefix, case, tab-separated, an array).
#   rs_scope.py BUILD/mcp
import json, os, subprocess, sys, time
sys.path.insert(0, os.path.dirname(__file__))
from rs_lib import *
MCP = sys.argv[1]
k = ec_key(); a = AS()
a.mode = {"meta": {"issuer": a.url, "jwks_uri": a.url + "/jwks.json"}, "jwks": {"keys": [ec_jwk(k, "k1")]}}
srv = Serve(MCP, a.url, "--auth-scope", "mcp:tools", "--auth-scope", "read")
bad = []
def tok(scope):
    now = int(time.time())
    c = {"iss": a.url, "aud": srv.res, "sub": "alice", "client_id": "c1", "iat": now, "exp": now + 600, "jti": os.urandom(4).hex()}
    if scope is not None:
        c["scope"] = scope
    return sign_raw(k, '{"alg":"ES256","typ":"at+jwt","kid":"k1"}', json.dumps(c))
for scope, want in [("mcp:tools read", 200), ("read mcp:tools extra", 200), ("mcp:tools", 403), (None, 403),
                    ("mcp:tool read", 403), ("MCP:TOOLS read", 403), ("mcp:tools\tread", (200, 403)),
                    (["mcp:tools", "read"], 401), ("  mcp:tools   read  ", 200), ("mcp:toolsread", 403)]:
    st, head, body = call(srv.port, tok(scope))
    ch = [l for l in head.split("\r\n") if l.lower().startswith("www-authenticate")]
    ok = st in want if isinstance(want, tuple) else st == want
    print(("ok  " if ok else "BAD ") + "scope %r -> %d %s" % (scope, st, ch[0][:200] if ch else ""))
    if not ok: bad.append(scope)
print("exit", srv.stop())
for weird in ['we"ird', "a\\b", "a b", ""]:
    p = subprocess.run([MCP, "serve", "--http", "127.0.0.1:0", "--auth-issuer", a.url, "--auth-resource",
                        "http://127.0.0.1:1/mcp", "--auth-scope", weird], capture_output=True, text=True, timeout=30)
    print(("ok  " if p.returncode == 2 else "BAD ") + "--auth-scope %r refused: exit %d %s" % (weird, p.returncode, p.stderr.splitlines()[0][:150]))
    if p.returncode != 2: bad.append(weird)
a.stop()
print("FAILURES:", bad or "none"); sys.exit(1 if bad else 0)
