// SPDX-License-Identifier: MIT
// The official TypeScript SDK clients reading what `mcp serve` offers besides
// tools: v1 (2025-11-25) and v2 (2026-07-28) list resources, templates and
// prompts, read a text resource, a blob and a templated URI, get a prompt,
// complete its argument, and see the not-found error of their revision; v1
// also sees that subscriptions are not declared (updates are
// test_server_offers' and interop_ts_features'). Usage: node ts_offers_client.mjs /path/to/mcp
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as Client2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";

const mcp = process.argv[2];
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? "ok" : "not ok"} - ${what}`);
  if (!ok) failures++;
};
setTimeout(() => { console.log("not ok - the script did not finish in 60 s"); process.exit(1); },
  60000).unref();

async function exercise(client, era) {
  const res = await client.listResources();
  check(res.resources.some((r) => r.uri === "demo://readme" && r.mimeType === "text/plain" &&
    typeof r.size === "number"), `${era}: resources/list has demo://readme with its size`);
  const tpl = await client.listResourceTemplates();
  check(tpl.resourceTemplates.some((t) => t.uriTemplate === "demo://echo/{text}"),
    `${era}: resources/templates/list has demo://echo/{text}`);
  const readme = await client.readResource({ uri: "demo://readme" });
  check(readme.contents[0]?.text?.startsWith("mcp serve: a demo server."), `${era}: read a text resource`);
  const logo = await client.readResource({ uri: "demo://logo" });
  check(Buffer.from(logo.contents[0]?.blob ?? "", "base64").subarray(1, 4).toString() === "PNG",
    `${era}: read a blob`);
  const echo = await client.readResource({ uri: "demo://echo/caf%C3%A9%20au%20lait" });
  check(echo.contents[0]?.text === "café au lait" && echo.contents[0]?.uri ===
    "demo://echo/caf%C3%A9%20au%20lait", `${era}: a templated URI, its variable decoded`);
  let notFound = null;
  try { await client.readResource({ uri: "demo://nothing" }); } catch (e) { notFound = e; }
  const want = era === "v2" ? -32602 : -32002;
  check(notFound?.code === want, `${era}: an unknown URI is ${want} (got ${notFound?.code})`);
  const prompts = await client.listPrompts();
  check(prompts.prompts.some((p) => p.name === "greet" &&
    p.arguments?.some((a) => a.name === "name" && a.required)), `${era}: prompts/list has greet`);
  const got = await client.getPrompt({ name: "greet", arguments: { name: "Ada", style: "formal" } });
  check(got.messages[0]?.content?.text === "Greet formally Ada.", `${era}: prompts/get`);
  let missing = null;
  try { await client.getPrompt({ name: "greet", arguments: {} }); } catch (e) { missing = e; }
  check(missing?.code === -32602, `${era}: a missing required argument is -32602`);
  const done = await client.complete({ ref: { type: "ref/prompt", name: "greet" },
    argument: { name: "style", value: "p" } });
  check(JSON.stringify(done.completion.values) === '["pirate"]', `${era}: completion/complete`);
  return res;
}

{
  const client = new Client1({ name: "ts-offers-client", version: "1.0.0" });
  await client.connect(new Stdio1({ command: mcp, args: ["serve"], stderr: "inherit" }));
  await exercise(client, "v1");
  // The demo's resources never change: it declares no subscriptions, and
  // refuses one as a method it does not have.
  check(client.getServerCapabilities()?.resources?.subscribe === false,
    "v1: the demo declares no resource subscriptions");
  let refused = null;
  try { await client.subscribeResource({ uri: "demo://readme" }); } catch (e) { refused = e; }
  check(refused?.code === -32601, `v1: resources/subscribe is -32601 there (got ${refused?.code})`);
  await client.close();
}
{
  const client = new Client2({ name: "ts2-offers-client", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new Stdio2({ command: mcp, args: ["serve"], stderr: "inherit",
                                    env: { ...process.env } }), { timeout: 15000 });
  check(client.getNegotiatedProtocolVersion() === "2026-07-28", "v2: connected under 2026-07-28");
  const res = await exercise(client, "v2");
  check(typeof res.ttlMs === "number" && (res.cacheScope === "public" || res.cacheScope === "private"),
    "v2: resources/list carries caching hints");
  await client.close();
}
console.log(failures ? `${failures} failure(s)` : "all ok");
process.exit(failures ? 1 : 0);
