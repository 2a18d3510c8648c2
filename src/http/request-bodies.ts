import { z } from 'zod';

/** Largest `limit` a manual run takes. */
const MAX_EXECUTE_LIMIT = 10_000;
/** Most jobs one orchestration start may name. */
const MAX_NAMED_JOBS = 500;

/** `POST jobs/{name}/execute`: `{ "dryRun": true, "limit": 20 }`, both optional. */
export const executeJobBody = z.object({
  /** Detect and report without sending or moving the watermark. Default false. */
  dryRun: z.boolean({ error: 'expected a boolean' }).optional(),
  /** Stop after this many changes (1–10000). Default no limit. */
  limit: z
    .number({ error: `expected an integer from 1 to ${MAX_EXECUTE_LIMIT}` })
    .int({ error: `expected an integer from 1 to ${MAX_EXECUTE_LIMIT}` })
    .min(1, { error: `expected an integer from 1 to ${MAX_EXECUTE_LIMIT}` })
    .max(MAX_EXECUTE_LIMIT, { error: `expected an integer from 1 to ${MAX_EXECUTE_LIMIT}` })
    .optional(),
});

/**
 * Job names in the order they run. One refinement walks the list, so the first bad entry is
 * reported, whether it is not a name or a repeat.
 */
const jobNames = z
  .array(z.unknown(), { error: 'expected an array of job names' })
  .min(1, { error: 'expected at least one job name' })
  .max(MAX_NAMED_JOBS, { error: `expected at most ${MAX_NAMED_JOBS} job names` })
  .superRefine((names, ctx) => {
    const seen = new Set<string>();
    for (const [i, name] of names.entries()) {
      if (typeof name !== 'string' || name.trim() === '') {
        ctx.addIssue({ code: 'custom', path: [i], message: 'expected a job name', input: name });
        return;
      }
      if (seen.has(name)) {
        ctx.addIssue({ code: 'custom', path: [i], message: `"${name}" is listed twice`, input: name });
        return;
      }
      seen.add(name);
    }
  })
  .transform((names) => names as string[]);

/** `POST orchestrators/GetChangesOrchestrator`: `{ "jobs": ["a", "b"] }`, optional. */
export const orchestrationStartBody = z.object({
  /** Exactly these jobs, in this order. Default the jobs due now. */
  jobs: jobNames.optional(),
});
