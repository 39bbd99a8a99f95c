// SPDX-License-Identifier: MIT
// A Streamable HTTP server on the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0, createMcpHandler: 2026-07-28
// stateless, a new instance per request) for libmcp's HTTP client. The
// handler is web-standard (Request -> Response); a few lines below adapt
// node:http to it, turning a client that goes away into the request's
// abort and the response stream's cancel, as a Node adapter does.
//
//   node ts2_http_server.mjs          prints "listening PORT" on stdout
//
// Tools: echo {text}; count {n, delay_ms} (progress); sleep {seconds}
// (honours its abort signal); announce {} (tools/list_changed to every
// subscription); region {region, query} whose `region` is marked
// x-mcp-header "Region"; broken {items} whose x-mcp-header sits under
// `items` (a client must leave it out of tools/list).
//
// stderr, "ts2 http: " then: "POST <Mcp-Method> name=<Mcp-Name or -> version=
// <MCP-Protocol-Version> region=<Mcp-Param-Region or ->", "client went away",
// "sleep started", "sleep cancelled: <reason>".
import { createServer } from "node:http";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { z } from "zod";

const say = (m) => process.stderr.write(`ts2 http: ${m}\n`);
const sleep = (ms, signal) => new Promise((resolve) => {
  if (signal?.aborted) return resolve();
  const t = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
});

let handler;
function buildServer() {
  const server = new McpServer({ name: "ts2-http", version: "2.4.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerTool("count", { inputSchema: z.object({ n: z.number().int(), delay_ms: z.number().default(10) }) },
    async ({ n, delay_ms }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        await sleep(delay_ms, ctx.mcpReq.signal);
        if (token !== undefined)
          await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: n } });
      }
      return { content: [{ type: "text", text: `counted to ${n}` }] };
    });
  server.registerTool("sleep", { inputSchema: z.object({ seconds: z.number() }) },
    async ({ seconds }, ctx) => {
      const signal = ctx.mcpReq.signal;
      say("sleep started");
      await sleep(seconds * 1000, signal);
      if (signal.aborted) {
        say(`sleep cancelled: ${signal.reason?.message ?? signal.reason}`);
        return { content: [{ type: "text", text: "cancelled" }] };
      }
      return { content: [{ type: "text", text: `slept ${seconds}` }] };
    });
  server.registerTool("announce", { inputSchema: z.object({}) }, async () => {
    setTimeout(() => handler.notify.toolsChanged(), 20);
    return { content: [{ type: "text", text: "announced" }] };
  });
  server.registerTool("region", {
    inputSchema: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }), query: z.string() }),
  }, async ({ region, query }) => ({ content: [{ type: "text", text: `${query} in ${region}` }] }));
  server.registerTool("broken", {
    inputSchema: z.object({ items: z.array(z.string().meta({ "x-mcp-header": "Item" })) }),
  }, async () => ({ content: [{ type: "text", text: "should not be listed" }] }));
  return server;
}

handler = createMcpHandler(buildServer, { onerror: (e) => say(`error: ${e?.message ?? e}`) });

const http = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const h = req.headers;
  if (req.method === "POST")
    say(`POST ${h["mcp-method"] ?? "-"} name=${h["mcp-name"] ?? "-"} version=${h["mcp-protocol-version"] ?? "-"} region=${h["mcp-param-region"] ?? "-"}`);
  else
    say(`${req.method}`);
  const gone = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) {
      say("client went away");
      gone.abort();
    }
  });
  const headers = new Headers();
  for (const [k, v] of Object.entries(h)) if (typeof v === "string") headers.set(k, v);
  const request = new Request(`http://${h.host}${req.url}`, {
    method: req.method, headers, signal: gone.signal,
    body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
  });
  let response;
  try { response = await handler.fetch(request); } catch (e) { say(`fetch failed: ${e}`); res.writeHead(500).end(); return; }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return res.end();
  const reader = response.body.getReader();
  gone.signal.addEventListener("abort", () => reader.cancel("client went away").catch(() => {}), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch { /* cancelled */ }
  res.end();
});
http.listen(0, "127.0.0.1", () => process.stdout.write(`listening ${http.address().port}\n`));
process.on("SIGTERM", () => process.exit(0));
