import type { SourceConnector } from '../../../../connectors/base/source-connector';
import { WatermarkValue } from '../../../../src/model/watermark-value';
import { type EngineName, openEngine } from '../../../integration/connectors/sql/sql-test-engines';
import type { PreparedSource, SourceHarness, SourceRecord } from '../context';

/**
 * The contract on an outbox table (a SQLite file, or a throw-away PostgreSQL schema): one outbox
 * per case, a row per record written in the order of its change (second, then key), so the ids —
 * the change trackers — follow the changes. The payload carries the key, the label and the filter
 * group; a removed record is a `delete` row carrying its key.
 */
export async function outboxSourceHarness(name: EngineName): Promise<SourceHarness> {
  const db = await openEngine(name);
  let tables = 0;
  return {
    async prepare(scenario): Promise<PreparedSource> {
      const table = `contract_outbox_${++tables}`;
      await db.exec(
        name === 'sqlite'
          ? `CREATE TABLE ${table} (id INTEGER PRIMARY KEY AUTOINCREMENT, aggregate_key TEXT NOT NULL, action TEXT NOT NULL, payload TEXT, created_at TEXT, claimed_at TEXT, processed_at TEXT, dead_reason TEXT)`
          : `CREATE TABLE ${table} (id bigserial PRIMARY KEY, aggregate_key text NOT NULL, action text NOT NULL, payload jsonb, created_at timestamptz DEFAULT now(), claimed_at timestamptz, processed_at timestamptz, dead_reason text)`,
      );
      const ordered = [...scenario.seed].sort((a, b) => a.at - b.at || a.key - b.key);
      const trackers = new Map<string, string>();
      const named = (record: SourceRecord) => `${record.key}@${record.at}`;
      for (const record of ordered) {
        const payload = record.deleted ? { key: record.key } : { key: record.key, label: record.label ?? null, grp: record.group ?? 'keep' };
        await db.insert(table, [{ aggregate_key: String(record.key), action: record.deleted ? 'delete' : 'upsert', payload: JSON.stringify(payload) }]);
        const [row] = await db.select(`SELECT max(id) AS id FROM ${table}`);
        trackers.set(named(record), String(row.id));
      }
      const opened: SourceConnector[] = [];
      return {
        source: () => {
          const source = db.source(db.connection({ outbox: { table } }));
          opened.push(source);
          return source;
        },
        // The aggregate's name: without a type column every row of the outbox is the mapping's.
        entity: 'record',
        fields: { key: 'key', label: 'label', tracker: 'id', group: 'grp' },
        watermarkType: 'number',
        // The outbox bounds nothing by the watermark (the `watermark` capability is not supported).
        watermark: () => WatermarkValue.initialize('number', null),
        keyValue: (key) => key,
        trackerOf: (record) => {
          const tracker = trackers.get(named(record));
          if (tracker === undefined) throw new Error(`record ${record.key} at ${record.at} is not in the outbox`);
          return tracker;
        },
        groupValue: (group) => group,
        done: async () => {
          await Promise.all(opened.map((s) => s.close()));
        },
      };
    },
    close: () => db.close(),
  };
}
