import { futureStampWarning, serviceNow, timeHorizon } from '../../../connectors/base/time-horizon';

describe('timeHorizon', () => {
  const now = new Date('2026-03-04T05:06:07.890Z');
  it('cuts the service time minus the settle margin to the whole second (exclusive bound)', () => {
    expect(timeHorizon('datetime', now, 0)).toBe('2026-03-04T05:06:07.0000000Z');
    expect(timeHorizon('datetime', now, 5)).toBe('2026-03-04T05:06:02.0000000Z');
    expect(timeHorizon('datetime', now, 7.9)).toBe('2026-03-04T05:05:59.0000000Z');
  });
  it('cuts to the day for dates; crossing midnight with the margin goes to the day before', () => {
    expect(timeHorizon('date', now, 5)).toBe('2026-03-04');
    expect(timeHorizon('date', new Date('2026-03-04T00:00:02Z'), 5)).toBe('2026-03-03');
  });
  it('has none for types without a time axis', () => {
    expect(timeHorizon('number', now, 5)).toBeUndefined();
    expect(timeHorizon('string', now, 5)).toBeUndefined();
    expect(timeHorizon(undefined, now, 5)).toBeUndefined();
  });
  it('a negative margin counts as none', () => {
    expect(timeHorizon('datetime', now, -3)).toBe('2026-03-04T05:06:07.0000000Z');
  });
});

describe('serviceNow', () => {
  const ours = new Date('2026-03-04T05:06:07.890Z');
  it("takes the service's Date header: the stamps are the service's", () => {
    expect(serviceNow('Wed, 04 Mar 2026 05:06:01 GMT', ours).toISOString()).toBe('2026-03-04T05:06:01.000Z');
  });
  it('falls back to our clock without a readable header', () => {
    expect(serviceNow(null, ours)).toBe(ours);
    expect(serviceNow('yesterday-ish', ours)).toBe(ours);
  });
});

describe('futureStampWarning', () => {
  it('says so when the newest stamp lies more than an hour after the horizon', () => {
    expect(futureStampWarning('j', '2030-01-01T00:00:00.0000000Z', '2026-03-04T05:06:07.0000000Z')).toMatch(
      /^job "j": the newest change is stamped 2030-01-01T00:00:00.0000000Z, \d+ min after the source's clock: changes stamped in the future are read when their time comes/,
    );
    expect(futureStampWarning('j', '2026-03-05', '2026-03-03')).toMatch(/2880 min after/);
  });
  it('is quiet for clock skew and unsettled seconds', () => {
    expect(futureStampWarning('j', '2026-03-04T05:36:07.0000000Z', '2026-03-04T05:06:07.0000000Z')).toBeUndefined();
    expect(futureStampWarning('j', '2026-03-04T05:06:06.0000000Z', '2026-03-04T05:06:07.0000000Z')).toBeUndefined();
  });
});
