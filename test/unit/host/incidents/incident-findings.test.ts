import { findConditions, type DepthPoint, type IncidentObservation, type RunPoint } from '../../../../src/host/incidents/incident-findings';
import { defaultAlertThresholds } from '../../../../src/telemetry/alert-conditions';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const depth = (minutes: number, queue: string, role: DepthPoint['role'], active: number, deadLetter: number): DepthPoint => ({ at: at(minutes), queue, role, active, deadLetter });
const defaults = defaultAlertThresholds();
const holding = (o: IncidentObservation, now: Date, thresholds = defaults) => findConditions(o, thresholds, now).holding.map((f) => `${f.condition} ${f.cause}: ${f.detail}`);

describe('findConditions: the alert rules read locally', () => {
  it('dead letters rising: the newest depth against the lowest of the last 15 minutes, per queue of any role', () => {
    const depths = [depth(0, 'sbqnormal', 'work', 0, 4), depth(5, 'sbqnormal', 'work', 0, 2), depth(10, 'sbqnormal', 'work', 0, 3), depth(10, 'sbqhigh', 'work', 0, 7)];
    // From its lowest (2, at 10:05) to 3 now: one more; sbqhigh holds 7 throughout.
    expect(holding({ depths }, at(10))).toEqual(['deadLettersRising sbqnormal: 3 dead-lettered, 1 more than 15 min ago at the lowest']);
    // A parked message that expired into its queue's dead-letter subqueue counts as well.
    const expired = [depth(0, 'sbqtransitivelow', 'transitive', 1, 0), depth(1, 'sbqtransitivelow', 'transitive', 0, 1)];
    expect(holding({ depths: expired }, at(1))).toEqual(['deadLettersRising sbqtransitivelow: 1 dead-lettered, 1 more than 15 min ago at the lowest']);
    // 16 minutes on, the 2 has left the window: 3 against 3, nothing rises.
    expect(holding({ depths: [...depths, depth(21, 'sbqnormal', 'work', 0, 3)] }, at(21))).toEqual([]);
    // A higher threshold: a rise of 1 is not enough.
    expect(holding({ depths }, at(10), { ...defaults, deadLettersRising: 2 })).toEqual([]);
  });

  it('parked growing: active messages of a transitive queue, threshold 10 within the hour; work queues do not count', () => {
    const depths = [depth(0, 'sbqtransitivenormal', 'transitive', 1, 0), depth(50, 'sbqtransitivenormal', 'transitive', 11, 0), depth(50, 'sbqnormal', 'work', 500, 0)];
    expect(holding({ depths }, at(50))).toEqual(['parkedGrowing sbqtransitivenormal: 11 parked, 10 more than 1 h ago at the lowest']);
    expect(holding({ depths: depths.map((d) => (d.active === 11 ? { ...d, active: 10 } : d)) }, at(50))).toEqual([]);
  });

  it('job failing: failed runs in a row since the last success, within the day', () => {
    const run = (minutes: number, outcome: RunPoint['outcome'], error?: string): RunPoint => ({ startedAt: at(minutes), outcome, ...(error ? { error } : {}) });
    const runs = new Map<string, RunPoint[]>([
      ['accounts', [run(30, 'Failed', 'source unreachable'), run(20, 'Failed'), run(10, 'Failed'), run(0, 'Succeeded')]],
      ['contacts', [run(30, 'Failed'), run(20, 'Failed'), run(10, 'Succeeded'), run(0, 'Failed')]],
    ]);
    expect(holding({ runs }, at(31))).toEqual(['jobFailing accounts: 3 runs in a row failed, the last at 2026-03-01T10:30:00.000Z: source unreachable']);
    // A day later only the newest is within the window: one failure is not "repeatedly".
    expect(holding({ runs }, at(24 * 60 + 25))).toEqual([]);
  });

  it('target outage: while the outage mode holds, with its error', () => {
    const outages = [{ connection: 'erp', since: at(0), failures: 1, error: 'no such table: customers' }];
    expect(holding({ outages }, at(1))).toEqual(['targetOutage erp: in outage since 2026-03-01T10:00:00.000Z after 1 failed group: no such table: customers']);
    expect(holding({ outages: [] }, at(2))).toEqual([]);
  });

  it('job behind its schedule: no complete read for over 3600 s after a run was due', () => {
    expect(holding({ overdueSeconds: { accounts: 3601, contacts: 3600 } }, at(0))).toEqual(['lagBeyond accounts: no complete read for 1h 0m after a run was due, more than 1h 0m']);
  });

  it('leaves a condition undetermined when its part could not be read, not cleared', () => {
    expect(findConditions({ outages: [] }, defaults, at(0)).undetermined.sort()).toEqual(['deadLettersRising', 'jobFailing', 'lagBeyond', 'parkedGrowing']);
    expect(findConditions({ depths: [], runs: new Map(), outages: [], overdueSeconds: {} }, defaults, at(0))).toEqual({ holding: [], undetermined: [] });
  });
});
