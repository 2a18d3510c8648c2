import { JobActionType } from '../../../src/model/job';
import type { Pair } from '../../../src/model/pair';
import { createQueueMessage, type JsonValue } from '../../../src/model/queue-message';
import { AMBIGUOUS, heldSide, holdsOf, isOpenHold, releaseNotice } from '../../../src/twoway/match-holds';
import type { InitialMatch } from '../../../src/twoway/initial-match';

const pair: Pair = {
  name: 'accounts',
  a: { connection: 'crm', entity: 'accounts', key: ['no'], watermark: { type: 'datetime', field: 'modified' } },
  b: { connection: 'erp', entity: 'customers', key: ['nr'], watermark: { type: 'datetime', field: 'changed' } },
  fields: [
    { a: 'no', b: 'nr', direction: 'both' },
    { a: 'email', b: 'mail', direction: 'both' },
  ],
  schedule: '0 * * * * *',
  enabled: true,
  priority: 'normal',
  conflicts: 'newest',
  deletes: 'propagate',
  match: [{ a: 'email', b: 'mail', ignoreCase: true }],
};
const message = (jobName: string, sourceKey: string, targetKey: Record<string, JsonValue>, fields: Record<string, JsonValue>) =>
  createQueueMessage({ jobName, action: JobActionType.NewUpdate, sourceKey, targetKey, changeTracker: `t-${sourceKey}`, fields });
const found: InitialMatch = { matched: [], ambiguous: [{ values: ['x'], a: ['A-1', 'A-2'], b: ['C-1'] }], keyOnly: [], unmatchedA: [], unmatchedB: [], coupledA: [], coupledB: [] };

describe('holdsOf', () => {
  it('parks each ambiguous record under the a key the sync would use, with its candidates and values', () => {
    const holds = holdsOf(
      pair,
      found,
      {
        a: [message('accounts.a-to-b', 'A-1', { nr: 'A-1' }, { nr: 'A-1', mail: 'x', '$match:0': 'x' }), message('accounts.a-to-b', 'A-2', { nr: null }, { nr: null, mail: 'x', '$match:0': 'x' })],
        b: [message('accounts.b-to-a', 'C-1', { no: 'C-1' }, { no: 'C-1', email: 'X', '$match:0': 'X' })],
      },
      new Date('2026-12-06T11:00:00Z'),
    );
    // A-2 maps to no key on side b: its sync cannot create it there, nothing to hold.
    expect(holds).toEqual([
      {
        pair: 'accounts',
        keyA: 'A-1',
        keyB: 'A-1',
        fields: [AMBIGUOUS, 'candidate b C-1'],
        a: { values: { nr: 'A-1', mail: 'x' }, tracker: 't-A-1' },
        b: { values: {}, tracker: null },
        detectedAt: '2026-12-06T11:00:00.000Z',
      },
      {
        pair: 'accounts',
        keyA: 'C-1',
        keyB: 'C-1',
        fields: [AMBIGUOUS, 'candidate a A-1', 'candidate a A-2'],
        a: { values: {}, tracker: null },
        b: { values: { no: 'C-1', email: 'X' }, tracker: 't-C-1' },
        detectedAt: '2026-12-06T11:00:00.000Z',
      },
    ]);
    expect(holds.map(isOpenHold)).toEqual([true, true]);
    expect(isOpenHold({ ...holds[0], resolution: 'a' })).toBe(false);
    expect(isOpenHold({ ...holds[0], fields: ['email'] })).toBe(false);
  });

  it("syncs a released record through its side's job, under an id of its own", () => {
    const [hold] = holdsOf(pair, found, { a: [message('accounts.a-to-b', 'A-1', { nr: 'A-1' }, { nr: 'A-1' })], b: [message('accounts.b-to-a', 'C-1', { no: 'C-1' }, { no: 'C-1' })] }, new Date());
    const bHold = holdsOf(pair, found, { a: [], b: [message('accounts.b-to-a', 'C-1', { no: 'C-1' }, { no: 'C-1' })] }, new Date())[0];
    expect([heldSide(hold), heldSide(bHold)]).toEqual(['a', 'b']);
    const { message: notice, outgoing } = releaseNotice(bHold, 't-now', new Date('2026-12-06T11:00:00Z'));
    expect(notice).toMatchObject({ jobName: 'accounts.b-to-a', sourceKey: 'C-1', changeTracker: 't-now', fields: {}, targetKey: {} });
    expect(outgoing.messageId).toMatch(/^[0-9a-f]{32}$/);
  });
});
