// SPDX-License-Identifier: MIT
// The official TypeScript SDK v1 client, with its OAuth support, against
// `mcp serve --http` as a resource server: the SDK reads our 401 and our
// Protected Resource Metadata, finds the authorization server
// (oidc_as.mjs), registers, and authorizes; the user's step is a walk of
// the redirects with a cookie jar, up to our redirect URI. Then a call
// with the token, and a call with a token our server must refuse.
//
//   node ts_oauth_client.mjs MCP_URL
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const url = new URL(process.argv[2]);
const redirectUrl = 'http://127.0.0.1:9/callback'; // read, never reached
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
  if (!ok) failures++;
};

class Provider {
  constructor() { this.code = undefined; }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return { client_name: 'ts-oauth-interop', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
      token_endpoint_auth_method: 'none', application_type: 'native' };
  }
  clientInformation() { return this.client; }
  saveClientInformation(c) { this.client = c; }
  tokens() { return this.saved; }
  saveTokens(t) { this.saved = t; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  // The browser: follow the redirects, cookies kept, until our redirect URI.
  async redirectToAuthorization(authUrl) {
    const jar = new Map();
    let next = authUrl.toString();
    for (let hops = 0; hops < 20; hops++) {
      if (next.startsWith(redirectUrl)) {
        this.code = new URL(next).searchParams.get('code');
        return;
      }
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
      }
      const loc = res.headers.get('location');
      if (!loc) throw new Error(`no redirect from ${next} (HTTP ${res.status})`);
      next = new URL(loc, next).toString();
    }
    throw new Error('too many redirects');
  }
}

const provider = new Provider();
let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
let client = new Client({ name: 'ts-oauth-interop', version: '1.0.0' });
try {
  await client.connect(transport);
  check(false, 'the first connect is refused until authorized');
} catch (e) {
  check(e instanceof UnauthorizedError, `the first connect needs authorization (${e})`);
}
check(Boolean(provider.code), 'the authorization server gave a code');
await transport.finishAuth(provider.code);
check(Boolean(provider.saved?.access_token), 'the SDK got a token for our server');

transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
client = new Client({ name: 'ts-oauth-interop', version: '1.0.0' });
await client.connect(transport);
const r = await client.callTool({ name: 'echo', arguments: { text: 'through OAuth' } });
check(r.content?.[0]?.text === 'through OAuth', 'a call with the token is answered');
await client.close();

// A token our server did not see issued for it (its signature spoiled).
const spoiled = provider.saved.access_token.slice(0, -4) + 'AAAA';
const res = await fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    authorization: `Bearer ${spoiled}` },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
});
check(res.status === 401 && /invalid_token/.test(res.headers.get('www-authenticate') || ''),
  `a spoiled token is refused with invalid_token (HTTP ${res.status})`);
process.exit(failures ? 1 : 0);
