// SPDX-License-Identifier: MIT
// The official TypeScript SDK v2 client (2026-07-28) against `mcp serve`'s
// tools that ask (confirm: elicitation, connect: elicitation in URL mode,
// summarize: sampling, roots): our
// server answers with input_required results, the SDK fulfils them through
// its handlers and retries with inputResponses and our requestState, and
// the second round completes; a question the client did not declare is
// never asked. Usage: node ts2_ask_client.mjs /path/to/mcp [URL]
// With URL, the same over Streamable HTTP to URL (`mcp proxy --http` in
// front of `mcp serve`: the questions are the child's, asked in 2025 and
// carried across the rounds by the gateway under keys of its own).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const mcp = process.argv[2];
const url = process.argv[3];
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? "ok" : "not ok"} - ${what}`);
  if (!ok) failures++;
};
setTimeout(() => { console.log("not ok - the script did not finish in 60 s"); process.exit(1); },
  60000).unref();

async function connect(capabilities) {
  const client = new Client({ name: "ts2-ask-client", version: "1.0.0" },
    { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const seen = { elicit: 0, url: [], sampling: 0, roots: 0 };
  // The SDK allows a handler only for a declared capability.
  if (capabilities.elicitation)
    client.setRequestHandler("elicitation/create", async (req) => {
      if (req.params.mode === "url") {
        seen.url.push(req.params);
        return { action: "accept" };
      }
      seen.elicit++;
      return { action: "accept", content: { ok: true } };
    });
  if (capabilities.sampling)
    client.setRequestHandler("sampling/createMessage", async (req) => {
      seen.sampling++;
      return { role: "assistant", content: { type: "text", text: `short: ${req.params.messages[0].content.text}` },
               model: "ts2-model" };
    });
  if (capabilities.roots)
    client.setRequestHandler("roots/list", async () => {
      seen.roots++;
      return { roots: [{ uri: "file:///srv" }] };
    });
  const wire = [];
  const transport = url ? new StreamableHTTPClientTransport(new URL(url))
    : new StdioClientTransport({ command: mcp, args: ["serve"], stderr: "inherit",
                                 env: { ...process.env } });
  const send = transport.send.bind(transport);
  transport.send = (msg, o) => { wire.push(msg); return send(msg, o); };
  await client.connect(transport, { timeout: 15000 });
  return { client, seen, wire };
}

const text = (r) => r.content?.[0]?.text;
{
  const { client, seen, wire } = await connect({ elicitation: { form: {}, url: {} }, sampling: {},
                                                roots: {} });
  check(client.getNegotiatedProtocolVersion() === "2026-07-28", "connected under 2026-07-28");
  check(text(await client.callTool({ name: "confirm", arguments: {} })) === "confirmed",
    "confirm: input_required, fulfilled by the SDK's elicitation handler, then complete");
  check(seen.elicit === 1, "the elicitation handler ran once");
  const calls = wire.filter((m) => m.method === "tools/call" && m.params?.name === "confirm");
  // Our server's key is the handler's ("confirm"); the gateway's its own.
  const answers = Object.entries(calls[1]?.params.inputResponses ?? {});
  check(calls.length === 2 && !calls[0].params.requestState && calls[1].params.requestState &&
    answers.length === 1 && answers[0][0] === (url ? "q1" : "confirm") &&
    answers[0][1].action === "accept" && calls[0].id !== calls[1].id,
    "the retry carried our requestState and the answer under our key, with a new id");
  check(text(await client.callTool({ name: "summarize", arguments: { text: "abc" } })) === "short: abc",
    "summarize: sampling through input_required");
  check(text(await client.callTool({ name: "connect", arguments: { url: "https://example.com/c" } })) ===
    "connected" && seen.url.length === 1 && seen.url[0].url === "https://example.com/c" &&
    seen.url[0].elicitationId === undefined,
    "connect: a URL mode elicitation through input_required (no elicitationId in 2026-07-28)");
  check(text(await client.callTool({ name: "roots" })) === "file:///srv\n", "roots through input_required");
  await client.close();
}
{
  // Without sampling declared our tool never asks for it: a tool error.
  const { client, seen } = await connect({ elicitation: {} });
  const r = await client.callTool({ name: "summarize", arguments: { text: "abc" } });
  check(r.isError === true && /did not declare/.test(text(r)) && seen.sampling === 0,
    `an undeclared capability is not asked (${text(r)})`);
  await client.close();
}
console.log(failures ? `${failures} failure(s)` : "all ok");
process.exit(failures ? 1 : 0);
