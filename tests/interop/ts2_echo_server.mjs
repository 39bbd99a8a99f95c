// SPDX-License-Identifier: MIT
// An echo tool on the official TypeScript SDK v2 (@modelcontextprotocol/server
// 2.4.0), the reference server of the round-trip benchmark under revision
// 2026-07-28 (ts_echo_server.mjs is the v1, 2025-11-25 counterpart).
// `serveStdio` serves 2026-07-28 to requests carrying the `_meta` envelope and
// the legacy era to a client that opens with `initialize`; it exits on stdin EOF.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "ts2-echo", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  return server;
});
