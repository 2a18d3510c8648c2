import { z } from 'zod';
import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { readSecret, secretRedactor } from '../../../../connectors/base/connector-context';
import { type ConnectorFactory, ConnectorRegistry } from '../../../../connectors/base/registry';
import type { SourceConnector } from '../../../../connectors/base/source-connector';
import type { Connection } from '../../../../src/model/connection';

const source: SourceConnector = {
  // eslint-disable-next-line require-yield
  async *retrieveChanges() {
    return;
  },
  async close() {},
};

const fake: ConnectorFactory = {
  type: 'Fake',
  validateSettings: (settings) => (typeof settings.url === 'string' ? [] : [{ path: 'settings.url', message: 'is required' }]),
  createSource: () => source,
};

function ctx(connection: Partial<Connection>, env: Record<string, string> = {}): ConnectorContext {
  return {
    connection: { name: 'c1', type: 'fake', settings: { url: 'x' }, secrets: {}, maxConcurrency: 8, ...connection },
    resolveSecret: (name) => env[name],
    configDir: '/config',
  };
}

describe('ConnectorRegistry', () => {
  const registry = new ConnectorRegistry([fake]);

  it('finds factories by trimmed, case-insensitive type and lists validators for config validation', () => {
    expect(registry.get(' FAKE ')).toBe(fake);
    expect(registry.types()).toEqual(['fake']);
    expect(Object.keys(registry.connectionTypes())).toEqual(['fake']);
    expect(registry.connectionTypes().fake({}, {})).toEqual([{ path: 'settings.url', message: 'is required' }]);
    expect(() => registry.register({ ...fake, type: 'fake' })).toThrow('connector type "fake" is registered twice');
  });

  it('lists the settings schemas by type, leaving out types without one', () => {
    const settingsSchema = z.strictObject({ file: z.string() });
    const files: ConnectorFactory = { type: 'files', validateSettings: () => [], settingsSchema };
    const schemas = new ConnectorRegistry([fake, files]).settingsSchemas();
    expect(Object.keys(schemas)).toEqual(['files']);
    expect(schemas.files).toBe(settingsSchema);
  });

  it('creates connectors after validating settings, with exact errors otherwise', () => {
    expect(registry.createSource(ctx({}))).toBe(source);
    expect(() => registry.createSource(ctx({ type: 'oracle' }))).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: 'connection "c1": unknown connector type "oracle" (known: fake)' }),
    );
    expect(() => registry.createSource(ctx({ settings: {} }))).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: 'connection "c1": settings.url: is required' }),
    );
    expect(() => registry.createTarget(ctx({}))).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: 'connection "c1": connector type "Fake" cannot be a target' }),
    );
  });
});

describe('secrets', () => {
  it('reads a named secret from the injected resolver and names only the env var when it is missing', () => {
    expect(readSecret(ctx({ secrets: { password: 'PG_PW' } }, { PG_PW: 's3cret' }), 'password')).toBe('s3cret');
    expect(readSecret(ctx({}), 'password')).toBeUndefined();
    expect(() => readSecret(ctx({ secrets: { password: 'PG_PW' } }), 'password')).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: 'connection "c1": secret "password" names app setting PG_PW, which is not set' }),
    );
  });

  it('redacts secret values from texts', () => {
    const redact = secretRedactor(['s3cret', undefined, 'ab']);
    expect(redact('postgres://u:s3cret@h/db s3cret ab')).toBe('postgres://u:***@h/db *** ab');
  });
});
