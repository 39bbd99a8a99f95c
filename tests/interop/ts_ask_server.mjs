// SPDX-License-Identifier: MIT
// A server on the official TypeScript SDK v1 (1.32.2) whose tools ask the
// client, for libmcp's client to answer under 2025-11-25 (stdio):
//   form       elicitInput: a form with defaults; answers the result as JSON
//   sample     createMessage: answers "model M said T"
//   roots      listRoots: answers the URIs, one a line
//   held       createMessage with the call's abort signal: when the call is
//              cancelled the SDK cancels its request (notifications/cancelled)
//   impatient  elicitInput with a 300 ms timeout: the SDK cancels it itself
// Every failure goes to stderr ("ts-ask-server: ..."), and the tool answers
// with the SDK's error as an isError result.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const log = (m) => process.stderr.write(`ts-ask-server: ${m}\n`);
const server = new McpServer({ name: "ts-ask-server", version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });
const question = {
  messages: [{ role: "user", content: { type: "text", text: "2+2?" } }],
  maxTokens: 10,
};
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

server.registerTool("form", { description: "Asks for a form." }, async () =>
  text(JSON.stringify(await server.server.elicitInput(form))));

server.registerTool("sample", { description: "Asks the client's model." }, async () => {
  const r = await server.server.createMessage(question);
  return text(`model ${r.model} said ${r.content.text}`);
});

server.registerTool("roots", { description: "Lists the client's roots." }, async () =>
  text((await server.server.listRoots()).roots.map((r) => r.uri).join("\n")));

server.registerTool("held", { description: "Asks until the call is cancelled." }, async (extra) => {
  try {
    await server.server.createMessage(question, { signal: extra.signal });
    return text("answered");
  } catch (e) {
    log(`held: ${e.message}`);
    return text("aborted");
  }
});

server.registerTool("impatient", { description: "Gives the client 300 ms." }, async () => {
  try {
    await server.server.elicitInput({ message: "Quick!", requestedSchema: { type: "object", properties: {} } },
      { timeout: 300 });
    return text("answered");
  } catch (e) {
    log(`impatient: ${e.message}`);
    return text(`gave up: ${e.message}`);
  }
});

await server.connect(new StdioServerTransport());
log("ready");
