import { TransientError } from '../../../src/platform/errors';
import { bySoak } from '../../support/fault-injection';
import { type Delivery, expectedBackoffs, FaultRig, outcomes } from './support/fault-rig';

/**
 * Faults at the target, seen through the processor on the local bus (fake clock: the backoff
 * schedule costs no real time). Each case checks where every message ended and what the
 * error properties say. Full form: `HIGHWATER_SOAK=1` (more rows).
 */
describe('target faults', () => {
  let rig: FaultRig;
  const accounts = () => rig.f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)');
  const customer = (id: string) => rig.f.erp.prepare('SELECT crm_id, name, city FROM customers WHERE crm_id = ?').get(id);
  let second = 0;
  /** Strictly increasing change timestamps across the suite. */
  const nextStamp = () => new Date(Date.UTC(2026, 0, 1) + ++second * 1000).toISOString();

  beforeAll(async () => {
    rig = await FaultRig.start();
    // A locked ERP answers SQLITE_BUSY after this long instead of the default 5 s.
    rig.faults.plan = { settings: (name, settings) => (name === 'erp' ? { ...settings, busyTimeoutMs: 20 } : settings) };
  });
  afterAll(async () => {
    await rig?.close();
  });

  async function detectAccounts(): Promise<void> {
    const run = await rig.f.runtime.detection.runJob(rig.f.runtime.init.getJob('crm-accounts'));
    expect([run.outcome, run.error]).toEqual(['Succeeded', undefined]);
  }

  it('target down for a while: every message is retried with backoff, then applied once', async () => {
    const ids = Array.from({ length: bySoak(3, 300) }, (_, i) => `A-DOWN-${String(i + 1).padStart(3, '0')}`);
    for (const id of ids) accounts().run(id, `Down ${id}`, ' Bonn ', nextStamp());
    await detectAccounts();
    // The ERP is unavailable for 10 s (fake time): every statement gets SQLITE_BUSY meanwhile.
    rig.f.erp.exec('BEGIN EXCLUSIVE');
    const stopOutage = rig.clock.every(10_000, () => {
      stopOutage();
      rig.f.erp.exec('COMMIT');
    });
    const rounds: Delivery[][] = [];
    await rig.processAll({ maxMessages: ids.length, afterRound: (round) => void rounds.push(round) });
    // Deliveries 1 (t = 0 s) and 2 (t = 4 s) fail; delivery 3 (t = 13 s) finds the ERP back.
    expect(rounds.slice(0, 3).map((round) => [round.length, round[0].attempt, [...new Set(round.map((d) => d.result.disposition))], new Set(round[0].roundSleeps)])).toEqual([
      [ids.length, 1, ["retried"], new Set()],
      [ids.length, 2, ["retried"], new Set([4_000])],
      [ids.length, 3, ['completed'], new Set([9_000])],
    ]);
    for (const id of ids) {
      const deliveries = rig.deliveriesOf(id, 'crm-accounts');
      expect(outcomes(deliveries)).toEqual(['Failed/retried', 'Failed/retried', 'Success/completed']);
      expect(deliveries[0].result.error).toBe(`sqlite connection "erp": apply ${ids.length} to "customers": the database is busy (SQLITE_BUSY): database is locked`);
      expect(customer(id)).toEqual({ crm_id: id, name: `DOWN ${id}`, city: 'Bonn' });
      // The response job wrote the generated number back: the whole chain completed.
      expect(outcomes(rig.deliveriesOf(id, 'erp-numbers'))).toEqual(['Success/completed']);
    }
    expect(rig.f.erp.prepare("SELECT count(*) AS n FROM customers WHERE crm_id LIKE 'A-DOWN-%'").get()).toEqual({ n: ids.length });
    expect(rig.f.crm.prepare("SELECT count(*) AS n FROM accounts WHERE id LIKE 'A-DOWN-%' AND erp_number IS NOT NULL").get()).toEqual({ n: ids.length });
    expect(await rig.deadLetters(rig.queues.work.high)).toEqual([]);
  });

  it('a poison message is retried until its 10th attempt, then dead-lettered with ErrorMessage; others pass', async () => {
    // One also in the soak form: three distinct records failing as whole groups five times in a
    // row is what the outage mode takes for a target that is down (target-health.ts), and two
    // would share the clock's moves between their rounds, which the backoff check reads per round.
    const poison = ['A-POISON-001'];
    const fine = Array.from({ length: bySoak(2, 200) }, (_, i) => `A-FINE-${String(i + 1).padStart(3, '0')}`);
    for (const id of [...poison, ...fine].sort()) accounts().run(id, id, 'x', nextStamp());
    await detectAccounts();
    rig.faults.plan = {
      ...rig.faults.plan,
      beforeTargetCall: (call) => {
        if (call.sourceKey.startsWith('A-POISON-')) throw new TransientError('erp: request timed out after 60 s');
      },
    };
    await rig.processAll();
    for (const id of poison) {
      const deliveries = rig.deliveriesOf(id);
      expect(outcomes(deliveries)).toEqual([...Array(9).fill('Failed/retried'), 'Failed/deadLettered']);
      expect(deliveries.flatMap((d) => d.roundSleeps)).toEqual(expectedBackoffs(10));
      expect(customer(id)).toBeUndefined();
    }
    for (const id of fine) expect(outcomes(rig.deliveriesOf(id, 'crm-accounts'))).toEqual(['Success/completed']);
    const dead = (await rig.deadLetters(rig.queues.work.high)).filter((m) => String(m.applicationProperties.SourceKey).startsWith('A-POISON-'));
    expect(dead.map((m) => m.applicationProperties.SourceKey).sort()).toEqual(poison);
    for (const m of dead) {
      expect(m.deadLetterReason).toBe('MaxDeliveryCountExceeded');
      expect(m.applicationProperties.Attempt).toBe(10);
      expect(m.applicationProperties).toMatchObject({ ErrorMessage: 'erp: request timed out after 60 s', ErrorType: 'TransientError' });
    }
  });

  it('a permanently invalid row is dead-lettered at its first delivery, without backoff; its neighbours pass', async () => {
    rig.faults.plan = { ...rig.faults.plan, beforeTargetCall: undefined };
    const bad = Array.from({ length: bySoak(1, 25) }, (_, i) => `A-INVALID-${String(i + 1).padStart(3, '0')}`);
    const good = Array.from({ length: bySoak(2, 100) }, (_, i) => `A-VALID-${String(i + 1).padStart(3, '0')}`);
    for (const id of [...bad, ...good].sort()) accounts().run(id, bad.includes(id) ? null : id, 'x', nextStamp());
    await detectAccounts();
    await rig.processAll();
    const dead = new Map((await rig.deadLetters(rig.queues.work.high)).map((m) => [String(m.applicationProperties.SourceKey), m]));
    for (const id of bad) {
      const deliveries = rig.deliveriesOf(id);
      expect(outcomes(deliveries)).toEqual(['Failed/deadLettered']);
      expect(deliveries[0].roundSleeps).toEqual([]);
      const message = dead.get(id);
      expect(message).toMatchObject({ deadLetterReason: 'PermanentError', deliveryCount: 1 });
      expect(message?.applicationProperties).toEqual({
        JobName: 'crm-accounts',
        SourceKey: id,
        ChangeTracker: expect.any(String),
        ErrorMessage:
          'sqlite connection "erp": upsert into "customers": a required field is null (SQLITE_CONSTRAINT_NOTNULL): NOT NULL constraint failed: customers.name',
        ErrorType: 'PermanentError',
        ErrorAt: rig.clock.now().toISOString(),
      });
      expect(customer(id)).toBeUndefined();
    }
    for (const id of good) expect(outcomes(rig.deliveriesOf(id, 'crm-accounts'))).toEqual(['Success/completed']);
  });
});
