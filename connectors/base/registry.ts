import { ConfigError } from '../../src/model/errors';
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

/** Opens connectors of one `connection.type`. */
export interface ConnectorFactory {
  /** The `connection.type` served, lower case, e.g. `sqlite`. */
  type: string;
  validateSettings: SettingsValidator;
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

  /** The settings validators by type, as config validation takes them (`validateConfig({ connectionTypes })`). */
  connectionTypes(): Record<string, SettingsValidator> {
    return Object.fromEntries([...this.factories].map(([type, factory]) => [type, factory.validateSettings]));
  }

  /** @throws ConfigError for an unknown type, a type that cannot be a source, or invalid settings. */
  createSource(ctx: ConnectorContext): SourceConnector {
    const factory = this.checked(ctx);
    if (!factory.createSource) throw new ConfigError(`connection "${ctx.connection.name}": connector type "${factory.type}" cannot be a source`);
    return factory.createSource(ctx);
  }

  /** @throws ConfigError for an unknown type, a type that cannot be a target, or invalid settings. */
  createTarget(ctx: ConnectorContext): TargetConnector {
    const factory = this.checked(ctx);
    if (!factory.createTarget) throw new ConfigError(`connection "${ctx.connection.name}": connector type "${factory.type}" cannot be a target`);
    return factory.createTarget(ctx);
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
