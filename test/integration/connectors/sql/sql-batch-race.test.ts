import type { TargetBatch } from '../../../../connectors/base/target-batch';
import type { TargetConnector } from '../../../../connectors/base/target-connector';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage } from '../../../../src/model/queue-message';
import { describeEngine, ENGINE_NAMES, openEngine, type SqlTestEngine } from './sql-test-engines';

/**
 * The version check travels inside the write. Two versions of one record go
 * through two connector instances (two connections / pools) at the same time, 1,000 times; the
 * newer always wins. With the check-then-act path (`applyOneByOne`: read the version, then write
 * without a condition) the older lands last now and then.
 */
const ROUNDS = 1000;
const job = { name: 'race' } as Job;
const mapping: Mapping = { name: 'race', source: { entity: 'src', key: ['id'] }, target: { entity: 'race_item', key: ['code'] }, fields: [] };
const OLD = '2026-05-01T10:00:00.000Z';
const NEW = '2026-05-01T10:00:00.001Z';

function versionBatch(code: string, tracker: string): TargetBatch {
  const message = createQueueMessage({
    jobName: 'race', action: JobActionType.NewUpdate, sourceKey: code, targetKey: { code }, changeTracker: tracker, fields: { payload: `v ${tracker}`, modified_at: tracker },
  });
  return { job, mapping, action: JobActionType.NewUpdate, messages: [message], versionCheck: { type: 'datetime' } };
}

/** Applies like the batch handler: a group rejected as a whole (deadlock, busy) is retried. */
async function apply(target: TargetConnector, batch: TargetBatch): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const [outcome] = await target.applyBatch(batch);
      if (outcome.status === 'failed') throw outcome.error;
      return;
    } catch (err) {
      if ((err as Error).name !== 'TransientError' || attempt >= 5) throw err;
    }
  }
}

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`applyBatch version race on ${name}`, () => {
    let db: SqlTestEngine;
    beforeAll(async () => {
      db = await openEngine(name);
      // WAL: 2,000 commits in a rollback journal would fsync for seconds.
      if (name === 'sqlite') await db.exec('PRAGMA journal_mode = WAL');
      await db.exec(`CREATE TABLE race_item (code TEXT PRIMARY KEY, payload TEXT, modified_at ${db.timestampType})`);
    });
    afterAll(() => db?.close());

    it(`keeps the newer of two concurrent versions, ${ROUNDS} times (new rows and existing ones)`, async () => {
      const connection = db.connection({ versionField: 'modified_at' });
      const [a, b] = [db.target(connection), db.target(connection)];
      // Every other record exists with an older version: the locked update path and the insert path race.
      await db.insert('race_item', Array.from({ length: ROUNDS / 2 }, (_, i) => ({ code: `R-${i * 2}`, payload: 'seed', modified_at: '2026-01-01T00:00:00.000Z' })));
      const race = (i: number) => {
        const code = `R-${i}`;
        // Which connection carries the newer version, and which starts first, varies.
        const [first, second] = i % 4 < 2 ? [a, b] : [b, a];
        const [x, y] = i % 2 === 0 ? [NEW, OLD] : [OLD, NEW];
        return Promise.all([apply(first, versionBatch(code, x)), apply(second, versionBatch(code, y))]);
      };
      // A few records at a time (each a race of its own) keep the run short.
      for (let i = 0; i < ROUNDS; i += 4) await Promise.all([0, 1, 2, 3].map((j) => race(i + j)));
      const rows = await db.select(`SELECT code, payload FROM race_item`);
      const lost = rows.filter((r) => r.payload !== `v ${NEW}`).map((r) => r.code);
      expect(rows).toHaveLength(ROUNDS);
      expect(lost).toEqual([]);
    });
  });
}
