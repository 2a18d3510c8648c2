import { classifyError, type ErrorRule, stringCode } from '../../../../connectors/base/error-classification';
import { PermanentError } from '../../../../src/platform/errors';

const rules: ErrorRule[] = [
  { code: 'X1', message: /special/, kind: 'config', reason: 'special case' },
  { code: 'X1', kind: 'permanent', reason: 'bad row' },
  { code: /^08/, kind: 'transient', reason: 'connection failure' },
  { code: 'AUTH', kind: 'config', reason: 'authentication failed', hideDriverMessage: true },
];

function driverError(code: string | undefined, message: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

const options = { codeOf: stringCode, operation: 'db "d": upsert into "t"' };

describe('classifyError', () => {
  it('takes the first matching rule and names operation, reason, code and driver message', () => {
    const err = classifyError(driverError('X1', 'row broke'), rules, options);
    expect([err.name, err.message, err.details]).toEqual(['PermanentError', 'db "d": upsert into "t": bad row (X1): row broke', { code: 'X1' }]);
    expect(err.cause).toBeInstanceOf(Error);
    expect(classifyError(driverError('X1', 'a special row'), rules, options).name).toBe('ConfigError');
    expect(classifyError(driverError('08006', 'gone'), rules, options).message).toBe('db "d": upsert into "t": connection failure (08006): gone');
  });

  it('treats unknown and code-less errors as transient (or the fallback)', () => {
    expect(classifyError(driverError('ZZ', 'odd'), rules, options)).toMatchObject({ name: 'TransientError', message: 'db "d": upsert into "t": unexpected error (ZZ): odd' });
    expect(classifyError('boom', rules, options)).toMatchObject({ name: 'TransientError', message: 'db "d": upsert into "t": unexpected error: boom' });
    expect(classifyError(driverError(undefined, 'odd'), rules, { ...options, fallback: 'permanent' }).name).toBe('PermanentError');
  });

  it('keeps the driver message and cause out for hidden rules and redacts secrets otherwise', () => {
    const hidden = classifyError(driverError('AUTH', 'password "hunter2" rejected for user bob'), rules, options);
    expect([hidden.name, hidden.message, hidden.cause]).toEqual(['ConfigError', 'db "d": upsert into "t": authentication failed (AUTH)', undefined]);
    const redacted = classifyError(driverError('X1', 'cannot use hunter2'), rules, { ...options, redact: (t) => t.replace('hunter2', '***') });
    expect(redacted.message).toBe('db "d": upsert into "t": bad row (X1): cannot use ***');
  });

  it('passes taxonomy errors through unchanged', () => {
    const original = new PermanentError('already classified');
    expect(classifyError(original, rules, options)).toBe(original);
  });
});
