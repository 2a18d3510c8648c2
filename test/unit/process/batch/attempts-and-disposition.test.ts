import { attemptOf, retryAt } from '../../../../src/process/batch/attempts';
import { dispositionFor } from '../../../../src/process/batch/disposition';

describe('attemptOf', () => {
  it.each([
    [{}, 1, 1],
    [{}, 3, 3],
    [{ Attempt: 4 }, 1, 4],
    [{ Attempt: 4 }, 2, 5],
    [{ Attempt: 'x' }, 1, 1],
    [{ Attempt: 0 }, 1, 1],
    [{ Attempt: 2 }, 0, 2],
  ])('properties %j at delivery %p → attempt %p', (applicationProperties, deliveryCount, expected) => {
    expect(attemptOf({ applicationProperties, deliveryCount })).toBe(expected);
  });
});

describe('retryAt', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it.each([
    [1, undefined, 4_000],
    [2, undefined, 9_000],
    [9, undefined, 100_000],
    [1, 20_000, 20_000],
    [3, 1_000, 16_000],
    [1, -5, 4_000],
  ])('after attempt %p (Retry-After %p) the copy is due %p ms later', (attempt, retryAfterMs, wait) => {
    expect(retryAt(attempt, now, retryAfterMs).getTime() - now.getTime()).toBe(wait);
  });
});

describe('dispositionFor', () => {
  const job = { transitiveRetries: 2 };
  it.each([
    ['permanent', 1, job, 'deadLetter'],
    ['transient', 1, undefined, 'deadLetter'],
    ['transitive', 1, job, 'retry'],
    ['transitive', 2, job, 'retry'],
    ['transitive', 3, job, 'park'],
    ['transitive', 1, {}, 'park'],
    ['transient', 9, job, 'retry'],
    ['transient', 10, job, 'exhausted'],
    ['config', 3, job, 'retry'],
    ['config', 10, job, 'exhausted'],
  ] as const)('%s at attempt %p → %s', (kind, attempt, j, expected) => {
    expect(dispositionFor(kind, attempt, j, 10)).toBe(expected);
  });
});
