import { z } from 'zod';
import type { ConnectorContext } from '../../../../connectors/base/connector-context';
import { type ConnectorFactory, ConnectorRegistry, lazyConnectorFactory, type SettingsValidator } from '../../../../connectors/base/registry';
import type { SourceConnector } from '../../../../connectors/base/source-connector';
import type { TargetConnector } from '../../../../connectors/base/target-connector';
import type { Connection } from '../../../../src/model/connection';
import type { Job } from '../../../../src/model/job';

const source: SourceConnector = {
  // eslint-disable-next-line require-yield
  async *retrieveChanges() {
    return;
  },
  async close() {},
};

const target = { close: async () => {} } as unknown as TargetConnector;

const validate: SettingsValidator = (settings) => (typeof settings.url === 'string' ? [] : [{ path: 'settings.url', message: 'is required' }]);

function ctx(connection: Partial<Connection> = {}): ConnectorContext {
  return {
    connection: { name: 'c1', type: 'lazy', settings: { url: 'x' }, secrets: {}, maxConcurrency: 8, ...connection },
    resolveSecret: () => undefined,
    configDir: '/config',
  };
}

/** A lazy factory over `implementation`, counting how often it was loaded. */
function counted(implementation: ConnectorFactory, type = 'Lazy') {
  const loads = { count: 0 };
  const factory = lazyConnectorFactory({
    type,
    validateSettings: validate,
    load: () => {
      loads.count++;
      return implementation;
    },
  });
  return { factory, loads };
}

describe('lazyConnectorFactory', () => {
  it('validates settings without loading, and loads once on the first open', () => {
    const { factory, loads } = counted({ type: 'lazy', validateSettings: validate, createSource: () => source, createTarget: () => target });
    const registry = new ConnectorRegistry([factory]);

    expect(registry.connectionTypes().lazy({}, {})).toEqual([{ path: 'settings.url', message: 'is required' }]);
    expect(() => registry.createSource(ctx({ settings: {} }))).toThrow('connection "c1": settings.url: is required');
    expect(loads.count).toBe(0);

    expect(registry.createSource(ctx())).toBe(source);
    expect(registry.createTarget(ctx())).toBe(target);
    expect(registry.createSource(ctx())).toBe(source);
    expect(loads.count).toBe(1);
  });

  it('reports a role the loaded implementation lacks with the registry\'s own message', () => {
    const { factory } = counted({ type: 'lazy', validateSettings: validate, createSource: () => source });
    const registry = new ConnectorRegistry([factory]);
    expect(() => registry.createTarget(ctx())).toThrow(expect.objectContaining({ name: 'ConfigError', message: 'connection "c1": connector type "lazy" cannot be a target' }));
    expect(registry.createSource(ctx())).toBe(source);
  });

  it('refuses an implementation of another type or with another validator, and retries the load next time', () => {
    const otherType = counted({ type: 'other', validateSettings: validate, createSource: () => source });
    expect(() => otherType.factory.createSource!(ctx())).toThrow('connector type "Lazy": its implementation serves type "other"');
    expect(() => otherType.factory.createSource!(ctx())).toThrow('its implementation serves type "other"');
    expect(otherType.loads.count).toBe(2);

    const otherValidator = counted({ type: 'lazy', validateSettings: () => [], createSource: () => source });
    expect(() => otherValidator.factory.createSource!(ctx())).toThrow(
      'connector type "Lazy": its implementation validates settings with another function than the one registered',
    );
  });

  it('carries the settings schema, and refuses an implementation describing its settings with another', () => {
    const settingsSchema = z.strictObject({ url: z.string() });
    const factory = lazyConnectorFactory({
      type: 'lazy',
      validateSettings: validate,
      settingsSchema,
      load: () => ({ type: 'lazy', validateSettings: validate, settingsSchema: z.strictObject({ url: z.string() }), createSource: () => source }),
    });
    expect(new ConnectorRegistry([factory]).settingsSchemas().lazy).toBe(settingsSchema);
    expect(() => factory.createSource!(ctx())).toThrow('connector type "lazy": its implementation describes its settings with another schema than the one registered');
  });

  it('carries the source-job check to config validation, and refuses an implementation checking source jobs with another', () => {
    const sourceJob = (job: Job) => (job.watermark.field === 'x' ? [{ path: 'watermark.field', message: 'no x here' }] : []);
    const factory = lazyConnectorFactory({ type: 'lazy', validateSettings: validate, validateSourceJob: sourceJob, load: () => ({ type: 'lazy', validateSettings: validate, createSource: () => source }) });
    const check = new ConnectorRegistry([factory]).connectionTypes().lazy;
    expect(check({ url: 'u' }, {})).toEqual([]);
    expect(check({}, {})).toEqual([{ path: 'settings.url', message: 'is required' }]);
    expect(check.sourceJob).toBe(sourceJob);
    expect(() => factory.createSource!(ctx())).toThrow('connector type "lazy": its implementation checks source jobs with another function than the one registered');
    // A type without one keeps its settings validator as is.
    expect(new ConnectorRegistry([lazyConnectorFactory({ type: 'plain', validateSettings: validate, load: () => ({ type: 'plain', validateSettings: validate }) })]).connectionTypes().plain).toBe(validate);
  });

  it('lets a failing load through unchanged, so a missing module names itself', () => {
    const factory = lazyConnectorFactory({
      type: 'lazy',
      validateSettings: validate,
      load: () => {
        throw new Error("Cannot find module './nowhere'");
      },
    });
    expect(() => factory.createTarget!(ctx())).toThrow("Cannot find module './nowhere'");
  });
});
