import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { resubmission } from '../../../src/mover/resubmission';
import { runMover } from '../../../tools/dead-letter-mover/main';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

/**
 * A stale message never overwrites a newer change, as it failed in use: a contact dead-lettered
 * by a CHECK constraint of the target, fixed at the source (the fix is applied), the constraint
 * dropped, the old message resubmitted with the dead-letter mover. The job (crm-contacts) has no
 * `skipOutdatedMessages`: the applied-version store is what protects it.
 */
describe('a resubmitted old message and a newer applied change', () => {
  let f: SyncFixture;
  let rulesFile: string;
  const CONTACTS = `(crm_id TEXT PRIMARY KEY, customer_crm_id TEXT NOT NULL REFERENCES customers(crm_id), full_name TEXT NOT NULL`;

  beforeAll(async () => {
    f = await createSyncFixture();
    await f.runtime.init.ensureInitialized();
    rulesFile = path.join(f.dir, 'rules.yaml');
    writeFileSync(rulesFile, 'rules:\n  - name: check-fixed\n    match: { errorMessage: /CHECK constraint/ }\n    action: Resubmit\n');
    f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)').run('A-1', 'Acme', 'Berlin', '2026-05-01T09:00:00.000Z');
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-accounts'));
    await f.drain();
  });
  afterAll(async () => {
    await f.close();
  });

  const fullName = (id: string) => (f.erp.prepare('SELECT full_name FROM contacts WHERE crm_id = ?').get(id) as { full_name: string } | undefined)?.full_name;
  const deadLettered = () => f.runtime.bus.peek(f.settings.queues.work.normal, { subQueue: 'deadLetter' });

  const mover = (...args: string[]) => moverOn(['--queue', f.settings.queues.work.normal, '--dead-letter', ...args]);

  async function moverOn(args: string[]): Promise<{ code: number; out: string }> {
    const out: string[] = [];
    const code = await runMover([...args, '--rules', rulesFile, '--data-dir', f.settings.dataDir, '--config', f.dir], {
      out: (line) => out.push(line),
      err: (line) => out.push(line),
      env: { AzureWebJobsStorage: f.settings.storageConnectionString },
      cwd: f.dir,
    });
    return { code, out: out.join('\n') };
  }

  /** Dead-letters C-1 "Adalbert Wolfgang Maximilian" by the CHECK constraint, applies the fixed "Ada Short", drops the constraint. */
  async function deadLetterThenFix(id: string, minute: number): Promise<void> {
    f.erp.exec(`DROP TABLE contacts; CREATE TABLE contacts ${CONTACTS} CHECK (length(full_name) <= 12));`);
    f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run(id, 'A-1', 'Adalbert Wolfgang', 'Maximilian', `2026-05-01T12:${minute}:00.000Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-contacts'));
    expect(await f.drain()).toEqual([expect.objectContaining({ disposition: 'deadLettered' })]);
    f.crm.prepare('UPDATE contacts SET first_name = ?, last_name = ?, modified_at = ? WHERE id = ?').run('Ada', 'Short', `2026-05-01T12:${minute}:10.000Z`, id);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-contacts'));
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Success' })]);
    expect(fullName(id)).toBe('Ada Short');
    f.erp.exec(`CREATE TABLE contacts_open ${CONTACTS}); INSERT INTO contacts_open SELECT * FROM contacts; DROP TABLE contacts; ALTER TABLE contacts_open RENAME TO contacts;`);
    // What the host writes within a second of the apply.
    await f.runtime.appliedVersions.flush();
  }

  it('the mover shows it as superseded, --apply leaves it in place, --include-superseded forces it', async () => {
    await deadLetterThenFix('C-1', 10);
    expect(await deadLettered()).toHaveLength(1);

    const dry = await mover();
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('None, superseded: a newer change of the record was applied since (left in place; --include-superseded resubmits it), rule "check-fixed" (rules[0]): 1');
    expect(dry.out).toContain('--apply would: resubmit 0, remove 0, leave 1 (1 superseded).');

    const applied = await mover('--apply');
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('Done: resubmitted 0, removed 0, failed 0.');
    expect(await deadLettered()).toHaveLength(1);
    expect(await f.drain()).toEqual([]);
    expect(fullName('C-1')).toBe('Ada Short');

    const listed = await mover('--list');
    expect(listed.out).toMatch(/ct=2026-05-01T12:10:00\.0000000Z {2}None {2}superseded: a newer change of this record \(change tracker 2026-05-01T12:10:10\.0000000Z, job "crm-contacts"\) was applied since/);

    const forced = await mover('--apply', '--include-superseded');
    expect(forced.out).toContain('superseded but forced by --include-superseded: overwrites the newer change');
    expect(forced.out).toContain('Done: resubmitted 1, removed 0, failed 0.');
    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Success', disposition: 'completed' })]);
    // Forced: the old value overwrites the newer one, as asked.
    expect(fullName('C-1')).toBe('Adalbert Wolfgang Maximilian');
    expect(await deadLettered()).toHaveLength(0);
  });

  it('the processor ignores it when it comes back without the mover’s check (an older tool, a script)', async () => {
    await deadLetterThenFix('C-2', 20);
    const [dead] = await f.runtime.bus.receive(f.settings.queues.work.normal, { subQueue: 'deadLetter', maxMessages: 1 });
    await f.runtime.bus.send(f.settings.queues.work.normal, [resubmission(dead, { queue: f.settings.queues.work.normal, subQueue: 'deadLetter' }, new Date())]);
    await f.runtime.bus.complete(dead);

    expect(await f.drain()).toEqual([expect.objectContaining({ outcome: 'Ignored', disposition: 'ignored' })]);
    expect(fullName('C-2')).toBe('Ada Short');
    const ignored = (await f.runtime.bus.peek(f.settings.queues.ignored)).filter((m) => m.applicationProperties.SourceKey === 'C-2');
    expect(ignored.map((m) => m.applicationProperties.IgnoredReason)).toEqual([
      'superseded: a newer change of this record (change tracker 2026-05-01T12:20:10.0000000Z, job "crm-contacts") was applied since',
    ]);
    // The mover's report of the ignored queue says why it is there.
    const report = await moverOn(['--queue', f.settings.queues.ignored]);
    expect(report.out).toContain('superseded: a newer change of this record (change tracker <time>, job "crm-contacts") was applied since');
  });
});
