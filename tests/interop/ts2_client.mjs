// SPDX-License-Identifier: MIT
// A client on the official TypeScript SDK v2 (@modelcontextprotocol/client
// 2.4.0), pinned to protocol revision 2026-07-28, against any stdio server:
//   node ts2_client.mjs <command> [args...]
// e.g. `node ts2_client.mjs node ts2_server.mjs` or `node ts2_client.mjs build/mcp serve`.
// It prints one "ok: ..." line per step and exits 0, or prints "FAIL: ..." and
// exits 1. Steps: tools/list (echo, sleep, count), echo (NUL and non-ASCII
// text back exactly), count with progress (values strictly increase), sleep
// aborted after 300 ms (prompt rejection, no late answer), subscriptions/listen
// for toolsListChanged, add_tool (only when the server lists it) and the
// list_changed notification on the subscription, closing the subscription,
// closing the client.
//
// The server gets this process's whole environment (the SDK's default would pass
// only HOME, LOGNAME, PATH, SHELL, TERM, USER) and its stderr is passed through.
// TS2_TRACE=1 writes every wire message to stderr: "ts2 client -> {json}" as the
// SDK serialised it, "ts2 client <- line" as the raw line read from the server's
// stdout. The SDK's base StdioClientTransport runs the connect-time
// `server/discover` probe on a separate, short-lived copy of the server process
// (stderr discarded) and then starts the session process, which never sees the
// probe; the probe is traced as "ts2 client [probe] ->" / "[probe] <-".
// TS2_PROBE_IN_PLACE=1 uses a subclass of the transport instead, for which the
// SDK probes on the session process itself (one process, discover first).
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const REVISION = "2026-07-28";
const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write("usage: node ts2_client.mjs <server command> [args...]\n");
  process.exit(2);
}
const traceOn = process.env.TS2_TRACE === "1";
const started = Date.now();
const elapsed = () => `${Date.now() - started} ms`;

const fail = (what) => {
  console.log(`FAIL: ${what}`);
  process.exit(1);
};
const ok = (what) => console.log(`ok: ${what}`);
const check = (cond, what) => (cond ? ok(what) : fail(what));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (pred, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) if (pred()) return true;
  return pred();
};
// Rejects when `p` does not settle in `ms`.
const within = (p, ms, what) => Promise.race([p, sleep(ms).then(() => { throw new Error(`${what}: no answer in ${ms} ms`); })]);
// The whole script must finish; a hang is a failure, not a stuck CI job.
setTimeout(() => fail(`script did not finish in 60 s`), 60000).unref();

// Every message of the session process, in both directions, parsed from the
// exact bytes; used by the checks below whether or not tracing is on.
const wire = [];
function instrument(t, label) {
  const tag = label ? `ts2 client ${label}` : "ts2 client";
  const origSend = t.send;
  t.send = function (msg, options) {
    if (!label) wire.push({ dir: "out", msg, at: Date.now() });
    if (traceOn) process.stderr.write(`${tag} -> ${JSON.stringify(msg)}\n`);
    return origSend.call(this, msg, options);
  };
  const origStart = t.start;
  t.start = async function () {
    await origStart.call(this);
    // A second reader on the child's stdout (`_process` is the SDK's private
    // child handle): records each line exactly as the server wrote it, where
    // the SDK's own parse would normalise it.
    let buf = Buffer.alloc(0);
    this._process?.stdout?.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (let i; (i = buf.indexOf(10)) >= 0; ) {
        const line = buf.toString("utf8", 0, i);
        buf = buf.subarray(i + 1);
        if (traceOn) process.stderr.write(`${tag} <- ${line}\n`);
        if (!label) {
          try { wire.push({ dir: "in", msg: JSON.parse(line), at: Date.now() }); } catch { /* not JSON */ }
        }
      }
    });
  };
  return t;
}

