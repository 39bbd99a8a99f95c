// SPDX-License-Identifier: MIT
// A server on the official TypeScript SDK v2 (@modelcontextprotocol/server
// 2.4.0) whose tools ask the client under 2026-07-28 the way that revision
// does (basic/patterns/mrtr.mdx): they answer with an input-required
// result, and the client's retry brings the answers in inputResponses, with
// the requestState echoed. Served through serveStdio (both eras), for
// libmcp's client:
//   form   an elicitation with defaults (state "form-1"); then the answer
//          and the state it got back, as JSON
//   sample a sampling; then "model M said T"
//   roots  roots/list; then the URIs, one a line
//   both   a form and a sampling in one round; then both answers
//   again  asks its form again until the answer accepts ok: true (each
//          round's state "again-N")
// stderr: "ts2-ask-server: ..." for every round.
import { inputRequired, inputResponse, McpServer } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const say = (m) => process.stderr.write(`ts2-ask-server: ${m}\n`);
const text = (t) => ({ content: [{ type: "text", text: t }] });
const form = {
  message: "Who are you?",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", default: "Ann" },
      age: { type: "integer", minimum: 18, default: 30 },
      ok: { type: "boolean" },
    },
    required: ["ok"],
  },
};
const question = {
  messages: [{ role: "user", content: { type: "text", text: "2+2?" } }],
  maxTokens: 10,
};
const none = { inputSchema: z.object({}) };

function buildServer({ era }) {
  const server = new McpServer({ name: "ts2-ask-server", version: "1.0.0" });
  server.registerTool("form", { description: "Asks for a form.", ...none }, async (_a, ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, "who");
    say(`form: ${r.kind}, state ${JSON.stringify(ctx.mcpReq.requestState() ?? null)}`);
    if (r.kind === "missing")
      return inputRequired({ inputRequests: { who: inputRequired.elicit(form) }, requestState: "form-1" });
    return text(JSON.stringify({ action: r.action, content: r.content, state: ctx.mcpReq.requestState() }));
  });
  server.registerTool("sample", { description: "Asks the client's model.", ...none }, async (_a, ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, "model");
    if (r.kind !== "sampling")
      return inputRequired({ inputRequests: { model: inputRequired.createMessage(question) } });
    return text(`model ${r.result.model} said ${r.result.content.text}`);
  });
  server.registerTool("roots", { description: "Lists the client's roots.", ...none }, async (_a, ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, "roots");
    if (r.kind !== "roots")
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
    return text(r.roots.map((x) => x.uri).join("\n"));
  });
  server.registerTool("both", { description: "A form and a sampling at once.", ...none }, async (_a, ctx) => {
    const f = inputResponse(ctx.mcpReq.inputResponses, "who");
    const s = inputResponse(ctx.mcpReq.inputResponses, "model");
    if (f.kind === "missing" || s.kind !== "sampling")
      return inputRequired({
        inputRequests: { who: inputRequired.elicit(form), model: inputRequired.createMessage(question) },
      });
    return text(`${f.action} ${JSON.stringify(f.content)} / ${s.result.content.text}`);
  });
  server.registerTool("again", { description: "Asks until ok is true.", ...none }, async (_a, ctx) => {
    const r = inputResponse(ctx.mcpReq.inputResponses, "who");
    const n = Number((ctx.mcpReq.requestState() ?? "again-0").split("-")[1]);
    say(`again: round ${n}, ${r.kind} ${JSON.stringify(r.content ?? null)}`);
    if (r.kind === "elicit" && r.action === "accept" && r.content?.ok === true)
      return text(`ok after ${n} rounds`);
    return inputRequired({ inputRequests: { who: inputRequired.elicit(form) }, requestState: `again-${n + 1}` });
  });
  return server;
}

const transport = new StdioServerTransport();
serveStdio(buildServer, { transport, onerror: (e) => say(`error: ${e?.message ?? e}`) });
const ownClose = transport.onclose;
transport.onclose = () => {
  ownClose?.();
  setTimeout(() => process.exit(0), 200).unref();
};
say("ready");
