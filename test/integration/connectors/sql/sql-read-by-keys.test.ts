import os from 'node:os';
import { ConnectorRegistry } from '../../../../connectors/base/registry';
import { READ_BY_KEYS_SIZE } from '../../../../connectors/sql/sql-read-by-keys';
import { sqlConnectorFactories } from '../../../../connectors/sql/sql-connectors';
import { type Job, JobActionType } from '../../../../src/model/job';
import type { Mapping } from '../../../../src/model/mapping';
import type { QueueMessage } from '../../../../src/model/queue-message';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { describeEngine, ENGINE_NAMES, openEngine, readRun, type SqlTestEngine } from './sql-test-engines';

/**
 * `readByKeys` of the SQL sources beyond the source contract: typed and composite keys (64-bit
 * integers given as text, text that is no integer, the separator inside a key), resolvers, what
 * detection does not read (NULL trackers; a change in its unsettled second), rows that cannot
 * become a message, and failures classified as detection's.
 */
const job: Job = {
  name: 'stock', order: 1, schedule: '0 * * * * *', enabled: true, source: 's', target: 't', mapping: 'stock',
  priority: 'normal', watermark: { type: 'datetime', field: 'modified' }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize: 500, lookbackSeconds: 0,
};
const mapping: Mapping = {
  name: 'stock',
  source: { entity: 'stock', key: ['item', 'site'] },
  target: { entity: 'stock', key: ['item', 'site'] },
  fields: [
    { target: 'item', source: 'item' }, { target: 'site', source: 'site' }, { target: 'qty', source: 'qty' },
    { target: 'siteName', source: 'site', resolver: { entity: 'sites', matchField: 'code', returnField: 'name' } },
  ],
};
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
// Beyond 2^53: a key that went through a JS number would name another record.
const BIG = '9007199254740993';

const plain = (messages: Iterable<QueueMessage>) =>
  [...messages].map(({ correlationId: _c, detectedAt: _d, ...rest }) => rest).sort((a, b) => (a.sourceKey < b.sourceKey ? -1 : 1));

for (const name of ENGINE_NAMES) {
  describeEngine(name)(`reading records by key on ${name}`, () => {
    let db: SqlTestEngine;
    beforeAll(async () => {
      db = await openEngine(name);
    });
    afterAll(() => db?.close());

    beforeEach(async () => {
      await db.exec('DROP TABLE IF EXISTS stock');
      await db.exec('DROP TABLE IF EXISTS sites');
      await db.exec(`CREATE TABLE stock (item BIGINT NOT NULL, site TEXT NOT NULL, qty INTEGER, modified ${db.timestampType}, PRIMARY KEY (item, site))`);
      await db.exec('CREATE TABLE sites (code TEXT PRIMARY KEY, name TEXT)');
      await db.insert('sites', [{ code: 'north|1', name: 'North one' }, { code: 'south', name: 'South' }]);
      await db.insert('stock', [
        { item: BigInt(BIG), site: 'north|1', qty: 1, modified: at(1) },
        { item: 7, site: 'south', qty: 2, modified: at(2) },
        { item: 8, site: 'back\\slash', qty: 3, modified: at(3) },
      ]);
    });

    it('reads 64-bit, escaped and resolved records as detection sends them; text that is no integer is absent, not an error', async () => {
      const { messages } = await readRun(db.source(), mapping, job, WatermarkValue.initialize('datetime', null));
      expect(messages.map((m) => m.sourceKey).sort()).toEqual([`${BIG}|north\\|1`, '7|south', '8|back\\\\slash'].sort());
      const foreign = ['abc|south', '7.5|south', '99999999999999999999999|south', '|south', '7', ''];
      const read = await db.source().readByKeys!(mapping, job, [...foreign, ...messages.map((m) => m.sourceKey)]);
      expect(plain(read.values())).toEqual(plain(messages));
      expect([...read.keys()].sort()).toEqual(messages.map((m) => m.sourceKey).sort());
      expect(read.get('7|south')?.fields.siteName).toBe('South');
    });

    it('reads a record detection leaves for later (stamped in the unsettled second) and leaves out one whose tracker is NULL', async () => {
      const now = new Date().toISOString();
      await db.insert('stock', [{ item: 20, site: 'south', qty: 5, modified: now }, { item: 21, site: 'south', qty: 6, modified: null }]);
      const settled: Job = { ...job, settleSeconds: 3600 };
      const { messages } = await readRun(db.source(), mapping, settled, WatermarkValue.initialize('datetime', null));
      expect(messages.map((m) => m.sourceKey)).not.toContain('20|south');
      const read = await db.source().readByKeys!(mapping, settled, ['20|south', '21|south']);
      expect([...read.keys()]).toEqual(['20|south']);
      expect(read.get('20|south')).toMatchObject({ action: JobActionType.NewUpdate, fields: { qty: 5, siteName: 'South' } });
      expect(String(read.get('20|south')?.fields.item)).toBe('20'); // BIGINT: digits on PostgreSQL and MySQL
      expect(Date.parse(read.get('20|south')!.changeTracker)).toBe(Date.parse(name === 'mysql' ? now.replace(/(\.\d{3})Z$/, '$1Z') : now));
    });

    it(`reads records across statements (${READ_BY_KEYS_SIZE} keys a statement)`, async () => {
      const many = Array.from({ length: 2 * READ_BY_KEYS_SIZE + 7 }, (_, i) => ({ item: 1000 + i, site: 'bulk', qty: i, modified: at(30) }));
      await db.insert('stock', many);
      const read = await db.source().readByKeys!(mapping, job, many.map((r) => `${r.item}|bulk`));
      expect(read.size).toBe(many.length);
      expect(read.get(`${1000 + 2 * READ_BY_KEYS_SIZE}|bulk`)?.fields.qty).toBe(2 * READ_BY_KEYS_SIZE);
    });

    it('fails on a record that cannot become a message, even when detection skips it', async () => {
      const failing: Mapping = { ...mapping, fields: [...mapping.fields, { target: 'when', source: 'site', operations: [{ op: 'formatDate', format: 'yyyy' }] }] };
      const skipping: Job = { ...job, skipFailedRows: true };
      const { messages } = await readRun(db.source(), failing, skipping, WatermarkValue.initialize('datetime', null));
      expect(messages).toEqual([]);
      await expect(db.source().readByKeys!(failing, skipping, ['7|south'])).rejects.toMatchObject({ name: 'PermanentError' });
    });

    it('fails as detection does on a table that is not there', async () => {
      await expect(db.source().readByKeys!({ ...mapping, source: { ...mapping.source, entity: 'nowhere' } }, job, ['7|south'])).rejects.toMatchObject({ name: 'ConfigError' });
    });
  });
}