const params = { command, args, stderr: "inherit", env: { ...process.env } };
let transport;
if (process.env.TS2_PROBE_IN_PLACE === "1") {
  class InPlaceStdioClientTransport extends StdioClientTransport {}
  transport = instrument(new InPlaceStdioClientTransport(params), "");
} else {
  transport = instrument(new StdioClientTransport(params), "");
  // The SDK builds the probe sibling with `new transport.constructor(params)`;
  // hand it a traced instance of the same base class.
  function TracedProbeSibling(p) { return instrument(new StdioClientTransport(p), "[probe]"); }
  Object.defineProperty(transport, "constructor", { value: TracedProbeSibling });
}

const clientErrors = [];
const client = new Client({ name: "ts2-interop-client", version: "1.0.0" }, {
  versionNegotiation: { mode: { pin: REVISION } },
});
client.onerror = (e) => {
  clientErrors.push(String(e?.message ?? e));
  if (traceOn) process.stderr.write(`ts2 client: onerror: ${e?.message ?? e}\n`);
};

// Any exception (an SDK error from a call, say) is a failure too.
async function main() {
  // 0. Connect: the pinned probe must succeed, and the era must be modern.
  try {
    await client.connect(transport, { timeout: 15000 });
  } catch (e) {
    fail(`connect pinned to ${REVISION}: ${e?.message ?? e}`);
  }
  check(client.getNegotiatedProtocolVersion() === REVISION && client.getProtocolEra() === "modern",
    `connected, negotiated ${client.getNegotiatedProtocolVersion()} (era ${client.getProtocolEra()}), ` +
    `server ${JSON.stringify(client.getServerVersion() ?? null)}`);

  // 1. tools/list.
  const { tools } = await within(client.listTools(), 10000, "tools/list");
  const names = tools.map((t) => t.name);
  check(["echo", "sleep", "count"].every((n) => names.includes(n)), `tools/list: ${names.join(", ")}`);

  // 2. echo: NUL, control, non-BMP, U+2028 line separator, quotes, backslash.
  const text = "nul:\u0000 tab:\t cr:\r lf:\n é ü 中文 😀 \u2028 \" \\ end";
  const r2 = await within(client.callTool({ name: "echo", arguments: { text } }), 10000, "echo");
  const back = r2.content?.[0]?.text;
  const show = (v) => JSON.stringify(v)?.replace(/\u2028/g, "\\u2028");
  check(back === text && !r2.isError, `echo round-trips ${show(text)}` + (back === text ? "" : ` (got ${show(back)})`));

  // 3. count with progress.
  const seen = [];
  const r3 = await within(client.callTool({ name: "count", arguments: { n: 5, delay_ms: 20 } },
    { onprogress: (p) => seen.push(p.progress) }), 10000, "count");
  check(r3.content?.[0]?.text === "counted to 5", `count answered ${JSON.stringify(r3.content?.[0]?.text)}`);
  check(seen.length > 0 && seen.every((v, i) => i === 0 || v > seen[i - 1]),
    `progress strictly increasing: ${seen.join(", ")}`);

  // 4. sleep 30 s, aborted after 300 ms.
  const ac = new AbortController();
  const t0 = Date.now();
  const outcome = client.callTool({ name: "sleep", arguments: { seconds: 30 } }, { signal: ac.signal })
    .then((r) => ({ ok: true, r }), (e) => ({ ok: false, e, at: Date.now() }));
  await sleep(300);
  const reason = "aborted by the ts2 client";
  const abortAt = Date.now();
  ac.abort(reason);
  const o4 = await within(outcome, 5000, "aborted sleep");
  check(!o4.ok && o4.at - abortAt < 1000,
    `aborted sleep rejected after ${o4.at - abortAt} ms: ${o4.e?.constructor?.name} code=${o4.e?.code} ${o4.e?.message}`);
  const sleepReq = wire.find((w) => w.dir === "out" && w.msg.method === "tools/call" && w.msg.params?.name === "sleep");
  const cancel = wire.find((w) => w.dir === "out" && w.msg.method === "notifications/cancelled" &&
    w.msg.params?.requestId === sleepReq?.msg.id);
  check(cancel !== undefined, `notifications/cancelled sent for request ${sleepReq?.msg.id} ` +
    `(reason ${JSON.stringify(cancel?.msg.params?.reason)}, ${cancel?.at - t0} ms after the call)`);
  // Another request after the abort; the server must answer it and nothing for the aborted one.
  const r4 = await within(client.callTool({ name: "echo", arguments: { text: "after abort" } }), 10000, "echo after abort");
  check(r4.content?.[0]?.text === "after abort", "connection still usable after the abort");
  await sleep(700);
  const late = wire.filter((w) => w.dir === "in" && w.msg.id === sleepReq?.msg.id);
  check(late.length === 0, `no late response for the aborted request ${sleepReq?.msg.id}` +
    (late.length ? ` (got ${JSON.stringify(late[0].msg)})` : ""));
  const lateProgress = wire.filter((w) => w.dir === "in" && w.at > cancel.at &&
    w.msg.method === "notifications/progress" && w.msg.params?.progressToken === sleepReq?.msg.id);
  check(lateProgress.length === 0, "no progress for the aborted request after its cancel");

  // 5. subscriptions/listen for toolsListChanged.
  let changes = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => { changes++; });
  const sub = await within(client.listen({ toolsListChanged: true }, { timeout: 10000 }), 10000, "subscriptions/listen");
  const listenReq = wire.find((w) => w.dir === "out" && w.msg.method === "subscriptions/listen");
  check(sub.honoredFilter?.toolsListChanged === true,
    `subscriptions/listen ${JSON.stringify(listenReq?.msg.id)} acknowledged, honored ${JSON.stringify(sub.honoredFilter)}`);
  let subClosedBy;
  sub.closed.then((c) => { subClosedBy = c; });

  // 6. add_tool (when offered) and the list_changed notification on the subscription.
  if (names.includes("add_tool")) {
    const added = `runtime_${process.pid}`;
    const r6 = await within(client.callTool({ name: "add_tool", arguments: { name: added } }), 10000, "add_tool");
    check(!r6.isError, `add_tool ${added}: ${JSON.stringify(r6.content?.[0]?.text)}`);
    check(await waitFor(() => changes > 0, 5000), "tools/list_changed arrived on the subscription");
    const note = wire.find((w) => w.dir === "in" && w.msg.method === "notifications/tools/list_changed");
    const sid = note?.msg.params?._meta?.["io.modelcontextprotocol/subscriptionId"];
    check(sid === listenReq?.msg.id, `list_changed carries subscriptionId ${JSON.stringify(sid)}`);
    const again = await within(client.listTools(), 10000, "tools/list after add_tool");
    check(again.tools.some((t) => t.name === added), `tools/list now includes ${added}`);
  } else {
    ok("server lists no add_tool: list_changed step skipped");
  }

  // 7. Close the subscription (notifications/cancelled for the listen id), then the client.
  await sub.close();
  check(await waitFor(() => subClosedBy === "local", 1000), `subscription closed (${subClosedBy})`);
  const listenCancel = wire.find((w) => w.dir === "out" && w.msg.method === "notifications/cancelled" &&
    w.msg.params?.requestId === listenReq?.msg.id);
  check(listenCancel !== undefined, `notifications/cancelled sent for the listen ${JSON.stringify(listenReq?.msg.id)}`);
  await sleep(200);
  const closeStart = Date.now();
  await client.close();
  ok(`client closed in ${Date.now() - closeStart} ms`);
  // The SDK runs notification handlers a microtask after responses, so a last
  // progress read together with its result reaches onerror as "unknown token".
  const unexpected = clientErrors.filter((e) => !/unknown message ID|unknown token/i.test(e));
  check(unexpected.length === 0, clientErrors.length === 0 ? "no client errors"
    : `no client errors but the SDK's late-dispatch reports (${clientErrors.join("; ")})`);
  console.log(`all steps passed (${elapsed()})`);
  process.exit(0);
}
main().catch((e) => fail(`unexpected error: ${e?.stack ?? e}`));
