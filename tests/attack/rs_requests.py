#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Hostile requests to mcp serve --http as an OAuth resource server whose
# key set is fetched from a (here well-behaved) AS: each must get its
# status, and a good token must still be served after every one.
#   rs_requests.py BUILD/mcp     ($MCP_WRAP="valgrind ..." to run it under a checker)
import json, os, sys, time

sys.path.insert(0, os.path.dirname(__file__))
from rs_lib import *

MCP = sys.argv[1]
k1, k2 = ec_key(), ec_key()
as_ = AS()
as_.mode = {"meta": {"issuer": as_.url, "jwks_uri": as_.url + "/jwks.json"},
            "jwks": {"keys": [ec_jwk(k1, "k1")]}}
srv = Serve(MCP, as_.url, "--auth-jwks-refetch", "2")
assert srv.p.poll() is None, srv.stderr()
RES, PORT = srv.res, srv.port
now = int(time.time())


def claims(**over):
    c = {"iss": as_.url, "aud": RES, "sub": "alice", "client_id": "c1", "iat": now,
         "exp": now + 600, "jti": os.urandom(6).hex(), "scope": "mcp:tools"}
    c.update(over)
    return json.dumps(c)


H = '{"alg":"ES256","typ":"at+jwt","kid":"k1"}'
GOOD = sign_raw(k1, H, claims())
failures = []


def expect(name, got, want, hdr=""):
    ok = got in want if isinstance(want, tuple) else got == want
    print(("ok  " if ok else "BAD ") + "%-55s %s%s" % (name, got, "" if ok else " (want %s)" % (want,)))
    if not ok:
        failures.append(name)
    st, _, body = call(PORT, GOOD)
    if st != 200:
        print("BAD the good token after %s: %s %s" % (name, st, body[:200]))
        failures.append("good after " + name)


def case(name, lines, want):
    st, head, body = raw_request(PORT, lines)
    expect(name, st, want)
    return st, head, body


st, head, body = call(PORT, GOOD)
assert st == 200, (st, body)
case("no Authorization", [], 401)
case("Basic", ["Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l"], 401)
case("lowercase bearer", ["Authorization: bearer " + GOOD], 200)
case("BEARER", ["Authorization: BEARER " + GOOD], 200)
case("Bearer + 50 spaces", ["Authorization: Bearer" + " " * 50 + GOOD], 200)
case("trailing spaces", ["Authorization: Bearer " + GOOD + "   "], 200)
case("trailing tab", ["Authorization: Bearer " + GOOD + "\t"], 200)
case("Bearer<TAB>token", ["Authorization: Bearer\t" + GOOD], (400, 401))
case("Bearer only", ["Authorization: Bearer"], (400, 401))
case("Bearer + spaces only", ["Authorization: Bearer    "], (400, 401))
case("two tokens", ["Authorization: Bearer " + GOOD + " " + GOOD], 400)
case("two Authorization headers (good, bad)", ["Authorization: Bearer " + GOOD, "Authorization: Bearer x.y.z"], 400)
case("two Authorization headers (same)", ["Authorization: Bearer " + GOOD, "Authorization: Bearer " + GOOD], 400)
case("obs-fold continuation", ["Authorization: Bearer", " " + GOOD], (400, 401))
case("bare LF inside", [b"Authorization: Bearer " + GOOD[:20].encode() + b"\n" + GOOD[20:].encode()], (400, 401))
case("bare CR inside", [b"Authorization: Bearer " + GOOD[:20].encode() + b"\r" + GOOD[20:].encode()], (400, 401))
case("NUL inside", [b"Authorization: Bearer " + GOOD[:20].encode() + b"\0" + GOOD[20:].encode()], (400, 401))
case("8 KiB header", ["Authorization: Bearer " + "a" * 8192], (400, 401, 431))
case("token 16 KiB + 1", ["Authorization: Bearer " + "a" * 16385], (400, 401, 431))
big = sign_raw(k1, H, claims(pad="x" * 4000))
st, head, body = case("a valid 5.5 KiB token", ["Authorization: Bearer " + big], (200, 431))
if st == 431:
    print("     note: a valid token of %d bytes is refused 431 (header cap), challenge: %s" %
          (len(big), "WWW-Authenticate" in head))
# token forms
parts = GOOD.split(".")
case("padded base64url sig", ["Authorization: Bearer " + GOOD + "=="], 401)
last = parts[2][-1]
alt = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
# 64-byte sig: 86 chars, the last char holds 2 bits + 4 unused: flip an unused bit
nc = alt[alt.index(last) ^ 1]
case("non-canonical base64url sig", ["Authorization: Bearer " + ".".join(parts[:2] + [parts[2][:-1] + nc])], 401)
case("four parts", ["Authorization: Bearer " + GOOD + ".AAAA"], 401)
case("empty sig", ["Authorization: Bearer " + parts[0] + "." + parts[1] + "."], 401)
case("dup alg in header (ES256 then none)",
     ["Authorization: Bearer " + sign_raw(k1, '{"alg":"ES256","alg":"none","typ":"at+jwt","kid":"k1"}', claims())], 401)
case("dup kid in header",
     ["Authorization: Bearer " + sign_raw(k1, '{"alg":"ES256","typ":"at+jwt","kid":"k1","kid":"zz"}', claims())], (200, 401))
