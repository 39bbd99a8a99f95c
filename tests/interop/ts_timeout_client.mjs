// SPDX-License-Identifier: MIT
// The TypeScript SDK v1 client as `mcp check-cancel --client` drives it:
// it starts the server command it is given and gives up on requests after
// a second, its own way (the SDK's request timeout), by
// MCP_CHECK_CANCEL_SCENARIO: timeout (a tool call), initialize (the
// connect); no tasks (SDK v1 has none to cancel).
//   node ts_timeout_client.mjs SERVER_COMMAND [ARG...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const scenario = process.env.MCP_CHECK_CANCEL_SCENARIO || "timeout";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const client = new Client({ name: "ts-timeout-client", version: "1.0.0" });
client.onerror = () => {};
const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
try {
  await client.connect(transport, { timeout: scenario === "initialize" ? 1000 : 10000 });
  if (scenario === "timeout") {
    try {
      await client.callTool({ name: "slow", arguments: {} }, undefined, { timeout: 1000 });
    } catch {}
    await sleep(1500); // the late answer comes meanwhile
  }
} catch {}
await sleep(300);
await client.close().catch(() => {});
process.exit(0);
