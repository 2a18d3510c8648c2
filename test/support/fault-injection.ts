import type { ConnectorContext } from '../../connectors/base/connector-context';
import { ConnectorRegistry, type ConnectorFactory } from '../../connectors/base/registry';
import type { RetrieveOptions, SourceConnector, SourcePage } from '../../connectors/base/source-connector';
import type { TargetConnector, UpsertContext, UpsertResult } from '../../connectors/base/target-connector';
import { isItemError, type ItemOutcome, type TargetBatch } from '../../connectors/base/target-batch';
import { sqlConnectorFactories } from '../../connectors/sql';
import { JobActionType, type Job } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import type { QueueMessage } from '../../src/model/queue-message';
import type { WatermarkValue } from '../../src/model/watermark-value';

/**
 * Fault injection around real connectors: a registry whose factories wrap the real ones, so a
 * test decides per call whether a fault happens and otherwise the real connector runs. Faults are
 * switched on and off by replacing `plan` while the runtime keeps running.
 */

/** Whether the full (soak) variants run: `HIGHWATER_SOAK=1` (`npm run test:soak`). Default: the reduced CI form. */
export const SOAK = process.env.HIGHWATER_SOAK === '1';

/** `reduced` in CI, `full` under `HIGHWATER_SOAK=1`. */
export function bySoak<T>(reduced: T, full: T): T {
  return SOAK ? full : reduced;
}

/** A call's kind: a batch item counts as the single call it stands for. */
type TargetMethod = 'upsert' | 'delete' | 'invokeAction';

/** One call a target connector received. */
export interface TargetCall {
  connection: string;
  method: TargetMethod;
  jobName: string;
  sourceKey: string;
}

export interface FaultPlan {
  /** Runs before every target call; what it throws replaces the call (the real target is not reached). Default: none. */
  beforeTargetCall?: (call: TargetCall) => void | Promise<void>;
  /** Runs before each source page is handed to detection (e.g. to stop storage in the middle of a run). Default: none. */
  beforeSourcePage?: (page: { connection: string; jobName: string; index: number }) => void | Promise<void>;
  /** Rewrites a connection's settings before its connector opens (e.g. a short SQLite busy timeout). Default: as configured. */
  settings?: (connection: string, settings: Record<string, unknown>) => Record<string, unknown>;
}

/** The switchable fault plan and the record of target calls (faulted or not). */
export class FaultInjection {
  plan: FaultPlan = {};
  readonly calls: TargetCall[] = [];

  /** Calls of one source key, in order. */
  callsFor(sourceKey: string): TargetCall[] {
    return this.calls.filter((c) => c.sourceKey === sourceKey);
  }
}

class FaultyTarget implements TargetConnector {
  constructor(
    private readonly inner: TargetConnector,
    private readonly connection: string,
    private readonly faults: FaultInjection,
  ) {}

  private async before(method: TargetMethod, message: QueueMessage): Promise<void> {
    const call = { connection: this.connection, method, jobName: message.jobName, sourceKey: message.sourceKey };
    this.faults.calls.push(call);
    await this.faults.plan.beforeTargetCall?.(call);
  }

  async upsert(message: QueueMessage, mapping: Mapping, context?: UpsertContext): Promise<UpsertResult> {
    await this.before('upsert', message);
    return this.inner.upsert(message, mapping, context);
  }

  async delete(message: QueueMessage, mapping: Mapping): Promise<void> {
    await this.before('delete', message);
    return this.inner.delete(message, mapping);
  }

  /**
   * Every message passes the fault plan first (as `upsert`, `delete` or `invokeAction`); the ones
   * it faults fail alone, the rest go to the real target's batch.
   */
  async applyBatch(batch: TargetBatch): Promise<ItemOutcome[]> {
    const method: TargetMethod = batch.action === JobActionType.Delete ? 'delete' : batch.action === JobActionType.InvokeAction ? 'invokeAction' : 'upsert';
    const outcomes = new Array<ItemOutcome | undefined>(batch.messages.length);
    const passed: number[] = [];
    for (let i = 0; i < batch.messages.length; i++) {
      try {
        await this.before(method, batch.messages[i]);
        passed.push(i);
      } catch (error) {
        outcomes[i] = { status: 'failed', error };
      }
    }
    if (passed.length === 0) {
      const first = outcomes[0] as { error: unknown };
      if (!isItemError(first.error)) throw first.error;
      return outcomes as ItemOutcome[];
    }
    const inner = await this.inner.applyBatch({ ...batch, messages: passed.map((i) => batch.messages[i]) });
    passed.forEach((index, j) => (outcomes[index] = inner[j]));
    return outcomes as ItemOutcome[];
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

class FaultySource implements SourceConnector {
  constructor(
    private readonly inner: SourceConnector,
    private readonly connection: string,
    private readonly faults: FaultInjection,
  ) {}

  async *retrieveChanges(mapping: Mapping, job: Job, watermark: WatermarkValue, options?: RetrieveOptions): AsyncIterable<SourcePage> {
    let index = 0;
    for await (const page of this.inner.retrieveChanges(mapping, job, watermark, options)) {
      await this.faults.plan.beforeSourcePage?.({ connection: this.connection, jobName: job.name, index: index++ });
      yield page;
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

function withSettings(ctx: ConnectorContext, faults: FaultInjection): ConnectorContext {
  const rewrite = faults.plan.settings;
  if (!rewrite) return ctx;
  return { ...ctx, connection: { ...ctx.connection, settings: rewrite(ctx.connection.name, { ...ctx.connection.settings }) } };
}

/** The factory with its source and target wrapped; validation is the real one. */
function faultInjectingFactory(inner: ConnectorFactory, faults: FaultInjection): ConnectorFactory {
  const { createSource, createTarget } = inner;
  return {
    type: inner.type,
    validateSettings: inner.validateSettings,
    ...(createSource && {
      createSource: (ctx: ConnectorContext) => new FaultySource(createSource(withSettings(ctx, faults)), ctx.connection.name, faults),
    }),
    ...(createTarget && {
      createTarget: (ctx: ConnectorContext) => new FaultyTarget(createTarget(withSettings(ctx, faults)), ctx.connection.name, faults),
    }),
  };
}

/** A registry of the given factories (default: the SQL connectors), each wrapped by {@link faultInjectingFactory}. */
export function faultInjectingRegistry(faults: FaultInjection, factories: readonly ConnectorFactory[] = sqlConnectorFactories): ConnectorRegistry {
  return new ConnectorRegistry(factories.map((factory) => faultInjectingFactory(factory, faults)));
}

/** Polls `probe` every `pollMs` until it returns a value other than undefined. @throws naming `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000, pollMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
