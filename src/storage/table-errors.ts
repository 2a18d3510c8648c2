import { createError, type ErrorRule, matchRule } from '../platform/error-table';
import type { HighwaterError } from '../platform/errors';

/** The parts of an `@azure/data-tables` RestError this module reads (no SDK type leaks out). */
interface SdkErrorShape {
  name?: unknown;
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
  details?: { odataError?: { code?: unknown; message?: { value?: unknown } } };
}

/**
 * The one classification table for storage failures, first match wins: by `HTTP <status>` for
 * answers of the service, then by the SDK's code (network failures). A row's reason is a
 * hint added to the message. Unmatched failures are transient (retrying is the safe default for
 * an unknown storage error).
 */
const STORAGE_ERROR_RULES: readonly ErrorRule[] = [
  { code: /^HTTP 40[13]$/, kind: 'config', reason: 'check AzureWebJobsStorage or the identity’s table role' },
  { code: /^HTTP (408|429|5\d\d)$/, kind: 'transient' },
  { code: /^HTTP 4\d\d$/, kind: 'permanent' },
  { code: /^(ENOTFOUND|EAI_AGAIN)$/, kind: 'transient', reason: 'storage host not found' },
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
  const rule = (status === undefined ? undefined : matchRule(STORAGE_ERROR_RULES, `HTTP ${status}`)) ?? matchRule(STORAGE_ERROR_RULES, code);
  const what = [status, code, detail].filter((p) => p !== undefined && p !== '').join(' ');
  const message = redact(`table ${operation} on "${table}" failed: ${what || 'unknown error'}${rule?.reason ? ` (${rule.reason})` : ''}`);
  const options = { cause: err, details: { table, operation, status, code: code || undefined } };
  return createError(rule?.kind ?? 'transient', message, options);
}

/** True when the SDK error is a 404 (missing entity or table). */
export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as SdkErrorShape).statusCode === 404;
}

/**
 * True when the SDK error says a conditional write's condition failed: 412 (the ETag of If-Match
 * moved on) or 409 (an insert found the entity already there).
 */
export function isConditionFailed(err: unknown): boolean {
  const status = typeof err === 'object' && err !== null ? (err as SdkErrorShape).statusCode : undefined;
  return status === 412 || status === 409;
}
