import { deliveryBackoffMs } from '../../../src/process/backoff';

describe('deliveryBackoffMs', () => {
  it.each([
    [0, 0],
    [1, 0],
    [2, 4_000],
    [3, 9_000],
    [4, 16_000],
    [10, 100_000],
    [Number.NaN, 0],
  ])('delivery %p waits %p ms', (deliveryCount, expected) => {
    expect(deliveryBackoffMs(deliveryCount)).toBe(expected);
  });
});
