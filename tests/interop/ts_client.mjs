// SPDX-License-Identifier: MIT
// The official TypeScript SDK v1 client against `mcp serve`: progress
// arrives, an abort and a timeout both reach our handler (with the reason
// the SDK sends), and our server sends nothing for a request after its
// cancel. Usage: node ts_client.mjs /path/to/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const mcp = process.argv[2];
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

const transport = new StdioClientTransport({
  command: mcp, args: ["serve"], stderr: "pipe",
  env: { ...process.env, MCP_TRACE: "1", MCP_LOG_LEVEL: "info" },
});
let serverLog = "";
transport.stderr.on("data", (d) => { serverLog += d.toString(); });
const clientErrors = [];
const client = new Client({ name: "ts-interop-client", version: "1.0.0" });
client.onerror = (e) => clientErrors.push(String(e));
await client.connect(transport);

// The id our server saw for the n-th tools/call of `tool`, from its trace.
const requestIdOf = (tool) => {
  const ids = [];
  for (const line of serverLog.split("\n")) {
    const m = line.match(/^mcp serve <- (.*)$/);
    if (!m) continue;
    const msg = JSON.parse(m[1]);
    if (msg.method === "tools/call" && msg.params?.name === tool) ids.push(msg.id);
  }
  return ids;
};
// Whether our server sent any response for `id` (result or error).
const answered = (id) => serverLog.split("\n").some((line) => {
  const m = line.match(/^mcp serve -> (.*)$/);
  if (!m) return false;
  const msg = JSON.parse(m[1]);
  return msg.id === id && ("result" in msg || "error" in msg);
});
const progressTokens = () => serverLog.split("\n").filter((l) => l.startsWith("mcp serve -> ") &&
  l.includes('"notifications/progress"')).map((l) => JSON.parse(l.slice(13)).params.progressToken);

// 1. Progress arrives.
const seen = [];
const r1 = await client.callTool({ name: "count", arguments: { n: 5, delay_ms: 20 } }, undefined,
  { onprogress: (p) => seen.push(p.progress) });
check(r1.content?.[0]?.text === "counted to 5", "count answers through the TS client");
// Our server sends 1..5 and then the result, in that order on the wire.
const wireOrder = serverLog.split("\n").filter((l) => l.startsWith("mcp serve -> ")).map((l) => {
  const m = JSON.parse(l.slice(13));
  return m.method === "notifications/progress" ? `p${m.params.progress}` : m.id === 1 ? "result" : null;
}).filter(Boolean).join(",");
check(wireOrder === "p1,p2,p3,p4,p5,result", `our server sent progress 1..5, then the result (${wireOrder})`);
// SDK v1 runs notification handlers in a microtask but responses at once, so
// a final progress that shares a read with the response is handled after it
// and reported as an unknown token. Accept that, and only that.
check(["1,2,3,4,5", "1,2,3,4"].includes(seen.join(",")),
  `the TS client saw progress in order (${seen.join(",")})`);

// 2. An abort reaches our handler, and no response follows it.
const ac = new AbortController();
const aborted = client.callTool({ name: "sleep", arguments: { seconds: 30 } }, undefined,
  { signal: ac.signal }).then(() => false, () => true);
await waitFor(() => requestIdOf("sleep").length === 1, 5000);
ac.abort("aborted by the TS client");
check(await aborted, "the aborted call rejects in the TS client");
check(await waitFor(() => serverLog.includes('reason="aborted by the TS client"'), 5000),
  "our server received the cancel with the SDK's reason");
check(await waitFor(() => serverLog.includes("sleep: cancelled after"), 5000),
  "our handler's token fired");

// 3. A timeout does the same.
let timeoutCode = null;
try {
  await client.callTool({ name: "sleep", arguments: { seconds: 30 } }, undefined, { timeout: 300 });
} catch (e) { timeoutCode = e.code; }
check(timeoutCode === -32001, `the TS client timed out (code ${timeoutCode})`);
check(await waitFor(() => /cancel received: .*reason="McpError: MCP error -32001: Request timed out"/.test(serverLog), 5000),
  "our server received the timeout's cancel");
check(await waitFor(() => serverLog.split("sleep: cancelled after").length - 1 === 2, 5000),
  "our handler stopped on the timeout too");

// 4. Still usable; then nothing was ever sent for the cancelled requests.
const r4 = await client.callTool({ name: "echo", arguments: { text: "still here" } });
check(r4.content?.[0]?.text === "still here", "the connection is still usable");
await sleep(200);
const [abortedId, timedOutId] = requestIdOf("sleep");
check(abortedId !== undefined && !answered(abortedId), `no response for the aborted request ${abortedId}`);
check(timedOutId !== undefined && !answered(timedOutId), `no response for the timed-out request ${timedOutId}`);
check(progressTokens().length === 5, "progress only for the call that asked for it");
const sdkReorder = (e) => /unknown token.*"progress":5,"total":5/.test(e) && seen.length === 4;
check(clientErrors.every(sdkReorder),
  `the TS client saw no late response or progress (${clientErrors.join("; ") || "none"})`);

await client.close();
if (failures) process.stderr.write(`--- server stderr\n${serverLog}`);
process.exit(failures ? 1 : 0);
