// SPDX-License-Identifier: MIT
// The official tasks requester, @modelcontextprotocol/ext-tasks 0.2.2 (over the
// TypeScript SDK v2 client 2.4.0), against `mcp serve` over stdio, in one
// protocol era:
//   node ext_tasks_client.mjs /path/to/mcp 2025-11-25|2026-07-28 [checks]
// 2025-11-25: core tasks (tools/call with params.task, the nested
// CreateTaskResult, tasks/get, tasks/result, tasks/cancel). 2026-07-28: the
// io.modelcontextprotocol/tasks extension (declared per request, the flat
// CreateTaskResult, tasks/get detailed, tasks/update, tasks/cancel), through
// the package's rawDispatch/v2RequestFraming path, since the SDK's own codecs
// do not carry those shapes: the host request coordinator below sends the
// framed request itself on the SDK's transport and matches the answer by id.
// The checks (by default result,cancel,input,iserror;
// or a comma-separated list):
//   result  a task-supporting tool and a task-only tool settled to their results
//   cancel  a long task cancelled through the session: it ends cancelled on the
//           server and our handler stops (mcp serve's log says so)
//   input   confirm asks a question inside its task. 2026-07-28: parked in the
//           task (input_required, inputRequests), answered by ext-tasks with
//           tasks/update; 2025-11-25: an elicitation/create naming the task
//           (related-task _meta), routed by ext-tasks to its input handler
//           (our server holds it until the client knows the task: a
//           tasks/result, or a tasks/get, which is all ext-tasks sends).
//           Either way the task completes with the answer.
//   iserror an isError tool result: 2025-11-25 a failed task whose tasks/result
//           is the isError CallToolResult; 2026-07-28 a completed task with it
// One "ok"/"not ok" line per check; exit 1 on any mismatch.
// EXT_TASKS_TRACE=1 writes every message of the session to stderr.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  createTaskSessionFromClient,
  DispatchError,
} from "@modelcontextprotocol/ext-tasks/client";

const [mcp, era, only] = process.argv.slice(2);
const ERAS = ["2025-11-25", "2026-07-28"];
if (!mcp || !ERAS.includes(era)) {
  process.stderr.write("usage: node ext_tasks_client.mjs /path/to/mcp 2025-11-25|2026-07-28 [checks]\n");
  process.exit(2);
}
const modern = era === "2026-07-28";
const wanted = (name) => (only ?? "result,cancel,input,iserror")
  .split(",").includes(name);
const trace = process.env.EXT_TASKS_TRACE === "1";

let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? "ok" : "not ok"} - [${era}] ${what}`);
  if (!ok) failures++;
  return ok;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (pred, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (await pred()) return true;
  return pred();
};
setTimeout(() => { console.log(`not ok - [${era}] the script did not finish in 45 s`); dumpWire(); process.exit(1); },
  45000).unref();

// Every message of the session, both ways, for the checks on the wire and
// for the report of a failed check.
const wire = [];
const record = (dir, msg) => {
  wire.push({ dir, msg });
  if (trace) process.stderr.write(`ext-tasks ${dir} ${JSON.stringify(msg)}\n`);
};
function dumpWire() {
  console.log(`# the wire (${wire.length} messages):`);
  for (const { dir, msg } of wire) console.log(`# ${dir} ${JSON.stringify(msg)}`);
}

const transport = new StdioClientTransport({ command: mcp, args: ["serve"], stderr: "pipe",
                                             env: { ...process.env } });
let serverLog = "";
transport.stderr.on("data", (d) => {
  serverLog += d.toString();
  if (trace) process.stderr.write(d);
});
const clientInfo = { name: "ext-tasks-interop", version: "1.0.0" };
const clientCapabilities = { elicitation: { form: {} } };
const client = new Client(clientInfo, {
  capabilities: clientCapabilities,
  ...(modern ? { versionNegotiation: { mode: { pin: era } } } : {}),
});
const sdkErrors = [];
client.onerror = (e) => sdkErrors.push(String(e?.message ?? e));
// No SDK elicitation handler: ext-tasks takes the 2025-11-25 questions
// through the SDK's fallback request handler (a registered handler would
// win over it), and a 2026-07-28 task's question travels in tasks/get.

