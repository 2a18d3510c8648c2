import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { ConnectorRegistry } from '../../connectors/base/registry';
import type { SourceConnector } from '../../connectors/base/source-connector';
import { sqlConnectorFactories } from '../../connectors/sql/sql-connectors';
import type { Connection } from '../../src/model/connection';
import { type Job, JobActionType } from '../../src/model/job';
import type { Mapping } from '../../src/model/mapping';
import { WatermarkValue } from '../../src/model/watermark-value';

/**
 * What change tracking by `xmin` costs on PostgreSQL against a column watermark with an index:
 * the first run (every row), a quiet run (nothing changed) and a run after 100 updates, on a
 * table of ~300-byte rows. Prints one line per measurement; asserts nothing.
 *
 *   HIGHWATER_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test \
 *     node -r ./src/platform/swc-register.js bench/detect/postgres-xmin.ts [--sizes 100000,1000000] [--page-size 500] [--paged-up-to 100000]
 *
 * `--paged-up-to`: sizes up to which the first xmin run is also taken with a pool of one
 * connection (keyset pages by LIMIT, a table scan each: what streaming avoids).
 */
const url = process.env.HIGHWATER_TEST_PG_URL;
const flag = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const sizes = (flag('sizes') ?? '100000,1000000').split(',').map(Number);
const pageSize = Number(flag('page-size') ?? 500);
const pagedUpTo = Number(flag('paged-up-to') ?? 100000);

const job = (field: string, type: string): Job => ({
  name: `bench-${field}`, order: 1, schedule: '0 * * * * *', enabled: true, source: 'pg', target: 't', mapping: 'm',
  priority: 'normal', watermark: { type, field }, filter: [], action: JobActionType.NewUpdate,
  skipOutdatedMessages: false, skipUnchanged: false, pageSize, lookbackSeconds: 0,
});

async function run(source: SourceConnector, mapping: Mapping, j: Job, watermark: WatermarkValue): Promise<{ rows: number; ms: number }> {
  const start = performance.now();
  let rows = 0;
  for await (const page of source.retrieveChanges(mapping, j, watermark)) {
    rows += page.messages.length;
    for (const m of page.messages) watermark.advance(m.changeTracker);
  }
  return { rows, ms: performance.now() - start };
}

async function main(): Promise<void> {
  if (!url) throw new Error('set HIGHWATER_TEST_PG_URL');
  const schema = `hw_bench_xmin_${process.pid}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const registry = new ConnectorRegistry(sqlConnectorFactories);
  const connection = (maxConcurrency: number): Connection => ({ name: 'pg', type: 'postgres', settings: { schema }, secrets: { connectionString: 'PG' }, maxConcurrency });
  const open = (maxConcurrency = 4) => registry.createSource({ connection: connection(maxConcurrency), resolveSecret: () => url, configDir: os.tmpdir() });
  const print = (size: number, what: string, r: { rows: number; ms: number }) =>
    console.log(`${size} rows | ${what} | ${r.rows} changes in ${(r.ms / 1000).toFixed(2)} s${r.rows > 0 ? ` (${Math.round(r.rows / (r.ms / 1000))} changes/s)` : ''}`);
  try {
    for (const size of sizes) {
      const table = `orders_${size}`;
      await admin.query(`CREATE TABLE ${schema}.${table} (id bigint PRIMARY KEY, name text, payload text, updated_at timestamptz NOT NULL)`);
      await admin.query(`CREATE INDEX ON ${schema}.${table} (updated_at, id)`);
      await admin.query(`INSERT INTO ${schema}.${table} SELECT g, 'name ' || g, repeat('x', 250), now() - interval '1 hour' FROM generate_series(1, ${size}) g`);
      await admin.query(`VACUUM ANALYZE ${schema}.${table}`);
      const mapping: Mapping = { name: 'm', source: { entity: table, key: ['id'] }, target: { entity: 't', key: ['id'] }, fields: [{ target: 'id', source: 'id' }, { target: 'name', source: 'name' }, { target: 'payload', source: 'payload' }] };
      const source = open();
      const xmin = WatermarkValue.initialize('number', null);
      const stamp = WatermarkValue.initialize('datetime', null);
      print(size, 'first run, xmin (one streamed query)', await run(source, mapping, job('xmin', 'number'), xmin));
      print(size, 'first run, updated_at (indexed)', await run(source, mapping, job('updated_at', 'datetime'), stamp));
      if (size <= pagedUpTo) {
        const paged = open(1);
        print(size, 'first run, xmin, pool of one (LIMIT pages, a scan each)', await run(paged, mapping, job('xmin', 'number'), WatermarkValue.initialize('number', null)));
        await paged.close();
      }
      print(size, 'quiet run, xmin', await run(source, mapping, job('xmin', 'number'), xmin));
      print(size, 'quiet run, updated_at', await run(source, mapping, job('updated_at', 'datetime'), stamp));
      await admin.query(`UPDATE ${schema}.${table} SET name = name || '!', updated_at = now() - interval '5 seconds' WHERE id % ${Math.floor(size / 100)} = 0`);
      print(size, 'after 100 updates, xmin', await run(source, mapping, job('xmin', 'number'), xmin));
      print(size, 'after 100 updates, updated_at', await run(source, mapping, job('updated_at', 'datetime'), stamp));
      await source.close();
      await admin.query(`DROP TABLE ${schema}.${table}`);
    }
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
