import { z } from 'zod';
import { formatPath } from '../../platform/config-issue';
import { PermanentError } from '../../platform/errors';
import type { GetChangesInput, GetChangesResume, JobActivityParam, JobOrchestrationResult, JobStateRequest } from './durable-contract';

/**
 * zod schemas for the JSON that crosses the Durable engine: the orchestration's input (and its
 * own continue-as-new hand-over), the activity's input and JobState's operation input. Every
 * check carries its own message, so a failure reads `<where>.<path>: <message>` exactly as the
 * hand-written checks before them did (the tests and the runbook quote those messages). Only the
 * first issue is reported: these payloads are built by code, and one wrong property is a bug to
 * fix, not a file to correct line by line (the config loader's zod-issues.ts does that).
 */

type ErrorClass = new (message: string) => Error;

/**
 * Parses `raw` or throws `errorClass` with the first issue, located below `where`.
 * @throws `errorClass` naming the property, e.g. `GetChangesActivity input.cursor: expected a string`.
 */
function parsePayload<T extends z.ZodType>(schema: T, raw: unknown, where: string, errorClass: ErrorClass): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = formatPath(issue.path);
  throw new errorClass(`${path === '' ? where : `${where}.${path}`}: ${issue.message}`);
}

const notBlank = (s: string) => s.trim() !== '';
/** A string with some non-space character; `message` for both a wrong type and a blank. */
const nonBlankString = (message: string) => z.string({ error: message }).refine(notBlank, { error: message });
/** Message of a check that quotes what it got; `null` for a missing value. */
const got = (expected: string) => (issue: { input?: unknown }) => `${expected}, got ${JSON.stringify(issue.input ?? null)}`;

// --- GetChangesOrchestrator input -------------------------------------------------------------

const orchestrationInputSchema = z.object(
  {
    jobs: z.array(nonBlankString('expected a job name'), { error: 'expected an array of job names' }),
    // Checked against `jobs` once those are known (see parseResume).
    resume: z.unknown().optional(),
  },
  { error: 'expected an object with "jobs"' },
);

/** @throws Error naming the property; the orchestration fails before touching any job. */
export function parseOrchestrationInput(raw: unknown): GetChangesInput {
  const where = 'GetChangesOrchestrator input';
  const { jobs, resume } = parsePayload(orchestrationInputSchema, raw, where, Error);
  if (resume === undefined) return { jobs };
  return { jobs, resume: parseResume(resume, jobs, `${where}.resume`) };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Which job a hand-over continues follows from `done`: this part is read first. */
const resumeHeadSchema = (jobCount: number) =>
  z.looseObject(
    {
      startedAt: z.string({ error: 'expected a time' }),
      done: z
        .array(z.custom<JobOrchestrationResult>(), { error: `expected the results of fewer jobs than ${jobCount}` })
        .max(jobCount - 1, { error: `expected the results of fewer jobs than ${jobCount}` }),
    },
    { error: 'expected an object' },
  );

/** The rest of a hand-over: the state of `job`, the job after those done. */
const resumeJobSchema = (job: string) =>
  z.looseObject({
    current: z.custom<JobOrchestrationResult>((c) => isObject(c) && c.jobName === job, { error: `expected the result so far of job "${job}"` }),
    next: z.custom<JobActivityParam>((n) => isObject(n) && n.jobName === job && typeof n.pageNumber === 'number', {
      error: `expected the next page of job "${job}"`,
    }),
    // z.number() refuses NaN and ±Infinity.
    renewedAt: z.number({ error: 'expected a time in ms' }),
  });

/**
 * The hand-over written by the orchestration itself when it continues as new; checked all the
 * same. Only what the next generation relies on is checked (done results are taken as they are).
 */
function parseResume(raw: unknown, jobs: readonly string[], where: string): GetChangesResume {
  const { startedAt, done } = parsePayload(resumeHeadSchema(jobs.length), raw, where, Error);
  const { current, next, renewedAt } = parsePayload(resumeJobSchema(jobs[done.length]), raw, where, Error);
  return { startedAt, done, current, next, renewedAt };
}

// --- GetChangesActivity input -----------------------------------------------------------------

/** A watermark as the orchestrator carries it: a string, or null before the first. */
const watermarkSchema = z.string({ error: 'expected a string or null' }).nullable().optional();

const activityParamSchema = z
  .object(
    {
      jobName: nonBlankString('expected a job name'),
      pageNumber: z.number({ error: 'expected an integer >= 0' }).refine((n) => Number.isInteger(n) && n >= 0, { error: 'expected an integer >= 0' }),
      cursor: z.string({ error: 'expected a string' }).nullable().optional(),
      startWatermark: watermarkSchema,
      watermark: watermarkSchema,
      resync: watermarkSchema,
    },
    { error: 'expected an object' },
  )
  .transform((r): JobActivityParam => {
    // Only the properties that were given: a null cursor means "no cursor" (the first page).
    const param: JobActivityParam = { jobName: r.jobName, pageNumber: r.pageNumber };
    if (typeof r.cursor === 'string') param.cursor = r.cursor;
    if (r.startWatermark !== undefined) param.startWatermark = r.startWatermark;
    if (r.watermark !== undefined) param.watermark = r.watermark;
    if (r.resync !== undefined) param.resync = r.resync;
    return param;
  });

/** @throws PermanentError naming the property (the orchestrator built it; a bad one is a bug). */
export function parseActivityParam(raw: unknown): JobActivityParam {
  return parsePayload(activityParamSchema, raw, 'GetChangesActivity input', PermanentError);
}

// --- JobState operation input -----------------------------------------------------------------

/** A job name alone: what orchestrations sent before the lease. */
const legacyJobStateSchema = z
  .string()
  .refine(notBlank, { error: got('expected a job name') })
  .transform((job): JobStateRequest => ({ job }));

const jobStateRequestSchema = z.object(
  {
    job: z.string({ error: got('expected a job name') }).refine(notBlank, { error: got('expected a job name') }),
    owner: z.string({ error: got('expected an instance id') }).optional(),
    at: z
      .string({ error: got('expected an ISO 8601 time') })
      .refine((at) => Number.isFinite(Date.parse(at)), { error: got('expected an ISO 8601 time') })
      .optional(),
  },
  { error: got('expected a job name or { job, owner, at }') },
);

/** @throws Error naming the property (the entity operation fails, and so does the caller's call). */
export function parseJobStateRequest(operation: string, input: unknown): JobStateRequest {
  const where = `JobState.${operation} input`;
  const schema = typeof input === 'string' ? legacyJobStateSchema : jobStateRequestSchema;
  const { job, owner, at } = parsePayload(schema, input, where, Error);
  return { job, owner, at };
}