await client.connect(transport, { timeout: 15000 });
const send = transport.send.bind(transport);
transport.send = (msg, options) => { record("->", msg); return send(msg, options); };

// The host request coordinator ext-tasks needs under 2026-07-28: it owns
// its request ids (a prefix the SDK never uses), writes the framed request
// on the SDK's transport and takes the answer with that id before the SDK
// sees it.
const pending = new Map();
const sdkOnMessage = transport.onmessage;
if (typeof sdkOnMessage !== "function") {
  console.log(`not ok - [${era}] the SDK's transport has no onmessage to share`);
  process.exit(1);
}
transport.onmessage = (msg, extra) => {
  record("<-", msg);
  if (msg && typeof msg.id === "string" && !("method" in msg) && pending.has(msg.id)) {
    pending.get(msg.id)(msg);
    return;
  }
  sdkOnMessage.call(transport, msg, extra);
};
let rawIds = 0;
const rawDispatch = (request, options = {}) => new Promise((resolve, reject) => {
  const id = `ext-tasks-${++rawIds}`;
  const signal = options.signal;
  const ms = options.context?.requestTimeoutMs ?? 15000;
  let timer;
  const done = () => { pending.delete(id); clearTimeout(timer); signal?.removeEventListener("abort", onAbort); };
  const onAbort = () => {
    done();
    transport.send({ jsonrpc: "2.0", method: "notifications/cancelled",
                     params: { requestId: id, reason: "aborted by ext-tasks",
                               _meta: request.params?._meta ?? {} } }).catch(() => {});
    reject(signal.reason instanceof Error ? signal.reason : new DispatchError("aborted"));
  };
  if (signal?.aborted) return onAbort();
  signal?.addEventListener("abort", onAbort, { once: true });
  timer = setTimeout(() => { done(); reject(new DispatchError(`${request.method}: no answer in ${ms} ms`)); }, ms);
  pending.set(id, (msg) => {
    done();
    resolve(msg.error ? { kind: "error", error: msg.error } : { kind: "result", result: msg.result });
  });
  transport.send({ jsonrpc: "2.0", id, ...request }).catch((e) => {
    done();
    reject(new DispatchError(`send failed: ${e?.message ?? e}`));
  });
});

check(client.getNegotiatedProtocolVersion() === era,
  `connected to ${JSON.stringify(client.getServerVersion()?.name)}, negotiated ${client.getNegotiatedProtocolVersion()}`);

// What the input handler was asked, for the input check.
const inputs = [];
const backgroundErrors = [];
const session = createTaskSessionFromClient(client, {
  endpointId: "mcp-serve",
  ...(modern ? { rawDispatch, v2RequestFraming: { protocolVersion: era, clientInfo, clientCapabilities } } : {}),
  onInputRequest: async (request, context) => {
    inputs.push({ request, context });
    return { action: "accept", content: { ok: true } };
  },
  onError: (e) => backgroundErrors.push(String(e?.message ?? e)),
});
check(session.capabilities.execution && session.capabilities.cancellation &&
      session.capabilities.inputResponses === modern,
  `the session sees ${modern ? "the tasks extension" : "core tasks"}: ${JSON.stringify(session.capabilities)}`);

const text = (r) => r?.content?.[0]?.text;
const tasksCalls = (method, taskId) =>
  wire.filter((w) => w.dir === "->" && w.msg.method === method && (!taskId || w.msg.params?.taskId === taskId));
const firstAnswerTo = (id) => wire.find((w) => w.dir === "<-" && w.msg.id === id && !("method" in w.msg))?.msg;

// Runs one tool call as a task to its settlement, recording the statuses seen.
async function runTask(name, args, preference = "require") {
  const statuses = [];
  const execution = await session.callTool(name, args, { task: { preference, retentionMs: 60000 } });
  if (execution.kind !== "task") return { execution, statuses };
  const { outcome } = await execution.settle({
    onEvent: (e) => statuses.push(e.type === "task" ? e.task.status : `outcome:${e.outcome.status}`),
  });
  return { execution, outcome, statuses };
}

