// SPDX-License-Identifier: MIT
// The official TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.32.2,
// StreamableHTTPClientTransport, 2025-11-25) against `mcp serve --http`:
//
//   node ts_http_client.mjs URL auto|sse|resume
//
// auto: the server runs in its default mode; sse: with --response sse; both
// run the same steps (initialize, tools/list, echo, count with progress,
// tools/list_changed on the GET stream, a call aborted by the client, the
// session terminated with a call in flight) and differ only in the answer
// kind expected for echo. resume: the server runs with --poll-retry 300, so
// it closes every stream after its priming event: count must still deliver
// every progress notification and its result through GETs with
// Last-Event-ID.
//
// Prints "ok - ..." or "not ok - ..." per check, "info: ..." lines the
// runner (run_http_interop.sh) reads the server's log by, and exits 1 when a
// check failed. Every HTTP exchange goes through a tapping fetch that records
// the request, the response headers and, for an event stream, each event as
// it arrives: the checks look at the wire, not only at what the SDK chose to
// surface.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { makeTap } from "./http_tap.mjs";

const [url, mode] = process.argv.slice(2);
if (!url || !["auto", "sse", "resume"].includes(mode)) {
  process.stderr.write("usage: node ts_http_client.mjs URL auto|sse|resume\n");
  process.exit(2);
}
// Reasons the runner looks for in the server's log.
const ABORT_REASON = "aborted by the ts http client";

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
// A hang is a failure with output, not a job ctest kills silently.
setTimeout(() => {
  check(false, "the script finished within 60 s");
  process.exit(1);
}, 60000).unref();

const { exchanges, tappedFetch, settled, how } = makeTap();
const postsOf = (pred) => exchanges.filter((x) => x.method === "POST" && x.rpc && pred(x.rpc));
const callPosts = (tool) => postsOf((m) => m.method === "tools/call" && m.params?.name === tool);

// ---- Connect -----------------------------------------------------------------
const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: tappedFetch });
const client = new Client({ name: "ts-http-interop-client", version: "1.0.0" });
const clientErrors = [];
client.onerror = (e) => clientErrors.push(String(e?.message ?? e));
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });
await client.connect(transport);
// Every message the transport delivered, in order, before the SDK's
// dispatch (which runs notifications a microtask after responses).
const delivered = [];
const sdkOnMessage = transport.onmessage;
transport.onmessage = (msg, extra) => {
  delivered.push(msg);
  sdkOnMessage?.(msg, extra);
};

const init = postsOf((m) => m.method === "initialize")[0];
const sid = transport.sessionId;
check(init?.status === 200 && typeof sid === "string" && sid.length > 0 && init.respSid === sid,
  `initialize: 200 with Mcp-Session-Id (${init?.status}, ${JSON.stringify(sid)})`);
info(`session ${sid}`);
check(transport.protocolVersion === "2025-11-25",
  `negotiated ${transport.protocolVersion}, server ${JSON.stringify(client.getServerVersion())}`);
check(postsOf((m) => m.method === "notifications/initialized")[0]?.status === 202,
  "notifications/initialized: 202");

if (mode === "resume") await resume();
else await session();

await client.close();
process.exit(failures ? 1 : 0);

