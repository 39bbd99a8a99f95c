// SPDX-License-Identifier: MIT
// The official TypeScript SDK v1 client spawning `mcp proxy --url` (its
// StdioClientTransport, as a client that only starts processes does) in
// front of `mcp serve --http`: a call answered with its progress, an abort
// that reaches the server through the proxy (its log says so), and the
// connection usable after. Usage: node ts_proxy_client.mjs MCP URL SERVER_LOG
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [mcp, url, serverLogPath] = process.argv.slice(2);
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? "ok" : "not ok"} - ${what}`);
  if (!ok) failures++;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (pred, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (pred()) return true;
  return pred();
};
const serverLog = () => readFileSync(serverLogPath, "latin1");

const transport = new StdioClientTransport({ command: mcp, args: ["proxy", "--url", url], stderr: "pipe" });
let proxyErr = "";
transport.stderr.on("data", (d) => { proxyErr += d.toString(); });
const clientErrors = [];
const client = new Client({ name: "ts-proxy-client", version: "1.0.0" });
client.onerror = (e) => clientErrors.push(String(e));
await client.connect(transport);
check(client.getServerVersion()?.name === "mcp serve", "connected through the proxy to mcp serve");

// 1. A call answered, its progress carried.
const seen = [];
const r1 = await client.callTool({ name: "count", arguments: { n: 4, delay_ms: 30 } }, undefined,
  { onprogress: (p) => seen.push(p.progress) });
check(r1.content?.[0]?.text === "counted to 4", "count answers through the proxy");
// SDK v1 may handle a last progress that shares a read with the response
// after it (see ts_client.mjs): 1..4 or 1..3.
check(["1,2,3,4", "1,2,3"].includes(seen.join(",")), `progress in order (${seen.join(",")})`);

// 2. An abort once the server runs the call (its first progress): the SDK
// sends notifications/cancelled on the proxy's stdin, the proxy posts it
// (2025), the server's handler stops.
const before = serverLog().split("count: cancelled at step").length;
const ac = new AbortController();
let progressed = false;
const aborted = client.callTool({ name: "count", arguments: { n: 100000, delay_ms: 50 } }, undefined,
  { signal: ac.signal, onprogress: () => { progressed = true; } }).then(() => false, () => true);
check(await waitFor(() => progressed, 10000), "the long call's progress arrives");
ac.abort("aborted through the proxy");
check(await aborted, "the aborted call rejects in the TS client");
check(await waitFor(() => serverLog().includes('reason="aborted through the proxy"'), 5000),
  "the server received the cancel with the SDK's reason");
check(await waitFor(() => serverLog().split("count: cancelled at step").length === before + 1, 5000),
  "the server's handler stopped");

// 3. Still usable.
const r3 = await client.callTool({ name: "echo", arguments: { text: "still here" } });
check(r3.content?.[0]?.text === "still here", "the connection is still usable");
await sleep(200);
check(clientErrors.every((e) => /unknown token/.test(e)),
  `no late response reached the TS client (${clientErrors.join("; ") || "none"})`);

await client.close();
if (failures) process.stderr.write(`--- proxy stderr\n${proxyErr}`);
process.exit(failures ? 1 : 0);
