// SPDX-License-Identifier: MIT
// The official tasks requester, @modelcontextprotocol/ext-tasks 0.2.2 over the
// TypeScript SDK v2 client 2.4.0 (2026-07-28, the io.modelcontextprotocol/tasks
// extension), against a load balancer in front of several `mcp serve --http
// --task-store redis://...` processes (tests/integration/test_cluster_tasks.sh):
//
//   node ts_cluster_tasks_client.mjs URL [HEADER: VALUE]
//
// Driven line by line on stdin, so that the script driving it can read the
// balancer's log between two requests:
//   create TOOL ARGS_JSON   tools/call as a task (preference require):
//                           "created ID"
//   get ID                  one tasks/get: "status ID STATUS", then
//                           "input KEY" per pending input request
//   answer ID KEY           tasks/update: KEY accepted with {"ok":true}
//   cancel ID               tasks/cancel: "cancel-sent MS", "cancel-acked MS"
//                           (Date.now() before the request and after its answer)
//   quit
// Each command ends with "=> ok COMMAND" or "=> error COMMAND: MESSAGE".
// The execution is detached as soon as it is created: every request after
// it is one the driver asked for (ext-tasks polls nothing by itself).
// ext-tasks needs a host request coordinator under 2026-07-28 (its framed
// requests are not the SDK's shapes): rawDispatch below writes them on the
// SDK's transport and takes the answer with its id before the SDK sees it
// (as ext_tasks_client.mjs does over stdio).
import { createInterface } from "node:readline";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, DispatchError } from "@modelcontextprotocol/ext-tasks/client";

const [url, header] = process.argv.slice(2);
if (!url) {
  process.stderr.write("usage: node ts_cluster_tasks_client.mjs URL ['NAME: VALUE']\n");
  process.exit(2);
}
const era = "2026-07-28";
const headers = {};
if (header) {
  const i = header.indexOf(":");
  headers[header.slice(0, i).trim()] = header.slice(i + 1).trim();
}
const say = (line) => process.stdout.write(line + "\n");

const clientInfo = { name: "ts-cluster-tasks", version: "1.0.0" };
const clientCapabilities = { elicitation: { form: {} } };
const client = new Client(clientInfo, {
  capabilities: clientCapabilities,
  versionNegotiation: { mode: { pin: era } },
});
const sdkErrors = [];
client.onerror = (e) => sdkErrors.push(String(e?.message ?? e));
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
await client.connect(transport, { timeout: 15000 });

const pending = new Map();
const sdkOnMessage = transport.onmessage;
transport.onmessage = (msg, extra) => {
  if (msg && typeof msg.id === "string" && !("method" in msg) && pending.has(msg.id)) {
    pending.get(msg.id)(msg);
    return;
  }
  sdkOnMessage.call(transport, msg, extra);
};
let rawIds = 0;
const rawDispatch = (request, options = {}) => new Promise((resolve, reject) => {
  const id = `ts-cluster-${++rawIds}`;
  const ms = options.context?.requestTimeoutMs ?? 15000;
  const timer = setTimeout(() => {
    pending.delete(id);
    reject(new DispatchError(`${request.method}: no answer in ${ms} ms`));
  }, ms);
  pending.set(id, (msg) => {
    pending.delete(id);
    clearTimeout(timer);
    resolve(msg.error ? { kind: "error", error: msg.error } : { kind: "result", result: msg.result });
  });
  transport.send({ jsonrpc: "2.0", id, ...request }).catch((e) => {
    pending.delete(id);
    clearTimeout(timer);
    reject(new DispatchError(`send failed: ${e?.message ?? e}`));
  });
});
const session = createTaskSessionFromClient(client, {
  endpointId: "mcp-cluster",
  rawDispatch,
  v2RequestFraming: { protocolVersion: era, clientInfo, clientCapabilities },
  onInputRequest: async () => ({ action: "decline" }),
});
say(`connected ${client.getNegotiatedProtocolVersion()} ${JSON.stringify(session.capabilities)}`);

const commands = {
  async create(tool, args) {
    const execution = await session.callTool(tool, JSON.parse(args ?? "{}"), { task: { preference: "require" } });
    if (execution.kind !== "task") throw new Error(`${tool} did not run as a task (${execution.kind})`);
    await execution.detach();
    say(`created ${execution.handle.taskId}`);
  },
  async get(id) {
    const view = await session.task(id).snapshot();
    say(`status ${id} ${view.status}${view.statusMessage ? " " + view.statusMessage : ""}`);
    for (const key of Object.keys(view.raw?.inputRequests ?? {})) say(`input ${key}`);
  },
  async answer(id, key) {
    await session.task(id).update({ [key]: { action: "accept", content: { ok: true } } });
  },
  async cancel(id) {
    say(`cancel-sent ${Date.now()}`);
    await session.task(id).cancel();
    say(`cancel-acked ${Date.now()}`);
  },
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [cmd, ...args] = line.trim().split(/\s+/);
  if (!cmd) continue;
  if (cmd === "quit") break;
  // ARGS_JSON may hold spaces: everything after the tool's name.
  const rest = cmd === "create" ? [args[0], line.trim().split(/\s+/).slice(2).join(" ")] : args;
  try {
    if (!commands[cmd]) throw new Error("unknown command");
    await commands[cmd](...rest);
    say(`=> ok ${cmd}`);
  } catch (e) {
    say(`=> error ${cmd}: ${e?.message ?? e}`);
  }
}
if (sdkErrors.length) say(`sdk errors: ${JSON.stringify(sdkErrors)}`);
await session.close();
await client.close();
process.exit(0);
