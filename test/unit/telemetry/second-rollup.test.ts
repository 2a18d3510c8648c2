import { METRIC_NAMES } from '../../../src/telemetry/metrics';
import { SecondRollup } from '../../../src/telemetry/second-rollup';
import { SeriesIndex } from '../../../src/telemetry/series-index';

const index = new SeriesIndex();
const a = index.lookup(METRIC_NAMES.changesDetected, { job: 'a' });
const b = index.lookup(METRIC_NAMES.changesDetected, { job: 'b' });
const t = (iso: string) => Date.parse(iso);
const summary = (points: Array<{ at: Date; value: number; dimensions: Record<string, string> }>) =>
  points.map((p) => `${p.at.toISOString().slice(17, 23)} ${p.dimensions.job}=${p.value}`);

describe('SecondRollup', () => {
  it('adds into the point of the value’s second and series; seconds stay in time order whatever order values come in', () => {
    const rollup = new SecondRollup();
    rollup.add(t('2026-01-01T00:00:02.500Z'), a, 1);
    rollup.add(t('2026-01-01T00:00:00.999Z'), a, 2);
    rollup.add(t('2026-01-01T00:00:01.000Z'), b, 3);
    rollup.add(t('2026-01-01T00:00:00.000Z'), a, 4);
    rollup.add(t('2026-01-01T00:00:01.999Z'), a, 5);
    rollup.add(t('2026-01-01T00:00:01.001Z'), b, 6);
    expect(summary(rollup.pointsSince(new Date(0)))).toEqual(['00.000 a=6', '01.000 b=9', '01.000 a=5', '02.000 a=1']);
    expect(summary(rollup.pointsSince(new Date('2026-01-01T00:00:00.001Z')))).toEqual(['01.000 b=9', '01.000 a=5', '02.000 a=1']);
    expect(summary(rollup.pointsSince(new Date('2026-01-01T00:00:03Z')))).toEqual([]);
    expect(rollup.pointCount).toBe(4);
  });

  it('take(now) removes the seconds that are over by now, oldest first; take() the rest', () => {
    const rollup = new SecondRollup();
    for (const iso of ['2026-01-01T00:00:01.500Z', '2026-01-01T00:00:00.500Z', '2026-01-01T00:00:02.000Z']) rollup.add(t(iso), a, 1);
    expect(summary(rollup.take(t('2026-01-01T00:00:01.999Z')))).toEqual(['00.000 a=1']);
    expect(summary(rollup.take(t('2026-01-01T00:00:02.000Z')))).toEqual(['01.000 a=1']);
    expect(rollup.take(t('2026-01-01T00:00:02.999Z'))).toEqual([]);
    rollup.add(t('2026-01-01T00:00:02.900Z'), a, 1);
    expect(summary(rollup.take())).toEqual(['02.000 a=2']);
    expect(rollup.pointCount).toBe(0);
    rollup.add(t('2026-01-01T00:00:02.900Z'), a, 1);
    expect(summary(rollup.pointsSince(new Date(0)))).toEqual(['02.000 a=1']);
  });

  it('drops seconds older than retentionMs before the newest when a newer second starts', () => {
    const rollup = new SecondRollup({ retentionMs: 2_000 });
    for (const iso of ['2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', '2026-01-01T00:00:02Z']) rollup.add(t(iso), a, 1);
    expect(rollup.pointCount).toBe(3);
    rollup.add(t('2026-01-01T00:00:03.999Z'), a, 1);
    expect(summary(rollup.pointsSince(new Date(0)))).toEqual(['01.000 a=1', '02.000 a=1', '03.000 a=1']);
    expect(rollup.pointCount).toBe(3);
  });

  it('past maxPoints drops the oldest seconds whole, the current one too when it alone is over', () => {
    const rollup = new SecondRollup({ maxPoints: 2 });
    rollup.add(t('2026-01-01T00:00:00Z'), a, 1);
    rollup.add(t('2026-01-01T00:00:01Z'), a, 2);
    rollup.add(t('2026-01-01T00:00:01Z'), b, 3);
    expect(summary(rollup.pointsSince(new Date(0)))).toEqual(['01.000 a=2', '01.000 b=3']);
    const c = index.lookup(METRIC_NAMES.changesDetected, { job: 'c' });
    rollup.add(t('2026-01-01T00:00:01Z'), c, 4);
    expect(rollup.pointCount).toBe(0);
    rollup.add(t('2026-01-01T00:00:01Z'), c, 5);
    expect(summary(rollup.pointsSince(new Date(0)))).toEqual(['01.000 c=5']);
  });

  it('sum adds the values of a name whose dimensions include the filter', () => {
    const rollup = new SecondRollup();
    const failed = index.lookup(METRIC_NAMES.messagesProcessed, { job: 'a', queue: 'q', outcome: 'Failed' });
    const success = index.lookup(METRIC_NAMES.messagesProcessed, { job: 'a', queue: 'q', outcome: 'Success' });
    rollup.add(t('2026-01-01T00:00:00Z'), failed, 1);
    rollup.add(t('2026-01-01T00:00:00Z'), success, 1);
    rollup.add(t('2026-01-01T00:00:01Z'), success, 1);
    rollup.add(t('2026-01-01T00:00:01Z'), a, 10);
    expect(rollup.sum(METRIC_NAMES.messagesProcessed)).toBe(3);
    expect(rollup.sum(METRIC_NAMES.messagesProcessed, { outcome: 'Success' })).toBe(2);
    expect(rollup.sum(METRIC_NAMES.messagesProcessed, { job: 'a', outcome: 'Failed' })).toBe(1);
    expect(rollup.sum(METRIC_NAMES.changesDetected, { job: 'a' })).toBe(10);
  });
});
