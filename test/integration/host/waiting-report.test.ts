import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBus } from '../../../src/bus/create-bus';
import type { MessageBus, OutgoingMessage } from '../../../src/bus/message-bus';
import { formatWaiting, waitingReport } from '../../../src/host/waiting-report';
import { readSettings, type Settings } from '../../../src/platform/settings';
import { TargetHealth } from '../../../src/process/target-health';

/**
 * What `start --once` prints when it gives up: per target, the messages waiting in the work
 * queues (active and scheduled, on the real local bus) and why — the outage that holds them, the
 * last error a retry copy carries, or none tried yet; a job the configuration no longer has is
 * named as such; past `maxMessages` the rest is counted, not broken down.
 */
describe('waitingReport', () => {
  let dir: string;
  let bus: MessageBus;
  let settings: Settings;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-waiting-'));
    settings = { ...readSettings({}), dataDir: dir };
    bus = await createBus(settings);
    const message = (job: string, i: number, extra: Record<string, string | number> = {}, at?: Date): OutgoingMessage => ({
      body: JSON.stringify({ i }),
      messageId: `${job}-${i}`,
      applicationProperties: { JobName: job, SourceKey: `K-${i}`, ...extra },
      ...(at ? { scheduledEnqueueTime: at } : {}),
    });
    const later = new Date(Date.now() + 3_600_000);
    const { high, normal, low } = settings.queues.work;
    // Accounts deferred in an outage of "erp" (scheduled), contacts retried after a timeout, invoices never tried.
    await bus.send(high, Array.from({ length: 7 }, (_, i) => message('accounts', i, { Attempt: 1 }, later)));
    await bus.send(normal, Array.from({ length: 3 }, (_, i) => message('contacts', i, { Attempt: 2, ErrorMessage: 'postgres connection "ledger": request timed out' }, later)));
    await bus.send(low, [message('invoices', 1), message('invoices', 2), message('gone', 1)]);
  });

  afterAll(async () => {
    await bus?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const targets: Record<string, string> = { accounts: 'erp', contacts: 'ledger', invoices: 'bc' };
  const outage = () => {
    const health = new TargetHealth();
    health.failed('erp', new Date('2026-05-01T10:00:00Z'), 'sqlite connection "erp": update "customers": a column does not exist (SQLITE_ERROR): no such column: city', ['m'], 'config');
    return health;
  };

  it('counts per target and says why, most messages first', async () => {
    const report = await waitingReport({ bus, queues: settings.queues, targetOf: (job) => targets[job], health: outage() });
    expect(formatWaiting(report)).toEqual([
      'Waiting in the work queues: 13 message(s)',
      '  7 for target "erp" (job accounts): target in outage since 2026-05-01T10:00:00.000Z: sqlite connection "erp": update "customers": a column does not exist (SQLITE_ERROR): no such column: city',
      '  3 for target "ledger" (job contacts): retried after: postgres connection "ledger": request timed out',
      '  2 for target "bc" (job invoices): not tried yet',
      '  1 of unknown job "gone": not tried yet',
    ]);
  });

  it('breaks down only the first maxMessages, and says so', async () => {
    const report = await waitingReport({ bus, queues: settings.queues, targetOf: (job) => targets[job], health: outage(), maxMessages: 5 });
    expect(report).toMatchObject({ total: 13, looked: 5 });
    expect(formatWaiting(report)).toEqual(['Waiting in the work queues: 13 message(s) (the first 5 broken down)', '  5 for target "erp" (job accounts): target in outage since 2026-05-01T10:00:00.000Z: sqlite connection "erp": update "customers": a column does not exist (SQLITE_ERROR): no such column: city']);
  });
});
