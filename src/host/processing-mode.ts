import { APP_SETTINGS } from '../platform/app-settings';
import { parseSetting } from '../platform/setting-spec';
import type { Priority } from '../platform/queue-topology';

/** Where the local host runs its queue processors: on a worker thread (the second core) or on the main thread. */
export type ProcessingMode = 'worker' | 'inline';

export const PROCESSING_MODES: readonly ProcessingMode[] = ['worker', 'inline'];

/**
 * The default, measured end to end (`npm run bench -- --sizes 100000,1000000 --processing
 * inline,worker --runs 2`, docs/benchmarks.md "End to end", 2026-12-02, load 2.4–3.9 on 2 shared
 * cores): the worker tied at 100k (11.2k vs 11.3k rows/s) and gained 14% at 1M (13.2k vs 11.6k)
 * but peaked at 199 / 236 MB of RSS against 138 / 165 MB inline — over the 175 MB bound. Inline
 * until the worker's memory is cut; `worker` is there for a machine with a core to spare.
 */
export const DEFAULT_PROCESSING_MODE: ProcessingMode = parseSetting(APP_SETTINGS.localProcessing, undefined);

/**
 * The mode of the setting `HIGHWATER_LOCAL_PROCESSING` (any case, trimmed); unset → the default.
 * @throws ConfigError naming the setting and the value when it is neither `worker` nor `inline`.
 */
export function processingMode(value: string | undefined): ProcessingMode {
  return parseSetting(APP_SETTINGS.localProcessing, value);
}

/**
 * Messages in flight per work queue (in batches of up to 256, as the Functions app's
 * `maxMessageBatchSize`): 8, 2 and half a batch. The local host stands in for scaled-out function
 * instances on one event loop, and the shares follow the priority — while a batch waits (on table
 * storage: the deletion guard, applied hashes) others of its queue go on. With high at 512, the
 * crm-erp benchmark's accounts (and their responses) fell behind their detection, so the contacts
 * that refer to them were tried first and waited out the retry backoff: 13.0–24.2 s, 3,400–5,000
 * retries; at 2,048, 11.6–13.4 s and none (docs/benchmarks.md, 2026-12-03). Normal stays at 512
 * for the single-job memory aim.
 */
export const DEFAULT_CONCURRENCY: Record<Priority, number> = { high: 2048, normal: 512, low: 128 };