// (a) results.
if (wanted("result")) {
  const { execution, outcome, statuses } = await runTask("count", { n: 3, delay_ms: 50 });
  check(execution.kind === "task", `count (taskSupport optional) runs as a task (${execution.kind})`);
  const call = tasksCalls("tools/call").at(-1)?.msg;
  check(modern ? call?.params?._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.["io.modelcontextprotocol/tasks"] !== undefined &&
                 call?.params?.task === undefined
               : call?.params?.task?.ttl === 60000,
    modern ? "tools/call declares the extension in its per-request capabilities"
           : `tools/call carries params.task (${JSON.stringify(call?.params?.task)})`);
  const created = firstAnswerTo(call?.id)?.result;
  check(modern ? created?.resultType === "task" && typeof created?.taskId === "string"
               : typeof created?.task?.taskId === "string" && created?.task?.status === "working",
    `the CreateTaskResult is ${modern ? "flat, resultType task" : "nested (result.task)"}: ${JSON.stringify(created)}`);
  check(outcome?.status === "completed" && text(outcome.result) === "counted to 3",
    `count settles completed with its text (${outcome?.status}: ${JSON.stringify(text(outcome?.result))}; seen ${statuses.join(",")})`);
  check(modern ? tasksCalls("tasks/get", execution.handle?.taskId).length > 0 && tasksCalls("tasks/result").length === 0
               : tasksCalls("tasks/result", execution.handle?.taskId).length === 1,
    modern ? "the result came inline in tasks/get (no tasks/result)" : "the result came by tasks/result");

  const job = await runTask("job", { n: 2, delay_ms: 20 }, "allow");
  check(job.execution.kind === "task" && job.outcome?.status === "completed" && text(job.outcome.result) === "counted to 2",
    `job (taskSupport required), default preference: a task, completed (${job.execution.kind}, ${job.outcome?.status}: ${JSON.stringify(text(job.outcome?.result))})`);
}

// (b) cancel.
if (wanted("cancel")) {
  const execution = await session.callTool("sleep", { seconds: 30 }, { task: { preference: "require" } });
  check(execution.kind === "task", `sleep 30 s runs as a task (${execution.kind})`);
  const taskId = execution.handle?.taskId;
  await sleep(300); // the handler is running
  const started = Date.now();
  await session.cancelTask(taskId);
  const outcome = await execution.result();
  check(outcome.status === "cancelled", `the session's cancel settles the execution cancelled (${outcome.status}, ${Date.now() - started} ms)`);
  const cancel = tasksCalls("tasks/cancel", taskId).at(0)?.msg;
  const ack = firstAnswerTo(cancel?.id);
  check(modern ? ack?.result !== undefined && ack?.result?.status === undefined
               : ack?.result?.status === "cancelled" && ack?.result?.taskId === taskId,
    `tasks/cancel answered ${JSON.stringify(ack?.result ?? ack?.error)}`);
  let last;
  const ended = await waitFor(async () => (last = await session.task(taskId).snapshot()).status === "cancelled", 3000);
  check(ended, `the server's task ends cancelled (tasks/get: ${last?.status})`);
  const stopped = await waitFor(() => /sleep: cancelled after \d+ ms \([^)]*cancel/.test(serverLog), 3000);
  check(stopped, `our handler stopped: ${(serverLog.match(/.*sleep: cancelled after.*/) ?? ["(no such line in mcp serve's log)"])[0].trim()}`);
}

