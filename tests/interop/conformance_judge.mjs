// SPDX-License-Identifier: MIT
// Judges one scenario of the official conformance suite from its checks.json
// (run_conformance.sh): the suite's exit code alone passes too much.
//
//   node conformance_judge.mjs CHECKS_JSON SCENARIO
//
// Prints "PASS", or "FAIL" and one line per reason, and exits 0; a judge
// that cannot judge (it threw) prints "ERROR" and exits 2, never a verdict
// (run_conformance.sh counts anything but PASS or FAIL with status 0 as no
// verdict, a failure). A scenario fails on:
// - no SUCCESS besides 0.2.0's wire-schema-valid (nothing was tested: every
//   check SKIPPED, as for an extension the server does not declare);
// - any FAILURE;
// - any WARNING: the suite's server mode ignores them, but the transport
//   scenarios (server-sse-polling, server-sse-multiple-streams, the SHOULD
//   rows of server-stateless) can say nothing louder, so a warning there is
//   the problem itself (the suite's own --expected-failures counts them too);
// - a check the scenario must show as SUCCESS that is absent or not SUCCESS
//   (REQUIRED and REQUIRED_CASES below): rows a shallow server skips or
//   turns into INFO, such as the polling scenario on a JSON answer, or a
//   stateless server's skipped session lifecycle, and the checks a client
//   that sends nothing never gets;
// - a tool scenario passed on a tool error (tools-call-simple-text accepts
//   an isError "unknown tool" text);
// - a check that is not an object (a null entry).
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
  // Client scenarios. A client that sends nothing passes initialize with
  // no check at all; the others must show what they exist for.
  'initialize': ['mcp-client-initialization'],
  'tools_call': ['tool-add-numbers'],
  'sse-retry': ['client-sse-graceful-reconnect', 'client-sse-retry-timing',
                'client-sse-last-event-id'],
  'request-metadata': ['sep-2575-http-client-sends-version-header',
                       'sep-2575-client-populates-meta',
                       'sep-2575-http-version-header-matches-meta',
                       'sep-2575-client-retry-supported-version'],
  'http-custom-headers': ['sep-2243-client-mirrors-designated-params',
                          'sep-2243-client-encode-values', 'sep-2243-client-base64-unsafe',
                          'sep-2243-client-omit-null'],
  'http-invalid-tool-headers': ['sep-2243-client-reject-invalid-tool'],
};

// Rows of one id that stand for several cases, some of which may be
// SKIPPED (a method the client never sent): the cases that must be SUCCESS,
// found by their details. http-standard-headers skips every method not
// sent, so a client that sends nothing passes it.
const REQUIRED_CASES = {
  'http-standard-headers': [
    ...['tools/list', 'tools/call', 'resources/list', 'resources/read', 'prompts/list',
        'prompts/get'].map((m) => ['sep-2243-client-includes-standard-headers',
                                   `Mcp-Method of ${m}`, (d) => d?.expectedMethod === m]),
    ...['tools/call', 'resources/read', 'prompts/get'].map((m) => [
      'sep-2243-client-includes-standard-headers', `Mcp-Name of ${m}`,
      (d) => d?.method === m && d?.sourceField !== undefined]),
  ],
};

function judge(file, scenario) {
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
  else if (!checks.every((c) => c !== null && typeof c === 'object' && !Array.isArray(c)))
    reasons.push(`a check that is not an object: ${brief(checks.find((c) =>
      c === null || typeof c !== 'object' || Array.isArray(c)))}`);
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
    for (const [id, what, match] of REQUIRED_CASES[scenario] ?? [])
      if (!checks.some((c) => c.id === id && c.status === 'SUCCESS' && match(c.details)))
        reasons.push(`${id}: no SUCCESS for ${what} (required)`);
    if (scenario.startsWith('tools-call-') && scenario !== 'tools-call-error')
      for (const c of checks)
        if (c.status === 'SUCCESS' && c.details?.result?.isError === true)
          reasons.push(`${c.id} passed on a tool error: ${brief(c.details.result)}`);
  }
}
const out = [reasons.length ? 'FAIL' : 'PASS', ...reasons.map((r) => `  ${r}`)];
// What a failing scenario said besides (INFO rows such as "Server returned
// JSON instead of SSE stream"), without the request and response trace.
if (reasons.length && Array.isArray(checks))
  for (const c of checks)
    if (c?.status === 'INFO' && !/^(outgoing|incoming)-/.test(c.id))
      out.push(`  (${c.id} INFO: ${brief(c.details?.message ?? c.errorMessage ?? c.details)})`);
return out;
}

// The verdict is printed only once it is whole: a judge that throws half
// way must not leave a PASS behind it.
try {
  const [, , file, scenario] = process.argv;
  if (!file || !scenario) throw new Error('usage: node conformance_judge.mjs CHECKS_JSON SCENARIO');
  console.log(judge(file, scenario).join('\n'));
} catch (e) {
  console.log(`ERROR\n  the judge failed: ${e?.stack ?? e}`);
  process.exit(2);
}