// ---- auto and sse ----------------------------------------------------------
async function session() {
  // The GET stream the SDK opens after initialized.
  check(await waitFor(() => exchanges.some((x) => x.method === "GET" && x.status === 200 &&
    x.type === "text/event-stream" && x.sid === sid), 5000), "the GET stream is open (200, text/event-stream)");

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  check(["echo", "sleep", "count", "fail", "add_tool"].every((n) => names.includes(n)),
    `tools/list: ${names.join(", ")}`);

  // echo: the answer kind is the mode's (auto: JSON for a call that sends
  // nothing before its result).
  const text = "h\u00e9llo \u4e2d\u6587 \ud83d\ude00 \"q\" \\";
  const r1 = await client.callTool({ name: "echo", arguments: { text } });
  check(r1.content?.[0]?.text === text && !r1.isError, `echo round-trips ${JSON.stringify(text)}`);
  const echoType = callPosts("echo")[0]?.type;
  const wantType = mode === "sse" ? "text/event-stream" : "application/json";
  check(echoType === wantType, `echo answered as ${echoType} (want ${wantType})`);
  const fail = await client.callTool({ name: "fail", arguments: {} });
  check(fail.isError === true, `fail is a tool error: ${JSON.stringify(fail.content?.[0]?.text)}`);

  // count with progress: an event stream in both modes, 1..5 then the result.
  const seen = [];
  const r2 = await client.callTool({ name: "count", arguments: { n: 5, delay_ms: 20 } }, undefined,
    { onprogress: (p) => seen.push(p.progress) });
  check(r2.content?.[0]?.text === "counted to 5", `count answered ${JSON.stringify(r2.content?.[0]?.text)}`);
  const countPost = callPosts("count")[0];
  // count also logs each step (notifications/message): not part of the order.
  const order = (countPost?.events ?? []).filter((e) => e.msg && e.msg.method !== "notifications/message")
    .map((e) => e.msg.method === "notifications/progress" ? `p${e.msg.params.progress}`
      : "id" in e.msg ? "result" : e.msg.method);
  check(countPost?.type === "text/event-stream" && order.join(",") === "p1,p2,p3,p4,p5,result",
    `count's stream (${countPost?.type}): ${order.join(",")}`);
  check(seen.join(",") === "1,2,3,4,5", `the client's onprogress saw ${seen.join(",")}`);

  // add_tool: tools/list_changed reaches the client on its GET stream.
  const added = `runtime_${process.pid}`;
  const r3 = await client.callTool({ name: "add_tool", arguments: { name: added } });
  check(!r3.isError, `add_tool ${added}: ${JSON.stringify(r3.content?.[0]?.text)}`);
  check(await waitFor(() => listChanged > 0, 5000), "tools/list_changed reached the client");
  const onGet = exchanges.some((x) => x.method === "GET" && x.events.some((e) =>
    e.msg?.method === "notifications/tools/list_changed"));
  check(onGet, "tools/list_changed came on the GET stream");
  check((await client.listTools()).tools.some((t) => t.name === added), `tools/list now has ${added}`);

  // A call aborted by the client: the SDK posts notifications/cancelled with
  // the signal's reason; our server must end the call's POST at once.
  const ac = new AbortController();
  const aborted = client.callTool({ name: "sleep", arguments: { seconds: 30 } }, undefined,
    { signal: ac.signal }).then(() => "resolved", (e) => ({ at: Date.now(), e }));
  await sleep(300);
  const abortAt = Date.now();
  ac.abort(ABORT_REASON);
  const o = await aborted;
  check(o !== "resolved" && o.at - abortAt < 1000, `the aborted call rejected (${o?.e?.message ?? o})`);
  const sleepPost = callPosts("sleep")[0];
  const sleepId = sleepPost?.rpc.id;
  info(`aborted request id ${JSON.stringify(sleepId)}`);
  let cancelPost;
  await waitFor(() => (cancelPost = postsOf((m) => m.method === "notifications/cancelled" &&
    m.params?.requestId === sleepId)[0])?.status !== undefined, 3000);
  check(cancelPost?.status === 202 && cancelPost.sid === sid &&
    cancelPost.rpc.params.reason === ABORT_REASON,
    `notifications/cancelled for request ${sleepId} posted: ${cancelPost?.status} ` +
    `reason ${JSON.stringify(cancelPost?.rpc.params.reason)}`);
  check(await waitFor(() => settled(sleepPost), 3000),
    `our server ended the cancelled call's POST: ${how(sleepPost)}` +
    (settled(sleepPost) ? `, ${settled(sleepPost) - abortAt} ms after the abort` : ""));
  // 2025-11-25: a request MUST be answered with text/event-stream or
  // application/json; ending the POST by closing the connection is no answer.
  check(sleepPost?.status === 200 && ["text/event-stream", "application/json"].includes(sleepPost.type),
    `the cancelled call's POST got an HTTP response: ${how(sleepPost)}`);
  const answered = (p) => p?.events.some((e) => e.msg && "id" in e.msg && !e.msg.method);
  check(!answered(sleepPost) && !delivered.some((m) => m.id === sleepId && !m.method),
    `no answer for the cancelled request ${sleepId}`);
  const r4 = await client.callTool({ name: "echo", arguments: { text: "still here" } });
  check(r4.content?.[0]?.text === "still here", "the session is still usable after the abort");

  // Nothing so far should have troubled the client.
  check(clientErrors.length === 0, `no client errors (${clientErrors.join("; ") || "none"})`);

  // Session termination with a call in flight: DELETE, our server cancels
  // the call ("session ended"), and the session id is dead afterwards.
  const pending = client.callTool({ name: "sleep", arguments: { seconds: 30 } }).catch(() => {});
  await waitFor(() => callPosts("sleep").length === 2, 3000);
  await sleep(300);
  const inFlight = callPosts("sleep")[1];
  info(`in-flight request id ${JSON.stringify(inFlight?.rpc.id)}`);
  let terminated = true;
  try { await transport.terminateSession(); } catch (e) { terminated = String(e); }
  const del = exchanges.find((x) => x.method === "DELETE");
  check(terminated === true && del?.status === 200 && del.sid === sid,
    `terminateSession: DELETE answered ${del?.status} (${terminated})`);
  check(transport.sessionId === undefined, "the transport dropped the session id");
  check(await waitFor(() => settled(inFlight), 3000),
    `the in-flight call's POST ended with the session: ${how(inFlight)}`);
  check(!answered(inFlight), "no answer for the call the session's end cancelled");
  const headers = {
    "content-type": "application/json", accept: "application/json, text/event-stream",
    "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25",
  };
  const post = await fetch(url, { method: "POST", headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 900, method: "tools/list" }) });
  const postBody = await post.text();
  check(post.status === 404, `POST tools/list with the ended session's id: ${post.status} ${postBody}`);
  const get = await fetch(url, { method: "GET", headers: { ...headers, accept: "text/event-stream" } });
  await get.body?.cancel();
  check(get.status === 404, `GET with the ended session's id: ${get.status}`);
  const del2 = await fetch(url, { method: "DELETE", headers });
  await del2.body?.cancel();
  check(del2.status === 404, `DELETE again with the ended session's id: ${del2.status}`);
  void pending;
}

