import { z } from 'zod';
import { scheduleProblem } from '../platform/schedule';
import { documented, nonEmptyString } from './schema-common';

/**
 * The scheduled requeue of parked messages (docs/long-runs.md): the optional file
 * `requeue.(json|yaml|yml)` of a config folder. Without it, or with `enabled: false`, parked
 * queues stay manual, as the specification has them.
 *
 * ```yaml
 * requeue:
 *   enabled: true
 *   schedule: "0 *\/5 * * * *"   # every 5 minutes
 *   maxRequeues: 5
 *   rules: requeue-rules.yaml   # optional; default: the dead-letter mover's default rules
 * ```
 */

/** Every 15 minutes, at second 0. */
const DEFAULT_REQUEUE_SCHEDULE = '0 */15 * * * *';
/** Scheduled requeues of one message before it is left for a person. */
const DEFAULT_MAX_REQUEUES = 5;
/** Messages considered per parked queue and run. */
const DEFAULT_REQUEUE_MAX_MESSAGES = 1000;

const requeueScheduleSchema = documented(
  z
    .string()
    .superRefine((expr, ctx) => {
      const problem = scheduleProblem(expr);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(DEFAULT_REQUEUE_SCHEDULE),
  `6-field NCRONTAB (second minute hour day month weekday) of the requeue runs, in HIGHWATER_TIMEZONE. Default "${DEFAULT_REQUEUE_SCHEDULE}". In Azure the RequeueParked timer looks every minute, so runs are at most once a minute.`,
);

const requeueSchema = documented(
  z.strictObject({
    enabled: documented(z.boolean().default(false), 'Run the requeue on its schedule. Default false: parked queues stay manual.'),
    schedule: requeueScheduleSchema,
    maxRequeues: documented(
      z.number().int().min(1).max(1000).default(DEFAULT_MAX_REQUEUES),
      `How often the schedule sends one message back (counted in its RequeueCount property); after that it stays parked for a person. Default ${DEFAULT_MAX_REQUEUES}.`,
    ),
    rules: documented(
      nonEmptyString().optional(),
      "Rules file of the dead-letter mover (YAML or JSON), relative to the config folder. Default: the mover's default-rules.yaml (resubmits TransitiveError and transient failures).",
    ),
    maxMessages: documented(
      z.number().int().min(1).max(100_000).default(DEFAULT_REQUEUE_MAX_MESSAGES),
      `Most messages considered per parked queue and run (oldest first). Default ${DEFAULT_REQUEUE_MAX_MESSAGES}.`,
    ),
  }),
  'When and how parked messages (sbqtransitive*) are sent back to their work queues by the dead-letter mover’s rules.',
  'Requeue',
);

/** The validated requeue section, defaults filled. */
export type RequeueConfig = z.output<typeof requeueSchema>;

/** The requeue file: `{ requeue: {...} }` (plus an optional `$schema`). */
export const requeueFileSchema = documented(
  z.strictObject({
    $schema: documented(z.string().optional(), 'Path or URL of highwater-config.schema.json (for editors).'),
    requeue: requeueSchema,
  }),
  'requeue.(json|yaml|yml), optional: the scheduled requeue of parked messages.',
  'RequeueFile',
);
