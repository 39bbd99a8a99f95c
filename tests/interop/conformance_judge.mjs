// SPDX-License-Identifier: MIT
// Judges one scenario of the official conformance suite from its checks.json
// (run_conformance.sh): the suite's exit code alone passes too much.
//
//   node conformance_judge.mjs CHECKS_JSON SCENARIO
//
// Prints "PASS", or "FAIL" and one line per reason. A scenario fails on:
// - no SUCCESS besides 0.2.0's wire-schema-valid (nothing was tested: every
//   check SKIPPED, as for an extension the server does not declare);
// - any FAILURE;
// - any WARNING: the suite's server mode ignores them, but the transport
//   scenarios (server-sse-polling, server-sse-multiple-streams, the SHOULD
//   rows of server-stateless) can say nothing louder, so a warning there is
//   the problem itself (the suite's own --expected-failures counts them too);
// - a check the scenario must show as SUCCESS that is absent or not SUCCESS
//   (REQUIRED below): rows a shallow server skips or turns into INFO, such as
//   the polling scenario on a JSON answer, or a stateless server's skipped
//   session lifecycle;
// - a tool scenario passed on a tool error (tools-call-simple-text accepts
//   an isError "unknown tool" text).
import { readFileSync } from 'node:fs';

const REQUIRED = {
  // Without an event stream the scenario stops at an INFO row.
  'server-sse-polling': ['server-sse-priming-event', 'server-sse-retry-field',
                         'server-sse-disconnect-resume'],
  // Without a session id, a single WARNING; every answer JSON: INFO.
  'server-sse-multiple-streams': ['server-accepts-multiple-post-streams'],
  // Without a session id: INFO "skipped", and nothing is tested.
  'server-session-lifecycle': ['server-session-initialized-accepted',
                               'server-session-delete-accepted',
                               'server-session-terminated-returns-404'],
  'dns-rebinding-protection': ['localhost-host-rebinding-rejected',
                               'localhost-host-valid-accepted'],
};

const [, , file, scenario] = process.argv;
const reasons = [];
let checks;
try {
  checks = JSON.parse(readFileSync(file, 'utf8'));
} catch (e) {
  reasons.push(`no readable checks.json: ${e.message}`);
}
const brief = (v) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? '' : s.length > 600 ? `${s.slice(0, 600)}...` : s;
};
const row = (c) => `${c.id} ${c.status}: ${brief(c.errorMessage ?? c.description)}` +
  (c.details !== undefined ? ` | details ${brief(c.details)}` : '');

if (checks) {
  if (!Array.isArray(checks) || checks.length === 0)
    reasons.push('no checks: the scenario tested nothing');
  else {
    if (!checks.some((c) => c.status === 'SUCCESS' && c.id !== 'wire-schema-valid'))
      reasons.push('no check succeeded: the scenario tested nothing (' +
                   [...new Set(checks.map((c) => `${c.id} ${c.status}`))].join(', ') + ')');
    for (const c of checks)
      if (c.status === 'FAILURE' || c.status === 'WARNING') reasons.push(row(c));
    for (const id of REQUIRED[scenario] ?? []) {
      const rows = checks.filter((c) => c.id === id);
      if (rows.length === 0) reasons.push(`${id} absent (required as SUCCESS)`);
      for (const c of rows)
        if (c.status !== 'SUCCESS' && c.status !== 'FAILURE' && c.status !== 'WARNING')
          reasons.push(`${row(c)} (required as SUCCESS)`);
    }
    if (scenario.startsWith('tools-call-') && scenario !== 'tools-call-error')
      for (const c of checks)
        if (c.status === 'SUCCESS' && c.details?.result?.isError === true)
          reasons.push(`${c.id} passed on a tool error: ${brief(c.details.result)}`);
  }
}
console.log(reasons.length ? 'FAIL' : 'PASS');
for (const r of reasons) console.log(`  ${r}`);
// What a failing scenario said besides (INFO rows such as "Server returned
// JSON instead of SSE stream"), without the request and response trace.
if (reasons.length && Array.isArray(checks))
  for (const c of checks)
    if (c.status === 'INFO' && !/^(outgoing|incoming)-/.test(c.id))
      console.log(`  (${c.id} INFO: ${brief(c.details?.message ?? c.errorMessage ?? c.details)})`);
