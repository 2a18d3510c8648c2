import { toOutgoingMessage } from '../../../src/bus/message-properties';
import { JobActionType } from '../../../src/model/job';
import { createQueueMessage } from '../../../src/model/queue-message';
import type { Logger } from '../../../src/telemetry/logger';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * On the local bus and a real SQLite target: what is dead-lettered at once
 * (a permanent error, a malformed body, an unknown job) leaves one `[error]` line each with message
 * id, job, source key and reason; a message whose target key is null is one of them (it used to
 * insert a row with id NULL: SQLite allows NULL in a TEXT primary key). A parked message (its
 * dependency is missing) leaves one `[warn]` line the same way.
 */
describe('messages dead-lettered at once, and parked', () => {
  let f: SyncFixture;
  const lines: Array<{ level: string; message: string; context?: Record<string, unknown> }> = [];
  const log: Logger = {
    info: () => undefined,
    warn: (message, context) => void lines.push({ level: 'warn', message, context }),
    error: (message, context) => void lines.push({ level: 'error', message, context }),
  };

  beforeEach(async () => {
    lines.length = 0;
    f = await createSyncFixture({ log });
    f.erp.prepare('INSERT INTO customers (crm_id, name) VALUES (?, ?)').run('A-1', 'Acme');
  });
  afterEach(() => f.close());

  const contact = (sourceKey: string, targetKey: Record<string, string | null>) =>
    createQueueMessage({
      jobName: 'crm-contacts',
      action: JobActionType.NewUpdate,
      sourceKey,
      targetKey,
      changeTracker: '2026-01-01T00:00:00.0000000Z',
      fields: { ...targetKey, customer_crm_id: 'A-1', full_name: 'Ada Lovelace' },
    });

  it('rejects a null target key as permanent and applies nothing', async () => {
    await f.runtime.bus.send('sbqnormal', [toOutgoingMessage(contact('C-null', { crm_id: null })), toOutgoingMessage(contact('C-2', { crm_id: 'C-2' }))]);

    const results = await f.drain();

    expect(results.map((r) => [r.outcome, r.disposition])).toEqual([['Failed', 'deadLettered'], ['Success', 'completed']]);
    expect(f.erp.prepare('SELECT crm_id FROM contacts ORDER BY crm_id').all()).toEqual([{ crm_id: 'C-2' }]);
    const [dead] = await f.runtime.bus.peek('sbqnormal', { subQueue: 'deadLetter' });
    expect([dead.deadLetterReason, dead.applicationProperties.ErrorMessage]).toEqual(['PermanentError', 'message for contacts has no value for target key field "crm_id"']);
  });

  it('logs one [error] line per message dead-lettered at once, naming id, job, source key and reason', async () => {
    const nullKey = toOutgoingMessage(contact('C-null', { crm_id: null }));
    const unknownJob = toOutgoingMessage({ ...contact('C-3', { crm_id: 'C-3' }), jobName: 'gone' });
    await f.runtime.bus.send('sbqnormal', [
      nullKey,
      unknownJob,
      { body: '{not json', messageId: 'broken-1', applicationProperties: { JobName: 'crm-contacts', SourceKey: 'C-4' } },
    ]);

    await f.drain();

    const errors = lines.filter((l) => l.level === 'error').map((l) => l.message);
    expect(errors).toHaveLength(3);
    expect(errors).toContain(`message ${nullKey.messageId} (job crm-contacts, source key C-null) dead-lettered on sbqnormal: PermanentError: message for contacts has no value for target key field "crm_id"`);
    expect(errors).toContain(`message ${unknownJob.messageId} (job gone, source key C-3) dead-lettered on sbqnormal: PermanentError: unknown job "gone"`);
    expect(errors.find((e) => e.startsWith('message broken-1 (job crm-contacts, source key C-4) dead-lettered on sbqnormal: '))).toBeDefined();
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
    expect((await f.runtime.bus.counts('sbqnormal')).deadLetter).toBe(3);
  });

  it('logs one [warn] line per message parked, naming id, job, source key, reason and how it is retried', async () => {
    const orphan = toOutgoingMessage(createQueueMessage({
      jobName: 'crm-contacts',
      action: JobActionType.NewUpdate,
      sourceKey: 'C-5',
      targetKey: { crm_id: 'C-5' },
      changeTracker: '2026-01-01T00:00:00.0000000Z',
      fields: { crm_id: 'C-5', customer_crm_id: 'A-missing', full_name: 'Grace Hopper' },
    }));
    await f.runtime.bus.send('sbqnormal', [orphan]);

    const results = await f.drain();

    expect(results.map((r) => [r.outcome, r.disposition])).toEqual([['Transitive', 'transitive']]);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      `message ${orphan.messageId} (job crm-contacts, source key C-5) parked in sbqtransitivenormal from sbqnormal after attempt 1: ` +
        'TransitiveError: sqlite connection "erp": upsert into "contacts": a referenced record is missing (foreign key) (SQLITE_CONSTRAINT_FOREIGNKEY): FOREIGN KEY constraint failed; ' +
        'no retry is scheduled: it runs again when sbqtransitivenormal is requeued (the scheduled requeue, or dead-letter-mover --queue sbqtransitivenormal --apply)',
    ]);
    expect(lines.find((l) => l.level === 'warn')?.context).toMatchObject({ job: 'crm-contacts', sourceKey: 'C-5', parkedIn: 'sbqtransitivenormal' });
    expect((await f.runtime.bus.counts('sbqtransitivenormal')).active).toBe(1);
  });
});
