import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { MoverFixture, text } from './mover-fixture';

/** The mover in-process against a real local bus (SQLite): rule outcomes, de-duplication, dry run, sources. */

const DLQ = ['--queue', 'sbqnormal', '--dead-letter'];
const EXAMPLES = path.resolve(__dirname, '../../../../examples/demo');

describe('dead-letter-mover on the local bus', () => {
  let fx: MoverFixture;

  beforeEach(async () => {
    fx = new MoverFixture();
    await fx.open();
  });

  afterEach(() => fx.cleanup());

  async function seedEveryOutcome(): Promise<string[]> {
    // Returns the ids in this order: Manual (None by rule), timeout (Resubmit), validation (Skip), unmatched.
    return fx.deadLetter('sbqnormal', [
      { sourceKey: 'c', errorMessage: 'operator hold', reason: 'Manual' },
      { sourceKey: 'a', errorMessage: 'Request timeout after 30000 ms', errorType: 'TransientError' },
      { sourceKey: 'b', errorMessage: 'validation failed: email is required', errorType: 'PermanentError', reason: 'PermanentError' },
      { sourceKey: 'd', errorMessage: 'HTTP 418 teapot', errorType: 'TransientError' },
    ]);
  }

  it('dry run reports each rule outcome with counts and samples, and changes nothing', async () => {
    const ids = await seedEveryOutcome();
    const before = await fx.peekAll('sbqnormal', 'deadLetter');

    const run = await fx.run([...DLQ, '--rules', 'rules.yaml', '--json']);

    expect(run.code).toBe(0);
    const report = run.json();
    expect(report.mode).toBe('dry-run');
    expect(report.planned).toEqual({ resubmit: 1, skip: 1, none: 2, byTarget: { sbqnormal: 1 } });
    expect(report.groups).toEqual([
      expect.objectContaining({ action: 'Resubmit', rule: 'timeouts', target: 'sbqnormal', errorMessage: 'Request timeout after <n> ms', count: 1, sampleMessageIds: [ids[1]] }),
      expect.objectContaining({ action: 'Skip', rule: 'bad-data', deadLetterReason: 'PermanentError', count: 1, sampleMessageIds: [ids[2]] }),
      expect.objectContaining({ action: 'None', decision: 'rule', rule: 'keep-manual', deadLetterReason: 'Manual', count: 1, sampleMessageIds: [ids[0]] }),
      expect.objectContaining({ action: 'None', decision: 'noRule', errorMessage: 'HTTP 418 teapot', count: 1, sampleMessageIds: [ids[3]] }),
    ]);
    const after = await fx.peekAll('sbqnormal', 'deadLetter');
    expect(after).toEqual(before); // same messages, same delivery counts, nothing locked or moved
    expect(await fx.bus.counts('sbqnormal')).toEqual({ active: 0, scheduled: 0, deadLetter: 4 });
  });

  it('the text report names the rule, the dead-letter reason and what --apply would do', async () => {
    await seedEveryOutcome();
    const run = await fx.run([...DLQ, '--rules', 'rules.yaml']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('Dry run: nothing is changed (add --apply to act).');
    expect(run.out).toContain('Resubmit → sbqnormal, rule "timeouts" (rules[0]): 1');
    expect(run.out).toContain('[PermanentError] validation failed: email is required');
    expect(run.out).toContain('--apply would: resubmit 1 (sbqnormal 1), remove 1, leave 2.');
  });

  it('--apply resubmits without error properties under a new id, removes Skip, leaves None and unmatched', async () => {
    const ids = await seedEveryOutcome();
    const run = await fx.run([...DLQ, '--rules', 'rules.yaml', '--apply', '--json']);

    expect(run.code).toBe(0);
    // The Manual message came first: received, held while the later ones were settled, released.
    // The unmatched one comes after the last message to act on: never received.
    expect(run.json().results).toEqual({ resubmitted: 1, skipped: 1, failed: 0, released: 1, interrupted: false, failures: [], releaseErrors: [] });
    const [resubmitted, ...more] = await fx.bus.receive('sbqnormal', { maxMessages: 10 });
    expect(more).toEqual([]);
    expect(resubmitted.messageId).toBe(`${ids[1]}:r:sbqnormal.dl:2`);
    expect(resubmitted.deliveryCount).toBe(1);
    expect(resubmitted.deadLetterReason).toBeUndefined();
    expect(resubmitted.applicationProperties).toEqual({
      JobName: 'crm-contacts-to-erp',
      SourceKey: 'a',
      ChangeTracker: '2026-01-01T00:00:00.0000000Z',
      ResubmittedFrom: 'sbqnormal/$deadletterqueue#2',
      ResubmittedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(JSON.parse(text(resubmitted.body))).toMatchObject({ sourceKey: 'a', fields: { name: 'contact a' } });
    expect(resubmitted.subject).toBe('crm-contacts-to-erp');
    // Left: the Manual one and the unmatched one, receivable at once (not locked). Seeding
    // delivered each once; the mover delivered only the Manual one once more.
    const left = await fx.bus.receive('sbqnormal', { subQueue: 'deadLetter', maxMessages: 10 });
    expect(left.map((m) => [m.messageId, m.deliveryCount])).toEqual([[ids[0], 3], [ids[3], 2]]);
  });

  it('de-duplicates by SourceKey: only the newest ChangeTracker of a record is resubmitted, the others are removed and reported', async () => {
    const timeout = { errorMessage: 'timeout', errorType: 'TransientError' };
    const ids = await fx.deadLetter('sbqnormal', [
      { sourceKey: 'k1', changeTracker: '2026-03-01T10:00:00Z', ...timeout },
      { sourceKey: 'k1', changeTracker: '2026-03-01T12:00:00+01:00', ...timeout }, // 11:00Z: the newest
      { sourceKey: 'k1', changeTracker: '2026-03-01T10:30:00Z', ...timeout },
      { sourceKey: 'k1', job: 'crm-accounts-to-erp', ...timeout }, // another job: another record
      { sourceKey: 'k2', ...timeout },
    ]);

    const run = await fx.run([...DLQ, '--rules', 'rules.yaml', '--apply', '--json', '--list']);

    expect(run.code).toBe(0);
    const messages = run.json().messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => [m.messageId, m.action, m.decision, m.supersededBy])).toEqual([
      [ids[0], 'Skip', 'superseded', ids[1]],
      [ids[1], 'Resubmit', 'rule', undefined],
      [ids[2], 'Skip', 'superseded', ids[1]],
      [ids[3], 'Resubmit', 'rule', undefined],
      [ids[4], 'Resubmit', 'rule', undefined],
    ]);
    const work = await fx.bus.receive('sbqnormal', { maxMessages: 10 });
    expect(work.map((m) => m.messageId.split(':r:')[0])).toEqual([ids[1], ids[3], ids[4]]);
    expect(await fx.bus.counts('sbqnormal')).toMatchObject({ deadLetter: 0 });
  });

  it('resubmits from a transitive queue to the work queue of its priority', async () => {
    await fx.park('sbqtransitivehigh', [{ sourceKey: 't1', errorMessage: 'parent account missing', errorType: 'TransitiveError' }]);
    const run = await fx.run(['--queue', 'sbqtransitivehigh', '--apply']); // default rules: TransitiveError → Resubmit
    expect(run.code).toBe(0);
    expect(run.out).toContain('Resubmit → sbqhigh, rule "missing-dependency" (rules[1]): 1');
    const [moved] = await fx.bus.receive('sbqhigh', { maxMessages: 5 });
    expect(moved.applicationProperties).not.toHaveProperty('ErrorMessage');
    expect(await fx.bus.counts('sbqtransitivehigh')).toMatchObject({ active: 0 });
  });

  it('sbqignored needs --config or --to to know the work queue; with them it resubmits there', async () => {
    const rules = path.join(fx.dir, 'all.yaml');
    writeFileSync(rules, 'rules:\n  - match: {}\n    action: Resubmit\n');
    await fx.park('sbqignored', [{ sourceKey: 'i1', job: 'crm-accounts-to-erp' }]);

    const bare = await fx.run(['--queue', 'sbqignored', '--rules', rules]);
    expect(bare.code).toBe(2);
    expect(bare.err).toContain(
      'error: --queue sbqignored: the work queue to resubmit to depends on each message\'s job priority; pass --config DIR (the configuration folder) or --to QUEUE',
    );

    const viaConfig = await fx.run(['--queue', 'sbqignored', '--rules', rules, '--config', EXAMPLES, '--json']);
    expect(viaConfig.json().planned).toMatchObject({ resubmit: 1, byTarget: { sbqhigh: 1 } }); // the job's priority is high
    // An outdated message carries no error: the report says why it is there, as the status page does.
    expect((viaConfig.json().groups as Array<{ errorMessage: string }>).map((g) => g.errorMessage)).toEqual(['outdated: the target already holds a newer change']);

    const viaTo = await fx.run(['--queue', 'sbqignored', '--rules', rules, '--to', 'sbqlow', '--apply']);
    expect(viaTo.code).toBe(0);
    expect(await fx.bus.counts('sbqlow')).toMatchObject({ active: 1 });
  });

  it('a job missing from --config is a problem: reported, left in place, exit 1', async () => {
    const rules = path.join(fx.dir, 'all.yaml');
    writeFileSync(rules, 'rules:\n  - match: {}\n    action: Resubmit\n');
    await fx.park('sbqignored', [{ sourceKey: 'i2', job: 'no-such-job' }]);
    const run = await fx.run(['--queue', 'sbqignored', '--rules', rules, '--config', EXAMPLES, '--apply']);
    expect(run.code).toBe(1);
    expect(run.out).toContain(`job "no-such-job" is not in the configuration ${EXAMPLES}`);
    expect(await fx.bus.counts('sbqignored')).toMatchObject({ active: 1 });
  });

  it('--job, --older-than and --max narrow the snapshot; the rest is not touched', async () => {
    let now = new Date('2026-05-01T12:00:00Z');
    const clock = () => now;
    await fx.bus.close();
    await fx.open({}, clock);
    const timeout = { errorMessage: 'timeout' };
    await fx.deadLetter('sbqnormal', [{ sourceKey: 'old-1', ...timeout }, { sourceKey: 'old-2', job: 'other-job', ...timeout }]);
    now = new Date('2026-05-01T15:00:00Z');
    await fx.deadLetter('sbqnormal', [{ sourceKey: 'new-1', ...timeout }, { sourceKey: 'old-3', ...timeout }]);
    now = new Date('2026-05-01T16:00:00Z');
    const io = { clock: { now: clock }, openBus: fx.openBus(clock) };

    const byAge = await fx.run([...DLQ, '--rules', 'rules.yaml', '--older-than', '2h', '--json', '--list'], io);
    expect((byAge.json().messages as Array<{ sourceKey: string }>).map((m) => m.sourceKey)).toEqual(['old-1', 'old-2']);

    const byJob = await fx.run([...DLQ, '--rules', 'rules.yaml', '--job', 'other-job', '--json', '--list'], io);
    expect((byJob.json().messages as Array<{ sourceKey: string }>).map((m) => m.sourceKey)).toEqual(['old-2']);

    const first = await fx.run([...DLQ, '--rules', 'rules.yaml', '--max', '1', '--apply', '--json'], io);
    expect(first.json().snapshot).toMatchObject({ inScope: 1, truncatedAtMax: true });
    expect((await fx.peekAll('sbqnormal', 'deadLetter')).map((m) => m.applicationProperties.SourceKey)).toEqual(['old-2', 'new-1', 'old-3']);
  });
});
