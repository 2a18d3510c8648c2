import type { z } from 'zod';
import { ConfigError } from '../../src/platform/errors';
import type { Job } from '../../src/model/job';
import type { ConnectorContext } from './connector-context';
import type { SourceConnector } from './source-connector';
import type { TargetConnector } from './target-connector';

/** A problem in a connection's settings; `path` is relative to the connection, e.g. `settings.file`. */
export interface SettingsProblem {
  path: string;
  message: string;
}

/**
 * Checks a connection's `settings` and `secrets` (setting → env var name; values are not needed
 * and never passed). Returns every problem found, none when valid.
 */
export type SettingsValidator = (settings: Record<string, unknown>, secrets: Record<string, string>) => SettingsProblem[];

/**
 * Checks a job that reads from a connection of the type, for what the type cannot do (e.g. a
 * way of detecting changes the system does not offer). `path` is relative to the job, e.g.
 * `watermark.field`. Returns every problem found, none when the type can serve the job.
 */
export type SourceJobValidator = (job: Job) => SettingsProblem[];

/** A type's settings check as config validation takes it, with its source-job check when it has one. */
export type ConnectionTypeCheck = SettingsValidator & { sourceJob?: SourceJobValidator };

/** Opens connectors of one `connection.type`. */
export interface ConnectorFactory {
  /** The `connection.type` served, lower case, e.g. `sqlite`. */
  type: string;
  validateSettings: SettingsValidator;
  /** Checks jobs reading from a connection of the type. Default: any job the settings allow. */
  validateSourceJob?: SourceJobValidator;
  /**
   * The zod schema of `settings` that `validateSettings` checks with (`base/settings-schema.ts`):
   * the generated JSON Schema describes each type's settings with it. Absent: any object.
   */
  settingsSchema?: z.ZodType;
  /** Absent when the system cannot be a source. */
  createSource?(ctx: ConnectorContext): SourceConnector;
  /** Absent when the system cannot be a target. */
  createTarget?(ctx: ConnectorContext): TargetConnector;
}

/** `connection.type` (trimmed, case-insensitive) → connector factory. */
export class ConnectorRegistry {
  private readonly factories = new Map<string, ConnectorFactory>();

  constructor(factories: readonly ConnectorFactory[] = []) {
    for (const factory of factories) this.register(factory);
  }

  /** @throws Error when the type is registered already (a programming error). */
  register(factory: ConnectorFactory): this {
    const type = normalize(factory.type);
    if (this.factories.has(type)) throw new Error(`connector type "${type}" is registered twice`);
    this.factories.set(type, factory);
    return this;
  }

  /** Registered types, sorted. */
  types(): string[] {
    return [...this.factories.keys()].sort();
  }

  get(type: string): ConnectorFactory | undefined {
    return this.factories.get(normalize(type));
  }

  /** The settings validators by type (with their source-job checks), as config validation takes them (`validateConfig({ connectionTypes })`). */
  connectionTypes(): Record<string, ConnectionTypeCheck> {
    return Object.fromEntries([...this.factories].map(([type, factory]) => {
      const { validateSettings, validateSourceJob } = factory;
      const check: ConnectionTypeCheck = validateSourceJob ? Object.assign((settings: Record<string, unknown>, secrets: Record<string, string>) => validateSettings(settings, secrets), { sourceJob: validateSourceJob }) : validateSettings;
      return [type, check];
    }));
  }

  /** The settings schemas by type, sorted by type; types without one are left out. */
  settingsSchemas(): Record<string, z.ZodType> {
    const schemas: Record<string, z.ZodType> = {};
    for (const type of this.types()) {
      const schema = this.factories.get(type)?.settingsSchema;
      if (schema) schemas[type] = schema;
    }
    return schemas;
  }

  /** @throws ConfigError for an unknown type, a type that cannot be a source, or invalid settings. */
  createSource(ctx: ConnectorContext): SourceConnector {
    return openSource(this.checked(ctx), ctx);
  }

