// SPDX-License-Identifier: MIT
// Resources, a resource template, prompts and completion on a TypeScript SDK
// McpServer, for libmcp's client (and the mcp command) to be tested
// against: added to ts_server.mjs (v1, stdio) and ts_http_server.mjs (v1,
// HTTP), and to ts2_server.mjs (v2, stdio, both eras). `sdk` brings the
// SDK's own ResourceTemplate and completable (and optionalInside, v2), and
// (v1, where 2025's resources/subscribe exists) its SubscribeRequestSchema
// and UnsubscribeRequestSchema.
//
//   file:///greeting.txt   text/plain "Hello, world!\nsecond line é\n"
//   file:///logo.bin       a blob: the bytes 00 ff 10 89 50 4e 47 0a 00
//   file:///docs/{name}    a template: text "doc <name>"; name completes
//                          from alpha, alpine, beta, gamma
//   review {code (required), language, style}
//                          one user message "Review this <language or code>:
//                          \n<code>"; language completes from perl, php,
//                          python; style from pep8 and black when the
//                          context's language is python, else plain
//   resources/subscribe    (v1) logs "subscribed <uri>" and, 50 ms later, sends
//                          notifications/resources/updated for it;
//                          resources/unsubscribe logs "unsubscribed <uri>"
import { z } from "zod";

export const LOGO = Buffer.from([0x00, 0xff, 0x10, 0x89, 0x50, 0x4e, 0x47, 0x0a, 0x00]);
const starting = (list) => (value) => list.filter((v) => v.startsWith(value ?? ""));

export function addFeatures(server, log, sdk) {
  const { ResourceTemplate, completable } = sdk;
  // An optional argument that completes: v1 finds completable() around
  // .optional(), v2 looks inside .optional() for it (optionalInside).
  const optional = (complete) => sdk.optionalInside
    ? completable(z.string(), complete).optional()
    : completable(z.string().optional(), complete);
  server.registerResource("greeting", "file:///greeting.txt",
    { title: "Greeting", description: "A text resource.", mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain",
                                   text: "Hello, world!\nsecond line \u00e9\n" }] }));
  server.registerResource("logo", "file:///logo.bin",
    { description: "A binary resource.", mimeType: "application/octet-stream" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "application/octet-stream",
                                   blob: LOGO.toString("base64") }] }));
  server.registerResource("docs",
    new ResourceTemplate("file:///docs/{name}", {
      list: undefined,
      complete: { name: starting(["alpha", "alpine", "beta", "gamma"]) },
    }),
    { description: "Documents by name.", mimeType: "text/plain" },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, text: `doc ${name}` }] }));
  server.registerPrompt("review", {
    description: "Asks for a code review.",
    argsSchema: {
      code: z.string().describe("The code to review"),
      language: optional(starting(["perl", "php", "python"])),
      style: optional((value, context) =>
        context?.arguments?.language === "python" ? ["pep8", "black"] : ["plain"]),
    },
  }, async ({ code, language }) => ({
    description: "A review request",
    messages: [{ role: "user",
                 content: { type: "text", text: `Review this ${language ?? "code"}:\n${code}` } }],
  }));
  if (!sdk.SubscribeRequestSchema)
    return;
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(sdk.SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    log(`subscribed ${uri}`);
    setTimeout(() => server.server.sendResourceUpdated({ uri }).catch(() => {}), 50);
    return {};
  });
  server.server.setRequestHandler(sdk.UnsubscribeRequestSchema, async (request) => {
    log(`unsubscribed ${request.params.uri}`);
    return {};
  });
}
