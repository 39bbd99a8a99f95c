// SPDX-License-Identifier: MIT
// The official TypeScript SDK v1 client (2025-11-25) answering what `mcp
// serve`'s tools ask it, over stdio or Streamable HTTP: elicitation
// (confirm: a form; connect: URL mode, then the server's
// notifications/elicitation/complete), sampling (summarize), roots (roots);
// and the chain of cancels:
// the client aborts its tools/call while our tool waits for its sampling,
// and our server cancels that sampling request on the wire, so the SDK
// aborts its own handler with our reason.
// Usage: node ts_ask_client.mjs /path/to/mcp (stdio: runs `mcp serve`)
//        node ts_ask_client.mjs URL (`mcp serve --http` listens there;
//        run_http_interop.sh v1-ask)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema,
  ElicitationCompleteNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const target = process.argv[2];
const url = /^https?:\/\//.test(target) ? target : null;
const mcp = url ? null : target;
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
setTimeout(() => { console.log("not ok - the script did not finish in 60 s"); process.exit(1); },
  60000).unref();

const client = new Client({ name: "ts-ask-client", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } });
const seen = { elicit: [], url: [], completed: [], sampling: [], aborted: null };
let holdSampling = false;
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  if (req.params.mode === "url") {
    seen.url.push(req.params);
    return { action: "accept" };
  }
  seen.elicit.push(req.params);
  return { action: "accept", content: { ok: true } };
});
client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
  seen.completed.push(n.params.elicitationId);
});
client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
  seen.sampling.push(req.params);
  if (holdSampling) {
    // Held until our server cancels it: the SDK aborts extra.signal then.
    await new Promise((resolve) => {
      extra.signal.addEventListener("abort", () => {
        seen.aborted = String(extra.signal.reason ?? "aborted");
        resolve();
      });
    });
    return { role: "assistant", content: { type: "text", text: "too late" }, model: "m" };
  }
  return { role: "assistant", content: { type: "text", text: "short" }, model: "ts-model" };
});
client.setRequestHandler(ListRootsRequestSchema, async () => ({
  roots: [{ uri: "file:///work", name: "work" }, { uri: "file:///tmp" }],
}));

const transport = url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command: mcp, args: ["serve"], stderr: "inherit" });
await client.connect(transport);
const text = (r) => r.content?.[0]?.text;

check(text(await client.callTool({ name: "confirm", arguments: { question: "Ship it?" } })) ===
  "confirmed", "confirm: our elicitation answered by the SDK's handler");
check(seen.elicit[0]?.message === "Ship it?" &&
  seen.elicit[0]?.requestedSchema?.properties?.ok?.type === "boolean",
  "the elicitation carried the message and the requested schema");
check(text(await client.callTool({ name: "connect", arguments: { url: "https://example.com/c" } })) ===
  "connected", "connect: our URL mode elicitation accepted by the SDK's handler");
check(seen.url[0]?.url === "https://example.com/c" && typeof seen.url[0]?.elicitationId === "string" &&
  seen.url[0].elicitationId.length > 0, "it carried the URL and an elicitationId");
check(await waitFor(() => seen.completed.length === 1, 5000) &&
  seen.completed[0] === seen.url[0]?.elicitationId,
  `the SDK heard notifications/elicitation/complete for that id (${seen.completed})`);
check(text(await client.callTool({ name: "summarize", arguments: { text: "a long text" } })) ===
  "short", "summarize: our sampling answered by the SDK's handler");
check(seen.sampling[0]?.messages?.[0]?.content?.text === "a long text" &&
  seen.sampling[0]?.maxTokens === 100, "the sampling request carried the text and maxTokens");
check(text(await client.callTool({ name: "roots" })) === "file:///work\nfile:///tmp\n",
  "roots: our roots/list answered by the SDK's handler");

// The chain: abort the call while its sampling is held by the SDK.
holdSampling = true;
const ac = new AbortController();
const call = client.callTool({ name: "summarize", arguments: { text: "never summarized" } },
  undefined, { signal: ac.signal });
check(await waitFor(() => seen.sampling.length === 2, 5000), "the second sampling request arrived");
ac.abort("user pressed stop");
let rejected = false;
try { await call; } catch { rejected = true; }
check(rejected, "the aborted call rejects");
check(await waitFor(() => seen.aborted !== null, 5000),
  "our server cancelled its sampling request: the SDK aborted its handler");
check(seen.aborted?.includes("user pressed stop"),
  `with the call's reason (the handler's abort reason: ${seen.aborted})`);
// The connection goes on.
holdSampling = false;
check(text(await client.callTool({ name: "summarize", arguments: { text: "again" } })) === "short",
  "a call after the cancelled one works");
await client.close();
console.log(failures ? `${failures} failure(s)` : "all ok");
process.exit(failures ? 1 : 0);
