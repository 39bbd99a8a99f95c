#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A scripted MCP server on stdio that misbehaves on purpose, for the mcp
command's integration tests. One mode, the first argument:

 2026-07-28 (answers server/discover), for mcp watch:
   noack         never acknowledges subscriptions/listen
   ack_wrongid   acknowledges naming another subscription
   ack_noid      acknowledges without naming the subscription
   listen_err    refuses the listen with a JSON-RPC error (code -32602)
   notif_esc     acknowledges, then sends resources/updated with escapes
                 in its URI
   ack_exit      acknowledges, then exits (a crash loop)
   ack_other     acknowledges tools list changes, whatever was asked for
   unasked       acknowledges the filter asked for, then sends on the
                 subscription what it did not ask for: resources/updated of
                 file:///other, of a URI that is a number, of none,
                 prompts/list_changed; then resources/updated of each URI
                 asked for and tools/list_changed
   stubborn      acknowledges; ignores SIGTERM and the end of its input
                 (logs "hostile_server pid <pid>" first)
 Legacy (2025-06-18, answers initialize; server/discover is -32601):
   error_esc     tools/call fails with a JSON-RPC error full of escapes
   progress_esc  progress with escapes in its message, then a result text
                 with escapes
   list_esc      tools/list with escapes in a tool's name and description
   mime_esc      a tools/call result whose content mimeType has escapes
   banner_esc    a non-JSON line with escapes before answering initialize
   die_on_discover  exits (status 1) on server/discover, as some legacy
                 servers do on an unknown request before initialize
   link_esc      a tools/call result with a resource_link and an embedded
                 resource, escapes in their URIs
   log_esc       logs (notifications/message) at several levels, one with
                 escapes and one whose data is an object, before its result
   chatty        declares every list change and resource subscriptions (as
                 the official everything server does) and, as it does, sends
                 tools/list_changed right after notifications/initialized;
                 then prompts/list_changed, resources/list_changed and, for
                 each resources/subscribe, resources/updated of that URI and
                 of one never subscribed to (file:///other)
   sampling_flood N  a tools/call sends N sampling/createMessage requests
                 at once and, once all are answered, answers the call with
                 "results R errors E"
   subscribe_dies FILE  declares resource subscriptions; the first start
                 (FILE does not exist: it is made) exits (status 1) on
                 resources/subscribe, later ones answer it and send the
                 URI's update
   legacy_crashes FILE  declares tools list changes; counts its starts in
                 FILE: the 5th lives 31 s after notifications/initialized,
                 every other exits 0.2 s after it
   list_flood    declares tools list changes and sends 20,000
                 tools/list_changed right after notifications/initialized
   subscribe_silent  declares resource subscriptions, never answers
                 resources/subscribe
   hang_restart FILE  the first start (FILE does not exist: it is made)
                 declares tools list changes and exits 0.3 s after
                 notifications/initialized; every later start never answers
                 initialize

Lines are written as UTF-8 (C1 and DEL raw, as JSON allows). Every line
received is logged on stderr as "got: <line>".
"""
import json
import os
import signal
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
MODERN = MODE in ("noack", "ack_wrongid", "ack_noid", "listen_err", "notif_esc", "stubborn",
                  "ack_exit", "unasked", "ack_other")
# What a terminal would act on: clear screen, window title (OSC ... BEL),
# colour, CR LF (a forged line), DEL and C1 CSI (U+009B).
NASTY = "\x1b[2J\x1b]0;PWNED\x07\x1b[31mred\r\nforged\x7f\u009b1m"
SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "hostile", "version": "0"}}


def send(obj):
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def result(i, r):
    send({"jsonrpc": "2.0", "id": i, "result": r})


def error(i, code, message):
    send({"jsonrpc": "2.0", "id": i, "error": {"code": code, "message": message}})


def listen(i, params):
    if MODE == "unasked":
        meta = {"io.modelcontextprotocol/subscriptionId": i}
        asked = params.get("notifications") or {}
        send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
              "params": {"notifications": asked, "_meta": meta}})
        for p in ({"uri": "file:///other"}, {"uri": 5}, {}):
            p["_meta"] = meta
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": p})
        send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
              "params": {"_meta": meta}})
        for uri in asked.get("resourceSubscriptions") or []:
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": uri, "_meta": meta}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
              "params": {"_meta": meta}})
        return
    if MODE == "noack":
        return
    if MODE == "listen_err":
        error(i, -32602, "no such subscription " + NASTY)
        return
    meta = {"io.modelcontextprotocol/subscriptionId": i}
    if MODE == "ack_wrongid":
        meta = {"io.modelcontextprotocol/subscriptionId": "someone-else"}
    # What was asked for (ack_other: tools list changes only).
    params = {"notifications": params.get("notifications") or {}}
    if MODE == "ack_other":
        params = {"notifications": {"toolsListChanged": True}}
    if MODE != "ack_noid":
        params["_meta"] = meta
    send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
          "params": params})
    if MODE == "ack_exit":  # a server that dies right after every acknowledgment
        sys.exit(0)
    if MODE == "notif_esc":
        send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
              "params": {"uri": "file:///x" + NASTY, "_meta": meta}})


def tools_call(i, params):
    token = (params.get("_meta") or {}).get("progressToken")
    if MODE == "error_esc":
        error(i, -1, NASTY)
    elif MODE == "progress_esc":
        if token is not None:
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": 1, "total": 2,
                             "message": NASTY}})
        result(i, {"content": [{"type": "text", "text": "payload " + NASTY}]})
    elif MODE == "link_esc":
        result(i, {"content": [
            {"type": "resource_link", "uri": "file:///link" + NASTY, "name": "a link",
             "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "file:///embedded" + NASTY, "text": "x"}}]})
    elif MODE == "log_esc":
        for level, logger, data in (("debug", None, "fine detail"),
                                    ("warning", "disk", "almost full " + NASTY),
                                    ("error", None, {"code": 7, "why": "broken"})):
            p = {"level": level, "data": data}
            if logger:
                p["logger"] = logger
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": p})
        result(i, {"content": [{"type": "text", "text": "ok"}]})
    elif MODE == "mime_esc":
        result(i, {"content": [{"type": "image", "data": "AAAA", "mimeType": "image/" + NASTY}]})
    else:
        result(i, {"content": [{"type": "text", "text": "ok"}]})


def main():
    if MODE in ("hang_restart", "subscribe_dies"):
        first = not os.path.exists(sys.argv[2])
        open(sys.argv[2], "a").close()
    if MODE == "legacy_crashes":
        with open(sys.argv[2], "a") as f:
            f.write("started\n")
        with open(sys.argv[2]) as f:
            start = len(f.readlines())
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stderr.write("hostile_server pid %d\n" % os.getpid())
        sys.stderr.flush()
    flood = {"call": None, "results": 0, "errors": 0}
    for line in sys.stdin:
        if MODE != "sampling_flood":
            sys.stderr.write("got: " + line)
            sys.stderr.flush()
        try:
            m = json.loads(line)
        except ValueError:
            continue
        method, i = m.get("method"), m.get("id")
        params = m.get("params") or {}
        if MODE == "sampling_flood" and method is None and str(i).startswith("q"):
            flood["results" if "result" in m else "errors"] += 1
            if flood["results"] + flood["errors"] == int(sys.argv[2]):
                result(flood["call"], {"content": [{"type": "text", "text": "results %d errors %d" % (
                    flood["results"], flood["errors"])}]})
            continue
        if MODE == "sampling_flood" and method == "tools/call":
            flood["call"] = i
            for k in range(int(sys.argv[2])):
                send({"jsonrpc": "2.0", "id": "q%d" % k, "method": "sampling/createMessage",
                      "params": {"messages": [{"role": "user", "content": {
                          "type": "text", "text": "hi"}}], "maxTokens": 5}})
            continue
        if method == "notifications/initialized" and MODE == "hang_restart":
            time.sleep(0.3)
            sys.exit(0)
        if method == "notifications/initialized" and MODE == "list_flood":
            for _ in range(20000):
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        if method == "notifications/initialized" and MODE == "legacy_crashes":
            time.sleep(31 if start == 5 else 0.2)
            sys.exit(0)
        if method == "notifications/initialized" and MODE == "chatty":
            for what in ("tools", "prompts", "resources"):
                send({"jsonrpc": "2.0", "method": "notifications/%s/list_changed" % what})
        if i is None or method is None:
            continue
        if method == "server/discover":
            if MODE == "die_on_discover":
                sys.exit(1)
            if MODERN:
                result(i, {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                           "capabilities": {"tools": {"listChanged": True},
                                            "resources": {"subscribe": True}},
                           "_meta": SERVER_INFO})
            else:
                error(i, -32601, "Method not found")
        elif method == "initialize" and MODE == "hang_restart" and not first:
            continue
        elif method == "initialize":
            if MODE == "banner_esc":
                send("starting " + NASTY)
            caps = {"tools": {}}
            if MODE in ("hang_restart", "legacy_crashes", "list_flood"):
                caps = {"tools": {"listChanged": True}}
            if MODE in ("subscribe_silent", "subscribe_dies"):
                caps = {"resources": {"subscribe": True}}
            if MODE == "chatty":
                caps = {"tools": {"listChanged": True}, "prompts": {"listChanged": True},
                        "resources": {"listChanged": True, "subscribe": True}}
            result(i, {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                       "capabilities": caps,
                       "serverInfo": {"name": "hostile", "version": "0"}})
        elif method == "subscriptions/listen":
            listen(i, params)
        elif method == "tools/list":
            tools = [{"name": "evil" + NASTY, "description": "says " + NASTY,
                      "inputSchema": {"type": "object"}}] if MODE == "list_esc" else []
            r = {"tools": tools}
            if MODERN:
                r.update(resultType="complete", _meta=SERVER_INFO)
            result(i, r)
        elif method == "tools/call":
            tools_call(i, params)
        elif method == "resources/subscribe" and MODE == "subscribe_silent":
            continue
        elif method == "resources/subscribe" and MODE == "subscribe_dies":
            if first:
                sys.exit(1)
            result(i, {})
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": params.get("uri")}})
        elif method == "resources/subscribe" and MODE == "chatty":
            result(i, {})
            for uri in (params.get("uri"), "file:///other"):
                send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                      "params": {"uri": uri}})
        else:
            result(i, {})
    if MODE == "stubborn":
        while True:
            time.sleep(60)


main()