// (c) input.
if (wanted("input")) {
  const before = inputs.length;
  const { execution, outcome, statuses } = await runTask("confirm", { question: "Ship it?" });
  const taskId = execution.handle?.taskId;
  check(execution.kind === "task", `confirm runs as a task (${execution.kind})`);
  const asked = inputs.slice(before);
  if (modern) {
    const parked = wire.find((w) => w.dir === "<-" && w.msg.result?.taskId === taskId &&
                                    w.msg.result?.status === "input_required")?.msg.result;
    const question = parked && Object.values(parked.inputRequests ?? {})[0];
    check(question?.method === "elicitation/create" && question?.params?.message === "Ship it?",
      `tasks/get shows input_required with the question in inputRequests: ${JSON.stringify(parked?.inputRequests)}`);
    check(asked.length === 1 && asked[0].request.kind === "elicitation" && asked[0].context.delivery === "task-update" &&
          asked[0].context.taskId === taskId && parked?.inputRequests?.[asked[0].context.inputId] !== undefined,
      `ext-tasks routed it to onInputRequest once, as a task update (${JSON.stringify(asked.map((a) => a.context))})`);
    const update = tasksCalls("tasks/update", taskId).at(0)?.msg;
    check(update !== undefined && Object.values(update.params.inputResponses ?? {})[0]?.action === "accept" &&
          firstAnswerTo(update.id)?.result?.resultType === "complete",
      `tasks/update carried the answer and was acknowledged (${JSON.stringify(update?.params?.inputResponses)} -> ${JSON.stringify(firstAnswerTo(update?.id)?.result ?? firstAnswerTo(update?.id)?.error)})`);
    check(!wire.some((w) => w.dir === "<-" && w.msg.method === "elicitation/create"),
      "no elicitation/create request was sent to the client");
  } else {
    const request = wire.find((w) => w.dir === "<-" && w.msg.method === "elicitation/create")?.msg;
    check(request?.params?._meta?.["io.modelcontextprotocol/related-task"]?.taskId === taskId &&
          request?.params?.message === "Ship it?",
      `elicitation/create names the task (related-task _meta): ${JSON.stringify(request?.params?._meta)}`);
    check(asked.length === 1 && asked[0].request.kind === "elicitation" && asked[0].context.scope === "task" &&
          asked[0].context.delivery === "peer-request" && asked[0].context.taskId === taskId,
      `ext-tasks routed it to onInputRequest once, for the task (${JSON.stringify(asked.map((a) => a.context))})`);
    const answer = wire.find((w) => w.dir === "->" && w.msg.id === request?.id && !("method" in w.msg))?.msg;
    check(answer?.result?.action === "accept" && answer?.result?.content?.ok === true,
      `the answer went back as the elicitation's result (${JSON.stringify(answer?.result ?? answer?.error)})`);
  }
  check(outcome?.status === "completed" && text(outcome.result) === "confirmed",
    `the task completes with the answer (${outcome?.status}: ${JSON.stringify(text(outcome?.result) ?? outcome?.error?.message)}; seen ${statuses.join(",")})`);
}

// (d) an isError result.
if (wanted("iserror")) {
  const { execution, outcome, statuses } = await runTask("fail", { message: "boom" });
  const taskId = execution.handle?.taskId;
  check(execution.kind === "task", `fail runs as a task (${execution.kind})`);
  if (modern) {
    check(outcome?.status === "completed" && outcome.result?.isError === true && text(outcome.result) === "boom",
      `2026-07-28: completed, the result isError with the message (${outcome?.status}: ${JSON.stringify(outcome?.result ?? outcome?.error?.message)}; seen ${statuses.join(",")})`);
  } else {
    check(outcome?.status === "failed",
      `2025-11-25: the task fails (${outcome?.status}: ${outcome?.error?.message ?? JSON.stringify(outcome?.result)}; seen ${statuses.join(",")})`);
    // ext-tasks does not ask tasks/result of a failed task (it reports the
    // statusMessage): ask it here, as 2025-11-25 says the result is there.
    const anyJson = { "~standard": { version: 1, vendor: "interop", validate: (value) => ({ value }) } };
    let payload, error;
    try {
      payload = await client.request({ method: "tasks/result", params: { taskId } }, anyJson);
    } catch (e) {
      error = e;
    }
    check(payload?.isError === true && text(payload) === "boom" &&
          payload?._meta?.["io.modelcontextprotocol/related-task"]?.taskId === taskId,
      `2025-11-25: tasks/result is the isError CallToolResult (${JSON.stringify(payload ?? error?.message)})`);
  }
}

check(backgroundErrors.length === 0, `no background errors from ext-tasks (${JSON.stringify(backgroundErrors)})`);
check(sdkErrors.length === 0, `no errors from the SDK client (${JSON.stringify(sdkErrors)})`);
await session.close();
await client.close();
if (failures) dumpWire();
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exit(failures ? 1 : 0);
