import {
  ConfigError,
  errorKind,
  errorMessage,
  errorTypeName,
  PermanentError,
  TransientError,
  TransitiveError,
} from '../../../src/platform/errors';

describe('error classes', () => {
  it.each([
    [new TransientError('t'), 'TransientError', 'transient'],
    [new TransitiveError('t'), 'TransitiveError', 'transitive'],
    [new PermanentError('t'), 'PermanentError', 'permanent'],
    [new ConfigError('t'), 'ConfigError', 'config'],
  ])('%s has name %s and kind %s', (err, name, kind) => {
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe(name);
    expect(err.kind).toBe(kind);
    expect(errorKind(err)).toBe(kind);
    expect(errorTypeName(err)).toBe(name);
  });

  it('keeps cause, details and retryAfterMs', () => {
    const cause = new Error('socket hang up');
    const err = new TransientError('target busy', { cause, details: { status: 503 }, retryAfterMs: 1500 });
    expect(err.message).toBe('target busy');
    expect(err.cause).toBe(cause);
    expect(err.details).toEqual({ status: 503 });
    expect(err.retryAfterMs).toBe(1500);
  });

  it('has no cause property when none is given', () => {
    expect('cause' in new PermanentError('x')).toBe(false);
  });
});

describe('errorKind classifies by name only', () => {
  class ForeignTransitive extends Error {
    override name = 'TransitiveError';
  }

  it.each<[string, unknown, string]>([
    ['a plain object named TransitiveError', { name: 'TransitiveError', message: 'missing parent' }, 'transitive'],
    ['a plain object named PermanentError', { name: 'PermanentError' }, 'permanent'],
    ['a plain object named ConfigError', { name: 'ConfigError' }, 'config'],
    ['a foreign class named TransitiveError', new ForeignTransitive('x'), 'transitive'],
    ['a plain Error', new Error('boom'), 'transient'],
    ['a TypeError', new TypeError('x'), 'transient'],
    ['an unknown name', { name: 'WeirdError' }, 'transient'],
    ['a lower-case name', { name: 'permanenterror' }, 'transient'],
    ['an inherited name', Object.create({ name: 'PermanentError' }) as object, 'permanent'],
    ['a name that is not a string', { name: { toString: () => 'ConfigError' } }, 'config'],
    ['a string', 'PermanentError', 'transient'],
    ['null', null, 'transient'],
    ['undefined', undefined, 'transient'],
    ['a number', 42, 'transient'],
  ])('%s → %s', (_label, err, kind) => {
    expect(errorKind(err)).toBe(kind);
  });
});

describe('errorMessage', () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;

  it.each<[string, unknown, string]>([
    ['an Error', new ConfigError('jobs[0].schedule: bad'), 'jobs[0].schedule: bad'],
    ['a string', 'plain text', 'plain text'],
    ['an object', { code: 'E1', status: 400 }, '{"code":"E1","status":400}'],
    ['a number', 3, '3'],
    ['null', null, 'null'],
    ['a circular object', circular, '[object Object]'],
    ['a bigint', 10n, '10'],
  ])('of %s', (_label, err, message) => {
    expect(errorMessage(err)).toBe(message);
  });
});

describe('errorTypeName', () => {
  it.each<[unknown, string]>([
    [new TypeError('x'), 'TypeError'],
    [{ name: 'TransitiveError' }, 'TransitiveError'],
    ['text', 'string'],
    [null, 'object'],
    [undefined, 'undefined'],
  ])('of %p is %s', (err, name) => {
    expect(errorTypeName(err)).toBe(name);
  });
});