describeEngine('postgres')('reading records by key when PostgreSQL is away', () => {
  it('fails with a TransientError', async () => {
    const registry = new ConnectorRegistry(sqlConnectorFactories);
    const source = registry.createSource({
      connection: { name: 'away', type: 'postgres', settings: { host: '127.0.0.1', port: 1, database: 'test', user: 'postgres' }, secrets: {}, maxConcurrency: 1 },
      resolveSecret: () => undefined,
      configDir: os.tmpdir(),
    });
    try {
      await expect(source.readByKeys!(mapping, job, ['7|south'])).rejects.toMatchObject({ name: 'TransientError' });
    } finally {
      await source.close();
    }
  });
});

describeEngine('sqlite')('reading records by key on SQLite columns as they are found', () => {
  let db: SqlTestEngine;
  beforeAll(async () => {
    db = await openEngine('sqlite');
  });
  afterAll(() => db?.close());

  it('finds integer keys in a column of no declared type, with trackers in any form SQLite reads, as detection sends them', async () => {
    // No affinity: SQLite compares the stored integer with a text parameter as unequal.
    await db.exec('CREATE TABLE loose (id, label, modified)');
    await db.insert('loose', [{ id: BigInt(BIG), label: 'big', modified: '2026-01-01 02:00:00+02:00' }, { id: 5, label: 'five', modified: '2026-01-01T00:00:05Z' }, { id: '05', label: 'text', modified: '2026-01-01T00:00:06Z' }]);
    const loose: Mapping = { name: 'loose', source: { entity: 'loose', key: ['id'] }, target: { entity: 'loose', key: ['id'] }, fields: [{ target: 'id', source: 'id' }, { target: 'label', source: 'label' }] };
    const { messages } = await readRun(db.source(), loose, job, WatermarkValue.initialize('datetime', null));
    expect(messages.map((m) => m.sourceKey).sort()).toEqual(['05', '5', BIG].sort());
    const read = await db.source().readByKeys!(loose, job, [BIG, '5', '05', '5.0']);
    expect(plain(read.values())).toEqual(plain(messages));
  });
});
