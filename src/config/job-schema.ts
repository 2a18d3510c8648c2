import { z } from 'zod';
import { scheduleProblem } from '../platform/schedule';
import { JobActionType } from '../model/job';
import { pushSchema } from './push-schema';
import { documented, filterConditionSchema, nonEmptyString, objectName } from './schema-common';

const WATERMARK_TYPES = ['datetime', 'date', 'number', 'string'];

export const scheduleSchema = documented(
  z.string().superRefine((expr, ctx) => {
    const problem = scheduleProblem(expr);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  '6-field NCRONTAB (second minute hour day month weekday), Functions style, e.g. "*/10 * * * * *".',
);

export const watermarkSchema = documented(
  z.strictObject({
    type: documented(
      z.string().superRefine((type, ctx) => {
        if (WATERMARK_TYPES.includes(type.trim().toLowerCase())) return;
        ctx.addIssue({ code: 'custom', message: `expected one of datetime, date, number, string (case-insensitive); got ${JSON.stringify(type)}` });
      }),
      'datetime | date | number | string (trimmed, case-insensitive).',
    ),
    field: documented(nonEmptyString(), 'Source field whose value is the change tracker.'),
  }),
  'The high-water mark: which source field tracks changes, and how to compare it.',
  'Watermark',
);

export const jobSchema = documented(
  z
    .strictObject({
      name: objectName('job'),
      order: documented(z.number().int().default(100), 'Jobs due in the same run execute in ascending order, then by name. Default 100.'),
      schedule: scheduleSchema,
      enabled: documented(z.boolean().default(true), 'Disabled jobs are never due (they can still be run by name). Default true.'),
      source: documented(nonEmptyString(), 'Source connection name.'),
      target: documented(nonEmptyString(), 'Target connection name.'),
      mapping: documented(nonEmptyString(), 'Mapping name.'),
      priority: documented(z.enum(['high', 'normal', 'low']).default('normal'), "Work queue for this job's messages. Default normal."),
      watermark: watermarkSchema,
      filter: documented(
        z.array(filterConditionSchema).default([]),
        'Conditions that all must hold for a source row to be detected (AND).',
      ),
      action: documented(
        z.enum([JobActionType.NewUpdate, JobActionType.Delete, JobActionType.InvokeAction]).default(JobActionType.NewUpdate),
        'What the target does with each change. Default NewUpdate.',
      ),
      actionName: documented(nonEmptyString().optional(), 'Name of the target action; required for InvokeAction jobs.'),
      skipOutdatedMessages: documented(
        z.boolean().default(false),
        'Skip a message whose change is older than the target record (sent to sbqignored). Default false.',
      ),
      skipUnchanged: documented(
        z.boolean().default(false),
        'Treat a change whose mapped fields equal what was last applied as a timestamp-only change. Default false.',
      ),
      skipFailedRows: documented(
        z.boolean().default(false),
        "Skip a source row that cannot become a message (a value that cannot be converted, a null key, a resolver with onMissing: error, a message over the queue's size limit): recorded in the run log and the log, the watermark moves past it. Default false: the run stops at the row until it is fixed.",
      ),
      transitiveRetries: documented(
        z.number().int().min(0).max(9).default(0),
        'Deliveries retried with backoff before a TransitiveError parks the message in sbqtransitive<priority> (absorbs ordering races, e.g. a contact processed before its account). Default 0: park at once, as the spec says.',
      ),
      responseJob: documented(nonEmptyString().optional(), "Job that receives the target's response (e.g. a generated key) to write it back."),
      pageSize: documented(
        z.number().int().positive().optional(),
        "Rows read per source page. Default 500; on the durable path (one page per activity call) the spec's MaxBatchSize of 3.",
      ),
      lookbackSeconds: documented(
        z.number().int().min(0).default(0),
        "Re-read changes this many seconds behind the watermark (stamps set by an application whose clock runs behind the source's, late replicas). Not needed for correctness: a run never reads past the source's settled horizon. Default 0.",
      ),
      settleSeconds: documented(
        z.number().min(0).max(3600).optional(),
        "Settle margin: changes stamped less than this many seconds before the source's clock (on PostgreSQL also those at or after the start of its oldest open transaction) are left to the next run, so a stamp taken shortly before its commit is never passed by the watermark. Default 1 for SQL sources, 5 for OData services.",
      ),
      softDelete: documented(
        filterConditionSchema.optional(),
        'Rows matching this condition are sent as Delete messages (soft-delete column).',
      ),
      push: pushSchema.optional(),
    })
    .superRefine((job, ctx) => {
      const invokes = job.action === JobActionType.InvokeAction;
      if (invokes && job.actionName === undefined) {
        ctx.addIssue({ code: 'custom', path: ['actionName'], message: 'required when action is InvokeAction' });
      }
      if (!invokes && job.actionName !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['actionName'], message: 'only allowed when action is InvokeAction' });
      }
      if (job.push && job.action !== JobActionType.NewUpdate) {
        ctx.addIssue({ code: 'custom', path: ['push'], message: 'only allowed when action is NewUpdate (a pushed delete becomes a Delete message of the same job)' });
      }
      // A pushed copy can arrive after a newer change of its record was polled and applied:
      // only the target's version, compared inside the write, keeps it from overwriting.
      if (job.push && !job.skipOutdatedMessages) {
        ctx.addIssue({ code: 'custom', path: ['skipOutdatedMessages'], message: 'must be true when push is set (a pushed change can arrive after a newer one of its record was polled and applied)' });
      }
    }),
  'A scheduled sync job: what to read, how to map it, where to send it.',
  'Job',
);
