// SPDX-License-Identifier: MIT
// bench_tasks' reference: the TypeScript SDK v1's client running tasks
// (2025-11-25) on the same SDK's server over stdio, 16 in flight, each a
// tools/call with params.task to its result (callToolStream: CreateTaskResult,
// tasks/get, tasks/result; the server's pollInterval 1 ms, its task done at
// once). Prints the task round trips per second of a 2 s run after a warm-up.
// Usage: node ts_task_bench.mjs          (the client; starts the server)
//        node ts_task_bench.mjs server
import { fileURLToPath } from "node:url";

if (process.argv[2] === "server") {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { InMemoryTaskStore } = await import("@modelcontextprotocol/sdk/experimental/tasks");
  const server = new McpServer({ name: "ts-task-bench", version: "1.0.0" }, {
    capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore: new InMemoryTaskStore(),
  });
  server.experimental.tasks.registerToolTask("task_echo", { description: "x at once" }, {
    getTask: async (_a, extra) => extra.taskStore.getTask(extra.taskId),
    getTaskResult: async (_a, extra) => extra.taskStore.getTaskResult(extra.taskId),
    createTask: async (extra) => {
      const task = await extra.taskStore.createTask({ ttl: 60000, pollInterval: 1 });
      await extra.taskStore.storeTaskResult(task.taskId, "completed",
        { content: [{ type: "text", text: "x" }] });
      return { task };
    },
  });
  await server.connect(new StdioServerTransport());
} else {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const { CallToolResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const client = new Client({ name: "ts-task-bench", version: "1.0.0" }, { capabilities: {} });
  await client.connect(new StdioClientTransport({
    command: process.execPath, args: [fileURLToPath(import.meta.url), "server"] }));
  const one = async () => {
    for await (const m of client.experimental.tasks.callToolStream(
      { name: "task_echo", arguments: {} }, CallToolResultSchema, { task: { ttl: 60000 } })) {
      if (m.type === "error") throw m.error;
    }
  };
  const run = async (ms) => {
    const end = Date.now() + ms;
    let done = 0;
    const worker = async () => { while (Date.now() < end) { await one(); done++; } };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 16 }, worker));
    return done / ((Date.now() - t0) / 1000);
  };
  await run(300);
  console.log((await run(2000)).toFixed(0));
  await client.close();
  process.exit(0);
}
