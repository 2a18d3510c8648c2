import { randomUUID } from 'node:crypto';
import {
  GET_CHANGES_ACTIVITY,
  GET_CHANGES_ORCHESTRATOR,
  type GetChangesInput,
  type GetChangesOutput,
  type GetChangesStatus,
  type JobActivityResult,
} from '../detect/durable/durable-contract';
import { getChangesOrchestration, JOB_STATE, type EntityAddress, type OrchestrationPort } from '../detect/durable/get-changes-orchestration';
import { applyJobStateOperation, expired, type JobState } from '../detect/durable/job-state';
import { errorMessage } from '../platform/errors';
import type { Logger } from '../telemetry/logger';
import { systemClock, type Clock } from '../platform/clock';

type DriverRuntimeStatus = 'Pending' | 'Running' | 'Completed' | 'Failed';

/** What `status()` reports; shaped like Durable's `DurableOrchestrationStatus`. */
export interface DriverInstanceStatus {
  name: string;
  instanceId: string;
  runtimeStatus: DriverRuntimeStatus;
  input: GetChangesInput;
  customStatus: GetChangesStatus | null;
  output: GetChangesOutput | null;
  /** Why the instance failed (the orchestration itself threw, e.g. a bad input). */
  error?: string;
  createdTime: string;
  lastUpdatedTime: string;
}

export interface DurableDriverOptions {
  /** Runs `GetChangesActivity`: the same function the Functions app registers. */
  activity(input: unknown): Promise<JobActivityResult>;
  /** Default: the system clock. Used for `currentUtcDateTime` and status times. */
  clock?: Pick<Clock, 'now'>;
  /** Default: a random UUID without dashes, like Durable's ids. */
  newInstanceId?: () => string;
  /** Finished instances kept for `status()`; the oldest are forgotten first. Default 100. */
  keepFinished?: number;
  log?: Logger;
  /**
   * The generator the driver runs on its port. Default `getChangesOrchestration`; the port's
   * contract runs its own probes through the same engine. Its output becomes `status().output`.
   */
  orchestration?: <TTask>(port: OrchestrationPort<TTask>) => Generator<TTask, unknown, unknown>;
}

/** A task of the local engine: what the orchestration asked for. */
type DriverTask = { kind: 'entity'; entity: EntityAddress; operation: string; input: unknown } | { kind: 'activity'; name: string; input: unknown };

/**
 * A local stand-in for the Durable Task engine, for the local host: runs the same
 * `GetChangesOrchestrator` generator, executing each activity call directly and keeping the
 * `JobState` entity in memory. It does not replay: the generator runs once, in process.
 *
 * Limitations (by design, documented): nothing survives a restart (instances and the JobState
 * entity live in this object — one per process, so two local processes do not see each other's
 * jobs in progress); no activity retries, timers or external events (the orchestrator uses none).
 */
export class DurableDriver {
  private readonly instances = new Map<string, DriverInstanceStatus>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly entities = new Map<string, JobState>();
  private readonly clock: Pick<Clock, 'now'>;
  private closed = false;

  constructor(private readonly options: DurableDriverOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Starts an instance and returns its id at once (status `Pending`, then `Running`).
   * @throws Error after {@link close}.
   */
  start(input: GetChangesInput, instanceId: string = (this.options.newInstanceId ?? defaultInstanceId)()): string {
    if (this.closed) throw new Error('the durable driver is closed');
    if (this.instances.has(instanceId)) throw new Error(`instance "${instanceId}" already exists`);
    const at = this.clock.now().toISOString();
    this.instances.set(instanceId, {
      name: GET_CHANGES_ORCHESTRATOR,
      instanceId,
      runtimeStatus: 'Pending',
      input: cloneJson(input),
      customStatus: null,
      output: null,
      createdTime: at,
      lastUpdatedTime: at,
    });
    // Started on a later tick, so that the caller sees `Pending` and can answer 202 first.
    const run = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.run(instanceId));
    this.running.set(instanceId, run);
    void run.finally(() => this.running.delete(instanceId));
    this.forgetOldInstances();
    return instanceId;
  }

