// SPDX-License-Identifier: MIT
// An echo tool on the official TypeScript SDK v1, the reference server of
// bench_stdio's round-trip measurement.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "ts-echo", version: "1.0.0" });
server.registerTool("echo", { inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: "text", text }] }));
await server.connect(new StdioServerTransport());
