#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Keys and tokens for the resource server's tests, with the openssl command
# for the cryptography (no Python package needed):
#   jwt_tool.py jwks PEM KID              the JWKS of PEM's EC P-256 public key
#   jwt_tool.py sign PEM HEADER CLAIMS    a compact JWS, ES256 (HEADER without alg)
#   jwt_tool.py none HEADER CLAIMS        an unsigned token (alg none)
#   jwt_tool.py hs256 KEYFILE HEADER CLAIMS  HS256 with KEYFILE's bytes as the
#                                         secret (the old attack: a public key
#                                         used as an HMAC key)
import base64, hashlib, hmac, json, re, subprocess, sys


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public_point(pem):
    text = subprocess.run(["openssl", "ec", "-in", pem, "-text", "-noout"],
                          capture_output=True, text=True, check=True).stdout
    hexes = re.search(r"pub:\s*((?:[0-9a-f]{2}:?\s*)+)ASN1", text).group(1)
    point = bytes.fromhex(re.sub(r"[^0-9a-f]", "", hexes))
    assert point[0] == 4 and len(point) == 65
    return point[1:33], point[33:]


def der_to_raw(der):
    # SEQUENCE { INTEGER r, INTEGER s }, each to 32 bytes
    i = 2 + (der[1] & 0x7f if der[1] & 0x80 else 0)
    out = b""
    for _ in range(2):
        assert der[i] == 2
        n = der[i + 1]
        out += der[i + 2:i + 2 + n].lstrip(b"\0").rjust(32, b"\0")
        i += 2 + n
    return out


def main():
    cmd = sys.argv[1]
    if cmd == "jwks":
        x, y = public_point(sys.argv[2])
        key = {"kty": "EC", "crv": "P-256", "kid": sys.argv[3], "use": "sig",
               "x": b64(x), "y": b64(y)}
        print(json.dumps({"keys": [key]}))
        return
    if cmd == "none":
        header = dict(json.loads(sys.argv[2]), alg="none")
        print(b64(json.dumps(header).encode()) + "." + b64(sys.argv[3].encode()) + ".")
        return
    if cmd == "hs256":
        secret = open(sys.argv[2], "rb").read()
        header = dict({"alg": "HS256"}, **json.loads(sys.argv[3]))
        signing = (b64(json.dumps(header).encode()) + "." + b64(sys.argv[4].encode())).encode()
        print(signing.decode() + "." + b64(hmac.new(secret, signing, hashlib.sha256).digest()))
        return
    header = dict({"alg": "ES256"}, **json.loads(sys.argv[3]))
    signing = (b64(json.dumps(header).encode()) + "." + b64(sys.argv[4].encode())).encode()
    der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", sys.argv[2]], input=signing,
                         capture_output=True, check=True).stdout
    print(signing.decode() + "." + b64(der_to_raw(der)))


main()
