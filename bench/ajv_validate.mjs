// SPDX-License-Identifier: MIT
// The reference half of `schema validate tools/call args`: Ajv (the
// validator the TypeScript SDK uses), 2020-12, the same schema and the same
// arguments as bench_schema, timed the same way in its own process.
// usage: node ajv_validate.mjs INTEROP_DIR SCHEMA MESSAGE
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const [interop, schemaPath, messagePath] = process.argv.slice(2);
const require = createRequire(resolve(interop, "package.json"));
const Ajv2020 = require("ajv/dist/2020").default;
const ajv = new Ajv2020({ allErrors: false, strict: false });
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, "utf8")));
const args = JSON.parse(readFileSync(messagePath, "utf8")).params.arguments;
if (!validate(args)) {
  console.error("ajv: the arguments do not validate:", JSON.stringify(validate.errors));
  process.exit(1);
}
let best = Infinity;
for (let round = 0; round < 7; round++) {
  const n = 200000;
  const t0 = process.hrtime.bigint();
  let ok = 0;
  for (let i = 0; i < n; i++) ok += validate(args) ? 1 : 0;
  const ns = Number(process.hrtime.bigint() - t0) / n;
  if (ok !== n) process.exit(1);
  best = Math.min(best, ns);
}
console.log(best.toFixed(1));
