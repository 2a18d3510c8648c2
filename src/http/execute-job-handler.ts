import { errorMessage } from '../model/errors';
import type { Runtime } from '../runtime/runtime';
import { totalSent } from '../detect/job-run';
import { httpError, type HttpInput, type HttpOutput } from './http-types';

const ALLOWED_BODY_KEYS = new Set(['dryRun', 'limit']);

/**
 * `POST jobs/{name}/execute`: runs one job now (in parallel with the timer if need be: last writer
 * wins on the watermark, a stale writer only causes repeats). 200 with the run's counts, 404 for
 * an unknown job, 400 for a bad body, 500 when the job ran and failed (the body says why).
 * Body (optional JSON): `{ "dryRun": true, "limit": 20 }`.
 */
export async function executeJobHandler(runtime: Runtime, input: HttpInput): Promise<HttpOutput> {
  const name = input.params.name ?? '';
  let options: { dryRun?: boolean; limit?: number } = {};
  if (input.body.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(input.body);
    } catch (err) {
      return httpError(400, 'BadRequest', `body: not JSON (${errorMessage(err)})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return httpError(400, 'BadRequest', 'body: expected a JSON object');
    const record = parsed as Record<string, unknown>;
    const unknown = Object.keys(record).filter((k) => !ALLOWED_BODY_KEYS.has(k));
    if (unknown.length > 0) return httpError(400, 'BadRequest', `body.${unknown[0]}: unknown property (allowed: dryRun, limit)`);
    if (record.dryRun !== undefined && typeof record.dryRun !== 'boolean') return httpError(400, 'BadRequest', 'body.dryRun: expected a boolean');
    if (record.limit !== undefined && !(Number.isInteger(record.limit) && (record.limit as number) > 0 && (record.limit as number) <= 10_000)) {
      return httpError(400, 'BadRequest', 'body.limit: expected an integer from 1 to 10000');
    }
    options = { dryRun: record.dryRun as boolean | undefined, limit: record.limit as number | undefined };
  }
  try {
    await runtime.init.ensureInitialized();
  } catch (err) {
    return httpError(503, 'ConfigurationUnavailable', errorMessage(err));
  }
  const job = runtime.init.findJob(name);
  if (!job) return httpError(404, 'JobNotFound', `unknown job "${name}"`);
  const run = await runtime.detection.runJob(job, { trigger: 'manual', dryRun: options.dryRun, limit: options.limit });
  const body = {
    job: run.jobName,
    outcome: run.outcome,
    detected: run.detected,
    sent: totalSent(run),
    sentByQueue: run.sentByQueue,
    timeStamps: run.timeStamps,
    watermarkBefore: run.watermarkBefore,
    watermarkAfter: run.watermarkAfter,
    startedAt: run.startedAt.toISOString(),
    endedAt: run.endedAt.toISOString(),
    ...(run.error ? { error: run.error } : {}),
    ...(run.preview ? { preview: run.preview } : {}),
  };
  return { status: run.outcome === 'Succeeded' ? 200 : 500, body };
}
