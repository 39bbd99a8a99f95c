// SPDX-License-Identifier: MIT
// A server on the official TypeScript SDK v2 (@modelcontextprotocol/server
// 2.4.0) for libmcp's client and for ts2_client.mjs. It is served through
// `serveStdio`, the v2 stdio entry that picks the era from the opening
// message: a request carrying the 2026-07-28 `_meta` envelope (or a
// `server/discover` probe) gets a modern, stateless instance; `initialize`
// gets the legacy 2025-11-25 instance. (A McpServer connected straight to a
// StdioServerTransport would serve only the legacy era.)
//
//   echo {text}                 text content with `text`, unchanged
//   sleep {seconds}             waits, honouring the abort signal
//   count {n, delay_ms}         progress 1..n (when a progressToken is sent), then "counted to n"
//   add_tool {name}             registers tool `name` (it echoes), so tools/list_changed goes to listeners
// and the resources, prompts and completion of ts_features.mjs.
//
// stderr, one line each, prefixed "ts2 server: ":
//   every notifications/cancelled it receives, with its reason (including the
//   cancel that closes a subscriptions/listen, which the SDK consumes before
//   any handler sees it); "sleep cancelled: <reason>" from the sleep handler.
// TS2_TRACE=1 also writes every wire message: "ts2 server <- line" as read
// from stdin, "ts2 server -> {json}" as the SDK serialises it (JSON.stringify).
// TS2_TRACE_FILE=path appends the same lines, prefixed with the pid, to a file:
// the way to see the v2 client's probe sibling, whose stderr the SDK discards.
// On SIGTERM it closes through serveStdio's handle, which first answers every
// open subscriptions/listen with its graceful-close result; on stdin EOF it exits.
import { appendFileSync } from "node:fs";
import { completable, McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import { addFeatures } from "./ts_features.mjs";

const say = (m) => process.stderr.write(`ts2 server: ${m}\n`);
const traceOn = process.env.TS2_TRACE === "1";
const traceFile = process.env.TS2_TRACE_FILE;
const trace = (dir, msg, raw = false) => {
  if (!traceOn && !traceFile) return;
  const line = `ts2 server ${dir} ${raw ? msg : JSON.stringify(msg)}`;
  if (traceOn) process.stderr.write(`${line}\n`);
  if (traceFile) appendFileSync(traceFile, `[pid ${process.pid}] ${line}\n`);
};

// A pass-through Transport around the stdio transport: traces, and logs every
// cancellation before serveStdio routes it (to the listen router or to the
// instance whose handler it aborts).
class TracedServerTransport {
  constructor(inner) {
    this.inner = inner;
    inner.onmessage = (msg, extra) => {
      if (msg.method === "notifications/cancelled")
        say(`cancel received: requestId=${JSON.stringify(msg.params?.requestId)} ` +
          `reason=${JSON.stringify(msg.params?.reason ?? null)}`);
      this.onmessage?.(msg, extra);
    };
    inner.onerror = (e) => this.onerror?.(e);
    inner.onclose = () => this.onclose?.();
  }
  async start() {
    await this.inner.start();
    // Inbound lines are traced as read from stdin: the SDK's parse normalises
    // (reorders keys), so tracing the parsed message would not show the bytes.
    if (!traceOn && !traceFile) return;
    let buf = Buffer.alloc(0);
    process.stdin.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (let i; (i = buf.indexOf(10)) >= 0; buf = buf.subarray(i + 1)) trace("<-", buf.toString("utf8", 0, i), true);
    });
  }
  close() { return this.inner.close(); }
  send(msg, options) {
    trace("->", msg);
    return this.inner.send(msg, options);
  }
  setProtocolVersion(v) { this.inner.setProtocolVersion?.(v); }
}

const sleep = (ms, signal) => new Promise((resolve) => {
  if (signal?.aborted) return resolve();
  const t = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
});

function buildServer({ era }) {
  say(`instance built for era ${era}`);
  const server = new McpServer({ name: "ts2-interop-server", version: "1.0.0" });
  const echo = async ({ text }) => ({ content: [{ type: "text", text }] });

  server.registerTool("echo", {
    description: "Returns its text unchanged.",
    inputSchema: z.object({ text: z.string() }),
  }, echo);

  server.registerTool("sleep", {
    description: "Sleeps `seconds`, stopping at once when cancelled.",
    inputSchema: z.object({ seconds: z.number().min(0).max(3600) }),
  }, async ({ seconds }, ctx) => {
    const signal = ctx.mcpReq.signal;
    say(`sleep started: request ${JSON.stringify(ctx.mcpReq.id)} for ${seconds} s`);
    await sleep(seconds * 1000, signal);
    if (signal.aborted) {
      say(`sleep cancelled: ${signal.reason}`);
      // The SDK sends nothing for an aborted request, whatever we return.
      return { content: [{ type: "text", text: "cancelled" }] };
    }
    return { content: [{ type: "text", text: `slept ${seconds} s` }] };
  });

  server.registerTool("count", {
    description: "Sends progress 1..n (when asked for), `delay_ms` apart, then answers.",
    inputSchema: z.object({ n: z.number().int().min(0).max(10000), delay_ms: z.number().min(0).max(60000).default(0) }),
  }, async ({ n, delay_ms }, ctx) => {
    const signal = ctx.mcpReq.signal;
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= n; i++) {
      if (delay_ms > 0) await sleep(delay_ms, signal);
      if (signal.aborted) {
        say(`count cancelled at ${i}: ${signal.reason}`);
        return { content: [{ type: "text", text: "cancelled" }] };
      }
      if (token !== undefined)
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: n, message: `step ${i} of ${n}` },
        });
    }
    return { content: [{ type: "text", text: `counted to ${n}` }] };
  });

  server.registerTool("add_tool", {
    description: "Registers a new echo-like tool `name` at run time (tools/list_changed follows).",
    inputSchema: z.object({ name: z.string().min(1) }),
  }, async ({ name }) => {
    server.registerTool(name, {
      description: `Added at run time; echoes its text.`,
      inputSchema: z.object({ text: z.string() }),
    }, echo);
    say(`add_tool: registered ${name}`);
    return { content: [{ type: "text", text: `added ${name}` }] };
  });

  addFeatures(server, say, { ResourceTemplate, completable, optionalInside: true });
  return server;
}

const transport = new TracedServerTransport(new StdioServerTransport());
const handle = serveStdio(buildServer, {
  transport,
  onerror: (e) => say(`error: ${e?.message ?? e}`),
});
// serveStdio owns onclose; chain ours behind it so we can leave on stdin EOF
// even if a timer (an aborted handler's) would keep the loop alive.
const ownClose = transport.onclose;
transport.onclose = () => {
  ownClose?.();
  say("stdin closed, exiting");
  setTimeout(() => process.exit(0), 500).unref();
};
process.on("SIGTERM", () => { handle.close().finally(() => process.exit(0)); });
say("ready");