// ---- resume (--poll-retry 300) ----------------------------------------------
async function resume() {
  const seen = [];
  let r;
  try {
    r = await client.callTool({ name: "count", arguments: { n: 5, delay_ms: 150 } }, undefined,
      { onprogress: (p) => seen.push(p.progress), timeout: 20000 });
  } catch (e) {
    r = { error: String(e) };
  }
  check(r.content?.[0]?.text === "counted to 5",
    `count answered across the reconnections: ${JSON.stringify(r.content?.[0]?.text ?? r.error)}`);
  const post = callPosts("count")[0];
  const id = post?.rpc.id;
  const primed = post?.events[0];
  check(post?.type === "text/event-stream" && !!primed?.id && (primed.data === undefined || primed.data === ""),
    `count's POST: ${post?.type}, first event id ${JSON.stringify(primed?.id)}, data ${JSON.stringify(primed?.data)}`);
  // 2025-11-25: the server SHOULD send the priming event at once, so that a
  // polled stream frees its connection before the call has anything to say.
  check(primed?.at - post?.started < 100,
    `the priming event came ${primed?.at - post?.started} ms after the POST (at once, not with count's first progress)`);
  check(post?.retry === 300, `the POST's stream asks for retry ${post?.retry} (want 300)`);
  check(post?.ended !== undefined && !post.events.some((e) => e.msg && e.msg.id === id),
    `our server closed the POST after ${post?.events.length} event(s), without the result`);
  // The chain of GETs that resumed the POST's stream: each one's
  // Last-Event-ID is an id the previous link delivered.
  const chain = [post];
  for (let link = post; link; ) {
    const ids = new Set(link.events.map((e) => e.id).filter(Boolean));
    link = exchanges.find((x) => x.method === "GET" && x.lastEventId && ids.has(x.lastEventId) && !chain.includes(x));
    if (link) chain.push(link);
  }
  const gets = chain.slice(1);
  info(`resumed with ${gets.map((g) => `GET Last-Event-ID ${g.lastEventId} -> ${g.status} ` +
    `[${g.events.map((e) => (e.msg ? e.msg.method ?? "result" : "prime")).join(",")}]`).join("; ")}`);
  check(gets.length >= 1 && gets.every((g) => g.status === 200 && g.sid === transport.sessionId),
    `the client reconnected ${gets.length} time(s) with Last-Event-ID, every GET 200`);
  // The SDK waits the server's retry before resuming (not its own 1 s backoff).
  const waited = gets[0] && post.ended !== undefined ? gets[0].started - post.ended : NaN;
  check(waited >= 250 && waited < 1000, `the client resumed ${waited} ms after the POST ended`);
  const msgs = chain.flatMap((x) => x.events).filter((e) => e.msg).map((e) => e.msg);
  const progress = msgs.filter((m) => m.method === "notifications/progress" &&
    m.params?.progressToken === post?.rpc.params?._meta?.progressToken).map((m) => m.params.progress);
  check(progress.join(",") === "1,2,3,4,5", `progress over the chain, each once, in order: ${progress.join(",")}`);
  const results = msgs.filter((m) => m.id === id && "result" in m);
  check(results.length === 1, `the result came exactly once (${results.length})`);
  check(seen.join(",") === "1,2,3,4,5", `the client's onprogress saw ${seen.join(",")}`);
  const eventIds = chain.flatMap((x) => x.events.map((e) => e.id).filter(Boolean));
  check(new Set(eventIds).size === eventIds.length, `no event id repeated across the chain (${eventIds.join(" ")})`);
  check(clientErrors.length === 0, `no client errors (${clientErrors.join("; ") || "none"})`);
  // The session's own GET stream is polled too, and stays usable.
  const r2 = await client.callTool({ name: "echo", arguments: { text: "after resuming" } });
  check(r2.content?.[0]?.text === "after resuming", "the session is still usable");
}