dupsub = claims()[:-1] + ',"sub":"mallory"}'
st, _, _ = case("dup sub in claims", ["Authorization: Bearer " + sign_raw(k1, H, dupsub)], (200, 401))
case("crit header", ["Authorization: Bearer " + sign_raw(k1, '{"alg":"ES256","typ":"at+jwt","kid":"k1","crit":["exp"],"exp":1}', claims())], 401)
case("jwk in header (embedded key)", ["Authorization: Bearer " + sign_raw(k2, '{"alg":"ES256","typ":"at+jwt","jwk":%s}' % json.dumps(ec_jwk(k2, "x")), claims())], 401)
case("no kid, signed by k2", ["Authorization: Bearer " + sign_raw(k2, '{"alg":"ES256","typ":"at+jwt"}', claims())], 401)
case("no kid, signed by k1", ["Authorization: Bearer " + sign_raw(k1, '{"alg":"ES256","typ":"at+jwt"}', claims())], 200)
case("alg none", ["Authorization: Bearer " + b64('{"alg":"none","typ":"at+jwt","kid":"k1"}') + "." + b64(claims()) + "."], 401)
case("alg RS256 with an EC kid", ["Authorization: Bearer " + b64('{"alg":"RS256","typ":"at+jwt","kid":"k1"}') + "." + b64(claims()) + "." + parts[2]], 401)
case("typ JWT", ["Authorization: Bearer " + sign_raw(k1, '{"alg":"ES256","typ":"JWT","kid":"k1"}', claims())], 401)
deep = "[" * 5000 + "]" * 5000
case("claims nested 5000 deep", ["Authorization: Bearer " + sign_raw(k1, H, claims()[:-1] + ',"x":' + "[" * 1500 + "]" * 1500 + "}")], (401, 431, 200))
case("header nested deep", ["Authorization: Bearer " + sign_raw(k1, '{"alg":"ES256","typ":"at+jwt","kid":"k1","x":' + "[" * 1500 + "]" * 1500 + "}", claims())], (401, 431, 200))
for name, val in [("float", now + 600.5), ("string", str(now + 600)), ("1e400", None), ("9e18", 9e18),
                  ("-1", -1), ("1e300", 1e300), ("true", True), ("null", None)]:
    if name == "1e400":
        c = claims()[:-1] + ',"exp":1e400}'
        c = c.replace('"exp": %d,' % (now + 600), "")
        c = json.dumps({k: v for k, v in json.loads(claims()).items() if k != "exp"})[:-1] + ',"exp":1e400}'
    else:
        c = claims(exp=val)
    want = 200 if name in ("float", "9e18", "1e300") else 401
    case("exp " + name, ["Authorization: Bearer " + sign_raw(k1, H, c)], want)
case("exp in the past by 61 s", ["Authorization: Bearer " + sign_raw(k1, H, claims(exp=now - 61, iat=now - 700))], 401)
case("nbf in the future", ["Authorization: Bearer " + sign_raw(k1, H, claims(nbf=now + 3600))], 401)
case("iat in the future", ["Authorization: Bearer " + sign_raw(k1, H, claims(iat=now + 3600))], 401)
case("aud of 300 others + ours", ["Authorization: Bearer " + sign_raw(k1, H, claims(aud=["x%d" % i for i in range(300)] + [RES]))], (200, 431))
case("aud of 300 others", ["Authorization: Bearer " + sign_raw(k1, H, claims(aud=["x%d" % i for i in range(300)]))], (401, 431))
case("aud our URL with a slash", ["Authorization: Bearer " + sign_raw(k1, H, claims(aud=RES + "/"))], 401)
case("iss with a slash", ["Authorization: Bearer " + sign_raw(k1, H, claims(iss=as_.url + "/"))], 401)
case("sub missing", ["Authorization: Bearer " + sign_raw(k1, H, json.dumps({k: v for k, v in json.loads(claims()).items() if k != "sub"}))], 401)
case("sub with NUL", ["Authorization: Bearer " + sign_raw(k1, H, claims(sub="al\u0000ice"))], 401)
case("sub a number", ["Authorization: Bearer " + sign_raw(k1, H, claims(sub=5))], 401)
case("scope missing", ["Authorization: Bearer " + sign_raw(k1, H, json.dumps({k: v for k, v in json.loads(claims()).items() if k != "scope"}))], 200)
case("claims an array", ["Authorization: Bearer " + sign_raw(k1, H, "[1]")], 401)
case("claims invalid UTF-8", ["Authorization: Bearer " + b64('{"alg":"ES256","typ":"at+jwt","kid":"k1"}') + "." + b64(b'\xff\xfe') + "." + parts[2]], 401)
# an unknown kid must not break anything either
case("unknown kid", ["Authorization: Bearer " + sign_raw(k2, '{"alg":"ES256","typ":"at+jwt","kid":"nope"}', claims())], 401)
st, head, body = raw_request(PORT, ["Authorization: Bearer x.y.z"])
print("     the challenge of a bad token: " + [l for l in head.split("\r\n") if l.lower().startswith("www-authenticate")][0])
st, head, body = raw_request(PORT, [])
print("     the challenge without a token: " + [l for l in head.split("\r\n") if l.lower().startswith("www-authenticate")][0])
rc = srv.stop()
print("mcp serve ended:", rc)
if rc != 0:
    failures.append("exit %s" % rc)
    print(srv.stderr()[-3000:])
as_.stop()
print("FAILURES:", failures if failures else "none")
sys.exit(1 if failures else 0)
