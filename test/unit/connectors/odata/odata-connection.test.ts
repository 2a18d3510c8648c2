import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { openOdataConnection } from '../../../../connectors/odata';
import type { FetchLike } from '../../../../connectors/odata';
import type { Connection } from '../../../../src/model/connection';

describe('openOdataConnection', () => {
  const connection: Connection = {
    name: 'crm', type: 'odata', settings: { serviceUrl: 'http://127.0.0.1:1/svc/', auth: { kind: 'clientSecret', tenantId: 't', clientId: 'c' } },
    secrets: { clientSecret: 'CRM_SECRET' }, maxConcurrency: 1,
  };
  const ctx = (resolveSecret: (n: string) => string | undefined): ConnectorContext => ({ connection, resolveSecret, configDir: '.' });

  it('shares one concurrency limit between the clients of a connection (its source and its target)', async () => {
    let active = 0;
    let most = 0;
    const fetch: FetchLike = async () => {
      most = Math.max(most, ++active);
      await new Promise((r) => setImmediate(r));
      active--;
      return new Response('{"value":[]}', { headers: { 'content-type': 'application/json' } });
    };
    const overrides = { fetch, tokens: () => ({ getToken: async () => 't' }) };
    const source = openOdataConnection(ctx(() => 's3cret'), { type: 'odata', defaultScope: 's', overrides })('http://127.0.0.1:1/svc/');
    const target = openOdataConnection(ctx(() => 's3cret'), { type: 'odata', defaultScope: 's', overrides })('http://127.0.0.1:1/svc/');
    await Promise.all([1, 2, 3].flatMap((i) => [source, target].map((c) => c.request({ method: 'GET', url: `Books(${i})`, operation: 'read' }))));
    expect(most).toBe(1);
  });

  it('reads the client secret at the edge and names only the app setting when it is missing', () => {
    expect(() => openOdataConnection(ctx(() => undefined), { type: 'odata', defaultScope: 's' })).toThrow(
      'connection "crm": secret "clientSecret" names app setting CRM_SECRET, which is not set',
    );
  });
});
