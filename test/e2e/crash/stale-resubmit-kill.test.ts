import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { bySoak } from '../../support/fault-injection';
import { reportRun } from '../convergence/support/report';
import { sleep } from '../convergence/support/source-db';
import { JOBS } from '../convergence/support/sync-config';
import { SyncRig } from '../convergence/support/sync-rig';

/**
 * Stale messages under kills: items dead-lettered by a target constraint (D), items whose retry
 * copies wait for a missing category (R) and items parked for one (P) are set aside by a host that
 * is then killed; their records change at the source and the newer values are applied by a
 * restarted host (killed too, once they were applied); then what would let the old messages
 * succeed arrives — the missing categories, the constraint dropped. The old retry copies come
 * back on a third host and must be ignored; the mover's dry run must show the dead-lettered and
 * the parked ones as superseded and `--apply` must leave them: the target keeps the newer values.
 * Jobs run without `skipOutdatedMessages`, so only the stale-message guard stands between an old
 * message and the newer row.
 */
const RECORDS = bySoak(5, 40);
/** Applied versions are buffered for up to a second: a kill sooner may lose their record (documented). */
const FLUSH_MS = 2_500;

const ids = (prefix: string) => Array.from({ length: RECORDS }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

describe('crash: stale resubmits after kills', () => {
  it(`keeps the newer values of ${RECORDS} dead-lettered, ${RECORDS} retried and ${RECORDS} parked records`, async () => {
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
      const parked = ids('P');
      const write = (rows: string[], category: string, state: 'old' | 'new', qty: number) =>
        rig.db.write({ kind: state === 'old' ? 'insertItems' : 'updateItems', rows: rows.map((id) => ({ id, category_id: category, name: `${state} ${id}`, qty, note: state })) }, undefined, 0);
      const inTarget = (sql: string) => () => onTarget((db) => db.prepare(sql).get() !== undefined);
      const newerCount = () => onTarget((db) => (db.prepare("SELECT count(*) AS n FROM items WHERE quantity = 10 AND note = 'new' AND category_id = 'C-1'").get() as { n: number }).n);
      await rig.db.write({ kind: 'insertCategory', id: 'C-1', name: 'one' }, undefined, 0);
      await write(dead, 'C-1', 'old', -1);
      await write(retried, 'C-LATE', 'old', 1);
      await write(parked, 'C-GONE', 'old', 1);

      // Host 1 sets them aside (dead letters, scheduled retry copies), records its watches, is killed.
      const bus = await rig.openBus();
      const { normal } = rig.settings.queues.work;
      const transitive = rig.settings.queues.transitive.normal;
      const host1 = await rig.startHost();
      await until('dead letters and retry copies', async () => {
        const counts = await bus.counts(normal);
        return counts.deadLetter >= RECORDS && counts.scheduled >= 2 * RECORDS;
      });
      await sleep(FLUSH_MS);
      await host1.child.kill();

      // R changes at the source; host 2 applies it while the old R and P copies wait out their
      // backoff (4 s, 9 s); then R's missing category arrives, and P (still missing its own) is parked.
      await write(retried, 'C-1', 'new', 10);
      const host2 = await rig.startHost();
      await until('the newer R values in the target', () => newerCount() === RECORDS);
      await rig.db.write({ kind: 'insertCategory', id: 'C-LATE', name: 'late' }, undefined, 0);
      await until('the late category in the target', inTarget("SELECT 1 FROM categories WHERE id = 'C-LATE'"));
      await until('P parked', async () => (await bus.counts(transitive)).active >= RECORDS);
      // D and P change at the source; host 2 applies them, then is killed.
      await write(dead, 'C-1', 'new', 10);
      await write(parked, 'C-1', 'new', 10);
      await until('the newer D and P values in the target', () => newerCount() === 3 * RECORDS);
      await sleep(FLUSH_MS);
      await host2.child.kill();

      // What the old messages need to succeed arrives: P's category; the constraint is dropped.
      await rig.db.write({ kind: 'insertCategory', id: 'C-GONE', name: 'gone' }, undefined, 0);
      onTarget((db) => db.exec('DROP TRIGGER items_qty_ins; DROP TRIGGER items_qty_upd;'));
      const host3 = await rig.startHost();
      await until('the gone category in the target', inTarget("SELECT 1 FROM categories WHERE id = 'C-GONE'"));
      const ignoredRetries = async () => {
        const ignored = await bus.peek(rig.settings.queues.ignored, { maxMessages: 1000 });
        return ignored.filter((m) => retried.includes(String(m.applicationProperties.SourceKey)));
      };
      // Retry copies still scheduled count as pending until they are received.
      await until('the old retry copies processed', async () => (await rig.pendingWork()) === 0, 60_000);

      // The mover, as an operator runs it: on the dead letters with a rule that resubmits what the
      // dropped constraint refused, on the parked items with the default rules (missing dependency:
      // resubmit). A dry run shows each as superseded; --apply leaves them.
      const rules = path.join(rig.dir, 'rules.yaml');
      writeFileSync(rules, 'rules:\n  - name: constraint-dropped\n    match: { errorMessage: /quantity must not be negative/ }\n    action: Resubmit\n');
      const runs = [
        { queue: normal, args: ['--dead-letter', '--rules', rules], rule: 'rule "constraint-dropped" (rules[0])' },
        { queue: transitive, args: [], rule: 'rule "missing-dependency" (rules[1])' },
      ];
      for (const run of runs) {
        const dry = rig.startMover(run.queue, undefined, { args: [...run.args, '--config', rig.dir, '--list'] });
        expect((await dry.outcome()).code).toBe(0);
        // The log file is written asynchronously: its last lines can land just after the exit.
        let dryLog = '';
        await until('the dry run report', () => (dryLog = readFileSync(dry.log, 'utf8')).includes('--apply would:'), 5_000);
        expect(dryLog).toContain(`None, superseded: a newer change of the record was applied since (left in place; --include-superseded resubmits it), ${run.rule}: ${RECORDS}`);
        expect(dryLog).toContain(`--apply would: resubmit 0, remove 0, leave ${RECORDS} (${RECORDS} superseded).`);
        const applied = rig.startMover(run.queue, undefined, { args: [...run.args, '--config', rig.dir, '--apply'] });
        expect((await applied.outcome()).code).toBe(0);
      }
      await sleep(2_000);
      await until('empty work queues', async () => (await rig.pendingWork()) === 0);
      expect((await bus.counts(normal)).deadLetter).toBe(RECORDS);
      expect((await bus.counts(transitive)).active).toBe(RECORDS);

      const verdict = await rig.verify();
      await host3.child.stop();
      reportRun('crash/stale-resubmit', { records: RECORDS, kills: 2 }, verdict);
      if (verdict.mismatches.length > 0) {
        const shown = verdict.mismatches.slice(0, 10).map((m) => `  ${m.key}: ${m.kind} (${m.cause}) expected ${JSON.stringify(m.expected)} got ${JSON.stringify(m.actual)}`);
        throw new Error(`${verdict.mismatches.length} mismatches (rig kept in ${rig.dir}):\n${shown.join('\n')}`);
      }
      expect(newerCount()).toBe(3 * RECORDS);
      const reasons = (await ignoredRetries()).map((m) => String(m.applicationProperties.IgnoredReason));
      expect(reasons).toHaveLength(RECORDS);
      expect(reasons.every((r) => r.startsWith('superseded: a newer change of this record') && r.includes(`job "${JOBS.items}"`))).toBe(true);
      keep = false;
    } finally {
      await rig.close(keep);
    }
  }, 180_000);
});
