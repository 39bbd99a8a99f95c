// SPDX-License-Identifier: MIT
// A Streamable HTTP server on the official TypeScript SDK v1
// (@modelcontextprotocol/sdk 1.32.2, StreamableHTTPServerTransport) under
// 2025-11-25, with sessions and an in-memory event store (so a dropped SSE
// stream can be resumed with Last-Event-ID), for libmcp's HTTP client.
//
//   node ts_http_server.mjs json|sse
//
// json: requests are answered with application/json; sse: with an SSE
// stream. It listens on 127.0.0.1 on a free port and prints "listening
// PORT" on stdout. Tools:
//   echo {text}            text content with `text`
//   count {n, delay_ms}    progress 1..n, then "counted to n"
//   sleep {seconds}        waits, honouring the abort signal
//   drop {}                (sse) closes its own SSE stream after a progress
//                          event, then answers "dropped and resumed" 300 ms
//                          later: the client must resume with Last-Event-ID
//   end_session {}         answers, then ends the session: the next request
//                          carrying its id gets 404
// and the resources, prompts and completion of ts_features.mjs.
//
// stderr, one line each, prefixed "ts http: ": "POST <method> version=<MCP-
// Protocol-Version or -> session=<yes|no>", "GET last-event-id=<id or ->",
// "DELETE session", "cancel received: requestId=<id> reason=<reason>",
// "sleep started", "sleep cancelled: <reason>", "session ended".
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { z } from "zod";
import { addFeatures } from "./ts_features.mjs";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const v1 = { ResourceTemplate, completable, SubscribeRequestSchema, UnsubscribeRequestSchema };

const mode = process.argv[2] === "sse" ? "sse" : "json";
const say = (m) => process.stderr.write(`ts http: ${m}\n`);
const sessions = new Map();

const sleep = (ms, signal) => new Promise((resolve) => {
  if (signal?.aborted) return resolve();
  const t = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
});

function buildServer(getTransport) {
  const server = new McpServer({ name: "ts-http-v1", version: "1.32.2" });
  server.registerTool("echo", { inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("count", { inputSchema: { n: z.number().int(), delay_ms: z.number().int().optional() } },
    async ({ n, delay_ms }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        await sleep(delay_ms ?? 10, extra.signal);
        if (token !== undefined)
          await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: n } });
      }
      return { content: [{ type: "text", text: `counted to ${n}` }] };
    });
  server.registerTool("sleep", { inputSchema: { seconds: z.number() } },
    async ({ seconds }, extra) => {
      say("sleep started");
      await sleep(seconds * 1000, extra.signal);
      if (extra.signal.aborted) {
        say(`sleep cancelled: ${extra.signal.reason?.message ?? extra.signal.reason}`);
        return { content: [{ type: "text", text: "cancelled" }] };
      }
      return { content: [{ type: "text", text: `slept ${seconds}` }] };
    });
  server.registerTool("drop", { inputSchema: {} }, async (_args, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined)
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: 1 } });
    say("dropping the stream");
    extra.closeSSEStream?.();
    await sleep(300);
    return { content: [{ type: "text", text: "dropped and resumed" }] };
  });
  server.registerTool("end_session", { inputSchema: {} }, async () => {
    setTimeout(() => {
      const t = getTransport();
      sessions.delete(t.sessionId);
      t.close();
      say("session ended");
    }, 50);
    return { content: [{ type: "text", text: "ending the session" }] };
  });
  addFeatures(server, say, v1);
  return server;
}

async function newSession() {
  let transport;
  transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: mode === "json",
    eventStore: new InMemoryEventStore(),
    retryInterval: 200,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  const server = buildServer(() => transport);
  await server.connect(transport);
  const inner = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg.method === "notifications/cancelled")
      say(`cancel received: requestId=${JSON.stringify(msg.params?.requestId)} ` +
        `reason=${msg.params?.reason ?? ""}`);
    inner?.(msg, extra);
  };
  return transport;
}

const http = createServer(async (req, res) => {
  const sid = req.headers["mcp-session-id"];
  const version = req.headers["mcp-protocol-version"] ?? "-";
  let body;
  if (req.method === "POST") {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    try { body = JSON.parse(Buffer.concat(chunks).toString("utf8")); } catch { body = undefined; }
    say(`POST ${body?.method ?? (body?.result ? "response" : "?")} version=${version} session=${sid ? "yes" : "no"}`);
  } else if (req.method === "GET") {
    say(`GET last-event-id=${req.headers["last-event-id"] ?? "-"}`);
  } else if (req.method === "DELETE") {
    say("DELETE session");
  }
  let transport = sid ? sessions.get(sid) : undefined;
  if (sid && !transport) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
    return;
  }
  if (!transport && req.method === "POST" && body?.method === "initialize")
    transport = await newSession();
  if (!transport) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" }, id: null }));
    return;
  }
  await transport.handleRequest(req, res, body);
});
http.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${http.address().port}\n`);
});
process.on("SIGTERM", () => process.exit(0));
