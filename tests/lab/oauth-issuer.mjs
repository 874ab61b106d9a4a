// The lab's OAuth 2 / OIDC token issuer: panva's oidc-provider (npm, a certified OpenID
// Provider), configured for the client credentials grant only, issuing RS256-signed JWT
// access tokens (RFC 9068) whose audience and lifetime depend on the client, so the
// tests can ask for a token the broker must refuse (another audience, a short life).
//
//   node oauth-issuer.mjs CONFIG.json
//
// CONFIG: {"provider": ".../node_modules/oidc-provider/lib/index.js", "port": N,
//          "key": "signing-key.jwk" (made once, so the JWKS outlives restarts),
//          "clients": [{"client_id", "client_secret", "audience", "ttl"}]}
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { default: Provider } = await import(pathToFileURL(config.provider).href);

if (!existsSync(config.key)) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig', alg: 'RS256' };
  writeFileSync(config.key, JSON.stringify(jwk), { mode: 0o600 });
}
const signingKey = JSON.parse(readFileSync(config.key, 'utf8'));
const byClient = new Map(config.clients.map((c) => [c.client_id, c]));
const issuer = `http://127.0.0.1:${config.port}`;

const provider = new Provider(issuer, {
  clients: config.clients.map((c) => ({
    client_id: c.client_id,
    client_secret: c.client_secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    // Both ways a client may send its secret: HTTP Basic (the Java client, librdkafka)
    // and the form body.
    token_endpoint_auth_method: c.auth_method || 'client_secret_basic',
  })),
  jwks: { keys: [signingKey] },
  scopes: ['kafka'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:indoubt-lab:kafka',
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource, client) => {
        const c = byClient.get(client.clientId);
        return {
          scope: 'kafka',
          audience: c.audience,
          accessTokenTTL: c.ttl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
});
provider.listen(config.port, '127.0.0.1', () => {
  console.log(`issuer ${issuer} listening`);
});
