// SPDX-License-Identifier: MIT
// The TypeScript SDK v2 client (@modelcontextprotocol/client, pinned to
// 2026-07-28) as `mcp check-cancel --client --protocol 2026-07-28` drives
// it: it starts the server command it is given and gives up on a tool call
// after a second (the SDK's request timeout), then waits for the late
// answer. It probes on the session process itself (a subclass of the
// transport: the SDK's base class would start a second copy of the server
// for the probe, which the checker's relay does not expect). No tasks.
//   node ts2_timeout_client.mjs SERVER_COMMAND [ARG...]
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [command, ...args] = process.argv.slice(2);
const scenario = process.env.MCP_CHECK_CANCEL_SCENARIO || "timeout";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
class InPlaceStdioClientTransport extends StdioClientTransport {}
const transport = new InPlaceStdioClientTransport({ command, args, stderr: "ignore" });
const client = new Client({ name: "ts2-timeout-client", version: "1.0.0" }, {
  versionNegotiation: { mode: { pin: "2026-07-28" } },
});
client.onerror = () => {};
try {
  await client.connect(transport, { timeout: 10000 });
  if (scenario === "timeout") {
    try {
      await client.callTool({ name: "slow", arguments: {} }, { timeout: 1000 });
    } catch {}
    await sleep(1500); // the late answer comes meanwhile
  }
} catch {}
await sleep(300);
await client.close().catch(() => {});
process.exit(0);
