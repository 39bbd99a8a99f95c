// SPDX-License-Identifier: MIT
// An official TypeScript SDK v1 server with experimental tasks (2025-11-25),
// for our client to run tasks against (test_interop_tasks.c), over stdio:
//   quick       a task that completes after 100 ms with "quick done"
//   forever     a task that runs until it is cancelled
//   slowcreate  the same, whose CreateTaskResult takes 500 ms to come (a
//               client that times out first must still cancel the task)
//   plain       an ordinary tool (taskSupport forbidden)
// Each task says on stderr when it is made and when it sees itself
// cancelled ("created <id>", "cancelled <id>"); every notifications/cancelled
// that reaches the server is said too ("notifications/cancelled <requestId>").
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { CancelledNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const store = new InMemoryTaskStore();
const server = new McpServer({ name: "ts-task-server", version: "1.0.0" }, {
  capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
  taskStore: store,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Poll the store until the task is cancelled (v1's cancel only changes it).
const runUntilCancelled = (taskId) => {
  const timer = setInterval(async () => {
    const t = await store.getTask(taskId);
    if (!t || t.status === "cancelled") {
      clearInterval(timer);
      console.error(`cancelled ${taskId}`);
    }
  }, 20);
};

const unused = {
  getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
};

server.experimental.tasks.registerToolTask("quick", { description: "done in 100 ms" }, {
  ...unused,
  createTask: async (extra) => {
    const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 60000,
      pollInterval: 50 });
    console.error(`created ${task.taskId}`);
    setTimeout(() => extra.taskStore.storeTaskResult(task.taskId, "completed",
      { content: [{ type: "text", text: "quick done" }] }), 100);
    return { task };
  },
});

server.experimental.tasks.registerToolTask("forever", { description: "until cancelled" }, {
  ...unused,
  createTask: async (extra) => {
    const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 60000,
      pollInterval: 50 });
    console.error(`created ${task.taskId}`);
    runUntilCancelled(task.taskId);
    return { task };
  },
});

server.experimental.tasks.registerToolTask("slowcreate", { description: "slow to start" }, {
  ...unused,
  createTask: async (extra) => {
    await sleep(500);
    const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 60000,
      pollInterval: 50 });
    console.error(`created ${task.taskId}`);
    runUntilCancelled(task.taskId);
    return { task };
  },
});

server.registerTool("plain", { description: "an ordinary tool" }, async () => ({
  content: [{ type: "text", text: "plain done" }],
}));

// Say which cancels arrive, and keep the SDK's own handling of them.
const protocol = server.server;
const own = protocol._notificationHandlers.get("notifications/cancelled");
protocol.setNotificationHandler(CancelledNotificationSchema, (n) => {
  console.error(`notifications/cancelled ${n.params.requestId}`);
  return own?.(n);
});

await server.connect(new StdioServerTransport());
