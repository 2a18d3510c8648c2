import type { Priority } from '../platform/queue-topology';
import type { PushSpec } from './push';

/**
 * What a message asks the target to do. `TimeStamp` is a detected change that only moved the
 * change tracker (no business change): it advances the watermark and sends nothing.
 */
export enum JobActionType {
  NewUpdate = 'NewUpdate',
  Delete = 'Delete',
  InvokeAction = 'InvokeAction',
  TimeStamp = 'TimeStamp',
}

/** Actions a job can be configured with (TimeStamp is only ever detected, never configured). */
export type JobAction = JobActionType.NewUpdate | JobActionType.Delete | JobActionType.InvokeAction;

/** Operators of a structured filter condition; values are always bound, never concatenated. */
type FilterOperator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le' | 'in' | 'notIn' | 'like' | 'isNull' | 'isNotNull';

export interface FilterCondition {
  field: string;
  op: FilterOperator;
  /** Required for every operator except `isNull` / `isNotNull`; an array for `in` / `notIn`. */
  value?: string | number | boolean | null | Array<string | number | boolean>;
}

export interface WatermarkSpec {
  /** `datetime` | `date` | `number` | `string` (trimmed, case-insensitive). */
  type: string;
  /** Source field whose value is the change tracker. */
  field: string;
}

/** What a job generated from a two-way pair knows of it (set by the pair's expansion, never written by hand). */
interface JobPairRef {
  /** Pair name. */
  name: string;
  /** The side this job reads (its source); it writes the other. */
  side: 'a' | 'b';
  /** The job of the opposite direction. */
  partner: string;
}

/** Rows a page holds when the job sets no `pageSize` (the durable path has its own default). */
export const DEFAULT_PAGE_SIZE = 500;

export interface Job {
  name: string;
  /** Jobs due in the same run execute in ascending `order`, then by name. Default 100. */
  order: number;
  /** 6-field NCRONTAB (`sec min hour day month weekday`), Functions style. */
  schedule: string;
  /** Disabled jobs are never due (they can still be run by name). Default true. */
  enabled: boolean;
  /** Source connection name. */
  source: string;
  /** Target connection name. */
  target: string;
  /** Mapping name. */
  mapping: string;
  /** Work queue for this job's messages. Default `normal`. */
  priority: Priority;
  watermark: WatermarkSpec;
  /** Conditions that all must hold for a source row to be detected (AND). */
  filter: FilterCondition[];
  /** Default `NewUpdate`. */
  action: JobAction;
  /** Name of the target action for `InvokeAction` jobs. */
  actionName?: string;
  /** Skip a message whose change is older than the target record (sent to `sbqignored`). Default false. */
  skipOutdatedMessages: boolean;
  /** Treat a change whose mapped fields equal what was last applied as a `TimeStamp` change. Default false. */
  skipUnchanged: boolean;
  /**
   * Skip a source row that cannot become a message (a value that cannot be converted, a null key,
   * a resolver with `onMissing: error`, a message over the queue's size limit): it is recorded in
   * the run's record and the log, and the watermark moves past it. Default false: the run stops
   * at the row and the watermark holds until the row is fixed.
   */
  skipFailedRows?: boolean;
  /**
   * Deliveries retried (abandon with backoff) before a `TransitiveError` parks the message in
   * `sbqtransitive<priority>`. Default 0: park at once (the spec's behaviour).
   */
  transitiveRetries?: number;
  /** Job that receives the target's response (e.g. a generated key) to write it back. */
  responseJob?: string;
  /**
   * Rows read per source page. Default {@link DEFAULT_PAGE_SIZE} (500); on the durable path, where
   * each page is one activity call, the spec's `MaxBatchSize` of 3.
   */
  pageSize?: number;
  /**
   * Re-read changes this many seconds behind the watermark: for stamps an application sets from
   * a clock that runs behind the source's, or a replica that applies late. Not needed for
   * correctness: a run never reads past the source's settled horizon. Default 0.
   */
  lookbackSeconds: number;
  /**
   * The settle margin: changes stamped less than this many seconds before the source's clock
   * (and, on PostgreSQL, at or after the start of its oldest open transaction) are left to the
   * next run, so that a stamp taken shortly before its commit is not passed by the watermark.
   * Default: 1 for SQL sources, 5 for OData services.
   */
  settleSeconds?: number;
  /** Rows matching this condition are sent as `Delete` messages (soft-delete column). */
  softDelete?: FilterCondition;
  /** Set on the two jobs a pair expands into (never written by hand): see `Pair`. */
  pair?: JobPairRef;
  /** Changes are also pushed to `POST /api/hooks/{job}` (see `PushSpec`). Default none: poll only. */
  push?: PushSpec;
}
