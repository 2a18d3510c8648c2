import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parse, stringify } from 'yaml';
import { checkFolder } from '../../../src/cli/commands/check';
import { defaultConnectorRegistry } from '../../../connectors/default-registry';

const EXAMPLE = path.resolve(__dirname, '../../../examples/outbox');

/**
 * `highwater check` on the outbox example (examples/outbox) with its tables created from its own
 * outbox.sql: an outbox job is checked against the outbox table and the columns its settings
 * name, not against a table named like the mapping's source entity (the aggregate type).
 */
describe('highwater check on an outbox connection', () => {
  let dir: string;
  const validateOptions = () => ({ connectionTypes: defaultConnectorRegistry().connectionTypes() });
  const deps = { resolveSecret: () => undefined, validateOptions };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hw-check-outbox-'));
    for (const file of fs.readdirSync(EXAMPLE)) fs.copyFileSync(path.join(EXAMPLE, file), path.join(dir, file));
    const sql = fs.readFileSync(path.join(dir, 'outbox.sql'), 'utf8');
    const shop = new Database(path.join(dir, 'shop.db'));
    shop.exec(sql);
    shop.close();
    const erp = new Database(path.join(dir, 'erp.db'));
    erp.exec(/CREATE TABLE customers \(.*\);/.exec(sql)![0]);
    erp.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Rewrites one config file of the copy. */
  function edit(kind: 'connections' | 'jobs', change: (doc: Record<string, Array<Record<string, unknown>>>) => void): void {
    const file = path.join(dir, `${kind}.yaml`);
    const doc = parse(fs.readFileSync(file, 'utf8')) as Record<string, Array<Record<string, unknown>>>;
    change(doc);
    fs.writeFileSync(file, stringify(doc));
  }

  it('passes the example as written', async () => {
    expect(await checkFolder(dir, deps)).toEqual({ valid: true, issues: [], notices: [], counts: '2 connections, 1 mapping, 1 job' });
  });

  it('names a missing outbox column', async () => {
    const shop = new Database(path.join(dir, 'shop.db'));
    shop.exec('ALTER TABLE outbox RENAME COLUMN dead_reason TO failure');
    shop.close();
    const report = await checkFolder(dir, deps);
    expect(report.issues).toEqual([
      { file: 'connections.yaml', path: 'connections[0].settings.outbox.columns.deadReason', entry: 'shop', message: 'column "dead_reason" not found in table "outbox" (sqlite connection "shop")' },
    ]);
  });

  it('refuses a watermark type other than number before opening anything', async () => {
    edit('jobs', (doc) => void (doc.jobs[0].watermark = { type: 'datetime', field: 'created_at' }));
    expect(await checkFolder(dir, deps)).toEqual({
      valid: false,
      notices: [],
      issues: [{
        file: 'jobs.yaml', path: 'jobs[0].watermark.type', entry: 'shop-customers-to-erp',
        message: 'must be number when reading the outbox of connection "shop" (the outbox id is the change tracker), got "datetime"',
      }],
    });
  });

  it('tells of rows set aside in the outbox', async () => {
    const shop = new Database(path.join(dir, 'shop.db'));
    shop.exec(`INSERT INTO outbox (aggregate_type, aggregate_key, action, payload, dead_reason) VALUES ('customer', '9', 'merge', '{}', 'action "merge" is not an action of the outbox')`);
    shop.close();
    expect(await checkFolder(dir, deps)).toMatchObject({
      issues: [],
      notices: ['sqlite connection "shop": the outbox "outbox" holds rows set aside (dead_reason is set), e.g. "action \\"merge\\" is not an action of the outbox"; fix each and clear its dead_reason to send it'],
    });
  });

  it('names an outbox table that is not there', async () => {
    edit('connections', (doc) => void ((doc.connections[0].settings as { outbox: { table: string } }).outbox.table = 'outbox_events'));
    const report = await checkFolder(dir, deps);
    expect(report.issues).toEqual([
      { file: 'connections.yaml', path: 'connections[0].settings.outbox.table', entry: 'shop', message: 'table "outbox_events" not found (sqlite connection "shop")' },
    ]);
  });
});
