import { parseDuration } from '../../../src/platform/duration';

describe('durations', () => {
  it.each([
    ['250ms', 250],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['7d', 604_800_000],
    ['1w', 604_800_000],
    [' 2h ', 7_200_000],
    ['PT1H', 3_600_000],
    ['P7D', 604_800_000],
    ['pt30m', 1_800_000],
    ['P1DT2H', 93_600_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '2', 'h', '2x', '2h 30m', '-1h', 'P1M', 'P1Y', 'soon', '1h-'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});
