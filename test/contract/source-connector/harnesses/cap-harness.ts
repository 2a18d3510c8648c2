import { WatermarkValue } from '../../../../src/model/watermark-value';
import { type CapServer, startCapServer } from '../../../integration/connectors/odata/cap-server';
import { openOdata } from '../../../integration/connectors/odata/odata-test-kit';
import { BYTES_VALUE, INT64_VALUES } from '../../value-matrix';
import { at, type PreparedSource, type PreparedValues, type SourceHarness, type SourceRecord } from '../context';

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
    prepareValues: () => prepareValues(server),
    close: () => server.stop(),
  };
}

/**
 * The value matrix in `Values` (`Edm.Int64` key `ID`, `big` Edm.Int64, `data` Edm.Binary): the
 * kinds CAP over SQLite holds exactly. Edm.Decimal is stored as REAL and Timestamp to
 * milliseconds there, and CAP has no JSON type: those kinds are left out.
 */
async function prepareValues(server: CapServer): Promise<PreparedValues> {
  await server.sql('DELETE FROM hw_Values');
  for (const [i, big] of INT64_VALUES.entries()) {
    // CAP keeps Edm.Binary in SQLite as its base64 text; the digits as text land exactly in the INTEGER column.
    await server.sql('INSERT INTO hw_Values (ID, big, data, modifiedAt) VALUES (?, ?, ?, ?)', [i + 1, big, i === 0 ? BYTES_VALUE.toString('base64') : null, at(1)]);
  }
  const odata = openOdata(server.url);
  return {
    source: () => odata.source(),
    entity: 'Values',
    key: 'ID',
    tracker: 'modifiedAt',
    watermarkType: 'datetime',
    columns: { int64: 'big', bytes: 'data' },
    done: async () => {
      await odata.close();
    },
  };
}

async function add(server: CapServer, rows: readonly SourceRecord[]): Promise<void> {
  for (const r of rows) {
    await server.sql('INSERT INTO hw_Books (ID, title, author, stock, modifiedAt) VALUES (?, ?, ?, ?, ?)', [
      r.key, r.label ?? null, r.group ?? 'keep', r.deleted ? 0 : 1, at(r.at),
    ]);
  }
}
