import { spawn } from 'node:child_process';
import path from 'node:path';
import { systemClock, type Clock } from '../../../src/platform/clock';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * A redelivery after a kill never undoes a newer change, as it failed in use: a host killed
 * (SIGKILL) after a batch's target commit and before its completion leaves the batch locked; a
 * newer change of its record is detected and applied meanwhile; then the old batch comes back
 * (`deliveryCount` 2). Its record was never set aside, so the applied-version store knows
 * nothing of it; the job (crm-contacts) has no `skipOutdatedMessages`. The source check reads
 * the record's current change tracker in the source and ignores the redelivery.
 */
describe('a redelivery after a kill and a newer change applied meanwhile', () => {
  let f: SyncFixture;
  let offsetMs = 0;
  // Bus and processor time; moving it forward expires the dead host's lock without waiting a minute.
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs), sleep: systemClock.sleep, every: systemClock.every };
  const normal = () => f.settings.queues.work.normal;

  beforeAll(async () => {
    f = await createSyncFixture({ clock });
    await f.runtime.init.ensureInitialized();
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-1', 'Acme', 'Berlin', '2026-05-01T09:00:00.000Z');
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    await f.drain();
  });
  afterAll(async () => {
    await f.close();
  });

  const fullName = (id: string) => (f.erp.prepare('SELECT full_name FROM contacts WHERE crm_id = ?').get(id) as { full_name: string } | undefined)?.full_name;
  const detectContacts = () => f.runtime.detection.runJob(f.runtime.init.getJob('crm-contacts'));
  const ignoredReasons = async (id: string) =>
    (await f.runtime.bus.peek(f.settings.queues.ignored, { maxMessages: 100 })).filter((m) => m.applicationProperties.SourceKey === id).map((m) => m.applicationProperties.IgnoredReason);

  /** A host that receives the one visible message of the normal queue, applies it and is killed before completing it. */
  async function applyAndDie(): Promise<void> {
    const child = spawn(process.execPath, ['-r', path.join(__dirname, '../../../src/platform/swc-register.js'), path.join(__dirname, 'fixtures/crash-worker.ts')], {
      env: { ...process.env, CRASH_CONFIG_DIR: f.dir, CRASH_STORAGE: f.settings.storageConnectionString, CRASH_QUEUE: 'normal', CRASH_OFFSET_MS: String(offsetMs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect({ signal, output }).toEqual({ signal: 'SIGKILL', output: 'applied, dying before complete\n' });
  }

  /** Writes `id` at 12:`minute`, sends it, and has a host apply it and die before completing. */
  async function appliedNotCompleted(id: string, minute: number): Promise<void> {
    f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run(id, 'A-1', 'Old', 'Name', `2026-05-01T12:${minute}:00.000Z`);
    expect((await detectContacts()).sentByQueue).toEqual({ sbqnormal: 1 });
    await applyAndDie();
    expect(fullName(id)).toBe('Old Name');
  }

  /** Lets the dead host's locks expire and processes what comes back. */
  async function afterLocksExpire() {
    offsetMs += 61_000;
    return f.drain();
  }

  it('ignores the old batch when its record has a newer change tracker in the source; the target keeps the newer', async () => {
    await appliedNotCompleted('C-1', 10);
    f.crm.prepare('UPDATE contacts SET first_name = ?, last_name = ?, modified_at = ? WHERE id = ?').run('New', 'Name', '2026-05-01T12:10:30.000Z', 'C-1');
    expect((await detectContacts()).sentByQueue).toEqual({ sbqnormal: 1 });
    // The old message is still locked by the dead host: only the newer one is received.
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Success', jobName: 'crm-contacts' })]);
    expect(fullName('C-1')).toBe('New Name');

    expect(await afterLocksExpire()).toEqual([expect.objectContaining({ outcome: 'Ignored', disposition: 'ignored', jobName: 'crm-contacts' })]);
    expect(fullName('C-1')).toBe('New Name');
    expect(await ignoredReasons('C-1')).toEqual([
      "superseded at the source: the record's change tracker in contacts is now 2026-05-01T12:10:30.0000000Z, newer than this change's 2026-05-01T12:10:00.0000000Z",
    ]);
    expect(await f.runtime.bus.counts(normal())).toEqual({ active: 0, scheduled: 0, deadLetter: 0 });
  }, 60_000);

  it('applies the redelivery again when the source still holds its change (equal is not newer)', async () => {
    await appliedNotCompleted('C-2', 20);
    expect(await afterLocksExpire()).toEqual([expect.objectContaining({ outcome: 'Success', disposition: 'completed', jobName: 'crm-contacts' })]);
    expect(fullName('C-2')).toBe('Old Name');
    expect(await ignoredReasons('C-2')).toEqual([]);
  }, 60_000);

  it('ignores a redelivered upsert whose record is gone from the source: it does not bring a deleted record back', async () => {
    await appliedNotCompleted('C-3', 30);
    // Deleted at the source and, as a delete job would, at the target meanwhile.
    f.crm.prepare('DELETE FROM contacts WHERE id = ?').run('C-3');
    f.erp.prepare('DELETE FROM contacts WHERE crm_id = ?').run('C-3');
    expect(await afterLocksExpire()).toEqual([expect.objectContaining({ outcome: 'Ignored', disposition: 'ignored' })]);
    expect(fullName('C-3')).toBeUndefined();
    expect(await ignoredReasons('C-3')).toEqual(['superseded at the source: the record is no longer in contacts (its delete follows or was applied)']);
  }, 60_000);
});
