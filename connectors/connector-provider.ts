import type { Clock } from '../src/platform/clock';
import type { Connection } from '../src/model/connection';
import type { ConnectorRegistry } from './base/registry';
import type { SourceConnector } from './base/source-connector';
import type { TargetConnector } from './base/target-connector';

export interface ConnectorProviderOptions {
  registry: ConnectorRegistry;
  /** The connection of a name; throws for an unknown one. */
  connection(name: string): Connection;
  /** Reads a secret by app-setting name (env). */
  resolveSecret(envName: string): string | undefined;
  /** Relative file settings resolve against this folder. */
  configDir: string;
  /** Handed to every connector (see `ConnectorContext.clock`). Default: the system clock. */
  clock?: Pick<Clock, 'now' | 'sleep'>;
  warn?: (message: string) => void;
}

/**
 * Opens source and target connectors on first use and keeps them per connection name, so a
 * process holds one client (pool) per system. A failed open is not cached.
 */
export class ConnectorProvider {
  private readonly sources = new Map<string, Promise<SourceConnector>>();
  private readonly targets = new Map<string, Promise<TargetConnector>>();

  constructor(private readonly options: ConnectorProviderOptions) {}

  source(connectionName: string): Promise<SourceConnector> {
    return this.cached(this.sources, connectionName, (ctx) => this.options.registry.createSource(ctx));
  }

  target(connectionName: string): Promise<TargetConnector> {
    return this.cached(this.targets, connectionName, (ctx) => this.options.registry.createTarget(ctx));
  }

  /**
   * What a factory gets to open a connector of this connection (for clients beside the source and
   * target, e.g. Business Central's webhook subscriptions). @throws for an unknown connection.
   */
  context(connectionName: string): Parameters<ConnectorRegistry['createSource']>[0] {
    const { options } = this;
    return { connection: options.connection(connectionName), resolveSecret: options.resolveSecret, configDir: options.configDir, clock: options.clock, warn: options.warn };
  }

  async close(): Promise<void> {
    const all = [...this.sources.values(), ...this.targets.values()];
    this.sources.clear();
    this.targets.clear();
    await Promise.all(all.map((p) => p.then((c) => c.close()).catch(() => undefined)));
  }

  private cached<T>(
    cache: Map<string, Promise<T>>,
    name: string,
    open: (ctx: Parameters<ConnectorRegistry['createSource']>[0]) => T,
  ): Promise<T> {
    let pending = cache.get(name);
    if (!pending) {
      pending = (async () => open(this.context(name)))();
      pending.catch(() => cache.delete(name));
      cache.set(name, pending);
    }
    return pending;
  }
}
