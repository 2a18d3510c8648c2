import { ConfigError, PermanentError, TransientError, type HighwaterError } from '../model/errors';

/** The parts of an `@azure/data-tables` RestError this module reads (no SDK type leaks out). */
interface SdkErrorShape {
  name?: unknown;
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
  details?: { odataError?: { code?: unknown; message?: { value?: unknown } } };
}

type Kind = 'transient' | 'permanent' | 'config';

/**
 * The one classification table for storage failures. Checked top to bottom; the first match wins.
 * Unmatched failures are transient (retrying is the safe default for an unknown storage error).
 */
const CLASSIFICATION: Array<{ when: (status: number | undefined, code: string) => boolean; kind: Kind; hint?: string }> = [
  { when: (s) => s === 401 || s === 403, kind: 'config', hint: 'check AzureWebJobsStorage or the identity’s table role' },
  { when: (s) => s === 408 || s === 429 || (s !== undefined && s >= 500), kind: 'transient' },
  { when: (s) => s !== undefined && s >= 400 && s < 500, kind: 'permanent' },
  { when: (_s, c) => c === 'ENOTFOUND' || c === 'EAI_AGAIN', kind: 'transient', hint: 'storage host not found' },
  { when: () => true, kind: 'transient' },
];

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/** Strips anything that looks like a credential (SAS signature, account key) from a message. */
function redact(text: string): string {
  return text.replace(/(sig|AccountKey|SharedAccessSignature)=[^;&\s]*/gi, '$1=***');
}

/**
 * Converts a failure of an SDK call into the error taxonomy, naming the operation and table
 * but never the request URL or credentials.
 * @param operation e.g. `upsert`, `get`, `create table`.
 */
export function toStorageError(err: unknown, operation: string, table: string): HighwaterError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as SdkErrorShape;
  const status = typeof e.statusCode === 'number' ? e.statusCode : undefined;
  const odata = e.details?.odataError;
  const code = typeof odata?.code === 'string' ? odata.code : typeof e.code === 'string' ? e.code : '';
  const detail =
    typeof odata?.message?.value === 'string'
      ? firstLine(odata.message.value)
      : status === undefined && typeof e.message === 'string'
        ? firstLine(e.message)
        : '';
  const rule = CLASSIFICATION.find((r) => r.when(status, code))!;
  const what = [status, code, detail].filter((p) => p !== undefined && p !== '').join(' ');
  const message = redact(`table ${operation} on "${table}" failed: ${what || 'unknown error'}${rule.hint ? ` (${rule.hint})` : ''}`);
  const options = { cause: err, details: { table, operation, status, code: code || undefined } };
  if (rule.kind === 'config') return new ConfigError(message, options);
  if (rule.kind === 'permanent') return new PermanentError(message, options);
  return new TransientError(message, options);
}

/** True when the SDK error is a 404 (missing entity or table). */
export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as SdkErrorShape).statusCode === 404;
}
