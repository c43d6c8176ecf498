/**
 * A real OpenID Connect provider for the tests: `oidc-provider` (the certified Node.js
 * implementation) on a random port of this process, with its development sign-in pages (any
 * login name, any password). The account `<name>` has the email `<name>@example.com`, verified
 * unless the name starts with `unverified`. The issuer is known before the provider is built,
 * so the server under test can be started with it, and the redirect URIs after.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Builds the provider, now that the console's redirect URIs are known. */
  serve(redirectUris: string[]): void;
  close(): Promise<void>;
}

export async function startOidcProvider(): Promise<TestProvider> {
  const http: Server = createServer((_req, res) => {
    res.statusCode = 503;
    res.end('not ready');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const clientId = 'attendance-console';
  const clientSecret = 'a-client-secret-of-the-test-provider';
  return {
    issuer,
    clientId,
    clientSecret,
    serve(redirectUris) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: redirectUris,
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        findAccount: async (_ctx, id) => ({
          accountId: id,
          claims: async () => ({ sub: id, email: `${id}@example.com`, email_verified: !id.startsWith('unverified'), name: id }),
        }),
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
      });
      http.removeAllListeners('request');
      http.on('request', provider.callback());
    },
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