  /** @throws ConfigError for an unknown type, a type that cannot be a target, or invalid settings. */
  createTarget(ctx: ConnectorContext): TargetConnector {
    return openTarget(this.checked(ctx), ctx);
  }

  private checked(ctx: ConnectorContext): ConnectorFactory {
    const { connection } = ctx;
    const factory = this.get(connection.type);
    if (!factory) {
      throw new ConfigError(`connection "${connection.name}": unknown connector type "${connection.type}" (known: ${this.types().join(', ')})`);
    }
    const problems = factory.validateSettings(connection.settings, connection.secrets);
    if (problems.length > 0) {
      throw new ConfigError(`connection "${connection.name}": ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    }
    return factory;
  }
}

function normalize(type: string): string {
  return type.trim().toLowerCase();
}

function openSource(factory: ConnectorFactory, ctx: ConnectorContext): SourceConnector {
  if (!factory.createSource) throw new ConfigError(`connection "${ctx.connection.name}": connector type "${factory.type}" cannot be a source`);
  return factory.createSource(ctx);
}

function openTarget(factory: ConnectorFactory, ctx: ConnectorContext): TargetConnector {
  if (!factory.createTarget) throw new ConfigError(`connection "${ctx.connection.name}": connector type "${factory.type}" cannot be a target`);
  return factory.createTarget(ctx);
}

/** What {@link lazyConnectorFactory} needs: everything but the implementation. */
export interface LazyConnectorFactoryOptions {
  /** The `connection.type` served; must be the loaded factory's. */
  type: string;
  /** The settings checks, from a module that loads no connector code; must be the loaded factory's own. */
  validateSettings: SettingsValidator;
  /** The source-job checks, from the same module; must be the loaded factory's own. Default: none. */
  validateSourceJob?: SourceJobValidator;
  /** The schema they check with, from the same module; must be the loaded factory's own. */
  settingsSchema?: z.ZodType;
  /** Returns the implementing factory, typically by `require`-ing its module; called once, on the first open. */
  load: () => ConnectorFactory;
}

/**
 * A factory that validates settings at once but loads its implementation (and the SDKs behind
 * it) only when a connector of the type is first opened: validating a configuration, or running
 * a host whose connections never use the type, does not pay for its code. Loading is
 * synchronous (`require`) because opening a connector is.
 *
 * @throws Error on the first open when the loaded factory serves another type, or validates with
 *   another function or schema (a programming error: the light and the full module disagree).
 */
export function lazyConnectorFactory(options: LazyConnectorFactoryOptions): ConnectorFactory {
  let loaded: ConnectorFactory | undefined;
  const implementation = (): ConnectorFactory => {
    if (loaded) return loaded;
    const factory = options.load();
    if (normalize(factory.type) !== normalize(options.type)) {
      throw new Error(`connector type "${options.type}": its implementation serves type "${factory.type}"`);
    }
    if (factory.validateSettings !== options.validateSettings) {
      throw new Error(`connector type "${options.type}": its implementation validates settings with another function than the one registered`);
    }
    if (factory.validateSourceJob !== options.validateSourceJob) {
      throw new Error(`connector type "${options.type}": its implementation checks source jobs with another function than the one registered`);
    }
    if (factory.settingsSchema !== options.settingsSchema) {
      throw new Error(`connector type "${options.type}": its implementation describes its settings with another schema than the one registered`);
    }
    loaded = factory;
    return loaded;
  };
  return {
    type: options.type,
    validateSettings: options.validateSettings,
    ...(options.validateSourceJob ? { validateSourceJob: options.validateSourceJob } : {}),
    settingsSchema: options.settingsSchema,
    createSource: (ctx) => openSource(implementation(), ctx),
    createTarget: (ctx) => openTarget(implementation(), ctx),
  };
}
