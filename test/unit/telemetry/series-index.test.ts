import { METRIC_NAMES, type Dimensions } from '../../../src/telemetry/metrics';
import { SeriesIndex, seriesKey } from '../../../src/telemetry/series-index';

describe('SeriesIndex', () => {
  it('finds one series for a name and dimensions, whatever order the dimensions come in', () => {
    const index = new SeriesIndex();
    const a = index.lookup(METRIC_NAMES.messagesProcessed, { job: 'a', queue: 'q', outcome: 'Success' });
    expect(index.lookup(METRIC_NAMES.messagesProcessed, { job: 'a', queue: 'q', outcome: 'Success' })).toBe(a);
    expect(index.lookup(METRIC_NAMES.messagesProcessed, { outcome: 'Success', job: 'a', queue: 'q' })).toBe(a);
    expect(index.lookup(METRIC_NAMES.messagesProcessed, { queue: 'q', outcome: 'Success', job: 'a' })).toBe(a);
    expect(index.lookup(METRIC_NAMES.processingDurationMs, { job: 'a', queue: 'q', outcome: 'Success' })).not.toBe(a);
    expect(index.lookup(METRIC_NAMES.messagesProcessed, { job: 'a', queue: 'q', outcome: 'Failed' })).not.toBe(a);
    expect(index.lookup(METRIC_NAMES.messagesProcessed, { job: 'a', queue: 'q' })).not.toBe(a);
    expect(index.seriesCount).toBe(4);
    expect(a).toEqual({ id: expect.any(Number), name: 'MessagesProcessed', dimensions: { job: 'a', queue: 'q', outcome: 'Success' } });
  });

  it('keeps its own copy of the dimensions', () => {
    const index = new SeriesIndex();
    const dimensions = { job: 'a' };
    const series = index.lookup(METRIC_NAMES.changesDetected, dimensions);
    dimensions.job = 'b';
    expect(series.dimensions).toEqual({ job: 'a' });
  });

  it('tells apart dimensions that a plain concatenation would confuse', () => {
    const confusable: Dimensions[] = [
      {},
      { a: '' },
      { a: 'b' },
      { a: 'b', c: 'd' },
      { a: 'b:c', d: '' },
      { a: 'b1:c1:d' },
      { 'a:b': 'c' },
      { a: '1:b' },
      { a: 'b\u0000c\u0001d' },
      { a: 'b', c: 'd:1' },
      { a: 1 as unknown as string },
      { a: '1' },
      { a: '"1"' },
    ];
    const index = new SeriesIndex();
    const ids = confusable.map((d) => index.lookup(METRIC_NAMES.changesDetected, d).id);
    expect(new Set(ids).size).toBe(confusable.length);
    expect(new Set(confusable.map((d) => seriesKey('ChangesDetected', d))).size).toBe(confusable.length);
    expect(seriesKey('ab', {})).not.toBe(seriesKey('a', { b: '' }));
  });

  it('starts afresh past maxSeries: known series get new ids, never an old one', () => {
    const index = new SeriesIndex({ maxSeries: 3 });
    const first = ['a', 'b', 'c'].map((job) => index.lookup(METRIC_NAMES.changesDetected, { job }).id);
    expect(index.lookup(METRIC_NAMES.changesDetected, { job: 'a' }).id).toBe(first[0]);
    const d = index.lookup(METRIC_NAMES.changesDetected, { job: 'd' });
    expect(index.seriesCount).toBe(1);
    const a = index.lookup(METRIC_NAMES.changesDetected, { job: 'a' });
    expect([...first, d.id, a.id]).toEqual([0, 1, 2, 3, 4]);
  });

  it('counts each order of dimensions as a path towards maxSeries', () => {
    const index = new SeriesIndex({ maxSeries: 2 });
    const series = index.lookup(METRIC_NAMES.changesDetected, { a: '1', b: '2' });
    expect(index.lookup(METRIC_NAMES.changesDetected, { b: '2', a: '1' })).toBe(series);
    expect(index.lookup(METRIC_NAMES.changesDetected, { b: '2', a: '1' })).toBe(series);
    expect(index.lookup(METRIC_NAMES.changesDetected, { a: '1', b: '3' }).id).toBe(series.id + 1);
    expect(index.seriesCount).toBe(1);
  });
});
