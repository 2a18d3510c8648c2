import type { JobRunResult } from '../../../src/detect/job-run';
import { RUN_STATUS_TABLE, RunStatusStore, type RunStatusRecord } from '../../../src/http/run-status-store';
import { RunTracker } from '../../../src/http/run-tracker';
import { recordingLog } from '../../unit/telemetry/telemetry-stubs';
import { useTableStorage } from '../../support/table-storage';
import { FakeClock } from '../../support/fake-clock';
import { until } from '../../support/fault-injection';

/** The tracker's timing on a fake clock, its rows in a real Azurite table. */
const tables = useTableStorage();

const START = '2026-05-01T12:00:00.000Z';
function run(outcome: JobRunResult['outcome'] = 'Succeeded'): JobRunResult {
  const at = new Date(START);
  return { jobName: 'crm-accounts', trigger: 'manual', startedAt: at, endedAt: at, detected: 2, sentByQueue: { sbqhigh: 2 }, timeStamps: 0, watermarkBefore: null, watermarkAfter: 'w2', outcome };
}
/** A run that ends when the test says so. */
function controlled() {
  let end: (r: JobRunResult) => void = () => {};
  const promise = new Promise<JobRunResult>((resolve) => (end = resolve));
  return { start: () => promise, end };
}

async function setup(store?: RunStatusStore) {
  const clock = new FakeClock(START);
  const log = recordingLog();
  const realStore = store ?? new RunStatusStore(await tables().table(RUN_STATUS_TABLE));
  return { clock, log, store: realStore, tracker: new RunTracker({ store: realStore, clock, log, waitMs: 100_000 }) };
}
const state = async (tracker: RunTracker, id: string) => (await tracker.status(id))?.state;

describe('RunTracker', () => {
  it('returns a run that ends within the wait as it is, writing nothing', async () => {
    const { tracker, clock } = await setup();
    const pending = tracker.runOrAccept('crm-accounts', async () => run());
    await clock.advance(99_999);
    expect(await pending).toEqual({ finished: true, run: run() });
    expect(clock.pending).toBe(0);
  });

  it('accepts a run past the wait, renews its heartbeat, and writes its result at the end', async () => {
    const { tracker, clock } = await setup();
    const work = controlled();
    const pending = tracker.runOrAccept('crm-accounts', work.start);
    await clock.advance(100_000);
    const outcome = await pending;
    if (outcome.finished) throw new Error('expected the run to be accepted');
    const { id } = outcome.accepted;
    expect(await tracker.status(id)).toMatchObject({ state: 'Running', heartbeatAt: new Date('2026-05-01T12:01:40.000Z') });

    await clock.advance(30_000);
    await until('the heartbeat', async () => ((await tracker.status(id))?.heartbeatAt.toISOString() === '2026-05-01T12:02:10.000Z' ? true : undefined));

    work.end(run('Failed'));
    await until('the end', async () => ((await state(tracker, id)) === 'Running' ? undefined : true));
    expect(await tracker.status(id)).toMatchObject({ state: 'Failed', result: { job: 'crm-accounts', outcome: 'Failed', sent: 2, watermarkAfter: 'w2' } });
    expect(clock.pending).toBe(0);
  });

  it('reports Lost once three heartbeats are missed (the instance running it went away)', async () => {
    const { tracker, clock, store } = await setup();
    const record: RunStatusRecord = { id: store.newId(clock.now()), job: 'crm-accounts', state: 'Running', acceptedAt: clock.now(), heartbeatAt: clock.now() };
    await store.write(record);
    await clock.advance(90_000);
    expect(await state(tracker, record.id)).toBe('Running');
    await clock.advance(1);
    expect(await tracker.status(record.id)).toMatchObject({
      state: 'Lost',
      error: 'no heartbeat since 2026-05-01T12:00:00.000Z: the instance running it stopped; the watermark moves only when a run ends, so run the job again',
    });
  });

  it('marks runs still going as Interrupted when it closes, and ignores their end', async () => {
    const { tracker, clock } = await setup();
    const work = controlled();
    const pending = tracker.runOrAccept('crm-accounts', work.start, 0);
    await clock.advance(0);
    const outcome = await pending;
    if (outcome.finished) throw new Error('expected the run to be accepted');
    await tracker.close();
    expect(await tracker.status(outcome.accepted.id)).toMatchObject({ state: 'Interrupted', error: 'the host stopped before the run ended' });
    work.end(run());
    await clock.advance(0);
    expect(await state(tracker, outcome.accepted.id)).toBe('Interrupted');
  });

  it('keeps waiting when the accepted row cannot be written: without it no one could poll', async () => {
    const table = await tables().table(RUN_STATUS_TABLE);
    const failing = new (class extends RunStatusStore {
      override write(): Promise<void> {
        return Promise.reject(new Error('table upsert on "runstatus" failed: 503 ServerBusy'));
      }
    })(table);
    const { tracker, clock, log } = await setup(failing);
    const work = controlled();
    const pending = tracker.runOrAccept('crm-accounts', work.start, 10);
    await clock.advance(10);
    work.end(run());
    expect(await pending).toEqual({ finished: true, run: run() });
    expect(log.lines).toEqual(['warn run of job "crm-accounts" could not be accepted (table upsert on "runstatus" failed: 503 ServerBusy); waiting for it to end instead']);
  });
});

describe('RunStatusStore', () => {
  it('keeps the newest rows only (ids sort newest first)', async () => {
    const store = new RunStatusStore(await tables().table('runstatustrim'), 2);
    const ids: string[] = [];
    for (let minute = 0; minute < 4; minute++) {
      const at = new Date(Date.parse(START) + minute * 60_000);
      const id = store.newId(at);
      ids.push(id);
      await store.write({ id, job: 'j', state: 'Succeeded', acceptedAt: at, heartbeatAt: at, endedAt: at, result: { sent: minute } });
    }
    await store.trim();
    expect(await store.get(ids[0])).toBeUndefined();
    expect(await store.get(ids[1])).toBeUndefined();
    expect(await store.get(ids[3])).toMatchObject({ id: ids[3], state: 'Succeeded', result: { sent: 3 } });
    expect(await store.get(ids[2])).toBeDefined();
  });
});
