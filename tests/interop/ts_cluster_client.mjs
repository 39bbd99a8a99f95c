// SPDX-License-Identifier: MIT
// The official TypeScript SDK clients through a load balancer in front of
// several `mcp serve --http` processes (tests/integration/test_cluster_balancer.sh):
//
//   node ts_cluster_client.mjs URL PROCESSES
//
// v2 (@modelcontextprotocol/client 2.4.0) pinned to 2026-07-28, stateless:
// echo, then add_tool of one name PROCESSES times, each accepted (so each
// landed on a process that did not have it yet: all of them), then a sleep
// it aborts (its connection closed: the runner checks a backend logged it
// cancelled, "client disconnected").
// v1 (@modelcontextprotocol/sdk 1.32.2), 2025-11-25, one session: echo
// five times, add_tool of one name twice, the second refused as existing
// (the session stayed on one process), then the session ended (DELETE).
// Prints "ok - ..." or "not ok - ..." per check; exits 1 when one failed.
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from "@modelcontextprotocol/client";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
const processes = Number(process.argv[3] || 3);
if (!url) {
  process.stderr.write("usage: node ts_cluster_client.mjs URL PROCESSES\n");
  process.exit(2);
}
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? "ok" : "not ok"} - ${what}`);
  if (!ok) failures++;
  return ok;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const within = (p, ms, what) =>
  Promise.race([p, sleep(ms).then(() => { throw new Error(`${what}: no answer in ${ms} ms`); })]);
setTimeout(() => {
  check(false, "the script finished within 40 s");
  process.exit(1);
}, 40000).unref();
const text = (r) => r?.content?.[0]?.text;

async function v2() {
  const client = new Client2({ name: "ts2-cluster-client", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await within(client.connect(new Transport2(new URL(url))), 15000, "v2 connect");
  check(client.getNegotiatedProtocolVersion() === "2026-07-28",
    `v2 connected through the balancer: ${client.getNegotiatedProtocolVersion()}`);
  const r = await within(client.callTool({ name: "echo", arguments: { text: "ts2 via lb" } }), 10000, "echo");
  check(text(r) === "ts2 via lb", `v2 echo: ${JSON.stringify(text(r))}`);
  const added = [];
  for (let i = 0; i < processes; i++) {
    const a = await within(client.callTool({ name: "add_tool", arguments: { name: "ts2_probe" } }), 10000, "add_tool");
    added.push(a.isError ? `refused (${text(a)})` : "added");
  }
  check(added.every((a) => a === "added"),
    `v2: ${processes} add_tool calls of one name each landed on a process without it: ${added.join(", ")}`);
  const ac = new AbortController();
  const outcome = client.callTool({ name: "sleep", arguments: { seconds: 30 } }, { signal: ac.signal })
    .then(() => "resolved", (e) => `rejected: ${e?.message ?? e}`);
  await sleep(1500);
  ac.abort("aborted by the ts2 cluster client");
  const o = await within(outcome, 5000, "aborted sleep");
  check(o.startsWith("rejected"), `v2: the aborted sleep ${o}`);
  await client.close();
}

async function v1() {
  const transport = new Transport1(new URL(url));
  const client = new Client1({ name: "ts1-cluster-client", version: "1.0.0" });
  await within(client.connect(transport), 15000, "v1 connect");
  check(client.getServerVersion()?.name === "mcp serve" && !!transport.sessionId,
    `v1 connected through the balancer (2025-11-25), session ${transport.sessionId?.slice(0, 8)}…`);
  const texts = [];
  for (let i = 0; i < 5; i++) {
    const r = await within(client.callTool({ name: "echo", arguments: { text: `ts1 ${i}` } }), 10000, "echo");
    texts.push(text(r));
  }
  check(texts.join("|") === "ts1 0|ts1 1|ts1 2|ts1 3|ts1 4", `v1: five echo calls in the session: ${texts.join("|")}`);
  const a1 = await within(client.callTool({ name: "add_tool", arguments: { name: "ts1_probe" } }), 10000, "add_tool");
  const a2 = await within(client.callTool({ name: "add_tool", arguments: { name: "ts1_probe" } }), 10000, "add_tool");
  check(!a1.isError && a2.isError && /existing name/.test(text(a2)),
    `v1: the session's second add_tool of one name met the first one's tool: ${text(a1)} / ${text(a2)}`);
  await within(transport.terminateSession(), 5000, "DELETE");
  check(transport.sessionId === undefined, "v1: the session ended (DELETE)");
  await client.close();
}

try {
  await v2();
  await v1();
} catch (e) {
  check(false, `threw: ${e?.stack ?? e}`);
}
process.exit(failures ? 1 : 0);
