// SPDX-License-Identifier: MIT
// The official TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0,
// StreamableHTTPClientTransport), pinned to 2026-07-28, against
// `mcp serve --http`:
//
//   node ts2_http_client.mjs URL
//
// Steps: connect (the server/discover probe), tools/list, echo, count with
// progress, subscriptions/listen for toolsListChanged that hears the
// notification after add_tool, closing the listen, and a sleep the client
// aborts. In 2026-07-28 an abort is the client closing its request's
// connection, not a posted notifications/cancelled: run_http_interop.sh
// checks that our server logged the sleep cancelled with "client
// disconnected". Prints "ok - ..." or "not ok - ..." per check and "info:
// ..." lines for the runner; exits 1 when a check failed.
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { makeTap } from "./http_tap.mjs";

const REVISION = "2026-07-28";
const ABORT_REASON = "aborted by the ts2 http client";
const url = process.argv[2];
if (!url) {
  process.stderr.write("usage: node ts2_http_client.mjs URL\n");
  process.exit(2);
}

let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? "ok" : "not ok"} - ${what}`);
  if (!ok) failures++;
  return ok;
};
const info = (what) => console.log(`info: ${what}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (pred, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (pred()) return true;
  return pred();
};
// Rejects when `p` does not settle in `ms`: a hung call fails its step.
const within = (p, ms, what) =>
  Promise.race([p, sleep(ms).then(() => { throw new Error(`${what}: no answer in ${ms} ms`); })]);
setTimeout(() => {
  check(false, "the script finished within 60 s");
  process.exit(1);
}, 60000).unref();

const { exchanges, tappedFetch, settled, how } = makeTap();
const postsOf = (pred) => exchanges.filter((x) => x.method === "POST" && x.rpc && pred(x.rpc));
const callPosts = (tool) => postsOf((m) => m.method === "tools/call" && m.params?.name === tool);

const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: tappedFetch });
const client = new Client({ name: "ts2-http-interop-client", version: "1.0.0" }, {
  versionNegotiation: { mode: { pin: REVISION } },
});
const clientErrors = [];
client.onerror = (e) => clientErrors.push(String(e?.message ?? e));

