// SPDX-License-Identifier: MIT
// The reference of bench_http's 2025-11-25 rate: an echo tool on the official
// TypeScript SDK v1 (1.32.2) over Streamable HTTP, with sessions and JSON
// responses, as its documentation sets one up. Prints "listening PORT".
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const sessions = new Map();

async function newSession() {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  const server = new McpServer({ name: "ts-http-echo", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  await server.connect(transport);
  return transport;
}

const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
  const sid = req.headers["mcp-session-id"];
  let transport = sid ? sessions.get(sid) : undefined;
  if (!transport) {
    if (sid) return res.writeHead(404).end();
    transport = await newSession();
  }
  await transport.handleRequest(req, res, body);
});
http.listen(0, "127.0.0.1", () => process.stdout.write(`listening ${http.address().port}\n`));
process.on("SIGTERM", () => process.exit(0));
