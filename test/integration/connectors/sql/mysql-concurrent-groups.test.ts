import { JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import { createQueueMessage } from '../../../../src/model/queue-message';
import { MysqlDatabase, type MysqlIsolation } from '../../../../connectors/sql/mysql-dialect';
import { type MysqlBatch, type MysqlBatchDatabase, MysqlBatchWriter } from '../../../../connectors/sql/mysql-batch';
import type { ItemOutcome } from '../../../../connectors/base/target-batch';
import { describeEngine, MYSQL_URL, openEngine, type SqlTestEngine } from './sql-test-engines';

/**
 * Several processors write groups into one MariaDB table at once, each on its own pool, as the
 * batch handler does under load. Groups whose keys are all missing must not deadlock each other
 * (locking reads of absent keys took gap locks, which do not conflict with each other but block
 * both groups' inserts); groups that insert the same keys must end with the newest version of
 * every key and report the others as outdated, whichever commits first. Every server error a
 * statement of the writer meets is counted by its number.
 */
const GROUPS = 4;
const GROUP_SIZE = 200;
const ROUNDS = 3;

/** A pool of its own whose statement errors are counted by server error number; `beforeFirstInsert` runs just before the writer's first INSERT. */
function countingDatabase(url: string, errors: Map<string, number>, beforeFirstInsert?: () => Promise<void>): MysqlBatchDatabase {
  const real = new MysqlDatabase({ connectionString: url, connectionName: 'erp', redact: (t) => t });
  const count = (err: unknown) => {
    const code = String((err as { details?: { code?: unknown } }).details?.code);
    errors.set(code, (errors.get(code) ?? 0) + 1);
    return err;
  };
  return {
    dialect: real.dialect,
    query: (sql, params, op) => real.query(sql, params, op),
    close: () => real.close(),
    transaction: (work, op, isolation?: MysqlIsolation) =>
      real.transaction(
        (tx) =>
          work({
            query: async (sql, params, o) => {
              const hook = sql.startsWith('INSERT') ? beforeFirstInsert : undefined;
              beforeFirstInsert = hook ? undefined : beforeFirstInsert;
              await hook?.();
              return tx.query(sql, params, o).catch((err: unknown) => Promise.reject(count(err)));
            },
          }),
        op,
        isolation,
      ),
  };
}

describeEngine('mysql')('MySQL target: concurrent groups into one table', () => {
  let engine: SqlTestEngine;
  let url: string;
  let tables = 0;
  beforeAll(async () => {
    engine = await openEngine('mysql');
    const parsed = new URL(String(MYSQL_URL));
    parsed.pathname = `/${String((await engine.select('SELECT DATABASE() AS d'))[0].d)}`;
    url = parsed.toString();
  });
  afterAll(() => engine?.close());

  const table = async () => {
    const name = `contacts_${++tables}`;
    await engine.exec(`CREATE TABLE ${name} (id int PRIMARY KEY, rid int AUTO_INCREMENT UNIQUE, label varchar(40) NOT NULL, version bigint NOT NULL)`);
    return name;
  };
  const mapping = (t: string): Mapping => ({ name: 'contacts', source: { entity: 's', key: ['id'] }, target: { entity: t, key: ['id'] }, fields: [] });
  const batch = (t: string, rows: ReadonlyArray<{ id: number; version: number }>): MysqlBatch => ({
    mapping: mapping(t),
    action: JobActionType.NewUpdate,
    versionCheck: { type: 'number' },
    responseMapping: [{ from: 'rid', to: 'erpId' }],
    messages: rows.map(({ id, version }) =>
      createQueueMessage({ jobName: 'contacts', action: JobActionType.NewUpdate, sourceKey: String(id), targetKey: { id }, changeTracker: String(version), fields: { id, label: `v${version}`, version } }),
    ),
  });

  async function run(groups: ReadonlyArray<ReadonlyArray<{ id: number; version: number }>>, t: string, errors: Map<string, number>): Promise<ItemOutcome[][]> {
    const dbs = groups.map(() => countingDatabase(url, errors));
    try {
      const writers = groups.map(() => new MysqlBatchWriter());
      // Connections opened first: the groups then start within the same moment.
      await Promise.all(dbs.map((db) => db.query('SELECT 1', [], 'warm up')));
      // Every group settles before the pools close: a pool ended under a running group leaves its transaction open on the server.
      const settled = await Promise.allSettled(groups.map((rows, g) => writers[g].apply(dbs[g], batch(t, rows), { connectionName: 'erp', versionField: 'version' })));
      return settled.map((s) => {
        if (s.status === 'rejected') throw s.reason;
        return s.value;
      });
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  }

  it(`${GROUPS} groups of ${GROUP_SIZE} missing keys each, interleaved in the index: all inserted, not one deadlock`, async () => {
    const errors = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const t = await table();
      // Group g takes keys g, g+GROUPS, …: every group's keys lie in the same (empty) range.
      const groups = Array.from({ length: GROUPS }, (_, g) => Array.from({ length: GROUP_SIZE }, (_, i) => ({ id: i * GROUPS + g + 1, version: 1 })));
      const outcomes = await run(groups, t, errors);
      expect(outcomes.flat().filter((o) => o.status !== 'applied')).toEqual([]);
      const rows = await engine.select(`SELECT id, rid, label FROM ${t} ORDER BY id`);
      expect(rows).toHaveLength(GROUPS * GROUP_SIZE);
      const rid = new Map(rows.map((r) => [Number(r.id), r.rid]));
      groups.forEach((rowsOfGroup, g) => rowsOfGroup.forEach(({ id }, i) => expect(outcomes[g][i]).toEqual({ status: 'applied', returned: { rid: rid.get(id) } })));
    }
    expect(Object.fromEntries(errors)).toEqual({});
  }, 60_000);

  it(`${GROUPS} groups inserting the same new keys with different versions: every row ends at its newest version`, async () => {
    const errors = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const t = await table();
      // Each group: 100 keys of its own (interleaved with the others') and the same 100 shared keys; who holds the newest version of a shared key varies.
      const versionOf = (g: number, id: number) => 10 + ((g + id + round) % GROUPS) * 10;
      const shared = Array.from({ length: 100 }, (_, i) => 1000 + i);
      const groups = Array.from({ length: GROUPS }, (_, g) => [
        ...Array.from({ length: 100 }, (_, i) => ({ id: i * GROUPS + g + 1, version: 10 })),
        ...shared.map((id) => ({ id, version: versionOf(g, id) })),
      ]);
      const outcomes = await run(groups, t, errors);
      const rows = await engine.select(`SELECT id, rid, label, version FROM ${t} ORDER BY id`);
      expect(rows).toHaveLength(GROUPS * 100 + shared.length);
      const newest = (id: number) => Math.max(...groups.map((rowsOfGroup) => rowsOfGroup.find((r) => r.id === id)?.version ?? 0));
      expect(rows.filter((r) => Number(r.version) !== newest(Number(r.id)) || r.label !== `v${newest(Number(r.id))}`)).toEqual([]);
      const byId = new Map(rows.map((r) => [Number(r.id), r]));
      groups.forEach((rowsOfGroup, g) =>
        rowsOfGroup.forEach(({ id, version }, i) => {
          const outcome = outcomes[g][i];
          // The newest message of a key is applied; an older one is applied before it or refused after it.
          if (version === newest(id) || outcome.status !== 'outdated') expect(outcome).toEqual({ status: 'applied', returned: { rid: byId.get(id)?.rid } });
          else expect(Number(outcome.targetVersion)).toBeGreaterThan(version);
        }),
      );
    }
    // Two groups inserting one key meet as a duplicate key (1062): the later group runs again and updates. It is not re-read
    // under a lock in the same transaction, where groups upgrading the shared lock the duplicate left them deadlocked
    // every time. Groups rerun over the same shared keys can still meet as a deadlock (1213) now and then (seen once
    // in a CI run): the writer runs such a group again, and every outcome above held; nothing else may surface.
    console.log(`statement errors met inside the writer: ${JSON.stringify(Object.fromEntries(errors))}`);
    expect([...errors.keys()].filter((code) => code !== '1062' && code !== '1213')).toEqual([]);
  }, 60_000);

  it.each([
    ['newer', 30, { status: 'outdated', targetVersion: '30' }, 'v30'],
    ['older', 10, { status: 'applied' }, 'v20'],
  ])('a key inserted by another writer between the lock and the insert (%s version): the group runs again, compared and updated, or outdated', async (_, other, expected, label) => {
    const t = await table();
    const errors = new Map<string, number>();
    // The other writer commits key 2 after the group found it missing: the group's INSERT meets a duplicate key.
    const db = countingDatabase(url, errors, () => engine.exec(`INSERT INTO ${t} (id, label, version) VALUES (2, 'v${other}', ${other})`));
    try {
      const outcomes = await new MysqlBatchWriter().apply(db, batch(t, [{ id: 1, version: 20 }, { id: 2, version: 20 }, { id: 3, version: 20 }]), { connectionName: 'erp', versionField: 'version' });
      const rows = await engine.select(`SELECT id, rid, label FROM ${t} ORDER BY id`);
      expect(rows.map((r) => [r.id, r.label])).toEqual([[1, 'v20'], [2, label], [3, 'v20']]);
      expect(outcomes.map((o) => (o.status === 'applied' ? { status: 'applied' } : o))).toEqual([{ status: 'applied' }, expected, { status: 'applied' }]);
      expect(Object.fromEntries(errors)).toEqual({ 1062: 1 });
    } finally {
      await db.close();
    }
  });
});
