// SPDX-License-Identifier: MIT
// The reference of bench_http's 2026-07-28 rate: an echo tool on the official
// TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0, createMcpHandler,
// stateless), behind the few lines that adapt node:http to its web-standard
// handler. Prints "listening PORT".
import { createServer } from "node:http";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { z } from "zod";

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "ts2-http-echo", version: "2.4.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  return server;
});

const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const response = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method, headers,
    body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
  }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
});
http.listen(0, "127.0.0.1", () => process.stdout.write(`listening ${http.address().port}\n`));
process.on("SIGTERM", () => process.exit(0));
