import { defaultConnectorRegistry } from '../../../../connectors/default-registry';
import { FROZEN_XID, widenXid } from '../../../../connectors/sql/postgres-xmin';
import { validateConfig } from '../../../../src/config/validate-config';
import { issueLines } from '../../config/valid-config';

const EPOCH = 2n ** 32n;
const full = (epoch: bigint, low: bigint) => epoch * EPOCH + low;

/**
 * The 64-bit transaction id of a row's 32-bit `xmin` (PostgreSQL tracking by transaction),
 * against the `xmax` of the snapshot it was read in: rows written before and after the epoch
 * boundary, rows of transactions that committed after the snapshot's xmin, and rows too old to
 * place (frozen).
 */
describe('widenXid', () => {
  it('keeps the epoch of the reference for an xid below its low 32 bits', () => {
    expect(widenXid(5n, full(1n, 10n))).toBe(full(1n, 5n));
    expect(widenXid(3n, full(0n, 1000n))).toBe(3n);
    expect(widenXid(999n, full(7n, 1000n))).toBe(full(7n, 999n));
  });

  it('takes the epoch before for an xid above them: written before the counter wrapped', () => {
    expect(widenXid(EPOCH - 5n, full(1n, 10n))).toBe(full(0n, EPOCH - 5n));
    expect(widenXid(EPOCH - 1n, full(1n, 0n))).toBe(EPOCH - 1n);
    expect(widenXid(EPOCH - 1n, full(1n, 3n))).toBe(EPOCH - 1n);
    expect(widenXid(4n + 2n ** 31n, full(3n, 2n))).toBe(full(2n, 4n + 2n ** 31n));
  });

  it('places a row of a transaction that committed above the snapshot xmin: the reference is the xmax', () => {
    // Snapshot 990:1000 in epoch 4: a row of transaction 995 (committed, visible) is of epoch 4 too.
    expect(widenXid(995n, full(4n, 1000n))).toBe(full(4n, 995n));
  });

  it('reads a row 2^31 - 1 or more transactions back, and the special ids, as frozen: older than any watermark', () => {
    expect(widenXid(100n + 2n ** 31n, full(5n, 100n))).toBe(FROZEN_XID);
    expect(widenXid(101n + 2n ** 31n, full(5n, 100n))).toBe(FROZEN_XID);
    expect(widenXid(102n + 2n ** 31n, full(5n, 100n))).toBe(full(5n, 100n) - (2n ** 31n - 2n));
    expect(widenXid(100n, full(5n, 100n))).toBe(FROZEN_XID);
    expect(widenXid(2n, full(1n, 3n))).toBe(FROZEN_XID);
    expect(widenXid(1n, 20n)).toBe(FROZEN_XID);
    expect(widenXid(0n, 20n)).toBe(FROZEN_XID);
    expect(widenXid(30n, 20n)).toBe(FROZEN_XID);
    expect(FROZEN_XID).toBeLessThan(3n);
  });
});

describe('xmin watermarks in the configuration', () => {
  const connections = [
    { name: 'pg', type: 'postgres', settings: { host: 'db', database: 'erp', user: 'sync' } },
    { name: 'lite', type: 'sqlite', settings: { file: './crm.db' } },
    { name: 'maria', type: 'mysql', settings: { host: 'db', database: 'shop', user: 'sync' } },
  ];
  const mappings = [{ name: 'orders', source: { entity: 'orders', key: ['id'] }, target: { entity: 'orders', key: ['id'] }, fields: [{ target: 'id', source: 'id' }] }];
  const job = (name: string, source: string, watermark: Record<string, string>) => ({ name, order: 1, schedule: '0 * * * * *', source, target: source === 'pg' ? 'lite' : 'pg', mapping: 'orders', watermark });
  const options = { connectionTypes: defaultConnectorRegistry().connectionTypes() };

  it('takes field xmin with type number on a postgres connection only', () => {
    expect(issueLines(() => validateConfig({ connections, mappings, jobs: [
      job('pg-xmin', 'pg', { type: 'number', field: 'xmin' }),
      job('pg-xmin-time', 'pg', { type: 'datetime', field: 'xmin' }),
      job('lite-xmin', 'lite', { type: 'number', field: 'xmin' }),
      job('maria-xmin', 'maria', { type: 'number', field: 'xmin' }),
      job('pg-id', 'pg', { type: 'number', field: 'id' }),
    ] }, options))).toEqual([
      'jobs: jobs[1].watermark.field: xmin (change tracking by transaction id) needs watermark.type number, got "datetime"',
      'jobs: jobs[2].watermark.field: xmin (change tracking by transaction id) is PostgreSQL\'s: a sqlite connection has none; use a column of the table',
      'jobs: jobs[3].watermark.field: xmin (change tracking by transaction id) is PostgreSQL\'s: a mysql connection has none; use a column of the table',
    ]);
  });
});
