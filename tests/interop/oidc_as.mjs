// SPDX-License-Identifier: MIT
// A real authorization server for the OAuth tests: oidc-provider (pinned in
// package.json), configured as an MCP server's authorization server would
// be: dynamic registration, PKCE, resource indicators (RFC 8707) with JWT
// access tokens (RFC 9068, ES256) for the one resource, refresh tokens.
// The user's step is approved at once (no login page): the test's browser
// is curl, following redirects with a cookie jar.
//
//   node oidc_as.mjs RESOURCE TTL_SECONDS
//
// Prints "issuer http://127.0.0.1:PORT" once listening, then a line per
// token granted ("grant <grant_type> <scope>"), for the test to count.
//
// OIDC_AS_OPAQUE=ID:SECRET: opaque access tokens instead (oidc-provider
// refuses to introspect JWTs), token introspection (RFC 7662) enabled at
// /token/introspection for the resource server registered as client ID
// with SECRET, and a line "introspect" per introspection request.
// OIDC_AS_MACHINE=ID:SECRET: a machine client registered as ID with SECRET
// that may use the client credentials grant (RFC 6749 section 4.4).
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [resource, ttlText] = process.argv.slice(2);
const ttl = Number(ttlText || 3600);
if (!resource) {
  console.error('usage: node oidc_as.mjs RESOURCE TTL_SECONDS');
  process.exit(2);
}

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' };
// The test may forge tokens with the server's own key (wrong audience,
// wrong issuer, expired): OIDC_AS_KEY_FILE gets it as PEM. Test only.
if (process.env.OIDC_AS_KEY_FILE)
  writeFileSync(process.env.OIDC_AS_KEY_FILE, privateKey.export({ format: 'pem', type: 'sec1' }),
    { mode: 0o600 });

const opaque = process.env.OIDC_AS_OPAQUE;
const machine = process.env.OIDC_AS_MACHINE;
const client = (pair, grantTypes) => {
  const at = pair.indexOf(':');
  return {
    client_id: pair.slice(0, at), client_secret: pair.slice(at + 1),
    grant_types: grantTypes, response_types: [], redirect_uris: [],
  };
};
const clients = [
  ...(opaque ? [client(opaque, [])] : []),
  ...(machine ? [{ ...client(machine, ['client_credentials']), scope: 'mcp:tools' }] : []),
];

const server = createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    findAccount: (ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    scopes: ['openid', 'offline_access', 'mcp:tools'],
    clients,
    ttl: { ClientCredentials: ttl },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      introspection: { enabled: !!opaque },
      clientCredentials: { enabled: !!machine },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, asked) => {
          if (asked !== resource) throw new Error(`unknown resource ${asked}`);
          return {
            scope: 'mcp:tools',
            audience: resource,
            accessTokenTTL: ttl,
            accessTokenFormat: opaque ? 'opaque' : 'jwt',
            ...(opaque ? {} : { jwt: { sign: { alg: 'ES256' } } }),
          };
        },
      },
    },
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    pkce: { required: () => true },
    issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  });
  provider.proxy = false;
  provider.on('grant.success', (ctx) => {
    const p = ctx.oidc.params;
    console.log(`grant ${p.grant_type} ${p.scope || ''}`);
  });
  // A grant refused (a refresh token spent twice is invalid_grant): the
  // test counts these too.
  provider.on('grant.error', (ctx, err) => {
    console.log(`refused ${ctx.oidc.params?.grant_type || '-'} ${err.error || err.message}`);
  });
  provider.on('server_error', (ctx, err) => console.error('server_error', err));
  const handle = provider.callback();
  server.on('request', async (req, res) => {
    if (req.url.startsWith('/token/introspection')) console.log('introspect');
    if (!req.url.startsWith('/interaction/')) return handle(req, res);
    try {
      // The user says yes to whatever was asked.
      const details = await provider.interactionDetails(req, res);
      if (process.env.OIDC_AS_DEBUG) console.error('interaction', JSON.stringify(details.prompt), JSON.stringify(details.params));
      const grant = new provider.Grant({ accountId: 'test-user', clientId: details.params.client_id });
      const scopes = String(details.params.scope || '').split(' ').filter(Boolean);
      // Every scope of the scopes option counts as an OpenID one here.
      if (scopes.length) grant.addOIDCScope(scopes.join(' '));
      grant.addResourceScope(resource, 'mcp:tools');
      const grantId = await grant.save();
      await provider.interactionFinished(req, res,
        { login: { accountId: 'test-user' }, consent: { grantId } },
        { mergeWithLastSubmission: false });
    } catch (err) {
      console.error('interaction failed', err);
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  console.log(`issuer ${issuer}`);
});
