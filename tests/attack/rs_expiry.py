#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The token cache must not keep a token alive past what the check allows:
# jwt.c refuses once now >= exp + skew (60 s); the cache answered from it
# while now <= exp + skew, one second more. A token accepted at second S
# with exp = S - 59 (so exp + skew = S + 1) is sent again at S + 1: a fresh
# check refuses it (the same token, never cached, proves it), the cache
# must too.
#   rs_expiry.py BUILD/mcp
import json, os, sys, time

sys.path.insert(0, os.path.dirname(__file__))
from rs_lib import *

MCP = sys.argv[1]
k = ec_key()
a = AS()
a.mode = {"meta": {"issuer": a.url, "jwks_uri": a.url + "/jwks.json"}, "jwks": {"keys": [ec_jwk(k, "k1")]}}
srv = Serve(MCP, a.url)


def tok(exp, sub):
    c = {"iss": a.url, "aud": srv.res, "sub": sub, "client_id": "c1", "iat": exp - 100,
         "exp": exp, "jti": os.urandom(6).hex()}
    return sign_raw(k, '{"alg":"ES256","typ":"at+jwt","kid":"k1"}', json.dumps(c))


bad = []
for attempt in range(3):
    # start just after a second boundary
    while time.time() % 1 > 0.05:
        time.sleep(0.01)
    S = int(time.time())
    cached, fresh = tok(S - 59, "cached"), tok(S - 59, "fresh")
    st1 = call(srv.port, cached)[0]
    if int(time.time()) != S:
        continue
    while int(time.time()) < S + 1:
        time.sleep(0.01)
    st2 = call(srv.port, cached)[0]   # at S + 1 = exp + skew, from the cache
    st3 = call(srv.port, fresh)[0]    # at S + 1, checked afresh
    if int(time.time()) != S + 1:
        continue
    print("accepted at S: %d; at exp+skew: cached %d, fresh %d" % (st1, st2, st3))
    if st1 != 200 or st3 != 401 or st2 != 401:
        bad.append((st1, st2, st3))
    break
srv.stop()
a.stop()
print("FAIL: the cache accepted what the check refuses" if bad else "ok")
sys.exit(1 if bad else 0)
