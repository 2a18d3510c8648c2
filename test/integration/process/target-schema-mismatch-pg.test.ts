import { Client } from 'pg';
import type { ReceivedMessage } from '../../../src/bus/message-bus';
import { busSettler } from '../../../src/process/bus-settler';
import type { ProcessResult } from '../../../src/process/process-queue-message-service';
import { FakeClock } from '../../support/fake-clock';
import { createSyncFixture, type SyncFixture } from '../../support/sync-fixture';

import { describeEngine, PG_URL } from '../connectors/sql/sql-test-engines';

/**
 * A wrong PostgreSQL column is no message's fault. The ERP is a PostgreSQL schema whose contacts
 * table spells the name column `fullname` where the mapping writes `full_name`: through the whole
 * processor (local bus, Azurite, the real PostgreSQL target) every contact waits, none is
 * dead-lettered, no attempt is used up; once the column is added every contact is applied.
 * (Before, each was dead-lettered at its first delivery as a PermanentError.)
 */
// Skipped with a printed notice when HIGHWATER_TEST_PG_URL is unset (CI sets it).
describeEngine('postgres')('a missing column on a PostgreSQL target', () => {
  const schema = `hw_mismatch_${process.pid}_${Date.now()}`;
  const clock = new FakeClock('2026-05-01T00:00:00Z');
  let f: SyncFixture;
  let pg: Client;

  beforeAll(async () => {
    pg = new Client({ connectionString: PG_URL });
    await pg.connect();
    await pg.query(`CREATE SCHEMA ${schema}`);
    await pg.query(`CREATE TABLE ${schema}.customers (crm_id text PRIMARY KEY, name text NOT NULL, city text, modified_at text)`);
    await pg.query(`CREATE TABLE ${schema}.contacts (crm_id text PRIMARY KEY, customer_crm_id text NOT NULL REFERENCES ${schema}.customers(crm_id), fullname text)`);
    await pg.query(`INSERT INTO ${schema}.customers (crm_id, name) VALUES ('A-1', 'ACME')`);
    const url = new URL(PG_URL as string);
    f = await createSyncFixture({ clock }, (config) => {
      const erp = config.connections.find((c) => c.name === 'erp') as Record<string, unknown>;
      erp.type = 'postgres';
      erp.settings = { host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), user: decodeURIComponent(url.username), schema };
    });
    await f.runtime.init.ensureInitialized();
  }, 60_000);

  afterAll(async () => {
    await f?.close();
    await pg?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pg?.end();
  });

  async function processAll(): Promise<ProcessResult[]> {
    const queue = f.settings.queues.work.normal;
    const results: ProcessResult[] = [];
    for (;;) {
      const messages: ReceivedMessage[] = await f.runtime.bus.receive(queue, { maxMessages: 20 });
      if (messages.length === 0) return results;
      results.push(...(await f.runtime.processor.executeBatch(messages.map((message) => ({ message, settler: busSettler(f.runtime.bus, message) })), queue)));
    }
  }
  const by = (rs: ProcessResult[], d: string) => rs.filter((r) => r.disposition === d).length;
  const attempts = async () => (await f.runtime.bus.peek(f.settings.queues.work.normal, { maxMessages: 200 })).map((m) => m.applicationProperties.Attempt);

  it('pauses the target, dead-letters nothing, and applies every message once the column is added', async () => {
    const insert = f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)');
    for (let i = 1; i <= 50; i++) insert.run(`C-${i}`, 'A-1', 'Ada', `Lovelace ${i}`, `2026-01-01T00:00:00.${String(i).padStart(3, '0')}Z`);
    await f.runtime.detection.runJob(f.runtime.init.getJob('crm-contacts'));

    const first = await processAll();
    expect({ deferred: by(first, 'deferred'), retried: by(first, 'retried'), deadLettered: by(first, 'deadLettered') }).toEqual({ deferred: 50, retried: 0, deadLettered: 0 });
    expect(f.runtime.targetHealth.snapshot()).toMatchObject([{ connection: 'erp', failures: 1, error: `mapping "contact-to-contact": "${schema}"."contacts" has no column "full_name"` }]);
    expect(await attempts()).toEqual(Array(50).fill(1));

    // The probe 30 s later still meets the wrong column: everything waits again, attempts untouched.
    await clock.advance(30_000);
    const second = await processAll();
    expect({ deferred: by(second, 'deferred'), retried: by(second, 'retried'), deadLettered: by(second, 'deadLettered') }).toEqual({ deferred: 50, retried: 0, deadLettered: 0 });
    expect(await attempts()).toEqual(Array(50).fill(1));

    await pg.query(`ALTER TABLE ${schema}.contacts ADD COLUMN full_name text`);
    await clock.advance(30_000);
    const third = await processAll();
    expect(by(third, 'completed')).toBe(50);
    expect(f.runtime.targetHealth.snapshot()).toEqual([]);
    expect((await pg.query(`SELECT count(*)::int AS n FROM ${schema}.contacts WHERE full_name LIKE 'Ada Lovelace %'`)).rows).toEqual([{ n: 50 }]);
    expect(await f.runtime.bus.peek(f.settings.queues.work.normal, { subQueue: 'deadLetter' })).toEqual([]);
    expect(await f.runtime.bus.peek(f.settings.queues.transitive.normal, { maxMessages: 10 })).toEqual([]);
  }, 60_000);
});
