import { bySoak } from '../../support/fault-injection';
import { FaultRig, outcomes } from './support/fault-rig';

/** A well-formed body of the contacts job, with `patch` applied. */
function body(sourceKey: string, patch: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: 1,
    jobName: 'crm-contacts',
    action: 'NewUpdate',
    sourceKey,
    targetKey: { crm_id: sourceKey },
    changeTracker: '2026-01-01T00:00:00.0000000Z',
    fields: { crm_id: sourceKey, customer_crm_id: 'A-HOME', full_name: 'Ada Lovelace' },
    correlationId: `corr-${sourceKey}`,
    detectedAt: '2026-01-01T00:00:01Z',
    ...patch,
  });
}

const ALL_FIELDS_MISSING =
  'malformed message body: version: expected 1, got undefined; jobName: expected a non-empty string; ' +
  'action: expected one of NewUpdate, Delete, InvokeAction; sourceKey: expected a non-empty string; targetKey: expected an object; ' +
  'changeTracker: expected a string; fields: expected an object; correlationId: expected a string; detectedAt: expected a string';

/** Corrupt bodies as they could arrive from a foreign producer or a damaged resend, and the ErrorMessage each must get. */
const CORRUPT_BODIES: Array<[label: string, body: string | Uint8Array, errorMessage: string]> = [
  ['empty body', '', 'malformed message body: not JSON (Unexpected end of JSON input)'],
  ['truncated JSON', body('K').slice(0, 40), 'malformed message body: not JSON (Unterminated string in JSON at position 40)'],
  ['JSON with trailing garbage', `${body('K')}}`, 'malformed message body: not JSON (Unexpected non-whitespace character after JSON at position 288)'],
  // V8 follows these three with a quote of the body's start (`, "…" is not valid JSON)`): only the prefix is asserted.
  ['gzip bytes', Uint8Array.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]), "malformed message body: not JSON (Unexpected token '\u001f'…"],
  ['invalid UTF-8', Uint8Array.from([0xff, 0xfe, 0xfd, 0x7b, 0x7d]), "malformed message body: not JSON (Unexpected token '\ufffd'…"],
  ['XML', '<message><jobName>crm-contacts</jobName></message>', "malformed message body: not JSON (Unexpected token '<'…"],
  ['a JSON array', '[]', 'malformed message body: expected a JSON object'],
  ['JSON null', 'null', 'malformed message body: expected a JSON object'],
  ['a JSON string', '"crm-contacts"', 'malformed message body: expected a JSON object'],
  ['an empty object', '{}', ALL_FIELDS_MISSING],
  ['a newer contract version', body('K', { version: 2 }), 'malformed message body: version: expected 1, got 2'],
  ['an unknown action', body('K', { action: 'Upsert' }), 'malformed message body: action: expected one of NewUpdate, Delete, InvokeAction'],
  ['fields as a list', body('K', { fields: [] }), 'malformed message body: fields: expected an object'],
  ['an empty job name and source key', body('K', { jobName: '', sourceKey: '' }), 'malformed message body: jobName: expected a non-empty string; sourceKey: expected a non-empty string'],
  ['a job that does not exist', body('K', { jobName: 'ghost-job' }), 'unknown job "ghost-job"'],
];

/**
 * Faults in messages: corrupt bodies are dead-lettered at once without blocking the queue, and an
 * oversized row stops its job at that row (every run, until fixed) with an error naming the job,
 * source key and size — never dropped silently. Full form: `HIGHWATER_SOAK=1` (each corrupt body
 * many times over, more rows around the oversized one).
 */
