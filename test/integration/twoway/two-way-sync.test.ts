import type { Job } from '../../../src/model/job';
import { createQueueMessage, serializeQueueMessage } from '../../../src/model/queue-message';
import { JobActionType } from '../../../src/model/job';
import type { SyncFixture } from '../../support/sync-fixture';
import { createPairFixture, PAST_STAMP, syncPair } from './support/pair-fixture';

/**
 * Two-way sync through the runtime both hosts use: detection of both jobs of a pair, processing
 * of their messages against real SQLite sides and the coupling store on Azurite. Rows are
 * stamped by trigger (ten seconds in the past, so that runs need not wait for the settle
 * horizon): Highwater's own writes are stamped too and come back as echoes.
 */
const STAMP = PAST_STAMP;
const CRM = `
  CREATE TABLE profiles (account_id TEXT PRIMARY KEY, phone TEXT, email TEXT, terms TEXT, credit_limit NUMERIC, modified_at TEXT NOT NULL DEFAULT (${STAMP}));
  CREATE TRIGGER profiles_stamp AFTER UPDATE ON profiles WHEN NEW.modified_at = OLD.modified_at
    BEGIN UPDATE profiles SET modified_at = ${STAMP} WHERE account_id = NEW.account_id; END;`;
const ERP = `
  CREATE TABLE customer_profiles (crm_id TEXT PRIMARY KEY, telephone TEXT, mail TEXT, terms TEXT, credit_limit NUMERIC, changed_at TEXT NOT NULL DEFAULT (${STAMP}));
  CREATE TRIGGER customer_profiles_stamp AFTER UPDATE ON customer_profiles WHEN NEW.changed_at = OLD.changed_at
    BEGIN UPDATE customer_profiles SET changed_at = ${STAMP} WHERE crm_id = NEW.crm_id; END;`;

const PAIR = {
  name: 'profiles',
  schedule: '0 */5 * * * *',
  a: { connection: 'crm', entity: 'profiles', key: ['account_id'], watermark: { type: 'datetime', field: 'modified_at' } },
  b: { connection: 'erp', entity: 'customer_profiles', key: ['crm_id'], watermark: { type: 'datetime', field: 'changed_at' } },
  fields: [
    { a: 'account_id', b: 'crm_id' },
    { a: 'phone', b: 'telephone' },
    { a: 'email', b: 'mail' },
    { a: 'terms', b: 'terms', toB: [{ op: 'valueMap', map: { NET30: '30 days', NET60: '60 days' } }], conflict: 'manual' },
    { a: 'credit_limit', b: 'credit_limit', direction: 'toA' },
  ],
  conflicts: 'newest',
};

