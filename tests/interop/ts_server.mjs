// SPDX-License-Identifier: MIT
// A small server on the official TypeScript SDK v1, for libmcp's client to
// run against. Every event goes to stderr so the C test can assert on it.
//   slow      waits for its abort signal and logs the reason it gets
//   late      ignores the abort and answers anyway, bypassing the SDK's own
//             suppression, the way a misbehaving server would
//   progress  reports `steps` progress notifications, then answers
// and the resources, prompts and completion of ts_features.mjs.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { addFeatures } from "./ts_features.mjs";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const v1 = { ResourceTemplate, completable, SubscribeRequestSchema, UnsubscribeRequestSchema };

const log = (m) => process.stderr.write(`ts-server: ${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const server = new McpServer({ name: "ts-interop-server", version: "1.0.0" });

server.registerTool("slow", { description: "Waits until cancelled (30 s at most)." },
  async (extra) => {
    log(`slow started: request ${extra.requestId}`);
    await new Promise((resolve) => {
      if (extra.signal.aborted) return resolve();
      extra.signal.addEventListener("abort", resolve, { once: true });
      setTimeout(resolve, 30000);
    });
    if (extra.signal.aborted) log(`slow aborted: ${extra.signal.reason}`);
    return { content: [{ type: "text", text: "slow done" }] };
  });

server.registerTool("late", { description: "Answers after 400 ms even if cancelled." },
  async (extra) => {
    await sleep(400);
    await server.server.transport.send({
      jsonrpc: "2.0", id: extra.requestId,
      result: { content: [{ type: "text", text: "late" }] },
    });
    log(`late: answered request ${extra.requestId} (aborted: ${extra.signal.aborted})`);
    return { content: [{ type: "text", text: "late" }] };
  });

server.registerTool("progress", {
  description: "Reports progress `steps` times.",
  inputSchema: { steps: z.number().int().min(1).max(100) },
}, async ({ steps }, extra) => {
  const token = extra._meta?.progressToken;
  for (let i = 1; i <= steps; i++) {
    if (token !== undefined)
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: i, total: steps },
      });
    await sleep(10);
  }
  return { content: [{ type: "text", text: `progressed ${steps}` }] };
});

addFeatures(server, log, v1);
await server.connect(new StdioServerTransport());
log("ready");