describe('message faults', () => {
  let rig: FaultRig;
  beforeAll(async () => {
    rig = await FaultRig.start();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('corrupt message bodies are dead-lettered at their first delivery, naming what is wrong; good messages pass', async () => {
    const copies = bySoak(1, 20);
    const queue = rig.queues.work.normal;
    rig.f.erp.prepare('INSERT INTO customers (crm_id, name) VALUES (?, ?)').run('A-HOME', 'HOME');
    const sent = CORRUPT_BODIES.flatMap(([label, corrupt], i) =>
      Array.from({ length: copies }, (_, copy) => [
        { body: corrupt, messageId: `corrupt-${i}-${copy}`, applicationProperties: { Case: label } },
        { body: body(`C-GOOD-${i}-${copy}`), messageId: `good-${i}-${copy}` },
      ]).flat(),
    );
    await rig.f.runtime.bus.send(queue, sent);
    const deliveries = await rig.processAll();
    expect(deliveries).toHaveLength(sent.length);
    const byId = new Map(deliveries.map((d) => [d.messageId, d]));
    const dead = new Map((await rig.deadLetters(queue)).map((m) => [m.messageId, m]));
    CORRUPT_BODIES.forEach(([label, , errorMessage], i) => {
      for (let copy = 0; copy < copies; copy++) {
        const id = `corrupt-${i}-${copy}`;
        expect([label, outcomes([byId.get(id)!])]).toEqual([label, ['Failed/deadLettered']]);
        const text = String(dead.get(id)?.applicationProperties.ErrorMessage);
        const shown = errorMessage.endsWith('…') ? `${text.slice(0, errorMessage.length - 1)}…` : text;
        expect([label, dead.get(id)?.deadLetterReason, shown]).toEqual([label, 'PermanentError', errorMessage]);
        expect(outcomes([byId.get(`good-${i}-${copy}`)!])).toEqual(['Success/completed']);
      }
    });
    expect(rig.f.erp.prepare("SELECT count(*) AS n FROM contacts WHERE crm_id LIKE 'C-GOOD-%'").get()).toEqual({ n: CORRUPT_BODIES.length * copies });
    expect(await rig.f.runtime.bus.counts(queue)).toEqual({ active: 0, scheduled: 0, deadLetter: CORRUPT_BODIES.length * copies });
  });

  it('an oversized row stops its job at that row on every run, naming job, source key and size, until it is fixed', async () => {
    const { runtime } = rig.f;
    const before = bySoak(2, 400);
    const after = bySoak(2, 400);
    const stamp = (i: number) => new Date(Date.UTC(2026, 1, 1) + i * 1000).toISOString();
    const insert = rig.f.crm.prepare('INSERT INTO accounts VALUES (?, ?, ?, ?, NULL)');
    const ids: string[] = [];
    for (let i = 0; i < before + 1 + after; i++) {
      const id = `A-SIZE-${String(i).padStart(4, '0')}`;
      ids.push(id);
      // One row just under the queue's 256 KiB limit (it must pass), one over it.
      const name = i === 0 ? 'u'.repeat(250_000) : i === before ? 'o'.repeat(300_000) : id;
      insert.run(id, name, 'x', stamp(i));
    }
    const big = ids[before];
    rig.f.crm.prepare('INSERT INTO contacts VALUES (?, ?, ?, ?, ?)').run('C-SIZE-1', 'A-SIZE-0000', 'Ada', 'Lovelace', stamp(0));
    const expectedError = new RegExp(
      `^message of job 'crm-accounts' for source key '${big}' is too large for queue 'sbqhigh': its body is (\\d+) bytes, over the queue's size limit of 262144 bytes$`,
    );
    const watermarkBefore = (await runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark;

    for (let attempt = 1; attempt <= 2; attempt++) {
      // A failed job waits out its backoff (30 s after the first failure) before the timer runs it again.
      if (attempt === 2) await rig.clock.advance(31_000);
      const runs = await runtime.detection.execute();
      expect(runs.map((r) => [r.jobName, r.outcome])).toEqual(
        attempt === 1
          ? [['crm-accounts', 'Failed'], ['crm-contacts', 'Succeeded'], ['crm-deleted-accounts', 'Succeeded']]
          : [['crm-accounts', 'Failed']], // the other jobs are not due again; the failed one is, after its backoff
      );
      expect(runs[0].error).toMatch(expectedError);
      expect(Number(expectedError.exec(runs[0].error ?? '')?.[1])).toBeGreaterThan(300_000);
      // The watermark does not move past the row: the next run reads it again.
      expect(runs[0].watermarkAfter).toBe(watermarkBefore);
      expect((await runtime.watermarks.getWatermarkByJobName('crm-accounts')).watermark).toBe(watermarkBefore);
      await rig.processAll();
    }
    // Rows before it were delivered once (the second run's resends were dropped as duplicates); none after it.
    for (const id of ids.slice(0, before)) expect(outcomes(rig.deliveriesOf(id, 'crm-accounts'))).toEqual(['Success/completed']);
    for (const id of ids.slice(before)) expect(rig.deliveriesOf(id)).toEqual([]);
    expect(outcomes(rig.deliveriesOf('C-SIZE-1'))).toEqual(['Success/completed']);
    expect(rig.f.erp.prepare('SELECT length(name) AS n FROM customers WHERE crm_id = ?').get(ids[0])).toEqual({ n: 250_000 });

    // Fixed at the source: the next run gets past it and delivers the rest.
    rig.f.crm.prepare('UPDATE accounts SET name = ? WHERE id = ?').run('Shortened', big);
    await rig.clock.advance(61_000); // the second failure's backoff
    const [fixed] = await runtime.detection.execute();
    expect([fixed.jobName, fixed.outcome, fixed.error]).toEqual(['crm-accounts', 'Succeeded', undefined]);
    await rig.processAll();
    for (const id of ids.slice(before)) expect(outcomes(rig.deliveriesOf(id, 'crm-accounts'))).toEqual(['Success/completed']);
    expect(rig.f.erp.prepare("SELECT count(*) AS n FROM customers WHERE crm_id LIKE 'A-SIZE-%'").get()).toEqual({ n: ids.length });
    expect(await rig.deadLetters(rig.queues.work.high)).toEqual([]);
  });
});
