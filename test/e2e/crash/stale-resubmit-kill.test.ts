import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { bySoak } from '../../support/fault-injection';
import { describeMismatches, reportRun } from '../convergence/support/report';
import { sleep } from '../convergence/support/source-db';
import { JOBS } from '../convergence/support/sync-config';
import { SyncRig } from '../convergence/support/sync-rig';

/**
 * Stale messages under kills: items dead-lettered by a target constraint and items whose retry
 * copies wait (their category is missing) are set aside by a host that is then killed; their
 * records change at the source and the newer values are applied by a restarted host (killed too,
 * once they were applied); then what would let the old messages succeed arrives — the missing
 * category, the constraint dropped. The old retry copies come back on a third host and must be
 * ignored, the mover's dry run must show the dead-lettered ones as superseded and `--apply` must
 * leave them: the target keeps the newer values. Jobs run without `skipOutdatedMessages`, so
 * only the stale-message guard stands between an old message and the newer row.
 */
const RECORDS = bySoak(5, 40);
/** Applied versions are buffered for up to a second: a kill sooner may lose their record (documented). */
const FLUSH_MS = 2_500;

const ids = (prefix: string) => Array.from({ length: RECORDS }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

describe('crash: stale resubmits after kills', () => {
  it(`keeps the newer values of ${RECORDS} dead-lettered and ${RECORDS} retried records`, async () => {
    const rig = await SyncRig.create({ source: 'sqlite', label: 'stale-kill', transitiveRetries: 2, skipOutdatedMessages: false });
    let keep = true;
    const targetFile = path.join(rig.dir, 'target.db');
    const onTarget = <T>(fn: (db: Database.Database) => T): T => {
      const db = new Database(targetFile);
      try {
        db.pragma('busy_timeout = 10000');
        return fn(db);
      } finally {
        db.close();
      }
    };
    const until = async (what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 40_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await probe())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (rig ${rig.dir})`);
        await sleep(200);
      }
    };
    try {
      onTarget((db) =>
        db.exec(`CREATE TRIGGER items_qty_ins BEFORE INSERT ON items WHEN NEW.quantity < 0 BEGIN SELECT RAISE(ABORT, 'quantity must not be negative'); END;
          CREATE TRIGGER items_qty_upd BEFORE UPDATE ON items WHEN NEW.quantity < 0 BEGIN SELECT RAISE(ABORT, 'quantity must not be negative'); END;`),
      );
      const dead = ids('D');
      const retried = ids('R');
      await rig.db.write({ kind: 'insertCategory', id: 'C-1', name: 'one' }, undefined, 0);
      await rig.db.write({ kind: 'insertItems', rows: dead.map((id) => ({ id, category_id: 'C-1', name: `old ${id}`, qty: -1, note: 'old' })) }, undefined, 0);
      await rig.db.write({ kind: 'insertItems', rows: retried.map((id) => ({ id, category_id: 'C-LATE', name: `old ${id}`, qty: 1, note: 'old' })) }, undefined, 0);

      // Host 1 sets them aside (dead letters, scheduled retry copies), records its watches, is killed.
      const bus = await rig.openBus();
      const normal = rig.settings.queues.work.normal;
      const host1 = await rig.startHost();
      await until('dead letters and retry copies', async () => {
        const counts = await bus.counts(normal);
        return counts.deadLetter >= RECORDS && counts.scheduled >= RECORDS;
      });
      await sleep(FLUSH_MS);
      await host1.child.kill();

      // The records change at the source; host 2 applies the newer values, then is killed.
      await rig.db.write({ kind: 'updateItems', rows: dead.map((id) => ({ id, category_id: 'C-1', name: `new ${id}`, qty: 10, note: 'new' })) }, undefined, 0);
      await rig.db.write({ kind: 'updateItems', rows: retried.map((id) => ({ id, category_id: 'C-1', name: `new ${id}`, qty: 10, note: 'new' })) }, undefined, 0);
      const host2 = await rig.startHost();
      const newerApplied = () =>
        onTarget((db) => (db.prepare("SELECT count(*) AS n FROM items WHERE quantity = 10 AND note = 'new'").get() as { n: number }).n === 2 * RECORDS);
      await until('the newer values in the target', newerApplied);
      // What the old retry copies need to succeed arrives: their category.
      await rig.db.write({ kind: 'insertCategory', id: 'C-LATE', name: 'late' }, undefined, 0);
      await until('the late category in the target', () => onTarget((db) => db.prepare("SELECT 1 FROM categories WHERE id = 'C-LATE'").get() !== undefined));
      await sleep(FLUSH_MS);
      await host2.child.kill();

      // Host 3 receives the old retry copies as they come due; the constraint is dropped.
      onTarget((db) => db.exec('DROP TRIGGER items_qty_ins; DROP TRIGGER items_qty_upd;'));
      const host3 = await rig.startHost();
      const ignoredRetries = async () => {
        const ignored = await bus.peek(rig.settings.queues.ignored, { maxMessages: 1000 });
        return ignored.filter((m) => retried.includes(String(m.applicationProperties.SourceKey)));
      };
      // Retry copies are due 4 s and 9 s after their failures: until then they count as pending.
      await until('the old retry copies processed', async () => (await rig.pendingWork()) === 0, 60_000);

      // The mover: a dry run shows the dead letters as superseded, --apply leaves them.
      // As an operator does once the constraint is gone: resubmit what it refused.
      const rules = path.join(rig.dir, 'rules.yaml');
      writeFileSync(rules, 'rules:\n  - name: constraint-dropped\n    match: { errorMessage: /quantity must not be negative/ }\n    action: Resubmit\n');
      const moverArgs = ['--dead-letter', '--rules', rules, '--config', rig.dir];
      const dry = rig.startMover(normal, undefined, { args: [...moverArgs, '--list'] });
      expect((await dry.outcome()).code).toBe(0);
      const dryLog = readFileSync(dry.log, 'utf8');
      expect(dryLog).toContain(`None, superseded: a newer change of the record was applied since (left in place; --include-superseded resubmits it), rule "constraint-dropped" (rules[0]): ${RECORDS}`);
      expect(dryLog).toContain(`--apply would: resubmit 0, remove 0, leave ${RECORDS} (${RECORDS} superseded).`);
      const applied = rig.startMover(normal, undefined, { args: [...moverArgs, '--apply'] });
      expect((await applied.outcome()).code).toBe(0);
      await sleep(2_000);
      await until('empty work queues', async () => (await rig.pendingWork()) === 0);
      expect((await bus.counts(normal)).deadLetter).toBe(RECORDS);

      const verdict = await rig.verify();
      await host3.child.stop();
      reportRun('crash/stale-resubmit', { records: RECORDS, kills: 2 }, verdict);
      if (verdict.mismatches.length > 0) throw new Error(describeMismatches(verdict, 0, rig.dir));
      expect(onTarget((db) => db.prepare("SELECT count(*) AS n FROM items WHERE quantity = 10 AND note = 'new' AND category_id = 'C-1'").get())).toEqual({ n: 2 * RECORDS });
      const reasons = (await ignoredRetries()).map((m) => String(m.applicationProperties.IgnoredReason));
      expect(reasons).toHaveLength(RECORDS);
      expect(reasons.every((r) => r.startsWith('superseded: a newer change of this record') && r.includes(`job "${JOBS.items}"`))).toBe(true);
      keep = false;
    } finally {
      await rig.close(keep);
    }
  }, 180_000);
});