describe('two-way sync of a pair (SQLite ↔ SQLite, couplings on Azurite)', () => {
  let f: SyncFixture;
  const job = (name: string): Job => f.runtime.init.getJob(name);
  const sync = () => syncPair(f, 'profiles');
  const crm = (id: string) => f.crm.prepare('SELECT account_id, phone, email, terms, credit_limit FROM profiles WHERE account_id = ?').get(id);
  const erp = (id: string) => f.erp.prepare('SELECT crm_id, telephone, mail, terms, credit_limit FROM customer_profiles WHERE crm_id = ?').get(id);

  beforeAll(async () => {
    f = await createPairFixture(PAIR, { crm: CRM, erp: ERP });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('creates what each side lacks on the other, then sends nothing more (its own writes are echoes)', async () => {
    const insert = f.crm.prepare('INSERT INTO profiles (account_id, phone, email, terms) VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= 4; i++) insert.run(`A-${i}`, `+49 ${i}`, `a${i}@example.test`, 'NET30');
    f.erp.prepare('INSERT INTO customer_profiles (crm_id, telephone, mail, terms, credit_limit) VALUES (?, ?, ?, ?, ?)').run('A-9', '+49 9', 'erp@example.test', '60 days', 5000);
    expect(await sync()).toEqual({ aToB: 4, bToA: 1 });
    expect(erp('A-1')).toEqual({ crm_id: 'A-1', telephone: '+49 1', mail: 'a1@example.test', terms: '30 days', credit_limit: null });
    expect(crm('A-9')).toEqual({ account_id: 'A-9', phone: '+49 9', email: 'erp@example.test', terms: 'NET60', credit_limit: 5000 });
    // The rows written on both sides were stamped and are read again: all of them echoes.
    expect(await sync()).toEqual({ aToB: 0, bToA: 0 });
    expect(await f.runtime.couplings!.list('profiles')).toHaveLength(5);
  });

  it('carries an edit of each side across once, merging fields changed on different sides', async () => {
    f.crm.prepare('UPDATE profiles SET phone = ? WHERE account_id = ?').run('+49 111', 'A-1');
    f.erp.prepare('UPDATE customer_profiles SET credit_limit = ?, mail = ? WHERE crm_id = ?').run(25000, 'ap@a1.test', 'A-1');
    const first = await sync();
    expect(first.aToB + first.bToA).toBeLessThanOrEqual(2);
    expect(crm('A-1')).toEqual({ account_id: 'A-1', phone: '+49 111', email: 'ap@a1.test', terms: 'NET30', credit_limit: 25000 });
    expect(erp('A-1')).toEqual({ crm_id: 'A-1', telephone: '+49 111', mail: 'ap@a1.test', terms: '30 days', credit_limit: 25000 });
    expect(await sync()).toEqual({ aToB: 0, bToA: 0 });
  });

  it('resolves a field both sides changed by the newest change, and parks a manual one until resolved', async () => {
    f.erp.prepare('UPDATE customer_profiles SET telephone = ? WHERE crm_id = ?').run('+49 from erp', 'A-2');
    await new Promise((resolve) => setTimeout(resolve, 20));
    f.crm.prepare('UPDATE profiles SET phone = ? WHERE account_id = ?').run('+49 from crm', 'A-2');
    f.crm.prepare('UPDATE profiles SET terms = ? WHERE account_id = ?').run('NET60', 'A-3');
    f.erp.prepare('UPDATE customer_profiles SET terms = ? WHERE crm_id = ?').run('90 days', 'A-3');
    await sync();
    expect(crm('A-2')).toMatchObject({ phone: '+49 from crm' });
    expect(erp('A-2')).toMatchObject({ telephone: '+49 from crm' });
    const [conflict] = await f.runtime.couplings!.listConflicts('profiles');
    expect(conflict).toMatchObject({ pair: 'profiles', keyA: 'A-3', keyB: 'A-3', fields: ['terms'] });
    expect(crm('A-3')).toMatchObject({ terms: 'NET60' });
    expect(erp('A-3')).toMatchObject({ terms: '90 days' });
    // Still parked on the next runs: nothing is sent back and forth meanwhile.
    expect(await sync()).toEqual({ aToB: 0, bToA: 0 });
    // An operator takes side b: the next sync of the record applies it.
    await f.runtime.couplings!.putConflict({ ...conflict, resolution: 'b', resolvedAt: new Date().toISOString() });
    const notice = createQueueMessage({ jobName: 'profiles.b-to-a', action: JobActionType.NewUpdate, sourceKey: 'A-3', targetKey: {}, changeTracker: conflict.b.tracker ?? '', fields: {} });
    await f.runtime.bus.send(f.settings.queues.work.normal, [{ body: serializeQueueMessage(notice), messageId: 'resolve-A-3', applicationProperties: {} }]);
    await f.drain();
    expect(crm('A-3')).toMatchObject({ terms: '90 days' });
    expect(await f.runtime.couplings!.listConflicts('profiles')).toEqual([]);
    expect(await sync()).toEqual({ aToB: 0, bToA: 0 });
  });

  it('never lets an old message undo a newer change: it finds the record in sync', async () => {
    f.crm.prepare('UPDATE profiles SET email = ? WHERE account_id = ?').run('first@a4.test', 'A-4');
    const aToB = await f.runtime.detection.runJob(job('profiles.a-to-b'));
    expect(aToB.sentByQueue).toEqual({ sbqnormal: 1 });
    const [old] = await f.runtime.bus.receive(f.settings.queues.work.normal, { maxMessages: 1 });
    const oldBody = Buffer.from(old.body as Uint8Array).toString('utf8');
    await f.runtime.bus.completeMany([old]);
    f.crm.prepare('UPDATE profiles SET email = ? WHERE account_id = ?').run('second@a4.test', 'A-4');
    await sync();
    expect(erp('A-4')).toMatchObject({ mail: 'second@a4.test' });
    // The first change's message comes back (a resubmit): nothing older is written.
    await f.runtime.bus.send(f.settings.queues.work.normal, [{ body: oldBody, messageId: 'resubmit-A-4', applicationProperties: {} }]);
    await f.drain();
    expect(erp('A-4')).toMatchObject({ mail: 'second@a4.test' });
    expect(crm('A-4')).toMatchObject({ email: 'second@a4.test' });
  });
});
