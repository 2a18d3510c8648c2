import type { Logger } from '../../../src/telemetry/logger';
import type { SyncFixture } from '../../support/sync-fixture';
import { createPairFixture, PAST_STAMP, syncPair } from './support/pair-fixture';

/**
 * A side's `modifiedBy`, the second echo signal: the ERP records who last changed a profile
 * (`changed_by`: Highwater's writes leave the column alone, and a trigger then puts
 * 'highwater' there; its users set their own name). The ERP also stores telephones in upper case
 * (another trigger): what Highwater wrote comes back different. The hashes decide — the change is
 * synced as an edit, once, and the sides settle — and the warning names the fields that bounced.
 */
const STAMP = PAST_STAMP;
const CRM = `CREATE TABLE profiles (account_id TEXT PRIMARY KEY, phone TEXT, modified_at TEXT NOT NULL DEFAULT (${STAMP}));
  CREATE TRIGGER profiles_stamp AFTER UPDATE ON profiles WHEN NEW.modified_at = OLD.modified_at
    BEGIN UPDATE profiles SET modified_at = ${STAMP} WHERE account_id = NEW.account_id; END;`;
const ERP = `CREATE TABLE customer_profiles (crm_id TEXT PRIMARY KEY, telephone TEXT, changed_by TEXT NOT NULL DEFAULT 'highwater', changed_at TEXT NOT NULL DEFAULT (${STAMP}));
  CREATE TRIGGER customer_profiles_stamp AFTER UPDATE ON customer_profiles WHEN NEW.changed_at = OLD.changed_at
    BEGIN UPDATE customer_profiles SET changed_at = ${STAMP}, telephone = upper(NEW.telephone),
      changed_by = CASE WHEN NEW.changed_by = OLD.changed_by THEN 'highwater' ELSE NEW.changed_by END WHERE crm_id = NEW.crm_id; END;`;

const PAIR = {
  name: 'phones',
  a: { connection: 'crm', entity: 'profiles', key: ['account_id'], watermark: { type: 'datetime', field: 'modified_at' } },
  b: { connection: 'erp', entity: 'customer_profiles', key: ['crm_id'], watermark: { type: 'datetime', field: 'changed_at' }, modifiedBy: { field: 'changed_by', value: 'HighWater' } },
  fields: [{ a: 'account_id', b: 'crm_id' }, { a: 'phone', b: 'telephone' }],
  conflicts: 'newest',
};

describe('two-way: who changed a record last, as a second echo signal', () => {
  let f: SyncFixture;
  const warnings: string[] = [];
  const log: Logger = { info: () => undefined, warn: (m: string) => void warnings.push(m), error: () => undefined, debug: () => undefined } as unknown as Logger;
  const sync = async () => {
    const sent = await syncPair(f, 'phones');
    return sent.aToB + sent.bToA;
  };

  beforeAll(async () => {
    f = await createPairFixture(PAIR, { crm: CRM, erp: ERP }, { log });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('syncs a value the side stored differently as an edit, warns once with the fields, and settles', async () => {
    f.crm.prepare('INSERT INTO profiles (account_id, phone) VALUES (?, ?)').run('A-1', '+49 30 abc');
    await sync();
    // Highwater's update of the created row (none yet): edit the CRM so that the ERP row is updated by Highwater.
    f.crm.prepare('UPDATE profiles SET phone = ? WHERE account_id = ?').run('+49 30 ext. 7', 'A-1');
    await sync();
    expect(f.erp.prepare('SELECT telephone, changed_by FROM customer_profiles').get()).toEqual({ telephone: '+49 30 EXT. 7', changed_by: 'highwater' });
    expect(f.crm.prepare('SELECT phone FROM profiles').get()).toEqual({ phone: '+49 30 EXT. 7' });
    expect(warnings.filter((w) => w.includes('last changed by Highwater'))).toEqual([
      'pair "phones", record b A-1: last changed by Highwater\'s own user (changed_by), yet field(s) phone differ from what it wrote: synced as an edit; check how side b stores these fields',
    ]);
    expect(await sync()).toBe(0);
  });

  it('an ERP user\'s edit is an edit, without a warning', async () => {
    warnings.length = 0;
    f.erp.prepare('UPDATE customer_profiles SET telephone = ?, changed_by = ? WHERE crm_id = ?').run('+49 40 1', 'erp-user', 'A-1');
    await sync();
    expect(f.crm.prepare('SELECT phone FROM profiles').get()).toEqual({ phone: '+49 40 1' });
    expect(warnings.filter((w) => w.includes('last changed by Highwater'))).toEqual([]);
  });
});
