import { APP_SETTINGS, DEFAULT_LOCAL_PROCESSING } from '../platform/app-settings';
import { parseSetting } from '../platform/setting-spec';
import type { Priority } from '../platform/queue-topology';

/** Where the local host runs its queue processors: on a worker thread (the second core) or on the main thread. */
export type ProcessingMode = 'worker' | 'inline';

export const PROCESSING_MODES: readonly ProcessingMode[] = ['worker', 'inline'];

/** The default of `HIGHWATER_LOCAL_PROCESSING`, declared (and why) with the setting. */
export const DEFAULT_PROCESSING_MODE: ProcessingMode = DEFAULT_LOCAL_PROCESSING;

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
