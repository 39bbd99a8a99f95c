#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A scripted MCP server on stdio whose one tool (any name) needs the user
to visit a page: URL-mode elicitation, for mcp call's integration tests.
The mode, the first argument:

 ask       2025-11-25: the call sends elicitation/create in URL mode
           (elicitationId "el-1") and waits for the answer; then it sends
           notifications/elicitation/complete for "unknown", "el-1" and
           "el-1" again (a client must report the interaction once, and
           only if the user accepted), and answers the call with
           "action: <the user's action>".
 required  2025-11-25: the call fails with URLElicitationRequiredError
           (-32042), data.elicitations naming two pages (one behind a user@
           and a Punycode host, one with escapes in its message) and a form.
 ask2026   2026-07-28: the call is answered with an InputRequiredResult
           carrying the URL-mode elicitation (no elicitationId), and its
           retry with "action: <the action in inputResponses>".
 form      2025-11-25: the call sends a form (elicitation/create) with a
           field of each kind a terminal checks (formats, an integer, an
           enum with enumNames, a titled list), and answers the call with
           "action: <action> content: <content as compact JSON>".
 token     2025-11-25: as form, with one free text field, "Token" (what a
           user pastes: a key, a long token)
 defaults  2025-11-25: as form, with defaults that do not fit their field:
           "Email" (format email, default "not-an-email") and "Count"
           (integer, default "many")

The page's message carries an ESC sequence, to be shown escaped. Every
line received is logged on stderr as "got: <line>".
"""
import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "ask"
MESSAGE = "Sign in to \x1b[31mExample"
URL = "https://auth.example.com/connect?id=el-1"
SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "pages", "version": "0"}}


def send(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def result(i, r):
    send({"jsonrpc": "2.0", "id": i, "result": r})


def text(i, t):
    r = {"content": [{"type": "text", "text": t}]}
    if MODE == "ask2026":
        r.update(resultType="complete", _meta=SERVER_INFO)
    result(i, r)


def complete(eid):
    send({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
          "params": {"elicitationId": eid}})


def lines():
    for line in sys.stdin:
        sys.stderr.write("got: " + line)
        sys.stderr.flush()
        try:
            yield json.loads(line)
        except ValueError:
            continue


def main():
    calls = {}  # the call waiting for the user's answer: its id
    for m in lines():
        method, i = m.get("method"), m.get("id")
        params = m.get("params") or {}
        if method is None and i == "el" and "result" in m and MODE in ("form", "token", "defaults"):
            answer = m["result"]
            text(calls.pop("call"), "action: %s content: %s" % (
                answer.get("action"), json.dumps(answer.get("content"), separators=(",", ":"))))
            continue
        if method is None and i == "el" and "result" in m:  # the answer to our question
            action = m["result"].get("action")
            if action == "accept":
                complete("unknown")
                complete("el-1")
                complete("el-1")
            else:
                complete("el-1")  # not accepted: a client must not report it
            text(calls.pop("call"), "action: %s" % action)
            continue
        if method is None and i == "el":
            text(calls.pop("call"), "refused: %s" % json.dumps(m.get("error")))
            continue
        if i is None or method is None:
            continue
        if method == "server/discover":
            if MODE == "ask2026":
                result(i, {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                           "capabilities": {"tools": {}}, "_meta": SERVER_INFO})
            else:
                send({"jsonrpc": "2.0", "id": i,
                      "error": {"code": -32601, "message": "Method not found"}})
        elif method == "initialize":
            result(i, {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                       "capabilities": {"tools": {}},
                       "serverInfo": {"name": "pages", "version": "0"}})
        elif method == "tools/call" and MODE == "ask":
            calls["call"] = i
            send({"jsonrpc": "2.0", "id": "el", "method": "elicitation/create",
                  "params": {"mode": "url", "elicitationId": "el-1", "url": URL,
                             "message": MESSAGE}})
        elif method == "tools/call" and MODE == "form":
            calls["call"] = i
            send({"jsonrpc": "2.0", "id": "el", "method": "elicitation/create", "params": {
                "mode": "form", "message": "Your details", "requestedSchema": {
                    "type": "object", "required": ["email", "day", "count", "size", "color"],
                    "properties": {
                        "email": {"type": "string", "format": "email", "title": "Email"},
                        "site": {"type": "string", "format": "uri", "title": "Site"},
                        "day": {"type": "string", "format": "date", "title": "Day"},
                        "count": {"type": "integer", "title": "Count"},
                        "size": {"type": "string", "title": "Size", "enum": ["s", "m", "l"],
                                 "enumNames": ["Small", "Medium", "Large"]},
                        "color": {"type": "string", "title": "Color", "oneOf": [
                            {"const": "#f00", "title": "Red"},
                            {"const": "#0f0", "title": "Green"},
                            {"const": "#00f", "title": "Blue"}]}}}}})
        elif method == "tools/call" and MODE == "token":
            calls["call"] = i
            send({"jsonrpc": "2.0", "id": "el", "method": "elicitation/create", "params": {
                "mode": "form", "message": "Your key", "requestedSchema": {
                    "type": "object", "required": ["token"],
                    "properties": {"token": {"type": "string", "title": "Token"}}}}})
        elif method == "tools/call" and MODE == "defaults":
            calls["call"] = i
            send({"jsonrpc": "2.0", "id": "el", "method": "elicitation/create", "params": {
                "mode": "form", "message": "Defaults", "requestedSchema": {
                    "type": "object", "properties": {
                        "email": {"type": "string", "format": "email", "title": "Email",
                                  "default": "not-an-email"},
                        "count": {"type": "integer", "title": "Count", "default": "many"}}}}})
        elif method == "tools/call" and MODE == "required":
            send({"jsonrpc": "2.0", "id": i, "error": {
                "code": -32042, "message": "This request requires more information.",
                "data": {"elicitations": [
                    {"mode": "url", "elicitationId": "r1",
                     "url": "https://files.example.com@xn--exmple-cua.com/connect?e=r1",
                     "message": "Authorize access to your files."},
                    {"mode": "url", "elicitationId": "r2",
                     "url": "http://pay.example.org/checkout",
                     "message": "Pay \x1b]0;PWNED\x07 now"},
                    {"mode": "form", "message": "a form", "requestedSchema": {}}]}}})
        elif method == "tools/call" and MODE == "ask2026":
            answers = params.get("inputResponses")
            if answers:
                text(i, "action: %s" % answers.get("page", {}).get("action"))
            else:
                result(i, {"resultType": "input_required", "inputRequests": {
                    "page": {"method": "elicitation/create",
                             "params": {"mode": "url", "url": URL, "message": MESSAGE}}}})
        else:
            result(i, {})


main()
