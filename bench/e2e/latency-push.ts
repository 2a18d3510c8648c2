import type Database from 'better-sqlite3';
import { PUSH_SIGNATURE_HEADER, pushSignature } from '../../src/push/push-auth';
import { SMALL_JOB, SMALL_SOURCE_TABLE, writeSmallChange } from './latency-workload';

/**
 * The push side of the latency scenario: writes one change of the small source, then posts it to
 * the host's `POST /api/hooks/b-small` as a generic notification signed with the job's secret,
 * as a source system that notifies would. The change's `written_at` is stamped before the POST,
 * so the latency includes the request.
 * @throws Error naming the answer when the host does not accept it (202): a benchmark of refused
 *   notifications measures nothing.
 */
export async function pushSmallChange(db: Database.Database, n: number, hostUrl: string, secret: string): Promise<void> {
  const id = writeSmallChange(db, n);
  const record = db.prepare(`SELECT id, version, written_at FROM ${SMALL_SOURCE_TABLE} WHERE id = ?`).get(id);
  const body = JSON.stringify({ sentAt: new Date().toISOString(), changes: [{ action: 'upsert', record }] });
  const response = await fetch(`${hostUrl}/api/hooks/${SMALL_JOB}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [PUSH_SIGNATURE_HEADER]: pushSignature(body, secret) },
    body,
  });
  const answer = await response.text();
  if (response.status !== 202) throw new Error(`POST /api/hooks/${SMALL_JOB} answered ${response.status}: ${answer}`);
}
