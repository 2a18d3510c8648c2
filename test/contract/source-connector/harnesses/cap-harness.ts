import { WatermarkValue } from '../../../../src/model/watermark-value';
import { type CapServer, startCapServer } from '../../../integration/connectors/odata/cap-server';
import { openOdata } from '../../../integration/connectors/odata/odata-test-kit';
import { at, type PreparedSource, type SourceHarness, type SourceRecord } from '../context';

/**
 * The contract on SAP CAP 9 (OData V4 over in-memory SQLite, `test/integration/connectors/odata/
 * fixtures`), started once per suite: Books, integer key `ID`, `title` the label, `author` the
 * filter's group, `modifiedAt` the watermark; a removed record is a soft-deleted one
 * (`stock` 0). CAP serves pages of 3 whatever `odata.maxpagesize` asks.
 */
export async function capSourceHarness(): Promise<SourceHarness> {
  const server = await startCapServer();
  return {
    prepare: async (scenario) => {
      await server.sql('DELETE FROM hw_Books');
      await add(server, scenario.seed);
      const odata = openOdata(server.url);
      const prepared: PreparedSource = {
        source: () => odata.source(),
        entity: 'Books',
        fields: { key: 'ID', label: 'title', tracker: 'modifiedAt', group: 'author' },
        watermarkType: 'datetime',
        watermark: (s) => WatermarkValue.initialize('datetime', s === null ? null : at(s)),
        keyValue: (key) => key,
        trackerOf: (r) => WatermarkValue.canonicalize('datetime', at(r.at)),
        groupValue: (group) => group,
        softDelete: { field: 'stock', op: 'eq', value: 0 },
        add: (rows) => add(server, rows),
        done: async () => {
          await odata.close();
        },
      };
      return prepared;
    },
    close: () => server.stop(),
  };
}

async function add(server: CapServer, rows: readonly SourceRecord[]): Promise<void> {
  for (const r of rows) {
    await server.sql('INSERT INTO hw_Books (ID, title, author, stock, modifiedAt) VALUES (?, ?, ?, ?, ?)', [
      r.key, r.label ?? null, r.group ?? 'keep', r.deleted ? 0 : 1, at(r.at),
    ]);
  }
}
