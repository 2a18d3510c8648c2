import { formatDeltaWatermark, parseDeltaWatermark } from '../../../../connectors/odata';
import { nextStamp } from '../../../../connectors/odata/delta-watermark';
import { WatermarkValue } from '../../../../src/model/watermark-value';

describe('delta links stored as string watermarks', () => {
  const link = 'https://org/api/data/v9.2/accounts?$deltatoken=9%2108';

  it('round-trips and rejects other forms', () => {
    expect(parseDeltaWatermark(formatDeltaWatermark('2026-03-01T10:00:00.000Z', link))).toEqual({ stamp: '2026-03-01T10:00:00.000Z', link });
    expect(parseDeltaWatermark('')).toBeUndefined();
    expect(parseDeltaWatermark(null)).toBeUndefined();
    expect(parseDeltaWatermark(link)).toBeUndefined();
  });

  it('stamps never move backwards, so a new link always replaces the old one', () => {
    expect(nextStamp(new Date('2026-03-01T10:00:00Z'), '2026-03-01T11:00:00.000Z')).toBe('2026-03-01T11:00:00.001Z');
    expect(nextStamp(new Date('2026-03-01T12:00:00Z'), '2026-03-01T11:00:00.000Z')).toBe('2026-03-01T12:00:00.000Z');
    // A later run's link replaces the stored one even when it sorts lower as text ("0" < "9").
    const watermark = WatermarkValue.initialize('string', formatDeltaWatermark('2026-03-01T11:00:00.000Z', `${link}99`));
    expect(watermark.advance('2026-03-01T11:00:00.001Z')).toBe(true);
    expect(watermark.advance(formatDeltaWatermark('2026-03-01T11:00:00.001Z', `${link}00`))).toBe(true);
    expect(parseDeltaWatermark(watermark.value)?.link).toBe(`${link}00`);
  });
});
