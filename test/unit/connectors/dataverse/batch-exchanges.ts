import { buildBatch, type BatchPart } from '../../../../connectors/odata/batch-multipart';
import type { RecordedExchange } from '../odata/replay-fetch';
import { API } from './dataverse-test-kit';

/** One answer part as Dataverse writes it into a `$batch` response. */
export interface PartAnswer {
  status: number;
  statusText: string;
  headers?: Record<string, string>;
  body?: unknown;
}

const BOUNDARY = 'batchresponse_8d1d2e8b-7c0f-4d2a-9a55-2f1b3c4d5e6f';

/**
 * A `$batch` exchange: the request body as the connector builds it (`{{boundary}}` stands for
 * its random boundary) and the answer as Dataverse sends it: CRLF lines, `--batchresponse_<guid>`
 * parts of `application/http`, `HTTP/1.1 <status>` lines, OData headers and JSON bodies.
 * `batchStatus`: the status of the `$batch` answer itself (Dataverse answers a batch it stopped
 * at a failed request with that request's status, e.g. `400 BadRequest`).
 */
export function batchExchange(
  note: string,
  parts: BatchPart[],
  answers: PartAnswer[],
  batchStatus: { status: number; statusText: string } = { status: 200, statusText: 'OK' },
  /** Part bodies given as JSON text are written as is (digits a double would round). */
  exactText = false,
): RecordedExchange {
  const lines: string[] = [];
  for (const answer of answers) {
    lines.push(`--${BOUNDARY}`, 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '');
    lines.push(`HTTP/1.1 ${answer.status} ${answer.statusText}`);
    if (answer.body !== undefined) lines.push('Content-Type: application/json; odata.metadata=minimal; odata.streaming=true');
    lines.push('OData-Version: 4.0');
    for (const [name, value] of Object.entries(answer.headers ?? {})) lines.push(`${name}: ${value}`);
    lines.push('', answer.body === undefined ? '' : JSON.stringify(answer.body));
  }
  lines.push(`--${BOUNDARY}--`, '');
  return {
    note,
    request: { method: 'POST', url: `${API}$batch`, headers: { prefer: 'odata.continue-on-error', accept: 'multipart/mixed' }, body: buildBatch('{{boundary}}', parts, exactText ? { text: (b) => (typeof b === 'string' ? b : JSON.stringify(b)), type: 'application/json' } : undefined) },
    response: { ...batchStatus, headers: { 'content-type': `multipart/mixed; boundary=${BOUNDARY}`, 'odata-version': '4.0' }, body: lines.join('\r\n') },
  };
}

/** Dataverse's error body. */
export function dataverseError(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

export const noContent = (entityId?: string): PartAnswer => ({
  status: 204,
  statusText: 'No Content',
  headers: entityId ? { 'OData-EntityId': `${API}${entityId}` } : undefined,
});
