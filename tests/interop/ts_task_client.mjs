// SPDX-License-Identifier: MIT
// The official TypeScript SDK v1 client (its experimental tasks, 2025-11-25)
// against `mcp serve` over stdio: the tools' execution.taskSupport as it
// reads them, a required tool run as a task to its result, our task
// cancelled with tasks/cancel (the SDK's cancelTask) and our handler
// stopping (our server's log says so), the errors it gets for unknown and
// finished tasks, tasks/list, and tasks/result with the related-task _meta.
// Usage: node ts_task_client.mjs /path/to/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

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
setTimeout(() => { console.log("not ok - the script did not finish in 60 s"); process.exit(1); },
  60000).unref();

const transport = new StdioClientTransport({ command: mcp, args: ["serve"], stderr: "pipe" });
let serverLog = "";
transport.stderr.on("data", (d) => { serverLog += d.toString(); });
const client = new Client({ name: "ts-task-client", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params);
  return { action: "accept", content: { ok: true } };
});
await client.connect(transport);
check(client.getServerVersion()?.name === "mcp serve", "connected to mcp serve");
const caps = client.getServerCapabilities();
check(!!caps?.tasks?.requests?.tools?.call && !!caps?.tasks?.cancel && !!caps?.tasks?.list,
  "the server declares tasks: list, cancel, requests.tools.call");

const { tools } = await client.listTools();
const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
check(support.job === "required" && support.sleep === "optional" && support.echo === undefined,
  `execution.taskSupport read as listed (job ${support.job}, sleep ${support.sleep})`);

// A required tool, run as a task to its end.
const kinds = [];
let result = null;
for await (const m of client.experimental.tasks.callToolStream(
  { name: "job", arguments: { n: 3, delay_ms: 50 } }, CallToolResultSchema, { task: { ttl: 60000 } })) {
  kinds.push(m.type);
  if (m.type === "result") result = m.result;
  if (m.type === "error") console.log(`# error: ${m.error}`);
}
check(kinds[0] === "taskCreated", `the stream starts with taskCreated (${kinds.join(",")})`);
check(result?.content?.[0]?.text === "counted to 3", "the task's result is the tool's");

// A task cancelled by the client: our handler stops.
let created = null, cancelled = null, streamError = null;
for await (const m of client.experimental.tasks.callToolStream(
  { name: "sleep", arguments: { seconds: 30 } }, CallToolResultSchema, { task: { ttl: 60000 } })) {
  if (m.type === "taskCreated") {
    created = m.task;
    cancelled = await client.experimental.tasks.cancelTask(created.taskId);
  }
  if (m.type === "error") streamError = String(m.error);
}
check(cancelled?.status === "cancelled" && cancelled?.taskId === created?.taskId,
  "tasks/cancel answers the task, cancelled");
check(/cancelled/.test(streamError ?? ""), `the stream ends with the cancel (${streamError})`);
const handlerStopped = await waitFor(() => /sleep: cancelled after \d+ ms \(the task was cancelled \(tasks\/cancel\)\)/.test(serverLog), 3000);
check(handlerStopped, "our handler stopped, with the task's cancel as its reason");
if (!handlerStopped) console.log("# the server's log:\n" + serverLog.replace(/^/gm, "#   "));

const code = async (p) => { try { await p; return "no error"; } catch (e) { return e.code; } };
check(await code(client.experimental.tasks.cancelTask(created.taskId)) === -32602,
  "cancelling a cancelled task: -32602");
check(await code(client.experimental.tasks.getTask("0123456789abcdef0123456789abcdef")) === -32602,
  "an unknown task: -32602");
const got = await client.experimental.tasks.getTask(created.taskId);
check(got.status === "cancelled" && typeof got.ttl === "number" && got.createdAt && got.lastUpdatedAt,
  "tasks/get: the task as the schema has it");
const listed = await client.experimental.tasks.listTasks();
check(listed.tasks.length === 2, `tasks/list: the session's 2 tasks (${listed.tasks.length})`);
const done = listed.tasks.find((t) => t.status === "completed");
const payload = await client.experimental.tasks.getTaskResult(done.taskId, CallToolResultSchema);
check(payload.content?.[0]?.text === "counted to 3" &&
  payload._meta?.["io.modelcontextprotocol/related-task"]?.taskId === done.taskId,
  "tasks/result: the result with the related-task _meta");

// A task whose handler asks (confirm): input_required, the question with
// the related-task _meta, answered, the task's result.
let confirmed = null, sawInput = false;
for await (const m of client.experimental.tasks.callToolStream(
  { name: "confirm", arguments: { question: "Go on?" } }, CallToolResultSchema, { task: { ttl: 60000 } })) {
  if (m.type === "taskStatus" && m.task.status === "input_required") sawInput = true;
  if (m.type === "result") confirmed = m.result;
  if (m.type === "error") console.log(`# error: ${m.error}`);
}
check(asked.length === 1 && asked[0]._meta?.["io.modelcontextprotocol/related-task"]?.taskId,
  "the task's question names the task (related-task _meta)");
check(confirmed?.content?.[0]?.text === "confirmed",
  `the task's result follows the answer (${confirmed?.content?.[0]?.text}; input_required seen: ${sawInput})`);

await client.close();
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exit(failures ? 1 : 0);
