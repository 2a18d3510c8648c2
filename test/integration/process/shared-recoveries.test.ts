import type { TableStore } from '../../../src/storage/table-store';
import { SharedRecoveries, TARGET_RECOVERIES_TABLE } from '../../../src/process/shared-recoveries';
import { silentLogger, type Logger } from '../../../src/telemetry/logger';
import { useTableStorage } from '../../support/table-storage';

const tables = useTableStorage();
const T0 = Date.parse('2026-06-01T00:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

/** Instances tell each other until when the messages they deferred during a target outage are due (real Azurite). */
describe('SharedRecoveries', () => {
  let table: TableStore;
  beforeAll(async () => {
    table = await tables().table(TARGET_RECOVERIES_TABLE);
  });
  const rowsOf = async (connection: string) => Object.fromEntries((await table.queryPartition(connection)).map((r) => [r.rowKey, (r.properties.Until as Date).toISOString()]));

  it('reads the latest due time of the other instances, reusing a read for readEveryMs', async () => {
    const a = new SharedRecoveries(table, 'a', silentLogger);
    const b = new SharedRecoveries(table, 'b', silentLogger);
    const reader = new SharedRecoveries(table, 'reader', silentLogger);
    expect(await reader.until('conn-read', at(0))).toBeUndefined();
    a.note('conn-read', at(60));
    await a.flushed();
    // Still the read of t=0 (no row then).
    expect(await reader.until('conn-read', at(5))).toBeUndefined();
    // Written 5 s (publishStepMs) beyond the deferral, so that the next few need no write.
    expect(await reader.until('conn-read', at(10))).toEqual(at(65));
    // Its own deferrals an instance knows exactly (TargetHealth), not 5 s later.
    expect(await a.until('conn-read', at(10))).toBeUndefined();
    b.note('conn-read', at(120));
    await b.flushed();
    expect(await reader.until('conn-read', at(15))).toEqual(at(65));
    expect(await reader.until('conn-read', at(20))).toEqual(at(125));
    expect(await reader.until('conn-read', at(130))).toBeUndefined();
  });

  it('writes again only when what it wrote does not cover the latest deferral, and the last of those noted during a write', async () => {
    const a = new SharedRecoveries(table, 'a', silentLogger);
    a.note('conn-write', at(60));
    a.note('conn-write', at(62));
    a.note('conn-write', at(90));
    await a.flushed();
    expect(await rowsOf('conn-write')).toEqual({ a: at(95).toISOString() });
    a.note('conn-write', at(93));
    await a.flushed();
    expect(await rowsOf('conn-write')).toEqual({ a: at(95).toISOString() });
    a.note('conn-write', at(96));
    await a.flushed();
    expect(await rowsOf('conn-write')).toEqual({ a: at(101).toISOString() });
  });

  it('deletes the rows of instances whose due time passed an hour ago when it reads, and keeps its own', async () => {
    await table.upsert({ partitionKey: 'conn-old', rowKey: 'gone', properties: { Until: at(-3601) } });
    await table.upsert({ partitionKey: 'conn-old', rowKey: 'recent', properties: { Until: at(-3599) } });
    await table.upsert({ partitionKey: 'conn-old', rowKey: 'reader', properties: { Until: at(-7200) } });
    const reader = new SharedRecoveries(table, 'reader', silentLogger);
    expect(await reader.until('conn-old', at(0))).toBeUndefined();
    for (let i = 0; i < 100 && 'gone' in (await rowsOf('conn-old')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(Object.keys(await rowsOf('conn-old')).sort()).toEqual(['reader', 'recent']);
  });

  it('logs a failed write and writes with the next deferral; a failed read counts as no recovery', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (m) => warnings.push(m) };
    let fail = true;
    const flaky: TableStore = {
      ...table,
      upsert: async (row) => {
        if (fail) throw new Error('503 Server Busy');
        return table.upsert(row);
      },
      queryPartition: async () => {
        throw new Error('503 Server Busy');
      },
    };
    const a = new SharedRecoveries(flaky, 'a', log);
    a.note('conn-fail', at(60));
    await a.flushed();
    expect(await rowsOf('conn-fail')).toEqual({});
    fail = false;
    a.note('conn-fail', at(61));
    await a.flushed();
    expect(await rowsOf('conn-fail')).toEqual({ a: at(66).toISOString() });
    expect(await a.until('conn-fail', at(0))).toBeUndefined();
    expect(warnings).toEqual([
      'could not share the recovery of target connection "conn-fail" with other instances: 503 Server Busy',
      'could not read other instances\' recoveries of target connection "conn-fail": 503 Server Busy',
    ]);
  });
});