async function main() {
  await within(client.connect(transport), 15000, "connect");
  check(client.getNegotiatedProtocolVersion() === REVISION && client.getProtocolEra() === "modern",
    `connected: ${client.getNegotiatedProtocolVersion()} (era ${client.getProtocolEra()}), ` +
    `server ${JSON.stringify(client.getServerVersion() ?? null)}`);
  const probe = postsOf((m) => m.method === "server/discover")[0];
  check(probe?.status === 200, `server/discover probe: ${how(probe)}`);

  const { tools } = await within(client.listTools(), 10000, "tools/list");
  const names = tools.map((t) => t.name);
  check(["echo", "sleep", "count", "fail", "add_tool"].every((n) => names.includes(n)),
    `tools/list: ${names.join(", ")}`);

  const text = "h\u00e9llo \u4e2d\u6587 \ud83d\ude00 \"q\" \\";
  const r1 = await within(client.callTool({ name: "echo", arguments: { text } }), 10000, "echo");
  check(r1.content?.[0]?.text === text && !r1.isError, `echo round-trips ${JSON.stringify(text)}`);
  const echoPost = callPosts("echo")[0];
  check(echoPost?.headers["mcp-protocol-version"] === REVISION && echoPost.headers["mcp-method"] === "tools/call" &&
    echoPost.headers["mcp-name"] === "echo" && echoPost.status === 200,
    `echo's POST with the 2026 headers: ${how(echoPost)}`);

  const seen = [];
  const r2 = await within(client.callTool({ name: "count", arguments: { n: 5, delay_ms: 20 } },
    { onprogress: (p) => seen.push(p.progress) }), 10000, "count");
  check(r2.content?.[0]?.text === "counted to 5", `count answered ${JSON.stringify(r2.content?.[0]?.text)}`);
  check(seen.join(",") === "1,2,3,4,5", `progress 1..5 reached the client (${seen.join(",")})`);
  const countPost = callPosts("count")[0];
  check(countPost?.type === "text/event-stream" && await waitFor(() => countPost.ended, 2000),
    `count's answer, a stream our server ends after the result: ${how(countPost)}`);

  // A stateless server has no sessions to hand out.
  check(!exchanges.some((x) => x.respSid), "no response carried Mcp-Session-Id");

  // subscriptions/listen: the acknowledgement, then tools/list_changed on the
  // listen's own stream after add_tool, tagged with the listen's id.
  let changes = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => { changes++; });
  const sub = await within(client.listen({ toolsListChanged: true }, { timeout: 10000 }), 10000, "listen");
  const listenPost = postsOf((m) => m.method === "subscriptions/listen")[0];
  check(sub.honoredFilter?.toolsListChanged === true && listenPost?.type === "text/event-stream",
    `subscriptions/listen ${JSON.stringify(listenPost?.rpc.id)} acknowledged, honored ` +
    `${JSON.stringify(sub.honoredFilter)} (${how(listenPost)})`);
  let closedBy;
  sub.closed.then((c) => { closedBy = c; });
  const added = `runtime_${process.pid}`;
  const r3 = await within(client.callTool({ name: "add_tool", arguments: { name: added } }), 10000, "add_tool");
  check(!r3.isError, `add_tool ${added}: ${JSON.stringify(r3.content?.[0]?.text)}`);
  check(await waitFor(() => changes > 0, 5000), "tools/list_changed reached the client");
  const note = listenPost?.events.find((e) => e.msg?.method === "notifications/tools/list_changed");
  const subId = note?.msg.params?._meta?.["io.modelcontextprotocol/subscriptionId"];
  check(note !== undefined && subId === listenPost.rpc.id,
    `it came on the listen's stream with subscriptionId ${JSON.stringify(subId)}`);
  const again = await within(client.listTools(), 10000, "tools/list after add_tool");
  check(again.tools.some((t) => t.name === added), `tools/list now has ${added}`);
  await sub.close();
  check(await waitFor(() => closedBy === "local" && settled(listenPost), 3000),
    `the listen closed (${closedBy}; its POST: ${how(listenPost)})`);

  // A call the client aborts: the SDK closes the call's connection.
  const ac = new AbortController();
  const outcome = client.callTool({ name: "sleep", arguments: { seconds: 30 } }, { signal: ac.signal })
    .then(() => "resolved", (e) => ({ at: Date.now(), e }));
  await sleep(300);
  const sleepPost = callPosts("sleep")[0];
  info(`sleep request id ${JSON.stringify(sleepPost?.rpc.id)}`);
  const abortAt = Date.now();
  ac.abort(ABORT_REASON);
  const o = await within(outcome, 5000, "aborted sleep");
  check(o !== "resolved" && o.at - abortAt < 1000,
    `the aborted call rejected after ${o.at - abortAt} ms (${o.e?.message})`);
  check(await waitFor(() => settled(sleepPost), 3000), `the call's POST ended: ${how(sleepPost)}`);
  check(!postsOf((m) => m.method === "notifications/cancelled" && m.params?.requestId === sleepPost?.rpc.id).length,
    "no notifications/cancelled posted for the sleep: the closed connection is the cancel");
  check(!sleepPost?.events.some((e) => e.msg && e.msg.id === sleepPost.rpc.id),
    "no answer for the aborted call");

  const r4 = await within(client.callTool({ name: "echo", arguments: { text: "after abort" } }), 10000,
    "echo after the abort");
  check(r4.content?.[0]?.text === "after abort", "still usable after the abort");

  await client.close();
  check(clientErrors.length === 0, `no client errors (${clientErrors.join("; ") || "none"})`);
}
main().then(() => process.exit(failures ? 1 : 0), (e) => {
  check(false, `unexpected error: ${e?.stack ?? e}`);
  process.exit(1);
});
