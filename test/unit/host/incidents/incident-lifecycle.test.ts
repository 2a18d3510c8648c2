import type { Finding, Findings } from '../../../../src/host/incidents/incident-findings';
import { advanceIncidents, type Incident } from '../../../../src/host/incidents/incident-lifecycle';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const outage = (detail = 'down'): Finding => ({ condition: 'targetOutage', causeKind: 'connection', cause: 'erp', detail });
const failing: Finding = { condition: 'jobFailing', causeKind: 'job', cause: 'accounts', detail: '3 runs in a row failed' };
const found = (...holding: Finding[]): Findings => ({ holding, undetermined: [] });

/** Steps the lifecycle through evaluations at the given minutes. */
function run(steps: Array<[number, Findings]>): { incidents: Incident[]; log: string[] } {
  let incidents: Incident[] = [];
  const log: string[] = [];
  for (const [minute, findings] of steps) {
    const changes = advanceIncidents(incidents, findings, at(minute));
    incidents = changes.incidents;
    log.push(...changes.opened.map((i) => `${minute} opened ${i.condition} ${i.cause}`), ...changes.closed.map((i) => `${minute} closed ${i.condition} ${i.cause}`));
  }
  return { incidents, log };
}

describe('advanceIncidents', () => {
  it('opens one incident per cause, keeps it open while the condition holds, closes it when it clears', () => {
    const { incidents, log } = run([
      [0, found(outage('down'))],
      [1, found(outage('still down'), failing)],
      [2, found(outage('still down'), failing)],
      [3, found(failing)],
    ]);
    expect(log).toEqual(['0 opened targetOutage erp', '1 opened jobFailing accounts', '3 closed targetOutage erp']);
    expect(incidents.map((i) => [i.condition, i.cause, i.openedAt.toISOString(), i.closedAt?.toISOString() ?? null, i.detail])).toEqual([
      ['jobFailing', 'accounts', at(1).toISOString(), null, '3 runs in a row failed'],
      ['targetOutage', 'erp', at(0).toISOString(), at(3).toISOString(), 'still down'],
    ]);
    expect(incidents[1].title).toBe('Target in outage');
    expect(incidents[1].id).toBe('targetOutage:connection:erp:2026-03-01T10:00:00.000Z');
  });

  it('opens a new incident when a cleared condition comes back; the closed one stays listed 24 h', () => {
    const { incidents } = run([
      [0, found(outage())],
      [5, found()],
      [10, found(outage())],
    ]);
    expect(incidents.map((i) => [i.openedAt.getTime(), i.closedAt?.getTime() ?? null])).toEqual([
      [at(10).getTime(), null],
      [at(0).getTime(), at(5).getTime()],
    ]);
    const later = run([
      [0, found(outage())],
      [5, found()],
      [5 + 24 * 60, found()],
      [6 + 24 * 60, found()],
    ]);
    expect(later.incidents).toEqual([]);
    expect(run([[0, found(outage())], [5, found()], [5 + 24 * 60, found()]]).incidents).toHaveLength(1);
  });

  it('leaves the incidents of a condition that could not be evaluated open', () => {
    const { incidents, log } = run([
      [0, found(failing, outage())],
      [1, { holding: [], undetermined: ['jobFailing'] }],
    ]);
    expect(log).toEqual(['0 opened jobFailing accounts', '0 opened targetOutage erp', '1 closed targetOutage erp']);
    expect(incidents.filter((i) => i.closedAt === null).map((i) => i.cause)).toEqual(['accounts']);
  });

  it('tells causes apart: the same condition for two connections is two incidents', () => {
    const { incidents } = run([[0, found(outage(), { ...outage(), cause: 'crm' })]]);
    expect(incidents.map((i) => i.cause).sort()).toEqual(['crm', 'erp']);
  });
});