  /** A copy of the instance's status; undefined for an unknown (or forgotten) id. */
  status(instanceId: string): DriverInstanceStatus | undefined {
    const status = this.instances.get(instanceId);
    return status && cloneJson(status);
  }

  /** Resolves with the final status once the instance has finished. */
  async waitForCompletion(instanceId: string): Promise<DriverInstanceStatus> {
    await this.running.get(instanceId);
    const status = this.status(instanceId);
    if (!status) throw new Error(`unknown instance "${instanceId}"`);
    return status;
  }

  /** Job names the in-memory JobState entity holds under a lease that has not expired. */
  jobsInProgress(): string[] {
    const at = this.clock.now().getTime();
    return (this.entities.get(entityKey(JOB_STATE)) ?? []).filter((lease) => !expired(lease, at)).map((lease) => lease.job);
  }

  /** Refuses new starts and waits for the running instances to finish. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running.values()]);
  }

  private async run(instanceId: string): Promise<void> {
    const status = this.instances.get(instanceId);
    if (!status) return;
    this.update(status, { runtimeStatus: 'Running' });
    let input = status.input;
    let continued: GetChangesInput | undefined;
    const port: OrchestrationPort<DriverTask> = {
      input: () => cloneJson(input),
      instanceId: () => instanceId,
      now: () => this.clock.now(),
      callEntity: (entity, operation, input) => ({ kind: 'entity', entity, operation, input }),
      callActivity: (name, input) => ({ kind: 'activity', name, input }),
      setStatus: (customStatus) => this.update(status, { customStatus: customStatus && cloneJson(customStatus) }),
      continueAsNew: (next) => (continued = cloneJson(next)),
    };
    try {
      for (;;) {
        const generator = (this.options.orchestration ?? getChangesOrchestration)(port);
        let step = generator.next();
        while (!step.done) {
          let value: unknown;
          let failure: { error: unknown } | undefined;
          try {
            value = await this.execute(step.value);
          } catch (error) {
            failure = { error };
          }
          step = failure ? generator.throw(failure.error) : generator.next(value);
        }
        // As the engine does: a generation that continued as new starts again with its input.
        if (continued === undefined) {
          this.update(status, { runtimeStatus: 'Completed', output: cloneJson(step.value) as GetChangesOutput });
          return;
        }
        input = continued;
        continued = undefined;
        this.update(status, { input: cloneJson(input) });
      }
    } catch (err) {
      this.update(status, { runtimeStatus: 'Failed', error: errorMessage(err) });
      this.options.log?.error(`orchestration ${instanceId} failed: ${errorMessage(err)}`);
    }
  }

  /** Results cross a JSON boundary, as they do through the Durable Task engine. */
  private async execute(task: DriverTask): Promise<unknown> {
    if (task.kind === 'activity') {
      if (task.name !== GET_CHANGES_ACTIVITY) throw new Error(`unknown activity "${task.name}"`);
      return cloneJson(await this.options.activity(cloneJson(task.input)));
    }
    if (task.entity.name !== JOB_STATE.name) throw new Error(`unknown entity "${task.entity.name}"`);
    // Synchronous read-modify-write: operations on one entity cannot interleave.
    const key = entityKey(task.entity);
    const step = applyJobStateOperation(this.entities.get(key), task.operation, cloneJson(task.input));
    this.entities.set(key, step.state);
    return step.result;
  }

  private update(status: DriverInstanceStatus, changes: Partial<DriverInstanceStatus>): void {
    Object.assign(status, changes, { lastUpdatedTime: this.clock.now().toISOString() });
  }

  private forgetOldInstances(): void {
    const keep = this.options.keepFinished ?? 100;
    const finished = [...this.instances.values()].filter((s) => s.runtimeStatus === 'Completed' || s.runtimeStatus === 'Failed');
    for (const old of finished.slice(0, Math.max(0, finished.length - keep))) this.instances.delete(old.instanceId);
  }
}

function entityKey(entity: EntityAddress): string {
  return `@${entity.name.toLowerCase()}@${entity.key}`;
}

function defaultInstanceId(): string {
  return randomUUID().replace(/-/g, '');
}

function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
